"""Level-wide sub-(hyper)graph extraction (igpart.subgraphs): every group's sub-problem of a
level in one segmented pass over an array module, against a per-group extraction that masks one
group at a time, on random inputs; on the device (cupy) against the host (numpy)."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import Graph, Hypergraph
from igpart.subgraphs import (
    level_subgraphs,
    level_subhypergraphs,
    ranges,
    subgraphs,
    subhypergraphs,
)


def random_hypergraph(rng, n: int, m: int, max_size: int) -> Hypergraph:
    nets = [rng.choice(n, size=rng.integers(1, min(max_size, n) + 1), replace=False)
            for _ in range(m)]  # fmt: skip
    return Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 4, size=n),
                                ewgt=rng.integers(1, 5, size=m))  # fmt: skip


def random_graph(rng, n: int, m: int) -> Graph:
    u, v = rng.integers(0, n, size=m), rng.integers(0, n, size=m)
    keep = u != v
    return Graph.from_edges(u[keep], v[keep], rng.integers(1, 5, size=keep.sum()), n=n)


def one_subhypergraph(h: Hypergraph, group: np.ndarray, g: int):
    """Group ``g``'s sub-hypergraph alone: its vertices, each net's pins in the group in pin
    order (nets left with fewer than 2 pins dropped)."""
    verts = np.flatnonzero(group == g)
    local = np.full(h.n, -1, dtype=np.int64)
    local[verts] = np.arange(verts.size)
    nets, ewgt = [], []
    for e in range(h.m):
        pins = local[h.net(e)]
        pins = pins[pins >= 0]
        if pins.size >= 2:
            nets.append(pins)
            ewgt.append(h.ewgt[e])
    eptr = np.r_[0, np.cumsum([p.size for p in nets])].astype(np.int64)
    eind = np.concatenate(nets).astype(np.int32) if nets else np.zeros(0, np.int32)
    return verts, eptr, eind, np.asarray(ewgt, dtype=np.int64), h.vwgt[verts]


def one_subgraph(g0: Graph, group: np.ndarray, g: int):
    """Group ``g``'s induced subgraph alone, adjacency order kept."""
    verts = np.flatnonzero(group == g)
    local = np.full(g0.n, -1, dtype=np.int64)
    local[verts] = np.arange(verts.size)
    rows, wts = [], []
    for v in verts:
        nb = g0.adjncy[g0.xadj[v] : g0.xadj[v + 1]]
        w = g0.adjwgt[g0.xadj[v] : g0.xadj[v + 1]]
        inside = group[nb] == g
        rows.append(local[nb[inside]])
        wts.append(w[inside])
    xadj = np.r_[0, np.cumsum([r.size for r in rows])].astype(np.int64)
    cat = lambda xs, t: np.concatenate(xs).astype(t) if xs else np.zeros(0, t)  # noqa: E731
    return verts, xadj, cat(rows, np.int32), cat(wts, np.int64), g0.vwgt[verts]


def cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 50))
        ngroups = int(rng.integers(1, 9))  # some groups empty, some of one vertex
        yield rng, n, ngroups, rng.integers(0, ngroups, size=n)


HYPERGRAPH = (
    lambda rng, n: random_hypergraph(rng, n, int(rng.integers(0, 70)), max_size=7),
    subhypergraphs, one_subhypergraph, ("eptr", "eind", "ewgt", "vwgt"),
    lambda s: Hypergraph(s.eptr, s.eind, s.n, s.vwgt, s.ewgt),
)  # fmt: skip
GRAPH = (
    lambda rng, n: random_graph(rng, n, int(rng.integers(0, 3 * n + 1))),
    subgraphs, one_subgraph, ("xadj", "adjncy", "adjwgt", "vwgt"),
    lambda s: Graph(s.xadj, s.adjncy, s.n, s.adjwgt, s.vwgt),
)  # fmt: skip


@pytest.mark.parametrize("kind", [HYPERGRAPH, GRAPH], ids=["hypergraph", "graph"])
def test_level_extraction_equals_per_group_extraction(kind):
    make, level, one, names, rebuild = kind
    for rng, n, ngroups, group in cases(0, 150):
        x = make(rng, n)
        subs = list(level(x, group, ngroups))
        assert [g for g, _, _ in subs] == list(range(ngroups))
        for g, verts, sub in subs:
            want = one(x, group, g)
            got = (verts, *(getattr(sub, a) for a in names))
            for a, b in zip(got, want):
                assert a.dtype == b.dtype and np.array_equal(a, b)
            rebuild(sub)  # a valid CSR (symmetric for graphs)


def test_level_parent_nets_and_ranges():
    rng = np.random.default_rng(2)
    h = random_hypergraph(rng, 40, 60, max_size=6)
    group = rng.integers(0, 3, size=h.n)
    lv = level_subhypergraphs(np, h.eptr, h.eind, h.ewgt, h.vwgt, group, 3)
    # every sub-net is its parent net's pins in the group, mapped back to global ids
    for g in range(3):
        verts = lv.order[lv.vstart[g] : lv.vstart[g + 1]]
        for r in range(lv.rstart[g], lv.rstart[g + 1]):
            pins = verts[lv.ind[lv.ptr[r] : lv.ptr[r + 1]]]
            parent = h.net(int(lv.parent[r]))
            assert pins.tolist() == [v for v in parent if group[v] == g]
    start, size = np.array([5, 0, 9]), np.array([2, 0, 3])
    assert ranges(start, size).tolist() == [5, 6, 9, 10, 11]
    assert ranges(np.zeros(0, np.int64), np.zeros(0, np.int64)).size == 0


class ArrayModule:
    """numpy under another name: the extraction takes the path it takes with cupy (no
    ``repeat`` by an array of counts)."""

    def __getattr__(self, name):
        return getattr(np, name)


def test_module_generic_path_equals_numpy_path():
    xp = ArrayModule()
    for rng, n, ngroups, group in cases(4, 60):
        h = random_hypergraph(rng, n, int(rng.integers(0, 70)), max_size=7)
        g0 = random_graph(rng, n, int(rng.integers(0, 3 * n + 1)))
        hyper = (level_subhypergraphs, (h.eptr, h.eind, h.ewgt, h.vwgt))
        graph = (level_subgraphs, (g0.xadj, g0.adjncy, g0.adjwgt, g0.vwgt))
        for extract, args in (hyper, graph):
            a = extract(np, *args, group, ngroups)
            b = extract(xp, *args, group, ngroups)
            for name in ("order", "vstart", "vwgt", "rstart", "ptr", "ind", "rwgt", "parent"):
                x, y = getattr(a, name), getattr(b, name)
                assert (x is None and y is None) or np.array_equal(x, y), name


@pytest.mark.gpu
def test_device_extraction_equals_host():
    import cupy as cp

    for rng, n, ngroups, group in cases(3, 60):
        h = random_hypergraph(rng, n, int(rng.integers(0, 70)), max_size=7)
        g0 = random_graph(rng, n, int(rng.integers(0, 3 * n + 1)))
        pairs = [
            (level_subhypergraphs(np, h.eptr, h.eind, h.ewgt, h.vwgt, group, ngroups),
             level_subhypergraphs(cp, *map(cp.asarray, (h.eptr, h.eind, h.ewgt, h.vwgt, group)),
                                  ngroups)),
            (level_subgraphs(np, g0.xadj, g0.adjncy, g0.adjwgt, g0.vwgt, group, ngroups),
             level_subgraphs(cp, *map(cp.asarray, (g0.xadj, g0.adjncy, g0.adjwgt, g0.vwgt,
                                                   group)), ngroups)),
        ]  # fmt: skip
        for host, dev in pairs:
            assert isinstance(dev.ind, cp.ndarray)  # extracted on the device
            back = dev.to_host()
            for name in ("order", "vstart", "vwgt", "rstart", "ptr", "ind", "rwgt", "parent"):
                x, y = getattr(host, name), getattr(back, name)
                assert (x is None and y is None) or np.array_equal(x, y), name
            for (g1, v1, s1), (g2, v2, s2) in zip(host.groups(), dev.groups()):
                assert g1 == g2 and np.array_equal(v1, v2) and s1.n == s2.n


def test_host_extraction_of_a_large_level_on_any_threads():
    """The C++ extraction (many chunks of nets and vertices) equals the array code's on a level
    of 60,000 vertices in 37 groups, on any threads, with the array code's dtypes; group ids
    outside [0, ngroups) are an error."""
    from .test_graph_lp import omp_threads

    rng = np.random.default_rng(11)
    n, m = 60_000, 80_000
    sizes = rng.integers(1, 12, size=m)
    sizes[rng.integers(0, m, size=20)] = 3000  # a few large nets
    eptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    eind = rng.integers(0, n, size=int(eptr[-1])).astype(np.int32)
    h = Hypergraph(eptr, eind, n, rng.integers(1, 4, size=n), rng.integers(1, 5, size=m))
    group = (np.arange(n) * 37 // n + rng.integers(0, 2, size=n)) % 37  # clustered, mixed
    args = (h.eptr, h.eind, h.ewgt, h.vwgt)
    want = level_subhypergraphs(ArrayModule(), *args, group, 37)
    for threads in (1, 3, 16):
        with omp_threads(threads):
            got = level_subhypergraphs(np, *args, group, 37)
        for name in ("order", "vstart", "vwgt", "rstart", "ptr", "ind", "rwgt", "parent"):
            x, y = getattr(got, name), getattr(want, name)
            assert x.dtype == y.dtype and np.array_equal(x, y), name
    with pytest.raises(ValueError, match="group ids"):
        level_subhypergraphs(np, *args, np.where(group == 5, 37, group), 37)
