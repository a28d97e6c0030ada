// Refinement kernels: sparse pin counts Phi(e, b), every vertex's best positive move (warp per
// vertex, per-warp block table), HyperG sequence gains (warp per move, ballot/popc pin counting),
// and G-kway independent-set moves for graphs.
#include "igpart_gpu.cuh"

namespace {

// The per-warp block table of k int64 entries: a slice of dynamic shared memory (zeroed here by
// the whole block), or of the global scratch when k is too large for shared memory.
__device__ __forceinline__ long long *warp_table(long long *sh, int use_global, long long *gscratch, int k) {
    if (use_global) return gscratch + igp_warp() * (long long)k;
    for (long long b = threadIdx.x; b < (long long)k * (blockDim.x >> 5); b += blockDim.x) sh[b] = 0;
    __syncthreads();
    return sh + (threadIdx.x >> 5) * (long long)k;
}

// Scans and clears the warp's table; every lane ends with the best (gain, block) among non-zero
// entries for which gain_of(block, entry) returns a positive gain (ties: smaller block).
template <class F>
__device__ __forceinline__ void take_best(long long *extra, int k, F gain_of, long long &bg, int &bb) {
    const int lane = igp_lane();
    bg = 0;
    bb = -1;
    __syncwarp();
    for (int b = lane; b < k; b += 32) {
        const long long x = extra[b];
        if (x == 0) continue;
        extra[b] = 0;
        const long long g = gain_of(b, x);
        if (g > 0 && (bb < 0 || g > bg)) {
            bg = g;
            bb = b;
        }
    }
    igp_warp_best_move(bg, bb);
    __syncwarp();
}

}  // namespace

// Pin counts of every net, stored sparsely in the net's own pin slots: (pblk, pcnt)[eptr[e] ..
// eptr[e] + lam[e]) lists the blocks the net touches (first-seen order) and its pins there.
// Thread per net; nets of more than long_min pins are left to build_phi_long.
extern "C" __global__ void build_phi(long long m, const long long *eptr, const int *eind, const int *parts,
                                     int *lam, int *pblk, int *pcnt, long long long_min) {
    for (long long e = igp_tid(); e < m; e += igp_nthreads()) {
        if (eptr[e + 1] - eptr[e] > long_min) continue;
        lam[e] = igp_build_phi_net(eptr[e], eptr[e + 1], eind, parts, pblk, pcnt);
    }
}

// build_phi for the long nets nets[0 .. count) (k <= IGP_LONG_NET_MAX_K): block per net. The
// block counts the net's pins per block and each block's first pin position in shared memory
// (2k ints), then writes the touched blocks in first-seen order (each one's rank = the touched
// blocks seen before it), so the output equals igp_build_phi_net's without its O(|e| * lam)
// serial loop (a single thread walked a 79,213-pin net of a Titan23 circuit per call). With
// `stats` non-NULL the nets' objective is added into stats[0].
extern "C" __global__ void build_phi_long(long long count, const int *nets, const long long *eptr,
                                          const int *eind, const int *parts, int k, int *lam,
                                          int *pblk, int *pcnt, const long long *ewgt,
                                          int objective, long long *stats) {
    extern __shared__ int shl[];
    int *cnt = shl, *first = shl + k;
    __shared__ int touched;
    for (long long q = blockIdx.x; q < count; q += gridDim.x) {
        const int e = nets[q];
        const long long s = eptr[e], t = eptr[e + 1];
        for (int b = threadIdx.x; b < k; b += blockDim.x) {
            cnt[b] = 0;
            first[b] = 0x7fffffff;
        }
        if (threadIdx.x == 0) touched = 0;
        __syncthreads();
        for (long long j = s + threadIdx.x; j < t; j += blockDim.x) {
            const int b = parts[eind[j]];
            atomicAdd(cnt + b, 1);
            atomicMin(first + b, (int)(j - s));
        }
        __syncthreads();
        int mine = 0;
        for (int b = threadIdx.x; b < k; b += blockDim.x) {
            if (cnt[b] == 0) continue;
            const int fb = first[b];
            int r = 0;
            for (int c = 0; c < k; ++c) r += cnt[c] > 0 && first[c] < fb;
            pblk[s + r] = b;
            pcnt[s + r] = cnt[b];
            ++mine;
        }
        if (mine) atomicAdd(&touched, mine);
        __syncthreads();
        if (threadIdx.x == 0) {
            lam[e] = touched;
            if (stats) {
                const long long obj = igp_net_objective(objective, ewgt[e], touched);
                if (obj) igp_atomic_add(stats, obj);
            }
        }
        __syncthreads();  // cnt, first and touched are reused by the next net
    }
}

// Best positive-gain move of every vertex to a block its nets touch (ties: smaller block), or
// target -1. Warp per vertex: lanes walk the vertex's nets, add the target-dependent gain parts
// into a per-warp table of k entries (shared memory, or global scratch when k is large), then
// scan and clear it. `locked` (optional, NULL: none): a vertex with a non-zero entry gets no
// move (target -1).
extern "C" __global__ void hg_best_moves(long long n, const long long *eptr, const long long *ewgt,
                                         const long long *vptr, const int *vind, const int *parts,
                                         const int *lam, const int *pblk, const int *pcnt, int k,
                                         int objective, int use_global, long long *gscratch,
                                         int *target, long long *gain,
                                         const unsigned char *locked) {
    extern __shared__ long long sh[];
    const int lane = igp_lane();
    long long *extra = warp_table(sh, use_global, gscratch, k);
    for (long long u = igp_warp(); u < n; u += igp_nwarps()) {
        if (locked && locked[u]) {  // warp-uniform: every lane reads the same entry
            if (lane == 0) {
                target[u] = -1;
                gain[u] = 0;
            }
            continue;
        }
        const int s = parts[u];
        long long base = 0;
        int touched = 0;
        for (long long j = vptr[u] + lane; j < vptr[u + 1]; j += 32) {
            const int e = vind[j];
            const long long b0 = eptr[e], size = eptr[e + 1] - b0;
            if (size < 2) continue;
            const long long w = ewgt[e];
            const int L = lam[e];
            long long pf = 0;
            for (int i = 0; i < L; ++i)
                if (pblk[b0 + i] == s) pf = pcnt[b0 + i];
            base += igp::move_gain(objective, w, size, pf, 0);
            if (objective == igp::OBJ_CUT && (L != 2 || pf != 1)) continue;
            for (int i = 0; i < L; ++i) {
                const int b = pblk[b0 + i];
                if (b == s) continue;
                const long long tp = igp::move_gain_target_part(objective, w, size, pf, pcnt[b0 + i]);
                if (tp > 0) {
                    igp_atomic_add(extra + b, tp);
                    touched = 1;
                }
            }
        }
        base = igp_warp_sum(base);
        long long bg = 0;
        int bb = -1;
        if (__any_sync(IGP_FULL_MASK, touched))
            take_best(extra, k, [&](int, long long x) { return base + x; }, bg, bb);
        if (lane == 0) {
            target[u] = bb;
            gain[u] = bg;
        }
    }
}

// Gain of every move of the sequence assuming all earlier moves are applied (HyperG §3.2): warp
// per move; a pin v is in tgt[v] if order[v] < i, else in parts[v]; pins in the source and target
// blocks are counted with __ballot_sync / __popc.
extern "C" __global__ void hg_sequence_gains(long long L, const int *mv_u, const int *mv_to,
                                             const int *order, const int *tgt, const long long *eptr,
                                             const int *eind, const long long *ewgt, const long long *vptr,
                                             const int *vind, const int *parts, int objective,
                                             long long *rgain) {
    const int lane = igp_lane();
    for (long long i = igp_warp(); i < L; i += igp_nwarps()) {
        const int u = mv_u[i], from = parts[u], to = mv_to[i];
        long long g = 0;
        for (long long j = vptr[u]; j < vptr[u + 1]; ++j) {
            const int e = vind[j];
            const long long s = eptr[e], size = eptr[e + 1] - s;
            if (size < 2) continue;
            int pf = 0, pt = 0;
            for (long long base = 0; base < size; base += 32) {
                const long long q = base + lane;
                int b = -1;
                if (q < size) {
                    const int v = eind[s + q];
                    b = order[v] < i ? tgt[v] : parts[v];
                }
                pf += __popc(__ballot_sync(IGP_FULL_MASK, b == from));
                pt += __popc(__ballot_sync(IGP_FULL_MASK, b == to));
            }
            g += igp::move_gain(objective, ewgt[e], size, pf, pt);
        }
        if (lane == 0) rgain[i] = g;
    }
}

// Graphs: every vertex's legal move of highest positive gain ed(u, b) - id(u) into a block with
// room for it (ties: smaller block). Warp per vertex with a per-warp block table, as above.
extern "C" __global__ void graph_best_moves(long long n, const long long *xadj, const int *adjncy,
                                            const long long *adjwgt, const long long *vwgt,
                                            const int *parts, const long long *bw,
                                            const long long *bounds, int k, int use_global,
                                            long long *gscratch, int *target, long long *gain) {
    extern __shared__ long long sh[];
    const int lane = igp_lane();
    long long *extra = warp_table(sh, use_global, gscratch, k);
    for (long long u = igp_warp(); u < n; u += igp_nwarps()) {
        const int s = parts[u];
        long long internal = 0;
        int touched = 0;
        for (long long j = xadj[u] + lane; j < xadj[u + 1]; j += 32) {
            const int b = parts[adjncy[j]];
            const long long w = adjwgt[j];
            if (b == s) {
                internal += w;
            } else if (w > 0) {
                igp_atomic_add(extra + b, w);
                touched = 1;
            }
        }
        internal = igp_warp_sum(internal);
        long long bg = 0;
        int bb = -1;
        if (__any_sync(IGP_FULL_MASK, touched)) {
            const long long wu = vwgt[u];
            take_best(extra, k, [&](int b, long long x) {
                return bw[b] + wu <= bounds[b] ? igp::graph_move_gain(x, internal) : 0LL;
            }, bg, bb);
        }
        if (lane == 0) {
            target[u] = bb;
            gain[u] = bg;
        }
    }
}

// Independent set: a vertex with a move keeps it only if no neighbour with a move has a smaller id.
extern "C" __global__ void graph_independent(long long n, const long long *xadj, const int *adjncy,
                                             const int *target, int *keep) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        int ok = target[u] >= 0;
        for (long long j = xadj[u]; j < xadj[u + 1] && ok; ++j) {
            const int v = adjncy[j];
            if (v < u && target[v] >= 0) ok = 0;
        }
        keep[u] = ok;
    }
}

// Balanced-prefix bookkeeping of a move sequence (HyperG's per-block weight scans, done on the
// events of each block only): events sorted by (block, position) carry the block's weight after
// the move (wafter); viol[i] = 1 when that weight breaks block_ok; dviol[i] = change of the
// block's violation state at this event.
extern "C" __global__ void block_violations(long long ne, const long long *eblock, const long long *wafter,
                                            const long long *bounds, const long long *before,
                                            int *dviol) {
    for (long long i = igp_tid(); i < ne; i += igp_nthreads()) {
        const long long b = eblock[i];
        const int v = !igp::block_ok(wafter[i], bounds[b], before[b]);
        int prev = 0;
        if (i > 0 && eblock[i - 1] == b) prev = !igp::block_ok(wafter[i - 1], bounds[b], before[b]);
        dviol[i] = v - prev;
    }
}
