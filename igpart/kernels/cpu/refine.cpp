// Hypergraph refinement: sequence-based refinement (HyperG §3.2), boundary k-way FM with
// rollback, rebalancing; plus block weights and objective values.
#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

#include "partition.h"
#include "partition_common.h"
#include "pin_counts.h"
#include "refine_impl.h"

namespace igp {

namespace {

// Scratch space of gain computations (one per thread).
struct GainScratch {
    std::vector<int64_t> extra;
    std::vector<char> mark;
    std::vector<int32_t> touched;
    explicit GainScratch(int32_t k) : extra(static_cast<size_t>(k), 0), mark(static_cast<size_t>(k), 0) {}
};

// Collects, for vertex u in block s, the target-independent part of the gain (returned) and the
// target-dependent parts of every block its nets touch (scratch.extra over scratch.touched).
int64_t collect_gains(const HgView &h, const PinCounts &phi, int objective, int32_t u, int32_t s,
                      GainScratch &sc) {
    int64_t base = 0;
    sc.touched.clear();
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
        const int32_t e = h.vind[j];
        const int64_t size = h.size(e);
        if (size < 2) continue;
        const int64_t w = h.ewgt[e];
        const int64_t pf = phi.get(e, s);
        base += move_gain(objective, w, size, pf, 0);
        const int32_t lam = phi.lambda(e);
        if (objective == OBJ_CUT && (lam != 2 || pf != 1)) continue;  // no target part possible
        const int32_t *bl = phi.blocks(e);
        const int32_t *ct = phi.counts(e);
        for (int32_t i = 0; i < lam; ++i) {
            const int32_t b = bl[i];
            if (b == s) continue;
            if (!sc.mark[b]) {
                sc.mark[b] = 1;
                sc.extra[b] = 0;
                sc.touched.push_back(b);
            }
            sc.extra[b] += move_gain_target_part(objective, w, size, pf, ct[i]);
        }
    }
    return base;
}

// Whether u has a pin on a net of two or more blocks: for any other vertex collect_gains touches
// no block, so it has no move (the full passes skip it at the cost of reading the lambdas).
bool on_boundary(const HgView &h, const PinCounts &phi, int32_t u) {
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j)
        if (phi.lambda(h.vind[j]) > 1) return true;
    return false;
}

void clear_marks(GainScratch &sc) {
    for (int32_t b : sc.touched) sc.mark[b] = 0;
}

// Best move of u to a block its nets touch, among blocks accepted by `accept` (ties: smaller id).
template <class Accept>
Move best_adjacent_move(const HgView &h, const PinCounts &phi, int objective, const int32_t *parts,
                        int32_t u, GainScratch &sc, Accept accept) {
    const int32_t s = parts[u];
    const int64_t base = collect_gains(h, phi, objective, u, s, sc);
    Move best;
    for (int32_t b : sc.touched) {
        if (!accept(b)) continue;
        const int64_t g = base + sc.extra[b];
        if (!best.ok() || g > best.gain || (g == best.gain && b < best.to)) best = {b, g};
    }
    clear_marks(sc);
    return best;
}

// Exact gain of moving u to `to` under the current pin counts.
int64_t exact_gain(const HgView &h, const PinCounts &phi, int objective, int32_t u, int32_t from,
                   int32_t to) {
    int64_t g = 0;
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
        const int32_t e = h.vind[j];
        g += move_gain(objective, h.ewgt[e], h.size(e), phi.get(e, from), phi.get(e, to));
    }
    return g;
}

void apply_move(const HgView &h, PinCounts &phi, int32_t u, int32_t from, int32_t to) {
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
        phi.dec(h.vind[j], from);
        phi.inc(h.vind[j], to);
    }
}


}  // namespace

std::vector<int64_t> block_weights(int64_t n, const int64_t *vwgt, const int32_t *parts, int32_t k) {
    return weights_of(n, vwgt, parts, k);
}

int64_t hypergraph_objective(const HgView &h, const int32_t *parts, int32_t k, int objective) {
    (void)k;
    PinCounts phi(h, parts);
    return objective_of(h, phi, objective);
}

// ------------------------------------------------------------------------------ sequence refinement
int64_t refine_sequence(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                        int objective, int64_t max_rounds) {
    PinCounts phi(h, parts);
    std::vector<int64_t> bw = weights_of(h.n, h.vwgt, parts, k);
    int64_t total_gain = 0;
    struct Cand {
        int32_t u, to;
        int64_t gain;
    };
    std::vector<Cand> seq;
    for (int64_t round = 0; round < max_rounds; ++round) {
        // 1. every vertex's best positive move (read-only: parallel)
        seq.clear();
#pragma omp parallel if (h.n >= kParallelMinItems)
        {
            GainScratch sc(k);
            std::vector<Cand> local;
#pragma omp for schedule(dynamic, 1024) nowait
            for (int64_t u = 0; u < h.n; ++u) {
                if (!on_boundary(h, phi, static_cast<int32_t>(u))) continue;
                const Move mv = best_adjacent_move(h, phi, objective, parts, static_cast<int32_t>(u),
                                                   sc, [](int32_t) { return true; });
                if (mv.ok() && mv.gain > 0) local.push_back({static_cast<int32_t>(u), mv.to, mv.gain});
            }
#pragma omp critical
            seq.insert(seq.end(), local.begin(), local.end());
        }
        if (seq.empty()) break;
        // 2. sort by (gain desc, vertex id)
        std::sort(seq.begin(), seq.end(), [](const Cand &a, const Cand &b) {
            return a.gain != b.gain ? a.gain > b.gain : a.u < b.u;
        });
        // 3. gains recomputed with earlier moves applied; prefix sums of gains and block weights
        const std::vector<int64_t> before = bw;
        auto violates = [&](int32_t b) { return !block_ok(bw[b], bounds[b], before[b]); };
        int64_t violations = 0, cum = 0, best = 0;
        size_t best_len = 0;
        for (size_t i = 0; i < seq.size(); ++i) {
            const Cand &c = seq[i];
            const int32_t from = parts[c.u];
            cum += exact_gain(h, phi, objective, c.u, from, c.to);
            apply_move(h, phi, c.u, from, c.to);
            parts[c.u] = c.to;
            violations -= violates(from) + violates(c.to);
            bw[from] -= h.vwgt[c.u];
            bw[c.to] += h.vwgt[c.u];
            violations += violates(from) + violates(c.to);
            seq[i].to = from;  // remember the source for the rollback
            if (violations == 0 && cum > best) {
                best = cum;
                best_len = i + 1;
            }
        }
        // 4. keep the best balanced prefix, roll back the rest
        for (size_t i = seq.size(); i-- > best_len;) {
            const Cand &c = seq[i];
            const int32_t cur = parts[c.u];
            apply_move(h, phi, c.u, cur, c.to);
            parts[c.u] = c.to;
            bw[cur] -= h.vwgt[c.u];
            bw[c.to] += h.vwgt[c.u];
        }
        if (best <= 0) break;
        total_gain += best;
    }
    return total_gain;
}

// ------------------------------------------------------------------------------ FM refinement
int64_t refine_fm(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds, int objective,
                  int64_t max_rounds, int64_t max_fruitless, double min_improvement, int64_t seed) {
    constexpr int64_t kUpdateMaxNetSize = 1000;  // larger nets: gains refreshed lazily on pop
    PinCounts phi(h, parts);
    std::vector<int64_t> bw = weights_of(h.n, h.vwgt, parts, k);
    GainScratch sc(k);
    int64_t current = objective_of(h, phi, objective);
    int64_t total_gain = 0;
    struct Entry {
        int64_t gain;
        uint32_t tie;
        int32_t u, to;
        uint32_t version;
        bool operator<(const Entry &o) const {
            return gain != o.gain ? gain < o.gain : (tie != o.tie ? tie > o.tie : u > o.u);
        }
    };
    std::vector<uint32_t> version(static_cast<size_t>(h.n), 0);
    std::vector<char> locked(static_cast<size_t>(h.n), 0);
    std::vector<int64_t> stamp(static_cast<size_t>(h.n), -1);
    std::vector<std::pair<int32_t, int32_t>> moves;  // (vertex, source block)
    std::vector<int32_t> touched_nets;
    for (int64_t round = 0; round < max_rounds; ++round) {
        const int64_t rseed = seed * 1000003 + round;
        auto feasible = [&](int32_t u) {
            return [&, u](int32_t b) { return bw[b] + h.vwgt[u] <= bounds[b]; };
        };
        // every vertex's best move, read-only: in parallel; the queue's pop order depends only
        // on the set of entries (a total order), so the result does not depend on the threads
        std::vector<Entry> first;
#pragma omp parallel if (h.n > 16384)
        {
            GainScratch tsc(k);
            std::vector<Entry> mine;
#pragma omp for schedule(dynamic, 2048) nowait
            for (int64_t u = 0; u < h.n; ++u) {
                const int32_t v = static_cast<int32_t>(u);
                if (!on_boundary(h, phi, v)) continue;
                const Move mv = best_adjacent_move(h, phi, objective, parts, v, tsc, feasible(v));
                if (mv.ok()) mine.push_back({mv.gain, tie_hash(rseed, v, mv.to), v, mv.to, version[v] + 1});
            }
#pragma omp critical
            first.insert(first.end(), mine.begin(), mine.end());
        }
        for (uint32_t &x : version) ++x;
        std::priority_queue<Entry> pq(std::less<Entry>(), std::move(first));
        auto push = [&](int32_t u) {
            const Move mv = best_adjacent_move(h, phi, objective, parts, u, sc, feasible(u));
            ++version[u];
            if (mv.ok()) pq.push({mv.gain, tie_hash(rseed, u, mv.to), u, mv.to, version[u]});
        };
        std::fill(locked.begin(), locked.end(), 0);
        moves.clear();
        int64_t cum = 0, best = 0, fruitless = 0;
        size_t best_len = 0;
        while (!pq.empty()) {
            const Entry top = pq.top();
            pq.pop();
            const int32_t u = top.u;
            if (locked[u] || top.version != version[u]) continue;
            // refresh lazily: the entry may be stale (weights, big nets)
            const Move mv = best_adjacent_move(h, phi, objective, parts, u, sc, feasible(u));
            if (!mv.ok()) continue;
            if (mv.gain != top.gain || mv.to != top.to) {
                pq.push({mv.gain, tie_hash(rseed, u, mv.to), u, mv.to, ++version[u]});
                continue;
            }
            const int32_t from = parts[u], to = mv.to;
            touched_nets.clear();
            for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
                const int32_t e = h.vind[j];
                const int64_t size = h.size(e);
                if (size < 2 || size > kUpdateMaxNetSize) continue;
                if (move_changes_gains(objective, size, phi.get(e, from), phi.get(e, to)))
                    touched_nets.push_back(e);
            }
            apply_move(h, phi, u, from, to);
            parts[u] = to;
            bw[from] -= h.vwgt[u];
            bw[to] += h.vwgt[u];
            locked[u] = 1;
            moves.push_back({u, from});
            cum += mv.gain;
            if (cum > best) {
                best = cum;
                best_len = moves.size();
                fruitless = 0;
            } else if (++fruitless >= max_fruitless) {
                break;
            }
            const int64_t mark = static_cast<int64_t>(moves.size()) + round * (h.n + 1);
            for (int32_t e : touched_nets)
                for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q) {
                    const int32_t v = h.eind[q];
                    if (locked[v] || stamp[v] == mark) continue;
                    stamp[v] = mark;
                    push(v);
                }
        }
        for (size_t i = moves.size(); i-- > best_len;) {
            const int32_t u = moves[i].first, back = moves[i].second, cur = parts[u];
            apply_move(h, phi, u, cur, back);
            parts[u] = back;
            bw[cur] -= h.vwgt[u];
            bw[back] += h.vwgt[u];
        }
        total_gain += best;
        const int64_t prev = current;
        current -= best;
        if (best <= 0 || static_cast<double>(best) <= min_improvement * static_cast<double>(prev)) break;
    }
    return total_gain;
}

// ------------------------------------------------------------------------------ rebalancing
namespace {

struct HgRebalanceOracle {
    const HgView &h;
    PinCounts phi;
    int objective;
    const int32_t *parts;
    GainScratch sc;
    HgRebalanceOracle(const HgView &h_, const int32_t *parts_, int32_t k, int objective_)
        : h(h_), phi(h_, parts_), objective(objective_), parts(parts_), sc(k) {}

    Move best_fitting(int32_t u, const BlockRooms &rooms) {
        const int32_t s = parts[u];
        const int64_t w = h.vwgt[u];
        const int64_t base = collect_gains(h, phi, objective, u, s, sc);
        Move best;
        int64_t best_room = 0;
        for (int32_t b : sc.touched) {
            if (!rooms.fits(b, w)) continue;
            const int64_t g = base + sc.extra[b];
            const int64_t r = rooms.room(b);
            if (!best.ok() || g > best.gain || (g == best.gain && (r > best_room || (r == best_room && b < best.to)))) {
                best = {b, g};
                best_room = r;
            }
        }
        clear_marks(sc);
        if (!best.ok()) {  // no touched block fits: the block with the most room, if any fits
            const int32_t b = rooms.most_room();
            if (b != s && rooms.fits(b, w)) best = {b, base};
        }
        return best;
    }
    void apply(int32_t u, int32_t from, int32_t to) { apply_move(h, phi, u, from, to); }
};

}  // namespace

void rebalance_hypergraph(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                          int objective) {
    {
        const std::vector<int64_t> bw = weights_of(h.n, h.vwgt, parts, k);
        bool over = false;
        for (int32_t b = 0; b < k; ++b) over |= bw[b] > bounds[b];
        if (!over) return;
    }
    HgRebalanceOracle oracle(h, parts, k, objective);
    rebalance_impl(h.n, h.vwgt, parts, k, bounds, oracle);
}

}  // namespace igp
