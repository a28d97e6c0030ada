"""Pathological inputs: igpart (C++ backend) vs Mt-KaHyPar side by side, to check that each run
takes time proportional to the input's size.

Three seeded inputs (numpy), each partitioned by igpart (``backend="cpu"``) and by Mt-KaHyPar
(DEFAULT preset, the same threads; the time of its partitioning call only, the input read from
an hMETIS file by Mt-KaHyPar's own reader; in a child process, so that its crash is a failed
row), eps 0.03, objective cut:

- ``two_pin``: ``10 n`` random two-pin nets over ``n`` vertices (an expander: no locality, every
  refinement pass sees a large boundary), k = 8;
- ``large_k``: ``igpart.generators.random_circuit(n)`` at ``k = n / 5``, and ISPD98 ibm01 at
  k = n (its 12,752 vertices, from ``$IGPART_BENCHMARKS`` or ``../shared/benchmarks``);
- ``one_net``: a single net over all ``n`` vertices, k = 2 and 8 (no locality at all: the
  clustering rates no pair, every vertex is isolated once the net is ignored).

Every partition is checked (balance, cut recomputed from scratch). igpart's error, when it
rejects an input, is shown in the table instead of a cut. Prints a markdown table with the time
ratio igpart / Mt-KaHyPar.

    python benchmarks/pathological.py                       # the scaled inputs (about a minute)
    python benchmarks/pathological.py --full                # the sizes of the original report:
                                                            # 1M vertices / 10M nets, k = 100,000
                                                            # on 510k vertices, one net of 1M pins
    python benchmarks/pathological.py --cases one_net --threads 2 --skip-mtkahypar
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
from scale_bench import commit  # this folder is sys.path[0] when run as a script

import igpart
from igpart.errors import IgpartError
from igpart.generators import random_circuit
from igpart.hypergraph import Hypergraph
from igpart.kernels import _cpu
from igpart.metrics import evaluate

REPO = Path(__file__).resolve().parents[1]
ISPD98 = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks")) / "ispd98"

CASES = ("two_pin", "large_k", "one_net")


def two_pin_nets(n: int, nets_per_vertex: int = 10, seed: int = 1) -> Hypergraph:
    """``nets_per_vertex * n`` two-pin nets between uniformly random distinct vertices."""
    rng = np.random.default_rng(seed)
    m = nets_per_vertex * n
    u = rng.integers(0, n, m)
    v = rng.integers(0, n - 1, m)
    v += v >= u  # never u itself
    return Hypergraph(np.arange(0, 2 * m + 1, 2, dtype=np.int64), np.stack([u, v], 1).ravel(), n)


def one_net(n: int) -> Hypergraph:
    """One net over all ``n`` vertices."""
    return Hypergraph(np.array([0, n], dtype=np.int64), np.arange(n, dtype=np.int32), n)


def inputs(case: str, full: bool, seed: int) -> list[tuple[str, Hypergraph, list[int]]]:
    """(label, hypergraph, ks) of ``case`` at the scaled or the ``full`` (reported) sizes."""
    if case == "two_pin":
        n = 1_000_000 if full else 100_000
        return [(f"two_pin n={n:,}", two_pin_nets(n, seed=seed), [8])]
    if case == "large_k":
        n = 510_000 if full else 51_000
        out = [(f"random_circuit n={n:,}", random_circuit(n, seed=seed), [n // 5])]
        ibm01 = ISPD98 / "ibm01.hgr"
        if ibm01.exists():
            h = igpart.read_hgr(ibm01)
            out.append(("ibm01", h, [h.n]))
        return out
    n = 1_000_000 if full else 100_000
    return [(f"one_net n={n:,}", one_net(n), [2, 8])]


def mtkahypar_run(path: Path, k: int, eps: float, seed: int, threads: int):
    """Mt-KaHyPar (DEFAULT preset) on the hMETIS file ``path``: (parts, seconds of the call)."""
    import mtkahypar

    from igpart.partitioner.initial.mtkahypar import mtkahypar_initializer

    init = mtkahypar_initializer(threads)
    mtkahypar.set_seed(seed)
    ctx = init.context_from_preset(mtkahypar.PresetType.DEFAULT)
    ctx.set_partitioning_parameters(int(k), float(eps), mtkahypar.Objective.CUT)
    ctx.logging = False
    hg = init.hypergraph_from_file(str(path), ctx, mtkahypar.FileFormat.HMETIS)
    t0 = time.perf_counter()
    p = hg.partition(ctx)
    seconds = time.perf_counter() - t0
    return np.asarray(p.get_partition(), dtype=np.int32), seconds


def mtkahypar_isolated(path: Path, k: int, eps: float, seed: int, threads: int):
    """:func:`mtkahypar_run` in a child process: (parts, seconds), or (None, reason) when the
    child died (Mt-KaHyPar aborts when an allocation fails, e.g. its n x k gain cache at large
    k), so that a crash there is a failed row, not the end of the run."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            return pool.submit(mtkahypar_run, path, k, eps, seed, threads).result()
        except BrokenProcessPool:
            return None, "crashed"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {CASES}")
    ap.add_argument("--full", action="store_true", help="the sizes of the original report")
    ap.add_argument("--threads", type=int, default=2, help="threads of igpart and Mt-KaHyPar")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--skip-mtkahypar", action="store_true")
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)} (choose from {', '.join(CASES)})")
    _cpu.set_num_threads(args.threads)
    print(f"# pathological: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"commit {commit()}, {platform.node()}, {os.cpu_count()} CPUs, threads {args.threads}, "
          f"seed {args.seed}, eps {args.epsilon}{', full sizes' if args.full else ''}\n",
          flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            for label, h, ks in inputs(case, args.full, args.seed):
                print(f"{label}: {h.n:,} vertices, {h.m:,} nets, {h.num_pins:,} pins", flush=True)
                path = Path(tmp) / "input.hgr"
                if not args.skip_mtkahypar:
                    igpart.write_hgr(h, path)
                for k in ks:
                    row = {"input": label, "pins": h.num_pins, "k": k}
                    t0 = time.perf_counter()
                    try:
                        p = igpart.partition(h, k, args.epsilon, "cut", backend="cpu",
                                             seed=args.seed, config={"threads": args.threads})
                        row["seconds"] = time.perf_counter() - t0
                        m = evaluate(h, p.parts, k, args.epsilon)
                        assert m["cut"] == p.cut, "reported cut differs from a recomputation"
                        row["result"] = f"{m['cut']}" + ("" if m["balanced"] else " UNBALANCED")
                        phases = sorted(p.timings.items(), key=lambda kv: -kv[1])[:3]
                        row["phases"] = ", ".join(f"{a} {b:.2f}" for a, b in phases)
                    except IgpartError as exc:
                        row["seconds"] = time.perf_counter() - t0
                        row["result"] = f"error: {exc}"
                        row["phases"] = ""
                    print(f"  k={k} igpart: {row['result']} {row['seconds']:.2f} s "
                          f"({row['phases']})", flush=True)
                    if not args.skip_mtkahypar:
                        mp, ms = mtkahypar_isolated(path, k, args.epsilon, args.seed,
                                                    args.threads)  # fmt: skip
                        if mp is None:
                            row["mtk"] = f"failed ({ms})"
                            print(f"  k={k} Mt-KaHyPar: {row['mtk']}", flush=True)
                        else:
                            mm = evaluate(h, mp, k, args.epsilon)
                            row["mtk"] = f"{mm['cut']}" + ("" if mm["balanced"] else " UNBALANCED")
                            row["mtk_seconds"] = ms
                            print(f"  k={k} Mt-KaHyPar: {row['mtk']} {ms:.2f} s", flush=True)
                    rows.append(row)
    print("\n| input | pins | k | igpart cut | igpart s | slowest phases (s) | MtK cut | MtK s "
          "| time ratio |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for r in rows:
        ms = r.get("mtk_seconds")
        ratio = f"{r['seconds'] / ms:.2f}" if ms else "-"
        print(f"| {r['input']} | {r['pins']:,} | {r['k']:,} | {r['result']} | {r['seconds']:.2f} "
              f"| {r['phases']} | {r.get('mtk', '-')} | {'-' if ms is None else f'{ms:.2f}'} "
              f"| {ratio} |")


if __name__ == "__main__":
    main()
