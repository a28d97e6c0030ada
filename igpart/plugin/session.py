"""``Session``: the API a tool holds across its optimisation loop (DESIGN §6).

A session owns a design (a :class:`~igpart.netlist.Circuit`, a :class:`Hypergraph` or a
:class:`Graph`), its balanced k-way partition and the incremental engine
(:class:`~igpart.incremental.IncrementalPartitioner`). Changes are queued with the change methods
and take effect at :meth:`Session.refine`, which applies them as one batch (validated completely
first: an invalid change raises an :class:`~igpart.errors.InputError` naming it and nothing
changes), refines the partition and returns a :class:`SessionResult`.

Change methods:

* TAU 2015 vocabulary (circuit sessions): ``insert_gate(name, cell)``, ``remove_gate(name)``,
  ``repower_gate(name, cell)``, ``insert_net(name)``, ``remove_net(name)``,
  ``connect_pin(pin, net)``, ``disconnect_pin(pin)``, with pins written ``instance:pin`` (or a
  top-level port's name), as in ``.ops`` files.
* Id level (hypergraph and graph sessions; ids are the engine's vertex and net ids):
  ``insert_vertex(weight, block)``, ``delete_vertex(v)``, ``insert_hyperedge(weight)``,
  ``delete_hyperedge(e)``, ``insert_pin(v, e)``, ``delete_pin(v, e)``,
  ``set_vertex_weight(v, w)``, ``set_net_weight(e, w)``; graph sessions also
  ``insert_edge(u, v, w)`` / ``delete_edge(u, v)``. Inserts return a reference (a negative
  number) that later changes of the same batch may use; ``SessionResult.id_of(ref)`` gives the
  id it became. Circuit sessions accept only the weight changes at id level (structural changes
  must go through the circuit so that names stay right).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..dynamic import Batch
from ..errors import InputError
from ..hypergraph import Graph, Hypergraph
from ..incremental import IncrementalConfig, IncrementalPartitioner, IncrementalResult
from ..partitioner.config import Config


@dataclass
class SessionResult:
    """What :meth:`Session.refine` did.

    ``changed``: cell name (circuit sessions) or vertex id -> its block, for every cell whose
    block changed, new cells included; ``moved`` / ``new`` split them. Metrics are those of the
    partition after the batch; ``timings`` are seconds per phase (``circuit``: applying the
    changes to the circuit, ``apply``: to the dynamic hypergraph, ``refine``, ``full`` when the
    quality guard re-partitioned, ``total``).
    """

    batch: int
    changes: int
    changed: dict[Any, int]
    moved: list[Any]
    new: list[Any]
    cut: int
    km1: int
    block_weights: list[int]
    max_block_weight: int
    imbalance: float
    balanced: bool
    full_repartition: bool
    reason: str | None
    timings: dict[str, float]
    stats: dict[str, Any] = field(default_factory=dict)
    engine: IncrementalResult | None = field(default=None, repr=False)
    line: int | None = None
    mapping: dict[str, Any] | None = None

    @property
    def changed_cells(self) -> list[Any]:
        """Names (or ids) of the cells whose block changed, new cells included."""
        return list(self.changed)

    def id_of(self, reference: int) -> int:
        """The vertex or net id created by the insert that returned ``reference``."""
        if self.engine is None:
            raise InputError("this result has no batch")
        return self.engine.id_of(reference)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "batch": self.batch,
            "changes": self.changes,
            "changed": {str(k): int(v) for k, v in self.changed.items()},
            "moved": [str(x) if not isinstance(x, int) else x for x in self.moved],
            "new": [str(x) if not isinstance(x, int) else x for x in self.new],
            "cut": self.cut,
            "km1": self.km1,
            "block_weights": self.block_weights,
            "max_block_weight": self.max_block_weight,
            "imbalance": round(self.imbalance, 6),
            "balanced": self.balanced,
            "full_repartition": self.full_repartition,
            "reason": self.reason,
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            **({"transfer": dict(self.stats["transfer"])} if "transfer" in self.stats else {}),
            "line": self.line,
            **({"mapping": self.mapping} if self.mapping is not None else {}),
        }


class Session:
    """A design with a maintained k-way partition, refined incrementally after each batch.

    ``design``: a Circuit (cells and ports are vertices, nets are hyperedges; ``weights`` =
    ``"unit"`` or ``"area"``, clock nets and nets above ``max_net_size`` pins left out as in
    :meth:`Circuit.to_hypergraph`), a Hypergraph or a Graph. ``parts`` starts from a given
    partition instead of partitioning with :func:`igpart.partition` (the best of
    ``initial_repetitions`` runs, 3 by default: the session keeps the quality it starts from;
    ``backend``, ``seed``, ``config``, ``preset``: as for :func:`igpart.partition`; also the
    quality guard's re-partitions). ``options``: :class:`~igpart.incremental.IncrementalConfig`
    or a dict.
    ``engine``: where the dynamic structure and incremental refinement run, ``"cpu"`` (C++) or
    ``"gpu"`` (CUDA; BackendUnavailable without a device).
    ``fixed``: cells (I/O pads, macros, placed cells) that stay in their block: a dict
    ``{name or vertex id: block}`` or an array of one block per vertex (-1: free); the initial
    partition, every refinement (on either engine) and the quality guard keep them there.
    :meth:`fix` fixes (or frees) cells later. ``max_block_weights``: one maximum weight per
    block instead of the epsilon bound (as for :func:`igpart.partition`), kept by every
    refinement and re-partition; a batch that makes the design heavier than their sum is
    refused. ``memory_budget``: device memory
    budget in bytes (or e.g. ``"2GiB"``; default: ``IGPART_GPU_MEMORY_BUDGET``): the design's
    adjacency then lives in a host store with a hot-row cache, with the same results; each
    result's ``stats["transfer"]`` reports the bytes a batch moves host -> device
    (:class:`~igpart.incremental.IncrementalPartitioner`). ``mapping`` (not with ``fixed``):
    ``{"hierarchy": (4, 8), "distance": (1, 10), "algorithm": "im"}`` keeps a process mapping
    of the k blocks onto a machine hierarchy (``prod(hierarchy) == k``): the initial partition
    is that mapping (or ``parts`` are taken as PE ids), and every :meth:`refine` also refines
    it with the mapping gain around the batch (see :meth:`map`, :mod:`igpart.plugin.mapping`).

    >>> from igpart import Hypergraph
    >>> s = Session(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), k=2, parts=[0, 0, 1, 1])
    >>> v = s.insert_vertex()
    >>> _ = s.insert_pin(v, 0)
    >>> r = s.refine()
    >>> r.new, r.cut, s.block_of(r.new[0])
    ([4], 1, 0)
    """

    def __init__(
        self,
        design,
        k: int = 2,
        epsilon: float = 0.03,
        objective: str = "cut",
        *,
        parts=None,
        backend: str = "auto",
        seed: int = 0,
        config: Config | dict | None = None,
        options: IncrementalConfig | dict | None = None,
        weights: str = "unit",
        skip_clock: bool = True,
        max_net_size: int | None = None,
        engine: str = "cpu",
        fixed=None,
        memory_budget: int | str | None = None,
        mapping: dict[str, Any] | None = None,
        preset: str | None = None,
        max_block_weights=None,
    ):
        t0 = time.perf_counter()
        # a bad config fails before the design is converted
        config = Config.of(config, preset)
        seed = _int("seed", seed)
        if abs(seed) >= 1 << 62:  # the partitioner derives further seeds from it
            raise InputError(f"seed must be an integer of magnitude below 2^62, got {seed}")
        self.design = design
        self._circuit = None
        if isinstance(design, (Hypergraph, Graph)):
            self.kind = "graph" if isinstance(design, Graph) else "hypergraph"
            if weights != "unit" or max_net_size is not None:
                raise InputError(
                    "weights and max_net_size apply to circuit sessions; a "
                    f"{self.kind} brings its own vertex weights and nets"
                )
            model = design
        elif _is_circuit(design):
            from .circuit import CircuitMirror

            self.kind = "circuit"
            self._circuit = CircuitMirror(design, weights, skip_clock, max_net_size)
            model = self._circuit.view.hypergraph
        else:
            raise InputError(
                f"a Session needs a Circuit, Hypergraph or Graph, not {type(design).__name__}"
            )
        if isinstance(fixed, dict):
            fixed = self._fixed_array(fixed, model.n)
        self._mapping = None
        map_options = _mapping_options(mapping, k)
        if map_options is not None and fixed is not None:
            raise InputError("a Session keeps fixed cells or a process mapping, not both (the "
                             "mapping's refinement does not lock cells)")
        if map_options is not None and max_block_weights is not None:
            raise InputError("a Session keeps per-block maximum weights or a process mapping, "
                             "not both (the mapping's PEs share one bound)")
        keep = parts is not None
        if map_options is not None and parts is None:
            from ..mapping import map_processes

            parts = map_processes(model, map_options["hierarchy"], map_options["distance"],
                                  epsilon, map_options["algorithm"], backend, seed).parts
        self.engine = IncrementalPartitioner(
            model, k, epsilon, objective, parts=parts, backend=backend, seed=seed,
            config=config, options=options, engine=engine, fixed=fixed,
            memory_budget=memory_budget, max_block_weights=max_block_weights,
        )  # fmt: skip
        if map_options is not None:
            from . import mapping as session_mapping

            # the blocks are the PEs already (given or just mapped): recorded and refined
            self._mapping = session_mapping.start(
                self.engine.dynamic, map_options["hierarchy"], map_options["distance"],
                map_options["algorithm"], epsilon=self.engine.epsilon, keep=True,
            )  # fmt: skip
            self._mapping.algorithm = "given" if keep else map_options["algorithm"]
        if self._circuit is not None:
            self._circuit.dynamic = self.engine.dynamic
        self._pending = Batch()
        self._callbacks: list[Callable[[SessionResult], Any]] = []
        self.results = 0
        self.setup_seconds = time.perf_counter() - t0

    def _fixed_array(self, fixed: dict, n: int) -> np.ndarray:
        """A ``{name or vertex id: block}`` dict as one block per vertex (-1: free); the
        engine checks the blocks."""
        out = np.full(n, -1, dtype=np.int64)
        for name, block in fixed.items():  # one entry per fixed cell, not per vertex
            if self._circuit is not None and isinstance(name, str):
                v = self._circuit.vertex_of(name)
            else:
                v = _int("fixed vertex", name)
                if not 0 <= v < n:
                    raise InputError(f"fixed: unknown vertex {_short(name)}")
            out[v] = _int("block", block)
        return out

    # ------------------------------------------------------------------ state
    @property
    def k(self) -> int:
        return self.engine.k

    @property
    def epsilon(self) -> float:
        return self.engine.epsilon

    @property
    def dynamic(self):
        """The engine's :class:`~igpart.dynamic.DynamicHypergraph`."""
        return self.engine.dynamic

    @property
    def parts(self) -> np.ndarray:
        """Block of each vertex id of the engine (-1 for deleted ids). For a circuit session
        vertex ids map to names through :meth:`vertex_name`; :meth:`blocks` gives a dict."""
        return self.engine.parts

    @property
    def pending(self) -> int:
        """Changes queued for the next :meth:`refine`."""
        circuit = self._circuit.pending if self._circuit is not None else 0
        return len(self._pending) + circuit

    def metrics(self) -> dict[str, Any]:
        """Maintained cut, km1, block weights, bound, imbalance, balance (JSON-ready)."""
        m = self.engine.metrics()
        m["block_weights"] = [int(w) for w in m["block_weights"]]
        return {"k": self.k, "epsilon": self.epsilon, "objective": self.engine.objective, **m,
                "vertices": self.dynamic.num_vertices, "nets": self.dynamic.num_nets,
                "pins": self.dynamic.num_pins, "batches": self.engine.batches,
                "full_partitions": self.engine.full_partitions,
                **({"mapping": self.mapping} if self._mapping is not None else {})}  # fmt: skip

    def vertex_of(self, name) -> int:
        """The engine's vertex id of a cell or port name (circuit sessions) or of an id."""
        if self._circuit is not None and isinstance(name, str):
            return self._circuit.vertex_of(name)
        try:
            v = int(name)
        except (TypeError, ValueError):
            raise InputError(f"unknown vertex {_short(name)}") from None
        if not (0 <= v < self.dynamic.vertex_bound) or self.engine.parts[v] < 0:
            raise InputError(f"unknown vertex {_short(name)}")
        return v

    def vertex_name(self, v: int):
        """The name of vertex ``v`` (circuit sessions) or ``v`` itself."""
        return self._circuit.name_of(int(v)) if self._circuit is not None else int(v)

    def block_of(self, name) -> int:
        """The block of a cell or port (by name), or of a vertex id."""
        return int(self.dynamic.blocks_of([self.vertex_of(name)])[0])

    def blocks(self) -> dict[Any, int]:
        """Name (or id) -> block for every live vertex."""
        parts = self.engine.parts
        live = np.flatnonzero(parts >= 0)
        return {self.vertex_name(v): int(parts[v]) for v in live.tolist()}

    # ------------------------------------------------------------------ process mapping
    @property
    def mapping(self) -> dict[str, Any] | None:
        """The kept process mapping (hierarchy, distance, algorithm, cost, level costs, moves
        and seconds of its last step), or None: see :meth:`map`."""
        return None if self._mapping is None else self._mapping.report()

    def map(self, hierarchy, distance, algorithm: str = "im", seed: int | None = None
            ) -> dict[str, Any]:  # fmt: skip
        """Maps the current design onto a machine hierarchy (``k = prod(hierarchy)`` must be
        the session's k; hierarchy and distance as sequences or ``"4:8:2"`` text) with
        :func:`igpart.map`'s ``algorithm`` (``"refine"``: keep the current blocks as the PE ids
        and only refine them with the mapping gain) and keeps it: from then on every
        :meth:`refine` also refines the mapping around the batch (:mod:`igpart.plugin.mapping`)
        and its result carries the mapping's cost. Queued changes stay queued. Returns
        :attr:`mapping`; a bad argument raises InputError and changes nothing."""
        from . import mapping as session_mapping

        if (self.engine.fixed >= 0).any():
            raise InputError("a Session keeps fixed cells or a process mapping, not both (the "
                             "mapping's refinement does not lock cells)")
        if self.engine.targets is not None:
            raise InputError("a Session keeps per-block maximum weights or a process mapping, "
                             "not both (the mapping's PEs share one bound)")
        keep = algorithm == "refine"
        self._mapping = session_mapping.start(
            self.dynamic, hierarchy, distance, "im" if keep else algorithm,
            epsilon=self.epsilon, seed=self.engine.seed if seed is None else _int("seed", seed),
            backend=self.engine.backend, keep=keep,
        )  # fmt: skip
        self._mapping.algorithm = algorithm
        return self.mapping

    def _map_batch(self, result: SessionResult, r: IncrementalResult, applied) -> None:
        """After a batch: the kept mapping refined around it (everywhere after a full
        re-partition); the moves, metrics and mapping figures go into ``result``."""
        from . import mapping as session_mapping

        t0 = time.perf_counter()
        seeds = [r.moved, r.new_vertices]
        nets = ()
        if applied is not None:
            seeds.append(applied.touched_vertices)
            nets = applied.touched_nets
        moves = session_mapping.after_batch(self.dynamic, self._mapping, np.concatenate(seeds),
                                            nets, full=r.full_repartition)  # fmt: skip
        before = dict(zip(r.moved.tolist(), r.moved_from.tolist()))
        new = set(r.new_vertices.tolist())
        name = self.vertex_name
        for v, pe in moves.items():
            key = name(v)
            if v in new or before.get(v, -1) != pe:
                if key not in result.changed and v not in new:
                    result.moved.append(key)
                result.changed[key] = pe
            else:  # moved back to its block before the batch
                result.changed.pop(key, None)
                result.moved.remove(key)
        m = self.dynamic.metrics()
        result.cut, result.km1 = int(m["cut"]), int(m["km1"])
        result.block_weights = [int(w) for w in m["block_weights"]]
        result.imbalance, result.balanced = float(m["imbalance"]), bool(m["balanced"])
        result.mapping = self.mapping
        result.timings["mapping"] = time.perf_counter() - t0
        result.timings["total"] += result.timings["mapping"]

    def on_refine(self, callback: Callable[[SessionResult], Any]) -> Callable:
        """Registers ``callback(result)``, called after every :meth:`refine`; returns it."""
        if not callable(callback):
            raise InputError("on_refine needs a callable")
        self._callbacks.append(callback)
        return callback

    # ------------------------------------------------------------------ id-level changes
    def _structural(self) -> None:
        if self._circuit is not None:
            raise InputError(
                "a circuit session changes its structure through the TAU 2015 methods "
                "(insert_gate, connect_pin, ...), so that cell and net names stay right"
            )

    def insert_vertex(self, weight: int = 1, block: int = -1) -> int:
        """Queues a new vertex (block -1: the lightest); returns its reference."""
        self._structural()
        return self._pending.insert_vertex(_int("weight", weight), _int("block", block))

    def delete_vertex(self, v: int) -> int:
        """Queues deleting vertex ``v`` (its pins must be deleted first, as in TAU 2015)."""
        self._structural()
        return self._pending.delete_vertex(_int("v", v))

    def insert_hyperedge(self, weight: int = 1) -> int:
        """Queues a new, empty net; returns its reference."""
        self._structural()
        return self._pending.insert_net(_int("weight", weight))

    def delete_hyperedge(self, e: int) -> int:
        """Queues deleting net ``e`` (its pins must be deleted first)."""
        self._structural()
        return self._pending.delete_net(_int("e", e))

    def insert_pin(self, v: int, e: int) -> int:
        """Queues vertex ``v`` joining net ``e``."""
        self._structural()
        return self._pending.insert_pin(_int("v", v), _int("e", e))

    def delete_pin(self, v: int, e: int) -> int:
        """Queues vertex ``v`` leaving net ``e``."""
        self._structural()
        return self._pending.delete_pin(_int("v", v), _int("e", e))

    def set_vertex_weight(self, v: int, weight: int) -> int:
        return self._pending.set_vertex_weight(self.vertex_of(v), _int("weight", weight))

    def set_net_weight(self, e: int, weight: int) -> int:
        return self._pending.set_net_weight(_int("e", e), _int("weight", weight))

    def insert_edge(self, u: int, v: int, weight: int = 1) -> int:
        """Queues a new edge (a 2-pin net); returns the net's reference."""
        self._structural()
        u, v, weight = _int("u", u), _int("v", v), _int("weight", weight)  # before queuing
        e = self._pending.insert_net(weight)
        self._pending.insert_pin(u, e)
        self._pending.insert_pin(v, e)
        return e

    def delete_edge(self, u: int, v: int) -> None:
        """Queues deleting the edge between ``u`` and ``v`` (an existing 2-pin net)."""
        self._structural()
        u, v = _int("u", u), _int("v", v)
        d = self.dynamic
        for x in (u, v):
            if not (0 <= x < d.vertex_bound) or d.blocks_of([x])[0] < 0:
                raise InputError(f"delete_edge: unknown vertex {x}")
        shared = np.intersect1d(d.nets_of(u), d.nets_of(v))
        two = [int(e) for e in shared if d.pins_of(int(e)).size == 2]
        if not two:
            raise InputError(f"delete_edge: no edge between {u} and {v}")
        self._pending.delete_pin(u, two[0])
        self._pending.delete_pin(v, two[0])
        self._pending.delete_net(two[0])

    def add_batch(self, batch: Batch) -> None:
        """Queues every record of ``batch`` (id level)."""
        if not isinstance(batch, Batch):
            raise InputError(f"expected a Batch, got {type(batch).__name__}")
        if len(batch):
            self._structural()
        self._pending.extend(batch)

    # ------------------------------------------------------------------ TAU 2015 changes
    # ``line``: where the change was written (a script's line), named by the error when the
    # change turns out invalid at refine()
    def _mirror(self):
        if self._circuit is None:
            raise InputError(
                f"TAU 2015 changes need a circuit session (this one holds a {self.kind})"
            )
        return self._circuit

    def insert_gate(self, name: str, cell: str, *, line: int | None = None) -> None:
        """Queues a new cell instance ``name`` of library cell ``cell`` (no pins connected)."""
        self._mirror().queue("insert_gate", name, cell, line=line)

    def remove_gate(self, name: str, *, line: int | None = None) -> None:
        """Queues removing instance ``name`` (pins still connected are disconnected first, as
        OpenTimer does; see :mod:`igpart.netlist`)."""
        self._mirror().queue("remove_gate", name, line=line)

    def repower_gate(self, name: str, cell: str, *, line: int | None = None) -> None:
        """Queues resizing instance ``name`` to library cell ``cell``."""
        self._mirror().queue("repower_gate", name, cell, line=line)

    def insert_net(self, name: str, *, line: int | None = None) -> None:
        """Queues a new, unconnected net ``name``."""
        self._mirror().queue("insert_net", name, line=line)

    def remove_net(self, name: str, *, line: int | None = None) -> None:
        """Queues removing net ``name`` (pins still on it are disconnected first)."""
        self._mirror().queue("remove_net", name, line=line)

    def connect_pin(self, pin: str, net: str, *, line: int | None = None) -> None:
        """Queues connecting ``instance:pin`` (or a port) to net ``net``."""
        self._mirror().queue("connect_pin", pin, net, line=line)

    def disconnect_pin(self, pin: str, *, line: int | None = None) -> None:
        """Queues disconnecting ``instance:pin`` (or a port) from its net."""
        self._mirror().queue("disconnect_pin", pin, line=line)

    # ------------------------------------------------------------------ refinement
    def refine(self) -> SessionResult:
        """Applies the queued changes as one batch, refines, calls the callbacks, and returns
        what changed. The batch is atomic: an invalid change raises InputError, and any other
        failure (in refinement, the quality guard, the mapping step, an interrupt) re-raises
        the original exception, in both cases with the circuit, the engine and the kept
        mapping as they were before the batch; the queue is dropped, so the session stays
        usable. Callbacks run once the batch is complete (an error in one leaves it applied)."""
        t0 = time.perf_counter()
        batch, self._pending = self._pending, Batch()
        line = None
        timings: dict[str, float] = {}
        batch_result = None

        def on_applied(res) -> None:  # the engine's structure took the batch
            nonlocal batch_result
            batch_result = res
            if self._circuit is not None:
                self._circuit.commit(res)

        kept = None if self._mapping is None else dataclasses.replace(self._mapping)
        results = self.results
        try:
            with self.engine.transaction():
                if self._circuit is not None:
                    # applied to the circuit first (which takes nothing of an invalid batch)
                    circuit_batch, line = self._circuit.take(timings)
                    circuit_batch.extend(batch)  # weight changes queued at id level
                    batch = circuit_batch
                _check_columns(batch)
                r = self.engine.apply(batch, on_applied=on_applied)
                result = self._result(r, timings, t0, line)
                if self._mapping is not None:
                    self._map_batch(result, r, batch_result)
        except BaseException:
            # the engine is back before the batch (or never took it): so are the circuit,
            # the kept mapping and the counters; without atomic batches an engine that took
            # the batch keeps it, and so does the circuit
            if batch_result is None or self.engine.options.atomic:
                if self._circuit is not None:
                    self._circuit.discard()
                if kept is not None:
                    self._mapping = kept
                self.results = results
            raise
        for cb in self._callbacks:
            cb(result)
        return result

    @property
    def fixed(self) -> dict[Any, int]:
        """Name (or id) -> block of every fixed cell."""
        f = self.engine.fixed
        ids = np.flatnonzero(f >= 0)
        return {self.vertex_name(v): int(f[v]) for v in ids.tolist()}

    def fix(self, name, block: int) -> SessionResult:
        """Fixes a cell or port (by name) or a vertex id to ``block`` (-1 frees it) at once:
        it moves there and the partition is refined around it with every fixed cell locked;
        queued changes stay queued. Returns what changed; callbacks are called as after
        :meth:`refine`. A bad name, a block outside [-1, k) or fixed weight above a block's
        maximum weight raises InputError and changes nothing."""
        t0 = time.perf_counter()
        v = self.vertex_of(name)
        if self._mapping is not None and _int("block", block) >= 0:
            raise InputError("a Session keeps fixed cells or a process mapping, not both (the "
                             "mapping's refinement does not lock cells)")
        result = self._result(self.engine.fix([v], [_int("block", block)]), {}, t0, None)
        for cb in self._callbacks:
            cb(result)
        return result

    def repartition(self) -> SessionResult:
        """Re-partitions fully now (warm-started, as the quality guard does); atomic as
        :meth:`refine`."""
        t0 = time.perf_counter()
        kept = None if self._mapping is None else dataclasses.replace(self._mapping)
        results = self.results
        try:
            with self.engine.transaction():
                r = self.engine.repartition("requested")
                result = self._result(r, {}, t0, None)
                if self._mapping is not None:
                    self._map_batch(result, r, None)
        except BaseException:
            if self.engine.options.atomic:
                self._mapping = kept if kept is not None else self._mapping
                self.results = results
            raise
        return result

    def _result(self, r: IncrementalResult, timings, t0: float, line) -> SessionResult:
        name = self.vertex_name
        moved = [name(v) for v in r.moved.tolist()]
        new = [name(v) for v in r.new_vertices.tolist()]
        changed = dict(zip(moved, r.moved_to.tolist()))
        changed.update(zip(new, r.new_blocks.tolist()))
        timings = {**timings, **{k: v for k, v in r.timings.items() if k != "total"}}
        timings["total"] = time.perf_counter() - t0
        self.results += 1
        return SessionResult(
            batch=r.batch, changes=r.records, changed=changed, moved=moved, new=new, cut=r.cut,
            km1=r.km1, block_weights=[int(w) for w in r.block_weights],
            max_block_weight=r.max_block_weight, imbalance=r.imbalance, balanced=r.balanced,
            full_repartition=r.full_repartition, reason=r.reason, timings=timings,
            stats=r.stats, engine=r, line=line,
        )  # fmt: skip

    def replay(self, ops) -> Iterator[SessionResult]:
        """Replays batches of changes, yielding one result per batch: ``ops`` is a TAU 2015
        ``.ops`` path or a list of ``OpsBatch`` (circuit sessions), or an iterable of
        :class:`~igpart.dynamic.Batch` (any session)."""
        if isinstance(ops, (str, bytes)) or hasattr(ops, "__fspath__"):
            from ..netlist import read_ops

            ops = read_ops(ops)
        for item in _iterate(ops):
            if isinstance(item, Batch):
                self.add_batch(item)
            else:
                self._mirror().queue_records(item.changes, getattr(item, "line", None))
            yield self.refine()

    def __repr__(self) -> str:
        d = self.dynamic
        return (f"Session({self.kind}, k={self.k}, vertices={d.num_vertices}, cut={d.cut}, "
                f"km1={d.km1}, pending={self.pending})")  # fmt: skip


def _int(what: str, x) -> int:
    """``x`` as an int64 (an id or a weight); InputError naming ``what`` otherwise."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        if -(1 << 63) <= int(x) < 1 << 63:
            return int(x)
        raise InputError(f"{what} {_short(x)} does not fit a 64-bit integer")
    raise InputError(f"{what} must be an integer, got {_short(x)}")


def _short(x, limit: int = 80) -> str:
    r = repr(x)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _check_columns(batch: Batch) -> None:
    """Builds the batch's int64 columns: a number beyond them is an InputError here, before
    anything reaches the engine."""
    try:
        batch.ops, batch.args  # noqa: B018 (built on first access)
    except OverflowError:
        msg = "a queued change holds a number that does not fit a 64-bit integer"
        raise InputError(msg) from None


def _iterate(ops) -> Iterable:
    try:
        return iter(ops)
    except TypeError:
        raise InputError(f"replay needs an .ops path or batches, not {ops!r}") from None


def _mapping_options(mapping, k) -> dict[str, Any] | None:
    """The validated ``mapping`` option of a Session: ``{"hierarchy", "distance",
    "algorithm"}`` (algorithm default ``"im"``; hierarchy and distance as sequences or
    ``"4:8:2"`` text), with ``prod(hierarchy) == k``."""
    if mapping is None:
        return None
    if not isinstance(mapping, dict):
        raise InputError(f"mapping must be a dict with hierarchy and distance, not "
                         f"{type(mapping).__name__}")  # fmt: skip
    from ..mapping import MAP_ALGORITHMS, check_hierarchy
    from .mapping import levels_argument

    unknown = set(mapping) - {"hierarchy", "distance", "algorithm"}
    if unknown:
        raise InputError(f"mapping: unknown key(s) {', '.join(sorted(map(str, unknown)))} "
                         "(hierarchy, distance, algorithm)")  # fmt: skip
    for key in ("hierarchy", "distance"):
        if key not in mapping:
            raise InputError(f"mapping: {key} is missing")
    a, d = check_hierarchy(levels_argument(mapping["hierarchy"], "hierarchy"),
                           levels_argument(mapping["distance"], "distance", float))  # fmt: skip
    algorithm = mapping.get("algorithm", "im")
    if algorithm not in MAP_ALGORITHMS:
        raise InputError(f"mapping: unknown algorithm '{algorithm}' (choose from "
                         f"{', '.join(MAP_ALGORITHMS)})")  # fmt: skip
    if int(np.prod(a)) != _int("k", k):
        raise InputError(f"mapping: the hierarchy {':'.join(map(str, a))} has "
                         f"{int(np.prod(a))} PEs but k = {k}")  # fmt: skip
    return {"hierarchy": a, "distance": d, "algorithm": algorithm}


def _is_circuit(obj) -> bool:
    try:
        from ..netlist import Circuit
    except ImportError:
        return False
    return isinstance(obj, Circuit)


__all__ = ["Session", "SessionResult"]
