"""Incremental engine (igpart.incremental): after every batch the maintained metrics equal a
from-scratch recomputation, the partition is balanced, the reported moves are the real ones, the
work stays local, and the quality guard re-partitions when its limits are passed."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import BatchError, Graph, Hypergraph, InputError, improve, partition
from igpart.dynamic import Batch
from igpart.generators import random_circuit
from igpart.incremental import IncrementalConfig, IncrementalPartitioner
from igpart.metrics import edge_cut, evaluate
from igpart.partitioner.driver import REPETITION_SEED_STRIDE

from .dynamic_model import Model, random_batch
from .util import random_graph, random_hypergraph

NO_GUARD = {"guard": False}


def assert_oracle(ip: IncrementalPartitioner, before: np.ndarray, result) -> None:
    """Maintained metrics equal a from-scratch evaluation; balanced; the reported moves are
    exactly the vertices (live before and after) whose block changed."""
    d = ip.dynamic
    snap = d.to_hypergraph()
    want = evaluate(snap.hypergraph, snap.parts, ip.k, ip.epsilon)
    assert (result.cut, result.km1) == (want["cut"], want["km1"])
    assert (d.cut, d.km1) == (want["cut"], want["km1"])
    np.testing.assert_array_equal(result.block_weights, want["block_weights"])
    assert result.balanced and want["balanced"]
    d.check()
    now = d.parts
    n0 = before.size
    live = (before >= 0) & (now[:n0] >= 0)
    changed = np.flatnonzero(live & (before != now[:n0]))
    np.testing.assert_array_equal(np.sort(result.moved), changed)
    np.testing.assert_array_equal(result.moved_from, before[result.moved])
    np.testing.assert_array_equal(result.moved_to, now[result.moved])
    np.testing.assert_array_equal(result.new_blocks, now[result.new_vertices])


@pytest.mark.parametrize("objective", ["cut", "km1"])
def test_thousand_random_batches_oracle(objective):
    """1,000 random batches (inserts, deletions, pin changes, weight changes): after every one
    the maintained cut / km1 / block weights equal a recomputation and the partition is
    balanced (the guard is on, as users run it)."""
    rng = np.random.default_rng(7)
    h = random_hypergraph(rng, 80, 90, max_size=5)
    parts = np.arange(80, dtype=np.int32) % 4
    options = {"cut_drift_slack": 4, "max_change_fraction": 0.5}
    ip = IncrementalPartitioner(h, 4, 0.1, objective, parts=parts, options=options)
    model = Model(h, parts, 4)
    fulls = 0
    for i in range(1000):
        before = ip.parts
        batch = random_batch(model, rng, int(rng.integers(1, 12)), weighted=bool(i % 2))
        r = ip.apply(batch)
        assert r.batch == i and r.records == len(batch)
        assert_oracle(ip, before, r)
        fulls += r.full_repartition
        for v, b in zip(r.moved, r.moved_to):  # keep the model's blocks in step
            model.move(int(v), int(b))
        for v, b in zip(r.new_vertices, r.new_blocks):
            model.move(int(v), int(b))
    assert 0 < fulls < 1000 and ip.full_partitions == fulls


@pytest.mark.parametrize("phi", ["dense", "sparse"])
def test_random_batches_without_guard_stay_balanced_and_local(phi):
    rng = np.random.default_rng(3)
    h = random_circuit(3000, seed=2)
    ip = IncrementalPartitioner(h, 8, 0.03, options=NO_GUARD, phi=phi, seed=1)
    model = Model(h, ip.parts, 8)
    for _ in range(40):
        before = ip.parts
        r = ip.apply(random_batch(model, rng, 10, weighted=False))
        assert not r.full_repartition and r.reason is None
        assert_oracle(ip, before, r)
        assert r.stats["seq_gain"] >= 0 and r.stats["fm_gain"] >= 0
        # work proportional to the affected region, not to the design
        assert r.stats["affected"] < 600
        for v, b in zip(np.concatenate([r.moved, r.new_vertices]),
                        np.concatenate([r.moved_to, r.new_blocks])):  # fmt: skip
            model.move(int(v), int(b))


def test_new_vertex_joins_the_block_of_its_nets():
    """A new vertex whose nets all lie in one block with room goes there (pseudo-partition
    placement), whatever block insertion gave it."""
    h = Hypergraph.from_nets([[0, 1], [1, 2], [3, 4], [4, 5]], n=6)
    ip = IncrementalPartitioner(h, 2, 0.5, parts=[0, 0, 0, 1, 1, 1], options=NO_GUARD)
    b = Batch()
    v = b.insert_vertex(1, block=0)
    e = b.insert_net()
    b.insert_pin(v, e)
    b.insert_pin(4, e)
    b.insert_pin(v, 2)
    r = ip.apply(b)
    new = int(r.new_vertices[0])
    assert r.new_blocks.tolist() == [1] and ip.dynamic.blocks_of([new]).tolist() == [1]
    assert r.cut == 0


def test_deletions_shrink_the_bound_and_the_engine_rebalances():
    """Deleting vertices of the lighter block lowers the bound below the heavier block's weight;
    refinement pulls vertices out of it until it fits again."""
    nets = [[i, i + 1] for i in range(39)]
    h = Hypergraph.from_nets(nets, n=40)
    parts = np.array([0] * 21 + [1] * 19, dtype=np.int32)
    ip = IncrementalPartitioner(h, 2, 0.05, parts=parts, options=NO_GUARD)
    b = Batch()
    for v in range(30, 40):
        for e in ip.dynamic.nets_of(v):
            b.delete_pin(v, int(e))
        b.delete_vertex(v)
    before = ip.parts
    r = ip.apply(b)
    assert r.max_block_weight == 15 and r.balanced
    assert r.stats["pulled"] > 0
    assert_oracle(ip, before, r)


def test_graph_sessions_keep_the_edge_cut():
    rng = np.random.default_rng(11)
    g = random_graph(rng, 200, 600)
    ip = IncrementalPartitioner(g, 4, 0.05, options=NO_GUARD)
    for _ in range(20):
        b = Batch()
        for _ in range(5):
            e = b.insert_net()
            u, v = rng.choice(ip.dynamic.num_vertices, size=2, replace=False)
            b.insert_pin(int(u), e)
            b.insert_pin(int(v), e)
        before = ip.parts
        r = ip.apply(b)
        assert_oracle(ip, before, r)
    snap = ip.dynamic.to_hypergraph()
    hg = snap.hypergraph
    u = hg.eind[0::2]
    w = hg.eind[1::2]
    g2 = Graph.from_edges(u, w, hg.ewgt, n=hg.n)
    assert edge_cut(g2, snap.parts) == ip.dynamic.cut


def test_guard_repartitions_when_changes_exceed_the_fraction():
    h = random_circuit(2000, seed=4)
    ip = IncrementalPartitioner(h, 4, options={"max_change_fraction": 0.001})
    rng = np.random.default_rng(0)
    model = Model(h, ip.parts, 4)
    r = ip.apply(random_batch(model, rng, 2, weighted=False))
    assert not r.full_repartition
    before = ip.parts
    r = ip.apply(random_batch(model, rng, 8, weighted=False))
    assert r.full_repartition and "exceed 0.1%" in r.reason
    assert ip.full_partitions == 1
    assert_oracle(ip, before, r)


def test_guard_repartitions_when_the_cut_drifts():
    h = random_circuit(2000, seed=5)
    options = {"max_cut_drift": 0.0, "cut_drift_slack": 0, "max_change_fraction": 1.0,
               "refine_rounds": 0, "fm": False, "expand": 0}  # fmt: skip
    ip = IncrementalPartitioner(h, 4, options=options)
    d = ip.dynamic
    lam = d.connectivity
    # one vertex per block whose nets (at least two) are all uncut: it stays put when a new
    # net joins it to the other three, so the cut rises by one past the reference
    pins = []
    for blk in range(4):
        for v in np.flatnonzero(d.parts == blk):
            nets = d.nets_of(int(v))
            if nets.size >= 2 and np.all(lam[nets] == 1):
                pins.append(int(v))
                break
    b = Batch()
    e = b.insert_net()
    for v in pins:
        b.insert_pin(v, e)
    before = ip.parts
    r = ip.apply(b)
    assert r.full_repartition and "drifted" in r.reason
    assert_oracle(ip, before, r)
    forced = ip.repartition("test")
    assert forced.full_repartition and forced.reason == "test" and forced.balanced


def test_invalid_batch_changes_nothing():
    h = random_circuit(500, seed=1)
    ip = IncrementalPartitioner(h, 4, options=NO_GUARD)
    state = ip.dynamic.dump_state()
    b = Batch()
    b.insert_vertex()
    b.delete_pin(0, 10**6)
    with pytest.raises(BatchError, match="record 1"):
        ip.apply(b)
    after = ip.dynamic.dump_state()
    assert state.keys() == after.keys()
    for key in state:
        np.testing.assert_array_equal(state[key], after[key], err_msg=key)
    assert ip.batches == 0


def test_refine_without_a_batch_only_improves():
    h = random_circuit(3000, seed=9)
    rng = np.random.default_rng(1)
    parts = rng.integers(0, 4, size=h.n).astype(np.int32)
    ip = IncrementalPartitioner(h, 4, 0.1, parts=parts, options=NO_GUARD)
    cut0 = ip.dynamic.cut
    before = ip.parts
    r = ip.refine(touched_vertices=np.arange(0, 3000, 3))
    assert r.cut < cut0
    assert_oracle(ip, before, r)


def test_improve_warm_start_is_balanced_and_not_worse():
    h = random_circuit(4000, seed=3)
    p = improve(h, np.arange(h.n) % 4, 4, 0.03, seed=0)
    assert p.balanced and p.algorithm == "multilevel-warm"
    again = improve(h, p.parts, 4, 0.03, seed=1)
    assert again.balanced and again.cut <= p.cut


@pytest.mark.parametrize(
    "options, message",
    [
        ({"max_net_size": 1}, "max_net_size"),
        ({"expand": -1}, "expand"),
        ({"max_change_fraction": -0.5}, "max_change_fraction"),
        ({"nope": 1}, "unknown incremental option"),
        ({"initial_repetitions": 0}, "initial_repetitions must be an integer >= 1, got 0"),
        ({"initial_repetitions": True}, "initial_repetitions must be an integer >= 1"),
        ({"initial_repetitions": 2.5}, "initial_repetitions must be an integer >= 1"),
        ({"initial_repetitions": "3"}, "initial_repetitions must be an integer >= 1"),
    ],
)
def test_bad_options(options, message):
    h = Hypergraph.from_nets([[0, 1], [1, 2]], n=3)
    with pytest.raises(InputError, match=message):
        IncrementalPartitioner(h, 2, parts=[0, 0, 1], options=options)
    with pytest.raises(InputError, match="objective"):
        IncrementalPartitioner(h, 2, objective="soed", parts=[0, 0, 1])
    assert IncrementalConfig().validate().guard


@pytest.mark.parametrize("objective", ["cut", "km1"])
def test_initial_partition_is_the_best_of_its_repetitions(objective):
    """Without ``parts`` the engine starts from the best of ``initial_repetitions`` full runs
    (never worse than the single run, which is the first of them); its maintained metrics equal
    a from-scratch evaluation, and stay equal through batches."""
    h = random_circuit(3000, seed=4)
    runs = 3
    ip = IncrementalPartitioner(h, 8, 0.03, objective, backend="cpu", seed=5,
                                options={"initial_repetitions": runs})  # fmt: skip
    singles = [partition(h, 8, 0.03, objective, "cpu", 5 + i * REPETITION_SEED_STRIDE)
               for i in range(runs)]  # fmt: skip
    assert ip.objective_value == min(p.objective_value for p in singles)
    assert ip.objective_value <= singles[0].objective_value
    assert ip.initial_seconds > 0
    want = evaluate(h, ip.parts, 8, 0.03)
    assert (ip.dynamic.cut, ip.dynamic.km1) == (want["cut"], want["km1"]) and want["balanced"]
    np.testing.assert_array_equal(ip.dynamic.block_weights, want["block_weights"])
    model, rng = Model(h, ip.parts, 8), np.random.default_rng(2)
    for _ in range(5):
        before = ip.parts
        assert_oracle(ip, before, ip.apply(random_batch(model, rng, 8, weighted=False)))


def test_initial_repetitions_meet_the_config_and_given_parts():
    """The config's ``repetitions`` wins when larger (and stays the config the guard uses);
    given ``parts`` are taken as they are, with no initial partition."""
    h = random_circuit(1500, seed=6)
    cfg = {"repetitions": 2}
    ip = IncrementalPartitioner(h, 4, 0.05, backend="cpu", seed=1, config=cfg,
                                options={"initial_repetitions": 1})  # fmt: skip
    want = partition(h, 4, 0.05, backend="cpu", seed=1, config=cfg).parts
    np.testing.assert_array_equal(ip.parts, want)
    assert ip.config.repetitions == 2
    ip = IncrementalPartitioner(h, 4, 0.05, backend="cpu", seed=1,
                                options={"initial_repetitions": 3})  # fmt: skip
    assert ip.config.repetitions == 1  # the user's config, not the initial partition's
    given = np.arange(h.n, dtype=np.int32) % 4
    ip = IncrementalPartitioner(h, 4, 0.05, parts=given, options={"initial_repetitions": 4})
    np.testing.assert_array_equal(ip.parts, given)
    assert ip.initial_seconds == 0.0
