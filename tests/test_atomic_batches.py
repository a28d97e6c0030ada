"""Atomic batches: a failure at any stage after the engine's structure took a batch (the
refiner, the quality guard's re-partition, the host store's end of batch, the metrics, the
caller's on_applied, the session's mapping step) returns the engine, and a session's circuit and
mapping, to the exact state before the batch; the original exception propagates; and a
following good batch gives what an engine that never saw the failed one gives."""

from __future__ import annotations

import numpy as np
import pytest

from igpart import InputError
from igpart.dynamic import Batch
from igpart.generators import random_circuit, timing_batch
from igpart.incremental import IncrementalPartitioner
from igpart.plugin import Session

K = 4


class Injected(RuntimeError):
    """The failure the tests inject."""


#: no guard re-partitions unless a test asks (the batches here grow the design a lot)
CALM = {"max_change_fraction": 100.0, "max_cut_drift": 100.0}


def engine(engine_kind: str = "cpu", **kw) -> IncrementalPartitioner:
    h = random_circuit(1500, seed=3)
    parts = np.arange(h.n, dtype=np.int32) % K
    kw["options"] = {**CALM, **kw.get("options", {})}
    return IncrementalPartitioner(h, K, parts=parts, engine=engine_kind, seed=1, **kw)


def deep_state(ip: IncrementalPartitioner) -> dict:
    """Everything a batch may change, copied."""
    out = {f"dyn.{k}": np.array(v, copy=True) for k, v in ip.dynamic.dump_state().items()}
    out["fixed"] = ip.fixed.copy()
    for name in ("batches", "full_partitions", "_changes_since_full", "_design_size",
                 "_reference"):  # fmt: skip
        out[name] = getattr(ip, name)
    return out


def assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
        else:
            assert a[key] == b[key], key


def growing_batch(ip: IncrementalPartitioner, rng) -> Batch:
    """A timing batch plus enough new vertices, nets and pins to grow the id ranges and the
    bucket pools, so that a rollback must shrink them back."""
    b = timing_batch(ip.dynamic, rng, 60)
    n = ip.dynamic.num_vertices
    nets = [b.insert_net(2) for _ in range(n // 4)]
    for i in range(n // 4):
        v = b.insert_vertex(1 + i % 3)
        b.insert_pin(v, nets[i])
        b.insert_pin(int(rng.integers(0, n)), nets[i])
    return b


def same_result(r1, r2) -> None:
    for name in ("moved", "moved_from", "moved_to", "new_vertices", "new_blocks",
                 "block_weights"):  # fmt: skip
        assert np.array_equal(getattr(r1, name), getattr(r2, name)), name
    assert (r1.cut, r1.km1, r1.full_repartition) == (r2.cut, r2.km1, r2.full_repartition)
    assert r1.stats.get("transfer") == r2.stats.get("transfer")  # the cache policy's figures


def fail_then_compare(make, inject, engine_kind: str = "cpu", exc=Injected, **kw):
    """Applies a failing batch (``inject(ip)`` arms the failure and returns a disarm callable)
    to one engine, checks it is back to its state before, then applies the same good batches
    to it and to a twin that never saw the failed batch."""
    ip, twin = make(engine_kind, **kw), make(engine_kind, **kw)
    rng = np.random.default_rng(7)
    first = timing_batch(ip.dynamic, rng, 40)
    same_result(ip.apply(first), twin.apply(first))  # one ordinary batch first
    before = deep_state(ip)
    bad = growing_batch(ip, rng)
    disarm = inject(ip)
    with pytest.raises(exc):
        ip.apply(bad)
    disarm()
    assert_same(deep_state(ip), before)
    ip.dynamic.check()
    assert not ip.dynamic.in_batch
    for seed in (11, 12):
        good = growing_batch(ip, np.random.default_rng(seed))
        same_result(ip.apply(good), twin.apply(good))
        assert_same(deep_state(ip), deep_state(twin))
    return ip


class _FailingRefiner:
    """Refines (moves vertices), then raises."""

    def __init__(self, real, exc):
        self.real, self.exc = real, exc

    def refine(self, *a, **k):
        self.real.refine(*a, **k)
        raise self.exc("injected")


def failing_refiner(mp: pytest.MonkeyPatch, ip, exc=Injected):
    """Arms the CPU refiner to fail after its moves; returns the disarm callable."""
    mp.setattr(ip, "_refiner", _FailingRefiner(ip._refiner, exc))
    return mp.undo


def failing_call(mp: pytest.MonkeyPatch, target, name: str, exc=Injected):
    """Arms ``target.name`` to run, then raise; returns the disarm callable."""
    real = getattr(target, name)

    def failing(*a, **k):
        real(*a, **k)
        raise exc("injected")

    mp.setattr(target, name, failing)
    return mp.undo


def failing_guard(mp: pytest.MonkeyPatch, ip):
    """Forces the quality guard, whose re-partition moves vertices and then fails."""
    ip.options.max_change_fraction = 0.0
    failing_call(mp, ip, "_reset_guard")

    def disarm():
        mp.undo()
        ip.options.max_change_fraction = CALM["max_change_fraction"]

    return disarm


@pytest.mark.parametrize("stage", ["refiner", "guard", "metrics", "on_applied", "interrupt"])
def test_cpu_engine_rolls_back_a_failing_batch(stage):
    mp = pytest.MonkeyPatch()
    exc = KeyboardInterrupt if stage == "interrupt" else Injected

    def inject(ip):
        if stage in ("refiner", "interrupt"):
            return failing_refiner(mp, ip, exc)
        if stage == "guard":
            return failing_guard(mp, ip)
        if stage == "metrics":  # everything done, the result not yet built
            return failing_call(mp, ip.dynamic, "metrics")
        return lambda: None  # on_applied: see below

    if stage == "on_applied":
        ip = engine()
        before = deep_state(ip)

        def failing(res):
            raise Injected("caller failed")

        with pytest.raises(Injected):
            ip.apply(growing_batch(ip, np.random.default_rng(1)), on_applied=failing)
        assert_same(deep_state(ip), before)
        return
    fail_then_compare(lambda kind, **kw: engine(kind, **kw), inject, exc=exc)


def test_sparse_phi_and_fixed_vertices_roll_back():
    """Sparse Phi lists (entries erased and re-inserted) and fixed vertices freed by the
    batch come back too."""
    mp = pytest.MonkeyPatch()

    def make(kind, **kw):
        h = random_circuit(1200, seed=5)
        fixed = np.full(h.n, -1)
        fixed[:40] = np.arange(40) % 40
        return IncrementalPartitioner(h, 40, parts=np.arange(h.n) % 40, engine=kind, seed=2,
                                      phi="sparse", fixed=fixed, epsilon=0.2)

    ip = make("cpu")
    rng = np.random.default_rng(3)
    before = deep_state(ip)
    b = Batch()
    for v in range(5):  # a fixed vertex leaves the design: no longer fixed
        for e in ip.dynamic.nets_of(v):
            b.delete_pin(v, int(e))
        b.delete_vertex(v)
    b.extend(timing_batch(ip.dynamic, rng, 30))
    disarm = failing_refiner(mp, ip)
    with pytest.raises(Injected):
        ip.apply(b)
    disarm()
    assert (before["fixed"][:5] >= 0).all()
    assert_same(deep_state(ip), before)
    ip.dynamic.check()


def test_host_store_rolls_back():
    """Under a memory budget the host store (rows, cache) returns with the rest."""
    mp = pytest.MonkeyPatch()

    def inject(ip):
        return failing_call(mp, ip.dynamic, "end_batch")

    ip = fail_then_compare(lambda kind, **kw: engine(kind, memory_budget=600_000), inject)
    assert ip.dynamic.has_store


def test_fix_and_repartition_are_atomic():
    mp = pytest.MonkeyPatch()
    ip = engine()
    before = deep_state(ip)
    failing_call(mp, ip, "_reset_guard")
    with pytest.raises(Injected):
        ip.repartition()
    mp.undo()
    assert_same(deep_state(ip), before)
    failing_refiner(mp, ip)
    v = int(np.flatnonzero(ip.parts == 0)[0])
    with pytest.raises(Injected):
        ip.fix([v], [1])
    mp.undo()
    assert_same(deep_state(ip), before)
    assert ip.fix([v], [1]).balanced and ip.fixed[v] == 1


def test_bad_input_is_still_an_input_error_and_changes_nothing():
    ip = engine()
    before = deep_state(ip)
    b = Batch()
    b.insert_vertex()
    b.delete_pin(0, 10**6)
    with pytest.raises(InputError, match="1000000"):
        ip.apply(b)
    assert_same(deep_state(ip), before)


def test_atomic_off_leaves_the_batch_applied():
    mp = pytest.MonkeyPatch()
    ip = engine(options={"atomic": False})
    batches = ip.dynamic.stats["batches"]
    failing_call(mp, ip.dynamic, "metrics")
    with pytest.raises(Injected):
        ip.apply(timing_batch(ip.dynamic, np.random.default_rng(0), 20))
    mp.undo()
    assert ip.dynamic.stats["batches"] == batches + 1 and not ip.dynamic.in_batch


def circuit_state(s: Session) -> tuple:
    c = s._circuit
    m = s._circuit
    return (c.circuit._state(), s.blocks(), {k: v for k, v in m.multi.items()},
            m.vertex_of_instance.a[: m.vertex_of_instance.n].tobytes(),
            m.owner_of_vertex.a[: m.owner_of_vertex.n].tobytes(),
            m.net_of_circuit.a[: m.net_of_circuit.n].tobytes(),
            m.circuit_net_of.a[: m.circuit_net_of.n].tobytes())


@pytest.mark.parametrize("stage", ["refiner", "mapping"])
def test_circuit_session_rolls_back_circuit_engine_and_mapping(tau2015, stage):
    """A circuit session with a kept mapping: the circuit, its id maps, the engine and the
    mapping all return; the session then takes the same batch as a twin."""
    import logging

    from igpart.netlist import read_liberty, read_verilog
    from igpart.plugin import mapping as session_mapping

    logging.getLogger("igpart").setLevel(logging.ERROR)
    lib = read_liberty(tau2015 / "cells_early.lib")
    sessions = [Session(read_verilog(tau2015 / "c432" / "c432.v", lib=lib), k=4, seed=1,
                        mapping={"hierarchy": (2, 2), "distance": (1, 10)})
                for _ in range(2)]  # fmt: skip
    s, twin = sessions
    c = s._circuit.circuit
    gate, net = c.instance_names[5], c.net_names[7]

    def queue(x: Session) -> None:
        x.insert_gate("g_new", "INV_X1")
        x.connect_pin("g_new:A", net)
        x.remove_gate(gate)
        x.insert_net("n_new")
        x.connect_pin("g_new:ZN", "n_new")

    before = circuit_state(s)
    engine_before = deep_state(s.engine)
    mapping_before = s.mapping
    mp = pytest.MonkeyPatch()
    if stage == "refiner":
        failing_refiner(mp, s.engine)
    else:  # the mapping step moves vertices to new PEs, then fails
        failing_call(mp, session_mapping, "after_batch")
    queue(s)
    with pytest.raises(Injected):
        s.refine()
    mp.undo()
    assert circuit_state(s) == before
    assert_same(deep_state(s.engine), engine_before)
    assert s.mapping == mapping_before and s.results == 0 and s.pending == 0
    with pytest.raises(InputError, match="g_new"):
        s.block_of("g_new")
    queue(s)
    queue(twin)
    r, rt = s.refine(), twin.refine()
    assert r.changed == rt.changed and r.mapping["cost"] == rt.mapping["cost"]
    assert circuit_state(s) == circuit_state(twin)
