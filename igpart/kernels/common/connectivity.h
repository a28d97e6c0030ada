// Partition bookkeeping shared by the dynamic structures of both backends: how a net's
// connectivity lambda_e (number of blocks holding at least one of its pins) enters the cut and
// km1 objectives, the balance bound, and where a new vertex goes. When a block pin count
// Phi(e, b) goes 0 -> 1 lambda_e grows by one, when it goes 1 -> 0 it shrinks by one; the
// objectives then change by term(lambda_new) - term(lambda_old).
#pragma once
#include "igpart_common.h"

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

namespace igp {

// Contribution of a net of weight w and connectivity lambda to the cut objective.
IGP_HD igp_i64 cut_term(igp_i32 lambda, igp_i64 w) { return lambda > 1 ? w : 0; }

// Contribution of a net of weight w and connectivity lambda to km1 = sum w_e * (lambda_e - 1).
IGP_HD igp_i64 km1_term(igp_i32 lambda, igp_i64 w) { return lambda > 1 ? w * (lambda - 1) : 0; }

// floor((1 + eps) * ceil(total / k)): the KaHyPar / Mt-KaHyPar bound, computed with the same
// double arithmetic as igpart.metrics.max_block_weight so both sides agree to the unit.
IGP_HD igp_i64 max_block_weight(igp_i64 total, igp_i32 k, double eps) {
    const igp_i64 perfect = total > 0 ? (total + k - 1) / k : 0;
    return (igp_i64)floor((1.0 + eps) * (double)perfect + 1e-9);
}

// The lightest block (lowest id among equals). A new vertex goes there: if any block can take it
// without exceeding the balance bound, the lightest one can.
IGP_HD igp_i32 lightest_block(const igp_i64 *block_weight, igp_i32 k) {
    igp_i32 best = 0;
    for (igp_i32 b = 1; b < k; ++b)
        if (block_weight[b] < block_weight[best]) best = b;
    return best;
}

}  // namespace igp
