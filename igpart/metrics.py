"""Partition quality and balance metrics (DESIGN §2), vectorised.

Objectives: ``cut`` (sum of weights of nets spanning more than one block, as in hMETIS and
HyperG), ``km1`` (sum of w_e * (lambda_e - 1), as in KaHyPar), ``soed`` (sum of w_e * lambda_e over
cut nets), and ``edge_cut`` for graphs. Balance: ``max_block_weight = floor((1 + eps) *
ceil(total / k))``, the KaHyPar / Mt-KaHyPar rule; ``imbalance = max block weight / ceil(total /
k) - 1``.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import InputError
from .hypergraph import Graph, Hypergraph
from .kernels import _cpu

OBJECTIVES = ("cut", "km1")


def check_parts(parts, n: int, k: int | None = None) -> np.ndarray:
    """Validates a block assignment (one block id per vertex, 0 <= id < k); returns int32."""
    arr = np.asarray(parts)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InputError(f"partition has {arr.size} entries, expected one per vertex ({n})")
    if arr.size and arr.dtype.kind not in "iu":
        raise InputError(f"block ids must be integers, got dtype {arr.dtype}")
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0:
            bad = int(np.flatnonzero(arr < 0)[0])
            raise InputError(f"vertex {bad} has negative block id {int(arr[bad])}")
        if k is not None and hi >= k:
            bad = int(np.flatnonzero(arr >= k)[0])
            raise InputError(f"vertex {bad} has block id {int(arr[bad])}, expected < k = {k}")
    return arr.astype(np.int32, copy=False)


def _k_of(parts: np.ndarray, k: int | None) -> int:
    if k is not None:
        return int(k)
    return int(parts.max()) + 1 if parts.size else 1


def connectivity(h: Hypergraph, parts, k: int | None = None) -> np.ndarray:
    """lambda_e: the number of distinct blocks among the pins of each net (0 for empty nets)."""
    p = check_parts(parts, h.n, k)
    return _cpu.net_connectivity(h.eptr, h.eind, p, _k_of(p, k))


def _objectives(h: Hypergraph, parts, k: int | None) -> tuple[int, int, int]:
    """(cut, km1, soed) of a hypergraph partition: one parallel pass over the nets in the C++
    module (numpy's masks and products over lambda were five more passes over the nets)."""
    p = check_parts(parts, h.n, k)
    return _cpu.hypergraph_objectives(h.eptr, h.eind, h.ewgt, p, _k_of(p, k))


def cut(h: Hypergraph | Graph, parts, k: int | None = None) -> int:
    """Weight of nets spanning more than one block; for a Graph, the edge cut."""
    if isinstance(h, Graph):
        return edge_cut(h, parts)
    return _objectives(h, parts, k)[0]


def km1(h: Hypergraph | Graph, parts, k: int | None = None) -> int:
    """Connectivity metric: sum of w_e * (lambda_e - 1); equals the edge cut on graphs."""
    if isinstance(h, Graph):
        return edge_cut(h, parts)
    return _objectives(h, parts, k)[1]


def soed(h: Hypergraph | Graph, parts, k: int | None = None) -> int:
    """Sum of external degrees: sum of w_e * lambda_e over cut nets."""
    if isinstance(h, Graph):
        return 2 * edge_cut(h, parts)
    return _objectives(h, parts, k)[2]


def edge_cut(g: Graph, parts) -> int:
    """Total weight of graph edges whose endpoints lie in different blocks (one parallel read of
    the adjacency in the C++ module, an integer sum; numpy's repeat, gather and mask would be
    single-threaded passes over every arc)."""
    p = check_parts(parts, g.n)
    return int(_cpu.graph_edge_cut(g.xadj, g.adjncy, g.adjwgt, p))


def block_weights(h: Hypergraph | Graph, parts, k: int | None = None) -> np.ndarray:
    """Total vertex weight of each block (int64, length k)."""
    p = check_parts(parts, h.n, k)
    return _cpu.block_weights(h.vwgt, p, _k_of(p, k))


def perfect_block_weight(total: int, k: int) -> int:
    return -(-int(total) // int(k))


def max_block_weight(total: int, k: int, epsilon: float) -> int:
    """floor((1 + epsilon) * ceil(total / k)), the KaHyPar / Mt-KaHyPar balance bound."""
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    if epsilon < 0:
        raise InputError(f"epsilon must be non-negative, got {epsilon}")
    return int(math.floor((1.0 + epsilon) * perfect_block_weight(total, k) + 1e-9))


def check_block_weights(weights, k: int, total: int) -> np.ndarray:
    """Per-block maximum weights (``max_block_weights``, as Mt-KaHyPar's individual target
    block weights) as int64: ``k`` non-negative integers whose sum is at least ``total``, the
    total vertex weight; InputError naming the problem otherwise."""
    arr = np.asarray(weights)
    if arr.ndim != 1 or arr.shape[0] != k:
        raise InputError(f"max_block_weights has {arr.size} entries, expected one per block "
                         f"(k = {k})")
    if arr.size and arr.dtype.kind == "f":
        whole = np.isfinite(arr) & (arr == np.floor(arr))
        if not whole.all():
            bad = int(np.flatnonzero(~whole)[0])
            raise InputError(f"max_block_weights[{bad}] = {arr[bad]!r} is not an integer")
    elif arr.size and arr.dtype.kind not in "iu":
        raise InputError(f"max_block_weights must be integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and int(arr.min()) < 0:
        bad = int(np.flatnonzero(arr < 0)[0])
        raise InputError(f"max_block_weights[{bad}] = {int(arr[bad])} is negative")
    if int(arr.sum()) < int(total):
        raise InputError(f"max_block_weights sum to {int(arr.sum())}, less than the total "
                         f"vertex weight {int(total)}: no partition fits")
    return arr


def imbalance(h: Hypergraph | Graph, parts, k: int | None = None) -> float:
    """max_b w(V_b) / ceil(w(V) / k) - 1."""
    p = check_parts(parts, h.n, k)
    kk = _k_of(p, k)
    perfect = perfect_block_weight(h.total_weight, kk)
    if perfect == 0:
        return 0.0
    return float(block_weights(h, p, kk).max()) / perfect - 1.0


def is_balanced(h: Hypergraph | Graph, parts, k: int, epsilon: float) -> bool:
    """Whether every block weighs at most max_block_weight(total, k, epsilon)."""
    bound = max_block_weight(h.total_weight, k, epsilon)
    return bool(block_weights(h, parts, k).max(initial=0) <= bound)


def evaluate(h: Hypergraph | Graph, parts, k: int, epsilon: float = 0.03,
             max_block_weights=None, known: dict | None = None) -> dict:
    """Every metric at once, recomputed from scratch. With ``max_block_weights`` (one bound per
    block, :func:`check_block_weights`) balance is measured against them instead of epsilon:
    ``balanced`` when every block weighs at most its bound, ``imbalance = max_b w(V_b) /
    bound_b - 1`` (0 or less when balanced), ``max_block_weight`` the largest bound.
    ``known`` (graphs): ``"cut"`` and ``"block_weights"`` already recomputed from scratch from
    the same ``parts`` and input elsewhere (a device's pass over its copy of the arrays), used
    instead of the host's passes."""
    p = check_parts(parts, h.n, k)
    known = known if isinstance(h, Graph) and known else {}
    bw = known.get("block_weights")
    if bw is None:
        bw = block_weights(h, p, k)
    elif bw.shape != (k,):
        raise ValueError(f"known block weights: {bw.shape[0]} for k = {k}")
    if max_block_weights is not None:
        bounds = check_block_weights(max_block_weights, k, h.total_weight)
        ratio = bw / np.maximum(bounds, 1)  # a bound of 0: any weight shows as overload
        balance = {
            "max_block_weight": int(bounds.max(initial=0)),
            "imbalance": float(ratio.max(initial=0.0)) - 1.0,
            "balanced": bool((bw <= bounds).all()),
        }
    else:
        balance = {}
    bound = max_block_weight(h.total_weight, k, epsilon)
    perfect = perfect_block_weight(h.total_weight, k)
    if isinstance(h, Graph):
        c = int(known["cut"]) if "cut" in known else edge_cut(h, p)
        objectives = {"cut": c, "km1": c, "soed": 2 * c}
    else:
        c, km, so = _cpu.hypergraph_objectives(h.eptr, h.eind, h.ewgt, p, k)
        objectives = {"cut": c, "km1": km, "soed": so}
    return {
        **objectives,
        "block_weights": bw,
        "max_block_weight": bound,
        "imbalance": (float(bw.max()) / perfect - 1.0) if perfect else 0.0,
        "balanced": bool(bw.max(initial=0) <= bound),
        **balance,
    }
