"""Full partitioning driver: ``igpart.partition``."""

from __future__ import annotations

import time

from .errors import InputError
from .hypergraph import Graph, Hypergraph
from .initial import check_k, metis_partition
from .metrics import OBJECTIVES
from .partition import Partition

ALGORITHMS = ("metis",)


def partition(
    h: Hypergraph | Graph,
    k: int,
    epsilon: float = 0.03,
    objective: str = "cut",
    backend: str = "auto",
    seed: int = 0,
    algorithm: str = "metis",
) -> Partition:
    """Partitions ``h`` into ``k`` blocks of weight at most (1+epsilon)*ceil(total/k)."""
    if not isinstance(h, (Hypergraph, Graph)):
        raise InputError(f"expected a Hypergraph or Graph, got {type(h).__name__}")
    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective '{objective}' (choose from {', '.join(OBJECTIVES)})")
    if epsilon < 0:
        raise InputError(f"epsilon must be non-negative, got {epsilon}")
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm '{algorithm}' (choose from {', '.join(ALGORITHMS)})")
    check_k(h.n, k)
    t0 = time.perf_counter()
    parts = metis_partition(h, k, epsilon, seed)
    seconds = time.perf_counter() - t0
    return Partition.from_parts(
        h,
        parts,
        k,
        epsilon,
        objective,
        seconds=seconds,
        timings={"metis": seconds},
        backend="cpu",
        algorithm="metis",
        seed=seed,
        config={},
    )
