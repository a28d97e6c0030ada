"""The benchmark suite's runs on a dask cluster (``suite.py --cluster local[:N]|ADDRESS``).

The suite's plan is unchanged; what runs where, and what overlaps:

- the cluster starts in a thread (:class:`BackgroundCluster`) while the client chooses the
  inputs and gathers the machine's description;
- one task per input builds it when it is generated (large, netlist and graph sets, cached in
  ``WORK/inputs`` as in a serial run) and gives its vertices and nets from its header and its
  bytes (the runs' costs until the pins are counted);
- one task per (tool, input, k, threads, seed, mode), the same work as a serial run, without
  the check. The client hands the runs out itself (:class:`Dispatcher`): the longest first
  (pins times a factor growing with k), one task at a time per worker, the next one to the
  worker that has just finished (a dynamic list schedule); a worker is given a run on an input
  it has already read instead of the longest when that run is at least as long less the read
  it saves (:func:`next_run`), and is told the input its next run will probably need (the
  schedule played on with the estimated costs, :func:`read_ahead`), which its persistent run
  process reads in a thread during the current run (its timed call included);
- the checker runs on the client (:class:`ClientChecks`): each input read once, in threads,
  from the moment the plan is known (in the order the runs are handed out); each finished run's partition checked in a thread pool
  while the workers go on with their next runs; the report waits for every check, and the
  pins are counted from those readings.

``--isolate worker`` (the default): igpart's in-process runs go to one persistent run process
per worker (``benchmarks/run_server.py``: igpart imported once, the device context, kernels and
METIS workers kept, inputs cached, the warm-up call once per input or once per worker);
``--isolate run``: each run a fresh child process (through the worker's own ``spawn.py``).
Whole-process runs and the peers' runs are always fresh processes.

Each worker of a local cluster owns one GPU (``CUDA_VISIBLE_DEVICES``) or a set of cores, and
runs one task at a time. A run's threads are at most its worker's share of the host's cores
(the cores the host's workers may use, divided by their number, and by the worker's task
threads where it has several: each thread then has its own run process), so that runs side by
side do not oversubscribe the host. Results come back in the plan's order, equal to a serial
run's for the same seeds (the times differ). A worker that dies mid-run is replaced and its
task rerun by the scheduler (its run process ends with it); a run process that crashes or times
out is that run's error, and the next run starts a new one. File names carry the worker's
process and thread ids, so a run cut off cannot collide with its rerun. The work folder and the
data must be at the same paths on every worker and on the client (one machine, or a shared
file system).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import run_server
import suite
import verify_partition as checker

#: The suite's JSON is rewritten at most this often (seconds) while runs finish.
JSON_EVERY_SECONDS = 30.0

# per worker process: the runners of the current suite invocation (one per task thread of the
# worker: a runner runs one run at a time)
_RUNNER: dict[tuple[str, int], Any] = {}
_LOCK = threading.Lock()

#: Estimated cost of reading an input, per pin, in the unit of :func:`_cost` (a run at k = 2
#: costs 2 per pin): what a persistent run process pays for an input it has not read yet.
READ_COST_PER_PIN = 1.0
#: Bytes per pin of an input file, for the costs of the runs before its pins are counted.
BYTES_PER_PIN = 7.0
#: Share of a host's memory the input caches of its workers may take.
CACHE_SHARE = 0.25


def check_threads(cores: int | None = None) -> int:
    """The client's checker threads: one per 8 cores of the client's host, 1 to 4."""
    return max(1, min(4, (cores or os.cpu_count() or 1) // 8))


def worker_resources() -> dict:
    """Task: this worker's host name, usable cores and the host's memory (bytes)."""
    return {"host": socket.gethostname(), "cpus": sorted(os.sched_getaffinity(0)),
            "memory": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")}


def host_shares(resources: dict[str, dict]) -> dict[str, dict]:
    """Per host (``worker_resources`` of each worker): its workers, the cores they may use
    together and its memory."""
    shares: dict[str, dict] = {}
    for info in resources.values():
        s = shares.setdefault(info["host"], {"workers": 0, "cpus": set(),
                                             "memory": info["memory"]})
        s["workers"] += 1
        s["cpus"] |= set(info["cpus"])
    return {h: {"workers": s["workers"], "cores": len(s["cpus"]), "memory": s["memory"]}
            for h, s in shares.items()}


def worker_share(shares: dict[str, dict], host: str, usable: int) -> tuple[int, int]:
    """(threads, input cache bytes) of a worker on ``host`` that may use ``usable`` cores: the
    host's cores shared out over its workers (at most ``usable``), and its share of
    ``CACHE_SHARE`` of the host's memory."""
    s = shares.get(host)
    if s is None:  # a worker that joined later: its own cores
        return max(1, usable), run_server.DEFAULT_CACHE_BYTES
    threads = max(1, min(usable, s["cores"] // s["workers"]))
    return threads, int(s["memory"] * CACHE_SHARE / s["workers"])


def prepare_case(case: dict, data: str, gen_seed: int) -> dict:
    """Task: builds a generated input unless cached; its vertices and nets (or edges) from
    its header, its size in bytes (the runs' cost until the checker has counted the pins)."""
    c = suite.Case(**case)
    suite.materialize(c, Path(data), gen_seed)
    graph = suite.is_graph_file(c.path)
    first, second = suite._hgr_header(Path(c.path))  # the first two numbers of the header
    n, m = (first, second) if graph else (second, first)
    return {"n": n, "m": m, "bytes": os.path.getsize(c.path), "graph": graph}


def run_case(args: argparse.Namespace, case: dict, k: int, seed: int, tool: dict,
             mode: str, prefetch: str | None = None) -> dict:
    """Task: one run of the suite, unchecked (see :meth:`suite.Runner.run_unchecked`): the run
    as a dict and its files (the partition first), which the client checks and removes."""
    from distributed import get_worker

    w = get_worker()
    threads, cache_bytes = worker_share(args.host_shares, socket.gethostname(),
                                        len(os.sched_getaffinity(0)))
    nthreads = getattr(getattr(w, "state", None), "nthreads", 1)  # tasks side by side
    threads = max(1, threads // max(1, int(nthreads)))
    key = (args.cluster_token, threading.get_ident())
    with _LOCK:
        runner = _RUNNER.get(key)
        old = [k for k in _RUNNER if k[0] != args.cluster_token]  # an earlier invocation's
    if runner is None:
        close_runners(old)
        runner = suite.Runner(args, Path(args.work), isolate=args.isolate, max_threads=threads,
                              cache_bytes=cache_bytes,
                              worker=str(w.name if w.name is not None else w.address))
        runner.tag = f".w{os.getpid()}-{threading.get_native_id()}"
        with _LOCK:
            _RUNNER[key] = runner
    run, files = runner.run_unchecked(suite.Tool(**tool), suite.Case(**case), k, seed, mode,
                                      prefetch)
    return {"run": asdict(run), "files": files}


def close_runners(keys: list | None = None, wait: bool = True) -> None:
    """Task: ends this worker's runners (their spawner and persistent run process), those of
    ``keys`` or all; ``wait=False``: without waiting for the run processes to exit (their runs
    are answered: nothing is lost)."""
    with _LOCK:
        runners = [_RUNNER.pop(k) for k in (list(_RUNNER) if keys is None else keys)
                   if k in _RUNNER]
    for runner in runners:
        runner.close(wait=wait)


def close_runners_now() -> None:
    """Task: :func:`close_runners`, all of them, without waiting."""
    close_runners(None, wait=False)


# ------------------------------------------------------------------------- the run order
def _cost(args, case: dict, k: int, seed: int, tool: dict, mode: str) -> float:
    """A run's expected cost, for the order of the runs (the longest first): pins, times a
    factor growing with k."""
    return _size(case) * (1.0 + math.log2(k))


def _size(case: dict) -> float:
    """An input's size for the costs: its pins, or before they are counted its bytes (about
    seven per pin in the suite's files)."""
    return case["pins"] or case["bytes"] / BYTES_PER_PIN


def _setup_cost(args, case: dict, k: int, seed: int, tool: dict, mode: str) -> float:
    """What a persistent run process pays before a run on an input it has not read: the read,
    and the warm-up call when there is one per input (about one run). 0 for runs in fresh
    processes."""
    if args.isolate != "worker" or mode != "inproc" or tool["tool"] != "igpart":
        return 0.0
    warm = args.warmup == "on" or (args.warmup == "auto" and tool["backend"] != "cpu")
    per_input = warm and args.warmup_per != "worker"
    return _size(case) * READ_COST_PER_PIN + (_cost(args, case, k, seed, tool, mode)
                                               if per_input else 0.0)


def next_run(left: Sequence[int], costs: Sequence[float], setups: Sequence[float],
             inputs: Sequence[str], held: set[str], others: set[str] = frozenset()) -> int:
    """The position in ``left`` (the runs not yet handed out, longest first) of the next run
    for a worker that holds the inputs ``held`` (``others``: those the other workers hold):
    the longest, unless a run is at least as long less the set-up the longest would cost
    (``setups``: its read, its warm-up where there is one per input) and is on an input the
    worker holds, or else on one no other worker holds (no input read twice where that can
    wait); then the longest such."""
    head = left[0]
    if inputs[head] in held or not setups[head]:
        return 0
    floor = costs[head] - setups[head]
    fresh = None
    for pos, i in enumerate(left):
        if costs[i] < floor:
            break
        if inputs[i] in held:
            return pos
        if fresh is None and inputs[i] not in others:
            fresh = pos
    return fresh or 0


def read_ahead(left: Sequence[int], costs: Sequence[float], setups: Sequence[float],
               inputs: Sequence[str], held: dict[str, set[str]], free: dict[str, float],
               worker: str) -> str | None:
    """The input ``worker`` should read while its current run goes on: the list schedule is
    played on (the worker that frees first by the estimated costs ``free`` takes
    :func:`next_run`'s pick, ``held``: the inputs each worker holds) until ``worker``'s next
    pick, at most two picks per worker ahead; its input if that costs a set-up and the worker
    does not hold it, else None (also when the play ends first)."""
    left = list(left)
    held = {w: set(h) for w, h in held.items()}
    free = dict(free)
    for _ in range(2 * len(free)):
        if not left:
            return None
        w = min(free, key=lambda x: (free[x], x))
        others = set().union(*(h for x, h in held.items() if x != w))
        i = left.pop(next_run(left, costs, setups, inputs, held[w], others))
        if w == worker:
            return inputs[i] if setups[i] and inputs[i] not in held[w] else None
        free[w] += costs[i] + (setups[i] if inputs[i] not in held[w] else 0.0)
        if setups[i]:
            held[w].add(inputs[i])
    return None


class Dispatcher:
    """Hands the runs out to the workers, one task in flight per worker: the first ones in the
    order of :func:`next_run`, then the next to each worker as it finishes, with the input to
    read ahead (:func:`read_ahead`). A task whose worker dies is rerun elsewhere by the
    scheduler (its placement is a preference)."""

    def __init__(self, costs: Sequence[float], setups: Sequence[float],
                 inputs: Sequence[str], workers: Sequence[str]):
        self.costs, self.setups, self.inputs = costs, setups, inputs
        self.left = sorted(range(len(costs)), key=lambda i: (-costs[i], i))
        self.workers = list(workers)
        self.held: dict[str, set[str]] = {w: set() for w in self.workers}
        self.free = dict.fromkeys(self.workers, 0.0)  # estimated, in cost units

    def take(self, worker: str, ahead: bool = True) -> tuple[int, str | None] | None:
        """The next run for ``worker`` and the input it should read ahead (``ahead=False``:
        none yet, :meth:`ahead` gives it later); None when all runs are out."""
        if not self.left:
            return None
        held = self.held.setdefault(worker, set())
        self.free.setdefault(worker, min(self.free.values(), default=0.0))
        i = self.left.pop(next_run(self.left, self.costs, self.setups, self.inputs, held,
                                   self._others(worker)))
        self.free[worker] += self.costs[i] + (self.setups[i] if self.inputs[i] not in held
                                              else 0.0)
        if self.setups[i]:
            held.add(self.inputs[i])
        return i, self.ahead(worker) if ahead else None

    def ahead(self, worker: str) -> str | None:
        """The input ``worker`` should read ahead now (:func:`read_ahead`), then held."""
        path = read_ahead(self.left, self.costs, self.setups, self.inputs, self.held,
                          self.free, worker)
        if path is not None:
            self.held[worker].add(path)
        return path

    def first_round(self) -> list[tuple[str, int, str | None]]:
        """A run for each worker, then the inputs to read ahead once every worker has its
        first run (the read-ahead of each then knows what the others hold)."""
        firsts = [(w, nxt[0]) for w in self.workers
                  if (nxt := self.take(w, ahead=False)) is not None]
        return [(w, i, self.ahead(w)) for w, i in firsts]

    def _others(self, worker: str) -> set[str]:
        return set().union(*(h for w, h in self.held.items() if w != worker))

    def run(self, client, fn: Callable, calls: Sequence[tuple], *, progress: bool,
            on_result: Callable[[int, Any], None], describe: Callable[[int, Any], str]) -> None:
        """Runs ``fn(*calls[i], read_ahead)`` for every run; ``on_result(i, value)`` and the
        progress bar's ``describe(i, value)`` line as each one finishes."""
        from distributed import as_completed
        from tqdm import tqdm

        tag = uuid.uuid4().hex[:12]
        where: dict[str, tuple[int, str]] = {}
        flying: dict[str, Any] = {}
        pending = as_completed()

        def submit(worker: str, nxt: tuple[int, str | None] | None) -> None:
            if nxt is None:
                return
            i, ahead = nxt
            f = client.submit(fn, *calls[i], ahead, key=f"igpart-run_case-{tag}-{i}",
                              pure=False, priority=self.costs[i], workers=[worker],
                              allow_other_workers=True)
            where[f.key] = (i, worker)
            flying[f.key] = f
            pending.add(f)

        bar = tqdm(total=len(calls), desc="runs", unit="task", file=sys.stderr,
                   disable=not progress, dynamic_ncols=True)
        try:
            for w, i, ahead in self.first_round():
                submit(w, (i, ahead))
            for f in pending:
                i, worker = where.pop(f.key)
                flying.pop(f.key)
                value = f.result()
                submit(worker, self.take(worker))  # its next run before the bookkeeping
                on_result(i, value)
                line = describe(i, value)
                if progress:
                    bar.write(line)
                else:
                    print(line, file=sys.stderr, flush=True)
                bar.update(1)
        except BaseException:
            client.cancel(list(flying.values()))
            raise
        finally:
            bar.close()


# ------------------------------------------------------------------------ the client side
class BackgroundCluster:
    """Connects to ``--cluster`` (a local one started) in a thread, while the client chooses
    the inputs: :meth:`get` waits for it, :meth:`close` ends it."""

    def __init__(self, spec: str):
        import igpart.bench  # noqa: F401  (imported here first: two threads importing igpart
        import igpart.distributed  # noqa: F401  at once can deadlock on its module locks)

        self.spec = spec
        self.stack = contextlib.ExitStack()
        self.client = None
        self.resources: dict[str, dict] = {}
        self.error: BaseException | None = None
        self.started = time.perf_counter()
        self.seconds: float | None = None  # start to the workers' first answer
        self.thread = threading.Thread(target=self._start, daemon=True, name="cluster-start")
        self.thread.start()

    def _start(self) -> None:
        from igpart.distributed import connect, script_task

        try:
            client = self.stack.enter_context(connect(self.spec))
            self.resources = client.run(script_task(suite.HERE, __name__, "worker_resources"))
            self.client = client
        except BaseException as exc:  # noqa: BLE001  (raised by get, in the caller's thread)
            self.error = exc
        self.seconds = time.perf_counter() - self.started

    def get(self):
        """The client, once the cluster answers (its start's error raised here)."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.client

    def close(self) -> None:
        self.thread.join()
        self.stack.close()


class ClientChecks:
    """The checker on the client: the inputs read by ``threads`` threads (started in the order
    given, each input once, kept until its last run is checked), each finished run's partition
    checked by ``threads`` more while the workers go on."""

    def __init__(self, args: argparse.Namespace, paths: Sequence[str], runs_per_path: dict,
                 threads: int):
        self.args = args
        self.threads = threads
        self.reader = ThreadPoolExecutor(threads, thread_name_prefix="checker-read")
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="checker")
        self.readings: dict[str, Future] = {}
        self.left = dict(runs_per_path)  # runs of each input still to check
        self.pins: dict[str, int] = {}
        self.read_seconds = 0.0
        self.reads = 0
        self.lock = threading.Lock()
        self.checks: list[Future] = []
        for p in dict.fromkeys(paths):
            self.readings[p] = self.reader.submit(self._read, p)

    def _read(self, path: str):
        t0 = time.perf_counter()
        h = checker.read_input(path)
        with self.lock:
            self.read_seconds += time.perf_counter() - t0
            self.reads += 1
            self.pins[path] = int(h.adjncy.size if isinstance(h, checker.MetisGraph)
                                  else h.eptr[-1])
        return h

    def submit(self, run: dict, files: list[str], path: str) -> Future:
        """Checks ``run`` (a dict, updated) in the pool."""
        f = self.pool.submit(self._check, run, files, path)
        self.checks.append(f)
        return f

    def _check(self, run: dict, files: list[str], path: str) -> dict:
        r = suite.Run(**run)
        try:
            hgr = self.readings[path].result() if r.error is None else None
        except Exception as exc:  # noqa: BLE001  (the input unreadable by the checker)
            r.valid, r.problems = False, [f"the checker could not read {path}: {exc}"]
        else:
            suite.check_run(r, files[0], hgr, self.args.epsilon)
        if not self.args.keep_parts:
            for p in files:
                Path(p).unlink(missing_ok=True)
        with self.lock:
            self.left[path] -= 1
            if self.left[path] <= 0:  # its last run: the reading goes (its pins are kept)
                self.readings.pop(path, None)
        run.update(asdict(r))
        return run

    def pins_of(self, path: str) -> int:
        """An input's pins, by the checker's reading (read now if it was not)."""
        if path not in self.pins:
            self.readings[path].result()
        return self.pins[path]

    def wait(self) -> None:
        """Waits for every check (an error in one raised here)."""
        for f in self.checks:
            f.result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.reader.shutdown(wait=True, cancel_futures=True)
        self.readings.clear()


def start(args: argparse.Namespace) -> BackgroundCluster:
    """The cluster of ``args.cluster``, starting in a thread (see :class:`BackgroundCluster`)."""
    return BackgroundCluster(args.cluster)


def run_on_cluster(args: argparse.Namespace, plan: list, tools: list, modes: list[str],
                   result: dict, write_json, cluster: BackgroundCluster) -> None:
    """Runs the suite's ``plan`` (``[(Case, ks)]``) on ``cluster`` (started by :func:`start`,
    closed here), filling ``result``'s cases, runs and notes as a serial run does;
    ``write_json(result)`` keeps the JSON current."""
    from igpart.distributed import run_tasks, script_task

    meta = result["meta"]
    notes = meta["notes"]
    args.cluster_token = uuid.uuid4().hex
    phases = meta["phases"] = {"setup": time.perf_counter() - args.started}
    t1 = time.perf_counter()
    checks = None
    try:
        client = cluster.get()
        phases["cluster_wait"] = time.perf_counter() - t1
        meta["cluster_start_seconds"] = cluster.seconds  # beside the set-up
        resources = cluster.resources
        args.host_shares = host_shares(resources)
        meta["cluster_workers"] = len(resources)
        meta["worker_threads"] = {h: max(1, s["cores"] // s["workers"])
                                  for h, s in args.host_shares.items()}
        t1 = time.perf_counter()
        infos = run_tasks(client, script_task(suite.HERE, __name__, "prepare_case"),
                          [(asdict(c), args.data, args.gen_seed) for c, _ in plan],
                          desc="inputs", progress=not args.no_progress)
        phases["inputs"] = time.perf_counter() - t1
        calls = []
        for (c, ks), info in zip(plan, infos):
            c.n, c.m, c.bytes = info["n"], info["m"], info["bytes"]
            result["cases"].append(asdict(c))
            runnable = [t for t in tools if t.tool not in suite.GRAPH_TOOLS or info["graph"]]
            for k in ks:
                if 2 * k > c.n:
                    notes.append(f"{c.name} ({c.n} vertices) left out at k={k}")
                    continue
                calls += [(args, asdict(c), k, seed, asdict(t), mode)
                          for seed in range(args.seeds) for t in runnable for mode in modes]
        costs = [_cost(*c) for c in calls]
        setups = [_setup_cost(*c) for c in calls]
        inputs = [c[1]["path"] for c in calls]
        dispatcher = Dispatcher(costs, setups, inputs, sorted(resources))
        order = [inputs[i] for i in dispatcher.left]  # the checker reads in the runs' order
        checks = ClientChecks(args, order + [c.path for c, _ in plan],
                              {p: inputs.count(p) for p in set(inputs)}, check_threads())
        runs: list[dict | None] = [None] * len(calls)
        last = [time.monotonic()]

        def done(i: int, value: dict) -> None:
            runs[i] = checks.submit(value["run"], value["files"], inputs[i])
            if args.json and time.monotonic() - last[0] > JSON_EVERY_SECONDS:
                result["runs"] = [f.result() for f in runs if f is not None and f.done()]
                write_json(result, args.json)
                last[0] = time.monotonic()

        def describe(i: int, value: dict) -> str:
            run = value["run"]
            tag = " (whole process)" if run["mode"] == "process" else ""
            how = (run["error"] if run["error"] else
                   f"{args.objective} by the tool {run[f'tool_{args.objective}']} "
                   f"{run['seconds']:.3f} s (check pending)")
            return f"{run['case']} k={run['k']} seed={run['seed']} {run['label']}{tag}: {how}"

        t1 = time.perf_counter()
        try:
            dispatcher.run(client, script_task(suite.HERE, __name__, "run_case"), calls,
                           progress=not args.no_progress, on_result=done, describe=describe)
            phases["runs"] = time.perf_counter() - t1
            t1 = time.perf_counter()
            checks.wait()
            for c, _ in plan:
                c.pins = checks.pins_of(c.path)
            result["cases"] = [asdict(c) for c, _ in plan]
            phases["checks"] = time.perf_counter() - t1
        finally:
            result["runs"] = [f.result() for f in runs
                              if f is not None and f.done() and f.exception() is None]
            phases.setdefault("runs", time.perf_counter() - t1)
            t1 = time.perf_counter()
            with contextlib.suppress(Exception):  # the run processes end on their own
                client.run(script_task(suite.HERE, __name__, "close_runners_now"))
            phases["close"] = time.perf_counter() - t1
    finally:
        if checks is not None:
            checks.close()
            meta["checker"] = {"threads": checks.threads, "reads": checks.reads,
                               "read_seconds": checks.read_seconds,
                               "check_seconds": sum(r.get("check_seconds") or 0.0
                                                    for r in result["runs"])}
        t1 = time.perf_counter()
        cluster.close()
        phases["shutdown"] = time.perf_counter() - t1
