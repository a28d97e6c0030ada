// Packed-memory-array CSR (Grapin §6, after VCSR's vertex-centric PMA): the rows of an adjacency
// (the nets of each vertex, or the pins of each net) stored one after the other, in row order, in
// one array with gaps, so that a row is one contiguous run (one CSR-like read, zero-copy friendly)
// and an insertion usually only fills a gap.
//
// Layout. The array has capacity = leaf * 2^height slots; row r occupies [start[r], start[r] +
// len[r]) and its gap runs up to start[r + 1] (the capacity for the last row); starts never
// decrease. Slots outside rows hold IGP_EMPTY_SLOT. A removal leaves a hole (IGP_EMPTY_SLOT)
// inside the row, except that holes at the end of a row are cut off; an insertion fills the
// first hole of the row, else appends. This keeps the entries of a row in exactly the order a
// 32-slot bucket chain of the dynamic hypergraph keeps them (first empty slot, else a new bucket
// at the tail), so that a reader of either sees the same sequence.
//
// Rebalancing. An insertion into a row without room looks at the windows that contain the row's
// start, from the leaf segment (leaf slots) upwards, each twice the previous, aligned to its
// size. The rows starting in the window (the row itself included) form a region running from
// the first such row's start to the next row's start after the window; the first region whose
// density (entries + 1) / length is at most the upper threshold of its level, which falls
// linearly from `upper_leaf` at the leaves to `upper_root` at the root, has its gaps spread
// evenly over its rows (the row that overflowed gets the slot it asked for). When even the root
// is too dense, the capacity doubles until the density is at most `build_density` and every row
// is redistributed. After a removal that leaves the whole array below `lower_root`, the capacity
// shrinks to the smallest power-of-two multiple of the leaf of density at most `build_density`
// and every row is redistributed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bucket.h"
#include "journal.h"

namespace igp {

struct PmaOptions {
    int64_t leaf = 64;           // slots of a leaf segment (a power of two)
    double upper_leaf = 1.0;     // upper density threshold of a leaf segment
    double upper_root = 0.75;    // upper density threshold of the whole array
    double lower_root = 0.125;   // below this the capacity halves
    double build_density = 0.5;  // density of the array right after a build or a resize
};

class PmaRows {
   public:
    explicit PmaRows(const PmaOptions &opt = PmaOptions());

    // Replaces the content by `rows` rows of a CSR (ptr: rows + 1 offsets; entries >= 0).
    void build(const int64_t *ptr, const int32_t *ind, int64_t rows);
    // Appends `count` empty rows (ids rows() .. rows() + count - 1).
    void add_rows(int64_t count);

    // Inserts `value` into row r: into its first hole, else at its end.
    void insert(int32_t r, int32_t value);
    // Removes the first occurrence of `value` from row r; false when the row does not hold it.
    bool erase(int32_t r, int32_t value);
    // Removes every entry of row r.
    void clear(int32_t r);

    int64_t rows() const { return static_cast<int64_t>(start_.size()); }
    int64_t capacity() const { return static_cast<int64_t>(slot_.size()); }
    int32_t height() const { return height_; }
    int64_t start(int32_t r) const { return start_[r]; }
    int64_t length(int32_t r) const { return len_[r]; }  // slots of the row, holes included
    int32_t size(int32_t r) const { return live_[r]; }   // entries of the row
    int64_t entries() const { return entries_; }
    int64_t used() const { return used_; }  // sum of row lengths (entries plus holes)
    const std::vector<int32_t> &slots() const { return slot_; }
    const std::vector<int64_t> &starts() const { return start_; }
    const std::vector<int64_t> &lengths() const { return len_; }
    const PmaOptions &options() const { return opt_; }
    // Upper density threshold of a window of 2^level leaf segments.
    double upper(int32_t level) const;

    // Counters: local rebalances (by level), slots moved by them, capacity growths / shrinks.
    const std::vector<int64_t> &rebalances() const { return rebalances_; }
    int64_t moved_slots() const { return moved_; }
    int64_t growths() const { return growths_; }
    int64_t shrinks() const { return shrinks_; }

    std::vector<int32_t> row(int32_t r) const;
    template <class F>
    void for_each(int32_t r, F &&f) const {
        const int32_t *s = slot_.data() + start_[r];
        for (int64_t i = 0, n = len_[r]; i < n; ++i)
            if (s[i] != IGP_EMPTY_SLOT) f(s[i]);
    }

    // The slots written since the last call, as one range [lo, hi) (lo == hi: none), and
    // whether the array was re-allocated; resets both.
    void take_written(int64_t &lo, int64_t &hi, bool &reallocated);

    // Verifies the layout invariants; throws std::logic_error naming the first violation.
    void check() const;

    // Journals every change from now on into `j` (nullptr: stop); see journal.h. The scalars
    // are saved by save_scalars() and put back by restore_scalars().
    void journal(Journal *j) { j_ = j; }
    struct Scalars {
        int64_t entries, used, moved, growths, shrinks, written_lo, written_hi;
        int32_t height;
        bool reallocated;
        std::vector<int64_t> rebalances;
    };
    Scalars save_scalars() const {
        return {entries_, used_, moved_, growths_, shrinks_, written_lo_, written_hi_,
                height_, reallocated_, rebalances_};
    }
    void restore_scalars(const Scalars &s) {
        entries_ = s.entries, used_ = s.used, moved_ = s.moved, growths_ = s.growths;
        shrinks_ = s.shrinks, written_lo_ = s.written_lo, written_hi_ = s.written_hi;
        height_ = s.height, reallocated_ = s.reallocated, rebalances_ = s.rebalances;
    }

   private:
    PmaOptions opt_;
    std::vector<int32_t> slot_;
    std::vector<int64_t> start_, len_;
    std::vector<int32_t> live_;
    int64_t entries_ = 0, used_ = 0;
    int32_t height_ = 0;
    std::vector<int64_t> rebalances_;
    int64_t moved_ = 0, growths_ = 0, shrinks_ = 0;
    std::vector<int32_t> buffer_;  // scratch of redistribute()
    int64_t written_lo_ = 0, written_hi_ = 0;
    bool reallocated_ = false;
    Journal *j_ = nullptr;
    void written(int64_t lo, int64_t hi) {
        if (written_lo_ == written_hi_) {
            written_lo_ = lo;
            written_hi_ = hi;
        } else {
            written_lo_ = lo < written_lo_ ? lo : written_lo_;
            written_hi_ = hi > written_hi_ ? hi : written_hi_;
        }
    }

    int64_t end_of(int32_t r) const {  // where the gap of row r ends
        return r + 1 < rows() ? start_[r + 1] : capacity();
    }
    void set_capacity_for(int64_t used, double density);
    // Makes room for one more slot at the end of row r.
    void make_room(int32_t r);
    // Spreads rows [lo, hi] over slots [begin, end) with even gaps, `extra` more slots after
    // row `wide` (-1: none). `buffered`: buffer_ already holds the rows' slots, in order (the
    // array was re-allocated); otherwise they are gathered from the region first.
    void redistribute(int64_t lo, int64_t hi, int64_t begin, int64_t end, int32_t wide,
                      int64_t extra, bool buffered);
    // Resizes to the smallest capacity of at most `density` and redistributes every row.
    void resize_all(double density, int32_t wide, int64_t extra);
};

}  // namespace igp
