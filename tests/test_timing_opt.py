"""flows/timing_opt.py on a small generated circuit: CSV rows, plot, comparison rows."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def load_flow():
    spec = importlib.util.spec_from_file_location("timing_opt", REPO / "flows" / "timing_opt.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_flow_writes_csv_and_plot(tmp_path, capsys):
    flow = load_flow()
    out, fig = tmp_path / "t.csv", tmp_path / "t.png"
    argv = ["--generate", "3000", "--batches", "7", "--batch-size", "30", "-k", "3",
            "--compare-every", "3", "--csv", str(out), "--plot", str(fig), "--no-progress"]
    assert flow.main(argv) == 0
    rows = list(csv.DictReader(out.open()))
    assert [int(r["iteration"]) for r in rows] == list(range(7))
    compared = [i for i, r in enumerate(rows) if r["full_cut"]]
    assert compared == [2, 5, 6]  # every 3 batches, and after the last
    assert all(r["balanced"] == "True" for r in rows)
    assert all(int(r["changes"]) >= 30 for r in rows)
    assert fig.stat().st_size > 1000
    assert "speedup" in capsys.readouterr().out


def test_flow_errors(tmp_path, capsys):
    flow = load_flow()
    assert flow.main(["--ops", "x.ops", "--csv", str(tmp_path / "x.csv")]) == 1
    assert "needs --verilog" in capsys.readouterr().err


def test_ops_flow_on_a_tau_design(tau2015, tmp_path, capsys):
    flow = load_flow()
    out = tmp_path / "s27.csv"
    d = tau2015 / "s27"
    argv = ["--verilog", str(d / "s27.v"), "--lib", str(tau2015 / "cells_early.lib"),
            "--ops", str(d / "s27.ops"), "-k", "2", "--compare-every", "4", "--csv", str(out),
            "--no-progress"]  # fmt: skip
    assert flow.main(argv) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 7 and [i for i, r in enumerate(rows) if r["full_cut"]] == [3, 6]
    assert all(r["balanced"] == "True" for r in rows)
    assert "wrote" in capsys.readouterr().out
