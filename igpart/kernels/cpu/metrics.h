#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace igp {

// lambda[e] = number of distinct blocks among the pins of net e.
std::vector<int32_t> net_connectivity(const int64_t *eptr, const int32_t *eind, int64_t m,
                                      const int32_t *parts, int32_t k);

// The cut (summed weights of the nets with pins in two blocks or more), km1 (w_e * (lambda_e -
// 1) summed) and soed (w_e * lambda_e over the cut nets) of a partition, in one pass over the
// nets (in parallel on large inputs; integer sums, the same on any threads). Block ids must be
// in [0, k).
struct Objectives {
    int64_t cut = 0, km1 = 0, soed = 0;
};
Objectives hypergraph_objectives(const int64_t *eptr, const int32_t *eind, const int64_t *ewgt,
                                 int64_t m, const int32_t *parts, int32_t k);

}  // namespace igp
