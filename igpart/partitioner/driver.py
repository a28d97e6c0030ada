"""The multilevel driver (DESIGN §4): sequences the stages on one backend, with no loop over
vertices, nets or pins of its own.

The algorithm is backend-agnostic: the stages (:mod:`.preprocessing`, :mod:`.coarsening`,
:mod:`.initial`, :mod:`.refinement`, :mod:`.uncoarsening`) compose the operations of a
:class:`igpart.kernels.Backend` (coarsen, contract, project, refine, rebalance) on arrays of the
backend's array module, with the values :mod:`.context` resolves. Per level only scalars come
back to the host; the coarsest level goes to the host for initial partitioning, the final
partition comes back once.

Hypergraphs: by default each level is coarsened by cluster-aware heavy-edge clustering restricted
to communities found once on the finest level (Louvain on the clique expansion, see
:mod:`igpart.community`); HyperG's balanced group coarsening is the selectable alternative
(``Config(coarsening="hyperg")``). Refinement follows HyperG (sequence-based refinement) with a
boundary FM pass after it, plus optional V-cycles. Graphs follow G-kway (union-find coarsening
with scoring, iG-kway's constrained grouping, independent-set refinement). Recursive bisection,
the initial partitioner at k >= 3, runs this driver's k = 2 pipeline (:func:`bisect`), which it
receives as a callable.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..fixed import fixed_labels, locked_mask
from ..hypergraph import Graph, Hypergraph
from ..kernels import get_backend, input_pins
from ..kernels.backend import Backend
from ..metrics import evaluate, max_block_weight
from ..parallel import metis_pool
from ..parallel.threads import stage_threads, usable_cpus
from ..partition import Partition
from .coarsening import (
    HostLevels,
    coarsen,
    coarsest_cut_share,
    graph_coarsener,
    graph_from_arrays,
    hypergraph_coarsener,
    hypergraph_from_arrays,
    lighter_hierarchy,
)
from .config import Config, copy_config
from .context import (
    AUTO_METIS_MIN_CPUS,
    ResolvedConfig,
    Timer,
    balance_bounds,
    check_memory,
    epsilon_bounds,
    hypergraph_cluster_weight,
    max_cluster_weight,
    on_backend,
    resolve,
    resolved,
)
from .deep import DEEP_SPLIT_SEEDS, BlockTree, deep_partition
from .initial.coarsest import initial_graph, initial_hypergraph
from .preprocessing import detect_communities, detect_community_levels, detect_graph_communities
from .refinement import graph_refiner, hypergraph_refiner
from .uncoarsening import run_vcycles, uncoarsen

log = logging.getLogger("igpart")


def run_partition(h: Hypergraph | Graph, k: int, epsilon: float, objective: str,
                  backend: str | Backend, seed: int, cfg: Config,
                  targets: np.ndarray | None = None, fixed: np.ndarray | None = None,
                  t_start: float | None = None, communities=None) -> Partition:
    """The multilevel :class:`Partition` of checked arguments (:func:`igpart.partition` without
    its checks and dispatch): ``targets`` the per-block bounds or None, ``fixed`` the checked
    fixed blocks or None; ``t_start`` (default now) the start of the reported seconds;
    ``communities`` (int32 per vertex, hypergraphs) labels that restrict the clustering instead
    of the Louvain communities the pipeline would detect (a caller that partitions parts of one
    input passes each part its share of the input's communities, found once)."""
    t_start = time.perf_counter() if t_start is None else t_start
    be = get_backend(backend, pins=input_pins(h))
    check_memory(be, h, k)
    timer = Timer()
    summary: dict[str, Any] = {}
    device_metrics: dict[str, Any] = {}  # a graph's figures where its partition ended on a device
    with be.memory_scope(k) as memory:
        parts = run_multilevel(h, k, epsilon, objective, be, seed, cfg, timer,
                               block_bounds=targets, fixed=fixed, summary=summary,
                               communities=communities, metrics=device_metrics)
    seconds = time.perf_counter() - t_start
    return Partition.from_parts(
        h, parts, k, epsilon, objective, known=device_metrics or None,
        seconds=seconds, timings=timer.timings,
        backend=be.name, algorithm="multilevel", seed=seed, config=dataclasses.asdict(cfg),
        max_block_weights=targets, resolved=summary,
        memory={} if memory is None else memory.stats(),
    )


def run_improve(h: Hypergraph | Graph, p: np.ndarray, k: int, epsilon: float, objective: str,
                backend: str | Backend, seed: int, cfg: Config, cycles: int | None = None,
                targets: np.ndarray | None = None,
                fixed: np.ndarray | None = None) -> Partition:
    """:func:`igpart.improve` of checked arguments: ``p`` the host int32 blocks (fixed vertices
    already in theirs), ``cycles`` the V-cycles (None: ``cfg``'s, resolved on the backend)."""
    hyper = h.to_hypergraph() if isinstance(h, Graph) else h
    t_start = time.perf_counter()
    be = get_backend(backend, pins=input_pins(hyper))
    check_memory(be, hyper, k)
    timer = Timer()
    with stage_threads(cfg), be.memory_scope(k) as memory:
        ctx = resolve(cfg, be, hyper, k)
        if cycles is not None:
            ctx = dataclasses.replace(ctx, vcycles=int(cycles))
        log.info("resolved: %s", ctx.describe())
        p = improve_hypergraph(hyper, p, k, epsilon, objective, be, seed, ctx, timer,
                               ctx.vcycles, targets, fixed)
    seconds = time.perf_counter() - t_start
    return Partition.from_parts(
        h, p, k, epsilon, objective, seconds=seconds, timings=timer.timings, backend=be.name,
        algorithm="multilevel-warm", seed=seed, config=dataclasses.asdict(cfg),
        max_block_weights=targets, resolved=ctx.summary(),
        memory={} if memory is None else memory.stats(),
    )


def bisect(be: Backend, h: Hypergraph, bounds: np.ndarray, eps: float, objective: str, seed: int,
           cfg: Config, fixed: np.ndarray | None = None,
           communities: np.ndarray | None = None) -> np.ndarray:
    """Block ids 0/1 of the k = 2 pipeline on ``h`` with the two blocks' weight bounds
    ``bounds`` (METIS aims at weights in their proportions); ``fixed`` (0/1 per vertex, -1:
    free): vertices fixed to a side; ``communities``: labels restricting the clustering instead
    of the Louvain communities of ``h``. What each recursive bisection runs
    (:data:`igpart.partitioner.initial.recursive.Bisect`)."""
    return multilevel_hypergraph(h, 2, eps, objective, be, seed, cfg, Timer(),
                                 block_bounds=bounds, fixed=fixed, communities=communities)


def run_multilevel(h: Hypergraph | Graph, k: int, epsilon: float, objective: str, be: Backend,
                   seed: int, cfg: Config, timer: Timer,
                   block_bounds: np.ndarray | None = None,
                   fixed: np.ndarray | None = None,
                   summary: dict[str, Any] | None = None, communities=None,
                   metrics: dict | None = None) -> np.ndarray:
    """Block ids (int32, host) of the multilevel pipeline on ``h``, with ``cfg`` resolved once
    for this input, k, backend and machine (:func:`.context.resolve`; logged at INFO, and
    written into ``summary`` when given), the best of ``cfg.repetitions`` runs.
    ``block_bounds``: per-block weight bounds instead of the balance rule; ``fixed``: checked
    fixed blocks (-1: free; a Graph then runs as the hypergraph of its edges); ``communities``:
    see :func:`run_partition` (hypergraphs only); ``metrics``: see :func:`multilevel_graph`
    (graphs, one repetition)."""
    as_hypergraph = isinstance(h, Hypergraph) or fixed is not None
    with stage_threads(cfg):
        if k == 1 or h.n == 0:
            return np.zeros(h.n, dtype=np.int32)
        hyper = h if isinstance(h, Hypergraph) or not as_hypergraph else h.to_hypergraph()
        ctx = resolve(cfg, be, hyper, k)
        if ctx.initial_metis_processes:
            # importing while the levels coarsen: at the lowest priority on machines with the
            # cores for an automatic pool (there the run's threads fill the cores)
            metis_pool.get_pool(ctx.initial_metis_processes,
                                low_priority=usable_cpus() >= AUTO_METIS_MIN_CPUS)
        log.info("resolved: %s", ctx.describe())
        if summary is not None:
            summary.update(ctx.summary())

        def run(s: int) -> np.ndarray:
            if as_hypergraph:
                return multilevel_hypergraph(hyper, k, epsilon,
                                              objective if hyper is h else "cut", be, s, ctx,
                                              timer, block_bounds=block_bounds, fixed=fixed,
                                              communities=communities if hyper is h else None)
            return multilevel_graph(h, k, epsilon, be, s, ctx, timer, block_bounds=block_bounds,
                                    metrics=metrics if cfg.repetitions == 1 else None)

        return best_run(h, k, epsilon, objective, block_bounds, run, seed, cfg.repetitions)


#: ``Config.repetitions``: the i-th run's seed is ``seed + i * REPETITION_SEED_STRIDE`` (the
#: V-cycles and bisections of a run derive seeds of their own from it).
REPETITION_SEED_STRIDE = 1_000_003


def best_run(h, k: int, epsilon: float, objective: str, targets, run: Callable[[int], Any],
              seed: int, repetitions: int) -> np.ndarray:
    """The best of ``repetitions`` runs ``run(seed_i)`` (``Config.repetitions``): the least
    overloaded, then the lowest objective, then the first."""
    best, best_score = None, None
    for i in range(int(repetitions)):
        parts = run(seed + i * REPETITION_SEED_STRIDE)
        if repetitions == 1:
            return parts
        m = evaluate(h, parts, k, epsilon, targets)
        bounds = (np.full(k, m["max_block_weight"], dtype=np.int64) if targets is None
                  else targets)
        score = (int(np.maximum(m["block_weights"] - bounds, 0).sum()), m[objective])
        if best_score is None or score < best_score:
            best, best_score = parts, score
    return best


def multilevel_hypergraph(h: Hypergraph, k: int, epsilon: float, objective: str, be: Backend,
                          seed: int, cfg: Config, timer: Timer,
                          block_bounds: np.ndarray | None = None,
                          fixed: np.ndarray | None = None, communities=None) -> np.ndarray:
    """igpart's multilevel pipeline on a hypergraph. ``block_bounds`` (int64 per block, default
    ``max_block_weight`` for every block) lets blocks have different bounds (the bisections of
    :mod:`.initial.recursive`); METIS then aims at weights in the same proportions. ``fixed``
    (host int32 per vertex, -1: free; validated by the caller): vertices that end in their
    block (:mod:`igpart.fixed`). ``communities``: labels restricting the clustering instead of
    the detected ones (see :func:`run_partition`)."""
    if fixed is not None and not bool((fixed >= 0).any()):
        fixed = None
    on_cpu = be.name == "cpu"  # as asked: a device backend's runs are never retried lighter
    if be.name != "cpu" and h.n < cfg.host_levels_below:
        if getattr(be, "deterministic", False) and cfg.deterministic is None:
            cfg = copy_config(cfg, deterministic=True)  # as the device run would repeat
        be = get_backend("cpu")  # every level would be a host level (Config.host_levels_below)
    cfg = resolved(cfg, be, h, k)
    t0 = time.perf_counter()
    top = be.hypergraph_arrays(h)
    top_fixed = None if fixed is None else be.asarray(fixed, "int32")
    timer.add("upload", t0)
    bound, bounds_on = balance_bounds(h.total_weight, k, epsilon, block_bounds)
    mcw = hypergraph_cluster_weight(cfg, h.total_weight, k, bound)
    refine = hypergraph_refiner(be, k, bounds_on(be), objective, cfg, seed, timer,
                                finest_n=top.n)
    host = _hypergraph_host_levels(be, h, k, mcw, bounds_on, objective, cfg, seed, timer)
    # preprocessing, coarsening, initial partitioning, uncoarsening, V-cycles
    prefix = None  # the levels made to find the communities, kept (their last one's labels)
    if communities is not None:
        communities = be.asarray(communities, "int32")
    elif cfg.community_levels_kept and top_fixed is None:
        prefix, communities = (detect_community_levels(be, top, h, k, cfg, seed, timer, mcw)
                               or (None, None))
    if communities is None and prefix is None:
        communities = detect_communities(be, top, h, k, cfg, seed, timer)
    if top_fixed is not None:
        communities = fixed_labels(be.xp, top_fixed, communities)
    hierarchy = coarsen(top, lambda a: a.n, hypergraph_coarsener(be, mcw, cfg, seed),
                        be.contract_hypergraph, cfg.coarsest, cfg.min_shrink,
                        cfg.max_levels, timer, labels=communities, xp=be.xp, min_n=k, be=be,
                        host=host, host_coarsen_one=host.coarsener(seed) if host else None,
                        fixed=top_fixed, prefix=prefix)
    prefix = communities = None  # held by the hierarchy where it still needs them
    targets = None if block_bounds is None else np.asarray(block_bounds, dtype=np.int64)
    parts = initial_hypergraph(hierarchy[-1], h.n, k, epsilon, objective, bounds_on, targets,
                               cfg, seed, timer, bisect)
    if on_cpu and k >= 3 and cfg.coarse_retry_cut_share > 0:
        hierarchy, parts = retry_lighter(hierarchy, parts, h.n, k, epsilon, objective,
                                         bounds_on, targets, cfg, seed, timer, mcw)
    report = _level_report(k, objective) if log.isEnabledFor(logging.DEBUG) else None
    if report is not None:
        report(f"level {len(hierarchy) - 1} (coarsest), initial partition", hierarchy[-1][0],
               parts, hierarchy[-1][3])
    parts = uncoarsen(be, hierarchy, parts, refine, timer, host, report)
    parts = run_vcycles(be, top, parts, k, objective,
                        lambda s: hypergraph_coarsener(be, mcw, cfg, s), refine, cfg,
                        timer, cfg.vcycles, seed, host, fixed=top_fixed)
    return be.to_host(parts).astype(np.int32, copy=False)


def _level_report(k: int, objective: str):
    """A ``report`` for :func:`.uncoarsening.uncoarsen` that logs (``-vv``) the objective of
    each level's partition: where a run's cut is made or lost, level by level (one more
    reduction per level, only when debugging)."""
    def report(stage: str, level, parts, lbe: Backend) -> None:
        value = lbe.hypergraph_objective(level, lbe.asarray(parts, "int32"), k, objective)
        log.debug("%s (%d vertices): %s %d", stage, level.n, objective, int(value))
    return report


def retry_lighter(hierarchy: list, parts, n: int, k: int, epsilon: float, objective: str,
                  bounds_on, targets, cfg: ResolvedConfig, seed: int, timer: Timer,
                  mcw: int) -> tuple[list, Any]:
    """``Config.coarse_retry_cut_share``: when the initial partition cuts more than that share
    of its coarsest level's net weight (:func:`.coarsening.coarsest_cut_share`), the coarse
    levels have merged what a good partition keeps apart (clusters near the weight cap ``mcw``
    straddling its cut: ibm05 at k = 8, whose partitions from this hierarchy end 14% above
    Mt-KaHyPar's whatever the initial partitioner). The hierarchy is then rebuilt with half the
    cap (:func:`.coarsening.lighter_hierarchy`) and the initial partitioning (its bisections'
    cap halved too) runs again on the new coarsest level. Returns the hierarchy and the
    partition to uncoarsen (the given ones when nothing is retried). Only on the C++
    backend's runs (the caller's rule; a device backend's, host levels and all, are kept as
    they are)."""
    lbe = hierarchy[-1][3]
    if lbe.name != "cpu":
        return hierarchy, parts
    share = coarsest_cut_share(lbe, hierarchy[-1][0], parts, k)
    log.debug("coarsest level: the initial partition cuts %.3f of its net weight (retry above "
              "%.3f)", share, cfg.coarse_retry_cut_share)
    if share <= cfg.coarse_retry_cut_share:
        return hierarchy, parts
    t0 = time.perf_counter()
    half = max(1, mcw // 2)
    rebuilt = lighter_hierarchy(hierarchy, half, hypergraph_coarsener(lbe, half, cfg, seed),
                                lbe.contract_hypergraph, cfg.coarsest, cfg.min_shrink,
                                cfg.max_levels, timer, min_n=k)
    if rebuilt is None:
        return hierarchy, parts
    factor = cfg.cluster_weight_factor / 2
    icfg = copy_config(cfg, cluster_weight_factor=factor,
                       base=None if cfg.base is None
                       else copy_config(cfg.base, cluster_weight_factor=factor))
    parts = initial_hypergraph(rebuilt[-1], n, k, epsilon, objective, bounds_on, targets,
                               icfg, seed, timer, bisect)
    log.info("coarsest level cut %.2f of its net weight: rebuilt with half the cluster weight "
             "(%d levels, coarsest %d vertices) in %.3f s", share, len(rebuilt),
             rebuilt[-1][0].n, time.perf_counter() - t0)
    return rebuilt, parts


def _hypergraph_host_levels(be: Backend, h: Hypergraph, k: int, mcw: int, bounds_on,
                            objective: str, cfg: ResolvedConfig, seed: int,
                            timer: Timer) -> HostLevels | None:
    """``Config.host_levels_below`` on a device backend: the C++ backend's clustering (as
    ``cfg`` resolves on it) and the device's refinement algorithm (Jet: the C++ one returns the
    same partition as the kernels) for the small levels of ``h``; None on the C++ backend."""
    if be.name == "cpu" or not cfg.host_levels_below:
        return None
    hbe = get_backend("cpu")
    hcfg = on_backend(cfg, hbe, h, keep=("refinement",))
    in_order = bool(getattr(be, "deterministic", False))  # a deterministic device run's
    return HostLevels(
        cfg.host_levels_below, hbe,
        lambda s: hypergraph_coarsener(hbe, mcw, hcfg, s, joins_in_order=in_order),
        hbe.contract_hypergraph,
        hypergraph_refiner(hbe, k, bounds_on(hbe), objective, hcfg, seed, timer,
                           finest_n=h.n),
        lambda src, level: hbe.hypergraph_arrays(hypergraph_from_arrays(src, level)),
    )


def multilevel_graph(g: Graph, k: int, epsilon: float, be: Backend, seed: int, cfg: Config,
                     timer: Timer, block_bounds: np.ndarray | None = None,
                     metrics: dict | None = None) -> np.ndarray:
    """igpart's multilevel pipeline on a graph; ``block_bounds``: as for hypergraphs.
    ``metrics``: where the partition ends on a device, its edge cut and block weights are
    recomputed there from the input's arrays and the block ids (one pass each, instead of the
    host's pass over every arc) and written into this dict."""
    if be.name != "cpu" and g.n < cfg.graph_host_levels_below:
        be = get_backend("cpu")  # every level would be a host level (graph_host_levels_below)
    cfg = resolved(cfg, be, g, k)
    t0 = time.perf_counter()
    top = be.graph_arrays(g)
    timer.add("upload", t0)
    bound, bounds_on = balance_bounds(g.total_weight, k, epsilon, block_bounds)
    mcw = max_cluster_weight(g.total_weight, k, cfg.graph_contraction_limit,
                             cfg.graph_cluster_weight_factor, bound)
    # the algorithms resolved on the input's backend: host levels and the initial candidates
    # run the same ones, with the host's other values
    algorithms = ("graph_coarsening", "graph_refinement")
    # ... except the refinement where the small levels run on the host
    # (Config.graph_host_levels_below): those levels and the initial candidates get the host's
    host_levels = be.name != "cpu" and cfg.graph_host_levels_below > 0

    def refiner(b: Backend, bounds, blocks: int = k):
        keep = ("graph_coarsening",) if host_levels and b is not be else algorithms
        return graph_refiner(b, blocks, bounds, on_backend(cfg, b, g, keep), seed, timer, g.n)

    def coarsener(b: Backend, s: int):
        return graph_coarsener(b, mcw, on_backend(cfg, b, g, algorithms), s)

    refine = refiner(be, bounds_on(be))
    host = None
    if host_levels:
        hbe = get_backend("cpu")
        host = HostLevels(
            cfg.graph_host_levels_below, hbe, lambda s: coarsener(hbe, s), hbe.contract_graph,
            refiner(hbe, bounds_on(hbe)),
            lambda src, level: hbe.graph_arrays(graph_from_arrays(src, level)),
        )
    # coarsening (inside Louvain communities with Config.graph_communities), initial
    # partitioning, uncoarsening
    communities = detect_graph_communities(be, top, g, k, cfg, seed, timer)
    hierarchy = coarsen(top, lambda a: a.n, coarsener(be, seed), be.contract_graph, cfg.coarsest,
                        cfg.graph_min_shrink, cfg.max_levels, timer, labels=communities, xp=be.xp,
                        min_n=k, be=be, host=host,
                        host_coarsen_one=host.coarsener(seed) if host else None)
    if cfg.graph_deep_block_vertices and k > 2 and block_bounds is None:
        parts = _deep_graph(hierarchy, k, epsilon, be, bounds_on, refiner, cfg, seed, timer)
    else:
        parts = initial_graph(hierarchy[-1], k, epsilon, refiner, bounds_on, block_bounds, cfg,
                              seed, timer)
        parts = uncoarsen(be, hierarchy, parts, refine, timer, host)
    if metrics is not None and be.name != "cpu":
        metrics["cut"] = int(be.graph_edge_cut(top, parts))
        metrics["block_weights"] = np.asarray(be.to_host(be.block_weights(top.vwgt, parts, k)),
                                              dtype=np.int64)
    return be.to_host(parts).astype(np.int32, copy=False)


def _deep_graph(hierarchy, k, epsilon, be, bounds_on, refiner, cfg, seed, timer):
    """The graph hierarchy's partition by deep multilevel partitioning (:mod:`.deep`):
    ``refiner(backend, bounds, blocks)`` refines a level of ``blocks`` blocks."""
    tree = BlockTree(be.to_host(bounds_on(be)), epsilon)
    made = {}

    def refine_of(b: Backend, count: int, bounds):
        key = (b.name, count)  # a count's bounds do not change
        if key not in made:
            made[key] = refiner(b, b.asarray(bounds, "int64"), count)
        return made[key]

    def initial(count: int, bounds):
        if count == k:
            return initial_graph(hierarchy[-1], k, epsilon, refiner, bounds_on, None, cfg, seed,
                                 timer)
        return initial_graph(hierarchy[-1], count, epsilon,
                             lambda b, bb: refiner(b, bb, count),
                             lambda b: b.asarray(bounds, "int64"), bounds, cfg, seed, timer)

    return deep_partition(hierarchy, k, cfg.graph_deep_block_vertices, tree, refine_of, initial,
                          seed, DEEP_SPLIT_SEEDS, timer)


def improve_hypergraph(hyper, p, k, epsilon, objective, be, seed, cfg, timer, vcycles,
                       targets=None, fixed=None):
    """The refinement and V-cycles of :func:`improve` (block ids on the host); ``targets``:
    per-block bounds (None: the epsilon bound); ``fixed``: host int32 or None, the fixed
    vertices already in their blocks in ``p``. A balanced input comes back unless the result
    is balanced and at least as good."""
    if k > 1 and hyper.n:
        cfg = resolved(cfg, be, hyper, k)
        top = be.hypergraph_arrays(hyper)
        top_fixed = None if fixed is None else be.asarray(fixed, "int32")
        lock = {} if fixed is None else {"locked": locked_mask(be.xp, top_fixed)}
        if targets is None:
            bound = max_block_weight(hyper.total_weight, k, epsilon)
            bounds = epsilon_bounds(be, hyper.total_weight, k, epsilon)
            host_bounds = np.full(k, bound, dtype=np.int64)
        else:
            bound = int(targets[targets > 0].min(initial=hyper.total_weight))
            bounds, host_bounds = be.asarray(targets, "int64"), targets
        mcw = hypergraph_cluster_weight(cfg, hyper.total_weight, k, bound)
        refine = hypergraph_refiner(be, k, bounds, objective, cfg, seed, timer,
                                    finest_n=top.n)
        start = be.asarray(p, "int32")
        cur = refine(top, start, **lock)
        cur = run_vcycles(be, top, cur, k, objective, lambda s: hypergraph_coarsener(
            be, mcw, cfg, s), refine, cfg, timer, vcycles, seed, fixed=top_fixed)
        if _fits(hyper, p, k, host_bounds):
            new = be.to_host(cur).astype(np.int32, copy=False)
            worse = (not _fits(hyper, new, k, host_bounds)
                     or be.hypergraph_objective(top, cur, k, objective)
                     > be.hypergraph_objective(top, start, k, objective))
            return p if worse else new
        p = be.to_host(cur).astype(np.int32, copy=False)
    return p


def _fits(h: Hypergraph, parts: np.ndarray, k: int, bounds: np.ndarray) -> bool:
    """Whether every block of ``parts`` weighs at most its bound."""
    return bool((np.bincount(parts, weights=h.vwgt, minlength=k) <= bounds).all())
