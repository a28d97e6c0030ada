// Jet refinement kernels, second part (launchers in _jet.py; the first part and the overview
// are in jet.cu): the candidates' compaction and priority keys, the balance passes, the
// application of the moves, and the pin-count rebuild with the objective.
#include "igpart_gpu.cuh"
#include "jet.h"
#include "jet_common.cuh"

namespace {

// Adds v into hist[b] (k entries) for every lane of the warp (v = 0: nothing); all lanes call
// it (the callers' loops are warp-uniform: every lane runs the same iterations). Small k: one warp sum per block, added by lane 0; else one atomic per nonzero lane.
__device__ __forceinline__ void jet_hist_add(long long *hist, int k, int b, long long v) {
    if (k <= 8) {
        for (int c = 0; c < k; ++c) {
            const long long sum = igp_warp_sum(b == c ? v : 0);
            if (igp_lane() == 0 && sum) igp_atomic_add(hist + c, sum);
        }
    } else if (v) {
        igp_atomic_add(hist + b, v);
    }
}

// The block's histogram: shared memory (zeroed here) when use_shared, else `global` itself.
__device__ __forceinline__ long long *jet_hist_begin(long long *sh, int use_shared, long long *global,
                                                     int k) {
    if (!use_shared) return global;
    for (int b = threadIdx.x; b < k; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    return sh;
}

// Adds the block's shared histogram into `global`.
__device__ __forceinline__ void jet_hist_end(long long *sh, int use_shared, long long *global, int k) {
    if (!use_shared) return;
    __syncthreads();
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        if (sh[b]) igp_atomic_add(global + b, sh[b]);
}

__device__ __forceinline__ int jet_bits(igp_u64 x) { return x ? 64 - __clzll((long long)x) : 0; }

// Inclusive inflow of sorted move q into its destination b: the prefix `cs` of active weights
// from the first move of b's run (first[b]) to q.
__device__ __forceinline__ long long jet_inflow(const long long *cs, const long long *first, int b,
                                                long long q) {
    const long long f = first[b];
    return cs[q] - (f > 0 ? cs[f - 1] : 0);
}


// Setup of sorted slot q (jet_balance_setup): its move from the sorted destination key; f and
// xv: its source block and active weight (the outflow it adds).
__device__ __forceinline__ void jet_setup_slot(long long q, const igp_u64 *dkey, int dkey32, int lbits,
                                               const int *cand_s, const signed char *keep,
                                               const int *parts, const long long *vwgt, int *u_s,
                                               int *to_s, int *from_s, long long *w_s,
                                               signed char *act, long long *first, int &f,
                                               long long &xv) {
    const igp_u64 mask = (1ULL << lbits) - 1;
    const igp_u64 key = dkey32 ? ((const unsigned int *)dkey)[q] : dkey[q];
    const long long i = (long long)(key & mask);
    const int b = (int)(key >> lbits), u = cand_s[i];
    const long long w = vwgt[u];
    f = parts[u];
    xv = keep[i] ? w : 0;
    u_s[q] = u;
    to_s[q] = b;
    from_s[q] = f;
    w_s[q] = w;
    act[q] = keep[i];
    const igp_u64 prev = q == 0 ? 0 : dkey32 ? ((const unsigned int *)dkey)[q - 1] : dkey[q - 1];
    if (q == 0 || (int)(prev >> lbits) != b) first[b] = q;
}

// Application of sorted slot q (jet_apply): resets the candidate's rank; when its move is
// accepted (safe when `changed`, else act) moves and locks it and returns true with its source
// f, destination t and weight w.
__device__ __forceinline__ bool jet_apply_slot(long long q, bool changed, const int *u_s,
                                               const int *to_s, const int *from_s,
                                               const long long *w_s, const signed char *act,
                                               const signed char *safe, int *parts,
                                               signed char *locked, int *rank, int &f, int &t,
                                               long long &w) {
    const int u = u_s[q];
    rank[u] = IGP_INT_MAX;
    if (!(changed ? safe[q] : act[q])) return false;
    t = to_s[q];
    f = from_s[q];
    w = w_s[q];
    parts[u] = t;
    locked[u] = 1;
    return true;
}
}  // namespace

// Compaction of the candidates (flag[u] = 1, pos = inclusive prefix of flag: cand[pos[u] - 1] = u,
// ascending ids) and their priority keys, in the layout `tier` chosen here from the candidate
// count L and the gain range (stats GMIN/GMAX of jet_candidates), so that ascending keys give the
// order jet_priority_before (gain descending, then hash, then id):
//   tier 1 (gain bits + 32 + id bits <= pack_bits): (gmax - gain, hash, position) packed in 64
//          bits, unique, for a plain sort;
//   tier 2 (gain bits <= gain_bits): (gmax - gain, hash), for a stable argsort (ties: position);
//   tier 3: the hash alone (the launcher sorts by hash, then stably by gain).
// Writes stats L, TIER and LBITS (bits of a position: L <= 2^LBITS). `unlock` (non-NULL when
// step 1 visited the boundary vertices only): every vertex's lock is cleared.
extern "C" __global__ void jet_compact(long long n, const int *flag, const int *pos, const long long *gain,
                                       long long seed, long long iteration, int pack_bits, int gain_bits,
                                       long long *stats, int *cand, igp_u64 *key, signed char *unlock) {
    const long long L = pos[n - 1];
    const long long gmax = stats[JS_GMAX];
    const igp_u64 range = L ? (igp_u64)gmax - (igp_u64)stats[JS_GMIN] : 0;
    const int gbits = jet_bits(range), lbits = L > 1 ? jet_bits((igp_u64)(L - 1)) : 0;
    const int tier = gbits + 32 + lbits <= pack_bits ? 1 : gbits <= gain_bits && gbits <= 32 ? 2 : 3;
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        if (unlock) unlock[u] = 0;  // boundary step 1: locks of vertices it did not visit end too
        if (!flag[u]) continue;
        const long long p = pos[u] - 1;
        cand[p] = (int)u;
        const igp_u64 h = igp::jet_hash(seed, iteration, u), d = (igp_u64)gmax - (igp_u64)gain[u];
        if (tier == 1) {
            const int shift = 32 + lbits;  // shift == 64 only when d == 0
            key[p] = (shift < 64 ? d << shift : 0) | (h << lbits) | (igp_u64)p;
        } else {
            key[p] = tier == 2 ? (d << 32) | h : h;
        }
    }
    if (igp_tid() == 0) {
        stats[JS_L] = L;
        stats[JS_TIER] = tier;
        stats[JS_LBITS] = lbits;
    }
}

// Candidates in priority order: cand_s[i] = cand[j] with j = order[i] (order non-NULL) or the
// position bits of the sorted tier-1 key skey[i]; rank[cand_s[i]] = i; the destination keys
// dkey[i] = (target << lbits) | i (32-bit when dkey32) for the balance step's sort. Zeroes the
// balance outflows `outs` (nouts entries) and stats MOVED and CHANGED.
extern "C" __global__ void jet_rank(long long L, const int *cand, const igp_u64 *skey, const long long *order,
                                    int lbits, const int *target, int dkey32, igp_u64 *dkey,
                                    int *rank, int *cand_s, long long nouts, long long *outs,
                                    long long *stats) {
    const igp_u64 mask = lbits >= 64 ? ~0ULL : (1ULL << lbits) - 1;
    for (long long i = igp_tid(); i < L; i += igp_nthreads()) {
        const long long j = order ? order[i] : (long long)(skey[i] & mask);
        const int c = cand[j];
        cand_s[i] = c;
        rank[c] = (int)i;  // i < L <= n < IGP_INT_MAX, the rank of a non-candidate
        const igp_u64 dk = ((igp_u64)target[c] << lbits) | (igp_u64)i;
        if (dkey32)
            ((unsigned int *)dkey)[i] = (unsigned int)dk;
        else
            dkey[i] = dk;
    }
    for (long long i = igp_tid(); i < nouts; i += igp_nthreads()) outs[i] = 0;
    if (igp_tid() == 0) {
        stats[JS_MOVED] = 0;
        stats[JS_CHANGED] = 0;
    }
}

// Step 3 setup: the moves sorted by (destination, priority) (sorted destination keys dkey): per
// sorted slot q the vertex u_s, destination to_s, source from_s, weight w_s, active flag act =
// the afterburner's keep and x = w_s * act; first[b] = the first slot of destination b; out0 = the
// active outflow of every block.
extern "C" __global__ void jet_balance_setup(long long L, const igp_u64 *dkey, int dkey32, int lbits,
                                             const int *cand_s, const signed char *keep, const int *parts,
                                             const long long *vwgt, int k, int use_shared, int *u_s,
                                             int *to_s, int *from_s, long long *w_s, signed char *act,
                                             long long *x, long long *first, long long *out0) {
    extern __shared__ long long sh[];
    long long *hist = jet_hist_begin(sh, use_shared, out0, k);
    for (long long q0 = igp_tid() - igp_lane(); q0 < L; q0 += igp_nthreads()) {  // warp-uniform
        const long long q = q0 + igp_lane();
        const bool valid = q < L;
        int f = 0;
        long long xv = 0;
        if (valid) {
            jet_setup_slot(q, dkey, dkey32, lbits, cand_s, keep, parts, vwgt, u_s, to_s, from_s, w_s,
                           act, first, f, xv);
            x[q] = xv;
        }
        jet_hist_add(hist, k, f, xv);
    }
    jet_hist_end(sh, use_shared, out0, k);
}

// One balance pass (cpu/jet.cpp pass(true)) over the sorted moves: act[q] &= jet_accept with the
// inflow from the prefix `cs` of x and the outflow `out`; x = w_s * act for the next pass, whose
// outflow this pass adds into out_next.
extern "C" __global__ void jet_accept_pass(long long L, const int *to_s, const int *from_s,
                                           const long long *w_s, const long long *cs,
                                           const long long *first, const long long *bw,
                                           const long long *out, const long long *bounds, int k,
                                           int use_shared, signed char *act, long long *x,
                                           long long *out_next) {
    extern __shared__ long long sh[];
    long long *hist = jet_hist_begin(sh, use_shared, out_next, k);
    for (long long q0 = igp_tid() - igp_lane(); q0 < L; q0 += igp_nthreads()) {  // warp-uniform
        const long long q = q0 + igp_lane();
        const bool valid = q < L;
        int f = 0;
        long long xv = 0;
        if (valid) {
            const int b = to_s[q];
            const bool a = act[q] && igp::jet_accept(bw[b], out[b], jet_inflow(cs, first, b, q), bounds[b]);
            act[q] = a;
            f = from_s[q];
            xv = a ? w_s[q] : 0;
            x[q] = xv;
        }
        jet_hist_add(hist, k, f, xv);
    }
    jet_hist_end(sh, use_shared, out_next, k);
}

// The final check (cpu/jet.cpp: ok = active; if (pass(true)) { active = ok; pass(false); }):
// stats CHANGED = 1 when a pass with the outflow `out` would still reject a move; safe[q] = the
// moves a pass without outflow credit accepts.
extern "C" __global__ void jet_check_pass(long long L, const int *to_s, const long long *cs,
                                          const long long *first, const long long *bw,
                                          const long long *out, const long long *bounds,
                                          const signed char *act, signed char *safe, long long *stats) {
    for (long long q = igp_tid(); q < L; q += igp_nthreads()) {
        const int b = to_s[q];
        const long long inflow = jet_inflow(cs, first, b, q);
        const bool a = act[q] != 0;
        safe[q] = a && igp::jet_accept(bw[b], 0, inflow, bounds[b]);
        if (a && !igp::jet_accept(bw[b], out[b], inflow, bounds[b])) stats[JS_CHANGED] = 1;
    }
}

// Applies the accepted moves (safe when stats CHANGED, else act): parts, block weights bw, locks
// (the candidate kernel cleared the others), stats MOVED; resets the candidates' rank; zeroes
// stats OBJ (jet_rebuild adds into it) and resets the gain range for the next iteration.
extern "C" __global__ void jet_apply(long long L, const int *u_s, const int *to_s, const int *from_s,
                                     const long long *w_s, const signed char *act,
                                     const signed char *safe, int k, int use_shared, int *parts,
                                     signed char *locked, int *rank, long long *bw,
                                     long long *stats) {
    extern __shared__ long long sh[];
    __shared__ long long moved;
    if (threadIdx.x == 0) moved = 0;
    long long *hist = jet_hist_begin(sh, use_shared, bw, k);  // syncs the block
    if (!use_shared) __syncthreads();
    const bool changed = stats[JS_CHANGED] != 0;
    for (long long q0 = igp_tid() - igp_lane(); q0 < L; q0 += igp_nthreads()) {  // warp-uniform
        const long long q = q0 + igp_lane();
        const bool valid = q < L;
        int f = 0, t = 0;
        long long w = 0;
        const bool a = valid && jet_apply_slot(q, changed, u_s, to_s, from_s, w_s, act, safe, parts,
                                              locked, rank, f, t, w);
        jet_hist_add(hist, k, t, w);
        jet_hist_add(hist, k, f, -w);
        const long long cnt = igp_warp_sum(a ? 1 : 0);
        if (igp_lane() == 0 && cnt) atomicAdd((unsigned long long *)&moved, (unsigned long long)cnt);
    }
    jet_hist_end(sh, use_shared, bw, k);
    __syncthreads();
    if (threadIdx.x == 0 && moved) igp_atomic_add(stats + JS_MOVED, moved);
    if (igp_tid() == 0) {
        stats[JS_OBJ] = 0;
        stats[JS_GMIN] = kI64Max;
        stats[JS_GMAX] = -kI64Max - 1;
    }
}

// Pin counts of every net (refine.cu build_phi) and the objective, added into stats OBJ; nets of
// more than long_min pins are left to refine.cu build_phi_long.
extern "C" __global__ void jet_rebuild(long long m, const long long *eptr, const int *eind,
                                       const long long *ewgt, const int *parts, int objective, int *lam,
                                       int *pblk, int *pcnt, long long *stats, long long long_min) {
    long long acc = 0;
    for (long long e = igp_tid(); e < m; e += igp_nthreads()) {
        if (eptr[e + 1] - eptr[e] > long_min) continue;
        const int L = igp_build_phi_net(eptr[e], eptr[e + 1], eind, parts, pblk, pcnt);
        lam[e] = L;
        acc += igp_net_objective(objective, ewgt[e], L);
    }
    acc = igp_warp_sum(acc);
    if (igp_lane() == 0 && acc) igp_atomic_add(stats + JS_OBJ, acc);
}

namespace {

// Exclusive prefix over the block of every thread's v (blockDim.x a multiple of 32, at most
// 1024; every thread calls it); `tot` is 32 words of shared scratch.
__device__ __forceinline__ long long jet_block_exclusive_scan(long long v, long long *tot) {
    const int lane = igp_lane(), warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    long long inc = v;
    for (int o = 1; o < 32; o <<= 1) {
        const long long y = __shfl_up_sync(IGP_FULL_MASK, inc, o);
        if (lane >= o) inc += y;
    }
    if (lane == 31) tot[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        long long t = lane < nw ? tot[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            const long long y = __shfl_up_sync(IGP_FULL_MASK, t, o);
            if (lane >= o) t += y;
        }
        if (lane < nw) tot[lane] = t;  // inclusive over warps
    }
    __syncthreads();
    const long long before = warp ? tot[warp - 1] : 0;
    __syncthreads();  // tot is reused by the next call
    return before + inc - v;
}

// Moves the block's shared histogram sh (k entries) into global row dst (stored when `store`,
// else added) and zeroes it; every thread calls it.
__device__ __forceinline__ void jet_hist_flush(long long *sh, int use_shared, long long *dst, int k,
                                               bool store) {
    if (!use_shared) {
        __syncthreads();
        return;
    }
    __syncthreads();
    for (int b = threadIdx.x; b < k; b += blockDim.x) {
        if (store)
            dst[b] = sh[b];
        else if (sh[b])
            igp_atomic_add(dst + b, sh[b]);
        sh[b] = 0;
    }
    __syncthreads();
}

}  // namespace

// Step 3 and the application in one block, for a small candidate set: jet_balance_setup, the
// balance_rounds passes of jet_accept_pass, jet_check_pass and jet_apply, in the same order with
// block scans instead of the prefix sums between launches. Thread t owns the contiguous sorted
// slots [t * per, (t + 1) * per). `outs` ((rounds + 1) * k) was zeroed by jet_rank.
extern "C" __global__ void jet_balance_small(long long L, const igp_u64 *dkey, int dkey32, int lbits,
                                             const int *cand_s, const signed char *keep,
                                             const long long *vwgt, const long long *bounds, int k,
                                             int rounds, int use_shared, int *parts,
                                             signed char *locked, int *rank, long long *bw,
                                             int *u_s, int *to_s, int *from_s, long long *w_s,
                                             signed char *act, signed char *safe, long long *cs,
                                             long long *first, long long *outs, long long *stats) {
    extern __shared__ long long sh[];
    __shared__ long long tot[32];
    __shared__ int changed;
    __shared__ long long moved;
    if (threadIdx.x == 0) {
        changed = 0;
        moved = 0;
    }
    if (use_shared)
        for (int b = threadIdx.x; b < k; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    const long long per = (L + blockDim.x - 1) / blockDim.x, lo = threadIdx.x * per;
    long long *hist = use_shared ? sh : outs;
    for (long long j = 0; j < per; ++j) {  // setup (block-uniform trip count)
        const long long q = lo + j;
        int f = 0;
        long long xv = 0;
        if (q < L)
            jet_setup_slot(q, dkey, dkey32, lbits, cand_s, keep, parts, vwgt, u_s, to_s, from_s, w_s,
                           act, first, f, xv);
        jet_hist_add(hist, k, f, xv);
    }
    jet_hist_flush(sh, use_shared, outs, k, true);
    for (int r = 0; r <= rounds; ++r) {  // r == rounds: the final check
        long long s = 0;
        for (long long q = lo; q < lo + per && q < L; ++q) s += act[q] ? w_s[q] : 0;
        long long run = jet_block_exclusive_scan(s, tot);
        for (long long q = lo; q < lo + per && q < L; ++q) {
            run += act[q] ? w_s[q] : 0;
            cs[q] = run;
        }
        __syncthreads();
        const long long *out = outs + (long long)r * k;
        long long *next = use_shared ? sh : outs + (long long)(r + 1) * k;
        for (long long j = 0; j < per; ++j) {
            const long long q = lo + j;
            int f = 0;
            long long xv = 0;
            if (q < L) {
                const int b = to_s[q];
                const long long inflow = jet_inflow(cs, first, b, q);
                const bool a = act[q] != 0;
                if (r < rounds) {
                    const bool ok = a && igp::jet_accept(bw[b], out[b], inflow, bounds[b]);
                    act[q] = ok;
                    f = from_s[q];
                    xv = ok ? w_s[q] : 0;
                } else {
                    safe[q] = a && igp::jet_accept(bw[b], 0, inflow, bounds[b]);
                    if (a && !igp::jet_accept(bw[b], out[b], inflow, bounds[b])) changed = 1;
                }
            }
            if (r < rounds) jet_hist_add(next, k, f, xv);
        }
        if (r < rounds)
            jet_hist_flush(sh, use_shared, outs + (long long)(r + 1) * k, k, true);
        else
            __syncthreads();
    }
    hist = use_shared ? sh : bw;
    for (long long j = 0; j < per; ++j) {  // apply
        const long long q = lo + j;
        int f = 0, t = 0;
        long long w = 0;
        const bool a = q < L && jet_apply_slot(q, changed, u_s, to_s, from_s, w_s, act, safe, parts,
                                              locked, rank, f, t, w);
        jet_hist_add(hist, k, t, w);
        jet_hist_add(hist, k, f, -w);
        const long long cnt = igp_warp_sum(a ? 1 : 0);
        if (igp_lane() == 0 && cnt) atomicAdd((unsigned long long *)&moved, (unsigned long long)cnt);
    }
    jet_hist_flush(sh, use_shared, bw, k, false);
    if (threadIdx.x == 0) {
        stats[JS_MOVED] = moved;
        stats[JS_OBJ] = 0;
        stats[JS_GMIN] = kI64Max;
        stats[JS_GMAX] = -kI64Max - 1;
    }
}
