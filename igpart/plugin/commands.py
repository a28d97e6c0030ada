"""The command set shared by the Tcl bridge and the JSON-lines server (DESIGN §6).

Both front ends hold one :class:`Commands` object and call :meth:`Commands.call` with a command
name, positional arguments and keyword options; it returns plain Python data (numbers, strings,
lists, dicts) and raises :class:`~igpart.errors.IgpartError` subclasses with a message for the
user. Commands:

Design and partition
  ``read_verilog path [lib=] [top=] [parser=]``  reads a Verilog netlist (igpart.netlist)
  ``read path [format=]``                         reads an hMETIS / METIS file
  ``partition [k=2] [epsilon=0.03] [objective=cut] [seed=0] [backend=auto] [weights=unit]
  [config={}] [preset=default] [fixed=path] [initial=path] [block_weights=]``
      partitions the design read last and opens the session; returns the metrics. ``config``:
      multilevel :class:`~igpart.Config` fields (a dict, or its JSON text) used by
      the initial partition and the quality guard's re-partitions, over the values of
      ``preset`` (``speed``, ``default``, ``quality``); a bad one raises the InputError of
      ``Config.from_dict`` and the current session stays. ``initial=path`` (hypergraph and
      graph designs): a partition file (one block per line) that :func:`igpart.improve`
      refines instead of partitioning from scratch (never worse than a balanced input).
      ``block_weights``: one maximum weight per block instead of the epsilon bound (a list,
      ``w1,w2,...`` or a file of one weight per line), kept by the session's refinements
  ``refine``                                      applies the queued changes, refines
  ``fix name block``                              fixes a cell / port (or vertex id) to a block
                                                  (-1: frees it) at once, refines around it;
                                                  returns what changed. ``partition fixed=path``
                                                  reads fixed vertices from a fix file (one
                                                  line per vertex: block or -1; hypergraphs
                                                  and graphs)
  ``block_of name``                               block of a cell / port (or vertex id)
  ``blocks``                                      every block at once: {name: block} for a
                                                  circuit, a list by vertex id otherwise (-1:
                                                  a deleted id)
  ``write_partition path``                        writes them: ``name block`` lines (instances,
                                                  then ports; what ``igpart evaluate`` reads)
                                                  or one block per line by vertex id
  ``report``                                      metrics of the session
  ``map hierarchy distance [algorithm=im] [seed=]``
      maps the session's k blocks onto a machine hierarchy (``4:8:2`` or a list; prod = k)
      with distances per level (``1:10:100``), ``algorithm`` one of igpart.map's or ``refine``
      (keep the blocks as PE ids, refine them with the mapping gain), and keeps the mapping:
      every later ``refine`` refines it around the batch and reports its cost; returns the
      mapping (hierarchy, distance, cost, level_costs, moved, seconds)
  ``replay path``                                 replays a TAU 2015 .ops file, one refine per
                                                  batch; returns the per-batch summaries
  ``help [command]``                              the commands and their parameters
OpenTimer shell names (Tcl: top-level commands, next to the ``igpart::`` ones)
  ``read_celllib [-min|-max] path``               reads a Liberty library for the next
                                                  ``read_verilog`` (OpenTimer reads an early and
                                                  a late one: the pins are the same, the last
                                                  one read is used)
  ``read_verilog path``                           as above, with that library
  ``read_sdc path``                               accepted and ignored (constraints do not
                                                  change a partition)
  ``update_timing``, ``report_slew ...``            batch boundaries, as ``report_*``
TAU 2015 operations (queued; circuit sessions)
  ``insert_gate name cell``, ``remove_gate name``, ``repower_gate name cell``,
  ``insert_net name``, ``remove_net name``, ``connect_pin pin net``, ``disconnect_pin pin``
  ``read_spef ...`` and ``report_* ...``: the points where a timing analyzer reads results, i.e.
  batch boundaries: they refine when changes are queued (their other arguments are ignored)
Id level (queued; hypergraph and graph sessions)
  ``insert_vertex [weight] [block]``, ``delete_vertex v``, ``insert_hyperedge [weight]``,
  ``delete_hyperedge e``, ``insert_pin v e``, ``delete_pin v e``, ``set_vertex_weight v w``,
  ``set_net_weight e w``, ``insert_edge u v [weight]``, ``delete_edge u v``
"""

from __future__ import annotations

import functools
import inspect
import json
import stat
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..hypergraph import Graph, Hypergraph
from ..partitioner.config import Config
from .session import Session

#: TAU 2015 operations that queue a change.
TAU_CHANGES = ("insert_gate", "remove_gate", "repower_gate", "insert_net", "remove_net",
               "connect_pin", "disconnect_pin")  # fmt: skip
#: TAU 2015 commands that mark a batch boundary (the timing analyzer reads results there).
TAU_BOUNDARIES = ("read_spef", "report_at", "report_rat", "report_slack", "report_worst_paths",
                  "report_tns", "report_wns", "report_timing")  # fmt: skip
#: Id-level change commands.
ID_CHANGES = ("insert_vertex", "delete_vertex", "insert_hyperedge", "delete_hyperedge",
              "insert_pin", "delete_pin", "set_vertex_weight", "set_net_weight", "insert_edge",
              "delete_edge")  # fmt: skip
#: Commands of the igpart:: namespace (Tcl) / top-level requests (server).
IGPART_COMMANDS = ("read_verilog", "read", "partition", "refine", "fix", "block_of", "blocks",
                   "write_partition", "report", "replay", "pending", "help", "map")  # fmt: skip
#: OpenTimer shell commands (top-level Tcl commands as OpenTimer names them; requests too).
OPENTIMER_COMMANDS = ("read_celllib", "read_verilog", "read_sdc")
#: OpenTimer action commands that, like TAU_BOUNDARIES, mark a batch boundary.
OPENTIMER_BOUNDARIES = ("update_timing", "report_slew")
#: Every batch-boundary command: their arguments are a timing analyzer's, not ours.
BOUNDARIES = TAU_BOUNDARIES + OPENTIMER_BOUNDARIES

#: One line per command for ``help`` (the parameters come from the signatures).
_HELP = {
    "read_verilog": "read a Verilog netlist (lib: a Liberty file; else read_celllib's library)",
    "read": "read an hMETIS (.hgr) or METIS (.graph) file",
    "read_celllib": "read a Liberty library for the next read_verilog (-min / -max: either)",
    "read_sdc": "accepted and ignored: constraints do not change a partition",
    "partition": "partition the design read last and open the session; returns the metrics",
    "refine": "apply the queued changes and refine; returns what changed",
    "fix": "fix a cell or port (or vertex id) to a block (-1: free it) and refine around it",
    "block_of": "block of a cell or port (circuits) or of a vertex id",
    "blocks": "every block: {name: block} for a circuit, a list by vertex id otherwise",
    "write_partition": "write the blocks to a file ('name block' lines or one block per line)",
    "report": "metrics of the session",
    "map": "map the blocks onto a machine hierarchy (prod = k) and keep refining that mapping",
    "replay": "replay a TAU 2015 .ops file, one refine per batch",
    "pending": "number of queued changes",
    "help": "the commands and their parameters (or one command's)",
    "insert_gate": "queue: a new instance of a library cell",
    "remove_gate": "queue: remove an instance (its pins are disconnected first)",
    "repower_gate": "queue: change an instance's cell (same pins)",
    "insert_net": "queue: a new net",
    "remove_net": "queue: remove a net (its pins are disconnected first)",
    "connect_pin": "queue: connect a pin ('inst:PIN' or a port) to a net",
    "disconnect_pin": "queue: disconnect a pin",
    "insert_vertex": "queue: a new vertex (returns its reference)",
    "delete_vertex": "queue: delete a vertex",
    "insert_hyperedge": "queue: a new net (returns its reference)",
    "delete_hyperedge": "queue: delete a net",
    "insert_pin": "queue: vertex v joins net e",
    "delete_pin": "queue: vertex v leaves net e",
    "set_vertex_weight": "queue: a vertex's new weight",
    "set_net_weight": "queue: a net's new weight",
    "insert_edge": "queue: a graph edge",
    "delete_edge": "queue: delete a graph edge",
}

_INT_ARGS = {"weight", "block", "v", "e", "u", "k", "seed"}


class Commands:
    """One design and its session, driven by named commands (see the module docstring)."""

    def __init__(self, session: Session | None = None, max_file_bytes: int | None = None):
        self.session = session
        self.design = session.design if session is not None else None
        self.design_path: str | None = None
        #: the library of read_celllib, for read_verilog without lib=
        self.library = None
        #: largest file the reading commands accept (None: any size)
        self.max_file_bytes = max_file_bytes

    # ------------------------------------------------------------------ dispatch
    def names(self) -> tuple[str, ...]:
        every = IGPART_COMMANDS + OPENTIMER_COMMANDS + TAU_CHANGES + BOUNDARIES + ID_CHANGES
        return tuple(dict.fromkeys(every))

    def call(self, name: str, /, *args, **options) -> Any:
        """Runs command ``name``; raises InputError for unknown commands or bad arguments."""
        if name not in self.names():
            raise InputError(f"unknown command '{name}'")
        if name in BOUNDARIES:
            return self.boundary(name)
        fn = getattr(self, "cmd_" + name, None) or getattr(self._session(), name)
        try:
            sig = _signature(fn)
            bound = sig.bind(*args, **options)
        except TypeError as exc:
            raise InputError(f"{name}: {exc}") from None
        converted = {}
        params = sig.parameters
        for key, val in bound.arguments.items():
            if key in _INT_ARGS:
                val = _to_int(name, key, val)
            elif params[key].annotation in ("str", "str | None") and not (
                isinstance(val, str) or (val is None and params[key].default is None)
            ):
                raise InputError(f"{name}: {key} must be a string, got {_short(val)}")
            converted[key] = val
        result = fn(**converted)
        return _plain(result)

    def _session(self) -> Session:
        if self.session is None:
            raise InputError("no session yet: read a design and run partition first")
        return self.session

    # ------------------------------------------------------------------ commands
    def cmd_read_verilog(self, path: str, lib: str | None = None, top: str | None = None,
                         parser: str = "auto") -> dict:  # fmt: skip
        try:
            from ..netlist import read_verilog
        except ImportError:
            raise InputError("read_verilog needs the netlist front-end (igpart.netlist)") from None
        self._check_file("read_verilog", path)
        if lib is not None:
            self._check_file("read_verilog", lib)
        self.design = read_verilog(path, parser=parser, top=top,
                                   lib=self.library if lib is None else lib)  # fmt: skip
        self.design_path = str(path)
        self.session = None
        return self.design.summary()

    def cmd_read(self, path: str, format: str | None = None) -> dict:
        from ..io import read
        from ..stats import describe

        self._check_file("read", path)
        self.design = read(path, format)
        self.design_path = str(path)
        self.session = None
        return describe(self.design)

    def cmd_partition(self, k: int = 2, epsilon: float = 0.03, objective: str = "cut",
                      seed: int = 0, backend: str = "auto", weights: str = "unit",
                      config: dict | str | None = None,
                      fixed: str | None = None, preset: str | None = None,
                      initial: str | None = None, block_weights=None) -> dict:  # fmt: skip
        if self.design is None:
            raise InputError("partition: no design read yet (read_verilog or read first)")
        eps = _to_float("partition", "epsilon", epsilon)
        cfg = Config.of(_config_dict(config), preset)
        kw = {} if isinstance(self.design, (Hypergraph, Graph)) else {"weights": weights}
        if block_weights is not None:
            if isinstance(block_weights, str):
                from ..io import parse_block_weights

                if Path(block_weights).exists():
                    self._check_file("partition", block_weights)
                block_weights = parse_block_weights(block_weights, _to_int("partition", "k", k),
                                                    "partition: block_weights")
            kw["max_block_weights"] = block_weights
        for option, path, what in (("fixed", fixed, "a fix file"),
                                   ("initial", initial, "a partition file")):
            if path is not None and not isinstance(self.design, (Hypergraph, Graph)):
                raise InputError(f"partition: {option}= reads {what} for hypergraph and graph "
                                 f"designs" + ("; fix cells of a netlist with the fix command"
                                               if option == "fixed" else ""))
        if fixed is not None:
            from ..io import read_fixed

            self._check_file("partition", fixed)
            kw["fixed"] = read_fixed(fixed, n=self.design.n, k=_to_int("partition", "k", k))
        if initial is not None:
            from ..io import read_partition
            from ..partitioner.api import improve

            self._check_file("partition", initial)
            parts = read_partition(initial, n=self.design.n, k=_to_int("partition", "k", k))
            kw["parts"] = improve(self.design, parts, k, eps, objective, backend, seed, cfg,
                                  fixed=kw.get("fixed"),
                                  max_block_weights=kw.get("max_block_weights")).parts
        self.session = Session(self.design, k=k, epsilon=eps, objective=objective, seed=seed,
                               backend=backend, config=cfg, **kw)  # fmt: skip
        return self.session.metrics()

    def cmd_refine(self) -> dict:
        return self._session().refine().to_dict()

    def cmd_fix(self, name, block: int) -> dict:
        return self._session().fix(name, block).to_dict()

    def cmd_block_of(self, name) -> int:
        return self._session().block_of(name)

    def cmd_read_celllib(self, path: str | None = None, min: str | None = None,
                         max: str | None = None) -> dict:  # fmt: skip
        from ..netlist import read_liberty

        given = [p for p in (path, min, max) if p is not None]
        if len(given) != 1:
            raise InputError("read_celllib: give one library file (read_celllib [-min|-max] "
                             "path)")  # fmt: skip
        self._check_file("read_celllib", given[0])
        self.library = read_liberty(given[0])
        return {"library": self.library.name, "cells": len(self.library.cells)}

    def cmd_read_sdc(self, path: str) -> str:
        return ""

    def cmd_blocks(self) -> dict | list:
        s = self._session()
        if isinstance(self.design, (Hypergraph, Graph)):
            return s.parts.tolist()
        return s.blocks()

    def cmd_write_partition(self, path: str) -> dict:
        from ..io import atomic_write

        s = self._session()
        if isinstance(self.design, (Hypergraph, Graph)):
            parts = s.parts
            text = "".join(map("{}\n".format, parts.tolist()))
            count = int(parts.size)
        else:
            blocks = s.blocks()
            text = "".join(map("{} {}\n".format, blocks.keys(), blocks.values()))
            count = len(blocks)
        atomic_write(path, text)
        return {"path": str(path), "lines": count}

    def cmd_map(self, hierarchy, distance, algorithm: str = "im", seed: int | None = None
                ) -> dict:  # fmt: skip
        if not isinstance(algorithm, str):
            raise InputError(f"map: algorithm must be a string, got {_short(algorithm)}")
        try:
            return self._session().map(hierarchy, distance, algorithm, seed)
        except InputError as exc:
            raise InputError(f"map: {exc}") from None

    def cmd_help(self, command: str | None = None) -> dict:
        if command is None:
            return {name: self._usage(name) for name in self.names()}
        if command not in self.names():
            raise InputError(f"help: unknown command '{command}'")
        return {command: self._usage(command)}

    def _usage(self, name: str) -> str:
        """``params -- what it does`` of a command."""
        if name in BOUNDARIES:
            return "[args...] -- a batch boundary: refines when changes are queued"
        fn = getattr(self, "cmd_" + name, None) or getattr(Session, name)
        words = []
        for p in inspect.signature(fn).parameters.values():
            if p.name == "self" or p.kind is not p.POSITIONAL_OR_KEYWORD:
                continue
            if p.default is p.empty:
                words.append(p.name)
            else:
                words.append(f"[{p.name}]" if p.default is None else f"[{p.name}={p.default}]")
        return " ".join(words + ["--", _HELP.get(name, "")]).strip(" -")

    def cmd_report(self) -> dict:
        return self._session().metrics()

    def cmd_pending(self) -> int:
        return self._session().pending

    def cmd_replay(self, path: str) -> list:
        self._check_file("replay", path)
        return [r.to_dict() for r in self._session().replay(path)]

    def _check_file(self, cmd: str, path: str) -> None:
        """InputError unless ``path`` is a regular file within ``max_file_bytes`` (a device or
        a FIFO would be read without end)."""
        p = Path(path)
        try:
            st = p.stat()
        except OSError as exc:
            raise InputError(f"{cmd}: cannot read '{path}': {exc.strerror or exc}") from None
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{cmd}: '{path}' is not a regular file")
        if self.max_file_bytes is not None and st.st_size > self.max_file_bytes:
            raise InputError(f"{cmd}: '{path}' has {st.st_size} bytes, more than the limit "
                             f"of {self.max_file_bytes}")  # fmt: skip

    def boundary(self, name: str) -> dict | str:
        """A read_spef / report_* line: refines when changes are queued."""
        s = self._session()
        return s.refine().to_dict() if s.pending else ""


def _signature(fn) -> inspect.Signature:
    """``inspect.signature(fn)``, computed once per function (commands run per .ops line)."""
    func = getattr(fn, "__func__", None)
    if func is None:
        return inspect.signature(fn)
    return _method_signature(func)


@functools.lru_cache(maxsize=256)
def _method_signature(func) -> inspect.Signature:
    sig = inspect.signature(func)
    return sig.replace(parameters=list(sig.parameters.values())[1:])  # without self


def _to_int(cmd: str, key: str, val) -> int:
    if isinstance(val, bool):
        raise InputError(f"{cmd}: {key} must be an integer, got {val!r}")
    if not isinstance(val, int):
        try:
            val = int(str(val))
        except ValueError:
            raise InputError(f"{cmd}: {key} must be an integer, got {_short(val)}") from None
    if not -(1 << 63) <= val < 1 << 63:
        raise InputError(f"{cmd}: {key} {_short(val)} does not fit a 64-bit integer")
    return val


def _config_dict(config) -> dict | None:
    """``config`` of a command: None, a dict of Config fields or its JSON text (as a Tcl option
    gives it); InputError otherwise."""
    if config is None or isinstance(config, dict):
        return config
    if isinstance(config, str):
        try:
            d = json.loads(config)
        except json.JSONDecodeError as exc:
            raise InputError(f"config is not valid JSON ({exc.msg} at column {exc.colno}): "
                             f"{_short(config)}") from None  # fmt: skip
        if isinstance(d, dict):
            return d
    raise InputError(f"config must be an object of Config fields, got {_short(config)}")


def _short(x, limit: int = 80) -> str:
    r = repr(x)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _to_float(cmd: str, key: str, val) -> float:
    try:
        return float(val)
    except (TypeError, ValueError):
        raise InputError(f"{cmd}: {key} must be a number, got {val!r}") from None


def _plain(x):
    """Numpy scalars and arrays to plain Python data."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "tolist"):
        return x.tolist()
    return x


__all__ = ["BOUNDARIES", "Commands", "ID_CHANGES", "IGPART_COMMANDS", "OPENTIMER_BOUNDARIES",
           "OPENTIMER_COMMANDS", "TAU_BOUNDARIES", "TAU_CHANGES"]
