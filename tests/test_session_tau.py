"""Circuit sessions end to end on the TAU 2015 designs (../shared/benchmarks/tau2015): Session
replay of every shipped .ops file with the oracle after every batch, the Tcl bridge sourcing an
.ops file as is, and the JSON-lines server answering a scripted client over a unix socket."""

from __future__ import annotations

import json
import logging
import socket
import threading

import numpy as np
import pytest

from igpart import InputError
from igpart.metrics import evaluate
from igpart.netlist import read_liberty, read_ops, read_verilog
from igpart.plugin import Commands, JsonLinesServer, Session
from igpart.plugin.tcl import TclBridge

from .conftest import TAU2015

OPS_DESIGNS = sorted(p.parent.name for p in TAU2015.glob("*/*.ops"))


@pytest.fixture(scope="module")
def lib(tau2015):
    logging.getLogger("igpart").setLevel(logging.ERROR)  # inferred-direction notes
    return read_liberty(tau2015 / "cells_early.lib")


def circuit(tau2015, lib, design):
    return read_verilog(tau2015 / design / f"{design}.v", lib=lib)


def check_oracle(s: Session, r) -> None:
    snap = s.dynamic.to_hypergraph()
    want = evaluate(snap.hypergraph, snap.parts, s.k, s.epsilon)
    assert (r.cut, r.km1) == (want["cut"], want["km1"])
    assert r.block_weights == [int(w) for w in want["block_weights"]]
    assert r.balanced and want["balanced"]


def pin_pairs_by_name(s: Session) -> set[tuple[str, str]]:
    """(cell or port name, net name) of every hypergraph pin of the session's engine."""
    snap = s.dynamic.to_hypergraph()
    mirror = s._circuit
    names = [mirror.name_of(int(v)) for v in snap.vertex_ids]
    nets = [mirror.circuit.net_names[mirror.circuit_net_of.get(int(e))] for e in snap.net_ids]
    h = snap.hypergraph
    return {(names[v], nets[e]) for v, e in zip(h.eind.tolist(), h.pin_nets.tolist())}


def view_pairs(c) -> set[tuple[str, str]]:
    v = c.to_hypergraph()
    h = v.hypergraph
    return {(v.vertex_names[a], v.net_names[e]) for a, e in zip(h.eind.tolist(),
                                                                  h.pin_nets.tolist())}  # fmt: skip


@pytest.mark.parametrize("design", OPS_DESIGNS)
def test_replay_every_ops_file_with_the_oracle(tau2015, lib, design):
    """After every batch: maintained cut, km1, block weights equal a recomputation and the
    partition is balanced; after the replay the engine's hypergraph is the circuit's view."""
    c = circuit(tau2015, lib, design)
    ops = read_ops(tau2015 / design / f"{design}.ops")
    s = Session(c, k=2 if c.num_instances < 100 else 4, epsilon=0.05)
    seen = []
    s.on_refine(seen.append)
    results = list(s.replay(ops))
    assert len(results) == len(ops) == len(seen)
    for r, batch in zip(results, ops):
        assert r.changes >= 1 and r.line == batch.line
    check_oracle(s, results[-1])
    s.dynamic.check()
    assert pin_pairs_by_name(s) == view_pairs(c)
    blocks = s.blocks()
    assert set(blocks) == set(c.to_hypergraph().vertex_names)


@pytest.mark.parametrize("design", ["tv80", "c6288", "s1494", "usb_phy_ispd"])
def test_incremental_path_without_guard(tau2015, lib, design):
    c = circuit(tau2015, lib, design)
    s = Session(c, k=4, options={"guard": False})
    before = s.blocks()
    for r in s.replay(tau2015 / design / f"{design}.ops"):
        assert not r.full_repartition
        check_oracle(s, r)
        now = s.blocks()
        changed = {x for x in now if x in before and now[x] != before[x]}
        assert set(r.moved) == changed
        assert set(r.new) == set(now) - set(before)
        assert all(r.changed[x] == now[x] for x in r.changed)
        before = now


MINI_LIB = """library (mini) {
  cell (NAND2_X1) { area : 1.0; pin (A1) { direction : input; } pin (A2) { direction : input; }
                    pin (ZN) { direction : output; } }
  cell (BUF_X2) { area : 2.0; pin (A) { direction : input; } pin (Z) { direction : output; } }
  cell (BUF_X16) { area : 8.0; pin (A) { direction : input; } pin (Z) { direction : output; } }
}
"""


def test_tau_changes_by_name(tau2015, tmp_path):
    (tmp_path / "mini.lib").write_text(MINI_LIB)
    c = read_verilog(tau2015 / "c17" / "c17.v", lib=tmp_path / "mini.lib")
    s = Session(c, k=2, epsilon=0.5, weights="area")
    out_net = c.net_names[0]
    s.insert_gate("buf1", "BUF_X2")
    s.insert_net("n_new")
    s.connect_pin("buf1:A", out_net)
    s.connect_pin("buf1:Z", "n_new")
    r = s.refine()
    assert "buf1" in r.new and r.changed["buf1"] == s.block_of("buf1")
    w0 = int(s.dynamic.vertex_weights[s._circuit.vertex_of("buf1")])
    s.repower_gate("buf1", "BUF_X16")
    s.refine()
    w1 = int(s.dynamic.vertex_weights[s._circuit.vertex_of("buf1")])
    assert w1 > w0  # area weights follow repower_gate
    # an instance with two pins on one net is one hypergraph pin
    s.disconnect_pin("buf1:Z")
    s.connect_pin("buf1:Z", out_net)
    s.refine()
    v = s._circuit.vertex_of("buf1")
    e = s._circuit.net_of_circuit.get(c.net_id(out_net))
    assert list(s.dynamic.nets_of(v)).count(e) == 1
    s.disconnect_pin("buf1:A")
    s.refine()
    assert e in s.dynamic.nets_of(v)  # buf1:Z is still on the net
    s.disconnect_pin("buf1:Z")
    s.remove_gate("buf1")
    s.remove_net("n_new")
    r = s.refine()
    check_oracle(s, r)
    with pytest.raises(InputError, match="unknown cell or port 'buf1'"):
        s.block_of("buf1")
    assert view_pairs(c) == pin_pairs_by_name(s)


def test_invalid_tau_change_changes_nothing(tau2015, lib):
    c = circuit(tau2015, lib, "c17")
    s = Session(c, k=2)
    state = s.dynamic.dump_state()
    s.insert_gate("g1", "INV_X1")
    s.connect_pin("nope:A", c.net_names[0])
    with pytest.raises(InputError, match="unknown instance 'nope'"):
        s.refine()
    after = s.dynamic.dump_state()
    assert all(np.array_equal(state[k], after[k]) for k in state)
    with pytest.raises(InputError, match="unknown instance"):
        c.instance_id("g1")
    with pytest.raises(InputError, match="TAU 2015 methods"):
        s.insert_vertex()


@pytest.mark.tcl
def test_tcl_sources_an_ops_file_as_is(tau2015, tmp_path):
    ops = tau2015 / "tv80" / "tv80.ops"
    script = tmp_path / "flow.tcl"
    script.write_text(
        f"""
igpart::read_verilog {{{tau2015 / "tv80" / "tv80.v"}}} -lib {{{tau2015 / "cells_early.lib"}}}
igpart::partition -k 4 -epsilon 0.05
set results {{}}
source {{{ops}}}
set report [igpart::report]
set blk [igpart::block_of TAUGATE_1]
set failed [catch {{connect_pin nope:a TAUNET_1; report_at -pin x}} msg]
"""
    )
    bridge = TclBridge()
    bridge.source(script)
    s = bridge.commands.session
    batches = read_ops(ops)
    assert s.engine.batches == len(batches)
    m = s.metrics()
    r = s.refine()  # nothing queued: an empty refinement
    check_oracle(s, r)
    assert int(bridge.interp.eval("dict get $report batches")) == len(batches)
    assert int(bridge.interp.getvar("blk")) == s.block_of("TAUGATE_1")
    assert int(bridge.interp.getvar("failed")) == 1
    assert "unknown instance 'nope'" in str(bridge.interp.getvar("msg"))
    assert m["balanced"]


def test_server_answers_a_scripted_client_over_a_socket(tau2015, tmp_path):
    path = tmp_path / "s.sock"
    srv = JsonLinesServer(Commands())
    ready = threading.Event()
    t = threading.Thread(target=srv.serve_unix, args=(path,), kwargs={"ready": ready.set})
    t.start()
    assert ready.wait(30)
    verilog, lib = tau2015 / "c432" / "c432.v", tau2015 / "cells_early.lib"
    script = [
        ("read_verilog", {"path": str(verilog), "lib": str(lib)}, True),
        ("partition", {"k": 2, "epsilon": 0.1}, True),
        ("insert_gate", ["buf_x", "BUF_X1"], True),
        ("insert_net", ["net_x"], True),
        ("connect_pin", ["buf_x:Z", "net_x"], True),
        ("pending", [], True),
        ("refine", [], True),
        ("block_of", ["buf_x"], True),
        ("connect_pin", ["ghost:A", "net_x"], True),  # queued; fails at the boundary
        ("report_at", ["-pin", "x"], False),
        ("block_of", ["ghost"], False),
        ("report", [], True),
        ("replay", [str(tau2015 / "c432" / "c432.ops")], True),
        ("shutdown", [], True),
    ]
    answers = []
    with socket.socket(socket.AF_UNIX) as c, c.makefile("rwb") as f:
        c.connect(str(path))
        for i, (method, params, ok) in enumerate(script):
            f.write(json.dumps({"id": i, "method": method, "params": params}).encode() + b"\n")
            f.flush()
            resp = json.loads(f.readline())
            assert resp["id"] == i and resp["ok"] is ok, (method, resp)
            answers.append(resp)
    t.join(30)
    assert not t.is_alive() and not path.exists()
    assert answers[5]["result"] == 3
    refined = answers[6]["result"]
    assert "buf_x" in refined["changed"] and refined["changed"]["buf_x"] == answers[7]["result"]
    assert "ghost" in answers[9]["error"]["message"]
    replay = answers[12]["result"]
    assert len(replay) == len(read_ops(tau2015 / "c432" / "c432.ops"))
    assert all(r["balanced"] for r in replay)


def test_circuit_reverts_if_the_engine_rejects_a_batch(tau2015, lib, monkeypatch):
    """Safety net: if the engine ever rejected a batch the circuit accepted, the circuit is
    reverted, so neither keeps the batch (nothing is applied) and the session stays usable."""
    from igpart.plugin.circuit import CircuitMirror

    c = circuit(tau2015, lib, "c432")
    s = Session(c, k=2)
    before, state = s.blocks(), c._state()
    real = CircuitMirror._translate

    def broken(self, applied, b):
        out = real(self, applied, b)
        b.delete_pin(0, 10**6)  # an invalid record the engine will refuse
        return out

    monkeypatch.setattr(CircuitMirror, "_translate", broken)
    s.insert_gate("g_new", "INV_X1")
    with pytest.raises(InputError, match="10000"):
        s.refine()
    monkeypatch.setattr(CircuitMirror, "_translate", real)
    assert c._state() == state and s.blocks() == before
    with pytest.raises(InputError, match="g_new"):
        s.block_of("g_new")
    assert pin_pairs_by_name(s) == view_pairs(c)
    s.insert_gate("g_new", "INV_X1")
    s.connect_pin("g_new:A", c.net_names[3])
    check_oracle(s, s.refine())
