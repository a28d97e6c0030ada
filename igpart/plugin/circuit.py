"""The circuit side of a :class:`~igpart.plugin.Session`: keeps a netlist
:class:`~igpart.netlist.Circuit` and the engine's dynamic hypergraph in step.

The dynamic hypergraph starts as the circuit's hypergraph view (live instances, then ports, are
vertices; nets not skipped are hyperedges; one hypergraph pin per distinct (vertex, net) pair).
Queued TAU 2015 records are applied to the circuit first (``Circuit.apply``: validated, all or
nothing, with implicit disconnections of removed gates and nets); the
:class:`~igpart.netlist.AppliedBatch` it returns is translated, event by event, into one
:class:`~igpart.dynamic.Batch`:

* ``insert_instance`` -> ``insert_vertex`` (weight 1, or its area weight); ``remove_instance``
  -> ``delete_vertex`` (its pins were disconnected by earlier events);
* ``insert_net`` -> ``insert_net`` unless the view would skip the net by its name (clock nets
  with ``skip_clock``, the constants ``1'b0``/``1'b1``); ``remove_net`` -> ``delete_net``;
* ``connect`` / ``disconnect`` -> ``insert_pin`` / ``delete_pin`` when the number of the
  vertex's pins on the net goes 0 -> 1 / 1 -> 0 (an instance with two pins on one net is one
  hypergraph pin), and nothing for nets the hypergraph leaves out;
* ``resize`` -> ``set_vertex_weight`` with the new cell's area weight (area weights only).

Ids: the circuit never reuses an id, the engine does (its free-id stacks); the mirror keeps both
maps (circuit instance / port / net id <-> engine vertex / net id). Nets that only later gain a
library clock pin stay in the hypergraph (the skip decision is taken when a net appears).
"""

from __future__ import annotations

import numpy as np

from ..dynamic import Batch
from ..errors import InputError


class _Ids:
    """An int32 id map that grows by doubling (-1: none)."""

    def __init__(self, values: np.ndarray):
        self.a = np.ascontiguousarray(values, dtype=np.int32)
        self.n = self.a.size

    def ensure(self, size: int) -> None:
        if size > self.a.size:
            bigger = np.full(max(size, 2 * self.a.size, 16), -1, dtype=np.int32)
            bigger[: self.a.size] = self.a
            self.a = bigger
        self.n = max(self.n, size)

    def get(self, i: int) -> int:
        return int(self.a[i]) if 0 <= i < self.a.size else -1

    def set(self, i: int, value: int) -> None:
        self.ensure(i + 1)
        self.a[i] = value


class CircuitMirror:
    """Maps between a circuit and the engine's dynamic hypergraph; translates applied batches."""

    def __init__(self, circuit, weights: str = "unit", skip_clock: bool = True,
                 max_net_size: int | None = None):  # fmt: skip
        from ..netlist.views import CLOCK_NAME, WEIGHTS

        if weights not in WEIGHTS:
            raise InputError(f"unknown weights '{weights}' (choose from {', '.join(WEIGHTS)})")
        self.circuit = circuit
        self.weights = weights
        self.skip_clock = skip_clock
        self._clock_name = CLOCK_NAME
        self.area_scale = self._area_scale() if weights == "area" else None
        self.view = circuit.to_hypergraph(weights=weights, skip_clock=skip_clock,
                                          max_net_size=max_net_size, area_scale=self.area_scale)
        v = self.view
        n = v.hypergraph.n
        self.vertex_of_instance = _Ids(v.vertex_of_instance)
        self.vertex_of_port = np.asarray(v.vertex_of_port, dtype=np.int32)
        self.owner_of_vertex = _Ids(v.instance_of_vertex)  # instance id, or -1 - port id
        self.net_of_circuit = _Ids(v.net_of)  # circuit net -> engine net
        m = v.hypergraph.m
        self.circuit_net_of = _Ids(np.full(m, -1, dtype=np.int32))  # engine net -> circuit net
        hit = np.flatnonzero(v.net_of >= 0)
        self.circuit_net_of.a[v.net_of[hit]] = hit.astype(np.int32)
        self._vertex_alive = _Ids(np.ones(n, dtype=np.int32))
        self.multi = self._multiplicities()
        self.dynamic = None  # the engine's DynamicHypergraph, set by the Session
        self._queue: list = []
        self._line: int | None = None
        self._pending_batch: tuple | None = None
        self._undo: tuple | None = None  # what the last commit() changed in the id maps

    # ------------------------------------------------------------------ setup helpers
    def _area_scale(self) -> float:
        lib = self.circuit.library
        if lib is None:
            raise InputError("area weights need a library (.lib)")
        alive = self.circuit.instance_alive
        cells = {c for c, a in zip(self.circuit.instance_cells, alive) if a}
        areas = [lib.cells[c].area for c in cells if c in lib.cells and lib.cells[c].area]
        areas = [a for a in areas if a > 0]
        return 100.0 / min(areas) if areas else 1.0

    def _multiplicities(self) -> dict[tuple[int, int], int]:
        """(vertex, engine net) -> number of circuit pins, for pairs with two or more."""
        pins = self.circuit.pin_arrays()
        owner, net = pins["owner"], pins["net"]
        on = net >= 0
        owner, net = owner[on], net[on]
        v = np.where(owner >= 0, self.vertex_of_instance.a[np.maximum(owner, 0)],
                     self.vertex_of_port[np.maximum(-1 - owner, 0)])  # fmt: skip
        e = self.net_of_circuit.a[net]
        keep = (v >= 0) & (e >= 0)
        key = v[keep].astype(np.int64) * (1 << 32) + e[keep]
        uniq, counts = np.unique(key, return_counts=True)
        many = counts > 1
        return {(int(k >> 32), int(k & 0xFFFFFFFF)): int(c)
                for k, c in zip(uniq[many], counts[many])}  # fmt: skip

    def weight_of_cell(self, cell: str) -> int:
        if self.weights == "unit":
            return 1
        lc = self.circuit.library.cells.get(cell)
        if lc is None or lc.area is None:
            raise InputError(f"cell '{cell}' has no area in the library (use weights='unit')")
        return max(1, int(np.rint(lc.area * self.area_scale)))

    # ------------------------------------------------------------------ names
    def vertex_of(self, name: str) -> int:
        """Engine vertex of an instance or port name; InputError when neither exists."""
        c = self.circuit
        try:
            v = self.vertex_of_instance.get(c.instance_id(name))
        except InputError:
            try:
                v = int(self.vertex_of_port[c.port_id(name)])
            except InputError:
                raise InputError(f"unknown cell or port '{name}'") from None
        if v < 0:
            raise InputError(f"cell '{name}' is not a vertex of the partitioned hypergraph")
        return v

    def name_of(self, v: int) -> str:
        owner = self.owner_of_vertex.get(v)
        c = self.circuit
        return c.instance_names[owner] if owner >= 0 else c.port_names[-1 - owner]

    # ------------------------------------------------------------------ queue
    @property
    def pending(self) -> int:
        return len(self._queue)

    def queue(self, op: str, *args: str, line: int | None = None) -> None:
        """Queues one TAU 2015 record (``connect_pin`` / ``disconnect_pin`` pins as
        ``inst:pin`` or a port name); ``line``: where it was written, for its error."""
        from ..netlist import changes as ch

        if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
            raise InputError(f"{op}: line must be an integer, got {line!r}")
        args = tuple(str(a) for a in args)
        if op in ("connect_pin", "disconnect_pin"):
            inst, pin = ch.split_pin(args[0], line=line)
            rec = (ch.ConnectPin(inst, pin, args[1], line=line) if op == "connect_pin"
                   else ch.DisconnectPin(inst, pin, line=line))  # fmt: skip
        else:
            cls = {"insert_gate": ch.InsertGate, "remove_gate": ch.RemoveGate,
                   "repower_gate": ch.RepowerGate, "insert_net": ch.InsertNet,
                   "remove_net": ch.RemoveNet}[op]  # fmt: skip
            rec = cls(*args, line=line)
        self._queue.append(rec)

    def queue_records(self, records, line: int | None = None) -> None:
        """Queues change records (e.g. an ``OpsBatch``'s)."""
        self._queue.extend(records)
        self._line = line

    # ------------------------------------------------------------------ translation
    def take(self, timings: dict[str, float]) -> tuple[Batch, int | None]:
        """Applies the queued records to the circuit (raising BatchError, with nothing changed,
        when one is invalid) and returns the engine batch that mirrors them. When the engine
        then rejects that batch, :meth:`discard` reverts the circuit."""
        import time

        records, self._queue = self._queue, []
        line, self._line = self._line, None
        self._undo = None
        t0 = time.perf_counter()
        applied = self.circuit.apply(records) if records else None
        timings["circuit"] = time.perf_counter() - t0
        batch = Batch()
        self._pending_batch = None
        if applied is not None:
            try:
                self._pending_batch = self._translate(applied, batch)
            except BaseException:  # e.g. a new cell without an area: the batch takes no effect
                self.circuit.revert_last()
                raise
        timings["translate"] = time.perf_counter() - t0 - timings["circuit"]
        return batch, line

    def _translate(self, applied, b: Batch) -> tuple:
        new_inst: dict[int, int] = {}  # circuit instance -> reference of its new vertex
        new_net: dict[int, int] = {}  # circuit net -> reference of its new hyperedge
        removed_inst: list[int] = []
        removed_net: list[int] = []
        counts: dict[tuple[int, int], int] = {}  # circuit pins per touched (vertex, net) pair

        def vertex(owner: int) -> int | None:
            if owner < 0:
                return int(self.vertex_of_port[-1 - owner])
            v = new_inst.get(owner, self.vertex_of_instance.get(owner))
            return None if v == -1 and owner not in new_inst else v

        def net(n: int) -> int | None:
            e = new_net.get(n, self.net_of_circuit.get(n))
            return None if e == -1 and n not in new_net else e

        def count(v: int, e: int) -> int:
            if (v, e) not in counts:
                fresh = v < 0 or e < 0  # a reference: created in this batch
                counts[(v, e)] = 0 if fresh else self.multi.get((v, e), 0) or int(
                    e in self.dynamic.nets_of(v)
                )
            return counts[(v, e)]

        c = self.circuit
        for ev in applied.events:
            kind = ev[0]
            if kind == "insert_instance":
                new_inst[ev[1]] = b.insert_vertex(self.weight_of_cell(c.instance_cells[ev[1]]))
            elif kind == "remove_instance":  # its pins were disconnected by earlier events
                b.delete_vertex(vertex(ev[1]))
                removed_inst.append(ev[1])
            elif kind == "insert_net":
                name = c.net_names[ev[1]]
                skip = name in ("1'b0", "1'b1") or (
                    self.skip_clock and self._clock_name.search(name) is not None
                )
                if not skip:
                    new_net[ev[1]] = b.insert_net(1)
            elif kind == "remove_net":
                e = net(ev[1])
                if e is not None:
                    b.delete_net(e)
                    removed_net.append(ev[1])
            elif kind in ("connect", "disconnect"):
                v, e = vertex(ev[1]), net(ev[3])
                if v is None or e is None:
                    continue
                k = count(v, e)
                counts[(v, e)] = k + 1 if kind == "connect" else k - 1
                if kind == "connect" and k == 0:
                    b.insert_pin(v, e)
                elif kind == "disconnect" and k == 1:
                    b.delete_pin(v, e)
            elif kind == "resize" and self.weights == "area":
                v = vertex(ev[1])
                if v is not None:
                    b.set_vertex_weight(v, self.weight_of_cell(ev[3]))
        return new_inst, new_net, removed_inst, removed_net, counts

    def discard(self) -> None:
        """Reverts the last :meth:`take` (the engine rejected its batch, or rolled it back):
        the id maps :meth:`commit` changed, then the circuit."""
        undo, self._undo = self._undo, None
        if undo is not None:
            for ids, i, old, n in reversed(undo[0]):
                ids.a[i] = old
                ids.n = n
            for key, old in reversed(undo[1]):
                if old is None:
                    self.multi.pop(key, None)
                else:
                    self.multi[key] = old
            self.circuit.revert_last()
        elif self._pending_batch is not None:
            self._pending_batch = None
            self.circuit.revert_last()

    def commit(self, result) -> None:
        """Records the ids the engine gave the batch's new vertices and nets (``result``: the
        engine's result, with ``id_of(reference)``); :meth:`discard` can still undo it until
        the next :meth:`take`."""
        self._undo = None
        if self._pending_batch is None:
            return
        new_inst, new_net, removed_inst, removed_net, counts = self._pending_batch
        self._pending_batch = None
        ids_log: list = []
        multi_log: list = []
        self._undo = (ids_log, multi_log)

        def put(ids: _Ids, i: int, value: int) -> None:
            n = ids.n
            ids.ensure(i + 1)
            ids_log.append((ids, i, int(ids.a[i]), n))
            ids.a[i] = value

        for i in removed_inst:  # before the inserts: the engine may reuse the freed ids
            v = self.vertex_of_instance.get(i)
            put(self.vertex_of_instance, i, -1)
            put(self.owner_of_vertex, v, REMOVED)
        for n in removed_net:
            e = self.net_of_circuit.get(n)
            put(self.net_of_circuit, n, -1)
            put(self.circuit_net_of, e, -1)
        real: dict[int, int] = {}
        for i, ref in new_inst.items():
            v = real[ref] = result.id_of(ref)
            put(self.vertex_of_instance, i, v)
            put(self.owner_of_vertex, v, i)
        for n, ref in new_net.items():
            e = real[ref] = result.id_of(ref)
            put(self.net_of_circuit, n, e)
            put(self.circuit_net_of, e, n)
        # a removed vertex or net had all its pins disconnected first: its pairs reached 0
        for (v, e), k in counts.items():
            key = (real.get(v, v), real.get(e, e))
            multi_log.append((key, self.multi.get(key)))
            if k > 1:
                self.multi[key] = k
            else:
                self.multi.pop(key, None)


#: owner_of_vertex of an engine vertex id whose instance was removed (until the id is reused)
REMOVED = -(1 << 30)


__all__ = ["REMOVED", "CircuitMirror"]
