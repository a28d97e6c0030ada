"""The GPU rating kernels (``hg_rate``, ``cluster_rate``) against a plain-Python oracle of the
HyperG heavy-edge rating: every vertex's chosen neighbour, exactly, including vertices with more
than 32 nets, nets larger than a warp, vertices with more neighbours than the kernels' hash table
holds (their merge path) and net weights large enough to lower the fixed-point scale. Marker
``gpu``."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import Hypergraph
from igpart.kernels import get_backend

from .jet_oracle import tie_hash

pytestmark = pytest.mark.gpu


def oracle_best(h, max_net_size, seed, ok, shift):
    """Best neighbour of every vertex: highest summed (w << shift) // (|e|-1) over shared nets
    of 2..max pins (the kernels' fixed point, compared as doubles), then the lighter (``ok``
    returns the weight, or None to reject), then the smaller hash, then the smaller id; -1 when
    none."""
    nets = [sorted(set(int(v) for v in h.net(e))) for e in range(h.m)]
    incident = [[] for _ in range(h.n)]
    for e, pins in enumerate(nets):
        for v in pins:
            incident[v].append(e)
    best = np.full(h.n, -1, dtype=np.int64)
    for u in range(h.n):
        score: dict[int, float] = {}
        for e in incident[u]:
            size = len(nets[e])
            if size < 2 or size > max_net_size:
                continue
            for v in nets[e]:
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


@pytest.mark.parametrize("seed,heavy", [(0, False), (1, False), (2, True)])
@pytest.mark.parametrize("max_net_size", [1000, 50])
def test_hg_rate_equals_the_oracle(seed, heavy, max_net_size):
    import cupy as cp

    from igpart.kernels.gpu._common import NULL, i32, i64, launch
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
    launch("coarsen", "hg_rate", h.n, (i64(h.n), ha.eptr, ha.eind, ha.ewgt, ha.vptr, ha.vind,
                                       ha.vwgt, i64(mcw), i64(max_net_size), i32(shift), NULL,
                                       i64(seed), best), warps=True)  # fmt: skip
    vw = np.asarray(h.vwgt)

    def ok(u, v):
        return int(vw[v]) if vw[u] + vw[v] <= mcw else None

    want = oracle_best(h, max_net_size, seed, ok, shift)
    want[vw > mcw] = -1
    assert (np.asarray(h.vptr[1:] - h.vptr[:-1]) > 32).any()  # the chunked path is exercised
    np.testing.assert_array_equal(best.get(), want)


@pytest.mark.parametrize("seed,heavy", [(3, False), (4, True)])
def test_cluster_rate_equals_the_oracle_on_singletons(seed, heavy):
    import cupy as cp

    from igpart.kernels.gpu._common import NULL, i32, i64, launch
    from igpart.kernels.gpu._hypergraph import rating_shift

    gpu = get_backend("gpu")
    h = hub_hypergraph(seed, heavy)
    ha = gpu.hypergraph_arrays(h)
    shift = rating_shift(ha)
    n, mcw = h.n, 8
    rep = cp.arange(n, dtype=cp.int32)
    csize = cp.ones(n, dtype=cp.int32)
    single = cp.zeros(n, dtype=cp.bool_)  # the kernel writes who is alone
    joined = cp.full(1, 5, dtype=cp.int32)  # and zeroes cluster_join's counter
    best = cp.empty(n, dtype=cp.int32)
    launch(
        "coarsen",
        "cluster_rate",
        n,
        (
            i64(n),
            ha.eptr,
            ha.eind,
            ha.ewgt,
            ha.vptr,
            ha.vind,
            ha.vwgt,
            rep,
            ha.vwgt.copy(),
            csize,
            single,
            i64(mcw),
            i32(8),
            i64(1000),
            i32(shift),
            NULL,
            i64(seed),
            i32(0),
            NULL,
            NULL,
            best,
            joined,
        ),
        warps=True,
    )
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
        launch("coarsen", "cluster_rate", n, (
            i64(n), ha.eptr, ha.eind, ha.ewgt, ha.vptr, ha.vind, ha.vwgt, rep_c, cw, csize,
            single, i64(mcw), i32(8), i64(1000), i32(shift), NULL, i64(seed), i32(0), prev,
            uniq, out, joined), warps=True)  # fmt: skip

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
    kept = first.copy()
    rate(*args, kept, uniq, kept)
    np.testing.assert_array_equal(kept.get(), again.get())
    u = uniq.get().astype(bool)
    assert u.any() and (~u & (want >= 0)).any()
