"""Backend registry."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import BackendUnavailable, Hypergraph
from igpart.kernels import get_backend, gpu_status


def test_cpu_backend_connectivity():
    b = get_backend("cpu")
    assert b.name == "cpu" and b.xp is np
    h = Hypergraph.from_nets([[0, 1, 2], [2, 3]])
    lam = b.net_connectivity(h.eptr, h.eind, np.array([0, 1, 1, 1]), 2)
    assert list(lam) == [2, 1]


def test_unknown_backend():
    with pytest.raises(BackendUnavailable, match="unknown backend"):
        get_backend("tpu")


def test_gpu_without_device_says_why():
    ok, reason = gpu_status()
    if ok:
        pytest.skip("a GPU is present")
    with pytest.raises(BackendUnavailable, match="GPU backend unavailable"):
        get_backend("gpu")
    assert get_backend("auto").name == "cpu"


class _StandInGpu:
    """A device backend for ``auto``'s choice: made, never run."""

    name = "gpu"

    def __init__(self, memory_budget=None):
        self.memory_budget = memory_budget

    def check_memory(self, n, m, pins, k):  # a partition's first call on its backend
        raise _AskedToRun(f"{pins} pins")


class _AskedToRun(Exception):
    pass


@pytest.fixture
def usable_gpu(monkeypatch):
    """``gpu_status`` reports a device and ``auto`` would make :class:`_StandInGpu`; the list
    counts the ``gpu_status`` calls (each imports CuPy on a real machine)."""
    import igpart.kernels as kernels

    calls = []
    monkeypatch.setattr(kernels, "gpu_status", lambda: calls.append(1) or (True, "stand-in"))
    monkeypatch.setattr(kernels, "_gpu_backend_class", lambda: _StandInGpu)
    return calls


def test_auto_takes_the_cpu_below_the_pin_bound(usable_gpu):
    from igpart.kernels import AUTO_GPU_MIN_PINS

    assert get_backend("auto", pins=AUTO_GPU_MIN_PINS - 1).name == "cpu"
    assert not usable_gpu  # the device was not even looked for
    assert isinstance(get_backend("auto", pins=AUTO_GPU_MIN_PINS), _StandInGpu)
    assert isinstance(get_backend("auto"), _StandInGpu)  # no size: the device when usable
    assert get_backend("cpu", pins=10**9).name == "cpu"  # a named backend is kept


def test_input_pins_counts_pins_and_both_ends_of_edges():
    from igpart.generators import random_circuit
    from igpart.kernels import input_pins

    h = random_circuit(500, seed=3)
    assert input_pins(h) == int(h.eind.shape[0])
    g = h.to_graph()
    assert input_pins(g) == 2 * g.num_edges == int(g.adjncy.size)


def test_partition_on_auto_runs_small_inputs_on_the_cpu(usable_gpu, monkeypatch):
    import igpart
    import igpart.kernels as kernels
    from igpart.generators import random_circuit
    from igpart.kernels import input_pins
    from igpart.metrics import evaluate

    h = random_circuit(2000, seed=4)
    p = igpart.partition(h, 4)  # backend="auto": a stand-in device is "usable"
    assert p.backend == "cpu" and p.cut == evaluate(h, p.parts, 4, 0.03)["cut"]
    q = igpart.partition(h.to_graph(), 4)
    assert q.backend == "cpu" and q.balanced
    # with the bound at the input's size, auto takes the device (the stand-in, which stops
    # the run at its first call)
    monkeypatch.setattr(kernels, "AUTO_GPU_MIN_PINS", input_pins(h))
    with pytest.raises(_AskedToRun, match=f"^{input_pins(h)} pins$"):
        igpart.partition(h, 4)
    with pytest.raises(_AskedToRun):
        igpart.improve(h, p.parts, 4)


@pytest.mark.parametrize("algorithm", ["hm", "im", "two-phase"])
def test_map_on_auto_runs_small_inputs_on_the_cpu(usable_gpu, algorithm):
    import igpart
    from igpart.generators import random_circuit
    from igpart.mapping import communication_cost

    h = random_circuit(1500, seed=5)
    m = igpart.map(h, (2, 2), (1, 10), algorithm=algorithm)  # backend="auto"
    assert m.backend == "cpu" and m.balanced
    assert m.cost == communication_cost(h, m.parts, (2, 2), (1, 10))


def test_command_line_auto_readies_no_gpu_for_a_small_file(tmp_path, monkeypatch):
    import argparse

    from igpart import cli
    from igpart.generators import random_circuit
    from igpart.io import write_hgr

    monkeypatch.delenv("IGPART_GPU_PREPARE", raising=False)
    monkeypatch.delenv("IGPART_GPU_MEMORY_BUDGET", raising=False)
    f = tmp_path / "c.hgr"
    write_hgr(random_circuit(1000, seed=1), f)
    assert cli._smaller_than_auto_gpu(str(f))
    assert not cli._smaller_than_auto_gpu(str(tmp_path / "missing.hgr"))
    assert not cli._smaller_than_auto_gpu(None)
    args = argparse.Namespace(backend="auto", file=str(f), cluster=None, memory_budget=None)
    assert cli._prepare_gpu(args) is None


def test_cpu_kernel_rejects_bad_indices():
    from igpart.kernels import _cpu

    with pytest.raises(ValueError, match="out of range"):
        _cpu.csr_transpose(np.array([0, 2]), np.array([0, 7], dtype=np.int32), 3)
    with pytest.raises(ValueError, match="block id"):
        _cpu.net_connectivity(
            np.array([0, 2]), np.array([0, 1], dtype=np.int32), np.array([0, 5], dtype=np.int32), 2
        )
