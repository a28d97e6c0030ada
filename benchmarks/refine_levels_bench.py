"""What Jet and FM do on each level of a run: vertices, pins, gain and seconds per call.

Runs ``igpart.partition`` on ``--backend`` (``gpu`` or ``cpu``; ``--config``: a JSON of Config
fields, e.g. ``{"refinement": "jet+fm"}`` on the C++ backend, the GPU's default) for every input
(a circuit of ``benchmarks/_data.py`` enlarged ``scale`` times) and k, with the backend's
``jet_refine_hypergraph`` and ``fm_refine_hypergraph`` wrapped to record each call: the stage
(``main``: the uncoarsening of the main hierarchy, ``vcycle<i>``: the i-th V-cycle,
``initial``: the initial partitioning, when it runs on the same backend), the
level's vertices and pins, the objective gain the call reports and its seconds. Prints one row
per call and, per stage, the totals; then the final cut and the run's seconds. ``--reps``
runs (seeds ``--seed ..``), the first one untimed on the GPU (compilation).

    python benchmarks/refine_levels_bench.py --backend gpu --inputs ibm10:29 --ks 16
    python benchmarks/refine_levels_bench.py --backend cpu --inputs ibm10:4 --ks 16 \\
        --config '{"refinement": "jet+fm"}'
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import load  # noqa: E402

import igpart  # noqa: E402
import igpart.partitioner.driver as driver  # noqa: E402
import igpart.partitioner.uncoarsening as unc  # noqa: E402
from igpart.kernels import get_backend  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm10:4", help="name:scale,...")
    ap.add_argument("--ks", default="16")
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--config", type=json.loads, default={})
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rows", action="store_true", help="one row per call, not only totals")
    ap.add_argument("--inflate-seed", type=int, default=1,
                    help="the enlargement's seed (1: as gpu_ab.py and gpu_bench.py)")
    args = ap.parse_args()

    be = get_backend(args.backend)
    calls: list[dict] = []
    stage = {"name": "main"}

    def recorder(what: str, real):
        def call(hg, parts, *a, **kw):
            t = time.perf_counter()
            out, gain = real(hg, parts, *a, **kw)
            int(gain)  # the call's work is done
            calls.append(dict(stage=stage["name"], what=what, n=int(hg.n),
                              pins=int(hg.num_pins), gain=int(gain),
                              s=time.perf_counter() - t))
            return out, gain

        return call

    be.jet_refine_hypergraph = recorder("jet", be.jet_refine_hypergraph)
    be.fm_refine_hypergraph = recorder("fm", be.fm_refine_hypergraph)
    real_vcycle, real_initial = unc.vcycle_hypergraph, driver.initial_hypergraph

    def vcycle(*a, **kw):
        stage["cycles"] += 1
        stage["name"] = f"vcycle{stage['cycles']}"
        return real_vcycle(*a, **kw)

    def initial(*a, **kw):  # the C++ calls of the initial partitioning (C++ backend)
        stage["name"] = "initial"
        try:
            return real_initial(*a, **kw)
        finally:
            stage["name"] = "main"

    unc.vcycle_hypergraph, driver.initial_hypergraph = vcycle, initial
    warm = args.backend == "gpu"
    for item in args.inputs.split(","):
        name, scale = item.split(":")
        h = load(name, int(scale), seed=args.inflate_seed)
        for k in map(int, args.ks.split(",")):
            if warm:
                igpart.partition(h, k, backend=be, seed=args.seed, config=args.config)
                warm = False
            for r in range(args.reps):
                calls.clear()
                stage.update(name="main", cycles=0)
                p = igpart.partition(h, k, backend=be, seed=args.seed + r, config=args.config)
                print(f"## {name}x{scale} k = {k} seed {args.seed + r}: cut {p.cut}, "
                      f"{p.seconds:.3f} s, balanced {p.balanced}; timers "
                      + ", ".join(f"{t} {v:.3f}" for t, v in sorted(
                          p.timings.items(), key=lambda x: -x[1])[:10]), flush=True)
                if args.rows:
                    for c in calls:
                        print(f"  {c['stage']:8s} {c['what']:4s} n {c['n']:>9,} pins "
                              f"{c['pins']:>10,} gain {c['gain']:>7,} {c['s']:.4f} s")
                tot: dict = defaultdict(lambda: [0, 0, 0.0])
                for c in calls:
                    for key in ((c["stage"], c["what"]), ("all", c["what"])):
                        tot[key][0] += 1
                        tot[key][1] += c["gain"]
                        tot[key][2] += c["s"]
                for (st, what), (count, gain, s) in sorted(tot.items()):
                    print(f"  total {st:8s} {what:4s} calls {count:3d} gain {gain:>8,} "
                          f"{s:.3f} s")


if __name__ == "__main__":
    main()
