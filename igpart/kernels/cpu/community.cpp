// Community detection for community-restricted coarsening: multilevel Louvain modularity
// maximisation on the weighted clique expansion of a hypergraph (edge weight w_e / (|e| - 1),
// summed over shared nets; nets above a size threshold left out, as in the rating), or on its
// bipartite graph of vertex and net nodes (Mt-KaHyPar's; O(pins) arcs, the vertices'
// communities are the result).
//
// Deterministic: vertices are visited in a seeded pseudo-random order (igp::tie_hash), ties keep
// the current community, then go to the smaller community id. The clique expansion is built in
// parallel (OpenMP, the same graph whatever the threads); local moving is sequential or in
// synchronous sub-rounds, and with pruning rates a vertex again only once a neighbour has moved
// since its last rating (after Ozaki et al.'s pruned Louvain: most of a level's later passes
// rate a few vertices; on neuron x4 the first level's seven passes took 0.59 s instead of
// 1.43 s). The asynchronous passes (not deterministic) may visit runs of consecutive ids in a
// seeded order instead (louvain_order_run), for the locality of the rows each thread reads.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <numeric>
#include <utility>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "community.h"
#include "csr.h"
#include "partition_common.h"
#include "row_map.h"
#include "spin_barrier.h"

namespace igp {

OrderRun &louvain_order_run() {
    static OrderRun run;
    return run;
}

namespace {

// Weighted undirected graph with self loops: `loop[u]` is the weight of u's self loop counted
// once per direction (the sum of A[u][u] over the members of an aggregated vertex).
struct WGraph {
    int64_t n = 0;
    std::vector<int64_t> ptr;
    // arcs: resized without a sequential zeroing pass (every entry is written by the parallel
    // loops that fill them, which also touch their pages first, each thread its own part)
    UninitVector<int32_t> adj;
    UninitVector<double> w;
    std::vector<double> loop;
    std::vector<int64_t> vw;  // vertex weight (sum over the members of an aggregated vertex)
};

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Modularity of comm on g at `resolution` (loops count inside; the profile's only use).
double level_modularity(const WGraph &g, const std::vector<int32_t> &comm, double resolution) {
    const int64_t n = g.n;
    std::vector<double> tot(static_cast<size_t>(n), 0.0);
    double inside = 0.0, m2 = 0.0;
    for (int64_t u = 0; u < n; ++u) {
        double d = g.loop[u];
        inside += g.loop[u];
        for (int64_t j = g.ptr[u]; j < g.ptr[u + 1]; ++j) {
            d += g.w[j];
            if (comm[g.adj[j]] == comm[u]) inside += g.w[j];
        }
        tot[comm[u]] += d;
        m2 += d;
    }
    if (m2 <= 0.0) return 0.0;
    double sq = 0.0;
    for (int64_t c = 0; c < n; ++c) sq += (tot[c] / m2) * (tot[c] / m2);
    return inside / m2 - resolution * sq;
}

int thread_id() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

// Rows of slices built by the threads (slice t's row entries in adj[t] / w[t], in row order)
// joined into one CSR body: the rows' lengths in ptr[1..] become offsets, every slice is copied
// at its place in parallel and freed.
void join_slices(std::vector<int64_t> &ptr, std::vector<std::vector<int32_t>> &adj,
                 std::vector<std::vector<double>> &w, UninitVector<int32_t> &out_adj,
                 UninitVector<double> &out_w) {
    parallel_prefix_sum(ptr);
    const int threads = static_cast<int>(adj.size());
    std::vector<int64_t> at(static_cast<size_t>(threads + 1), 0);
    for (int t = 0; t < threads; ++t) at[t + 1] = at[t] + static_cast<int64_t>(adj[t].size());
    out_adj.resize(static_cast<size_t>(at[threads]));
    out_w.resize(static_cast<size_t>(at[threads]));
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        std::copy(adj[t].begin(), adj[t].end(), out_adj.begin() + at[t]);
        std::copy(w[t].begin(), w[t].end(), out_w.begin() + at[t]);
        std::vector<int32_t>().swap(adj[t]);
        std::vector<double>().swap(w[t]);
    }
}

// A graph of `nodes` nodes and no arcs yet (rows of length 0, no self loops): the first
// `weighted` nodes weigh vwgt's weights, the others 0.
WGraph without_arcs(int64_t nodes, const int64_t *vwgt = nullptr, int64_t weighted = 0) {
    WGraph g;
    g.n = nodes;
    g.ptr.assign(static_cast<size_t>(nodes + 1), 0);
    g.loop.assign(static_cast<size_t>(nodes), 0.0);
    g.vw.assign(static_cast<size_t>(nodes), 0);
    if (weighted > 0) std::copy(vwgt, vwgt + weighted, g.vw.begin());
    return g;
}

// Rows in vertex order, each row's neighbours in the order the nets meet them (the same graph
// whatever the number of threads: iteration t builds the rows of the t-th contiguous slice).
WGraph clique_expansion(const HgView &h, int64_t max_net_size) {
    const int64_t n = h.n;
    WGraph g = without_arcs(n, h.vwgt, n);
    const int threads = loop_threads(n, kParallelMinItems);
    std::vector<std::vector<int32_t>> adj(static_cast<size_t>(threads));
    std::vector<std::vector<double>> w(static_cast<size_t>(threads));
    // one iteration per slice, not one slice per thread id: a team smaller than asked for
    // (OMP_DYNAMIC, OMP_THREAD_LIMIT, a nested region) still builds every slice
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        const int64_t lo = n * t / threads, hi = n * (t + 1) / threads;
        // a row's sums in a small table sized for it (a dense array of n entries per thread
        // only for rows too long for one: n doubles per thread overflow the shared cache)
        RowMap row;
        // the slice's rows built in vectors of this thread's own, moved to adj[t] / w[t] at
        // the end (pushing to adj[t] would write its end pointer, on the cache line of the
        // neighbouring slices' vectors, at every row)
        std::vector<int32_t> a;
        std::vector<double> aw;
        {
            // room for the slice's rows at their bound (pages are touched only as the rows
            // fill them): no regrowth copies of the slice's arcs
            int64_t slice_bound = 0;
            for (int64_t j = h.vptr[lo]; j < h.vptr[hi]; ++j) {
                const int64_t size = h.size(h.vind[j]);
                if (size >= 2 && size <= max_net_size) slice_bound += size - 1;
            }
            a.reserve(static_cast<size_t>(slice_bound));
            aw.reserve(static_cast<size_t>(slice_bound));
        }
        for (int64_t u = lo; u < hi; ++u) {
            int64_t bound = 0;  // the row's entries at most
            for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
                const int64_t size = h.size(h.vind[j]);
                if (size >= 2 && size <= max_net_size) bound += size - 1;
            }
            row.begin(bound, n);
            for_each_rated_neighbour(h, static_cast<int32_t>(u), max_net_size,
                                     [&](int32_t v, double r) {
                                         if (r > 0.0) row.add(v, r);
                                     });
            a.insert(a.end(), row.ids().begin(), row.ids().end());
            aw.insert(aw.end(), row.sums().begin(), row.sums().end());
            g.ptr[u + 1] = static_cast<int64_t>(row.ids().size());
            row.end();
        }
        adj[static_cast<size_t>(t)] = std::move(a);
        w[static_cast<size_t>(t)] = std::move(aw);
    }
    join_slices(g.ptr, adj, w, g.adj, g.w);
    return g;
}

// A graph's own CSR as Louvain's graph: the arcs of positive weight in row order, no self loops
// (a graph has none), vertex weights as given: the clique expansion of its edges as 2-pin nets
// (a net of weight w between u and v rates the pair w / (2 - 1)), without building those nets.
WGraph graph_csr(const GraphView &gv) {
    const int64_t n = gv.n;
    WGraph g = without_arcs(n, gv.vwgt, n);
    const int64_t arcs = gv.xadj[n];
#pragma omp parallel for schedule(static, 4096) if (arcs >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) {
        int64_t c = 0;
        for (int64_t j = gv.xadj[u]; j < gv.xadj[u + 1]; ++j) c += gv.adjwgt[j] > 0;
        g.ptr[u + 1] = c;
    }
    parallel_prefix_sum(g.ptr);
    g.adj.resize(static_cast<size_t>(g.ptr[n]));
    g.w.resize(static_cast<size_t>(g.ptr[n]));
#pragma omp parallel for schedule(static, 4096) if (arcs >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) {
        int64_t at = g.ptr[u];
        for (int64_t j = gv.xadj[u]; j < gv.xadj[u + 1]; ++j) {
            if (gv.adjwgt[j] <= 0) continue;
            g.adj[at] = gv.adjncy[j];
            g.w[at] = static_cast<double>(gv.adjwgt[j]);
            ++at;
        }
    }
    return g;
}

// The bipartite (star) graph of h as Mt-KaHyPar's community detection builds it: nodes 0..n-1 are
// the vertices, n.. the nets of 2..max_net_size pins (in net order); arc (v, e) for every pin,
// of weight w_e (uniform), w_e / |e| (non_uniform) or w_e * d(v) / |e| (degree; d(v): v's kept
// nets). Net nodes weigh 0, so a community's vertex weight is that of its vertices. Rows in node
// order, a vertex's arcs in its nets' order, a net's in its pins' order (the same graph whatever
// the threads).
WGraph bipartite_graph(const HgView &h, int64_t max_net_size, BipartiteWeight model) {
    const int64_t n = h.n, m = h.m;
    auto kept = [&](int64_t e) { return h.size(e) >= 2 && h.size(e) <= max_net_size; };
    // node id of every net (-1: left out)
    std::vector<int32_t> node(static_cast<size_t>(m), -1);
    const std::vector<int32_t> nets = parallel_select(m, kept);
    const int64_t mk = static_cast<int64_t>(nets.size());
#pragma omp parallel for schedule(static) if (mk >= kParallelMinLightItems)
    for (int64_t i = 0; i < mk; ++i) node[nets[i]] = static_cast<int32_t>(n + i);
    WGraph g = without_arcs(n + mk, h.vwgt, n);
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelMinItems)
    for (int64_t v = 0; v < n; ++v) {
        int64_t d = 0;
        for (int64_t j = h.vptr[v]; j < h.vptr[v + 1]; ++j) d += node[h.vind[j]] >= 0 ? 1 : 0;
        g.ptr[v + 1] = d;
    }
#pragma omp parallel for schedule(static) if (mk >= kParallelMinLightItems)
    for (int64_t i = 0; i < mk; ++i) g.ptr[n + i + 1] = h.size(nets[i]);
    // a vertex's kept-net count, read before the prefix sum turns the lengths into offsets
    std::vector<double> degree;
    if (model == BipartiteWeight::degree) {
        degree.resize(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
        for (int64_t v = 0; v < n; ++v) degree[v] = static_cast<double>(g.ptr[v + 1]);
    }
    parallel_prefix_sum(g.ptr);
    g.adj.resize(static_cast<size_t>(g.ptr[g.n]));
    g.w.resize(static_cast<size_t>(g.ptr[g.n]));
    auto weight = [&](int64_t e, int32_t v) {
        const double w = static_cast<double>(h.ewgt[e]);
        switch (model) {
        case BipartiteWeight::uniform: return w;
        case BipartiteWeight::non_uniform: return w / static_cast<double>(h.size(e));
        default: return w * degree[v] / static_cast<double>(h.size(e));
        }
    };
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelMinItems)
    for (int64_t v = 0; v < n; ++v) {
        int64_t at = g.ptr[v];
        for (int64_t j = h.vptr[v]; j < h.vptr[v + 1]; ++j) {
            const int32_t e = h.vind[j];
            if (node[e] < 0) continue;
            g.adj[at] = node[e];
            g.w[at++] = weight(e, static_cast<int32_t>(v));
        }
    }
#pragma omp parallel for schedule(dynamic, 1024) if (mk >= kParallelMinItems)
    for (int64_t i = 0; i < mk; ++i) {
        const int32_t e = nets[i];
        int64_t at = g.ptr[n + i];
        for (int64_t j = h.eptr[e]; j < h.eptr[e + 1]; ++j) {
            g.adj[at] = h.eind[j];
            g.w[at++] = weight(e, h.eind[j]);
        }
    }
    return g;
}

// Software prefetch distances of Louvain's local moving: the rows of the vertex rated this
// many places later in the (random) order (the sequential passes), and the community of the
// neighbour this many arcs later in a row (every pass). The same communities; Louvain on six
// `small` inputs, one thread, took 0.84-0.89x the time (BENCHMARKS.md, "Louvain's and the
// clustering's rows fetched ahead").
constexpr int64_t kPrefetchRows = 16;
constexpr int64_t kPrefetchArcs = 8;

// Scratch of one thread's community choices: the weight from the vertex to each neighbouring
// community (cache-line aligned: the threads' scratches sit side by side in one vector).
struct alignas(64) MoveScratch {
    RowMap row;
};

// The community u moves to: the neighbouring community of largest gain
// w(u, C) - tot(C) * du over the current comm / tot_of(C) / cw (tot_cu: u's community's total
// without u), staying unless another gains more than 1e-12, then the first met; with
// max_weight > 0 never into a community whose vertex weight would exceed it. `gain`: the best
// community's gain over staying (0 when u stays). comm and cw are read with relaxed atomic
// loads: in the asynchronous passes other threads write them meanwhile.
template <class TotOf>
int32_t best_community(const WGraph &g, const std::vector<int32_t> &comm, TotOf tot_of,
                       const std::vector<int64_t> &cw, int32_t u, double tot_cu, double du,
                       int64_t max_weight, MoveScratch &sc, double &gain) {
    const int32_t cu = comm[u];
    RowMap &row = sc.row;
    row.begin(g.ptr[u + 1] - g.ptr[u], g.n);
    const int64_t end = g.ptr[u + 1];
    for (int64_t j = g.ptr[u]; j < end; ++j) {
        if (j + kPrefetchArcs < end) __builtin_prefetch(&comm[g.adj[j + kPrefetchArcs]]);
        row.add(__atomic_load_n(&comm[g.adj[j]], __ATOMIC_RELAXED), g.w[j]);
    }
    const std::vector<int32_t> &ids = row.ids();
    const std::vector<double> &sums = row.sums();
    double w_cu = 0.0;
    for (size_t i = 0; i < ids.size(); ++i)
        if (ids[i] == cu) {
            w_cu = sums[i];
            break;
        }
    int32_t best = cu;
    const double stay_gain = w_cu - tot_cu * du;
    double best_gain = stay_gain;
    for (size_t i = 0; i < ids.size(); ++i) {
        const int32_t c = ids[i];
        if (c == cu ||
            (max_weight > 0 && __atomic_load_n(&cw[c], __ATOMIC_RELAXED) + g.vw[u] > max_weight))
            continue;
        const double gain = sums[i] - tot_of(c) * du;
        if (gain > best_gain + 1e-12) {
            best = c;
            best_gain = gain;
        }
    }
    row.end();
    gain = best_gain - stay_gain;
    return best;
}

// One Louvain local-moving phase on g (comm starts as the identity): vertices in a seeded order
// move to the neighbouring community of largest modularity gain until a pass moves at most
// min_move_fraction * n vertices or max_passes. The null-model term is scaled by `resolution`
// (gain w(u, C) - resolution * deg(u) * tot(C) / 2W); with max_weight > 0 a vertex never joins
// a community whose vertex weight would exceed it. Returns whether any vertex moved.
// sub_rounds > 0 (graphs of at least kParallelMinItems vertices and sub_round_min_arcs arcs:
// below, the sub-rounds' synchronisation costs more than their parallel work saves, and a
// smaller graph runs sequentially as a small input does): synchronous sub-rounds, the
// order cut into sub_rounds slices; the vertices of a slice choose their community in parallel
// against the state before the slice, then move in parallel: with max_weight > 0, the moves into
// a community whose weight plus all of the slice's arrivals fits move at once, the others are
// tried in order afterwards (dropped when they would now overfill). The community totals are
// then kept in fixed point (integers: sums in any order are the same), so the result does not
// depend on the threads. With prune, a vertex is rated only in the first pass and after a
// neighbour of it moved (later in the same pass or in the next). With min_pass_gain > 0 the
// level also ends after a pass whose moves gained less modularity than min_pass_gain times
// what the level's passes have gained so far (each move's gain as its vertex rated it, summed
// in fixed point: the same whatever the threads).
bool local_moving(const WGraph &g, std::vector<int32_t> &comm, int64_t max_passes, int64_t seed,
                  double min_move_fraction, double resolution, int64_t max_weight,
                  int64_t sub_rounds, int64_t sub_round_min_arcs, bool prune,
                  double min_pass_gain, LouvainLevel *prof, int64_t rows_per_thread,
                  int64_t barrier_spin_us, bool async_moves) {
    const int64_t n = g.n;
    std::vector<double> deg(static_cast<size_t>(n), 0.0);
    std::vector<int64_t> cw(static_cast<size_t>(n), 0);
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) {
        double d = g.loop[u];
        for (int64_t j = g.ptr[u]; j < g.ptr[u + 1]; ++j) d += g.w[j];
        deg[u] = d;
    }
    double m2 = 0.0;  // summed in vertex order
    for (int64_t u = 0; u < n; ++u) m2 += deg[u];
    if (m2 <= 0.0) return false;
    // fixed point: degrees (and gains, each at most its vertex's degree) scaled by a power of
    // two that keeps their sum below 2^61
    const double scale = std::ldexp(1.0, 60 - std::ilogb(m2)), unscale = 1.0 / scale;
    auto fixed = [scale](double x) { return std::llround(x * scale); };
    // the level's gain so far; whether a pass that gained `pass_gain` ends the level
    int64_t level_gain = 0;
    auto gained_little = [&](int64_t pass_gain) {
        level_gain += pass_gain;
        return min_pass_gain > 0.0 &&
               static_cast<double>(pass_gain) < min_pass_gain * static_cast<double>(level_gain);
    };
    int max_threads = 1;
#ifdef _OPENMP
    max_threads = std::max(1, omp_get_max_threads());
#endif
    const bool async_level = async_moves && max_threads > 1 && n >= kParallelMinItems;
    // the asynchronous passes visit runs of louvain_order_run() consecutive ids
    const std::vector<int32_t> order = seeded_run_order(
        n, async_level ? louvain_order_run().get() : 0,
        [seed, n](int64_t u) { return tie_hash(seed, u, n); },
        [seed, n](int64_t r) { return tie_hash(seed, r, n); });
    const bool parallel = !async_level && sub_rounds > 0 && n >= kParallelMinItems &&
                          g.ptr[n] >= sub_round_min_arcs;
    if (prof) {
        prof->sub_rounds = parallel;
        prof->async_moves = async_level;
    }
    int threads = parallel || async_level ? max_threads : 1;
    if (async_level)  // a chunk of the order per thread at least
        threads = static_cast<int>(std::max<int64_t>(
            1, std::min<int64_t>(threads, (n + kLouvainAsyncChunk - 1) / kLouvainAsyncChunk)));
    if (parallel && rows_per_thread > 0) {  // threads that would get no rows of a sub-round
        const int64_t rows = (n + sub_rounds - 1) / sub_rounds;
        threads = static_cast<int>(std::max<int64_t>(
            1, std::min<int64_t>(threads, (rows + rows_per_thread - 1) / rows_per_thread)));
    }
    // one scratch per thread (small tables; a dense array of n entries only for the rows too
    // long for them, allocated by the thread that meets one)
    std::vector<MoveScratch> scratch(static_cast<size_t>(threads));
    // prune: a vertex is rated again only once a neighbour has moved since its last rating
    // (every vertex in the first pass)
    std::vector<char> active(prune ? static_cast<size_t>(n) : 0, 1);
    auto activate_neighbours = [&](int32_t u) {
        for (int64_t j = g.ptr[u]; j < g.ptr[u + 1]; ++j) {
            char *a = &active[g.adj[j]];
            if (!__atomic_load_n(a, __ATOMIC_RELAXED)) __atomic_store_n(a, char(1), __ATOMIC_RELAXED);
        }
    };
    // u leaves community cu for c (totals `tot` of either kind, u's share d; one thread)
    auto relocate = [&](auto &tot, auto d, int32_t u, int32_t cu, int32_t c, int64_t &moved) {
        tot[cu] -= d;
        tot[c] += d;
        cw[cu] -= g.vw[u];
        cw[c] += g.vw[u];
        comm[u] = c;
        ++moved;
        if (prune) activate_neighbours(u);
    };
    double pass_start = 0.0;
    auto begin_pass = [&] {
        if (prof) pass_start = now_seconds();
    };
    auto end_pass = [&](int64_t rated, int64_t moved, int64_t pass_gain) {
        if (!prof) return;
        LouvainPass p;
        p.rated = rated;
        p.moved = moved;
        p.estimated_gain = 2.0 * static_cast<double>(pass_gain) * unscale / m2;
        p.seconds = now_seconds() - pass_start;
        p.modularity = level_modularity(g, comm, resolution);
        prof->passes.push_back(p);
    };
    // every vertex starts alone (comm is the identity)
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) cw[u] = g.vw[u];
    bool any = false;
    if (!parallel && !async_level) {
        std::vector<double> tot(deg);
        for (int64_t pass = 0; pass < max_passes; ++pass) {
            begin_pass();
            int64_t moved = 0, rated = 0, pass_gain = 0;
            for (int64_t i = 0; i < n; ++i) {
                const int32_t u = order[i];
                if (i + kPrefetchRows < n) {  // the order is random: fetch the rows ahead
                    const int32_t v = order[i + kPrefetchRows];
                    __builtin_prefetch(&g.ptr[v]);
                    if (prune) __builtin_prefetch(&active[v]);
                    __builtin_prefetch(&deg[v]);
                }
                if (i + kPrefetchRows / 2 < n) {
                    const int32_t v = order[i + kPrefetchRows / 2];
                    __builtin_prefetch(g.adj.data() + g.ptr[v]);
                    __builtin_prefetch(g.w.data() + g.ptr[v]);
                }
                if (prune) {
                    if (!active[u]) continue;
                    active[u] = 0;
                }
                ++rated;
                const double du = resolution * deg[u] / m2;
                const int32_t cu = comm[u];
                double gain = 0.0;
                const int32_t best = best_community(
                    g, comm, [&](int32_t c) { return tot[c]; }, cw, u, tot[cu] - deg[u], du,
                    max_weight, scratch[0], gain);
                if (best == cu) {  // (the totals' rounding as ever)
                    tot[cu] -= deg[u];
                    tot[cu] += deg[u];
                    continue;
                }
                relocate(tot, deg[u], u, cu, best, moved);
                pass_gain += fixed(gain);
            }
            end_pass(rated, moved, pass_gain);
            any = any || moved > 0;
            if (moved <= static_cast<int64_t>(min_move_fraction * static_cast<double>(n))) break;
            if (gained_little(pass_gain)) break;
        }
        return any;
    }
    std::vector<int64_t> fdeg(static_cast<size_t>(n)), tot(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) tot[u] = fdeg[u] = fixed(deg[u]);
    auto tot_of = [&](int32_t c) { return static_cast<double>(tot[c]) * unscale; };
    if (async_level) {
        // asynchronous passes: the threads take chunks of the seeded order, each vertex
        // chooses against the communities as the other threads leave them and moves at once;
        // a move into a capped community reserves its weight by a compare-and-swap, so the
        // cap holds whatever the interleaving (which the result depends on)
        auto load_tot = [&](int32_t c) {
            return static_cast<double>(__atomic_load_n(&tot[c], __ATOMIC_RELAXED)) * unscale;
        };
        for (int64_t pass = 0; pass < max_passes; ++pass) {
            begin_pass();
            int64_t moved = 0, rated = 0, pass_gain = 0;
#pragma omp parallel num_threads(threads) reduction(+ : moved, rated, pass_gain)
            {
                MoveScratch &sc = scratch[static_cast<size_t>(thread_id())];
#pragma omp for schedule(dynamic, kLouvainAsyncChunk) nowait
                for (int64_t i = 0; i < n; ++i) {
                    const int32_t u = order[i];
                    if (prune) {
                        if (!__atomic_load_n(&active[u], __ATOMIC_RELAXED)) continue;
                        __atomic_store_n(&active[u], char(0), __ATOMIC_RELAXED);
                    }
                    ++rated;
                    const int32_t cu = comm[u];  // only this thread writes comm[u]
                    const double du = resolution * deg[u] / m2;
                    const double tot_cu = static_cast<double>(
                        __atomic_load_n(&tot[cu], __ATOMIC_RELAXED) - fdeg[u]) * unscale;
                    double gain = 0.0;
                    const int32_t c = best_community(g, comm, load_tot, cw, u, tot_cu, du,
                                                     max_weight, sc, gain);
                    if (c == cu) continue;
                    if (max_weight > 0) {
                        int64_t cur = __atomic_load_n(&cw[c], __ATOMIC_RELAXED);
                        bool room = false;
                        while (cur + g.vw[u] <= max_weight) {
                            if (__atomic_compare_exchange_n(&cw[c], &cur, cur + g.vw[u], true,
                                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                                room = true;
                                break;
                            }
                        }
                        if (!room) continue;  // filled meanwhile
                    } else {
                        __atomic_fetch_add(&cw[c], g.vw[u], __ATOMIC_RELAXED);
                    }
                    __atomic_fetch_add(&cw[cu], -g.vw[u], __ATOMIC_RELAXED);
                    __atomic_fetch_add(&tot[cu], -fdeg[u], __ATOMIC_RELAXED);
                    __atomic_fetch_add(&tot[c], fdeg[u], __ATOMIC_RELAXED);
                    __atomic_store_n(&comm[u], c, __ATOMIC_RELAXED);
                    ++moved;
                    pass_gain += fixed(gain);
                    if (prune) activate_neighbours(u);
                }
            }
            end_pass(rated, moved, pass_gain);
            any = any || moved > 0;
            if (moved <= static_cast<int64_t>(min_move_fraction * static_cast<double>(n))) break;
            if (gained_little(pass_gain)) break;
        }
        return any;
    }
    const int64_t slice = (n + sub_rounds - 1) / sub_rounds;
    // target[i]: the community the i-th vertex of the order moves to (kStay: none; ~c: its move
    // into c waits for the in-order pass); arrive[c]: the weight of the slice's moves into c
    // (max_weight > 0). One thread: plain adds (the same integers).
    constexpr int32_t kStay = INT32_MAX;
    const bool atomic = threads > 1;
    auto add = [atomic](int64_t &x, int64_t v) {
        if (atomic) __atomic_fetch_add(&x, v, __ATOMIC_RELAXED);
        else x += v;
    };
    std::vector<int32_t> target(static_cast<size_t>(n));
    // the gain of the move target[i] (fixed point), where the stopping rule or profile reads it
    const bool gains = min_pass_gain > 0.0 || prof != nullptr;
    std::vector<int64_t> move_gain(gains ? static_cast<size_t>(n) : 0, 0);
    std::vector<int64_t> arrive(max_weight > 0 ? static_cast<size_t>(n) : 0, 0);
    // waiting[k % 3]: the moves of the k-th slice that wait for the in-order pass (three
    // counters: the k-th slice's is read after its moves while the next slice's is being
    // cleared, and written from the slice after that on)
    int64_t waiting[3] = {0, 0, 0};
    for (int64_t pass = 0; pass < max_passes; ++pass) {
        begin_pass();
        int64_t moved = 0, rated = 0, pass_gain = 0;
        waiting[0] = waiting[1] = waiting[2] = 0;
        // one parallel region per pass (the threads meet at two or three barriers per
        // sub-round instead of starting a team per sub-round); with barrier_spin_us > 0 at a
        // SpinBarrier's, else at OpenMP's
        SpinBarrier barrier(threads, barrier_spin_us);
#pragma omp parallel num_threads(threads) reduction(+ : moved, rated, pass_gain)
        {
#ifdef _OPENMP
            if (barrier_spin_us > 0) {  // the team's size (OpenMP's barriers need no setup)
#pragma omp single
                barrier.reset(omp_get_num_threads());
            }
#endif
            auto sync = [&] {
                if (barrier_spin_us > 0) {
                    barrier.wait();
                    return;
                }
#pragma omp barrier
            };
            MoveScratch &sc = scratch[static_cast<size_t>(thread_id())];
            for (int64_t s0 = 0, k = 0; s0 < n; s0 += slice, ++k) {
                const int64_t s1 = std::min(n, s0 + slice);
                int64_t &wait = waiting[k % 3];
#pragma omp single nowait
                waiting[(k + 1) % 3] = 0;
#pragma omp for schedule(dynamic, 64) nowait
                for (int64_t i = s0; i < s1; ++i) {
                    const int32_t u = order[i];
                    target[i] = kStay;
                    if (prune) {
                        if (!active[u]) continue;
                        active[u] = 0;
                    }
                    ++rated;
                    const int32_t cu = comm[u];
                    const double du = resolution * deg[u] / m2;
                    double gain = 0.0;
                    const int32_t c =
                        best_community(g, comm, tot_of, cw, u,
                                       static_cast<double>(tot[cu] - fdeg[u]) * unscale, du,
                                       max_weight, sc, gain);
                    if (c == cu) continue;
                    target[i] = c;
                    if (gains) move_gain[i] = fixed(gain);
                    if (max_weight > 0) add(arrive[c], g.vw[u]);
                }
                sync();
                if (max_weight > 0) {
                    // the moves into a community that all of the slice's arrivals would
                    // overfill wait for the in-order pass
                    int64_t waits = 0;
#pragma omp for schedule(static) nowait
                    for (int64_t i = s0; i < s1; ++i) {
                        const int32_t c = target[i];
                        if (c != kStay && cw[c] + arrive[c] > max_weight) {
                            target[i] = ~c;
                            ++waits;
                        }
                    }
                    sync();
                    if (waits > 0) __atomic_fetch_add(&wait, waits, __ATOMIC_RELAXED);
                }
#pragma omp for schedule(dynamic, 64) nowait
                for (int64_t i = s0; i < s1; ++i) {
                    if (target[i] == kStay) continue;
                    const int32_t c = target[i] < 0 ? ~target[i] : target[i];
                    if (max_weight > 0) __atomic_store_n(&arrive[c], int64_t(0), __ATOMIC_RELAXED);
                    if (target[i] < 0) continue;
                    const int32_t u = order[i], cu = comm[u];
                    add(tot[cu], -fdeg[u]);
                    add(tot[c], fdeg[u]);
                    add(cw[cu], -g.vw[u]);
                    add(cw[c], g.vw[u]);
                    comm[u] = c;
                    ++moved;
                    if (gains) pass_gain += move_gain[i];
                    if (prune) activate_neighbours(u);
                }
                sync();
                // every thread reads the same count here (written before the last barrier)
                if (__atomic_load_n(&wait, __ATOMIC_RELAXED) == 0) continue;
                if (thread_id() == 0) {
                    for (int64_t i = s0; i < s1; ++i) {
                        if (target[i] >= 0) continue;  // stays, or moved
                        const int32_t u = order[i], cu = comm[u], c = ~target[i];
                        if (cw[c] + g.vw[u] <= max_weight) {
                            relocate(tot, fdeg[u], u, cu, c, moved);
                            if (gains) pass_gain += move_gain[i];
                        }
                    }
                }
                sync();
            }
        }
        end_pass(rated, moved, pass_gain);
        any = any || moved > 0;
        if (moved <= static_cast<int64_t>(min_move_fraction * static_cast<double>(n))) break;
        if (gained_little(pass_gain)) break;
    }
    return any;
}

// Renumbers comm (ids below `bound`, default its size) densely, by smallest member id order;
// returns the number of communities. (In parallel: each community's smallest member, then
// those members in id order.)
int64_t renumber(std::vector<int32_t> &comm, int64_t bound = -1) {
    const int64_t n = static_cast<int64_t>(comm.size());
    if (bound < 0) bound = n;
    std::vector<int32_t> first(static_cast<size_t>(bound), static_cast<int32_t>(n));
    {
        int32_t *f = first.data();
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
        for (int64_t u = 0; u < n; ++u) {
            int32_t *slot = f + comm[u];
            int32_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
            while (u < cur && !__atomic_compare_exchange_n(slot, &cur, static_cast<int32_t>(u),
                                                           true, __ATOMIC_RELAXED,
                                                           __ATOMIC_RELAXED)) {
            }
        }
    }
    const std::vector<int32_t> heads =
        parallel_select(n, [&](int64_t u) { return first[comm[u]] == u; });
    const int64_t nc = static_cast<int64_t>(heads.size());
    std::vector<int32_t> id(static_cast<size_t>(bound), -1);
#pragma omp parallel for schedule(static) if (nc >= kParallelMinLightItems)
    for (int64_t i = 0; i < nc; ++i) id[comm[heads[i]]] = static_cast<int32_t>(i);
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) comm[u] = id[comm[u]];
    return nc;
}

// The graph of the communities: rows in community order, neighbours ascending, self loops summed
// in member order (iteration t builds the rows of the t-th contiguous slice of communities: the
// same graph whatever the threads).
WGraph aggregate(const WGraph &g, const std::vector<int32_t> &comm, int64_t nc) {
    WGraph a = without_arcs(nc);
    const int64_t n = static_cast<int64_t>(comm.size());
    {
        int64_t *vw = a.vw.data();
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
        for (int64_t u = 0; u < n; ++u) {  // integer sums: any order gives the same
#pragma omp atomic
            vw[comm[u]] += g.vw[u];
        }
    }
    // members of every community, ascending: the transpose of the vertex -> community map
    std::vector<int64_t> mptr;
    std::vector<int32_t> members;
    {
        std::vector<int64_t> rows(static_cast<size_t>(n + 1));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
        for (int64_t u = 0; u <= n; ++u) rows[u] = u;
        Csr t = csr_transpose(rows.data(), n, comm.data(), nc);
        mptr = std::move(t.ptr);
        members = std::move(t.ind);
    }
    const int threads = loop_threads(static_cast<int64_t>(comm.size()), kParallelMinItems);
    std::vector<std::vector<int32_t>> adj(static_cast<size_t>(threads));
    std::vector<std::vector<double>> w(static_cast<size_t>(threads));
    // one iteration per slice (as in clique_expansion: any team size builds every slice)
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        // slices of about equal member counts
        auto first = [&](int i) {
            const int64_t target = static_cast<int64_t>(comm.size()) * i / threads;
            return std::lower_bound(mptr.begin(), mptr.end() - 1, target) - mptr.begin();
        };
        const int64_t lo = first(t), hi = t + 1 == threads ? nc : first(t + 1);
        // a row's sums in a small table sized for it (RowMap; dense only for rows too long
        // for one) instead of two arrays of every community per thread (9 bytes x nc x
        // threads); the same time on 16 threads (BENCHMARKS.md, "The C++ backend on many
        // cores")
        RowMap row;
        std::vector<std::pair<int32_t, double>> sorted;
        std::vector<int32_t> ra;  // the slice's rows, moved to adj[t] / w[t] at the end (as in
        std::vector<double> rw;   // clique_expansion)
        {
            int64_t arcs = 0;  // the slice's rows hold at most its members' arcs
            for (int64_t i = mptr[lo]; i < mptr[hi]; ++i)
                arcs += g.ptr[members[i] + 1] - g.ptr[members[i]];
            ra.reserve(static_cast<size_t>(arcs));
            rw.reserve(static_cast<size_t>(arcs));
        }
        for (int64_t c = lo; c < hi; ++c) {
            int64_t bound = 0;
            for (int64_t i = mptr[c]; i < mptr[c + 1]; ++i)
                bound += g.ptr[members[i] + 1] - g.ptr[members[i]];
            row.begin(bound, nc);
            for (int64_t i = mptr[c]; i < mptr[c + 1]; ++i) {
                const int32_t u = members[i];
                a.loop[c] += g.loop[u];
                for (int64_t j = g.ptr[u]; j < g.ptr[u + 1]; ++j) {
                    const int32_t d = comm[g.adj[j]];
                    if (d == c) {
                        a.loop[c] += g.w[j];
                        continue;
                    }
                    row.add(d, g.w[j]);
                }
            }
            const std::vector<int32_t> &ids = row.ids();
            const std::vector<double> &sums = row.sums();
            sorted.resize(ids.size());
            for (size_t i = 0; i < ids.size(); ++i) sorted[i] = {ids[i], sums[i]};
            std::sort(sorted.begin(), sorted.end(),
                      [](const auto &x, const auto &y) { return x.first < y.first; });
            for (const auto &[d, x] : sorted) {
                ra.push_back(d);
                rw.push_back(x);
            }
            a.ptr[c + 1] = static_cast<int64_t>(sorted.size());
            row.end();
        }
        adj[static_cast<size_t>(t)] = std::move(ra);
        w[static_cast<size_t>(t)] = std::move(rw);
    }
    join_slices(a.ptr, adj, w, a.adj, a.w);
    return a;
}

// Multilevel Louvain on g (built in `built` seconds): local moving, then the graph of the
// communities, level after level; the community of each of g's first `keep` nodes (dense ids).
std::vector<int32_t> louvain_levels(WGraph g, double built, int64_t keep, const LouvainParams &p,
                                    std::vector<LouvainLevel> *profile) {
    // the community of every node of g (the vertices first; net nodes are dropped at the end)
    const int64_t nodes = g.n;
    std::vector<int32_t> result(static_cast<size_t>(nodes));
    std::iota(result.begin(), result.end(), 0);
    for (int64_t level = 0; level < p.max_levels && g.n > 1; ++level) {
        std::vector<int32_t> comm(static_cast<size_t>(g.n));
        std::iota(comm.begin(), comm.end(), 0);
        LouvainLevel *prof = nullptr;
        if (profile) {
            profile->emplace_back();
            prof = &profile->back();
            prof->nodes = g.n;
            prof->arcs = g.ptr[g.n];
            prof->build_seconds = built;
            prof->start_modularity = level_modularity(g, comm, p.resolution);
            prof->communities = g.n;
        }
        if (!local_moving(g, comm, p.max_passes, p.seed + level, p.min_move_fraction,
                          p.resolution, p.max_weight, p.sub_rounds, p.sub_round_min_arcs,
                          p.prune, p.min_pass_gain, prof, p.sub_round_rows_per_thread,
                          p.barrier_spin_us, p.async_moves))
            break;
        const int64_t nc = renumber(comm);
        if (prof) prof->communities = nc;
        const int64_t nr = static_cast<int64_t>(result.size());
#pragma omp parallel for schedule(static) if (nr >= kParallelMinLightItems)
        for (int64_t u = 0; u < nr; ++u) result[u] = comm[result[u]];
        if (nc == g.n) break;
        built = now_seconds();
        g = aggregate(g, comm, nc);
        built = now_seconds() - built;
    }
    result.resize(static_cast<size_t>(keep));
    renumber(result, nodes);
    return result;
}

}  // namespace

BipartiteWeight hybrid_bipartite_weight(const HgView &h) {
    int64_t max_size = 0;
#pragma omp parallel for reduction(max : max_size) schedule(static) if (h.m >= kParallelMinLightItems)
    for (int64_t e = 0; e < h.m; ++e) max_size = std::max(max_size, h.size(e));
    const double density = h.n > 0 ? static_cast<double>(h.m) / static_cast<double>(h.n) : 0.0;
    if (density < 0.75) return BipartiteWeight::degree;
    if (density < 2.0 && max_size > kBipartiteLargeNet) return BipartiteWeight::non_uniform;
    return BipartiteWeight::uniform;
}

std::vector<int32_t> louvain_communities(const HgView &h, int64_t max_net_size,
                                         int64_t max_levels, int64_t max_passes,
                                         double min_move_fraction, int64_t seed,
                                         double resolution, int64_t max_weight,
                                         int64_t sub_rounds, bool prune, CommunityGraph graph,
                                         BipartiteWeight model, double min_pass_gain,
                                         int64_t sub_round_min_arcs,
                                         std::vector<LouvainLevel> *profile,
                                         int64_t sub_round_rows_per_thread,
                                         int64_t barrier_spin_us, bool async_moves) {
    if (h.n == 0) return {};
    if (model == BipartiteWeight::hybrid) model = hybrid_bipartite_weight(h);
    double built = now_seconds();
    WGraph g = graph == CommunityGraph::bipartite ? bipartite_graph(h, max_net_size, model)
                                                  : clique_expansion(h, max_net_size);
    built = now_seconds() - built;
    return louvain_levels(std::move(g), built, h.n,
                          {max_levels, max_passes, min_move_fraction, seed, resolution,
                           max_weight, sub_rounds, prune, min_pass_gain, sub_round_min_arcs,
                           sub_round_rows_per_thread, barrier_spin_us, async_moves},
                          profile);
}

std::vector<int32_t> louvain_graph_communities(const GraphView &gv, const LouvainParams &p,
                                               std::vector<LouvainLevel> *profile) {
    if (gv.n == 0) return {};
    double built = now_seconds();
    WGraph g = graph_csr(gv);
    built = now_seconds() - built;
    return louvain_levels(std::move(g), built, gv.n, p, profile);
}

}  // namespace igp
