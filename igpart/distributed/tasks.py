"""Batch jobs on a cluster: independent tasks submitted at once, results in submission order."""

from __future__ import annotations

import functools
import importlib
import sys
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from .cluster import require_distributed


def run_tasks(client, fn: Callable, calls: Sequence[tuple], *, progress: bool = True,
              desc: str = "tasks", on_result: Callable[[int, Any], None] | None = None,
              describe: Callable[[int, Any], str] | None = None,
              priorities: Sequence[float] | None = None,
              workers: Sequence[str | None] | None = None) -> list:
    """``[fn(*args) for args in calls]``, each call a task of the cluster behind ``client``,
    with a progress bar (tqdm, on stderr) over them. ``on_result(i, value)`` is called here as
    each one finishes (in completion order); ``describe(i, value)`` gives a line the bar prints
    above itself. ``priorities``: tasks of higher priority start first (give the longest ones
    the highest, so that no long task is left for the end). ``workers``: the worker address each
    task should run on (None: any), a preference the scheduler may override (a worker gone, an
    idle one taking work from a busy one). A task whose worker dies is rerun by
    the scheduler on another worker; an exception raised by ``fn`` is raised here (the other
    tasks are cancelled)."""
    distributed = require_distributed()
    from tqdm import tqdm

    tag = uuid.uuid4().hex[:12]
    name = _task_name(fn)
    futures = [client.submit(fn, *args, key=f"igpart-{name}-{tag}-{i}", pure=False,
                             priority=0 if priorities is None else priorities[i],
                             **({} if workers is None or workers[i] is None else
                                {"workers": [workers[i]], "allow_other_workers": True}))
               for i, args in enumerate(calls)]
    index = {f.key: i for i, f in enumerate(futures)}
    results: list = [None] * len(futures)
    bar = tqdm(total=len(futures), desc=desc, unit="task", file=sys.stderr, disable=not progress,
               dynamic_ncols=True)
    try:
        for future in distributed.as_completed(futures):
            i = index[future.key]
            results[i] = future.result()
            if on_result is not None:
                on_result(i, results[i])
            if describe is not None:
                line = describe(i, results[i])
                if line:
                    (bar.write if progress else _stderr)(line)
            bar.update(1)
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        bar.close()
    return results


def _task_name(fn: Callable) -> str:
    """The function's name in task keys (a :func:`script_task`: the script's function)."""
    if isinstance(fn, functools.partial):
        return str(fn.args[-1]) if fn.func is _call_in_module else _task_name(fn.func)
    return getattr(fn, "__name__", "task")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)



def _call_in_module(folder: str, module: str, function: str, *args):
    """``module.function(*args)`` with ``folder`` first on ``sys.path`` (a script's module)."""
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return getattr(importlib.import_module(module), function)(*args)


def script_task(folder: str, module: str, function: str) -> Callable:
    """A task function calling ``function`` of the module ``module`` that lives in ``folder``
    (a script folder, no package): the scheduler and the workers need only igpart to
    unpickle the task; the worker imports the module when it runs it."""
    return functools.partial(_call_in_module, str(folder), module, function)
