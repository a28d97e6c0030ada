"""Deep multilevel partitioning of graphs: the k blocks are formed while the hierarchy is
uncoarsened, each block bisected on the first level where it is large enough, instead of all k
at once on the coarsest level.

The coarsest level of the direct scheme has ``graph_contraction_limit * k`` vertices, a few
dozen per block, and METIS's k-way partition of it fixes the blocks' shape; the refinement on
the finer levels moves their boundaries but not what they are. Here (KaMinPar's deep multilevel
partitioning) the coarsest level is split into as many blocks as it has ``C =
Config.graph_deep_block_vertices`` vertices per block (at least 2), and on the way up every level
of at least ``C`` vertices per block after a split bisects each block again (METIS on the
subgraph the block induces, ``_cpu.split_blocks``) until there are k. The level above the input
splits whatever is left: a split of the input's own level costs METIS on the whole input, and
that level is refined with all k blocks anyway. Every level is refined with the blocks it has.

The blocks follow a recursive bisection tree of the k final blocks: a block stands for an
interval of them and splits into its two halves (the larger one first). Its weight bound is the
sum of its final blocks' bounds, less the slack of the bisections still to come: with ``R =
ceil(log2 k)`` bisections in all and ``r`` left below a block, ``sum / (1 + epsilon)^(r / R)``,
so that every bisection gets an equal share of the imbalance and the final blocks the whole."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from ..kernels.backend import Backend
from .coarsening import move_parts
from .context import Timer

#: METIS seeds of a block's bisection (the best one kept).
DEEP_SPLIT_SEEDS = 2


class BlockTree:
    """The current blocks as intervals ``[lo, hi)`` of the k final blocks, in order."""

    def __init__(self, final_bounds: np.ndarray, epsilon: float):
        self.final = np.asarray(final_bounds, dtype=np.int64)
        self.k = int(self.final.shape[0])
        self.epsilon = float(epsilon)
        self.depth = max(1, math.ceil(math.log2(self.k))) if self.k > 1 else 1
        self.lo = np.zeros(1, dtype=np.int64)
        self.hi = np.full(1, self.k, dtype=np.int64)
        self._sums = np.concatenate([[0], np.cumsum(self.final)])

    @property
    def count(self) -> int:
        return int(self.lo.shape[0])

    def _halves(self):
        size = self.hi - self.lo
        mid = self.lo + (size + 1) // 2
        return size > 1, mid

    def next_count(self) -> int:
        """The blocks after the next split."""
        return int(self.count + np.count_nonzero(self.hi - self.lo > 1))

    def bounds_of(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The weight bounds (int64) of the blocks ``[lo, hi)``."""
        total = (self._sums[hi] - self._sums[lo]).astype(np.float64)
        left = np.ceil(np.log2(np.maximum(hi - lo, 1)))
        scale = (1.0 + self.epsilon) ** (left / self.depth)
        return np.where(hi - lo > 1, np.floor(total / scale), total).astype(np.int64)

    def bounds(self) -> np.ndarray:
        return self.bounds_of(self.lo, self.hi)

    def split(self):
        """Splits every block of more than one final block; returns the split's arrays for
        ``_cpu.split_blocks``: each old block's new left and right ids and their bounds."""
        splits, mid = self._halves()
        sizes = 1 + splits.astype(np.int64)
        left_id = (np.cumsum(sizes) - sizes).astype(np.int32)
        right_id = (left_id + splits).astype(np.int32)
        left_cap = self.bounds_of(self.lo, np.where(splits, mid, self.hi))
        right_cap = np.where(splits, self.bounds_of(mid, self.hi), 0).astype(np.int64)
        lo = np.empty(int(sizes.sum()), dtype=np.int64)
        hi = np.empty_like(lo)
        lo[left_id] = self.lo
        hi[left_id] = np.where(splits, mid, self.hi)
        lo[right_id[splits]] = mid[splits]
        hi[right_id[splits]] = self.hi[splits]
        self.lo, self.hi = lo, hi
        return left_id, right_id, left_cap, right_cap

    def ufactor(self) -> int:
        """METIS's imbalance (1/1000) of one bisection: the per-bisection share."""
        return max(1, round(1000 * ((1.0 + self.epsilon) ** (1.0 / self.depth) - 1.0)))


def split_level(lbe: Backend, level, parts, tree: BlockTree, more: Callable[[], bool],
                seed: int, runs: int, timer: Timer):
    """Bisects every block of ``parts`` (on ``lbe``) that stands for more than one final block,
    again while ``more()``; returns the new blocks on ``lbe``. The level and the blocks go to
    the host once for all the steps."""
    from ..kernels import _cpu

    t0 = time.perf_counter()
    host = lbe.to_host
    xadj, adjncy, adjwgt, vwgt = (host(level.xadj), host(level.adjncy), host(level.adjwgt),
                                  host(level.vwgt))
    out = np.ascontiguousarray(host(parts), dtype=np.int32)
    step = 0
    while True:
        left_id, right_id, left_cap, right_cap = tree.split()
        out = _cpu.split_blocks(xadj, adjncy, adjwgt, vwgt, out, left_id, right_id, left_cap,
                                right_cap, int(seed + step), int(runs), tree.ufactor())
        step += 1
        if not more():
            break
    timer.add("split", t0)
    return lbe.asarray(out, "int32")


def deep_partition(hierarchy: list, k: int, block_vertices: int, tree: BlockTree,
                   refiner: Callable, initial: Callable, seed: int, runs: int, timer: Timer):
    """The partition of ``hierarchy[0]`` (levels as :func:`.coarsening.coarsen` makes them) into
    the ``k`` blocks of ``tree``: the coarsest level split by ``initial(count, bounds)`` (the
    run's initial partitioning into ``count`` blocks of int64 ``bounds``), then projected level
    by level, blocks bisected where a level has ``block_vertices`` per block after the split
    (on the level above the input all that are left), each level refined by ``refiner(backend,
    count, bounds)`` (a refine function of ``count`` blocks with those bounds on that backend). Once
    every block is one of the k, block i is final block i (the intervals stay in order).
    Consumes ``hierarchy`` as :func:`.uncoarsening.uncoarsen` does."""
    coarsest, cbe = hierarchy[-1][0], hierarchy[-1][3]
    only = len(hierarchy) <= 2  # no level between the input and the coarsest: all k at once
    while tree.count < k and (only or tree.count < 2
                              or coarsest.n >= block_vertices * tree.next_count()):
        tree.split()
    parts = initial(tree.count, tree.bounds())
    hierarchy[-1] = None
    coarse_be = cbe
    for i in range(len(hierarchy) - 2, -1, -1):
        level, cmap, _, lbe, _ = hierarchy[i]
        hierarchy[i] = None
        t0 = time.perf_counter()
        parts = lbe.project(cmap, move_parts(parts, coarse_be, lbe))
        cmap = None
        timer.add("project", t0)

        def more(n=level.n, last=i == 1):
            return tree.count < k and (last or n >= block_vertices * tree.next_count())

        if more():
            parts = split_level(lbe, level, parts, tree, more, seed + 1000 * i, runs, timer)
        parts = refiner(lbe, tree.count, tree.bounds())(level, parts)
        coarse_be = lbe
    return parts
