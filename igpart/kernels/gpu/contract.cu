// Contraction kernels: pins mapped through cmap are sorted per net (util.cu), deduplicated and
// hashed here; identical nets are found by sorting the hashes and comparing with the first net
// of each equal-hash run; kept nets are copied compactly; the vertex -> net incidence is built
// by counting, scattering and sorting each vertex's list.
#include "igpart_gpu.cuh"

namespace {

__device__ __forceinline__ igp_u64 hash_mix(igp_u64 x, int p) {
    igp_u64 y = (igp_u64)(unsigned int)p + 0x632BE59BD9B4E019ULL;
    y ^= y >> 29;
    y *= 0xBF58476D1CE4E5B9ULL;
    y ^= y >> 32;
    return (x ^ y) * 0x94D049BB133111EBULL;
}

}  // namespace

// Per net (pins already sorted): removes repeated pins in place, len[e] = number of distinct
// pins (0 when fewer than 2: the net is dropped), hash[e] = hash of (len, pins).
extern "C" __global__ void net_dedup_hash(long long m, const long long *eptr, int *pins, long long *len,
                                          long long *hash) {
    for (long long e = igp_tid(); e < m; e += igp_nthreads()) {
        int *p = pins + eptr[e];
        const long long s = eptr[e + 1] - eptr[e];
        long long u = 0;
        for (long long i = 0; i < s; ++i)
            if (u == 0 || p[i] != p[u - 1]) p[u++] = p[i];
        if (u < 2) {
            len[e] = 0;
            hash[e] = 0;
            continue;
        }
        igp_u64 x = 0x9E3779B97F4A7C15ULL ^ (igp_u64)u;
        for (long long i = 0; i < u; ++i) x = hash_mix(x, p[i]);
        len[e] = u;
        hash[e] = (long long)((x ^ (x >> 31)) >> 1);  // non-negative, for a signed sort
    }
}

// For nets sorted by hash (ids[i], ascending ids inside equal hashes), run_first[i] = position of
// the first net of i's equal-hash run: rep[ids[i]] = that net when its pins are identical, else
// ids[i] itself.
extern "C" __global__ void identical_reps(long long cnt, const int *ids, const long long *run_first,
                                          const long long *eptr, const int *pins, const long long *len,
                                          int *rep) {
    for (long long i = igp_tid(); i < cnt; i += igp_nthreads()) {
        const int e = ids[i], f = ids[run_first[i]];
        int r = e;
        if (f != e && len[f] == len[e]) {
            const int *a = pins + eptr[e], *b = pins + eptr[f];
            bool same = true;
            for (long long j = 0; j < len[e] && same; ++j) same = a[j] == b[j];
            if (same) r = f;
        }
        rep[e] = r;
    }
}

// Copies the kept nets' pins: net e (newid[e] >= 0) goes to out[neptr[newid[e]] ..]. Warp per net.
extern "C" __global__ void copy_kept_pins(long long m, const long long *eptr, const int *pins,
                                          const int *newid, const long long *neptr, int *out) {
    const int lane = igp_lane();
    for (long long e = igp_warp(); e < m; e += igp_nwarps()) {
        const int c = newid[e];
        if (c < 0) continue;
        const long long src = eptr[e], dst = neptr[c], len = neptr[c + 1] - dst;
        for (long long j = lane; j < len; j += 32) out[dst + j] = pins[src + j];
    }
}

// Transpose, scatter step: every pin (e, v) appends e to v's list (cursor: vptr copy). Warp per net.
extern "C" __global__ void transpose_scatter(long long m, const long long *eptr, const int *eind,
                                             long long *cursor, int *vind) {
    const int lane = igp_lane();
    for (long long e = igp_warp(); e < m; e += igp_nwarps())
        for (long long j = eptr[e] + lane; j < eptr[e + 1]; j += 32) {
            const unsigned long long at = atomicAdd((unsigned long long *)(cursor + eind[j]), 1ULL);
            vind[at] = (int)e;
        }
}

// Vertex degrees of a pin list (deg must be zeroed).
extern "C" __global__ void count_pins(long long p, const int *eind, long long *deg) {
    for (long long j = igp_tid(); j < p; j += igp_nthreads())
        atomicAdd((unsigned long long *)(deg + eind[j]), 1ULL);
}
