"""A worker process that serves METIS calls, bisections of recursive bisection, whole
subtrees of them and the splits of a process mapping (:func:`igpart.mapping.split_request`)
over its pipes (the protocol: :mod:`igpart.parallel.protocol`), started by
:mod:`igpart.parallel.metis_pool` as ``python -m igpart.parallel.worker``; an entry point that
nothing in igpart imports.

METIS requests run :func:`igpart.partitioner.initial.metis.part_graphs`, the one place where
igpart calls METIS, in-process too, so that both give the same blocks for the same seed
(METIS seeds its random number generator from the options on every call); a bisection runs igpart's
k = 2 pipeline (:func:`igpart.partitioner.driver.bisect`) on one OpenMP thread. What METIS
prints on file descriptor 1 goes to stderr (the protocol keeps its own copy of the pipe). The
worker imports numpy and the C++ backend (METIS is compiled into it) before it reports ready; with
``--import-low-priority`` it imports on a thread of the lowest CPU priority (nice 19, that
thread only: the requests are then served at the process's own priority), so that a pool
started ahead of time takes only the cycles the caller's threads leave idle.
"""

from __future__ import annotations

import os
import sys
import threading

from .protocol import picklable_error, receive, send


def _import_all() -> dict:
    """The modules a request needs (imported before "ready": the start-up cost is paid here)."""
    from .. import mapping  # noqa: F401  (the splits of a process mapping)
    from ..kernels import _cpu  # noqa: F401
    from ..partitioner.driver import bisect
    from ..partitioner.initial.metis import part_graphs
    from ..partitioner.initial.recursive import bisect_request, subtree_request

    return {"bisect": bisect, "part_graphs": part_graphs, "bisect_request": bisect_request,
            "subtree_request": subtree_request}


def _import_low_priority() -> dict:
    """:func:`_import_all` on a thread of nice 19 (Linux: the priority of that thread only)."""
    out: dict = {}

    def run() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except (AttributeError, OSError):
            pass  # no per-thread priority here: import at the process's own
        try:
            out.update(_import_all())
        except BaseException as exc:  # raised again on the main thread
            out["error"] = exc

    thread = threading.Thread(target=run, name="igpart-worker-import")
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out


def main() -> None:
    """Serves requests until stdin closes."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # METIS's printf and Python's print go to stderr, never into the protocol
    sys.stdout = sys.stderr
    low = "--import-low-priority" in sys.argv[1:]
    fns = _import_low_priority() if low else _import_all()
    # the pool's workers run side by side: one OpenMP thread each, set on this thread, which
    # serves the requests (OpenMP's thread count is a per-thread setting: set on the import
    # thread of --import-low-priority it would not reach them; the pool's OMP_NUM_THREADS=1
    # gives the same default, this holds without it)
    from ..kernels import _cpu

    _cpu.set_num_threads(1)
    bisect, part_graphs = fns["bisect"], fns["part_graphs"]
    serve = {"bisect": fns["bisect_request"], "subtree": fns["subtree_request"]}

    send(replies, ("ready", os.getpid()))
    while True:
        try:
            request = receive(requests)
        except EOFError:
            return
        try:
            op = request.pop("op", "metis")
            if op in serve:
                reply = ("ok", serve[op](bisect, **request))
            elif op == "split":  # one split of a process mapping (imported on first use)
                from ..mapping import split_request

                reply = ("ok", split_request(**request))
            else:
                seeds = request.pop("seeds")
                reply = ("ok", part_graphs(seeds=seeds, **request))
        except Exception as exc:
            reply = ("error", picklable_error(exc))
        sys.stderr.flush()
        send(replies, reply)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        # a Ctrl-C in the terminal reaches the whole process group: the worker ends at once, as
        # before, but silently (the caller reports the interrupt, or runs the call in-process)
        os._exit(130)
