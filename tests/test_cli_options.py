"""What partitioning and EDA users expect of the igpart command: -t, -v after the subcommand,
inline --config JSON, a progress line on stderr, evaluate on netlist partitions, Tcl on stdin,
and the flow/example entry points failing early and clearly."""

from __future__ import annotations

import io as pyio
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from igpart import cli
from igpart import io as gio
from igpart.generators import random_circuit
from igpart.metrics import evaluate

REPO = Path(__file__).resolve().parents[1]


def run(*args, stdin: str | None = None, cwd=None):
    return subprocess.run([sys.executable, "-m", "igpart", *map(str, args)], input=stdin,
                          capture_output=True, text=True, cwd=cwd)  # fmt: skip


@pytest.fixture
def hgr(tmp_path) -> Path:
    f = tmp_path / "c.hgr"
    gio.write_hgr(random_circuit(600, seed=3), f)
    return f


# --------------------------------------------------------------------------- options
def test_threads_reach_config_and_openmp(hgr, monkeypatch, capsys):
    import igpart.kernels as kernels

    seen = []
    real = kernels.omp_threads

    def spy(n):
        seen.append(n)
        return real(n)

    monkeypatch.setattr(kernels, "omp_threads", spy)
    assert cli.main(["partition", str(hgr), "-k", "2", "-t", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["config"]["threads"] == 1 and 1 in seen
    r = run("partition", hgr, "-k", 2, "--threads", 0)
    assert r.returncode == 2 and "must be a positive integer" in r.stderr


def test_verbose_after_the_subcommand_and_clean_json(hgr):
    for args in (("partition", hgr, "-k", 2, "--json", "-v"), ("-v", "partition", hgr, "-k", 2,
                                                                "--json")):  # fmt: skip
        r = run(*args)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["k"] == 2  # stdout is the JSON object alone
        assert f"igpart: reading {hgr}" in r.stderr and "igpart: partitioning" in r.stderr
    quiet = run("partition", hgr, "-k", 2, "--json")
    assert quiet.returncode == 0 and quiet.stderr == ""  # not a terminal, no -v: nothing


def test_one_shot_commands_end_at_once_with_complete_outputs(hgr, tmp_path):
    """The command ends a partition's process with os._exit once its outputs are flushed: the
    printed result, the partition file and the exit status equal those of the ordinary exit
    (IGPART_FAST_EXIT=0), for a success and for an error."""
    import os

    outs = {}
    for mode in ("1", "0"):
        env = dict(os.environ, IGPART_FAST_EXIT=mode)
        out = tmp_path / f"p{mode}.part"
        r = subprocess.run([sys.executable, "-m", "igpart", "partition", str(hgr), "-k", "4",
                            "--seed", "3", "--json", "-o", str(out)], capture_output=True,
                           text=True, env=env)  # fmt: skip
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        parts = gio.read_partition(out, k=4)
        m = evaluate(gio.read_hgr(hgr), parts, 4, 0.03)
        assert m["cut"] == d["cut"] and m["balanced"]
        bad = subprocess.run([sys.executable, "-m", "igpart", "partition",
                              str(tmp_path / "missing.hgr"), "-k", "2"], capture_output=True,
                             text=True, env=env)  # fmt: skip
        assert bad.returncode == 1 and "igpart: error:" in bad.stderr
        outs[mode] = (d["cut"], parts.tolist(), bad.stderr)
    assert outs["1"] == outs["0"]


def test_inline_json_config(hgr, tmp_path):
    r = run("partition", hgr, "-k", 2, "--json", "--config", '{"refinement": "jet"}')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["config"]["refinement"] == "jet"
    f = tmp_path / "cfg.json"
    f.write_text('{"refinement": "fm"}')
    r = run("partition", hgr, "-k", 2, "--json", "--config", f)
    assert json.loads(r.stdout)["config"]["refinement"] == "fm"
    for bad, words in (('{"refinement": "je"}', "refinement must be one of"),
                       ('{"nope": 1}', "nope"), ('{"refinement": ', "invalid JSON")):  # fmt: skip
        r = run("partition", hgr, "-k", 2, "--config", bad)
        assert r.returncode == 1 and words in r.stderr and len(r.stderr.splitlines()) == 1


class _Tty(pyio.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_on_a_terminal_only():
    tty = _Tty()
    p = cli.Progress(stream=tty, delay=0.0)
    p.phase("partitioning x.hgr (k = 4)")
    p.draw()
    assert "igpart: partitioning x.hgr (k = 4) ... " in tty.getvalue()
    p.close()
    assert tty.getvalue().endswith("\r\x1b[K")  # erased before the result is printed
    written = tty.getvalue()
    p.draw()
    assert tty.getvalue() == written  # nothing after close
    early = _Tty()
    q = cli.Progress(stream=early, delay=3600.0)
    q.phase("reading")
    q.draw()
    q.close()
    assert early.getvalue() == ""  # short runs show nothing
    pipe = pyio.StringIO()
    r = cli.Progress(stream=pipe, delay=0.0)
    r.phase("reading")
    r.close()
    assert pipe.getvalue() == "" and not r.live


# --------------------------------------------------------------------------- evaluate
def test_evaluate_exits_3_when_unbalanced(hgr, tmp_path):
    part = tmp_path / "p"
    part.write_text("0\n" * 600)
    r = run("evaluate", hgr, part, "-k", 2, "--json")
    assert r.returncode == 3 and json.loads(r.stdout)["balanced"] is False


def test_evaluate_reads_the_netlist_partition_partition_wrote(tau2015, tmp_path):
    design, lib = tau2015 / "s27" / "s27.v", tau2015 / "cells_early.lib"
    out = tmp_path / "blocks.txt"
    p = run("partition", design, "--lib", lib, "-k", 2, "-o", out, "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    r = run("evaluate", design, out, "--lib", lib, "-k", 2, "--json")
    assert r.returncode == 0, r.stderr
    e = json.loads(r.stdout)
    assert (e["cut"], e["km1"], e["block_weights"], e["balanced"], e["ports"]) == (
        d["cut"], d["km1"], d["block_weights"], True, "placed")  # fmt: skip

    # instances alone (another tool's file): metrics of the instances' hypergraph, recomputed
    from igpart.netlist import read_verilog

    hv = read_verilog(design, lib=lib).to_hypergraph()
    ni = hv.num_instance_vertices
    lines = out.read_text().splitlines()
    inst = tmp_path / "inst.txt"
    inst.write_text("\n".join(lines[:ni]) + "\n")
    r = run("evaluate", design, inst, "--lib", lib, "-k", 2, "--json")
    e = json.loads(r.stdout)
    h = hv.hypergraph
    parts = np.array([int(x.split()[1]) for x in lines[:ni]])
    nets = [[v for v in h.net(i).tolist() if v < ni] for i in range(h.m)]
    from igpart import Hypergraph

    sub = Hypergraph.from_nets(nets, n=ni)
    expect = evaluate(sub, parts, 2, 0.03)
    assert e["cut"] == expect["cut"] and e["km1"] == expect["km1"]
    assert r.returncode == (0 if expect["balanced"] else 3)
    assert e["ports"].startswith("left out")

    def err(text: str) -> str:
        bad = tmp_path / "bad.txt"
        bad.write_text(text)
        r = run("evaluate", design, bad, "--lib", lib, "-k", 2)
        assert r.returncode == 1 and "Traceback" not in r.stderr
        return r.stderr

    body = "\n".join(lines) + "\n"
    first = lines[0].split()[0]
    assert "bad.txt:3: 'nosuch' is no instance or port" in err(
        "\n".join(lines[:2] + ["nosuch 0"] + lines[2:]))  # fmt: skip
    assert f"bad.txt:{len(lines) + 1}: '{first}' has a second line" in err(
        body + f"{first} 1\n" * 2)  # fmt: skip
    assert "bad.txt:1: block 2 is not in 0..1" in err(f"{first} 2\n" + "\n".join(lines[1:]))
    assert "bad.txt:2: block 'x' is not an integer" in err(
        lines[0] + f"\n{lines[1].split()[0]} x\n" + "\n".join(lines[2:]))  # fmt: skip
    assert "bad.txt:1: expected 'name block'" in err("a b c\n" + body)
    assert "has no line" in err("\n".join(lines[1:]))
    assert "all or none" in err("\n".join(lines[:-1]))


# --------------------------------------------------------------------------- tcl on stdin
def test_tcl_reads_commands_from_stdin(tau2015, tmp_path):
    script = (f"read_celllib -min {tau2015 / 'cells_early.lib'}\n"
              f"read_verilog {tau2015 / 's27' / 's27.v'}\n"
              "set r [igpart::partition -k 2]\nputs \"cut [dict get $r cut]\"\n"
              "puts [llength [igpart::blocks]]\nexit 5\nputs never\n")  # fmt: skip
    r = run("tcl", stdin=script)
    assert r.returncode == 5, r.stderr
    assert r.stdout.splitlines()[1] == "70" and "never" not in r.stdout
    r = run("tcl", "-", stdin="puts one\nif {1} {\n  no_such_command\n}\nputs two\n")
    assert r.returncode == 1 and r.stdout == "one\n"
    assert "<stdin>:2: invalid command name \"no_such_command\"" in r.stderr
    r = run("tcl", stdin="puts {open\n")
    assert r.returncode == 1 and "<stdin>:1: the input ends inside a command" in r.stderr


@pytest.mark.tcl
def test_interactive_tcl_prompts_prints_and_goes_on_after_errors():
    from igpart.plugin.tcl import run_stream

    out, err = pyio.StringIO(), pyio.StringIO()
    stdin = pyio.StringIO("set a 4\nbogus\nexpr {$a *\n 2}\nigpart::pending\n")
    bridge = run_stream(stdin, interactive=True, out=out, err=err)
    assert bridge.exit_code is None
    assert out.getvalue() == "igpart% 4\nigpart% igpart% > 8\nigpart% igpart% \n"
    assert 'error: invalid command name "bogus"' in err.getvalue()
    assert "error: no session yet" in err.getvalue()


# --------------------------------------------------------------------------- entry points
def test_json_client_without_arguments_prints_usage():
    r = subprocess.run([sys.executable, str(REPO / "examples" / "json_client.py")],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 1 and r.stderr.startswith("usage: ") and "Traceback" not in r.stderr


def test_timing_opt_plot_checks_matplotlib_first(tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None; sys.argv[0] = 'timing_opt.py'; "
            "sys.path.insert(0, sys.argv[1]); import timing_opt; "
            "sys.exit(timing_opt.main(['--generate', '200', '--batches', '2', '--csv', "
            "sys.argv[2], '--plot', sys.argv[3], '--no-progress']))")  # fmt: skip
    csv = tmp_path / "t.csv"
    r = subprocess.run([sys.executable, "-c", code, str(REPO / "flows"), str(csv),
                        str(tmp_path / "t.png")], capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 1 and "--plot needs matplotlib" in r.stderr
    assert not csv.exists()  # nothing ran
