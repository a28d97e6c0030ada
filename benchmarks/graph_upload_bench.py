"""A graph's upload to the GPU with its unit weights made on the device (a graph read or
generated without weights: ``Graph.unit_edge_weights``) against the same graph whose weights
are copied, in one process, the two alternating.

    python benchmarks/graph_upload_bench.py /tmp/igpart_suite/inputs/graphs/delaunay_n22_s0.graph \
        -k 16 --repeat 3

Per input: the ``upload`` phase of ``Partition.timings`` and the whole call (medians over the
repeats, after one untimed call of each), and the cuts (the partition does not depend on where
the ones were made; the GPU's own run-to-run spread aside).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import igpart


def _copied(g: igpart.Graph) -> igpart.Graph:
    """``g`` with the same arrays, its weights marked as not known to be ones (copied)."""
    c = igpart.Graph(g.xadj, g.adjncy, g.n, g.adjwgt, g.vwgt, check=False)
    c.unit_edge_weights = c.unit_vertex_weights = False
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("graphs", nargs="+", help="METIS .graph files")
    ap.add_argument("-k", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print("| graph | arcs | upload ms copied / on the device | call s copied / on the device "
          "| cuts copied / on the device |")
    print("|---|---:|---|---|---|")
    for path in args.graphs:
        g = igpart.read_graph(path)
        variants = {"copied": _copied(g), "device": g}
        got = {name: ([], [], []) for name in variants}
        for x in variants.values():  # untimed: kernels, pools
            igpart.partition(x, args.k, backend="gpu", seed=args.seed)
        for _ in range(args.repeat):
            for name, x in variants.items():
                t0 = time.perf_counter()
                p = igpart.partition(x, args.k, backend="gpu", seed=args.seed)
                up, call, cuts = got[name]
                call.append(time.perf_counter() - t0)
                up.append(p.timings.get("upload", 0.0))
                cuts.append(p.cut)
        med = {name: (statistics.median(v[0]) * 1e3, statistics.median(v[1])) for name, v in
               got.items()}
        cuts = [", ".join(map(str, got[name][2])) for name in ("copied", "device")]
        print(f"| {Path(path).stem} | {g.adjncy.size:,} | {med['copied'][0]:.1f} / "
              f"{med['device'][0]:.1f} | {med['copied'][1]:.3f} / {med['device'][1]:.3f} | "
              f"{cuts[0]} / {cuts[1]} |", flush=True)


if __name__ == "__main__":
    main()
