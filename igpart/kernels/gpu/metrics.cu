// Metric kernels: objective of a hypergraph partition from the sparse pin counts, edge cut.
#include "igpart_gpu.cuh"

// out[0] += sum over nets of w_e * [lam > 1] (cut) or w_e * max(lam - 1, 0) (km1).
extern "C" __global__ void hg_objective(long long m, const long long *ewgt, const int *lam, int objective,
                                        long long *out) {
    long long acc = 0;
    for (long long e = igp_tid(); e < m; e += igp_nthreads()) {
        acc += igp_net_objective(objective, ewgt[e], lam[e]);
    }
    acc = igp_warp_sum(acc);
    if (igp_lane() == 0 && acc) igp_atomic_add(out, acc);
}

// out[0] += sum over adjacency slots of w * [blocks differ] (twice the edge cut).
extern "C" __global__ void graph_cut2(long long n, const long long *xadj, const int *adjncy,
                                      const long long *adjwgt, const int *parts, long long *out) {
    long long acc = 0;
    for (long long u = igp_tid(); u < n; u += igp_nthreads()) {
        const int s = parts[u];
        for (long long j = xadj[u]; j < xadj[u + 1]; ++j)
            if (parts[adjncy[j]] != s) acc += adjwgt[j];
    }
    acc = igp_warp_sum(acc);
    if (igp_lane() == 0 && acc) igp_atomic_add(out, acc);
}
