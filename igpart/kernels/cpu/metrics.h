#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace igp {

// lambda[e] = number of distinct blocks among the pins of net e.
std::vector<int32_t> net_connectivity(const int64_t *eptr, const int32_t *eind, int64_t m,
                                      const int32_t *parts, int32_t k);

}  // namespace igp
