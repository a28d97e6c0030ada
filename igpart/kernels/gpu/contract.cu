// Contraction kernels (``_hypergraph.contract``), no host synchronisation before the sizes of the
// result: pins mapped through cmap are sorted per net (one thread per net of at most `small`
// pins, one block per longer net), deduplicated and hashed; identical nets are found through an
// open-addressing hash table (per distinct hash, the smallest net id); kept nets are numbered by
// block-chunked prefix sums and copied compactly; the vertex -> net incidence is built by
// counting, scattering and sorting each vertex's list.
#include "igpart_gpu.cuh"

namespace {

__device__ __forceinline__ igp_u64 hash_mix(igp_u64 x, int p) {
    igp_u64 y = (igp_u64)(unsigned int)p + 0x632BE59BD9B4E019ULL;
    y ^= y >> 29;
    y *= 0xBF58476D1CE4E5B9ULL;
    y ^= y >> 32;
    return (x ^ y) * 0x94D049BB133111EBULL;
}

// Sorted pins p[0, s): removes repeats in place; *len = number of distinct pins (0 when fewer
// than 2: the net is dropped), *hash = hash of (len, pins), non-negative. Returns the distinct
// count.
__device__ long long dedup_hash(int *p, long long s, int *len, long long *hash) {
    long long u = 0;
    for (long long i = 0; i < s; ++i)
        if (u == 0 || p[i] != p[u - 1]) p[u++] = p[i];
    if (u < 2) {
        *len = 0;
        *hash = 0;
        return u;
    }
    igp_u64 x = 0x9E3779B97F4A7C15ULL ^ (igp_u64)u;
    for (long long i = 0; i < u; ++i) x = hash_mix(x, p[i]);
    *len = (int)u;
    *hash = (long long)((x ^ (x >> 31)) >> 1);
    return u;
}

// One stage of a bitonic network over a[0, n) run by the whole block: the flip stage of the
// merges of `size` entries (size > 0) or the half-cleaner of `stride`. Every comparator puts the
// smaller value first, so the entries past n act as +infinity: comparators reaching them are
// skipped. `half`: P / 2 for the network of P (a power of two >= n) entries.
__device__ void bitonic_stage(int *a, long long n, long long half, long long size, long long stride) {
    for (long long t = threadIdx.x; t < half; t += blockDim.x) {
        long long i, j;
        if (size) {
            const long long o = t & ((size >> 1) - 1);
            i = ((t - o) << 1) + o;
            j = i + size - 1 - 2 * o;
        } else {
            i = 2 * t - (t & (stride - 1));
            j = i + stride;
        }
        if (j < n) {
            const int x = a[i], y = a[j];
            if (x > y) {
                a[i] = y;
                a[j] = x;
            }
        }
    }
    __syncthreads();
}

// Ascending sort of a[0, n) by the block, in one memory (shared or global).
__device__ void bitonic_sort(int *a, long long n) {
    long long P = 1;
    while (P < n) P <<= 1;
    for (long long s = 2; s <= P; s <<= 1) {
        bitonic_stage(a, n, P >> 1, s, 0);
        for (long long d = s >> 2; d > 0; d >>= 1) bitonic_stage(a, n, P >> 1, 0, d);
    }
}

// Ascending sort of a[0, n) (global memory, n > W) by the block: windows of W (a power of two)
// entries are sorted in shared memory sh, then every merge runs its strides >= W in global
// memory and the smaller ones window by window in shared memory.
__device__ void bitonic_sort_windows(int *a, long long n, int *sh, int W) {
    for (long long w0 = 0; w0 < n; w0 += W) {
        const long long wn = min((long long)W, n - w0);
        for (long long j = threadIdx.x; j < wn; j += blockDim.x) sh[j] = a[w0 + j];
        __syncthreads();
        bitonic_sort(sh, wn);
        for (long long j = threadIdx.x; j < wn; j += blockDim.x) a[w0 + j] = sh[j];
        __syncthreads();
    }
    long long P = 1;
    while (P < n) P <<= 1;
    for (long long s = 2 * (long long)W; s <= P; s <<= 1) {
        bitonic_stage(a, n, P >> 1, s, 0);
        for (long long d = s >> 2; d >= W; d >>= 1) bitonic_stage(a, n, P >> 1, 0, d);
        for (long long w0 = 0; w0 < n; w0 += W) {
            const long long wn = min((long long)W, n - w0);
            for (long long j = threadIdx.x; j < wn; j += blockDim.x) sh[j] = a[w0 + j];
            __syncthreads();
            for (long long d = W >> 1; d > 0; d >>= 1) bitonic_stage(sh, wn, W >> 1, 0, d);
            for (long long j = threadIdx.x; j < wn; j += blockDim.x) a[w0 + j] = sh[j];
            __syncthreads();
        }
    }
}

// Inclusive scan of (a, b) over the block's threads (blockDim.x a multiple of 32); (ta, tb): the
// block's totals.
__device__ void block_scan2(long long &a, long long &b, long long &ta, long long &tb) {
    __shared__ long long wa[32], wb[32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int o = 1; o < 32; o <<= 1) {
        const long long xa = __shfl_up_sync(IGP_FULL_MASK, a, o);
        const long long xb = __shfl_up_sync(IGP_FULL_MASK, b, o);
        if (lane >= o) {
            a += xa;
            b += xb;
        }
    }
    if (lane == 31) {
        wa[w] = a;
        wb[w] = b;
    }
    __syncthreads();
    if (w == 0) {
        long long va = lane < nw ? wa[lane] : 0, vb = lane < nw ? wb[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            const long long xa = __shfl_up_sync(IGP_FULL_MASK, va, o);
            const long long xb = __shfl_up_sync(IGP_FULL_MASK, vb, o);
            if (lane >= o) {
                va += xa;
                vb += xb;
            }
        }
        if (lane < nw) {
            wa[lane] = va;
            wb[lane] = vb;
        }
    }
    __syncthreads();
    if (w > 0) {
        a += wa[w - 1];
        b += wb[w - 1];
    }
    ta = wa[nw - 1];
    tb = wb[nw - 1];
    __syncthreads();  // wa / wb are read before a later call writes them
}

// Slot of the hash table (entries: net id + 1, 0 = empty) that holds h's nets.
__device__ __forceinline__ igp_u64 table_find(long long h, const long long *hash, const int *table,
                                              igp_u64 mask) {
    igp_u64 slot = (igp_u64)h & mask;
    while (hash[table[slot] - 1] != h) slot = (slot + 1) & mask;
    return slot;
}

}  // namespace

// Per net: pins[eptr[e] ..] = cmap of its pins; nets of at most `small` pins are sorted,
// deduplicated and hashed here (dedup_hash), longer ones are listed in large[0, *nlarge) for
// sort_listed_segments. Also zeroes vwgt (nc entries; net_table_insert adds to it).
extern "C" __global__ void map_sort_nets(long long m, const long long *eptr, const int *eind,
                                         const int *cmap, long long small, int *pins, int *len,
                                         long long *hash, int *large, long long *nlarge, long long nc,
                                         long long *vwgt) {
    for (long long e = igp_tid(); e < m; e += igp_nthreads()) {
        const long long b = eptr[e], s = eptr[e + 1] - b;
        if (s > small) {
            large[atomicAdd((unsigned long long *)nlarge, 1ULL)] = (int)e;
            continue;
        }
        int *p = pins + b;
        for (long long i = 0; i < s; ++i) p[i] = cmap[eind[b + i]];
        igp_insertion_sort(p, s);
        dedup_hash(p, s, len + e, hash + e);
    }
    for (long long v = igp_tid(); v < nc; v += igp_nthreads()) vwgt[v] = 0;
}

// Sorts the segments listed in segs[0, *nseg) ascending, one block each: the values are
// map[src[ptr[s] ..]] written to vals[ptr[s] ..] when map is given, else vals[ptr[s] ..] in place.
// Segments of at most W (a power of two; W ints of dynamic shared memory) values are sorted in
// shared memory, longer ones by windows. With len / hash given, the segments are nets: they are
// then deduplicated and hashed as in map_sort_nets.
extern "C" __global__ void sort_listed_segments(const long long *nseg, const int *segs,
                                                const long long *ptr, const int *src, const int *map,
                                                int *vals, int W, int *len, long long *hash) {
    extern __shared__ int sh[];
    __shared__ long long kept;
    const long long count = *nseg;
    for (long long i = blockIdx.x; i < count; i += gridDim.x) {
        const int s = segs[i];
        const long long b = ptr[s], n = ptr[s + 1] - b;
        int *a = vals + b;
        if (n <= W) {
            for (long long j = threadIdx.x; j < n; j += blockDim.x) sh[j] = map ? map[src[b + j]] : a[j];
            __syncthreads();
            bitonic_sort(sh, n);
            if (threadIdx.x == 0) kept = hash ? dedup_hash(sh, n, len + s, hash + s) : n;
            __syncthreads();
            for (long long j = threadIdx.x; j < kept; j += blockDim.x) a[j] = sh[j];
        } else {
            if (map)
                for (long long j = threadIdx.x; j < n; j += blockDim.x) a[j] = map[src[b + j]];
            __syncthreads();
            bitonic_sort_windows(a, n, sh, W);
            if (hash && threadIdx.x == 0) dedup_hash(a, n, len + s, hash + s);
        }
        __syncthreads();
    }
}

// Inserts every net with len >= 2 into the hash table (table: mask + 1 entries, zeroed; an
// entry is claimed by the first net of its hash and keeps the smallest net id + 1 of that hash).
// Also vwgt[cmap[v]] += fvwgt[v] for the n fine vertices.
extern "C" __global__ void net_table_insert(long long m, const int *len, const long long *hash,
                                            unsigned long long mask, int *table, long long n,
                                            const int *cmap, const long long *fvwgt, long long *vwgt) {
    for (long long e = igp_tid(); e < m; e += igp_nthreads()) {
        if (len[e] < 2) continue;
        const long long h = hash[e];
        igp_u64 slot = (igp_u64)h & mask;
        while (true) {
            const int old = atomicCAS(table + slot, 0, (int)e + 1);
            if (old == 0) break;
            if (hash[old - 1] == h) {
                atomicMin(table + slot, (int)e + 1);
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    for (long long v = igp_tid(); v < n; v += igp_nthreads()) igp_atomic_add(vwgt + cmap[v], fvwgt[v]);
}

// Block b handles the nets [b * chunk, (b + 1) * chunk): a net's representative f is the table's
// net of its hash; it merges into f (ewgt added to wsum[f], len set to 0) when its pins equal
// f's, else it is kept (wsum[e] += ewgt[e]). bsum[2b], bsum[2b + 1]: the chunk's kept nets and
// their pins. Only table nets' len are read by other threads, and those nets are always kept.
extern "C" __global__ void net_reps(long long m, long long chunk, const long long *eptr,
                                    const int *pins, int *len, const long long *hash,
                                    unsigned long long mask, const int *table,
                                    const long long *ewgt, long long *wsum, long long *bsum) {
    const long long lo = blockIdx.x * chunk, hi = min(m, lo + chunk);
    long long cnt = 0, npins = 0;
    for (long long e = lo + threadIdx.x; e < hi; e += blockDim.x) {
        const int u = len[e];
        if (u == 0) continue;
        const int f = table[table_find(hash[e], hash, table, mask)] - 1;
        bool same = false;
        if (f != e && len[f] == u) {
            const int *x = pins + eptr[e], *y = pins + eptr[f];
            same = true;
            for (int j = 0; j < u && same; ++j) same = x[j] == y[j];
        }
        igp_atomic_add(wsum + (same ? f : e), ewgt[e]);
        if (same) {
            len[e] = 0;
        } else {
            ++cnt;
            npins += u;
        }
    }
    long long tc, tp;
    block_scan2(cnt, npins, tc, tp);
    if (threadIdx.x == 0) {
        bsum[2 * blockIdx.x] = tc;
        bsum[2 * blockIdx.x + 1] = tp;
    }
}

// One block: the nb pairs of bsum become exclusive prefix sums, their totals go to bsum[2 nb]
// and bsum[2 nb + 1].
extern "C" __global__ void scan_block_sums(long long nb, long long *bsum) {
    const long long per = (nb + blockDim.x - 1) / blockDim.x;
    const long long lo = threadIdx.x * per, hi = min(nb, lo + per);
    long long a = 0, b = 0;
    for (long long i = lo; i < hi; ++i) {
        a += bsum[2 * i];
        b += bsum[2 * i + 1];
    }
    const long long la = a, lb = b;
    long long ta, tb;
    block_scan2(a, b, ta, tb);
    a -= la;
    b -= lb;
    for (long long i = lo; i < hi; ++i) {
        const long long x = bsum[2 * i], y = bsum[2 * i + 1];
        bsum[2 * i] = a;
        bsum[2 * i + 1] = b;
        a += x;
        b += y;
    }
    if (threadIdx.x == 0) {
        bsum[2 * nb] = ta;
        bsum[2 * nb + 1] = tb;
    }
}

// Copies the kept nets (len > 0) in id order, chunks as in net_reps (boff: their exclusive
// offsets, scan_block_sums): new net c gets neptr[c], ewgt[c] = wsum[e] and its pins, spread over
// the block's threads tile by tile (seg: each pin's new net id; deg: vertex degrees counted).
// neptr[cm] = npins.
extern "C" __global__ void copy_kept_nets(long long m, long long chunk, const long long *eptr,
                                          const int *pins, const int *len, const long long *wsum,
                                          const long long *boff, long long cm, long long npins,
                                          long long *neptr, int *out, int *seg, long long *ewgt,
                                          long long *deg) {
    __shared__ int s_net[IGP_BLOCK_THREADS];
    __shared__ long long s_off[IGP_BLOCK_THREADS];  // pin offsets inside the tile
    const long long lo = blockIdx.x * chunk, hi = min(m, lo + chunk);
    long long id0 = boff[2 * blockIdx.x], dst0 = boff[2 * blockIdx.x + 1];
    if (blockIdx.x == 0 && threadIdx.x == 0) neptr[cm] = npins;
    for (long long t0 = lo; t0 < hi; t0 += blockDim.x) {
        const long long e = t0 + threadIdx.x;
        const int u = e < hi ? len[e] : 0;
        long long c = u > 0, d = u, tc, td;
        block_scan2(c, d, tc, td);
        if (u > 0) {
            neptr[id0 + c - 1] = dst0 + d - u;
            ewgt[id0 + c - 1] = wsum[e];
            s_net[c - 1] = (int)e;
            s_off[c - 1] = d - u;
        }
        __syncthreads();
        for (long long q = threadIdx.x; q < td; q += blockDim.x) {
            int k = 0, k1 = (int)tc - 1;  // the last kept net of the tile starting at or before q
            while (k < k1) {
                const int mid = (k + k1 + 1) >> 1;
                if (s_off[mid] <= q) k = mid;
                else k1 = mid - 1;
            }
            const int v = pins[eptr[s_net[k]] + q - s_off[k]];
            out[dst0 + q] = v;
            seg[dst0 + q] = (int)(id0 + k);
            igp_atomic_add(deg + v, 1);
        }
        id0 += tc;
        dst0 += td;
        __syncthreads();
    }
}

// Transpose, scatter step: pin j (row seg[j], column ind[j] = v) goes to v's list at
// tptr[v + 1] - deg[v]-- (deg: the degrees, zero afterwards). Lists fill from the front in about
// ascending row order: cheap for the insertion sorts next. Thread per pin.
extern "C" __global__ void transpose_scatter(long long p, const int *ind, const int *seg,
                                             const long long *tptr, long long *deg, int *tind) {
    for (long long j = igp_tid(); j < p; j += igp_nthreads()) {
        const int v = ind[j];
        const long long left = (long long)atomicAdd((unsigned long long *)(deg + v), ~0ULL);
        tind[tptr[v + 1] - left] = seg[j];
    }
}

// Sorts every list of at most `small` values in place (thread per list); longer lists are listed
// in large[0, *nlarge) for sort_listed_segments.
extern "C" __global__ void sort_small_lists(long long nseg, const long long *ptr, int *vals, long long small,
                                            int *large, long long *nlarge) {
    for (long long s = igp_tid(); s < nseg; s += igp_nthreads()) {
        const long long b = ptr[s], len = ptr[s + 1] - b;
        if (len > small)
            large[atomicAdd((unsigned long long *)nlarge, 1ULL)] = (int)s;
        else
            igp_insertion_sort(vals + b, len);
    }
}

// Vertex degrees of a pin list (deg must be zeroed).
extern "C" __global__ void count_pins(long long p, const int *eind, long long *deg) {
    for (long long j = igp_tid(); j < p; j += igp_nthreads())
        atomicAdd((unsigned long long *)(deg + eind[j]), 1ULL);
}
