// Hot-subgraph cache policy (Grapin §5.1): which rows of the host store a device would keep,
// chosen by access frequency over a sliding window of batches, under a byte budget; and the
// accounting of the bytes each batch would move host -> device.
//
// Keys are row ids of the store (the store interleaves its vertex and net rows). During a batch
// every read of a row is recorded: the row's access count of the batch (one byte, saturating at
// 255) grows by one, and the read is a hit when the row is in the hot set (read from device
// memory) or a cold read (a zero-copy read of its bytes over the bus). The counts of the current
// batch and of the `tau` batches before it are packed in one 64-bit word per key (tau <= 7).
//
// Between batches (end_batch), the hotness of a key is the sum of its packed counts (Grapin eq.
// 1, hotness(v) = sum of C_k(v) for k from i - tau to i); the keys of hotness at least
// `min_hotness`, in decreasing hotness (increasing key among equals), form the candidates, and
// the hot set is their longest prefix whose bytes fit the budget. Keys that enter the hot set
// are loaded (their bytes count as moved, unless staged in the batch); keys that leave are
// evicted (nothing moves). The
// window then slides: the oldest count drops out and the new batch starts at zero.
//
// Rows that change between refreshes (modified) keep the hot set consistent: at the end of the
// changes (finish_changes), each changed hot row is reloaded (its bytes count as moved) while
// the hot and staged bytes stay within the budget, in increasing key order; a changed row that
// no longer fits is evicted. So the bytes on the device never exceed the budget, and everything
// is deterministic.
//
// Write-through (updated, used by the host store): the device applies a batch's change to the
// copy it holds, as the host applies it to the store, instead of dropping the copy. A hot or
// staged row that changes stays on the device with its new size when the held bytes still fit
// the budget (else it leaves, as with modified); the entries written count as moved
// (write_bytes), the rest of the row does not move again. Rows read, changed and read again in
// one batch (a gate inserted, then its region refined) so cross the bus once.
//
// Staging (on by default; Grapin caches only between batches). A cold row read during a batch is
// staged, that is, kept on the device for the rest of the batch, when the hot rows and the rows
// staged so far leave room for it: its first read moves its bytes, later reads of the batch are
// hits. Staged rows the refresh chooses join the hot set without moving again; the others are
// dropped. A staged row that changes is dropped at once. Repeated reads of a row within a batch
// (the refinement visits a region's rows several times) are what staging saves; the window saves
// reads that recur across batches.
//
// Retention (on by default). A row on the device that the window no longer calls hot costs
// nothing to keep, and evicting it saves nothing: rows of the last hot set and staged rows that
// the refresh does not choose stay on the device as retained rows, queued in the order they
// left (by key within a refresh), while the held bytes fit the budget; the oldest leave first
// when they do not. Retained rows are also the first victims of the next batch: when staging a
// cold row needs room, retained rows are evicted, oldest first (nothing moves), so retention
// never takes room staging would have used. A read of a retained row is a hit and takes it off
// the queue (lazily: a row that is queued twice may leave at its first place). On workloads
// whose batches revisit rows only after more than tau batches (random cells of a large design)
// this turns free room into hits the window cannot see. A refresh costs time in proportion to
// the keys read in the window plus the rows that leave.
//
// Only keys with a nonzero packed word are visited between batches, so a refresh costs time in
// proportion to the keys read in the last tau + 1 batches, not to all keys.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "journal.h"

namespace igp {

struct CacheStats {
    int64_t hits = 0, hit_bytes = 0;          // reads of hot rows (device memory)
    int64_t cold_reads = 0, cold_bytes = 0;   // zero-copy reads of cold rows
    int64_t loaded = 0, load_bytes = 0;       // rows loaded into the hot set by the refresh
    int64_t reloaded = 0, reload_bytes = 0;   // changed hot rows loaded again
    int64_t written = 0, write_bytes = 0;     // changes written through to held rows
    int64_t staged = 0, staged_hits = 0;      // rows staged in the batch; hits on them
    int64_t evicted = 0;                      // rows that left the hot set
    int64_t hot_rows = 0, hot_bytes = 0;      // the hot set after the refresh
    int64_t candidates = 0;                   // keys of hotness >= min_hotness
    int64_t retained = 0;                     // rows kept in free room past the window
    bool paged = false;                       // managed-memory model (host_store.h) on:
    int64_t page_bytes = 0, page_faults = 0;  // what it moved, in pages faulted in
    // Host -> device bytes of the batch: cold reads, loads, reloads and written changes.
    int64_t moved() const { return cold_bytes + load_bytes + reload_bytes + write_bytes; }
    // What reading every row zero-copy would have moved (no cache).
    int64_t zero_copy() const { return hit_bytes + cold_bytes; }
};

class HotCache {
   public:
    HotCache(int64_t budget_bytes, int32_t tau, int32_t min_hotness, bool stage = true,
             bool retain = true);

    // Keys become [0, count) (new keys cold, never read).
    void resize(int64_t count);
    int64_t keys() const { return static_cast<int64_t>(packed_.size()); }

    // A read of row `key` of `bytes` bytes.
    void record(int64_t key, int64_t bytes) {
        uint64_t &w = packed_[key];
        if (j_) j_->element(packed_, key);
        if (w == 0) {
            if (j_) j_->size(active_);
            active_.push_back(key);
        }
        if ((w & 0xff) != 0xff) ++w;
        if (hot_[key] || staged_[key]) {
            ++cur_.hits;
            cur_.hit_bytes += bytes;
            cur_.staged_hits += staged_[key];
            if (retained_[key]) {  // in use: no longer a victim
                if (j_) j_->element(retained_, key);
                retained_[key] = 0;
            }
        } else {
            ++cur_.cold_reads;
            cur_.cold_bytes += bytes;
            if (stage_) make_room(bytes);
            if (stage_ && hot_bytes_ + staged_bytes_ + bytes <= budget_) {
                if (j_) {
                    j_->element(staged_, key);
                    j_->element(hot_size_, key);
                    j_->size(staged_list_);
                }
                staged_[key] = 1;
                hot_size_[key] = bytes;
                staged_bytes_ += bytes;
                staged_list_.push_back(key);
                ++cur_.staged;
            }
        }
    }
    // Row `key` changed (its bytes in the hot set, if there, are stale; if staged, it is
    // dropped).
    void modified(int64_t key) {
        if (j_) {
            j_->element(staged_, key);
            j_->element(hot_size_, key);
            j_->element(dirty_, key);
            j_->size(changed_);
        }
        if (staged_[key]) {
            staged_[key] = 0;
            staged_bytes_ -= hot_size_[key];
            hot_size_[key] = 0;
        }
        if (hot_[key] && !dirty_[key]) {
            dirty_[key] = 1;
            changed_.push_back(key);
        }
    }
    // Row `key` changed and the device applied the change to its copy (write-through):
    // `write_bytes` moved, the row now occupies `new_bytes`. A held row that no longer fits
    // leaves the device; a row not held is untouched.
    void updated(int64_t key, int64_t new_bytes, int64_t write_bytes) {
        const bool held = staged_[key] || (hot_[key] && !dirty_[key]);
        if (!held) {
            if (hot_[key]) modified(key);  // already stale: reloaded at finish_changes
            return;
        }
        if (j_) j_->element(hot_size_, key);
        const int64_t grow = new_bytes - hot_size_[key];
        if (hot_bytes_ + staged_bytes_ + grow > budget_) {
            if (staged_[key]) {
                modified(key);
                return;
            }
            if (j_) j_->element(hot_, key);
            hot_[key] = 0;
            hot_bytes_ -= hot_size_[key];
            hot_size_[key] = 0;
            --hot_count_;
            ++cur_.evicted;
            return;
        }
        hot_size_[key] = new_bytes;
        (staged_[key] ? staged_bytes_ : hot_bytes_) += grow;
        ++cur_.written;
        cur_.write_bytes += write_bytes;
    }
    // Reloads or evicts the changed hot rows; bytes_of(key) is a row's current size in bytes.
    void finish_changes(const std::function<int64_t(int64_t)> &bytes_of);
    // Closes the batch: refreshes the hot set, slides the window, returns the batch's figures.
    CacheStats end_batch(const std::function<int64_t(int64_t)> &bytes_of);

    bool hot(int64_t key) const { return hot_[key] != 0; }
    int64_t hot_bytes() const { return hot_bytes_; }
    int64_t staged_bytes() const { return staged_bytes_; }
    bool stage() const { return stage_; }
    bool retain() const { return retain_; }
    int64_t budget() const { return budget_; }
    int32_t tau() const { return tau_; }
    int32_t min_hotness() const { return min_hotness_; }
    // Hotness of `key` over the window so far (current batch included).
    int32_t hotness(int64_t key) const;
    const CacheStats &current() const { return cur_; }
    // The hot set, ascending.
    std::vector<int64_t> hot_keys() const;

    // Journals every change from now on into `j` (nullptr: stop); see journal.h. The scalars
    // are saved by save_scalars() and put back by restore_scalars().
    void journal(Journal *j) { j_ = j; }
    struct Scalars {
        int64_t staged_bytes, hot_bytes, hot_count, victims_left;
        CacheStats cur;
    };
    Scalars save_scalars() const {
        return {staged_bytes_, hot_bytes_, hot_count_, victims_left_, cur_};
    }
    void restore_scalars(const Scalars &s) {
        staged_bytes_ = s.staged_bytes, hot_bytes_ = s.hot_bytes, hot_count_ = s.hot_count;
        victims_left_ = s.victims_left;
        cur_ = s.cur;
    }

   private:
    int64_t budget_;
    int32_t tau_, min_hotness_;
    bool stage_, retain_;
    std::vector<uint8_t> retained_;  // held by retention and not read since: a victim
    std::vector<int64_t> victims_;   // the retention queue, oldest first
    int64_t victims_left_ = 0;       // its head: victims_[0, victims_left_) are taken
    // Evicts retained rows, oldest first, until `bytes` more fit (or none is left).
    void make_room(int64_t bytes);
    std::vector<uint64_t> packed_;  // byte i: count of the batch i batches ago
    std::vector<uint8_t> hot_, dirty_, staged_;
    std::vector<int64_t> hot_size_;  // bytes a hot key occupies on the device
    std::vector<int64_t> active_;    // keys with packed_ != 0 (no duplicates)
    std::vector<int64_t> changed_;
    std::vector<int64_t> hot_list_;
    std::vector<int64_t> staged_list_;  // may list keys dropped since (staged_ = 0)
    int64_t staged_bytes_ = 0;  // the hot set (may also list keys evicted since, hot_ = 0)
    int64_t hot_bytes_ = 0, hot_count_ = 0;
    CacheStats cur_;
    Journal *j_ = nullptr;
};

}  // namespace igp
