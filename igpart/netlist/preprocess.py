"""A small Verilog preprocessor, so that pyverilog can be fed text directly (no iverilog).

Handled: ``//`` and ``/* */`` comments (replaced by blanks, newlines kept, so line numbers stay
true), object-like macros (```define NAME text``, ```undef``, uses as ```NAME``), conditionals
(```ifdef``/```ifndef``/```elsif``/```else``/```endif``), and directives that do not change the
structure (```timescale``, ```celldefine``, ```endcelldefine``, ```default_nettype``,
```resetall``, ```(no)unconnected_drive``), which are dropped. Unsupported, with an
:class:`~igpart.errors.InputError` naming the line: ```include`` and macros with arguments.
Macro expansion may add at most :func:`~igpart.netlist.raw.max_netlist_elements` characters
(of the input's size) in all: macros that double each other 30 times are an error, not 2**30
characters.
"""

from __future__ import annotations

import re

from ..errors import InputError
from .raw import max_netlist_elements

# an escaped identifier (``\\a//b ``) is matched first: comments do not start inside one
_COMMENT = re.compile(r"\\[^ \t\n\r\f\v]*|//[^\n]*|/\*.*?\*/", re.S)
_IGNORED = frozenset(
    (
        "timescale",
        "celldefine",
        "endcelldefine",
        "default_nettype",
        "resetall",
        "unconnected_drive",
        "nounconnected_drive",
        "suppress_faults",
        "nosuppress_faults",
        "enable_portfaults",
        "disable_portfaults",
        "delay_mode_zero",
        "delay_mode_unit",
        "delay_mode_path",
        "delay_mode_distributed",
    )
)
_DIRECTIVE = re.compile(r"^\s*`(\w+)\s*(.*)$")
_MACRO_USE = re.compile(r"\\[^ \t\n\r\f\v]*|`(\w+)")  # not inside escaped identifiers


def strip_comments(text: str) -> str:
    """Comments replaced by spaces (their newlines kept)."""
    if "/" not in text:
        return text

    def blank(m: re.Match) -> str:
        s = m.group(0)
        return s if s[0] == "\\" else "\n" * s.count("\n") or " "

    return _COMMENT.sub(blank, text)


def preprocess(text: str, file: str = "<verilog>") -> str:
    """Text without comments and directives, macros expanded; same number of lines."""
    text = strip_comments(text)
    if "`" not in text:
        return text
    lines = text.split("\n")
    macros: dict[str, str] = {}
    growth = [max_netlist_elements(len(text))]  # characters that expansion may still add
    # stack of (this branch active, some branch of this conditional already taken)
    stack: list[tuple[bool, bool]] = []
    active = True
    for i, line in enumerate(lines):
        lineno = i + 1
        m = _DIRECTIVE.match(line)
        if m and m.group(1) not in macros:
            word, rest = m.group(1), m.group(2).strip()
            if word in ("ifdef", "ifndef"):
                name = rest.split()[0] if rest else ""
                if not name:
                    raise InputError(f"`{word} needs a macro name", file, lineno)
                cond = (name in macros) == (word == "ifdef")
                stack.append((active, cond))
                active = active and cond
            elif word == "elsif":
                if not stack:
                    raise InputError("`elsif without `ifdef", file, lineno)
                outer, taken = stack[-1]
                cond = not taken and (rest.split()[0] if rest else "") in macros
                stack[-1] = (outer, taken or cond)
                active = outer and cond
            elif word == "else":
                if not stack:
                    raise InputError("`else without `ifdef", file, lineno)
                outer, taken = stack[-1]
                stack[-1] = (outer, True)
                active = outer and not taken
            elif word == "endif":
                if not stack:
                    raise InputError("`endif without `ifdef", file, lineno)
                active = stack.pop()[0]
            elif not active or word in _IGNORED:
                pass
            elif word == "define":
                dm = re.match(r"(\w+)(\(?)\s*(.*)$", rest)
                if not dm:
                    raise InputError("`define needs a macro name", file, lineno)
                if dm.group(2):
                    raise InputError(
                        f"macros with arguments are not supported (`define {dm.group(1)}(...))",
                        file,
                        lineno,
                    )
                if dm.group(3).endswith("\\"):
                    raise InputError("multi-line macros are not supported", file, lineno)
                macros[dm.group(1)] = dm.group(3)
            elif word == "undef":
                macros.pop(rest.split()[0] if rest else "", None)
            elif word == "include":
                raise InputError(
                    "`include is not supported: concatenate the files or read them one by one",
                    file,
                    lineno,
                )
            else:
                raise InputError(f"unsupported compiler directive `{word}", file, lineno)
            lines[i] = ""
            continue
        if not active:
            lines[i] = ""
        elif "`" in line:
            lines[i] = _expand(line, macros, file, lineno, growth)
    if stack:
        raise InputError("`ifdef without `endif", file, len(lines))
    return "\n".join(lines)


def _expand(line: str, macros: dict[str, str], file: str, lineno: int, growth: list[int]) -> str:
    """``line`` with its macros expanded; ``growth[0]``: how many characters expansion may still
    add to the file (decremented)."""
    used = [0]

    def sub(m: re.Match) -> str:
        if m.group(1) is None:  # an escaped identifier, kept as it is
            return m.group(0)
        body = macros.get(m.group(1))
        if body is None:
            raise InputError(f"undefined macro `{m.group(1)}", file, lineno)
        used[0] += 1
        growth[0] -= len(body) - len(m.group(0))
        if growth[0] < 0:
            raise InputError(
                "macro expansion grows the text past its limit for this input", file, lineno
            )
        return body

    for _ in range(32):  # nested macros, bounded
        used[0] = 0
        line = _MACRO_USE.sub(sub, line)
        if not used[0]:
            return line
    raise InputError("macro expansion does not terminate", file, lineno)
