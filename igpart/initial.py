"""Initial partitioning: METIS (through pymetis) on a graph or a hypergraph's clique expansion.

This is also the ``metis`` algorithm of ``igpart partition`` and the METIS peer of the regression
flow: it reports what METIS gives, without any igpart refinement.
"""

from __future__ import annotations

import numpy as np

from .errors import PartitionError
from .hypergraph import Graph, Hypergraph

#: Nets with more pins than this are left out of the clique expansion handed to METIS (a net of
#: s pins adds s(s-1)/2 edges; large nets carry little locality information).
CLIQUE_MAX_NET_SIZE = 100


def check_k(n: int, k: int) -> None:
    if int(k) != k or k < 1:
        raise PartitionError(f"k must be a positive integer, got {k}")
    if k > max(n, 1):
        raise PartitionError(f"k = {k} exceeds the number of vertices ({n})")


def metis_partition(
    h: Hypergraph | Graph,
    k: int,
    epsilon: float = 0.03,
    seed: int = 0,
    max_net_size: int = CLIQUE_MAX_NET_SIZE,
) -> np.ndarray:
    """Block ids (int32) from METIS k-way on ``h`` (a hypergraph goes through its clique
    expansion). METIS's own balance tolerance is set from ``epsilon``; METIS does not guarantee
    it, so callers check balance."""
    import pymetis

    check_k(h.n, k)
    if k == 1:
        return np.zeros(h.n, dtype=np.int32)
    g = h if isinstance(h, Graph) else h.to_graph("clique", max_net_size=max_net_size)
    opts = pymetis.Options(seed=int(seed), ufactor=max(1, int(round(epsilon * 1000))))
    vw = g.vwgt.astype(np.int64)
    # METIS rejects all-zero vertex weights; with a zero total any assignment is balanced
    if not vw.any():
        vw = np.ones_like(vw)
    res = pymetis.part_graph(
        int(k),
        pymetis.CSRAdjacency(g.xadj.astype(np.int64), g.adjncy.astype(np.int64)),
        vweights=vw,
        eweights=g.adjwgt.astype(np.int64) if g.adjncy.size else None,
        options=opts,
    )
    return np.asarray(res.vertex_part, dtype=np.int32)
