"""The context of a run: its arguments checked, and every value of a :class:`Config` that
depends on the input's size, ``k``, the backend or the machine resolved here, in one place:
:func:`resolve` turns the caller's Config into a :class:`ResolvedConfig` (no ``-1`` or
``"auto"`` left: METIS worker processes, Louvain's parameters, the refinement and coarsening
algorithms, the initial partitioning method and effort, V-cycles and shrink limits, from the
backend's ``default_*`` attributes), which the driver computes once per input and the stages
read as plain values. The per-value rules (``vcycles``, ``max_shrink``, ...) are the functions
below; balance bounds and cluster weights too. Also the run's :class:`Timer`."""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, PartitionError
from ..fixed import check_fixed
from ..hypergraph import Graph, Hypergraph
from ..kernels.backend import Backend
from ..metrics import OBJECTIVES, max_block_weight
from ..parallel.threads import threads_of, usable_cpus
from .config import Config, copy_config


@dataclass
class Timer:
    """Seconds per phase of a run (``Partition.timings``)."""

    timings: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, t0: float) -> float:
        t = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + (t - t0)
        return t


def check_arguments(h, k, epsilon, objective, seed=0) -> None:
    """Raises InputError (PartitionError for k) unless ``h`` is a Hypergraph or Graph, the
    objective known, epsilon a non-negative number, 1 <= k <= n and the seed an integer."""
    if not isinstance(h, (Hypergraph, Graph)):
        raise InputError(f"expected a Hypergraph or Graph, got {type(h).__name__}")
    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective '{objective}' (choose from {', '.join(OBJECTIVES)})")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise InputError(f"epsilon must be a number, got {epsilon!r}") from None
    if not math.isfinite(eps) or eps < 0:
        raise InputError(f"epsilon must be a non-negative number, got {epsilon}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise PartitionError(f"k must be a positive integer, got {k!r}")
    check_k(h.n, int(k))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"seed must be an integer, got {seed!r}")
    if abs(int(seed)) >= 1 << 62:  # the partitioner derives further seeds from it (seed + r)
        raise InputError(f"seed must lie within +-2**62, got {seed}")


def check_fixed_input(h, fixed, k: int, epsilon: float,
                      targets: np.ndarray | None = None) -> np.ndarray | None:
    """``fixed`` validated against ``h`` at ``k`` blocks (see :func:`igpart.fixed.check_fixed`:
    the vertices fixed to a block must fit its maximum weight, the caller's checked per-block
    ``targets`` when given, else the epsilon bound)."""
    if targets is None:
        targets = np.full(k, max_block_weight(h.total_weight, k, epsilon), dtype=np.int64)
    return check_fixed(fixed, h.n, k, h.vwgt, targets)


# ---------------------------------------------------------------------------------- helpers
def check_memory(be: Backend, h: Hypergraph | Graph, k: int) -> None:
    """The backend's memory budget check for ``h`` (graphs: one 2-pin net per edge)."""
    if isinstance(h, Hypergraph):
        be.check_memory(h.n, h.m, int(h.eind.shape[0]), k)
    else:
        be.check_memory(h.n, int(h.adjncy.shape[0]) // 2, int(h.adjncy.shape[0]), k)


def epsilon_bounds(be: Backend, total: int, k: int, epsilon: float):
    """The epsilon bound ``max_block_weight(total, k, epsilon)`` for each of the k blocks, as an
    int64 array of ``be``."""
    return be.asarray(np.full(k, max_block_weight(total, k, epsilon), dtype=np.int64), "int64")


def balance_bounds(total: int, k: int, epsilon: float, block_bounds=None):
    """``(bound, bounds_on)``: the smallest positive per-block bound (what caps a cluster's
    weight) and ``bounds_on(backend)``, the k bounds as that backend's int64 array: the
    caller's ``block_bounds`` (int64 per block) or else the epsilon bound for every block."""
    if block_bounds is None:
        return (max_block_weight(total, k, epsilon),
                lambda b: epsilon_bounds(b, total, k, epsilon))
    block_bounds = np.asarray(block_bounds, dtype=np.int64)
    return (int(block_bounds[block_bounds > 0].min(initial=total)),
            lambda b: b.asarray(block_bounds, "int64"))


#: Graphs: ``Config.initial_runs`` METIS seeds up to this k, ``initial_runs * GRAPH_SEEDS_FULL_K
#: // k`` beyond (at least 1; 2 at k = 64 with the default 8). A seed costs more as k grows (the
#: coarsest level has ``graph_contraction_limit * k`` vertices): on the ``graphs`` set at 2^18,
#: k = 64, one thread, the initial partitioning took 3.03 s with 8 seeds and 0.69 s with 2, for
#: 1.8% more cut at k = 64 on the 2^20 graphs (BENCHMARKS.md, "Graph pipeline"). The seeds run
#: side by side on the run's threads, but their number does not depend on the threads (nor do
#: the partitions).
GRAPH_SEEDS_FULL_K = 16


def initial_runs_of(cfg: Config, k: int, hypergraph: bool = False, n: int = 0) -> int:
    """METIS seeds on the coarsest level of an input of ``n`` vertices (``Config.initial``):
    graphs ``initial_runs`` up to k = :data:`GRAPH_SEEDS_FULL_K`, fewer beyond."""
    if not hypergraph and k > GRAPH_SEEDS_FULL_K:
        return max(1, cfg.initial_runs * GRAPH_SEEDS_FULL_K // k)
    if k > 64:
        return max(1, cfg.initial_runs * 64 // k)
    if hypergraph and (n >= cfg.initial_runs_min_n
                       or (k == 2 and cfg.bisection_contraction_limit > 0)):
        # large inputs, and k = 2 runs, whose coarsest level is bisection_contraction_limit's
        return max(cfg.initial_runs, min(cfg.initial_runs_max, cfg.initial_runs * 64 // k))
    return cfg.initial_runs


def rb_effort(cfg: Config, k: int, large: bool = True) -> tuple[int, int]:
    """Recursive-bisection candidates and METIS seeds per bisection (``Config.initial``).
    Inputs of at least ``initial_runs_min_n`` vertices (``large``): ``initial_rb_runs`` x
    ``initial_rb_seeds`` up to k = 32, both scaled by 32 / k beyond; smaller inputs: half of
    each up to k = 64, scaled by 64 / k beyond; at least 1 candidate and 4 seeds, as the
    coarsest level and the number of bisections grow with k. From k = 64 on, the candidates'
    seeds go to one candidate (``runs * seeds`` seeds per bisection): with FM on the best
    candidate only (``initial_fm_top``) a METIS seed costs far less than a recursive bisection
    (defaults: 4 x 16 up to k = 32 for large inputs, 2 x 8 below k = 64 for small ones,
    1 x 16 at k = 64, 1 x 4 at k = 128)."""
    runs, seeds, kmax = effort_value(cfg, "initial_rb_runs"), cfg.initial_rb_seeds, 32
    if not large:
        runs, seeds, kmax = max(1, runs // 2), max(1, seeds // 2), 64
    if k > kmax:
        runs, seeds = max(1, runs * kmax // k), max(min(4, seeds), seeds * kmax // k)
    if k >= _RB_ONE_CANDIDATE_FROM_K:
        runs, seeds = 1, runs * seeds
    return runs, seeds


#: From this k on, recursive bisection runs as one candidate (see :func:`rb_effort`): on
#: ibm01x20 / ibm09x10 / ibm01/03/05 at k = 64 (seeds 1, 2), 1 x 16 instead of 2 x 8 gave cut
#: ratio 0.999 (0.991–1.012) for 0.67x the initial partitioning time; 1 x 8: 1.006, 0.50x;
#: 2 x 32 at k = 16 / 1 x 16 at k = 8 instead of 4 x 16 / 2 x 8: 1.3% / 1.7% worse.
_RB_ONE_CANDIDATE_FROM_K = 64


#: ``Config.initial_rb_min_seeds = -1`` (automatic): the floor of the METIS seeds per bisection
#: when recursive bisection runs as one candidate (see :func:`rb_min_seeds`).
RB_AUTO_MIN_SEEDS = 8


def rb_min_seeds(cfg: Config, candidates: int, large: bool = False) -> int:
    """``Config.initial_rb_min_seeds`` of a recursive bisection that runs beside
    ``candidates - 1`` other ones, for an input of at least ``initial_runs_min_n`` vertices
    (``large``) or not: an explicit value (0: every bisection gets all the seeds) is kept; -1
    (automatic) gives ``RB_AUTO_MIN_SEEDS`` (8) to a single candidate on a smaller input, the
    case of k >= 64 where the candidates' seeds go to one (:func:`rb_effort`: 1 x 16 standing
    for 2 x 8, so that the bisections below the first get 8 of them again), and 0 otherwise.
    Measured 2026-11-27 (C++ backend, 2 threads, seeds 0-3): ``small`` suite at k = 64 (13
    inputs below 100,000 vertices) cut 1.000 (0.991-1.007 per input) for 0.74x the initial
    partitioning's time; with 4 candidates of 16 seeds (cholesky_mc, 113k vertices, k = 8 / 16)
    2-5% higher cuts; on inflated inputs at k = 64 mixed (ibm09x10 +1.7% over 4 seeds, ibm01x20
    -1.0% over 2, ibm10x4 +0.2% over 2, ibm05x4 +0.5% over 2), so large inputs keep all their
    seeds."""
    configured = int(cfg.initial_rb_min_seeds)
    if configured >= 0:
        return configured
    return RB_AUTO_MIN_SEEDS if int(candidates) <= 1 and not large else 0


#: ``Config.initial_metis_processes = -1`` (automatic): worker processes only on machines of at
#: least this many usable CPUs, and at most this many of them (one CPU left to the caller).
AUTO_METIS_MIN_CPUS = 8
AUTO_METIS_MAX_PROCESSES = 15


def metis_processes(cfg: Config, n: int, k: int, threads: int | None = None,
                    hypergraph: bool = True, backend: str | None = None,
                    workers: bool = True) -> int:
    """The METIS worker processes of a run on an input of ``n`` vertices into ``k`` blocks
    (``Config.initial_metis_processes``). An explicit value (0: in-process, N > 0: N workers)
    is kept. -1 (automatic, the default) gives 0 where the backend starts no workers of its
    own accord (``workers`` False: the C++ backend's ``metis_workers``), else
    ``min(15, cpus - 1)`` workers (``cpus``:
    :func:`usable_cpus`) when the machine has at least 8 usable CPUs, the run has more than
    one thread (``threads``, default the run's, ``Config.threads``), ``k > 1``, the input
    is large (``n >= cfg.initial_runs_min_n``; on the GPU backend any size from k = 3, see
    below) and a hypergraph, and 0 otherwise: only then
    are there enough concurrent METIS calls (the bisections of recursive bisection), and
    cores left beside the run's threads, to pay for the workers. A graph's initial
    partitioning is a few METIS seeds on a level of ``graph_contraction_limit * k`` vertices,
    in-process; the workers the pool would start import beside the graph's clustering, which
    they slow: the clustering of a 2^18-vertex Delaunay graph on the 2-core VM took 1.55 s
    with 6 workers starting and 0.22 s without; on the 16-core H100 machine the graph path's
    clustering took about 1.8 s on 16 threads (15 workers) on every 2^20-vertex graph and k,
    more than on one thread (no workers), 1.07 s on the 2D grid (BENCHMARKS.md, "The C++
    graph path on many threads"). Nor at k = 2: the initial partitioning is then one batch of
    METIS seeds on a level of about ``2 * bisection_contraction_limit`` vertices (64 seeds,
    tens of milliseconds, whatever the input's size), which runs side by side on the run's
    threads in-process (:func:`.initial.metis.part_graphs`), while starting the workers (an
    interpreter, numpy and igpart each) takes CPU from the run's threads, which fill every
    core while the levels coarsen (on the 16-core machine cholesky_mc's Louvain took 1.13 s
    at k = 2 on 16 threads with 15 workers starting beside it, against 0.33 s on 2 threads of
    the 2-core VM without them). On the GPU backend, whose coarsening leaves the cores idle,
    the workers were kept at k = 2 while METIS held the GIL; with the seeds in-process side by
    side its k = 2 runs took 0.85x the time on three 2M-vertex inputs and 0.92x on six small
    ones (H100 machine, BENCHMARKS.md, "METIS without the GIL").
    On the GPU backend small inputs get them too from k = 3 on: without them the bisections
    of recursive bisection run on threads of this process, where the Python around the C++
    calls holds the GIL (and METIS did too, through pymetis, when this was measured), so that
    16 threads ran them about as one (H100 machine, commit
    6a86a90, the `small` suite at k = 64: with 15 workers the GPU runs took 0.73x the time,
    0.49-1.01x, their initial partitioning 0.13-0.24 s against 0.34-0.56 s, at a cut ratio
    of 1.000; the C++ backend's took 1.08x, 0.84-1.37x: its threads fill the cores while the
    workers start, so its small inputs keep none).
    The C++ backend starts none at any size (``CpuBackend.metis_workers``)."""
    configured = int(cfg.initial_metis_processes)
    if configured >= 0:
        return configured
    if k <= 1 or not hypergraph or not workers:
        return 0
    if n < cfg.initial_runs_min_n and not (backend == "gpu" and k >= 3):
        return 0
    if k == 2:
        return 0
    cpus = usable_cpus()
    if cpus < AUTO_METIS_MIN_CPUS:
        return 0
    if (threads_of(cfg) if threads is None else int(threads)) <= 1:
        return 0
    return min(AUTO_METIS_MAX_PROCESSES, cpus - 1)


def community_resolution(cfg: Config, pins: int) -> float:
    """Louvain's resolution for an input of ``pins`` pins: ``cfg.community_resolution`` when
    set, else ``max(1, pins / cfg.community_resolution_pins)`` (see :class:`Config`)."""
    if cfg.community_resolution > 0:
        return float(cfg.community_resolution)
    return max(1.0, pins / cfg.community_resolution_pins)


def community_sub_rounds(be: Backend, cfg: Config, n: int) -> int:
    """``cfg.community_sub_rounds`` resolved on ``be`` for an input of ``n`` vertices (-1: the
    backend's ``default_community_sub_rounds(n, cfg.deterministic)``, 0 where it has none)."""
    if cfg.community_sub_rounds >= 0:
        return int(cfg.community_sub_rounds)
    default = getattr(be, "default_community_sub_rounds", None)
    return 0 if default is None else int(default(n, cfg.deterministic))


def community_pass_gain(be: Backend, cfg: Config, n: int) -> float:
    """``cfg.community_pass_gain`` resolved on ``be`` for an input of ``n`` vertices (-1: the
    backend's ``default_community_pass_gain(n)``, 0 where it has none)."""
    if cfg.community_pass_gain >= 0:
        return float(cfg.community_pass_gain)
    default = getattr(be, "default_community_pass_gain", None)
    return 0.0 if default is None else float(default(n))


#: The bipartite community graph leaves out nets of more than
#: ``max(BIPARTITE_MAX_NET_SIZE, n // 100)`` pins (Mt-KaHyPar's large-net rule).
BIPARTITE_MAX_NET_SIZE = 50_000


def community_graph(be: Backend, cfg: Config, n: int) -> str:
    """``cfg.community_graph`` resolved on ``be`` for an input of ``n`` vertices ("auto": the
    backend's ``default_community_graph(n)``, "clique" where it has none)."""
    if cfg.community_graph != "auto":
        return cfg.community_graph
    default = getattr(be, "default_community_graph", None)
    return "clique" if default is None else str(default(n))


def community_clique_net_size(be: Backend, cfg: Config, h: Hypergraph | Graph) -> int:
    """``cfg.community_max_net_size`` resolved on ``be`` for ``h`` (-1: the backend's
    ``default_community_max_net_size(n, net_sizes)``, 50 where it has none or for a graph)."""
    if cfg.community_max_net_size > 0:
        return int(cfg.community_max_net_size)
    default = getattr(be, "default_community_max_net_size", None)
    if default is None or not isinstance(h, Hypergraph):
        return 50
    return int(default(int(h.n), np.diff(h.eptr)))


def community_net_size(graph: str, cfg: Config, n: int) -> int:
    """The largest net Louvain's ``graph`` takes in: ``cfg.community_max_net_size`` (resolved)
    for the clique expansion, ``max(BIPARTITE_MAX_NET_SIZE, n // 100)`` for the bipartite
    graph."""
    if graph == "bipartite":
        return max(BIPARTITE_MAX_NET_SIZE, n // 100)
    return int(cfg.community_max_net_size)


def community_level(be: Backend, cfg: Config, k: int) -> int:
    """``cfg.community_level_vertices`` resolved on ``be`` for a partition into ``k`` blocks
    (-1: the backend's ``community_level_max(k)``, 0 where it has none)."""
    if cfg.community_level_vertices >= 0:
        return int(cfg.community_level_vertices)
    default = getattr(be, "community_level_max", None)
    return 0 if default is None else int(default(k))


def community_max_weight(cfg: Config, total: int, k: int) -> int:
    """The cap on a community's vertex weight, ``ceil(cfg.community_max_weight * total / k)``
    (0: no cap)."""
    return int(math.ceil(float(cfg.community_max_weight) * total / k))


def coarsest_vertices(cfg: Config, k: int) -> int:
    """Where the coarsening of a hypergraph into ``k`` blocks stops (and the vertex count its
    cluster weight cap stands for): ``contraction_limit * k``, at k = 2
    ``2 * bisection_contraction_limit`` when that is set (non-zero)."""
    if int(k) == 2 and cfg.bisection_contraction_limit > 0:
        return 2 * int(cfg.bisection_contraction_limit)
    return int(cfg.contraction_limit) * int(k)


def hypergraph_cluster_weight(cfg: Config, total: int, k: int, bound: int) -> int:
    """The weight cap of a cluster of a hypergraph of weight ``total`` partitioned into ``k``
    blocks: ``ceil(cluster_weight_factor * total / coarsest_vertices(cfg, k))``, at most
    ``bound`` (the smallest block bound), at least 1."""
    return max_cluster_weight(total, 1, coarsest_vertices(cfg, k), cfg.cluster_weight_factor,
                              bound)


def max_cluster_weight(total: int, k: int, limit: int, factor: float, bound: int) -> int:
    """The weight cap of a cluster: ``ceil(factor * total / (limit * k))`` (``limit``: the
    contraction limit per block), at most the smallest block bound ``bound``, at least 1."""
    return max(1, min(int(math.ceil(factor * total / (limit * k))), bound))


# ---------------------------------------------------------------------------------- hypergraphs
def refinement_mode(be: Backend, cfg: Config) -> str:
    """The refinement ``cfg.refinement`` resolves to on ``be`` (``"auto"``: the backend's
    ``default_refinement``, whatever the input's size)."""
    if cfg.refinement != "auto":
        return cfg.refinement
    return getattr(be, "default_refinement", "fm")


#: ``Config`` values whose -1 asks the backend (``default_NAME(k, n)``), and the value where
#: it has no such method.
BACKEND_EFFORT_DEFAULTS = {"initial_rb_runs": 4, "jet_fm_max_pins": 3_000_000, "jet_min_pins": 0}


def backend_effort(be: Backend, cfg: Config, name: str, k: int, n: int) -> int:
    """``cfg.NAME`` (one of :data:`BACKEND_EFFORT_DEFAULTS`) resolved on ``be`` at ``k``
    blocks for an input of ``n`` vertices: -1 gives the backend's ``default_NAME(k, n)``, or
    the value of :data:`BACKEND_EFFORT_DEFAULTS` where it has none."""
    value = int(getattr(cfg, name))
    if value >= 0:
        return value
    default = getattr(be, f"default_{name}", None)
    return BACKEND_EFFORT_DEFAULTS[name] if default is None else int(default(k, n))


def effort_value(cfg: Config, name: str) -> int:
    """``cfg.NAME`` (one of :data:`BACKEND_EFFORT_DEFAULTS`) as a stage reads it: the resolved
    value, or the general default where ``cfg`` was not resolved on a backend (-1)."""
    value = int(getattr(cfg, name))
    return value if value >= 0 else BACKEND_EFFORT_DEFAULTS[name]


def vcycles(be: Backend, cfg: Config, k: int, n: int) -> int:
    """``cfg.vcycles`` resolved on ``be`` at ``k`` blocks for an input of ``n`` vertices (-1:
    the backend's ``default_vcycles(k, n)``, 2 where it has none)."""
    if cfg.vcycles >= 0:
        return int(cfg.vcycles)
    default = getattr(be, "default_vcycles", None)
    return 2 if default is None else int(default(k, n))


def _backend_default(be: Backend, name: str, k: int, n: int, fallback):
    """The backend's ``default_<name>`` (``fallback`` where it has none), or its
    ``default_<name>_k2`` at k = 2 on inputs of at least its ``LARGE_MIN_N`` vertices where it
    has one: the value a ``-1`` of ``Config.<name>`` stands for."""
    k2 = getattr(be, f"default_{name}_k2", None)
    if k == 2 and k2 is not None and n >= int(getattr(be, "LARGE_MIN_N", 0)):
        return k2
    return getattr(be, f"default_{name}", fallback)


def vcycle_min_vertices(be: Backend, cfg: Config, k: int = 0, n: int = 0) -> int:
    """``cfg.vcycle_min_vertices`` resolved on ``be`` at ``k`` blocks for an input of ``n``
    vertices (-1: :func:`_backend_default`, 0 where the backend has none)."""
    if cfg.vcycle_min_vertices >= 0:
        return int(cfg.vcycle_min_vertices)
    return int(_backend_default(be, "vcycle_min_vertices", k, n, 0))


#: ``Config.max_shrink`` of backends without a default of their own.
MAX_SHRINK = 2.5


def max_shrink(be: Backend, cfg: Config, k: int, n: int) -> float:
    """``cfg.max_shrink`` resolved on ``be`` at ``k`` blocks for an input of ``n`` vertices (-1:
    :func:`_backend_default`, ``MAX_SHRINK`` where the backend has none)."""
    if cfg.max_shrink != -1:
        return float(cfg.max_shrink)
    return float(_backend_default(be, "max_shrink", k, n, MAX_SHRINK))


def coarsening(be: Backend, cfg: Config, k: int, n: int) -> str:
    """``cfg.coarsening`` resolved on ``be`` at ``k`` blocks for an input of ``n`` vertices
    (``"auto"``: the backend's ``default_coarsening(k, n)``, heavy-edge clustering where it has
    none)."""
    if cfg.coarsening != "auto":
        return cfg.coarsening
    default = getattr(be, "default_coarsening", None)
    return "heavy_edge" if default is None else str(default(int(k), int(n)))


# ---------------------------------------------------------------------------------- graphs
def graph_coarsening(be: Backend, cfg: Config) -> str:
    """``cfg.graph_coarsening`` resolved on ``be`` (``"auto"``: the backend's
    ``default_graph_coarsening``, ``"gkway"`` where it has none)."""
    if cfg.graph_coarsening != "auto":
        return cfg.graph_coarsening
    return getattr(be, "default_graph_coarsening", "gkway")


def graph_lp_sub_rounds(be: Backend, cfg: Config) -> int:
    """``cfg.graph_lp_sub_rounds`` resolved on ``be`` (-1: the backend's
    ``default_graph_lp_sub_rounds``, 8 where it has none)."""
    if cfg.graph_lp_sub_rounds != -1:
        return int(cfg.graph_lp_sub_rounds)
    return int(getattr(be, "default_graph_lp_sub_rounds", 8))


def graph_refinement(be: Backend, cfg: Config) -> str:
    """``cfg.graph_refinement`` resolved on ``be`` (``"auto"``: the backend's
    ``default_graph_refinement``, ``"gkway"`` where it has none)."""
    if cfg.graph_refinement != "auto":
        return cfg.graph_refinement
    return getattr(be, "default_graph_refinement", "gkway")


def graph_fm_seeds(cfg: Config, k: int) -> str:
    """``cfg.graph_fm_seeds`` resolved for ``k`` blocks (``"auto"``: ``"boundary"`` at k = 2,
    ``"gain"`` beyond; see :class:`igpart.Config`)."""
    if cfg.graph_fm_seeds != "auto":
        return cfg.graph_fm_seeds
    return "boundary" if k <= 2 else "gain"


def check_k(n: int, k: int) -> None:
    """Raises PartitionError unless 1 <= k <= max(n, 1)."""
    if int(k) != k or k < 1:
        raise PartitionError(f"k must be a positive integer, got {k}")
    if k > max(n, 1):
        raise PartitionError(f"k = {k} exceeds the number of vertices ({n})")


def resolve_initial_method(method: str, k: int, hypergraph: bool, large: bool = False) -> str:
    """The method that ``method`` stands for at ``k`` blocks: ``"auto"`` is ``"rb"`` on
    hypergraphs with k >= 3 and ``"metis"`` otherwise (graphs, hypergraphs at k = 2, whatever
    their size: ``large`` no longer changes it); see :class:`igpart.Config`. Other
    values stand for themselves."""
    if method != "auto":
        return method
    if not hypergraph:
        return "metis"
    return "rb" if k >= 3 else "metis"


# ---------------------------------------------------------------------------------- resolution
@dataclass
class ResolvedConfig(Config):
    """A :class:`Config` resolved by :func:`resolve` for one input, ``k`` and backend: no field
    holds ``-1`` or ``"auto"`` (``deterministic = None`` stays: the backend decides per call),
    ``community_resolution`` holds the resolution used, and the derived values below are set.
    What the stages read.

    ``base``: the Config it was resolved from, with the run's METIS worker processes fixed; the
    sub-problems of the run (recursive bisections) resolve again from it for their own input.
    ``backend``, ``k``, ``n``, ``hypergraph``: what it was resolved for. ``initial_seeds``: the
    METIS seeds on the coarsest level (:func:`initial_runs_of`); ``rb_runs`` x ``rb_seeds``:
    the recursive-bisection effort (:func:`rb_effort`); ``coarsest``: the vertices the
    coarsening stops below (:func:`coarsest_vertices`, graphs ``graph_contraction_limit * k``);
    ``community_level``: the most vertices of the level Louvain runs on
    (``Config.community_level_vertices`` resolved; 0: the input itself).
    """

    base: Config | None = None
    backend: str = ""
    k: int = 0
    n: int = 0
    hypergraph: bool = True
    initial_seeds: int = 0
    rb_runs: int = 0
    rb_seeds: int = 0
    coarsest: int = 0
    community_level: int = 0

    def is_for(self, be: Backend, k: int, n: int, hypergraph: bool) -> bool:
        """Whether this context was resolved for backend ``be``, ``k`` blocks and an input of
        ``n`` vertices of that kind."""
        return (self.backend, self.k, self.n, self.hypergraph) == (be.name, int(k), int(n),
                                                                  bool(hypergraph))

    def summary(self) -> dict[str, Any]:
        """The resolved values that shape this run (those ``"auto"`` / ``-1`` stand for, and the
        effort derived from ``k`` and ``n``), for ``Partition.resolved`` and ``-v``."""
        out: dict[str, Any] = {"backend": self.backend, "n": self.n, "k": self.k,
                               "coarsest": self.coarsest, "initial": self.initial,
                               "initial_seeds": self.initial_seeds}
        if self.hypergraph:
            if self.initial in ("rb", "rb+metis"):
                out["rb"] = f"{self.rb_runs}x{self.rb_seeds}"
                if self.initial_rb_min_seeds:
                    out["rb_min_seeds"] = self.initial_rb_min_seeds
            out.update(coarsening=self.coarsening, refinement=self.refinement,
                       vcycles=self.vcycles,
                       max_shrink=self.max_shrink)
            if self.vcycles:
                out["vcycle_min_vertices"] = self.vcycle_min_vertices
            if self.communities:
                if self.community_level:
                    out["community_level"] = self.community_level
                out.update(community_graph=self.community_graph,
                           community_max_net_size=self.community_max_net_size,
                           community_sub_rounds=self.community_sub_rounds,
                           community_pass_gain=self.community_pass_gain,
                           community_resolution=round(self.community_resolution, 6))
        else:
            out.update(graph_coarsening=self.graph_coarsening,
                       graph_refinement=self.graph_refinement,
                       graph_fm_seeds=self.graph_fm_seeds,
                       graph_lp_sub_rounds=self.graph_lp_sub_rounds)
        out["metis_processes"] = self.initial_metis_processes
        return out

    def describe(self) -> str:
        """:meth:`summary` as one line (``key=value`` pairs)."""
        return " ".join(f"{key}={value}" for key, value in self.summary().items())


#: The names of Config's fields, in order.
CONFIG_FIELDS = tuple(f.name for f in dataclasses.fields(Config))


def resolve(cfg: Config, be: Backend, h: Hypergraph | Graph, k: int) -> ResolvedConfig:
    """``cfg`` resolved for partitioning ``h`` (a hypergraph, or a graph run as one) into ``k``
    blocks on ``be``: every ``-1`` / ``"auto"`` replaced by its value for this input, k, backend
    and machine (see :class:`ResolvedConfig`). A ResolvedConfig resolves again from its
    ``base``. Call it where the run's threads are set (``stage_threads``): the C++ backend's
    default refinement depends on them."""
    base = cfg.base if isinstance(cfg, ResolvedConfig) else cfg
    k, n, hyper = int(k), int(h.n), isinstance(h, Hypergraph)
    pins = int(h.num_pins) if hyper else int(h.adjncy.shape[0])
    processes = metis_processes(base, n, k, hypergraph=hyper, backend=be.name,
                                workers=bool(getattr(be, "metis_workers", True)))
    # the run's sub-problems (bisections of the coarsest level, on the C++ backend) coarsen
    # as the run does
    base = copy_config(base, initial_metis_processes=processes,
                       coarsening=coarsening(be, base, k, n),
                       **{name: backend_effort(be, base, name, k, n)
                          for name in BACKEND_EFFORT_DEFAULTS})
    rb_runs, rb_seeds = rb_effort(base, k, n >= base.initial_runs_min_n)
    values = {name: getattr(base, name) for name in CONFIG_FIELDS}
    values.update(
        refinement=refinement_mode(be, base),
        max_shrink=max_shrink(be, base, k, n),
        vcycles=vcycles(be, base, k, n),
        vcycle_min_vertices=vcycle_min_vertices(be, base, k, n),
        community_sub_rounds=community_sub_rounds(be, base, n),
        community_pass_gain=community_pass_gain(be, base, n),
        community_resolution=community_resolution(base, pins),
        community_graph=community_graph(be, base, n),
        community_max_net_size=community_clique_net_size(be, base, h),
        graph_coarsening=graph_coarsening(be, base),
        graph_refinement=graph_refinement(be, base),
        graph_lp_sub_rounds=graph_lp_sub_rounds(be, base),
        graph_fm_seeds=graph_fm_seeds(base, k),
        initial=resolve_initial_method(base.initial, k, hyper),
        initial_rb_min_seeds=rb_min_seeds(base, rb_runs, n >= base.initial_runs_min_n),
        community_level_vertices=community_level(be, base, k),
    )
    values.update(
        base=base, backend=be.name, k=k, n=n, hypergraph=hyper,
        initial_seeds=initial_runs_of(base, k, hypergraph=hyper, n=n), rb_runs=rb_runs,
        rb_seeds=rb_seeds,
        coarsest=coarsest_vertices(base, k) if hyper else int(base.graph_contraction_limit) * k,
        community_level=values["community_level_vertices"],
    )
    # every field given: what ResolvedConfig(**values) makes, without its __init__ (a resolve
    # per bisection of recursive bisection)
    out = object.__new__(ResolvedConfig)
    out.__dict__.update(values)
    return out


def resolved(cfg: Config, be: Backend, h: Hypergraph | Graph, k: int) -> ResolvedConfig:
    """``cfg`` when it is a ResolvedConfig for ``be``, ``k`` and ``h``'s size and kind, else
    :func:`resolve` of it for them."""
    if isinstance(cfg, ResolvedConfig) and cfg.is_for(be, k, h.n, isinstance(h, Hypergraph)):
        return cfg
    return resolve(cfg, be, h, k)


def on_backend(ctx: ResolvedConfig, be: Backend, h: Hypergraph | Graph,
               keep: tuple[str, ...] = ()) -> ResolvedConfig:
    """``ctx`` for the levels of the same input ``h`` that run on ``be`` (the host levels of a
    device run, its initial partitioning): resolved on ``be``, with the fields named in ``keep``
    taken from ``ctx`` (the algorithms the device's run chose)."""
    if be.name == ctx.backend:
        return ctx
    return copy_config(resolve(ctx, be, h, ctx.k), **{name: getattr(ctx, name) for name in keep})
