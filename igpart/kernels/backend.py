"""The backend contract shared by the C++ and GPU implementations (DESIGN §3).

A backend offers the stage operations of the multilevel partitioners on arrays of its own array
module ``xp`` (numpy for the C++ backend, cupy for the GPU backend). The drivers
(``igpart.partitioner``: its driver and stages) only sequence these calls: per level, only Python
scalars (sizes, gains, flags) cross to the host; arrays stay on the backend until the coarsest
level goes to the host for initial partitioning and the final partition comes back.

Conventions for every operation below
-------------------------------------
* Array dtypes are exact: ``int64`` for pointers (``eptr``, ``vptr``, ``xadj``) and weights
  (``vwgt``, ``ewgt``, ``adjwgt``, block weights, ``max_block_weights``), ``int32`` for vertex ids,
  net ids and block ids (``eind``, ``vind``, ``adjncy``, ``parts``, ``cmap``). Callers pass
  arrays already converted (``backend.asarray(a, dtype)``); implementations may check.
* Inputs are never modified; every operation returns new arrays.
* ``parts`` is an ``int32`` array of length ``n`` with values in ``[0, k)``.
* ``max_block_weights`` is an ``int64`` array of length ``k``: block ``b`` is *balanced* when its
  total vertex weight is ``<= max_block_weights[b]``. The uniform rule is
  ``floor((1+eps) * ceil(total/k))`` for every block (``igpart.metrics.max_block_weight``);
  recursive schemes pass other targets.
* ``objective`` is ``"cut"`` (sum of weights of nets with connectivity lambda > 1) or ``"km1"``
  (sum of w_e * (lambda_e - 1)). For graphs both are the edge cut.
* ``seed`` makes every randomised choice reproducible: on the CPU the same inputs and seed give
  bit-identical outputs. A GPU backend need not reproduce the CPU's outputs bit for bit (atomics
  order differently), but it must honour the same postconditions, which the tests check.
* Per-element formulas shared by both implementations (rating of a pair, gain of a move, hash
  tie-breaking) live in ``kernels/common/*.h`` with ``IGP_HD``; see ``partition_common.h``.

Postconditions the tests check for every backend
------------------------------------------------
* ``coarsen_*``: ``cmap`` maps onto ``[0, nc)`` and hits every coarse id; every coarse vertex
  weighs ``<= max_cluster_weight`` unless it is a single fine vertex; ``nc <= n``.
* ``contract_*``: coarse vertex weights are the sums of their fine vertices (total kept); the
  objective of any coarse partition equals the objective of its projection on the fine level.
* ``refine_*`` / ``fm_refine_hypergraph`` / ``jet_refine_hypergraph``: never worsen the
  objective; never make a balanced block unbalanced; a block above its bound never gets heavier.
* ``rebalance_*``: never touches an already balanced partition; otherwise the result is
  balanced whenever one of its greedy phases finds a balanced assignment (for instance whenever
  the heaviest vertex fits into the room the bound leaves above the average block weight).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from ..errors import BackendUnavailable  # noqa: F401  (errors.py is a leaf module)

OBJECTIVES = ("cut", "km1")


@dataclass(frozen=True)
class HypergraphArrays:
    """A hypergraph level on a backend: both incidence directions, weights, sizes.

    ``eptr`` int64 (m+1) / ``eind`` int32 (pins): pins of each net, unique within a net.
    ``vptr`` int64 (n+1) / ``vind`` int32 (pins): nets of each vertex, ascending net ids.
    ``vwgt`` int64 (n), ``ewgt`` int64 (m). ``total_weight`` = sum(vwgt) (host int).
    """

    n: int
    m: int
    eptr: Any
    eind: Any
    vptr: Any
    vind: Any
    vwgt: Any
    ewgt: Any
    total_weight: int

    @property
    def num_pins(self) -> int:
        return int(self.eind.shape[0])


@dataclass(frozen=True)
class GraphArrays:
    """A graph level on a backend: symmetric CSR without self loops or repeated neighbours.

    ``xadj`` int64 (n+1), ``adjncy`` int32 (2|E|), ``adjwgt`` int64 (2|E|), ``vwgt`` int64 (n),
    ``total_weight`` = sum(vwgt) (host int).
    """

    n: int
    xadj: Any
    adjncy: Any
    adjwgt: Any
    vwgt: Any
    total_weight: int

    @property
    def num_edges(self) -> int:
        return int(self.adjncy.shape[0] // 2)


class Backend:
    """Stage operations of the partitioning algorithms on one kind of device.

    Subclasses implement every method that raises ``NotImplementedError`` here. Methods with a
    body work on any array module that follows the numpy API and may be overridden for speed.
    """

    name: str = "abstract"
    xp: Any = None
    #: Exception type the dynamic structure raises for an invalid record: args (index, reason).
    record_error: type[Exception] = ValueError
    #: What ``Config(refinement="auto")`` means on this backend ("fm", "jet" or "jet+fm").
    default_refinement: str = "fm"
    #: Device memory budget in bytes (None: no budget; only device backends have one).
    memory_budget: int | None = None

    def check_memory(self, n: int, m: int, pins: int, k: int) -> None:
        """Raises unless a full partition of an input of ``n`` vertices, ``m`` nets and ``pins``
        pins into ``k`` blocks can run within ``memory_budget`` (``budget.check_partition``)."""
        if self.memory_budget is not None:
            from . import budget

            budget.check_partition(self.memory_budget, n, m, pins, k)

    def memory_scope(self, k: int):
        """Context manager around one full partition into ``k`` blocks: under a device memory
        budget it places the run's arrays within it and yields the accounting object (whose
        ``stats()`` becomes ``Partition.memory``); without one (and on the CPU) it does nothing
        and yields None."""
        return contextlib.nullcontext()

    # ------------------------------------------------------------------ transfers
    def asarray(self, a, dtype=None):
        """``a`` (host or device) as an array of this backend, converted to ``dtype``."""
        return self.xp.asarray(a, dtype=dtype)

    def to_host(self, a):
        """A numpy copy (or view, on the CPU) of a backend array."""
        raise NotImplementedError

    def hypergraph_arrays(self, h) -> HypergraphArrays:
        """Uploads a host :class:`igpart.Hypergraph` (anything with its CSR attributes)."""
        return HypergraphArrays(
            n=int(h.n),
            m=int(h.m),
            eptr=self.asarray(h.eptr, "int64"),
            eind=self.asarray(h.eind, "int32"),
            vptr=self.asarray(h.vptr, "int64"),
            vind=self.asarray(h.vind, "int32"),
            vwgt=self.asarray(h.vwgt, "int64"),
            ewgt=self.asarray(h.ewgt, "int64"),
            total_weight=int(h.total_weight),
        )

    def graph_arrays(self, g) -> GraphArrays:
        """Uploads a host :class:`igpart.Graph`."""
        return GraphArrays(
            n=int(g.n),
            xadj=self.asarray(g.xadj, "int64"),
            adjncy=self.asarray(g.adjncy, "int32"),
            adjwgt=self.asarray(g.adjwgt, "int64"),
            vwgt=self.asarray(g.vwgt, "int64"),
            total_weight=int(g.total_weight),
        )

    # ------------------------------------------------------------------ generic helpers
    def net_connectivity(self, eptr, eind, parts, k: int):
        """lambda(e): number of distinct blocks among the pins of each net (int32, m)."""
        raise NotImplementedError

    def block_weights(self, vwgt, parts, k: int):
        """Total vertex weight of each block: int64 array of length k."""
        raise NotImplementedError

    def project(self, cmap, coarse_parts):
        """Fine partition from a coarse one: ``parts[v] = coarse_parts[cmap[v]]`` (int32, n)."""
        return coarse_parts[cmap]

    def hypergraph_objective(self, hg: HypergraphArrays, parts, k: int, objective: str) -> int:
        """The objective value (host int) of ``parts`` on ``hg``."""
        lam = self.net_connectivity(hg.eptr, hg.eind, parts, k)
        if objective == "cut":
            return int((hg.ewgt * (lam > 1)).sum())
        return int((hg.ewgt * self.xp.maximum(lam.astype("int64") - 1, 0)).sum())

    def graph_edge_cut(self, g: GraphArrays, parts) -> int:
        """Total weight of edges whose endpoints lie in different blocks (host int)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ hypergraphs
    def coarsen_hypergraph(
        self,
        hg: HypergraphArrays,
        max_cluster_weight: int,
        *,
        group_size: int = 4,
        max_net_size: int = 1000,
        communities=None,
        seed: int = 0,
    ) -> tuple[Any, int]:
        """Balanced group coarsening (HyperG §3.1): one level's clustering.

        1. Rating: for every vertex ``u`` and neighbour ``v`` (sharing a net of 2..max_net_size
           pins), ``score(u, v) = sum over shared nets of w_e / (|e| - 1)``
           (``igp::rating_term``; the GPU backend sums the terms in fixed point,
           ``(w_e << shift) // (|e| - 1)`` with the largest ``shift <= 32`` that keeps the
           level's total net weight below 2^62 after the shift, so that a sum does not depend on
           the order of its terms: its ratings differ from the C++ doubles by rounding only).
           Pairs with ``vwgt[u] + vwgt[v] > max_cluster_weight``, and,
           when ``communities`` (int32, n) is given, pairs in different communities, are not
           rated. Each vertex picks its best-rated neighbour; ties go to the lighter neighbour,
           then to the smaller ``igp::tie_hash(seed, u, v)``. A vertex with no rated neighbour
           picks none.
        2. Grouping: the undirected graph of (u, best(u)) edges falls into components; a
           component's group id is its largest vertex id (the leader) and every member gets the
           combination ``(group id << 32) | join iteration``, where the join iteration is the BFS
           distance from the leader in that graph. (This is the fixed point of HyperG Alg. 1,
           atomicMax on combinations, run synchronously: the leader's id reaches a vertex after
           exactly that many rounds.)
        3. Subgroups: vertices sorted by (combination, vertex id) are cut into consecutive runs of
           the same group, each run greedily closed before it would exceed ``group_size``
           vertices or ``max_cluster_weight`` total weight.
        Returns ``(cmap, nc)``: ``cmap`` int32 (n) maps each vertex to its subgroup's dense id,
        subgroups numbered by ascending smallest (first-sorted) member's position; ``nc`` the
        number of coarse vertices (host int).
        """
        raise NotImplementedError

    def communities(
        self,
        hg: HypergraphArrays,
        *,
        max_net_size: int = 50,
        max_levels: int = 8,
        max_passes: int = 8,
        min_move_fraction: float = 0.01,
        seed: int = 0,
        resolution: float = 1.0,
        max_weight: int = 0,
        sub_rounds: int = 0,
        k: int = 0,
        graph: str = "clique",
        edge_weight: str = "hybrid",
        level_max: int = -1,
        min_pass_gain: float = 0.0,
    ):
        """Community id (int32, n, dense from 0) of every vertex, used to restrict coarsening.

        Multilevel Louvain modularity maximisation on the weighted clique expansion (edge weight
        ``sum over shared nets of 2..max_net_size pins of w_e / (|e| - 1)``, ``igp::rating_term``):
        local moving (vertices in the order of ``igp::tie_hash(seed, u, n)``; a vertex moves to the
        neighbouring community of largest gain ``w(u, C) - resolution * deg(u) * tot(C) / 2W``
        (``resolution`` > 1 gives smaller communities; with ``max_weight`` > 0 never into a
        community whose vertex weight would exceed it), ties keep its
        community) until a pass moves at most ``min_move_fraction`` of the vertices or
        ``max_passes``; then communities are aggregated and the next level runs, at most
        ``max_levels`` levels. Run once on the finest level. Ids are numbered by first vertex.
        ``sub_rounds`` > 0: local moving in that many synchronous sub-rounds per pass on graphs
        of at least 4096 vertices (``Config.community_sub_rounds``; parallel, and the same
        result whatever the threads). ``k``: the number of blocks the partition that the
        communities guide will have (0: not said); a backend may pick its approximation by it
        (the GPU's level of Louvain), the result is correct either way.

        ``graph = "bipartite"``: the same Louvain on the bipartite graph instead (a node per
        vertex and per net of 2..``max_net_size`` pins, net nodes of weight 0, an arc per pin
        weighted by ``edge_weight``: ``"uniform"`` w_e, ``"non_uniform"`` w_e / |e|,
        ``"degree"`` w_e * d(v) / |e| with d(v) v's nets in the graph, ``"hybrid"``
        Mt-KaHyPar's choice by density, ``Config.community_edge_weight``); the vertices'
        communities are the result, numbered by first vertex.

        ``level_max`` > 0: Louvain on a level of at most that many vertices, coarsened from
        ``hg`` by heavy-edge clustering without communities (at most 4x fewer vertices per
        level, until a level shrinks by less than 10%), its communities projected back; 0: on
        ``hg`` itself; -1: the backend's ``community_level_max(k)`` (``Config.
        community_level_vertices``).

        ``min_pass_gain`` > 0: a level also ends after a local-moving pass whose moves gained
        less modularity (each as its vertex rated it) than this fraction of what the level's
        passes gained so far (``Config.community_pass_gain``).

        ``HostFallback`` (``host_fallback.py``): the C++ backend's implementation on host copies
        (any community assignment is correct, only the coarsening quality depends on it).
        """
        raise NotImplementedError

    def cluster_hypergraph(
        self,
        hg: HypergraphArrays,
        max_cluster_weight: int,
        *,
        max_net_size: int = 1000,
        communities=None,
        max_shrink: float = 2.5,
        weight_penalty: bool = False,
        seed: int = 0,
    ) -> tuple[Any, int]:
        """Cluster-aware heavy-edge clustering (igpart's default hypergraph coarsening).

        Vertices are visited in the order of ``igp::tie_hash(seed, u, -1)``. A vertex not yet in
        a cluster (neither joined nor joined by another) rates every cluster ``C`` holding one of
        its neighbours: ``sum over pins v in C of w_e / (|e| - 1)`` over shared nets of
        2..``max_net_size`` pins, divided by ``weight(C)`` when ``weight_penalty``; only clusters
        with ``weight(C) + w(u) <= max_cluster_weight`` and, when ``communities`` (int32, n) is
        given, of u's community count. u joins the best (ties: a target not yet clustered, then
        the lighter cluster, then ``igp::tie_hash(seed, u, C)``). Clustering stops once
        ``n / max_shrink`` clusters remain. Clusters are numbered by ascending representative
        (first vertex of the cluster). Returns ``(cmap, nc)`` with the postconditions of
        ``coarsen_hypergraph``.

        ``HostFallback``: the C++ backend's implementation on host copies (it is sequential by
        nature; a GPU backend may override it with a parallel variant honouring the
        postconditions).
        """
        raise NotImplementedError

    def contract_hypergraph(self, hg: HypergraphArrays, cmap, nc: int) -> HypergraphArrays:
        """The coarse hypergraph of a clustering.

        Coarse vertex weights are summed. Each net's pins are mapped through ``cmap`` and
        deduplicated (ascending coarse ids); nets left with fewer than 2 pins are dropped;
        identical nets (same pin set) are merged into one whose weight is the sum. Coarse nets
        are ordered by their first fine net. ``vptr``/``vind`` are built (ascending net ids).
        """
        raise NotImplementedError

    def refine_hypergraph(
        self,
        hg: HypergraphArrays,
        parts,
        k: int,
        max_block_weights,
        objective: str,
        *,
        max_rounds: int = 16,
        locked=None,
    ) -> tuple[Any, int]:
        """Sequence-based refinement (HyperG §3.2), repeated to a fixed point.

        ``locked`` (optional, uint8 per vertex, an array of this backend): vertices with a
        non-zero entry never move (fixed vertices); the same in every refinement and in
        rebalancing.

        One round: every vertex computes its best move (the block, among blocks its nets touch,
        of highest gain ``igp::move_gain``; ties to the smaller block id) and keeps it when the
        gain is positive. Moves are sorted by (gain descending, vertex id). Each move's gain is
        recomputed assuming every earlier move of the sequence is applied. Prefix sums of the
        recomputed gains and of per-block weight deltas give, for every prefix, its total gain
        and resulting block weights; the prefix applied is the shortest one of maximum total gain
        among prefixes whose blocks are all within ``max(max_block_weights[b], weight of b before
        the round)``. Rounds repeat until no prefix has a positive gain or ``max_rounds``.
        Returns ``(parts, gain)`` with ``gain`` the total objective improvement (host int, >= 0).
        Works for any k (no per-vertex bit masks of blocks).
        """
        raise NotImplementedError

    def fm_refine_hypergraph(
        self,
        hg: HypergraphArrays,
        parts,
        k: int,
        max_block_weights,
        objective: str,
        *,
        max_rounds: int = 4,
        max_fruitless_moves: int = 250,
        min_improvement: float = 0.001,
        seed: int = 0,
        max_work: float = 0.0,
        locked=None,
    ) -> tuple[Any, int]:
        """Boundary k-way Fiduccia-Mattheyses with rollback (quality pass after the sequence
        refinement; a GPU backend may run it on the host through the C++ backend).

        One round: all boundary vertices enter a priority queue keyed by their best feasible
        move (target weight + vertex weight <= ``max_block_weights[target]``); the best move is
        applied even when its gain is negative, the vertex is locked, and the gains of vertices
        sharing a net whose pin counts crossed a gain-relevant threshold are recomputed. A round
        stops after ``max_fruitless_moves`` moves without a new best or when the queue empties;
        it rolls back to the best prefix (highest cumulative gain, first reached). Rounds repeat
        while a round improves the objective by more than ``min_improvement`` (relative) and at
        most ``max_rounds`` times. ``max_work`` > 0: a round of the k-way FM (k > 2) also stops
        once the gain evaluations after its first pass have read ``max_work * (pins + n)`` pins
        (``Config.fm_max_work``); 0: no bound. Returns ``(parts, gain)`` as
        ``refine_hypergraph``.

        The C++ backend also takes ``locked`` (per-vertex mask, 1 = never moved) and
        ``deterministic`` (False: its parallel localized FM, ``Config.deterministic``); a
        backend that offers the parallel FM sets ``parallel_fm = True``.
        """
        raise NotImplementedError

    def jet_refine_hypergraph(
        self,
        hg: HypergraphArrays,
        parts,
        k: int,
        max_block_weights,
        objective: str,
        *,
        max_iterations: int = 64,
        patience: int = 12,
        negative_gain_factor: float = 0.25,
        min_improvement: float = 0.001,
        afterburner_max_net_size: int = 256,
        balance_rounds: int = 3,
        seed: int = 0,
        locked=None,
    ) -> tuple[Any, int]:
        """Jet refinement (Gilbert et al., "Jet: Multilevel Graph Partitioning on GPUs"),
        generalised to hypergraphs; formulas in ``kernels/common/jet.h``. Deterministic: both
        backends return the same partition for the same input (the GPU tests check equality).

        One iteration on the current partition (pin counts phi(e, b)):

        1. Candidates: every vertex not moved in the previous iteration takes its best target
           among the blocks its nets touch (highest ``igp::move_gain``, then highest connection
           sum of w_e over nets with pins there, then smaller id); it is a candidate when the
           gain is >= 0 or the loss is below ``floor(negative_gain_factor * internal)``, with
           ``internal`` the weight of its nets having another pin in its block.
        2. Afterburner: candidates sorted by (gain desc, ``tie_hash(seed, iteration, v)``, id);
           each one's gain is recomputed with every pin of its nets where the candidates before
           it send them; moves whose recomputed gain is >= 0 are kept (as Jet). Nets of more than
           ``afterburner_max_net_size`` pins contribute their gain under the current counts.
        3. Balance: per destination block, kept moves in priority order are accepted while the
           block's weight before, minus the weight of the accepted moves out of it, plus the
           accepted inflow stays within ``max(max_block_weights[b], weight before)``; the rule is
           applied ``balance_rounds`` times (rejections shrink the outflow), and if it still
           rejects a move the outflow credit is dropped (always safe). Accepted moves are applied
           and locked for the next iteration.
        4. The objective is recomputed; the best partition seen is kept. Stops after
           ``max_iterations``, after ``patience`` iterations without lowering the objective by
           more than ``min_improvement`` (relative) from the last such improvement, or when two
           iterations in a row move nothing.

        Never worsens the objective, never makes a balanced block unbalanced, and a block above
        its bound never gets heavier. Returns ``(parts, gain)`` with ``gain`` the objective
        improvement (host int, >= 0).
        """
        raise NotImplementedError

    def rebalance_hypergraph(
        self, hg: HypergraphArrays, parts, k: int, max_block_weights, objective: str,
        locked=None,
    ) -> Any:
        """Moves vertices out of overloaded blocks until every block is within its bound.

        Phase 1 (structure-preserving): repeatedly take, from an overloaded block, the vertex
        whose best move to a block with room loses the least objective per unit of weight
        (boundary vertices first, as gains say), and apply it. Phase 2 (only if some block is
        still overloaded, e.g. heavy vertices or k close to n): first-fit decreasing repacking:
        vertices by weight descending stay in their block while it has room, else go to the block
        with the most room left. Returns the new ``parts``; an already balanced input is
        returned unchanged. The result may stay unbalanced only when no balanced assignment
        exists or both greedy phases miss it; callers check. ``locked``: as in
        ``refine_hypergraph`` (locked vertices keep their block in every phase).
        """
        raise NotImplementedError

    # ------------------------------------------------------------------ graphs
    def coarsen_graph(
        self,
        g: GraphArrays,
        max_cluster_weight: int,
        *,
        group_size: int = 6,
        seed: int = 0,
    ) -> tuple[Any, int]:
        """Union-find coarsening with scoring (G-kway §3.1) and constrained grouping (iG-kway §IV).

        1. Each vertex ``u`` picks the neighbour of highest ``s(u, v) = c * w(u, v) - deg(v)``
           (``igp::graph_score``, c = max degree + 1) among neighbours with
           ``vwgt[u] + vwgt[v] <= max_cluster_weight``; ties to the smaller
           ``igp::tie_hash(seed, u, v)``.
        2. Union find to a fixed point (atomicMin of subset ids): every component of the
           (u, best(u)) graph gets the smallest member id as subset id; each vertex's label is the
           iteration in which it joined, i.e. its BFS distance from that vertex.
        3. Vertices sorted by (subset id, label, vertex id) are cut into groups of at most
           ``group_size`` vertices and ``max_cluster_weight`` weight (greedy, as for hypergraphs).
        Returns ``(cmap, nc)`` as ``coarsen_hypergraph``.
        """
        raise NotImplementedError

    def contract_graph(self, g: GraphArrays, cmap, nc: int) -> GraphArrays:
        """The coarse graph: vertex weights summed, edges mapped through ``cmap``, self loops
        dropped, parallel edges merged with summed weights, neighbours sorted ascending."""
        raise NotImplementedError

    def refine_graph(
        self,
        g: GraphArrays,
        parts,
        k: int,
        max_block_weights,
        *,
        max_rounds: int = 32,
    ) -> tuple[Any, int]:
        """Independent-set refinement (G-kway §3.2), repeated until no move is applied.

        One round: every boundary vertex finds its legal move of highest positive gain
        ``ed(u, b) - id(u)`` to a block with room for it (ties to the smaller block id); a vertex
        with a legal move joins the move set only if no neighbour with a legal move has a smaller
        id (so the set is independent and gains are exact). Moves sorted by (gain descending,
        vertex id); segmented prefix sums of per-block weight deltas give the longest prefix
        after which every block is within ``max(max_block_weights[b], its weight before the
        round)``; that prefix is applied. Returns ``(parts, gain)``.
        """
        raise NotImplementedError

    def rebalance_graph(self, g: GraphArrays, parts, k: int, max_block_weights) -> Any:
        """As ``rebalance_hypergraph`` with edge-cut gains."""
        raise NotImplementedError

    def cluster_graph_lp(
        self,
        g: GraphArrays,
        max_cluster_weight: int,
        *,
        iterations: int = 5,
        min_clusters: int = 0,
        seed: int = 0,
        sub_rounds: int = 8,
    ) -> tuple[Any, int]:
        """Size-constrained label propagation clustering (the coarsening of the label
        propagation graph partitioners).

        Every vertex starts alone; in up to ``iterations`` passes over a seeded order a vertex
        joins the neighbouring cluster of highest summed edge weight that stays within
        ``max_cluster_weight`` with it (ties: ``igp::tie_hash``) when that beats the weight
        towards its current cluster. A pass is cut into ``sub_rounds`` slices: a slice's
        vertices choose in parallel against the clusters before it, then move in order while
        the target still has room, so the result depends on the seed and ``sub_rounds`` only.
        Moves stop once ``min_clusters`` clusters remain. When more than half the vertices are
        still alone, lone vertices favouring the same cluster are grouped (two-hop).
        Returns ``(cmap, nc)`` as ``coarsen_graph``.
        ``HostFallback``: the C++ backend's implementation on host copies.
        """
        raise NotImplementedError

    def lp_refine_graph(
        self,
        g: GraphArrays,
        parts,
        k: int,
        max_block_weights,
        *,
        iterations: int = 5,
        seed: int = 0,
        sub_rounds: int = 8,
    ) -> tuple[Any, int]:
        """Label propagation refinement: up to ``iterations`` passes (slices as in
        ``cluster_graph_lp``) over the vertices next to a move of the pass before (all in the
        first); a vertex moves to the adjacent block of highest connectivity with room for it
        when that lowers the edge cut, or keeps it and makes its block lighter than the target
        was; every move is re-checked against the current partition when applied.
        Returns ``(parts, gain)``. ``HostFallback``: the C++ backend on host copies."""
        raise NotImplementedError

    def graph_edge_nets(self, g: GraphArrays) -> HypergraphArrays:
        """``g`` as the hypergraph of its edges: one 2-pin net (smaller endpoint first) per
        edge, in order of (smaller, larger) endpoint; its cut is the edge cut. ``vptr`` is
        ``g.xadj``: each vertex's nets come in the order of its neighbours."""
        xp = self.xp
        n, nnz = g.n, int(g.adjncy.shape[0])
        src = xp.searchsorted(g.xadj, xp.arange(nnz, dtype=xp.int64), side="right") - 1
        dst = g.adjncy.astype(xp.int64)
        fwd = xp.flatnonzero(src < dst)  # one entry per edge (no self loops)
        fkey = src[fwd] * n + dst[fwd]
        m = int(fwd.shape[0])
        # rows sorted by neighbour (every contracted level) give the keys in order already
        if m > 1 and not bool((fkey[1:] > fkey[:-1]).all()):
            order = xp.argsort(fkey)
            fwd, fkey = fwd[order], fkey[order]
        eid = xp.empty(nnz, dtype=xp.int32)
        eid[fwd] = xp.arange(m, dtype=xp.int32)
        bwd = xp.flatnonzero(src > dst)
        eid[bwd] = xp.searchsorted(fkey, dst[bwd] * n + src[bwd]).astype(xp.int32)
        return HypergraphArrays(
            n=n, m=m, eptr=xp.arange(0, 2 * m + 1, 2, dtype=xp.int64),
            eind=xp.stack([src[fwd], dst[fwd]], axis=1).reshape(-1).astype(xp.int32),
            vptr=g.xadj, vind=eid, vwgt=g.vwgt, ewgt=g.adjwgt[fwd], total_weight=g.total_weight,
        )

    def jet_refine_graph(self, g: GraphArrays, parts, k: int, max_block_weights,
                         **options) -> tuple[Any, int]:
        """Jet refinement of the edge cut: ``jet_refine_hypergraph`` (same ``options``) on
        :meth:`graph_edge_nets`. Returns ``(parts, gain)``."""
        if g.num_edges == 0:  # nothing to cut
            return self.asarray(parts, "int32").copy(), 0
        return self.jet_refine_hypergraph(self.graph_edge_nets(g), parts, k, max_block_weights,
                                          "cut", **options)

    def fm_refine_graph(
        self,
        g: GraphArrays,
        parts,
        k: int,
        max_block_weights,
        *,
        rounds: int = 3,
        max_fruitless_moves: int = 64,
        min_improvement: float = 0.001,
        seed: int = 0,
        max_work: float = 0.0,
        gain_seeds: bool = False,
    ) -> tuple[Any, int]:
        """Localized k-way FM on the edge cut: each round starts a search at every boundary
        vertex not yet moved in the round (seeded order; ``gain_seeds``: only at those whose
        best move has a gain >= 0); a search repeatedly moves the unlocked
        vertex of highest gain (negative allowed) into a block with room, locks it, updates its
        neighbours, stops after ``max_fruitless_moves`` moves without a new best and rolls back
        to its best prefix. At most ``rounds`` rounds; stops after one that improves the cut by
        less than ``min_improvement`` (a fraction); a round starts no search once its gain
        evaluations have read ``max_work`` times the level's adjacency entries + vertices (0: no
        bound). Returns ``(parts, gain)``. ``HostFallback``: the C++ backend on host copies.

        The C++ backend (and ``HostFallback``) also take ``deterministic`` (False: the parallel
        localized FM, ``Config.deterministic``); a backend that offers it sets
        ``parallel_graph_fm = True``."""
        raise NotImplementedError

    def dynamic_hypergraph(
        self, eptr, eind, n: int, vwgt, ewgt, parts, k: int, epsilon: float, **options
    ):
        """The dynamic hypergraph of the incremental engine (igpart.dynamic), built from CSR
        nets and a k-way partition. Options: gamma, headroom, growth, sparse_phi."""
        raise BackendUnavailable(f"the {self.name} backend has no dynamic hypergraph yet")

    def incremental_refiner(self):
        """An object whose ``refine(dynamic, touched_v, touched_e, new_v, objective, ...)``
        refines the partition of a dynamic hypergraph of this backend around a batch's changes
        (iG-kway Alg. 3-4 generalised to hypergraphs; igpart.incremental documents it) and
        returns ``(moved vertices, their blocks before, stats dict)``."""
        raise BackendUnavailable(f"the {self.name} backend has no incremental refinement yet")

    def __repr__(self) -> str:
        return f"<igpart backend {self.name}>"
