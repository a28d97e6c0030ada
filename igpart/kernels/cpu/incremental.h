// Incremental refinement of the partition held by a DynamicHypergraph after a batch of changes
// (DESIGN §4; iG-kway §V.C generalised to hypergraphs).
//
// 1. Affected vertices (Alg. 3): the vertices a batch touched, plus the pins of the nets it
//    touched. New vertices go to the pseudo-partition at once; every other affected vertex goes
//    there only when its external connectivity exceeds its internal one: with
//    adj_int(u) = sum of w_e over nets e of u with another (non-pseudo) pin in u's block and
//    adj_ext(u) = sum of w_e over nets e of u with a (non-pseudo) pin in another block, u leaves
//    when adj_ext > adj_int (for 2-pin nets these are the paper's neighbour counts). The
//    neighbours of pseudo vertices are then affected too and filtered the same way (`expand`
//    levels; the paper uses one). A pseudo vertex keeps its block in the structure (so Phi, cut
//    and km1 stay exact) but counts for no block: its weight leaves its block's weight, and its
//    pins leave the pin counts the scores below read.
// 2. Balance: a block still above the bound gives more vertices to the pseudo-partition (the
//    affected region first, least internal connectivity first, then its neighbourhood).
// 3. Placement (Alg. 4, Fig. 5): in rounds, pseudo vertices that share no net (of at most
//    max_net_size pins) with a pseudo vertex of smaller id pick their best block among blocks
//    with room: highest score (cut: weight of nets the vertex would keep uncut; km1: weight of
//    nets that already have a pin there), then highest connectivity, lighter block, smaller id.
//    Moves are sorted by score (descending) and the longest prefix that keeps every block within
//    the bound (per-block prefix sums of weight deltas) is applied. After max_rounds rounds the
//    rest are placed one at a time; a vertex no block has room for goes to the block with most
//    room, and step 2-3 repeat (bounded) to restore balance.
// 4. Local refinement of the affected region: sequence-based rounds (HyperG §3.2: positive-gain
//    moves by gain, gains recomputed in sequence, best balanced prefix kept) and one boundary FM
//    pass with rollback (moves may reach neighbours of the region).
// Work and memory per call are proportional to the affected region (scratch arrays indexed by
// vertex id are kept across calls and reset by epoch stamps, not cleared).
#pragma once
#include <cstdint>
#include <vector>

#include "dynamic.h"
#include "scratch_map.h"

namespace igp {

struct IncOptions {
    int objective = 0;           // OBJ_CUT or OBJ_KM1
    int64_t max_net_size = 64;   // larger nets neither spread "affected" nor block adjacency
    int32_t expand = 1;          // levels of neighbour expansion around pseudo vertices
    int64_t max_rounds = 32;     // placement rounds before placing the rest one at a time
    int64_t refine_rounds = 4;   // local sequence-refinement rounds
    bool fm = true;              // local FM pass
    int64_t fm_max_fruitless = 64;
    int64_t fm_max_moves = 0;    // 0: 4 * region + 64
};

struct IncStats {
    int64_t affected = 0;     // vertices evaluated (affected, expanded, pulled for balance)
    int64_t pseudo = 0;       // vertices that went through the pseudo-partition
    int64_t rounds = 0;       // placement rounds
    int64_t sequential = 0;   // pseudo vertices placed one at a time after the rounds
    int64_t forced = 0;       // placements into a block without room
    int64_t pulled = 0;       // vertices pulled into the pseudo-partition for balance
    int64_t seq_moves = 0, fm_moves = 0;
    int64_t seq_gain = 0, fm_gain = 0;
    int64_t cut_before = 0, km1_before = 0;  // maintained metrics when refine started
    bool balanced = true;
};

struct IncResult {
    std::vector<int32_t> moved;  // vertices whose block differs from the one they had on entry
    std::vector<int32_t> from;   // their block on entry
    IncStats stats;
};

class IncrementalRefiner {
   public:
    // Refines h's partition around the given seeds (ids must be live or are skipped).
    // `fixed` (optional, nfixed entries; ids beyond them are free): vertices with a non-zero
    // entry never move (they never join the pseudo-partition nor the local refinement).
    // `bounds` (optional, k entries): per-block maximum weights instead of h's epsilon bound.
    IncResult refine(DynamicHypergraph &h, const int32_t *touched_v, int64_t ntv,
                     const int32_t *touched_e, int64_t nte, const int32_t *new_v, int64_t nnv,
                     const IncOptions &opt, const uint8_t *fixed = nullptr, int64_t nfixed = 0,
                     const int64_t *bounds = nullptr);

   private:
    enum : uint8_t { STAY = 0, PSEUDO = 1, PLACED = 2 };
    DynamicHypergraph *h_ = nullptr;
    IncOptions opt_;
    int32_t k_ = 0;
    std::vector<int64_t> bounds_;  // this call's maximum weight of each block
    // The block with the most room left (bound minus weight without pseudo vertices; the
    // smallest id among equals).
    int32_t roomiest_block() const;
    std::vector<int64_t> wp_;  // block weights without pseudo vertices
    const uint8_t *fixed_ = nullptr;  // this call's fixed vertices (nfixed_ entries)
    int64_t nfixed_ = 0;
    bool is_fixed(int32_t v) const { return fixed_ && v < nfixed_ && fixed_[v]; }

    // Per-vertex scratch, valid where the stamp equals the current tick.
    uint32_t tick_ = 0, call_ = 0;
    std::vector<uint32_t> seen_, logged_, locked_;
    std::vector<uint8_t> state_;
    std::vector<int32_t> orig_;
    std::vector<int32_t> region_, pseudo_, log_;
    ScratchMap<int32_t> pcount_;  // (net, block) -> pseudo pins of the net in that block
    ScratchMap<int32_t> psize_;   // net -> pseudo pins of the net
    ScratchMap<int32_t> minp_;    // net -> smallest pseudo pin (per placement round)
    // Per-block scratch of score / gain computations.
    std::vector<int64_t> sa_, sb_;
    std::vector<char> mark_;
    std::vector<int32_t> touched_;
    IncStats st_;

    uint32_t next_tick();
    void prepare(DynamicHypergraph &h, const IncOptions &opt);
    bool seen(int32_t v) const { return seen_[v] == call_; }
    void see(int32_t v, uint8_t state);
    void add_pseudo(int32_t v);
    void remove_pseudo(int32_t v);
    void move(int32_t v, int32_t to);
    int32_t pseudo_pins(int32_t e) const;
    int32_t pseudo_pins(int32_t e, int32_t b) const;
    // adj_ext(v) - adj_int(v) against the current pseudo set (v itself not pseudo).
    int64_t external_minus_internal(int32_t v);
    void evaluate(int32_t v, std::vector<int32_t> &passing);
    void expand_from(const std::vector<int32_t> &sources, std::vector<int32_t> &passing);
    bool pull_for_balance();
    // Best block with room for pseudo vertex v: (block or -1, score, connectivity).
    struct Choice {
        int32_t to = -1;
        int64_t score = 0, conn = 0;
    };
    Choice best_block(int32_t v);
    void place_rounds();
    void place_rest();
    // Exact move gains of v to the blocks its nets touch; returns the target-independent part.
    int64_t collect_gains(int32_t v, int32_t s);
    void clear_marks();
    int64_t exact_gain(int32_t v, int32_t from, int32_t to) const;
    void local_sequence();
    void local_fm();
};

}  // namespace igp
