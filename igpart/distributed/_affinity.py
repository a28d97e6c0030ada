"""The cores of a local cluster's worker process: named by its nanny in ``CPUS_ENV``, pinned by
the worker plugin (a leaf module, below both)."""

from __future__ import annotations

import contextlib
import os

#: Environment variable naming the cores of a local worker (a comma list), read by the plugin
#: that pins the worker process to them.
CPUS_ENV = "IGPART_WORKER_CPUS"


def pin_worker_cores(worker=None) -> None:
    """Pins every thread of this worker process to the cores named by ``CPUS_ENV``."""
    text = os.environ.get(CPUS_ENV)
    if not text or not hasattr(os, "sched_setaffinity"):
        return
    cpus = {int(c) for c in text.split(",")}
    for tid in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(int(tid), cpus)
