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


def test_cpu_kernel_rejects_bad_indices():
    from igpart.kernels import _cpu

    with pytest.raises(ValueError, match="out of range"):
        _cpu.csr_transpose(np.array([0, 2]), np.array([0, 7], dtype=np.int32), 3)
    with pytest.raises(ValueError, match="block id"):
        _cpu.net_connectivity(
            np.array([0, 2]), np.array([0, 1], dtype=np.int32), np.array([0, 5], dtype=np.int32), 2
        )
