"""Louvain on a graph (``Config.graph_communities``): on its own adjacency
(``CpuBackend.graph_communities``) against its edges as 2-pin nets with the clique expansion
(``preprocessing.edge_nets`` then ``CpuBackend.communities``, the path before), with the
arguments a partition into ``-k`` blocks passes, alternating in one process.

    python benchmarks/graph_louvain_bench.py /tmp/igpart_suite/inputs/graphs/neuron_clique.graph \
        -k 16 --threads 1,2 --repeat 3

Per graph and thread count: the least seconds of ``--repeat`` calls of each (the nets' time
includes building them), the communities, and whether the ids are the same (the local moving
runs deterministically here: ties between equal gains go to the first community met, so on rows
sorted by neighbour, as the generators and every contracted level give them, the two agree).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import igpart
from igpart import Config
from igpart.kernels import get_backend, omp_threads
from igpart.partitioner.context import community_max_weight, community_net_size, resolved
from igpart.partitioner.preprocessing import edge_nets


def _calls(be, g: igpart.Graph, ga, k: int) -> dict:
    """The two ways, as calls without arguments: ``nets`` (the 2-pin nets built, then Louvain's
    clique expansion of them) and ``own`` (Louvain on the adjacency)."""
    cfg = resolved(Config(graph_communities=True, deterministic=True), be, g, k)
    common = dict(max_levels=cfg.community_levels, max_passes=cfg.community_passes, seed=0,
                  resolution=cfg.community_resolution,
                  max_weight=community_max_weight(cfg, g.total_weight, k),
                  sub_rounds=cfg.community_sub_rounds, min_pass_gain=cfg.community_pass_gain,
                  deterministic=True)
    size = community_net_size("clique", cfg, g.n)
    return {
        "nets": lambda: be.communities(edge_nets(ga), graph="clique", level_max=0, k=k,
                                       max_net_size=size, **common),
        "own": lambda: be.graph_communities(ga, **common),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("graphs", nargs="+", help="METIS .graph files")
    ap.add_argument("-k", type=int, default=16, help="the partition whose settings Louvain takes")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    be = get_backend("cpu")
    print("| graph | vertices | arcs | threads | nets s | own adjacency s | ratio | communities "
          "| same ids |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for path in args.graphs:
        g = igpart.read_graph(path)
        ga = be.graph_arrays(g)
        calls = _calls(be, g, ga, args.k)
        for threads in (int(t) for t in args.threads.split(",")):
            best = {"nets": float("inf"), "own": float("inf")}
            out = {}
            with omp_threads(threads):
                for _ in range(args.repeat):
                    for name, fn in calls.items():
                        t0 = time.perf_counter()
                        out[name] = np.asarray(fn())
                        best[name] = min(best[name], time.perf_counter() - t0)
            same = np.array_equal(out["nets"], out["own"])
            print(f"| {Path(path).stem} | {g.n:,} | {g.adjncy.size:,} | {threads} | "
                  f"{best['nets']:.3f} | {best['own']:.3f} | {best['own'] / best['nets']:.2f} | "
                  f"{int(out['own'].max()) + 1} | {'yes' if same else 'no'} |", flush=True)


if __name__ == "__main__":
    main()
