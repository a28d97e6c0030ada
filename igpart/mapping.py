"""Process mapping onto a machine hierarchy (DESIGN §9).

A hierarchy ``a_1:...:a_l`` describes ``k = a_1 * ... * a_l`` processing elements (PEs): ``a_1``
PEs share an innermost group (a node), ``a_2`` nodes a level-2 group (a rack), and so on up to the
whole machine. ``distance = d_1:...:d_l`` is the cost of one unit of communication between two
PEs whose lowest common group is at level ``i``: ``D(p, q) = 0`` for ``p == q``, ``d_1`` for two
PEs of one node, ..., ``d_l`` for PEs that only share the machine. PE ``p`` belongs to the level-i
group ``p // (a_1 * ... * a_i)``.

Objectives (:func:`communication_cost`, recomputed from the PE ids alone):

- graphs: ``J = sum over undirected edges {u, v} of w(u, v) * D(pe(u), pe(v))``, each edge
  counted once (the paper's ``J(C, D, Pi) = sum_{i,j} C_ij D_{Pi(i) Pi(j)}`` sums over ordered
  pairs and is twice this);
- hypergraphs: the weight of a minimum Steiner tree of each net's PE set in the complete target
  graph with edge weights ``D``, times the net's weight (Mt-KaHyPar's ``steiner_tree``
  objective). With non-decreasing distances ``D`` is an ultrametric, Steiner points do not help
  and the tree is the minimum spanning tree of the net's PEs: Kruskal joins the ``g_{i-1}(e)``
  level-(i-1) groups a net touches into its ``g_i(e)`` level-i groups with ``g_{i-1} - g_i``
  edges of weight ``d_i``, so ``cost(e) = w_e * sum_i d_i * (g_{i-1}(e) - g_i(e))`` with
  ``g_0(e)`` the PEs (blocks) the net touches and ``g_l(e) = 1``. For a 2-pin net this is
  ``w_e * D(pe(u), pe(v))``, the graph objective.

The cost splits over the levels of a hierarchical multisection: ``g_{i-1}(e) - g_i(e)`` is the
sum, over the level-i groups ``G`` the net touches, of ``lambda - 1`` of the net restricted to
``G`` in the split of ``G`` into its ``a_i`` subgroups. Each split of :func:`map_processes`
therefore minimises the connectivity objective (km1) of its sub-hypergraph.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError, PartitionError
from .hypergraph import Graph, Hypergraph
from .kernels import _cpu
from .metrics import check_parts, evaluate, max_block_weight
from .subgraphs import level_subgraphs, level_subhypergraphs

MAP_ALGORITHMS = ("hm", "hm-ultra", "two-phase", "im")
ULTRA_SEEDS = 4  # partitioner seeds per multisection of "hm-ultra" (the best km1 is kept)
#: hm-ultra's seeds per split of the later levels (small sub-problems that pay the smaller
#: distances): 2 seeds cost 1.0015x the mapping cost of 4 on ibm01-05 at 4:8:1 (1 seed 1.0034x),
#: 1.0017x on ibm06-10 at 4:8:1 and on ibm01/03/05 at 4:8:2, for half the later levels' work.
ULTRA_LATER_SEEDS = 2
#: partitioner seeds of the first split per algorithm (the best, balanced first and then of least
#: km1, is kept): that split's cut pays the largest distance. "hm": 2. At 4:8:1 on the H100
#: (one run each): on the GPU backend, whose runs vary from seed to seed and run to run, 2
#: seeds instead of 1 cost 0.89x on ibm10 x29, 0.92x on neuron x22 and 0.95x on cholesky_mc
#: x18, and in a later run on ibm10 x29 1.03x; on ibm01-04 (every split on the C++ backend)
#: 1.00 / 1.00 / 0.995 / 0.993x; about 1.2x the time there (speed against Mt-KaHyPar 9.5x ->
#: 7.8x). BENCHMARKS.md, "Process mapping".
FIRST_SPLIT_SEEDS: dict[str, int] = {"hm": 2, "hm-ultra": ULTRA_SEEDS}
#: partitioner settings of the splits per algorithm: (the first split, the later levels' splits).
#: "hm": no V-cycles on the first split (the whole input, whose cut pays the largest distance),
#: the ``speed`` preset on the later ones (no V-cycles, a smaller coarsest level, shorter Louvain
#: and refinement): on ibm01-05 at 4:8:1, 0.4x the time of the default settings at a cost 1.016x
#: Mt-KaHyPar's mapping instead of 0.999x (the speed preset on every split: 0.3x at 1.055x);
#: "hm-ultra": no V-cycles (the best of its seeds makes up for them: ibm01-03 0.97x
#: Mt-KaHyPar's cost with 4 seeds on every split, 0.96x with V-cycles, at less than half the
#: time). BENCHMARKS.md, "Process mapping".
SPLIT_EFFORT: dict[str, tuple[dict, dict]] = {
    "hm": ({"vcycles": 0}, {"preset": "speed"}),
    "hm-ultra": ({"vcycles": 0}, {"vcycles": 0}),
}
#: Splits of the C++ backend run in the process-wide worker processes
#: (:mod:`igpart.parallel.metis_pool`) when a mapping has at least this many threads (and the
#: machine as many usable CPUs), one task per split and seed; below it in Python threads.
SPLIT_PROCESSES_MIN_THREADS = 4
#: ... and an input of at least this many vertices (a smaller one's splits take milliseconds:
#: not worth starting the processes for).
SPLIT_PROCESSES_MIN_VERTICES = 5_000
#: The most worker processes the splits use (the partitioner's METIS pool is capped alike).
SPLIT_PROCESSES_MAX = 16
#: With worker processes, a level of at most this many tasks (splits x seeds; ``hm``'s first
#: split is one) runs them in threads of this process, the threads shared among them, with the
#: METIS calls and recursive bisection's subtrees of their initial partitioning in the workers;
#: a level of more tasks runs each whole in a worker.
SPLIT_HERE_MAX_TASKS = 1
#: On a device backend (GPU), the splits of at most this many vertices run on the C++ backend
#: (side by side, as there), the larger ones on the device; 0: every split on the device. On
#: the H100 machine (16 threads) the GPU backend's ``hm`` took 0.66-1.21 s on ibm01-04 (12-27k
#: vertices; commit a46e865), the C++ backend's 0.33-0.52 s on ibm01-03 (799f5ab): every split
#: there is small and each stage's fixed costs on the device dominate (BENCHMARKS.md, "Process
#: mapping"). The bound itself is not tuned on the device yet.
HOST_SPLIT_MAX_VERTICES = 50_000


# ------------------------------------------------------------------------------- hierarchy
def check_hierarchy(hierarchy, distance) -> tuple[tuple[int, ...], np.ndarray]:
    """Validated ``(hierarchy, distance)``: positive integer group sizes, innermost first, and
    as many positive, non-decreasing distances (int64 when all are integers, else float64).

    Decreasing distances are rejected: with them ``D`` is no ultrametric, the closed form of the
    Steiner tree no longer holds and crossing an outer level would be cheaper than an inner one,
    which no machine hierarchy describes."""
    a = _sequence(hierarchy, "hierarchy")
    d = _sequence(distance, "distance")
    if len(a) != len(d):
        raise InputError(
            f"hierarchy has {len(a)} levels but distance has {len(d)}: give one distance per level"
        )
    sizes = []
    for i, x in enumerate(a):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
            raise InputError(f"hierarchy level {i + 1} must be a positive integer, got {x!r}")
        sizes.append(int(x))
    dist = []
    for i, x in enumerate(d):
        if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
            raise InputError(f"distance of level {i + 1} must be a number, got {x!r}")
        if not math.isfinite(float(x)) or x <= 0:
            raise InputError(f"distance of level {i + 1} must be positive, got {x!r}")
        dist.append(x)
    for i in range(1, len(dist)):
        if dist[i] < dist[i - 1]:
            raise InputError(
                f"distances must be non-decreasing from the innermost level outwards: level "
                f"{i + 1} has {dist[i]} < {dist[i - 1]} of level {i}"
            )
    if all(float(x).is_integer() for x in dist):
        darr = np.array([int(x) for x in dist], dtype=np.int64)
    else:
        darr = np.array(dist, dtype=np.float64)
    return tuple(sizes), darr


def _sequence(x, name: str) -> list:
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
        raise InputError(f"{name} must be a sequence of numbers, got {x!r}")
    if len(x) == 0:
        raise InputError(f"{name} must have at least one level")
    return list(x)


def _prefix(hierarchy: tuple[int, ...]) -> list[int]:
    """``prefix[i]`` = PEs per level-i group: 1, a_1, a_1*a_2, ..., k."""
    out = [1]
    for a in hierarchy:
        out.append(out[-1] * a)
    return out


def parse_levels(text: str, name: str, kind=int) -> tuple:
    """``"4:8:2"`` -> ``(4, 8, 2)``; InputError naming ``name`` otherwise."""
    try:
        values = [kind(t) for t in str(text).split(":")]
    except ValueError:
        raise InputError(
            f"{name}: expected colon-separated numbers like 4:8:2, got '{text}'"
        ) from None
    return tuple(int(x) if isinstance(x, float) and x.is_integer() else x for x in values)


# ------------------------------------------------------------------------------------ cost
def level_costs(h: Hypergraph | Graph, parts, hierarchy, distance) -> np.ndarray:
    """Communication cost per level (index i: the part paid at distance ``d_{i+1}``); their sum
    is :func:`communication_cost`. ``parts`` holds one PE id in ``[0, prod(hierarchy))`` per
    vertex."""
    a, d = check_hierarchy(hierarchy, distance)
    pre = _prefix(a)
    k = pre[-1]
    if not isinstance(h, (Hypergraph, Graph)):
        raise InputError(f"expected a Hypergraph or Graph, got {type(h).__name__}")
    pe = check_parts(parts, h.n, k).astype(np.int64)
    out = np.zeros(len(a), dtype=d.dtype)
    if isinstance(h, Graph):
        u, v, w = h.edge_list()
        pu, pv = pe[u], pe[v]
        # the edge pays d_i where i is the lowest level whose groups of u and v coincide
        meet = np.zeros(u.size, dtype=np.int64)
        for i in range(1, len(a) + 1):
            meet[pu // pre[i - 1] != pv // pre[i - 1]] = i
        for i in range(1, len(a) + 1):
            out[i - 1] = d[i - 1] * int(w[meet == i].sum())
        return out
    # a net touching lambda_i level-i groups pays d_i (lambda_{i-1} - lambda_i): summed over the
    # nets, d_i times the difference of the km1 of the level-(i-1) groups and of the level-i
    # groups as partitions (one parallel pass over the pins per level, in C++)
    km1 = [_cpu.hypergraph_objectives(h.eptr, h.eind, h.ewgt,
                                      (pe // pre[i]).astype(np.int32), k // pre[i])[1]
           for i in range(len(a) + 1)]  # fmt: skip
    for i in range(1, len(a) + 1):
        out[i - 1] = d[i - 1] * (int(km1[i - 1]) - int(km1[i]))
    return out


def communication_cost(h: Hypergraph | Graph, parts, hierarchy, distance) -> int | float:
    """The mapping objective of ``parts`` (PE ids) on the hierarchy, recomputed from scratch:
    graphs ``sum over edges w(u,v) D(pe(u), pe(v))``, hypergraphs the Steiner tree cost (see the
    module docstring). An int for integer distances, else a float."""
    c = level_costs(h, parts, hierarchy, distance)
    return c.sum().item()


# ---------------------------------------------------------------------------------- result
@dataclass
class Mapping:
    """Vertices placed on the PEs of a hierarchy, with the cost and the balance of the placement.

    ``parts``: PE id per vertex (the block of a k-way partition); ``groups[i]`` the id of the
    vertex's level-i group (row 0 is ``parts``, row i is ``parts // (a_1*...*a_i)``; the whole
    machine, level l, is left out). ``cost`` is :func:`communication_cost`, ``level_costs`` its
    part per level; ``cut``, ``km1``, the block weights and the balance are those of the k-way
    partition ``parts`` against ``(1 + epsilon) * ceil(total / k)``.
    """

    parts: np.ndarray
    hierarchy: tuple[int, ...]
    distance: tuple
    k: int
    epsilon: float
    cost: int | float
    level_costs: list
    cut: int
    km1: int
    imbalance: float
    block_weights: np.ndarray
    max_block_weight: int
    balanced: bool
    seconds: float = 0.0
    algorithm: str = "hm"
    backend: str = "cpu"
    seed: int = 0
    splits: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_parts(cls, h, parts, hierarchy, distance, epsilon: float = 0.03, **info) -> Mapping:
        """Builds the result, computing every figure from ``parts`` and ``h``."""
        a, d = check_hierarchy(hierarchy, distance)
        k = int(np.prod(a))
        parts = np.ascontiguousarray(check_parts(parts, h.n, k), dtype=np.int32)
        lc = level_costs(h, parts, a, d)
        m = evaluate(h, parts, k, epsilon)
        return cls(
            parts=parts, hierarchy=a, distance=tuple(d.tolist()), k=k, epsilon=float(epsilon),
            cost=lc.sum().item(), level_costs=lc.tolist(), cut=m["cut"], km1=m["km1"],
            imbalance=m["imbalance"], block_weights=m["block_weights"],
            max_block_weight=m["max_block_weight"], balanced=m["balanced"], **info,
        )  # fmt: skip

    @property
    def groups(self) -> np.ndarray:
        """(levels, n) int32: row i the level-i group of each vertex, row 0 the PE."""
        pre = _prefix(self.hierarchy)[:-1]
        return np.stack([self.parts // p for p in pre]).astype(np.int32)

    def to_dict(self, with_parts: bool = False) -> dict[str, Any]:
        """JSON-ready summary (``parts`` included on request)."""
        d = {
            "hierarchy": list(self.hierarchy),
            "distance": list(self.distance),
            "k": self.k,
            "epsilon": self.epsilon,
            "algorithm": self.algorithm,
            "cost": self.cost,
            "level_costs": list(self.level_costs),
            "cut": self.cut,
            "km1": self.km1,
            "imbalance": round(self.imbalance, 6),
            "balanced": self.balanced,
            "max_block_weight": self.max_block_weight,
            "seconds": round(self.seconds, 6),
            "timings": {key: round(v, 6) for key, v in self.timings.items()},
            "backend": self.backend,
            "seed": self.seed,
            "splits": self.splits,
        }
        if with_parts:
            d["parts"] = self.parts.tolist()
        return d

    def __repr__(self) -> str:
        levels = ":".join(map(str, self.hierarchy))
        return (
            f"Mapping(hierarchy={levels}, cost={self.cost}, km1={self.km1}, "
            f"imbalance={self.imbalance:.4f}, balanced={self.balanced}, {self.seconds:.3f}s)"
        )


# ---------------------------------------------------------------------------------- driver
def adaptive_epsilon(epsilon: float, total: int, k: int, sub_total: int, sub_k: int,
                     depth: int, parts: int) -> float:  # fmt: skip
    """Equation 2 of the GPU process mapping paper (after SharedMap):
    ``eps' = ((1 + eps) * k' * c(V) / (k * c(V')))^(1/d) - 1`` for a group of weight ``c(V')``
    that ends up on ``k'`` PEs after ``d`` more splits, capped so that each of the ``parts``
    children of this split can still hold its ``k' / parts`` PEs of weight at most the global
    bound ``(1 + eps) * ceil(c(V) / k)`` (integer rounding would otherwise let the final
    partition exceed it by a unit). Never negative."""
    if sub_total <= 0:
        return float(epsilon)
    eps = ((1.0 + epsilon) * sub_k * total / (k * sub_total)) ** (1.0 / depth) - 1.0
    child_cap = (sub_k // parts) * max_block_weight(total, k, epsilon)
    cap = (child_cap + 0.5) / (-(-sub_total // parts)) - 1.0  # floor((1 + cap) * ...) = child_cap
    return max(0.0, min(eps, cap))


def map_processes(
    h: Hypergraph | Graph,
    hierarchy=(4, 8, 2),
    distance=(1, 10, 100),
    epsilon: float = 0.03,
    algorithm: str = "hm",
    backend="auto",
    seed: int = 0,
    threads: int = 0,
    cluster: Any = None,
) -> Mapping:
    """Maps the vertices of ``h`` onto the ``k = prod(hierarchy)`` PEs of a machine hierarchy
    (innermost level first, e.g. 4 GPUs per node, 8 nodes per rack, 2 racks) with ``distance``
    the cost of crossing each level, minimising :func:`communication_cost` under the balance
    bound ``(1 + epsilon) * ceil(total / k)`` per PE.

    ``algorithm``: ``"hm"``, hierarchical multisection (GPU-HM: split into the outermost level's
    groups first, then each group's sub-(hyper)graph into the next level's, each split by
    :func:`igpart.partition` on the km1 objective with the adaptive imbalance of
    :func:`adaptive_epsilon` and the settings of :data:`SPLIT_EFFORT`, the sub-problems of a level
    extracted together, on the backend's device, by :mod:`igpart.subgraphs`; the splits share the
    input's Louvain communities, found once; those on the C++ backend, which runs the splits of at
    most ``HOST_SPLIT_MAX_VERTICES`` vertices on a device backend too, run side by side, in worker
    processes from ``SPLIT_PROCESSES_MIN_THREADS`` threads on, see :func:`_run_splits`);
    ``"hm-ultra"``: the same with more effort (its :data:`SPLIT_EFFORT`) and ``ULTRA_SEEDS`` seeds
    per split (``ULTRA_LATER_SEEDS`` below the first split), keeping the one of least km1
    (balanced first, then the first seed); ``"two-phase"``, the classic baseline:
    a plain k-way partition (km1), then its blocks placed greedily on the PEs
    (:func:`greedy_placement`). ``"im"``, integrated mapping (GPU-IM,
    :func:`igpart.mapping_im.integrated_mapping`): the mapping objective inside the multilevel
    pipeline: coarsening by the backend within the Louvain communities (to ``CONTRACTION_LIMIT * k``
    vertices), hierarchical multisection of the coarsest level (the multilevel partitioner's first
    split, METIS for the later ones), then on every level a label propagation with the mapping gain
    (:func:`igpart.mapping_im.refine_mapping`, its rounds in a C++ kernel on the host on both
    backends); its multisection runs on the coarsest level only, so it costs less time than
    ``hm`` where that level is a small share of the input; on the ISPD98 inputs (12-70k vertices)
    it takes about ``hm``'s time at 1.03x its cost (BENCHMARKS.md, "Process mapping").
    ``backend``, ``seed`` and ``threads`` (0: the default) go to every partitioner call, which
    runs on the C++ or the GPU backend (``"auto"``: chosen once, by the size of ``h``, as
    :func:`igpart.kernels.get_backend` does with ``pins``). ``cluster`` (``hm``,
    ``hm-ultra``): the splits of each level run as tasks of a dask cluster (a
    ``distributed.Client``, an address, ``"local"`` or ``"local:N"``; :mod:`igpart.distributed`),
    each group's sub-(hyper)graph sent to a worker once; the mapping is the same as here.

    Raises InputError for a bad hierarchy or distance (see :func:`check_hierarchy`), an unknown
    algorithm, a negative epsilon or ``k`` larger than the number of vertices.
    """
    from .partitioner.context import check_arguments as _validate

    t0 = time.perf_counter()
    if not isinstance(h, (Hypergraph, Graph)):
        raise InputError(f"expected a Hypergraph or Graph, got {type(h).__name__}")
    a, d = check_hierarchy(hierarchy, distance)
    if algorithm not in MAP_ALGORITHMS:
        raise InputError(
            f"unknown mapping algorithm '{algorithm}' (choose from {', '.join(MAP_ALGORITHMS)})"
        )
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
        raise InputError(f"threads must be a non-negative integer, got {threads!r}")
    k = int(np.prod(a))
    if k > h.n:
        raise InputError(
            f"the hierarchy {':'.join(map(str, a))} has k = {k} PEs, more than the {h.n} vertices"
        )
    _validate(h, k, epsilon, "km1", seed)
    epsilon = float(epsilon)
    seeds = [int(seed) + s for s in range(ULTRA_SEEDS if algorithm == "hm-ultra" else 1)]
    first_seeds = [int(seed) + s for s in range(FIRST_SPLIT_SEEDS.get(algorithm, len(seeds)))]
    later_seeds = ULTRA_LATER_SEEDS if algorithm == "hm-ultra" else 0
    config = {"threads": int(threads)} if threads else None
    if backend == "auto" and cluster is None:  # by the input's size, once for every split
        from .kernels import get_backend, input_pins

        backend = get_backend("auto", pins=input_pins(h)).name
    if algorithm == "two-phase":
        if cluster is not None:
            raise InputError("the two-phase mapping does not run on a cluster (hm does)")
        pe, splits, used, timings = _two_phase(h, a, d, epsilon, backend, int(seed), config)
    elif algorithm == "im":
        if cluster is not None:
            raise InputError("the integrated mapping does not run on a cluster (hm does)")
        from .mapping_im import integrated_mapping

        hyper = h.to_hypergraph() if isinstance(h, Graph) else h
        pe, splits, used, timings, _ = integrated_mapping(hyper, a, d, epsilon, backend,
                                                          int(seed), config, _multisection)
    elif cluster is not None:
        from .distributed import connect

        with connect(cluster) as client:
            pe, splits, used, timings = _multisection(h, a, epsilon, backend, seeds, config,
                                                      client,
                                                      effort=SPLIT_EFFORT.get(algorithm),
                                                      first_seeds=first_seeds,
                                                      later_seeds=later_seeds)  # fmt: skip
    else:
        pe, splits, used, timings = _multisection(h, a, epsilon, backend, seeds, config,
                                                  effort=SPLIT_EFFORT.get(algorithm),
                                                  first_seeds=first_seeds,
                                                  later_seeds=later_seeds)  # fmt: skip
    seconds = time.perf_counter() - t0
    return Mapping.from_parts(
        h, pe, a, d, epsilon, seconds=seconds, algorithm=algorithm,
        backend=used or ("cpu" if backend == "auto" else str(backend)), seed=int(seed),
        splits=splits, timings=timings,
    )  # fmt: skip


def _multisection(h, a: tuple[int, ...], epsilon: float, backend, seeds: list[int], config,
                  client=None, partitioner: str | tuple[str, str] = "multilevel",
                  effort: tuple[dict, dict] | None = None,
                  first_seeds: list[int] | None = None, later_seeds: int = 0):  # fmt: skip
    """Algorithm 2 of the paper, level by level from the outermost: every group of the current
    level is split into the next level's count (by :func:`igpart.partition` with
    ``algorithm=partitioner``, or a pair: the first split's and the later ones'; each split a
    task of ``client``'s cluster when given); returns (PE ids, splits, backend, timings:
    ``partition`` and its part ``partition_level{i}`` per level, ``extract``, ``communities``).
    ``effort``: partitioner settings added to ``config`` for the first split (the whole input)
    and for the splits of the later levels; ``first_seeds``: the first split's seeds (default
    ``seeds``); ``later_seeds`` (0: all): the first of ``seeds`` that the later levels' splits
    use. The multilevel splits of a hypergraph share the input's Louvain communities, found once
    (:func:`_input_communities`). On a device backend the splits of at most
    ``HOST_SPLIT_MAX_VERTICES`` vertices run on the C++ backend."""
    from .partitioner.initial.recursive import dense_labels

    k = int(np.prod(a))
    total = int(h.vwgt.sum())
    pe = np.zeros(h.n, dtype=np.int64)  # the group id at the current level, mixed radix
    ngroups, splits, used_backend = 1, 0, None
    timings = {"partition": 0.0, "extract": 0.0}
    backend_name = getattr(backend, "name", backend) if client is not None else backend
    t = time.perf_counter()
    extract = _level_extractor(h, backend if client is None else "cpu")
    timings["extract"] += time.perf_counter() - t
    communities = None
    multilevel = "multilevel" in (partitioner if isinstance(partitioner, tuple)
                                  else (partitioner,))  # fmt: skip
    processes = 0
    on_host = _host_backend(backend)
    if client is None and not on_host:  # the device's name, whichever backend ran the splits
        from .kernels import get_backend

        used_backend = get_backend(backend).name
    if client is None and multilevel and (on_host or HOST_SPLIT_MAX_VERTICES > 0):
        processes = split_processes(int((config or {}).get("threads") or 0), h.n)
        if processes:  # the workers import while the communities and the first split run
            from .parallel import metis_pool

            metis_pool.get_pool(processes, low_priority=True)
    if multilevel and isinstance(h, Hypergraph):
        t = time.perf_counter()
        first = next(x for x in reversed(a) if x > 1) if k > 1 else 1
        first_config = {**(config or {}), **(effort[0] if effort else {})}
        communities = _input_communities(h, first, backend if client is None else "cpu",
                                         first_config, seeds[0])  # fmt: skip
        timings["communities"] = time.perf_counter() - t
    for level in range(len(a), 0, -1):
        parts_here = a[level - 1]
        if parts_here == 1:
            continue
        sub_k = int(np.prod(a[:level]))
        depth = sum(1 for x in a[:level] if x > 1)
        level_config = config
        split_partitioner = partitioner
        if isinstance(partitioner, tuple):
            split_partitioner = partitioner[0 if ngroups == 1 else 1]
        if effort is not None:
            level_config = {**(config or {}), **effort[0 if ngroups == 1 else 1]}
        t = time.perf_counter()
        subs = list(extract(pe, ngroups).groups())
        timings["extract"] += time.perf_counter() - t
        new = pe * parts_here
        t = time.perf_counter()
        jobs = []
        for g, verts, sub in subs:
            if verts.size == 0:
                continue
            if verts.size <= parts_here:  # at most one vertex per child
                new[verts] += np.arange(verts.size)
                continue
            eps = adaptive_epsilon(epsilon, total, k, int(sub.vwgt.sum()), sub_k, depth,
                                   parts_here)  # fmt: skip
            labels = None if communities is None else dense_labels(communities[verts])
            split_backend = backend_name
            if client is None and not on_host and sub.n <= HOST_SPLIT_MAX_VERTICES:
                split_backend = "cpu"  # a small split: the device's fixed costs per stage dominate
            if ngroups == 1:
                level_seeds = first_seeds or seeds
            else:
                level_seeds = seeds if later_seeds <= 0 else seeds[:later_seeds]
            jobs.append((verts, (sub, parts_here, eps, split_backend, level_seeds, level_config,
                                 level, g, split_partitioner,
                                 labels if split_partitioner == "multilevel" else None)))
        if client is None:
            results = _run_splits(jobs, config, processes)
        else:
            from .distributed import run_tasks

            results = run_tasks(client, best_split, [args for _, args in jobs], progress=False)
        for (verts, _), (parts, used) in zip(jobs, results):
            new[verts] += parts
            if used_backend in (None, "cpu"):  # the device's name when some split ran there
                used_backend = used
            splits += 1
        timings[f"partition_level{level}"] = time.perf_counter() - t
        timings["partition"] += timings[f"partition_level{level}"]
        pe, ngroups = new, ngroups * parts_here
    return pe, splits, used_backend, timings


def split_processes(threads: int, n: int) -> int:
    """The worker processes that run the multilevel splits of a mapping of an input of ``n``
    vertices on ``threads`` threads (0: ``usable_cpus()``) on the C++ backend:
    ``min(threads, cpus, SPLIT_PROCESSES_MAX)`` from ``SPLIT_PROCESSES_MIN_THREADS`` threads and
    ``SPLIT_PROCESSES_MIN_VERTICES`` vertices on, else 0 (Python threads of this process)."""
    from .parallel.threads import usable_cpus

    if n < SPLIT_PROCESSES_MIN_VERTICES:
        return 0
    cpus = usable_cpus()
    threads = int(threads) or cpus
    count = min(threads, cpus, SPLIT_PROCESSES_MAX)
    return count if count >= SPLIT_PROCESSES_MIN_THREADS else 0


def _run_splits(jobs: list, config, processes: int = 0) -> list:
    """:func:`best_split` of every job of one level, the jobs' results in their order (each
    job's backend is its fourth argument). The splits on the C++ backend, and each split's seeds,
    run side by side, each with its share of the threads: in ``processes`` worker processes of
    :mod:`igpart.parallel.metis_pool` (multilevel splits; a task whose worker cannot run it,
    e.g. while none has finished its start-up, runs here), else in Python threads (their C++
    stages release the GIL, METIS and the Python between them do not); the splits on a device
    backend run one after the other on this thread meanwhile. One small partition uses few of a
    machine's cores (at 4:8:4 on 2 threads, with the shared communities, the threads made ibm03 /
    ibm05 1.5x faster; BENCHMARKS.md, "Process mapping").
    Each seed is its own partition and the best is chosen in the order of the seeds, so the
    result is that of one split and seed after the other, whatever the threads, processes and
    the order the tasks finish in (each partition repeats itself where its stages are
    synchronous: ``Config.deterministic = True``, or one thread)."""
    from .parallel.threads import usable_cpus

    host = {i for i in range(len(jobs)) if _host_backend(jobs[i][1][3])}
    threads = int((config or {}).get("threads") or 0) or usable_cpus()
    # one task per split and seed, the largest splits first (the last to start is a small one)
    tasks = [(i, s) for i in sorted(host, key=lambda i: -jobs[i][1][0].n)
             for s in range(len(jobs[i][1][4]))]
    workers = max(1, min(len(tasks), max(processes, 0) or threads))
    share = max(1, threads // workers)

    def run(task):
        i, s = task
        sub, parts, eps, be, seeds, cfg, level, group, *rest = jobs[i][1]
        cfg = {**(cfg or {}), "threads": share}
        if processes and len(tasks) <= SPLIT_HERE_MAX_TASKS:  # METIS in the workers
            cfg["initial_metis_processes"] = processes
        elif processes and (rest[0] if rest else "multilevel") == "multilevel":
            done = _split_in_worker(processes, sub, parts, eps, seeds[s], cfg, level, group,
                                    *rest)  # fmt: skip
            if done is not None:
                return done
        return split_candidate(sub, parts, eps, be, seeds[s], cfg, level, group, *rest)

    out: list = [None] * len(jobs)

    def device_splits():
        for i in range(len(jobs)):
            if out[i] is None and i not in host:
                out[i] = best_split(*jobs[i][1])

    if workers < 2 and not processes:  # one thread: every split and seed one after the other
        for i in host:
            out[i] = best_split(*jobs[i][1])
        device_splits()
        return out
    if workers < 2:
        results = [run(t) for t in tasks]
        device_splits()
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            pending = pool.map(run, tasks)
            device_splits()  # on this thread, while the host's splits run
            results = list(pending)
    by_task = dict(zip(tasks, results))
    for i in host:
        candidates = [by_task[(i, s)] for s in range(len(jobs[i][1][4]))]
        best = min(candidates, key=lambda c: c[0])  # the first seed of least rank
        out[i] = (best[1], best[2])
    return out


def _split_in_worker(processes: int, sub, parts: int, eps: float, seed: int, config: dict,
                     level: int, group: int, partitioner: str = "multilevel",
                     communities: np.ndarray | None = None):  # fmt: skip
    """:func:`split_candidate` on the C++ backend in a worker process of the pool of
    ``processes``, or None when no worker can run it (none has finished its start-up, or it
    died: the caller runs it here)."""
    from .parallel import metis_pool

    pool = metis_pool.get_pool(processes)
    if not pool.usable:
        return None
    request = dict(op="split", sub=sub, parts=int(parts), eps=float(eps), seed=int(seed),
                   config={**config, "initial_metis_processes": 0}, level=int(level),
                   group=int(group), partitioner=partitioner, communities=communities)
    try:
        rank, blocks, used = pool.call(request, wait_for_start=False)
    except metis_pool.WorkerGone:
        return None  # logged by the pool (or no worker has started yet)
    return tuple(rank), np.asarray(blocks, dtype=np.int32), used


def split_request(*, sub, parts: int, eps: float, seed: int, config: dict, level: int,
                  group: int, partitioner: str = "multilevel", communities=None):
    """:func:`split_candidate` on the C++ backend from a worker process's request
    (:mod:`igpart.parallel.worker`, op ``"split"``)."""
    return split_candidate(sub, parts, eps, "cpu", seed, config, level, group, partitioner,
                           communities)


def _input_communities(h: Hypergraph, k: int, backend, config, seed: int) -> np.ndarray | None:
    """The Louvain communities (host int32 per vertex) that the partitioner would detect on
    ``h`` for ``k`` blocks with ``config`` (None where it would detect none): found once for the
    whole input, each split of the multisection gets its group's share
    (:func:`igpart.partitioner.driver.run_partition`'s ``communities``) instead of running
    Louvain again on its sub-hypergraph."""
    from .kernels import get_backend
    from .parallel.threads import stage_threads
    from .partitioner.config import Config
    from .partitioner.context import Timer, resolve
    from .partitioner.preprocessing import detect_communities

    cfg = Config.of(config)
    be = get_backend(backend)
    with stage_threads(cfg):
        ctx = resolve(cfg, be, h, k)
        labels = detect_communities(be, be.hypergraph_arrays(h), h, k, ctx, seed, Timer())
    return None if labels is None else np.asarray(be.to_host(labels), dtype=np.int32)


def _host_backend(backend) -> bool:
    """Whether ``backend`` (a name or a Backend) partitions on the C++ backend."""
    from .kernels import get_backend

    name = getattr(backend, "name", backend)
    if name in ("cpu", "gpu"):
        return name == "cpu"
    return get_backend(backend).name == "cpu"


def _level_extractor(h, backend):
    """``extract(group, ngroups)``: every group's sub-(hyper)graph of ``h`` in one segmented
    pass (:mod:`igpart.subgraphs`), on the array module of ``backend``: on the GPU backend
    ``h``'s arrays go to the device once and each level's extraction runs there, its
    sub-problems coming back to the host in one transfer per array (the partitioner takes host
    (hyper)graphs)."""
    from .kernels import get_backend

    xp = np
    if not isinstance(backend, str) or backend in ("gpu", "auto"):
        xp = getattr(get_backend(backend), "xp", None) or np
    if isinstance(h, Graph):
        arrays = [xp.asarray(x) for x in (h.xadj, h.adjncy, h.adjwgt, h.vwgt)]
        return lambda group, ngroups: level_subgraphs(xp, *arrays, xp.asarray(group), ngroups)
    arrays = [xp.asarray(x) for x in (h.eptr, h.eind, h.ewgt, h.vwgt)]
    return lambda group, ngroups: level_subhypergraphs(xp, *arrays, xp.asarray(group), ngroups)


def best_split(sub, parts: int, eps: float, backend, seeds: list[int], config, level: int,
               group: int, partitioner: str = "multilevel",
               communities: np.ndarray | None = None) -> tuple[np.ndarray, str]:  # fmt: skip
    """Block ids of the best (balanced first, then least km1, then the first seed) of ``seeds``
    partitions of one group's ``sub`` into ``parts`` (:func:`split_candidate` per seed), and the
    backend that made it."""
    best = None
    for s in seeds:
        c = split_candidate(sub, parts, eps, backend, s, config, level, group, partitioner,
                            communities)
        if best is None or c[0] < best[0]:
            best = c
    return best[1], best[2]


def split_candidate(sub, parts: int, eps: float, backend, seed: int, config, level: int,
                    group: int, partitioner: str = "multilevel",
                    communities: np.ndarray | None = None):  # fmt: skip
    """One seed's partition of one group's ``sub`` into ``parts`` (:func:`igpart.partition` on
    km1 with ``algorithm=partitioner``): ``((not balanced, km1), block ids, backend)``.
    ``communities`` (int32 per vertex of ``sub``): the group's share of the input's
    communities, which restrict the clustering instead of communities detected on ``sub``
    (multilevel hypergraph splits)."""
    from .partitioner.api import partition
    from .partitioner.config import Config
    from .partitioner.driver import run_partition

    try:
        if communities is not None:
            p = run_partition(sub, parts, eps, "km1", backend, seed, Config.of(config),
                              communities=communities)  # fmt: skip
        else:
            p = partition(sub, parts, eps, "km1", backend, seed, config, algorithm=partitioner)
    except PartitionError as exc:
        raise PartitionError(f"split of level-{level} group {group}: {exc}") from exc
    return (not p.balanced, int(p.km1)), p.parts, p.backend


def _two_phase(h, a: tuple[int, ...], d: np.ndarray, epsilon: float, backend, seed: int, config):
    """The two-phase baseline: a plain k-way partition (km1), then its blocks placed on the PEs
    greedily (:func:`greedy_placement`); returns (PE ids, 1, backend, timings)."""
    from .partitioner.api import partition

    k = int(np.prod(a))
    t = time.perf_counter()
    p = partition(h, k, epsilon, "km1", backend, seed, config)
    t1 = time.perf_counter()
    place = greedy_placement(block_communication(h, p.parts, k), a, d)
    timings = {"partition": t1 - t, "placement": time.perf_counter() - t1}
    return place[p.parts], 1, p.backend, timings


def block_communication(h: Hypergraph | Graph, parts, k: int) -> np.ndarray:
    """Dense (k, k) float64 matrix: for each pair of blocks, the weight of the edges (graphs) or
    nets (hypergraphs) that connect them; zero diagonal."""
    parts = check_parts(parts, h.n, k).astype(np.int64)
    if isinstance(h, Graph):
        u, v, w = h.edge_list()
        W = np.zeros((k, k))
        np.add.at(W, (parts[u], parts[v]), w)
        W = W + W.T
    else:
        import scipy.sparse as sp

        pairs = np.unique(h.pin_nets.astype(np.int64) * k + parts[h.eind])
        net, blk = pairs // k, pairs % k
        B = sp.csr_matrix((np.ones(pairs.size), (net, blk)), shape=(h.m, k))
        W = (B.T @ sp.diags(h.ewgt.astype(np.float64)) @ B).toarray()
    np.fill_diagonal(W, 0.0)
    return W


def distance_matrix(hierarchy, distance) -> np.ndarray:
    """Dense (k, k) matrix of D(p, q) for the PEs of the hierarchy."""
    a, d = check_hierarchy(hierarchy, distance)
    pre = _prefix(a)
    pes = np.arange(pre[-1])
    D = np.zeros((pre[-1], pre[-1]), dtype=d.dtype)
    for i in range(1, len(a) + 1):
        D[(pes[:, None] // pre[i - 1]) != (pes[None, :] // pre[i - 1])] = d[i - 1]
    return D


def greedy_placement(W: np.ndarray, hierarchy, distance) -> np.ndarray:
    """Places k blocks with communication matrix ``W`` on the k PEs, greedily (the classic
    construction of the two-phase approach): the block of most communication goes to PE 0; then,
    repeatedly, the unplaced block of most communication with the placed ones goes to the free
    PE where its communication with them costs least. Returns the PE of each block; O(k^2) per
    step on dense arrays."""
    D = distance_matrix(hierarchy, distance).astype(np.float64)
    k = W.shape[0]
    place = np.full(k, -1, dtype=np.int64)
    free = np.ones(k, dtype=bool)  # PEs
    unplaced = np.ones(k, dtype=bool)  # blocks
    attach = np.zeros(k)  # communication of each block with the placed ones
    cost = np.zeros((k, k))  # cost[b, p]: b's communication with the placed blocks if b sits on p
    b = int(np.argmax(W.sum(axis=1)))
    p = 0
    for _ in range(k):
        place[b], free[p], unplaced[b] = p, False, False
        if not unplaced.any():
            break
        attach += W[:, b]
        cost += W[:, b][:, None] * D[p][None, :]
        cand = np.where(unplaced, attach, -1.0)
        b = int(np.argmax(cand))
        p = int(np.argmin(np.where(free, cost[b], np.inf)))
    return place
