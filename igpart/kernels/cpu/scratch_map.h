// A small open-addressing hash map from 64-bit keys to values, meant to be kept and reused: clear()
// costs the number of entries inserted since the last clear, not the capacity, and nothing is
// allocated once the table is large enough. Used for per-batch scratch state.
#pragma once
#include <cstdint>
#include <vector>

namespace igp {

// splitmix64's finaliser: a bijection of 64-bit words whose every output bit depends on every
// input bit.
inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

template <class V>
class ScratchMap {
   public:
    // The value of `key`, or nullptr.
    V *find(uint64_t key) {
        if (keys_.empty()) return nullptr;
        for (uint64_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
            if (keys_[i] == key) return &vals_[i];
            if (keys_[i] == EMPTY) return nullptr;
        }
    }

    // The value of `key`, inserted as V() when absent.
    V &operator[](uint64_t key) {
        if (2 * (used_.size() + 1) > keys_.size()) grow();
        uint64_t i = hash(key) & mask_;
        for (; keys_[i] != EMPTY; i = (i + 1) & mask_)
            if (keys_[i] == key) return vals_[i];
        keys_[i] = key;
        vals_[i] = V();
        used_.push_back(i);
        return vals_[i];
    }

    void clear() {
        for (uint64_t i : used_) keys_[i] = EMPTY;
        used_.clear();
    }

   private:
    static constexpr uint64_t EMPTY = ~uint64_t(0);
    std::vector<uint64_t> keys_;
    std::vector<V> vals_;
    std::vector<uint64_t> used_;  // occupied positions, in insertion order
    uint64_t mask_ = 0;

    static uint64_t hash(uint64_t x) { return mix64(x); }

    void grow() {
        std::vector<uint64_t> old_used;
        old_used.swap(used_);
        std::vector<uint64_t> old_keys(keys_.size() ? 2 * keys_.size() : 64, EMPTY);
        old_keys.swap(keys_);
        std::vector<V> old_vals(keys_.size());
        old_vals.swap(vals_);
        mask_ = keys_.size() - 1;
        for (uint64_t i : old_used) (*this)[old_keys[i]] = old_vals[i];
    }
};

}  // namespace igp
