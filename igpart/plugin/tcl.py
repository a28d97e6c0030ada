"""Tcl bridge: ``igpart tcl script.tcl`` (DESIGN §6), on the Tcl interpreter of Python's tkinter.

The interpreter gets one Tcl command per TAU 2015 operation (``insert_gate``, ``connect_pin``,
..., ``read_spef``, ``report_at``, ...), so that a TAU ``.ops`` file can be ``source``\\ d as is,
the OpenTimer shell's names (``read_celllib [-min|-max] lib``, ``read_verilog design.v``,
``read_sdc`` (ignored), ``update_timing``, ``report_slew``) and ``help``, plus the ``igpart::``
namespace: ``igpart::read_verilog``, ``igpart::read``, ``igpart::partition``,
``igpart::refine``, ``igpart::fix`` (``igpart::fix u7 2``: a fixed cell, -1 frees it),
``igpart::block_of``, ``igpart::blocks``, ``igpart::write_partition``,
``igpart::report``, ``igpart::replay``, ``igpart::pending``, ``igpart::help``, ``igpart::map``
(a process mapping the session keeps and refines after each batch) and the id-level
changes (``igpart::insert_vertex``, ...). :func:`run_stream` reads commands from a stream
(``igpart tcl`` without a script: stdin, with a prompt on a terminal).
Options are written ``-name value`` (``igpart::partition -k 4 -epsilon 0.05``); ``-config`` takes
multilevel Config fields as JSON (``-config {{"refinement": "jet"}}``) or as a Tcl dict
(``-config {refinement jet vcycles 0}``). Results come back
as Tcl values (dicts as key/value lists). Errors become Tcl errors carrying igpart's message, so
``catch`` works and an uncaught one stops the script with that message.

TAU 2015 changes are queued, as in OpenTimer, and applied at the next batch boundary
(``report_*``, ``read_spef``, ``update_timing``, ``igpart::refine``); a change found invalid there
is reported at its own line (``flow.tcl:5: insert_gate u9 NO_CELL: cell ... (a queued change,
applied by report_timing)``), not the boundary's. Changes still queued when a script (or the
input of :func:`run_stream`) ends are applied then, as a last boundary would have, and the
result is logged; an invalid one fails the script at its line.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path
from typing import Any

from ..errors import BatchError, IgpartError, InputError
from ..partitioner.config import Config
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
log = logging.getLogger("igpart")
#: Sourced files above this size have their TAU changes' lines found when needed (by
#: :meth:`TclBridge._find_line`): ``info frame`` takes time proportional to the position in the
#: file, quadratic over a large .ops file.
_FRAME_MAX_BYTES = 1 << 16

# a TAU change passes on where it was written: the file and line of its caller's frame (line 0
# and the file being sourced for a large one)
_QUEUE_AT = f"""proc ::igpart::_queue_at {{name args}} {{
    set script [info script]
    if {{![info exists ::igpart::_large($script)]}} {{
        set ::igpart::_large($script) [expr {{$script ne "" && [file isfile $script]
                                             && [file size $script] > {_FRAME_MAX_BYTES}}}]
    }}
    if {{$::igpart::_large($script)}} {{
        set file $script
        set line 0
    }} else {{
        set f [info frame -2]
        set file [expr {{[dict exists $f file] ? [dict get $f file] : ""}}]
        set line [expr {{[dict exists $f line] ? [dict get $f line] : 0}}]
    }}
    set r [::igpart::_call_at $name $file $line {{*}}$args]
    if {{[lindex $r 0] ne "ok"}} {{ return -code error [lindex $r 1] }}
    return [lindex $r 1]
}}"""


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
        try:
            import tkinter
        except ImportError:  # Python built without Tk (some minimal and container builds)
            raise IgpartError(
                "the Tcl bridge needs Python's tkinter module, which this Python lacks "
                "(install its Tk package, e.g. python3-tk, or use a Python built with Tk)"
            ) from None

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
        self.interp.createcommand("::igpart::_call_at", self._call_at)
        self.interp.eval(_QUEUE_AT)
        for name in TAU_CHANGES:
            self.interp.eval(f"proc ::{name} args {{ ::igpart::_queue_at {name} {{*}}$args }}")
        # `source` counts a large file's changes afresh each time it runs the file
        self.interp.createcommand("::igpart::_sourcing", self._sourcing)
        self.interp.eval(
            "rename ::source ::igpart::_source\n"
            "proc ::source args {\n"
            "    ::igpart::_sourcing [lindex $args end]\n"
            "    uplevel 1 [list ::igpart::_source {*}$args]\n"
            "}"
        )
        # (file, line, command, nth) of each queued TAU change, in queue order, until applied;
        # line None: to be found as the nth such command of the (large) file
        self._sites: list[tuple[str | None, int | None, str, int]] = []
        self._nth: dict[tuple[str, str], int] = {}
        self._site_error: tuple[str, str | None, int | None, str] | None = None
        #: (name, first line) of the text being evaluated outside a file (run_stream)
        self.origin: tuple[str, int] | None = None

    def _call(self, name, *words, site=None):
        self._site_error = None
        try:
            if name in BOUNDARIES:  # read_spef / report_*: their arguments are not ours
                args, opts = list(words), {}
            else:
                args, opts = split_options(words)
            if "config" in opts:
                opts["config"] = self._config(opts["config"])
            if site is not None and site[1] is not None:
                opts.setdefault("line", site[1])
            result = self.commands.call(str(name), *args, **opts)
            if site is not None:
                self._queued(str(name), words, *site)
            return ("ok", to_tcl(result))
        except IgpartError as exc:
            return ("error", self._located(exc, f"applied by {name}"))
        except Exception as exc:  # a bug: still a Tcl error, with what went wrong
            return ("error", f"internal error in {name}: {type(exc).__name__}: {exc}")
        finally:
            session = self.commands.session
            if session is None or not session.pending:
                self._sites.clear()  # applied, dropped or replaced

    def _call_at(self, name, file, line, *words):
        """:meth:`_call` for a TAU change written at ``file`` (empty: evaluated text) and
        ``line`` (0: in a large file, found when needed)."""
        file, line = str(file) or None, int(line)
        if file is None and self.origin is not None:
            file, line = self.origin[0], self.origin[1] + line - 1
        site = (file, line if line > 0 else None) if file is not None or line > 0 else None
        return self._call(name, *words, site=site)

    def _sourcing(self, file) -> str:
        file = str(file)
        for key in [key for key in self._nth if key[0] == file]:
            del self._nth[key]
        return ""

    def _queued(self, name: str, words, file: str | None, line: int | None) -> None:
        text = " ".join([name, *map(str, words)])
        nth = 0
        if line is None:
            key = (str(file), text)
            nth = self._nth[key] = self._nth.get(key, 0) + 1
        self._sites.append((file, line, text, nth))

    def _located(self, exc: IgpartError, when: str) -> str:
        """The message of ``exc``; for an invalid queued change (applied ``when``), it names
        the change's own line (kept in ``_site_error`` for :meth:`source`)."""
        sites = self._sites
        k = getattr(exc, "record", -1)
        ours = isinstance(exc, BatchError) and 0 <= k < len(sites)
        if not (ours and exc.op == sites[k][2].split(" ", 1)[0] and exc.line == sites[k][1]):
            return str(exc)
        file, line, text, nth = sites[k]
        if line is None:
            line = _find_line(file, text, nth)
        detail = f"{text}: {exc.reason} (a queued change, {when})"
        where = f"{file}:{line}" if file and line else (file or f"line {line}")
        self._site_error = (f"{where}: {detail}", file, line, detail)
        return self._site_error[0]

    def _raise_located(self, exc, file: str, line: int | None = None):
        """InputError for the Tcl error ``exc`` that stopped ``file``: at the queued change's
        line when a boundary found it invalid, else at the line Tcl names."""
        site = self._site_error
        if site is not None and str(exc) == site[0]:
            raise InputError(site[3], file=site[1] or file, line=site[2]) from None
        info = self.interp.getvar("errorInfo")
        hits = _FILE_LINE.findall(str(info))
        if hits:
            raise InputError(str(exc), file=hits[0][0], line=int(hits[0][1])) from None
        raise InputError(str(exc), file=file, line=line) from None

    def finish(self) -> dict | None:
        """Applies the changes still queued when a script ends, as a last batch boundary would
        (what :meth:`source` and :func:`run_stream` do at the end); logs and returns the
        refine summary (None when nothing was queued). An invalid change raises InputError at
        its own line."""
        session = self.commands.session
        if session is None or not session.pending:
            return None
        n = session.pending
        self._site_error = None
        try:
            r = self.commands.call("refine")
        except IgpartError as exc:
            message = self._located(exc, "applied at the end")
            site = self._site_error
            if site is not None:
                raise InputError(site[3], file=site[1], line=site[2]) from None
            raise InputError(f"applying the {n} change(s) queued at the end: {message}") from None
        finally:
            self._sites.clear()
        log.warning("%d change(s) still queued at the end were applied: cut %d, km1 %d, %s", n,
                    r["cut"], r["km1"], "balanced" if r["balanced"] else "imbalanced")  # fmt: skip
        return r

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
        InputError naming the file and line where it happened (a queued change's own line when
        a boundary finds it invalid); ``exit N`` ends the script there and sets
        :attr:`exit_code`. Changes still queued at the end (or at ``exit 0``) are applied
        (:meth:`finish`)."""
        import tkinter

        p = Path(path)
        if not p.is_file():
            raise InputError("no such Tcl script", file=str(path))
        self.interp.setvar("argv0", str(p))
        self.interp.setvar("argv", to_tcl(list(argv or [])))
        self.interp.setvar("argc", len(argv or []))
        try:
            result = self.interp.eval(f"source {{{p}}}")
        except tkinter.TclError as exc:
            if self.exit_code is None:
                self._raise_located(exc, str(path))
            result = ""  # the script called exit
        if not self.exit_code:  # ended, or exit 0: changes still queued take effect
            self.finish()
        return result


def _find_line(file: str, text: str, nth: int) -> int | None:
    """The line of the ``nth`` command ``text`` (words separated by blanks) in ``file``; None
    when not found (a command built by the script rather than written in it)."""
    want = text.split()
    hits = []
    try:
        with open(file, encoding="utf-8", errors="replace") as f:
            for i, row in enumerate(f, 1):
                if row.split() == want:
                    hits.append(i)
    except OSError:
        return None
    return hits[nth - 1] if nth <= len(hits) else None


def run_stream(stream, argv: list[str] | None = None, *, interactive: bool = False, out=None,
               err=None, name: str = "<stdin>") -> TclBridge:  # fmt: skip
    """Runs the Tcl commands read from ``stream`` (a text file object), each as soon as it is
    complete (``info complete``). ``interactive``: a prompt (``igpart% ``, ``> `` inside an
    unfinished command) and each result go to ``out``, an error to ``err`` and the session goes
    on. Otherwise, as for a script, the first error stops it: InputError naming ``name`` and the
    line where the failing command starts. ``exit N`` ends either and sets ``exit_code``."""
    import sys

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    bridge = TclBridge()  # names the missing tkinter itself
    import tkinter
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
        bridge.origin = (name, start)
        try:
            result = bridge.interp.eval(command)
        except tkinter.TclError as exc:
            if bridge.exit_code is not None:
                break
            if not interactive:
                bridge._raise_located(exc, name, start)
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
    if not bridge.exit_code:  # the input ended, or exit 0: changes still queued take effect
        try:
            bridge.finish()
        except InputError as exc:
            if not interactive:
                raise
            print(f"error: {exc}", file=err, flush=True)
    return bridge


def run_script(path, argv: list[str] | None = None) -> TclBridge:
    """Runs ``path`` in a fresh bridge and returns it (what ``igpart tcl`` does)."""
    bridge = TclBridge()
    bridge.source(path, argv)
    return bridge


__all__ = ["TclBridge", "run_script", "run_stream", "split_options", "to_tcl"]
