"""Launchers of the graph stage operations (G-kway): union-find coarsening with scoring,
contraction, independent-set refinement, edge cut."""

from __future__ import annotations

import cupy as cp

from ..backend import GraphArrays
from ._common import (
    STATS,
    block_weights,
    exclusive_cumsum,
    i32,
    i64,
    launch,
    run_starts,
    scatter_add,
    segment_ids,
)
from ._hypergraph import apply_prefix, balanced_prefix, block_table, group_vertices


def coarsen(g: GraphArrays, mcw: int, group_size: int, seed: int):
    n = g.n
    if n == 0:
        return cp.zeros(0, dtype=cp.int32), 0
    maxdeg = int(cp.diff(g.xadj).max())
    best = cp.empty(n, dtype=cp.int32)
    STATS.add(3)
    launch("coarsen", "graph_rate", n, (i64(n), g.xadj, g.adjncy, g.adjwgt, g.vwgt, i64(mcw),
                                        i64(maxdeg + 1), i64(seed), best))
    return group_vertices(best, n, g.vwgt, mcw, group_size, mirror=True)


def contract(g: GraphArrays, cmap, nc: int) -> GraphArrays:
    vwgt = scatter_add(cmap, g.vwgt, nc)
    nnz = int(g.adjncy.shape[0])
    src = segment_ids(g.xadj, nnz)
    cu = cmap[src]
    cv = cmap[g.adjncy]
    keep = cu != cv
    key = (cu[keep].astype(cp.int64) << 32) | cv[keep].astype(cp.int64)
    w = g.adjwgt[keep]
    o = cp.argsort(key)
    key = key[o]
    w = w[o]
    STATS.add(12)
    if key.shape[0] == 0:
        return GraphArrays(n=nc, xadj=cp.zeros(nc + 1, dtype=cp.int64),
                           adjncy=cp.zeros(0, dtype=cp.int32), adjwgt=cp.zeros(0, dtype=cp.int64),
                           vwgt=vwgt, total_weight=g.total_weight)
    _, flag = run_starts(key)
    run = (cp.cumsum(flag, dtype=cp.int64) - 1).astype(cp.int32)
    nruns = int(run[-1]) + 1
    sums = scatter_add(run, w, nruns)
    ukey = key[flag]
    nz = sums > 0  # zero-weight edges never count in the cut: dropped
    ukey = ukey[nz]
    adjwgt = sums[nz]
    adjncy = (ukey & 0xFFFFFFFF).astype(cp.int32)
    rows = (ukey >> 32).astype(cp.int32)
    xadj = exclusive_cumsum(cp.bincount(rows, minlength=nc))
    STATS.add(12)
    return GraphArrays(n=nc, xadj=xadj, adjncy=adjncy, adjwgt=adjwgt, vwgt=vwgt,
                       total_weight=g.total_weight)


def edge_cut(g: GraphArrays, parts) -> int:
    out = cp.zeros(1, dtype=cp.int64)
    STATS.add()
    launch("metrics", "graph_cut2", g.n, (i64(g.n), g.xadj, g.adjncy, g.adjwgt, parts, out))
    return int(out[0]) // 2


def refine(g: GraphArrays, parts, k: int, bounds, max_rounds: int):
    n = g.n
    parts = parts.copy()
    total = 0
    if n == 0 or max_rounds <= 0:
        return parts, 0
    bw = block_weights(g.vwgt, parts, k)
    target = cp.empty(n, dtype=cp.int32)
    gain = cp.empty(n, dtype=cp.int64)
    keep = cp.empty(n, dtype=cp.int32)
    use_global, scratch, shared = block_table(n, k)
    STATS.add(4)
    for _ in range(max_rounds):
        launch("refine", "graph_best_moves", n, (
            i64(n), g.xadj, g.adjncy, g.adjwgt, g.vwgt, parts, bw, bounds, i32(k),
            i32(use_global), scratch, target, gain), warps=True, shared=shared)
        launch("refine", "graph_independent", n, (i64(n), g.xadj, g.adjncy, target, keep))
        mv_u = cp.flatnonzero(keep).astype(cp.int32)
        STATS.add(3)
        L = int(mv_u.shape[0])
        if L == 0:
            break
        mv_u = mv_u[cp.argsort(-gain[mv_u])]
        mv_to = target[mv_u]
        mv_from = parts[mv_u]
        w = g.vwgt[mv_u]
        STATS.add(6)
        length, best = balanced_prefix(mv_from, mv_to, w, gain[mv_u], bw, bounds, longest=True)
        if length == 0:
            break
        apply_prefix(parts, bw, mv_u, mv_from, mv_to, w, length)
        total += best
    return parts, total
