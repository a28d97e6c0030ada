"""Metrics against a brute-force oracle; balance rules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from igpart import Graph, InputError, metrics

from .util import oracle_metrics, random_hypergraph


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 30),
    m=st.integers(0, 40),
    k=st.integers(1, 6),
    weighted=st.booleans(),
)
def test_hypergraph_metrics_match_oracle(seed, n, m, k, weighted):
    rng = np.random.default_rng(seed)
    h = random_hypergraph(rng, n, m, weighted=weighted)
    parts = rng.integers(0, k, size=n)
    cut, km1, soed, bw = oracle_metrics(h, parts, k)
    assert metrics.cut(h, parts, k) == cut
    assert metrics.km1(h, parts, k) == km1
    assert metrics.soed(h, parts, k) == soed
    assert list(metrics.block_weights(h, parts, k)) == bw
    ev = metrics.evaluate(h, parts, k, 0.1)
    assert (ev["cut"], ev["km1"], ev["soed"]) == (cut, km1, soed)
    total = sum(bw)
    perfect = -(-total // k)
    assert ev["max_block_weight"] == math.floor(1.1 * perfect + 1e-9)
    assert ev["balanced"] == (max(bw) <= ev["max_block_weight"])
    if perfect:
        assert ev["imbalance"] == pytest.approx(max(bw) / perfect - 1)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 25), k=st.integers(1, 5))
def test_edge_cut_matches_oracle_and_two_pin_hypergraph(seed, n, k):
    rng = np.random.default_rng(seed)
    iu = np.triu_indices(n, 1)
    keep = rng.random(iu[0].size) < 0.3
    u, v = iu[0][keep], iu[1][keep]
    w = rng.integers(1, 5, size=u.size)
    g = Graph.from_edges(u, v, w, n=n)
    parts = rng.integers(0, k, size=n)
    expect = int(sum(int(wi) for a, b, wi in zip(u, v, w) if parts[a] != parts[b]))
    assert metrics.edge_cut(g, parts) == expect
    assert metrics.cut(g.to_hypergraph(), parts, k) == expect
    assert metrics.km1(g.to_hypergraph(), parts, k) == expect


def test_max_block_weight_rule():
    assert metrics.max_block_weight(100, 2, 0.03) == 51  # floor(1.03 * 50)
    assert metrics.max_block_weight(101, 2, 0.0) == 51  # ceil(101 / 2)
    assert metrics.max_block_weight(12752, 2, 0.03) == 6567
    assert metrics.max_block_weight(100, 1, 0.29) == 129  # no float truncation to 128
    with pytest.raises(InputError):
        metrics.max_block_weight(10, 0, 0.03)
    with pytest.raises(InputError):
        metrics.max_block_weight(10, 2, -0.1)


def test_bad_partition_vectors():
    from igpart import Hypergraph

    h = Hypergraph.from_nets([[0, 1], [1, 2]])
    with pytest.raises(InputError, match="one per vertex"):
        metrics.cut(h, [0, 1], 2)
    with pytest.raises(InputError, match="below|< k"):
        metrics.cut(h, [0, 1, 2], 2)
    with pytest.raises(InputError, match="negative"):
        metrics.cut(h, [0, -1, 1], 2)
    with pytest.raises(InputError, match="integers"):
        metrics.cut(h, [0.5, 1, 1], 2)


def test_objectives_on_many_nets_match_numpy():
    """The one-pass C++ objectives on an input large enough for its parallel loop, against
    lambda recomputed by numpy from the pins (unweighted and weighted nets)."""
    from igpart import Hypergraph
    from igpart.kernels import _cpu

    rng = np.random.default_rng(7)
    n, m = 20_000, 120_000
    sizes = rng.integers(1, 9, size=m)
    eptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    eind = rng.integers(0, n, size=int(eptr[-1])).astype(np.int32)
    for k in (2, 7, 64):
        ewgt = rng.integers(1, 1000, size=m)
        h = Hypergraph(eptr, eind, n, ewgt=ewgt)
        parts = rng.integers(0, k, size=n).astype(np.int32)
        net_of = np.repeat(np.arange(m), sizes)
        pairs = np.unique(net_of.astype(np.int64) * k + parts[eind])
        lam = np.bincount(pairs // k, minlength=m)
        w = h.ewgt
        expect = (int(w[lam > 1].sum()), int((w * (lam - 1)).sum()), int((w * lam)[lam > 1].sum()))
        assert (metrics.cut(h, parts, k), metrics.km1(h, parts, k),
                metrics.soed(h, parts, k)) == expect
        ev = metrics.evaluate(h, parts, k)
        assert (ev["cut"], ev["km1"], ev["soed"]) == expect
        assert list(ev["block_weights"]) == list(np.bincount(parts, minlength=k))
        bad = parts.copy()
        bad[12_345] = k
        with pytest.raises(ValueError, match="out of range at vertex 12345"):
            _cpu.hypergraph_objectives(h.eptr, h.eind, h.ewgt, bad, k)
