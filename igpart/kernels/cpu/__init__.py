"""The C++ backend: Python side of the pybind11 module igpart.kernels._cpu (sources beside).

Every stage operation of :class:`igpart.kernels.backend.Backend` runs in C++ on host numpy arrays;
this class only converts dtypes and forwards. It is the reference the GPU backend is tested
against, and deterministic: same inputs and seed, same outputs.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .. import _cpu
from ..backend import OBJECTIVES, Backend, GraphArrays, HypergraphArrays

#: Louvain's asynchronous passes visit the vertices in runs of this many consecutive ids (the
#: runs in a seeded order, the vertices of a run too) instead of in one seeded order over all of
#: them, so that the rows each thread reads lie close together in memory (0: one seeded order;
#: ``_cpu.set_louvain_order_run``, applied at every Louvain call). The synchronous sub-rounds
#: and the sequential passes keep one seeded order. As long as a thread's chunk of the order
#: (256), so that two threads rarely work in one run. On the 2-core VM (2 threads, seeds 1-2,
#: against 0): the `large` inputs cut 1.006x / 1.004x / 1.000x at k = 2 / 16 / 64 in 0.79x /
#: 0.81x / 0.87x the time (Louvain alone on ibm10 x29 4.18 s instead of 6.29 s, on
#: cholesky_mc x18 1.68 s instead of 3.19 s, the same modularity), the `small` ones 0.983x /
#: 0.994x / 1.001x in 0.98-1.00x; on 16 threads (H200 machine, six `large` cases, seeds 1-2)
#: 0 took 1.02-1.15x the time at 0.995-1.089x the cut (BENCHMARKS.md, "Louvain's asynchronous
#: passes in runs of consecutive ids").
LOUVAIN_ORDER_RUN = 256
#: The same for the clustering's asynchronous joins (``cluster_hypergraph(asynchronous=True)``,
#: ``_cpu.set_cluster_order_run``, applied at every call); the sub-rounds and the sequential
#: clustering keep one seeded order. Off: 256 gave 0.84-0.86x the time at 1.007-1.013x the cut
#: on 2 threads and 0.89-0.96x at 1.005x on 16 (same section).
CLUSTER_ORDER_RUN = 0
#: The same for the clustering's synchronous sub-rounds (``_cpu.set_cluster_sub_round_order_run``,
#: applied at every call); the order still depends on neither the threads nor their timing.
CLUSTER_SUB_ROUND_ORDER_RUN = 0


def _i32(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int32)


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def _u8(a) -> np.ndarray | None:
    """An optional per-vertex mask (``locked``) as a contiguous uint8 array, or None."""
    return None if a is None else np.ascontiguousarray(a, dtype=np.uint8)


def _objective_code(objective: str) -> int:
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective '{objective}'")
    return OBJECTIVES.index(objective)


def _sequential_fm(deterministic: bool | None, parallel_min_threads: int) -> bool:
    """Whether an FM call with ``deterministic`` runs the sequential FM: True and False as given;
    None: the parallel FM from ``parallel_min_threads`` threads on (0: never; the calling
    thread's OpenMP threads)."""
    if deterministic is not None:
        return bool(deterministic)
    threads = int(_cpu.get_num_threads())
    return not (parallel_min_threads > 0 and threads >= parallel_min_threads)


def _asynchronous(deterministic: bool | None, min_threads: int) -> bool:
    """Whether a stage with an asynchronous mode runs it on this thread's OpenMP threads under
    ``Config.deterministic = deterministic``: never for True; for False, on two threads or
    more; for None, from ``min_threads`` threads on (0: never)."""
    if deterministic:
        return False
    threads = int(_cpu.get_num_threads())
    if deterministic is None:
        return int(min_threads) > 0 and threads >= max(2, int(min_threads))
    return threads >= 2


class CpuBackend(Backend):
    """Runs every stage in C++ on host numpy arrays; the reference the GPU backend is tested
    against."""

    name = "cpu"
    xp = np
    record_error = _cpu.RecordError

    #: The hypergraph stage calls (Louvain, clustering, contraction, the refiners, the
    #: objective) run on at most one OpenMP thread per this many pins of their level, rounded
    #: up (0: every thread of the run): on many threads the small levels' parallel loops cost a
    #: whole team's start and barriers for little work each (on the 16-core machine ibm01's
    #: clustering and contraction, 12.7k vertices, took 0.036 and 0.025 s on 16 threads, about
    #: twice what one thread of the 2-core VM takes). On the 16-core machine the `small` suite
    #: went from 0.23x to 0.31x Mt-KaHyPar-16's speed with it and the other fixed-cost changes
    #: of the same commit (BENCHMARKS.md, "`small`, GPU vs the C++ backend and
    #: Mt-KaHyPar-16"). Swept on 16 threads (ibm01, ibm05, ibm10, cholesky_mc, neuron at k = 2
    #: and 64, best of 2 runs): 4,096 took 0.97x the time of 16,384 in geomean, 65,536 1.09x,
    #: no cap 0.97x, 0.78-1.35x per case (BENCHMARKS.md, "Fixed costs on small inputs at many
    #: threads"); on the 14 `small` inputs at k = 2 (H200 machine, commit 096231b, best of 2
    #: runs in one process) 4,096 0.90x (Louvain 0.83x), no cap 0.91x: hence 4,096.
    #: The graph stage calls (clustering, contraction, rebalance, LP, FM) count their level's
    #: arcs (2 per edge) against the same value.
    #: Threads only, never the result: every stage gives the same result on any number of
    #: them (the parallel graph FM, whose result depends on the threads' interleaving, aside).
    #: Process-wide: set in the C++ module when a CpuBackend is made.
    stage_pins_per_thread = 4_096

    #: Whether a full partition (``memory_scope``) serves large blocks from the heap and keeps
    #: freed ones there for the next level's arrays, instead of a fresh mapping per block whose
    #: pages the kernel faults in and zeroes again (glibc only, and not where the environment
    #: sets malloc parameters; the scope's end restores glibc's defaults and returns the free
    #: memory to the system). Same results either way.
    retain_heap = True

    def __init__(self, retain_heap: bool | None = None) -> None:
        _cpu.set_stage_pins_per_thread(int(self.stage_pins_per_thread))
        if retain_heap is not None:
            self.retain_heap = bool(retain_heap)

    @contextlib.contextmanager
    def heap_scope(self):
        """The heap policy of ``retain_heap`` for the block (the GPU backend's host stages use it
        too)."""
        retained = bool(self.retain_heap) and bool(_cpu.heap_retain_begin())
        try:
            yield
        finally:
            if retained:
                _cpu.heap_retain_end()

    @contextlib.contextmanager
    def memory_scope(self, k: int):
        """Around one full partition: the heap policy of ``retain_heap``; yields None (no device
        memory accounting on the host)."""
        with self.heap_scope():
            yield None

    def to_host(self, a):
        return np.asarray(a)

    # ------------------------------------------------------------------ helpers
    def net_connectivity(self, eptr, eind, parts, k: int):
        return _cpu.net_connectivity(_i64(eptr), _i32(eind), _i32(parts), int(k))

    def block_weights(self, vwgt, parts, k: int):
        return _cpu.block_weights(_i64(vwgt), _i32(parts), int(k))

    def project(self, cmap, coarse_parts):
        """``coarse_parts[cmap]`` gathered on the OpenMP threads (numpy's gather is one
        single-threaded pass per level)."""
        return _cpu.project(_i32(cmap), _i32(coarse_parts))

    def hypergraph_objective(self, hg: HypergraphArrays, parts, k: int, objective: str) -> int:
        return int(
            _cpu.hypergraph_objective(
                hg.eptr, hg.eind, hg.ewgt, _i32(parts), int(k), _objective_code(objective)
            )
        )

    def graph_edge_cut(self, g: GraphArrays, parts) -> int:
        return int(_cpu.graph_edge_cut(g.xadj, g.adjncy, g.adjwgt, _i32(parts)))

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
    ):
        comm = None if communities is None else _i32(communities)
        cmap, nc = _cpu.coarsen_hypergraph(
            hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, int(max_cluster_weight),
            int(group_size), int(max_net_size), comm, int(seed),
        )
        return cmap, int(nc)

    def communities(self, hg: HypergraphArrays, *, max_net_size: int = 50, max_levels: int = 8,
                    max_passes: int = 8, min_move_fraction: float = 0.01, seed: int = 0,
                    resolution: float = 1.0, max_weight: int = 0, sub_rounds: int = 0,
                    k: int = 0, graph: str = "clique", edge_weight: str = "hybrid",
                    level_max: int = -1, min_pass_gain: float = 0.0,
                    deterministic: bool | None = True):
        """Louvain (``Backend.communities``) on ``hg`` itself, or on a level of at most
        ``level_max`` vertices (-1: ``community_level_max(k)``, see
        ``community_level_vertices``), projected back to ``hg``. ``deterministic``: True (the
        default) gives the same communities on any threads; False runs the local moving of
        the levels of 4,096+ nodes in asynchronous passes when the call has two threads or
        more (``louvain_is_async``: the communities depend on the threads' timing); None
        does so from ``async_louvain_min_threads`` threads on."""
        maps = []
        cur = hg
        limit = self.community_level_max(k) if level_max < 0 else int(level_max)
        while 0 < limit < cur.n:
            cmap, nc = self.cluster_hypergraph(cur, cur.total_weight, max_net_size=max_net_size,
                                               max_shrink=4.0, seed=seed)
            if nc > 0.9 * cur.n:
                break
            maps.append(cmap)
            cur = self.contract_hypergraph(cur, cmap, nc)
        _cpu.set_louvain_order_run(int(LOUVAIN_ORDER_RUN))
        comm = _cpu.louvain_communities(
            cur.eptr, cur.eind, cur.ewgt, cur.vptr, cur.vind, cur.vwgt, int(max_net_size),
            int(max_levels), int(max_passes), float(min_move_fraction), int(seed),
            float(resolution), int(max_weight), int(sub_rounds), bool(self.community_prune),
            str(graph), str(edge_weight), float(min_pass_gain),
            int(self.community_sub_round_min_arcs), int(self.community_sub_round_rows_per_thread),
            int(self.community_barrier_spin_us), self.louvain_is_async(deterministic),
        )
        for cmap in reversed(maps):
            comm = comm[cmap]
        return comm

    def graph_communities(self, g: GraphArrays, *, max_levels: int = 8, max_passes: int = 8,
                          min_move_fraction: float = 0.01, seed: int = 0,
                          resolution: float = 1.0, max_weight: int = 0, sub_rounds: int = 0,
                          min_pass_gain: float = 0.0, deterministic: bool | None = True):
        """Louvain on a graph level's own adjacency: the communities ``communities`` gives on
        its edges as 2-pin nets with the clique expansion (the same ids where the local moving
        is deterministic), without building the nets or the expansion. ``deterministic``: as
        for ``communities``."""
        _cpu.set_louvain_order_run(int(LOUVAIN_ORDER_RUN))
        return _cpu.louvain_graph_communities(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, int(max_levels), int(max_passes),
            float(min_move_fraction), int(seed), float(resolution), int(max_weight),
            int(sub_rounds), bool(self.community_prune), float(min_pass_gain),
            int(self.community_sub_round_min_arcs), int(self.community_sub_round_rows_per_thread),
            int(self.community_barrier_spin_us), self.louvain_is_async(deterministic),
        )

    #: ``communities`` takes ``deterministic`` (asynchronous local moving).
    async_louvain = True
    #: From this many OpenMP threads on, ``communities(deterministic=None)`` (what
    #: ``Config.deterministic = None`` passes) runs Louvain's local moving in asynchronous
    #: passes: the threads take chunks of 256 vertices of the seeded order, each vertex
    #: chooses against the communities as the other threads leave them and moves at once (its
    #: community's weight cap reserved by a compare-and-swap), on every level of 4,096+ nodes,
    #: instead of one vertex after the other (levels of fewer than
    #: ``community_sub_round_min_arcs`` arcs) or in synchronous sub-rounds. The communities
    #: then depend on the threads' timing (``Config.deterministic = True`` keeps the
    #: synchronous passes; 0 here: never), as Mt-KaHyPar's and KaMinPar's default
    #: modes and the graph path's label propagation do. The ``small`` suite at k = 2, 8, 64,
    #: seeds 0-1 (BENCHMARKS.md, "Louvain's local moving in asynchronous passes"): on the
    #: 2-core VM's 2 threads 0.92x the time at 0.998x the cut, on the H200 machine's 16
    #: threads 0.86x the time (k = 2: 0.81x; Louvain 0.54x) at 0.998x the cut.
    async_louvain_min_threads = 2

    #: ``cluster_hypergraph`` takes ``asynchronous`` (asynchronous joins).
    async_cluster = True
    #: From this many OpenMP threads on, ``Config.deterministic = None`` clusters the
    #: hypergraph levels of 4,096+ vertices with asynchronous joins (``cluster_hypergraph(
    #: asynchronous=True)``: the threads take chunks of 256 vertices of the seeded order, each
    #: vertex rates against the clusters as they are and joins at once, claiming itself and its
    #: target by compare-and-swap and reserving the weight cap on the cluster), instead of one
    #: vertex after the other or in synchronous sub-rounds (``cluster_rounds``); 0: never.
    #: ``Config.deterministic = False`` does so from 2 threads on, True never. BENCHMARKS.md,
    #: "Asynchronous clustering of hypergraphs": on 16 threads (H200 machine, seed 0) whole
    #: runs took 0.91x the time on ``large`` (the clustering 0.70x) and 0.97x on ``small`` at
    #: 0.999x / 0.998x the cut; on the 2-core VM's 2 threads (``small``, seeds 0-3) 0.97x at
    #: 1.010x the cut (1.006x without cholesky_mc's k = 2, whose cut moves by 2x with the
    #: seed), too little for the cut there. Hence from 16 threads, the count measured to pay;
    #: fewer keep the synchronous clustering (8 are not measured).
    async_cluster_min_threads = 16

    def cluster_is_async(self, deterministic: bool | None = None) -> bool:
        """Whether the clustering of a run with ``Config.deterministic = deterministic`` joins
        asynchronously on this thread's OpenMP threads: False for True; for False, on two
        threads or more; for None, from ``async_cluster_min_threads`` threads on."""
        return _asynchronous(deterministic, self.async_cluster_min_threads)

    def louvain_is_async(self, deterministic: bool | None = None) -> bool:
        """Whether ``communities(deterministic=...)`` runs asynchronous local moving on this
        thread's OpenMP threads: False for True; for False, on two threads or more; for None,
        from ``async_louvain_min_threads`` threads on."""
        return _asynchronous(deterministic, self.async_louvain_min_threads)

    #: ``Config.community_level_vertices = -1`` on this backend (``community_level_max``):
    #: 0, Louvain on the input itself. N > 0: the input is first coarsened by heavy-edge
    #: clustering (no communities, at most 4x fewer vertices per level, as the GPU backend does
    #: before its Louvain) to a level of at most N vertices, and Louvain's communities of that
    #: level are projected back: fewer vertices for Louvain's local moving, which runs one
    #: vertex after the other below ``sub_round_min_vertices``; the communities differ, and so
    #: does the cut.
    community_level_vertices = 0

    def community_level_max(self, k: int) -> int:
        """The most vertices of the level Louvain runs on (0: the input itself), for a
        partition into ``k`` blocks: ``community_level_vertices``."""
        return int(self.community_level_vertices)

    def vertices_without_nets(self, hg: HypergraphArrays, min_size: int, max_size: int):
        """uint8 per vertex: 1 where none of its nets has ``min_size`` to ``max_size`` pins
        (OpenMP)."""
        return _cpu.vertices_without_nets(hg.eptr, hg.vptr, hg.vind, int(min_size),
                                          int(max_size))

    #: ``Config.community_graph = "auto"`` on this backend (``default_community_graph``): the
    #: clique expansion. The bipartite graph (Mt-KaHyPar's) measured 2026-11-27 on the loaded
    #: 2-core VM, 2 threads, seed 0 (BENCHMARKS.md, "Louvain on the bipartite graph"): small
    #: suite at k = 2, 16, 64, 42 runs: cut geomean 1.004x (0.50x-1.19x; 1.028x at k = 64,
    #: ibm08 k = 2 +18.5%), Louvain 1.16x the time; cholesky_mc x4, neuron x4, stereo_vision
    #: x4, ibm10 x8 at k = 2, 64: no Louvain saving (our clique expansion keeps nets of at
    #: most 50 pins, so it is not much larger than the pins), stereo_vision x4 k = 2 cut
    #: +35%. Hence not the default.
    community_graph = "clique"

    def default_community_graph(self, n: int) -> str:
        """``Config.community_graph = "auto"`` on this backend for an input of ``n`` vertices:
        ``community_graph``."""
        return self.community_graph

    #: Synchronous sub-rounds (clustering, Louvain) by default only on levels / inputs of at
    #: least this many vertices: below, the work per sub-round is too small for its barriers
    #: (on the loaded 2-core dev VM, neuron at k = 2 on 2 threads took 4.3 s with sub-rounds on
    #: its 92k vertices against 1.3 s on 1 thread), and the ISPD98 / Titan23 inputs keep their
    #: sequential clustering and Louvain. Many threads lower it (``sub_round_floor``).
    sub_round_min_vertices = 100_000
    #: Under ``Config.deterministic = None`` from this many OpenMP threads on (0: never), the
    #: floor above is ``many_threads_sub_round_min_vertices`` instead: on 16 threads the
    #: sequential clustering and Louvain were most of a run on the ``small`` suite's inputs
    #: (ibm08 at k = 2: Louvain 0.30 s and the clustering 0.24 s of 0.76 s, on one core while
    #: 15 waited). The ``small`` suite's inputs at k = 2, 8, 64 (one seed, the faster of two
    #: runs; BENCHMARKS.md, "Fewer V-cycles and sub-rounds on small inputs"): on 16 threads
    #: (H100 machine) 0.77x the time at 1.003x the cut; six of them at k = 2 and 64 on 8 threads
    #: 0.70x, on 4 0.78x, on the 2-core VM's 2 threads 0.84x, at 0.982x the cut (the cuts do not
    #: depend on the threads). On 1 thread the sub-rounds only add their barriers (1.01x the
    #: time), and with ``deterministic=True`` the size-only rule stays on any threads (the same
    #: partition on any threads); so the result depends on whether the run has one thread or
    #: more, never on how many more.
    many_threads_sub_rounds_min_threads = 2
    many_threads_sub_round_min_vertices = 16_384

    def sub_round_floor(self, deterministic: bool | None = True) -> int:
        """The fewest vertices of an input (and of a level) clustered and run through Louvain
        in sub-rounds by default: ``sub_round_min_vertices``; with ``deterministic`` None or
        False on at least ``many_threads_sub_rounds_min_threads`` OpenMP threads of the calling
        thread, at most ``many_threads_sub_round_min_vertices`` (False, which lets the result
        depend on the threads, never keeps a level sequential that None would not)."""
        floor = int(self.sub_round_min_vertices)
        many = int(self.many_threads_sub_rounds_min_threads)
        if deterministic is not True and many > 0 and int(_cpu.get_num_threads()) >= many:
            floor = min(floor, int(self.many_threads_sub_round_min_vertices))
        return floor
    #: ``sub_rounds`` of :meth:`cluster_hypergraph` on levels of at least
    #: ``sub_round_min_vertices``: on ibm01, 05, 09 and neuron at k = 2, 8, 64 (seeds 0-2,
    #: 2026-11-26, sub-rounds on every level of at least 4096 vertices) 16 sub-rounds gave a
    #: cut geomean of 0.99x against the sequential visit.
    cluster_sub_rounds = 16
    #: On inputs of at least ``sub_round_min_vertices``, every level of at least this many
    #: vertices is clustered in ``cluster_sub_rounds`` sub-rounds (``cluster_rounds``), not only
    #: the levels above ``sub_round_min_vertices``: visited one after the other, the coarse
    #: levels' clustering ran on one thread (neuron x4 on 1 thread: 13% of the clustering's CPU
    #: time went to levels below 100,000 vertices, on 16 threads most of its wall time). The
    #: smaller inputs (the ISPD98 / Titan23 suite) keep their sequential clustering.
    cluster_sub_round_min_level = 4096
    #: Louvain's sub-rounds on inputs of at least ``sub_round_min_vertices``
    #: (``default_community_sub_rounds``).
    community_sub_rounds = 64
    #: Louvain rates a vertex again only once a neighbour has moved since its last rating
    #: (pruned local moving; the result still depends on the seed only). Measured 2026-11-26 on
    #: the 2-core VM: neuron x4 (369k vertices) Louvain 2.09 -> 1.13 s on 1 thread, the same
    #: 292 communities' count; ibm01, 05, 09 and neuron at k = 2, 8, 64, seeds 0-1 (24 runs,
    #: 2 threads): cut geomean 0.983x the unpruned (0.735x-1.102x), Louvain 17.6 -> 11.8 s; on
    #: cholesky_mc x4, neuron x4, stereo_vision x4 and ibm10 x8 at k = 16 and 64, seeds 0-7: cut
    #: 0.997x (64 runs, 0.931x-1.042x), modularity within 0.0003 (BENCHMARKS.md).
    community_prune = True
    #: Louvain's levels run in sub-rounds only where their graph has at least this many arcs
    #: (and ``sub_rounds`` > 0); smaller levels (the aggregated graphs of the later levels) run
    #: sequentially, as a small input does: each sub-round meets two or three barriers of all
    #: the threads, which cost more than the few parallel ratings between them save (a level of
    #: 2^19 arcs takes about 0.03 s a pass on one thread; 64 sub-rounds are 128-192 barriers a
    #: pass). Cut, measured 2026-11-27 on the 2-core VM, 1 thread (``benchmarks/cpu_profile.py
    #: --ks 2,8,64 --threads 1 --seed S --variants '{"old":
    #: {"CpuBackend.community_sub_round_min_arcs": 0}, "new": {}}'``): cholesky_mc (113k
    #: vertices; its second level, about 450k arcs, sequential), k = 2, 8, 64, seeds 0-3:
    #: geomean 1.013x (k = 2 1.039x within its seeds' spread of 300-480, k = 8 1.008x, k = 64
    #: 0.993x); with ``community_pass_gain`` on cholesky_mc x4, neuron x4, stereo_vision x4 and
    #: ibm10 x8 (k = 2, 16, 64, seeds 0-1) 0.993x the previous defaults' cut. Its time is for a
    #: many-core machine to measure. With the sub-rounds' spinning barrier
    #: (``community_barrier_spin_us``), 0 here (sub-rounds on every level of 4,096+ nodes) took
    #: 0.94x the time on 16 threads but cut 1.012x on the `small` suite (k = 2, 8, 64, seeds
    #: 0-3; k = 2 1.027x, cholesky_mc +30%), so the bound stays (BENCHMARKS.md, "Louvain's
    #: barriers: a bounded spin").
    community_sub_round_min_arcs = 1 << 19
    #: A Louvain level's sub-rounds run on at most one OpenMP thread per this many nodes of a
    #: sub-round (0: on every thread). Its rating loop hands out rows in chunks of 64, so with
    #: fewer than 64 rows per thread the other threads get none and only meet the sub-round's
    #: barriers (ibm08's second Louvain level: 14,775 nodes in 64 sub-rounds of 231 rows,
    #: four chunks; its passes took 0.036 s on 16 threads against 0.027 s on 4). The same
    #: communities on any threads. The 14 ``small`` inputs at k = 2, 8, 64 on 16 threads:
    #: 0.969x the time against every thread, 1.007x with 256 rows per thread
    #: (BENCHMARKS.md, "Louvain's sub-rounds on fewer threads").
    community_sub_round_rows_per_thread = 64
    #: N > 0: the threads of a Louvain level's sub-rounds meet at a barrier that spins N
    #: microseconds before sleeping; 0 (the default): at OpenMP's barriers, which sleep at once
    #: under the module's passive wait policy and cost tens of microseconds each (a pass of 64
    #: sub-rounds meets 128-192 of them). The same communities either way. On the idle 16-core
    #: machine 50 us took 0.962x the time (fresh processes, six `small` inputs at k = 2, 8,
    #: 64; communities 0.88x) and 0.980x (the 14 inputs in one process); on the 2-core VM with
    #: another job beside the run, Louvain took 1.0-1.23x the time on 2 threads and 2.1-2.3x
    #: on 16 (BENCHMARKS.md, "Louvain's barriers: a bounded spin"). As with the wait policy,
    #: a machine shared with other work decides the default; a dedicated one may set 50.
    community_barrier_spin_us = 0
    #: ``Config.community_pass_gain = -1`` on this backend (``default_community_pass_gain``):
    #: a Louvain level ends after a
    #: pass that gained less than this fraction of the level's modularity gain so far. On the
    #: enlarged inputs a level's first passes gain most (ibm10 x8, first level: +0.298, +0.048,
    #: +0.016, then about +0.01 a pass up to the pass limit, 8 passes for 4.2 of Louvain's
    #: 6.5 s on one thread) while aggregating finds the large merges at a fraction of the cost.
    #: With 0.1 the first level stops after 2-4 passes and the final modularity stays within
    #: 0.001 (ibm10 x8 0.9464 -> 0.9457, neuron x4 0.9757 -> 0.9755). Measured 2026-11-27 on
    #: the loaded 2-core VM, 1 thread, with ``community_sub_round_min_arcs``, against both off
    #: (``benchmarks/cpu_profile.py --inputs neuron:4,ibm10:8,cholesky_mc:4,stereo_vision:4
    #: --ks 2,16,64 --threads 1 --seed S``, S = 0, 1): cut geomean 0.993x (0.938x-1.061x, 24
    #: runs; by k 0.997x / 0.999x / 0.983x), Louvain 0.81x the time, whole runs 0.83x; Louvain
    #: alone (``benchmarks/louvain_profile.py``, k = 16, best of 2) 0.66-0.93x on 1 and 2
    #: threads. On the small suite it had been left off (2 threads, k = 2, 8, 64, seeds 0-1,
    #: sequential Louvain: 11% of Louvain's time saved at a cut geomean of 1.001x, +1.6% at
    #: k = 8); with the sub-rounds that small inputs now get from 2 threads on
    #: (``sub_round_floor``) the same suite at k = 2, 8, 64 gave 0.997x the cut in 0.92x the
    #: time (2-core VM, 2 threads, seeds 0-1; per case 0.90-1.17x) and 0.993x in 0.90x (H100
    #: machine, 16 threads, one seed), so it holds at every size (BENCHMARKS.md, "Fewer
    #: V-cycles and sub-rounds on small inputs").
    community_pass_gain = 0.1

    def default_community_pass_gain(self, n: int) -> float:
        """``Config.community_pass_gain = -1`` on this backend for an input of ``n`` vertices:
        ``community_pass_gain``, at every size."""
        return float(self.community_pass_gain)

    #: From this many OpenMP threads on (0: never, the default), ``Config.refinement = "auto"``
    #: is ``"jet+fm"`` (Jet, parallel, on every level; FM on levels of at most
    #: ``Config.jet_fm_max_pins`` pins) instead of ``"fm"`` (sequence refinement + FM on every
    #: level, mostly sequential). Off until measured on many cores: on the finest level of
    #: cholesky_mc x4 at k = 16 (1 thread, dev VM) Jet took 2.5 s for a cut of 6,362 where
    #: sequence refinement + FM took 0.6 s for 6,965; with it set, the result depends on whether
    #: the run has fewer threads than this or not.
    jet_min_threads = 0

    #: ``Config.graph_coarsening = "auto"`` / ``graph_refinement = "auto"`` on this backend:
    #: size-constrained label propagation clustering, and label propagation then localized FM
    #: (BENCHMARKS.md, "Graph pipeline").
    default_graph_coarsening = "lp"
    default_graph_refinement = "lp+fm"
    #: ``Config(graph_lp_sub_rounds=-1)``: slices of a label propagation pass (each one's
    #: vertices choose in parallel and move in order).
    default_graph_lp_sub_rounds = 8

    #: ``fm_refine_hypergraph`` takes ``locked`` and ``deterministic`` (the parallel FM).
    parallel_fm = True
    #: From this many OpenMP threads on, ``fm_refine_hypergraph(deterministic=None)`` (what
    #: ``Config.deterministic = None`` passes) runs the parallel localized FM instead of the
    #: sequential one; 0: never. See ``Config.deterministic`` for the measurements behind it.
    parallel_fm_min_threads = 0
    #: The parallel FM runs on levels of at least this many vertices (and two threads or
    #: more); smaller levels get the sequential FM: on the loaded 2-core VM the parallel FM's
    #: per-call setup and barriers on the coarse levels and initial candidates made ibm01's FM
    #: time 27x the sequential FM's at k = 2.
    parallel_fm_min_vertices = 16_384

    def fm_is_deterministic(self, deterministic: bool | None = None) -> bool:
        """Whether ``fm_refine_hypergraph(deterministic=...)`` runs the sequential FM: True and
        False as given; None: the parallel FM only from ``parallel_fm_min_threads`` threads on
        (the calling thread's OpenMP threads)."""
        return _sequential_fm(deterministic, self.parallel_fm_min_threads)

    #: ``fm_refine_graph`` takes ``deterministic`` (the parallel graph FM).
    parallel_graph_fm = True
    #: From this many OpenMP threads on, ``fm_refine_graph(deterministic=None)`` (what
    #: ``Config.deterministic = None`` passes) runs the parallel localized graph FM instead of
    #: the sequential one; 0: never. On 16 threads (H100 machine's CPUs, commit 9faa409, the
    #: `graphs` suite at 2^20, k = 2, 16, 64, one seed) it cut 1.001x the sequential FM's
    #: (0.993-1.020x per case) with the FM's seconds summed over the 12 runs at 0.78 against
    #: 3.42 (whole runs 1.42x faster); on 2 threads of the 2-core VM 1.001x at 2^18
    #: (BENCHMARKS.md, "A parallel FM for graphs").
    parallel_graph_fm_min_threads = 2
    #: The graph FM keeps the connectivity rows of the vertices of degree at least
    #: max(this, k) for the whole call (k entries each, updated when a neighbour moves) and
    #: reads them instead of the adjacency; 0: every row from the adjacency. The same moves
    #: either way in the sequential FM. On the 2-core VM (2 threads, deterministic mode, the
    #: three Titan23 circuits' clique and star models and the 2^18 generated graphs at k = 2,
    #: 16, 64, commit 52e5c60) 16 took the circuit models' FM phase to 0.74x (whole runs
    #: 0.87x) and left the generated graphs' (degrees mostly below 16) at 1.02x; 1 took the
    #: circuit models' to 0.72x but the generated graphs' to 1.05x (1.15x at k = 2)
    #: (BENCHMARKS.md, "Cached connectivity rows in the graph FM").
    graph_fm_cache_min_degree = 16
    #: The graph clustering sums a vertex of more than 64 neighbours into an array of n entries
    #: per thread instead of a hash table on levels of at most this many vertices (0: never);
    #: the same clusters either way.
    graph_lp_dense_labels = 1 << 19

    def graph_fm_is_deterministic(self, deterministic: bool | None = None) -> bool:
        """Whether ``fm_refine_graph(deterministic=...)`` runs the sequential FM: True and False
        as given; None: the parallel FM from ``parallel_graph_fm_min_threads`` threads on (the
        calling thread's OpenMP threads)."""
        return _sequential_fm(deterministic, self.parallel_graph_fm_min_threads)

    #: ``cluster_graph_lp`` takes ``deterministic`` (the asynchronous clustering).
    async_graph_lp = True
    #: From this many OpenMP threads on, ``cluster_graph_lp(deterministic=None)`` (what
    #: ``Config.deterministic = None`` passes) runs the asynchronous passes (no slices; the
    #: clusters depend on the threads' timing) instead of the sliced ones, on levels of at
    #: least ``async_graph_lp_min_vertices`` vertices (smaller ones cost little either way and
    #: keep a small graph's partition the same from run to run; the bound is the parallel graph
    #: FM's, not measured for the clustering); 0: never. Measured on the ``graphs`` set's four
    #: families at 2^20 (BENCHMARKS.md, "Asynchronous label propagation clustering"), not on
    #: the circuits' graph models.
    async_graph_lp_min_threads = 2
    async_graph_lp_min_vertices = 16_384

    def graph_lp_is_deterministic(self, deterministic: bool | None = None, n: int = 0) -> bool:
        """Whether ``cluster_graph_lp(deterministic=...)`` on a level of ``n`` vertices runs the
        sliced passes: True and False as given; None: the asynchronous ones from
        ``async_graph_lp_min_threads`` threads on (the calling thread's OpenMP threads) and
        ``async_graph_lp_min_vertices`` vertices."""
        if deterministic is None and n < self.async_graph_lp_min_vertices:
            return True
        return _sequential_fm(deterministic, self.async_graph_lp_min_threads)

    #: From this many OpenMP threads on, ``lp_refine_graph(deterministic=None)`` runs the
    #: asynchronous refinement (no slices; atomic block weights, the bounds reserved before a
    #: move) on levels of at least ``async_graph_lp_min_vertices`` vertices; 0: never. On 16
    #: threads (the ``graphs`` set's four generated families at 2^20, k = 2, 16, 64) whole
    #: partitions took 0.85x the time at 1.003x the cut (BENCHMARKS.md, "Asynchronous label
    #: propagation refinement, and per-thread buffers apart").
    async_graph_lp_refine_min_threads = 2

    def graph_lp_refine_is_deterministic(self, deterministic: bool | None = None,
                                         n: int = 0) -> bool:
        """Whether ``lp_refine_graph(deterministic=...)`` on a level of ``n`` vertices runs the
        sliced passes: as :meth:`graph_lp_is_deterministic` with
        ``async_graph_lp_refine_min_threads``."""
        if deterministic is None and n < self.async_graph_lp_min_vertices:
            return True
        return _sequential_fm(deterministic, self.async_graph_lp_refine_min_threads)

    #: Whether ``Config.initial_metis_processes = -1`` may start METIS worker processes on
    #: this backend (``context.metis_processes``): no. METIS runs in-process without the GIL,
    #: the seeds and bisections side by side on the run's threads, and the workers' start-up
    #: beside those threads cost more than they saved. H100 machine's 16 cores, 2026-11-27,
    #: each run a fresh process (``benchmarks/fresh_runs.py --ks 8,64 --threads 16 --variants
    #: '{"auto": {}, "w0": {"initial_metis_processes": 0}}'``), none against 15 workers, the
    #: same cuts: cholesky_mc 0.45x / 0.72x the time at k = 8 / 64, cholesky_mc x3 0.55x /
    #: 0.77x, neuron x4 0.54x / 0.81x, ibm10 x8 0.70x / 0.85x; on 2M-vertex inputs neuron x22
    #: 0.82x / 0.96x, cholesky_mc x18 0.88x / 0.90x, ibm10 x29 0.94x / 0.90x (BENCHMARKS.md,
    #: "METIS workers on the C++ backend"). An explicit ``initial_metis_processes`` still
    #: starts them.
    metis_workers = False
    #: Recursive bisection without worker processes (:mod:`igpart.partitioner.initial.recursive`):
    #: at most this many bisections run at once, on threads of this process (each with its
    #: share of the run's threads for its C++ calls), and the interpreter's switch interval is
    #: at most ``rb_switch_interval`` seconds meanwhile (0: unchanged;
    #: :func:`igpart.parallel.threads.gil_switch_interval`). With a bisection per thread, the
    #: small bisections' Python waited for the GIL (3-6x their wall time on 8 and 16 threads
    #: against 2). The 14 ``small`` inputs on 16 threads: 0.935x the time at k = 64 (initial
    #: partitioning 0.869x), within +-4% at k = 8, the same blocks; 8 or 2 bisections at once
    #: were no faster (BENCHMARKS.md, "Recursive bisection on threads: the GIL").
    rb_python_threads = 4
    rb_switch_interval = 0.0002
    #: Inputs of at least this many vertices are "large" (Louvain's clique expansion below).
    LARGE_MIN_N = 250_000
    #: From this k on one V-cycle, none below (``default_vcycles``), whatever the size
    VCYCLE_MIN_K = 64

    def default_vcycles(self, k: int, n: int = 0) -> int:
        """``Config(vcycles=-1)`` on this backend: none below k = ``VCYCLE_MIN_K``, one from it
        on, on inputs of any size (Mt-KaHyPar's DEFAULT runs none; the ``quality`` preset keeps
        four). Large inputs, on 16 threads (H100 machine's CPUs, 2026-11-27, `benchmarks/gpu_ab.py
        --backend cpu --vary-seeds`, seeds 0-1, none against one): at k = 2 cholesky_mc x18,
        neuron x22, ibm10 x29 and stereo_vision x22 cut 1.001-1.008x (geomean 1.005x) in
        0.64-0.71x the time; at k = 16 (the first three) 1.007-1.027x (1.019x) in 0.63-0.75x the
        time. The ``small`` suite's inputs (ISPD98, Titan23; 12-113k vertices) had kept two:
        there, on 16 threads (the same machine, k = 2, 8, 64, one seed, the faster of two runs;
        BENCHMARKS.md, "Fewer V-cycles and sub-rounds on small inputs") none instead of two cut
        1.006x / 1.013x at k = 2 / 8 in 0.63x the time, one instead of two 1.004x at k = 64 in
        0.86x; on the 2-core VM (2 threads, six of them at k = 2 and 64) none cut 1.016x in 0.70x
        the time. The V-cycles had been a third of those runs' time (10.1 of 30.5 s summed on
        16 threads), where igpart's cut was 4% below Mt-KaHyPar's at 2.6x its time."""
        return 0 if int(k) < self.VCYCLE_MIN_K else 1

    #: On inputs of at least ``LARGE_MIN_N`` vertices, Louvain's clique expansion takes the
    #: nets of up to the largest size in [``COMMUNITY_NET_SIZE_MIN``, ``COMMUNITY_NET_SIZE_MAX``]
    #: whose expansion has at most ``COMMUNITY_ARCS_PER_PIN`` arcs per pin of the input (the size
    #: of the bipartite graph Mt-KaHyPar runs Louvain on), raised where needed until the nets
    #: it leaves out (above the cap, up to ``COMMUNITY_NET_SIZE_MAX`` pins) hold at most
    #: ``COMMUNITY_DROPPED_PIN_SHARE`` of the pins of the nets of up to that size; smaller
    #: inputs keep ``COMMUNITY_NET_SIZE_MAX`` (``default_community_max_net_size``).
    COMMUNITY_ARCS_PER_PIN = 2.0
    COMMUNITY_NET_SIZE_MIN = 10
    COMMUNITY_NET_SIZE_MAX = 50
    COMMUNITY_DROPPED_PIN_SHARE = 0.02

    def default_community_max_net_size(self, n: int, net_sizes=None) -> int:
        """``Config(community_max_net_size=-1)`` on this backend for an input of ``n`` vertices
        whose nets have ``net_sizes`` pins: 50 below ``LARGE_MIN_N`` vertices (or without
        sizes); from there on, the largest cap from 10 to 50 whose clique expansion has at
        most 2 arcs per pin (ibm10 x8: 10, 6.2 arcs per pin at 50; stereo_vision x4: 21;
        neuron x4: 29; cholesky_mc x4: 31), raised to the smallest cap whose left-out nets of
        up to 50 pins hold at most 2% of their pins (ISPD98: 15-25; Titan23: 30-40).
        Measured 2026-11-27 on the 2-core VM, 1 thread (BENCHMARKS.md, "Louvain's net-size cap
        and one V-cycle on large inputs"): a cap of 10 took Louvain about half the time on
        ibm10 x8, neuron x4 and cholesky_mc x4 at a cut geomean of 0.981x (k = 16, 64, seeds
        0-1) but cost stereo_vision x4 28-55% of cut at k = 2 (seeds 0-2; up to 6% at k = 16),
        where 20 cost 0-2.7%. The arcs rule alone gave the ISPD98 enlargements a cap of 10,
        which leaves out nets holding 14-42% of their pins: on ibm01 x157 at k = 2 (seed 0) the
        cut was 1,415 against 353 with a cap of 50 and 465 with 20 (Mt-KaHyPar-16: 387), hence
        the bound on the pins left out. On the small suite (2 threads, k = 2, 8, 64, seeds
        0-1) 10 cost 2.6% of cut at k = 8, hence 50 there."""
        cap_max = self.COMMUNITY_NET_SIZE_MAX
        if n < self.LARGE_MIN_N or net_sizes is None:
            return cap_max
        sizes = np.minimum(np.asarray(net_sizes, dtype=np.int64), cap_max + 1)
        counts = np.bincount(sizes, minlength=cap_max + 2)[: cap_max + 1]
        s = np.arange(cap_max + 1, dtype=np.int64)
        arcs = np.cumsum(counts * s * np.maximum(s - 1, 0))  # arcs[c]: nets of up to c pins
        budget = self.COMMUNITY_ARCS_PER_PIN * max(1, int(np.asarray(net_sizes).sum()))
        fits = np.flatnonzero(arcs[self.COMMUNITY_NET_SIZE_MIN:] <= budget)
        cap = self.COMMUNITY_NET_SIZE_MIN + (int(fits[-1]) if fits.size else 0)
        pins = np.cumsum(counts * s)  # pins[c]: pins of the nets of up to c pins (2..c)
        pins = pins - pins[1]
        left_out = pins[cap_max] - pins  # pins of the nets above c, up to cap_max
        ok = np.flatnonzero(left_out[cap:] <= self.COMMUNITY_DROPPED_PIN_SHARE * pins[cap_max])
        return cap + int(ok[0])

    def default_community_sub_rounds(self, n: int, deterministic: bool | None = True) -> int:
        """``Config.community_sub_rounds = -1`` on this backend for an input of ``n`` vertices:
        ``community_sub_rounds`` from ``sub_round_floor(deterministic)`` on, else 0
        (sequential)."""
        return self.community_sub_rounds if n >= self.sub_round_floor(deterministic) else 0

    @property
    def default_refinement(self) -> str:
        """``Config.refinement = "auto"`` on this backend: ``"jet+fm"`` when ``jet_min_threads``
        is set and the calling thread runs its C++ stages on at least that many OpenMP threads
        (``Config.threads`` sets them for a run), else ``"fm"``."""
        on = self.jet_min_threads > 0 and int(_cpu.get_num_threads()) >= self.jet_min_threads
        return "jet+fm" if on else "fm"

    def cluster_rounds(self, level_n: int, input_n: int,
                       deterministic: bool | None = True) -> int:
        """The ``sub_rounds`` of :meth:`cluster_hypergraph` for a level of ``level_n`` vertices
        of a run on an input of ``input_n`` vertices: ``cluster_sub_rounds`` on levels of at
        least ``sub_round_floor(deterministic)`` and, on inputs of that size, on every level of
        at least ``cluster_sub_round_min_level`` vertices; else 0 (one vertex after the other).
        Sizes only with ``deterministic`` True: the result does not depend on the threads."""
        floor = self.sub_round_floor(deterministic)
        if level_n >= floor or (
                input_n >= floor and level_n >= self.cluster_sub_round_min_level):
            return self.cluster_sub_rounds
        return 0

    def cluster_hypergraph(self, hg: HypergraphArrays, max_cluster_weight: int, *,
                           max_net_size: int = 1000, communities=None, max_shrink: float = 2.5,
                           weight_penalty: bool = False, seed: int = 0,
                           sub_rounds: int | None = None, asynchronous: bool = False):
        """``sub_rounds`` (default ``cluster_sub_rounds`` on levels of at least
        ``sub_round_min_vertices``, else 0): 0 visits the vertices one after the other; N > 0
        cuts the visiting order of levels of at least 4096 vertices into N slices whose vertices
        rate their neighbours in parallel (OpenMP) against the clusters before the slice, then
        join in order. Either way the result does not depend on the threads.
        ``asynchronous`` (levels of at least 4096 vertices, on two threads or more; sub_rounds
        then do not matter): the threads take chunks of the visiting order and each vertex
        joins at once against the clusters as they are (``cluster_is_async``); the result
        depends on the threads' interleaving."""
        comm = None if communities is None else _i32(communities)
        rounds = sub_rounds
        if rounds is None:
            rounds = self.cluster_sub_rounds if hg.n >= self.sub_round_min_vertices else 0
        _cpu.set_cluster_order_run(int(CLUSTER_ORDER_RUN))
        _cpu.set_cluster_sub_round_order_run(int(CLUSTER_SUB_ROUND_ORDER_RUN))
        cmap, nc = _cpu.cluster_hypergraph(
            hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, int(max_cluster_weight),
            int(max_net_size), comm, float(max_shrink), bool(weight_penalty), int(seed),
            int(rounds), bool(asynchronous),
        )
        return cmap, int(nc)

    def contract_hypergraph(self, hg: HypergraphArrays, cmap, nc: int) -> HypergraphArrays:
        eptr, eind, ewgt, vptr, vind, vwgt = _cpu.contract_hypergraph(
            hg.eptr, hg.eind, hg.ewgt, hg.vwgt, _i32(cmap), int(nc)
        )
        return HypergraphArrays(
            n=int(nc), m=int(eptr.shape[0] - 1), eptr=eptr, eind=eind, vptr=vptr, vind=vind,
            vwgt=vwgt, ewgt=ewgt, total_weight=hg.total_weight,
        )

    def refine_hypergraph(
        self, hg, parts, k, max_block_weights, objective, *, max_rounds: int = 16, locked=None
    ):
        out, gain = _cpu.refine_hypergraph(
            hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, _i32(parts), int(k),
            _i64(max_block_weights), _objective_code(objective), int(max_rounds),
            locked=_u8(locked),
        )
        return out, int(gain)

    def fm_refine_hypergraph(
        self,
        hg,
        parts,
        k,
        max_block_weights,
        objective,
        *,
        max_rounds: int = 4,
        max_fruitless_moves: int = 250,
        min_improvement: float = 0.001,
        seed: int = 0,
        max_work: float = 0.0,
        locked=None,
        deterministic: bool | None = None,
    ):
        """``locked``: optional per-vertex mask (uint8, 1 = never moved). ``deterministic``:
        True runs the sequential FM (one priority queue; the result depends on the seed only),
        False the parallel localized FM on the OpenMP threads (depends on their interleaving)
        on levels of at least ``parallel_fm_min_vertices`` vertices when there are two threads
        or more (else the sequential FM), None chooses (:meth:`fm_is_deterministic`)."""
        mask = None
        if locked is not None:
            mask = np.ascontiguousarray(locked)
            if mask.dtype != np.bool_ and not np.issubdtype(mask.dtype, np.integer):
                raise ValueError(f"fm_refine_hypergraph: locked must be a 0/1 mask, got dtype "
                                 f"{mask.dtype}")
            mask = (mask != 0).astype(np.uint8)
        out, gain = _cpu.fm_refine_hypergraph(
            hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, _i32(parts), int(k),
            _i64(max_block_weights), _objective_code(objective), int(max_rounds),
            int(max_fruitless_moves), float(min_improvement), int(seed), float(max_work),
            mask, self.fm_is_deterministic(deterministic), int(self.parallel_fm_min_vertices),
        )
        return out, int(gain)

    def jet_refine_hypergraph(
        self,
        hg,
        parts,
        k,
        max_block_weights,
        objective,
        *,
        max_iterations: int = 64,
        patience: int = 12,
        negative_gain_factor: float = 0.25,
        min_improvement: float = 0.001,
        afterburner_max_net_size: int = 256,
        balance_rounds: int = 3,
        seed: int = 0,
        locked=None,
    ):
        out, gain = _cpu.jet_refine_hypergraph(
            hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, _i32(parts), int(k),
            _i64(max_block_weights), _objective_code(objective), int(max_iterations),
            int(patience), float(negative_gain_factor), float(min_improvement),
            int(afterburner_max_net_size), int(balance_rounds), int(seed), locked=_u8(locked),
        )
        return out, int(gain)

    def refine_candidates(self, hg, parts, k, max_block_weights, objective, *,
                          max_rounds: int = 16, locked=None):
        """Every row of the 2-D ``parts`` rebalanced and sequence-refined (``max_rounds``; 0:
        rebalanced only), rows in parallel: (refined rows, objective values). Each row gets what
        ``rebalance_hypergraph`` then ``refine_hypergraph`` give it (C++ backend only)."""
        out, values = _cpu.refine_candidates(
            hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt,
            np.ascontiguousarray(parts, dtype=np.int32), int(k), _i64(max_block_weights),
            _objective_code(objective), int(max_rounds), locked=_u8(locked),
        )
        return out, values

    def rebalance_hypergraph(self, hg, parts, k, max_block_weights, objective, locked=None):
        return _cpu.rebalance_hypergraph(
            hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, _i32(parts), int(k),
            _i64(max_block_weights), _objective_code(objective), locked=_u8(locked),
        )

    # ------------------------------------------------------------------ graphs
    def coarsen_graph(self, g: GraphArrays, max_cluster_weight: int, *, group_size: int = 6,
                      seed: int = 0):
        cmap, nc = _cpu.coarsen_graph(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, int(max_cluster_weight), int(group_size),
            int(seed),
        )
        return cmap, int(nc)

    def contract_graph(self, g: GraphArrays, cmap, nc: int) -> GraphArrays:
        xadj, adjncy, adjwgt, vwgt = _cpu.contract_graph(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, _i32(cmap), int(nc)
        )
        return GraphArrays(n=int(nc), xadj=xadj, adjncy=adjncy, adjwgt=adjwgt, vwgt=vwgt,
                           total_weight=g.total_weight)

    def refine_graph(self, g, parts, k, max_block_weights, *, max_rounds: int = 32):
        out, gain = _cpu.refine_graph(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, _i32(parts), int(k), _i64(max_block_weights),
            int(max_rounds),
        )
        return out, int(gain)

    def cluster_graph_lp(self, g: GraphArrays, max_cluster_weight: int, *, iterations: int = 5,
                         min_clusters: int = 0, seed: int = 0, sub_rounds: int = 8,
                         deterministic: bool | None = True):
        """``deterministic``: True (the default) runs the sliced passes (the clusters depend on
        the seed and ``sub_rounds`` only), False the asynchronous ones, None chooses
        (:meth:`graph_lp_is_deterministic`)."""
        cmap, nc = _cpu.cluster_graph_lp(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, int(max_cluster_weight), int(iterations),
            int(min_clusters), int(seed), int(sub_rounds),
            self.graph_lp_is_deterministic(deterministic, int(g.n)),
            int(self.graph_lp_dense_labels),
        )
        return cmap, int(nc)

    def lp_refine_graph(self, g, parts, k, max_block_weights, *, iterations: int = 5,
                        seed: int = 0, sub_rounds: int = 8, deterministic: bool | None = True):
        """``deterministic``: True (the default) runs the sliced passes (the partition depends
        on the seed and ``sub_rounds`` only), False the asynchronous ones, None chooses
        (:meth:`graph_lp_refine_is_deterministic`)."""
        out, gain = _cpu.lp_refine_graph(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, _i32(parts), int(k), _i64(max_block_weights),
            int(iterations), int(seed), int(sub_rounds),
            self.graph_lp_refine_is_deterministic(deterministic, int(g.n)),
        )
        return out, int(gain)

    def fm_refine_graph(self, g, parts, k, max_block_weights, *, rounds: int = 3,
                        max_fruitless_moves: int = 64, min_improvement: float = 0.001,
                        seed: int = 0, max_work: float = 0.0, gain_seeds: bool = False,
                        deterministic: bool | None = None):
        """``deterministic``: True runs the sequential FM (the result depends on the seed
        only), False the parallel localized FM on the OpenMP threads (the result depends on
        their interleaving) on levels of at least ``parallel_fm_min_vertices`` vertices when
        there are two threads or more, None chooses (:meth:`graph_fm_is_deterministic`)."""
        out, gain = _cpu.fm_refine_graph(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, _i32(parts), int(k), _i64(max_block_weights),
            int(rounds), int(max_fruitless_moves), float(min_improvement), int(seed),
            float(max_work), bool(gain_seeds), self.graph_fm_is_deterministic(deterministic),
            int(self.parallel_fm_min_vertices), int(self.graph_fm_cache_min_degree),
        )
        return out, int(gain)

    def rebalance_graph(self, g, parts, k, max_block_weights):
        return _cpu.rebalance_graph(
            g.xadj, g.adjncy, g.adjwgt, g.vwgt, _i32(parts), int(k), _i64(max_block_weights)
        )

    # ------------------------------------------------------------------ incremental engine
    def dynamic_hypergraph(
        self, eptr, eind, n: int, vwgt, ewgt, parts, k: int, epsilon: float, **options
    ):
        return _cpu.DynamicHypergraph(eptr, eind, n, vwgt, ewgt, parts, k, epsilon, **options)

    def incremental_refiner(self):
        return _cpu.IncrementalRefiner()
