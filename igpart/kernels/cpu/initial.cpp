// Greedy hypergraph growing (GHG): a GIL-free initial bisector of small hypergraphs, as in the
// initial-partitioning pools of KaHyPar / Mt-KaHyPar. See greedy_bisections in partition.h.
#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

#include "partition.h"
#include "partition_common.h"

namespace igp {

namespace {

struct GrowEntry {
    int64_t gain;
    unsigned int hash;
    int32_t v;
};

// Max-heap order: higher gain first, then the smaller hash, then the smaller id.
struct GrowLess {
    bool operator()(const GrowEntry &a, const GrowEntry &b) const {
        if (a.gain != b.gain) return a.gain < b.gain;
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
// (= s mod 2) takes the vertex of highest gain among those adjacent to it until it reaches its
// target weight (a vertex that would exceed bounds[g] is skipped for good); when no vertex is
// adjacent, the next one of the seeded order starts a new region.
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
    std::vector<char> done(static_cast<size_t>(n), 0);  // moved or skipped
    std::priority_queue<GrowEntry, std::vector<GrowEntry>, GrowLess> heap;
    auto bump = [&](int32_t u, int64_t w) {
        gain[u] += w;
        if (!done[u]) heap.push({gain[u], hash[u], u});
    };

    int64_t weight = 0, next = 0;
    while (weight < target) {
        int32_t v = -1;
        while (!heap.empty()) {
            const GrowEntry top = heap.top();
            heap.pop();
            if (!done[top.v] && top.gain == gain[top.v]) {
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
