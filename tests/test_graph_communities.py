"""Louvain communities in the graph coarsening (``Config.graph_communities``): the edges
between communities are left out of the clustering, clusters never cross a community, whole runs
stay valid and balanced, and a graph of weakly joined modules is cut between them."""

from __future__ import annotations

import numpy as np
import pytest

import igpart
from igpart import Config, Graph
from igpart.generators import delaunay_graph, grid_graph
from igpart.kernels import get_backend
from igpart.metrics import edge_cut
from igpart.partitioner.coarsening import graph_coarsener, intra_community
from igpart.partitioner.context import resolved
from igpart.partitioner.preprocessing import edge_nets


def test_intra_community_keeps_exactly_the_edges_inside_a_community():
    g = delaunay_graph(3000, 4)
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 5, g.n).astype(np.int32)
    be = get_backend("cpu")
    ga = be.graph_arrays(g)
    out = intra_community(np, ga, labels)
    want = {(u, int(v)) for u in range(g.n) for v in g.adjncy[g.xadj[u]:g.xadj[u + 1]]
            if labels[u] == labels[v]}
    got = {(u, int(v)) for u in range(out.n) for v in out.adjncy[out.xadj[u]:out.xadj[u + 1]]}
    assert got == want
    assert out.adjwgt.shape == out.adjncy.shape and out.xadj[-1] == len(want)
    assert np.array_equal(out.vwgt, ga.vwgt) and out.total_weight == ga.total_weight


@pytest.mark.parametrize("seed", [0, 1])
def test_edge_nets_are_the_graphs_edges_with_a_consistent_incidence(seed):
    g0 = delaunay_graph(2000, seed)
    # weights that differ per edge: the same weight on both entries of an edge
    lo = np.minimum(np.repeat(np.arange(g0.n), np.diff(g0.xadj)), g0.adjncy)
    hi = np.maximum(np.repeat(np.arange(g0.n), np.diff(g0.xadj)), g0.adjncy)
    w = (lo * 7 + hi * 13) % 11 + 1
    g = Graph(g0.xadj, g0.adjncy, g0.n, adjwgt=w)
    be = get_backend("cpu")
    ga = be.graph_arrays(g)
    ref, out = be.graph_edge_nets(ga), edge_nets(ga)
    assert out.m == ref.m == g.adjncy.size // 2

    def edges(h):
        pins = np.asarray(h.eind).reshape(-1, 2)
        return sorted(zip(pins.min(1).tolist(), pins.max(1).tolist(),
                          np.asarray(h.ewgt).tolist()))
    assert edges(out) == edges(ref)
    assert np.array_equal(out.eptr, np.arange(0, 2 * out.m + 1, 2))
    # every vertex's slots hold nets that have it as a pin, every net in both of its pins' slots
    pins = out.eind.reshape(-1, 2)
    owner = np.repeat(np.arange(g.n), np.diff(out.vptr))
    assert np.all((pins[out.vind, 0] == owner) | (pins[out.vind, 1] == owner))
    assert np.all(np.bincount(out.vind, minlength=out.m) == 2)


@pytest.mark.parametrize("coarsening", ["lp", "gkway"])
def test_graph_clusters_stay_inside_their_communities(coarsening):
    g = grid_graph(80, 60)
    labels = ((np.arange(g.n) % 80) // 20 + 4 * ((np.arange(g.n) // 80) // 30)).astype(np.int32)
    be = get_backend("cpu")
    cfg = resolved(Config(graph_coarsening=coarsening, threads=2), be, g, 4)
    cmap, nc = graph_coarsener(be, 50, cfg, 0)(be.graph_arrays(g), communities=labels)
    cmap = np.asarray(cmap)
    assert nc < g.n  # it clustered
    first = np.full(nc, -1, dtype=np.int64)
    first[cmap] = labels  # any member's label: all members must share it
    assert np.array_equal(first[cmap], labels)


def _modules(m: int, size: int, bridges: int, seed: int) -> Graph:
    """``m`` random dense modules of ``size`` vertices, each joined to the next by ``bridges``
    edges."""
    rng = np.random.default_rng(seed)
    a, b = [], []
    for i in range(m):
        lo = i * size
        u = rng.integers(0, size, 12 * size) + lo
        v = rng.integers(0, size, 12 * size) + lo
        a.append(u)
        b.append(v)
        nxt = ((i + 1) % m) * size
        a.append(rng.integers(0, size, bridges) + lo)
        b.append(rng.integers(0, size, bridges) + nxt)
    a, b = np.concatenate(a), np.concatenate(b)
    keep = a != b
    return _from_pairs(a[keep], b[keep], m * size)


def _from_pairs(a, b, n):
    import scipy.sparse as sp

    mat = sp.coo_matrix((np.ones(a.size, dtype=np.int64), (a, b)), shape=(n, n)).tocsr()
    mat = (mat + mat.T).tocsr()
    mat.setdiag(0)
    mat.eliminate_zeros()
    mat.sort_indices()
    return Graph(mat.indptr.astype(np.int64), mat.indices.astype(np.int32), n,
                 adjwgt=mat.data.astype(np.int64))


@pytest.mark.parametrize("k", [2, 4, 8])
def test_graph_communities_runs_are_valid_and_balanced(k):
    g = _modules(8, 600, 40, 1)
    p = igpart.partition(g, k, backend="cpu", config={"threads": 2, "graph_communities": True})
    parts = np.asarray(p.parts)
    assert igpart.is_balanced(g, parts, k, 0.03) and p.cut == edge_cut(g, parts)
    assert "communities" in p.timings
    off = igpart.partition(g, k, backend="cpu", config={"threads": 2})
    assert "communities" not in off.timings


@pytest.mark.gpu
@pytest.mark.parametrize("model", ["modules", "star"])
def test_graph_communities_on_the_gpu_are_valid_and_balanced(model):
    if model == "modules":
        g = _modules(8, 5000, 200, 3)
    else:  # as a circuit's star model: hubs of thousands of edges beside the modules
        base = _modules(8, 5000, 200, 3)
        rng = np.random.default_rng(5)
        hubs = np.repeat(np.arange(40_000, 40_008), 4000)
        ends = rng.integers(0, 40_000, hubs.size)
        src = np.repeat(np.arange(base.n), np.diff(base.xadj))
        g = _from_pairs(np.concatenate([src, hubs]), np.concatenate([base.adjncy, ends]),
                        40_008)
        assert int(np.diff(g.xadj).max()) >= 3000
    p = igpart.partition(g, 8, backend="gpu", config={"graph_communities": True})
    parts = np.asarray(p.parts)
    assert igpart.is_balanced(g, parts, 8, 0.03) and p.cut == edge_cut(g, parts)
    assert "communities" in p.timings


def test_weakly_joined_modules_are_cut_between_them():
    """Eight modules in a ring, each joined to the next by 20 edges: four blocks of two
    modules cut four joins at best (80 edges); the modules are what Louvain finds."""
    g = _modules(8, 500, 20, 2)
    joins = 20  # per pair of neighbouring modules
    p = igpart.partition(g, 4, backend="cpu", seed=0,
                         config={"threads": 2, "graph_communities": True})
    assert igpart.is_balanced(g, np.asarray(p.parts), 4, 0.03)
    assert p.cut <= 4 * joins


def test_graph_communities_must_be_true_or_false():
    with pytest.raises(igpart.InputError, match="graph_communities"):
        igpart.partition(grid_graph(10, 10), 2, backend="cpu",
                         config={"graph_communities": "yes"})


def _coarse_communities(g, limit, k=4, seed=0):
    from igpart.partitioner.context import Timer
    from igpart.partitioner.preprocessing import coarse_graph_communities

    be = get_backend("cpu")
    cfg = resolved(Config(threads=2, graph_communities=True, deterministic=True), be, g, k)
    return np.asarray(coarse_graph_communities(be, be, be.graph_arrays(g), g, k, cfg, seed,
                                               Timer(), limit))


def test_communities_of_a_coarser_level_follow_the_modules():
    """The device's scheme, run on the C++ backend: Louvain on a level of at most 600
    vertices finds the eight modules of 500 vertices, every community inside one of them."""
    g = _modules(8, 500, 20, 2)
    comm = _coarse_communities(g, 600)
    assert comm.shape == (g.n,) and comm.dtype == np.int32
    module = np.arange(g.n) // 500
    ids = np.unique(comm)
    assert np.array_equal(ids, np.arange(ids.size))  # dense ids
    assert ids.size == 8
    # each module is one community, but for a few of its vertices (clusters of the coarse
    # level may take a bridge's end with them), and no two modules share one
    major = np.array([np.bincount(comm[module == m]).argmax() for m in range(8)])
    assert np.unique(major).size == 8
    assert np.count_nonzero(comm == major[module]) >= 0.995 * g.n


def test_communities_of_a_coarser_level_are_unions_of_its_clusters():
    """Every vertex of one coarse vertex gets one community: with a limit the graph is
    coarsened first, and the result is the Louvain of that level projected back."""
    g = delaunay_graph(6000, 1)
    be = get_backend("cpu")
    cfg = resolved(Config(threads=2, graph_communities=True, deterministic=True), be, g, 4)
    ga = be.graph_arrays(g)
    mcw = -(-2 * int(ga.total_weight) // 1000)
    cmap, nc = be.cluster_graph_lp(ga, mcw, iterations=cfg.graph_lp_iterations,
                                   min_clusters=1000, seed=0,
                                   sub_rounds=cfg.graph_lp_sub_rounds, deterministic=True)
    assert 1000 <= nc <= 0.9 * g.n  # one level reaches the limit
    comm = _coarse_communities(g, 1000)
    first = np.full(nc, -1, dtype=np.int64)
    first[np.asarray(cmap)] = comm
    assert np.array_equal(first[np.asarray(cmap)], comm)
    assert 1 < np.unique(comm).size < nc
    # a limit above n: Louvain on the graph itself, as the C++ backend's own path
    from igpart.partitioner.context import Timer
    from igpart.partitioner.preprocessing import detect_graph_communities

    fine = detect_graph_communities(be, ga, g, 4, cfg, 0, Timer())
    assert np.array_equal(_coarse_communities(g, g.n + 1), np.asarray(fine))


def test_a_device_backend_takes_the_coarse_level():
    """The branch a device backend takes, with the C++ backend standing in for it: Louvain on
    the level its clustering coarsens the graph to, ``community_level_max(k)`` vertices."""
    import types

    from igpart.kernels.cpu import CpuBackend
    from igpart.partitioner.context import Timer
    from igpart.partitioner.preprocessing import detect_graph_communities

    class Device(CpuBackend):
        xp = types.SimpleNamespace(**vars(np))  # not numpy itself: the device branch

        def community_level_max(self, k):
            return 600

    g = _modules(8, 500, 20, 2)
    dev = Device()
    cfg = resolved(Config(threads=2, graph_communities=True, deterministic=True), dev, g, 4)
    comm = np.asarray(detect_graph_communities(dev, dev.graph_arrays(g), g, 4, cfg, 0, Timer()))
    assert np.array_equal(comm, _coarse_communities(g, 600))


def _reweighted(g: Graph, seed: int, zero: bool, shuffle: bool = False) -> Graph:
    """``g`` with integer edge weights of 1-9 (0 on some edges when ``zero``), the same weight
    on both entries of an edge, vertex weights of 1-3, vertices 0-4 isolated; every row in a
    shuffled order with ``shuffle``, else ascending."""
    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    keep = (src >= 5) & (g.adjncy >= 5)
    src, dst = src[keep], g.adjncy[keep]
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    w = (lo * 7 + hi * 13) % 9 + 1
    if zero:
        w[(lo * 3 + hi) % 10 == 0] = 0
    inside = rng.random(src.size) if shuffle else dst
    order = np.lexsort((inside, src))  # rows kept together
    src, dst, w = src[order], dst[order], w[order]
    xadj = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=g.n))]).astype(np.int64)
    vwgt = rng.integers(1, 4, g.n).astype(np.int64)
    return Graph(xadj, dst.astype(np.int32), g.n, adjwgt=w.astype(np.int64), vwgt=vwgt)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("zero", [False, True])
@pytest.mark.parametrize("seed", [0, 3])
def test_louvain_on_the_graph_equals_louvain_on_its_edges_as_nets(threads, zero, seed):
    """The oracle: Louvain's clique expansion of the edges as 2-pin nets. Deterministic local
    moving gives the same community ids on the graph's own rows (weighted, with isolated
    vertices and weight-0 edges), sequential and in sub-rounds, with a weight cap: where rows
    are sorted by neighbour (as every contracted level's) the expansion meets the neighbours in
    the same order, so even the ties between equal gains (the first community met) agree."""
    from igpart.kernels import _cpu, omp_threads

    g = _reweighted(delaunay_graph(4000, seed), seed, zero)
    be = get_backend("cpu")
    ga = be.graph_arrays(g)
    hg = edge_nets(ga)
    for sub_rounds, max_weight, resolution in ((0, 0, 1.0), (16, 200, 1.0), (0, 0, 2.5)):
        with omp_threads(threads):
            want = _cpu.louvain_communities(hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind,
                                            hg.vwgt, 2, 8, 8, 0.01, seed, resolution,
                                            max_weight, sub_rounds, True, "clique")
            got = _cpu.louvain_graph_communities(ga.xadj, ga.adjncy, ga.adjwgt, ga.vwgt, 8, 8,
                                                 0.01, seed, resolution, max_weight,
                                                 sub_rounds, True)
        assert got.dtype == np.int32 and got.shape == (g.n,)
        assert np.array_equal(got, want), (sub_rounds, max_weight, resolution)
        assert 1 < np.unique(got).size < g.n - 5


def _modularity(g: Graph, comm) -> float:
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    w = g.adjwgt.astype(float)
    m2 = w.sum()
    inside = w[comm[src] == comm[g.adjncy]].sum()
    tot = np.bincount(comm, weights=np.bincount(src, weights=w, minlength=g.n))
    return inside / m2 - float(((tot / m2) ** 2).sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_louvain_on_shuffled_rows_is_as_good(seed):
    """Rows in any order: ties between equal gains may go another way than on the nets, so the
    communities may differ, but not their modularity (within 1%)."""
    from igpart.kernels import _cpu

    g = _reweighted(delaunay_graph(4000, seed), seed, True, shuffle=True)
    ga = get_backend("cpu").graph_arrays(g)
    hg = edge_nets(ga)
    want = _cpu.louvain_communities(hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, 2, 8,
                                    8, 0.01, seed)
    got = _cpu.louvain_graph_communities(ga.xadj, ga.adjncy, ga.adjwgt, ga.vwgt, 8, 8, 0.01,
                                         seed)
    assert np.array_equal(np.unique(got), np.arange(got.max() + 1))
    assert _modularity(g, got) >= 0.99 * _modularity(g, want) > 0.5


def test_louvain_on_the_graph_refuses_bad_input():
    from igpart.kernels import _cpu

    g = delaunay_graph(200, 0)
    ga = get_backend("cpu").graph_arrays(g)
    bad = ga.adjncy.copy()
    bad[3] = g.n  # a neighbour out of range
    with pytest.raises(ValueError, match="louvain_graph_communities"):
        _cpu.louvain_graph_communities(ga.xadj, bad, ga.adjwgt, ga.vwgt, 8, 8, 0.01, 0)
    with pytest.raises(ValueError, match="adjwgt"):
        _cpu.louvain_graph_communities(ga.xadj, ga.adjncy, ga.adjwgt[:-1], ga.vwgt, 8, 8,
                                       0.01, 0)
    with pytest.raises(ValueError, match="resolution"):
        _cpu.louvain_graph_communities(ga.xadj, ga.adjncy, ga.adjwgt, ga.vwgt, 8, 8, 0.01, 0,
                                       resolution=0.0)
    empty = _cpu.louvain_graph_communities(np.zeros(1, np.int64), np.zeros(0, np.int32),
                                           np.zeros(0, np.int64), np.zeros(0, np.int64), 8, 8,
                                           0.01, 0)
    assert empty.shape == (0,)


@pytest.mark.parametrize("graph", ["clique", "bipartite"])
def test_graph_communities_of_a_run_equal_those_of_its_edges_as_nets(graph):
    """What a partition's preprocessing gives (the graph's own adjacency for the clique
    expansion, the 2-pin nets for the bipartite graph) equals Louvain on the edges as 2-pin
    nets, with the isolated vertices sharing one community."""
    from igpart.partitioner.context import Timer
    from igpart.partitioner.preprocessing import _louvain, detect_graph_communities

    g = _reweighted(_modules(6, 400, 20, 1), 1, True)
    be = get_backend("cpu")
    cfg = resolved(Config(threads=2, graph_communities=True, deterministic=True,
                          community_graph=graph), be, g, 4)
    ga = be.graph_arrays(g)
    got = np.asarray(detect_graph_communities(be, ga, g, 4, cfg, 0, Timer()))
    want = np.asarray(_louvain(be, edge_nets(ga), g, 4, cfg, 0, Timer()))
    assert np.array_equal(got, want)
    assert np.unique(got[:5]).size == 1  # the isolated vertices share one community


@pytest.fixture
def order_run():
    """``_cpu.louvain_order_run`` set by the test and restored after it."""
    from igpart.kernels import _cpu

    before = _cpu.louvain_order_run()
    yield _cpu.set_louvain_order_run
    _cpu.set_louvain_order_run(before)


def test_louvain_order_run_is_checked(order_run):
    from igpart.kernels import _cpu

    order_run(1024)
    assert _cpu.louvain_order_run() == 1024
    with pytest.raises(ValueError, match="run must be >= 0"):
        order_run(-1)
    assert _cpu.louvain_order_run() == 1024  # unchanged by the refused value


@pytest.mark.parametrize("threads", [1, 2])
def test_order_runs_leave_the_deterministic_passes_alone(order_run, threads):
    """The runs of consecutive ids act only in the asynchronous passes: the sequential passes
    and the synchronous sub-rounds give the same communities whatever the run."""
    from igpart.kernels import _cpu, omp_threads

    g = _reweighted(delaunay_graph(12000, 3), 3, True)
    ga = get_backend("cpu").graph_arrays(g)
    got = {}
    for run in (0, 64, 1024):
        order_run(run)
        with omp_threads(threads):
            got[run] = [_cpu.louvain_graph_communities(ga.xadj, ga.adjncy, ga.adjwgt, ga.vwgt,
                                                       8, 8, 0.01, 5, 1.0, 0, sub_rounds)
                        for sub_rounds in (0, 16)]
    for run in (64, 1024):
        for a, b in zip(got[0], got[run]):
            assert np.array_equal(a, b), run


@pytest.mark.parametrize("seed", [0, 1])
def test_asynchronous_passes_in_runs_keep_the_modularity(order_run, seed):
    """Asynchronous passes (2 threads, levels of 4,096+ nodes) that visit runs of consecutive
    ids: dense communities of about the modularity of one seeded order (within 1%), with each
    row's entries ascending and shuffled."""
    from igpart.kernels import _cpu, omp_threads

    for shuffle in (False, True):
        g = _reweighted(delaunay_graph(20000, seed), seed, True, shuffle=shuffle)
        ga = get_backend("cpu").graph_arrays(g)
        mod = {}
        for run in (0, 256):
            order_run(run)
            with omp_threads(2):
                comm = _cpu.louvain_graph_communities(ga.xadj, ga.adjncy, ga.adjwgt, ga.vwgt, 8,
                                                      8, 0.01, seed, 1.0, 0, 0, False, 0.0, 0,
                                                      0, 0, True)
            assert np.array_equal(np.unique(comm), np.arange(comm.max() + 1))
            mod[run] = _modularity(g, comm)
        assert mod[256] >= 0.99 * mod[0] > 0.5, (shuffle, mod)
