// Label propagation on graphs in few launches per round (igpart/kernels/gpu/_graph_lp_async.py):
// every vertex of a round chooses against the labels before the round (one kernel; rows longer
// than LP_SHORT by a block each), then the choices are applied by a thread each, the weight
// bounds reserved by atomic additions, so the bounds hold whatever the order of the threads
// (which decides which of the competing moves get the room: the result is not deterministic).
#include "igpart_gpu.cuh"

// Rows of at most this many entries are chosen by one thread over a local copy of the row.
#define LP_SHORT 32
// Distinct labels a long row's block keeps in shared memory (more: the rest are not candidates;
// the connection to the own label is summed apart, so gains stay exact), and the slots an entry
// probes before it is left out (so a row of many more distinct labels costs a bounded amount per
// entry once the table is full).
#define LP_SLOTS 1024
#define LP_PROBES 32

__device__ __forceinline__ long long lp_atomic_add(long long *p, long long v) {
    return (long long)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}

// A candidate label and how it ranks: higher connection, then (balance) the lighter label, then
// the smaller hash, then the smaller label. label < 0: none.
struct LpBest {
    int label;
    long long conn, wl, h;
};

__device__ __forceinline__ bool lp_better(const LpBest &a, const LpBest &b) {
    if (a.label < 0) return false;
    if (b.label < 0) return true;
    if (a.conn != b.conn) return a.conn > b.conn;
    if (a.wl != b.wl) return a.wl < b.wl;
    if (a.h != b.h) return a.h < b.h;
    return a.label < b.label;
}

__device__ __forceinline__ long long lp_bound(const long long *bound, long long bound_all, int l) {
    return bound ? bound[l] : bound_all;
}

// The proposal of vertex u once its best label (best, or none) and its connection to its own
// label are known: clustering (bound == NULL) proposes moves of positive gain; refinement also
// moves of gain 0 that leave the target lighter than u's own block. Writes choice[u] (-1: none)
// and gain[u]; a clustering mover out of a lone cluster is its owner (owner[own] = u), and its
// target is marked chosen.
__device__ __forceinline__ void lp_propose(long long u, int mine, const LpBest &best,
                                           long long own, const long long *weight,
                                           const long long *bound, long long wu, const int *size,
                                           int *choice, long long *gain, unsigned char *chosen,
                                           int *owner) {
    const long long g = best.conn - own;
    bool go = best.label >= 0 && g > 0;
    if (bound && best.label >= 0 && g == 0) go = weight[best.label] + wu < weight[mine];
    choice[u] = go ? best.label : -1;
    gain[u] = g;
    if (go && chosen) {
        chosen[best.label] = 1;
        if (size[mine] == 1) owner[mine] = (int)u;
    }
}

// Phase 1 for the rows of at most LP_SHORT entries: thread per vertex. active (may be NULL):
// the vertices that choose this round; the others propose nothing. Labels with weight[l] + wu
// > bound (bound[l], else bound_all) are no candidates; balance ranks lighter labels first.
extern "C" __global__ void lp_choose_short(long long n, const long long *xadj, const int *adjncy,
                                           const long long *adjwgt, const long long *vwgt,
                                           const int *label, const long long *weight,
                                           const long long *bound, long long bound_all,
                                           int balance, const unsigned char *active,
                                           const int *size, unsigned long long seed,
                                           int *choice, long long *gain, unsigned char *chosen,
                                           int *owner) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const long long b = xadj[u], e = xadj[u + 1];
        if (e - b > LP_SHORT) continue;  // lp_choose_long
        if (active && !active[u]) {
            choice[u] = -1;
            continue;
        }
        int labs[LP_SHORT];
        long long sums[LP_SHORT];
        int m = 0;
        for (long long j = b; j < e; ++j) {
            const int l = label[adjncy[j]];
            int i = 0;
            while (i < m && labs[i] != l) ++i;
            if (i == m) {
                labs[m] = l;
                sums[m++] = adjwgt[j];
            } else {
                sums[i] += adjwgt[j];
            }
        }
        const int mine = label[u];
        const long long wu = vwgt[u];
        long long own = 0;
        LpBest best = {-1, 0, 0, 0};
        for (int i = 0; i < m; ++i) {
            const int l = labs[i];
            if (l == mine) {
                own = sums[i];
                continue;
            }
            if (weight[l] + wu > lp_bound(bound, bound_all, l)) continue;
            const LpBest c = {l, sums[i], balance ? weight[l] : 0, igp_tie_hash(u, l, seed)};
            if (lp_better(c, best)) best = c;
        }
        lp_propose(u, mine, best, own, weight, bound, wu, size, choice, gain, chosen, owner);
    }
}

// Phase 1 for the rows longer than LP_SHORT (rows: their vertices): a block per row, the
// connections summed in a shared-memory table of LP_SLOTS labels.
extern "C" __global__ void lp_choose_long(long long nrows, const long long *rows,
                                          const long long *xadj, const int *adjncy,
                                          const long long *adjwgt, const long long *vwgt,
                                          const int *label, const long long *weight,
                                          const long long *bound, long long bound_all,
                                          int balance, const unsigned char *active,
                                          const int *size, unsigned long long seed, int *choice,
                                          long long *gain, unsigned char *chosen, int *owner) {
    __shared__ int keys[LP_SLOTS];
    __shared__ long long sums[LP_SLOTS];
    __shared__ LpBest red[IGP_BLOCK_THREADS];
    __shared__ long long own_red[IGP_BLOCK_THREADS];
    for (long long r = blockIdx.x; r < nrows; r += gridDim.x) {
        const long long u = rows[r];
        if (active && !active[u]) {
            if (threadIdx.x == 0) choice[u] = -1;
            continue;  // uniform over the block
        }
        for (int s = threadIdx.x; s < LP_SLOTS; s += blockDim.x) {
            keys[s] = -1;
            sums[s] = 0;
        }
        __syncthreads();
        const int mine = label[u];
        long long own = 0;
        for (long long j = xadj[u] + threadIdx.x; j < xadj[u + 1]; j += blockDim.x) {
            const int l = label[adjncy[j]];
            if (l == mine) {
                own += adjwgt[j];
                continue;
            }
            unsigned int h = (unsigned int)l * 2654435761u;
            for (int p = 0; p < LP_PROBES; ++p) {
                const int s = (int)((h + (unsigned int)p) & (LP_SLOTS - 1));
                const int k = atomicCAS(&keys[s], -1, l);
                if (k == -1 || k == l) {
                    atomicAdd((unsigned long long *)&sums[s], (unsigned long long)adjwgt[j]);
                    break;
                }
            }
        }
        __syncthreads();
        const long long wu = vwgt[u];
        LpBest best = {-1, 0, 0, 0};
        for (int s = threadIdx.x; s < LP_SLOTS; s += blockDim.x) {
            const int l = keys[s];
            if (l < 0 || weight[l] + wu > lp_bound(bound, bound_all, l)) continue;
            const LpBest c = {l, sums[s], balance ? weight[l] : 0, igp_tie_hash(u, l, seed)};
            if (lp_better(c, best)) best = c;
        }
        red[threadIdx.x] = best;
        own_red[threadIdx.x] = own;
        __syncthreads();
        for (int o = blockDim.x / 2; o > 0; o >>= 1) {
            if (threadIdx.x < o) {
                if (lp_better(red[threadIdx.x + o], red[threadIdx.x]))
                    red[threadIdx.x] = red[threadIdx.x + o];
                own_red[threadIdx.x] += own_red[threadIdx.x + o];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0)
            lp_propose(u, mine, red[0], own_red[0], weight, bound, wu, size, choice, gain, chosen,
                       owner);
        __syncthreads();
    }
}

// Phase 2 of the clustering: the proposals applied. A lone mover whose cluster is the target of
// another proposal stays, to be joined, except that of two lone vertices choosing each other the
// larger id moves. The target's weight is reserved atomically within mcw; a move that empties a
// lone cluster first takes one from counters[0] (the clusters' number, never below
// min_clusters). counters[1] counts the moves; the movers' neighbours, and the proposers that
// stayed or found their target full, are marked next_active.
extern "C" __global__ void lp_cluster_apply(long long n, const long long *xadj, const int *adjncy,
                                            const long long *vwgt, int *label, long long *cw,
                                            int *size, long long mcw, const int *choice,
                                            const unsigned char *chosen, const int *owner,
                                            long long min_clusters, long long *counters,
                                            unsigned char *next_active) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const int to = choice[u];
        if (to < 0) continue;
        const int mine = label[u];  // written by its own thread only
        const bool lone = owner[mine] == (int)u;
        if (lone && chosen[mine]) {
            const int o = owner[to];
            const bool mutual = o >= 0 && choice[o] == mine;
            if (!(mutual && u > o)) {
                next_active[u] = 1;  // to be joined, or to choose again
                continue;
            }
        }
        const long long w = vwgt[u];
        if (lp_atomic_add(cw + to, w) + w > mcw) {
            lp_atomic_add(cw + to, -w);
            next_active[u] = 1;  // the target filled up this round: choose again
            continue;
        }
        if (lone && lp_atomic_add(counters, -1) - 1 < min_clusters) {
            lp_atomic_add(counters, 1);
            lp_atomic_add(cw + to, -w);
            continue;
        }
        label[u] = to;
        lp_atomic_add(cw + mine, -w);
        atomicAdd(size + to, 1);
        if (atomicSub(size + mine, 1) == 1 && !lone) lp_atomic_add(counters, -1);
        lp_atomic_add(counters + 1, 1);
        for (long long j = xadj[u]; j < xadj[u + 1]; ++j) {
            const int v = adjncy[j];
            if (!next_active[v]) next_active[v] = 1;
        }
    }
}

// The afterburner of the refinement: per proposal of u, its gain once the proposals of higher
// priority among its neighbours (gain descending, then hash of (v, choice), then id) are applied;
// target[u] = choice[u] where that gain is positive (0 for a move of gain 0), else -1.
// lp_filter_row sums the row from entry `first` on in steps of `step` (a thread or a warp's
// lanes).
__device__ __forceinline__ long long lp_filter_row(long long u, int to, long long first,
                                                   long long step, const long long *xadj,
                                                   const int *adjncy, const long long *adjwgt,
                                                   const int *parts, const int *choice,
                                                   const long long *gain,
                                                   unsigned long long seed) {
    const int f = parts[u];
    const long long gu = gain[u], hu = igp_tie_hash(u, to, seed);
    long long s = 0;
    for (long long j = xadj[u] + first; j < xadj[u + 1]; j += step) {
        const int v = adjncy[j];
        int bv = parts[v];
        const int cv = choice[v];
        if (cv >= 0) {
            const long long gv = gain[v];
            bool before = gv > gu;
            if (gv == gu) {
                const long long hv = igp_tie_hash(v, cv, seed);
                before = hv < hu || (hv == hu && v < u);
            }
            if (before) bv = cv;
        }
        if (bv == to) s += adjwgt[j];
        if (bv == f) s -= adjwgt[j];
    }
    return s;
}

// lp_filter_row for the rows of at most LP_SHORT entries, a thread each.
extern "C" __global__ void lp_refine_filter(long long n, const long long *xadj, const int *adjncy,
                                            const long long *adjwgt, const int *parts,
                                            const int *choice, const long long *gain,
                                            unsigned long long seed, int *target) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        if (xadj[u + 1] - xadj[u] > LP_SHORT) continue;  // lp_refine_filter_long
        const int to = choice[u];
        if (to < 0) {
            target[u] = -1;
            continue;
        }
        const long long s =
            lp_filter_row(u, to, 0, 1, xadj, adjncy, adjwgt, parts, choice, gain, seed);
        target[u] = (s > 0 || (s == 0 && gain[u] == 0)) ? to : -1;
    }
}

// lp_filter_row for the rows longer than LP_SHORT (rows: their vertices), a warp each.
extern "C" __global__ void lp_refine_filter_long(long long nrows, const long long *rows,
                                                 const long long *xadj, const int *adjncy,
                                                 const long long *adjwgt, const int *parts,
                                                 const int *choice, const long long *gain,
                                                 unsigned long long seed, int *target) {
    const int lane = igp_lane();
    for (long long r = igp_warp(); r < nrows; r += igp_nwarps()) {
        const long long u = rows[r];
        const int to = choice[u];
        if (to < 0) {
            if (lane == 0) target[u] = -1;
            continue;
        }
        long long s =
            lp_filter_row(u, to, lane, 32, xadj, adjncy, adjwgt, parts, choice, gain, seed);
        s = igp_warp_sum(s);
        if (lane == 0) target[u] = (s > 0 || (s == 0 && gain[u] == 0)) ? to : -1;
    }
}

// Phase 2 of the refinement: the filtered moves applied. An arrival is reserved atomically in
// arr[] and admitted while bw + arr - dep (bw: the weights before the round; dep: the departures
// so far, recorded only once the mover's arrival is admitted) stays within the bound, so a full
// block can take a vertex for each one that left it; the last admitted arrival of a block saw
// every admitted arrival before it and at most the departures there are, so the bounds hold
// whatever the order. A move of gain 0 also needs the target, after it, lighter than its source
// before it (counting the round's moves so far). from[u] and moved[u] record the move; the
// movers and their neighbours are marked next_active, and so are the proposers whose target was
// full; counters[1] counts the moves. (Undoing a round, lp_refine_revert, returns to the
// weights before it.) Launched again, it retries the moves not applied yet, against the room
// the departures of the passes before freed.
extern "C" __global__ void lp_refine_apply(long long n, const long long *xadj, const int *adjncy,
                                           const long long *vwgt, int *parts, const int *target,
                                           const long long *gain, const long long *bw,
                                           const long long *bound, long long *arr, long long *dep,
                                           int *from, unsigned char *moved, long long *counters,
                                           unsigned char *next_active) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const int to = target[u];
        if (to < 0 || moved[u]) continue;  // moved by an earlier pass of the round
        const int f = parts[u];
        const long long w = vwgt[u];
        const long long a = lp_atomic_add(arr + to, w) + w;
        const long long t_after = bw[to] + a - dep[to];
        bool ok = t_after <= bound[to];
        if (ok && gain[u] == 0) ok = t_after < bw[f] + arr[f] - dep[f];
        if (!ok) {
            lp_atomic_add(arr + to, -w);
            next_active[u] = 1;
            continue;
        }
        lp_atomic_add(dep + f, w);
        parts[u] = to;
        from[u] = f;
        moved[u] = 1;
        lp_atomic_add(counters + 1, 1);
        if (!next_active[u]) next_active[u] = 1;
        for (long long j = xadj[u]; j < xadj[u + 1]; ++j) {
            const int v = adjncy[j];
            if (!next_active[v]) next_active[v] = 1;
        }
    }
}

// The exact edge-cut reduction of the round's moves, added to *delta: over the movers' rows,
// an edge to a vertex that stayed once, an edge between two movers from its smaller end.
// lp_delta_row sums the row of mover u from entry `first` on in steps of `step`.
__device__ __forceinline__ long long lp_delta_row(long long u, long long first, long long step,
                                                  const long long *xadj, const int *adjncy,
                                                  const long long *adjwgt, const int *parts,
                                                  const int *from, const unsigned char *moved) {
    const int fu = from[u], pu = parts[u];
    long long s = 0;
    for (long long j = xadj[u] + first; j < xadj[u + 1]; j += step) {
        const int v = adjncy[j];
        const bool mv = moved[v];
        if (mv && v < u) continue;
        const int before = mv ? from[v] : parts[v];
        s += adjwgt[j] * ((long long)(fu != before) - (long long)(pu != parts[v]));
    }
    return s;
}

__device__ __forceinline__ void lp_block_add(long long s, long long *out) {
    __shared__ long long part[IGP_BLOCK_THREADS / 32];
    s = igp_warp_sum(s);
    if (igp_lane() == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0;
        s = igp_warp_sum(s);
        if (threadIdx.x == 0 && s) lp_atomic_add(out, s);
    }
}

// The movers of rows of at most LP_SHORT entries, a thread each.
extern "C" __global__ void lp_refine_delta(long long n, const long long *xadj, const int *adjncy,
                                           const long long *adjwgt, const int *parts,
                                           const int *from, const unsigned char *moved,
                                           long long *delta) {
    long long s = 0;
    for (long long u = igp_tid(); u < n; u += igp_nthreads())
        if (moved[u] && xadj[u + 1] - xadj[u] <= LP_SHORT)
            s += lp_delta_row(u, 0, 1, xadj, adjncy, adjwgt, parts, from, moved);
    lp_block_add(s, delta);
}

// The movers among the rows longer than LP_SHORT (rows: their vertices), a warp each.
extern "C" __global__ void lp_refine_delta_long(long long nrows, const long long *rows,
                                                const long long *xadj, const int *adjncy,
                                                const long long *adjwgt, const int *parts,
                                                const int *from, const unsigned char *moved,
                                                long long *delta) {
    long long s = 0;
    for (long long r = igp_warp(); r < nrows; r += igp_nwarps()) {
        const long long u = rows[r];
        if (moved[u])
            s += lp_delta_row(u, igp_lane(), 32, xadj, adjncy, adjwgt, parts, from, moved);
    }
    lp_block_add(s, delta);
}

// One block: where the round lowered the cut or kept it (*delta >= 0) its weights are taken
// (bw += arr - dep) and *delta added to *total, else *revert is set (lp_refine_revert undoes the
// moves); arr, dep and *delta are cleared for the next round.
extern "C" __global__ void lp_refine_finish(int k, long long *bw, long long *arr, long long *dep,
                                            long long *delta, long long *total, int *revert) {
    const long long d = *delta;
    __syncthreads();
    for (int b = threadIdx.x; b < k; b += blockDim.x) {
        if (d >= 0) bw[b] += arr[b] - dep[b];
        arr[b] = 0;
        dep[b] = 0;
    }
    if (threadIdx.x == 0) {
        if (d >= 0) *total += d;
        *revert = d < 0;
        *delta = 0;
    }
}

// The moves of a round that raised the cut, undone (a no-op unless *revert).
extern "C" __global__ void lp_refine_revert(long long n, const int *revert, int *parts,
                                            const int *from, const unsigned char *moved) {
    if (!*revert) return;
    for (long long u = igp_tid(); u < n; u += igp_nthreads())
        if (moved[u]) parts[u] = from[u];
}
