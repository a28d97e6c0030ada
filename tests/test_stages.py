"""Stage operations of every backend against oracles: coarsening, contraction, projection,
refinement, rebalancing (hypergraphs and graphs). Each test runs on the C++ backend and, where a
CUDA device is present, on the GPU backend (marker ``gpu``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
from igpart.kernels import get_backend
from igpart.metrics import max_block_weight

from .util import random_graph, random_hypergraph

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module", params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def be(request):
    """The backend under test (the GPU one only where a device is present)."""
    return get_backend(request.param)


def host(be, a) -> np.ndarray:
    """A backend array as numpy."""
    return np.asarray(be.to_host(a))


def bounds_for(total: int, k: int, eps: float = 0.03) -> np.ndarray:
    return np.full(k, max_block_weight(total, k, eps), dtype=np.int64)


def objective(h, parts, k, obj):
    return igpart.cut(h, parts, k) if obj == "cut" else igpart.km1(h, parts, k)


@st.composite
def hypergraphs(draw, max_n: int = 40):
    seed = draw(st.integers(0, 2**31 - 1))
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(0, 2 * n))
    weighted = draw(st.booleans())
    return random_hypergraph(np.random.default_rng(seed), n, m, max_size=7, weighted=weighted)


@st.composite
def graphs(draw, max_n: int = 40):
    seed = draw(st.integers(0, 2**31 - 1))
    n = draw(st.integers(2, max_n))
    return random_graph(np.random.default_rng(seed), n, draw(st.integers(0, 3 * n)),
                        weighted=draw(st.booleans()))


# ------------------------------------------------------------------------------ coarsening
@FAST
@given(hypergraphs(), st.integers(1, 60), st.integers(1, 6), st.integers(0, 3))
def test_coarsen_hypergraph_clusters(be, h, mcw, group_size, seed):
    ha = be.hypergraph_arrays(h)
    cmap, nc = be.coarsen_hypergraph(ha, mcw, group_size=group_size, seed=seed)
    cmap = host(be, cmap)
    assert cmap.dtype == np.int32 and cmap.shape == (h.n,)
    assert 1 <= nc <= h.n
    assert set(np.unique(cmap)) == set(range(nc))  # dense ids
    sizes = np.bincount(cmap, minlength=nc)
    weights = np.bincount(cmap, weights=h.vwgt, minlength=nc)
    assert sizes.max() <= group_size
    assert np.all((weights <= mcw) | (sizes == 1))
    # same seed, same clustering
    if be.name == "cpu":  # the GPU need not be deterministic (atomics order differently)
        again, nc2 = be.coarsen_hypergraph(ha, mcw, group_size=group_size, seed=seed)
        assert nc2 == nc and np.array_equal(again, cmap)


def test_coarsen_respects_communities(be):
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2], [2, 3], [3, 0]])
    ha = be.hypergraph_arrays(h)
    comm = np.array([0, 0, 1, 1], dtype=np.int32)
    cmap, nc = be.coarsen_hypergraph(ha, 100, communities=be.asarray(comm, "int32"))
    cmap = host(be, cmap)
    assert nc == 2 and cmap[0] == cmap[1] and cmap[2] == cmap[3]


def test_coarsen_groups_follow_join_order(be):
    # a path 0-1-2-...-9: every vertex points along the path; groups of 4 are contiguous runs
    h = igpart.Hypergraph.from_nets([[i, i + 1] for i in range(9)])
    cmap, nc = be.coarsen_hypergraph(be.hypergraph_arrays(h), 100, group_size=4)
    cmap = host(be, cmap)
    assert nc >= 3
    for c in range(nc):
        members = np.flatnonzero(cmap == c)
        # members of a subgroup are within distance group_size of each other on the path
        assert members.max() - members.min() < 2 * 4


@FAST
@given(graphs(), st.integers(1, 60), st.integers(0, 3))
def test_coarsen_graph_clusters(be, g, mcw, seed):
    ga = be.graph_arrays(g)
    cmap, nc = be.coarsen_graph(ga, mcw, group_size=6, seed=seed)
    cmap = host(be, cmap)
    assert set(np.unique(cmap)) == set(range(nc))
    sizes = np.bincount(cmap, minlength=nc)
    weights = np.bincount(cmap, weights=g.vwgt, minlength=nc)
    assert sizes.max() <= 6 and np.all((weights <= mcw) | (sizes == 1))


# ------------------------------------------------------------------------------ contraction
@FAST
@given(hypergraphs(), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_contract_hypergraph_matches_oracle(be, h, nc, seed):
    rng = np.random.default_rng(seed)
    nc = min(nc, h.n)
    cmap = rng.permutation(np.arange(h.n) % nc).astype(np.int32)
    c = be.contract_hypergraph(be.hypergraph_arrays(h), be.asarray(cmap, "int32"), nc)
    c = dataclasses.replace(c, **{f: host(be, getattr(c, f))
                                  for f in ("eptr", "eind", "vptr", "vind", "vwgt", "ewgt")})
    assert c.n == nc and int(c.vwgt.sum()) == h.total_weight
    assert np.array_equal(c.vwgt, np.bincount(cmap, weights=h.vwgt, minlength=nc).astype(int))
    # oracle: map, dedupe, drop < 2 pins, merge identical nets
    expect: dict[tuple, int] = {}
    for e in range(h.m):
        pins = tuple(sorted({int(cmap[v]) for v in h.net(e)}))
        if len(pins) >= 2:
            expect[pins] = expect.get(pins, 0) + int(h.ewgt[e])
    got = {}
    for e in range(c.m):
        pins = tuple(int(x) for x in c.eind[c.eptr[e] : c.eptr[e + 1]])
        assert list(pins) == sorted(set(pins)) and pins not in got
        got[pins] = int(c.ewgt[e])
    assert got == expect
    # the vertex -> net incidence is the transpose
    ch = igpart.Hypergraph(c.eptr, c.eind, nc, c.vwgt, c.ewgt)
    assert np.array_equal(ch.vptr, c.vptr) and np.array_equal(ch.vind, c.vind)


@FAST
@given(hypergraphs(), st.integers(1, 5), st.integers(0, 2**31 - 1), st.sampled_from(["cut", "km1"]))
def test_projection_keeps_objective(be, h, k, seed, obj):
    ha = be.hypergraph_arrays(h)
    cmap, nc = be.coarsen_hypergraph(ha, max(1, h.total_weight // 3), seed=seed % 7)
    coarse = be.contract_hypergraph(ha, cmap, nc)
    cparts = np.random.default_rng(seed).integers(0, k, size=nc).astype(np.int32)
    fine = host(be, be.project(cmap, be.asarray(cparts, "int32")))
    ch = igpart.Hypergraph(host(be, coarse.eptr), host(be, coarse.eind), nc,
                           host(be, coarse.vwgt), host(be, coarse.ewgt))
    assert objective(ch, cparts, k, obj) == objective(h, fine, k, obj)
    assert be.hypergraph_objective(coarse, be.asarray(cparts, "int32"), k, obj) == objective(
        h, fine, k, obj)
    assert np.array_equal(igpart.block_weights(ch, cparts, k), igpart.block_weights(h, fine, k))


@FAST
@given(graphs(), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_graph_contraction_keeps_cut(be, g, k, seed):
    ga = be.graph_arrays(g)
    cmap, nc = be.coarsen_graph(ga, max(1, g.total_weight // 3), seed=seed % 5)
    c = be.contract_graph(ga, cmap, nc)
    cg = igpart.Graph(host(be, c.xadj), host(be, c.adjncy), nc, host(be, c.adjwgt),
                      host(be, c.vwgt))  # checks symmetry and no loops
    cparts = np.random.default_rng(seed).integers(0, k, size=nc).astype(np.int32)
    fine = host(be, be.project(cmap, be.asarray(cparts, "int32")))
    assert igpart.edge_cut(cg, cparts) == igpart.edge_cut(g, fine)
    assert be.graph_edge_cut(c, be.asarray(cparts, "int32")) == igpart.edge_cut(g, fine)


# ------------------------------------------------------------------------------ refinement
def balanced_random_parts(be, h, k, rng):
    """A random partition, rebalanced (so that refinement starts balanced when possible)."""
    parts = rng.integers(0, k, size=h.n).astype(np.int32)
    return host(be, be.rebalance_hypergraph(be.hypergraph_arrays(h), be.asarray(parts, "int32"),
                                            k, be.asarray(bounds_for(h.total_weight, k)), "cut"))


@FAST
@given(hypergraphs(), st.integers(2, 6), st.integers(0, 2**31 - 1),
       st.sampled_from(["cut", "km1"]), st.booleans())
def test_refinement_never_worsens(be, h, k, seed, obj, fm):
    k = min(k, h.n)
    rng = np.random.default_rng(seed)
    ha = be.hypergraph_arrays(h)
    bounds = bounds_for(h.total_weight, k)
    parts = balanced_random_parts(be, h, k, rng)
    bw0 = igpart.block_weights(h, parts, k)
    before = objective(h, parts, k, obj)
    dp, db = be.asarray(parts, "int32"), be.asarray(bounds, "int64")
    if fm:
        new, gain = be.fm_refine_hypergraph(ha, dp, k, db, obj, seed=seed % 9)
    else:
        new, gain = be.refine_hypergraph(ha, dp, k, db, obj)
    new = host(be, new)
    after = objective(h, new, k, obj)
    assert after <= before and gain == before - after
    bw = igpart.block_weights(h, new, k)
    # a balanced block stays balanced; an overloaded one never gets heavier
    assert np.all((bw <= bounds) | (bw <= bw0))


def test_refinement_finds_obvious_improvement(be):
    # two triangles joined by one net; a bad split cuts 3 nets, the good one cuts 1
    nets = [[0, 1], [1, 2], [0, 2], [3, 4], [4, 5], [3, 5], [2, 3]]
    h = igpart.Hypergraph.from_nets(nets)
    ha = be.hypergraph_arrays(h)
    parts = np.array([0, 0, 1, 1, 1, 0], dtype=np.int32)
    bounds = bounds_for(6, 2, 0.34)  # room for one extra vertex: single moves are feasible
    for refine in (be.refine_hypergraph, be.fm_refine_hypergraph):
        new, gain = refine(ha, be.asarray(parts, "int32"), 2, be.asarray(bounds), "cut")
        assert igpart.cut(h, host(be, new), 2) == 1, refine


@FAST
@given(graphs(), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_graph_refinement_never_worsens(be, g, k, seed):
    k = min(k, g.n)
    ga = be.graph_arrays(g)
    bounds = bounds_for(g.total_weight, k)
    parts = np.random.default_rng(seed).integers(0, k, size=g.n).astype(np.int32)
    parts = host(be, be.rebalance_graph(ga, be.asarray(parts, "int32"), k, be.asarray(bounds)))
    bw0 = igpart.block_weights(g, parts, k)
    before = igpart.edge_cut(g, parts)
    new, gain = be.refine_graph(ga, be.asarray(parts, "int32"), k, be.asarray(bounds))
    new = host(be, new)
    assert igpart.edge_cut(g, new) == before - gain and gain >= 0
    bw = igpart.block_weights(g, new, k)
    assert np.all((bw <= bounds) | (bw <= bw0))


# ------------------------------------------------------------------------------ rebalancing
def lpt_feasible(vwgt, k, bound) -> bool:
    """Whether greedy least-loaded placement is guaranteed to fit (total/k + wmax(1 - 1/k))."""
    total = int(np.sum(vwgt))
    wmax = int(np.max(vwgt)) if len(vwgt) else 0
    return total / k + wmax * (1 - 1 / k) <= bound


def exact_feasible(vwgt, k, bound) -> bool:
    """Brute force: can the weights be packed into k blocks of capacity bound?"""
    loads = [0] * k
    order = sorted((int(w) for w in vwgt), reverse=True)

    def place(i):
        if i == len(order):
            return True
        seen = set()
        for b in range(k):
            if loads[b] + order[i] <= bound and loads[b] not in seen:
                seen.add(loads[b])
                loads[b] += order[i]
                if place(i + 1):
                    return True
                loads[b] -= order[i]
        return False

    return place(0)


@st.composite
def heavy_hypergraphs(draw):
    h = draw(hypergraphs(max_n=14))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    vw = rng.integers(0, 4, size=h.n)
    heavy = rng.choice(h.n, size=draw(st.integers(0, min(3, h.n))), replace=False)
    vw[heavy] = rng.integers(5, 30, size=heavy.size)
    return h.with_weights(vwgt=vw)


@FAST
@given(heavy_hypergraphs(), st.integers(1, 6), st.integers(0, 2**31 - 1),
       st.sampled_from([0.0, 0.03, 0.2]))
def test_rebalance_finds_balance_when_one_exists(be, h, k, seed, eps):
    k = min(k, h.n)
    bound = max_block_weight(h.total_weight, k, eps)
    parts = np.random.default_rng(seed).integers(0, k, size=h.n).astype(np.int32)
    out = host(be, be.rebalance_hypergraph(be.hypergraph_arrays(h), be.asarray(parts, "int32"), k,
                                           be.asarray(bounds_for(h.total_weight, k, eps)), "cut"))
    balanced = igpart.block_weights(h, out, k).max() <= bound
    assert balanced == exact_feasible(h.vwgt, k, bound)
    if igpart.block_weights(h, parts, k).max() <= bound:
        assert np.array_equal(out, parts)  # balanced input untouched


def test_rebalance_swaps_when_greedy_packing_fails(be):
    # weights 3,3,2,2,2 into 2 blocks of 6: least-loaded placement gives 7/5, a swap gives 6/6
    h = igpart.Hypergraph.from_nets([[0, 1, 2, 3, 4]], vwgt=[3, 3, 2, 2, 2])
    parts = np.zeros(5, dtype=np.int32)
    out = host(be, be.rebalance_hypergraph(be.hypergraph_arrays(h), be.asarray(parts, "int32"), 2,
                                           be.asarray(bounds_for(12, 2, 0.0)), "cut"))
    assert sorted(igpart.block_weights(h, out, 2)) == [6, 6]


def test_rebalance_large_level_lpt_guarantee(be):
    rng = np.random.default_rng(5)
    h = random_hypergraph(rng, 3000, 4000, weighted=False)
    vw = rng.integers(1, 5, size=h.n)
    vw[:10] = 25
    h = h.with_weights(vwgt=vw)
    k = 8
    bound = max_block_weight(h.total_weight, k, 0.03)
    assert lpt_feasible(vw, k, bound)
    parts = np.zeros(h.n, dtype=np.int32)
    out = host(be, be.rebalance_hypergraph(be.hypergraph_arrays(h), be.asarray(parts, "int32"), k,
                                           be.asarray(bounds_for(h.total_weight, k)), "km1"))
    assert igpart.block_weights(h, out, k).max() <= bound


@FAST
@given(graphs(max_n=14), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_graph_rebalance(be, g, k, seed):
    k = min(k, g.n)
    rng = np.random.default_rng(seed)
    g = igpart.Graph(g.xadj, g.adjncy, g.n, g.adjwgt, rng.integers(0, 9, size=g.n))
    bound = max_block_weight(g.total_weight, k, 0.03)
    parts = rng.integers(0, k, size=g.n).astype(np.int32)
    out = host(be, be.rebalance_graph(be.graph_arrays(g), be.asarray(parts, "int32"), k,
                                      be.asarray(bounds_for(g.total_weight, k))))
    assert (igpart.block_weights(g, out, k).max() <= bound) == exact_feasible(g.vwgt, k, bound)


# ------------------------------------------------------------------------------ errors
def test_stage_operations_reject_bad_input(be):
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2]])
    ha = be.hypergraph_arrays(h)
    b = bounds_for(3, 2)
    b = be.asarray(b, "int64")
    with pytest.raises(ValueError, match="block id out of range"):
        be.refine_hypergraph(ha, be.asarray([0, 5, 1], "int32"), 2, b, "cut")
    with pytest.raises(ValueError, match="max_block_weights"):
        be.fm_refine_hypergraph(ha, be.asarray(np.zeros(3), "int32"), 2, b[:1], "cut")
    with pytest.raises(ValueError, match="cmap"):
        be.contract_hypergraph(ha, be.asarray([0, 3, 1], "int32"), 2)
    with pytest.raises(ValueError, match="objective"):
        be.rebalance_hypergraph(ha, be.asarray(np.zeros(3), "int32"), 2, b, "soed")


def test_fm_does_not_depend_on_the_thread_count():
    """Boundary FM computes its initial gains and pin counts in parallel on large levels; moves,
    gain and result are those of one thread."""
    from igpart.generators import random_circuit
    from igpart.kernels import _cpu

    cpu = get_backend("cpu")
    h = random_circuit(70_000, seed=3)
    ha = cpu.hypergraph_arrays(h)
    k = 4
    bounds = bounds_for(h.total_weight, k)
    parts = (np.arange(h.n) * k // h.n).astype(np.int32)
    before = _cpu.get_num_threads()
    try:
        results = []
        for threads in (1, 3):
            _cpu.set_num_threads(threads)
            for obj in ("cut", "km1"):
                out, gain = cpu.fm_refine_hypergraph(ha, parts, k, bounds, obj, seed=1)
                results.append((threads, obj, out, gain))
    finally:
        _cpu.set_num_threads(before)
    for (_, obj, out, gain), (_, obj3, out3, gain3) in zip(results[:2], results[2:]):
        assert obj == obj3 and gain == gain3 > 0
        np.testing.assert_array_equal(out, out3)
        assert cpu.hypergraph_objective(ha, parts, k, obj) - gain == cpu.hypergraph_objective(
            ha, out, k, obj)
        assert (cpu.block_weights(h.vwgt, out, k) <= bounds).all()


@pytest.mark.parametrize("n", [1_500, 12_000])
def test_small_and_large_levels_do_not_depend_on_the_thread_count(n):
    """Loops over fewer than 4096 items run on the calling thread, larger ones in parallel:
    clustering, contraction, sequence refinement, Jet and the graph stages give the results of
    one thread either way."""
    from igpart.generators import random_circuit
    from igpart.kernels import _cpu

    cpu = get_backend("cpu")
    h = random_circuit(n, seed=5)
    ha = cpu.hypergraph_arrays(h)
    g = random_graph(np.random.default_rng(n), n, 4 * n)
    ga = cpu.graph_arrays(g)
    k = 4
    bounds = bounds_for(h.total_weight, k)
    gbounds = bounds_for(g.total_weight, k)
    parts = (np.arange(h.n) * k // h.n).astype(np.int32)
    gparts = (np.arange(g.n) * k // g.n).astype(np.int32)

    def run():
        cmap, nc = cpu.cluster_hypergraph(ha, 8, seed=2)
        coarse = cpu.contract_hypergraph(ha, cmap, nc)
        gcmap, gnc = cpu.coarsen_graph(ga, 8, seed=2)
        out = [cmap, coarse.eptr, coarse.eind, coarse.ewgt, gcmap, gnc]
        out.append(cpu.contract_graph(ga, gcmap, gnc).adjncy)
        for obj in ("cut", "km1"):
            out += list(cpu.refine_hypergraph(ha, parts, k, bounds, obj))
            out += list(cpu.jet_refine_hypergraph(ha, parts, k, bounds, obj, seed=1))
        out += list(cpu.refine_graph(ga, gparts, k, gbounds))
        return out

    before = _cpu.get_num_threads()
    try:
        _cpu.set_num_threads(1)
        one = run()
        _cpu.set_num_threads(3)
        three = run()
    finally:
        _cpu.set_num_threads(before)
    assert len(one) == len(three)
    for a, b in zip(one, three):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
