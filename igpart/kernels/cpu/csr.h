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

// The nets of a hypergraph (eptr / eind, m nets) induced by the vertices with id[v] >= 0 (their
// new ids), in net order: each kept net's pins renumbered by id, in pin order (ptr / ind), and
// the kept nets' ids (nets). cut: a net with a pin outside is dropped, else it keeps its pins
// inside; nets left with fewer than two pins are dropped. ptr starts at {0}.
void induced_nets(const int64_t *eptr, const int32_t *eind, int64_t m, const int32_t *id, bool cut,
                  std::vector<int64_t> &ptr, std::vector<int32_t> &ind,
                  std::vector<int64_t> &nets);

// Every group's sub-hypergraph of a hypergraph (eptr / eind, m nets, n vertices) under `group`
// (an id in [0, ngroups) per vertex), concatenated: `order` the vertices sorted by group (ids
// ascending inside a group), `vstart` (ngroups + 1) each group's first position in it; a sub-net
// per net and group holding at least two of its pins, sub-nets by group then by net id (`rstart`,
// ngroups + 1: each group's first sub-net), `ptr` / `ind` their pins in the net's pin order as
// group-local ids (positions inside the group), `parent` the net of each sub-net. The arrays that
// igpart.subgraphs.level_subhypergraphs makes with numpy, on the threads.
struct SubLevelArrays {
    std::vector<int64_t> order, vstart, rstart, ptr, parent;
    std::vector<int32_t> ind;
};
SubLevelArrays level_subhypergraphs(const int64_t *eptr, const int32_t *eind, int64_t m,
                                    const int64_t *group, int64_t n, int64_t ngroups);

// Whether any row lists a column id twice.
bool rows_have_duplicates(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols);

// Drops repeated column ids inside each row, keeping the first occurrence and the order.
Csr dedup_rows(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols);

// The first defect of a graph's CSR adjacency (both directions of every edge listed, with equal
// weights), in this order of kinds: a self loop (the first in CSR order), a neighbour listed twice
// (the smallest (u, v)), an arc u -> v whose reverse is missing (the smallest of (u, v) and
// (v, u) over such arcs), two directions of different weights (the smallest (u, v)). kind 0: none.
struct GraphDefect {
    enum Kind { none = 0, loop = 1, repeat = 2, missing = 3, weight = 4 };
    int kind = none;
    int64_t u = 0, v = 0, w_uv = 0, w_vu = 0;
};
GraphDefect graph_defect(const int64_t *xadj, int64_t n, const int32_t *adjncy,
                         const int64_t *adjwgt);

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
