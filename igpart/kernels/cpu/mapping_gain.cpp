// Process mapping gain (igpart.mapping_im): the best move of every candidate vertex under the
// hierarchy's Steiner tree cost, written as cost(e) = w_e * (sum_j c_j g_j(e) + const) with g_j(e)
// the level-j groups (group of PE p: p / sizes[j]) the net touches. Moving v from PE p to q
// lowers the cost by sum over the levels j where p / sizes[j] != q / sizes[j] of
// c_j * (leave_j(v) - W(v) + conn_j(v, q / sizes[j])): leave_j the weight of v's nets in which v
// is the only pin of its level-j group, W the weight of all its nets, conn_j(v, G) the weight of
// those with a pin in group G. Candidates are the PEs v's nets touch.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bindings.h"
#include "numpy_util.h"

namespace py = pybind11;
using namespace igp;

namespace {

struct NetGroups {
    // per level: for net e, entries [eptr[e], eptr[e] + count[e]) of (group, pins in it)
    std::vector<int64_t> group;
    std::vector<int32_t> pins;
    std::vector<int32_t> count;
};

// Net groups of every level, kept up to date as vertices move, and the best move of a vertex.
struct MappingState {
    HgView h;  // vwgt: null for mapping_moves
    const int64_t *sz;
    const double *cf;
    int64_t levels;
    std::vector<NetGroups> ng;
    std::vector<int64_t> ngroups;
    std::vector<int64_t> total;  // per level: sum_e w_e g_j(e), exact

    double cost() const {
        double c = 0.0;
        for (int64_t j = 0; j < levels; ++j) c += cf[j] * static_cast<double>(total[j]);
        return c;
    }
};

// Rebuilds the group list of net e at one level from the PEs of its pins; returns its count.
inline int32_t rebuild_net(const MappingState &s, const int32_t *parts, int64_t e, int64_t size,
                           NetGroups &out, std::vector<int64_t> &g) {
    g.clear();
    for (int64_t i = s.h.eptr[e]; i < s.h.eptr[e + 1]; ++i) g.push_back(parts[s.h.eind[i]] / size);
    std::sort(g.begin(), g.end());
    int32_t c = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        if (i == 0 || g[i] != g[i - 1]) {
            out.group[s.h.eptr[e] + c] = g[i];
            out.pins[s.h.eptr[e] + c] = 0;
            ++c;
        }
        ++out.pins[s.h.eptr[e] + c - 1];
    }
    out.count[e] = c;
    return c;
}

// The groups of net e at a level of `size` PEs per group from its PE list (level 0, sorted by
// PE: the groups of consecutive entries are ascending); returns its count.
inline int32_t derive_net(const MappingState &s, int64_t e, int64_t size, NetGroups &out) {
    const NetGroups &pe = s.ng[0];
    const int64_t b = s.h.eptr[e];
    int32_t c = 0;
    for (int64_t t = b; t < b + pe.count[e]; ++t) {
        const int64_t g = pe.group[t] / size;
        if (c == 0 || out.group[b + c - 1] != g) {
            out.group[b + c] = g;
            out.pins[b + c] = 0;
            ++c;
        }
        out.pins[b + c - 1] += pe.pins[t];
    }
    out.count[e] = c;
    return c;
}

struct MoveScratch {
    std::vector<std::vector<double>> conn;  // per level: connectivity of v to each group
    std::vector<std::vector<int64_t>> touched;
    std::vector<double> leave;
    explicit MoveScratch(const MappingState &s) : conn(s.levels), touched(s.levels), leave(s.levels) {
        for (int64_t j = 0; j < s.levels; ++j) conn[j].assign(s.ngroups[j], 0.0);
    }
};

// The best move of v (PE, gain; -1 when no net of v spans several PEs).
void best_move(const MappingState &s, const int32_t *pp, int64_t v, MoveScratch &sc,
               int32_t &bq_out, double &bg_out) {
    const int64_t *vp = s.h.vptr, *ep = s.h.eptr, *sz = s.sz;
    const int32_t *vi = s.h.vind;
    bool spans = false;  // only a vertex on a net over several PEs can gain
    for (int64_t i = vp[v]; i < vp[v + 1] && !spans; ++i) spans = s.ng[0].count[vi[i]] > 1;
    if (!spans) {
        bq_out = -1;
        bg_out = 0.0;
        return;
    }
    const int64_t own = pp[v], levels = s.levels;
    double total = 0.0;
    std::fill(sc.leave.begin(), sc.leave.end(), 0.0);
    for (int64_t i = vp[v]; i < vp[v + 1]; ++i) {
        const int64_t e = vi[i];
        const double we = static_cast<double>(s.h.ewgt[e]);
        total += we;
        for (int64_t j = 0; j < levels; ++j) {
            const NetGroups &g = s.ng[j];
            const int64_t mine = own / sz[j];
            for (int64_t t = ep[e]; t < ep[e] + g.count[e]; ++t) {
                const int64_t grp = g.group[t];
                if (sc.conn[j][grp] == 0.0) sc.touched[j].push_back(grp);
                sc.conn[j][grp] += we;
                if (grp == mine && g.pins[t] == 1) sc.leave[j] += we;
            }
        }
    }
    int32_t bq = -1;
    double bg = 0.0;
    std::sort(sc.touched[0].begin(), sc.touched[0].end());  // ties: smaller PE
    for (int64_t q : sc.touched[0]) {
        if (q == own) continue;
        double gain = 0.0;
        for (int64_t j = 0; j < levels; ++j) {
            const int64_t gq = q / sz[j];
            if (gq == own / sz[j]) break;  // nested: equal above too
            gain += s.cf[j] * (sc.leave[j] - total + sc.conn[j][gq]);
        }
        if (bq < 0 || gain > bg) {
            bq = static_cast<int32_t>(q);
            bg = gain;
        }
    }
    bq_out = bq;
    bg_out = bg;
    for (int64_t j = 0; j < levels; ++j) {
        for (int64_t grp : sc.touched[j]) sc.conn[j][grp] = 0.0;
        sc.touched[j].clear();
    }
}

// Validates the arguments shared by mapping_moves and mapping_refine and sets up the state.
MappingState mapping_state(const HgView &h, const Arr<int32_t> &parts, int64_t k,
                           const Arr<int64_t> &sizes, const Arr<double> &coefs,
                           const Arr<uint8_t> &candidate, const char *name) {
    const std::string fn(name);
    MappingState s;
    s.h = h;
    if (parts.ndim() != 1 || parts.shape(0) != h.n || candidate.ndim() != 1 ||
        candidate.shape(0) != h.n)
        throw std::invalid_argument(fn + ": parts and candidate: one per vertex");
    s.levels = sizes.shape(0);
    if (s.levels < 1 || coefs.shape(0) != s.levels || k < 1)
        throw std::invalid_argument(fn + ": one coefficient per level, k >= 1");
    for (int64_t j = 0; j < s.levels; ++j)
        if (sizes.data()[j] < 1 || (j == 0 && sizes.data()[j] != 1))
            throw std::invalid_argument(fn + ": level 0 must be the PEs");
    const int32_t *pp = parts.data();
    for (int64_t v = 0; v < h.n; ++v)
        if (pp[v] < 0 || pp[v] >= k) throw std::invalid_argument(fn + ": PE id out of range");
    s.sz = sizes.data();
    s.cf = coefs.data();
    s.ng.resize(s.levels);
    s.ngroups.resize(s.levels);
    s.total.assign(s.levels, 0);
    for (int64_t j = 0; j < s.levels; ++j) s.ngroups[j] = (k + s.sz[j] - 1) / s.sz[j];
    return s;
}

// Builds every level's net groups from parts (OpenMP over the nets; level 0, the PEs, first).
void build_groups(MappingState &s, const int32_t *pp) {
    const int64_t pins = s.h.eptr[s.h.m];
    for (int64_t j = 0; j < s.levels; ++j) {
        NetGroups &out = s.ng[j];
        out.group.assign(pins, 0);
        out.pins.assign(pins, 0);
        out.count.assign(s.h.m, 0);
        int64_t total = 0;
#pragma omp parallel reduction(+ : total) if (pins >= kParallelMinItems)
        {
            std::vector<int64_t> g;
#pragma omp for schedule(dynamic, 256)
            for (int64_t e = 0; e < s.h.m; ++e)
                total += s.h.ewgt[e] * (j == 0 ? rebuild_net(s, pp, e, 1, out, g)
                                          : derive_net(s, e, s.sz[j], out));
        }
        s.total[j] = total;
    }
}

// Rebuilds the groups of the nets listed in `nets` (after moves of their pins).
void update_groups(MappingState &s, const int32_t *pp, const std::vector<int32_t> &nets) {
    const int64_t cnt = static_cast<int64_t>(nets.size());
    for (int64_t j = 0; j < s.levels; ++j) {
        NetGroups &out = s.ng[j];
        int64_t delta = 0;
#pragma omp parallel reduction(+ : delta) if (cnt >= 1024)
        {
            std::vector<int64_t> g;
#pragma omp for schedule(dynamic, 64)
            for (int64_t i = 0; i < cnt; ++i) {
                const int64_t e = nets[i];
                const int32_t before = out.count[e];
                const int32_t after =
                    j == 0 ? rebuild_net(s, pp, e, 1, out, g) : derive_net(s, e, s.sz[j], out);
                delta += s.h.ewgt[e] * (after - before);
            }
        }
        s.total[j] += delta;
    }
}

// Best moves of the candidate vertices in verts (all vertices when verts is null).
void best_moves(const MappingState &s, const int32_t *pp, const uint8_t *cand,
                const std::vector<int32_t> *verts, int32_t *best_q, double *best_gain) {
    const int64_t count = verts ? static_cast<int64_t>(verts->size()) : s.h.n;
    const bool parallel = verts ? count >= 256 : s.h.vptr[s.h.n] >= kParallelMinItems;
#pragma omp parallel if (parallel)
    {
        MoveScratch sc(s);
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < count; ++i) {
            const int64_t v = verts ? (*verts)[i] : i;
            if (!cand[v]) {
                best_q[v] = -1;
                best_gain[v] = 0.0;
                continue;
            }
            best_move(s, pp, v, sc, best_q[v], best_gain[v]);
        }
    }
}

struct Mover {
    int32_t v, q;
    double g;
};

}  // namespace

void igp::bind_mapping(py::module_ &m) {
    m.def(
        "mapping_moves",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int32_t> parts, int64_t k, Arr<int64_t> sizes,
           Arr<double> coefs, Arr<uint8_t> candidate) {
            const int64_t nv = vptr.shape(0) - 1;
            check_csr(vptr, vind, eptr.shape(0) - 1, "mapping_moves: vptr/vind");
            Arr<int64_t> ones(nv);  // the view's vertex weights (not used)
            std::fill(ones.mutable_data(), ones.mutable_data() + nv, 1);
            MappingState s = mapping_state(
                hg_view(eptr, eind, ewgt, vptr, vind, ones, "mapping_moves"), parts, k, sizes,
                coefs, candidate, "mapping_moves");
            std::vector<int32_t> best_q(s.h.n, -1);
            std::vector<double> best_gain(s.h.n, 0.0);
            double cost = 0.0;
            {
                py::gil_scoped_release release;
                build_groups(s, parts.data());
                cost = s.cost();
                best_moves(s, parts.data(), candidate.data(), nullptr, best_q.data(),
                           best_gain.data());
            }
            return py::make_tuple(to_numpy(std::move(best_q)), to_numpy(std::move(best_gain)),
                                  cost);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("parts"), py::arg("k"), py::arg("sizes"), py::arg("coefs"), py::arg("candidate"),
        "Best move of every candidate vertex on a net over several PEs under the mapping gain: (best PE (int32, -1: none), "
        "its gain (float64), sum_j coefs[j] * sum_e w_e g_j(e)). sizes[j]: PEs per level-j "
        "group (sizes[0] = 1, increasing), coefs[j]: its coefficient; candidates (uint8 per "
        "vertex) choose among the PEs their nets touch, ties to the smaller PE.");
    m.def(
        "mapping_refine",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int32_t> parts, int64_t k,
           Arr<int64_t> sizes, Arr<double> coefs, Arr<uint8_t> candidate, Arr<int64_t> bounds,
           double constant, int64_t max_rounds, double min_improvement) {
            MappingState s = mapping_state(
                hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "mapping_refine"), parts, k, sizes,
                coefs, candidate, "mapping_refine");
            if (bounds.ndim() != 1 || bounds.shape(0) != k)
                throw std::invalid_argument("mapping_refine: bounds: one per PE");
            const int64_t n = s.h.n;
            std::vector<int32_t> pe(parts.data(), parts.data() + n);
            std::vector<int64_t> moves_per_round;
            double cost = 0.0;
            {
                py::gil_scoped_release release;
                const int64_t *vw = vwgt.data(), *bd = bounds.data();
                const uint8_t *cand = candidate.data();
                int32_t *pp = pe.data();
                std::vector<int32_t> best_q(n, -1);
                std::vector<double> best_gain(n, 0.0);
                build_groups(s, pp);
                cost = s.cost() + constant;
                best_moves(s, pp, cand, nullptr, best_q.data(), best_gain.data());
                std::vector<int64_t> load(k, 0);
                for (int64_t v = 0; v < n; ++v) load[pp[v]] += vw[v];
                std::vector<uint8_t> net_mark(s.h.m, 0), dirty(n, 0);
                std::vector<int64_t> rank(n, INT64_MAX), netmin(s.h.m, 0);
                std::vector<int32_t> nets, verts;
                for (int64_t round = 0; round < max_rounds; ++round) {
                    // moves of positive gain; each target PE takes them by descending gain
                    // while its weight (not counting weights leaving it) stays within bound
                    const std::vector<int32_t> cv = parallel_select(
                        n, [&](int64_t v) { return best_q[v] >= 0 && best_gain[v] > 1e-9; });
                    if (cv.empty()) break;
                    std::vector<Mover> mv(cv.size());
                    for (size_t i = 0; i < cv.size(); ++i)
                        mv[i] = {cv[i], best_q[cv[i]], best_gain[cv[i]]};
                    std::sort(mv.begin(), mv.end(), [](const Mover &a, const Mover &b) {
                        if (a.q != b.q) return a.q < b.q;
                        if (a.g != b.g) return a.g > b.g;
                        return a.v < b.v;
                    });
                    std::vector<Mover> kept;
                    kept.reserve(mv.size());
                    int64_t run = 0;
                    for (size_t i = 0; i < mv.size(); ++i) {
                        if (i == 0 || mv[i].q != mv[i - 1].q) run = 0;
                        run += vw[mv[i].v];
                        if (run + load[mv[i].q] <= bd[mv[i].q]) kept.push_back(mv[i]);
                    }
                    if (kept.empty()) break;
                    std::stable_sort(kept.begin(), kept.end(),
                                     [](const Mover &a, const Mover &b) { return a.g > b.g; });
                    const int64_t M = static_cast<int64_t>(kept.size());
                    // the nets with a mover (in the movers' order), and the movers that come
                    // first among the movers of each of their nets
                    nets.clear();
                    for (int64_t i = 0; i < M; ++i) {
                        const int32_t v = kept[i].v;
                        rank[v] = i;
                        for (int64_t t = s.h.vptr[v]; t < s.h.vptr[v + 1]; ++t)
                            if (!net_mark[s.h.vind[t]]) {
                                net_mark[s.h.vind[t]] = 1;
                                nets.push_back(s.h.vind[t]);
                            }
                    }
                    const int64_t nn = static_cast<int64_t>(nets.size());
#pragma omp parallel for schedule(dynamic, 256) if (nn >= 4096)
                    for (int64_t x = 0; x < nn; ++x) {
                        const int64_t e = nets[x];
                        int64_t r = M;
                        for (int64_t i = s.h.eptr[e]; i < s.h.eptr[e + 1]; ++i) r = std::min(r, rank[s.h.eind[i]]);
                        netmin[e] = r;
                    }
                    std::vector<uint8_t> free_(M, 1);
                    double free_gain = 0.0;
                    for (int64_t i = 0; i < M; ++i) {
                        const int32_t v = kept[i].v;
                        for (int64_t t = s.h.vptr[v]; t < s.h.vptr[v + 1]; ++t)
                            if (netmin[s.h.vind[t]] < i) {
                                free_[i] = 0;
                                break;
                            }
                        if (free_[i]) free_gain += kept[i].g;
                    }
                    for (int64_t i = 0; i < M; ++i) rank[kept[i].v] = INT64_MAX;
                    for (int32_t e : nets) net_mark[e] = 0;
                    std::vector<int32_t> from(M);
                    for (int64_t i = 0; i < M; ++i) {
                        from[i] = pp[kept[i].v];
                        pp[kept[i].v] = kept[i].q;
                    }
                    update_groups(s, pp, nets);
                    double next = s.cost() + constant;
                    // when moves of neighbours interfere so that this gains less than the
                    // movers that share no net with a better mover (their gains add up), those
                    bool only_free = false;
                    if (cost - next < free_gain - 1e-9) {
                        for (int64_t i = 0; i < M; ++i)
                            if (!free_[i]) pp[kept[i].v] = from[i];
                        update_groups(s, pp, nets);
                        next = s.cost() + constant;
                        only_free = true;
                    }
                    if (!(next < cost - 1e-9)) {
                        for (int64_t i = 0; i < M; ++i) pp[kept[i].v] = from[i];
                        update_groups(s, pp, nets);
                        break;
                    }
                    int64_t count = 0;
                    for (int64_t i = 0; i < M; ++i) {
                        if (only_free && !free_[i]) continue;
                        load[from[i]] -= vw[kept[i].v];
                        load[kept[i].q] += vw[kept[i].v];
                        ++count;
                    }
                    moves_per_round.push_back(count);
                    const bool small = cost - next < min_improvement * std::abs(cost);
                    cost = next;
                    if (small || round + 1 == max_rounds) break;
                    // new best moves of the pins of the nets with a mover (the others' nets
                    // did not change)
                    verts.clear();
                    for (int32_t e : nets)
                        for (int64_t i = s.h.eptr[e]; i < s.h.eptr[e + 1]; ++i)
                            if (!dirty[s.h.eind[i]]) {
                                dirty[s.h.eind[i]] = 1;
                                verts.push_back(s.h.eind[i]);
                            }
                    for (int32_t v : verts) dirty[v] = 0;
                    best_moves(s, pp, cand, &verts, best_q.data(), best_gain.data());
                }
            }
            return py::make_tuple(to_numpy(std::move(pe)), cost, to_numpy(std::move(moves_per_round)));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("parts"), py::arg("k"), py::arg("sizes"), py::arg("coefs"),
        py::arg("candidate"), py::arg("bounds"), py::arg("constant"), py::arg("max_rounds"),
        py::arg("min_improvement"),
        "Label propagation with the mapping gain (igpart.mapping_im.refine_mapping): rounds of "
        "the best moves of positive gain that fit the target PE's bound, applied together (or "
        "only those that share no net with a better mover when that gains more), until a round "
        "gains nothing, less than min_improvement of the cost, or max_rounds. The net groups "
        "and best moves are updated for the nets with a mover and their pins only. Returns "
        "(PE ids (int32), cost + constant, moves of every round (int64)).");
}
