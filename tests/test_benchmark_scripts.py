"""Benchmark scripts that the measurements in BENCHMARKS.md name, run small: ``cli_ab.py`` (the
whole command under environment variants), ``mapping_bench.py --check igpart`` (igpart's
mappings without Mt-KaHyPar) and ``cluster_emulation.py`` (the GPU's clustering rounds in numpy).
They must keep working where no GPU and no peer is installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from igpart.generators import random_circuit
from igpart.io import write_hgr

ROOT = Path(__file__).resolve().parents[1]


def _run(args, **env):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **env})


def test_cli_ab_times_each_variant_of_the_whole_command(tmp_path):
    f = tmp_path / "c.hgr"
    write_hgr(random_circuit(1500, seed=2), f)
    out = tmp_path / "ab.json"
    r = _run(["benchmarks/cli_ab.py", str(f), "--args", "-k 4 --backend cpu", "--reps", "2",
              "--warmup", "0", "--variants", '{"fast": {}, "teardown": {"IGPART_FAST_EXIT": "0"}}',
              "--json", str(out)])
    assert r.returncode == 0, r.stderr
    runs = json.loads(out.read_text())["runs"]
    assert sorted((x["variant"], x["rep"]) for x in runs) == [
        ("fast", 0), ("fast", 1), ("teardown", 0), ("teardown", 1)]
    for x in runs:  # the command's own partition call lies inside its whole run
        assert x["balanced"] and 0 < x["partition"] < x["wall"] and x["cut"] > 0
    assert "| c.hgr | teardown |" in r.stdout
    # a command that fails is reported with its error, not timed
    bad = _run(["benchmarks/cli_ab.py", str(tmp_path / "missing.hgr"), "--args", "-k 4",
                "--warmup", "0", "--reps", "1"])
    assert bad.returncode != 0 and "missing.hgr" in bad.stderr


def test_mapping_bench_checks_igpart_alone(ispd98):
    env = {"IGPART_BENCHMARKS": str(ispd98.parent)}
    r = _run(["benchmarks/mapping_bench.py", "--cases", "ibm01", "--hierarchy", "2:2:2",
              "--distance", "1:10:100", "--threads", "1", "--backend", "cpu", "--tools",
              "igpart-im,igpart-hm", "--check", "igpart", "--warmup", "0"], **env)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stderr.strip().splitlines()[-1])
    assert [x["tool"] for x in rows] == ["igpart-im", "igpart-hm"]
    for x in rows:  # no peer check: the reported cost against communication_cost, balanced
        assert x["ok"] and x["steiner_tree_mtkahypar"] is None and x["reported"] == x["cost"]
    peer = _run(["benchmarks/mapping_bench.py", "--cases", "ibm01", "--tools",
                 "igpart-hm,mtkahypar", "--check", "igpart"], **env)
    assert peer.returncode != 0 and "igpart's tools only, not mtkahypar" in peer.stderr


@pytest.mark.parametrize("option", ["--check", "--tools"])
def test_mapping_bench_rejects_unknown_values(option):
    r = _run(["benchmarks/mapping_bench.py", option, "nobody"])
    assert r.returncode != 0


def test_sample_command_reports_where_the_command_spends_its_time(tmp_path):
    f, out, rep = tmp_path / "c.hgr", tmp_path / "c.part", tmp_path / "report.txt"
    write_hgr(random_circuit(3000, seed=1), f)
    r = _run(["benchmarks/sample_command.py", "--out", str(rep), "--interval", "1", "--min-ms", "0",
              "--", "partition", str(f), "-k", "4", "--backend", "cpu", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    assert out.exists()  # the command ran to its end
    text = rep.read_text()
    assert "exit status 0" in text.splitlines()[0]
    assert "=== MainThread:" in text and "--- MainThread: time by igpart frames" in text
    # the partition's own frames were sampled, under igpart's paths
    assert "partitioner/driver.py" in text
    # runs are listed in time order
    starts = [float(line.split()[0]) for line in text.splitlines()
              if line[:1] == " " and line.split()[1:3][1:] == ["ms"]]
    assert starts == sorted(starts) and len(starts) > 0


def test_sample_command_passes_the_commands_failure_on(tmp_path):
    rep = tmp_path / "report.txt"
    r = _run(["benchmarks/sample_command.py", "--out", str(rep), "--", "partition",
              str(tmp_path / "missing.hgr"), "-k", "2"])
    assert r.returncode != 0
    assert "exit status" in rep.read_text().splitlines()[0]
    r = _run(["benchmarks/sample_command.py", "--out", str(rep)])
    assert r.returncode != 0 and "after '--'" in r.stderr


def _emulation():
    import importlib.util

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("cluster_emulation",
                                                      ROOT / "benchmarks/cluster_emulation.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return mod


@pytest.mark.parametrize("by_cluster,accept", [(False, 0), (True, 0), (True, 1), (True, 2)])
def test_emulated_gpu_clustering_keeps_the_clusterings_bounds(by_cluster, accept):
    """``cluster_emulation.cluster`` (the GPU's rounds in numpy): every cluster within the
    weight cap (or a vertex alone), at most 64 members, inside one community, never below
    the level's target size, and the clusters numbered densely."""
    from igpart.kernels.cpu import CpuBackend

    from .util import random_hypergraph

    emu = _emulation()
    rng = np.random.default_rng(7)
    h = random_hypergraph(rng, 2000, 2600, max_size=6, weighted=True)
    ha = CpuBackend().hypergraph_arrays(h)
    comm = rng.integers(0, 5, h.n)
    vw = np.asarray(ha.vwgt)
    mcw = int(3 * vw.mean())
    for shrink in (1.5, 3.0):
        cmap, nc = emu.cluster(ha, mcw, 50, shrink, seed=3, by_cluster=by_cluster, accept=accept,
                               communities=comm)
        assert cmap.shape == (h.n,) and sorted(set(cmap.tolist())) == list(range(nc))
        assert int(h.n / shrink) <= nc < h.n
        weight = np.bincount(cmap, weights=vw)
        size = np.bincount(cmap)
        assert np.all((weight <= mcw) | (size == 1)) and size.max() <= emu.MAX_MEMBERS
        assert all(len(set(comm[cmap == c])) == 1 for c in np.flatnonzero(size > 1))


def test_emulated_rounds_end_below_the_minimum_of_joins(monkeypatch):
    """``min_joins``: a round that joins fewer than that fraction of the level ends the rounds,
    so a minimum above every round's joins gives the clusters of a single round."""
    from igpart.kernels.cpu import CpuBackend

    from .util import random_hypergraph

    emu = _emulation()
    rng = np.random.default_rng(11)
    ha = CpuBackend().hypergraph_arrays(random_hypergraph(rng, 1500, 2000, max_size=5))
    mcw = int(4 * np.asarray(ha.vwgt).mean())
    stopped, n_stopped = emu.cluster(ha, mcw, 50, 3.0, seed=5, by_cluster=True, accept=1,
                                     min_joins=1.0)
    full, n_full = emu.cluster(ha, mcw, 50, 3.0, seed=5, by_cluster=True, accept=1)
    monkeypatch.setattr(emu, "ROUNDS", 1)
    one, n_one = emu.cluster(ha, mcw, 50, 3.0, seed=5, by_cluster=True, accept=1)
    assert n_stopped == n_one and np.array_equal(stopped, one)
    assert n_full < n_one  # the later rounds join more


def test_cluster_emulation_compares_its_variants(ispd98):
    env = {"IGPART_BENCHMARKS": str(ispd98.parent)}
    r = _run(["benchmarks/cluster_emulation.py", "--case", "ibm01", "-k", "4", "--level", "3000",
              "--variants", "old/old,new/new+lands,cpp/cpp", "--seeds", "1"], **env)
    assert r.returncode == 0, r.stderr
    summary = r.stdout.strip().splitlines()[-3:]
    assert [line.split()[0] for line in summary] == ["old/old", "new/new+lands", "cpp/cpp"]
    assert "(1.000x old/old)" in summary[0]
    bad = _run(["benchmarks/cluster_emulation.py", "--case", "ibm01", "-k", "4", "--variants",
                "old/gpu"], **env)
    assert bad.returncode != 0 and "bad variant 'old/gpu'" in bad.stderr


def test_louvain_level_bench_runs_both_modes(ispd98):
    """``louvain_level_bench.py``: a level of at most ``--level`` vertices, Louvain on it in
    both modes; on one thread the asynchronous passes are the synchronous ones (the same
    communities and modularity)."""
    env = {"IGPART_BENCHMARKS": str(ispd98.parent)}
    r = _run(["benchmarks/louvain_level_bench.py", "--inputs", "ibm01:1", "--level", "3000",
              "--k", "2", "--threads", "1", "--reps", "1"], **env)
    assert r.returncode == 0, r.stderr
    head = [x for x in r.stdout.splitlines() if x.startswith("== ")]
    assert len(head) == 1 and "level of" in head[0]
    level = int(head[0].split("level of ")[1].split(" ")[0].replace(",", ""))
    assert 3000 / 4 <= level <= 3000
    rows = {x.split()[2]: x.split("),", 1)[1] for x in r.stdout.splitlines()
            if "threads" in x and "ms" in x}
    assert set(rows) == {"synchronous", "asynchronous"}
    assert rows["synchronous"] == rows["asynchronous"]
