// Greedy hypergraph growing (GHG): a GIL-free initial bisector of small hypergraphs, as in the
// initial-partitioning pools of KaHyPar / Mt-KaHyPar. See greedy_bisections in partition.h.
#include <algorithm>
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "partition.h"
#include "partition_common.h"

namespace igp {

namespace {

struct GrowEntry {
    double key1, key2;
    unsigned int hash;
    int32_t v;
};

// Max-heap order: higher key1 first, then higher key2, then the smaller hash, then the smaller id.
struct GrowLess {
    bool operator()(const GrowEntry &a, const GrowEntry &b) const {
        if (a.key1 != b.key1) return a.key1 < b.key1;
        if (a.key2 != b.key2) return a.key2 < b.key2;
        if (a.hash != b.hash) return a.hash > b.hash;
        return a.v > b.v;
    }
};

// The weight the grown block g aims at: its share bounds[g] / (bounds[0] + bounds[1]) of the
// total, at least what the other block cannot hold, at most its own bound.
int64_t grow_target(int64_t total, const int64_t *bounds, int g) {
    const int64_t b0 = std::max<int64_t>(bounds[0], 0), b1 = std::max<int64_t>(bounds[1], 0);
    const int64_t bg = g == 0 ? b0 : b1, bo = g == 0 ? b1 : b0;
    int64_t target = total / 2;
    if (b0 + b1 > 0)
        target = static_cast<int64_t>(static_cast<__int128>(total) * bg / (b0 + b1));
    target = std::max(target, total - bo);
    return std::min(target, bg);
}

// One run of GHG with seed s: every vertex starts in the other block o; the grown block g
// (= s mod 2) takes the best vertex among those adjacent to it until it reaches its target
// weight (a vertex that would exceed bounds[g] is skipped for good); when no vertex is
// adjacent, the next one of the seeded order starts a new region. "Best": the highest share of
// its clique-expansion weight (w_e / (|e| - 1) per other pin) that goes to g (seeds with
// (s >> 1) even) or the highest such weight (odd), then the highest cut gain, then a seeded hash.
// Why not the cut gain first, as KaHyPar's FM-gain GHG: on the small, dense coarsest levels
// (~100 vertices of degree ~70) a vertex's cut gain is dominated by its nets not yet touched by
// g, so growth took the lightest-degree vertices wherever they were and every seed gave the same
// scattered block (coarsest level of ibm09x10, k = 2: cut 7134 at best of 16 seeds vs METIS
// 1103; by the share: 1103).
void grow_one(const HgView &h, const int64_t *bounds, int64_t s, int32_t *parts) {
    const int64_t n = h.n, m = h.m;
    const int g = static_cast<int>(static_cast<uint64_t>(s) & 1u), o = 1 - g;
    int64_t total = 0;
    for (int64_t v = 0; v < n; ++v) total += h.vwgt[v];
    const int64_t target = grow_target(total, bounds, g);
    std::fill(parts, parts + n, o);
    if (n == 0) return;

    std::vector<int64_t> cnt_g(static_cast<size_t>(m), 0), cnt_o(static_cast<size_t>(m));
    for (int64_t e = 0; e < m; ++e) cnt_o[e] = h.size(e);
    // gain of moving v from o to g: nets where v is the last pin in o become uncut (+w), nets
    // with no pin in g yet become cut (-w); nets of < 2 pins never count
    std::vector<int64_t> gain(static_cast<size_t>(n), 0);
    for (int64_t v = 0; v < n; ++v)
        for (int64_t j = h.vptr[v]; j < h.vptr[v + 1]; ++j) {
            const int32_t e = h.vind[j];
            if (h.size(e) >= 2) gain[v] -= h.ewgt[e];
        }
    std::vector<unsigned int> hash(static_cast<size_t>(n));
    std::vector<int32_t> order(static_cast<size_t>(n));
    for (int64_t v = 0; v < n; ++v) {
        hash[v] = tie_hash(s, 1, v);
        order[v] = static_cast<int32_t>(v);
    }
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return hash[a] != hash[b] ? hash[a] < hash[b] : a < b;
    });
    // conn[v]: v's clique-expansion weight towards g; tot[v]: its whole clique-expansion weight
    std::vector<double> conn(static_cast<size_t>(n), 0.0), tot(static_cast<size_t>(n));
    for (int64_t v = 0; v < n; ++v) tot[v] = -static_cast<double>(gain[v]);
    const bool ratio = ((static_cast<uint64_t>(s) >> 1) & 1u) == 0;
    auto keys = [&](int32_t u) {
        const double k1 = !ratio ? conn[u] : tot[u] > 0 ? conn[u] / tot[u] : 0.0;
        return std::pair<double, double>(k1, static_cast<double>(gain[u]));
    };
    std::vector<char> done(static_cast<size_t>(n), 0);  // moved or skipped
    std::priority_queue<GrowEntry, std::vector<GrowEntry>, GrowLess> heap;
    // vertices whose keys changed during one move, pushed once after it
    std::vector<char> dirty(static_cast<size_t>(n), 0);
    std::vector<int32_t> changed;
    auto touch = [&](int32_t u) {
        if (!dirty[u]) {
            dirty[u] = 1;
            changed.push_back(u);
        }
    };
    auto bump = [&](int32_t u, int64_t w) {
        gain[u] += w;
        touch(u);
    };

    int64_t weight = 0, next = 0;
    while (weight < target) {
        int32_t v = -1;
        while (!heap.empty()) {
            const GrowEntry top = heap.top();
            heap.pop();
            if (done[top.v]) continue;
            const auto kk = keys(top.v);
            if (top.key1 == kk.first && top.key2 == kk.second) {
                v = top.v;
                break;
            }
        }
        if (v < 0) {
            while (next < n && done[order[next]]) ++next;
            if (next == n) break;
            v = order[next];
        }
        done[v] = 1;
        if (weight + h.vwgt[v] > bounds[g]) continue;  // too heavy now, and later too
        parts[v] = g;
        weight += h.vwgt[v];
        for (int64_t j = h.vptr[v]; j < h.vptr[v + 1]; ++j) {
            const int32_t e = h.vind[j];
            if (h.size(e) < 2) continue;
            const int64_t w = h.ewgt[e];
            const double cw = rating_term(w, h.size(e));
            for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q)
                if (parts[h.eind[q]] == o) {
                    conn[h.eind[q]] += cw;
                    touch(h.eind[q]);
                }
            if (cnt_g[e] == 0)  // e becomes cut: moving another pin no longer cuts it
                for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q)
                    if (parts[h.eind[q]] == o) bump(h.eind[q], w);
            ++cnt_g[e];
            if (--cnt_o[e] == 1)  // the last pin in o would now make e uncut
                for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q)
                    if (parts[h.eind[q]] == o) {
                        bump(h.eind[q], w);
                        break;
                    }
        }
        for (const int32_t u : changed) {
            dirty[u] = 0;
            if (done[u]) continue;
            const auto kk = keys(u);
            heap.push(GrowEntry{kk.first, kk.second, hash[u], u});
        }
        changed.clear();
    }
}

}  // namespace

std::vector<int32_t> greedy_bisections(const HgView &h, const int64_t *bounds, int64_t seed,
                                       int64_t count) {
    const int64_t n = h.n;
    std::vector<int32_t> out(static_cast<size_t>(std::max<int64_t>(count, 0) * n));
    const int64_t pins = h.m > 0 ? h.eptr[h.m] : 0;
    // each run writes its own row: the result does not depend on the number of threads
#pragma omp parallel for schedule(dynamic, 1) if (count > 1 && (pins + n) * count >= 16 * kParallelMinItems)
    for (int64_t r = 0; r < count; ++r) grow_one(h, bounds, seed + r, out.data() + r * n);
    return out;
}

}  // namespace igp
