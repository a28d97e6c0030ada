"""Integrated mapping (igpart.mapping_im): the mapping gain against a brute-force recomputation,
the label propagation (cost never rises, balance kept, only active vertices move) and the
multilevel driver (never worse than its coarsest multisection projected)."""

from __future__ import annotations

import numpy as np
import pytest

import igpart
from igpart.generators import random_circuit
from igpart.kernels import _cpu
from igpart.mapping import _multisection, check_hierarchy, communication_cost
from igpart.mapping_im import (
    _analyse,
    _analyse_numpy,
    _Level,
    _refine_rounds,
    _split_levels,
    integrated_mapping,
    refine_mapping,
)
from igpart.metrics import max_block_weight

HIERARCHIES = [((2, 2, 2), (1, 10, 100)), ((4, 8, 1), (1, 10, 100)), ((3, 2), (2, 5)),
               ((2, 1, 2), (1, 4, 4)), ((4, 2), (1.5, 2.5))]  # fmt: skip


@pytest.mark.parametrize("hierarchy,distance", HIERARCHIES)
def test_gain_equals_cost_change_and_is_best_among_connected_pes(hierarchy, distance):
    h = random_circuit(50, seed=3)
    h = h.with_weights(ewgt=np.random.default_rng(2).integers(1, 4, size=h.m))
    k = int(np.prod(hierarchy))
    parts = np.random.default_rng(1).integers(0, k, h.n)
    sizes, coefs, const = _split_levels(hierarchy, distance)
    lv = _Level.of(h)
    an = _analyse_numpy(lv, parts, k, sizes, coefs, const * lv.ewgt_total, None)
    base = communication_cost(h, parts, hierarchy, distance)
    assert an.cost == pytest.approx(base)
    checked = 0
    for v in range(h.n):
        connected = {int(parts[u]) for e in h.nets_of(v) for u in h.net(e)} - {int(parts[v])}
        gains = {}
        for q in connected:
            moved = parts.copy()
            moved[v] = q
            gains[q] = base - communication_cost(h, moved, hierarchy, distance)
        if an.best_q[v] < 0:
            # no net of v spans several PEs: every move costs
            assert all(g <= 1e-9 for g in gains.values())
            continue
        checked += 1
        assert an.best_gain[v] == pytest.approx(gains[int(an.best_q[v])])
        assert an.best_gain[v] >= max(gains.values()) - 1e-9
    assert checked > 0


@pytest.mark.parametrize("hierarchy,distance", HIERARCHIES)
def test_cpp_gains_equal_the_numpy_ones(hierarchy, distance):
    # the C++ kernel against the sparse-matrix formulation, big nets and an active set included
    rng = np.random.default_rng(4)
    h = random_circuit(1500, seed=6)
    big = [rng.choice(h.n, size=300, replace=False).tolist() for _ in range(3)]
    h = igpart.Hypergraph.from_nets([h.net(e).tolist() for e in range(h.m)] + big, n=h.n,
                                    ewgt=rng.integers(1, 5, size=h.m + 3))  # fmt: skip
    k = int(np.prod(hierarchy))
    sizes, coefs, const = _split_levels(hierarchy, distance)
    lv = _Level.of(h)
    for active in (None, rng.random(h.n) < 0.3):
        parts = rng.integers(0, k, h.n)
        a = _analyse(lv, parts, k, sizes, coefs, const * lv.ewgt_total, active)
        b = _analyse_numpy(lv, parts, k, sizes, coefs, const * lv.ewgt_total, active)
        assert a.cost == pytest.approx(b.cost) == communication_cost(h, parts, hierarchy, distance)
        assert (a.best_q == b.best_q).all()
        assert np.allclose(a.best_gain, b.best_gain)


@pytest.mark.parametrize("hierarchy,distance", HIERARCHIES[:3])
def test_refinement_lowers_cost_keeps_balance_and_moves_only_active(hierarchy, distance):
    h = random_circuit(800, seed=4)
    h = h.with_weights(vwgt=np.random.default_rng(3).integers(1, 3, size=h.n))
    k = int(np.prod(hierarchy))
    start = np.random.default_rng(5).permutation(h.n) % k  # a poor mapping, nearly balanced
    bound = max(max_block_weight(h.total_weight, k, 0.03), igpart.block_weights(h, start, k).max())
    before = communication_cost(h, start, hierarchy, distance)
    parts, cost, rounds = refine_mapping(h, start, hierarchy, distance, np.full(k, bound))
    assert cost == pytest.approx(communication_cost(h, parts, hierarchy, distance))
    assert cost < before and rounds > 0
    assert igpart.block_weights(h, parts, k).max() <= bound
    active = np.zeros(h.n, dtype=bool)
    active[::3] = True
    parts2, cost2, _ = refine_mapping(h, start, hierarchy, distance, np.full(k, bound),
                                      active=active)  # fmt: skip
    assert (parts2[~active] == start[~active]).all()
    assert cost2 <= before and cost2 == pytest.approx(
        communication_cost(h, parts2, hierarchy, distance))
    assert igpart.block_weights(h, parts2, k).max() <= bound


def _refine_case(seed: int, n: int = 3000):
    """A random circuit with vertex and net weights, a few large nets and a poor start."""
    rng = np.random.default_rng(seed)
    h = random_circuit(n, seed=seed)
    big = [rng.choice(h.n, size=200, replace=False).tolist() for _ in range(2)]
    h = igpart.Hypergraph.from_nets([h.net(e).tolist() for e in range(h.m)] + big, n=h.n,
                                    vwgt=rng.integers(1, 3, size=h.n),
                                    ewgt=rng.integers(1, 4, size=h.m + 2))  # fmt: skip
    return h, rng


@pytest.mark.parametrize("hierarchy,distance", HIERARCHIES)
def test_refinement_kernel_equals_the_full_analysis_rounds(hierarchy, distance):
    # mapping_refine updates the nets with a mover and their pins only; the numpy rounds
    # re-analyse everything: the same moves, mapping, cost and rounds
    k = int(np.prod(hierarchy))
    sizes, coefs, const = _split_levels(hierarchy, distance)
    rounds = 0
    for seed in range(3):
        h, rng = _refine_case(seed)
        start = rng.permutation(h.n) % k
        if seed == 2:  # a good start: few moves per round
            start = igpart.map(h, hierarchy, distance, algorithm="two-phase", seed=0).parts
        bound = max(max_block_weight(h.total_weight, k, 0.03),
                    igpart.block_weights(h, start, k).max())  # fmt: skip
        bounds = np.full(k, bound)
        bounds[0] = igpart.block_weights(h, start, k)[0]  # a PE without room
        for active in (None, rng.random(h.n) < 0.5):
            got = refine_mapping(h, start, hierarchy, distance, bounds, active=active)
            lv = _Level.of(h)
            want = _refine_rounds(lv, np.asarray(start, np.int64), k, sizes, coefs,
                                  const * lv.ewgt_total, bounds, active, 16)  # fmt: skip
            assert np.array_equal(got[0], want[0]) and got[1:] == want[1:]
            assert got[1] == pytest.approx(communication_cost(h, got[0], hierarchy, distance))
            rounds += got[2]
    assert rounds > 0


def test_refinement_kernel_independent_of_threads():
    h, rng = _refine_case(7, n=20000)  # above the OpenMP loops' thresholds
    hierarchy, distance = (4, 8, 2), (1, 10, 100)
    k = 64
    start = rng.permutation(h.n) % k
    bounds = np.full(k, max_block_weight(h.total_weight, k, 0.03))
    before = _cpu.get_num_threads()
    try:
        _cpu.set_num_threads(1)
        one = refine_mapping(h, start, hierarchy, distance, bounds)
        _cpu.set_num_threads(2)
        two = refine_mapping(h, start, hierarchy, distance, bounds)
    finally:
        _cpu.set_num_threads(before)
    assert np.array_equal(one[0], two[0]) and one[1:] == two[1:]


def test_refinement_kernel_rejects_bad_arrays():
    h = random_circuit(50, seed=1)
    args = dict(eptr=h.eptr, eind=h.eind, ewgt=h.ewgt, vptr=h.vptr, vind=h.vind, vwgt=h.vwgt,
                parts=np.zeros(h.n, np.int32), k=4, sizes=np.array([1, 2]),
                coefs=np.array([1.0, 9.0]), candidate=np.ones(h.n, np.uint8),
                bounds=np.full(4, h.n), constant=0.0, max_rounds=4, min_improvement=0.0)
    for key, bad, says in (("bounds", np.full(3, h.n), "bounds"),
                           ("vwgt", np.ones(h.n - 1, np.int64), "vwgt"),
                           ("parts", np.full(h.n, 4, np.int32), "PE id out of range")):
        with pytest.raises(ValueError, match=says):
            _cpu.mapping_refine(**{**args, key: bad})


def test_refinement_respects_per_pe_bounds():
    h = random_circuit(600, seed=8)
    hierarchy, distance = (2, 2), (1, 10)
    start = igpart.map(h, hierarchy, distance, algorithm="two-phase", seed=0).parts
    loads = igpart.block_weights(h, start, 4)
    bounds = loads.copy()  # no room anywhere: no PE may grow
    parts, _, _ = refine_mapping(h, start, hierarchy, distance, bounds)
    assert (igpart.block_weights(h, parts, 4) <= bounds).all()


@pytest.mark.parametrize("hierarchy,distance", [((4, 2, 2), (1, 10, 100)), ((2, 3), (1, 5))])
def test_integrated_mapping_never_worse_than_its_coarsest_multisection(hierarchy, distance):
    h = random_circuit(6000, seed=12)
    a, d = check_hierarchy(hierarchy, distance)
    k = int(np.prod(a))
    for x in (h, h.to_graph().to_hypergraph()):
        pe, _, backend, timings, trace = integrated_mapping(x, a, d, 0.03, "cpu", 0, None,
                                                            _multisection)
        assert backend == "cpu" and "refine" in timings
        assert len(trace["levels"]) > 1 and trace["levels"][0] == x.n  # it coarsened
        bound = max_block_weight(x.total_weight, k, 0.03)
        for p in (pe, trace["initial"]):
            assert igpart.block_weights(x, p, k).max() <= bound
        assert communication_cost(x, pe, a, d) <= communication_cost(x, trace["initial"], a, d)


def test_im_on_one_pe_and_on_graphs():
    h = random_circuit(300, seed=2)
    m = igpart.map(h, (1,), (1,), algorithm="im")
    assert m.cost == 0 and (m.parts == 0).all()
    g = h.to_graph()
    m = igpart.map(g, (2, 2), (1, 10), algorithm="im")
    assert m.balanced and m.cost == communication_cost(g, m.parts, (2, 2), (1, 10))
