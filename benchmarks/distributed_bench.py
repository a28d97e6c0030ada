"""One partition here against the same partition over the workers of a dask cluster.

For each input: ``igpart.partition(h, k, ...)`` in this process (one GPU, or every core), then
``igpart.partition(h, k, ..., cluster=...)`` (one GPU or a set of cores per worker; see
``igpart.distributed.partition``), each after one untimed call (GPU module loading, worker
start), each partition checked (balanced, metrics recomputed). Prints the seconds, the cut and
the ratios cluster / here per input with their geomeans; ``--json`` keeps every figure, the
machine, the commit, the GPU and the cluster's size.

    python benchmarks/distributed_bench.py /tmp/igpart_suite/inputs/*.hgr -k 64 \\
        --backend gpu --cluster local --json dist.json

The large suite's inputs are generated (and cached in ``WORK/inputs``) by ``suite.py --suite
large --inputs-only``. ``--critical-path W`` needs no cluster: it runs the tasks of a W-worker
cluster here one after the other and counts split + slowest group + final refinement.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from pathlib import Path

import igpart
from igpart.bench import geomean, machine_info
from igpart.distributed.partition import (
    FINAL_VCYCLES,
    SPLIT_OVERRIDES,
    critical_path,
    partition_on_cluster,
)
from igpart.metrics import evaluate


def _gpu() -> str | None:
    try:
        import cupy as cp

        name = cp.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # no CuPy or no device
        return None


def _free_gpu_pool() -> None:
    try:
        import cupy as cp

        cp.get_default_memory_pool().free_all_blocks()
    except ImportError:
        pass


def _timed(h, args, client=None) -> tuple[igpart.Partition, float]:
    def run() -> igpart.Partition:
        if client is None:
            return igpart.partition(h, args.k, args.epsilon, args.objective, args.backend,
                                    args.seed)
        if args.critical_path:
            return critical_path(h, args.k, args.epsilon, args.objective, args.backend,
                                 args.seed, igpart.Config(), args.critical_path,
                                 final_vcycles=args.final_vcycles,
                                 split_overrides=args.split_config)
        return partition_on_cluster(h, args.k, args.epsilon, args.objective, args.backend,
                                    args.seed, igpart.Config(), client,
                                    final_vcycles=args.final_vcycles,
                                    split_overrides=args.split_config)

    if not args.no_warmup:
        run()
    t0 = time.perf_counter()
    p = run()
    if args.critical_path and client is not None:  # the cluster's time, less the transfers
        return p, sum(p.timings[x] for x in ("distributed_split", "distributed_groups_max",
                                             "distributed_refine"))
    return p, time.perf_counter() - t0


def _check(h, p, args) -> list[str]:
    m = evaluate(h, p.parts, args.k, args.epsilon)
    problems = [] if m["balanced"] else [f"unbalanced ({m['imbalance']:.4f})"]
    if (m["cut"], m["km1"]) != (p.cut, p.km1):
        problems.append("metrics differ from a recomputation")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help=".hgr or .graph files")
    ap.add_argument("-k", type=int, default=64)
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", choices=("cut", "km1"), default="cut")
    ap.add_argument("--backend", default="auto", help="auto, cpu or gpu")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cluster", default="local", help="local, local:N or a scheduler address")
    ap.add_argument("--no-warmup", action="store_true", help="no untimed call first")
    ap.add_argument("--final-vcycles", type=int, default=FINAL_VCYCLES,
                    help=f"V-cycles of the final k-way refinement (default {FINAL_VCYCLES})")
    ap.add_argument("--split-config", type=json.loads,
                    help="Config fields of the first split, a JSON object (default "
                    f"{json.dumps(SPLIT_OVERRIDES)}; {{}}: the defaults)")
    ap.add_argument("--critical-path", type=int, metavar="W",
                    help="no cluster: run the tasks of a W-worker cluster here, one after the "
                    "other, and report the cluster's time as split + slowest group + final "
                    "refinement (transfers left out)")
    ap.add_argument("--json", help="write every figure to this file")
    args = ap.parse_args(argv)
    from igpart.distributed import connect, worker_addresses

    meta = {**machine_info(), "gpu": _gpu(), **{x: getattr(args, x) for x in (
        "k", "epsilon", "objective", "backend", "seed", "cluster", "final_vcycles",
        "split_config")}}
    rows = []
    inputs = [(Path(f).name, igpart.read(f)) for f in args.files]
    for name, h in inputs:  # here first, before the workers take their devices
        p, seconds = _timed(h, args)
        rows.append({"input": name, "n": h.n, "here_seconds": seconds,
                     "here_objective": p.objective_value, "here_backend": p.backend,
                     "problems": _check(h, p, args)})
        print(f"{name}: here {args.objective} {p.objective_value} {seconds:.2f} s",
              file=sys.stderr, flush=True)
    _free_gpu_pool()
    with contextlib.nullcontext(True) if args.critical_path else connect(args.cluster) as client:
        meta["workers"] = args.critical_path or len(worker_addresses(client))
        for row, (name, h) in zip(rows, inputs):
            p, seconds = _timed(h, args, client)
            row.update(cluster_seconds=seconds, cluster_objective=p.objective_value,
                       cluster_backend=p.backend, speedup=row["here_seconds"] / seconds,
                       objective_ratio=p.objective_value / max(row["here_objective"], 1),
                       cluster_timings={x: y for x, y in p.timings.items()
                                        if x.startswith("distributed")})
            row["problems"] += _check(h, p, args)
            print(f"{name}: cluster {args.objective} {p.objective_value} {seconds:.2f} s",
                  file=sys.stderr, flush=True)
    summary = {"speedup_geomean": geomean([r["speedup"] for r in rows]),
               "speedup_min": min(r["speedup"] for r in rows),
               "objective_ratio_geomean": geomean([r["objective_ratio"] for r in rows]),
               "objective_ratio_max": max(r["objective_ratio"] for r in rows)}
    print(f"| input | n | here s | cluster s ({meta['workers']} workers) | speedup | "
          f"{args.objective} here | {args.objective} cluster | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        flag = f" FLAGGED: {'; '.join(r['problems'])}" if r["problems"] else ""
        print(f"| {r['input']} | {r['n']:,} | {r['here_seconds']:.2f} | "
              f"{r['cluster_seconds']:.2f} | {r['speedup']:.2f}x | {r['here_objective']} | "
              f"{r['cluster_objective']} | {r['objective_ratio']:.4f}{flag} |")
    print(f"\ngeomean speedup {summary['speedup_geomean']:.2f}x (min "
          f"{summary['speedup_min']:.2f}x), {args.objective} ratio geomean "
          f"{summary['objective_ratio_geomean']:.4f} (max {summary['objective_ratio_max']:.4f})")
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "runs": rows, "summary": summary},
                                              indent=1, default=str))
    bad = any(r["problems"] for r in rows) or not all(math.isfinite(r["speedup"]) for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
