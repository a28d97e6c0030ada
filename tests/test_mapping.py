"""Process mapping (igpart.mapping): the cost against plain-Python oracles and a brute-force
Steiner tree, the sub-(hyper)graph extraction, balance, near-optimality on tiny inputs, bad input
and the CLI."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import igpart
from igpart import Graph, Hypergraph, InputError
from igpart.cli import main
from igpart.generators import random_circuit
from igpart.mapping import (
    adaptive_epsilon,
    block_communication,
    check_hierarchy,
    communication_cost,
    distance_matrix,
    greedy_placement,
    level_costs,
)
from igpart.metrics import max_block_weight
from igpart.subgraphs import subgraphs, subhypergraphs

from .test_metis_pool import fresh_pool  # noqa: F401  (a fresh worker pool, its calls wait for a start)

HIERARCHIES = [((2,), (3,)), ((2, 2), (1, 10)), ((3, 2), (2, 5)), ((2, 3, 2), (1, 10, 100)),
               ((2, 1, 2), (1, 4, 4)), ((4, 2), (1.5, 2.5))]  # fmt: skip


# ------------------------------------------------------------------------------- oracles
def distance_oracle(p: int, q: int, hierarchy, distance) -> float:
    """D(p, q): the distance of the lowest level at which the groups of p and q coincide."""
    if p == q:
        return 0
    size = 1
    for a, d in zip(hierarchy, distance):
        size *= a
        if p // size == q // size:
            return d
    raise AssertionError("PEs outside the machine")


def mst_weight(nodes, hierarchy, distance) -> float:
    """Prim's minimum spanning tree of ``nodes`` in the complete graph with weights D."""
    nodes = list(nodes)
    if len(nodes) <= 1:
        return 0
    inside, total = {nodes[0]}, 0
    while len(inside) < len(nodes):
        w, v = min(
            (distance_oracle(u, x, hierarchy, distance), x)
            for u in inside
            for x in nodes
            if x not in inside
        )
        inside.add(v)
        total += w
    return total


def steiner_brute_force(terminals, hierarchy, distance) -> float:
    """Minimum Steiner tree of ``terminals`` on the complete target graph with weights D: the
    least MST over the terminals plus every subset of the other PEs (D is a metric, so an
    optimal Steiner tree is an MST of its node set)."""
    k = int(np.prod(hierarchy))
    others = [p for p in range(k) if p not in set(terminals)]
    best = mst_weight(terminals, hierarchy, distance)
    for r in range(1, len(others) + 1):
        for extra in itertools.combinations(others, r):
            best = min(best, mst_weight(list(terminals) + list(extra), hierarchy, distance))
    return best


def cost_oracle(h, parts, hierarchy, distance) -> float:
    """Plain-Python cost: sum over edges of w * D, or over nets of w_e * MST of their PEs."""
    if isinstance(h, Graph):
        total = 0
        for u in range(h.n):
            for j in range(h.xadj[u], h.xadj[u + 1]):
                v = int(h.adjncy[j])
                if u < v:
                    total += int(h.adjwgt[j]) * distance_oracle(
                        int(parts[u]), int(parts[v]), hierarchy, distance
                    )
        return total
    total = 0
    for e in range(h.m):
        pes = sorted({int(parts[v]) for v in h.net(e)})
        total += int(h.ewgt[e]) * mst_weight(pes, hierarchy, distance)
    return total


def random_hypergraph(rng, n: int, m: int, max_size: int = 5, weights: bool = True) -> Hypergraph:
    nets = [rng.choice(n, size=rng.integers(1, max_size + 1), replace=False) for _ in range(m)]
    ewgt = rng.integers(1, 5, size=m) if weights else None
    vwgt = rng.integers(1, 4, size=n) if weights else None
    return Hypergraph.from_nets(nets, n=n, vwgt=vwgt, ewgt=ewgt)


def random_graph(rng, n: int, m: int) -> Graph:
    u = rng.integers(0, n, size=m)
    v = rng.integers(0, n, size=m)
    keep = u != v
    return Graph.from_edges(u[keep], v[keep], rng.integers(1, 5, size=keep.sum()), n=n)


# ---------------------------------------------------------------------------------- cost
@pytest.mark.parametrize("hierarchy,distance", HIERARCHIES)
def test_cost_equals_plain_python_recomputation(hierarchy, distance):
    rng = np.random.default_rng(len(hierarchy) * 7 + hierarchy[0])
    k = int(np.prod(hierarchy))
    for _ in range(4):
        n = int(rng.integers(k, 40))
        h = random_hypergraph(rng, n, int(rng.integers(0, 30)), max_size=min(n, 7))
        g = random_graph(rng, n, int(rng.integers(0, 60)))
        parts = rng.integers(0, k, size=n)
        for x in (h, g):
            got = communication_cost(x, parts, hierarchy, distance)
            assert got == pytest.approx(cost_oracle(x, parts, hierarchy, distance))
            assert sum(level_costs(x, parts, hierarchy, distance)) == pytest.approx(got)
        # a graph's cost is its 2-pin-net hypergraph's
        assert communication_cost(g.to_hypergraph(), parts, hierarchy, distance) == pytest.approx(
            communication_cost(g, parts, hierarchy, distance)
        )


@pytest.mark.parametrize("hierarchy,distance", HIERARCHIES[:5])
def test_closed_form_equals_brute_force_steiner_tree(hierarchy, distance):
    k = int(np.prod(hierarchy))
    rng = np.random.default_rng(k)
    sets = [c for r in range(1, k + 1) for c in itertools.combinations(range(k), r)]
    for idx in rng.choice(len(sets), size=min(len(sets), 25), replace=False):
        terminals = list(sets[idx])
        # one net whose pins sit on exactly the terminal PEs
        h = Hypergraph.from_nets([list(range(len(terminals)))], n=len(terminals), ewgt=[3])
        got = communication_cost(h, terminals, hierarchy, distance)
        assert got == 3 * steiner_brute_force(terminals, hierarchy, distance)


@pytest.mark.parametrize("hierarchy,distance", [((2, 2, 2), (1, 10, 100)), ((4, 3), (2, 7))])
def test_cost_equals_mtkahypar_steiner_tree(hierarchy, distance):
    """Mt-KaHyPar's ``steiner_tree`` of the same PE ids on the complete target graph with the
    hierarchy's distances (independent code; skipped without Mt-KaHyPar)."""
    mtk = pytest.importorskip("mtkahypar")
    from igpart.partitioner.initial.mtkahypar import mtkahypar_initializer

    init = mtkahypar_initializer(1)
    k = int(np.prod(hierarchy))
    ctx = init.context_from_preset(mtk.PresetType.DEFAULT)
    ctx.set_mapping_parameters(k, 0.03)
    ctx.logging = False
    D = distance_matrix(hierarchy, distance)
    edges = [(p, q) for p in range(k) for q in range(p + 1, k)]
    target = init.create_target_graph(ctx, k, len(edges), edges, [int(D[e]) for e in edges])
    rng = np.random.default_rng(k)
    h = random_hypergraph(rng, 200, 300, max_size=9)
    hg = init.create_hypergraph(ctx, h.n, h.m, [h.net(e).tolist() for e in range(h.m)],
                                h.vwgt.tolist(), h.ewgt.tolist())  # fmt: skip
    for _ in range(3):
        parts = rng.integers(0, k, size=h.n)
        want = hg.create_partitioned_hypergraph(ctx, k, parts.tolist()).steiner_tree(target)
        assert communication_cost(h, parts, hierarchy, distance) == want


def test_cost_is_zero_on_one_pe_and_counts_each_edge_once():
    g = Graph.from_edges([0, 1], [1, 2], [5, 7], n=3)
    assert communication_cost(g, [0, 0, 0], (2, 2), (1, 10)) == 0
    assert communication_cost(g, [0, 1, 3], (2, 2), (1, 10)) == 5 * 1 + 7 * 10


# ----------------------------------------------------------------------- sub-(hyper)graphs
def test_subhypergraphs_equal_plain_python_extraction():
    rng = np.random.default_rng(3)
    h = random_hypergraph(rng, 30, 40, max_size=6)
    group = rng.integers(0, 4, size=h.n)
    for g, verts, sub in subhypergraphs(h, group, 4):
        assert verts.tolist() == [v for v in range(h.n) if group[v] == g]
        local = {int(v): i for i, v in enumerate(verts)}
        want = []
        for e in range(h.m):
            pins = [local[int(v)] for v in h.net(e) if group[v] == g]
            if len(pins) >= 2:
                want.append((pins, int(h.ewgt[e])))
        got = [(sub.net(e).tolist(), int(sub.ewgt[e])) for e in range(sub.m)]
        assert got == want
        assert sub.vwgt.tolist() == h.vwgt[verts].tolist()


def test_subgraphs_equal_induced_subgraphs():
    rng = np.random.default_rng(4)
    g0 = random_graph(rng, 40, 120)
    group = rng.integers(0, 3, size=g0.n)
    for g, verts, sub in subgraphs(g0, group, 3):
        assert verts.tolist() == [v for v in range(g0.n) if group[v] == g]
        local = {int(v): i for i, v in enumerate(verts)}
        want = sorted(
            (local[int(u)], local[int(v)], int(w))
            for u, v, w in zip(*g0.edge_list())
            if group[u] == g and group[v] == g
        )
        Graph(sub.xadj, sub.adjncy, sub.n, sub.adjwgt, sub.vwgt)  # a valid symmetric CSR
        assert sorted(zip(*(a.tolist() for a in sub.edge_list()))) == want
        assert sub.vwgt.tolist() == g0.vwgt[verts].tolist()


# ------------------------------------------------------------------------------ mapping
def test_adaptive_epsilon_bounds_every_child():
    """Equation 2, capped: whenever a split can meet the global bound at all, the bound the
    partitioner gets lets no child weigh more than its PEs times the global bound."""
    rng = np.random.default_rng(0)
    for _ in range(2000):
        parts, below = (int(x) for x in rng.integers(2, 5, size=2))
        depth = int(rng.integers(1, 4))
        sub_k = parts * below ** (depth - 1)
        k = sub_k * int(rng.integers(1, 5))
        total = int(rng.integers(k, 10_000))
        sub_total = int(rng.integers(1, total + 1))
        eps = adaptive_epsilon(0.03, total, k, sub_total, sub_k, depth, parts)
        assert eps >= 0
        child_cap = (sub_k // parts) * max_block_weight(total, k, 0.03)
        if -(-sub_total // parts) <= child_cap:
            assert max_block_weight(sub_total, parts, eps) <= child_cap
        if depth == 1 and sub_k == k:  # one split of everything: the global bound
            sub_total = total
            eps = adaptive_epsilon(0.03, total, k, sub_total, sub_k, depth, parts)
            assert max_block_weight(sub_total, parts, eps) == max_block_weight(total, k, 0.03)


@pytest.mark.parametrize("algorithm", ["hm", "hm-ultra", "two-phase", "im"])
@pytest.mark.parametrize("hierarchy,distance", [((4, 2, 2), (1, 10, 100)), ((2, 3), (1, 5)),
                                                ((4, 8, 1), (1, 10, 100))])  # fmt: skip
def test_every_mapping_balanced_and_reported_figures_recomputable(algorithm, hierarchy, distance):
    h = random_circuit(600, seed=5)
    h = h.with_weights(vwgt=np.random.default_rng(1).integers(1, 4, size=h.n))
    for x in (h, h.to_graph()):
        m = igpart.map(x, hierarchy, distance, epsilon=0.03, algorithm=algorithm, seed=2)
        k = int(np.prod(hierarchy))
        assert m.k == k and m.parts.shape == (x.n,) and m.parts.max() < k
        assert m.balanced
        bound = max_block_weight(x.total_weight, k, 0.03)
        assert igpart.block_weights(x, m.parts, k).max() <= bound
        assert m.cost == communication_cost(x, m.parts, hierarchy, distance)
        assert m.km1 == igpart.km1(x, m.parts, k)
        assert (m.groups[1] == m.parts // hierarchy[0]).all()
        if algorithm in ("two-phase", "im"):
            continue
        assert m.splits == sum(
            int(np.prod(hierarchy[i + 1 :])) for i, a in enumerate(hierarchy) if a > 1
        )


def test_mapping_beats_a_random_placement_of_its_own_blocks():
    # the multisection puts heavily connected blocks close: relabelling its PEs at random costs more
    h = random_circuit(2000, seed=7)
    hierarchy, distance = (4, 4, 2), (1, 10, 100)
    m = igpart.map(h, hierarchy, distance)
    rng = np.random.default_rng(0)
    shuffled = [communication_cost(h, rng.permutation(32)[m.parts], hierarchy, distance)
                for _ in range(5)]  # fmt: skip
    assert m.cost < min(shuffled)


def test_greedy_placement_keeps_communicating_blocks_together():
    # blocks 0-5 and 1-4, 2-7 and 3-6 talk a lot, the pairs {0,5,1,4} and {2,7,3,6} a little: the
    # greedy placement puts each pair on a node and each quartet in a rack, the optimum
    hierarchy, distance = (2, 2, 2), (1, 10, 100)
    W = np.zeros((8, 8))
    for (x, y), w in {(0, 5): 50, (1, 4): 50, (2, 7): 50, (3, 6): 50, (0, 1): 5, (5, 4): 5,
                      (2, 3): 5, (7, 6): 5, (0, 2): 1}.items():  # fmt: skip
        W[x, y] = W[y, x] = w
    place = greedy_placement(W, hierarchy, distance)
    assert sorted(place.tolist()) == list(range(8))
    D = distance_matrix(hierarchy, distance)
    cost = (W * D[place][:, place]).sum() / 2
    best = min((W * D[list(q)][:, list(q)]).sum() / 2 for q in itertools.permutations(range(8)))
    assert cost == best


def test_block_communication_equals_plain_python():
    rng = np.random.default_rng(5)
    h = random_hypergraph(rng, 30, 40, max_size=6)
    g = random_graph(rng, 30, 80)
    parts = rng.integers(0, 5, size=30)
    for x in (h, g.to_hypergraph()):
        want = np.zeros((5, 5))
        for e in range(x.m):
            blocks = sorted({int(parts[v]) for v in x.net(e)})
            for i, j in itertools.permutations(blocks, 2):
                want[i, j] += x.ewgt[e]
        assert (block_communication(x, parts, 5) == want).all()
    assert (
        block_communication(g, parts, 5) == block_communication(g.to_hypergraph(), parts, 5)
    ).all()


def test_same_seed_same_mapping():
    h = random_circuit(500, seed=9)
    a = igpart.map(h, (2, 2, 2), (1, 10, 100), seed=4)
    b = igpart.map(h, (2, 2, 2), (1, 10, 100), seed=4)
    assert (a.parts == b.parts).all() and a.cost == b.cost


TINY_FACTOR = 1.25  # measured: at most 1.05x the optimum on 20 such inputs, mostly optimal


@pytest.mark.parametrize("algorithm", ["hm", "im"])
@pytest.mark.parametrize("hierarchy,distance,n", [((2, 2), (1, 10), 8), ((3,), (5,), 9)])
def test_tiny_inputs_within_factor_of_brute_force_optimum(hierarchy, distance, n, algorithm):
    """All k^n assignments (65,536 and 19,683), vectorised: the least cost among the balanced
    ones is the optimum; hm and im stay within TINY_FACTOR of it on every input."""
    k = int(np.prod(hierarchy))
    allp = np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64)
    loads = np.stack([(allp == b).sum(axis=1) for b in range(k)], axis=1)
    rng = np.random.default_rng(11)
    for trial in range(6):
        x = (random_hypergraph(rng, n, 10, max_size=4, weights=False) if trial % 2 == 0
             else random_graph(rng, n, 14))  # fmt: skip
        ok = loads.max(axis=1) <= max_block_weight(x.total_weight, k, 0.03)
        opt = _all_costs(x, allp[ok], hierarchy, distance).min()
        m = igpart.map(x, hierarchy, distance, epsilon=0.03, seed=trial, algorithm=algorithm)
        assert m.balanced
        assert m.cost <= TINY_FACTOR * opt + 1e-9, (trial, m.cost, opt)


def _all_costs(x, assignments: np.ndarray, hierarchy, distance) -> np.ndarray:
    """The cost of many assignments at once: for each net, the number of distinct level-i
    groups among its pins, by a bitmask per level."""
    hx = x.to_hypergraph() if isinstance(x, Graph) else x
    costs = np.zeros(len(assignments))
    for e in range(hx.m):
        pins = hx.net(e)
        touched = []
        size = 1
        for level in range(len(hierarchy) + 1):
            mask = np.zeros(len(assignments), dtype=np.int64)
            for v in pins:
                mask |= 1 << (assignments[:, v] // size)
            touched.append(np.array([bin(b).count("1") for b in range(1 << 8)])[mask])
            if level < len(hierarchy):
                size *= hierarchy[level]
        for level, d in enumerate(distance, start=1):
            costs += hx.ewgt[e] * d * (touched[level - 1] - touched[level])
    return costs


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kwargs,words",
    [
        (dict(hierarchy=(4, 2), distance=(1, 10, 100)), "2 levels but distance has 3"),
        (dict(hierarchy=(4, 0), distance=(1, 10)), "level 2 must be a positive integer"),
        (dict(hierarchy=(4, -2), distance=(1, 10)), "positive integer"),
        (dict(hierarchy=(4, 2.5), distance=(1, 10)), "positive integer"),
        (dict(hierarchy=(2, 2), distance=(1, 0)), "distance of level 2 must be positive"),
        (dict(hierarchy=(2, 2), distance=(10, 1)), "non-decreasing"),
        (dict(hierarchy=(), distance=()), "at least one level"),
        (dict(hierarchy=(8, 8), distance=(1, 10)), "k = 64 PEs, more than the 50 vertices"),
        (dict(hierarchy=(2, 2), distance=(1, 10), algorithm="x"), "unknown mapping algorithm"),
        (dict(hierarchy=(2, 2), distance=(1, 10), epsilon=-0.1), "epsilon"),
    ],
)
def test_bad_input_raises_input_error(kwargs, words):
    h = random_circuit(50, seed=1)
    with pytest.raises(InputError) as exc:
        igpart.map(h, **kwargs)
    assert words in str(exc.value)


def test_cost_bad_parts_raise_input_error():
    h = random_circuit(50, seed=1)
    with pytest.raises(InputError, match="expected < k = 4"):
        communication_cost(h, np.full(h.n, 4), (2, 2), (1, 10))
    with pytest.raises(InputError, match="one per vertex"):
        communication_cost(h, np.zeros(3, dtype=int), (2, 2), (1, 10))
    with pytest.raises(InputError, match="non-decreasing"):
        check_hierarchy((2, 2), (5, 1))


# ------------------------------------------------------------------------------------ CLI
def test_cli_round_trip(tmp_path, capsys):
    h = random_circuit(400, seed=3)
    path = tmp_path / "c.hgr"
    igpart.write_hgr(h, path)
    rc = main(["map", str(path), "--hierarchy", "2:2:2", "--distance", "1:10:100", "--json"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    out = tmp_path / "c.hgr.map.8"
    assert d["output"] == str(out) and d["k"] == 8 and d["balanced"]
    parts = igpart.read_partition(out, n=h.n, k=8)
    assert d["cost"] == communication_cost(h, parts, (2, 2, 2), (1, 10, 100))
    assert d["cost"] == sum(d["level_costs"])
    rc = main(["map", str(path), "--hierarchy", "2:2", "--distance", "1:10:100"])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1 and "2 levels but distance has 3" in err
    assert "Traceback" not in err
    rc = main(["map", str(path), "--hierarchy", "2:x", "--distance", "1:10"])
    err = capsys.readouterr().err
    assert rc == 1 and "--hierarchy" in err and err.count("\n") == 1
    rc = main(["map", str(path), "--hierarchy", "2:2", "--distance", "1:10", "--algorithm", "im",
               "--json"])  # fmt: skip
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["algorithm"] == "im" and d["balanced"]
    parts = igpart.read_partition(tmp_path / "c.hgr.map.4", n=h.n, k=4)
    assert d["cost"] == communication_cost(h, parts, (2, 2), (1, 10))


@pytest.mark.gpu
@pytest.mark.parametrize("host_max", [0, 1000, None])
@pytest.mark.parametrize("algorithm", ["hm", "two-phase", "im"])
def test_gpu_backend_mapping_balanced_and_recomputable(monkeypatch, algorithm, host_max):
    # the splits run igpart.partition on the GPU backend (host_max 0), the small ones on the
    # C++ backend (1000: the first split on the device, the others on the host), or every one
    # on the host (the default on this small input); the partitions on the GPU keep every level
    # of a graph there (graph_host_levels_below 0: by default a graph this small runs on the
    # host)
    import igpart.mapping as mapping
    import igpart.partitioner.api as api

    if host_max is not None:
        monkeypatch.setattr(mapping, "HOST_SPLIT_MAX_VERTICES", host_max)
    real = api.partition

    def on_device(x, k, *args, config=None, **kw):  # mapping passes config 5th after k, or None
        if len(args) >= 5:
            args = (*args[:4], {**(args[4] or {}), "graph_host_levels_below": 0}, *args[5:])
        else:
            config = {**(config or {}), "graph_host_levels_below": 0}
            kw["config"] = config
        return real(x, k, *args, **kw)

    monkeypatch.setattr(api, "partition", on_device)
    h = random_circuit(3000, seed=6)
    hierarchy, distance = (4, 2, 2), (1, 10, 100)
    for x in (h, h.to_graph()):
        m = igpart.map(x, hierarchy, distance, algorithm=algorithm, backend="gpu")
        assert m.backend == "gpu" and m.balanced
        assert m.cost == communication_cost(x, m.parts, hierarchy, distance)


def test_splits_side_by_side_equal_splits_one_by_one():
    # the pool of one level's splits returns what calling each split alone (with the same share
    # of the threads) returns, in the jobs' order
    from igpart.mapping import _input_communities, _run_splits, best_split

    h = random_circuit(800, seed=3)
    group = np.random.default_rng(0).integers(0, 4, size=h.n)
    communities = _input_communities(h, 4, "cpu", {"threads": 2}, 0)
    jobs = []
    for g, verts, sub in subhypergraphs(h, group, 4):
        labels = None if g % 2 else np.unique(communities[verts], return_inverse=True)[1]
        jobs.append((verts, (sub, 3, 0.05, "cpu", [g], {"preset": "speed"}, 1, g, "multilevel",
                             labels)))  # fmt: skip
    pooled = _run_splits(jobs, {"threads": 2})
    for (_, args), (parts, used) in zip(jobs, pooled):
        sub, k, eps, be, seeds, cfg, *rest = args
        alone, _ = best_split(sub, k, eps, be, seeds, {**cfg, "threads": 1}, *rest)
        assert used == "cpu" and (parts == alone).all()
        assert igpart.is_balanced(sub, parts, k, eps)


def test_given_communities_equal_detected_ones():
    # the multisection's splits get their share of the input's communities: handing the
    # partitioner the communities it would detect itself changes nothing
    from igpart.mapping import _input_communities
    from igpart.partitioner.config import Config
    from igpart.partitioner.driver import run_partition

    h = random_circuit(2000, seed=4)
    communities = _input_communities(h, 8, "cpu", {"threads": 2}, 1)
    assert communities is not None and communities.shape == (h.n,)
    want = igpart.partition(h, 8, 0.03, "km1", "cpu", 1, {"threads": 2})
    got = run_partition(h, 8, 0.03, "km1", "cpu", 1, Config.of({"threads": 2}),
                        communities=communities)  # fmt: skip
    assert (got.parts == want.parts).all() and got.km1 == want.km1


@pytest.mark.usefixtures("fresh_pool")
@pytest.mark.parametrize("algorithm, here_max", [("hm", 1), ("hm-ultra", 1), ("hm-ultra", 4)])
def test_splits_in_worker_processes_equal_one_by_one(monkeypatch, algorithm, here_max):
    # with worker processes every split and seed is a task of the pool; the mapping equals the
    # one of every split and seed one after the other on one thread, and hm-ultra's splits (four
    # seeds each, at every level) never run in this process
    import igpart.mapping as mapping

    h = random_circuit(1500, seed=9)
    hierarchy, distance = (2, 2, 3), (1, 10, 100)
    alone = igpart.map(h, hierarchy, distance, algorithm=algorithm, backend="cpu", threads=1)
    monkeypatch.setattr(mapping, "SPLIT_PROCESSES_MIN_THREADS", 2)
    assert mapping.split_processes(2, h.n) == 0  # a small input: no processes
    monkeypatch.setattr(mapping, "SPLIT_PROCESSES_MIN_VERTICES", 1000)
    monkeypatch.setattr(mapping, "SPLIT_HERE_MAX_TASKS", here_max)
    assert mapping.split_processes(2, h.n) == 2 and mapping.split_processes(1, h.n) == 0
    here, there = [], []
    real, real_worker = mapping.split_candidate, mapping._split_in_worker

    def counted(*args, **kwargs):
        here.append(args[0].n)
        return real(*args, **kwargs)

    def counted_worker(*args, **kwargs):
        done = real_worker(*args, **kwargs)
        there.append(done is not None)
        return done

    monkeypatch.setattr(mapping, "split_candidate", counted)
    monkeypatch.setattr(mapping, "_split_in_worker", counted_worker)
    pooled = igpart.map(h, hierarchy, distance, algorithm=algorithm, backend="cpu", threads=2)
    assert (pooled.parts == alone.parts).all() and pooled.cost == alone.cost
    assert pooled.balanced and pooled.splits == alone.splits == 1 + 3 + 6
    # the first split is FIRST_SPLIT_SEEDS tasks (seeds), here on all the threads when here_max
    # allows, else in the workers; the later ones: hm one task each, hm-ultra 2
    first = mapping.FIRST_SPLIT_SEEDS[algorithm]
    later = 9 if algorithm == "hm" else 2 * 9
    assert here == ([h.n] * first if first <= here_max else [])
    assert all(there) and len(there) == (0 if first <= here_max else first) + later


def test_device_and_host_splits_of_one_level_equal_one_by_one(monkeypatch):
    # on a device backend the small splits run on the C++ backend side by side while the large
    # ones run on this thread; a Backend object stands in for the device here (it is the C++
    # backend, so the mapping must equal the C++ backend's, split after split)
    import igpart.mapping as mapping
    from igpart.kernels import get_backend

    h = random_circuit(1200, seed=2)
    hierarchy, distance = (2, 2, 3), (1, 10, 100)  # 1 split of 1200 vertices, 3 of ~400, 6 of ~200
    alone = igpart.map(h, hierarchy, distance, algorithm="hm-ultra", backend="cpu", threads=1)
    real = mapping._host_backend
    device = []

    def host(backend):
        if isinstance(backend, str):
            return real(backend)
        device.append(backend)
        return False

    monkeypatch.setattr(mapping, "_host_backend", host)
    for largest_on_host, on_device in ((0, 10), (500, 1)):
        device.clear()
        monkeypatch.setattr(mapping, "HOST_SPLIT_MAX_VERTICES", largest_on_host)
        m = igpart.map(h, hierarchy, distance, algorithm="hm-ultra", backend=get_backend("cpu"),
                       threads=2)  # fmt: skip
        assert (m.parts == alone.parts).all() and m.balanced
        assert len(device) == 1 + on_device  # the multisection's check, then one per split


def test_dense_labels_renumber_by_value():
    """The splits' community labels are renumbered 0, 1, ... in order of value, as
    ``np.unique(..., return_inverse=True)`` numbers them."""
    from igpart.partitioner.initial.recursive import dense_labels

    rng = np.random.default_rng(5)
    for n, hi in ((0, 1), (1, 1), (50, 7), (10_000, 10**6)):
        x = rng.integers(0, hi, n)
        got = dense_labels(x)
        assert got.dtype == np.int32
        assert np.array_equal(got, np.unique(x, return_inverse=True)[1].reshape(-1))
