// Graph refinement: independent-set refinement (G-kway §3.2) with the longest balanced prefix,
// rebalancing, edge cut.
#include <algorithm>

#include "partition.h"
#include "partition_common.h"
#include "refine_impl.h"

namespace igp {

namespace {

// Connectivity of u to every block its neighbours touch (scratch), and its internal degree.
struct GraphScratch {
    std::vector<int64_t> conn;
    std::vector<char> mark;
    std::vector<int32_t> touched;
    explicit GraphScratch(int32_t k) : conn(static_cast<size_t>(k), 0), mark(static_cast<size_t>(k), 0) {}
};

int64_t collect_graph(const GraphView &g, const int32_t *parts, int32_t u, GraphScratch &sc) {
    const int32_t s = parts[u];
    int64_t internal = 0;
    sc.touched.clear();
    for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j) {
        const int32_t b = parts[g.adjncy[j]];
        if (b == s) {
            internal += g.adjwgt[j];
            continue;
        }
        if (!sc.mark[b]) {
            sc.mark[b] = 1;
            sc.conn[b] = 0;
            sc.touched.push_back(b);
        }
        sc.conn[b] += g.adjwgt[j];
    }
    return internal;
}

void clear_graph(GraphScratch &sc) {
    for (int32_t b : sc.touched) sc.mark[b] = 0;
}

}  // namespace

int64_t graph_edge_cut(const GraphView &g, const int32_t *parts) {
    int64_t cut = 0;  // an integer sum: the same on any number of threads
#pragma omp parallel for schedule(static) reduction(+ : cut) if (g.n >= kParallelMinLightItems)
    for (int64_t u = 0; u < g.n; ++u)
        for (int64_t j = g.xadj[u]; j < g.xadj[u + 1]; ++j)
            if (parts[g.adjncy[j]] != parts[u]) cut += g.adjwgt[j];
    return cut / 2;
}

int64_t refine_graph_independent(const GraphView &g, int32_t *parts, int32_t k,
                                 const int64_t *bounds, int64_t max_rounds) {
    std::vector<int64_t> bw = weights_of(g.n, g.vwgt, parts, k);
    std::vector<int32_t> target(static_cast<size_t>(g.n), -1);
    std::vector<int64_t> gain(static_cast<size_t>(g.n), 0);
    int64_t total = 0;
    struct Cand {
        int32_t u, to;
        int64_t gain;
    };
    std::vector<Cand> moves;
    for (int64_t round = 0; round < max_rounds; ++round) {
        // legal move of every boundary vertex: highest positive gain into a block with room
#pragma omp parallel if (g.n >= kParallelMinItems)
        {
            GraphScratch sc(k);
#pragma omp for schedule(dynamic, 1024)
            for (int64_t u = 0; u < g.n; ++u) {
                const int64_t internal = collect_graph(g, parts, static_cast<int32_t>(u), sc);
                int32_t best = -1;
                int64_t bg = 0;
                for (int32_t b : sc.touched) {
                    if (bw[b] + g.vwgt[u] > bounds[b]) continue;
                    const int64_t gb = graph_move_gain(sc.conn[b], internal);
                    if (gb > 0 && (best < 0 || gb > bg || (gb == bg && b < best))) {
                        best = b;
                        bg = gb;
                    }
                }
                clear_graph(sc);
                target[u] = best;
                gain[u] = bg;
            }
        }
        // independent set: no neighbour with a legal move has a smaller id
        moves.clear();
        for (int64_t u = 0; u < g.n; ++u) {
            if (target[u] < 0) continue;
            bool keep = true;
            for (int64_t j = g.xadj[u]; j < g.xadj[u + 1] && keep; ++j) {
                const int32_t v = g.adjncy[j];
                keep = !(target[v] >= 0 && v < u);
            }
            if (keep) moves.push_back({static_cast<int32_t>(u), target[u], gain[u]});
        }
        if (moves.empty()) break;
        std::sort(moves.begin(), moves.end(), [](const Cand &a, const Cand &b) {
            return a.gain != b.gain ? a.gain > b.gain : a.u < b.u;
        });
        // longest balanced prefix (prefix sums of per-block weight deltas)
        const std::vector<int64_t> before = bw;
        std::vector<int64_t> w = bw;
        auto violates = [&](int32_t b) { return !block_ok(w[b], bounds[b], before[b]); };
        int64_t violations = 0;
        size_t best_len = 0;
        for (size_t i = 0; i < moves.size(); ++i) {
            const int32_t u = moves[i].u, from = parts[u], to = moves[i].to;
            violations -= violates(from) + violates(to);
            w[from] -= g.vwgt[u];
            w[to] += g.vwgt[u];
            violations += violates(from) + violates(to);
            if (violations == 0) best_len = i + 1;
        }
        if (best_len == 0) break;
        int64_t round_gain = 0;
        for (size_t i = 0; i < best_len; ++i) {
            const int32_t u = moves[i].u, from = parts[u], to = moves[i].to;
            bw[from] -= g.vwgt[u];
            bw[to] += g.vwgt[u];
            parts[u] = to;
            round_gain += moves[i].gain;
        }
        total += round_gain;
    }
    return total;
}

namespace {

struct GraphRebalanceOracle {
    const GraphView &g;
    const int32_t *parts;
    GraphScratch sc;
    GraphRebalanceOracle(const GraphView &g_, const int32_t *parts_, int32_t k)
        : g(g_), parts(parts_), sc(k) {}

    Move best_fitting(int32_t u, const BlockRooms &rooms) {
        const int32_t s = parts[u];
        const int64_t w = g.vwgt[u];
        const int64_t internal = collect_graph(g, parts, u, sc);
        Move best;
        int64_t best_room = 0;
        for (int32_t b : sc.touched) {
            if (!rooms.fits(b, w)) continue;
            const int64_t gb = graph_move_gain(sc.conn[b], internal);
            const int64_t r = rooms.room(b);
            if (!best.ok() || gb > best.gain ||
                (gb == best.gain && (r > best_room || (r == best_room && b < best.to)))) {
                best = {b, gb};
                best_room = r;
            }
        }
        clear_graph(sc);
        if (!best.ok()) {
            const int32_t b = rooms.most_room();
            if (b != s && rooms.fits(b, w)) best = {b, -internal};
        }
        return best;
    }
    void apply(int32_t, int32_t, int32_t) {}
};

}  // namespace

void rebalance_graph(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds) {
    GraphRebalanceOracle oracle(g, parts, k);
    rebalance_impl(g.n, g.vwgt, parts, k, bounds, oracle);
}

}  // namespace igp
