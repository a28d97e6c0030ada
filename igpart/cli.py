"""The ``igpart`` command. Errors print as one line without a traceback and exit non-zero."""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import re
import sys
import threading
import time

import numpy as np

from . import __version__
from .errors import IgpartError, InputError
from .hypergraph import Graph, Hypergraph
from .io import atomic_write, detect_format, read, read_fixed, read_partition, write_partition
from .kernels import BACKENDS
from .metrics import OBJECTIVES, evaluate
from .partition import Partition
from .partitioner.api import improve, partition
from .partitioner.config import ALGORITHMS, Config
from .presets import PRESETS
from .stats import describe

log = logging.getLogger("igpart")


# --------------------------------------------------------------------------- helpers
class Progress:
    """Phase names on stderr while a command runs. With ``-v`` each phase is logged as it starts;
    otherwise, when stderr is a terminal and the command has run :attr:`DELAY` seconds, one status
    line (``igpart: partitioning ibm01.hgr (k = 8) ... 3.5 s``) is rewritten in place until the
    command prints its result, then erased. Nothing goes to stdout (``--json`` stays clean)."""

    DELAY = 2.0
    INTERVAL = 0.25

    def __init__(self, verbose: bool = False, stream=None, delay: float | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.verbose = verbose
        self.delay = self.DELAY if delay is None else delay
        isatty = getattr(self.stream, "isatty", None)
        self.live = not verbose and bool(isatty and isatty())
        self.start = time.perf_counter()
        self.name = ""
        self.shown = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def phase(self, name: str) -> None:
        """A new phase starts (``reading x.hgr``, ``partitioning``, ...)."""
        self.name = name
        if self.verbose:
            log.info("%s", name)
        elif self.live and self._thread is None and not self._stop.is_set():
            self._thread = threading.Thread(target=self._run, name="igpart-progress", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.INTERVAL):
            self.draw()

    def draw(self) -> None:
        """Rewrites the status line (once the command has run ``delay`` seconds)."""
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay:
            return
        with self._lock:
            if self._stop.is_set():
                return
            self.stream.write(f"\r\x1b[Kigpart: {self.name} ... {elapsed:.1f} s")
            self.stream.flush()
            self.shown = True

    def close(self) -> None:
        """Stops and erases the status line (before the command prints its result)."""
        self._stop.set()
        with self._lock:
            if self.shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self.shown = False
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _progress(args) -> Progress:
    p = getattr(args, "progress", None)
    return p if p is not None else Progress()


def _print_table(d: dict, indent: str = "") -> None:
    width = max(len(k) for k in d)
    for key, val in d.items():
        if isinstance(val, dict):
            val = "  ".join(f"{k2} {v2}" for k2, v2 in val.items())
        print(f"{indent}{key.replace('_', ' '):<{width}}  {val}")


def _load(path: str, fmt: str | None):
    kind = detect_format(path, fmt)
    if kind == "verilog":
        raise IgpartError(f"{path}: this command takes a hypergraph or graph file, not Verilog")
    return read(path, kind)


def _read_circuit(args):
    from .netlist import read_verilog

    _progress(args).phase(f"reading {args.file}" + (f" and {args.lib}" if args.lib else ""))
    return read_verilog(args.file, parser=args.parser, lib=args.lib, top=args.top)


def _view_options(args) -> dict:
    return {
        "weights": getattr(args, "weights", "unit"),
        "max_net_size": getattr(args, "max_net_size", None),
        "skip_clock": not getattr(args, "keep_clock", False),
    }


# --------------------------------------------------------------------------- commands
def cmd_info(args) -> int:
    if detect_format(args.file, args.format) == "verilog":
        return _info_verilog(args)
    _progress(args).phase(f"reading {args.file}")
    h = _load(args.file, args.format)
    d = {"file": args.file, **describe(h)}
    _progress(args).close()
    if args.json:
        print(json.dumps(d))
    else:
        _print_table(d)
    return 0


def _info_verilog(args) -> int:
    c = _read_circuit(args)
    hv = c.to_hypergraph(**_view_options(args))
    d = {"file": args.file, **c.summary()}
    h = describe(hv.hypergraph)
    _progress(args).close()
    if args.json:
        print(json.dumps({**d, "hypergraph": h}))
    else:
        _print_table(d)
        print("hypergraph view (clock and constant nets skipped):")
        _print_table(h, indent="  ")
    return 0


def _report_partition(args, h, p, out: str | None) -> None:
    _progress(args).close()
    if args.json:
        d = {"file": getattr(args, "file", None), "n": h.n, **p.to_dict()}
        if out:
            d["output"] = out
        print(json.dumps(d))
        return
    rows = {
        "k": p.k,
        "algorithm": p.algorithm,
        "backend": p.backend,
        "cut": p.cut,
        "km1": p.km1,
        "soed": p.soed,
        "imbalance": f"{p.imbalance:.4f} ("
        + (f"bound {p.epsilon}" if p.max_block_weights is None else "per-block bounds")
        + ", " + ("balanced" if p.balanced else "NOT balanced")
        + ")",
        "block weights": " ".join(str(int(w)) for w in p.block_weights[:16])
        + (" ..." if p.k > 16 else ""),
        "seconds": f"{p.seconds:.3f}",
    }
    if out:
        rows["output"] = out
    _print_table(rows)


def config_arg(text: str) -> dict:
    """A ``--config`` value: an inline JSON object (``'{"refinement": "jet"}'``) or the path of a
    JSON file of Config fields; InputError naming what is wrong otherwise."""
    from .bench import load_config
    if not text.lstrip().startswith("{") or os.path.exists(text):
        return load_config(text)
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"--config: invalid JSON at column {exc.colno}: {exc.msg}") from None
    try:
        Config.from_dict(d)
    except (InputError, TypeError) as exc:
        raise InputError(f"--config: {exc}") from None
    return d


def _config(args) -> dict | None:
    """Config overrides of a command: ``--config`` and ``-t/--threads``."""
    cfg = config_arg(args.config) if getattr(args, "config", None) else None
    threads = getattr(args, "cli_threads", None)
    if threads is not None:
        cfg = {**(cfg or {}), "threads": threads}
    return cfg


def block_weights_arg(text: str, k: int) -> np.ndarray:
    """A ``--block-weights`` value (:func:`igpart.io.parse_block_weights`)."""
    from .io import parse_block_weights

    return parse_block_weights(text, k, "--block-weights")


def _block_weights(args) -> np.ndarray | None:
    text = getattr(args, "block_weights", None)
    return None if text is None else block_weights_arg(text, args.k)


def _partition(h, args, fixed=None) -> Partition:
    """``igpart.partition`` with the options every partitioning subcommand shares (``fixed``:
    the vertices' fixed blocks, -1: free; ``igpart.improve`` of the ``--initial`` partition
    when given)."""
    prep = getattr(args, "gpu_preparation", None)
    if prep is not None:
        prep.stop()
    _progress(args).phase(
        f"partitioning {getattr(args, 'file', None) or 'the circuit'} (k = {args.k})"
    )
    options = dict(epsilon=args.epsilon, objective=args.objective,
                   backend=_backend_with_budget(h, args), seed=args.seed, config=_config(args),
                   preset=getattr(args, "preset", None), max_block_weights=_block_weights(args),
                   fixed=fixed)  # fmt: skip
    initial = getattr(args, "initial", None)
    cluster = getattr(args, "cluster", None)
    if initial is not None:
        if args.algorithm != ALGORITHMS[0]:
            raise InputError(f"--initial improves a partition with the multilevel algorithm, "
                             f"not --algorithm {args.algorithm}")
        if cluster is not None:
            raise InputError("--initial improves a partition here, not on a --cluster")
        _progress(args).phase(f"reading {initial}")
        parts = read_partition(initial, n=h.n, k=args.k)
        _progress(args).phase(f"improving {initial} (k = {args.k})")
        return improve(h, parts, args.k, **options)
    return partition(h, args.k, algorithm=args.algorithm, cluster=cluster, **options)


def _backend_with_budget(h, args):
    """``--backend`` with ``--memory-budget``: the GPU backend gets the budget (and checks it);
    on the CPU backend, which uses no device memory, only the minimum is checked."""
    budget_bytes = getattr(args, "memory_budget", None)
    if budget_bytes is None:
        return args.backend
    from .kernels import budget, get_backend, input_pins

    be = get_backend(args.backend, memory_budget=budget_bytes, pins=input_pins(h))
    if be.name != "gpu":
        g = h.to_hypergraph() if isinstance(h, Graph) else h
        budget.require(budget_bytes, budget.coarse_minimum(g.n, g.m, g.eind.shape[0], args.k),
                       f"partitioning {g.n:,} vertices and {g.m:,} nets into {args.k} blocks")
        log.info("the %s backend uses no device memory: --memory-budget was only checked",
                 be.name)
    return be


def _prepare_gpu(args):
    """With ``--backend gpu`` or ``auto`` (no cluster, no memory budget): the GPU readied in a
    background thread while the input is read (``igpart.kernels.gpu.prepare``: the CUDA context
    and the partitioner's modules, then CuPy's kernels until the partition starts;
    ``IGPART_GPU_PREPARE=0`` turns it off), else None."""
    if args.backend not in ("gpu", "auto") or getattr(args, "cluster", None) is not None \
            or getattr(args, "memory_budget", None) is not None:
        return None
    if os.environ.get("IGPART_GPU_PREPARE", "").strip().lower() in ("0", "false", "no", "off") \
            or os.environ.get("IGPART_GPU_MEMORY_BUDGET"):
        return None
    if args.backend == "auto" and _smaller_than_auto_gpu(getattr(args, "file", None)):
        return None
    from .kernels.gpu import prepare

    return prepare.start()


def _smaller_than_auto_gpu(path) -> bool:
    """Whether the file at ``path`` is too small to hold the pins from which ``auto`` takes the
    GPU (``igpart.kernels.AUTO_GPU_MIN_PINS``; a pin takes at least 4 bytes of an hMETIS or
    METIS file once indices reach 1,000): ``auto`` then runs on the C++ backend, and readying
    the GPU would only take a core from the partition."""
    from .kernels import AUTO_GPU_MIN_PINS

    try:
        return path is not None and os.path.getsize(path) < 4 * AUTO_GPU_MIN_PINS
    except OSError:
        return False


def cmd_partition(args) -> int:
    # the preparation stops preloading kernels once the input is read (``_partition``), so
    # that it never competes with the partition for the interpreter
    args.gpu_preparation = prep = _prepare_gpu(args)
    try:
        return _cmd_partition(args)
    finally:
        if prep is not None:
            prep.stop()


def _cmd_partition(args) -> int:
    if detect_format(args.file, args.format) == "verilog":
        if getattr(args, "fixed", None):
            raise InputError("--fixed takes .hgr / .graph inputs (one line per vertex); fix "
                             "cells of a netlist through a session (igpart.plugin.Session)")
        if getattr(args, "initial", None) is not None:
            raise InputError("--initial takes hypergraph and graph files (a partition of a "
                             "netlist: partition its .hgr, see 'igpart info')")
        return _partition_verilog(args)
    _progress(args).phase(f"reading {args.file}")
    h = _load(args.file, args.format)
    fixed = None
    if getattr(args, "fixed", None):
        _progress(args).phase(f"reading {args.fixed}")
        fixed = read_fixed(args.fixed, n=h.n, k=args.k)
    p = _partition(h, args, fixed)
    out = args.output or f"{args.file}.part.{args.k}"
    write_partition(p.parts, out)
    _report_partition(args, h, p, out)
    return 0 if p.balanced else 3


def _partition_verilog(args) -> int:
    c = _read_circuit(args)
    hv = c.to_hypergraph(**_view_options(args))
    h = hv.hypergraph
    p = _partition(h, args)
    out = args.output or f"{args.file}.part.{args.k}"
    n = len(hv.vertex_names)  # instances, then ports: `evaluate` then gives the same metrics
    names = hv.vertex_names[:n]
    atomic_write(out, "".join(map("{} {}\n".format, names, p.parts[:n].tolist())))
    _report_partition(args, h, p, out)
    return 0 if p.balanced else 3


def cmd_map(args) -> int:
    from .mapping import MAP_ALGORITHMS, map_processes, parse_levels

    if args.algorithm not in MAP_ALGORITHMS:
        raise InputError(f"--algorithm: choose from {', '.join(MAP_ALGORITHMS)}")
    hierarchy = parse_levels(args.hierarchy, "--hierarchy")
    distance = parse_levels(args.distance, "--distance", float)
    _progress(args).phase(f"reading {args.file}")
    h = _load(args.file, args.format)
    _progress(args).phase(f"mapping {args.file} onto {args.hierarchy}")
    m = map_processes(h, hierarchy, distance, args.epsilon, args.algorithm, args.backend,
                      args.seed, getattr(args, "cli_threads", None) or 0,
                      cluster=args.cluster)  # fmt: skip
    out = args.output or f"{args.file}.map.{m.k}"
    write_partition(m.parts, out)
    _progress(args).close()
    if args.json:
        print(json.dumps({"file": args.file, "n": h.n, **m.to_dict(), "output": out}))
    else:
        _print_table({
            "hierarchy": args.hierarchy,
            "distance": ":".join(f"{x:g}" for x in m.distance),
            "k": m.k,
            "algorithm": m.algorithm,
            "cost": m.cost,
            "cost per level": " ".join(f"{x:g}" for x in m.level_costs),
            "km1": m.km1,
            "imbalance": f"{m.imbalance:.4f} (bound {m.epsilon}, "
            + ("balanced" if m.balanced else "NOT balanced") + ")",
            "seconds": f"{m.seconds:.3f}",
            "output": out,
        })  # fmt: skip
    return 0 if m.balanced else 3


def cmd_evaluate(args) -> int:
    extra = {}
    if detect_format(args.file, args.format) == "verilog":
        if args.k < 1:
            raise InputError(f"k must be a positive integer, got {args.k}")
        c = _read_circuit(args)
        hv = c.to_hypergraph(**_view_options(args))
        _progress(args).phase(f"reading {args.partfile}")
        h, parts, ports = read_name_blocks(args.partfile, hv, args.k)
        extra = {"ports": "placed" if ports else "left out (the file places none)"}
    else:
        _progress(args).phase(f"reading {args.file}")
        h = _load(args.file, args.format)
        _progress(args).phase(f"reading {args.partfile}")
        parts = read_partition(args.partfile, n=h.n, k=args.k)
    _progress(args).phase("evaluating")
    d = evaluate(h, parts, args.k, args.epsilon, _block_weights(args))
    d["block_weights"] = [int(x) for x in d["block_weights"]]
    _progress(args).close()
    if args.json:
        print(json.dumps({"file": args.file, "partition": args.partfile, "k": args.k, **d,
                          **extra}))  # fmt: skip
    else:
        d["block_weights"] = " ".join(str(x) for x in d["block_weights"][:16])
        _print_table({"k": args.k, **d, **extra})
    return 0 if d["balanced"] else 3


def _lookup(index: dict, names: list[str]) -> np.ndarray:
    """``index[name]`` for each name, -1 where absent."""
    return np.fromiter(map(index.get, names, itertools.repeat(-1)), np.int64, count=len(names))


_NAME_BLOCK = re.compile(r"^[ \t]*(\S+)[ \t]+\S+[ \t]*\r?$", re.M)
_BLOCK_OF_NAME = re.compile(r"^[ \t]*\S+[ \t]+(\S+)[ \t]*\r?$", re.M)
_RECORD = re.compile(r"^[ \t]*\S", re.M)


def read_name_blocks(path, hv, k: int):
    """``(hypergraph, parts, ports_placed)`` from a file of ``name block`` lines over the
    hypergraph view ``hv`` (what ``igpart partition`` and ``write_partition`` write for a
    netlist: the instances, then the ports): every instance once, the ports all or none. A name
    is an instance's the first time, a port's when it is no instance or comes again. Without
    ports the hypergraph is the view's instances alone (nets keep their instance pins), as the
    file does not place the ports. Errors name the file and line."""
    from .hypergraph import Hypergraph
    from .netlist.files import read_text

    file, text = read_text(path)
    names = _NAME_BLOCK.findall(text)
    blocks = _BLOCK_OF_NAME.findall(text)
    lines = None

    def line_of(record: int) -> int:  # only on an error
        nonlocal lines
        if lines is None:
            lines = [i + 1 for i, s in enumerate(text.split("\n")) if s.strip()]
        return lines[record]

    if len(names) != len(_RECORD.findall(text)):
        bad = next(i for i, s in enumerate(text.split("\n")) if len(s.split()) not in (0, 2))
        raise InputError("expected 'name block' (two fields)", file, bad + 1)
    try:
        b = np.array(blocks, dtype=np.str_).astype(np.int64) if blocks else np.zeros(0, np.int64)
    except (ValueError, OverflowError):
        bad = next(i for i, x in enumerate(blocks) if not re.fullmatch(r"[-+]?\d{1,18}", x))
        raise InputError(f"block '{blocks[bad][:40]}' is not an integer", file,
                         line_of(bad)) from None  # fmt: skip
    out = np.flatnonzero((b < 0) | (b >= k))
    if out.size:
        raise InputError(f"block {int(b[out[0]])} is not in 0..{k - 1}", file, line_of(out[0]))
    vn = hv.vertex_names
    ni = hv.num_instance_vertices
    ids = _lookup(dict(zip(vn[:ni], range(ni))), names)
    again = np.ones(ids.size, dtype=bool)  # a later line of an instance's name: a port's?
    again[np.unique(ids, return_index=True)[1]] = False
    again &= ids >= 0
    todo = np.flatnonzero((ids < 0) | again)
    if todo.size:
        ports = dict(zip(vn[ni:], range(ni, len(vn))))
        ids[todo] = _lookup(ports, [names[i] for i in todo.tolist()])
    unknown = np.flatnonzero(ids < 0)
    if unknown.size:
        i = int(unknown[0])
        what = "has a second line" if again[i] else "is no instance or port of the netlist"
        raise InputError(f"'{names[i][:80]}' {what}", file, line_of(i))
    h = hv.hypergraph
    seen = np.bincount(ids, minlength=h.n)
    first = np.unique(ids, return_index=True)[1]
    if first.size < ids.size:
        again = np.ones(ids.size, dtype=bool)
        again[first] = False
        i = int(np.flatnonzero(again)[0])
        raise InputError(f"'{names[i][:80]}' has a second line", file, line_of(i))
    missing = np.flatnonzero(seen[:ni] == 0)
    if missing.size:
        raise InputError(f"instance '{vn[missing[0]][:80]}' has no line", file)
    placed = seen[ni:] > 0
    parts = np.full(h.n, -1, dtype=np.int32)
    parts[ids] = b
    if placed.all():
        return h, parts, ni < h.n
    if placed.any():
        port = vn[ni + int(np.flatnonzero(~placed)[0])]
        raise InputError(f"the file places some ports but not '{port[:80]}' (all or none)", file)
    keep = h.eind < ni
    counts = np.bincount(h.pin_nets[keep], minlength=h.m)
    eptr = np.zeros(h.m + 1, dtype=np.int64)
    np.cumsum(counts, out=eptr[1:])
    sub = Hypergraph(eptr, h.eind[keep], ni, vwgt=h.vwgt[:ni], ewgt=h.ewgt)
    return sub, parts[:ni], False


def cmd_demo(args) -> int:
    from .generators import random_circuit

    if args.vertices < 2:
        raise IgpartError(f"--vertices must be at least 2, got {args.vertices}")
    _progress(args).phase(f"generating a circuit of {args.vertices} vertices")
    t0 = time.perf_counter()
    h = random_circuit(args.vertices, seed=args.seed)
    gen = time.perf_counter() - t0
    _progress(args).close()
    if not args.json:
        print(
            f"generated a circuit-like hypergraph: {h.n} vertices, {h.m} nets, "
            f"{h.num_pins} pins ({gen:.2f} s)"
        )
    p = _partition(h, args)
    check = evaluate(h, p.parts, p.k, p.epsilon)
    valid = check["cut"] == p.cut and check["km1"] == p.km1 and check["balanced"]
    args.file = None
    _report_partition(args, h, p, None)
    if not args.json:
        print(
            "check: metrics recomputed from scratch "
            + ("match and the partition is balanced" if valid else "DO NOT MATCH")
        )
    return 0 if valid else 3


def cmd_generate(args) -> int:
    from .generators import inflate
    from .io import write_hgr

    h = _load(args.source, "hgr")
    if not isinstance(h, Hypergraph):
        raise IgpartError(f"{args.source}: generate --from needs a hypergraph (.hgr)")
    try:
        big = inflate(h, args.scale, seed=args.seed, cross_fraction=args.cross_fraction,
                      extra_fraction=args.extra_fraction, random_fraction=args.random_fraction)
    except ValueError as exc:
        raise IgpartError(str(exc)) from None
    write_hgr(big, args.output)
    d = {"file": args.output, "vertices": big.n, "nets": big.m, "pins": big.num_pins,
         "scale": args.scale, "seed": args.seed}
    if args.json:
        print(json.dumps(d))
    else:
        _print_table(d)
    return 0


def _session_budget(args) -> None:
    """``--memory-budget`` of the session commands: the default budget of their sessions."""
    if getattr(args, "memory_budget", None) is not None:
        from .kernels import budget

        os.environ[budget.ENV] = str(args.memory_budget)


def cmd_tcl(args) -> int:
    from .plugin.tcl import run_script, run_stream

    _session_budget(args)
    if args.script in (None, "-"):
        bridge = run_stream(sys.stdin, args.args, interactive=sys.stdin.isatty())
    else:
        bridge = run_script(args.script, args.args)
    return bridge.exit_code or 0


def cmd_serve(args) -> int:
    from .plugin.commands import Commands
    from .plugin.server import JsonLinesServer

    _session_budget(args)
    server = JsonLinesServer(Commands(max_file_bytes=args.max_file_bytes),
                             max_request_bytes=args.max_request_bytes,
                             send_timeout=args.send_timeout)  # fmt: skip
    if args.socket:
        import signal

        # stop the accept loop, which removes the socket file and closes the connections
        signal.signal(signal.SIGTERM, lambda signum, frame: server.stop(signum))
        server.serve_unix(args.socket, ready=lambda: log.info("listening on %s", args.socket))
        return 128 + server.signal if server.signal else 0
    server.serve_stdio()
    return 0


def cmd_bench(args) -> int:
    from . import bench

    if args.plot and not args.peers:
        raise IgpartError("--plot shows igpart/peer ratios: it needs at least one of --peers")
    variants = {"igpart": config_arg(args.config) if args.config else {}}
    if not args.no_hyperg:
        hyperg = bench.DEFAULT_VARIANTS["igpart-hyperg"]
        variants["igpart-hyperg"] = {**variants["igpart"], **hyperg}
    result = bench.run_benchmark(
        args.files, args.k, epsilon=args.epsilon, objective=args.objective,
        threads=args.threads, seed=args.seed, variants=variants, peers=args.peers,
        progress=not args.no_progress, cluster=args.cluster,
    )
    text = bench.to_json(result) if args.json else bench.markdown(result)
    if args.output:
        atomic_write(args.output, text)
    print(text, end="" if text.endswith("\n") else "\n")
    if args.plot:
        bench.plot(result, args.plot)
    s = bench.summary(result)
    bad = sum(s["unbalanced"][v] + s["failed"][v] for v in result["variants"])
    return 0 if bad == 0 else 3


def add_bench_arguments(p: argparse.ArgumentParser, files_required: bool = True) -> None:
    """Options of ``igpart bench`` (shared with flows/regression.py)."""
    from .bench import PEERS

    p.add_argument("files", nargs="+" if files_required else "*", help="hypergraph files (.hgr)")
    p.add_argument("-k", type=int, nargs="+", default=[2, 4, 8, 16, 32, 64],
                   help="numbers of blocks (default 2 4 8 16 32 64)")
    p.add_argument("-e", "--epsilon", type=float, default=0.03)
    p.add_argument("--objective", choices=OBJECTIVES, default="cut")
    p.add_argument("--threads", type=int, default=2,
                   help="threads of igpart and of Mt-KaHyPar (default 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--peers", nargs="*", choices=PEERS, default=list(PEERS))
    p.add_argument("--config", help="Config fields for the igpart variant: a JSON file or an "
                   "inline JSON object")
    p.add_argument("--no-hyperg", action="store_true",
                   help="leave out the HyperG-grouping variant (Config coarsening=hyperg)")
    p.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    p.add_argument("-o", "--output", help="also write the report to this file")
    p.add_argument("--plot", help="save a plot of the ratios to this image (needs matplotlib)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_cluster_option(p, "run the (file, k, tool) cases on a dask cluster, one at a time per "
                        "worker: local, local:N or a scheduler address (needs "
                        "igpart[distributed])")


# --------------------------------------------------------------------------- parser
def _add_partition_options(p: argparse.ArgumentParser, k_required: bool = True) -> None:
    p.add_argument(
        "-k",
        type=int,
        required=k_required,
        default=None if k_required else 4,
        help="number of blocks",
    )
    p.add_argument(
        "-e",
        "--epsilon",
        type=float,
        default=0.03,
        help="allowed imbalance: blocks weigh at most (1+eps)*ceil(total/k)",
    )
    p.add_argument("--objective", choices=OBJECTIVES, default="cut")
    p.add_argument("--backend", choices=BACKENDS, default="auto")
    _add_memory_budget_option(p)
    p.add_argument("--algorithm", choices=ALGORITHMS, default=ALGORITHMS[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--preset", choices=tuple(PRESETS), default=None,
                   help="speed (about half the time), default, quality (more time, lower cut); "
                   "--config fields override it")  # fmt: skip
    _add_block_weights_option(p)
    p.add_argument(
        "--config",
        help="multilevel Config fields (igpart.Config, documented there): a JSON file or an "
        """inline object, e.g. '{"refinement": "jet", "initial": "rb"}'""",
    )
    _add_threads_option(p)
    _add_cluster_option(p, "partition over the workers of a dask cluster: local, local:N or a "
                        "scheduler address (needs igpart[distributed])")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _bytes(text: str) -> int:
    from .kernels.budget import parse_bytes

    try:
        return parse_bytes(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_memory_budget_option(p: argparse.ArgumentParser, sessions: bool = False) -> None:
    what = ("the default of the sessions it opens: their adjacency then lives in a host store "
            "with a device cache of hot rows" if sessions else
            "the GPU backend's; the CPU backend only checks it against the minimum")
    p.add_argument("--memory-budget", type=_bytes, metavar="BYTES",
                   help=f"device memory budget, e.g. 8GiB ({what}; default: the "
                   "IGPART_GPU_MEMORY_BUDGET environment variable)")


def _add_cluster_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--cluster", metavar="local[:N]|ADDRESS", help=what)


def _add_block_weights_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--block-weights", metavar="FILE|W1,W2,...",
                   help="maximum weight of each block (k integers, a file of one per line or a "
                   "comma list) instead of --epsilon")  # fmt: skip


def _threads(text: str) -> int:
    try:
        t = int(text)
    except ValueError:
        t = 0
    if t < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got '{text}'")
    return t


def _add_threads_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-t", "--threads", dest="cli_threads", type=_threads, metavar="N",
                   help="threads of the C++ backend (OpenMP) and of the run's thread pools "
                   "(default: all cores, or OMP_NUM_THREADS)")  # fmt: skip


#: ``igpart.netlist.verilog.PARSERS`` (a test keeps the two equal): importing the netlist
#: package to build the parser would cost every command, netlist or not, about 25 ms
PARSERS = ("auto", "fast", "pyverilog")


def _add_netlist_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("Verilog netlists")
    g.add_argument("--lib", help="Liberty file: pin directions (and cell areas)")
    g.add_argument("--parser", choices=PARSERS, default="auto", help="Verilog reader")
    g.add_argument("--top", help="top module (default: the one no other module instantiates)")
    g.add_argument("--weights", choices=("unit", "area"), default="unit", help="vertex weights")
    g.add_argument("--max-net-size", type=int, help="leave out nets with more pins than this")
    g.add_argument("--keep-clock", action="store_true", help="keep clock nets in the hypergraph")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="igpart", description="GPU-accelerated, incremental k-way (hyper)graph partitioner"
    )
    ap.add_argument("--version", action="version", version=f"igpart {__version__}")
    ap.add_argument("-v", "--verbose", action="count", default=0, help="log progress (-vv: debug)")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("info", help="sizes and statistics of a hypergraph, graph or netlist")
    p.add_argument("file")
    p.add_argument("--format", choices=("hgr", "graph", "verilog"), help="override the suffix")
    _add_netlist_options(p)
    _add_threads_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("partition", help="k-way partition a hypergraph, graph or netlist")
    p.add_argument("file")
    p.add_argument("--format", choices=("hgr", "graph", "verilog"), help="override the suffix")
    p.add_argument(
        "-o",
        "--output",
        help="partition file to write (default FILE.part.K; for Verilog 'name block' lines: "
        "the instances, then the ports)",
    )
    p.add_argument(
        "--fixed",
        metavar="FILE",
        help="fixed vertices (KaHyPar's fix file): one line per vertex, its block or -1 when "
        "free; fixed vertices end in their block (.hgr / .graph inputs)",
    )
    p.add_argument("--initial", metavar="PARTFILE",
                   help="improve this partition (one block per line) with V-cycles instead of "
                   "starting over; the result is never worse than a balanced input")
    _add_netlist_options(p)
    _add_partition_options(p)
    p.set_defaults(func=cmd_partition)

    p = sub.add_parser("map", help="map a hypergraph or graph onto a machine hierarchy "
                       "(process mapping; writes FILE.map.K, one PE id per vertex)")  # fmt: skip
    p.add_argument("file")
    p.add_argument("--format", choices=("hgr", "graph"), help="override the suffix")
    p.add_argument("--hierarchy", default="4:8:2",
                   help="PEs per group, innermost level first (default 4:8:2: 4 PEs per node, "
                   "8 nodes per rack, 2 racks)")  # fmt: skip
    p.add_argument("--distance", default="1:10:100",
                   help="cost of crossing each level, innermost first, non-decreasing "
                   "(default 1:10:100)")  # fmt: skip
    p.add_argument("-e", "--epsilon", type=float, default=0.03,
                   help="allowed imbalance per PE: (1+eps)*ceil(total/k)")  # fmt: skip
    p.add_argument("--algorithm", default="hm", help="hm (default), hm-ultra, two-phase, im")
    p.add_argument("--backend", choices=BACKENDS, default="auto")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", help="PE file to write (default FILE.map.K)")
    _add_threads_option(p)
    _add_cluster_option(p, "run each level's splits (hm, hm-ultra) on a dask cluster: local, "
                        "local:N or a scheduler address (needs igpart[distributed])")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_map)

    p = sub.add_parser(
        "evaluate", help="metrics of a partition file (exit 3 when it is not balanced)"
    )
    p.add_argument("file")
    p.add_argument("partfile", help="one block per line; for Verilog 'name block' lines (the "
                   "instances, then all ports or none)")
    p.add_argument("--format", choices=("hgr", "graph", "verilog"), help="override the suffix")
    p.add_argument("-k", type=int, required=True)
    p.add_argument("-e", "--epsilon", type=float, default=0.03)
    _add_block_weights_option(p)
    _add_netlist_options(p)
    _add_threads_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("tcl", help="run a Tcl script with the igpart and TAU 2015 commands "
                       "(no script or '-': commands from stdin, with a prompt on a terminal)")
    p.add_argument("script", nargs="?")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script ($argv)")
    _add_memory_budget_option(p, sessions=True)
    p.set_defaults(func=cmd_tcl)

    p = sub.add_parser("serve", help="JSON-lines server on stdio or a unix-domain socket")
    p.add_argument("--socket", metavar="PATH", help="listen on a new unix socket (mode 0600)")
    p.add_argument("--max-request-bytes", type=int, default=1 << 20, metavar="N")
    p.add_argument("--max-file-bytes", type=int, default=None, metavar="N",
                   help="largest file that read / read_verilog / replay accept (default: any)")
    p.add_argument("--send-timeout", type=float, default=30.0, metavar="S",
                   help="drop a client whose response waits this long to be sent (it does not "
                        "read)")
    _add_memory_budget_option(p, sessions=True)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "bench", help="igpart vs Mt-KaHyPar and METIS on the same files: ratios table"
    )
    add_bench_arguments(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("demo", help="generate a circuit-like hypergraph and partition it")
    p.add_argument("--vertices", type=int, default=20000)
    _add_partition_options(p, k_required=False)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "generate",
        help="a large hypergraph from copies of a small one, structure kept (seeded)",
    )
    p.add_argument("--from", dest="source", required=True, help="source .hgr file")
    p.add_argument("--scale", type=int, required=True, help="number of copies")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cross-fraction", type=float, default=0.002,
                   help="nets rewired between two neighbouring copies, per source net")
    p.add_argument("--extra-fraction", type=float, default=0.001,
                   help="extra nets inside a copy (between nearby vertices), per source net "
                        "and copy")
    p.add_argument("--random-fraction", type=float, default=0.0,
                   help="nets between random vertices anywhere, per source net and copy (off: "
                        "they put a floor under every cut; report results with them apart)")
    p.add_argument("-o", "--output", required=True, help=".hgr file to write")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_generate)

    from . import warmup

    p = sub.add_parser(
        "warmup",
        help="compile the GPU backend's CuPy kernels into CuPy's kernel cache (after install, "
             "or in a container build), so that the first partition compiles nothing",
    )
    warmup.add_arguments(p)
    p.set_defaults(func=warmup.run)
    for p in sub.choices.values():  # -v after the subcommand too (igpart partition f -k 4 -v)
        p.add_argument("-v", "--verbose", dest="sub_verbose", action="count", default=0,
                       help="log progress (-vv: debug)")  # fmt: skip
    return ap


#: Commands that read, compute, write and end: the command line (:func:`run`) ends their process
#: at once when they return, without the interpreter's teardown.
ONE_SHOT = (cmd_info, cmd_partition, cmd_map, cmd_evaluate, cmd_generate)


def run() -> None:
    """The ``igpart`` command (and ``python -m igpart``): :func:`main`, then the process ends.
    After a one-shot command (:data:`ONE_SHOT`) it ends with ``os._exit`` once its output is
    flushed: the outputs are complete by then (written, synced and renamed into place), and
    what the interpreter's teardown would do costs time and changes nothing a user sees
    (freeing every module and array, destroying the CUDA context, waiting for the METIS
    worker processes, which end by themselves when their input pipe closes). On a GPU run
    (H100, a 2M-vertex input, k = 16) that teardown took 0.7-1.1 s. ``IGPART_FAST_EXIT=0`` keeps
    the ordinary exit."""
    code = main(fast_exit=os.environ.get("IGPART_FAST_EXIT", "").strip() not in ("0", "no",
                                                                                  "off"))
    sys.exit(code)


def _exit_now(code: int) -> None:
    """Flushes what the command printed and logged, then ends the process (see :func:`run`)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader left; nothing more to say
        pass
    logging.shutdown()
    os._exit(code)


def main(argv: list[str] | None = None, *, fast_exit: bool = False) -> int:
    """Runs one ``igpart`` command line; returns its exit status. ``fast_exit``: after a
    one-shot command, end the process at once (:func:`run`)."""
    args = build_parser().parse_args(argv)
    code = _main(args)
    if fast_exit and args.func in ONE_SHOT:
        _exit_now(code)
    return code


def _main(args) -> int:
    args.verbose += getattr(args, "sub_verbose", 0)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="igpart: %(message)s")
    try:
        with Progress(verbose=args.verbose > 0) as args.progress:
            threads = getattr(args, "cli_threads", None)
            if threads is None:
                return int(args.func(args) or 0)
            from .kernels import omp_threads

            with omp_threads(threads):
                return int(args.func(args) or 0)
    except IgpartError as exc:
        print(f"igpart: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `igpart ... | head`: the reader left; stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
        return 141  # 128 + SIGPIPE
    except OSError as exc:  # writing an output file
        name = f" {exc.filename}:" if exc.filename else ""
        print(f"igpart: error:{name} {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("igpart: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    run()
