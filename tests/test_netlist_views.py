"""Hypergraph and graph views of a circuit, weights, skipping, and the CLI on netlists."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from igpart.errors import InputError
from igpart.netlist import parse_liberty, parse_verilog, read_verilog

LIB = parse_liberty(
    """
library (t) {
  cell (AND2) { area : 1.5; pin (A) { direction : input; } pin (B) { direction : input; }
                pin (Z) { direction : output; } }
  cell (INV) { area : 0.5; pin (A) { direction : input; } pin (ZN) { direction : output; } }
  cell (DFF) { area : 4.5; pin (D) { direction : input; } pin (CK) { direction : input;
               clock : true; } pin (Q) { direction : output; } }
}
"""
)
TEXT = """
module top (a, b, ck, y);
  input a, b, ck; output y;
  AND2 g1 (.A(a), .B(a), .Z(n1));
  INV g2 (.A(n1), .ZN(n2));
  DFF f1 (.D(n2), .CK(ck), .Q(n3));
  AND2 g3 (.A(n3), .B(b), .Z(y));
  INV g4 (.A(1'b0), .ZN(n5));
  DFF f2 (.D(n5), .CK(clk_int), .Q(n6));
endmodule
"""


@pytest.fixture
def circuit():
    return parse_verilog(TEXT, lib=LIB)


def _nets_as_name_sets(hv):
    h = hv.hypergraph
    return {hv.net_names[e]: {hv.vertex_names[v] for v in h.net(e).tolist()} for e in range(h.m)}


def test_hypergraph_view_against_the_pins(circuit):
    c = circuit
    hv = c.to_hypergraph(skip_clock=False, skip_constants=False)
    h = hv.hypergraph
    assert h.n == c.num_instances + c.num_ports and h.m == c.num_nets
    assert hv.vertex_names == ["g1", "g2", "f1", "g3", "g4", "f2", "a", "b", "ck", "y"]
    expect = {}
    for n in range(len(c.net_names)):
        owners = {o for o, _ in c.pins_of_net(n)}
        expect[c.net_names[n]] = {
            c.instance_names[o] if o >= 0 else c.port_names[-1 - o] for o in owners
        }
    assert _nets_as_name_sets(hv) == expect
    # g1 has two pins on net a: one hypergraph pin
    assert expect["a"] == {"a", "g1"} and c.num_pins - h.num_pins == 1
    assert h.num_pins == c.summary()["vertex_net_pairs"]
    for v in range(h.n):
        i = hv.instance_of_vertex[v]
        assert (hv.vertex_of_instance[i] if i >= 0 else hv.vertex_of_port[-1 - i]) == v
    assert np.array_equal(hv.net_of, np.arange(c.num_nets))


def test_skipping_nets(circuit):
    c = circuit
    hv = c.to_hypergraph()  # clock (by name and by the library's clock pin) and constants out
    names = set(hv.net_names)
    assert {"ck", "clk_int", "1'b0"}.isdisjoint(names) and "n1" in names
    assert hv.net_of[c.net_id("ck")] == -1
    hv = c.to_hypergraph(skip_clock=False, skip_nets=["n1", "n2"])
    assert set(hv.net_names) == set(c.net_names) - {"n1", "n2", "1'b0"}
    # nets of one vertex only: the constant, the undriven clock, the unread output
    hv = c.to_hypergraph(skip_clock=False, skip_constants=False, max_net_size=1)
    assert set(hv.net_names) == {"1'b0", "clk_int", "n6"}
    with pytest.raises(InputError, match="unknown net 'nope'"):
        c.to_hypergraph(skip_nets=["nope"])


def test_area_weights(circuit):
    hv = circuit.to_hypergraph(weights="area")
    # smallest area (INV, 0.5) weighs 100; ports weigh 0
    assert hv.hypergraph.vwgt.tolist() == [300, 100, 900, 300, 100, 900, 0, 0, 0, 0]
    hv = circuit.to_hypergraph(weights="area", area_scale=2)
    assert hv.hypergraph.vwgt.tolist()[:6] == [3, 1, 9, 3, 1, 9]
    with pytest.raises(InputError, match="need a library"):
        parse_verilog(TEXT).to_hypergraph(weights="area")
    no_area = parse_liberty("library (x) { cell (AND2) { pin (A) { direction : input; } } }")
    with pytest.raises(InputError, match="has no area"):
        parse_verilog(TEXT, lib=no_area).to_hypergraph(weights="area")
    with pytest.raises(InputError, match="unknown weights"):
        circuit.to_hypergraph(weights="pins")


@pytest.mark.parametrize("model", ["clique", "star"])
def test_graph_views(circuit, model):
    gv = circuit.to_graph(model, skip_clock=False, skip_constants=False)
    hv = circuit.to_hypergraph(skip_clock=False, skip_constants=False)
    g = gv.graph
    expect = hv.hypergraph.to_graph(model)
    assert g.equals(expect)
    assert gv.vertex_names == hv.vertex_names
    extra = g.n - len(gv.vertex_names)
    assert extra == (hv.hypergraph.m if model == "star" else 0)
    with pytest.raises(InputError, match="unknown graph model"):
        circuit.to_graph("path")


def test_blocks_by_name_after_partition(circuit):
    from igpart import partition

    hv = circuit.to_hypergraph(skip_clock=False)
    p = partition(hv.hypergraph, 2, epsilon=0.5, seed=0)
    blocks = hv.blocks_by_name(p.parts)
    assert set(blocks) == set(circuit.instance_names)
    assert all(blocks[hv.vertex_names[v]] == p.parts[v] for v in range(hv.num_instance_vertices))
    assert set(hv.blocks_by_name(p.parts, include_ports=True)) == set(hv.vertex_names)
    with pytest.raises(InputError, match="block id per vertex"):
        hv.blocks_by_name(p.parts[:3])


# --------------------------------------------------------------------------- CLI
def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "igpart", *map(str, args)], capture_output=True, text=True
    )


def test_cli_info_and_partition(tau2015, tmp_path):
    design, lib = tau2015 / "s27" / "s27.v", tau2015 / "cells_early.lib"
    r = run("info", design, "--lib", lib, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    c = read_verilog(design, lib=lib)
    assert d["instances"] == c.num_instances and d["pins"] == c.num_pins
    assert d["hypergraph"]["vertices"] == c.num_instances + c.num_ports

    out = tmp_path / "blocks.txt"
    r = run("partition", design, "--lib", lib, "-k", 2, "-o", out, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    lines = [line.split() for line in out.read_text().splitlines()]
    assert [name for name, _ in lines] == c.instance_names + c.port_names  # instances, ports
    blocks = {name: int(b) for name, b in lines}
    assert set(blocks.values()) <= {0, 1}
    assert set(blocks.values()) == {0, 1}
    # nets spanning both blocks among their instances alone: at most the reported cut (ports
    # can only add to it)
    hv = c.to_hypergraph()
    h = hv.hypergraph
    spans = 0
    for e in range(h.m):
        vs = [v for v in h.net(e).tolist() if v < hv.num_instance_vertices]
        spans += len({blocks[hv.vertex_names[v]] for v in vs}) > 1
    assert 0 < spans <= d["cut"]


def test_cli_netlist_errors(tmp_path):
    bad = tmp_path / "bad.v"
    bad.write_text("module m (a);\n input a;\n INV g (.A(a))\nendmodule\n")
    r = run("info", bad)
    assert r.returncode == 1 and "bad.v:4:" in r.stderr and "Traceback" not in r.stderr
    good = tmp_path / "good.v"
    good.write_text("module m (a, y);\n input a; output y;\n INV g (.A(a), .ZN(y));\nendmodule\n")
    r = run("partition", good, "-k", 2, "--weights", "area", "-o", tmp_path / "o.txt")
    assert r.returncode == 1 and "area weights need a library" in r.stderr
    r = run("evaluate", good, tmp_path / "o.txt", "-k", 2)
    assert r.returncode == 1 and "o.txt: cannot read file" in r.stderr


def test_names_matching():
    import re

    from igpart.netlist.views import names_matching

    names = ["clk", "a", "b_CLK_x", "", "clock2", "nclk", "c"]
    got = names_matching(names, re.compile("clk|clock", re.I))
    assert got.tolist() == [True, False, True, False, True, True, False]
    assert names_matching([], re.compile("x")).size == 0


@pytest.mark.parametrize("parser", ["fast", "pyverilog"])
def test_a_netlist_without_instances_has_a_view(tmp_path, parser):
    """Ports only (a design whose submodules hold no cells, CRLF line ends): every port is a
    vertex and the view and the CLI work, whichever reader read it."""
    one = "module top (a, b, y);\r\n  input a, b; output y;\r\n  assign y = a;\r\nendmodule\r\n"
    two = ("module sub (p);\r\n  input p;\r\nendmodule\r\n"
           "module top (a, b);\r\n  input a, b;\r\n  sub u1 (.p(a));\r\nendmodule\r\n")  # fmt: skip
    for text in (one, two) if parser == "pyverilog" else (one,):
        path = tmp_path / "ports.v"
        path.write_bytes(text.encode())
        c = read_verilog(path, parser=parser)
        view = c.to_hypergraph()
        assert view.hypergraph.n == c.num_ports and not c.instance_names
        out = subprocess.run([sys.executable, "-m", "igpart", "info", str(path), "--parser",
                              parser], capture_output=True, text=True)  # fmt: skip
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
