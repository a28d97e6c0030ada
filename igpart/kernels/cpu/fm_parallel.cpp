// Parallel localized k-way FM (after Mt-KaHyPar's): per round, the OpenMP threads take seed
// vertices from the boundary (those with a move of gain >= 0, best first) and run local FM
// searches around them on the shared partition: a search owns the vertices it claims (atomic
// compare-and-swap), moves them with the gains of a shared gain cache, reserves room in the
// target block atomically, expands to the pins of the nets its moves change, and at its end
// undoes its moves after its own best prefix and appends the rest to a global move sequence.
// After the searches the exact gain of every move of the global sequence (each with the earlier
// ones applied) is recomputed, and the partition rolls back to the sequence's best balanced
// prefix: a round never worsens the objective and keeps every block within max(bound, its
// weight before the round).
#include <algorithm>
#include <atomic>
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
// A local search stops after this many moves without a new best of its own (or the caller's
// max_fruitless, if lower): most of its moves past that are undone anyway, at the cost of the
// pin-count and cache updates both ways (ibm05, k = 8: 20 gave the sequential FM's cut for
// 1.5x its CPU time on one thread, 250 gave 10% more cut for 5x).
constexpr int64_t kLocalFruitless = 20;
constexpr int64_t kExpandMaxNetSize = 1000;   // pins of larger nets are not pulled into a search
constexpr int32_t kFree = -1, kFixed = -2;    // owner of a vertex: a search id (>= 0) or these

int thread_count() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

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

// Adds w to a block weight unless that takes it above its bound; whether it did.
bool reserve(int64_t &weight, int64_t w, int64_t bound) {
    int64_t cur = relaxed_load(weight);
    while (cur + w <= bound)
        if (__atomic_compare_exchange_n(&weight, &cur, cur + w, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return true;
    return false;
}

template <class G>
class ParallelFm {
   public:
    ParallelFm(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds, int objective,
               int64_t max_fruitless, const uint8_t *fixed)
        : h_(h), parts_(parts), k_(k), bounds_(bounds), objective_(objective),
          max_fruitless_(max_fruitless), fixed_(fixed), phi_(h, parts), cache_(h, k, objective),
          locks_(h.m), bw_(weights_of(h.n, h.vwgt, parts, k)),
          owner_(static_cast<size_t>(h.n)), moved_(static_cast<size_t>(h.n)),
          version_(static_cast<size_t>(h.n), 0), stamp_(static_cast<size_t>(h.n), -1),
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
            moved_[u] = 0;
        }
        const std::vector<int64_t> before = bw_;
        log_len_ = 0;
        std::atomic<int64_t> cursor{0};
        const int threads = static_cast<int>(std::min<int64_t>(
            thread_count(), (static_cast<int64_t>(seeds.size()) + kSeedsPerSearch - 1) / kSeedsPerSearch));
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

    // One thread's local searches.
    class Search {
       public:
        Search(ParallelFm &fm, int64_t rseed, int tid)
            : fm_(fm), rseed_(rseed), id_(tid), mark_(tid), stride_(thread_count()) {}

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
        bool claim(int32_t v) {
            int32_t expect = kFree;
            if (!__atomic_compare_exchange_n(&fm_.owner_[v], &expect, id_, false, __ATOMIC_ACQ_REL,
                                             __ATOMIC_RELAXED))
                return false;
            claimed_.push_back(v);
            return true;
        }
        Move best(int32_t u) const {
            const int64_t w = fm_.h_.vwgt[u];
            return fm_.cache_.best(u, relaxed_load(fm_.parts_[u]), [&](int32_t b) {
                return relaxed_load(fm_.bw_[b]) + w <= fm_.bounds_[b];
            });
        }
        void push(int32_t u) {
            const Move mv = best(u);
            const uint32_t ver = ++fm_.version_[u];
            if (mv.ok()) pq_.push({mv.gain, tie_hash(rseed_, u, mv.to), u, mv.to, ver});
        }

        void search() {
            const HgView &h = fm_.h_;
            moves_.clear();
            int64_t cum = 0, best_gain = 0, fruitless = 0;
            size_t best_len = 0;
            while (!pq_.empty()) {
                const Entry top = pq_.top();
                pq_.pop();
                const int32_t u = top.u;
                if (fm_.moved_[u] || top.version != fm_.version_[u]) continue;
                const Move mv = best(u);
                if (!mv.ok()) continue;
                if (mv.gain != top.gain || mv.to != top.to) {
                    pq_.push({mv.gain, tie_hash(rseed_, u, mv.to), u, mv.to, ++fm_.version_[u]});
                    continue;
                }
                const int32_t from = relaxed_load(fm_.parts_[u]), to = mv.to;
                const int64_t w = h.vwgt[u];
                if (!reserve(fm_.bw_[to], w, fm_.bounds_[to])) {
                    push(u);  // the target filled up meanwhile: the next best block
                    continue;
                }
                relaxed_add(fm_.bw_[from], -w);
                nets_.clear();
                fm_.move(u, from, to, &nets_);
                fm_.moved_[u] = 1;
                moves_.push_back({u, from, to});
                cum += mv.gain;
                if (cum > best_gain) {
                    best_gain = cum;
                    best_len = moves_.size();
                    fruitless = 0;
                } else if (++fruitless >= std::min(kLocalFruitless, fm_.max_fruitless_)) {
                    break;
                }
                mark_ += stride_;
                for (int32_t e : nets_)
                    for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q) {
                        const int32_t v = h.eind[q];
                        const int32_t o = relaxed_load(fm_.owner_[v]);
                        if (o == id_) {
                            if (fm_.moved_[v] || fm_.stamp_[v] == mark_) continue;
                        } else if (o != kFree || !claim(v)) {
                            continue;
                        }
                        fm_.stamp_[v] = mark_;
                        push(v);
                    }
            }
            // undo the moves after this search's best prefix (block weights without a bound
            // check: the global rollback keeps only balanced prefixes)
            for (size_t i = moves_.size(); i-- > best_len;) {
                const LocalMove &m = moves_[i];
                const int64_t w = h.vwgt[m.u];
                relaxed_add(fm_.bw_[m.to], -w);
                relaxed_add(fm_.bw_[m.from], w);
                fm_.move(m.u, m.to, m.from, nullptr);
            }
            if (best_len > 0) {
                const int64_t at = fm_.log_len_.fetch_add(static_cast<int64_t>(best_len));
                for (size_t i = 0; i < best_len; ++i) {
                    fm_.log_[at + i] = {moves_[i].u, moves_[i].to, 0};
                    fm_.log_from_[at + i] = moves_[i].from;
                }
            }
            // vertices claimed but not moved, or moved back, may join later searches (a vertex
            // moves at most once in the global sequence: kept moves keep their owner)
            for (size_t i = best_len; i < moves_.size(); ++i) fm_.moved_[moves_[i].u] = 0;
            for (int32_t v : claimed_)
                if (!fm_.moved_[v]) __atomic_store_n(&fm_.owner_[v], kFree, __ATOMIC_RELEASE);
        }

        ParallelFm &fm_;
        int64_t rseed_;
        int32_t id_;
        int64_t mark_, stride_;
        std::priority_queue<Entry> pq_;
        std::vector<int32_t> claimed_, nets_;
        std::vector<LocalMove> moves_;
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
    std::vector<int32_t> owner_;
    std::vector<char> moved_;         // moved this round and kept by its search (owner only)
    std::vector<uint32_t> version_;   // queue entry versions, written by the owner only
    std::vector<int64_t> stamp_;      // last expansion that queued the vertex (owner only)
    std::vector<int32_t> pos_;        // sequence_gains scratch
    std::vector<char> net_mark_;
    std::vector<SeqMove> log_;        // the global move sequence (vertex, target)
    std::vector<int32_t> log_from_;   // and its source blocks
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
    if (h.n < min_vertices || thread_count() < 2 || !GainCache<int32_t>::fits(h, k))
        return refine_fm(h, parts, k, bounds, objective, max_rounds, max_fruitless,
                         min_improvement, seed, 0.0, fixed);
    if (GainCache<int32_t>::holds(h))
        return run_parallel_fm<int32_t>(h, parts, k, bounds, objective, max_rounds, max_fruitless,
                                        min_improvement, seed, fixed);
    return run_parallel_fm<int64_t>(h, parts, k, bounds, objective, max_rounds, max_fruitless,
                                    min_improvement, seed, fixed);
}

}  // namespace igp
