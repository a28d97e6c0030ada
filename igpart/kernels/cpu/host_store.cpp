// Host store of the dynamic hypergraph (host_store.h).
#include "host_store.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace igp {

HostStore::HostStore(const HostStoreOptions &opt)
    : opt_(opt), vrows_(opt.pma), erows_(opt.pma),
      cache_(opt.cache_budget, opt.tau, opt.min_hotness, opt.stage, opt.retain) {
    if (opt.page_model > 0) pages_ = std::make_unique<PageModel>(opt.cache_budget, opt.page_model);
}

void HostStore::begin() {
    saved_ = std::make_unique<Saved>(Saved{vrows_.save_scalars(), erows_.save_scalars(),
                                           cache_.save_scalars(), pages_moved_, pages_faults_,
                                           pages_ ? std::make_unique<PageModel>(*pages_)
                                                  : nullptr});
    journal_.open();
    vrows_.journal(&journal_);
    erows_.journal(&journal_);
    cache_.journal(&journal_);
}

void HostStore::commit() {
    vrows_.journal(nullptr);
    erows_.journal(nullptr);
    cache_.journal(nullptr);
    journal_.clear();
    saved_.reset();
}

void HostStore::rollback() {
    vrows_.journal(nullptr);
    erows_.journal(nullptr);
    cache_.journal(nullptr);
    journal_.undo();
    if (!saved_) return;
    vrows_.restore_scalars(saved_->vrows);
    erows_.restore_scalars(saved_->erows);
    cache_.restore_scalars(saved_->cache);
    pages_moved_ = saved_->pages_moved;
    pages_faults_ = saved_->pages_faults;
    if (saved_->pages) pages_ = std::move(saved_->pages);
    saved_.reset();
}

void HostStore::pages_written() {
    if (!pages_) return;
    const PmaRows *arrays[] = {&vrows_, &erows_};
    for (int a = 0; a < 2; ++a) {
        int64_t lo, hi;
        bool reallocated;
        const_cast<PmaRows *>(arrays[a])->take_written(lo, hi, reallocated);
        if (reallocated)
            pages_->drop(a);
        else if (lo < hi)
            pages_->write(a, 4 * lo, 4 * hi);
    }
}

void HostStore::build(const int64_t *vptr, const int32_t *vind, int64_t n, const int64_t *eptr,
                      const int32_t *eind, int64_t m) {
    vrows_.build(vptr, vind, n);
    erows_.build(eptr, eind, m);
    pages_written();
    cache_.resize(2 * std::max(n, m));
}

void HostStore::ensure(int64_t n, int64_t m) {
    if (n > vrows_.rows()) vrows_.add_rows(n - vrows_.rows());
    if (m > erows_.rows()) erows_.add_rows(m - erows_.rows());
    if (2 * std::max(n, m) > cache_.keys()) cache_.resize(2 * std::max(n, m));
}

void HostStore::insert_pin(int32_t v, int32_t e) {
    vrows_.insert(v, e);
    erows_.insert(e, v);
    pages_written();
    changed(2 * int64_t(v));
    changed(2 * int64_t(e) + 1);
}

void HostStore::delete_pin(int32_t v, int32_t e) {
    if (!vrows_.erase(v, e) || !erows_.erase(e, v))
        throw std::logic_error("host store: vertex " + std::to_string(v) + " is no pin of net " +
                               std::to_string(e));
    pages_written();
    changed(2 * int64_t(v));
    changed(2 * int64_t(e) + 1);
}

void HostStore::changed(int64_t key) {
    if (opt_.write_through)
        cache_.updated(key, row_bytes(key), 4);  // the entry's id crosses the bus
    else
        cache_.modified(key);
}

void HostStore::finish_changes() {
    cache_.finish_changes([this](int64_t key) { return row_bytes(key); });
}

CacheStats HostStore::end_batch() {
    CacheStats s = cache_.end_batch([this](int64_t key) { return row_bytes(key); });
    if (pages_) {
        s.paged = true;
        s.page_bytes = pages_->moved() - pages_moved_;
        s.page_faults = pages_->faults() - pages_faults_;
        pages_moved_ = pages_->moved();
        pages_faults_ = pages_->faults();
    }
    return s;
}

int64_t HostStore::host_bytes() const {
    auto rows_bytes = [](const PmaRows &p) { return 4 * p.capacity() + 20 * p.rows(); };
    return rows_bytes(vrows_) + rows_bytes(erows_);
}

}  // namespace igp
