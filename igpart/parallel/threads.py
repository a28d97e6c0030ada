"""Threads and CPUs of a run: the thread count a config resolves to, the OpenMP threads of the
C++ stages, the CPUs this process may use, and C code's stdout kept off the caller's stdout
while METIS runs on worker threads."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
import threading


def threads_of(cfg) -> int:
    """The threads of a run: ``cfg.threads`` (a :class:`igpart.Config`), or OpenMP's current
    setting when it is 0."""
    if cfg.threads:
        return int(cfg.threads)
    from ..kernels import _cpu

    return int(_cpu.get_num_threads())


def stage_threads(cfg):
    """``Config.threads`` (when set) as the OpenMP threads of every C++ stage of the run (the
    calling thread's setting, restored afterwards); 0 keeps the current setting."""
    if not cfg.threads:
        return contextlib.nullcontext()
    from ..kernels import omp_threads

    return omp_threads(int(cfg.threads))


def usable_cpus() -> int:
    """CPUs this process may run on: ``len(os.sched_getaffinity(0))`` where the platform has
    it, else ``os.cpu_count()`` (1 if unknown)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_REDIRECT = {"lock": threading.Lock(), "depth": 0, "saved": -1}


@functools.lru_cache(maxsize=1)
def _c_fflush():
    """The C library's ``fflush``, or None where the platform has none (looked up once: a
    ``ctypes.CDLL`` per call builds classes and reopens the library)."""
    try:
        return ctypes.CDLL(None).fflush
    except (OSError, AttributeError):
        return None


def _flush_c_stdio() -> None:
    fflush = _c_fflush()
    if fflush is not None:
        fflush(None)


@contextlib.contextmanager
def c_stdout_to_stderr():
    """Sends what C code writes to file descriptor 1 (METIS prints its warnings there, e.g.
    "Cannot bisect a graph with 0 vertices" on heavy vertices) to stderr, so that stdout stays
    clean for ``--json`` output. Re-entrant and thread-safe: only the outermost use (the one
    that runs the METIS calls, possibly on worker threads) swaps the descriptors."""
    with _REDIRECT["lock"]:
        _REDIRECT["depth"] += 1
        if _REDIRECT["depth"] == 1:
            try:
                sys.stdout.flush()
                _flush_c_stdio()
                _REDIRECT["saved"] = os.dup(1)
                os.dup2(2, 1)
            except (OSError, ValueError):  # no usable descriptors (embedded interpreters)
                _REDIRECT["saved"] = -1
    try:
        yield
    finally:
        with _REDIRECT["lock"]:
            _REDIRECT["depth"] -= 1
            if _REDIRECT["depth"] == 0 and _REDIRECT["saved"] >= 0:
                _flush_c_stdio()
                os.dup2(_REDIRECT["saved"], 1)
                os.close(_REDIRECT["saved"])
                _REDIRECT["saved"] = -1


_SWITCH = {"lock": threading.Lock(), "depth": 0, "saved": 0.0}


@contextlib.contextmanager
def gil_switch_interval(seconds: float):
    """The interpreter's thread switch interval (``sys.setswitchinterval``) at most
    ``seconds`` while the block runs (0: unchanged), restored when the last of the blocks that
    lowered it ends. For threads that hold the GIL only between short C++ calls that release
    it: a thread back from such a call waits for the GIL up to one interval (5 ms by default)
    while another runs Python (recursive bisection, :mod:`igpart.partitioner.initial.recursive`,
    ``CpuBackend.rb_switch_interval``). Re-entrant and thread-safe."""
    if not seconds or seconds <= 0:
        yield
        return
    with _SWITCH["lock"]:
        _SWITCH["depth"] += 1
        if _SWITCH["depth"] == 1:
            _SWITCH["saved"] = sys.getswitchinterval()
            if seconds < _SWITCH["saved"]:
                sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        with _SWITCH["lock"]:
            _SWITCH["depth"] -= 1
            if _SWITCH["depth"] == 0:
                sys.setswitchinterval(_SWITCH["saved"])
