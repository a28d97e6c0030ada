// Exact gains of a move sequence (refine.cpp), shared by the sequence refinement and the
// parallel FM's rollback to the best prefix of its global move sequence.
#pragma once
#include <cstdint>
#include <vector>

#include "partition.h"
#include "pin_counts.h"

namespace igp {

struct SeqMove {
    int32_t u, to;
    int64_t gain;
};

// Gain of every move of the sequence seq[0..L) (distinct vertices) with every earlier move
// applied (what applying them one after the other and asking move_gain per net gives), in
// parallel over the nets of the moved vertices: a net's moves in sequence order against its pin
// counts plus the earlier moves' changes, each move's term added to gains[i]. from == nullptr:
// `phi` and `parts` hold the state before the sequence; else `phi` holds the counts after it
// and from[i] the source block of move i. `pos` (n entries, -1) and `net_mark` (m entries, 0)
// are scratch, left as found.
void sequence_gains(const HgView &h, const PinCounts &phi, int objective, const int32_t *parts,
                    const SeqMove *seq, int64_t L, std::vector<int32_t> &pos,
                    std::vector<char> &net_mark, std::vector<int64_t> &gains,
                    const int32_t *from = nullptr);

// The prefix of seq[0..L) to keep (gains[i]: the exact gain of move i, whose source block is
// from[i], or parts[seq[i].u] when from == nullptr): the first of the highest positive total
// gain (`best`, 0 and length 0 when none) among the prefixes after which every block b stays
// within max(bounds[b], before[b]) (block_ok). Returns its length; `bw` gets the block weights
// after it (from `before`).
int64_t best_balanced_prefix(const HgView &h, const SeqMove *seq, int64_t L, const int32_t *parts,
                             const int32_t *from, const std::vector<int64_t> &gains,
                             const int64_t *bounds, const std::vector<int64_t> &before,
                             std::vector<int64_t> &bw, int64_t &best);

}  // namespace igp
