"""The benchmark suite (benchmarks/suite.py) and its independent checker
(benchmarks/verify_partition.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from igpart.partitioner.initial.mtkahypar import mtkahypar_available

from .conftest import REPO

BENCH_DIR = REPO / "benchmarks"
SUITE = BENCH_DIR / "suite.py"
sys.path.insert(0, str(BENCH_DIR))
import verify_partition as vp  # noqa: E402

# 4 nets with weights (fmt 1), 6 vertices: {1,2} w2, {2,3,4} w1, {4,5,6} w3, {1,6} w5
HAND = "% a comment\n4 6 1\n2 1 2\n1 2 3 4\n\n3 4 5 6\n5 1 6\n"


@pytest.fixture()
def hand(tmp_path) -> Path:
    p = tmp_path / "hand.hgr"
    p.write_text(HAND)
    return p


def test_checker_known_cut_and_km1(hand):
    h = vp.read_hgr(hand)
    assert (h.n, h.m) == (6, 4)
    assert h.ewgt.tolist() == [2, 1, 3, 5]
    r = vp.evaluate(h, np.array([0, 0, 0, 1, 1, 1]), 2, 0.03)
    assert (r["cut"], r["km1"], r["valid"]) == (6, 6, True)
    # three blocks: nets 2 and 3 span all three (lambda 3), nets 1 and 4 two
    r = vp.evaluate(h, np.array([0, 1, 2, 0, 1, 2]), 3, 0.03)
    assert (r["cut"], r["km1"]) == (2 + 1 + 3 + 5, 2 * 1 + 1 * 2 + 3 * 2 + 5 * 1)
    assert r["block_weights"] == [2, 2, 2] and r["max_block_weight"] == 2 and r["valid"]


def test_checker_flags_unbalanced_and_out_of_range(hand, tmp_path):
    h = vp.read_hgr(hand)
    r = vp.evaluate(h, np.array([0, 0, 0, 0, 1, 1]), 2, 0.03)  # 4 > floor(1.03 * 3) = 3
    assert r["balanced"] is False and r["valid"] is False and r["cut"] == 3 + 5
    assert "block 0 weighs 4 > 3" in r["problems"][0]
    r = vp.evaluate(h, np.array([0, 0, 0, 1, 1, 2]), 2, 0.03)
    assert r["valid"] is False and "outside [0, 2)" in r["problems"][0] and "cut" not in r
    assert not vp.evaluate(h, np.array([0, 0, 0, 1, 1, -1]), 2, 0.03)["valid"]
    part = tmp_path / "short.part"
    part.write_text("0\n1\n0\n")
    r = vp.check_files(hand, part, 2, 0.03)
    assert r["valid"] is False and "3 block ids for 6 vertices" in r["problems"][0]
    part.write_text("0\n1\nx\n1\n0\n1\n")
    r = vp.check_files(hand, part, 2, 0.03)
    assert not r["valid"] and "short.part:3: not an integer" in r["problems"][0]


def test_checker_balance_rule_is_exact():
    # 1.15 * 100 is 114.99999999999999 in floating point; the rule's value is 115
    assert vp.max_block_weight(200, 2, 0.15) == 115
    assert vp.max_block_weight(101, 2, 0.03) == 52  # floor(1.03 * 51)
    assert vp.max_block_weight(7, 7, 0.0) == 1


def test_checker_rejects_malformed_hgr(tmp_path):
    bad = tmp_path / "bad.hgr"
    bad.write_text("2 3\n1 2\n2 4\n")
    with pytest.raises(vp.CheckError, match=r"bad.hgr:3: vertex id 4 not in \[1, 3\]"):
        vp.read_hgr(bad)
    bad.write_text("3 3\n1 2\n2 3\n")
    with pytest.raises(vp.CheckError, match="expected 3"):
        vp.read_hgr(bad)


def test_checker_blocks_per_net_equals_brute_force():
    """Both ways of counting each net's blocks (a bit per block up to k = 64, a sort above)
    equal a per-net set, empty and one-pin nets included."""
    rng = np.random.default_rng(7)
    for k in (1, 2, 63, 64, 65, 200):
        n, m = 40, 60
        sizes = rng.integers(0, 7, m)
        pins = np.concatenate([rng.choice(n, s, replace=False) for s in sizes]).astype(np.int64)
        eptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        h = vp.Hgr(n, m, eptr, pins, np.ones(n, np.int64), rng.integers(1, 5, m))
        parts = rng.integers(0, k, n)
        want = [len(set(parts[pins[eptr[e]:eptr[e + 1]]].tolist())) for e in range(m)]
        assert vp._blocks_per_net(h, parts, k).tolist() == want
        r = vp.evaluate(h, parts, k, 10.0)
        lam = np.array(want)
        assert r["cut"] == int(h.ewgt[lam > 1].sum())
        assert r["km1"] == int((h.ewgt * np.maximum(lam - 1, 0)).sum())


def test_checker_equals_igpart_metrics_on_weighted_input(ispd98):
    """The checker's reader and metrics agree with igpart's on a file with vertex weights."""
    from igpart import read_hgr
    from igpart.metrics import evaluate

    path = ispd98 / "ibm01.weight.hgr"
    h, mine = read_hgr(path), vp.read_hgr(path)
    for k in (2, 5, 64):
        parts = np.random.default_rng(k).integers(0, k, h.n)
        ref, got = evaluate(h, parts, k, 0.05), vp.evaluate(mine, parts, k, 0.05)
        assert (got["cut"], got["km1"], got["balanced"]) == (ref["cut"], ref["km1"],
                                                             ref["balanced"])
        assert got["max_block_weight"] == ref["max_block_weight"]


def test_checker_imports_nothing_of_igpart():
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import verify_partition; "
            "sys.exit(any(m.split('.')[0] == 'igpart' for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_checker_command_compares_the_claimed_cut(hand, tmp_path):
    part = tmp_path / "p"
    part.write_text("0\n0\n0\n1\n1\n1\n")
    cmd = [sys.executable, str(BENCH_DIR / "verify_partition.py"), str(hand), str(part),
           "-k", "2"]
    ok = subprocess.run([*cmd, "--cut", "6"], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["cut"] == 6
    wrong = subprocess.run([*cmd, "--cut", "5"], capture_output=True, text=True)
    assert wrong.returncode == 1 and "the partitioner reported 5" in wrong.stdout


# 5 vertices with weights, weighted edges (fmt 011), a comment and an isolated vertex (blank
# line): 1-2 w4, 1-3 w1, 2-3 w2, 3-4 w7; vertex 5 has no neighbour
HAND_GRAPH = "% METIS\n5 4 011\n1 2 4 3 1\n2 1 4 3 2\n% between\n1 1 1 2 2 4 7\n3 3 7\n1\n"


def test_checker_graph_known_edge_cut(tmp_path):
    path = tmp_path / "hand.graph"
    path.write_text(HAND_GRAPH)
    g = vp.read_input(path)
    assert isinstance(g, vp.MetisGraph) and (g.n, g.m) == (5, 4)
    assert g.vwgt.tolist() == [1, 2, 1, 3, 1] and g.xadj.tolist() == [0, 2, 4, 7, 8, 8]
    r = vp.evaluate(g, np.array([0, 0, 1, 1, 0]), 2, 0.03)  # cut edges 1-3 and 2-3
    assert (r["cut"], r["km1"], r["valid"]) == (1 + 2, 1 + 2, True)
    assert r["block_weights"] == [4, 4] and r["max_block_weight"] == 4
    r = vp.evaluate(g, np.array([0, 1, 2, 0, 1]), 3, 0.5)  # every edge cut
    assert (r["cut"], r["valid"]) == (4 + 1 + 2 + 7, True)
    # unbalanced: 5 > floor(1.03 * 4); the edge cut is still given
    r = vp.evaluate(g, np.array([0, 0, 1, 0, 1]), 2, 0.03)
    assert r["valid"] is False and r["balanced"] is False and r["cut"] == 1 + 2 + 7
    assert "block 0 weighs 6 > 4" in r["problems"][0]
    part = tmp_path / "p"
    part.write_text("0\n0\n1\n1\n0\n")
    cmd = [sys.executable, str(BENCH_DIR / "verify_partition.py"), str(path), str(part), "-k",
           "2"]
    ok = subprocess.run([*cmd, "--cut", "3"], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["cut"] == 3


@pytest.mark.parametrize("text, message", [
    ("3 2\n2 2\n1 1\n\n", r"bad.graph:2: vertex 1 lists neighbour 2 twice"),
    ("3 2\n2\n1 3\n2 4\n", r"bad.graph:4: vertex id 4 not in \[1, 3\]"),
    ("3 2\n2\n1\n3\n", r"bad.graph:4: self loop on vertex 3"),
    ("3 1\n2 3\n\n\n", r"bad.graph:2: edge 1-2 \(weight 1\) is not listed at vertex 2"),
    ("3 1 1\n2 5\n1 6\n\n", r":3: edge 2-1 \(weight 6\) is not listed at vertex 1 with the same"),
    ("3 1 1\n2\n1 1\n\n", r"bad.graph:2: a neighbour without its edge weight"),
    ("3 2\n2\n1\n", r"2 vertex lines after the header, expected 3"),
    ("3 3\n2\n1 3\n2\n", r"4 neighbour entries, expected 2 \* 3"),
    ("3 1\n2\n1\n\n1\n", r"bad.graph:5: more than 3 vertex lines"),
    ("3 1 100\n2\n1\n\n", r"bad.graph:1: unsupported header"),
])
def test_checker_rejects_malformed_graph(tmp_path, text, message):
    bad = tmp_path / "bad.graph"
    bad.write_text(text)
    with pytest.raises(vp.CheckError, match=message):
        vp.read_input(bad)


def test_suite_end_to_end(ispd98, tmp_path):
    """ibm01 at k = 2, one seed, igpart on the C++ backend (and Mt-KaHyPar when installed), in
    process and as whole commands: the report holds the checker's figures, equal to the tools'."""
    tools = "igpart,mtkahypar" if mtkahypar_available() else "igpart"
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    cmd = [sys.executable, str(SUITE), "--suite", "small", "--data", str(ispd98.parent),
           "--cases", "ibm01", "--ks", "2", "--seeds", "1", "--threads", "2", "--tools", tools,
           "--whole-process", "--work", str(tmp_path / "work"), "--json", str(out_json),
           "--md", str(out_md)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out_json.read_text())
    labels = ["igpart-cpu@2"] + (["mtkahypar@2"] if "mtkahypar" in tools else [])
    assert list(doc["labels"]) == labels
    assert [c["name"] for c in doc["cases"]] == ["ibm01"] and doc["cases"][0]["n"] == 12752
    runs = doc["runs"]
    assert len(runs) == 2 * len(labels)
    for run in runs:
        assert run["error"] is None and run["valid"] and run["balanced"], run
        assert run["cut"] == run["tool_cut"] and run["km1"] == run["tool_km1"]
        assert run["seconds"] > 0 and run["rss_peak_kib"] > 0
    igp = next(x for x in runs if x["label"] == "igpart-cpu@2" and x["mode"] == "inproc")
    assert igp["timings"] and igp["used_backend"] == "cpu"
    md = out_md.read_text()
    assert md == r.stdout
    row = next(ln for ln in md.splitlines() if ln.startswith("| ibm01 | 2 |"))
    assert f"| {igp['cut']} |" in row
    assert doc["summary"]["flagged"] == 0 and doc["summary"]["failed"] == 0
    if "mtkahypar" in tools:
        mtk = next(x for x in runs if x["label"] == "mtkahypar@2" and x["mode"] == "inproc")
        pair = doc["summary"]["pairs"][0]
        assert pair["rows"][0]["cut_ratio"] == pytest.approx(igp["cut"] / mtk["cut"])
        assert "## igpart-cpu@2 vs mtkahypar@2" in md
    # the report of a stored run; a flagged partition makes the exit status 1
    runs[0]["valid"], runs[0]["problems"] = False, ["cut 1 by the checker, 2 by the tool"]
    out_json.write_text(json.dumps(doc))
    rep = subprocess.run([sys.executable, str(SUITE), "report", str(out_json)],
                         capture_output=True, text=True)
    assert rep.returncode == 1 and "cut 1 by the checker, 2 by the tool" in rep.stdout


def test_report_of_several_stored_runs(ispd98, tmp_path):
    """``suite.py report A.json B.json``: one report over the runs of both files (here one run
    split by k), the same per-case figures as the run's own; a run in two files, or files of
    different objectives, are refused with exit status 2 and the files named."""
    out_json = tmp_path / "r.json"
    cmd = [sys.executable, str(SUITE), "--suite", "small", "--data", str(ispd98.parent),
           "--cases", "ibm01", "--ks", "2,4", "--seeds", "1", "--threads", "2", "--tools",
           "igpart", "--work", str(tmp_path / "work"), "--json", str(out_json)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out_json.read_text())
    parts = []
    for k in (2, 4):
        part = {**doc, "runs": [x for x in doc["runs"] if x["k"] == k]}
        part["meta"] = {**doc["meta"], "command": f"the k = {k} runs"}
        path = tmp_path / f"k{k}.json"
        path.write_text(json.dumps(part))
        parts.append(path)
    rep = subprocess.run([sys.executable, str(SUITE), "report", *map(str, parts), "--md",
                          str(tmp_path / "m.md")], capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    whole = subprocess.run([sys.executable, str(SUITE), "report", str(out_json)],
                           capture_output=True, text=True)
    rows = [ln for ln in rep.stdout.splitlines() if ln.startswith("| ibm01 |")]
    assert rows == [ln for ln in whole.stdout.splitlines() if ln.startswith("| ibm01 |")]
    assert len(rows) == 2
    assert "the k = 2 runs; the k = 4 runs" in rep.stdout and "2 stored runs" in rep.stdout
    assert (tmp_path / "m.md").read_text() == rep.stdout
    # the same runs twice
    dup = subprocess.run([sys.executable, str(SUITE), "report", str(parts[0]), str(parts[0])],
                         capture_output=True, text=True)
    assert dup.returncode == 2 and "in both" in dup.stderr and "Traceback" not in dup.stderr
    # another objective
    other = json.loads(parts[1].read_text())
    other["meta"]["objective"] = "km1"
    parts[1].write_text(json.dumps(other))
    mixed = subprocess.run([sys.executable, str(SUITE), "report", *map(str, parts)],
                           capture_output=True, text=True)
    assert mixed.returncode == 2 and "objective" in mixed.stderr


def _kaminpar_available() -> bool:
    try:
        import kaminpar  # noqa: F401
    except ImportError:
        return False
    return True


def test_graph_set_inputs(tmp_path):
    """The graphs set's inputs: the issue's grid sizes from scale 21 on, smaller grids below,
    the Delaunay and rgg families at every scale, the circuits' clique and star models."""
    import suite

    names = [c.name for c in suite.graph_cases(tmp_path, lambda _: True, (20, 21), seed=3)]
    assert names == ["grid2d_1500x1500", "grid3d_128x128x128", "delaunay_n20", "delaunay_n21",
                     "rgg_n_2_20", "rgg_n_2_21", "cholesky_mc_clique", "cholesky_mc_star",
                     "neuron_clique", "neuron_star", "stereo_vision_clique",
                     "stereo_vision_star"]
    cases = {c.name: c for c in suite.graph_cases(tmp_path, lambda _: True, (16,), seed=3)}
    assert "grid2d_256x256" in cases and "grid3d_40x40x40" in cases
    assert cases["rgg_n_2_16"].params == {"kind": "rgg", "n": 2**16, "seed": 3}
    assert cases["rgg_n_2_16"].path.endswith("rgg_n_2_16_s3.graph")
    assert cases["neuron_clique"].params["max_net_size"] == suite.CLIQUE_MAX_NET_SIZE


def test_inputs_built_side_by_side_equal_those_built_in_turn(tmp_path):
    """``--inputs-only --build-jobs 3`` (processes of their own) writes the same files as one
    at a time, prints their paths in order; a malformed benchmark file is an error naming it,
    without a traceback."""
    def build(work, cases, *extra):
        cmd = [sys.executable, str(SUITE), "--suite", "graphs", "--graph-scale", "10",
               "--cases", cases, "--inputs-only", "--work", str(work), *extra]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    one = build(tmp_path / "one", "grid,delaunay,rgg")
    three = build(tmp_path / "three", "grid,delaunay,rgg", "--build-jobs", "3")
    assert one.returncode == three.returncode == 0, one.stderr + three.stderr
    paths = three.stdout.split()
    assert [Path(p).name for p in paths] == [Path(p).name for p in one.stdout.split()]
    assert len(paths) == 4
    for p in paths:
        assert Path(p).read_bytes() == (tmp_path / "one" / Path(p).relative_to(
            tmp_path / "three")).read_bytes()
    data = tmp_path / "data"
    (data / "titan23").mkdir(parents=True)
    (data / "titan23" / "neuron.hgr").write_text("2 3\n1 2\nx 3\n")
    bad = build(tmp_path / "bad", "grid2d,neuron_clique", "--build-jobs", "2", "--data", str(data))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "neuron.hgr:3" in bad.stderr and "neuron_clique" in bad.stderr


def test_graph_set_end_to_end(ispd98, tmp_path):
    """The graphs set at 2^10 vertices, k = 2: igpart's C++ backend, KaMinPar and Mt-KaHyPar
    (those installed) on grids, a Delaunay and an rgg graph; every partition checked by the
    graph checker, equal to the tools' own edge cut; the inputs are cached for the next run."""
    tools = ["igpart", *(["kaminpar"] if _kaminpar_available() else []),
             *(["mtkahypar"] if mtkahypar_available() else [])]
    out_json, work = tmp_path / "r.json", tmp_path / "work"
    base = [sys.executable, str(SUITE), "--graph-scale", "2^10", "--ks", "2", "--threads", "2",
            "--data", str(ispd98.parent), "--work", str(work), "--json", str(out_json)]
    r = subprocess.run([*base, "--suite", "graphs", "--cases", "grid,delaunay,rgg", "--tools",
                        ",".join(tools)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out_json.read_text())
    cases = {c["name"]: c for c in doc["cases"]}
    assert list(cases) == ["grid2d_32x32", "grid3d_10x10x10", "delaunay_n10", "rgg_n_2_10"]
    assert (cases["grid2d_32x32"]["n"], cases["grid2d_32x32"]["m"]) == (1024, 2 * 32 * 31)
    assert (cases["grid3d_10x10x10"]["n"], cases["grid3d_10x10x10"]["m"]) == (1000, 2700)
    assert cases["delaunay_n10"]["n"] == cases["rgg_n_2_10"]["n"] == 1024
    runs = doc["runs"]
    assert len(runs) == 4 * len(tools)
    for run in runs:
        assert run["error"] is None and run["valid"] and run["balanced"], run
        assert run["cut"] == run["tool_cut"] == run["km1"] == run["tool_km1"] > 0
    assert {x["tool"] for x in runs} == set(tools)
    assert "built rgg_n_2_10" in r.stderr
    # cached: the same input is not built again; KaMinPar is left out on a hypergraph input
    tool = "kaminpar" if "kaminpar" in tools else tools[-1]
    again = subprocess.run([*base, "--suite", "graphs,small", "--cases", "rgg,ibm01", "--tools",
                            tool], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "built" not in again.stderr and "| rgg_n_2_10 | 2 |" in again.stdout
    if tool == "kaminpar":
        runs = json.loads(out_json.read_text())["runs"]
        assert [x["case"] for x in runs] == ["rgg_n_2_10"]
        assert "partitions graphs only: left out on the hypergraph inputs" in again.stdout


@pytest.mark.parametrize("args, message", [
    (["--tools", "igpart,foo"], "unknown tool 'foo'"),
    (["--ks", "2,1"], "--ks: expected integers >= 2"),
    (["--threads", "two"], "--threads: expected a comma list of integers"),
    (["--suite", "medium"], "unknown suite 'medium'"),
    (["--suite", "graphs", "--graph-scale", "2^x"], "--graph-scale: expected a comma list"),
    (["--suite", "graphs", "--graph-scale", "3"], "--graph-scale: expected integers >= 4"),
    (["--suite", "graphs", "--graph-scale", "31"], "--graph-scale: at most 30"),
    (["--cases", "nothing-like-this"], "matches no input"),
    (["--threads", "1,2", "--compare", "1,4"], "--compare: expected two of the --threads"),
    (["--variants", '{"x": {"no_such_option": 1}}'], "--variants: x: unknown config option"),
    (["--presets", "speed,fast"], "unknown preset 'fast'"),
    (["--presets", "speed", "--variants", '{"speed": {}}'], "--presets: variant 'speed' is also"),
    (["--variants", '{"x": {"CpuBackend.no_such": 1}}'],
     "--variants: x: CpuBackend has no number attribute 'no_such'"),
    (["--variants", '{"x": {"CpuBackend.graph_fm_cache_min_degree": "16"}}'],
     "CpuBackend.graph_fm_cache_min_degree takes a number"),
    (["--whole-process", "--variants", '{"x": {"CpuBackend.graph_fm_cache_min_degree": 0}}'],
     "--whole-process: the command a user runs has no CpuBackend attributes"),
])
def test_suite_bad_arguments(ispd98, tmp_path, args, message):
    r = subprocess.run([sys.executable, str(SUITE), "--data", str(ispd98.parent),
                        "--work", str(tmp_path), *args], capture_output=True, text=True)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_suite_variants_set_cpu_backend_attributes(ispd98, tmp_path):
    """A variant's ``CpuBackend.NAME`` key sets that attribute for its in-process runs only: an
    attribute the C++ FM refuses fails that variant's run (exit status 3), the other variant's
    run is made and checked."""
    out_json = tmp_path / "r.json"
    variants = {"off": {"CpuBackend.graph_fm_cache_min_degree": 0},
                "bad": {"CpuBackend.graph_fm_cache_min_degree": -1}}
    r = subprocess.run([sys.executable, str(SUITE), "--graph-scale", "2^10", "--ks", "2",
                        "--threads", "2", "--data", str(ispd98.parent), "--work",
                        str(tmp_path / "work"), "--json", str(out_json), "--suite", "graphs",
                        "--cases", "delaunay", "--tools", "igpart", "--variants",
                        json.dumps(variants)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stderr
    runs = {x["label"].split("@")[0]: x for x in json.loads(out_json.read_text())["runs"]}
    assert sorted(runs) == ["igpart-cpu:bad", "igpart-cpu:off"], sorted(runs)
    assert "cache_min_degree must be >= 0" in runs["igpart-cpu:bad"]["error"]
    off = runs["igpart-cpu:off"]
    assert off["error"] is None and off["valid"] and off["balanced"] and off["cut"] > 0


def test_graph_rb_probe_reports_both_partitions_within_the_bound(tmp_path):
    """``benchmarks/graph_rb_probe.py``: one row per graph with the default's and recursive
    bisection's cuts before and after improve (improve never worse), every partition within
    the bound; a k that is not a power of two is refused."""
    from igpart import generators, write_graph

    path = tmp_path / "mesh.graph"
    write_graph(generators.delaunay_graph(3000, seed=1), path)
    probe = [sys.executable, str(BENCH_DIR / "graph_rb_probe.py"), str(path), "--threads", "2"]
    out = subprocess.run([*probe, "-k", "4"], capture_output=True, text=True, timeout=300,
                         check=True).stdout  # fmt: skip
    row = next(line for line in out.splitlines() if line.startswith("| mesh |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    cuts = [int(c.split(" (")[0].replace(",", "")) for c in cells[2:6]]
    assert cells[1] == "4" and cells[6] == "yes" and min(cuts) > 0
    assert cuts[1] <= cuts[0] and cuts[3] <= cuts[2]
    bad = subprocess.run([*probe, "-k", "6"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "power of two" in bad.stderr


def test_suite_missing_data_directory(tmp_path):
    r = subprocess.run([sys.executable, str(SUITE), "--data", str(tmp_path / "none")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "benchmark data directory" in r.stderr


def test_suite_records_a_failed_run_and_goes_on(ispd98, tmp_path):
    """Without a GPU the GPU runs fail: recorded with the reason, the C++ runs still made, and
    the exit status is 3."""
    from igpart.kernels import gpu_status

    if gpu_status()[0]:
        pytest.skip("a GPU is present: the GPU run would not fail")
    out_json = tmp_path / "r.json"
    r = subprocess.run([sys.executable, str(SUITE), "--data", str(ispd98.parent), "--cases",
                        "ibm01", "--ks", "2", "--tools", "igpart", "--backend", "gpu,cpu",
                        "--work", str(tmp_path / "work"), "--json", str(out_json)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stderr
    runs = {x["label"]: x for x in json.loads(out_json.read_text())["runs"]}
    assert "BackendUnavailable: GPU backend unavailable" in runs["igpart-gpu@2"]["error"]
    assert runs["igpart-cpu@2"]["error"] is None and runs["igpart-cpu@2"]["valid"]
    assert "igpart-gpu@2 (inproc): exit status 1: BackendUnavailable" in r.stdout


def test_rb_trace_times_every_bisection_of_a_run(tmp_path):
    """``benchmarks/rb_trace.py``: one recursive bisection of the coarsest level records its
    k - 1 bisections, each ending after it starts, and the run's cut is the partition's; the
    former and the current thread rules give the same cut; the script runs from the command
    line on an .hgr file."""
    import rb_trace

    import igpart
    from igpart.io import write_hgr

    h = igpart.generators.random_circuit(1500, seed=3)
    config = {"initial_rb_runs": 1, "initial_rb_flat_vertices": 0}  # every bisection in Python
    seconds, cut, spans = rb_trace.traced_run(h, 8, 2, config)
    assert len(spans) == 7 and seconds > 0
    assert sorted(s[3] for s in spans) == [2, 2, 2, 2, 4, 4, 8]
    assert all(end >= start for start, end, *_ in spans)
    # on the coarsest level: the first bisection splits all of it, each level below the rest
    top = next(s[2] for s in spans if s[3] == 8)
    assert 8 <= top < h.n
    assert all(sum(s[2] for s in spans if s[3] == b) <= top for b in (4, 2))
    p = igpart.partition(h, 8, 0.03, backend="cpu", seed=0, config={"threads": 2, **config})
    assert cut == int(p.cut)
    from cpu_profile import cpu_attributes

    with cpu_attributes({"rb_python_threads": 64, "rb_switch_interval": 0}):
        assert rb_trace.traced_run(h, 8, 2, config)[1] == cut
    path = tmp_path / "c.hgr"
    write_hgr(h, path)
    out = subprocess.run(
        [sys.executable, str(BENCH_DIR / "rb_trace.py"), "--inputs", str(path), "--k", "4",
         "--threads", "2", "--repeat", "1", "--variants", json.dumps({"python": config})],
        capture_output=True, text=True, timeout=300, check=True).stdout
    assert "recursive bisection span" in out and "blocks:" in out
    # --python-profile: the Python self time of the runs and its largest functions, among them
    # recursive bisection's own
    out = subprocess.run(
        [sys.executable, str(BENCH_DIR / "rb_trace.py"), "--inputs", str(path), "--k", "4",
         "--threads", "1", "--repeat", "1", "--python-profile", "40"],
        capture_output=True, text=True, timeout=300, check=True).stdout
    head, *rows = out.strip().splitlines()
    total = float(head.split("Python self time ")[1].split(" s")[0])
    one = igpart.partition(h, 4, 0.03, backend="cpu", seed=0, config={"threads": 1})
    assert f"cut {int(one.cut):,}" in head
    assert len(rows) == 40 and total > 0
    seconds = [float(r.split()[0]) for r in rows]
    assert seconds == sorted(seconds, reverse=True) and sum(seconds) <= total + 1e-9
    assert any("recursive.py" in r for r in rows)
