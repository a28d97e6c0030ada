"""Threads on the C++ backend: ``Config.threads`` reaches every stage, and the parallel stages give
the same results on any number of threads."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import igpart
from igpart.generators import random_circuit
from igpart.kernels import _cpu, get_backend
from igpart.kernels.cpu import CpuBackend

from .test_stages import bounds_for


@pytest.fixture(scope="module")
def circuit():
    """A level large enough for every parallel path (>= 65,536 vertices and nets)."""
    return random_circuit(70_000, seed=7)


#: Thread counts the stages are compared on: more threads than this machine's cores (OpenMP runs
#: them all), as on a 16-core machine.
MANY = 16


def _on_threads(threads: int, fn):
    before = _cpu.get_num_threads()
    try:
        _cpu.set_num_threads(threads)
        return fn()
    finally:
        _cpu.set_num_threads(before)


def test_config_threads_reach_every_stage(monkeypatch):
    """Every stage operation of a run sees ``Config.threads`` OpenMP threads, and the caller's
    setting is back afterwards."""
    seen: dict[str, set[int]] = {}
    names = ("communities", "cluster_hypergraph", "contract_hypergraph", "rebalance_hypergraph",
             "refine_hypergraph", "fm_refine_hypergraph")
    for name in names:
        fn = getattr(CpuBackend, name)

        def wrapper(self, *a, _fn=fn, _name=name, **kw):
            seen.setdefault(_name, set()).add(int(_cpu.get_num_threads()))
            return _fn(self, *a, **kw)

        monkeypatch.setattr(CpuBackend, name, wrapper)
    h = random_circuit(3_000, seed=1)
    before = _cpu.get_num_threads()
    p = igpart.partition(h, 4, backend="cpu", config={"threads": 3, "initial": "metis"})
    assert _cpu.get_num_threads() == before
    assert p.balanced and set(seen) == set(names)
    assert all(s == {3} for s in seen.values()), seen


def test_parallel_clustering_does_not_depend_on_the_thread_count(circuit):
    """Clustering in sub-rounds: the same clusters on 1, 2, 3 and 16 threads; the clusters respect
    the weight cap, the communities and the shrink limit, and differ from no sub-rounds only in
    the order of the joins (both cluster about as much)."""
    cpu = get_backend("cpu")
    ha = cpu.hypergraph_arrays(circuit)
    comm = (np.arange(circuit.n) * 7 // circuit.n).astype(np.int32)
    runs = []
    for threads in (1, 2, 3, MANY):
        runs.append(_on_threads(threads, lambda: cpu.cluster_hypergraph(
            ha, 6, communities=comm, max_shrink=2.5, seed=3, sub_rounds=16)))
    for cmap, nc in runs[1:]:
        assert nc == runs[0][1]
        np.testing.assert_array_equal(cmap, runs[0][0])
    cmap, nc = runs[0]
    assert set(np.unique(cmap)) == set(range(nc))
    assert nc >= int(circuit.n / 2.5)
    weights = np.bincount(cmap, weights=circuit.vwgt, minlength=nc)
    sizes = np.bincount(cmap, minlength=nc)
    assert np.all((weights <= 6) | (sizes == 1))
    first = np.full(nc, -1)
    first[cmap[::-1]] = comm[::-1]
    assert np.array_equal(first[cmap], comm)  # every cluster inside one community
    seq_cmap, seq_nc = cpu.cluster_hypergraph(ha, 6, communities=comm, max_shrink=2.5, seed=3,
                                              sub_rounds=0)
    assert not np.array_equal(seq_cmap, cmap)
    assert abs(seq_nc - nc) <= 0.02 * circuit.n
    with pytest.raises(ValueError, match="sub_rounds"):
        cpu.cluster_hypergraph(ha, 6, sub_rounds=-1)


@pytest.mark.parametrize("cap", [6, 40])
def test_asynchronous_clustering_keeps_its_bounds(circuit, cap):
    """``cluster_hypergraph(asynchronous=True)`` on 3 and 16 threads (joins made at once while
    other threads join, many contending for the same clusters under the small cap): dense ids,
    every cluster within the weight cap (or a single vertex) and inside one community, the
    shrink limit kept up to one join per thread, and about as much clustering as the
    sequential visit; on one thread the synchronous clustering itself."""
    cpu = get_backend("cpu")
    ha = cpu.hypergraph_arrays(circuit)
    comm = (np.arange(circuit.n) * 7 // circuit.n).astype(np.int32)
    seq_cmap, seq_nc = cpu.cluster_hypergraph(ha, cap, communities=comm, max_shrink=2.5, seed=3,
                                              sub_rounds=0)
    for threads in (3, MANY):
        cmap, nc = _on_threads(threads, lambda: cpu.cluster_hypergraph(
            ha, cap, communities=comm, max_shrink=2.5, seed=3, asynchronous=True))
        assert cmap.shape == (circuit.n,) and set(np.unique(cmap)) == set(range(nc))
        weights = np.bincount(cmap, weights=circuit.vwgt, minlength=nc)
        sizes = np.bincount(cmap, minlength=nc)
        assert np.all((weights <= cap) | (sizes == 1)), threads
        first = np.full(nc, -1)
        first[cmap[::-1]] = comm[::-1]
        assert np.array_equal(first[cmap], comm)  # every cluster inside one community
        assert nc >= int(circuit.n / 2.5) - threads
        assert abs(nc - seq_nc) <= 0.05 * circuit.n, (threads, nc, seq_nc)
    one, sync = (_on_threads(1, lambda a=a: cpu.cluster_hypergraph(
        ha, cap, communities=comm, max_shrink=2.5, seed=3, sub_rounds=16, asynchronous=a))
        for a in (True, False))
    assert one[1] == sync[1] and np.array_equal(one[0], sync[0])


def _asynchronous_asks(monkeypatch) -> list[bool]:
    """The ``asynchronous`` argument of every ``CpuBackend.cluster_hypergraph`` call from now
    on, in order."""
    asked: list[bool] = []
    real = CpuBackend.cluster_hypergraph

    def spy(self, *a, **kw):
        asked.append(kw.get("asynchronous", False))
        return real(self, *a, **kw)

    monkeypatch.setattr(CpuBackend, "cluster_hypergraph", spy)
    return asked


@pytest.mark.parametrize("k", [2, 8])
def test_asynchronous_run_is_valid(monkeypatch, k):
    """Runs with asynchronous Louvain passes and clustering joins (whose result depends on the
    threads' timing): valid, balanced partitions whose reported cut is the recomputed one, on
    3 and 16 threads, the asynchronous stages having run."""
    monkeypatch.setattr(CpuBackend, "async_louvain_min_threads", 2)
    monkeypatch.setattr(CpuBackend, "async_cluster_min_threads", 2)
    asked = _asynchronous_asks(monkeypatch)
    h = random_circuit(30_000, seed=11)
    for threads in (3, MANY):
        p = igpart.partition(h, k, backend="cpu", seed=1, config={"threads": threads})
        assert p.balanced and p.parts.min() >= 0 and p.parts.max() < k
        assert p.cut == igpart.metrics.cut(h, p.parts, k)
    assert any(asked)


def test_when_the_clustering_joins_asynchronously(monkeypatch):
    """True never; False from 2 threads; None (the default) from ``async_cluster_min_threads``
    threads (0: never); the coarsener asks for it by that rule, and the host levels of a
    deterministic device run never do."""
    from igpart.partitioner.coarsening import hypergraph_coarsener
    from igpart.partitioner.context import resolve

    cpu = CpuBackend()
    for many, threads, expected in ((0, MANY, [False, True, False]), (2, 1, [False] * 3),
                                    (2, 2, [False, True, True]), (4, 3, [False, True, False]),
                                    (4, 4, [False, True, True])):  # fmt: skip
        monkeypatch.setattr(CpuBackend, "async_cluster_min_threads", many)
        got = _on_threads(threads, lambda: [cpu.cluster_is_async(d) for d in (True, False, None)])
        assert got == expected, (many, threads)
    monkeypatch.setattr(CpuBackend, "async_cluster_min_threads", 2)
    seen = _asynchronous_asks(monkeypatch)
    h = random_circuit(5_000, seed=2)
    ha = cpu.hypergraph_arrays(h)
    for det, in_order, want in ((None, False, True), (True, False, False), (False, False, True),
                                (None, True, False)):  # fmt: skip
        cfg = resolve(igpart.Config(deterministic=det), cpu, h, 4)
        coarsen_one = hypergraph_coarsener(cpu, 50, cfg, 1, joins_in_order=in_order)
        _on_threads(2, lambda f=coarsen_one: f(ha))
        assert seen[-1] == want, (det, in_order)


def test_parallel_contraction_does_not_depend_on_the_thread_count(circuit):
    """Contraction (pins, identical nets, transpose) on 1, 3 and 16 threads: the same level, whose
    vertex -> net incidence is the stable transpose of its nets."""
    cpu = get_backend("cpu")
    ha = cpu.hypergraph_arrays(circuit)
    cmap, nc = cpu.cluster_hypergraph(ha, 4, seed=1)
    fields = ("eptr", "eind", "ewgt", "vptr", "vind", "vwgt")
    one, three, many = (_on_threads(t, lambda: cpu.contract_hypergraph(ha, cmap, nc))
                        for t in (1, 3, MANY))
    for f in fields:
        np.testing.assert_array_equal(getattr(one, f), getattr(three, f))
        np.testing.assert_array_equal(getattr(one, f), getattr(many, f))
    ch = igpart.Hypergraph(one.eptr, one.eind, nc, one.vwgt, one.ewgt)
    assert np.array_equal(ch.vptr, one.vptr) and np.array_equal(ch.vind, one.vind)
    assert one.num_pins >= 65_536 and int(one.vwgt.sum()) == circuit.total_weight


@pytest.mark.parametrize("pass_gain", [0.0, 0.1])
def test_parallel_louvain_does_not_depend_on_the_thread_count(circuit, pass_gain, monkeypatch):
    """Louvain on a level of 65,536+ vertices (every parallel loop on: the clique expansion,
    pruned local moving in sub-rounds, one parallel region per pass, renumbering, aggregation;
    levels below ``community_sub_round_min_arcs`` sequential; with and without the pass-gain
    stop) on 1, 3 and 16 threads: the same communities, numbered densely in the order of their
    smallest member."""
    # its first two levels (535,050 and about 190,000 arcs) in sub-rounds, the others not
    monkeypatch.setattr(CpuBackend, "community_sub_round_min_arcs", 100_000)
    cpu = get_backend("cpu")
    ha = cpu.hypergraph_arrays(circuit)
    one, three, many = (_on_threads(t, lambda: cpu.communities(
        ha, seed=3, sub_rounds=64, max_weight=circuit.total_weight // 16,
        min_pass_gain=pass_gain)) for t in (1, 3, MANY))
    np.testing.assert_array_equal(one, three)
    np.testing.assert_array_equal(one, many)
    firsts = np.unique(one, return_index=True)[1]  # smallest member of community 0, 1, ...
    assert np.all(np.diff(firsts) > 0) and one[0] == 0
    assert 1 < len(firsts) < circuit.n // 10


def test_parallel_bipartite_louvain_does_not_depend_on_the_thread_count(circuit):
    """Louvain on the bipartite vertex + net graph of a level of 65,536+ vertices and nets
    (every parallel loop on: the graph's rows, local moving in sub-rounds, renumbering,
    aggregation) on 1, 3 and 16 threads: the same communities of the vertices, dense and numbered in
    the order of their smallest member."""
    cpu = get_backend("cpu")
    ha = cpu.hypergraph_arrays(circuit)
    one, three, many = (_on_threads(t, lambda: cpu.communities(ha, seed=3, sub_rounds=64,
                                                               max_net_size=50_000,
                                                               graph="bipartite"))
                        for t in (1, 3, MANY))
    np.testing.assert_array_equal(one, three)
    np.testing.assert_array_equal(one, many)
    assert one.shape == (circuit.n,)
    firsts = np.unique(one, return_index=True)[1]
    assert np.all(np.diff(firsts) > 0) and one[0] == 0
    assert 1 < len(firsts) < circuit.n // 10


def test_fm_and_rebalance_do_not_depend_on_the_thread_count(circuit):
    """FM (the deterministic one a run uses) and rebalancing on a level of 70,000 vertices: the
    same blocks and gains on 1, 3 and 16 threads, both objectives."""
    cpu = get_backend("cpu")
    ha = cpu.hypergraph_arrays(circuit)
    k = 8
    bounds = bounds_for(circuit.total_weight, k)
    parts = (np.random.default_rng(3).permutation(circuit.n) % k).astype(np.int32)
    skewed = np.where(np.arange(circuit.n) < circuit.n // 2, 0, parts).astype(np.int32)
    for objective in ("cut", "km1"):
        for name, fn in (
            ("fm", lambda o=objective: cpu.fm_refine_hypergraph(ha, parts, k, bounds, o, seed=1,
                                                                deterministic=True)),
            ("rebalance", lambda o=objective: cpu.rebalance_hypergraph(ha, skewed, k, bounds, o)),
        ):
            runs = [_on_threads(t, fn) for t in (1, 3, MANY)]
            for run in runs[1:]:
                np.testing.assert_array_equal(run[0], runs[0][0], err_msg=name)
                assert run[1] == runs[0][1], name


#: Run in a fresh process whose OpenMP teams have at most 2 threads (OMP_THREAD_LIMIT): the
#: stages asked for 8 threads get a team of 2, as libgomp gives with OMP_DYNAMIC on a loaded
#: machine. Prints one line per result: a digest of its arrays.
_SMALL_TEAM_CODE = """
import hashlib, numpy as np, igpart
from igpart.generators import random_circuit
from igpart.kernels import _cpu, get_backend
cpu = get_backend("cpu")
type(cpu).async_louvain_min_threads = 0  # the default's sub-rounds, the same on any team
type(cpu).async_cluster_min_threads = 0
h = random_circuit(20_000, seed=5)
ha = cpu.hypergraph_arrays(h)
def digest(*arrays):
    return hashlib.sha1(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()
_cpu.set_num_threads(8)
cmap, nc = cpu.cluster_hypergraph(ha, 4, seed=1, sub_rounds=16)
c = cpu.contract_hypergraph(ha, cmap, nc)
print(digest(cmap))
print(digest(c.eptr, c.eind, c.ewgt, c.vptr, c.vind, c.vwgt))
print(digest(cpu.communities(ha, seed=3, sub_rounds=64)))
print(digest(cpu.communities(ha, seed=3, sub_rounds=0)))
print(digest(cpu.communities(ha, seed=3, sub_rounds=64, max_net_size=50_000, graph="bipartite")))
print(digest(igpart.partition(h, 8, backend="cpu", seed=1, config={"threads": 8}).parts))
"""


def test_stages_on_a_smaller_team_than_asked_for(monkeypatch):
    """Where the OpenMP runtime gives a stage fewer threads than it asks for (OMP_THREAD_LIMIT,
    OMP_DYNAMIC on a loaded machine, a nested region), every stage gives what one thread
    gives and a whole run what a full team gives (Louvain's graphs once lost the rows of the
    slices of the missing threads). Louvain and the clustering run their sub-rounds, not the
    asynchronous passes and joins (``async_louvain_min_threads`` and
    ``async_cluster_min_threads`` 0), whose result depends on the threads' timing."""
    monkeypatch.setattr(CpuBackend, "async_louvain_min_threads", 0)
    monkeypatch.setattr(CpuBackend, "async_cluster_min_threads", 0)
    import hashlib
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "OMP_THREAD_LIMIT": "2",
           "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-c", _SMALL_TEAM_CODE], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr

    def digest(*arrays):
        return hashlib.sha1(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()

    cpu = get_backend("cpu")
    h = random_circuit(20_000, seed=5)
    ha = cpu.hypergraph_arrays(h)

    def one_thread():
        cmap, nc = cpu.cluster_hypergraph(ha, 4, seed=1, sub_rounds=16)
        c = cpu.contract_hypergraph(ha, cmap, nc)
        return [
            digest(cmap), digest(c.eptr, c.eind, c.ewgt, c.vptr, c.vind, c.vwgt),
            digest(cpu.communities(ha, seed=3, sub_rounds=64)),
            digest(cpu.communities(ha, seed=3, sub_rounds=0)),
            digest(cpu.communities(ha, seed=3, sub_rounds=64, max_net_size=50_000,
                                   graph="bipartite")),
            # a run on 2+ threads: sub-rounds at this size (sub_round_floor), as in the child
            digest(igpart.partition(h, 8, backend="cpu", seed=1, config={"threads": 2}).parts),
        ]

    names = ["clustering", "contraction", "louvain", "louvain (no sub-rounds)",
             "bipartite louvain", "partition"]
    got = r.stdout.split()
    assert len(got) == len(names), r.stdout
    for name, a, b in zip(names, _on_threads(1, one_thread), got):
        assert a == b, name


def test_partition_does_not_depend_on_the_thread_count(monkeypatch):
    """A deterministic run with every parallel stage on (sub-rounds of clustering and Louvain)
    gives the same blocks on 1, 2 and 16 threads, valid and balanced."""
    monkeypatch.setattr(CpuBackend, "sub_round_min_vertices", 4096)
    h = random_circuit(12_000, seed=2)
    cfg = {"initial": "metis", "deterministic": True}
    parts = []
    for threads in (1, 2, MANY):
        p = igpart.partition(h, 8, backend="cpu", seed=1, config=dict(cfg, threads=threads))
        assert p.balanced and (p.block_weights <= p.max_block_weight).all()
        parts.append(p.parts)
    np.testing.assert_array_equal(parts[0], parts[1])
    np.testing.assert_array_equal(parts[0], parts[2])



def test_stage_thread_cap_changes_no_result_and_restores_the_threads(monkeypatch):
    """``CpuBackend.stage_pins_per_thread`` caps the threads of each stage call by its level's
    pins: a run with every parallel stage on gives the same blocks with the cap off, at one
    thread per pin (no cap) and at one thread for every level, and each call gives the
    caller's OpenMP threads back."""
    monkeypatch.setattr(CpuBackend, "sub_round_min_vertices", 4096)
    h = random_circuit(12_000, seed=3)
    parts = []
    for per_thread in (0, 1, 10**9):
        monkeypatch.setattr(CpuBackend, "stage_pins_per_thread", per_thread)
        p = igpart.partition(h, 4, backend="cpu", seed=2,
                             config={"initial": "metis", "threads": 2, "deterministic": True})
        assert _cpu.get_stage_pins_per_thread() == per_thread
        assert p.balanced
        parts.append(p.parts)
    np.testing.assert_array_equal(parts[0], parts[1])
    np.testing.assert_array_equal(parts[0], parts[2])
    be = CpuBackend()  # the cap of 10**9 pins per thread: one thread inside every call
    hg = be.hypergraph_arrays(h)

    def calls():
        cmap, nc = be.cluster_hypergraph(hg, h.total_weight, sub_rounds=16)
        be.contract_hypergraph(hg, cmap, nc)
        be.communities(hg, sub_rounds=16)
        return _cpu.get_num_threads()

    assert _on_threads(3, calls) == 3
    with pytest.raises(ValueError, match="pins must be >= 0"):
        _cpu.set_stage_pins_per_thread(-1)


def test_stage_thread_cap_changes_no_graph_result_and_restores_the_threads(monkeypatch):
    """The graph stage calls count their level's arcs against the same cap: a deterministic
    graph partition (sequential FM) gives the same blocks with the cap off, at one thread per
    arc and at one thread for every level, and each call gives the caller's threads back."""
    from igpart.generators import grid_graph

    g = grid_graph(90, 90)
    parts = []
    for per_thread in (0, 1, 10**9):
        monkeypatch.setattr(CpuBackend, "stage_pins_per_thread", per_thread)
        p = igpart.partition(g, 8, backend="cpu", seed=2,
                             config={"threads": 3, "deterministic": True})
        assert p.balanced
        parts.append(p.parts)
    np.testing.assert_array_equal(parts[0], parts[1])
    np.testing.assert_array_equal(parts[0], parts[2])
    be = CpuBackend()  # one thread inside every call
    ga = be.graph_arrays(g)
    bounds = np.full(4, g.total_weight, dtype=np.int64)

    def calls():
        cmap, nc = be.cluster_graph_lp(ga, g.total_weight // 50, iterations=3, seed=1)
        be.contract_graph(ga, cmap, nc)
        p0 = np.arange(g.n, dtype=np.int32) % 4
        p1 = be.rebalance_graph(ga, p0, 4, bounds)
        be.lp_refine_graph(ga, p1, 4, bounds, iterations=2, seed=1)
        be.fm_refine_graph(ga, p1, 4, bounds, rounds=1, seed=1, deterministic=False)
        return _cpu.get_num_threads()

    assert _on_threads(3, calls) == 3


def test_jet_does_not_depend_on_the_thread_count():
    """Jet with every parallel path taken (boundary, candidates, sorts of more than 65,536
    candidates, afterburner): the same partition and gain on 1, 3 and 16 threads, balanced, the gain
    equal to the objective's change."""
    cpu = get_backend("cpu")
    h = random_circuit(90_000, seed=4)
    ha = cpu.hypergraph_arrays(h)
    k = 8
    bounds = bounds_for(h.total_weight, k)
    parts = (np.random.default_rng(1).permutation(h.n) % k).astype(np.int32)
    runs = [_on_threads(t, lambda: cpu.jet_refine_hypergraph(
        ha, parts, k, bounds, "km1", max_iterations=3, negative_gain_factor=0.75, seed=2))
        for t in (1, 3, MANY)]
    for run in runs[1:]:
        np.testing.assert_array_equal(runs[0][0], run[0])
        assert runs[0][1] == run[1] > 0
    before = cpu.hypergraph_objective(ha, parts, k, "km1")
    assert before - runs[0][1] == cpu.hypergraph_objective(ha, runs[0][0], k, "km1")
    assert (cpu.block_weights(h.vwgt, runs[0][0], k) <= bounds).all()


def test_refinement_follows_the_threads(monkeypatch):
    """``refinement="auto"`` on the C++ backend: Jet + FM from ``jet_min_threads`` threads on,
    sequence refinement + FM below; each gives a balanced partition."""
    calls = []
    jet = CpuBackend.jet_refine_hypergraph

    def recording(self, *a, **kw):
        calls.append(int(_cpu.get_num_threads()))
        return jet(self, *a, **kw)

    monkeypatch.setattr(CpuBackend, "jet_refine_hypergraph", recording)
    monkeypatch.setattr(CpuBackend, "jet_min_threads", 3)
    h = random_circuit(3_000, seed=6)
    for threads, uses_jet in ((2, False), (3, True)):
        calls.clear()
        p = igpart.partition(h, 4, backend="cpu", config={"threads": threads, "initial": "metis"})
        assert p.balanced and bool(calls) == uses_jet
        assert all(t == threads for t in calls)


def test_sub_rounds_by_default_on_large_inputs_only():
    """``Config.community_sub_rounds = -1`` and the clustering's default: sub-rounds from
    ``CpuBackend.sub_round_min_vertices`` vertices on, sequential below (the size-only rule of
    ``deterministic=True``; many threads lower it otherwise, see below); backends without a
    default of their own get 0."""
    from igpart.partitioner.config import Config
    from igpart.partitioner.context import community_sub_rounds

    cpu, cfg = CpuBackend(), Config(deterministic=True)
    big = cpu.sub_round_min_vertices
    assert community_sub_rounds(cpu, cfg, big) == cpu.community_sub_rounds > 0
    assert community_sub_rounds(cpu, cfg, big - 1) == 0
    assert community_sub_rounds(cpu, Config(community_sub_rounds=5), 10) == 5
    assert community_sub_rounds(object(), cfg, big) == 0
    h = random_circuit(6_000, seed=3)
    ha = cpu.hypergraph_arrays(h)
    default = cpu.cluster_hypergraph(ha, 6, seed=1)
    np.testing.assert_array_equal(default[0], cpu.cluster_hypergraph(ha, 6, seed=1,
                                                                      sub_rounds=0)[0])
    assert not np.array_equal(default[0], cpu.cluster_hypergraph(ha, 6, seed=1,
                                                                 sub_rounds=16)[0])


def test_large_inputs_cluster_every_level_in_sub_rounds(monkeypatch):
    """On inputs of ``sub_round_min_vertices`` vertices and more, every level of at least
    ``cluster_sub_round_min_level`` vertices (not only the large ones) is clustered in
    sub-rounds; smaller inputs keep the sequential clustering on their levels below
    ``sub_round_min_vertices``. The coarsener passes the policy's value on."""
    from igpart.partitioner.coarsening import hypergraph_coarsener
    from igpart.partitioner.context import resolve

    cpu = CpuBackend()
    big, low = cpu.sub_round_min_vertices, cpu.cluster_sub_round_min_level
    rounds = cpu.cluster_sub_rounds
    assert cpu.cluster_rounds(big, big) == cpu.cluster_rounds(big, 10) == rounds
    assert cpu.cluster_rounds(low, big) == rounds and cpu.cluster_rounds(low - 1, big) == 0
    assert cpu.cluster_rounds(big - 1, big - 1) == 0
    seen = []
    real = CpuBackend.cluster_hypergraph

    def spy(self, hg, mcw, **options):
        seen.append(options.get("sub_rounds"))
        return real(self, hg, mcw, **options)

    monkeypatch.setattr(CpuBackend, "cluster_hypergraph", spy)
    h = random_circuit(6_000, seed=3)
    ha = cpu.hypergraph_arrays(h)
    cfg = resolve(igpart.Config(), cpu, h, 4)
    for input_n, want in ((h.n, 0), (big, rounds)):
        coarsen_one = hypergraph_coarsener(cpu, 6, dataclasses.replace(cfg, n=input_n), 1)
        cmap, nc = coarsen_one(ha)
        assert seen[-1] == want and 0 < nc < h.n and int(cmap.max()) == nc - 1


def test_many_threads_lower_the_sub_round_floor_unless_deterministic():
    """Under ``deterministic=None`` (and False) from ``many_threads_sub_rounds_min_threads``
    threads on, inputs and levels of ``many_threads_sub_round_min_vertices`` vertices run
    Louvain and the clustering in sub-rounds; with fewer threads, and with
    ``deterministic=True`` on any, the size-only floor ``sub_round_min_vertices`` stays. A
    deterministic run's partition of such an input is the same on 1 and on many threads."""
    from igpart.partitioner.config import Config
    from igpart.partitioner.context import community_sub_rounds

    cpu = CpuBackend()
    many, low = cpu.many_threads_sub_rounds_min_threads, cpu.many_threads_sub_round_min_vertices
    big, rounds = cpu.sub_round_min_vertices, cpu.cluster_sub_rounds
    assert 0 < many and low < big
    for threads, det, floor in ((many, None, low), (many - 1, None, big), (MANY, True, big),
                                (MANY, None, low), (1, None, big), (MANY, False, low),
                                (1, False, big)):
        got = _on_threads(threads, lambda d=det: (
            cpu.sub_round_floor(d), community_sub_rounds(cpu, Config(deterministic=d), low),
            cpu.cluster_rounds(low, low, d), cpu.cluster_rounds(low - 1, low - 1, d)))
        assert got[0] == floor, (threads, det, got)
        assert got[1] == (cpu.community_sub_rounds if floor == low else 0)
        assert got[2] == (rounds if floor == low else 0) and got[3] == 0
    # the default argument is the size-only rule, whatever the threads
    assert _on_threads(MANY, lambda: cpu.cluster_rounds(low, low)) == 0
    h = random_circuit(low + 500, seed=5)
    cfg = {"deterministic": True, "initial": "metis", "vcycles": 0}
    one = _on_threads(1, lambda: igpart.partition(h, 4, backend="cpu", seed=2,
                                                  config=dict(cfg, threads=1)))
    wide = igpart.partition(h, 4, backend="cpu", seed=2, config=dict(cfg, threads=MANY))
    assert one.balanced and np.array_equal(one.parts, wide.parts)


def _sequence_refinement(ha, parts, k, bounds, objective, parallel_min_moves):
    return _cpu.refine_hypergraph(ha.eptr, ha.eind, ha.ewgt, ha.vptr, ha.vind, ha.vwgt,
                                  np.asarray(parts, dtype=np.int32), k, bounds,
                                  0 if objective == "cut" else 1, 16, parallel_min_moves)


@pytest.mark.parametrize("k", [2, 8])
def test_parallel_sequence_refinement_equals_the_sequential_one(circuit, k):
    """Sequence refinement evaluating its sequence per net in parallel makes the moves of the
    sequential evaluation (both objectives, 1, 3 and 16 threads), and its gain is the objective's
    decrease."""
    cpu = get_backend("cpu")
    ha = cpu.hypergraph_arrays(circuit)
    bounds = bounds_for(circuit.total_weight, k)
    rng = np.random.default_rng(k)
    parts = (np.arange(circuit.n) * k // circuit.n).astype(np.int32)
    flip = rng.choice(circuit.n, circuit.n // 10, replace=False)
    parts[flip] = rng.integers(0, k, flip.size)
    for objective in ("cut", "km1"):
        seq = _sequence_refinement(ha, parts, k, bounds, objective, 1 << 40)
        assert seq[1] > 0
        for threads in (1, 3, MANY):
            par = _on_threads(threads, lambda o=objective: _sequence_refinement(
                ha, parts, k, bounds, o, 1))
            np.testing.assert_array_equal(par[0], seq[0])
            assert par[1] == seq[1]
        before = cpu.hypergraph_objective(ha, parts, k, objective)
        assert before - seq[1] == cpu.hypergraph_objective(ha, seq[0], k, objective)


def test_parallel_sequence_refinement_on_small_random_levels():
    """Tiny levels with single-pin nets, zero weights and overloaded blocks: the parallel
    evaluation (forced) equals the sequential one."""
    from .util import random_hypergraph

    cpu = get_backend("cpu")
    rng = np.random.default_rng(9)
    for _ in range(60):
        n = int(rng.integers(2, 60))
        h = random_hypergraph(rng, n, int(rng.integers(1, 2 * n)), max_size=6, weighted=True)
        ha = cpu.hypergraph_arrays(h)
        k = int(rng.integers(2, 5))
        bounds = np.full(k, max(1, int(h.total_weight) // k + int(rng.integers(0, 5))),
                         dtype=np.int64)
        parts = rng.integers(0, k, n).astype(np.int32)
        for objective in ("cut", "km1"):
            a = _sequence_refinement(ha, parts, k, bounds, objective, 1 << 40)
            b = _sequence_refinement(ha, parts, k, bounds, objective, 1)
            np.testing.assert_array_equal(a[0], b[0])
            assert a[1] == b[1]


def test_parallel_transpose_is_the_stable_transpose():
    """The chunked parallel transpose (from 65,536 entries, empty rows and columns included)
    equals numpy's stable sort of the entries by column, on 1, 2, 3 and 16 threads."""
    rng = np.random.default_rng(4)
    nrows, ncols = 30_000, 20_000
    lengths = rng.integers(0, 7, nrows)
    lengths[-50:] = 0  # trailing empty rows
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    ind = rng.integers(0, ncols - 10, int(ptr[-1])).astype(np.int32)  # empty last columns
    rows = np.repeat(np.arange(nrows, dtype=np.int32), lengths)
    order = np.argsort(ind, kind="stable")
    expect_ptr = np.concatenate([[0], np.cumsum(np.bincount(ind, minlength=ncols))])
    assert ptr[-1] >= 65_536
    for threads in (1, 2, 3, MANY):
        tptr, tind = _on_threads(threads, lambda: _cpu.csr_transpose(ptr, ind, ncols))
        np.testing.assert_array_equal(tptr, expect_ptr)
        np.testing.assert_array_equal(tind, rows[order])


def _libgomp_spin_count(env: dict[str, str]) -> str | None:
    """libgomp's GOMP_SPINCOUNT (``omp_display_env``) in a fresh process that imports the C++
    module under ``env``; None where libgomp does not report it."""
    import os
    import subprocess
    import sys

    code = ("import ctypes, igpart.kernels._cpu\n"
            "try:\n"
            "    ctypes.CDLL('libgomp.so.1').omp_display_env(1)\n"
            "except (OSError, AttributeError):\n"
            "    pass\n")
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    r = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True,
                       text=True, timeout=120, check=True)
    for line in r.stderr.splitlines() + r.stdout.splitlines():
        if "GOMP_SPINCOUNT" in line:
            return line.split("=", 1)[1].strip().strip("'")
    return None


def test_openmp_waiters_sleep_unless_the_environment_chooses():
    """The C++ module's OpenMP threads sleep at barriers (no spinning: libgomp's spin count
    0) unless the environment sets the wait policy or the spin count, which are kept; the
    setting never stays in the process's environment."""
    import os

    assert "OMP_WAIT_POLICY" not in os.environ or os.environ["OMP_WAIT_POLICY"] != "PASSIVE"
    got = _libgomp_spin_count({})
    if got is None:
        pytest.skip("libgomp does not report its settings here")
    assert got == "0"
    assert _libgomp_spin_count({"GOMP_SPINCOUNT": "300000"}) == "300000"
    assert _libgomp_spin_count({"OMP_WAIT_POLICY": "active"}) not in ("0", None)


#: The environment variables whose presence turns the heap policy off (Dask's nanny sets
#: MALLOC_TRIM_THRESHOLD_ in the process that starts its workers, so an earlier test can leave it)
_MALLOC_ENV = ("GLIBC_TUNABLES", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_",
               "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")


def _clear_malloc_env(monkeypatch):
    for name in _MALLOC_ENV:
        monkeypatch.delenv(name, raising=False)


def test_heap_policy_changes_no_result_and_nests(monkeypatch):
    """A run with the heap kept for reuse (the default) gives the same partition as one without;
    the scopes nest (only the outermost restores glibc's defaults), and an end without a begin
    is an error."""
    _clear_malloc_env(monkeypatch)
    h = random_circuit(20_000, seed=3)
    det = {"deterministic": True}  # runs that can be compared
    kept = igpart.partition(h, 8, backend=CpuBackend(retain_heap=True), seed=2, config=det)
    plain = igpart.partition(h, 8, backend=CpuBackend(retain_heap=False), seed=2, config=det)
    assert np.array_equal(kept.parts, plain.parts) and kept.cut == plain.cut
    assert CpuBackend().retain_heap and not CpuBackend(retain_heap=False).retain_heap
    if not _cpu.heap_retain_begin():
        pytest.skip("not glibc, or the environment sets malloc parameters")
    try:
        assert _cpu.heap_retain_begin()
        inner = igpart.partition(h, 8, backend=CpuBackend(), seed=2, config=det)
        _cpu.heap_retain_end()
    finally:
        _cpu.heap_retain_end()
    assert np.array_equal(inner.parts, plain.parts)
    with pytest.raises(RuntimeError, match="no scope is open"):
        _cpu.heap_retain_end()


def test_heap_scope_end_with_more_threads_set_inside(monkeypatch):
    """A scope in which more OpenMP threads were set than at its begin ends (its end frees a
    block on each of those threads) and leaves the calling thread's setting as it was."""
    _clear_malloc_env(monkeypatch)
    if not _cpu.heap_retain_begin():
        pytest.skip("not glibc, or the environment sets malloc parameters")
    before = int(_cpu.get_num_threads())
    try:
        _cpu.set_num_threads(before + 3)
        _cpu.set_num_threads(before)
    finally:
        _cpu.heap_retain_end()
    assert int(_cpu.get_num_threads()) == before


def test_heap_policy_leaves_malloc_settings_from_the_environment():
    """Where the environment sets glibc's malloc parameters the run changes none of them."""
    import os
    import platform
    import subprocess
    import sys

    code = "from igpart.kernels import _cpu; print(_cpu.heap_retain_begin())"
    clean = {k: v for k, v in os.environ.items() if k not in _MALLOC_ENV}
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=clean, check=True).stdout
        assert out.strip() == "True"
    for env in ({"GLIBC_TUNABLES": "glibc.malloc.mmap_max=65536"}, {"MALLOC_TRIM_THRESHOLD_": "1"}):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**clean, **env}, check=True).stdout
        assert out.strip() == "False"


def test_gil_switch_interval_lowers_and_restores_when_the_last_block_ends():
    """Nested and concurrent blocks: the interval is lowered while any of them runs, never
    raised, and restored once the last ends; 0 leaves it unchanged."""
    import sys
    import threading

    from igpart.parallel.threads import gil_switch_interval

    before = sys.getswitchinterval()
    with gil_switch_interval(0):
        assert sys.getswitchinterval() == before
    with gil_switch_interval(before * 10):
        assert sys.getswitchinterval() == before
    inside, go, done = threading.Event(), threading.Event(), []

    def other():
        with gil_switch_interval(0.0003):
            inside.set()
            go.wait(30)
        done.append(sys.getswitchinterval())

    t = threading.Thread(target=other)
    with gil_switch_interval(0.0003):
        t.start()
        inside.wait(30)
        with gil_switch_interval(0.0003):
            assert sys.getswitchinterval() < before
    assert sys.getswitchinterval() < before  # the other thread's block still runs
    go.set()
    t.join(30)
    assert done == [before] and sys.getswitchinterval() == before
