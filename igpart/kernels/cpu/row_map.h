// Per-thread scratch that sums weights per id over one row (Louvain: the communities around a
// vertex): a small open-addressing table sized for the row when the row is short (it stays in
// the L1/L2 cache), else a dense array of one entry per id (allocated on first use). Ids come
// out in the order they were first met, with the same sums either way, so callers' results do
// not depend on which of the two served a row. Many threads each holding a dense array over all
// ids (16 bytes x 2.2M vertices = 35 MB each) overflow the shared cache where one thread's
// fits; the short rows, nearly all of them, never touch it.
#pragma once
#include <cstdint>
#include <vector>

namespace igp {

class RowMap {
   public:
    // Rows of at most this many entries use the small table.
    static constexpr int64_t kSmallRow = 2048;

    // Starts a row of at most `bound` distinct ids below `ids`.
    void begin(int64_t bound, int64_t ids) {
        ids_.clear();
        sums_.clear();
        small_ = bound <= kSmallRow;
        if (small_) {
            bits_ = 4;
            while ((int64_t(1) << bits_) < 2 * bound) ++bits_;
            if (table_key_.empty()) {
                table_key_.assign(static_cast<size_t>(2 * kSmallRow), -1);
                table_at_.assign(static_cast<size_t>(2 * kSmallRow), 0);
            }
            mask_ = (uint32_t(1) << bits_) - 1;
        } else {
            if (static_cast<int64_t>(dense_at_.size()) < ids)
                dense_at_.assign(static_cast<size_t>(ids), -1);
        }
    }

    // sum[id] += w.
    void add(int32_t id, double w) {
        int32_t *at;
        if (small_) {
            uint32_t s = (static_cast<uint32_t>(id) * 0x9E3779B1u) >> (32 - bits_);
            while (table_key_[s] != -1 && table_key_[s] != id) s = (s + 1) & mask_;
            if (table_key_[s] == -1) {
                table_key_[s] = id;
                slots_.push_back(s);
                table_at_[s] = static_cast<int32_t>(ids_.size());
                ids_.push_back(id);
                sums_.push_back(0.0);
            }
            at = &table_at_[s];
        } else {
            at = &dense_at_[id];
            if (*at < 0) {
                *at = static_cast<int32_t>(ids_.size());
                ids_.push_back(id);
                sums_.push_back(0.0);
            }
        }
        sums_[*at] += w;
    }

    // The row's ids in the order first met, and their sums.
    const std::vector<int32_t> &ids() const { return ids_; }
    const std::vector<double> &sums() const { return sums_; }

    // Ends the row (the table / array is empty again).
    void end() {
        if (small_) {
            for (uint32_t s : slots_) table_key_[s] = -1;
            slots_.clear();
        } else {
            for (int32_t id : ids_) dense_at_[id] = -1;
        }
    }

   private:
    bool small_ = true;
    int bits_ = 4;
    uint32_t mask_ = 15;
    std::vector<int32_t> table_key_, table_at_;
    std::vector<uint32_t> slots_;
    std::vector<int32_t> dense_at_;
    std::vector<int32_t> ids_;
    std::vector<double> sums_;
};

}  // namespace igp
