// Gain cache of the k-way FM (C++ backend), after Mt-KaHyPar's km1 / cut gain caches: per vertex
// one row of k terms, kept exact under moves by delta updates when a pin count of a net crosses
// a threshold, so a vertex's best move costs O(k) instead of O(degree * connectivity).
//
// For a pin v of a net e (|e| >= 2, weight w) let o(e, v, b) be the number of e's *other* pins
// in block b. Row entry R(v, b) sums w over v's nets with
//   km1: o(e, v, b) >= 1          cut: o(e, v, b) == |e| - 1 (every other pin in b),
// and the gain of moving v from its block s to t is R(v, t) - R(v, s) (move_gain summed over v's
// nets: km1 w * ([pt >= 1] - [pf >= 2]), cut w * ([pt == |e| - 1] - [pf == |e|])). A move of u
// leaves o(e, u, .) unchanged, so u's own row stays; the other pins of its nets change only in
// the source and target columns, and only at the thresholds (net_moved). A target t is offered
// (the blocks collect_gains of refine.cpp touches) when some net of v counts towards t: R > 0,
// or, on levels with zero-weight nets, a per-entry count of such nets.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "partition.h"
#include "pin_counts.h"
#include "refine_impl.h"

namespace igp {

// Relaxed atomics on plain memory (the parallel FM updates shared rows and block weights).
template <class T>
inline T relaxed_load(const T &x) {
    return __atomic_load_n(&x, __ATOMIC_RELAXED);
}
template <class T>
inline void relaxed_store(T &x, T v) {
    __atomic_store_n(&x, v, __ATOMIC_RELAXED);
}
template <class T>
inline T relaxed_add(T &x, T d) {
    return __atomic_add_fetch(&x, d, __ATOMIC_RELAXED);
}

// Whether a net of `size` pins with `others` of the pin's other pins in block b counts towards
// b in the pin's row.
inline bool row_term(int objective, int64_t size, int64_t others) {
    return objective == OBJ_CUT ? others == size - 1 : others >= 1;
}

// G: the entry type, int32_t when the level's net weights sum below 2^31, else int64_t.
template <class G>
class GainCache {
   public:
    // At most this many entries (n * k) are kept; above, the FM evaluates gains from the pin
    // counts (memory: 1 GiB of int32 entries).
    static constexpr int64_t kMaxEntries = int64_t(1) << 28;
    static bool fits(const HgView &h, int32_t k) {
        return h.n <= kMaxEntries / std::max<int32_t>(k, 1);
    }
    // Whether G holds every sum of net weights of the level.
    static bool holds(const HgView &h) {
        int64_t total = 0;
        for (int64_t e = 0; e < h.m; ++e) {
            total += h.ewgt[e];
            if (total > static_cast<int64_t>(std::numeric_limits<G>::max())) return false;
        }
        return true;
    }

    GainCache(const HgView &h, int32_t k, int objective)
        : h_(h), k_(k), objective_(objective),
          row_(static_cast<size_t>(h.n) * static_cast<size_t>(k)) {
        bool zero = false;
        for (int64_t e = 0; e < h.m && !zero; ++e) zero = h.ewgt[e] == 0 && h.size(e) >= 2;
        if (zero) cnt_.resize(row_.size());
    }

    // Every row from the pin counts (in parallel over the vertices).
    void build(const PinCounts &phi, const int32_t *parts) {
#pragma omp parallel for schedule(dynamic, 1024) if (h_.n >= kParallelMinItems)
        for (int64_t u = 0; u < h_.n; ++u) build_row(phi, parts, static_cast<int32_t>(u));
    }

    G entry(int32_t u, int32_t b) const { return relaxed_load(row_[idx(u, b)]); }
    bool offered(int32_t u, int32_t b) const {
        return cnt_.empty() ? entry(u, b) > 0 : relaxed_load(cnt_[idx(u, b)]) > 0;
    }
    int64_t gain(int32_t u, int32_t s, int32_t t) const {
        return static_cast<int64_t>(entry(u, t)) - static_cast<int64_t>(entry(u, s));
    }

    // Best move of u (in block s) to an offered block accepted by `accept`, ties to the smaller
    // id: best_adjacent_move of refine.cpp.
    template <class Accept>
    Move best(int32_t u, int32_t s, Accept accept) const {
        Move best;
        const int64_t base = entry(u, s);
        for (int32_t b = 0; b < k_; ++b) {
            if (b == s || !offered(u, b) || !accept(b)) continue;
            const int64_t g = static_cast<int64_t>(entry(u, b)) - base;
            if (!best.ok() || g > best.gain) best = {b, g};
        }
        return best;
    }

    // u has moved from `from` to `to`; net e now has `a` pins in `from` and `c` in `to`, and
    // `parts` holds the blocks of its other pins. Updates their rows (atomically: several moves
    // may update one row at once; the parallel FM rebuilds the rows each round, since a pin of
    // a net moving at the same time may be read in its new block before its counts change).
    void net_moved(int32_t e, int32_t u, int32_t from, int32_t to, int64_t a, int64_t c,
                   const int32_t *parts) {
        row_changes(e, u, from, to, a, c,
                    [parts](int32_t v) { return relaxed_load(parts[v]); },
                    [this](int32_t v, int32_t b, G w, int32_t nets) { add(v, b, w, nets); });
    }

    // The row changes net_moved makes, handed to `add(v, b, weight delta, net count delta)`
    // with the blocks of e's other pins from `part_of(v)` (the parallel FM's local searches
    // keep them in a search-local delta).
    template <class PartOf, class Add>
    void row_changes(int32_t e, int32_t u, int32_t from, int32_t to, int64_t a, int64_t c,
                     PartOf part_of, Add add) const {
        const int64_t size = h_.size(e);
        if (size < 2) return;
        const G w = static_cast<G>(h_.ewgt[e]);
        // which pins lose `from` from their row: all, those in `from`, those not in it, none
        int from_sel, to_sel;
        if (objective_ == OBJ_KM1) {
            from_sel = a == 0 ? kAll : a == 1 ? kIn : kNone;
            to_sel = c == 1 ? kAll : c == 2 ? kIn : kNone;
        } else {
            from_sel = a == size - 1 ? kAll : a == size - 2 ? kOut : kNone;
            to_sel = c == size ? kAll : c == size - 1 ? kOut : kNone;
        }
        if (from_sel == kNone && to_sel == kNone) return;
        for (int64_t q = h_.eptr[e]; q < h_.eptr[e + 1]; ++q) {
            const int32_t v = h_.eind[q];
            if (v == u) continue;
            const int32_t pv = part_of(v);
            if (selected(from_sel, pv == from)) add(v, from, -w, -1);
            if (selected(to_sel, pv == to)) add(v, to, w, 1);
        }
    }

    // Whether the entries count nets (levels with zero-weight nets) and that count.
    bool counts_nets() const { return !cnt_.empty(); }
    int32_t net_count(int32_t u, int32_t b) const { return relaxed_load(cnt_[idx(u, b)]); }

    // Whether a move from `from` (pf pins there before it) to `to` (pt before) on a net changes
    // any other pin's row (the thresholds of net_moved).
    bool changes(int64_t size, int64_t pf, int64_t pt) const {
        return move_changes_gains(objective_, size, pf, pt);
    }

    // The row of u recomputed from the pin counts equals the kept one (tests).
    bool row_matches(const PinCounts &phi, const int32_t *parts, int32_t u) const {
        std::vector<G> r(static_cast<size_t>(k_), 0);
        std::vector<int32_t> c(static_cast<size_t>(k_), 0);
        scratch_row(phi, parts, u, r.data(), c.data());
        for (int32_t b = 0; b < k_; ++b) {
            if (r[b] != entry(u, b)) return false;
            if (!cnt_.empty() && c[b] != cnt_[idx(u, b)]) return false;
        }
        return true;
    }

   private:
    enum { kNone = 0, kAll = 1, kIn = 2, kOut = 3 };
    static bool selected(int sel, bool in) {
        return sel == kAll || (sel == kIn && in) || (sel == kOut && !in);
    }
    size_t idx(int32_t u, int32_t b) const {
        return static_cast<size_t>(u) * static_cast<size_t>(k_) + static_cast<size_t>(b);
    }
    void add(int32_t v, int32_t b, G w, int32_t nets) {
        relaxed_add(row_[idx(v, b)], w);
        if (!cnt_.empty()) relaxed_add(cnt_[idx(v, b)], nets);
    }
    void scratch_row(const PinCounts &phi, const int32_t *parts, int32_t u, G *r,
                     int32_t *c) const {
        const int32_t s = parts[u];
        for (int64_t j = h_.vptr[u]; j < h_.vptr[u + 1]; ++j) {
            const int32_t e = h_.vind[j];
            const int64_t size = h_.size(e);
            if (size < 2) continue;
            const int32_t lam = phi.lambda(e);
            const int32_t *bl = phi.blocks(e);
            const int32_t *ct = phi.counts(e);
            for (int32_t i = 0; i < lam; ++i)
                if (row_term(objective_, size, ct[i] - (bl[i] == s))) {
                    r[bl[i]] += static_cast<G>(h_.ewgt[e]);
                    ++c[bl[i]];
                }
        }
    }
    void build_row(const PinCounts &phi, const int32_t *parts, int32_t u) {
        G *r = row_.data() + idx(u, 0);
        std::fill(r, r + k_, G(0));
        if (cnt_.empty()) {
            thread_local std::vector<int32_t> c;
            c.assign(static_cast<size_t>(k_), 0);
            scratch_row(phi, parts, u, r, c.data());
        } else {
            int32_t *c = cnt_.data() + idx(u, 0);
            std::fill(c, c + k_, 0);
            scratch_row(phi, parts, u, r, c);
        }
    }
    const HgView &h_;
    int32_t k_;
    int objective_;
    // n x k entries each, every row written by build() before it is read: left unset until
    // then (no sequential zeroing of n x k entries before the parallel build)
    UninitVector<G> row_;
    UninitVector<int32_t> cnt_;  // nets counting towards each entry (levels with zero weights)
};

// A queue entry of the k-way FM: u's best move (to, gain) when queued, with u's version then
// (stale when the vertex was queued again since). Pops by gain, then smaller tie hash, then
// smaller id: a total order, so the pop order depends only on the set of entries.
struct FmEntry {
    int64_t gain;
    uint32_t tie;
    int32_t u, to;
    uint32_t version;
    bool operator<(const FmEntry &o) const {
        return gain != o.gain ? gain < o.gain : (tie != o.tie ? tie > o.tie : u > o.u);
    }
};

// Moves u from `from` to `to` (sequential FM): pin counts, parts and cache (NoGainCache or
// GainCache) updated; `touched` (optional) gets u's nets of 2 .. max_touched_size pins whose
// other pins' gains the move may change.
template <class Cache>
void move_vertex(const HgView &h, PinCounts &phi, int objective, Cache &cache, int32_t *parts,
                 int32_t u, int32_t from, int32_t to, std::vector<int32_t> *touched,
                 int64_t max_touched_size) {
    if (touched) touched->clear();
    parts[u] = to;
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
        const int32_t e = h.vind[j];
        const int64_t size = h.size(e);
        const int32_t pf = phi.get(e, from), pt = phi.get(e, to);
        phi.dec(e, from);
        phi.inc(e, to);
        if (size < 2 || !move_changes_gains(objective, size, pf, pt)) continue;
        cache.net_moved(e, u, from, to, pf - 1, pt + 1, parts);
        if (touched && size <= max_touched_size) touched->push_back(e);
    }
}

// Test hook: the cache built for `parts`, then the moves (mu[i] to mt[i]) applied one after the
// other through move_vertex; fills gains[u * k + b] with the cached gain of moving u to b and
// offered[u * k + b] with whether b is offered (0 for u's own block); parts ends moved.
void gain_cache_after_moves(const HgView &h, int32_t *parts, int32_t k, int objective,
                            const int32_t *mu, const int32_t *mt, int64_t moves,
                            std::vector<int64_t> &gains, std::vector<uint8_t> &offered);

}  // namespace igp
