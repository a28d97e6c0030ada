"""Dynamic hypergraph (igpart.dynamic): structure and maintained metrics against a from-scratch
rebuild after random change sequences; pool growth; id recycling; invalid batches change nothing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from igpart import BatchError, Graph, Hypergraph, InputError
from igpart.dynamic import DENSE_PHI_MAX_K, Batch, DynamicHypergraph, Op, ref
from igpart.kernels import _cpu
from igpart.metrics import connectivity, edge_cut, evaluate, max_block_weight

from .dynamic_model import Model, random_batch
from .util import random_hypergraph

PHI_MODES = ("dense", "sparse")


def build(rng, n=40, m=50, k=4, eps=0.1, **options):
    h = random_hypergraph(rng, n, m, max_size=6, weighted=True)
    parts = rng.integers(0, k, size=n).astype(np.int32)
    return h, parts, DynamicHypergraph.from_hypergraph(h, parts, k, eps, **options)


def assert_matches(d: DynamicHypergraph, model: Model, eps: float) -> None:
    """The structure equals the model: live ids, weights, pins as sets, blocks, and the
    maintained metrics equal a from-scratch evaluation of the rebuilt hypergraph."""
    h, parts, vids, eids = model.rebuild()
    snap = d.to_hypergraph()
    np.testing.assert_array_equal(snap.vertex_ids, vids)
    np.testing.assert_array_equal(snap.net_ids, eids)
    np.testing.assert_array_equal(snap.parts, parts)
    np.testing.assert_array_equal(snap.hypergraph.vwgt, h.vwgt)
    np.testing.assert_array_equal(snap.hypergraph.ewgt, h.ewgt)
    np.testing.assert_array_equal(snap.hypergraph.net_sizes, h.net_sizes)
    got = np.sort(snap.hypergraph.eind.astype(np.int64) + h.n * snap.hypergraph.pin_nets)
    want = np.sort(h.eind.astype(np.int64) + h.n * h.pin_nets)
    np.testing.assert_array_equal(got, want)  # the same (pin, net) pairs
    alive = np.flatnonzero(d.vertex_alive)
    np.testing.assert_array_equal(alive, vids)
    np.testing.assert_array_equal(np.flatnonzero(d.net_alive), eids)
    np.testing.assert_array_equal(d.parts[vids], parts)
    assert np.all(d.parts[~d.vertex_alive] == -1)

    ref_metrics = evaluate(h, parts, d.k, eps)
    mine = d.metrics()
    for key in ("cut", "km1", "max_block_weight", "balanced", "imbalance"):
        assert mine[key] == ref_metrics[key], key
    np.testing.assert_array_equal(mine["block_weights"], ref_metrics["block_weights"])
    assert d.is_balanced == ref_metrics["balanced"]
    assert d.total_weight == h.total_weight
    assert d.max_block_weight == max_block_weight(h.total_weight, d.k, eps)
    np.testing.assert_array_equal(d.connectivity[eids], connectivity(h, parts, d.k))
    assert (d.num_vertices, d.num_nets, d.num_pins) == (h.n, h.m, h.num_pins)
    d.check()


def assert_same_state(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for key in before:
        assert before[key].dtype == after[key].dtype, key
        assert before[key].tobytes() == after[key].tobytes(), key


# ---------------------------------------------------------------------------- construction


@pytest.mark.parametrize("phi", PHI_MODES)
@pytest.mark.parametrize("gamma", [0, 1, 3])
def test_build_matches_hypergraph(phi, gamma):
    rng = np.random.default_rng(gamma)
    h, parts, d = build(rng, n=80, m=120, k=5, phi=phi, gamma=gamma)
    assert d.stats["phi"] == phi and d.stats["gamma"] == gamma
    assert_matches(d, Model(h, parts, 5), 0.1)
    lam = connectivity(h, parts, 5)
    for e in range(h.m):
        np.testing.assert_array_equal(d.phi(e), np.bincount(parts[h.net(e)], minlength=5))
        assert sorted(d.pins_of(e)) == sorted(h.net(e))
        assert d.connectivity[e] == lam[e]
    for v in range(h.n):
        assert sorted(d.nets_of(v)) == sorted(h.nets_of(v))
    # the initial build gives a list of D entries ceil(D / 32) + gamma buckets
    sizes = np.concatenate([h.vertex_degrees, h.net_sizes])
    assert d.stats["vertex_pool"]["in_lists"] + d.stats["net_pool"]["in_lists"] == int(
        np.sum(-(-sizes // 32) + gamma)
    )


def test_build_with_large_nets_spans_buckets():
    n = 200
    nets = [list(range(n)), list(range(0, n, 3)), [5, 7]]
    h = Hypergraph.from_nets(nets, n=n)
    parts = np.arange(n, dtype=np.int32) % 3
    d = DynamicHypergraph.from_hypergraph(h, parts, 3)
    assert sorted(d.pins_of(0)) == list(range(n))
    np.testing.assert_array_equal(d.phi(0), [67, 67, 66])
    assert d.cut == 2 and d.km1 == 2 + 0 + 1  # net 1 lies in block 0 only
    assert_matches(d, Model(h, parts, 3), 0.03)


def test_from_graph_uses_two_pin_nets():
    rng = np.random.default_rng(3)
    u = rng.integers(0, 30, 80)
    v = rng.integers(0, 30, 80)
    keep = u != v
    g = Graph.from_edges(u[keep], v[keep], rng.integers(1, 5, keep.sum()), n=30)
    parts = rng.integers(0, 3, 30)
    d = DynamicHypergraph.from_graph(g, parts, 3)
    assert d.cut == d.km1 == edge_cut(g, parts)
    eu, ev, _ = g.edge_list()
    assert d.num_nets == eu.size
    assert sorted(d.pins_of(7)) == sorted([eu[7], ev[7]])


def test_auto_phi_switches_to_sparse_for_large_k():
    rng = np.random.default_rng(0)
    h = random_hypergraph(rng, 60, 60)
    k = DENSE_PHI_MAX_K + 1
    parts = np.arange(60) % k
    assert DynamicHypergraph.from_hypergraph(h, parts, k).stats["phi"] == "sparse"
    assert DynamicHypergraph.from_hypergraph(h, parts % 4, 4).stats["phi"] == "dense"


def test_empty_hypergraph_grows_from_nothing():
    h = Hypergraph.from_nets([], n=0)
    d = DynamicHypergraph.from_hypergraph(h, np.zeros(0, dtype=np.int32), 2, headroom=0)
    model = Model(h, [], 2)
    b = Batch()
    vs = [b.insert_vertex() for _ in range(5)]
    e = b.insert_net(3)
    for v in vs:
        b.insert_pin(v, e)
    model.apply(b)
    r = d.apply(b)
    np.testing.assert_array_equal(r.new_vertices, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(d.parts, [0, 1, 0, 1, 0])  # lightest block, lowest id first
    assert d.cut == 3
    assert_matches(d, model, 0.03)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"k": 0}, "k must be at least 1"),
        ({"epsilon": -0.1}, "epsilon"),
        ({"gamma": -1}, "gamma"),
        ({"growth": 1.0}, "growth"),
        ({"phi": "hashed"}, "phi"),
        ({"parts": [0, 0, 7]}, "block id 7"),
    ],
)
def test_bad_construction_arguments(kwargs, message):
    h = Hypergraph.from_nets([[0, 1], [1, 2]])
    args = {"parts": [0, 1, 0], "k": 2, **kwargs}
    parts, k = args.pop("parts"), args.pop("k")
    with pytest.raises(InputError, match=message):
        DynamicHypergraph.from_hypergraph(h, parts, k, **args)


# ---------------------------------------------------------------------------- random changes


@pytest.mark.parametrize("phi", PHI_MODES)
def test_random_batches_match_rebuild(phi):
    rng = np.random.default_rng(11)
    h, parts, d = build(rng, phi=phi)
    model = Model(h, parts, d.k)
    for _ in range(60):
        batch = random_batch(model, rng, int(rng.integers(1, 25)))
        result = d.apply(batch)
        assert_matches(d, model, 0.1)
        created = model.vnext  # the model assigned the same ids
        assert result.created.size == len(batch) and created == d.vertex_bound


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(1, 6),
    gamma=st.integers(0, 2),
    sparse=st.booleans(),
    sizes=st.lists(st.integers(1, 30), min_size=1, max_size=8),
    moves=st.integers(0, 20),
)
def test_hypothesis_change_sequences(seed, k, gamma, sparse, sizes, moves):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(0, 30)), int(rng.integers(0, 30))
    h = random_hypergraph(rng, max(n, 1), m, weighted=True)
    parts = rng.integers(0, k, size=h.n).astype(np.int32)
    d = DynamicHypergraph.from_hypergraph(
        h, parts, k, 0.05, gamma=gamma, headroom=0.0, phi="sparse" if sparse else "dense"
    )
    model = Model(h, parts, k)
    for size in sizes:
        result = d.apply(random_batch(model, rng, size))
        assert np.all(d.vertex_alive[result.touched_vertices])
        assert np.all(d.net_alive[result.touched_nets])
        alive = np.flatnonzero(d.vertex_alive)
        if alive.size and moves:
            vs = rng.choice(alive, size=moves)
            bs = rng.integers(0, k, size=moves)
            before = (d.cut, d.km1)
            dcut, dkm1 = d.move(vs, bs)
            assert (d.cut, d.km1) == (before[0] + dcut, before[1] + dkm1)
            for v, b in zip(vs, bs):
                model.move(int(v), int(b))
        assert_matches(d, model, 0.05)


def test_thousand_random_batches_oracle():
    """After each of 1,000 small random batches (and a few moves), cut, km1, block weights and
    balance equal a from-scratch evaluation of the compacted hypergraph."""
    rng = np.random.default_rng(2024)
    h, parts, d = build(rng, n=60, m=70, k=4, eps=0.05, headroom=0.0)
    model = Model(h, parts, 4)
    for i in range(1000):
        d.apply(random_batch(model, rng, int(rng.integers(1, 12))))
        alive = np.flatnonzero(d.vertex_alive)
        if alive.size:
            vs = rng.choice(alive, size=3)
            bs = rng.integers(0, 4, size=3)
            d.move(vs, bs)
            for v, b in zip(vs, bs):
                model.move(int(v), int(b))
        snap = d.to_hypergraph()
        want = evaluate(snap.hypergraph, snap.parts, 4, 0.05)
        got = d.metrics()
        assert (got["cut"], got["km1"], got["balanced"]) == (
            want["cut"],
            want["km1"],
            want["balanced"],
        ), f"batch {i}"
        np.testing.assert_array_equal(got["block_weights"], want["block_weights"])
        if i % 100 == 99:
            assert_matches(d, model, 0.05)
    assert d.stats["batches"] == 1000


# ---------------------------------------------------------------------------- moves


@pytest.mark.parametrize("phi", PHI_MODES)
def test_moves_update_metrics(phi):
    rng = np.random.default_rng(5)
    h, parts, d = build(rng, n=50, m=80, k=3, phi=phi)
    model = Model(h, parts, 3)
    for _ in range(20):
        vs = rng.integers(0, 50, size=7)
        bs = rng.integers(0, 3, size=7)
        cut0, km10 = d.cut, d.km1
        dcut, dkm1 = d.move(vs, bs)
        for v, b in zip(vs, bs):
            model.move(int(v), int(b))
        assert (dcut, dkm1) == (d.cut - cut0, d.km1 - km10)
        assert_matches(d, model, 0.1)


@pytest.mark.parametrize(
    "vertices, blocks, index, message",
    [
        ([0, 99], [1, 1], 1, "unknown vertex 99"),
        ([0, 1], [1, 4], 1, "block 4 is out of range"),
        ([3, 0], [0, -1], 1, "block -1"),
        ([2], [0], 0, "vertex 2 is deleted"),
    ],
)
def test_invalid_moves_change_nothing(vertices, blocks, index, message):
    rng = np.random.default_rng(1)
    h, parts, d = build(rng, n=10, m=10, k=4)
    b = Batch()
    for e in d.nets_of(2):
        b.delete_pin(2, e)
    b.delete_vertex(2)
    d.apply(b)
    before = d.dump_state()
    with pytest.raises(BatchError, match=message) as info:
        d.move(vertices, blocks)
    assert info.value.record == index and info.value.op == "move"
    assert_same_state(before, d.dump_state())


# ---------------------------------------------------------------------------- pools and ids


@pytest.mark.parametrize("phi", PHI_MODES)
def test_pools_grow_geometrically_without_dropping_changes(phi):
    h = Hypergraph.from_nets([[0, 1]], n=2)
    d = DynamicHypergraph.from_hypergraph(h, [0, 1], 8, 0.5, gamma=0, headroom=0.0, phi=phi)
    model = Model(h, [0, 1], 8)
    start = d.stats
    for _ in range(60):  # each batch: 8 vertices and 3 nets, all on net 0 and on a new net
        b = Batch()
        nets = [b.insert_net(2) for _ in range(3)]
        for _ in range(8):
            v = b.insert_vertex(1)
            b.insert_pin(v, 0)
            b.insert_pin(v, nets[len(b) % 3])
        model.apply(b)
        d.apply(b)
    s = d.stats
    for pool in ("vertex_pool", "net_pool"):
        assert s[pool]["growths"] >= 3, pool
        assert s[pool]["capacity"] > 20 * start[pool]["capacity"]
        assert s[pool]["in_lists"] <= s[pool]["capacity"]
    assert s["vertex_id_growths"] >= 5 and s["net_id_growths"] >= 3
    if phi == "sparse":
        assert s["phi_pool"]["growths"] >= 1
    assert d.num_vertices == 2 + 60 * 8 and d.pins_of(0).size == 2 + 60 * 8
    assert_matches(d, model, 0.5)


def test_freed_ids_are_recycled_last_freed_first():
    h = Hypergraph.from_nets([[0, 1], [2, 3], [4, 5]], n=6)
    d = DynamicHypergraph.from_hypergraph(h, [0, 0, 1, 1, 0, 1], 2)
    model = Model(h, [0, 0, 1, 1, 0, 1], 2)
    b = Batch()
    for v, e in ((3, 1), (2, 1), (5, 2)):
        b.delete_pin(v, e)
    b.delete_vertex(3)
    b.delete_vertex(5)
    b.delete_net(1)
    b.insert_vertex()  # a freed id is not reused inside its own batch
    b.insert_net()
    model.apply(b)
    r = d.apply(b)
    np.testing.assert_array_equal(r.new_vertices, [6])
    np.testing.assert_array_equal(r.new_nets, [3])
    assert d.stats["free_vertex_ids"] == 2 and d.stats["free_net_ids"] == 1
    b = Batch()
    refs = [b.insert_vertex() for _ in range(3)]
    e = b.insert_net()
    b.insert_pin(refs[2], e)
    model.apply(b)
    r = d.apply(b)
    np.testing.assert_array_equal(r.new_vertices, [5, 3, 7])  # 5 was freed last
    assert [r.id_of(x) for x in refs] == [5, 3, 7]
    np.testing.assert_array_equal(r.new_nets, [1])
    assert list(d.pins_of(1)) == [7]
    assert d.stats["free_vertex_ids"] == 0
    assert_matches(d, model, 0.03)


def test_recycled_vertex_keeps_gamma_buckets():
    n = 100
    h = Hypergraph.from_nets([[0, e + 1] for e in range(n - 1)], n=n)  # vertex 0 on 99 nets
    d = DynamicHypergraph.from_hypergraph(h, np.zeros(n, dtype=np.int32), 2, gamma=1)
    in_lists = d.stats["vertex_pool"]["in_lists"]
    b = Batch()
    for e in d.nets_of(0):
        b.delete_pin(0, e)
    b.delete_vertex(0)
    d.apply(b)
    s = d.stats["vertex_pool"]
    assert s["free"] == 4 and s["in_lists"] == in_lists - 4  # ceil(99/32) + 1 = 5 -> gamma = 1
    b = Batch()
    b.insert_vertex()
    r = d.apply(b)
    assert r.new_vertices[0] == 0
    assert d.stats["vertex_pool"]["free"] == 4  # the recycled id needed no new bucket
    d.check()


def test_touched_sets():
    h = Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]], n=5)
    d = DynamicHypergraph.from_hypergraph(h, [0, 0, 1, 1, 1], 2)
    b = Batch()
    b.delete_pin(1, 0)
    b.set_vertex_weight(4, 3)
    b.set_net_weight(2, 5)
    v = b.insert_vertex()
    b.insert_pin(v, 1)
    b.delete_vertex(4)  # touched, then deleted: not reported
    b.delete_pin(1, 1)
    b.insert_vertex(1)
    r = d.apply(b)
    np.testing.assert_array_equal(r.touched_vertices, [1, 5, 6])
    np.testing.assert_array_equal(r.touched_nets, [0, 1, 2])


def test_new_vertices_go_to_lightest_block_or_the_given_one():
    h = Hypergraph.from_nets([[0, 1]], n=4, vwgt=[5, 1, 2, 2])
    d = DynamicHypergraph.from_hypergraph(h, [0, 1, 2, 2], 3)
    b = Batch()
    b.insert_vertex(3)  # block weights 5, 1, 4: block 1
    b.insert_vertex(1)  # 5, 4, 4: block 1 (lowest id of the lightest)
    b.insert_vertex(9, block=0)
    b.insert_vertex(1)  # 14, 5, 4: block 2
    r = d.apply(b)
    np.testing.assert_array_equal(d.parts[r.new_vertices], [1, 1, 0, 2])
    np.testing.assert_array_equal(d.block_weights, [14, 5, 5])


# ---------------------------------------------------------------------------- invalid batches


#: Vertices inserted (each with a pin on net 0) before the offending records of a bad batch.
PREFIX = 50


def _invalid_cases():
    """(records, index of the offending one, message). The batch starts with deleting vertex 5
    and net 3, then inserts PREFIX vertices (ids 6 .. 6 + PREFIX - 1, enough to grow the pools
    and the id range), then has these records. Vertices 0..4 remain, nets 0: {0, 1, 2},
    1: {2, 3}, 2: {4}."""
    nxt = 6 + PREFIX  # the id the next inserted vertex gets
    return [
        ([(Op.INSERT_PIN, 900, 0)], 0, "unknown vertex 900"),
        ([(Op.INSERT_PIN, 0, 7)], 0, "unknown net 7"),
        ([(Op.INSERT_PIN, 5, 0)], 0, "vertex 5 is deleted"),
        ([(Op.DELETE_VERTEX, 5, 0)], 0, "vertex 5 is deleted"),
        ([(Op.DELETE_NET, 3, 0)], 0, "net 3 is deleted"),
        ([(Op.INSERT_PIN, 0, 0)], 0, "duplicate pin"),
        ([(Op.INSERT_PIN, 6, 0)], 0, "duplicate pin"),
        ([(Op.INSERT_PIN, 3, 0), (Op.INSERT_PIN, 3, 0)], 1, "duplicate pin"),
        ([(Op.DELETE_PIN, 3, 0)], 0, "vertex 3 is not a pin of net 0"),
        ([(Op.DELETE_PIN, 2, 1), (Op.DELETE_PIN, 2, 1)], 1, "not a pin"),
        ([(Op.DELETE_VERTEX, 4, 0)], 0, "still has 1 net"),
        ([(Op.DELETE_NET, 1, 0)], 0, "still has 2 pin"),
        ([(Op.DELETE_PIN, 4, 2), (Op.DELETE_VERTEX, 4, 0), (Op.DELETE_VERTEX, 4, 0)], 2, "deleted"),
        ([(Op.DELETE_PIN, 4, 2), (Op.DELETE_VERTEX, 4, 0), (Op.INSERT_PIN, 4, 0)], 2, "deleted"),
        ([(Op.SET_VERTEX_WEIGHT, 0, -3)], 0, "non-negative"),
        ([(Op.INSERT_VERTEX, -2, -1)], 0, "non-negative"),
        ([(Op.INSERT_VERTEX, 1, 3)], 0, "block 3 is out of range"),
        ([(Op.INSERT_NET, 1, 0), (Op.INSERT_PIN, 0, -500)], 1, "does not come before"),
        ([(Op.INSERT_NET, 1, 0), (Op.INSERT_PIN, -1, 0)], 1, "not an insert_vertex"),
        ([(Op.INSERT_VERTEX, 1, -1), (Op.DELETE_VERTEX, nxt, 0), (Op.INSERT_PIN, nxt, 0)], 2,
         "deleted"),
        ([(Op.INSERT_VERTEX, 1, -1), (Op.INSERT_PIN, nxt, 0), (Op.INSERT_PIN, nxt + 1, 0)], 2,
         f"unknown vertex {nxt + 1}"),
        ([(Op.INSERT_NET, 1, 4)], 0, "argument b of insert_net must be 0"),
    ]  # fmt: skip


def invalid_batch(records) -> tuple[Batch, int]:
    """The batch of an _invalid_cases() entry for the 6-vertex hypergraph of the tests, and the
    index of its first case record."""
    bad = Batch()
    bad.delete_pin(5, 3)
    bad.delete_vertex(5)
    bad.delete_net(3)
    for _ in range(PREFIX):
        v = bad.insert_vertex()
        bad.insert_pin(v, 0)
    bad.extend(Batch.from_arrays(*zip(*[(int(op), a, b) for op, a, b in records])))
    return bad, 3 + 2 * PREFIX


@pytest.mark.parametrize("phi", PHI_MODES)
@pytest.mark.parametrize("records, index, message", _invalid_cases())
def test_invalid_batch_names_record_and_changes_nothing(phi, records, index, message):
    h = Hypergraph.from_nets([[0, 1, 2], [2, 3], [4], [5]], n=6)
    d = DynamicHypergraph.from_hypergraph(h, [0, 1, 0, 1, 0, 1], 2, gamma=0, headroom=0, phi=phi)
    d.apply(Batch())  # an empty batch is valid
    bad, offset = invalid_batch(records)
    before = d.dump_state()
    with pytest.raises(BatchError, match=message) as info:
        d.apply(bad)
    assert info.value.record == offset + index
    assert info.value.op == Op(records[index][0]).name.lower()
    assert f"batch record {offset + index} (" in str(info.value)
    assert_same_state(before, d.dump_state())
    d.check()
    good = Batch.from_arrays(bad.ops[:offset], *bad.args[:, :offset])
    d.apply(good)  # the valid part alone goes through, growing the pools
    assert d.stats["vertex_pool"]["growths"] > 0 and d.stats["vertex_id_growths"] > 0


def test_unknown_op_code_and_bad_arrays():
    with pytest.raises(BatchError, match="unknown op code 9") as info:
        Batch.from_arrays([0, 9], [1, 1])
    assert info.value.record == 1
    with pytest.raises(InputError, match="one length"):
        Batch.from_arrays([0, 1], [1])
    with pytest.raises(InputError, match="integers"):
        Batch.from_arrays([0], [1.5])
    h = Hypergraph.from_nets([[0, 1]])
    d = DynamicHypergraph.from_hypergraph(h, [0, 1], 2)
    with pytest.raises(_cpu.RecordError):  # the kernel checks op codes too
        d._impl.apply(np.array([42], dtype=np.int8), np.zeros((3, 1), dtype=np.int64))
    with pytest.raises(InputError, match="expected a Batch"):
        d.apply([(0, 1, 0)])
    with pytest.raises(InputError, match="no live vertex 5"):
        d.nets_of(5)


# ---------------------------------------------------------------------------- batch format


def test_op_codes_match_the_kernel():
    assert {op.name.lower(): int(op) for op in Op} == dict(_cpu.CHANGE_OPS)
    assert _cpu.BUCKET_SLOTS == 32


def test_batch_columns_and_references():
    b = Batch()
    v = b.insert_vertex(4)
    e = b.insert_net(2)
    b.insert_pin(v, e)
    b.set_net_weight(e, 7)
    assert (v, e) == (ref(0), ref(1)) == (-1, -2)
    assert b.ops.dtype == np.int8 and b.args.shape == (3, 4) and b.args.dtype == np.int64
    np.testing.assert_array_equal(b.args[0], [4, 2, -1, -2])
    assert b.describe(2) == "insert_pin vertex=-1 net=-2"
    assert b.describe(0) == "insert_vertex weight=4 block=-1"
    c = Batch.from_arrays(b.ops, *b.args)
    np.testing.assert_array_equal(c.args, b.args)
    both = Batch().extend(b).extend(c)
    np.testing.assert_array_equal(both.args[0], [4, 2, -1, -2, 4, 2, -5, -6])
    np.testing.assert_array_equal(both.args[1], [-1, 0, -2, 7, -1, 0, -6, 7])
    h = Hypergraph.from_nets([[0, 1]])
    d = DynamicHypergraph.from_hypergraph(h, [0, 1], 2)
    r = d.apply(both)
    np.testing.assert_array_equal(r.new_vertices, [2, 3])
    np.testing.assert_array_equal(r.new_nets, [1, 2])
    assert list(d.pins_of(2)) == [3] and d.net_weights[2] == 7


def test_snapshot_maps_ids():
    h = Hypergraph.from_nets([[0, 1], [1, 2], [2, 3]], n=4)
    d = DynamicHypergraph.from_hypergraph(h, [0, 0, 1, 1], 2)
    b = Batch()
    b.delete_pin(0, 0)
    b.delete_pin(1, 0)
    b.delete_net(0)
    b.delete_vertex(0)
    d.apply(b)
    snap = d.to_hypergraph()
    np.testing.assert_array_equal(snap.vertex_ids, [1, 2, 3])
    np.testing.assert_array_equal(snap.net_ids, [1, 2])
    assert [sorted(snap.vertex_ids[snap.hypergraph.net(j)]) for j in range(2)] == [[1, 2], [2, 3]]
    np.testing.assert_array_equal(snap.parts, [0, 1, 1])
