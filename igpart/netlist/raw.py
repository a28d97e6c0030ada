"""The reader-neutral form of a netlist, and the one place that turns it into a Circuit.

Both Verilog readers (pyverilog and the C++ fast reader) produce a :class:`RawNetlist`: names
in order of appearance and columnar pin arrays. :func:`build_circuit` interns pin names in sorted
order, resolves pin directions per pin kind, and builds the :class:`Circuit` with numpy only, so
both readers give identical circuits whenever their raw forms say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .circuit import Circuit
from .directions import DIRECTION_NAMES, resolve_directions
from .liberty import Library

#: The most net bits a Verilog input may declare, and (pyverilog reader) the most net bits,
#: instances and pins together that flattening its hierarchy may create: a base allowance plus a
#: number per byte of input. A short file declaring ``wire [2147483647:0] w;``, or nesting modules
#: ten-fold ten times in a few hundred bytes, fails at once with its line instead of exhausting
#: memory, while real netlists (several bytes of text per net bit, pin and instance; buses of up
#: to 65,536 bits in any file) stay below it. Both readers apply the same limit to net bits.
NETLIST_BASE_ELEMENTS = 1 << 16
NETLIST_ELEMENTS_PER_BYTE = 16


def max_netlist_elements(size: int) -> int:
    """The limit (see :data:`NETLIST_BASE_ELEMENTS`) for an input of ``size`` bytes."""
    return NETLIST_BASE_ELEMENTS + NETLIST_ELEMENTS_PER_BYTE * int(size)


@dataclass
class RawNetlist:
    """A flat netlist as parsed.

    ``inst_cell`` indexes ``cell_names``; pins are columnar: ``pin_inst`` (instance index),
    ``pin_name`` (index into ``pin_names``), ``pin_net`` (net index, -1 unconnected).
    ``port_dir`` is 0 input / 1 output / 2 inout; ``port_net`` the net of each port bit.
    """

    top: str
    port_names: list[str]
    port_dir: np.ndarray
    port_net: np.ndarray
    net_names: list[str]
    inst_names: list[str]
    inst_cell: np.ndarray
    cell_names: list[str]
    pin_inst: np.ndarray
    pin_name: np.ndarray
    pin_names: list[str]
    pin_net: np.ndarray


def _sorted_table(names: list[str], ids: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The table re-interned in sorted order, with the ids mapped accordingly."""
    if not names:
        return [], ids.astype(np.int32)
    table, inverse = np.unique(np.array(names, dtype=object).astype(str), return_inverse=True)
    return table.tolist(), inverse.astype(np.int32)[ids]


def build_circuit(
    raw: RawNetlist, lib: Library | None = None, file: str | None = None, check_names: bool = True
) -> Circuit:
    """The :class:`Circuit` of a raw netlist (pin directions from ``lib`` or inferred).

    ``check_names=False`` skips the duplicate-name check of instances and nets (and defers
    building the name -> id maps to their first use) for readers that already guarantee it."""
    pin_inst = np.asarray(raw.pin_inst, dtype=np.int32)
    pin_net = np.asarray(raw.pin_net, dtype=np.int32)
    port_dir = np.asarray(raw.port_dir, dtype=np.int8)
    port_net = np.asarray(raw.port_net, dtype=np.int32)
    inst_cell = np.asarray(raw.inst_cell, dtype=np.int32)
    pin_names, pin_name = _sorted_table(raw.pin_names, np.asarray(raw.pin_name, dtype=np.int64))
    cell_names, inst_cell = _sorted_table(raw.cell_names, inst_cell.astype(np.int64))
    pin_dir = resolve_directions(
        inst_cell[pin_inst] if pin_inst.size else np.zeros(0, dtype=np.int32),
        pin_name,
        pin_net,
        cell_names,
        pin_names,
        len(raw.net_names),
        port_dir,
        port_net,
        lib,
    )
    cells = np.array(cell_names, dtype=object)[inst_cell].tolist() if inst_cell.size else []
    return Circuit(
        raw.top,
        raw.inst_names,
        cells,
        raw.net_names,
        raw.port_names,
        np.array(DIRECTION_NAMES, dtype=object)[port_dir].tolist(),
        port_net,
        pin_inst,
        pin_name,
        pin_names,
        pin_dir,
        pin_net,
        library=lib,
        file=file,
        check_names=check_names,
    )
