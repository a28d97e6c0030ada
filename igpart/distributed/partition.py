"""One partition over the workers of a cluster: multisection, then a k-way refinement.

``igpart.partition(h, k, ..., cluster=...)`` runs here. With ``W`` workers the input is split
into ``g = min(W, k)`` groups, group ``i`` to hold ``k_i`` of the ``k`` blocks (``k // g``, one
more for the first ``k % g``). Then:

1. the input goes to the first worker (once), which splits it into the ``g`` groups (igpart's
   multilevel pipeline with per-group weight bounds ``(1 + eps') * W * k_i / k``, KaHyPar's
   adapted imbalance ``eps' = ((1 + eps) * ceil(W/k) * k / W) ** (1/2) - 1`` for the two levels
   of splits, capped at ``k_i`` times the final bound; a cheap configuration,
   ``SPLIT_OVERRIDES``) and extracts each group's
   sub-hypergraph (nets restricted to the group, as process mapping's multisection does);
2. each sub-hypergraph goes to its own worker (once), which partitions it into ``k_i`` blocks
   with the largest imbalance that keeps its blocks within the final bound
   ``(1 + eps) * ceil(W/k)``;
3. the blocks' ids come back to the first worker, which refines the whole k-way partition
   (:func:`igpart.improve`: rebalance, refinement and ``FINAL_VCYCLES`` V-cycles)
   and returns it.

Each task's seed follows from the caller's seed and its group, and the groups from the number
of workers: the same seed on a cluster of the same size gives the same partition (on the C++
backend; on the GPU it varies from run to run as in one process). A worker lost
mid-run costs its task only: the scheduler reruns it elsewhere (the input travels inside the
first task, so even its loss is recoverable). Graphs run as the hypergraphs of their edges;
their result is measured on the graph (edge cut).
"""

from __future__ import annotations

import dataclasses
import math
import operator
import time
import uuid
import warnings

import numpy as np

from ..hypergraph import Graph, Hypergraph
from ..kernels import get_backend
from ..metrics import max_block_weight
from ..partition import Partition
from ..partitioner.context import Timer
from ..partitioner.driver import run_improve, run_multilevel, run_partition
from ..subgraphs import subhypergraphs
from .cluster import connect, worker_addresses

#: Seed offset between groups (a prime, as in :mod:`igpart.partitioner.initial.recursive`).
GROUP_SEED_STRIDE = 7919
#: V-cycles of the final k-way refinement and, below, the first split's configuration. Cut
#: against the partition here at k = 64 on ibm01 ibm03 ibm05 ibm08 ibm10, four groups, seed 0
#: (``benchmarks/distributed_bench.py FILES -k 64 --backend cpu --critical-path 4``, 2-core
#: machine shared with other jobs, so the times are indicative only): these defaults 0.996
#: 1.040 1.034 1.014 1.029 (geomean 1.022), critical path (split + slowest group + final
#: refinement) 0.38-0.65x the time here; no final V-cycle (``--final-vcycles 0``) geomean 1.053,
#: 0.32-0.44x; the split with the whole pipeline (``--split-config {}``) geomean 1.018, but
#: 0.78-1.37x the time here (the split at k = 4 costs about as much as the whole k = 64 run).
FINAL_VCYCLES = 1
#: The first split is a cheap multilevel run (no V-cycle, no FM, few refinement rounds, no
#: communities, levels shrinking up to 3x, 2 initial runs): each group is partitioned again
#: and the final refinement, with its V-cycle, repairs the group boundaries.
SPLIT_OVERRIDES: dict = {"vcycles": 0, "fm": False, "refine_rounds": 4, "communities": False,
                         "max_shrink": 3.0, "initial_runs": 2}


def group_blocks(k: int, groups: int) -> np.ndarray:
    """Blocks per group: ``k // groups``, one more for the first ``k % groups``."""
    return np.array([k // groups + (i < k % groups) for i in range(groups)], dtype=np.int64)


def split_bounds(total: int, k: int, epsilon: float, blocks: np.ndarray) -> np.ndarray:
    """Weight bounds of the groups of the first split (see the module docstring)."""
    final = max_block_weight(total, k, epsilon)
    perfect = -(-int(total) // int(k))
    eps1 = max(0.0, ((1.0 + epsilon) * perfect * k / max(int(total), 1)) ** 0.5 - 1.0)
    bounds = np.floor((1.0 + eps1) * total * blocks / k + 1e-9).astype(np.int64)
    return np.minimum(bounds, blocks * final)


def block_epsilon(final: int, sub_total: int, k_sub: int) -> float:
    """The largest imbalance for ``k_sub`` blocks of a group of weight ``sub_total`` whose
    blocks stay within ``final`` (0 when even a perfect split exceeds it)."""
    perfect = -(-int(sub_total) // int(k_sub))
    if perfect <= 0 or perfect > final:
        return 0.0
    eps = (final + 0.5) / perfect - 1.0
    while eps > 0 and math.floor((1.0 + eps) * perfect) > final:  # floating-point margin
        eps = math.nextafter(eps, 0.0)
    return eps


# --------------------------------------------------------------------------------- tasks
def _input(h: Hypergraph) -> Hypergraph:
    """The input, as a task result held by the first worker."""
    return h


def _split(h: Hypergraph, bounds: np.ndarray, objective: str, backend: str, seed: int,
           config) -> tuple[np.ndarray, float]:
    """Group ids of the first split and the seconds it took."""
    t0 = time.perf_counter()
    total = int(h.total_weight)
    eps = float(bounds.max()) * len(bounds) / max(total, 1) - 1.0
    groups = run_multilevel(h, len(bounds), max(eps, 0.0), objective, get_backend(backend),
                            seed, config, Timer(), block_bounds=bounds)
    return groups, time.perf_counter() - t0


def _extract(h: Hypergraph, split: tuple[np.ndarray, float], ngroups: int) -> list:
    """``(vertices, sub-hypergraph)`` of each group."""
    return [(verts, sub) for _, verts, sub in subhypergraphs(h, split[0], ngroups)]


def _partition_group(piece: tuple, k_sub: int, final: int, objective: str, backend: str,
                     seed: int, config) -> tuple[np.ndarray, float]:
    """Block ids (0 .. k_sub-1) of one group's sub-hypergraph and the seconds it took."""
    t0 = time.perf_counter()
    _, sub = piece
    if k_sub <= 1 or sub.n == 0:
        return np.zeros(sub.n, dtype=np.int32), 0.0
    if sub.n <= k_sub:  # at most one vertex per block
        return np.arange(sub.n, dtype=np.int32), 0.0
    eps = block_epsilon(final, int(sub.total_weight), k_sub)
    parts = run_multilevel(sub, k_sub, eps, objective, get_backend(backend), seed, config,
                           Timer())
    return parts, time.perf_counter() - t0


def _refine(h: Hypergraph | Graph, pieces: list, results: list, first: np.ndarray, k: int,
            epsilon: float, objective: str, backend: str, seed: int, config,
            vcycles: int) -> Partition:
    """The groups' blocks assembled into one k-way partition of ``h``, refined."""
    parts = np.zeros(h.n, dtype=np.int32)
    for (verts, _), (local, _), off in zip(pieces, results, first):
        parts[verts] = local + off
    return run_improve(h, parts, k, epsilon, objective, backend, seed, config, vcycles)


# --------------------------------------------------------------------------------- driver
def partition_on_cluster(h: Hypergraph | Graph, k: int, epsilon: float, objective: str,
                         backend, seed: int, cfg, cluster, *, final_vcycles: int = FINAL_VCYCLES,
                         split_overrides: dict | None = None) -> Partition:
    """:func:`igpart.partition` over the workers of ``cluster`` (see the module docstring);
    ``cfg`` a :class:`igpart.Config`. ``final_vcycles``: V-cycles of the final refinement;
    ``split_overrides``: Config fields of the first split over ``cfg``'s (None:
    ``SPLIT_OVERRIDES``; ``{}``: ``cfg`` itself)."""
    t_start = time.perf_counter()
    with connect(cluster) as client:
        workers = worker_addresses(client)
        tag = uuid.uuid4().hex[:12]

        def submit(fn, *args, name: str, where: int = 0):
            return client.submit(fn, *args, key=f"igpart-{name}-{tag}", pure=False,
                                 workers=[workers[where % len(workers)]],
                                 allow_other_workers=True)

        with warnings.catch_warnings():  # the input travels once, inside its task
            warnings.filterwarnings("ignore", message=".*[Ll]arge.*")
            held = submit(_input, h, name="input")
        p, timings = _pipeline(submit, lambda f: f.result(), held, h, k, epsilon, objective,
                               backend, seed, cfg, min(len(workers), k), final_vcycles,
                               split_overrides)
    return _finish(p, timings, t_start, cfg, min(len(workers), k), seed)


def critical_path(h: Hypergraph | Graph, k: int, epsilon: float, objective: str, backend,
                  seed: int, cfg, groups: int, *, final_vcycles: int = FINAL_VCYCLES,
                  split_overrides: dict | None = None) -> Partition:
    """What :func:`partition_on_cluster` computes on a cluster of ``groups`` workers, each task
    run here, one after the other: the same partition, and timings from which the time on such
    a cluster (less the transfers) follows, ``distributed_split + distributed_groups_max +
    distributed_refine``. For tuning without a cluster."""
    t_start = time.perf_counter()
    p, timings = _pipeline(lambda fn, *args, name, where=0: fn(*args), lambda x: x, h, h, k,
                           epsilon, objective, backend, seed, cfg, min(groups, k),
                           final_vcycles, split_overrides)
    return _finish(p, timings, t_start, cfg, min(groups, k), seed)


def _pipeline(submit, value, held, h, k: int, epsilon: float, objective: str, backend, seed: int,
              cfg, ngroups: int, final_vcycles: int, split_overrides: dict | None):
    """The tasks of the module docstring: ``submit(fn, *args, name=, where=worker index)``
    starts one (its arguments may be earlier ones), ``value(task)`` waits for its result;
    ``held`` is the input as a task. Returns (Partition, timings)."""
    backend = getattr(backend, "name", backend)
    split_cfg = dataclasses.replace(
        cfg, **(SPLIT_OVERRIDES if split_overrides is None else split_overrides))
    if ngroups <= 1:
        t0 = time.perf_counter()
        p = value(submit(_whole, held, k, epsilon, objective, backend, seed, cfg, name="whole"))
        return p, {"distributed_whole": time.perf_counter() - t0}
    held_hyper = submit(Graph.to_hypergraph, held, name="hyper") if isinstance(h, Graph) else held
    total = int(np.asarray(h.vwgt).sum())
    blocks = group_blocks(k, ngroups)
    bounds = split_bounds(total, k, epsilon, blocks)
    split = submit(_split, held_hyper, bounds, objective, backend, seed, split_cfg, name="split")
    extracted = submit(_extract, held_hyper, split, ngroups, name="extract")
    pieces = [submit(operator.getitem, extracted, i, name=f"piece-{i}") for i in range(ngroups)]
    final = max_block_weight(total, k, epsilon)
    results = [submit(_partition_group, pieces[i], int(blocks[i]), final, objective, backend,
                      seed + GROUP_SEED_STRIDE * (i + 1), cfg, name=f"group-{i}", where=i)
               for i in range(ngroups)]
    offsets = np.r_[0, np.cumsum(blocks)[:-1]]
    refined = submit(_refine, held, pieces, results, offsets, k, epsilon, objective, backend,
                     seed, cfg, final_vcycles, name="refine")
    group_seconds = [value(r)[1] for r in results]
    p = value(refined)
    return p, {"distributed_split": value(split)[1],
               "distributed_groups_max": max(group_seconds),
               "distributed_groups_sum": sum(group_seconds),
               "distributed_refine": p.seconds}


def _whole(h, k, epsilon, objective, backend, seed, cfg) -> Partition:
    """The whole partition on one worker (a cluster of one worker, or k = 1)."""
    return run_partition(h, k, epsilon, objective, backend, seed, cfg)


def _finish(p: Partition, timings: dict, t_start: float, cfg, groups: int,
            seed: int) -> Partition:
    return dataclasses.replace(
        p, seconds=time.perf_counter() - t_start, timings={**p.timings, **timings},
        algorithm=f"distributed-multisection:{groups}", seed=seed,
        config=dataclasses.asdict(cfg))
