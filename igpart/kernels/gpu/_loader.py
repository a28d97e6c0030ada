"""Loading of the GPU modules (the .cu sources beside this file): prebuilt cubins, else run-time
compilation (cupy.RawModule / NVRTC).

The build (``setup.py build_ext``, see ``_prebuild.py``) compiles every module into
``_prebuilt/<module>.sm_<XY>.cubin`` with a manifest of the sources' and headers' hashes. A
module whose cubin matches the sources beside it and fits the device is loaded from it
(``cupy.RawModule(path=...)``, a few milliseconds); ``IGPART_GPU_PREBUILT=0`` turns that off,
``IGPART_GPU_PREBUILT=DIR`` takes the cubins from ``DIR``. A module without one, or whose cubin
the driver refuses, is compiled once per process (and cached on disk by CuPy across
processes), with ``-I`` pointing at ``kernels/common`` so that the per-element formulas shared
with the C++ backend (``partition_common.h``) are the same code on both sides.

CuPy's own kernels (elementwise, reductions, scans, indexing) cannot be prebuilt: CuPy compiles
each on first use, one per operation and dtypes (and, for reductions and stream compaction,
array size class: ``_CUPY_SIZED``), and caches it on disk. ``igpart.warmup`` (``igpart warmup``,
run by the install where it sees a GPU) fills that cache with all of them. Without it, on a
cold CuPy cache the first kernel requested from one of the partitioner's modules
(``PARTITION_SOURCES``) has worker processes compile the modules that were not prebuilt,
together with calls of the CuPy operations the partitioner uses most (``_CUPY_FIRST_USE`` on 4
values: each compiles one of CuPy's kernels, 0.1-0.3 s each; the partition compiles the rest
when it first uses them). NVRTC calls from threads of one process ran one after the other
(H100, CuPy 14), so the workers fill CuPy's disk cache in parallel and this process then
loads every kernel from it. A marker file in the cache directory records that it is filled for
these sources, this CuPy and this GPU: later processes load directly.
``IGPART_GPU_COMPILE_PROCESSES`` sets the number of workers (0: automatic, up to 8 and the
usable CPUs less one; 1: no workers, each module and CuPy kernel compiled when first used).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import cupy

try:
    from . import _prebuild
except ImportError:  # loaded as a file, without the package, by a compile worker
    import importlib.util

    _spec = importlib.util.spec_from_file_location(
        "_igpart_gpu_prebuild", Path(__file__).resolve().with_name("_prebuild.py"))
    _prebuild = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_prebuild)

log = logging.getLogger("igpart")
HERE = Path(__file__).resolve().parent
COMMON = HERE.parent / "common"
SOURCES = _prebuild.SOURCES
#: the modules a full partition uses (``dynamic`` serves the incremental engine only)
PARTITION_SOURCES = ("coarsen", "contract", "refine", "metrics", "util", "jet", "jet_balance",
                     "scan", "graph_lp")

_lock = threading.Lock()
_modules: dict[str, cupy.RawModule] = {}
_compiled: set[str] = set()
#: the modules this process loaded from prebuilt cubins
_from_cubin: set[str] = set()


def module(name: str) -> cupy.RawModule:
    """The compiled module of ``<name>.cu``."""
    if name not in SOURCES:
        raise KeyError(f"no GPU source {name}.cu")
    if name not in _compiled:
        group = PARTITION_SOURCES if name in PARTITION_SOURCES else (name,)
        compile_modules(group)
    return _modules[name]


def compile_modules(names, processes: int | None = None) -> None:
    """Loads the modules ``names`` from their prebuilt cubins, else compiles them or loads them
    from CuPy's disk cache. The partitioner's group on a cold cache: by ``processes`` workers
    first (default ``IGPART_GPU_COMPILE_PROCESSES``, see the module docstring)."""
    with _lock:
        todo = [n for n in names if n not in _compiled]
        if not todo:
            return
        for n in todo:
            if n not in _modules:
                _load_prebuilt(n)
        rest = [n for n in todo if n not in _modules]
        if processes is None:
            processes = int(os.environ.get("IGPART_GPU_COMPILE_PROCESSES", "0") or 0)
        if processes <= 0:
            processes = min(8, _usable_cpus() - 1)
        if processes > 1 and set(PARTITION_SOURCES) <= set(todo):
            marker = _marker(rest)
            if not marker.exists():
                _compile_in_workers(processes, [n for n in PARTITION_SOURCES if n in rest],
                                    first_use_tasks())
                try:
                    marker.write_text("filled by igpart's kernel loader\n")
                except OSError:
                    pass  # a read-only cache directory: the next process compiles again
        for n in rest:
            _modules[n] = _new_module(n)
            _compile_now(_modules[n], n)
        _compiled.update(todo)


def fill_cache(processes: int, sizes=None) -> list[str]:
    """Compiles into CuPy's disk cache every module without a usable cubin and the kernels of
    every warm-up call (``_CUPY_SIZED`` at each of ``sizes``, default ``SIZES_FULL``), by
    ``processes`` workers (1: in this process), then marks the cache filled so that a later
    first use loads directly. Returns the workers' errors."""
    with _lock:
        for n in SOURCES:
            if n not in _modules:
                _load_prebuilt(n)
        rest = [n for n in SOURCES if n not in _modules]
        tasks = warmup_tasks(SIZES_FULL if sizes is None else sizes)
        errors = []
        if processes > 1:
            errors = _compile_in_workers(processes, rest, tasks)
        else:
            run_tasks([f"m:{n}" for n in rest] + tasks, cupy.cuda.Device().id)
        try:
            _marker([n for n in PARTITION_SOURCES if n in rest]).write_text(
                "filled by igpart's kernel warm-up\n")
        except OSError:
            pass
    return errors


def prebuilt_modules() -> list[str]:
    """The modules this process loaded from prebuilt cubins (so far)."""
    return sorted(_from_cubin)


def find_prebuilt(device: int) -> None:
    """Looks up (and keeps) the cubins usable on ``device`` and the name of the cache's marker
    file for the modules without one: both read every source file (the digests that decide
    which cubins fit, the marker's hash), which the background preparation does before the
    partition's first module load."""
    found = _prebuilt_files(device)
    try:
        _marker_name(tuple(sorted(n for n in PARTITION_SOURCES if n not in found)), device)
    except Exception as exc:  # noqa: BLE001 - an optimisation only: the loader tries again
        log.debug("kernel cache marker not looked up: %r", exc)


@functools.cache
def _prebuilt_files(device: int) -> dict:
    """Module -> cubin path for ``device`` (see ``_prebuild.prebuilt_files``)."""
    try:
        cc = int(cupy.cuda.Device(device).compute_capability)
        driver = cupy.cuda.runtime.driverGetVersion()
        return _prebuild.prebuilt_files(cc, driver)
    except Exception as exc:  # noqa: BLE001 - an optimisation only: compile instead
        log.debug("prebuilt GPU kernels not looked up: %r", exc)
        return {}


def _load_prebuilt(name: str) -> None:
    """Loads module ``name`` from its cubin when one fits (the driver may still refuse it, say
    a cubin of a newer CUDA minor version: then it is compiled)."""
    path = _prebuilt_files(cupy.cuda.Device().id).get(name)
    if path is None:
        return
    try:
        mod = cupy.RawModule(path=str(path))
        # loads the cubin now, so that a refusal shows here (without reading the source for a
        # kernel's name, as a CuPy without RawModule.compile needs)
        _compile_now(mod, name)
    except Exception as exc:  # noqa: BLE001 - fall back to compiling the source
        log.debug("prebuilt %s not loaded (%r): compiling %s.cu", path.name, exc, name)
        return
    _modules[name] = mod
    _from_cubin.add(name)


def _usable_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _marker(compiled) -> Path:
    """The file that says CuPy's cache directory holds this loader's kernels for these sources,
    this CuPy, this GPU and these modules ``compiled`` at run time (its name hashes all of
    them)."""
    return cache_dir() / _marker_name(tuple(sorted(compiled)), cupy.cuda.Device().id)


@functools.cache
def _marker_name(compiled: tuple, device: int) -> str:
    """:func:`_marker`'s file name (kept: it reads every source, which :func:`find_prebuilt`
    does ahead of the partition)."""
    h = hashlib.sha256(_headers_digest().encode())
    for n in PARTITION_SOURCES:
        h.update((HERE / f"{n}.cu").read_bytes())
    h.update(Path(__file__).read_bytes())  # the warm-up lists
    capability = cupy.cuda.Device(device).compute_capability
    h.update(f"{cupy.__version__} {capability} {list(compiled)}".encode())
    return f"igpart-kernels-{h.hexdigest()[:24]}.ok"


def cache_dir() -> Path:
    """CuPy's kernel cache directory, by CuPy's own rule: ``CUPY_CACHE_DIR``, else
    ``~/.cupy/kernel_cache``."""
    return Path(os.environ.get("CUPY_CACHE_DIR") or Path.home() / ".cupy" / "kernel_cache")


#: Seconds each module took to compile on an H100 (NVRTC, CuPy 14; jet and jet_balance: halves
#: of the 2.4 s jet.cu took before it was split, not measured apart): the workers' shares are
#: balanced by them (a warm-up call compiles in about 0.1 s; graph_lp not measured, its size).
_COMPILE_SECONDS = {"jet": 1.3, "jet_balance": 1.2, "coarsen": 1.06, "contract": 0.87,
                    "refine": 0.77, "scan": 0.49, "metrics": 0.26, "util": 0.22, "graph_lp": 0.3}


def _compile_in_workers(processes: int, modules, warmups) -> list[str]:
    """Fills CuPy's disk cache with the ``modules`` and the kernels of the ``warmups``
    (:func:`warmup_tasks`), split over ``processes`` child processes, longest first onto the
    least loaded (each loads this file alone, without the igpart package). A worker that fails
    leaves its kernels to be compiled here, when first used. Returns the workers' errors."""
    tasks = [(_COMPILE_SECONDS.get(n, 1.0), f"m:{n}") for n in modules]
    # an elementwise kernel compiles in about 0.1 s; a size-dependent call may compile a CUB
    # block reduction (two kernels built with CUB's headers, several times slower): spread
    # those first
    tasks += [(0.11 if t.startswith("w:") else 0.5, t) for t in warmups]
    shares: list[list[str]] = [[] for _ in range(processes)]
    load = [0.0] * processes
    for cost, task in sorted(tasks, key=lambda t: -t[0]):
        i = load.index(min(load))
        shares[i].append(task)
        load[i] += cost
    env = dict(os.environ, IGPART_GPU_COMPILE_PROCESSES="1")
    dev = str(cupy.cuda.Device().id)
    children = [subprocess.Popen([sys.executable, "-c", _WORKER, __file__, dev, *share],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                for share in shares if share]
    errors = []
    for child in children:
        _, err = child.communicate()
        if child.returncode != 0:
            errors.append(f"exit status {child.returncode}: {err.decode(errors='replace')[-500:]}")
            log.debug("GPU compile worker failed: %s", errors[-1])
    return errors


def run_tasks(tasks, device: int) -> None:
    """Runs ``tasks`` (module and warm-up tasks, as the workers do) in this process."""
    for task in tasks:
        kind, what, *size = task.split(":")
        if kind == "m":
            _compile_now(_new_module(what), what)
        else:
            _warm(_WARMUP_TABLES[kind][int(what)], device, *map(int, size))


_WORKER = """
import importlib.util, sys
import cupy
spec = importlib.util.spec_from_file_location("_igpart_gpu_loader", sys.argv[1])
loader = importlib.util.module_from_spec(spec)
spec.loader.exec_module(loader)
dev = int(sys.argv[2])
with cupy.cuda.Device(dev):
    loader.run_tasks(sys.argv[3:], dev)
"""


def _new_module(name: str) -> cupy.RawModule:
    """The module of ``<name>.cu`` compiled at run time (NVRTC)."""
    code = (HERE / f"{name}.cu").read_text()
    # CuPy's cache keys on the source text only: fold the headers in so that editing one
    # recompiles every module.
    code = f"// headers {_headers_digest()}\n{code}"
    return cupy.RawModule(code=code, options=(f"-I{COMMON}", f"-I{HERE}", "--std=c++17"))


def _compile_now(mod: cupy.RawModule, name: str) -> None:
    if hasattr(mod, "compile"):
        mod.compile()
    else:  # older CuPy: a RawModule compiles on its first kernel lookup
        mod.get_function(_first_kernel(name))


def _warm(op, device: int, n: int = 4) -> None:
    """Runs one warm-up call on arrays of ``n`` values; a call this CuPy version rejects is
    skipped (its kernel, if the partitioner uses it, then compiles when first used)."""
    try:
        with cupy.cuda.Device(device):
            i32 = cupy.arange(n, dtype=cupy.int32)
            i64 = cupy.arange(n, dtype=cupy.int64)
            # CuPy's own ufuncs: an operator with a Python scalar goes through NumPy's ufunc
            # and CuPy's __array_ufunc__, which imports cupyx.scipy.special (the background
            # preparation imports it in another thread meanwhile; its primers need not wait)
            mask = cupy.equal(cupy.remainder(i64, 2), 0)
            op(i32, i64, mask)
            cupy.cuda.get_current_stream().synchronize()
    except Exception as exc:  # noqa: BLE001 - an optimisation only; the run itself reports errors
        log.debug("GPU warm-up call skipped: %r", exc)


#: The CuPy operations (and dtypes) of the partitioner's launchers, one compiled kernel each:
#: comparisons and arithmetic with scalars, casts, boolean masks, gathers, scatters, scans,
#: reductions (the kernels a first H100 run compiled, read from CuPy's cache).
_CUPY_FIRST_USE = (
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
    lambda a, b, m: m[b], lambda a, b, m: _store(b, b, b), lambda a, b, m: _store(a, b, a),
    lambda a, b, m: cupy.cumsum(b), lambda a, b, m: b.sum(), lambda a, b, m: b.max(),
    lambda a, b, m: a + 1, lambda a, b, m: b + b, lambda a, b, m: b + 1, lambda a, b, m: b & 1,
    lambda a, b, m: b | b, lambda a, b, m: b << 1, lambda a, b, m: b * 3, lambda a, b, m: ~m,
    lambda a, b, m: m.copy(), lambda a, b, m: a == 1, lambda a, b, m: b < 1,
    lambda a, b, m: cupy.full(4, 2, dtype=cupy.int32), lambda a, b, m: cupy.zeros((), bool).fill(1),
    lambda a, b, m: cupy.empty(4, dtype=cupy.int64).fill(1), lambda a, b, m: a[a],
    lambda a, b, m: b[a], lambda a, b, m: m[a], lambda a, b, m: _store(a, a, a),
    lambda a, b, m: _store(m, a, m), lambda a, b, m: cupy.flatnonzero(m),
    lambda a, b, m: cupy.unique(b), lambda a, b, m: cupy.cumsum(m, dtype=cupy.int32),
    lambda a, b, m: cupy.cumsum(a),
)

#: The rest of the one-size warm-ups: run by ``igpart.warmup`` (at install), not on a first use
#: without it (on the H100 the whole list in the first process's workers cost 12-15 s against
#: 4.7 s for ``_CUPY_FIRST_USE`` plus what the partition then compiles itself).
_CUPY_INSTALL = (
    # maxima with a scalar, comparisons of int32 arrays and of mixed widths, int8/uint8/uint64
    # arithmetic and casts (Jet's flags, the tie-break hash of label propagation)
    lambda a, b, m: cupy.maximum(a, 0), lambda a, b, m: cupy.maximum(b, 0),
    lambda a, b, m: cupy.minimum(b, 0), lambda a, b, m: a != a, lambda a, b, m: a != 1,
    lambda a, b, m: b != 1, lambda a, b, m: b == 1, lambda a, b, m: a < a, lambda a, b, m: a > a,
    lambda a, b, m: a <= a, lambda a, b, m: a >= a, lambda a, b, m: b < b, lambda a, b, m: b <= b,
    lambda a, b, m: b >= b, lambda a, b, m: a > 1, lambda a, b, m: a <= 1, lambda a, b, m: b < 0,
    lambda a, b, m: a == b, lambda a, b, m: b - a, lambda a, b, m: b + a, lambda a, b, m: a * a,
    lambda a, b, m: a + a, lambda a, b, m: a - a, lambda a, b, m: b * b, lambda a, b, m: -b,
    lambda a, b, m: b // 2, lambda a, b, m: b % 2 == 1, lambda a, b, m: a % 2,
    lambda a, b, m: a // 2, lambda a, b, m: m ^ m, lambda a, b, m: cupy.logical_not(m),
    lambda a, b, m: a.astype(cupy.bool_), lambda a, b, m: b.astype(cupy.bool_),
    lambda a, b, m: m.astype(cupy.int8), lambda a, b, m: b.astype(cupy.int8),
    lambda a, b, m: a.astype(cupy.uint8), lambda a, b, m: m.astype(cupy.uint8),
    lambda a, b, m: a.astype(cupy.int8) == 1, lambda a, b, m: a.astype(cupy.int8) > 0,
    lambda a, b, m: a.astype(cupy.int8).astype(cupy.int64),
    lambda a, b, m: _hash(b, b),
    # fills (a non-zero value: zero is a memset), slice and scalar stores, 0-d results
    lambda a, b, m: cupy.full(4, -1, dtype=cupy.int64), lambda a, b, m: cupy.ones(4, cupy.int8),
    lambda a, b, m: cupy.ones(4, cupy.int32), lambda a, b, m: cupy.ones(4, cupy.int64),
    lambda a, b, m: cupy.ones(4, cupy.bool_), lambda a, b, m: cupy.full(4, -1, cupy.int32),
    lambda a, b, m: cupy.empty(4, dtype=cupy.int32).fill(1),
    lambda a, b, m: cupy.empty(4, dtype=cupy.int8).fill(1),
    lambda a, b, m: cupy.empty(4, dtype=cupy.uint8).fill(1),
    lambda a, b, m: _store(b, slice(0, 1), 0), lambda a, b, m: _store(a, slice(0, 1), 0),
    lambda a, b, m: _store(b, b, -1), lambda a, b, m: _store(a, b, -1),
    lambda a, b, m: _store(m, b, True),
    lambda a, b, m: _store(a, a, -1), lambda a, b, m: _store(b, a, b),
    lambda a, b, m: _store(a.astype(cupy.int8), b, 1), lambda a, b, m: _store(b, m, 0),
    lambda a, b, m: _store(a, m, 0), lambda a, b, m: cupy.copyto(b.copy(), b),
    lambda a, b, m: cupy.where(m, a, -1), lambda a, b, m: cupy.where(m, b, 0),
    lambda a, b, m: cupy.where(m, a, a), lambda a, b, m: cupy.where(m, b, b),
    lambda a, b, m: cupy.where(m, b, cupy.int64(-1)), lambda a, b, m: cupy.where(m, b, -b),
    lambda a, b, m: cupy.concatenate([b, b]), lambda a, b, m: cupy.concatenate([a, a]),
    lambda a, b, m: cupy.stack([b[0], b[1], b[2]]), lambda a, b, m: len(b) - 1 - cupy.argmax(b),
    lambda a, b, m: m[cupy.argmax(b)].astype(cupy.int64), lambda a, b, m: cupy.stack([b, b]),
    lambda a, b, m: b[cupy.argmax(b)], lambda a, b, m: m[::-1].astype(cupy.int8),
    lambda a, b, m: _store(b, 2, 5), lambda a, b, m: _store(a, 2, 5),
    lambda a, b, m: _store(m, a, True), lambda a, b, m: _store(m, slice(1, None), m[:-1]),
    lambda a, b, m: _store(a, slice(1, None), a[:-1]),
    lambda a, b, m: _store(b, slice(1, None), b[:-1]),
    lambda a, b, m: cupy.not_equal(b[1:], b[:-1], out=cupy.ones(len(b), cupy.bool_)[1:]),
    lambda a, b, m: cupy.not_equal(a[1:], a[:-1], out=cupy.ones(len(a), cupy.bool_)[1:]),
    lambda a, b, m: cupy.not_equal(b[1:], b[:-1], out=cupy.ones(len(b), cupy.bool_)[:-1]),
    lambda a, b, m: b & cupy.int64(0xFFFFFFFF), lambda a, b, m: b >> 32,
    lambda a, b, m: cupy.searchsorted(b, b, side="right"),
    lambda a, b, m: cupy.lexsort(cupy.stack([b, b])), lambda a, b, m: cupy.searchsorted(b, b),
    lambda a, b, m: b * m, lambda a, b, m: b * a, lambda a, b, m: 1 + b,
    lambda a, b, m: cupy.full(4, -1, cupy.int8),
)
_CUPY_WARMUPS = _CUPY_FIRST_USE + _CUPY_INSTALL


def _store(dst, idx, val):
    dst = dst.copy()
    dst[idx] = val
    return dst


def _hash(a, b):
    """The operations of label propagation's tie-break hash (``_graph_lp.tie_hash``)."""
    import numpy as np

    x = (a.astype(cupy.uint64) * np.uint64(3)) ^ ((b.astype(cupy.uint64) + np.uint64(5))
                                                  * np.uint64(7))
    x ^= x >> np.uint64(31)
    x *= np.uint64(9)
    return (x >> np.uint64(33)).astype(cupy.int64)


#: The CuPy operations whose kernels depend on the arrays' size as well as their dtypes:
#: reductions (a CUB block reduction, two kernels, whose block size grows with the size up to
#: 512 threads at 1,025 values; CuPy 14.2+ reduces under 128 values with its simple kernel), and
#: stream compaction (boolean masks, ``nonzero``: one scan kernel up to 512 values, a blocked
#: scan beyond, and one more level beyond 512 x 512). Each runs at every size of a ladder.
def _primer_scan(a, b, m):
    return cupy.cumsum(b)


def _primer_bincount(a, b, m):
    return cupy.bincount(b)


def _primer_argsort(a, b, m):
    return cupy.argsort(b)


#: CuPy preprocesses an empty file with NVRTC once per process and set of compile options, to
#: key its kernel cache (10-24 ms each on the H200 machine, 2026-11-29, with the cache warm): the
#: partitioner's operations use three sets, those of CuPy's scans (the first ``cumsum`` of a
#: large array, in the first upload's transpose) and of the two passes of its CUB reductions
#: (``bincount``'s ``any()``, in the community detection). One sized warm-up call of each, at
#: the largest warm-up size (which takes those code paths), and the first large ``argsort``
#: (CuPy's Thrust module, loaded when first used): the background preparation runs them
#: (:func:`primer_tasks`) before the partition meets them. ``bincount`` last: it compares its
#: input with 0, so it waits for the import of cupyx.scipy.special (see ``_warm``).
_CUPY_PRIMERS = (_primer_scan, _primer_argsort, _primer_bincount)

_CUPY_SIZED = (
    lambda a, b, m: m.any(), lambda a, b, m: m.all(), lambda a, b, m: (~m).any(),
    lambda a, b, m: m.sum(), lambda a, b, m: a.sum(), lambda a, b, m: b.sum(),
    lambda a, b, m: a.max(), lambda a, b, m: a.min(), lambda a, b, m: b.max(),
    lambda a, b, m: b.min(), lambda a, b, m: cupy.count_nonzero(m), lambda a, b, m: cupy.argmax(b),
    lambda a, b, m: cupy.argmax(m.astype(cupy.int8)), lambda a, b, m: cupy.diff(b).max(),
    lambda a, b, m: cupy.cumsum(m), lambda a, b, m: cupy.cumsum(m, dtype=cupy.int32),
    lambda a, b, m: cupy.cumsum(m, dtype=cupy.int64), _primer_scan,
    lambda a, b, m: cupy.cumsum(a, dtype=cupy.int32),
    lambda a, b, m: cupy.cumsum(m.astype(cupy.int8), dtype=cupy.int64),
    lambda a, b, m: cupy.flatnonzero(m), lambda a, b, m: cupy.flatnonzero(a),
    lambda a, b, m: cupy.flatnonzero(m.astype(cupy.int8)), lambda a, b, m: b[m],
    lambda a, b, m: a[m], lambda a, b, m: m[m], lambda a, b, m: _store(b, m, b[m]),
    lambda a, b, m: cupy.unique(b), lambda a, b, m: cupy.unique(a),
    lambda a, b, m: cupy.unique(b, return_inverse=True),
    lambda a, b, m: cupy.unique(a, return_inverse=True), lambda a, b, m: cupy.count_nonzero(b),
    lambda a, b, m: cupy.count_nonzero(a),
    lambda a, b, m: cupy.bincount(a, minlength=4), _primer_bincount,
    _primer_argsort, lambda a, b, m: cupy.argsort(a), lambda a, b, m: cupy.sort(b),
    lambda a, b, m: cupy.argsort(b.astype(cupy.uint64)),
)

_WARMUP_TABLES = {"w": _CUPY_WARMUPS, "s": _CUPY_SIZED}
#: sizes of the size-dependent warm-ups at install (``igpart.warmup``): every block size
SIZES_FULL = (4, 128, 200, 400, 800, 300_000)


def first_use_tasks() -> list[str]:
    """The warm-up tasks of a first use without the installed warm-up: ``_CUPY_FIRST_USE`` on
    4 values (the kernels the partitions of ``large`` inputs compile first); the rest compile
    when first used."""
    return [f"w:{i}:4" for i in range(len(_CUPY_FIRST_USE))]


def primer_tasks() -> list[str]:
    """The background preparation's calls of ``_CUPY_PRIMERS`` (one per compile-option set of
    CuPy's NVRTC, and Thrust's first sort): sized warm-up tasks at the largest warm-up size, in
    the order a partition first meets them; none when the installed warm-up (``igpart warmup``,
    which compiles their kernels) has not run here: on a cold cache each call would compile its
    kernel (seconds for a CUB reduction) while the partition compiles the same one, NVRTC calls
    of one process running one at a time."""
    if not any(cache_dir().glob("igpart-warmup-*.ok")):
        return []
    return [f"s:{_CUPY_SIZED.index(op)}:{SIZES_FULL[-1]}" for op in _CUPY_PRIMERS]


def warmup_tasks(sizes=SIZES_FULL) -> list[str]:
    """The warm-up tasks of the workers: ``w:<i>`` per call of ``_CUPY_WARMUPS`` (4 values),
    ``s:<i>:<n>`` per call of ``_CUPY_SIZED`` and size ``n``."""
    return ([f"w:{i}:4" for i in range(len(_CUPY_WARMUPS))]
            + [f"s:{i}:{n}" for i in range(len(_CUPY_SIZED)) for n in sizes])


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
