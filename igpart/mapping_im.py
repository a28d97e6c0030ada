"""Integrated process mapping (GPU-IM, DESIGN §9): the mapping objective inside the multilevel
pipeline, and the mapping-gain refinement that the dynamic sessions reuse.

The hypergraph cost of :mod:`igpart.mapping`, ``w_e * sum_i d_i (g_{i-1}(e) - g_i(e))`` with
``g_l(e) = 1``, is linear in the group counts::

    cost(e) = w_e * (sum_{j=0}^{l-1} c_j g_j(e) - d_l),   c_0 = d_1,  c_j = d_{j+1} - d_j,

``g_j(e)`` the number of level-j groups (PEs for ``j = 0``) the net touches; every ``c_j >= 0``
since distances do not decrease. Moving vertex ``v`` from PE ``p`` to PE ``q`` changes ``g_j``
only at the levels ``j`` where the groups ``G_j(p)`` and ``G_j(q)`` differ (the levels below
their lowest common group), so its gain (the decrease of the cost) is::

    gain(v, q) = sum over those j of c_j * (leave_j(v) - W(v) + conn_j(v, G_j(q)))

with ``W(v)`` the weight of v's nets, ``leave_j(v)`` the weight of those in which v is the only
pin of its level-j group and ``conn_j(v, G)`` the weight of those with a pin in group ``G``: the
km1 gain of the move on each level of the hierarchy, weighted by ``c_j``. For a graph (each edge
a 2-pin net) this is the change of ``sum w(u, v) D(pe(u), pe(v))``.

:func:`refine_mapping` is a Jet-style label propagation with that gain: every vertex computes its
best target PE at once, the moves of positive gain are kept while the target PE has room (by
descending gain), applied together, and the cost is recomputed; when moves of neighbours
interfere so that the round gains less than its movers that share no net with a better mover
would (their gains add up exactly), only those move. Balanced in, balanced out: the bound is
never exceeded. The rounds run in the C++ backend's ``mapping_refine``: it builds every level's
net groups (the groups a net touches, with their pins) and the best moves once (OpenMP over the
nets and the vertices), then after each round rebuilds the groups of the nets with a mover only
and recomputes the best moves of their pins only (a round moves a few hundred of 10^5 vertices
on the finer levels of ibm10 x4): on ibm10 x4 at 4:8:1, 2 threads of a 2-core VM, the
refinement took 0.23 s against 1.02 s for a full analysis per round (ibm03 0.023 s against
0.086 s), the same mapping. :func:`_refine_rounds` is the same loop over full analyses
(``mapping_moves`` per round, numpy selection), the reference the tests compare the kernel's
mapping with; :func:`_analyse_numpy`, a numpy and ``scipy.sparse`` formulation of the gains, is
the tests' independent check of ``mapping_moves``.
:func:`integrated_mapping` runs it on every level of igpart's coarsening (restricted to the
partitioner's Louvain communities), starting from a hierarchical multisection of the coarsest
level by the multilevel partitioner (:data:`COARSEST_PARTITIONER`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .hypergraph import Hypergraph
from .metrics import max_block_weight

if TYPE_CHECKING:  # scipy.sparse only in the tests' numpy analysis: imported there (0.1-0.3 s)
    import scipy.sparse as sp

#: refinement rounds per level (each round moves every vertex with a positive gain)
MAX_ROUNDS = 16
#: a level's refinement stops after a round that lowers the cost by less than this fraction
MIN_IMPROVEMENT = 0.001
#: the rounds in the C++ kernel ``mapping_refine`` with updates for the nets with a mover (False:
#: :func:`_refine_rounds`, a full analysis per round; the same mapping)
REFINE_KERNEL = True
#: coarsening stops below this many vertices per PE (Mt-KaHyPar's and the paper's 160; a larger
#: coarsest level keeps more of its quality: on ibm01/03/05 at 4:8:1, 0.90x/0.99x/1.0x the cost
#: of 40 with METIS splits)
CONTRACTION_LIMIT = 160
#: the splits of the coarsest level's multisection: ``igpart.partition``'s algorithm for the
#: first split and for the later ones, and the settings of the multilevel one (those of ``hm``'s
#: first split), on the C++ backend (the coarsest level is small). The multilevel partitioner
#: for the first split, whose cut pays the largest distance, instead of METIS on the clique
#: expansion: on ibm03 at 4:8:1 the coarsest level's mapping cost 38,351 after refinement
#: against 41,383 with METIS on every split, which label propagation on the finer levels cannot
#: make up for; the multilevel partitioner on the later splits too gained under 1%
#: (BENCHMARKS.md, "Why `im` lost, and hm's splits side by side").
COARSEST_PARTITIONER: tuple[str, str] = ("multilevel", "metis")
COARSEST_EFFORT: tuple[dict, dict] = ({"vcycles": 0}, {"preset": "speed"})

# ----------------------------------------------------------------------------- levels
def level_coefficients(hierarchy, distance) -> tuple[list[int], list[float]]:
    """``(sizes, coefs)``: the group size ``prod(a_1..a_j)`` and the coefficient ``c_j`` of
    every level ``j`` whose groups count (levels of one subgroup, ``a_{j+1} = 1``, share the
    groups of the level below and add their coefficient to it; levels of coefficient 0 are left
    out). The cost of a net is ``w_e * (sum_j c_j g_j(e) - d_l)``."""
    d = [float(x) for x in distance]
    coefs, sizes, size = [], [], 1
    for j in range(len(hierarchy)):
        c = d[0] if j == 0 else d[j] - d[j - 1]
        if j > 0:
            size *= int(hierarchy[j - 1])
        if sizes and sizes[-1] == size:
            coefs[-1] += c
        else:
            sizes.append(size)
            coefs.append(c)
    keep = [i for i, c in enumerate(coefs) if c > 0]
    return [sizes[i] for i in keep], [coefs[i] for i in keep]


def _split_levels(hierarchy, distance):
    """``(sizes, coefs, const)``: the levels of :func:`level_coefficients` with more than one
    group, and the per-unit-net-weight constant ``sum of c_j over single-group levels - d_l``."""
    k = int(np.prod(hierarchy))
    sizes, coefs = level_coefficients(hierarchy, distance)
    const = sum(c for s, c in zip(sizes, coefs) if s >= k) - float(distance[-1])
    inner = [(s, c) for s, c in zip(sizes, coefs) if s < k]
    return [s for s, _ in inner], [c for _, c in inner], const


@dataclass
class _Level:
    """Host arrays of one hypergraph for the gain computation."""

    n: int
    m: int
    pin_v: np.ndarray  # int64, vertex of each pin (pins sorted by net)
    pin_e: np.ndarray  # int64, net of each pin
    pin_w: np.ndarray  # float64, weight of the pin's net
    h: Hypergraph
    vwgt: np.ndarray  # int64
    wsum: np.ndarray  # float64, W(v)
    ewgt_total: float  # weight of the nets with at least one pin
    net_starts: np.ndarray  # first pin of every net with pins
    net_sizes: np.ndarray  # pins of those nets

    @classmethod
    def of(cls, h: Hypergraph) -> _Level:
        pin_e = h.pin_nets.astype(np.int64)
        pin_v = h.eind.astype(np.int64)
        pin_w = h.ewgt.astype(np.float64)[pin_e]
        wsum = np.bincount(pin_v, weights=pin_w, minlength=h.n)
        size = np.diff(h.eptr)
        total = float(h.ewgt[size > 0].astype(np.float64).sum())
        return cls(h.n, h.m, pin_v, pin_e, pin_w, h, h.vwgt.astype(np.int64), wsum, total,
                   h.eptr[:-1][size > 0].astype(np.int64), size[size > 0])

    @cached_property
    def incidence(self) -> sp.csr_matrix:
        """(n, m) vertex-net incidence, ones (the numpy analysis only)."""
        import scipy.sparse as sp

        inc = sp.csr_matrix((np.ones(self.pin_v.size), (self.pin_v, self.pin_e)),
                            shape=(self.n, self.m))  # fmt: skip
        inc.sort_indices()
        return inc


@dataclass
class _Analysis:
    cost: float
    best_q: np.ndarray  # int64 per vertex, -1: no candidate
    best_gain: np.ndarray  # float64 per vertex


def _analyse(lv: _Level, parts: np.ndarray, k: int, sizes, coefs, const: float,
             active: np.ndarray | None) -> _Analysis:  # fmt: skip
    """The cost of ``parts`` and every vertex's best move (``active``: only these vertices
    get candidates), by the C++ backend's ``mapping_moves`` (OpenMP over the vertices)."""
    from .kernels import _cpu

    h = lv.h
    cand = np.ones(lv.n, dtype=np.uint8) if active is None else active.astype(np.uint8)
    best_q, best_gain, cost = _cpu.mapping_moves(
        h.eptr, h.eind, h.ewgt, h.vptr, h.vind, parts.astype(np.int32), int(k),
        np.asarray(sizes, dtype=np.int64), np.asarray(coefs, dtype=np.float64), cand,
    )  # fmt: skip
    return _Analysis(cost + const, best_q.astype(np.int64), best_gain)


def _analyse_numpy(lv: _Level, parts: np.ndarray, k: int, sizes, coefs, const: float,
                   active: np.ndarray | None) -> _Analysis:  # fmt: skip
    """:func:`_analyse` in numpy and ``scipy.sparse`` (sparse products of the incidence with the
    per-level net-group matrices): the independent implementation the tests compare with."""
    import scipy.sparse as sp

    pe = parts.astype(np.int64)
    # pins sorted by (net, PE): group ids are monotone in the PE id, so the distinct (net,
    # group) pairs of every level are where the pair changes in this one order
    order = np.argsort(lv.pin_e * k + pe[lv.pin_v], kind="stable")
    se, sv = lv.pin_e[order], lv.pin_v[order]
    spe = pe[sv]
    sw = lv.pin_w[order]
    net_start = np.r_[True, se[1:] != se[:-1]] if se.size else np.zeros(0, bool)
    cost = const
    leave, pairs = [], []
    for size, c in zip(sizes, coefs):
        g = spe // size
        new = net_start.copy()
        new[1:] |= g[1:] != g[:-1]
        starts = np.flatnonzero(new)
        cnt = np.diff(np.r_[starts, se.size])
        cost += c * float(sw[starts].sum())
        leave.append(np.bincount(sv, weights=sw * np.repeat(cnt == 1, cnt), minlength=lv.n))
        pairs.append((se[starts], g[starts], sw[starts]))
    # only vertices on a net that spans several PEs can gain (level 0, the PEs, always counts:
    # c_0 = d_1 > 0); the candidates are the PEs they are connected to
    spans = np.bincount(pairs[0][0], minlength=lv.m) > 1
    cand = np.zeros(lv.n, dtype=bool)
    cand[lv.pin_v[spans[lv.pin_e]]] = True
    if active is not None:
        cand &= active
    verts = np.flatnonzero(cand)
    inc = lv.incidence[verts]
    gain = q = rows = None
    for (ue, ug, wu), size, c, lj in zip(pairs, sizes, coefs, leave):
        ng = -(-k // size)
        indptr = np.r_[0, np.cumsum(np.bincount(ue, minlength=lv.m))]
        C = (inc @ sp.csr_matrix((wu, ug, indptr), shape=(lv.m, ng))).tocsr()
        C.sort_indices()
        local = np.repeat(np.arange(verts.size, dtype=np.int64), np.diff(C.indptr))
        if q is None:  # level 0: the candidate moves (local row, PE) and their level-0 part
            keep = C.indices != pe[verts[local]]
            rows, q = local[keep], C.indices[keep].astype(np.int64)
            own = pe[verts[rows]]
            v = verts[rows]
            gain = c * (lj[v] - lv.wsum[v] + C.data[keep])
            continue
        gq = q // size
        differ = gq != own // size
        if not differ.any():
            continue
        keys = local * ng + C.indices
        want = rows * ng + gq
        pos = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
        cj = np.where(keys[pos] == want, C.data[pos], 0.0) if keys.size else np.zeros(want.size)
        gain += np.where(differ, c * (lj[v] - lv.wsum[v] + cj), 0.0)
    if rows is not None:
        rows = verts[rows]
    best_q = np.full(lv.n, -1, dtype=np.int64)
    best_gain = np.zeros(lv.n)
    if rows is not None and rows.size:
        order = np.lexsort((-gain, rows))
        first = np.r_[True, rows[order][1:] != rows[order][:-1]]
        sel = order[first]
        best_q[rows[sel]] = q[sel]
        best_gain[rows[sel]] = gain[sel]
    return _Analysis(cost, best_q, best_gain)


def _select(lv: _Level, parts, an: _Analysis, bounds: np.ndarray, k: int):
    """Moves of positive gain, by descending gain, each target PE taking them while its weight
    stays within its bound (weights leaving a PE are not counted: the result stays balanced
    whatever subset is applied). Returns (vertices, targets, gains) sorted by gain."""
    v = np.flatnonzero((an.best_q >= 0) & (an.best_gain > 1e-9))
    if v.size == 0:
        return v, v, np.zeros(0)
    q, g, w = an.best_q[v], an.best_gain[v], lv.vwgt[v]
    order = np.lexsort((-g, q))
    v, q, g, w = v[order], q[order], g[order], w[order]
    csum = np.cumsum(w)
    start = np.r_[True, q[1:] != q[:-1]]
    base = np.maximum.accumulate(np.where(start, csum - w, 0))
    load = np.bincount(parts, weights=lv.vwgt, minlength=k).astype(np.int64)
    ok = (csum - base) + load[q] <= bounds[q]
    v, q, g = v[ok], q[ok], g[ok]
    order = np.argsort(-g, kind="stable")
    return v[order], q[order], g[order]


def _independent(lv: _Level, v: np.ndarray) -> np.ndarray:
    """Mask over the movers ``v`` (sorted by descending priority): those that come first among
    the movers of each of their nets, so that no two kept movers share a net."""
    rank = np.full(lv.n, v.size, dtype=np.int64)
    rank[v] = np.arange(v.size)
    pin_rank = rank[lv.pin_v]
    if pin_rank.size == 0:
        return np.ones(v.size, dtype=bool)
    first = np.minimum.reduceat(pin_rank, lv.net_starts)
    net_first = np.repeat(first, lv.net_sizes)
    beaten = np.bincount(lv.pin_v, weights=net_first < pin_rank, minlength=lv.n)
    return beaten[v] == 0


def refine_mapping(h: Hypergraph, parts, hierarchy, distance, bounds, *, active=None,
                   max_rounds: int = MAX_ROUNDS, level: _Level | None = None,
                   incidence=None):  # fmt: skip
    """Label propagation with the mapping gain (module docstring) on ``h``; ``parts`` holds PE
    ids, ``bounds`` the weight bound of each PE (int64, k). ``active`` (bool per vertex): only
    these vertices move. ``incidence``: ``(vptr, vind)`` of ``h`` where the caller has them (a
    coarsening level's), else ``h``'s own. Returns ``(parts, cost, rounds)``; the cost never
    rises and no PE goes above its bound that was within it.

    The rounds run in the C++ backend's ``mapping_refine`` (:data:`REFINE_KERNEL`), which keeps
    every level's net groups and the best moves and updates them for the nets with a mover and
    their pins only; :func:`_refine_rounds` is the same loop over full analyses (the tests check
    that both give the same mapping)."""
    k = int(np.prod(hierarchy))
    sizes, coefs, const = _split_levels(hierarchy, distance)
    parts = np.asarray(parts, dtype=np.int64).copy()
    bounds = np.asarray(bounds, dtype=np.int64)
    if h.n == 0:
        return parts.astype(np.int32), 0.0, 0
    if not sizes:  # one PE: nothing to move to
        return parts.astype(np.int32), 0.0, 0
    if not REFINE_KERNEL:
        lv = level if level is not None else _Level.of(h)
        return _refine_rounds(lv, parts, k, sizes, coefs, const * lv.ewgt_total, bounds, active,
                              max_rounds)  # fmt: skip
    from .kernels import _cpu

    total = float(h.ewgt[np.diff(h.eptr) > 0].astype(np.float64).sum())
    cand = np.ones(h.n, dtype=np.uint8) if active is None else np.asarray(active, np.uint8)
    vptr, vind = incidence if incidence is not None else (h.vptr, h.vind)
    out, cost, moves = _cpu.mapping_refine(
        h.eptr, h.eind, h.ewgt, vptr, vind, h.vwgt, parts.astype(np.int32), k,
        np.asarray(sizes, dtype=np.int64), np.asarray(coefs, dtype=np.float64), cand, bounds,
        const * total, int(max_rounds), MIN_IMPROVEMENT,
    )  # fmt: skip
    return out, float(cost), int(moves.size)


def _refine_rounds(lv: _Level, parts, k, sizes, coefs, const, bounds, active, max_rounds):
    """:func:`refine_mapping`'s rounds in numpy over a full :func:`_analyse` each (the reference
    for ``mapping_refine``)."""
    an = _analyse(lv, parts, k, sizes, coefs, const, active)
    rounds = 0
    for _ in range(max_rounds):
        v, q, g = _select(lv, parts, an, bounds, k)
        if v.size == 0:
            break
        # all moves at once; when moves of neighbours interfere so much that this gains less
        # than the moves no two of which share a net (their gains add up exactly), those
        free = _independent(lv, v)
        new = parts.copy()
        new[v] = q
        nan = _analyse(lv, new, k, sizes, coefs, const, active)
        if an.cost - nan.cost < float(g[free].sum()) - 1e-9:
            new = parts.copy()
            new[v[free]] = q[free]
            nan = _analyse(lv, new, k, sizes, coefs, const, active)
        if not nan.cost < an.cost - 1e-9:
            break
        small = an.cost - nan.cost < MIN_IMPROVEMENT * abs(an.cost)
        parts, an = new, nan
        rounds += 1
        if small:
            break
    return parts.astype(np.int32), an.cost, rounds


# ------------------------------------------------------------------------------- driver
def integrated_mapping(h: Hypergraph, a: tuple[int, ...], d: np.ndarray, epsilon: float,
                       backend, seed: int, config, multisection):  # fmt: skip
    """GPU-IM: coarsen with the backend's clustering within the Louvain communities (as
    :func:`igpart.partition` does), map the coarsest level by hierarchical multisection (on the
    C++ backend), then project level by level, refining with
    :func:`refine_mapping` on each. Returns (PE ids, splits, backend name, timings, trace) with
    ``trace["initial"]``: the coarsest level's multisection projected onto ``h`` (the finest
    level's mapping costs at most as much) and ``trace["levels"]``: the vertices per level.
    ``multisection``: the hierarchical multisection of the coarsest level (the caller's,
    ``igpart.mapping._multisection``)."""
    from .parallel.threads import stage_threads as _stage_threads
    from .partitioner.config import Config

    with _stage_threads(Config.of(config)):  # Config.threads: the OpenMP threads of every stage
        return _integrated_mapping(h, a, d, epsilon, backend, seed, config, multisection)


def _integrated_mapping(h, a, d, epsilon, backend, seed, config, _multisection):
    from .kernels import get_backend
    from .partitioner.coarsening import coarsen as _coarsen
    from .partitioner.coarsening import hypergraph_coarsener as _hypergraph_coarsener
    from .partitioner.coarsening import hypergraph_from_arrays
    from .partitioner.config import Config
    from .partitioner.context import Timer as _Timer
    from .partitioner.context import max_cluster_weight as _max_cluster_weight
    from .partitioner.context import resolve as _resolve
    from .partitioner.preprocessing import detect_communities as _detect_communities

    k = int(np.prod(a))
    cfg = Config.of(config)
    be = get_backend(backend)
    if be.name != "cpu" and h.n < cfg.host_levels_below:
        be = get_backend("cpu")
    timer = _Timer()
    bound = max_block_weight(h.total_weight, k, epsilon)
    bounds = np.full(k, bound, dtype=np.int64)
    t0 = time.perf_counter()
    top = be.hypergraph_arrays(h)
    mcw = _max_cluster_weight(h.total_weight, k, cfg.contraction_limit, cfg.cluster_weight_factor,
                              bound)  # fmt: skip
    rcfg = _resolve(cfg, be, h, k)
    coarsen_one = _hypergraph_coarsener(be, mcw, rcfg, seed)
    # the partitioner's Louvain communities restrict the clustering: without them clusters
    # cross the input's natural cuts (on ibm03 at 4:8:1 the best multisection of the coarsest
    # level cost 46,644 without, 41,595 with them, 35,932 on the input itself)
    communities = _detect_communities(be, top, h, k, rcfg, seed, timer)
    levels = _coarsen(top, lambda x: x.n, coarsen_one, be.contract_hypergraph,
                      CONTRACTION_LIMIT * k, cfg.min_shrink, cfg.max_levels, timer,
                      labels=communities, xp=be.xp, min_n=k, be=be)  # fmt: skip
    timer.add("coarsen", t0)
    t0 = time.perf_counter()
    coarse = hypergraph_from_arrays(be, levels[-1][0]) if len(levels) > 1 else h
    pe, splits, _, mtimings = _multisection(coarse, a, epsilon, "cpu", [int(seed)], config,
                                            partitioner=COARSEST_PARTITIONER,
                                            effort=COARSEST_EFFORT)  # fmt: skip
    pe = np.asarray(pe, dtype=np.int64)
    if not _balanced(coarse, pe, bounds, k):
        pe = _rebalance(coarse, pe, bounds, k)
    timer.add("initial", t0)
    to_coarse = np.arange(h.n, dtype=np.int64)
    for level in levels[:-1]:
        to_coarse = np.asarray(level[3].to_host(level[1]), dtype=np.int64)[to_coarse]
    trace = {"initial": pe[to_coarse], "levels": [int(level[0].n) for level in levels]}
    t0 = time.perf_counter()
    pe, _, _ = refine_mapping(coarse, pe, a, d, bounds)
    timer.add("refine", t0)
    for i in range(len(levels) - 2, -1, -1):
        t0 = time.perf_counter()
        level, cmap, _, lbe = levels[i][:4]
        fine = h if i == 0 else hypergraph_from_arrays(lbe, level)
        pe = np.asarray(pe)[lbe.to_host(cmap)]
        timer.add("project", t0)
        t0 = time.perf_counter()
        # the level's own incidence (the backend's arrays hold both directions)
        inc = None if i == 0 else (lbe.to_host(level.vptr), lbe.to_host(level.vind))
        pe, _, _ = refine_mapping(fine, pe, a, d, bounds, incidence=inc)
        timer.add("refine", t0)
    timings = dict(timer.timings)
    timings.update({f"initial_{key}": v for key, v in mtimings.items()})
    return pe.astype(np.int64), splits, be.name, timings, trace


def _balanced(h: Hypergraph, pe, bounds, k) -> bool:
    return bool((np.bincount(pe, weights=h.vwgt, minlength=k) <= bounds).all())


def _rebalance(h: Hypergraph, pe, bounds, k):
    """The C++ backend's rebalancing (km1 gains) for a coarsest mapping the multisection left
    above a bound (rare: heavy coarse vertices)."""
    from .kernels import get_backend

    cpu = get_backend("cpu")
    out = cpu.rebalance_hypergraph(cpu.hypergraph_arrays(h), pe.astype(np.int32), k, bounds,
                                   "km1")  # fmt: skip
    return np.asarray(out, dtype=np.int64)
