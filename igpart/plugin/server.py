"""JSON-lines server: ``igpart serve`` on stdio or a unix-domain socket (DESIGN §6).

One request per line, one response per line, in order. A request is a JSON object
``{"id": <any>, "method": "<command>", "params": [...] | {...}}`` naming a command of
:mod:`igpart.plugin.commands` (``params`` positional as a list, by name as an object; optional).
A response is ``{"id": <the request's id>, "ok": true, "result": ...}`` or
``{"id": ..., "ok": false, "error": {"type": "InputError", "message": "..."}}``. A line that is
not a JSON object, lacks ``method``, names an unknown command, or is longer than
``max_request_bytes`` gets an error response (id null when it could not be read) and the server
reads the next line. ``{"method": "shutdown"}`` is answered, then the server stops (and removes
its socket). ``{"method": "commands"}`` lists the commands.

The socket is created with mode 0600 (owner only). Connections are served one after another;
the session persists across them.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import IgpartError, InputError
from .commands import Commands

log = logging.getLogger("igpart")

#: Default limit of one request line.
MAX_REQUEST_BYTES = 1 << 20


class JsonLinesServer:
    """Answers JSON-lines requests with one :class:`Commands` (one design and session)."""

    def __init__(
        self, commands: Commands | None = None, max_request_bytes: int = MAX_REQUEST_BYTES
    ):
        if int(max_request_bytes) < 64:
            raise InputError(f"max_request_bytes must be at least 64, got {max_request_bytes}")
        self.commands = commands or Commands()
        self.max_request_bytes = int(max_request_bytes)
        self.stopped = False

    # ------------------------------------------------------------------ one request
    def handle(self, line: bytes | str) -> dict[str, Any]:
        """The response to one request line (never raises for bad requests)."""
        rid = None
        try:
            try:
                req = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InputError(f"malformed request: not JSON ({exc})") from None
            except RecursionError:
                raise InputError("malformed request: JSON nested too deeply") from None
            if not isinstance(req, dict):
                raise InputError("malformed request: expected a JSON object")
            rid = req.get("id")
            method = req.get("method")
            if not isinstance(method, str):
                raise InputError("malformed request: 'method' must be a string")
            params = req.get("params", [])
            if method == "shutdown":
                self.stopped = True
                return {"id": rid, "ok": True, "result": "shutting down"}
            if method == "commands":
                return {"id": rid, "ok": True, "result": list(self.commands.names())}
            if isinstance(params, list):
                result = self.commands.call(method, *params)
            elif isinstance(params, dict):
                result = self.commands.call(method, **params)
            else:
                raise InputError("malformed request: 'params' must be a list or an object")
            return {"id": rid, "ok": True, "result": result}
        except IgpartError as exc:
            return _error(rid, type(exc).__name__, str(exc))
        except Exception as exc:  # a bug: report it, keep serving
            log.debug("internal error", exc_info=True)
            return _error(rid, "InternalError", f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ streams
    def serve_stream(self, rfile: BinaryIO, wfile: BinaryIO) -> None:
        """Answers requests from ``rfile`` on ``wfile`` until EOF or a shutdown request."""
        limit = self.max_request_bytes
        while not self.stopped:
            line = rfile.readline(limit + 1)
            if not line:
                return
            if len(line) > limit and not line.endswith(b"\n"):
                while True:  # drop the rest of the oversized line
                    rest = rfile.readline(1 << 16)
                    if not rest or rest.endswith(b"\n"):
                        break
                resp = _error(None, "InputError", f"request exceeds {limit} bytes")
            elif not line.strip():
                continue
            else:
                resp = self.handle(line)
            wfile.write(json.dumps(resp, default=_jsonable).encode() + b"\n")
            wfile.flush()

    def serve_stdio(self) -> None:
        self.serve_stream(sys.stdin.buffer, sys.stdout.buffer)

    def serve_unix(self, path, ready=None) -> None:
        """Listens on a new unix-domain socket at ``path`` (mode 0600) until shutdown; calls
        ``ready()`` once listening. Refuses to replace an existing file, except a stale socket
        (one nobody listens on, left by a killed server)."""
        p = Path(path)
        if _stale_socket(p):  # left by a server that was killed: nobody listens on it
            log.info("removing stale socket %s", p)
            p.unlink()
        if p.exists() or p.is_symlink():
            raise InputError("socket path already exists; remove it first", file=str(p))
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(p))
        except OSError as exc:
            sock.close()
            raise InputError(f"cannot create socket: {exc.strerror or exc}", file=str(p)) from None
        finally:
            os.umask(old)
        try:
            os.chmod(p, stat.S_IRUSR | stat.S_IWUSR)
            sock.listen(1)
            if ready is not None:
                ready()
            while not self.stopped:
                conn, _ = sock.accept()
                with conn, conn.makefile("rb") as r, conn.makefile("wb") as w:
                    try:
                        self.serve_stream(r, w)
                    except (BrokenPipeError, ConnectionResetError):
                        log.info("client went away")
        finally:
            sock.close()
            p.unlink(missing_ok=True)


def _stale_socket(p: Path) -> bool:
    """True when ``p`` is a unix socket (not a symlink) that refuses connections."""
    try:
        if p.is_symlink() or not stat.S_ISSOCK(p.stat().st_mode):
            return False
    except OSError:
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(p))
        except ConnectionRefusedError:
            return True
        except OSError:
            return False
    return False


def _error(rid, kind: str, message: str) -> dict[str, Any]:
    return {"id": rid, "ok": False, "error": {"type": kind, "message": message}}


def _jsonable(x):
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON serialisable")


__all__ = ["MAX_REQUEST_BYTES", "JsonLinesServer"]
