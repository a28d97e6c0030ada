// METIS from C++ code of this module (metis_native.cpp): one call per seed, on any thread.
#pragma once
#include <cstdint>

namespace igp {

// GKlib's signal handlers installed while any scope (or request of metis_part_graphs) is alive,
// the process's own put back when the last one ends: hold one around metis_part calls.
class MetisScope {
  public:
    MetisScope();
    ~MetisScope();
    MetisScope(const MetisScope &) = delete;
    MetisScope &operator=(const MetisScope &) = delete;

  private:
    struct Impl;
    Impl *impl_;
};

// METIS_OK of metis.h (rstatus_et).
constexpr int kMetisOk = 1;

// The blocks (out, n entries) of METIS on the CSR graph (64-bit xadj / adjncy / vwgt, adjwgt or
// nullptr), nparts blocks, target fractions tpwgts (nparts floats) or nullptr, METIS's seed and
// ufactor; METIS_PartGraphRecursive when recursive, else METIS_PartGraphKway. Returns METIS's
// status (METIS_OK on success). Thread-safe: METIS draws from a per-thread generator.
int metis_part(int64_t n, const int64_t *xadj, const int64_t *adjncy, const int64_t *vwgt,
               const int64_t *adjwgt, int64_t nparts, const float *tpwgts, int64_t seed,
               int64_t ufactor, bool recursive, int32_t *out);

}  // namespace igp
