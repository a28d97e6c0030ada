// Bucket lists of the dynamic hypergraph (iG-kway §V.A, generalised to hypergraphs): every list
// (the nets of a vertex, the pins of a net, the sparse per-net block pin counts) is a chain of
// fixed-width buckets in a pool; an empty slot holds EMPTY_SLOT. These helpers are the per-bucket
// logic both backends share: the C++ backend calls the scalar versions, the GPU backend the
// warp-cooperative ones (one bucket per warp step, __ballot_sync + __ffs as in the paper's Alg. 1).
#pragma once
#include "igpart_common.h"

namespace igp {

// Slots per incidence bucket: one per lane of a GPU warp.
#define IGP_BUCKET_SLOTS 32
// Entries per bucket of a sparse block pin count list (block id + count per entry).
#define IGP_PHI_SLOTS 8
// Value of an empty slot.
#define IGP_EMPTY_SLOT (-1)

// First slot i < width of `bucket` holding `value` (IGP_EMPTY_SLOT finds a free slot), or -1.
IGP_HD int bucket_find(const igp_i32 *bucket, int width, igp_i32 value) {
    for (int i = 0; i < width; ++i)
        if (bucket[i] == value) return i;
    return -1;
}

// Number of occupied (non-empty) slots among the first `width` slots of `bucket`.
IGP_HD int bucket_count(const igp_i32 *bucket, int width) {
    int c = 0;
    for (int i = 0; i < width; ++i) c += bucket[i] != IGP_EMPTY_SLOT;
    return c;
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// Warp-cooperative bucket_find: all 32 lanes of a warp call it with their lane id and get the
// same answer. Lanes at or beyond `width` do not read.
__device__ __forceinline__ int warp_bucket_find(const igp_i32 *bucket, int width, igp_i32 value,
                                                int lane) {
    const unsigned hit = __ballot_sync(0xffffffffu, lane < width && bucket[lane] == value);
    return __ffs(hit) - 1;
}

// Warp-cooperative bucket_count.
__device__ __forceinline__ int warp_bucket_count(const igp_i32 *bucket, int width, int lane) {
    return __popc(__ballot_sync(0xffffffffu, lane < width && bucket[lane] != IGP_EMPTY_SLOT));
}
#endif

}  // namespace igp
