"""The persistent run process of the benchmark suite (``suite.py --cluster ... --isolate
worker``): one per cluster worker, running igpart's timed calls one after the other.

A fresh process per run pays, every run, the interpreter's start, igpart's imports, the device
context and kernel loads, the input's read and the untimed warm-up call. This process pays the
start once, keeps its GPU context, kernels and METIS worker pool, caches the inputs it has read
(least recently used first out, up to a byte budget) and makes the warm-up call once per (input,
backend, variant), or with ``"warmup_per": "worker"`` in the run spec once per (backend,
variant), on the first input (later inputs' runs then start from the read). Each run still
starts from the input as a fresh process would see it: the hypergraph's lazily computed
properties are reset to their state after the read (after the warm-up call where there is one),
so a run does not time less work because an earlier run computed them.

Protocol (``RunServer`` drives it): ``python run_server.py --backends B[,B] [--cache-bytes N]``;
once started the process answers ``{"ready": true, "pid", "start_seconds"}`` on stdout, then one
reply per request line on stdin: the suite's run spec (see ``suite.worker``) plus ``log``, the
file that takes the run's stdout and stderr (file descriptors 1 and 2, C code included). It writes
the run's result file as a fresh process does and replies ``{"code" (0, or 1 when the run raised:
the error is in the log), "wall", "maxrss_kib", "read_seconds", "warmup_seconds",
"cached_input"}``. ``maxrss_kib`` is the process's peak resident memory during the run (the peak
is reset before each run through ``/proc/self/clear_refs``), its cached inputs included. End of
input, or its parent's exit (the worker killed), ends it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: Input cache of a persistent process when its runner names none (bytes).
DEFAULT_CACHE_BYTES = 4 << 30
#: How often the process checks that its parent is alive (seconds).
PARENT_POLL_SECONDS = 0.5


def nbytes(obj: Any) -> int:
    """Bytes of the numpy arrays an object holds in its attributes (an input's size)."""
    import numpy as np

    return sum(v.nbytes for v in vars(obj).values() if isinstance(v, np.ndarray))


class InputCache:
    """Inputs read from files, least recently used first out once they hold more than ``limit``
    bytes (the newest stays whatever its size). Keyed by path, size and modification time, so
    a rewritten file is read again."""

    def __init__(self, limit: int, read: Callable[[str], Any],
                 size_of: Callable[[Any], int] = nbytes):
        self.limit = int(limit)
        self.read = read
        self.size_of = size_of
        self.entries: OrderedDict[tuple, tuple[Any, int]] = OrderedDict()

    def get(self, path: str) -> tuple[Any, bool]:
        """The input of ``path`` and whether it was cached."""
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key][0], True
        value = self.read(path)
        self.entries[key] = (value, self.size_of(value))
        while len(self.entries) > 1 and sum(b for _, b in self.entries.values()) > self.limit:
            self.entries.popitem(last=False)
        return value, False


# ------------------------------------------------------------------------------- the server
class _Input:
    """A cached input: the object and its attribute dict after the read and after each
    warm-up call (per backend and variant)."""

    def __init__(self, obj: Any):
        self.obj = obj
        self.read_state = dict(vars(obj))
        self.warm_states: dict[str, dict] = {}

    def reset(self, state: dict) -> None:
        vars(self.obj).clear()
        vars(self.obj).update(state)


def _reset_peak_rss() -> None:
    with contextlib.suppress(OSError):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")


def _watch_parent() -> None:
    """Ends this process when its parent (the cluster worker) has gone."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


class _Server:
    def __init__(self, cache_bytes: int, free0: int | None):
        import igpart

        self.cache = InputCache(cache_bytes, lambda p: _Input(igpart.read(p)),
                                lambda e: nbytes(e.obj))
        self.free0 = free0
        self.warmed: set[str] = set()  # (backend, variant) of the warm-up calls made

    def run(self, spec: dict) -> dict[str, Any]:
        import suite

        res: dict[str, Any] = {}
        t0 = time.perf_counter()
        entry, hit = self.cache.get(spec["file"])
        res.update(read_seconds=0.0 if hit else time.perf_counter() - t0, cached_input=hit,
                   rss_after_read_kib=suite.peak_rss_kib())
        warm_key = json.dumps([spec["backend"], spec["config"]], sort_keys=True)
        once = spec.get("warmup_per") == "worker" and warm_key in self.warmed
        if suite.wants_warmup(spec, entry.obj) and warm_key not in entry.warm_states and not once:
            entry.reset(entry.read_state)
            t0 = time.perf_counter()
            suite.partition_call(entry.obj, spec)
            res["warmup_seconds"] = time.perf_counter() - t0
            entry.warm_states[warm_key] = dict(vars(entry.obj))
            self.warmed.add(warm_key)
        entry.reset(entry.warm_states.get(warm_key, entry.read_state)
                    if suite.wants_warmup(spec, entry.obj) else entry.read_state)
        res.update(suite.igpart_run(entry.obj, spec, False, self.free0))
        Path(spec["result"]).write_text(json.dumps(res))
        return {k: res.get(k) for k in ("read_seconds", "warmup_seconds", "cached_input")}


def serve(argv: list[str]) -> int:
    """The process's main loop (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="run_server.py")
    ap.add_argument("--backends", default="cpu")
    ap.add_argument("--cache-bytes", type=int, default=DEFAULT_CACHE_BYTES)
    a = ap.parse_args(argv)
    _watch_parent()
    replies = os.fdopen(os.dup(1), "w", buffering=1)  # the protocol; fd 1 then goes to stderr
    os.dup2(2, 1)
    err = os.dup(2)
    sys.path.insert(0, str(HERE))
    import suite

    from igpart.kernels import get_backend

    free0 = None
    if "gpu" in a.backends.split(","):
        get_backend("gpu")  # the device context now (BackendUnavailable: the runs report it)
        import cupy as cp

        cp.cuda.Device().synchronize()
        free0 = int(cp.cuda.runtime.memGetInfo()[0])
    server = _Server(a.cache_bytes, free0)
    replies.write(json.dumps({"ready": True, "pid": os.getpid(),
                              "start_seconds": suite.start_seconds()}) + "\n")
    for line in sys.stdin:
        spec = json.loads(line)
        t0 = time.perf_counter()
        reply: dict[str, Any] = {"code": 0, "timed_out": False}
        with open(spec["log"], "wb") as log:
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            _reset_peak_rss()
            try:
                reply.update(server.run(spec))
            except Exception as exc:  # the runner records the log's last line as the error
                print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
                reply["code"] = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                reply["maxrss_kib"] = suite.peak_rss_kib()
                os.dup2(err, 1)
                os.dup2(err, 2)
        reply["wall"] = time.perf_counter() - t0
        replies.write(json.dumps(reply) + "\n")
    return 0


# ------------------------------------------------------------------------------- the client
class ServerGone(Exception):
    """The run process ended, or did not answer in time."""


class RunServer:
    """A cluster worker's handle on its persistent run process, started on the first run and
    again after one that crashed or timed out (the runs in between are not lost: each failure
    is that run's error)."""

    def __init__(self, env: dict[str, str], backends: list[str], cache_bytes: int | None):
        self.env = env
        self.command = [sys.executable, str(HERE / "run_server.py"), "--backends",
                        ",".join(backends), "--cache-bytes",
                        str(cache_bytes or DEFAULT_CACHE_BYTES)]
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self._buffer = b""

    def _readline(self, timeout: float) -> dict:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        end = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise ServerGone(self._ended())
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _ended(self) -> str:
        assert self.proc is not None
        code = self.proc.wait()
        self.proc = None
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    def _start(self, timeout: float) -> float:
        import suite

        self._buffer = b""
        env = dict(self.env, **{suite.LAUNCHED_ENV: repr(time.time())})
        self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, start_new_session=True)
        self.starts += 1
        try:
            ready = self._readline(timeout)
        except TimeoutError:
            self.kill()
            raise ServerGone(f"not ready after {timeout:g} s") from None
        return float(ready.get("start_seconds") or 0.0)

    def run(self, spec: dict, timeout: float, log: Path) -> dict:
        """One run (``suite.Spawner.run``'s reply, plus the start-up seconds this run paid and
        the read and warm-up figures)."""
        start, t0 = 0.0, time.perf_counter()
        if self.proc is not None and self.proc.poll() is not None:  # ended since the last run
            self.proc = None
        if self.proc is None:
            try:
                start = self._start(timeout)
            except ServerGone as exc:
                return {"code": None, "wall": 0.0, "maxrss_kib": 0, "timed_out": False,
                        "error": f"the run process did not start ({exc})"}
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(dict(spec, log=str(log))) + "\n").encode())
            self.proc.stdin.flush()
            reply = self._readline(timeout)
        except TimeoutError:
            self.kill()
            return {"code": None, "wall": time.perf_counter() - t0, "maxrss_kib": 0,
                    "timed_out": True, "start_seconds": start}
        except (ServerGone, OSError) as exc:
            how = str(exc) if isinstance(exc, ServerGone) else self._ended()
            return {"code": None, "wall": time.perf_counter() - t0, "maxrss_kib": 0,
                    "timed_out": False, "start_seconds": start,
                    "error": f"the run process ended ({how}): {_tail(log)}"}
        reply.update(start_seconds=start, wall=time.perf_counter() - t0)  # start-up included
        return reply

    def kill(self) -> None:
        """Kills the process and what it started (its METIS workers)."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.proc = None

    def close(self, timeout: float = 10.0) -> None:
        """Ends the process (end of input, killed after ``timeout``)."""
        if self.proc is None:
            return
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        self.kill()


def _tail(path: Path) -> str:
    import suite

    return suite._tail(path)


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
