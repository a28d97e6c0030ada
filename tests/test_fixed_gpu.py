"""Fixed vertices on the GPU backend (marker ``gpu``): the kernels' ``locked`` masks give the C++
backend's results (sequence refinement, Jet on the device and on host copies), and the whole
partitioner keeps fixed vertices in their blocks. The backend-independent properties run on
both backends in test_fixed.py (the partitioner's too)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import igpart
import igpart.kernels

from .test_fixed import assert_fixed_kept, random_fixed
from .test_gpu_backend import CPU, SOME, host
from .test_stages import bounds_for, hypergraphs
from .util import random_hypergraph

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu():
    return igpart.kernels.get_backend("gpu")


@SOME
@given(hypergraphs(max_n=80), st.integers(2, 8), st.integers(0, 2**31 - 1),
       st.sampled_from(["cut", "km1"]), st.sampled_from([0.1, 0.5]))
def test_locked_sequence_refinement_matches_the_reference(gpu, h, k, seed, obj, fraction):
    k = min(k, h.n)
    rng = np.random.default_rng(seed)
    bounds = bounds_for(h.total_weight, k)
    locked = (rng.random(h.n) < fraction).astype(np.uint8)
    parts = CPU.rebalance_hypergraph(CPU.hypergraph_arrays(h),
                                     rng.integers(0, k, size=h.n).astype(np.int32), k, bounds, obj)
    want, wgain = CPU.refine_hypergraph(CPU.hypergraph_arrays(h), parts, k, bounds, obj,
                                        locked=locked)
    got, gain = gpu.refine_hypergraph(gpu.hypergraph_arrays(h), gpu.asarray(parts, "int32"), k,
                                      gpu.asarray(bounds), obj, locked=gpu.asarray(locked))
    np.testing.assert_array_equal(host(got), want)
    assert gain == wgain
    assert np.array_equal(host(got)[locked == 1], parts[locked == 1])


@pytest.mark.parametrize("boundary", [False, True])
@pytest.mark.parametrize("obj", ["cut", "km1"])
def test_locked_jet_kernels_match_the_reference(obj, boundary):
    """Jet on the device (``jet_host_max_pins=0``: no host hand-off) with a locked mask equals
    the C++ Jet with it (the same determinism contract as without one)."""
    from igpart.kernels.gpu import GpuBackend

    dev = GpuBackend(jet_host_max_pins=0, jet_boundary=boundary)
    rng = np.random.default_rng(3)
    h = random_hypergraph(rng, 1500, 2200, max_size=8, weighted=True)
    k = 4
    parts = rng.integers(0, k, h.n).astype(np.int32)
    bounds = bounds_for(h.total_weight, k, 0.1)
    locked = (rng.random(h.n) < 0.2).astype(np.uint8)
    want, wgain = CPU.jet_refine_hypergraph(CPU.hypergraph_arrays(h), parts, k, bounds, obj,
                                            seed=5, locked=locked)
    got, gain = dev.jet_refine_hypergraph(dev.hypergraph_arrays(h), dev.asarray(parts, "int32"),
                                          k, dev.asarray(bounds), obj, seed=5,
                                          locked=dev.asarray(locked))
    np.testing.assert_array_equal(host(got), want)
    assert gain == wgain
    assert np.array_equal(want[locked == 1], parts[locked == 1])


def test_locked_fm_and_rebalance_on_host_copies(gpu):
    rng = np.random.default_rng(4)
    h = random_hypergraph(rng, 800, 1200, max_size=6)
    k = 3
    parts = np.zeros(h.n, dtype=np.int32)
    locked = (rng.random(h.n) < 0.2).astype(np.uint8)
    bounds = bounds_for(h.total_weight, k)
    ga = gpu.hypergraph_arrays(h)
    out = gpu.rebalance_hypergraph(ga, gpu.asarray(parts, "int32"), k, gpu.asarray(bounds),
                                   "cut", locked=gpu.asarray(locked))
    want = CPU.rebalance_hypergraph(CPU.hypergraph_arrays(h), parts, k, bounds, "cut",
                                    locked=locked)
    np.testing.assert_array_equal(host(out), want)
    out2, _ = gpu.fm_refine_hypergraph(ga, out, k, gpu.asarray(bounds), "km1",
                                       locked=gpu.asarray(locked))
    assert np.all(host(out2)[locked == 1] == 0)


@pytest.mark.parametrize("k", [2, 8])
def test_gpu_partition_with_fixed_pads_on_ibm01(ispd98, k):
    h = igpart.read_hgr(ispd98 / "ibm01.hgr")
    fixed = random_fixed(h.n, k, 0.05, seed=1)
    p = igpart.partition(h, k, backend="gpu", seed=1, fixed=fixed)
    assert_fixed_kept(p.parts, fixed)
    assert p.balanced
    cpu = igpart.partition(h, k, backend="cpu", seed=1, fixed=fixed)
    assert p.cut <= 1.15 * cpu.cut


def test_gpu_improve_keeps_fixed_vertices():
    from igpart.generators import random_circuit

    h = random_circuit(3000, seed=9)
    start = igpart.partition(h, 4, backend="gpu", seed=1).parts
    fixed = random_fixed(h.n, 4, 0.1, seed=4)
    p = igpart.improve(h, start, 4, backend="gpu", fixed=fixed)
    assert_fixed_kept(p.parts, fixed)
    assert p.balanced
