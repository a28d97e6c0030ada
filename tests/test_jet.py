"""Jet refinement (``Backend.jet_refine_hypergraph``): equal to a plain-Python oracle on tiny
inputs, never worse, never unbalanced, gains equal a from-scratch recomputation; the GPU result
equals the C++ result (marker ``gpu``), and the multilevel partitioner with Jet is valid."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
from igpart.kernels import get_backend

from .jet_oracle import jet_oracle
from .test_multilevel import check_partition
from .test_stages import bounds_for, host, hypergraphs, objective
from .util import random_hypergraph

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CPU = get_backend("cpu")


@pytest.fixture(scope="module", params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def be(request):
    return get_backend(request.param)


@st.composite
def jet_cases(draw):
    h = draw(hypergraphs(max_n=40))
    k = min(draw(st.sampled_from([2, 3, 8])), h.n)
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    parts = rng.integers(0, k, h.n).astype(np.int32)
    eps = draw(st.sampled_from([0.03, 0.2, 1.0]))
    options = {
        "max_iterations": draw(st.sampled_from([1, 2, 64])),
        "negative_gain_factor": draw(st.sampled_from([0.0, 0.25, 0.75, 2.0])),
        "afterburner_max_net_size": draw(st.sampled_from([3, 256])),
        "patience": draw(st.sampled_from([1, 12])),
        "seed": draw(st.integers(0, 9)),
    }
    return (
        h,
        k,
        parts,
        bounds_for(h.total_weight, k, eps),
        draw(st.sampled_from(["cut", "km1"])),
        options,
    )


@FAST
@given(jet_cases())
def test_jet_equals_the_oracle(be, case):
    h, k, parts, bounds, obj, options = case
    out, gain = be.jet_refine_hypergraph(be.hypergraph_arrays(h), parts, k, bounds, obj, **options)
    ref, ref_gain = jet_oracle(h, parts, k, bounds, obj, **options)
    np.testing.assert_array_equal(host(be, out), ref)
    assert gain == ref_gain


@FAST
@given(jet_cases())
def test_jet_never_worse_never_unbalanced(be, case):
    h, k, parts, bounds, obj, options = case
    out, gain = be.jet_refine_hypergraph(be.hypergraph_arrays(h), parts, k, bounds, obj, **options)
    out = host(be, out)
    assert out.dtype == np.int32 and out.shape == (h.n,) and np.all((out >= 0) & (out < k))
    before = objective(h, parts, k, obj)
    assert gain == before - objective(h, out, k, obj) >= 0
    w0 = np.bincount(parts, weights=h.vwgt, minlength=k)
    w1 = np.bincount(out, weights=h.vwgt, minlength=k)
    # balanced blocks stay balanced; overloaded blocks never get heavier
    assert np.all(w1 <= np.maximum(bounds, w0))


def test_jet_improves_a_random_partition(be):
    rng = np.random.default_rng(3)
    h = random_hypergraph(rng, 400, 600, max_size=5)
    k = 4
    parts = (np.arange(h.n) % k).astype(np.int32)
    bounds = bounds_for(h.total_weight, k, 0.03)
    for obj in ("cut", "km1"):
        out, gain = be.jet_refine_hypergraph(be.hypergraph_arrays(h), parts, k, bounds, obj)
        assert gain > 0.2 * objective(h, parts, k, obj)
        assert np.all(np.bincount(host(be, out), weights=h.vwgt, minlength=k) <= bounds)


def test_jet_bad_input_raises(be):
    h = random_hypergraph(np.random.default_rng(0), 20, 30)
    ha = be.hypergraph_arrays(h)
    parts = np.zeros(h.n, dtype=np.int32)
    bounds = bounds_for(h.total_weight, 2)
    with pytest.raises(ValueError):
        be.jet_refine_hypergraph(ha, parts[:-1], 2, bounds, "cut")
    bad = parts.copy()
    bad[3] = 2
    with pytest.raises(ValueError):
        be.jet_refine_hypergraph(ha, bad, 2, bounds, "cut")
    with pytest.raises(ValueError):
        be.jet_refine_hypergraph(ha, parts, 2, bounds[:1], "cut")
    with pytest.raises(ValueError):
        be.jet_refine_hypergraph(ha, parts, 2, bounds, "soed")
    with pytest.raises(ValueError):
        be.jet_refine_hypergraph(ha, parts, 2, bounds, "cut", patience=0)
    for kwargs in ({"max_iterations": -1}, {"afterburner_max_net_size": -1},
                   {"negative_gain_factor": float("inf")},
                   {"negative_gain_factor": float("nan")}):  # fmt: skip
        with pytest.raises(ValueError):
            be.jet_refine_hypergraph(ha, parts, 2, bounds, "cut", **kwargs)


def test_cpu_jet_bad_arguments_name_the_problem():
    """The C++ backend's checks, with the messages the other stage operations give (the GPU
    backend's are in gpu/_backend.py, exercised by test_jet_bad_input_raises)."""
    h = random_hypergraph(np.random.default_rng(0), 20, 30)
    ha = CPU.hypergraph_arrays(h)
    parts = (np.arange(h.n) % 2).astype(np.int32)
    bounds = bounds_for(h.total_weight, 2)
    cases = [
        ((ha, parts[:-1], 2, bounds, "cut"), {}, "parts must be 1-D of length 20"),
        ((ha, np.r_[parts, 0], 2, bounds, "cut"), {}, "parts must be 1-D of length 20"),
        ((ha, np.r_[parts[:-1], -1], 2, bounds, "cut"), {}, "block id out of range at vertex 19"),
        ((ha, np.r_[parts[:-1], 2], 2, bounds, "cut"), {}, "block id out of range at vertex 19"),
        ((ha, parts * 0, 0, bounds[:0], "cut"), {}, "k must be at least 1"),
        ((ha, parts, -3, bounds, "cut"), {}, "k must be at least 1"),
        ((ha, parts, 2, bounds[:1], "cut"), {}, "max_block_weights must be 1-D of length 2"),
        ((ha, parts, 2, bounds.reshape(1, 2), "cut"), {}, "max_block_weights must be 1-D"),
        ((ha, parts, 2, bounds, "soed"), {}, "unknown objective 'soed'"),
        ((ha, parts, 2, bounds, "cut"), {"max_iterations": -1}, "max_iterations must be >= 0"),
        ((ha, parts, 2, bounds, "cut"), {"patience": 0}, "patience must be positive"),
        ((ha, parts, 2, bounds, "cut"), {"min_improvement": 1.0}, "min_improvement"),
        ((ha, parts, 2, bounds, "cut"), {"balance_rounds": -1}, "balance_rounds must be >= 0"),
        ((ha, parts, 2, bounds, "cut"), {"afterburner_max_net_size": -1}, "afterburner"),
    ]
    for c in (-0.5, float("nan"), float("inf")):
        message = "negative_gain_factor must be a finite non-negative number"
        cases.append(((ha, parts, 2, bounds, "cut"), {"negative_gain_factor": c}, message))
    for args, kwargs, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            CPU.jet_refine_hypergraph(*args, **kwargs)


def test_jet_on_an_unbalanced_input_never_makes_it_worse(be):
    """Jet accepts an overloaded partition (rebalancing is rebalance_hypergraph's job): the
    overloaded block never gets heavier, balanced blocks stay balanced, the objective never
    rises; max_iterations = 0 returns the input."""
    h = random_hypergraph(np.random.default_rng(4), 200, 300, max_size=5)
    k = 4
    parts = np.zeros(h.n, dtype=np.int32)
    parts[: h.n // 8] = (np.arange(h.n // 8) % 3 + 1).astype(np.int32)
    bounds = bounds_for(h.total_weight, k, 0.03)
    w0 = np.bincount(parts, weights=h.vwgt, minlength=k)
    assert w0[0] > bounds[0]
    ha = be.hypergraph_arrays(h)
    for obj in ("cut", "km1"):
        out, gain = be.jet_refine_hypergraph(ha, parts, k, bounds, obj)
        out = host(be, out)
        w1 = np.bincount(out, weights=h.vwgt, minlength=k)
        assert np.all(w1 <= np.maximum(bounds, w0))
        assert gain == objective(h, parts, k, obj) - objective(h, out, k, obj) >= 0
        same, zero = be.jet_refine_hypergraph(ha, parts, k, bounds, obj, max_iterations=0)
        np.testing.assert_array_equal(host(be, same), parts)
        assert zero == 0


@pytest.mark.parametrize("refinement", ["jet", "jet+fm"])
@pytest.mark.parametrize("obj", ["cut", "km1"])
def test_multilevel_with_jet_is_valid(be, refinement, obj):
    h = random_hypergraph(np.random.default_rng(5), 600, 900, max_size=5)
    p = igpart.partition(h, 4, 0.03, obj, backend=be, config={"refinement": refinement})
    check_partition(h, p, 4, 0.03)


# ------------------------------------------------------------------------------ GPU == C++
def _kernels_only(boundary: bool = False):
    """A GPU backend that runs Jet's kernels on every level (the default one hands levels of
    at most ``JET_HOST_MAX_PINS`` pins to the C++ Jet at k >= ``JET_HOST_MIN_K``, which these
    tests compare against);
    ``boundary``: step 1 on the listed boundary vertices only (``GpuBackend(jet_boundary=)``)."""
    from igpart.kernels.gpu import GpuBackend

    return GpuBackend(jet_host_max_pins=0, jet_boundary=boundary)


def _assert_gpu_equals_cpu(gpu, level, parts, k, bounds, obj, **options):
    """``gpu.jet_refine_hypergraph`` on ``level`` (a host Hypergraph or C++ level) returns the
    C++ Jet's partition and gain (the gain is returned)."""
    h = igpart.Hypergraph(level.eptr, level.eind, level.n, level.vwgt, level.ewgt)
    ref, ref_gain = CPU.jet_refine_hypergraph(
        CPU.hypergraph_arrays(h), parts, k, bounds, obj, **options
    )
    out, gain = gpu.jet_refine_hypergraph(gpu.hypergraph_arrays(h), parts, k, bounds, obj,
                                          **options)
    np.testing.assert_array_equal(host(gpu, out), ref)
    assert gain == ref_gain
    return out, gain


@pytest.mark.gpu
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.sampled_from([2, 3, 8, 64]), st.sampled_from(["cut", "km1"]),
       st.booleans())
def test_gpu_jet_equals_the_cpu(seed, k, obj, boundary):
    gpu = _kernels_only(boundary)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(200, 2000))
    h = random_hypergraph(rng, n, int(1.5 * n), max_size=int(rng.integers(3, 40)), weighted=True)
    parts = rng.integers(0, k, n).astype(np.int32)
    bounds = bounds_for(h.total_weight, k, 0.5)
    options = {
        "negative_gain_factor": float(rng.choice([0.25, 0.75])),
        "seed": seed % 7,
        "afterburner_max_net_size": int(rng.choice([8, 256])),
    }
    _assert_gpu_equals_cpu(gpu, h, parts, k, bounds, obj, **options)


def _with_long_nets(rng, n: int, sizes: list[int]):
    """A random hypergraph of ``n`` vertices plus nets of the given (long) sizes."""
    h = random_hypergraph(rng, n, 2 * n, max_size=10, weighted=True)
    nets = [h.net(e) for e in range(h.m)] + [rng.choice(n, s, replace=False) for s in sizes]
    ew = np.concatenate([h.ewgt, rng.integers(1, 5, len(sizes))])
    return igpart.Hypergraph.from_nets(nets, n=n, vwgt=h.vwgt, ewgt=ew)


@pytest.mark.gpu
@pytest.mark.parametrize("long_pins", [1024, 5])
@pytest.mark.parametrize("boundary", [False, True])
def test_gpu_long_nets_equal_the_cpu(monkeypatch, long_pins, boundary):
    """Nets of more than ``LONG_NET_PINS`` pins get a block each in the pin-count kernels: the
    pin counts (blocks in first-seen order), the connectivity, the objective and Jet's result
    equal the thread-per-net path's and the C++ backend's; with ``LONG_NET_PINS`` 5 most nets
    take the block path. Above ``LONG_NET_MAX_K`` every net gets a thread."""
    import cupy as cp

    from igpart.kernels.gpu import _hypergraph
    from igpart.metrics import evaluate

    monkeypatch.setattr(_hypergraph, "LONG_NET_PINS", long_pins)
    gpu = _kernels_only(boundary)
    rng = np.random.default_rng(long_pins + boundary)
    n = 4000
    h = _with_long_nets(rng, n, [1025, 2000, 3999, 4000])
    for k, obj in ((2, "cut"), (5, "km1"), (64, "cut"), (300, "km1")):
        parts = rng.integers(0, k, n).astype(np.int32)
        level = gpu.hypergraph_arrays(h)
        phi = _hypergraph.PinCounts(level).build(cp.asarray(parts), k)
        lam, blk, cnt = (host(gpu, a) for a in (phi.lam, phi.blk, phi.cnt))
        for e in range(h.m):  # oracle: the distinct blocks in first-seen order, their counts
            b = parts[h.net(e)]
            order = b[np.sort(np.unique(b, return_index=True)[1])]
            s = h.eptr[e]
            assert lam[e] == order.size
            np.testing.assert_array_equal(blk[s:s + lam[e]], order)
            np.testing.assert_array_equal(cnt[s:s + lam[e]], [(b == x).sum() for x in order])
        assert gpu.hypergraph_objective(level, cp.asarray(parts), k, obj) == evaluate(
            h, parts, k)[obj]
        np.testing.assert_array_equal(
            host(gpu, gpu.net_connectivity(level.eptr, level.eind, cp.asarray(parts), k)), lam)
        bounds = bounds_for(h.total_weight, k, 0.1)
        _assert_gpu_equals_cpu(gpu, h, parts, k, bounds, obj, seed=3,
                               afterburner_max_net_size=int(rng.choice([8, 256, 5000])))
    monkeypatch.setattr(_hypergraph, "LONG_NET_MAX_K", 4)
    parts = rng.integers(0, 5, n).astype(np.int32)
    _assert_gpu_equals_cpu(gpu, h, parts, 5, bounds_for(h.total_weight, 5, 0.1), "km1", seed=1)


@pytest.mark.gpu
@pytest.mark.parametrize("heavy_nets", [2, 40])
@pytest.mark.parametrize("boundary", [False, True])
def test_gpu_jet_heavy_vertices_equal_the_cpu(monkeypatch, heavy_nets, boundary):
    """Vertices on at least ``HEAVY_NETS`` nets take step 1 and the afterburner by a block
    each: the same partition as the C++ Jet (2: nearly every vertex; 40: the hubs of a graph's
    edge nets and of a hypergraph with vertices on many nets), fixed vertices included, at k up
    to 300 (the table in global memory)."""
    from igpart.kernels.gpu import _jet

    monkeypatch.setattr(_jet, "HEAVY_NETS", heavy_nets)
    gpu = _kernels_only(boundary)
    rng = np.random.default_rng(heavy_nets + boundary)
    n = 3000
    hubs = [rng.choice(np.arange(20, n), int(rng.integers(50, 600)), replace=False)
            for _ in range(20)]
    base = random_hypergraph(rng, n, 2 * n, max_size=8, weighted=True)
    nets = [base.net(e) for e in range(base.m)]
    nets += [np.array([h, v]) for h, others in enumerate(hubs) for v in others]
    ew = np.concatenate([base.ewgt, rng.integers(1, 4, len(nets) - base.m)])
    h = igpart.Hypergraph.from_nets(nets, n=n, vwgt=base.vwgt, ewgt=ew)
    for k, obj in ((2, "cut"), (8, "km1"), (64, "cut"), (300, "km1")):
        parts = rng.integers(0, k, n).astype(np.int32)
        bounds = bounds_for(h.total_weight, k, 0.1)
        _assert_gpu_equals_cpu(gpu, h, parts, k, bounds, obj, seed=int(rng.integers(0, 9)),
                               afterburner_max_net_size=int(rng.choice([8, 256])))


@pytest.mark.gpu
@pytest.mark.parametrize("boundary", [False, True])
@pytest.mark.parametrize("pack_bits, gain_bits, small, block_sort",
                         [(64, 32, 0, 0), (64, 32, 16384, 0), (0, 32, 16384, 2**17),
                          (0, -1, 0, 2**17)])
def test_gpu_jet_launcher_paths_equal_the_cpu(monkeypatch, pack_bits, gain_bits, small,
                                              block_sort, boundary):
    """The launcher's paths that small inputs do not take by default give the C++ partition:
    the other priority-key layouts (tier 2: gain and hash, one stable argsort; tier 3: two
    stable argsorts), forced by lowering the bit budgets, the balance step on the whole
    grid (small = 0) instead of one block, and CuPy's sorts and scans instead of the
    one-block ones (block_sort = 0)."""
    from igpart.kernels.gpu import _common, _jet

    monkeypatch.setattr(_jet, "PACK_BITS", pack_bits)
    monkeypatch.setattr(_jet, "GAIN_BITS", gain_bits)
    monkeypatch.setattr(_jet, "SMALL_BALANCE", small)
    monkeypatch.setattr(_common, "BLOCK_SORT_BYTES", block_sort)
    monkeypatch.setattr(_common, "SCAN_ONE_BLOCK_MAX", 1 << 17 if block_sort else 0)
    gpu = _kernels_only(boundary)
    rng = np.random.default_rng(pack_bits + gain_bits + 7)
    for k, obj, rounds in ((2, "cut", 3), (3, "km1", 0), (16, "cut", 1), (64, "km1", 3)):
        n = int(rng.integers(300, 1500))
        h = random_hypergraph(rng, n, 2 * n, max_size=12, weighted=True)
        parts = rng.integers(0, k, n).astype(np.int32)
        bounds = bounds_for(h.total_weight, k, 0.1)
        options = {"seed": int(rng.integers(0, 9)), "balance_rounds": rounds}
        _assert_gpu_equals_cpu(gpu, h, parts, k, bounds, obj, **options)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint64", "uint32"])
def test_gpu_sort_keys_equals_numpy(dtype):
    """``_common.sort_keys``: the one-block bitonic sort (arrays whose padding fits the shared
    memory) and CuPy's sort beyond give numpy's order, for lengths around the powers of two,
    duplicates and the largest key (the padding value) included."""
    import cupy as cp

    from igpart.kernels.gpu import _common

    rng = np.random.default_rng(5)
    top = np.iinfo(dtype).max
    limit = _common.BLOCK_SORT_BYTES // np.dtype(dtype).itemsize
    for n in (0, 1, 2, 3, 31, 1000, 1024, 1025, limit - 1, limit, limit + 1, 3 * limit):
        for high in (top, 50):
            a = rng.integers(0, high, n, dtype=dtype, endpoint=True)
            if n > 2:
                a[: n // 3] = top
                rng.shuffle(a)
            d = cp.asarray(a)
            _common.sort_keys(d)
            np.testing.assert_array_equal(d.get(), np.sort(a))


@pytest.mark.gpu
@pytest.mark.parametrize("src, dst", [("int8", "int32"), ("int8", "int64"), ("uint8", "int32"),
                                      ("bool", "int32"), ("bool", "int64"), ("int32", "int32"),
                                      ("int32", "int64"), ("int64", "int64"), ("int32", None),
                                      ("int16", "int32")])
def test_gpu_cumsum_equals_cupy(src, dst):
    """``_common.cumsum``: the one-block scan (around its tile size, 1024 threads x 8 values,
    and its size limit) and CuPy's scan beyond it or for other types give ``cp.cumsum``'s
    values and type, into a new array, into ``out`` and in place."""
    import cupy as cp

    from igpart.kernels.gpu import _common

    rng = np.random.default_rng(3)
    limit = _common.SCAN_ONE_BLOCK_MAX
    for n in (0, 1, 7, 8, 9, 8191, 8192, 8193, 3 * 8192 + 5, limit - 1, limit, limit + 1):
        if src == "bool":
            a = rng.random(n) < 0.3
        else:
            info = np.iinfo(src)
            a = rng.integers(max(info.min, -100), min(info.max, 100), n).astype(src)
        d = cp.asarray(a)
        want = cp.cumsum(d, dtype=dst)
        got = _common.cumsum(d, dtype=dst)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want.get())
        out = cp.full(n, 77, dtype=want.dtype)
        assert _common.cumsum(d, out=out) is out
        np.testing.assert_array_equal(out.get(), want.get())
        if d.dtype == want.dtype and n <= limit:  # in place: the one-block scan only
            assert _common.cumsum(d, out=d) is d
            np.testing.assert_array_equal(d.get(), want.get())


@pytest.mark.gpu
@pytest.mark.parametrize("boundary", [False, True])
@pytest.mark.parametrize("k", [2, 16])
@pytest.mark.parametrize("obj", ["cut", "km1"])
def test_gpu_jet_equals_the_cpu_on_ibm01_levels(ispd98, k, obj, boundary):
    """On ibm01 and one coarse level of it, from a good partition with 5% of the vertices moved
    at random (so that there is work to do), the GPU returns the C++ partition (``boundary``:
    most vertices are interior, so the boundary list is far shorter than the level)."""
    gpu = _kernels_only(boundary)
    h = igpart.read_hgr(ispd98 / "ibm01.hgr")
    rng = np.random.default_rng(k)
    base = igpart.partition(h, k, 0.03, obj, backend="cpu", seed=1, config={"vcycles": 0}).parts
    bounds = bounds_for(h.total_weight, k, 0.03)
    top = CPU.hypergraph_arrays(h)
    cmap, nc = CPU.cluster_hypergraph(top, h.total_weight // (4 * k), seed=1)
    coarse = CPU.contract_hypergraph(top, cmap, nc)
    for level, parts in ((top, base), (coarse, base[np.unique(cmap, return_index=True)[1]])):
        parts = parts.copy()
        pick = rng.random(level.n) < 0.05
        parts[pick] = rng.integers(0, k, int(pick.sum()))
        parts = CPU.rebalance_hypergraph(level, parts, k, bounds, obj)
        _, gain = _assert_gpu_equals_cpu(gpu, level, parts, k, bounds, obj)
        assert gain > 0


@pytest.mark.gpu
@pytest.mark.parametrize("cap", [0, 10**9])
def test_gpu_jet_hands_small_levels_to_the_host_with_the_same_result(cap):
    """``jet_host_max_pins``: levels of at most that many pins are refined by the C++ Jet on a
    host copy (cap 10**9) when k >= ``jet_host_min_k``, others by the kernels (cap 0, or k
    below the minimum); all return the C++ partition and gain, as a device int32 array."""
    import cupy as cp

    from igpart.kernels.gpu import GpuBackend

    rng = np.random.default_rng(cap % 97)
    h = random_hypergraph(rng, 1500, 2200, max_size=8, weighted=True)
    parts = rng.integers(0, 4, h.n).astype(np.int32)
    bounds = bounds_for(h.total_weight, 4, 0.1)
    for min_k in (4, 5):
        gpu = GpuBackend(jet_host_max_pins=cap, jet_host_min_k=min_k)
        calls = []

        def counted(*a, _jet=gpu.cpu.jet_refine_hypergraph, _calls=calls, **kw):
            _calls.append(1)
            return _jet(*a, **kw)

        gpu.cpu.jet_refine_hypergraph = counted
        out, gain = _assert_gpu_equals_cpu(gpu, h, parts, 4, bounds, "km1")
        assert isinstance(out, cp.ndarray) and out.dtype == cp.int32 and gain > 0
        assert len(calls) == (1 if cap and min_k <= 4 else 0)


@pytest.mark.gpu
@pytest.mark.parametrize("kernels", [False, True])
@pytest.mark.parametrize("k", [2, 16])
def test_gpu_multilevel_with_jet_is_close_to_the_cpu(ispd98, k, kernels):
    """``kernels``: Jet's kernels on every level, else the C++ Jet on every level (ibm01 has
    ~50k pins, below ``GpuBackend.JET_HOST_MAX_PINS``; ``jet_host_min_k=1`` lifts the k limit)."""
    from igpart.kernels.gpu import GpuBackend

    h = igpart.read_hgr(ispd98 / "ibm01.hgr")
    cfg = {"refinement": "jet"}
    be = _kernels_only() if kernels else GpuBackend(jet_host_min_k=1)
    g = igpart.partition(h, k, 0.03, "cut", backend=be, seed=1, config=cfg)
    c = igpart.partition(h, k, 0.03, "cut", backend="cpu", seed=1, config=cfg)
    check_partition(h, g, k, 0.03)
    assert g.cut <= 1.1 * c.cut + 10


def test_cpu_jet_does_not_depend_on_the_thread_count():
    from igpart.generators import random_circuit
    from igpart.kernels import _cpu

    h = random_circuit(70_000, seed=3)
    ha = CPU.hypergraph_arrays(h)
    k = 8
    bounds = bounds_for(h.total_weight, k)
    parts = (np.arange(h.n) * k // h.n).astype(np.int32)
    before = _cpu.get_num_threads()
    results = {}
    try:
        for threads in (1, 3):
            _cpu.set_num_threads(threads)
            for obj in ("cut", "km1"):
                results[threads, obj] = CPU.jet_refine_hypergraph(
                    ha, parts, k, bounds, obj, max_iterations=8, seed=2
                )
    finally:
        _cpu.set_num_threads(before)
    for obj in ("cut", "km1"):
        (out1, gain1), (out3, gain3) = results[1, obj], results[3, obj]
        assert gain1 == gain3 > 0
        np.testing.assert_array_equal(out1, out3)
