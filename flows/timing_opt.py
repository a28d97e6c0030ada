#!/usr/bin/env python3
"""Timing-optimisation flow: incremental refinement after every batch of design changes, checked
against a full re-partition of the same design every N batches.

    python flows/timing_opt.py --verilog tv80.v --lib cells_early.lib --ops tv80.ops -k 4
    python flows/timing_opt.py --generate 1000000 --batches 200 --batch-size 100 -k 8

With ``--ops`` (and ``--verilog``, ``--lib``) it replays a TAU 2015 ``.ops`` file batch by batch
through a circuit :class:`igpart.plugin.Session` (a batch closes at each read_spef / report_*
line). With ``--generate N`` it builds ``igpart.generators.random_circuit(N)`` and feeds it
seeded batches of buffer insertions, gate sizings, gate removals and pin moves
(``igpart.generators.timing_batch``). After each batch the session refines; every
``--compare-every`` batches (and after the last) the current design is re-partitioned from
scratch with ``igpart.partition`` (same k, epsilon, seed) and both cuts and times are recorded.
Writes a CSV (one row per batch) and, with ``--plot``, a figure of cut and latency per iteration,
incremental vs full. Shows a progress bar (``--no-progress`` to hide it).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

import igpart
from igpart.errors import IgpartError
from igpart.io import atomic_writer
from igpart.plugin import Session, SessionResult

FIELDS = ("iteration", "changes", "cut", "km1", "latency_ms", "moved", "balanced",
          "guard_repartition", "full_cut", "full_ms")  # fmt: skip


def full_repartition(session: Session, seed: int) -> tuple[int, float]:
    """(objective, milliseconds) of a from-scratch partition of the session's current design."""
    t0 = time.perf_counter()
    snap = session.dynamic.to_hypergraph()
    p = igpart.partition(snap.hypergraph, session.k, session.epsilon, session.engine.objective,
                         seed=seed)  # fmt: skip
    return p.objective_value, (time.perf_counter() - t0) * 1e3


def generated_batches(session: Session, batches: int, size: int, seed: int):
    """Seeded timing-style batches on the session's current design, one refine each."""
    from igpart.generators import timing_batch

    rng = np.random.default_rng(seed)
    for _ in range(batches):
        session.add_batch(timing_batch(session.dynamic, rng, size))
        yield session.refine()


def run(session: Session, results: Iterator[SessionResult], *, compare_every: int = 10,
        seed: int = 0, total: int | None = None, progress: bool = True) -> list[dict]:  # fmt: skip
    """Consumes the per-batch results, comparing against full re-partitions; returns the rows."""
    from tqdm import tqdm

    rows: list[dict] = []
    bar = tqdm(total=total, disable=not progress, unit="batch", desc="timing_opt")
    pending_full = False
    for i, r in enumerate(results):
        row = {
            "iteration": i, "changes": r.changes, "cut": r.cut, "km1": r.km1,
            "latency_ms": r.timings["total"] * 1e3, "moved": len(r.changed),
            "balanced": r.balanced, "guard_repartition": r.full_repartition,
            "full_cut": "", "full_ms": "",
        }  # fmt: skip
        pending_full = (i + 1) % compare_every == 0
        if pending_full:
            row["full_cut"], row["full_ms"] = full_repartition(session, seed)
        rows.append(row)
        bar.update(1)
        bar.set_postfix(cut=r.cut, ms=f"{row['latency_ms']:.2f}")
    bar.close()
    if rows and not pending_full:
        rows[-1]["full_cut"], rows[-1]["full_ms"] = full_repartition(session, seed)
    return rows


def write_csv(rows: list[dict], path) -> None:
    with atomic_writer(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


def plot(rows: list[dict], path, title: str = "") -> None:
    """Cut and latency per iteration, incremental (lines) vs full re-partition (markers)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    it = [r["iteration"] for r in rows]
    full = [r for r in rows if r["full_cut"] != ""]
    fig, (a, b) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    a.plot(it, [r["cut"] for r in rows], label="incremental")
    a.plot([r["iteration"] for r in full], [r["full_cut"] for r in full], "o",
           label="full re-partition")  # fmt: skip
    a.set_ylabel("cut")
    a.legend()
    b.semilogy(it, [r["latency_ms"] for r in rows], label="incremental")
    b.semilogy([r["iteration"] for r in full], [r["full_ms"] for r in full], "o",
               label="full re-partition")  # fmt: skip
    b.set_ylabel("latency per batch (ms)")
    b.set_xlabel("iteration (batch)")
    b.legend()
    if title:
        a.set_title(title)
    fig.tight_layout()
    with atomic_writer(path) as f:
        fig.savefig(f, format=os.path.splitext(os.fspath(path))[1][1:] or "png", dpi=120)
    plt.close(fig)


def summary(rows: list[dict]) -> str:
    lat = np.array([r["latency_ms"] for r in rows])
    full = [r for r in rows if r["full_cut"] != ""]
    fms = np.array([r["full_ms"] for r in full])
    last = full[-1]
    return (f"{len(rows)} batches: incremental median {np.median(lat):.3f} ms, full "
            f"re-partition median {np.median(fms):.1f} ms (speedup "
            f"{np.median(fms) / max(np.median(lat), 1e-9):.0f}x); final cut incremental "
            f"{rows[-1]['cut']} vs full {last['full_cut']} "
            f"({rows[-1]['cut'] / max(last['full_cut'], 1):.4f}); guard re-partitions "
            f"{sum(r['guard_repartition'] for r in rows)}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--ops", help="TAU 2015 .ops file to replay (needs --verilog)")
    src.add_argument("--generate", type=int, metavar="N", help="generated circuit of N cells")
    ap.add_argument("--verilog", help="the design's structural Verilog (with --ops)")
    ap.add_argument("--lib", help="Liberty file with the cells' pin directions (with --ops)")
    ap.add_argument("--batches", type=int, default=100, help="generated batches (--generate)")
    ap.add_argument("--batch-size", type=int, default=100, help="records per generated batch")
    ap.add_argument("-k", type=int, default=4)
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compare-every", type=int, default=10, metavar="N")
    ap.add_argument("--csv", default="timing_opt.csv", help="per-batch CSV (default %(default)s)")
    ap.add_argument("--plot", help="write a figure of cut and latency per iteration")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.plot:  # before the run, not after it
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("timing_opt: error: --plot needs matplotlib (pip install matplotlib, or "
                  'pip install -e ".[plot]")', file=sys.stderr)  # fmt: skip
            return 1
    try:
        if args.compare_every < 1:
            raise igpart.InputError("--compare-every must be at least 1")
        if args.ops:
            if not args.verilog:
                raise igpart.InputError("--ops needs --verilog (and usually --lib)")
            from igpart.netlist import read_ops, read_verilog

            circuit = read_verilog(args.verilog, lib=args.lib)
            ops = read_ops(args.ops)
            session = Session(circuit, k=args.k, epsilon=args.epsilon, seed=args.seed)
            results, total, title = session.replay(ops), len(ops), Path(args.ops).name
        else:
            from igpart.generators import random_circuit

            h = random_circuit(args.generate, seed=args.seed)
            session = Session(h, k=args.k, epsilon=args.epsilon, seed=args.seed)
            results = generated_batches(session, args.batches, args.batch_size, args.seed + 1)
            total, title = args.batches, f"random_circuit({args.generate})"
        rows = run(session, results, compare_every=args.compare_every, seed=args.seed,
                   total=total, progress=not args.no_progress)  # fmt: skip
    except IgpartError as exc:
        print(f"timing_opt: error: {exc}", file=sys.stderr)
        return 1
    if not rows:
        print("timing_opt: no batches to replay", file=sys.stderr)
        return 1
    try:
        write_csv(rows, args.csv)
        if args.plot:
            plot(rows, args.plot, f"{title}, k={args.k}")
    except IgpartError as exc:  # OutputError: names the file
        print(f"timing_opt: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"timing_opt: error: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(summary(rows))
    print(f"wrote {args.csv}" + (f" and {args.plot}" if args.plot else ""))
    return 0 if all(r["balanced"] for r in rows) else 3


if __name__ == "__main__":
    sys.exit(main())
