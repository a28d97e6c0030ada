"""Greedy hypergraph growing (``igpart.partitioner.initial.pool.ghg_bisections``, C++) and
``Config.initial_bisector``: valid bisections within their bounds, deterministic for a seed and
independent of the OpenMP threads, the obvious bisection on tiny instances, config errors, and
valid + balanced end-to-end partitions with every bisector."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
import igpart.generators
from igpart import Config, Hypergraph
from igpart.errors import InputError, PartitionError
from igpart.kernels import _cpu
from igpart.metrics import block_weights, cut, max_block_weight
from igpart.partitioner.initial.pool import ghg_bisections, initial_partition

from .test_multilevel import check_partition, instances
from .util import random_hypergraph

PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bounds(h, fractions=(1, 1), eps=0.03):
    total = h.total_weight
    f = np.asarray(fractions, dtype=float)
    return np.floor((1 + eps) * total * f / f.sum()).astype(np.int64)


@PROPS
@given(instances(), st.sampled_from([(1, 1), (2, 1), (1, 3)]), st.integers(0, 1000))
def test_ghg_is_valid_and_deterministic(h, fractions, seed):
    """Every row: block ids 0/1; the grown block never exceeds its bound; row r is the run of
    seed + r on its own; the same arrays on a second call."""
    bounds = _bounds(h, fractions)
    rows = ghg_bisections(h, bounds, seed, 6)
    assert rows.shape == (6, h.n) and rows.dtype == np.int32
    assert np.isin(rows, (0, 1)).all()
    for r, parts in enumerate(rows):
        g = (seed + r) % 2
        assert block_weights(h, parts, 2)[g] <= max(bounds[g], 0)
        assert np.array_equal(ghg_bisections(h, bounds, seed + r, 1)[0], parts)
    assert np.array_equal(ghg_bisections(h, bounds, seed, 6), rows)


@pytest.mark.parametrize("fractions", [(1, 1), (2, 1), (3, 5)])
def test_ghg_unit_weights_meet_both_bounds(fractions):
    """Unit weights, a feasible bisection: both blocks within their bounds, and the grown block
    at its share of the total (rounded down) or one more."""
    h = random_hypergraph(np.random.default_rng(3), 200, 400, max_size=5)
    bounds = _bounds(h, fractions)
    for s, parts in enumerate(ghg_bisections(h, bounds, 0, 8)):
        bw = block_weights(h, parts, 2)
        assert (bw <= bounds).all(), (bw, bounds)
        g = s % 2
        share = h.total_weight * bounds[g] // bounds.sum()
        assert share <= bw[g] <= share + 1


def test_ghg_independent_of_threads():
    """Large enough for the OpenMP loop over runs: the same rows on 1 and 2 threads."""
    h = igpart.generators.random_circuit(20000, seed=5)
    bounds = _bounds(h)
    before = _cpu.get_num_threads()
    try:
        _cpu.set_num_threads(1)
        one = ghg_bisections(h, bounds, 7, 8)
        _cpu.set_num_threads(2)
        two = ghg_bisections(h, bounds, 7, 8)
    finally:
        _cpu.set_num_threads(before)
    assert np.array_equal(one, two)


def _two_cliques(size: int) -> Hypergraph:
    """Two cliques of ``size`` vertices (2-pin nets) joined by one net between vertex 0 and
    vertex ``size``."""
    nets = [[a, b] for a in range(size) for b in range(a + 1, size)]
    nets += [[size + a, size + b] for a in range(size) for b in range(a + 1, size)]
    nets.append([0, size])
    return Hypergraph.from_nets(nets, n=2 * size)


@pytest.mark.parametrize("size", [4, 7])
def test_ghg_finds_the_two_cliques(size):
    """Every seed puts each clique in one block: cut 1 (the joining net)."""
    h = _two_cliques(size)
    for parts in ghg_bisections(h, _bounds(h, eps=0.0), 0, 8):
        assert cut(h, parts, 2) == 1
        assert len(set(parts[:size])) == 1 and len(set(parts[size:])) == 1


@pytest.mark.parametrize("n,fractions", [(10, (1, 1)), (12, (2, 1)), (15, (1, 4))])
def test_ghg_grows_a_connected_block_on_a_path(n, fractions):
    """On a path, every seed's grown block is one contiguous segment of its share (cut <= 2;
    a segment at an end of the path: cut 1)."""
    h = Hypergraph.from_nets([[i, i + 1] for i in range(n - 1)], n=n)
    bounds = _bounds(h, fractions, eps=0.0)
    for s, parts in enumerate(ghg_bisections(h, bounds, 0, 8)):
        grown = np.flatnonzero(parts == s % 2)
        assert grown.size == bounds[s % 2]
        assert grown[-1] - grown[0] == grown.size - 1  # contiguous
        assert cut(h, parts, 2) == (1 if grown[0] == 0 or grown[-1] == n - 1 else 2)


def test_ghg_skips_a_vertex_heavier_than_the_bound():
    """Block 0 (bound 6) grows around the heavy vertex (10) and takes the three light ones."""
    h = Hypergraph.from_nets([[0, 1], [1, 2], [2, 3], [3, 0]], n=4, vwgt=[1, 10, 1, 1])
    bounds = np.array([6, 10], dtype=np.int64)
    for parts in ghg_bisections(h, bounds, 0, 8)[::2]:  # even seeds grow block 0
        assert parts.tolist() == [0, 1, 0, 0]


def test_ghg_bad_input():
    h = _two_cliques(3)
    with pytest.raises(PartitionError):
        ghg_bisections(h, [1, 2, 3], 0, 2)
    with pytest.raises(PartitionError):
        ghg_bisections(igpart.Graph.from_edges([0], [1], n=2), [1, 1], 0, 2)
    with pytest.raises(ValueError):
        _cpu.greedy_bisect_hypergraph(
            h.eptr, h.eind, h.ewgt, h.vptr, h.vind, h.vwgt, np.ones(2, np.int64), 0, -1
        )
    assert ghg_bisections(h, [3, 3], 0, 0).shape == (0, h.n)


def test_initial_partition_picks_the_best_ghg_row():
    """Without refinement, the ``ghg`` pool at k = 2 returns its best balanced row (ties: the
    first), and ``both`` is never worse than ``metis`` or ``ghg`` alone."""
    h = random_hypergraph(np.random.default_rng(11), 150, 300, max_size=4)
    bound = max_block_weight(h.total_weight, 2, 0.03)
    bounds = np.array([bound, bound], dtype=np.int64)
    rows = ghg_bisections(h, bounds, 4, 6)
    key = [(int(np.maximum(block_weights(h, p, 2) - bounds, 0).sum()), cut(h, p, 2)) for p in rows]
    want = rows[min(range(6), key=lambda i: (key[i], i))]

    def run(b):
        return initial_partition(
            h, 2, 0.03, "cut", seed=4, runs=6, evaluate=lambda p: cut(h, p, 2), bisector=b
        )

    assert np.array_equal(run("ghg"), want)
    both = cut(h, run("both"), 2)
    assert both <= min(cut(h, run("metis"), 2), cut(h, want, 2))
    with pytest.raises(PartitionError, match="bisector"):
        run("greedy")


@pytest.mark.parametrize("value", ["greedy", "", None, 1, True])
def test_config_rejects_bad_bisector(value):
    with pytest.raises(InputError, match="initial_bisector"):
        Config(initial_bisector=value).validate()
    with pytest.raises(InputError, match="initial_bisector"):
        igpart.partition(_two_cliques(3), 2, backend="cpu", config={"initial_bisector": value})


def test_config_default_bisector_is_metis():
    assert Config().initial_bisector == "metis"
    for b in ("metis", "ghg", "both"):
        assert Config(initial_bisector=b).validate().initial_bisector == b


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    instances(),
    st.sampled_from([2, 3, 5]),
    st.sampled_from(["cut", "km1"]),
    st.sampled_from(["auto", "rb", "metis", "rb+metis"]),
    st.sampled_from(["ghg", "both"]),
)
def test_partition_with_each_bisector_is_valid_and_balanced(h, k, objective, method, bisector):
    k = min(k, max(h.n, 1))
    cfg = Config(initial=method, contraction_limit=2, bisection_contraction_limit=2,
                 initial_rb_runs=2, initial_rb_seeds=3,
                 initial_bisector=bisector)  # fmt: skip
    p = igpart.partition(h, k, objective=objective, backend="cpu", seed=1, config=cfg)
    check_partition(h, p, k, 0.03)


@pytest.mark.parametrize("bisector", ["metis", "ghg", "both"])
@pytest.mark.parametrize("k", [2, 8])
def test_partition_with_each_bisector_on_a_circuit(bisector, k):
    """Valid, balanced, deterministic and independent of the threads (``rb`` bisections run
    concurrently), on a circuit large enough for several levels."""
    h = igpart.generators.random_circuit(3000, seed=2)
    parts = [
        igpart.partition(
            h, k, backend="cpu", seed=3, config=Config(initial_bisector=bisector, threads=t)
        )
        for t in (1, 2, 2)
    ]
    check_partition(h, parts[0], k, 0.03)
    assert all(np.array_equal(parts[0].parts, p.parts) for p in parts[1:])
    assert parts[0].config["initial_bisector"] == bisector
