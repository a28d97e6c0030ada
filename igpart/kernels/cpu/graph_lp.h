// Graph coarsening and refinement in the style of the label-propagation graph partitioners:
// size-constrained label propagation clustering and balance-constrained label propagation
// refinement (graph_lp.cpp; the localized k-way FM that follows them: graph_fm.h). Results
// depend on the seed and the number of sub-rounds only, never on the number of threads (but for
// the asynchronous passes, whose results depend on the threads' timing).
#pragma once
#include <cstdint>
#include <vector>

#include "partition.h"

namespace igp {

// Size-constrained label propagation clustering. Every vertex starts in a cluster of its own; in up
// to `iterations` passes over a seeded order (after the first, only vertices next to one that moved
// in the pass before), a vertex joins the neighbouring cluster of highest summed edge weight whose
// weight plus its own stays within max_cluster_weight (ties: tie_hash), when that beats the weight
// towards its current cluster. A pass is cut into `sub_rounds` slices (at least one): the vertices
// of a slice choose in parallel (one thread per 1,024 vertices at most) against the clusters before
// the slice, then the ones that chose another cluster move (the moves cost in proportion to the
// movers, not to the slice, so the late passes, in which few vertices move, cost little). Slices of
// at least 16,384 vertices (while more clusters than moving vertices remain above min_clusters)
// move together, in parallel: a lone vertex stays when a vertex of higher id wants to join it, a
// move goes only to a cluster that keeps a member that stays, and a cluster takes its arrivals in
// ascending id while they fit under the cap. Smaller slices move in order while their target still
// has room. Moves stop once `min_clusters` clusters remain. When the passes leave more than half
// the vertices alone, the lone vertices that favour the same cluster are grouped (two-hop
// clustering). Fills cmap (dense ids in ascending order of the clusters' labels) and returns the
// number of clusters. A vertex of more than LabelSums::kDenseMinDegree neighbours sums their
// clusters' weights in an array of n entries per thread when n <= dense_labels, else by hashing
// (the same clusters either way).
constexpr int64_t kDenseLabelsMax = int64_t(1) << 19;  // 4 MiB of sums per thread
int64_t cluster_graph_lp(const GraphView &g, int64_t max_cluster_weight, int64_t iterations,
                         int64_t min_clusters, int64_t seed, int64_t sub_rounds,
                         UninitVector<int32_t> &cmap, int64_t dense_labels = kDenseLabelsMax);

// The same clustering without the slices: the passes run over chunks of 1,024 consecutive vertices
// in a seeded order of the chunks, on all threads at once, each vertex choosing against the
// clusters as the other threads leave them and moving at once when its target still has room
// (the room reserved with an atomic compare-and-swap; an emptied cluster is no target). The
// clusters then depend on the threads' timing (one thread: on the seed only); the caps hold
// whatever the timing. The cluster count is published once per chunk, so the moves stop at
// min_clusters give or take the other threads' chunks under way (at most 1,023 moves each).
// Two-hop clustering and the numbering as above.
int64_t cluster_graph_lp_async(const GraphView &g, int64_t max_cluster_weight,
                               int64_t iterations, int64_t min_clusters, int64_t seed,
                               UninitVector<int32_t> &cmap,
                               int64_t dense_labels = kDenseLabelsMax);

// Label propagation refinement: in up to `iterations` passes (sub-rounds as above) over the
// vertices next to a vertex that moved in the pass before (all in the first), a vertex moves to
// the adjacent block of highest connectivity that has room for it when that lowers the edge cut,
// or keeps it and makes its block lighter than the target block was. In slices of fewer than
// 16,384 vertices each move is re-checked against the current partition when applied, in the
// seeded order; larger slices apply their moves together, in parallel, by rules that read only
// the blocks before the slice and the slice's choices (the same result on any threads; a move is
// kept when it gains with every other mover of the slice in its chosen block). Returns the total
// gain: the edge cut before minus after.
int64_t refine_graph_lp(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds,
                        int64_t iterations, int64_t seed, int64_t sub_rounds);

// The same refinement without the slices, as cluster_graph_lp_async: chunks of 1,024 consecutive
// vertices in a seeded order, on all threads at once, each vertex choosing against the blocks as
// the other threads leave them and moving at once when its target still has room (reserved with
// an atomic compare-and-swap on the block's weight, so the bounds hold whatever the timing). The
// partition then depends on the threads' timing (one thread: on the seed only). Returns the total
// gain, recomputed exactly at the end: the edge cut before minus after.
int64_t refine_graph_lp_async(const GraphView &g, int32_t *parts, int32_t k,
                              const int64_t *bounds, int64_t iterations, int64_t seed);

}  // namespace igp
