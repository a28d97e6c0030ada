// Bisection of a graph level's blocks, each on its own: the step of deep multilevel partitioning
// that doubles the number of blocks while the hierarchy is uncoarsened
// (igpart.partitioner.deep). Every block marked for a split is taken out as the subgraph its
// vertices induce (edges to other blocks dropped) and bisected by METIS with that block's target
// fractions, with several seeds; the candidate with the least weight above the halves' caps,
// then the least cut, is kept. Blocks and seeds run as OpenMP tasks without the GIL; a block's
// seeds depend on its id only, so the blocks do not depend on the threads.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bindings.h"
#include "metis_call.h"
#include "numpy_util.h"

namespace py = pybind11;

namespace igp {

namespace {

// One block's induced subgraph in METIS's form (64-bit ids and weights).
struct Sub {
    std::vector<int64_t> vertices;  // the block's vertices, ascending
    std::vector<int64_t> ptr{0}, adj, wgt, vwgt;
};

struct Candidate {
    int64_t overload = 0, cut = 0;
    std::vector<int32_t> side;
};

}  // namespace

void bind_block_split(py::module_ &m) {
    m.def(
        "split_blocks",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           Arr<int32_t> parts, Arr<int32_t> left_id, Arr<int32_t> right_id,
           Arr<int64_t> left_cap, Arr<int64_t> right_cap, int64_t seed, int64_t runs,
           int64_t ufactor) {
            const std::string what = "split_blocks";
            if (xadj.ndim() != 1 || xadj.shape(0) < 1) fail(what, "xadj needs n + 1 entries");
            const int64_t n = xadj.shape(0) - 1;
            check_csr(xadj, adjncy, n, what.c_str());
            check_len(adjwgt, adjncy.shape(0), "adjwgt", what);
            check_len(vwgt, n, "vwgt", what);
            check_len(parts, n, "parts", what);
            const int64_t k = left_id.shape(0);
            check_len(right_id, k, "right_id", what);
            check_len(left_cap, k, "left_cap", what);
            check_len(right_cap, k, "right_cap", what);
            if (runs < 1) fail(what, "runs must be >= 1");
            if (ufactor < 1) fail(what, "ufactor must be >= 1");
            const int64_t *xp = xadj.data();
            const int32_t *ap = adjncy.data();
            const int64_t *wp = adjwgt.data();
            const int64_t *vp = vwgt.data();
            const int32_t *pp = parts.data();
            const int32_t *lid = left_id.data();
            const int32_t *rid = right_id.data();
            const int64_t *lcap = left_cap.data();
            const int64_t *rcap = right_cap.data();
            for (int64_t u = 0; u < n; ++u)
                if (pp[u] < 0 || pp[u] >= k)
                    fail(what, "parts holds block " + std::to_string(pp[u]) + " at vertex " +
                                   std::to_string(u) + ", outside [0, " + std::to_string(k) + ")");
            py::array_t<int32_t> out(static_cast<py::ssize_t>(n));
            int32_t *op = out.mutable_data();
            int64_t failed = -1;  // a block METIS failed on, and its status
            int failed_status = kMetisOk;
            {
                py::gil_scoped_release release;
                // the blocks' vertices (a stable counting sort) and every vertex's local id
                std::vector<int64_t> start(static_cast<size_t>(k) + 1, 0);
                for (int64_t u = 0; u < n; ++u) ++start[static_cast<size_t>(pp[u]) + 1];
                std::partial_sum(start.begin(), start.end(), start.begin());
                std::vector<int64_t> order(static_cast<size_t>(n)), local(static_cast<size_t>(n));
                {
                    std::vector<int64_t> fill(start.begin(), start.end() - 1);
                    for (int64_t u = 0; u < n; ++u) {
                        const int64_t at = fill[static_cast<size_t>(pp[u])]++;
                        order[static_cast<size_t>(at)] = u;
                        local[static_cast<size_t>(u)] = at - start[static_cast<size_t>(pp[u])];
                    }
                }
                std::vector<int64_t> todo;  // blocks to split, the largest first
                for (int64_t b = 0; b < k; ++b)
                    if (lid[b] != rid[b] && start[b + 1] - start[b] >= 2) todo.push_back(b);
                std::stable_sort(todo.begin(), todo.end(), [&](int64_t a, int64_t b) {
                    return start[a + 1] - start[a] > start[b + 1] - start[b];
                });
                const int64_t nb = static_cast<int64_t>(todo.size());
                std::vector<Sub> subs(static_cast<size_t>(nb));
                std::vector<Candidate> cands(static_cast<size_t>(nb * runs));
                std::vector<int> status(static_cast<size_t>(nb * runs), kMetisOk);
                MetisScope metis;
#pragma omp parallel
                {
#pragma omp for schedule(dynamic, 1)
                    for (int64_t i = 0; i < nb; ++i) {
                        const int64_t b = todo[static_cast<size_t>(i)];
                        Sub &s = subs[static_cast<size_t>(i)];
                        s.vertices.assign(order.begin() + start[b], order.begin() + start[b + 1]);
                        s.vwgt.reserve(s.vertices.size());
                        for (int64_t u : s.vertices) {
                            for (int64_t j = xp[u]; j < xp[u + 1]; ++j)
                                if (pp[ap[j]] == b) {
                                    s.adj.push_back(local[static_cast<size_t>(ap[j])]);
                                    s.wgt.push_back(wp[j]);
                                }
                            s.ptr.push_back(static_cast<int64_t>(s.adj.size()));
                            s.vwgt.push_back(vp[u]);
                        }
                        // METIS needs a positive total weight
                        if (std::all_of(s.vwgt.begin(), s.vwgt.end(),
                                        [](int64_t w) { return w == 0; }))
                            std::fill(s.vwgt.begin(), s.vwgt.end(), int64_t{1});
                    }
#pragma omp for schedule(dynamic, 1)
                    for (int64_t t = 0; t < nb * runs; ++t) {
                        const int64_t i = t / runs, r = t % runs;
                        const int64_t b = todo[static_cast<size_t>(i)];
                        const Sub &s = subs[static_cast<size_t>(i)];
                        const int64_t sn = static_cast<int64_t>(s.vertices.size());
                        const double l = static_cast<double>(std::max<int64_t>(lcap[b], 1));
                        const double rr = static_cast<double>(std::max<int64_t>(rcap[b], 1));
                        const float tp[2] = {static_cast<float>(l / (l + rr)),
                                             static_cast<float>(rr / (l + rr))};
                        Candidate &c = cands[static_cast<size_t>(t)];
                        c.side.assign(static_cast<size_t>(sn), 0);
                        // distinct METIS seeds per block and run (METIS takes 0 as 1)
                        const int64_t ms = seed * 1000003 + b * runs + r + 1;
                        status[static_cast<size_t>(t)] = metis_part(
                            sn, s.ptr.data(), s.adj.data(), s.vwgt.data(),
                            s.adj.empty() ? nullptr : s.wgt.data(), 2, tp, ms, ufactor, true,
                            c.side.data());
                        int64_t w[2] = {0, 0};
                        for (int64_t j = 0; j < sn; ++j)
                            w[c.side[static_cast<size_t>(j)] != 0] +=
                                vp[s.vertices[static_cast<size_t>(j)]];
                        c.overload = std::max<int64_t>(0, w[0] - lcap[b]) +
                                     std::max<int64_t>(0, w[1] - rcap[b]);
                        int64_t cut = 0;
                        for (int64_t j = 0; j < sn; ++j)
                            for (int64_t e = s.ptr[j]; e < s.ptr[j + 1]; ++e)
                                if (c.side[static_cast<size_t>(j)] !=
                                    c.side[static_cast<size_t>(s.adj[e])])
                                    cut += s.wgt[e];
                        c.cut = cut / 2;
                    }
                }
                for (int64_t t = 0; t < nb * runs && failed < 0; ++t)
                    if (status[static_cast<size_t>(t)] != kMetisOk) {
                        failed = todo[static_cast<size_t>(t / runs)];
                        failed_status = status[static_cast<size_t>(t)];
                    }
                for (int64_t u = 0; u < n; ++u) op[u] = lid[pp[u]];
                for (int64_t i = 0; i < nb && failed < 0; ++i) {
                    const int64_t b = todo[static_cast<size_t>(i)];
                    int64_t best = i * runs;
                    for (int64_t t = i * runs + 1; t < (i + 1) * runs; ++t) {
                        const Candidate &c = cands[static_cast<size_t>(t)];
                        const Candidate &o = cands[static_cast<size_t>(best)];
                        if (c.overload < o.overload || (c.overload == o.overload && c.cut < o.cut))
                            best = t;
                    }
                    const Candidate &c = cands[static_cast<size_t>(best)];
                    const Sub &s = subs[static_cast<size_t>(i)];
                    for (size_t j = 0; j < s.vertices.size(); ++j)
                        op[s.vertices[j]] = c.side[j] ? rid[b] : lid[b];
                }
            }
            if (failed >= 0)
                throw std::runtime_error("METIS failed (status " + std::to_string(failed_status) +
                                         ") on block " + std::to_string(failed));
            return out;
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"), py::arg("parts"),
        py::arg("left_id"), py::arg("right_id"), py::arg("left_cap"), py::arg("right_cap"),
        py::arg("seed"), py::arg("runs"), py::arg("ufactor"),
        "New block ids (int32 per vertex) after bisecting, each on its own, the blocks b of "
        "`parts` with left_id[b] != right_id[b] (and at least two vertices): METIS on the "
        "subgraph the block induces, target fractions in the proportions of left_cap[b] / "
        "right_cap[b], `runs` seeds, the candidate with the least weight above the caps and then "
        "the least cut kept; its halves become left_id[b] and right_id[b]. The other blocks' "
        "vertices get left_id[b]. Runs on the caller's OpenMP threads without the GIL.");
}

}  // namespace igp
