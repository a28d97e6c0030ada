"""Preprocessing of the finest level: Louvain communities (:mod:`igpart.community` on the C++
backend, the backend's ``communities``) that restrict the clustering of every level, of
hypergraphs by default and of graphs with ``Config.graph_communities``."""

from __future__ import annotations

import time

import numpy as np

from ..hypergraph import Graph, Hypergraph
from ..kernels.backend import Backend, GraphArrays, HypergraphArrays
from .config import copy_config
from .context import ResolvedConfig, Timer, community_max_weight, community_net_size


def share_unconnected_community(xp, top: HypergraphArrays | GraphArrays, communities,
                                max_net_size: int, alone=None):
    """``communities`` with every vertex that no net of 2 to ``max_net_size`` pins connects
    (Louvain's clique expansion leaves it alone in a community of its own: one net over every
    vertex, nets all larger than that, no nets) moved into one community they share, ids dense
    again. Clustering stays within communities, so left alone such vertices would never be
    clustered and the levels would stop shrinking (a single net over 100,000 vertices sent all
    of them to the initial partitioning); together they are paired (``cluster_hypergraph``).
    ``alone`` (optional): those vertices' mask (non-zero: no such net), when the caller has it
    (the C++ backend's ``vertices_without_nets``, in parallel; a graph's vertices without an
    edge); ``top`` is then only asked for its ``n``, and may be a graph level."""
    if top.n == 0:
        return communities
    if alone is None:
        sizes = xp.diff(top.eptr)
        kept = ((sizes >= 2) & (sizes <= max_net_size)).astype(xp.int64)
        counts = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(kept[top.vind])])
        kept_nets = counts[top.vptr[1:]] - counts[top.vptr[:-1]]
        # min() rather than any() of a mask: on the GPU CuPy compiles its any() over a large
        # array (a CUB reduction) on first use, about 5 s; min / max ship compiled
        if int(kept_nets.min()) > 0:
            return communities
        alone = kept_nets == 0
    elif int(alone.max()) == 0:
        return communities
    # the ids np.unique(where(alone, -1, communities), return_inverse=True) gives (the shared
    # community 0, the others ranked by label), by counting: no sort of n labels (a serial
    # pass of about 0.1 s at 2M vertices, where the stages around it run on every thread)
    where = xp.flatnonzero(alone)  # few: the rest keep their communities
    counts = xp.bincount(communities, minlength=int(communities.max()) + 1)
    counts -= xp.bincount(communities[where], minlength=counts.size)
    rank = xp.cumsum(counts > 0, dtype=xp.int32)  # 1 + the rank of each label left
    out = rank[communities]
    out[where] = 0
    return out


def detect_communities(be: Backend, top: HypergraphArrays, h: Hypergraph, k: int,
                       cfg: ResolvedConfig, seed: int, timer: Timer):
    """Louvain communities of the finest level (int32 per vertex, on ``be``) that restrict the
    clustering, or None when ``cfg.communities`` is off or the input is already below the
    contraction limit; the vertices no rated net connects share one community
    (:func:`share_unconnected_community`)."""
    if not (cfg.communities and top.n >= cfg.contraction_limit * k):
        return None
    return _louvain(be, top, h, k, cfg, seed, timer)


#: The largest net the clustering of the kept community levels rates
#: (:func:`detect_community_levels`): -1, the partition's own (``Config.rating_max_net_size``);
#: 0, Louvain's net size, as the levels made only for Louvain; N > 0, N pins. On the C++
#: backend (Louvain on 30,000 / 100,000 vertices, the Titan23 `large` inputs, two seeds) the
#: partition's 1,000 against Louvain's 50 cut 0.977x (stereo_vision x22 at k = 2 0.845x) in
#: 1.14x the time (BENCHMARKS.md, "The levels made for Louvain kept as the partition's first
#: levels").
KEPT_LEVELS_MAX_NET_SIZE = -1


def detect_community_levels(be: Backend, top: HypergraphArrays, h: Hypergraph, k: int,
                            cfg: ResolvedConfig, seed: int, timer: Timer, mcw: int):
    """``Config.community_levels_kept``: the levels coarsened to Louvain's level (heavy-edge
    clustering without communities, nets of up to ``KEPT_LEVELS_MAX_NET_SIZE`` rated,
    clusters within the partition's cluster weight cap ``mcw``, at most 4x fewer vertices per
    level, the last level landing near ``cfg.community_level`` vertices) and
    Louvain's communities of that level (int32 per vertex, the vertices no rated net connects
    sharing one, :func:`share_unconnected_community`), as ``(prefix, labels)``: ``prefix`` the
    (cluster map, level) pairs :func:`~igpart.partitioner.coarsening.coarsen` starts from.
    None where :func:`detect_communities` would give none, where Louvain runs on the input
    itself (``cfg.community_level`` 0, or no level shrinks the input), where its level would be
    smaller than the coarsest level the partition asks (``cfg.coarsest``) or where the run keeps
    the device within a memory budget."""
    if not (cfg.communities and top.n >= cfg.contraction_limit * k):
        return None
    if cfg.community_level < cfg.coarsest or getattr(be, "memory_budget", None) is not None:
        return None
    t0 = time.perf_counter()
    limit = int(cfg.community_level)
    if KEPT_LEVELS_MAX_NET_SIZE < 0:
        max_net_size = int(cfg.rating_max_net_size)
    elif KEPT_LEVELS_MAX_NET_SIZE == 0:
        max_net_size = community_net_size(cfg.community_graph, cfg, h.n)
    else:
        max_net_size = int(KEPT_LEVELS_MAX_NET_SIZE)
    prefix, cur = [], top
    while limit < cur.n:
        shrink = max(min(4.0, cur.n / limit), 1.01)
        cmap, nc = be.cluster_hypergraph(cur, min(int(mcw), int(cur.total_weight)),
                                         max_net_size=max_net_size, max_shrink=shrink,
                                         seed=seed)
        if nc > 0.9 * cur.n:
            break
        cur = be.contract_hypergraph(cur, cmap, int(nc))
        prefix.append((cmap, cur))
    if not prefix:
        return None
    cfg_here = copy_config(cfg, community_level_vertices=0, community_level=0)
    labels = _louvain(be, cur, h, k, cfg_here, seed, timer, t0)
    return prefix, labels


def detect_graph_communities(be: Backend, top: GraphArrays, g: Graph, k: int,
                             cfg: ResolvedConfig, seed: int, timer: Timer):
    """``Config.graph_communities``: Louvain communities of a graph (its edges as 2-pin nets,
    each weighing its edge's weight; with the clique expansion on the graph's own adjacency,
    :func:`_graph_louvain`), int32 per vertex on ``be``, or None when the setting is off or the
    input is already below the contraction limit. The C++ backend runs Louvain on the finest
    level (or, with ``community_level_vertices``, on a level of at most that many vertices); a
    device on the level its own label propagation clustering coarsens the graph to
    (:func:`coarse_graph_communities`, at most ``be.community_level_max(k)`` vertices, as its
    hypergraphs' Louvain level), on the host."""
    if not (cfg.graph_communities and top.n >= cfg.graph_contraction_limit * k):
        return None
    t0 = time.perf_counter()
    if be.xp is np:
        return coarse_graph_communities(be, be, top, g, k, cfg, seed, timer,
                                        int(cfg.community_level), t0)
    from ..kernels import get_backend

    return coarse_graph_communities(be, get_backend("cpu"), top, g, k, cfg, seed, timer,
                                    be.community_level_max(k), t0)


def coarse_graph_communities(be: Backend, host_be: Backend, top: GraphArrays, g: Graph, k: int,
                             cfg: ResolvedConfig, seed: int, timer: Timer, limit: int,
                             t0: float | None = None):
    """Louvain communities of ``top`` (on ``be``) computed on a coarser level: ``be``'s label
    propagation clustering (clusters of at most twice the weight of a vertex of a level of
    ``limit`` vertices, moves stopped at ``limit`` clusters) coarsens it level by level until
    it has at most ``limit`` vertices (0: ``top`` itself) or a level shrinks by less than 10%;
    that level goes to the host, Louvain runs there on ``host_be`` (:func:`_graph_louvain`) and
    the communities are projected back through the levels' cluster maps. Int32 per vertex of
    ``top`` on ``be``."""
    t0 = time.perf_counter() if t0 is None else t0
    maps, cur = [], top
    mcw = max(1, -(-2 * int(top.total_weight) // max(1, int(limit))))
    # the asynchronous passes reach backends that offer them, as in the coarsening
    mode = {"deterministic": cfg.deterministic} if getattr(be, "async_graph_lp", False) else {}
    while 0 < limit < cur.n:
        cmap, nc = be.cluster_graph_lp(cur, mcw, iterations=cfg.graph_lp_iterations,
                                       min_clusters=int(limit), seed=seed,
                                       sub_rounds=cfg.graph_lp_sub_rounds, **mode)
        if nc > 0.9 * cur.n:
            break
        maps.append(cmap)
        cur = be.contract_graph(cur, cmap, int(nc))
    host = be.to_host
    level = GraphArrays(int(cur.n), host(cur.xadj), host(cur.adjncy), host(cur.adjwgt),
                        host(cur.vwgt), cur.total_weight)
    comm = be.asarray(_graph_louvain(host_be, level, g, k, cfg, seed, timer, t0), "int32")
    for cmap in reversed(maps):
        comm = comm[cmap]
    return comm


def edge_nets(g: GraphArrays) -> HypergraphArrays:
    """``g`` (host arrays) as the hypergraph of its edges, one 2-pin net per edge in the order
    of the adjacency entries (u, v) with u < v: ``Backend.graph_edge_nets`` without its order of
    (smaller, larger) endpoint, and so without its sort of the edges and its search of every
    reverse entry. A vertex's nets take its adjacency's slots (``vptr`` is ``g.xadj``): its own
    nets (u < v) where their entries are, the nets that reach it from a smaller vertex in the
    slots of its other entries, grouped by one stable sort of the nets by their second pin."""
    deg = np.diff(g.xadj)
    src = np.repeat(np.arange(g.n, dtype=np.int32), deg)
    dst = g.adjncy
    fwd = np.flatnonzero(src < dst)
    m = int(fwd.shape[0])
    vind = np.empty(dst.shape[0], dtype=np.int32)
    vind[fwd] = np.arange(m, dtype=np.int32)
    # the reverse entries (u > v), grouped by u in CSR order, get the nets whose second pin is u
    # in the same grouping: as many per vertex on both sides in a symmetric CSR
    vind[src > dst] = np.argsort(dst[fwd], kind="stable").astype(np.int32)
    eind = np.empty(2 * m, dtype=np.int32)
    eind[0::2] = src[fwd]
    eind[1::2] = dst[fwd]
    return HypergraphArrays(
        n=g.n, m=m, eptr=np.arange(0, 2 * m + 1, 2, dtype=np.int64), eind=eind, vptr=g.xadj,
        vind=vind, vwgt=g.vwgt, ewgt=g.adjwgt[fwd], total_weight=g.total_weight)


def _louvain(be: Backend, top: HypergraphArrays, h: Hypergraph | Graph, k: int,
             cfg: ResolvedConfig, seed: int, timer: Timer, t0: float | None = None):
    t0 = time.perf_counter() if t0 is None else t0
    graph = cfg.community_graph
    max_net_size = community_net_size(graph, cfg, h.n)
    # asynchronous local moving reaches backends that offer it (Config.deterministic)
    mode = {"deterministic": cfg.deterministic} if getattr(be, "async_louvain", False) else {}
    communities = be.communities(
        top, max_net_size=max_net_size, max_levels=cfg.community_levels,
        max_passes=cfg.community_passes, seed=seed,
        resolution=cfg.community_resolution,
        max_weight=community_max_weight(cfg, h.total_weight, k),
        sub_rounds=cfg.community_sub_rounds, min_pass_gain=cfg.community_pass_gain, k=k,
        graph=graph,
        edge_weight=cfg.community_edge_weight, level_max=cfg.community_level, **mode,
    )
    alone = None
    if hasattr(be, "vertices_without_nets"):
        alone = be.vertices_without_nets(top, 2, max_net_size)
    communities = share_unconnected_community(be.xp, top, communities, max_net_size, alone)
    timer.add("communities", t0)
    return communities


def _graph_louvain(be: Backend, level: GraphArrays, g: Graph, k: int, cfg: ResolvedConfig,
                   seed: int, timer: Timer, t0: float):
    """Louvain communities of a host graph ``level`` (int32 per vertex): with the clique
    expansion (``community_graph``), on the graph's own adjacency (``be.graph_communities``:
    the communities of its edges as 2-pin nets, without building them); with the bipartite
    graph, or where ``be`` has no such call, on its edges as 2-pin nets (:func:`edge_nets`).
    The vertices without an edge share one community (:func:`share_unconnected_community`)."""
    max_net_size = community_net_size(cfg.community_graph, cfg, g.n)
    if (cfg.community_graph != "clique" or max_net_size < 2
            or not hasattr(be, "graph_communities")):
        return _louvain(be, edge_nets(level), g, k, cfg, seed, timer, t0)
    mode = {"deterministic": cfg.deterministic} if getattr(be, "async_louvain", False) else {}
    communities = be.graph_communities(
        level, max_levels=cfg.community_levels, max_passes=cfg.community_passes, seed=seed,
        resolution=cfg.community_resolution,
        max_weight=community_max_weight(cfg, g.total_weight, k),
        sub_rounds=cfg.community_sub_rounds, min_pass_gain=cfg.community_pass_gain, **mode)
    alone = np.diff(level.xadj) == 0  # the vertices no 2-pin net would connect
    communities = share_unconnected_community(np, level, communities, max_net_size, alone)
    timer.add("communities", t0)
    return communities
