"""Backends: one algorithm contract, two implementations (DESIGN §3).

``get_backend("auto" | "cpu" | "gpu")`` returns a backend object whose stage operations work on
arrays of its own array module (``backend.xp``: numpy for the C++ backend, cupy for the GPU).
This package imports nothing from the rest of igpart but the leaf module ``igpart.errors``.
"""

from __future__ import annotations

import contextlib
import functools
import os

from .backend import Backend, BackendUnavailable

#: The OpenMP wait policy of the C++ stages, unless the environment sets one
#: (``OMP_WAIT_POLICY`` or libgomp's ``GOMP_SPINCOUNT``): in the environment only while the C++
#: module loads libgomp, which reads it then (a libgomp that another module loaded first keeps
#: its own settings; child processes never see it). Threads that wait at a barrier spin
#: :data:`SPIN_COUNT` times, then sleep, instead of libgomp's default 300,000 spins: the
#: parallel stages meet thousands of barriers (Louvain's and the clustering's synchronous
#: sub-rounds), and with more runnable threads than free cores (other processes, the METIS
#: workers starting beside a run) a long-spinning waiter holds the core of the thread it waits
#: for. cholesky_mc at k = 2 on 2 threads of the 2-core VM loaded by other processes (load
#: average 2-3): 1.3-28.7 s at 300,000 spins (7 of 10 runs above 9 s), 1.2-2.0 s sleeping at
#: once (16 runs; BENCHMARKS.md, "Fixed costs on small inputs at many threads"). Where libgomp
#: runs more threads than the process has CPUs it does not spin at all (``PASSIVE``); other
#: OpenMP runtimes read only ``PASSIVE``. Same results at any setting.
WAIT_POLICY = "PASSIVE"
#: libgomp's spins at a barrier before a waiting thread sleeps (``GOMP_SPINCOUNT``; 0: sleep at
#: once), a few microseconds: the barriers of small inputs' sub-rounds end within that on an idle
#: many-core machine. ``small`` suite at k = 2, 8, 64 on 16 threads (H100 machine, one
#: process per setting): 0.93x the time of sleeping at once with 3,000 or 10,000 spins, 0.91x
#: with 30,000; on the 2-core VM with two busy processes beside the run (2 threads each on
#: cholesky_mc and ibm08 at k = 2 and 64): 0.99x with 3,000 spins, 1.11x with 10,000; an
#: earlier loaded-VM run (load average 2-3) had 1.6-1.8 s at 2,000 spins against 1.2-2.0 s
#: sleeping at once, so a loaded machine may lose some of what an idle one gains
#: (BENCHMARKS.md, "Barrier waits: a short spin").
SPIN_COUNT = 3000


def _load_cpu_module() -> None:
    """Imports the C++ module with :data:`WAIT_POLICY` and :data:`SPIN_COUNT` in the environment
    while it loads (unless the environment chooses either); a module that is not built is left
    to its users' import to report."""
    chosen = "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ
    if not chosen:
        os.environ["OMP_WAIT_POLICY"] = WAIT_POLICY
        os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)
    try:
        from . import _cpu  # noqa: F401
    except ImportError:
        pass
    finally:
        if not chosen:
            os.environ.pop("OMP_WAIT_POLICY", None)
            os.environ.pop("GOMP_SPINCOUNT", None)


_load_cpu_module()

__all__ = ["Backend", "BackendUnavailable", "get_backend", "gpu_status"]

BACKENDS = ("auto", "cpu", "gpu")


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


def get_backend(name: str = "auto", *, memory_budget: int | str | None = None) -> Backend:
    """The backend called ``name``; ``auto`` picks the GPU when one is usable, else the CPU.
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
