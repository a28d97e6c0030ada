"""Recursive bisection (``Config.initial = "rb"``, :mod:`igpart.partitioner.initial.recursive`):
valid, balanced, deterministic partitions, sub-hypergraphs equal to a brute-force reference,
errors."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
import igpart.generators
from igpart import Config, PartitionError
from igpart.errors import InputError
from igpart.metrics import block_weights, max_block_weight
from igpart.partitioner.driver import bisect
from igpart.partitioner.initial import recursive as rb
from igpart.partitioner.initial.recursive import adapted_epsilon, sub_hypergraph

from .test_multilevel import check_partition, instances
from .util import random_graph, random_hypergraph

#: recursive bisection with igpart's own k = 2 pipeline, as the driver runs it
recursive_bisection = functools.partial(rb.recursive_bisection, bisect=bisect)

PROPS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KS = [2, 3, 5, 8, 16]


def reference_sub_hypergraph(h, vertices, objective):
    """Plain-Python sub-hypergraph (tests only): nets as sorted tuples with their weights."""
    newid = {int(v): i for i, v in enumerate(vertices)}
    nets = []
    for e in range(h.m):
        pins = [newid[int(v)] for v in h.net(e) if int(v) in newid]
        if len(pins) < 2 or (objective == "cut" and len(pins) < len(h.net(e))):
            continue
        nets.append((tuple(pins), int(h.ewgt[e])))
    return nets


@PROPS
@given(st.integers(0, 2**31 - 1), st.sampled_from(["cut", "km1"]))
def test_sub_hypergraph_equals_reference(seed, objective):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    h = random_hypergraph(rng, n, int(rng.integers(0, 2 * n + 1)), max_size=6, weighted=True)
    vertices = np.flatnonzero(rng.random(n) < 0.5)
    sub = sub_hypergraph(h, vertices, objective)
    assert sub.n == vertices.size
    assert np.array_equal(sub.vwgt, h.vwgt[vertices])
    got = [(tuple(int(v) for v in sub.net(e)), int(sub.ewgt[e])) for e in range(sub.m)]
    assert got == reference_sub_hypergraph(h, vertices, objective)


def test_sub_hypergraph_rejects_bad_vertex_lists():
    """The C++ extraction behind ``sub_hypergraph``: a repeated or out-of-range vertex id is an
    error naming the function, and an empty list gives an empty hypergraph."""
    from igpart.kernels import _cpu

    rng = np.random.default_rng(5)
    h = random_hypergraph(rng, 20, 30, max_size=5, weighted=True)
    for bad in ([1, 1], [0, 20], [-1]):
        with pytest.raises(ValueError, match="sub_hypergraph"):
            _cpu.sub_hypergraph(h.eptr, h.eind, h.n, np.array(bad, dtype=np.int64), True)
    empty = sub_hypergraph(h, np.array([], dtype=np.int64), "km1")
    assert empty.n == 0 and empty.m == 0


def test_adapted_epsilon_keeps_the_final_bound():
    # a balanced sub-hypergraph: the per-level imbalance compounds to exactly (1 + eps)
    for k in (2, 4, 8, 16, 64):
        e = adapted_epsilon(0.03, 64_000, k, 64_000, k)
        assert (1 + e) ** math.ceil(math.log2(k)) == pytest.approx(1.03)
    assert adapted_epsilon(0.03, 1000, 2, 1000, 2) == pytest.approx(0.03)
    # a heavier sub-hypergraph leaves less room, never a negative one
    assert adapted_epsilon(0.03, 1000, 4, 520, 2) < 0.03
    assert adapted_epsilon(0.03, 1000, 4, 600, 2) == 0.0


#: Strategies of the property tests: instance, k, objective, epsilon.
CASES = (
    instances(),
    st.sampled_from(KS),
    st.sampled_from(["cut", "km1"]),
    st.sampled_from([0.0, 0.03, 0.1]),
)


@PROPS
@given(*CASES)
def test_recursive_bisection_returns_valid_blocks(h, k, objective, eps):
    k = min(k, max(h.n, 1))
    parts = recursive_bisection(h, k, eps, objective, seed=3, runs=2)
    assert parts.shape == (h.n,) and parts.dtype == np.int32
    assert h.n == 0 or (parts.min() >= 0 and parts.max() < k)


@PROPS
@given(*CASES, st.sampled_from(["rb", "rb+metis"]), st.sampled_from([40, 2]))
def test_partition_with_rb_is_valid_and_balanced(h, k, objective, eps, method, limit):
    k = min(k, max(h.n, 1))
    cfg = Config(initial=method, contraction_limit=limit, bisection_contraction_limit=limit,
                 initial_rb_runs=2, initial_rb_seeds=2)
    p = igpart.partition(h, k, epsilon=eps, objective=objective, backend="cpu", seed=1, config=cfg)
    check_partition(h, p, k, eps)


@pytest.mark.parametrize("k", KS)
def test_rb_on_a_weighted_circuit_is_balanced(k):
    h = igpart.generators.random_circuit(3000, seed=k)
    rng = np.random.default_rng(k)
    h = h.with_weights(vwgt=rng.integers(1, 10, size=h.n))
    parts = recursive_bisection(h, k, 0.03, "cut", seed=1, runs=4)
    # the bisections aim at the k-way bound: on unit-ish weights they reach it
    assert block_weights(h, parts, k).max() <= max_block_weight(h.total_weight, k, 0.03)
    for method in ("rb", "rb+metis"):
        p = igpart.partition(h, k, backend="cpu", seed=2, config=Config(initial=method))
        check_partition(h, p, k, 0.03)
        assert p.balanced


def test_rb_is_deterministic_and_independent_of_threads():
    h = random_hypergraph(np.random.default_rng(5), 3000, 3500, max_size=6, weighted=True)
    a = recursive_bisection(h, 5, 0.03, "km1", seed=7, runs=3)
    b = recursive_bisection(h, 5, 0.03, "km1", seed=7, runs=3)
    assert np.array_equal(a, b)
    p = [
        igpart.partition(h, 8, backend="cpu", seed=4, config=Config(initial="rb", threads=t))
        for t in (1, 1, 3, 8)  # 8: two candidates, four threads for the bisections in each
    ]
    assert all(np.array_equal(p[0].parts, q.parts) for q in p[1:])


def reference_recursive_bisection(h, k, epsilon, objective, seed, runs):
    """The first implementation of :func:`recursive_bisection` (tests only): one bisection
    after another, depth first, each igpart's k = 2 pipeline on the sub-hypergraph (one level,
    without communities, below ``Config.initial_rb_flat_vertices`` vertices)."""
    import dataclasses

    from igpart.kernels import get_backend
    from igpart.partitioner.context import Timer
    from igpart.partitioner.driver import multilevel_hypergraph

    cfg = dataclasses.replace(
        Config(), initial="metis", initial_runs=runs, threads=1, vcycles=0, refinement="fm",
        bisection_contraction_limit=0,
    )
    be = get_backend("cpu")
    parts = np.zeros(h.n, dtype=np.int32)
    total = int(h.total_weight)
    final = math.floor((1.0 + epsilon) * -(-total // k) + 1e-9)
    stack = [(h, np.arange(h.n), 0, k)]
    while stack:
        sub, ids, first, ks = stack.pop()
        if ks == 1 or sub.n < 2:
            parts[ids] = first
            continue
        k0, k1 = (ks + 1) // 2, ks // 2
        eps = adapted_epsilon(epsilon, total, k, int(sub.total_weight), ks)
        bounds = np.array(
            [
                min(math.floor((1 + eps) * sub.total_weight * kk / ks + 1e-9), final * kk)
                for kk in (k0, k1)
            ],
            dtype=np.int64,
        )
        flat = sub.n < cfg.initial_rb_flat_vertices
        side = multilevel_hypergraph(
            sub, 2, eps, objective, be, seed + 7919 * first + ks,
            dataclasses.replace(cfg, communities=False, contraction_limit=1 << 30) if flat
            else cfg, Timer(), block_bounds=bounds
        )
        for s, (off, kk) in enumerate(((first, k0), (first + k0, k1))):
            local = np.flatnonzero(side == s)
            stack.append((sub_hypergraph(sub, local, objective), ids[local], off, kk))
    return parts


@pytest.mark.parametrize(
    ("n", "k", "objective", "seed"),
    [
        (400, 3, "cut", 0),
        (1500, 8, "km1", 1),
        (2500, 16, "cut", 2),
        (3000, 64, "cut", 3),
        (3000, 11, "km1", 4),
    ],
)
def test_rb_equals_the_sequential_reference_for_any_thread_count(n, k, objective, seed):
    """The bisections of one depth run concurrently: same blocks as one after another."""
    h = igpart.generators.random_circuit(n, seed=seed)
    h = h.with_weights(vwgt=np.random.default_rng(seed).integers(1, 4, size=h.n))
    ref = reference_recursive_bisection(h, k, 0.03, objective, seed, runs=4)
    for threads in (1, 2, 5):
        got = recursive_bisection(h, k, 0.03, objective, seed=seed, runs=4, threads=threads)
        np.testing.assert_array_equal(got, ref)


def test_rb_bad_input_raises():
    h = random_hypergraph(np.random.default_rng(1), 20, 30)
    with pytest.raises(PartitionError):
        recursive_bisection(h, 21, 0.03)
    with pytest.raises(PartitionError):
        recursive_bisection(h, 0, 0.03)
    for kwargs, message in (
        ({"epsilon": -1.0}, "epsilon must be a non-negative number"),
        ({"epsilon": float("nan")}, "epsilon must be a non-negative number"),
        ({"epsilon": 0.03, "objective": "soed"}, "unknown objective 'soed'"),
        ({"epsilon": 0.03, "runs": 0}, "runs must be a positive integer, got 0"),
        ({"epsilon": 0.03, "seed": "a"}, "seed must be an integer"),
        ({"epsilon": 0.03, "threads": 0}, "threads must be a positive integer, got 0"),
        ({"epsilon": 0.03, "threads": 1.5}, "threads must be a positive integer"),
    ):
        with pytest.raises(InputError, match=message):
            recursive_bisection(h, 4, **kwargs)
    with pytest.raises(InputError, match="needs a Hypergraph"):
        recursive_bisection(random_graph(np.random.default_rng(1), 20, 30), 2, 0.03)
    with pytest.raises(InputError):
        Config.from_dict({"initial": "bisection"})
    for bad in ({"initial_rb_runs": 0}, {"initial_rb_seeds": -1}):
        with pytest.raises(InputError):
            Config.from_dict(bad)


def test_graphs_with_rb_fall_back_to_metis():
    g = random_graph(np.random.default_rng(3), 500, 1500)
    p = igpart.partition(g, 4, backend="cpu", config=Config(initial="rb"))
    check_partition(g, p, 4, 0.03)


def test_auto_rule_and_effort():
    from igpart.partitioner.context import rb_effort
    from igpart.partitioner.initial.pool import resolve_initial_method

    assert Config().initial == "auto"
    assert resolve_initial_method("auto", 3, True) == "rb"
    assert resolve_initial_method("auto", 64, True, large=True) == "rb"
    assert resolve_initial_method("auto", 2, True, large=True) == "metis"
    assert resolve_initial_method("auto", 2, True) == "metis"
    assert resolve_initial_method("auto", 8, False) == "metis"  # graphs
    assert resolve_initial_method("metis", 8, True) == "metis"
    cfg = Config()
    assert rb_effort(cfg, 16) == rb_effort(cfg, 32) == (4, 16)
    assert rb_effort(cfg, 64) == rb_effort(cfg, 64, large=False) == (1, 16)
    assert rb_effort(cfg, 128) == rb_effort(cfg, 128, large=False) == (1, 4)
    assert rb_effort(cfg, 2, large=False) == (2, 8)
    for large in (True, False):
        efforts = [rb_effort(cfg, k, large) for k in (2, 16, 32, 64, 128, 1024)]
        assert all(r >= 1 and s >= 4 for r, s in efforts)
        assert all(a[0] * a[1] >= b[0] * b[1] for a, b in zip(efforts, efforts[1:]))
    assert rb_effort(Config(initial_rb_runs=1, initial_rb_seeds=1), 1024, False) == (1, 1)


@pytest.mark.parametrize("threads", [1, 3])
def test_equal_candidates_are_refined_once_with_the_same_winner(threads):
    """initial_partition refines a METIS candidate equal to an earlier one only once; the
    result is the best of all candidates, each refined and scored from scratch (ties: first)."""
    from igpart.kernels import get_backend
    from igpart.partitioner.initial.metis import metis_partition
    from igpart.partitioner.initial.pool import initial_partition

    be = get_backend("cpu")
    h = igpart.generators.random_circuit(60, seed=2)
    ha = be.hypergraph_arrays(h)
    k, runs = 2, 24
    bounds = np.full(k, max_block_weight(h.total_weight, k, 0.03), dtype=np.int64)
    calls = []

    def refine(p):
        calls.append(p.tobytes())
        p = be.rebalance_hypergraph(ha, p, k, bounds, "cut")
        return be.fm_refine_hypergraph(ha, p, k, bounds, "cut", seed=1)[0]

    def evaluate(p):
        return be.hypergraph_objective(ha, p, k, "cut")

    got = initial_partition(h, k, 0.03, "cut", seed=0, method="metis", runs=runs,
                            refine=refine, evaluate=evaluate, threads=threads)  # fmt: skip
    raw = [metis_partition(h, k, 0.03, s) for s in range(runs)]
    distinct = {p.tobytes() for p in raw}
    assert len(distinct) < runs  # the case this test is about: METIS repeats itself
    assert sorted(calls) == sorted(distinct)  # each distinct candidate refined exactly once
    scored = []
    for p in raw:
        q = refine(p)
        overload = int(np.maximum(block_weights(h, q, k) - bounds, 0).sum())
        scored.append(((overload, evaluate(q)), q))
    best = min(range(runs), key=lambda i: (scored[i][0], i))
    np.testing.assert_array_equal(got, scored[best][1])


def test_omp_threads_caps_the_calling_thread_only_and_restores():
    """``omp_threads`` (the share of the C++ OpenMP threads that the worker threads of the
    initial partitioning and the bisections take): set inside the block for the calling thread
    only, restored after it, also after an exception; bad counts are raised to 1."""
    import threading

    from igpart.kernels import _cpu, omp_threads

    before = _cpu.get_num_threads()
    seen = {}

    def worker():
        seen["own"] = _cpu.get_num_threads()  # a new thread starts from the process default
        with omp_threads(3):
            seen["inside"] = _cpu.get_num_threads()
        seen["after"] = _cpu.get_num_threads()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["inside"] == 3 and seen["after"] == seen["own"]
    assert _cpu.get_num_threads() == before  # the main thread's setting was never touched
    with pytest.raises(RuntimeError):
        with omp_threads(2):
            assert _cpu.get_num_threads() == 2
            raise RuntimeError("inside")
    assert _cpu.get_num_threads() == before
    with omp_threads(0):
        assert _cpu.get_num_threads() == 1
    assert _cpu.get_num_threads() == before


def test_worker_threads_get_a_share_of_the_openmp_threads():
    """With ``threads`` > 1 every bisection runs with its share (threads * k_sub / k) of the
    OpenMP threads, and the partition is the one of a single thread."""
    from igpart.kernels import _cpu

    h = random_hypergraph(np.random.default_rng(5), 600, 900)
    seen = []

    def spy(be, sub, *args):
        seen.append((sub.n, _cpu.get_num_threads()))
        return bisect(be, sub, *args)

    python = Config(initial_rb_flat_vertices=0)  # every bisection through ``bisect``
    one = recursive_bisection(h, 8, 0.03, "cut", seed=1, runs=2, threads=1, bisect=spy,
                              config=python)
    assert {t for _, t in seen} == {_cpu.get_num_threads()}
    seen.clear()
    many = recursive_bisection(h, 8, 0.03, "cut", seed=1, runs=2, threads=4, bisect=spy,
                               config=python)
    np.testing.assert_array_equal(one, many)
    top = max(seen)  # the first bisection, on every vertex: all 4 threads; the 4 last: 1 each
    assert top == (h.n, 4)
    assert sorted(t for _, t in seen) == [1, 1, 1, 1, 2, 2, 4]


@pytest.mark.parametrize("python_threads", [1, 2, 64])
def test_python_thread_cap_bounds_concurrent_bisections_not_the_blocks(monkeypatch,
                                                                          python_threads):
    """Without worker processes at most ``CpuBackend.rb_python_threads`` bisections run at
    once, under the lowered switch interval, and the blocks are those of one thread."""
    import sys
    import threading

    from igpart.kernels.cpu import CpuBackend

    h = random_hypergraph(np.random.default_rng(7), 700, 1000)
    one = recursive_bisection(h, 16, 0.03, "cut", seed=2, runs=2, threads=1)
    monkeypatch.setattr(CpuBackend, "rb_python_threads", python_threads)
    monkeypatch.setattr(CpuBackend, "rb_switch_interval", 0.0004)
    lock, state = threading.Lock(), {"now": 0, "most": 0, "intervals": set()}

    def spy(be, sub, *args):
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
            state["intervals"].add(sys.getswitchinterval())
        try:
            return bisect(be, sub, *args)
        finally:
            with lock:
                state["now"] -= 1

    before = sys.getswitchinterval()
    many = recursive_bisection(h, 16, 0.03, "cut", seed=2, runs=2, threads=8, bisect=spy)
    np.testing.assert_array_equal(one, many)
    assert 1 <= state["most"] <= min(8, python_threads)
    assert all(abs(x - min(before, 0.0004)) < 1e-6 for x in state["intervals"])
    assert sys.getswitchinterval() == before


def test_bisection_seeds_halve_per_level_down_to_the_floor():
    """``Config.initial_rb_min_seeds``: all the seeds for the first bisection, half as many one
    level below, never fewer than the floor (nor more than the seeds); 0 keeps them all."""
    assert [rb.bisection_seeds(16, 4, ks, 64) for ks in (64, 32, 16, 8, 4, 2)] == [
        16, 8, 4, 4, 4, 4]
    assert [rb.bisection_seeds(16, 0, ks, 64) for ks in (64, 32, 2)] == [16, 16, 16]
    assert [rb.bisection_seeds(8, 3, ks, 11) for ks in (11, 6, 5, 3, 2)] == [8, 5, 4, 3, 3]
    assert rb.bisection_seeds(2, 4, 2, 64) == 2  # the floor never exceeds the seeds
    h = random_hypergraph(np.random.default_rng(3), 500, 800)
    seen = []

    def spy(be, sub, bounds, eps, objective, seed, cfg, *args, **kwargs):
        seen.append((round(8 * sub.total_weight / h.total_weight), cfg.initial_runs))
        return bisect(be, sub, bounds, eps, objective, seed, cfg, *args, **kwargs)

    parts = rb.recursive_bisection(h, 8, 0.03, seed=1, runs=6, bisect=spy,
                                   config=Config(initial_rb_min_seeds=2,
                                                 initial_rb_flat_vertices=0))
    assert sorted(set(seen)) == [(2, 2), (4, 3), (8, 6)]
    assert np.bincount(parts, minlength=8).min() > 0
    with pytest.raises(InputError, match="initial_rb_min_seeds"):
        Config(initial_rb_min_seeds=-2).validate()


def test_automatic_seed_floor_only_for_a_single_candidate():
    """``initial_rb_min_seeds = -1`` (the default): a floor of 8 seeds when recursive
    bisection is the only candidate (k >= 64 by default) on an input below
    ``initial_runs_min_n`` vertices, none beside other candidates or on larger inputs; an
    explicit value is kept either way."""
    from igpart.partitioner.context import rb_min_seeds
    from igpart.partitioner.initial.pool import initial_partition

    assert rb_min_seeds(Config(), 1) == 8 and rb_min_seeds(Config(), 4) == 0
    assert rb_min_seeds(Config(initial_rb_min_seeds=3), 4) == 3
    assert rb_min_seeds(Config(initial_rb_min_seeds=0), 1) == 0
    assert rb_min_seeds(Config(), 1, large=True) == 0
    assert rb_min_seeds(Config(initial_rb_min_seeds=8), 1, large=True) == 8
    h = random_hypergraph(np.random.default_rng(7), 400, 700)
    seen = []

    def spy(be, sub, bounds, eps, objective, seed, cfg, *args, **kwargs):
        seen.append((round(4 * sub.total_weight / h.total_weight), cfg.initial_runs))
        return bisect(be, sub, bounds, eps, objective, seed, cfg, *args, **kwargs)

    for candidates, expected in ((1, [(2, 8), (4, 16)]), (2, [(2, 16), (4, 16)])):
        seen.clear()
        parts = initial_partition(h, 4, 0.03, "cut", method="rb", rb_runs=candidates,
                                  rb_seeds=16, bisect=spy,
                                  config=Config(initial_rb_flat_vertices=0))
        assert sorted(set(seen)) == expected
        assert np.bincount(parts, minlength=4).min() > 0


def test_inherited_communities_are_the_first_bisections_restricted():
    """``Config.initial_rb_communities = "once"``: the first bisection gets the Louvain
    communities its own k = 2 pipeline finds (same seed: the same first bisection as
    ``"each"``); every later one those of its vertices, renumbered densely; the partition does
    not depend on the threads."""
    h = igpart.generators.random_circuit(1200, seed=5)
    cfg = Config(initial_rb_communities="once")
    k, seed = 8, 2
    calls, tasks = [], []

    def spy(be, sub, *args, communities=None, **kwargs):
        calls.append((sub.n, communities))
        return bisect(be, sub, *args, communities=communities, **kwargs)

    real_split = rb._Plan.split

    def record(self, task, *args, **kwargs):
        tasks.append(task)
        return real_split(self, task, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rb._Plan, "split", record)
        parts = rb.recursive_bisection(h, k, 0.03, seed=seed, runs=2, config=cfg, bisect=spy)
    # "each": the first bisection detects them itself, the same ones
    import igpart.partitioner.driver as driver

    detected = []
    real_detect = driver.detect_communities

    def detect(*args, **kwargs):
        out = real_detect(*args, **kwargs)
        detected.append(None if out is None else np.asarray(out))
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(driver, "detect_communities", detect)
        each = rb.recursive_bisection(h, k, 0.03, seed=seed, runs=2, bisect=bisect)
    top = detected[0]
    assert top is not None and top.max() > 1 and each.size == h.n
    assert len(tasks) == len(calls) == k - 1
    for (sub, ids, _, _, labels), (n, given_labels) in zip(tasks, calls):
        assert sub.n == ids.size == n and given_labels is labels
        np.testing.assert_array_equal(labels, rb.dense_labels(top[ids]))
        assert labels.min() == 0 and np.unique(labels).size == labels.max() + 1
    for threads in (2, 5):
        again = rb.recursive_bisection(h, k, 0.03, seed=seed, runs=2, config=cfg,
                                       threads=threads, bisect=bisect)
        np.testing.assert_array_equal(again, parts)
    with pytest.raises(InputError, match="initial_rb_communities"):
        Config(initial_rb_communities="twice").validate()
