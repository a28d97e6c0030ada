"""Plugin layer on hypergraph and graph designs: Session (id-level changes, refine results,
callbacks, replay), the Tcl bridge and the JSON-lines server (stdio and unix socket)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest

from igpart import BatchError, Config, Graph, InputError, improve, partition, read, write_hgr
from igpart.cli import main
from igpart.dynamic import Batch
from igpart.generators import random_circuit
from igpart.incremental import IncrementalConfig
from igpart.metrics import evaluate
from igpart.plugin import Commands, JsonLinesServer, Session
from igpart.plugin.tcl import TclBridge, run_script, split_options

from .util import random_graph


def check_session(s: Session) -> None:
    snap = s.dynamic.to_hypergraph()
    want = evaluate(snap.hypergraph, snap.parts, s.k, s.epsilon)
    m = s.metrics()
    assert (m["cut"], m["km1"], m["balanced"]) == (want["cut"], want["km1"], True)
    assert m["block_weights"] == [int(w) for w in want["block_weights"]]


@pytest.fixture()
def hgr(tmp_path):
    path = tmp_path / "c.hgr"
    write_hgr(random_circuit(1500, seed=3), path)
    return path


# ---------------------------------------------------------------------------- Session
def test_session_id_level_changes_and_callbacks():
    s = Session(random_circuit(2000, seed=1), k=4, epsilon=0.05, options={"guard": False})
    seen = []
    s.on_refine(seen.append)
    v = s.insert_vertex(weight=2)
    e = s.insert_hyperedge(weight=3)
    s.insert_pin(v, e)
    s.insert_pin(5, e)
    s.insert_pin(v, 7)
    s.set_vertex_weight(11, 4)
    assert s.pending == 6
    before = s.parts
    r = s.refine()
    assert seen == [r] and s.pending == 0 and r.changes == 6
    new = r.id_of(v)
    assert r.new == [new] and r.changed[new] == s.block_of(new)
    now = s.parts
    moved = np.flatnonzero(before != now[: before.size])
    assert sorted(r.moved) == moved.tolist()
    assert all(r.changed[x] == now[x] for x in r.moved)
    assert set(s.dynamic.pins_of(r.id_of(e)).tolist()) == {new, 5}
    check_session(s)
    d = r.to_dict()
    json.dumps(d)
    assert d["cut"] == r.cut and str(new) in d["changed"]


def test_session_invalid_change_applies_nothing_and_stays_usable():
    s = Session(random_circuit(500, seed=2), k=2)
    state = s.dynamic.dump_state()
    s.insert_vertex()
    s.delete_pin(0, 123456)
    with pytest.raises(BatchError, match="delete_pin vertex=0 net=123456"):
        s.refine()
    after = s.dynamic.dump_state()
    assert all(np.array_equal(state[k], after[k]) for k in state)
    assert s.pending == 0
    s.insert_vertex()
    assert len(s.refine().new) == 1
    with pytest.raises(InputError, match="need a circuit session"):
        s.connect_pin("u1:a", "n1")
    with pytest.raises(InputError, match="unknown vertex"):
        s.block_of(10**6)


def test_session_replay_yields_one_result_per_batch():
    h = random_circuit(1000, seed=4)
    s = Session(h, k=3, options={"guard": False})
    batches = []
    for i in range(5):
        b = Batch()
        v = b.insert_vertex()
        b.insert_pin(v, i)
        batches.append(b)
    results = list(s.replay(batches))
    assert [r.batch for r in results] == list(range(5))
    assert all(len(r.new) == 1 for r in results)
    check_session(s)
    with pytest.raises(InputError, match="replay needs"):
        list(s.replay(42))


def test_graph_session_edges():
    rng = np.random.default_rng(0)
    g = random_graph(rng, 300, 900)
    s = Session(g, k=4, epsilon=0.05)
    assert s.kind == "graph"
    u, v, _ = g.edge_list()
    s.delete_edge(int(u[0]), int(v[0]))
    s.insert_edge(1, 2, weight=5)
    r = s.refine()
    check_session(s)
    assert r.balanced
    with pytest.raises(InputError, match="no edge"):
        s.delete_edge(int(u[0]), int(v[0]))
    assert isinstance(g, Graph)


def test_session_rejects_other_designs():
    with pytest.raises(InputError, match="Circuit, Hypergraph or Graph"):
        Session([[0, 1]], k=2)


# ---------------------------------------------------------------------------- Tcl
@pytest.mark.tcl
def test_tcl_bridge_drives_a_hypergraph_session(hgr, tmp_path):
    script = tmp_path / "flow.tcl"
    script.write_text(
        f"""
set info [igpart::read {{{hgr}}}]
set m [igpart::partition -k 4 -epsilon 0.05]
set v [igpart::insert_vertex 1]
set e [igpart::insert_hyperedge]
igpart::insert_pin $v $e
igpart::insert_pin 3 $e
set r [igpart::refine]
set cut [dict get $r cut]
set blk [igpart::block_of 3]
igpart::delete_pin 0 999999
set failed [catch {{igpart::refine}} msg]
set report [igpart::report]
"""
    )
    bridge = run_script(script)
    get = bridge.interp.getvar
    assert int(get("failed")) == 1 and "net 999999" in str(get("msg"))
    s = bridge.commands.session
    assert int(get("cut")) == s.dynamic.cut and int(get("blk")) == s.block_of(3)
    report = bridge.interp.eval("dict get $report balanced")
    assert report == "1"
    check_session(s)


@pytest.mark.tcl
def test_tcl_errors_carry_the_message_and_line(hgr, tmp_path):
    bad = tmp_path / "bad.tcl"
    bad.write_text(f"igpart::read {{{hgr}}}\nigpart::partition -k 2\n\nconnect_pin u1:a n1\n")
    with pytest.raises(InputError, match=r"bad.tcl:4: .*need a circuit session"):
        run_script(bad)
    b = TclBridge()
    with pytest.raises(Exception, match="no session yet"):
        b.eval("igpart::refine")
    with pytest.raises(Exception, match="k must be an integer"):
        b.eval(f"igpart::read {{{hgr}}}; igpart::partition -k four")
    assert split_options(["a", "-k", "3", "-1"]) == (["a", "-1"], {"k": "3"})


@pytest.mark.tcl
def test_cli_tcl(hgr, tmp_path, capsys):
    ok = tmp_path / "ok.tcl"
    ok.write_text(f"igpart::read {{{hgr}}}\nigpart::partition -k 2\nputs [igpart::block_of 0]\n")
    assert main(["tcl", str(ok)]) == 0
    bad = tmp_path / "bad.tcl"
    bad.write_text("igpart::nope\n")
    assert main(["tcl", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.tcl:1:" in err and "Traceback" not in err


def test_cli_tcl_without_tkinter_says_what_is_missing(hgr, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tkinter", None)  # a Python built without Tk
    ok = tmp_path / "ok.tcl"
    ok.write_text(f"igpart::read {{{hgr}}}\n")
    assert main(["tcl", str(ok)]) == 1
    err = capsys.readouterr().err
    assert "tkinter" in err and "Traceback" not in err
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"igpart::read {{{hgr}}}\n"))  # no script
    assert main(["tcl"]) == 1
    err = capsys.readouterr().err
    assert "tkinter" in err and "Traceback" not in err


# ---------------------------------------------------------------------------- server
def test_server_handles_requests_and_bad_lines(hgr):
    srv = JsonLinesServer(max_request_bytes=200)
    r = srv.handle(json.dumps({"id": 1, "method": "read", "params": [str(hgr)]}))
    assert r["ok"] and r["result"]["vertices"] == 1500
    r = srv.handle(json.dumps({"id": 2, "method": "partition", "params": {"k": 3}}))
    assert r["ok"] and r["result"]["balanced"]
    for line, message in [
        ("{nope", "not JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps({"id": 3}), "'method'"),
        (json.dumps({"id": 4, "method": "frobnicate"}), "unknown command"),
        (json.dumps({"id": 5, "method": "block_of", "params": 7}), "'params'"),
        (json.dumps({"id": 6, "method": "insert_pin", "params": ["x", 1]}), "integer"),
    ]:
        r = srv.handle(line)
        assert not r["ok"] and message in r["error"]["message"], line
    assert srv.handle(json.dumps({"id": 7, "method": "shutdown"}))["ok"] and srv.stopped


def test_server_stdio_subprocess(hgr):
    lines = [
        {"id": 1, "method": "read", "params": [str(hgr)]},
        {"id": 2, "method": "partition", "params": {"k": 2}},
        {"id": 3, "method": "insert_vertex"},
        {"id": 4, "method": "refine"},
        {"id": 5, "method": "shutdown"},
        {"id": 6, "method": "report"},  # never answered
    ]
    data = "\n".join(json.dumps(x) for x in lines) + "\n"
    data = data.replace('{"id": 3', "x" * 300 + '\n{"id": 3')  # an oversized line first
    out = subprocess.run(
        [sys.executable, "-m", "igpart", "serve", "--max-request-bytes", "256"],
        input=data.encode(), capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    resp = [json.loads(x) for x in out.stdout.decode().splitlines()]
    assert [r["id"] for r in resp] == [1, 2, None, 3, 4, 5]
    assert "exceeds 256 bytes" in resp[2]["error"]["message"]
    assert resp[4]["ok"] and resp[4]["result"]["new"] == [1500]


@contextlib.contextmanager
def unix_server(path):
    """A JsonLinesServer on a unix socket at ``path`` in a thread, and a client connected to it:
    yields ``(server, ask)``, ``ask(request)`` sending a request (an object, or a raw line) and
    returning the response. The client must shut the server down; the thread is joined."""
    srv = JsonLinesServer()
    ready = threading.Event()
    t = threading.Thread(target=srv.serve_unix, args=(path,), kwargs={"ready": ready.set})
    t.start()
    assert ready.wait(30)
    try:
        with socket.socket(socket.AF_UNIX) as c, c.makefile("rwb") as f:
            c.connect(str(path))

            def ask(obj):
                f.write((obj if isinstance(obj, str) else json.dumps(obj)).encode() + b"\n")
                f.flush()
                return json.loads(f.readline())

            yield srv, ask
    finally:
        t.join(30)
    assert not t.is_alive()


def test_server_unix_socket(hgr, tmp_path):
    path = tmp_path / "igpart.sock"
    with unix_server(path) as (_, ask):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert ask({"id": "a", "method": "read", "params": [str(hgr)]})["ok"]
        assert ask({"id": "b", "method": "partition", "params": {"k": 2}})["ok"]
        assert not ask("not json")["ok"]
        assert ask({"id": "c", "method": "insert_edge", "params": [0, 1]})["ok"]
        r = ask({"id": "d", "method": "refine"})
        assert r["ok"] and r["result"]["balanced"]
        assert ask({"id": "e", "method": "block_of", "params": [0]})["result"] in (0, 1)
        assert ask({"id": "f", "method": "shutdown"})["ok"]
    assert not path.exists()
    with pytest.raises(InputError, match="exists"):
        path.write_text("")
        JsonLinesServer().serve_unix(path)


def test_commands_reject_unknown_and_bad_arguments():
    c = Commands()
    with pytest.raises(InputError, match="unknown command"):
        c.call("nope")
    with pytest.raises(InputError, match="no design"):
        c.call("partition")
    with pytest.raises(InputError, match="no session"):
        c.call("report")


# ---------------------------------------------------------------------------- config
JET = {"refinement": "jet", "initial": "metis"}


def _configured(h, cfg, k=4):
    """The initial partition of a session configured with ``cfg`` (igpart.partition with
    ``cfg``, the best of the sessions' default number of runs), and that it differs from the
    default's (so that equal parts below show the config reached the partitioner)."""
    runs = {"repetitions": IncrementalConfig().initial_repetitions}
    want = partition(h, k, 0.05, backend="cpu", config={**cfg, **runs}).parts
    assert (want != partition(h, k, 0.05, backend="cpu", config=runs).parts).any()
    return want


def test_session_config_reaches_initial_partition_and_guard():
    h = random_circuit(1500, seed=3)
    s = Session(h, k=4, epsilon=0.05, backend="cpu", config=Config(**JET))
    assert np.array_equal(s.parts, _configured(h, JET)) and s.engine.config == Config(**JET)
    # the quality guard's re-partition (warm start) uses it too
    p0 = partition(h, 4, 0.05, backend="cpu", config={"vcycles": 0, "fm": False}).parts
    opts = {"guard_fresh": False}
    want = improve(h, p0, 4, 0.05, "cut", "cpu", 0, JET, vcycles=1)
    other = improve(h, p0, 4, 0.05, "cut", "cpu", 0, None, vcycles=1)
    assert want.balanced and (want.parts != other.parts).any()
    s = Session(h, k=4, epsilon=0.05, backend="cpu", parts=p0, config=JET, options=opts)
    s.repartition()
    assert np.array_equal(s.parts, want.parts)
    check_session(s)
    # a bad config fails at once, also when parts are given (not at the first guard)
    for bad, message in [({"refinement": "magic"}, "config.refinement must be one of"),
                         ({"nope": 1}, "unknown config option.*nope"),
                         ("jet", "config must be a Config or a dict")]:  # fmt: skip
        with pytest.raises(InputError, match=message):
            Session(h, k=4, parts=p0, config=bad)


@pytest.mark.tcl
def test_tcl_partition_config(hgr, tmp_path):
    h = read(hgr)
    want = _configured(h, JET)
    b = TclBridge()
    b.eval(f"igpart::read {{{hgr}}}")
    runs = {"repetitions": IncrementalConfig().initial_repetitions}
    more = partition(h, 4, 0.05, backend="cpu",
                     config={**JET, "fm": True, "vcycles": 2, **runs}).parts
    # JSON text (its members alone, as a single brace pair leaves them, also do) or a Tcl dict
    for opt, parts in (('{{"refinement": "jet", "initial": "metis"}}', want),
                       ('{"refinement": "jet", "initial": "metis"}', want),
                       ("{refinement jet initial metis}", want),
                       ("[dict create refinement jet initial metis fm 1 vcycles 2]", more)):
        b.eval(f"igpart::partition -k 4 -epsilon 0.05 -backend cpu -config {opt}")
        assert np.array_equal(b.commands.session.parts, parts), opt
    session = b.commands.session
    for opt, message in [
        ("{refinement magic}", "config.refinement must be one of auto, fm, jet, jet+fm, "
                               "got 'magic'"),
        ("{vcycles -2}", "config.vcycles must be -1 (the backend's default) or a "
                         "non-negative integer, got -2"),
        ("{vcycles many}", "config.vcycles must be -1 (the backend's default) or a "
                           "non-negative integer, got 'many'"),
        ("{fm maybe}", "config.fm must be true or false, got 'maybe'"),
        ("{nope 1}", "unknown config option(s): nope"),
        ("{refinement}", "config must be a JSON object or a Tcl dict"),
        ('{{"vcycles": }}', "config is not valid JSON"),
    ]:  # fmt: skip
        b.eval(f"set failed [catch {{igpart::partition -k 2 -config {opt}}} msg]")
        assert b.interp.getvar("failed") in (1, "1") and message in str(b.interp.getvar("msg"))
        assert b.commands.session is session  # nothing replaced
    assert np.array_equal(session.parts, more)  # the last good partition kept
    script = tmp_path / "bad.tcl"
    script.write_text(f"igpart::read {{{hgr}}}\nigpart::partition -config {{jet 1}}\n")
    with pytest.raises(InputError, match=r"bad.tcl:2: unknown config option\(s\): jet"):
        run_script(script)


def test_server_partition_config(hgr, tmp_path):
    want = _configured(read(hgr), JET)
    with unix_server(tmp_path / "igpart.sock") as (srv, ask):

        def call(method, params=None):
            return ask({"id": 1, "method": method, "params": params or []})

        assert call("read", [str(hgr)])["ok"]
        first = call("partition", {"k": 4, "epsilon": 0.05, "backend": "cpu", "config": JET})
        assert first["ok"] and np.array_equal(srv.commands.session.parts, want)
        session = srv.commands.session
        for cfg, message in [
            ({"refinement": "magic"}, "config.refinement must be one of"),
            ({"initial_runs": "8"}, "config.initial_runs must be a positive integer, got '8'"),
            ({"fm": None}, "config.fm must be true or false, got None"),
            ({"nope": 1, "zap": 2}, "unknown config option(s): nope, zap"),
            ([1, 2], "config must be an object of Config fields"),
        ]:
            r = call("partition", {"k": 2, "config": cfg})
            assert not r["ok"] and r["error"]["type"] == "InputError", cfg
            assert message in r["error"]["message"], cfg
        assert srv.commands.session is session  # nothing replaced, the server goes on
        assert call("report")["result"] == first["result"]
        assert call("shutdown")["ok"]
