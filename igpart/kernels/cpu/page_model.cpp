// Managed-memory page model (page_model.h).
#include "page_model.h"

#include <stdexcept>
#include <vector>

namespace igp {

PageModel::PageModel(int64_t budget_bytes, int64_t page_bytes)
    : page_(page_bytes), capacity_(page_bytes > 0 ? budget_bytes / page_bytes : 0) {
    if (page_bytes < 1) throw std::invalid_argument("page size must be positive");
}

PageModel::PageModel(const PageModel &other)
    : page_(other.page_), capacity_(other.capacity_), lru_(other.lru_),
      moved_(other.moved_), faults_(other.faults_) {
    for (auto it = lru_.begin(); it != lru_.end(); ++it) where_[*it] = it;
}

void PageModel::read(int array, int64_t begin, int64_t end) {
    for (int64_t p = begin / page_; p * page_ < end; ++p) {
        const int64_t key = p * 2 + array;
        auto it = where_.find(key);
        if (it != where_.end()) {
            lru_.splice(lru_.begin(), lru_, it->second);
            continue;
        }
        ++faults_;
        moved_ += page_;
        if (capacity_ == 0) continue;  // nothing stays resident
        if (static_cast<int64_t>(where_.size()) == capacity_) {
            where_.erase(lru_.back());
            lru_.pop_back();
        }
        lru_.push_front(key);
        where_[key] = lru_.begin();
    }
}

void PageModel::write(int array, int64_t begin, int64_t end) {
    for (int64_t p = begin / page_; p * page_ < end; ++p) {
        auto it = where_.find(p * 2 + array);
        if (it == where_.end()) continue;
        lru_.erase(it->second);
        where_.erase(it);
    }
}

void PageModel::drop(int array) {
    for (auto it = lru_.begin(); it != lru_.end();) {
        if (*it % 2 == array) {
            where_.erase(*it);
            it = lru_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace igp
