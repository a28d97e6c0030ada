"""The C++ backend: Python side of the pybind11 module igpart.kernels._cpu (sources beside)."""

from __future__ import annotations

import numpy as np

from .. import _cpu
from ..backend import Backend


class CpuBackend(Backend):
    """Runs every stage in C++ on host numpy arrays; the reference the GPU backend is tested
    against."""

    name = "cpu"
    xp = np
    record_error = _cpu.RecordError

    def to_host(self, a):
        return np.asarray(a)

    def net_connectivity(self, eptr, eind, parts, k: int):
        return _cpu.net_connectivity(eptr, eind, np.asarray(parts, dtype=np.int32), int(k))

    def dynamic_hypergraph(
        self, eptr, eind, n: int, vwgt, ewgt, parts, k: int, epsilon: float, **options
    ):
        return _cpu.DynamicHypergraph(eptr, eind, n, vwgt, ewgt, parts, k, epsilon, **options)
