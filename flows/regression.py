#!/usr/bin/env python3
"""Regression flow: igpart vs Mt-KaHyPar (DEFAULT preset, same threads) and METIS (clique
expansion) on the ISPD98 circuits, side by side in one run.

    python flows/regression.py                       # ibm01..ibm09, k = 2..64, eps 0.03, cut
    python flows/regression.py --instances ibm01 ibm02 -k 2 4 --json
    python flows/regression.py --plot ratios.png -o report.md
    python flows/regression.py --cluster local:4     # the runs as tasks of a dask cluster

Prints a markdown table per instance and k (cut, imbalance, seconds of each tool, ratios
igpart/peer) with geometric means; ``--json`` prints the raw runs instead. Files given on the
command line replace the ISPD98 selection. ``--cluster local[:N]|ADDRESS`` runs each (instance,
k, tool) as a task of a dask cluster (``pip install igpart[distributed]``), each worker on its
own GPU or cores; the figures equal a serial run's. Exit status 3 when an igpart partition is
unbalanced or fails.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from igpart.cli import add_bench_arguments, cmd_bench
from igpart.errors import IgpartError

HERE = Path(__file__).resolve().parent
DEFAULT_BENCHMARKS = Path(os.environ.get("IGPART_BENCHMARKS", HERE.parent.parent / "shared" /
                                         "benchmarks"))
ISPD98 = [f"ibm{i:02d}" for i in range(1, 10)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_bench_arguments(ap, files_required=False)
    ap.add_argument("--benchmarks", default=str(DEFAULT_BENCHMARKS),
                    help="folder holding ispd98/ (default ../shared/benchmarks)")
    ap.add_argument("--instances", nargs="+", default=ISPD98,
                    help="ISPD98 instance names (default ibm01..ibm09)")
    args = ap.parse_args(argv)
    if not args.files:
        args.files = [str(Path(args.benchmarks) / "ispd98" / f"{name}.hgr")
                      for name in args.instances]
    try:
        return cmd_bench(args)
    except IgpartError as exc:
        print(f"regression: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
