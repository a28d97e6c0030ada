"""``Config.initial_fm_top``: FM on the best few initial candidates only
(:mod:`igpart.partitioner.initial`): valid, balanced, deterministic whatever the threads, equal
to FM on every candidate when the few are all of them, errors on bad values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
import igpart.generators
from igpart import Config
from igpart.errors import InputError
from igpart.metrics import block_weights, cut, max_block_weight
from igpart.partitioner.initial.metis import metis_partition
from igpart.partitioner.initial.pool import initial_partition

from .test_multilevel import check_partition, instances
from .util import random_hypergraph

PROPS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(
    instances(),
    st.sampled_from([2, 3, 5, 8]),
    st.sampled_from(["cut", "km1"]),
    st.sampled_from([0.0, 0.03]),
    st.sampled_from(["auto", "rb", "metis", "rb+metis"]),
    st.sampled_from([1, 2]),
)
def test_partition_with_fm_top_is_valid_and_balanced(h, k, objective, eps, method, top):
    k = min(k, max(h.n, 1))
    cfg = Config(initial=method, contraction_limit=2, bisection_contraction_limit=2,
                 initial_rb_runs=2, initial_rb_seeds=3,
                 initial_fm_top=top)  # fmt: skip
    p = igpart.partition(h, k, epsilon=eps, objective=objective, backend="cpu", seed=1, config=cfg)
    check_partition(h, p, k, eps)


@pytest.mark.parametrize("k", [2, 3, 8])
def test_fm_top_covering_every_candidate_equals_fm_on_every_candidate(k):
    h = igpart.generators.random_circuit(2500, seed=k)
    base = dict(initial="rb+metis", initial_rb_runs=2, initial_rb_seeds=4, initial_runs=4)
    a = igpart.partition(h, k, backend="cpu", seed=3, config=Config(**base, initial_fm_top=0))
    b = igpart.partition(h, k, backend="cpu", seed=3, config=Config(**base, initial_fm_top=1000))
    assert np.array_equal(a.parts, b.parts)


def test_fm_top_is_deterministic_and_independent_of_threads():
    h = random_hypergraph(np.random.default_rng(11), 3000, 3500, max_size=6, weighted=True)
    for k in (2, 8):
        p = [
            igpart.partition(
                h, k, backend="cpu", seed=4, config=Config(initial_fm_top=2, threads=t)
            )  # fmt: skip
            for t in (1, 1, 3, 8)
        ]
        assert all(np.array_equal(p[0].parts, q.parts) for q in p[1:])


def test_polish_runs_on_the_best_refined_candidates_only():
    h = igpart.generators.random_circuit(400, seed=5)
    k, calls = 4, []

    def polish(parts):
        calls.append(parts.copy())
        return parts

    initial_partition(
        h, k, 0.03, "cut", seed=1, method="metis", runs=6,
        evaluate=lambda p: cut(h, p, k), polish=polish, polish_top=2,
    )  # fmt: skip
    # the reference: the two best distinct METIS candidates by (overload, cut, order)
    bound = max_block_weight(h.total_weight, k, 0.03)
    keyed = []
    for i, s in enumerate(range(1, 7)):
        c = metis_partition(h, k, 0.03, s)
        over = int(np.maximum(block_weights(h, c, k) - bound, 0).sum())
        keyed.append(((over, cut(h, c, k), i), c))
    keyed.sort(key=lambda x: x[0])
    want = []
    for _, c in keyed:
        if not any(np.array_equal(c, w) for w in want):
            want.append(c)
    assert len(calls) == min(2, len(want))
    assert all(np.array_equal(a, b) for a, b in zip(calls, want))


@pytest.mark.parametrize("bad", [-1, 1.5, "2", None, True])
def test_bad_fm_top_names_the_field(bad):
    with pytest.raises(InputError, match="initial_fm_top"):
        Config(initial_fm_top=bad).validate()


def test_one_rb_candidate_at_k64_is_valid_and_independent_of_threads():
    """From k = 64 on, "rb" runs as one candidate with all the seeds (``rb_effort``), its
    bisections concurrently: the same partition whatever the threads, valid and balanced."""
    from igpart.partitioner.context import rb_effort

    assert rb_effort(Config(), 64)[0] == 1
    h = igpart.generators.random_circuit(4000, seed=9)
    p = [
        igpart.partition(h, 64, backend="cpu", seed=2, config=Config(threads=t, vcycles=0))
        for t in (1, 4)
    ]
    check_partition(h, p[0], 64, 0.03)
    assert np.array_equal(p[0].parts, p[1].parts)


@pytest.mark.parametrize("k", [2, 5])
def test_batched_candidate_refinement_equals_the_per_candidate_one(k):
    """initial_partition's refine_batch (the C++ refine_candidates: every candidate rebalanced
    and sequence-refined in one call) gives the same candidates, scores and winner as refine +
    evaluate on each; duplicates are refined once."""
    from igpart.kernels import get_backend

    be = get_backend("cpu")
    h = random_hypergraph(np.random.default_rng(k), 300, 420, max_size=5, weighted=True)
    ha = be.hypergraph_arrays(h)
    bounds = np.full(k, max_block_weight(h.total_weight, k, 0.03), dtype=np.int64)

    def refine(p):
        p = be.rebalance_hypergraph(ha, p, k, bounds, "km1")
        return be.refine_hypergraph(ha, p, k, bounds, "km1", max_rounds=16)[0]

    def evaluate(p):
        return be.hypergraph_objective(ha, p, k, "km1")

    batches = []

    def refine_batch(cands):
        batches.append(len(cands))
        out, values = be.refine_candidates(ha, np.stack(cands), k, bounds, "km1", max_rounds=16)
        return list(out), [int(v) for v in values]

    polished = {}
    for batch in (None, refine_batch):
        calls = []

        def polish(p, calls=calls):
            calls.append(p.copy())
            return p

        best = initial_partition(
            h, k, 0.03, "km1", seed=2, method="metis", runs=12, refine=refine,
            evaluate=evaluate, polish=polish, polish_top=3, refine_batch=batch,
        )  # fmt: skip
        polished[batch is None] = (best, calls)
    assert len(batches) == 1 and 1 <= batches[0] <= 12
    (a, ca), (b, cb) = polished[True], polished[False]
    assert np.array_equal(a, b) and len(ca) == len(cb)
    assert all(np.array_equal(x, y) for x, y in zip(ca, cb))


def test_refine_candidates_matches_the_stages_and_rejects_bad_rows():
    from igpart.kernels import get_backend

    be = get_backend("cpu")
    rng = np.random.default_rng(7)
    h = random_hypergraph(rng, 150, 200, max_size=6, weighted=True)
    ha = be.hypergraph_arrays(h)
    k = 3
    bounds = np.full(k, max_block_weight(h.total_weight, k, 0.03), dtype=np.int64)
    rows = rng.integers(0, k, size=(9, h.n)).astype(np.int32)
    for rounds in (0, 4):
        out, values = be.refine_candidates(ha, rows, k, bounds, "cut", max_rounds=rounds)
        assert out.shape == rows.shape
        for i in range(rows.shape[0]):
            want = be.rebalance_hypergraph(ha, rows[i], k, bounds, "cut")
            if rounds:
                want = be.refine_hypergraph(ha, want, k, bounds, "cut", max_rounds=rounds)[0]
            assert np.array_equal(out[i], want)
            assert values[i] == be.hypergraph_objective(ha, want, k, "cut")
    bad = rows.copy()
    bad[4, 17] = k
    with pytest.raises(ValueError, match="candidate 4, vertex 17"):
        be.refine_candidates(ha, bad, k, bounds, "cut")
    with pytest.raises(ValueError, match="2-D"):
        be.refine_candidates(ha, rows[0], k, bounds, "cut")


def test_partition_is_the_same_with_and_without_the_batched_refinement(monkeypatch):
    from igpart.kernels.cpu import CpuBackend

    h = random_hypergraph(np.random.default_rng(3), 2500, 3000, max_size=6, weighted=True)
    cfg = Config(threads=2)
    calls = []
    real = CpuBackend.refine_candidates

    def spy(self, *args, **kwargs):
        calls.append(args[1].shape[0])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(CpuBackend, "refine_candidates", spy)
    with_batch = [igpart.partition(h, 2, backend="cpu", seed=s, config=cfg).parts for s in (1, 2)]
    assert len(calls) == 2 and all(c >= 1 for c in calls)  # one batch per run's coarsest level
    monkeypatch.delattr(CpuBackend, "refine_candidates")
    without = [igpart.partition(h, 2, backend="cpu", seed=s, config=cfg).parts for s in (1, 2)]
    assert all(np.array_equal(a, b) for a, b in zip(with_batch, without))
