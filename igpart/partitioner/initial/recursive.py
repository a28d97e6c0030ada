"""Recursive bisection of a hypergraph, the ``"rb"`` initial partitioner of the coarsest level.

As KaHyPar / Mt-KaHyPar do for their initial partition: the hypergraph is split in two (blocks
``0 .. k0-1`` on one side, ``k0 .. k-1`` on the other, ``k0 = ceil(k/2)``), each side is
split again on its own sub-hypergraph, down to single blocks. Each bisection is a small
run of igpart's own k = 2 multilevel pipeline on the CPU backend, which the caller hands in as
``bisect`` (:func:`igpart.partitioner.driver.bisect`: ``multilevel_hypergraph`` with per-block
bounds, so that this stage never imports the driver that calls it): Louvain communities,
heavy-edge clustering within them down to ``2 * contraction_limit`` vertices, METIS bisections
of the clique expansion with target weights ``k0 : k1`` (``runs`` seeds) each rebalanced and refined
with the sequence refinement, FM on the best ``Config.initial_fm_top`` of them (default 1; 0: on
all), the best kept, then projected up and refined on every level (no V-cycles: they changed nothing
measurable inside bisections). The communities matter most: on the coarsest level of ibm01x80
(k = 16, 787 vertices) one bisection cuts 1020–1049 with them, 1332–1462 without, Mt-KaHyPar
1051. With ``Config.initial_rb_communities = "once"`` Louvain runs once, for the first
bisection, and the sub-hypergraphs inherit their vertices' communities
(:func:`shared_communities`); ``Config.initial_rb_min_seeds`` halves the METIS seeds per level
down to a floor (:func:`bisection_seeds`). Sub-hypergraphs drop the nets the bisection cut
(objective ``cut``: such a net is cut whatever happens inside the sides) or keep their pins on
each side (``km1``: cut-net splitting), so that each bisection optimises its share of the final
objective. The imbalance of a bisection is adapted so that the blocks at the end meet the k-way
bound (KaHyPar, Schlag et al. 2016): ``eps' = ((1+eps) * ceil(W/k) * k_sub / W_sub) ** (1 /
ceil(log2 k_sub)) - 1``, where ``W`` is the total weight and ``W_sub`` the weight of the
sub-hypergraph to be split into ``k_sub`` blocks.

All loops over vertices, nets and pins run in numpy or in the C++ kernels; Python only walks the
``k - 1`` bisections and the levels of each; independent bisections run concurrently
(``threads``), each in a worker process of :mod:`igpart.parallel.metis_pool` when the config
has them (``BISECT_IN_WORKERS``), whole subtrees in one once there are as many tasks as workers
(``SUBTREES_IN_WORKERS``); without workers at most ``CpuBackend.rb_python_threads`` at once,
their Python taking turns on the GIL under a short switch interval. Deterministic for a seed,
whatever the number of threads and processes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...errors import InputError
from ...fixed import check_fixed
from ...hypergraph import CLIQUE_SCALE, Hypergraph
from ...kernels import _cpu, get_backend, omp_threads
from ...metrics import OBJECTIVES
from ...parallel import metis_pool
from ...parallel.threads import c_stdout_to_stderr, gil_switch_interval
from ..config import Config, copy_config
from ..context import Timer, check_arguments, metis_processes, rb_min_seeds, resolve
from ..preprocessing import detect_communities
from .metis import CLIQUE_MAX_NET_SIZE

#: ``bisect(be, h, bounds, eps, objective, seed, cfg, fixed) -> sides``: block ids 0/1 of igpart's
#: multilevel k = 2 pipeline on ``h`` with the two blocks' weight bounds ``bounds`` (METIS aims at
#: weights in their proportions); ``fixed`` (0/1 per vertex, -1: free): vertices fixed to a side.
Bisect = Callable[..., np.ndarray]

#: FM inside the bisections stops a pass after this many moves without improvement (or the
#: config's ``fm_max_fruitless_moves`` when lower). The sub-hypergraphs are small: on the
#: coarsest levels of four inflated inputs at k = 64 (3-5k vertices), 100 or 50 instead of 250
#: gave the same partitions for 12 of 12 runs, in 0.86x the time on the two largest levels and
#: 0.96x on the others (BENCHMARKS.md at 10cd44d, "FM inside the bisections").
RB_FM_MAX_FRUITLESS_MOVES = 100

#: The contraction limit of a flat bisection's config: no level is coarsened.
FLAT_LIMIT = 1 << 30


def sub_hypergraph(h: Hypergraph, vertices: np.ndarray, objective: str) -> Hypergraph:
    """The hypergraph induced by ``vertices`` (sorted, distinct ids of ``h``), renumbered
    ``0 .. len(vertices)-1`` in that order. ``objective == "cut"``: nets with a pin outside
    ``vertices`` are dropped; ``"km1"``: they keep their pins inside. Nets left with fewer than
    two pins are dropped."""
    vertices = np.ascontiguousarray(vertices, dtype=np.int64)
    # one pass over the pins in C++ (a dozen numpy calls on these small levels cost more)
    eptr, eind, nets = _cpu.sub_hypergraph(h.eptr, h.eind, h.n, vertices, objective == "cut")
    return Hypergraph(
        eptr, eind, int(vertices.size), h.vwgt[vertices], h.ewgt[nets], check=False
    )


def adapted_epsilon(epsilon: float, total: int, k: int, sub_total: int, k_sub: int,
                    capacity: int | None = None) -> float:
    """KaHyPar's imbalance for one bisection of a sub-hypergraph of weight ``sub_total`` that is
    to become ``k_sub`` of the ``k`` blocks of a hypergraph of weight ``total``. ``capacity``:
    the sum of those blocks' maximum weights (default ``k_sub`` times the epsilon bound, i.e.
    ``(1 + epsilon) * ceil(total / k) * k_sub``)."""
    if k_sub < 2 or sub_total <= 0:
        return float(epsilon)
    perfect = -(-int(total) // int(k))
    base = ((1.0 + epsilon) * perfect * k_sub if capacity is None else capacity) / sub_total
    return max(0.0, base ** (1.0 / math.ceil(math.log2(k_sub))) - 1.0)


#: With worker processes (``Config.initial_metis_processes`` > 0) and more than one thread, each
#: bisection but the first (which runs alone, here, its METIS seeds in the workers) runs whole in a
#: worker of :mod:`igpart.parallel.metis_pool` (:func:`bisect_request`) instead of on a thread of
#: this process (every bisection, whatever the threads, when the call runs beside other initial
#: candidates: ``recursive_bisection(concurrent=True)``): on threads the bisections' Python code,
#: and METIS (then called through pymetis, which held the GIL), took turns (H100 machine, 16 cores:
#: recursive bisection of a 3,876-vertex coarsest level into 64 blocks 1.19 s on one thread, 1.04 s
#: on 16; with every bisection in a worker, ibm01x200 end to end 1.80 -> 1.20 s at k = 64 and 1.34
#: -> 0.93 s at k = 16; the first one back here and 15 workers instead of 8 came after). The same
#: partition either way; a bisection no worker can take runs here. Tests switch it off to compare.
BISECT_IN_WORKERS = True

#: With worker processes and other candidates beside the call (``concurrent``), the first
#: bisection of each candidate runs here too (on a thread of this process, its C++ calls on the
#: candidate's share of the threads, its METIS seeds in the workers) instead of whole in a
#: worker on one thread and one METIS seed after another. It is the longest bisection and every
#: other one waits for it: at k = 16 on the coarsest level of ibm10x4 (852 vertices, 106,141
#: pins) it took 0.16-0.31 s of a candidate's 0.8-1.0 s on one thread (2-core VM). The same
#: partition either way; off by default until timed on the 16-core machine
#: (``benchmarks/gpu_ab.py``, variant ``{"top_here": true}``).
TOP_BISECTION_HERE = False


def bisect_request(bisect: Bisect, *, eptr, eind, n, vwgt, ewgt, bounds, eps, objective, seed,
                   config, fixed=None, communities=None):
    """``bisect`` on the C++ backend from a worker's request: the sub-hypergraph's arrays, the
    two blocks' bounds, the adapted epsilon, the objective, the seed, the :class:`Config`
    fields (METIS in-process), the fixed sides and the inherited communities."""
    h = Hypergraph(eptr, eind, int(n), vwgt, ewgt, check=False)
    extra = {} if communities is None else {"communities": np.asarray(communities, np.int32)}
    return bisect(get_backend("cpu"), h, np.asarray(bounds, dtype=np.int64), float(eps),
                  objective, int(seed), Config(**config),
                  None if fixed is None else np.asarray(fixed, dtype=np.int32), **extra)


def _bisect_anywhere(bisect: Bisect, be, h: Hypergraph, bounds: np.ndarray, eps: float,
                     objective: str, seed: int, cfg, workers: bool,
                     fixed: np.ndarray | None = None,
                     communities: np.ndarray | None = None) -> np.ndarray:
    """``bisect``, in a worker process when ``workers`` (see ``BISECT_IN_WORKERS``);
    ``communities``: inherited labels (``Config.initial_rb_communities``), passed on only when
    given."""
    extra = {} if communities is None else {"communities": communities}
    if workers:
        pool = metis_pool.get_pool(int(cfg.initial_metis_processes))
        if pool.usable:
            request = dict(
                eptr=h.eptr, eind=h.eind, n=h.n, vwgt=h.vwgt, ewgt=h.ewgt, bounds=bounds,
                eps=eps, objective=objective, seed=seed,
                config=dataclasses.asdict(
                    dataclasses.replace(cfg, initial_metis_processes=0, threads=1)),
            )
            if fixed is not None:
                request["fixed"] = fixed
            request.update(extra)
            try:
                return np.asarray(pool.bisect(request, wait_for_start=False), dtype=np.int32)
            except metis_pool.WorkerGone:
                pass  # logged by the pool; run it here
    return bisect(be, h, bounds, eps, objective, seed, cfg, fixed, **extra)


def bisection_seeds(seeds: int, min_seeds: int, k_sub: int, k: int) -> int:
    """METIS seeds of a bisection into ``k_sub`` of the ``k`` blocks
    (``Config.initial_rb_min_seeds``): ``seeds`` when ``min_seeds`` is 0, else
    ``ceil(seeds * k_sub / k)`` and at least ``min(seeds, min_seeds)``: the first bisection gets
    all of them, each level below half as many."""
    if min_seeds <= 0 or k_sub >= k:
        return int(seeds)
    return max(min(int(seeds), int(min_seeds)), -(-int(seeds) * int(k_sub) // int(k)))


def shared_communities(h: Hypergraph, cfg: Config, seed: int) -> np.ndarray | None:
    """The Louvain communities (int32 per vertex, host) that the first bisection of ``h`` finds
    with ``seed`` (the preprocessing of its k = 2 pipeline on the C++ backend), or None where it
    finds none (communities off, or ``h`` below the contraction limit)."""
    be = get_backend("cpu")
    labels = detect_communities(be, be.hypergraph_arrays(h), h, 2, resolve(cfg, be, h, 2), seed,
                                Timer())
    return None if labels is None else np.asarray(be.to_host(labels), dtype=np.int32)


def dense_labels(labels: np.ndarray) -> np.ndarray:
    """``labels`` (non-negative) renumbered ``0 .. c-1`` (int32) in the order of their values
    (a table over the label range: the labels are ids of the vertices of the first bisection,
    no sort needed)."""
    labels = np.asarray(labels)
    if labels.size == 0:
        return np.zeros(0, dtype=np.int32)
    present = np.zeros(int(labels.max()) + 1, dtype=np.int32)
    present[labels] = 1
    return (np.cumsum(present, dtype=np.int32) - 1)[labels]


def recursive_bisection(
    h: Hypergraph,
    k: int,
    epsilon: float,
    objective: str = "cut",
    *,
    seed: int = 0,
    runs: int = 4,
    max_net_size: int = CLIQUE_MAX_NET_SIZE,
    config=None,
    threads: int = 1,
    concurrent: bool = False,
    fixed: np.ndarray | None = None,
    block_bounds: np.ndarray | None = None,
    bisect: Bisect,
) -> np.ndarray:
    """Block ids (int32) of ``h`` in ``k`` blocks by recursive multilevel bisection (see the
    module docstring), each bisection by ``bisect`` (:data:`Bisect`; igpart's is
    :func:`igpart.partitioner.driver.bisect`). ``runs``: METIS seeds per bisection. ``config``: the
    :class:`Config` whose coarsening and refinement knobs the bisections use
    (default: the defaults). Balance is aimed at, not guaranteed (heavy vertices); callers
    rebalance. ``threads``: bisections run concurrently on this many threads (without worker
    processes on at most ``CpuBackend.rb_python_threads`` of them), each as soon as its parent
    is done, and a bisection of ``k_sub`` blocks runs its METIS candidates on
    ``threads * k_sub / k`` threads; a bisection's seed depends only on its place in the
    recursion (first block, number of blocks), so the result does not depend on ``threads``.
    ``concurrent``: other work runs beside this call (the other initial candidates), so with
    worker processes every bisection, the first one too and on one thread too, runs in a worker
    (``BISECT_IN_WORKERS``; the first one here when ``TOP_BISECTION_HERE``). ``fixed`` (int32
    per vertex, -1: free): every bisection fixes each fixed vertex to the side of its block, so
    fixed vertices end in their blocks (balance is aimed at as above).
    ``block_bounds``: one maximum weight per block instead of the
    epsilon bound; each bisection then aims at the sums of its sides' bounds, with the adapted
    imbalance of those capacities (:func:`adapted_epsilon`).
    Raises PartitionError for k < 1 or k > n, InputError for other bad arguments."""
    if not isinstance(h, Hypergraph):
        raise InputError(f"recursive_bisection needs a Hypergraph, got {type(h).__name__}")
    check_arguments(h, k, epsilon, objective, seed)  # k, epsilon, objective, seed: clear errors
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise InputError(f"runs must be a positive integer, got {runs!r}")
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise InputError(f"threads must be a positive integer, got {threads!r}")
    k, epsilon, threads = int(k), float(epsilon), int(threads)
    fixed = check_fixed(fixed, h.n, k)
    config = config if config is not None else Config()
    cfg = dataclasses.replace(
        config,
        # -1 (automatic) resolved for this call's input; the driver passes a resolved value
        initial_metis_processes=metis_processes(config, h.n, k, threads),
        initial="metis",
        initial_runs=int(runs),
        initial_max_net_size=int(max_net_size),
        # bisections coarsen to 2 * contraction_limit: Config.bisection_contraction_limit is
        # for a k = 2 run of the input (on bisections of coarsest levels it cost 1.5-3x the time)
        bisection_contraction_limit=0,
        threads=1,
        vcycles=0,
        refinement="fm",  # as for every initial candidate (Config.refinement)
        fm_max_fruitless_moves=min(int(config.fm_max_fruitless_moves), RB_FM_MAX_FRUITLESS_MOVES),
    )
    total = int(h.total_weight)
    plan = _Plan(
        k=k, epsilon=epsilon, objective=objective, seed=int(seed), runs=int(runs),
        min_seeds=rb_min_seeds(config, 1, h.n >= config.initial_runs_min_n), total=total,
        final=math.floor((1.0 + epsilon) * -(-total // k) + 1e-9), cfg=cfg,
        targets=None if block_bounds is None else np.asarray(block_bounds, dtype=np.int64),
        fixed=fixed,
    )
    be = get_backend("cpu")
    workers = (BISECT_IN_WORKERS and (threads > 1 or bool(concurrent))
               and cfg.initial_metis_processes > 0)
    # with workers, a task of at most this many blocks goes whole to one of them: there are
    # then at least as many tasks as workers (one per worker at that depth, or more)
    subtree_blocks = k // max(1, int(cfg.initial_metis_processes)) if SUBTREES_IN_WORKERS else 0
    parts = np.zeros(h.n, dtype=np.int32)
    gate = None  # set below where the pool has more threads than the Python pipelines may use

    def split(task, inner: int) -> list:
        """The two sub-problems of one bisection; none when the task's whole subtree ran in a
        worker (its blocks then written into ``parts``)."""
        ks = task[3]
        if workers and 1 < ks <= subtree_blocks:
            done = _subtree_in_worker(plan, task)
            if done is not None:
                parts[task[1]] = done
                return []
        if plan.flat_in_cpp(task):  # the whole subtree in C++, without the GIL
            parts[task[1]] = plan.flat_subtree(task, inner)
            return []
        # on a worker thread (threads > 1) the C++ calls get this bisection's share of them;
        # the first bisection runs alone: here, with every thread and the METIS workers for
        # its seeds; the others side by side, each in a worker
        with (omp_threads(inner) if threads > 1 else contextlib.nullcontext(),
              gate if gate is not None else contextlib.nullcontext()):
            return plan.split(task, bisect, be, inner,
                              workers and (ks < k or (concurrent and not TOP_BISECTION_HERE)))

    def to_split(tasks: list) -> list:
        """The tasks that still need a bisection; the others' vertices get their block."""
        todo = []
        for task in tasks:
            if plan.leaf(task):
                parts[task[1]] = task[2]
            else:
                todo.append(task)
        return todo

    # tasks: (sub-hypergraph, its vertex ids in h, first block, number of blocks, inherited
    # communities or None); a task's threads for its METIS candidates: its share of the blocks
    # (threads / 2^depth)
    labels = None
    if config.initial_rb_communities == "once" and k > 1:
        # the first bisection's own (same seed), for it and every one below
        with omp_threads(threads) if threads > 1 else contextlib.nullcontext():
            labels = shared_communities(h, cfg, seed + k)
    todo = to_split([(h, np.arange(h.n, dtype=np.int64), 0, k, labels)])
    if threads == 1:
        with c_stdout_to_stderr():  # once here, not around every METIS call
            while todo:
                todo += to_split(split(todo.pop(), 1))
        return parts
    # without worker processes the bisections' Python takes turns on the GIL: at most
    # CpuBackend.rb_python_threads of them at once, with a short switch interval
    python_threads = threads if workers else max(1, min(threads, int(be.rb_python_threads)))
    # the flat subtrees' C++ calls hold no GIL: every thread may run one, while the Python
    # pipelines of the other bisections pass the gate python_threads at a time
    pool_threads = python_threads
    if (not workers and FLAT_SUBTREES_IN_CPP and int(config.initial_rb_flat_vertices) > 0
            and python_threads < threads):
        pool_threads = threads
        gate = threading.BoundedSemaphore(python_threads)
    interval = 0.0 if workers else float(be.rb_switch_interval)
    # children start as soon as their parent is done. Finished bisections arrive through a
    # queue: waiting on the set of pending ones (concurrent.futures.wait) costs time in the
    # size of that set, up to k / 2, at each of the k - 1 bisections (k = n on ibm01: 21% of
    # the run in wait, quadratic in k)
    finished: queue.SimpleQueue = queue.SimpleQueue()
    with (c_stdout_to_stderr(), gil_switch_interval(interval),  # stdout: before the workers
          ThreadPoolExecutor(pool_threads) as pool):

        def submit(task) -> None:
            pool.submit(split, task, max(1, threads * task[3] // k)).add_done_callback(
                finished.put)

        for t in todo:
            submit(t)
        pending = len(todo)
        while pending:
            future = finished.get()
            pending -= 1
            for t in to_split(future.result()):
                submit(t)
                pending += 1
    return parts


@dataclasses.dataclass
class _Plan:
    """What the bisections of one recursive bisection share: the k-way goal (``k``,
    ``epsilon``, ``objective``, the total weight and its final block bound, the per-block
    ``targets`` or None), the seeds (``seed``, ``runs`` METIS seeds, ``min_seeds``:
    ``Config.initial_rb_min_seeds``), the bisections' :class:`Config` ``cfg`` and the
    ``fixed`` blocks (per vertex of the input, or None). Picklable as plain fields, so that a
    worker process runs whole subtrees with it (:func:`subtree_request`)."""

    k: int
    epsilon: float
    objective: str
    seed: int
    runs: int
    min_seeds: int
    total: int
    final: int
    cfg: Config
    targets: np.ndarray | None
    fixed: np.ndarray | None

    def flat(self, task) -> bool:
        """Whether ``task``'s bisections are flat (fewer than ``Config.initial_rb_flat_vertices``
        vertices: no communities, no coarsening; METIS seeds on the clique expansion, each
        distinct candidate rebalanced and refined, FM on the best)."""
        return task[0] is not None and task[0].n < int(self.cfg.initial_rb_flat_vertices)

    def flat_in_cpp(self, task) -> bool:
        """Whether ``task``'s whole subtree runs in one C++ call (:meth:`flat_subtree`):
        ``FLAT_SUBTREES_IN_CPP``, a flat task, no fixed vertices, METIS as the bisector."""
        return (FLAT_SUBTREES_IN_CPP and self.flat(task) and self.fixed is None
                and self.cfg.initial_bisector == "metis")

    def flat_subtree(self, task, threads: int) -> np.ndarray:
        """The blocks (int32, in the order of ``task``'s ids) of ``task``'s subtree, every
        bisection flat, in one C++ call on ``threads`` OpenMP threads without the GIL
        (``_cpu.rb_flat_subtree``): what :meth:`split` gives them bisection by bisection on one
        thread (the FM of a bisection is the sequential one, with its work bound, unless the
        config asks for ``deterministic=False``)."""
        sub, _, first, ks, _ = task
        c = self.cfg
        return _cpu.rb_flat_subtree(
            np.ascontiguousarray(sub.eptr, dtype=np.int64),
            np.ascontiguousarray(sub.eind, dtype=np.int32),
            np.ascontiguousarray(sub.ewgt, dtype=np.int64),
            np.ascontiguousarray(sub.vwgt, dtype=np.int64), int(first), int(ks), int(self.k),
            float(self.epsilon), OBJECTIVES.index(self.objective), int(self.seed),
            int(self.runs), int(self.min_seeds), int(self.total), int(self.final),
            None if self.targets is None else np.ascontiguousarray(self.targets, np.int64),
            int(c.initial_max_net_size), float(CLIQUE_SCALE), int(c.refine_rounds), bool(c.fm),
            int(c.fm_rounds), int(c.fm_max_fruitless_moves), float(c.fm_min_improvement),
            float(c.fm_max_work) if c.deterministic is not False else 0.0,
            int(c.initial_fm_top), max(1, int(threads)),
        )

    @staticmethod
    def leaf(task) -> bool:
        """Whether ``task`` needs no bisection (one block, or fewer than two vertices); a task
        of one block has no sub-hypergraph (None)."""
        return task[3] == 1 or task[0].n < 2

    def split(self, task, bisect: Bisect, be, inner: int, workers: bool) -> list:
        """The two sub-problems of ``task``'s bisection (run by ``bisect`` with ``inner``
        threads, in a worker process when ``workers``)."""
        sub, ids, first, ks, labels = task
        k, k0 = self.k, (ks + 1) // 2
        k1 = ks - k0
        if self.targets is None:
            caps = np.array([self.final * k0, self.final * k1], dtype=np.int64)
            eps = adapted_epsilon(self.epsilon, self.total, k, int(sub.total_weight), ks)
            shares, whole = (k0, k1), ks
        else:  # the sides' capacities: the sums of their blocks' bounds
            caps = np.array([self.targets[first:first + k0].sum(),
                             self.targets[first + k0:first + ks].sum()], dtype=np.int64)
            eps = adapted_epsilon(0.0, self.total, k, int(sub.total_weight), ks,
                                  capacity=int(caps.sum()))
            shares, whole = caps.tolist(), max(1, int(caps.sum()))
        bounds = np.array([math.floor((1.0 + eps) * sub.total_weight * share / whole + 1e-9)
                           for share in shares], dtype=np.int64)
        # never more than the sides' share of the final k-way bounds
        bounds = np.minimum(bounds, caps)
        bcfg = copy_config(self.cfg, threads=inner,
                           initial_runs=bisection_seeds(self.runs, self.min_seeds, ks, k))
        if self.flat(task):  # one level: no communities, no coarsening
            bcfg = copy_config(bcfg, communities=False, contraction_limit=FLAT_LIMIT)
        sides = None
        if self.fixed is not None:
            f = self.fixed[ids]
            sides = np.where(f < 0, -1, (f >= first + k0).astype(np.int32)).astype(np.int32)
        side = _bisect_anywhere(bisect, be, sub, bounds, eps, self.objective,
                                self.seed + 7919 * first + ks, bcfg, workers, sides, labels)
        out = []
        for s, (off, kk) in enumerate(((first, k0), (first + k0, k1))):
            local = np.flatnonzero(side == s)
            # a side of one block is a leaf: its vertices only get their block (no hypergraph)
            out.append((sub_hypergraph(sub, local, self.objective) if kk > 1 else None,
                        ids[local], off, kk,
                        None if labels is None or kk < 2 else dense_labels(labels[local])))
        return out

    def subtree(self, task, bisect: Bisect, be) -> np.ndarray:
        """The blocks (int32, ``first .. first + ks - 1``) of ``task``'s vertices, in the order
        of its ``ids``: every bisection of its subtree, one after another, here."""
        ids = task[1]
        where = np.empty(int(ids.max(initial=-1)) + 1, dtype=np.int64)
        where[ids] = np.arange(ids.size)
        out = np.empty(ids.size, dtype=np.int32)
        todo = [task]
        while todo:
            t = todo.pop()
            if self.leaf(t):
                out[where[t[1]]] = t[2]
            elif self.flat_in_cpp(t):
                out[where[t[1]]] = self.flat_subtree(t, 1)
            else:
                todo += self.split(t, bisect, be, 1, False)
        return out


#: With worker processes, a task of at most ``k / workers`` blocks (where there are at least as
#: many tasks as workers) runs whole in one worker (:func:`subtree_request`): one round trip,
#: one request and the sub-hypergraphs' extraction there, instead of one per bisection. The
#: same partition either way; tests switch it off to compare.
SUBTREES_IN_WORKERS = True

#: A task of fewer than ``Config.initial_rb_flat_vertices`` vertices (whose bisections are all
#: flat: no communities, no coarsening) runs its whole subtree in one C++ call
#: (:meth:`_Plan.flat_subtree`: the bisections as OpenMP tasks, without the GIL) instead of one
#: Python pipeline per bisection, whose Python parts take turns on the GIL. The same partition
#: either way (the bisections on one thread each); tests switch it off to compare.
FLAT_SUBTREES_IN_CPP = True


def _subtree_in_worker(plan: _Plan, task) -> np.ndarray | None:
    """:meth:`_Plan.subtree` of ``task`` in a worker process, or None when no worker can run it
    (the caller then bisects it here)."""
    pool = metis_pool.get_pool(int(plan.cfg.initial_metis_processes))
    if not pool.usable:
        return None
    sub, ids, first, ks, labels = task
    fields = {f.name: getattr(plan, f.name) for f in dataclasses.fields(_Plan)}
    fields.update(
        cfg=dataclasses.asdict(dataclasses.replace(plan.cfg, initial_metis_processes=0,
                                                   threads=1)),
        fixed=None if plan.fixed is None else plan.fixed[ids],  # in the order of ids
    )
    request = dict(plan=fields, eptr=sub.eptr, eind=sub.eind, n=sub.n, vwgt=sub.vwgt,
                   ewgt=sub.ewgt, first=first, ks=ks, labels=labels)
    try:
        return np.asarray(pool.call({**request, "op": "subtree"}, wait_for_start=False),
                          dtype=np.int32)
    except metis_pool.WorkerGone:
        return None  # logged by the pool


def subtree_request(bisect: Bisect, *, plan: dict, eptr, eind, n, vwgt, ewgt, first, ks,
                    labels=None) -> np.ndarray:
    """:meth:`_Plan.subtree` on the C++ backend from a worker's request: the plan's fields
    (``cfg`` as a dict of :class:`Config` fields, ``fixed`` restricted to the task's vertices
    in their order), the sub-hypergraph's arrays, its first block, its number of blocks and
    its inherited communities."""
    h = Hypergraph(eptr, eind, int(n), vwgt, ewgt, check=False)
    p = _Plan(**{**plan, "cfg": Config(**plan["cfg"])})
    task = (h, np.arange(h.n, dtype=np.int64), int(first), int(ks),
            None if labels is None else np.asarray(labels, dtype=np.int32))
    return p.subtree(task, bisect, get_backend("cpu"))
