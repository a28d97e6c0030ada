"""Louvain on the level the GPU backend hands to the host, synchronous against asynchronous
local moving, on the C++ backend alone (no GPU needed): each input (``NAME:SCALE``, an ISPD98 or
Titan23 circuit enlarged by the suite's generator) is coarsened by the C++ backend's clustering
as ``GpuBackend.communities`` coarsens it (at most 4x per level, the last level landing near
``--level`` vertices, nets of up to 50 pins rated), then ``CpuBackend.communities`` runs on that
level with the arguments the GPU backend's partition passes (``sub_rounds`` 0: the GPU backend
has no sub-round default) under ``deterministic`` True (the synchronous passes, what the GPU
backend runs by default) and None (asynchronous from 2 threads on), alternating ``--reps``
times; the least seconds of each, the communities and the modularity of the clique expansion.

    python benchmarks/louvain_level_bench.py --inputs ibm10:29,cholesky_mc:18 --level 100000 --k 64
    python benchmarks/louvain_level_bench.py --inputs ibm01:157,cholesky_mc:18 --level 30000 --k 2
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _data import load  # this folder is sys.path[0] when run as a script

from igpart.community import modularity
from igpart.hypergraph import Hypergraph
from igpart.kernels import omp_threads
from igpart.kernels.cpu import CpuBackend
from igpart.partitioner.config import Config
from igpart.partitioner.context import community_max_weight, community_net_size, resolve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm10:29,cholesky_mc:18")
    ap.add_argument("--level", type=int, default=100_000)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    be = CpuBackend()
    for spec in args.inputs.split(","):
        name, scale = spec.split(":")
        h = load(name, int(scale), seed=args.seed)
        ctx = resolve(Config(), be, h, args.k)
        cap = community_net_size(ctx.community_graph, ctx, h.n)
        cur = be.hypergraph_arrays(h)
        t0 = time.perf_counter()
        while 0 < args.level < cur.n:
            shrink = max(min(4.0, cur.n / args.level), 1.01)
            cmap, nc = be.cluster_hypergraph(cur, cur.total_weight, max_net_size=cap,
                                             max_shrink=shrink, seed=args.seed)
            if nc > 0.9 * cur.n:
                break
            cur = be.contract_hypergraph(cur, cmap, nc)
        level = Hypergraph(cur.eptr, cur.eind, cur.n, vwgt=cur.vwgt, ewgt=cur.ewgt)
        print(f"== {spec} k = {args.k}: level of {cur.n:,} vertices, {len(cur.eind):,} pins "
              f"(coarsened in {time.perf_counter() - t0:.2f} s)")
        options = dict(max_net_size=cap, max_levels=ctx.community_levels,
                       max_passes=ctx.community_passes, seed=args.seed,
                       resolution=ctx.community_resolution,
                       max_weight=community_max_weight(ctx, h.total_weight, args.k),
                       sub_rounds=0, graph=ctx.community_graph,
                       edge_weight=ctx.community_edge_weight,
                       min_pass_gain=ctx.community_pass_gain, level_max=0)
        for threads in (int(t) for t in args.threads.split(",")):
            runs: dict = {"synchronous": [], "asynchronous": []}
            for _ in range(args.reps):
                for mode, det in (("synchronous", True), ("asynchronous", None)):
                    with omp_threads(threads):
                        t = time.perf_counter()
                        comm = be.communities(cur, deterministic=det, **options)
                        runs[mode].append((time.perf_counter() - t, comm))
            for mode, rs in runs.items():
                secs = [r[0] for r in rs]
                comm = rs[int(np.argmin(secs))][1]
                q = modularity(level, comm, max_net_size=cap, resolution=options["resolution"])
                print(f"   {threads:2d} threads {mode:12s} {min(secs) * 1e3:8.1f} ms "
                      f"(runs {[round(s * 1e3) for s in secs]}), "
                      f"{int(comm.max()) + 1} communities, modularity {q:.4f}")


if __name__ == "__main__":
    main()
