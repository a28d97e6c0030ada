"""Readies the GPU in a background thread while the caller does host work (the command line
reads its input meanwhile): CuPy's import, the CUDA context and memory pool, the partitioner's
modules (from their cubins, else compiled) and CuPy's kernels of the loader's first-use
warm-up calls (from CuPy's disk cache). A fresh process otherwise pays all of it in its
first partition, after the input is read.

The CUDA driver's initialisation and the device's primary context (the one CuPy's runtime
calls use) are made through the driver API by ctypes, in a thread of their own, while CuPy is
imported: ctypes calls release the GIL, whereas CuPy's first ``getDeviceCount`` initialises the
driver holding it (about 0.1 s on the H200 machine, during which no other Python thread of the
process runs), and the context then took another ~0.15 s after CuPy's import. The preparation
also imports ``cupyx.scipy.special`` (with ``scipy.sparse``) in a third thread once CuPy is
imported: CuPy imports it on the first comparison of an array with a Python scalar, which every
partition makes early. Once the context is made it looks up the prebuilt cubins (reading every
kernel source for its digest) and makes the CuPy calls whose first use sets up CuPy's compiler
(``_loader.primer_tasks``), before the partitioner's modules: the partition's first upload
meets them right after the read. These steps run even once the preparation is
stopped (the partition would otherwise do them itself, on its critical path).

The readers' C++ parsing runs without the GIL, so the two overlap. Once :meth:`Preparation.stop`
is called (the command line calls it when the input is read) the thread skips the modules and
stops between two first-use warm-up calls: the partition then loads what it needs itself,
without a second thread competing for the interpreter. The steps the partition meets first
(CuPy's import, the context, ``cupyx.scipy.special``, the primer calls) run in any case: the
partition waits for them where it needs the same thing (the import lock, the driver) instead of
doing them after the read. It never raises: a failure is logged (``-vv``) and left to the
partition, which then does the same work itself.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import time

log = logging.getLogger("igpart")


class Preparation:
    """One background preparation of the current CUDA device (:func:`start`)."""

    def __init__(self, kernels: bool = True):
        self.kernels = kernels
        self.seconds: float | None = None
        self.error: str | None = None
        self._stop = threading.Event()
        self._import: threading.Thread | None = None
        self._thread = threading.Thread(target=self._run, name="igpart-gpu-prepare")

    def start(self) -> Preparation:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Asks the thread to skip the modules and the first-use kernels from now on (the steps
        of the partition's critical path still run; the thread is not waited for)."""
        self._stop.set()

    def join(self, timeout: float | None = None) -> bool:
        """Waits for the thread; True when it has ended."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        t0 = time.perf_counter()
        try:
            self._prepare()
        except Exception as exc:  # noqa: BLE001 - an optimisation only: the run does it itself
            self.error = f"{type(exc).__name__}: {exc}"
            log.debug("GPU preparation stopped: %s", self.error)
        finally:
            if self._import is not None:
                self._import.join()
        self.seconds = time.perf_counter() - t0
        log.debug("GPU prepared in the background in %.2f s", self.seconds)

    def _prepare(self) -> None:
        from .. import gpu_status

        context = threading.Thread(target=driver_context, name="igpart-gpu-context", daemon=True)
        context.start()
        try:
            import cupy  # noqa: F401 - while the driver initialises
        except Exception:  # noqa: BLE001 - gpu_status below says why
            pass
        else:
            # cupyx.scipy.special's import (the partition's first comparison of an array with a
            # scalar waits for it, on the import lock) needs no context: it runs beside the
            # context's making and the primer calls
            self._import = threading.Thread(target=_import_special, name="igpart-gpu-import")
            self._import.start()
        context.join()
        ok, reason = gpu_status()
        if not ok:
            return
        import cupy

        from . import _loader

        cupy.cuda.runtime.free(0)  # makes the primary context current in this thread
        cupy.empty(1 << 20, dtype=cupy.uint8)  # and the memory pool's first chunk
        # not skipped once stopped: the cubins' look-up (the partition's first module load needs
        # it), then CuPy's compiler set-ups and Thrust's first sort, which the partition meets
        # first (its first upload's cumsum), right after the read
        device = cupy.cuda.Device().id
        _loader.find_prebuilt(device)
        _loader.run_tasks(_loader.primer_tasks(), device)
        if not self._stop.is_set():
            _loader.compile_modules(_loader.PARTITION_SOURCES)
        if not self.kernels or self._stop.is_set():
            return
        # the kernels a first use without the installed warm-up compiles in its workers (so
        # that on a cold cache they are loads here, not compilations); the rest load when used
        for task in _loader.first_use_tasks():
            if self._stop.is_set():
                return
            _loader.run_tasks([task], device)


def _import_special() -> None:
    """Imports ``cupyx.scipy.special`` (with ``scipy.sparse``), which CuPy imports on the first
    comparison of an array with a Python scalar (its ``__array_ufunc__``)."""
    try:
        import cupyx.scipy.special  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - the partition's own import then says why
        log.debug("GPU preparation: cupyx.scipy.special not imported: %s", exc)


def driver_context(device: int = 0) -> bool:
    """Initialises the CUDA driver and retains ``device``'s primary context (default: the
    first device CUDA lets the process see, CuPy's default) through ``libcuda`` with ctypes,
    which releases the GIL during each call; True when both succeeded. Without the driver
    library, or on an error, nothing is done (CuPy then does it when first used)."""
    try:
        lib = ctypes.CDLL("nvcuda.dll" if os.name == "nt" else "libcuda.so.1")
        if lib.cuInit(0) != 0:
            return False
        dev = ctypes.c_int()
        if lib.cuDeviceGet(ctypes.byref(dev), int(device)) != 0:
            return False
        ctx = ctypes.c_void_p()
        return lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    except (OSError, AttributeError):
        return False


def start(kernels: bool = True) -> Preparation:
    """Starts preparing the current CUDA device in a background thread (see the module
    docstring); without CuPy or a device the thread ends at once."""
    return Preparation(kernels).start()
