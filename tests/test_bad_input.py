"""Bad input found in review: each gives a clear one-line error and changes nothing."""

from __future__ import annotations

import pytest

import igpart
from igpart import InputError, write_hgr
from igpart.bench import run_benchmark
from igpart.cli import main
from igpart.generators import random_circuit
from igpart.netlist import InsertGate, parse_verilog, read_verilog
from igpart.plugin import Session

from .test_cli import run


def _one_line_error(r, *needles):
    assert r.returncode == 1, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("igpart: error: "), r.stderr
    assert "Traceback" not in r.stderr
    for s in needles:
        assert s in lines[0]


def test_demo_too_few_vertices():
    for n in (0, 1, -5):
        _one_line_error(run("demo", "--vertices", n), "--vertices", str(n))


def test_output_error_names_the_file(tmp_path):
    src = tmp_path / "a.hgr"
    write_hgr(random_circuit(50, seed=1), src)
    out = tmp_path / "missing_dir" / "o.part"
    r = run("partition", src, "-k", 2, "-o", out)
    _one_line_error(r, f"{out}: No such file or directory")
    assert not out.exists()


def test_bench_rejects_bad_epsilon_up_front(tmp_path, capsys):
    src = tmp_path / "a.hgr"
    write_hgr(random_circuit(50, seed=1), src)
    for eps in (-1.0, float("nan"), float("inf"), "x"):
        with pytest.raises(InputError, match="epsilon must be a non-negative number"):
            run_benchmark([src], [2], epsilon=eps, peers=[], progress=False)
    assert main(["bench", str(src), "-k", "2", "-e", "-1", "--no-progress", "--peers"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "epsilon" in captured.err


def test_verilog_not_utf8(tmp_path):
    path = tmp_path / "bin.v"
    path.write_bytes(b"module top(a);\ninput a;\n\xff\xfe endmodule\n")
    for parser in ("auto", "fast"):
        with pytest.raises(InputError, match=r"bin.v:3: not UTF-8 text \(byte 0xff\)"):
            read_verilog(path, parser=parser)
    _one_line_error(run("info", path), "bin.v:3")


def test_apply_needs_records():
    c = parse_verilog(
        "module top(a, y); input a; output y; INV_X1 u1(.A(a), .ZN(y)); endmodule\n"
    )
    before = c._state()
    for bad in (None, 3, "insert_gate x y"):
        with pytest.raises(InputError, match="apply needs an iterable of change records"):
            c.apply(bad)
    assert c._state() == before


def test_revert_last():
    c = parse_verilog(
        "module top(a, y); input a; output y; INV_X1 u1(.A(a), .ZN(y)); endmodule\n"
    )
    before = c._state()
    c.apply([InsertGate("u2", "INV_X1")])
    assert c._state() != before
    c.revert_last()
    assert c._state() == before
    with pytest.raises(InputError, match="nothing to revert"):
        c.revert_last()


def _circuit(tau2015):
    d = tau2015 / "c17"
    return read_verilog(d / "c17.v", lib=tau2015 / "cells_early.lib")


def test_session_rejected_batch_leaves_circuit_unchanged(tau2015):
    """The circuit accepts a batch the engine rejects (a negative weight queued at id level):
    neither changes, and the session goes on."""
    c = _circuit(tau2015)
    s = Session(c, k=2)
    before, blocks, cut = c._state(), s.blocks(), s.metrics()["cut"]
    s.insert_gate("gx", "NAND2_X1")
    s.connect_pin("gx:A1", c.net_names[0])
    s.set_vertex_weight(0, -3)
    with pytest.raises(InputError, match="weight must be non-negative"):
        s.refine()
    assert c._state() == before
    assert s.blocks() == blocks and s.metrics()["cut"] == cut and s.pending == 0
    with pytest.raises(InputError, match="unknown cell or port 'gx'"):
        s.block_of("gx")
    # the same changes without the bad weight go through
    s.insert_gate("gx", "NAND2_X1")
    s.connect_pin("gx:A1", c.net_names[0])
    r = s.refine()
    assert r.new == ["gx"] and s.block_of("gx") in (0, 1)


_LIB = """library (t) {
  cell (INV_X1) { area : 1.0; pin (A) { direction : input; } pin (ZN) { direction : output; } }
  cell (BUF_X2) { area : 2.0; pin (A) { direction : input; } pin (Z) { direction : output; } }
}
"""


def test_session_untranslatable_batch_leaves_circuit_unchanged(tmp_path):
    """With area weights a new cell the library lacks has no weight: the refine fails before
    the engine sees the batch, and the circuit does not keep the gate either."""
    lib = tmp_path / "t.lib"
    lib.write_text(_LIB)
    c = parse_verilog(
        "module top(a, y); input a; output y; wire w;\n"
        "INV_X1 u1(.A(a), .ZN(w)); BUF_X2 u2(.A(w), .Z(y)); INV_X1 u3(.A(w), .ZN());\n"
        "endmodule\n",
        lib=lib,
    )
    s = Session(c, k=2, weights="area", epsilon=1.0)
    before, blocks = c._state(), s.blocks()
    s.insert_gate("gx", "NO_SUCH_CELL")
    with pytest.raises(InputError, match="NO_SUCH_CELL"):
        s.refine()
    assert c._state() == before and s.blocks() == blocks
    s.insert_gate("gx", "BUF_X2")
    assert s.refine().new == ["gx"]


def test_server_deeply_nested_request_is_malformed():
    from igpart.plugin import JsonLinesServer

    srv = JsonLinesServer()
    r = srv.handle("[" * 200_000 + "]" * 200_000)
    assert not r["ok"] and r["error"] == {
        "type": "InputError", "message": "malformed request: JSON nested too deeply"
    }
    assert srv.handle('{"id": 1, "method": "commands"}')["ok"]


def test_max_net_size_must_be_positive(tau2015, tmp_path):
    c = _circuit(tau2015)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InputError, match="max_net_size must be a positive integer"):
            c.to_hypergraph(max_net_size=bad)
    assert c.to_hypergraph(max_net_size=1).hypergraph.m == 0  # c17 has no 1-pin nets
    v = tau2015 / "c17" / "c17.v"
    r = run("partition", v, "--lib", tau2015 / "cells_early.lib", "-k", 2, "--max-net-size", 0,
            "-o", tmp_path / "b.txt")
    _one_line_error(r, "max_net_size must be a positive integer, got 0")
    assert not (tmp_path / "b.txt").exists()


def test_evaluate_k_must_be_positive(tmp_path):
    from igpart.io import read_partition

    src, part = tmp_path / "a.hgr", tmp_path / "a.part"
    write_hgr(random_circuit(50, seed=1), src)
    part.write_text("0\n" * 50)
    for k in (0, -3):
        with pytest.raises(InputError, match=f"k must be a positive integer, got {k}"):
            read_partition(part, n=50, k=k)
        _one_line_error(run("evaluate", src, part, "-k", k), "k must be a positive integer")
    assert run("evaluate", src, part, "-k", 1).returncode == 0


def test_serve_removes_its_socket_on_sigterm(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    path = tmp_path / "s.sock"
    proc = subprocess.Popen([sys.executable, "-m", "igpart", "serve", "--socket", str(path)],
                            stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):
            if path.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert path.exists()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in err
    assert not path.exists()  # a restart on the same path works


def test_session_id_arguments_must_be_integers():
    import numpy as np

    from igpart import Hypergraph

    s = Session(Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]]), k=2, parts=[0, 0, 1, 1])
    for call, what in [
        (lambda: s.insert_pin("a", 0), "v"),
        (lambda: s.delete_pin(0, 1.5), "e"),
        (lambda: s.insert_vertex(weight="2"), "weight"),
        (lambda: s.insert_edge(0, None), "v"),
        (lambda: s.delete_edge(True, 1), "u"),
        (lambda: s.set_net_weight(0, 2.5), "weight"),
    ]:
        with pytest.raises(InputError, match=f"^{what} must be an integer, got "):
            call()
    assert s.pending == 0
    s.insert_pin(np.int64(0), np.int32(2))
    assert s.refine().cut == s.metrics()["cut"]


def test_tcl_exit_ends_the_script_with_its_status(tmp_path):
    script = tmp_path / "e.tcl"
    script.write_text('puts before\nproc f {} { exit 4 }\nf\nputs after\n')
    r = run("tcl", script)
    assert (r.returncode, r.stdout, r.stderr) == (4, "before\n", "")
    script.write_text("puts ok\nexit\n")
    assert run("tcl", script).returncode == 0
    script.write_text("exit foo\n")
    _one_line_error(run("tcl", script), 'e.tcl:1: expected integer but got "foo"')


def test_timing_opt_flow_bad_input(tmp_path, capsys):
    from .test_timing_opt import load_flow

    flow = load_flow()
    base = ["--batches", "2", "--batch-size", "10", "--no-progress"]
    assert flow.main(["--generate", "0", *base, "--csv", str(tmp_path / "a.csv")]) == 1
    assert "at least 2 vertices" in capsys.readouterr().err
    bad = tmp_path / "missing" / "x.csv"
    assert flow.main(["--generate", "500", *base, "--csv", str(bad)]) == 1
    assert f"timing_opt: error: {bad}: No such file or directory" in capsys.readouterr().err
    with pytest.raises(InputError, match="at least 2 vertices"):
        random_circuit(1)


def test_bench_plot_needs_a_peer(tmp_path, capsys):
    from igpart.bench import plot

    src, fig = tmp_path / "a.hgr", tmp_path / "r.png"
    write_hgr(random_circuit(60, seed=1), src)
    argv = ["bench", str(src), "-k", "2", "--no-progress", "--peers", "--plot", str(fig)]
    assert main(argv) == 1
    assert "needs at least one of --peers" in capsys.readouterr().err and not fig.exists()
    result = run_benchmark([src], [2], peers=[], progress=False)
    with pytest.raises(InputError, match="no peer ran"):
        plot(result, fig)
    assert not fig.exists()


def test_session_view_options_need_a_circuit():
    from igpart import Hypergraph

    h = Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]])
    for kw in ({"weights": "area"}, {"weights": "x"}, {"max_net_size": 3}):
        with pytest.raises(InputError, match="apply to circuit sessions"):
            Session(h, k=2, **kw)
    assert Session(h, k=2, weights="unit").k == 2


def test_serve_replaces_only_a_stale_socket(tmp_path):
    import json
    import socket
    import subprocess
    import sys
    import time

    stale = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind(str(stale))  # bound, never listening, then closed: what a killed server leaves
    assert stale.exists()
    proc = subprocess.Popen([sys.executable, "-m", "igpart", "serve", "--socket", str(stale)],
                            stderr=subprocess.PIPE, text=True)
    try:
        resp = None
        for _ in range(600):
            if proc.poll() is not None:
                break
            try:
                with socket.socket(socket.AF_UNIX) as c, c.makefile("rwb") as f:
                    c.connect(str(stale))
                    f.write(b'{"id": 1, "method": "shutdown"}\n')
                    f.flush()
                    resp = json.loads(f.readline())
                break
            except (ConnectionRefusedError, FileNotFoundError):
                time.sleep(0.05)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert resp == {"id": 1, "ok": True, "result": "shutting down"}, err
    assert proc.returncode == 0 and not stale.exists()
    plain = tmp_path / "file.sock"
    plain.write_text("not a socket")
    _one_line_error(run("serve", "--socket", plain), "socket path already exists")
    assert plain.read_text() == "not a socket"


#: Bad values of the Jet and recursive-bisection options (and the wrong types a JSON file can
#: hold), with the text the error must show after ``config.<field> must be``.
BAD_CONFIGS = [
    ({"refinement": "bogus"}, "one of auto, fm, jet, jet+fm", "'bogus'"),
    ({"refinement": None}, "one of auto, fm, jet, jet+fm", "None"),
    ({"jet_iterations": -1}, "a non-negative integer", "-1"),
    ({"jet_iterations": 2.5}, "a non-negative integer", "2.5"),
    ({"jet_patience": 0}, "a positive integer", "0"),
    ({"jet_patience": True}, "a positive integer", "True"),
    ({"graph_jet_patience": 0}, "a positive integer", "0"),
    ({"graph_jet_min_improvement": "x"}, "a number in [0, 1)", "'x'"),
    ({"graph_jet_fm_max_vertices": -1}, "a non-negative integer", "-1"),
    ({"graph_jet_min_vertices": 1.5}, "a non-negative integer", "1.5"),
    ({"jet_negative_gain_fine": -0.5}, "a non-negative number", "-0.5"),
    ({"jet_negative_gain_coarse": -1}, "a non-negative number", "-1"),
    ({"jet_negative_gain_coarse": "x"}, "a non-negative number", "'x'"),
    ({"graph_jet_negative_gain_coarse": -0.1}, "a non-negative number", "-0.1"),
    ({"graph_jet_negative_gain_coarse": float("nan")}, "a non-negative number", "nan"),
    ({"jet_negative_gain_fine": None}, "a non-negative number", "None"),
    ({"jet_negative_gain_fine": float("inf")}, "a non-negative number", "inf"),
    ({"jet_afterburner_max_net_size": 0}, "a positive integer", "0"),
    ({"jet_fm_max_pins": -5}, "-1 (the backend's default) or a non-negative integer", "-5"),
    ({"jet_min_pins": "10"}, "-1 (the backend's default) or a non-negative integer", "'10'"),
    ({"host_levels_below": -1}, "a non-negative integer", "-1"),
    ({"host_levels_below": 2.5}, "a non-negative integer", "2.5"),
    ({"initial": "bogus"}, "one of auto, metis, mtkahypar, all, rb, rb+metis", "'bogus'"),
    ({"initial": 2}, "one of auto, metis", "2"),
    ({"initial_rb_runs": 0}, "-1 (the backend's default) or a positive integer", "0"),
    ({"initial_rb_runs": -3}, "-1 (the backend's default) or a positive integer", "-3"),
    ({"initial_rb_seeds": 0}, "a positive integer", "0"),
    ({"initial_rb_seeds": 1.5}, "a positive integer", "1.5"),
    ({"fm": "no"}, "true or false", "'no'"),
    ({"min_shrink": "a"}, "a number in [0, 1)", "'a'"),
]


@pytest.mark.parametrize("bad,must,value", BAD_CONFIGS)
def test_bad_config_values_name_the_field_and_value(bad, must, value):
    """igpart.partition with a dict or a Config: InputError 'config.<field> must be ..., got
    <value>', and the Config object passed in is left as it was."""
    import dataclasses

    from igpart import Config, Hypergraph, partition

    (name,) = bad
    h = Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]])
    expected = f"config.{name} must be {must}"
    with pytest.raises(InputError) as exc:
        partition(h, 2, config=bad)
    assert expected in str(exc.value) and str(exc.value).endswith(f"got {value}")
    cfg = Config(**bad)  # the dataclass takes anything; validation happens on use
    before = dataclasses.asdict(cfg)
    with pytest.raises(InputError, match=f"config.{name} must be"):
        partition(h, 2, config=cfg)
    assert dataclasses.asdict(cfg) == before


def test_bad_config_values_on_the_command_line(tmp_path):
    """igpart partition --config: one line naming the file, the field and the value, exit 1, no
    partition file written."""
    import json

    src = tmp_path / "a.hgr"
    write_hgr(random_circuit(60, seed=1), src)
    out = tmp_path / "a.part"
    for bad, must, value in BAD_CONFIGS:
        if any(isinstance(v, float) and v == float("inf") for v in bad.values()):
            continue  # not JSON
        cfg = tmp_path / "cfg.json"
        cfg.write_text(json.dumps(bad))
        (name,) = bad
        r = run("partition", src, "-k", 2, "--config", cfg, "-o", out)
        _one_line_error(r, f"{cfg}: config.{name} must be {must}", f"got {value}")
        assert not out.exists()
    # zero Jet iterations is valid: the Jet levels are only rebalanced
    cfg.write_text(json.dumps({"refinement": "jet", "jet_iterations": 0}))
    r = run("partition", src, "-k", 2, "--config", cfg, "-o", out, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["balanced"] and out.exists()


def test_weights_from_arrays_that_overflow_int64_are_rejected():
    """The readers' int64 total checks hold for hypergraphs built from arrays too: a total that
    would wrap, a uint64 or float weight above 2**63 - 1, net weights whose km1 sum would wrap."""
    import numpy as np

    eptr, eind = np.array([0, 2]), np.array([0, 1])
    with pytest.raises(InputError, match="vertex weights sum to more than 2\\*\\*63 - 1"):
        igpart.Hypergraph(eptr, eind, 2, vwgt=[2**62, 2**62])
    assert igpart.Hypergraph(eptr, eind, 2, vwgt=[2**62, 2**62 - 1]).total_weight == 2**63 - 1
    with pytest.raises(InputError, match="exceeds 2\\*\\*63 - 1"):
        igpart.Hypergraph(eptr, eind, 2, vwgt=np.array([2**63 + 5, 1], dtype=np.uint64))
    with pytest.raises(InputError, match="exceeds 2\\*\\*63 - 1"):
        igpart.Hypergraph(eptr, eind, 2, vwgt=[1e30, 1.0])
    with pytest.raises(InputError, match="km1 would overflow"):
        igpart.Hypergraph(np.array([0, 4]), np.arange(4), 4, ewgt=[2**61])
    with pytest.raises(InputError, match="vertex weights"):
        igpart.Graph.from_edges([0], [1], vwgt=[2**62, 2**62])


def test_devices_are_refused_unread(capsys):
    """/dev/zero would be read without end: a character device is refused by name."""
    from igpart.cli import main

    with pytest.raises(InputError, match="not a regular file"):
        igpart.read_hgr("/dev/zero")
    assert main(["info", "/dev/zero", "--format", "hgr"]) == 1
    err = capsys.readouterr().err
    assert err == "igpart: error: /dev/zero: not a regular file (a character device)\n"


def test_seed_out_of_range_is_an_input_error():
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2]])
    for seed in (2**63 - 1, -(2**62)):
        with pytest.raises(InputError, match="seed must lie within"):
            igpart.partition(h, 2, seed=seed)
    assert igpart.partition(h, 2, seed=2**62 - 1).balanced


def test_with_weights_checks_the_km1_total():
    import numpy as np

    h = igpart.Hypergraph(np.array([0, 4]), np.arange(4), 4)
    with pytest.raises(InputError, match="km1 would overflow"):
        h.with_weights(ewgt=[2**61])
    assert h.with_weights(ewgt=[2**61 - 1]).ewgt[0] == 2**61 - 1
