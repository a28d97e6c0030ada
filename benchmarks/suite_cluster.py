"""The benchmark suite's runs on a dask cluster (``suite.py --cluster local[:N]|ADDRESS``).

The suite's plan is unchanged; what runs where:

- one task per input builds it when it is generated (large, netlist and graph sets, cached in
  ``WORK/inputs`` as in a serial run) and gives its vertices and nets from its header and
  its bytes (the runs' costs until the pins are counted);
- one task per (tool, input, k, threads, seed, mode), the same work as a serial run, then the
  check of its partition file with ``verify_partition.py``. Each worker caches the checker's
  readings; an input's reading is made while the worker's first run on it goes on (the
  checker's CPU work beside the run), so an input is read by the checker once per worker
  that runs it and never by the client; its pins are counted from that reading at the end.
  ``--isolate worker`` (the default): igpart's in-process runs go to one persistent run
  process per worker (``benchmarks/run_server.py``: igpart imported once, the device context,
  kernels and METIS workers kept, inputs cached, the warm-up call once per input), and each
  run is placed on a worker that has its input where that ends sooner than elsewhere (a
  preference: the scheduler moves runs to idle workers); ``--isolate run``: each run a fresh
  child process (through the worker's own ``spawn.py``). Whole-process runs and the peers'
  runs are always fresh processes. The tasks expected to take longest (most pins, largest k)
  start first, so that the last ones to finish are short.

Each worker of a local cluster owns one GPU (``CUDA_VISIBLE_DEVICES``) or a set of cores, and
runs one task at a time. A run's threads are at most its worker's share of the host's cores
(the cores the host's workers may use, divided by their number, and by the worker's task
threads where it has several: each thread then has its own run process), so that runs side by
side do not oversubscribe the host. Results come back in the plan's order, equal to a serial
run's for the same seeds (the times differ). A worker that dies mid-run is replaced and its
task rerun by the scheduler (its run process ends with it); a run process that crashes or times
out is that run's error, and the next run starts a new one. File names carry the worker's
process and thread ids, so a run cut off cannot collide with its rerun. The work folder and the
data must be at the same paths on every worker (one machine, or a shared file system).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import socket
import threading
import time
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

import run_server
import suite
import verify_partition as checker

#: The suite's JSON is rewritten at most this often (seconds) while runs finish.
JSON_EVERY_SECONDS = 30.0

# per worker process: the runners of the current suite invocation (one per task thread of the
# worker: a runner runs one run at a time), the inputs checked
_RUNNER: dict[tuple[str, int], Any] = {}
_CHECKED: list = []
_LOCK = threading.Lock()

#: Estimated cost of reading an input, per pin, in the unit of :func:`_cost` (a run at k = 2
#: costs 2 per pin): what a persistent run process pays for an input it has not read yet.
READ_COST_PER_PIN = 1.0
#: Bytes per pin of an input file, for the costs of the runs before its pins are counted.
BYTES_PER_PIN = 7.0
#: Share of a host's memory the input caches of its workers may take (half for the checker's
#: readings, half for the run processes' inputs).
CACHE_SHARE = 0.25


def _checked_input(path: str, cache_bytes: int | None = None):
    """The checker's reading of ``path``, cached for the next tasks on the same input."""
    with _LOCK:
        if not _CHECKED or (cache_bytes is not None and _CHECKED[0].limit != cache_bytes):
            _CHECKED[:] = [run_server.InputCache(cache_bytes or 0, checker.read_input)]
        return _CHECKED[0].get(path)[0]


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
    ``CACHE_SHARE`` of the host's memory for each of its two caches."""
    s = shares.get(host)
    if s is None:  # a worker that joined later: its own cores
        return max(1, usable), run_server.DEFAULT_CACHE_BYTES
    threads = max(1, min(usable, s["cores"] // s["workers"]))
    return threads, int(s["memory"] * CACHE_SHARE / 2 / s["workers"])


def _cache_bytes(shares: dict[str, dict] | None) -> int | None:
    """This worker's checker cache (bytes; None: the default)."""
    if shares is None:
        return None
    return worker_share(shares, socket.gethostname(), len(os.sched_getaffinity(0)))[1]


def prepare_case(case: dict, data: str, gen_seed: int) -> dict:
    """Task: builds a generated input unless cached; its vertices and nets (or edges) from
    its header, its size in bytes (the runs' cost until the checker has counted the pins: the
    checker reads the input on the worker that runs it, while its first run goes on)."""
    c = suite.Case(**case)
    suite.materialize(c, Path(data), gen_seed)
    graph = suite.is_graph_file(c.path)
    first, second = suite._hgr_header(Path(c.path))  # the first two numbers of the header
    n, m = (first, second) if graph else (second, first)
    return {"n": n, "m": m, "bytes": os.path.getsize(c.path), "graph": graph}


def input_pins(path: str, shares: dict[str, dict] | None = None) -> int:
    """Task: the pins of an input (a graph: its adjacency entries) by the checker's reading,
    which the worker that ran the input's runs has cached."""
    h = _checked_input(path, _cache_bytes(shares))
    return int(h.adjncy.size if isinstance(h, checker.MetisGraph) else h.eptr[-1])


def run_case(args: argparse.Namespace, case: dict, k: int, seed: int, tool: dict,
             mode: str) -> dict:
    """Task: one run of the suite (see :meth:`suite.Runner.run`), as a dict."""
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
    c = suite.Case(**case)
    read: dict[str, Any] = {}

    def read_input() -> None:  # the checker's reading, while the run goes on
        t0 = time.perf_counter()
        try:
            read["input"] = _checked_input(c.path, cache_bytes)
        except BaseException as exc:  # raised in the task's thread
            read["error"] = exc
        read["seconds"] = time.perf_counter() - t0

    reader = threading.Thread(target=read_input, name="checker-read", daemon=True)
    reader.start()

    def reading():
        reader.join()
        if "error" in read:
            raise read["error"]
        return read["input"]

    run = runner.run(suite.Tool(**tool), c, k, seed, mode, reading)
    reader.join()
    run.checker_read_seconds = read.get("seconds")
    return asdict(run)


def close_runners(keys: list | None = None) -> None:
    """Task: ends this worker's runners (their spawner and persistent run process), those of
    ``keys`` or all."""
    with _LOCK:
        runners = [_RUNNER.pop(k) for k in (list(_RUNNER) if keys is None else keys)
                   if k in _RUNNER]
    for runner in runners:
        runner.close()


def _cost(args, case: dict, k: int, seed: int, tool: dict, mode: str) -> float:
    """A run's expected cost, for the order of the tasks (the longest first): pins, times a
    factor growing with k."""
    return _size(case) * (1.0 + math.log2(k))


def _size(case: dict) -> float:
    """An input's size for the costs: its pins, or before they are counted its bytes (about
    seven per pin in the suite's files)."""
    return case["pins"] or case["bytes"] / BYTES_PER_PIN


def _setup_cost(args, case: dict, k: int, seed: int, tool: dict, mode: str) -> float:
    """What a persistent run process pays before a run on an input it has not read: the read,
    and the warm-up call when there is one (about one run). 0 for runs in fresh processes."""
    if args.isolate != "worker" or mode != "inproc" or tool["tool"] != "igpart":
        return 0.0
    warm = args.warmup == "on" or (args.warmup == "auto" and tool["backend"] != "cpu")
    return _size(case) * READ_COST_PER_PIN + (_cost(args, case, k, seed, tool, mode)
                                               if warm else 0.0)


def place(costs: list[float], inputs: list[str], setups: list[float],
          workers: list[str]) -> list[str]:
    """A worker for each run, so that the last worker ends early: ``costs`` of the runs, plus
    on each worker once per input it runs the largest ``setups`` cost of those runs (what a
    persistent run process pays for an input it has not had yet). Each input goes whole to the
    least loaded worker (largest first), then single runs move from the most loaded worker to
    another while that lowers the loads (the largest, then their sum of squares). The scheduler
    still moves runs to idle workers."""
    by_input: dict[str, list[int]] = {}
    for i, name in enumerate(inputs):
        by_input.setdefault(name, []).append(i)
    out = [""] * len(costs)
    load = dict.fromkeys(workers, 0.0)

    def whole(runs: list[int]) -> float:
        return sum(costs[i] for i in runs) + max(setups[i] for i in runs)

    for name in sorted(by_input, key=lambda x: (-whole(by_input[x]), x)):
        w = min(workers, key=lambda w: load[w])
        load[w] += whole(by_input[name])
        for i in by_input[name]:
            out[i] = w

    def loads() -> dict[str, float]:
        held: dict[tuple[str, str], float] = {}
        total = dict.fromkeys(workers, 0.0)
        for i, w in enumerate(out):
            total[w] += costs[i]
            held[w, inputs[i]] = max(held.get((w, inputs[i]), 0.0), setups[i])
        for (w, _), setup in held.items():
            total[w] += setup
        return total

    def score(total: dict[str, float]) -> tuple[float, float]:
        return max(total.values()), sum(x * x for x in total.values())

    best = score(loads())
    for _ in range(4 * len(costs)):  # each accepted move lowers the score
        top = max(workers, key=lambda w: loads()[w])
        move = None
        for i in (i for i, w in enumerate(out) if w == top):
            for w in workers:
                if w == top:
                    continue
                out[i] = w
                trial = score(loads())
                out[i] = top
                if trial < best:
                    best, move = trial, (i, w)
        if move is None:
            break
        out[move[0]] = move[1]
    return out


def run_on_cluster(args: argparse.Namespace, plan: list, tools: list, modes: list[str],
                   result: dict, write_json) -> None:
    """Runs the suite's ``plan`` (``[(Case, ks)]``) on ``args.cluster``, filling ``result``'s
    cases, runs and notes as a serial run does; ``write_json(result)`` keeps the JSON current."""
    from igpart.distributed import connect, run_tasks, script_task

    meta = result["meta"]
    notes = meta["notes"]
    args.cluster_token = uuid.uuid4().hex
    t0 = time.perf_counter()
    with connect(args.cluster) as client:
        resources = client.run(script_task(suite.HERE, __name__, "worker_resources"))
        meta["cluster_start_seconds"] = time.perf_counter() - t0  # a local one started
        args.host_shares = host_shares(resources)
        meta["cluster_workers"] = len(resources)
        meta["worker_threads"] = {h: max(1, s["cores"] // s["workers"])
                                  for h, s in args.host_shares.items()}
        phases = meta["phases"] = {"setup": t0 - args.started,
                                   "cluster_start": meta["cluster_start_seconds"]}
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
        runs: list[dict | None] = [None] * len(calls)
        last = [time.monotonic()]

        def done(i: int, run: dict) -> None:
            runs[i] = run
            if args.json and time.monotonic() - last[0] > JSON_EVERY_SECONDS:
                result["runs"] = [r for r in runs if r is not None]
                write_json(result, args.json)
                last[0] = time.monotonic()

        def describe(i: int, run: dict) -> str:
            tag = " (whole process)" if run["mode"] == "process" else ""
            return (f"{run['case']} k={run['k']} seed={run['seed']} {run['label']}{tag}: "
                    + suite._outcome(suite.Run(**run), args.objective))

        costs = [_cost(*c) for c in calls]
        workers = None
        if args.isolate == "worker":  # runs on an input on the worker that has it, if it pays
            workers = place(costs, [c[1]["path"] for c in calls],
                            [_setup_cost(*c) for c in calls], sorted(resources))
        t1 = time.perf_counter()
        try:
            run_tasks(client, script_task(suite.HERE, __name__, "run_case"), calls,
                      desc="runs", on_result=done, describe=describe,
                      progress=not args.no_progress, priorities=costs, workers=workers)
            phases["runs"] = time.perf_counter() - t1
            t1 = time.perf_counter()
            # the pins, counted by the checker's readings where the runs of each input were
            first = {c[1]["path"]: i for i, c in reversed(list(enumerate(calls)))}
            pins = run_tasks(client, script_task(suite.HERE, __name__, "input_pins"),
                             [(c.path, args.host_shares) for c, _ in plan], desc="sizes",
                             progress=False,
                             workers=[None if workers is None or c.path not in first
                                      else workers[first[c.path]] for c, _ in plan])
            for (c, _), p in zip(plan, pins):
                c.pins = p
            result["cases"] = [asdict(c) for c, _ in plan]
            phases["sizes"] = time.perf_counter() - t1
        finally:
            result["runs"] = [r for r in runs if r is not None]
            phases.setdefault("runs", time.perf_counter() - t1)
            t1 = time.perf_counter()
            with contextlib.suppress(Exception):  # the persistent run processes end now
                client.run(script_task(suite.HERE, __name__, "close_runners"))
            phases["close"] = time.perf_counter() - t1
            t1 = time.perf_counter()
    phases["shutdown"] = time.perf_counter() - t1

