"""Data model: constructors, validation, immutability, conversions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from igpart import Graph, Hypergraph, InputError

from .util import random_hypergraph


def test_from_nets_and_incidence_views():
    h = Hypergraph.from_nets([[0, 1, 2], [2, 3], [3]], vwgt=[1, 2, 3, 4], ewgt=[5, 6, 7])
    assert (h.n, h.m, h.num_pins) == (4, 3, 6)
    assert list(h.vptr) == [0, 1, 2, 4, 6]
    assert list(h.vind) == [0, 0, 0, 1, 1, 2]
    assert list(h.net_sizes) == [3, 2, 1] and list(h.vertex_degrees) == [1, 1, 2, 2]
    assert h.total_weight == 10
    assert h.drop_small_nets().m == 2


def test_unit_weights_and_total_weight():
    """The unit-weight flags: known at construction for default weights, computed (once) for
    given ones; total_weight is the sum either way."""
    h = Hypergraph.from_nets([[0, 1, 2], [2, 3]])
    assert h.__dict__["unit_vertex_weights"] and h.__dict__["unit_net_weights"]
    assert h.total_weight == 4
    ones = Hypergraph.from_nets([[0, 1, 2], [2, 3]], vwgt=[1, 1, 1, 1], ewgt=[1, 1])
    assert "unit_vertex_weights" not in ones.__dict__
    assert ones.unit_vertex_weights and ones.unit_net_weights
    w = Hypergraph.from_nets([[0, 1, 2], [2, 3]], vwgt=[1, 2, 1, 1], ewgt=[1, 0])
    assert not w.unit_vertex_weights and not w.unit_net_weights and w.total_weight == 5


def test_immutable():
    h = Hypergraph.from_nets([[0, 1]])
    with pytest.raises(ValueError):
        h.eind[0] = 1
    g = Graph.from_edges([0], [1])
    with pytest.raises(ValueError):
        g.adjwgt[0] = 3


def test_duplicate_pins_merged_in_order():
    h = Hypergraph.from_nets([[3, 1, 3, 2, 1]])
    assert list(h.net(0)) == [3, 1, 2]


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        (dict(eptr=[0, 2], eind=[0, 5], n=3), "out of range"),
        (dict(eptr=[0, 2], eind=[0, -1], n=3), "out of range"),
        (dict(eptr=[0, 3], eind=[0, 1], n=3), "end at 2"),
        (dict(eptr=[0, 2, 1], eind=[0, 1], n=3), "end at|decreases"),
        (dict(eptr=[0, 2], eind=[0, 1], n=3, vwgt=[1, -1, 1]), "negative"),
        (dict(eptr=[0, 2], eind=[0, 1], n=3, ewgt=[1, 2]), "1 entries|2 entries"),
        (dict(eptr=[0, 2], eind=[0, 1], n=3, vwgt=[1.5, 1, 1]), "integers"),
        (dict(eptr=[0, 2], eind=[0.0, 1.0], n=3), "integers"),
    ],
)
def test_hypergraph_validation(kwargs, msg):
    with pytest.raises(InputError, match=msg):
        Hypergraph(**kwargs)


def test_incidence_round_trip():
    rng = np.random.default_rng(3)
    h = random_hypergraph(rng, 30, 40)
    inc = h.to_incidence()
    assert inc.shape == (30, 40)
    back = Hypergraph.from_incidence(inc)
    assert back.n == h.n and back.m == h.m
    for e in range(h.m):
        assert sorted(back.net(e)) == sorted(h.net(e))


def test_graph_validation():
    with pytest.raises(InputError, match="self loop"):
        Graph.from_edges([0], [0])
    with pytest.raises(InputError, match="does not list"):
        Graph([0, 1, 1], [1], 2)
    with pytest.raises(InputError, match="weight"):
        Graph([0, 1, 2], [1, 0], 2, adjwgt=[1, 2])
    with pytest.raises(InputError, match="more than once"):
        Graph([0, 2, 4], [1, 1, 0, 0], 2)
    with pytest.raises(InputError, match="self loop"):
        Graph.from_adjacency(sp.csr_matrix(np.eye(2, dtype=int)))
    with pytest.raises(InputError, match="does not list"):
        Graph.from_adjacency(sp.csr_matrix(np.array([[0, 1], [0, 0]])))


def asymmetry_oracle(xadj, adjncy, adjwgt, n):
    """find_asymmetry from sorted arc keys (numpy): the first loop in CSR order, else the first
    difference between the sorted (u, v) keys and the sorted reversed keys, else the first
    weight difference in that order."""
    if adjncy.size == 0:
        return None
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(xadj))
    dst = adjncy.astype(np.int64)
    loops = np.flatnonzero(src == dst)
    if loops.size:
        return ("loop", int(src[loops[0]]), int(src[loops[0]]), None, None)
    fwd = src * n + dst
    order = np.argsort(fwd, kind="stable")
    fs = fwd[order]
    dup = np.flatnonzero(fs[1:] == fs[:-1])
    if dup.size:
        return ("repeat", int(fs[dup[0]]) // n, int(fs[dup[0]]) % n, None, None)
    rorder = np.argsort(dst * n + src, kind="stable")
    rs = (dst * n + src)[rorder]
    if not np.array_equal(fs, rs):
        bad = int(np.flatnonzero(fs != rs)[0])
        if fs[bad] < rs[bad]:
            return ("missing", int(fs[bad]) // n, int(fs[bad]) % n, None, None)
        return ("missing", int(rs[bad]) % n, int(rs[bad]) // n, None, None)
    wf, wr = adjwgt[order], adjwgt[rorder]
    if not np.array_equal(wf, wr):
        bad = int(np.flatnonzero(wf != wr)[0])
        return ("weight", int(fs[bad]) // n, int(fs[bad]) % n, int(wf[bad]), int(wr[bad]))
    return None


@pytest.mark.parametrize("seed", range(4))
def test_find_asymmetry_equals_the_sorted_keys_oracle(seed):
    """The C++ check names the defect the sorted-keys oracle names, on small random graphs with
    a loop, a repeat, a dropped arc or a changed weight injected, rows in order or not."""
    from igpart.hypergraph import find_asymmetry

    rng = np.random.default_rng(seed)
    kinds = set()
    for _ in range(400):
        n = int(rng.integers(1, 12))
        u, v = rng.integers(0, n, 30), rng.integers(0, n, 30)
        keep = u != v
        u, v = u[keep][: rng.integers(0, 30)], v[keep][: rng.integers(0, 30)]
        u = u[: v.size]
        w = rng.integers(1, 4, u.size)
        src, dst, ww = np.r_[u, v[: u.size]], np.r_[v[: u.size], u], np.r_[w, w]
        r = rng.random()
        if r < 0.2 and src.size:  # an arc without its reverse
            i = rng.integers(src.size)
            src, dst, ww = np.delete(src, i), np.delete(dst, i), np.delete(ww, i)
        elif r < 0.35 and src.size:  # two directions of different weights
            ww = ww.copy()
            ww[rng.integers(src.size)] += 1
        elif r < 0.45:  # a self loop
            x = rng.integers(n)
            src, dst, ww = np.r_[src, x], np.r_[dst, x], np.r_[ww, 1]
        elif r < 0.55 and src.size:  # an arc listed twice
            i = rng.integers(src.size)
            src, dst, ww = np.r_[src, src[i]], np.r_[dst, dst[i]], np.r_[ww, ww[i]]
        if rng.random() < 0.5:  # rows in random order (the sorting path)
            perm = rng.permutation(src.size)
            order = np.argsort(src[perm], kind="stable")
            src, dst, ww = src[perm][order], dst[perm][order], ww[perm][order]
        else:  # rows in order (the hashed pass, then the ranking passes on a defect)
            order = np.lexsort((dst, src))
            src, dst, ww = src[order], dst[order], ww[order]
        xadj = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=xadj[1:])
        adj, wts = dst.astype(np.int32), ww.astype(np.int64)
        got = find_asymmetry(xadj, adj, wts, n)
        assert got == asymmetry_oracle(xadj, adj, wts, n)
        kinds.add(got[0] if got else None)
    assert kinds == {None, "loop", "repeat", "missing", "weight"}


def test_graph_from_edges_merges_and_adjacency_round_trip():
    g = Graph.from_edges([0, 1, 2], [1, 0, 0], [2, 3, 4], n=4)
    assert g.num_edges == 2
    assert list(g.neighbors(0)) == [1, 2] and list(g.adjwgt[:2]) == [5, 4]
    assert Graph.from_adjacency(g.to_adjacency()).equals(g)


def _clique_oracle(h, scale, max_size=None):
    acc = {}
    for e in range(h.m):
        pins = list(h.net(e))
        s = len(pins)
        if s < 2 or (max_size is not None and s > max_size):
            continue
        for a, b in itertools.permutations(pins, 2):
            acc[(a, b)] = acc.get((a, b), 0.0) + h.ewgt[e] / (s - 1)
    return {key: max(1, int(round(w * scale))) for key, w in acc.items() if w > 0}


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 20),
    m=st.integers(0, 25),
    weighted=st.booleans(),
    max_size=st.sampled_from([None, 3]),
)
def test_clique_expansion_matches_oracle(seed, n, m, weighted, max_size):
    h = random_hypergraph(np.random.default_rng(seed), n, m, weighted=weighted)
    g = h.to_graph("clique", max_net_size=max_size, scale=60)
    src = np.repeat(np.arange(g.n), g.degrees)
    got = {(int(a), int(b)): int(w) for a, b, w in zip(src, g.adjncy, g.adjwgt)}
    assert got == _clique_oracle(h, 60, max_size)
    assert np.array_equal(g.vwgt, h.vwgt)
    Graph(g.xadj, g.adjncy, g.n, g.adjwgt, g.vwgt)  # passes full validation (symmetric)


def test_star_expansion_and_graph_to_hypergraph():
    h = Hypergraph.from_nets([[0, 1, 2], [2, 3]], ewgt=[3, 4])
    g = h.to_graph("star")
    assert g.n == 6 and g.num_edges == 5
    assert list(g.neighbors(4)) == [0, 1, 2] and list(g.neighbors(5)) == [2, 3]
    assert list(g.vwgt[4:]) == [0, 0]
    back = g.to_hypergraph()
    assert back.m == 5 and np.all(back.net_sizes == 2)
    with pytest.raises(InputError, match="unknown graph model"):
        h.to_graph("bogus")
