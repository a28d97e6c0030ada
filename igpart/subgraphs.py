"""Sub-(hyper)graphs of a grouping, extracted for all groups at once (Algorithm 1 of GPU-HM for
every group of a level in one segmented pass): the splits of hierarchical multisection and the
groups of a partition over a dask cluster both use them.

:func:`level_subhypergraphs` and :func:`level_subgraphs` are written against an array module
``xp`` (``numpy`` or ``cupy``): the same code runs on the host and on the device, where the
sub-problems of a level stay until :meth:`SubLevel.to_host` brings them over in one transfer
(on the host, hypergraphs go through the C++ backend's ``level_subhypergraphs`` instead, which
makes the same arrays on the threads).
The result concatenates every group's sub-(hyper)graph into one CSR; no loop runs over groups,
vertices, nets or pins (the only values read back are the total pin / edge count)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .hypergraph import Graph, Hypergraph
from .kernels import _cpu


@dataclass
class SubLevel:
    """Every group's sub-(hyper)graph of one level, concatenated, as arrays of one module.

    ``order``: the vertices sorted by group (ascending ids inside a group), ``vstart``
    (ngroups + 1): the first position in ``order`` of each group, ``vwgt``: the weights in that
    order. ``rstart`` (ngroups + 1): the first row of each group; a row is a sub-net
    (hypergraphs) or a vertex's adjacency (graphs), ``ptr`` (rows + 1) its first entry in
    ``ind`` (group-local vertex ids, int32), ``rwgt``: sub-net weights (hypergraphs, one per
    row) or edge weights (graphs, one per entry); ``parent``: the net of each sub-net
    (hypergraphs; unused for graphs)."""

    kind: str  # "hypergraph" | "graph"
    ngroups: int
    order: Any
    vstart: Any
    vwgt: Any
    rstart: Any
    ptr: Any
    ind: Any
    rwgt: Any
    parent: Any

    def to_host(self) -> SubLevel:
        """The same level with numpy arrays (one device-to-host copy per array)."""
        conv = {f.name: _host(getattr(self, f.name)) for f in fields(self)}
        return SubLevel(**conv)

    def groups(self):
        """Yields ``(g, vertices, sub)`` per group (host arrays; ``sub`` a Hypergraph or Graph
        over group-local ids, slices of the concatenated arrays)."""
        lv = self if isinstance(self.order, np.ndarray) else self.to_host()
        for g in range(lv.ngroups):
            v0, v1 = int(lv.vstart[g]), int(lv.vstart[g + 1])
            r0, r1 = int(lv.rstart[g]), int(lv.rstart[g + 1])
            verts = lv.order[v0:v1]
            ptr = lv.ptr[r0 : r1 + 1]
            p0, p1 = int(ptr[0]), int(ptr[-1])
            if lv.kind == "hypergraph":
                sub = Hypergraph(ptr - p0, lv.ind[p0:p1], v1 - v0, lv.vwgt[v0:v1],
                                 lv.rwgt[r0:r1], check=False)  # fmt: skip
            else:
                sub = Graph(ptr - p0, lv.ind[p0:p1], v1 - v0, lv.rwgt[p0:p1], lv.vwgt[v0:v1],
                            check=False)  # fmt: skip
            yield g, verts, sub


def _host(x):
    if x is None or isinstance(x, (int, str, np.ndarray)):
        return x
    return x.get()


# ------------------------------------------------------------------------------ helpers
def _first_of_runs(xp, key):
    """Bool mask of the positions where the sorted ``key`` changes (the first of each run)."""
    flag = xp.ones(key.shape[0], dtype=xp.bool_)
    if key.shape[0] > 1:
        xp.not_equal(key[1:], key[:-1], out=flag[1:])
    return flag


def _segment_ids(xp, ptr, total: int):
    """Row of every entry of a CSR with row pointers ``ptr`` (``total`` entries)."""
    if xp is np:  # numpy repeats by an array of counts (cupy does not)
        return np.repeat(np.arange(ptr.shape[0] - 1, dtype=np.int64), np.diff(ptr))
    return xp.searchsorted(ptr[1:], xp.arange(total, dtype=ptr.dtype), side="right")


def _ranges(xp, start, size, total: int):
    """Concatenation of ``arange(s, s + z)`` for each (s, z) (``total = sum(size)``)."""
    ends = xp.cumsum(size)
    idx = xp.arange(total, dtype=xp.int64)
    if xp is np:
        return idx + np.repeat(start - (ends - size), size)
    seg = xp.searchsorted(ends, idx, side="right")
    return start[seg] + idx - (ends[seg] - size[seg])


def _by_group(xp, group, ngroups: int):
    """``(order, vstart, local)``: vertices sorted by group (ids ascending inside a group, by a
    unique key, so no stable sort is needed), each group's first position, each vertex's id
    inside its group."""
    n = group.shape[0]
    ids = xp.arange(n, dtype=xp.int64)
    order = xp.argsort(group.astype(xp.int64) * max(n, 1) + ids)
    sg = group[order]
    vstart = xp.searchsorted(sg, xp.arange(ngroups + 1, dtype=sg.dtype))
    local = xp.empty(n, dtype=xp.int64)
    local[order] = ids - vstart[sg]
    return order, vstart, local


# ------------------------------------------------------------------------ whole levels
def level_subhypergraphs(xp, eptr, eind, ewgt, vwgt, group, ngroups: int) -> SubLevel:
    """Every group's sub-hypergraph (its vertices, its nets restricted to them in pin order,
    nets left with fewer than 2 pins dropped) of the hypergraph ``(eptr, eind, ewgt, vwgt)``
    under ``group`` (one id in ``[0, ngroups)`` per vertex), all arrays of module ``xp``. On
    the host the C++ backend's ``level_subhypergraphs`` makes the same arrays on the threads
    (the array code below sorts the pins, on one core)."""
    if xp is np:
        order, vstart, rstart, ptr, ind, parent = _cpu.level_subhypergraphs(
            np.asarray(eptr, dtype=np.int64), np.asarray(eind, dtype=np.int32),
            np.asarray(group, dtype=np.int64), int(ngroups))
        return SubLevel(kind="hypergraph", ngroups=int(ngroups), order=order, vstart=vstart,
                        vwgt=np.asarray(vwgt)[order], rstart=rstart, ptr=ptr, ind=ind,
                        rwgt=np.asarray(ewgt)[parent], parent=parent)
    return _level_subhypergraphs(xp, eptr, eind, ewgt, vwgt, group, ngroups)


def _level_subhypergraphs(xp, eptr, eind, ewgt, vwgt, group, ngroups: int) -> SubLevel:
    """:func:`level_subhypergraphs` in array code of module ``xp`` (the device's; on the host
    the oracle of the C++ version)."""
    group = xp.asarray(group).astype(xp.int64)
    eptr = eptr.astype(xp.int64)
    npins, m = int(eind.shape[0]), int(eptr.shape[0]) - 1
    order, vstart, local = _by_group(xp, group, ngroups)
    # pins are in net order: sorting them by (group, position) groups them by (group, net)
    # with the pin order of each net kept
    pg = group[eind]
    porder = xp.argsort(pg * max(npins, 1) + xp.arange(npins, dtype=xp.int64))
    pnet = _segment_ids(xp, eptr, npins)[porder]
    spg = pg[porder]
    seg = xp.flatnonzero(_first_of_runs(xp, spg * max(m, 1) + pnet))
    size = xp.diff(xp.concatenate([seg, xp.asarray([npins], dtype=seg.dtype)]))
    keep = size >= 2
    seg, size = seg[keep], size[keep]
    total = int(size.sum()) if size.shape[0] else 0
    pins = porder[_ranges(xp, seg, size, total)]
    seg_group = spg[seg]
    ptr = xp.zeros(size.shape[0] + 1, dtype=xp.int64)
    ptr[1:] = xp.cumsum(size)
    return SubLevel(
        kind="hypergraph", ngroups=int(ngroups), order=order, vstart=vstart, vwgt=vwgt[order],
        rstart=xp.searchsorted(seg_group, xp.arange(ngroups + 1, dtype=seg_group.dtype)),
        ptr=ptr, ind=local[eind[pins]].astype(xp.int32), rwgt=ewgt[pnet[seg]], parent=pnet[seg],
    )  # fmt: skip


def level_subgraphs(xp, xadj, adjncy, adjwgt, vwgt, group, ngroups: int) -> SubLevel:
    """Every group's induced subgraph of the graph ``(xadj, adjncy, adjwgt, vwgt)`` under
    ``group`` (adjacency order of every vertex kept), all arrays of module ``xp``."""
    group = xp.asarray(group).astype(xp.int64)
    xadj = xadj.astype(xp.int64)
    n, nadj = int(group.shape[0]), int(adjncy.shape[0])
    order, vstart, local = _by_group(xp, group, ngroups)
    src = _segment_ids(xp, xadj, nadj)
    inside = xp.flatnonzero(group[src] == group[adjncy])
    src = src[inside]
    # rows of a group in vertex order, entries of a row in adjacency order: sort the kept
    # entries (ascending positions) by group, by a unique key
    eorder = inside[xp.argsort(group[src] * max(nadj, 1) + inside)]
    deg = xp.zeros(n, dtype=xp.int64)
    deg += xp.bincount(src, minlength=n) if src.shape[0] else 0
    ptr = xp.zeros(n + 1, dtype=xp.int64)
    ptr[1:] = xp.cumsum(deg[order])
    return SubLevel(
        kind="graph", ngroups=int(ngroups), order=order, vstart=vstart, vwgt=vwgt[order],
        rstart=vstart, ptr=ptr, ind=local[adjncy[eorder]].astype(xp.int32),
        rwgt=adjwgt[eorder], parent=None,
    )  # fmt: skip


# ------------------------------------------------------------------- per-group views
def subhypergraphs(h: Hypergraph, group: np.ndarray, ngroups: int):
    """The sub-hypergraph of each group (its vertices, its nets restricted to them, nets of
    fewer than 2 pins dropped), built for all groups at once: yields ``(g, vertices, sub)``."""
    return level_subhypergraphs(np, h.eptr, h.eind, h.ewgt, h.vwgt, np.asarray(group),
                                ngroups).groups()  # fmt: skip


def subgraphs(g: Graph, group: np.ndarray, ngroups: int):
    """The induced subgraph of each group, built for all groups at once: yields
    ``(g, vertices, sub)``."""
    return level_subgraphs(np, g.xadj, g.adjncy, g.adjwgt, g.vwgt, np.asarray(group),
                           ngroups).groups()  # fmt: skip


def ranges(start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + z)`` for each (s, z), without a Python loop."""
    size = np.asarray(size, dtype=np.int64)
    return _ranges(np, np.asarray(start, dtype=np.int64), size, int(size.sum()))
