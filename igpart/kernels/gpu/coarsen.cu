// Coarsening kernels: HyperG balanced group coarsening (warp-per-vertex rating with
// __reduce_max_sync, atomicMax group combinations, subgroup breakdown) and G-kway union-find
// coarsening (edge scores, atomicMax on mirrored ids = atomicMin on subset ids).
#include "igpart_gpu.cuh"

namespace {

struct Rated {
    double score;
    long long w;
    unsigned int h;
    int v;
};

__device__ __forceinline__ bool rated_better(const Rated &a, const Rated &b) {
    if (a.v < 0) return false;
    if (b.v < 0) return true;
    if (a.score != b.score || a.w != b.w || a.h != b.h)
        return igp::rating_better(a.score, a.w, a.h, b.score, b.w, b.h);
    return a.v < b.v;
}

// Warp arg-max of ratings. __reduce_max_sync on the float bits of the (positive) scores drops
// every lane that cannot win (float rounding is monotone), then a butterfly decides exactly.
__device__ __forceinline__ Rated warp_best(Rated r) {
    const unsigned int key = r.v >= 0 ? __float_as_uint((float)r.score) : 0u;
    const unsigned int top = __reduce_max_sync(IGP_FULL_MASK, key);
    if (key < top) r.v = -1;
    for (int o = 16; o > 0; o >>= 1) {
        Rated q;
        q.score = __shfl_xor_sync(IGP_FULL_MASK, r.score, o);
        q.w = __shfl_xor_sync(IGP_FULL_MASK, r.w, o);
        q.h = __shfl_xor_sync(IGP_FULL_MASK, r.h, o);
        q.v = __shfl_xor_sync(IGP_FULL_MASK, r.v, o);
        if (rated_better(q, r)) r = q;
    }
    return r;
}

}  // namespace

namespace {

// Rating accumulators are fixed point: a net of weight w and s pins adds (w << shift) / (s - 1)
// (integer division; shift from the host so that the level's total net weight << shift stays
// below 2^62), so a pair's rating does not depend on the order its nets are summed in. The
// C++ backend sums the same terms as doubles (igp::rating_term).
__device__ __forceinline__ igp_u64 rating_fixed(long long w, long long size, int shift) {
    return ((igp_u64)w << shift) / (igp_u64)(size - 1);
}

// best_neighbour's path for vertices of at most 32 rated pins (1; 0: the general path only,
// for comparisons). H200, 2026-11-26, one clustering of the finest level of ibm01x200 /
// ibm09x100 (medians of 4, the same clusters): 8.99 / 20.9 ms against 9.47 / 22.8 ms, the
// communities' clustering 13.0 / 28.2 against 13.7 / 30.9 ms.
#ifndef IGP_RATE_SMALL
#define IGP_RATE_SMALL 1
#endif

// The most nets a vertex may be on and still choose a cluster (best_neighbour): far above any
// circuit's vertex (Titan23's busiest walk 5,412 pins), below a hub of a graph's 2-pin nets;
// about what the largest heavy table (rating_heavy_slots 65,536) rates in one pass of 2-pin nets.
#ifndef IGP_RATE_MAX_NETS
#define IGP_RATE_MAX_NETS 16384
#endif

// Slots of a warp's hash table of neighbour ratings (shared memory, a power of two).
#define IGP_RATE_BITS 8
#define IGP_RATE_SLOTS (1 << IGP_RATE_BITS)

// The per-warp scratch of the rating kernels: net offsets and terms of a chunk of 32 nets, and
// a table of IGP_RATE_SLOTS (neighbour, rating) entries, kept cleared between vertices.
struct RateScratch {
    long long offs[IGP_BLOCK_THREADS];
    igp_u64 terms[IGP_BLOCK_THREADS];
    int key[(IGP_BLOCK_THREADS / 32) * IGP_RATE_SLOTS];
    igp_u64 val[(IGP_BLOCK_THREADS / 32) * IGP_RATE_SLOTS];
};

// The scratch one warp rates with: its chunk's offsets and terms, and a table of 2^bits
// (neighbour, rating) slots, bits <= max_bits (the warp's shared slice of RateScratch, or for
// the heavy kernels a slice of a table in global memory).
struct RateTable {
    long long *off;
    igp_u64 *term;
    int *key;
    igp_u64 *val;
    int max_bits;
    long long sample;  // > 0: nets of more pins are walked through a window of this many
};

__device__ __forceinline__ RateTable shared_table(RateScratch &sc, long long sample) {
    const int wid = threadIdx.x >> 5;
    return {sc.offs + (threadIdx.x & ~31), sc.terms + (threadIdx.x & ~31),
            sc.key + wid * IGP_RATE_SLOTS, sc.val + wid * IGP_RATE_SLOTS, IGP_RATE_BITS, sample};
}

// The chunk scratch of the heavy kernels, whose tables live in global memory.
struct RateChunks {
    long long offs[IGP_BLOCK_THREADS];
    igp_u64 terms[IGP_BLOCK_THREADS];
};

// The warp's slice of a heavy kernel's tables: table igp_warp() of 2^max_bits slots each.
__device__ __forceinline__ RateTable global_table(RateChunks &sc, int *gkey, igp_u64 *gval,
                                                  int max_bits, long long sample) {
    const long long at = igp_warp() << max_bits;
    return {sc.offs + (threadIdx.x & ~31), sc.terms + (threadIdx.x & ~31), gkey + at, gval + at,
            max_bits, sample};
}

// Rating windows (RateTable::sample > 0): vertex u rates the neighbours it has through a net e
// of more than `sample` pins among `sample` consecutive pins of e (cyclically), from position
// tie_hash(IGP_WINDOW_SALT, u, e) mod |e| on, each with e's full term w_e / (|e| - 1). The start
// depends on u and e only, so a vertex's ratings stay the same from round to round.
#define IGP_WINDOW_SALT 0x5A17
__device__ __forceinline__ long long window_pin(long long u, int e, long long first,
                                                long long size, long long t, long long sample) {
    if (sample <= 0 || size <= sample) return first + t;
    const long long start = igp::tie_hash(IGP_WINDOW_SALT, u, e) % (unsigned int)size;
    return first + (start + t) % size;
}

__device__ __forceinline__ void rate_scratch_clear(RateScratch &sc) {
    const int w = threadIdx.x >> 5;
    for (int i = igp_lane(); i < IGP_RATE_SLOTS; i += 32) {
        sc.key[w * IGP_RATE_SLOTS + i] = -1;
        sc.val[w * IGP_RATE_SLOTS + i] = 0;
    }
    __syncwarp();
}

// Loads the sizes (0 outside 2..max_net_size; at most sample when sample > 0: the window walked)
// of nets vind[j0 + lane] into the warp's end offsets (warp scan) and, with terms, their
// rating terms (of the full size); returns the chunk's pin total.
__device__ __forceinline__ long long load_chunk(long long j0, long long ue, const long long *eptr,
                                                const long long *ewgt, const int *vind,
                                                long long max_net_size, int shift, long long *off,
                                                igp_u64 *term, long long sample) {
    const int lane = igp_lane();
    __syncwarp();  // the previous chunk's offsets are no longer read
    long long sz = 0;
    igp_u64 tm = 0;
    if (j0 + lane < ue) {
        const int e = vind[j0 + lane];
        sz = eptr[e + 1] - eptr[e];
        if (sz < 2 || sz > max_net_size) sz = 0;
        else if (term) tm = rating_fixed(ewgt[e], sz, shift);
        if (sample > 0 && sz > sample) sz = sample;
    }
    long long inc = sz;
    for (int o = 1; o < 32; o <<= 1) {
        const long long t = __shfl_up_sync(IGP_FULL_MASK, inc, o);
        if (lane >= o) inc += t;
    }
    if (off) off[lane] = inc;
    if (term) term[lane] = tm;
    __syncwarp();
    return __shfl_sync(IGP_FULL_MASK, inc, 31);
}

// Position t of a chunk's concatenated pin lists: its net's index in the chunk (binary search
// over the end offsets).
__device__ __forceinline__ int chunk_net(const long long *off, long long t) {
    int lo = 0, hi = 31;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (off[mid] > t) hi = mid; else lo = mid + 1;
    }
    return lo;
}

// The best-rated neighbour of u (HyperG §3.1 rating, summed over the nets u and v share that
// have 2..max_net_size pins) among neighbours accepted by ok(v), which also returns the weight
// used for tie-breaking (the lighter first) through *wv. Called by the whole warp; every lane
// gets the winner.
// The warp walks the concatenated pin lists of u's nets, 32 nets at a time: lane i first takes
// net ub + i's size, a warp scan turns the sizes into end offsets, and every lane then takes
// pin positions t, t + 32, ... of the concatenation (its net by binary search over the
// offsets); most nets have a few pins, so a lane per pin of one net at a time would leave most
// of the warp idle. Each pin adds its net's term to its vertex's entry of the warp's hash table
// (the smallest power of two of 32..256 slots with at least twice as many slots as u has pins
// on its nets, so that the scan stays short), which is then scanned for the best accepted
// neighbour. A vertex with more neighbours than the table holds (an insert that finds no free
// slot) is rated in P = 4, 16, ... passes instead, pass c taking the neighbours of hash class
// c; the fixed-point sums make every pass's ratings exact.
// The table is `tab` (the warp's slice of the block's shared RateScratch: at most 2^8 slots;
// the heavy kernels pass a larger one in global memory, so that vertices with more neighbours
// than 256 are rated in one pass instead of 4, 16, ...).
// *unique (when non-NULL): whether no other accepted neighbour has the winner's score.
// kmap (non-NULL): a neighbour v counts as kmap[v] (its cluster's representative): the pins'
// terms add up per cluster and the best cluster is chosen (and returned) instead of the best
// single neighbour.
// Windowed: whether tab.sample applies (a separate instantiation, so that the path without
// windows compiles as it did before them).
template <bool Windowed, class Ok>
__device__ __forceinline__ int best_neighbour(long long u, const long long *eptr, const int *eind,
                                              const long long *ewgt, const long long *vptr,
                                              const int *vind, long long max_net_size, int shift,
                                              long long seed, bool weight_penalty,
                                              const RateTable &tab, Ok ok, bool *unique = nullptr,
                                              const int *kmap = nullptr) {
    const int lane = igp_lane();
    long long *off = tab.off;
    igp_u64 *term = tab.term;
    int *key = tab.key;
    igp_u64 *val = tab.val;
    const int max_bits = tab.max_bits;
    const long long sample = Windowed ? tab.sample : 0;  // >= 32: none on the small path
    const long long ub = vptr[u], ue = vptr[u + 1];
    // a vertex on more than IGP_RATE_MAX_NETS nets (the hub of a graph's 2-pin nets: tens of
    // thousands of neighbours, each 256 of them one more pass over all its pins) does not
    // choose; its neighbours may still join it
    if (ue - ub > IGP_RATE_MAX_NETS) {
        if (unique) *unique = false;
        return -1;
    }
    const bool one_chunk = ue - ub <= 32;
    Rated r;
    r.score = 0.0;
    r.w = 0;
    r.h = 0;
    r.v = -1;
    double top = -1.0;  // this lane's highest accepted score and how many reached it
    int at_top = 0;
    // a neighbour and its summed rating, read from the table: this lane's best and top count
    auto consider = [&](int v, igp_u64 acc) {
        long long wv = 0;
        if (acc == 0 || !ok(v, &wv)) return;
        Rated cand;
        cand.score = (double)acc;
        if (weight_penalty) cand.score /= (double)(wv > 0 ? wv : 1);
        cand.w = wv;
        cand.h = igp::tie_hash(seed, u, v);
        cand.v = v;
        if (rated_better(cand, r)) r = cand;
        if (cand.score > top) {
            top = cand.score;
            at_top = 1;
        } else if (cand.score == top) {
            ++at_top;
        }
    };
    bool small = false;
#if IGP_RATE_SMALL
    if (one_chunk) {
        // Small vertices (most): at most 32 pins on u's rated nets, one per lane. Lane j holds
        // net ub + j's first pin, size (0: not rated) and term in registers; lane t finds the
        // net of pin position t as the last net start at or before t (a warp OR of the starts'
        // bits) and that net's lane through `head` (the warp's offsets reused), then reads
        // the net's first pin and term by shuffles: no binary search in shared memory. The
        // table (>= twice as many slots as pins) cannot overflow, and every lane scans only
        // the slot it created instead of the whole table.
        long long first = 0, sz = 0;
        igp_u64 tm = 0;
        if (ub + lane < ue) {
            const int e = vind[ub + lane];
            first = eptr[e];
            sz = eptr[e + 1] - first;
            if (sz < 2 || sz > max_net_size) sz = 0;
            else tm = rating_fixed(ewgt[e], sz, shift);
        }
        long long inc = sz;
        for (int o = 1; o < 32; o <<= 1) {
            const long long t = __shfl_up_sync(IGP_FULL_MASK, inc, o);
            if (lane >= o) inc += t;
        }
        const long long walk = __shfl_sync(IGP_FULL_MASK, inc, 31);
        small = walk <= 32;
        if (small) {
            int *head = reinterpret_cast<int *>(off);
            const int start = (int)(inc - sz);  // < 32 when sz > 0
            __syncwarp();  // the previous vertex's heads are no longer read
            if (sz > 0) head[start] = lane;
            const unsigned int starts = __reduce_or_sync(IGP_FULL_MASK, sz > 0 ? 1u << start : 0u);
            __syncwarp();
            int j = 0, at = 0;
            if (lane < walk) {
                const unsigned int upto = starts & (lane == 31 ? IGP_FULL_MASK : (2u << lane) - 1u);
                at = 31 - __clz(upto);
                j = head[at];
            }
            const long long fj = __shfl_sync(IGP_FULL_MASK, first, j);
            const igp_u64 tj = __shfl_sync(IGP_FULL_MASK, tm, j);
            int bits = 5;
            while ((1LL << bits) < 2 * walk) ++bits;
            const unsigned int slots = 1u << bits;
            int v = -1, mine = -1;
            if (lane < walk) {
                v = eind[fj + (lane - at)];
                if (v != (int)u) {
                    if (kmap) v = kmap[v];
                    unsigned int h = ((unsigned int)v * 2654435761u) >> (32 - bits);
                    while (true) {
                        const int k = atomicCAS(key + h, -1, v);
                        if (k == -1 || k == v) {
                            if (k == -1) mine = (int)h;
                            atomicAdd(val + h, tj);
                            break;
                        }
                        h = (h + 1) & (slots - 1);
                    }
                }
            }
            __syncwarp();  // every pin's term is in the table
            if (mine >= 0) {
                const igp_u64 acc = val[mine];
                key[mine] = -1;
                val[mine] = 0;
                consider(v, acc);
            }
            __syncwarp();
        }
    }
#endif
    if (!small) {
        // pins on u's nets: an upper bound of u's neighbours (one chunk: its offsets stay loaded)
        long long walk = 0;
        if (one_chunk) {
            walk = load_chunk(ub, ue, eptr, ewgt, vind, max_net_size, shift, off, term, sample);
        } else {
            for (long long j0 = ub; j0 < ue && walk < (1LL << max_bits); j0 += 32)
                walk += load_chunk(j0, ue, eptr, ewgt, vind, max_net_size, shift, nullptr, nullptr,
                                   sample);
        }
        int bits = 5;
        while (bits < max_bits && (1LL << bits) < 2 * walk) ++bits;
        unsigned int passes = 1;
        while (true) {
            const unsigned int slots = 1u << bits;
            bool over = false;
            for (unsigned int c = 0; c < passes && !over; ++c) {
                for (long long j0 = ub; j0 < ue; j0 += 32) {
                    long long total = walk;
                    if (!one_chunk)
                        total = load_chunk(j0, ue, eptr, ewgt, vind, max_net_size, shift, off, term,
                                           sample);
                    for (long long t = lane; t < total && !over; t += 32) {
                        const int lo = chunk_net(off, t);
                        const int e = vind[j0 + lo];
                        const long long first = eptr[e];
                        const long long size = sample > 0 ? eptr[e + 1] - first : 0;
                        int v = eind[window_pin(u, e, first, size,
                                                t - (lo ? off[lo - 1] : 0), sample)];
                        if (v == u) continue;
                        if (kmap) v = kmap[v];
                        if (passes > 1 && (((unsigned int)v * 0x85ebca6bu) >> 16) % passes != c) continue;
                        unsigned int h = ((unsigned int)v * 2654435761u) >> (32 - bits);
                        unsigned int p = 0;
                        for (; p < slots; ++p) {
                            const int k = atomicCAS(key + h, -1, v);
                            if (k == -1 || k == v) {
                                atomicAdd(val + h, term[lo]);
                                break;
                            }
                            h = (h + 1) & (slots - 1);
                        }
                        over = p == slots;
                    }
                    over = __any_sync(IGP_FULL_MASK, over);
                    if (over) break;
                }
                // scan (or, after an overflow, only clear) the table, once every lane's inserts
                // are done (ordered by the barrier: the table may be in global memory)
                __syncwarp();
                for (unsigned int i = lane; i < slots; i += 32) {
                    const int v = key[i];
                    if (v < 0) continue;
                    const igp_u64 acc = val[i];
                    key[i] = -1;
                    val[i] = 0;
                    if (!over) consider(v, acc);
                }
                __syncwarp();
            }
            if (!over) break;
            r.v = -1;
            top = -1.0;
            at_top = 0;
            passes *= 4;
            bits = max_bits;
        }
    }
    const Rated w = warp_best(r);
    if (unique) {
        int mine = w.v >= 0 && top == w.score ? at_top : 0;
        for (int o = 16; o > 0; o >>= 1) mine += __shfl_xor_sync(IGP_FULL_MASK, mine, o);
        *unique = mine == 1;
    }
    return w.v;
}

}  // namespace

namespace {

// best_neighbour without windows (Mode 0), with tab's (1), or with them when tab.sample > 0 (2).
template <int Mode, class Ok>
__device__ __forceinline__ int rate_best(long long u, const long long *eptr, const int *eind,
                                         const long long *ewgt, const long long *vptr,
                                         const int *vind, long long max_net_size, int shift,
                                         long long seed, bool weight_penalty, const RateTable &tab,
                                         Ok ok, bool *unique = nullptr,
                                         const int *kmap = nullptr) {
    if (Mode == 1 || (Mode == 2 && tab.sample > 0))
        return best_neighbour<true>(u, eptr, eind, ewgt, vptr, vind, max_net_size, shift, seed,
                                    weight_penalty, tab, ok, unique, kmap);
    return best_neighbour<false>(u, eptr, eind, ewgt, vptr, vind, max_net_size, shift, seed,
                                 weight_penalty, tab, ok, unique, kmap);
}

// hg_rate's work on vertex u (the whole warp); Mode as rate_best's.
template <int Mode>
__device__ __forceinline__ void hg_rate_vertex(long long u, const long long *eptr, const int *eind,
                                               const long long *ewgt, const long long *vptr,
                                               const int *vind, const long long *vwgt,
                                               long long mcw, long long max_net_size, int shift,
                                               const int *comm, long long seed, int *best,
                                               const RateTable &tab) {
    const long long wu = vwgt[u];
    int b = -1;
    if (wu <= mcw) {
        const int cu = comm ? comm[u] : 0;
        auto ok = [&](int v, long long *wv) {
            *wv = vwgt[v];
            return (!comm || comm[v] == cu) && wu + vwgt[v] <= mcw;
        };
        b = rate_best<Mode>(u, eptr, eind, ewgt, vptr, vind, max_net_size, shift, seed, false,
                            tab, ok);
    }
    if (igp_lane() == 0) best[u] = b;
}

// cluster_rate's work on vertex u (the whole warp; see cluster_rate); Mode as rate_best's.
template <int Mode>
__device__ __forceinline__ void cluster_rate_vertex(
    long long u, const long long *eptr, const int *eind, const long long *ewgt,
    const long long *vptr, const int *vind, const long long *vwgt, const int *rep,
    const long long *cw, const int *csize, char *single, long long mcw, int smax,
    long long max_net_size, int shift, const int *comm, long long seed, int weight_penalty,
    const int *prev, signed char *uniq, int keep_ties, int *best, const RateTable &tab,
    int by_cluster) {
    int b = -1;
    const long long wu = vwgt[u];
    const bool alone = rep[u] == u && csize[u] == 1;
    if (igp_lane() == 0) single[u] = alone;  // the round's snapshot for cluster_join
    if (alone && wu <= mcw) {
        const int cu = comm ? comm[u] : 0;
        auto ok = [&](int v, long long *wv) {
            const int r = rep[v];
            *wv = cw[r];
            return (!comm || comm[v] == cu) && cw[r] + wu <= mcw && csize[r] < smax;
        };
        long long unused;
        const int p = prev ? prev[u] : -1;
        if (prev && (p < 0 || ((keep_ties || uniq[u]) && ok(p, &unused)))) {
            b = p;
        } else {
            bool un = false;
            b = rate_best<Mode>(u, eptr, eind, ewgt, vptr, vind, max_net_size, shift, seed,
                                weight_penalty != 0, tab, ok, &un, by_cluster ? rep : nullptr);
            __syncwarp();  // every lane has read uniq[u]
            if (uniq && igp_lane() == 0) uniq[u] = un;
        }
    }
    __syncwarp();  // every lane has read prev[u] before lane 0 overwrites it (aliasing)
    if (igp_lane() == 0) best[u] = b;
}

}  // namespace

// best[u]: the neighbour of highest rating among neighbours with vwgt[u] + vwgt[v] <= mcw and,
// when comm != NULL, the same community (HyperG neighbour selection). One warp per vertex.
// shift: the fixed-point scale of the ratings (rating_fixed). heavy (non-NULL): vertices
// flagged there are skipped, left to hg_rate_heavy.
#define IGP_HG_RATE_PARAMS                                                                       \
    long long n, const long long *eptr, const int *eind, const long long *ewgt,                  \
        const long long *vptr, const int *vind, const long long *vwgt, long long mcw,            \
        long long max_net_size, int shift, const int *comm, long long seed, int *best,           \
        const char *heavy, long long sample
#define IGP_HG_RATE_ARGS \
    n, eptr, eind, ewgt, vptr, vind, vwgt, mcw, max_net_size, shift, comm, seed, best, heavy, sample

namespace {

template <int Mode>
__device__ __forceinline__ void hg_rate_all(IGP_HG_RATE_PARAMS) {
    __shared__ RateScratch scratch;
    rate_scratch_clear(scratch);
    const RateTable tab = shared_table(scratch, sample);
    for (long long u = igp_warp(); u < n; u += igp_nwarps()) {
        if (heavy && heavy[u]) continue;
        hg_rate_vertex<Mode>(u, eptr, eind, ewgt, vptr, vind, vwgt, mcw, max_net_size, shift, comm,
                             seed, best, tab);
    }
}

}  // namespace

// sample: ignored (0); hg_rate_windowed takes windows of `sample` pins (RateTable).
extern "C" __global__ void hg_rate(IGP_HG_RATE_PARAMS) { hg_rate_all<0>(IGP_HG_RATE_ARGS); }

extern "C" __global__ void hg_rate_windowed(IGP_HG_RATE_PARAMS) {
    hg_rate_all<1>(IGP_HG_RATE_ARGS);
}

// Vertices with more pins on their rated nets than a shared table holds (the rating's "heavy"
// vertices, listed in list[0, nlist)): hg_rate's choice, each warp rating with its own table
// of 2^max_bits slots in gkey / gval (one table per warp of the grid, all slots -1 / 0 on
// entry and on return).
extern "C" __global__ void hg_rate_heavy(long long nlist, const int *list, const long long *eptr,
                                         const int *eind, const long long *ewgt,
                                         const long long *vptr, const int *vind,
                                         const long long *vwgt, long long mcw,
                                         long long max_net_size, int shift, const int *comm,
                                         long long seed, int *best, int *gkey, igp_u64 *gval,
                                         int max_bits, long long sample) {
    __shared__ RateChunks chunks;
    const RateTable tab = global_table(chunks, gkey, gval, max_bits, sample);
    for (long long i = igp_warp(); i < nlist; i += igp_nwarps())
        hg_rate_vertex<2>(list[i], eptr, eind, ewgt, vptr, vind, vwgt, mcw, max_net_size, shift,
                          comm, seed, best, tab);
}

// Parallel cluster-aware heavy-edge clustering, rating step: every vertex still alone
// (its own representative, one member; written to single[u] for cluster_join, whose counter
// *joined this kernel zeroes) picks the neighbour whose cluster (rep[v]) has room for it (weight cw <= mcw,
// fewer than smax members) and rates best; the cluster's weight breaks ties (or divides the
// rating with weight_penalty).
// uniq (non-NULL): per rated vertex, whether its choice's score was unique among the
// neighbours it could join. prev (non-NULL: the previous round's choices and uniq, without
// weight_penalty; may alias best): a vertex's ratings of its neighbours do not change between
// rounds and the neighbours it may join only become fewer (clusters only grow), so a lone vertex
// whose choice was the unique best keeps it while it still has room, one that had no choice has
// none, and only the others are rated again: the same choices as rating every lone vertex again.
// keep_ties (with prev): a lone vertex keeps its previous choice while that still has room
// even when other neighbours rated the same (it is not rated again; rating it again could pick
// a tied neighbour in a lighter cluster), so that only vertices whose choice filled up are
// rated again.
// heavy (non-NULL): vertices flagged there are skipped (single, uniq and best included), left
// to cluster_rate_heavy, launched after this kernel.
// by_cluster (non-zero): a lone vertex rates its neighbours' clusters, each with the summed
// terms of all the cluster's members it shares nets with (the C++ backend's rating), and
// best[u] is the chosen cluster's representative; 0: each neighbour alone. The ratings then
// change as clusters grow, so prev (which assumes they do not) must be NULL.
// Resident blocks per SM that cluster_rate is compiled for (__launch_bounds__: 40 registers
// instead of 64, a few bytes spilled). The kernel is latency bound (a chain of dependent loads
// per vertex), so more resident warps pay: one clustering of ibm01x200 / ibm09x100's finest
// level took 9.8 / 24.5 ms with 6 against 9.9 / 26.5 ms with 4 (the unbounded kernel's
// occupancy) and 11.6 / 32.4 ms with 8 (H200, 2026-11-26, medians of 4; the same clusters).
#define IGP_RATE_MIN_BLOCKS 6
#define IGP_CLUSTER_RATE_PARAMS                                                                  \
    long long n, const long long *eptr, const int *eind, const long long *ewgt,                  \
        const long long *vptr, const int *vind, const long long *vwgt, const int *rep,           \
        const long long *cw, const int *csize, char *single, long long mcw, int smax,            \
        long long max_net_size, int shift, const int *comm, long long seed, int weight_penalty, \
        const int *prev, signed char *uniq, int keep_ties, int *best, int *joined,               \
        const char *heavy, long long sample, int by_cluster
#define IGP_CLUSTER_RATE_ARGS                                                                     \
    n, eptr, eind, ewgt, vptr, vind, vwgt, rep, cw, csize, single, mcw, smax, max_net_size, shift, \
        comm, seed, weight_penalty, prev, uniq, keep_ties, best, joined, heavy, sample, by_cluster

namespace {

template <int Mode>
__device__ __forceinline__ void cluster_rate_all(IGP_CLUSTER_RATE_PARAMS) {
    __shared__ RateScratch scratch;
    rate_scratch_clear(scratch);
    const RateTable tab = shared_table(scratch, sample);
    if (igp_tid() == 0) *joined = 0;  // cluster_join's counter, launched after this kernel
    for (long long u = igp_warp(); u < n; u += igp_nwarps()) {
        if (heavy && heavy[u]) continue;
        cluster_rate_vertex<Mode>(u, eptr, eind, ewgt, vptr, vind, vwgt, rep, cw, csize, single,
                                  mcw, smax, max_net_size, shift, comm, seed, weight_penalty, prev,
                                  uniq, keep_ties, best, tab, by_cluster);
    }
}

}  // namespace

// sample: ignored (0); cluster_rate_windowed takes windows of `sample` pins (RateTable), a
// kernel of its own so that this one compiles as without windows.
extern "C" __global__ void __launch_bounds__(IGP_BLOCK_THREADS, IGP_RATE_MIN_BLOCKS)
cluster_rate(IGP_CLUSTER_RATE_PARAMS) {
    cluster_rate_all<0>(IGP_CLUSTER_RATE_ARGS);
}

extern "C" __global__ void __launch_bounds__(IGP_BLOCK_THREADS, IGP_RATE_MIN_BLOCKS)
cluster_rate_windowed(IGP_CLUSTER_RATE_PARAMS) {
    cluster_rate_all<1>(IGP_CLUSTER_RATE_ARGS);
}

// cluster_rate on the heavy vertices list[0, nlist) with per-warp tables in global memory (as
// hg_rate_heavy; its small shared scratch needs no register bound for occupancy).
extern "C" __global__ void cluster_rate_heavy(
    long long nlist, const int *list, const long long *eptr, const int *eind,
    const long long *ewgt, const long long *vptr, const int *vind, const long long *vwgt,
    const int *rep, const long long *cw, const int *csize, char *single, long long mcw, int smax,
    long long max_net_size, int shift, const int *comm, long long seed, int weight_penalty,
    const int *prev, signed char *uniq, int keep_ties, int *best, int *gkey, igp_u64 *gval,
    int max_bits, long long sample, int by_cluster) {
    __shared__ RateChunks chunks;
    const RateTable tab = global_table(chunks, gkey, gval, max_bits, sample);
    for (long long i = igp_warp(); i < nlist; i += igp_nwarps())
        cluster_rate_vertex<2>(list[i], eptr, eind, ewgt, vptr, vind, vwgt, rep, cw, csize,
                               single, mcw, smax, max_net_size, shift, comm, seed, weight_penalty,
                               prev, uniq, keep_ties, best, tab, by_cluster);
}

// Proposals accepted (GpuBackend(cluster_accept=True)), between the rating and cluster_join: a
// lone vertex v that another lone vertex u chose without v choosing u back is marked in hub[]
// (cluster_hubs), then stops counting as lone for this round (cluster_hubs_apply clears
// single[v] and hub[v]): cluster_join lets its proposers join it as a one-member cluster and
// drops v's own choice, instead of leaving them all waiting for a mutual choice. Two kernels, so
// that every single[] read of the first precedes the writes of the second.
extern "C" __global__ void cluster_hubs(long long n, const int *best, const char *single,
                                        char *hub) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const int v = best[u];
        if (v >= 0 && single[u] && single[v] && best[v] != (int)u) hub[v] = 1;
    }
}

extern "C" __global__ void cluster_hubs_apply(long long n, char *single, char *hub) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        if (hub[u]) {
            single[u] = 0;
            hub[u] = 0;
        }
    }
}

// Clustering step: mutual choices of two lone vertices become a pair (the smaller id is the
// representative); a lone vertex whose choice is already in a cluster joins it when the
// cluster still has room (atomics on its size and weight, undone on overflow). At most `budget`
// joins succeed (tickets on *joined, returned by joins that fail), so that a round never takes
// the level below its target size.
extern "C" __global__ void cluster_join(long long n, const int *best, const char *single,
                                        const long long *vwgt, long long mcw, int smax,
                                        long long budget, int *rep, long long *cw, int *csize,
                                        int *joined) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const int v = best[u];
        if (v < 0 || !single[u]) continue;
        const long long wu = vwgt[u];
        if (single[v]) {
            if (best[v] == u && u < v) {  // the pair's smaller vertex forms it
                if ((long long)atomicAdd(joined, 1) >= budget) {
                    atomicSub(joined, 1);
                    continue;
                }
                rep[v] = (int)u;
                csize[u] = 2;
                cw[u] = wu + vwgt[v];
            }
            continue;
        }
        const int r = rep[v];
        if ((long long)atomicAdd(joined, 1) >= budget) {
            atomicSub(joined, 1);
            continue;
        }
        if (atomicAdd(csize + r, 1) >= smax) {
            atomicSub(csize + r, 1);
            atomicSub(joined, 1);
            continue;
        }
        const long long before = (long long)atomicAdd((unsigned long long *)(cw + r), (unsigned long long)wu);
        if (before + wu > mcw) {
            igp_atomic_add(cw + r, -wu);
            atomicSub(csize + r, 1);
            atomicSub(joined, 1);
            continue;
        }
        rep[u] = r;
    }
}

// best[u]: the neighbour of highest s(u, v) = c * w(u, v) - deg(v) with vwgt[u] + vwgt[v] <= mcw
// (ties: smaller tie_hash). One thread per vertex.
extern "C" __global__ void graph_rate(long long n, const long long *xadj, const int *adjncy,
                                      const long long *adjwgt, const long long *vwgt, long long mcw,
                                      long long c, long long seed, int *best) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const long long wu = vwgt[u];
        int b = -1;
        long long bs = 0;
        unsigned int bh = 0;
        for (long long j = xadj[u]; j < xadj[u + 1]; ++j) {
            const int v = adjncy[j];
            if (wu + vwgt[v] > mcw) continue;
            const long long s = igp::graph_score(c, adjwgt[j], xadj[v + 1] - xadj[v]);
            const unsigned int hv = igp::tie_hash(seed, u, v);
            if (b < 0 || s > bs || (s == bs && (hv < bh || (hv == bh && v < b)))) {
                b = v;
                bs = s;
                bh = hv;
            }
        }
        best[u] = b;
    }
}

// comb[u] = group_comb(key(u), 0) with key(u) = u (leader: largest id) or n-1-u (smallest id).
extern "C" __global__ void group_init(long long n, int mirror, long long *comb) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads())
        comb[u] = igp::group_comb(mirror ? n - 1 - u : u, 0);
}

// One round of HyperG Alg. 1 over the (u, best[u]) edges: the smaller group adopts the larger
// group id with this round's iteration, by atomicMax on the 64-bit combination. Rounds read the
// previous round's combinations (prev), so the join iteration is the BFS distance from the
// leader, as in the synchronous fixed point the C++ backend computes.
extern "C" __global__ void group_step(long long n, const int *best, const long long *prev,
                                      long long *comb, int it, int *changed) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const int v = best[u];
        if (v < 0) continue;
        const long long gu = prev[u] >> 32, gv = prev[v] >> 32;
        if (gu > gv) {
            atomicMax(comb + v, igp::group_comb(gu, it));
            *changed = 1;
        } else if (gu < gv) {
            atomicMax(comb + u, igp::group_comb(gv, it));
            *changed = 1;
        }
    }
}

// Subgroup breakdown over vertices sorted by combination: runs of one group are cut every
// `group_size` positions (HyperG Alg. 2) and, inside such a chunk, greedily before the weight
// would exceed mcw. start[i] = 1 where a subgroup begins. pos[i]: position inside its group.
extern "C" __global__ void subgroup_starts(long long n, const long long *group, const long long *pos,
                                           const long long *w, long long group_size, long long mcw,
                                           int *start) {
    for (long long i = igp_tid(); i < n; i += igp_nthreads()) {
        if (pos[i] % group_size != 0) continue;
        long long acc = 0;
        for (long long j = i; j < n && j - i < group_size && group[j] == group[i]; ++j) {
            const int s = j == i || acc + w[j] > mcw;
            if (s) acc = 0;
            start[j] = s;
            acc += w[j];
        }
    }
}
