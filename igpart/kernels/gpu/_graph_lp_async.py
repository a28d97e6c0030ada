"""Label propagation clustering and refinement of graphs on the device in a few kernel launches
per round (``graph_lp.cu``): the GPU backend's ``cluster_graph_lp`` / ``lp_refine_graph`` under
``deterministic=False`` (what ``Config.deterministic = None`` passes).

A round is two phases. Every active vertex chooses against the labels before the round with
the choice rule of :mod:`._graph_lp` (the same tie hash of the seed and the round), a thread
per vertex (a block per row longer than ``graph_lp.cu``'s ``LP_SHORT``, and a warp per such row
in the refinement's other per-row kernels, so that a star's centre is not one thread's chain of
tens of thousands of loads); then a thread per proposal applies it, the bound of the target
reserved by an atomic addition, so no bound is exceeded whatever the order of the threads. That
order decides which competing moves get the room, so the result may differ from run to run;
the array rounds of :mod:`._graph_lp` (the ``deterministic=True`` path) admit in order of gain
instead, the same result on every run.

The clustering keeps :mod:`._graph_lp`'s rules for lone vertices (one chosen by a mover stays, to
be joined; of two choosing each other the larger id moves) and its stop at ``min_clusters``
(each move that empties a lone cluster reserves one from a device counter first), then its
two-hop grouping of lone vertices. The refinement filters the proposals as Jet's afterburner
does (a move stays when its gain is positive with the proposals of higher priority among its
neighbours applied first), admits an arrival while the target's weight with the round's
admitted arrivals and departures so far stays within its bound (so a full block takes a vertex
for each one that left it; a second pass retries the moves that found no room), and undoes a
round whose exact cut change, computed on the device, is negative (back to the weights before
it, which were within the bounds). Proposers whose target filled up stay active for the next
round. One host read per round (the moves' count, to stop early).
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from . import _graph_lp
from ._common import NULL, cumsum, i64, launch

#: Rows longer than this are chosen by a block each (``LP_SHORT`` in graph_lp.cu).
LP_SHORT = 32
#: Launches of a refinement round's apply kernel: a pass retries the moves the passes before
#: found no room for, against the room their departures freed (where the array rounds count
#: the admitted moves' outflow as credit).
APPLY_PASSES = 2


def _seed(seed: int) -> np.uint64:
    return np.uint64(int(seed) % (1 << 64))


class _Rows:
    """The per-level launch arguments of the choice: the vertices of rows longer than
    ``LP_SHORT`` (one host read of their number per call)."""

    def __init__(self, g) -> None:
        self.g = g
        self.long = cp.flatnonzero(cp.diff(g.xadj) > LP_SHORT).astype(cp.int64)
        self.nlong = int(self.long.shape[0])

    def choose(self, label, weight, bound, bound_all: int, balance: bool, active, size,
               seed: int, choice, gain, chosen, owner) -> None:
        g = self.g
        tail = (label, weight, NULL if bound is None else bound, i64(bound_all),
                np.int32(bool(balance)), NULL if active is None else active,
                NULL if size is None else size, _seed(seed), choice, gain,
                NULL if chosen is None else chosen, NULL if owner is None else owner)
        launch("graph_lp", "lp_choose_short", g.n,
               (i64(g.n), g.xadj, g.adjncy, g.adjwgt, g.vwgt) + tail)
        if self.nlong:
            launch("graph_lp", "lp_choose_long", self.nlong * 256,
                   (i64(self.nlong), self.long, g.xadj, g.adjncy, g.adjwgt, g.vwgt) + tail)


    def per_row(self, name: str, tail: tuple) -> None:
        """``name`` (a thread per row of at most ``LP_SHORT`` entries, arguments ``(n, xadj,
        adjncy) + tail``) and ``name_long`` (a warp per longer row, ``(rows' number, rows,
        xadj, adjncy) + tail``)."""
        g = self.g
        launch("graph_lp", name, g.n, (i64(g.n), g.xadj, g.adjncy) + tail)
        if self.nlong:
            launch("graph_lp", name + "_long", self.nlong,
                   (i64(self.nlong), self.long, g.xadj, g.adjncy) + tail, warps=True)


def cluster(g, max_cluster_weight: int, iterations: int, min_clusters: int, seed: int, ops):
    """``Backend.cluster_graph_lp``'s contract in fused rounds (see the module). ``ops``: the
    device's :class:`._graph_lp.ArrayOps` (the two-hop grouping). Returns ``(cmap int32, nc)``."""
    n = g.n
    if n == 0:
        return cp.zeros(0, dtype=cp.int32), 0
    mcw = int(max_cluster_weight)
    label = cp.arange(n, dtype=cp.int32)
    cw = g.vwgt.astype(cp.int64, copy=True)
    size = cp.ones(n, dtype=cp.int32)
    choice = cp.empty(n, dtype=cp.int32)
    gain = cp.empty(n, dtype=cp.int64)
    chosen = cp.empty(n, dtype=cp.uint8)
    owner = cp.empty(n, dtype=cp.int32)
    counters = cp.asarray([n, 0], dtype=cp.int64)  # clusters, moves of the round
    active = None
    nc = n
    rows = _Rows(g)
    for it in range(iterations):
        if nc <= min_clusters:
            break
        chosen.fill(0)
        owner.fill(-1)
        rows.choose(label, cw, None, mcw, False, active, size, seed + it, choice, gain, chosen,
                    owner)
        nxt = cp.zeros(n, dtype=cp.uint8)
        counters[1] = 0
        launch("graph_lp", "lp_cluster_apply", n, (
            i64(n), g.xadj, g.adjncy, g.vwgt, label, cw, size, i64(mcw), choice, chosen, owner,
            i64(min_clusters), counters, nxt))
        nc, moved = (int(x) for x in counters.get())
        if moved == 0:
            break
        active = nxt
    used = cp.zeros(n, dtype=cp.int32)
    used[label] = 1
    ids = cumsum(used)  # compact ids in order of label
    nc = int(ids[-1])
    if nc > min_clusters and 2 * nc > n:
        nc = _graph_lp._two_hop(ops, g, label, cw, size.astype(cp.int64), mcw, seed,
                                nc - min_clusters, nc)
        used.fill(0)
        used[label] = 1
        ids = cumsum(used)
    return (ids[label] - 1).astype(cp.int32), nc


def refine(g, parts, k: int, bounds, iterations: int, seed: int, block_weights):
    """``Backend.lp_refine_graph``'s contract in fused rounds (see the module); ``parts`` a
    device int32 array (copied), ``bounds`` device int64 (k). ``block_weights(vwgt, parts, k)``
    gives the int64 block weights. Returns ``(parts, gain)``, ``gain`` the exact edge-cut
    reduction."""
    n = g.n
    parts = parts.astype(cp.int32, copy=True)
    if n == 0 or k < 2 or iterations <= 0:
        return parts, 0
    bw = block_weights(g.vwgt, parts, k)
    arr = cp.zeros(k, dtype=cp.int64)
    dep = cp.zeros(k, dtype=cp.int64)
    choice = cp.empty(n, dtype=cp.int32)
    target = cp.empty(n, dtype=cp.int32)
    gain = cp.empty(n, dtype=cp.int64)
    frm = cp.empty(n, dtype=cp.int32)
    moved = cp.empty(n, dtype=cp.uint8)
    scalars = cp.zeros(3, dtype=cp.int64)  # the round's cut change, its moves, the total
    revert = cp.zeros(1, dtype=cp.int32)
    delta, counters, total = scalars[0:1], scalars, scalars[2:3]
    active = None
    rows = _Rows(g)
    for it in range(iterations):
        s = seed + it
        rows.choose(parts, bw, bounds, 0, True, active, None, s, choice, gain, None, None)
        rows.per_row("lp_refine_filter", (g.adjwgt, parts, choice, gain, _seed(s), target))
        moved.fill(0)
        nxt = cp.zeros(n, dtype=cp.uint8)
        scalars[1] = 0
        for _ in range(APPLY_PASSES):
            launch("graph_lp", "lp_refine_apply", n, (
                i64(n), g.xadj, g.adjncy, g.vwgt, parts, target, gain, bw, bounds, arr, dep,
                frm, moved, counters, nxt))
        rows.per_row("lp_refine_delta", (g.adjwgt, parts, frm, moved, delta))
        launch("graph_lp", "lp_refine_finish", 1, (
            np.int32(k), bw, arr, dep, delta, total, revert), single_block=256)
        launch("graph_lp", "lp_refine_revert", n, (i64(n), revert, parts, frm, moved))
        if int(scalars[1]) == 0:
            break
        active = nxt
    return parts, int(total[0])
