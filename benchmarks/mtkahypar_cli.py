"""Mt-KaHyPar as a command, for whole-process timings beside ``igpart partition``.

Reads an hMETIS file (or a METIS ``.graph`` file, partitioned in graph mode for the edge cut)
with Mt-KaHyPar's own reader, partitions it, writes the partition file (one
block id per line) and prints one JSON object (cut, km1, imbalance, seconds of the partitioning
call). Needs only the ``mtkahypar`` package (no igpart).

    python benchmarks/mtkahypar_cli.py ibm01.hgr -k 8 -e 0.03 --threads 2 -o ibm01.part.8
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

PRESETS = ("default", "quality", "highest_quality", "deterministic", "large_k")


def peer_parser(doc: str) -> argparse.ArgumentParser:
    """The options every peer command takes (``kaminpar_cli.py`` shares them)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("-k", type=int, required=True)
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-t", "--threads", type=int, default=1)
    ap.add_argument("-o", "--output", required=True)
    return ap


def parse_peer_args(ap: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    args = ap.parse_args(argv)
    if args.k < 2 or args.threads < 1 or args.epsilon < 0:
        ap.error("need k >= 2, threads >= 1 and epsilon >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    ap = peer_parser(__doc__)
    ap.add_argument("--objective", choices=("cut", "km1"), default="cut")
    ap.add_argument("--preset", choices=PRESETS, default="default")
    args = parse_peer_args(ap, argv)
    try:
        import mtkahypar
    except ImportError:
        print("mtkahypar_cli: Mt-KaHyPar is not installed (pip install mtkahypar)",
              file=sys.stderr)
        return 2
    init = mtkahypar.initialize(args.threads)
    mtkahypar.set_seed(args.seed)
    ctx = init.context_from_preset(getattr(mtkahypar.PresetType, args.preset.upper()))
    graph = Path(args.file).suffix.lower() == ".graph"
    obj = (mtkahypar.Objective.CUT if args.objective == "cut" or graph  # graphs: the edge cut
           else mtkahypar.Objective.KM1)
    ctx.set_partitioning_parameters(args.k, args.epsilon, obj)
    ctx.logging = False
    try:
        if graph:
            hg = init.graph_from_file(args.file, ctx, mtkahypar.FileFormat.METIS)
        else:
            hg = init.hypergraph_from_file(args.file, ctx, mtkahypar.FileFormat.HMETIS)
    except Exception as exc:  # Mt-KaHyPar raises its own exception types for unreadable input
        print(f"mtkahypar_cli: {args.file}: {exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    p = hg.partition(ctx)
    seconds = time.perf_counter() - t0
    p.write_partition_to_file(args.output)
    print(json.dumps({"cut": int(p.cut()), "km1": int(p.km1()),
                      "imbalance": float(p.imbalance(ctx)), "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
