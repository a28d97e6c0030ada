"""Final cut and ``initial`` time of end-to-end C++ runs for each ``Config.initial_bisector``.

For every case (ISPD98 circuit, inflation scale, k) and seed, runs
``igpart.partition(h, k, backend="cpu", seed=s, config={"initial_bisector": b})`` for each
bisector and prints cut, balance and ``timings["initial"]``, then the geomean per k of the cut
ratio and the ``initial`` time ratio against the first bisector listed.

    OMP_NUM_THREADS=1 python benchmarks/bisector_bench.py --bisectors metis,ghg,both
"""

from __future__ import annotations

import argparse
import math
import os
from collections import defaultdict
from pathlib import Path

import igpart
from igpart.generators import inflate

REPO = Path(__file__).resolve().parents[1]
ISPD98 = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks")) / "ispd98"
CASES = "ibm01:20:2,ibm01:20:16,ibm01:20:64,ibm09:10:2,ibm09:10:16,ibm09:10:64," + ",".join(
    f"{c}:1:{k}" for c in ("ibm01", "ibm03", "ibm05") for k in (2, 8, 64)
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=CASES, help="name:scale:k,...")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--bisectors", default="metis,ghg,both")
    args = ap.parse_args()
    bisectors = args.bisectors.split(",")
    print(
        "| input | k | seed | " + " | ".join(f"cut {b} | initial s {b}" for b in bisectors) + " |"
    )
    print("|---|---:|---:|" + "---:|---:|" * len(bisectors))
    ratios = defaultdict(lambda: defaultdict(list))
    for case in args.cases.split(","):
        name, scale, k = case.split(":")
        scale, k = int(scale), int(k)
        h = igpart.read_hgr(ISPD98 / f"{name}.hgr")
        if scale > 1:
            h = inflate(h, scale, seed=1)
        for seed in map(int, args.seeds.split(",")):
            row = []
            for b in bisectors:
                p = igpart.partition(h, k, backend="cpu", seed=seed, config={"initial_bisector": b})
                assert p.balanced, (case, seed, b)
                row.append((p.cut, p.timings["initial"]))
            for b, (cut, t) in zip(bisectors, row):
                ratios[k][b].append((cut / row[0][0], t / row[0][1]))
            cells = " | ".join(f"{c} | {t:.3f}" for c, t in row)
            print(f"| {name}x{scale} | {k} | {seed} | {cells} |", flush=True)
    print()
    print("| k | " + " | ".join(f"cut ratio {b} | initial ratio {b}" for b in bisectors) + " |")
    print("|---:|" + "---:|---:|" * len(bisectors))
    allr = defaultdict(list)
    for k in sorted(ratios):
        cells = []
        for b in bisectors:
            rs = ratios[k][b]
            allr[b] += rs
            gc = math.exp(sum(math.log(c) for c, _ in rs) / len(rs))
            gt = math.exp(sum(math.log(t) for _, t in rs) / len(rs))
            cells.append(f"{gc:.4f} | {gt:.2f}x")
        print(f"| {k} | " + " | ".join(cells) + " |")
    cells = []
    for b in bisectors:
        rs = allr[b]
        gc = math.exp(sum(math.log(c) for c, _ in rs) / len(rs))
        gt = math.exp(sum(math.log(t) for _, t in rs) / len(rs))
        cells.append(f"{gc:.4f} | {gt:.2f}x")
    print("| all | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
