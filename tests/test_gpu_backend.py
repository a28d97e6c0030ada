"""The GPU backend against the C++ backend (the reference) on random inputs, and the whole
multilevel partitioner on the GPU. Marker ``gpu``: skipped where no CUDA device is present."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
from igpart.kernels import get_backend
from igpart.metrics import max_block_weight

from .test_multilevel import check_partition, instances
from .test_stages import bounds_for, graphs, hypergraphs
from .util import random_graph, random_hypergraph

pytestmark = pytest.mark.gpu
SOME = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CPU = get_backend("cpu")


@pytest.fixture(scope="module")
def gpu():
    return get_backend("gpu")


def host(a):
    return np.asarray(a.get() if hasattr(a, "get") else a)


def test_auto_picks_the_gpu_from_the_pin_bound(gpu, monkeypatch):
    import igpart.kernels as kernels
    from igpart.generators import random_circuit
    from igpart.kernels import AUTO_GPU_MIN_PINS, input_pins

    assert get_backend("auto", pins=AUTO_GPU_MIN_PINS).name == "gpu"
    assert get_backend("auto", pins=AUTO_GPU_MIN_PINS - 1).name == "cpu"
    h = random_circuit(3000, seed=2)
    assert igpart.partition(h, 4).backend == "cpu"
    monkeypatch.setattr(kernels, "AUTO_GPU_MIN_PINS", input_pins(h))
    p = igpart.partition(h, 4)
    assert p.backend == "gpu" and p.balanced


def test_auto_picks_the_gpu(gpu):
    assert get_backend("auto").name == "gpu" and gpu.name == "gpu"
    assert gpu.xp.__name__ == "cupy"
    from igpart.partitioner.config import Config
    from igpart.partitioner.context import vcycles

    big = gpu.LARGE_MIN_N
    # one V-cycle at k = 2 and where the lean host stages apply (2 < k < 64), two at k = 64
    assert [vcycles(gpu, Config(), k, big) for k in (2, 3, 64)] == [1, 1, 2]
    assert vcycles(gpu, Config(), 2, big - 1) == 2


@SOME
@given(hypergraphs(max_n=60), st.integers(1, 60), st.integers(1, 6), st.integers(0, 9))
def test_coarsening_keeps_total_weight_like_the_reference(gpu, h, mcw, group_size, seed):
    """GPU clusters satisfy the contract, and contracting them on either backend gives the same
    coarse hypergraph (so the weight totals agree with the C++ reference)."""
    ha = gpu.hypergraph_arrays(h)
    cmap, nc = gpu.coarsen_hypergraph(ha, mcw, group_size=group_size, seed=seed)
    c = host(cmap)
    assert set(np.unique(c)) == set(range(nc))
    sizes = np.bincount(c, minlength=nc)
    weights = np.bincount(c, weights=h.vwgt, minlength=nc)
    assert sizes.max() <= group_size and np.all((weights <= mcw) | (sizes == 1))
    g = gpu.contract_hypergraph(ha, cmap, nc)
    r = CPU.contract_hypergraph(CPU.hypergraph_arrays(h), c, nc)
    assert int(host(g.vwgt).sum()) == h.total_weight == int(r.vwgt.sum())
    for f in ("eptr", "eind", "vptr", "vind", "vwgt", "ewgt"):
        np.testing.assert_array_equal(host(getattr(g, f)), getattr(r, f), err_msg=f)


@SOME
@given(hypergraphs(max_n=60), st.integers(1, 12), st.integers(0, 2**31 - 1))
def test_contraction_equals_the_reference_and_keeps_cut(gpu, h, nc, seed):
    rng = np.random.default_rng(seed)
    nc = min(nc, h.n)
    cmap = rng.permutation(np.arange(h.n) % nc).astype(np.int32)
    g = gpu.contract_hypergraph(gpu.hypergraph_arrays(h), gpu.asarray(cmap, "int32"), nc)
    r = CPU.contract_hypergraph(CPU.hypergraph_arrays(h), cmap, nc)
    assert g.m == r.m
    for f in ("eptr", "eind", "vptr", "vind", "vwgt", "ewgt"):
        np.testing.assert_array_equal(host(getattr(g, f)), getattr(r, f), err_msg=f)
    k = int(rng.integers(2, 6))
    cparts = rng.integers(0, k, size=nc).astype(np.int32)
    fine = host(gpu.project(gpu.asarray(cmap, "int32"), gpu.asarray(cparts, "int32")))
    for obj in ("cut", "km1"):
        want = CPU.hypergraph_objective(CPU.hypergraph_arrays(h), fine, k, obj)
        assert gpu.hypergraph_objective(g, gpu.asarray(cparts, "int32"), k, obj) == want


@SOME
@given(hypergraphs(max_n=60))
def test_upload_builds_the_hosts_vertex_incidence(gpu, h):
    """hypergraph_arrays transposes on the device: the same arrays as the host's."""
    ha = gpu.hypergraph_arrays(h)
    assert (ha.n, ha.m, ha.total_weight) == (h.n, h.m, h.total_weight)
    for f in ("eptr", "eind", "vptr", "vind", "vwgt", "ewgt"):
        np.testing.assert_array_equal(host(getattr(ha, f)), getattr(h, f), err_msg=f)


@pytest.mark.parametrize("weighted", [False, True])
def test_registered_copies_equal_the_plain_ones(gpu, monkeypatch, weighted):
    """Large arrays are uploaded through registered pages, unit weights are made on the
    device; already pinned host memory, which CUDA refuses to register, is copied the usual
    way. Every route gives the host's arrays."""
    import cupy as cp

    from igpart.kernels.gpu import _backend

    monkeypatch.setattr(_backend, "PINNED_COPY_MIN_BYTES", 64)
    h = random_hypergraph(np.random.default_rng(5), 3000, 2500, weighted=weighted)
    assert h.unit_vertex_weights is not weighted and h.unit_net_weights is not weighted
    ha = gpu.hypergraph_arrays(h)
    for f in ("eptr", "eind", "vptr", "vind", "vwgt", "ewgt"):
        np.testing.assert_array_equal(host(getattr(ha, f)), getattr(h, f), err_msg=f)
        np.testing.assert_array_equal(gpu.to_host(getattr(ha, f)), getattr(h, f), err_msg=f)
    pinned = cp.cuda.alloc_pinned_memory(h.eind.nbytes)
    buf = np.frombuffer(pinned, dtype=np.int32, count=h.eind.size)
    buf[:] = h.eind
    np.testing.assert_array_equal(host(gpu.asarray(buf, "int32")), h.eind)
    np.testing.assert_array_equal(host(gpu.asarray(buf, "int64")), h.eind)  # converted first
    np.testing.assert_array_equal(host(gpu.asarray(buf[::2])), h.eind[::2])  # strided


@pytest.mark.parametrize("nc", [1, 7, 300, 2999])
def test_contraction_of_long_and_repeated_nets_equals_the_reference(gpu, nc):
    """Nets longer than one thread sorts (up to 400 pins), hubs of many nets, and repeated
    nets that merge: the same coarse hypergraph as the C++ reference (upload included)."""
    rng = np.random.default_rng(nc)
    n = 3000
    nets = [rng.integers(0, n, size=s) for s in rng.integers(1, 400, size=300)]
    nets += [rng.integers(0, 40, size=s) for s in rng.integers(1, 6, size=3000)]
    nets += [nets[int(i)].copy() for i in rng.integers(0, len(nets), size=500)]
    h = igpart.Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 9, size=n),
                                    ewgt=rng.integers(1, 9, size=len(nets)))
    ha = gpu.hypergraph_arrays(h)
    for f in ("vptr", "vind"):
        np.testing.assert_array_equal(host(getattr(ha, f)), getattr(h, f), err_msg=f)
    cmap = rng.permutation(np.arange(n) % nc).astype(np.int32)
    g = gpu.contract_hypergraph(ha, gpu.asarray(cmap, "int32"), nc)
    r = CPU.contract_hypergraph(CPU.hypergraph_arrays(h), cmap, nc)
    assert (g.n, g.m) == (r.n, r.m)
    for f in ("eptr", "eind", "vptr", "vind", "vwgt", "ewgt"):
        np.testing.assert_array_equal(host(getattr(g, f)), getattr(r, f), err_msg=f)


@SOME
@given(hypergraphs(max_n=60), st.integers(1, 8), st.integers(0, 2**31 - 1))
def test_metrics_equal_the_reference(gpu, h, k, seed):
    parts = np.random.default_rng(seed).integers(0, k, size=h.n).astype(np.int32)
    dp = gpu.asarray(parts, "int32")
    np.testing.assert_array_equal(host(gpu.net_connectivity(h.eptr, h.eind, dp, k)),
                                  CPU.net_connectivity(h.eptr, h.eind, parts, k))
    np.testing.assert_array_equal(host(gpu.block_weights(h.vwgt, dp, k)),
                                  CPU.block_weights(h.vwgt, parts, k))


@SOME
@given(hypergraphs(max_n=80), st.integers(2, 8), st.integers(0, 2**31 - 1),
       st.sampled_from(["cut", "km1"]))
def test_sequence_refinement_matches_the_reference(gpu, h, k, seed, obj):
    """Same algorithm, same tie-breaking: the GPU's sequence refinement gives the C++ result, and
    never worsens a balanced partition."""
    k = min(k, h.n)
    rng = np.random.default_rng(seed)
    bounds = bounds_for(h.total_weight, k)
    parts = CPU.rebalance_hypergraph(CPU.hypergraph_arrays(h),
                                     rng.integers(0, k, size=h.n).astype(np.int32), k, bounds, obj)
    want, wgain = CPU.refine_hypergraph(CPU.hypergraph_arrays(h), parts, k, bounds, obj)
    got, gain = gpu.refine_hypergraph(gpu.hypergraph_arrays(h), gpu.asarray(parts, "int32"), k,
                                      gpu.asarray(bounds), obj)
    got = host(got)
    before = CPU.hypergraph_objective(CPU.hypergraph_arrays(h), parts, k, obj)
    after = CPU.hypergraph_objective(CPU.hypergraph_arrays(h), got, k, obj)
    assert gain == wgain and after == before - gain and gain >= 0
    np.testing.assert_array_equal(got, want)
    bw0, bw = igpart.block_weights(h, parts, k), igpart.block_weights(h, got, k)
    assert np.all((bw <= bounds) | (bw <= bw0))


@SOME
@given(graphs(max_n=80), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_graph_stages_match_the_reference(gpu, g, k, seed):
    k = min(k, g.n)
    rng = np.random.default_rng(seed)
    bounds = bounds_for(g.total_weight, k)
    parts = CPU.rebalance_graph(CPU.graph_arrays(g), rng.integers(0, k, size=g.n).astype(np.int32),
                                k, bounds)
    ga = gpu.graph_arrays(g)
    want, wgain = CPU.refine_graph(CPU.graph_arrays(g), parts, k, bounds)
    got, gain = gpu.refine_graph(ga, gpu.asarray(parts, "int32"), k, gpu.asarray(bounds))
    assert gain == wgain
    np.testing.assert_array_equal(host(got), want)
    assert gpu.graph_edge_cut(ga, gpu.asarray(parts, "int32")) == igpart.edge_cut(g, parts)
    # coarsening + contraction keep weights and the cut under projection
    cmap, nc = gpu.coarsen_graph(ga, max(1, g.total_weight // 3), seed=seed % 5)
    c = gpu.contract_graph(ga, cmap, nc)
    r = CPU.contract_graph(CPU.graph_arrays(g), host(cmap), nc)
    for f in ("xadj", "adjncy", "adjwgt", "vwgt"):
        np.testing.assert_array_equal(host(getattr(c, f)), getattr(r, f), err_msg=f)


def test_refinement_on_a_large_random_level(gpu):
    """Many moves per round, large nets (global segment sort) and k > the shared-memory table."""
    rng = np.random.default_rng(7)
    h = random_hypergraph(rng, 20000, 22000, max_size=6)
    big = np.concatenate([h.eind, rng.integers(0, h.n, size=300)])  # one 300-pin net
    eptr = np.concatenate([h.eptr, [big.size]])
    h = igpart.Hypergraph(eptr, big, h.n)
    for k in (2, 16, 1000):
        bounds = bounds_for(h.total_weight, k, 0.03 if k < 1000 else 0.5)
        parts = (np.arange(h.n) % k).astype(np.int32)
        rng.shuffle(parts)
        for obj in ("cut", "km1"):
            want, wgain = CPU.refine_hypergraph(CPU.hypergraph_arrays(h), parts, k, bounds, obj)
            got, gain = gpu.refine_hypergraph(gpu.hypergraph_arrays(h), gpu.asarray(parts), k,
                                              gpu.asarray(bounds), obj)
            assert gain == wgain > 0
            np.testing.assert_array_equal(host(got), want)
    cmap, nc = gpu.coarsen_hypergraph(gpu.hypergraph_arrays(h), 8, seed=1)
    c = gpu.contract_hypergraph(gpu.hypergraph_arrays(h), cmap, nc)
    r = CPU.contract_hypergraph(CPU.hypergraph_arrays(h), host(cmap), nc)
    np.testing.assert_array_equal(host(c.eind), r.eind)
    np.testing.assert_array_equal(host(c.vind), r.vind)
    assert nc < 0.5 * h.n


@SOME
@given(hypergraphs(max_n=60), st.integers(1, 60), st.sampled_from([1.5, 2.5, 100.0]),
       st.booleans(), st.booleans(), st.integers(0, 3))
def test_gpu_clustering_postconditions(gpu, h, mcw, shrink, penalty, use_comm, seed):
    ha = gpu.hypergraph_arrays(h)
    comm = (np.arange(h.n, dtype=np.int32) % 3) if use_comm else None
    cmap, nc = gpu.cluster_hypergraph(ha, mcw, communities=None if comm is None else
                                      gpu.asarray(comm, "int32"), max_shrink=shrink,
                                      weight_penalty=penalty, seed=seed)
    cmap = host(cmap)
    assert cmap.dtype == np.int32 and set(np.unique(cmap)) == set(range(nc))
    sizes = np.bincount(cmap, minlength=nc)
    weights = np.bincount(cmap, weights=h.vwgt, minlength=nc)
    assert np.all((weights <= mcw) | (sizes == 1))
    if comm is not None:
        label = np.zeros(nc, dtype=np.int32)
        label[cmap] = comm
        assert np.array_equal(label[cmap], comm)
    # members share a net with another member, unless no rating can cluster them (no net of
    # 2 to 1000 pins to a vertex of their community: such vertices are paired among themselves)
    for c in np.flatnonzero(sizes > 1)[:5]:
        members = set(np.flatnonzero(cmap == c).tolist())
        for v in members:
            nbrs = {int(u) for e in h.nets_of(v) for u in h.net(e)} - {v}
            rated = {int(u) for e in h.nets_of(v) if 2 <= h.net(e).size <= 1000
                     for u in h.net(e) if comm is None or comm[u] == comm[v]} - {v}
            assert nbrs & members or not rated


@pytest.mark.parametrize("max_size", [2, 3, 64])
def test_gpu_clusters_have_at_most_cluster_max_size_members(max_size):
    from igpart.kernels.gpu import GpuBackend

    be = GpuBackend(cluster_max_size=max_size)
    # a star with heavy spokes: every leaf wants the hub's cluster
    h = igpart.Hypergraph.from_nets([[0, i] for i in range(1, 200)] + [[i, i + 1] for i in
                                                                          range(1, 199, 2)])
    cmap, nc = be.cluster_hypergraph(be.hypergraph_arrays(h), h.total_weight, max_shrink=100.0)
    sizes = np.bincount(host(cmap), minlength=nc)
    assert sizes.sum() == h.n and sizes.max() <= max_size and nc < h.n
    with pytest.raises(ValueError, match="cluster_max_size"):
        GpuBackend(cluster_max_size=1)


def test_cluster_hubs_mark_the_lone_vertices_chosen_without_a_mutual_choice(gpu):
    """``cluster_hubs`` + ``cluster_hubs_apply`` (``GpuBackend(cluster_accept=True)``): a lone
    vertex chosen by a lone vertex it did not choose back stops being lone for the round; the
    marks are cleared again."""
    import cupy as cp

    from igpart.kernels.gpu._common import i64, launch

    rng = np.random.default_rng(5)
    n = 5000
    best = rng.integers(-1, n, n).astype(np.int32)
    best[rng.permutation(n)[:500]] = np.arange(n)[rng.permutation(n)[:500]]
    pairs = rng.permutation(n)[:1000].reshape(-1, 2)  # some mutual choices
    best[pairs[:, 0]], best[pairs[:, 1]] = pairs[:, 1], pairs[:, 0]
    single = rng.random(n) < 0.8
    ids = np.arange(n)
    t = np.maximum(best, 0)
    hub = np.zeros(n, dtype=bool)
    hub[t[(best >= 0) & single & single[t] & (best[t] != ids)]] = True
    want = single & ~hub
    s_d, b_d, h_d = cp.asarray(single), cp.asarray(best), cp.zeros(n, dtype=cp.int8)
    launch("coarsen", "cluster_hubs", n, (i64(n), b_d, s_d, h_d))
    launch("coarsen", "cluster_hubs_apply", n, (i64(n), s_d, h_d))
    np.testing.assert_array_equal(host(s_d), want)
    assert not host(h_d).any() and hub.any() and (want != single).any()


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("by_cluster", [False, True])
def test_gpu_clustering_with_accepted_proposals_keeps_its_bounds(deterministic, by_cluster):
    """``cluster_accept`` (and ``rating_by_cluster``): the clusters keep the weight cap, the
    member cap and the level's target, the partition is valid; deterministic runs repeat."""
    from igpart.kernels.gpu import GpuBackend

    be = GpuBackend(cluster_accept=True, rating_by_cluster=by_cluster,
                    deterministic=deterministic)
    h = random_hypergraph(np.random.default_rng(12), 4000, 5000, max_size=6, weighted=True)
    ha = be.hypergraph_arrays(h)
    cmap, nc = be.cluster_hypergraph(ha, 40, max_shrink=3.0, seed=3)
    got = host(cmap)
    sizes = np.bincount(got, minlength=nc)
    weights = np.bincount(got, weights=h.vwgt, minlength=nc)
    assert nc >= int(h.n / 3.0) and nc < h.n and set(np.unique(got)) == set(range(nc))
    assert np.all((weights <= 40) | (sizes == 1)) and sizes.max() <= be.cluster_max_size
    if deterministic:
        again, _ = be.cluster_hypergraph(ha, 40, max_shrink=3.0, seed=3)
        np.testing.assert_array_equal(host(again), got)
    p = igpart.partition(h, 8, backend=be, seed=2)
    check_partition(h, p, 8, 0.03)


def test_deterministic_gpu_clustering_repeats_and_keeps_its_bounds():
    """GpuBackend(deterministic=True): the joins follow kernels.cluster_join (seeded sorts), so
    the clusters, the hierarchy and the partition repeat for a seed."""
    from igpart.kernels.gpu import GpuBackend

    be = GpuBackend(deterministic=True)
    h = random_hypergraph(np.random.default_rng(11), 4000, 5000, max_size=6, weighted=True)
    ha = be.hypergraph_arrays(h)
    a, na = be.cluster_hypergraph(ha, 40, max_shrink=3.0, seed=5)
    b, nb = be.cluster_hypergraph(ha, 40, max_shrink=3.0, seed=5)
    np.testing.assert_array_equal(host(a), host(b))
    sizes = np.bincount(host(a), minlength=na)
    weights = np.bincount(host(a), weights=h.vwgt, minlength=na)
    assert na == nb and na >= int(h.n / 3.0) and na < h.n
    assert np.all((weights <= 40) | (sizes == 1)) and sizes.max() <= be.cluster_max_size
    p = igpart.partition(h, 8, backend=be, seed=2)
    q = igpart.partition(h, 8, backend=be, seed=2)
    check_partition(h, p, 8, 0.03)
    np.testing.assert_array_equal(p.parts, q.parts)


def test_gpu_communities_cover_every_vertex(gpu):
    from igpart.kernels.gpu import GpuBackend

    h = random_hypergraph(np.random.default_rng(2), 3000, 3300, max_size=5)
    small = GpuBackend(community_host_max=500)  # coarsens on the GPU before Louvain
    comm = host(small.communities(small.hypergraph_arrays(h)))
    assert comm.shape == (h.n,) and set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    direct = host(gpu.communities(gpu.hypergraph_arrays(h)))
    np.testing.assert_array_equal(direct, CPU.communities(CPU.hypergraph_arrays(h)))


def test_gpu_communities_on_host_levels(gpu):
    """``community_host_levels``: the levels before Louvain are the C++ backend's, so the
    communities equal ``CpuBackend.communities`` on the same level size; the input itself
    (no level to make) takes the ordinary path."""
    from igpart.kernels.gpu import GpuBackend

    h = random_hypergraph(np.random.default_rng(3), 3000, 3300, max_size=5)
    be = GpuBackend(community_host_max=500, community_host_levels=True)
    comm = host(be.communities(be.hypergraph_arrays(h), seed=4))
    want = CPU.communities(CPU.hypergraph_arrays(h), seed=4, level_max=500)
    np.testing.assert_array_equal(comm, want)
    whole = GpuBackend(community_host_max=5000, community_host_levels=True)
    np.testing.assert_array_equal(host(whole.communities(whole.hypergraph_arrays(h))),
                                  CPU.communities(CPU.hypergraph_arrays(h)))
    p = igpart.partition(h, 4, backend=be, seed=1)
    check_partition(h, p, 4, 0.03)


def _deterministic_passed(monkeypatch, cls) -> list:
    """The ``deterministic`` option of every ``cls.communities`` call from now on ("absent"
    where none was passed), appended as the calls run."""
    seen: list = []
    real = cls.communities

    def spy(self, hg, **options):
        seen.append(options.get("deterministic", "absent"))
        return real(self, hg, **options)

    monkeypatch.setattr(cls, "communities", spy)
    return seen


def test_gpu_host_louvain_follows_deterministic(monkeypatch):
    """``_backend.HOST_LOUVAIN_ASYNC``: off, the host's Louvain always runs its synchronous
    passes (``deterministic=True``); on, it gets the partition's ``Config.deterministic``
    (None by default), except under ``GpuBackend(deterministic=True)``. The communities
    cover every vertex either way, and the partition is valid and balanced."""
    from igpart.kernels.cpu import CpuBackend
    from igpart.kernels.gpu import GpuBackend, _backend

    seen = _deterministic_passed(monkeypatch, CpuBackend)
    h = random_hypergraph(np.random.default_rng(5), 3000, 3300, max_size=5)
    be = GpuBackend(community_host_max=1000)
    top = be.hypergraph_arrays(h)
    monkeypatch.setattr(_backend, "HOST_LOUVAIN_ASYNC", False)
    for det in (None, False, True):
        be.communities(top, deterministic=det)
    assert seen == [True, True, True]
    seen.clear()
    monkeypatch.setattr(_backend, "HOST_LOUVAIN_ASYNC", True)
    for det in (None, False, True):
        comm = host(be.communities(top, deterministic=det))
        assert comm.shape == (h.n,) and set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    assert seen == [None, False, True]
    seen.clear()
    GpuBackend(community_host_max=1000, deterministic=True).communities(top, deterministic=None)
    assert seen == [True]
    seen.clear()
    through = _deterministic_passed(monkeypatch, GpuBackend)
    big = random_hypergraph(np.random.default_rng(6), 20000, 22000, max_size=6)
    p = igpart.partition(big, 4, backend=GpuBackend(community_host_max=2000), seed=1)
    check_partition(big, p, 4, 0.03)
    assert through == [None] and seen[0] is None  # Config.deterministic's default, passed on


def _louvain_level_sizes(monkeypatch) -> list[int]:
    """The vertex count of every level the GPU backend hands to the host's Louvain (its
    ``_host_copy``), appended as ``communities`` runs."""
    from igpart.kernels.gpu import GpuBackend

    sizes: list[int] = []
    real = GpuBackend._host_copy

    def spy(self, level):
        sizes.append(level.n)
        return real(self, level)

    monkeypatch.setattr(GpuBackend, "_host_copy", spy)
    return sizes


def test_gpu_communities_level(monkeypatch):
    """Louvain runs on a level of at most COMMUNITY_HOST_MAX vertices (GPU levels first)
    below k = LARGE_K, COMMUNITY_HOST_MAX_LARGE_K from it on; an explicit
    community_host_max holds at every k."""
    from igpart.kernels.gpu import GpuBackend

    h = random_hypergraph(np.random.default_rng(2), 3000, 3300, max_size=5)
    monkeypatch.setattr(GpuBackend, "COMMUNITY_HOST_MAX", 2000)
    sizes = _louvain_level_sizes(monkeypatch)
    be = GpuBackend()
    top = be.hypergraph_arrays(h)
    for k in (2, 3, 0):
        comm = host(be.communities(top, k=k))
        assert comm.shape == (h.n,) and set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    assert len(sizes) == 3 and 500 < sizes[0] <= 2000 and sizes[0] == sizes[1] == sizes[2]
    # from LARGE_K blocks on, the larger level (here: the input itself)
    monkeypatch.setattr(GpuBackend, "COMMUNITY_HOST_MAX_LARGE_K", 5000)
    sizes.clear()
    for k in (GpuBackend.LARGE_K - 1, GpuBackend.LARGE_K):
        host(be.communities(top, k=k))
    assert sizes[0] <= 2000 and sizes[1] == h.n
    assert be.community_level_max(GpuBackend.LARGE_K) == 5000
    sizes.clear()
    fixed = GpuBackend(community_host_max=5000)
    direct = host(fixed.communities(top, k=2))
    assert sizes == [h.n]
    np.testing.assert_array_equal(direct, CPU.communities(CPU.hypergraph_arrays(h)))


def test_gpu_community_level_lands_at_the_level_asked(monkeypatch):
    """``_backend.COMMUNITY_LEVEL_LANDS``: the last level before Louvain shrinks only as far as
    Louvain's level asks, so Louvain runs on no fewer vertices than that (the clustering never
    joins past its target) and on fewer than the input; the communities cover every vertex.
    With 4x per level the same input's Louvain level is smaller."""
    from igpart.kernels.gpu import GpuBackend, _backend

    h = random_hypergraph(np.random.default_rng(2), 3000, 3300, max_size=5)
    sizes = _louvain_level_sizes(monkeypatch)
    be = GpuBackend(community_host_max=1000)
    top = be.hypergraph_arrays(h)
    for lands in (True, False):
        monkeypatch.setattr(_backend, "COMMUNITY_LEVEL_LANDS", lands)
        comm = host(be.communities(top, k=2, seed=3))
        assert comm.shape == (h.n,) and set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    landed, fourfold = sizes
    assert 990 <= landed < h.n
    assert fourfold < landed


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(1, 12), st.sampled_from(["cut", "km1"]),
       st.sampled_from([0.0, 0.03, 0.1]))
def test_gpu_partition_properties(h, k, obj, eps):
    k = min(k, max(h.n, 1))
    p = igpart.partition(h, k, epsilon=eps, objective=obj, backend="gpu", seed=1,
                         config={"contraction_limit": 2,
                                 "bisection_contraction_limit": 2})
    check_partition(h, p, k, eps)
    assert p.backend == "gpu"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(graph=True), st.integers(1, 12))
def test_gpu_graph_partition_properties(g, k):
    k = min(k, max(g.n, 1))
    p = igpart.partition(g, k, backend="gpu",
                          config={"graph_contraction_limit": 2, "graph_host_levels_below": 0})
    check_partition(g, p, k, 0.03)


@pytest.mark.parametrize("k", [2, 8, 64])
def test_ibm01_on_the_gpu_is_valid_and_close_to_the_cpu(ispd98, k):
    h = igpart.read_hgr(ispd98 / "ibm01.hgr")
    p = igpart.partition(h, k, backend="gpu")
    check_partition(h, p, k, 0.03)
    assert p.balanced
    c = igpart.partition(h, k, backend="cpu")
    assert p.cut <= 1.25 * c.cut  # the benchmark reports the real ratio; this catches breakage


def test_gpu_random_graph_partition():
    g = random_graph(np.random.default_rng(3), 5000, 15000)
    # every level on the GPU (the default would run a graph this small on the host)
    p = igpart.partition(g, 8, backend="gpu", config={"graph_host_levels_below": 0})
    check_partition(g, p, 8, 0.03)
    assert p.balanced and p.cut <= 1.3 * igpart.partition(g, 8, backend="cpu").cut
    assert max_block_weight(g.total_weight, 8, 0.03) >= p.block_weights.max()


def test_fm_runs_on_large_levels_like_the_reference(gpu):
    """FM runs on levels above the old 400k-pin cap (skipping it there made partitions of large
    inputs 2-3x worse than the C++ backend's) and moves exactly like the C++ backend."""
    from igpart.generators import random_circuit

    h = random_circuit(150_000, seed=5)
    assert h.num_pins > 400_000
    k = 8
    bounds = bounds_for(h.total_weight, k, 0.03)
    parts = (np.arange(h.n) * k // h.n).astype(np.int32)  # stripes: balanced, improvable
    want, wgain = CPU.fm_refine_hypergraph(CPU.hypergraph_arrays(h), parts, k, bounds, "cut",
                                           seed=2)
    got, gain = gpu.fm_refine_hypergraph(gpu.hypergraph_arrays(h), gpu.asarray(parts), k,
                                         gpu.asarray(bounds), "cut", seed=2)
    assert gain == wgain > 0
    np.testing.assert_array_equal(host(got), want)


def test_inflated_input_on_the_gpu_is_close_to_the_cpu(ispd98):
    """An input large enough that the GPU coarsening and the fine-level refinement matter (20
    copies of ibm01, 255k vertices, 1M pins): the GPU pipeline stays near the C++ pipeline."""
    from igpart.generators import inflate

    h = inflate(igpart.read_hgr(ispd98 / "ibm01.hgr"), 20, seed=1)
    for k in (2, 16):
        p = igpart.partition(h, k, backend="gpu", seed=1)
        check_partition(h, p, k, 0.03)
        c = igpart.partition(h, k, backend="cpu", seed=1)
        assert p.cut <= 1.2 * c.cut, (k, p.cut, c.cut)


def test_clustering_never_overshoots_its_target(gpu):
    """A round's mutual pairs would take 3 disjoint pairs to 3 clusters; max_shrink 1.5 asks for
    no fewer than int(6 / 1.5) = 4 (the C++ backend stops there too)."""
    h = igpart.Hypergraph.from_nets([[0, 1], [2, 3], [4, 5]])
    for be in (CPU, gpu):
        cmap, nc = be.cluster_hypergraph(be.hypergraph_arrays(h), 10, max_shrink=1.5, seed=0)
        assert nc == 4
        assert sorted(np.bincount(host(cmap))) == [1, 1, 2, 2]


def test_kernel_profile_records_launches_and_leaves_results_unchanged(gpu):
    from igpart.kernels.gpu import _common

    h = random_hypergraph(np.random.default_rng(5), 300, 400)
    plain = igpart.partition(h, 4, objective="cut", backend=gpu, seed=2)
    _common.profile_start()
    try:
        profiled = igpart.partition(h, 4, objective="cut", backend=gpu, seed=2)
    finally:
        prof = _common.profile_stop()
    assert _common.PROFILE is None
    assert prof and all(c > 0 and ms >= 0.0 for c, ms in prof.values())
    assert any(name.startswith("coarsen.") for name in prof)
    assert profiled.balanced and plain.balanced


def test_cold_kernel_cache_is_filled_by_workers(tmp_path):
    """A first run on an empty kernel cache has worker processes compile the partitioner's
    modules, marks the cache as filled, and partitions as a warm run does (balanced, every
    vertex placed); a second process finds the marker and partitions the same way."""
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np, igpart\n"
        "from igpart.generators import random_circuit\n"
        "from igpart.kernels.gpu import _loader\n"
        "h = random_circuit(3000, seed=2)\n"
        "p = igpart.partition(h, 4, backend='gpu', seed=0)\n"
        "assert set(_loader.PARTITION_SOURCES) <= _loader._compiled, _loader._compiled\n"
        "assert 'dynamic' not in _loader._compiled\n"
        "assert p.balanced and p.parts.shape == (h.n,)\n"
        "assert set(np.unique(p.parts)) <= set(range(4))\n"
        "print(p.cut)\n"
    )
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path), IGPART_GPU_COMPILE_PROCESSES="4")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert any(tmp_path.rglob("*.cubin")), "nothing was compiled into the empty cache"
    assert len(list(tmp_path.glob("igpart-kernels-*.ok"))) == 1
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-3000:]


def test_host_heap_policy_changes_no_gpu_result():
    """The host stages' heap policy (``retain_heap``) leaves the GPU partition as it is (the
    deterministic clustering, so that two runs can be compared)."""
    from igpart.generators import random_circuit
    from igpart.kernels.gpu import GpuBackend

    h = random_circuit(30_000, seed=5)
    kept = igpart.partition(h, 8, backend=GpuBackend(deterministic=True), seed=3)
    plain = igpart.partition(h, 8, backend=GpuBackend(deterministic=True, retain_heap=False),
                             seed=3)
    assert GpuBackend().cpu.retain_heap and not GpuBackend(retain_heap=False).cpu.retain_heap
    assert kept.cut == plain.cut
    np.testing.assert_array_equal(kept.parts, plain.parts)
