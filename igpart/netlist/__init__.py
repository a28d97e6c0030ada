"""Netlist front-end: structural Verilog and Liberty to a Circuit, hypergraph and graph views,
TAU 2015 ``.ops`` change scripts.

- :func:`read_verilog` -> :class:`Circuit` (``parser="auto"|"fast"|"pyverilog"``, ``lib``,
  ``top``); :func:`read_liberty` -> :class:`Library`; :func:`read_ops` -> list of
  :class:`OpsBatch` of change records (:mod:`igpart.netlist.changes`).
- ``circuit.apply(changes)`` -> :class:`AppliedBatch`, all-or-nothing.
- ``circuit.to_hypergraph(...)`` -> :class:`HypergraphView`, ``circuit.to_graph(...)`` ->
  :class:`GraphView`, with the maps back to names.

Conventions where the API contract left a choice (the plugin's Session relies on them):

- Port pins in change records: ``.ops`` files name a top-level port's pin by the port name alone
  (``connect_pin n78gat TAUNET_3`` in the shipped TAU 2015 files). The records carry
  ``instance=None, pin=<port name>``; in ``pins_of_net`` and :class:`AppliedBatch` such a pin has
  owner ``-1 - port_id`` and pin name = port name.
- Ids are never recycled: a removed instance or net keeps its id slot (its name stays in
  ``instance_names``/``net_names``, ``instance_alive``/``net_alive`` become False);
  ``num_instances``/``num_nets`` count live ones; a re-inserted name gets a new id.
- ``remove_gate``/``remove_net`` disconnect still-connected pins first (OpenTimer semantics);
  these implicit disconnections are listed in ``AppliedBatch.disconnected``. Connecting a
  connected pin or disconnecting an unconnected one is an error.
- ``num_pins`` counts connected pins, port pins included. A hypergraph has one pin per distinct
  (vertex, net) pair, so an instance with two pins on one net adds one hypergraph pin: the
  hypergraph pin count equals ``summary()["vertex_net_pairs"]`` (the view with nothing skipped).
  In tv80: 16,681 connected pins, 16,652 pairs (29 instances tie two of their pins together).
- Additions to the contract (names kept): ``Circuit.port_id``, ``port_net``, ``instance_alive``,
  ``net_alive``, ``pin_arrays()``, ``drivers_per_net()``, ``equals``/``difference``;
  ``AppliedBatch.events`` (the same changes as one ordered list); ``apply`` also takes an
  :class:`OpsBatch`; ``revert_last()`` undoes the last successful ``apply`` (the plugin Session
  uses it when its engine rejects a batch the circuit took); invalid records raise
  :class:`~igpart.errors.BatchError` (an InputError) with ``record`` (index), ``line`` (``.ops``
  line) and the record's ``.ops`` text in the message; ``to_hypergraph`` also takes
  ``skip_constants=True`` (nets ``1'b0``/``1'b1``) and ``area_scale``; views carry
  ``instance_of_vertex`` and ``num_instance_vertices``, and ``blocks_by_name(parts,
  include_ports=False)``; ``GraphView.graph`` is the graph (for ``model="star"`` the net
  vertices follow the circuit vertices, unnamed).
- Pin directions: the library's; for kinds it lacks, inferred (names, then the netlist) with a
  warning (:mod:`igpart.netlist.directions`). ``repower_gate`` keeps pin directions.
- Unsupported Verilog (an InputError with the line): behavioural code, parameters, generate,
  instance arrays, ``` `include```, macros with arguments. pyverilog's parse tables are cached
  in ``$XDG_CACHE_HOME/igpart/pyverilog`` (``~/.cache/...``; a temporary directory if that is not
  writable).
"""

from .changes import (
    Change,
    ConnectPin,
    DisconnectPin,
    InsertGate,
    InsertNet,
    RemoveGate,
    RemoveNet,
    RepowerGate,
)
from .circuit import AppliedBatch, Circuit
from .liberty import LibCell, Library, parse_liberty, read_liberty
from .ops import OpsBatch, parse_ops, read_ops
from .verilog import parse_verilog, read_verilog
from .views import GraphView, HypergraphView

__all__ = [
    "AppliedBatch",
    "Change",
    "Circuit",
    "ConnectPin",
    "DisconnectPin",
    "GraphView",
    "HypergraphView",
    "InsertGate",
    "InsertNet",
    "LibCell",
    "Library",
    "OpsBatch",
    "RemoveGate",
    "RemoveNet",
    "RepowerGate",
    "parse_liberty",
    "parse_ops",
    "parse_verilog",
    "read_liberty",
    "read_ops",
    "read_verilog",
]
