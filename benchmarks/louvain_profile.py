"""What Louvain does per level on the C++ backend: nodes, arcs, passes, moves, seconds, modularity.

For every input (``NAME[:SCALE]`` or an ``.hgr`` path, as ``cpu_profile.py`` reads them), every
thread count T and every named variant (Config overrides; keys ``CpuBackend.NAME`` set that
class attribute, the key ``order_run`` Louvain's runs of consecutive ids,
``_cpu.set_louvain_order_run``, default ``igpart.kernels.cpu.LOUVAIN_ORDER_RUN``), runs
Louvain with the arguments the partitioner passes for a partition into ``--k`` blocks
(``igpart.partitioner.context.resolve``: net-size cap, sub-rounds, community weight cap,
resolution, passes, levels, pruning) through ``_cpu.louvain_profile`` and prints per
level: nodes and arcs of its graph, the seconds to build it (the clique expansion on the first
level, the aggregation on the later ones), then per local-moving pass the nodes rated, the nodes
moved, its seconds and the modularity after it (on the clique expansion, at the run's
resolution). A summary row per run gives Louvain's seconds as the partitioner's ``communities``
call takes them (the builds and passes, without the profile's own modularity evaluations;
the least of ``--repeat`` calls), the communities and the final modularity.

    python benchmarks/louvain_profile.py --inputs neuron:4,ibm10:8,cholesky_mc:4 --threads 1,2
    python benchmarks/louvain_profile.py --inputs ibm10:8 --threads 2 \\
        --variants '{"old": {"community_passes": 8}, "new": {}}'
    python benchmarks/louvain_profile.py --inputs ibm10:29 --threads 2 \\
        --variants '{"one order": {"order_run": 0}, "runs": {}}'
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from cpu_profile import DEFAULT_DATA, cpu_attributes, load  # this folder is sys.path[0]

import igpart
from igpart.kernels import _cpu, cpu, get_backend, omp_threads
from igpart.partitioner.config import Config
from igpart.partitioner.context import community_max_weight, community_net_size, resolve


def louvain_arguments(be, h: igpart.Hypergraph, k: int, overrides: dict):
    """The hypergraph arrays and the ``louvain_profile`` arguments of a partition of ``h`` into
    ``k`` blocks under ``Config(**overrides)`` (what ``preprocessing.detect_communities`` and
    ``CpuBackend.communities`` pass)."""
    ctx = resolve(Config(**overrides), be, h, k)
    graph = ctx.community_graph
    hg = be.hypergraph_arrays(h)
    args = dict(
        max_net_size=community_net_size(graph, ctx, h.n), max_levels=ctx.community_levels,
        max_passes=ctx.community_passes,
        min_move_fraction=getattr(ctx, "community_min_move_fraction", 0.01),
        seed=0, resolution=ctx.community_resolution,
        max_weight=community_max_weight(ctx, h.total_weight, k),
        sub_rounds=ctx.community_sub_rounds, prune=bool(be.community_prune), graph=graph,
        edge_weight=ctx.community_edge_weight, min_pass_gain=ctx.community_pass_gain,
        sub_round_min_arcs=int(be.community_sub_round_min_arcs),
        sub_round_rows_per_thread=int(be.community_sub_round_rows_per_thread),
        barrier_spin_us=int(be.community_barrier_spin_us),
        async_moves=be.louvain_is_async(ctx.deterministic),
    )
    return hg, args


def run(be, h, k: int, overrides: dict, repeat: int):
    """(the least seconds of ``repeat`` calls of ``_cpu.louvain_profile``: its graphs' builds
    and passes, without the profile's modularity evaluations; the communities; the per-level
    profile; the arguments)."""
    hg, args = louvain_arguments(be, h, k, overrides)
    best, levels, comm = float("inf"), None, None
    for _ in range(repeat):
        comm, prof = _cpu.louvain_profile(hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt,
                                          **args)
        timed = sum(lv["build_seconds"] + sum(p["seconds"] for p in lv["passes"])
                    for lv in prof)
        if timed < best:
            best, levels = timed, prof
    return best, comm, levels, args


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default="cholesky_mc", help="comma-separated NAME[:SCALE] or "
                    "PATH.hgr")
    ap.add_argument("--data", default=os.environ.get("IGPART_BENCHMARKS", str(DEFAULT_DATA)))
    ap.add_argument("--k", type=int, default=16, help="k of the partition whose Louvain runs "
                    "(it sets the community weight cap)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--variants", default='{"default": {}}', help="JSON object: name -> "
                    "Config overrides (CpuBackend.NAME keys set that class attribute; "
                    "order_run: Louvain's runs of consecutive ids)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", help="also write every run's profile to this JSON file")
    args = ap.parse_args()
    variants = json.loads(args.variants)
    be = get_backend("cpu")
    out = []
    for spec in args.inputs.split(","):
        name, h = load(spec, Path(args.data))
        print(f"\n== {name}: n={h.n:,} m={h.m:,} pins={h.num_pins:,}, k = {args.k}")
        for T in (int(t) for t in args.threads.split(",")):
            for vname, ov in variants.items():
                cfg = {kk: v for kk, v in ov.items()
                       if not kk.startswith("CpuBackend.") and kk != "order_run"}
                _cpu.set_louvain_order_run(int(ov.get("order_run", cpu.LOUVAIN_ORDER_RUN)))
                attrs = {kk.split(".", 1)[1]: v for kk, v in ov.items()
                         if kk.startswith("CpuBackend.")}
                with cpu_attributes(attrs), omp_threads(T):
                    secs, comm, levels, largs = run(be, h, args.k, cfg, args.repeat)
                final = levels[-1]["passes"][-1]["modularity"] if levels and \
                    levels[-1]["passes"] else 0.0
                print(f"-- {vname}, {T} thread(s): {secs:.3f} s, {int(comm.max()) + 1} "
                      f"communities, modularity {final:.5f} (cap {largs['max_net_size']}, "
                      f"sub-rounds {largs['sub_rounds']}, passes {largs['max_passes']}, "
                      f"levels {largs['max_levels']}, pass gain {largs['min_pass_gain']}, "
                      f"sub-rounds from {largs['sub_round_min_arcs']:,} arcs, asynchronous "
                      f"{largs['async_moves']})")
                print("   level  nodes       arcs         build s  pass  rated      moved      "
                      "pass s   modularity  gain     (s: sub-rounds, a: asynchronous)")
                for i, lv in enumerate(levels):
                    prev = lv["start_modularity"]
                    mark = "s" if lv["sub_rounds"] else "a" if lv["async_moves"] else " "
                    head = (f"   {i:<3d}{mark}   "
                            f"{lv['nodes']:<10,d}  {lv['arcs']:<11,d}  {lv['build_seconds']:7.3f}")
                    for j, p in enumerate(lv["passes"]):
                        lead = head if j == 0 else " " * len(head)
                        print(f"{lead}  {j:<4d}  {p['rated']:<9,d}  {p['moved']:<9,d}  "
                              f"{p['seconds']:7.3f}  {p['modularity']:.5f}     "
                              f"{p['modularity'] - prev:+.5f}")
                        prev = p["modularity"]
                out.append(dict(input=name, threads=T, variant=vname, seconds=secs,
                                communities=int(comm.max()) + 1, modularity=final,
                                args=largs, levels=levels))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
