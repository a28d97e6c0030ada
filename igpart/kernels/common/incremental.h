// Per-element formulas of incremental refinement (iG-kway §V.C, generalised to hypergraphs),
// shared by the C++ backend (g++) and the GPU backend (NVRTC). Phi(e, b) counts the pins of net e
// in block b; while a vertex sits in the pseudo-partition it is counted in no block.
#pragma once

#include "partition_common.h"

namespace igp {

// Block id of the pseudo-partition (a vertex there is counted in no Phi column and no block
// weight). Real blocks are 0 .. k-1.
#define IGP_PSEUDO_BLOCK (-2)

// Alg. 3 filter, hypergraph form. For a vertex in block p and one of its nets (weight w, size
// pins, phi_p pins in p including the vertex): the net is *external* when the vertex is its only
// pin in p (moving the vertex out can take p out of the net), *internal* when another pin shares
// p. For 2-pin nets this is the graph's adj_ext / adj_int.
IGP_HD igp_i64 affected_external_term(igp_i64 w, igp_i64 size, igp_i64 phi_p) {
    return (size > 1 && phi_p == 1) ? w : 0;
}
IGP_HD igp_i64 affected_internal_term(igp_i64 w, igp_i64 phi_p) { return phi_p >= 2 ? w : 0; }

// Alg. 3: a directly or indirectly affected vertex goes to the pseudo-partition when its external
// connection outweighs its internal one.
IGP_HD bool goes_to_pseudo(igp_i64 external, igp_i64 internal) { return external > internal; }

// Alg. 4 score of placing a pseudo vertex into block `to`, per net (weight w, size pins, phi_to
// pins already in `to`): the objective the net saves by finding a pin of `to` there. km1: the
// net already touches `to` (lambda does not grow); cut: additionally, every other pin is in `to`
// (the net stays uncut), counted twice. Higher is better; ties go to the lighter block.
IGP_HD igp_i64 pseudo_place_score(int objective, igp_i64 w, igp_i64 size, igp_i64 phi_to) {
    if (size < 2) return 0;
    const igp_i64 touches = phi_to > 0 ? w : 0;
    if (objective == OBJ_CUT) return touches + (phi_to == size - 1 ? 2 * w : 0);
    return touches;
}

// Whether candidate (score a, block weight wa, block ta) beats (b, wb, tb): higher score, then
// the lighter block, then the lower block id.
IGP_HD bool place_better(igp_i64 a, igp_i64 wa, igp_i32 ta, igp_i64 b, igp_i64 wb, igp_i32 tb) {
    if (a != b) return a > b;
    if (wa != wb) return wa < wb;
    return ta < tb;
}

// Order of a move list (Alg. 4: by connectivity, descending): key a before key b; ties by id.
IGP_HD bool move_before(igp_i64 score_a, igp_i32 va, igp_i64 score_b, igp_i32 vb) {
    if (score_a != score_b) return score_a > score_b;
    return va < vb;
}

}  // namespace igp
