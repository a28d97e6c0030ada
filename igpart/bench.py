"""Regression benchmark: igpart and its peers side by side on the same files in one run.

For every file and k, runs the igpart variants (by default the shipped configuration and the
HyperG-grouping alternative, ``Config(coarsening="hyperg")``) and the peers: Mt-KaHyPar's DEFAULT
preset with the same thread count, and METIS on the clique expansion. Every partition's
metrics are recomputed from scratch; the report is a markdown table per instance and k with cut,
imbalance and seconds of each tool, the ratios igpart/peer and their geometric means.

Timings: igpart's seconds are those of ``igpart.partition`` on the in-memory hypergraph (upload,
communities, coarsening, initial partitioning, refinement); Mt-KaHyPar's are those of its
partitioning call (not the conversion of the hypergraph into its Python input lists); METIS's
include the clique expansion. Since all tools run in one process, one after the other on the same
machine, the ratios are what to compare when the machine is shared.

Used by ``igpart bench`` and ``flows/regression.py``.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError, PartitionError
from .hypergraph import Hypergraph
from .io import atomic_writer, read
from .metrics import OBJECTIVES, evaluate
from .partitioner.api import partition
from .partitioner.config import Config
from .partitioner.initial.metis import metis_partition
from .partitioner.initial.mtkahypar import mtkahypar_available, mtkahypar_partition

#: Peers the benchmark knows.
PEERS = ("mtkahypar", "metis")
PEER_LABELS = {"mtkahypar": "MtK", "metis": "METIS"}

#: The igpart variants run by default: name -> Config overrides.
DEFAULT_VARIANTS: dict[str, dict[str, Any]] = {
    "igpart": {},
    "igpart-hyperg": {"coarsening": "hyperg", "communities": False},
}


@dataclass
class Run:
    """One tool on one instance and k."""

    instance: str
    k: int
    tool: str
    cut: int | None = None
    km1: int | None = None
    imbalance: float | None = None
    balanced: bool | None = None
    seconds: float | None = None
    error: str | None = None

    def objective(self, name: str) -> int | None:
        return self.cut if name == "cut" else self.km1


def geomean(values: Sequence[float]) -> float | None:
    """Geometric mean of positive values (None when there are none)."""
    vals = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def ratio(a: float | None, b: float | None) -> float | None:
    """``a / b``; 1 when both are 0, None when either is missing or only ``b`` is 0."""
    if a is None or b is None:
        return None
    if b == 0:
        return 1.0 if a == 0 else None
    return a / b


def machine_info() -> dict[str, Any]:
    """Date, host, CPU model, cores, Python version, commit and command line of this run."""
    def commit() -> str | None:
        try:
            r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                               text=True, cwd=Path(__file__).resolve().parent, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return r.stdout.strip() or None

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        if names:
            cpu = names[0]
    except OSError:
        pass
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "commit": commit(),
        "command": " ".join(sys.argv),
    }


def _run_tool(tool: str, h: Hypergraph, k: int, epsilon: float, objective: str, seed: int,
              threads: int, variants: dict[str, dict[str, Any]]) -> tuple[Any, float]:
    if tool in variants:
        p = partition(h, k, epsilon=epsilon, objective=objective, backend="cpu", seed=seed,
                      config=variants[tool])
        return p.parts, p.seconds
    if tool == "mtkahypar":
        return mtkahypar_partition(h, k, epsilon, objective, seed=seed, threads=threads,
                                   timed=True)
    if tool == "metis":
        t0 = time.perf_counter()
        parts = metis_partition(h, k, epsilon, seed)
        return parts, time.perf_counter() - t0
    raise InputError(f"unknown tool '{tool}'")


def run_benchmark(
    files: Sequence[str | os.PathLike],
    ks: Sequence[int],
    *,
    epsilon: float = 0.03,
    objective: str = "cut",
    threads: int = 2,
    seed: int = 0,
    variants: dict[str, dict[str, Any]] | None = None,
    peers: Sequence[str] = PEERS,
    progress: bool = True,
    cluster: Any = None,
) -> dict[str, Any]:
    """Runs every tool on every file and k; returns ``{"meta", "tools", "runs"}`` (JSON-ready).

    ``variants``: igpart variants, name -> Config overrides (default :data:`DEFAULT_VARIANTS`).
    ``peers``: a subset of :data:`PEERS`; Mt-KaHyPar is skipped with a note when not installed.
    A tool that fails on an input is recorded with its error, the others go on.
    ``cluster``: each (file, k, tool) runs as a task of this dask cluster (a
    ``distributed.Client``, ``"local"``, ``"local:N"`` or a scheduler address; see
    :mod:`igpart.distributed`), which reads the file where it runs (the files must be readable
    by every worker); the runs are the same as here, in the same order.
    """
    from tqdm import tqdm

    from .kernels import _cpu

    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective '{objective}' (choose from {', '.join(OBJECTIVES)})")
    if threads < 1:
        raise InputError(f"threads must be >= 1, got {threads}")
    try:
        bad_eps = not (math.isfinite(float(epsilon)) and float(epsilon) >= 0)
    except (TypeError, ValueError):
        bad_eps = True
    if bad_eps:
        raise InputError(f"epsilon must be a non-negative number, got {epsilon!r}")
    if not files:
        raise InputError("no input files")
    for k in ks:
        if isinstance(k, bool) or int(k) != k or k < 2:
            raise InputError(f"k must be an integer >= 2, got {k!r}")
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        raise InputError(f"unknown peer(s) {', '.join(unknown)} (choose from {', '.join(PEERS)})")
    variants = dict(DEFAULT_VARIANTS if variants is None else variants)
    for name, overrides in variants.items():
        Config.from_dict(overrides)  # validates early: InputError names the bad option
        if name in PEERS:
            raise InputError(f"variant name '{name}' clashes with a peer")
    notes = []
    peers = list(peers)
    if "mtkahypar" in peers and not mtkahypar_available():
        peers.remove("mtkahypar")
        notes.append("Mt-KaHyPar is not installed (pip install mtkahypar): left out")
    tools = [*variants, *peers]
    _cpu.set_num_threads(int(threads))
    meta = {**machine_info(), "epsilon": float(epsilon), "objective": objective,
            "threads": int(threads), "seed": int(seed), "notes": notes,
            "variants": {name: dict(o) for name, o in variants.items()}}
    runs: list[Run] = []
    if cluster is not None:
        from .distributed import connect, run_tasks

        calls = [(str(path), int(k), tool, float(epsilon), objective, int(seed), int(threads),
                  variants) for path in files for k in ks for tool in tools]
        with connect(cluster) as client:
            runs = run_tasks(client, run_case, calls, progress=progress, desc="bench")
        return {"meta": meta, "tools": tools, "variants": list(variants), "peers": peers,
                "runs": [dataclasses.asdict(r) for r in runs]}
    bar = tqdm(total=len(files) * len(ks) * len(tools), disable=not progress, unit="run",
               file=sys.stderr, dynamic_ncols=True)
    try:
        for path in files:
            h = _read_hypergraph(path)
            for k in ks:
                for tool in tools:
                    bar.set_description(f"{_instance(path)} k={k} {tool}")
                    runs.append(_measure(h, _instance(path), int(k), tool, epsilon, objective,
                                         seed, threads, variants))
                    bar.update(1)
    finally:
        bar.close()
    return {"meta": meta, "tools": tools, "variants": list(variants), "peers": peers,
            "runs": [dataclasses.asdict(r) for r in runs]}


def _read_hypergraph(path) -> Hypergraph:
    h = read(path)
    if not isinstance(h, Hypergraph):
        raise InputError(f"{path}: the benchmark expects hypergraph (.hgr) files")
    return h


def _instance(path) -> str:
    return Path(path).stem if str(path).endswith(".hgr") else Path(path).name


def _measure(h: Hypergraph, name: str, k: int, tool: str, epsilon: float, objective: str,
             seed: int, threads: int, variants: dict[str, dict[str, Any]]) -> Run:
    """One tool on one input and k, checked; a failure is recorded in the run."""
    run = Run(name, k, tool)
    try:
        parts, seconds = _run_tool(tool, h, k, epsilon, objective, seed, threads, variants)
        m = evaluate(h, parts, k, epsilon)
        run.cut, run.km1 = int(m["cut"]), int(m["km1"])
        run.imbalance, run.balanced = float(m["imbalance"]), bool(m["balanced"])
        run.seconds = float(seconds)
    except (PartitionError, InputError, ValueError, RuntimeError) as exc:
        run.error = f"{type(exc).__name__}: {exc}"
    return run


#: The input last read by :func:`run_case` in this process (a cluster worker runs the cases of
#: one file one after the other): (path, hypergraph).
_LAST_INPUT: list = []


def run_case(path: str, k: int, tool: str, epsilon: float, objective: str, seed: int,
             threads: int, variants: dict[str, dict[str, Any]]) -> Run:
    """One (file, k, tool) of :func:`run_benchmark` as a task of a cluster worker: reads the
    file (kept for the next case of the same file) and measures the run."""
    from .kernels import _cpu

    if not _LAST_INPUT or _LAST_INPUT[0] != path:
        _LAST_INPUT[:] = [path, _read_hypergraph(path)]
    _cpu.set_num_threads(int(threads))
    return _measure(_LAST_INPUT[1], _instance(path), k, tool, epsilon, objective, seed, threads,
                    variants)


# ----------------------------------------------------------------------------------- reporting
def _runs(result: dict) -> dict[tuple[str, int, str], Run]:
    return {(r["instance"], r["k"], r["tool"]): Run(**r) for r in result["runs"]}


def ratio_rows(result: dict) -> list[dict[str, Any]]:
    """One row per (instance, k): each tool's run and, for every variant/peer pair, the ratios
    ``variant/peer`` of the objective (``cut_ratio``) and of the seconds (``time_ratio``)."""
    runs = _runs(result)
    obj = result["meta"]["objective"]
    keys = sorted({(r["instance"], r["k"]) for r in result["runs"]},
                  key=lambda x: (x[0], x[1]))
    rows = []
    for inst, k in keys:
        row: dict[str, Any] = {"instance": inst, "k": k, "runs": {}, "ratios": {}}
        for tool in result["tools"]:
            row["runs"][tool] = runs.get((inst, k, tool))
        for v in result["variants"]:
            for p in result["peers"]:
                a, b = row["runs"].get(v), row["runs"].get(p)
                ok = a is not None and b is not None and a.error is None and b.error is None
                row["ratios"][(v, p)] = {
                    "cut": ratio(a.objective(obj), b.objective(obj)) if ok else None,
                    "time": ratio(a.seconds, b.seconds) if ok else None,
                }
        rows.append(row)
    return rows


def summary(result: dict) -> dict[str, Any]:
    """Geometric means of the ratios (overall and per k), unbalanced and failed counts."""
    rows = ratio_rows(result)
    out: dict[str, Any] = {"geomean": {}, "geomean_by_k": {}, "unbalanced": {}, "failed": {}}
    for v in result["variants"]:
        for p in result["peers"]:
            key = f"{v}/{p}"
            out["geomean"][key] = {
                m: geomean([r["ratios"][(v, p)][m] for r in rows]) for m in ("cut", "time")
            }
            by_k = {}
            for k in sorted({r["k"] for r in rows}):
                sel = [r for r in rows if r["k"] == k]
                by_k[k] = {m: geomean([r["ratios"][(v, p)][m] for r in sel])
                           for m in ("cut", "time")}
            out["geomean_by_k"][key] = by_k
    for tool in result["tools"]:
        mine = [Run(**r) for r in result["runs"] if r["tool"] == tool]
        out["unbalanced"][tool] = sum(1 for r in mine if r.error is None and not r.balanced)
        out["failed"][tool] = sum(1 for r in mine if r.error is not None)
    out["runs_per_tool"] = len(rows)
    return out


def _fmt(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _label(tool: str) -> str:
    return PEER_LABELS.get(tool, tool)


def markdown(result: dict) -> str:
    """The report: header lines, the per-instance table, geometric means (overall, per k)."""
    meta = result["meta"]
    obj = meta["objective"]
    rows = ratio_rows(result)
    s = summary(result)
    variants, peers = result["variants"], result["peers"]
    # table columns: the first variant against every peer, other variants against the first peer
    pairs = [(variants[0], p) for p in peers] + [(v, peers[0]) for v in variants[1:] if peers]
    all_pairs = [(v, p) for v in variants for p in peers]
    lines = [
        f"- date: {meta['date']}; machine: {meta['cpu']}, {meta['cores']} cores "
        f"({meta['host']}); Python {meta['python']}; commit {meta['commit']}",
        f"- epsilon {meta['epsilon']}, objective {obj}, threads {meta['threads']}, "
        f"seed {meta['seed']}",
        f"- command: `{meta['command']}`",
    ]
    for note in meta.get("notes", []):
        lines.append(f"- note: {note}")
    lines.append("")
    head = ["instance", "k"]
    for tool in result["tools"]:
        lab = _label(tool)
        head += [f"{lab} {obj}", f"{lab} imb", f"{lab} s"]
    for v, p in pairs:
        head += [f"{v}/{_label(p)} {obj}", f"{v}/{_label(p)} time"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
    for r in rows:
        cells = [r["instance"], str(r["k"])]
        for tool in result["tools"]:
            run = r["runs"].get(tool)
            if run is None or run.error is not None:
                cells += ["error", "–", "–"]
                continue
            flag = "" if run.balanced else " (unbalanced)"
            cells += [str(run.objective(obj)), f"{run.imbalance:.4f}{flag}", f"{run.seconds:.2f}"]
        for pair in pairs:
            q = r["ratios"][pair]
            cells += [_fmt(q["cut"]), _fmt(q["time"], 2)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"Geometric means of the ratios over {s['runs_per_tool']} instance/k pairs "
                 "(< 1: igpart better / faster):")
    lines.append("")
    lines.append(f"| ratio | {obj} | time |")
    lines.append("|---|---:|---:|")
    for v, p in all_pairs:
        g = s["geomean"][f"{v}/{p}"]
        lines.append(f"| {v} / {_label(p)} | {_fmt(g['cut'])} | {_fmt(g['time'], 2)} |")
    lines.append("")
    ks = sorted({r["k"] for r in rows})
    lines.append("Per k (" + obj + " ratio / time ratio):")
    lines.append("")
    lines.append("| ratio | " + " | ".join(f"k={k}" for k in ks) + " |")
    lines.append("|---|" + "|".join(["---:"] * len(ks)) + "|")
    for v, p in all_pairs:
        by_k = s["geomean_by_k"][f"{v}/{p}"]
        cells = [f"{_fmt(by_k[k]['cut'])} / {_fmt(by_k[k]['time'], 2)}" for k in ks]
        lines.append(f"| {v} / {_label(p)} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Unbalanced partitions: " + ", ".join(
        f"{_label(t)} {s['unbalanced'][t]}/{s['runs_per_tool']}" for t in result["tools"]))
    failed = {t: n for t, n in s["failed"].items() if n}
    if failed:
        lines.append("Failed runs: " + ", ".join(f"{_label(t)} {n}" for t, n in failed.items()))
    return "\n".join(lines) + "\n"


def plot(result: dict, path: str | os.PathLike) -> None:
    """Saves a plot of the ratios variant/peer (objective and time, log scale) per instance and
    k. Needs matplotlib (``pip install igpart[plot]``)."""
    if not result["peers"]:
        raise InputError("nothing to plot: the plot shows igpart/peer ratios and no peer ran")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plotting needs matplotlib (pip install 'igpart[plot]')") from None
    rows = ratio_rows(result)
    labels = [f"{r['instance']}\nk={r['k']}" for r in rows]
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.25 * len(rows)), 7), sharex=True)
    obj = result["meta"]["objective"]
    for ax, metric, title in ((axes[0], "cut", f"{obj} ratio"), (axes[1], "time", "time ratio")):
        for v in result["variants"]:
            for p in result["peers"]:
                ys = [r["ratios"][(v, p)][metric] for r in rows]
                ax.plot(range(len(rows)), [y if y is not None else float("nan") for y in ys],
                        marker="o", ms=3, lw=1, label=f"{v} / {_label(p)}")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_ylabel(title)
        ax.legend(fontsize=7)
    axes[1].set_xticks(range(len(rows)))
    axes[1].set_xticklabels(labels, rotation=90, fontsize=6)
    fig.suptitle(f"igpart vs peers (eps {result['meta']['epsilon']}, "
                 f"{result['meta']['threads']} threads)")
    fig.tight_layout()
    with atomic_writer(path) as f:
        fig.savefig(f, format=os.path.splitext(os.fspath(path))[1][1:] or "png", dpi=120)
    plt.close(fig)


def to_json(result: dict) -> str:
    """The raw runs, meta data and summary as one JSON document."""
    s = summary(result)
    s["geomean_by_k"] = {key: {str(k): v for k, v in d.items()}
                         for key, d in s["geomean_by_k"].items()}
    return json.dumps({**result, "summary": s}, indent=1)


def load_config(path: str | os.PathLike) -> dict[str, Any]:
    """Config overrides from a JSON file (an object of Config fields); InputError otherwise."""
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if not isinstance(d, dict):
        raise InputError(f"{path}: expected a JSON object of Config fields")
    try:
        Config.from_dict(d)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    except TypeError as exc:
        raise InputError(f"{path}: {exc}") from None
    return d
