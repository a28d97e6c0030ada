"""Run-time compilation of the .cu sources beside this file (cupy.RawModule / NVRTC).

Each source is compiled once per process (and cached on disk by CuPy across processes), with
``-I`` pointing at ``kernels/common`` so that the per-element formulas shared with the C++
backend (``partition_common.h``) are the same code on both sides.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import cupy

HERE = Path(__file__).resolve().parent
COMMON = HERE.parent / "common"
SOURCES = ("coarsen", "contract", "refine", "metrics", "util", "dynamic", "jet", "scan")


@functools.cache
def module(name: str) -> cupy.RawModule:
    """The compiled module of ``<name>.cu``."""
    if name not in SOURCES:
        raise KeyError(f"no GPU source {name}.cu")
    code = (HERE / f"{name}.cu").read_text()
    # CuPy's cache keys on the source text only: fold the headers in so that editing one
    # recompiles every module.
    code = f"// headers {_headers_digest()}\n{code}"
    return cupy.RawModule(code=code, options=(f"-I{COMMON}", f"-I{HERE}", "--std=c++17"))


@functools.cache
def kernel(source: str, name: str):
    """The kernel ``name`` of ``<source>.cu``."""
    return module(source).get_function(name)


@functools.lru_cache(maxsize=1)
def _headers_digest() -> str:
    h = hashlib.sha256()
    for path in sorted([*COMMON.glob("*.h"), *HERE.glob("*.cuh")]):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
