"""The public entry points of the partitioner, ``igpart.partition`` and ``igpart.improve``: the
arguments checked (clear errors, nothing run), the config and preset resolved into a
:class:`Config`, then the run dispatched to the multilevel driver
(:mod:`igpart.partitioner.driver`), to METIS (``algorithm="metis"``, the peer) or over the
workers of a dask cluster (:mod:`igpart.distributed.partition`, which runs the driver there).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..errors import InputError
from ..hypergraph import Graph, Hypergraph
from ..kernels.backend import Backend
from ..metrics import check_block_weights, check_parts
from ..partition import Partition
from .config import ALGORITHMS, Config
from .context import check_arguments, check_fixed_input
from .driver import run_improve, run_partition
from .initial.metis import metis_partition, target_fractions


def partition(
    h: Hypergraph | Graph,
    k: int,
    epsilon: float = 0.03,
    objective: str = "cut",
    backend: str | Backend = "auto",
    seed: int = 0,
    config: Config | dict | None = None,
    algorithm: str = "multilevel",
    fixed=None,
    cluster: Any = None,
    preset: str | None = None,
    max_block_weights=None,
) -> Partition:
    """Partitions ``h`` into ``k`` blocks of weight at most ``(1+epsilon)*ceil(total/k)``.

    ``objective``: ``"cut"`` or ``"km1"`` (graphs: edge cut either way). ``backend``: ``"auto"``,
    ``"cpu"``, ``"gpu"`` or a Backend object. ``config``: a :class:`Config` or a dict of overrides.
    ``preset``: ``"speed"``, ``"default"`` or ``"quality"`` (:mod:`igpart.presets`), the values
    of the Config fields that ``config`` does not set. ``max_block_weights``: one maximum
    weight per block (k non-negative integers summing to at least the total vertex weight)
    instead of the epsilon bound; the result's balance is measured against them (and fixed
    vertices must fit them).
    ``algorithm``: ``"multilevel"`` (igpart) or ``"metis"`` (METIS on the clique expansion,
    the peer). ``fixed`` (optional, one int per vertex: its block, or -1 when free; KaHyPar's
    fix file, :func:`igpart.io.read_fixed`): fixed vertices end in their block (see
    :mod:`igpart.fixed` for how each stage keeps them there; a Graph is then partitioned as the
    hypergraph of its edges, whose cut is the edge cut; ``algorithm="metis"`` takes none).
    ``cluster``: run over the workers of a dask cluster (a ``distributed.Client``, a scheduler
    address, ``"local"`` or ``"local:N"``; see :mod:`igpart.distributed`) instead of here; needs
    ``pip install igpart[distributed]``. Raises PartitionError for k < 1 or k > number of
    vertices, InputError for bad arguments (a fixed block out of range, the wrong length, fixed
    weight above a block's maximum weight: the epsilon bound or its ``max_block_weights``
    entry). The result's metrics are computed from scratch on
    ``h``.
    """
    check_arguments(h, k, epsilon, objective, seed)
    k = int(k)
    epsilon = float(epsilon)
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm '{algorithm}' (choose from {', '.join(ALGORITHMS)})")
    targets = None if max_block_weights is None else check_block_weights(
        max_block_weights, k, h.total_weight)
    fixed = check_fixed_input(h, fixed, k, epsilon, targets)
    if fixed is not None and algorithm == "metis":
        raise InputError("algorithm 'metis' cannot fix vertices; use 'multilevel'")
    cfg = Config.of(config, preset)
    if cluster is not None:
        if algorithm != "multilevel":
            raise InputError(f"algorithm '{algorithm}' does not run on a cluster (multilevel does)")
        if fixed is not None or targets is not None:
            raise InputError("a partition on a cluster takes no fixed vertices and no per-block "
                             "weights (run it here)")
        from ..distributed.partition import partition_on_cluster  # (dask's side, on demand)

        return partition_on_cluster(h, k, epsilon, objective, backend, seed, cfg, cluster)
    t_start = time.perf_counter()
    if algorithm == "metis":
        parts = metis_partition(h, k, epsilon, seed,
                                tpwgts=None if targets is None else target_fractions(targets))
        seconds = time.perf_counter() - t_start
        return Partition.from_parts(
            h, parts, k, epsilon, objective, seconds=seconds, timings={"metis": seconds},
            backend="cpu", algorithm="metis", seed=seed, config={}, max_block_weights=targets,
        )
    return run_partition(h, k, epsilon, objective, backend, seed, cfg, targets, fixed, t_start)


# ---------------------------------------------------------------------------------- warm start
def improve(
    h: Hypergraph | Graph,
    parts,
    k: int,
    epsilon: float = 0.03,
    objective: str = "cut",
    backend: str | Backend = "auto",
    seed: int = 0,
    config: Config | dict | None = None,
    vcycles: int | None = None,
    fixed=None,
    preset: str | None = None,
    max_block_weights=None,
) -> Partition:
    """Full multilevel re-partitioning warm-started from ``parts`` (what the incremental engine's
    quality guard runs): rebalance and refine on the input level, then ``vcycles`` V-cycles
    (None: the config's ``Config.vcycles``, resolved on the backend) that
    coarsen inside the current blocks (so the partition carries to every level), refine on the
    way up and are kept only when they do not worsen the objective. The result is never worse
    than a balanced input: when the refinement does not find a better partition, ``parts``
    comes back. A graph is handled as the hypergraph of its edges (2-pin nets), whose cut is
    the edge cut. ``fixed`` (as in :func:`partition`): fixed vertices are first put into their
    blocks (where ``parts`` has them elsewhere), then locked through rebalancing, refinement
    and V-cycles. ``preset``, ``max_block_weights``: as for :func:`partition`."""
    check_arguments(h, k, epsilon, objective, seed)
    k, epsilon = int(k), float(epsilon)
    cfg = Config.of(config, preset)
    if vcycles is not None and (isinstance(vcycles, bool) or vcycles < 0
                                or not isinstance(vcycles, (int, np.integer))):
        raise InputError(f"vcycles must be a non-negative integer, got {vcycles!r}")
    targets = None if max_block_weights is None else check_block_weights(
        max_block_weights, k, h.total_weight)
    p = check_parts(parts, h.n, k)  # a graph's hypergraph of its edges has its vertices
    fixed = check_fixed_input(h, fixed, k, epsilon, targets)
    if fixed is not None:
        p = np.where(fixed >= 0, fixed, p).astype(np.int32)
    return run_improve(h, p, k, epsilon, objective, backend, seed, cfg, vcycles, targets, fixed)
