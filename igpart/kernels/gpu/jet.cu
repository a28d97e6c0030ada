// Jet refinement kernels (launchers in _jet.py; formulas in kernels/common/jet.h, shared with the
// C++ reference cpu/jet.cpp): every vertex's best target and candidate test (warp per vertex,
// per-warp block tables), the candidates' compaction and priority keys, the afterburner (warp per
// candidate, ballot counting), the balance passes, the application of the moves, and the pin-count
// rebuild with the objective. Scalars the host reads live in one int64 array `stats` (slots JS_*,
// mirrored in _jet.py) so that an iteration needs one device-to-host copy.
// This file: step 1 (targets and candidate tests), the boundary lists and the afterburner;
// jet_balance.cu: compaction, ranks, balance passes, application and rebuild (two modules, so
// that a cold kernel cache compiles them in parallel).
#include "igpart_gpu.cuh"
#include "jet.h"
#include "jet_common.cuh"

namespace {

// Step 1's work on net e of a vertex in block s (one thread): adds the net's terms to the vertex's
// base gain and internal affinity, and its target parts and connections to the other blocks into
// the tables tp / conn with their bits in mask; returns whether it touched another block.
__device__ __forceinline__ bool jet_add_net(int e, int s, const long long *eptr,
                                            const long long *ewgt, const int *lam,
                                            const int *pblk, const int *pcnt, int objective,
                                            long long &base, long long &internal, long long *tp,
                                            long long *conn, unsigned long long *mask) {
    const long long b0 = eptr[e], size = eptr[e + 1] - b0;
    if (size < 2) return false;
    const long long w = ewgt[e];
    const int L = lam[e];
    long long pf = 0;
    for (int q = 0; q < L; ++q)
        if (pblk[b0 + q] == s) pf = pcnt[b0 + q];
    base += igp::move_gain(objective, w, size, pf, 0);
    internal += igp::jet_internal_term(w, size, pf);
    bool touched = false;
    for (int q = 0; q < L; ++q) {
        const int b = pblk[b0 + q];
        if (b == s) continue;
        const long long t = igp::move_gain_target_part(objective, w, size, pf, pcnt[b0 + q]);
        const long long cn = igp::jet_connection_term(w, size, pcnt[b0 + q]);
        if (t) igp_atomic_add(tp + b, t);
        if (cn) igp_atomic_add(conn + b, cn);
        atomicOr(mask + (b >> 6), 1ULL << (b & 63));
        touched = true;
    }
    return touched;
}

// The afterburner's gain term of net e (s = eptr[e], size pins >= 2) for candidate i moving from
// `from` to `to`, counted by one thread: the current pin counts above max_net_size, else each pin's
// block with the moves of higher priority applied (jet_pin_block).
__device__ __forceinline__ long long jet_net_move_gain(int e, long long s, long long size,
                                                       long long i, int from, int to,
                                                       const int *rank, const int *target,
                                                       const int *parts, const int *eind,
                                                       const long long *ewgt, const int *lam,
                                                       const int *pblk, const int *pcnt,
                                                       int objective, long long max_net_size) {
    long long pf = 0, pt = 0;
    if (size > max_net_size) {
        for (int q = 0; q < lam[e]; ++q) {
            if (pblk[s + q] == from) pf = pcnt[s + q];
            if (pblk[s + q] == to) pt = pcnt[s + q];
        }
    } else {
        for (long long q = 0; q < size; ++q) {
            const int v = eind[s + q];
            const int b = igp::jet_pin_block(rank[v], i, target[v], parts[v]);
            pf += b == from;
            pt += b == to;
        }
    }
    return igp::move_gain(objective, ewgt[e], size, pf, pt);
}

// The best target among the blocks b = first, first + stride, ... < k that the vertex's nets
// touched (mask bit set), gain base + tp[b], connection conn[b], folded into (bg, bc, bb) by
// jet_target_better (bb < 0: none yet); clears tp[b] and conn[b] on the way. One thread's share
// of the scan that the warp and block kernels then reduce.
__device__ __forceinline__ void jet_scan_targets(int k, int first, int stride, long long base,
                                                 long long *tp, long long *conn,
                                                 const unsigned long long *mask, long long &bg,
                                                 long long &bc, int &bb) {
    for (int b = first; b < k; b += stride) {
        if (!((mask[b >> 6] >> (b & 63)) & 1ULL)) continue;
        const long long g = base + tp[b], cn = conn[b];
        tp[b] = 0;
        conn[b] = 0;
        if (bb < 0 || igp::jet_target_better(g, cn, b, bg, bc, bb)) {
            bg = g;
            bc = cn;
            bb = b;
        }
    }
}

}  // namespace


// Step 1 of a Jet iteration: target[u] = the best block d != parts[u] among the blocks u's nets
// touch (jet_target_better) when u is unlocked and jet_is_candidate holds, else -1; gain[u] its
// gain. Warp per vertex: lanes walk the vertex's nets and add target parts and connections into
// the warp's tables (shared memory, or the global scratch when use_global), then scan and clear
// them. Integer atomics only, so the result does not depend on the order. With `list` (the
// boundary vertices of jet_boundary_list, *count of them) only those are visited: the others
// have no block but their own on any net, so they get no target (the launcher zeroes their flag
// and clears every lock after this kernel, as visiting them would). `fixed` (optional, NULL:
// none): vertices with a non-zero entry are never candidates (fixed vertices).
extern "C" __global__ void jet_candidates(long long n, const long long *eptr, const long long *ewgt,
                                          const long long *vptr, const int *vind, const int *parts,
                                          const int *lam, const int *pblk, const int *pcnt,
                                          signed char *locked, int k, int objective, double c,
                                          int use_global, long long *gscratch, int *target,
                                          long long *gain, int *flag, long long *stats,
                                          const int *list, const int *count,
                                          const unsigned char *fixed, long long heavy_min) {
    extern __shared__ long long sh[];
    const int lane = igp_lane();
    const long long words = jet_table_words(k);
    long long *table;
    if (use_global) {
        table = gscratch + igp_warp() * words;
    } else {
        for (long long b = threadIdx.x; b < words * (blockDim.x >> 5); b += blockDim.x) sh[b] = 0;
        __syncthreads();
        table = sh + (threadIdx.x >> 5) * words;
    }
    long long *tp = table, *conn = table + k;
    unsigned long long *mask = (unsigned long long *)(table + 2LL * k);
    long long gmin = 0, gmax = 0;  // gain range of this warp's candidates (lane 0)
    bool any = false;
    const long long items = list ? (long long)*count : n;
    for (long long i = igp_warp(); i < items; i += igp_nwarps()) {
        const long long u = list ? (long long)list[i] : i;
        if (vptr[u + 1] - vptr[u] >= heavy_min) continue;  // jet_candidates_heavy
        int lk = 0;
        if (lane == 0) {
            lk = locked[u];
            if (lk) locked[u] = 0;  // the lock lasts one iteration
            if (fixed && fixed[u]) lk = 1;
        }
        if (__shfl_sync(IGP_FULL_MASK, lk, 0)) {
            if (lane == 0) {
                target[u] = -1;
                gain[u] = 0;
                flag[u] = 0;
            }
            continue;
        }
        const int s = parts[u];
        long long base = 0, internal = 0;
        int touched = 0;
        for (long long j = vptr[u] + lane; j < vptr[u + 1]; j += 32)
            if (jet_add_net(vind[j], s, eptr, ewgt, lam, pblk, pcnt, objective, base, internal, tp,
                            conn, mask))
                touched = 1;
        base = igp_warp_sum(base);
        internal = igp_warp_sum(internal);
        long long bg = 0, bc = 0;
        int bb = -1;
        if (__any_sync(IGP_FULL_MASK, touched)) {
            __syncwarp();
            jet_scan_targets(k, lane, 32, base, tp, conn, mask, bg, bc, bb);
            for (int o = 16; o > 0; o >>= 1) {
                const long long g2 = __shfl_xor_sync(IGP_FULL_MASK, bg, o);
                const long long c2 = __shfl_xor_sync(IGP_FULL_MASK, bc, o);
                const int b2 = __shfl_xor_sync(IGP_FULL_MASK, bb, o);
                if (b2 >= 0 && (bb < 0 || igp::jet_target_better(g2, c2, b2, bg, bc, bb))) {
                    bg = g2;
                    bc = c2;
                    bb = b2;
                }
            }
            __syncwarp();
            for (int q = lane; q < (k + 63) / 64; q += 32) mask[q] = 0;
            __syncwarp();
        }
        if (lane == 0) {
            const bool ok = bb >= 0 && igp::jet_is_candidate(bg, internal, c);
            target[u] = ok ? bb : -1;
            gain[u] = ok ? bg : 0;
            flag[u] = ok;
            if (ok) {
                gmin = any && gmin < bg ? gmin : bg;
                gmax = any && gmax > bg ? gmax : bg;
                any = true;
            }
        }
    }
    if (lane == 0 && any) {
        atomicMin(stats + JS_GMIN, gmin);
        atomicMax(stats + JS_GMAX, gmax);
    }
}

// jet_candidates for the vertices heavy[0 .. nheavy) (those on at least heavy_min nets, which
// jet_candidates skips): a block per vertex, its nets over the block's threads, one table of
// jet_table_words(k) words (dynamic shared memory, or the block's slice of gscratch when
// use_global). The same integer sums and the same choice as the warp kernel, so the same
// targets, gains and flags. A vertex off the boundary touches no other block and gets none.
extern "C" __global__ void jet_candidates_heavy(long long nheavy, const int *heavy,
                                                const long long *eptr, const long long *ewgt,
                                                const long long *vptr, const int *vind,
                                                const int *parts, const int *lam, const int *pblk,
                                                const int *pcnt, signed char *locked, int k,
                                                int objective, double c, int use_global,
                                                long long *gscratch, int *target,
                                                long long *gain, int *flag, long long *stats,
                                                const unsigned char *fixed) {
    extern __shared__ long long sh[];
    __shared__ long long red_g[IGP_BLOCK_THREADS], red_c[IGP_BLOCK_THREADS];
    __shared__ int red_b[IGP_BLOCK_THREADS];
    __shared__ long long sum_base[IGP_BLOCK_THREADS / 32], sum_int[IGP_BLOCK_THREADS / 32];
    __shared__ int lock_s;
    const long long words = jet_table_words(k);
    long long *table = use_global ? gscratch + (long long)blockIdx.x * words : sh;
    for (long long b = threadIdx.x; b < words; b += blockDim.x) table[b] = 0;
    long long *tp = table, *conn = table + k;
    unsigned long long *mask = (unsigned long long *)(table + 2LL * k);
    const int lane = igp_lane(), wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    __syncthreads();
    for (long long i = blockIdx.x; i < nheavy; i += gridDim.x) {
        const long long u = heavy[i];
        if (threadIdx.x == 0) {
            int lk = locked[u];
            if (lk) locked[u] = 0;  // the lock lasts one iteration
            if (fixed && fixed[u]) lk = 1;
            lock_s = lk;
        }
        __syncthreads();
        if (lock_s) {
            if (threadIdx.x == 0) {
                target[u] = -1;
                gain[u] = 0;
                flag[u] = 0;
            }
            __syncthreads();
            continue;
        }
        const int s = parts[u];
        long long base = 0, internal = 0;
        for (long long j = vptr[u] + threadIdx.x; j < vptr[u + 1]; j += blockDim.x)
            jet_add_net(vind[j], s, eptr, ewgt, lam, pblk, pcnt, objective, base, internal, tp,
                        conn, mask);
        base = igp_warp_sum(base);
        internal = igp_warp_sum(internal);
        if (lane == 0) {
            sum_base[wid] = base;
            sum_int[wid] = internal;
        }
        __syncthreads();
        base = 0;
        internal = 0;
        for (int q = 0; q < nw; ++q) {
            base += sum_base[q];
            internal += sum_int[q];
        }
        long long bg = 0, bc = 0;
        int bb = -1;
        jet_scan_targets(k, threadIdx.x, blockDim.x, base, tp, conn, mask, bg, bc, bb);
        red_g[threadIdx.x] = bg;
        red_c[threadIdx.x] = bc;
        red_b[threadIdx.x] = bb;
        __syncthreads();
        for (int o = blockDim.x / 2; o > 0; o >>= 1) {
            if (threadIdx.x < o) {
                const int b2 = red_b[threadIdx.x + o];
                const int b1 = red_b[threadIdx.x];
                if (b2 >= 0 && (b1 < 0 || igp::jet_target_better(red_g[threadIdx.x + o],
                                                                  red_c[threadIdx.x + o], b2,
                                                                  red_g[threadIdx.x],
                                                                  red_c[threadIdx.x], b1))) {
                    red_g[threadIdx.x] = red_g[threadIdx.x + o];
                    red_c[threadIdx.x] = red_c[threadIdx.x + o];
                    red_b[threadIdx.x] = b2;
                }
            }
            __syncthreads();
        }
        for (int q = threadIdx.x; q < (k + 63) / 64; q += blockDim.x) mask[q] = 0;
        if (threadIdx.x == 0) {
            const long long g = red_g[0];
            const int b = red_b[0];
            const bool ok = b >= 0 && igp::jet_is_candidate(g, internal, c);
            target[u] = ok ? b : -1;
            gain[u] = ok ? g : 0;
            flag[u] = ok;
            if (ok) {
                atomicMin(stats + JS_GMIN, g);
                atomicMax(stats + JS_GMAX, g);
            }
        }
        __syncthreads();
    }
}

// Boundary vertices: mark[v] = 1 for every pin v of a net with pins in two or more blocks
// (lam > 1; mark is all zero before: allocated zeroed, cleared again by jet_boundary_list).
// Thread per net; nets of more than long_min pins are left to jet_boundary_mark_long.
extern "C" __global__ void jet_boundary_mark(long long m, const long long *eptr, const int *eind,
                                             const int *lam, signed char *mark, long long long_min) {
    for (long long e = igp_tid(); e < m; e += igp_nthreads()) {
        if (lam[e] <= 1 || eptr[e + 1] - eptr[e] > long_min) continue;
        for (long long j = eptr[e]; j < eptr[e + 1]; ++j) mark[eind[j]] = 1;
    }
}

// jet_boundary_mark for the long nets nets[0 .. count): block per net.
extern "C" __global__ void jet_boundary_mark_long(long long count, const int *nets,
                                                  const long long *eptr, const int *eind,
                                                  const int *lam, signed char *mark) {
    for (long long q = blockIdx.x; q < count; q += gridDim.x) {
        const int e = nets[q];
        if (lam[e] <= 1) continue;
        for (long long j = eptr[e] + threadIdx.x; j < eptr[e + 1]; j += blockDim.x) mark[eind[j]] = 1;
    }
}

// list[pos[v] - 1] = v for every marked vertex (pos: inclusive prefix sums of mark), so the list
// ascends; pos[n - 1] is its length. Clears the marks for the next iteration and zeroes the
// candidate flag of every vertex not listed (jet_candidates writes the listed ones' flags).
extern "C" __global__ void jet_boundary_list(long long n, signed char *mark, const int *pos,
                                             int *list, int *flag) {
    for (long long v = igp_tid(); v < n; v += igp_nthreads()) {
        if (mark[v]) {
            list[pos[v] - 1] = (int)v;
            mark[v] = 0;
        } else {
            flag[v] = 0;
        }
    }
}

// Nets of at most this many pins are counted by one lane in the afterburner (32 nets at a time
// per warp), larger ones by the whole warp.
#define JET_LANE_NET_PINS 8

// Step 2 (afterburner): keep[i] = whether the gain of candidate cand[i] (priority position i),
// recomputed with every pin v of its nets in jet_pin_block(rank[v], i, target[v], parts[v]),
// passes jet_keep. Nets above max_net_size use the current pin counts. Warp per candidate: its
// nets in chunks of 32, a lane each; a lane counts a net of at most JET_LANE_NET_PINS pins (or
// above max_net_size) itself, and the warp counts each larger net of the chunk together, with
// __ballot_sync / __popc. (A vertex on tens of thousands of nets, a star's centre, is then not
// one long chain of dependent loads.) The gain is a sum of integers: the same in any order.
// Candidates on at least heavy_min nets are left to jet_afterburner_heavy.
extern "C" __global__ void jet_afterburner(long long L, const int *cand, const int *rank,
                                           const int *target, const int *parts, const long long *eptr,
                                           const int *eind, const long long *ewgt, const long long *vptr,
                                           const int *vind, const int *lam, const int *pblk,
                                           const int *pcnt, int objective, long long max_net_size,
                                           signed char *keep, long long heavy_min) {
    const int lane = igp_lane();
    for (long long i = igp_warp(); i < L; i += igp_nwarps()) {
        const int u = cand[i], from = parts[u], to = target[u];
        if (vptr[u + 1] - vptr[u] >= heavy_min) continue;  // jet_afterburner_heavy
        long long g = 0;  // per lane: its nets; lane 0 also the warp's nets
        const long long end = vptr[u + 1];
        for (long long base = vptr[u]; base < end; base += 32) {
            const long long j = base + lane;
            int e = -1;
            long long s = 0, size = 0;
            if (j < end) {
                e = vind[j];
                s = eptr[e];
                size = eptr[e + 1] - s;
            }
            const bool warp_net = e >= 0 && size > JET_LANE_NET_PINS && size <= max_net_size;
            if (e >= 0 && size >= 2 && !warp_net)
                g += jet_net_move_gain(e, s, size, i, from, to, rank, target, parts, eind, ewgt,
                                       lam, pblk, pcnt, objective, max_net_size);
            unsigned int wide = __ballot_sync(IGP_FULL_MASK, warp_net);
            while (wide) {
                const int src = __ffs(wide) - 1;
                wide &= wide - 1;
                const int ew = __shfl_sync(IGP_FULL_MASK, e, src);
                const long long sw = __shfl_sync(IGP_FULL_MASK, s, src);
                const long long zw = __shfl_sync(IGP_FULL_MASK, size, src);
                long long pf = 0, pt = 0;
                for (long long b0 = 0; b0 < zw; b0 += 32) {
                    const long long q = b0 + lane;
                    int b = -1;
                    if (q < zw) {
                        const int v = eind[sw + q];
                        b = igp::jet_pin_block(rank[v], i, target[v], parts[v]);
                    }
                    pf += __popc(__ballot_sync(IGP_FULL_MASK, b == from));
                    pt += __popc(__ballot_sync(IGP_FULL_MASK, b == to));
                }
                if (lane == 0) g += igp::move_gain(objective, ewgt[ew], zw, pf, pt);
            }
        }
        g = igp_warp_sum(g);
        if (lane == 0) keep[i] = igp::jet_keep(g) ? 1 : 0;
    }
}

// jet_afterburner for the candidates among heavy[0 .. nheavy) (the vertices on at least
// heavy_min nets, which jet_afterburner skips; a vertex is a candidate when its rank is below
// L): a block per vertex, its nets over the block's threads, each thread counting its nets'
// pins as a lane of jet_afterburner does, then a block sum. The same integer gain, so the same
// verdict.
extern "C" __global__ void jet_afterburner_heavy(long long L, long long nheavy, const int *heavy,
                                                 const int *rank, const int *target,
                                                 const int *parts, const long long *eptr,
                                                 const int *eind, const long long *ewgt,
                                                 const long long *vptr, const int *vind,
                                                 const int *lam, const int *pblk, const int *pcnt,
                                                 int objective, long long max_net_size,
                                                 signed char *keep) {
    __shared__ long long part_sum[IGP_BLOCK_THREADS / 32];
    const int lane = igp_lane(), wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (long long h = blockIdx.x; h < nheavy; h += gridDim.x) {
        const int u = heavy[h];
        const long long i = rank[u];
        if (i >= L) continue;  // not a candidate (uniform over the block)
        const int from = parts[u], to = target[u];
        long long g = 0;
        for (long long j = vptr[u] + threadIdx.x; j < vptr[u + 1]; j += blockDim.x) {
            const int e = vind[j];
            const long long s = eptr[e], size = eptr[e + 1] - s;
            if (size < 2) continue;
            g += jet_net_move_gain(e, s, size, i, from, to, rank, target, parts, eind, ewgt, lam,
                                   pblk, pcnt, objective, max_net_size);
        }
        g = igp_warp_sum(g);
        if (lane == 0) part_sum[wid] = g;
        __syncthreads();
        if (threadIdx.x == 0) {
            long long total = 0;
            for (int q = 0; q < nw; ++q) total += part_sum[q];
            keep[i] = igp::jet_keep(total) ? 1 : 0;
        }
        __syncthreads();  // part_sum is read before the next vertex writes it
    }
}
