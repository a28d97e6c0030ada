"""The per-bucket and bookkeeping helpers of the dynamic hypergraph (kernels/common/bucket.h,
connectivity.h, changes.h) compile under NVRTC and agree on the device with the host."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from igpart.metrics import max_block_weight

pytestmark = pytest.mark.gpu

COMMON = Path(__file__).resolve().parents[1] / "igpart" / "kernels" / "common"

PROBE = r"""
#include "bucket.h"
#include "changes.h"
#include "connectivity.h"

extern "C" __global__ void probe(const int *buckets, const int *values, int nbuckets,
                                 int *warp_found, int *scalar_found, int *warp_count,
                                 const long long *block_weight, int k, long long *misc) {
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (warp < nbuckets) {  // whole warps take this branch together
        const int *b = buckets + warp * IGP_BUCKET_SLOTS;
        const int w = igp::warp_bucket_find(b, IGP_BUCKET_SLOTS, values[warp], lane);
        const int c = igp::warp_bucket_count(b, IGP_BUCKET_SLOTS, lane);
        if (lane == 0) {
            warp_found[warp] = w;
            warp_count[warp] = c;
            scalar_found[warp] = igp::bucket_find(b, IGP_BUCKET_SLOTS, values[warp]);
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        misc[0] = igp::lightest_block(block_weight, k);
        misc[1] = igp::max_block_weight(1000001, 7, 0.03);
        misc[2] = igp::km1_term(3, 5) + 100 * igp::cut_term(1, 5);
        misc[3] = igp::change_arg_kind(igp::OP_DELETE_PIN, 1);
        misc[4] = igp::change_ref_record(igp::change_ref(41));
    }
}
"""


def test_shared_bucket_helpers_on_the_device():
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(0)
    nb = 64
    buckets = rng.integers(-1, 6, size=(nb, 32)).astype(np.int32)  # many empty slots (-1)
    values = rng.integers(-1, 8, size=nb).astype(np.int32)
    bw = np.array([9, 4, 7, 4, 12], dtype=np.int64)
    mod = cupy.RawModule(code=PROBE, options=(f"-I{COMMON}", "--std=c++17"))
    kernel = mod.get_function("probe")
    d_b, d_v = cupy.asarray(buckets), cupy.asarray(values)
    found = cupy.full(nb, -7, dtype=cupy.int32)
    scalar = cupy.full(nb, -7, dtype=cupy.int32)
    count = cupy.full(nb, -7, dtype=cupy.int32)
    misc = cupy.zeros(5, dtype=cupy.int64)
    kernel((nb // 4,), (128,), (d_b, d_v, np.int32(nb), found, scalar, count, cupy.asarray(bw),
                                np.int32(bw.size), misc))  # fmt: skip
    want = np.array([np.flatnonzero(b == v)[0] if (b == v).any() else -1
                     for b, v in zip(buckets, values)])  # fmt: skip
    np.testing.assert_array_equal(found.get(), want)
    np.testing.assert_array_equal(scalar.get(), want)
    np.testing.assert_array_equal(count.get(), (buckets != -1).sum(axis=1))
    m = misc.get()
    assert m[0] == 1  # lightest, lowest id among equals
    assert m[1] == max_block_weight(1000001, 7, 0.03)
    assert m[2] == 10 + 0
    assert m[3] == 2 and m[4] == 41
