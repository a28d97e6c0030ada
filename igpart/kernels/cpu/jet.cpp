// Jet refinement for hypergraphs (C++ reference of gpu/jet.cu): parallel candidate moves with
// Jet's negative-gain threshold, the afterburner, a balance-keeping acceptance rule, and the best
// balanced partition seen. Deterministic: every parallel loop writes only its own elements and
// every order is a total order, so the result does not depend on the thread count.
#include <algorithm>
#include <numeric>
#include <vector>

#include "jet.h"
#include "partition.h"
#include "pin_counts.h"
#include "refine_impl.h"

namespace igp {

namespace {

struct JetScratch {  // per-thread block tables of the candidate search
    std::vector<int64_t> tp, conn;
    std::vector<char> mark;
    std::vector<int32_t> touched;
    explicit JetScratch(int32_t k)
        : tp(static_cast<size_t>(k), 0), conn(static_cast<size_t>(k), 0),
          mark(static_cast<size_t>(k), 0) {}
};

// Step 1 for one vertex: its best target and gain (target -1 when it is no candidate).
void jet_candidate(const HgView &h, const PinCounts &phi, const int32_t *parts, int objective,
                   double c, int32_t u, JetScratch &sc, int32_t &target, int64_t &gain) {
    const int32_t s = parts[u];
    int64_t base = 0, internal = 0;
    sc.touched.clear();
    for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
        const int32_t e = h.vind[j];
        const int64_t size = h.size(e);
        if (size < 2) continue;
        const int64_t w = h.ewgt[e];
        const int64_t pf = phi.get(e, s);
        base += move_gain(objective, w, size, pf, 0);
        internal += jet_internal_term(w, size, pf);
        const int32_t lam = phi.lambda(e);
        const int32_t *bl = phi.blocks(e);
        const int32_t *ct = phi.counts(e);
        for (int32_t i = 0; i < lam; ++i) {
            const int32_t b = bl[i];
            if (b == s) continue;
            if (!sc.mark[b]) {
                sc.mark[b] = 1;
                sc.tp[b] = 0;
                sc.conn[b] = 0;
                sc.touched.push_back(b);
            }
            sc.tp[b] += move_gain_target_part(objective, w, size, pf, ct[i]);
            sc.conn[b] += jet_connection_term(w, size, ct[i]);
        }
    }
    int32_t bb = -1;
    int64_t bg = 0, bc = 0;
    for (int32_t b : sc.touched) {
        sc.mark[b] = 0;
        const int64_t g = base + sc.tp[b];
        if (bb < 0 || jet_target_better(g, sc.conn[b], b, bg, bc, bb)) {
            bb = b;
            bg = g;
            bc = sc.conn[b];
        }
    }
    target = bb >= 0 && jet_is_candidate(bg, internal, c) ? bb : -1;
    gain = target >= 0 ? bg : 0;
}

}  // namespace

int64_t refine_jet(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds, int objective,
                   const JetOptions &opt, const uint8_t *fixed) {
    const int64_t n = h.n;
    if (n == 0 || h.m == 0 || opt.max_iterations <= 0) return 0;
    std::vector<int32_t> cur(parts, parts + n);
    std::vector<int64_t> bw = weights_of(n, h.vwgt, cur.data(), k);
    std::vector<char> locked(static_cast<size_t>(n), 0);
    std::vector<int32_t> target(static_cast<size_t>(n), -1);
    std::vector<int64_t> gain(static_cast<size_t>(n), 0);
    std::vector<int64_t> rank(static_cast<size_t>(n), INT64_MAX);
    PinCounts phi(h, cur.data());
    const int64_t initial = objective_of(h, phi, objective);
    int64_t best = initial, ref = initial, since = 0, prev_moved = 0;
    std::vector<int32_t> cand, sorted_to;
    std::vector<unsigned int> hsh;
    std::vector<char> keep, active, ok;
    std::vector<int64_t> out(static_cast<size_t>(k)), inflow;
    std::vector<char> bmark(static_cast<size_t>(n), 0);
    std::vector<int32_t> boundary, moved_u, moved_from;
    for (int64_t it = 0; it < opt.max_iterations; ++it) {
        // 1. candidates (read-only on the state: parallel), among the boundary vertices only
        //    (pins of nets in two or more blocks, ascending): any other vertex has no block but
        //    its own on its nets, so no target (the GPU's jet_boundary path does the same)
#pragma omp parallel for schedule(dynamic, 2048) if (n >= kParallelMinItems)
        for (int64_t u = 0; u < n; ++u) {
            char b = 0;
            for (int64_t j = h.vptr[u]; j < h.vptr[u + 1] && !b; ++j)
                b = phi.lambda(h.vind[j]) > 1;
            bmark[u] = b;
        }
        boundary.clear();
        for (int64_t u = 0; u < n; ++u)
            if (bmark[u]) boundary.push_back(static_cast<int32_t>(u));
        const int64_t nb = static_cast<int64_t>(boundary.size());
#pragma omp parallel if (nb >= kParallelMinItems)
        {
            JetScratch sc(k);
#pragma omp for schedule(dynamic, 1024)
            for (int64_t i = 0; i < nb; ++i) {
                const int32_t u = boundary[i];
                if (locked[u] || (fixed && fixed[u])) {
                    target[u] = -1;
                    gain[u] = 0;
                    continue;
                }
                jet_candidate(h, phi, cur.data(), objective, opt.negative_gain_factor, u, sc,
                              target[u], gain[u]);
            }
        }
        cand.clear();
        for (int32_t u : boundary)
            if (target[u] >= 0) cand.push_back(u);
        const int64_t L = static_cast<int64_t>(cand.size());
        hsh.resize(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (L >= kParallelMinItems)
        for (int64_t i = 0; i < L; ++i) hsh[cand[i]] = jet_hash(opt.seed, it, cand[i]);
        parallel_sort(cand.begin(), cand.end(), [&](int32_t a, int32_t b) {
            return jet_priority_before(gain[a], hsh[a], a, gain[b], hsh[b], b);
        });
#pragma omp parallel for schedule(static) if (L >= kParallelMinItems)
        for (int64_t i = 0; i < L; ++i) rank[cand[i]] = i;
        // 2. afterburner: gains with every higher-priority candidate moved (parallel, read-only)
        keep.assign(static_cast<size_t>(L), 0);
#pragma omp parallel for schedule(dynamic, 256) if (L >= kParallelMinItems)
        for (int64_t i = 0; i < L; ++i) {
            const int32_t u = cand[i], from = cur[u], to = target[u];
            int64_t g = 0;
            for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
                const int32_t e = h.vind[j];
                const int64_t size = h.size(e);
                if (size < 2) continue;
                int64_t pf = 0, pt = 0;
                if (size > opt.afterburner_max_net_size) {
                    pf = phi.get(e, from);
                    pt = phi.get(e, to);
                } else {
                    for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q) {
                        const int32_t v = h.eind[q];
                        const int32_t b = jet_pin_block(rank[v], i, target[v], cur[v]);
                        pf += b == from;
                        pt += b == to;
                    }
                }
                g += move_gain(objective, h.ewgt[e], size, pf, pt);
            }
            keep[i] = jet_keep(g);
        }
        for (int32_t u : cand) rank[u] = INT64_MAX;
        // 3. balance: per destination block, kept moves in priority order while jet_accept holds
        //    with the outflow of the moves still in play; rounds repeat it (a rejected move no
        //    longer leaves its block); a final check falls back to no outflow credit.
        sorted_to.resize(static_cast<size_t>(L));
        std::iota(sorted_to.begin(), sorted_to.end(), 0);
        parallel_sort(sorted_to.begin(), sorted_to.end(), [&](int32_t a, int32_t b) {
            const int32_t ta = target[cand[a]], tb = target[cand[b]];
            return ta != tb ? ta < tb : a < b;  // stable by target
        });
        active = keep;
        inflow.assign(static_cast<size_t>(L), 0);
        auto pass = [&](bool credit_out) {  // active &= accept; returns whether it changed
            std::fill(out.begin(), out.end(), 0);
            if (credit_out)
                for (int64_t i = 0; i < L; ++i)
                    if (active[i]) out[cur[cand[i]]] += h.vwgt[cand[i]];
            int64_t run = 0;
            int32_t blk = -1;
            bool changed = false;
            for (int64_t q = 0; q < L; ++q) {
                const int32_t i = sorted_to[q], b = target[cand[i]];
                if (b != blk) {
                    blk = b;
                    run = 0;
                }
                if (active[i]) run += h.vwgt[cand[i]];
                if (active[i] && !jet_accept(bw[b], out[b], run, bounds[b])) {
                    active[i] = 0;
                    changed = true;
                }
            }
            return changed;
        };
        for (int64_t r = 0; r < opt.balance_rounds; ++r) pass(true);
        ok = active;
        if (pass(true)) {
            active = ok;
            pass(false);
        }
        // apply; the moved vertices are locked in the next iteration
        int64_t moved = 0, moved_pins = 0;
        for (int32_t u : moved_u) locked[u] = 0;  // the previous iteration's locks
        moved_u.clear();
        moved_from.clear();
        for (int64_t i = 0; i < L; ++i) {
            if (!active[i]) continue;
            const int32_t u = cand[i], from = cur[u], to = target[u];
            cur[u] = to;
            bw[from] -= h.vwgt[u];
            bw[to] += h.vwgt[u];
            locked[u] = 1;
            moved_u.push_back(u);
            moved_from.push_back(from);
            moved_pins += h.vptr[u + 1] - h.vptr[u];
            ++moved;
        }
        if (moved == 0 && prev_moved == 0) break;  // nothing moved twice: a fixed point
        prev_moved = moved;
        // the pin counts of the moved vertices' nets (a net's (block, count) pairs may end up in
        // another order than a recount gives; nothing depends on that order), or a recount
        if (moved && 4 * moved_pins < h.eptr[h.m]) {
            for (int64_t i = 0; i < moved; ++i) {
                const int32_t u = moved_u[i];
                for (int64_t j = h.vptr[u]; j < h.vptr[u + 1]; ++j) {
                    phi.dec(h.vind[j], moved_from[i]);
                    phi.inc(h.vind[j], cur[u]);
                }
            }
        } else if (moved) {
            phi.rebuild(cur.data());
        }
        // 4. the best partition seen; patience
        const int64_t o = objective_of(h, phi, objective);
        if (o < best) {
            if (static_cast<double>(ref - o) > opt.min_improvement * static_cast<double>(ref)) {
                since = 0;
                ref = o;
            } else {
                ++since;
            }
            best = o;
            std::copy(cur.begin(), cur.end(), parts);
        } else {
            ++since;
        }
        if (since >= opt.patience) break;
    }
    return initial - best;
}

}  // namespace igp
