"""Coarsening: the level hierarchy. One level's clustering as :class:`Config` asks
(:func:`hypergraph_coarsener`: cluster-aware heavy-edge clustering or HyperG's grouping;
:func:`graph_coarsener`: label propagation or G-kway), the generic loop that clusters and
contracts level after level (:func:`coarsen`, labels and fixed vertices carried along, small
levels moved to the host backend), and host copies of a level."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..fixed import coarse_fixed
from ..hypergraph import Graph, Hypergraph
from ..kernels.backend import Backend, GraphArrays, HypergraphArrays
from .context import ResolvedConfig, Timer

log = logging.getLogger("igpart")


def hypergraph_from_arrays(be: Backend, ha: HypergraphArrays) -> Hypergraph:
    """A host Hypergraph from a backend level (for initial partitioning)."""
    return Hypergraph(
        be.to_host(ha.eptr), be.to_host(ha.eind), ha.n, be.to_host(ha.vwgt), be.to_host(ha.ewgt),
        check=False,
    )


def graph_from_arrays(be: Backend, ga: GraphArrays) -> Graph:
    """A host Graph from a backend level."""
    return Graph(
        be.to_host(ga.xadj), be.to_host(ga.adjncy), ga.n, be.to_host(ga.adjwgt),
        be.to_host(ga.vwgt), check=False,
    )


@dataclass
class HostLevels:
    """``Config.host_levels_below``: levels of fewer than ``below`` vertices live on ``be`` (the
    C++ backend), which coarsens (``coarsener(seed)`` gives its ``coarsen_one``, ``contract_one``)
    and refines (``refine``) them; ``level_to_host(from_be, level)`` copies a level there."""

    below: int
    be: Backend
    coarsener: Callable[[int], Callable]
    contract_one: Callable
    refine: Callable
    level_to_host: Callable


def move_parts(parts, src: Backend, dst: Backend):
    """``parts`` (int32 per vertex) of backend ``src`` as an array of ``dst``."""
    return parts if src is dst else dst.asarray(src.to_host(parts), "int32")


def coarsen(levels_fine, n_of, coarsen_one, contract_one, limit: int, min_shrink: float,
             max_levels: int, timer: Timer, labels=None, xp=np, min_n: int = 1,
             be: Backend | None = None, host: HostLevels | None = None,
             host_coarsen_one=None, fixed=None, prefix=None) -> list:
    """Generic coarsening loop: returns [[level, cmap-to-next or None, labels, backend,
    fixed], ...] fine to coarse (labels on the coarsest level only: a finer level's labels,
    needed to cluster it, are dropped once the next level's are made). ``fixed`` (int32 per
    vertex, -1: free; None: no fixed vertex) is carried to every level
    (:func:`igpart.fixed.coarse_fixed`); the labels must keep vertices fixed to different
    blocks apart. ``labels`` (communities or blocks, int32 per vertex) restrict the clustering
    when given and are carried to every level (all members of a cluster share their label). A
    level with fewer than ``min_n`` (k) vertices is never used. ``host`` (with ``be``, the
    backend of ``levels_fine``): the first level of fewer than ``host.below`` vertices (not the
    finest) is replaced by its copy on ``host.be`` (labels copied too), and the coarser levels
    are made there with ``host_coarsen_one`` and ``host.contract_one``. ``prefix`` (optional,
    no ``fixed``): the first levels, already made, as (cluster map from the level before,
    level) pairs on ``be``; ``labels`` are then those of the last of them, and the loop
    goes on from it."""
    hierarchy = [[levels_fine, None, None if prefix else labels, be, fixed]]
    cur = levels_fine
    if prefix and fixed is not None:
        raise ValueError("coarsen: levels made before take no fixed vertices")
    for i, (cmap, nxt) in enumerate(prefix or ()):
        hierarchy[-1][1] = cmap
        hierarchy.append([nxt, None, labels if i == len(prefix) - 1 else None, be, None])
        log.debug("level %d: %d -> %d vertices (made before)", len(hierarchy) - 1, n_of(cur),
                  n_of(nxt))
        cur = nxt
    while n_of(cur) >= limit and len(hierarchy) < max_levels:
        if (host is not None and hierarchy[-1][3] is not host.be and len(hierarchy) > 1
                and n_of(cur) < host.below):
            t0 = time.perf_counter()
            src = hierarchy[-1][3]
            cur = host.level_to_host(src, cur)
            if labels is not None:
                labels = move_parts(labels, src, host.be)
            if fixed is not None:
                fixed = move_parts(fixed, src, host.be)
            hierarchy[-1] = [cur, None, labels, host.be, fixed]
            coarsen_one, contract_one, xp = host_coarsen_one, host.contract_one, host.be.xp
            timer.add("to_host", t0)
            log.debug("level %d (%d vertices) and coarser on the host", len(hierarchy) - 1,
                      n_of(cur))
        t0 = time.perf_counter()
        cmap, nc = (coarsen_one(cur) if labels is None
                    else coarsen_one(cur, communities=labels))
        t0 = timer.add("coarsen", t0)
        if nc > (1.0 - min_shrink) * n_of(cur) or nc == n_of(cur) or nc < min_n:
            break
        nxt = contract_one(cur, cmap, nc)
        if labels is not None:
            coarse = xp.zeros(nc, dtype=xp.int32)
            coarse[cmap] = labels
            labels = coarse
            hierarchy[-1][2] = None  # read by nothing after this
        if fixed is not None:
            fixed = coarse_fixed(xp, fixed, cmap, nc)
        timer.add("contract", t0)
        hierarchy[-1][1] = cmap
        hierarchy.append([nxt, None, labels, hierarchy[-1][3], fixed])
        log.debug("level %d: %d -> %d vertices", len(hierarchy) - 1, n_of(cur), nc)
        cur = nxt
    return hierarchy


def coarsest_cut_share(be: Backend, level, parts, k: int) -> float:
    """The share of the weight of ``level``'s nets of two pins or more that ``parts`` cuts."""
    ptr = be.to_host(level.eptr)
    total = int(be.to_host(level.ewgt)[ptr[1:] - ptr[:-1] >= 2].sum())
    return be.hypergraph_objective(level, parts, k, "cut") / max(1, total)


def lighter_hierarchy(hierarchy: list, cap: int, coarsen_one, contract_one, limit: int,
                      min_shrink: float, max_levels: int, timer: Timer,
                      min_n: int = 1) -> list | None:
    """``hierarchy`` (of :func:`coarsen`, one backend) rebuilt from its last level whose
    vertices all weigh at most ``cap`` by :func:`coarsen` with ``coarsen_one`` (clustering
    under that cap): the finer levels are kept, the rest made again with their labels and
    fixed vertices. None when every level is that light or none is (nothing to rebuild) or
    the levels are on more than one backend."""
    be = hierarchy[-1][3]
    if any(row[3] is not be for row in hierarchy):
        return None
    light = [i for i, row in enumerate(hierarchy)
             if int(be.to_host(row[0].vwgt).max(initial=0)) <= cap]
    if not light or light[-1] == len(hierarchy) - 1:
        return None
    j = light[-1]
    # level j's labels: every cluster's members share their label (coarsen), so the coarsest
    # level's labels map back through the cluster maps
    labels = hierarchy[-1][2]
    for row in reversed(hierarchy[j:-1]):
        labels = None if labels is None else labels[row[1]]
    rebuilt = coarsen(hierarchy[j][0], lambda a: a.n, coarsen_one, contract_one, limit,
                      min_shrink, max(1, max_levels - j), timer, labels=labels, xp=be.xp,
                      min_n=min_n, be=be, fixed=hierarchy[j][4])
    return hierarchy[:j] + rebuilt


def hypergraph_coarsener(be: Backend, mcw: int, cfg: ResolvedConfig, seed: int,
                         joins_in_order: bool = False):
    """One level's clustering on ``be``, ``coarsen_one(level, communities=None) -> (cmap,
    nc)``, as the context (resolved for ``be``) asks: HyperG grouping or the default clustering,
    levels shrinking at most ``cfg.max_shrink`` times; asynchronous joins where the backend
    offers them for ``cfg.deterministic`` (``CpuBackend.cluster_is_async``) unless
    ``joins_in_order`` (the host levels of a deterministic device run)."""
    limit = cfg.max_shrink
    coarsest = cfg.coarsest  # where the coarsening stops
    rounds_of = getattr(be, "cluster_rounds", None)
    is_async = None if joins_in_order else getattr(be, "cluster_is_async", None)

    def coarsen_one(ha, communities=None):
        if cfg.coarsening == "hyperg":
            # as the clustering below, never (much) below the contraction limit in one step:
            # groups of ``group_size`` shrink a level up to that many times, so near the limit
            # they are made smaller (1: the level is not coarsened and the hierarchy ends)
            group = max(1, min(cfg.group_size, round(ha.n / coarsest)))
            return be.coarsen_hypergraph(
                ha, mcw, group_size=group, max_net_size=cfg.rating_max_net_size,
                communities=communities, seed=seed,
            )
        # never (much) below the contraction limit in one step; at least 1.01 (1%) per level
        shrink = max(min(limit, ha.n / coarsest), 1.01)
        options = {}
        if rounds_of is not None:  # the C++ backend: sub-rounds by level and input size
            options["sub_rounds"] = rounds_of(ha.n, cfg.n, cfg.deterministic)
        if is_async is not None and is_async(cfg.deterministic):
            options["asynchronous"] = True
        return be.cluster_hypergraph(
            ha, mcw, max_net_size=cfg.rating_max_net_size, communities=communities,
            max_shrink=shrink, weight_penalty=cfg.weight_penalty, seed=seed, **options,
        )

    return coarsen_one


def intra_community(xp, ga: GraphArrays, labels) -> GraphArrays:
    """``ga`` without its edges between vertices of different ``labels`` (int32 per vertex)."""
    if xp is np:
        own = np.repeat(labels, np.diff(ga.xadj))  # each adjacency entry's own vertex's label
    else:  # CuPy's repeat takes host counts only
        nnz = int(ga.adjncy.shape[0])
        src = xp.searchsorted(ga.xadj, xp.arange(nnz, dtype=xp.int64), side="right") - 1
        own = labels[src]
    keep = own == labels[ga.adjncy]
    kept = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(keep, dtype=xp.int64)])
    return GraphArrays(ga.n, kept[ga.xadj], ga.adjncy[keep], ga.adjwgt[keep], ga.vwgt,
                       ga.total_weight)


def graph_coarsener(b: Backend, mcw: int, cfg: ResolvedConfig, s: int):
    """One graph level's clustering on ``b``, ``coarsen_one(level, communities=None) -> (cmap,
    nc)``, as the context (resolved for ``b``) asks: size-constrained label propagation
    (``"lp"``, down to ``cfg.coarsest`` clusters) or G-kway's grouping, clusters of at most
    ``mcw``, seed ``s``; ``communities`` (int32 per vertex): clusters stay inside them (the
    edges between them are left out of the clustering)."""
    if cfg.graph_coarsening == "lp":
        # the asynchronous passes reach backends that offer them (Config.deterministic)
        mode = {"deterministic": cfg.deterministic} if getattr(b, "async_graph_lp", False) else {}

        def cluster(ga):
            return b.cluster_graph_lp(
                ga, mcw, iterations=cfg.graph_lp_iterations, min_clusters=cfg.coarsest, seed=s,
                sub_rounds=cfg.graph_lp_sub_rounds, **mode)
    else:
        def cluster(ga):
            return b.coarsen_graph(ga, mcw, group_size=cfg.graph_group_size, seed=s)
    return lambda ga, communities=None: cluster(
        ga if communities is None else intra_community(b.xp, ga, communities))
