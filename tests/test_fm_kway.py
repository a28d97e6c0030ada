"""The k-way FM of the C++ backend: its gain cache against gains recomputed from scratch, the
parallel localized FM (valid, balanced, never worse, gain equal to the objective's change) and
the sequential one (the same result on any number of threads), and locked vertices in both."""

from __future__ import annotations

import numpy as np
import pytest

import igpart
from igpart.generators import random_circuit
from igpart.kernels import _cpu, get_backend
from igpart.kernels.cpu import CpuBackend
from igpart.partitioner.config import Config

from .test_stages import bounds_for, objective
from .test_threads import _on_threads


def random_hypergraph(rng, n: int, m: int, max_size: int, zero_weights: bool):
    sizes = rng.integers(1, max(2, min(n, max_size)) + 1, size=m)
    nets = [rng.choice(n, size=int(s), replace=False) for s in sizes]
    low = 0 if zero_weights else 1
    return igpart.Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 5, size=n),
                                       ewgt=rng.integers(low, 9, size=m))


def scratch_gains(h, parts, k: int, obj: str):
    """Gain of moving every vertex to every other block, and whether the FM offers that block
    (km1: a net of the vertex has a pin there; cut: a net has every other pin there), from the
    nets and ``parts`` alone."""
    gains = np.zeros((h.n, k), dtype=np.int64)
    offered = np.zeros((h.n, k), dtype=bool)
    for e in range(h.m):
        pins = h.net(e)
        size, w = len(pins), int(h.ewgt[e])
        if size < 2:
            continue
        count = np.bincount(parts[pins], minlength=k)
        for v in pins:
            s = parts[v]
            for b in range(k):
                if b == s:
                    continue
                pf, pt = count[s], count[b]
                if obj == "cut":
                    gains[v, b] += w * (int(pf < size) - int(pt + 1 < size))
                    offered[v, b] |= pt == size - 1
                else:
                    gains[v, b] += w * (int(pf == 1) - int(pt == 0))
                    offered[v, b] |= pt > 0
    for v in range(h.n):
        gains[v, parts[v]] = 0
    return gains, offered


@pytest.mark.parametrize("case", range(12))
def test_cached_gains_equal_a_recomputation_after_moves(case):
    """Random moves through the gain cache's delta updates, then every cached gain (and offered
    block) against the nets; zero-weight and single-pin nets included."""
    be = get_backend("cpu")
    rng = np.random.default_rng(case)
    n = int(rng.integers(4, 40))
    k = [2, 3, 5, 8][case % 4]
    h = random_hypergraph(rng, n, int(n * rng.integers(1, 5)), int(rng.integers(2, n + 1)),
                          zero_weights=case % 3 == 0)
    ha = be.hypergraph_arrays(h)
    parts = rng.integers(0, k, size=n).astype(np.int32)
    moves = rng.integers(0, n, size=3 * n).astype(np.int32)
    targets = rng.integers(0, k, size=3 * n).astype(np.int32)
    for obj in ("cut", "km1"):
        code = ["cut", "km1"].index(obj)
        after, gains, offered = _cpu.fm_gain_cache_after_moves(
            ha.eptr, ha.eind, ha.ewgt, ha.vptr, ha.vind, ha.vwgt, parts, k, code, moves, targets)
        expect = parts.copy()
        for u, t in zip(moves, targets):
            expect[u] = t
        np.testing.assert_array_equal(after, expect)
        ref_gains, ref_offered = scratch_gains(h, after, k, obj)
        np.testing.assert_array_equal(gains, ref_gains)
        np.testing.assert_array_equal(offered.astype(bool), ref_offered)


def _check(be, ha, h, parts, out, gain, k, bounds, obj):
    before, after = objective(h, parts, k, obj), objective(h, out, k, obj)
    assert gain >= 0 and before - after == gain
    assert out.min() >= 0 and out.max() < k
    bw0, bw = igpart.block_weights(h, parts, k), igpart.block_weights(h, out, k)
    assert np.all((bw <= bounds) | (bw <= bw0))


@pytest.fixture(scope="module")
def circuit():
    """A level above the FM's parallel thresholds (> 16,384 vertices)."""
    return random_circuit(20_000, seed=3)


@pytest.mark.parametrize("k", [2, 8])
@pytest.mark.parametrize("obj", ["cut", "km1"])
def test_parallel_fm_is_valid_and_never_worse(circuit, k, obj):
    """The parallel FM on 2 and 3 threads from a rebalanced random start: balanced, never
    worse, its gain the recomputed change; on one thread it is the sequential FM."""
    be = get_backend("cpu")
    ha = be.hypergraph_arrays(circuit)
    bounds = bounds_for(circuit.total_weight, k)
    rng = np.random.default_rng(k)
    parts = be.rebalance_hypergraph(ha, rng.integers(0, k, circuit.n).astype(np.int32), k,
                                    bounds, obj)
    for t in (2, 3):
        out, gain = _on_threads(t, lambda: be.fm_refine_hypergraph(
            ha, parts, k, bounds, obj, seed=5, deterministic=False))
        _check(be, ha, circuit, parts, out, gain, k, bounds, obj)
        assert gain > 0
    one = [_on_threads(1, lambda d=d: be.fm_refine_hypergraph(
        ha, parts, k, bounds, obj, seed=5, deterministic=d)) for d in (False, True)]
    np.testing.assert_array_equal(one[0][0], one[1][0])


@pytest.mark.parametrize("case", range(16))
def test_parallel_fm_on_small_random_levels(case, monkeypatch):
    """Small dense levels (the coarse end of a hierarchy; here in the parallel FM too),
    weighted, k = 2 .. 6, on 3 threads."""
    monkeypatch.setattr(CpuBackend, "parallel_fm_min_vertices", 0)
    be = get_backend("cpu")
    rng = np.random.default_rng(100 + case)
    n = int(rng.integers(10, 300))
    k = 2 + case % 5
    h = random_hypergraph(rng, n, int(n * rng.integers(1, 6)), int(rng.choice([3, 8, n])),
                          zero_weights=case % 4 == 0)
    ha = be.hypergraph_arrays(h)
    bounds = bounds_for(h.total_weight, k, float(rng.choice([0.03, 0.1, 0.5])))
    parts = be.rebalance_hypergraph(ha, rng.integers(0, k, n).astype(np.int32), k, bounds, "cut")
    for obj in ("cut", "km1"):
        out, gain = _on_threads(3, lambda obj=obj: be.fm_refine_hypergraph(
            ha, parts, k, bounds, obj, seed=case, max_fruitless_moves=20, deterministic=False))
        _check(be, ha, h, parts, out, gain, k, bounds, obj)


@pytest.mark.parametrize("k", [2, 5, 16])
def test_parallel_fm_on_more_threads_than_cores(k, monkeypatch):
    """Eight threads on the development machine's two cores (searches preempted while they hold
    vertices and tentative moves), weighted vertices, zero-weight nets (the gain cache counts
    nets), both objectives, from a partition of the sequential FM with 10% of its vertices
    moved at random: valid, balanced, never worse, the gain the recomputed change, and within
    15% of the sequential FM's objective."""
    monkeypatch.setattr(CpuBackend, "parallel_fm_min_vertices", 0)
    be = get_backend("cpu")
    rng = np.random.default_rng(40 + k)
    h = random_hypergraph(rng, 3000, 4500, 6, zero_weights=True)
    ha = be.hypergraph_arrays(h)
    bounds = bounds_for(h.total_weight, k)
    for obj in ("cut", "km1"):
        start = be.rebalance_hypergraph(ha, rng.integers(0, k, h.n).astype(np.int32), k,
                                        bounds, obj)
        good, _ = be.fm_refine_hypergraph(ha, start, k, bounds, obj, seed=1, deterministic=True)
        parts = good.copy()
        moved = rng.random(h.n) < 0.1
        parts[moved] = rng.integers(0, k, int(moved.sum()))
        parts = be.rebalance_hypergraph(ha, parts, k, bounds, obj)
        seq, _ = be.fm_refine_hypergraph(ha, parts, k, bounds, obj, seed=1, deterministic=True)
        out, gain = _on_threads(8, lambda obj=obj, parts=parts: be.fm_refine_hypergraph(
            ha, parts, k, bounds, obj, seed=1, deterministic=False))
        _check(be, ha, h, parts, out, gain, k, bounds, obj)
        assert gain > 0
        assert objective(h, out, k, obj) <= 1.15 * objective(h, seq, k, obj)


@pytest.mark.parametrize("k", [2, 3, 8])
def test_deterministic_fm_does_not_depend_on_the_thread_count(circuit, k):
    be = get_backend("cpu")
    ha = be.hypergraph_arrays(circuit)
    bounds = bounds_for(circuit.total_weight, k)
    rng = np.random.default_rng(7)
    parts = be.rebalance_hypergraph(ha, rng.integers(0, k, circuit.n).astype(np.int32), k,
                                    bounds, "km1")
    runs = [_on_threads(t, lambda: be.fm_refine_hypergraph(
        ha, parts, k, bounds, "km1", seed=2, deterministic=True)) for t in (1, 2, 3)]
    for out, gain in runs[1:]:
        np.testing.assert_array_equal(out, runs[0][0])
        assert gain == runs[0][1]
    _check(be, ha, circuit, parts, runs[0][0], runs[0][1], k, bounds, "km1")


@pytest.mark.parametrize("deterministic", [True, False])
@pytest.mark.parametrize("k", [2, 5])
def test_locked_vertices_never_move(circuit, k, deterministic):
    """A third of the vertices locked (bisection and k-way paths, both modes): none of them
    moves, the others still improve the partition."""
    be = get_backend("cpu")
    ha = be.hypergraph_arrays(circuit)
    bounds = bounds_for(circuit.total_weight, k)
    rng = np.random.default_rng(k)
    parts = be.rebalance_hypergraph(ha, rng.integers(0, k, circuit.n).astype(np.int32), k,
                                    bounds, "cut")
    locked = (rng.random(circuit.n) < 0.33).astype(np.uint8)
    out, gain = _on_threads(2, lambda: be.fm_refine_hypergraph(
        ha, parts, k, bounds, "cut", seed=1, locked=locked, deterministic=deterministic))
    np.testing.assert_array_equal(out[locked == 1], parts[locked == 1])
    assert gain > 0 and (out != parts).any()
    _check(be, ha, circuit, parts, out, gain, k, bounds, "cut")
    everything = np.ones(circuit.n, dtype=bool)
    out, gain = be.fm_refine_hypergraph(ha, parts, k, bounds, "cut", locked=everything,
                                        deterministic=deterministic)
    assert gain == 0
    np.testing.assert_array_equal(out, parts)


def test_locked_mask_is_checked():
    be = get_backend("cpu")
    h = random_circuit(200, seed=1)
    ha = be.hypergraph_arrays(h)
    parts = (np.arange(h.n) % 2).astype(np.int32)
    bounds = bounds_for(h.total_weight, 2)
    with pytest.raises(ValueError, match="locked"):
        be.fm_refine_hypergraph(ha, parts, 2, bounds, "cut", locked=np.zeros(h.n - 1, np.uint8))
    with pytest.raises(ValueError, match="locked"):
        be.fm_refine_hypergraph(ha, parts, 2, bounds, "cut", locked=np.zeros(h.n, np.float64))


def test_config_deterministic_reaches_the_fm(monkeypatch):
    """``Config.deterministic`` reaches every FM call of a run; None leaves the choice to the
    backend (``parallel_fm_min_threads``); bad values name the field."""
    seen = []
    fm = CpuBackend.fm_refine_hypergraph

    def recording(self, *a, **kw):
        seen.append(self.fm_is_deterministic(kw.get("deterministic")))
        return fm(self, *a, **kw)

    monkeypatch.setattr(CpuBackend, "fm_refine_hypergraph", recording)
    h = random_circuit(3_000, seed=6)
    for value, expect in ((False, False), (True, True), (None, True)):
        seen.clear()
        p = igpart.partition(h, 4, backend="cpu",
                             config={"threads": 2, "initial": "metis", "deterministic": value})
        assert p.balanced and seen and set(seen) == {expect}
    monkeypatch.setattr(CpuBackend, "parallel_fm_min_threads", 2)
    seen.clear()
    p = igpart.partition(h, 4, backend="cpu", config={"threads": 2, "initial": "metis"})
    assert p.balanced and set(seen) == {False}
    with pytest.raises(igpart.errors.InputError, match="config.deterministic"):
        Config.of({"deterministic": "yes"})
