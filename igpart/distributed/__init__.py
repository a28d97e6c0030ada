"""Scale-out on dask.distributed: batch jobs and one large partition across workers.

- :func:`connect`: a ``distributed.Client`` for a cluster spec (``"local"``, ``"local:N"``, a
  scheduler address, a client or a cluster object); local clusters give each worker one GPU
  (several visible: dask-cuda's ``LocalCUDACluster`` when installed) or a set of cores.
- :func:`run_tasks`: independent tasks on the cluster with a progress bar, results in order
  (``igpart bench --cluster``, ``flows/regression.py --cluster``, ``benchmarks/suite.py
  --cluster``).
- ``igpart.partition(..., cluster=...)``: one partition over the workers
  (:mod:`igpart.distributed.partition`).

Needs ``pip install igpart[distributed]``; without it these raise
:class:`DistributedUnavailable` naming the extra.
"""

from .cluster import (
    DistributedUnavailable,
    LocalPlan,
    connect,
    local_plan,
    parse_spec,
    require_distributed,
    start_local_cluster,
    worker_addresses,
)
from .tasks import run_tasks, script_task

__all__ = [
    "DistributedUnavailable",
    "LocalPlan",
    "connect",
    "local_plan",
    "parse_spec",
    "require_distributed",
    "run_tasks",
    "script_task",
    "start_local_cluster",
    "worker_addresses",
]
