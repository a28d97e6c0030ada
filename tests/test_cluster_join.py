"""The deterministic join step of the parallel clustering (igpart.kernels.cluster_join), checked
with numpy against a sequential reference of the same rules (the GPU runs it on CuPy arrays)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from igpart.kernels.cluster_join import join_round, vertex_keys


def reference(best, single, vwgt, rep, cw, csize, max_weight, max_size, budget, seed):
    """The rules of join_round, one vertex at a time."""
    n = len(best)
    key = vertex_keys(np, np.arange(n), seed)
    rank = {u: (int(key[u]), u) for u in range(n)}
    pairs = [u for u in range(n) if single[u] and best[u] >= 0 and single[best[u]]
             and best[best[u]] == u and u < best[u]]
    requests: dict[int, list[int]] = {}
    for u in range(n):
        if single[u] and best[u] >= 0 and not single[best[u]]:
            requests.setdefault(int(rep[best[u]]), []).append(u)
    granted = {}
    for r, us in requests.items():
        weight, size = int(cw[r]), int(csize[r])
        for u in sorted(us, key=rank.get):
            if weight + int(vwgt[u]) > max_weight or size + 1 > max_size:
                break
            weight, size = weight + int(vwgt[u]), size + 1
            granted[u] = r
    events = sorted(pairs + list(granted), key=rank.get)[: max(budget, 0)]
    rep, cw, csize = rep.copy(), cw.copy(), csize.copy()
    for u in events:
        if u in granted:
            r = granted[u]
            rep[u] = r
            cw[r] += vwgt[u]
            csize[r] += 1
        else:
            v = int(best[u])
            rep[v] = u
            csize[u] = 2
            cw[u] = vwgt[u] + vwgt[v]
    return len(events), rep, cw, csize


def random_state(rng, n):
    """A clustering in progress: some clusters (rep = root), lone vertices, choices."""
    rep = np.arange(n, dtype=np.int32)
    roots = rng.choice(n, size=max(1, n // 5), replace=False)
    for u in range(n):
        if rng.random() < 0.4 and u not in roots:
            rep[u] = rng.choice(roots)
    vwgt = rng.integers(1, 5, n).astype(np.int64)
    cw = np.zeros(n, dtype=np.int64)
    np.add.at(cw, rep, vwgt)
    csize = np.bincount(rep, minlength=n).astype(np.int32)
    single = (rep == np.arange(n)) & (csize == 1)
    best = rng.integers(-1, n, n).astype(np.int32)
    best[best == np.arange(n)] = -1
    # mutual choices among lone vertices, so that pairs occur
    lone = np.flatnonzero(single)
    rng.shuffle(lone)
    for a, b in zip(lone[0:20:2], lone[1:20:2]):
        best[a], best[b] = b, a
    return best, single, vwgt, rep, cw, csize


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 120), st.integers(1, 40), st.integers(2, 9),
       st.integers(0, 200))
def test_join_round_equals_the_sequential_reference(seed, n, max_weight, max_size, budget):
    rng = np.random.default_rng(seed)
    best, single, vwgt, rep, cw, csize = random_state(rng, n)
    ref = reference(best, single, vwgt, rep, cw, csize, max_weight, max_size, budget, seed)
    out = rep.copy(), cw.copy(), csize.copy()
    j = join_round(np, best, single, vwgt, *out, max_weight, max_size, budget, seed, np.add.at)
    assert j == ref[0] <= budget
    for got, want in zip(out, ref[1:]):
        np.testing.assert_array_equal(got, want)
    # every representative is its own representative, and weights / sizes are the clusters'
    rep2, cw2, csize2 = out
    assert np.all(rep2[rep2] == rep2)
    roots = np.flatnonzero(rep2 == np.arange(n))
    np.testing.assert_array_equal(np.bincount(rep2, minlength=n)[roots], csize2[roots])
    np.testing.assert_array_equal(np.bincount(rep2, weights=vwgt, minlength=n)[roots], cw2[roots])
    # clusters grown this round respect the bounds
    grown = roots[csize2[roots] > csize[roots]]
    assert np.all((cw2[grown] <= max(max_weight, 0)) | (csize[grown] == 1))
    assert np.all(csize2[grown] <= max(max_size, 2))


def test_join_round_grants_the_prefix_that_fits_in_hash_order():
    """Five lone vertices choose the members of one cluster of weight 1 and size 1 (max 3
    members, weight 10): the two first in hash order join, whatever their ids."""
    n = 7
    rep = np.array([0, 0, 2, 3, 4, 5, 6], dtype=np.int32)  # cluster {0, 1}
    rep[1] = 0
    vwgt = np.ones(n, dtype=np.int64)
    cw = np.array([2, 1, 1, 1, 1, 1, 1], dtype=np.int64)
    csize = np.array([2, 1, 1, 1, 1, 1, 1], dtype=np.int32)
    single = (rep == np.arange(n)) & (csize == 1)
    best = np.array([-1, -1, 0, 1, 0, 1, 0], dtype=np.int32)
    for seed in range(5):
        r2, c2, s2 = rep.copy(), cw.copy(), csize.copy()
        j = join_round(np, best, single, vwgt, r2, c2, s2, 10, 3, 100, seed, np.add.at)
        key = vertex_keys(np, np.arange(n), seed)
        winner = min(range(2, 7), key=lambda u: (int(key[u]), u))
        assert j == 1 and s2[0] == 3 and c2[0] == 3 and r2[winner] == 0
        assert sorted(np.flatnonzero(r2 == 0).tolist()) == [0, 1, winner]


def test_join_round_keeps_the_budget():
    n = 40
    best = np.arange(n, dtype=np.int32) ^ 1  # 20 mutual pairs
    single = np.ones(n, dtype=bool)
    rep = np.arange(n, dtype=np.int32)
    cw = np.ones(n, dtype=np.int64)
    csize = np.ones(n, dtype=np.int32)
    j = join_round(np, best, single, cw.copy(), rep, cw, csize, 10, 8, 7, 3, np.add.at)
    assert j == 7 and int((rep != np.arange(n)).sum()) == 7


@pytest.mark.parametrize("seed", [0, 1])
def test_vertex_keys_are_seeded(seed):
    a = vertex_keys(np, np.arange(1000), seed)
    b = vertex_keys(np, np.arange(1000), seed + 1)
    assert a.dtype == np.uint64 and len(np.unique(a)) == 1000 and np.any(a != b)
