"""Time of the recursive-bisection initial partitioner on the coarsest level of inflated inputs.

For every input (an ISPD98 circuit inflated with ``igpart.generators.inflate``) and k, runs the
multilevel driver on the C++ backend down to its coarsest level and keeps that level together with
the arguments the driver hands to ``igpart.partitioner.initial.pool.initial_partition`` (the driver
stops there). Then times, for every ``--threads`` value, (a) one ``recursive_bisection`` of the
coarsest level with the driver's METIS seeds per bisection and (b) the whole initial partitioning as
the driver runs it (``initial_rb_runs`` recursive bisections on a thread pool,
each refined k-way), best of ``--reps``, and prints an md5 of the partitions, so that runs of
two versions of igpart (``PYTHONPATH=<other checkout>``) show identical results and their
times in one table. Versions without the ``threads`` argument of ``recursive_bisection`` run
it on one thread. ``--bisectors`` (default ``metis``) repeats the timings for each
``Config.initial_bisector`` (versions without it: ``metis`` only). ``--metis-processes``
(default ``0``) repeats them for each ``Config.initial_metis_processes`` (METIS in that many worker
processes; the pool is started and warmed up before the timings, its start-up time is printed
first); ``--e2e`` adds the ``initial`` timer of a whole ``igpart.partition`` run (C++ backend,
best of ``--reps``).

    python benchmarks/rb_bench.py --inputs ibm01:20,ibm09:10 --ks 16,64 --threads 1,2
    python benchmarks/rb_bench.py --ks 2,64 --threads 1,2 --bisectors metis,ghg,both
    python benchmarks/rb_bench.py --inputs ibm01:20,ibm09:10 --ks 16,64 --threads 2 \
        --metis-processes 0,2 --e2e

``--phases`` prints instead where one recursive bisection's time goes (one thread, in-process,
best of ``--reps`` by total): per bisection the phases of its k = 2 pipeline (the ``timings``
keys: communities, coarsen, contract, initial, refine, fm, ...), of which METIS, and the
sub-hypergraph extraction, summed over the ``k - 1`` bisections, the critical path (the
longest chain of bisections from the first to a last one: what threads cannot shorten) and the
time per recursion level (blocks per bisection); ``--config`` (JSON of Config fields) and
``--variants`` (JSON, name -> Config fields) compare settings on the same coarsest levels,
with the cut of each recursive bisection (``--seeds`` seeds: the mean). Without ``--phases``,
``--config`` applies the fields the imported igpart has, and ``--no-subtrees`` sends every
bisection to the workers on its own (``recursive.SUBTREES_IN_WORKERS`` off: same partitions):

    python benchmarks/rb_bench.py --phases --inputs ibm01:1,ibm05:1,ibm10:1,ibm10:4 --ks 16,64
    python benchmarks/rb_bench.py --phases --inputs ibm01:1,ibm10:1 --ks 64 --seeds 3 \
        --variants '{"old": {"initial_rb_min_seeds": 0}, "new": {}}'
    python benchmarks/rb_bench.py --inputs ibm01:20,ibm10:10 --ks 64 --threads 16 \
        --metis-processes 15 --config '{"initial_rb_min_seeds": 0}' --no-subtrees
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import inspect
import json
import os
import threading
import time
from pathlib import Path

import numpy as np

import igpart
import igpart.partitioner.initial.coarsest as ml
from igpart.generators import inflate
from igpart.partitioner.config import Config
from igpart.partitioner.driver import bisect
from igpart.partitioner.initial.recursive import recursive_bisection

REPO = Path(__file__).resolve().parents[1]
ISPD98 = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks")) / "ispd98"


class _Coarsest(Exception):
    """Raised by the stand-in of initial_partition to stop the driver on its coarsest level."""


def coarsest_level(h, k: int, seed: int, config=None, backend: str = "cpu"):
    """(coarsest hypergraph, positional and keyword arguments of the driver's
    initial_partition call) of a run on ``backend`` with ``config`` (Config fields)."""
    seen = {}

    def stop(*args, **kwargs):
        seen.update(args=args, kwargs=kwargs)
        raise _Coarsest

    real = ml.initial_partition
    ml.initial_partition = stop
    try:
        igpart.partition(h, k, backend=backend, seed=seed, config=config)
    except _Coarsest:
        pass
    finally:
        ml.initial_partition = real
    return seen["args"][0], seen["args"], seen["kwargs"]


def inputs(spec: str):
    """(name, scale, hypergraph) of every ``name:scale`` of ``spec`` (ISPD98 circuits, inflated
    with ``igpart.generators.inflate`` when the scale is above 1)."""
    for item in spec.split(","):
        name, scale = item.split(":")
        h = igpart.read_hgr(ISPD98 / f"{name}.hgr")
        if int(scale) > 1:
            h = inflate(h, int(scale), seed=0)
        yield name, scale, h


def as_driver(config, kwargs: dict, h):
    """``config`` with the values the driver's initial partitioning resolves for its recursive
    bisections (``kwargs``: its keyword arguments; ``h``: the input): the seed floor depends on
    the candidates and the input's size, not on the coarsest level a direct call sees
    (versions without it: ``config``)."""
    try:
        from igpart.partitioner.context import rb_min_seeds
    except ImportError:
        return config
    floor = rb_min_seeds(config, kwargs["rb_runs"], h.n >= config.initial_runs_min_n)
    return dataclasses.replace(config, initial_rb_min_seeds=floor)


def best_of(reps: int, fn):
    """(smallest wall time of ``reps`` calls, result of the last call)."""
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def pool_start_up(size: int) -> float:
    """Seconds from starting a fresh pool of ``size`` METIS workers to the end of ``size``
    concurrent METIS calls on a tiny graph (process start, imports, first call)."""
    from igpart.parallel import metis_pool
    from igpart.partitioner.initial.metis import metis_partition

    u = np.arange(63)
    g = igpart.Graph.from_edges(u, u + 1, None, n=64)
    metis_pool.shutdown()
    t = time.perf_counter()
    metis_pool.get_pool(size)
    calls = [threading.Thread(target=metis_partition, args=(g, 2), kwargs={"processes": size})
             for _ in range(size)]  # fmt: skip
    for c in calls:
        c.start()
    for c in calls:
        c.join()
    return time.perf_counter() - t


def phases(coarse, k: int, base: dict, config, seed: int, reps: int) -> dict:
    """Where one recursive bisection of ``coarse`` into ``k`` blocks spends its time (see the
    module docstring): ``{"total", "bisections", "phases": {name: s}, "critical", "levels":
    {blocks: (count, s)}, "parts"}`` of the fastest of ``reps`` runs."""
    import igpart.partitioner.driver as driver
    import igpart.partitioner.initial.metis as metis
    import igpart.partitioner.initial.recursive as rec
    from igpart.parallel.threads import c_stdout_to_stderr

    best = None
    for _ in range(reps):
        rows: list = []  # (blocks of the bisection, its first block, seconds, timings)
        extra = {"metis": 0.0, "sub_hypergraph": 0.0}

        def timed(fn, key):
            def run(*args, **kwargs):
                t = time.perf_counter()
                try:
                    return fn(*args, **kwargs)
                finally:
                    extra[key] += time.perf_counter() - t
            return run

        def one(be, h, bounds, eps, objective, s, cfg, *args, **kwargs):
            timer = driver.Timer()
            t = time.perf_counter()
            out = driver.multilevel_hypergraph(h, 2, eps, objective, be, s, cfg, timer,
                                               block_bounds=bounds, *args, **kwargs)
            blocks = round(k * h.total_weight / max(1, coarse.total_weight))
            rows.append((blocks, time.perf_counter() - t, timer.timings))
            return out

        real_metis, real_sub = metis._metis_here, rec.sub_hypergraph
        metis._metis_here = timed(real_metis, "metis")
        rec.sub_hypergraph = timed(real_sub, "sub_hypergraph")
        try:
            with c_stdout_to_stderr():
                t = time.perf_counter()
                parts = recursive_bisection(
                    coarse, k, 0.03, "cut", seed=seed, runs=base["rb_seeds"],
                    max_net_size=base["max_net_size"], config=config, bisect=_fixed_args(one))
                total = time.perf_counter() - t
        finally:
            metis._metis_here, rec.sub_hypergraph = real_metis, real_sub
        if best is None or total < best["total"]:
            summed: dict = {}
            levels: dict = {}
            for blocks, secs, timings in rows:
                for name, v in timings.items():
                    summed[name] = summed.get(name, 0.0) + v
                count, level_s = levels.get(blocks, (0, 0.0))
                levels[blocks] = (count + 1, level_s + secs)
            # the longest chain: one bisection per level, the slowest of each (an upper bound
            # of the true chain, exact when the levels' bisections take about the same time)
            critical = sum(max(secs for b, secs, _ in rows if b == blocks) for blocks in levels)
            best = {"total": total, "bisections": sum(r[1] for r in rows),
                    "phases": {**summed, **extra}, "critical": critical, "levels": levels,
                    "parts": parts}
    return best


def _fixed_args(fn):
    """``fn`` with the Bisect signature's optional ``fixed`` and ``communities`` passed on as
    keywords of ``multilevel_hypergraph``."""
    def run(be, h, bounds, eps, objective, seed, cfg, fixed=None, **kwargs):
        return fn(be, h, bounds, eps, objective, seed, cfg, fixed=fixed, **kwargs)
    return run


def main_phases(args) -> None:
    """``--phases``: the breakdown table (see the module docstring)."""
    from igpart.metrics import evaluate

    variants = json.loads(args.variants) if args.variants else {"": json.loads(args.config)}
    print("| input | k | coarsest n | seeds | variant | cut | total s | sum of bisections s "
          "| critical path s | phases s (summed over bisections) | per level: blocks count s |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---|---|")
    warm = False
    for name, scale, h in inputs(args.inputs):
        for k in map(int, args.ks.split(",")):
            coarse, _, base = coarsest_level(h, k, args.seed)
            cbase = base["config"]
            cbase = getattr(cbase, "base", None) or cbase
            for vname, over in variants.items():
                config = as_driver(dataclasses.replace(cbase, **over), base, h)
                if not warm:  # first METIS / kernel calls
                    phases(coarse, k, base, config, args.seed, 1)
                    warm = True
                cuts, runs = [], []
                for s in range(args.seed, args.seed + args.seeds):
                    r = phases(coarse, k, base, config, s, args.reps)
                    cuts.append(evaluate(coarse, r["parts"], k, 0.03)["cut"])
                    runs.append(r)
                r = min(runs, key=lambda x: x["total"]) if args.seeds == 1 else runs[0]
                mean = {key: float(np.mean([x[key] for x in runs]))
                        for key in ("total", "bisections", "critical")}
                ph = " ".join(f"{n} {v:.3f}" for n, v in
                              sorted(r["phases"].items(), key=lambda x: -x[1]) if v >= 0.0005)
                lv = " ".join(f"{b}:{c}:{t:.3f}" for b, (c, t) in sorted(r["levels"].items()))
                print(f"| {name}x{scale} | {k} | {coarse.n} | {base['rb_seeds']} | {vname} "
                      f"| {np.mean(cuts):.0f} | {mean['total']:.3f} | {mean['bisections']:.3f} "
                      f"| {mean['critical']:.3f} | {ph} | {lv} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm01:20", help="name:scale,... (ISPD98 circuits)")
    ap.add_argument("--ks", default="16,64")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bisectors", default="metis", help="Config.initial_bisector values")
    ap.add_argument("--metis-processes", default="0", help="Config.initial_metis_processes values")
    ap.add_argument("--e2e", action="store_true", help="also time igpart.partition's initial")
    ap.add_argument("--phases", action="store_true",
                    help="where one recursive bisection's time goes (see above)")
    ap.add_argument("--config", default="{}",
                    help="Config fields (JSON; without --phases those this igpart has)")
    ap.add_argument("--no-subtrees", action="store_true",
                    help="recursive.SUBTREES_IN_WORKERS off: one worker request per bisection")
    ap.add_argument("--variants", default="", help="--phases: name -> Config fields (JSON)")
    ap.add_argument("--seeds", type=int, default=1, help="--phases: seeds from --seed on")
    args = ap.parse_args()
    if args.no_subtrees:
        import igpart.partitioner.initial.recursive as rec

        rec.SUBTREES_IN_WORKERS = False
    if args.phases:
        main_phases(args)
        return
    procs = [int(p) for p in args.metis_processes.split(",")]
    for p in sorted({p for p in procs if p > 0}):
        print(f"METIS worker pool start-up ({p} workers, to {p} first calls done): "
              f"{pool_start_up(p):.3f} s")  # fmt: skip
    has_threads = "threads" in inspect.signature(recursive_bisection).parameters
    has_procs = any(f.name == "initial_metis_processes" for f in dataclasses.fields(Config))
    print(f"igpart from {Path(igpart.__file__).parent}; recursive_bisection threads: {has_threads}")
    print(
        "| input | k | coarsest n | rb runs x seeds | bisector | threads | METIS processes "
        "| one rb s | initial s | e2e initial s | md5 |"
    )
    print("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---|")
    for name, scale, h in inputs(args.inputs):
        for k in map(int, args.ks.split(",")):
            coarse, cargs, base = coarsest_level(h, k, args.seed)
            for bisector, threads, nproc in (
                (b, t, p)
                for b in args.bisectors.split(",")
                for t in map(int, args.threads.split(","))
                for p in procs
            ):
                ckw = dict(base)
                known = {f.name for f in dataclasses.fields(Config)}
                fields = {n: v for n, v in json.loads(args.config).items() if n in known}
                if fields:  # --config: the fields this version of igpart has
                    ckw["config"] = dataclasses.replace(ckw["config"], **fields)
                if bisector != "metis":
                    ckw["config"] = dataclasses.replace(ckw["config"], initial_bisector=bisector)
                    ckw["bisector"] = bisector
                overrides = {**fields, "threads": threads, "initial_bisector": bisector}
                if nproc or has_procs:  # 0 explicitly too: the default (-1) may choose workers
                    ckw["config"] = dataclasses.replace(
                        ckw["config"], initial_metis_processes=nproc
                    )
                    ckw["metis_processes"] = nproc
                    overrides["initial_metis_processes"] = nproc
                extra = {"threads": threads} if has_threads else {}

                def one_rb(coarse=coarse, k=k, ckw=ckw, extra=extra):
                    return recursive_bisection(
                        coarse, k, 0.03, "cut", seed=args.seed, runs=ckw["rb_seeds"],
                        max_net_size=ckw["max_net_size"], config=as_driver(ckw["config"], ckw, h),
                        bisect=bisect,
                        **extra,
                    )  # fmt: skip

                t_rb, p_rb = best_of(args.reps, one_rb)
                kw = {**ckw, "threads": threads}
                driver = functools.partial(ml.initial_partition, *cargs, **kw)
                t_init, p_init = best_of(args.reps, driver)
                digest = hashlib.md5(p_rb.tobytes() + p_init.tobytes())
                t_e2e = float("nan")
                if args.e2e:
                    t_e2e = float("inf")
                    for _ in range(args.reps):
                        res = igpart.partition(h, k, backend="cpu", seed=args.seed,
                                               config=overrides)  # fmt: skip
                        t_e2e = min(t_e2e, res.timings["initial"])
                    digest.update(res.parts.tobytes())
                print(
                    f"| {name}x{scale} | {k} | {coarse.n} | {ckw['rb_runs']} x {ckw['rb_seeds']} "
                    f"| {bisector} | {threads} | {nproc} | {t_rb:.3f} | {t_init:.3f} "
                    f"| {t_e2e:.3f} | {digest.hexdigest()[:10]} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
