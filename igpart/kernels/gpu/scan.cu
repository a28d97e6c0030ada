// Inclusive prefix sums by one block (``_common.cumsum``): the levels' arrays are mostly small,
// where CuPy's device-wide scan costs more host time (a type conversion, two CUB launches and
// their set-up) than the scan itself. Tiles of blockDim.x * SCAN_ITEMS values: every thread
// sums its SCAN_ITEMS consecutive values, the warps and then the block scan those sums, and a
// running carry joins the tiles. In place (out == in) is allowed: a tile is read before it is
// written.
#include "igpart_gpu.cuh"

#define SCAN_ITEMS 8

namespace {

template <typename I, typename O>
__device__ void block_inclusive_scan(long long n, const I *in, O *out) {
    __shared__ O warp_sum[32];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x >> 5;
    O carry = 0;
    for (long long base = 0; base < n; base += (long long)blockDim.x * SCAN_ITEMS) {
        const long long i0 = base + (long long)tid * SCAN_ITEMS;
        O v[SCAN_ITEMS];
        O s = 0;
#pragma unroll
        for (int j = 0; j < SCAN_ITEMS; ++j) {
            s += i0 + j < n ? (O)in[i0 + j] : (O)0;
            v[j] = s;
        }
        O ws = s;  // inclusive scan of the threads' sums inside the warp
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const O y = __shfl_up_sync(IGP_FULL_MASK, ws, o);
            if (lane >= o) ws += y;
        }
        if (lane == 31) warp_sum[warp] = ws;
        __syncthreads();
        if (warp == 0) {
            O t = lane < nwarps ? warp_sum[lane] : (O)0;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const O y = __shfl_up_sync(IGP_FULL_MASK, t, o);
                if (lane >= o) t += y;
            }
            if (lane < nwarps) warp_sum[lane] = t;
        }
        __syncthreads();
        const O before = carry + (warp ? warp_sum[warp - 1] : (O)0) + ws - s;
#pragma unroll
        for (int j = 0; j < SCAN_ITEMS; ++j)
            if (i0 + j < n) out[i0 + j] = before + v[j];
        carry += warp_sum[nwarps - 1];
        __syncthreads();  // every thread has read warp_sum before the next tile writes it
    }
}

}  // namespace

#define IGP_SCAN(name, I, O) \
    extern "C" __global__ void name(long long n, const I *in, O *out) { block_inclusive_scan<I, O>(n, in, out); }

IGP_SCAN(scan_u8_i32, unsigned char, int)
IGP_SCAN(scan_u8_i64, unsigned char, long long)
IGP_SCAN(scan_i8_i32, signed char, int)
IGP_SCAN(scan_i8_i64, signed char, long long)
IGP_SCAN(scan_i32_i32, int, int)
IGP_SCAN(scan_i32_i64, int, long long)
IGP_SCAN(scan_i64_i64, long long, long long)
