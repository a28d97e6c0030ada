"""Community detection and community-restricted heavy-edge clustering (C++ backend)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
from igpart.community import detect_communities, modularity
from igpart.kernels import get_backend

from .test_stages import host, hypergraphs

BE = get_backend("cpu")
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module", params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def be(request):
    """The backend under test: the C++ one, and the GPU one where a device is present."""
    return get_backend(request.param)


def two_cliques(size: int = 6) -> igpart.Hypergraph:
    """Two cliques of 2-pin nets joined by one net."""
    nets = [[i, j] for i in range(size) for j in range(i + 1, size)]
    nets += [[size + i, size + j] for i in range(size) for j in range(i + 1, size)]
    nets.append([0, size])
    return igpart.Hypergraph.from_nets(nets)


def test_louvain_separates_two_cliques():
    h = two_cliques()
    comm = detect_communities(h)
    assert comm.dtype == np.int32
    assert len(set(comm[:6])) == 1 and len(set(comm[6:])) == 1 and comm[0] != comm[6]
    assert modularity(h, comm) > modularity(h, np.zeros(h.n, dtype=np.int32))


@FAST
@given(hypergraphs(max_n=60), st.integers(0, 3))
def test_communities_dense_deterministic_and_not_worse_than_singletons(h, seed):
    comm = detect_communities(h, seed=seed)
    assert comm.shape == (h.n,)
    assert set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    assert np.array_equal(comm, detect_communities(h, seed=seed))
    singletons = np.arange(h.n, dtype=np.int32)
    assert modularity(h, comm) >= modularity(h, singletons) - 1e-9


@pytest.mark.parametrize("prune", [False, True])
def test_communities_do_not_depend_on_the_threads(monkeypatch, prune):
    """The clique expansion is built by slices of vertices in parallel, and with sub_rounds the
    local moving runs in parallel too (from 4096 vertices on): the same communities on 1, 2 and
    3 OpenMP threads, with and without pruning (a vertex rated again only once a neighbour
    moved; the flags of a sub-round's movers' neighbours set in parallel)."""
    from igpart.kernels import omp_threads
    from igpart.kernels.cpu import CpuBackend

    monkeypatch.setattr(CpuBackend, "community_prune", prune)

    rng = np.random.default_rng(5)
    n = 6000
    nets = [rng.choice(n, size=int(rng.integers(2, 7)), replace=False) for _ in range(9000)]
    # local structure: nets among nearby ids, so that there are communities to find
    base = rng.integers(0, n - 20, size=6000)
    nets += [base[i] + rng.choice(20, size=3, replace=False) for i in range(6000)]
    h = igpart.Hypergraph.from_nets(nets, n=n)
    for sub_rounds in (0, 1, 7, 16):  # 0: sequential local moving, else synchronous sub-rounds
        got = []
        for threads in (1, 2, 3):
            with omp_threads(threads):
                got.append(detect_communities(h, seed=2, sub_rounds=sub_rounds))
        assert np.array_equal(got[0], got[1]) and np.array_equal(got[0], got[2])
        assert set(np.unique(got[0])) == set(range(int(got[0].max()) + 1))
        assert 1 < int(got[0].max()) + 1 < n
        assert modularity(h, got[0]) > modularity(h, np.arange(n, dtype=np.int32))


def test_pruned_local_moving_keeps_the_modularity(monkeypatch):
    """Pruning skips only vertices none of whose neighbours moved since their last rating: the
    communities' modularity stays within 2% of the unpruned local moving's, sequential and in
    sub-rounds."""
    from igpart.kernels.cpu import CpuBackend

    rng = np.random.default_rng(11)
    n = 8000
    base = rng.integers(0, n - 30, size=12000)
    nets = [base[i] + rng.choice(30, size=int(rng.integers(2, 5)), replace=False)
            for i in range(12000)]
    nets += [rng.choice(n, size=2, replace=False) for _ in range(2000)]
    h = igpart.Hypergraph.from_nets(nets, n=n)
    for sub_rounds in (0, 16):
        q = {}
        for prune in (False, True):
            monkeypatch.setattr(CpuBackend, "community_prune", prune)
            q[prune] = modularity(h, detect_communities(h, seed=4, sub_rounds=sub_rounds))
        assert q[False] > 0.5 and q[True] >= 0.98 * q[False], (sub_rounds, q)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "4"])
def test_bad_sub_rounds_are_rejected(bad):
    with pytest.raises(igpart.InputError, match="sub_rounds"):
        detect_communities(two_cliques(), sub_rounds=bad)
    with pytest.raises(igpart.InputError, match="community_sub_rounds"):  # -1: the default
        igpart.partition(two_cliques(), 2, config={"community_sub_rounds": -2 if bad == -1
                                                   else bad})


def test_sub_round_communities_keep_the_weight_cap():
    """The parallel local moving never lets a community outgrow ``max_weight``."""
    rng = np.random.default_rng(3)
    n = 5000
    nets = [rng.choice(n, size=int(rng.integers(2, 6)), replace=False) for _ in range(12000)]
    h = igpart.Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 4, size=n))
    cap = int(h.total_weight) // 40
    comm = detect_communities(h, seed=1, max_weight=cap, sub_rounds=8)
    weights = np.bincount(comm, weights=np.asarray(h.vwgt))
    assert weights.max() <= cap


@FAST
@given(hypergraphs(), st.integers(1, 60), st.sampled_from([1.5, 2.5, 100.0]), st.booleans(),
       st.booleans(), st.integers(0, 3))
def test_cluster_hypergraph_postconditions(be, h, mcw, shrink, penalty, use_comm, seed):
    ha = be.hypergraph_arrays(h)
    comm = (np.arange(h.n, dtype=np.int32) % 3) if use_comm else None
    cmap, nc = be.cluster_hypergraph(ha, mcw, communities=None if comm is None else
                                     be.asarray(comm, "int32"), max_shrink=shrink,
                                     weight_penalty=penalty, seed=seed)
    cmap = host(be, cmap)
    assert cmap.dtype == np.int32 and cmap.shape == (h.n,)
    assert set(np.unique(cmap)) == set(range(nc))
    sizes = np.bincount(cmap, minlength=nc)
    weights = np.bincount(cmap, weights=h.vwgt, minlength=nc)
    assert np.all((weights <= mcw) | (sizes == 1))
    assert nc >= int(h.n / shrink)  # one join at a time, stopped at n / max_shrink
    if comm is not None:  # every cluster inside one community
        label = np.zeros(nc, dtype=np.int32)
        label[cmap] = comm
        assert np.array_equal(label[cmap], comm)
    if be.name == "cpu":  # the GPU need not be deterministic
        again, nc2 = be.cluster_hypergraph(ha, mcw, communities=comm, max_shrink=shrink,
                                           weight_penalty=penalty, seed=seed)
        assert nc2 == nc and np.array_equal(again, cmap)
    # clustered vertices share a net with another member of their cluster, unless no rating
    # can cluster them (no net of at most max_net_size pins to a vertex of their community:
    # such vertices are paired among themselves)
    for c in np.flatnonzero(sizes > 1)[:5]:
        members = set(np.flatnonzero(cmap == c).tolist())
        for v in members:
            nbrs = {int(u) for e in h.nets_of(v) for u in h.net(e)} - {v}
            rated = {int(u) for e in h.nets_of(v) if 2 <= h.net(e).size <= 1000
                     for u in h.net(e) if comm is None or comm[u] == comm[v]} - {v}
            assert nbrs & members or not rated


def test_cluster_merges_heaviest_pair_first():
    # 0-1 share a net of weight 10, every other pair a net of weight 1: 0 and 1 end together
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2], [2, 3], [3, 0]], ewgt=[10, 1, 1, 1])
    cmap, nc = BE.cluster_hypergraph(BE.hypergraph_arrays(h), 2, max_shrink=10.0)
    assert cmap[0] == cmap[1] and nc == 2


def test_backend_fallback_uses_cpu_on_host_arrays():
    from igpart.kernels.host_fallback import HostFallback

    # only transfers: the stages come from the C++ backend on host copies
    class Minimal(HostFallback, igpart.kernels.backend.Backend):
        name = "minimal"
        xp = np

        def to_host(self, a):
            return np.asarray(a)

    h = two_cliques()
    minimal = Minimal()
    ha = minimal.hypergraph_arrays(h)
    assert np.array_equal(minimal.communities(ha), BE.communities(BE.hypergraph_arrays(h)))
    a, na = minimal.cluster_hypergraph(ha, 3, seed=2)
    b, nb = BE.cluster_hypergraph(BE.hypergraph_arrays(h), 3, seed=2)
    assert na == nb and np.array_equal(a, b)


@FAST
@given(hypergraphs(max_n=60), st.integers(2, 5), st.integers(0, 2**31 - 1),
       st.sampled_from(["cut", "km1"]))
def test_default_coarsening_hierarchy_keeps_weight_and_objective(be, h, k, seed, obj):
    """The default hierarchy (communities, then heavy-edge clustering + contraction per level):
    every level keeps the total vertex weight, and a coarse partition projected down to the
    finest level has the same objective there."""
    xp = be.xp
    top = be.hypergraph_arrays(h)
    comm = be.communities(top, seed=seed % 7)
    cmaps, cur = [], top
    for _ in range(6):
        cmap, nc = be.cluster_hypergraph(cur, max(1, h.total_weight // 4), communities=comm,
                                         seed=seed % 5)
        if nc == cur.n:
            break
        nxt = be.contract_hypergraph(cur, cmap, nc)
        assert int(nxt.vwgt.sum()) == int(cur.vwgt.sum()) == h.total_weight
        coarse_comm = xp.zeros(nc, dtype=xp.int32)
        coarse_comm[cmap] = comm
        comm = coarse_comm
        cmaps.append(cmap)
        cur = nxt
    parts = np.random.default_rng(seed).integers(0, k, size=cur.n).astype(np.int32)
    value = be.hypergraph_objective(cur, be.asarray(parts, "int32"), k, obj)
    parts = be.asarray(parts, "int32")
    for cmap in reversed(cmaps):
        parts = be.project(cmap, parts)
    parts = host(be, parts)
    assert parts.shape == (h.n,)
    expected = igpart.cut(h, parts, k) if obj == "cut" else igpart.km1(h, parts, k)
    assert value == expected


def ring_of_cliques(cliques: int = 60, size: int = 5) -> igpart.Hypergraph:
    """``cliques`` cliques of 2-pin nets, each joined to the next by one net (a ring): the
    classic example of modularity's resolution limit."""
    nets = []
    for q in range(cliques):
        b = q * size
        nets += [[b + i, b + j] for i in range(size) for j in range(i + 1, size)]
        nets.append([b + size - 1, ((q + 1) % cliques) * size])
    return igpart.Hypergraph.from_nets(nets)


def test_resolution_overcomes_the_resolution_limit():
    """At resolution 1 Louvain merges neighbouring cliques of a long ring (modularity's
    resolution limit); a higher resolution gives one community per clique."""
    h = ring_of_cliques()
    low = detect_communities(h)
    high = detect_communities(h, resolution=8.0)
    assert low.max() + 1 < 60
    assert high.max() + 1 == 60
    assert all(len(set(high[q * 5:(q + 1) * 5])) == 1 for q in range(60))
    assert np.array_equal(detect_communities(h, resolution=1.0), low)
    assert modularity(h, high, resolution=8.0) > modularity(h, low, resolution=8.0)


@FAST
@given(hypergraphs(max_n=60), st.sampled_from([0.5, 1.0, 3.0, 10.0]), st.integers(0, 3))
def test_communities_at_any_resolution_not_worse_than_singletons(h, resolution, seed):
    comm = detect_communities(h, seed=seed, resolution=resolution)
    assert set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    assert np.array_equal(comm, detect_communities(h, seed=seed, resolution=resolution))
    singletons = np.arange(h.n, dtype=np.int32)
    assert (modularity(h, comm, resolution=resolution)
            >= modularity(h, singletons, resolution=resolution) - 1e-9)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_resolution_is_rejected(bad):
    with pytest.raises(igpart.errors.InputError):
        detect_communities(two_cliques(), resolution=bad)
    with pytest.raises(ValueError):
        BE.communities(BE.hypergraph_arrays(two_cliques()), resolution=bad)


def test_community_resolution_follows_the_size():
    from igpart.partitioner.config import Config
    from igpart.partitioner.context import community_resolution

    assert community_resolution(Config(), 10**9) == 1.0  # the default: resolution 1
    cfg = Config(community_resolution=0.0)  # automatic
    assert community_resolution(cfg, 1000) == 1.0
    assert community_resolution(cfg, cfg.community_resolution_pins) == 1.0
    assert community_resolution(cfg, 4 * cfg.community_resolution_pins) == 4.0
    assert community_resolution(Config(community_resolution=2.5), 10**9) == 2.5
    for bad in ({"community_resolution": -1.0}, {"community_resolution": float("nan")},
                {"community_resolution_pins": 0}, {"community_max_weight": -0.5},
                {"community_max_weight": float("inf")}):
        with pytest.raises(igpart.errors.InputError):
            Config.from_dict(bad)


@FAST
@given(hypergraphs(max_n=60), st.integers(1, 12), st.integers(0, 3))
def test_community_weight_cap(h, cap, seed):
    """With ``max_weight``, a community of two or more vertices never weighs more than the cap;
    ids stay dense and the result deterministic."""
    comm = detect_communities(h, seed=seed, max_weight=cap)
    assert comm.shape == (h.n,)
    assert set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    weights = np.bincount(comm, weights=h.vwgt)
    sizes = np.bincount(comm)
    assert np.all((weights <= cap) | (sizes == 1))
    assert np.array_equal(comm, detect_communities(h, seed=seed, max_weight=cap))


def test_community_weight_cap_splits_merged_cliques():
    """The ring of cliques at resolution 1: merged cliques without a cap, one community per
    clique when a community may weigh at most one clique."""
    h = ring_of_cliques()
    assert detect_communities(h).max() + 1 < 60
    capped = detect_communities(h, max_weight=5)
    assert capped.max() + 1 == 60
    assert all(len(set(capped[q * 5:(q + 1) * 5])) == 1 for q in range(60))
    with pytest.raises(ValueError):
        BE.communities(BE.hypergraph_arrays(h), max_weight=-1)


def test_driver_caps_communities_at_a_block():
    from igpart.partitioner.config import Config
    from igpart.partitioner.context import community_max_weight

    assert community_max_weight(Config(), 1000, 8) == 125
    assert community_max_weight(Config(community_max_weight=0.5), 1001, 2) == 251
    assert community_max_weight(Config(community_max_weight=0.0), 1000, 8) == 0
    h = ring_of_cliques()  # the capped default partitions validly
    p = igpart.partition(h, 6, seed=1)
    assert p.balanced and p.cut == igpart.metrics.cut(h, p.parts)


# --------------------------------------------------------------- the bipartite community graph
@pytest.mark.parametrize("edge_weight", ["hybrid", "uniform", "non_uniform", "degree"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bipartite_louvain_finds_the_two_groups(edge_weight, seed):
    """Two cliques of 2-pin nets joined by one net: the two cliques are the communities (with
    the degree model, whose arcs at the joining vertices are heavier, those two may stay
    apart, but no community spans both cliques)."""
    h = two_cliques()
    comm = detect_communities(h, graph="bipartite", edge_weight=edge_weight, seed=seed)
    assert comm.dtype == np.int32 and comm.shape == (h.n,)
    if edge_weight != "degree":
        assert np.array_equal(comm, np.repeat([0, 1], 6).astype(np.int32))
        assert np.array_equal(detect_communities(h, seed=seed), comm)  # as the clique path
    else:
        assert not set(comm[:6]) & set(comm[6:])
        assert len(set(comm[1:6])) == 1 and len(set(comm[7:])) == 1


@FAST
@given(hypergraphs(max_n=60), st.integers(0, 3),
       st.sampled_from(["hybrid", "uniform", "non_uniform", "degree"]))
def test_bipartite_communities_dense_and_deterministic(h, seed, edge_weight):
    comm = detect_communities(h, seed=seed, graph="bipartite", edge_weight=edge_weight)
    assert comm.shape == (h.n,) and comm.dtype == np.int32
    assert set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    firsts = np.unique(comm, return_index=True)[1]  # numbered by first vertex
    assert np.all(np.diff(firsts) > 0)
    assert np.array_equal(comm, detect_communities(h, seed=seed, graph="bipartite",
                                                   edge_weight=edge_weight))


@FAST
@given(hypergraphs(max_n=60), st.integers(1, 12), st.integers(0, 3))
def test_bipartite_community_weight_cap(h, cap, seed):
    """Net nodes weigh nothing: a community of two or more vertices never weighs more than the
    cap, as on the clique expansion."""
    comm = detect_communities(h, seed=seed, max_weight=cap, graph="bipartite")
    weights = np.bincount(comm, weights=h.vwgt)
    sizes = np.bincount(comm)
    assert np.all((weights <= cap) | (sizes == 1))


def test_bipartite_sub_round_communities_keep_the_weight_cap_on_any_threads():
    from igpart.kernels import omp_threads

    rng = np.random.default_rng(3)
    n = 5000
    nets = [rng.choice(n, size=int(rng.integers(2, 6)), replace=False) for _ in range(12000)]
    base = rng.integers(0, n - 20, size=4000)
    nets += [base[i] + rng.choice(20, size=3, replace=False) for i in range(4000)]
    h = igpart.Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 4, size=n))
    cap = int(h.total_weight) // 40
    got = []
    for threads in (1, 2, 3):
        with omp_threads(threads):
            got.append(detect_communities(h, seed=1, max_weight=cap, sub_rounds=8,
                                          graph="bipartite"))
    assert np.array_equal(got[0], got[1]) and np.array_equal(got[0], got[2])
    assert np.bincount(got[0], weights=np.asarray(h.vwgt)).max() <= cap
    assert 1 < int(got[0].max()) + 1 < n // 4


def test_hybrid_edge_weight_is_mt_kahypars_choice():
    """``hybrid`` equals ``degree`` when m / n < 0.75, ``non_uniform`` when m / n < 2 and a net
    has more than 1,000 pins, else ``uniform``; the three models differ on these inputs."""
    rng = np.random.default_rng(8)

    def make(n, m, big=0):
        nets = [rng.choice(n, size=int(rng.integers(2, 5)), replace=False) for _ in range(m)]
        if big:
            nets.append(np.arange(big))
        return igpart.Hypergraph.from_nets(nets, n=n)

    cases = {"degree": make(2000, 1200), "non_uniform": make(2000, 3000, big=1500),
             "uniform": make(2000, 3000)}
    for expected, h in cases.items():
        got = {w: detect_communities(h, seed=2, graph="bipartite", edge_weight=w)
               for w in ("hybrid", "uniform", "non_uniform", "degree")}
        assert np.array_equal(got["hybrid"], got[expected]), expected
        others = [w for w in ("uniform", "non_uniform", "degree") if w != expected]
        assert any(not np.array_equal(got[expected], got[w]) for w in others), expected


def test_bad_community_graph_is_rejected():
    from igpart.partitioner.config import Config

    h = two_cliques()
    with pytest.raises(igpart.InputError, match="graph"):
        detect_communities(h, graph="star")
    with pytest.raises(igpart.InputError, match="edge_weight"):
        detect_communities(h, graph="bipartite", edge_weight="heavy")
    with pytest.raises(ValueError, match="graph"):
        BE.communities(BE.hypergraph_arrays(h), graph="star")
    for bad in ({"community_graph": "star"}, {"community_edge_weight": 1}):
        with pytest.raises(igpart.errors.InputError, match=next(iter(bad))):
            Config.from_dict(bad)


@pytest.mark.parametrize("graph", ["clique", "bipartite", "auto"])
def test_partition_on_either_community_graph(graph):
    h = ring_of_cliques()
    p = igpart.partition(h, 4, seed=1, backend="cpu", config={"community_graph": graph})
    assert p.balanced and p.cut == igpart.metrics.cut(h, p.parts)


def test_sub_round_communities_keep_a_tight_cap_on_any_threads():
    """Parallel local moving with a weight cap that many of a sub-round's moves contend for
    (they wait and move in order) and a hub vertex with more neighbours than the small
    per-row tables hold: the same communities on 1 and 3 threads, none over the cap, and more
    modular than singletons."""
    from igpart.community import modularity
    from igpart.kernels import omp_threads

    rng = np.random.default_rng(11)
    n = 6000
    nets = [rng.choice(n, size=int(rng.integers(2, 6)), replace=False) for _ in range(14000)]
    base = rng.integers(0, n - 30, size=5000)
    nets += [base[i] + rng.choice(30, size=4, replace=False) for i in range(5000)]
    hub = 0  # in 80 nets of 40 pins: about 3,000 neighbours
    nets += [np.concatenate([[hub], rng.choice(np.arange(1, n), size=39, replace=False)])
             for _ in range(80)]
    h = igpart.Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 4, size=n))
    for cap in (12, int(h.total_weight) // 60):
        got = []
        for threads in (1, 3):
            with omp_threads(threads):
                got.append(detect_communities(h, seed=2, max_weight=cap, sub_rounds=16))
        assert np.array_equal(got[0], got[1])
        weights = np.bincount(got[0], weights=np.asarray(h.vwgt))
        assert weights.max() <= cap
        assert modularity(h, got[0]) > modularity(h, np.arange(n))


def test_cpu_communities_on_a_coarser_level(monkeypatch):
    """``CpuBackend.community_level_vertices``: Louvain on a level of at most that many
    vertices (heavy-edge clustering without communities first), projected back: dense ids, one
    per vertex, no more communities than that level's vertices, every cluster of the first
    clustering inside one community, the same on 1 and 2 threads, and what the resolved
    config reports; a partition with it is balanced."""
    from igpart.generators import random_circuit
    from igpart.kernels import omp_threads
    from igpart.kernels.cpu import CpuBackend
    from igpart.partitioner.config import Config
    from igpart.partitioner.context import resolve

    h = random_circuit(8_000, seed=4)
    monkeypatch.setattr(CpuBackend, "community_level_vertices", 1_500)
    be = CpuBackend()
    hg = be.hypergraph_arrays(h)
    got = []
    for threads in (1, 2):
        with omp_threads(threads):
            got.append(np.asarray(be.communities(hg, seed=1, sub_rounds=8)))
    np.testing.assert_array_equal(got[0], got[1])
    comm = got[0]
    assert comm.shape == (h.n,)
    assert set(np.unique(comm)) == set(range(int(comm.max()) + 1))
    assert int(comm.max()) + 1 <= 1_500
    cmap, nc = be.cluster_hypergraph(hg, hg.total_weight, max_net_size=50, max_shrink=4.0,
                                     seed=1)
    first = np.full(nc, -1)
    first[cmap] = comm  # any member's community
    assert np.array_equal(first[cmap], comm)  # ... is every member's
    assert resolve(Config(), be, h, 4).community_level == 1_500
    assert resolve(Config(community_level_vertices=0), be, h, 4).community_level == 0
    assert resolve(Config(community_level_vertices=900), be, h, 4).community_level == 900
    with pytest.raises(igpart.InputError, match="community_level_vertices"):
        Config(community_level_vertices=-2).validate()
    p = igpart.partition(h, 4, backend="cpu", seed=1)
    assert p.balanced


def _structured(n: int, seed: int) -> igpart.Hypergraph:
    """Random nets plus nets among nearby ids (communities to find)."""
    rng = np.random.default_rng(seed)
    nets = [rng.choice(n, size=int(rng.integers(2, 6)), replace=False) for _ in range(n)]
    base = rng.integers(0, n - 30, size=2 * n)
    nets += [base[i] + rng.choice(30, size=3, replace=False) for i in range(2 * n)]
    return igpart.Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 4, size=n))


def _louvain(h, profile=False, **options):
    from igpart.kernels import _cpu

    args = dict(max_net_size=50, max_levels=8, max_passes=8, min_move_fraction=0.01, seed=3,
                resolution=1.0, max_weight=int(h.total_weight) // 20, sub_rounds=16,
                prune=True)
    args.update(options)
    fn = _cpu.louvain_profile if profile else _cpu.louvain_communities
    return fn(h.eptr, h.eind, h.ewgt, h.vptr, h.vind, h.vwgt, **args)


@pytest.mark.parametrize("sub_rounds", [0, 16])
def test_louvain_profile_reports_its_levels(sub_rounds):
    """``louvain_profile``: the same communities as ``louvain_communities``; level i + 1 has as
    many nodes as level i found communities; the first level's graph is the clique expansion;
    the last pass's modularity is that of the result; sequential passes never lose modularity."""
    from igpart.community import clique_matrix

    h = _structured(6000, 1)
    comm, levels = _louvain(h, profile=True, sub_rounds=sub_rounds)
    assert np.array_equal(comm, _louvain(h, sub_rounds=sub_rounds))
    assert levels[0]["nodes"] == h.n and levels[0]["arcs"] == clique_matrix(h, 50).nnz
    assert levels[0]["sub_rounds"] == (sub_rounds > 0)
    for a, b in zip(levels, levels[1:]):
        assert b["nodes"] == a["communities"] < a["nodes"]
    assert all(1 <= len(lv["passes"]) <= 8 for lv in levels)
    last = [p for lv in levels for p in lv["passes"]][-1]
    assert last["modularity"] == pytest.approx(modularity(h, comm), abs=1e-9)
    if sub_rounds == 0:
        for lv in levels:
            q = [lv["start_modularity"]] + [p["modularity"] for p in lv["passes"]]
            assert all(y >= x - 1e-12 for x, y in zip(q, q[1:]))


def test_pass_gain_ends_levels_by_the_rule():
    """``min_pass_gain``: a level's passes continue only while each gained at least that
    fraction of the level's gain so far (as the moves rated it), or until a pass moves at most
    1% of the nodes or the pass limit; a threshold of 1 leaves at most two passes per level;
    the same communities on 1 and 3 threads, none over the weight cap, and the modularity
    near the full local moving's."""
    from igpart.kernels import omp_threads

    h = _structured(6000, 2)
    cap = int(h.total_weight) // 20
    full = modularity(h, _louvain(h))
    for gain in (0.1, 1.0):
        got = []
        for threads in (1, 3):
            with omp_threads(threads):
                got.append(_louvain(h, profile=True, min_pass_gain=gain))
        assert np.array_equal(got[0][0], got[1][0])
        comm, levels = got[0]
        assert np.bincount(comm, weights=np.asarray(h.vwgt)).max() <= cap
        for lv in levels:
            g = [p["estimated_gain"] for p in lv["passes"]]
            for i in range(1, len(g) - 1):  # passes that did not end the level
                assert g[i] >= gain * sum(g[: i + 1])
            last = lv["passes"][-1]
            assert (len(g) == 8 or last["moved"] <= 0.01 * lv["nodes"]
                    or g[-1] < gain * sum(g) or len(g) == 1)
            if gain == 1.0:
                assert len(g) <= 2
        assert modularity(h, comm) > (0.97 if gain < 1 else 0.9) * full


def test_levels_below_the_arc_bound_run_sequentially():
    """``sub_round_min_arcs``: a level of fewer arcs runs the sequential local moving (the same
    communities as ``sub_rounds = 0`` when no level reaches it); with a bound between the
    levels' sizes the first level runs in sub-rounds and the small ones sequentially, the same
    on 1 and 3 threads."""
    from igpart.kernels import omp_threads

    h = _structured(6000, 3)
    assert np.array_equal(_louvain(h, sub_round_min_arcs=10**12), _louvain(h, sub_rounds=0))
    first = _louvain(h, profile=True)[1][0]["arcs"]
    got = []
    for threads in (1, 3):
        with omp_threads(threads):
            got.append(_louvain(h, profile=True, sub_round_min_arcs=first))
    assert np.array_equal(got[0][0], got[1][0])
    flags = [lv["sub_rounds"] for lv in got[0][1]]
    assert flags[0] and not any(flags[1:])


def test_spin_barrier_leaves_the_communities_as_they_are():
    """``barrier_spin_us`` (the sub-rounds' threads meet at a spinning barrier instead of
    OpenMP's): the communities of OpenMP's barriers on 1 thread, on 2, 3 and 5 threads, with and
    without the community weight cap (whose waiting moves add a barrier), spinning 0, 1 and
    1000 microseconds; a negative value or one above a second is an error."""
    from igpart.kernels import omp_threads

    h = _structured(6000, 7)
    for cap in (0, int(h.total_weight) // 20):
        with omp_threads(1):
            ref = _louvain(h, max_weight=cap)
        for threads in (2, 3, 5):
            with omp_threads(threads):
                for spin in (0, 1, 1000):
                    got = _louvain(h, max_weight=cap, barrier_spin_us=spin)
                    assert np.array_equal(got, ref), (cap, threads, spin)
    for bad in (-1, 10**6 + 1):
        with pytest.raises(ValueError, match="barrier_spin_us"):
            _louvain(h, barrier_spin_us=bad)


def test_rows_per_thread_leaves_the_communities_as_they_are():
    """``sub_round_rows_per_thread`` (at most one thread per that many rows of a sub-round):
    at every bound, from every thread to one, the communities of one thread; a negative value
    is an error."""
    from igpart.kernels import omp_threads

    h = _structured(6000, 5)
    with omp_threads(1):
        ref = _louvain(h)
    for threads in (2, 3, 5):
        with omp_threads(threads):
            for rows in (0, 1, 64, 400, 10**9):
                assert np.array_equal(_louvain(h, sub_round_rows_per_thread=rows), ref), rows
    with pytest.raises(ValueError, match="sub_round_rows_per_thread"):
        _louvain(h, sub_round_rows_per_thread=-1)


@pytest.mark.parametrize("bad", [-0.5, float("nan"), True, "0.1"])
def test_bad_pass_gain_is_rejected(bad):
    with pytest.raises(igpart.InputError, match="community_pass_gain"):
        igpart.partition(two_cliques(), 2, config={"community_pass_gain": bad})


def test_partition_with_a_pass_gain_stop():
    """``Config.community_pass_gain`` reaches Louvain (resolved: the C++ backend's default for
    -1) and the partition stays valid and balanced."""
    from igpart.kernels.cpu import CpuBackend
    from igpart.partitioner.config import Config
    from igpart.partitioner.context import resolve

    h = _structured(3000, 4)
    assert resolve(Config(), BE, h, 4).community_pass_gain == CpuBackend.community_pass_gain > 0
    assert BE.default_community_pass_gain(CpuBackend.LARGE_MIN_N) == CpuBackend.community_pass_gain
    assert resolve(Config(community_pass_gain=0), BE, h, 4).community_pass_gain == 0.0
    assert resolve(Config(community_pass_gain=0.3), BE, h, 4).community_pass_gain == 0.3
    p = igpart.partition(h, 4, epsilon=0.03, config={"community_pass_gain": 0.3}, backend="cpu")
    assert p.balanced and p.cut == igpart.metrics.cut(h, p.parts, 4)


def test_asynchronous_local_moving_keeps_the_cap_and_the_modularity():
    """``communities(deterministic=False)`` on 3 threads (asynchronous passes, moves made at
    once against the communities as the other threads leave them): dense ids, no community
    over a cap that many moves contend for, and a modularity within 3% of the deterministic
    local moving's, with and without the cap."""
    from igpart.kernels import omp_threads

    h = _structured(12_000, 5)
    ha = BE.hypergraph_arrays(h)
    for cap in (0, 12, int(h.total_weight) // 60):
        with omp_threads(3):
            assert BE.louvain_is_async(False)
            fast = BE.communities(ha, seed=2, max_weight=cap, deterministic=False)
            same = BE.communities(ha, seed=2, max_weight=cap, deterministic=True)
        assert np.array_equal(np.unique(fast), np.arange(int(fast.max()) + 1))
        if cap:
            assert np.bincount(fast, weights=np.asarray(h.vwgt)).max() <= cap
        q_fast, q_same = modularity(h, fast), modularity(h, same)
        assert q_same > modularity(h, np.arange(h.n)), cap
        assert q_fast >= 0.97 * q_same, (cap, q_fast, q_same)


def test_when_local_moving_is_asynchronous(monkeypatch):
    """True never; False from 2 threads; None (the default) from ``async_louvain_min_threads``
    threads (0: never); the profile marks the levels that ran so."""
    from igpart.kernels import omp_threads
    from igpart.kernels.cpu import CpuBackend

    for many, threads, expected in ((0, 16, [False, True, False]), (2, 1, [False, False, False]),
                                    (2, 2, [False, True, True]), (4, 3, [False, True, False]),
                                    (4, 4, [False, True, True])):  # fmt: skip
        monkeypatch.setattr(CpuBackend, "async_louvain_min_threads", many)
        with omp_threads(threads):
            assert [BE.louvain_is_async(d) for d in (True, False, None)] == expected
    h = _structured(6000, 1)
    with omp_threads(2):
        comm, levels = _louvain(h, profile=True, async_moves=True)
    assert levels[0]["async_moves"] and not levels[0]["sub_rounds"]
    assert all(lv["async_moves"] == (lv["nodes"] >= 4096) for lv in levels)
    last = [p for lv in levels for p in lv["passes"]][-1]
    assert last["modularity"] == pytest.approx(modularity(h, comm), abs=1e-9)
    with omp_threads(1):  # one thread: the sequential passes, whatever was asked
        _, levels = _louvain(h, profile=True, async_moves=True)
    assert not any(lv["async_moves"] for lv in levels)


def test_partition_with_asynchronous_louvain():
    """A partition whose Louvain runs asynchronously (``deterministic=False`` on 2 threads) is
    valid and balanced."""
    h = _structured(12_000, 7)
    p = igpart.partition(h, 8, backend="cpu", seed=1,
                         config={"threads": 2, "deterministic": False})
    assert p.parts.shape == (h.n,) and p.parts.min() >= 0 and p.parts.max() < 8
    assert p.balanced and (p.block_weights <= p.max_block_weight).all()
    assert p.cut == igpart.metrics.cut(h, p.parts)


@pytest.fixture
def cluster_order_run():
    """``_cpu.cluster_order_run`` set by the test (through ``CLUSTER_ORDER_RUN``, which
    ``cluster_hypergraph`` applies) and restored after it."""
    from igpart.kernels import _cpu, cpu

    before, module = _cpu.cluster_order_run(), cpu.CLUSTER_ORDER_RUN

    def set_run(run):
        cpu.CLUSTER_ORDER_RUN = run

    yield set_run
    cpu.CLUSTER_ORDER_RUN = module
    _cpu.set_cluster_order_run(before)


def test_cluster_order_run_is_checked():
    from igpart.kernels import _cpu

    before = _cpu.cluster_order_run()
    try:
        _cpu.set_cluster_order_run(512)
        assert _cpu.cluster_order_run() == 512
        with pytest.raises(ValueError, match="run must be >= 0"):
            _cpu.set_cluster_order_run(-3)
        assert _cpu.cluster_order_run() == 512
    finally:
        _cpu.set_cluster_order_run(before)


def test_cluster_order_runs_act_only_in_the_asynchronous_joins(cluster_order_run):
    """Runs of consecutive ids change only the asynchronous joins' visiting order: the
    sequential clustering and the sub-rounds give the same clusters whatever the run; the
    asynchronous joins in runs keep the weight cap and stop at the target size."""
    from igpart.kernels import omp_threads

    from .util import random_hypergraph

    rng = np.random.default_rng(4)
    be = get_backend("cpu")
    ha = be.hypergraph_arrays(random_hypergraph(rng, 9000, 11000, max_size=5, weighted=True))
    vw = np.asarray(ha.vwgt)
    mcw = int(4 * vw.mean())
    got = {}
    for run in (0, 256):
        cluster_order_run(run)
        with omp_threads(2):
            got[run] = [be.cluster_hypergraph(ha, mcw, max_net_size=50, max_shrink=2.5, seed=7,
                                              sub_rounds=sub)[0] for sub in (0, 16)]
            cmap, nc = be.cluster_hypergraph(ha, mcw, max_net_size=50, max_shrink=2.5, seed=7,
                                             asynchronous=True)
        weight, size = np.bincount(cmap, weights=vw), np.bincount(cmap)
        assert np.array_equal(np.unique(cmap), np.arange(nc))
        assert int(ha.n / 2.5) <= nc < ha.n
        assert np.all((weight <= mcw) | (size == 1))
    for a, b in zip(got[0], got[256]):
        assert np.array_equal(a, b)


def test_sub_round_order_runs_keep_the_clusters_independent_of_the_threads():
    """Runs of consecutive ids in the clustering's synchronous sub-rounds: the same clusters on
    1, 2 and 3 threads, within the weight cap and at the target size; the sequential clustering
    is the same with and without them."""
    from igpart.kernels import _cpu, cpu, omp_threads

    from .util import random_hypergraph

    rng = np.random.default_rng(8)
    be = get_backend("cpu")
    ha = be.hypergraph_arrays(random_hypergraph(rng, 9000, 11000, max_size=5, weighted=True))
    vw = np.asarray(ha.vwgt)
    mcw = int(4 * vw.mean())
    before, module = _cpu.cluster_sub_round_order_run(), cpu.CLUSTER_SUB_ROUND_ORDER_RUN
    try:
        seq = {}
        for run in (0, 256):
            cpu.CLUSTER_SUB_ROUND_ORDER_RUN = run
            seq[run] = be.cluster_hypergraph(ha, mcw, max_net_size=50, max_shrink=2.5, seed=3,
                                             sub_rounds=0)[0]
            maps = []
            for threads in (1, 2, 3):
                with omp_threads(threads):
                    cmap, nc = be.cluster_hypergraph(ha, mcw, max_net_size=50, max_shrink=2.5,
                                                     seed=3, sub_rounds=16)
                weight, size = np.bincount(cmap, weights=vw), np.bincount(cmap)
                assert np.array_equal(np.unique(cmap), np.arange(nc))
                assert int(ha.n / 2.5) <= nc < ha.n
                assert np.all((weight <= mcw) | (size == 1))
                maps.append(cmap)
            assert all(np.array_equal(maps[0], m) for m in maps[1:]), run
            if run:
                assert not np.array_equal(maps[0], first), "the runs changed no cluster"
            else:
                first = maps[0]
        assert np.array_equal(seq[0], seq[256])
    finally:
        cpu.CLUSTER_SUB_ROUND_ORDER_RUN = module
        _cpu.set_cluster_sub_round_order_run(before)


def test_community_levels_kept_start_the_hierarchy(monkeypatch):
    """``Config.community_levels_kept``: the levels coarsened to Louvain's level are the
    partition's first levels (no clustering of the input under the communities), the last of
    them landing near ``community_level_vertices`` and carrying Louvain's communities; each
    level's cluster map ends in the next; the partition is balanced. Without the coarser
    level, with fixed vertices, or off, the hierarchy is made as before."""
    from igpart.generators import random_circuit
    from igpart.partitioner import coarsening, driver, preprocessing

    h = random_circuit(8_000, seed=4)
    made = []
    real = coarsening.coarsen

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        made.append((kwargs.get("prefix"), [list(row) for row in out]))  # as made
        return out

    monkeypatch.setattr(driver, "coarsen", spy)
    called, kept = [], []
    real_detect = preprocessing.detect_communities
    monkeypatch.setattr(driver, "detect_communities",
                        lambda *a, **kw: called.append(1) or real_detect(*a, **kw))
    real_levels = preprocessing.detect_community_levels

    def levels_spy(*a, **kw):
        out = real_levels(*a, **kw)
        kept.append(None if out is None else np.asarray(out[1]).copy())
        return out

    monkeypatch.setattr(driver, "detect_community_levels", levels_spy)
    cfg = {"community_level_vertices": 1_500, "community_levels_kept": True}
    p = igpart.partition(h, 4, backend="cpu", seed=1, config=cfg)
    assert p.balanced and not called
    prefix, hierarchy = made[-1]
    assert prefix and len(hierarchy) > len(prefix)
    for i, (cmap, level) in enumerate(prefix):
        assert hierarchy[i + 1][0] is level
        fine_n = hierarchy[i][0].n
        assert np.asarray(hierarchy[i][1]).shape == (fine_n,)
        assert int(np.asarray(cmap).max()) + 1 == level.n
    last = prefix[-1][1]
    assert 1_500 / 4 <= last.n <= 1_500
    from igpart.partitioner.context import hypergraph_cluster_weight, resolve

    cfg_r = resolve(igpart.Config(**cfg), igpart.kernels.get_backend("cpu"), h, 4)
    cap = hypergraph_cluster_weight(cfg_r, h.total_weight, 4, h.total_weight)
    for _, level in prefix:  # within the partition's cluster weight cap (or a lone vertex)
        assert int(np.asarray(level.vwgt).max()) <= max(cap, int(np.asarray(h.vwgt).max()))
    # the coarser levels keep their clusters within the communities of the last level made
    # before: the coarsest level's labels map back through the cluster maps to Louvain's
    labels = hierarchy[-1][2]
    for row in reversed(hierarchy[len(prefix):-1]):
        labels = np.asarray(labels)[np.asarray(row[1])]
    assert len(kept) == 1 and kept[0].shape == (last.n,)
    np.testing.assert_array_equal(labels, kept[0])
    # off, or Louvain on the input itself: the hierarchy is made as before
    # ... and with a level below the coarsest one the partition asks (40 x k vertices)
    for cfg in ({"community_level_vertices": 1_500},
                {"community_level_vertices": 0, "community_levels_kept": True},
                {"community_level_vertices": 150, "community_levels_kept": True}):
        made.clear()
        called.clear()
        assert igpart.partition(h, 4, backend="cpu", seed=1, config=cfg).balanced
        assert made[-1][0] is None and called
    # fixed vertices: not kept
    made.clear()
    fixed = np.full(h.n, -1)
    fixed[:40] = np.arange(40) % 4
    q = igpart.partition(h, 4, backend="cpu", seed=1, fixed=fixed,
                         config={"community_level_vertices": 1_500,
                                 "community_levels_kept": True})
    assert q.balanced and np.array_equal(q.parts[:40], fixed[:40]) and made[-1][0] is None
    with pytest.raises(igpart.InputError, match="community_levels_kept"):
        igpart.Config(community_levels_kept=1).validate()
    with pytest.raises(ValueError, match="fixed"):
        coarsening.coarsen(h, lambda a: a.n, None, None, 10, 0.05, 10, None,
                           fixed=np.zeros(h.n), prefix=[(None, h)])
