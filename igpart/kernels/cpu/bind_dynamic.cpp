// Bindings of the dynamic hypergraph (dynamic.h): the class DynamicHypergraph and the exception
// RecordError(index, reason) raised for an invalid change record or move.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "csr.h"
#include "dynamic.h"
#include "numpy_util.h"

namespace py = pybind11;
using namespace igp;

namespace {

// A copy of the first `count` entries of v as a numpy array.
template <class T>
py::array_t<T> head_copy(const std::vector<T> &v, int64_t count) {
    return to_numpy(std::vector<T>(v.begin(), v.begin() + count));
}

void check_length(const py::array &a, int64_t n, const char *what) {
    if (a.ndim() != 1 || a.shape(0) != n)
        throw std::invalid_argument(std::string(what) + " must be 1-D of length " +
                                    std::to_string(n));
}

DynamicHypergraph *build(Arr<int64_t> eptr, Arr<int32_t> eind, int64_t n, Arr<int64_t> vwgt,
                         Arr<int64_t> ewgt, Arr<int32_t> parts, int32_t k, double eps,
                         int32_t gamma, double headroom, double growth, bool sparse_phi) {
    if (n < 0 || n >= INT32_MAX) throw std::invalid_argument("vertex count out of range");
    check_csr(eptr, eind, n, "DynamicHypergraph");
    const int64_t m = eptr.shape(0) - 1;
    if (m >= INT32_MAX) throw std::invalid_argument("net count out of range");
    check_length(vwgt, n, "vwgt");
    check_length(ewgt, m, "ewgt");
    check_length(parts, n, "parts");
    if (k < 1) throw std::invalid_argument("k must be at least 1");
    if (!(eps >= 0)) throw std::invalid_argument("epsilon must be non-negative");
    if (gamma < 0) throw std::invalid_argument("gamma must be non-negative");
    if (!(headroom >= 0)) throw std::invalid_argument("headroom must be non-negative");
    if (!(growth > 1.0)) throw std::invalid_argument("growth must be greater than 1");
    for (int64_t i = 0; i < n; ++i) {
        if (parts.data()[i] < 0 || parts.data()[i] >= k)
            throw std::invalid_argument("parts: block id out of range");
        if (vwgt.data()[i] < 0) throw std::invalid_argument("vwgt: negative weight");
    }
    for (int64_t e = 0; e < m; ++e)
        if (ewgt.data()[e] < 0) throw std::invalid_argument("ewgt: negative weight");
    if (rows_have_duplicates(eptr.data(), m, eind.data(), n))
        throw std::invalid_argument("a net lists a pin twice");
    DynOptions opt;
    opt.gamma = gamma;
    opt.headroom = headroom;
    opt.growth = growth;
    opt.sparse_phi = sparse_phi;
    py::gil_scoped_release release;
    return new DynamicHypergraph(eptr.data(), eind.data(), m, n, vwgt.data(), ewgt.data(),
                                 parts.data(), k, eps, opt);
}

void check_vertex(const DynamicHypergraph &h, int64_t v) {
    if (!h.vertex_alive(v)) throw std::invalid_argument("no live vertex " + std::to_string(v));
}

void check_net(const DynamicHypergraph &h, int64_t e) {
    if (!h.net_alive(e)) throw std::invalid_argument("no live net " + std::to_string(e));
}

py::dict pool_stats(const BucketLists &l, int64_t ids) {
    py::dict d;
    int64_t lists_buckets = 0;
    for (int64_t i = 0; i < ids; ++i) lists_buckets += l.hdr[i].nbuckets;
    d["slots_per_bucket"] = l.pool.width;
    d["capacity"] = l.pool.capacity();
    d["used"] = l.pool.used;
    d["in_lists"] = lists_buckets;
    d["free"] = l.pool.free_count;
    d["available"] = l.pool.available();
    d["growths"] = l.pool.growths;
    return d;
}

}  // namespace

void igp::bind_dynamic(py::module_ &m) {
    static py::handle record_error =
        PyErr_NewException("igpart.kernels._cpu.RecordError", PyExc_ValueError, nullptr);
    m.attr("RecordError") = record_error;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const RecordError &e) {
            py::tuple args = py::make_tuple(e.index, e.reason);
            PyErr_SetObject(record_error.ptr(), args.ptr());
        }
    });

    py::dict ops;
    ops["insert_vertex"] = static_cast<int>(OP_INSERT_VERTEX);
    ops["delete_vertex"] = static_cast<int>(OP_DELETE_VERTEX);
    ops["insert_net"] = static_cast<int>(OP_INSERT_NET);
    ops["delete_net"] = static_cast<int>(OP_DELETE_NET);
    ops["insert_pin"] = static_cast<int>(OP_INSERT_PIN);
    ops["delete_pin"] = static_cast<int>(OP_DELETE_PIN);
    ops["set_vertex_weight"] = static_cast<int>(OP_SET_VERTEX_WEIGHT);
    ops["set_net_weight"] = static_cast<int>(OP_SET_NET_WEIGHT);
    m.attr("CHANGE_OPS") = ops;
    m.attr("BUCKET_SLOTS") = IGP_BUCKET_SLOTS;
    m.attr("PHI_SLOTS") = IGP_PHI_SLOTS;

    py::class_<DynamicHypergraph> cls(m, "DynamicHypergraph",
                                      "Bucket-list dynamic hypergraph with a maintained partition.");
    bind_dynamic_store(cls);
    cls.def(py::init(&build), py::arg("eptr"), py::arg("eind"), py::arg("n"), py::arg("vwgt"),
             py::arg("ewgt"), py::arg("parts"), py::arg("k"), py::arg("epsilon"),
             py::arg("gamma") = 1, py::arg("headroom") = 0.1, py::arg("growth") = 2.0,
             py::arg("sparse_phi") = false)
        .def(
            "apply",
            [](DynamicHypergraph &h, Arr<int8_t> ops, Arr<int64_t> args) {
                if (ops.ndim() != 1) throw std::invalid_argument("ops must be 1-D");
                const int64_t n = ops.shape(0);
                if (args.ndim() != 2 || args.shape(0) != 3 || args.shape(1) != n)
                    throw std::invalid_argument("args must have shape (3, len(ops))");
                const int64_t *a = args.data();
                BatchResult r = h.apply(ops.data(), a, a + n, a + 2 * n, n);
                return py::make_tuple(to_numpy(std::move(r.created)),
                                      to_numpy(std::move(r.touched_v)),
                                      to_numpy(std::move(r.touched_e)));
            },
            py::arg("ops"), py::arg("args"),
            "Validates and applies a batch; returns (created per record, touched vertices, "
            "touched nets). Raises RecordError(index, reason) and changes nothing when a record "
            "is invalid.")
        .def(
            "move",
            [](DynamicHypergraph &h, Arr<int32_t> vertices, Arr<int32_t> blocks) {
                check_length(blocks, vertices.ndim() == 1 ? vertices.shape(0) : -1, "blocks");
                return h.move(vertices.data(), blocks.data(), vertices.shape(0));
            },
            py::arg("vertices"), py::arg("blocks"),
            "Moves vertices[i] to blocks[i] in order; returns the change of (cut, km1).")
        .def("begin_batch", &DynamicHypergraph::begin_batch,
             "Opens a transaction: writes from now on are journaled (see rollback_batch).")
        .def("commit_batch", &DynamicHypergraph::commit_batch,
             "Closes the open transaction, keeping its changes.")
        .def("rollback_batch", &DynamicHypergraph::rollback_batch,
             "Restores the state at begin_batch() byte for byte and closes the transaction.")
        .def_property_readonly("in_batch", &DynamicHypergraph::in_batch)
        .def_property_readonly("journal_entries", &DynamicHypergraph::journal_entries)
        .def_property_readonly("k", &DynamicHypergraph::k)
        .def_property_readonly("epsilon", &DynamicHypergraph::epsilon)
        .def_property_readonly("gamma", [](const DynamicHypergraph &h) { return h.options().gamma; })
        .def_property_readonly("sparse_phi",
                               [](const DynamicHypergraph &h) { return h.options().sparse_phi; })
        .def_property_readonly("cut", &DynamicHypergraph::cut)
        .def_property_readonly("km1", &DynamicHypergraph::km1)
        .def_property_readonly("total_weight", &DynamicHypergraph::total_weight)
        .def_property_readonly("max_block_weight", &DynamicHypergraph::max_block_weight)
        .def_property_readonly("num_vertices", &DynamicHypergraph::num_vertices)
        .def_property_readonly("num_nets", &DynamicHypergraph::num_nets)
        .def_property_readonly("num_pins", &DynamicHypergraph::num_pins)
        .def_property_readonly("vertex_bound", &DynamicHypergraph::vertex_bound)
        .def_property_readonly("net_bound", &DynamicHypergraph::net_bound)
        .def("parts", [](const DynamicHypergraph &h) { return head_copy(h.part(), h.vertex_bound()); })
        .def(
            "blocks_of",
            [](const DynamicHypergraph &h, Arr<int32_t> ids) {
                if (ids.ndim() != 1) throw std::invalid_argument("ids must be 1-D");
                std::vector<int32_t> out(static_cast<size_t>(ids.shape(0)));
                for (int64_t i = 0; i < ids.shape(0); ++i) {
                    const int32_t v = ids.data()[i];
                    out[i] = h.vertex_alive(v) ? h.part()[v] : -1;
                }
                return to_numpy(std::move(out));
            },
            py::arg("ids"), "Block of each given vertex id (-1 for ids that are not live).")
        .def("vertex_status",
             [](const DynamicHypergraph &h) { return head_copy(h.vertex_status(), h.vertex_bound()); })
        .def("net_status",
             [](const DynamicHypergraph &h) { return head_copy(h.net_status(), h.net_bound()); })
        .def("vertex_weights",
             [](const DynamicHypergraph &h) { return head_copy(h.vertex_weight(), h.vertex_bound()); })
        .def("net_weights",
             [](const DynamicHypergraph &h) { return head_copy(h.net_weight(), h.net_bound()); })
        .def("connectivity",
             [](const DynamicHypergraph &h) { return head_copy(h.lambda(), h.net_bound()); })
        .def("block_weights",
             [](const DynamicHypergraph &h) { return head_copy(h.block_weight(), h.k()); })
        .def(
            "nets_of",
            [](const DynamicHypergraph &h, int64_t v) {
                check_vertex(h, v);
                return to_numpy(h.nets_of(static_cast<int32_t>(v)));
            },
            py::arg("v"))
        .def(
            "pins_of",
            [](const DynamicHypergraph &h, int64_t e) {
                check_net(h, e);
                return to_numpy(h.pins_of(static_cast<int32_t>(e)));
            },
            py::arg("e"))
        .def(
            "phi",
            [](const DynamicHypergraph &h, int64_t e) {
                check_net(h, e);
                std::vector<int32_t> row(static_cast<size_t>(h.k()));
                for (int32_t b = 0; b < h.k(); ++b) row[b] = h.phi(static_cast<int32_t>(e), b);
                return to_numpy(std::move(row));
            },
            py::arg("e"), "Phi(e, b) for every block b.")
        .def("compact",
             [](const DynamicHypergraph &h) {
                 DynamicHypergraph::Compact c;
                 {
                     py::gil_scoped_release release;
                     c = h.compact();
                 }
                 return py::make_tuple(to_numpy(std::move(c.eptr)), to_numpy(std::move(c.eind)),
                                       to_numpy(std::move(c.vwgt)), to_numpy(std::move(c.ewgt)),
                                       to_numpy(std::move(c.parts)),
                                       to_numpy(std::move(c.vertex_ids)),
                                       to_numpy(std::move(c.net_ids)));
             },
             "(eptr, eind, vwgt, ewgt, parts, vertex_ids, net_ids) of the live part, ids ascending.")
        .def("dump",
             [](const DynamicHypergraph &h) {
                 py::dict d;
                 h.visit_state([&](const std::string &name, const auto &vec) {
                     d[py::str(name)] = head_copy(vec, static_cast<int64_t>(vec.size()));
                 });
                 return d;
             },
             "Copies of every array and counter of the state (for exact comparisons).")
        .def("stats",
             [](const DynamicHypergraph &h) {
                 py::dict d;
                 d["vertex_pool"] = pool_stats(h.vertex_lists(), h.vertex_bound());
                 d["net_pool"] = pool_stats(h.net_lists(), h.net_bound());
                 if (h.options().sparse_phi)
                     d["phi_pool"] = pool_stats(h.phi_lists(), h.net_bound());
                 d["vertex_id_capacity"] = static_cast<int64_t>(h.vertex_status().size());
                 d["net_id_capacity"] = static_cast<int64_t>(h.net_status().size());
                 d["vertex_id_growths"] = h.vertex_id_growths();
                 d["net_id_growths"] = h.net_id_growths();
                 d["free_vertex_ids"] = static_cast<int64_t>(h.free_vertex_ids().size());
                 d["free_net_ids"] = static_cast<int64_t>(h.free_net_ids().size());
                 d["batches"] = h.batches();
                 d["records"] = h.records();
                 return d;
             })
        .def("check", &DynamicHypergraph::check,
             "Recomputes all derived state and raises RuntimeError on any inconsistency.");
}
