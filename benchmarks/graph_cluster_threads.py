"""The C++ backend's graph clustering alone, per thread count: ``cluster_graph_lp`` on the finest
level of the ``graphs`` set's generated graphs (``fm_bench.load``), the sliced passes
(``deterministic=True``) and the asynchronous ones (``False``), with ``--iterations`` passes and
with one, the faster of ``--reps`` calls each, and the number of clusters. The cluster weight
cap is the partitioner's for ``--k`` (``Config.graph_contraction_limit`` 35: at most
total / (35 k) a cluster).

    python benchmarks/graph_cluster_threads.py --graphs grid2d,delaunay --threads 1,2,4,8,16
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from fm_bench import GRAPHS, load  # this folder is sys.path[0] when run as a script

from igpart.kernels import omp_threads
from igpart.kernels.cpu import CpuBackend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default="grid2d,grid3d,delaunay,rgg")
    ap.add_argument("--scale", type=int, default=20, help="2^scale vertices")
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    be = CpuBackend()
    for name in args.graphs.split(","):
        if name not in GRAPHS:
            raise SystemExit(f"unknown graph '{name}' ({', '.join(GRAPHS)})")
        g = load(f"{name}:{args.scale}", Path("."))
        ga = be.graph_arrays(g)
        mcw = max(1, math.ceil(int(g.vwgt.sum()) / (35 * args.k)))
        for t in (int(x) for x in args.threads.split(",")):
            row = []
            for det in (True, False):
                for its in (args.iterations, 1):
                    best, nc = float("inf"), 0
                    with omp_threads(t):
                        for _ in range(args.reps):
                            t0 = time.perf_counter()
                            _, nc = be.cluster_graph_lp(ga, mcw, iterations=its,
                                                        min_clusters=35 * args.k, seed=0,
                                                        deterministic=det)
                            best = min(best, time.perf_counter() - t0)
                    row.append(f"{'sliced' if det else 'async'} it={its} {best:.4f} s nc {nc}")
            print(f"{name} (n {g.n}, arcs {int(ga.xadj[-1])}) T={t}: " + " | ".join(row),
                  flush=True)


if __name__ == "__main__":
    main()
