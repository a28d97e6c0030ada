// Host store of the dynamic hypergraph under a device memory budget (DESIGN §10): its adjacency
// in two packed-memory-array CSRs (pma.h), vertex -> nets and net -> pins, with the hot-subgraph
// cache policy (hot_cache.h) over their rows. The row of vertex v is cache key 2v, the row of net
// e key 2e + 1; a row's size in bytes is its length in slots (holes included) times 4, what a
// zero-copy read of it moves.
//
// The dynamic hypergraph keeps the store in step with its bucket lists (the same entries in the
// same order, see pma.h) and, when one is attached, reads its adjacency from it: every read goes
// through for_each_net / for_each_pin, which records it with the cache policy.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "hot_cache.h"
#include "page_model.h"
#include "pma.h"

namespace igp {

struct HostStoreOptions {
    PmaOptions pma;
    int64_t cache_budget = 0;  // bytes of rows the device would keep
    int32_t tau = 3;           // sliding window: the current batch and tau before it
    int32_t min_hotness = 1;   // reads over the window a row needs to be cached
    bool stage = true;         // cold rows read in a batch stay on the device for the batch
    bool retain = true;        // held rows stay in the room the hot set leaves (hot_cache.h)
    bool write_through = true; // changes update the device's copy of a held row (hot_cache.h)
    int64_t page_model = 0;    // > 0: also model managed memory with pages of this many bytes
};

class HostStore {
   public:
    explicit HostStore(const HostStoreOptions &opt);
    HostStore(const HostStore &) = delete;
    HostStore &operator=(const HostStore &) = delete;

    // Rows from CSRs of both directions (vptr: n + 1 offsets into vind, eptr: m + 1 into eind).
    void build(const int64_t *vptr, const int32_t *vind, int64_t n, const int64_t *eptr,
               const int32_t *eind, int64_t m);
    // Vertex ids below n and net ids below m get rows.
    void ensure(int64_t n, int64_t m);
    void insert_pin(int32_t v, int32_t e);
    void delete_pin(int32_t v, int32_t e);
    // The end of a batch's changes: stale hot rows are reloaded (or evicted).
    void finish_changes();
    // The end of a batch: the cache refreshes its hot set; the batch's figures.
    CacheStats end_batch();

    template <class F>
    void for_each_net(int32_t v, F &&f) {
        cache_.record(2 * int64_t(v), 4 * vrows_.length(v));
        if (pages_) pages_->read(0, 4 * vrows_.start(v), 4 * (vrows_.start(v) + vrows_.length(v)));
        vrows_.for_each(v, f);
    }
    template <class F>
    void for_each_pin(int32_t e, F &&f) {
        cache_.record(2 * int64_t(e) + 1, 4 * erows_.length(e));
        if (pages_) pages_->read(1, 4 * erows_.start(e), 4 * (erows_.start(e) + erows_.length(e)));
        erows_.for_each(e, f);
    }
    int64_t row_bytes(int64_t key) const {
        return 4 * (key % 2 == 0 ? vrows_.length(static_cast<int32_t>(key / 2))
                                 : erows_.length(static_cast<int32_t>(key / 2)));
    }
    const PmaRows &vertex_rows() const { return vrows_; }
    const PmaRows &net_rows() const { return erows_; }
    const HotCache &cache() const { return cache_; }
    const PageModel *pages() const { return pages_.get(); }
    const HostStoreOptions &options() const { return opt_; }
    // Bytes of the two slot arrays and their row indices (start, length, entries).
    int64_t host_bytes() const;

    // A transaction (see DynamicHypergraph::begin_batch): from begin() on every change of the
    // rows and of the cache policy is journaled (journal.h), so that rollback() restores them
    // byte for byte in time proportional to the changes; commit() keeps them. The page model,
    // when one is attached, is copied at begin().
    void begin();
    void commit();
    void rollback();

   private:
    HostStoreOptions opt_;
    PmaRows vrows_, erows_;
    HotCache cache_;
    std::unique_ptr<PageModel> pages_;  // managed-memory model, when asked for
    int64_t pages_moved_ = 0, pages_faults_ = 0;  // at the end of the last batch
    void pages_written();  // tells the page model what the last update wrote
    void changed(int64_t key);  // row `key` gained or lost one entry: the cache policy hears of it
    Journal journal_;
    struct Saved {
        PmaRows::Scalars vrows, erows;
        HotCache::Scalars cache;
        int64_t pages_moved, pages_faults;
        std::unique_ptr<PageModel> pages;
    };
    std::unique_ptr<Saved> saved_;
};

}  // namespace igp
