"""Backends: one algorithm contract, two implementations (DESIGN §3).

``get_backend("auto" | "cpu" | "gpu")`` returns a backend object whose stage operations work on
arrays of its own array module (``backend.xp``: numpy for the C++ backend, cupy for the GPU).
This package imports nothing from the rest of igpart but the leaf module ``igpart.errors``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os

from .backend import Backend, BackendUnavailable

#: The OpenMP wait policy of the C++ stages, unless the environment sets one
#: (``OMP_WAIT_POLICY`` or libgomp's ``GOMP_SPINCOUNT``): in the environment only while the C++
#: module loads libgomp, which reads it then (a libgomp that another module loaded first keeps
#: its own settings; child processes never see it). Threads that wait at a barrier sleep at
#: once instead of spinning up to libgomp's default 300,000 spins first: the parallel stages
#: meet thousands of barriers (Louvain's and the clustering's synchronous sub-rounds), and with
#: more runnable threads than free cores (other processes, the METIS workers starting beside a
#: run) a spinning waiter holds the core of the thread it waits for. cholesky_mc at k = 2 on
#: 2 threads of the 2-core VM loaded by other processes (load average 2-3): 1.3-28.7 s spinning
#: (7 of 10 runs above 9 s), 1.2-2.0 s sleeping (16 runs; BENCHMARKS.md, "Fixed costs on small
#: inputs at many threads"). On an idle 16-core machine spinning gained nothing either: the
#: ``small`` suite took 0.97-1.25x the sleeping time with 2,000-300,000 spins (same section).
#: Same results either way; ``GOMP_SPINCOUNT=300000`` restores libgomp's default.
WAIT_POLICY = "PASSIVE"


def _load_cpu_module() -> None:
    """Imports the C++ module with :data:`WAIT_POLICY` in the environment while it loads
    (unless the environment chooses); a module that is not built is left to its users' import
    to report."""
    chosen = "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ
    if not chosen:
        os.environ["OMP_WAIT_POLICY"] = WAIT_POLICY
    try:
        from . import _cpu  # noqa: F401
    except ImportError:
        pass
    finally:
        if not chosen:
            os.environ.pop("OMP_WAIT_POLICY", None)


_load_cpu_module()

__all__ = ["AUTO_GPU_MIN_PINS", "Backend", "BackendUnavailable", "get_backend", "gpu_status",
           "input_pins"]

BACKENDS = ("auto", "cpu", "gpu")

#: ``backend="auto"`` with a usable GPU partitions inputs of fewer pins (a graph: twice its
#: edges, :func:`input_pins`) on the C++ backend. Measured on the H200 machine (commit 3061a50,
#: BENCHMARKS.md "Which backend `auto` picks"): up to 623k pins (the ``small`` suite, 50k-623k
#: pins, k = 2/16/64) the C++ backend's in-process time was 0.88x the GPU's on the geomean at
#: 16 threads and 0.90x at 4, from 810k pins (the suite's circuits enlarged to 200k and 500k
#: vertices) the GPU's took 0.84x / 0.63x (0.7-1.5M pins) and 0.60x / 0.40x (2.0-3.1M pins) of
#: the C++ backend's; the bound lies between. A fresh process's first GPU partition also loads
#: the CUDA context and kernels (0.4-0.9 s more on those inputs), which only the C++ backend
#: saves.
AUTO_GPU_MIN_PINS = 700_000


def input_pins(h) -> int:
    """The pins of a hypergraph, twice the edges of a graph (its adjacency's length): the size
    that ``backend="auto"`` compares with :data:`AUTO_GPU_MIN_PINS`."""
    pins = getattr(h, "num_pins", None)
    return int(pins) if pins is not None else int(h.adjncy.size)


@functools.lru_cache(maxsize=1)
def gpu_status() -> tuple[bool, str]:
    """(available, reason): whether CuPy imports and sees a CUDA device, and why not."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising at import
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc}); install igpart[gpu]"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"CuPy found no usable CUDA driver/device ({exc})"
    if count < 1:
        return False, "CuPy imports but reports no CUDA device"
    return True, f"{count} CUDA device(s)"


def get_backend(name: str = "auto", *, memory_budget: int | str | None = None,
                pins: int | None = None) -> Backend:
    """The backend called ``name``; ``auto`` picks the GPU when one is usable, else the CPU,
    and with ``pins`` (the input's size, :func:`input_pins`) the CPU also for inputs of fewer
    than :data:`AUTO_GPU_MIN_PINS` pins (CuPy is then not imported).
    ``memory_budget``: device bytes the GPU backend may use (``GpuBackend(memory_budget=...)``;
    default: the ``IGPART_GPU_MEMORY_BUDGET`` environment variable); the CPU backend uses no
    device memory and ignores it (a malformed value still raises InputError)."""
    if memory_budget is not None:
        from . import budget

        memory_budget = budget.parse_bytes(memory_budget)
    if isinstance(name, Backend):
        if memory_budget is not None and name.name == "gpu":
            name.memory_budget = memory_budget
        return name
    if name not in BACKENDS:
        raise BackendUnavailable(f"unknown backend '{name}' (choose from {', '.join(BACKENDS)})")
    if name == "auto":
        if pins is not None and pins < AUTO_GPU_MIN_PINS:
            name = "cpu"
            logging.getLogger("igpart").info(
                "backend auto: the C++ backend for %s pins (the GPU from %s)", f"{pins:,}",
                f"{AUTO_GPU_MIN_PINS:,}")
        else:
            ok, _ = gpu_status()
            name = "gpu" if ok and _gpu_backend_class() is not None else "cpu"
    if name == "gpu":
        ok, reason = gpu_status()
        if not ok:
            raise BackendUnavailable(f"GPU backend unavailable: {reason}")
        cls = _gpu_backend_class()
        if cls is None:
            raise BackendUnavailable("GPU backend unavailable: igpart.kernels.gpu is not built yet")
        return cls(memory_budget=memory_budget)
    from .cpu import CpuBackend

    return CpuBackend()


def _gpu_backend_class():
    try:
        from .gpu import GpuBackend
    except ImportError:
        return None
    return GpuBackend


@contextlib.contextmanager
def omp_threads(threads: int):
    """Caps, inside the block, the OpenMP threads of the C++ stage operations called from the
    current thread (OpenMP's thread count is a per-thread setting), then restores it. Python
    worker threads that run C++ calls side by side enter it with their share of the threads: each
    would otherwise start a team of every core's size (a 16-core machine ran 16 bisections x 16
    OpenMP threads, and the initial partitioning got no faster from 1 to 16 threads)."""
    from . import _cpu

    before = int(_cpu.get_num_threads())
    _cpu.set_num_threads(max(1, int(threads)))
    try:
        yield
    finally:
        _cpu.set_num_threads(before)
