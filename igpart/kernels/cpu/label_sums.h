// Summed edge weights per cluster label of one vertex's neighbours: the scratch of label
// propagation (one per thread).
#pragma once
#include <cstdint>
#include <vector>

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

}  // namespace igp
