"""The parallel localized FM of the graph pipeline (C++ backend): valid, balanced partitions whose
gain is the edge cut's change recomputed from scratch, never worse than the input, on 1, 2 and 3
threads, with and without the cached connectivity rows; the sequential FM (deterministic mode)
the same on any threads, in the stage and in the whole pipeline, and the same with the cached
rows as without; clear errors for bad arguments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import igpart
from igpart import generators
from igpart.errors import InputError
from igpart.kernels import omp_threads
from igpart.kernels.cpu import CpuBackend
from igpart.metrics import max_block_weight
from igpart.partitioner.config import Config

from .test_graph_lp import balanced_start, edge_cut
from .test_stages import FAST, graphs


def parallel_backend(cache_min_degree: int | None = None) -> CpuBackend:
    """A C++ backend that runs the parallel FM on levels of any size (16,384+ by default);
    ``cache_min_degree``: the FM's cached rows from that degree on (None: the default)."""
    be = CpuBackend()
    be.parallel_fm_min_vertices = 0
    if cache_min_degree is not None:
        be.graph_fm_cache_min_degree = cache_min_degree
    return be


def circuit_model(model: str, seed: int) -> igpart.Graph:
    """A circuit's clique or star model: a few vertices of high degree among many of low."""
    return generators.random_circuit(2500, max_net_size=60, seed=seed).to_graph(model)


def weighted_mesh(n: int, seed: int) -> igpart.Graph:
    """A Delaunay mesh with vertex weights 1-4 and edge weights 1-9."""
    g = generators.delaunay_graph(n, seed=seed)
    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    lo, hi = np.minimum(src, g.adjncy), np.maximum(src, g.adjncy)
    adjwgt = (lo * 7919 + hi) % 9 + 1  # the same weight in both directions
    return igpart.Graph(g.xadj, g.adjncy, vwgt=rng.integers(1, 5, g.n), adjwgt=adjwgt)


def check(g: igpart.Graph, start: np.ndarray, out: np.ndarray, gain: int, k: int,
          bounds: np.ndarray) -> None:
    """Valid, never worse, gain = the cut's change from scratch, blocks within
    max(bound, weight before)."""
    assert out.shape == (g.n,) and out.dtype == np.int32
    assert out.min() >= 0 and out.max() < k
    assert gain >= 0 and edge_cut(g, start) - edge_cut(g, out) == gain
    before = np.bincount(start, weights=g.vwgt, minlength=k)
    after = np.bincount(out, weights=g.vwgt, minlength=k)
    assert np.all(after <= np.maximum(bounds, before))


@FAST
@given(graphs(), st.integers(2, 6), st.integers(0, 3), st.sampled_from([2, 3]), st.booleans(),
       st.sampled_from([0, 1, 3]))  # fmt: skip
def test_parallel_fm_gain_is_exact_and_balance_kept(g, k, seed, threads, gain_seeds, cache):
    be = parallel_backend(cache)
    k = min(k, g.n)
    parts, bounds = balanced_start(g, k, seed)
    with omp_threads(threads):
        out, gain = be.fm_refine_graph(be.graph_arrays(g), parts, k, bounds, rounds=3,
                                       max_fruitless_moves=8, seed=seed, gain_seeds=gain_seeds,
                                       deterministic=False)
    check(g, parts, out, gain, k, bounds)


@pytest.mark.parametrize("k", [2, 7, 32])
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("cache", [0, 1])
def test_parallel_fm_on_a_weighted_mesh(k, threads, cache):
    """Many concurrent searches on a mesh from a random start: the exact gains of the global
    sequence and its rollback keep the result valid, balanced and exactly accounted (cache 1:
    every vertex of degree >= k reads its row from the cache that the searches update)."""
    g = weighted_mesh(6000, seed=k)
    be = parallel_backend(cache)
    parts, bounds = balanced_start(g, k, 1)
    with omp_threads(threads):
        out, gain = be.fm_refine_graph(be.graph_arrays(g), parts, k, bounds, rounds=3,
                                       seed=3, max_work=8.0, gain_seeds=k > 2,
                                       deterministic=False)
    check(g, parts, out, gain, k, bounds)
    assert gain > 0.2 * edge_cut(g, parts)  # a random start leaves much to gain


@pytest.mark.parametrize("model", ["clique", "star"])
@pytest.mark.parametrize("k", [2, 7, 32])
@pytest.mark.parametrize("threads", [2, 3])
def test_parallel_fm_with_cached_rows_on_circuit_models(model, k, threads):
    """Vertices of high degree read from the cache while other searches publish moves into it,
    and the rollback takes the cache back: valid, balanced, exactly accounted in every round,
    and as strong as with every row read from the adjacency (a cache that missed the published
    moves gains about half as much at k = 2 and 7)."""
    g = circuit_model(model, seed=k)
    ga = CpuBackend().graph_arrays(g)
    parts, bounds = balanced_start(g, k, 2)
    mean_gain = {}
    for cache in (0, 1, 4):
        be = parallel_backend(cache)
        gains = []
        for seed in range(3):
            with omp_threads(threads):
                out, gain = be.fm_refine_graph(ga, parts, k, bounds, rounds=4, seed=seed,
                                               gain_seeds=k > 2, deterministic=False)  # fmt: skip
            check(g, parts, out, gain, k, bounds)
            gains.append(gain)
        mean_gain[cache] = np.mean(gains)
    assert min(mean_gain[1], mean_gain[4]) >= 0.92 * mean_gain[0] > 0


def with_zero_weights(g: igpart.Graph) -> igpart.Graph:
    """``g`` with about a fifth of its edges at weight 0 (the same in both directions)."""
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    lo, hi = np.minimum(src, g.adjncy), np.maximum(src, g.adjncy)
    adjwgt = np.where((lo * 7 + hi) % 5 == 0, 0, g.adjwgt)
    return igpart.Graph(g.xadj, g.adjncy, vwgt=g.vwgt, adjwgt=adjwgt)


@pytest.mark.parametrize("model", ["clique", "star", "clique0"])
@pytest.mark.parametrize("k", [2, 7, 32])
def test_cached_rows_give_the_sequential_fm_the_same_moves(model, k):
    """The sequential FM with the cached rows (vertices of degree >= max(d, k) for d = 1, 4, 16)
    moves exactly as with every row read from the adjacency, also where the work budget ends a
    round early (the cache counts the work the adjacency read would) and where edges weigh 0
    (a vertex with one is not cached: the boundary pass reads a cached vertex's neighbours'
    blocks from its row)."""
    g = circuit_model(model.rstrip("0"), seed=k + 10)
    if model.endswith("0"):
        g = with_zero_weights(g)
    ga = CpuBackend().graph_arrays(g)
    parts, bounds = balanced_start(g, k, 3)
    for max_work in (0.0, 1.5):
        kw = {"rounds": 3, "seed": 4, "max_work": max_work, "gain_seeds": k > 2}
        ref = parallel_backend(0).fm_refine_graph(ga, parts, k, bounds, deterministic=True, **kw)
        check(g, parts, ref[0], ref[1], k, bounds)
        for cache in (1, 4, 16):
            out, gain = parallel_backend(cache).fm_refine_graph(ga, parts, k, bounds,
                                                                deterministic=True, **kw)
            assert gain == ref[1] and np.array_equal(out, ref[0])


@pytest.mark.parametrize("gain_seeds", [False, True])
def test_deterministic_mode_is_the_same_on_any_threads(gain_seeds):
    """``deterministic=True`` runs the sequential FM even where the parallel one would run:
    the same partition and gain on 1, 2 and 3 threads."""
    g = weighted_mesh(5000, seed=3)
    be = parallel_backend()
    parts, bounds = balanced_start(g, 6, 2)
    runs = []
    for threads in (1, 2, 3):
        with omp_threads(threads):
            runs.append(be.fm_refine_graph(be.graph_arrays(g), parts, 6, bounds, rounds=3,
                                           seed=5, gain_seeds=gain_seeds, deterministic=True))
    check(g, parts, runs[0][0], runs[0][1], 6, bounds)
    assert all(np.array_equal(runs[0][0], out) and runs[0][1] == gain for out, gain in runs[1:])


def test_parallel_fm_never_worsens_a_refined_partition():
    """From a partition the FM already refined (few moves left), and at the tight bound the
    refined blocks leave, the parallel FM only keeps what gains."""
    g = generators.grid_graph(120, 120)
    be = parallel_backend()
    ga = be.graph_arrays(g)
    k = 8
    parts, bounds = balanced_start(g, k, 0)
    with omp_threads(3):
        refined, _ = be.fm_refine_graph(ga, parts, k, bounds, rounds=6, deterministic=False)
        tight = np.full(k, np.bincount(refined, minlength=k).max(), np.int64)
        for seed in range(4):
            out, gain = be.fm_refine_graph(ga, refined, k, tight, rounds=2, seed=seed,
                                           deterministic=False)
            check(g, refined, out, gain, k, tight)


def test_parallel_fm_leaves_an_overloaded_block_no_heavier():
    """An input with an overloaded block: no block ends above max(bound, its weight before)."""
    g = generators.grid_graph(100, 100)
    be = parallel_backend()
    k = 4
    parts = (np.arange(g.n) * k // g.n).astype(np.int32)
    parts[: g.n // 10] = 0  # block 0 well above its bound
    bounds = np.full(k, max_block_weight(g.total_weight, k, 0.03), np.int64)
    with omp_threads(2):
        out, gain = be.fm_refine_graph(be.graph_arrays(g), parts, k, bounds, rounds=3,
                                       deterministic=False)
    check(g, parts, out, gain, k, bounds)
    after = np.bincount(out, minlength=k)
    assert np.all(after[1:] <= bounds[1:])


def test_the_fm_mode_follows_the_threads():
    """``deterministic=None`` (``Config.deterministic``'s default): the parallel graph FM from
    ``parallel_graph_fm_min_threads`` threads on; True / False as given."""
    be = CpuBackend()
    with omp_threads(1):
        assert be.graph_fm_is_deterministic(None)
        assert not be.graph_fm_is_deterministic(False)
    with omp_threads(2):
        assert not be.graph_fm_is_deterministic(None)
        assert be.graph_fm_is_deterministic(True)
    be.parallel_graph_fm_min_threads = 0
    with omp_threads(3):
        assert be.graph_fm_is_deterministic(None)


def test_deterministic_pipeline_is_the_same_on_any_threads():
    """``Config.deterministic=True`` on a graph whose finest levels are large enough for the
    parallel FM: the same partition on 1, 2 and 3 threads; the default on 2 and 3 threads (the
    parallel FM there) gives valid, balanced partitions whose reported cut is exact."""
    g = generators.grid_graph(140, 140)  # 19,600 vertices: above parallel_fm_min_vertices
    k = 16
    bound = max_block_weight(g.total_weight, k, 0.03)
    runs = []
    for threads in (1, 2, 3):
        p = igpart.partition(g, k, 0.03, backend="cpu", seed=1,
                             config=Config(deterministic=True, threads=threads))
        runs.append(np.asarray(p.parts))
    assert all(np.array_equal(runs[0], r) for r in runs[1:])
    for threads in (2, 3):
        p = igpart.partition(g, k, 0.03, backend="cpu", seed=1, config=Config(threads=threads))
        parts = np.asarray(p.parts)
        assert parts.min() >= 0 and parts.max() < k
        assert np.bincount(parts, weights=g.vwgt, minlength=k).max() <= bound
        assert p.cut == edge_cut(g, parts)


def test_deterministic_pipeline_on_a_circuit_model_is_the_same_on_any_threads():
    """A clique model (vertices of high degree: the FM's cached rows and the clustering's dense
    label sums at work) under ``Config.deterministic=True``: the same partition on 1, 2 and 3
    threads, the same as with both turned off, its cut exact."""
    h = generators.random_circuit(2500, seed=6)
    rng = np.random.default_rng(6)
    nets = [h.eind[h.eptr[e]:h.eptr[e + 1]].tolist() for e in range(h.m)]
    nets += [rng.choice(2500, 100, replace=False).tolist() for _ in range(20)]  # wide nets
    g = igpart.Hypergraph.from_nets(nets, n=2500).to_graph("clique")
    runs = []
    for threads in (1, 2, 3):
        p = igpart.partition(g, 8, 0.03, backend="cpu", seed=2,
                             config=Config(deterministic=True, threads=threads))  # fmt: skip
        assert p.cut == edge_cut(g, np.asarray(p.parts))
        runs.append(np.asarray(p.parts))
    with pytest.MonkeyPatch.context() as mp:  # the class defaults back afterwards
        mp.setattr(CpuBackend, "graph_fm_cache_min_degree", 0)
        mp.setattr(CpuBackend, "graph_lp_dense_labels", 0)
        off = np.asarray(igpart.partition(g, 8, 0.03, backend="cpu", seed=2,
                                          config=Config(deterministic=True, threads=2)).parts)
    assert CpuBackend.graph_fm_cache_min_degree > 0 and CpuBackend.graph_lp_dense_labels > 0
    assert all(np.array_equal(runs[0], r) for r in (*runs[1:], off))


def test_parallel_fm_rejects_bad_arguments():
    be = parallel_backend()
    ga = be.graph_arrays(generators.grid_graph(4, 4))
    for kw, word in (({"max_fruitless_moves": 0}, "max_fruitless_moves"),
                     ({"min_improvement": 1.5}, "min_improvement"), ({"rounds": -1}, "rounds"),
                     ({"max_work": -1.0}, "max_work")):
        with pytest.raises(ValueError, match=word):
            be.fm_refine_graph(ga, np.zeros(16, np.int32), 2, np.full(2, 9), deterministic=False,
                               **kw)
    be.graph_fm_cache_min_degree = -1
    with pytest.raises(ValueError, match="cache_min_degree"):
        be.fm_refine_graph(ga, np.zeros(16, np.int32), 2, np.full(2, 9))
    with pytest.raises(ValueError, match="block id"):
        be.fm_refine_graph(ga, np.full(16, 5, np.int32), 2, np.full(2, 9), deterministic=False)
    with pytest.raises(ValueError, match="max_block_weights"):
        be.fm_refine_graph(ga, np.zeros(16, np.int32), 2, np.full(3, 9), deterministic=False)
    with pytest.raises(InputError, match="deterministic"):
        igpart.partition(generators.grid_graph(4, 4), 2, config={"deterministic": "yes"})
