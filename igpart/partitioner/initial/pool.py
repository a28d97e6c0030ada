"""Initial partitioning of the coarsest level: the pool of candidates (recursive bisection,
:mod:`.recursive`; METIS with several seeds, :mod:`.metis`; greedy hypergraph growing at k = 2;
Mt-KaHyPar when asked for and installed, :mod:`.mtkahypar`), each rebalanced and refined by the
caller's backend, the best balanced one kept. ``initial_partition`` is what
:mod:`.coarsest` calls on the coarsest level of the driver's hierarchy.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from ...errors import PartitionError
from ...hypergraph import Graph, Hypergraph
from ...kernels import omp_threads
from ...metrics import block_weights, max_block_weight
from ...parallel.threads import c_stdout_to_stderr
from ..config import INITIAL_BISECTORS, INITIAL_METHODS, Config
from ..context import rb_min_seeds, resolve_initial_method
from .metis import CLIQUE_MAX_NET_SIZE, metis_partitions, target_fractions
from .mtkahypar import mtkahypar_available, mtkahypar_partition
from .recursive import Bisect, recursive_bisection

log = logging.getLogger("igpart")


#: Greedy-growing runs per METIS seed they stand for (``Config.initial_bisector``).
GHG_RUNS_FACTOR = 1


def ghg_bisections(h: Hypergraph, bounds, seed: int = 0, runs: int = 1) -> np.ndarray:
    """Greedy hypergraph growing bisections of ``h`` (C++, without the GIL): an int32 array of
    shape (``runs``, n), row r the block ids 0/1 of seed ``seed + r``. Run s grows block
    ``s mod 2`` from a seeded start vertex, always taking the adjacent vertex with the highest
    share (seeds with ``s // 2`` even) or weight (odd) of its clique-expansion weight towards
    that block (ties: the cut gain, then a seeded hash; the cut gain first made every seed grow
    the same scattered block on dense coarsest levels, see ``kernels/cpu/initial.cpp``), until
    that block reaches its share ``bounds[b] / sum(bounds)``
    of the total weight, never exceeding ``bounds[b]`` (``bounds``: the two blocks' weight
    bounds). As KaHyPar / Mt-KaHyPar's initial-partitioning pool; callers rebalance and refine.
    Deterministic for a seed, whatever the number of threads."""
    from ...kernels import _cpu

    if not isinstance(h, Hypergraph):
        raise PartitionError(f"ghg_bisections needs a Hypergraph, got {type(h).__name__}")
    bounds = np.ascontiguousarray(bounds, dtype=np.int64)
    if bounds.shape != (2,):
        raise PartitionError(f"ghg_bisections needs two block bounds, got {bounds.shape}")
    flat = _cpu.greedy_bisect_hypergraph(
        np.ascontiguousarray(h.eptr, dtype=np.int64),
        np.ascontiguousarray(h.eind, dtype=np.int32),
        np.ascontiguousarray(h.ewgt, dtype=np.int64),
        np.ascontiguousarray(h.vptr, dtype=np.int64),
        np.ascontiguousarray(h.vind, dtype=np.int32),
        np.ascontiguousarray(h.vwgt, dtype=np.int64),
        bounds,
        int(seed),
        int(runs),
    )
    return np.asarray(flat, dtype=np.int32).reshape(int(runs), h.n)


def _batch_results(h, k: int, bounds, candidates, refine_batch) -> list:
    """``initial_partition``'s candidate results ((overload, objective), parts) through one
    ``refine_batch`` call on the distinct candidates (in order of first appearance)."""
    made = [np.asarray(make(), dtype=np.int32) for _, make in candidates]
    first: dict[bytes, int] = {}
    index = [first.setdefault(p.tobytes(), len(first)) for p in made]
    unique = [None] * len(first)
    for p, i in zip(made, index):
        unique[i] = p
    refined, values = refine_batch(unique)
    out = []
    for parts, value in zip(refined, values):
        parts = np.asarray(parts, dtype=np.int32)
        overload = int(np.maximum(block_weights(h, parts, k) - bounds, 0).sum())
        out.append(((overload, int(value)), parts))
    return [out[i] for i in index]


_MTK_INIT: dict = {}


def initial_partition(
    h: Hypergraph | Graph,
    k: int,
    epsilon: float,
    objective: str,
    *,
    seed: int = 0,
    method: str = "metis",
    runs: int = 4,
    max_net_size: int = CLIQUE_MAX_NET_SIZE,
    refine: Callable[[np.ndarray], np.ndarray] | None = None,
    evaluate: Callable[[np.ndarray], int] | None = None,
    threads: int = 1,
    rb_runs: int = 2,
    rb_seeds: int = 4,
    config: Any = None,
    block_bounds: np.ndarray | None = None,
    large: bool = False,
    polish: Callable[[np.ndarray], np.ndarray] | None = None,
    polish_top: int = 0,
    bisector: str = "metis",
    metis_processes: int = 0,
    refine_batch: Callable[[list[np.ndarray]], tuple[list[np.ndarray], list[int]]] | None = None,
    fixed: np.ndarray | None = None,
    bisect: Bisect | None = None,
) -> np.ndarray:
    """The best balanced partition of ``h`` (the coarsest level) among several candidates.

    Candidates: Mt-KaHyPar (``mtkahypar`` or ``all``, when installed; ``mtkahypar`` falls back
    to METIS), recursive bisection with seeds ``seed .. seed+rb_runs-1`` and ``rb_seeds`` METIS
    seeds per bisection (``rb`` or ``rb+metis``, hypergraphs only, :mod:`.recursive`,
    using ``config``'s coarsening and refinement knobs) and METIS with seeds
    ``seed .. seed+runs-1`` (``metis``, ``all``, ``rb+metis``, and graphs whatever the method);
    ``bisector`` (``Config.initial_bisector``) applies to hypergraphs at k = 2: the METIS seeds
    there (and inside every bisection of ``rb``) are replaced by greedy hypergraph growing with
    the same seeds (``"ghg"``, :func:`ghg_bisections`) or joined by them (``"both"``: METIS
    first); ``"metis"``: METIS only.
    ``auto`` is resolved by :func:`resolve_initial_method` (``large``: the input the coarsest
    level stands for is large, ``Config.initial_runs_min_n``). ``block_bounds`` (int64 per block,
    default the k-way bound ``max_block_weight``) sets a bound per block; METIS then aims at
    weights in their proportions.
    ``refine(parts) -> parts`` (rebalance + refinement on the caller's backend) is applied to each;
    ``evaluate(parts) -> int`` scores them. Both must be deterministic: a candidate equal to an
    earlier one gets that one's result without being refined again. The best balanced candidate
    wins (ties: the first in the order above, so the result does not depend on ``threads``); when
    none is balanced, the least overloaded one is returned and the caller reports it. With
    ``threads > 1`` candidates run concurrently in a thread pool (METIS and the C++ refinement
    release the GIL).

    ``polish(parts) -> parts`` (optional, deterministic, must keep a balanced partition balanced
    and never worsen it; FM in the multilevel driver): with ``polish_top > 0`` it runs after
    ``refine`` on the ``polish_top`` best refined candidates only (order: overload, objective,
    candidate order; distinct partitions only), which are scored again; with ``polish_top == 0``
    it runs on every candidate right after ``refine``. The winner is then chosen as above among
    all candidates, polished or not.

    ``metis_processes`` (``Config.initial_metis_processes``): the METIS candidates run in that many
    worker processes (:mod:`igpart.parallel.metis_pool`) instead of in-process (0), so that they run
    concurrently on ``threads``; the blocks are the same.

    ``refine_batch(list of parts) -> (refined parts, objective values)`` (optional): does what
    ``refine`` then ``evaluate`` do, for many candidates in one call (the C++ backend's
    ``refine_candidates``, on ``threads`` OpenMP threads: no thread pool, no GIL between
    candidates). Used instead of them when every candidate is a METIS or greedy-growing one
    (no recursive bisection, no Mt-KaHyPar): the candidates are collected, the distinct ones
    refined in one call; the same result.

    ``fixed`` (int32 per vertex, -1: free): recursive bisection fixes them in every bisection
    and Mt-KaHyPar takes them as its fixed vertices; the other candidates know nothing of them,
    so ``refine`` / ``refine_batch`` must put them into their blocks (:mod:`.coarsest`
    renames the candidate's blocks to agree with them first,
    :func:`igpart.fixed.align_to_fixed`). ``bisect``: the k = 2 pipeline each recursive
    bisection runs (:data:`.recursive.Bisect`; needed when a hypergraph gets ``rb`` candidates).
    """
    if method not in INITIAL_METHODS:
        raise PartitionError(f"unknown initial partitioning method '{method}'")
    if bisector not in INITIAL_BISECTORS:
        raise PartitionError(f"unknown initial bisector '{bisector}'")
    method = resolve_initial_method(method, k, isinstance(h, Hypergraph), large)
    if k == 1:
        return np.zeros(h.n, dtype=np.int32)
    candidates: list[tuple[str, Callable[[], np.ndarray]]] = []
    if block_bounds is None:
        bounds = np.full(k, max_block_weight(h.total_weight, k, epsilon), dtype=np.int64)
    else:
        bounds = np.asarray(block_bounds, dtype=np.int64)
    use_mtk = method in ("mtkahypar", "all") and isinstance(h, Hypergraph) and mtkahypar_available()
    if use_mtk:
        candidates.append(
            ("mtkahypar", lambda: mtkahypar_partition(h, k, epsilon, objective, seed,
                                                      fixed=fixed))
        )
    use_rb = method in ("rb", "rb+metis") and isinstance(h, Hypergraph)
    use_metis = method in ("metis", "all", "rb+metis") or not (use_mtk or use_rb)
    if use_rb and bisect is None:
        raise PartitionError("initial partitioning by recursive bisection needs the bisection "
                             "pipeline (bisect=)")
    if use_rb:
        # the threads the candidates' pool leaves over go to the bisections inside each
        # (candidates run one after another next to Mt-KaHyPar, see below)
        count = max(1, rb_runs) + (max(1, runs) if use_metis else 0)
        rb_threads = max(1, int(threads) // (1 if use_mtk else max(1, min(int(threads), count))))
        # the seed floor of each bisection depends on the candidates and the input's size
        rb_config = config if config is not None else Config()
        rb_config = dataclasses.replace(
            rb_config, initial_rb_min_seeds=rb_min_seeds(rb_config, max(1, rb_runs), large))
        for r in range(max(1, rb_runs)):
            candidates.append(
                (
                    f"rb/{seed + r}",
                    lambda s=seed + r: recursive_bisection(
                        h,
                        k,
                        epsilon,
                        objective,
                        seed=s,
                        runs=rb_seeds,
                        max_net_size=max_net_size,
                        config=rb_config,
                        threads=rb_threads,
                        concurrent=count > 1 and int(threads) > 1,
                        **({} if fixed is None else {"fixed": fixed}),
                        block_bounds=block_bounds,
                        bisect=bisect,
                    ),
                )
            )
    tpwgts = None if block_bounds is None else target_fractions(bounds)
    use_ghg = use_metis and k == 2 and isinstance(h, Hypergraph) and bisector != "metis"
    if use_metis and not (use_ghg and bisector == "ghg"):
        # one clique expansion for every seed
        g = h if isinstance(h, Graph) else h.to_graph("clique", max_net_size=max_net_size)
        seeds = [seed + r for r in range(max(1, runs))]
        getters = metis_partitions(g, k, epsilon, seeds, tpwgts=tpwgts, processes=metis_processes)
        candidates += [(f"metis/{s}", get) for s, get in zip(seeds, getters)]
    if use_ghg:
        # every seed in one C++ call (no GIL, no process-global RNG)
        count = max(1, runs) * GHG_RUNS_FACTOR
        grown = ghg_bisections(h, bounds, seed, count)
        for r in range(count):
            candidates.append((f"ghg/{seed + r}", lambda row=grown[r]: row))

    # METIS often returns the same blocks for several seeds (a quarter to a third of the
    # candidates inside recursive bisection): those are refined and scored once
    # (a thread that meets a candidate another one is still refining waits for its result)
    done: dict[bytes, Future] = {}
    done_lock = threading.Lock()

    def attempt(candidate: tuple[str, Callable[[], np.ndarray]]) -> tuple[tuple[int, int], Any]:
        name, make = candidate
        parts = np.asarray(make(), dtype=np.int32)
        with done_lock:
            known = done.get(parts.tobytes())
            if known is None:
                mine = done[parts.tobytes()] = Future()
        if known is not None:
            log.debug("initial candidate %s: the same as an earlier one", name)
            return known.result()
        try:
            if refine is not None:
                parts = np.asarray(refine(parts), dtype=np.int32)
            if polish is not None and polish_top <= 0:
                parts = np.asarray(polish(parts), dtype=np.int32)
            overload = int(np.maximum(block_weights(h, parts, k) - bounds, 0).sum())
            value = int(evaluate(parts)) if evaluate is not None else 0
        except BaseException as exc:
            mine.set_exception(exc)
            raise
        log.debug("initial candidate %s: objective %d, overload %d", name, value, overload)
        mine.set_result(((overload, value), parts))
        return (overload, value), parts

    def polished(parts: np.ndarray) -> tuple[tuple[int, int], Any]:
        parts = np.asarray(polish(parts), dtype=np.int32)
        overload = int(np.maximum(block_weights(h, parts, k) - bounds, 0).sum())
        value = int(evaluate(parts)) if evaluate is not None else 0
        return (overload, value), parts

    def sharing(fn: Callable, pool_size: int) -> Callable:
        """``fn`` run on one of ``pool_size`` worker threads: its C++ calls get that share of
        the OpenMP threads."""

        def run(arg):
            with omp_threads(max(1, int(threads) // pool_size)):
                return fn(arg)

        return run

    workers = max(1, min(int(threads), len(candidates)))
    serial = workers == 1 or "mtkahypar" in {name for name, _ in candidates}
    batch = refine_batch is not None and not use_rb and not use_mtk
    with c_stdout_to_stderr():  # entered here, so worker threads never swap descriptors
        if batch:
            with omp_threads(max(1, int(threads))):
                results = _batch_results(h, k, bounds, candidates, refine_batch)
        elif serial:
            results = [attempt(c) for c in candidates]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(sharing(attempt, workers), candidates))
        if polish is not None and polish_top > 0:
            # the best distinct refined candidates (a total order: independent of the threads)
            chosen: list[int] = []
            seen: set[bytes] = set()
            for i in sorted(range(len(results)), key=lambda i: (results[i][0], i)):
                key = results[i][1].tobytes()
                if key not in seen:
                    seen.add(key)
                    chosen.append(i)
                    if len(chosen) == polish_top:
                        break
            inputs = [results[i][1] for i in chosen]
            if serial or len(chosen) == 1:
                outs = [polished(p) for p in inputs]
            else:
                pworkers = min(workers, len(chosen))
                with ThreadPoolExecutor(max_workers=pworkers) as pool:
                    outs = list(pool.map(sharing(polished, pworkers), inputs))
            for i, out in zip(chosen, outs):
                results[i] = out
    best = min(range(len(results)), key=lambda i: (results[i][0], i))
    return results[best][1]
