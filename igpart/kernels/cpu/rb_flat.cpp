// Recursive bisection of a small sub-hypergraph, its whole subtree in one call: the flat
// bisections that igpart.partitioner.initial.recursive runs below Config.initial_rb_flat_vertices
// vertices, as OpenMP tasks without the GIL.
//
// A flat bisection is the k = 2 pipeline of a hypergraph too small to coarsen (no communities,
// no levels): METIS on the clique expansion with its seeds, every distinct candidate rebalanced
// and refined by the sequence refinement, FM on the best ones, the best kept. Each step is the
// Python pipeline's own (recursive._Plan.split, driver.multilevel_hypergraph with one level,
// initial.pool.initial_partition with the candidates refined in one batch), with the same seeds,
// bounds, targets and tie-breaking, so a subtree gives here the blocks the Python bisections
// give it (tests/test_rb_flat.py compares them). A bisection's seed depends on its place in the
// recursion only, so the blocks do not depend on the threads or the tasks' order.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bindings.h"
#include "csr.h"
#include "metis_call.h"
#include "numpy_util.h"
#include "partition.h"

namespace py = pybind11;

namespace igp {

namespace {

struct FlatOptions {
    int32_t k = 2;                 // blocks of the whole recursive bisection
    double epsilon = 0.03;
    int objective = 0;
    int64_t seed = 0;              // the recursive bisection's seed
    int64_t runs = 1;              // METIS seeds of the first bisection
    int64_t min_seeds = 0;         // the floor of a bisection's seeds (bisection_seeds)
    int64_t total = 0;             // the whole input's weight
    int64_t final_bound = 0;       // the k-way epsilon bound of a block
    std::vector<int64_t> targets;  // per-block bounds (k entries), or empty
    int64_t max_net_size = 100;    // nets above it are left out of the clique expansion
    double clique_scale = 60.0;
    int64_t refine_rounds = 16;
    bool fm = true;
    int64_t fm_rounds = 4, fm_fruitless = 100;
    double fm_min_improvement = 0.001, fm_max_work = 0.0;
    int64_t fm_top = 1;  // FM on the best fm_top distinct candidates; 0: on every candidate
};

// A sub-hypergraph with its own arrays (both incidence directions) and its vertices' positions
// in the subtree's input.
struct Sub {
    std::vector<int64_t> eptr{0}, ewgt, vwgt, vptr;
    std::vector<int32_t> eind, vind;
    std::vector<int64_t> ids;
    int64_t first = 0, ks = 1;

    int64_t n() const { return static_cast<int64_t>(vwgt.size()); }
    int64_t m() const { return static_cast<int64_t>(eptr.size()) - 1; }
    int64_t total() const {
        int64_t t = 0;
        for (int64_t w : vwgt) t += w;
        return t;
    }
    void index_vertices() {
        Csr t = csr_transpose(eptr.data(), m(), eind.data(), n());
        vptr = std::move(t.ptr);
        vind = std::move(t.ind);
    }
    HgView view() const {
        HgView h;
        h.n = n();
        h.m = m();
        h.eptr = eptr.data();
        h.eind = eind.data();
        h.ewgt = ewgt.data();
        h.vptr = vptr.data();
        h.vind = vind.data();
        h.vwgt = vwgt.data();
        return h;
    }
};

// recursive.adapted_epsilon: KaHyPar's imbalance of one bisection of a sub-hypergraph of weight
// sub_total that is to become k_sub of the k blocks (capacity < 0: k_sub epsilon bounds).
double adapted_epsilon(double epsilon, int64_t total, int64_t k, int64_t sub_total, int64_t k_sub,
                       int64_t capacity) {
    if (k_sub < 2 || sub_total <= 0) return epsilon;
    const int64_t perfect = (total + k - 1) / k;
    const double base = (capacity < 0 ? (1.0 + epsilon) * static_cast<double>(perfect) *
                                            static_cast<double>(k_sub)
                                      : static_cast<double>(capacity)) /
                        static_cast<double>(sub_total);
    const double levels = std::ceil(std::log2(static_cast<double>(k_sub)));
    return std::max(0.0, std::pow(base, 1.0 / levels) - 1.0);
}

// recursive.bisection_seeds
int64_t bisection_seeds(int64_t seeds, int64_t min_seeds, int64_t k_sub, int64_t k) {
    if (min_seeds <= 0 || k_sub >= k) return seeds;
    return std::max(std::min(seeds, min_seeds), (seeds * k_sub + k - 1) / k);
}

// The sub-hypergraph of `h` induced by the vertices whose `side` is s, renumbered in vertex order
// (induced_nets, as the binding sub_hypergraph): cut drops a net with a pin outside.
Sub induced(const Sub &h, const std::vector<int32_t> &side, int32_t s, bool cut) {
    Sub out;
    std::vector<int32_t> id(static_cast<size_t>(h.n()), -1);
    for (int64_t v = 0; v < h.n(); ++v)
        if (side[v] == s) {
            id[v] = static_cast<int32_t>(out.vwgt.size());
            out.vwgt.push_back(h.vwgt[v]);
            out.ids.push_back(h.ids[v]);
        }
    std::vector<int64_t> nets;
    induced_nets(h.eptr.data(), h.eind.data(), h.m(), id.data(), cut, out.eptr, out.eind, nets);
    out.ewgt.reserve(nets.size());
    for (int64_t e : nets) out.ewgt.push_back(h.ewgt[e]);
    out.index_vertices();
    return out;
}

int64_t overload(const HgView &h, const int32_t *parts, const int64_t *bounds) {
    const std::vector<int64_t> bw = block_weights(h.n, h.vwgt, parts, 2);
    return std::max<int64_t>(bw[0] - bounds[0], 0) + std::max<int64_t>(bw[1] - bounds[1], 0);
}

// The flat k = 2 pipeline of `sub` with the two blocks' bounds, imbalance eps and seed: the
// side (0/1) of every vertex.
std::vector<int32_t> bisect(const Sub &sub, const int64_t *bounds, double eps, int64_t seed,
                            int64_t seeds, const FlatOptions &o) {
    const HgView h = sub.view();
    const int64_t n = h.n;
    // METIS on the clique expansion, one candidate per seed (initial.metis._metis_request)
    WeightedCsr g = clique_expand(h.eptr, h.eind, h.ewgt, h.m, h.vptr, h.vind, n, o.max_net_size,
                                  o.clique_scale);
    std::vector<int64_t> adjncy(g.ind.begin(), g.ind.end());
    std::vector<int64_t> vw(sub.vwgt);
    if (std::all_of(vw.begin(), vw.end(), [](int64_t w) { return w == 0; }))
        std::fill(vw.begin(), vw.end(), int64_t{1});
    double frac[2];
    {
        const double p0 = static_cast<double>(std::max<int64_t>(bounds[0], 1));
        const double p1 = static_cast<double>(std::max<int64_t>(bounds[1], 1));
        const double sum = static_cast<double>(std::max<int64_t>(bounds[0], 1) +
                                               std::max<int64_t>(bounds[1], 1));
        frac[0] = p0 / sum;
        frac[1] = p1 / sum;
        const double s = frac[0] + frac[1];
        if (std::fabs(s - 1.0) > 1e-12) {
            frac[0] /= s;
            frac[1] /= s;
        }
    }
    const float tpwgts[2] = {static_cast<float>(frac[0]), static_cast<float>(frac[1])};
    const int64_t ufactor = std::max<int64_t>(1, static_cast<int64_t>(std::nearbyint(eps * 1000)));
    const int64_t count = std::max<int64_t>(1, seeds);
    std::vector<std::vector<int32_t>> unique;
    std::vector<size_t> index(static_cast<size_t>(count));
    std::vector<int32_t> row(static_cast<size_t>(n));
    for (int64_t r = 0; r < count; ++r) {
        const int64_t metis_seed = seed + r + 1;  // initial.metis.metis_seed
        const int status =
            metis_part(n, g.ptr.data(), adjncy.data(), vw.data(),
                       adjncy.empty() ? nullptr : g.wgt.data(), 2, tpwgts, metis_seed, ufactor,
                       true, row.data());
        if (status != kMetisOk)
            throw std::runtime_error("METIS failed (status " + std::to_string(status) +
                                     ") for seed " + std::to_string(metis_seed));
        size_t at = unique.size();
        for (size_t u = 0; u < unique.size(); ++u)
            if (unique[u] == row) {
                at = u;
                break;
            }
        if (at == unique.size()) unique.push_back(row);
        index[static_cast<size_t>(r)] = at;
    }
    // every distinct candidate rebalanced and refined (refine_candidates), FM on every one when
    // fm_top is 0 (the refiner of initial candidates then includes it)
    const bool fm = o.fm && o.fm_rounds > 0;
    const int64_t fruitless = std::max<int64_t>(1, o.fm_fruitless);
    struct Result {
        int64_t overload = 0, value = 0;
        std::vector<int32_t> parts;
    };
    auto score = [&](Result &res) {
        res.overload = overload(h, res.parts.data(), bounds);
        res.value = hypergraph_objective(h, res.parts.data(), 2, o.objective);
    };
    auto polish = [&](Result &res) {
        refine_fm(h, res.parts.data(), 2, bounds, o.objective, o.fm_rounds, fruitless,
                  o.fm_min_improvement, seed, o.fm_max_work, nullptr);
        score(res);
    };
    std::vector<Result> refined(unique.size());
    for (size_t u = 0; u < unique.size(); ++u) {
        Result &res = refined[u];
        res.parts = std::move(unique[u]);
        rebalance_hypergraph(h, res.parts.data(), 2, bounds, o.objective, nullptr);
        if (o.refine_rounds > 0)
            refine_sequence(h, res.parts.data(), 2, bounds, o.objective, o.refine_rounds,
                            kParallelMinLightItems, nullptr);
        if (fm && o.fm_top <= 0)
            polish(res);
        else
            score(res);
    }
    std::vector<Result> results(static_cast<size_t>(count));
    for (int64_t r = 0; r < count; ++r) results[r] = refined[index[r]];
    if (fm && o.fm_top > 0) {
        // the best distinct refined candidates by (overload, objective, order)
        std::vector<int64_t> order(static_cast<size_t>(count));
        for (int64_t r = 0; r < count; ++r) order[r] = r;
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            return std::make_pair(results[a].overload, results[a].value) <
                   std::make_pair(results[b].overload, results[b].value);
        });
        std::vector<int64_t> chosen;
        for (int64_t r : order) {
            bool seen = false;
            for (int64_t c : chosen) seen = seen || results[c].parts == results[r].parts;
            if (seen) continue;
            chosen.push_back(r);
            if (static_cast<int64_t>(chosen.size()) == o.fm_top) break;
        }
        for (int64_t c : chosen) polish(results[c]);
    }
    int64_t best = 0;
    for (int64_t r = 1; r < count; ++r)
        if (std::make_pair(results[r].overload, results[r].value) <
            std::make_pair(results[best].overload, results[best].value))
            best = r;
    return std::move(results[best].parts);
}

class Subtree {
  public:
    Subtree(const FlatOptions &o, int32_t *out) : o_(o), out_(out) {}

    // The bisection of `t` and then its two halves (as tasks when run inside a parallel region).
    void run(std::unique_ptr<Sub> t) {
        if (failed()) return;
        if (t->ks == 1 || t->n() < 2) {
            for (int64_t v : t->ids) out_[v] = static_cast<int32_t>(t->first);
            return;
        }
        std::unique_ptr<Sub> halves[2];
        try {
            halves[0] = std::make_unique<Sub>();
            split(*t, halves);
        } catch (...) {
            std::lock_guard<std::mutex> hold(mutex_);
            if (!error_) error_ = std::current_exception();
            return;
        }
        t.reset();
        for (auto &half : halves) {
            Sub *p = half.release();
#ifdef _OPENMP
#pragma omp task firstprivate(p) if (omp_in_parallel())
#endif
            run(std::unique_ptr<Sub>(p));
        }
    }

    void rethrow() const {
        if (error_) std::rethrow_exception(error_);
    }

  private:
    bool failed() {
        std::lock_guard<std::mutex> hold(mutex_);
        return static_cast<bool>(error_);
    }

    // recursive._Plan.split: the bisection's bounds, imbalance and seed, then the two halves.
    void split(const Sub &t, std::unique_ptr<Sub> *halves) const {
        const int64_t ks = t.ks, k = o_.k, k0 = (ks + 1) / 2, k1 = ks - k0;
        const int64_t sub_total = t.total();
        int64_t caps[2], shares[2], whole;
        double eps;
        if (o_.targets.empty()) {
            caps[0] = o_.final_bound * k0;
            caps[1] = o_.final_bound * k1;
            eps = adapted_epsilon(o_.epsilon, o_.total, k, sub_total, ks, -1);
            shares[0] = k0;
            shares[1] = k1;
            whole = ks;
        } else {
            caps[0] = caps[1] = 0;
            for (int64_t b = t.first; b < t.first + k0; ++b) caps[0] += o_.targets[b];
            for (int64_t b = t.first + k0; b < t.first + ks; ++b) caps[1] += o_.targets[b];
            eps = adapted_epsilon(0.0, o_.total, k, sub_total, ks, caps[0] + caps[1]);
            shares[0] = caps[0];
            shares[1] = caps[1];
            whole = std::max<int64_t>(1, caps[0] + caps[1]);
        }
        int64_t bounds[2];
        for (int s = 0; s < 2; ++s) {
            const double x = (1.0 + eps) * static_cast<double>(sub_total) *
                             static_cast<double>(shares[s]) / static_cast<double>(whole);
            bounds[s] = std::min(static_cast<int64_t>(std::floor(x + 1e-9)), caps[s]);
        }
        const int64_t seeds = bisection_seeds(o_.runs, o_.min_seeds, ks, k);
        const std::vector<int32_t> side =
            bisect(t, bounds, eps, o_.seed + 7919 * t.first + ks, seeds, o_);
        const bool cut = o_.objective == 0;
        const int64_t firsts[2] = {t.first, t.first + k0}, counts[2] = {k0, k1};
        for (int s = 0; s < 2; ++s) {
            if (counts[s] > 1) {
                halves[s] = std::make_unique<Sub>(induced(t, side, s, cut));
            } else {  // one block: its vertices only get it
                halves[s] = std::make_unique<Sub>();
                for (int64_t v = 0; v < t.n(); ++v)
                    if (side[v] == s) halves[s]->ids.push_back(t.ids[v]);
                halves[s]->vwgt.assign(halves[s]->ids.size(), 0);
            }
            halves[s]->first = firsts[s];
            halves[s]->ks = counts[s];
        }
    }

    const FlatOptions &o_;
    int32_t *out_;
    std::mutex mutex_;
    std::exception_ptr error_;
};

}  // namespace

void bind_rb_flat(py::module_ &m) {
    m.def(
        "rb_flat_subtree",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vwgt,
           int64_t first, int64_t ks, int32_t k, double epsilon, int objective, int64_t seed,
           int64_t runs, int64_t min_seeds, int64_t total, int64_t final_bound,
           std::optional<Arr<int64_t>> targets, int64_t max_net_size, double clique_scale,
           int64_t refine_rounds, bool fm, int64_t fm_rounds, int64_t fm_fruitless,
           double fm_min_improvement, double fm_max_work, int64_t fm_top, int64_t threads) {
            const std::string what = "rb_flat_subtree";
            if (vwgt.ndim() != 1) fail(what, "vwgt must be one-dimensional");
            const int64_t n = vwgt.shape(0);
            check_csr(eptr, eind, n, what.c_str());
            const int64_t m_ = eptr.shape(0) - 1;
            check_len(ewgt, m_, "ewgt", what);
            if (objective != 0 && objective != 1) fail(what, "objective must be 0 (cut) or 1 (km1)");
            if (k < 1 || ks < 1 || first < 0 || first + ks > k)
                fail(what, "the blocks first .. first + ks - 1 must lie in 0 .. k - 1");
            if (runs < 1) fail(what, "runs must be >= 1");
            if (threads < 1) fail(what, "threads must be >= 1");
            if (max_net_size < 0) fail(what, "max_net_size must be >= 0");
            FlatOptions o;
            o.k = k;
            o.epsilon = epsilon;
            o.objective = objective;
            o.seed = seed;
            o.runs = runs;
            o.min_seeds = min_seeds;
            o.total = total;
            o.final_bound = final_bound;
            if (targets) {
                check_len(*targets, k, "targets", what);
                o.targets.assign(targets->data(), targets->data() + k);
            }
            o.max_net_size = max_net_size;
            o.clique_scale = clique_scale;
            o.refine_rounds = refine_rounds;
            o.fm = fm;
            o.fm_rounds = fm_rounds;
            o.fm_fruitless = fm_fruitless;
            o.fm_min_improvement = fm_min_improvement;
            o.fm_max_work = fm_max_work;
            o.fm_top = fm_top;
            auto root = std::make_unique<Sub>();
            root->eptr.assign(eptr.data(), eptr.data() + m_ + 1);
            root->eind.assign(eind.data(), eind.data() + eptr.data()[m_]);
            root->ewgt.assign(ewgt.data(), ewgt.data() + m_);
            root->vwgt.assign(vwgt.data(), vwgt.data() + n);
            root->ids.resize(static_cast<size_t>(n));
            for (int64_t v = 0; v < n; ++v) root->ids[v] = v;
            root->first = first;
            root->ks = ks;
            std::vector<int32_t> out(static_cast<size_t>(n), static_cast<int32_t>(first));
            {
                py::gil_scoped_release release;
                root->index_vertices();
                MetisScope metis;
                Subtree tree(o, out.data());
#ifdef _OPENMP
                if (threads > 1) {
#pragma omp parallel num_threads(static_cast<int>(threads))
                    {
                        omp_set_num_threads(1);  // each bisection's stages on its task's thread
#pragma omp single
                        tree.run(std::move(root));
                    }
                } else {
                    const int before = omp_get_max_threads();
                    omp_set_num_threads(1);
                    tree.run(std::move(root));
                    omp_set_num_threads(before);
                }
#else
                tree.run(std::move(root));
#endif
                tree.rethrow();
            }
            return to_numpy(std::move(out));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vwgt"), py::arg("first"),
        py::arg("ks"), py::arg("k"), py::arg("epsilon"), py::arg("objective"), py::arg("seed"),
        py::arg("runs"), py::arg("min_seeds"), py::arg("total"), py::arg("final_bound"),
        py::arg("targets"), py::arg("max_net_size"), py::arg("clique_scale"),
        py::arg("refine_rounds"), py::arg("fm"), py::arg("fm_rounds"), py::arg("fm_fruitless"),
        py::arg("fm_min_improvement"), py::arg("fm_max_work"), py::arg("fm_top"),
        py::arg("threads"),
        "Blocks (int32, first .. first + ks - 1) of the recursive bisection of a sub-hypergraph "
        "(nets eptr / eind / ewgt, vertex weights vwgt) into ks of the k blocks, every bisection "
        "flat (METIS seeds on the clique expansion, rebalance and sequence refinement of each "
        "distinct candidate, FM on the best fm_top, 0: on all), the bisections as OpenMP tasks "
        "on `threads` threads without the GIL; the parameters those of "
        "igpart.partitioner.initial.recursive._Plan (see flat_subtree there).");
}

}  // namespace igp
