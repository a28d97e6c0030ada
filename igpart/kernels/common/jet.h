// Per-element formulas of Jet refinement for hypergraphs (Gilbert, Madduri, Boman, Rajamanickam,
// "Jet: Multilevel Graph Partitioning on GPUs"), shared by the C++ backend (cpu/jet.cpp) and the
// GPU backend (gpu/jet.cu). No STL: plain arithmetic on igp_i64.
//
// One Jet iteration on a partition p with pin counts phi(e, b):
//  1. candidates: every unlocked vertex v picks its best target d != p(v) among the blocks its
//     nets touch (jet_target_better: gain, then connection, then smaller id); v is a candidate
//     when jet_is_candidate(gain, internal affinity, c).
//  2. afterburner: candidates in priority order (jet_priority_before); each one's gain is
//     recomputed with every pin of its nets placed where the higher-priority candidates send it
//     (jet_pin_block); moves whose recomputed gain is >= 0 are kept (jet_keep), as Jet does.
//  3. balance: per destination block, kept moves in priority order are accepted while
//     jet_accept holds (see cpu/jet.cpp for the rounds).
#pragma once

#include "partition_common.h"

namespace igp {

// Internal affinity contribution of one net of v: the net's weight when another of its pins is
// in v's block (phi_from counts v itself), i.e. the connection a move out of the block breaks.
IGP_HD igp_i64 jet_internal_term(igp_i64 w, igp_i64 size, igp_i64 phi_from) {
    return size >= 2 && phi_from >= 2 ? w : 0;
}

// Connection contribution of one net of v to a block holding phi_to > 0 of its pins (the
// secondary key of the target choice: under the cut objective most target parts are 0).
IGP_HD igp_i64 jet_connection_term(igp_i64 w, igp_i64 size, igp_i64 phi_to) {
    return size >= 2 && phi_to > 0 ? w : 0;
}

// Whether target block a (gain ga, connection ca) beats block b: higher gain, then higher
// connection, then the smaller block id.
IGP_HD bool jet_target_better(igp_i64 ga, igp_i64 ca, int a, igp_i64 gb, igp_i64 cb, int b) {
    if (ga != gb) return ga > gb;
    if (ca != cb) return ca > cb;
    return a < b;
}

// Jet's candidate rule: a non-negative gain, or a loss below floor(c * internal affinity).
// c * internal is truncated towards zero (= floor, both non-negative) identically on both sides.
IGP_HD bool jet_is_candidate(igp_i64 gain, igp_i64 internal, double c) {
    if (gain >= 0) return true;
    const igp_i64 threshold = (igp_i64)(c * (double)internal);
    return -gain < threshold;
}

// Tie-breaking hash of vertex v in iteration `iteration`.
IGP_HD unsigned int jet_hash(igp_i64 seed, igp_i64 iteration, igp_i64 v) {
    return tie_hash(seed, iteration, v);
}

// Priority order of candidates: higher gain first, then the smaller hash, then the smaller id.
IGP_HD bool jet_priority_before(igp_i64 ga, unsigned int ha, igp_i64 a, igp_i64 gb,
                                unsigned int hb, igp_i64 b) {
    if (ga != gb) return ga > gb;
    if (ha != hb) return ha < hb;
    return a < b;
}

// Block of pin v as seen by the afterburner of the candidate at priority position `rank_u`:
// its target when v is a candidate of higher priority (rank_v < rank_u), else its block.
IGP_HD int jet_pin_block(igp_i64 rank_v, igp_i64 rank_u, int target_v, int part_v) {
    return rank_v < rank_u ? target_v : part_v;
}

// Whether the afterburner keeps a move of recomputed gain g (Jet keeps non-negative ones).
IGP_HD bool jet_keep(igp_i64 g) { return g >= 0; }

// Balance acceptance of a move into block b: the block's weight before the iteration, minus the
// weight of the moves out of b still in play (`out`, 0 in the conservative final check), plus the
// accepted inflow up to and including this move, stays within max(bound, weight before).
IGP_HD bool jet_accept(igp_i64 before, igp_i64 out, igp_i64 inflow, igp_i64 bound) {
    const igp_i64 limit = bound > before ? bound : before;
    return before - out + inflow <= limit;
}

}  // namespace igp
