"""Time of the recursive-bisection initial partitioner on the coarsest level of inflated inputs.

For every input (an ISPD98 circuit inflated with ``igpart.generators.inflate``) and k, runs the
multilevel driver on the C++ backend down to its coarsest level and keeps that level together
with the arguments the driver hands to ``igpart.initial.initial_partition`` (the driver stops
there). Then times, for every ``--threads`` value, (a) one ``recursive_bisection`` of the
coarsest level with the driver's METIS seeds per bisection and (b) the whole initial
partitioning as the driver runs it (``initial_rb_runs`` recursive bisections on a thread pool,
each refined k-way), best of ``--reps``, and prints an md5 of the partitions, so that runs of
two versions of igpart (``PYTHONPATH=<other checkout>``) show identical results and their
times in one table. Versions without the ``threads`` argument of ``recursive_bisection`` run
it on one thread. ``--bisectors`` (default ``metis``) repeats the timings for each
``Config.initial_bisector`` (versions without it: ``metis`` only).

    python benchmarks/rb_bench.py --inputs ibm01:20,ibm09:10 --ks 16,64 --threads 1,2
    python benchmarks/rb_bench.py --ks 2,64 --threads 1,2 --bisectors metis,ghg,both
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import inspect
import os
import time
from pathlib import Path

import igpart
import igpart.multilevel as ml
from igpart.generators import inflate
from igpart.recursive import recursive_bisection

REPO = Path(__file__).resolve().parents[1]
ISPD98 = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks")) / "ispd98"


class _Coarsest(Exception):
    """Raised by the stand-in of initial_partition to stop the driver on its coarsest level."""


def coarsest_level(h, k: int, seed: int):
    """(coarsest hypergraph, positional and keyword arguments of the driver's
    initial_partition call)."""
    seen = {}

    def stop(*args, **kwargs):
        seen.update(args=args, kwargs=kwargs)
        raise _Coarsest

    real = ml.initial_partition
    ml.initial_partition = stop
    try:
        igpart.partition(h, k, backend="cpu", seed=seed)
    except _Coarsest:
        pass
    finally:
        ml.initial_partition = real
    return seen["args"][0], seen["args"], seen["kwargs"]


def best_of(reps: int, fn):
    """(smallest wall time of ``reps`` calls, result of the last call)."""
    best, out = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm01:20", help="name:scale,... (ISPD98 circuits)")
    ap.add_argument("--ks", default="16,64")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bisectors", default="metis", help="Config.initial_bisector values")
    args = ap.parse_args()
    has_threads = "threads" in inspect.signature(recursive_bisection).parameters
    print(f"igpart from {Path(igpart.__file__).parent}; recursive_bisection threads: {has_threads}")
    print(
        "| input | k | coarsest n | rb runs x seeds | bisector | threads | one rb s | initial s "
        "| md5 |"
    )
    print("|---|---:|---:|---|---|---:|---:|---:|---|")
    for item in args.inputs.split(","):
        name, scale = item.split(":")
        h = igpart.read_hgr(ISPD98 / f"{name}.hgr")
        if int(scale) > 1:
            h = inflate(h, int(scale), seed=0)
        for k in map(int, args.ks.split(",")):
            coarse, cargs, base = coarsest_level(h, k, args.seed)
            for bisector, threads in (
                (b, t) for b in args.bisectors.split(",") for t in map(int, args.threads.split(","))
            ):
                ckw = dict(base)
                if bisector != "metis":
                    ckw["config"] = dataclasses.replace(ckw["config"], initial_bisector=bisector)
                    ckw["bisector"] = bisector
                extra = {"threads": threads} if has_threads else {}

                def one_rb(coarse=coarse, k=k, ckw=ckw, extra=extra):
                    return recursive_bisection(
                        coarse, k, 0.03, "cut", seed=args.seed, runs=ckw["rb_seeds"],
                        max_net_size=ckw["max_net_size"], config=ckw["config"], **extra,
                    )  # fmt: skip

                t_rb, p_rb = best_of(args.reps, one_rb)
                kw = {**ckw, "threads": threads}
                driver = functools.partial(ml.initial_partition, *cargs, **kw)
                t_init, p_init = best_of(args.reps, driver)
                digest = hashlib.md5(p_rb.tobytes() + p_init.tobytes()).hexdigest()[:10]
                print(
                    f"| {name}x{scale} | {k} | {coarse.n} | {ckw['rb_runs']} x {ckw['rb_seeds']} "
                    f"| {bisector} | {threads} | {t_rb:.3f} | {t_init:.3f} | {digest} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
