"""Graphs whose weights are ones: known without a read where the weights were left out (the
reader, the generators, ``Graph(..., adjwgt=None)``), found by a read otherwise, and filled on the
device instead of copied, with the same arrays as a copy."""

from __future__ import annotations

import numpy as np
import pytest

import igpart
from igpart.generators import delaunay_graph, grid_graph
from igpart.io import read_graph, write_graph


def _known(g, name: str):
    """The cached flag, None where it has not been found yet (nothing read)."""
    return g.__dict__.get(name)


def test_a_graph_without_weights_knows_they_are_ones(tmp_path):
    g = grid_graph(30, 20)
    assert _known(g, "unit_edge_weights") and _known(g, "unit_vertex_weights")
    assert (g.adjwgt == 1).all() and (g.vwgt == 1).all()
    path = tmp_path / "g.graph"
    write_graph(g, path)
    r = read_graph(path)
    assert _known(r, "unit_edge_weights") and _known(r, "unit_vertex_weights")
    assert r.equals(g)
    bare = igpart.Graph(g.xadj, g.adjncy)
    assert _known(bare, "unit_edge_weights") and bare.adjwgt.dtype == np.int64
    assert (bare.adjwgt == 1).all() and bare.equals(g)
    unchecked = igpart.Graph(g.xadj, g.adjncy, g.n, check=False)
    assert unchecked.equals(g) and unchecked.unit_vertex_weights


def test_given_weights_are_read_to_find_out(tmp_path):
    g = grid_graph(30, 20)
    ones = igpart.Graph(g.xadj, g.adjncy, g.n, g.adjwgt.copy(), g.vwgt.copy())
    assert _known(ones, "unit_edge_weights") is None
    assert ones.unit_edge_weights and ones.unit_vertex_weights
    # a weighted file: not known until read, then False
    w = np.ones(g.adjncy.size, dtype=np.int64)
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    w[(src == 5) | (g.adjncy == 5)] = 3  # both directions of vertex 5's edges
    heavy = igpart.Graph(g.xadj, g.adjncy, g.n, w)
    assert not heavy.unit_edge_weights and heavy.unit_vertex_weights
    path = tmp_path / "w.graph"
    write_graph(heavy, path)
    r = read_graph(path)
    assert _known(r, "unit_edge_weights") is None and not r.unit_edge_weights
    assert r.equals(heavy)


@pytest.mark.parametrize("where", [0, 65_535, 65_536, 200_000, -1])
def test_one_weight_other_than_one_anywhere_is_found(where):
    # the check reads in slices of 65,536: a weight at either side of a slice's end
    g = delaunay_graph(40_000, seed=1)
    assert g.adjncy.size > 200_001
    w = np.ones(g.adjncy.size, dtype=np.int64)
    arc = where % g.adjncy.size
    u = int(np.searchsorted(g.xadj, arc, side="right") - 1)
    v = int(g.adjncy[arc])
    back = int(g.xadj[v] + np.flatnonzero(g.adjncy[g.xadj[v]:g.xadj[v + 1]] == u)[0])
    w[arc] = w[back] = 2
    assert not igpart.Graph(g.xadj, g.adjncy, g.n, w).unit_edge_weights
    vw = np.ones(g.n, dtype=np.int64)
    vw[where % g.n] = 0
    assert not igpart.Graph(g.xadj, g.adjncy, g.n, None, vw).unit_vertex_weights


@pytest.mark.gpu
@pytest.mark.parametrize("weighted", [False, True])
def test_device_arrays_equal_a_copy(weighted):
    be = igpart.kernels.get_backend("gpu")
    g = delaunay_graph(5000, seed=2)
    if weighted:
        rng = np.random.default_rng(3)
        g = igpart.Graph.from_edges(*g.edge_list()[:2], rng.integers(1, 9, g.num_edges),
                                    n=g.n, vwgt=rng.integers(1, 5, g.n))
    assert g.unit_edge_weights is not weighted
    ga = be.graph_arrays(g)
    for name in ("xadj", "adjncy", "adjwgt", "vwgt"):
        got = be.to_host(getattr(ga, name))
        want = getattr(g, name)
        assert got.dtype == want.dtype and np.array_equal(got, want), name
    assert ga.n == g.n and ga.total_weight == g.total_weight
    p = igpart.partition(g, 4, backend="gpu", seed=1, config={"graph_host_levels_below": 0})
    assert p.balanced and p.cut == igpart.edge_cut(g, p.parts)
