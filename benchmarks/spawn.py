"""Starts the benchmark suite's child processes from a small process, so that their peak memory
is their own.

On Linux a child's ``ru_maxrss`` starts from the resident size of the process it was forked
from (the high-water mark of the pre-``exec`` image is kept), so children forked by the suite,
which holds the input being checked, would all report at least the suite's size. The suite runs
this script once (``python -S spawn.py``, standard library only, ~10 MB) and sends it one JSON
line per child: ``{"cmd", "env", "timeout", "log"}``; it answers one JSON line: ``{"code"
(None when killed by a signal), "wall" (seconds from start to exit), "maxrss_kib" (of that
process, from wait4), "timed_out"}``. Each child runs in its own session, with stdout and stderr
to ``log``; on a timeout, and after it exits, its whole process group is killed (worker
processes it started go too). On SIGTERM it kills the running child's group and ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_RUNNING: list[int] = []  # the pid of the child being waited for


def _terminate(signum, frame) -> None:
    for pid in list(_RUNNING):
        _kill_group(pid)
    os._exit(128 + signum)


def run_child(cmd: list[str], env: dict[str, str], timeout: float, log: str) -> dict:
    """Runs one child to its end (or to ``timeout``); see the module docstring."""
    timed_out = threading.Event()
    with open(log, "wb") as out:
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=True)
        except OSError as exc:
            return {"code": 127, "wall": 0.0, "maxrss_kib": 0, "timed_out": False,
                    "error": f"cannot start {cmd[0]}: {exc}"}

        def kill() -> None:
            timed_out.set()
            _kill_group(proc.pid)

        timer = threading.Timer(timeout, kill)
        timer.daemon = True
        timer.start()
        _RUNNING.append(proc.pid)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            _RUNNING.remove(proc.pid)
            timer.cancel()
        wall = time.perf_counter() - t0
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    _kill_group(proc.pid)
    return {"code": code if code >= 0 else None, "wall": wall,
            "maxrss_kib": int(usage.ru_maxrss), "timed_out": timed_out.is_set()}


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    for line in sys.stdin:
        job = json.loads(line)
        reply = run_child(job["cmd"], job["env"], float(job["timeout"]), job["log"])
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
