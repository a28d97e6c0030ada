"""Pathological inputs finish in time proportional to their size: the property behind each bound
(levels that keep shrinking, bounded refinement work, clear limits), checked at small sizes.
``benchmarks/pathological.py`` times the same inputs at large sizes against Mt-KaHyPar."""

from __future__ import annotations

import concurrent.futures._base as futures_base

import numpy as np
import pytest

import igpart
import igpart.partitioner.initial.coarsest as ml
from igpart import Hypergraph
from igpart.generators import random_circuit
from igpart.kernels import get_backend
from igpart.metrics import evaluate
from igpart.partitioner.config import Config
from igpart.partitioner.context import coarsest_vertices
from igpart.partitioner.driver import bisect
from igpart.partitioner.initial import recursive as rb
from igpart.partitioner.preprocessing import share_unconnected_community


def one_net(n: int) -> Hypergraph:
    return Hypergraph(np.array([0, n], dtype=np.int64), np.arange(n, dtype=np.int32), n)


BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def host(a) -> np.ndarray:
    return np.asarray(a.get() if hasattr(a, "get") else a)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [2, 8])
def test_one_net_coarsens_down_to_the_contraction_limit(monkeypatch, k, backend):
    """One net over every vertex: the rating ignores it (too large), so no vertex has a rated
    neighbour; the levels must still shrink to about the contraction limit instead of handing
    all 20,000 vertices to the initial partitioning."""
    h = one_net(20_000)
    sizes = []
    real = ml.initial_partition

    def spy(level, kk, *args, **kwargs):
        sizes.append(level.n)
        return real(level, kk, *args, **kwargs)

    monkeypatch.setattr(ml, "initial_partition", spy)
    p = igpart.partition(h, k, backend=backend, seed=1)
    limit = coarsest_vertices(Config(), k)
    # the first call is the top-level coarsest level; the others are levels inside the
    # bisections of the recursive-bisection initial partitioning (k = 8)
    assert sizes[0] <= 4 * limit
    assert max(sizes) <= 4 * limit
    m = evaluate(h, p.parts, k, 0.03)
    assert m["balanced"] and m["cut"] == p.cut == 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("with_communities", [False, True])
def test_unrated_vertices_are_paired_within_their_community(with_communities, backend):
    """Vertices whose only nets exceed the rating's size limit (or who have no nets) are paired
    in clustering, never across communities, never above the cluster weight bound."""
    rng = np.random.default_rng(3)
    n = 5_000
    big = rng.permutation(n)[:3_000]  # one 3,000-pin net; 2,000 vertices without nets
    h = Hypergraph(np.array([0, big.size]), big, n, vwgt=rng.integers(1, 4, n))
    be = get_backend(backend)
    ha = be.hypergraph_arrays(h)
    comm = rng.integers(0, 3, n).astype(np.int32) if with_communities else None
    cmap, nc = be.cluster_hypergraph(ha, 6, max_net_size=1000, communities=comm,
                                     max_shrink=2.5, seed=1)
    cmap = host(cmap)
    assert nc <= 0.55 * n  # old: nc == n (nothing clustered)
    sizes = np.bincount(cmap, minlength=nc)
    assert sizes.max() <= 2
    weights = np.bincount(cmap, weights=h.vwgt, minlength=nc)
    assert weights.max() <= 6
    if comm is not None:
        first = np.full(nc, -1)
        first[cmap] = comm
        assert np.array_equal(first[cmap], comm)  # every cluster within one community


@pytest.mark.parametrize("backend", BACKENDS)
def test_rated_vertices_are_not_paired_blindly(backend):
    """Rated neighbours only in other communities count as none: with two-pin nets 0-1 and
    2-3 and communities 0, 1, 0, 1 the pairs are {0, 2} and {1, 3}; without communities the
    rating pairs each net's pins."""
    n = 4
    h = Hypergraph.from_nets([[0, 1], [2, 3]], n=n)
    be = get_backend(backend)
    comm = np.array([0, 1, 0, 1], dtype=np.int32)
    cmap, nc = be.cluster_hypergraph(be.hypergraph_arrays(h), 10, communities=comm, seed=0)
    cmap = host(cmap)
    assert nc == 2 and cmap[0] == cmap[2] and cmap[1] == cmap[3]
    # without the restriction the rating pairs the nets' pins
    cmap, nc = be.cluster_hypergraph(be.hypergraph_arrays(h), 10, seed=0)
    cmap = host(cmap)
    assert nc == 2 and cmap[0] == cmap[1] and cmap[2] == cmap[3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_share_unconnected_community_matches_an_oracle(backend):
    """On the backend's own arrays (CuPy on the GPU), labels with gaps."""
    rng = np.random.default_rng(5)
    n = 300
    nets = [rng.choice(n, size=s, replace=False) for s in rng.integers(1, 80, size=60)]
    h = Hypergraph.from_nets(nets, n=n)
    be = get_backend(backend)
    ha = be.hypergraph_arrays(h)
    comm = (rng.permutation(n) % 40 * 3).astype(np.int32)
    out = host(share_unconnected_community(be.xp, ha, be.asarray(comm, "int32"), 50))
    connected = np.zeros(n, dtype=bool)
    for e in range(h.m):
        pins = h.net(e)
        if 2 <= pins.size <= 50:
            connected[pins] = True
    assert (~connected).any() and connected.any()
    # same partition of the connected vertices, the others all in one community of their own
    assert out.dtype == np.int32
    assert len(set(out[~connected].tolist())) == 1
    assert not np.isin(out[connected], out[~connected]).any()
    pairs = {(int(a), int(b)) for a, b in zip(comm[connected], out[connected])}
    assert len(pairs) == len({a for a, _ in pairs}) == len({b for _, b in pairs})
    assert sorted(set(out.tolist())) == list(range(out.max() + 1))  # dense ids
    # the ids of a sort: the shared community first, the others in the order of their labels
    oracle = np.unique(np.where(connected, comm, -1), return_inverse=True)[1].reshape(-1)
    assert np.array_equal(out, oracle)
    # the mask of those vertices given (the C++ backend computes it), the same result
    if hasattr(be, "vertices_without_nets"):
        alone = be.vertices_without_nets(ha, 2, 50)
        assert alone.dtype == np.uint8 and np.array_equal(host(alone).astype(bool), ~connected)
    else:
        alone = be.asarray((~connected).astype(np.uint8), "uint8")
    again = share_unconnected_community(be.xp, ha, be.asarray(comm, "int32"), 50, alone)
    assert np.array_equal(host(again), out)


def dense_level(n: int = 200, m: int = 10_000, seed: int = 2) -> Hypergraph:
    """Random two-pin nets, ~100 per vertex: what the coarse levels of an input without locality
    look like (most pairs of a few hundred vertices joined)."""
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, m)
    v = (u + rng.integers(1, n, m)) % n
    return Hypergraph(np.arange(0, 2 * m + 1, 2), np.stack([u, v], 1).ravel(), n)


def test_fm_work_bound_caps_the_moves_of_a_round():
    """Every move of the k-way FM first re-evaluates the popped vertex (its degree + 1 pins), so
    a round whose work is bounded by ``max_work * (pins + n)`` makes at most
    ``budget // (min degree + 1) + 1`` moves; unbounded it makes many more on this level."""
    h = dense_level()
    be = get_backend("cpu")
    ha = be.hypergraph_arrays(h)
    k, rounds = 4, 4
    parts = (np.random.default_rng(0).permutation(h.n) % k).astype(np.int32)
    bounds = np.full(k, igpart.metrics.max_block_weight(h.n, k, 0.03), dtype=np.int64)

    def fm(max_work):
        out, gain = be.fm_refine_hypergraph(ha, parts, k, bounds, "cut", max_rounds=rounds,
                                            min_improvement=0.0, seed=1, max_work=max_work)
        out = np.asarray(out)
        # the returned gain is the recomputed improvement; the result stays balanced
        assert evaluate(h, parts, k)["cut"] - evaluate(h, out, k)["cut"] == gain
        assert np.bincount(out, minlength=k).max() <= bounds[0]
        return out, gain

    free, free_gain = fm(0.0)
    degree = np.diff(np.asarray(ha.vptr))
    max_work = 0.05
    budget = int(max_work * (h.num_pins + h.n))
    per_round = budget // (int(degree.min()) + 1) + 1
    assert int((free != parts).sum()) > rounds * per_round  # the bound matters here
    bounded, gain = fm(max_work)
    assert int((bounded != parts).sum()) <= rounds * per_round
    assert 0 <= gain <= free_gain
    none, gain = fm(1e-12)  # a budget of 0: no move at all
    assert gain == 0 and np.array_equal(none, parts)


def test_config_fm_max_work_reaches_the_fm(monkeypatch):
    be = get_backend("cpu")
    seen = []
    real = type(be).fm_refine_hypergraph

    def spy(self, *args, **kwargs):
        seen.append(kwargs["max_work"])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(be), "fm_refine_hypergraph", spy)
    igpart.partition(dense_level(), 4, backend="cpu", seed=1, config={"fm_max_work": 7.5})
    assert seen and set(seen) == {7.5}
    assert Config().fm_max_work > 0
    with pytest.raises(igpart.InputError, match="fm_max_work"):
        igpart.partition(dense_level(), 4, backend="cpu", config={"fm_max_work": -1})


class _CountingFuture(futures_base.Future):
    """A Future that counts the reads of its state (what waiting on it costs)."""

    reads = 0

    @property
    def _state(self):
        _CountingFuture.reads += 1
        return self.__dict__["_counted_state"]

    @_state.setter
    def _state(self, value):
        self.__dict__["_counted_state"] = value


def test_recursive_bisection_waits_in_time_linear_in_k(monkeypatch):
    """k = n: k - 1 bisections on two threads. Waiting for the next finished one must not scan
    every pending one (up to k / 2 of them: quadratic in k, 46 state reads per bisection at
    k = 600 where a completion queue needs 6)."""
    monkeypatch.setattr(futures_base, "Future", _CountingFuture)
    _CountingFuture.reads = 0
    h = random_circuit(600, seed=1)
    parts = rb.recursive_bisection(h, h.n, 0.03, threads=2, runs=1, bisect=bisect)
    assert np.array_equal(np.sort(parts), np.arange(h.n))  # one vertex per block
    assert 0 < _CountingFuture.reads <= 12 * h.n
    monkeypatch.undo()
    one = rb.recursive_bisection(h, h.n, 0.03, threads=1, runs=1, bisect=bisect)
    assert np.array_equal(one, parts)


def test_cached_properties_of_different_hypergraphs_do_not_wait_for_each_other():
    """The bisections of recursive bisection run on threads and each asks its sub-hypergraph
    for ``vptr``: computing one instance's cached property must not block another's (the
    lock of ``functools.cached_property`` before Python 3.12 is one for all instances)."""
    import threading

    from igpart import hypergraph as hg

    assert isinstance(Hypergraph.__dict__["_vertex_incidence"], hg.cached_property)
    release = threading.Event()
    started = threading.Event()

    class Lazy:
        def __init__(self, block: bool):
            self.block = block

        @hg.cached_property
        def value(self):
            if self.block:
                started.set()
                release.wait(10)
            return 42

    slow = threading.Thread(target=lambda: Lazy(True).value)
    slow.start()
    assert started.wait(10)
    other = threading.Thread(target=lambda: Lazy(False).value)
    other.start()
    other.join(5)
    finished = not other.is_alive()
    release.set()
    slow.join()
    other.join()
    assert finished
    x = Lazy(False)
    assert x.value == 42 and x.__dict__["value"] == 42  # cached on the instance
