"""Reader of TAU 2015 ``.ops`` change scripts.

Each line is one command. The design-change commands become typed records
(:mod:`igpart.netlist.changes`); ``read_spef`` and ``report_*`` lines mark the points where the
timing analyzer consumes the design, so they close a batch: a batch ends at the first such line
after at least one change, and changes after the last one form a final batch. Blank lines and
comment lines (``#`` or ``//``) are skipped. Other timing commands of the TAU 2015 tool flow
(``set_*``, ``read_*``, ``init_timer``, ``exit``...) are not design changes and not batch
boundaries; an unknown command or a command with the wrong number of arguments raises
:class:`~igpart.errors.InputError` with the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
from .changes import (
    Change,
    ConnectPin,
    DisconnectPin,
    InsertGate,
    InsertNet,
    RemoveGate,
    RemoveNet,
    RepowerGate,
    split_pin,
)
from .files import read_text

# command -> number of arguments
_CHANGE_ARITY = {
    "insert_gate": 2,
    "remove_gate": 1,
    "repower_gate": 2,
    "insert_net": 1,
    "remove_net": 1,
    "connect_pin": 2,
    "disconnect_pin": 1,
}
# timing-analysis commands that are neither changes nor batch boundaries
_NEUTRAL = ("set_", "init_timer", "exit", "read_celllib", "read_verilog", "read_timing")


@dataclass
class OpsBatch:
    """Changes the analyzer sees at once; ``line`` is the line of the ``read_spef``/``report_*``
    line that closed the batch, or of its last record when the file ended first."""

    changes: list[Change] = field(default_factory=list)
    line: int = 0

    def __len__(self) -> int:
        return len(self.changes)


def _record(cmd: str, args: list[str], file: str, line: int) -> Change:
    if cmd == "insert_gate":
        return InsertGate(args[0], args[1], line=line)
    if cmd == "remove_gate":
        return RemoveGate(args[0], line=line)
    if cmd == "repower_gate":
        return RepowerGate(args[0], args[1], line=line)
    if cmd == "insert_net":
        return InsertNet(args[0], line=line)
    if cmd == "remove_net":
        return RemoveNet(args[0], line=line)
    inst, pin = split_pin(args[0], file, line)
    if cmd == "connect_pin":
        return ConnectPin(inst, pin, args[1], line=line)
    return DisconnectPin(inst, pin, line=line)


def parse_ops(text: str, file: str = "<ops>") -> list[OpsBatch]:
    """Batches of the ``.ops`` script in ``text`` (see the module docstring)."""
    batches: list[OpsBatch] = []
    cur = OpsBatch()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        tok = raw.split()
        if not tok or tok[0].startswith("#") or tok[0].startswith("//"):
            continue
        cmd = tok[0]
        arity = _CHANGE_ARITY.get(cmd)
        if arity is not None:
            if len(tok) - 1 != arity:
                raise InputError(
                    f"'{cmd}' takes {arity} argument{'s' if arity > 1 else ''}, got {len(tok) - 1}",
                    file,
                    lineno,
                )
            cur.changes.append(_record(cmd, tok[1:], file, lineno))
            cur.line = lineno
        elif cmd == "read_spef" or cmd.startswith("report_"):
            if cmd == "read_spef" and len(tok) != 2:
                raise InputError("'read_spef' takes 1 argument", file, lineno)
            if cur.changes:
                cur.line = lineno
                batches.append(cur)
                cur = OpsBatch()
        elif not cmd.startswith(_NEUTRAL):
            raise InputError(f"unknown command '{cmd}'", file, lineno)
    if cur.changes:
        batches.append(cur)
    return batches


def read_ops(path) -> list[OpsBatch]:
    """Reads a TAU 2015 ``.ops`` file into batches of typed change records."""
    file, text = read_text(path)
    return parse_ops(text, file)
