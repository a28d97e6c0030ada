"""Effort and cut of the initial partitioning of a coarsest level, per recursive-bisection effort.

For every input (a circuit of ``benchmarks/_data.py``, enlarged ``scale`` times) and k, runs
the multilevel driver (C++ backend by default; ``--backend gpu``: the GPU pipeline; ``--config``:
a JSON of Config fields) down to its coarsest level and keeps the arguments of the driver's
``initial_partition`` call there (the driver stops). After one untimed call (imports, the METIS
worker pool's start), for every ``--efforts`` entry ``runs x seeds`` (``Config.initial_rb_runs``
x ``initial_rb_seeds`` as the driver resolves them; ``metis:N``: METIS k-way with N seeds
instead of recursive bisection; suffix ``+top``: with ``recursive.TOP_BISECTION_HERE``), runs
that call ``--reps`` times (seeds ``--seed + 1000 r``) on ``--threads`` threads and
``--metis-processes`` worker processes, and prints: the seconds (median), the cut of the
refined initial partition (the candidates are rebalanced and refined as in the driver), and how
many bisections and METIS calls one run made (counted in-process: only with
``--metis-processes 0``; the work is the same with worker processes).

    python benchmarks/initial_effort_bench.py --inputs ibm10:4 --ks 16,64 \\
        --efforts 4x16,2x16,4x8,2x8,1x16 --threads 2
    python benchmarks/initial_effort_bench.py --backend gpu --inputs ibm10:29 --ks 16 \\
        --efforts 4x16,4x16+top,2x16,4x8 --threads 16 --metis-processes 15
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import load  # noqa: E402
from rb_bench import coarsest_level  # noqa: E402

import igpart.partitioner.initial.coarsest as coarsest_mod  # noqa: E402
import igpart.partitioner.initial.metis as metis_mod  # noqa: E402
import igpart.partitioner.initial.recursive as rec  # noqa: E402
from igpart.metrics import evaluate  # noqa: E402

#: run r uses seed ``--seed + SEED_STRIDE * r``: a run's candidates take consecutive seeds, so
#: consecutive run seeds would share most of them
SEED_STRIDE = 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm10:4", help="name:scale,...")
    ap.add_argument("--ks", default="16")
    ap.add_argument("--efforts", default="4x16,2x16,4x8,2x8,1x16",
                    help="runs x seeds of recursive bisection, or metis:N")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--metis-processes", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", type=json.loads, default={},
                    help="Config fields of the run down to the coarsest level")
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="cpu",
                    help="the backend of the run down to the coarsest level")
    ap.add_argument("--inflate-seed", type=int, default=1,
                    help="the enlargement's seed (1: as gpu_ab.py and gpu_bench.py)")
    args = ap.parse_args()

    counts = {"metis": 0, "bisect": 0}
    real_part_graphs = metis_mod.part_graphs

    def counted_part_graphs(*a, seeds, **kw):
        counts["metis"] += len(seeds)  # one METIS call per seed
        return real_part_graphs(*a, seeds=seeds, **kw)

    metis_mod.part_graphs = counted_part_graphs
    print("| input | k | coarsest n | pins | effort | s (median) | initial cut per seed "
          "| cut geomean | bisections | METIS calls |")
    print("|---|---:|---:|---:|---|---:|---|---:|---:|---:|")
    for item in args.inputs.split(","):
        name, scale = item.split(":")
        h = load(name, int(scale), seed=args.inflate_seed)
        for k in map(int, args.ks.split(",")):
            coarse, cargs, base = coarsest_level(h, k, args.seed, args.config, args.backend)
            real_bisect = base["bisect"]

            def counted_bisect(*a, _real=real_bisect, **kw):
                counts["bisect"] += 1
                return _real(*a, **kw)

            first = True
            for effort in args.efforts.split(","):
                kw = dict(base, bisect=counted_bisect, threads=args.threads,
                          metis_processes=args.metis_processes)
                kw["config"] = dataclasses.replace(
                    kw["config"], initial_metis_processes=args.metis_processes)
                spec, top = effort.removesuffix("+top"), effort.endswith("+top")
                rec.TOP_BISECTION_HERE = top
                if spec.startswith("metis:"):
                    kw.update(method="metis", runs=int(spec.split(":")[1]))
                else:
                    runs, seeds = (int(x) for x in spec.split("x"))
                    kw.update(method="rb", rb_runs=runs, rb_seeds=seeds)
                if first:  # untimed: imports, the worker pool's start, first calls
                    coarsest_mod.initial_partition(*cargs, **kw)
                    first = False
                times, cuts = [], []
                for r in range(args.reps):
                    counts.update(metis=0, bisect=0)
                    kw["seed"] = args.seed + SEED_STRIDE * r
                    t = time.perf_counter()
                    parts = coarsest_mod.initial_partition(*cargs, **kw)
                    times.append(time.perf_counter() - t)
                    m = evaluate(coarse, parts, k, cargs[2], kw.get("block_bounds"))
                    if not m["balanced"]:
                        raise SystemExit(f"unbalanced initial partition ({item}, k = {k}, "
                                         f"{effort})")
                    cuts.append(int(m["cut"]))
                geo = float(np.exp(np.mean(np.log(np.maximum(cuts, 1)))))
                counted = (f"{counts['bisect']} | {counts['metis']}" if not args.metis_processes
                           else "- | -")  # in the workers: not counted here
                print(f"| {name}x{scale} | {k} | {coarse.n} | {coarse.num_pins} | {effort} "
                      f"| {statistics.median(times):.3f} | {cuts} | {geo:.1f} | {counted} |",
                      flush=True)


if __name__ == "__main__":
    main()
