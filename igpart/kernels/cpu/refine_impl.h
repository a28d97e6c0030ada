// Internal helpers of the refinement kernels shared by hypergraphs (refine.cpp) and graphs
// (graph_refine.cpp): block rooms, move records, and the greedy rebalancer (phase 1: least loss
// per unit of weight out of overloaded blocks; phase 2: first-fit-decreasing repacking).
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <queue>
#include <set>
#include <utility>
#include <vector>

#include "partition.h"
#include "partition_common.h"

namespace igp {

struct Move {
    int32_t to = -1;
    int64_t gain = 0;
    bool ok() const { return to >= 0; }
};

// Block weights with an ordered index of rooms (bound - weight): the block with the most room is
// found in O(log k).
class BlockRooms {
   public:
    BlockRooms(std::vector<int64_t> weights, const int64_t *bounds, int32_t k)
        : w_(std::move(weights)), bounds_(bounds), k_(k) {
        for (int32_t b = 0; b < k_; ++b) {
            index_.insert({-(bounds_[b] - w_[b]), b});
            overloaded_ += w_[b] > bounds_[b];
        }
    }
    int64_t weight(int32_t b) const { return w_[b]; }
    int64_t room(int32_t b) const { return bounds_[b] - w_[b]; }
    bool fits(int32_t b, int64_t w) const { return w_[b] + w <= bounds_[b]; }
    bool overloaded(int32_t b) const { return w_[b] > bounds_[b]; }
    int64_t num_overloaded() const { return overloaded_; }
    int32_t most_room() const { return index_.begin()->second; }
    void add(int32_t b, int64_t d) {
        if (d == 0) return;
        overloaded_ -= w_[b] > bounds_[b];
        index_.erase({-(bounds_[b] - w_[b]), b});
        w_[b] += d;
        index_.insert({-(bounds_[b] - w_[b]), b});
        overloaded_ += w_[b] > bounds_[b];
    }
    void move(int32_t from, int32_t to, int64_t w) {
        add(from, -w);
        add(to, w);
    }
    int64_t total_overload() const {
        int64_t s = 0;
        for (int32_t b = 0; b < k_; ++b) s += std::max<int64_t>(0, w_[b] - bounds_[b]);
        return s;
    }
    const std::vector<int64_t> &weights() const { return w_; }

   private:
    std::vector<int64_t> w_;
    const int64_t *bounds_;
    int32_t k_;
    int64_t overloaded_ = 0;
    std::set<std::pair<int64_t, int32_t>> index_;
};

inline std::vector<int64_t> weights_of(int64_t n, const int64_t *vwgt, const int32_t *parts,
                                       int32_t k) {
    std::vector<int64_t> w(static_cast<size_t>(k), 0);
    // every refinement stage call starts with it: in parallel on large levels (integer sums, the
    // same on any threads), per-thread sums added up at the end
    const int threads = k <= n / 64 ? loop_threads(n) : 1;
    if (threads == 1 || in_parallel()) {
        for (int64_t v = 0; v < n; ++v) w[parts[v]] += vwgt[v];
        return w;
    }
#pragma omp parallel num_threads(threads)
    {
        std::vector<int64_t> mine(static_cast<size_t>(k), 0);
#pragma omp for schedule(static) nowait
        for (int64_t v = 0; v < n; ++v) mine[parts[v]] += vwgt[v];
        for (int32_t b = 0; b < k; ++b)
            if (mine[b]) {
#pragma omp atomic
                w[b] += mine[b];
            }
    }
    return w;
}

// Phase 2 of rebalancing: vertices by weight descending (ties: id) stay in their block while it
// has room (keep_current) or go to the block with the most room. Returns the total overload.
// Locked vertices (locked[v] != 0, when given) stay in their block and are placed first.
inline int64_t repack_first_fit(int64_t n, const int64_t *vwgt, const int32_t *parts, int32_t k,
                                const int64_t *bounds, bool keep_current,
                                std::vector<int32_t> &out, const uint8_t *locked = nullptr) {
    std::vector<int32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::vector<int64_t> fixed_load(static_cast<size_t>(k), 0);
    if (locked) {
        for (int64_t v = 0; v < n; ++v)
            if (locked[v]) fixed_load[parts[v]] += vwgt[v];
        order.erase(std::remove_if(order.begin(), order.end(),
                                   [&](int32_t v) { return locked[v] != 0; }),
                    order.end());
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return vwgt[a] > vwgt[b]; });
    BlockRooms rooms(std::move(fixed_load), bounds, k);
    out.assign(parts, parts + n);
    for (int32_t v : order) {
        const int64_t w = vwgt[v];
        int32_t b = parts[v];
        if (!keep_current || !rooms.fits(b, w)) b = rooms.most_room();
        out[v] = b;
        rooms.add(b, w);
    }
    return rooms.total_overload();
}

// Phase 3 of rebalancing: single moves and pairwise swaps that lower the overload of the most
// overloaded block (O(|block| * n) per step; used on levels of at most kSwapMaxVertices).
inline void repair_by_swaps(int64_t n, const int64_t *vwgt, int32_t *parts, int32_t k,
                            const int64_t *bounds, const uint8_t *locked = nullptr) {
    BlockRooms rooms(weights_of(n, vwgt, parts, k), bounds, k);
    for (int64_t step = 0; step < 4 * n && rooms.num_overloaded() > 0; ++step) {
        int32_t a = -1;
        for (int32_t b = 0; b < k; ++b)
            if (rooms.overloaded(b) && (a < 0 || -rooms.room(b) > -rooms.room(a))) a = b;
        const int64_t over = -rooms.room(a);
        int64_t best_gain = 0;
        int32_t bu = -1, bv = -1, bb = -1;
        for (int64_t u = 0; u < n; ++u) {
            if (parts[u] != a || vwgt[u] <= 0 || (locked && locked[u])) continue;
            for (int32_t b = 0; b < k; ++b) {  // single move
                if (b == a || !rooms.fits(b, vwgt[u])) continue;
                const int64_t g = std::min(vwgt[u], over);
                if (g > best_gain) best_gain = g, bu = static_cast<int32_t>(u), bv = -1, bb = b;
            }
            for (int64_t v = 0; v < n; ++v) {  // swap with a lighter vertex elsewhere
                const int32_t b = parts[v];
                const int64_t d = vwgt[u] - vwgt[v];
                if (b == a || d <= 0 || !rooms.fits(b, d) || (locked && locked[v])) continue;
                const int64_t g = std::min(d, over);
                if (g > best_gain) best_gain = g, bu = static_cast<int32_t>(u), bv = static_cast<int32_t>(v), bb = b;
            }
        }
        if (bu < 0) break;
        parts[bu] = bb;
        rooms.move(a, bb, vwgt[bu]);
        if (bv >= 0) {
            parts[bv] = a;
            rooms.move(bb, a, vwgt[bv]);
        }
    }
}

// Phase 4: exact bin packing by depth-first search (vertices by weight descending; blocks of
// equal load tried once), for levels of at most kExactMaxVertices. Returns true when found.
inline bool pack_exact(int64_t n_all, const int64_t *vwgt, int32_t *parts, int32_t k,
                       const int64_t *bounds, const uint8_t *locked = nullptr) {
    std::vector<int32_t> order(static_cast<size_t>(n_all));
    std::iota(order.begin(), order.end(), 0);
    std::vector<int64_t> load(static_cast<size_t>(k), 0);
    if (locked) {  // locked vertices stay: their weight is preloaded, the rest is packed
        for (int64_t v = 0; v < n_all; ++v)
            if (locked[v]) load[parts[v]] += vwgt[v];
        order.erase(std::remove_if(order.begin(), order.end(),
                                   [&](int32_t v) { return locked[v] != 0; }),
                    order.end());
    }
    const int64_t n = static_cast<int64_t>(order.size());
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return vwgt[a] > vwgt[b]; });
    std::vector<int32_t> assign(static_cast<size_t>(n), -1);
    int64_t budget = 2000000;
    // iterative DFS over (position, next block to try)
    std::vector<int32_t> next(static_cast<size_t>(n + 1), 0);
    int64_t i = 0;
    while (i >= 0) {
        if (i == n) {
            for (int64_t j = 0; j < n; ++j) parts[order[j]] = assign[j];
            return true;
        }
        if (--budget < 0) return false;
        const int64_t w = vwgt[order[i]];
        if (assign[i] >= 0) {  // undo the previous choice at this position
            load[assign[i]] -= w;
            assign[i] = -1;
        }
        int32_t b = next[i];
        for (; b < k; ++b) {
            if (load[b] + w > bounds[b]) continue;
            bool dup = false;  // same load and bound as an earlier block: same subtree
            for (int32_t c = 0; c < b && !dup; ++c) dup = load[c] == load[b] && bounds[c] == bounds[b];
            if (!dup) break;
        }
        if (b >= k) {
            next[i] = 0;
            --i;
            continue;
        }
        assign[i] = b;
        load[b] += w;
        next[i] = b + 1;
        ++i;
        next[i] = 0;
    }
    return false;
}

constexpr int64_t kSwapMaxVertices = 4096;
constexpr int64_t kExactMaxVertices = 24;

// The rebalancer. Oracle provides:
//   Move best_fitting(int32_t u, const BlockRooms &rooms): the move of u to another block with
//     room for it of highest gain (ties: more room, then smaller id); !ok() when none fits;
//   void apply(int32_t u, int32_t from, int32_t to): updates the oracle's own state.
// Leaves a balanced partition unchanged. Phases 2-4 run only while blocks stay overloaded.
// Vertices with a non-zero `locked` entry (when given) never move.
template <class Oracle>
void rebalance_impl(int64_t n, const int64_t *vwgt, int32_t *parts, int32_t k,
                    const int64_t *bounds, Oracle &oracle, const uint8_t *locked = nullptr) {
    BlockRooms rooms(weights_of(n, vwgt, parts, k), bounds, k);
    if (rooms.num_overloaded() == 0) return;
    // Phase 1: least loss per unit of weight, lazily re-evaluated.
    struct Entry {
        double key;
        int32_t u;
        bool operator<(const Entry &o) const { return key != o.key ? key < o.key : u > o.u; }
    };
    std::priority_queue<Entry> pq;
    for (int64_t u = 0; u < n; ++u) {
        if (vwgt[u] <= 0 || !rooms.overloaded(parts[u]) || (locked && locked[u])) continue;
        const Move mv = oracle.best_fitting(static_cast<int32_t>(u), rooms);
        if (mv.ok()) pq.push({static_cast<double>(mv.gain) / vwgt[u], static_cast<int32_t>(u)});
    }
    while (!pq.empty() && rooms.num_overloaded() > 0) {
        const Entry top = pq.top();
        pq.pop();
        const int32_t u = top.u, from = parts[u];
        if (!rooms.overloaded(from)) continue;
        const Move mv = oracle.best_fitting(u, rooms);
        if (!mv.ok()) continue;
        const double key = static_cast<double>(mv.gain) / vwgt[u];
        if (key < top.key && !pq.empty() && key < pq.top().key) {
            pq.push({key, u});
            continue;
        }
        oracle.apply(u, from, mv.to);
        parts[u] = mv.to;
        rooms.move(from, mv.to, vwgt[u]);
    }
    if (rooms.num_overloaded() == 0) return;
    // Phase 2: first-fit decreasing, keeping vertices in place where possible, then from scratch.
    std::vector<int32_t> a, b;
    const int64_t now = rooms.total_overload();
    const int64_t oa = repack_first_fit(n, vwgt, parts, k, bounds, true, a, locked);
    const int64_t ob =
        oa == 0 ? oa + 1 : repack_first_fit(n, vwgt, parts, k, bounds, false, b, locked);
    if (std::min(oa, ob) < now) {
        const std::vector<int32_t> &best = oa <= ob ? a : b;
        std::copy(best.begin(), best.end(), parts);
        if (std::min(oa, ob) == 0) return;
    }
    // Phase 3: swaps; phase 4: exact search on tiny levels.
    if (n <= kSwapMaxVertices) repair_by_swaps(n, vwgt, parts, k, bounds, locked);
    if (n <= kExactMaxVertices && BlockRooms(weights_of(n, vwgt, parts, k), bounds, k).num_overloaded())
        pack_exact(n, vwgt, parts, k, bounds, locked);
}

}  // namespace igp
