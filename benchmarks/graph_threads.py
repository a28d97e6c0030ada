"""Where a graph partition's time goes on the C++ backend, per thread count and thread cap.

For every generated graph (``grid2d``: 2^S vertices in a square grid, ``grid3d``: a cube of about
2^S, ``delaunay`` / ``rgg``: 2^S random points of seed 0, as the suite's ``graphs`` set builds
them; ``fm_bench.load``), every k, thread count T and value C of
``CpuBackend.stage_pins_per_thread`` (0: no cap), runs
``igpart.partition(g, k, backend="cpu", config={"threads": T})`` ``--reps`` times (with each
``--metis`` implementation of the initial partitioning's METIS), the settings alternating in
one process, and prints each run's seconds, edge cut and ``Partition.timings``,
then per case the fastest run of each setting.

    python benchmarks/graph_threads.py --graphs grid2d,grid3d,delaunay --ks 16 --threads 1,16
    python benchmarks/graph_threads.py --ks 2,64 --threads 16 --caps 16384,0
    python benchmarks/graph_threads.py --ks 16,64 --threads 16 --metis native,pymetis
    python benchmarks/graph_threads.py --ks 2,16,64 --threads 16 --async-lp 0,2
    python benchmarks/graph_threads.py --ks 2,16,64 --threads 16 --async-refine 0,2
"""

from __future__ import annotations

import argparse
import itertools
from collections import defaultdict
from pathlib import Path

from fm_bench import GRAPHS, load  # this folder is sys.path[0] when run as a script
from metis_compare import metis_impl

import igpart
from igpart.kernels.cpu import CpuBackend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default="grid2d,grid3d,delaunay,rgg")
    ap.add_argument("--scale", type=int, default=20, help="2^scale vertices")
    ap.add_argument("--ks", default="16")
    ap.add_argument("--threads", default="1,16")
    ap.add_argument("--caps", default=str(CpuBackend.stage_pins_per_thread),
                    help="values of CpuBackend.stage_pins_per_thread (0: no cap)")
    ap.add_argument("--async-lp", default=str(CpuBackend.async_graph_lp_min_threads),
                    help="values of CpuBackend.async_graph_lp_min_threads (0: the sliced "
                    "clustering on any threads)")
    ap.add_argument("--async-refine", default=str(CpuBackend.async_graph_lp_refine_min_threads),
                    help="values of CpuBackend.async_graph_lp_refine_min_threads (0: the sliced "
                    "label propagation refinement on any threads)")
    ap.add_argument("--metis", default="native",
                    help="comma-separated: native (igpart's METIS), pymetis (metis_compare.py)")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0, help="the partitions' seed")
    args = ap.parse_args()
    ks = [int(x) for x in args.ks.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    caps = [int(x) for x in args.caps.split(",")]
    impls = args.metis.split(",")
    asyncs = [int(x) for x in args.async_lp.split(",")]
    refines = [int(x) for x in args.async_refine.split(",")]
    for name in args.graphs.split(","):
        if name not in GRAPHS:
            raise SystemExit(f"unknown graph '{name}' ({', '.join(GRAPHS)})")
        g = load(f"{name}:{args.scale}", Path("."))
        for k in ks:
            best: dict = defaultdict(lambda: float("inf"))
            cuts: dict = defaultdict(list)
            for _ in range(args.reps):
                for t, cap, impl, a, r in itertools.product(threads, caps, impls, asyncs,
                                                            refines):
                    CpuBackend.stage_pins_per_thread = cap
                    CpuBackend.async_graph_lp_min_threads = a
                    CpuBackend.async_graph_lp_refine_min_threads = r
                    with metis_impl(impl):
                        p = igpart.partition(g, k, backend="cpu", seed=args.seed,
                                             config={"threads": t})
                    phases = " ".join(f"{x} {y:.3f}" for x, y in sorted(p.timings.items()))
                    print(f"{name} (n {g.n}) k={k} T={t} cap={cap} metis={impl} async={a} "
                          f"refine={r}: "
                          f"{p.seconds:.3f} s cut {p.cut} [{phases}]", flush=True)
                    key = (t, cap, impl, a, r)
                    best[key] = min(best[key], p.seconds)
                    cuts[key].append(p.cut)
            print(f"{name} k={k} fastest: " + ", ".join(
                f"T={t} cap={c} metis={i} async={a} refine={r} {s:.3f} s cut "
                f"{min(cuts[(t, c, i, a, r)])}" for (t, c, i, a, r), s in best.items()), flush=True)


if __name__ == "__main__":
    main()
