// Hypergraph refinement: sequence-based refinement (HyperG §3.2), boundary k-way FM with
// rollback (at k = 2 with incrementally kept gains), rebalancing; plus block weights and
// objective values.
#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <type_traits>

#include "gain_cache.h"
#include "partition.h"
#include "partition_common.h"
#include "pin_counts.h"
#include "refine_impl.h"
#include "sequence_gains.h"

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

template <class Phi>  // PinCounts or BisectionPinCounts
void apply_move(const HgView &h, Phi &phi, int32_t u, int32_t from, int32_t to) {
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
void sequence_gains(const HgView &h, const PinCounts &phi, int objective, const int32_t *parts,
                    const SeqMove *seq, int64_t L, std::vector<int32_t> &pos,
                    std::vector<char> &net_mark, std::vector<int64_t> &gains,
                    const int32_t *from) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < L; ++i) pos[seq[i].u] = static_cast<int32_t>(i);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < L; ++i) {
        const int32_t u = seq[i].u;
        for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
            const int32_t e = h.vind[j];
            if (h.size(e) < 2) continue;
#pragma omp atomic write
            net_mark[e] = 1;
        }
    }
    std::vector<int32_t> nets;
    for (int64_t e = 0; e < h.m; ++e)
        if (net_mark[e]) {
            net_mark[e] = 0;
            nets.push_back(static_cast<int32_t>(e));
        }
    const int64_t nn = static_cast<int64_t>(nets.size());
#pragma omp parallel
    {
        std::vector<int32_t> order;
        std::vector<std::pair<int32_t, int32_t>> delta;  // (block, change) of the earlier moves
        auto change = [&](int32_t b) -> int32_t & {
            for (auto &d : delta)
                if (d.first == b) return d.second;
            delta.push_back({b, 0});
            return delta.back().second;
        };
#pragma omp for schedule(dynamic, 256)
        for (int64_t x = 0; x < nn; ++x) {
            const int32_t e = nets[x];
            order.clear();
            for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q)
                if (pos[h.eind[q]] >= 0) order.push_back(pos[h.eind[q]]);
            std::sort(order.begin(), order.end());
            delta.clear();
            if (from)  // counts after the sequence: undo its moves on this net first
                for (int32_t i : order) {
                    ++change(from[i]);
                    --change(seq[i].to);
                }
            const int64_t size = h.size(e), w = h.ewgt[e];
            for (int32_t i : order) {
                const int32_t src = from ? from[i] : parts[seq[i].u], to = seq[i].to;
                const int64_t g = move_gain(objective, w, size, phi.get(e, src) + change(src),
                                            phi.get(e, to) + change(to));
                if (g) {
#pragma omp atomic
                    gains[i] += g;
                }
                --change(src);
                ++change(to);
            }
        }
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < L; ++i) pos[seq[i].u] = -1;
}

int64_t best_balanced_prefix(const HgView &h, const SeqMove *seq, int64_t L, const int32_t *parts,
                             const int32_t *from, const std::vector<int64_t> &gains,
                             const int64_t *bounds, const std::vector<int64_t> &before,
                             std::vector<int64_t> &bw, int64_t &best) {
    bw = before;
    auto violates = [&](int32_t b) { return !block_ok(bw[b], bounds[b], before[b]); };
    auto src = [&](int64_t i) { return from ? from[i] : parts[seq[i].u]; };
    int64_t violations = 0, cum = 0, best_len = 0;
    best = 0;
    for (int64_t i = 0; i < L; ++i) {
        const int32_t u = seq[i].u, a = src(i), b = seq[i].to;
        cum += gains[i];
        violations -= violates(a) + violates(b);
        bw[a] -= h.vwgt[u];
        bw[b] += h.vwgt[u];
        violations += violates(a) + violates(b);
        if (violations == 0 && cum > best) {
            best = cum;
            best_len = i + 1;
        }
    }
    for (int64_t i = L; i-- > best_len;) {  // the block weights of the prefix only
        bw[seq[i].to] -= h.vwgt[seq[i].u];
        bw[src(i)] += h.vwgt[seq[i].u];
    }
    return best_len;
}

namespace {
using Cand = SeqMove;
}  // namespace

int64_t refine_sequence(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                        int objective, int64_t max_rounds, int64_t parallel_min_moves,
                        const uint8_t *locked) {
    PinCounts phi(h, parts);
    std::vector<int64_t> bw = weights_of(h.n, h.vwgt, parts, k);
    int64_t total_gain = 0;
    std::vector<Cand> seq;
    std::vector<int32_t> pos;   // scratch of the parallel path, allocated when it first runs
    std::vector<char> net_mark;
    if (h.n >= parallel_min_moves) {
        pos.assign(static_cast<size_t>(h.n), -1);
        net_mark.assign(static_cast<size_t>(h.m), 0);
    }
    for (int64_t round = 0; round < max_rounds; ++round) {
        // 1. every vertex's best positive move (read-only: parallel)
        seq.clear();
#pragma omp parallel if (h.n >= kParallelMinItems)
        {
            GainScratch sc(k);
            std::vector<Cand> local;
#pragma omp for schedule(dynamic, 1024) nowait
            for (int64_t u = 0; u < h.n; ++u) {
                if ((locked && locked[u]) || !on_boundary(h, phi, static_cast<int32_t>(u))) continue;
                const Move mv = best_adjacent_move(h, phi, objective, parts, static_cast<int32_t>(u),
                                                   sc, [](int32_t) { return true; });
                if (mv.ok() && mv.gain > 0) local.push_back({static_cast<int32_t>(u), mv.to, mv.gain});
            }
#pragma omp critical
            seq.insert(seq.end(), local.begin(), local.end());
        }
        if (seq.empty()) break;
        // 2. sort by (gain desc, vertex id)
        parallel_sort(seq.begin(), seq.end(), [](const Cand &a, const Cand &b) {
            return a.gain != b.gain ? a.gain > b.gain : a.u < b.u;
        });
        // 3. gains recomputed with earlier moves applied; prefix sums of gains and block weights
        const std::vector<int64_t> before = bw;
        auto violates = [&](int32_t b) { return !block_ok(bw[b], bounds[b], before[b]); };
        if (static_cast<int64_t>(seq.size()) >= parallel_min_moves) {
            // the same in parallel: each move's exact gain per net, from the pin counts and the
            // earlier moves on that net; then the best balanced prefix, applied
            const int64_t L = static_cast<int64_t>(seq.size());
            std::vector<int64_t> gains(static_cast<size_t>(L), 0);
            sequence_gains(h, phi, objective, parts, seq.data(), L, pos, net_mark, gains);
            int64_t best = 0;
            const int64_t best_len =
                best_balanced_prefix(h, seq.data(), L, parts, nullptr, gains, bounds, before, bw, best);
            int64_t moved_pins = 0;
            for (int64_t i = 0; i < best_len; ++i)
                moved_pins += h.vptr[seq[i].u + 1] - h.vptr[seq[i].u];
            const bool recount = 16 * moved_pins >= h.eptr[h.m];
            for (int64_t i = 0; i < best_len; ++i) {
                const int32_t u = seq[i].u;
                if (!recount) apply_move(h, phi, u, parts[u], seq[i].to);
                parts[u] = seq[i].to;
            }
            if (recount) phi.rebuild(parts);
            if (best <= 0) break;
            total_gain += best;
            continue;
        }
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
namespace {

constexpr int64_t kUpdateMaxNetSize = 1000;  // FM: larger nets' gains are refreshed lazily on pop

// --- k = 2: refine_fm_bisection, the moves of refine_fm below with incrementally kept gains.

// Pin counts of a bisection (blocks 0 and 1), dense: phi(e, b) at cnt[2e + b]. The part of
// PinCounts' interface the FM uses, without the search of a net's (block, count) slots.
class BisectionPinCounts {
   public:
    BisectionPinCounts(const HgView &h, const int32_t *parts)
        : cnt_(2 * static_cast<size_t>(h.m), 0) {
#pragma omp parallel for schedule(dynamic, 4096) if (h.m > 65536)
        for (int64_t e = 0; e < h.m; ++e)
            for (int64_t j = h.eptr[e]; j < h.eptr[e + 1]; ++j) ++cnt_[2 * e + parts[h.eind[j]]];
    }
    int32_t get(int32_t e, int32_t b) const { return cnt_[2 * static_cast<size_t>(e) + b]; }
    int32_t lambda(int32_t e) const { return (get(e, 0) > 0) + (get(e, 1) > 0); }
    void inc(int32_t e, int32_t b) { ++cnt_[2 * static_cast<size_t>(e) + b]; }
    void dec(int32_t e, int32_t b) { --cnt_[2 * static_cast<size_t>(e) + b]; }
    // Objective of the bisection: cut and km1 both count the nets on both blocks.
    int64_t objective(const HgView &h) const {
        int64_t total = 0;
        for (int64_t e = 0; e < h.m; ++e)
            total += h.ewgt[e] * (lambda(static_cast<int32_t>(e)) > 1);
        return total;
    }

   private:
    std::vector<int32_t> cnt_;
};

// A net of a moving vertex whose other pins' gains the move may change, with the net's pin counts
// in the source and the target block before the move.
struct TouchedNet {
    int32_t e;
    int32_t pf, pt;
};

// Every vertex's gain of moving to the other block, kept exact under moves with the
// Fiduccia-Mattheyses delta rules: best_adjacent_move in O(1) instead of O(degree). With two
// blocks the cut and km1 gains coincide: a pin of net e (weight w, |e| >= 2) whose block holds p
// of the net's pins adds w * ([p == 1] - [p == |e|]) to its gain (move_gain with
// phi_to = |e| - p). best_adjacent_move offers the other block only when some net of the vertex
// marks it (collect_gains): cut: a net with p == 1; km1: a cut net (p < |e|); `movable_` counts
// those nets. A move changes these terms on a net only where move_changes_gains holds (at k = 2,
// for both objectives: pf <= 2 or pt <= 1), so the nets whose pins the FM re-queues after a move
// (|e| <= kUpdateMaxNetSize) carry every update; a vertex on a larger net has its gain recomputed
// from the pin counts whenever it is asked for (`exact_`), as refine_fm does.
class BisectionGains {
   public:
    BisectionGains(const HgView &h, const BisectionPinCounts &phi, int objective,
                   const int32_t *parts)
        : h_(h), phi_(phi), objective_(objective), parts_(parts),
          gain_(static_cast<size_t>(h.n)), movable_(static_cast<size_t>(h.n)),
          exact_(static_cast<size_t>(h.n), 0) {
        for (int64_t e = 0; e < h.m; ++e)
            if (h.size(e) > kUpdateMaxNetSize)
                for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q) exact_[h.eind[q]] = 1;
        recompute();
    }
    // Whether the delta rules hold: every net's pins are distinct (a pin listed twice would move
    // a net's counts by two). Guaranteed by HypergraphArrays, whose vertices list their nets in
    // ascending order (checked in one sequential pass; other orders: a pass over the nets).
    static bool applies(const HgView &h) {
        bool ascending = true;
#pragma omp parallel for reduction(&& : ascending) schedule(static) if (h.n > 16384)
        for (int64_t u = 0; u < h.n; ++u)
            for (int64_t j = h.vptr[u] + 1; j < h.vptr[u + 1]; ++j)
                ascending = ascending && h.vind[j - 1] < h.vind[j];
        if (ascending) return true;
        std::vector<int32_t> seen(static_cast<size_t>(h.n), -1);
        for (int64_t e = 0; e < h.m; ++e)
            for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q) {
                if (seen[h.eind[q]] == e) return false;
                seen[h.eind[q]] = static_cast<int32_t>(e);
            }
        return true;
    }
    // Every vertex's gain and marks from the pin counts.
    void recompute() {
#pragma omp parallel for schedule(dynamic, 2048) if (h_.n > 16384)
        for (int64_t u = 0; u < h_.n; ++u)
            from_scratch(static_cast<int32_t>(u), gain_[u], movable_[u]);
    }
    // best_adjacent_move(h, phi, objective, parts, u, sc, accept) of refine_fm
    template <class Accept>
    Move best(int32_t u, Accept accept) const {
        int64_t g = gain_[u];
        int32_t c = movable_[u];
        if (exact_[u]) from_scratch(u, g, c);
        const int32_t to = 1 - parts_[u];
        if (c == 0 || !accept(to)) return {};
        return {to, g};
    }
    // u has moved from `from` (pin counts and parts updated); `touched` holds its nets of
    // 2 .. kUpdateMaxNetSize pins for which move_changes_gains held, with their counts before.
    // Delta rules: on each, the pins left in `from` go from pf to pf - 1 pins in their block,
    // those in the target block from pt to pt + 1, and u from pf to pt + 1.
    void moved(int32_t u, int32_t from, const std::vector<TouchedNet> &touched) {
        for (const TouchedNet &t : touched) {
            const int64_t w = h_.ewgt[t.e], size = h_.size(t.e);
            const int64_t dg_from = pin_gain(w, size, t.pf - 1) - pin_gain(w, size, t.pf);
            const int64_t dg_to = pin_gain(w, size, t.pt + 1) - pin_gain(w, size, t.pt);
            const int32_t dc_from = marks(size, t.pf - 1) - marks(size, t.pf);
            const int32_t dc_to = marks(size, t.pt + 1) - marks(size, t.pt);
            gain_[u] += pin_gain(w, size, t.pt + 1) - pin_gain(w, size, t.pf);
            movable_[u] += marks(size, t.pt + 1) - marks(size, t.pf);
            if (dg_from == 0 && dg_to == 0 && dc_from == 0 && dc_to == 0) continue;
            for (int64_t q = h_.eptr[t.e]; q < h_.eptr[t.e + 1]; ++q) {
                const int32_t v = h_.eind[q];
                if (v == u) continue;
                const bool in_from = parts_[v] == from;
                gain_[v] += in_from ? dg_from : dg_to;
                movable_[v] += in_from ? dc_from : dc_to;
            }
        }
    }

   private:
    // Gain contribution of a pin whose block holds p of the net's pins (|e| = size >= 2).
    static int64_t pin_gain(int64_t w, int64_t size, int64_t p) {
        return w * (static_cast<int64_t>(p == 1) - static_cast<int64_t>(p == size));
    }
    // Whether such a net marks the other block for the pin (see collect_gains).
    int32_t marks(int64_t size, int64_t p) const {
        return objective_ == OBJ_CUT ? p == 1 : p < size;
    }
    void from_scratch(int32_t u, int64_t &g, int32_t &c) const {
        const int32_t s = parts_[u];
        g = 0;
        c = 0;
        for (int64_t j = h_.vptr[u]; j < h_.vptr[u + 1]; ++j) {
            const int32_t e = h_.vind[j];
            const int64_t size = h_.size(e);
            if (size < 2) continue;
            const int64_t p = phi_.get(e, s);
            g += pin_gain(h_.ewgt[e], size, p);
            c += marks(size, p);
        }
    }
    const HgView &h_;
    const BisectionPinCounts &phi_;
    int objective_;
    const int32_t *parts_;
    std::vector<int64_t> gain_;     // gain of moving the vertex to the other block
    std::vector<int32_t> movable_;  // number of its nets that mark the other block
    std::vector<char> exact_;       // on a net > kUpdateMaxNetSize: recomputed from scratch
};

// Queue of candidate moves of refine_fm_bisection, at most one entry per vertex, in refine_fm's
// order (higher gain, then smaller tie hash, then smaller vertex id): an addressable binary heap,
// where refine_fm's heap leaves replaced entries behind (versions tell them stale). Both pop the
// same valid entries in the same order: the keys are distinct (each names its vertex), and a
// lazy heap's top valid entry is always the highest of the valid ones.
class BisectionQueue {
   public:
    struct Entry {
        int64_t gain;
        uint32_t tie;
        int32_t u, to;
        bool operator<(const Entry &o) const {  // as refine_fm's Entry: b pops first if a < b
            return gain != o.gain ? gain < o.gain : (tie != o.tie ? tie > o.tie : u > o.u);
        }
    };
    explicit BisectionQueue(int64_t n) : pos_(static_cast<size_t>(n), -1) {}
    // Replaces the contents by `entries` (distinct vertices).
    void assign(std::vector<Entry> entries) {
        for (const Entry &x : heap_) pos_[x.u] = -1;
        heap_ = std::move(entries);
        for (size_t i = 0; i < heap_.size(); ++i) pos_[heap_[i].u] = static_cast<int32_t>(i);
        for (size_t i = heap_.size() / 2; i-- > 0;) sift_down(i);
    }
    // Inserts x or replaces the entry of its vertex.
    void set(const Entry &x) {
        if (pos_[x.u] < 0) {
            heap_.push_back(x);
            pos_[x.u] = static_cast<int32_t>(heap_.size() - 1);
        } else {
            heap_[pos_[x.u]] = x;
        }
        sift_down(sift_up(static_cast<size_t>(pos_[x.u])));
    }
    // Removes the entry of u, if any.
    void erase(int32_t u) {
        const int32_t p = pos_[u];
        if (p < 0) return;
        pos_[u] = -1;
        const Entry last = heap_.back();
        heap_.pop_back();
        if (static_cast<size_t>(p) == heap_.size()) return;
        heap_[p] = last;
        pos_[last.u] = p;
        sift_down(sift_up(static_cast<size_t>(p)));
    }
    // Pops the highest entry into `top`; false when empty.
    bool pop(Entry &top) {
        if (heap_.empty()) return false;
        top = heap_[0];
        erase(top.u);
        return true;
    }

   private:
    void place(size_t i, const Entry &x) {
        heap_[i] = x;
        pos_[x.u] = static_cast<int32_t>(i);
    }
    size_t sift_up(size_t i) {
        const Entry x = heap_[i];
        while (i > 0 && heap_[(i - 1) / 2] < x) {
            place(i, heap_[(i - 1) / 2]);
            i = (i - 1) / 2;
        }
        place(i, x);
        return i;
    }
    void sift_down(size_t i) {
        const Entry x = heap_[i];
        const size_t n = heap_.size();
        for (size_t c; (c = 2 * i + 1) < n; i = c) {
            if (c + 1 < n && heap_[c] < heap_[c + 1]) ++c;
            if (!(x < heap_[c])) break;
            place(i, heap_[c]);
        }
        place(i, x);
    }
    std::vector<Entry> heap_;
    std::vector<int32_t> pos_;  // index of each vertex's entry in heap_, -1: none
};

// refine_fm for k = 2 (parts in {0, 1}, BisectionGains::applies): the same rounds, queue order,
// lazy refresh on pop, re-queued vertices, balance checks, stopping rules and rollback, hence the
// same moves and result, with the gains kept by BisectionGains instead of recomputed.
int64_t refine_fm_bisection(const HgView &h, int32_t *parts, const int64_t *bounds,
                            int objective, int64_t max_rounds, int64_t max_fruitless,
                            double min_improvement, int64_t seed, const uint8_t *fixed) {
    BisectionPinCounts phi(h, parts);
    BisectionGains gains(h, phi, objective, parts);
    std::vector<int64_t> bw = weights_of(h.n, h.vwgt, parts, 2);
    int64_t current = phi.objective(h);
    int64_t total_gain = 0;
    using Entry = BisectionQueue::Entry;
    BisectionQueue pq(h.n);
    UninitVector<char> locked(static_cast<size_t>(h.n));  // set at the start of every round
    UninitVector<int64_t> stamp = filled<int64_t>(h.n, -1);
    std::vector<std::pair<int32_t, int32_t>> moves;  // (vertex, source block)
    std::vector<TouchedNet> touched_nets;
    // the nets of u whose pins' gains its move from `from` to `to` may change (before the move)
    auto collect_touched = [&](int32_t u, int32_t from, int32_t to) {
        touched_nets.clear();
        for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
            const int32_t e = h.vind[j];
            const int64_t size = h.size(e);
            if (size < 2 || size > kUpdateMaxNetSize) continue;
            const int32_t pf = phi.get(e, from), pt = phi.get(e, to);
            if (move_changes_gains(objective, size, pf, pt)) touched_nets.push_back({e, pf, pt});
        }
    };
    for (int64_t round = 0; round < max_rounds; ++round) {
        const int64_t rseed = seed * 1000003 + round;
        auto feasible = [&](int32_t u) {
            return [&, u](int32_t b) { return bw[b] + h.vwgt[u] <= bounds[b]; };
        };
        // every vertex's best move (a vertex with a mark is on the boundary), read-only: in
        // parallel; the pop order depends only on the set of entries
        std::vector<Entry> first;
#pragma omp parallel if (h.n > 16384)
        {
            std::vector<Entry> mine;
#pragma omp for schedule(dynamic, 2048) nowait
            for (int64_t u = 0; u < h.n; ++u) {
                const int32_t v = static_cast<int32_t>(u);
                if (fixed && fixed[v]) continue;
                const Move mv = gains.best(v, feasible(v));
                if (mv.ok()) mine.push_back({mv.gain, tie_hash(rseed, v, mv.to), v, mv.to});
            }
#pragma omp critical
            first.insert(first.end(), mine.begin(), mine.end());
        }
        pq.assign(std::move(first));
        // (re)queues the best feasible move of u, or drops u's entry when it has none
        auto push = [&](int32_t u) {
            const Move mv = gains.best(u, feasible(u));
            if (mv.ok())
                pq.set({mv.gain, tie_hash(rseed, u, mv.to), u, mv.to});
            else
                pq.erase(u);
        };
        {
            char *lk = locked.data();
#pragma omp parallel for schedule(static) if (h.n >= kParallelMinLightItems)
            for (int64_t u = 0; u < h.n; ++u) lk[u] = fixed ? static_cast<char>(fixed[u]) : 0;
        }
        moves.clear();
        int64_t cum = 0, best = 0, fruitless = 0;
        size_t best_len = 0;
        Entry top;
        // never a locked vertex's entry: a move pops its entry, locked vertices are not re-queued
        while (pq.pop(top)) {
            const int32_t u = top.u;
            // refresh lazily: the entry may be stale (weights, big nets)
            const Move mv = gains.best(u, feasible(u));
            if (!mv.ok()) continue;
            if (mv.gain != top.gain || mv.to != top.to) {
                pq.set({mv.gain, tie_hash(rseed, u, mv.to), u, mv.to});
                continue;
            }
            const int32_t from = parts[u], to = mv.to;
            collect_touched(u, from, to);
            apply_move(h, phi, u, from, to);
            parts[u] = to;
            gains.moved(u, from, touched_nets);
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
            for (const TouchedNet &t : touched_nets)
                for (int64_t q = h.eptr[t.e]; q < h.eptr[t.e + 1]; ++q) {
                    const int32_t v = h.eind[q];
                    if (locked[v] || stamp[v] == mark) continue;
                    stamp[v] = mark;
                    push(v);
                }
        }
        // roll back to the best prefix; the gains follow each undone move, or are recomputed
        // once where the undone moves have more pins than that costs (dense levels)
        int64_t undone_degree = 0;
        for (size_t i = best_len; i < moves.size(); ++i)
            undone_degree += h.vptr[moves[i].first + 1] - h.vptr[moves[i].first];
        const bool track = undone_degree <= h.m;
        for (size_t i = moves.size(); i-- > best_len;) {
            const int32_t u = moves[i].first, back = moves[i].second, cur = parts[u];
            if (track) collect_touched(u, cur, back);
            apply_move(h, phi, u, cur, back);
            parts[u] = back;
            if (track) gains.moved(u, cur, touched_nets);
            bw[cur] -= h.vwgt[u];
            bw[back] += h.vwgt[u];
        }
        if (!track) gains.recompute();
        total_gain += best;
        const int64_t prev = current;
        current -= best;
        if (best <= 0 || static_cast<double>(best) <= min_improvement * static_cast<double>(prev)) break;
    }
    return total_gain;
}

}  // namespace

// --- any k: the same rounds with the gains of a GainCache (or, where its n * k entries do not
// fit, from the pin counts: NoGainCache).
namespace {

// The interface of GainCache the k-way FM uses, with every gain from the pin counts.
struct NoGainCache {
    NoGainCache(const HgView &, int32_t, int) {}
    void build(const PinCounts &, const int32_t *) {}
    void net_moved(int32_t, int32_t, int32_t, int32_t, int64_t, int64_t, const int32_t *) {}
};

template <class T>
struct TypeTag {
    using type = T;
};

template <class Cache>
int64_t refine_fm_kway(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                       int objective, int64_t max_rounds, int64_t max_fruitless,
                       double min_improvement, int64_t seed, double max_work,
                       const uint8_t *fixed) {
    PinCounts phi(h, parts);
    Cache cache(h, k, objective);
    cache.build(phi, parts);
    std::vector<int64_t> bw = weights_of(h.n, h.vwgt, parts, k);
    GainScratch sc(k);
    int64_t current = objective_of(h, phi, objective);
    int64_t total_gain = 0;
    using Entry = FmEntry;
    UninitVector<uint32_t> version = filled<uint32_t>(h.n, 0);
    UninitVector<char> locked(static_cast<size_t>(h.n));  // set at the start of every round
    UninitVector<int64_t> stamp = filled<int64_t>(h.n, -1);
    std::vector<std::pair<int32_t, int32_t>> moves;  // (vertex, source block)
    std::vector<int32_t> touched_nets;
    // best_adjacent_move from the cache, or from the pin counts where that reads fewer entries
    // (degree * connectivity below k); both give the same move
    auto best_move = [&](int32_t u, GainScratch &s, auto accept) -> Move {
        if constexpr (!std::is_same_v<Cache, NoGainCache>) {
            if (4 * (h.vptr[u + 1] - h.vptr[u]) >= k) return cache.best(u, parts[u], accept);
        }
        return best_adjacent_move(h, phi, objective, parts, u, s, accept);
    };
    // moves u, updating pin counts and cache; `touched_nets` gets the nets of at most
    // kUpdateMaxNetSize pins whose other pins' gains the move may change
    auto move = [&](int32_t u, int32_t from, int32_t to) {
        move_vertex(h, phi, objective, cache, parts, u, from, to, &touched_nets,
                    kUpdateMaxNetSize);
    };
    // A move re-evaluates every pin of its nets, each at the cost of its degree: on dense levels
    // (a few hundred vertices joined by most pairs) a round cost O(moves * degree^2). The work
    // of a round (pins read by the evaluations after the first) stops it at `budget`.
    const double budget_d = max_work * static_cast<double>(h.eptr[h.m] + h.n);
    const int64_t budget = max_work <= 0.0 ? INT64_MAX
                           : budget_d >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(budget_d);
    int64_t work = 0;
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
                if ((fixed && fixed[v]) || !on_boundary(h, phi, v)) continue;
                const Move mv = best_move(v, tsc, feasible(v));
                if (mv.ok()) mine.push_back({mv.gain, tie_hash(rseed, v, mv.to), v, mv.to, version[v] + 1});
            }
#pragma omp critical
            first.insert(first.end(), mine.begin(), mine.end());
        }
        {
            uint32_t *ver = version.data();
#pragma omp parallel for schedule(static) if (h.n >= kParallelMinLightItems)
            for (int64_t u = 0; u < h.n; ++u) ++ver[u];
        }
        std::priority_queue<Entry> pq(std::less<Entry>(), std::move(first));
        auto push = [&](int32_t u) {
            work += h.vptr[u + 1] - h.vptr[u] + 1;
            const Move mv = best_move(u, sc, feasible(u));
            ++version[u];
            if (mv.ok()) pq.push({mv.gain, tie_hash(rseed, u, mv.to), u, mv.to, version[u]});
        };
        {
            char *lk = locked.data();
#pragma omp parallel for schedule(static) if (h.n >= kParallelMinLightItems)
            for (int64_t u = 0; u < h.n; ++u) lk[u] = fixed ? static_cast<char>(fixed[u]) : 0;
        }
        moves.clear();
        work = 0;
        int64_t cum = 0, best = 0, fruitless = 0;
        size_t best_len = 0;
        while (!pq.empty() && work < budget) {
            const Entry top = pq.top();
            pq.pop();
            const int32_t u = top.u;
            if (locked[u] || top.version != version[u]) continue;
            // refresh lazily: the entry may be stale (weights, big nets)
            work += h.vptr[u + 1] - h.vptr[u] + 1;
            const Move mv = best_move(u, sc, feasible(u));
            if (!mv.ok()) continue;
            if (mv.gain != top.gain || mv.to != top.to) {
                pq.push({mv.gain, tie_hash(rseed, u, mv.to), u, mv.to, ++version[u]});
                continue;
            }
            const int32_t from = parts[u], to = mv.to;
            move(u, from, to);
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
        // roll back to the best prefix; the cache follows each undone move, or is rebuilt once
        // where the undone moves have more pins than that costs
        int64_t undone_degree = 0;
        for (size_t i = best_len; i < moves.size(); ++i)
            undone_degree += h.vptr[moves[i].first + 1] - h.vptr[moves[i].first];
        const bool track = undone_degree <= h.m;
        for (size_t i = moves.size(); i-- > best_len;) {
            const int32_t u = moves[i].first, back = moves[i].second, cur = parts[u];
            if (track) {
                move(u, cur, back);
            } else {
                apply_move(h, phi, u, cur, back);
                parts[u] = back;
            }
            bw[cur] -= h.vwgt[u];
            bw[back] += h.vwgt[u];
        }
        if (!track) cache.build(phi, parts);
        total_gain += best;
        const int64_t prev = current;
        current -= best;
        if (best <= 0 || static_cast<double>(best) <= min_improvement * static_cast<double>(prev)) break;
    }
    return total_gain;
}

}  // namespace

void gain_cache_after_moves(const HgView &h, int32_t *parts, int32_t k, int objective,
                            const int32_t *mu, const int32_t *mt, int64_t moves,
                            std::vector<int64_t> &gains, std::vector<uint8_t> &offered) {
    PinCounts phi(h, parts);
    GainCache<int64_t> cache(h, k, objective);
    cache.build(phi, parts);
    for (int64_t i = 0; i < moves; ++i)
        if (parts[mu[i]] != mt[i])
            move_vertex(h, phi, objective, cache, parts, mu[i], parts[mu[i]], mt[i], nullptr, 0);
    gains.assign(static_cast<size_t>(h.n * k), 0);
    offered.assign(static_cast<size_t>(h.n * k), 0);
    for (int64_t u = 0; u < h.n; ++u)
        for (int32_t b = 0; b < k; ++b) {
            const int32_t v = static_cast<int32_t>(u);
            if (b == parts[v]) continue;
            gains[u * k + b] = cache.gain(v, parts[v], b);
            offered[u * k + b] = cache.offered(v, b);
        }
}

int64_t refine_fm(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds, int objective,
                  int64_t max_rounds, int64_t max_fruitless, double min_improvement, int64_t seed,
                  double max_work, const uint8_t *fixed) {
    if (k == 2 && BisectionGains::applies(h))
        return refine_fm_bisection(h, parts, bounds, objective, max_rounds, max_fruitless,
                                   min_improvement, seed, fixed);
    auto run = [&](auto tag) {
        using Cache = typename decltype(tag)::type;
        return refine_fm_kway<Cache>(h, parts, k, bounds, objective, max_rounds, max_fruitless,
                                     min_improvement, seed, max_work, fixed);
    };
    // the cache pays where a vertex's gains cost more to collect than its row to scan: k up to
    // about 4x the average degree (ibm04 at k = 64, average degree 3.9: the cache took 1.25x
    // the FM time; 10 two-pin nets per vertex at k = 64: 0.16x)
    const bool cached = k <= 4 * h.eptr[h.m] / std::max<int64_t>(h.n, 1);
    if (!cached || !GainCache<int32_t>::fits(h, k)) return run(TypeTag<NoGainCache>{});
    if (GainCache<int32_t>::holds(h)) return run(TypeTag<GainCache<int32_t>>{});
    return run(TypeTag<GainCache<int64_t>>{});
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
                          int objective, const uint8_t *locked) {
    {
        const std::vector<int64_t> bw = weights_of(h.n, h.vwgt, parts, k);
        bool over = false;
        for (int32_t b = 0; b < k; ++b) over |= bw[b] > bounds[b];
        if (!over) return;
    }
    HgRebalanceOracle oracle(h, parts, k, objective);
    rebalance_impl(h.n, h.vwgt, parts, k, bounds, oracle, locked);
}

}  // namespace igp
