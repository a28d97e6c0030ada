// Localized k-way FM on a graph's edge cut (graph_fm.cpp): the sequential FM (one search after
// another; the result depends on the seed only) and the parallel one (searches on every OpenMP
// thread at once, after Mt-KaHyPar's parallel localized FM), with the per-search gain structure
// both use.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gain_cache.h"
#include "partition.h"
#include "partition_common.h"
#include "refine_impl.h"
#include "scratch_map.h"

namespace igp {

// Localized k-way FM on the edge cut: each round starts a search at every boundary vertex not
// yet touched (seeded order); a search moves the unlocked vertex of highest gain into a block
// with room (negative gains allowed), locks it, updates its neighbours, stops after
// `max_fruitless_moves` moves without a new best and rolls back to its best prefix. Rounds stop
// after `rounds` or when one improves the cut by less than `min_improvement` (a fraction). A
// round also stops starting searches once its gain evaluations have read max_work times the
// level's adjacency entries + vertices (0: no bound; an evaluation reads the vertex's degree, so
// a move costs the sum of its neighbours' degrees: dense levels would cost degree^2 per move).
// gain_seeds: searches start only at the boundary vertices whose best move has a gain >= 0 (the
// others cost a search of max_fruitless_moves moves that is nearly always rolled back).
// cache_min_degree > 0: the connectivity rows of the vertices of degree >= max(it, k) are kept in
// a GraphConnCache for the whole call (the same moves as without it). Returns the total gain
// (>= 0).
int64_t fm_refine_graph(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds,
                        int64_t rounds, int64_t max_fruitless_moves, double min_improvement,
                        int64_t seed, double max_work, bool gain_seeds,
                        int64_t cache_min_degree = 0);

// The same FM with its searches on all OpenMP threads at once (levels of at least
// `min_vertices` vertices and two threads or more; else fm_refine_graph). Per round the threads
// take the seeds in the seeded order; a search claims its vertices (compare-and-swap: a vertex
// belongs to one search at a time, and a vertex whose move is kept stays with it for the round),
// moves them in a delta of its own (blocks and block weights that the other searches do not
// see) and publishes its moves, in order, to the shared partition and to a global move sequence
// whenever they reach a new best total gain of its own (a vertex moves at most once a round: its
// moves after the last best are dropped, and it stays locked). After the searches the exact gain of
// every move of the sequence (with the earlier ones applied) is recomputed and the partition
// rolls back to the sequence's best prefix after which every block b is within
// max(bounds[b], its weight before the round): a round never raises the edge cut nor overloads
// a block that was not overloaded. The same stopping rules and work budget (summed over the
// threads); with gain_seeds only the vertices whose best move gains >= 0 at the start of the
// round are seeds. cache_min_degree as fm_refine_graph's: the cached rows hold the shared
// partition (published moves); a search adds its own pending moves from a delta of its own. The
// result depends on the threads' interleaving. Returns the total gain.
int64_t fm_refine_graph_parallel(const GraphView &g, int32_t *parts, int32_t k,
                                 const int64_t *bounds, int64_t rounds,
                                 int64_t max_fruitless_moves, double min_improvement, int64_t seed,
                                 double max_work, bool gain_seeds, int64_t min_vertices,
                                 int64_t cache_min_degree = 0);

class GraphConnCache;

// Per vertex at the start of a round: 0 inside its block, 1 on the boundary, 2 on the boundary
// with a move of gain >= 0 into an adjacent block (room not considered; 2 only when gain_seeds).
// A vertex `cache` holds a row of (exact for `parts`) is judged from the row's k entries instead
// of its adjacency. In parallel; the same on any threads.
void graph_fm_boundary(const GraphView &g, const int32_t *parts, int32_t k, bool gain_seeds,
                       char *boundary, const GraphConnCache *cache = nullptr);

// A max-heap like std::priority_queue<T> (the same push_heap / pop_heap calls, so the same
// order) whose storage is kept by clear(): one FM search after another without reallocating.
template <class T>
class ReusableHeap {
   public:
    bool empty() const { return c_.empty(); }
    const T &top() const { return c_.front(); }
    void push(const T &x) {
        c_.push_back(x);
        std::push_heap(c_.begin(), c_.end());
    }
    void pop() {
        std::pop_heap(c_.begin(), c_.end());
        c_.pop_back();
    }
    void clear() { c_.clear(); }

   private:
    std::vector<T> c_;
};

// The connectivity rows of a level's high-degree vertices, kept for a whole FM call: R(u, b) sums
// the weights of u's edges into block b. An FM search reads such a vertex's row (k entries read
// in order) instead of its adjacency (a random read of the partition per edge, again by every
// search that reaches the vertex, which on a circuit's graph model is most of the FM's time), and
// a move of v updates the rows of v's cached neighbours (two entries each). A vertex is cached
// when its degree is at least max(min_degree, k) and none of its edges weighs 0 (so a row entry
// is positive exactly where the vertex has a neighbour), so the rows hold at most as many
// entries as the level has arcs.
class GraphConnCache {
   public:
    GraphConnCache(const GraphView &g, const int32_t *parts, int32_t k, int64_t min_degree);

    bool empty() const { return rows_ == 0; }
    bool cached(int32_t u) const { return rows_ != 0 && index_[u] >= 0; }
    // u's row, nullptr when u is not cached.
    int64_t *row(int32_t u) { return cached(u) ? conn_.data() + offset(u) : nullptr; }
    const int64_t *row(int32_t u) const { return cached(u) ? conn_.data() + offset(u) : nullptr; }

    // v moved from block a to block b: the rows of its cached neighbours. Shared: relaxed atomic
    // updates (other threads update and read rows at the same time).
    template <bool Shared>
    void moved(const GraphView &g, int32_t v, int32_t a, int32_t b) {
        if (rows_ == 0) return;
        for (int64_t j = g.xadj[v]; j < g.xadj[v + 1]; ++j) {
            int64_t *r = row(g.adjncy[j]);
            if (r == nullptr) continue;
            if constexpr (Shared) {
                relaxed_add(r[a], -g.adjwgt[j]);
                relaxed_add(r[b], g.adjwgt[j]);
            } else {
                r[a] -= g.adjwgt[j];
                r[b] += g.adjwgt[j];
            }
        }
    }

   private:
    size_t offset(int32_t u) const {
        return static_cast<size_t>(index_[u]) * static_cast<size_t>(k_);
    }

    int32_t k_;
    int64_t rows_ = 0;
    UninitVector<int32_t> index_;  // per vertex: its row, -1 not cached (empty when no row)
    UninitVector<int64_t> conn_;   // rows_ rows of k entries
};

// Connectivity to every block of the vertices one FM search has touched, kept exact as the search
// moves vertices, with each vertex's best move: updated in O(1) when a neighbour moves, recomputed
// over the k blocks only when its target lost weight towards it or ran out of room. The partition
// and the block weights are read through `part(v)` and `weight(b)`: the shared arrays for the
// sequential FM, a search's view of them (its own moves on top) for the parallel one. With a
// GraphConnCache a cached vertex's row is read from the cache instead of its adjacency: the cache
// holds the shared partition, and the parallel FM's searches add their pending moves (pend()).
class SearchGains {
   public:
    SearchGains(int64_t n, int32_t k) : k_(k), slot_(filled<int32_t>(n, -1)) {}

    // Rows of cached vertices from `cache` (nullptr: every row from the adjacency).
    void use_cache(GraphConnCache *cache) {
        cache_ = cache != nullptr && !cache->empty() ? cache : nullptr;
    }

    // Forgets every vertex (start of a search).
    void reset() {
        for (int32_t u : vertices_) slot_[u] = -1;
        vertices_.clear();
        to_.clear();
        gain_.clear();
        dirty_.clear();
        clear_pending();
    }

    // The search moved x's neighbour from block a to block b across an edge of weight w
    // without publishing the move to the cache: x's row, when read from the cache, adds it.
    void pend(int32_t x, int32_t a, int32_t b, int64_t w) {
        if (cache_ == nullptr || !cache_->cached(x)) return;
        int32_t &head = pend_head_[static_cast<uint64_t>(x)];  // 0: none, else entry + 1
        pend_.push_back({head, a, b, w});
        head = static_cast<int32_t>(pend_.size());
    }
    // The pending moves were published to the cache, or dropped.
    void clear_pending() {
        if (pend_.empty()) return;
        pend_head_.clear();
        pend_.clear();
    }

    bool has(int32_t u) const { return slot_[u] >= 0; }

    // The best move of u into an adjacent block with room (to = -1: none).
    template <class PartOf, class WeightOf>
    Move best(const GraphView &g, PartOf part, WeightOf weight, const int64_t *bounds, int32_t u,
              int64_t seed, double &work) {
        const int32_t s = slot(g, part, u, work);
        const int32_t t = to_[s];
        if (!dirty_[s] && t >= 0 && weight(t) + g.vwgt[u] > bounds[t]) dirty_[s] = 1;
        if (dirty_[s]) {
            const int64_t *c = &conn_[static_cast<size_t>(s) * k_];
            const int32_t own = part(u);
            const int64_t wu = g.vwgt[u];
            int32_t best = -1;
            int64_t bg = 0, best_w = 0;
            unsigned int bh = 0;
            bool hashed = false;  // bh holds best's tie hash (computed only when a tie needs it)
            // a total order (gain, lighter block, tie hash, lower id): the blocks may be
            // visited in any order and more than once
            auto consider = [&](int32_t b) {
                if (b == own || c[b] == 0) return;
                const int64_t wb = weight(b);
                if (wb + wu > bounds[b]) return;
                const int64_t gb = graph_move_gain(c[b], c[own]);
                if (best >= 0 && (gb < bg || (gb == bg && wb > best_w))) return;
                if (best >= 0 && gb == bg && wb == best_w) {
                    if (b == best) return;
                    if (!hashed) bh = tie_hash(seed, u, best);
                    hashed = true;
                    const unsigned int h = tie_hash(seed, u, b);
                    if (h > bh || (h == bh && b > best)) return;
                    bh = h;
                } else {
                    hashed = false;
                }
                best = b;
                bg = gb;
                best_w = wb;
            };
            // the blocks of u's neighbours (the only ones of positive connectivity) when they
            // are fewer to visit than the k blocks
            const int64_t degree = g.xadj[u + 1] - g.xadj[u];
            if (degree < k_) {
                for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) consider(part(g.adjncy[j]));
            } else {
                for (int32_t b = 0; b < k_; ++b) consider(b);
            }
            to_[s] = best;
            gain_[s] = bg;
            dirty_[s] = 0;
            work += static_cast<double>(k_);
        }
        return {to_[s], gain_[s]};
    }

    // Neighbour v of the known vertex x (in block `own`, weight wx) moved from block a to block
    // b across an edge of weight w.
    template <class WeightOf>
    void moved(int32_t x, int32_t own, int64_t wx, int32_t a, int32_t b, int64_t w,
               WeightOf weight, const int64_t *bounds) {
        const int32_t s = slot_[x];
        int64_t *c = &conn_[static_cast<size_t>(s) * k_];
        c[a] -= w;
        c[b] += w;
        if (dirty_[s]) return;
        int32_t &t = to_[s];
        int64_t &gn = gain_[s];
        if (t < 0 || t == a) {  // no move before, or the best target lost weight: rescan
            dirty_[s] = 1;
            return;
        }
        if (own == b) {  // every gain fell by w, a's by 2w: t stays best
            gn -= w;
            return;
        }
        if (t == b) {
            gn += own == a ? 2 * w : w;
            return;
        }
        if (own == a) gn += w;  // every gain rose by w, b's by 2w
        const int64_t gb = graph_move_gain(c[b], c[own]);
        if (gb > gn && weight(b) + wx <= bounds[b]) {
            t = b;
            gn = gb;
        }
    }

    // Reads the known vertex u's connectivity from its adjacency again (the parallel FM: other
    // searches may have moved its neighbours since it was read); its best move is recomputed
    // only when the connectivity changed. A row sums the weights of all u's edges, so when
    // the blocks of u's neighbours have the entries just read, every other entry is 0: an
    // unchanged row costs u's degree, not k.
    template <class PartOf>
    void refresh(const GraphView &g, PartOf part, int32_t u, double &work) {
        const int32_t s = slot_[u];
        int64_t *c = &conn_[static_cast<size_t>(s) * k_];
        if (cache_ != nullptr && cache_->cached(u)) {
            if (row_.empty()) row_.assign(static_cast<size_t>(k_), 0);
            cached_row(g, u, row_.data(), work);
            if (!std::equal(row_.begin(), row_.end(), c)) {
                std::copy(row_.begin(), row_.end(), c);
                dirty_[s] = 1;
            }
            return;
        }
        if (fresh_.empty()) fresh_.assign(static_cast<size_t>(k_), 0);
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
            const int32_t b = part(g.adjncy[j]);
            if (fresh_[b] == 0) blocks_.push_back(b);
            fresh_[b] += g.adjwgt[j];
        }
        bool same = true;
        for (int32_t b : blocks_) same = same && fresh_[b] == c[b];
        if (!same) {
            std::fill(c, c + k_, 0);
            for (int32_t b : blocks_) c[b] = fresh_[b];
            dirty_[s] = 1;
        }
        for (int32_t b : blocks_) fresh_[b] = 0;
        blocks_.clear();
        work += static_cast<double>(g.xadj[u + 1] - g.xadj[u] + 1);
    }

   private:
    int32_t k_;
    UninitVector<int32_t> slot_;     // per vertex: its slot, -1 unknown
    std::vector<int32_t> vertices_;  // per slot: the vertex
    std::vector<int64_t> conn_;      // per slot: k connectivities
    std::vector<int32_t> to_;        // per slot: best target (-1: none)
    std::vector<int64_t> gain_;      // per slot: its gain
    std::vector<char> dirty_;        // per slot: best move to recompute
    std::vector<int64_t> fresh_;     // refresh: k connectivities read again (0 between calls)
    std::vector<int32_t> blocks_;    // refresh: the blocks with an entry in fresh_
    GraphConnCache *cache_ = nullptr;
    struct Pending {
        int32_t next;  // the vertex's previous entry + 1, 0 none
        int32_t from, to;
        int64_t w;
    };
    ScratchMap<int32_t> pend_head_;  // per vertex with pending entries: its last entry + 1
    std::vector<Pending> pend_;
    std::vector<int64_t> row_;       // refresh: a cached row read again

    // The cached vertex u's row with this search's pending moves: k entries into c. The work
    // counted is the adjacency read's (the work budget stops the same searches as without the
    // cache).
    void cached_row(const GraphView &g, int32_t u, int64_t *c, double &work) {
        const int64_t *r = cache_->row(u);
        for (int32_t b = 0; b < k_; ++b) c[b] = relaxed_load(r[b]);
        if (!pend_.empty()) {
            const int32_t *head = pend_head_.find(static_cast<uint64_t>(u));
            for (int32_t e = head ? *head : 0; e > 0; e = pend_[static_cast<size_t>(e - 1)].next) {
                const Pending &p = pend_[static_cast<size_t>(e - 1)];
                c[p.from] -= p.w;
                c[p.to] += p.w;
            }
        }
        work += static_cast<double>(g.xadj[u + 1] - g.xadj[u] + 1);
    }

    template <class PartOf>
    void fill_row(const GraphView &g, PartOf part, int32_t u, int64_t *c, double &work) {
        if (cache_ != nullptr && cache_->cached(u)) {
            cached_row(g, u, c, work);
            return;
        }
        std::fill(c, c + k_, 0);
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) c[part(g.adjncy[j])] += g.adjwgt[j];
        work += static_cast<double>(g.xadj[u + 1] - g.xadj[u] + 1);
    }

    template <class PartOf>
    int32_t slot(const GraphView &g, PartOf part, int32_t u, double &work) {
        if (slot_[u] >= 0) return slot_[u];
        const int32_t s = static_cast<int32_t>(vertices_.size());
        vertices_.push_back(u);
        const size_t need = static_cast<size_t>(s + 1) * k_;
        if (conn_.size() < need) conn_.resize(std::max(need, 2 * conn_.size()));
        fill_row(g, part, u, &conn_[static_cast<size_t>(s) * k_], work);
        to_.push_back(-1);
        gain_.push_back(0);
        dirty_.push_back(1);
        slot_[u] = s;
        return s;
    }
};

}  // namespace igp
