"""METIS calls in worker processes, several at once (``Config.initial_metis_processes``).

The METIS calls of the initial partitioning (one per seed on the coarsest level and per seed
inside every bisection of ``"rb"``) release the GIL and run their seeds side by side
(:func:`igpart.partitioner.initial.metis.part_graphs`), but the Python around the C++ stages of
the bisections holds it, so bisections on threads of one process take turns; in worker
processes they do not. The pool keeps persistent
worker processes (``python -m igpart.parallel.worker``, started with ``subprocess.Popen``: no
``multiprocessing``, whose spawn re-imports the caller's ``__main__`` and whose fork after
OpenMP / CUDA is unsafe). A thread that needs METIS checks out a free worker, sends the call's
arguments and blocks on the pipe (without the GIL), so up to N calls run at once. A request
carries one graph and several seeds (one round trip for them: a round trip costs about as much
as one METIS call on the ~100-vertex coarsest levels of the bisections), and
:meth:`MetisPool.submit` lets a caller send all its seeds at once and refine earlier results
while METIS runs (:func:`igpart.partitioner.initial.metis.metis_partitions`). Each call is
seeded, so the blocks are those of in-process METIS.

The pool is process-wide: :func:`get_pool` starts it and grows it to the largest size asked for
without blocking (a background thread starts the processes; a caller that needs a worker waits for
one, except that calls with ``wait_for_start=False``, those of the initial partitioning, run
in-process while no worker has finished its imports: a run that reaches its initial partitioning
before then goes on without them, and they take the calls once started); ``low_priority=True`` (the
driver's start at the top of a run, while the levels coarsen) makes the workers import at the
lowest CPU priority, so that their imports take the cycles the run's threads leave idle instead of
preempting them (on 16 cores, a run with 15 workers spent about 1 s more in its parallel stages
before the initial partitioning than one without). :func:`shutdown` (registered with ``atexit``)
closes the workers' input and reaps them. A worker that dies or fails to start is dropped with a
logged warning, the call runs in-process, and the next call starts a replacement; after repeated
start failures the pool stops starting workers and every call runs in-process.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from . import protocol as proto

log = logging.getLogger("igpart")

#: Start failures (a worker that dies before "ready") after which the pool gives up.
MAX_START_FAILURES = 3


class WorkerGone(Exception):
    """The worker died or its pipe broke; the call should run in-process."""


class NotStarted(WorkerGone):
    """No worker of the pool has finished its start-up (imports) yet, and the caller would
    rather run the call in-process than wait (``call(..., wait_for_start=False)``)."""


#: Environment of the workers: one thread per BLAS library (a worker is single-threaded; 15
#: workers would otherwise each start a BLAS thread pool of the machine's size).
_WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


class _Worker:
    def __init__(self, low_priority: bool = False) -> None:
        # the worker's stdout carries the protocol, its stderr is ours (METIS's warnings)
        args = [sys.executable, "-m", "igpart.parallel.worker"]
        if low_priority:
            args.append("--import-low-priority")
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
            env={**os.environ, **_WORKER_ENV},
        )
        self.ready = False

    def started(self) -> bool:
        """Whether the worker has finished its start-up (its "ready" message is read, or waits
        in the pipe); never blocks."""
        if self.ready:
            return True
        try:
            return bool(select.select([self.proc.stdout], [], [], 0)[0])
        except (OSError, ValueError):
            return True  # a broken pipe: the call finds out and reports it

    def call(self, request: dict[str, Any]) -> tuple[str, Any]:
        try:
            if not self.ready:
                tag, _ = proto.receive(self.proc.stdout)
                if tag != "ready":
                    raise WorkerGone(f"unexpected first message {tag!r}")
                self.ready = True
            proto.send(self.proc.stdin, request)
            return proto.receive(self.proc.stdout)
        except (EOFError, OSError, ValueError) as exc:
            raise WorkerGone(str(exc) or type(exc).__name__) from exc

    def close(self, timeout: float = 2.0) -> None:
        """Ends the worker (end of input, then kill after ``timeout``) and reaps it."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            self.proc.stdout.close()
        except OSError:
            pass


class MetisPool:
    """Up to ``size`` worker processes; :meth:`part_graphs` is thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        self._workers: set[_Worker] = set()
        self.size = 0
        self.start_failures = 0
        self.closed = False
        self._executor: ThreadPoolExecutor | None = None
        self._starters: list[threading.Thread] = []
        self._started = False  # some worker has finished its start-up

    @property
    def usable(self) -> bool:
        return not self.closed and self.start_failures < MAX_START_FAILURES

    def grow(self, size: int, low_priority: bool = False) -> None:
        """Adds slots until there are ``size``; a background thread starts their workers (the
        caller does not wait for the processes to start, nor for their imports)."""
        with self._lock:
            if not self.usable or self.size >= size:
                return
            count, self.size = size - self.size, size
            if self._executor is not None:  # one thread per worker: a new, larger executor
                self._executor.shutdown(wait=False)  # (its queued calls still run)
                self._executor = None
            starter = threading.Thread(target=self._start_slots, args=(count, low_priority),
                                       name="igpart-metis-start", daemon=True)
            self._starters.append(starter)
        starter.start()

    def _start_slots(self, count: int, low_priority: bool) -> None:
        """Starts ``count`` workers and makes each slot free (a slot whose start failed holds
        None and starts a worker when checked out); once the pool is shut down the slots left
        hold None (a call that checks one out runs in-process)."""
        for _ in range(count):
            with self._lock:
                worker = None if self.closed else self._start(low_priority)
            self._free.put(worker)

    def _start(self, low_priority: bool = False) -> _Worker | None:
        """A new worker, or None (a slot that starts one when checked out) when Popen fails;
        the caller holds the lock."""
        try:
            worker = _Worker(low_priority)
        except OSError as exc:
            log.warning("could not start a METIS worker process: %s", exc)
            self.start_failures += 1
            return None
        self._workers.add(worker)
        return worker

    def _join_starters(self) -> None:
        with self._lock:
            starters, self._starters = self._starters, []
        for starter in starters:
            starter.join()

    def part_graphs(self, request: dict[str, Any], seeds: list[int],
                    wait_for_start: bool = True) -> list[np.ndarray]:
        """METIS in a worker, once per seed (``request``: the keyword arguments of
        :func:`igpart.partitioner.initial.metis.part_graphs` but the seeds); raises WorkerGone
        when no worker could serve the call (the caller runs it in-process; ``wait_for_start``: see
        :meth:`call`) and what METIS raised otherwise."""
        return self.call({**request, "seeds": list(seeds)}, wait_for_start)

    def bisect(self, request: dict[str, Any], wait_for_start: bool = True) -> np.ndarray:
        """One bisection of :mod:`igpart.partitioner.initial.recursive` in a worker
        (``request``: the keyword arguments of
        :func:`igpart.partitioner.initial.recursive.bisect_request`); raises like
        :meth:`part_graphs`."""
        return self.call({**request, "op": "bisect"}, wait_for_start)

    def any_started(self) -> bool:
        """Whether some worker has finished its start-up (imports); never blocks."""
        if not self._started:
            with self._lock:
                workers = list(self._workers)
            self._started = any(w.started() for w in workers)
        return self._started

    def wait_started(self, timeout: float = 60.0) -> bool:
        """Waits until every worker of the pool has finished its start-up (imports), at most
        ``timeout`` seconds; whether they all have (a benchmark's warm-up, so that no timed call
        waits for a worker's imports)."""
        self._join_starters()
        deadline = time.monotonic() + timeout
        with self._lock:
            workers = list(self._workers)
        while not all(w.started() for w in workers):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def call(self, request: dict[str, Any], wait_for_start: bool = True) -> Any:
        """One request (see :mod:`igpart.parallel.protocol`) served by a free worker.
        ``wait_for_start=False``: raises NotStarted (nothing sent) while no worker has finished
        its start-up, so that the caller runs the call itself instead of waiting for the
        imports (a pool started at the top of a run on a small input); once one has, the call
        waits for a free worker as usual."""
        if not wait_for_start and not self.any_started():
            raise NotStarted("no METIS worker process has started yet")
        worker = self._free.get()  # blocks while every slot is busy
        try:
            if worker is None:
                with self._lock:
                    if not self.usable:
                        raise WorkerGone("the METIS worker pool is shut down or cannot start")
                    worker = self._start()
                if worker is None:
                    raise WorkerGone("could not start a METIS worker process")
            try:
                tag, value = worker.call(request)
            except WorkerGone as exc:
                with self._lock:
                    if not worker.ready:
                        self.start_failures += 1
                    self._workers.discard(worker)
                worker.close(timeout=0.5)
                log.warning(
                    "METIS worker process %d failed (%s); running this call in-process",
                    worker.proc.pid,
                    exc,
                )
                worker = None  # the slot starts a replacement on its next use
                raise
        finally:
            self._free.put(worker)
        if tag == "error":
            raise value
        return value

    def submit(self, fn, /, *args: Any, **kwargs: Any) -> Future:
        """``fn(*args, **kwargs)`` (a function that calls :meth:`part_graphs`, e.g.
        :func:`igpart.partitioner.initial.metis.metis_partition`) on one of ``size`` threads of the
        pool, which wait on the workers' pipes without the GIL: a caller submits all its METIS calls
        at once and goes on (refining earlier results) while they run."""
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max(1, self.size), thread_name_prefix="igpart-metis"
                )
            executor = self._executor
        return executor.submit(fn, *args, **kwargs)

    def shutdown(self) -> None:
        """Ends every worker and reaps it; later calls run in-process."""
        with self._lock:
            self.closed = True
        self._join_starters()  # they start no worker once closed
        with self._lock:
            workers, self._workers = list(self._workers), set()
            executor, self._executor = self._executor, None
        for worker in workers:
            worker.close()
        if executor is not None:
            executor.shutdown(wait=True)

    def pids(self) -> list[int]:
        """Process ids of the live workers, once every started slot has its process (for
        tests)."""
        self._join_starters()
        with self._lock:
            return [w.proc.pid for w in self._workers]


_POOL: MetisPool | None = None
_POOL_LOCK = threading.Lock()


def get_pool(size: int, low_priority: bool = False) -> MetisPool:
    """The process-wide pool, started (and grown) to at least ``size`` workers, without
    waiting for them; ``low_priority``: the new workers import at the lowest CPU priority
    (a start ahead of time, beside a run's busy threads)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL.closed:
            _POOL = MetisPool()
            atexit.register(_POOL.shutdown)
        pool = _POOL
    pool.grow(int(size), low_priority)
    return pool


def shutdown() -> None:
    """Ends the process-wide pool's workers (a later :func:`get_pool` starts a new pool)."""
    with _POOL_LOCK:
        pool = _POOL
    if pool is not None:
        pool.shutdown()
