"""Fixed vertices: pre-assigned vertices stay in their block through every stage (the backends'
``locked`` masks, coarsening, initial partitioning, recursive bisection, V-cycles, ``improve``,
incremental sessions), the fix-file reader, the CLI and the bad-input errors. GPU versions of
the backend properties carry the ``gpu`` marker."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
from igpart.dynamic import Batch
from igpart.errors import InputError
from igpart.fixed import align_to_fixed, best_renaming, check_fixed, coarse_fixed, fixed_labels
from igpart.generators import random_circuit
from igpart.io import read_fixed, read_partition, write_hgr
from igpart.kernels import get_backend
from igpart.metrics import max_block_weight
from igpart.partitioner.driver import bisect
from igpart.partitioner.initial import recursive as rb

from .test_jet import jet_cases
from .test_multilevel import check_partition
from .test_stages import bounds_for, host, objective

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CPU = get_backend("cpu")


@pytest.fixture(scope="module", params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def be(request):
    return get_backend(request.param)


def random_fixed(n: int, k: int, fraction: float, seed: int) -> np.ndarray:
    """About ``fraction`` of the vertices fixed to random blocks, the rest -1."""
    rng = np.random.default_rng(seed)
    fixed = np.full(n, -1, dtype=np.int32)
    sel = rng.random(n) < fraction
    fixed[sel] = rng.integers(0, k, int(sel.sum()))
    return fixed


def assert_fixed_kept(parts, fixed) -> None:
    sel = fixed >= 0
    assert np.array_equal(np.asarray(parts)[sel], fixed[sel])


# ------------------------------------------------------------------ the backends' locked masks
@st.composite
def locked_cases(draw):
    """Jet's random cases (tests/test_jet.py) with a random share of the vertices locked."""
    h, k, parts, bounds, obj, options = draw(jet_cases())
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    locked = (rng.random(h.n) < draw(st.sampled_from([0.1, 0.5, 0.9]))).astype(np.uint8)
    return h, k, parts, locked, bounds, obj, options["seed"]


def _refine(be, method: str, ha, parts, k, bounds, obj, seed, locked):
    """One refinement of the backend with a locked mask: (parts, gain)."""
    args = (ha, be.asarray(parts, "int32"), k, be.asarray(bounds), obj)
    lk = {"locked": be.asarray(locked)}
    if method == "sequence":
        return be.refine_hypergraph(*args, **lk)
    if method == "fm":
        return be.fm_refine_hypergraph(*args, seed=seed, **lk)
    return be.jet_refine_hypergraph(*args, seed=seed, **lk)


@FAST
@given(locked_cases(), st.sampled_from(["sequence", "fm", "jet"]))
def test_refinement_never_moves_locked_and_never_worsens(be, case, method):
    h, k, parts, locked, bounds, obj, seed = case
    out, gain = _refine(be, method, be.hypergraph_arrays(h), parts, k, bounds, obj, seed, locked)
    out = host(be, out)
    assert out.shape == (h.n,) and np.all((out >= 0) & (out < k))
    sel = locked.astype(bool)
    assert np.array_equal(out[sel], parts[sel])
    assert gain == objective(h, parts, k, obj) - objective(h, out, k, obj) >= 0


@FAST
@given(locked_cases())
def test_rebalance_never_moves_locked_and_balances_when_it_can(be, case):
    h, k, parts, locked, bounds, obj, _ = case
    ha = be.hypergraph_arrays(h)
    out = host(be, be.rebalance_hypergraph(ha, be.asarray(parts, "int32"), k,
                                           be.asarray(bounds), obj, locked=be.asarray(locked)))
    sel = locked.astype(bool)
    assert np.array_equal(out[sel], parts[sel])
    # unit weights: balanced whenever the locked weight leaves room (total <= sum of bounds)
    if np.all(h.vwgt == 1):
        fixed_load = np.bincount(parts[sel], minlength=k)
        if np.all(fixed_load <= bounds) and h.n <= bounds.sum():
            assert np.all(np.bincount(out, minlength=k) <= bounds)


def test_rebalance_moves_only_free_vertices_out_of_an_overloaded_block(be):
    h = random_circuit(400, seed=5)
    parts = np.zeros(h.n, dtype=np.int32)  # everything in block 0
    locked = np.zeros(h.n, dtype=np.uint8)
    locked[::5] = 1  # 80 vertices: within the bound of 103
    bounds = bounds_for(h.total_weight, 4)
    out = host(be, be.rebalance_hypergraph(be.hypergraph_arrays(h), be.asarray(parts, "int32"),
                                           4, be.asarray(bounds), "cut",
                                           locked=be.asarray(locked)))
    assert np.all(out[::5] == 0)
    assert np.all(np.bincount(out, minlength=4) <= bounds)


def test_refine_candidates_keep_locked():
    h = random_circuit(300, seed=2)
    rng = np.random.default_rng(0)
    cands = rng.integers(0, 4, (5, h.n)).astype(np.int32)
    locked = (rng.random(h.n) < 0.3).astype(np.uint8)
    out, values = CPU.refine_candidates(CPU.hypergraph_arrays(h), cands, 4,
                                        bounds_for(h.total_weight, 4), "km1", locked=locked)
    sel = locked.astype(bool)
    for row, cand, value in zip(out, cands, values):
        assert np.array_equal(row[sel], cand[sel])
        assert value == igpart.km1(h, row, 4)


def test_locked_mask_of_the_wrong_length_is_refused():
    h = random_circuit(50, seed=1)
    with pytest.raises(ValueError, match="locked"):
        CPU.refine_hypergraph(CPU.hypergraph_arrays(h), np.zeros(h.n, np.int32), 2,
                              bounds_for(h.total_weight, 2), "cut",
                              locked=np.zeros(h.n - 1, np.uint8))


# ------------------------------------------------------------------ coarsening helpers
def test_fixed_labels_keep_blocks_apart_and_coarse_fixed_follows():
    rng = np.random.default_rng(3)
    fixed = random_fixed(500, 4, 0.3, 1)
    communities = rng.integers(0, 7, 500).astype(np.int32)
    labels = fixed_labels(np, fixed, communities)
    # same label -> same fixed state and the same community for free vertices
    for lab in np.unique(labels):
        members = labels == lab
        assert len(set(fixed[members].tolist())) == 1
        if fixed[members][0] < 0:
            assert len(set(communities[members].tolist())) == 1
    h = random_circuit(500, seed=4)
    cmap, nc = CPU.cluster_hypergraph(CPU.hypergraph_arrays(h), 10, communities=labels)
    cf = coarse_fixed(np, fixed, cmap, nc)
    assert np.array_equal(cf[cmap], fixed)  # every member shares its cluster's fixed block


@pytest.mark.parametrize("method", ["cluster", "hyperg"])
def test_every_clustering_keeps_differently_fixed_vertices_apart(be, method):
    # on each backend's own clustering (the GPU kernels included): with the labels of
    # fixed_labels, a cluster never holds vertices fixed to different blocks nor fixed and free
    h = random_circuit(3000, seed=11)
    fixed = random_fixed(h.n, 4, 0.3, seed=2)
    ha = be.hypergraph_arrays(h)
    labels = fixed_labels(be.xp, be.asarray(fixed, "int32"))
    mcw = h.total_weight // 20
    if method == "cluster":
        cmap, nc = be.cluster_hypergraph(ha, mcw, communities=labels, max_shrink=4.0, seed=3)
    else:
        cmap, nc = be.coarsen_hypergraph(ha, mcw, group_size=4, communities=labels, seed=3)
    cmap = host(be, cmap)
    assert nc < 0.8 * h.n  # it did cluster
    cf = np.full(nc, -2, dtype=np.int64)
    cf[cmap] = fixed
    assert np.array_equal(cf[cmap], fixed)  # one fixed state (block or free) per cluster
    assert np.array_equal(host(be, coarse_fixed(be.xp, be.asarray(fixed, "int32"), be.asarray(
        cmap, "int32"), nc))[cmap], fixed)


def test_best_renaming_equals_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(30):
        k = int(rng.integers(2, 5))
        parts = rng.integers(0, k, 30).astype(np.int32)
        fixed = random_fixed(30, k, 0.4, int(rng.integers(0, 1000)))
        vwgt = rng.integers(1, 5, 30).astype(np.int64)
        sel = fixed >= 0

        def kept(perm, parts=parts, fixed=fixed, vwgt=vwgt, sel=sel):
            return int(vwgt[sel][np.asarray(perm)[parts[sel]] == fixed[sel]].sum())

        perm = best_renaming(parts, fixed, vwgt, k)
        assert sorted(perm.tolist()) == list(range(k))
        assert kept(perm) == max(kept(p) for p in itertools.permutations(range(k)))
        out = align_to_fixed(parts, fixed, vwgt, k)
        assert_fixed_kept(out, fixed)
        assert np.array_equal(out[~sel], perm[parts[~sel]])
        # blocks of unequal bounds keep their names
        bounds = np.arange(k) + 10
        assert best_renaming(parts, fixed, vwgt, k, bounds).tolist() == list(range(k))


# ------------------------------------------------------------------ the partitioner
@pytest.mark.parametrize("obj", ["cut", "km1"])
@pytest.mark.parametrize("k", [2, 3, 8])
@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5])
def test_partition_keeps_fixed_vertices(be, obj, k, fraction):
    h = random_circuit(700 if be.name == "cpu" else 3000, seed=k)
    fixed = random_fixed(h.n, k, fraction, seed=k + 10)
    p = igpart.partition(h, k, objective=obj, backend=be.name, seed=1, fixed=fixed)
    assert p.backend == be.name
    assert_fixed_kept(p.parts, fixed)
    check_partition(h, p, k, 0.03)
    assert p.balanced
    if fraction == 0.0 and be.name == "cpu":  # nothing fixed: the run without the argument
        free = igpart.partition(h, k, objective=obj, backend="cpu", seed=1)
        assert np.array_equal(p.parts, free.parts)


@pytest.mark.parametrize("cfg", [
    {"initial": "metis"}, {"initial": "rb"}, {"coarsening": "hyperg"},
    {"refinement": "jet+fm"}, {"initial_bisector": "ghg"}, {"contraction_limit": 2},
])
def test_every_stage_variant_keeps_fixed_vertices(cfg):
    h = random_circuit(600, seed=3)
    k = 2 if cfg.get("initial_bisector") else 4
    fixed = random_fixed(h.n, k, 0.2, seed=5)
    p = igpart.partition(h, k, backend="cpu", seed=2, config=cfg, fixed=fixed)
    assert_fixed_kept(p.parts, fixed)
    assert p.balanced


def test_fixed_vertices_of_one_block_pull_their_neighbourhood():
    # a path: fixing the two ends to different blocks splits it once
    h = igpart.Hypergraph.from_nets([[i, i + 1] for i in range(99)])
    fixed = np.full(100, -1, np.int32)
    fixed[0], fixed[99] = 1, 0
    p = igpart.partition(h, 2, backend="cpu", fixed=fixed)
    assert p.parts[0] == 1 and p.parts[99] == 0 and p.cut == 1


def test_recursive_bisection_keeps_fixed_vertices():
    h = random_circuit(800, seed=6)
    fixed = random_fixed(h.n, 6, 0.15, seed=2)
    parts = rb.recursive_bisection(h, 6, 0.03, "km1", seed=1, runs=2, fixed=fixed, bisect=bisect)
    assert_fixed_kept(parts, fixed)


def test_graph_with_fixed_vertices(be):
    g = random_circuit(500 if be.name == "cpu" else 3000, seed=8).to_graph("clique")
    fixed = random_fixed(g.n, 4, 0.1, seed=3)
    p = igpart.partition(g, 4, backend=be.name, fixed=fixed)
    assert_fixed_kept(p.parts, fixed)
    check_partition(g, p, 4, 0.03)
    assert p.backend == be.name and p.balanced
    q = igpart.improve(g, p.parts, 4, backend=be.name, fixed=fixed)
    assert_fixed_kept(q.parts, fixed)
    assert q.balanced and q.cut <= p.cut


@pytest.mark.parametrize("kind", ["hypergraph", "graph"])
@pytest.mark.parametrize("k, ratios", [(2, (3, 1)), (4, (1, 2, 4, 8)),
                                       (8, (3, 1, 1, 1, 1, 1, 1, 2))])
def test_fixed_vertices_with_block_weights(be, kind, k, ratios):
    h = random_circuit(800 if be.name == "cpu" else 3000, seed=k + 20)
    x = h.to_graph("clique") if kind == "graph" else h
    r = np.asarray(ratios, dtype=np.float64)
    bounds = np.ceil(1.03 * x.total_weight * r / r.sum()).astype(np.int64) + int(x.vwgt.max())
    rng = np.random.default_rng(k)
    fixed = np.full(x.n, -1, dtype=np.int32)
    sel = rng.random(x.n) < 0.15
    fixed[sel] = rng.choice(k, int(sel.sum()), p=r / r.sum())  # blocks in the bounds' shares
    p = igpart.partition(x, k, backend=be.name, seed=1, fixed=fixed, max_block_weights=bounds)
    assert_fixed_kept(p.parts, fixed)
    assert (igpart.block_weights(x, p.parts, k) <= bounds).all() and p.balanced
    assert list(p.max_block_weights) == bounds.tolist()
    # improve keeps them too, within the same bounds, never worse than its balanced input
    q = igpart.improve(x, p.parts, k, backend=be.name, seed=2, fixed=fixed,
                       max_block_weights=bounds)
    assert_fixed_kept(q.parts, fixed)
    assert (igpart.block_weights(x, q.parts, k) <= bounds).all() and q.cut <= p.cut


def test_fixed_weight_above_a_block_weight_is_refused():
    h = igpart.Hypergraph.from_nets([[i, i + 1] for i in range(9)])
    fixed = np.array([0, 0, 0, 1] + [-1] * 6)
    with pytest.raises(InputError, match="fixed to block 0 weigh 3, more than its maximum "
                                         "weight 2"):
        igpart.partition(h, 2, backend="cpu", fixed=fixed, max_block_weights=[2, 8])
    with pytest.raises(InputError, match="fixed to block 0 weigh 3"):
        igpart.improve(h, np.arange(10) % 2, 2, backend="cpu", fixed=fixed,
                       max_block_weights=[2, 8])
    # within the bounds it is kept
    p = igpart.partition(h, 2, backend="cpu", fixed=fixed, max_block_weights=[3, 7])
    assert_fixed_kept(p.parts, fixed) and p.balanced


def test_improve_puts_and_keeps_fixed_vertices():
    h = random_circuit(600, seed=9)
    k = 4
    start = igpart.partition(h, k, backend="cpu", seed=1).parts
    fixed = random_fixed(h.n, k, 0.1, seed=4)
    p = igpart.improve(h, start, k, backend="cpu", fixed=fixed)
    assert_fixed_kept(p.parts, fixed)
    assert p.balanced


@pytest.mark.parametrize("fixed, match", [
    (np.full(10, -1)[:9], "one block id"),
    (np.array([0] * 9 + [2]), "out of range"),
    (np.array([0] * 9 + [-2]), "out of range"),
    (np.array([0.5] * 10), "integer"),
    (np.array([0] * 10), "weigh 10, more than its maximum weight"),
])
def test_bad_fixed_arrays_are_refused(fixed, match):
    h = igpart.Hypergraph.from_nets([[i, i + 1] for i in range(9)])
    with pytest.raises(InputError, match=match):
        igpart.partition(h, 2, backend="cpu", fixed=fixed)


def test_metis_algorithm_refuses_fixed_vertices():
    h = random_circuit(100, seed=1)
    with pytest.raises(InputError, match="metis"):
        igpart.partition(h, 2, algorithm="metis", fixed=random_fixed(h.n, 2, 0.1, 1))


def test_check_fixed_returns_none_without_fixed_vertices():
    assert check_fixed(np.full(5, -1), 5, 2) is None
    assert check_fixed(None, 5, 2) is None


# ------------------------------------------------------------------ fix files and the CLI
def test_read_fixed_and_its_errors(tmp_path):
    f = tmp_path / "a.fix"
    f.write_text("0\n-1\n% a comment\n2\n")
    assert read_fixed(f, n=3, k=3).tolist() == [0, -1, 2]
    cases = [
        ("0\n1 2\n-1\n", f"{f}:2", "exactly one"),
        ("0\n-3\n-1\n", f"{f}:2", "below -1"),
        ("0\n-1\n5\n", f"{f}:3", "not below k = 3"),
        ("0\n-1\n", str(f), "holds 2"),
        ("0\nx\n-1\n", f"{f}:2", ""),
    ]
    for text, where, what in cases:
        f.write_text(text)
        with pytest.raises(InputError) as exc:
            read_fixed(f, n=3, k=3)
        assert where in str(exc.value) and what in str(exc.value)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "igpart", *map(str, args)],
                          capture_output=True, text=True)


def test_cli_partition_with_a_fix_file(tmp_path, capsys):
    from igpart.cli import main

    h = random_circuit(400, seed=11)
    hgr, fix, out = tmp_path / "c.hgr", tmp_path / "c.fix", tmp_path / "c.part"
    write_hgr(h, hgr)
    fixed = random_fixed(h.n, 4, 0.1, seed=6)
    fix.write_text("".join(f"{b}\n" for b in fixed))
    r = _cli("partition", hgr, "-k", 4, "--fixed", fix, "-o", out, "--backend", "cpu", "--json")
    assert r.returncode == 0, r.stderr
    parts = read_partition(out, n=h.n, k=4)
    assert_fixed_kept(parts, fixed)
    assert json.loads(r.stdout)["cut"] == igpart.cut(h, parts, 4)
    # a bad line: the file and line, no traceback, non-zero, nothing written
    fix.write_text("".join(f"{b}\n" for b in fixed[:-1]) + "7\n")
    out.unlink()
    code = main(["partition", str(hgr), "-k", "4", "--fixed", str(fix), "-o", str(out),
                 "--backend", "cpu"])
    err = capsys.readouterr().err
    assert code != 0 and f"{fix}:{h.n}" in err and "Traceback" not in err
    assert not out.exists()


# ------------------------------------------------------------------ incremental sessions
ENGINES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("engine", ENGINES)
def test_session_keeps_fixed_cells_through_batches(engine):
    from igpart.plugin import Session

    h = random_circuit(1500, seed=12)
    k = 4
    fixed = random_fixed(h.n, k, 0.1, seed=7)
    s = Session(h, k=k, fixed=fixed, options={"max_change_fraction": 0.02}, engine=engine)
    assert_fixed_kept(s.parts, fixed)
    rng = np.random.default_rng(0)
    full = 0
    for _ in range(8):
        for _ in range(15):
            v = s.insert_vertex()
            for e in rng.integers(0, h.m, 2):
                s.insert_pin(v, int(e))
        r = s.refine()
        full += r.full_repartition
        f = s.engine.fixed
        assert_fixed_kept(s.parts, f)
        assert r.balanced and r.cut == igpart.cut(
            s.dynamic.to_hypergraph().hypergraph, s.dynamic.to_hypergraph().parts, k)
    assert full >= 1  # the quality guard re-partitioned with the cells fixed too
    # fix a free cell to another block: it moves there and stays
    v = int(np.flatnonzero(s.engine.fixed < 0)[0])
    target = (s.block_of(v) + 1) % k
    r = s.fix(v, target)
    assert s.block_of(v) == target and r.changed[v] == target and r.balanced
    assert s.fixed[v] == target
    r = s.fix(v, -1)
    assert v not in s.fixed
    with pytest.raises(InputError, match="out of range"):
        s.fix(v, k)


def test_deleted_fixed_vertex_is_freed_and_commands_fix():
    from igpart.plugin import Session
    from igpart.plugin.commands import Commands

    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]], n=7)
    s = Session(h, k=2, fixed={6: 1, 0: 0})
    assert s.block_of(6) == 1 and s.fixed == {0: 0, 6: 1}
    s.delete_vertex(6)
    s.refine()
    assert s.fixed == {0: 0}
    c = Commands(s)
    out = c.call("fix", "5", "1")
    assert s.block_of(5) == 1 and out["balanced"]
    with pytest.raises(InputError):
        c.call("fix", "5", "9")
    assert s.fixed == {0: 0, 5: 1}


def test_partition_command_reads_a_fix_file(tmp_path):
    from igpart.plugin.commands import Commands

    h = random_circuit(300, seed=13)
    hgr, fix = tmp_path / "d.hgr", tmp_path / "d.fix"
    write_hgr(h, hgr)
    fixed = random_fixed(h.n, 3, 0.2, seed=8)
    fix.write_text("".join(f"{b}\n" for b in fixed))
    c = Commands()
    c.call("read", str(hgr))
    c.call("partition", k=3, fixed=str(fix))
    assert_fixed_kept(np.asarray(c.call("blocks")), fixed)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("expand", [0, 1])
def test_incremental_refinement_never_moves_fixed_vertices(engine, expand):
    # batches that pull on fixed vertices (new pins to nets of other blocks, heavier weights
    # that overload their blocks): every refinement, its rebalancing included, leaves them
    from igpart.incremental import IncrementalPartitioner

    h = random_circuit(2000, seed=5)
    k = 4
    fixed = random_fixed(h.n, k, 0.3, seed=9)
    eng = IncrementalPartitioner(h, k, engine=engine, fixed=fixed, seed=1,
                                 options={"expand": expand, "max_change_fraction": 1.0,
                                          "max_cut_drift": 100.0})
    ids = np.flatnonzero(fixed >= 0)
    rng = np.random.default_rng(expand)
    pins = {(int(v), int(e)) for e in range(h.m) for v in h.eind[h.eptr[e]:h.eptr[e + 1]]}

    def new_pin(b, v):
        e = int(rng.integers(0, h.m))
        while (v, e) in pins:
            e = int(rng.integers(0, h.m))
        pins.add((v, e))
        b.insert_pin(v, e)

    for _ in range(6):
        b = Batch()
        for v in rng.choice(ids, 40, replace=False).tolist():
            new_pin(b, int(v))
        for v in rng.choice(h.n, 5, replace=False).tolist():
            b.set_vertex_weight(int(v), 3)
        r = eng.apply(b)
        assert_fixed_kept(eng.parts[: h.n], fixed)
        assert not np.isin(r.moved, ids).any()
        snap = eng.dynamic.to_hypergraph()
        assert r.cut == igpart.cut(snap.hypergraph, snap.parts, k)
    # fixing a vertex elsewhere moves it there, and it stays through the next batch
    v = int(np.flatnonzero(fixed < 0)[0])
    to = (int(eng.parts[v]) + 1) % k
    eng.fix([v], [to])
    b = Batch()
    new_pin(b, v)
    eng.apply(b)
    assert eng.parts[v] == to and eng.fixed[v] == to


def test_fixed_bound_is_the_block_bound():
    # exactly the bound fits; one more vertex fixed there does not
    h = igpart.Hypergraph.from_nets([[i, i + 1] for i in range(19)])
    bound = max_block_weight(h.total_weight, 2, 0.0)
    fixed = np.full(20, -1)
    fixed[:bound] = 0
    p = igpart.partition(h, 2, epsilon=0.0, backend="cpu", fixed=fixed)
    assert_fixed_kept(p.parts, fixed) and p.balanced
    fixed[bound] = 0
    with pytest.raises(InputError, match="block 0"):
        igpart.partition(h, 2, epsilon=0.0, backend="cpu", fixed=fixed)
