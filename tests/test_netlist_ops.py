"""TAU 2015 .ops reading and Circuit.apply: validation, semantics, all-or-nothing batches."""

from __future__ import annotations

import copy

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from igpart.errors import BatchError, InputError
from igpart.netlist import (
    ConnectPin,
    DisconnectPin,
    InsertGate,
    InsertNet,
    RemoveGate,
    RemoveNet,
    RepowerGate,
    parse_liberty,
    parse_ops,
    parse_verilog,
)

NETLIST = """
module top (a, b, y);
  input a; input b; output y;
  wire n1, n2;
  NAND2 u1 (.A(a), .B(b), .Z(n1));
  INV u2 (.A(n1), .Z(n2));
  BUF u3 (.A(n2), .Z(y));
endmodule
"""
LIB = """
library (t) {
  cell (NAND2) { area : 2; pin (A) { direction : input; } pin (B) { direction : input; }
                 pin (Z) { direction : output; } }
  cell (INV) { area : 1; pin (A) { direction : input; } pin (Z) { direction : output; } }
  cell (BUF) { area : 1.5; pin (A) { direction : input; } pin (Z) { direction : output; } }
  cell (BUF_X2) { area : 3; pin (A) { direction : input; } pin (Z) { direction : output; } }
}
"""


@pytest.fixture
def circuit():
    return parse_verilog(NETLIST, lib=parse_liberty(LIB))


def test_parse_ops_batches_and_lines():
    text = """
# a comment
insert_gate g1 BUF
insert_net m1
read_spef x.spef
report_at -pin y
connect_pin g1:A m1
disconnect_pin a
report_slack -pin y
repower_gate u1 NAND2
"""
    batches = parse_ops(text, "t.ops")
    assert [len(b) for b in batches] == [2, 2, 1]
    assert batches[0].line == 5 and batches[1].line == 9 and batches[2].line == 10
    assert batches[0].changes == [InsertGate("g1", "BUF"), InsertNet("m1")]
    assert batches[0].changes[0].line == 3
    assert batches[1].changes == [ConnectPin("g1", "A", "m1"), DisconnectPin(None, "a")]
    assert batches[1].changes[1].is_port and batches[1].changes[1].pin_text == "a"


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("insert_gate g1\n", 1, "takes 2 arguments"),
        ("insert_net n\nfrobnicate x\n", 2, "unknown command 'frobnicate'"),
        ("\n\nconnect_pin a:b:c n\n", 3, "malformed pin"),
        ("disconnect_pin :A\n", 1, "malformed pin"),
        ("remove_net a b\n", 1, "takes 1 argument"),
    ],
)
def test_parse_ops_errors(text, line, what):
    with pytest.raises(InputError) as e:
        parse_ops(text, "bad.ops")
    assert e.value.file == "bad.ops" and e.value.line == line
    assert what in str(e.value)


def test_buffer_insertion(circuit):
    c = circuit
    y = c.port_id("y")
    r = c.apply(
        [
            InsertGate("buf1", "BUF_X2"),
            InsertNet("m"),
            DisconnectPin("u2", "Z"),
            ConnectPin("u2", "Z", "m"),
            ConnectPin("buf1", "A", "m"),
            ConnectPin("buf1", "Z", "n2"),
        ]
    )
    b = c.instance_id("buf1")
    assert r.inserted_instances == [b] and r.inserted_nets == [c.net_id("m")]
    assert r.disconnected == [(c.instance_id("u2"), "Z", c.net_id("n2"))]
    assert (b, "Z", c.net_id("n2")) in r.connected
    assert sorted(c.pins_of_net(c.net_id("m"))) == sorted([(c.instance_id("u2"), "Z"), (b, "A")])
    assert dict((p, (n, d)) for p, n, d in c.pins_of_instance(b)) == {
        "A": (c.net_id("m"), "input"),
        "Z": (c.net_id("n2"), "output"),
    }
    assert c.drivers_per_net().max() == 1
    assert c.num_instances == 4 and c.num_nets == 6
    assert c.port_net(y) == c.net_id("y")


def test_remove_gate_disconnects_its_pins(circuit):
    c = circuit
    u3 = c.instance_id("u3")
    n2, y = c.net_id("n2"), c.net_id("y")
    r = c.apply([RemoveGate("u3")])
    assert sorted(r.disconnected) == sorted([(u3, "A", n2), (u3, "Z", y)])
    assert r.removed_instances == [u3]
    assert c.num_instances == 2 and not c.instance_alive[u3]
    assert c.instance_names[u3] == "u3"  # the id keeps its slot
    with pytest.raises(InputError, match="unknown instance 'u3'"):
        c.instance_id("u3")
    assert c.pins_of_net(n2) == [(c.instance_id("u2"), "Z")]
    # a new gate of the same name gets a new id
    r = c.apply([InsertGate("u3", "BUF")])
    assert r.inserted_instances == [3] and c.instance_id("u3") == 3


def test_remove_net_disconnects_its_pins(circuit):
    c = circuit
    n1 = c.net_id("n1")
    r = c.apply([RemoveNet("n1")])
    assert sorted(r.disconnected) == sorted(
        [(c.instance_id("u1"), "Z", n1), (c.instance_id("u2"), "A", n1)]
    )
    assert c.num_nets == 4 and r.removed_nets == [n1]
    hv = c.to_hypergraph()
    assert hv.net_of[n1] == -1 and hv.hypergraph.m == 4


def test_repower(circuit):
    c = circuit
    r = c.apply([RepowerGate("u3", "BUF_X2")])
    assert r.resized == [(c.instance_id("u3"), "BUF", "BUF_X2")]
    assert c.instance_cells[c.instance_id("u3")] == "BUF_X2"


@pytest.mark.parametrize(
    "records, what",
    [
        ([ConnectPin("u1", "A", "n2")], "already connected"),
        ([DisconnectPin("u1", "C")], "not connected"),
        ([InsertNet("m"), DisconnectPin("zz", "A")], "unknown instance 'zz'"),
        ([ConnectPin("u1", "A", "nope")], "unknown net 'nope'"),
        ([InsertGate("u1", "BUF")], "already exists"),
        ([InsertNet("n2")], "already exists"),
        ([RemoveNet("nope")], "unknown net"),
        ([RemoveGate("nope")], "unknown instance"),
        ([RepowerGate("nope", "BUF")], "unknown instance"),
        ([InsertGate("g", "BUF"), InsertNet("m"), ConnectPin("g", "Q", "m")], "has no pin 'Q'"),
        ([DisconnectPin(None, "nope")], "unknown port 'nope'"),
        ([DisconnectPin(None, "a"), DisconnectPin(None, "a")], "not connected"),
    ],
)
def test_invalid_batch_changes_nothing(circuit, records, what):
    c = circuit
    before = c._state()
    summary = c.summary()
    # a valid prefix that touches everything apply can change
    prefix = [
        InsertGate("g9", "BUF"),
        InsertNet("m9"),
        ConnectPin("g9", "A", "m9"),
        DisconnectPin("u3", "A"),
        RemoveGate("u2"),
        RemoveNet("n1"),
        RepowerGate("u1", "BUF_X2"),
        DisconnectPin(None, "y"),
        ConnectPin(None, "y", "m9"),
    ]
    with pytest.raises(BatchError) as e:
        c.apply(prefix + records)
    assert what in str(e.value)
    assert e.value.record >= len(prefix)
    assert c._state() == before
    assert c.summary() == summary
    # and the circuit still works afterwards
    c.apply(prefix)
    assert c.num_instances == 3


def test_error_names_ops_line(circuit):
    batches = parse_ops("insert_net m\nconnect_pin u1:A m\n", "x.ops")
    with pytest.raises(BatchError) as e:
        circuit.apply(batches[0].changes)
    assert e.value.line == 2 and "line 2" in str(e.value) and "connect_pin u1:A m" in str(e.value)


# --------------------------------------------------------------------------- oracle
class Oracle:
    """A dictionary model of a circuit: pin (owner name, pin name) -> net name."""

    def __init__(self, c):
        self.insts = {c.instance_names[i] for i in range(len(c.instance_names))}
        self.nets = set(c.net_names)
        self.pin = {}
        for i, name in enumerate(c.instance_names):
            for p, n, _ in c.pins_of_instance(i):
                self.pin[(name, p)] = c.net_names[n] if n >= 0 else None
        for p, name in enumerate(c.port_names):
            n = c.port_net(p)
            self.pin[(None, name)] = c.net_names[n] if n >= 0 else None

    def apply(self, rec):
        kind = type(rec).__name__
        if kind == "InsertGate":
            self.insts.add(rec.name)
        elif kind == "RemoveGate":
            self.insts.remove(rec.name)
            for k in [k for k in self.pin if k[0] == rec.name]:
                del self.pin[k]
        elif kind == "InsertNet":
            self.nets.add(rec.name)
        elif kind == "RemoveNet":
            self.nets.remove(rec.name)
            for k, v in self.pin.items():
                if v == rec.name:
                    self.pin[k] = None
        elif kind == "ConnectPin":
            self.pin[(rec.instance, rec.pin)] = rec.net
        elif kind == "DisconnectPin":
            self.pin[(rec.instance, rec.pin)] = None

    def nets_to_pins(self):
        out = {n: set() for n in self.nets}
        for k, v in self.pin.items():
            if v is not None:
                out[v].add(k)
        return out


def circuit_nets_to_pins(c):
    out = {}
    alive = c.net_alive
    for n, name in enumerate(c.net_names):
        if alive[n]:
            out[name] = {(c.instance_names[o] if o >= 0 else None, p) for o, p in c.pins_of_net(n)}
    return out


def test_tv80_replay_matches_a_dictionary_oracle(tau2015):
    from igpart.netlist import read_liberty, read_ops, read_verilog

    c = read_verilog(tau2015 / "tv80" / "tv80.v", lib=read_liberty(tau2015 / "cells_early.lib"))
    oracle = Oracle(c)
    for batch in read_ops(tau2015 / "tv80" / "tv80.ops"):
        c.apply(batch)
        for rec in batch.changes:
            oracle.apply(rec)
        assert circuit_nets_to_pins(c) == oracle.nets_to_pins()
        assert {
            c.instance_names[i] for i in range(len(c.instance_names)) if c.instance_alive[i]
        } == oracle.insts


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_batches_against_the_oracle(data):
    c = parse_verilog(NETLIST, lib=parse_liberty(LIB))
    oracle = Oracle(c)
    for step in range(data.draw(st.integers(1, 6))):
        names = sorted(oracle.insts) + [f"x{step}"]
        nets = sorted(oracle.nets) + [f"m{step}"]
        pins = sorted(
            (k for k in oracle.pin if k[0] is None or k[0] in oracle.insts),
            key=lambda k: (k[0] or "", k[1]),
        )
        recs = []
        for _ in range(data.draw(st.integers(1, 5))):
            kind = data.draw(st.sampled_from(
                ["ig", "rg", "rp", "in", "rn", "cp", "dp", "cp_new"]))  # fmt: skip
            if kind == "ig":
                recs.append(InsertGate(data.draw(st.sampled_from(names)), "BUF"))
            elif kind == "rg":
                recs.append(RemoveGate(data.draw(st.sampled_from(names))))
            elif kind == "rp":
                recs.append(RepowerGate(data.draw(st.sampled_from(names)), "BUF_X2"))
            elif kind == "in":
                recs.append(InsertNet(data.draw(st.sampled_from(nets))))
            elif kind == "rn":
                recs.append(RemoveNet(data.draw(st.sampled_from(nets))))
            elif kind in ("cp", "dp") and pins:
                inst, pin = data.draw(st.sampled_from(pins))
                if kind == "cp":
                    recs.append(ConnectPin(inst, pin, data.draw(st.sampled_from(nets))))
                else:
                    recs.append(DisconnectPin(inst, pin))
            elif kind == "cp_new":
                recs.append(
                    ConnectPin(data.draw(st.sampled_from(names)), data.draw(
                        st.sampled_from(["A", "Z", "Q"])), data.draw(st.sampled_from(nets)))
                )  # fmt: skip
        before = c._state()
        expect = copy.deepcopy(oracle)
        ok = True
        for rec in recs:  # the oracle decides validity with the documented rules
            if not _valid(expect, rec):
                ok = False
                break
            expect.apply(rec)
        event("valid batch" if ok else "invalid batch")
        if ok:
            c.apply(recs)
            oracle = expect
        else:
            with pytest.raises(BatchError):
                c.apply(recs)
            assert c._state() == before
        assert circuit_nets_to_pins(c) == oracle.nets_to_pins()


def _valid(o, rec) -> bool:
    kind = type(rec).__name__
    if kind == "InsertGate":
        return rec.name not in o.insts
    if kind in ("RemoveGate", "RepowerGate"):
        return rec.name in o.insts
    if kind == "InsertNet":
        return rec.name not in o.nets
    if kind == "RemoveNet":
        return rec.name in o.nets
    owner_ok = rec.instance is None or rec.instance in o.insts
    if not owner_ok or (rec.instance is None and (None, rec.pin) not in o.pin):
        return False
    cur = o.pin.get((rec.instance, rec.pin))
    if kind == "DisconnectPin":
        return cur is not None
    if rec.net not in o.nets or cur is not None:
        return False
    # a new pin must exist in the library cell (BUF/BUF_X2/NAND2/INV have A and Z, NAND2 B)
    return (rec.instance, rec.pin) in o.pin or rec.pin in ("A", "Z")
