"""Where a graph partition's time goes on the C++ backend, per thread count and thread cap.

For every generated graph (``grid2d``: 2^S vertices in a square grid, ``grid3d``: a cube of about
2^S, ``delaunay`` / ``rgg``: 2^S random points, as the suite's ``graphs`` set), every k, thread
count T and value C of ``CpuBackend.stage_pins_per_thread`` (0: no cap), runs
``igpart.partition(g, k, backend="cpu", config={"threads": T})`` ``--reps`` times, the settings
alternating in one process, and prints each run's seconds, edge cut and ``Partition.timings``,
then per case the fastest run of each setting.

    python benchmarks/graph_threads.py --graphs grid2d,grid3d,delaunay --ks 16 --threads 1,16
    python benchmarks/graph_threads.py --ks 2,64 --threads 16 --caps 16384,0
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import igpart
from igpart.generators import delaunay_graph, grid_graph, rgg_graph
from igpart.kernels.cpu import CpuBackend


def make(name: str, scale: int, seed: int):
    n = 1 << scale
    if name == "grid2d":
        side = round(n ** 0.5)
        return grid_graph(side, side)
    if name == "grid3d":
        side = round(n ** (1 / 3))
        return grid_graph(side, side, side)
    if name == "delaunay":
        return delaunay_graph(n, seed=seed)
    if name == "rgg":
        return rgg_graph(n, seed=seed)
    raise SystemExit(f"unknown graph '{name}' (grid2d, grid3d, delaunay, rgg)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default="grid2d,grid3d,delaunay,rgg")
    ap.add_argument("--scale", type=int, default=20, help="2^scale vertices")
    ap.add_argument("--ks", default="16")
    ap.add_argument("--threads", default="1,16")
    ap.add_argument("--caps", default=str(CpuBackend.stage_pins_per_thread),
                    help="values of CpuBackend.stage_pins_per_thread (0: no cap)")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    ks = [int(x) for x in args.ks.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    caps = [int(x) for x in args.caps.split(",")]
    for name in args.graphs.split(","):
        g = make(name, args.scale, args.seed)
        for k in ks:
            best: dict = defaultdict(lambda: float("inf"))
            for _ in range(args.reps):
                for t in threads:
                    for cap in caps:
                        CpuBackend.stage_pins_per_thread = cap
                        p = igpart.partition(g, k, backend="cpu", seed=args.seed,
                                             config={"threads": t})
                        phases = " ".join(f"{a} {b:.3f}" for a, b in sorted(p.timings.items()))
                        print(f"{name} (n {g.n}) k={k} T={t} cap={cap}: {p.seconds:.3f} s "
                              f"cut {p.cut} [{phases}]", flush=True)
                        best[(t, cap)] = min(best[(t, cap)], p.seconds)
            print(f"{name} k={k} fastest: " + ", ".join(
                f"T={t} cap={c} {s:.3f} s" for (t, c), s in best.items()), flush=True)


if __name__ == "__main__":
    main()
