// Device helpers shared by the GPU kernels (compiled by NVRTC through cupy.RawModule, with -I to
// kernels/common). Per-element formulas come from partition_common.h, shared with the C++ backend.
#pragma once
#include "partition_common.h"

#define IGP_FULL_MASK 0xffffffffu
#define IGP_INT_MAX 2147483647
// Threads per block of every launch (igpart/kernels/gpu/_common.py THREADS): kernels size their
// static per-warp shared scratch with it.
#define IGP_BLOCK_THREADS 256

typedef unsigned long long igp_u64;

// Grid-stride loops over threads and over warps.
__device__ __forceinline__ long long igp_tid() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long igp_nthreads() { return (long long)gridDim.x * blockDim.x; }
__device__ __forceinline__ int igp_lane() { return threadIdx.x & 31; }
__device__ __forceinline__ long long igp_warp() { return igp_tid() >> 5; }
__device__ __forceinline__ long long igp_nwarps() { return igp_nthreads() >> 5; }

__device__ __forceinline__ void igp_atomic_add(long long *p, long long v) {
    atomicAdd((unsigned long long *)p, (unsigned long long)v);
}

__device__ __forceinline__ long long igp_warp_sum(long long v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(IGP_FULL_MASK, v, o);
    return v;
}

// Seeded 31-bit hash of the pair (a, b): _graph_lp.tie_hash (the same values as numpy's
// wrapping uint64 arithmetic there).
__device__ __forceinline__ long long igp_tie_hash(long long a, long long b,
                                                  unsigned long long seed) {
    unsigned long long x = ((unsigned long long)a * 0x9E3779B97F4A7C15ULL) ^
                           (((unsigned long long)b + seed) * 0xBF58476D1CE4E5B9ULL);
    x ^= x >> 31;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 29;
    return (long long)(x >> 33);
}

// Arg-max over the warp of (gain, block): higher gain first, then the smaller block id; entries
// with block < 0 lose. Every lane ends with the winner.
__device__ __forceinline__ void igp_warp_best_move(long long &gain, int &block) {
    for (int o = 16; o > 0; o >>= 1) {
        const long long g2 = __shfl_xor_sync(IGP_FULL_MASK, gain, o);
        const int b2 = __shfl_xor_sync(IGP_FULL_MASK, block, o);
        const bool take = b2 >= 0 && (block < 0 || g2 > gain || (g2 == gain && b2 < block));
        if (take) {
            gain = g2;
            block = b2;
        }
    }
}

// Sparse pin counts of the net whose pins are eind[s, t): its distinct blocks in pblk[s, s + L)
// (first-seen order) and their pin counts in pcnt[s, s + L); returns L (the connectivity).
__device__ __forceinline__ int igp_build_phi_net(long long s, long long t, const int *eind,
                                                 const int *parts, int *pblk, int *pcnt) {
    int L = 0;
    for (long long j = s; j < t; ++j) {
        const int b = parts[eind[j]];
        int i = 0;
        while (i < L && pblk[s + i] != b) ++i;
        if (i == L) {
            pblk[s + L] = b;
            pcnt[s + L] = 1;
            ++L;
        } else {
            ++pcnt[s + i];
        }
    }
    return L;
}

// Contribution of a net of weight w and connectivity L to the objective (cut or km1).
__device__ __forceinline__ long long igp_net_objective(int objective, long long w, long long L) {
    return objective == igp::OBJ_CUT ? w * (L > 1) : w * (L > 1 ? L - 1 : 0);
}

// Insertion sort of a short range (segment sorts of small nets and vertex net lists).
__device__ __forceinline__ void igp_insertion_sort(int *a, long long len) {
    for (long long i = 1; i < len; ++i) {
        const int x = a[i];
        long long j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = x;
    }
}
