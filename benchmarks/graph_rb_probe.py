"""How much the k-way partition's shape on the finest level matters on a graph: igpart's default
run against a partition formed by recursive bisection of the input graph itself (every block
bisected as a whole graph by igpart's own k = 2 pipeline, each level of bisections with
epsilon' = (1 + epsilon)^(1 / log2 k) - 1), each followed by ``igpart.improve`` (refinement and
V-cycles, whose coarsening stays inside the blocks). KaMinPar's figures on the same inputs
come from ``suite.py --tools kaminpar``.

The recursive bisection here is a probe of quality, not a way to partition: it makes
log2(k) passes of the whole multilevel pipeline over the graph. Deep multilevel partitioners
(KaMinPar) form their blocks the same way, by bisecting blocks, but on coarse levels where the
blocks are small.

    python benchmarks/graph_rb_probe.py GRAPH [GRAPH ...] -k 64 --threads 2
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import igpart  # noqa: E402
from igpart.kernels import omp_threads  # noqa: E402
from igpart.metrics import block_weights, edge_cut, max_block_weight  # noqa: E402
from igpart.subgraphs import subgraphs  # noqa: E402


def recursive_bisection(g: igpart.Graph, k: int, epsilon: float, seed: int) -> np.ndarray:
    """Blocks 0..k-1 (k a power of two): each level bisects every block of the level above
    with igpart's k = 2 pipeline on the block's induced subgraph."""
    depth = int(math.log2(k))
    eps = (1.0 + epsilon) ** (1.0 / depth) - 1.0
    parts = np.zeros(g.n, dtype=np.int64)
    for level in range(depth):
        blocks = 1 << level
        nxt = parts * 2
        for b, verts, sub in subgraphs(g, parts, blocks):
            half = np.asarray(igpart.partition(sub, 2, eps, backend="cpu",
                                               seed=seed + b).parts)  # fmt: skip
            nxt[verts] += half
        parts = nxt
    return parts.astype(np.int32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="+", help="METIS .graph files")
    ap.add_argument("-k", type=int, default=64, help="a power of two")
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.k < 2 or args.k & (args.k - 1):
        raise SystemExit("graph_rb_probe: -k must be a power of two >= 2")
    print("| graph | k | default cut (s) | + improve (s) | recursive bisection cut (s) "
          "| + improve (s) | bound kept |")
    print("|---|---:|---:|---:|---:|---:|---|")
    with omp_threads(args.threads):
        for path in args.graphs:
            g = igpart.read_graph(path)
            bound = max_block_weight(g.total_weight, args.k, args.epsilon)
            row = [Path(path).stem, str(args.k)]
            ok = True
            for rb in (False, True):
                t0 = time.perf_counter()
                if rb:
                    parts = recursive_bisection(g, args.k, args.epsilon, args.seed)
                else:
                    parts = np.asarray(igpart.partition(g, args.k, args.epsilon, backend="cpu",
                                                        seed=args.seed).parts)  # fmt: skip
                t1 = time.perf_counter()
                better = igpart.improve(g, parts, args.k, args.epsilon, backend="cpu",
                                        seed=args.seed)  # fmt: skip
                t2 = time.perf_counter()
                fixed = np.asarray(better.parts)
                for p in (parts, fixed):
                    ok &= bool(block_weights(g, p, args.k).max() <= bound)
                row += [f"{edge_cut(g, parts):,} ({t1 - t0:.2f})",
                        f"{edge_cut(g, fixed):,} ({t2 - t1:.2f})"]
            print("| " + " | ".join(row + ["yes" if ok else "NO"]) + " |", flush=True)


if __name__ == "__main__":
    main()
