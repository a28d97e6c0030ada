"""igpart on the C++ backend vs Mt-KaHyPar on large inflated inputs, side by side in one run.

Builds inputs with the seeded generator (``igpart.generators.inflate``, as ``igpart generate``)
from the ISPD98 circuits, partitions each in memory with igpart (``backend="cpu"``, one row per
``--variants`` entry, a name -> Config overrides JSON object) and with Mt-KaHyPar (DEFAULT preset,
``--threads`` threads; the time of its partitioning call only) at every k, eps 0.03, objective
cut. Prints a markdown table of cuts, seconds, balance and the ratios igpart/Mt-KaHyPar, then
the geometric means per variant (all k and per k). Every cut is recomputed from scratch.

    python benchmarks/scale_bench.py --inputs ibm01:20,ibm09:10,ibm06:20,ibm01:80 --ks 2,16,64
    python benchmarks/scale_bench.py --variants '{"default": {}, "old": {"initial_runs": 8}}'
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import time
from pathlib import Path

import igpart
from igpart.generators import inflate
from igpart.kernels import _cpu
from igpart.metrics import evaluate
from igpart.partitioner.initial.mtkahypar import mtkahypar_partition

REPO = Path(__file__).resolve().parents[1]
ISPD98 = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks")) / "ispd98"


def geomean(xs) -> float:
    """Geometric mean of the positive values of ``xs`` (nan when there are none)."""
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def commit() -> str:
    """The checkout's commit (short hash, ``+dirty`` when modified), or ``unknown``;
    ``IGPART_COMMIT`` first (a tree exported without its history can sit in a stale checkout)."""
    if os.environ.get("IGPART_COMMIT"):
        return os.environ["IGPART_COMMIT"]
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty=+dirty"], cwd=REPO,
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default="ibm01:20,ibm09:10,ibm06:20,ibm01:80",
                    help="comma-separated NAME:SCALE (ISPD98 circuit, number of copies)")
    ap.add_argument("--ks", default="2,16,64")
    ap.add_argument("--variants", default='{"igpart": {}}',
                    help="JSON object: variant name -> Config overrides")
    ap.add_argument("--threads", type=int, default=2, help="threads of igpart and Mt-KaHyPar")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--json", help="also write the rows to this JSON file")
    args = ap.parse_args()
    variants = json.loads(args.variants)
    ks = [int(x) for x in args.ks.split(",")]
    _cpu.set_num_threads(args.threads)
    print(f"# scale_bench: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"commit {commit()}, {platform.node()}, {os.cpu_count()} CPUs, threads {args.threads}, "
          f"seed {args.seed}, eps {args.epsilon}\n", flush=True)
    rows = []
    for spec in args.inputs.split(","):
        name, scale = spec.split(":")
        h = inflate(igpart.read_hgr(ISPD98 / f"{name}.hgr"), int(scale), seed=args.seed)
        label = f"{name}x{scale}"
        print(f"{label}: {h.n} vertices, {h.m} nets, {h.num_pins} pins", flush=True)
        for k in ks:
            mp, ms = mtkahypar_partition(h, k, args.epsilon, "cut", seed=args.seed,
                                         threads=args.threads, timed=True)
            mm = evaluate(h, mp, k, args.epsilon)
            print(f"  k={k} MtK: cut {mm['cut']} {ms:.2f} s", flush=True)
            for vname, cfg in variants.items():
                t0 = time.perf_counter()
                p = igpart.partition(h, k, args.epsilon, "cut", backend="cpu", seed=args.seed,
                                     config=dict(cfg, threads=args.threads))
                s = time.perf_counter() - t0
                m = evaluate(h, p.parts, k, args.epsilon)
                assert m["cut"] == p.cut, "reported cut differs from a recomputation"
                rows.append({
                    "input": label, "n": h.n, "pins": h.num_pins, "k": k, "variant": vname,
                    "cut": int(m["cut"]), "seconds": s, "balanced": bool(m["balanced"]),
                    "mtk_cut": int(mm["cut"]), "mtk_seconds": ms,
                    "mtk_balanced": bool(mm["balanced"]),
                    "cut_ratio": m["cut"] / max(1, mm["cut"]), "time_ratio": s / ms,
                })
                print(f"  k={k} {vname}: cut {m['cut']} {s:.2f} s "
                      f"(ratio {rows[-1]['cut_ratio']:.3f} / {rows[-1]['time_ratio']:.2f})",
                      flush=True)
    print("\n| input | vertices | pins | k | variant | igpart cut | igpart s | MtK cut | MtK s "
          "| cut ratio | time ratio | balanced |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        ok = "yes" if r["balanced"] and r["mtk_balanced"] else "NO"
        print(f"| {r['input']} | {r['n']:,} | {r['pins']:,} | {r['k']} | {r['variant']} | "
              f"{r['cut']} | {r['seconds']:.2f} | {r['mtk_cut']} | {r['mtk_seconds']:.2f} | "
              f"{r['cut_ratio']:.3f} | {r['time_ratio']:.2f} | {ok} |")
    print("\nGeometric means igpart / Mt-KaHyPar (cut / time):\n")
    print("| variant | all | " + " | ".join(f"k={k}" for k in ks) + " |")
    print("|---|---:|" + "---:|" * len(ks))
    for vname in variants:
        sel = [r for r in rows if r["variant"] == vname]
        cells = [f"{geomean([r['cut_ratio'] for r in sel]):.3f} / "
                 f"{geomean([r['time_ratio'] for r in sel]):.2f}"]
        for k in ks:
            sk = [r for r in sel if r["k"] == k]
            cells.append(f"{geomean([r['cut_ratio'] for r in sk]):.3f} / "
                         f"{geomean([r['time_ratio'] for r in sk]):.2f}")
        print(f"| {vname} | " + " | ".join(cells) + " |")
    bad = sum(not (r["balanced"] and r["mtk_balanced"]) for r in rows)
    print(f"\nUnbalanced runs: {bad}/{len(rows)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
