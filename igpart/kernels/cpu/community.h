// Community detection (Louvain on the clique expansion) used to restrict coarsening.
#pragma once
#include <cstdint>
#include <vector>

#include "partition.h"

namespace igp {

// Community id (dense, 0..) of every vertex: multilevel Louvain on the clique expansion of h
// (edge weight sum of w_e / (|e| - 1) over shared nets of 2..max_net_size pins). At most
// max_levels aggregation levels and max_passes local-moving passes per level; a level stops
// when a pass moves at most min_move_fraction of its vertices. `resolution` (> 0) scales the
// modularity null model: above 1, communities are smaller. With max_weight > 0 no vertex joins
// a community whose vertex weight would exceed max_weight. sub_rounds > 0: parallel local moving
// in synchronous sub-rounds; prune: a vertex is rated again only once a neighbour has moved.
// Deterministic for a seed (whatever the threads).
std::vector<int32_t> louvain_communities(const HgView &h, int64_t max_net_size,
                                         int64_t max_levels, int64_t max_passes,
                                         double min_move_fraction, int64_t seed,
                                         double resolution = 1.0, int64_t max_weight = 0,
                                         int64_t sub_rounds = 0, bool prune = false);

}  // namespace igp
