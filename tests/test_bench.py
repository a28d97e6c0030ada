"""The regression benchmark (igpart.bench, ``igpart bench``, flows/regression.py) and
``igpart partition --config``."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from igpart import bench, io
from igpart.errors import InputError
from igpart.generators import random_circuit
from igpart.metrics import evaluate
from igpart.partitioner.initial.mtkahypar import mtkahypar_available

from .test_cli import run

REPO = Path(__file__).resolve().parents[1]
SMALL = {"initial_runs": 1, "contraction_limit": 20}


@pytest.fixture(scope="module")
def circuit(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "c.hgr"
    io.write_hgr(random_circuit(1500, seed=4), path)
    return path


@pytest.fixture(scope="module")
def result(circuit):
    peers = ["metis", "mtkahypar"] if mtkahypar_available() else ["metis"]
    return bench.run_benchmark(
        [circuit], [2, 4], threads=1, peers=peers, progress=False,
        variants={"igpart": SMALL, "igpart-hyperg": {**SMALL, "coarsening": "hyperg"}},
    )


def test_runs_are_recomputable_and_ratios_consistent(result, circuit):
    h = io.read(circuit)
    runs = result["runs"]
    assert len(runs) == 2 * len(result["tools"])
    assert all(r["error"] is None and r["seconds"] >= 0 for r in runs)
    # each run's metrics are those of a partition: the igpart runs are reproducible, so
    # recomputing them from scratch gives the same numbers
    for r in runs:
        if r["tool"] == "igpart":
            from igpart import partition

            p = partition(h, r["k"], config=SMALL)
            m = evaluate(h, p.parts, r["k"])
            assert (r["cut"], r["km1"], r["balanced"]) == (m["cut"], m["km1"], m["balanced"])
    rows = bench.ratio_rows(result)
    by = {(r["instance"], r["k"], r["tool"]): r for r in runs}
    ratios = []
    for row in rows:
        a, b = by[(row["instance"], row["k"], "igpart")], by[(row["instance"], row["k"], "metis")]
        q = row["ratios"][("igpart", "metis")]
        assert q["cut"] == pytest.approx(a["cut"] / b["cut"])
        assert q["time"] == pytest.approx(a["seconds"] / b["seconds"])
        ratios.append(q["cut"])
    g = bench.summary(result)["geomean"]["igpart/metis"]["cut"]
    assert g == pytest.approx(math.exp(sum(map(math.log, ratios)) / len(ratios)))
    assert bench.summary(result)["unbalanced"]["igpart"] == 0


def test_markdown_and_json_reports(result):
    md = bench.markdown(result)
    assert md.count("| c | 2 |") == 1 and md.count("| c | 4 |") == 1
    assert "igpart / METIS" in md and "Unbalanced partitions: igpart 0/2" in md
    assert "commit" in md and "command:" in md
    d = json.loads(bench.to_json(result))
    assert d["summary"]["geomean"]["igpart/metis"]["cut"] > 0
    assert {r["tool"] for r in d["runs"]} == set(result["tools"])


def test_plot(result, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "ratios.png"
    bench.plot(result, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_geomean():
    assert bench.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert bench.geomean([]) is None and bench.geomean([None, 0.0]) is None


def test_bad_benchmark_arguments(circuit, tmp_path):
    with pytest.raises(InputError, match="k must be"):
        bench.run_benchmark([circuit], [1], progress=False)
    with pytest.raises(InputError, match="unknown peer"):
        bench.run_benchmark([circuit], [2], peers=["hmetis"], progress=False)
    with pytest.raises(InputError, match="unknown config option"):
        bench.run_benchmark([circuit], [2], variants={"x": {"nope": 1}}, progress=False)
    bad = tmp_path / "bad.json"
    bad.write_text('{"refine_rounds": -1}')
    with pytest.raises(InputError, match="bad.json.*refine_rounds"):
        bench.load_config(bad)
    bad.write_text("[1, 2")
    with pytest.raises(InputError, match="invalid JSON at line 1"):
        bench.load_config(bad)


def test_cli_bench_and_regression_flow(circuit, tmp_path):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps(SMALL))
    r = run("bench", circuit, "-k", 2, "--peers", "metis", "--threads", 1, "--config", cfg,
            "--json", "--no-progress")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["tools"] == ["igpart", "igpart-hyperg", "metis"]
    assert d["meta"]["variants"]["igpart"] == SMALL
    out = tmp_path / "report.md"
    r = subprocess.run(
        [sys.executable, str(REPO / "flows" / "regression.py"), str(circuit), "-k", "2",
         "--peers", "metis", "--no-hyperg", "--threads", "1", "-o", str(out)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "| c | 2 |" in r.stdout and out.read_text() == r.stdout
    assert "100%" in r.stderr  # the progress bar
    r = run("bench", tmp_path / "missing.hgr", "-k", 2, "--no-progress")
    assert r.returncode == 1 and r.stderr.startswith("igpart: error:")


def test_cli_partition_config(circuit, tmp_path):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"coarsening": "hyperg", "vcycles": 1}))
    r = run("partition", circuit, "-k", 3, "--config", cfg, "--json", "-o", tmp_path / "p")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["config"]["coarsening"] == "hyperg" and d["config"]["vcycles"] == 1
    cfg.write_text(json.dumps({"coarsening": "magic"}))
    r = run("partition", circuit, "-k", 3, "--config", cfg, "-o", tmp_path / "p")
    assert r.returncode == 1 and "coarsening" in r.stderr and "Traceback" not in r.stderr


def test_metis_messages_stay_off_stdout(ispd98, tmp_path):
    # ibm01.weight at k = 64 has a vertex heavier than a block: METIS prints warnings from C
    r = run("partition", ispd98 / "ibm01.weight.hgr", "-k", 64, "--json", "-o", tmp_path / "p")
    d = json.loads(r.stdout)  # stdout is exactly the JSON object
    assert d["k"] == 64 and not d["balanced"] and r.returncode == 3
