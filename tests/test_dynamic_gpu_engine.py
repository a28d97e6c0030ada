"""The dynamic hypergraph and incremental refinement on the GPU backend (igpart/kernels/gpu/
dynamic.cu): the same oracle as the C++ structure (random batches against a rebuilt-from-scratch
model), the same ids and touched sets as the C++ structure batch for batch, invalid batches leave
the device state identical, pools grow without dropping changes, and after refinement the
maintained cut, km1 and block weights equal a recomputation and the partition is balanced."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import BackendUnavailable, BatchError, Hypergraph
from igpart.dynamic import Batch, DynamicHypergraph
from igpart.generators import random_circuit
from igpart.kernels.bucket_layout import layout_lists
from igpart.metrics import evaluate

from .dynamic_model import Model, random_batch
from .test_dynamic import _invalid_cases, assert_matches, assert_same_state, invalid_batch
from .util import random_hypergraph


def build(rng, n=40, m=50, k=4, eps=0.1, backend="gpu", **options):
    h = random_hypergraph(rng, n, m, max_size=6, weighted=True)
    parts = rng.integers(0, k, size=n).astype(np.int32)
    return h, parts, DynamicHypergraph.from_hypergraph(h, parts, k, eps, backend=backend, **options)


def host(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") else np.asarray(a)


def assert_metrics_fresh(d: DynamicHypergraph, eps: float) -> None:
    snap = d.to_hypergraph()
    want = evaluate(snap.hypergraph, snap.parts, d.k, eps)
    got = d.metrics()
    assert (got["cut"], got["km1"]) == (want["cut"], want["km1"])
    np.testing.assert_array_equal(got["block_weights"], want["block_weights"])


# ------------------------------------------------------------------- no device needed


def test_bucket_layout_of_the_gpu_build():
    rng = np.random.default_rng(0)
    h = random_hypergraph(rng, 70, 90, max_size=40)
    for gamma in (0, 1, 2):
        head, tail, nb, size, slot, nxt, used = layout_lists(h.eptr, h.eind, h.m, gamma, 0.1)
        assert used == int(np.sum(-(-h.net_sizes // 32) + gamma)) and nxt.size >= used
        for e in range(h.m):
            chain, b = [], int(head[e])
            while b != -1:
                chain.append(b)
                b = int(nxt[b])
            assert len(chain) == nb[e] and (not chain or chain[-1] == tail[e])
            vals = np.concatenate([slot[c * 32 : c * 32 + 32] for c in chain]) if chain else []
            assert sorted(v for v in vals if v != -1) == sorted(h.net(e))
            assert size[e] == h.net(e).size


def test_gpu_backend_unavailable_is_clear(monkeypatch):
    import igpart.kernels as kernels

    monkeypatch.setattr(kernels, "gpu_status", lambda: (False, "no device here"))
    h = Hypergraph.from_nets([[0, 1]])
    with pytest.raises(BackendUnavailable, match="no device here"):
        DynamicHypergraph.from_hypergraph(h, [0, 1], 2, backend="gpu")


# ------------------------------------------------------------------- on the device


@pytest.mark.gpu
def test_gpu_build_matches_cpu():
    rng = np.random.default_rng(1)
    h, parts, d = build(rng, n=120, m=160, k=5, gamma=1)
    c = DynamicHypergraph.from_hypergraph(h, parts, 5, 0.1)
    assert (d.cut, d.km1, d.num_pins) == (c.cut, c.km1, c.num_pins)
    np.testing.assert_array_equal(d.block_weights, c.block_weights)
    np.testing.assert_array_equal(d.connectivity, c.connectivity)
    for e in range(0, h.m, 7):
        np.testing.assert_array_equal(d.phi(e), c.phi(e))
        assert sorted(d.pins_of(e)) == sorted(h.net(e))
    assert_matches(d, Model(h, parts, 5), 0.1)


@pytest.mark.gpu
def test_gpu_random_batches_match_rebuild_and_cpu_ids():
    rng = np.random.default_rng(11)
    h, parts, d = build(rng)
    c = DynamicHypergraph.from_hypergraph(h, parts, 4, 0.1)
    model = Model(h, parts, d.k)
    for _ in range(80):
        batch = random_batch(model, rng, int(rng.integers(1, 30)))
        rg, rc = d.apply(batch), c.apply(batch)
        np.testing.assert_array_equal(rg.created, rc.created)  # id recycling as on the CPU
        np.testing.assert_array_equal(host(rg.touched_vertices), rc.touched_vertices)
        np.testing.assert_array_equal(host(rg.touched_nets), rc.touched_nets)
        assert_matches(d, model, 0.1)
        alive = np.flatnonzero(d.vertex_alive)
        if alive.size:
            vs, bs = rng.choice(alive, size=5), rng.integers(0, 4, size=5)
            before = (d.cut, d.km1)
            dcut, dkm1 = d.move(vs, bs)
            assert (d.cut, d.km1) == (before[0] + dcut, before[1] + dkm1)
            c.move(vs, bs)
            for v, b in zip(vs, bs):
                model.move(int(v), int(b))
    assert d.stats["batches"] == 80


@pytest.mark.gpu
def test_gpu_thousand_random_batches_oracle_with_refinement():
    """After each of 1,000 random batches and a refinement, cut, km1 and block weights equal a
    from-scratch evaluation and the partition is balanced."""
    rng = np.random.default_rng(2024)
    eps = 0.1
    h, parts, d = build(rng, n=80, m=90, k=4, eps=eps, headroom=0.0)
    model = Model(h, parts, 4)
    unbalanced = 0
    for i in range(1000):
        d.apply(random_batch(model, rng, int(rng.integers(1, 12))))
        info = d.refine("km1" if i % 2 else "cut")
        p = d.parts
        for v in model.part:
            model.part[v] = int(p[v])
        snap = d.to_hypergraph()
        want = evaluate(snap.hypergraph, snap.parts, 4, eps)
        got = d.metrics()
        assert (got["cut"], got["km1"]) == (want["cut"], want["km1"]), f"batch {i}"
        np.testing.assert_array_equal(got["block_weights"], want["block_weights"])
        assert bool(info["balanced"]) == want["balanced"]
        unbalanced += not want["balanced"]
        if i % 100 == 99:
            assert_matches(d, model, eps)
    assert unbalanced == 0
    assert d.stats["batches"] == 1000


@pytest.mark.gpu
@pytest.mark.parametrize("records, index, message", _invalid_cases())
def test_gpu_invalid_batch_names_record_and_changes_nothing(records, index, message):
    h = Hypergraph.from_nets([[0, 1, 2], [2, 3], [4], [5]], n=6)
    d = DynamicHypergraph.from_hypergraph(h, [0, 1, 0, 1, 0, 1], 2, gamma=0, headroom=0,
                                          backend="gpu")  # fmt: skip
    d.apply(Batch())
    bad, offset = invalid_batch(records)
    before = d.dump_state()
    with pytest.raises(BatchError, match=message) as info:
        d.apply(bad)
    assert info.value.record == offset + index
    assert_same_state(before, d.dump_state())
    d.check()
    d.apply(Batch.from_arrays(bad.ops[:offset], *bad.args[:, :offset]))
    assert d.stats["vertex_pool"]["growths"] > 0 and d.stats["vertex_id_growths"] > 0
    d.check()


@pytest.mark.gpu
def test_gpu_invalid_moves_change_nothing():
    rng = np.random.default_rng(1)
    h, parts, d = build(rng, n=10, m=10, k=4)
    before = d.dump_state()
    for vs, bs, message in (([0, 99], [1, 1], "unknown vertex 99"), ([0, 1], [1, 4], "block 4")):
        with pytest.raises(BatchError, match=message) as info:
            d.move(vs, bs)
        assert info.value.record == 1
    assert_same_state(before, d.dump_state())


@pytest.mark.gpu
def test_gpu_pools_grow_geometrically_without_dropping_changes():
    h = Hypergraph.from_nets([[0, 1]], n=2)
    d = DynamicHypergraph.from_hypergraph(h, [0, 1], 8, 0.5, gamma=0, headroom=0.0,
                                          backend="gpu")  # fmt: skip
    model = Model(h, [0, 1], 8)
    start = d.stats
    for _ in range(60):
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
    assert s["vertex_id_growths"] >= 5 and s["net_id_growths"] >= 3
    assert d.num_vertices == 2 + 60 * 8 and d.pins_of(0).size == 2 + 60 * 8
    assert_matches(d, model, 0.5)


@pytest.mark.gpu
def test_gpu_refinement_on_a_generated_circuit():
    """Stripes of a generated circuit, buffer-insertion style batches: after each refinement the
    partition is balanced, the maintained metrics are exact, and refinement lowers the cut that
    the batches raised."""
    from benchmarks.incremental_gpu_bench import stripes, timing_batch

    h = random_circuit(20000, seed=3)
    k, eps = 8, 0.03
    parts = stripes(h.n, k)
    d = DynamicHypergraph.from_hypergraph(h, parts, k, eps, backend="gpu")
    mirror = DynamicHypergraph.from_hypergraph(h, parts, k, eps)
    rng = np.random.default_rng(5)
    raised = lowered = 0
    for _ in range(30):
        b = timing_batch(mirror, rng, 100)
        mirror.apply(b)
        d.apply(b)
        cut0 = d.cut
        info = d.refine("cut")
        assert info["balanced"] and d.is_balanced
        raised += cut0
        lowered += d.cut
        assert_metrics_fresh(d, eps)
        changed = host(info["changed_vertices"])
        assert np.all(d.vertex_alive[changed])
    assert lowered <= raised
    d.check()


# ------------------------------------------------------------------- IncrementalPartitioner


@pytest.mark.gpu
@pytest.mark.parametrize("objective", ["cut", "km1"])
def test_gpu_engine_batches_oracle(objective):
    """IncrementalPartitioner(engine="gpu"), guard on: after every batch the maintained metrics
    equal a recomputation, the partition is balanced and the reported moves are the real ones."""
    from igpart.incremental import IncrementalPartitioner

    from .test_incremental import assert_oracle

    rng = np.random.default_rng(7)
    h = random_hypergraph(rng, 80, 90, max_size=5)
    parts = np.arange(80, dtype=np.int32) % 4
    options = {"cut_drift_slack": 4, "max_change_fraction": 0.5}
    ip = IncrementalPartitioner(h, 4, 0.1, objective, parts=parts, options=options,
                                engine="gpu")  # fmt: skip
    model = Model(h, parts, 4)
    for i in range(300):
        before = ip.parts
        batch = random_batch(model, rng, int(rng.integers(1, 12)), weighted=bool(i % 2))
        r = ip.apply(batch)
        assert_oracle(ip, before, r)
        for v, b in zip(r.moved, r.moved_to):
            model.move(int(v), int(b))
        for v, b in zip(r.new_vertices, r.new_blocks):
            model.move(int(v), int(b))


@pytest.mark.gpu
def test_gpu_engine_places_new_vertex_and_refines_without_batch():
    from igpart.incremental import IncrementalPartitioner

    from .test_incremental import assert_oracle

    h = Hypergraph.from_nets([[0, 1], [1, 2], [3, 4], [4, 5]], n=6)
    ip = IncrementalPartitioner(h, 2, 0.5, parts=[0, 0, 0, 1, 1, 1], options={"guard": False},
                                engine="gpu")  # fmt: skip
    b = Batch()
    v = b.insert_vertex(1, block=0)
    e = b.insert_net()
    b.insert_pin(v, e)
    b.insert_pin(4, e)
    b.insert_pin(v, 2)
    r = ip.apply(b)
    assert r.new_blocks.tolist() == [1] and r.cut == 0
    h = random_circuit(3000, seed=9)
    parts = np.random.default_rng(1).integers(0, 4, size=h.n).astype(np.int32)
    ip = IncrementalPartitioner(h, 4, 0.1, parts=parts, options={"guard": False}, engine="gpu")
    cut0, before = ip.dynamic.cut, ip.parts
    r = ip.refine(touched_vertices=np.arange(0, 3000, 3))
    assert r.cut < cut0
    assert_oracle(ip, before, r)
