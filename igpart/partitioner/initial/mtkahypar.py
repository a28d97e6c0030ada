"""Mt-KaHyPar as an initial partitioner (``Config.initial = "mtkahypar"`` or ``"all"``) and as
the peer of the benchmarks, when its Python package is installed."""

from __future__ import annotations

import time

import numpy as np

from ...errors import PartitionError
from ...hypergraph import Hypergraph

_MTK_INIT: dict = {}


def mtkahypar_available() -> bool:
    """Whether the ``mtkahypar`` Python package imports."""
    try:
        import mtkahypar  # noqa: F401
    except ImportError:
        return False
    return True


def mtkahypar_initializer(threads: int = 1):
    """The process-wide Mt-KaHyPar initializer for ``threads`` threads (created once)."""
    import mtkahypar

    init = _MTK_INIT.get("init")
    if init is None or _MTK_INIT.get("threads") != threads:
        init = mtkahypar.initialize(int(threads))
        _MTK_INIT.update(init=init, threads=threads)
    return init


def mtkahypar_partition(
    h: Hypergraph, k: int, epsilon: float = 0.03, objective: str = "cut", seed: int = 0,
    threads: int = 1, timed: bool = False, fixed: np.ndarray | None = None,
):
    """Block ids from Mt-KaHyPar's DEFAULT preset (raises PartitionError when not installed).
    ``fixed`` (int per vertex, -1: free): Mt-KaHyPar's fixed vertices.

    With ``timed``, returns ``(parts, seconds)`` where ``seconds`` covers Mt-KaHyPar's own
    partitioning call only (not the conversion of ``h`` into Mt-KaHyPar's Python input lists).
    """
    try:
        import mtkahypar
    except ImportError:
        raise PartitionError("Mt-KaHyPar is not installed (pip install mtkahypar)") from None
    init = mtkahypar_initializer(threads)
    mtkahypar.set_seed(int(seed))
    ctx = init.context_from_preset(mtkahypar.PresetType.DEFAULT)
    obj = mtkahypar.Objective.CUT if objective == "cut" else mtkahypar.Objective.KM1
    ctx.set_partitioning_parameters(int(k), float(epsilon), obj)
    ctx.logging = False
    nets = np.split(h.eind.astype(np.int64), h.eptr[1:-1])
    hg = init.create_hypergraph(
        ctx, h.n, h.m, [e.tolist() for e in nets], h.vwgt.tolist(), h.ewgt.tolist()
    )
    if fixed is not None:
        hg.add_fixed_vertices(np.asarray(fixed).tolist(), int(k))
    t0 = time.perf_counter()
    p = hg.partition(ctx)
    seconds = time.perf_counter() - t0
    parts = np.asarray(p.get_partition(), dtype=np.int32)
    return (parts, seconds) if timed else parts
