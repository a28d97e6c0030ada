"""Flat bisections of recursive bisection (``Config.initial_rb_flat_vertices``): the subtrees
below the threshold run whole in one C++ call (``_cpu.rb_flat_subtree``) and give the blocks
that the Python pipeline gives them bisection by bisection; errors on bad arguments."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import igpart.generators
from igpart import Config
from igpart.kernels import _cpu
from igpart.metrics import block_weights, max_block_weight
from igpart.partitioner.driver import bisect
from igpart.partitioner.initial import recursive as rb

from .util import random_hypergraph

recursive_bisection = functools.partial(rb.recursive_bisection, bisect=bisect)


def _both(monkeypatch, h, k, objective, seed, cfg, **kw):
    """The blocks of the Python bisections and of the C++ subtrees (one thread each)."""
    monkeypatch.setattr(rb, "FLAT_SUBTREES_IN_CPP", False)
    python = recursive_bisection(h, k, 0.03, objective, seed=seed, runs=3, config=cfg, **kw)
    monkeypatch.setattr(rb, "FLAT_SUBTREES_IN_CPP", True)
    cpp = recursive_bisection(h, k, 0.03, objective, seed=seed, runs=3, config=cfg, **kw)
    return python, cpp


@pytest.mark.parametrize("case", range(12))
def test_flat_subtrees_in_cpp_equal_the_python_bisections(monkeypatch, case):
    rng = np.random.default_rng(case)
    if case % 2:
        h = igpart.generators.random_circuit(int(rng.integers(150, 1200)), seed=case)
    else:
        n = int(rng.integers(30, 400))
        h = random_hypergraph(rng, n, int(rng.integers(n, 3 * n)), max_size=8, weighted=True)
    k = int(rng.choice([2, 3, 5, 8, 16, 32]))
    objective = ("cut", "km1")[case % 3 == 0]
    flat = int(rng.choice([64, 200, 500, 1 << 20]))  # some bisections above it, or none
    cfg = Config(initial_rb_flat_vertices=flat, fm_max_work=float(rng.choice([0.0, 32.0])),
                 initial_fm_top=int(rng.choice([0, 1, 2])))
    bounds = None
    if case % 4 == 3:  # per-block bounds: the targets' proportions and sums
        share = rng.integers(1, 4, size=k)
        bounds = (h.total_weight * 1.1 * share / share.sum()).astype(np.int64) + h.vwgt.max()
    python, cpp = _both(monkeypatch, h, k, objective, case, cfg, block_bounds=bounds)
    np.testing.assert_array_equal(cpp, python)
    assert cpp.min() == 0 and cpp.max() < k


def test_flat_subtree_blocks_do_not_depend_on_threads():
    h = igpart.generators.random_circuit(3000, seed=4)
    cfg = Config(initial_rb_flat_vertices=1 << 20)  # every bisection flat: one C++ call
    one = recursive_bisection(h, 32, 0.03, "cut", seed=5, runs=3, config=cfg)
    for threads in (2, 5):
        many = recursive_bisection(h, 32, 0.03, "cut", seed=5, runs=3, config=cfg,
                                   threads=threads)
        np.testing.assert_array_equal(many, one)
    # balance is aimed at, not guaranteed (the caller rebalances); every block is used
    bound = max_block_weight(h.total_weight, 32, 0.03)
    assert block_weights(h, one, 32).max() <= bound * 1.05
    assert np.bincount(one, minlength=32).min() > 0


def test_flat_subtree_is_the_plans_whole_subtree():
    """The C++ call on a task of blocks 3..7 of 8 gives blocks 3..7 only, every one used."""
    h = igpart.generators.random_circuit(400, seed=1)
    out = _cpu.rb_flat_subtree(
        h.eptr, h.eind, h.ewgt, h.vwgt, 3, 5, 8, 0.03, 0, 9, 4, 0, int(h.total_weight) * 2,
        int(h.total_weight), None, 100, 60.0, 16, True, 4, 100, 0.001, 32.0, 1, 2)
    assert out.dtype == np.int32 and out.shape == (h.n,)
    assert set(np.unique(out)) == {3, 4, 5, 6, 7}


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"first": 6}, "first"),
        ({"ks": 0}, "first"),
        ({"threads": 0}, "threads"),
        ({"runs": 0}, "runs"),
        ({"objective": 2}, "objective"),
        ({"targets": np.ones(3, dtype=np.int64)}, "targets"),
        ({"ewgt": np.ones(1, dtype=np.int64)}, "ewgt"),
    ],
)
def test_flat_subtree_rejects_bad_arguments(change, match):
    h = igpart.generators.random_circuit(60, seed=2)
    args = dict(eptr=h.eptr, eind=h.eind, ewgt=h.ewgt, vwgt=h.vwgt, first=0, ks=4, k=8,
                epsilon=0.03, objective=0, seed=0, runs=2, min_seeds=0,
                total=int(h.total_weight), final_bound=int(h.total_weight), targets=None,
                max_net_size=100, clique_scale=60.0, refine_rounds=16, fm=True, fm_rounds=4,
                fm_fruitless=100, fm_min_improvement=0.001, fm_max_work=32.0, fm_top=1,
                threads=1)
    args.update(change)
    with pytest.raises(ValueError, match=match):
        _cpu.rb_flat_subtree(**args)


@pytest.mark.parametrize("case", range(4))
def test_flat_subtrees_with_zero_weights_equal_the_python_bisections(monkeypatch, case):
    """Vertices and nets of weight 0 (METIS then gets unit vertex weights), on any threads."""
    rng = np.random.default_rng(100 + case)
    n = int(rng.integers(20, 300))
    h = random_hypergraph(rng, n, int(rng.integers(n, 2 * n)), max_size=5, weighted=True)
    vwgt, ewgt = h.vwgt.copy(), h.ewgt.copy()
    vwgt[rng.random(n) < (1.0 if case == 0 else 0.5)] = 0  # case 0: every vertex weighs 0
    ewgt[rng.random(h.m) < 0.3] = 0
    h = h.with_weights(vwgt=vwgt, ewgt=ewgt)
    cfg = Config(initial_rb_flat_vertices=1 << 20)
    objective = ("cut", "km1")[case % 2]
    monkeypatch.setattr(rb, "FLAT_SUBTREES_IN_CPP", False)
    python = recursive_bisection(h, 7, 0.03, objective, seed=case, runs=2, config=cfg)
    monkeypatch.setattr(rb, "FLAT_SUBTREES_IN_CPP", True)
    cpp = recursive_bisection(h, 7, 0.03, objective, seed=case, runs=2, config=cfg, threads=3)
    np.testing.assert_array_equal(cpp, python)
