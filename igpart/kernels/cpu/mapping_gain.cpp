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

// The distinct level groups of every net with their pin counts, and sum_e w_e * g(e).
double net_groups(const int64_t *eptr, const int32_t *eind, const int64_t *ewgt, int64_t m,
                  const int32_t *parts, int64_t size, NetGroups &out) {
    const int64_t pins = eptr[m];
    out.group.assign(pins, 0);
    out.pins.assign(pins, 0);
    out.count.assign(m, 0);
    double total = 0.0;
#pragma omp parallel reduction(+ : total) if (pins >= kParallelMinItems)
    {
        std::vector<int64_t> g;
#pragma omp for schedule(dynamic, 256)
        for (int64_t e = 0; e < m; ++e) {
            g.clear();
            for (int64_t i = eptr[e]; i < eptr[e + 1]; ++i) g.push_back(parts[eind[i]] / size);
            std::sort(g.begin(), g.end());
            int32_t c = 0;
            for (size_t i = 0; i < g.size(); ++i) {
                if (i == 0 || g[i] != g[i - 1]) {
                    out.group[eptr[e] + c] = g[i];
                    out.pins[eptr[e] + c] = 0;
                    ++c;
                }
                ++out.pins[eptr[e] + c - 1];
            }
            out.count[e] = c;
            total += static_cast<double>(ewgt[e]) * c;
        }
    }
    return total;
}

}  // namespace

void igp::bind_mapping(py::module_ &m) {
    m.def(
        "mapping_moves",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int32_t> parts, int64_t k, Arr<int64_t> sizes,
           Arr<double> coefs, Arr<uint8_t> candidate) {
            const int64_t m = eptr.shape(0) - 1, n = vptr.shape(0) - 1;
            check_csr(eptr, eind, n, "mapping_moves: eptr/eind");
            check_csr(vptr, vind, m, "mapping_moves: vptr/vind");
            if (ewgt.ndim() != 1 || ewgt.shape(0) != m)
                throw std::invalid_argument("mapping_moves: ewgt must have one weight per net");
            if (parts.ndim() != 1 || parts.shape(0) != n || candidate.ndim() != 1 ||
                candidate.shape(0) != n)
                throw std::invalid_argument("mapping_moves: parts and candidate: one per vertex");
            const int64_t levels = sizes.shape(0);
            if (levels < 1 || coefs.shape(0) != levels || k < 1)
                throw std::invalid_argument("mapping_moves: one coefficient per level, k >= 1");
            for (int64_t j = 0; j < levels; ++j)
                if (sizes.data()[j] < 1 || (j == 0 && sizes.data()[j] != 1))
                    throw std::invalid_argument("mapping_moves: level 0 must be the PEs");
            const int32_t *pp = parts.data();
            for (int64_t v = 0; v < n; ++v)
                if (pp[v] < 0 || pp[v] >= k)
                    throw std::invalid_argument("mapping_moves: PE id out of range");
            std::vector<int32_t> best_q(n, -1);
            std::vector<double> best_gain(n, 0.0);
            double cost = 0.0;
            {
                py::gil_scoped_release release;
                const int64_t *ep = eptr.data(), *w = ewgt.data(), *vp = vptr.data();
                const int32_t *ei = eind.data(), *vi = vind.data();
                const int64_t *sz = sizes.data();
                const double *cf = coefs.data();
                const uint8_t *cand = candidate.data();
                std::vector<NetGroups> ng(levels);
                std::vector<int64_t> ngroups(levels);
                for (int64_t j = 0; j < levels; ++j) {
                    cost += cf[j] * net_groups(ep, ei, w, m, pp, sz[j], ng[j]);
                    ngroups[j] = (k + sz[j] - 1) / sz[j];
                }
#pragma omp parallel if (vp[n] >= kParallelMinItems)
                {
                    // per level: connectivity of v to each group, and the groups touched
                    std::vector<std::vector<double>> conn(levels);
                    std::vector<std::vector<int64_t>> touched(levels);
                    for (int64_t j = 0; j < levels; ++j) conn[j].assign(ngroups[j], 0.0);
                    std::vector<double> leave(levels);
#pragma omp for schedule(dynamic, 64)
                    for (int64_t v = 0; v < n; ++v) {
                        if (!cand[v]) continue;
                        bool spans = false;  // only a vertex on a net over several PEs can gain
                        for (int64_t i = vp[v]; i < vp[v + 1] && !spans; ++i)
                            spans = ng[0].count[vi[i]] > 1;
                        if (!spans) continue;
                        const int64_t own = pp[v];
                        double total = 0.0;
                        std::fill(leave.begin(), leave.end(), 0.0);
                        for (int64_t i = vp[v]; i < vp[v + 1]; ++i) {
                            const int64_t e = vi[i];
                            const double we = static_cast<double>(w[e]);
                            total += we;
                            for (int64_t j = 0; j < levels; ++j) {
                                const NetGroups &g = ng[j];
                                const int64_t mine = own / sz[j];
                                for (int64_t t = ep[e]; t < ep[e] + g.count[e]; ++t) {
                                    const int64_t grp = g.group[t];
                                    if (conn[j][grp] == 0.0) touched[j].push_back(grp);
                                    conn[j][grp] += we;
                                    if (grp == mine && g.pins[t] == 1) leave[j] += we;
                                }
                            }
                        }
                        int32_t bq = -1;
                        double bg = 0.0;
                        std::sort(touched[0].begin(), touched[0].end());  // ties: smaller PE
                        for (int64_t q : touched[0]) {
                            if (q == own) continue;
                            double gain = 0.0;
                            for (int64_t j = 0; j < levels; ++j) {
                                const int64_t gq = q / sz[j];
                                if (gq == own / sz[j]) break;  // nested: equal above too
                                gain += cf[j] * (leave[j] - total + conn[j][gq]);
                            }
                            if (bq < 0 || gain > bg) {
                                bq = static_cast<int32_t>(q);
                                bg = gain;
                            }
                        }
                        best_q[v] = bq;
                        best_gain[v] = bg;
                        for (int64_t j = 0; j < levels; ++j) {
                            for (int64_t grp : touched[j]) conn[j][grp] = 0.0;
                            touched[j].clear();
                        }
                    }
                }
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
}
