// Partition metrics kernels.
#include "metrics.h"

#include "partition.h"

namespace igp {

namespace {

// The distinct blocks among net e's pins (seen: one entry per block, none equal to e before).
inline int64_t net_lambda(const int64_t *eptr, const int32_t *eind, const int32_t *parts,
                          int64_t e, std::vector<int64_t> &seen) {
    int64_t l = 0;
    for (int64_t j = eptr[e]; j < eptr[e + 1]; ++j) {
        const int32_t b = parts[eind[j]];
        if (seen[b] != e) {
            seen[b] = e;
            ++l;
        }
    }
    return l;
}

}  // namespace

std::vector<int32_t> net_connectivity(const int64_t *eptr, const int32_t *eind, int64_t m,
                                      const int32_t *parts, int32_t k) {
    std::vector<int32_t> lambda(static_cast<size_t>(m), 0);
#pragma omp parallel if (m >= kParallelMinLightItems)
    {
        std::vector<int64_t> seen(static_cast<size_t>(k), -1);
#pragma omp for schedule(dynamic, 4096)
        for (int64_t e = 0; e < m; ++e) {
            lambda[e] = static_cast<int32_t>(net_lambda(eptr, eind, parts, e, seen));
        }
    }
    return lambda;
}

Objectives hypergraph_objectives(const int64_t *eptr, const int32_t *eind, const int64_t *ewgt,
                                 int64_t m, const int32_t *parts, int32_t k) {
    int64_t cut = 0, km1 = 0, soed = 0;
#pragma omp parallel if (m >= kParallelMinLightItems) reduction(+ : cut, km1, soed)
    {
        std::vector<int64_t> seen(static_cast<size_t>(k), -1);
#pragma omp for schedule(dynamic, 4096)
        for (int64_t e = 0; e < m; ++e) {
            const int64_t l = net_lambda(eptr, eind, parts, e, seen);
            if (l > 1) {
                cut += ewgt[e];
                km1 += ewgt[e] * (l - 1);
                soed += ewgt[e] * l;
            }
        }
    }
    return {cut, km1, soed};
}

}  // namespace igp
