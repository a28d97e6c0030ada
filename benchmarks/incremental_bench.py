"""Incremental refinement vs full re-partitioning, batch by batch.

Builds ``igpart.generators.random_circuit(n)`` (1M cells by default), partitions it with
``igpart.partition``, then replays ``--batches`` seeded timing-optimisation batches of about
``--batch-size`` records (``igpart.generators.timing_batch``: buffer insertions, gate sizings,
gate removals, pin moves) through ``IncrementalPartitioner.apply`` (validate + apply + refine +
quality guard). Every ``--compare-every`` batches, and after the last one, the same modified
design is re-partitioned from scratch (compacted to a CSR hypergraph, then ``igpart.partition``
with the same k, epsilon and seed), side by side in the same run. Reports the median per-batch
latency of both, the speedup, and the cut of the incrementally maintained partition against the
full re-partition's after the whole replay (``--full-seeds N``: the final design is also
partitioned with seeds ``seed+1 .. seed+N-1`` and the ratio is taken against the median of the
N cuts, since one full partition's cut varies by a few percent with its seed). Also checks,
after the replay, that the maintained cut / km1 / block weights equal a from-scratch evaluation,
and after every batch that the partition is balanced.

The engine partitions the initial design itself: the best of ``--initial-repetitions`` runs
(``IncrementalConfig.initial_repetitions``, its default unless given), timed. ``--sessions N``
replays the same batches on N engines whose session seeds are ``--session-seed`` (default
``--seed``), +1, ...: each one's initial partition, its objective after the replay and its ratio
to the full re-partitions' median, then the median and the maximum of those ratios (one session's
ratio depends on where its seed lands in the partitioner's seed spread); the latencies of all of
them are pooled.

    python benchmarks/incremental_bench.py [--n 1000000] [--k 8] [--batches 200]
        [--batch-size 100] [--compare-every 50] [--seed 0] [--full-seeds 1] [--compare-atomic]
        [--initial-repetitions R] [--sessions N] [--session-seed S] [--json out.json]

``--compare-atomic`` also replays every batch on a twin engine with atomic batches off
(``IncrementalConfig.atomic``), alternating which goes first, and reports both wall-clock
medians of ``apply()``: the cost of the undo journal.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

import igpart
from igpart.generators import random_circuit, timing_batch
from igpart.incremental import IncrementalConfig, IncrementalPartitioner
from igpart.metrics import evaluate


def commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        cwd=Path(__file__).parent,
    ).stdout.strip() or "?"  # fmt: skip


def full_repartition(ip: IncrementalPartitioner, args, seed: int | None = None
                     ) -> tuple[float, int, float]:
    """(seconds, cut, seconds of the CSR rebuild) of a from-scratch partition of the current
    design (``seed``: default ``args.seed``)."""
    t0 = time.perf_counter()
    snap = ip.dynamic.to_hypergraph()
    t1 = time.perf_counter()
    p = igpart.partition(snap.hypergraph, args.k, args.epsilon, args.objective,
                         seed=args.seed if seed is None else seed)
    assert p.balanced
    return time.perf_counter() - t0, p.objective_value, t1 - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="cells of the generated circuit")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", default="cut", choices=["cut", "km1"])
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=100, help="records per batch (about)")
    ap.add_argument("--compare-every", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--full-seeds", type=int, default=1,
                    help="after the last batch, full re-partitions with this many seeds; the "
                         "quality ratio is against the median of their cuts")
    ap.add_argument("--initial-repetitions", type=int,
                    default=IncrementalConfig.initial_repetitions,
                    help="each session's initial partition is the best of this many runs "
                         "(IncrementalConfig.initial_repetitions)")
    ap.add_argument("--sessions", type=int, default=1,
                    help="replay the batches on this many engines, session seeds "
                         "--session-seed, +1, ...; each one's ratio to the full median")
    ap.add_argument("--session-seed", type=int, default=None,
                    help="the seed of the first replayed engine's initial partition "
                         "(default --seed)")
    ap.add_argument("--mtkahypar-threads", type=int, default=0,
                    help="also partition the final design with Mt-KaHyPar DEFAULT on this many "
                         "threads (benchmarks/mtkahypar_cli.py, 3 fresh processes; 0: off)")
    ap.add_argument("--engine", default="cpu", choices=["cpu", "gpu"],
                    help="where the dynamic structure and incremental refinement run")
    ap.add_argument("--compare-atomic", action="store_true",
                    help="also run a twin engine with atomic batches off on the same batches, "
                         "in alternating order, and report both wall-clock medians of apply()")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()

    info = {"machine": f"{platform.node()} ({platform.machine()}, {platform.processor()})",
            "date": date.today().isoformat(), "commit": commit(), "args": vars(args)}  # fmt: skip
    print(f"machine: {info['machine']}, commit {info['commit']}, {info['date']}")
    t = time.perf_counter()
    h = random_circuit(args.n, seed=args.seed)
    print(f"random_circuit({args.n}): m={h.m} pins={h.num_pins}  {time.perf_counter() - t:.2f} s")
    opts = {"initial_repetitions": args.initial_repetitions}
    sessions = []  # engines with session seeds seed, seed + 1, ...: the same batches
    first_seed = args.seed if args.session_seed is None else args.session_seed
    for s in range(first_seed, first_seed + max(1, args.sessions)):
        e = IncrementalPartitioner(h, args.k, args.epsilon, args.objective, seed=s,
                                   engine=args.engine, options=opts)  # fmt: skip
        sessions.append({"engine": e, "seed": s, "initial": e.objective_value,
                         "initial_seconds": e.initial_seconds})  # fmt: skip
        print(f"session seed {s}: initial partition (best of "
              f"{args.initial_repetitions}) {args.objective}={e.objective_value}  "
              f"{e.initial_seconds:.2f} s")  # fmt: skip
    ip = sessions[0]["engine"]
    others = [x["engine"] for x in sessions[1:]]
    twin = None
    if args.compare_atomic:
        twin = IncrementalPartitioner(h, args.k, args.epsilon, args.objective, parts=ip.parts,
                                      seed=args.seed, engine=args.engine,
                                      options={"atomic": False})  # fmt: skip
    wall = {True: [], False: []}
    rng = np.random.default_rng(args.seed + 1)
    latency, apply_s, refine_s, records, moved, affected = [], [], [], [], [], []
    fulls, guard, twin_differs = [], 0, 0
    for i in range(args.batches):
        b = timing_batch(ip.dynamic, rng, args.batch_size)  # generated before the clock starts
        outs = {}
        for atomic in ((True, False) if i % 2 == 0 else (False, True)) if twin else (True,):
            t = time.perf_counter()
            outs[atomic] = (ip if atomic else twin).apply(b)
            wall[atomic].append(time.perf_counter() - t)
        r = outs[True]
        if twin is not None:
            same = np.array_equal(outs[False].moved, r.moved) and outs[False].cut == r.cut
            # the GPU's racing warps may order the twins' lists differently: counted there
            assert same or args.engine == "gpu", f"batch {i}: the twins differ"
            twin_differs += not same
        for e in others:  # the other sessions' latencies count with the first one's
            t = time.perf_counter()
            o = e.apply(b)
            assert o.balanced, f"batch {i} left a partition unbalanced"
            guard += o.full_repartition
            latency.append(o.timings["total"])
        assert r.balanced, f"batch {i} left the partition unbalanced"
        guard += r.full_repartition
        latency.append(r.timings["total"])
        apply_s.append(r.timings["apply"])
        refine_s.append(r.timings["refine"])
        records.append(len(b))
        moved.append(r.moved.size + r.new_vertices.size)
        affected.append(r.stats.get("affected", r.stats.get("region", 0)))  # GPU: region
        if (i + 1) % args.compare_every == 0 or i + 1 == args.batches:
            secs, cut, rebuild = full_repartition(ip, args)
            fulls.append({"batch": i, "seconds": secs, "rebuild": rebuild, "full": cut,
                          "incremental": ip.objective_value})  # fmt: skip
            print(f"  after batch {i + 1}: incremental {args.objective} {ip.objective_value}, "
                  f"full re-partition {cut} ({secs:.2f} s)")  # fmt: skip
    snap = ip.dynamic.to_hypergraph()
    for e in (ip, *others):
        mine = e.dynamic.to_hypergraph()
        check = evaluate(mine.hypergraph, mine.parts, args.k, args.epsilon)
        assert (check["cut"], check["km1"]) == (e.dynamic.cut, e.dynamic.km1)
        assert np.array_equal(check["block_weights"], e.dynamic.block_weights)
        assert check["balanced"]
        # the sessions hold one design (ids allocated alike), so one reference serves them all
        assert np.array_equal(mine.hypergraph.eind, snap.hypergraph.eind)

    ms = np.array(latency) * 1e3
    full_s = np.array([f["seconds"] for f in fulls])
    final = fulls[-1]
    seeds_cut = [final["full"]]
    for s in range(1, max(1, args.full_seeds)):
        seeds_cut.append(full_repartition(ip, args, seed=args.seed + s)[1])
    final["full_seeds"] = seeds_cut
    final["full_median"] = float(np.median(seeds_cut))
    for x in sessions:
        x["final"] = x.pop("engine").objective_value
        x["ratio"] = x["final"] / max(final["full_median"], 1)
    ratios = [x["ratio"] for x in sessions]
    res = {
        **info,
        "cells": h.n, "nets": h.m, "pins": h.num_pins,
        "batches": args.batches, "records_mean": float(np.mean(records)),
        "incremental_ms": {"median": float(np.median(ms)), "p95": float(np.percentile(ms, 95)),
                           "max": float(ms.max())},
        "apply_ms_median": float(np.median(apply_s) * 1e3),
        "refine_ms_median": float(np.median(refine_s) * 1e3),
        "full_s": {"median": float(np.median(full_s)), "min": float(full_s.min())},
        "speedup_median": float(np.median(full_s) / np.median(ms / 1e3)),
        "moved_mean": float(np.mean(moved)), "affected_mean": float(np.mean(affected)),
        "guard_repartitions": int(guard),
        "final": final, "quality_ratio": final["incremental"] / max(final["full_median"], 1),
        "initial_repetitions": args.initial_repetitions, "sessions": sessions,
        "quality_ratio_sessions": {"median": float(np.median(ratios)), "max": max(ratios)},
        "comparisons": fulls, "oracle": "maintained cut/km1/block weights equal evaluate()",
    }  # fmt: skip
    print(f"{args.batches} batches of {res['records_mean']:.0f} records: incremental median "
          f"{res['incremental_ms']['median']:.3f} ms (p95 {res['incremental_ms']['p95']:.3f}, "
          f"apply {res['apply_ms_median']:.3f}, refine {res['refine_ms_median']:.3f}); "
          f"full re-partition median {res['full_s']['median']:.2f} s; "
          f"speedup {res['speedup_median']:.0f}x")  # fmt: skip
    if twin is not None:
        on, off = (float(np.median(wall[a]) * 1e3) for a in (True, False))
        res["atomic_wall_ms"] = {"on": on, "off": off, "overhead": on - off,
                                 "batches_differing": twin_differs}  # fmt: skip
        print(f"apply() wall clock, median: atomic batches {on:.3f} ms, without {off:.3f} ms "
              f"(overhead {on - off:+.3f} ms); batches whose moves or cut differ between the "
              f"twins: {twin_differs}")
    print(f"quality after the replay: incremental {final['incremental']} vs full "
          f"{final['full_median']:g} (median of seeds {args.seed}.."
          f"{args.seed + len(seeds_cut) - 1}: {seeds_cut}; ratio {res['quality_ratio']:.4f}); "
          f"guard re-partitions: {guard}; oracle ok")
    if len(sessions) > 1:
        print(f"sessions (seeds {sessions[0]['seed']}..{sessions[-1]['seed']}, initial partition "
              f"the best of {args.initial_repetitions}): initial "
              f"{[x['initial'] for x in sessions]} in "
              f"{[round(x['initial_seconds'], 2) for x in sessions]} s, after the replay "
              f"{[x['final'] for x in sessions]}: ratio to the full median "
              f"{[round(r, 4) for r in ratios]}, median {np.median(ratios):.4f}, "
              f"max {max(ratios):.4f}")
    if args.mtkahypar_threads > 0:
        res["mtkahypar"] = mtkahypar_full(snap.hypergraph, args, np.median(ms) / 1e3)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))


def mtkahypar_full(h, args, incremental_s: float) -> dict:
    """Mt-KaHyPar DEFAULT's full partition of the final design (the tool a user would call
    otherwise; its empty nets dropped): the median of 3 runs' partitioning seconds (reading
    excluded), each in a fresh process, and the incremental engine's speedup over it."""
    runs = []
    with tempfile.TemporaryDirectory() as d:
        path, out = Path(d) / "final.hgr", Path(d) / "final.part"
        igpart.write_hgr(h.drop_small_nets(1), path)  # hMETIS holds no empty nets
        for r in range(3):
            cmd = [sys.executable, str(Path(__file__).with_name("mtkahypar_cli.py")), str(path),
                   "-k", str(args.k), "-e", str(args.epsilon), "--objective", args.objective,
                   "-t", str(args.mtkahypar_threads), "--seed", str(args.seed + r), "-o", str(out)]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    secs = float(np.median([r["seconds"] for r in runs]))
    res = {"threads": args.mtkahypar_threads, "seconds": [r["seconds"] for r in runs],
           args.objective: [r[args.objective] for r in runs],
           "speedup_median": secs / incremental_s}
    print(f"Mt-KaHyPar DEFAULT, {args.mtkahypar_threads} threads, final design: median "
          f"{secs:.2f} s ({args.objective} {res[args.objective]}); incremental engine "
          f"{res['speedup_median']:.0f}x faster per batch")
    return res


if __name__ == "__main__":
    main()
