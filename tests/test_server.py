"""The JSON-lines server under clients that misbehave: closing before reading, a last request
without a newline, idle and non-reading clients among many concurrent ones, SIGTERM at any time,
requests that fail half-way (the circuit and the engine stay in step), and values no JSON or
int64 holds. Servers run for real, on a temporary unix socket (a subprocess of ``igpart serve``
or a thread) or on stdio pipes; every wait is bounded."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from igpart import write_hgr
from igpart.generators import random_circuit
from igpart.plugin import Commands, JsonLinesServer


@pytest.fixture()
def hgr(tmp_path):
    path = tmp_path / "c.hgr"
    write_hgr(random_circuit(400, seed=5), path)
    return path


@contextlib.contextmanager
def serve_process(path, *extra):
    """``igpart serve --socket path`` in a subprocess; yields the Popen once it listens and
    kills it (if still alive) at the end."""
    proc = subprocess.Popen([sys.executable, "-m", "igpart", "serve", "--socket", str(path),
                             *map(str, extra)], stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not path.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


@contextlib.contextmanager
def serve_thread(path, server: JsonLinesServer | None = None):
    """A JsonLinesServer on ``path`` in a thread; stopped and joined at the end."""
    srv = server or JsonLinesServer()
    ready = threading.Event()
    t = threading.Thread(target=srv.serve_unix, args=(path,), kwargs={"ready": ready.set})
    t.start()
    assert ready.wait(30)
    try:
        yield srv
    finally:
        srv.stop()
        t.join(30)
    assert not t.is_alive() and not path.exists()


class Client:
    """A blocking client with a timeout on every read."""

    def __init__(self, path, timeout: float = 60):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self.f = self.sock.makefile("rwb")

    def send(self, obj) -> None:
        self.f.write((obj if isinstance(obj, str) else json.dumps(obj)).encode() + b"\n")
        self.f.flush()

    def recv(self) -> dict:
        line = self.f.readline()
        assert line.endswith(b"\n"), line
        return json.loads(line, parse_constant=_reject)  # strict JSON

    def ask(self, obj) -> dict:
        self.send(obj)
        return self.recv()

    def close(self) -> None:
        # a write the server refused (a Busy client, closed before its request went out) is
        # still buffered: closing flushes it again into the closed connection
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.f.close()
        self.sock.close()


def loaded(path, hgr, k: int) -> Client:
    """A client that had the server read ``hgr`` and partition it into ``k`` blocks."""
    c = Client(path)
    assert c.ask({"id": 0, "method": "read", "params": [str(hgr)]})["ok"]
    assert c.ask({"id": 0, "method": "partition", "params": {"k": k}})["ok"]
    return c


def _reject(name):
    raise AssertionError(f"non-standard JSON {name} in a response")


# ---------------------------------------------------------------------------- vanishing clients
def test_client_closing_before_reading_does_not_kill_the_server(tmp_path, hgr):
    path = tmp_path / "s.sock"
    with serve_process(path) as proc:
        loaded(path, hgr, 2).close()
        for _ in range(20):  # the reproducer: an unterminated request, then close
            s = socket.socket(socket.AF_UNIX)
            s.connect(str(path))
            s.sendall(b'{"method":"commands"}')
            s.close()
            s = socket.socket(socket.AF_UNIX)  # a request, closed before its answer is read
            s.connect(str(path))
            s.sendall(b'{"id": 3, "method": "report"}\n' * 50)
            s.close()
        # a last request without a newline is answered when the client stops sending
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(60)
        s.connect(str(path))
        s.sendall(b'{"id": "last", "method": "report"}')
        s.shutdown(socket.SHUT_WR)
        got = b""
        while chunk := s.recv(1 << 16):
            got += chunk
        s.close()
        r = json.loads(got)
        assert r["id"] == "last" and r["ok"] and r["result"]["k"] == 2
        assert proc.poll() is None
        c = Client(path)
        assert c.ask({"id": 4, "method": "report"})["result"]["k"] == 2  # the session survived
        assert c.ask({"id": 5, "method": "shutdown"})["ok"]
        c.close()
        assert proc.wait(30) == 0
    assert not path.exists()


def test_stdio_last_request_without_newline_and_reader_gone(hgr):
    cmd = [sys.executable, "-m", "igpart", "serve"]
    data = json.dumps({"id": 1, "method": "read", "params": [str(hgr)]}) + "\n"
    data += json.dumps({"id": 2, "method": "report"})  # no newline: answered at EOF
    out = subprocess.run(cmd, input=data.encode(), capture_output=True, timeout=120)
    replies = [json.loads(x) for x in out.stdout.splitlines()]
    assert out.returncode == 0 and [r["id"] for r in replies] == [1, 2]
    assert replies[1]["error"]["message"].startswith("no session yet")
    # the reader of stdout goes away: the server ends quietly, without a traceback
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    proc.stdout.close()
    _, err = proc.communicate(b'{"id": 1, "method": "commands"}\n' * 2000, timeout=120)
    assert proc.returncode == 0 and b"Traceback" not in err


# ---------------------------------------------------------------------------- SIGTERM
def test_sigterm_after_a_partition_with_no_client_connected(tmp_path, hgr):
    path = tmp_path / "s.sock"
    with serve_process(path) as proc:
        loaded(path, hgr, 4).close()
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 128 + signal.SIGTERM
        assert "Traceback" not in proc.stderr.read()
    assert not path.exists()


def test_sigterm_with_an_idle_client_attached(tmp_path):
    path = tmp_path / "s.sock"
    with serve_process(path) as proc:
        idle = Client(path)
        assert idle.ask({"id": 1, "method": "commands"})["ok"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 128 + signal.SIGTERM
        assert idle.f.readline() == b""  # its connection was closed
        idle.close()
    assert not path.exists()


# ---------------------------------------------------------------------------- concurrency
def test_fifty_clients_with_an_idle_and_a_non_reading_one(tmp_path, hgr):
    """50 clients x 200 requests, pipelined, while one client stays connected and idle and one
    sends thousands of requests without reading: every request is answered with its id, and the
    non-reading client is dropped once a response waited --send-timeout seconds."""
    path = tmp_path / "s.sock"
    with serve_process(path, "--send-timeout", 1) as proc:
        setup = loaded(path, hgr, 4)
        blocks = [setup.ask({"id": v, "method": "block_of", "params": [v]})["result"]
                  for v in range(400)]  # fmt: skip
        idle = Client(path)
        deaf = socket.socket(socket.AF_UNIX)
        deaf.connect(str(path))
        deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)

        def flood() -> None:  # never reads; the server drops it while it still sends
            with contextlib.suppress(OSError):
                deaf.sendall(b'{"id": 0, "method": "commands"}\n' * 20000)

        flooder = threading.Thread(target=flood)
        flooder.start()
        errors: list[str] = []

        def client(c: int) -> None:
            try:
                cl = Client(path)
                reqs = []
                for i in range(200):
                    rid = f"{c}-{i}"
                    if i % 3 == 0:
                        reqs.append({"id": rid, "method": "report"})
                    else:
                        reqs.append({"id": rid, "method": "block_of", "params": [(c + i) % 400]})
                cl.f.write(b"".join(json.dumps(r).encode() + b"\n" for r in reqs))
                cl.f.flush()
                for req in reqs:
                    r = cl.recv()
                    assert r["id"] == req["id"] and r["ok"], r
                    if req["method"] == "block_of":
                        assert r["result"] == blocks[req["params"][0]]
                    else:
                        assert r["result"]["k"] == 4
                cl.close()
            except Exception as exc:  # reported by the main thread
                errors.append(f"client {c}: {exc!r}")

        threads = [threading.Thread(target=client, args=(c,)) for c in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads) and errors == []
        # connect() and the idle client still work; the deaf one was dropped
        assert Client(path).ask({"id": "new", "method": "report"})["ok"]
        assert idle.ask({"id": "idle", "method": "report"})["id"] == "idle"
        flooder.join(30)  # its sending ends when the server drops it
        assert not flooder.is_alive()
        deaf.settimeout(30)
        answered = 0
        with contextlib.suppress(ConnectionResetError):
            while chunk := deaf.recv(1 << 20):
                answered += chunk.count(b"\n")
        assert answered < 20000  # dropped before its requests were all answered
        deaf.close()
        assert idle.ask({"id": "bye", "method": "shutdown"})["ok"]
        idle.close()
        assert proc.wait(30) == 0


def test_shutdown_is_answered_when_another_client_leaves_meanwhile(tmp_path):
    """A client that disconnects between a shutdown request being handled and its answer being
    sent does not stop the server before the answer goes out."""
    path = tmp_path / "s.sock"
    other_gone = threading.Event()

    class Server(JsonLinesServer):
        def handle(self, line):
            resp = super().handle(line)
            if resp.get("result") == "shutting down":
                other.close()  # the other client leaves while the answer is still unsent
                deadline = time.monotonic() + 10
                while len(self._clients) > 1 and time.monotonic() < deadline:
                    time.sleep(0.01)  # until its thread has ended
                other_gone.set()
            return resp

    with serve_thread(path, Server()) as srv:
        other = Client(path)
        assert other.ask({"id": 1, "method": "commands"})["ok"]
        closer = Client(path)
        answer = {"id": "bye", "ok": True, "result": "shutting down"}
        assert closer.ask({"id": "bye", "method": "shutdown"}) == answer
        assert other_gone.is_set() and len(srv._clients) <= 1
        closer.close()


# ---------------------------------------------------------------------------- errors
def test_bad_values_are_input_errors_in_strict_json(tmp_path, hgr):
    srv = JsonLinesServer(Commands(max_file_bytes=1 << 20))
    big = tmp_path / "big.hgr"
    big.write_bytes(b"%" * ((1 << 20) + 1))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def ask(line):
        out = srv.respond(line if isinstance(line, str) else json.dumps(line))
        return json.loads(out, parse_constant=_reject)

    assert ask({"id": 1, "method": "read", "params": [str(hgr)]})["ok"]
    assert ask({"id": 2, "method": "partition", "params": {"k": 2}})["ok"]
    assert ask({"id": 3, "method": "block_of", "params": {"name": 7}})["result"] in (0, 1)
    cases = [
        ({"id": 4, "method": "read", "params": {"path": 123}}, "path must be a string"),
        ({"id": 5, "method": "partition", "params": {"seed": 2**64}}, "does not fit"),
        ({"id": 6, "method": "partition", "params": {"seed": 2**63 - 1}}, "seed must be"),
        ({"id": 7, "method": "read", "params": ["/dev/zero", "hgr"]}, "not a regular file"),
        ({"id": 8, "method": "read", "params": [str(fifo)]}, "not a regular file"),
        ({"id": 9, "method": "read", "params": [str(big)]}, "more than the limit"),
        ({"id": 10, "method": "set_vertex_weight", "params": [0, 2**63]}, "does not fit"),
        ({"id": 11, "method": "insert_vertex", "params": [-(2**63) - 1]}, "does not fit"),
        ({"id": 12, "method": "block_of", "params": ["9" * 5000]}, "unknown vertex '999"),
        ('{"id": %s, "method": "report"}' % ("9" * 5000), "too many digits"),
        ('{"id": NaN, "method": "report"}', "NaN is not JSON"),
        ('{"id": 1, "method": "report", "params": [Infinity]}', "Infinity is not JSON"),
        ('{"id": 1e999, "method": "report"}', "out of the float range"),
        ('{"id": 1, "method": "block_of", "params": [-Infinity]}', "-Infinity is not JSON"),
    ]
    for req, message in cases:
        r = ask(req)
        assert not r["ok"] and r["error"]["type"] in ("InputError", "BatchError"), (req, r)
        assert message in r["error"]["message"], (req, r)
        assert len(r["error"]["message"]) < 300 and "array(" not in r["error"]["message"]
    assert ask({"id": 13, "method": "report"})["result"]["k"] == 2  # the session is intact


def test_failing_request_leaves_circuit_and_engine_in_step(tau2015, monkeypatch):
    """The issue's reproducer (insert_gate, set_vertex_weight 2^63, report_timing), then a
    batch that fails inside the engine after the circuit took it: both roll back."""
    design, lib = tau2015 / "c17" / "c17.v", tau2015 / "cells_early.lib"
    srv = JsonLinesServer()

    def ask(method, *params):
        return json.loads(srv.respond(json.dumps({"id": 1, "method": method, "params": params})))

    assert ask("read_verilog", str(design), str(lib))["ok"]
    assert ask("partition")["ok"]
    assert ask("insert_gate", "g_new", "INV_X1")["ok"]
    r = ask("set_vertex_weight", 0, 2**63)
    assert r["error"]["type"] == "InputError" and "64-bit" in r["error"]["message"]
    r = ask("report_timing")
    assert r["ok"] and r["result"]["new"] == ["g_new"]
    session = srv.commands.session
    assert ask("block_of", "g_new")["result"] == session.blocks()["g_new"]
    assert ask("insert_gate", "g_new", "INV_X1")["ok"]  # queued; invalid at the boundary
    r = ask("report_timing")
    assert r["error"]["type"] == "BatchError" and "already exists" in r["error"]["message"]

    circuit = session._circuit.circuit
    before, blocks = circuit._state(), session.blocks()
    metrics = session.metrics()

    def broken(batch):
        raise RuntimeError("engine failure")

    monkeypatch.setattr(session.engine.dynamic, "apply", broken)
    assert ask("insert_gate", "g_two", "INV_X1")["ok"] and ask("insert_net", "n_two")["ok"]
    assert ask("connect_pin", "g_two:A", "n_two")["ok"]
    r = ask("report_timing")
    assert r["error"]["type"] == "InternalError" and "engine failure" in r["error"]["message"]
    assert circuit._state() == before and session.blocks() == blocks  # nothing kept
    assert session.metrics() == metrics and session.pending == 0
    monkeypatch.undo()
    assert ask("block_of", "g_two")["error"]["message"] == "unknown cell or port 'g_two'"
    assert ask("insert_gate", "g_two", "INV_X1")["ok"] and ask("insert_net", "n_two")["ok"]
    assert ask("connect_pin", "g_two:A", "n_two")["ok"]  # re-inserting works as if new
    r = ask("report_timing")
    assert r["ok"] and r["result"]["new"] == ["g_two"]
    assert ask("block_of", "g_two")["result"] == session.blocks()["g_two"]


def test_server_refuses_bad_settings_and_clients_beyond_the_limit(tmp_path):
    from igpart import InputError

    for kw in ({"max_request_bytes": float("nan")}, {"max_clients": 0},
               {"send_timeout": -1}):  # fmt: skip
        with pytest.raises(InputError):
            JsonLinesServer(**kw)
    path = tmp_path / "s.sock"
    with serve_thread(path, JsonLinesServer(max_clients=2)):
        a, b = Client(path), Client(path)
        assert a.ask({"id": 1, "method": "commands"})["ok"]
        assert b.ask({"id": 2, "method": "commands"})["ok"]
        c = Client(path)
        r = c.recv()
        assert r["error"]["type"] == "Busy" and c.f.readline() == b""
        a.close()
        deadline = time.monotonic() + 30
        while True:  # a's slot frees once its thread has seen the close
            d = Client(path)
            try:
                r = d.ask({"id": 3, "method": "commands"})
            except (BrokenPipeError, ConnectionResetError):
                # refused as Busy and closed before the request went out
                r = {"ok": False}
            if r["ok"] or time.monotonic() > deadline:
                break
            d.close()
            time.sleep(0.01)
        assert r["ok"]
        for x in (b, c, d):
            x.close()
