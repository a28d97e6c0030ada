"""Run-time compilation of the .cu sources beside this file (cupy.RawModule / NVRTC).

Each source is compiled once per process (and cached on disk by CuPy across processes), with
``-I`` pointing at ``kernels/common`` so that the per-element formulas shared with the C++
backend (``partition_common.h``) are the same code on both sides.

On a cold cache the modules are compiled concurrently: the first kernel requested from one of
the partitioner's modules (``PARTITION_SOURCES``) compiles all of them on a thread pool (NVRTC
runs without the GIL), so that a first run waits for the slowest module instead of their sum.
The same pool makes tiny calls of the CuPy operations the partitioner uses (``_CUPY_WARMUPS``):
each compiles one of CuPy's own elementwise, reduction or indexing kernels on its first use,
about 40 of them at 0.1-0.3 s each, which a first run would otherwise compile one after the
other. With a warm cache both load from disk. ``IGPART_GPU_COMPILE_THREADS`` sets the pool's
size (1: each module and CuPy kernel compiled when first used, on the calling thread).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cupy

log = logging.getLogger("igpart")
HERE = Path(__file__).resolve().parent
COMMON = HERE.parent / "common"
SOURCES = ("coarsen", "contract", "refine", "metrics", "util", "dynamic", "jet", "scan")
#: the modules a full partition uses (``dynamic`` serves the incremental engine only)
PARTITION_SOURCES = ("coarsen", "contract", "refine", "metrics", "util", "jet", "scan")

_lock = threading.Lock()
_modules: dict[str, cupy.RawModule] = {}
_compiled: set[str] = set()


def module(name: str) -> cupy.RawModule:
    """The compiled module of ``<name>.cu``."""
    if name not in SOURCES:
        raise KeyError(f"no GPU source {name}.cu")
    if name not in _compiled:
        group = PARTITION_SOURCES if name in PARTITION_SOURCES else (name,)
        compile_modules(group)
    return _modules[name]


def compile_modules(names, threads: int | None = None) -> None:
    """Compiles the modules ``names`` (a thread each, up to ``threads``, default
    ``IGPART_GPU_COMPILE_THREADS`` or the usable CPUs), loading them from CuPy's disk cache
    where they are there already."""
    with _lock:
        todo = [n for n in names if n not in _compiled]
        if not todo:
            return
        for n in todo:
            if n not in _modules:
                _modules[n] = _new_module(n)
        if threads is None:
            threads = int(os.environ.get("IGPART_GPU_COMPILE_THREADS", "0") or 0)
        if threads <= 0:
            threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
                os.cpu_count() or 1)
        if threads == 1:
            for n in todo:
                _compile(n)
        else:
            device = cupy.cuda.Device().id
            warm = _CUPY_WARMUPS if set(PARTITION_SOURCES) <= set(todo) else ()
            tasks = [lambda n=n: _compile(n, device) for n in todo]
            tasks += [lambda f=f: _warm(f, device) for f in warm]
            with ThreadPoolExecutor(max_workers=max(1, min(threads, len(tasks)))) as pool:
                list(pool.map(lambda task: task(), tasks))
        _compiled.update(todo)


def _new_module(name: str) -> cupy.RawModule:
    code = (HERE / f"{name}.cu").read_text()
    # CuPy's cache keys on the source text only: fold the headers in so that editing one
    # recompiles every module.
    code = f"// headers {_headers_digest()}\n{code}"
    return cupy.RawModule(code=code, options=(f"-I{COMMON}", f"-I{HERE}", "--std=c++17"))


def _compile(name: str, device: int | None = None) -> None:
    """Compiles (or loads from the disk cache) module ``name``."""
    if device is None:
        _compile_now(_modules[name], name)
        return
    with cupy.cuda.Device(device):
        _compile_now(_modules[name], name)


def _compile_now(mod: cupy.RawModule, name: str) -> None:
    if hasattr(mod, "compile"):
        mod.compile()
    else:  # older CuPy: a RawModule compiles on its first kernel lookup
        mod.get_function(_first_kernel(name))


def _warm(op, device: int) -> None:
    """Runs one warm-up call on tiny arrays; a call this CuPy version rejects is skipped (its
    kernel, if the partitioner uses it, then compiles when first used)."""
    try:
        with cupy.cuda.Device(device):
            i32 = cupy.arange(4, dtype=cupy.int32)
            i64 = cupy.arange(4, dtype=cupy.int64)
            mask = i64 % 2 == 0
            op(i32, i64, mask)
            cupy.cuda.get_current_stream().synchronize()
    except Exception as exc:  # noqa: BLE001 - an optimisation only; the run itself reports errors
        log.debug("GPU warm-up call skipped: %r", exc)


def _scatter(dst, idx, val):
    dst = dst.copy()
    dst[idx] = val
    return dst


#: The CuPy operations (and dtypes) of the partitioner's launchers, one compiled kernel each:
#: comparisons and arithmetic with scalars, casts, boolean masks, gathers, scatters, scans,
#: reductions (the kernels a first H100 run compiled, read from CuPy's cache).
_CUPY_WARMUPS = (
    lambda a, b, m: b - 1, lambda a, b, m: b - b, lambda a, b, m: a - 1,
    lambda a, b, m: b != b, lambda a, b, m: b <= 1, lambda a, b, m: a < 1,
    lambda a, b, m: b >= 1, lambda a, b, m: a >= 1, lambda a, b, m: b > 1,
    lambda a, b, m: b > b, lambda a, b, m: b == b, lambda a, b, m: a == a,
    lambda a, b, m: a.astype(cupy.int64), lambda a, b, m: b.astype(cupy.int32),
    lambda a, b, m: b.copy(), lambda a, b, m: a.copy(),
    lambda a, b, m: a.astype(cupy.int8).astype(cupy.int32),
    lambda a, b, m: m.astype(cupy.int64), lambda a, b, m: m.astype(cupy.int32),
    lambda a, b, m: cupy.full(4, 3, dtype=cupy.int64), lambda a, b, m: cupy.full(4, 3, cupy.int32),
    lambda a, b, m: cupy.full(4, True, dtype=cupy.bool_),
    lambda a, b, m: m | m, lambda a, b, m: m & m, lambda a, b, m: cupy.arange(4, dtype=cupy.int32),
    lambda a, b, m: m.any(), lambda a, b, m: b[m], lambda a, b, m: a[m],
    lambda a, b, m: cupy.where(m, 1, b), lambda a, b, m: b[b], lambda a, b, m: a[b],
    lambda a, b, m: m[b], lambda a, b, m: _scatter(b, b, b), lambda a, b, m: _scatter(a, b, a),
    lambda a, b, m: cupy.cumsum(b), lambda a, b, m: b.sum(), lambda a, b, m: b.max(),
)


@functools.cache
def _first_kernel(name: str) -> str:
    src = (HERE / f"{name}.cu").read_text()
    m = re.search(r'^extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)',
                  src, re.M) or re.search(r"^IGP_\w+\((\w+)", src, re.M)
    if m is None:
        raise RuntimeError(f"{name}.cu defines no extern \"C\" kernel")
    return m.group(1)


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
