"""Deep multilevel partitioning of graphs (``Config.graph_deep_block_vertices``): the block
tree's intervals and bounds, the bisection of a level's blocks (``_cpu.split_blocks``), and
whole runs: valid, balanced partitions for any k, k = 2 unchanged, disconnected parts found."""

from __future__ import annotations

import numpy as np
import pytest

import igpart
from igpart import Graph
from igpart.generators import delaunay_graph, grid_graph
from igpart.kernels import _cpu
from igpart.metrics import block_weights, edge_cut, max_block_weight
from igpart.partitioner.deep import BlockTree


def _final_bounds(total: int, k: int, eps: float = 0.03) -> np.ndarray:
    return np.full(k, max_block_weight(total, k, eps), dtype=np.int64)


@pytest.mark.parametrize("k", [2, 3, 5, 6, 8, 12, 64, 100])
def test_block_tree_ends_at_the_final_blocks_with_room_for_the_total_at_every_step(k):
    total = 10_007
    final = _final_bounds(total, k)
    tree = BlockTree(final, 0.03)
    steps = 0
    while tree.count < k:
        before = tree.count
        expected = tree.next_count()
        left_id, right_id, left_cap, right_cap = tree.split()
        steps += 1
        assert tree.count == expected > before
        # new ids: consecutive, a split block's halves next to each other
        assert left_id[0] == 0 and np.all(np.diff(left_id) >= 1)
        assert np.all((right_id == left_id) | (right_id == left_id + 1))
        # the intervals cover the k final blocks in order
        assert tree.lo[0] == 0 and tree.hi[-1] == k and np.all(tree.lo[1:] == tree.hi[:-1])
        bounds = tree.bounds()
        assert bounds.sum() >= total  # every step can hold the whole weight
        # a split block's halves may hold at least what the block could
        split = right_id != left_id
        assert np.all(left_cap[split] + right_cap[split] >= bounds[left_id[split]] - 1)
        assert np.array_equal(left_cap, bounds[left_id])
        assert np.array_equal(right_cap[split], bounds[right_id[split]])
    assert steps == int(np.ceil(np.log2(k)))
    assert np.array_equal(tree.lo, np.arange(k)) and np.array_equal(tree.bounds(), final)
    assert tree.ufactor() >= 1


def test_split_blocks_bisects_marked_blocks_inside_their_caps_and_keeps_the_others():
    g = grid_graph(60, 40)
    x = np.arange(g.n) % 60
    parts = (x >= 30).astype(np.int32) + (x >= 50).astype(np.int32)  # widths 30, 20, 10
    w = block_weights(g, parts, 3)
    left_id = np.array([0, 2, 4], dtype=np.int32)
    right_id = np.array([1, 3, 4], dtype=np.int32)  # block 2 is not split
    left_cap = np.array([w[0] // 2 + 12, w[1] // 4 + 12, w[2]], dtype=np.int64)  # 1:3 in block 1
    right_cap = np.array([w[0] // 2 + 12, 3 * w[1] // 4 + 12, 0], dtype=np.int64)
    out = _cpu.split_blocks(g.xadj, g.adjncy, g.adjwgt, g.vwgt, parts, left_id, right_id,
                            left_cap, right_cap, 0, 2, 10)
    assert out.dtype == np.int32 and out.shape == (g.n,)
    # every vertex stays inside its old block's halves
    assert np.all((out == left_id[parts]) | (out == right_id[parts]))
    assert np.all(out[parts == 2] == 4)
    nw = np.bincount(out, weights=g.vwgt, minlength=5).astype(np.int64)
    assert np.all(nw[[0, 2]] <= left_cap[:2]) and np.all(nw[[1, 3]] <= right_cap[:2])
    assert np.all(nw[:4] > 0)
    # a grid strip's bisection cuts across it: about its height (40), not its width
    inner = edge_cut(g, out) - edge_cut(g, parts)
    assert inner <= 2 * 45
    # the same seed gives the same blocks, whatever the threads
    again = _cpu.split_blocks(g.xadj, g.adjncy, g.adjwgt, g.vwgt, parts, left_id, right_id,
                              left_cap, right_cap, 0, 2, 10)
    assert np.array_equal(out, again)


def test_split_blocks_refuses_bad_input():
    g = grid_graph(5, 5)
    parts = np.zeros(g.n, dtype=np.int32)
    ids = np.zeros(1, dtype=np.int32)
    one = np.ones(1, dtype=np.int32)
    caps = np.full(1, 100, dtype=np.int64)
    args = (g.xadj, g.adjncy, g.adjwgt, g.vwgt)
    bad = parts.copy()
    bad[7] = 1
    with pytest.raises(ValueError, match="block 1 at vertex 7"):
        _cpu.split_blocks(*args, bad, ids, one, caps, caps, 0, 1, 10)
    with pytest.raises(ValueError, match="right_id"):
        _cpu.split_blocks(*args, parts, ids, np.ones(2, dtype=np.int32), caps, caps, 0, 1, 10)
    with pytest.raises(ValueError, match="runs"):
        _cpu.split_blocks(*args, parts, ids, one, caps, caps, 0, 0, 10)
    with pytest.raises(ValueError, match="parts"):
        _cpu.split_blocks(*args, parts[:-1], ids, one, caps, caps, 0, 1, 10)


def _deep(block_vertices: int, **extra) -> dict:
    return {"threads": 2, "graph_deep_block_vertices": block_vertices, **extra}


@pytest.mark.parametrize("k", [3, 5, 16, 24, 64])
@pytest.mark.parametrize("make", [lambda: grid_graph(300, 200), lambda: delaunay_graph(40_000, 1)])
def test_deep_partitions_are_valid_and_balanced(make, k):
    g = make()
    p = igpart.partition(g, k, epsilon=0.03, backend="cpu", config=_deep(300))
    parts = np.asarray(p.parts)
    assert parts.shape == (g.n,) and parts.min() >= 0 and parts.max() < k
    assert np.unique(parts).size == k
    assert igpart.is_balanced(g, parts, k, 0.03)
    assert "split" in p.timings  # blocks were bisected on the way up
    assert p.cut == edge_cut(g, parts)


@pytest.mark.gpu
@pytest.mark.parametrize("k", [5, 64])
def test_deep_partitions_on_the_gpu_are_valid_and_balanced(k):
    """The GPU backend's levels live on the device: their blocks are split on host copies."""
    g = delaunay_graph(40_000, 1)
    p = igpart.partition(g, k, epsilon=0.03, backend="gpu", config=_deep(300))
    parts = np.asarray(p.parts)
    assert np.unique(parts).size == k and parts.min() >= 0 and parts.max() < k
    assert igpart.is_balanced(g, parts, k, 0.03)
    assert "split" in p.timings and p.cut == edge_cut(g, parts)


def test_deep_partitions_of_weighted_graphs_stay_balanced():
    g0 = delaunay_graph(30_000, 3)
    rng = np.random.default_rng(3)
    g = Graph(g0.xadj, g0.adjncy, g0.n, adjwgt=None, vwgt=rng.integers(1, 20, g0.n))
    for k in (7, 32):
        p = igpart.partition(g, k, epsilon=0.05, backend="cpu", config=_deep(300))
        assert igpart.is_balanced(g, np.asarray(p.parts), k, 0.05)
        assert "split" in p.timings


def test_deep_leaves_bisection_unchanged():
    g = delaunay_graph(8000, 2)
    cfg = {"deterministic": True}
    a = igpart.partition(g, 2, backend="cpu", config=_deep(0, **cfg)).parts
    b = igpart.partition(g, 2, backend="cpu", config=_deep(100, **cfg)).parts
    assert np.array_equal(a, b)


def test_deep_finds_disconnected_parts():
    """Eight separate grids of equal size: eight blocks without a cut edge exist, and the
    bisections of whole parts find them."""
    one = grid_graph(30, 30)
    m = 8
    xadj = np.concatenate([[0]] + [one.xadj[1:] + i * one.xadj[-1] for i in range(m)])
    adjncy = np.concatenate([one.adjncy + i * one.n for i in range(m)])
    g = Graph(xadj, adjncy, m * one.n)
    p = igpart.partition(g, 8, epsilon=0.03, backend="cpu", config=_deep(50))
    assert igpart.is_balanced(g, np.asarray(p.parts), 8, 0.03)
    assert "split" in p.timings
    assert p.cut == 0


def test_deep_block_vertices_must_be_a_non_negative_integer():
    g = grid_graph(10, 10)
    with pytest.raises(igpart.InputError, match="graph_deep_block_vertices"):
        igpart.partition(g, 4, backend="cpu", config={"graph_deep_block_vertices": -3})
