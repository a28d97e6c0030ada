"""Communities of a hypergraph: the restriction of igpart's default coarsening.

The multilevel driver finds communities once on the finest level (``Backend.communities``:
multilevel Louvain modularity maximisation on the weighted clique expansion, edge weight
``w_e / (|e| - 1)`` summed over shared nets of at most ``max_net_size`` pins, or with
``graph="bipartite"`` Mt-KaHyPar's graph of a node per vertex and per net) and clusters only
vertices of the same community on every level, so coarsening never merges across the sparse cuts
between natural modules of a netlist. This module exposes the detection for host hypergraphs and
the modularity of an assignment (used by the tests and for inspection).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .errors import InputError
from .hypergraph import Hypergraph
from .kernels import get_backend


def detect_communities(
    h: Hypergraph,
    *,
    max_net_size: int | None = None,
    max_levels: int = 8,
    max_passes: int = 8,
    min_move_fraction: float = 0.01,
    seed: int = 0,
    resolution: float = 1.0,
    max_weight: int = 0,
    sub_rounds: int = 0,
    graph: str = "clique",
    edge_weight: str = "hybrid",
    min_pass_gain: float = 0.0,
    backend: str = "cpu",
) -> np.ndarray:
    """Community id (int32, dense from 0) of every vertex of ``h`` (see the module docstring;
    the parameters are those of :meth:`igpart.kernels.Backend.communities`; ``resolution`` > 1
    gives smaller communities; ``max_weight`` > 0 caps a community's vertex weight, except for a
    single vertex heavier than it; ``sub_rounds`` > 0: parallel local moving in synchronous
    sub-rounds, ``Config.community_sub_rounds``; ``graph``: ``"clique"`` or ``"bipartite"``,
    ``edge_weight`` the bipartite graph's arc weights, ``Config.community_graph`` /
    ``community_edge_weight``; ``max_net_size`` None: 50 for the clique expansion,
    ``max(50000, n // 100)`` for the bipartite graph, as the partitioner); ``min_pass_gain`` >
    0: a level also ends after a pass that gained less modularity than this fraction of the
    level's gain so far, ``Config.community_pass_gain``)."""
    if not isinstance(h, Hypergraph):
        raise InputError(f"expected a Hypergraph, got {type(h).__name__}")
    if not (np.isfinite(resolution) and resolution > 0):
        raise InputError(f"resolution must be a positive number, got {resolution!r}")
    if (isinstance(sub_rounds, bool) or not isinstance(sub_rounds, (int, np.integer))
            or sub_rounds < 0):
        raise InputError(f"sub_rounds must be a non-negative integer, got {sub_rounds!r}")
    if graph not in ("clique", "bipartite"):
        raise InputError(f"graph must be 'clique' or 'bipartite', got {graph!r}")
    if edge_weight not in ("hybrid", "uniform", "non_uniform", "degree"):
        raise InputError("edge_weight must be 'hybrid', 'uniform', 'non_uniform' or 'degree', "
                         f"got {edge_weight!r}")
    if max_net_size is None:
        from .partitioner.config import Config
        from .partitioner.context import community_net_size

        max_net_size = community_net_size(graph, Config(community_max_net_size=50), h.n)
    be = get_backend(backend)
    comm = be.communities(
        be.hypergraph_arrays(h), max_net_size=max_net_size, max_levels=max_levels,
        max_passes=max_passes, min_move_fraction=min_move_fraction, seed=seed,
        resolution=resolution, max_weight=max_weight, sub_rounds=sub_rounds, graph=graph,
        edge_weight=edge_weight, min_pass_gain=min_pass_gain,
    )
    return np.asarray(be.to_host(comm), dtype=np.int32)


def clique_matrix(h: Hypergraph, max_net_size: int = 50) -> sp.csr_matrix:
    """The weighted clique expansion as a symmetric sparse matrix (float, zero diagonal)."""
    sizes = h.net_sizes.astype(np.int64)
    keep = (sizes >= 2) & (sizes <= max_net_size)
    w = np.where(keep, h.ewgt / np.maximum(sizes - 1, 1), 0.0)
    inc = sp.csr_matrix(
        (np.ones(h.num_pins), h.eind.astype(np.int64), h.eptr.astype(np.int64)),
        shape=(h.m, h.n),
    )
    a = (inc.T @ sp.diags(w) @ inc).tocsr()
    a.setdiag(0.0)
    a.eliminate_zeros()
    return a


def modularity(h: Hypergraph, communities: np.ndarray, max_net_size: int = 50,
               resolution: float = 1.0) -> float:
    """Newman modularity of ``communities`` on the clique expansion of ``h`` (0.0 without
    edges), with the null-model term scaled by ``resolution`` (what Louvain maximises at that
    resolution)."""
    comm = np.asarray(communities, dtype=np.int64)
    if comm.shape != (h.n,):
        raise InputError(f"communities must have one entry per vertex ({h.n})")
    a = clique_matrix(h, max_net_size)
    two_w = float(a.sum())
    if two_w == 0.0:
        return 0.0
    coo = a.tocoo()
    inside = float(coo.data[comm[coo.row] == comm[coo.col]].sum())
    deg = np.asarray(a.sum(axis=1)).ravel()
    tot = np.bincount(comm, weights=deg)
    return inside / two_w - resolution * float(((tot / two_w) ** 2).sum())
