"""The graph generators (grids, Delaunay triangulations, random geometric graphs): symmetric unit
graphs without self loops, the expected degree structure, seeded, bad arguments rejected."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import Graph, InputError
from igpart.generators import delaunay_graph, grid_graph, rgg_graph, rgg_radius


def _assert_simple(g: Graph) -> None:
    """Unit weights, no self loops, no repeated neighbours, symmetric (checked from scratch)."""
    assert np.all(g.adjwgt == 1) and np.all(g.vwgt == 1)
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    dst = g.adjncy.astype(np.int64)
    assert not np.any(src == dst)
    fwd = src * g.n + dst
    assert np.unique(fwd).size == fwd.size
    assert np.array_equal(np.sort(fwd), np.sort(dst * g.n + src))
    Graph(g.xadj, g.adjncy, g.n, g.adjwgt, g.vwgt)  # the constructor's own checks


def test_grid_2d_degrees_and_edges():
    g = grid_graph(5, 4)
    _assert_simple(g)
    assert g.n == 20 and g.num_edges == 4 * 4 + 5 * 3
    deg = g.degrees.reshape(4, 5)
    assert deg[0, 0] == deg[0, -1] == deg[-1, 0] == deg[-1, -1] == 2
    assert np.all(deg[1:-1, 1:-1] == 4) and np.all(deg[0, 1:-1] == 3)
    assert sorted(g.neighbors(6).tolist()) == [1, 5, 7, 11]  # (1, 1): left, right, up, down


def test_grid_3d_degrees_and_edges():
    g = grid_graph(4, 3, 5)
    _assert_simple(g)
    assert g.n == 60 and g.num_edges == 3 * 3 * 5 + 4 * 2 * 5 + 4 * 3 * 4
    deg = g.degrees.reshape(5, 3, 4)  # [z, y, x]
    corners = deg[[0, 0, 0, 0, -1, -1, -1, -1], [0, 0, -1, -1, 0, 0, -1, -1],
                  [0, -1, 0, -1, 0, -1, 0, -1]]
    assert np.all(corners == 3) and np.all(deg[1:-1, 1:-1, 1:-1] == 6)
    v = 1 + 4 * (1 + 3 * 2)  # x 1, y 1, z 2
    assert sorted(g.neighbors(v).tolist()) == sorted([v - 1, v + 1, v - 4, v + 4, v - 12,
                                                      v + 12])
    assert grid_graph(1, 1).num_edges == 0 and grid_graph(7, 1).num_edges == 6


def test_delaunay_is_a_seeded_planar_triangulation():
    g = delaunay_graph(2000, seed=3)
    _assert_simple(g)
    assert g.n == 2000 and g.degrees.min() >= 2
    # a triangulation of n points in general position with h hull points has 3n - 3 - h edges
    from scipy.spatial import ConvexHull

    pts = np.random.default_rng(3).random((2000, 2))
    hull = ConvexHull(pts).vertices.size
    assert g.num_edges == 3 * 2000 - 3 - hull
    assert delaunay_graph(2000, seed=3).equals(g) and not delaunay_graph(2000, seed=4).equals(g)


@pytest.mark.parametrize("n,seed", [(3, 0), (7, 1), (500, 2), (20000, 5)])
def test_delaunay_equals_the_triangulation_of_the_points_in_their_own_order(n, seed):
    # the generator triangulates the points in Z order: the same triangles as Qhull's on the
    # points as drawn (the oracle), so the same graph
    from scipy.spatial import Delaunay

    pts = np.random.default_rng(seed).random((n, 2))
    tri = np.sort(Delaunay(pts).simplices, axis=1)
    edges = {(int(a), int(b)) for t in tri for a, b in ((t[0], t[1]), (t[1], t[2]), (t[0], t[2]))}
    u, v, w = delaunay_graph(n, seed=seed).edge_list()
    assert set(zip(u.tolist(), v.tolist())) == edges and (w == 1).all()


def test_morton_order_is_a_z_order_permutation():
    from igpart.generators import _morton_order

    pts = np.array([[0.9, 0.9], [0.1, 0.1], [0.9, 0.1], [0.1, 0.9], [0.0, 0.0], [1.0, 1.0]])
    # Z order: the lower left quadrant, then lower right (x bit first), upper left, upper right
    assert _morton_order(pts).tolist() == [4, 1, 2, 3, 0, 5]
    rng = np.random.default_rng(0).random((1000, 2))
    assert np.array_equal(np.sort(_morton_order(rng)), np.arange(1000))


def test_rgg_equals_brute_force_distances():
    n = 600
    g = rgg_graph(n, seed=5)
    _assert_simple(g)
    pts = np.random.default_rng(5).random((n, 2))
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    want = (d < rgg_radius(n)) & ~np.eye(n, dtype=bool)
    assert np.array_equal(g.to_adjacency().toarray() > 0, want)
    assert rgg_radius(n) == pytest.approx(0.55 * np.sqrt(np.log(n) / n))
    assert rgg_graph(n, seed=5, radius=0.2).num_edges > g.num_edges
    assert rgg_graph(n, seed=5).equals(g) and not rgg_graph(n, seed=6).equals(g)


@pytest.mark.parametrize("call, message", [
    (lambda: grid_graph(0, 3), "nx must be an integer >= 1"),
    (lambda: grid_graph(3, 2.5), "ny must be an integer >= 1"),
    (lambda: grid_graph(3, 3, -1), "nz must be an integer >= 1"),
    (lambda: grid_graph(50000, 50000), "too large"),
    (lambda: delaunay_graph(2), "n must be an integer >= 3"),
    (lambda: rgg_graph(1), "n must be an integer >= 2"),
    (lambda: rgg_graph(100, radius=0), "radius must be a number in (0, 2)"),
    (lambda: rgg_graph(100, radius="x"), "radius must be a number"),
])
def test_bad_arguments(call, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()
