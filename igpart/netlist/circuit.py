"""The gate-level design: instances, nets, top-level ports and pins, with name <-> id maps.

Ids are dense and stable: instance, net and port ids are positions in ``instance_names``,
``net_names`` and ``port_names``. Removing an instance or a net does not renumber anything: the
id keeps its slot (its name stays in the list, ``instance_alive``/``net_alive`` turn False) and is
never given to another name; inserting a name again (even a removed one) takes a fresh id at the
end. ``num_instances``/``num_nets`` count the live ones.

A pin is owned by an instance (owner id ``i >= 0``) or by a top-level port ``p`` (owner
``-1 - p``; the port's pin is named like the port). Pins of an instance are those its Verilog
instantiation names (connected or written ``.A()``) plus those later ``connect_pin`` records
create; ``disconnect_pin`` leaves the pin in place, unconnected.

The circuit changes only through :meth:`Circuit.apply`, which validates and applies a batch of
change records all-or-nothing (an undo log rolls back everything on the first invalid record,
leaving the state byte-identical). Semantics follow OpenTimer, the TAU 2015 reference timer:
``remove_gate`` and ``remove_net`` first disconnect whatever pins are still connected (reported
in :attr:`AppliedBatch.disconnected`); unlike OpenTimer, which ignores and logs bad commands, an
unknown instance/net/pin, a duplicate name, connecting an already connected pin, disconnecting
an unconnected one or naming a pin its library cell lacks is an error, and so is an
``insert_gate`` / ``repower_gate`` cell the library lacks when the library has every cell of the
netlist (OpenTimer requires every instance's cell in its library; a library that lacks netlist
cells is taken as partial, and new cells are then not checked).

Costs: reading builds columnar numpy arrays only; the name -> id maps and the pin index (pins by
owner and by net) are built on first use, then kept current by ``apply``, so a batch costs time
proportional to its records and the pins they touch, and ``pins_of_instance``/``pins_of_net``
cost the size of their answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ..errors import BatchError, InputError
from .changes import (
    CHANGE_TYPES,
    Change,
    ConnectPin,
    DisconnectPin,
    InsertGate,
    InsertNet,
    RemoveGate,
    RemoveNet,
    RepowerGate,
)
from .directions import DIRECTION_CODE, DIRECTION_NAMES, OUTPUT, direction_by_name
from .liberty import Library

CONSTANT_NETS = ("1'b0", "1'b1")


class _Grow:
    """A numpy array with amortised O(1) append (capacity doubling)."""

    __slots__ = ("a", "n")

    def __init__(self, values: np.ndarray):
        self.a = np.ascontiguousarray(values)
        self.n = self.a.size

    def append(self, value) -> None:
        if self.n == self.a.size:
            bigger = np.empty(max(16, 2 * self.a.size), dtype=self.a.dtype)
            bigger[: self.n] = self.a[: self.n]
            self.a = bigger
        self.a[self.n] = value
        self.n += 1

    def pop(self) -> None:
        self.n -= 1

    @property
    def view(self) -> np.ndarray:
        return self.a[: self.n]


class _Names:
    """Names of instances or nets: the list (index = id), name -> id, and a live flag per id.

    A removed id keeps its name in ``names`` and its entry in ``index`` until the name is
    inserted again (the entry then points at the new id), so ids are never reused.
    """

    __slots__ = ("names", "_index", "alive", "what", "file")

    def __init__(self, names: list[str], what: str, file: str | None, check: bool):
        self.names = list(names)
        self.what = what
        self.file = file
        self._index = _index(self.names, what, file) if check else None
        self.alive = _Grow(np.ones(len(self.names), dtype=bool))

    @property
    def index(self) -> dict[str, int]:
        """name -> id, built on first use (readers guarantee unique names)."""
        if self._index is None:
            self._index = _index(self.names, self.what, self.file)
        return self._index

    def live(self, name: str) -> int | None:
        i = self.index.get(name)
        return i if i is not None and self.alive.a[i] else None

    def insert(self, name: str, undo: list) -> int:
        i = len(self.names)
        undo.append(("insert", self, name, self.index.get(name)))
        self.names.append(name)
        self.alive.append(True)
        self.index[name] = i
        return i

    def remove(self, i: int, undo: list) -> None:
        self.alive.a[i] = False
        undo.append(("remove", self, i))

    def undo_insert(self, name: str, old: int | None) -> None:
        self.names.pop()
        self.alive.pop()
        if old is None:
            del self.index[name]
        else:
            self.index[name] = old


class _PinIndex:
    """Pins by owner and by net, kept current through changes in time proportional to them.

    Built once (two stable argsorts) over the pins that exist then; pins added later and
    connections made later are appended to per-owner / per-net lists. A net's pins are its
    entries whose current net is still that net (stale entries are filtered, duplicates
    dropped), so disconnections need no bookkeeping.
    """

    def __init__(self, owner: np.ndarray, net: np.ndarray, n_inst: int, n_ports: int, n_nets: int):
        self.n_inst = n_inst
        key = np.where(owner >= 0, owner, n_inst + (-1 - owner)).astype(np.int64)
        self.owner_order = np.argsort(key, kind="stable")
        self.owner_ptr = np.zeros(n_inst + n_ports + 1, dtype=np.int64)
        np.cumsum(np.bincount(key, minlength=n_inst + n_ports), out=self.owner_ptr[1:])
        on = np.flatnonzero(net >= 0)
        self.net_order = on[np.argsort(net[on], kind="stable")]
        self.net_ptr = np.zeros(n_nets + 1, dtype=np.int64)
        np.cumsum(np.bincount(net[on], minlength=n_nets), out=self.net_ptr[1:])
        self.owner_extra: dict[int, list[int]] = {}
        self.net_extra: dict[int, list[int]] = {}

    def owner_pins(self, owner: int) -> list[int]:
        k = owner if owner >= 0 else self.n_inst + (-1 - owner)
        base = []
        if (owner < 0 or owner < self.n_inst) and k + 1 < self.owner_ptr.size:
            base = self.owner_order[self.owner_ptr[k] : self.owner_ptr[k + 1]].tolist()
        return base + self.owner_extra.get(owner, [])

    def net_pins(self, n: int, pnet: np.ndarray) -> list[int]:
        cand = []
        if n + 1 < self.net_ptr.size:
            cand = self.net_order[self.net_ptr[n] : self.net_ptr[n + 1]].tolist()
        cand += self.net_extra.get(n, [])
        return [p for p in dict.fromkeys(cand) if p < pnet.size and pnet[p] == n]


@dataclass
class AppliedBatch:
    """What one :meth:`Circuit.apply` changed, in id terms (lists in record order).

    ``connected``/``disconnected`` hold ``(owner, pin_name, net_id)`` with owner an instance id or
    ``-1 - port_id``; ``disconnected`` includes the implicit disconnections of ``remove_gate`` and
    ``remove_net``. ``events`` is the same information as one ordered list of tuples
    (``("insert_instance", id)``, ``("remove_instance", id)``, ``("insert_net", id)``,
    ``("remove_net", id)``, ``("connect", owner, pin, net)``, ``("disconnect", owner, pin, net)``,
    ``("resize", id, old_cell, new_cell)``) for consumers that need the interleaving.
    """

    inserted_instances: list[int] = field(default_factory=list)
    removed_instances: list[int] = field(default_factory=list)
    inserted_nets: list[int] = field(default_factory=list)
    removed_nets: list[int] = field(default_factory=list)
    connected: list[tuple[int, str, int]] = field(default_factory=list)
    disconnected: list[tuple[int, str, int]] = field(default_factory=list)
    resized: list[tuple[int, str, str]] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)


class Circuit:
    """A flat gate-level netlist (see the module docstring for ids, pins and changes).

    Built by :func:`igpart.netlist.read_verilog`; public attributes are read-only by contract.
    """

    def __init__(
        self,
        name: str,
        instance_names: list[str],
        instance_cells: list[str],
        net_names: list[str],
        port_names: list[str],
        port_directions: list[str],
        port_net: np.ndarray,
        pin_owner: np.ndarray,
        pin_name: np.ndarray,
        pin_names: list[str],
        pin_dir: np.ndarray,
        pin_net: np.ndarray,
        library: Library | None = None,
        file: str | None = None,
        check_names: bool = True,
    ):
        self.name = name
        self.file = file
        self.library = library
        self._insts = _Names(instance_names, "instance", file, check_names)
        self._nets = _Names(net_names, "net", file, check_names)
        self.instance_names = self._insts.names
        self.instance_cells = list(instance_cells)
        self.net_names = self._nets.names
        self.port_names = list(port_names)
        self.port_directions = list(port_directions)
        self._port_index = _index(self.port_names, "port", file)
        nports = len(self.port_names)
        self._pin_names = list(pin_names)
        self._pin_name_index = {s: i for i, s in enumerate(self._pin_names)}
        port_pin_names = np.array(
            [self._intern_pin_name(p) for p in self.port_names], dtype=np.int32
        )
        pdir = np.array([DIRECTION_CODE[d] for d in self.port_directions], dtype=np.int8)
        # port pins come after the instance pins; owner -1-p
        self._owner = _Grow(np.concatenate([pin_owner, -1 - np.arange(nports)]).astype(np.int32))
        self._pname = _Grow(np.concatenate([pin_name, port_pin_names]).astype(np.int32))
        self._pdir = _Grow(np.concatenate([pin_dir, pdir]).astype(np.int8))
        self._pnet = _Grow(np.concatenate([pin_net, port_net]).astype(np.int32))
        self._index: _PinIndex | None = None
        self._last_undo: list[tuple] | None = None  # of the last apply, for revert_last()
        self._library_complete: bool | None = None  # the library has every netlist cell

    # ------------------------------------------------------------------ counts and names
    @property
    def num_instances(self) -> int:
        """Live instances."""
        return int(self._insts.alive.view.sum())

    @property
    def num_nets(self) -> int:
        """Live nets."""
        return int(self._nets.alive.view.sum())

    @property
    def num_ports(self) -> int:
        return len(self.port_names)

    @property
    def num_pins(self) -> int:
        """Connected pins (instance pins and port pins on a net)."""
        return int((self._pnet.view >= 0).sum())

    @property
    def instance_alive(self) -> np.ndarray:
        """bool per instance id (False once removed)."""
        return self._insts.alive.view.copy()

    @property
    def net_alive(self) -> np.ndarray:
        """bool per net id (False once removed)."""
        return self._nets.alive.view.copy()

    def instance_id(self, name: str) -> int:
        """Id of a live instance; an unknown (or removed) name raises InputError naming it."""
        i = self._insts.live(name)
        if i is None:
            raise InputError(f"unknown instance '{name}'")
        return i

    def net_id(self, name: str) -> int:
        """Id of a live net; an unknown (or removed) name raises InputError naming it."""
        n = self._nets.live(name)
        if n is None:
            raise InputError(f"unknown net '{name}'")
        return n

    def port_id(self, name: str) -> int:
        p = self._port_index.get(name)
        if p is None:
            raise InputError(f"unknown port '{name}'")
        return p

    # ------------------------------------------------------------------ pin arrays
    def pin_arrays(self) -> dict[str, np.ndarray]:
        """Columnar pin table (copies): ``owner`` (instance id or -1-port), ``name`` (index into
        :attr:`pin_name_table`), ``direction`` (0 input, 1 output, 2 inout), ``net`` (-1 when
        unconnected)."""
        return {
            "owner": self._owner.view.copy(),
            "name": self._pname.view.copy(),
            "direction": self._pdir.view.copy(),
            "net": self._pnet.view.copy(),
        }

    @property
    def pin_name_table(self) -> list[str]:
        return list(self._pin_names)

    def _pins(self) -> _PinIndex:
        if self._index is None:
            self._index = _PinIndex(
                self._owner.view,
                self._pnet.view,
                len(self.instance_names),
                self.num_ports,
                len(self.net_names),
            )
        return self._index

    def pins_of_instance(self, i: int) -> list[tuple[str, int, str]]:
        """``(pin_name, net_id or -1, direction)`` of each pin of instance ``i``."""
        if not (0 <= i < len(self.instance_names)) or not self._insts.alive.a[i]:
            raise InputError(f"no live instance with id {i}")
        idx = self._pins().owner_pins(i)
        return [
            (self._pin_names[a], int(b), DIRECTION_NAMES[c])
            for a, b, c in zip(self._pname.a[idx], self._pnet.a[idx], self._pdir.a[idx])
        ]

    def pins_of_net(self, n: int) -> list[tuple[int, str]]:
        """``(owner, pin_name)`` of each pin on net ``n``; owner is an instance id or -1-port."""
        if not (0 <= n < len(self.net_names)) or not self._nets.alive.a[n]:
            raise InputError(f"no live net with id {n}")
        idx = sorted(self._pins().net_pins(n, self._pnet.view))
        return [
            (int(o), self._pin_names[p]) for o, p in zip(self._owner.a[idx], self._pname.a[idx])
        ]

    def port_net(self, p: int) -> int:
        """Net of port ``p`` (-1 when disconnected)."""
        return int(self._pnet.a[self._pins().owner_pins(-1 - p)[0]])

    def drivers_per_net(self) -> np.ndarray:
        """Number of drivers of each net id: output/inout instance pins and input/inout ports."""
        owner, d, net = self._owner.view, self._pdir.view, self._pnet.view
        drive = np.where(owner >= 0, d != 0, d != OUTPUT) & (net >= 0)
        return np.bincount(net[drive], minlength=len(self.net_names))

    # ------------------------------------------------------------------ views
    def to_hypergraph(
        self,
        weights: str = "unit",
        skip_nets=None,
        max_net_size: int | None = None,
        skip_clock: bool = True,
        skip_constants: bool = True,
        area_scale: float | None = None,
    ):
        """Hypergraph view: live instances then ports are vertices, nets are hyperedges (see
        :mod:`igpart.netlist.views` for skipping and weights)."""
        from .views import hypergraph_view

        return hypergraph_view(
            self,
            weights=weights,
            skip_nets=skip_nets,
            max_net_size=max_net_size,
            skip_clock=skip_clock,
            skip_constants=skip_constants,
            area_scale=area_scale,
        )

    def to_graph(self, model: str = "clique", **kwargs):
        """Graph view: ``clique`` or ``star`` expansion of :meth:`to_hypergraph` (same keyword
        arguments)."""
        from .views import graph_view

        return graph_view(self, model=model, **kwargs)

    # ------------------------------------------------------------------ summary / equality
    def summary(self) -> dict:
        """Counts (live objects), cell-type histogram size and pin statistics."""
        net = self._pnet.view
        owner = self._owner.view
        on = net >= 0
        n_inst = len(self.instance_names)
        vert = np.where(owner >= 0, owner, n_inst + (-1 - owner)).astype(np.int64)
        pairs = np.unique(net[on].astype(np.int64) * (n_inst + self.num_ports) + vert[on]).size
        alive_cells = np.array(self.instance_cells, dtype=object)[self._insts.alive.view]
        sizes = np.bincount(net[on], minlength=len(self.net_names))[self._nets.alive.view]
        return {
            "design": self.name,
            "instances": self.num_instances,
            "nets": self.num_nets,
            "ports": self.num_ports,
            "inputs": self.port_directions.count("input"),
            "outputs": self.port_directions.count("output"),
            "inouts": self.port_directions.count("inout"),
            "pins": int(on.sum()),
            "unconnected_pins": int((~on & (owner >= 0)).sum()),
            "vertex_net_pairs": int(pairs),
            "cell_types": len(set(alive_cells.tolist())),
            "max_net_size": int(sizes.max()) if sizes.size else 0,
            "nets_without_pins": int((sizes == 0).sum()),
            "multi_driver_nets": int((self.drivers_per_net()[self._nets.alive.view] > 1).sum()),
            "library": self.library.name if self.library is not None else None,
        }

    def _pin_records(self) -> list:
        names = np.array(self._pin_names, dtype=object)
        return list(
            zip(
                self._owner.view.tolist(),
                names[self._pname.view].tolist() if self._pname.n else [],
                self._pdir.view.tolist(),
                self._pnet.view.tolist(),
            )
        )

    def difference(self, other: Circuit) -> str | None:
        """None when both circuits are the same, else the first difference found (for tests)."""
        for attr in (
            "name",
            "instance_names",
            "instance_cells",
            "net_names",
            "port_names",
            "port_directions",
        ):
            a, b = getattr(self, attr), getattr(other, attr)
            if a != b:
                return f"{attr} differ: {_first_diff(a, b)}"
        for attr in ("_insts", "_nets"):
            if not np.array_equal(getattr(self, attr).alive.view, getattr(other, attr).alive.view):
                return f"{attr[1:]} alive flags differ"
        a, b = self._pin_records(), other._pin_records()
        if a != b:
            return f"pins differ: {_first_diff(a, b)}"
        return None

    def equals(self, other: Circuit) -> bool:
        return isinstance(other, Circuit) and self.difference(other) is None

    def __repr__(self) -> str:
        return (
            f"Circuit({self.name!r}, instances={self.num_instances}, nets={self.num_nets}, "
            f"ports={self.num_ports}, pins={self.num_pins})"
        )

    def _state(self) -> tuple:
        """Everything apply() may change, as comparable values (for rollback tests)."""
        return (
            list(self.instance_names),
            list(self.instance_cells),
            list(self.net_names),
            dict(self._insts.index),
            dict(self._nets.index),
            self._insts.alive.view.tobytes(),
            self._nets.alive.view.tobytes(),
            list(self._pin_names),
            dict(self._pin_name_index),
            self._owner.view.tobytes(),
            self._pname.view.tobytes(),
            self._pdir.view.tobytes(),
            self._pnet.view.tobytes(),
        )

    # ------------------------------------------------------------------ changes
    def _intern_pin_name(self, s: str) -> int:
        i = self._pin_name_index.get(s)
        if i is None:
            i = len(self._pin_names)
            self._pin_names.append(s)
            self._pin_name_index[s] = i
        return i

    def apply(self, changes: Iterable[Change]) -> AppliedBatch:
        """Validates and applies a batch of change records, all or nothing.

        Records apply in order, each against the state the earlier ones left. The first invalid
        record raises :class:`~igpart.errors.BatchError` (an InputError) naming the record, its
        index and its ``.ops`` line; everything the batch had done is rolled back first.
        """
        changes = getattr(changes, "changes", changes)  # an OpsBatch or records
        if isinstance(changes, (str, bytes)) or not isinstance(changes, Iterable):
            raise InputError(
                f"apply needs an iterable of change records, not {type(changes).__name__}"
            )
        changes = list(changes)
        index = self._pins()
        undo: list[tuple] = []
        out = AppliedBatch()
        self._last_undo = None
        try:
            for k, rec in enumerate(changes):
                reason = self._apply_one(rec, index, undo, out)
                if reason is not None:
                    raise _batch_error(k, rec, reason)
        except BaseException:
            self._rollback(undo, index)
            raise
        self._last_undo = undo
        return out

    def revert_last(self) -> None:
        """Undoes the last successful :meth:`apply` (once), leaving the state as before it.

        For callers that apply a batch to the circuit and then find that a later consumer (the
        incremental engine of :class:`igpart.plugin.Session`) rejects it: the batch then takes
        effect nowhere. Raises InputError when there is nothing to revert.
        """
        undo = self._last_undo
        if undo is None:
            raise InputError("nothing to revert: no batch applied since the last revert")
        self._last_undo = None
        self._rollback(undo, self._pins())

    def _pin_of(self, rec, index: _PinIndex) -> tuple[int | None, int | None, str | None]:
        """(owner, pin index or None when the pin does not exist yet, error reason)."""
        if rec.instance is None:
            p = self._port_index.get(rec.pin)
            if p is None:
                return None, None, f"unknown port '{rec.pin}'"
            owner = -1 - p
        else:
            owner = self._insts.live(rec.instance)
            if owner is None:
                return None, None, f"unknown instance '{rec.instance}'"
        name_id = self._pin_name_index.get(rec.pin)
        pin = None
        if name_id is not None:
            for q in index.owner_pins(owner):
                if self._pname.a[q] == name_id:
                    pin = q
                    break
        return owner, pin, None

    def _apply_one(self, rec, index: _PinIndex, undo, out: AppliedBatch) -> str | None:
        if not isinstance(rec, CHANGE_TYPES):
            return f"not a change record: {type(rec).__name__}"
        if isinstance(rec, ConnectPin):
            owner, pin, why = self._pin_of(rec, index)
            if why:
                return why
            net = self._live_net(rec.net)
            if net is None:
                return f"unknown net '{rec.net}'"
            if pin is None:
                why = self._check_new_pin(owner, rec.pin)
                if why:
                    return why
                pin = self._add_pin(owner, rec.pin, index, undo)
            elif self._pnet.a[pin] >= 0:
                cur = self.net_names[self._pnet.a[pin]]
                return f"pin {rec.pin_text} is already connected (to net '{cur}')"
            self._set_net(pin, net, undo)
            index.net_extra.setdefault(net, []).append(pin)
            out.connected.append((owner, rec.pin, net))
            out.events.append(("connect", owner, rec.pin, net))
        elif isinstance(rec, DisconnectPin):
            owner, pin, why = self._pin_of(rec, index)
            if why:
                return why
            if pin is None or self._pnet.a[pin] < 0:
                return f"pin {rec.pin_text} is not connected"
            self._disconnect(pin, undo, out)
        elif isinstance(rec, (InsertGate, InsertNet)):
            table, what = (
                (self._insts, "instance")
                if isinstance(rec, InsertGate)
                else (
                    self._nets,
                    "net",
                )
            )
            if not rec.name or not getattr(rec, "cell", "x"):
                return "empty name"
            if table.live(rec.name) is not None:
                return f"{what} '{rec.name}' already exists"
            if isinstance(rec, InsertGate) and (why := self._check_cell(rec.cell)):
                return why
            i = table.insert(rec.name, undo)
            if table is self._insts:
                self.instance_cells.append(rec.cell)
                undo.append(("cell_append",))
                out.inserted_instances.append(i)
            else:
                out.inserted_nets.append(i)
            out.events.append((f"insert_{what}", i))
        elif isinstance(rec, (RemoveGate, RemoveNet)):
            table, what = (
                (self._insts, "instance")
                if isinstance(rec, RemoveGate)
                else (
                    self._nets,
                    "net",
                )
            )
            i = table.live(rec.name)
            if i is None:
                return f"unknown {what} '{rec.name}'"
            pnet = self._pnet.view
            if table is self._insts:
                on = [q for q in index.owner_pins(i) if pnet[q] >= 0]
            else:
                on = sorted(index.net_pins(i, pnet))
            for pin in on:
                self._disconnect(pin, undo, out)
            table.remove(i, undo)
            (out.removed_instances if table is self._insts else out.removed_nets).append(i)
            out.events.append((f"remove_{what}", i))
        elif isinstance(rec, RepowerGate):
            i = self._insts.live(rec.name)
            if i is None:
                return f"unknown instance '{rec.name}'"
            if not rec.cell:
                return "empty cell name"
            if why := self._check_cell(rec.cell):
                return why
            old_cell = self.instance_cells[i]
            self.instance_cells[i] = rec.cell
            undo.append(("cell", i, old_cell))
            out.resized.append((i, old_cell, rec.cell))
            out.events.append(("resize", i, old_cell, rec.cell))
        return None

    def _check_cell(self, cell: str) -> str | None:
        """Why a new or resized instance cannot be of ``cell``: with a library that has every
        cell of the design, the cell must be one of its cells (as OpenTimer requires of every
        instance), so that its pins are known. A library that lacks cells of the netlist is not
        the design's whole library: new cells are then taken as given."""
        lib = self.library
        if lib is None or cell in lib.cells:
            return None
        if self._library_complete is None:
            cells = set(self.instance_cells)
            self._library_complete = all(c in lib.cells for c in cells)
        if self._library_complete:
            return f"cell '{cell}' is not in the library '{lib.name}'"
        return None

    def _live_net(self, name: str) -> int | None:
        return self._nets.live(name)

    def _check_new_pin(self, owner: int, pin: str) -> str | None:
        if owner < 0:
            return None
        cell = self.instance_cells[owner]
        lc = self.library.cells.get(cell) if self.library is not None else None
        if lc is not None and pin not in lc.pins:
            return f"cell '{cell}' has no pin '{pin}'"
        return None

    def _add_pin(self, owner: int, pin: str, index: _PinIndex, undo) -> int:
        cell = self.instance_cells[owner]
        d = self.library.direction(cell, pin) if self.library is not None else None
        if d is not None:
            code = DIRECTION_CODE[d]
        else:
            others = [self._pin_names[self._pname.a[q]] for q in index.owner_pins(owner)]
            code = direction_by_name(pin, [pin, *others])
            code = 0 if code is None else code
        n_names = len(self._pin_names)
        name_id = self._intern_pin_name(pin)
        idx = self._owner.n
        self._owner.append(owner)
        self._pname.append(name_id)
        self._pdir.append(code)
        self._pnet.append(-1)
        index.owner_extra.setdefault(owner, []).append(idx)
        undo.append(("add_pin", owner, n_names))
        return idx

    def _set_net(self, pin: int, net: int, undo) -> None:
        undo.append(("net", pin, int(self._pnet.a[pin])))
        self._pnet.a[pin] = net

    def _disconnect(self, pin: int, undo, out: AppliedBatch) -> None:
        owner = int(self._owner.a[pin])
        name = self._pin_names[self._pname.a[pin]]
        net = int(self._pnet.a[pin])
        self._set_net(pin, -1, undo)
        out.disconnected.append((owner, name, net))
        out.events.append(("disconnect", owner, name, net))

    def _rollback(self, undo: list[tuple], index: _PinIndex) -> None:
        for entry in reversed(undo):
            kind = entry[0]
            if kind == "net":
                self._pnet.a[entry[1]] = entry[2]
            elif kind == "add_pin":
                _, owner, n_names = entry
                extra = index.owner_extra[owner]
                extra.pop()
                if not extra:
                    del index.owner_extra[owner]
                for g in (self._owner, self._pname, self._pdir, self._pnet):
                    g.pop()
                while len(self._pin_names) > n_names:
                    del self._pin_name_index[self._pin_names.pop()]
            elif kind == "insert":
                entry[1].undo_insert(entry[2], entry[3])
            elif kind == "remove":
                entry[1].alive.a[entry[2]] = True
            elif kind == "cell_append":
                self.instance_cells.pop()
            elif kind == "cell":
                self.instance_cells[entry[1]] = entry[2]


def _batch_error(k: int, rec, reason: str) -> BatchError:
    line = getattr(rec, "line", None)
    text = rec.text() if hasattr(rec, "text") else repr(rec)
    if line is not None:
        text = f"{text}, .ops line {line}"
    err = BatchError(k, getattr(rec, "op", type(rec).__name__), (), reason, text=text)
    err.line = line
    return err


def _index(names: list[str], what: str, file: str | None) -> dict[str, int]:
    index = dict(zip(names, range(len(names))))
    if len(index) != len(names):
        seen: set[str] = set()
        for s in names:
            if s in seen:
                raise InputError(f"duplicate {what} name '{s}'", file)
            seen.add(s)
    return index


def _first_diff(a, b) -> str:
    if len(a) != len(b):
        return f"lengths {len(a)} != {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"at {i}: {x!r} != {y!r}"
    return "?"
