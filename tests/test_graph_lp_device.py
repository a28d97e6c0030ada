"""The device label propagation (igpart.kernels.gpu._graph_lp): its array code run with numpy
(the reference backend) and, with the ``gpu`` marker, with CuPy on the GPU backend, where it
must give the numpy results exactly."""

from __future__ import annotations

import numpy as np
import pytest

import igpart
from igpart import Graph, generators
from igpart.kernels import get_backend
from igpart.kernels.gpu import _graph_lp
from igpart.metrics import max_block_weight

from .test_graph_lp import (  # noqa: F401  (the stage property tests, run on REF here)
    balanced_start,
    edge_cut,
    test_cluster_graph_lp_respects_weights_and_target,
    test_graph_refiners_gain_is_exact_and_balance_kept,
)
from .test_stages import host

REF = _graph_lp.reference_backend()


@pytest.fixture(scope="module", params=["numpy", pytest.param("gpu", marks=pytest.mark.gpu)])
def be(request):
    return REF if request.param == "numpy" else get_backend("gpu")


def check_clustering(g, cmap, nc, mcw, min_clusters):
    assert cmap.shape == (g.n,) and cmap.dtype == np.int32
    assert set(np.unique(cmap).tolist()) == set(range(nc))
    sizes = np.bincount(cmap, minlength=nc)
    weights = np.bincount(cmap, weights=g.vwgt, minlength=nc)
    assert np.all((weights <= mcw) | (sizes == 1))
    assert nc >= min(min_clusters, g.n)


# ------------------------------------------------------------------------------ clustering
@pytest.fixture(scope="module")
def backend():
    """The numpy reference for the stage property tests of test_graph_lp (the GPU backend runs
    them there)."""
    return REF


@pytest.mark.parametrize("min_clusters", [0, 500, 2000, 3500])
def test_clustering_stops_at_min_clusters_and_shrinks_a_mesh(be, min_clusters):
    g = generators.delaunay_graph(4000, seed=3)
    cmap, nc = be.cluster_graph_lp(be.graph_arrays(g), 10, iterations=5,
                                   min_clusters=min_clusters, seed=1, sub_rounds=4)
    check_clustering(g, host(be, cmap), nc, 10, min_clusters)
    assert nc <= max(min_clusters + 50, g.n // 3)  # clusters of ~3+ vertices down to the stop


def test_clustering_of_a_grid_is_as_strong_as_the_cpp_one():
    cpu = get_backend("cpu")
    g = generators.grid_graph(80, 80)
    ga = cpu.graph_arrays(g)
    cmap, nc = REF.cluster_graph_lp(ga, 8, iterations=5, seed=1)
    ccmap, cnc = cpu.cluster_graph_lp(ga, 8, iterations=5, seed=1)
    inner = int(cpu.contract_graph(ga, cmap, nc).adjwgt.sum())
    cinner = int(cpu.contract_graph(ga, ccmap, cnc).adjwgt.sum())
    assert nc <= 1.1 * cnc and inner <= 1.1 * cinner  # edge weight left between clusters


def test_two_hop_groups_the_leaves_of_a_star(be):
    g = igpart.Graph.from_edges(np.zeros(40, dtype=np.int64), np.arange(1, 41), n=41)
    cmap, nc = be.cluster_graph_lp(be.graph_arrays(g), 4, iterations=5, seed=0)
    check_clustering(g, host(be, cmap), nc, 4, 0)
    assert nc <= 41 // 2 + 1


def test_lexsort_by_stable_sorts_equals_lexsort():
    rng = np.random.default_rng(3)
    for n in (0, 1, 7, 500):
        keys = [rng.integers(-3, 4, n).astype(np.int64) for _ in range(3)]
        got = _graph_lp.lexsort_by_stable_sorts(np, keys,
                                                lambda a: np.argsort(a, kind="stable"))
        assert np.array_equal(got, np.lexsort(np.stack(keys)))


def test_bad_arguments_are_rejected(be):
    ga = be.graph_arrays(generators.grid_graph(4, 4))
    for kw in ({"sub_rounds": 0}, {"iterations": -1}):
        with pytest.raises(ValueError, match="sub_rounds|iterations"):
            be.cluster_graph_lp(ga, 4, **kw)
        with pytest.raises(ValueError, match="sub_rounds|iterations"):
            be.lp_refine_graph(ga, be.asarray(np.zeros(16, np.int32)), 2,
                               be.asarray(np.full(2, 9)), **kw)


# ------------------------------------------------------------------------------ refinement
@pytest.mark.parametrize("k", [2, 8])
def test_refinement_improves_a_random_partition_of_a_mesh(be, k):
    g = generators.delaunay_graph(3000, seed=5)
    parts, bounds = balanced_start(g, k, 1)
    ga = be.graph_arrays(g)
    out, gain = be.lp_refine_graph(ga, be.asarray(parts, "int32"), k,
                                   be.asarray(bounds, "int64"), iterations=10, seed=0)
    out = host(be, out)
    assert gain > edge_cut(g, parts) // 4  # a random start leaves most edges to gain
    assert edge_cut(g, parts) - edge_cut(g, out) == gain == (
        edge_cut(g, parts) - be.graph_edge_cut(ga, be.asarray(out, "int32")))
    assert np.bincount(out, weights=g.vwgt, minlength=k).max() <= bounds[0]


@pytest.mark.parametrize("backend_name", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_jet_on_the_edge_nets_reports_the_exact_cut_change(backend_name):
    be = get_backend(backend_name)
    g = generators.delaunay_graph(2000, seed=7)
    ga = be.graph_arrays(g)
    nets = be.graph_edge_nets(ga)
    assert nets.m == g.num_edges and int(nets.ewgt.sum()) == int(g.adjwgt.sum()) // 2
    eind, vind = host(be, nets.eind), host(be, nets.vind)
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    pins = np.sort(np.stack([eind[2 * vind], eind[2 * vind + 1]], axis=1), axis=1)
    assert np.array_equal(pins, np.sort(np.stack([src, g.adjncy], axis=1), axis=1))
    parts, bounds = balanced_start(g, 4, 2)
    dparts = be.asarray(parts, "int32")
    assert be.hypergraph_objective(nets, dparts, 4, "cut") == edge_cut(g, parts)
    out, gain = be.jet_refine_graph(ga, dparts, 4, be.asarray(bounds, "int64"))
    out = host(be, out)
    assert gain > 0 and edge_cut(g, parts) - edge_cut(g, out) == gain
    assert np.bincount(out, weights=g.vwgt, minlength=4).max() <= bounds[0]


# ------------------------------------------------------------------------------ end to end
@pytest.mark.parametrize("make", [lambda: generators.grid_graph(48, 48),
                                  lambda: generators.grid_graph(12, 12, 12),
                                  lambda: generators.delaunay_graph(3000, seed=2)],
                         ids=["grid2d", "grid3d", "delaunay"])
@pytest.mark.parametrize("refinement", ["lp", "lp+fm", "lp+jet"])
def test_whole_partition_is_valid_and_balanced(be, make, refinement):
    g = make()
    for k in (2, 13) if refinement == "lp" else (5,):
        p = igpart.partition(g, k, 0.03, backend=be, seed=1,
                             config={"graph_coarsening": "lp", "graph_refinement": refinement,
                                     "graph_host_levels_below": 0})
        parts = np.asarray(p.parts)
        assert parts.shape == (g.n,) and parts.min() >= 0 and parts.max() < k
        assert np.bincount(parts, weights=g.vwgt, minlength=k).max() <= max_block_weight(
            g.total_weight, k, 0.03)
        assert p.cut == edge_cut(g, parts)


# ------------------------------------------------------------------------------ device = host
@pytest.mark.gpu
def test_device_results_equal_the_numpy_reference():
    gpu = get_backend("gpu")
    g = generators.delaunay_graph(20000, seed=4)
    ga, gh = gpu.graph_arrays(g), REF.graph_arrays(g)
    for sub_rounds in (1, 8):
        for mcw, min_clusters in ((6, 0), (40, 3000)):
            cmap, nc = gpu.cluster_graph_lp(ga, mcw, min_clusters=min_clusters, seed=2,
                                            sub_rounds=sub_rounds)
            rmap, rnc = REF.cluster_graph_lp(gh, mcw, min_clusters=min_clusters, seed=2,
                                             sub_rounds=sub_rounds)
            assert nc == rnc and np.array_equal(host(gpu, cmap), rmap)
        parts, bounds = balanced_start(g, 8, 0)
        out, gain = gpu.lp_refine_graph(ga, gpu.asarray(parts, "int32"), 8,
                                        gpu.asarray(bounds, "int64"), seed=3,
                                        sub_rounds=sub_rounds)
        rout, rgain = REF.lp_refine_graph(gh, parts, 8, bounds, seed=3, sub_rounds=sub_rounds)
        assert gain == rgain and np.array_equal(host(gpu, out), rout)


# ------------------------------------------------------------------------------ array steps
def _admit_swaps_by_rounds(frm, target, gain, tie, w, bw, bounds, k):
    """The credit rule of ``_admit_swaps`` as rounds that stop at the first fixed point."""
    order = np.lexsort(np.stack([tie, -gain, target.astype(np.int64)]))
    t, f, ws = target[order], frm[order], w[order]
    keep = np.ones(t.shape[0], dtype=bool)

    def prefix(mask):
        out = np.zeros(t.shape[0], dtype=np.int64)
        for b in np.unique(t):  # per target block, in the admission order
            idx = np.flatnonzero(t == b)
            out[idx] = np.cumsum(np.where(mask[idx], ws[idx], 0))
        return out

    for _ in range(_graph_lp.CREDIT_ROUNDS):
        out = np.bincount(f[keep], weights=ws[keep], minlength=k).astype(np.int64)
        new = keep & (bw[t] - out[t] + prefix(keep) <= bounds[t])
        if np.array_equal(new, keep):
            return order[new]
        keep = new
    return order[keep & (bw[t] + prefix(keep) <= bounds[t])]


def test_admit_swaps_equals_the_rounds_that_stop_at_a_fixed_point():
    rng = np.random.default_rng(11)
    for case in range(300):
        k, m = int(rng.integers(2, 6)), int(rng.integers(1, 40))
        frm = rng.integers(0, k, m).astype(np.int32)
        target = ((frm + rng.integers(1, k, m)) % k).astype(np.int32)
        gain = rng.integers(-2, 4, m).astype(np.int64)
        tie = rng.permutation(m).astype(np.int64)
        w = rng.integers(1, 5, m).astype(np.int64)
        bw = rng.integers(5, 30, k).astype(np.int64)
        bounds = bw + rng.integers(-3, 8, k)
        got = _graph_lp._admit_swaps(_graph_lp.NUMPY_OPS, frm, target, gain, tie, w, bw,
                                     bounds, k)
        want = _admit_swaps_by_rounds(frm, target, gain, tie, w, bw, bounds, k)
        assert np.array_equal(np.sort(got), np.sort(want)), case


def test_near_marks_exactly_the_neighbours_of_the_mask():
    rng = np.random.default_rng(5)
    g = generators.delaunay_graph(500, seed=1)
    ga = REF.graph_arrays(g)
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    for frac in (0.0, 0.01, 0.3):
        mask = rng.random(g.n) < frac
        want = np.zeros(g.n, dtype=bool)
        want[src[mask[g.adjncy]]] = True
        assert np.array_equal(_graph_lp._near(np, ga, mask), want)


def _expand_by_rows(xadj, rows):
    r = np.repeat(np.arange(rows.shape[0]), xadj[rows + 1] - xadj[rows])
    pos = np.concatenate([np.arange(xadj[v], xadj[v + 1]) for v in rows] + [np.zeros(0, int)])
    return r, pos


@pytest.mark.parametrize("ops", ["numpy", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_expand_and_tie_hash_equal_the_numpy_definitions(ops):
    """The row expansion and the tie hash of the array operations (``util.expand_rows`` and
    ``util.tie_hash_i64`` on the device) against their definitions on the host: rows of
    degree 0, above a warp, repeated and unsorted; hashes of negative and large values."""
    if ops == "numpy":
        o, be = _graph_lp.NUMPY_OPS, REF
    else:
        from igpart.kernels.gpu._backend import _OPS as o
        be = get_backend("gpu")
    deg = np.array([0, 3, 70, 1, 0, 33, 2], dtype=np.int64)
    xadj = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    for rows in ([], [0], [2, 5, 1], [4, 2, 2, 6, 0], list(range(7))):
        rows = np.asarray(rows, dtype=np.int64)
        r, pos = o.expand(be.asarray(xadj, "int64"), be.asarray(rows, "int64"))
        want_r, want_pos = _expand_by_rows(xadj, rows)
        assert np.array_equal(host(be, r), want_r) and np.array_equal(host(be, pos), want_pos)
    rng = np.random.default_rng(2)
    a = np.concatenate([rng.integers(-(1 << 62), 1 << 62, 200), [-2, -1, 0, 1]]).astype(np.int64)
    b = np.concatenate([rng.integers(-(1 << 62), 1 << 62, 200), [-2, -2, 0, 7]]).astype(np.int64)
    for seed in (0, 3, (1 << 64) - 1):
        got = host(be, o.tie_hash(seed, be.asarray(a, "int64"), be.asarray(b, "int64")))
        want = _graph_lp.tie_hash(np, seed, a, b)
        assert np.array_equal(got, want) and want.min() >= 0 and want.max() < (1 << 31)


def _choose_by_rows(g, rows, label, weight, bound, seed, balance):
    """``_graph_lp._choose`` row by row from its definition."""
    out = []
    for u in rows:
        nb = g.adjncy[g.xadj[u]:g.xadj[u + 1]]
        conn = {}
        for v, w in zip(nb, g.adjwgt[g.xadj[u]:g.xadj[u + 1]]):
            conn[int(label[v])] = conn.get(int(label[v]), 0) + int(w)
        own = conn.get(int(label[u]), 0)
        cands = [(-s, int(weight[lab]) if balance else 0,
                  int(_graph_lp.tie_hash(np, seed, np.array([u]), np.array([lab]))[0]), lab)
                 for lab, s in conn.items()
                 if lab != label[u] and weight[lab] + g.vwgt[u] <= bound[lab]]
        best = min(cands) if cands else (0, 0, 0, -1)
        out.append((best[3], -best[0], own))
    return out


def _choice_inputs(g, nlabels, seed):
    rng = np.random.default_rng(seed)
    label = rng.integers(0, nlabels, g.n).astype(np.int32)
    weight = np.bincount(label, weights=g.vwgt, minlength=nlabels).astype(np.int64)
    bound = weight + rng.integers(-2, 4, nlabels)
    return label, weight, bound


CHOICE_GRAPHS = {
    "delaunay": lambda: generators.delaunay_graph(300, seed=2),
    # a star of 150 leaves: a row above LP_CHOOSE_MAX_DEGREE beside rows of degree 1
    "star": lambda: igpart.Graph.from_edges(np.zeros(150, dtype=np.int64), np.arange(1, 151),
                                            n=151),
}


@pytest.mark.parametrize("name", list(CHOICE_GRAPHS))
def test_choose_equals_its_definition_row_by_row(name):
    g = CHOICE_GRAPHS[name]()
    ga = REF.graph_arrays(g)
    for nlabels, balance in ((4, True), (40, False), (g.n, False)):
        label, weight, bound = _choice_inputs(g, nlabels, nlabels)
        rows = np.arange(0, g.n, 3, dtype=np.int64)
        lab, s, own = _graph_lp.NUMPY_OPS.choose(ga, rows, label, weight, bound, 5, balance)
        want = _choose_by_rows(g, rows, label, weight, bound, 5, balance)
        assert [(int(a), int(b) if a >= 0 else 0, int(c)) for a, b, c in zip(lab, s, own)] == want


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(CHOICE_GRAPHS))
def test_device_choose_equals_the_numpy_one(name):
    """``util.lp_choose`` (and the sorted path of the rows above its degree limit)."""
    from igpart.kernels.gpu._backend import _OPS

    gpu = get_backend("gpu")
    g = CHOICE_GRAPHS[name]()
    ga, gh = gpu.graph_arrays(g), REF.graph_arrays(g)
    for nlabels, balance in ((4, True), (40, False), (g.n, True)):
        label, weight, bound = _choice_inputs(g, nlabels, nlabels)
        rows = np.arange(g.n, dtype=np.int64)[::-2].copy()
        want = _graph_lp.NUMPY_OPS.choose(gh, rows, label, weight, bound, 7, balance)
        got = _OPS.choose(ga, gpu.asarray(rows, "int64"), gpu.asarray(label, "int32"),
                          gpu.asarray(weight, "int64"), gpu.asarray(bound, "int64"), 7, balance)
        for a, b in zip(got, want):
            assert np.array_equal(host(gpu, a), b)


@pytest.mark.gpu
def test_device_move_gains_equal_the_numpy_ones():
    """``util.lp_afterburner_gains`` and ``util.lp_cut_change`` against the numpy steps."""
    from igpart.kernels.gpu._backend import _OPS

    gpu = get_backend("gpu")
    g = generators.delaunay_graph(2000, seed=9)
    ga, gh = gpu.graph_arrays(g), REF.graph_arrays(g)
    rng = np.random.default_rng(4)
    np_ops = _graph_lp.NUMPY_OPS
    for k in (2, 7):
        parts = rng.integers(0, k, g.n).astype(np.int32)
        u = np.sort(rng.choice(g.n, 400, replace=False)).astype(np.int64)
        to = ((parts[u] + rng.integers(1, k, u.shape[0])) % k).astype(np.int32)
        dest = parts.copy()
        dest[u] = to
        prio = np.full(g.n, -1, dtype=np.int64)
        prio[u] = rng.permutation(u.shape[0])
        moving = np.zeros(g.n, dtype=bool)
        moving[u] = True
        d = [gpu.asarray(a, t) for a, t in ((parts, "int32"), (dest, "int32"), (prio, "int64"),
                                            (u, "int64"), (to, "int32"))]
        want = np_ops.afterburner_gains(gh, parts, dest, prio, u, to)
        assert np.array_equal(host(gpu, _OPS.afterburner_gains(ga, *d)), want)
        want = int(np_ops.cut_change(gh, parts, dest, moving, u, to))
        got = _OPS.cut_change(ga, d[0], d[1], gpu.asarray(moving, "bool"), d[3], d[4])
        assert int(got) == want
        assert want // 2 == edge_cut(g, parts) - edge_cut(g, dest)


@pytest.mark.parametrize("backend_name", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("rows", ["sorted", "shuffled"])
def test_edge_nets_equal_the_sorted_edge_list(backend_name, rows):
    """One net per edge in order of (smaller, larger) endpoint, whether the rows come sorted by
    neighbour (the levels' contraction) or not (a file's order); every entry's slot holds its
    edge's net."""
    be = get_backend(backend_name)
    g0 = generators.delaunay_graph(3000, seed=5)
    rng = np.random.default_rng(1)
    xadj, adj = np.asarray(g0.xadj), np.asarray(g0.adjncy).copy()
    src = np.repeat(np.arange(g0.n), np.diff(xadj))
    w = (np.minimum(src, adj) * 7 + np.maximum(src, adj) * 13) % 11 + 1
    if rows == "shuffled":
        perm = np.lexsort((rng.random(adj.size), src))  # rows kept, entries shuffled in them
        adj, w = adj[perm], w[perm]
    g = Graph(xadj, adj, g0.n, adjwgt=w)
    ga = be.graph_arrays(g)
    nets = be.graph_edge_nets(ga)
    eind = host(be, nets.eind).reshape(-1, 2)
    lo, hi = np.minimum(src, adj), np.maximum(src, adj)
    fwd = src < adj
    order = np.lexsort((hi[fwd], lo[fwd]))
    assert np.array_equal(eind, np.stack([lo[fwd], hi[fwd]], axis=1)[order])
    assert np.array_equal(host(be, nets.ewgt), w[fwd][order])
    vind = host(be, nets.vind)
    assert np.array_equal(np.sort(eind[vind], axis=1), np.stack([lo, hi], axis=1))
