"""The device's fused label propagation rounds (``deterministic=False``: graph_lp.cu through
igpart.kernels.gpu._graph_lp_async): clusters within their cap and down to at most the stop,
refinements whose reported gain is the exact cut change and whose blocks stay within their
bounds, on meshes, weighted random graphs and graphs with rows longer than one thread's (a block
each), and the pipeline's use of them under ``Config.deterministic``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import igpart
from igpart import generators
from igpart.kernels import get_backend
from igpart.metrics import max_block_weight

from .test_graph_lp import balanced_start, edge_cut
from .test_graph_lp_device import check_clustering
from .test_stages import FAST, graphs, host

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu():
    return get_backend("gpu")


def hub_graph(n: int, hubs: int, seed: int) -> igpart.Graph:
    """A delaunay mesh plus ``hubs`` vertices joined to many random others (rows of hundreds to
    thousands of entries, weighted edges)."""
    rng = np.random.default_rng(seed)
    g = generators.delaunay_graph(n, seed=seed)
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    keep = src < g.adjncy
    a, b = [src[keep]], [g.adjncy[keep]]
    for h in range(hubs):
        others = rng.choice(np.arange(hubs, n), size=int(rng.integers(40, 3000)), replace=False)
        a.append(np.full(others.shape[0], h))
        b.append(others)
    a, b = np.concatenate(a), np.concatenate(b)
    pairs = np.unique(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1), axis=0)
    w = rng.integers(1, 5, pairs.shape[0])
    return igpart.Graph.from_edges(pairs[:, 0], pairs[:, 1], w, n=n)


@pytest.mark.parametrize("min_clusters", [0, 500, 2000, 3500])
def test_fused_clustering_keeps_the_cap_and_stops_at_min_clusters(gpu, min_clusters):
    g = generators.delaunay_graph(4000, seed=3)
    cmap, nc = gpu.cluster_graph_lp(gpu.graph_arrays(g), 10, iterations=5,
                                    min_clusters=min_clusters, seed=1, deterministic=False)
    check_clustering(g, host(gpu, cmap), nc, 10, min_clusters)
    assert nc <= max(min_clusters + 50, g.n // 3)


def test_fused_clustering_of_a_grid_is_as_strong_as_the_array_rounds(gpu):
    g = generators.grid_graph(200, 200)
    ga = gpu.graph_arrays(g)
    cpu = get_backend("cpu")
    gh = cpu.graph_arrays(g)
    inner = {}
    for det in (True, False):  # one slice a round, as the device's default
        cmap, nc = gpu.cluster_graph_lp(ga, 8, iterations=5, seed=1, sub_rounds=1,
                                        deterministic=det)
        cmap = host(gpu, cmap)
        check_clustering(g, cmap, nc, 8, 0)
        inner[det] = (nc, int(cpu.contract_graph(gh, cmap, nc).adjwgt.sum()))
    assert inner[False][0] <= 1.1 * inner[True][0] and inner[False][1] <= 1.1 * inner[True][1]


@pytest.mark.parametrize("mcw", [3, 40, 10**6])
def test_fused_clustering_of_rows_longer_than_a_thread(gpu, mcw):
    g = hub_graph(6000, 12, seed=4)
    assert np.diff(g.xadj).max() > 1000
    cmap, nc = gpu.cluster_graph_lp(gpu.graph_arrays(g), mcw, iterations=5, min_clusters=100,
                                    seed=2, deterministic=False)
    check_clustering(g, host(gpu, cmap), nc, mcw, 100)
    assert nc < g.n // 2


def test_fused_two_hop_groups_the_leaves_of_a_star(gpu):
    g = igpart.Graph.from_edges(np.zeros(400, dtype=np.int64), np.arange(1, 401), n=401)
    cmap, nc = gpu.cluster_graph_lp(gpu.graph_arrays(g), 4, iterations=5, seed=0,
                                    deterministic=False)
    check_clustering(g, host(gpu, cmap), nc, 4, 0)
    assert nc <= 401 // 2 + 1


@FAST
@given(graphs(max_n=300), st.integers(1, 50), st.integers(0, 40), st.integers(0, 3))
def test_fused_clustering_on_random_graphs(gpu, g, mcw, min_clusters, seed):
    cmap, nc = gpu.cluster_graph_lp(gpu.graph_arrays(g), mcw, iterations=5,
                                    min_clusters=min_clusters, seed=seed, deterministic=False)
    check_clustering(g, host(gpu, cmap), nc, mcw, min_clusters)


def _refine(gpu, g, k, seed, iterations=5):
    parts, bounds = balanced_start(g, k, seed)
    ga = gpu.graph_arrays(g)
    out, gain = gpu.lp_refine_graph(ga, gpu.asarray(parts, "int32"), k,
                                    gpu.asarray(bounds, "int64"), iterations=iterations,
                                    seed=seed, deterministic=False)
    out = host(gpu, out)
    assert out.shape == (g.n,) and out.min() >= 0 and out.max() < k
    assert gain >= 0 and edge_cut(g, parts) - edge_cut(g, out) == gain
    assert np.bincount(out, weights=g.vwgt, minlength=k).max() <= bounds[0]
    return parts, out, gain


@pytest.mark.parametrize("k", [2, 7, 16])
def test_fused_refinement_reports_the_exact_gain_and_keeps_the_bounds(gpu, k):
    g = generators.delaunay_graph(5000, seed=5)
    parts, out, gain = _refine(gpu, g, k, 1, iterations=10)
    bounds = gpu.asarray(balanced_start(g, k, 1)[1], "int64")
    _, arrays = gpu.lp_refine_graph(gpu.graph_arrays(g), gpu.asarray(parts, "int32"), k, bounds,
                                    iterations=10, seed=1, sub_rounds=1, deterministic=True)
    # a random start leaves most edges to gain, and the atomic admission finds most of what
    # the array rounds' admission in order of gain (with the outflow as credit) finds
    assert gain > edge_cut(g, parts) // 5 and gain >= 0.7 * arrays, (gain, arrays)


@pytest.mark.parametrize("k", [2, 9])
def test_fused_refinement_of_rows_longer_than_a_thread(gpu, k):
    _refine(gpu, hub_graph(6000, 12, seed=6), k, 0)


@FAST
@given(graphs(max_n=300), st.integers(2, 9), st.integers(0, 3))
def test_fused_refinement_on_random_graphs(gpu, g, k, seed):
    _refine(gpu, g, min(k, g.n), seed)


def test_fused_refinement_of_an_lp_optimum_is_close_to_the_array_rounds(gpu):
    g = generators.grid_graph(120, 120)
    parts, bounds = balanced_start(g, 8, 0)
    ga = gpu.graph_arrays(g)
    cuts = {}
    for det in (True, False):
        out, _ = gpu.lp_refine_graph(ga, gpu.asarray(parts, "int32"), 8,
                                     gpu.asarray(bounds, "int64"), iterations=20, seed=0,
                                     sub_rounds=1, deterministic=det)
        cuts[det] = edge_cut(g, host(gpu, out))
    assert cuts[False] <= 1.15 * cuts[True]


@pytest.mark.parametrize("deterministic", [None, True])
def test_pipeline_runs_the_rounds_config_deterministic_asks_for(gpu, monkeypatch, deterministic):
    from igpart.kernels.gpu import _graph_lp, _graph_lp_async

    calls = {"fused": 0, "arrays": 0}

    def count(name, fn):
        def wrapped(*a, **kw):
            calls[name] += 1
            return fn(*a, **kw)
        return wrapped

    monkeypatch.setattr(_graph_lp_async, "cluster", count("fused", _graph_lp_async.cluster))
    monkeypatch.setattr(_graph_lp_async, "refine", count("fused", _graph_lp_async.refine))
    monkeypatch.setattr(_graph_lp, "cluster", count("arrays", _graph_lp.cluster))
    monkeypatch.setattr(_graph_lp, "refine", count("arrays", _graph_lp.refine))
    g = generators.grid_graph(60, 60)
    p = igpart.partition(g, 4, 0.03, backend=gpu, seed=1,
                         config={"deterministic": deterministic, "graph_host_levels_below": 0})
    parts = np.asarray(p.parts)
    assert p.cut == edge_cut(g, parts)
    assert np.bincount(parts, weights=g.vwgt, minlength=4).max() <= max_block_weight(
        g.total_weight, 4, 0.03)
    used = "arrays" if deterministic else "fused"
    assert calls[used] > 0 and calls["fused" if deterministic else "arrays"] == 0
