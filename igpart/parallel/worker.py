"""A worker process that serves METIS calls and bisections of recursive bisection over its
pipes (the protocol: :mod:`igpart.parallel.protocol`), started by
:mod:`igpart.parallel.metis_pool` as ``python -m igpart.parallel.worker``; an entry point that
nothing in igpart imports.

METIS requests run :func:`igpart.partitioner.initial.metis.part_graph`, the one place where
igpart calls pymetis, in-process too, so that both give the same blocks for the same seed
(METIS seeds its process-global RNG from the options on every call); a bisection runs igpart's
k = 2 pipeline (:func:`igpart.partitioner.driver.bisect`) on one OpenMP thread. What METIS
prints on file descriptor 1 goes to stderr (the protocol keeps its own copy of the pipe). The
worker imports numpy, pymetis and the C++ backend before it reports ready.
"""

from __future__ import annotations

import os
import sys

from ..kernels import _cpu
from ..partitioner.driver import bisect
from ..partitioner.initial.metis import part_graph
from ..partitioner.initial.recursive import bisect_request
from .protocol import picklable_error, receive, send


def main() -> None:
    """Serves requests until stdin closes."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # METIS's printf and Python's print go to stderr, never into the protocol
    sys.stdout = sys.stderr
    import pymetis  # noqa: F401  (imported before "ready": the start-up cost is paid here)

    _cpu.set_num_threads(1)  # the pool's workers run side by side

    send(replies, ("ready", os.getpid()))
    while True:
        try:
            request = receive(requests)
        except EOFError:
            return
        try:
            if request.pop("op", "metis") == "bisect":
                reply = ("ok", bisect_request(bisect, **request))
            else:
                seeds = request.pop("seeds")
                reply = ("ok", [part_graph(seed=s, **request) for s in seeds])
        except Exception as exc:
            reply = ("error", picklable_error(exc))
        sys.stderr.flush()
        send(replies, reply)


if __name__ == "__main__":
    main()
