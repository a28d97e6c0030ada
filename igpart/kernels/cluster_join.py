"""The join step of one round of the parallel cluster-aware clustering, made deterministic.

The GPU clustering (``gpu/_hypergraph.cluster``) lets every lone vertex rate its neighbours'
clusters and then join its choice. Its ``cluster_join`` kernel resolves competing joins with
atomics: which joiners of a cluster that fills up succeed, and which joins the level's budget
(the number of clusters it may still lose) lets through, depend on the order the threads run
in, so two runs with the same seed can build different hierarchies. :func:`join_round` makes the
same decisions with sorts and prefix sums instead, written against the numpy API so that the
GPU runs it on CuPy arrays and the tests check it with numpy against a sequential reference:

* a lone vertex ``u`` whose choice ``v = best[u]`` is lone too forms a pair with it when the
  choice is mutual (``best[v] == u``; the smaller id becomes the representative), else waits;
* a lone vertex whose choice belongs to a cluster asks to join that cluster (``rep[v]``); the
  requests to one cluster are ordered by a seeded hash of the vertex (then its id) and the
  longest prefix whose weight and member count still fit (``cw + prefix <= max_weight``,
  ``csize + prefix count <= max_size``) is granted;
* when pairs and granted joins together exceed ``budget``, the first ``budget`` of them in the
  order of the same hash (then id) are kept.

The caller supplies ``scatter_add(out, idx, values)`` (``np.add.at`` on the host, a kernel on
the device), the only operation the numpy API does not share with CuPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MIX1 = 0x9E3779B97F4A7C15
_MIX2 = 0xBF58476D1CE4E5B9
_MIX3 = 0x94D049BB133111EB


def vertex_keys(xp, ids, seed: int):
    """A seeded 64-bit hash of every vertex id (splitmix64 finaliser), as uint64."""
    z = ids.astype(xp.uint64) + xp.uint64((int(seed) * _MIX1 + _MIX1) % 2**64)
    z = (z ^ (z >> xp.uint64(30))) * xp.uint64(_MIX2)
    z = (z ^ (z >> xp.uint64(27))) * xp.uint64(_MIX3)
    return z ^ (z >> xp.uint64(31))


def _argsort(xp, a):
    """A stable argsort (CuPy's is always stable and takes no ``kind``)."""
    return xp.argsort(a, kind="stable") if xp.__name__ == "numpy" else xp.argsort(a)


def _order(xp, keys, ids):
    """Positions sorted by (keys, ids): ids break ties of the hash."""
    o = _argsort(xp, ids)
    return o[_argsort(xp, keys[o])]


def join_round(xp, best, single, vwgt, rep, cw, csize, max_weight: int, max_size: int,
               budget: int, seed: int, scatter_add: Callable[[Any, Any, Any], None]) -> int:
    """One join step (see the module docstring). ``best``: int32 choice per vertex (-1: none),
    ``single``: bool, lone at the start of the round; ``rep``, ``cw``, ``csize`` (int32 / int64 /
    int32 per vertex: representative, cluster weight and members, valid at representatives) are
    updated in place. Returns the number of clusters the round removed (<= ``budget``)."""
    n = int(best.shape[0])
    if n == 0 or budget <= 0:
        return 0
    # vertex ids fit int32 (as ``best`` and ``rep``): two per-vertex arrays of 4 bytes, not 8
    ids = xp.arange(n, dtype=xp.int32)
    has = (best >= 0) & single
    v = xp.where(has, best, 0).astype(xp.int32, copy=False)
    pair = has & single[v] & (best[v] == ids) & (ids < v)  # u: the pair's representative
    join = has & ~single[v]
    # joins: requests to one cluster in hash order, the longest prefix that fits
    ju = xp.flatnonzero(join)
    jr = rep[v[ju]].astype(xp.int64)
    keys = vertex_keys(xp, ju, seed)
    o = _order(xp, keys, ju)
    o = o[_argsort(xp, jr[o])]  # by cluster, hash order inside
    ju, jr = ju[o], jr[o]
    w = vwgt[ju].astype(xp.int64)
    m = int(ju.shape[0])
    granted = xp.zeros(m, dtype=bool)
    if m:
        start = xp.ones(m, dtype=bool)
        start[1:] = jr[1:] != jr[:-1]
        first = xp.flatnonzero(start)
        seg = xp.cumsum(start) - 1
        cumw = xp.cumsum(w)
        base_w = (cumw - w)[first][seg]  # weight of the requests before this segment
        pos = ids[:m] - first[seg]  # position in the segment (0-based)
        granted = ((cw[jr] + cumw - base_w <= max_weight)
                   & (csize[jr].astype(xp.int64) + pos + 1 <= max_size))
    # the budget: pairs and granted joins in hash order, the first `budget` kept
    pu = xp.flatnonzero(pair)
    gu = ju[granted]
    events = xp.concatenate([pu, gu])
    if int(events.shape[0]) > budget:
        o = _order(xp, vertex_keys(xp, events, seed), events)
        keep = xp.zeros(int(events.shape[0]), dtype=bool)
        keep[o[:budget]] = True
        kp = keep[: int(pu.shape[0])]
        pu = pu[kp]
        gmask = xp.zeros(m, dtype=bool)
        gmask[xp.flatnonzero(granted)[keep[int(kp.shape[0]):]]] = True
        granted = gmask
    # apply: pairs (disjoint lone vertices), then joins (clusters that existed before)
    pv = best[pu].astype(xp.int64)
    rep[pv] = pu.astype(rep.dtype)
    csize[pu] = 2
    cw[pu] = vwgt[pu] + vwgt[pv]
    gu, gr = ju[granted], jr[granted]
    rep[gu] = gr.astype(rep.dtype)
    scatter_add(cw, gr, vwgt[gu].astype(cw.dtype))
    scatter_add(csize, gr, xp.ones(int(gu.shape[0]), dtype=csize.dtype))
    return int(pu.shape[0]) + int(gu.shape[0])
