// Bindings of the incremental refinement (incremental.h): the class IncrementalRefiner, which
// keeps its scratch space across calls and refines a DynamicHypergraph in place.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "bindings.h"
#include "dynamic.h"
#include "incremental.h"
#include "numpy_util.h"
#include "partition_common.h"

namespace py = pybind11;
using namespace igp;

namespace {

// A 1-D view of ids that must lie in [0, bound).
View<int32_t> ids(const Arr<int32_t> &a, int64_t bound, const char *what) {
    if (a.ndim() != 1) throw std::invalid_argument(std::string(what) + " must be 1-D");
    const View<int32_t> v(a);
    for (int64_t i = 0; i < v.n; ++i)
        if (v[i] < 0 || v[i] >= bound)
            throw std::invalid_argument(std::string(what) + ": id " + std::to_string(v[i]) +
                                        " out of range");
    return v;
}

py::dict stats_dict(const IncStats &s) {
    py::dict d;
    d["affected"] = s.affected;
    d["pseudo"] = s.pseudo;
    d["rounds"] = s.rounds;
    d["sequential"] = s.sequential;
    d["forced"] = s.forced;
    d["pulled"] = s.pulled;
    d["seq_moves"] = s.seq_moves;
    d["seq_gain"] = s.seq_gain;
    d["fm_moves"] = s.fm_moves;
    d["fm_gain"] = s.fm_gain;
    d["cut_before"] = s.cut_before;
    d["km1_before"] = s.km1_before;
    d["balanced"] = s.balanced;
    return d;
}

}  // namespace

void igp::bind_incremental(py::module_ &m) {
    py::class_<IncrementalRefiner>(m, "IncrementalRefiner",
                                   "Incremental refinement of a DynamicHypergraph's partition "
                                   "(iG-kway Alg. 3-4 generalised to hypergraphs).")
        .def(py::init<>())
        .def(
            "refine",
            [](IncrementalRefiner &r, DynamicHypergraph &h, Arr<int32_t> touched_v,
               Arr<int32_t> touched_e, Arr<int32_t> new_v, int objective, int64_t max_net_size,
               int32_t expand, int64_t max_rounds, int64_t refine_rounds, bool fm,
               int64_t fm_max_fruitless, int64_t fm_max_moves,
               std::optional<Arr<uint8_t>> locked, std::optional<Arr<int64_t>> bounds) {
                if (objective != OBJ_CUT && objective != OBJ_KM1)
                    throw std::invalid_argument("objective code must be 0 (cut) or 1 (km1)");
                if (max_net_size < 2 || expand < 0 || max_rounds < 0 || refine_rounds < 0 ||
                    fm_max_fruitless < 1 || fm_max_moves < 0)
                    throw std::invalid_argument("incremental refinement options out of range");
                const View<int32_t> tv = ids(touched_v, h.vertex_bound(), "touched_v"),
                                    te = ids(touched_e, h.net_bound(), "touched_e"),
                                    nv = ids(new_v, h.vertex_bound(), "new_v");
                IncOptions opt;
                opt.objective = objective;
                opt.max_net_size = max_net_size;
                opt.expand = expand;
                opt.max_rounds = max_rounds;
                opt.refine_rounds = refine_rounds;
                opt.fm = fm;
                opt.fm_max_fruitless = fm_max_fruitless;
                opt.fm_max_moves = fm_max_moves;
                const uint8_t *lk = nullptr;
                int64_t nlk = 0;
                if (locked) {
                    if (locked->ndim() != 1) throw std::invalid_argument("locked must be 1-D");
                    lk = locked->data();
                    nlk = locked->shape(0);
                }
                const int64_t *bd = nullptr;
                if (bounds) {
                    if (bounds->ndim() != 1 || bounds->shape(0) != h.k())
                        throw std::invalid_argument("bounds must hold one weight per block");
                    bd = bounds->data();
                }
                IncResult res;
                {
                    py::gil_scoped_release release;
                    res = r.refine(h, tv.p, tv.n, te.p, te.n, nv.p, nv.n, opt, lk, nlk, bd);
                }
                return py::make_tuple(to_numpy(std::move(res.moved)),
                                      to_numpy(std::move(res.from)), stats_dict(res.stats));
            },
            py::arg("h"), py::arg("touched_v"), py::arg("touched_e"), py::arg("new_v"),
            py::arg("objective") = 0, py::arg("max_net_size") = 64, py::arg("expand") = 1,
            py::arg("max_rounds") = 32, py::arg("refine_rounds") = 4, py::arg("fm") = true,
            py::arg("fm_max_fruitless") = 64, py::arg("fm_max_moves") = 0,
            py::arg("locked") = py::none(), py::arg("bounds") = py::none(),
            "Refines h's partition around the seeds; returns (moved vertices, their blocks on "
            "entry, stats). locked (uint8 per vertex id, optional; ids beyond it are free): "
            "vertices that never move. bounds (int64 per block, optional): per-block maximum "
            "weights instead of the epsilon bound.");
}
