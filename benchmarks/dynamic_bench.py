"""Latency of applying change batches to the dynamic hypergraph (igpart.dynamic).

Builds ``igpart.generators.random_circuit(n)`` (1M cells by default) with a k-way partition in
horizontal stripes of its grid (a low-cut partition that needs no partitioner run), then applies
batches of about ``--batch-size`` records shaped like a timing-optimisation step: buffer
insertions (a new cell and net take over some sinks of a net), gate sizings (weight changes), gate
removals (pins first, then the cell) and pin moves (a cell leaves a net and joins another). Every
batch is validated and applied; cut, km1 and block weights are maintained. Batches are generated
from the current state before the clock starts; only ``apply`` is timed (through the Python
wrapper, and separately the kernel call alone). Also times ``move`` of random cells, and for
scale one compact rebuild plus a from-scratch evaluation.

    python benchmarks/dynamic_bench.py [--n 1000000] [--batches 300] [--batch-size 100] [--k 8]
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

from igpart.dynamic import DynamicHypergraph
from igpart.generators import random_circuit, timing_batch
from igpart.metrics import evaluate


def percentiles(seconds: list[float]) -> str:
    us = np.array(seconds) * 1e6
    return (
        f"median {np.median(us):8.1f} us   p95 {np.percentile(us, 95):8.1f} us   "
        f"max {us.max():8.1f} us"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="cells of the generated circuit")
    ap.add_argument("--batches", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=100, help="records per batch (about)")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--phi", default="auto", choices=["auto", "dense", "sparse"])
    ap.add_argument("--gamma", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
    ).stdout.strip()
    print(f"machine: {platform.node()} ({platform.processor() or platform.machine()}), "
          f"commit {commit or '?'}")  # fmt: skip

    t = time.perf_counter()
    h = random_circuit(args.n, seed=args.seed)
    print(f"random_circuit({args.n}): m={h.m} pins={h.num_pins}  {time.perf_counter() - t:.2f} s")
    parts = (np.arange(h.n, dtype=np.int64) * args.k // h.n).astype(np.int32)  # grid stripes

    t = time.perf_counter()
    d = DynamicHypergraph.from_hypergraph(
        h, parts, args.k, args.epsilon, gamma=args.gamma, phi=args.phi
    )
    print(f"build: {time.perf_counter() - t:.2f} s   {d}")
    s = d.stats
    mib = (s["vertex_pool"]["capacity"] + s["net_pool"]["capacity"]) * 32 * 4 / 2**20
    print(f"bucket pools: {mib:.0f} MiB of slots; phi {s['phi']}")

    rng = np.random.default_rng(args.seed + 1)
    wrapped, kernel, records = [], [], []
    for i in range(args.batches):
        b = timing_batch(d, rng, args.batch_size)
        records.append(len(b))
        ops, a = b.ops, b.args  # the batch in its final columnar form
        if i % 2 == 0:  # alternate: the Python wrapper, and the kernel call alone
            t = time.perf_counter()
            d.apply(b)
            wrapped.append(time.perf_counter() - t)
        else:
            t = time.perf_counter()
            d._impl.apply(ops, a)
            kernel.append(time.perf_counter() - t)
    print(f"{args.batches} batches of {np.mean(records):.0f} records on average "
          f"(min {min(records)}, max {max(records)}):")  # fmt: skip
    print(f"  apply (DynamicHypergraph.apply): {percentiles(wrapped)}")
    print(f"  apply (kernel call only):        {percentiles(kernel)}")

    moves = []
    alive = d.vertex_alive
    for _ in range(100):
        vs = rng.integers(0, d.vertex_bound, 400)
        vs = vs[alive[vs]][:100]
        bs = rng.integers(0, args.k, vs.size)
        t = time.perf_counter()
        d.move(vs, bs)
        moves.append(time.perf_counter() - t)
    print(f"  move of 100 random cells:        {percentiles(moves)}")
    print(f"after: {d}  stats: vertex pool growths {d.stats['vertex_pool']['growths']}, "
          f"net pool growths {d.stats['net_pool']['growths']}")  # fmt: skip

    t = time.perf_counter()
    snap = d.to_hypergraph()
    t_compact = time.perf_counter() - t
    t = time.perf_counter()
    full = evaluate(snap.hypergraph, snap.parts, args.k, args.epsilon)
    t_eval = time.perf_counter() - t
    assert (full["cut"], full["km1"]) == (d.cut, d.km1), "maintained metrics disagree"
    print(f"for scale: compact rebuild {t_compact * 1e3:.0f} ms, from-scratch evaluate "
          f"{t_eval * 1e3:.0f} ms (metrics agree with the maintained ones)")  # fmt: skip


if __name__ == "__main__":
    main()
