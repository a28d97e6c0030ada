"""flows/sim_mapping.py on a small TAU 2015 netlist: per-level figures against a recomputation
from the written mapping, the replay, and bad cluster descriptions (``--plot`` draws with the
matplotlib code that tests/test_timing_opt.py exercises)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import numpy as np
import pytest

from igpart.mapping import communication_cost, level_costs

REPO = Path(__file__).resolve().parents[1]


class load_flow:  # noqa: N801 - the flow script's functions as attributes
    def __init__(self):
        self.__dict__.update(runpy.run_path(str(REPO / "flows" / "sim_mapping.py")))


def test_sim_mapping_per_level_costs_recomputable(tau2015, tmp_path, capsys):
    from igpart.netlist import read_verilog

    flow = load_flow()
    design, lib = tau2015 / "s27" / "s27.v", tau2015 / "cells_early.lib"
    out = tmp_path / "s27.map"
    argv = ["--verilog", str(design), "--lib", str(lib), "--hierarchy", "2:2:2", "--distance",
            "1:10:100", "--algorithms", "im,hm", "--output", str(out), "--json"]  # fmt: skip
    assert flow.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert [m["label"] for m in report["mappings"]] == ["im", "hm"]
    assert report["names"] == ["GPU", "node", "rack"]
    view = read_verilog(design, lib=lib).to_hypergraph()
    blocks = dict(line.split() for line in out.read_text().splitlines())
    parts = np.array([int(blocks[name]) for name in view.vertex_names])
    h, a, d = view.hypergraph, (2, 2, 2), (1, 10, 100)
    kept = report["mappings"][0]
    assert kept["cost"] == communication_cost(h, parts, a, d)
    assert [r["cost"] for r in kept["levels"]] == level_costs(h, parts, a, d).tolist()
    for m in report["mappings"]:
        assert m["balanced"] and sum(r["cost"] for r in m["levels"]) == m["cost"]
        crossing = [r["nets_crossing"] for r in m["levels"]]
        # a net that crosses a node boundary crosses a GPU boundary too
        assert crossing == sorted(crossing, reverse=True) and crossing[0] > 0
    # brute-force count of the nets spanning more than one GPU
    gpus = sum(len({parts[v] for v in h.net(e)}) > 1 for e in range(h.m))
    assert kept["levels"][0]["nets_crossing"] == gpus


def test_sim_mapping_replay_and_cluster_file(tau2015, tmp_path, capsys):
    flow = load_flow()
    design, lib = tau2015 / "s27" / "s27.v", tau2015 / "cells_early.lib"
    cluster = tmp_path / "c.json"
    cluster.write_text(json.dumps({"levels": [{"name": "GPU", "size": 2, "distance": 1},
                                              {"name": "node", "size": 3, "distance": 20}]}))
    argv = ["--verilog", str(design), "--lib", str(lib), "--cluster", str(cluster), "--ops",
            str(tau2015 / "s27" / "s27.ops")]  # fmt: skip
    assert flow.main(argv) == 0
    text = capsys.readouterr().out
    assert "im after" in text and "node boundary" not in text and "node" in text
    assert flow.main(argv + ["--json"]) == 0
    replay = json.loads(capsys.readouterr().out)["replay"]
    assert replay["batches"] == len(replay["cost_per_batch"]) > 0
    assert replay["cost"] == replay["cost_per_batch"][-1] and replay["balanced"]


@pytest.mark.parametrize(
    "text,extra,words",
    [
        ('{"levels": [{"size": 2}]}', [], "level 1 needs a size and a distance"),
        ("{nope", [], "line 1: not JSON"),
        ('{"levels": [{"size": 2, "distance": 5}, {"size": 2, "distance": 1}]}', [],
         "non-decreasing"),
        ('{"levels": [{"size": 2, "distance": 1}]}', ["--hierarchy", "2"], "not both"),
        ('{"levels": [{"size": 2, "distance": 1}]}', ["--algorithms", "im,x"], "unknown 'x'"),
    ],
)
def test_sim_mapping_bad_cluster(tau2015, tmp_path, capsys, text, extra, words):
    flow = load_flow()
    cluster = tmp_path / "c.json"
    cluster.write_text(text)
    argv = ["--verilog", str(tau2015 / "s27" / "s27.v"), "--lib",
            str(tau2015 / "cells_early.lib"), "--cluster", str(cluster), *extra]  # fmt: skip
    assert flow.main(argv) == 1
    err = capsys.readouterr().err
    assert words in err and err.startswith("sim_mapping: error:") and "Traceback" not in err


def test_sim_mapping_needs_a_cluster(tau2015, capsys):
    flow = load_flow()
    assert flow.main(["--verilog", str(tau2015 / "s27" / "s27.v"), "--hierarchy", "2:2"]) == 1
    assert "describe the cluster" in capsys.readouterr().err
