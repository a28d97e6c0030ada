"""Presets (speed / default / quality), per-block maximum weights and improving a given
partition: the API, the command line and the plugin commands."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import igpart
from igpart import Config, InputError
from igpart.errors import IgpartError
from igpart.generators import random_circuit
from igpart.metrics import evaluate
from igpart.plugin.commands import Commands

from .util import random_graph, random_hypergraph

BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
#: every level of a graph on the device backend, these small ones included (the default runs a
#: graph below ``Config.graph_host_levels_below`` vertices on the host; ignored by the host)
DEVICE_GRAPH_LEVELS = {"graph_host_levels_below": 0}


def run(*args):
    return subprocess.run([sys.executable, "-m", "igpart", *map(str, args)],
                          capture_output=True, text=True)  # fmt: skip


@pytest.fixture(scope="module")
def circuit():
    return random_circuit(1500, seed=3)


# ------------------------------------------------------------------------------ presets
@pytest.mark.parametrize("name", sorted(igpart.PRESETS))
def test_preset_sets_its_values_and_explicit_fields_win(name):
    values = igpart.PRESETS[name]
    cfg = Config(preset=name)
    for field, value in values.items():
        assert getattr(cfg, field) == value
    untouched = {f.name for f in dataclasses.fields(Config)} - set(values) - {"preset"}
    for field in untouched:
        assert getattr(cfg, field) == getattr(Config(), field)
    # explicit fields win, also when they equal the default preset's value
    forced = Config(preset=name, fm_rounds=Config().fm_rounds, vcycles=-1)
    assert (forced.fm_rounds, forced.vcycles) == (Config().fm_rounds, -1)
    assert Config.from_dict({"preset": name, "vcycles": 7}).vcycles == 7
    # copies keep their values
    assert dataclasses.replace(forced) == forced
    assert Config(**dataclasses.asdict(forced)) == forced


def test_preset_argument_keeps_what_a_config_changed():
    cfg = Config.of(Config(vcycles=1), "quality")
    assert cfg.vcycles == 1 and cfg.preset == "quality"
    assert cfg.refinement == igpart.PRESETS["quality"]["refinement"]
    assert Config.of({"fm_rounds": 3}, "speed").vcycles == igpart.PRESETS["speed"]["vcycles"]
    assert Config.of(None, "speed") == Config(preset="speed")


def test_preset_errors_name_the_problem():
    with pytest.raises(InputError, match="unknown preset 'fast'"):
        Config(preset="fast")
    with pytest.raises(InputError, match="unknown preset"):
        igpart.partition(random_circuit(50, seed=1), 2, preset="fast")
    with pytest.raises(InputError, match="preset 'quality' and config preset 'speed' differ"):
        Config.of({"preset": "speed"}, "quality")
    with pytest.raises(InputError, match="repetitions"):
        Config(repetitions=0).validate()


@pytest.mark.parametrize("be", BACKENDS)
@pytest.mark.parametrize("kind", ["hypergraph", "graph"])
@pytest.mark.parametrize("name", sorted(igpart.PRESETS))
def test_every_preset_gives_a_valid_balanced_partition(circuit, be, kind, name):
    x = circuit.to_graph("clique") if kind == "graph" else circuit
    p = igpart.partition(x, 4, 0.03, backend=be, seed=1, preset=name, config=DEVICE_GRAPH_LEVELS)
    m = evaluate(x, p.parts, 4, 0.03)
    assert p.balanced and m["balanced"] and p.cut == m["cut"] and p.km1 == m["km1"]
    assert p.config["preset"] == name and p.backend == be
    for field, value in igpart.PRESETS[name].items():
        assert p.config[field] == value


def test_repetitions_keep_the_best_run(circuit):
    h = random_circuit(600, seed=8)
    one = igpart.partition(h, 2, backend="cpu", seed=5, config={"repetitions": 1})
    three = igpart.partition(h, 2, backend="cpu", seed=5, config={"repetitions": 3})
    assert three.balanced and three.cut <= one.cut


def test_plugin_partition_takes_a_preset(circuit, tmp_path):
    path = tmp_path / "c.hgr"
    igpart.io.write_hgr(circuit, path)
    c = Commands()
    c.call("read", str(path))
    m = c.call("partition", k=4, preset="speed")
    assert m["balanced"]
    assert c.session.engine.config.preset == "speed"
    with pytest.raises(InputError, match="unknown preset"):
        c.call("partition", k=4, preset="fast")
    assert c.session.engine.config.preset == "speed"  # the session stays


@pytest.mark.tcl
def test_tcl_and_json_partition_take_preset_fixed_and_initial(circuit, tmp_path):
    from igpart.plugin import JsonLinesServer
    from igpart.plugin.tcl import TclBridge

    hgr, fix, start = tmp_path / "c.hgr", tmp_path / "c.fix", tmp_path / "start.part"
    igpart.io.write_hgr(circuit, hgr)
    fixed = np.full(circuit.n, -1, dtype=np.int32)
    fixed[::25] = np.arange(circuit.n)[::25] % 4
    fix.write_text("".join(f"{b}\n" for b in fixed))
    first = igpart.partition(circuit, 4, backend="cpu", preset="speed", fixed=fixed)
    igpart.io.write_partition(first.parts, start)

    def check(session, preset):
        assert session.engine.config.preset == preset
        parts = session.parts
        assert (parts[fixed >= 0] == fixed[fixed >= 0]).all()
        m = evaluate(circuit, parts, 4, 0.03)
        assert m["balanced"] and m["cut"] <= first.cut  # improved from the file, never worse

    b = TclBridge()
    b.eval(f"igpart::read {{{hgr}}}")
    b.eval(f"igpart::partition -k 4 -backend cpu -preset speed -fixed {{{fix}}} "
           f"-initial {{{start}}}")
    check(b.commands.session, "speed")
    srv = JsonLinesServer()
    srv.handle(json.dumps({"id": 1, "method": "read", "params": [str(hgr)]}))
    r = srv.handle(json.dumps({"id": 2, "method": "partition", "params": {
        "k": 4, "backend": "cpu", "preset": "quality", "fixed": str(fix),
        "initial": str(start)}}))
    assert r["ok"], r
    check(srv.commands.session, "quality")
    # bad input: the file and line, or the problem, named on both; the session stays
    bad = tmp_path / "bad.part"
    bad.write_text("0\n9\n" + "0\n" * (circuit.n - 2))
    heavy = tmp_path / "heavy.fix"
    heavy.write_text("0\n" * circuit.n)
    over = tmp_path / "over.fix"
    over.write_text("5\n" + "-1\n" * (circuit.n - 1))
    for params, message in [
        ({"initial": str(bad)}, f"{bad}:2: block id 9 is not below k = 4"),
        ({"fixed": str(over)}, f"{over}:1"),
        ({"fixed": str(heavy)}, "fixed to block 0 weigh"),
        ({"initial": str(tmp_path / "none.part")}, "none.part"),
        ({"preset": "fast"}, "unknown preset 'fast'"),
    ]:
        r = srv.handle(json.dumps({"id": 3, "method": "partition",
                                   "params": {"k": 4, "backend": "cpu", **params}}))
        assert not r["ok"] and message in r["error"]["message"], (params, r)
        options = " ".join(f"-{key} {{{value}}}" for key, value in params.items())
        with pytest.raises(IgpartError, match=re.escape(message)):
            b.eval(f"igpart::partition -k 4 -backend cpu {options}")
    check(srv.commands.session, "quality")
    check(b.commands.session, "speed")


# ------------------------------------------------------------------------------ block weights
def skewed_bounds(total: int, vwgt, ratios, slack: float = 0.03) -> np.ndarray:
    """Bounds in the proportions ``ratios`` with room for the heaviest vertex."""
    r = np.asarray(ratios, dtype=np.float64)
    return (np.ceil((1 + slack) * total * r / r.sum()) + int(np.max(vwgt))).astype(np.int64)


@pytest.mark.parametrize("be", BACKENDS)
@pytest.mark.parametrize("kind", ["hypergraph", "graph"])
@pytest.mark.parametrize("ratios", [(1, 2, 4, 8), (8, 1), (3, 1, 1, 1, 1, 1, 1, 2)])
def test_block_weights_are_respected(be, kind, ratios):
    rng = np.random.default_rng(len(ratios) * 7 + (kind == "graph"))
    for trial in range(3):
        n = int(rng.integers(300, 1500))
        x = (random_graph(rng, n, 3 * n, weighted=True) if kind == "graph"
             else random_hypergraph(rng, n, 2 * n, max_size=6, weighted=True))
        k = len(ratios)
        bounds = skewed_bounds(x.total_weight, x.vwgt, ratios)
        p = igpart.partition(x, k, backend=be, seed=trial, max_block_weights=bounds,
                             config=DEVICE_GRAPH_LEVELS)
        weights = igpart.block_weights(x, p.parts, k)
        assert (weights <= bounds).all(), (weights, bounds)
        assert p.balanced and p.imbalance <= 0
        assert p.imbalance == pytest.approx((weights / bounds).max() - 1)
        assert list(p.max_block_weights) == list(bounds)
        assert p.to_dict()["max_block_weights"] == [int(b) for b in bounds]


@pytest.mark.parametrize("engine", BACKENDS)
def test_session_keeps_block_weights_through_batches(engine):
    from igpart.plugin import Session

    h = random_circuit(1500, seed=21)
    k = 4
    bounds = skewed_bounds(h.total_weight, h.vwgt, (1, 2, 3, 6), slack=0.05) + 60
    fixed = np.full(h.n, -1, dtype=np.int32)
    fixed[:40:4] = 3
    s = Session(h, k=k, max_block_weights=bounds, fixed=fixed, engine=engine,
                options={"max_change_fraction": 0.05})
    m = s.metrics()
    assert m["balanced"] and m["max_block_weights"] == bounds.tolist()
    assert (igpart.block_weights(h, s.parts, k) <= bounds).all()
    rng = np.random.default_rng(3)
    full = 0
    for _ in range(6):
        for _ in range(12):  # new vertices, each pulled towards the light blocks' nets
            v = s.insert_vertex(2)
            for e in rng.choice(h.m, 2, replace=False).tolist():
                s.insert_pin(v, int(e))
        r = s.refine()
        full += r.full_repartition
        # the incremental refinement itself keeps the bounds (no re-partition to restore them)
        assert r.reason is None or "balance bound" not in r.reason, r.reason
        snap = s.dynamic.to_hypergraph()
        weights = igpart.block_weights(snap.hypergraph, snap.parts, k)
        assert r.balanced and (weights <= bounds).all(), (weights, bounds)
        assert (s.parts[: h.n][fixed >= 0] == 3).all()
        assert r.imbalance == pytest.approx((weights / bounds).max() - 1)
    assert full >= 1  # the quality guard's re-partitions keep the bounds too
    # a batch that makes the design heavier than the bounds allow: refused, nothing changed
    before = s.parts.copy()
    s.insert_vertex(int(bounds.sum()))
    with pytest.raises(InputError, match="more than the per-block maximum weights allow"):
        s.refine()
    assert np.array_equal(s.parts, before)
    with pytest.raises(InputError, match=f"fixed to block 0 would weigh .* more than its "
                                         f"maximum weight {bounds[0]}"):
        s.engine.fix(np.arange(h.n), np.zeros(h.n, np.int64))


@pytest.mark.tcl
def test_plugin_partition_takes_block_weights(circuit, tmp_path):
    from igpart.plugin import JsonLinesServer
    from igpart.plugin.tcl import TclBridge

    hgr = tmp_path / "c.hgr"
    igpart.io.write_hgr(circuit, hgr)
    bounds = skewed_bounds(circuit.total_weight, circuit.vwgt, (1, 2, 4, 8))
    srv = JsonLinesServer()
    srv.handle(json.dumps({"id": 1, "method": "read", "params": [str(hgr)]}))
    r = srv.handle(json.dumps({"id": 2, "method": "partition", "params": {
        "k": 4, "backend": "cpu", "block_weights": bounds.tolist()}}))
    assert r["ok"] and r["result"]["max_block_weights"] == bounds.tolist(), r
    weights = igpart.block_weights(circuit, srv.commands.session.parts, 4)
    assert (weights <= bounds).all() and weights[3] > 4 * weights[0]
    b = TclBridge()
    b.eval(f"igpart::read {{{hgr}}}")
    b.eval(f"igpart::partition -k 4 -backend cpu -block_weights {','.join(map(str, bounds))}")
    assert (igpart.block_weights(circuit, b.commands.session.parts, 4) <= bounds).all()
    for value, message in [(bounds.tolist()[:3], "expected one per block"),
                           ([-1, 1, 1, circuit.total_weight], "is negative"),
                           ([1, 1, 1, 1], "less than the total vertex weight"),
                           ("1,x,3,4", "'x' is not a non-negative integer")]:
        r = srv.handle(json.dumps({"id": 3, "method": "partition", "params": {
            "k": 4, "backend": "cpu", "block_weights": value}}))
        assert not r["ok"] and message in r["error"]["message"], (value, r)
    assert srv.commands.session.engine.targets.tolist() == bounds.tolist()  # the session stays


def test_block_weights_skew_the_blocks(circuit):
    bounds = skewed_bounds(circuit.total_weight, circuit.vwgt, (1, 2, 4, 8), slack=0.0)
    p = igpart.partition(circuit, 4, backend="cpu", max_block_weights=bounds)
    weights = igpart.block_weights(circuit, p.parts, 4)
    assert (weights <= bounds).all()
    assert weights[3] > 4 * weights[0]  # aimed at the targets, not merely under the bounds


def test_zero_block_weight_leaves_the_block_empty():
    h = random_circuit(400, seed=2)
    bounds = [0, h.total_weight // 2 + 20, h.total_weight // 2 + 20]
    p = igpart.partition(h, 3, backend="cpu", max_block_weights=bounds)
    assert p.balanced and not (p.parts == 0).any()


@pytest.mark.parametrize("bad, message", [
    ([100, 100], "2 entries, expected one per block"),
    ([-1, 10_000, 10_000], r"max_block_weights\[0\] = -1 is negative"),
    ([10, 10, 10], "less than the total vertex weight"),
    ([1000.5, 1000, 1000], "is not an integer"),
    (["a", "b", "c"], "must be integers"),
])
def test_bad_block_weights(bad, message):
    h = random_circuit(300, seed=4)
    with pytest.raises(InputError, match=message):
        igpart.partition(h, 3, max_block_weights=bad)
    with pytest.raises(InputError, match=message):
        igpart.improve(h, np.arange(h.n) % 3, 3, max_block_weights=bad)


# ------------------------------------------------------------------------------ improve
@pytest.mark.parametrize("be", BACKENDS)
def test_improve_is_never_worse_than_a_balanced_input(be):
    rng = np.random.default_rng(11)
    for trial in range(4):
        n = int(rng.integers(200, 800))
        h = random_hypergraph(rng, n, 2 * n, max_size=5)
        k = int(rng.choice([2, 3, 5]))
        for start in (np.arange(n) % k, igpart.partition(h, k, backend=be, seed=trial).parts):
            before = evaluate(h, start, k, 0.03)
            assert before["balanced"]
            for objective in ("cut", "km1"):
                p = igpart.improve(h, start, k, objective=objective, backend=be, seed=trial)
                assert p.balanced and p.algorithm == "multilevel-warm"
                assert getattr(p, objective) <= before[objective]
                assert getattr(p, objective) == evaluate(h, p.parts, k)[objective]


@pytest.mark.parametrize("be", BACKENDS)
def test_improve_on_a_graph_is_never_worse(be):
    rng = np.random.default_rng(5)
    g = random_graph(rng, 900, 2700, weighted=True)
    cfg = DEVICE_GRAPH_LEVELS
    for start in (np.arange(g.n) % 4,
                  igpart.partition(g, 4, backend=be, preset="speed", config=cfg).parts):
        before = evaluate(g, start, 4, 0.03)
        p = igpart.improve(g, start, 4, backend=be, preset="speed", config=cfg)
        assert p.balanced and p.cut <= before["cut"] and p.cut == evaluate(g, p.parts, 4)["cut"]


def test_improve_balances_an_unbalanced_input_and_respects_block_weights(circuit):
    start = np.zeros(circuit.n, dtype=np.int32)
    start[: circuit.n // 10] = 1
    p = igpart.improve(circuit, start, 2, backend="cpu", preset="speed")
    assert p.balanced and p.config["vcycles"] == 0
    bounds = skewed_bounds(circuit.total_weight, circuit.vwgt, (1, 3))
    q = igpart.improve(circuit, start, 2, backend="cpu", max_block_weights=bounds)
    assert q.balanced and (igpart.block_weights(circuit, q.parts, 2) <= bounds).all()
    with pytest.raises(InputError, match="vcycles"):
        igpart.improve(circuit, start, 2, vcycles=-1)


# ------------------------------------------------------------------------------ command line
def test_cli_preset_block_weights_and_initial(circuit, tmp_path):
    hgr = tmp_path / "c.hgr"
    igpart.io.write_hgr(circuit, hgr)
    first = tmp_path / "first.part"
    r = run("partition", hgr, "-k", 4, "--preset", "speed", "-o", first, "--json", "-t", 1)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["config"]["preset"] == "speed" and d["config"]["vcycles"] == 0

    out = tmp_path / "better.part"
    r = run("partition", hgr, "-k", 4, "--initial", first, "-o", out, "--json", "-t", 1)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["algorithm"] == "multilevel-warm"
    start = evaluate(circuit, igpart.read_partition(first), 4)
    assert d["cut"] <= start["cut"] and d["cut"] == evaluate(
        circuit, igpart.read_partition(out), 4)["cut"]

    bounds = skewed_bounds(circuit.total_weight, circuit.vwgt, (1, 2, 4, 8))
    weights_file = tmp_path / "w.txt"
    weights_file.write_text("".join(f"{b}\n" for b in bounds))
    for spec in (weights_file, ",".join(map(str, bounds))):
        r = run("partition", hgr, "-k", 4, "--block-weights", spec, "-o", out, "--json",
                "-t", 1)
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert d["max_block_weights"] == [int(b) for b in bounds] and d["balanced"]
        assert (igpart.block_weights(circuit, igpart.read_partition(out), 4) <= bounds).all()
    # evaluate measures balance against the same bounds: one block's bound too small fails it
    tight = bounds.copy()
    tight[0] = igpart.block_weights(circuit, igpart.read_partition(out), 4)[0] - 1
    tight[3] += circuit.total_weight
    r = run("evaluate", hgr, out, "-k", 4, "--block-weights", ",".join(map(str, tight)), "--json")
    assert r.returncode == 3 and json.loads(r.stdout)["balanced"] is False


def test_cli_bad_inputs_name_file_and_line(circuit, tmp_path):
    hgr = tmp_path / "c.hgr"
    igpart.io.write_hgr(circuit, hgr)
    bad = tmp_path / "bad.part"
    bad.write_text("0\n1\n7\n" + "0\n" * (circuit.n - 3))
    r = run("partition", hgr, "-k", 4, "--initial", bad)
    assert r.returncode == 1 and f"{bad}:3: block id 7 is not below k = 4" in r.stderr
    assert "Traceback" not in r.stderr
    weights = tmp_path / "w.txt"
    weights.write_text("500\n-2\n500\n500\n")
    r = run("partition", hgr, "-k", 4, "--block-weights", weights)
    assert r.returncode == 1 and f"{weights}:2: negative block weight -2" in r.stderr
    r = run("partition", hgr, "-k", 4, "--block-weights", "1,2,3")
    assert r.returncode == 1 and "3 weights, expected k = 4" in r.stderr
    r = run("partition", hgr, "-k", 4, "--block-weights", "1,2,3,4")
    assert r.returncode == 1 and "less than the total vertex weight" in r.stderr
    r = run("partition", hgr, "-k", 4, "--initial", bad, "--algorithm", "metis")
    assert r.returncode == 1 and "--initial" in r.stderr
    # fixed vertices heavier than their block's own bound; a fixed block not below k
    fix = tmp_path / "c.fix"
    fix.write_text("1\n" * 50 + "-1\n" * (circuit.n - 50))
    w = int(circuit.vwgt[:50].sum())
    r = run("partition", hgr, "-k", 4, "--fixed", fix, "--block-weights",
            f"{circuit.total_weight},{w - 1},{circuit.total_weight},{circuit.total_weight}")
    assert r.returncode == 1 and f"fixed to block 1 weigh {w}, more than its maximum weight " \
        f"{w - 1}" in r.stderr and "Traceback" not in r.stderr
    fix.write_text("4\n" + "-1\n" * (circuit.n - 1))
    r = run("partition", hgr, "-k", 4, "--fixed", fix)
    assert r.returncode == 1 and f"{fix}:1" in r.stderr and "Traceback" not in r.stderr
