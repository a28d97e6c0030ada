// Summed edge weights per cluster label (LabelSums) or per block (BlockConn) of one vertex's
// neighbours: the scratch of label propagation and FM (one per thread).
#pragma once
#include <cstdint>
#include <vector>

#include "partition.h"

namespace igp {

// Open addressing sized to the entries expected (prepare), cleared in time proportional to the
// labels inserted.
class LabelSums {
   public:
    void prepare(int64_t degree) {
        size_t cap = 16;
        while (cap < static_cast<size_t>(2 * degree + 2)) cap <<= 1;
        if (cap > keys_.size()) {
            keys_.assign(cap, -1);
            vals_.assign(cap, 0);
            mask_ = cap - 1;
        }
    }
    void add(int32_t key, int64_t w) {
        size_t i = (static_cast<uint32_t>(key) * 0x9E3779B1u) & mask_;
        while (keys_[i] != key && keys_[i] != -1) i = (i + 1) & mask_;
        if (keys_[i] == -1) {
            keys_[i] = key;
            vals_[i] = 0;
            used_.push_back(i);
        }
        vals_[i] += w;
    }
    int64_t get(int32_t key) const {
        size_t i = (static_cast<uint32_t>(key) * 0x9E3779B1u) & mask_;
        for (; keys_[i] != -1; i = (i + 1) & mask_)
            if (keys_[i] == key) return vals_[i];
        return 0;
    }
    template <class F>
    void for_each(F &&f) const {
        for (size_t i : used_) f(keys_[i], vals_[i]);
    }
    void clear() {
        for (size_t i : used_) keys_[i] = -1;
        used_.clear();
    }

   private:
    std::vector<int32_t> keys_;
    std::vector<int64_t> vals_;
    std::vector<size_t> used_;
    size_t mask_ = 0;
};

// Connectivity of u to its own and every adjacent block (scratch of k entries).
struct BlockConn {
    std::vector<int64_t> conn;
    std::vector<int32_t> touched;
    explicit BlockConn(int32_t k) : conn(static_cast<size_t>(k), 0) {}
    // Fills conn for u's neighbours' blocks; returns the weight towards u's own block.
    int64_t collect(const GraphView &g, const int32_t *parts, int32_t u) {
        for (int32_t b : touched) conn[b] = 0;
        touched.clear();
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
            const int32_t b = parts[g.adjncy[j]];
            if (conn[b] == 0) touched.push_back(b);
            conn[b] += g.adjwgt[j];
        }
        return conn[parts[u]];
    }
};

}  // namespace igp
