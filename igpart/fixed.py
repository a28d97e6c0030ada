"""Fixed vertices: vertices pre-assigned to a block (I/O pads, macros, cells a flow has placed).

A fixed array holds one int per vertex: its block, or ``-1`` when the vertex is free (KaHyPar's
fix-file format, :func:`igpart.io.read_fixed`). The multilevel driver keeps fixed vertices in
their block on every stage:

- Coarsening: fixed vertices get clustering labels of their own, one per block, so that a
  cluster never holds vertices fixed to different blocks nor mixes free and fixed vertices
  (:func:`fixed_labels`); a coarse vertex is fixed to the block of its fine vertices
  (:func:`coarse_fixed`). In V-cycles the labels are the current blocks, where every fixed
  vertex already is, so a free vertex may join a cluster of fixed ones of its own block.
- Initial partitioning of the coarsest level: the candidates (METIS, greedy growing,
  Mt-KaHyPar) know nothing of fixed vertices. Each one's blocks are first renumbered to agree
  best with the fixed assignments (a maximum-weight matching of candidate blocks to fixed
  blocks, :func:`align_to_fixed`, among blocks of the same bound), then the fixed vertices are
  put into their blocks, and the candidate is rebalanced and refined with them locked. The
  renumbering keeps a candidate's structure whenever its blocks and the fixed blocks agree up
  to names, so that forcing moves as little weight as possible; what remains to move is
  repaired by the locked rebalancing. Recursive bisection passes each bisection the side of
  every fixed vertex, so its sub-problems are partitioned with them fixed from the start, and
  Mt-KaHyPar (``initial="mtkahypar"``) gets them as its own fixed vertices.
- Refinement and rebalancing: the backends' ``locked`` mask (uint8, non-zero: never moved).
"""

from __future__ import annotations

import numpy as np

from .errors import InputError


def check_fixed(fixed, n: int, k: int, vwgt: np.ndarray | None = None,
                bounds: np.ndarray | None = None) -> np.ndarray | None:
    """``fixed`` validated as an int32 array of ``n`` entries in ``[-1, k)``; None when
    ``fixed`` is None or fixes no vertex. With ``vwgt`` and ``bounds`` (int64 per block), the
    fixed weight of every block must fit its bound. Raises InputError naming the problem."""
    if fixed is None:
        return None
    try:
        arr = np.asarray(fixed)
    except (TypeError, ValueError):
        raise InputError(f"fixed must be an array of block ids, got {type(fixed).__name__}"
                         ) from None
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InputError(f"fixed must hold one block id (or -1: free) per vertex: expected "
                         f"{n} entries, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr))
                and np.all(arr == np.round(arr))):
            raise InputError(f"fixed must hold integer block ids, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero((arr < -1) | (arr >= k))
    if bad.size:
        v = int(bad[0])
        raise InputError(f"fixed block {int(arr[v])} of vertex {v} is out of range "
                         f"(-1: free, else 0 .. {k - 1} for k = {k})")
    if not bool((arr >= 0).any()):
        return None
    out = arr.astype(np.int32)
    if vwgt is not None and bounds is not None:
        load = fixed_weights(out, np.asarray(vwgt), k)
        over = np.flatnonzero(load > np.asarray(bounds, dtype=np.int64))
        if over.size:
            b = int(over[0])
            raise InputError(f"the vertices fixed to block {b} weigh {int(load[b])}, more than "
                             f"its maximum weight {int(np.asarray(bounds)[b])}")
    return out


def fixed_weights(fixed: np.ndarray, vwgt: np.ndarray, k: int) -> np.ndarray:
    """The weight of the vertices fixed to each block (int64, k entries)."""
    sel = fixed >= 0
    return np.bincount(fixed[sel], weights=None if vwgt is None else vwgt[sel],
                       minlength=k).astype(np.int64)[:k]


def locked_mask(xp, fixed):
    """The ``locked`` mask of the backends (uint8 per vertex) of a fixed array (or None)."""
    return None if fixed is None else (fixed >= 0).astype(xp.uint8)


def fixed_labels(xp, fixed, labels=None):
    """Clustering labels that keep fixed vertices apart: free vertices keep ``labels`` (their
    communities; all one label when None), vertices fixed to block b get a label of their own
    per block. Dense int32 ids."""
    base = (xp.zeros(fixed.shape[0], dtype=xp.int64) if labels is None
            else labels.astype(xp.int64))
    top = int(base.max()) + 1 if base.shape[0] else 0
    combined = xp.where(fixed >= 0, top + fixed.astype(xp.int64), base)
    return xp.unique(combined, return_inverse=True)[1].reshape(-1).astype(xp.int32)


def coarse_fixed(xp, fixed, cmap, nc: int):
    """The fixed array of a coarse level: a cluster is fixed to the block of its fixed members
    (the clustering never puts vertices fixed to different blocks together), else free."""
    out = xp.full(nc, -1, dtype=xp.int32)
    sel = xp.flatnonzero(fixed >= 0)
    out[cmap[sel]] = fixed[sel]
    return out


def best_renaming(parts: np.ndarray, fixed: np.ndarray, vwgt: np.ndarray, k: int,
                  bounds: np.ndarray | None = None) -> np.ndarray:
    """The renaming ``perm`` (block a of ``parts`` becomes ``perm[a]``) that maximises the
    weight of fixed vertices already in their block: the Hungarian method on the k x k overlap
    matrix (``scipy.optimize.linear_sum_assignment``). With ``bounds``, a block is only renamed
    to one of the same bound (bisections with unequal sides keep their sides' sizes)."""
    from scipy.optimize import linear_sum_assignment

    sel = fixed >= 0
    overlap = np.bincount(np.asarray(parts)[sel].astype(np.int64) * k + fixed[sel],
                          weights=vwgt[sel], minlength=k * k).reshape(k, k)
    cost = -overlap
    if bounds is not None:
        b = np.asarray(bounds, dtype=np.int64)
        # renaming a block to one of another bound is never chosen over the identity
        cost = np.where(b[:, None] == b[None, :], cost, float(vwgt[sel].sum()) + 1.0)
    rows, cols = linear_sum_assignment(cost)
    perm = np.empty(k, dtype=np.int32)
    perm[rows] = cols
    return perm


def align_to_fixed(parts: np.ndarray, fixed: np.ndarray, vwgt: np.ndarray, k: int,
                   bounds: np.ndarray | None = None) -> np.ndarray:
    """``parts`` (host, int32) with its blocks renamed by :func:`best_renaming`, then every
    fixed vertex put into its block."""
    out = best_renaming(parts, fixed, vwgt, k, bounds)[np.asarray(parts, dtype=np.int32)]
    sel = fixed >= 0
    out[sel] = fixed[sel]
    return out
