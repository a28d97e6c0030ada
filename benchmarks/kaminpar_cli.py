"""KaMinPar as a command, for whole-process timings beside ``igpart partition``.

Reads a METIS ``.graph`` file with KaMinPar's own reader, partitions it with KaMinPar's default
context, writes the partition file (one block id per line) and prints one JSON object (cut and
km1, both the edge cut, and the seconds of the partitioning call). Needs only the ``kaminpar``
package (no igpart).

    python benchmarks/kaminpar_cli.py grid.graph -k 8 -e 0.03 --threads 2 -o grid.part.8
"""

from __future__ import annotations

import json
import sys
import time

from mtkahypar_cli import parse_peer_args, peer_parser  # this folder is sys.path[0]


def main(argv: list[str] | None = None) -> int:
    args = parse_peer_args(peer_parser(__doc__), argv)
    try:
        import kaminpar
    except ImportError:
        print("kaminpar_cli: KaMinPar is not installed (pip install kaminpar)", file=sys.stderr)
        return 2
    try:
        graph = kaminpar.load_graph(args.file, kaminpar.GraphFileFormat.METIS)
    except Exception as exc:  # KaMinPar's reader raises its own exception types
        print(f"kaminpar_cli: {args.file}: {exc}", file=sys.stderr)
        return 2
    kaminpar.reseed(args.seed)
    solver = kaminpar.KaMinPar(args.threads, kaminpar.default_context())
    t0 = time.perf_counter()
    parts = solver.compute_partition(graph, args.k, args.epsilon)
    seconds = time.perf_counter() - t0
    with open(args.output, "w") as f:
        f.write("".join(f"{b}\n" for b in parts))
    cut = int(kaminpar.edge_cut(graph, parts))
    print(json.dumps({"cut": cut, "km1": cut, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
