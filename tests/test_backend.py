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


def _partition_args(tmp_path, **kw):
    import argparse

    from igpart.generators import random_circuit
    from igpart.io import write_hgr

    f = tmp_path / "c.hgr"
    if not f.exists():
        write_hgr(random_circuit(300, seed=1), f)
    base = dict(backend="gpu", file=str(f), format=None, cluster=None, memory_budget=None, k=16,
                initial=None, algorithm="multilevel", config=None, cli_threads=None, preset=None)
    return argparse.Namespace(**{**base, **kw})


@pytest.fixture
def no_device_thread(monkeypatch):
    """``prepare.start`` recorded instead of run: (kernels, on_device) of each call."""
    from igpart.kernels.gpu import prepare

    calls = []
    monkeypatch.setattr(prepare, "start", lambda kernels=True, on_device=None:
                        calls.append(on_device) or object())
    monkeypatch.delenv("IGPART_GPU_PREPARE", raising=False)
    monkeypatch.delenv("IGPART_GPU_MEMORY_BUDGET", raising=False)
    monkeypatch.delenv("IGPART_PRESTART_WORKERS", raising=False)
    return calls


def test_command_line_gpu_run_starts_the_metis_workers_ahead(tmp_path, monkeypatch,
                                                             no_device_thread):
    """``--backend gpu`` into k >= 3 blocks of a hypergraph: the METIS workers its initial
    partitioning resolves to start with the command (before the input is read); the pool
    itself is recorded, not started."""
    from igpart import Config, cli
    from igpart.errors import InputError
    from igpart.parallel import metis_pool, threads
    from igpart.partitioner import context

    sizes = []
    monkeypatch.setattr(metis_pool, "get_pool", lambda size, low_priority=False:
                        sizes.append((size, low_priority)))
    monkeypatch.setattr(threads, "usable_cpus", lambda: 16)
    monkeypatch.setattr(context, "usable_cpus", lambda: 16)
    assert cli._prepare_gpu(_partition_args(tmp_path, cli_threads=16)) is not None
    expected = context.metis_processes(Config(threads=16), 0, 16, backend="gpu")
    assert expected == 15 and sizes == [(15, True)] and no_device_thread == [None]
    # an explicit setting is what the run uses, so it is what starts
    sizes.clear()
    cli._prepare_gpu(_partition_args(tmp_path, config='{"initial_metis_processes": 3}'))
    assert sizes == [(3, True)]
    sizes.clear()
    cli._prepare_gpu(_partition_args(tmp_path, config='{"initial_metis_processes": 0}'))
    assert sizes == []
    # none where the run would start none, or would not partition the hypergraph from scratch
    for kw in (dict(k=2), dict(initial="x.part"), dict(algorithm="metis"), dict(format="graph")):
        no_device_thread.clear()
        cli._prepare_gpu(_partition_args(tmp_path, **kw))
        assert sizes == [] and no_device_thread == [None], kw
    monkeypatch.setenv("IGPART_PRESTART_WORKERS", "0")
    cli._prepare_gpu(_partition_args(tmp_path, cli_threads=16))
    assert sizes == []
    # a bad --config is the command's error, before anything starts
    monkeypatch.delenv("IGPART_PRESTART_WORKERS")
    with pytest.raises(InputError):
        cli._prepare_gpu(_partition_args(tmp_path, config="{not json"))
    assert sizes == []


def test_command_line_auto_starts_the_workers_once_a_device_is_found(tmp_path, monkeypatch,
                                                                   no_device_thread):
    """``auto``: the workers start from the preparation's thread once it has found a device
    (none on a machine without one), not with the command."""
    from igpart import cli
    from igpart.kernels.gpu import prepare

    monkeypatch.setattr(cli, "_smaller_than_auto_gpu", lambda path: False)
    started = []
    monkeypatch.setattr(cli, "_start_metis_workers", lambda *a: started.append(a))
    cli._prepare_gpu(_partition_args(tmp_path, backend="auto"))
    (hook,) = no_device_thread
    assert callable(hook) and started == []
    import igpart.kernels as kernels

    for ok in (False, True):
        monkeypatch.setattr(kernels, "gpu_status", lambda ok=ok: (ok, "test"))
        prep = prepare.Preparation(kernels=False, on_device=hook)
        prep._run()  # on this thread; without CuPy it stops at the import, and never raises
        assert len(started) == int(ok)
    assert started == [(None, None, 16)]


def test_cpu_kernel_rejects_bad_indices():
    from igpart.kernels import _cpu

    with pytest.raises(ValueError, match="out of range"):
        _cpu.csr_transpose(np.array([0, 2]), np.array([0, 7], dtype=np.int32), 3)
    with pytest.raises(ValueError, match="block id"):
        _cpu.net_connectivity(
            np.array([0, 2]), np.array([0, 1], dtype=np.int32), np.array([0, 5], dtype=np.int32), 2
        )
