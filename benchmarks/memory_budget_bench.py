"""The incremental engine under device memory budgets: transfer figures of the hot-row cache and
the latency of the host store, against the in-memory engine, batch by batch.

Builds ``igpart.generators.random_circuit(n)``, partitions it once, then replays ``--batches``
seeded timing-optimisation batches (``igpart.generators.timing_batch``, generated on the
in-memory engine) through ``IncrementalPartitioner.apply`` on the in-memory engine and on one
engine per budget, side by side in one process (each batch applied to every engine before the
next is generated). Budgets: ``dynamic_minimum`` (the device's per-vertex and per-net state)
plus a cache of a fraction (``--cache-fractions``) of the adjacency's bytes (the host store's
rows, 4 bytes per pin in each direction), and a quarter and a sixteenth of the GPU structure's
estimated footprint where they meet the minimum; the cache policy's window is ``--tau`` batches;
``--no-staging`` adds each budget without staging (the hot set between batches only). One more
engine per budget runs the managed-memory model (``kernels/cpu/page_model.h``: LRU pages of
``--managed-page`` bytes of the store's slot arrays within the same cache budget, a page the
host writes loses its device copy): the bytes CUDA managed memory would migrate.

Checks that every engine makes the same moves and keeps the same cut on every batch. Reports per
budget the host -> device bytes per batch (cold zero-copy reads + loads + reloads of changed hot
rows + changes written through to cached rows) against the zero-copy-only baseline (every read
a zero-copy read), the hit rate, and the median / p95 batch latency against the in-memory
engine's (C++ engine; the accounting is the same on any machine, the latencies are this
machine's). Also prints the issue's budget definition, a quarter and a sixteenth of the GPU
dynamic structure's estimated footprint (``igpart.dynamic.device_footprint``), and whether each
meets the minimum.

    python benchmarks/memory_budget_bench.py [--n 200000] [--k 8] [--batches 200]
        [--batch-size 100] [--cache-fractions 0.25 0.0625 0.015625] [--tau 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from datetime import date
from pathlib import Path

import numpy as np

import igpart
from igpart.dynamic import device_footprint
from igpart.generators import random_circuit, timing_batch
from igpart.incremental import IncrementalPartitioner
from igpart.kernels import budget


def commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        cwd=Path(__file__).parent,
    ).stdout.strip() or "?"  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="cells of the generated circuit")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", default="cut", choices=["cut", "km1"])
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=100)
    ap.add_argument("--cache-fractions", type=float, nargs="+", default=[0.25, 0.0625, 0.015625])
    ap.add_argument("--tau", type=int, default=3)
    ap.add_argument("--no-staging", action="store_true",
                    help="also run each budget without staging (Grapin's policy alone)")
    ap.add_argument("--managed-page", type=int, default=4096,
                    help="page size of the managed-memory model (0: no model)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()

    h = random_circuit(args.n, seed=args.seed)
    pins = int(h.eind.shape[0])
    t0 = time.perf_counter()
    parts = igpart.partition(h, args.k, args.epsilon, args.objective, seed=args.seed).parts
    print(f"design: {h.n:,} cells, {h.m:,} nets, {pins:,} pins; partitioned in "
          f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    minimum = budget.dynamic_minimum(h.n, h.m, args.k)
    adjacency = 8 * pins
    footprint = device_footprint(h, args.k)
    print(f"device minimum {minimum:,} B; adjacency {adjacency:,} B; GPU structure footprint "
          f"{footprint:,} B")  # fmt: skip
    for div in (4, 16):
        b = footprint // div
        verdict = "meets" if b >= minimum else "is below"
        print(f"  footprint / {div} = {b:,} B {verdict} the minimum"
              + (f" (cache {(b - minimum) / adjacency:.2f} x the adjacency)" if b >= minimum
                 else ""))  # fmt: skip

    common = dict(parts=parts, seed=args.seed, backend="cpu")
    engines = {"in memory": IncrementalPartitioner(h, args.k, args.epsilon, args.objective,
                                                   **common)}  # fmt: skip
    budgets = [(f"{f:g} x adjacency", minimum + int(f * adjacency)) for f in args.cache_fractions]
    budgets += [(f"footprint / {d}", footprint // d) for d in (4, 16)
                if footprint // d >= minimum]  # the budgets, where they can run
    for label, b in budgets:
        for staging in (True, False) if args.no_staging else (True,):
            ip = IncrementalPartitioner(h, args.k, args.epsilon, args.objective, memory_budget=b,
                                        cache_tau=args.tau, cache_staging=staging, **common)
            engines[f"cache, {label}" + ("" if staging else ", no staging")] = ip
        if args.managed_page > 0:
            ip = IncrementalPartitioner(h, args.k, args.epsilon, args.objective, memory_budget=b,
                                        cache_tau=args.tau, **common)  # fmt: skip
            # the same store again, with the page model (before any batch)
            ip.dynamic._impl.attach_store(b - minimum, args.tau, 1, 64, True, args.managed_page)
            engines[f"managed memory, {label}"] = ip
    lat = {name: [] for name in engines}
    moved = {name: [] for name in engines}
    zero = {name: [] for name in engines}
    hits = {name: [0, 0] for name in engines}
    rng = np.random.default_rng(args.seed)
    ref = engines["in memory"]
    for i in range(args.batches):
        batch = timing_batch(ref.dynamic, rng, args.batch_size)
        results = {}
        for name, ip in engines.items():
            t = time.perf_counter()
            results[name] = ip.apply(batch)
            lat[name].append(time.perf_counter() - t)
            tr = results[name].stats.get("transfer")
            if tr is not None and name.startswith("managed"):
                moved[name].append(tr["managed_bytes"])
                zero[name].append(tr["zero_copy_bytes"])
                hits[name][0] += tr["managed_faults"]
                hits[name][1] += 1
            elif tr is not None:
                moved[name].append(tr["moved_bytes"])
                zero[name].append(tr["zero_copy_bytes"])
                hits[name][0] += tr["hits"]
                hits[name][1] += tr["hits"] + tr["cold_reads"]
        r0 = results["in memory"]
        for name, r in results.items():
            assert np.array_equal(r.moved, r0.moved) and r.cut == r0.cut, (name, i)
    out = {"machine": platform.node(), "commit": commit(), "date": str(date.today()),
           "n": h.n, "m": h.m, "pins": pins, "k": args.k, "batches": args.batches,
           "batch_size": args.batch_size, "tau": args.tau, "minimum": minimum,
           "adjacency_bytes": adjacency, "footprint": footprint, "rows": []}  # fmt: skip
    base = np.median(lat["in memory"])
    print("\n| engine | bytes/batch median (mean) | zero-copy bytes/batch | reduction | hit rate | "
          "latency median | p95 | vs in memory |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in engines:
        med, p95 = np.median(lat[name]) * 1e3, np.percentile(lat[name], 95) * 1e3
        row = {"engine": name, "latency_median_ms": med, "latency_p95_ms": p95}
        if moved[name]:
            mv, zc = np.array(moved[name]), np.array(zero[name])
            red = 1 - mv.sum() / zc.sum()
            row.update(moved_median=float(np.median(mv)), zero_copy_median=float(np.median(zc)),
                       reduction=float(red), moved_mean=float(mv.mean()))  # fmt: skip
            if name.startswith("managed"):  # faults per batch instead of a hit rate
                rate = f"{hits[name][0] / max(1, hits[name][1]):.1f} faults"
            else:
                rate = f"{hits[name][0] / max(1, hits[name][1]):.1%}"
            row["hit_rate"] = rate
            print(f"| {name} | {np.median(mv):,.0f} ({mv.mean():,.0f}) | {np.median(zc):,.0f} | "
                  f"{red:.1%} | {rate} | {med:.2f} ms | {p95:.2f} ms | "
                  f"{np.median(lat[name]) / base:.2f}x |")  # fmt: skip
        else:
            print(f"| {name} | | | | | {med:.2f} ms | {p95:.2f} ms | 1.00x |")
        out["rows"].append(row)
    for ip in engines.values():
        ip.dynamic.check()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
