"""The igpart command as a user runs it (subprocess): output, exit codes, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from igpart import io, metrics


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "igpart", *map(str, args)], capture_output=True, text=True, cwd=cwd
    )


def test_info_ibm01(ispd98):
    r = run("info", ispd98 / "ibm01.hgr", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["vertices"], d["nets"], d["pins"]) == (12752, 14111, 50566)
    r = run("info", ispd98 / "ibm01.weight.hgr")
    assert r.returncode == 0 and "4230016" in r.stdout


def test_partition_json_and_evaluate(ispd98, tmp_path):
    out = tmp_path / "ibm01.part.2"
    r = run("partition", ispd98 / "ibm01.hgr", "-k", 2, "--json", "-o", out)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for key in ("cut", "km1", "imbalance", "k", "backend", "seconds"):
        assert key in d
    assert d["k"] == 2 and d["imbalance"] <= 0.03
    h = io.read_hgr(ispd98 / "ibm01.hgr")
    parts = io.read_partition(out, n=h.n, k=2)
    assert metrics.cut(h, parts, 2) == d["cut"]
    r = run("evaluate", ispd98 / "ibm01.hgr", out, "-k", 2, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["cut"] == d["cut"]


def test_default_output_name_follows_hmetis(tmp_path):
    from igpart.generators import random_circuit

    f = tmp_path / "c.hgr"
    io.write_hgr(random_circuit(500, seed=2), f)
    r = run("partition", f, "-k", 3)
    assert r.returncode == 0, r.stderr
    parts = io.read_partition(tmp_path / "c.hgr.part.3", n=500, k=3)
    assert set(np.unique(parts)) == {0, 1, 2}


def test_graph_input(tmp_path):
    f = tmp_path / "g.graph"
    f.write_text("4 4\n2 4\n1 3\n2 4\n1 3\n")
    r = run("partition", f, "-k", 2, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["cut"] == 2


def test_demo():
    r = run("demo", "--vertices", 3000, "-k", 3)
    assert r.returncode == 0, r.stderr
    assert "balanced" in r.stdout and "match" in r.stdout


def test_errors_are_one_line_without_traceback(tmp_path):
    bad = tmp_path / "bad.hgr"
    bad.write_text("2 3\n1 2\n1 9\n")
    for args in (
        ("info", bad),
        ("partition", bad, "-k", 2),
        ("info", tmp_path / "missing.hgr"),
        ("info", tmp_path / "x.unknown"),
        ("partition", bad.parent / "nope.hgr", "-k", 2),
    ):
        r = run(*args)
        assert r.returncode != 0
        assert "Traceback" not in r.stderr
        assert r.stderr.startswith("igpart: error:") and r.stderr.count("\n") == 1, r.stderr
    r = run("info", bad)
    assert f"{bad}:3:" in r.stderr
    good = tmp_path / "g.hgr"
    good.write_text("1 3\n1 2 3\n")
    r = run("partition", good, "-k", 5)
    assert r.returncode != 0 and "exceeds the number of vertices" in r.stderr
    assert "Traceback" not in r.stderr


def test_closed_pipe_is_quiet():
    """`igpart ... | head`: no error message when the reader closes the pipe early."""
    import subprocess
    import sys

    # `true` exits at once, long before the demo writes its result: the write always fails
    cmd = f"{sys.executable} -m igpart demo --json | true"
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert "error" not in out.stderr.lower() and "Traceback" not in out.stderr


def test_parser_choices_equal_the_netlist_readers():
    from igpart import cli
    from igpart.netlist.verilog import PARSERS

    assert cli.PARSERS == PARSERS


def test_a_partition_command_imports_neither_the_netlist_nor_dask_side():
    """Building the command line's parser and importing the partitioner leave the netlist
    package and igpart.distributed unimported (each command would pay for them)."""
    code = ("import sys, igpart.cli as c, igpart.partitioner.api; c.build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith(('igpart.netlist', "
            "'igpart.distributed'))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]", r.stdout
