"""GPU backend benchmark, one run on a GPU machine, peers side by side.

Mode ``mtk`` (default): builds large inputs with the seeded generator
(``igpart.generators.inflate``, the ``igpart generate`` command) from the ISPD98 circuits, writes
each to an ``.hgr`` file, and partitions the same file with igpart on the GPU and with
Mt-KaHyPar (DEFAULT preset, ``--threads`` threads, read by its own reader) at every k, eps 0.03,
objective cut. Prints, per run, seconds, cut, balance and the ratios, igpart's per-phase timings
(coarsening, contraction, initial partitioning, refinement, host<->device transfers) and kernel
launches per level; then the summary (speedup and cut ratio per k, geometric means).

Mode ``cpu``: igpart on the GPU vs igpart on the C++ backend on ibm01..ibm09 at k 2, 8, 64
(quality within 5% is the target), same seed and config.

    python benchmarks/gpu_bench.py --mode mtk --inputs ibm01:40,ibm01:200,ibm09:100 \\
        --ks 2,16,64 --threads 16 --workdir /tmp/gpubench --json out.json
    python benchmarks/gpu_bench.py --mode cpu --ks 2,8,64
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import math
import os
import platform
import time
from pathlib import Path

import numpy as np
from _data import ISPD98, load  # this folder is sys.path[0] when run as a script

import igpart
from igpart.generators import inflate
from igpart.io import write_hgr
from igpart.metrics import evaluate

REPO = Path(__file__).resolve().parents[1]
PHASES = {
    "coarsening": ("coarsen", "communities"),
    "contraction": ("contract",),
    "initial": ("initial",),
    "refinement": ("refine", "jet", "fm", "rebalance", "project"),
}


def geomean(xs) -> float:
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def gpu_info() -> str:
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    return (f"{name}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, "
            f"driver {cp.cuda.runtime.driverGetVersion()}, CuPy {cp.__version__}")


def run_igpart(h, k: int, backend, seed: int, config=None) -> dict:
    from igpart.kernels.gpu import GpuBackend

    if isinstance(backend, GpuBackend):
        backend.reset_stats()
    p = igpart.partition(h, k, epsilon=0.03, objective="cut", backend=backend, seed=seed,
                         config=config)
    t = p.timings
    out = {"seconds": p.seconds, "cut": p.cut, "balanced": bool(p.balanced),
           "imbalance": float(p.imbalance),
           "phases": {name: sum(t.get(x, 0.0) for x in keys) for name, keys in PHASES.items()},
           "timings": dict(t)}
    if isinstance(backend, GpuBackend):
        out["phases"]["transfers"] = backend.transfer_seconds
        out["launches_per_level"] = list(backend.level_launches)
        out["levels"] = len(backend.level_launches)
    return out


class _LevelLog(logging.Handler):
    """Collects the driver's "level i: n -> nc vertices" debug lines (one list per hierarchy)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.hierarchies: list[list[int]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.msg, str) and record.msg.startswith("level %d: %d -> %d"):
            i, n, nc = record.args
            if i == 1 or not self.hierarchies:
                self.hierarchies.append([n])
            self.hierarchies[-1].append(nc)


def profile_igpart(h, k: int, backend, seed: int, config=None, top: int = 12) -> dict:
    """One more run with a CUDA-event pair around every RawKernel launch (a separate run, so the
    timed one carries no profiling overhead); prints the kernels taking the most device time and
    the vertices of every level of every hierarchy (main pass, V-cycles, bisections of the
    initial partitioning on the host included)."""
    from igpart.kernels.gpu import _common

    logger = logging.getLogger("igpart")
    levels, old = _LevelLog(), logger.level
    logger.addHandler(levels)
    logger.setLevel(logging.DEBUG)
    _common.profile_start()
    t0 = time.perf_counter()
    try:
        g = run_igpart(h, k, backend, seed, config)
    finally:
        prof = _common.profile_stop()
        logger.removeHandler(levels)
        logger.setLevel(old)
    wall = time.perf_counter() - t0
    big = [x for x in levels.hierarchies if x[0] >= 0.5 * h.n]  # the GPU hierarchies
    for x in big:
        print(f"          hierarchy of {len(x) - 1} levels: "
              + " ".join(f"{v}({x[i - 1] / max(v, 1):.2f}x)" if i else str(v)
                         for i, v in enumerate(x)), flush=True)
    total = sum(ms for _, ms in prof.values())
    print(f"          profile: {wall:.3f} s wall, {total / 1e3:.3f} s in RawKernels "
          f"({sum(c for c, _ in prof.values())} launches); raw timers: "
          + ", ".join(f"{a} {b:.3f}" for a, b in sorted(g["timings"].items())), flush=True)
    for name, (count, ms) in sorted(prof.items(), key=lambda x: -x[1][1])[:top]:
        print(f"            {name:40s} {count:6d} launches {ms:9.2f} ms", flush=True)
    return {"wall": wall, "kernels": prof, "hierarchies": big}


def median_run(runs: list[dict]) -> dict:
    """The run of median time among ``runs`` (its cut and phases), with every run's seconds and
    cut under "all_seconds" / "all_cuts" (``--repeat``: single runs of either tool vary, and the
    first large igpart runs of a process were sometimes several times slower)."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    out = dict(ordered[(len(ordered) - 1) // 2])
    out["all_seconds"] = [r["seconds"] for r in runs]
    out["all_cuts"] = [r["cut"] for r in runs]
    out["balanced"] = all(r["balanced"] for r in runs)
    return out


def run_mtk(path: Path, h, k: int, threads: int, seed: int) -> dict:
    import mtkahypar

    from igpart.partitioner.initial.mtkahypar import mtkahypar_initializer

    init = mtkahypar_initializer(threads)
    mtkahypar.set_seed(seed)
    ctx = init.context_from_preset(mtkahypar.PresetType.DEFAULT)
    ctx.set_partitioning_parameters(k, 0.03, mtkahypar.Objective.CUT)
    ctx.logging = False
    hg = init.hypergraph_from_file(str(path), ctx, mtkahypar.FileFormat.HMETIS)
    t0 = time.perf_counter()
    p = hg.partition(ctx)
    seconds = time.perf_counter() - t0
    parts = np.asarray(p.get_partition(), dtype=np.int32)
    m = evaluate(h, parts, k, 0.03)
    return {"seconds": seconds, "cut": int(m["cut"]), "balanced": bool(m["balanced"]),
            "imbalance": float(m["imbalance"])}


def mode_mtk(args) -> dict:
    from igpart.kernels.gpu import GpuBackend

    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    be = GpuBackend()
    # warm-up: compiles (or loads from CuPy's cache) every module and every CuPy operation the
    # runs use, outside the timings: every k of the run, on ibm01 inflated 10x (127k vertices:
    # more than GpuBackend.COMMUNITY_HOST_MAX, so the device-side pre-coarsening of the
    # communities runs, and more than Config.initial_runs_min_n, so the initial partitioning
    # of large inputs does; first large k = 2 runs were 1.1-13x slower than the next ones)
    t0 = time.perf_counter()
    warm = inflate(igpart.read_hgr(ISPD98 / "ibm01.hgr"), 10, seed=args.seed)
    for k in sorted(set(args.ks)):
        run_igpart(warm, k, be, args.seed)
    print(f"warm-up (module compilation / cache load + ibm01x10 at every k): "
          f"{time.perf_counter() - t0:.2f} s", flush=True)
    rows = []
    for spec in args.inputs.split(","):
        name, scale = spec.split(":")
        path = work / f"{name}x{scale}.hgr"
        t0 = time.perf_counter()
        h = load(name, int(scale), seed=args.seed)
        write_hgr(h, path)
        h = igpart.read_hgr(path)  # both partitioners read this file
        print(f"\n{path.name}: {h.n:,} vertices, {h.m:,} nets, {h.num_pins:,} pins "
              f"(built in {time.perf_counter() - t0:.1f} s)", flush=True)
        for k in args.ks:
            m = median_run([run_mtk(path, h, k, args.threads, args.seed)
                            for _ in range(args.repeat)])
            runs = f" (runs: {m['all_seconds']})" if args.repeat > 1 else ""
            print(f"  k={k:<3} mtk-{args.threads}{runs} {m['seconds']:7.3f} s cut {m['cut']:>8} "
                  f"{'ok' if m['balanced'] else 'UNBALANCED'}", flush=True)
            for variant, cfg in args.variants.items():
                cfg = dict(cfg)  # "backend": GpuBackend keyword arguments, the rest Config's
                vbe = GpuBackend(**cfg.pop("backend")) if "backend" in cfg else be
                g = median_run([run_igpart(h, k, vbe, args.seed, cfg)
                                for _ in range(args.repeat)])
                row = {"input": path.name, "n": h.n, "pins": h.num_pins, "k": k,
                       "variant": variant, "gpu": g, "mtk": m,
                       "speedup": m["seconds"] / g["seconds"],
                       "cut_ratio": g["cut"] / max(m["cut"], 1)}
                rows.append(row)
                ph = "  ".join(f"{a} {b:.3f}" for a, b in g["phases"].items())
                print(f"        igpart-gpu[{variant}] {g['seconds']:7.3f} s cut {g['cut']:>8} "
                      f"{'ok' if g['balanced'] else 'UNBALANCED'} | speedup "
                      f"{row['speedup']:5.2f}x cut ratio {row['cut_ratio']:.3f}", flush=True)
                if args.repeat > 1:
                    print(f"          runs: {g['all_seconds']} s, cuts {g['all_cuts']}",
                          flush=True)
                print(f"          phases: {ph}", flush=True)
                print(f"          levels {g['levels']}, launches per level "
                      f"{g['launches_per_level']}", flush=True)
                if args.profile:
                    row["profile"] = profile_igpart(h, k, vbe, args.seed, cfg)
        path.unlink()
    print("\n| input | vertices | pins | k | variant | igpart-gpu s | Mt-KaHyPar s | speedup | "
          "igpart cut | MtK cut | cut ratio | valid |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        ok = "yes" if r["gpu"]["balanced"] and r["mtk"]["balanced"] else "NO"
        print(f"| {r['input']} | {r['n']:,} | {r['pins']:,} | {r['k']} | {r['variant']} | "
              f"{r['gpu']['seconds']:.3f} | {r['mtk']['seconds']:.3f} | {r['speedup']:.2f}x | "
              f"{r['gpu']['cut']} | {r['mtk']['cut']} | {r['cut_ratio']:.3f} | {ok} |")
    for variant in args.variants:
        big = [r for r in rows if r["n"] >= 2_000_000 and r["variant"] == variant]
        print(f"\nOn inputs >= 2M vertices, variant {variant}:")
        for k in args.ks:
            sel = [r for r in big if r["k"] == k]
            if sel:
                print(f"  k={k}: speedup min {min(r['speedup'] for r in sel):.2f}x, geomean "
                      f"{geomean([r['speedup'] for r in sel]):.2f}x; cut ratio geomean "
                      f"{geomean([r['cut_ratio'] for r in sel]):.3f}")
        if big:
            print(f"  all k: cut ratio geomean {geomean([r['cut_ratio'] for r in big]):.3f}")
    return {"rows": rows}


def mode_cpu(args) -> dict:
    from igpart.kernels import get_backend

    gpu, cpu = get_backend("gpu"), get_backend("cpu")
    run_igpart(igpart.read_hgr(ISPD98 / "ibm01.hgr"), 4, gpu, args.seed)  # warm-up
    rows = []
    print("| input | k | gpu cut | cpu cut | ratio | gpu s | cpu s | valid |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for i in range(1, 10):
        h = igpart.read_hgr(ISPD98 / f"ibm{i:02d}.hgr")
        for k in args.ks:
            g = run_igpart(h, k, gpu, args.seed, args.config)
            c = run_igpart(h, k, cpu, args.seed, args.config)
            r = {"input": f"ibm{i:02d}", "k": k, "gpu": g, "cpu": c,
                 "ratio": g["cut"] / max(c["cut"], 1)}
            rows.append(r)
            ok = "yes" if g["balanced"] and c["balanced"] else "NO"
            print(f"| ibm{i:02d} | {k} | {g['cut']} | {c['cut']} | {r['ratio']:.3f} | "
                  f"{g['seconds']:.3f} | {c['seconds']:.3f} | {ok} |", flush=True)
    for k in args.ks:
        print(f"k={k}: geomean gpu/cpu cut ratio "
              f"{geomean([r['ratio'] for r in rows if r['k'] == k]):.3f}")
    print(f"all: geomean gpu/cpu cut ratio {geomean([r['ratio'] for r in rows]):.3f}, "
          f"max {max(r['ratio'] for r in rows):.3f}")
    return {"rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("mtk", "cpu"), default="mtk")
    ap.add_argument("--inputs", default="ibm01:40,ibm03:60,ibm01:200,ibm06:100,ibm09:100",
                    help="comma-separated NAME:SCALE (ISPD98 circuit, number of copies)")
    ap.add_argument("--ks", default=None, help="comma-separated k (mtk: 2,16,64; cpu: 2,8,64)")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--config", type=json.loads, default=None,
                    help="igpart Config overrides as JSON (mode cpu)")
    ap.add_argument("--variants", type=json.loads, default={"default": {}},
                    help='mode mtk: igpart variants as JSON {"name": {Config overrides}}; the '
                    'key "backend" holds GpuBackend keyword arguments, e.g. '
                    '{"gpujet": {"backend": {"jet_host_max_pins": 0}}}')
    ap.add_argument("--repeat", type=int, default=1,
                    help="mode mtk: runs per tool, case and variant; the run of median time is "
                    "reported (every run's seconds and cut go to the json)")
    ap.add_argument("--workdir", default="/tmp/igpart_gpu_bench")
    ap.add_argument("--profile", action="store_true",
                    help="mode mtk: after each timed igpart run, one profiled run (device time "
                    "per kernel, every phase timer)")
    ap.add_argument("--commit", default=os.environ.get("IGPART_COMMIT", "unknown"))
    ap.add_argument("--json", help="write all numbers to this file")
    args = ap.parse_args()
    args.ks = [int(x) for x in (args.ks or ("2,16,64" if args.mode == "mtk" else "2,8,64"))
               .split(",")]
    header = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
              "commit": args.commit, "gpu": gpu_info(), "cpu": platform.processor() or
              platform.machine(), "cores": os.cpu_count(), "python": platform.python_version(),
              "args": {k: v for k, v in vars(args).items() if k != "json"}}
    print(json.dumps(header), flush=True)
    res = mode_mtk(args) if args.mode == "mtk" else mode_cpu(args)
    if args.json:
        Path(args.json).write_text(json.dumps({**header, **res}, indent=1))


if __name__ == "__main__":
    main()
