"""Tcl bridge: ``igpart tcl script.tcl`` (DESIGN §6), on the Tcl interpreter of Python's tkinter.

The interpreter gets one Tcl command per TAU 2015 operation (``insert_gate``, ``connect_pin``,
..., ``read_spef``, ``report_at``, ...), so that a TAU ``.ops`` file can be ``source``\\ d as is,
the OpenTimer shell's names (``read_celllib [-min|-max] lib``, ``read_verilog design.v``,
``read_sdc`` (ignored), ``update_timing``, ``report_slew``) and ``help``, plus the ``igpart::``
namespace: ``igpart::read_verilog``, ``igpart::read``, ``igpart::partition``,
``igpart::refine``, ``igpart::block_of``, ``igpart::blocks``, ``igpart::write_partition``,
``igpart::report``, ``igpart::replay``, ``igpart::pending``, ``igpart::help`` and the id-level
changes (``igpart::insert_vertex``, ...). :func:`run_stream` reads commands from a stream
(``igpart tcl`` without a script: stdin, with a prompt on a terminal).
Options are written ``-name value`` (``igpart::partition -k 4 -epsilon 0.05``); ``-config`` takes
multilevel Config fields as JSON (``-config {{"refinement": "jet"}}``) or as a Tcl dict
(``-config {refinement jet vcycles 0}``). Results come back
as Tcl values (dicts as key/value lists). Errors become Tcl errors carrying igpart's message, so
``catch`` works and an uncaught one stops the script with that message.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from ..errors import IgpartError, InputError
from ..multilevel import Config
from .commands import (
    BOUNDARIES,
    ID_CHANGES,
    IGPART_COMMANDS,
    OPENTIMER_BOUNDARIES,
    OPENTIMER_COMMANDS,
    TAU_BOUNDARIES,
    TAU_CHANGES,
    Commands,
)

_OPTION = re.compile(r"^-[A-Za-z_][A-Za-z0-9_]*$")
_FILE_LINE = re.compile(r'\(file "([^"]*)" line (\d+)\)')


def to_tcl(x: Any):
    """Python data to what tkinter turns into Tcl values (dicts as flat key/value lists)."""
    if isinstance(x, dict):
        flat: list = []
        for k, v in x.items():
            flat += [str(k), to_tcl(v)]
        return tuple(flat)
    if isinstance(x, (list, tuple)):
        return tuple(to_tcl(v) for v in x)
    if x is None:
        return ""
    if isinstance(x, bool):
        return int(x)
    return x


def split_options(words) -> tuple[list[str], dict[str, str]]:
    """Tcl words to positional arguments and ``-name value`` options."""
    args: list[str] = []
    opts: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = str(words[i])
        if _OPTION.match(w):
            if i + 1 >= len(words):
                raise InputError(f"option {w} needs a value")
            opts[w[1:]] = str(words[i + 1])
            i += 2
        else:
            args.append(w)
            i += 1
    return args, opts


class TclBridge:
    """A Tcl interpreter whose igpart and TAU 2015 commands drive one :class:`Commands`."""

    def __init__(self, commands: Commands | None = None):
        import tkinter

        self.commands = commands or Commands()
        self.interp = tkinter.Tcl()
        self.interp.eval("namespace eval ::igpart {}")
        self.interp.createcommand("::igpart::_call", self._call)
        self.interp.eval(
            "proc ::igpart::_dispatch {name args} {\n"
            "    set r [::igpart::_call $name {*}$args]\n"
            '    if {[lindex $r 0] ne "ok"} { return -code error [lindex $r 1] }\n'
            "    return [lindex $r 1]\n"
            "}"
        )
        # tkinter's interpreter has no `exit`: this one ends the script with that status (as
        # tclsh would; `igpart tcl` exits with it) by unwinding to source()
        self.exit_code: int | None = None
        self.interp.createcommand("::igpart::_exit", self._exit)
        self.interp.eval(
            "proc ::exit {{code 0}} {\n"
            '    if {![string is integer -strict $code]} {\n'
            '        return -code error "expected integer but got \\"$code\\""\n'
            "    }\n"
            "    ::igpart::_exit $code\n"
            '    return -code error -errorcode {IGPART EXIT} "exit $code"\n'
            "}"
        )
        top = TAU_CHANGES + TAU_BOUNDARIES + OPENTIMER_COMMANDS + OPENTIMER_BOUNDARIES + ("help",)
        for name in top:
            self.interp.eval(f"proc ::{name} args {{ ::igpart::_dispatch {name} {{*}}$args }}")
        for name in IGPART_COMMANDS + ID_CHANGES:
            self.interp.eval(
                f"proc ::igpart::{name} args {{ ::igpart::_dispatch {name} {{*}}$args }}"
            )

    def _call(self, name, *words):
        try:
            if name in BOUNDARIES:  # read_spef / report_*: their arguments are not ours
                args, opts = list(words), {}
            else:
                args, opts = split_options(words)
            if "config" in opts:
                opts["config"] = self._config(opts["config"])
            return ("ok", to_tcl(self.commands.call(str(name), *args, **opts)))
        except IgpartError as exc:
            return ("error", str(exc))
        except Exception as exc:  # a bug: still a Tcl error, with what went wrong
            return ("error", f"internal error in {name}: {type(exc).__name__}: {exc}")

    def _config(self, text: str):
        """A ``-config`` value: JSON object text (``{{"refinement": "jet"}}``; its members alone,
        as ``{"refinement": "jet"}`` gives them, also do) or a Tcl dict of Config fields
        (``{refinement jet vcycles 0}``; values converted to the field's type, booleans as Tcl
        reads them)."""
        t = text.strip()
        if t.startswith("{"):
            return t  # JSON text: Commands parses it
        if t.startswith('"'):
            return "{" + t + "}"
        words = [str(w) for w in self.interp.splitlist(t)]
        if len(words) % 2:
            raise InputError(
                "config must be a JSON object or a Tcl dict of Config fields (name value ...), "
                f"got {text!r}"
            )
        types = {f.name: type(f.default) for f in dataclasses.fields(Config)}
        return {key: self._typed(types.get(key), val) for key, val in zip(words[::2], words[1::2])}

    def _typed(self, kind, val: str):
        """A Tcl word as a Config field of type ``kind``; left a string when it does not read as
        one (Config.validate then names the field and the value)."""
        import tkinter

        try:
            if kind is bool:
                return bool(self.interp.getboolean(val))
            if kind in (int, float):
                return kind(val)
        except (ValueError, tkinter.TclError):
            pass
        return val

    def _exit(self, code) -> str:
        self.exit_code = int(code)
        return ""

    def eval(self, script: str) -> str:
        """Evaluates Tcl code; a Tcl error raises IgpartError with its message."""
        import tkinter

        try:
            return self.interp.eval(script)
        except tkinter.TclError as exc:
            raise IgpartError(str(exc)) from None

    def source(self, path, argv: list[str] | None = None) -> str:
        """Runs a Tcl script (``argv``/``argc``/``argv0`` set as tclsh does). An error raises
        InputError naming the file and line where it happened; ``exit N`` ends the script
        there and sets :attr:`exit_code`."""
        import tkinter

        p = Path(path)
        if not p.is_file():
            raise InputError("no such Tcl script", file=str(path))
        self.interp.setvar("argv0", str(p))
        self.interp.setvar("argv", to_tcl(list(argv or [])))
        self.interp.setvar("argc", len(argv or []))
        try:
            return self.interp.eval(f"source {{{p}}}")
        except tkinter.TclError as exc:
            if self.exit_code is not None:  # the script called exit
                return ""
            info = self.interp.getvar("errorInfo")
            hits = _FILE_LINE.findall(str(info))
            if hits:
                file, line = hits[0]
                raise InputError(str(exc), file=file, line=int(line)) from None
            raise InputError(str(exc), file=str(path)) from None


def run_stream(stream, argv: list[str] | None = None, *, interactive: bool = False, out=None,
               err=None, name: str = "<stdin>") -> TclBridge:  # fmt: skip
    """Runs the Tcl commands read from ``stream`` (a text file object), each as soon as it is
    complete (``info complete``). ``interactive``: a prompt (``igpart% ``, ``> `` inside an
    unfinished command) and each result go to ``out``, an error to ``err`` and the session goes
    on. Otherwise, as for a script, the first error stops it: InputError naming ``name`` and the
    line where the failing command starts. ``exit N`` ends either and sets ``exit_code``."""
    import sys
    import tkinter

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    bridge = TclBridge()
    bridge.interp.setvar("argv0", name)
    bridge.interp.setvar("argv", to_tcl(list(argv or [])))
    bridge.interp.setvar("argc", len(argv or []))
    buf, start, lineno = "", 1, 0
    while bridge.exit_code is None:
        if interactive:
            out.write("> " if buf else "igpart% ")
            out.flush()
        line = stream.readline()
        if not line:
            break
        lineno += 1
        if not buf:
            start = lineno
        buf += line
        if not bridge.interp.getboolean(bridge.interp.call("info", "complete", buf)):
            continue
        command, buf = buf, ""
        try:
            result = bridge.interp.eval(command)
        except tkinter.TclError as exc:
            if bridge.exit_code is not None:
                break
            if not interactive:
                raise InputError(str(exc), file=name, line=start) from None
            print(f"error: {exc}", file=err, flush=True)
            continue
        if interactive and result != "":
            print(result, file=out, flush=True)
    if buf.strip() and bridge.exit_code is None:
        if not interactive:
            raise InputError("the input ends inside a command (a brace or quote is open)",
                             file=name, line=start)  # fmt: skip
        print("error: the input ends inside a command", file=err, flush=True)
    if interactive and bridge.exit_code is None:
        out.write("\n")
        out.flush()
    return bridge


def run_script(path, argv: list[str] | None = None) -> TclBridge:
    """Runs ``path`` in a fresh bridge and returns it (what ``igpart tcl`` does)."""
    bridge = TclBridge()
    bridge.source(path, argv)
    return bridge


__all__ = ["TclBridge", "run_script", "run_stream", "split_options", "to_tcl"]
