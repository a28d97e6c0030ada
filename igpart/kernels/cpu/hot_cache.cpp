// Hot-subgraph cache policy (hot_cache.h).
#include "hot_cache.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace igp {

HotCache::HotCache(int64_t budget_bytes, int32_t tau, int32_t min_hotness, bool stage,
                   bool retain)
    : budget_(budget_bytes), tau_(tau), min_hotness_(min_hotness), stage_(stage),
      retain_(retain) {
    if (budget_bytes < 0) throw std::invalid_argument("cache budget must be non-negative");
    if (tau < 0 || tau > 7) throw std::invalid_argument("tau must lie in [0, 7]");
    if (min_hotness < 1) throw std::invalid_argument("min_hotness must be at least 1");
}

void HotCache::resize(int64_t count) {
    if (count < keys()) throw std::invalid_argument("the cache's keys cannot shrink");
    if (j_) {
        j_->size(packed_);
        j_->size(hot_);
        j_->size(dirty_);
        j_->size(staged_);
        j_->size(hot_size_);
        j_->size(retained_);
    }
    retained_.resize(static_cast<size_t>(count), 0);
    packed_.resize(static_cast<size_t>(count), 0);
    hot_.resize(static_cast<size_t>(count), 0);
    dirty_.resize(static_cast<size_t>(count), 0);
    staged_.resize(static_cast<size_t>(count), 0);
    hot_size_.resize(static_cast<size_t>(count), 0);
}

void HotCache::make_room(int64_t bytes) {
    while (hot_bytes_ + staged_bytes_ + bytes > budget_ &&
           victims_left_ < static_cast<int64_t>(victims_.size())) {
        const int64_t key = victims_[static_cast<size_t>(victims_left_++)];
        if (!retained_[key] || !hot_[key]) continue;
        if (j_) {
            j_->element(retained_, key);
            j_->element(hot_, key);
            j_->element(hot_size_, key);
        }
        retained_[key] = 0;
        hot_[key] = 0;
        hot_bytes_ -= hot_size_[key];
        hot_size_[key] = 0;
        --hot_count_;
        ++cur_.evicted;
    }
}

int32_t HotCache::hotness(int64_t key) const {
    int32_t h = 0;
    for (uint64_t w = packed_[key]; w != 0; w >>= 8) h += static_cast<int32_t>(w & 0xff);
    return h;
}

void HotCache::finish_changes(const std::function<int64_t(int64_t)> &bytes_of) {
    if (j_) j_->whole(changed_);
    std::sort(changed_.begin(), changed_.end());
    for (int64_t key : changed_) {
        if (j_) {
            j_->element(dirty_, key);
            j_->element(hot_, key);
            j_->element(hot_size_, key);
        }
        dirty_[key] = 0;
        if (!hot_[key]) continue;
        const int64_t b = bytes_of(key);
        if (hot_bytes_ + staged_bytes_ - hot_size_[key] + b <= budget_) {
            ++cur_.reloaded;
            cur_.reload_bytes += b;
            hot_bytes_ += b - hot_size_[key];
            hot_size_[key] = b;
        } else {
            ++cur_.evicted;
            hot_[key] = 0;
            hot_bytes_ -= hot_size_[key];
            hot_size_[key] = 0;
            --hot_count_;
        }
    }
    changed_.clear();
}

CacheStats HotCache::end_batch(const std::function<int64_t(int64_t)> &bytes_of) {
    finish_changes(bytes_of);
    // candidates: hotness >= min_hotness, by decreasing hotness then increasing key
    std::vector<std::pair<int32_t, int64_t>> cand;
    cand.reserve(active_.size());
    for (int64_t key : active_) {
        const int32_t h = hotness(key);
        if (h >= min_hotness_) cand.emplace_back(-h, key);
    }
    std::sort(cand.begin(), cand.end());
    // the longest prefix that fits the budget
    std::vector<int64_t> chosen;
    std::vector<int64_t> size;
    int64_t total = 0;
    for (const auto &c : cand) {
        const int64_t b = bytes_of(c.second);
        if (total + b > budget_) break;
        total += b;
        chosen.push_back(c.second);
        size.push_back(b);
    }
    if (j_) {
        for (int64_t key : chosen) {
            j_->element(dirty_, key);
            j_->element(hot_, key);
            j_->element(hot_size_, key);
            j_->element(retained_, key);
        }
        for (int64_t key : hot_list_) {
            j_->element(hot_, key);
            j_->element(hot_size_, key);
            j_->element(retained_, key);
        }
        for (int64_t key : staged_list_) {
            j_->element(hot_, key);
            j_->element(hot_size_, key);
            j_->element(staged_, key);
            j_->element(retained_, key);
        }
        for (int64_t key : active_) j_->element(packed_, key);
        j_->whole(staged_list_);
        j_->whole(hot_list_);
        j_->whole(active_);
        j_->size(victims_);
    }
    // the chosen rows: kept (a held row, retained or not, stops being a victim), joined from
    // the staged rows, or loaded
    for (size_t i = 0; i < chosen.size(); ++i) {
        const int64_t key = chosen[i];
        dirty_[key] = 1;
        if (hot_[key]) {
            hot_bytes_ += size[i] - hot_size_[key];
            retained_[key] = 0;
        } else {
            hot_[key] = 1;
            hot_bytes_ += size[i];
            ++hot_count_;
            if (!staged_[key]) {  // a staged row is on the device already
                ++cur_.loaded;
                cur_.load_bytes += size[i];
            }
        }
        hot_size_[key] = size[i];
    }
    // rows of the last hot set and staged rows not chosen: retained (the newest victims), or
    // evicted / dropped without retention
    int64_t retained = 0;
    for (int64_t key : hot_list_) {
        if (!hot_[key] || dirty_[key] || retained_[key]) continue;
        if (retain_) {
            retained_[key] = 1;
            victims_.push_back(key);
            ++retained;
        } else {
            hot_[key] = 0;
            hot_bytes_ -= hot_size_[key];
            hot_size_[key] = 0;
            --hot_count_;
            ++cur_.evicted;
        }
    }
    for (int64_t key : staged_list_) {
        if (!staged_[key]) continue;
        staged_[key] = 0;
        if (dirty_[key]) continue;
        if (retain_) {
            hot_[key] = 1;
            hot_bytes_ += hot_size_[key];
            ++hot_count_;
            retained_[key] = 1;
            victims_.push_back(key);
            ++retained;
        } else {
            hot_size_[key] = 0;
        }
    }
    for (int64_t key : chosen) dirty_[key] = 0;
    staged_list_.clear();
    staged_bytes_ = 0;
    make_room(0);  // the oldest victims leave until the held rows fit the budget
    if (victims_left_ > 4096 && 2 * victims_left_ > static_cast<int64_t>(victims_.size())) {
        if (j_) j_->whole(victims_);
        victims_.erase(victims_.begin(), victims_.begin() + victims_left_);
        victims_left_ = 0;
    }
    std::sort(chosen.begin(), chosen.end());
    hot_list_ = std::move(chosen);
    // slide the window
    const uint64_t mask = tau_ >= 7 ? ~uint64_t(0) : (uint64_t(1) << (8 * (tau_ + 1))) - 1;
    size_t kept = 0;
    for (int64_t key : active_) {
        packed_[key] = (packed_[key] << 8) & mask;
        if (packed_[key] != 0) active_[kept++] = key;
    }
    active_.resize(kept);
    CacheStats out = cur_;
    out.hot_rows = hot_count_;
    out.hot_bytes = hot_bytes_;
    out.candidates = static_cast<int64_t>(cand.size());
    out.retained = retained;
    cur_ = CacheStats();
    return out;
}

std::vector<int64_t> HotCache::hot_keys() const {
    std::vector<int64_t> out;
    for (int64_t key : hot_list_)
        if (hot_[key]) out.push_back(key);
    for (size_t i = static_cast<size_t>(victims_left_); i < victims_.size(); ++i)
        if (hot_[victims_[i]] && retained_[victims_[i]]) out.push_back(victims_[i]);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace igp
