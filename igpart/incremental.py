"""Incremental engine driver (DESIGN §4; iG-kway §V generalised to hypergraphs).

:class:`IncrementalPartitioner` keeps a design in a :class:`~igpart.dynamic.DynamicHypergraph`
together with a balanced k-way partition. Each :meth:`~IncrementalPartitioner.apply` validates and
applies a :class:`~igpart.dynamic.Batch` of changes, then refines the partition around what the
batch touched, in the backend (C++: ``kernels/cpu/incremental.cpp``):

1. *Pseudo-partition* (iG-kway Alg. 3): new vertices, and affected vertices (those the batch
   touched and the pins of the nets it touched) whose external connectivity exceeds their
   internal one (``adj_ext > adj_int``, with nets weighted and pins in the pseudo-partition not
   counted), leave their blocks; then the neighbours of those vertices are filtered the same way
   (``expand`` levels). If a block is still above the balance bound, more vertices of that block
   (the affected region first, then its neighbourhood) join the pseudo-partition.
2. *Placement* (Alg. 4, Fig. 5): in rounds, pseudo vertices sharing no net with a pseudo vertex of
   smaller id choose the block with room that keeps the most net weight uncut (cut) or already
   connected (km1); moves sorted by that score; the longest prefix that keeps every block within
   the bound is applied. After ``max_rounds`` rounds the rest are placed one at a time.
3. *Local refinement* of the affected region: sequence-based rounds (positive-gain moves by gain,
   gains recomputed in sequence, best balanced prefix kept) and one boundary FM pass with
   rollback.

Fixed vertices (``fixed=`` at construction, :meth:`IncrementalPartitioner.fix` later) stay in
their blocks: they never join the pseudo-partition nor the local refinement, and the quality
guard re-partitions with them fixed. A deleted vertex is no longer fixed (its id may be reused).
Both engines lock them: the C++ refiner's ``locked`` mask, the GPU kernels' per-vertex bytes.

The partition is balanced afterwards; if it is not (only possible when vertex weights leave no
room, e.g. a vertex heavier than any block's spare capacity), the quality guard re-partitions.

Quality guard: when the changes since the last full partition (batch records) exceed
``max_change_fraction`` of the design (vertices + nets at that time), or the objective exceeds
``(1 + max_cut_drift) * reference + cut_drift_slack`` (reference: the objective right after the
last full partition), the design is re-partitioned fully, warm-started from the current
partition (:func:`igpart.improve`: rebalance, refinement and V-cycles inside the
current blocks), and, with ``guard_fresh``, also from scratch (:func:`igpart.partition`); the
better balanced result is kept. The result says so (``full_repartition``, ``reason``).

Atomic batches: :meth:`IncrementalPartitioner.apply` (also :meth:`~IncrementalPartitioner.fix`
and :meth:`~IncrementalPartitioner.repartition`) runs as one transaction. When anything fails
after the structure took the batch (refinement, the quality guard, an allocation, an interrupt,
a callback), the engine returns to its state before the batch: hypergraph, weights, partition,
block weights, cut / km1, free ids, capacities and counters, and the exception propagates
unchanged (a BatchError / InputError for bad input). :meth:`transaction` lets a caller make its
own steps after the batch part of it. How each structure does it:

- An invalid batch never reaches that point: both structures check every record against the
  current state and the batch's earlier records before they change anything (the C++ validator;
  on the GPU, validating kernels whose result the applying kernel checks before its first write,
  and a validate-only launch before pools or id ranges grow), so an InputError leaves the
  structure byte-identical.
- The C++ structure keeps an undo journal of the batch's writes (time proportional to them).
- The GPU structure copies its whole state when the transaction opens (every attribute of the
  object: device arrays device to device, page-locked host pools into page-locked memory, host
  mirrors by value; igpart/kernels/state_snapshot.py) and on failure puts the copies back, grown
  arrays included; a commit drops the copy. That costs a pass over the state and as much device
  memory again per batch; ``atomic=False`` turns it off. The rollback restores the state byte
  for byte; after it, as between any two GPU engines given the same batches, the order of the
  entries within a list may differ from an engine that never saw the failed batch (racing warps
  claim bucket slots), not the lists' contents.

``engine="gpu"`` keeps the dynamic structure on the GPU and runs the same three steps there
(``DynamicHypergraph.refine``: igpart/kernels/gpu/dynamic.cu, one launch; its local refinement is
rounds of exact-gain moves of vertices sharing no net, without the FM pass); the quality guard is
the same.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .dynamic import Batch, BatchResult, DynamicHypergraph
from .errors import InputError
from .hypergraph import Graph, Hypergraph
from .kernels import budget, get_backend
from .metrics import OBJECTIVES
from .partitioner.api import improve, partition
from .partitioner.config import Config

log = logging.getLogger(__name__)


@dataclass
class IncrementalConfig:
    """Tunables of incremental refinement and of the quality guard.

    Refinement: ``max_net_size`` (nets with more pins neither spread "affected" to their pins nor
    make their pins adjacent in placement rounds), ``expand`` (neighbour levels around pseudo
    vertices; the paper uses 1), ``max_rounds`` (placement rounds before the rest are placed one
    at a time), ``refine_rounds`` (local sequence-refinement rounds), ``fm`` (local FM pass),
    ``fm_max_fruitless`` (FM stops after this many moves without a new best), ``fm_max_moves``
    (0: 4 x region + 64).
    Guard: ``guard`` (on/off), ``max_change_fraction``, ``max_cut_drift``, ``cut_drift_slack``
    (see the module docstring), ``guard_vcycles`` (V-cycles of the warm start), ``guard_fresh``
    (also partition from scratch and keep the better).
    ``atomic``: a failure after the structure took a batch rolls the batch back (see the
    module docstring); False leaves it applied (and spares the GPU engine its per-batch copy).
    ``initial_repetitions``: when the engine partitions the design itself (no ``parts``), the
    initial partition is the best of this many runs of the full partitioner (at least the
    config's ``repetitions``; seeds as for ``Config.repetitions``, so the first run is the
    single-run partition). The engine keeps the quality it starts from, and a session pays
    this once while batches come for hours: one run's seed spread (about 6% of the cut at
    k = 8 on ``random_circuit``) would otherwise decide for the whole session whether its cut
    sits above or below a fresh partition's; measurements in BENCHMARKS.md, "Incremental
    engine". 1: a single run.
    """

    max_net_size: int = 64
    expand: int = 1
    max_rounds: int = 32
    refine_rounds: int = 4
    fm: bool = True
    fm_max_fruitless: int = 64
    fm_max_moves: int = 0
    guard: bool = True
    max_change_fraction: float = 0.10
    max_cut_drift: float = 0.10
    cut_drift_slack: int = 16
    guard_vcycles: int = 1
    guard_fresh: bool = True
    atomic: bool = True
    initial_repetitions: int = 3

    def validate(self) -> IncrementalConfig:
        """Raises InputError on values the engine cannot use; returns self."""
        ints = {"max_net_size": 2, "expand": 0, "max_rounds": 0, "refine_rounds": 0,
                "fm_max_fruitless": 1, "fm_max_moves": 0, "cut_drift_slack": 0,
                "guard_vcycles": 0, "initial_repetitions": 1}  # fmt: skip
        for name, low in ints.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
                raise InputError(
                    f"incremental option {name} must be an integer >= {low}, got {v!r}"
                )
        for name in ("max_change_fraction", "max_cut_drift"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not v >= 0:
                raise InputError(f"incremental option {name} must be a number >= 0, got {v!r}")
        return self

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> IncrementalConfig:
        """A config from keyword overrides; unknown keys raise InputError."""
        d = dict(d or {})
        unknown = sorted(set(d) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise InputError(f"unknown incremental option(s): {', '.join(unknown)}")
        return cls(**d).validate()


@dataclass
class IncrementalResult:
    """What one batch (or one forced re-partition) did to the partition.

    ``moved``: vertices that existed before the batch and whose block changed (ascending), with
    ``moved_from`` / ``moved_to``; ``new_vertices`` / ``new_blocks``: vertices the batch created
    and where they ended. Metrics are the maintained ones after the batch (equal to a
    from-scratch evaluation). ``full_repartition`` and ``reason`` say whether the quality guard
    re-partitioned; ``stats`` counts the refinement's work (under a memory budget, ``transfer``
    holds the batch's host -> device figures of :meth:`DynamicHypergraph.end_batch`);
    ``timings`` are seconds per phase.
    """

    batch: int
    records: int
    moved: np.ndarray
    moved_from: np.ndarray
    moved_to: np.ndarray
    new_vertices: np.ndarray
    new_blocks: np.ndarray
    cut: int
    km1: int
    block_weights: np.ndarray
    max_block_weight: int
    imbalance: float
    balanced: bool
    full_repartition: bool = False
    reason: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    created: np.ndarray | None = None

    @property
    def seconds(self) -> float:
        return float(self.timings.get("total", 0.0))

    def id_of(self, reference: int) -> int:
        """The id created by the insert record behind ``reference`` (see ``Batch``)."""
        r = -int(reference) - 1
        if self.created is None or not 0 <= r < self.created.size or self.created[r] < 0:
            raise InputError(f"{reference} is not a reference to an insert of this batch")
        return int(self.created[r])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "batch": self.batch,
            "records": self.records,
            "moved": [int(v) for v in self.moved],
            "moved_from": [int(b) for b in self.moved_from],
            "moved_to": [int(b) for b in self.moved_to],
            "new_vertices": [int(v) for v in self.new_vertices],
            "new_blocks": [int(b) for b in self.new_blocks],
            "cut": self.cut,
            "km1": self.km1,
            "block_weights": [int(w) for w in self.block_weights],
            "max_block_weight": self.max_block_weight,
            "imbalance": round(self.imbalance, 6),
            "balanced": self.balanced,
            "full_repartition": self.full_repartition,
            "reason": self.reason,
            "stats": {k: _json_stat(v) for k, v in self.stats.items()},
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
        }


def _full_backend(backend, memory_budget: int, h: Hypergraph, k: int):
    """The backend of full partitions under a budget: the backend with the budget (a device
    backend keeps the finest levels' pin arrays in host memory when they do not fit); an
    InputError names the minimum when not even the coarse levels fit."""
    be = get_backend(backend, memory_budget=memory_budget)
    be.check_memory(h.n, h.m, int(h.eind.shape[0]), k)
    return be


def _json_stat(v):
    if isinstance(v, (bool, str)):
        return v
    if isinstance(v, dict):
        return {k: _json_stat(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_stat(x) for x in v]
    return int(v)


class IncrementalPartitioner:
    """A design under change with a maintained, incrementally refined k-way partition.

    Built from a :class:`Hypergraph` or a :class:`Graph` (edges become 2-pin nets, so cut and km1
    are the edge cut). Without ``parts`` it partitions first with :func:`igpart.partition`, the
    best of ``options.initial_repetitions`` runs (:class:`IncrementalConfig`; its seconds in
    ``initial_seconds``).
    ``memory_budget`` (bytes, or e.g. ``"2GiB"``; default: ``IGPART_GPU_MEMORY_BUDGET``, else
    none): the dynamic structure keeps its adjacency in a host store with a hot-row cache
    (:mod:`igpart.dynamic`), with the same moves as without; each result's ``stats["transfer"]``
    reports the batch's host -> device bytes; ``cache_tau`` / ``cache_staging``: the cache's
    sliding window and staging (:meth:`DynamicHypergraph.from_hypergraph`). A budget below the
    device state's minimum raises InputError naming the minimum, before anything is partitioned.

    >>> from igpart.generators import random_circuit
    >>> ip = IncrementalPartitioner(random_circuit(2000, seed=1), k=4)
    >>> b = Batch()
    >>> v = b.insert_vertex()
    >>> _ = b.insert_pin(v, 0)
    >>> r = ip.apply(b)
    >>> r.balanced, ip.dynamic.cut == r.cut
    (True, True)
    """

    def __init__(
        self,
        h: Hypergraph | Graph,
        k: int,
        epsilon: float = 0.03,
        objective: str = "cut",
        *,
        parts=None,
        backend: str = "auto",
        seed: int = 0,
        config: Config | dict | None = None,
        options: IncrementalConfig | dict | None = None,
        phi: str = "auto",
        engine: str = "cpu",
        fixed=None,
        memory_budget: int | str | None = None,
        cache_tau: int = 3,
        cache_staging: bool = True,
        max_block_weights=None,
    ):
        if not isinstance(h, (Hypergraph, Graph)):
            raise InputError(f"expected a Hypergraph or Graph, got {type(h).__name__}")
        if objective not in OBJECTIVES:
            raise InputError(
                f"unknown objective '{objective}' (choose from {', '.join(OBJECTIVES)})"
            )
        if isinstance(options, IncrementalConfig):
            self.options = dataclasses.replace(options).validate()
        elif options is None or isinstance(options, dict):
            self.options = IncrementalConfig.from_dict(options)
        else:
            raise InputError(f"options must be an IncrementalConfig or a dict, not {type(options)}")
        self.k = int(k)
        self.epsilon = float(epsilon)
        self.objective = objective
        self.seed = int(seed)
        self.config = Config.of(config)  # validated now, also when ``parts`` is given
        self.backend = backend  # of full partitioning
        if engine not in ("cpu", "gpu"):
            raise InputError(f"engine must be 'cpu' or 'gpu', got {engine!r}")
        self.engine = engine  # where the dynamic structure and incremental refinement run
        #: device memory budget in bytes (None: everything in memory; default: the
        #: IGPART_GPU_MEMORY_BUDGET environment variable)
        self.memory_budget = budget.resolve(memory_budget)
        self.is_graph = isinstance(h, Graph)
        t0 = time.perf_counter()
        from .fixed import check_fixed
        from .metrics import check_block_weights, max_block_weight

        #: per-block maximum weights (int64, k) instead of the epsilon bound, or None
        self.targets = None if max_block_weights is None else check_block_weights(
            max_block_weights, self.k, h.total_weight)
        fixed = check_fixed(fixed, h.n, self.k, h.vwgt, np.full(
            self.k, max_block_weight(h.total_weight, self.k, self.epsilon), dtype=np.int64)
            if self.targets is None else self.targets)
        hyper = h.to_hypergraph() if self.is_graph else h
        if self.memory_budget is not None:  # a budget below the minimum fails before partitioning
            if engine == "gpu":
                from .dynamic import gpu_placement

                gpu_placement(hyper, self.k, self.memory_budget)
            else:
                budget.require_dynamic_state(self.memory_budget, hyper.n, hyper.m, self.k)
            if backend != "cpu":
                self.backend = _full_backend(backend, self.memory_budget, hyper, self.k)
        #: seconds of the initial partition (0 when ``parts`` were given)
        self.initial_seconds = 0.0
        if parts is None:
            t_initial = time.perf_counter()
            runs = max(self.config.repetitions, self.options.initial_repetitions)
            parts = partition(h, self.k, self.epsilon, objective, self.backend, self.seed,
                              dataclasses.replace(self.config, repetitions=runs), fixed=fixed,
                              max_block_weights=self.targets).parts
            self.initial_seconds = time.perf_counter() - t_initial
        elif fixed is not None:  # a given partition: the fixed vertices go to their blocks
            from .metrics import check_parts

            parts = np.where(fixed >= 0, fixed, check_parts(parts, h.n, self.k))
        #: block of each fixed vertex id, -1 for free ids (grown with the id space)
        self._fixed = (np.full(h.n, -1, np.int32) if fixed is None else fixed.copy())
        #: whether any vertex is fixed (kept with _fixed, so that batches skip a scan of it)
        self._has_fixed = bool((self._fixed >= 0).any())
        self.dynamic = DynamicHypergraph.from_hypergraph(
            hyper, parts, self.k, self.epsilon, phi=phi, backend=engine,
            memory_budget=self.memory_budget, cache_tau=cache_tau, cache_staging=cache_staging,
        )  # fmt: skip
        self._refiner = get_backend("cpu").incremental_refiner() if engine == "cpu" else None
        if self._refiner is not None:
            empty = np.zeros(0, np.int32)
            self._refiner.refine(self.dynamic._impl, empty, empty, empty,
                                 bounds=self.targets)  # allocates scratch
        self.batches = 0
        self.full_partitions = 0
        self._changes_since_full = 0
        self._txn: dict | None = None  # the open transaction (see transaction())
        self._reset_guard()
        self.setup_seconds = time.perf_counter() - t0

    # ------------------------------------------------------------------ state
    @property
    def parts(self) -> np.ndarray:
        """Block of each vertex id below ``dynamic.vertex_bound`` (-1 for deleted ids)."""
        return self.dynamic.parts

    @property
    def fixed(self) -> np.ndarray:
        """Fixed block of each vertex id below ``dynamic.vertex_bound`` (-1: free or deleted)."""
        out = np.full(self.dynamic.vertex_bound, -1, np.int32)
        n = min(out.size, self._fixed.size)
        out[:n] = self._fixed[:n]
        return out

    def _locked(self):
        """The refiner's ``locked`` mask (uint8 per vertex id), or None without fixed ones."""
        if not self._has_fixed:
            return None
        return (self._fixed >= 0).astype(np.uint8)

    def _forget_fixed(self, vertices) -> None:
        """Frees the given vertex ids (deleted vertices, new vertices that reuse an id)."""
        vs = np.asarray(vertices, dtype=np.int64)
        vs = vs[(vs >= 0) & (vs < self._fixed.size)]
        if self._txn is not None:
            self._txn["fixed_log"].append((self._fixed, vs, self._fixed[vs].copy()))
        self._fixed[vs] = -1

    # ------------------------------------------------------------------ transactions
    _SAVED = ("batches", "full_partitions", "_changes_since_full", "_design_size",
              "_reference", "_fixed", "_has_fixed")  # fmt: skip

    @contextlib.contextmanager
    def transaction(self):
        """A context in which everything the engine does is one transaction: when the block
        raises (any exception, KeyboardInterrupt included), the engine returns to its state
        on entry (structure, partition, metrics, fixed vertices, counters) and the exception
        propagates. Inside an open transaction it only joins it; with ``atomic=False`` it does
        nothing."""
        if self._txn is not None or not self.options.atomic:
            yield self
            return
        saved = {name: getattr(self, name) for name in self._SAVED}
        self.dynamic.begin_batch()
        self._txn = {"saved": saved, "fixed_log": []}
        try:
            yield self
        except BaseException:
            self._rollback()
            raise
        self._txn = None
        self.dynamic.commit_batch()

    def _rollback(self) -> None:
        txn, self._txn = self._txn, None
        self.dynamic.rollback_batch()
        for name, value in txn["saved"].items():
            setattr(self, name, value)
        for arr, vs, old in reversed(txn["fixed_log"]):
            arr[vs] = old

    def fix(self, vertices, blocks) -> IncrementalResult:
        """Fixes ``vertices[i]`` (live ids) to ``blocks[i]`` (-1 frees it again): each moves
        to its block now, and the partition is refined around the moved ones with every fixed
        vertex locked (what :meth:`refine` does). All validated first: an id that is not a
        live vertex, a block outside [-1, k), or fixed weight above a block's maximum weight
        raises InputError and changes nothing."""
        vs = np.atleast_1d(np.asarray(vertices))
        bs = np.atleast_1d(np.asarray(blocks))
        if vs.ndim != 1 or vs.shape != bs.shape:
            raise InputError("fix: vertices and blocks must be 1-D and of one length")
        if vs.size and (vs.dtype.kind not in "iu" or bs.dtype.kind not in "iu"):
            raise InputError("fix: vertex ids and blocks must be integers")
        vs, bs = vs.astype(np.int64), bs.astype(np.int64)
        with self.transaction():
            return self._fix(vs, bs)

    def _fix(self, vs: np.ndarray, bs: np.ndarray) -> IncrementalResult:
        cur = self.dynamic.blocks_of(vs)
        dead = np.flatnonzero(cur < 0)
        if dead.size:
            raise InputError(f"fix: {int(vs[dead[0]])} is not a live vertex id")
        bad = np.flatnonzero((bs < -1) | (bs >= self.k))
        if bad.size:
            raise InputError(f"fix: block {int(bs[bad[0]])} of vertex {int(vs[bad[0]])} is out "
                             f"of range (-1: free, else 0 .. {self.k - 1})")
        fixed = self.fixed
        fixed[vs] = bs
        w = self.dynamic.vertex_weights
        load = np.bincount(fixed[fixed >= 0], weights=w[fixed >= 0], minlength=self.k)
        bounds = self.block_bounds
        over = np.flatnonzero(load > bounds)
        if over.size:
            b = int(over[0])
            raise InputError(f"fix: the vertices fixed to block {b} would weigh "
                             f"{int(load[b])}, more than its maximum weight {int(bounds[b])}")
        self._fixed = fixed
        self._has_fixed = bool((fixed >= 0).any())
        go = np.flatnonzero((bs >= 0) & (cur != bs))
        t0 = time.perf_counter()
        if go.size:
            self.dynamic.move(vs[go], bs[go])
        res = self._refine_given(vs[go].astype(np.int32), (), ())
        # the moves relative to the blocks before this call: a vertex moved here came from
        # its block then, one the refinement moved from its block on entry (res.moved sorted)
        g, gfrom = vs[go], cur[go]
        moved = np.union1d(res.moved, g).astype(np.int32)
        frm = np.empty(moved.size, dtype=np.int32)
        in_res = np.isin(moved, res.moved)
        frm[in_res] = res.moved_from[np.searchsorted(res.moved, moved[in_res])]
        in_go = np.isin(moved, g)
        order = np.argsort(g, kind="stable")
        frm[in_go] = gfrom[order][np.searchsorted(g[order], moved[in_go])]
        now = self.dynamic.blocks_of(moved)
        keep = frm != now
        res.moved, res.moved_from, res.moved_to = moved[keep], frm[keep], now[keep]
        res.timings["total"] = time.perf_counter() - t0
        return res

    @property
    def objective_value(self) -> int:
        return int(self.dynamic.cut if self.objective == "cut" else self.dynamic.km1)

    @property
    def block_bounds(self) -> np.ndarray:
        """The maximum weight of each block (int64, k): the per-block ``max_block_weights``,
        else the epsilon bound of the current total weight."""
        if self.targets is not None:
            return self.targets
        return np.full(self.k, self.dynamic.max_block_weight, dtype=np.int64)

    def metrics(self) -> dict:
        """The maintained metrics (cut, km1, block weights, bound, imbalance, balanced); with
        per-block maximum weights, balance and imbalance are measured against them (as
        :func:`igpart.metrics.evaluate` does) and ``max_block_weights`` lists them."""
        m = self.dynamic.metrics()
        if self.targets is not None:
            bw = np.asarray(m["block_weights"], dtype=np.int64)
            ratio = bw / np.maximum(self.targets, 1)  # a bound of 0: any weight is overload
            m.update(max_block_weight=int(self.targets.max(initial=0)),
                     imbalance=float(ratio.max(initial=0.0)) - 1.0,
                     balanced=bool((bw <= self.targets).all()),
                     max_block_weights=[int(b) for b in self.targets])
        return m

    def _balanced(self) -> bool:
        if self.targets is None:
            return self.dynamic.is_balanced
        return bool((np.asarray(self.dynamic.block_weights) <= self.targets).all())

    def _reset_guard(self) -> None:
        self._changes_since_full = 0
        self._design_size = max(1, self.dynamic.num_vertices + self.dynamic.num_nets)
        self._reference = self.objective_value

    def guard_reason(self) -> str | None:
        """Why the quality guard would re-partition now, or None."""
        o = self.options
        if not self._balanced():
            return "incremental refinement left a block above the balance bound"
        if not o.guard:
            return None
        frac = self._changes_since_full / self._design_size
        if frac > o.max_change_fraction:
            return (f"changes since the last full partition ({self._changes_since_full} records, "
                    f"{frac:.1%} of the design) exceed {o.max_change_fraction:.1%}")
        limit = (1.0 + o.max_cut_drift) * self._reference + o.cut_drift_slack
        if self.objective_value > limit:
            return (f"{self.objective} drifted to {self.objective_value}, past "
                    f"(1 + {o.max_cut_drift}) x {self._reference} + {o.cut_drift_slack}")
        return None

    # ------------------------------------------------------------------ changes
    def apply(self, batch: Batch, on_applied=None) -> IncrementalResult:
        """Validates and applies ``batch`` (an invalid record raises BatchError and changes
        nothing), refines the partition around it, and runs the quality guard.
        ``on_applied(batch_result)`` is called once the structure holds the batch, before
        refinement (for callers that keep their own state in step with it).
        Atomic: when anything fails after the structure took the batch, the engine returns to
        its state before it and the exception propagates (see :meth:`transaction`)."""
        with self.transaction():
            return self._apply(batch, on_applied)

    def _apply(self, batch: Batch, on_applied) -> IncrementalResult:
        t0 = time.perf_counter()
        res = self.dynamic.apply(batch)
        if self.targets is not None and self.dynamic.total_weight > int(self.targets.sum()):
            raise InputError(f"the batch brings the total vertex weight to "
                             f"{self.dynamic.total_weight}, more than the per-block maximum "
                             f"weights allow ({int(self.targets.sum())}); nothing was applied")
        if self._has_fixed:
            # deleted vertices are no longer fixed, and an id a new vertex reuses is free
            ids = np.flatnonzero(self._fixed >= 0)
            self._forget_fixed(ids[self.dynamic.blocks_of(ids) < 0])
            self._forget_fixed(res.new_vertices)
            self._has_fixed = bool((self._fixed >= 0).any())
        if on_applied is not None:
            on_applied(res)
        t1 = time.perf_counter()
        return self._refine(res, len(batch), t0, t1)

    def refine(self, touched_vertices=(), touched_nets=(), new_vertices=()) -> IncrementalResult:
        """Refines around the given vertex / net ids (no change applied): what :meth:`apply`
        does after the batch, for callers that change the structure themselves; atomic as
        :meth:`apply`."""
        with self.transaction():
            return self._refine_given(touched_vertices, touched_nets, new_vertices)

    def _refine_given(self, touched_vertices, touched_nets, new_vertices) -> IncrementalResult:
        t0 = time.perf_counter()
        res = BatchResult(
            np.zeros(0, np.int64), np.asarray(touched_vertices, np.int32),
            np.asarray(touched_nets, np.int32), np.zeros(0, np.int8),
        )  # fmt: skip
        new = np.asarray(new_vertices, np.int32)
        return self._refine(res, 0, t0, t0, new=new, given=True)

    def _refine(self, res: BatchResult, records: int, t0: float, t1: float, new=None,
                given: bool = False):  # fmt: skip
        o = self.options
        d = self.dynamic
        if new is None:
            new = res.new_vertices.astype(np.int32)
        new = new[d.blocks_of(new) >= 0] if new.size else new
        if self.engine == "gpu":
            moved, frm, stats = self._refine_gpu(res, given, new)
        else:
            moved, frm, stats = self._refiner.refine(
                d._impl, np.asarray(res.touched_vertices, np.int32),
                np.asarray(res.touched_nets, np.int32), new, OBJECTIVES.index(self.objective),
                o.max_net_size, o.expand, o.max_rounds, o.refine_rounds, o.fm,
                o.fm_max_fruitless, o.fm_max_moves, locked=self._locked(),
                bounds=self.targets,
            )  # fmt: skip
        t2 = time.perf_counter()
        self.batches += 1
        self._changes_since_full += records
        timings = {"apply": t1 - t0, "refine": t2 - t1}
        keep = ~np.isin(moved, new)
        moved, frm = moved[keep], frm[keep]
        reason = self.guard_reason()
        full = reason is not None
        if full:
            before = d.parts
            self._repartition(timings)
            now = d.parts
            changed = np.flatnonzero(before != now)
            changed = changed[~np.isin(changed, new)]
            # fold the refinement's moves into the re-partition's, relative to the batch start
            start = before.copy()
            start[moved] = frm
            changed = np.union1d(changed, moved)
            changed = changed[start[changed] != now[changed]]
            moved, frm = changed.astype(np.int32), start[changed].astype(np.int32)
        order = np.argsort(moved, kind="stable")
        moved, frm = moved[order], frm[order]
        if d.has_store:  # the batch's reads, refinement and any re-partition included
            stats = {**stats, "transfer": d.end_batch()}
        timings["total"] = time.perf_counter() - t0
        m = self.metrics()
        return IncrementalResult(
            batch=self.batches - 1, records=records, moved=moved, moved_from=frm,
            moved_to=d.blocks_of(moved), new_vertices=new, new_blocks=d.blocks_of(new),
            cut=m["cut"],
            km1=m["km1"], block_weights=m["block_weights"],
            max_block_weight=m["max_block_weight"], imbalance=m["imbalance"],
            balanced=m["balanced"], full_repartition=full, reason=reason, stats=stats,
            timings=timings, created=getattr(res, "created", None),
        )  # fmt: skip

    def _refine_gpu(self, res: BatchResult, given: bool, new):
        """GPU refinement (igpart/kernels/gpu/dynamic.cu, the same Alg. 3 / Alg. 4 / local
        refinement steps in one launch) of what the batches queued on the device."""
        o = self.options
        d = self.dynamic
        if given:  # refine() without a batch: queue the given ids
            d._impl.add_seeds(np.asarray(res.touched_vertices, np.int32), new)
        info = d.refine(self.objective, expand=o.expand > 0, big_net=o.max_net_size,
                        passes=o.refine_rounds, locked=self._locked(),
                        bounds=self.targets)  # fmt: skip
        stats = {key: info[key] for key in ("rounds", "pseudo", "region", "local_moves",
                                           "forced", "fallbacks")}  # fmt: skip
        moved = info["changed_vertices"].astype(np.int32)
        return moved, info["changed_from"].astype(np.int32), stats

    def repartition(self, reason: str = "requested") -> IncrementalResult:
        """Re-partitions fully now (as the quality guard does) and reports the moves; atomic as
        :meth:`apply`."""
        with self.transaction():
            return self._repartition_now(reason)

    def _repartition_now(self, reason: str) -> IncrementalResult:
        t0 = time.perf_counter()
        d = self.dynamic
        before = d.parts
        timings: dict[str, float] = {}
        self._repartition(timings)
        now = d.parts
        moved = np.flatnonzero(before != now).astype(np.int32)
        timings["total"] = time.perf_counter() - t0
        m = self.metrics()
        return IncrementalResult(
            batch=self.batches, records=0, moved=moved, moved_from=before[moved],
            moved_to=now[moved], new_vertices=np.zeros(0, np.int32),
            new_blocks=np.zeros(0, np.int32), cut=m["cut"], km1=m["km1"],
            block_weights=m["block_weights"], max_block_weight=m["max_block_weight"],
            imbalance=m["imbalance"], balanced=m["balanced"], full_repartition=True,
            reason=reason, timings=timings,
        )  # fmt: skip

    def _repartition(self, timings: dict[str, float]) -> None:
        """Full re-partition of the current design, warm-started from the current partition
        (and from scratch with ``guard_fresh``); the best balanced result replaces it."""
        t0 = time.perf_counter()
        snap = self.dynamic.to_hypergraph()
        h = snap.hypergraph
        o = self.options
        args = (self.k, self.epsilon, self.objective, self.backend, self.seed, self.config)
        fixed = self.fixed[snap.vertex_ids]
        fixed = fixed if bool((fixed >= 0).any()) else None
        cands = []
        if h.n >= self.k:
            cands.append(improve(h, snap.parts, *args, vcycles=o.guard_vcycles, fixed=fixed,
                                 max_block_weights=self.targets))
            if o.guard_fresh:
                cands.append(partition(h, *args, fixed=fixed, max_block_weights=self.targets))
        cands = [c for c in cands if c.balanced]
        if cands:
            best = min(cands, key=lambda c: c.objective_value)
            changed = np.flatnonzero(best.parts != snap.parts)
            self.dynamic.move(snap.vertex_ids[changed], best.parts[changed])
        self.full_partitions += 1
        self._reset_guard()
        timings["full"] = time.perf_counter() - t0


__all__ = ["IncrementalConfig", "IncrementalPartitioner", "IncrementalResult"]
