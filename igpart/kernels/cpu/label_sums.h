// Summed edge weights per cluster label (LabelSums) or per block (BlockConn) of one vertex's
// neighbours: the scratch of label propagation and FM (one per thread).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "partition.h"

namespace igp {

// Open addressing sized to the entries expected (prepare), cleared in time proportional to the
// labels inserted. With use_dense(labels), a vertex of more than kDenseMinDegree neighbours sums
// into an array indexed by label instead (allocated on first use, one per thread; labels below
// `labels`): a read and a write per neighbour instead of a hash probe. Either way the labels are
// listed in the order of their first insertion, so the choices are the same.
class LabelSums {
   public:
    static constexpr int64_t kDenseMinDegree = 64;

    // Labels are below `labels`; 0: hashing only.
    void use_dense(int64_t labels) { dense_n_ = labels; }

    void prepare(int64_t degree) {
        dense_ = dense_n_ > 0 && degree > kDenseMinDegree;
        if (dense_) {
            if (dvals_.empty()) dvals_.assign(static_cast<size_t>(dense_n_), -1);
            return;
        }
        size_t cap = 16;
        while (cap < static_cast<size_t>(2 * degree + 2)) cap <<= 1;
        if (cap > keys_.size()) {
            keys_.assign(cap, -1);
            vals_.assign(cap, 0);
            mask_ = cap - 1;
        }
    }
    void add(int32_t key, int64_t w) {
        if (dense_) {
            int64_t &v = dvals_[static_cast<size_t>(key)];
            if (v < 0) {
                v = 0;
                dkeys_.push_back(key);
            }
            v += w;
            return;
        }
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
        if (dense_) return std::max<int64_t>(dvals_[static_cast<size_t>(key)], 0);
        size_t i = (static_cast<uint32_t>(key) * 0x9E3779B1u) & mask_;
        for (; keys_[i] != -1; i = (i + 1) & mask_)
            if (keys_[i] == key) return vals_[i];
        return 0;
    }
    template <class F>
    void for_each(F &&f) const {
        if (dense_) {
            for (int32_t key : dkeys_) f(key, dvals_[static_cast<size_t>(key)]);
            return;
        }
        for (size_t i : used_) f(keys_[i], vals_[i]);
    }
    void clear() {
        for (int32_t key : dkeys_) dvals_[static_cast<size_t>(key)] = -1;
        dkeys_.clear();
        for (size_t i : used_) keys_[i] = -1;
        used_.clear();
    }

   private:
    int64_t dense_n_ = 0;
    bool dense_ = false;            // the current vertex sums into dvals_
    std::vector<int64_t> dvals_;    // per label: its sum, -1 not inserted
    std::vector<int32_t> dkeys_;    // the labels inserted into dvals_, in order
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
