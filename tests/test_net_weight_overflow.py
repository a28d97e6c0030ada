"""Net weights a batch sets or inserts: a batch after which the live nets' weights, or their
weights times net sizes (the bound on cut and km1 a Hypergraph is built under), would sum past
2**63 - 1 is a BatchError (an InputError) naming the record, and changes nothing, on both
engines, through the Python API, a Session and the JSON-lines server."""

from __future__ import annotations

import json

import numpy as np
import pytest

from igpart import BatchError, InputError, write_hgr
from igpart.dynamic import Batch, net_weight_overflow
from igpart.generators import random_circuit, timing_batch
from igpart.plugin import JsonLinesServer, Session

from .test_atomic_batches import (
    assert_same,
    c432_sessions,
    circuit_state,
    deep_state,
    engine,
    failed_refine_changes_nothing,
)

MAX = 2**63 - 1


def net_overflow_oracle(ops, args, weights, sizes) -> int:
    """Record-by-record reference of net_weight_overflow (Python integers, dicts of each net's
    weight and size as the batch leaves them)."""
    w = dict(enumerate(int(x) for x in weights))
    s = dict(enumerate(int(x) for x in sizes))
    total, pins = sum(w.values()), sum(w[e] * s[e] for e in w)
    for i, op in enumerate(ops.tolist()):
        a, b = int(args[0, i]), int(args[1, i])
        if op in (2, 3, 7):  # insert_net, delete_net, set_net_weight
            e = -(i + 1) if op == 2 else a
            old = 0 if op == 2 else w.get(e, 0)
            new = 0 if op == 3 else max(a if op == 2 else b, 0)
            total += new - old
            pins += (new - old) * s.get(e, 0)
            w[e] = new
        elif op in (4, 5):  # insert_pin, delete_pin: net b
            step = 1 if op == 4 else -1
            s[b] = s.get(b, 0) + step
            pins += step * w.get(b, 0)
        if total > MAX or pins > MAX:
            return i
    return -1


def test_net_weight_overflow_equals_a_record_by_record_oracle():
    rng = np.random.default_rng(7)
    found = 0
    for trial in range(400):
        n = int(rng.integers(1, 7))
        sizes = rng.integers(0, 6, size=n)
        weights = rng.integers(0, 2**58, size=n, dtype=np.int64)
        if trial % 4 == 0:
            weights[:] = rng.integers(0, 8, size=n)
        count = int(rng.integers(1, 14))
        ops = rng.choice([2, 3, 4, 5, 7, 0], size=count).astype(np.int8)
        args = np.zeros((3, count), dtype=np.int64)
        for i, op in enumerate(ops.tolist()):
            inserts = np.flatnonzero(ops[:i] == 2)
            net = (int(rng.integers(0, n + 1)) if not inserts.size or rng.random() < 0.5
                   else -(int(rng.choice(inserts)) + 1))  # fmt: skip
            wt = int(rng.integers(0, 2**62)) if rng.random() < 0.7 else int(rng.integers(0, 9))
            args[:, i] = {2: (wt, 0, 0), 3: (net, 0, 0), 4: (0, net, 0), 5: (0, net, 0),
                          7: (net, wt, 0), 0: (wt, -1, 0)}[op]  # fmt: skip
        want = net_overflow_oracle(ops, args, weights, sizes)
        got = net_weight_overflow(ops, args, int(weights.max()), n, int(sizes.sum()),
                                  lambda w=weights, s=sizes: (w.copy(), s.copy()))  # fmt: skip
        assert got == want, trial
        found += want >= 0
    assert 40 < found < 360  # both outcomes were exercised


def biggest_net(d) -> tuple[int, int]:
    """(id, size) of the live net with the most pins."""
    snap = d.to_hypergraph()
    sizes = np.diff(snap.hypergraph.eptr)
    j = int(np.argmax(sizes))
    return int(snap.net_ids[j]), int(sizes[j])


@pytest.mark.parametrize("engine_kind", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_net_weight_overflow_is_an_input_error_that_changes_nothing(engine_kind):
    ip = engine(engine_kind)
    d = ip.dynamic
    e, size = biggest_net(d)
    assert size >= 2
    before = deep_state(ip)
    rng = np.random.default_rng(4)

    def overflowing() -> list[Batch]:
        b1 = timing_batch(d, rng, 30)  # weight x size of one net past the limit
        b1.set_net_weight(e, MAX // size + 1)
        b2 = timing_batch(d, rng, 30)  # a heavy new net that gains pins
        f = b2.insert_net(2**62)
        b2.insert_pin(0, f)
        b2.insert_pin(1, f)
        b3 = Batch()  # the plain total of weights (empty nets)
        b3.insert_net(2**62)
        b3.insert_net(2**62)
        return [b1, b2, b3]

    for b in overflowing():
        with pytest.raises(BatchError, match="net weights") as info:
            ip.apply(b)
        assert info.value.record == len(b) - 1
        assert_same(deep_state(ip), before)
    # a large weight with room left is taken (by the structure: no re-partition around it)
    b = Batch()
    b.set_net_weight(e, 2**40)
    d.apply(b)
    d.check()
    assert d.net_weights[e] == 2**40 and d.km1 >= 2**40 * (int(d.connectivity[e]) - 1)
    b = Batch()  # the same net lowered again, then raised to the largest weight that fits
    b.set_net_weight(e, 1)
    b.set_net_weight(e, (MAX - int(before_pins_without(d, e))) // size)
    d.apply(b)
    d.check()


def before_pins_without(d, e: int) -> int:
    """The sum of weight x size over the live nets other than ``e``."""
    snap = d.to_hypergraph()
    sizes = np.diff(snap.hypergraph.eptr)
    keep = snap.net_ids != e
    return int(np.dot(snap.hypergraph.ewgt[keep].astype(object), sizes[keep].astype(object)))


def test_session_refuses_net_weights_that_overflow_and_stays_intact():
    h = random_circuit(600, seed=2)
    s = Session(h, k=4, seed=1)
    e, size = biggest_net(s.engine.dynamic)
    before, blocks, metrics = deep_state(s.engine), s.parts.copy(), s.metrics()
    s.set_net_weight(e, 3)
    s.set_net_weight(e, MAX // size + 1)
    with pytest.raises(InputError, match=r"batch record 1 \(set_net_weight net=.*net weights"):
        s.refine()
    assert_same(deep_state(s.engine), before)
    assert np.array_equal(s.parts, blocks) and s.metrics() == metrics and s.pending == 0
    s.set_net_weight(e, 7)  # the session goes on
    r = s.refine()
    assert r.balanced and s.engine.dynamic.net_weights[e] == 7
    s.engine.dynamic.check()


@pytest.mark.parametrize("engine_kind", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_circuit_session_net_weight_overflow_keeps_circuit_and_engine_in_step(tau2015,
                                                                               engine_kind):
    """insert_gate and connect_pin, then a net weight whose km1 bound overflows, in one batch:
    an InputError, the circuit and the engine both as before, the new gate unknown to both."""
    s, _ = c432_sessions(tau2015, backend="cpu", engine=engine_kind)
    e, size = biggest_net(s.engine.dynamic)
    net = s._circuit.circuit.net_names[7]

    def queue(x: Session) -> None:
        x.insert_gate("g_new", "INV_X1")
        x.connect_pin("g_new:A", net)
        x.set_net_weight(e, MAX // size + 1)

    failed_refine_changes_nothing(s, lambda mp: None, queue, InputError, "net weights")
    before = circuit_state(s)
    s.insert_gate("g_new", "INV_X1")
    s.connect_pin("g_new:A", net)
    s.set_net_weight(e, 2**30)
    assert s.refine().balanced and s.block_of("g_new") >= 0
    assert circuit_state(s) != before
    s.engine.dynamic.check()


def test_server_answers_an_overflowing_net_weight_with_an_error_and_keeps_the_session(tmp_path):
    path = tmp_path / "c.hgr"
    write_hgr(random_circuit(400, seed=5), path)
    srv = JsonLinesServer()

    def ask(method, *params, **named):
        request = {"id": 9, "method": method, "params": named or params}
        return json.loads(srv.respond(json.dumps(request)))

    assert ask("read", str(path))["ok"] and ask("partition", k=2)["ok"]
    session = srv.commands.session
    e, size = biggest_net(session.engine.dynamic)
    report, state = ask("report")["result"], deep_state(session.engine)
    assert ask("set_net_weight", e, MAX // size + 1)["ok"]
    r = ask("refine")
    assert not r["ok"] and r["id"] == 9 and r["error"]["type"] == "BatchError"
    assert "net weights" in r["error"]["message"] and len(r["error"]["message"]) < 300
    assert ask("report")["result"] == report
    assert_same(deep_state(session.engine), state)
    assert ask("set_net_weight", e, 5)["ok"] and ask("refine")["ok"]
    assert session.engine.dynamic.net_weights[e] == 5
