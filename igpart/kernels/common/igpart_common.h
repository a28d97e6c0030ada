// Shared definitions for per-element logic compiled by both g++ (C++ backend) and NVRTC (GPU
// backend). Functions marked IGP_HD are __host__ __device__ under CUDA and plain inline under g++,
// so the two backends cannot drift apart.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define IGP_HD __host__ __device__ __forceinline__
#else
#define IGP_HD inline
#endif

#if defined(__CUDACC_RTC__)
typedef long long igp_i64;
typedef int igp_i32;
#else
#include <cstdint>
typedef int64_t igp_i64;
typedef int32_t igp_i32;
#endif

namespace igp {

// Weight a net of `size` pins contributes to each pair of its pins in the clique expansion.
IGP_HD double clique_pair_weight(igp_i64 net_weight, igp_i64 size) {
    return size > 1 ? (double)net_weight / (double)(size - 1) : 0.0;
}

}  // namespace igp
