"""Refinement variants (``Config.refinement``) side by side on the C++ backend: cut, seconds and
the Jet / FM timers of ``igpart.partition`` on ISPD98 circuits (eps 0.03, cut, seed 1).

    OMP_NUM_THREADS=1 python benchmarks/refinement_cpu.py --inputs ibm01,ibm03 --ks 2,16,64
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import igpart

REPO = Path(__file__).resolve().parents[1]
ISPD98 = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks")) / "ispd98"
VARIANTS = {"fm": {"refinement": "fm"}, "jet": {"refinement": "jet"},
            "jet+fm": {"refinement": "jet+fm"}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm01,ibm03,ibm05")
    ap.add_argument("--ks", default="2,16,64")
    ap.add_argument("--variants", type=json.loads, default=VARIANTS,
                    help='JSON {"name": {Config overrides}}')
    args = ap.parse_args()
    print("| input | k | variant | cut | seconds | jet s | fm s | balanced |")
    print("|---|---:|---|---:|---:|---:|---:|---|")
    for name in args.inputs.split(","):
        h = igpart.read_hgr(ISPD98 / f"{name}.hgr")
        for k in (int(x) for x in args.ks.split(",")):
            for variant, cfg in args.variants.items():
                p = igpart.partition(h, k, 0.03, "cut", backend="cpu", seed=1, config=cfg)
                t = p.timings
                print(f"| {name} | {k} | {variant} | {p.cut} | {p.seconds:.2f} | "
                      f"{t.get('jet', 0.0):.2f} | {t.get('fm', 0.0):.2f} | {p.balanced} |",
                      flush=True)


if __name__ == "__main__":
    main()
