"""Worker plugins of igpart's clusters (imported only where dask.distributed is installed)."""

from __future__ import annotations

import os
import sys

from distributed.diagnostics.plugin import WorkerPlugin

from ._affinity import pin_worker_cores


class PinCores(WorkerPlugin):
    """Pins each (re)started worker process to the cores its nanny named (``CPUS_ENV``)."""

    name = "igpart-pin-cores"

    def setup(self, worker) -> None:
        pin_worker_cores(worker)


class SetThreads(WorkerPlugin):
    """Gives each (re)started worker ``threads`` OpenMP threads (dask-cuda's workers, whose
    environment dask-cuda sets)."""

    name = "igpart-set-threads"

    def __init__(self, threads: int):
        self.threads = int(threads)

    def setup(self, worker) -> None:
        os.environ["OMP_NUM_THREADS"] = str(self.threads)
        if "igpart.kernels._cpu" in sys.modules:
            sys.modules["igpart.kernels._cpu"].set_num_threads(self.threads)
