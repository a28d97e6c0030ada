"""Clusters for igpart's distributed runs: a ``dask.distributed`` client from a spec.

A spec is what ``--cluster`` takes on the command line, or an object:

- ``None`` or ``"local"``: a local cluster of the default size (:func:`local_plan`);
- ``"local:N"``: a local cluster of ``N`` workers;
- any other string: the address of a running scheduler (``tcp://host:8786``, ``host:8786``);
- a ``distributed.Client`` (used as is, left open) or a ``distributed`` cluster object.

Local clusters run one task at a time per worker process. With several GPUs visible each worker
owns one GPU: ``dask_cuda.LocalCUDACluster`` when dask-cuda is installed, else worker processes
started with ``CUDA_VISIBLE_DEVICES`` set to their GPU. On the CPU each worker owns a disjoint
set of cores (its CPU affinity and ``OMP_NUM_THREADS``). dask and distributed are an optional
dependency: ``pip install igpart[distributed]``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from dataclasses import dataclass

from ..errors import IgpartError, InputError
from ._affinity import CPUS_ENV

log = logging.getLogger("igpart.distributed")

#: The extra that brings dask and distributed, named in every error about them.
EXTRA_HINT = "pip install igpart[distributed]"
#: Cores per worker of a default local CPU cluster.
DEFAULT_CORES_PER_WORKER = 4
#: How long a client waits for a scheduler it is given the address of.
CONNECT_TIMEOUT = "30s"


class DistributedUnavailable(IgpartError):
    """dask.distributed (or the cluster asked for) is not available."""


def require_distributed():
    """The ``distributed`` module, or DistributedUnavailable naming the extra to install."""
    try:
        import distributed
    except ImportError as exc:
        raise DistributedUnavailable(
            f"running on a cluster needs dask.distributed, which is not installed ({exc}); "
            f"install it with: {EXTRA_HINT}") from None
    return distributed


def dask_cuda_available() -> bool:
    """Whether ``dask_cuda`` imports (without importing it more than needed)."""
    import importlib.util

    return importlib.util.find_spec("dask_cuda") is not None


def visible_gpus() -> int:
    """CUDA devices this process sees (0 without CuPy or a driver)."""
    from ..kernels import gpu_status

    ok, _ = gpu_status()
    if not ok:
        return 0
    import cupy

    return int(cupy.cuda.runtime.getDeviceCount())


@dataclass(frozen=True)
class LocalPlan:
    """What a local cluster is made of: ``kind`` ``"cuda"`` (one GPU per worker, by dask-cuda),
    ``"gpu"`` (one GPU per worker, by ``CUDA_VISIBLE_DEVICES``) or ``"cpu"``; ``workers``;
    ``cores``, the cores each worker owns (and its OpenMP threads)."""

    kind: str
    workers: int
    cores: int
    gpus: int = 0

    def worker_envs(self, cpus: list[int], gpu_ids: list[str] | None = None) -> list[dict]:
        """The environment of each worker: ``OMP_NUM_THREADS`` and its cores (``CPUS_ENV``),
        consecutive disjoint slices of ``cpus`` (all of them where there are fewer cores than
        workers), and on GPU workers ``CUDA_VISIBLE_DEVICES``, worker ``i`` getting GPU
        ``i % gpus`` of ``gpu_ids`` (default ``0 .. gpus-1``)."""
        ids = gpu_ids or [str(i) for i in range(max(self.gpus, 1))]
        envs = []
        for i in range(self.workers):
            cores = cpus[i * self.cores:(i + 1) * self.cores] or cpus
            env = {"OMP_NUM_THREADS": str(len(cores)), CPUS_ENV: ",".join(map(str, cores))}
            if self.kind != "cpu":
                env["CUDA_VISIBLE_DEVICES"] = ids[i % len(ids)]
            envs.append(env)
        return envs


def local_plan(workers: int | None, gpus: int, has_dask_cuda: bool, cpus: int) -> LocalPlan:
    """The local cluster for ``workers`` (None: the default) on a machine with ``gpus`` visible
    GPUs and ``cpus`` usable cores. Several GPUs: GPU workers, by default one per GPU (by
    dask-cuda when installed and there are no more workers than GPUs; otherwise each worker
    gets GPU ``i % gpus`` through ``CUDA_VISIBLE_DEVICES``). Otherwise CPU workers, by default
    one per ``DEFAULT_CORES_PER_WORKER`` cores (at least one). The cores are shared out evenly,
    at least one each."""
    if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
        raise InputError(f"a local cluster needs at least one worker, got {workers}")
    cpus = max(1, int(cpus))
    if gpus >= 2:
        n = gpus if workers is None else int(workers)
        kind = "cuda" if has_dask_cuda and n <= gpus else "gpu"
        return LocalPlan(kind, n, max(1, cpus // n), gpus)
    n = max(1, cpus // DEFAULT_CORES_PER_WORKER) if workers is None else int(workers)
    return LocalPlan("cpu", n, max(1, cpus // n))


def parse_spec(spec: str) -> tuple[str, int | None]:
    """``("local", N or None)`` or ``("address", spec)`` for a ``--cluster`` string; InputError
    naming the value when it is neither."""
    text = spec.strip()
    if text == "local" or text.startswith("local:"):
        if text == "local":
            return "local", None
        count = text[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise InputError(f"--cluster '{spec}': expected local, local:N with N >= 1, or a "
                             "scheduler address such as tcp://host:8786")
        return "local", int(count)
    if not text or any(c.isspace() for c in text):
        raise InputError(f"--cluster '{spec}': expected local, local:N or a scheduler address "
                         "such as tcp://host:8786")
    return "address", None


def _cpus() -> list[int]:
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def default_plan(workers: int | None = None) -> LocalPlan:
    """:func:`local_plan` for this machine."""
    return local_plan(workers, visible_gpus(), dask_cuda_available(), len(_cpus()))


def start_local_cluster(workers: int | None = None, *, plan: LocalPlan | None = None):
    """A local cluster (see the module docstring) of ``plan`` (default: :func:`default_plan`
    of ``workers``); the caller closes it."""
    distributed = require_distributed()
    cpus = _cpus()
    plan = plan or default_plan(workers)
    log.info("local cluster: %d %s worker(s), %d core(s) each", plan.workers, plan.kind,
             plan.cores)
    common = {"silence_logs": logging.ERROR}
    if plan.kind == "cuda":
        from dask_cuda import LocalCUDACluster

        # its workers' threads: the SetThreads plugin (connect), as it sets their environment
        return LocalCUDACluster(n_workers=plan.workers, threads_per_worker=1,
                                dashboard_address=":0", memory_limit=0, **common)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    gpu_ids = [g.strip() for g in visible.split(",") if g.strip()] if visible else None
    specs = {f"igpart-{i}": {"cls": distributed.Nanny,
                             "options": {"nthreads": 1, "memory_limit": 0, "env": env,
                                         "silence_logs": logging.ERROR}}
             for i, env in enumerate(plan.worker_envs(cpus, gpu_ids))}
    scheduler = {"cls": distributed.Scheduler,
                 "options": {"dashboard": False, "dashboard_address": ":0"}}
    return distributed.SpecCluster(workers=specs, scheduler=scheduler, **common)


@contextlib.contextmanager
def connect(cluster=None):
    """A ``distributed.Client`` for a cluster spec (see the module docstring), closed on exit
    when this call opened it, together with any local cluster it started."""
    distributed = require_distributed()
    if isinstance(cluster, distributed.Client):
        yield cluster
        return
    own = None
    if cluster is None or isinstance(cluster, str):
        kind, count = parse_spec(cluster or "local")
        if kind == "local":
            plan = default_plan(count)
            try:
                own = start_local_cluster(plan=plan)
            except RuntimeError as exc:  # a worker process that did not start
                raise DistributedUnavailable(
                    f"the local cluster did not start ({exc}); from a script, start it under "
                    "'if __name__ == \"__main__\":' (its workers import the main module)"
                ) from None
            target = own
        else:
            target = cluster.strip()
    else:
        target = cluster
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=UserWarning)  # port already in use etc.
            client = distributed.Client(target, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        if own is not None:
            own.close()
        raise DistributedUnavailable(f"cannot reach the cluster at {cluster!r}: {exc}") from None
    try:
        if own is not None:
            from ._plugins import PinCores, SetThreads

            client.register_plugin(SetThreads(plan.cores) if plan.kind == "cuda" else PinCores())
        yield client
    finally:
        client.close()
        if own is not None:
            own.close()


def worker_addresses(client) -> list[str]:
    """The addresses of the cluster's workers, sorted by worker name (stable for a cluster)."""
    workers = client.scheduler_info(n_workers=-1)["workers"] \
        if _takes_n_workers(client) else client.scheduler_info()["workers"]
    if not workers:
        raise DistributedUnavailable("the cluster has no workers")
    return [a for a, _ in sorted(workers.items(), key=lambda kv: (str(kv[1].get("name")), kv[0]))]


def _takes_n_workers(client) -> bool:
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters
