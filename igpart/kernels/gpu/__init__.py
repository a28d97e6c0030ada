"""The GPU backend: CUDA kernels (``*.cu`` beside this file, compiled at run time by
``cupy.RawModule``) and thin CuPy launchers; :class:`GpuBackend` lives in ``_backend.py``.

The package imports without CuPy, so that machines without a GPU can import it (the numpy-only
bucket layout of the dynamic structure is ``igpart.kernels.bucket_layout``); ``GpuBackend`` is
loaded on first access and needs CuPy.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GpuBackend"]


def __getattr__(name: str) -> Any:
    if name == "GpuBackend":
        from ._backend import GpuBackend

        return GpuBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
