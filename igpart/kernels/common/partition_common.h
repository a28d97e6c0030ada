// Per-element formulas of the multilevel partitioners, shared by the C++ backend (g++) and the
// GPU backend (NVRTC). No STL, no host-only headers: plain arithmetic on igp_i64 / igp_i32.
#pragma once

#include "igpart_common.h"

namespace igp {

// Objective codes passed to kernels.
enum { OBJ_CUT = 0, OBJ_KM1 = 1 };

// ----------------------------------------------------------------------------------- hashing
// A 32-bit mix of (seed, a, b): the deterministic tie-breaker of ratings and orders.
IGP_HD unsigned int tie_hash(igp_i64 seed, igp_i64 a, igp_i64 b) {
    unsigned long long x = (unsigned long long)seed * 0x9E3779B97F4A7C15ULL;
    x ^= (unsigned long long)a + 0x632BE59BD9B4E019ULL + (x << 6) + (x >> 2);
    x ^= (unsigned long long)b + 0x85EBCA77C2B2AE63ULL + (x << 6) + (x >> 2);
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return (unsigned int)(x & 0xFFFFFFFFULL);
}

// ----------------------------------------------------------------------------------- coarsening
// Contribution of one shared net of `size` pins and weight `w` to the rating of a vertex pair
// (HyperG §3.1, heavy-edge rating): w / (|e| - 1). Nets of < 2 pins contribute nothing.
IGP_HD double rating_term(igp_i64 w, igp_i64 size) {
    return size > 1 ? (double)w / (double)(size - 1) : 0.0;
}

// Whether rating `a` (towards a neighbour of weight wa, hash ha) beats rating `b` (wb, hb):
// higher rating first, then the lighter neighbour, then the smaller hash.
IGP_HD bool rating_better(double a, igp_i64 wa, unsigned int ha, double b, igp_i64 wb,
                          unsigned int hb) {
    if (a != b) return a > b;
    if (wa != wb) return wa < wb;
    return ha < hb;
}

// G-kway §3.1 edge score s(u, v) = c * w(u, v) - deg(v), with c > max degree so that the edge
// weight decides first and the lower-degree neighbour wins ties.
IGP_HD igp_i64 graph_score(igp_i64 c, igp_i64 w, igp_i64 deg_v) { return c * w - deg_v; }

// 64-bit group combination of HyperG Alg. 1: group id in the high half, join iteration in the low.
IGP_HD igp_i64 group_comb(igp_i64 group, igp_i64 iteration) {
    return (igp_i64)(((unsigned long long)group << 32) | (unsigned long long)(iteration & 0xFFFFFFFF));
}

// ----------------------------------------------------------------------------------- gains
// Gain (objective decrease) contributed by one net of weight w and `size` pins when one of its
// pins moves from block `from` to block `to`; phi_from counts the pins in `from` *including* the
// moving pin, phi_to the pins in `to` before the move.
//   cut: w * ([net cut before] - [net cut after]) = w * ([phi_from < size] - [phi_to + 1 < size])
//   km1: w * ([phi_from == 1] - [phi_to == 0])
IGP_HD igp_i64 move_gain(int objective, igp_i64 w, igp_i64 size, igp_i64 phi_from, igp_i64 phi_to) {
    if (size < 2) return 0;
    if (objective == OBJ_CUT) return w * ((igp_i64)(phi_from < size) - (igp_i64)(phi_to + 1 < size));
    return w * ((igp_i64)(phi_from == 1) - (igp_i64)(phi_to == 0));
}

// Part of move_gain that depends on the target block: move_gain(phi_to) - move_gain(0).
// Zero when phi_to == 0, never negative: cut: w * [phi_to == size - 1]; km1: w * [phi_to > 0].
IGP_HD igp_i64 move_gain_target_part(int objective, igp_i64 w, igp_i64 size, igp_i64 phi_from,
                                     igp_i64 phi_to) {
    return move_gain(objective, w, size, phi_from, phi_to) - move_gain(objective, w, size, phi_from, 0);
}

// Whether moving a pin of a net from block `from` (phi_from pins there before the move, the
// moving pin included) to block `to` (phi_to pins before) can change the gain of any other pin of
// the net. cut: gains depend on phi == size and phi == size - 1; km1: on phi <= 1 and phi == 0.
IGP_HD bool move_changes_gains(int objective, igp_i64 size, igp_i64 phi_from, igp_i64 phi_to) {
    if (objective == OBJ_CUT) return phi_from >= size - 1 || phi_to >= size - 2;
    return phi_from <= 2 || phi_to <= 1;
}

// Gain on the edge cut of moving u from its block to block b: ed(u, b) - id(u).
IGP_HD igp_i64 graph_move_gain(igp_i64 ext_degree_to_b, igp_i64 internal_degree) {
    return ext_degree_to_b - internal_degree;
}

// Whether a block of weight `w` after a move respects its bound, allowing a block that was
// already above its bound before the round to stay at (not above) its old weight.
IGP_HD bool block_ok(igp_i64 w, igp_i64 bound, igp_i64 weight_before_round) {
    return w <= bound || w <= weight_before_round;
}

}  // namespace igp
