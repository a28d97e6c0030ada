"""``Config.host_levels_below``: the small levels of a non-CPU backend's hierarchy run on the
C++ backend. Tested with a fake "device" backend (the C++ backend under another name), which the
driver treats as a GPU: since both sides run the same algorithms, the hybrid run must give
exactly the plain run's partition, and the call counts show where each level ran."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import igpart
import igpart.generators
import igpart.partitioner.driver as ml
import igpart.partitioner.initial.coarsest as coarsest
from igpart import Config
from igpart.errors import InputError
from igpart.kernels.cpu import CpuBackend

from .test_multilevel import PROPS, check_partition, instances

COUNTED = (
    "cluster_hypergraph", "coarsen_hypergraph", "contract_hypergraph", "communities", "project",
    "refine_hypergraph", "fm_refine_hypergraph", "rebalance_hypergraph", "coarsen_graph",
    "contract_graph", "refine_graph", "hypergraph_arrays", "graph_arrays", "cluster_graph_lp",
    "lp_refine_graph", "fm_refine_graph", "jet_refine_graph",
)  # fmt: skip


class Counting(CpuBackend):
    """The C++ backend, counting the calls of its stage operations."""

    def __init__(self):
        super().__init__()
        self.calls = collections.Counter()
        for name in COUNTED:
            method = getattr(self, name)

            def counted(*args, _name=name, _method=method, **kwargs):
                self.calls[_name] += 1
                return _method(*args, **kwargs)

            setattr(self, name, counted)


class FakeGpu(Counting):
    """A "device" backend for the tests: not named "cpu", so the driver moves small levels."""

    name = "fakegpu"


@pytest.fixture
def host(monkeypatch):
    """The C++ backend the driver gets for its host levels, counting calls."""
    be = Counting()
    real = ml.get_backend
    for module in (ml, coarsest):  # the host levels, the initial partitioning's candidates
        monkeypatch.setattr(module, "get_backend",
                            lambda name="auto", **kw: be if name == "cpu" else real(name, **kw))
    return be


def run(h, k, below, device=FakeGpu, **kw):
    """``h`` on a fake device with its host levels below ``below`` vertices
    (``graph_host_levels_below`` for graphs, ``host_levels_below`` for hypergraphs)."""
    field = "host_levels_below" if isinstance(h, igpart.Hypergraph) else "graph_host_levels_below"
    cfg = Config(**{field: below}, **kw.pop("config", {}))
    be = device()
    return igpart.partition(h, k, backend=be, config=cfg, **kw), be


@pytest.mark.parametrize("k", [2, 3, 8])
@pytest.mark.parametrize("objective", ["cut", "km1"])
@pytest.mark.parametrize("vcycles", [0, 2])
def test_hybrid_hierarchy_switches_and_equals_the_plain_run(host, k, objective, vcycles):
    h = igpart.generators.random_circuit(3000, seed=k)
    plain, pbe = run(h, k, 0, objective=objective, config={"vcycles": vcycles})
    assert not host.calls["contract_hypergraph"] and not host.calls["project"]
    assert pbe.calls["contract_hypergraph"] > 1
    host.calls.clear()
    hybrid, dbe = run(h, k, 1000, objective=objective, config={"vcycles": vcycles})
    check_partition(h, hybrid, k, 0.03)
    assert hybrid.balanced and hybrid.backend == "fakegpu"
    # the same algorithms on both sides: the very same partition
    assert np.array_equal(hybrid.parts, plain.parts)
    # coarse levels on the host, fine ones on the "device", and the partition crossed back
    for be in (dbe, host):
        for name in ("cluster_hypergraph", "contract_hypergraph", "project", "refine_hypergraph"):
            assert be.calls[name] > 0, (be.name, name)
    assert dbe.calls["contract_hypergraph"] < pbe.calls["contract_hypergraph"]
    assert dbe.calls["communities"] == 1 and not host.calls["communities"]
    assert host.calls["hypergraph_arrays"] >= 1 + (1 if vcycles else 0)


def test_threshold_above_n_runs_on_the_host_and_equals_the_cpu_backend(host):
    h = igpart.generators.random_circuit(2000, seed=5)
    for k in (2, 8):
        cpu = igpart.partition(h, k, backend="cpu")
        host.calls.clear()
        hybrid, dbe = run(h, k, h.n + 1)
        assert np.array_equal(hybrid.parts, cpu.parts) and hybrid.cut == cpu.cut
        assert not dbe.calls, dbe.calls  # nothing on the "device"
        assert host.calls["contract_hypergraph"] > 0


GRAPH_PIPELINES = [
    ({"graph_coarsening": "gkway", "graph_refinement": "gkway"},
     ("coarsen_graph", "contract_graph", "project", "refine_graph")),
    ({"graph_coarsening": "lp", "graph_refinement": "lp+fm", "graph_contraction_limit": 5},
     ("cluster_graph_lp", "contract_graph", "project", "lp_refine_graph", "fm_refine_graph")),
]  # fmt: skip


@pytest.mark.parametrize("cfg,stages", GRAPH_PIPELINES)
def test_graphs(host, cfg, stages):
    g = igpart.generators.random_circuit(3000, seed=2).to_graph()
    for k in (2, 3, 8):
        plain, _ = run(g, k, 0, config=cfg)
        host.calls.clear()
        hybrid, dbe = run(g, k, 600, config=cfg)
        check_partition(g, hybrid, k, 0.03)
        assert hybrid.balanced and np.array_equal(hybrid.parts, plain.parts)
        assert hybrid.cut == igpart.edge_cut(g, hybrid.parts)
        for be in (dbe, host):
            for name in stages:
                assert be.calls[name] > 0, (be.name, name)
        host.calls.clear()
        whole, dbe = run(g, k, g.n + 1, config=cfg)
        assert not dbe.calls and np.array_equal(whole.parts,
                                                igpart.partition(g, k, config=cfg).parts)


class FakeJetGpu(FakeGpu):
    """A fake device whose graph refinement is label propagation then Jet, as the GPU's."""

    name = "fakejetgpu"
    default_graph_refinement = "lp+jet"


@pytest.mark.parametrize("k", [2, 8])
def test_graph_host_levels_refine_with_the_hosts_own_algorithm(host, k):
    """Where the device refines graphs with Jet, the host levels and the initial candidates
    get the host's refinement (label propagation then FM) and the device levels keep Jet; each
    threshold applies to its own kind of input only."""
    g = igpart.generators.random_circuit(3000, seed=4).to_graph()
    cfg = {"graph_contraction_limit": 5}
    hybrid, dbe = run(g, k, 600, device=FakeJetGpu, config=cfg)
    check_partition(g, hybrid, k, 0.03)
    assert hybrid.balanced and hybrid.cut == igpart.edge_cut(g, hybrid.parts)
    assert dbe.calls["jet_refine_graph"] > 0 and not dbe.calls["fm_refine_graph"]
    assert host.calls["fm_refine_graph"] > 0 and not host.calls["jet_refine_graph"]
    assert host.calls["contract_graph"] > 0 and dbe.calls["contract_graph"] > 0
    # without host levels the device's Jet runs everywhere, the candidates' included
    host.calls.clear()
    plain, dbe = run(g, k, 0, device=FakeJetGpu, config=cfg)
    assert not host.calls["fm_refine_graph"] and not dbe.calls["fm_refine_graph"]
    assert not host.calls["contract_graph"]
    # host_levels_below is the hypergraphs' threshold: a graph keeps every level on the device
    host.calls.clear()
    other = igpart.partition(g, k, backend=FakeJetGpu(),
                             config=Config(host_levels_below=600, graph_host_levels_below=0, **cfg))
    assert not host.calls["contract_graph"] and np.array_equal(other.parts, plain.parts)
    # ... and graph_host_levels_below the graphs'
    h = igpart.generators.random_circuit(3000, seed=4)
    host.calls.clear()
    igpart.partition(h, k, backend=FakeGpu(), config=Config(graph_host_levels_below=h.n + 1))
    assert not host.calls["contract_hypergraph"]


def test_by_default_a_small_graph_runs_on_the_host_and_a_large_one_on_the_device(host):
    """``graph_host_levels_below``'s default: a graph below it never reaches the device; above
    it the device coarsens and refines the large levels and the host the small ones."""
    below = Config().graph_host_levels_below
    small = igpart.generators.grid_graph(40, 40)
    assert 0 < small.n < below
    dev = FakeJetGpu()
    p = igpart.partition(small, 4, backend=dev, seed=1)
    check_partition(small, p, 4, 0.03)
    assert not dev.calls and host.calls["contract_graph"] > 0
    large = igpart.generators.grid_graph(200, 200)
    assert large.n > below
    host.calls.clear()
    dev = FakeJetGpu()
    q = igpart.partition(large, 4, backend=dev, seed=1)
    check_partition(large, q, 4, 0.03)
    assert dev.calls["contract_graph"] > 0 and dev.calls["jet_refine_graph"] > 0
    assert host.calls["contract_graph"] > 0 and host.calls["fm_refine_graph"] > 0
    assert not host.calls["jet_refine_graph"]


def test_a_device_run_reports_the_figures_it_recomputed_on_the_device(host, monkeypatch):
    """Where a graph's partition ends on a device, its cut and block weights come from the
    device's own passes over the final block ids (not the host's pass over every arc) and
    equal the host's recomputation; a run on the host recomputes them there."""
    import igpart.metrics as metrics

    host_cuts = []
    real = metrics.edge_cut
    monkeypatch.setattr(metrics, "edge_cut", lambda g, p: host_cuts.append(1) or real(g, p))
    g = igpart.generators.grid_graph(200, 200)
    for k in (2, 5):
        dev = FakeJetGpu()
        p = igpart.partition(g, k, backend=dev, seed=2, config={"graph_host_levels_below": 0})
        assert not host_cuts and dev.calls["jet_refine_graph"] > 0
        assert p.cut == real(g, p.parts) and p.km1 == p.cut and p.soed == 2 * p.cut
        assert p.block_weights.tolist() == igpart.block_weights(g, p.parts, k).tolist()
        assert p.balanced
    igpart.partition(g, 2, backend="cpu", seed=2)
    assert len(host_cuts) == 1
    # a small graph runs on the host entirely, a repeated run keeps its best by the host's figures
    igpart.partition(igpart.generators.grid_graph(30, 30), 2, backend=FakeJetGpu(), seed=2)
    assert len(host_cuts) == 2
    igpart.partition(g, 2, backend=FakeJetGpu(), seed=2, config={"repetitions": 2})
    assert len(host_cuts) > 2


def test_known_block_weights_of_the_wrong_length_are_refused():
    g = igpart.generators.grid_graph(4, 4)
    parts = np.arange(16) % 2
    with pytest.raises(ValueError, match="known block weights"):
        igpart.metrics.evaluate(g, parts, 2, known={"cut": 0, "block_weights": np.zeros(3)})
    m = igpart.metrics.evaluate(g, parts, 2, known={"cut": 7, "block_weights": np.array([8, 8])})
    assert m["cut"] == 7 and m["balanced"]  # taken as given: the caller recomputed them


SMALL = [
    {"contraction_limit": 2, "bisection_contraction_limit": 2},
    {"contraction_limit": 2, "bisection_contraction_limit": 2, "coarsening": "hyperg"},
    {"contraction_limit": 2, "bisection_contraction_limit": 2, "communities": False, "vcycles": 1},
    {"contraction_limit": 2, "bisection_contraction_limit": 2, "refinement": "jet+fm"},
]


@PROPS
@given(instances(), st.sampled_from([2, 3, 8]), st.sampled_from(["cut", "km1"]),
       st.integers(1, 130), st.sampled_from(SMALL))  # fmt: skip
def test_hybrid_partition_properties(h, k, obj, below, cfg):
    k = min(k, max(h.n, 1))
    plain, _ = run(h, k, 0, objective=obj, seed=1, config=cfg)
    hybrid, _ = run(h, k, below, objective=obj, seed=1, config=cfg)
    check_partition(h, hybrid, k, 0.03)
    assert np.array_equal(hybrid.parts, plain.parts)


@pytest.mark.parametrize("bad", [-1, 1.5, "10", None, True])
@pytest.mark.parametrize("field", ["host_levels_below", "graph_host_levels_below"])
def test_bad_values_are_input_errors(bad, field):
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2]])
    with pytest.raises(InputError, match=field):
        Config(**{field: bad}).validate()
    with pytest.raises(InputError, match=field):
        igpart.partition(h, 2, config={field: bad})
