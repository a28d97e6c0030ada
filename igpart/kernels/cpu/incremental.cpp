// Incremental refinement (see incremental.h).
#include "incremental.h"

#include <algorithm>
#include <queue>

#include "partition_common.h"

namespace igp {

namespace {

uint64_t net_block_key(int32_t e, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(e)) << 32) | static_cast<uint32_t>(b);
}

}  // namespace

// ------------------------------------------------------------------------------- bookkeeping

uint32_t IncrementalRefiner::next_tick() { return ++tick_; }

void IncrementalRefiner::prepare(DynamicHypergraph &h, const IncOptions &opt) {
    h_ = &h;
    opt_ = opt;
    k_ = h.k();
    // sized to the structure's id capacity (which grows geometrically), not to the ids in use,
    // so that scratch is reallocated only when the structure itself grows
    const size_t nb = h.vertex_status().size();
    if (tick_ > UINT32_MAX / 2) {  // stamps are about to wrap: start over
        std::fill(seen_.begin(), seen_.end(), 0);
        std::fill(logged_.begin(), logged_.end(), 0);
        std::fill(locked_.begin(), locked_.end(), 0);
        tick_ = 0;
    }
    if (seen_.size() < nb) {
        const size_t cap = nb;
        seen_.resize(cap, 0);
        logged_.resize(cap, 0);
        locked_.resize(cap, 0);
        state_.resize(cap, STAY);
        orig_.resize(cap, -1);
    }
    call_ = next_tick();
    bounds_.assign(static_cast<size_t>(k_), h.max_block_weight());
    wp_ = h.block_weight();
    sa_.assign(static_cast<size_t>(k_), 0);
    sb_.assign(static_cast<size_t>(k_), 0);
    mark_.assign(static_cast<size_t>(k_), 0);
    touched_.clear();
    pcount_.clear();
    psize_.clear();
    region_.clear();
    pseudo_.clear();
    log_.clear();
    st_ = IncStats();
    st_.cut_before = h.cut();
    st_.km1_before = h.km1();
}

void IncrementalRefiner::see(int32_t v, uint8_t state) {
    seen_[v] = call_;
    state_[v] = state;
    region_.push_back(v);
    ++st_.affected;
}

void IncrementalRefiner::add_pseudo(int32_t v) {
    const int32_t s = h_->part()[v];
    state_[v] = PSEUDO;
    pseudo_.push_back(v);
    ++st_.pseudo;
    wp_[s] -= h_->vertex_weight()[v];
    h_->for_each_net(v, [&](int32_t e) {
        ++psize_[static_cast<uint64_t>(e)];
        ++pcount_[net_block_key(e, s)];
    });
}

void IncrementalRefiner::remove_pseudo(int32_t v) {
    const int32_t s = h_->part()[v];
    h_->for_each_net(v, [&](int32_t e) {
        --psize_[static_cast<uint64_t>(e)];
        --pcount_[net_block_key(e, s)];
    });
    state_[v] = PLACED;
}

void IncrementalRefiner::move(int32_t v, int32_t to) {
    const int32_t from = h_->part()[v];
    if (from == to) return;
    if (logged_[v] != call_) {
        logged_[v] = call_;
        orig_[v] = from;
        log_.push_back(v);
    }
    h_->move_vertex(v, to);
}

int32_t IncrementalRefiner::pseudo_pins(int32_t e) const {
    const int32_t *p = const_cast<ScratchMap<int32_t> &>(psize_).find(static_cast<uint64_t>(e));
    return p ? *p : 0;
}

int32_t IncrementalRefiner::pseudo_pins(int32_t e, int32_t b) const {
    const int32_t *p = const_cast<ScratchMap<int32_t> &>(pcount_).find(net_block_key(e, b));
    return p ? *p : 0;
}

// ------------------------------------------------------------------- affected vertices (Alg. 3)

int64_t IncrementalRefiner::external_minus_internal(int32_t v) {
    const DynamicHypergraph &h = *h_;
    const int32_t s = h.part()[v];
    int64_t ext = 0, in = 0;
    h.for_each_net(v, [&](int32_t e) {
        const int64_t w = h.net_weight()[e];
        if (pseudo_pins(e) == 0) {
            in += w * (h.phi(e, s) > 1);
            ext += w * (h.lambda()[e] > 1);
            return;
        }
        bool other = false;
        h.for_each_block(e, [&](int32_t b, int32_t c) {
            const int32_t cnt = c - pseudo_pins(e, b) - (b == s);
            if (cnt <= 0) return;
            if (b == s)
                in += w;
            else
                other = true;
        });
        ext += other ? w : 0;
    });
    return ext - in;
}

void IncrementalRefiner::evaluate(int32_t v, std::vector<int32_t> &passing) {
    if (seen(v)) return;
    see(v, STAY);
    if (!is_fixed(v) && external_minus_internal(v) > 0) passing.push_back(v);
}

void IncrementalRefiner::expand_from(const std::vector<int32_t> &sources,
                                     std::vector<int32_t> &passing) {
    const DynamicHypergraph &h = *h_;
    for (int32_t u : sources)
        h.for_each_net(u, [&](int32_t e) {
            if (h.net_size(e) > opt_.max_net_size) return;
            h.for_each_pin(e, [&](int32_t v) { evaluate(v, passing); });
        });
}

// ---------------------------------------------------------------------------------- balance

int32_t IncrementalRefiner::roomiest_block() const {
    int32_t best = 0;
    for (int32_t b = 1; b < k_; ++b)
        if (bounds_[b] - wp_[b] > bounds_[best] - wp_[best]) best = b;
    return best;
}

bool IncrementalRefiner::pull_for_balance() {
    auto overloaded = [&](int32_t b) { return wp_[b] > bounds_[b]; };
    auto any_overloaded = [&] {
        for (int32_t b = 0; b < k_; ++b)
            if (overloaded(b)) return true;
        return false;
    };
    if (!any_overloaded()) return true;
    const DynamicHypergraph &h = *h_;
    // Pulls candidates (in overloaded blocks) in order of decreasing adj_ext - adj_int.
    auto take = [&](std::vector<int32_t> &cands) {
        std::vector<std::pair<int64_t, int32_t>> keyed;
        for (int32_t v : cands)
            if (state_[v] != PSEUDO && overloaded(h.part()[v]) && h.vertex_weight()[v] > 0 &&
                !is_fixed(v))
                keyed.push_back({-external_minus_internal(v), v});
        std::sort(keyed.begin(), keyed.end());
        for (const auto &kv : keyed) {
            const int32_t v = kv.second;
            if (!overloaded(h.part()[v])) continue;
            add_pseudo(v);
            ++st_.pulled;
        }
        return !any_overloaded();
    };
    std::vector<int32_t> cands(region_);
    if (take(cands)) return true;
    // Breadth-first layers around the region.
    std::vector<int32_t> frontier(region_), next;
    while (!frontier.empty()) {
        next.clear();
        for (int32_t u : frontier)
            h.for_each_net(u, [&](int32_t e) {
                if (h.net_size(e) > opt_.max_net_size) return;
                h.for_each_pin(e, [&](int32_t v) {
                    if (seen(v)) return;
                    see(v, STAY);
                    next.push_back(v);
                });
            });
        if (take(next)) return true;
        frontier.swap(next);
    }
    // Last resort: every live vertex of an overloaded block.
    cands.clear();
    for (int64_t v = 0; v < h.vertex_bound(); ++v) {
        const int32_t vv = static_cast<int32_t>(v);
        if (!h.vertex_alive(v) || seen(vv) || !overloaded(h.part()[v])) continue;
        see(vv, STAY);
        cands.push_back(vv);
    }
    return take(cands);
}

// ------------------------------------------------------------------------ placement (Alg. 4)

IncrementalRefiner::Choice IncrementalRefiner::best_block(int32_t v) {
    const DynamicHypergraph &h = *h_;
    const bool cut = opt_.objective == OBJ_CUT;
    touched_.clear();
    h.for_each_net(v, [&](int32_t e) {
        const int64_t w = h.net_weight()[e];
        const int32_t ps = pseudo_pins(e);  // includes v
        const int32_t rest = h.net_size(e) - ps;
        if (rest <= 0) return;
        h.for_each_block(e, [&](int32_t b, int32_t c) {
            const int32_t cnt = c - pseudo_pins(e, b);
            if (cnt <= 0) return;
            if (!mark_[b]) {
                mark_[b] = 1;
                sa_[b] = sb_[b] = 0;
                touched_.push_back(b);
            }
            sb_[b] += w;
            if (!cut || cnt == rest) sa_[b] += w;
        });
    });
    const int64_t wv = h.vertex_weight()[v];
    Choice best;
    for (int32_t b : touched_) {
        if (wp_[b] + wv > bounds_[b]) continue;
        const bool better =
            best.to < 0 || sa_[b] > best.score ||
            (sa_[b] == best.score &&
             (sb_[b] > best.conn ||
              (sb_[b] == best.conn && (wp_[b] < wp_[best.to] || (wp_[b] == wp_[best.to] && b < best.to)))));
        if (better) best = {b, sa_[b], sb_[b]};
    }
    clear_marks();
    if (best.to < 0) {  // no connected block has room: the roomiest block, if it has
        const int32_t light = roomiest_block();
        if (wp_[light] + wv <= bounds_[light]) best = {light, 0, 0};
    }
    return best;
}

void IncrementalRefiner::place_rounds() {
    const DynamicHypergraph &h = *h_;
    struct Cand {
        int32_t v;
        Choice c;
    };
    std::vector<Cand> moves;
    for (int64_t round = 0; round < opt_.max_rounds && !pseudo_.empty(); ++round) {
        ++st_.rounds;
        // Smallest pseudo pin of each (small) net: a vertex is selected when it is that pin of
        // every one of its nets, so no two selected vertices share a net.
        minp_.clear();
        for (int32_t u : pseudo_)
            h.for_each_net(u, [&](int32_t e) {
                if (h.net_size(e) > opt_.max_net_size) return;
                int32_t &m = minp_[static_cast<uint64_t>(e)];  // u + 1, 0 when unset
                if (m == 0 || u + 1 < m) m = u + 1;
            });
        moves.clear();
        for (int32_t u : pseudo_) {
            bool selected = true;
            h.for_each_net(u, [&](int32_t e) {
                if (selected && h.net_size(e) <= opt_.max_net_size)
                    selected = *minp_.find(static_cast<uint64_t>(e)) == u + 1;
            });
            if (!selected) continue;
            const Choice c = best_block(u);
            if (c.to >= 0) moves.push_back({u, c});
        }
        if (moves.empty()) break;
        std::sort(moves.begin(), moves.end(), [](const Cand &a, const Cand &b) {
            if (a.c.score != b.c.score) return a.c.score > b.c.score;
            if (a.c.conn != b.c.conn) return a.c.conn > b.c.conn;
            return a.v < b.v;
        });
        // Longest prefix keeping every block within the bound: each move changes only its
        // target's running sum, so the prefix ends at the first move that would overflow it.
        for (const Cand &m : moves) {
            const int64_t w = h.vertex_weight()[m.v];
            if (wp_[m.c.to] + w > bounds_[m.c.to]) break;
            remove_pseudo(m.v);
            move(m.v, m.c.to);
            wp_[m.c.to] += w;
        }
        pseudo_.erase(std::remove_if(pseudo_.begin(), pseudo_.end(),
                                     [&](int32_t v) { return state_[v] != PSEUDO; }),
                      pseudo_.end());
    }
}

void IncrementalRefiner::place_rest() {
    const DynamicHypergraph &h = *h_;
    std::sort(pseudo_.begin(), pseudo_.end());
    for (int32_t u : pseudo_) {
        Choice c = best_block(u);
        if (c.to < 0) {  // no block has room: the one with the most
            c.to = roomiest_block();
            ++st_.forced;
        }
        remove_pseudo(u);
        move(u, c.to);
        wp_[c.to] += h.vertex_weight()[u];
        ++st_.sequential;
    }
    pseudo_.clear();
}

// ------------------------------------------------------------------------- local refinement

void IncrementalRefiner::clear_marks() {
    for (int32_t b : touched_) mark_[b] = 0;
}

int64_t IncrementalRefiner::collect_gains(int32_t v, int32_t s) {
    const DynamicHypergraph &h = *h_;
    const int obj = opt_.objective;
    int64_t base = 0;
    touched_.clear();
    h.for_each_net(v, [&](int32_t e) {
        const int64_t size = h.net_size(e);
        if (size < 2) return;
        const int64_t w = h.net_weight()[e];
        const int64_t pf = h.phi(e, s);
        base += move_gain(obj, w, size, pf, 0);
        if (obj == OBJ_CUT && (h.lambda()[e] != 2 || pf != 1)) return;  // no target part
        h.for_each_block(e, [&](int32_t b, int32_t c) {
            if (b == s) return;
            if (!mark_[b]) {
                mark_[b] = 1;
                sa_[b] = 0;
                touched_.push_back(b);
            }
            sa_[b] += move_gain_target_part(obj, w, size, pf, c);
        });
    });
    // blocks reached only through nets without a target part
    h.for_each_net(v, [&](int32_t e) {
        if (h.net_size(e) < 2) return;
        h.for_each_block(e, [&](int32_t b, int32_t) {
            if (b == s || mark_[b]) return;
            mark_[b] = 1;
            sa_[b] = 0;
            touched_.push_back(b);
        });
    });
    return base;
}

int64_t IncrementalRefiner::exact_gain(int32_t v, int32_t from, int32_t to) const {
    const DynamicHypergraph &h = *h_;
    int64_t g = 0;
    h.for_each_net(v, [&](int32_t e) {
        g += move_gain(opt_.objective, h.net_weight()[e], h.net_size(e), h.phi(e, from),
                       h.phi(e, to));
    });
    return g;
}

void IncrementalRefiner::local_sequence() {
    const DynamicHypergraph &h = *h_;
    struct Cand {
        int32_t v, to;
        int64_t gain;
    };
    std::vector<Cand> seq;
    for (int64_t round = 0; round < opt_.refine_rounds; ++round) {
        seq.clear();
        for (int32_t v : region_) {
            if (is_fixed(v)) continue;
            const int32_t s = h.part()[v];
            const int64_t base = collect_gains(v, s);
            Cand best{v, -1, 0};  // the best positive-gain move (ties: smaller block id)
            for (int32_t b : touched_) {
                const int64_t g = base + sa_[b];
                if (g > 0 && (g > best.gain || (g == best.gain && b < best.to))) best = {v, b, g};
            }
            clear_marks();
            if (best.to >= 0) seq.push_back(best);
        }
        if (seq.empty()) break;
        std::sort(seq.begin(), seq.end(), [](const Cand &a, const Cand &b) {
            return a.gain != b.gain ? a.gain > b.gain : a.v < b.v;
        });
        const std::vector<int64_t> before = h.block_weight();
        const std::vector<int64_t> &bw = h.block_weight();
        auto bad = [&](int32_t b) { return !block_ok(bw[b], bounds_[b], before[b]) ? 1 : 0; };
        int64_t violations = 0, cum = 0, best = 0;
        size_t best_len = 0;
        for (size_t i = 0; i < seq.size(); ++i) {
            const int32_t v = seq[i].v, to = seq[i].to, from = h.part()[v];
            cum += exact_gain(v, from, to);
            violations -= bad(from) + bad(to);
            move(v, to);
            violations += bad(from) + bad(to);
            seq[i].to = from;  // remember the source for the rollback
            if (violations == 0 && cum > best) {
                best = cum;
                best_len = i + 1;
            }
        }
        for (size_t i = seq.size(); i-- > best_len;) move(seq[i].v, seq[i].to);
        st_.seq_moves += static_cast<int64_t>(best_len);
        st_.seq_gain += best;
        if (best <= 0) break;
    }
}

void IncrementalRefiner::local_fm() {
    const DynamicHypergraph &h = *h_;
    const uint32_t lock = next_tick();
    const int64_t max_moves =
        opt_.fm_max_moves > 0 ? opt_.fm_max_moves : 4 * static_cast<int64_t>(region_.size()) + 64;
    struct Entry {
        int64_t gain;
        int32_t v, to;
        uint32_t version;
        bool operator<(const Entry &o) const { return gain != o.gain ? gain < o.gain : v > o.v; }
    };
    std::priority_queue<Entry> pq;
    ScratchMap<uint32_t> version;  // per vertex: the version of its live queue entry
    uint32_t counter = 0;
    const std::vector<int64_t> &bw = h.block_weight();
    auto best_move = [&](int32_t v) {
        const int32_t s = h.part()[v];
        const int64_t base = collect_gains(v, s);
        const int64_t wv = h.vertex_weight()[v];
        Entry best{0, v, -1, 0};
        for (int32_t b : touched_) {
            if (bw[b] + wv > bounds_[b]) continue;
            const int64_t g = base + sa_[b];
            if (best.to < 0 || g > best.gain || (g == best.gain && b < best.to)) best = {g, v, b, 0};
        }
        clear_marks();
        return best;
    };
    auto push = [&](int32_t v) {
        if (locked_[v] == lock || is_fixed(v)) return;
        Entry e = best_move(v);
        e.version = ++counter;
        version[static_cast<uint64_t>(v)] = e.version;
        if (e.to >= 0) pq.push(e);
    };
    for (int32_t v : region_) push(v);
    std::vector<std::pair<int32_t, int32_t>> moves;  // (vertex, source block)
    std::vector<int32_t> nets;
    int64_t cum = 0, best = 0, fruitless = 0;
    size_t best_len = 0;
    while (!pq.empty() && static_cast<int64_t>(moves.size()) < max_moves) {
        const Entry top = pq.top();
        pq.pop();
        const int32_t v = top.v;
        if (locked_[v] == lock || *version.find(static_cast<uint64_t>(v)) != top.version) continue;
        Entry cur = best_move(v);  // refresh lazily
        if (cur.to < 0) continue;
        if (cur.gain != top.gain || cur.to != top.to) {
            cur.version = ++counter;
            version[static_cast<uint64_t>(v)] = cur.version;
            pq.push(cur);
            continue;
        }
        const int32_t from = h.part()[v], to = cur.to;
        nets.clear();
        h.for_each_net(v, [&](int32_t e) {
            const int64_t size = h.net_size(e);
            if (size < 2 || size > opt_.max_net_size) return;
            if (move_changes_gains(opt_.objective, size, h.phi(e, from), h.phi(e, to)))
                nets.push_back(e);
        });
        move(v, to);
        locked_[v] = lock;
        moves.push_back({v, from});
        cum += cur.gain;
        if (cum > best) {
            best = cum;
            best_len = moves.size();
            fruitless = 0;
        } else if (++fruitless >= opt_.fm_max_fruitless) {
            break;
        }
        for (int32_t e : nets) h.for_each_pin(e, [&](int32_t u) { push(u); });
    }
    for (size_t i = moves.size(); i-- > best_len;) move(moves[i].first, moves[i].second);
    st_.fm_moves += static_cast<int64_t>(best_len);
    st_.fm_gain += best;
}

// ------------------------------------------------------------------------------- the driver

IncResult IncrementalRefiner::refine(DynamicHypergraph &h, const int32_t *touched_v, int64_t ntv,
                                     const int32_t *touched_e, int64_t nte, const int32_t *new_v,
                                     int64_t nnv, const IncOptions &opt, const uint8_t *fixed,
                                     int64_t nfixed, const int64_t *bounds) {
    prepare(h, opt);
    if (bounds) bounds_.assign(bounds, bounds + k_);
    fixed_ = fixed;
    nfixed_ = fixed ? nfixed : 0;
    // 1. Affected vertices and the pseudo-partition (Alg. 3).
    std::vector<int32_t> passing;
    for (int64_t i = 0; i < nnv; ++i) {
        const int32_t v = new_v[i];
        if (!h.vertex_alive(v) || seen(v)) continue;
        see(v, STAY);
        if (!is_fixed(v)) passing.push_back(v);
    }
    for (int64_t i = 0; i < ntv; ++i)
        if (h.vertex_alive(touched_v[i])) evaluate(touched_v[i], passing);
    for (int64_t i = 0; i < nte; ++i) {
        const int32_t e = touched_e[i];
        if (!h.net_alive(e) || h.net_size(e) > opt_.max_net_size) continue;
        h.for_each_pin(e, [&](int32_t v) { evaluate(v, passing); });
    }
    for (int32_t v : passing) add_pseudo(v);
    for (int32_t level = 0; level < opt_.expand && !passing.empty(); ++level) {
        std::vector<int32_t> sources;
        sources.swap(passing);
        expand_from(sources, passing);
        for (int32_t v : passing) add_pseudo(v);
    }
    // 2-3. Balance, then placement in rounds of non-adjacent vertices (Alg. 4); repeated when a
    // vertex had to go to a block without room.
    for (int attempt = 0; attempt < 4; ++attempt) {
        pull_for_balance();
        place_rounds();
        place_rest();
        bool over = false;
        for (int32_t b = 0; b < k_; ++b) over |= h.block_weight()[b] > bounds_[b];
        if (!over) break;
        wp_ = h.block_weight();
    }
    // 4. Local refinement of the affected region.
    local_sequence();
    if (opt_.fm) local_fm();

    IncResult r;
    for (int32_t v : log_)
        if (h.vertex_alive(v) && h.part()[v] != orig_[v]) {
            r.moved.push_back(v);
            r.from.push_back(orig_[v]);
        }
    st_.balanced = true;
    for (int32_t b = 0; b < k_; ++b) st_.balanced &= h.block_weight()[b] <= bounds_[b];
    r.stats = st_;
    return r;
}

}  // namespace igp
