"""Where the C++ backend's time goes, per phase and per level, at several thread counts.

For every input (an ``.hgr`` path, or ``NAME`` / ``NAME:SCALE``: ``NAME.hgr`` from the data
directory's ``ispd98`` / ``titan23`` folders, enlarged ``SCALE`` times with
``igpart.generators.inflate(h, SCALE, seed=0)``, or a generated graph ``grid2d``, ``grid3d``,
``delaunay``, ``rgg`` ``:S`` of 2^S vertices, or a circuit's graph model ``NAME[:SCALE]/clique``
or ``/star`` as the suite's ``graphs`` set makes it; graphs run the graph path's stages), every
k and every thread count T, runs
``igpart.partition(h, k, backend="cpu", config={"threads": T, ...})`` and prints:

- one summary row: wall time, cut, imbalance, and every ``Partition.timings`` entry;
- a phase table: wall seconds and the CPU seconds of the process over the same calls (CPU/wall
  is the phase's effective parallelism: about 1 means it ran on one core; OpenMP threads that
  spin-wait after a parallel region count too, so a sequential phase that follows parallel
  ones can show up to the thread count), split into
  communities (Louvain), clustering, contraction, projection, rebalance, sequence refinement,
  FM and Jet of the first pass and of the V-cycles, and the initial partitioning as a whole;
- with ``--levels``, the same per level (vertices, pins) of the first pass and the V-cycles.

The finer timers wrap the ``CpuBackend`` stage operations (class attributes patched in this
process only); calls made inside the initial partitioning, which may run several at once on
worker threads, are summed there and reported apart. With ``--mtkahypar``, Mt-KaHyPar (DEFAULT
preset, the same T threads, its partitioning call only) runs on the same input for reference.
``--variants`` runs every case once per named set of Config overrides (keys
``CpuBackend.NAME`` set that class attribute; ``"metis": "pymetis"`` calls METIS through pymetis,
``metis_compare.py``). The last table lists time and cut of every run
with the speed-up over the smallest T of the same variant.

    python benchmarks/cpu_profile.py --inputs neuron:24,ibm10:30 --ks 2,16 \\
        --threads 1,4,8,16 --mtkahypar --levels \\
        --variants '{"fm": {}, "jet+fm": {"refinement": "jet+fm"}}'
    IGPART_BENCHMARKS=/data python benchmarks/cpu_profile.py --inputs ibm01,x.hgr --threads 2
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import itertools
import json
import os
import platform
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

from fm_bench import GRAPHS  # this folder is sys.path[0] when run as a script
from fm_bench import load as load_graph
from metis_compare import metis_impl
from scale_bench import commit
from suite import CLIQUE_MAX_NET_SIZE

import igpart
import igpart.partitioner.initial.coarsest as ml
import igpart.partitioner.uncoarsening as uncoarsening
from igpart.generators import inflate
from igpart.kernels import _cpu
from igpart.kernels.cpu import CpuBackend
from igpart.metrics import evaluate

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "benchmarks"
SUBDIRS = ("ispd98", "titan23", "")

#: CpuBackend operations timed, with the phase name each one is reported under.
PHASES = {
    "communities": "louvain",
    "cluster_hypergraph": "cluster",
    "coarsen_hypergraph": "cluster",
    "contract_hypergraph": "contract",
    "project": "project",
    "rebalance_hypergraph": "rebalance",
    "refine_hypergraph": "seqref",
    "refine_candidates": "seqref",
    "fm_refine_hypergraph": "fm",
    "jet_refine_hypergraph": "jet",
    "hypergraph_objective": "objective",
    # the graph path
    "cluster_graph_lp": "cluster",
    "coarsen_graph": "cluster",
    "contract_graph": "contract",
    "rebalance_graph": "rebalance",
    "lp_refine_graph": "lprefine",
    "refine_graph": "lprefine",
    "fm_refine_graph": "fm",
    "jet_refine_graph": "jet",
}
PHASE_ORDER = ("louvain", "cluster", "contract", "project", "rebalance", "seqref", "lprefine",
               "fm", "jet", "objective")


class Recorder:
    """Wall and process-CPU seconds of the patched operations, keyed by (context, level size,
    phase). Context: ``main`` (the first pass), ``vcycle`` or ``initial`` (anything called
    inside the initial partitioning, recursive bisections included)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.initial_depth = 0
        self.context = "main"
        self.reset()

    def reset(self) -> None:
        self.wall: dict[tuple, float] = defaultdict(float)
        self.cpu: dict[tuple, float] = defaultdict(float)
        self.calls: dict[tuple, int] = defaultdict(int)
        self.pins: dict[int, int] = {}

    def ctx(self) -> str:
        return "initial" if self.initial_depth else self.context

    def record(self, key: tuple, wall: float, cpu: float) -> None:
        with self.lock:
            self.wall[key] += wall
            self.cpu[key] += cpu
            self.calls[key] += 1


REC = Recorder()


def _timed(name: str, fn):
    phase = PHASES[name]

    def wrapper(self, *args, **kwargs):
        hg = args[0] if args else None
        n = int(getattr(hg, "n", -1)) if name != "project" else int(len(args[0]))
        if hg is not None and hasattr(hg, "num_pins"):
            REC.pins[n] = int(hg.num_pins)
        elif hg is not None and hasattr(hg, "adjncy"):  # a graph level: its arcs
            REC.pins[n] = int(len(hg.adjncy))
        ctx = REC.ctx()
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(self, *args, **kwargs)
        finally:
            REC.record((ctx, n, phase), time.perf_counter() - w0, time.process_time() - c0)

    wrapper.__wrapped__ = fn
    return wrapper


def install() -> None:
    """Wraps the CpuBackend operations and the driver's initial-partitioning / V-cycle entries."""
    for name in PHASES:
        setattr(CpuBackend, name, _timed(name, getattr(CpuBackend, name)))
    init = ml.initial_partition

    def initial_partition(*args, **kwargs):
        with REC.lock:
            REC.initial_depth += 1
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            return init(*args, **kwargs)
        finally:
            with REC.lock:
                REC.initial_depth -= 1
                if REC.initial_depth == 0:
                    key = ("initial_total", 0, "initial")
                    REC.wall[key] += time.perf_counter() - w0
                    REC.cpu[key] += time.process_time() - c0
                    REC.calls[key] += 1

    ml.initial_partition = initial_partition
    vcycle = uncoarsening.vcycle_hypergraph

    def vcycle_hypergraph(*args, **kwargs):
        before = REC.context
        REC.context = "vcycle"
        try:
            return vcycle(*args, **kwargs)
        finally:
            REC.context = before

    uncoarsening.vcycle_hypergraph = vcycle_hypergraph


#: The graph models of a hypergraph that ``load`` takes as a ``/MODEL`` suffix.
GRAPH_MODELS = ("clique", "star")


def load(spec: str, data: Path) -> tuple[str, igpart.Hypergraph | igpart.Graph]:
    """``spec``: a path to an .hgr file, NAME[:SCALE] found under ``data``, or a generated
    graph ``grid2d`` / ``grid3d`` / ``delaunay`` / ``rgg`` ``:S`` (2^S vertices, as
    ``fm_bench.load``); a suffix ``/clique`` or ``/star`` takes that graph model of the
    hypergraph (a path's other slashes are the path's)."""
    head, slash, model = spec.rpartition("/")
    if slash and model in GRAPH_MODELS:
        spec = head
    else:
        model = ""
    name, _, scale = spec.partition(":")
    if name in GRAPHS:
        g = load_graph(spec, data)
        return f"{name}_2^{scale or 18}", g
    if model:  # a circuit's graph model, as the suite's graphs set makes it
        label, h = load(spec, data)
        size = {"max_net_size": CLIQUE_MAX_NET_SIZE} if model == "clique" else {}
        return f"{label}_{model}", h.to_graph(model, **size)
    path = Path(name)
    if not path.is_file():
        for sub in SUBDIRS:
            cand = data / sub / f"{name}.hgr"
            if cand.is_file():
                path = cand
                break
        else:
            raise SystemExit(f"cpu_profile: no input '{name}' (not a file, nor {name}.hgr under "
                             f"{data}/{{ispd98,titan23}})")
    h = igpart.read_hgr(path)
    if scale and int(scale) > 1:
        h = inflate(h, int(scale), seed=0)
        return f"{path.stem}x{scale}", h
    return path.stem, h


def _fmt(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.2f}"


def phase_table(levels: bool) -> list[str]:
    """The recorded phases: per context (and level with ``levels``), wall and CPU/wall."""
    lines = []
    ctxs = ("main", "vcycle", "initial")
    for ctx in ctxs:
        keys = [k for k in REC.wall if k[0] == ctx]
        if not keys:
            continue
        per_phase = defaultdict(lambda: [0.0, 0.0])
        for key in keys:
            per_phase[key[2]][0] += REC.wall[key]
            per_phase[key[2]][1] += REC.cpu[key]
        cells = []
        for p in PHASE_ORDER:
            if p in per_phase:
                w, c = per_phase[p]
                cells.append(f"{p} {_fmt(w)}s x{c / w if w > 0 else 0:.1f}")
        label = "initial (summed over threads)" if ctx == "initial" else ctx
        lines.append(f"    {label:8s}: " + " | ".join(cells))
        if levels and ctx != "initial":
            sizes = sorted({k[1] for k in keys}, reverse=True)
            for n in sizes:
                cells = []
                for p in PHASE_ORDER:
                    key = (ctx, n, p)
                    if key in REC.wall and p != "objective":
                        w, c = REC.wall[key], REC.cpu[key]
                        cells.append(f"{p} {_fmt(w)}/x{c / w if w > 0 else 0:.1f}"
                                     + (f"({REC.calls[key]})" if REC.calls[key] > 1 else ""))
                if cells:
                    pins = REC.pins.get(n, 0)
                    lines.append(f"      n={n:>9,d} pins={pins:>10,d}: " + " ".join(cells))
    key = ("initial_total", 0, "initial")
    if key in REC.wall:
        w, c = REC.wall[key], REC.cpu[key]
        lines.append(f"    initial partitioning as a whole: {_fmt(w)}s x{c / w:.1f}")
    return lines


def cpu_model() -> str:
    """The CPU's model name (Linux), or the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mtkahypar_runs(spec: str, args, ks: list[int], T: int) -> dict:
    """{(k, T): (seconds, objective, imbalance)} of Mt-KaHyPar on ``spec`` at every k, run in a
    child process (this script with ``--mtk-worker``)."""
    cmd = [sys.executable, __file__, "--mtk-worker", "--inputs", spec, "--data", args.data,
           "--ks", ",".join(map(str, ks)), "--threads", str(T), "--seed", str(args.seed),
           "--epsilon", str(args.epsilon), "--objective", args.objective]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    runs = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            runs[(r["k"], T)] = (r["seconds"], r["value"], r["imbalance"])
    return runs


def mtk_worker(args) -> None:
    """Mt-KaHyPar at every k on one input and thread count; one JSON line per k."""
    from igpart.partitioner.initial.mtkahypar import mtkahypar_partition

    _, h = load(args.inputs, Path(args.data))
    T = int(args.threads)
    for k in (int(x) for x in args.ks.split(",")):
        parts, seconds = mtkahypar_partition(h, k, args.epsilon, args.objective,
                                             seed=args.seed, threads=T, timed=True)
        m = evaluate(h, parts, k, args.epsilon)
        print(json.dumps({"k": k, "seconds": seconds, "value": int(m[args.objective]),
                          "imbalance": float(m["imbalance"])}), flush=True)


@contextlib.contextmanager
def cpu_attributes(attrs: dict):
    """CpuBackend class attributes set inside the block, restored afterwards."""
    before = {name: getattr(CpuBackend, name) for name in attrs}
    for name, value in attrs.items():
        if name not in before:
            raise SystemExit(f"cpu_profile: CpuBackend has no attribute '{name}'")
        setattr(CpuBackend, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(CpuBackend, name, value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default="cholesky_mc", help="comma-separated PATH.hgr or "
                    "NAME[:SCALE] (ISPD98 / Titan23 circuit, number of copies)")
    ap.add_argument("--data", default=os.environ.get("IGPART_BENCHMARKS", str(DEFAULT_DATA)),
                    help="benchmark directory (default $IGPART_BENCHMARKS or ../shared/benchmarks)")
    ap.add_argument("--ks", default="2,16")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", default="cut", choices=("cut", "km1"))
    ap.add_argument("--config", default="{}", help="JSON object of Config overrides")
    ap.add_argument("--variants", default='{"igpart": {}}',
                    help="JSON object: variant name -> Config overrides (on top of --config); "
                    "keys 'CpuBackend.NAME' set that class attribute for the variant, e.g. "
                    "'{\"fm\": {}, \"jet\": {\"CpuBackend.jet_min_threads\": 8}}'")
    ap.add_argument("--cpu-attr", action="append", default=[], metavar="NAME=VALUE",
                    help="set a CpuBackend class attribute (an int or float), e.g. "
                    "cluster_sub_rounds=16; repeatable")
    ap.add_argument("--repeat", type=int, default=1, help="runs per case (the fastest is shown)")
    ap.add_argument("--levels", action="store_true", help="also print the per-level table")
    ap.add_argument("--mtkahypar", action="store_true", help="also run Mt-KaHyPar DEFAULT")
    ap.add_argument("--json", help="also write every run's numbers to this JSON file")
    ap.add_argument("--mtk-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mtk_worker:
        mtk_worker(args)
        return
    ks = [int(x) for x in args.ks.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    overrides = json.loads(args.config)
    variants = json.loads(args.variants)
    install()
    for item in args.cpu_attr:
        name, _, value = item.partition("=")
        if not hasattr(CpuBackend, name):
            raise SystemExit(f"cpu_profile: CpuBackend has no attribute '{name}'")
        setattr(CpuBackend, name, type(getattr(CpuBackend, name))(float(value)))
    print(f"# cpu_profile: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"commit {commit()}, {platform.node()}, {os.cpu_count()} CPUs "
          f"({len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'} usable),"
          f" python {platform.python_version()}, seed {args.seed}, eps {args.epsilon}, "
          f"config {json.dumps(overrides)}, CpuBackend {' '.join(args.cpu_attr) or 'defaults'}",
          flush=True)
    omp_env = {k: v for k, v in os.environ.items() if k.startswith(("OMP_", "GOMP_"))}
    print(f"# CPU {cpu_model()}, OpenMP environment {omp_env or 'unset'}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    rows = []
    for spec in args.inputs.split(","):
        t0 = time.perf_counter()
        label, h = load(spec.strip(), Path(args.data))
        size = (f"{h.m:,d} nets, {h.num_pins:,d} pins" if isinstance(h, igpart.Hypergraph)
                else f"{len(h.adjncy) // 2:,d} edges")
        print(f"\n## {label}: {h.n:,d} vertices, {size} "
              f"(loaded in {time.perf_counter() - t0:.1f} s)", flush=True)
        mtk = {}
        if args.mtkahypar:  # one process per thread count: Mt-KaHyPar initializes once
            for T in threads:
                mtk.update(mtkahypar_runs(spec.strip(), args, ks, T))
        for k, T, (vname, variant) in itertools.product(ks, threads, variants.items()):
            cfg = {key: v for key, v in variant.items()
                   if not key.startswith("CpuBackend.") and key != "metis"}
            attrs = {key[len("CpuBackend."):]: v for key, v in variant.items()
                     if key.startswith("CpuBackend.")}
            best, walls = None, []
            with cpu_attributes(attrs), metis_impl(variant.get("metis", "native")):
                for _ in range(max(1, args.repeat)):
                    REC.reset()
                    _cpu.set_num_threads(T)
                    w0 = time.perf_counter()
                    p = igpart.partition(h, k, args.epsilon, args.objective, backend="cpu",
                                         seed=args.seed, config=dict(overrides, **cfg, threads=T))
                    wall = time.perf_counter() - w0
                    walls.append(wall)
                    if best is None or wall < best[0]:
                        best = (wall, p, phase_table(args.levels))
            wall, p, table = best
            timings = " ".join(f"{n} {_fmt(s)}" for n, s in p.timings.items())
            print(f"  k={k:<3d} T={T:<3d} {vname:8s} {wall:8.2f} s  cut {p.cut:>9,d}  "
                  f"imb {p.imbalance:.4f}{'' if p.balanced else ' UNBALANCED'}  "
                  f"[{timings}]" + (f"  runs {'/'.join(f'{x:.3f}' for x in walls)}"
                                    if len(walls) > 1 else ""), flush=True)
            for line in table:
                print(line)
            row = {"input": label, "k": k, "threads": T, "variant": vname, "seconds": wall,
                   "runs": walls,
                   "cut": int(p.cut), "km1": int(p.km1), "balanced": bool(p.balanced),
                   "timings": p.timings}
            if args.mtkahypar:
                ms, mcut, mimb = mtk[(k, T)]
                row.update(mtk_seconds=ms, mtk_cut=mcut)
                print(f"  k={k:<3d} T={T:<3d} MtK      {ms:8.2f} s  cut {mcut:>9,d}  "
                      f"imb {mimb:.4f}  -> igpart/MtK time {wall / ms:.2f} cut "
                      f"{p.objective_value / max(1, mcut):.3f}", flush=True)
            rows.append(row)
    print("\n## summary (speed-up: against the smallest thread count of the same case)")
    print("| input | k | T | variant | igpart s | speed-up | cut | MtK s | MtK cut | time ratio "
          "| cut ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = {}
    for r in rows:
        key = (r["input"], r["k"], r["variant"])
        base.setdefault(key, r["seconds"])
        sp = base[key] / r["seconds"]
        mt = (f"{r['mtk_seconds']:.2f} | {r['mtk_cut']} | {r['seconds'] / r['mtk_seconds']:.2f} "
              f"| {r['cut'] / max(1, r['mtk_cut']):.3f}") if "mtk_seconds" in r else "- | - | - | -"
        print(f"| {r['input']} | {r['k']} | {r['threads']} | {r['variant']} | {r['seconds']:.2f} "
              f"| {sp:.2f} | {r['cut']} | {mt} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
