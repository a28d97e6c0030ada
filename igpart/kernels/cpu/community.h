// Community detection (Louvain on the clique expansion) used to restrict coarsening.
#pragma once
#include <cstdint>
#include <vector>

#include "partition.h"

namespace igp {

// The graph Louvain runs on: the weighted clique expansion of the hypergraph, or its bipartite
// graph (a node per vertex and per net, an arc per pin).
enum class CommunityGraph { clique = 0, bipartite = 1 };
// Arc weights of the bipartite graph (Mt-KaHyPar's models): w_e, w_e / |e|, w_e * d(v) / |e|;
// hybrid picks one from the density m / n: degree below 0.75, non_uniform below 2 when a net
// has more than kBipartiteLargeNet pins, else uniform.
enum class BipartiteWeight { uniform = 0, non_uniform = 1, degree = 2, hybrid = 3 };
constexpr int64_t kBipartiteLargeNet = 1000;

// What Louvain did on one level of its graph (louvain_communities' `profile`): the graph's
// nodes and arcs, the seconds taken to build it (the clique expansion or bipartite graph on the
// first level, the aggregation of the previous level's communities on later ones), and per
// local-moving pass the nodes rated, the nodes moved, its seconds and the modularity after it
// (at the run's resolution, on this level's graph: that of the projected communities on the
// first level's graph; computed outside the pass's seconds).
struct LouvainPass {
    int64_t rated = 0, moved = 0;
    double seconds = 0.0, modularity = 0.0;
    double estimated_gain = 0.0;  // the moves' gains as their vertices rated them
};
struct LouvainLevel {
    int64_t nodes = 0, arcs = 0, communities = 0;
    bool sub_rounds = false;   // local moving in sub-rounds
    bool async_moves = false;  // local moving in asynchronous passes (neither: sequential)
    double build_seconds = 0.0, start_modularity = 0.0;
    std::vector<LouvainPass> passes;
};

// The model hybrid stands for on h.
BipartiteWeight hybrid_bipartite_weight(const HgView &h);

// Community id (dense, 0..) of every vertex: multilevel Louvain on the clique expansion of h
// (edge weight sum of w_e / (|e| - 1) over shared nets of 2..max_net_size pins), or on its
// bipartite graph (nets of 2..max_net_size pins as nodes of weight 0, arcs weighted by
// `model`; the communities of the vertex nodes are the result). At most max_levels
// aggregation levels and max_passes local-moving passes per level; a level stops when a pass
// moves at most min_move_fraction of its nodes. `resolution` (> 0) scales the modularity null
// model: above 1, communities are smaller. With max_weight > 0 no vertex joins a community
// whose vertex weight would exceed max_weight. sub_rounds > 0: parallel local moving in
// synchronous sub-rounds (on the levels whose graph has at least sub_round_min_arcs arcs;
// sequential below); prune: a node is rated again only once a neighbour has moved;
// min_pass_gain > 0: a level also ends after a pass that gained less modularity than
// min_pass_gain times the level's gain so far. sub_round_rows_per_thread > 0: a level's
// sub-rounds run on at most one thread per that many nodes of a sub-round (the others would
// only meet its barriers); 0: on every thread. barrier_spin_us > 0: the sub-rounds' threads
// meet at a SpinBarrier that spins that many microseconds before sleeping (0: OpenMP's
// barriers, which sleep at once under the module's passive wait policy); the same result.
// Deterministic for a seed (whatever the threads), unless async_moves: then the levels of at
// least kParallelMinItems nodes run on two or more threads in asynchronous passes (each vertex
// moves at once against the communities as the other threads leave them, in chunks of
// kLouvainAsyncChunk of the seeded order; the weight cap reserved by compare-and-swap), whose
// result depends on the threads' interleaving.
constexpr int64_t kLouvainAsyncChunk = 256;

// The asynchronous passes visit the vertices in runs of this many consecutive ids (the runs in
// a seeded order, the vertices of a run in a seeded order) instead of all of them in one seeded
// order, so that the rows a thread reads lie close together in memory; 0: one seeded order.
// The synchronous sub-rounds and the sequential passes keep one seeded order. Process-wide
// (seeded_run_order).
OrderRun &louvain_order_run();

// Louvain's settings past the choice of its graph (louvain_communities' of the same names).
struct LouvainParams {
    int64_t max_levels = 8, max_passes = 8;
    double min_move_fraction = 0.01;
    int64_t seed = 0;
    double resolution = 1.0;
    int64_t max_weight = 0, sub_rounds = 0;
    bool prune = false;
    double min_pass_gain = 0.0;
    int64_t sub_round_min_arcs = 0, sub_round_rows_per_thread = 0, barrier_spin_us = 0;
    bool async_moves = false;
};

std::vector<int32_t> louvain_communities(const HgView &h, int64_t max_net_size,
                                         int64_t max_levels, int64_t max_passes,
                                         double min_move_fraction, int64_t seed,
                                         double resolution = 1.0, int64_t max_weight = 0,
                                         int64_t sub_rounds = 0, bool prune = false,
                                         CommunityGraph graph = CommunityGraph::clique,
                                         BipartiteWeight model = BipartiteWeight::hybrid,
                                         double min_pass_gain = 0.0,
                                         int64_t sub_round_min_arcs = 0,
                                         std::vector<LouvainLevel> *profile = nullptr,
                                         int64_t sub_round_rows_per_thread = 0,
                                         int64_t barrier_spin_us = 0, bool async_moves = false);

// louvain_communities on a graph's own adjacency (symmetric, no self loops): the communities
// of the clique expansion of its edges as 2-pin nets (arcs of weight 0 left out), without
// building those nets or the expansion's rows.
std::vector<int32_t> louvain_graph_communities(const GraphView &g, const LouvainParams &p,
                                               std::vector<LouvainLevel> *profile = nullptr);

}  // namespace igp
