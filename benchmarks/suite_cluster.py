"""The benchmark suite's runs on a dask cluster (``suite.py --cluster local[:N]|ADDRESS``).

The suite's plan is unchanged; what runs where:

- one task per input builds it when it is generated (large, netlist and graph sets, cached in
  ``WORK/inputs`` as in a serial run) and reads it with the checker: sizes for the report;
- one task per (tool, input, k, threads, seed, mode), the same work as a serial run: the worker
  starts the run's fresh child process (through its own ``spawn.py``), collects what it wrote
  and checks the partition file with ``verify_partition.py``. The tasks expected to take
  longest (most pins, largest k) start first, so that the last ones to finish are short. Each
  worker of a local cluster owns one GPU (``CUDA_VISIBLE_DEVICES``) or a set of cores, and runs
  one task at a time, so runs do not share a device or cores.

Results come back in the plan's order, equal to a serial run's for the same seeds (the times
differ). A worker that dies mid-run is replaced and its task rerun by the scheduler; file names
carry the worker's process id, so a run cut off cannot collide with its rerun. The work folder
and the data must be at the same paths on every worker (one machine, or a shared file system).
"""

from __future__ import annotations

import argparse
import math
import os
import time
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

import suite
import verify_partition as checker

#: The suite's JSON is rewritten at most this often (seconds) while runs finish.
JSON_EVERY_SECONDS = 30.0

# per worker process: the runner of the current suite invocation, the input last checked
_RUNNER: dict[str, Any] = {}
_INPUT: dict[str, Any] = {}


def _checked_input(path: str):
    """The checker's reading of ``path``, kept for the next task on the same input."""
    if _INPUT.get("path") != path:
        _INPUT.clear()
        _INPUT.update(path=path, data=checker.read_input(path))
    return _INPUT["data"]


def prepare_case(case: dict, data: str, gen_seed: int) -> dict:
    """Task: builds a generated input unless cached, reads it; its sizes."""
    c = suite.Case(**case)
    suite.materialize(c, Path(data), gen_seed)
    h = _checked_input(c.path)
    graph = isinstance(h, checker.MetisGraph)
    pins = int(h.adjncy.size if graph else h.eptr[-1])
    return {"n": int(h.n), "m": int(h.m), "pins": pins, "graph": graph}


def run_case(args: argparse.Namespace, case: dict, k: int, seed: int, tool: dict,
             mode: str) -> dict:
    """Task: one run of the suite (see :meth:`suite.Runner.run`), as a dict."""
    runner = _RUNNER.get(args.cluster_token)
    if runner is None:
        for old in _RUNNER.values():
            old.spawner.close()
        _RUNNER.clear()
        runner = _RUNNER[args.cluster_token] = suite.Runner(args, Path(args.work))
        runner.tag = f".w{os.getpid()}"
    c = suite.Case(**case)
    return asdict(runner.run(suite.Tool(**tool), c, k, seed, mode, _checked_input(c.path)))


def _cost(args, case: dict, k: int, seed: int, tool: dict, mode: str) -> float:
    """A run's expected cost, for the order of the tasks (the longest first): pins, times a
    factor growing with k."""
    return case["pins"] * (1.0 + math.log2(k))


def run_on_cluster(args: argparse.Namespace, plan: list, tools: list, modes: list[str],
                   result: dict, write_json) -> None:
    """Runs the suite's ``plan`` (``[(Case, ks)]``) on ``args.cluster``, filling ``result``'s
    cases, runs and notes as a serial run does; ``write_json(result)`` keeps the JSON current."""
    from igpart.distributed import connect, run_tasks, script_task

    notes = result["meta"]["notes"]
    args.cluster_token = uuid.uuid4().hex
    with connect(args.cluster) as client:
        infos = run_tasks(client, script_task(suite.HERE, __name__, "prepare_case"),
                          [(asdict(c), args.data, args.gen_seed) for c, _ in plan],
                          desc="inputs", progress=not args.no_progress)
        calls = []
        for (c, ks), info in zip(plan, infos):
            c.n, c.m, c.pins = info["n"], info["m"], info["pins"]
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

        try:
            run_tasks(client, script_task(suite.HERE, __name__, "run_case"), calls,
                      desc="runs", on_result=done, describe=describe,
                      progress=not args.no_progress, priorities=[_cost(*c) for c in calls])
        finally:
            result["runs"] = [r for r in runs if r is not None]

