"""``Config.bisection_contraction_limit``: the coarsest level of a k = 2 run."""

from __future__ import annotations

import math

import numpy as np
import pytest

import igpart
import igpart.generators
import igpart.partitioner.initial.coarsest as coarsest
from igpart import Config
from igpart.errors import InputError
from igpart.kernels.cpu import CpuBackend
from igpart.metrics import evaluate, max_block_weight
from igpart.partitioner.context import coarsest_vertices, hypergraph_cluster_weight, initial_runs_of

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("bad", [-1, 2.5, True, "8", None])
def test_bad_values_are_rejected(bad):
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2]])
    with pytest.raises(InputError, match="bisection_contraction_limit"):
        igpart.partition(h, 2, config={"bisection_contraction_limit": bad})
    with pytest.raises(InputError, match="bisection_contraction_limit"):
        Config(bisection_contraction_limit=bad).validate()


def test_coarsest_vertices_and_presets():
    assert coarsest_vertices(Config(), 2) == 2 * 160
    assert coarsest_vertices(Config(), 3) == 40 * 3
    assert coarsest_vertices(Config(), 64) == 40 * 64
    assert coarsest_vertices(Config(bisection_contraction_limit=0), 2) == 80
    assert coarsest_vertices(Config(contraction_limit=10, bisection_contraction_limit=0), 2) == 20
    assert coarsest_vertices(Config(bisection_contraction_limit=7), 2) == 14
    # the speed preset keeps its shallow coarsest level (contraction_limit 20) at k = 2 too;
    # quality keeps the default's
    assert coarsest_vertices(Config(preset="speed"), 2) == 2 * 20
    assert coarsest_vertices(Config(preset="quality"), 2) == 2 * 160
    assert coarsest_vertices(Config(preset="speed", bisection_contraction_limit=100), 2) == 200
    # the cluster weight cap stands for the coarsest level's vertex count, within the bound
    assert hypergraph_cluster_weight(Config(), 32_000, 2, 10**9) == 100
    assert hypergraph_cluster_weight(Config(), 32_000, 4, 10**9) == 200
    assert hypergraph_cluster_weight(Config(), 32_000, 2, 50) == 50


def test_initial_seeds_at_k2():
    """k = 2 runs get ``initial_runs_max`` METIS seeds on every input while the setting is on,
    k = 4 and graphs keep ``initial_runs`` on small inputs."""
    cfg, small = Config(), Config().initial_runs_min_n - 1
    assert initial_runs_of(cfg, 2, hypergraph=True, n=small) == cfg.initial_runs_max
    assert initial_runs_of(cfg, 4, hypergraph=True, n=small) == cfg.initial_runs
    assert initial_runs_of(cfg, 2, hypergraph=False, n=small) == cfg.initial_runs
    off = Config(bisection_contraction_limit=0)
    assert initial_runs_of(off, 2, hypergraph=True, n=small) == off.initial_runs


@pytest.fixture(scope="module")
def circuit():
    return igpart.generators.random_circuit(6000, seed=3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_coarsest_level_and_cluster_weights(monkeypatch, circuit, backend):
    """The coarsest level handed to the initial partitioning stops near
    ``2 * bisection_contraction_limit`` vertices, no coarse vertex weighs more than the cap
    that vertex count stands for, and the partition is valid and balanced."""
    seen = {}
    real = coarsest.initial_partition

    def spy(level, kk, *args, **kwargs):
        seen.setdefault("level", level)
        return real(level, kk, *args, **kwargs)

    monkeypatch.setattr(coarsest, "initial_partition", spy)
    sizes = {}
    for limit in (0, 160):
        seen.clear()
        cfg = Config(bisection_contraction_limit=limit, vcycles=0)
        p = igpart.partition(circuit, 2, seed=1, backend=backend, config=cfg)
        m = evaluate(circuit, p.parts, 2, 0.03)
        assert m["balanced"] and m["cut"] == p.cut
        level = seen["level"]
        cap = math.ceil(circuit.total_weight / coarsest_vertices(cfg, 2))
        assert int(level.vwgt.max()) <= cap
        assert level.total_weight == circuit.total_weight
        sizes[limit] = level.n
    assert sizes[160] > sizes[0]
    assert sizes[160] >= coarsest_vertices(Config(), 2) // 2


class Recording(CpuBackend):
    """The C++ backend under another name (the driver treats it as a device backend, as the
    GPU's), recording the arguments of its clustering calls."""

    name = "recording"

    def __init__(self):
        super().__init__()
        self.calls = []

    def cluster_hypergraph(self, hg, max_cluster_weight, **kwargs):
        self.calls.append((hg.n, int(max_cluster_weight), float(kwargs["max_shrink"])))
        return super().cluster_hypergraph(hg, max_cluster_weight, **kwargs)

    def coarsen_hypergraph(self, hg, max_cluster_weight, **kwargs):
        self.calls.append((hg.n, int(max_cluster_weight), float(kwargs["group_size"])))
        return super().coarsen_hypergraph(hg, max_cluster_weight, **kwargs)


@pytest.mark.parametrize("coarsening", ["heavy_edge", "hyperg"])
def test_device_clustering_gets_the_cap_and_the_limit(circuit, coarsening):
    """A device backend's own clustering (the GPU's kernels) gets the k = 2 cap and never shrinks
    a level much below ``2 * bisection_contraction_limit`` vertices: the cap is
    ``ceil(total / 320)``, only levels of at least 320 vertices are clustered, and the shrink
    limit (clustering) or group size (HyperG grouping) is at most ``n / 320`` (at least its
    floor, 1.01 or 1), in the first pass and in the V-cycles."""
    be = Recording()
    cfg = Config(coarsening=coarsening, vcycles=1)
    p = igpart.partition(circuit, 2, seed=3, backend=be, config=cfg)
    assert p.balanced and p.backend == "recording"
    limit = coarsest_vertices(cfg, 2)
    cap = math.ceil(circuit.total_weight / limit)
    assert cap < max_block_weight(circuit.total_weight, 2, 0.03)
    assert be.calls and all(mcw == cap for _, mcw, _ in be.calls)
    assert all(n >= limit for n, _, _ in be.calls)
    floor = 1.01 if coarsening == "heavy_edge" else 1.0
    assert all(step <= max(round(n / limit) if floor == 1.0 else n / limit, floor) + 1e-9
               for n, _, step in be.calls)
    # the V-cycle's levels too: more clustering calls than the first pass's levels
    first = Recording()
    igpart.partition(circuit, 2, seed=3, backend=first,
                     config=Config(coarsening=coarsening, vcycles=0))
    assert len(be.calls) > len(first.calls)


def test_other_k_and_recursive_bisection_unchanged(circuit):
    """Only k = 2 runs of the input follow it: at k = 3 (recursive bisection, whose
    bisections are k = 2 runs) the partition is the same."""
    a = igpart.partition(circuit, 3, seed=2, backend="cpu",
                         config=Config(bisection_contraction_limit=0))
    b = igpart.partition(circuit, 3, seed=2, backend="cpu",
                         config=Config(bisection_contraction_limit=160))
    assert np.array_equal(a.parts, b.parts)
