"""Pin directions, pin order, clock pins and cell areas from Liberty (``.lib``) files.

A Liberty library is mostly timing and power tables; igpart needs only the cells, their signal
pins with directions (in declaration order), clock pins and areas. :func:`parse_liberty` reads
these with a small reader of its own: one regular expression tokenizes the text, the groups that
hold nothing igpart uses (``timing``, ``internal_power``, ``lu_table_template``, ...) are skipped
by brace matching, and only ``library`` > ``cell``/``type`` > ``pin``/``bus``/``bundle`` >
``pin`` are looked into. Text this reader cannot parse is handed to the ``liberty-parser``
package, and what that parser accepts is read from its groups with the same rules (so both give
the same library; ``tests/test_liberty.py`` checks it).

Rules: ``pin`` groups (also ``pin(a, b)`` with several names) are signal pins; ``pg_pin`` groups
are power/ground and skipped, as are pins of direction ``internal``. A ``bus`` contributes its
``pin`` members (``pin(D[0:3])`` stands for its bits), or, without them, one pin per bit of its
``bus_type`` (``D[from]`` .. ``D[to]``, the ``type`` group declared in the cell or the library).
A ``bundle`` contributes its ``pin`` members, or, without them, the names of its ``members``
attribute, with the bundle's direction. Errors name the file and line: an unknown direction, an
``area`` that is not a number, ``bit_from``/``bit_to`` that are not integers, an attribute given
twice in one group, a bus wider than :data:`MAX_BUS_BITS` bits.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from ..errors import InputError
from .files import read_text

log = logging.getLogger("igpart")

DIRECTIONS = ("input", "output", "inout")

#: The widest bus (in bits) a library may declare: wider ones are an error, not gigabytes.
MAX_BUS_BITS = 1 << 14
#: Bus bits a library may expand to in all, per byte of its text (plus MAX_BUS_BITS): a small
#: file cannot make millions of pins by naming one wide bus type many times.
BUS_BITS_PER_BYTE = 16


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


# --------------------------------------------------------------------------- the groups read
class _Group:
    """A Liberty group as far as igpart reads it: name, arguments, simple attributes (raw text
    of each value, quotes kept, with where it is), the ``members`` attribute of a bundle, and
    the sub-groups igpart looks into. ``at`` says where the group starts (see ``_Source``)."""

    __slots__ = ("name", "args", "attrs", "members", "groups", "at")

    def __init__(self, name: str, args: list[str], at: int | None):
        self.name = name
        self.args = args
        self.attrs: dict[str, list[tuple[str, int | None]]] = {}
        self.members: list[str] | None = None
        self.groups: list[_Group] = []
        self.at = at


#: Which sub-groups are read inside which group; every other group is skipped whole.
_READ = {
    "library": frozenset(("cell", "type")),
    "cell": frozenset(("pin", "bus", "bundle", "type")),
    "bus": frozenset(("pin",)),
    "bundle": frozenset(("pin",)),
}
_NOTHING: frozenset = frozenset()

# A token after whitespace and line continuations: a comment (dropped later), a quoted string,
# one punctuation character, a word, any other single character (which the reader refuses), or
# the end of the text. Every alternative consumes what it starts, so there is no backtracking.
_TOKEN = re.compile(
    r"""\s*(?:\\\r?\n\s*)*(
        /\*[\s\S]*?(?:\*/|\Z) | //[^\n]* | \#[^\n]*
      | "[^"\\]*(?:\\[\s\S][^"\\]*)*" | '[^'\\]*(?:\\[\s\S][^'\\]*)*'
      | [{}()\[\];:,]
      | [^\s{}()\[\];:,"'\\]+
      | \S | \Z)""",
    re.X,
)
_PUNCT = frozenset("{}()[];:,")
_INT = re.compile(r"[-+]?\d{1,18}")
_RANGE = re.compile(r"^(.*)\[\s*(-?\d{1,18})\s*:\s*(-?\d{1,18})\s*\]$")


class _Syntax(Exception):
    """Text the fast reader does not parse (at token ``at``). Unless ``definite`` (unbalanced
    braces or parentheses, nothing or something after the library group: no Liberty reader
    takes these), liberty-parser gets a try."""

    def __init__(self, message: str, at: int, definite: bool = False):
        super().__init__(message)
        self.message = message
        self.at = at
        self.definite = definite


class _Source:
    """The file name and, for the fast reader, the text and tokens, to turn a token index into a
    line number (only when an error needs one)."""

    def __init__(self, file: str, text: str | None = None, size: int = 0):
        self.file = file
        self.text = text
        self.bus_bits_left = MAX_BUS_BITS + BUS_BITS_PER_BYTE * size

    def line(self, at: int | None) -> int | None:
        if at is None or self.text is None:
            return None
        seen = -1
        pos = len(self.text)
        for m in _TOKEN.finditer(self.text):
            tok = m.group(1)
            if tok and not _is_comment(tok):
                seen += 1
                if seen == at:
                    pos = m.start(1)
                    break
        return self.text.count("\n", 0, pos) + 1

    def charge(self, bits: int, what: str, at: int | None) -> None:
        """Counts ``bits`` pins made from bus ranges against the library's allowance."""
        self.bus_bits_left -= bits
        if self.bus_bits_left < 0:
            raise self.error(f"{what}: the buses of this library expand to more pins than "
                             f"{BUS_BITS_PER_BYTE} per byte of the file", at)  # fmt: skip

    def error(self, message: str, at: int | None) -> InputError:
        return InputError(message, self.file, self.line(at))


def _is_comment(tok: str) -> bool:
    return tok[0] == "#" or tok[:2] in ("/*", "//")


def _tokens(text: str) -> list[str]:
    toks = _TOKEN.findall(text)
    return [t for t in toks if t and not (t[0] == "#" or t[:2] in ("/*", "//"))]


def _arg(toks: list[str], at: int) -> str:
    """One group argument from its tokens: a word or a string, or a name with a bit selection
    (``D[3]``, ``D[0:3]``)."""
    if len(toks) == 1:
        if toks[0] in _PUNCT:
            raise _Syntax(f"unexpected '{toks[0]}' in the arguments", at)
        return toks[0]
    prev_word = False
    for t in toks:
        word = t not in _PUNCT
        if (word and prev_word) or t[0] in "\"'" or t in "{}();,":
            raise _Syntax("group arguments must be separated by commas", at)
        prev_word = word
    return "".join(toks)


def _close_paren(t: list[str], j: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``j - 1``."""
    try:
        k = t.index(")", j)
    except ValueError:
        raise _Syntax("'(' without its ')'", j - 1, True) from None
    for bad in ("(", "{", "}", ";"):
        if bad in t[j:k]:
            raise _Syntax(f"'{bad}' inside an argument list", j + t[j:k].index(bad))
    return k


def _skip_group(t: list[str], j: int) -> int:
    """Index after the ``}`` that closes the ``{`` at ``j - 1``."""
    depth = 1
    k = j
    while True:
        try:
            close = t.index("}", k)
        except ValueError:
            raise _Syntax("a group is not closed ('{' without its '}')", j - 1, True) from None
        depth += t[k:close].count("{") - 1
        k = close + 1
        if depth == 0:
            return k


def _parse_fast(t: list[str]) -> _Group:
    """The library group from the tokens (see the module docstring for what is kept)."""
    n = len(t)
    if n == 0:
        raise _Syntax("the file holds no Liberty group", 0, True)
    stack: list[_Group] = []
    root: _Group | None = None
    i = 0
    while i < n:
        name = t[i]
        if name == "}":
            if not stack:
                raise _Syntax("'}' without a group to close", i, True)
            stack.pop()
            i += 1
            if i < n and t[i] == ";":
                i += 1
            if not stack:
                if i < n:
                    raise _Syntax("text after the end of the library group", i, True)
                break
            continue
        if name in _PUNCT or name[0] in "\"'":
            raise _Syntax(f"expected a group or attribute name, found '{name[:40]}'", i)
        if i + 1 >= n:
            raise _Syntax(f"'{name[:40]}' is not followed by ':' or '('", i)
        nxt = t[i + 1]
        if nxt == ":":
            if not stack:
                raise _Syntax("an attribute outside the library group", i)
            i = _simple_attribute(t, i, n, stack[-1])
        elif nxt == "(":
            close = _close_paren(t, i + 2)
            is_group = close + 1 < n and t[close + 1] == "{"
            if is_group:
                parent = stack[-1].name if stack else None
                if parent is None and root is not None:
                    raise _Syntax("more than one top-level group", i, True)
                wanted = parent is None or name in _READ.get(parent, _NOTHING)
                if not wanted:
                    i = _skip_group(t, close + 2)
                    if i < n and t[i] == ";":
                        i += 1
                    continue
                args = _split_args(t, i + 2, close)
                g = _Group(name, args, i)
                if stack:
                    stack[-1].groups.append(g)
                else:
                    root = g
                stack.append(g)
                i = close + 2
            else:
                if not stack:
                    raise _Syntax("an attribute outside the library group", i)
                if name == "members" and stack[-1].name == "bundle":
                    stack[-1].members = _split_args(t, i + 2, close)
                i = close + 1
                if i < n and t[i] == ";":
                    i += 1
        else:
            raise _Syntax(f"expected ':' or '(' after '{name[:40]}', found '{nxt[:40]}'", i + 1)
    if stack:
        raise _Syntax(f"the {stack[-1].name} group is not closed", stack[-1].at or 0, True)
    assert root is not None
    return root


def _split_args(t: list[str], j: int, close: int) -> list[str]:
    args: list[str] = []
    start = j
    for k in range(j, close + 1):
        if k == close or t[k] == ",":
            if k == start:
                if k == close and not args:
                    break  # no arguments: name ()
                raise _Syntax("an empty group argument", k)
            args.append(_unquote(_arg(t[start:k], start)))
            start = k + 1
    return args


def _simple_attribute(t: list[str], i: int, n: int, group: _Group) -> int:
    """``name : value ;`` at ``i`` (the ``;`` may be left out; ``value`` may be an expression
    such as ``VDD * 0.5``, kept as its tokens joined by spaces); returns the index after it."""
    k = i + 2
    if k >= n:
        raise _Syntax("an attribute without a value", i)
    value = t[k]
    k += 1
    if value == "(":  # an arithmetic expression in parentheses
        try:
            end = t.index(";", k)
        except ValueError:
            raise _Syntax("an expression without its ';'", i) from None
        value = " ".join(t[k - 1 : end])
        k = end
    elif value in _PUNCT:
        raise _Syntax(f"an attribute without a value (found '{value}')", k - 1)
    elif k < n and t[k] == "[":  # name[bit]
        if k + 2 >= n or t[k + 2] != "]" or not _INT.fullmatch(t[k + 1]):
            raise _Syntax("a bit selection must be name[integer] here", k)
        value = f"{value}[{t[k + 1]}]"
        k += 3
    elif value in ("-", "!") or (k < n and t[k] in ("*", "+", "-")):
        try:
            end = t.index(";", k)
        except ValueError:
            raise _Syntax("an expression without its ';'", i) from None
        if any(x in _PUNCT - {"(", ")"} for x in t[k:end]):
            raise _Syntax("an expression must end with ';'", i)
        value = " ".join(t[k - 1 : end])
        k = end
    group.attrs.setdefault(t[i], []).append((value, k - 1))
    if k < n and t[k] == ";":
        k += 1
    return k


def _balanced(t: list[str]) -> bool:
    """Whether every '{' and '(' token is closed, in order."""
    stack: list[str] = []
    for x in t:
        if x in ("{", "("):
            stack.append("}" if x == "{" else ")")
        elif x in ("}", ")"):
            if not stack or stack.pop() != x:
                return False
    return not stack


# --------------------------------------------------------------------------- liberty-parser
def _parse_with_liberty_parser(text: str, src: _Source) -> _Group:
    """The library group by the ``liberty-parser`` package, converted to :class:`_Group`."""
    from liberty.parser import parse_liberty as _parse

    try:
        root = _parse(text)
    except Exception as exc:  # the parser raises its own error types (and lark's)
        line = getattr(exc, "line_num", None)
        reason = getattr(exc, "e", exc)
        raise InputError(
            f"Liberty syntax error: {reason!r}", src.file, None if line is None else line + 1
        ) from None
    return _convert(root, None)


def _raw(value) -> str:
    """A liberty-parser value as the raw text the fast reader keeps (quoted strings quoted)."""
    from liberty.types import ArithExpression, EscapedString

    if isinstance(value, EscapedString):
        return f'"{value.value}"'
    if isinstance(value, ArithExpression):
        return str(value.value)
    return str(getattr(value, "value", value))


def _convert(group, parent: str | None) -> _Group:
    g = _Group(group.group_name, [_unquote(_raw(a)) for a in group.args], None)
    for a in group.attributes:
        if isinstance(a.value, list):
            if a.name == "members" and g.name == "bundle":
                g.members = [_unquote(_raw(v)) for v in a.value]
        else:
            g.attrs.setdefault(a.name, []).append((_raw(a.value), None))
    wanted = _READ.get(g.name, _NOTHING)
    g.groups = [_convert(s, g.name) for s in group.groups if s.group_name in wanted]
    return g


# --------------------------------------------------------------------------- the rules
def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]:
        return raw[1:-1]
    return raw


def _single(g: _Group, key: str, src: _Source, cell: str) -> tuple[str, int | None] | None:
    """The one value of attribute ``key`` of ``g`` (None when absent); InputError when the group
    gives it more than once."""
    vals = g.attrs.get(key)
    if not vals:
        return None
    if len(vals) > 1:
        raise src.error(f"cell '{cell}': attribute '{key}' is given {len(vals)} times in one "
                        f"{g.name} group", vals[1][1])  # fmt: skip
    return vals[0]


def _direction(g: _Group, default: str | None, src: _Source, cell: str) -> str | None:
    d = _single(g, "direction", src, cell)
    if d is None:
        return default
    text = _unquote(d[0]).strip().lower()
    if text == "internal":
        return None
    if text not in DIRECTIONS:
        raise src.error(f"cell '{cell}': pin direction '{text}' is not input/output/inout", d[1])
    return text


def _integer(g: _Group, key: str, src: _Source, cell: str) -> tuple[int, int | None] | None:
    """``(value, where)`` of an integer attribute, None when absent."""
    v = _single(g, key, src, cell)
    if v is None:
        return None
    if not _INT.fullmatch(v[0]):
        raise src.error(f"type '{g.args[0] if g.args else ''}' (used by cell '{cell}'): "
                        f"{key} must be an integer, got {v[0][:40]!r}", v[1])  # fmt: skip
    return int(v[0]), v[1]


def _bits(lo: int, hi: int, what: str, src: _Source, at: int | None) -> range:
    width = abs(hi - lo) + 1
    if width > MAX_BUS_BITS:
        raise src.error(f"{what} has {width} bits (at most {MAX_BUS_BITS})", at)
    src.charge(width, what, at)
    return range(lo, hi + 1) if hi >= lo else range(lo, hi - 1, -1)


def _bus_bits(name: str, scopes, src: _Source, cell: str, at: int | None) -> range:
    for types in scopes:
        t = types.get(name)
        if t is not None:
            lo = _integer(t, "bit_from", src, cell)
            hi = _integer(t, "bit_to", src, cell)
            if lo is None or hi is None:
                return range(0)
            return _bits(lo[0], hi[0], f"bus type '{name}'", src, hi[1])
    log.warning("%s: cell '%s': bus_type '%s' is not declared; the bus has no pins",
                src.file, cell, name)  # fmt: skip
    return range(0)


def _pin_names(arg: str, expand: bool, src: _Source, at: int | None) -> list[str]:
    """A pin group's name; inside a bus ``D[0:3]`` stands for ``D[0]`` .. ``D[3]``."""
    name = arg
    if expand:
        m = _RANGE.match(name)
        if m:
            base, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
            return [f"{base}[{b}]" for b in _bits(lo, hi, f"pin '{name}'", src, at)]
    return [name]


def _types(g: _Group) -> dict[str, _Group]:
    return {t.args[0]: t for t in g.groups if t.name == "type" and t.args}


def _read_cell(group: _Group, lib_types: dict, src: _Source) -> LibCell:
    cell = LibCell(group.args[0] if group.args else "")
    name = cell.name
    area = _single(group, "area", src, name)
    if area is not None:
        try:
            cell.area = float(_unquote(area[0]))
        except ValueError:
            raise src.error(f"cell '{name}': area '{area[0][:40]}' is not a number",
                            area[1]) from None  # fmt: skip
    scopes = (_types(group), lib_types)
    for g in group.groups:
        if g.name == "pin":
            d = _direction(g, None, src, name)
            clock = _single(g, "clock", src, name)
            is_clock = clock is not None and _unquote(clock[0]).strip().lower() == "true"
            if d is not None:
                for pin in g.args:
                    cell.pins[pin] = d
                    if is_clock:
                        cell.clock_pins.add(pin)
        elif g.name in ("bus", "bundle"):
            d = _direction(g, None, src, name)
            members = [m for m in g.groups if m.name == "pin"]
            if members:
                for pm in members:
                    dm = _direction(pm, d, src, name)
                    if dm is not None:
                        for b in pm.args:
                            for pin in _pin_names(b, g.name == "bus", src, pm.at):
                                cell.pins[pin] = dm
            elif d is not None and g.name == "bundle":
                for pin in g.members or []:
                    cell.pins[pin] = d
            elif d is not None:
                bt = _single(g, "bus_type", src, name)
                bits = _bus_bits(_unquote(bt[0]), scopes, src, name, bt[1]) if bt else range(0)
                src.charge(len(bits) * max(len(g.args) - 1, 0), f"bus '{', '.join(g.args)}'", g.at)
                for base in g.args:
                    for bit in bits:
                        cell.pins[f"{base}[{bit}]"] = d
    return cell


def _library(root: _Group, src: _Source) -> Library:
    if root.name != "library":
        raise src.error(f"expected a 'library' group, found '{root.name}'", root.at)
    lib = Library(root.args[0] if root.args else "", file=src.file)
    lib_types = _types(root)
    for g in root.groups:
        if g.name == "cell":
            cell = _read_cell(g, lib_types, src)
            lib.cells[cell.name] = cell
    return lib


# --------------------------------------------------------------------------- entry points
def parse_liberty(text: str, file: str = "<liberty>") -> Library:
    """A :class:`Library` from Liberty source text (see the module docstring)."""
    src = _Source(file, text, len(text))
    toks = _tokens(text)
    try:
        root = _parse_fast(toks)
    except _Syntax as exc:
        error = src.error(f"Liberty syntax error: {exc.message}", exc.at)
        # unbalanced brackets: no reader can make sense of it (and liberty-parser can loop
        # forever on text that ends inside a group or an argument list)
        if exc.definite or not _balanced(toks):
            raise error from None
        try:
            root = _parse_with_liberty_parser(text, _Source(file))
        except InputError:
            raise error from None
        log.debug("%s; read by liberty-parser", error)
        src = _Source(file, None, len(text))
    return _library(root, src)


def read_liberty(path) -> Library:
    """Reads a Liberty file (see the module docstring for what is kept)."""
    file, text = read_text(path)
    return parse_liberty(text, file)


def as_library(lib) -> Library | None:
    """``None``, a :class:`Library` or a path to a ``.lib`` -> Library or None."""
    if lib is None or isinstance(lib, Library):
        return lib
    return read_liberty(lib)
