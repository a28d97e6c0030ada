// Generic helpers: segment ids, scatter-adds, block weights, one-block key sorts.
#include "igpart_gpu.cuh"

// seg[j] = s for every slot j of segment s (ptr: nseg+1 offsets). Warp per segment.
extern "C" __global__ void fill_segment_ids(long long nseg, const long long *ptr, int *seg) {
    const int lane = igp_lane();
    for (long long s = igp_warp(); s < nseg; s += igp_nwarps())
        for (long long j = ptr[s] + lane; j < ptr[s + 1]; j += 32) seg[j] = (int)s;
}

// out[idx[i]] += val[i] (int64). val == NULL adds 1.
extern "C" __global__ void scatter_add_i64(long long len, const int *idx, const long long *val,
                                           long long *out) {
    for (long long i = igp_tid(); i < len; i += igp_nthreads())
        igp_atomic_add(out + idx[i], val ? val[i] : 1LL);
}

// out[idx[i]] += val[i] where val is int32 (violation-count deltas).
extern "C" __global__ void scatter_add_i32(long long len, const int *idx, const int *val, int *out) {
    for (long long i = igp_tid(); i < len; i += igp_nthreads()) atomicAdd(out + idx[i], val[i]);
}

// Block weights: per-block shared-memory histogram (k <= shared capacity), then global atomics.
extern "C" __global__ void block_weights_shared(long long n, const long long *vwgt, const int *parts,
                                                int k, long long *out) {
    extern __shared__ long long hist[];
    for (int b = threadIdx.x; b < k; b += blockDim.x) hist[b] = 0;
    __syncthreads();
    for (long long v = igp_tid(); v < n; v += igp_nthreads())
        atomicAdd((unsigned long long *)(hist + parts[v]), (unsigned long long)vwgt[v]);
    __syncthreads();
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        if (hist[b]) igp_atomic_add(out + b, hist[b]);
}

// Ascending sort of keys[0 .. len) in place by one block: a bitonic sort in dynamic shared
// memory of P = the next power of two >= len entries (the launcher passes P * sizeof(T) bytes),
// padded with the largest key. Replaces a device-wide sort (several launches and a host
// synchronisation) for the short arrays of Jet's iterations. Compare-exchange t of a stage of
// stride s pairs i = 2t - (t & (s - 1)) with i + s; for s <= 32 the 32 exchanges of a warp stay
// inside a window of 64 entries, so those stages (and every stage of the sizes up to 64) need
// only warp synchronisation.
template <class T>
__device__ __forceinline__ void bitonic_exchange(T *s, int t, int size, int stride) {
    const int i = 2 * t - (t & (stride - 1)), j = i + stride;
    const T a = s[i], b = s[j];
    if ((a > b) == ((i & size) == 0)) {
        s[i] = b;
        s[j] = a;
    }
}

// The stages of strides min(size / 2, 32) .. 1 of `size` (from size `from` to `to` when
// several), on this warp's windows.
template <class T>
__device__ __forceinline__ void bitonic_warp_stages(T *s, int half, int from, int to) {
    const int lane = threadIdx.x & 31;
    for (int w = (int)(threadIdx.x >> 5) * 32; w < half; w += (int)blockDim.x) {
        const int t = w + lane;
        for (int size = from; size <= to; size <<= 1) {
            for (int stride = min(size >> 1, 32); stride > 0; stride >>= 1) {
                if (t < half) bitonic_exchange(s, t, size, stride);
                __syncwarp();
            }
        }
    }
}

template <class T>
__device__ __forceinline__ void block_bitonic_sort(long long len, T *keys) {
    extern __shared__ unsigned char smem[];
    T *s = reinterpret_cast<T *>(smem);
    int P = 2;
    while (P < len) P <<= 1;
    const int half = P >> 1;
    for (int i = threadIdx.x; i < P; i += blockDim.x) s[i] = i < len ? keys[i] : (T)~(T)0;
    __syncthreads();
    bitonic_warp_stages(s, half, 2, min(P, 64));
    __syncthreads();
    for (int size = 128; size <= P; size <<= 1) {
        for (int stride = size >> 1; stride > 32; stride >>= 1) {
            for (int t = threadIdx.x; t < half; t += blockDim.x) bitonic_exchange(s, t, size, stride);
            __syncthreads();
        }
        bitonic_warp_stages(s, half, size, size);
        __syncthreads();
    }
    for (int i = threadIdx.x; i < len; i += blockDim.x) keys[i] = s[i];
}

extern "C" __global__ void block_sort_u64(long long len, igp_u64 *keys) {
    block_bitonic_sort<igp_u64>(len, keys);
}

extern "C" __global__ void block_sort_u32(long long len, unsigned int *keys) {
    block_bitonic_sort<unsigned int>(len, keys);
}

// Per segment [ptr[s], ptr[s+1]) of entries (ptr: nseg+1 offsets, no segment empty): the index of
// its best entry, of highest primary, then smallest secondary (when given), then smallest tie, then
// smallest index: the order of the sort in igpart.kernels.gpu._graph_lp._best_per_row. Thread per
// segment (a segment holds the labels around one vertex).
extern "C" __global__ void segment_best_i64(long long nseg, const long long *ptr,
                                            const long long *primary, const long long *secondary,
                                            const long long *tie, long long *out) {
    for (long long s = igp_tid(); s < nseg; s += igp_nthreads()) {
        long long b = ptr[s];
        for (long long i = b + 1; i < ptr[s + 1]; ++i) {
            if (primary[i] != primary[b]) {
                if (primary[i] > primary[b]) b = i;
                continue;
            }
            if (secondary && secondary[i] != secondary[b]) {
                if (secondary[i] < secondary[b]) b = i;
                continue;
            }
            if (tie[i] < tie[b]) b = i;
        }
        out[s] = b;
    }
}

// out[i] = tie hash of (a[i], b[i]): one launch instead of a dozen array operations.
extern "C" __global__ void tie_hash_i64(long long len, const long long *a, const long long *b,
                                        unsigned long long seed, long long *out) {
    for (long long i = igp_tid(); i < len; i += igp_nthreads())
        out[i] = igp_tie_hash(a[i], b[i], seed);
}

// The choice of label propagation (_graph_lp._choose) for the vertices rows[i] of degree at
// most max_degree, a thread each scanning its row (quadratic in the degree; the caller takes
// the longer rows): the adjacent label other than the vertex's own with weight[l] + vwgt[u]
// <= bound[l] of highest summed edge weight, then (balance) smallest weight[l], then smallest
// tie hash of (u, l), then smallest l; -1 and 0 where there is none. own: the summed weight
// to the vertex's own label.
extern "C" __global__ void lp_choose(long long nrows, const long long *rows,
                                     const long long *xadj, const int *adjncy,
                                     const long long *adjwgt, const int *label,
                                     const long long *weight, const long long *bound,
                                     const long long *vwgt, unsigned long long seed, int balance,
                                     long long max_degree, int *best_label, long long *best_sum,
                                     long long *own_sum) {
    for (long long i = igp_tid(); i < nrows; i += igp_nthreads()) {
        const long long u = rows[i], b = xadj[u], e = xadj[u + 1];
        if (e - b > max_degree) continue;
        const int mine = label[u];
        const long long wu = vwgt[u];
        int bl = -1;
        long long bs = 0, bwt = 0, bh = 0, own = 0;
        for (long long j = b; j < e; ++j) {
            const int l = label[adjncy[j]];
            bool seen = false;
            for (long long q = b; q < j && !seen; ++q) seen = label[adjncy[q]] == l;
            if (seen) continue;
            long long s = 0;
            for (long long q = j; q < e; ++q)
                if (label[adjncy[q]] == l) s += adjwgt[q];
            if (l == mine) {
                own = s;
                continue;
            }
            if (weight[l] + wu > bound[l]) continue;
            const long long wl = balance ? weight[l] : 0;
            const long long h = igp_tie_hash(u, l, seed);
            const bool better =
                bl < 0 || s > bs ||
                (s == bs && (wl < bwt || (wl == bwt && (h < bh || (h == bh && l < bl)))));
            if (better) {
                bl = l;
                bs = s;
                bwt = wl;
                bh = h;
            }
        }
        best_label[i] = bl;
        best_sum[i] = bs;
        own_sum[i] = own;
    }
}

// The CSR entries of the rows ``rows`` in order: r[j] = i and pos[j] = the entry's position for
// every entry j of row rows[i]; ends: inclusive prefix sums of the rows' degrees. Warp per row.
extern "C" __global__ void expand_rows(long long nrows, const long long *rows,
                                       const long long *xadj, const long long *ends, long long *r,
                                       long long *pos) {
    const int lane = igp_lane();
    for (long long i = igp_warp(); i < nrows; i += igp_nwarps()) {
        const long long s = xadj[rows[i]], d = xadj[rows[i] + 1] - s, o = ends[i] - d;
        for (long long j = lane; j < d; j += 32) {
            r[o + j] = i;
            pos[o + j] = s + j;
        }
    }
}

// _graph_lp._afterburner_gains, a thread per mover u[i] scanning its row: the gain of its move
// to to[i] with the neighbours v of 0 <= prio[v] < prio[u[i]] in block dest[v], the others in
// parts[v].
extern "C" __global__ void lp_afterburner_gains(long long m, const long long *u, const int *to,
                                                const long long *xadj, const int *adjncy,
                                                const long long *adjwgt, const int *parts,
                                                const int *dest, const long long *prio,
                                                long long *out) {
    for (long long i = igp_tid(); i < m; i += igp_nthreads()) {
        const long long x = u[i], px = prio[x];
        const int t = to[i], f = parts[x];
        long long s = 0;
        for (long long j = xadj[x]; j < xadj[x + 1]; ++j) {
            const int v = adjncy[j];
            const long long pv = prio[v];
            const int b = (pv >= 0 && pv < px) ? dest[v] : parts[v];
            if (b == t) s += adjwgt[j];
            if (b == f) s -= adjwgt[j];
        }
        out[i] = s;
    }
}

// _graph_lp._cut_change per mover (summed by the caller): over the row of u[i], w times
// (edge cut before - after), twice for a neighbour that stays, once for one that moves too.
extern "C" __global__ void lp_cut_change(long long m, const long long *u, const int *to,
                                         const long long *xadj, const int *adjncy,
                                         const long long *adjwgt, const int *parts,
                                         const int *next, const bool *moving, long long *out) {
    for (long long i = igp_tid(); i < m; i += igp_nthreads()) {
        const long long x = u[i];
        const int t = to[i], f = parts[x];
        long long s = 0;
        for (long long j = xadj[x]; j < xadj[x + 1]; ++j) {
            const int v = adjncy[j];
            const long long c = adjwgt[j] * ((long long)(f != parts[v]) - (long long)(t != next[v]));
            s += moving[v] ? c : 2 * c;
        }
        out[i] = s;
    }
}
