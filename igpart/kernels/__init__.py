"""Backends: one algorithm contract, two implementations (DESIGN §3).

``get_backend("auto" | "cpu" | "gpu")`` returns a backend object whose stage operations work on
arrays of its own array module (``backend.xp``: numpy for the C++ backend, cupy for the GPU).
This package imports nothing from the rest of igpart but the leaf module ``igpart.errors``.
"""

from __future__ import annotations

import functools

from .backend import Backend, BackendUnavailable

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


def get_backend(name: str = "auto") -> Backend:
    """The backend called ``name``; ``auto`` picks the GPU when one is usable, else the CPU."""
    if isinstance(name, Backend):
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
        return cls()
    from .cpu import CpuBackend

    return CpuBackend()


def _gpu_backend_class():
    try:
        from .gpu import GpuBackend
    except ImportError:
        return None
    return GpuBackend
