"""Typed change records in the TAU 2015 vocabulary.

Each record is a frozen dataclass with a ``line`` (the 1-based line of the ``.ops`` file it came
from, ``None`` when built in code). Pins are named as in TAU 2015 ``.ops`` files: ``inst:pin`` for
a pin of a cell instance and the bare port name for a top-level port. In the records a port pin
has ``instance=None`` and ``pin=<port name>``; :attr:`pin_text` gives the ``.ops`` spelling back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ..errors import InputError


class _Record:
    """Shared behaviour: ``op`` (the .ops command) and ``text()`` (the .ops line)."""

    op = ""

    def _args(self) -> list[str]:
        return [getattr(self, f.name) for f in fields(self) if f.name != "line"]

    def text(self) -> str:
        return " ".join([self.op, *self._args()])


class _PinRecord(_Record):
    instance: str | None
    pin: str

    @property
    def is_port(self) -> bool:
        """True when the pin is a top-level port's (named by the port alone)."""
        return self.instance is None

    @property
    def pin_text(self) -> str:
        """The pin as ``.ops`` files write it: ``inst:pin`` or ``port``."""
        return self.pin if self.instance is None else f"{self.instance}:{self.pin}"

    def _args(self) -> list[str]:
        return [self.pin_text, *super()._args()[2:]]


@dataclass(frozen=True)
class InsertGate(_Record):
    """``insert_gate NAME CELL``: a new, unconnected instance of ``cell``."""

    name: str
    cell: str
    line: int | None = field(default=None, compare=False)
    op = "insert_gate"


@dataclass(frozen=True)
class RemoveGate(_Record):
    """``remove_gate NAME``: removes an instance (its connected pins are disconnected first)."""

    name: str
    line: int | None = field(default=None, compare=False)
    op = "remove_gate"


@dataclass(frozen=True)
class RepowerGate(_Record):
    """``repower_gate NAME CELL``: the instance becomes an instance of ``cell`` (gate sizing)."""

    name: str
    cell: str
    line: int | None = field(default=None, compare=False)
    op = "repower_gate"


@dataclass(frozen=True)
class InsertNet(_Record):
    """``insert_net NAME``: a new net without pins."""

    name: str
    line: int | None = field(default=None, compare=False)
    op = "insert_net"


@dataclass(frozen=True)
class RemoveNet(_Record):
    """``remove_net NAME``: removes a net (its pins are disconnected first)."""

    name: str
    line: int | None = field(default=None, compare=False)
    op = "remove_net"


@dataclass(frozen=True)
class ConnectPin(_PinRecord):
    """``connect_pin inst:pin NET`` (or ``connect_pin PORT NET``): the pin joins ``net``."""

    instance: str | None
    pin: str
    net: str
    line: int | None = field(default=None, compare=False)
    op = "connect_pin"


@dataclass(frozen=True)
class DisconnectPin(_PinRecord):
    """``disconnect_pin inst:pin`` (or ``disconnect_pin PORT``): the pin leaves its net."""

    instance: str | None
    pin: str
    line: int | None = field(default=None, compare=False)
    op = "disconnect_pin"


Change = InsertGate | RemoveGate | RepowerGate | InsertNet | RemoveNet | ConnectPin | DisconnectPin
CHANGE_TYPES = (
    InsertGate,
    RemoveGate,
    RepowerGate,
    InsertNet,
    RemoveNet,
    ConnectPin,
    DisconnectPin,
)


def split_pin(
    text: str, file: str | None = None, line: int | None = None
) -> tuple[str | None, str]:
    """``'u1:A'`` -> ``('u1', 'A')``; ``'port'`` -> ``(None, 'port')``; anything else InputError."""
    parts = text.split(":")
    if len(parts) == 1 and parts[0]:
        return None, parts[0]
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0], parts[1]
    raise InputError(f"malformed pin '{text}' (expected INSTANCE:PIN or PORT)", file, line)
