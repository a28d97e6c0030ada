// Localized k-way FM on a graph's edge cut, sequential and parallel (graph_fm.h).
#include "graph_fm.h"

#include <atomic>
#include <memory>
#include <tuple>
#include <utility>

#include "gain_cache.h"
#include "label_sums.h"

namespace igp {

namespace {

using GraphFmEntry = std::tuple<int64_t, uint32_t, int32_t>;  // gain, ~hash, vertex

// The vertices u < n with keep(u) in a seeded order: (tie_hash(rseed, u, -3), u) ascending,
// gathered and keyed in parallel (distinct pairs: one order on any threads).
template <class Keep>
std::vector<std::pair<uint32_t, int32_t>> seeded_vertices(int64_t n, int64_t rseed, Keep keep) {
    const std::vector<int32_t> ids = parallel_select(n, keep);
    std::vector<std::pair<uint32_t, int32_t>> seeds(ids.size());
#pragma omp parallel for schedule(static) if (ids.size() >= kParallelMinLightItems)
    for (size_t x = 0; x < ids.size(); ++x) seeds[x] = {tie_hash(rseed, ids[x], -3), ids[x]};
    parallel_sort(seeds.begin(), seeds.end());
    return seeds;
}

}  // namespace

GraphConnCache::GraphConnCache(const GraphView &g, const int32_t *parts, int32_t k,
                               int64_t min_degree)
    : k_(k) {
    if (min_degree <= 0) return;
    const int64_t n = g.n, t = std::max<int64_t>(min_degree, k);
    const std::vector<int32_t> ids = parallel_select(n, [&](int64_t u) {
        if (g.xadj[u + 1] - g.xadj[u] < t) return false;
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j)
            if (g.adjwgt[j] == 0) return false;
        return true;
    });
    if (ids.empty()) return;
    rows_ = static_cast<int64_t>(ids.size());
    index_ = filled<int32_t>(n, -1);
    conn_ = UninitVector<int64_t>(static_cast<size_t>(rows_) * static_cast<size_t>(k));
#pragma omp parallel for schedule(dynamic, 256) if (rows_ >= kParallelMinLightItems)
    for (int64_t r = 0; r < rows_; ++r) {
        const int32_t u = ids[static_cast<size_t>(r)];
        index_[u] = static_cast<int32_t>(r);
        int64_t *c = &conn_[static_cast<size_t>(r) * static_cast<size_t>(k)];
        std::fill(c, c + k, 0);
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) c[parts[g.adjncy[j]]] += g.adjwgt[j];
    }
}

void graph_fm_boundary(const GraphView &g, const int32_t *parts, int32_t k, bool gain_seeds,
                       char *boundary, const GraphConnCache *cache) {
    const int64_t n = g.n;
    if (cache != nullptr && cache->empty()) cache = nullptr;
#pragma omp parallel if (n >= kParallelMinLightItems)
    {
        BlockConn sc(gain_seeds ? k : 1);
#pragma omp for schedule(static)
        for (int64_t u = 0; u < n; ++u) {
            const int32_t s = parts[u];
            char b = 0;
            if (const int64_t *r = cache ? cache->row(static_cast<int32_t>(u)) : nullptr) {
                // the blocks of u's neighbours are those of positive entries (no 0-weight edge)
                for (int32_t t = 0; t < k; ++t) {
                    if (t == s || r[t] == 0) continue;
                    b = 1;
                    if (!gain_seeds) break;
                    if (graph_move_gain(r[t], r[s]) >= 0) {
                        b = 2;
                        break;
                    }
                }
                boundary[u] = b;
                continue;
            }
            for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j)
                if (parts[g.adjncy[j]] != s) {
                    b = 1;
                    break;
                }
            if (b && gain_seeds) {
                const int64_t internal = sc.collect(g, parts, static_cast<int32_t>(u));
                for (int32_t t : sc.touched)
                    if (t != s && sc.conn[t] != 0 && graph_move_gain(sc.conn[t], internal) >= 0)
                        b = 2;
            }
            boundary[u] = b;
        }
    }
}

int64_t fm_refine_graph(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds,
                        int64_t rounds, int64_t max_fruitless_moves, double min_improvement,
                        int64_t seed, double max_work, bool gain_seeds,
                        int64_t cache_min_degree) {
    const int64_t n = g.n;
    const double budget = max_work > 0.0 ? max_work * static_cast<double>(g.xadj[n] + n) : 0.0;
    std::vector<int64_t> bw = weights_of(n, g.vwgt, parts, k);
    // per vertex: the round that moved it, and the last round in which a neighbour moved
    UninitVector<int64_t> locked = filled<int64_t>(n, -1), stale = filled<int64_t>(n, -1);
    GraphConnCache cache(g, parts, k, cache_min_degree);
    SearchGains gains(n, k);
    gains.use_cache(&cache);
    ReusableHeap<GraphFmEntry> heap;
    auto part = [parts](int32_t v) { return parts[v]; };
    auto weight = [&bw](int32_t b) { return bw[b]; };
    std::vector<std::pair<int32_t, int32_t>> log;  // (vertex, block it left)
    int64_t cut = graph_edge_cut(g, parts), total = 0;
    UninitVector<char> boundary(static_cast<size_t>(n));
    for (int64_t round = 0; round < rounds && cut > 0; ++round) {
        const int64_t rseed = seed + 7919 * (round + 1);
        graph_fm_boundary(g, parts, k, gain_seeds, boundary.data(), &cache);
        const std::vector<std::pair<uint32_t, int32_t>> seeds =
            seeded_vertices(n, rseed, [&](int64_t u) { return boundary[u] != 0; });
        int64_t round_gain = 0;
        double work = 0.0;
        auto push = [&](int32_t v) {
            const Move m = gains.best(g, part, weight, bounds, v, rseed, work);
            if (m.ok()) heap.push({m.gain, ~tie_hash(rseed, v, m.to), v});
        };
        for (const auto &sd : seeds) {
            if (budget > 0.0 && work > budget) break;
            const int32_t start = sd.second;
            if (locked[start] == round) continue;
            if (gain_seeds && boundary[start] == 1 && stale[start] != round) {
                // its neighbours are where they were at the start of the round, so its best
                // move still loses: skipped without the evaluation, whose work it counts
                work += static_cast<double>(g.xadj[start + 1] - g.xadj[start] + 1) +
                        static_cast<double>(k);
                continue;
            }
            heap.clear();
            log.clear();
            gains.reset();
            push(start);
            // gain seeds: no search from a vertex whose best move loses
            if (gain_seeds && (heap.empty() || std::get<0>(heap.top()) < 0)) continue;
            int64_t cur = 0, best = 0, fruitless = 0;
            size_t best_len = 0;
            while (!heap.empty() && fruitless < max_fruitless_moves) {
                const int64_t key = std::get<0>(heap.top());
                const int32_t v = std::get<2>(heap.top());
                heap.pop();
                if (locked[v] == round) continue;
                const Move m = gains.best(g, part, weight, bounds, v, rseed, work);
                if (!m.ok()) continue;
                if (m.gain < key) {  // stale entry: queue again with the gain it has now
                    heap.push({m.gain, ~tie_hash(rseed, v, m.to), v});
                    continue;
                }
                const int32_t from = parts[v], to = m.to;
                parts[v] = to;
                bw[from] -= g.vwgt[v];
                bw[to] += g.vwgt[v];
                locked[v] = round;
                log.push_back({v, from});
                cache.moved<false>(g, v, from, to);  // before its neighbours' rows are read
                cur += m.gain;
                if (cur > best) {
                    best = cur;
                    best_len = log.size();
                    fruitless = 0;
                } else {
                    ++fruitless;
                }
                for (int64_t j = g.xadj[v]; j < g.xadj[v + 1]; ++j) {
                    const int32_t x = g.adjncy[j];
                    stale[x] = round;
                    if (locked[x] == round) continue;
                    if (gains.has(x))
                        gains.moved(x, parts[x], g.vwgt[x], from, to, g.adjwgt[j], weight, bounds);
                    push(x);
                }
            }
            for (size_t i = log.size(); i > best_len; --i) {  // back to the best prefix
                const auto [v, from] = log[i - 1];
                bw[parts[v]] -= g.vwgt[v];
                bw[from] += g.vwgt[v];
                cache.moved<false>(g, v, parts[v], from);
                parts[v] = from;
            }
            round_gain += best;
        }
        total += round_gain;
        const int64_t before = cut;
        cut -= round_gain;
        if (static_cast<double>(round_gain) <= min_improvement * static_cast<double>(before)) break;
    }
    return total;
}

namespace {

constexpr int32_t kFree = -1;  // owner of a vertex: a thread's search id (>= 0) or none
// A vertex's state in a round (written by its owner only): not moved, moved in its search's
// delta since the search's last best, moved and published to the shared partition, moved and
// dropped with its search's moves after the last best (locked for the round, as in the
// sequential FM).
constexpr char kNone = 0, kPending = 1, kKept = 2, kDropped = 3;

struct GraphMove {
    int32_t u, from, to;
};

class ParallelGraphFm {
   public:
    ParallelGraphFm(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds,
                    int64_t max_fruitless, bool gain_seeds, double budget,
                    int64_t cache_min_degree)
        : g_(g), parts_(parts), k_(k), bounds_(bounds), max_fruitless_(max_fruitless),
          gain_seeds_(gain_seeds), budget_(budget), cache_(g, parts, k, cache_min_degree),
          bw_(weights_of(g.n, g.vwgt, parts, k)),
          owner_(filled<int32_t>(g.n, kFree)), moved_(filled<char>(g.n, kNone)),
          pos_(filled<int32_t>(g.n, -1)), tent_(static_cast<size_t>(g.n)),
          boundary_(static_cast<size_t>(g.n)), log_(static_cast<size_t>(g.n)),
          searches_(static_cast<size_t>(max_threads())) {}

    // One round; returns its gain (>= 0).
    int64_t round(int64_t rseed) {
        graph_fm_boundary(g_, parts_, k_, gain_seeds_, boundary_.data(), &cache_);
        const char need = gain_seeds_ ? 2 : 1;
        const std::vector<std::pair<uint32_t, int32_t>> seeds =
            seeded_vertices(g_.n, rseed, [&](int64_t u) { return boundary_[u] >= need; });
        if (seeds.empty()) return 0;
        const std::vector<int64_t> before = bw_;
        log_len_.store(0);
        work_.store(0);
        std::atomic<int64_t> cursor{0};
        const int64_t total = static_cast<int64_t>(seeds.size());
        const int threads =
            static_cast<int>(std::min<int64_t>(static_cast<int64_t>(searches_.size()), total));
#pragma omp parallel num_threads(threads)
        {
            std::unique_ptr<Search> &s = searches_[static_cast<size_t>(current_thread())];
            if (!s) s = std::make_unique<Search>(*this, current_thread());
            s->begin_round(rseed);
            for (;;) {
                if (budget_ > 0.0 &&
                    static_cast<double>(work_.load(std::memory_order_relaxed)) > budget_)
                    break;
                const int64_t i = cursor.fetch_add(1, std::memory_order_relaxed);
                if (i >= total) break;
                s->run(seeds[static_cast<size_t>(i)].second);
            }
        }
        const int64_t gain = keep_best_prefix(before);
        for (std::unique_ptr<Search> &s : searches_) {
            if (!s) continue;
            for (int32_t u : s->dropped_) {
                owner_[u] = kFree;
                moved_[u] = kNone;
            }
            s->dropped_.clear();
        }
        return gain;
    }

   private:
    // One thread's searches, one after the other: each moves its vertices in a delta of its own
    // (their blocks in tent_, block weight deltas) and publishes its pending moves to the shared
    // partition and the global sequence whenever their total gain reaches a new best of its
    // own; the moves after its last best are dropped with the delta.
    class Search {
       public:
        Search(ParallelGraphFm &fm, int32_t id)
            : fm_(fm), g_(fm.g_), id_(id), gains_(fm.g_.n, fm.k_),
              dbw_(static_cast<size_t>(fm.k_), 0) {
            gains_.use_cache(&fm.cache_);
        }

        void begin_round(int64_t rseed) { rseed_ = rseed; }

        // A search from `start` unless another search holds it or moved it in this round.
        void run(int32_t start) {
            if (relaxed_load(fm_.owner_[start]) != kFree || !claim(start)) return;
            double work = 0.0;
            gains_.reset();
            heap_.clear();
            push(start, work);
            // gain seeds: no search from a vertex whose best move loses (neighbours moved)
            if (!fm_.gain_seeds_ || (!heap_.empty() && std::get<0>(heap_.top()) >= 0))
                search(work);
            finish(work);
        }

       private:
        // v's block as this search sees it: its pending block when this search moved it since
        // its last best, else the shared one.
        int32_t part(int32_t v) const {
            // the byte first: most vertices read have no pending move
            if (fm_.moved_[v] == kPending && relaxed_load(fm_.owner_[v]) == id_)
                return fm_.tent_[v];
            return relaxed_load(fm_.parts_[v]);
        }
        int64_t weight(int32_t b) const { return relaxed_load(fm_.bw_[b]) + dbw_[b]; }

        bool claim(int32_t v) {
            int32_t expect = kFree;
            if (!__atomic_compare_exchange_n(&fm_.owner_[v], &expect, id_, false,
                                             __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
                return false;
            claimed_.push_back(v);
            return true;
        }
        Move best(int32_t v, double &work) {
            return gains_.best(
                g_, [this](int32_t x) { return part(x); },
                [this](int32_t b) { return weight(b); }, fm_.bounds_, v, rseed_, work);
        }
        void push(int32_t v, double &work) {
            const Move m = best(v, work);
            if (m.ok()) heap_.push({m.gain, ~tie_hash(rseed_, v, m.to), v});
        }

        void search(double &work) {
            int64_t cur = 0, best_gain = 0, fruitless = 0;
            while (!heap_.empty() && fruitless < fm_.max_fruitless_) {
                const int64_t key = std::get<0>(heap_.top());
                const int32_t v = std::get<2>(heap_.top());
                heap_.pop();
                if (fm_.moved_[v] != kNone) continue;  // queued vertices are this search's
                Move m = best(v, work);
                if (!m.ok()) continue;
                if (m.gain >= key) {  // about to move: its neighbours as they are now
                    gains_.refresh(g_, [this](int32_t x) { return part(x); }, v, work);
                    m = best(v, work);
                    if (!m.ok()) continue;
                }
                if (m.gain < key) {  // stale entry: queue again with the gain it has now
                    heap_.push({m.gain, ~tie_hash(rseed_, v, m.to), v});
                    continue;
                }
                const int32_t from = relaxed_load(fm_.parts_[v]), to = m.to;
                const int64_t w = g_.vwgt[v];
                fm_.tent_[v] = to;
                fm_.moved_[v] = kPending;
                dbw_[from] -= w;
                dbw_[to] += w;
                pending_.push_back({v, from, to});
                cur += m.gain;
                if (cur > best_gain) {
                    best_gain = cur;
                    publish();
                    fruitless = 0;
                } else {
                    ++fruitless;
                }
                for (int64_t j = g_.xadj[v]; j < g_.xadj[v + 1]; ++j) {
                    const int32_t x = g_.adjncy[j];
                    gains_.pend(x, from, to, g_.adjwgt[j]);  // until published or dropped
                    const int32_t o = relaxed_load(fm_.owner_[x]);
                    if (o == id_) {
                        if (fm_.moved_[x] != kNone) continue;
                    } else if (o != kFree || !claim(x)) {
                        continue;
                    }
                    if (gains_.has(x))
                        gains_.moved(x, relaxed_load(fm_.parts_[x]), g_.vwgt[x], from, to,
                                     g_.adjwgt[j], [this](int32_t b) { return weight(b); },
                                     fm_.bounds_);
                    push(x, work);
                }
            }
        }

        // The pending moves to the shared partition and, in their order, to the global sequence.
        void publish() {
            for (const GraphMove &mv : pending_) {
                const int64_t w = g_.vwgt[mv.u];
                relaxed_add(fm_.bw_[mv.to], w);
                relaxed_add(fm_.bw_[mv.from], -w);
                dbw_[mv.from] += w;
                dbw_[mv.to] -= w;
                relaxed_store(fm_.parts_[mv.u], mv.to);
                fm_.moved_[mv.u] = kKept;
                fm_.cache_.moved<true>(g_, mv.u, mv.from, mv.to);
            }
            gains_.clear_pending();  // the cache holds them now
            const int64_t at = fm_.log_len_.fetch_add(static_cast<int64_t>(pending_.size()));
            std::copy(pending_.begin(), pending_.end(), fm_.log_.begin() + at);
            pending_.clear();
        }

        // Drops the moves after the last best (their vertices stay locked for the round, as in
        // the sequential FM: freeing them lowered the cut by 3% at 2^18 for twice the FM's
        // work) and releases the vertices it did not move.
        void finish(double work) {
            for (const GraphMove &mv : pending_) {
                const int64_t w = g_.vwgt[mv.u];
                dbw_[mv.from] += w;
                dbw_[mv.to] -= w;
                fm_.moved_[mv.u] = kDropped;
                dropped_.push_back(mv.u);
            }
            pending_.clear();
            gains_.clear_pending();
            for (int32_t v : claimed_)
                if (fm_.moved_[v] == kNone) __atomic_store_n(&fm_.owner_[v], kFree, __ATOMIC_RELEASE);
            claimed_.clear();
            fm_.work_.fetch_add(static_cast<int64_t>(work), std::memory_order_relaxed);
        }

        ParallelGraphFm &fm_;
        const GraphView &g_;
        int32_t id_;
        int64_t rseed_ = 0;
        SearchGains gains_;
        ReusableHeap<GraphFmEntry> heap_;
        std::vector<int64_t> dbw_;          // block weight deltas of the pending moves
        std::vector<GraphMove> pending_;    // moves since the search's last best, in order
        std::vector<int32_t> claimed_;

       public:
        std::vector<int32_t> dropped_;  // vertices locked by dropped moves in this round
    };

    // The exact gain of every move of the global sequence with the earlier ones applied; rolls
    // back to its best balanced prefix (the first of the highest total gain among the prefixes
    // keeping every block within max(bound, weight before the round)); returns that gain.
    int64_t keep_best_prefix(const std::vector<int64_t> &before) {
        const int64_t L = log_len_.load();
        if (L == 0) return 0;
        const GraphMove *log = log_.data();
#pragma omp parallel for schedule(static) if (L >= kParallelMinLightItems)
        for (int64_t i = 0; i < L; ++i) pos_[log[i].u] = static_cast<int32_t>(i);
        // a neighbour's block at move i: after its own move when that came earlier
        std::vector<int64_t> gains(static_cast<size_t>(L));
#pragma omp parallel for schedule(dynamic, 1024) if (L >= kParallelMinItems)
        for (int64_t i = 0; i < L; ++i) {
            const GraphMove mv = log[i];
            int64_t gain = 0;
            for (int64_t j = g_.xadj[mv.u]; j < g_.xadj[mv.u + 1]; ++j) {
                const int32_t x = g_.adjncy[j];
                const int32_t p = pos_[x];
                const int32_t b = p < 0 ? parts_[x] : (p < i ? log[p].to : log[p].from);
                if (b == mv.to) gain += g_.adjwgt[j];
                else if (b == mv.from) gain -= g_.adjwgt[j];
            }
            gains[static_cast<size_t>(i)] = gain;
        }
        std::vector<int64_t> bw = before;
        auto over = [&](int32_t b) { return bw[b] > std::max(bounds_[b], before[b]) ? 1 : 0; };
        int64_t overloaded = 0, sum = 0, best = 0, best_len = 0;
        for (int64_t i = 0; i < L; ++i) {
            const GraphMove mv = log[i];
            const int64_t w = g_.vwgt[mv.u];
            overloaded -= over(mv.from) + over(mv.to);
            bw[mv.from] -= w;
            bw[mv.to] += w;
            overloaded += over(mv.from) + over(mv.to);
            sum += gains[static_cast<size_t>(i)];
            if (overloaded == 0 && sum > best) {
                best = sum;
                best_len = i + 1;
            }
        }
        bw_ = before;
        for (int64_t i = 0; i < best_len; ++i) {
            bw_[log[i].from] -= g_.vwgt[log[i].u];
            bw_[log[i].to] += g_.vwgt[log[i].u];
        }
        if (!cache_.empty()) {  // the cached rows back to the kept prefix
#pragma omp parallel for schedule(dynamic, 256) if (L - best_len >= kParallelMinLightItems)
            for (int64_t i = best_len; i < L; ++i)
                cache_.moved<true>(g_, log[i].u, log[i].to, log[i].from);
        }
#pragma omp parallel for schedule(static) if (L >= kParallelMinLightItems)
        for (int64_t i = 0; i < L; ++i) {
            const int32_t u = log[i].u;
            if (i >= best_len) parts_[u] = log[i].from;
            pos_[u] = -1;
            owner_[u] = kFree;
            moved_[u] = kNone;
        }
        return best;
    }

    const GraphView &g_;
    int32_t *parts_;
    int32_t k_;
    const int64_t *bounds_;
    int64_t max_fruitless_;
    bool gain_seeds_;
    double budget_;
    GraphConnCache cache_;           // rows of the shared partition (published moves)
    std::vector<int64_t> bw_;        // shared block weights (relaxed atomics during a round)
    UninitVector<int32_t> owner_;    // per vertex: the search holding it, or kFree
    UninitVector<char> moved_;       // kNone / kPending / kKept (its owner only)
    UninitVector<int32_t> pos_;      // per vertex: its position in the sequence, -1 (rollback)
    UninitVector<int32_t> tent_;     // block of a kPending vertex (its owner only)
    UninitVector<char> boundary_;
    UninitVector<GraphMove> log_;    // the global move sequence
    std::atomic<int64_t> log_len_{0}, work_{0};
    std::vector<std::unique_ptr<Search>> searches_;  // per thread, kept across rounds
};

}  // namespace

int64_t fm_refine_graph_parallel(const GraphView &g, int32_t *parts, int32_t k,
                                 const int64_t *bounds, int64_t rounds,
                                 int64_t max_fruitless_moves, double min_improvement, int64_t seed,
                                 double max_work, bool gain_seeds, int64_t min_vertices,
                                 int64_t cache_min_degree) {
    const int64_t n = g.n;
    if (n < min_vertices || max_threads() < 2 || in_parallel())
        return fm_refine_graph(g, parts, k, bounds, rounds, max_fruitless_moves, min_improvement,
                               seed, max_work, gain_seeds, cache_min_degree);
    const double budget = max_work > 0.0 ? max_work * static_cast<double>(g.xadj[n] + n) : 0.0;
    ParallelGraphFm fm(g, parts, k, bounds, max_fruitless_moves, gain_seeds, budget,
                       cache_min_degree);
    int64_t cut = graph_edge_cut(g, parts), total = 0;
    for (int64_t round = 0; round < rounds && cut > 0; ++round) {
        const int64_t round_gain = fm.round(seed + 7919 * (round + 1));
        total += round_gain;
        const int64_t before = cut;
        cut -= round_gain;
        if (static_cast<double>(round_gain) <= min_improvement * static_cast<double>(before)) break;
    }
    return total;
}

}  // namespace igp
