"""A process mapping kept by a Session (igpart.plugin.mapping): after batches the reported cost
equals a from-scratch recomputation on the live hypergraph and the mapping stays balanced; the
Tcl and JSON-lines ``map`` commands; bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

import igpart
from igpart import io as gio
from igpart.errors import InputError
from igpart.generators import random_circuit
from igpart.mapping import communication_cost
from igpart.plugin import JsonLinesServer, Session
from igpart.plugin.commands import Commands

HIER, DIST = (2, 2, 2), (1, 10, 100)


def live_cost(s: Session, hierarchy=HIER, distance=DIST):
    snap = s.dynamic.to_hypergraph()
    return communication_cost(snap.hypergraph, snap.parts, hierarchy, distance)


@pytest.mark.parametrize("graph", [False, True])
def test_session_mapping_after_batches_cost_recomputable_and_balanced(graph):
    h = random_circuit(1200, seed=3)
    design = h.to_graph() if graph else h
    s = Session(design, k=8, mapping={"hierarchy": HIER, "distance": "1:10:100"})
    assert s.mapping["cost"] == live_cost(s) and s.mapping["algorithm"] == "im"
    assert s.mapping["cost"] == sum(s.mapping["level_costs"])
    rng = np.random.default_rng(0)
    m = s.dynamic.num_nets
    for _ in range(4):
        for _ in range(15):
            if graph:
                a, b = (int(x) for x in rng.integers(0, design.n, 2))
                if a != b and b not in design.neighbors(a):
                    s.insert_edge(a, b)
            else:
                v = s.insert_vertex(weight=int(rng.integers(1, 3)))
                s.insert_pin(v, int(rng.integers(m)))
                s.insert_pin(v, int(rng.integers(m)))
        r = s.refine()
        assert r.balanced and s.dynamic.is_balanced
        assert r.mapping["cost"] == live_cost(s) == s.mapping["cost"]
        assert r.to_dict()["mapping"] == r.mapping
        assert (r.cut, r.km1) == (s.dynamic.cut, s.dynamic.km1)
        for v, b in r.changed.items():  # what the result says moved is where it is now
            assert s.block_of(v) == b
    r = s.repartition()  # a full re-partition: blocks placed on the PEs again
    assert r.balanced and r.mapping["cost"] == live_cost(s)
    assert s.metrics()["mapping"]["cost"] == live_cost(s)


def test_batch_region_refined_with_the_mapping_gain():
    h = random_circuit(1500, seed=5)
    s = Session(h, k=8, mapping={"hierarchy": HIER, "distance": DIST})
    before = s.mapping["cost"]
    r = s.refine()  # nothing queued: nothing moves, cost unchanged
    assert r.mapping["cost"] == before and r.mapping["moved"] == 0
    # scramble a few PEs directly: the next batch's region is refined back down
    snap = s.dynamic.to_hypergraph()
    victims = snap.vertex_ids[:40]
    s.dynamic.move(victims, (snap.parts[:40] + 4) % 8)
    worse = live_cost(s)
    assert worse > before
    for v in victims.tolist():
        s.set_vertex_weight(v, int(s.dynamic.vertex_weights[v]))  # touch them
    r = s.refine()
    assert r.mapping["cost"] == live_cost(s) < worse and r.balanced


def test_map_command_refine_keeps_blocks_and_given_parts():
    h = random_circuit(1000, seed=2)
    p = igpart.partition(h, 4, seed=1).parts
    s = Session(h, k=4, parts=p, mapping={"hierarchy": (2, 2), "distance": (1, 10)})
    assert s.mapping["algorithm"] == "given"
    before = communication_cost(h, p, (2, 2), (1, 10))
    assert s.mapping["cost"] == live_cost(s, (2, 2), (1, 10)) <= before
    s2 = Session(h, k=4, parts=p)
    assert s2.mapping is None and "mapping" not in s2.metrics()
    out = s2.map("2 2", [1, 10], algorithm="refine")
    assert out["cost"] == s.mapping["cost"] and out["algorithm"] == "refine"


@pytest.mark.parametrize(
    "mapping,words",
    [
        ({"hierarchy": (2, 2), "distance": (1, 10)}, "4 PEs but k = 8"),
        ({"hierarchy": (2, 4)}, "distance is missing"),
        ({"hierarchy": (2, 4), "distance": (1, 10), "x": 1}, "unknown key(s) x"),
        ({"hierarchy": (2, 4), "distance": (10, 1)}, "non-decreasing"),
        ({"hierarchy": (2, 4), "distance": (1, 10), "algorithm": "nope"}, "unknown algorithm"),
        ({"hierarchy": "2:x", "distance": (1, 10)}, "hierarchy: expected colon-separated"),
        ("2:4", "must be a dict"),
    ],
)
def test_bad_mapping_option_raises_input_error(mapping, words):
    with pytest.raises(InputError) as exc:
        Session(random_circuit(200, seed=1), k=8, mapping=mapping)
    assert words in str(exc.value)


def test_bad_map_command_changes_nothing():
    s = Session(random_circuit(300, seed=1), k=4)
    parts = s.parts.copy()
    for args, words in [(((2, 4), (1, 10)), "has k = 8 PEs but the session has k = 4"),
                        (((2, 2), (1, 10), "x"), "unknown mapping algorithm 'x'")]:  # fmt: skip
        with pytest.raises(InputError, match=words.replace("(", r"\(")):
            s.map(*args)
    assert s.mapping is None and (s.parts == parts).all()


@pytest.fixture
def hgr(tmp_path):
    f = tmp_path / "c.hgr"
    gio.write_hgr(random_circuit(400, seed=5), f)
    return f


@pytest.mark.tcl
def test_tcl_map_then_batches(hgr):
    from igpart.plugin.tcl import TclBridge

    b = TclBridge()
    b.eval(f"igpart::read {{{hgr}}}")
    b.eval("igpart::partition -k 8")
    cost = int(b.eval("dict get [igpart::map -hierarchy 2:2:2 -distance {1 10 100}] cost"))
    c = b.commands
    assert cost == live_cost(c.session)
    b.eval("set v [igpart::insert_vertex]; igpart::insert_pin $v 0; igpart::insert_pin $v 5")
    after = int(b.eval("dict get [dict get [igpart::refine] mapping] cost"))
    assert after == live_cost(c.session)
    assert int(b.eval("dict get [dict get [igpart::report] mapping] cost")) == after
    assert "hierarchy" in b.eval("igpart::help map")
    with pytest.raises(Exception, match="map: the hierarchy 2:2 has k = 4 PEs"):
        b.eval("igpart::map -hierarchy 2:2 -distance 1:10")


def test_json_lines_map(hgr):
    requests = [{"id": 1, "method": "read", "params": [str(hgr)]},
                {"id": 2, "method": "partition", "params": {"k": 4}},
                {"id": 3, "method": "map", "params": {"hierarchy": [2, 2], "distance": [1, 10],
                                                       "algorithm": "hm"}},
                {"id": 4, "method": "insert_vertex"},
                {"id": 5, "method": "insert_pin", "params": [400, 3]},
                {"id": 6, "method": "refine"},
                {"id": 7, "method": "blocks"},
                {"id": 8, "method": "map", "params": {"hierarchy": [2, 2], "distance": [5, 1]}}]
    server = JsonLinesServer()
    replies = [json.loads(json.dumps(server.handle(json.dumps(q)))) for q in requests]
    assert replies[2]["ok"] and replies[2]["result"]["algorithm"] == "hm"
    h = gio.read_hgr(hgr)
    assert replies[5]["ok"] and replies[5]["result"]["mapping"]["hierarchy"] == [2, 2]
    parts = np.array(replies[6]["result"])
    nets = [list(h.net(e)) + ([400] if e == 3 else []) for e in range(h.m)]
    grown = igpart.Hypergraph.from_nets(nets, n=401)
    assert replies[5]["result"]["mapping"]["cost"] == communication_cost(grown, parts, (2, 2),
                                                                         (1, 10))  # fmt: skip
    assert not replies[7]["ok"] and "non-decreasing" in replies[7]["error"]["message"]


def test_commands_map_without_session():
    with pytest.raises(InputError, match="no session yet"):
        Commands().call("map", "2:2", "1:10")


def test_batch_region_equals_the_incidence_products():
    """The refined region of a batch: the seed vertices, the pins of the seed nets, then every
    pin of a net of at most NEIGHBOUR_MAX_NET_SIZE pins that has a pin in it, as the products
    of the vertex-net incidence with those masks give it."""
    import types

    import scipy.sparse as sp

    from igpart.plugin import mapping as sm

    rng = np.random.default_rng(3)
    for trial in range(20):
        n, m = int(rng.integers(5, 400)), int(rng.integers(1, 300))
        sizes = rng.integers(1, 90 if trial % 2 else 8, size=m)
        nets = [rng.choice(n, size=min(int(z), n), replace=False) for z in sizes]
        h = igpart.Hypergraph.from_nets(nets, n=n)
        snap = types.SimpleNamespace(vertex_ids=np.arange(n) * 3, net_ids=np.arange(h.m) * 2)
        seeds = rng.choice(n, size=3) * 3
        seed_nets = rng.choice(h.m, size=2) * 2
        inc = sp.csr_matrix((np.ones(h.num_pins), (h.eind, h.pin_nets)), shape=(h.n, h.m))
        want = np.zeros(n, dtype=bool)
        want[seeds // 3] = True
        seed_mask = np.zeros(h.m, dtype=bool)
        seed_mask[seed_nets // 2] = True
        want |= (inc @ seed_mask.astype(float)) > 0
        near = ((inc.T @ want.astype(float)) > 0) & (np.diff(h.eptr) <= sm.NEIGHBOUR_MAX_NET_SIZE)
        want |= (inc @ near.astype(float)) > 0
        assert np.array_equal(sm._region(h, snap, seeds, seed_nets), want)
