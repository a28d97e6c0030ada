// Sparse pin counts phi(e, b) of a hypergraph level (C++ backend): shared by the refiners
// (refine.cpp: sequence refinement, FM, rebalancing; jet.cpp: Jet refinement).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "partition.h"

namespace igp {

// Pin counts phi(e, b) of every net, stored sparsely: net e owns the slots eptr[e] ..
// eptr[e] + lam[e] of (block, count) pairs (lam[e] <= |e|), so memory is O(pins) for any k.
class PinCounts {
   public:
    // (a net's slots past its lambda are never read: they are left unset until used)
    PinCounts(const HgView &h, const int32_t *parts)
        : h_(h), lam_(static_cast<size_t>(h.m)), blk_(static_cast<size_t>(h.eptr[h.m])),
          cnt_(static_cast<size_t>(h.eptr[h.m])) {
        fill(parts);
    }
    // Recounts every net from `parts`.
    void rebuild(const int32_t *parts) { fill(parts); }
    int32_t lambda(int32_t e) const { return lam_[e]; }
    int32_t get(int32_t e, int32_t b) const {
        const int64_t s = h_.eptr[e], t = s + lam_[e];
        for (int64_t j = s; j < t; ++j)
            if (blk_[j] == b) return cnt_[j];
        return 0;
    }
    void inc(int32_t e, int32_t b) {
        const int64_t s = h_.eptr[e], t = s + lam_[e];
        for (int64_t j = s; j < t; ++j)
            if (blk_[j] == b) {
                ++cnt_[j];
                return;
            }
        blk_[t] = b;
        cnt_[t] = 1;
        ++lam_[e];
    }
    void dec(int32_t e, int32_t b) {
        const int64_t s = h_.eptr[e], t = s + lam_[e];
        for (int64_t j = s; j < t; ++j)
            if (blk_[j] == b) {
                if (--cnt_[j] == 0) {
                    blk_[j] = blk_[t - 1];
                    cnt_[j] = cnt_[t - 1];
                    --lam_[e];
                }
                return;
            }
    }
    // (block, count) pairs of net e
    const int32_t *blocks(int32_t e) const { return blk_.data() + h_.eptr[e]; }
    const int32_t *counts(int32_t e) const { return cnt_.data() + h_.eptr[e]; }

   private:
    void fill(const int32_t *parts) {
        // every net owns its slots: nets are independent
#pragma omp parallel for schedule(dynamic, 4096) if (h_.m > 65536)
        for (int64_t e = 0; e < h_.m; ++e) {
            lam_[e] = 0;
            for (int64_t j = h_.eptr[e]; j < h_.eptr[e + 1]; ++j)
                inc(static_cast<int32_t>(e), parts[h_.eind[j]]);
        }
    }
    const HgView &h_;
    // sized, then written by the threads (no sequential zeroing pass over the pins first)
    UninitVector<int32_t> lam_, blk_, cnt_;
};

// Whether u has a pin on a net of two or more blocks: for any other vertex no block is a move
// target (the FM's full passes skip it at the cost of reading the lambdas).
inline bool on_boundary(const HgView &h, const PinCounts &phi, int32_t u) {
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j)
        if (phi.lambda(h.vind[j]) > 1) return true;
    return false;
}

// Objective (cut or km1) of the partition the counts describe.
inline int64_t objective_of(const HgView &h, const PinCounts &phi, int objective) {
    int64_t total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static) if (h.m > 65536)
    for (int64_t e = 0; e < h.m; ++e) {
        const int64_t lam = phi.lambda(static_cast<int32_t>(e));
        total += objective == OBJ_CUT ? h.ewgt[e] * (lam > 1) : h.ewgt[e] * std::max<int64_t>(lam - 1, 0);
    }
    return total;
}

}  // namespace igp
