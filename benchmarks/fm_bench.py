"""The FM of the C++ backend inside whole runs: cut, FM time and total time per FM mode.

For every input (``ibm01`` .. ``ibm18`` from the data directory's ``ispd98`` folder, ``NAME:SCALE``
enlarged with ``igpart.generators.inflate``, ``two_pin:N``: the ``10 N`` random two-pin nets
over ``N`` vertices of ``benchmarks/pathological.py``, or a graph of about 2^S vertices as the
suite's ``graphs`` set builds it: ``grid2d:S``, ``grid3d:S``, ``delaunay:S``, ``rgg:S``, whose
FM is the graph pipeline's, ``graph_refinement="lp+fm"``), every k and every mode, runs
``igpart.partition(h, k, backend="cpu", seed=SEED, config={"threads": T, "deterministic": MODE})``
and prints one row: cut (recomputed from the parts), imbalance, the ``fm`` timer (every FM call
of the run, initial partitioning included) and the wall time of the call. Modes: ``seq``
(``deterministic=True``), ``par`` (``False``), ``auto`` (``None``) and ``base`` (no
``deterministic`` key: for a tree that predates it, e.g. ``PYTHONPATH=/old/tree``).

With ``--fm-only`` the FM alone runs on the finest level: from a partition of the input (one
run, sequential FM) with ``--perturb`` of its vertices moved to random blocks and rebalanced, one
``CpuBackend.fm_refine_hypergraph`` call per mode and thread count (the fastest of ``--repeat``);
the row shows the objective after it and the call's wall and CPU seconds. On graphs the call
is ``CpuBackend.fm_refine_graph`` with the pipeline's defaults (3 rounds, 64 fruitless moves,
work bound 8, gain seeds beyond k = 2).

    python benchmarks/fm_bench.py --inputs ibm01,ibm02,two_pin:100000 --ks 2,8,64 \\
        --modes seq,par --threads 2
    python benchmarks/fm_bench.py --inputs neuron:24 --ks 2,16 --modes seq,par --threads 1,16
    python benchmarks/fm_bench.py --inputs neuron:24 --ks 2,16 --fm-only --threads 1,4,16
    python benchmarks/fm_bench.py --inputs grid3d:20,delaunay:20,rgg:20 --ks 2,16,64 \\
        --fm-only --modes seq,par --threads 1,4,16
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import igpart
from igpart.generators import inflate
from igpart.kernels import _cpu, get_backend
from igpart.metrics import evaluate, max_block_weight

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks"))
MODES = {"seq": True, "par": False, "auto": None}


GRAPHS = ("grid2d", "grid3d", "delaunay", "rgg")


def load(spec: str, data: Path) -> igpart.Hypergraph | igpart.Graph:
    name, _, scale = spec.partition(":")
    if name in GRAPHS:
        from igpart import generators

        s = int(scale or 18)
        if name == "grid2d":
            return generators.grid_graph(round(2 ** (s / 2)), round(2 ** (s / 2)))
        if name == "grid3d":
            return generators.grid_graph(*[round(2 ** (s / 3))] * 3)
        return getattr(generators, f"{name}_graph")(2**s, seed=0)
    if name == "two_pin":
        from pathological import two_pin_nets  # this folder is sys.path[0] as a script

        return two_pin_nets(int(scale or 100_000))
    for sub in ("ispd98", "titan23", ""):
        path = data / sub / f"{name}.hgr"
        if path.exists():
            h = igpart.read_hgr(path)
            return inflate(h, int(scale), seed=0) if scale else h
    raise SystemExit(f"fm_bench: no input {spec!r} under {data}")


def fm_only(h, spec: str, k: int, args, rows: list) -> None:
    """The FM alone on a perturbed partition of the finest level (see the module docstring)."""
    be = get_backend("cpu")
    graph = isinstance(h, igpart.Graph)
    ha = be.graph_arrays(h) if graph else be.hypergraph_arrays(h)
    bounds = np.full(k, max_block_weight(h.total_weight, k, args.epsilon), np.int64)
    p = igpart.partition(h, k, epsilon=args.epsilon, objective=args.objective, backend="cpu",
                         seed=args.seed, config={"deterministic": True})
    rng = np.random.default_rng(args.seed)
    parts = p.parts.astype(np.int32).copy()
    moved = rng.random(h.n) < args.perturb
    parts[moved] = rng.integers(0, k, int(moved.sum()))
    if graph:
        parts = be.rebalance_graph(ha, parts, k, bounds)
        start = be.graph_edge_cut(ha, parts)
    else:
        parts = be.rebalance_hypergraph(ha, parts, k, bounds, args.objective)
        start = be.hypergraph_objective(ha, parts, k, args.objective)
    for threads in (int(x) for x in args.threads.split(",")):
        for mode in args.modes.split(","):
            best = None
            for _ in range(args.repeat):
                before = _cpu.get_num_threads()
                _cpu.set_num_threads(threads)
                try:
                    w0, c0 = time.perf_counter(), time.process_time()
                    if graph:
                        out, gain = be.fm_refine_graph(ha, parts, k, bounds, seed=args.seed,
                                                       max_work=8.0, gain_seeds=k > 2,
                                                       deterministic=MODES[mode])
                    else:
                        out, gain = be.fm_refine_hypergraph(ha, parts, k, bounds,
                                                            args.objective, seed=args.seed,
                                                            max_work=32.0,
                                                            deterministic=MODES[mode])
                    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                finally:
                    _cpu.set_num_threads(before)
                if best is None or wall < best[0]:
                    best = (wall, cpu, start - gain)
            row = dict(input=spec, k=k, threads=threads, mode=mode, start=int(start),
                       value=int(best[2]), fm=best[0], cpu=best[1])
            rows.append(row)
            print(f"| {spec} | {k} | {threads} | {mode} | {start} -> {best[2]} | "
                  f"{best[0]:.2f} | {best[1]:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default="ibm01,ibm02,ibm03,ibm04,ibm05,two_pin:100000")
    ap.add_argument("--ks", default="2,8,64")
    ap.add_argument("--modes", default="seq,par", help=f"comma-separated, of {[*MODES, 'base']}")
    ap.add_argument("--threads", default="2", help="comma-separated thread counts")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", default="cut", choices=("cut", "km1"))
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--json", help="also write the rows to this JSON file")
    ap.add_argument("--fm-only", action="store_true", help="time the FM alone (see above)")
    ap.add_argument("--perturb", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    print(f"# {platform.node()}, {os.cpu_count()} CPUs, igpart from {Path(igpart.__file__).parent}")
    if args.fm_only:
        print(f"| input | k | threads | mode | {args.objective} start -> after | wall s | cpu s |")
        print("|---|---|---|---|---|---|---|")
    else:
        print("| input | k | threads | mode | cut | imbalance | fm s | total s |")
        print("|---|---|---|---|---|---|---|---|")
    rows: list[dict] = []
    for spec in args.inputs.split(","):
        h = load(spec, Path(args.data))
        for k in (int(x) for x in args.ks.split(",")):
            if args.fm_only:
                fm_only(h, spec, k, args, rows)
                continue
            for threads in (int(x) for x in args.threads.split(",")):
                for mode in args.modes.split(","):
                    cfg = {"threads": threads}
                    if mode != "base":
                        cfg["deterministic"] = MODES[mode]
                    t0 = time.perf_counter()
                    p = igpart.partition(h, k, epsilon=args.epsilon, objective=args.objective,
                                         backend="cpu", seed=args.seed, config=cfg)
                    total = time.perf_counter() - t0
                    if isinstance(h, igpart.Graph):  # the edge cut, recomputed
                        be = get_backend("cpu")
                        heaviest = np.bincount(p.parts, weights=h.vwgt, minlength=k).max()
                        m = {args.objective: be.graph_edge_cut(be.graph_arrays(h), p.parts),
                             "imbalance": p.imbalance, "balanced": heaviest <= max_block_weight(
                                 h.total_weight, k, args.epsilon)}
                    else:
                        m = evaluate(h, p.parts, k, args.epsilon)
                    assert m["balanced"], (spec, k, mode)
                    row = dict(input=spec, k=k, threads=threads, mode=mode,
                               cut=int(m[args.objective]), imbalance=float(m["imbalance"]),
                               fm=float(p.timings.get("fm", 0.0)), total=total)
                    rows.append(row)
                    print(f"| {spec} | {k} | {threads} | {mode} | {row['cut']} | "
                          f"{row['imbalance']:.4f} | {row['fm']:.2f} | {total:.2f} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
