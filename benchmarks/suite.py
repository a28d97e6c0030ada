"""The benchmark suite: igpart and Mt-KaHyPar side by side on named sets of inputs.

Sets (``--suite``, a comma list):

- ``small``: ISPD98 ibm01-ibm11 (unit weights) and the three Titan23 circuits, k 2 4 8 16 32 64;
- ``large``: ibm01 ibm09 ibm10 ibm11 cholesky_mc neuron stereo_vision, each enlarged with
  ``igpart.generators.inflate`` to at least ``--large-min-n`` (2,000,000) vertices
  (scale ``ceil(2e6 / n)``), k 2 16 64; generated once into ``WORK/inputs`` and reused while
  the base, scale, seed and generator source are unchanged;
- ``netlist``: the TAU 2015 designs (Verilog with ``cells_early.lib``, ``to_hypergraph()``),
  written as ``.hgr`` into ``WORK/inputs``, k 2 4 8 16 (k above half the vertices is skipped);
- ``graphs``: METIS ``.graph`` files written into ``WORK/inputs/graphs`` (cached like the large
  set), k 2 16 64: the 2D grid 1500x1500 and the 3D grid 128^3 (``igpart.generators.grid_graph``),
  the DIMACS-10 families ``delaunay_nS`` and ``rgg_n_2_S`` (``delaunay_graph``, ``rgg_graph``:
  2^S random points of the unit square, seeded by ``--gen-seed``) for S in ``--graph-scale``
  (default 20,21,22,23), and the clique (nets above 1000 pins left out) and star graph models of
  the three Titan23 circuits (``Hypergraph.to_graph``). With a largest scale S below 21 the grids
  shrink to about 2^S vertices (side ``round(2^(S/2))``, ``round(2^(S/3))``), for quick runs
  (``--graph-scale 16``).

Tools (``--tools``): ``igpart`` (every ``--backend`` of a comma list; ``--variants`` of Config
fields, and ``CpuBackend.NAME`` keys setting that C++ backend class attribute for the in-process
runs, and ``--presets speed,default,quality`` run side by side), ``mtkahypar`` (DEFAULT
preset; graph mode on ``.graph`` inputs), ``mtkahypar-quality`` (QUALITY) and ``kaminpar``
(KaMinPar's default context; graph inputs only), all with the same epsilon, objective, seeds
(``--seeds N``: 0..N-1) and thread count; ``--threads 1,2,4,8,16`` runs every tool at every
thread count. Each (tool, input, k, threads, seed) runs in a fresh child process (``suite.py
_worker SPEC``) that reads the input (a hypergraph with its vertex -> net incidence, as
Mt-KaHyPar's reader builds it), times the partitioning call alone (``perf_counter``),
writes the partition file and reports its peak resident memory and, on the GPU, the CuPy pool's
bytes and the device memory taken. ``--whole-process`` also times the command a user would run
(``igpart partition FILE -k K --backend B -o OUT``, ``benchmarks/mtkahypar_cli.py``,
``benchmarks/kaminpar_cli.py``), start to exit. ``--cluster`` runs them on a dask cluster
(``benchmarks/suite_cluster.py``), by default igpart's in a persistent process per worker
(``--isolate worker``, ``benchmarks/run_server.py``; ``--isolate run``: fresh processes as in a
serial run). Every partition file is checked by
``benchmarks/verify_partition.py`` (its own reader and metrics, nothing of igpart's): ids in
[0, k), block weights within ``floor((1+eps)*ceil(total/k))``, cut and km1 (graphs: the edge
cut) recomputed and compared with the tool's own figure.
A mismatch or an unbalanced or invalid partition is flagged and makes the exit status 1; a
failed or timed-out run is recorded, the suite goes on and ends with status 3.

Report: markdown on stdout (and ``--md FILE``): per case the mean over seeds of each tool's
objective (the checker's figure), in-process seconds, whole-process seconds and peak memory, the
ratios igpart / peer; per k and overall the geomean of the cut ratio and of the speedup with the
worst case; the whole wall time and per worker what igpart's runs paid besides their timed calls
(process start-ups, reads, warm-ups); igpart's self-speedup between thread counts (``--compare
1,16``; by default from the fewest threads to every other count); igpart's per-phase times.
``--json FILE`` holds every run with all its numbers, the machine, date, commit and command
(rewritten after every input, so an interrupted run keeps what it measured); ``suite.py report
FILE.json`` prints the markdown again, and ``suite.py report A.json B.json ...`` one report over
the runs of several files (e.g. the graphs at 2^20, 2^21/2^22 and 2^23, run as three commands).

    python benchmarks/suite.py --suite small --cases ibm01,ibm02 --ks 2,8 --threads 2 \\
        --tools igpart,mtkahypar --seeds 2 --json out.json --md out.md
    python benchmarks/suite.py --suite large --backend gpu --threads 16 --whole-process
    python benchmarks/suite.py --suite small --tools igpart --threads 1,2,4,8,16
    python benchmarks/suite.py --suite graphs --graph-scale 16 --ks 2,16 \\
        --tools igpart,kaminpar,mtkahypar --threads 2

Data: ``--data DIR``, else ``$IGPART_BENCHMARKS``, else ``../shared/benchmarks`` beside the
repository (folders ``ispd98``, ``titan23``, ``tau2015``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import verify_partition as checker  # noqa: E402  (benchmarks/ is no package)

ISPD98 = tuple(f"ibm{i:02d}" for i in range(1, 12))
TITAN23 = ("cholesky_mc", "neuron", "stereo_vision")
LARGE_BASES = ("ibm01", "ibm09", "ibm10", "ibm11", *TITAN23)
SET_KS = {"small": (2, 4, 8, 16, 32, 64), "large": (2, 16, 64), "netlist": (2, 4, 8, 16),
          "graphs": (2, 16, 64)}
TOOLS = ("igpart", "mtkahypar", "mtkahypar-quality", "kaminpar")
GRAPH_TOOLS = ("kaminpar",)  # graph partitioners: left out on hypergraph inputs
GRAPH_SCALES = (20, 21, 22, 23)
#: Nets above this many pins are left out of the circuits' clique graphs (a 79,213-pin net of
#: cholesky_mc alone would give 3.1e9 edges).
CLIQUE_MAX_NET_SIZE = 1000
BACKENDS = ("cpu", "gpu", "auto")
MTK_PRESETS = {"mtkahypar": "default", "mtkahypar-quality": "quality"}


class SuiteError(Exception):
    """A bad argument or missing data: printed in one line, exit status 2."""


# ------------------------------------------------------------------------------------ inputs
@dataclass
class Case:
    """One input file of a set."""

    name: str
    set: str
    path: str
    base: str = ""  # large: the circuit enlarged
    scale: int = 1
    source: str = ""  # netlist: the Verilog file
    params: dict[str, Any] = field(default_factory=dict)  # graphs: what generates the input
    n: int = 0
    m: int = 0
    pins: int = 0
    bytes: int = 0  # the file's size (on a cluster: the runs' cost until the pins are counted)


def data_dir(arg: str | None) -> Path:
    """``--data``, else ``$IGPART_BENCHMARKS``, else ``../shared/benchmarks`` beside the repo."""
    d = Path(arg or os.environ.get("IGPART_BENCHMARKS") or REPO.parent / "shared" / "benchmarks")
    if not d.is_dir():
        raise SuiteError(f"benchmark data directory {d} not found (use --data DIR or "
                         "IGPART_BENCHMARKS)")
    return d


def _hgr_header(path: Path) -> tuple[int, int]:
    """(nets, vertices) from the first non-comment line of an hMETIS file."""
    with open(path, "rb") as f:
        for line in f:
            tok = line.split()
            if tok and not tok[0].startswith(b"%"):
                return int(tok[0]), int(tok[1])
    raise SuiteError(f"{path}: no hMETIS header")


def _need(path: Path) -> Path:
    if not path.is_file():
        raise SuiteError(f"{path}: benchmark file not found")
    return path


def _cached(path: Path, key: dict[str, Any], build) -> None:
    """Runs ``build(path)`` unless ``path`` exists with a ``.json`` sidecar holding ``key``."""
    meta = path.with_suffix(".json")
    if path.is_file() and meta.is_file():
        try:
            if json.loads(meta.read_text()) == key:
                return
        except (OSError, json.JSONDecodeError):
            pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    build(tmp)
    tmp.replace(path)
    meta.write_text(json.dumps(key))


def _source_hash(module_file: str) -> str:
    return hashlib.sha256(Path(module_file).read_bytes()).hexdigest()[:16]


def _base_path(data: Path, base: str) -> Path:
    return _need(data / ("titan23" if base in TITAN23 else "ispd98") / f"{base}.hgr")


def graph_cases(work: Path, keep, scales=GRAPH_SCALES, seed: int = 0) -> list[Case]:
    """The inputs of the ``graphs`` set (see the module docstring)."""
    top = min(max(scales), 21)
    if top == 21:  # the sizes of the grids in the issue tracker's figures: about 2^21 vertices
        side2, side3 = 1500, 128
    else:
        side2, side3 = round(2 ** (top / 2)), round(2 ** (top / 3))
    folder = work / "inputs" / "graphs"
    specs = [(f"grid2d_{side2}x{side2}", {"kind": "grid", "dims": [side2, side2]}),
             (f"grid3d_{side3}x{side3}x{side3}", {"kind": "grid", "dims": [side3] * 3})]
    specs += [(f"delaunay_n{s}", {"kind": "delaunay", "n": 2**s, "seed": seed})
              for s in sorted(scales)]
    specs += [(f"rgg_n_2_{s}", {"kind": "rgg", "n": 2**s, "seed": seed}) for s in sorted(scales)]
    specs += [(f"{b}_{model}", {"kind": model, "base": b}
               | ({"max_net_size": CLIQUE_MAX_NET_SIZE} if model == "clique" else {}))
              for b in TITAN23 for model in ("clique", "star")]
    return [Case(name, "graphs", str(folder / (f"{name}_s{seed}.graph" if "seed" in p
                                               else f"{name}.graph")), params=p)
            for name, p in specs if keep(name)]


def set_cases(which: str, data: Path, work: Path, keep, min_n: int = 2_000_000,
              seed: int = 0, graph_scales=GRAPH_SCALES) -> list[Case]:
    """The inputs of one set whose name ``keep(name)`` accepts (large inputs: their base's name
    or ``BASExSCALE``), not built yet (:func:`materialize` builds generated ones)."""
    if which == "graphs":
        return graph_cases(work, keep, graph_scales, seed)
    if which == "small":
        return [Case(b, "small", str(_base_path(data, b))) for b in (*ISPD98, *TITAN23)
                if keep(b)]
    if which == "large":
        cases = []
        for base in LARGE_BASES:
            if not keep(base):
                continue
            scale = max(1, math.ceil(min_n / _hgr_header(_base_path(data, base))[1]))
            name = f"{base}x{scale}"
            cases.append(Case(name, "large", str(work / "inputs" / f"{name}_s{seed}.hgr"), base,
                              scale))
        return cases
    root = data / "tau2015"
    if not root.is_dir():
        raise SuiteError(f"{root}: TAU 2015 designs not found")
    return [Case(d.name, "netlist", str(work / "inputs" / f"tau_{d.name}.hgr"),
                 source=str(d / f"{d.name}.v"))
            for d in sorted(root.iterdir()) if (d / f"{d.name}.v").is_file() and keep(d.name)]


def _build_graph(case: Case, data: Path, tmp: Path) -> None:
    """Writes the METIS file of a ``graphs`` input."""
    from igpart import generators, read_hgr
    from igpart.io import write_graph

    p = case.params
    t0 = time.perf_counter()
    if p["kind"] == "grid":
        g = generators.grid_graph(*p["dims"])
    elif p["kind"] == "delaunay":
        g = generators.delaunay_graph(p["n"], seed=p["seed"])
    elif p["kind"] == "rgg":
        g = generators.rgg_graph(p["n"], seed=p["seed"])
    else:
        g = read_hgr(_base_path(data, p["base"])).to_graph(p["kind"],
                                                           max_net_size=p.get("max_net_size"))
    write_graph(g, tmp)
    _log(f"built {case.name}: {g.n:,} vertices, {g.num_edges:,} edges "
         f"({time.perf_counter() - t0:.1f} s)")


def materialize(case: Case, data: Path, seed: int) -> None:
    """Builds the file of a generated input (large, netlist, graphs) unless it is cached; a
    malformed benchmark file is a SuiteError naming it."""
    from igpart.errors import InputError

    try:
        _materialize(case, data, seed)
    except InputError as exc:
        raise SuiteError(f"building {case.name}: {exc}") from None


def _materialize(case: Case, data: Path, seed: int) -> None:
    if case.set == "graphs":
        from igpart import generators, hypergraph, io

        key = {**case.params, "generator": _source_hash(generators.__file__),
               "writer": _source_hash(io.__file__)}
        if "base" in case.params:
            src = _base_path(data, case.params["base"])
            key.update(source=str(src), size=src.stat().st_size,
                       model=_source_hash(hypergraph.__file__))
        _cached(Path(case.path), key, lambda tmp: _build_graph(case, data, tmp))
    elif case.set == "large":
        import igpart
        from igpart import generators
        from igpart.io import write_hgr

        key = {"base": case.base, "scale": case.scale, "seed": seed,
               "generator": _source_hash(generators.__file__)}

        def build(tmp: Path) -> None:
            t0 = time.perf_counter()
            h = generators.inflate(igpart.read_hgr(_base_path(data, case.base)), case.scale,
                                   seed=seed)
            write_hgr(h, tmp)
            _log(f"built {case.name}: {h.n:,} vertices, {h.m:,} nets, {h.num_pins:,} pins "
                 f"({time.perf_counter() - t0:.1f} s)")

        _cached(Path(case.path), key, build)
    elif case.set == "netlist":
        from igpart.io import write_hgr
        from igpart.netlist import read_verilog

        src, lib = Path(case.source), data / "tau2015" / "cells_early.lib"
        key = {"verilog": str(src), "size": src.stat().st_size, "lib": str(lib),
               "lib_size": _need(lib).stat().st_size}

        def build(tmp: Path) -> None:
            import logging

            logging.getLogger("igpart").setLevel(logging.ERROR)  # inferred pin directions
            write_hgr(read_verilog(src, lib=lib).to_hypergraph().hypergraph, tmp)

        _cached(Path(case.path), key, build)


def _materialize_job(job) -> str | None:
    """:func:`materialize` in a worker process: None, or the SuiteError's message."""
    try:
        materialize(*job)
    except SuiteError as exc:
        return str(exc)
    return None


def build_inputs(cases: list[Case], data: Path, seed: int, jobs: int = 1) -> None:
    """Builds the generated inputs of ``cases`` (``--inputs-only``), ``jobs`` at a time in
    processes of their own (the generators are mostly single-threaded), and prints their
    paths in order."""
    if jobs <= 1 or len(cases) <= 1:
        for c in cases:
            materialize(c, data, seed)
            print(c.path, flush=True)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(min(jobs, len(cases)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for c, error in zip(cases, pool.map(_materialize_job, [(c, data, seed) for c in cases])):
            if error is not None:
                raise SuiteError(error)
            print(c.path, flush=True)


# ------------------------------------------------------------------------------------ runs
@dataclass
class Tool:
    """A tool at one thread count; ``label`` names it in the report."""

    tool: str
    threads: int
    backend: str = ""
    variant: str = ""  # igpart: the name of its Config overrides (--variants)

    @property
    def family(self) -> str:
        if self.tool != "igpart":
            return self.tool
        return f"igpart-{self.backend}" + (f":{self.variant}" if self.variant else "")

    @property
    def label(self) -> str:
        return f"{self.family}@{self.threads}"


@dataclass
class Run:
    """One run of a tool (``mode`` "inproc": the timed call in a worker; "process": the whole
    command) and the checker's verdict."""

    case: str
    k: int
    seed: int
    label: str
    tool: str
    threads: int
    backend: str | None
    mode: str
    seconds: float | None = None
    wall_seconds: float | None = None
    timings: dict[str, float] = field(default_factory=dict)
    tool_cut: int | None = None
    tool_km1: int | None = None
    cut: int | None = None
    km1: int | None = None
    imbalance: float | None = None
    balanced: bool | None = None
    valid: bool | None = None
    problems: list[str] = field(default_factory=list)
    rss_peak_kib: int | None = None
    rss_after_read_kib: int | None = None
    gpu_pool_bytes: int | None = None
    gpu_used_bytes: int | None = None
    used_backend: str | None = None
    error: str | None = None
    command: list[str] = field(default_factory=list)
    # where and how it ran: the cluster worker (None: the serial suite), the run process
    # ("run": a fresh one, "worker": the worker's persistent one), the threads it was given
    worker: str | None = None
    isolate: str | None = None
    threads_used: int | None = None
    # igpart, what the run paid besides its timed call (seconds): the process's start-up
    # (persistent: only the run that started it), the input's read (0.0 when the persistent
    # process had it cached), the untimed warm-up call; then the checker's time
    start_seconds: float | None = None
    read_seconds: float | None = None
    warmup_seconds: float | None = None
    cached_input: bool | None = None
    check_seconds: float | None = None
    # on a cluster: the checker's read of the input on this worker (0.0 when it had it), made
    # while the run went on
    checker_read_seconds: float | None = None


#: The phases of a run on a cluster (``meta["phases"]``, seconds), as the report names them.
PHASE_NAMES = {"setup": "before the cluster (inputs chosen)", "cluster_start": "cluster start",
               "inputs": "inputs built", "runs": "runs",
               "sizes": "pins counted", "close": "run processes ended",
               "shutdown": "cluster shut down"}


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Spawner:
    """The small process that starts every child (``benchmarks/spawn.py``: their peak memory
    is then their own, not the suite's)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-S", str(HERE / "spawn.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, cmd: list[str], env: dict[str, str], timeout: float, log: Path) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"cmd": cmd, "env": env, "timeout": timeout,
                                          "log": str(log)}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SuiteError("the process starting the runs (benchmarks/spawn.py) ended")
        return json.loads(line)

    def close(self, abort: bool = False) -> None:
        """Ends the spawner; ``abort``: at once, killing the run in progress."""
        if abort:
            self.proc.terminate()
        elif self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def _tail(path: Path, chars: int = 400) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    return " ".join(text[-chars:].split())


class Runner:
    """Runs the child processes of one suite invocation and checks what they write.

    ``isolate``: ``"run"``, a fresh process per run; ``"worker"``, igpart's in-process runs go
    to one persistent run process (``benchmarks/run_server.py``: igpart imported once, inputs
    cached, the warm-up once per input), the other runs to fresh processes. ``max_threads``:
    the cores this runner may use (a cluster worker's share), which caps every run's threads;
    ``cache_bytes``: the persistent process's input cache."""

    def __init__(self, args: argparse.Namespace, work: Path, *, isolate: str = "run",
                 max_threads: int | None = None, cache_bytes: int | None = None,
                 worker: str | None = None):
        self.args = args
        self.work = work
        self.parts_dir = work / "parts"
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        self._cli_threads: str | None = None
        self._spawner: Spawner | None = None
        self.tag = ""  # in file names (on a cluster: the worker's process id)
        self.isolate = isolate
        self.max_threads = max_threads
        self.worker = worker
        self.server = None
        if isolate == "worker":
            import run_server

            self.server = run_server.RunServer(self.env(max_threads or 1), args.backend,
                                               cache_bytes)

    def close(self, abort: bool = False) -> None:
        """Ends the spawner and the persistent run process."""
        if self._spawner is not None:
            self._spawner.close(abort=abort)
        if self.server is not None:
            (self.server.kill if abort else self.server.close)()

    def threads(self, t: Tool) -> int:
        """The threads a run of ``t`` gets: its own count, at most ``max_threads``."""
        return t.threads if self.max_threads is None else max(1, min(t.threads,
                                                                     self.max_threads))

    def env(self, threads: int) -> dict[str, str]:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONUNBUFFERED="1")
        if self.args.data:
            env["IGPART_BENCHMARKS"] = str(self.args.data)
        return env

    def cli_threads_option(self) -> str:
        """``--threads`` when ``igpart partition`` has it (else OMP_NUM_THREADS alone sets the
        threads of the C++ backend)."""
        if self._cli_threads is None:
            r = subprocess.run([sys.executable, "-m", "igpart", "partition", "-h"],
                               capture_output=True, text=True, timeout=120)
            self._cli_threads = "--threads" if "--threads" in r.stdout else ""
        return self._cli_threads

    def worker_cmd(self, spec: dict) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), "_worker", json.dumps(spec)]

    def process_cmd(self, t: Tool, case: Case, k: int, seed: int, out: Path) -> list[str]:
        a = self.args
        t = Tool(t.tool, self.threads(t), t.backend, t.variant)
        if t.tool == "igpart":
            cmd = [sys.executable, "-m", "igpart", "partition", case.path, "-k", str(k),
                   "-e", str(a.epsilon), "--objective", a.objective, "--backend", t.backend,
                   "--seed", str(seed), "-o", str(out), "--json"]
            if self.cli_threads_option():
                cmd += [self.cli_threads_option(), str(t.threads)]
            if a.variants.get(t.variant):
                cfg = self.work / "configs" / f"{t.variant}.json"
                cfg.parent.mkdir(exist_ok=True)
                cfg.write_text(json.dumps(a.variants[t.variant]))
                cmd += ["--config", str(cfg)]
            return cmd
        if t.tool == "kaminpar":
            return [sys.executable, str(HERE / "kaminpar_cli.py"), case.path, "-k", str(k),
                    "-e", str(a.epsilon), "--seed", str(seed), "--threads", str(t.threads),
                    "-o", str(out)]
        return [sys.executable, str(HERE / "mtkahypar_cli.py"), case.path, "-k", str(k),
                "-e", str(a.epsilon), "--objective", a.objective, "--seed", str(seed),
                "--threads", str(t.threads), "--preset", MTK_PRESETS[t.tool], "-o", str(out)]

    def run(self, t: Tool, case: Case, k: int, seed: int, mode: str,
            hgr: checker.Hgr | checker.MetisGraph | Callable[[], Any]) -> Run:
        """One run, then the check of its partition against ``hgr``, the checker's reading of
        the input (or a function giving it, called once the run has ended: a reading made
        while the run goes on)."""
        a = self.args
        r = Run(case.name, k, seed, t.label, t.tool, t.threads, t.backend or None, mode,
                worker=self.worker, threads_used=self.threads(t))
        stem = f"{case.name}.k{k}.s{seed}.{t.label}.{mode}{self.tag}"
        out = self.parts_dir / f"{stem}.part"
        result = self.parts_dir / f"{stem}.result.json"
        log = self.parts_dir / f"{stem}.log"
        for p in (out, result):
            p.unlink(missing_ok=True)
        if mode == "inproc":
            spec = {"tool": t.tool, "file": case.path, "k": k, "epsilon": a.epsilon,
                    "objective": a.objective, "seed": seed, "threads": r.threads_used,
                    "backend": t.backend, "config": a.variants.get(t.variant, {}),
                    "warmup": a.warmup, "warmup_per": a.warmup_per, "output": str(out),
                    "result": str(result)}
            r.command = self.worker_cmd(spec)
        else:
            r.command = self.process_cmd(t, case, k, seed, out)
        persistent = self.server is not None and mode == "inproc" and t.tool == "igpart"
        r.isolate = "worker" if persistent else "run"
        if persistent:
            r.command = [*self.server.command, json.dumps(spec)]
            child = self.server.run(spec, a.timeout, log)
        else:
            env = dict(self.env(r.threads_used), **{LAUNCHED_ENV: repr(time.time())})
            if self._spawner is None:
                self._spawner = Spawner()
            child = self._spawner.run(r.command, env, a.timeout, log)
        code = child["code"]
        r.wall_seconds = child["wall"]
        r.rss_peak_kib = child["maxrss_kib"]
        ok = code == 0 or (mode == "process" and t.tool == "igpart" and code == 3)  # unbalanced
        if child["timed_out"]:
            r.error = f"timed out after {a.timeout:g} s"
        elif child.get("error"):
            r.error = child["error"]
        elif not ok:
            r.error = f"exit status {code}: {_tail(log)}"
        else:
            try:
                self._collect(r, mode, result, log)
            except (OSError, ValueError, KeyError, IndexError) as exc:
                r.error = f"no result from the run ({exc}): {_tail(log)}"
        if child.get("start_seconds") is not None:  # persistent: 0.0 unless started for it
            r.start_seconds = child["start_seconds"]
        if callable(hgr):
            hgr = hgr()
        if r.error is None:
            t0 = time.perf_counter()
            try:
                c = checker.check_files(hgr, out, k, a.epsilon)
            except checker.CheckError as exc:
                c = {"valid": False, "problems": [str(exc)]}
            r.cut, r.km1 = c.get("cut"), c.get("km1")
            r.imbalance, r.balanced = c.get("imbalance"), c.get("balanced")
            r.problems = list(c["problems"])
            for name in ("cut", "km1"):
                mine, theirs = getattr(r, name), getattr(r, f"tool_{name}")
                if mine is not None and theirs is not None and mine != theirs:
                    r.problems.append(f"{name} {mine} by the checker, {theirs} by the tool")
            r.valid = not r.problems
            r.check_seconds = time.perf_counter() - t0
        if not a.keep_parts:
            for p in (out, result, log):
                p.unlink(missing_ok=True)
        return r

    @staticmethod
    def _collect(r: Run, mode: str, result: Path, log: Path) -> None:
        if mode == "inproc":
            d = json.loads(result.read_text())
            r.seconds = d["seconds"]
            for key in ("timings", "rss_after_read_kib", "gpu_pool_bytes", "gpu_used_bytes",
                        "used_backend", "start_seconds", "read_seconds", "warmup_seconds",
                        "cached_input"):
                if d.get(key) is not None:
                    setattr(r, key, d[key])
        else:
            lines = [ln for ln in log.read_text(errors="replace").splitlines()
                     if ln.startswith("{")]
            d = json.loads(lines[-1])
            r.seconds = r.wall_seconds
            if d.get("backend"):
                r.used_backend = d["backend"]
        r.tool_cut, r.tool_km1 = int(d["cut"]), int(d["km1"])


# ------------------------------------------------------------------------------------ worker
def peak_rss_kib() -> int:
    """This process's peak resident memory (KiB): VmHWM on Linux (the high-water mark of its
    own image, unlike ``ru_maxrss``, which starts from the size of the process it was forked
    from), ``ru_maxrss`` elsewhere."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def is_graph_file(path: str) -> bool:
    """A METIS graph (``.graph``), not an hMETIS hypergraph."""
    return Path(path).suffix.lower() == ".graph"


#: Environment variable holding the time (``time.time()``) a run process was launched, so that
#: the process can tell its start-up time (interpreter, imports, device context).
LAUNCHED_ENV = "IGPART_SUITE_LAUNCHED"


def start_seconds() -> float | None:
    """Seconds since this process was launched (``LAUNCHED_ENV``; None when unset)."""
    launched = os.environ.get(LAUNCHED_ENV)
    return None if not launched else max(0.0, time.time() - float(launched))


def on_gpu(spec: dict, h=None) -> bool:
    """Whether an igpart run partitions on the GPU: backend ``gpu``, or ``auto`` with a usable
    GPU and an input ``h`` (None: any) of the size from which auto takes it (CuPy is imported
    only then)."""
    from igpart.kernels import AUTO_GPU_MIN_PINS, gpu_status, input_pins

    backend = spec["backend"]
    if backend == "auto" and h is not None and input_pins(h) < AUTO_GPU_MIN_PINS:
        return False
    return backend == "gpu" or (backend == "auto" and gpu_status()[0])


def wants_warmup(spec: dict, h=None) -> bool:
    """Whether an igpart run makes an untimed call first (``--warmup``; auto: on the GPU,
    :func:`on_gpu`)."""
    warm = spec.get("warmup", "auto")
    return warm == "on" or (warm == "auto" and on_gpu(spec, h))


def preload_igpart() -> None:
    """Imports the modules igpart's first partitioning call would import (``import igpart``
    loads its submodules on first use: the partitioner, the C++ backend with METIS; about 0.1 s
    on the 2-core VM), so that the timed call leaves them out as Mt-KaHyPar's leaves out
    ``import mtkahypar`` and ``mtkahypar.initialize``; they count in the start-up seconds."""
    import igpart
    import igpart.kernels.cpu  # noqa: F401

    igpart.partition  # noqa: B018 (the partitioner's modules)


CPU_ATTR = "CpuBackend."  # a variant's key naming a C++ backend class attribute


def split_variant(overrides: dict) -> tuple[dict, dict]:
    """A variant's Config overrides and its ``CpuBackend.NAME`` attributes (by NAME)."""
    attrs = {k[len(CPU_ATTR):]: v for k, v in overrides.items() if k.startswith(CPU_ATTR)}
    return {k: v for k, v in overrides.items() if not k.startswith(CPU_ATTR)}, attrs


def partition_call(h, spec: dict):
    """igpart's partitioning call of a run (``spec``: k, epsilon, objective, seed, threads,
    backend, config; the config's ``CpuBackend.NAME`` keys set those class attributes for the
    call) on the input ``h``."""
    import igpart
    from igpart.kernels import _cpu
    from igpart.kernels.cpu import CpuBackend

    _cpu.set_num_threads(int(spec["threads"]))
    config, attrs = split_variant(spec["config"])
    before = {name: getattr(CpuBackend, name) for name in attrs}
    try:
        for name, value in attrs.items():
            setattr(CpuBackend, name, value)
        return igpart.partition(h, int(spec["k"]), float(spec["epsilon"]), spec["objective"],
                                backend=spec["backend"], seed=int(spec["seed"]), config=config)
    finally:
        for name, value in before.items():
            setattr(CpuBackend, name, value)


def igpart_run(h, spec: dict, warmup: bool, free0: int | None = None) -> dict[str, Any]:
    """The timed igpart call of a run on ``h`` (after an untimed one when ``warmup``); writes
    the partition file; returns the result's figures. ``free0``: the free device memory to
    count the device memory taken from (default: measured now, before the warm-up)."""
    from igpart.io import write_partition

    res: dict[str, Any] = {}
    cp = None
    if on_gpu(spec, h):
        import cupy as cp

        if free0 is None:
            free0 = cp.cuda.runtime.memGetInfo()[0]
    if warmup:  # module compilation / cache load
        t0 = time.perf_counter()
        partition_call(h, spec)
        res["warmup_seconds"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    p = partition_call(h, spec)
    res["seconds"] = time.perf_counter() - t0
    if cp is not None:
        cp.cuda.Device().synchronize()
        res["gpu_pool_bytes"] = int(cp.get_default_memory_pool().total_bytes())
        res["gpu_used_bytes"] = int(free0 - cp.cuda.runtime.memGetInfo()[0])
    write_partition(p.parts, spec["output"])
    res.update(cut=int(p.cut), km1=int(p.km1), timings=dict(p.timings), used_backend=p.backend)
    return res


def worker(spec: dict) -> int:
    """Child process: read the input, time the partitioning call, write the partition file and
    a JSON result (seconds, the tool's own cut and km1, per-phase times, peak memory; igpart:
    the start-up, read and warm-up seconds)."""
    threads = int(spec["threads"])
    k, eps, seed = int(spec["k"]), float(spec["epsilon"]), int(spec["seed"])
    res: dict[str, Any] = {}
    if spec["tool"] == "igpart":
        import igpart
        from igpart.kernels import get_backend

        if spec["backend"] == "gpu":
            get_backend("gpu")  # BackendUnavailable with the reason
        preload_igpart()
        res["start_seconds"] = start_seconds()
        t0 = time.perf_counter()
        h = igpart.read(spec["file"])  # .hgr or .graph by suffix
        if isinstance(h, igpart.Hypergraph):
            # the vertex -> net incidence, which Mt-KaHyPar's reader builds too (outside its
            # timed call); a GPU run's warm-up call would otherwise build it untimed and a
            # C++ run's timed call pay for it
            _ = h.vptr
        res["read_seconds"] = time.perf_counter() - t0
        res["rss_after_read_kib"] = peak_rss_kib()
        res.update(igpart_run(h, spec, wants_warmup(spec, h)))
    elif spec["tool"] == "kaminpar":
        import kaminpar

        g = kaminpar.load_graph(spec["file"], kaminpar.GraphFileFormat.METIS)
        res["rss_after_read_kib"] = peak_rss_kib()
        kaminpar.reseed(seed)
        solver = kaminpar.KaMinPar(threads, kaminpar.default_context())
        t0 = time.perf_counter()
        parts = solver.compute_partition(g, k, eps)
        res["seconds"] = time.perf_counter() - t0
        Path(spec["output"]).write_text("".join(f"{b}\n" for b in parts))
        cut = int(kaminpar.edge_cut(g, parts))
        res.update(cut=cut, km1=cut)
    else:
        import mtkahypar

        init = mtkahypar.initialize(threads)
        mtkahypar.set_seed(seed)
        preset = getattr(mtkahypar.PresetType, MTK_PRESETS[spec["tool"]].upper())
        ctx = init.context_from_preset(preset)
        graph = is_graph_file(spec["file"])
        # graphs: the edge cut, which Mt-KaHyPar's graph mode optimises as CUT (km1 equals it)
        obj = (mtkahypar.Objective.CUT if spec["objective"] == "cut" or graph
               else mtkahypar.Objective.KM1)
        ctx.set_partitioning_parameters(k, eps, obj)
        ctx.logging = False
        if graph:
            hg = init.graph_from_file(spec["file"], ctx, mtkahypar.FileFormat.METIS)
        else:
            hg = init.hypergraph_from_file(spec["file"], ctx, mtkahypar.FileFormat.HMETIS)
        res["rss_after_read_kib"] = peak_rss_kib()
        t0 = time.perf_counter()
        p = hg.partition(ctx)
        res["seconds"] = time.perf_counter() - t0
        p.write_partition_to_file(spec["output"])
        res.update(cut=int(p.cut()), km1=int(p.km1()))
    Path(spec["result"]).write_text(json.dumps(res))
    return 0


# ------------------------------------------------------------------------------------ report
def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def case_means(runs: list[dict], objective: str) -> dict[tuple, dict[str, Any]]:
    """Per (case, k, label): mean objective (checker's) and seconds over the seeds, mean
    whole-process seconds, peak memory, seeds run and seeds with a result."""
    groups: dict[tuple, dict[str, list]] = {}
    for r in runs:
        g = groups.setdefault((r["case"], r["k"], r["label"]),
                              {"inproc": [], "process": [], "all": []})
        g["all"].append(r)
        if r["error"] is None and r.get(objective) is not None:
            g[r["mode"]].append(r)
    out = {}
    for key, g in groups.items():
        ins, procs = g["inproc"], g["process"]
        out[key] = {
            "obj": _mean([r[objective] for r in ins]),
            "seconds": _mean([r["seconds"] for r in ins]),
            "process_seconds": _mean([r["seconds"] for r in procs]),
            "rss_mib": max((r["rss_peak_kib"] / 1024 for r in ins if r["rss_peak_kib"]),
                           default=None),
            "gpu_mib": max((r["gpu_used_bytes"] / 2**20 for r in ins
                            if r.get("gpu_used_bytes") is not None), default=None),
            "seeds": len([r for r in g["all"] if r["mode"] == "inproc"]),
            "ok": len(ins),
            "flagged": any(r["error"] is None and not r["valid"] for r in g["all"]),
        }
    return out


def _worst(vals: list[tuple[float, str]], high_is_bad: bool) -> tuple[float, str] | None:
    if not vals:
        return None
    return max(vals) if high_is_bad else min(vals)


def pair_summary(means: dict, a: str, b: str, what: str = "peer") -> dict[str, Any]:
    """``a`` against ``b`` (labels) per case: cut ratio a/b and speedup b/a (in-process and
    whole-process time); per k and overall the geomeans and the worst cases."""
    from igpart.bench import geomean, ratio

    cases = sorted({(c, k) for c, k, _ in means})
    rows = []
    for c, k in cases:
        x, y = means.get((c, k, a)), means.get((c, k, b))
        if not x or not y or x["obj"] is None or y["obj"] is None:
            continue
        rows.append({"case": c, "k": k, "cut_ratio": ratio(x["obj"], y["obj"]),
                     "speedup": ratio(y["seconds"], x["seconds"]),
                     "process_speedup": ratio(y["process_seconds"], x["process_seconds"])})
    by_k: dict[str, Any] = {}
    for k in [*sorted({r["k"] for r in rows}), "all"]:
        sel = [r for r in rows if k == "all" or r["k"] == k]
        cr = [(r["cut_ratio"], f"{r['case']} k={r['k']}") for r in sel
              if r["cut_ratio"] is not None]
        sp = [(r["speedup"], f"{r['case']} k={r['k']}") for r in sel if r["speedup"]]
        by_k[str(k)] = {
            "cases": len(sel),
            "cut_ratio_geomean": geomean([v for v, _ in cr]),
            "cut_ratio_worst": _worst(cr, True),
            "speedup_geomean": geomean([v for v, _ in sp]),
            "speedup_worst": _worst(sp, False),
            "process_speedup_geomean": geomean([r["process_speedup"] for r in sel]),
        }
    return {"a": a, "b": b, "what": what, "rows": rows, "by_k": by_k}


def worker_summary(runs: list[dict]) -> list[dict[str, Any]]:
    """Per worker (``"serial"`` without a cluster), what its runs paid besides their timed
    calls: igpart's process start-ups (count, seconds), input reads and warm-up calls; and the
    seconds of all its runs' timed calls, of the runs start to end (``busy``) and of the
    checker."""
    rows: dict[str, dict[str, Any]] = {}
    for r in runs:
        w = rows.setdefault(r.get("worker") or "serial", {
            "worker": r.get("worker") or "serial", "runs": 0, "starts": 0, "start_seconds": 0.0,
            "reads": 0, "read_seconds": 0.0, "warmups": 0, "warmup_seconds": 0.0,
            "timed_seconds": 0.0, "busy_seconds": 0.0, "check_seconds": 0.0,
            "checker_read_seconds": 0.0})
        w["runs"] += 1
        if r.get("start_seconds"):
            w["starts"] += 1
            w["start_seconds"] += r["start_seconds"]
        if r.get("read_seconds") is not None and not r.get("cached_input"):
            w["reads"] += 1
            w["read_seconds"] += r["read_seconds"]
        if r.get("warmup_seconds") is not None:
            w["warmups"] += 1
            w["warmup_seconds"] += r["warmup_seconds"]
        for key, name in (("timed_seconds", "seconds"), ("busy_seconds", "wall_seconds"),
                          ("check_seconds", "check_seconds"),
                          ("checker_read_seconds", "checker_read_seconds")):
            w[key] += r.get(name) or 0.0
    return sorted(rows.values(), key=lambda w: w["worker"])


def _thread_pairs(result: dict) -> list[tuple[int, int]]:
    threads = sorted(set(result["meta"]["threads"]))
    if result["meta"].get("compare"):
        return [tuple(result["meta"]["compare"])]
    return [(threads[0], t) for t in threads[1:]]


def summarize(result: dict) -> dict[str, Any]:
    """The figures of the markdown report, JSON-ready."""
    meta = result["meta"]
    means = case_means(result["runs"], meta["objective"])
    labels = result["labels"]
    by_label = {lab: Tool(**t) for lab, t in labels.items()}
    first_variant = next((t.variant for t in by_label.values() if t.tool == "igpart"), "")
    pairs = []
    for lab, t in by_label.items():
        if t.tool != "igpart":
            continue
        for lab2, t2 in by_label.items():
            if t2.threads != t.threads:
                continue
            if t2.tool != "igpart":
                pairs.append(pair_summary(means, lab, lab2, "peer"))
            elif (t.variant, t.backend, t2.backend) == (t2.variant, "gpu", "cpu"):
                pairs.append(pair_summary(means, lab, lab2, "backend"))
            elif (t.backend == t2.backend and t2.variant == first_variant
                  and t.variant != first_variant):
                pairs.append(pair_summary(means, lab, lab2, "variant"))
    scaling = []
    for lo, hi in _thread_pairs(result):
        for t in by_label.values():
            if t.tool == "igpart" and t.threads == lo:
                hi_label = Tool(t.tool, hi, t.backend, t.variant).label
                if hi_label in labels:
                    scaling.append(pair_summary(means, hi_label, t.label, "threads"))
    phases: dict[str, dict[str, float]] = {}
    for r in result["runs"]:
        if r["mode"] == "inproc" and r["error"] is None and r["timings"]:
            ph = phases.setdefault(r["label"], {})
            n_seeds = max(1, meta["seeds"])
            for name, sec in r["timings"].items():
                ph[name] = ph.get(name, 0.0) + sec / n_seeds
    flagged = [r for r in result["runs"] if r["error"] is None and not r["valid"]]
    failed = [r for r in result["runs"] if r["error"] is not None]
    return {"means": {"|".join(map(str, key)): v for key, v in means.items()},
            "pairs": pairs, "scaling": scaling, "phases": phases,
            "workers": worker_summary(result["runs"]),
            "flagged": len(flagged), "failed": len(failed)}


def _f(x: float | None, fmt: str = ".3f") -> str:
    return "–" if x is None else format(x, fmt)


def _worst_cell(w: tuple[float, str] | list | None, fmt: str, suffix: str = "") -> str:
    return "–" if not w else f"{format(w[0], fmt)}{suffix} ({w[1]})"


def markdown(result: dict) -> str:
    """The report (see the module docstring)."""
    meta = result["meta"]
    obj = meta["objective"]
    s = summarize(result)
    means = case_means(result["runs"], obj)
    labels = list(result["labels"])
    whole = meta["whole_process"]
    gpu = any(v["gpu_mib"] is not None for v in means.values())
    out = [f"# igpart benchmark suite: {', '.join(meta['suite'])}", ""]
    out.append(f"- date {meta['date']}; {meta['cpu']}, {meta['cores']} cores ({meta['host']}); "
               f"Python {meta['python']}; commit {meta['commit']}")
    if meta.get("gpu"):
        out.append(f"- GPU: {meta['gpu']}")
    if meta.get("loadavg_start"):
        out.append(f"- load average (1, 5, 15 min) at the start {meta['loadavg_start']}, at the "
                   f"end {meta.get('loadavg_end')}")
    out.append(f"- epsilon {meta['epsilon']}, objective {obj}, seeds 0..{meta['seeds'] - 1}, "
               f"threads {','.join(map(str, meta['threads']))}, timeout {meta['timeout']:g} s; "
               f"versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()))
    out.append(f"- command: `{meta['command']}`")
    if meta.get("wall_seconds") is not None:
        threads = ", ".join(f"{n} on {h}" for h, n in (meta.get("worker_threads") or {}).items())
        where = (f"on the cluster {meta['cluster']} ({meta.get('cluster_workers', '?')} workers"
                 f"; threads per worker at most {threads}), igpart's runs "
                 + {"worker": "in a persistent process per worker",
                    "run": "each in a fresh process"}.get(meta.get("isolate"), "")
                 if meta.get("cluster") else "serially, each run in a fresh process")
        if meta.get("cluster_start_seconds") is not None:
            where += f"; the cluster up and answering after {meta['cluster_start_seconds']:.1f} s"
        out.append(f"- whole wall time {meta['wall_seconds']:.1f} s, {where}")
        if meta.get("phases"):
            out.append("- of it (seconds): " + ", ".join(
                f"{PHASE_NAMES.get(n, n)} {v:.2f}" for n, v in meta["phases"].items()))
    out.append("- igpart warm-up call before the timed one: " + {
        "auto": "on the GPU only", "on": "always", "off": "never"}[meta["warmup"]]
        + ("; once per worker (its first input)" if meta.get("warmup_per") == "worker"
           else ""))
    for note in meta.get("notes", []):
        out.append(f"- note: {note}")
    out += ["", f"Per case: mean over seeds of the {obj} (recomputed by the checker), of the "
            "in-process seconds (the partitioning call; reading excluded)"
            + (", of the whole-process seconds (the command, start to exit)" if whole else "")
            + ", and the peak resident memory of the worker (MiB)"
            + (" and the device memory it took (GPU MiB)" if gpu else "")
            + ". Ratios: cut ratio = igpart / peer (< 1: igpart better), speedup = peer time / "
            "igpart time (> 1: igpart faster). `!`: a flagged partition, `(i/n)`: seeds with a "
            "result.", ""]
    peer_pairs = [p for p in s["pairs"]]
    head = ["case", "k"]
    for lab in labels:
        head += [f"{lab} {obj}", f"{lab} s"] + (["proc s"] if whole else []) + ["MiB"] \
            + (["GPU MiB"] if gpu else [])
    for p in peer_pairs:
        head += [f"{obj} {p['a']}/{p['b']}", "speedup"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|---|---:|" + "---:|" * (len(head) - 2))
    cases = []
    for c in result["cases"]:
        for k in sorted({r["k"] for r in result["runs"] if r["case"] == c["name"]}):
            cases.append((c["name"], k))
    ratios = {(p["a"], p["b"], r["case"], r["k"]): r for p in peer_pairs for r in p["rows"]}
    for c, k in cases:
        cells = [c, str(k)]
        for lab in labels:
            m = means.get((c, k, lab))
            if m is None:
                cells += ["–"] * (4 + whole + gpu - 1)
                continue
            val = "failed" if m["obj"] is None else f"{m['obj']:.1f}".removesuffix(".0")
            if m["flagged"]:
                val += " !"
            if m["ok"] < m["seeds"]:
                val += f" ({m['ok']}/{m['seeds']})"
            cells += [val, _f(m["seconds"])] + ([_f(m["process_seconds"], ".2f")] if whole
                                                else [])
            cells += [_f(m["rss_mib"], ".0f")] + ([_f(m["gpu_mib"], ".0f")] if gpu else [])
        for p in peer_pairs:
            r = ratios.get((p["a"], p["b"], c, k))
            cells += [_f(r and r["cut_ratio"]), _f(r and r["speedup"], ".2f")]
        out.append("| " + " | ".join(cells) + " |")
    titles = {"peer": "{a} vs {b}", "backend": "{a} vs {b} (GPU vs C++ backend)",
              "variant": "{a} vs {b} (igpart variants)",
              "threads": "self-speedup {b} -> {a}"}
    for p in [*s["pairs"], *s["scaling"]]:
        out += ["", "## " + titles[p["what"]].format(a=p["a"], b=p["b"]), ""]
        ratio_name = (f"{obj} ratio {p['a']}/{p['b']}")
        out.append(f"| k | cases | {ratio_name} geomean | worst | speedup geomean | worst"
                   + (" | whole-process speedup geomean" if whole else "") + " |")
        out.append("|---|---:|---:|---|---:|---" + ("|---:" if whole else "") + "|")
        for k, g in p["by_k"].items():
            row = [k, str(g["cases"]), _f(g["cut_ratio_geomean"]),
                   _worst_cell(g["cut_ratio_worst"], ".3f"),
                   _f(g["speedup_geomean"], ".2f") + ("x" if g["speedup_geomean"] else ""),
                   _worst_cell(g["speedup_worst"], ".2f", "x")]
            if whole:
                row.append(_f(g["process_speedup_geomean"], ".2f")
                           + ("x" if g["process_speedup_geomean"] else ""))
            out.append("| " + " | ".join(row) + " |")
    if s["phases"]:
        out += ["", "## igpart per-phase seconds (Partition.timings; sum over the cases of the "
                "mean over seeds; phases may nest)", ""]
        names = sorted({n for ph in s["phases"].values() for n in ph})
        out.append("| phase | " + " | ".join(s["phases"]) + " |")
        out.append("|---|" + "---:|" * len(s["phases"]))
        for n in names:
            out.append(f"| {n} | " + " | ".join(_f(ph.get(n), ".2f")
                                                for ph in s["phases"].values()) + " |")
    if any(w["starts"] or w["reads"] for w in s["workers"]):
        out += ["", "## Per worker: what the runs paid besides the timed call (seconds)",
                "", "Of igpart's in-process runs: start-ups, the processes started (interpreter, "
                "imports, device context); reads and warm-ups, the inputs read and the untimed "
                "calls made. Of all runs: timed, the partitioning calls; busy, the runs start "
                "to end; check, the checker; checker reads, its reads of the inputs (made while "
                "the runs go on).", "",
                "| worker | runs | start-ups | start-up s | reads | read s | warm-ups | "
                "warm-up s | timed s | busy s | check s | checker reads s |",
                "|---|" + "---:|" * 11]
        for w in s["workers"]:
            out.append(f"| {w['worker']} | {w['runs']} | {w['starts']} | "
                       f"{w['start_seconds']:.2f} | {w['reads']} | {w['read_seconds']:.2f} | "
                       f"{w['warmups']} | {w['warmup_seconds']:.2f} | {w['timed_seconds']:.2f} "
                       f"| {w['busy_seconds']:.2f} | {w['check_seconds']:.2f} | "
                       f"{w.get('checker_read_seconds', 0.0):.2f} |")
    bad = [r for r in result["runs"] if r["error"] is not None or not r["valid"]]
    out += ["", f"Runs: {len(result['runs'])}; flagged partitions (invalid, unbalanced or a "
            f"figure that differs from the checker's): {s['flagged']}; failed runs: "
            f"{s['failed']}."]
    for r in bad[:50]:
        why = r["error"] or "; ".join(r["problems"])
        out.append(f"- {r['case']} k={r['k']} seed {r['seed']} {r['label']} ({r['mode']}): "
                   f"{why}")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------ main
def _int_list(text: str, what: str, low: int) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SuiteError(f"{what}: expected a comma list of integers, got '{text}'") from None
    if not vals or min(vals) < low:
        raise SuiteError(f"{what}: expected integers >= {low}, got '{text}'")
    return sorted(set(vals))


def _names(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    vals = [x.strip() for x in text.split(",") if x.strip()]
    bad = [v for v in vals if v not in allowed]
    if bad or not vals:
        raise SuiteError(f"unknown {what} '{','.join(bad) or text}' (choose from "
                         f"{', '.join(allowed)})")
    return list(dict.fromkeys(vals))


def _variants(text: str | None) -> dict[str, dict[str, Any]]:
    """``--variants``: a JSON object of named Config overrides, each checked by igpart."""
    if not text:
        return {"": {}}
    from igpart import Config
    from igpart.errors import InputError

    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteError(f"--variants: invalid JSON ({exc.msg})") from None
    if not isinstance(d, dict) or not d or not all(isinstance(v, dict) for v in d.values()):
        raise SuiteError("--variants: expected a JSON object of name -> Config overrides")
    from igpart.kernels.cpu import CpuBackend

    for name, overrides in d.items():
        if not name or not all(c.isalnum() or c in "_.-" for c in name):
            raise SuiteError(f"--variants: name '{name}' must be letters, digits, _ . -")
        config, attrs = split_variant(overrides)
        for attr, value in attrs.items():
            have = getattr(CpuBackend, attr, None)
            if attr.startswith("_") or not isinstance(have, (int, float)) or callable(have):
                raise SuiteError(f"--variants: {name}: CpuBackend has no number attribute "
                                 f"'{attr}'")
            if not isinstance(value, (int, float)) or isinstance(value, bool) != isinstance(
                    have, bool):
                raise SuiteError(f"--variants: {name}: CpuBackend.{attr} takes a number like "
                                 f"{have!r}, got {value!r}")
        try:
            Config.from_dict(config)
        except (InputError, TypeError) as exc:
            raise SuiteError(f"--variants: {name}: {exc}") from None
    return d


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="suite.py", description=__doc__.splitlines()[0],
        epilog="'suite.py report RUN.json [MORE.json ...] [--md FILE]' prints the report of "
        "earlier runs (several files: one report over all their runs). Exit "
        "status: 0, 1 when a partition is flagged, 2 for a bad argument, 3 when runs failed.")
    ap.add_argument("--suite", default="small", help="small, large, netlist, graphs (comma list)")
    ap.add_argument("--data", help="benchmark data directory (default $IGPART_BENCHMARKS or "
                    "../shared/benchmarks)")
    ap.add_argument("--work", default=os.environ.get("IGPART_SUITE_WORK", "/tmp/igpart_suite"),
                    help="generated inputs and partition files (default /tmp/igpart_suite)")
    ap.add_argument("--cases", help="keep inputs whose name contains one of these (comma list)")
    ap.add_argument("--ks", help="k values (comma list; default per set)")
    ap.add_argument("--limit", type=int, help="at most this many inputs")
    ap.add_argument("--tools", default="igpart,mtkahypar", help=", ".join(TOOLS))
    ap.add_argument("--backend", default="cpu", help="igpart backends: cpu, gpu, auto "
                    "(comma list)")
    ap.add_argument("--variants", help='igpart variants as JSON, name -> Config overrides, e.g. '
                    '\'{"base": {}, "jet": {"refinement": "jet"}}\' (default: one, unnamed)')
    ap.add_argument("--presets", help="igpart presets as variants named after them, e.g. "
                    "speed,default,quality (Config preset; beside any --variants)")
    ap.add_argument("--threads", default="2", help="thread counts (comma list)")
    ap.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1 for every tool")
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", choices=("cut", "km1"), default="cut")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    ap.add_argument("--whole-process", action="store_true",
                    help="also time the whole command of each tool")
    ap.add_argument("--warmup", choices=("auto", "on", "off"), default="auto",
                    help="igpart: one untimed call first (auto: on the GPU only)")
    ap.add_argument("--warmup-per", choices=("input", "worker"), default="input",
                    help="with --isolate worker: the untimed call once per input a worker's run "
                    "process reads (default), or once per worker (its first input, then every "
                    "input's first timed call starts from the read, as a fresh process's "
                    "would without the warm-up call)")
    ap.add_argument("--compare", help="thread counts A,B for igpart's self-speedup")
    ap.add_argument("--gen-seed", type=int, default=0,
                    help="seed of the large inputs and of the random graphs")
    ap.add_argument("--graph-scale", default=",".join(map(str, GRAPH_SCALES)),
                    help="graphs: log2 of the vertices of the delaunay and rgg inputs, a comma "
                    "list such as 16 or 2^16,2^18 (default 20,21,22,23; below 21 the grids "
                    "shrink to about 2^max vertices)")
    ap.add_argument("--large-min-n", type=int, default=2_000_000,
                    help="vertices of every large input at least")
    ap.add_argument("--keep-parts", action="store_true", help="keep partition files and logs")
    ap.add_argument("--cluster", metavar="local[:N]|ADDRESS",
                    help="run on a dask cluster: local (a worker per GPU when several are "
                    "visible, else per 4 cores), local:N or a scheduler address (needs "
                    "igpart[distributed]; see benchmarks/suite_cluster.py)")
    ap.add_argument("--isolate", choices=("run", "worker"),
                    help="--cluster: igpart's runs each in a fresh process (run), or one after "
                    "the other in a persistent process per worker that imports igpart, holds "
                    "the device and caches inputs once (worker; the default with --cluster); "
                    "without --cluster every run is a fresh process")
    ap.add_argument("--no-progress", action="store_true",
                    help="no progress bar (--cluster)")
    ap.add_argument("--inputs-only", action="store_true",
                    help="build the generated inputs (cached in WORK/inputs), print their "
                    "paths and stop (so that a timed run does not build them)")
    ap.add_argument("--build-jobs", type=int, default=1,
                    help="with --inputs-only: build this many inputs at once, each in a process "
                    "of its own (the largest graphs take several GB each)")
    ap.add_argument("--json", help="write every run and the summary to this file")
    ap.add_argument("--md", help="write the markdown report to this file")
    args = ap.parse_args(argv)
    if args.build_jobs < 1:
        ap.error(f"--build-jobs must be at least 1, got {args.build_jobs}")
    args.suite = _names(args.suite, tuple(SET_KS), "suite")
    args.tools = _names(args.tools, TOOLS, "tool")
    args.backend = _names(args.backend, BACKENDS, "backend")
    args.threads = _int_list(args.threads, "--threads", 1)
    args.ks = _int_list(args.ks, "--ks", 2) if args.ks else None
    args.graph_scale = _int_list(args.graph_scale.replace("2^", ""), "--graph-scale", 4)
    if max(args.graph_scale) > 30:
        raise SuiteError(f"--graph-scale: at most 30 (2^30 vertices), got "
                         f"{max(args.graph_scale)}")
    if args.compare:
        try:
            cmp = [int(x) for x in args.compare.split(",")]
        except ValueError:
            cmp = []
        if len(cmp) != 2 or cmp[0] == cmp[1] or not set(cmp) <= set(args.threads):
            raise SuiteError(f"--compare: expected two of the --threads counts as A,B, got "
                             f"'{args.compare}'")
        args.compare = cmp
    args.variants = _variants(args.variants)
    if args.whole_process and any(split_variant(v)[1] for v in args.variants.values()):
        raise SuiteError("--whole-process: the command a user runs has no CpuBackend "
                         "attributes; leave the CpuBackend.NAME keys out of --variants")
    if args.presets:
        from igpart.presets import PRESETS

        named = {name: {"preset": name} for name in _names(args.presets, tuple(PRESETS),
                                                            "preset")}
        clash = sorted(set(named) & set(args.variants))
        if clash:
            raise SuiteError(f"--presets: variant '{clash[0]}' is also in --variants")
        args.variants = {**({} if args.variants == {"": {}} else args.variants), **named}
    if args.isolate == "worker" and not args.cluster:
        raise SuiteError("--isolate worker needs --cluster (without it every run is a fresh "
                         "process)")
    args.isolate = args.isolate or ("worker" if args.cluster else "run")
    if args.warmup_per == "worker" and args.isolate != "worker":
        raise SuiteError("--warmup-per worker needs --isolate worker (a --cluster)")
    if args.seeds < 1:
        raise SuiteError(f"--seeds must be >= 1, got {args.seeds}")
    if args.limit is not None and args.limit < 1:
        raise SuiteError(f"--limit must be >= 1, got {args.limit}")
    if not (math.isfinite(args.epsilon) and args.epsilon >= 0):
        raise SuiteError(f"--epsilon must be a non-negative number, got {args.epsilon}")
    if not args.timeout > 0:
        raise SuiteError(f"--timeout must be positive, got {args.timeout}")
    if args.large_min_n < 1:
        raise SuiteError(f"--large-min-n must be >= 1, got {args.large_min_n}")
    return args


def _versions(tools: list[str]) -> dict[str, str]:
    import importlib.metadata as md

    out = {}
    peers = [*(["mtkahypar"] if any(t.startswith("mtk") for t in tools) else []),
             *(["kaminpar"] if "kaminpar" in tools else [])]
    for dist in ("igpart", *peers):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def _commit() -> str | None:
    """The checkout's commit, ``+dirty`` when tracked files differ from it; the
    ``IGPART_COMMIT`` environment variable for a tree exported without its history (``git
    archive``); None without either (a tree inside another repository is not that
    repository's commit)."""
    if os.environ.get("IGPART_COMMIT"):
        return os.environ["IGPART_COMMIT"]
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=REPO,
                             capture_output=True, text=True, timeout=30)
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != REPO.resolve():
            return None
        r = subprocess.run(["git", "describe", "--always", "--dirty=+dirty"], cwd=REPO,
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() or None


def _loadavg() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (other work on the machine skews the times)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _gpu_name() -> str | None:
    try:
        import cupy as cp

        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # no CuPy, no device or no driver: no GPU to name
        return None


def select_cases(args: argparse.Namespace, data: Path, work: Path) -> list[Case]:
    subs = [x.strip() for x in (args.cases or "").split(",") if x.strip()]

    def keep(name: str) -> bool:
        return not subs or any(x in name or x.startswith(f"{name}x") for x in subs)

    cases = [c for s in args.suite
             for c in set_cases(s, data, work, keep, args.large_min_n, args.gen_seed,
                                args.graph_scale)]
    if not cases:
        raise SuiteError(f"--cases '{args.cases}' matches no input of the suite")
    return cases[: args.limit] if args.limit else cases


def run_suite(args: argparse.Namespace) -> dict:
    """Runs the suite; ``meta["wall_seconds"]``: its whole wall time, inputs built included."""
    from igpart.bench import machine_info

    args.started = time.perf_counter()
    data = data_dir(args.data)
    args.data = str(data)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cases = select_cases(args, data, work)
    notes = []
    for module, name, prefix in (("mtkahypar", "Mt-KaHyPar", "mtkahypar"),
                                 ("kaminpar", "KaMinPar", "kaminpar")):
        if not any(t.startswith(prefix) for t in args.tools):
            continue
        try:
            __import__(module)
        except ImportError:
            args.tools = [t for t in args.tools if not t.startswith(prefix)]
            notes.append(f"{name} is not installed (pip install {module}): left out")
            if not args.tools:
                raise SuiteError(f"no tool left to run ({name} is not installed)") from None
    if any(t in GRAPH_TOOLS for t in args.tools) and any(c.set != "graphs" for c in cases):
        notes.append(f"{', '.join(t for t in args.tools if t in GRAPH_TOOLS)} partitions "
                     "graphs only: left out on the hypergraph inputs")
    tools = [Tool(t, th, b, v) if t == "igpart" else Tool(t, th)
             for th in args.threads for t in args.tools
             for b in (args.backend if t == "igpart" else [""])
             for v in (args.variants if t == "igpart" else [""])]
    meta = {**machine_info(), "suite": args.suite, "data": str(data), "work": str(work),
            "epsilon": args.epsilon, "objective": args.objective, "seeds": args.seeds,
            "threads": args.threads, "backends": args.backend, "tools": args.tools,
            "variants": args.variants,
            "timeout": args.timeout, "whole_process": args.whole_process,
            "warmup": args.warmup, "warmup_per": args.warmup_per, "gen_seed": args.gen_seed,
            "compare": args.compare,
            "isolate": args.isolate,
            "graph_scale": args.graph_scale if "graphs" in args.suite else None,
            "versions": _versions(args.tools), "gpu": _gpu_name(), "notes": notes,
            "loadavg_start": _loadavg()}
    meta["commit"] = os.environ.get("IGPART_COMMIT") or _commit() or meta["commit"]
    result: dict[str, Any] = {"meta": meta, "labels": {t.label: asdict(t) for t in tools},
                              "cases": [], "runs": []}
    modes = ["inproc", "process"] if args.whole_process else ["inproc"]
    plan = [(c, args.ks or SET_KS[c.set]) for c in cases]
    if args.cluster:
        return _run_suite_on_cluster(args, plan, tools, modes, result)
    total = sum(len(ks) for _, ks in plan) * args.seeds * len(tools) * len(modes)
    done = 0
    runner = Runner(args, work)
    try:
        for c, ks in plan:
            materialize(c, data, args.gen_seed)
            hgr = checker.read_input(c.path)
            c.n, c.m = hgr.n, hgr.m
            c.pins = int(hgr.adjncy.size if isinstance(hgr, checker.MetisGraph) else hgr.eptr[-1])
            runnable = [t for t in tools
                        if t.tool not in GRAPH_TOOLS or isinstance(hgr, checker.MetisGraph)]
            result["cases"].append(asdict(c))
            for k in ks:
                if 2 * k > c.n:
                    notes.append(f"{c.name} ({c.n} vertices) left out at k={k}")
                    done += args.seeds * len(tools) * len(modes)
                    continue
                done += args.seeds * (len(tools) - len(runnable)) * len(modes)
                for seed in range(args.seeds):
                    for t, mode in ((t, mode) for t in runnable for mode in modes):
                        r = runner.run(t, c, k, seed, mode, hgr)
                        result["runs"].append(asdict(r))
                        done += 1
                        _log(f"[{done}/{total}] {c.name} k={k} seed={seed} {t.label}"
                             f"{' (whole process)' if mode == 'process' else ''}: "
                             + _outcome(r, args.objective))
            del hgr
            if args.json:
                write_json(result, args.json)
    finally:
        meta["loadavg_end"] = _loadavg()
        meta["wall_seconds"] = time.perf_counter() - args.started
        aborted = sys.exc_info()[0] is not None
        runner.close(abort=aborted)
        if aborted and args.json:
            write_json(result, args.json)  # what was measured before the interruption
    return result


def _run_suite_on_cluster(args: argparse.Namespace, plan: list, tools: list[Tool],
                          modes: list[str], result: dict) -> dict:
    """:func:`run_suite`'s runs on ``args.cluster`` (``benchmarks/suite_cluster.py``)."""
    import suite_cluster

    from igpart.errors import IgpartError

    meta = result["meta"]
    meta["cluster"] = args.cluster
    try:
        suite_cluster.run_on_cluster(args, plan, tools, modes, result, write_json)
    except IgpartError as exc:  # no dask, a bad --cluster, an unreachable scheduler
        raise SuiteError(str(exc)) from None
    finally:
        meta["loadavg_end"] = _loadavg()
        meta["wall_seconds"] = time.perf_counter() - args.started
        if args.json and result["runs"]:
            write_json(result, args.json)
    return result


def _outcome(r: Run, objective: str) -> str:
    if r.error:
        return r.error
    return (f"{objective} {getattr(r, objective)} {r.seconds:.3f} s"
            + ("" if r.valid else " FLAGGED: " + "; ".join(r.problems)))


def merge_results(results: list[dict], names: list[str]) -> dict:
    """Several stored runs (``--json`` files, ``names``) as one result, for one report over all
    of them (``suite.py report A.json B.json ...``): their runs and inputs together, the tools'
    labels in order of first appearance, the machine of the first file. The files must share
    the objective and epsilon, and no (input, k, label, seed, mode) may be in two of them; the
    header lists every file's commit and command, the wall time is their sum."""
    metas = [r["meta"] for r in results]
    for key in ("objective", "epsilon"):
        values = {str(m[key]) for m in metas}
        if len(values) > 1:
            raise SuiteError(f"report: the files differ in {key} ({', '.join(sorted(values))})")
    seen: dict[tuple, str] = {}
    runs, cases, labels = [], {}, {}
    for result, name in zip(results, names):
        for r in result["runs"]:
            key = (r["case"], r["k"], r["label"], r["seed"], r["mode"])
            if key in seen:
                raise SuiteError(f"report: {r['case']} k = {r['k']} {r['label']} seed "
                                 f"{r['seed']} is in both {seen[key]} and {name}")
            seen[key] = name
            runs.append(r)
        for c in result["cases"]:
            cases.setdefault(c["name"], c)
        for lab, tool in result["labels"].items():
            labels.setdefault(lab, tool)
    meta = dict(metas[0])
    commits = list(dict.fromkeys(str(m["commit"]) for m in metas))
    meta.update(
        commit=", ".join(commits),
        command="; ".join(str(m["command"]) for m in metas),
        suite=list(dict.fromkeys(s for m in metas for s in m["suite"])),
        threads=sorted({t for m in metas for t in m["threads"]}),
        seeds=max(int(m["seeds"]) for m in metas),
        whole_process=any(m["whole_process"] for m in metas),
        wall_seconds=(sum(m["wall_seconds"] for m in metas)
                      if all(m.get("wall_seconds") is not None for m in metas) else None),
        loadavg_start=None, loadavg_end=None, phases=None,
        notes=[f"{len(names)} stored runs in one report: "
               + "; ".join(f"{n} ({m['date']}, commit {m['commit']})"
                           for n, m in zip(names, metas))]
        + [note for m in metas for note in m.get("notes", [])],
    )
    return {"meta": meta, "labels": labels, "cases": list(cases.values()), "runs": runs}


def write_json(result: dict, path: str) -> None:
    doc = {**result, "summary": summarize(result)}
    tmp = Path(f"{path}.tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str))
    tmp.replace(path)


def _terminated(signum, frame) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, _terminated)  # the runs in progress are killed, JSON kept
    if argv[:1] == ["_worker"]:
        try:
            return worker(json.loads(argv[1]))
        except Exception as exc:  # the parent records this line as the run's error
            print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
    try:
        if argv[:1] == ["report"]:
            ap = argparse.ArgumentParser(prog="suite.py report")
            ap.add_argument("json", nargs="+", help="stored runs (--json); several make one "
                            "report of all their runs")
            ap.add_argument("--md")
            a = ap.parse_args(argv[1:])
            stored = []
            for path in a.json:
                try:
                    stored.append(json.loads(Path(path).read_text()))
                except (OSError, json.JSONDecodeError) as exc:
                    raise SuiteError(f"{path}: {exc}") from None
            result = stored[0] if len(stored) == 1 else merge_results(stored, a.json)
        else:
            a = parse_args(argv)
            if a.inputs_only:
                data = data_dir(a.data)
                build_inputs(select_cases(a, data, Path(a.work)), data, a.gen_seed, a.build_jobs)
                return 0
            result = run_suite(a)
            if a.json:
                write_json(result, a.json)
    except SuiteError as exc:
        print(f"suite.py: error: {exc}", file=sys.stderr)
        return 2
    md = markdown(result)
    print(md, end="")
    if a.md:
        Path(a.md).write_text(md)
    s = summarize(result)
    return 1 if s["flagged"] else 3 if s["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
