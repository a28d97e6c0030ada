"""Full GPU partitions under a device memory budget against the in-memory run, side by side.

The input is ``--input NAME[:SCALE]`` (an ISPD98 or Titan23 circuit, enlarged ``SCALE`` times:
``benchmarks/_data.py``), ``--hgr FILE`` (for example a large-suite input built by
``python benchmarks/suite.py --suite large --cases ibm10 --inputs-only``) or ``--n N``
(``igpart.generators.random_circuit``). After one warm-up partition (kernel compilation), each
round runs, in this order: the in-memory partition (``GpuBackend()``), the same under an
unbounded budget (its peak of live device bytes is the run's footprint: what the in-memory
run's arrays take at most), one run per ``--divisors`` d at a budget of footprint / d, and one per
``--budgets`` B at B bytes (the same bytes as an earlier run's footprint / d).
``--deterministic`` (on by default) uses the seeded clustering joins, so every run of a seed
must give the same partition; the script checks it and exits 1 when one differs.

Reports per engine the median seconds of the partition call over ``--repeats`` rounds and the ratio
to the in-memory run, the cut and km1, whether the partition equals the in-memory one, and the
accounting of ``Partition.memory``: device peak (high-water mark of the budget's device allocation),
host-resident peak (page-locked), requests the budget sent to the host, and the estimated bytes over
the bus in total and per phase (a lower bound: host allocations written once, a level's host arrays
read once per call, levels moved to the device); then per budget the levels spilled to host memory
and copied back, and the largest requests sent to the host with the code that made them.

    python benchmarks/budget_partition_bench.py (--input ibm10:8 | --hgr FILE | --n 2000000)
        [--k 8] [--divisors 4 16] [--budgets BYTES ...] [--repeats 3] [--objective cut]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

import igpart
from igpart.generators import random_circuit
from igpart.kernels import budget

#: An unbounded budget: the allocator's accounting of the in-memory placement.
UNBOUNDED = 1 << 50


def commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        cwd=Path(__file__).parent,
    ).stdout.strip() or "?"  # fmt: skip


def load_input(args) -> tuple[str, igpart.Hypergraph]:
    if args.hgr:
        return Path(args.hgr).name, igpart.read_hgr(args.hgr)
    if args.input:
        from _data import load  # this folder is sys.path[0] when run as a script

        name, _, scale = args.input.partition(":")
        return args.input, load(name, int(scale or 1), seed=args.seed)
    return f"random_circuit({args.n})", random_circuit(args.n, seed=args.seed)


def run(h, args, memory_budget):
    from igpart.kernels.gpu import GpuBackend

    be = GpuBackend(deterministic=args.deterministic, memory_budget=memory_budget)
    t0 = time.perf_counter()
    p = igpart.partition(h, args.k, args.epsilon, args.objective, backend=be, seed=args.seed,
                         config={"threads": args.threads})  # fmt: skip
    return time.perf_counter() - t0, p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--input", help="NAME or NAME:SCALE (ISPD98 / Titan23, enlarged)")
    src.add_argument("--hgr", help="an .hgr file")
    src.add_argument("--n", type=int, default=500_000, help="cells of a generated circuit")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", default="cut", choices=["cut", "km1"])
    ap.add_argument("--divisors", type=int, nargs="+", default=[4, 16])
    ap.add_argument("--budgets", nargs="+", default=[], metavar="BYTES",
                    help="also these absolute budgets (e.g. 226367744 or 216MiB): runs at the "
                         "same bytes as an earlier footprint / d when the footprint changed")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="C++ threads of the host stages")
    ap.add_argument("--deterministic", action=argparse.BooleanOptionalAction, default=True,
                    help="seeded clustering joins: every run must give the same partition")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()

    name, h = load_input(args)
    pins = int(h.eind.shape[0])
    print(f"input {name}: {h.n:,} vertices, {h.m:,} nets, {pins:,} pins; k = {args.k}, "
          f"{args.objective}, deterministic = {args.deterministic}")
    print(f"finest level estimate {budget.level_bytes(h.n, h.m, pins, args.k):,} B, coarse "
          f"minimum {budget.coarse_minimum(h.n, h.m, pins, args.k):,} B")
    run(h, args, None)  # warm-up: kernel compilation, first-use costs
    _, probe = run(h, args, UNBOUNDED)
    footprint = probe.memory["device_used_peak"]
    engines = [("in memory", None), ("unbounded budget", UNBOUNDED)]
    engines += [(f"budget footprint/{d}", footprint // d) for d in args.divisors]
    engines += [(f"budget {b:,} B", b) for b in map(budget.parse_bytes, args.budgets)]
    print(f"footprint (peak of live device bytes of the in-memory placement): {footprint:,} B; "
          f"the allocator held {probe.memory['device_peak']:,} B at most")
    times: dict[str, list[float]] = {e: [] for e, _ in engines}
    last: dict[str, igpart.Partition] = {}
    for _ in range(args.repeats):
        for label, b in engines:
            seconds, p = run(h, args, b)
            times[label].append(seconds)
            last[label] = p
    ref = last["in memory"]
    base = statistics.median(times["in memory"])
    rows, mismatch = [], False
    print("| engine | budget B | seconds (median) | vs in memory | cut | km1 | same parts | "
          "device peak B | host peak B | to host | bus B (est.) |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for label, b in engines:
        p, med = last[label], statistics.median(times[label])
        same = bool(np.array_equal(p.parts, ref.parts))
        mismatch |= args.deterministic and not same
        mem = p.memory
        row = {"engine": label, "budget": b, "seconds": times[label], "median": med,
               "ratio": med / base, "cut": p.cut, "km1": p.km1, "same": same,
               "balanced": p.balanced, "memory": mem, "timings": p.timings}  # fmt: skip
        rows.append(row)
        print(f"| {label} | {'' if b in (None, UNBOUNDED) else f'{b:,}'} | {med:.3f} | "
              f"{med / base:.2f}x | {p.cut:,} | {p.km1:,} | {'yes' if same else 'NO'} | "
              f"{mem.get('device_peak', 0):,} | {mem.get('host_peak', 0):,} | "
              f"{mem.get('overflows', 0):,} | {mem.get('bus_bytes', 0):,} |")
    for row in rows:
        phases = row["memory"].get("phases", {})
        if row["budget"] not in (None, UNBOUNDED) and phases:
            print(f"{row['engine']}: " + "; ".join(
                f"{ph} {v['bus_bytes']:,} B (written {v['host_written']:,}, read "
                f"{v['host_read']:,}, moved {v['moved_to_device']:,})"
                for ph, v in phases.items()))
            moves = row["memory"].get("level_moves", {})
            if moves:
                print(f"{row['engine']}: levels spilled to the host {moves['spilled']} "
                      f"({moves['spilled_bytes']:,} B), copied back {moves['restored']} "
                      f"({moves['restored_bytes']:,} B)")
            print(f"{row['engine']}: largest requests sent to the host:")
            for r in row["memory"].get("overflow_requests", []):
                print(f"  {r['phase']} {r['count']} x {r['bytes']:,} B at {r.get('site') or '?'}")
    if args.json:
        import cupy as cp

        Path(args.json).write_text(json.dumps({
            "input": name, "n": h.n, "m": h.m, "pins": pins, "k": args.k,
            "objective": args.objective, "deterministic": args.deterministic,
            "footprint": footprint, "rows": rows, "commit": commit(),
            "date": str(date.today()), "machine": platform.node(),
            "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        }, indent=1))
    if mismatch:
        print("a budget run's partition differs from the in-memory one", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
