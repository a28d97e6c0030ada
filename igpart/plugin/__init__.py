"""The plugin layer (DESIGN §6): :class:`Session`, the API tools hold across their optimisation
loop, and its front ends: the Tcl bridge (:mod:`igpart.plugin.tcl`, ``igpart tcl``) and the
JSON-lines server (:mod:`igpart.plugin.server`, ``igpart serve``), both driving the command set
of :mod:`igpart.plugin.commands`."""

from .commands import Commands
from .server import JsonLinesServer
from .session import Session, SessionResult

__all__ = ["Commands", "JsonLinesServer", "Session", "SessionResult"]
