// Parallel localized k-way FM (after Mt-KaHyPar's): per round, the OpenMP threads take seed
// vertices from the boundary and run local FM searches around them. A search owns the vertices
// it claims (atomic compare-and-swap) and moves them in a search-local delta of the partition
// (pin counts, gain-cache rows, block weights) on top of the shared one, expanding to the pins
// of the nets its moves change; whenever its moves reach a new best total gain it applies them
// to the shared partition and its gain cache and appends them, in order, to a global move
// sequence, so other searches only ever see moves that improved their own search. After the
// searches the exact gain of every move of the global sequence (each with the earlier ones
// applied) is recomputed, and the partition rolls back to the sequence's best balanced prefix:
// a round never worsens the objective and keeps every block within max(bound, its weight
// before the round).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <queue>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gain_cache.h"
#include "partition.h"
#include "pin_counts.h"
#include "refine_impl.h"
#include "sequence_gains.h"

namespace igp {

namespace {

constexpr int64_t kSeedsPerSearch = 25;       // Mt-KaHyPar's default (r-fm-seed-nodes)
constexpr int64_t kExpandMaxNetSize = 1000;   // pins of larger nets are not pulled into a search
constexpr int32_t kFree = -1, kFixed = -2;    // owner of a vertex: a search id (>= 0) or these
// A vertex's state in a round (written by its owner only): not moved, moved in its search's
// delta since the search's last best, moved and applied to the shared partition.
constexpr char kNone = 0, kPending = 1, kKept = 2;

// A spin lock per net around its pin counts and the cache updates they trigger.
class NetLocks {
   public:
    explicit NetLocks(int64_t m) : flag_(static_cast<size_t>(m), 0) {}
    void lock(int32_t e) {
        while (__atomic_test_and_set(&flag_[e], __ATOMIC_ACQUIRE))
            while (__atomic_load_n(&flag_[e], __ATOMIC_RELAXED)) {
            }
    }
    void unlock(int32_t e) { __atomic_clear(&flag_[e], __ATOMIC_RELEASE); }

   private:
    std::vector<char> flag_;
};

// Open-addressing map from non-negative keys to V (V{} when absent), cleared in time
// proportional to its entries: a local search's deltas.
template <class V>
class DeltaMap {
   public:
    DeltaMap() { rehash(256); }
    const V *find(int64_t key) const {
        for (size_t i = slot(key);; i = (i + 1) & mask_) {
            if (keys_[i] == key) return &vals_[i];
            if (keys_[i] < 0) return nullptr;
        }
    }
    V get(int64_t key) const {
        const V *p = find(key);
        return p ? *p : V{};
    }
    V &at(int64_t key) {
        if (2 * (used_.size() + 1) > keys_.size()) rehash(2 * keys_.size());
        size_t i = slot(key);
        while (keys_[i] != key && keys_[i] >= 0) i = (i + 1) & mask_;
        if (keys_[i] < 0) {
            keys_[i] = key;
            vals_[i] = V{};
            used_.push_back(i);
        }
        return vals_[i];
    }
    void clear() {
        for (size_t i : used_) keys_[i] = -1;
        used_.clear();
    }

   private:
    size_t slot(int64_t key) const {
        uint64_t x = static_cast<uint64_t>(key);
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return static_cast<size_t>(x) & mask_;
    }
    void rehash(size_t cap) {
        std::vector<int64_t> keys(cap, -1);
        std::vector<V> vals(cap);
        std::vector<size_t> used;
        used.reserve(used_.size());
        mask_ = cap - 1;
        for (size_t j : used_) {
            size_t i = slot(keys_[j]);
            while (keys[i] >= 0) i = (i + 1) & mask_;
            keys[i] = keys_[j];
            vals[i] = vals_[j];
            used.push_back(i);
        }
        keys_.swap(keys);
        vals_.swap(vals);
        used_.swap(used);
    }
    std::vector<int64_t> keys_;
    std::vector<V> vals_;
    std::vector<size_t> used_;
    size_t mask_ = 0;
};

// KaHyPar's adaptive stopping rule for a local search: the gains of its moves since its last
// best seen as a random walk, it stops once it made more than ln(n) of them and their number
// reaches variance / (4 mean^2). Unlike KaHyPar's, a mean of 0 does not stop it: under the
// cut objective most moves gain 0 (a net leaves the cut only with its last pin), and stopping
// there cost up to 15% cut at k = 2 (neuron x8, 16 threads); the caller's max_fruitless bounds
// such walks.
class AdaptiveStop {
   public:
    explicit AdaptiveStop(int64_t n) : beta_(std::log(static_cast<double>(std::max<int64_t>(n, 2)))) {}
    void reset() {
        steps_ = 0;
        mean_ = m2_ = 0.0;
    }
    void update(int64_t gain) {
        const double g = static_cast<double>(gain);
        ++steps_;
        const double d = g - mean_;
        mean_ += d / static_cast<double>(steps_);
        m2_ += d * (g - mean_);
    }
    bool stop() const {
        if (static_cast<double>(steps_) <= beta_) return false;
        if (mean_ == 0.0) return false;
        const double variance = m2_ / static_cast<double>(steps_ - 1);
        return static_cast<double>(steps_) >= 0.25 * variance / (mean_ * mean_);
    }

   private:
    double beta_;
    int64_t steps_ = 0;
    double mean_ = 0.0, m2_ = 0.0;
};

template <class G>
class ParallelFm {
   public:
    ParallelFm(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds, int objective,
               int64_t max_fruitless, const uint8_t *fixed)
        : h_(h), parts_(parts), k_(k), bounds_(bounds), objective_(objective),
          max_fruitless_(max_fruitless), fixed_(fixed), phi_(h, parts), cache_(h, k, objective),
          locks_(h.m), bw_(weights_of(h.n, h.vwgt, parts, k)),
          owner_(static_cast<size_t>(h.n)), moved_(static_cast<size_t>(h.n)),
          tent_(static_cast<size_t>(h.n)),
          version_(filled<uint32_t>(h.n, 0)), stamp_(filled<int64_t>(h.n, -1)),
          pos_(static_cast<size_t>(h.n), -1), net_mark_(static_cast<size_t>(h.m), 0),
          log_(static_cast<size_t>(h.n)), log_from_(static_cast<size_t>(h.n)) {}

    int64_t objective() const { return objective_of(h_, phi_, objective_); }

    // One round; returns its gain (>= 0).
    int64_t round(int64_t rseed) {
        cache_.build(phi_, parts_);
        const std::vector<int32_t> seeds = boundary_seeds(rseed);
        if (seeds.empty()) return 0;
#pragma omp parallel for schedule(static) if (h_.n >= kParallelMinLightItems)
        for (int64_t u = 0; u < h_.n; ++u) {
            owner_[u] = fixed_ && fixed_[u] ? kFixed : kFree;
            moved_[u] = kNone;
        }
        const std::vector<int64_t> before = bw_;
        log_len_ = 0;
        std::atomic<int64_t> cursor{0};
        const int threads = static_cast<int>(std::min<int64_t>(
            max_threads(), (static_cast<int64_t>(seeds.size()) + kSeedsPerSearch - 1) / kSeedsPerSearch));
#pragma omp parallel num_threads(threads)
        {
#ifdef _OPENMP
            Search s(*this, rseed, omp_get_thread_num());
#else
            Search s(*this, rseed, 0);
#endif
            while (s.run(seeds, cursor)) {
            }
        }
        return keep_best_prefix(before);
    }

   private:
    using Entry = FmEntry;
    struct LocalMove {
        int32_t u, from, to;
    };

    // Boundary vertices that may move with a gain >= 0, by gain descending (ties: a seeded
    // hash, then the id): the searches start where the sequential FM's queue would.
    std::vector<int32_t> boundary_seeds(int64_t rseed) const {
        struct Seed {
            int64_t gain;
            uint32_t tie;
            int32_t v;
            bool operator<(const Seed &o) const {
                return gain != o.gain ? gain > o.gain : (tie != o.tie ? tie < o.tie : v < o.v);
            }
        };
        std::vector<Seed> keyed;
#pragma omp parallel if (h_.n >= kParallelMinItems)
        {
            std::vector<Seed> mine;
#pragma omp for schedule(dynamic, 2048) nowait
            for (int64_t u = 0; u < h_.n; ++u) {
                const int32_t v = static_cast<int32_t>(u);
                if ((fixed_ && fixed_[v]) || !on_boundary(h_, phi_, v)) continue;
                const int64_t w = h_.vwgt[v];
                const Move mv = cache_.best(v, parts_[v],
                                            [&](int32_t b) { return bw_[b] + w <= bounds_[b]; });
                if (mv.ok() && mv.gain >= 0) mine.push_back({mv.gain, tie_hash(rseed, v, -1), v});
            }
#pragma omp critical
            keyed.insert(keyed.end(), mine.begin(), mine.end());
        }
        parallel_sort(keyed.begin(), keyed.end());
        std::vector<int32_t> seeds(keyed.size());
        for (size_t i = 0; i < keyed.size(); ++i) seeds[i] = keyed[i].v;
        return seeds;
    }

    // Moves u on the shared partition (block weights already reserved by the caller); `nets`
    // gets its nets of at most kExpandMaxNetSize pins whose other pins' gains the move changes.
    void move(int32_t u, int32_t from, int32_t to, std::vector<int32_t> *nets) {
        relaxed_store(parts_[u], to);
        for (int64_t j = h_.vptr[u]; j < h_.vptr[u + 1]; ++j) {
            const int32_t e = h_.vind[j];
            const int64_t size = h_.size(e);
            if (size < 2) {  // u's own net: no other search reads or writes it
                phi_.dec(e, from);
                phi_.inc(e, to);
                continue;
            }
            locks_.lock(e);
            const int32_t pf = phi_.get(e, from), pt = phi_.get(e, to);
            phi_.dec(e, from);
            phi_.inc(e, to);
            const bool changes = move_changes_gains(objective_, size, pf, pt);
            if (changes) cache_.net_moved(e, u, from, to, pf - 1, pt + 1, parts_);
            locks_.unlock(e);
            if (changes && nets && size <= kExpandMaxNetSize) nets->push_back(e);
        }
    }

    // One thread's local searches. A search moves its vertices in a search-local delta of the
    // partition (pin counts, gain-cache rows and block weights: other searches do not see its
    // tentative moves) and applies its moves to the shared partition, appending them to the
    // global sequence, whenever their total gain reaches a new best of its own; the moves
    // after its last best are dropped with the delta.
    class Search {
       public:
        Search(ParallelFm &fm, int64_t rseed, int tid)
            : fm_(fm), rseed_(rseed), id_(tid), mark_(tid), stride_(max_threads()),
              dbw_(static_cast<size_t>(fm.k_), 0), stop_(fm.h_.n) {}

        // Claims up to kSeedsPerSearch seeds and searches from them; false once no seed is left.
        bool run(const std::vector<int32_t> &seeds, std::atomic<int64_t> &cursor) {
            const int64_t total = static_cast<int64_t>(seeds.size());
            claimed_.clear();
            pq_ = {};
            while (static_cast<int64_t>(claimed_.size()) < kSeedsPerSearch) {
                const int64_t i = cursor.fetch_add(1, std::memory_order_relaxed);
                if (i >= total) break;
                if (claim(seeds[i])) push(seeds[i]);
            }
            if (claimed_.empty()) return cursor.load(std::memory_order_relaxed) < total;
            search();
            return true;
        }

       private:
        struct RowDelta {
            int64_t w = 0;
            int32_t n = 0;
        };
        int64_t key(int64_t x, int32_t b) const { return x * fm_.k_ + b; }

        bool claim(int32_t v) {
            int32_t expect = kFree;
            if (!__atomic_compare_exchange_n(&fm_.owner_[v], &expect, id_, false, __ATOMIC_ACQ_REL,
                                             __ATOMIC_RELAXED))
                return false;
            claimed_.push_back(v);
            return true;
        }
        // v's block as this search sees it: its tentative block when it holds v and moved it
        // since its last best, else the shared one.
        int32_t view_part(int32_t v) const {
            if (relaxed_load(fm_.owner_[v]) == id_ && fm_.moved_[v] == kPending)
                return fm_.tent_[v];
            return relaxed_load(fm_.parts_[v]);
        }
        // Best move of u (held by this search, not moved) on the shared rows plus the delta.
        Move best(int32_t u) const {
            const GainCache<G> &c = fm_.cache_;
            const int32_t s = relaxed_load(fm_.parts_[u]);
            const int64_t w = fm_.h_.vwgt[u];
            auto accept = [&](int32_t b) {
                return relaxed_load(fm_.bw_[b]) + dbw_[b] + w <= fm_.bounds_[b];
            };
            if (!drow_any_.find(u)) return c.best(u, s, accept);
            const int64_t base = c.entry(u, s) + drow_.get(key(u, s)).w;
            Move best;
            for (int32_t b = 0; b < fm_.k_; ++b) {
                if (b == s) continue;
                const RowDelta d = drow_.get(key(u, b));
                const int64_t r = static_cast<int64_t>(c.entry(u, b)) + d.w;
                const bool offered = c.counts_nets() ? c.net_count(u, b) + d.n > 0 : r > 0;
                if (!offered || !accept(b)) continue;
                if (!best.ok() || r - base > best.gain) best = {b, r - base};
            }
            return best;
        }
        void push(int32_t u) {
            const Move mv = best(u);
            const uint32_t ver = ++fm_.version_[u];
            if (mv.ok()) pq_.push({mv.gain, tie_hash(rseed_, u, mv.to), u, mv.to, ver});
        }

        // Moves u in the delta; nets_ gets its nets of at most kExpandMaxNetSize pins whose
        // other pins' gains the move changes.
        void local_move(int32_t u, int32_t from, int32_t to) {
            const HgView &h = fm_.h_;
            fm_.moved_[u] = kPending;
            fm_.tent_[u] = to;
            const int64_t w = h.vwgt[u];
            dbw_[from] -= w;
            dbw_[to] += w;
            pending_.push_back({u, from, to});
            nets_.clear();
            for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
                const int32_t e = h.vind[j];
                const int64_t size = h.size(e);
                if (size < 2) continue;
                fm_.locks_.lock(e);
                int64_t pf = fm_.phi_.get(e, from), pt = fm_.phi_.get(e, to);
                fm_.locks_.unlock(e);
                int32_t &df = dphi_.at(key(e, from));
                pf += df--;
                int32_t &dt = dphi_.at(key(e, to));
                pt += dt++;
                if (!move_changes_gains(fm_.objective_, size, pf, pt)) continue;
                fm_.cache_.row_changes(
                    e, u, from, to, pf - 1, pt + 1, [this](int32_t v) { return view_part(v); },
                    [this](int32_t v, int32_t b, G dw, int32_t dn) {
                        RowDelta &d = drow_.at(key(v, b));
                        d.w += dw;
                        d.n += dn;
                        drow_any_.at(v) = 1;
                    });
                if (size <= kExpandMaxNetSize) nets_.push_back(e);
            }
        }
        // Applies the pending moves to the shared partition (in their order) and appends them
        // to the global sequence; the delta empties.
        void flush() {
            const HgView &h = fm_.h_;
            for (const LocalMove &m : pending_) {
                const int64_t w = h.vwgt[m.u];
                relaxed_add(fm_.bw_[m.to], w);
                relaxed_add(fm_.bw_[m.from], -w);
                fm_.move(m.u, m.from, m.to, nullptr);
                fm_.moved_[m.u] = kKept;
            }
            const int64_t at = fm_.log_len_.fetch_add(static_cast<int64_t>(pending_.size()));
            for (size_t i = 0; i < pending_.size(); ++i) {
                fm_.log_[at + i] = {pending_[i].u, pending_[i].to, 0};
                fm_.log_from_[at + i] = pending_[i].from;
            }
            drop_delta();
        }
        void drop_delta() {
            for (const LocalMove &m : pending_)
                if (fm_.moved_[m.u] == kPending) fm_.moved_[m.u] = kNone;
            pending_.clear();
            dphi_.clear();
            drow_.clear();
            drow_any_.clear();
            std::fill(dbw_.begin(), dbw_.end(), 0);
        }

        void search() {
            const HgView &h = fm_.h_;
            int64_t cum = 0, best_gain = 0, since_best = 0;
            stop_.reset();
            while (!pq_.empty()) {
                const Entry top = pq_.top();
                pq_.pop();
                const int32_t u = top.u;
                if (fm_.moved_[u] != kNone || top.version != fm_.version_[u]) continue;
                const Move mv = best(u);
                if (!mv.ok()) continue;
                if (mv.gain != top.gain || mv.to != top.to) {
                    pq_.push({mv.gain, tie_hash(rseed_, u, mv.to), u, mv.to, ++fm_.version_[u]});
                    continue;
                }
                local_move(u, relaxed_load(fm_.parts_[u]), mv.to);
                cum += mv.gain;
                stop_.update(mv.gain);
                if (cum > best_gain) {
                    flush();
                    best_gain = cum;
                    since_best = 0;
                    stop_.reset();
                } else if (++since_best >= fm_.max_fruitless_ || stop_.stop()) {
                    break;
                }
                mark_ += stride_;
                for (int32_t e : nets_)
                    for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q) {
                        const int32_t v = h.eind[q];
                        const int32_t o = relaxed_load(fm_.owner_[v]);
                        if (o == id_) {
                            if (fm_.moved_[v] != kNone || fm_.stamp_[v] == mark_) continue;
                        } else if (o != kFree || !claim(v)) {
                            continue;
                        }
                        fm_.stamp_[v] = mark_;
                        push(v);
                    }
            }
            drop_delta();
            // vertices claimed but not kept may join later searches (a vertex moves at most
            // once in the global sequence: kept moves keep their owner)
            for (int32_t v : claimed_)
                if (fm_.moved_[v] != kKept) __atomic_store_n(&fm_.owner_[v], kFree, __ATOMIC_RELEASE);
        }

        ParallelFm &fm_;
        int64_t rseed_;
        int32_t id_;
        int64_t mark_, stride_;
        std::priority_queue<Entry> pq_;
        std::vector<int32_t> claimed_, nets_;
        std::vector<LocalMove> pending_;   // moves since the search's last best, in order
        DeltaMap<int32_t> dphi_;           // pin count deltas by (net, block)
        DeltaMap<RowDelta> drow_;          // gain-cache row deltas by (vertex, block)
        DeltaMap<char> drow_any_;          // vertices with a row delta
        std::vector<int64_t> dbw_;         // block weight deltas
        AdaptiveStop stop_;
    };

    // The exact gains of the global sequence; rolls back to its best balanced prefix (the first
    // of the highest total gain among prefixes keeping every block within
    // max(bound, weight before the round)); returns that gain.
    int64_t keep_best_prefix(const std::vector<int64_t> &before) {
        const int64_t L = log_len_.load();
        if (L == 0) return 0;
        std::vector<int64_t> gains(static_cast<size_t>(L), 0);
        sequence_gains(h_, phi_, objective_, parts_, log_.data(), L, pos_, net_mark_, gains,
                       log_from_.data());
        std::vector<int64_t> bw;
        int64_t best = 0;
        const int64_t best_len = best_balanced_prefix(h_, log_.data(), L, parts_, log_from_.data(),
                                                      gains, bounds_, before, bw, best);
        int64_t undone_pins = 0;
        for (int64_t i = best_len; i < L; ++i)
            undone_pins += h_.vptr[log_[i].u + 1] - h_.vptr[log_[i].u];
        bw_ = bw;
        const bool recount = 16 * undone_pins >= h_.eptr[h_.m];
        for (int64_t i = L; i-- > best_len;) {
            const int32_t u = log_[i].u;
            if (!recount) {
                for (int64_t j = h_.vptr[u]; j < h_.vptr[u + 1]; ++j) {
                    phi_.dec(h_.vind[j], log_[i].to);
                    phi_.inc(h_.vind[j], log_from_[i]);
                }
            }
            parts_[u] = log_from_[i];
        }
        if (recount) phi_.rebuild(parts_);
        return best;
    }

    const HgView &h_;
    int32_t *parts_;
    int32_t k_;
    const int64_t *bounds_;
    int objective_;
    int64_t max_fruitless_;
    const uint8_t *fixed_;
    PinCounts phi_;
    GainCache<G> cache_;
    NetLocks locks_;
    std::vector<int64_t> bw_;
    // per-vertex state sized without a sequential zeroing pass: every round sets owner_ and
    // moved_ first, tent_ is read only for kPending vertices, the log up to its length
    UninitVector<int32_t> owner_;
    UninitVector<char> moved_;        // kNone / kPending / kKept (owner only)
    UninitVector<int32_t> tent_;      // block of a kPending vertex (owner only)
    UninitVector<uint32_t> version_;  // queue entry versions, written by the owner only
    UninitVector<int64_t> stamp_;     // last expansion that queued the vertex (owner only)
    std::vector<int32_t> pos_;        // sequence_gains scratch
    std::vector<char> net_mark_;
    UninitVector<SeqMove> log_;       // the global move sequence (vertex, target)
    UninitVector<int32_t> log_from_;  // and its source blocks
    std::atomic<int64_t> log_len_{0};
};

template <class G>
int64_t run_parallel_fm(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                        int objective, int64_t max_rounds, int64_t max_fruitless,
                        double min_improvement, int64_t seed, const uint8_t *fixed) {
    ParallelFm<G> fm(h, parts, k, bounds, objective, max_fruitless, fixed);
    int64_t current = fm.objective(), total = 0;
    for (int64_t round = 0; round < max_rounds; ++round) {
        const int64_t best = fm.round(seed * 1000003 + round);
        total += best;
        const int64_t prev = current;
        current -= best;
        if (best <= 0 || static_cast<double>(best) <= min_improvement * static_cast<double>(prev))
            break;
    }
    return total;
}

}  // namespace

int64_t refine_fm_parallel(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                           int objective, int64_t max_rounds, int64_t max_fruitless,
                           double min_improvement, int64_t seed, const uint8_t *fixed,
                           int64_t min_vertices) {
    if (h.n < min_vertices || max_threads() < 2 || !GainCache<int32_t>::fits(h, k))
        return refine_fm(h, parts, k, bounds, objective, max_rounds, max_fruitless,
                         min_improvement, seed, 0.0, fixed);
    if (GainCache<int32_t>::holds(h))
        return run_parallel_fm<int32_t>(h, parts, k, bounds, objective, max_rounds, max_fruitless,
                                        min_improvement, seed, fixed);
    return run_parallel_fm<int64_t>(h, parts, k, bounds, objective, max_rounds, max_fruitless,
                                    min_improvement, seed, fixed);
}

}  // namespace igp
