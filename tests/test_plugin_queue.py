"""Queued TAU 2015 changes in circuit sessions: cells missing from the loaded library are
rejected (as OpenTimer rejects them), a change found invalid at a batch boundary is reported at
the line that queued it (a Tcl script, a sourced .ops file, small or large, or stdin), and
changes still queued when a script ends are applied then."""

from __future__ import annotations

import io
import logging

import pytest

from igpart import BatchError, InputError
from igpart.cli import main
from igpart.netlist import read_verilog
from igpart.plugin import Session
from igpart.plugin.tcl import TclBridge, run_script, run_stream


@pytest.fixture()
def design(tau2015):
    logging.getLogger("igpart").setLevel(logging.ERROR)  # inferred-direction notes
    return tau2015 / "c17" / "c17.v", tau2015 / "cells_early.lib"


def header(design) -> str:
    v, lib = design
    return f"igpart::read_verilog {{{v}}} -lib {{{lib}}}\nigpart::partition -k 2\n"


# ---------------------------------------------------------------------------- library cells
def test_insert_and_repower_reject_cells_missing_from_the_library(design):
    v, lib = design
    c = read_verilog(v, lib=lib)
    s = Session(c, k=2)
    gate = c.instance_names[0]
    before, blocks = c._state(), s.blocks()
    for queue in (lambda: s.insert_gate("g1", "NO_SUCH_X1"),
                  lambda: s.repower_gate(gate, "NO_SUCH_X2")):  # fmt: skip
        queue()
        with pytest.raises(BatchError, match="is not in the library"):
            s.refine()
        assert c._state() == before and s.blocks() == blocks and s.pending == 0
    s.insert_gate("g1", "INV_X1")
    s.insert_net("n1")
    s.connect_pin("g1:Q", "n1")  # INV_X1 has A and ZN: the pin check works on the new gate
    with pytest.raises(BatchError, match="cell 'INV_X1' has no pin 'Q'"):
        s.refine()
    s.insert_gate("g1", "INV_X1")
    s.repower_gate(gate, "NAND2_X2")
    assert s.refine().new == ["g1"]
    assert c.instance_cells[c.instance_id(gate)] == "NAND2_X2"


def test_cells_are_free_without_a_library_or_with_one_that_lacks_design_cells(design, tau2015):
    v, _ = design
    s = Session(read_verilog(v), k=2)  # no library: cell names are not checked
    s.insert_gate("g1", "ANY_CELL")
    assert s.refine().new == ["g1"]
    # a library that lacks cells of the netlist is not the design's library
    simple = read_verilog(tau2015 / "simple" / "simple.v", lib=tau2015 / "cells_early.lib")
    assert "DFF_X80" in simple.instance_cells
    s = Session(simple, k=2)
    s.insert_gate("g1", "INV_X3")
    assert s.refine().new == ["g1"]


# ---------------------------------------------------------------------------- Tcl lines
@pytest.mark.tcl
def test_queued_change_error_names_its_own_line(design, tmp_path):
    script = tmp_path / "flow.tcl"
    script.write_text(header(design) + "insert_net n1\n\ninsert_gate g2 NO_SUCH_X1\n"
                      "insert_gate g3 INV_X1\nreport_timing\n")  # fmt: skip
    with pytest.raises(InputError) as info:
        run_script(script)
    e = info.value
    assert (e.file, e.line) == (str(script), 5)
    assert "insert_gate g2 NO_SUCH_X1: cell 'NO_SUCH_X1' is not in the library" in str(e)
    assert "applied by report_timing" in str(e)

    # catch sees the change's line; the session goes on without the batch
    script.write_text(header(design) + "insert_gate g1 INV_X1\ninsert_gate g1 INV_X1\n"
                      "set failed [catch {report_at -pin x} msg]\ninsert_gate g1 INV_X1\n"
                      "report_at\n")  # fmt: skip
    bridge = run_script(script)
    assert bridge.interp.getvar("failed") == 1
    assert str(bridge.interp.getvar("msg")).startswith(f"{script}:4: insert_gate g1 INV_X1: "
                                                       "instance 'g1' already exists")  # fmt: skip
    assert bridge.commands.session.block_of("g1") in (0, 1)


@pytest.mark.tcl
@pytest.mark.parametrize("filler", [0, 6000])
def test_queued_change_error_in_a_sourced_ops_file(design, tmp_path, filler):
    """Small .ops files are located by Tcl's frames, large ones (over 64 KB) by finding the
    change in the file (the same command written twice: its second writing)."""
    ops = tmp_path / "changes.ops"
    rows = [f"insert_net z{i}" for i in range(filler)]
    rows += ["insert_gate g1 INV_X1", "connect_pin g1:A z0" if filler else "insert_net z0",
             "insert_gate  g9   NO_SUCH_X1", "report_at", "insert_gate g9 NO_SUCH_X1",
             "report_at"]  # fmt: skip
    ops.write_text("\n".join(rows) + "\n")
    assert (ops.stat().st_size > 1 << 16) == bool(filler)
    script = tmp_path / "flow.tcl"
    script.write_text(header(design) + f"set r [catch {{source {{{ops}}}}} msg]\n"
                      "puts $msg\nsource " + str(ops) + "\n")  # fmt: skip
    with pytest.raises(InputError) as info:
        run_script(script)
    # the first sourcing stops at the report_at of line filler + 4 (caught), and so does the
    # second: each time the change at line filler + 3 is the invalid one
    assert (info.value.file, info.value.line) == (str(ops), filler + 3)
    assert "insert_gate g9 NO_SUCH_X1: cell 'NO_SUCH_X1' is not in the library" in str(info.value)


@pytest.mark.tcl
def test_script_ending_with_queued_changes_applies_them(design, tmp_path, caplog):
    script = tmp_path / "flow.tcl"
    script.write_text(header(design) + "insert_gate g1 INV_X1\ninsert_net n1\n"
                      "connect_pin g1:A n1\n")  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="igpart"):
        bridge = run_script(script)
    s = bridge.commands.session
    assert s.pending == 0 and s.block_of("g1") in (0, 1)
    assert "3 change(s) still queued at the end were applied" in caplog.text

    script.write_text(header(design) + "insert_gate g1 INV_X1\ninsert_net n1\n"
                      "connect_pin g1:Q n1\n")  # fmt: skip
    with pytest.raises(InputError) as info:
        run_script(script)
    assert (info.value.file, info.value.line) == (str(script), 5)
    assert "cell 'INV_X1' has no pin 'Q' (a queued change, applied at the end)" in str(info.value)

    for code, applied in ((0, True), (3, False)):
        script.write_text(header(design) + f"insert_gate g1 INV_X1\nexit {code}\n")
        bridge = run_script(script)
        assert bridge.exit_code == code
        assert bridge.commands.session.pending == (0 if applied else 1)


@pytest.mark.tcl
def test_stdin_lines_and_end_of_input(design):
    text = header(design) + "insert_gate g1 INV_X1\n\ninsert_gate g1 INV_X1\nreport_at\n"
    with pytest.raises(InputError) as info:
        run_stream(io.StringIO(text))
    assert (info.value.file, info.value.line) == ("<stdin>", 5)
    bridge = run_stream(io.StringIO(header(design) + "insert_gate g1 INV_X1\n"))
    assert bridge.commands.session.pending == 0
    assert bridge.commands.session.block_of("g1") in (0, 1)
    err = io.StringIO()
    run_stream(io.StringIO(header(design) + "insert_gate g1 NO_X\n"), interactive=True,
               out=io.StringIO(), err=err)  # fmt: skip
    assert "<stdin>:3: insert_gate g1 NO_X: cell 'NO_X' is not in the library" in err.getvalue()


@pytest.mark.tcl
def test_cli_tcl_reports_the_queued_change_line(design, tmp_path, capsys):
    script = tmp_path / "flow.tcl"
    script.write_text(header(design) + "insert_gate g2 NO_SUCH_X1\nreport_timing\n")
    assert main(["tcl", str(script)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"igpart: error: {script}:3: insert_gate g2 NO_SUCH_X1: cell 'NO_SUCH_X1' "
                   "is not in the library 'tau2015_tv80_Early' (a queued change, applied by "
                   "report_timing)"]  # fmt: skip


@pytest.mark.tcl
def test_bridge_eval_keeps_lines_of_evaluated_text(design):
    bridge = TclBridge()
    bridge.eval(header(design))
    bridge.eval("insert_net n1\ninsert_gate g1 NO_X")
    with pytest.raises(Exception, match="line 2: insert_gate g1 NO_X"):
        bridge.eval("report_at")
