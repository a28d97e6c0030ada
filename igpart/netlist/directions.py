"""Pin directions of cell instances: from a Liberty library, else inferred.

Directions are resolved once per *pin kind* (cell type, pin name), never per pin, so a netlist of
millions of pins needs only as many lookups as it has distinct kinds. For a kind the library does
not know (no library, a cell it lacks, or a pin the cell lacks) the direction is inferred:

1. by name: ``Z ZN Q QN Y O X CO SUM ...`` are outputs (``S`` too, in a cell that also has a
   ``CO``/``COUT`` pin: an adder's sum), and common input names (``A1 B D CK EN SE RN ...``)
   are inputs; matching ignores case and a trailing bus index;
2. from the netlist, for names neither list knows: a kind that ever sits on a net that is already
   driven (by a primary input or an output pin of step 1) is an input; one that only sits on nets
   nobody else drives is their driver (output); anything still open is an input.

A warning names how many kinds were inferred and a few examples.
"""

from __future__ import annotations

import logging
import re

import numpy as np

from .liberty import Library

log = logging.getLogger("igpart")

INPUT, OUTPUT, INOUT = 0, 1, 2
DIRECTION_NAMES = ("input", "output", "inout")
DIRECTION_CODE = {name: code for code, name in enumerate(DIRECTION_NAMES)}

_OUTPUT_NAMES = frozenset(
    "Z ZN ZB ZP Q QN QB Q_N Y YN YB O ON OB OUT OUTN OUTB X CO COUT C_OUT SUM GCLK ENCLK GCK "
    "RESULT".split()
)
_SUM_NAMES = frozenset(("S", "SO"))
_CARRY_NAMES = frozenset(("CO", "COUT", "C_OUT"))
_INPUT_RE = re.compile(
    r"^(?:[A-I]|[A-I]\d+|[A-I]N|SE|SI|SN|RN|RB|SB|SD|TE|TI|CI|CIN|CK|CKN|CLK|CLKN|CP|CPN|EN|ENB|"
    r"ENN|GN|IN\d*|SEL\d*|S\d*|SCE|SCD|DATA|RESET|RESETN|RST|RSTN|SET|SETN|PRE|CLR|CLRN|R|RD|SD)$"
)


def _base(pin: str) -> str:
    i = pin.find("[")
    return (pin if i < 0 else pin[:i]).upper()


def direction_by_name(pin: str, cell_pins) -> int | None:
    """Output/input code from the pin name alone (``cell_pins``: every pin name of the cell), or
    ``None`` when the name says nothing."""
    b = _base(pin)
    if b in _OUTPUT_NAMES:
        return OUTPUT
    if b in _SUM_NAMES and any(_base(p) in _CARRY_NAMES for p in cell_pins):
        return OUTPUT
    if _INPUT_RE.match(b):
        return INPUT
    return None


def _unique_small_range(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` for keys in ``[0, bound)``; without a sort when
    the range is small enough for a dense table."""
    if bound > 4 * key.size + (1 << 20):
        return np.unique(key, return_inverse=True)
    present = np.zeros(bound, dtype=bool)
    present[key] = True
    kinds = np.flatnonzero(present)
    rank = np.zeros(bound, dtype=np.int64)
    rank[kinds] = np.arange(kinds.size)
    return kinds, rank[key]


def resolve_directions(
    pin_cell: np.ndarray,
    pin_name: np.ndarray,
    pin_net: np.ndarray,
    cell_names: list[str],
    pin_names: list[str],
    num_nets: int,
    port_dir: np.ndarray,
    port_net: np.ndarray,
    lib: Library | None,
) -> np.ndarray:
    """Direction code (int8) of every instance pin; see the module docstring."""
    npins = pin_cell.size
    if npins == 0:
        return np.zeros(0, dtype=np.int8)
    npn = max(len(pin_names), 1)
    key = pin_cell.astype(np.int64) * npn + pin_name.astype(np.int64)
    kinds, kind_of_pin = _unique_small_range(key, len(cell_names) * npn)
    kind_cell = (kinds // npn).astype(np.int64)
    kind_pin = (kinds % npn).astype(np.int64)
    nk = kinds.size
    kind_dir = np.full(nk, -1, dtype=np.int8)
    pins_of_cell: dict[int, list[str]] = {}
    for c, p in zip(kind_cell.tolist(), kind_pin.tolist()):
        pins_of_cell.setdefault(c, []).append(pin_names[p])
    inferred: list[int] = []
    for k, (c, p) in enumerate(zip(kind_cell.tolist(), kind_pin.tolist())):
        d = lib.direction(cell_names[c], pin_names[p]) if lib is not None else None
        if d is not None:
            kind_dir[k] = DIRECTION_CODE[d]
            continue
        inferred.append(k)
        by_name = direction_by_name(pin_names[p], pins_of_cell[c])
        if by_name is not None:
            kind_dir[k] = by_name
    open_kinds = kind_dir < 0
    if open_kinds.any():
        # nets already driven: primary inputs and pins known to be outputs
        driven = np.zeros(num_nets + 1, dtype=bool)
        pi = (port_dir == INPUT) & (port_net >= 0)
        driven[port_net[pi]] = True
        pin_dir = kind_dir[kind_of_pin]
        out_pins = (pin_dir == OUTPUT) & (pin_net >= 0)
        driven[pin_net[out_pins]] = True
        on_net = pin_net >= 0
        on_driven = on_net & driven[np.where(on_net, pin_net, num_nets)]
        seen_driven = np.bincount(kind_of_pin[on_driven], minlength=nk) > 0
        seen_net = np.bincount(kind_of_pin[on_net], minlength=nk) > 0
        kind_dir[open_kinds & seen_driven] = INPUT
        kind_dir[open_kinds & ~seen_driven & seen_net] = OUTPUT
        kind_dir[kind_dir < 0] = INPUT
    if inferred:
        examples = ", ".join(
            f"{cell_names[kind_cell[k]]}.{pin_names[kind_pin[k]]}={DIRECTION_NAMES[kind_dir[k]]}"
            for k in inferred[:4]
        )
        where = "no library given" if lib is None else "not in the library"
        log.warning(
            "pin directions of %d cell pin kind(s) inferred (%s): %s%s",
            len(inferred),
            where,
            examples,
            " ..." if len(inferred) > 4 else "",
        )
    return kind_dir[kind_of_pin]
