// A model of what CUDA managed (unified) memory would move for the host store under the same
// budget, the baseline Grapin compares its cache with: the store's slot arrays are split into
// fixed-size pages, a read of a row faults in every page of its slots that is not resident (its
// bytes count as moved), resident pages are kept in least-recently-used order within the
// budget, and a page the host writes (an update, a rebalance) loses its device copy. The driver's
// prefetch heuristics are not modelled: every fault moves one page.
#pragma once
#include <cstdint>
#include <list>
#include <unordered_map>

namespace igp {

class PageModel {
   public:
    PageModel(int64_t budget_bytes, int64_t page_bytes);
    PageModel(const PageModel &other);  // the LRU order and its index rebuilt over the copy
    PageModel &operator=(const PageModel &) = delete;

    // A device read of bytes [begin, end) of array `array` (0 or 1).
    void read(int array, int64_t begin, int64_t end);
    // The host wrote bytes [begin, end) of array `array`.
    void write(int array, int64_t begin, int64_t end);
    // The host re-allocated array `array`: none of its pages stays resident.
    void drop(int array);

    int64_t moved() const { return moved_; }
    int64_t faults() const { return faults_; }
    int64_t resident() const { return static_cast<int64_t>(where_.size()); }
    int64_t page_bytes() const { return page_; }

   private:
    int64_t page_, capacity_;  // page size; resident pages at most
    std::list<int64_t> lru_;   // most recent first; key = page * 2 + array
    std::unordered_map<int64_t, std::list<int64_t>::iterator> where_;
    int64_t moved_ = 0, faults_ = 0;
};

}  // namespace igp
