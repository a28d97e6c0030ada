"""The GPU rating kernels (``hg_rate``, ``cluster_rate``) against a plain-Python oracle of the
HyperG heavy-edge rating: every vertex's chosen neighbour, exactly, including vertices with more
than 32 nets, nets larger than a warp, vertices with more neighbours than the kernels' hash table
holds (their merge path) and net weights large enough to lower the fixed-point scale, with
those vertices rated in shared memory or by the ``*_heavy`` kernels (tables in global memory,
``GpuBackend(rating_heavy_slots=...)``). Marker ``gpu``."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import Hypergraph
from igpart.kernels import get_backend

from .jet_oracle import tie_hash

pytestmark = pytest.mark.gpu


#: ``IGP_WINDOW_SALT`` of coarsen.cu: the seed of the rating windows' start positions
WINDOW_SALT = 0x5A17


def nets_and_incidence(h):
    """Every net's distinct pins in stored order, and every vertex's nets."""
    nets = [list(dict.fromkeys(int(v) for v in h.net(e))) for e in range(h.m)]
    incident = [[] for _ in range(h.n)]
    for e, pins in enumerate(nets):
        for v in pins:
            incident[v].append(e)
    return nets, incident


def oracle_best(h, max_net_size, seed, ok, shift, window=0):
    """Best neighbour of every vertex: highest summed (w << shift) // (|e|-1) over shared nets
    of 2..max pins (the kernels' fixed point, compared as doubles), then the lighter (``ok``
    returns the weight, or None to reject), then the smaller hash, then the smaller id; -1 when
    none. ``window`` > 0: through a net of more pins, u sees only ``window`` of them, from
    position tie_hash(WINDOW_SALT, u, e) mod |e| of the net's stored pins on (cyclically)."""
    nets, incident = nets_and_incidence(h)
    best = np.full(h.n, -1, dtype=np.int64)
    for u in range(h.n):
        score: dict[int, float] = {}
        for e in incident[u]:
            size = len(nets[e])
            if size < 2 or size > max_net_size:
                continue
            seen = nets[e]
            if 0 < window < size:
                start = tie_hash(WINDOW_SALT, u, e) % size
                seen = [seen[(start + t) % size] for t in range(window)]
            for v in seen:
                if v != u:
                    score[v] = score.get(v, 0) + (int(h.ewgt[e]) << shift) // (size - 1)
        cands = []
        for v, sc in score.items():
            w = ok(u, v)
            if w is not None and sc > 0:
                cands.append((-float(sc), w, tie_hash(seed, u, v), v))
        if cands:
            best[u] = min(cands)[3]
    return best


def oracle_cluster_best(h, max_net_size, seed, rep, cw, csize, mcw, smax, shift):
    """The choice of every lone vertex (its own representative, one member) with the clusters'
    ratings: the summed fixed-point terms of every member it shares nets of 2..max pins with,
    per representative; then the lighter cluster, the smaller hash, the smaller representative;
    clusters with room only (weight <= mcw with u, fewer than smax members); -1 otherwise."""
    nets, incident = nets_and_incidence(h)
    vw = np.asarray(h.vwgt)
    best = np.full(h.n, -1, dtype=np.int64)
    for u in range(h.n):
        if rep[u] != u or csize[u] != 1 or vw[u] > mcw:
            continue
        score: dict[int, int] = {}
        for e in incident[u]:
            size = len(nets[e])
            if size < 2 or size > max_net_size:
                continue
            for v in nets[e]:
                if v != u:
                    r = int(rep[v])
                    score[r] = score.get(r, 0) + (int(h.ewgt[e]) << shift) // (size - 1)
        cands = [(-float(sc), int(cw[r]), tie_hash(seed, u, r), r) for r, sc in score.items()
                 if sc > 0 and cw[r] + vw[u] <= mcw and csize[r] < smax]
        if cands:
            best[u] = min(cands)[3]
    return best


def hub_hypergraph(seed: int, heavy: bool = False) -> Hypergraph:
    """Random nets of 2..6 pins, a few nets of 40-90 pins, one of 300 (its pins have more
    neighbours than the kernels' table of 256) and hub vertices on 40-80 nets; ``heavy``: net
    weights up to 2^40 (the rating's fixed-point scale drops below 32 bits)."""
    rng = np.random.default_rng(seed)
    n = 400
    nets = [rng.choice(n, size=int(rng.integers(2, 7)), replace=False) for _ in range(700)]
    nets += [rng.choice(n, size=int(rng.integers(40, 90)), replace=False) for _ in range(4)]
    nets.append(rng.choice(n, size=300, replace=False))
    for hub in rng.choice(n, size=5, replace=False):
        for _ in range(int(rng.integers(40, 80))):
            nets.append(np.append(rng.choice(n, size=int(rng.integers(1, 4))), hub))
    vw = rng.integers(1, 6, size=n)
    ew = rng.integers(1, 2**40 if heavy else 9, size=len(nets))
    return Hypergraph.from_nets(nets, n=n, vwgt=vw, ewgt=ew)


def wide_hypergraph(seed: int) -> Hypergraph:
    """Nets of 2..6 pins over 1,500 vertices and two nets of 700 and 900 pins: their pins have
    more neighbours than a heavy table of 512 slots holds (its multi-pass path)."""
    rng = np.random.default_rng(seed)
    n = 1500
    nets = [rng.choice(n, size=int(rng.integers(2, 7)), replace=False) for _ in range(2500)]
    nets += [rng.choice(n, size=700, replace=False), rng.choice(n, size=900, replace=False)]
    return Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 4, size=n),
                                ewgt=rng.integers(1, 9, size=len(nets)))


def heavy_of(ha, max_net_size: int, slots: int):
    """The launchers' HeavyRating of ``ha`` (None with ``slots`` 0)."""
    from igpart.kernels.gpu._hypergraph import HeavyRating

    heavy = HeavyRating.of(ha, max_net_size, slots)
    assert heavy is None or (slots > 0 and heavy.ids.size > 0)
    return heavy


def hg_rate(ha, mcw, max_net_size, shift, seed, best, heavy, window=0):
    """``hg_rate`` (``hg_rate_windowed`` with a ``window``), then ``hg_rate_heavy`` on the
    heavy vertices (as ``_hypergraph.coarsen``)."""
    from igpart.kernels.gpu._common import NULL, i32, i64, launch

    n = ha.n
    launch("coarsen", "hg_rate_windowed" if window else "hg_rate", n, (
        i64(n), ha.eptr, ha.eind, ha.ewgt, ha.vptr, ha.vind, ha.vwgt, i64(mcw), i64(max_net_size),
        i32(shift), NULL, i64(seed), best, NULL if heavy is None else heavy.flags, i64(window)),
           warps=True)  # fmt: skip
    if heavy is not None:
        launch("coarsen", "hg_rate_heavy", heavy.warps, (
            i64(heavy.ids.size), heavy.ids, ha.eptr, ha.eind, ha.ewgt, ha.vptr, ha.vind,
            ha.vwgt, i64(mcw), i64(max_net_size), i32(shift), NULL, i64(seed), best,
            heavy.key, heavy.val, i32(heavy.bits), i64(window)), warps=True)  # fmt: skip


def cluster_rate(ha, rep, cw, csize, single, mcw, shift, seed, prev, uniq, best, joined, heavy,
                 keep_ties=False, window=0, by_cluster=False):
    """``cluster_rate`` (at most 8 members, nets up to 1000 pins; ``cluster_rate_windowed``
    with a ``window``), then ``cluster_rate_heavy`` on the heavy vertices (as
    ``_hypergraph.cluster``); ``by_cluster``: the clusters' summed ratings."""
    from igpart.kernels.gpu._common import NULL, i32, i64, launch

    n = ha.n
    common = (ha.eptr, ha.eind, ha.ewgt, ha.vptr, ha.vind, ha.vwgt, rep, cw, csize, single,
              i64(mcw), i32(8), i64(1000), i32(shift), NULL, i64(seed), i32(0), prev, uniq,
              i32(int(keep_ties)), best)
    launch("coarsen", "cluster_rate_windowed" if window else "cluster_rate", n,
           (i64(n), *common, joined, NULL if heavy is None else heavy.flags, i64(window),
            i32(int(by_cluster))), warps=True)
    if heavy is not None:
        launch("coarsen", "cluster_rate_heavy", heavy.warps,
               (i64(heavy.ids.size), heavy.ids, *common, heavy.key, heavy.val, i32(heavy.bits),
                i64(window), i32(int(by_cluster))), warps=True)


@pytest.mark.parametrize("slots", [0, 512, 4096])
@pytest.mark.parametrize("seed,heavy", [(0, False), (1, False), (2, True)])
@pytest.mark.parametrize("max_net_size", [1000, 50])
def test_hg_rate_equals_the_oracle(seed, heavy, max_net_size, slots):
    import cupy as cp

    from igpart.kernels.gpu._hypergraph import rating_shift

    gpu = get_backend("gpu")
    h = hub_hypergraph(seed, heavy)
    ha = gpu.hypergraph_arrays(h)
    shift = rating_shift(ha)
    total = int(np.asarray(h.ewgt).sum())
    assert (total << shift) < 2**62 and (shift == 32 or (total << (shift + 1)) >= 2**62)
    assert (shift < 32) == heavy
    mcw = 7
    best = cp.empty(h.n, dtype=cp.int32)
    hv = heavy_of(ha, max_net_size, slots)
    hg_rate(ha, mcw, max_net_size, shift, seed, best, hv)
    vw = np.asarray(h.vwgt)

    def ok(u, v):
        return int(vw[v]) if vw[u] + vw[v] <= mcw else None

    want = oracle_best(h, max_net_size, seed, ok, shift)
    want[vw > mcw] = -1
    assert (np.asarray(h.vptr[1:] - h.vptr[:-1]) > 32).any()  # the chunked path is exercised
    assert slots == 0 or max_net_size < 300 or hv is not None  # the 300-pin net's pins are heavy
    np.testing.assert_array_equal(best.get(), want)


def test_rating_of_vertices_beyond_every_table_equals_the_oracle():
    """Pins of nets of 700 and 900 pins have more neighbours than a shared table (256) and a
    heavy table of 512 slots hold: both rate them in several passes, with the oracle's choices;
    with 4,096 slots (one pass) the same."""
    import cupy as cp

    from igpart.kernels.gpu._hypergraph import rating_shift

    gpu = get_backend("gpu")
    h = wide_hypergraph(5)
    ha = gpu.hypergraph_arrays(h)
    shift = rating_shift(ha)
    mcw = 5
    vw = np.asarray(h.vwgt)

    def ok(u, v):
        return int(vw[v]) if vw[u] + vw[v] <= mcw else None

    want = oracle_best(h, 1000, 7, ok, shift)
    want[vw > mcw] = -1
    for s in (0, 512, 4096):
        hv = heavy_of(ha, 1000, s)
        assert hv is None or (hv.bits == s.bit_length() - 1 and hv.ids.size > 900)
        best = cp.empty(h.n, dtype=cp.int32)
        hg_rate(ha, mcw, 1000, shift, 7, best, hv)
        np.testing.assert_array_equal(best.get(), want)


@pytest.mark.parametrize("slots", [0, 1024])
@pytest.mark.parametrize("seed,heavy", [(3, False), (4, True)])
def test_cluster_rate_equals_the_oracle_on_singletons(seed, heavy, slots):
    import cupy as cp

    from igpart.kernels.gpu._common import NULL
    from igpart.kernels.gpu._hypergraph import rating_shift

    gpu = get_backend("gpu")
    h = hub_hypergraph(seed, heavy)
    ha = gpu.hypergraph_arrays(h)
    shift = rating_shift(ha)
    hv = heavy_of(ha, 1000, slots)
    n, mcw = h.n, 8
    rep = cp.arange(n, dtype=cp.int32)
    csize = cp.ones(n, dtype=cp.int32)
    single = cp.zeros(n, dtype=cp.bool_)  # the kernel writes who is alone
    joined = cp.full(1, 5, dtype=cp.int32)  # and zeroes cluster_join's counter
    best = cp.empty(n, dtype=cp.int32)
    cluster_rate(ha, rep, ha.vwgt.copy(), csize, single, mcw, shift, seed, NULL, NULL,
                 best, joined, hv)
    vw = np.asarray(h.vwgt)

    def ok(u, v):
        return int(vw[v]) if vw[u] + vw[v] <= mcw else None

    want = oracle_best(h, 1000, seed, ok, shift)
    want[vw > mcw] = -1
    np.testing.assert_array_equal(best.get(), want)
    assert single.get().all() and int(joined[0]) == 0

    # a later round after some clusters formed: with prev (the first round's choices, in place)
    # and uniq, the same choices as rating every lone vertex again
    def rate(cw, csize, single, prev, uniq, out):
        cluster_rate(ha, rep_c, cw, csize, single, mcw, shift, seed, prev, uniq, out, joined, hv)

    rng = np.random.default_rng(seed)
    rep_c = cp.arange(n, dtype=cp.int32)
    uniq = cp.zeros(n, dtype=cp.int8)
    first = cp.empty(n, dtype=cp.int32)
    rate(ha.vwgt.copy(), csize, single, NULL, uniq, first)
    np.testing.assert_array_equal(first.get(), want)  # uniq does not change the choices
    ids = np.arange(n)
    grown = rng.permutation(n)[: n // 3]  # these vertices join clusters of 2..5 members
    r_h = ids.copy()
    r_h[grown] = grown[rng.integers(0, max(1, n // 12), grown.size)]
    r_h[r_h[grown]] = r_h[grown]
    cw_h = np.bincount(r_h, weights=np.asarray(h.vwgt), minlength=n).astype(np.int64)
    size_h = np.bincount(r_h, minlength=n).astype(np.int32)
    rep_c = cp.asarray(r_h.astype(np.int32))
    args = (cp.asarray(cw_h), cp.asarray(size_h), cp.zeros(n, dtype=cp.bool_))
    again = cp.empty(n, dtype=cp.int32)
    rate(*args, NULL, NULL, again)
    np.testing.assert_array_equal(args[2].get(), (r_h == ids) & (size_h == 1))
    uniq0 = uniq.copy()
    kept = first.copy()
    rate(*args, kept, uniq, kept)
    np.testing.assert_array_equal(kept.get(), again.get())
    u = uniq.get().astype(bool)
    assert u.any() and (~u & (want >= 0)).any()

    # keep_ties: a lone vertex keeps its first choice while that cluster has room, tied or not;
    # the others are rated again
    sticky = first.copy()
    cluster_rate(ha, rep_c, *args, mcw, shift, seed, sticky, uniq0, sticky, joined, hv,
                 keep_ties=True)
    f = first.get()
    target = r_h[np.maximum(f, 0)]
    room = (f >= 0) & (cw_h[target] + vw <= mcw) & (size_h[target] < 8)
    lone = (r_h == ids) & (size_h == 1)
    expect = np.where(lone & (f < 0), -1, np.where(lone & room, f, again.get()))
    np.testing.assert_array_equal(sticky.get(), expect)
    assert (lone & room).any() and (lone & ~room & (f >= 0)).any()

    # by_cluster: the lone vertices rate clusters by the summed terms of their members
    by = cp.empty(n, dtype=cp.int32)
    cluster_rate(ha, rep_c, *args, mcw, shift, seed, NULL, NULL, by, joined, hv, by_cluster=True)
    want_c = oracle_cluster_best(h, 1000, seed, r_h, cw_h, size_h, mcw, 8, shift)
    np.testing.assert_array_equal(by.get(), want_c)
    alone = again.get()  # each neighbour alone: the clusters those choices name
    named = np.where(alone >= 0, r_h[np.maximum(alone, 0)], -1)
    assert (want_c >= 0).any() and (want_c != named).any()


@pytest.mark.parametrize("window", [32, 100])
def test_windowed_rating_equals_the_oracle(window):
    """GpuBackend(rating_window=...): through nets of more pins than the window (40-90, 300,
    700 and 900 pins here) a vertex rates only the window's pins, with the net's full term;
    both kernels and the heavy path match the oracle; nets within the window are rated whole
    (the same choices as without windows where no net is larger)."""
    import cupy as cp

    from igpart.kernels.gpu._common import NULL
    from igpart.kernels.gpu._hypergraph import HeavyRating, rating_shift

    gpu = get_backend("gpu")
    mcw = 7
    differs = []
    for h in (hub_hypergraph(8), wide_hypergraph(9)):
        ha = gpu.hypergraph_arrays(h)
        shift = rating_shift(ha)
        weights = np.asarray(h.vwgt)

        def ok(u, v, vw=weights):
            return int(vw[v]) if vw[u] + vw[v] <= mcw else None

        want = oracle_best(h, 1000, 2, ok, shift, window)
        want[np.asarray(h.vwgt) > mcw] = -1
        if h.n < 1000:
            differs.append((want != oracle_best(h, 1000, 2, ok, shift)).any())
        for slots in (0, 4096):
            hv = HeavyRating.of(ha, 1000, slots, window)
            assert hv is None or int(hv.ids.size) > 0
            best = cp.empty(h.n, dtype=cp.int32)
            hg_rate(ha, mcw, 1000, shift, 2, best, hv, window)
            np.testing.assert_array_equal(best.get(), want)
            n = h.n
            best.fill(-2)
            single = cp.zeros(n, dtype=cp.bool_)
            joined = cp.zeros(1, dtype=cp.int32)
            cluster_rate(ha, cp.arange(n, dtype=cp.int32), ha.vwgt.copy(),
                         cp.ones(n, dtype=cp.int32), single, mcw, shift, 2, NULL, NULL, best,
                         joined, hv, window=window)
            np.testing.assert_array_equal(best.get(), want)
    assert all(differs)  # the windows change some choices


@pytest.mark.parametrize("coarsening", ["cluster", "groups"])
def test_heavy_tables_give_the_same_clusters(coarsening):
    """GpuBackend(rating_heavy_slots=...) changes where the heavy vertices are rated, not what
    they choose: with the seeded joins (deterministic) the same clusters and groups, on a level
    with communities, and the levels Louvain's level is clustered down through."""
    from igpart.kernels.gpu import GpuBackend

    h = wide_hypergraph(6)
    plain = GpuBackend(deterministic=True, community_host_max=300)
    wide = GpuBackend(deterministic=True, community_host_max=300, rating_heavy_slots=2048)
    assert wide.rating_heavy_slots == 2048 and plain.rating_heavy_slots == 0
    comm = np.arange(h.n) % 3
    out = []
    for be in (plain, wide):
        ha = be.hypergraph_arrays(h)
        if coarsening == "cluster":
            cmap, nc = be.cluster_hypergraph(ha, 12, communities=comm, max_shrink=2.0, seed=3)
            c2 = be.communities(ha, max_net_size=1000, seed=3, k=2)
            out.append((np.asarray(cmap.get()), nc, np.asarray(c2.get())))
        else:
            cmap, nc = be.coarsen_hypergraph(ha, 12, communities=comm, seed=3)
            out.append((np.asarray(cmap.get()), nc, None))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][1] == out[1][1] < h.n
    if out[0][2] is not None:
        np.testing.assert_array_equal(out[0][2], out[1][2])


@pytest.mark.parametrize("slots", [256, 3000, 1 << 17, -1])
def test_rating_heavy_slots_must_be_a_power_of_two_in_range(slots):
    from igpart.kernels.gpu import GpuBackend

    with pytest.raises(ValueError, match="rating_heavy_slots"):
        GpuBackend(rating_heavy_slots=slots)
    with pytest.raises(ValueError, match="rating_window"):
        GpuBackend(rating_window=31)


@pytest.mark.gpu
def test_a_vertex_on_more_nets_than_the_rating_takes_does_not_choose():
    """A hub on 16,385 2-pin nets (a graph's star centre as a hypergraph) is not rated: its best
    is -1 (its neighbours still choose it); every other vertex gets the oracle's choice."""
    import cupy as cp

    import igpart
    from igpart.kernels.gpu._hypergraph import rating_shift

    rng = np.random.default_rng(3)
    n, hub = 20_000, 0
    leaves = rng.choice(np.arange(1, n), size=16_385, replace=False)
    nets = [[hub, int(v)] for v in leaves]
    nets += [rng.choice(np.arange(1, n), size=int(rng.integers(2, 5)), replace=False)
             for _ in range(3000)]
    h = Hypergraph.from_nets(nets, n=n, vwgt=np.ones(n, dtype=np.int64),
                             ewgt=rng.integers(1, 9, size=len(nets)))
    gpu = get_backend("gpu")
    ha = gpu.hypergraph_arrays(h)
    shift = rating_shift(ha)

    def ok(u, v):
        return 1

    want = oracle_best(h, 1000, 5, ok, shift)
    want[hub] = -1
    best = cp.empty(h.n, dtype=cp.int32)
    hg_rate(ha, 10, 1000, shift, 5, best, None)
    np.testing.assert_array_equal(best.get(), want)
    assert (best.get()[leaves] == hub).mean() > 0.5  # the leaves still choose the hub
    p = igpart.partition(h, 4, backend="gpu")
    assert igpart.is_balanced(h, np.asarray(p.parts), 4, 0.03)
