"""Degenerate inputs on the code paths of Jet refinement and recursive-bisection initial
partitioning (C++ backend): no nets, all-zero vertex weights, one net over every vertex, empty
and single-pin nets, epsilon = 0, k = 1 / k = n / k > n. ``igpart.partition`` returns a valid
partition, balanced whenever a balanced one exists, or raises PartitionError for k > n."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
import igpart.generators
from igpart import Config, Hypergraph, PartitionError

from .test_multilevel import check_partition, instances

#: The new code paths, with a contraction limit small enough that these tiny inputs coarsen
#: (so that Jet runs on several levels and recursive bisection on a real coarsest level).
CONFIGS = {
    "jet": Config(refinement="jet", contraction_limit=2, bisection_contraction_limit=2),
    "jet+fm": Config(refinement="jet+fm", contraction_limit=2, bisection_contraction_limit=2),
    "jet-c0": Config(
        refinement="jet",
        jet_negative_gain_fine=0,
        jet_negative_gain_coarse=0,
        jet_iterations=1,
        jet_patience=1,
        contraction_limit=2,
        bisection_contraction_limit=2,
    ),
    "rb": Config(initial="rb", contraction_limit=2, bisection_contraction_limit=2,
                 initial_rb_runs=2, initial_rb_seeds=2),
    "rb+metis": Config(initial="rb+metis", contraction_limit=2, bisection_contraction_limit=2,
                       initial_rb_runs=1),
    "rb+jet": Config(initial="rb", refinement="jet", initial_rb_runs=1, initial_rb_seeds=1),
}


def _hypergraph(nets, n, vwgt=None):
    eptr = np.zeros(len(nets) + 1, dtype=np.int64)
    eptr[1:] = np.cumsum([len(e) for e in nets])
    eind = np.array([p for e in nets for p in e], dtype=np.int32)
    return Hypergraph(eptr, eind, n, vwgt)


def _cases():
    c = igpart.generators.random_circuit(120, seed=5)
    chain = [[i, i + 1] for i in range(59)]
    return {
        "no nets": _hypergraph([], 40),
        "zero weights": c.with_weights(vwgt=np.zeros(c.n, dtype=np.int64)),
        "some zero weights": c.with_weights(vwgt=np.arange(c.n) % 2),
        "one net over all": _hypergraph([list(range(80))], 80),
        "one net over all + circuit": _hypergraph(
            [list(range(c.n))] + [c.net(e).tolist() for e in range(c.m)], c.n
        ),
        "empty and single-pin nets": _hypergraph([[], [3], []] + chain + [[], [7]], 60),
        "one vertex": _hypergraph([[0]], 1),
        "weighted circuit": c.with_weights(vwgt=np.arange(c.n) % 7 + 1),
    }


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("variant", list(CONFIGS))
def test_degenerate_inputs_give_valid_balanced_partitions(name, variant):
    h = CASES[name]
    cfg = CONFIGS[variant]
    for k in sorted({1, 2, 3, 8, h.n} & set(range(1, h.n + 1))):
        for eps, obj in ((0.0, "cut"), (0.03, "km1")):
            p = igpart.partition(h, k, eps, obj, backend="cpu", seed=2, config=cfg)
            check_partition(h, p, k, eps)
    with pytest.raises(PartitionError, match="exceeds the number of vertices"):
        igpart.partition(h, h.n + 1, backend="cpu", config=cfg)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    instances(),
    st.integers(1, 12),
    st.sampled_from(["cut", "km1"]),
    st.sampled_from([0.0, 0.03]),
    st.sampled_from(["jet", "jet+fm", "jet-c0", "rb+jet"]),
)
def test_partition_with_jet_properties(h, k, obj, eps, variant):
    k = min(k, max(h.n, 1))
    p = igpart.partition(h, k, eps, obj, backend="cpu", seed=1, config=CONFIGS[variant])
    check_partition(h, p, k, eps)
