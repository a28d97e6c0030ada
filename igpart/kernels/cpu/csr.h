#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace igp {

struct Csr {
    std::vector<int64_t> ptr;
    std::vector<int32_t> ind;
};

// Transpose of a CSR incidence (rows -> columns), stable: each column lists rows ascending.
Csr csr_transpose(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols);

// Whether any row lists a column id twice.
bool rows_have_duplicates(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols);

// Drops repeated column ids inside each row, keeping the first occurrence and the order.
Csr dedup_rows(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols);

struct WeightedCsr {
    std::vector<int64_t> ptr;
    std::vector<int32_t> ind;
    std::vector<int64_t> wgt;
};

// Clique expansion of a hypergraph: each pair of pins of a net e with 2 <= |e| <= max_size gets
// w_e / (|e| - 1); the sums per vertex pair are scaled by `scale`, rounded, and clamped to >= 1.
// Neighbour lists come out sorted ascending. Needs both incidence directions.
WeightedCsr clique_expand(const int64_t *eptr, const int32_t *eind, const int64_t *ewgt, int64_t m,
                          const int64_t *vptr, const int32_t *vind, int64_t n, int64_t max_size,
                          double scale);

}  // namespace igp
