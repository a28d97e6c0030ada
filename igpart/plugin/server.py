"""JSON-lines server: ``igpart serve`` on stdio or a unix-domain socket (DESIGN §6).

One request per line, one response per line, in order. A request is a JSON object
``{"id": <any>, "method": "<command>", "params": [...] | {...}}`` naming a command of
:mod:`igpart.plugin.commands` (``params`` positional as a list, by name as an object; optional).
A response is ``{"id": <the request's id>, "ok": true, "result": ...}`` or
``{"id": ..., "ok": false, "error": {"type": "InputError", "message": "..."}}``. A line that is
not a JSON object (``NaN``, ``Infinity`` and numbers beyond the float range are not JSON), lacks
``method``, names an unknown command, or is longer than ``max_request_bytes`` gets an error
response (id null when it could not be read) and the server reads the next line. A last request
without a newline (the client closed or shut down its sending side) is answered too.
``{"method": "shutdown"}`` is answered, then the server stops (and removes its socket).
``{"method": "commands"}`` lists the commands. Responses are strict JSON (no NaN).

On a socket (created with mode 0600, owner only) every client is served by its own thread, up to
``max_clients`` at once (one more gets a ``Busy`` error and is closed); requests of all clients
run one at a time on the one session, so a client sees the effects of every request answered
before its own. A client that does not read its responses is dropped once one response has
waited ``send_timeout`` seconds to be sent; an idle client stays connected and stalls nobody.
:meth:`JsonLinesServer.stop` (what ``igpart serve`` calls on SIGTERM) ends the server within a
fraction of a second, whatever the clients do: the socket file is removed and the clients'
connections are closed (a request already running finishes in the background, unanswered).
"""

from __future__ import annotations

import json
import logging
import math
import os
import selectors
import signal
import socket
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import IgpartError, InputError
from .commands import Commands

log = logging.getLogger("igpart")

#: Default limit of one request line.
MAX_REQUEST_BYTES = 1 << 20
#: Default limit of clients connected at once (each has a thread).
MAX_CLIENTS = 256
#: Default seconds one response may wait to be sent before its client is dropped.
SEND_TIMEOUT = 30.0
#: Longest message of an unexpected (internal) error.
_MAX_INTERNAL_MESSAGE = 300


class JsonLinesServer:
    """Answers JSON-lines requests with one :class:`Commands` (one design and session)."""

    def __init__(
        self,
        commands: Commands | None = None,
        max_request_bytes: int = MAX_REQUEST_BYTES,
        max_clients: int = MAX_CLIENTS,
        send_timeout: float = SEND_TIMEOUT,
    ):
        if not _number(max_request_bytes) >= 64:
            raise InputError(f"max_request_bytes must be at least 64, got {max_request_bytes}")
        if not _number(max_clients) >= 1:
            raise InputError(f"max_clients must be at least 1, got {max_clients}")
        if not _number(send_timeout) > 0:
            raise InputError(f"send_timeout must be a positive number, got {send_timeout}")
        self.commands = commands or Commands()
        self.max_request_bytes = int(max_request_bytes)
        self.max_clients = int(max_clients)
        self.send_timeout = float(send_timeout)
        self.signal: int | None = None  # the signal that stopped the server, if one did
        self._stop = threading.Event()  # ends the accept loop
        self._closing = False  # a shutdown request was answered: no request runs after it
        self._closer: int | None = None  # the thread that answers the shutdown request
        self._lock = threading.Lock()  # one request at a time on the session
        self._wake: socket.socket | None = None  # written by stop() to wake the accept loop
        self._clients: dict[socket.socket, threading.Thread] = {}
        self._clients_lock = threading.Lock()

    @property
    def stopped(self) -> bool:
        """True once a shutdown request or :meth:`stop` ended the server."""
        return self._closing or self._stop.is_set()

    def stop(self, signum: int | None = None) -> None:
        """Ends the server (safe from a signal handler or another thread): the accept loop
        returns within a fraction of a second, removing the socket."""
        if signum is not None and self.signal is None:
            self.signal = signum
        self._stop.set()
        wake = self._wake
        if wake is not None:
            try:
                wake.send(b"x")
            except OSError:  # full (a wake-up is pending anyway) or already closed
                pass

    # ------------------------------------------------------------------ one request
    def handle(self, line: bytes | str) -> dict[str, Any]:
        """The response to one request line (never raises for bad requests)."""
        rid = None
        try:
            req = _parse(line)
            rid = req.get("id")
            method = req.get("method")
            if not isinstance(method, str):
                raise InputError("malformed request: 'method' must be a string")
            params = req.get("params", [])
            if not isinstance(params, (list, dict)):
                raise InputError("malformed request: 'params' must be a list or an object")
            if method == "commands":
                return {"id": rid, "ok": True, "result": list(self.commands.names())}
            with self._lock:
                if self.stopped:
                    raise InputError("the server is shutting down")
                if method == "shutdown":  # the accept loop stops once the answer is sent
                    self._closing = True
                    self._closer = threading.get_ident()
                    return {"id": rid, "ok": True, "result": "shutting down"}
                if isinstance(params, list):
                    result = self.commands.call(method, *params)
                else:
                    result = self.commands.call(method, **params)
            return {"id": rid, "ok": True, "result": result}
        except IgpartError as exc:
            return _error(rid, type(exc).__name__, str(exc))
        except Exception as exc:  # a bug: report it, keep serving
            log.debug("internal error", exc_info=True)
            return _error(rid, "InternalError", _clip(f"{type(exc).__name__}: {exc}"))

    def respond(self, line: bytes | str | None) -> bytes | None:
        """The encoded response line to a request line (``None``: a line over the limit);
        ``None`` for a blank line, which gets no response."""
        if line is None:
            resp = _error(None, "InputError", f"request exceeds {self.max_request_bytes} bytes")
        elif not line.strip():
            return None
        else:
            resp = self.handle(line)
        return _encode(resp)

    # ------------------------------------------------------------------ streams
    def serve_stream(self, rfile: BinaryIO, wfile: BinaryIO) -> None:
        """Answers requests from ``rfile`` on ``wfile`` until EOF, a shutdown request, or the
        reader of ``wfile`` going away."""
        read = getattr(rfile, "read1", None) or rfile.read
        for line in _lines(lambda: read(1 << 16), self.max_request_bytes):
            out = self.respond(line)
            if out is not None:
                try:
                    wfile.write(out)
                    wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    log.info("the client went away")
                    return
            if self.stopped:
                return

    def serve_stdio(self) -> None:
        try:
            self.serve_stream(sys.stdin.buffer, sys.stdout.buffer)
        finally:
            if not _writable(sys.stdout):  # the reader left: no error when Python flushes
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                os.close(devnull)

    def serve_unix(self, path, ready=None) -> None:
        """Listens on a new unix-domain socket at ``path`` (mode 0600) until shutdown or
        :meth:`stop`; calls ``ready()`` once listening. Refuses to replace an existing file,
        except a stale socket (one nobody listens on, left by a killed server)."""
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
        ours = os.stat(p).st_ino
        wake_r, wake_w = socket.socketpair()
        sel = selectors.DefaultSelector()
        old_wakeup = None
        try:
            os.chmod(p, stat.S_IRUSR | stat.S_IWUSR)
            sock.listen(128)
            sock.setblocking(False)
            wake_r.setblocking(False)
            wake_w.setblocking(False)
            self._wake = wake_w
            if threading.current_thread() is threading.main_thread():
                # a signal caught by any thread (the kernels' included) wakes the accept loop
                old_wakeup = signal.set_wakeup_fd(wake_w.fileno(), warn_on_full_buffer=False)
            sel.register(sock, selectors.EVENT_READ)
            sel.register(wake_r, selectors.EVENT_READ)
            if ready is not None:
                ready()
            while not self._stop.is_set():
                for key, _ in sel.select(timeout=0.5):
                    if key.fileobj is wake_r:
                        _drain(wake_r)
                    elif not self._stop.is_set():
                        self._accept(sock)
        finally:
            self._stop.set()
            self._wake = None
            if old_wakeup is not None:
                signal.set_wakeup_fd(old_wakeup)
            sel.close()
            sock.close()
            try:
                if os.stat(p).st_ino == ours:  # never remove a file someone put there since
                    p.unlink()
            except OSError:
                pass
            self._close_clients()
            wake_r.close()
            wake_w.close()

    # ------------------------------------------------------------------ clients
    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. out of file descriptors: keep the server up
                log.warning("accept failed: %s", exc)
                time.sleep(0.1)  # the listener stays readable: do not spin
                return
            conn.setblocking(True)
            with self._clients_lock:
                busy = len(self._clients) >= self.max_clients
                if not busy:
                    t = threading.Thread(target=self._serve_client, args=(conn,), daemon=True,
                                         name="igpart-client")  # fmt: skip
                    self._clients[conn] = t
            if busy:
                msg = f"too many clients ({self.max_clients} connected); try again later"
                try:
                    conn.settimeout(0.1)
                    conn.sendall(_encode(_error(None, "Busy", msg)))
                except OSError:
                    pass
                conn.close()
            else:
                t.start()

    def _serve_client(self, conn: socket.socket) -> None:
        try:
            for line in _lines(lambda: conn.recv(1 << 16), self.max_request_bytes):
                out = self.respond(line)
                if out is not None:
                    conn.settimeout(self.send_timeout)
                    conn.sendall(out)
                    conn.settimeout(None)
                if self.stopped:
                    break
        except TimeoutError:
            log.info("dropped a client that did not read its responses for %gs",
                     self.send_timeout)  # fmt: skip
        except OSError as exc:  # the client went away (or the server closed the connection)
            log.info("client connection ended: %s", exc.strerror or exc)
        finally:
            with self._clients_lock:
                self._clients.pop(conn, None)
            conn.close()
            # this client's thread answered (or failed to answer) the shutdown request: another
            # client leaving meanwhile must not close the connections before the answer is sent
            if self._closing and self._closer == threading.get_ident():
                self.stop()

    def _close_clients(self, wait: float = 0.5) -> None:
        """Closes every client's connection; waits up to ``wait`` seconds for their threads (a
        thread still running a request finishes it in the background)."""
        with self._clients_lock:
            clients = list(self._clients.items())
        for conn, _ in clients:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for _, t in clients:
            t.join(wait / max(1, len(clients)))


def _lines(read: Callable[[], bytes], limit: int) -> Iterator[bytes | None]:
    """Request lines (without the newline) from a stream read in chunks by ``read()`` (``b""``
    at the end): ``None`` for a line longer than ``limit`` bytes, whose rest is skipped without
    being kept; a last line without a newline is yielded at the end. Holds at most ``limit``
    bytes plus one chunk."""
    buf = bytearray()
    skipping = False
    while True:
        chunk = read()
        if not chunk:
            if buf and not skipping:
                yield bytes(buf)
            return
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                if not skipping:
                    buf += chunk[start:]
                    if len(buf) > limit:
                        buf.clear()
                        skipping = True
                        yield None
                break
            if skipping:
                skipping = False
            else:
                buf += chunk[start:nl]
                line = bytes(buf) if len(buf) <= limit else None
                buf.clear()
                yield line
            start = nl + 1


def _parse(line: bytes | str) -> dict:
    """A request line as a JSON object; InputError when it is not one."""
    try:
        req = json.loads(line, parse_constant=_non_finite, parse_float=_finite_float)
    except InputError:
        raise
    except RecursionError:
        raise InputError("malformed request: JSON nested too deeply") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"malformed request: not JSON ({exc})") from None
    except ValueError:  # an integer of more digits than Python converts
        raise InputError("malformed request: a number has too many digits") from None
    if not isinstance(req, dict):
        raise InputError("malformed request: expected a JSON object")
    return req


def _non_finite(name: str):
    raise InputError(f"malformed request: {name} is not JSON (numbers must be finite)")


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise InputError(f"malformed request: {_clip(text, 40)} is out of the float range")
    return x


def _encode(resp: dict[str, Any]) -> bytes:
    """One response line: strict JSON (an unencodable result becomes an InternalError)."""
    try:
        text = json.dumps(resp, default=_jsonable, allow_nan=False)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        err = _error(resp.get("id"), "InternalError", _clip(f"result is not JSON: {exc}"))
        text = json.dumps(err, default=str, allow_nan=False)
    return text.encode() + b"\n"


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


def _drain(s: socket.socket) -> None:
    try:
        while s.recv(4096):
            pass
    except (BlockingIOError, InterruptedError):
        pass


def _writable(stream) -> bool:
    try:
        stream.flush()
    except (BrokenPipeError, ConnectionResetError, ValueError):
        return False
    return True


def _number(x) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return math.nan
    return float(x)


def _clip(text: str, limit: int = _MAX_INTERNAL_MESSAGE) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error(rid, kind: str, message: str) -> dict[str, Any]:
    return {"id": rid, "ok": False, "error": {"type": kind, "message": message}}


def _jsonable(x):
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON serialisable")


__all__ = ["MAX_CLIENTS", "MAX_REQUEST_BYTES", "SEND_TIMEOUT", "JsonLinesServer"]
