"""Incremental engine on the GPU: per-batch latency of apply + refine vs a full re-partition.

Builds ``igpart.generators.random_circuit(n)`` (1M cells by default), partitions it with igpart's
multilevel partitioner (``--initial multilevel``; ``stripes``: horizontal stripes of the grid, no
partitioner run), then, batch by batch: generates a
timing-optimisation style batch of about ``--batch-size`` records (buffer insertions, gate
sizings, gate removals, pin moves; ``benchmarks/dynamic_bench.py``) on a C++ mirror of the
structure, applies it there (timed: the C++ apply, for reference), then applies it on the GPU and
refines (iG-kway Alg. 3 + 4 + local refinement) — timed end to end through the Python API, each
call synchronous. The first ``--warmup`` batches are not timed. Every ``--check-every`` batches
the GPU's maintained cut / km1 / block weights are compared with a from-scratch evaluation.
At the end the modified design is re-partitioned from scratch ``--full-runs`` times (seeds
``seed, seed+1, ...``) with igpart's multilevel partitioner (``--full-backend cpu`` (default) or
``gpu``, the GPU-vs-GPU comparison): the speedup is the median full time over the median
per-batch GPU latency, the quality ratio the incremental objective over the median full one (one
multilevel run varies by a few percent from seed to seed, so a single run is a noisy reference).

``--input NAME:SCALE`` takes an ISPD98 or Titan23 circuit enlarged SCALE times
(``benchmarks/_data.py``) instead of the generated one. ``--initial-budget-fraction F`` (with
``--initial multilevel --full-backend gpu``) partitions the design three times with the GPU
backend and its seeded clustering joins: in memory, under an unbounded budget (whose peak of live
device bytes is the run's footprint) and under footprint / F, and stops unless the budgeted run
gives the in-memory partition; the replay then starts from it. The run ends with the process's
peak resident memory (what the host held at most).

``--memory-budget`` runs the GPU structure under a budget (below its footprint: bucket pools in
page-locked host memory, zero-copy). ``--budget-fractions 4 16`` runs, beside the in-memory
structure and on the same batches, one structure per budget of footprint / F (F = 4, 16): each
batch is applied and refined on every structure in turn, each timed on its own, and after every
batch the partition, cut and km1 of each must equal the in-memory structure's (the run stops at
the first difference); a budget the structure refuses is reported with the minimum it names.

    python benchmarks/incremental_gpu_bench.py [--n 1000000 | --input NAME:SCALE] [--batches 200]
        [--k 8] [--json F] [--memory-budget BYTES|half] [--budget-fractions 4 16]
        [--initial-budget-fraction 4]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import subprocess
import time
from pathlib import Path

import numpy as np

from igpart.dynamic import DynamicHypergraph
from igpart.generators import random_circuit
from igpart.metrics import evaluate

_spec = importlib.util.spec_from_file_location(
    "_dynamic_bench", Path(__file__).resolve().parent / "dynamic_bench.py"
)
_dyn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_dyn)
timing_batch = _dyn.timing_batch


def stripes(n: int, k: int) -> np.ndarray:
    """Block of each cell: horizontal stripes of the generator's grid (cells are row-major)."""
    return (np.arange(n, dtype=np.int64) * k // max(n, 1)).astype(np.int32)


def stats_us(seconds: list[float]) -> dict:
    us = np.array(seconds) * 1e6
    return {"median_us": float(np.median(us)), "p95_us": float(np.percentile(us, 95)),
            "max_us": float(us.max()), "mean_us": float(us.mean())}  # fmt: skip


def budgeted_initial(h, args) -> dict:
    """``--initial-budget-fraction``: the GPU partition of ``h`` in memory, under an unbounded
    budget (its device peak is the footprint) and under footprint / F, each after one warm-up of
    the same kind on a small circuit (kernel compilation); exits unless the budgeted partition
    is the in-memory one. Returns the figures and the partition (key ``parts``)."""
    from igpart import partition
    from igpart.kernels.gpu import GpuBackend

    def run(hh, budget):
        be = GpuBackend(deterministic=True, memory_budget=budget)
        t0 = time.perf_counter()
        p = partition(hh, args.k, args.epsilon, objective=args.objective, backend=be,
                      seed=args.seed)  # fmt: skip
        return time.perf_counter() - t0, p

    small = random_circuit(200_000, seed=args.seed)
    run(small, None)
    run(small, 1 << 50)
    t_mem, ref = run(h, None)
    t_probe, probe = run(h, 1 << 50)
    footprint = int(probe.memory["device_used_peak"])
    b = footprint // args.initial_budget_fraction
    t_b, pb = run(h, b)
    same = bool(np.array_equal(pb.parts, ref.parts) and np.array_equal(probe.parts, ref.parts))
    mem = pb.memory
    print(f"initial partition (GPU, seeded joins): in memory {t_mem:.2f} s, {args.objective} "
          f"{getattr(ref, args.objective)}; footprint {footprint:,} B; under footprint / "
          f"{args.initial_budget_fraction} = {b:,} B: {t_b:.2f} s ({t_b / t_mem:.2f}x), device "
          f"peak {mem.get('device_peak', 0):,} B, host peak {mem.get('host_peak', 0):,} B, "
          f"same partition: {'yes' if same else 'NO'}")  # fmt: skip
    if not same:
        raise SystemExit("the budgeted initial partition differs from the in-memory one")
    return {"parts": pb.parts, "objective": int(getattr(pb, args.objective)),
            "seconds_in_memory": t_mem, "seconds_unbounded": t_probe, "seconds_budget": t_b,
            "footprint": footprint, "budget": b, "fraction": args.initial_budget_fraction,
            "device_peak": int(mem.get("device_peak", 0)),
            "host_peak": int(mem.get("host_peak", 0)), "identical": same}  # fmt: skip


def build_budgeted(h, parts, args) -> tuple[list[dict], list[dict]]:
    """One GPU structure per ``--budget-fractions`` F at footprint / F (those the budget cannot
    hold are returned as refused, with the error naming the minimum)."""
    from igpart.dynamic import device_footprint
    from igpart.errors import InputError

    need = device_footprint(h, args.k)
    engines, refused = [], []
    for f in args.budget_fractions:
        b = need // f
        try:
            d = DynamicHypergraph.from_hypergraph(h, parts, args.k, args.epsilon, backend="gpu",
                                                  memory_budget=b)  # fmt: skip
        except InputError as exc:
            refused.append({"fraction": f, "budget": b, "footprint": need, "error": str(exc)})
            print(f"footprint / {f} = {b:,} B: refused ({exc})")
            continue
        st = d.stats
        print(f"footprint / {f} = {b:,} B (footprint {need:,}): host pools {st['host_pools']}, "
              f"host state {st['host_state']}")  # fmt: skip
        engines.append({"fraction": f, "budget": b, "footprint": need, "d": d, "lat": []})
    return engines, refused


def step_budgeted(engines: list[dict], ref, batch, objective: str, i: int, timed: bool) -> None:
    """Applies and refines ``batch`` on every budgeted structure; stops the run where one's
    partition, cut or km1 differs from the in-memory structure ``ref``'s."""
    want = ref.parts if engines else None  # read once per batch, outside the timed calls
    for e in engines:
        d = e["d"]
        t0 = time.perf_counter()
        d.apply(batch)
        d.refine(objective)
        t1 = time.perf_counter()
        if timed:
            e["lat"].append(t1 - t0)
        if (d.cut, d.km1) != (ref.cut, ref.km1) or not np.array_equal(d.parts, want):
            raise SystemExit(f"batch {i}: footprint / {e['fraction']} differs from in memory "
                             f"(cut {d.cut} vs {ref.cut}, km1 {d.km1} vs {ref.km1})")  # fmt: skip


def report_budgeted(engines: list[dict], refused: list[dict], lat: list[float]) -> list[dict]:
    rows = []
    base = float(np.median(lat))
    for e in engines:
        s = stats_us(e["lat"])
        ratio = s["median_us"] * 1e-6 / base
        print(f"  footprint / {e['fraction']:<3d} apply + refine median {s['median_us']:8.1f} us  "
              f"p95 {s['p95_us']:8.1f} us  ({ratio:.2f}x in memory); same partition, cut and "
              f"km1 as in memory after every batch")  # fmt: skip
        rows.append({"fraction": e["fraction"], "budget": e["budget"], "footprint": e["footprint"],
                     "host_pools": bool(e["d"].stats["host_pools"]),
                     "host_state": bool(e["d"].stats["host_state"]), "apply_refine": s,
                     "vs_in_memory": ratio, "identical": True})  # fmt: skip
    return rows + [dict(r, identical=None) for r in refused]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--n", type=int, default=1_000_000)
    src.add_argument("--input", default=None,
                     help="NAME or NAME:SCALE: an ISPD98 / Titan23 circuit, enlarged SCALE times")
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=100)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", default="cut", choices=["cut", "km1"])
    ap.add_argument("--check-every", type=int, default=50)
    ap.add_argument("--full-backend", default="cpu")
    ap.add_argument("--initial", default="multilevel", choices=["multilevel", "stripes"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--full-runs",
        type=int,
        default=3,
        help="full re-partitions of the modified design (seeds seed, seed+1, ...): "
        "the quality reference is their median, since one run of the multilevel "
        "partitioner varies by a few percent from seed to seed",
    )
    ap.add_argument("--memory-budget", default=None,
                    help="device memory budget of the GPU structure (e.g. 200MiB, or 'half': "
                    "half its estimated footprint): below the footprint its bucket pools live "
                    "in page-locked host memory, read over the bus")
    ap.add_argument("--budget-fractions", type=int, nargs="*", default=[],
                    help="also run, in lockstep, one structure per budget of footprint / F and "
                    "check that its partition equals the in-memory one's after every batch")
    ap.add_argument("--initial-budget-fraction", type=int, default=0, metavar="F",
                    help="with --full-backend gpu: also partition the design under footprint / F "
                    "(seeded joins) and check that it gives the in-memory partition")
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args()

    # IGPART_COMMIT first: the device's copy of the tree can carry a stale .git
    commit = os.environ.get("IGPART_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        cwd=Path(__file__).parent).stdout.strip()  # fmt: skip
    import cupy

    dev = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"machine: {platform.node()} ({dev}), commit {commit or '?'}")

    t = time.perf_counter()
    if args.input:
        from _data import load  # this folder is sys.path[0] when run as a script

        name, _, scale = args.input.partition(":")
        h = load(name, int(scale or 1), seed=args.seed)
        label = args.input
    else:
        h = random_circuit(args.n, seed=args.seed)
        label = f"random_circuit({args.n})"
    args.n = h.n
    print(f"{label}: n={h.n} m={h.m} pins={h.num_pins}  {time.perf_counter() - t:.2f} s")
    from igpart import partition

    initial_budget = None
    if args.initial == "stripes":
        parts = stripes(h.n, args.k)
        initial_obj = None
    elif args.initial_budget_fraction:
        if args.full_backend != "gpu":
            raise SystemExit("--initial-budget-fraction needs --full-backend gpu")
        initial_budget = budgeted_initial(h, args)
        parts = initial_budget.pop("parts")
        initial_obj = initial_budget["objective"]
    else:
        t = time.perf_counter()
        p0 = partition(h, args.k, args.epsilon, objective=args.objective,
                       backend=args.full_backend, seed=args.seed)  # fmt: skip
        parts = p0.parts
        initial_obj = int(getattr(p0, args.objective))
        print(
            f"initial partition ({args.full_backend} multilevel): cut {p0.cut} km1 {p0.km1}, "
            f"{time.perf_counter() - t:.2f} s"
        )
    t = time.perf_counter()
    budget = args.memory_budget
    if budget == "half":
        from igpart.dynamic import device_footprint

        budget = device_footprint(h, args.k) // 2
    gpu = DynamicHypergraph.from_hypergraph(h, parts, args.k, args.epsilon, backend="gpu",
                                            memory_budget=budget)  # fmt: skip
    print(f"GPU structure: memory budget {budget}, host pools {gpu.stats['host_pools']}")
    budgeted, refused = build_budgeted(h, parts, args)
    cupy.cuda.runtime.deviceSynchronize()
    t_build_gpu = time.perf_counter() - t
    t = time.perf_counter()
    cpu = DynamicHypergraph.from_hypergraph(h, parts, args.k, args.epsilon)
    t_build_cpu = time.perf_counter() - t
    print(f"build: gpu {t_build_gpu:.2f} s (with compile), cpu {t_build_cpu:.2f} s; {gpu}")

    rng = np.random.default_rng(args.seed + 1)
    lat, t_apply, t_refine, t_cpu_apply, records = [], [], [], [], []
    rounds, pseudo, region, changed = [], [], [], []
    checks = 0
    for i in range(args.warmup + args.batches):
        b = timing_batch(cpu, rng, args.batch_size)
        t0 = time.perf_counter()
        cpu.apply(b)
        t1 = time.perf_counter()
        gpu.apply(b)
        t2 = time.perf_counter()
        info = gpu.refine(args.objective)
        t3 = time.perf_counter()
        step_budgeted(budgeted, gpu, b, args.objective, i, timed=i >= args.warmup)
        if i < args.warmup:
            continue
        records.append(len(b))
        t_cpu_apply.append(t1 - t0)
        t_apply.append(t2 - t1)
        t_refine.append(t3 - t2)
        lat.append(t3 - t1)
        rounds.append(info["rounds"])
        pseudo.append(info["pseudo"])
        region.append(info["region"])
        changed.append(info["changed"])
        if not info["balanced"]:
            raise SystemExit(f"batch {i}: unbalanced after refinement")
        if (i + 1) % args.check_every == 0:
            snap = gpu.to_hypergraph()
            want = evaluate(snap.hypergraph, snap.parts, args.k, args.epsilon)
            got = gpu.metrics()
            assert (got["cut"], got["km1"]) == (want["cut"], want["km1"]), "metrics disagree"
            assert np.array_equal(got["block_weights"], want["block_weights"])
            assert want["balanced"]
            checks += 1
    lat_s = stats_us(lat)
    print(
        f"{args.batches} batches of {np.mean(records):.0f} records (min {min(records)}, "
        f"max {max(records)}), objective {args.objective}, {checks} from-scratch checks passed"
    )
    for name, xs in (
        ("GPU apply + refine", lat),
        ("  GPU apply", t_apply),
        ("  GPU refine", t_refine),
        ("C++ apply (mirror)", t_cpu_apply),
    ):
        s = stats_us(xs)
        print(f"  {name:20s} median {s['median_us']:8.1f} us  p95 {s['p95_us']:8.1f} us  "
              f"max {s['max_us']:8.1f} us")  # fmt: skip
    print(
        f"  refine: rounds median {np.median(rounds):.0f}, pseudo median {np.median(pseudo):.0f}"
        f", region median {np.median(region):.0f}, changed median {np.median(changed):.0f}"
    )

    budget_rows = report_budgeted(budgeted, refused, lat)
    snap = gpu.to_hypergraph()
    inc = evaluate(snap.hypergraph, snap.parts, args.k, args.epsilon)
    fulls, t_fulls = [], []
    for r in range(max(1, args.full_runs)):
        t = time.perf_counter()
        full = partition(snap.hypergraph, args.k, args.epsilon, objective=args.objective,
                         backend=args.full_backend, seed=args.seed + r)  # fmt: skip
        t_fulls.append(time.perf_counter() - t)
        fulls.append(int(getattr(full, args.objective)))
        print(
            f"full re-partition {r + 1} ({args.full_backend} multilevel, seed {args.seed + r}) "
            f"of the modified design: {t_fulls[-1]:.2f} s, {args.objective} {fulls[-1]}"
        )
    t_full = float(np.median(t_fulls))
    full_med = float(np.median(fulls))
    inc_obj = int(inc[args.objective])
    speedup = t_full / (lat_s["median_us"] * 1e-6)
    drift = "" if initial_obj is None else f" (initial partition: {initial_obj})"
    print(
        f"incremental {args.objective} after the replay: {inc_obj}{drift}; "
        f"{inc_obj / max(full_med, 1):.3f} of the median full re-partition's ({full_med:.0f}), "
        f"{inc_obj / max(min(fulls), 1):.3f} of the best ({min(fulls)}); "
        f"speedup median full / median incremental batch: {speedup:.0f}x"
    )
    result = {
        "machine": platform.node(), "device": dev, "commit": commit, "n": args.n, "m": h.m,
        "initial": args.initial,
        "pins": h.num_pins, "k": args.k, "epsilon": args.epsilon, "objective": args.objective,
        "batches": args.batches, "records_mean": float(np.mean(records)),
        "gpu_apply_refine": lat_s, "gpu_apply": stats_us(t_apply),
        "gpu_refine": stats_us(t_refine), "cpu_apply": stats_us(t_cpu_apply),
        "full_seconds": t_full, "full_backend": args.full_backend, "speedup": speedup,
        "incremental_cut": int(inc["cut"]), "incremental_km1": int(inc["km1"]),
        "full_objectives": fulls, "full_seconds_all": t_fulls, "full_median": full_med,
        "incremental_objective": inc_obj, "initial_objective": initial_obj,
        "quality_ratio_median": inc_obj / max(full_med, 1),
        "rounds_median": float(np.median(rounds)), "pseudo_median": float(np.median(pseudo)),
        "region_median": float(np.median(region)), "checks": checks,
        "build_gpu_s": t_build_gpu, "build_cpu_s": t_build_cpu,
        "memory_budget": budget, "host_pools": gpu.stats["host_pools"],
        "budget_fractions": budget_rows, "input": label,
        "initial_budget": initial_budget,
        "host_peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }  # fmt: skip
    print(f"host: peak resident memory of the process {result['host_peak_rss_bytes']:,} B")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
