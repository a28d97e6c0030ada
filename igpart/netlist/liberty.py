"""Pin directions, pin order, clock pins and cell areas from Liberty (``.lib``) files.

Parsing is done by the ``liberty-parser`` package; this module only walks its groups. ``pin``
groups (also ``pin(a, b)`` with several names) and ``bus`` groups are read: a bus contributes its
declared ``pin(D[i])`` members, or, without them, one pin per bit of its ``bus_type``
(``D[from]`` .. ``D[to]``). Power/ground pins (``pg_pin``) are not signal pins and are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
from .files import read_text

DIRECTIONS = ("input", "output", "inout")


@dataclass
class LibCell:
    """One cell of a library: pin directions in declaration order, clock pins, area."""

    name: str
    pins: dict[str, str] = field(default_factory=dict)
    area: float | None = None
    clock_pins: set[str] = field(default_factory=set)

    @property
    def pin_order(self) -> list[str]:
        """Pins in the order the library declares them (used for positional connections)."""
        return list(self.pins)


@dataclass
class Library:
    """Cells by name. ``cells[name].pins[pin]`` is ``'input'``, ``'output'`` or ``'inout'``."""

    name: str
    cells: dict[str, LibCell] = field(default_factory=dict)
    file: str | None = None

    def direction(self, cell: str, pin: str) -> str | None:
        c = self.cells.get(cell)
        return None if c is None else c.pins.get(pin)

    def __repr__(self) -> str:
        return f"Library({self.name!r}, cells={len(self.cells)})"


def _text(value) -> str:
    return str(getattr(value, "value", value))


def _bus_bits(lib_group, type_name: str) -> list[int]:
    for t in lib_group.get_groups("type"):
        if t.args and _text(t.args[0]) == type_name:
            lo, hi = t.get("bit_from"), t.get("bit_to")
            if lo is None or hi is None:
                break
            lo, hi = int(lo), int(hi)
            step = 1 if hi >= lo else -1
            return list(range(lo, hi + step, step))
    return []


def _pin_direction(group, default: str | None, file: str, cell: str) -> str | None:
    d = group.get("direction")
    if d is None:
        return default
    d = _text(d).strip().lower()
    if d == "internal":
        return None
    if d not in DIRECTIONS:
        raise InputError(f"cell '{cell}': pin direction '{d}' is not input/output/inout", file)
    return d


def _read_cell(group, lib_group, file: str) -> LibCell:
    cell = LibCell(_text(group.args[0]) if group.args else "")
    area = group.get("area")
    if area is not None:
        try:
            cell.area = float(_text(area))
        except ValueError:
            raise InputError(f"cell '{cell.name}': area '{area}' is not a number", file) from None
    for g in group.groups:
        if g.group_name == "pin":
            d = _pin_direction(g, None, file, cell.name)
            for a in g.args:
                if d is not None:
                    cell.pins[_text(a)] = d
                    if _text(g.get("clock", "false")).lower() == "true":
                        cell.clock_pins.add(_text(a))
        elif g.group_name == "bus":
            d = _pin_direction(g, None, file, cell.name)
            members = g.get_groups("pin")
            for a in g.args:
                name = _text(a)
                if members:
                    for pm in members:
                        dm = _pin_direction(pm, d, file, cell.name)
                        if dm is not None:
                            for b in pm.args:
                                cell.pins[_text(b)] = dm
                elif d is not None:
                    bt = g.get("bus_type")
                    for bit in _bus_bits(lib_group, _text(bt)) if bt is not None else []:
                        cell.pins[f"{name}[{bit}]"] = d
    return cell


def parse_liberty(text: str, file: str = "<liberty>") -> Library:
    """A :class:`Library` from Liberty source text."""
    from liberty.parser import parse_liberty as _parse

    try:
        root = _parse(text)
    except Exception as exc:  # the parser raises its own error types (and lark's)
        line = getattr(exc, "line_num", None)
        reason = getattr(exc, "e", exc)
        raise InputError(f"Liberty syntax error: {reason!r}", file, line) from None
    if root.group_name != "library":
        raise InputError(f"expected a 'library' group, found '{root.group_name}'", file)
    lib = Library(_text(root.args[0]) if root.args else "", file=file)
    for g in root.get_groups("cell"):
        cell = _read_cell(g, root, file)
        lib.cells[cell.name] = cell
    return lib


def read_liberty(path) -> Library:
    """Reads a Liberty file (see the module docstring for what is kept)."""
    file, text = read_text(path)
    return parse_liberty(text, file)


def as_library(lib) -> Library | None:
    """``None``, a :class:`Library` or a path to a ``.lib`` -> Library or None."""
    if lib is None or isinstance(lib, Library):
        return lib
    return read_liberty(lib)
