// Label propagation clustering and refinement for graphs (graph_lp.h).
#include "graph_lp.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>

#include "label_sums.h"
#include "partition_common.h"
#include "refine_impl.h"

namespace igp {

namespace {

// A slice of a label propagation pass runs in parallel from this many vertices on: each slice is
// a parallel region and a barrier, which costs more than it saves on small slices (and much more
// on a machine whose cores are shared). The result does not depend on it.
constexpr int64_t kMinParallelSlice = 4 * kParallelMinItems;

// Vertices per chunk of the asynchronous clustering: its threads take chunks of consecutive
// vertices in a seeded order of the chunks.
constexpr int64_t kAsyncChunk = 1024;

// Positions 0..n-1 counted by bucket (bucket(i) in [0, buckets)) in contiguous chunks, one per
// thread: returns the per-(chunk, bucket) exclusive offsets in bucket-major order (chunk c's
// first position of bucket b at offsets[c * buckets + b]), so that each chunk writing its
// positions in ascending order places every bucket's positions in ascending order: a stable
// counting sort whose result does not depend on the threads. `chunks`: loop_threads(n).
template <class Bucket>
std::vector<int64_t> bucket_offsets(int64_t n, int64_t buckets, int64_t chunks, Bucket bucket) {
    std::vector<int64_t> off(static_cast<size_t>(chunks * buckets), 0);
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(chunks)) if (chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
        int64_t *count = &off[static_cast<size_t>(c * buckets)];
        for (int64_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i) ++count[bucket(i)];
    }
    int64_t at = 0;
    for (int64_t b = 0; b < buckets; ++b)
        for (int64_t c = 0; c < chunks; ++c) {
            const int64_t x = off[static_cast<size_t>(c * buckets + b)];
            off[static_cast<size_t>(c * buckets + b)] = at;
            at += x;
        }
    return off;
}

// The counting sort's second pass: value(u) for u = 0..n-1 written to out at bucket(u)'s next
// position, chunk by chunk as bucket_offsets counted them (`pos`, its result, is advanced to
// each chunk's ends: the last chunk's entry of bucket b ends up at the bucket's end).
template <class Bucket, class Value, class T>
void place_by_bucket(int64_t n, int64_t buckets, int64_t chunks, std::vector<int64_t> &pos,
                     Bucket bucket, T *out, Value value) {
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(chunks)) if (chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
        int64_t *at = &pos[static_cast<size_t>(c * buckets)];
        for (int64_t u = n * c / chunks; u < n * (c + 1) / chunks; ++u)
            out[at[bucket(u)]++] = value(u);
    }
}

struct KeyedVertex {  // trivially constructible (a pair would zero an uninitialised vector)
    uint32_t key;
    int32_t u;
    bool operator<(const KeyedVertex &o) const { return key != o.key ? key < o.key : u < o.u; }
};

// u's key in the seeded order of seeded_order(n, seed): the order sorts the vertices by it.
KeyedVertex seeded_key(int64_t seed, int64_t u) {
    return {tie_hash(seed, u, -2), static_cast<int32_t>(u)};
}

// The visiting order of a label propagation pass: the vertices 0..n-1 sorted by (tie_hash(seed,
// u, -2), u), a seeded pseudo-random permutation. Made without a comparison sort of all n keys:
// a stable counting sort by the keys' top bits (about 256 vertices a bucket, in id order
// within one), then every bucket sorted on its own, all passes in parallel; the order is the
// full sort's on any threads.
UninitVector<int32_t> seeded_order(int64_t n, int64_t seed) {
    if (n <= 0) return {};
    int bits = 0;
    while (bits < 16 && (int64_t(1) << (bits + 8)) < n) ++bits;
    const int64_t buckets = int64_t(1) << bits;
    UninitVector<uint32_t> key(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) key[u] = seeded_key(seed, u).key;  // the one definition
    auto bucket = [&](int64_t u) -> int64_t { return bits ? key[u] >> (32 - bits) : 0; };
    const int64_t chunks = loop_threads(n);
    std::vector<int64_t> pos = bucket_offsets(n, buckets, chunks, bucket);
    UninitVector<KeyedVertex> sorted(static_cast<size_t>(n));
    place_by_bucket(n, buckets, chunks, pos, bucket, sorted.data(), [&](int64_t u) {
        return KeyedVertex{key[u], static_cast<int32_t>(u)};
    });
    // bucket b ends where the last chunk's positions of it end (the next bucket's start)
    UninitVector<int32_t> order(static_cast<size_t>(n));
#pragma omp parallel for schedule(dynamic, 64) if (n >= kParallelMinLightItems)
    for (int64_t b = 0; b < buckets; ++b) {
        const int64_t hi = pos[static_cast<size_t>((chunks - 1) * buckets + b)];
        const int64_t lo = b == 0 ? 0 : pos[static_cast<size_t>((chunks - 1) * buckets + b - 1)];
        std::sort(sorted.begin() + lo, sorted.begin() + hi);
        for (int64_t i = lo; i < hi; ++i) order[i] = sorted[i].u;
    }
    return order;
}

// The vertices 0..n-1 counted by slice (slice_of(u) in [0, slices)) and placed slice after
// slice, in id order within a slice (a stable counting sort on all the threads).
template <class SliceOf>
UninitVector<int32_t> by_slice(int64_t n, int64_t slices, SliceOf slice_of) {
    const int64_t chunks = loop_threads(n);
    std::vector<int64_t> pos = bucket_offsets(n, slices, chunks, slice_of);
    UninitVector<int32_t> sorted(static_cast<size_t>(n));
    place_by_bucket(n, slices, chunks, pos, slice_of, sorted.data(),
                    [](int64_t u) { return static_cast<int32_t>(u); });
    return sorted;
}

// `order` with each slice of `slice` positions sorted by vertex id. The vertices of a slice
// choose against the labels before it, so a choice does not depend on where its vertex stands
// in the slice: they choose in id order, which reads the adjacency arrays front to back and, on
// inputs whose ids follow their structure (grids, netlists), the neighbours' labels from cache
// (a random order misses the cache on almost every read); the choices are then applied in
// `order`, so the result is that of choosing in `order`.
UninitVector<int32_t> sorted_slices(const UninitVector<int32_t> &order, int64_t slice) {
    const int64_t n = static_cast<int64_t>(order.size());
    if (n == 0) return {};
    UninitVector<int32_t> slice_of(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t i = 0; i < n; ++i) slice_of[order[i]] = static_cast<int32_t>(i / slice);
    return by_slice(n, (n + slice - 1) / slice, [&](int64_t u) { return slice_of[u]; });
}

// Slices a vertex is compared with the borders of in seeded_slices (more: the whole order).
constexpr int64_t kMaxBorders = 63;

// sorted_slices(seeded_order(n, seed), slice) without the order: only the keys at the slices'
// borders are found (the buckets of the keys' top bits that hold them, sorted), and every vertex
// is placed by comparing its key with those; for slices moved together, which never read the
// order itself (it is made for the first slice moved in order).
UninitVector<int32_t> seeded_slices(int64_t n, int64_t seed, int64_t slice) {
    if (n <= 0) return {};
    const int64_t slices = (n + slice - 1) / slice;
    if (slices > kMaxBorders + 1) return sorted_slices(seeded_order(n, seed), slice);
    if (slices == 1) {  // one slice: all the vertices in id order
        UninitVector<int32_t> ids(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
        for (int64_t u = 0; u < n; ++u) ids[u] = static_cast<int32_t>(u);
        return ids;
    }
    int bits = 0;  // as seeded_order
    while (bits < 16 && (int64_t(1) << (bits + 8)) < n) ++bits;
    const int64_t buckets = int64_t(1) << bits;
    UninitVector<KeyedVertex> key(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) key[u] = seeded_key(seed, u);
    auto bucket = [&](int64_t u) -> int64_t { return bits ? key[u].key >> (32 - bits) : 0; };
    const int64_t chunks = loop_threads(n);
    // chunk 0's offsets are the buckets' first positions in the order
    const std::vector<int64_t> first = bucket_offsets(n, buckets, chunks, bucket);
    // per border (the first position of slices 1..): its bucket, and the key at it
    std::vector<int64_t> border_bucket(static_cast<size_t>(slices - 1));
    std::vector<int32_t> pick(static_cast<size_t>(buckets), -1);  // bucket -> its sorted keys
    int32_t picked = 0;
    for (int64_t s = 1; s < slices; ++s) {
        // the last bucket that starts at or before the border (empty buckets start where the
        // next one does, so the last such is the one that holds it)
        int64_t lo = 0, hi = buckets - 1;
        while (lo < hi) {
            const int64_t mid = (lo + hi + 1) / 2;
            if (first[static_cast<size_t>(mid)] <= s * slice)
                lo = mid;
            else
                hi = mid - 1;
        }
        border_bucket[static_cast<size_t>(s - 1)] = lo;
        if (pick[static_cast<size_t>(lo)] < 0) pick[static_cast<size_t>(lo)] = picked++;
    }
    std::vector<std::vector<KeyedVertex>> held(static_cast<size_t>(picked));
    for (int32_t u : parallel_select(n, [&](int64_t v) { return pick[bucket(v)] >= 0; }))
        held[static_cast<size_t>(pick[bucket(u)])].push_back(key[u]);
    for (auto &h : held) std::sort(h.begin(), h.end());
    std::vector<KeyedVertex> border(static_cast<size_t>(slices - 1));
    for (int64_t s = 1; s < slices; ++s) {
        const int64_t b = border_bucket[static_cast<size_t>(s - 1)];
        border[static_cast<size_t>(s - 1)] =
            held[static_cast<size_t>(pick[b])][static_cast<size_t>(s * slice - first[b])];
    }
    // a vertex's slice: the borders at or before its key (counted without branches)
    UninitVector<uint8_t> slice_of(static_cast<size_t>(n));
    const KeyedVertex *bd = border.data();
    const int64_t nb = slices - 1;
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) {
        const KeyedVertex k = key[u];
        int s = 0;
        for (int64_t x = 0; x < nb; ++x)
            s += (k.key > bd[x].key) | ((k.key == bd[x].key) & (k.u >= bd[x].u));
        slice_of[u] = static_cast<uint8_t>(s);
    }
    return by_slice(n, slices, [&](int64_t u) { return slice_of[u]; });
}

// Fills `sums` with the edge weight from u to every neighbouring cluster.
void sum_labels(const GraphView &g, int32_t u, const int32_t *label, LabelSums &sums) {
    sums.clear();
    sums.prepare(g.xadj[u + 1] - g.xadj[u]);
    for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) sums.add(label[g.adjncy[j]], g.adjwgt[j]);
}

// The label sums of a clustering of n vertices (labels below n): high-degree vertices sum into
// an array of n entries per thread when n <= dense_labels, else by hashing.
LabelSums lp_sums(int64_t n, int64_t dense_labels) {
    LabelSums sums;
    if (n <= dense_labels) sums.use_dense(n);
    return sums;
}

// Vertices of at most this degree sum their neighbours' clusters in a small array searched
// linearly (in registers and L1, no hashing); higher degrees use LabelSums. Both list the
// clusters in the order of their first neighbour, so the choice is the same either way.
constexpr int64_t kSmallDegree = 32;

// The best of the clusters `each` lists (id, summed weight) for u, whose weight towards its own
// cluster `cur` is `own`: the highest sum above `own` among the clusters other than `cur` that
// stay within max_cluster_weight with u (ties: the lowest tie_hash, computed only on ties);
// `cur` when none.
template <class Each>
int32_t best_cluster(int32_t u, int32_t cur, int64_t own, int64_t wu, const int64_t *cw,
                     int64_t max_cluster_weight, int64_t seed, Each &&each) {
    int32_t best = cur;
    int64_t bs = own;
    unsigned int bh = 0;
    bool strict = true;  // the current cluster wins ties
    bool hashed = false;  // bh holds best's tie hash (computed only when a tie needs it)
    each([&](int32_t c, int64_t s) {
        if (s < bs || (s == bs && strict) || c == cur || cw[c] + wu > max_cluster_weight) return;
        if (s == bs) {
            if (!hashed) bh = tie_hash(seed, u, best);
            const unsigned int h = tie_hash(seed, u, c);
            hashed = true;
            if (h >= bh) return;
            bh = h;
        } else {
            hashed = false;
        }
        best = c;
        bs = s;
        strict = false;
    });
    return best;
}

// The cluster u should join (its own label when none beats it).
int32_t cluster_choice(const GraphView &g, int32_t u, const int32_t *label, const int64_t *cw,
                       int64_t max_cluster_weight, int64_t seed, LabelSums &sums) {
    const int32_t cur = label[u];
    const int64_t wu = g.vwgt[u];
    const int64_t lo = g.xadj[u], hi = g.xadj[u + 1];
    if (hi - lo <= kSmallDegree) {
        int32_t key[kSmallDegree];
        int64_t val[kSmallDegree];
        int count = 0;
        int64_t own = 0;
        for (int64_t j = lo; j < hi; ++j) {
            const int32_t c = label[g.adjncy[j]];
            const int64_t w = g.adjwgt[j];
            if (c == cur) {
                own += w;
                continue;
            }
            int x = 0;
            while (x < count && key[x] != c) ++x;
            if (x == count) {
                key[count] = c;
                val[count++] = w;
            } else {
                val[x] += w;
            }
        }
        return best_cluster(u, cur, own, wu, cw, max_cluster_weight, seed, [&](auto &&f) {
            for (int x = 0; x < count; ++x) f(key[x], val[x]);
        });
    }
    sum_labels(g, u, label, sums);
    return best_cluster(u, cur, sums.get(cur), wu, cw, max_cluster_weight, seed,
                        [&](auto &&f) { sums.for_each(f); });
}

// The cluster of highest connection to u regardless of weight (-1: no neighbour).
int32_t favoured_cluster(const GraphView &g, int32_t u, const int32_t *label, int64_t seed,
                         LabelSums &sums) {
    sum_labels(g, u, label, sums);
    int32_t best = -1;
    int64_t bs = 0;
    unsigned int bh = 0;
    sums.for_each([&](int32_t c, int64_t s) {
        if (c == label[u]) return;
        const unsigned int h = tie_hash(seed, u, c);
        if (best < 0 || s > bs || (s == bs && h < bh)) {
            best = c;
            bs = s;
            bh = h;
        }
    });
    return best;
}

// Marks the neighbours of the `count` vertices `moved` as active in the next pass; in parallel
// (every write stores 1) when there are enough of them to be worth a parallel region.
void mark_neighbours(const GraphView &g, const int32_t *moved, int64_t count, char *next) {
#pragma omp parallel for schedule(dynamic, 512) if (count >= kParallelMinItems)
    for (int64_t i = 0; i < count; ++i) {
        const int32_t u = moved[i];
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
#pragma omp atomic write
            next[g.adjncy[j]] = 1;
        }
    }
}

// The moves of one clustering slice applied together (slices of at least kMinParallelSlice
// vertices while more clusters than moves remain above min_clusters): every vertex of the slice
// has chosen against the clusters before the slice (`movers`: those whose choice, `want`, is
// another cluster than their own), and the moves are settled by rules that read only those
// choices, so the result does not depend on the threads:
// - a vertex alone in its cluster stays when a vertex of higher id wants to join it (of two
//   lone vertices that want each other, the higher id joins the lower one: no swap);
// - a move goes only to a cluster that keeps a member that does not leave in the slice (a
//   cluster whose members all leave is no target, as in the sequential order);
// - a cluster takes all its arrivals when they fit under the weight cap together (departures
//   not counted), else the arrivals in ascending vertex id while they fit.
// Every step reads and writes only the movers and their clusters (the order of `movers` does
// not matter), so a slice in which few vertices move costs little.
class SliceMoves {
   public:
    explicit SliceMoves(int64_t n)
        : claim_(filled<int32_t>(n, -1)),
          leave_(filled<int64_t>(n, 0)),
          arrive_(filled<int64_t>(n, 0)) {}

    // Applies the moves of the `count` vertices `movers` (`want` per vertex) to label, cw and
    // size and marks the neighbours of those that moved in `next`. Returns the moves;
    // `emptied` receives the clusters left empty.
    int64_t apply(const GraphView &g, const int32_t *movers, int64_t count,
                  int64_t max_cluster_weight, int32_t *want, int32_t *label, int64_t *cw,
                  int32_t *size, char *next, int64_t &emptied) {
        int32_t *claim = claim_.data();
        int64_t *leave = leave_.data(), *arrive = arrive_.data();
        const bool par = count >= kParallelMinItems;
        // a vertex whose move is called off keeps its target as -2 - target (scratch reset)
        auto dropped = [](int32_t c) { return -2 - c; };
#pragma omp parallel for schedule(static) if (par)
        for (int64_t x = 0; x < count; ++x) {  // highest id that wants to join each cluster
            const int32_t u = movers[x], c = want[u];
            int32_t seen = __atomic_load_n(&claim[c], __ATOMIC_RELAXED);
            while (seen < u && !__atomic_compare_exchange_n(&claim[c], &seen, u, true,
                                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
        }
#pragma omp parallel for schedule(static) if (par)
        for (int64_t x = 0; x < count; ++x) {  // lone vertices wanted by a higher id stay
            const int32_t u = movers[x], c = want[u], cur = label[u];
            if (size[cur] == 1 && claim[cur] > u) {
                want[u] = dropped(c);
                continue;
            }
#pragma omp atomic
            leave[cur] += g.vwgt[u];
        }
#pragma omp parallel for schedule(static) if (par)
        for (int64_t x = 0; x < count; ++x) {  // targets that keep a member; their arrivals
            const int32_t u = movers[x], c = want[u];
            if (c < 0) continue;
            if (cw[c] - leave[c] <= 0) {
                want[u] = dropped(c);
                continue;
            }
#pragma omp atomic
            arrive[c] += g.vwgt[u];
        }
        // clusters whose arrivals do not all fit: arrivals in ascending id while they fit
        const std::vector<int32_t> over = parallel_select(count, [&](int64_t x) {
            const int32_t c = want[movers[x]];
            return c >= 0 && cw[c] + arrive[c] > max_cluster_weight;
        });
        if (!over.empty()) {
            std::vector<std::pair<int32_t, int32_t>> byc(over.size());  // (cluster, vertex)
            for (size_t x = 0; x < over.size(); ++x) {
                const int32_t u = movers[over[x]];
                byc[x] = {want[u], u};
            }
            parallel_sort(byc.begin(), byc.end());
            int64_t w = 0;
            for (size_t x = 0; x < byc.size(); ++x) {
                const auto [c, u] = byc[x];
                if (x == 0 || byc[x - 1].first != c) w = cw[c];
                if (w + g.vwgt[u] <= max_cluster_weight)
                    w += g.vwgt[u];
                else
                    want[u] = dropped(c);
            }
        }
        int64_t moved = 0, gone = 0;
#pragma omp parallel for schedule(static) reduction(+ : moved, gone) if (par)
        for (int64_t x = 0; x < count; ++x) {
            const int32_t u = movers[x], cur = label[u];
            int32_t c = want[u];
            const bool moves = c >= 0;
            if (!moves) c = dropped(c);
#pragma omp atomic write
            claim[c] = -1;
#pragma omp atomic write
            arrive[c] = 0;
#pragma omp atomic write
            leave[cur] = 0;
            if (!moves) continue;
            const int64_t wu = g.vwgt[u];
#pragma omp atomic
            cw[c] += wu;
#pragma omp atomic
            cw[cur] -= wu;
#pragma omp atomic
            ++size[c];
            int32_t left;
#pragma omp atomic capture
            left = --size[cur];
            gone += left == 0;
            label[u] = c;
            ++moved;
            for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
#pragma omp atomic write
                next[g.adjncy[j]] = 1;
            }
        }
        emptied = gone;
        return moved;
    }

   private:
    // per cluster (filled on all the threads): the highest id that wants to join it (-1: none),
    // the weight of the vertices that want to leave it, the weight of the moves it may take
    UninitVector<int32_t> claim_;
    UninitVector<int64_t> leave_;
    UninitVector<int64_t> arrive_;
};

// The choices of a label propagation slice: each active vertex of by_id[lo, hi) chooses against
// the state before the slice (`choose(u, scratch)` writes u's choice and returns whether u
// moves; it reads nothing the slice writes), on up to one thread per kChoosePerThread vertices,
// each with its own `Scratch`; the vertices that move are listed in `movers` (in no particular
// order: every use of the list is independent of it or sorts it).
template <class Scratch>
class SliceChoices {
   public:
    SliceChoices(int64_t n, const Scratch &scratch)
        : movers_(static_cast<size_t>(n)),
          found_(static_cast<size_t>(max_threads())),
          scratch_(static_cast<size_t>(max_threads()), Padded<Scratch>(scratch)) {}

    // Returns the number of movers (listed in movers()).
    template <class Choose>
    int64_t choose(const int32_t *by_id, int64_t lo, int64_t hi, const char *active,
                   Choose choose) {
        const int64_t most = static_cast<int64_t>(found_.size());
        const int threads = static_cast<int>(
            std::min<int64_t>(most, std::max<int64_t>(1, (hi - lo) / kChoosePerThread)));
        std::vector<int64_t> off(static_cast<size_t>(threads) + 1, 0);
        int32_t *movers = movers_.data();
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
            const int t = current_thread();
            std::vector<int32_t> &mine = found_[static_cast<size_t>(t)].value;
            Scratch &scratch = scratch_[static_cast<size_t>(t)].value;
            mine.clear();
#pragma omp for schedule(dynamic, 256)
            for (int64_t i = lo; i < hi; ++i) {
                const int32_t u = by_id[i];
                if (active[u] && choose(u, scratch)) mine.push_back(u);
            }
            off[static_cast<size_t>(t) + 1] = static_cast<int64_t>(mine.size());
#pragma omp barrier
#pragma omp single
            for (int x = 0; x < threads; ++x) off[x + 1] += off[x];
            std::copy(mine.begin(), mine.end(), movers + off[static_cast<size_t>(t)]);
        }
        return off[static_cast<size_t>(threads)];
    }

    int32_t *movers() { return movers_.data(); }

   private:
    // a slice's ratings on more threads than one per this many vertices cost more in the
    // team's start and barrier than they save
    static constexpr int64_t kChoosePerThread = 1024;
    UninitVector<int32_t> movers_;
    std::vector<Padded<std::vector<int32_t>>> found_;  // per thread: the movers it found
    std::vector<Padded<Scratch>> scratch_;             // per thread: its rating scratch
};

// Marks u's neighbours in `next`, each only where not marked yet (a store to a line other threads
// read costs its ownership, a load does not).
void mark_unmarked(const GraphView &g, int64_t u, char *next) {
    for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
        char *mark = &next[g.adjncy[j]];
        if (!__atomic_load_n(mark, __ATOMIC_RELAXED)) __atomic_store_n(mark, 1, __ATOMIC_RELAXED);
    }
}

// Reserves `w` in an atomic weight `at` unless that would exceed `cap` (or, with `nonempty`,
// the weight is 0: an emptied cluster is no target). Returns whether it did.
bool reserve(int64_t *at, int64_t w, int64_t cap, bool nonempty) {
    int64_t now = __atomic_load_n(at, __ATOMIC_RELAXED);
    while ((!nonempty || now > 0) && now + w <= cap)
        if (__atomic_compare_exchange_n(at, &now, now + w, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return true;
    return false;
}

// Zeroes a per-vertex flag array (in parallel on large levels: once per pass).
void clear_flags(UninitVector<char> &flags) {
    const int64_t n = static_cast<int64_t>(flags.size());
    char *f = flags.data();
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t i = 0; i < n; ++i) f[i] = 0;
}

// The frame of the asynchronous passes: up to `iterations` passes while go() holds, each over the
// chunks of kAsyncChunk consecutive vertices (their adjacency read front to back) in a seeded
// order, on all threads at once, each thread with its own copy of `proto`. chunk(lo, hi, it,
// scratch) handles the vertices [lo, hi) flagged in `active` in pass `it`, marks the next pass's
// vertices in `next` and returns its moves; a pass without a move ends the passes.
template <class Scratch, class Go, class Chunk>
void async_passes(int64_t n, int64_t seed, int64_t iterations, const Scratch &proto,
                  UninitVector<char> &active, UninitVector<char> &next, Go go, Chunk chunk) {
    const int64_t chunks = (n + kAsyncChunk - 1) / kAsyncChunk;
    std::vector<KeyedVertex> keyed(static_cast<size_t>(chunks));  // chunk ids in KeyedVertex::u
    for (int64_t c = 0; c < chunks; ++c) keyed[c] = seeded_key(seed, c);
    std::sort(keyed.begin(), keyed.end());
    const int threads = max_threads();
    std::vector<Padded<Scratch>> scratch(static_cast<size_t>(threads), Padded<Scratch>(proto));
    for (int64_t it = 0; it < iterations && go(); ++it) {
        int64_t moved = 0;
#pragma omp parallel num_threads(threads) reduction(+ : moved) if (threads > 1)
        {
            Scratch &sc = scratch[static_cast<size_t>(current_thread())].value;
#pragma omp for schedule(dynamic, 1)
            for (int64_t x = 0; x < chunks; ++x) {
                const int64_t lo = static_cast<int64_t>(keyed[x].u) * kAsyncChunk;
                moved += chunk(lo, std::min(n, lo + kAsyncChunk), it, sc);
            }
        }
        if (moved == 0) break;
        active.swap(next);
        clear_flags(next);
    }
}

int64_t slice_length(int64_t n, int64_t sub_rounds) {
    const int64_t r = std::max<int64_t>(1, sub_rounds);
    return std::max<int64_t>(1, (n + r - 1) / r);
}

// Every vertex in a cluster of its own (named by it: its weight, size 1), all active in the first
// pass and none yet in the next; the arrays sized and filled in one parallel pass.
void start_clusters(const GraphView &g, UninitVector<int32_t> &label, UninitVector<int64_t> &cw,
                    UninitVector<int32_t> &size, UninitVector<char> &active,
                    UninitVector<char> &next) {
    const int64_t n = g.n;
    label.resize(static_cast<size_t>(n));
    size.resize(static_cast<size_t>(n));
    cw.resize(static_cast<size_t>(n));
    active.resize(static_cast<size_t>(n));
    next.resize(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) {
        label[u] = static_cast<int32_t>(u);
        cw[u] = g.vwgt[u];
        size[u] = 1;
        active[u] = 1;
        next[u] = 0;
    }
}

// The end of a clustering: when the passes left more than half the vertices alone, lone vertices
// that favour the same cluster form clusters of their own (two-hop clustering, in the order of
// (favoured cluster, vertex)); then the labels are numbered densely in ascending order into cmap.
// Returns the number of clusters.
int64_t finish_clusters(const GraphView &g, int64_t max_cluster_weight, int64_t min_clusters,
                        int64_t seed, UninitVector<int32_t> &label, UninitVector<int64_t> &cw,
                        UninitVector<int32_t> &size, int64_t nc, UninitVector<int32_t> &cmap) {
    const int64_t n = g.n;
    if (nc > min_clusters && 2 * nc > n) {
        UninitVector<int32_t> fav(static_cast<size_t>(n));
#pragma omp parallel if (n >= kParallelMinItems)
        {
            LabelSums sums;
#pragma omp for schedule(dynamic, 1024)
            for (int64_t u = 0; u < n; ++u)
                fav[u] = size[label[u]] == 1 && g.vwgt[u] < max_cluster_weight
                             ? favoured_cluster(g, static_cast<int32_t>(u), label.data(), seed,
                                                sums)
                             : -1;
        }
        // (favoured cluster, vertex) of the lone vertices that favour one, gathered in parallel
        const std::vector<int32_t> ids = parallel_select(n, [&](int64_t u) { return fav[u] >= 0; });
        std::vector<std::pair<int32_t, int32_t>> lone(ids.size());
#pragma omp parallel for schedule(static) if (ids.size() >= kParallelMinLightItems)
        for (size_t x = 0; x < ids.size(); ++x) lone[x] = {fav[ids[x]], ids[x]};
        parallel_sort(lone.begin(), lone.end());
        for (size_t i = 0; i < lone.size() && nc > min_clusters;) {
            const int32_t lead = label[lone[i].second];
            size_t j = i + 1;
            for (; j < lone.size() && lone[j].first == lone[i].first && nc > min_clusters; ++j) {
                const int32_t u = lone[j].second;
                if (cw[lead] + g.vwgt[u] > max_cluster_weight) break;
                cw[label[u]] -= g.vwgt[u];
                cw[lead] += g.vwgt[u];
                label[u] = lead;
                --nc;
            }
            i = j;
        }
    }
    UninitVector<char> used = filled<char>(n, 0);
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) {
#pragma omp atomic write
        used[label[u]] = 1;
    }
    const std::vector<int32_t> labels = parallel_select(n, [&](int64_t c) { return used[c]; });
    const int32_t count = static_cast<int32_t>(labels.size());
    UninitVector<int32_t> id(static_cast<size_t>(n));  // read only at the labels in use
#pragma omp parallel for schedule(static) if (count >= kParallelMinLightItems)
    for (int32_t x = 0; x < count; ++x) id[labels[x]] = x;
    cmap.resize(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) cmap[u] = id[label[u]];
    return count;
}

}  // namespace

int64_t cluster_graph_lp(const GraphView &g, int64_t max_cluster_weight, int64_t iterations,
                         int64_t min_clusters, int64_t seed, int64_t sub_rounds,
                         UninitVector<int32_t> &cmap, int64_t dense_labels) {
    const int64_t n = g.n;
    // per vertex: its cluster, the cluster's weight and size (clusters named by a member), its
    // choice (written for the vertices that want to move), whether it is visited in this pass
    // and in the next one; set up in one parallel pass
    UninitVector<int32_t> label, size;
    UninitVector<int64_t> cw;
    UninitVector<int32_t> choice(static_cast<size_t>(n));
    UninitVector<char> active, next;
    start_clusters(g, label, cw, size, active, next);
    const int64_t slice = slice_length(n, n >= kParallelMinItems ? sub_rounds : 1);
    UninitVector<int32_t> order;  // the seeded order, made for the first slice moved in order
    const UninitVector<int32_t> by_id = seeded_slices(n, seed, slice);
    int64_t nc = n;
    SliceChoices<LabelSums> choices(n, lp_sums(n, dense_labels));
    std::unique_ptr<SliceMoves> together;  // created for the first slice applied together
    // slices moved in order: each vertex's position in `order`, the movers flagged by position
    // (both made for the first such slice), the moves made
    UninitVector<int32_t> pos;
    UninitVector<char> wants_at;
    std::vector<int32_t> applied;
    for (int64_t it = 0; it < iterations && nc > min_clusters; ++it) {
        int64_t moved = 0;
        for (int64_t lo = 0; lo < n && nc > min_clusters; lo += slice) {
            const int64_t hi = std::min(n, lo + slice);
            const int64_t wanted =
                choices.choose(by_id.data(), lo, hi, active.data(), [&](int32_t u, LabelSums &sums) {
                    const int32_t c = cluster_choice(g, u, label.data(), cw.data(),
                                                     max_cluster_weight, seed + it, sums);
                    if (c == label[u]) return false;
                    choice[u] = c;
                    return true;
                });
            const int32_t *movers = choices.movers();
            if (hi - lo >= kMinParallelSlice && nc - wanted > min_clusters) {
                if (!together) together = std::make_unique<SliceMoves>(n);
                int64_t emptied = 0;
                moved += together->apply(g, movers, wanted, max_cluster_weight, choice.data(),
                                         label.data(), cw.data(), size.data(), next.data(),
                                         emptied);
                nc -= emptied;
                continue;
            }
            if (wanted == 0) continue;
            if (pos.empty()) {
                order = seeded_order(n, seed);
                pos.resize(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
                for (int64_t i = 0; i < n; ++i) pos[order[i]] = static_cast<int32_t>(i);
                wants_at = filled<char>(n, 0);
            }
            for (int64_t x = 0; x < wanted; ++x) wants_at[pos[movers[x]]] = 1;
            applied.clear();
            for (int64_t i = lo; i < hi; ++i) {  // the movers in `order`
                if (!wants_at[i]) continue;
                wants_at[i] = 0;
                const int32_t u = order[i], cur = label[u], c = choice[u];
                const int64_t wu = g.vwgt[u];
                // an emptied cluster is no target (two vertices swapping labels stay together)
                if (nc <= min_clusters || cw[c] == 0 || cw[c] + wu > max_cluster_weight) continue;
                cw[cur] -= wu;
                cw[c] += wu;
                nc -= --size[cur] == 0;
                ++size[c];
                label[u] = c;
                applied.push_back(u);
            }
            moved += static_cast<int64_t>(applied.size());
            mark_neighbours(g, applied.data(), static_cast<int64_t>(applied.size()), next.data());
        }
        if (moved == 0) break;
        active.swap(next);
        clear_flags(next);
    }
    return finish_clusters(g, max_cluster_weight, min_clusters, seed, label, cw, size, nc, cmap);
}

int64_t cluster_graph_lp_async(const GraphView &g, int64_t max_cluster_weight,
                               int64_t iterations, int64_t min_clusters, int64_t seed,
                               UninitVector<int32_t> &cmap, int64_t dense_labels) {
    const int64_t n = g.n;
    UninitVector<int32_t> label, size;
    UninitVector<int64_t> cw;
    UninitVector<char> active, next;
    start_clusters(g, label, cw, size, active, next);
    int64_t nc = n;  // read and written with atomics inside the passes
    async_passes(
        n, seed, iterations, lp_sums(n, dense_labels), active, next,
        [&] { return nc > min_clusters; },
        [&](int64_t lo, int64_t hi, int64_t it, LabelSums &sums) {
            // the chunk's change of the cluster count, published once per chunk (one shared
            // counter updated per move would be every thread's bottleneck)
            int64_t delta = 0, moved = 0;
            for (int64_t u = lo; u < hi; ++u) {
                if (!active[u]) continue;
                if (__atomic_load_n(&nc, __ATOMIC_RELAXED) + delta <= min_clusters) break;
                // the neighbours' labels and the clusters' weights as other threads leave them;
                // u's own label is written by this thread only
                const int32_t cur = label[u];
                const int32_t c = cluster_choice(g, static_cast<int32_t>(u), label.data(),
                                                 cw.data(), max_cluster_weight, seed + it, sums);
                if (c == cur) continue;
                const int64_t wu = g.vwgt[u];
                // room in c reserved before the move (an emptied cluster is no target)
                if (!reserve(&cw[c], wu, max_cluster_weight, true)) continue;
                __atomic_fetch_sub(&cw[cur], wu, __ATOMIC_RELAXED);
                __atomic_store_n(&label[u], c, __ATOMIC_RELAXED);
                if (__atomic_fetch_sub(&size[cur], 1, __ATOMIC_RELAXED) == 1) --delta;
                if (__atomic_fetch_add(&size[c], 1, __ATOMIC_RELAXED) == 0) ++delta;
                ++moved;
                mark_unmarked(g, u, next.data());
            }
            if (delta != 0) __atomic_fetch_add(&nc, delta, __ATOMIC_RELAXED);
            return moved;
        });
    return finish_clusters(g, max_cluster_weight, min_clusters, seed, label, cw, size, nc, cmap);
}

namespace {

// Best move of u into another adjacent block with room for it: highest connectivity, then
// the lighter block, then tie_hash. Move::gain is the change of the edge cut's reduction.
Move best_graph_move(const GraphView &g, const int32_t *parts, const int64_t *bw,
                     const int64_t *bounds, int32_t u, int64_t seed, BlockConn &sc) {
    const int32_t s = parts[u];
    const int64_t wu = g.vwgt[u];
    const int64_t internal = sc.collect(g, parts, u);
    Move best;
    for (int32_t b : sc.touched) {
        if (b == s || bw[b] + wu > bounds[b]) continue;
        const int64_t gb = graph_move_gain(sc.conn[b], internal);
        // tie hashes only where gain and block weight tie (rare: computed then)
        if (!best.ok() || gb > best.gain ||
            (gb == best.gain &&
             (bw[b] < bw[best.to] ||
              (bw[b] == bw[best.to] && tie_hash(seed, u, b) < tie_hash(seed, u, best.to)))))
            best = {b, gb};
    }
    return best;
}

// Whether a move of gain `gain` from block s to block b is taken by label propagation.
bool lp_takes(int64_t gain, int64_t wu, int64_t bw_s, int64_t bw_b) {
    return gain > 0 || (gain == 0 && bw_b + wu < bw_s);
}

// The moves of one label propagation refinement slice (the `m` vertices `movers`, in any order:
// those with choice >= 0, each a move chosen against the blocks before the slice) applied
// together, by rules that read only the blocks before the slice and the choices, so the result
// does not depend on the threads:
// - a move is kept when label propagation would take it with every other mover of the slice in
//   its chosen block (two neighbours that chose each other's blocks do not swap);
// - when the kept moves together would overfill a block, the block weights are then followed in
//   the seeded order (seeded_key(seed, u)) as the moves are applied one after the other (a move
//   that does not fit is dropped, departures free room): a pass over the movers' weights and
//   blocks only, no adjacency.
// Updates parts, bw, marks the kept movers and their neighbours in `next`, resets the movers'
// choices to -1 and adds the exact gain (edge cut before - after) to `total`; returns the moves.
int64_t apply_slice_together(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds,
                             std::vector<int64_t> &bw, int64_t seed, const int32_t *movers,
                             int64_t m, int32_t *choice, char *next, int64_t &total) {
    std::vector<char> keep(static_cast<size_t>(m), 0);
    std::vector<int64_t> in(static_cast<size_t>(k), 0);
    std::vector<int32_t> from(static_cast<size_t>(m)), to(static_cast<size_t>(m));
    std::vector<int64_t> weight(static_cast<size_t>(m));
#pragma omp parallel
    {
        std::vector<int64_t> mine(static_cast<size_t>(k), 0);
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < m; ++i) {
            const int32_t u = movers[i], b = choice[u], s = parts[u];
            const int64_t wu = g.vwgt[u];
            from[i] = s;
            to[i] = b;
            weight[i] = wu;
            int64_t to_b = 0, internal = 0;
            for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
                const int32_t v = g.adjncy[j];
                const int32_t bv = choice[v] >= 0 ? choice[v] : parts[v];
                if (bv == s) internal += g.adjwgt[j];
                if (bv == b) to_b += g.adjwgt[j];
            }
            if (!lp_takes(graph_move_gain(to_b, internal), wu, bw[s], bw[b])) continue;
            keep[i] = 1;
            mine[b] += wu;
        }
        for (int32_t b = 0; b < k; ++b)
            if (mine[b]) {
#pragma omp atomic
                in[b] += mine[b];
            }
    }
    // a block the kept moves would overfill: the moves one after the other, weights only
    bool any_over = false;
    for (int32_t b = 0; b < k; ++b) any_over = any_over || bw[b] + in[b] > bounds[b];
    if (any_over) {
        std::vector<KeyedVertex> key(static_cast<size_t>(m));
        for (int64_t i = 0; i < m; ++i) key[i] = seeded_key(seed, movers[i]);
        std::vector<int64_t> seq(static_cast<size_t>(m));  // the movers in the seeded order
        std::iota(seq.begin(), seq.end(), int64_t(0));
        std::sort(seq.begin(), seq.end(), [&](int64_t a, int64_t b) { return key[a] < key[b]; });
        std::vector<int64_t> now(bw);
        for (const int64_t i : seq) {
            if (!keep[i]) continue;
            if (now[to[i]] + weight[i] > bounds[to[i]]) {
                keep[i] = 0;
            } else {
                now[to[i]] += weight[i];
                now[from[i]] -= weight[i];
            }
        }
    }
    // choice >= 0 from here on: a kept move (the others are dropped)
    for (int64_t i = 0; i < m; ++i)
        if (!keep[i]) choice[movers[i]] = -1;
    // the exact gain (each edge with a kept mover at an end counted once) and the next pass's
    // vertices, in one read of the kept movers' adjacency; then the blocks
    int64_t gain = 0, moves = 0;
    std::vector<int64_t> delta(static_cast<size_t>(k), 0);
#pragma omp parallel reduction(+ : gain, moves)
    {
        std::vector<int64_t> mine(static_cast<size_t>(k), 0);
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < m; ++i) {
            if (!keep[i]) continue;
            const int32_t u = movers[i], s = parts[u], b = choice[u];
            for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
                const int32_t v = g.adjncy[j];
#pragma omp atomic write
                next[v] = 1;
                if (choice[v] >= 0 && v < u) continue;  // counted at v
                const int32_t now = parts[v], after = choice[v] >= 0 ? choice[v] : now;
                gain += g.adjwgt[j] * ((s != now ? 1 : 0) - (b != after ? 1 : 0));
            }
#pragma omp atomic write
            next[u] = 1;
            mine[s] -= g.vwgt[u];
            mine[b] += g.vwgt[u];
            ++moves;
        }
        for (int32_t b = 0; b < k; ++b)
            if (mine[b]) {
#pragma omp atomic
                delta[b] += mine[b];
            }
    }
    for (int32_t b = 0; b < k; ++b) bw[b] += delta[b];
#pragma omp parallel for schedule(static) if (m >= kParallelMinItems)
    for (int64_t i = 0; i < m; ++i) {
        if (!keep[i]) continue;
        const int32_t u = movers[i];
        parts[u] = choice[u];
        choice[u] = -1;  // outside its slice a vertex has no choice
    }
    total += gain;
    return moves;
}

}  // namespace

int64_t refine_graph_lp(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds,
                        int64_t iterations, int64_t seed, int64_t sub_rounds) {
    const int64_t n = g.n;
    std::vector<int64_t> bw = weights_of(n, g.vwgt, parts, k);
    const int64_t slice = slice_length(n, n >= kParallelMinItems ? sub_rounds : 1);
    // the slices of the seeded order, each in id order (the order itself is never made: a
    // slice's movers are put in it by their keys)
    const UninitVector<int32_t> by_id = seeded_slices(n, seed, slice);
    // per vertex: its move while its slice is applied (-1: none, and outside the slice)
    UninitVector<int32_t> choice = filled<int32_t>(n, -1);
    UninitVector<char> active = filled<char>(n, 1), next = filled<char>(n, 0);
    SliceChoices<BlockConn> choices(n, BlockConn(k));
    BlockConn apply_sc(k);
    std::vector<KeyedVertex> in_order;  // a slice moved one vertex at a time: its movers
    int64_t total = 0;
    // slices of this many vertices apply their moves together (apply_slice_together), smaller
    // ones one after the other in the seeded order
    const int64_t together_min = kMinParallelSlice;
    for (int64_t it = 0; it < iterations; ++it) {
        int64_t moved = 0;
        for (int64_t lo = 0; lo < n; lo += slice) {
            const int64_t hi = std::min(n, lo + slice);
            const int64_t m =
                choices.choose(by_id.data(), lo, hi, active.data(), [&](int32_t u, BlockConn &sc) {
                    const Move mv = best_graph_move(g, parts, bw.data(), bounds, u, seed + it, sc);
                    if (!mv.ok() || !lp_takes(mv.gain, g.vwgt[u], bw[parts[u]], bw[mv.to]))
                        return false;
                    choice[u] = mv.to;
                    return true;
                });
            const int32_t *movers = choices.movers();
            if (hi - lo >= together_min) {
                moved += apply_slice_together(g, parts, k, bounds, bw, seed, movers, m,
                                              choice.data(), next.data(), total);
                continue;
            }
            in_order.resize(static_cast<size_t>(m));
            for (int64_t x = 0; x < m; ++x) in_order[x] = seeded_key(seed, movers[x]);
            std::sort(in_order.begin(), in_order.end());
            for (const KeyedVertex &kv : in_order) {
                const int32_t u = kv.u, b = choice[u];
                const int32_t s = parts[u];
                const int64_t wu = g.vwgt[u];
                choice[u] = -1;  // outside its slice a vertex has no choice
                if (bw[b] + wu > bounds[b]) continue;
                // the gain against the current partition (neighbours of the slice moved)
                const int64_t internal = apply_sc.collect(g, parts, u);
                const int64_t gain = graph_move_gain(apply_sc.conn[b], internal);
                if (!lp_takes(gain, wu, bw[s], bw[b])) continue;
                parts[u] = b;
                bw[s] -= wu;
                bw[b] += wu;
                total += gain;
                ++moved;
                for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) next[g.adjncy[j]] = 1;
                next[u] = 1;
            }
        }
        if (moved == 0) break;
        active.swap(next);
        clear_flags(next);
    }
    return total;
}

int64_t refine_graph_lp_async(const GraphView &g, int32_t *parts, int32_t k,
                              const int64_t *bounds, int64_t iterations, int64_t seed) {
    const int64_t n = g.n;
    // block weights read and written with atomics inside the passes
    std::vector<int64_t> bw = weights_of(n, g.vwgt, parts, k);
    UninitVector<int32_t> before(static_cast<size_t>(n));  // for the exact gain at the end
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) before[u] = parts[u];
    UninitVector<char> active = filled<char>(n, 1), next = filled<char>(n, 0);
    async_passes(
        n, seed, iterations, BlockConn(k), active, next, [] { return true; },
        [&](int64_t lo, int64_t hi, int64_t it, BlockConn &sc) {
            int64_t moved = 0;
            for (int64_t u = lo; u < hi; ++u) {
                if (!active[u]) continue;
                // the neighbours' blocks and the block weights as the other threads leave them;
                // u's own block is written by this thread only
                const int32_t s = parts[u];
                const Move mv = best_graph_move(g, parts, bw.data(), bounds,
                                                static_cast<int32_t>(u), seed + it, sc);
                const int64_t wu = g.vwgt[u];
                if (!mv.ok() || !lp_takes(mv.gain, wu, __atomic_load_n(&bw[s], __ATOMIC_RELAXED),
                                          __atomic_load_n(&bw[mv.to], __ATOMIC_RELAXED)))
                    continue;
                // room in the target reserved before the move: the bounds hold whatever the
                // timing
                if (!reserve(&bw[mv.to], wu, bounds[mv.to], false)) continue;
                __atomic_fetch_sub(&bw[s], wu, __ATOMIC_RELAXED);
                __atomic_store_n(&parts[u], mv.to, __ATOMIC_RELAXED);
                ++moved;
                mark_unmarked(g, u, next.data());
                if (!__atomic_load_n(&next[u], __ATOMIC_RELAXED))
                    __atomic_store_n(&next[u], 1, __ATOMIC_RELAXED);
            }
            return moved;
        });
    // the exact gain: the edges at a vertex whose block changed (an edge between two such
    // vertices counted at its smaller end)
    int64_t gain = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : gain) if (n >= kParallelMinItems)
    for (int64_t u = 0; u < n; ++u) {
        if (parts[u] == before[u]) continue;
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
            const int32_t v = g.adjncy[j];
            if (v < u && parts[v] != before[v]) continue;
            gain += g.adjwgt[j] * ((before[u] != before[v] ? 1 : 0) - (parts[u] != parts[v] ? 1 : 0));
        }
    }
    return gain;
}

}  // namespace igp
