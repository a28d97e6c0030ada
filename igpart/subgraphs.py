"""Sub-(hyper)graphs of a grouping, extracted for all groups at once in one vectorised pass
(Algorithm 1 of GPU-HM for every group): the splits of hierarchical multisection and the groups
of a partition over a dask cluster both use them."""

from __future__ import annotations

import numpy as np

from .hypergraph import Graph, Hypergraph


# ------------------------------------------------------------------------- sub-(hyper)graphs
def subhypergraphs(h: Hypergraph, group: np.ndarray, ngroups: int):
    """The sub-hypergraph of each group (its vertices, its nets restricted to them, nets of
    fewer than 2 pins dropped), built for all groups at once: yields ``(g, vertices, sub)``."""
    order = np.argsort(group, kind="stable")
    vstart = np.searchsorted(group[order], np.arange(ngroups + 1))
    local = np.empty(h.n, dtype=np.int64)
    local[order] = np.arange(h.n) - vstart[group[order]]
    # pins sorted by (group, net), pin order inside a net kept
    pg = group[h.eind].astype(np.int64)
    porder = np.lexsort((h.pin_nets, pg))
    key = pg[porder] * max(h.m, 1) + h.pin_nets[porder]
    seg = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, np.int64)
    seg_end = np.r_[seg[1:], key.size]
    size = seg_end - seg
    keep = size >= 2
    seg, size = seg[keep], size[keep]
    seg_group = pg[porder][seg]
    seg_net = h.pin_nets[porder][seg]
    pins = porder[ranges(seg, size)]
    pins_local = local[h.eind[pins]].astype(np.int32)
    nstart = np.searchsorted(seg_group, np.arange(ngroups + 1))
    pstart = np.r_[0, np.cumsum(size)]
    for g in range(ngroups):
        verts = order[vstart[g] : vstart[g + 1]]
        e0, e1 = nstart[g], nstart[g + 1]
        eptr = pstart[e0 : e1 + 1] - pstart[e0]
        eind = pins_local[pstart[e0] : pstart[e1]]
        sub = Hypergraph(eptr, eind, verts.size, h.vwgt[verts], h.ewgt[seg_net[e0:e1]], check=False)
        yield g, verts, sub


def ranges(start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + z)`` for each (s, z), without a Python loop."""
    total = int(size.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offs = np.repeat(start - np.r_[0, np.cumsum(size)[:-1]], size)
    return np.arange(total, dtype=np.int64) + offs


def subgraphs(g: Graph, group: np.ndarray, ngroups: int):
    """The induced subgraph of each group, built for all groups at once: yields
    ``(g, vertices, sub)``."""
    order = np.argsort(group, kind="stable")
    vstart = np.searchsorted(group[order], np.arange(ngroups + 1))
    local = np.empty(g.n, dtype=np.int64)
    local[order] = np.arange(g.n) - vstart[group[order]]
    src = np.repeat(np.arange(g.n, dtype=np.int64), g.degrees)
    inside = group[src] == group[g.adjncy]
    src, dst, w = src[inside], g.adjncy[inside], g.adjwgt[inside]
    eorder = np.argsort(group[src], kind="stable")  # rows stay in vertex order inside a group
    src, dst, w = src[eorder], dst[eorder], w[eorder]
    estart = np.searchsorted(group[src], np.arange(ngroups + 1))
    deg = np.bincount(src, minlength=g.n)
    for i in range(ngroups):
        verts = order[vstart[i] : vstart[i + 1]]
        xadj = np.r_[0, np.cumsum(deg[verts])].astype(np.int64)
        e0, e1 = estart[i], estart[i + 1]
        sub = Graph(xadj, local[dst[e0:e1]].astype(np.int32), verts.size, w[e0:e1], g.vwgt[verts],
                    check=False)  # fmt: skip
        yield i, verts, sub
