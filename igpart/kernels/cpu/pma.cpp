// Packed-memory-array CSR (pma.h).
#include "pma.h"

#include <algorithm>
#include <stdexcept>

namespace igp {

PmaRows::PmaRows(const PmaOptions &opt) : opt_(opt) {
    if (opt_.leaf < 1 || (opt_.leaf & (opt_.leaf - 1)) != 0)
        throw std::invalid_argument("leaf segment size must be a power of two");
    if (!(opt_.upper_root > 0 && opt_.upper_root <= opt_.upper_leaf && opt_.upper_leaf <= 1.0))
        throw std::invalid_argument("need 0 < upper_root <= upper_leaf <= 1");
    if (!(opt_.lower_root >= 0 && opt_.build_density > 0 &&
          opt_.build_density <= opt_.upper_root && 2 * opt_.lower_root < opt_.build_density))
        throw std::invalid_argument("need 0 <= 2 * lower_root < build_density <= upper_root");
    slot_.assign(static_cast<size_t>(opt_.leaf), IGP_EMPTY_SLOT);
    rebalances_.assign(1, 0);
}

double PmaRows::upper(int32_t level) const {
    if (height_ == 0) return opt_.upper_root;
    return opt_.upper_leaf - (opt_.upper_leaf - opt_.upper_root) * level / height_;
}

void PmaRows::set_capacity_for(int64_t used, double density) {
    int32_t h = 0;
    while (static_cast<double>(used) > density * static_cast<double>(opt_.leaf << h)) ++h;
    height_ = h;
    reallocated_ = true;
    if (static_cast<int32_t>(rebalances_.size()) < h + 1) rebalances_.resize(h + 1, 0);
    if (j_) j_->whole(slot_);
    slot_.assign(static_cast<size_t>(opt_.leaf << h), IGP_EMPTY_SLOT);
}

void PmaRows::build(const int64_t *ptr, const int32_t *ind, int64_t rows) {
    start_.assign(static_cast<size_t>(rows), 0);
    len_.assign(static_cast<size_t>(rows), 0);
    live_.assign(static_cast<size_t>(rows), 0);
    buffer_.assign(ind + ptr[0], ind + ptr[rows]);
    for (int64_t r = 0; r < rows; ++r) {
        len_[r] = ptr[r + 1] - ptr[r];
        live_[r] = static_cast<int32_t>(len_[r]);
    }
    entries_ = used_ = ptr[rows] - ptr[0];
    set_capacity_for(used_, opt_.build_density);
    if (rows > 0) redistribute(0, rows - 1, 0, capacity(), -1, 0, true);
}

void PmaRows::add_rows(int64_t count) {
    const int64_t at = rows() > 0 ? start_.back() + len_.back() : 0;
    if (j_) {
        j_->size(start_);
        j_->size(len_);
        j_->size(live_);
    }
    start_.resize(start_.size() + count, at);
    len_.resize(len_.size() + count, 0);
    live_.resize(live_.size() + count, 0);
}

void PmaRows::insert(int32_t r, int32_t value) {
    if (j_) {
        j_->element(len_, r);
        j_->element(live_, r);
    }
    int64_t pos = -1;
    if (live_[r] < len_[r]) {  // a hole: the first one
        const int32_t *s = slot_.data() + start_[r];
        for (int64_t i = 0; i < len_[r]; ++i)
            if (s[i] == IGP_EMPTY_SLOT) {
                pos = start_[r] + i;
                break;
            }
    } else {
        if (start_[r] + len_[r] == end_of(r)) make_room(r);
        pos = start_[r] + len_[r];
        if (j_) j_->element(len_, r);  // make_room may have journaled an older value
        ++len_[r];
        ++used_;
    }
    if (j_) j_->element(slot_, pos);
    slot_[pos] = value;
    written(pos, pos + 1);
    ++live_[r];
    ++entries_;
}

bool PmaRows::erase(int32_t r, int32_t value) {
    int32_t *s = slot_.data() + start_[r];
    int64_t i = 0;
    while (i < len_[r] && s[i] != value) ++i;
    if (i == len_[r]) return false;
    if (j_) {
        j_->element(slot_, start_[r] + i);
        j_->element(len_, r);
        j_->element(live_, r);
    }
    s[i] = IGP_EMPTY_SLOT;
    written(start_[r] + i, start_[r] + i + 1);
    --live_[r];
    --entries_;
    while (len_[r] > 0 && s[len_[r] - 1] == IGP_EMPTY_SLOT) {
        --len_[r];
        --used_;
    }
    if (capacity() > opt_.leaf && static_cast<double>(used_) < opt_.lower_root * capacity())
        resize_all(opt_.build_density, -1, 0);
    return true;
}

void PmaRows::clear(int32_t r) {
    if (j_) {
        j_->range(slot_, start_[r], start_[r] + len_[r]);
        j_->element(len_, r);
        j_->element(live_, r);
    }
    std::fill(slot_.begin() + start_[r], slot_.begin() + start_[r] + len_[r], IGP_EMPTY_SLOT);
    written(start_[r], start_[r] + len_[r]);
    entries_ -= live_[r];
    used_ -= len_[r];
    live_[r] = 0;
    len_[r] = 0;
    if (capacity() > opt_.leaf && static_cast<double>(used_) < opt_.lower_root * capacity())
        resize_all(opt_.build_density, -1, 0);
}

void PmaRows::make_room(int32_t r) {
    const int64_t cap = capacity();
    const int64_t pos = std::min<int64_t>(start_[r], cap - 1);
    for (int32_t level = 0; level <= height_; ++level) {
        const int64_t width = opt_.leaf << level;
        const int64_t wlo = pos / width * width, whi = wlo + width;
        int64_t lo = std::lower_bound(start_.begin(), start_.end(), wlo) - start_.begin();
        int64_t hi = whi >= cap ? rows() - 1
                                : (std::lower_bound(start_.begin(), start_.end(), whi) -
                                   start_.begin()) - 1;
        lo = std::min<int64_t>(lo, r);
        hi = std::max<int64_t>(hi, r);
        const int64_t begin = start_[lo], end = end_of(static_cast<int32_t>(hi));
        int64_t need = 1;
        for (int64_t i = lo; i <= hi; ++i) need += len_[i];
        if (need <= end - begin &&
            static_cast<double>(need) <= upper(level) * static_cast<double>(end - begin)) {
            redistribute(lo, hi, begin, end, r, 1, false);
            ++rebalances_[level];
            return;
        }
    }
    ++growths_;
    resize_all(opt_.build_density, r, 1);
}

void PmaRows::resize_all(double density, int32_t wide, int64_t extra) {
    if (extra == 0) ++shrinks_;
    buffer_.clear();
    for (int64_t r = 0; r < rows(); ++r)
        buffer_.insert(buffer_.end(), slot_.begin() + start_[r],
                       slot_.begin() + start_[r] + len_[r]);
    set_capacity_for(used_ + extra, density);
    if (rows() > 0) redistribute(0, rows() - 1, 0, capacity(), wide, extra, true);
}

void PmaRows::redistribute(int64_t lo, int64_t hi, int64_t begin, int64_t end, int32_t wide,
                           int64_t extra, bool buffered) {
    if (!buffered) {  // gather the rows' slots, then clear the region
        buffer_.clear();
        for (int64_t r = lo; r <= hi; ++r)
            buffer_.insert(buffer_.end(), slot_.begin() + start_[r],
                           slot_.begin() + start_[r] + len_[r]);
        if (j_) j_->range(slot_, begin, end);
        std::fill(slot_.begin() + begin, slot_.begin() + end, IGP_EMPTY_SLOT);
        written(begin, end);
    }
    if (j_) j_->range(start_, lo, hi + 1);
    const int64_t count = hi - lo + 1;
    const int64_t free = end - begin - static_cast<int64_t>(buffer_.size()) - extra;
    int64_t pos = begin, from = 0;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t r = lo + i;
        start_[r] = pos;
        std::copy(buffer_.begin() + from, buffer_.begin() + from + len_[r], slot_.begin() + pos);
        from += len_[r];
        pos += len_[r] + (r == wide ? extra : 0) + free * (i + 1) / count - free * i / count;
    }
    moved_ += static_cast<int64_t>(buffer_.size());
    buffer_.clear();
}

void PmaRows::take_written(int64_t &lo, int64_t &hi, bool &reallocated) {
    lo = written_lo_;
    hi = written_hi_;
    reallocated = reallocated_;
    written_lo_ = written_hi_ = 0;
    reallocated_ = false;
}

std::vector<int32_t> PmaRows::row(int32_t r) const {
    std::vector<int32_t> out;
    out.reserve(static_cast<size_t>(live_[r]));
    for_each(r, [&](int32_t x) { out.push_back(x); });
    return out;
}

void PmaRows::check() const {
    auto fail = [](const std::string &what) { throw std::logic_error("PMA: " + what); };
    if (capacity() != (opt_.leaf << height_)) fail("capacity is not leaf * 2^height");
    int64_t entries = 0, used = 0, prev_end = 0;
    for (int64_t r = 0; r < rows(); ++r) {
        const std::string at = " at row " + std::to_string(r);
        if (start_[r] < prev_end) fail("row overlaps the previous one" + at);
        if (len_[r] < 0 || start_[r] + len_[r] > end_of(static_cast<int32_t>(r)))
            fail("row runs past its gap" + at);
        for (int64_t p = prev_end; p < start_[r]; ++p)
            if (slot_[p] != IGP_EMPTY_SLOT) fail("occupied slot in a gap" + at);
        int32_t live = 0;
        for (int64_t i = 0; i < len_[r]; ++i) live += slot_[start_[r] + i] != IGP_EMPTY_SLOT;
        if (live != live_[r]) fail("entry count differs" + at);
        if (len_[r] > 0 && slot_[start_[r] + len_[r] - 1] == IGP_EMPTY_SLOT)
            fail("row ends in a hole" + at);
        entries += live;
        used += len_[r];
        prev_end = start_[r] + len_[r];
    }
    for (int64_t p = prev_end; p < capacity(); ++p)
        if (slot_[p] != IGP_EMPTY_SLOT) fail("occupied slot after the last row");
    if (entries != entries_) fail("total entry count differs");
    if (used != used_) fail("total row length differs");
}

}  // namespace igp
