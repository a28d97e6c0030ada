"""Plugin commands a tool's user reaches for: blocks, write_partition, help, and the OpenTimer
shell's names next to the igpart:: ones (Tcl and JSON lines)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from igpart import io as gio
from igpart.errors import InputError
from igpart.generators import random_circuit
from igpart.plugin.commands import Commands


@pytest.fixture
def hgr(tmp_path):
    f = tmp_path / "c.hgr"
    gio.write_hgr(random_circuit(300, seed=5), f)
    return f


def test_blocks_and_write_partition_by_id(hgr, tmp_path):
    c = Commands()
    c.call("read", str(hgr))
    c.call("partition", k=3)
    c.call("insert_vertex")
    c.call("refine")
    v = 300  # the new vertex (no id was free to recycle)
    blocks = c.call("blocks")
    parts = c.session.parts
    assert blocks == parts.tolist() and len(blocks) == 301 and blocks[v] >= 0
    out = tmp_path / "p.txt"
    assert c.call("write_partition", str(out)) == {"path": str(out), "lines": 301}
    assert np.array_equal(gio.read_partition(out, n=301, k=3), parts)
    assert [c.call("block_of", i) for i in (0, 7, v)] == [blocks[0], blocks[7], blocks[v]]


def test_blocks_by_name_round_trip_through_evaluate(tau2015, tmp_path):
    design, lib = tau2015 / "s27" / "s27.v", tau2015 / "cells_early.lib"
    c = Commands()
    assert c.call("read_celllib", min=str(lib)) == {"library": "tau2015_tv80_Early", "cells": 105}
    c.call("read_sdc", "constraints.sdc")  # accepted, ignored
    summary = c.call("read_verilog", str(design))  # with read_celllib's library
    assert summary["library"] == "tau2015_tv80_Early"
    metrics = c.call("partition", k=2)
    blocks = c.call("blocks")
    assert blocks["inst_19"] == c.call("block_of", "inst_19")
    assert len(blocks) == summary["instances"] + summary["ports"]
    out = tmp_path / "b.txt"
    c.call("write_partition", str(out))
    r = subprocess.run([sys.executable, "-m", "igpart", "evaluate", str(design), str(out), "-k",
                        "2", "--lib", str(lib), "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    e = json.loads(r.stdout)
    assert (e["cut"], e["block_weights"]) == (metrics["cut"], metrics["block_weights"])
    assert c.call("update_timing") == "" and c.call("report_slew", "-pin", "x") == ""
    with pytest.raises(InputError, match="give one library file"):
        c.call("read_celllib")


def test_help_lists_every_command_with_its_parameters():
    c = Commands()
    h = c.call("help")
    assert set(h) == set(c.names())
    assert h["partition"].startswith("[k=2] [epsilon=0.03] [objective=cut]")
    assert h["write_partition"].startswith("path -- ")
    assert h["insert_gate"].startswith("name cell -- ")
    assert h["connect_pin"].startswith("pin net -- ")
    assert h["read_spef"].startswith("[args...] -- a batch boundary")
    assert c.call("help", "blocks") == {"blocks": h["blocks"]}
    with pytest.raises(InputError, match="unknown command 'nope'"):
        c.call("help", "nope")


@pytest.mark.tcl
def test_tcl_names(tau2015, tmp_path):
    from igpart.plugin.tcl import TclBridge

    b = TclBridge()
    b.eval(f"read_celllib -max {{{tau2015 / 'cells_early.lib'}}}")
    b.eval(f"read_verilog {{{tau2015 / 's27' / 's27.v'}}}")
    b.eval("igpart::partition -k 2")
    flat = b.interp.splitlist(b.eval("igpart::blocks"))
    assert len(flat) == 70 and int(b.eval("igpart::block_of inst_19")) == int(
        flat[list(flat).index("inst_19") + 1])  # fmt: skip
    out = tmp_path / "b.txt"
    assert b.eval(f"dict get [igpart::write_partition {{{out}}}] lines") == "35"
    assert "partition" in b.interp.splitlist(b.eval("help"))
    assert "write_partition" in b.eval("igpart::help write_partition")
    b.eval("update_timing")


def test_json_lines_blocks_and_help(hgr):
    requests = [{"id": 1, "method": "read", "params": [str(hgr)]},
                {"id": 2, "method": "partition", "params": {"k": 2}},
                {"id": 3, "method": "blocks"}, {"id": 4, "method": "help"},
                {"id": 5, "method": "help", "params": ["nope"]}]  # fmt: skip
    r = subprocess.run([sys.executable, "-m", "igpart", "serve"], capture_output=True, text=True,
                       input="".join(json.dumps(q) + "\n" for q in requests))  # fmt: skip
    assert r.returncode == 0, r.stderr
    replies = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(replies[2]["result"]) == 300 and set(replies[2]["result"]) == {0, 1}
    assert "blocks" in replies[3]["result"] and "read_celllib" in replies[3]["result"]
    assert replies[4]["ok"] is False and "unknown command 'nope'" in replies[4]["error"]["message"]
