"""Initial partitioning of the coarsest level of a hierarchy: the level goes to the host, the
candidates of :func:`.pool.initial_partition` are rebalanced and refined there by the C++ backend
(the same algorithms as the device's, concurrently and without a device round trip per stage and
candidate), and the best comes back as an array of the coarsest level's backend."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ...fixed import align_to_fixed, locked_mask
from ...kernels import get_backend
from ...kernels.backend import Backend
from ...parallel.threads import threads_of
from ..coarsening import graph_from_arrays, hypergraph_from_arrays
from ..config import copy_config
from ..context import ResolvedConfig, Timer
from ..refinement import fm_polisher, hypergraph_refiner
from .pool import initial_partition
from .recursive import Bisect


def initial_hypergraph(coarsest: list, n: int, k: int, epsilon: float, objective: str,
                       bounds_on: Callable[[Backend], object], block_bounds,
                       cfg: ResolvedConfig, seed: int, timer: Timer, bisect: Bisect):
    """Block ids (int32, on the coarsest level's backend) of the coarsest level ``coarsest``
    (``[level, cmap, labels, backend, fixed]`` of :func:`.coarsening.coarsen`) of an input of
    ``n`` vertices: rebalancing and sequence refinement of every candidate (in one C++ call
    where the backend can), FM on the best ``cfg.initial_fm_top`` (0: FM on every one), fixed
    vertices put into their blocks and locked. ``bounds_on(backend)``: the per-block bounds as
    that backend's array; ``block_bounds``: the caller's per-block bounds (None: epsilon);
    ``bisect``: the k = 2 pipeline of recursive bisection."""
    level, cbe, cfixed = coarsest[0], coarsest[3], coarsest[4]
    t0 = time.perf_counter()
    coarse_host = hypergraph_from_arrays(cbe, level)
    large = n >= cfg.initial_runs_min_n
    ibe = cbe if cbe.name == "cpu" else get_backend("cpu")
    ilevel = level if ibe is cbe else ibe.hypergraph_arrays(coarse_host)
    ibounds = bounds_on(ibe)
    top_fm = cfg.initial_fm_top
    irefine = hypergraph_refiner(ibe, k, ibounds, objective,
                                 copy_config(cfg, fm=cfg.fm and not top_fm), seed, timer,
                                 initial=True)
    ipolish = None
    if top_fm and cfg.fm and cfg.fm_rounds > 0:
        ipolish = fm_polisher(ibe, k, ibounds, objective, cfg, seed, timer)
    # fixed vertices on the coarsest level: every candidate is renamed to agree with them, they
    # are put into their blocks, and rebalancing and refinement keep them there
    ifixed = None if cfixed is None else cbe.to_host(cfixed)
    ilock = {} if ifixed is None else {"locked": locked_mask(np, ifixed)}
    align = (lambda p: p) if ifixed is None else (
        lambda p: align_to_fixed(p, ifixed, coarse_host.vwgt, k, ibe.to_host(ibounds)))
    refine_batch = None
    if hasattr(ibe, "refine_candidates") and not (cfg.fm and not top_fm):
        # irefine without FM: rebalance + sequence refinement, which the C++ backend does for
        # all candidates in one call (a few ms instead of ~12 on 16 Python threads, H100)
        def refine_batch(cands):
            t0 = time.perf_counter()
            out, values = ibe.refine_candidates(
                ilevel, np.stack([align(c) for c in cands]), k, ibe.to_host(ibounds), objective,
                max_rounds=cfg.refine_rounds, **ilock)
            timer.add("refine", t0)
            return list(out), [int(v) for v in values]

    parts = initial_partition(
        coarse_host, k, epsilon, objective, seed=seed, method=cfg.initial,
        runs=cfg.initial_seeds,
        max_net_size=cfg.initial_max_net_size,
        refine=lambda p: ibe.to_host(irefine(ilevel, ibe.asarray(align(p), "int32"), **ilock)),
        evaluate=lambda p: ibe.hypergraph_objective(ilevel, ibe.asarray(p, "int32"), k, objective),
        threads=threads_of(cfg), rb_runs=cfg.rb_runs, rb_seeds=cfg.rb_seeds, config=cfg.base,
        block_bounds=block_bounds, large=large,
        polish=None if ipolish is None else (
            lambda p: ibe.to_host(ipolish(ilevel, ibe.asarray(p, "int32"), **ilock))),
        polish_top=top_fm, bisector=cfg.initial_bisector,
        metis_processes=cfg.initial_metis_processes, refine_batch=refine_batch,
        **({} if ifixed is None else {"fixed": ifixed}), bisect=bisect,
    )
    timer.add("initial", t0)
    return cbe.asarray(parts, "int32")


def initial_graph(coarsest: list, k: int, epsilon: float, refiner: Callable, bounds_on,
                  block_bounds, cfg: ResolvedConfig, seed: int, timer: Timer):
    """As :func:`initial_hypergraph` for a graph hierarchy: METIS candidates refined by
    ``refiner(backend, bounds)`` (the graph refinement of the run) on the host."""
    level, cbe = coarsest[0], coarsest[3]
    t0 = time.perf_counter()
    coarse_host = graph_from_arrays(cbe, level)
    ibe = cbe if cbe.name == "cpu" else get_backend("cpu")
    ilevel = level if ibe is cbe else ibe.graph_arrays(coarse_host)
    irefine = refiner(ibe, bounds_on(ibe))
    parts = initial_partition(
        coarse_host, k, epsilon, "cut", seed=seed, method=cfg.initial,
        runs=cfg.initial_seeds, max_net_size=cfg.initial_max_net_size,
        block_bounds=block_bounds,
        refine=lambda p: ibe.to_host(irefine(ilevel, ibe.asarray(p, "int32"))),
        evaluate=lambda p: ibe.graph_edge_cut(ilevel, ibe.asarray(p, "int32")),
        threads=threads_of(cfg), metis_processes=cfg.initial_metis_processes,
    )
    timer.add("initial", t0)
    return cbe.asarray(parts, "int32")
