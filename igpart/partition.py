"""The result of a partitioning run (DESIGN §2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .hypergraph import Graph, Hypergraph
from .metrics import evaluate


@dataclass
class Partition:
    """A k-way partition with its metrics, timings and provenance.

    Everything a user reads from it is recomputable from ``parts`` and the input (see
    :func:`igpart.metrics.evaluate`). ``config``: the Config as the caller gave it;
    ``resolved``: what its input-, k- and backend-dependent values (``"auto"``, ``-1``) became
    for this run, and the effort derived from them (multilevel runs; empty otherwise).
    ``memory``: under a device memory budget, the run's device peak, host-resident bytes and
    per-phase bus estimate (``igpart.kernels.placement.BudgetAllocator.stats``; empty otherwise).
    """

    parts: np.ndarray
    k: int
    epsilon: float
    objective: str
    cut: int
    km1: int
    soed: int
    imbalance: float
    block_weights: np.ndarray
    max_block_weight: int
    balanced: bool
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    backend: str = "cpu"
    algorithm: str = "multilevel"
    seed: int = 0
    config: dict[str, Any] = field(default_factory=dict)
    max_block_weights: np.ndarray | None = None
    resolved: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_parts(
        cls, h: Hypergraph | Graph, parts, k: int, epsilon: float, objective: str = "cut",
        max_block_weights=None, known: dict | None = None, **info
    ) -> Partition:
        """Builds the result, computing every metric from scratch (balance against
        ``max_block_weights``, one bound per block, when given; else against epsilon);
        ``known``: figures already recomputed from scratch from ``parts`` and the input by a
        device backend (:func:`igpart.metrics.evaluate`'s ``known``)."""
        parts = np.ascontiguousarray(parts, dtype=np.int32)
        metrics = evaluate(h, parts, k, epsilon, max_block_weights, known=known)
        if max_block_weights is not None:
            max_block_weights = np.asarray(max_block_weights, dtype=np.int64)
        return cls(
            parts=parts, k=int(k), epsilon=float(epsilon), objective=objective, **metrics,
            max_block_weights=max_block_weights, **info,
        )

    @property
    def objective_value(self) -> int:
        """The value of the objective this partition was optimised for."""
        return int(getattr(self, self.objective))

    def to_dict(self, with_parts: bool = False) -> dict[str, Any]:
        """JSON-ready summary (``parts`` included on request)."""
        d = {
            "k": self.k,
            "epsilon": self.epsilon,
            "objective": self.objective,
            "cut": self.cut,
            "km1": self.km1,
            "soed": self.soed,
            "imbalance": round(self.imbalance, 6),
            "balanced": self.balanced,
            "max_block_weight": self.max_block_weight,
            "block_weights": [int(x) for x in self.block_weights],
            "seconds": round(self.seconds, 6),
            "timings": {key: round(v, 6) for key, v in self.timings.items()},
            "backend": self.backend,
            "algorithm": self.algorithm,
            "seed": self.seed,
            "config": self.config,
        }
        if self.max_block_weights is not None:
            d["max_block_weights"] = [int(x) for x in self.max_block_weights]
        if self.resolved:
            d["resolved"] = self.resolved
        if self.memory:
            d["memory"] = self.memory
        if with_parts:
            d["parts"] = self.parts.tolist()
        return d

    def __repr__(self) -> str:
        return (
            f"Partition(k={self.k}, {self.objective}={self.objective_value}, "
            f"imbalance={self.imbalance:.4f}, backend={self.backend}, "
            f"algorithm={self.algorithm}, seconds={self.seconds:.3f})"
        )
