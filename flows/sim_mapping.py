#!/usr/bin/env python3
"""Simulation mapping flow: places a netlist's cells on the GPUs of a cluster and reports what
its nets cost per level of the machine.

    python flows/sim_mapping.py --verilog tv80.v --lib cells_early.lib \\
        --hierarchy 4:8:2 --distance 1:10:100 --names GPU:node:rack --plot tv80_map.png
    python flows/sim_mapping.py --verilog tv80.v --lib cells_early.lib --cluster cluster.json \\
        --algorithms im,hm,two-phase --ops tv80.ops --json

A parallel RTL simulation or a distributed timing run gives every PE (a GPU) a block of cells;
a net whose cells sit on several GPUs communicates, ten times more expensively across nodes and
a hundred times across racks (the distances). The cluster is ``--hierarchy a1:a2:...``
(innermost first: GPUs per node, nodes per rack, racks) with ``--distance d1:d2:...`` and
optional ``--names`` for the unit each level splits (GPU, node, rack), or a JSON file
``--cluster`` of the form ``{"levels": [{"name": "GPU", "size": 4, "distance": 1}, ...]}``.

The netlist is read into a circuit :class:`igpart.plugin.Session` that keeps a process mapping
(``igpart.map`` with the first of ``--algorithms``); the other algorithms map the same
hypergraph for comparison. For each, the flow prints per level the nets that cross the level's
boundary (their pins sit in more than one GPU / node / rack), their weight, and the
communication cost paid at that level's distance; the sum is ``igpart.communication_cost``.
With ``--ops`` a TAU 2015 change script is replayed batch by batch through the session, which
refines the mapping after each batch, and the final per-level figures are reported too.
``--plot`` draws the cost per level for every algorithm (and after the replay); ``--output``
writes the kept mapping as ``name PE`` lines (what ``igpart evaluate`` reads as a partition).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np

import igpart
from igpart.errors import IgpartError, InputError
from igpart.io import atomic_writer
from igpart.mapping import check_hierarchy, level_costs, parse_levels
from igpart.plugin import Session

DEFAULT_NAMES = ("GPU", "node", "rack", "row", "hall")


def read_cluster(path) -> tuple[tuple[int, ...], tuple, tuple[str, ...]]:
    """``(hierarchy, distance, names)`` from a JSON cluster description (InputError naming the
    file and the problem otherwise)."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: line {exc.lineno}: not JSON: {exc.msg}") from None
    levels = data.get("levels") if isinstance(data, dict) else None
    if not isinstance(levels, list) or not levels:
        raise InputError(f'{path}: expected {{"levels": [{{"name", "size", "distance"}}, ...]}}')
    sizes, dist, names = [], [], []
    for i, lv in enumerate(levels):
        if not isinstance(lv, dict) or "size" not in lv or "distance" not in lv:
            raise InputError(f"{path}: level {i + 1} needs a size and a distance")
        sizes.append(lv["size"])
        dist.append(lv["distance"])
        names.append(str(lv.get("name", _default_name(i))))
    a, d = check_hierarchy(sizes, dist)
    return a, tuple(d.tolist()), tuple(names)


def _default_name(i: int) -> str:
    return DEFAULT_NAMES[i] if i < len(DEFAULT_NAMES) else f"level-{i} group"


def per_level(h: igpart.Hypergraph, parts, hierarchy, distance, names) -> list[dict]:
    """For each level i: the nets whose pins lie in more than one of the units level i splits
    (PEs for i = 1, the level-(i-1) groups above), their weight, and the cost paid at d_i."""
    pe = np.asarray(parts, dtype=np.int64)
    costs = level_costs(h, pe, hierarchy, distance)
    rows, size = [], 1
    for i, (a, d) in enumerate(zip(hierarchy, distance)):
        group = pe // size
        lo = np.full(h.m, np.iinfo(np.int64).max)
        hi = np.full(h.m, -1)
        np.minimum.at(lo, h.pin_nets, group[h.eind])
        np.maximum.at(hi, h.pin_nets, group[h.eind])
        crossing = (hi > lo) & (hi >= 0)
        rows.append({
            "level": i + 1, "boundary": names[i], "groups_of": int(a), "distance": d,
            "nets_crossing": int(crossing.sum()),
            "weight_crossing": int(h.ewgt[crossing].sum()),
            "cost": costs[i].item(),
        })  # fmt: skip
        size *= int(a)
    return rows


def table(title: str, rows: list[dict], total) -> str:
    lines = [title, f"  {'boundary':<12} {'distance':>9} {'nets crossing':>14} "
                    f"{'weight':>10} {'cost':>12}"]  # fmt: skip
    for r in rows:
        lines.append(f"  {r['boundary']:<12} {r['distance']:>9} {r['nets_crossing']:>14,} "
                     f"{r['weight_crossing']:>10,} {r['cost']:>12,}")  # fmt: skip
    lines.append(f"  {'total':<12} {'':>9} {'':>14} {'':>10} {total:>12,}")
    return "\n".join(lines)


def plot(results: list[dict], names, path, title: str) -> None:
    """Grouped bars: communication cost per level boundary, one bar per mapping."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.arange(len(names))
    width = 0.8 / max(len(results), 1)
    fig, ax = plt.subplots(figsize=(7, 4))
    for j, res in enumerate(results):
        ax.bar(x + j * width, [r["cost"] for r in res["levels"]], width,
               label=f"{res['label']} ({res['cost']:,})")  # fmt: skip
    ax.set_xticks(x + width * (len(results) - 1) / 2)
    ax.set_xticklabels([f"{n} boundary" for n in names])
    ax.set_ylabel("communication cost")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    with atomic_writer(path) as f:
        fig.savefig(f, format=os.path.splitext(os.fspath(path))[1][1:] or "png", dpi=120)
    plt.close(fig)


def run(args) -> dict:
    """Maps, optionally replays, and returns the JSON-ready report."""
    from igpart.mapping import MAP_ALGORITHMS
    from igpart.netlist import read_ops, read_verilog

    if args.cluster:
        if args.hierarchy or args.distance:
            raise InputError("give either --cluster or --hierarchy/--distance, not both")
        a, d, names = read_cluster(args.cluster)
    else:
        if not (args.hierarchy and args.distance):
            raise InputError("describe the cluster: --cluster FILE or --hierarchy and --distance")
        a, d = check_hierarchy(parse_levels(args.hierarchy, "--hierarchy"),
                               parse_levels(args.distance, "--distance", float))  # fmt: skip
        d = tuple(d.tolist())
        names = (tuple(args.names.split(":")) if args.names
                 else tuple(_default_name(i) for i in range(len(a))))  # fmt: skip
        if len(names) != len(a):
            raise InputError(f"--names has {len(names)} names for {len(a)} levels")
    algorithms = args.algorithms.split(",")
    for alg in algorithms:
        if alg not in MAP_ALGORITHMS:
            raise InputError(f"--algorithms: unknown '{alg}' (choose from "
                             f"{', '.join(MAP_ALGORITHMS)})")  # fmt: skip
    k = int(np.prod(a))
    circuit = read_verilog(args.verilog, lib=args.lib)
    ops = read_ops(args.ops) if args.ops else None  # read (and checked) before mapping
    session = Session(circuit, k=k, epsilon=args.epsilon, seed=args.seed,
                      mapping={"hierarchy": a, "distance": d, "algorithm": algorithms[0]})
    snap = session.dynamic.to_hypergraph()
    h = snap.hypergraph
    results = []
    for alg in algorithms:
        parts = snap.parts if alg == algorithms[0] else igpart.map(
            h, a, d, args.epsilon, algorithm=alg, seed=args.seed).parts  # fmt: skip
        cost = igpart.communication_cost(h, parts, a, d)
        results.append({"label": alg, "cost": cost, "levels": per_level(h, parts, a, d, names),
                        "balanced": igpart.is_balanced(h, parts, k, args.epsilon)})
    report = {"design": str(args.verilog), "vertices": h.n, "nets": h.m, "k": k,
              "hierarchy": list(a), "distance": list(d), "names": list(names),
              "mappings": results}  # fmt: skip
    if ops is not None:
        costs = [r.mapping["cost"] for r in session.replay(ops)]
        snap = session.dynamic.to_hypergraph()
        h = snap.hypergraph
        cost = igpart.communication_cost(h, snap.parts, a, d)
        report["replay"] = {
            "label": f"{algorithms[0]} after {len(costs)} batches", "batches": len(costs),
            "cost_per_batch": costs, "cost": cost,
            "levels": per_level(h, snap.parts, a, d, names),
            "balanced": bool(session.dynamic.is_balanced),
        }  # fmt: skip
    if args.output:
        blocks = session.blocks()
        with atomic_writer(args.output, "w") as f:
            f.write("".join(map("{} {}\n".format, blocks.keys(), blocks.values())))
        report["output"] = str(args.output)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verilog", required=True, help="the design's structural Verilog")
    ap.add_argument("--lib", help="Liberty file with the cells' pin directions")
    ap.add_argument("--cluster", help='JSON: {"levels": [{"name", "size", "distance"}, ...]}')
    ap.add_argument("--hierarchy", help="PEs per node, nodes per rack, ... (e.g. 4:8:2)")
    ap.add_argument("--distance", help="cost of crossing each level (e.g. 1:10:100)")
    ap.add_argument("--names", help="what each level splits (default GPU:node:rack:...)")
    ap.add_argument("--algorithms", default="im", help="igpart.map algorithms, the first kept "
                    "by the session (default %(default)s)")  # fmt: skip
    ap.add_argument("--ops", help="TAU 2015 .ops file replayed through the mapped session")
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot", help="write a figure of the cost per level")
    ap.add_argument("--output", help="write the kept mapping: one 'name PE' line per cell and "
                    "port (after the replay with --ops)")  # fmt: skip
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    try:
        if args.plot and importlib.util.find_spec("matplotlib") is None:  # before the run
            raise InputError('--plot needs matplotlib (pip install matplotlib, or pip install -e '
                             '".[plot]")')  # fmt: skip
        report = run(args)
        if args.plot:
            shown = report["mappings"] + ([report["replay"]] if "replay" in report else [])
            plot(shown, report["names"], args.plot,
                 f"{Path(args.verilog).name} on {':'.join(map(str, report['hierarchy']))}")
    except IgpartError as exc:
        print(f"sim_mapping: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"sim_mapping: error: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{report['design']}: {report['vertices']:,} cells and ports, {report['nets']:,} "
              f"nets on k = {report['k']} PEs ({':'.join(map(str, report['hierarchy']))}, "
              f"distance {':'.join(map(str, report['distance']))})")  # fmt: skip
        shown = report["mappings"] + ([report["replay"]] if "replay" in report else [])
        for res in shown:
            print(table(res["label"], res["levels"], res["cost"]))
        for written in (args.plot, args.output):
            if written:
                print(f"wrote {written}")
    shown = report["mappings"] + ([report["replay"]] if "replay" in report else [])
    return 0 if all(r["balanced"] for r in shown) else 3


if __name__ == "__main__":
    sys.exit(main())
