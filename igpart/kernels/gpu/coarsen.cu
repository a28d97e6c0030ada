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

// best[u]: the neighbour of highest rating sum_{shared e} w_e/(|e|-1) (nets of 2..max_net_size
// pins), among neighbours with vwgt[u] + vwgt[v] <= mcw and, when comm != NULL, the same
// community. One warp per vertex; each lane rates pins of u's nets. A pair is rated by the lane
// that meets it in the first net they share (merge of the two ascending net lists).
extern "C" __global__ void hg_rate(long long n, const long long *eptr, const int *eind,
                                   const long long *ewgt, const long long *vptr, const int *vind,
                                   const long long *vwgt, long long mcw, long long max_net_size,
                                   const int *comm, long long seed, int *best) {
    const int lane = igp_lane();
    for (long long u = igp_warp(); u < n; u += igp_nwarps()) {
        const long long wu = vwgt[u];
        Rated r;
        r.score = 0.0;
        r.w = 0;
        r.h = 0;
        r.v = -1;
        if (wu <= mcw) {
            const int cu = comm ? comm[u] : 0;
            const long long ub = vptr[u], ue = vptr[u + 1];
            for (long long j = ub; j < ue; ++j) {
                const int e = vind[j];
                const long long s = eptr[e], size = eptr[e + 1] - s;
                if (size < 2 || size > max_net_size) continue;
                for (long long q = s + lane; q < s + size; q += 32) {
                    const int v = eind[q];
                    if (v == u) continue;
                    if (comm && comm[v] != cu) continue;
                    const long long wv = vwgt[v];
                    if (wu + wv > mcw) continue;
                    // merge nets(u) and nets(v); skip the pair unless e is their first shared net
                    long long a = ub, b = vptr[v];
                    const long long be = vptr[v + 1];
                    double sc = 0.0;
                    bool first = true, dup = false;
                    while (a < ue && b < be) {
                        const int fa = vind[a], fb = vind[b];
                        if (fa < fb) {
                            ++a;
                        } else if (fb < fa) {
                            ++b;
                        } else {
                            const long long fs = eptr[fa + 1] - eptr[fa];
                            if (fs >= 2 && fs <= max_net_size) {
                                if (first && fa != e) {
                                    dup = true;
                                    break;
                                }
                                first = false;
                                sc += igp::rating_term(ewgt[fa], fs);
                            }
                            ++a;
                            ++b;
                        }
                    }
                    if (dup || sc <= 0.0) continue;
                    Rated c;
                    c.score = sc;
                    c.w = wv;
                    c.h = igp::tie_hash(seed, u, v);
                    c.v = v;
                    if (rated_better(c, r)) r = c;
                }
            }
        }
        r = warp_best(r);
        if (lane == 0) best[u] = r.v;
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
// group id with this round's iteration, by atomicMax on the 64-bit combination.
extern "C" __global__ void group_step(long long n, const int *best, long long *comb, int it,
                                      int *changed) {
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const int v = best[u];
        if (v < 0) continue;
        const long long gu = comb[u] >> 32, gv = comb[v] >> 32;
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
