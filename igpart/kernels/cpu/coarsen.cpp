// Coarsening: HyperG balanced group coarsening (hypergraphs), G-kway union-find coarsening with
// iG-kway constrained grouping (graphs), and contraction of both.
#include <algorithm>
#include <numeric>
#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "csr.h"
#include "partition.h"
#include "partition_common.h"

namespace igp {

namespace {
// The sequential clustering visits the vertices in a random order: the row bounds, flag and
// weight of the vertex this many places ahead are fetched, and its nets from half as far.
constexpr int64_t kPrefetchVertices = 16;
// The asynchronous joins hand out the visiting order in chunks of this many vertices.
constexpr int64_t kAsyncJoinChunk = 256;
}  // namespace

OrderRun &cluster_order_run() {
    static OrderRun run;
    return run;
}

OrderRun &cluster_sub_round_order_run() {
    static OrderRun run;
    return run;
}

std::vector<int32_t> hypergraph_best_neighbours(const HgView &h, int64_t max_cluster_weight,
                                                int64_t max_net_size, const int32_t *communities,
                                                int64_t seed) {
    const int64_t n = h.n;
    std::vector<int32_t> best(static_cast<size_t>(n), -1);
#pragma omp parallel if (n >= kParallelMinItems)
    {
        std::vector<double> score(static_cast<size_t>(n), 0.0);
        std::vector<int32_t> touched;
#pragma omp for schedule(dynamic, 512)
        for (int64_t u = 0; u < n; ++u) {
            touched.clear();
            const int64_t wu = h.vwgt[u];
            if (wu > max_cluster_weight) continue;
            const int32_t cu = communities ? communities[u] : 0;
            for_each_rated_neighbour(h, static_cast<int32_t>(u), max_net_size,
                                     [&](int32_t v, double r) {
                                         if (communities && communities[v] != cu) return;
                                         if (score[v] == 0.0) touched.push_back(v);
                                         score[v] += r;
                                     });
            int32_t b = -1;
            double bs = 0.0;
            int64_t bw = 0;
            unsigned int bh = 0;
            for (int32_t v : touched) {
                const double s = score[v];
                score[v] = 0.0;
                const int64_t wv = h.vwgt[v];
                if (s <= 0.0 || wu + wv > max_cluster_weight) continue;
                const unsigned int hv = tie_hash(seed, u, v);
                if (b < 0 || rating_better(s, wv, hv, bs, bw, bh)) {
                    b = v;
                    bs = s;
                    bw = wv;
                    bh = hv;
                }
            }
            best[u] = b;
        }
    }
    return best;
}

std::vector<int32_t> graph_best_neighbours(const GraphView &g, int64_t max_cluster_weight,
                                           int64_t seed) {
    const int64_t n = g.n;
    int64_t maxdeg = 0;
    for (int64_t u = 0; u < n; ++u) maxdeg = std::max(maxdeg, g.xadj[u + 1] - g.xadj[u]);
    const int64_t c = maxdeg + 1;
    std::vector<int32_t> best(static_cast<size_t>(n), -1);
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelMinItems)
    for (int64_t u = 0; u < n; ++u) {
        const int64_t wu = g.vwgt[u];
        int32_t b = -1;
        int64_t bs = 0;
        unsigned int bh = 0;
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
            const int32_t v = g.adjncy[j];
            if (wu + g.vwgt[v] > max_cluster_weight) continue;
            const int64_t s = graph_score(c, g.adjwgt[j], g.xadj[v + 1] - g.xadj[v]);
            const unsigned int hv = tie_hash(seed, u, v);
            if (b < 0 || s > bs || (s == bs && hv < bh)) {
                b = v;
                bs = s;
                bh = hv;
            }
        }
        best[u] = b;
    }
    return best;
}

namespace {

int32_t find_root(std::vector<int32_t> &parent, int32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

}  // namespace

int64_t group_vertices(int64_t n, const int32_t *best, bool leader_max, const int64_t *vwgt,
                       int64_t max_cluster_weight, int64_t group_size, std::vector<int32_t> &cmap) {
    // Components of the undirected (u, best[u]) graph; the root becomes the leader.
    std::vector<int32_t> parent(static_cast<size_t>(n));
    std::iota(parent.begin(), parent.end(), 0);
    for (int64_t u = 0; u < n; ++u) {
        if (best[u] < 0) continue;
        int32_t a = find_root(parent, static_cast<int32_t>(u)), b = find_root(parent, best[u]);
        if (a == b) continue;
        if ((a < b) == leader_max) std::swap(a, b);  // a: the id that stays root
        parent[b] = a;
    }
    std::vector<int32_t> leader(static_cast<size_t>(n));
    for (int64_t u = 0; u < n; ++u) leader[u] = find_root(parent, static_cast<int32_t>(u));
    // Undirected adjacency of the pointer graph (CSR) for the BFS from each leader.
    std::vector<int64_t> ptr(static_cast<size_t>(n + 1), 0);
    for (int64_t u = 0; u < n; ++u)
        if (best[u] >= 0) {
            ++ptr[u + 1];
            ++ptr[best[u] + 1];
        }
    for (int64_t u = 0; u < n; ++u) ptr[u + 1] += ptr[u];
    std::vector<int32_t> adj(static_cast<size_t>(ptr[n]));
    {
        std::vector<int64_t> pos(ptr.begin(), ptr.end() - 1);
        for (int64_t u = 0; u < n; ++u)
            if (best[u] >= 0) {
                adj[pos[u]++] = best[u];
                adj[pos[best[u]]++] = static_cast<int32_t>(u);
            }
    }
    // Join iteration = BFS distance from the leader (fixed point of HyperG Alg. 1 / G-kway's
    // union find run synchronously).
    std::vector<int32_t> dist(static_cast<size_t>(n), -1);
    std::vector<int32_t> queue;
    queue.reserve(static_cast<size_t>(n));
    for (int64_t u = 0; u < n; ++u) {
        if (leader[u] != u) continue;
        size_t head = queue.size();
        queue.push_back(static_cast<int32_t>(u));
        dist[u] = 0;
        while (head < queue.size()) {
            const int32_t x = queue[head++];
            for (int64_t j = ptr[x]; j < ptr[x + 1]; ++j) {
                const int32_t y = adj[j];
                if (dist[y] < 0) {
                    dist[y] = dist[x] + 1;
                    queue.push_back(y);
                }
            }
        }
    }
    // Sort by (group combination, vertex id) and cut subgroups greedily.
    std::vector<int64_t> comb(static_cast<size_t>(n));
    for (int64_t u = 0; u < n; ++u) comb[u] = group_comb(leader[u], dist[u]);
    std::vector<int32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return comb[a] != comb[b] ? comb[a] < comb[b] : a < b;
    });
    cmap.assign(static_cast<size_t>(n), 0);
    int64_t nc = 0, count = 0, weight = 0;
    int32_t group = -1;
    for (int64_t i = 0; i < n; ++i) {
        const int32_t v = order[i];
        const int64_t w = vwgt[v];
        if (i == 0 || leader[v] != group || count >= group_size || weight + w > max_cluster_weight) {
            ++nc;
            count = 0;
            weight = 0;
            group = leader[v];
        }
        cmap[v] = static_cast<int32_t>(nc - 1);
        ++count;
        weight += w;
    }
    return nc;
}

namespace {

// The cluster u joins (-1: none) given cluster representatives `rep` and weights `cw`: the
// highest rating, then an unclustered target, then the lighter cluster, then tie_hash.
// `score` is all zeros on entry and on return; `touched` is scratch. rep, cw and matched are read
// with relaxed atomic loads: the asynchronous joins write them meanwhile.
int32_t best_cluster(const HgView &h, int32_t u, int64_t max_cluster_weight, int64_t max_net_size,
                     const int32_t *communities, bool weight_penalty, int64_t seed,
                     const int32_t *rep, const int64_t *cw, const char *matched, double *score,
                     std::vector<int32_t> &touched) {
    const int64_t wu = h.vwgt[u];
    const int32_t cu = communities ? communities[u] : 0;
    touched.clear();
    for_each_rated_neighbour(h, u, max_net_size, [&](int32_t v, double r) {
        if (communities && communities[v] != cu) return;
        const int32_t c = __atomic_load_n(&rep[v], __ATOMIC_RELAXED);
        if (score[c] == 0.0) touched.push_back(c);
        score[c] += r;
    });
    int32_t best = -1;
    double bs = 0.0;
    int64_t bw = 0;
    unsigned int bh = 0;
    bool bfree = false;
    for (int32_t c : touched) {
        double s = score[c];
        score[c] = 0.0;
        const int64_t wc = __atomic_load_n(&cw[c], __ATOMIC_RELAXED);
        if (s <= 0.0 || wu + wc > max_cluster_weight) continue;
        if (weight_penalty) s /= static_cast<double>(std::max<int64_t>(wc, 1));
        const bool free = !__atomic_load_n(&matched[c], __ATOMIC_RELAXED);
        const unsigned int hc = tie_hash(seed, u, c);
        bool better = best < 0 || s > bs;
        if (!better && s == bs) {
            if (free != bfree) better = free;
            else better = rating_better(s, wc, hc, bs, bw, bh);
        }
        if (better) {
            best = c;
            bs = s;
            bw = wc;
            bh = hc;
            bfree = free;
        }
    }
    return best;
}

// Per-thread rating scratch (n zeros), kept across calls: clearing is the caller's job (every
// entry it sets is reset), so reuse costs nothing.
std::vector<double> &rating_scratch(int64_t n) {
    static thread_local std::vector<double> score;
    if (static_cast<int64_t>(score.size()) < n) score.assign(static_cast<size_t>(n), 0.0);
    return score;
}

// Whether some net of at most max_net_size pins joins u to a vertex of its own community: without
// one no rating ever clusters u.
bool has_rated_neighbour(const HgView &h, int32_t u, int64_t max_net_size,
                         const int32_t *communities) {
    const int32_t cu = communities ? communities[u] : 0;
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
        const int32_t e = h.vind[j];
        const int64_t size = h.size(e);
        if (size < 2 || size > max_net_size) continue;
        if (!communities) return true;
        for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q)
            if (h.eind[q] != u && communities[h.eind[q]] == cu) return true;
    }
    return false;
}

// Pairs the vertices that the rating cannot cluster (still alone, lighter than
// max_cluster_weight, no rated neighbour in their community: their nets are all larger than
// max_net_size, as one net over every vertex, or they have none), in visiting order within
// their community, each pair within max_cluster_weight, until nc reaches target. Without it
// such a level does not shrink and all of it goes to the initial partitioning; with it every
// level halves them.
void pair_unrated(const HgView &h, int64_t max_cluster_weight, int64_t max_net_size,
                  const int32_t *communities, const std::vector<int32_t> &order,
                  const std::vector<int64_t> &cw,
                  const std::vector<char> &matched, int64_t target, int64_t nc,
                  std::vector<std::pair<int32_t, int32_t>> &pairs) {
    const int64_t n = h.n;
    std::vector<char> unrated(static_cast<size_t>(n), 0);
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelMinItems)
    for (int64_t u = 0; u < n; ++u)
        unrated[u] = !matched[u] && cw[u] < max_cluster_weight &&
                     !has_rated_neighbour(h, static_cast<int32_t>(u), max_net_size, communities);
    const std::vector<int32_t> at =
        parallel_select(n, [&](int64_t i) { return unrated[order[i]] != 0; });
    const int64_t na = static_cast<int64_t>(at.size());
    std::vector<std::pair<int32_t, int32_t>> cand(static_cast<size_t>(na));  // (community, place)
#pragma omp parallel for schedule(static) if (na >= kParallelMinLightItems)
    for (int64_t x = 0; x < na; ++x)
        cand[x] = {communities ? communities[order[at[x]]] : 0, at[x]};
    parallel_sort(cand.begin(), cand.end());
    for (size_t i = 0; i + 1 < cand.size() && nc > target;) {
        const int32_t a = order[cand[i].second], b = order[cand[i + 1].second];
        if (cand[i].first == cand[i + 1].first && cw[a] + cw[b] <= max_cluster_weight) {
            pairs.push_back({b, a});  // b joins a
            --nc;
            i += 2;
        } else {
            ++i;
        }
    }
}

}  // namespace

int64_t cluster_hypergraph(const HgView &h, int64_t max_cluster_weight, int64_t max_net_size,
                           const int32_t *communities, double max_shrink, bool weight_penalty,
                           int64_t seed, std::vector<int32_t> &cmap, int64_t sub_rounds,
                           bool async_joins) {
    const int64_t n = h.n;
    std::vector<int32_t> rep(static_cast<size_t>(n));
    std::iota(rep.begin(), rep.end(), 0);
    std::vector<int64_t> cw(h.vwgt, h.vwgt + n);
    std::vector<char> matched(static_cast<size_t>(n), 0);
    int max_threads = 1;
#ifdef _OPENMP
    max_threads = std::max(1, omp_get_max_threads());
#endif
    const bool async_level = async_joins && max_threads > 1 && n >= kParallelMinItems;
    // visiting order: seeded pseudo-random permutation (a total order: the parallel sort gives
    // the sequential one's result), in runs of consecutive ids with the asynchronous joins and
    // in the sub-rounds when their run lengths are set
    const bool sub_level = !async_level && sub_rounds > 0 && n >= kParallelMinItems;
    const int64_t run = async_level ? cluster_order_run().get()
                        : sub_level ? cluster_sub_round_order_run().get()
                                    : 0;
    const std::vector<int32_t> order = seeded_run_order(
        n, run, [seed](int64_t u) { return tie_hash(seed, u, -1); },
        [seed](int64_t r) { return tie_hash(seed, r, -2); });
    const double shrink = max_shrink > 1.0 ? max_shrink : 1.0;
    const int64_t target = static_cast<int64_t>(static_cast<double>(n) / shrink);
    int64_t nc = n;
    auto join = [&](int32_t u, int32_t c) {
        rep[u] = c;
        cw[c] += h.vwgt[u];
        matched[u] = matched[c] = 1;
        --nc;
    };
    if (async_level) {
        // Asynchronous joins: the threads take chunks of the order; each vertex rates against
        // the clusters as they are and joins at once. matched[] is a state: 0 free, 1 a
        // cluster's representative, 2 joined (rep set), 3 joining. A vertex claims itself
        // (0 -> 3), then its target: a free target becomes a representative (0 -> 1), a
        // joined one stands for its representative, a joining one is given up; the weight is
        // reserved on the representative by a compare-and-swap under the cap. A vertex that
        // cannot join is freed again (3 -> 0). Clusters stay one level deep (a representative
        // never joins), as in the sequential visit; the result depends on the interleaving.
        int64_t left = n;
#pragma omp parallel
        {
            double *score = rating_scratch(n).data();
            std::vector<int32_t> touched;
#pragma omp for schedule(dynamic, kAsyncJoinChunk)
            for (int64_t i = 0; i < n; ++i) {
                if (__atomic_load_n(&left, __ATOMIC_RELAXED) <= target) continue;
                const int32_t u = order[i];
                const int64_t wu = h.vwgt[u];
                if (__atomic_load_n(&matched[u], __ATOMIC_RELAXED) || wu >= max_cluster_weight)
                    continue;
                int32_t c = best_cluster(h, u, max_cluster_weight, max_net_size, communities,
                                         weight_penalty, seed, rep.data(), cw.data(),
                                         matched.data(), score, touched);
                if (c < 0) continue;
                char expect = 0;
                if (!__atomic_compare_exchange_n(&matched[u], &expect, char(3), false,
                                                 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
                    continue;  // chosen as a target meanwhile
                bool joined = false;
                for (int hop = 0; hop < 2; ++hop) {
                    char sc = __atomic_load_n(&matched[c], __ATOMIC_ACQUIRE);
                    if (sc == 0) {
                        char free = 0;
                        if (__atomic_compare_exchange_n(&matched[c], &free, char(1), false,
                                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                            sc = 1;
                        else
                            sc = free;
                    }
                    if (sc == 2) {  // c joined a cluster: that cluster's representative
                        c = __atomic_load_n(&rep[c], __ATOMIC_RELAXED);
                        continue;
                    }
                    if (sc == 1) {
                        int64_t cur = __atomic_load_n(&cw[c], __ATOMIC_RELAXED);
                        while (cur + wu <= max_cluster_weight) {
                            if (__atomic_compare_exchange_n(&cw[c], &cur, cur + wu, true,
                                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                                joined = true;
                                break;
                            }
                        }
                    }
                    break;  // a representative (joined or full), or a target still joining
                }
                if (joined) {
                    __atomic_store_n(&rep[u], c, __ATOMIC_RELAXED);
                    __atomic_store_n(&matched[u], char(2), __ATOMIC_RELEASE);
                    __atomic_fetch_sub(&left, int64_t(1), __ATOMIC_RELAXED);
                } else {
                    __atomic_store_n(&matched[u], char(0), __ATOMIC_RELEASE);
                }
            }
        }
        nc = left;
    } else if (sub_rounds <= 0 || n < kParallelMinItems) {
        double *score = rating_scratch(n).data();
        std::vector<int32_t> touched;
        for (int64_t i = 0; i < n; ++i) {
            const int32_t u = order[i];
            if (nc <= target) break;
            if (i + kPrefetchVertices < n) {  // the order is random: fetch the rows ahead
                const int32_t v = order[i + kPrefetchVertices];
                __builtin_prefetch(&h.vptr[v]);
                __builtin_prefetch(&matched[v]);
                __builtin_prefetch(&h.vwgt[v]);
            }
            if (i + kPrefetchVertices / 2 < n)
                __builtin_prefetch(h.vind + h.vptr[order[i + kPrefetchVertices / 2]]);
            if (matched[u] || h.vwgt[u] >= max_cluster_weight) continue;
            const int32_t best =
                best_cluster(h, u, max_cluster_weight, max_net_size, communities, weight_penalty,
                             seed, rep.data(), cw.data(), matched.data(), score, touched);
            if (best >= 0) join(u, best);
        }
    } else {
        // Synchronous sub-rounds: the vertices of a slice of the order choose their cluster in
        // parallel against the state before the slice, then join in order; a join is redirected
        // to the cluster its target joined meanwhile, and dropped when the vertex was chosen as a
        // target meanwhile or the cluster got too heavy. Independent of the threads.
        const int64_t slice = (n + sub_rounds - 1) / sub_rounds;
        std::vector<int32_t> choice(static_cast<size_t>(slice), -1);
        for (int64_t lo = 0; lo < n && nc > target; lo += slice) {
            const int64_t hi = std::min(n, lo + slice);
#pragma omp parallel
            {
                double *score = rating_scratch(n).data();
                std::vector<int32_t> touched;
#pragma omp for schedule(dynamic, 64)
                for (int64_t i = lo; i < hi; ++i) {
                    const int32_t u = order[i];
                    choice[i - lo] =
                        matched[u] || h.vwgt[u] >= max_cluster_weight
                            ? -1
                            : best_cluster(h, u, max_cluster_weight, max_net_size, communities,
                                           weight_penalty, seed, rep.data(), cw.data(),
                                           matched.data(), score, touched);
                }
            }
            for (int64_t i = lo; i < hi && nc > target; ++i) {
                const int32_t u = order[i];
                int32_t c = choice[i - lo];
                if (c < 0 || matched[u]) continue;
                c = rep[c];  // c joined a cluster in this slice: that cluster (chains of one)
                if (cw[c] + h.vwgt[u] > max_cluster_weight) continue;
                join(u, c);
            }
        }
    }
    if (nc > target) {
        std::vector<std::pair<int32_t, int32_t>> pairs;
        pair_unrated(h, max_cluster_weight, max_net_size, communities, order, cw, matched,
                     target, nc, pairs);
        for (const auto &p : pairs) join(p.first, p.second);
    }
    // dense ids in ascending order of representatives
    const std::vector<int32_t> roots = parallel_select(n, [&](int64_t u) { return rep[u] == u; });
    const int64_t next = static_cast<int64_t>(roots.size());
    std::vector<int32_t> id(static_cast<size_t>(n), -1);
#pragma omp parallel for schedule(static) if (next >= kParallelMinLightItems)
    for (int64_t i = 0; i < next; ++i) id[roots[i]] = static_cast<int32_t>(i);
    cmap.resize(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) cmap[u] = id[rep[u]];
    return next;
}

namespace {

uint64_t hash_pins(const int32_t *p, int64_t len) {
    uint64_t x = 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(len);
    for (int64_t i = 0; i < len; ++i) {
        uint64_t y = static_cast<uint64_t>(p[i]) + 0x632BE59BD9B4E019ULL;
        y ^= y >> 29;
        y *= 0xBF58476D1CE4E5B9ULL;
        y ^= y >> 32;
        x = (x ^ y) * 0x94D049BB133111EBULL;
    }
    return x ^ (x >> 31);
}

}  // namespace

HgLevel contract_hypergraph(const HgView &h, const int32_t *cmap, int64_t nc) {
    HgLevel c;
    const bool par = h.m >= kParallelMinItems;
    c.vwgt = filled<int64_t>(nc, 0);
    {
        int64_t *vw = c.vwgt.data();
#pragma omp parallel for schedule(static) if (h.n >= kParallelMinLightItems)
        for (int64_t u = 0; u < h.n; ++u) {
#pragma omp atomic
            vw[cmap[u]] += h.vwgt[u];
        }
    }
    // Map, sort and deduplicate the pins of every net; drop nets left with < 2 pins.
    // (no sequential zeroing: the loop below writes every pin and length, and the hash of every
    // net it keeps, the only ones read)
    UninitVector<int32_t> pins(static_cast<size_t>(h.eptr[h.m]));
    UninitVector<int64_t> len(static_cast<size_t>(h.m));
    UninitVector<uint64_t> hash(static_cast<size_t>(h.m));
#pragma omp parallel for schedule(dynamic, 1024) if (par)
    for (int64_t e = 0; e < h.m; ++e) {
        int32_t *p = pins.data() + h.eptr[e];
        const int64_t s = h.size(e);
        for (int64_t i = 0; i < s; ++i) p[i] = cmap[h.eind[h.eptr[e] + i]];
        std::sort(p, p + s);
        const int64_t u = std::unique(p, p + s) - p;
        len[e] = u >= 2 ? u : 0;
        if (len[e]) hash[e] = hash_pins(p, len[e]);
    }
    // Identical nets: group by (hash, length), compare pins, merge into the first net.
    // (hash, net) pairs sorted as such, the keys next to the ids: 10% faster contractions than
    // sorting net ids with a comparator that reads the hashes (same order)
    // (the loops over nets or runs below: in parallel, each the sequential loop's result)
    const std::vector<int32_t> live = parallel_select(h.m, [&](int64_t e) { return len[e] > 0; });
    const int64_t nl = static_cast<int64_t>(live.size());
    std::vector<std::pair<uint64_t, int32_t>> order(static_cast<size_t>(nl));
#pragma omp parallel for schedule(static) if (nl >= kParallelMinLightItems)
    for (int64_t i = 0; i < nl; ++i) order[i] = {hash[live[i]], live[i]};
    parallel_sort(order.begin(), order.end());
    std::vector<int64_t> starts;  // runs of equal hashes
    {
        const std::vector<int32_t> s = parallel_select(
            nl, [&](int64_t i) { return i == 0 || order[i].first != order[i - 1].first; });
        starts.assign(s.begin(), s.end());
    }
    starts.push_back(nl);
    UninitVector<int32_t> rep = filled<int32_t>(h.m, -1);
    const int64_t runs = static_cast<int64_t>(starts.size()) - 1;
#pragma omp parallel for schedule(dynamic, 1024) if (h.m >= kParallelMinLightItems)
    for (int64_t g = 0; g < runs; ++g) {
        const size_t i = static_cast<size_t>(starts[g]), j = static_cast<size_t>(starts[g + 1]);
        for (size_t a = i; a < j; ++a) {
            const int32_t ea = order[a].second;
            if (rep[ea] >= 0) continue;
            rep[ea] = ea;
            for (size_t b = a + 1; b < j; ++b) {
                const int32_t eb = order[b].second;
                if (rep[eb] >= 0 || len[eb] != len[ea]) continue;
                if (std::equal(pins.data() + h.eptr[ea], pins.data() + h.eptr[ea] + len[ea],
                               pins.data() + h.eptr[eb]))
                    rep[eb] = ea;
            }
        }
    }
    UninitVector<int64_t> wsum = filled<int64_t>(h.m, 0);
    {
        int64_t *ws = wsum.data();
#pragma omp parallel for schedule(static) if (nl >= kParallelMinLightItems)
        for (int64_t i = 0; i < nl; ++i) {  // integer sums: any order gives the same
            const int32_t e = live[i];
#pragma omp atomic
            ws[rep[e]] += h.ewgt[e];
        }
    }
    // kept nets in id order: their coarse ids and pin offsets, then the pins copied in parallel
    const std::vector<int32_t> kept =
        parallel_select(h.m, [&](int64_t e) { return len[e] > 0 && rep[e] == e; });
    const int64_t cm = static_cast<int64_t>(kept.size());
    c.eptr.assign(static_cast<size_t>(cm + 1), 0);
    c.ewgt.resize(static_cast<size_t>(cm));
#pragma omp parallel for schedule(static) if (cm >= kParallelMinLightItems)
    for (int64_t x = 0; x < cm; ++x) {
        c.eptr[x + 1] = len[kept[x]];
        c.ewgt[x] = wsum[kept[x]];
    }
    parallel_prefix_sum(c.eptr);
    c.eind.resize(static_cast<size_t>(c.eptr.back()));
#pragma omp parallel for schedule(dynamic, 1024) if (h.m >= kParallelMinLightItems)
    for (int64_t x = 0; x < cm; ++x)
        std::copy(pins.begin() + h.eptr[kept[x]], pins.begin() + h.eptr[kept[x]] + len[kept[x]],
                  c.eind.begin() + c.eptr[x]);
    Csr t = csr_transpose(c.eptr.data(), cm, c.eind.data(), nc);
    c.vptr = std::move(t.ptr);
    c.vind = std::move(t.ind);
    return c;
}

// contract_graph's rows of at least this many neighbours may take the bitmap, when the words
// of their ids' span are at most kBitmapWordsPerId per neighbour.
constexpr int64_t kBitmapRowMin = 32;
constexpr int64_t kBitmapWordsPerId = 4;

GraphLevel contract_graph(const GraphView &g, const int32_t *cmap, int64_t nc) {
    const int64_t n = g.n;
    GraphLevel c;
    // Members of each coarse vertex (counted and placed with atomics: their order inside a
    // coarse vertex varies with the threads, what is made of them below does not).
    std::vector<int64_t> mptr(static_cast<size_t>(nc + 1), 0);
    {
        int64_t *mp = mptr.data();
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
        for (int64_t u = 0; u < n; ++u) {
#pragma omp atomic
            ++mp[cmap[u] + 1];
        }
    }
    parallel_prefix_sum(mptr);
    std::vector<int32_t> members(static_cast<size_t>(n));
    {
        std::vector<int64_t> pos(mptr.begin(), mptr.end() - 1);
        int64_t *ps = pos.data();
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
        for (int64_t u = 0; u < n; ++u) {
            int64_t at;
#pragma omp atomic capture
            at = ps[cmap[u]]++;
            members[at] = static_cast<int32_t>(u);
        }
    }
    // Rows in chunks of coarse vertices: each chunk sums its rows' edge weights per coarse
    // neighbour (a dense array per thread, cleared through the neighbours touched; sorted by id,
    // zero-weight edges dropped: they never count in the cut) into buffers of its own, then
    // every chunk copies its rows to their offsets. A row's neighbours come out in id order
    // from a sort of the ids touched, or, where the row is long against the span of its ids
    // (dense levels: clique models of circuits), from a bitmap of that span read word by word
    // (the same order, without the sort's comparisons).
    // Chunks of up to 2,048 rows, at least 8 per thread while they keep 64 rows: a fixed 2,048
    // left the rows of a level of 24,000 coarse vertices to 12 chunks and those of 2,000 to
    // one, fewer than the threads, whatever their count.
    const int64_t kChunk = std::clamp<int64_t>(nc / (8 * int64_t{max_threads()}), 64, 2048);
    const int64_t chunks = (nc + kChunk - 1) / kChunk;
    std::vector<std::vector<int32_t>> cadj(static_cast<size_t>(chunks));
    std::vector<std::vector<int64_t>> cwgt(static_cast<size_t>(chunks));
    c.vwgt.assign(static_cast<size_t>(nc), 0);
    c.xadj.assign(static_cast<size_t>(nc + 1), 0);
#pragma omp parallel if (n >= kParallelMinItems)
    {
        std::vector<int64_t> acc;  // per coarse vertex, allocated by the threads that work
        std::vector<int32_t> touched;
        std::vector<uint64_t> bits;  // a bit per coarse vertex, all clear between rows
        // a chunk's rows built in the thread's own buffers, then copied out once: pushing to
        // cadj[ch] itself would write its end pointer, on the cache line of the neighbouring
        // chunks' vectors that other threads are filling, at every edge
        std::vector<int32_t> adj;
        std::vector<int64_t> wgt;
#pragma omp for schedule(dynamic, 1)
        for (int64_t ch = 0; ch < chunks; ++ch) {
            if (acc.empty()) acc.assign(static_cast<size_t>(nc), 0);
            adj.clear();
            wgt.clear();
            for (int64_t x = ch * kChunk; x < std::min(nc, (ch + 1) * kChunk); ++x) {
                int64_t w = 0;
                touched.clear();
                for (int64_t i = mptr[x]; i < mptr[x + 1]; ++i) {
                    const int32_t u = members[i];
                    w += g.vwgt[u];
                    for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
                        const int32_t y = cmap[g.adjncy[j]];
                        if (y == x) continue;
                        if (acc[y] == 0) touched.push_back(y);
                        acc[y] += g.adjwgt[j];
                    }
                }
                c.vwgt[x] = w;
                int64_t degree = 0;
                auto emit = [&](int32_t y) {
                    if (acc[y] > 0) {
                        adj.push_back(y);
                        wgt.push_back(acc[y]);
                        ++degree;
                    }
                    acc[y] = 0;
                };
                // the bitmap when the words of [lo, hi] are at most kBitmapWordsPerId per id
                const int64_t t = static_cast<int64_t>(touched.size());
                int32_t lo = 0, hi = 0;
                bool bitmap = false;
                if (t >= kBitmapRowMin) {
                    const auto [mn, mx] = std::minmax_element(touched.begin(), touched.end());
                    lo = *mn;
                    hi = *mx;
                    bitmap = hi / 64 - lo / 64 + 1 <= kBitmapWordsPerId * t;
                }
                if (bitmap) {
                    if (bits.empty()) bits.assign(static_cast<size_t>((nc + 63) / 64), 0);
                    for (const int32_t y : touched) bits[y >> 6] |= uint64_t{1} << (y & 63);
                    for (int64_t word = lo / 64; word <= hi / 64; ++word) {
                        uint64_t b = bits[word];
                        bits[word] = 0;
                        while (b) {
                            emit(static_cast<int32_t>(word * 64 + __builtin_ctzll(b)));
                            b &= b - 1;
                        }
                    }
                } else {
                    std::sort(touched.begin(), touched.end());
                    for (const int32_t y : touched) emit(y);
                }
                c.xadj[x + 1] = degree;
            }
            cadj[ch].assign(adj.begin(), adj.end());
            cwgt[ch].assign(wgt.begin(), wgt.end());
        }
    }
    parallel_prefix_sum(c.xadj);
    c.adjncy.resize(static_cast<size_t>(c.xadj[nc]));
    c.adjwgt.resize(static_cast<size_t>(c.xadj[nc]));
#pragma omp parallel for schedule(dynamic, 1) if (n >= kParallelMinItems)
    for (int64_t ch = 0; ch < chunks; ++ch) {
        const int64_t at = c.xadj[ch * kChunk];
        std::copy(cadj[ch].begin(), cadj[ch].end(), c.adjncy.begin() + at);
        std::copy(cwgt[ch].begin(), cwgt[ch].end(), c.adjwgt.begin() + at);
    }
    return c;
}

}  // namespace igp
