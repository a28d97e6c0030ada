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


def c432_sessions(tau2015, **kw) -> list[Session]:
    """Two sessions on the c432 circuit of TAU 2015 with the same options."""
    import logging

    from igpart.netlist import read_liberty, read_verilog

    logging.getLogger("igpart").setLevel(logging.ERROR)
    lib = read_liberty(tau2015 / "cells_early.lib")
    return [Session(read_verilog(tau2015 / "c432" / "c432.v", lib=lib), k=4, seed=1, **kw)
            for _ in range(2)]  # fmt: skip


def queue_gate_changes(x: Session, gate: str, net: str) -> None:
    """A new gate on ``net`` driving a new net, and ``gate`` removed."""
    x.insert_gate("g_new", "INV_X1")
    x.connect_pin("g_new:A", net)
    x.remove_gate(gate)
    x.insert_net("n_new")
    x.connect_pin("g_new:ZN", "n_new")


def failed_refine_changes_nothing(s: Session, arm, queue, exc=Injected, match=None) -> None:
    """Arms a failure (``arm(monkeypatch)``), queues changes, and checks that ``s.refine()``
    raises it with the circuit, its id maps, the engine and the counters as before."""
    before, engine_before = circuit_state(s), deep_state(s.engine)
    mp = pytest.MonkeyPatch()
    arm(mp)
    queue(s)
    with pytest.raises(exc, match=match):
        s.refine()
    mp.undo()
    assert circuit_state(s) == before
    assert_same(deep_state(s.engine), engine_before)
    assert s.results == 0 and s.pending == 0
    with pytest.raises(InputError, match="g_new"):
        s.block_of("g_new")


@pytest.mark.parametrize("stage", ["refiner", "mapping"])
def test_circuit_session_rolls_back_circuit_engine_and_mapping(tau2015, stage):
    """A circuit session with a kept mapping: the circuit, its id maps, the engine and the
    mapping all return; the session then takes the same batch as a twin."""
    from igpart.plugin import mapping as session_mapping

    s, twin = c432_sessions(tau2015, mapping={"hierarchy": (2, 2), "distance": (1, 10)})
    c = s._circuit.circuit
    gate, net = c.instance_names[5], c.net_names[7]

    def queue(x: Session) -> None:
        queue_gate_changes(x, gate, net)

    mapping_before = s.mapping

    def arm(mp):
        if stage == "refiner":
            failing_refiner(mp, s.engine)
        else:  # the mapping step moves vertices to new PEs, then fails
            failing_call(mp, session_mapping, "after_batch")

    failed_refine_changes_nothing(s, arm, queue)
    assert s.mapping == mapping_before
    queue(s)
    queue(twin)
    r, rt = s.refine(), twin.refine()
    assert r.changed == rt.changed and r.mapping["cost"] == rt.mapping["cost"]
    assert circuit_state(s) == circuit_state(twin)


# ------------------------------------------------------------------ vertex weight totals


def overflow_oracle(ops, args, total, weights) -> int:
    """Record-by-record reference of vertex_weight_overflow (Python integers, a dict of the
    weights the batch gave each entity so far)."""
    cur: dict = {}
    for i, op in enumerate(ops.tolist()):
        a, b = int(args[0, i]), int(args[1, i])
        if op == 0:
            cur[-(i + 1)] = max(a, 0)
            total += max(a, 0)
        elif op in (1, 6):
            old = cur.get(a, int(weights[a]) if 0 <= a < weights.size else 0)
            new = max(b, 0) if op == 6 else 0
            cur[a] = new
            total += new - old
        if total > 2**63 - 1:
            return i
    return -1


def test_vertex_weight_overflow_equals_a_record_by_record_oracle():
    from igpart.dynamic import vertex_weight_overflow

    rng = np.random.default_rng(5)
    big = 2**61
    found = 0
    for trial in range(300):
        n = int(rng.integers(1, 8))
        weights = rng.integers(0, big, size=n, dtype=np.int64)
        if trial % 3 == 0:
            weights[:] = rng.integers(0, 8, size=n)
        total = int(weights.sum())
        count = int(rng.integers(1, 12))
        ops = rng.choice([0, 1, 6, 4], size=count).astype(np.int8)
        args = np.zeros((3, count), dtype=np.int64)
        for i, op in enumerate(ops.tolist()):
            inserts = np.flatnonzero(ops[:i] == 0)
            target = (int(rng.integers(0, n + 1)) if not inserts.size or rng.random() < 0.5
                      else -(int(rng.choice(inserts)) + 1))  # fmt: skip
            w = int(rng.integers(0, 2**62)) if rng.random() < 0.8 else int(rng.integers(0, 9))
            args[:, i] = {0: (w, -1, 0), 1: (target, 0, 0), 6: (target, w, 0), 4: (0, 0, 0)}[op]
        want = overflow_oracle(ops, args, total, weights)
        assert vertex_weight_overflow(ops, args, total, weights.copy) == want, trial
        found += want >= 0
    assert 30 < found < 270  # both outcomes were exercised


@pytest.mark.parametrize("engine_kind", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_vertex_weight_overflow_is_an_input_error_that_changes_nothing(engine_kind):
    from igpart import BatchError

    ip = engine(engine_kind)
    before = deep_state(ip)
    b = timing_batch(ip.dynamic, np.random.default_rng(2), 30)
    v = b.insert_vertex(2**62)
    b.set_vertex_weight(v, 2**62 - 1)
    live = np.flatnonzero(ip.dynamic.vertex_alive)
    b.set_vertex_weight(int(live[-1]), 2**62)
    with pytest.raises(BatchError, match="total vertex weight would exceed") as info:
        ip.apply(b)
    assert info.value.record == len(b) - 1
    assert_same(deep_state(ip), before)
    # a large weight with room left is taken (by the structure: no re-partition around it)
    b2 = Batch()
    b2.set_vertex_weight(int(live[-1]), 2**40)
    ip.dynamic.apply(b2)
    assert ip.dynamic.total_weight > 2**40
    ip.dynamic.check()


@pytest.mark.parametrize("engine_kind", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_circuit_session_weight_overflow_keeps_circuit_and_engine_in_step(tau2015, engine_kind):
    """insert_gate and connect_pin, then vertex weights whose total overflows, in one batch:
    an InputError naming the record, the circuit and the engine both as before, the new gate
    unknown to both; the same changes without the overflow then give what a twin gives."""
    # the initial partition on the CPU: the same for both sessions
    s, twin = c432_sessions(tau2015, backend="cpu", engine=engine_kind)
    c = s._circuit.circuit
    a, b, net = c.instance_names[3], c.instance_names[4], c.net_names[7]

    def queue(x: Session) -> None:
        x.insert_gate("g_new", "INV_X1")
        x.connect_pin("g_new:A", net)

    def overflow(mp) -> None:  # queued weight changes whose total overflows
        s.set_vertex_weight(a, 2**62)
        s.set_vertex_weight(b, 2**62)

    failed_refine_changes_nothing(s, overflow, queue, InputError, "total vertex weight")
    for x in (s, twin):
        queue(x)
        x.set_vertex_weight(a, 5)
    r, rt = s.refine(), twin.refine()
    assert s.block_of("g_new") >= 0 and r.balanced and rt.balanced
    if engine_kind == "cpu":  # (the GPU's racing warps may order lists differently)
        assert r.cut == rt.cut and r.block_weights == rt.block_weights
    assert c._state() == twin._circuit.circuit._state()
    assert_same(canonical_structure(s.engine.dynamic, partition=engine_kind == "cpu"),
                canonical_structure(twin.engine.dynamic, partition=engine_kind == "cpu"))


# ------------------------------------------------------------------ the GPU structure


def gpu_state(impl) -> dict:
    """Every attribute of the GPU structure that a transaction copies, on the host: device
    arrays (host pools read in place), host mirrors, counters, capacities, pending seeds."""
    import cupy

    from igpart.kernels.gpu._dynamic import _BY_REFERENCE

    impl._stream.synchronize()

    def host(v):
        if isinstance(v, cupy.ndarray):
            if isinstance(v.data.mem, cupy.cuda.UnownedMemory):
                return ("pinned", impl._pinned_view(v).copy())
            return ("device", v.get())
        if isinstance(v, np.ndarray):
            return ("host", v.copy())
        if isinstance(v, dict):
            return {k: host(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [host(x) for x in v]
        return v

    return {name: host(v) for name, v in vars(impl).items()
            if name not in _BY_REFERENCE and not callable(v)}  # (patched methods are not state)


def assert_deep_equal(a, b, where: str = "") -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            assert_deep_equal(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_deep_equal(x, y, f"{where}[{i}]")
    else:
        assert type(a) is type(b) and a == b, (where, a, b)


#: dumped arrays that depend on the partition
PARTITION_STATE = ("part", "phi", "lam", "bw", "ctr")


def canonical_structure(d, partition: bool = True) -> dict:
    """The dynamic structure with each list's entries as a set: every dumped array but the
    bucket slots exactly (ids, statuses, weights, blocks, Phi, counters, bucket chains, free
    stacks), and the pins of every live net sorted (racing warps claim bucket slots, so two
    GPU structures given the same batches may order a list differently). ``partition=False``
    leaves out what depends on the partition."""
    dump = d.dump_state()
    skip = ("vslot", "eslot") + (() if partition else PARTITION_STATE)
    out = {k: v for k, v in dump.items() if k not in skip}
    snap = d.to_hypergraph()
    h = snap.hypergraph
    net = np.repeat(np.arange(h.m), np.diff(h.eptr))
    order = np.lexsort((h.eind, net))
    out["pin_nets"], out["pin_eptr"] = snap.net_ids, h.eptr
    out["pins"] = snap.vertex_ids[h.eind[order]]
    out["slots_used"] = tuple(int((dump[p] != -1).sum()) for p in ("vslot", "eslot")
                              if p in dump)
    out["live"] = (d.num_vertices, d.num_nets, d.num_pins, d.total_weight)
    return out


def gpu_fail_then_compare(inject, exc=Injected, **kw):
    """fail_then_compare for the GPU engine: after the failing batch every attribute of the
    structure equals a deep copy taken before it (and the engine's counters too); then the
    same good batches applied to it and to a twin that never saw the failed batch give the
    same ids, touched sets and structure (lists compared as sets), and refinement gives a
    balanced partition whose maintained metrics equal a recomputation."""
    from igpart.metrics import evaluate

    ip, twin = engine("gpu", **kw), engine("gpu", **kw)
    rng = np.random.default_rng(7)
    first = timing_batch(ip.dynamic, rng, 40)
    ip.apply(first)
    twin.apply(first)
    # the twin takes the first batch's refinement result, so both start from one partition
    diff = np.flatnonzero(ip.parts != twin.parts)
    if diff.size:
        twin.dynamic.move(diff, ip.parts[diff])
    before, before_gpu = deep_state(ip), gpu_state(ip.dynamic._impl)
    bad = growing_batch(ip, rng)
    disarm = inject(ip)
    with pytest.raises(exc):
        ip.apply(bad)
    disarm()
    assert not ip.dynamic.in_batch
    assert_deep_equal(gpu_state(ip.dynamic._impl), before_gpu)
    assert_same(deep_state(ip), before)
    ip.dynamic.check()
    assert_same(canonical_structure(ip.dynamic), canonical_structure(twin.dynamic))
    for seed in (11, 12):
        good = growing_batch(ip, np.random.default_rng(seed))
        r1, r2 = ip.dynamic.apply(good), twin.dynamic.apply(good)
        assert np.array_equal(r1.created, r2.created)
        for name in ("touched_vertices", "touched_nets"):
            assert np.array_equal(getattr(r1, name).get(), getattr(r2, name).get()), name
        assert_same(canonical_structure(ip.dynamic), canonical_structure(twin.dynamic))
        ip.dynamic.check()
    r = ip.apply(timing_batch(ip.dynamic, np.random.default_rng(13), 40))
    assert r.balanced
    snap = ip.dynamic.to_hypergraph()
    want = evaluate(snap.hypergraph, snap.parts, K, ip.epsilon)
    assert (r.cut, r.km1) == (want["cut"], want["km1"])
    assert np.array_equal(r.block_weights, want["block_weights"])
    ip.dynamic.check()
    return ip


def failing_growth(mp: pytest.MonkeyPatch, impl):
    """Growth of the net id range runs out of device memory after three of its arrays were
    replaced (the vertex id range already grown): a failure inside the structure's apply."""
    import cupy

    real_grow, real_full = impl._grow_ids, cupy.full

    def grow(vertices, bound):
        if vertices:
            return real_grow(vertices, bound)
        calls = [0]

        def full(*a, **k):
            calls[0] += 1
            if calls[0] > 3:
                raise cupy.cuda.memory.OutOfMemoryError(1 << 40, 0)
            return real_full(*a, **k)

        with pytest.MonkeyPatch.context() as inner:
            inner.setattr(cupy, "full", full)
            real_grow(vertices, bound)

    mp.setattr(impl, "_grow_ids", grow)
    return mp.undo


def failing_snapshot(mp: pytest.MonkeyPatch, impl):
    """The transaction's copy of the state runs out of device memory half way: the batch
    fails before the structure takes it."""
    import cupy

    real, calls = impl._copy_array, [0]

    def copy(arr):
        calls[0] += 1
        if calls[0] > 5:
            raise cupy.cuda.memory.OutOfMemoryError(arr.nbytes, 0)
        return real(arr)

    mp.setattr(impl, "_copy_array", copy)
    return mp.undo


@pytest.mark.gpu
@pytest.mark.parametrize("stage", ["refine", "guard", "apply", "growth_oom", "snapshot_oom",
                                   "interrupt"])  # fmt: skip
def test_gpu_engine_rolls_back_a_failing_batch(stage):
    import cupy

    mp = pytest.MonkeyPatch()
    oom = cupy.cuda.memory.OutOfMemoryError
    exc = {"interrupt": KeyboardInterrupt, "growth_oom": oom,
           "snapshot_oom": oom}.get(stage, Injected)  # fmt: skip

    def inject(ip):
        if stage in ("refine", "interrupt"):
            return failing_call(mp, ip.dynamic, "refine", exc)
        if stage == "guard":
            return failing_guard(mp, ip)
        if stage == "apply":  # the structure took the batch (and grew), then the call fails
            return failing_call(mp, ip.dynamic._impl, "apply")
        if stage == "snapshot_oom":
            return failing_snapshot(mp, ip.dynamic._impl)
        return failing_growth(mp, ip.dynamic._impl)

    gpu_fail_then_compare(inject, exc=exc)


@pytest.mark.gpu
def test_gpu_structure_transaction_with_host_pools():
    """Bucket pools in page-locked host memory (a budget below the footprint): a batch that
    grows them and a refinement, rolled back, leave every attribute as before; a commit keeps
    the batch; a second begin inside an open transaction is refused."""
    import cupy

    from igpart.dynamic import DynamicHypergraph, _footprint_parts

    h = random_circuit(1500, seed=3)
    parts = np.arange(h.n, dtype=np.int32) % K
    _, rest = _footprint_parts(h, K, 1, 0.1)
    d = DynamicHypergraph.from_hypergraph(h, parts, K, backend="gpu", memory_budget=rest,
                                          headroom=0.0)  # fmt: skip
    impl = d._impl
    assert impl.host_pools
    rng = np.random.default_rng(4)
    d.apply(timing_batch(d, rng, 30))
    d.refine("cut")
    before = gpu_state(impl)
    growths = d.stats["vertex_pool"]["growths"] + d.stats["net_pool"]["growths"]
    d.begin_batch()
    with pytest.raises(RuntimeError, match="already open"):
        d.begin_batch()
    b = timing_batch(d, rng, 30)
    # more new vertices and nets than the pools' spare slots (the structure keeps headroom)
    for _ in range(3 * h.n):
        v = b.insert_vertex(1)
        e = b.insert_net(1)
        b.insert_pin(v, e)
    d.apply(b)
    d.refine("cut")
    assert d.stats["vertex_pool"]["growths"] + d.stats["net_pool"]["growths"] > growths
    d.rollback_batch()
    assert not d.in_batch
    assert_deep_equal(gpu_state(impl), before)
    assert isinstance(impl._a["vslot"].data.mem, cupy.cuda.UnownedMemory)  # still host pools
    d.check()
    live = d.num_vertices
    d.begin_batch()
    d.apply(b)
    d.commit_batch()
    assert d.num_vertices == live + int((b.ops == 0).sum() - (b.ops == 1).sum())  # kept
    d.check()
    with pytest.raises(RuntimeError, match="no transaction"):
        d.rollback_batch()


@pytest.mark.gpu
def test_gpu_circuit_session_rolls_back_circuit_and_engine(tau2015):
    """A GPU circuit session whose refinement fails after the engine took the batch: circuit,
    id maps and engine return (every attribute of the GPU structure included); the session
    then takes the same changes as a twin that never saw the failure, with exact metrics."""
    from igpart.metrics import evaluate

    # the initial partition on the CPU: the same for both sessions
    s, twin = c432_sessions(tau2015, backend="cpu", engine="gpu")
    c = s._circuit.circuit
    gate, net = c.instance_names[5], c.net_names[7]

    def queue(x: Session) -> None:
        queue_gate_changes(x, gate, net)

    gpu_before = gpu_state(s.engine.dynamic._impl)
    failed_refine_changes_nothing(s, lambda mp: failing_call(mp, s.engine.dynamic, "refine"),
                                  queue)  # fmt: skip
    assert_deep_equal(gpu_state(s.engine.dynamic._impl), gpu_before)
    queue(s)
    queue(twin)
    r, rt = s.refine(), twin.refine()
    assert sorted(r.new) == sorted(rt.new) and r.balanced and rt.balanced
    assert c._state() == twin._circuit.circuit._state()
    assert_same(canonical_structure(s.engine.dynamic, partition=False),
                canonical_structure(twin.engine.dynamic, partition=False))
    s.engine.dynamic.check()
    snap = s.engine.dynamic.to_hypergraph()
    want = evaluate(snap.hypergraph, snap.parts, 4, s.engine.epsilon)
    assert (r.cut, r.km1, r.block_weights) == (want["cut"], want["km1"],
                                               [int(w) for w in want["block_weights"]])
