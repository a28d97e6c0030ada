"""The TAU 2015 benchmarks: both Verilog readers agree, counts match the text, .ops replay."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from igpart.netlist import Circuit, read_liberty, read_ops, read_verilog

DESIGNS = [
    "c17", "c432", "c499", "c880", "c1355", "c1908", "c2670", "c3540", "c5315", "c6288", "c7552",
    "s27", "s344", "s349", "s386", "s400", "s510", "s526", "s1196", "s1494", "simple", "tv80",
    "usb_phy_ispd", "wb_dma",
]  # fmt: skip
INSTANCE_LINE = re.compile(r"^\s*(\w+)\s+(\w+)\s*\(", re.M)


@pytest.fixture(scope="module")
def lib(tau2015):
    return read_liberty(tau2015 / "cells_early.lib")


def _text_counts(path):
    """Instances, their pins and (instance, net) pairs counted from the text alone."""
    text = path.read_text()
    insts = [m for m in INSTANCE_LINE.finditer(text) if m.group(1) != "module"]
    pins = 0
    dup = 0
    for m in insts:
        body = text[m.end() : text.index(";", m.end())]
        nets = [n for n in re.findall(r"\.\w+\(\s*([^)\s]*)\s*\)", body) if n]
        pins += len(nets)
        dup += len(nets) - len(set(nets))
    return len(insts), pins, dup


@pytest.mark.parametrize("design", DESIGNS)
def test_both_readers_identical(tau2015, lib, design):
    path = tau2015 / design / f"{design}.v"
    fast = read_verilog(path, parser="fast", lib=lib)
    slow = read_verilog(path, parser="pyverilog", lib=lib)
    assert fast.difference(slow) is None
    assert fast.equals(slow)
    auto = read_verilog(path, lib=lib)
    assert auto.equals(fast)

    n_inst, n_pins, n_dup = _text_counts(path)
    assert fast.num_instances == n_inst
    # connected pins = instance pins written in the text + one pin per port
    assert fast.num_pins == n_pins + fast.num_ports
    # with the library every net has at most one driver
    assert fast.drivers_per_net().max() <= 1
    # hypergraph pins = distinct (vertex, net) pairs: an instance with two pins on one net
    # contributes one pin of the hyperedge
    hv = fast.to_hypergraph(skip_clock=False)
    assert hv.hypergraph.num_pins == fast.summary()["vertex_net_pairs"]
    assert hv.hypergraph.num_pins == fast.num_pins - n_dup
    assert hv.hypergraph.n == fast.num_instances + fast.num_ports
    assert hv.hypergraph.m == fast.num_nets


def test_tv80_counts(tau2015, lib):
    c = read_verilog(tau2015 / "tv80" / "tv80.v", lib=lib)
    assert c.num_instances == 5285
    s = c.summary()
    assert s["pins"] == 16681 and s["vertex_net_pairs"] == 16652
    # the difference is exactly the instances with two pins on one net
    twice = sum(
        len(nets) - len(set(nets))
        for nets in (
            [n for _, n, _ in c.pins_of_instance(i) if n >= 0] for i in range(c.num_instances)
        )
    )
    assert s["pins"] - s["vertex_net_pairs"] == twice == 29


def _op_counts(path):
    counts = Counter(line.split()[0] for line in path.read_text().splitlines() if line.strip())
    return counts


@pytest.mark.parametrize("design", [d for d in DESIGNS if d != "wb_dma"])
def test_ops_replay(tau2015, lib, design):
    c: Circuit = read_verilog(tau2015 / design / f"{design}.v", lib=lib)
    ops_path = tau2015 / design / f"{design}.ops"
    n_inst, n_nets = c.num_instances, c.num_nets
    batches = read_ops(ops_path)
    counts = _op_counts(ops_path)
    assert sum(len(b) for b in batches) == sum(
        counts[k]
        for k in (
            "insert_gate", "remove_gate", "repower_gate", "insert_net", "remove_net",
            "connect_pin", "disconnect_pin",
        )
    )  # fmt: skip
    for b in batches:
        r = c.apply(b.changes)
        assert len(r.inserted_instances) == sum(type(x).__name__ == "InsertGate" for x in b.changes)
    assert c.num_instances == n_inst + counts["insert_gate"] - counts["remove_gate"]
    assert c.num_nets == n_nets + counts["insert_net"] - counts["remove_net"]
    # the replayed circuit is still consistent: one driver per net, views agree
    assert c.drivers_per_net()[c.net_alive].max() <= 1
    hv = c.to_hypergraph(skip_clock=False)
    assert hv.hypergraph.num_pins == c.summary()["vertex_net_pairs"]
    assert np.all(hv.net_of[~c.net_alive] == -1)
