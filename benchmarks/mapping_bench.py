"""Process mapping side by side: igpart's hierarchical multisection (``hm``, ``hm-ultra``),
integrated mapping (``im``) and two-phase baseline (k-way partition, then blocks placed greedily
on the PEs), Mt-KaHyPar's ``map_onto_graph`` (Steiner tree objective on the complete target
graph with the hierarchy's distances) and Mt-KaHyPar's two-phase baseline (its k-way km1
partition, then the same greedy placement), all in one process on the same threads.

Every cost is recomputed by ``igpart.communication_cost`` and checked against Mt-KaHyPar's own
``steiner_tree`` of the same PE ids (independent code); a mismatch or an unbalanced mapping is
flagged and makes the exit status 1. Ratios are against Mt-KaHyPar DEFAULT's mapping
(``mtkahypar``; ``mtkahypar-quality`` is its QUALITY preset).
Mt-KaHyPar precomputes the Steiner trees of its target graph: onto 128 PEs it refuses ("Too much
memory requested for precomputing steiner trees"), and onto 64 its ``steiner_tree`` of a
mapping of ibm02 outlasted a step limited to a minute (BENCHMARKS.md, "Deeper hierarchies").
``--check igpart`` then leaves Mt-KaHyPar out (igpart's tools only) and checks each reported
cost against ``igpart.communication_cost`` alone (whose closed form is tested against
brute-force Steiner trees).

    python benchmarks/mapping_bench.py --cases ibm01,ibm02,ibm03,ibm04,ibm05 \\
        --hierarchy 4:8:1 --distance 1:10:100 --threads 2
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load  # noqa: E402

import igpart  # noqa: E402
from igpart import mapping  # noqa: E402
from igpart.mapping import (  # noqa: E402
    block_communication,
    communication_cost,
    distance_matrix,
    greedy_placement,
    parse_levels,
)

TOOLS = ("igpart-hm", "igpart-hm-ultra", "igpart-two-phase", "igpart-im", "mtkahypar",
         "mtkahypar-quality", "mtkahypar-two-phase")


def mtk_setup(threads: int):
    import mtkahypar

    init = mtkahypar.initialize(threads)
    return mtkahypar, init


def mtk_hypergraph(mtk, init, h: igpart.Hypergraph, k: int, epsilon: float):
    ctx = init.context_from_preset(mtk.PresetType.DEFAULT)
    ctx.set_mapping_parameters(k, epsilon)
    ctx.logging = False
    nets = [h.net(e).tolist() for e in range(h.m)]
    hg = init.create_hypergraph(ctx, h.n, h.m, nets, h.vwgt.tolist(), h.ewgt.tolist())
    return ctx, hg


def mtk_target(init, ctx, D: np.ndarray):
    k = D.shape[0]
    edges = [(p, q) for p in range(k) for q in range(p + 1, k)]
    weights = [int(D[p, q]) for p, q in edges]
    return init.create_target_graph(ctx, k, len(edges), edges, weights)


#: ``igpart-ALG/VARIANT[+VARIANT]``: the mapping with some of its settings as they were before
#: (to compare both in one run; the result is the same where only ``threads`` and ``here4``
#: differ): ``threads``, the C++ backend's splits in Python threads of this
#: process, never in worker processes; ``device``, every split of the GPU backend on the device
#: (none on the C++ backend); ``allseeds``, hm-ultra's every split with all its seeds. And one
#: alternative: ``here4``, a level of up to 4 split tasks (hm-ultra's first split) in threads of
#: the process with METIS in the workers, instead of each task whole in a worker; ``first1``,
#: hm's first split on one seed; ``roundspy``, ``im``'s refinement rounds as numpy passes over
#: a full analysis each (``mapping_im.REFINE_KERNEL`` off; the same mapping). A setting named
#: ``module.NAME`` is one of that ``igpart`` module, the others ``igpart.mapping``'s.
VARIANTS = {
    "threads": ("SPLIT_PROCESSES_MIN_THREADS", 1 << 30),
    "device": ("HOST_SPLIT_MAX_VERTICES", 0),
    "allseeds": ("ULTRA_LATER_SEEDS", 0),
    "here4": ("SPLIT_HERE_MAX_TASKS", 4),
    "first1": ("FIRST_SPLIT_SEEDS", {**mapping.FIRST_SPLIT_SEEDS, "hm": 1}),
    "roundspy": ("mapping_im.REFINE_KERNEL", False),
}
#: variants that choose the backend of the igpart tool instead of the run's ``--backend``
#: (``cpu``: the C++ backend's rows beside the GPU's in one run)
BACKEND_VARIANTS = ("cpu", "gpu")


def igpart_map(tool: str, h, a, d, epsilon: float, seed: int, threads: int, backend: str):
    """``igpart.map`` of tool ``igpart-ALG[/VARIANT+...]`` (:data:`VARIANTS`)."""
    name, _, variant = tool[len("igpart-"):].partition("/")
    chosen = [v for v in variant.split("+") if v]
    backend = next((v for v in chosen if v in BACKEND_VARIANTS), backend)
    changes = [(*_setting(VARIANTS[v][0]), VARIANTS[v][1]) for v in chosen
               if v not in BACKEND_VARIANTS]  # fmt: skip
    saved = [(mod, attr, getattr(mod, attr)) for mod, attr, _ in changes]
    try:
        for mod, attr, value in changes:
            setattr(mod, attr, value)
        return igpart.map(h, a, d, epsilon, algorithm=name, seed=seed, threads=threads,
                          backend=backend)  # fmt: skip
    finally:
        for mod, attr, value in saved:
            setattr(mod, attr, value)


def _setting(name: str):
    """(module, attribute) of a :data:`VARIANTS` setting."""
    if "." not in name:
        return mapping, name
    module, _, attr = name.rpartition(".")
    return importlib.import_module(f"igpart.{module}"), attr


def run_case(name, h, a, d, epsilon, threads, seed, tools, mtk, init,
             backend: str = "auto") -> list[dict]:  # fmt: skip
    k = int(np.prod(a))
    rows = []
    if mtk is not None:  # Mt-KaHyPar checks every tool's cost
        ctx, hg = mtk_hypergraph(mtk, init, h, k, epsilon)
        target = mtk_target(init, ctx, distance_matrix(a, d))
    for tool in tools:
        t0 = time.perf_counter()
        timings = {}
        if tool.startswith("igpart-"):
            m = igpart_map(tool, h, a, d, epsilon, seed, threads, backend)
            parts, seconds, reported = m.parts, m.seconds, m.cost
            timings = {key: round(v, 4) for key, v in m.timings.items()}
        elif tool in ("mtkahypar", "mtkahypar-quality"):
            mtk.set_seed(seed)
            mctx = ctx
            if tool == "mtkahypar-quality":
                mctx = init.context_from_preset(mtk.PresetType.QUALITY)
                mctx.set_mapping_parameters(k, epsilon)
                mctx.logging = False
            p = hg.map_onto_graph(target, mctx)
            seconds = time.perf_counter() - t0
            parts = np.array(p.get_partition() if hasattr(p, "get_partition") else
                             [p.block_id(v) for v in range(h.n)], dtype=np.int64)  # fmt: skip
            reported = int(p.steiner_tree(target))
        elif tool == "mtkahypar-two-phase":
            mtk.set_seed(seed)
            pctx = init.context_from_preset(mtk.PresetType.DEFAULT)
            pctx.set_partitioning_parameters(k, epsilon, mtk.Objective.KM1)
            pctx.logging = False
            p = hg.partition(pctx)
            blocks = np.array(p.get_partition(), dtype=np.int64)
            place = greedy_placement(block_communication(h, blocks, k), a, d)
            parts = place[blocks]
            seconds = time.perf_counter() - t0
            reported = None
        else:
            raise SystemExit(f"unknown tool {tool}")
        cost = communication_cost(h, parts, a, d)
        check = None if mtk is None else \
            int(hg.create_partitioned_hypergraph(ctx, k, parts.tolist()).steiner_tree(target))
        balanced = igpart.is_balanced(h, parts, k, epsilon)
        rows.append({
            "case": name, "tool": tool, "cost": cost, "steiner_tree_mtkahypar": check,
            "reported": reported, "km1": igpart.km1(h, parts, k),
            "imbalance": igpart.imbalance(h, parts, k), "balanced": balanced,
            "seconds": seconds, "timings": timings,
            "ok": balanced and check in (None, cost) and (reported is None or reported == cost),
        })  # fmt: skip
    return rows


def report(rows: list[dict], tools) -> str:
    cases = list(dict.fromkeys(r["case"] for r in rows))
    by = {(r["case"], r["tool"]): r for r in rows}
    head = "| case | " + " | ".join(f"{t} cost (s)" for t in tools) + " |"
    lines = [head, "|" + "---|" * (len(tools) + 1)]
    for c in cases:
        cells = []
        for t in tools:
            r = by[(c, t)]
            flag = "" if r["ok"] else " **!**"
            cells.append(f"{r['cost']:,} ({r['seconds']:.2f}){flag}")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    if "mtkahypar" in tools:
        cells = []
        for t in tools:
            cr = [by[(c, t)]["cost"] / by[(c, "mtkahypar")]["cost"] for c in cases]
            tr = [by[(c, "mtkahypar")]["seconds"] / by[(c, t)]["seconds"] for c in cases]
            cells.append(f"{_geo(cr):.3f}x cost, {_geo(tr):.2f}x faster")
        lines.append("| geomean vs mtkahypar | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _geo(xs) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="ibm01,ibm02,ibm03,ibm04,ibm05",
                    help="comma-separated NAME or NAME:SCALE (the circuit enlarged SCALE times)")
    ap.add_argument("--hierarchy", default="4:8:1")
    ap.add_argument("--distance", default="1:10:100")
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="auto", help="igpart's backend: auto, cpu or gpu")
    ap.add_argument("--tools", default=",".join(TOOLS),
                    help="comma-separated, of " + ", ".join(TOOLS) + "; an igpart tool may end in "
                         "/VARIANT[+VARIANT] (" + ", ".join(VARIANTS) + ": some settings as they "
                         "were before, to compare in one run; " + ", ".join(BACKEND_VARIANTS) +
                         ": that backend instead of --backend)")
    ap.add_argument("--check", choices=("mtkahypar", "igpart"), default="mtkahypar",
                    help="whose Steiner tree cost checks each mapping (igpart: without "
                         "Mt-KaHyPar, for its tools only)")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--warmup", type=int, default=1,
                    help="1 (default): before the timed runs, one untimed call of each igpart tool "
                         "on a small input (the process's imports and first-call costs)")
    args = ap.parse_args(argv)
    a = parse_levels(args.hierarchy, "--hierarchy")
    d = parse_levels(args.distance, "--distance", float)
    tools = args.tools.split(",")
    for tool in tools:
        base, _, variant = tool.partition("/")
        bad = [v for v in variant.split("+") if v and v not in VARIANTS
               and v not in BACKEND_VARIANTS]
        if base not in TOOLS or bad or (variant and not base.startswith("igpart-")):
            raise SystemExit(f"unknown tool {tool} (tools: {', '.join(TOOLS)}; variants of an "
                             f"igpart tool: {', '.join(VARIANTS)})")
    if args.check == "igpart":
        peers = [t for t in tools if not t.startswith("igpart-")]
        if peers:
            raise SystemExit(f"--check igpart runs igpart's tools only, not {', '.join(peers)}")
        mtk = init = None
    else:
        mtk, init = mtk_setup(args.threads)
    if args.warmup:
        small = igpart.generators.random_circuit(2000, seed=1)
        for tool in tools:
            if tool.startswith("igpart-"):
                igpart_map(tool, small, a, d, args.epsilon, args.seed, args.threads,
                           args.backend)  # fmt: skip
        from igpart.parallel import metis_pool

        processes = mapping.split_processes(args.threads, mapping.SPLIT_PROCESSES_MIN_VERTICES)
        if processes:  # no timed call waits for a worker's imports
            metis_pool.get_pool(processes).wait_started()
    rows = []
    for name in args.cases.split(","):
        circuit, _, scale = name.partition(":")  # NAME or NAME:SCALE (enlarged SCALE times)
        h = load(circuit, int(scale or 1))
        rows += run_case(name, h, a, d, args.epsilon, args.threads, args.seed, tools, mtk, init,
                         args.backend)  # fmt: skip
        print(json.dumps(rows[-len(tools) :]), file=sys.stderr)
    commit = os.environ.get("IGPART_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        cwd=Path(__file__).parent).stdout.strip()  # fmt: skip
    print(f"hierarchy {args.hierarchy}, distance {args.distance}, eps {args.epsilon}, "
          f"{args.threads} threads, seed {args.seed}, backend {args.backend}, commit {commit}, "
          f"{platform.processor() or platform.machine()}")  # fmt: skip
    print(report(rows, tools))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
