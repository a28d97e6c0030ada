"""Reading structural Verilog into a :class:`~igpart.netlist.circuit.Circuit`.

Two readers build the same circuit:

- ``fast``: the C++ reader of the extension module, for flat gate-level netlists: one module
  (either port-list style) of ``input``/``output``/``inout``/``wire`` declarations, cell
  instances with named connections to nets, bits of buses and the constants ``1'b0``/``1'b1``,
  and ``assign a = b;`` aliases between nets of equal width. It reads tens of MB/s.
- ``pyverilog``: pyverilog's parser fed the text directly (after :mod:`.preprocess`, so no
  iverilog is needed) and the elaborator of :mod:`.elaborate`: several modules flattened from a
  chosen or inferred top, both port-list styles, positional connections, concatenations,
  ``assign`` aliases. About 0.25 MB/s.

``parser="auto"`` tries the fast reader and falls back to pyverilog when the file uses
something the fast reader does not handle (a second module, ``assign``, positional connections,
a concatenation, ...). A real syntax error is reported as it is found (InputError with the line).

Both readers agree on the details: line endings may be LF or CRLF; an escaped identifier
(``\\INV_X1 ``) names ``INV_X1``, since IEEE 1364-2005 section 3.7.1 makes neither the backslash
nor the terminating white space part of the name (``\\cpu3`` and ``cpu3`` are the same
identifier), and it may hold printable ASCII only (a NUL or any other byte is an InputError with
the line); bytes that are not UTF-8 are allowed in comments only; declarations may not create
more net bits than :func:`~igpart.netlist.raw.max_netlist_elements` of the input size.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile

import numpy as np

from ..errors import InputError
from .circuit import Circuit
from .elaborate import Elaborator, ident
from .files import read_bytes
from .liberty import Library, as_library
from .preprocess import preprocess
from .raw import RawNetlist, build_circuit, max_netlist_elements

log = logging.getLogger("igpart")

PARSERS = ("auto", "fast", "pyverilog")
_pyverilog_parser = None
# white space other than blanks, tabs and newlines, which pyverilog's lexer does not accept
_OTHER_SPACE = str.maketrans("\r\v\f", "   ")
_ESCAPED = re.compile(r"\\[^ \t\n]*")
_NOT_PRINTABLE = re.compile(r"[^\x21-\x7e]")
_SURROGATE = re.compile(r"[\udc80-\udcff]")
#: Brackets ``( [ {`` may nest this deep (the parser and the elaborator recurse per level).
MAX_NESTING = 100
_DEPTH_STEP = np.zeros(256, dtype=np.int8)
_DEPTH_STEP[list(b"([{")] = 1
_DEPTH_STEP[list(b")]}")] = -1


def _table_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "igpart", "pyverilog")
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="igpart-pyverilog-")


def _parser():
    global _pyverilog_parser
    if _pyverilog_parser is None:
        try:
            from pyverilog.vparser.parser import VerilogParser
        except ImportError as exc:  # pragma: no cover - a declared dependency
            raise InputError(f"pyverilog is not installed ({exc})") from None
        _pyverilog_parser = VerilogParser(outputdir=_table_dir(), debug=False)
    return _pyverilog_parser


# --------------------------------------------------------------------------- pyverilog path
def _check_text(text: str, file: str) -> None:
    """Rejects, at its line, what the fast reader rejects too: bytes that are not UTF-8 (held as
    surrogate escapes) and escaped identifiers with characters other than printable ASCII."""
    for m in _ESCAPED.finditer(text):
        bad = _NOT_PRINTABLE.search(m.group(0), 1)
        if bad is not None:
            ch = bad.group(0)
            byte = ord(ch) - 0xDC00 if _SURROGATE.match(ch) else ch.encode("utf-8")[0]
            raise InputError(
                f"escaped identifier holds byte 0x{byte:02x} (only printable ASCII is allowed)",
                file,
                text.count("\n", 0, m.start() + bad.start()) + 1,
            )
    bad = _SURROGATE.search(text)
    if bad is not None:
        raise InputError(
            f"not UTF-8 text (byte 0x{ord(bad.group(0)) - 0xDC00:02x})",
            file,
            text.count("\n", 0, bad.start()) + 1,
        )
    # nesting depth of brackets (an escaped identifier may hold one: counted too, harmlessly)
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    deep = np.flatnonzero(np.cumsum(_DEPTH_STEP[data], dtype=np.int64) > MAX_NESTING)
    if deep.size:
        at = int(deep[0])
        raise InputError(
            f"brackets nested more than {MAX_NESTING} deep", file, int((data[:at] == 10).sum()) + 1
        )


def parse_modules(text: str, file: str) -> dict:
    """Module definitions of Verilog ``text`` by name (pyverilog AST nodes).

    ``text`` may hold bytes that are not UTF-8 as surrogate escapes
    (``bytes.decode("utf-8", "surrogateescape")``): they are allowed in comments only."""
    text = preprocess(text.translate(_OTHER_SPACE), file)
    _check_text(text, file)
    last_line = text.count("\n") + 1  # where the end of the file is reported, as the fast reader
    if not text.strip():
        raise InputError("no module found (empty file)", file, last_line)
    p = _parser()
    p.lexer.lexer.lineno = 1
    try:
        ast = p.parse(text)
    except InputError:
        raise
    except Exception as exc:  # pyverilog's ParseError and lexer errors
        msg = str(exc)
        m = re.search(r"line:(\d+)", msg)
        reason = re.sub(r"^\s*\S*line:\d+:\s*", "", msg) or "syntax error"
        line = int(m.group(1)) if m else None
        if "at end of input" in reason:
            reason, line = "unexpected end of file", last_line
        raise InputError(f"Verilog syntax error: {reason}", file, line) from None
    modules: dict = {}
    for d in ast.description.definitions:
        if type(d).__name__ != "ModuleDef":
            raise InputError(f"'{type(d).__name__}' is not supported", file, d.lineno)
        name = ident(d.name)
        if name in modules:
            raise InputError(f"module '{name}' is defined twice", file, d.lineno)
        modules[name] = d
    if not modules:
        raise InputError("no module found", file, last_line)
    return modules


def _choose_top(modules: dict, top: str | None, file: str):
    if top is not None:
        if top not in modules:
            raise InputError(f"top module '{top}' not found (modules: {', '.join(modules)})", file)
        return modules[top]
    used: set[str] = set()
    for m in modules.values():
        for item in m.items:
            if type(item).__name__ == "InstanceList":
                used.add(ident(item.module))
    roots = [name for name in modules if name not in used]
    if len(roots) != 1:
        raise InputError(
            "cannot infer the top module (candidates: "
            + (", ".join(roots) or "none: every module is instantiated")
            + "); name it with top=",
            file,
        )
    return modules[roots[0]]


def raw_pyverilog(
    text: str, file: str, lib: Library | None, top: str | None, size: int | None = None
) -> RawNetlist:
    """``size``: of the input in bytes (default: the length of ``text``), for the limits."""
    modules = parse_modules(text, file)
    limit = max_netlist_elements(len(text) if size is None else size)
    return Elaborator(modules, lib, file, limit).run(_choose_top(modules, top, file))


# --------------------------------------------------------------------------- fast path
class Unsupported(Exception):
    """The fast reader met a construct it does not handle (``auto`` then uses pyverilog)."""

    def __init__(self, line: int, reason: str):
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def _split(names: bytes) -> list[str]:
    # the reader returns printable ASCII names only (escaped identifiers are checked)
    return names.decode("ascii").split("\n") if names else []


def raw_fast(data: bytes, file: str, top: str | None = None) -> RawNetlist:
    """Parses a flat netlist with the C++ reader; raises :class:`Unsupported` or InputError."""
    from ..kernels import _cpu

    try:
        r = _cpu.read_flat_verilog(data, max_netlist_elements(len(data)))
    except _cpu.ParseError as exc:
        line, msg = exc.args
        raise InputError(msg, file=file, line=int(line)) from None
    if r["unsupported"]:
        raise Unsupported(int(r["line"]), r["unsupported"])
    if top is not None and r["top"] != top:
        raise Unsupported(1, f"the file's module is '{r['top']}', not '{top}'")
    return RawNetlist(
        top=r["top"],
        port_names=_split(r["port_names"]),
        port_dir=r["port_dir"],
        port_net=r["port_net"],
        net_names=_split(r["net_names"]),
        inst_names=_split(r["inst_names"]),
        inst_cell=r["inst_cell"],
        cell_names=_split(r["cell_names"]),
        pin_inst=r["pin_inst"],
        pin_name=r["pin_name"],
        pin_names=_split(r["pin_names"]),
        pin_net=r["pin_net"],
    )


# --------------------------------------------------------------------------- entry points
def parse_verilog(
    data: bytes | str,
    *,
    parser: str = "auto",
    lib: Library | str | os.PathLike | None = None,
    top: str | None = None,
    file: str = "<verilog>",
) -> Circuit:
    """Like :func:`read_verilog`, from text or bytes in memory."""
    if parser not in PARSERS:
        raise InputError(f"unknown Verilog parser '{parser}' (auto, fast or pyverilog)")
    library = as_library(lib)
    if isinstance(data, str):
        data = data.encode("utf-8")
    raw = None
    if parser in ("auto", "fast"):
        try:
            raw = raw_fast(data, file, top)
            # the C++ reader rejects duplicate instance names; nets are unique by construction
            return build_circuit(raw, library, file, check_names=False)
        except Unsupported as exc:
            if parser == "fast":
                raise InputError(
                    f"the fast reader does not handle this netlist: {exc.reason} "
                    "(use parser='pyverilog')",
                    file,
                    exc.line,
                ) from None
            log.info("%s:%d: %s; reading with pyverilog", file, exc.line, exc.reason)
    if raw is None:
        text = data.decode("utf-8", errors="surrogateescape")
        raw = raw_pyverilog(text, file, library, top, size=len(data))
    return build_circuit(raw, library, file)


def read_verilog(
    path,
    *,
    parser: str = "auto",
    lib: Library | str | os.PathLike | None = None,
    top: str | None = None,
) -> Circuit:
    """Reads a structural Verilog netlist into a :class:`Circuit`.

    ``parser``: ``"auto"`` (fast reader, pyverilog when needed), ``"fast"`` or ``"pyverilog"``.
    ``lib``: a :class:`Library` or the path of a ``.lib`` for pin directions (without one they
    are inferred, with a warning). ``top``: the top module (inferred when there is one module
    nobody instantiates).
    """
    file, data = read_bytes(path)
    return parse_verilog(data, parser=parser, lib=lib, top=top, file=file)
