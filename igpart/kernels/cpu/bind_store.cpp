// Bindings of the host store pieces: PmaRows (packed-memory-array CSR, pma.h), HotCache (the
// hot-subgraph cache policy, hot_cache.h), and the host store of DynamicHypergraph (host_store.h:
// attach_store, end_batch, store_stats, store_row).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "csr.h"
#include "dynamic.h"
#include "host_store.h"
#include "hot_cache.h"
#include "numpy_util.h"
#include "pma.h"

namespace py = pybind11;
using namespace igp;

namespace {

PmaOptions pma_options(int64_t leaf, double upper_leaf, double upper_root, double lower_root,
                       double build_density) {
    PmaOptions o;
    o.leaf = leaf;
    o.upper_leaf = upper_leaf;
    o.upper_root = upper_root;
    o.lower_root = lower_root;
    o.build_density = build_density;
    return o;
}

void check_row(const PmaRows &p, int64_t r) {
    if (r < 0 || r >= p.rows())
        throw std::invalid_argument("row " + std::to_string(r) + " out of range [0, " +
                                    std::to_string(p.rows()) + ")");
}

void check_key(const HotCache &c, int64_t key) {
    if (key < 0 || key >= c.keys())
        throw std::invalid_argument("key " + std::to_string(key) + " out of range [0, " +
                                    std::to_string(c.keys()) + ")");
}

py::dict stats_dict(const CacheStats &s) {
    py::dict d;
    d["hits"] = s.hits;
    d["hit_bytes"] = s.hit_bytes;
    d["cold_reads"] = s.cold_reads;
    d["cold_bytes"] = s.cold_bytes;
    d["loaded"] = s.loaded;
    d["load_bytes"] = s.load_bytes;
    d["reloaded"] = s.reloaded;
    d["reload_bytes"] = s.reload_bytes;
    d["written"] = s.written;
    d["write_bytes"] = s.write_bytes;
    d["staged"] = s.staged;
    d["staged_hits"] = s.staged_hits;
    d["evicted"] = s.evicted;
    d["hot_rows"] = s.hot_rows;
    d["hot_bytes"] = s.hot_bytes;
    d["candidates"] = s.candidates;
    d["retained"] = s.retained;
    if (s.paged) {
        d["managed_bytes"] = s.page_bytes;
        d["managed_faults"] = s.page_faults;
    }
    d["moved_bytes"] = s.moved();
    d["zero_copy_bytes"] = s.zero_copy();
    return d;
}

py::dict rows_stats(const PmaRows &p) {
    py::dict d;
    d["rows"] = p.rows();
    d["capacity"] = p.capacity();
    d["height"] = p.height();
    d["entries"] = p.entries();
    d["used"] = p.used();
    d["rebalances"] = p.rebalances();
    d["moved_slots"] = p.moved_slots();
    d["growths"] = p.growths();
    d["shrinks"] = p.shrinks();
    return d;
}

// bytes_of for HotCache calls from Python: an int64 array of row sizes indexed by key.
std::function<int64_t(int64_t)> sizes_of(const Arr<int64_t> &sizes, const HotCache &c) {
    if (sizes.ndim() != 1 || sizes.shape(0) < c.keys())
        throw std::invalid_argument("sizes must be 1-D with one entry per key");
    const int64_t *p = sizes.data();
    return [p](int64_t key) { return p[key]; };
}

}  // namespace

void igp::bind_store(py::module_ &m) {
    py::class_<PmaRows>(m, "PmaRows", "Packed-memory-array CSR: rows with gaps (pma.h).")
        .def(py::init([](int64_t leaf, double ul, double ur, double lr, double bd) {
                 return PmaRows(pma_options(leaf, ul, ur, lr, bd));
             }),
             py::arg("leaf") = 64, py::arg("upper_leaf") = 1.0, py::arg("upper_root") = 0.75,
             py::arg("lower_root") = 0.125, py::arg("build_density") = 0.5)
        .def(
            "build",
            [](PmaRows &p, Arr<int64_t> ptr, Arr<int32_t> ind) {
                if (ptr.ndim() != 1 || ptr.shape(0) < 1)
                    throw std::invalid_argument("ptr must be 1-D with at least one entry");
                check_csr(ptr, ind, INT32_MAX, "PmaRows.build");
                p.build(ptr.data(), ind.data(), ptr.shape(0) - 1);
            },
            py::arg("ptr"), py::arg("ind"), "Replaces the content by the rows of a CSR.")
        .def("add_rows",
             [](PmaRows &p, int64_t count) {
                 if (count < 0 || p.rows() + count >= INT32_MAX)
                     throw std::invalid_argument("row count out of range");
                 p.add_rows(count);
             })
        .def("insert",
             [](PmaRows &p, int64_t r, int32_t value) {
                 check_row(p, r);
                 if (value < 0) throw std::invalid_argument("entries must be non-negative");
                 p.insert(static_cast<int32_t>(r), value);
             })
        .def("erase",
             [](PmaRows &p, int64_t r, int32_t value) {
                 check_row(p, r);
                 return p.erase(static_cast<int32_t>(r), value);
             })
        .def("clear",
             [](PmaRows &p, int64_t r) {
                 check_row(p, r);
                 p.clear(static_cast<int32_t>(r));
             })
        .def("row",
             [](const PmaRows &p, int64_t r) {
                 check_row(p, r);
                 return to_numpy(p.row(static_cast<int32_t>(r)));
             })
        .def("upper", &PmaRows::upper, py::arg("level"))
        .def_property_readonly("rows", &PmaRows::rows)
        .def_property_readonly("capacity", &PmaRows::capacity)
        .def_property_readonly("height", &PmaRows::height)
        .def("slots", [](const PmaRows &p) { return to_numpy(std::vector<int32_t>(p.slots())); })
        .def("starts", [](const PmaRows &p) { return to_numpy(std::vector<int64_t>(p.starts())); })
        .def("lengths",
             [](const PmaRows &p) { return to_numpy(std::vector<int64_t>(p.lengths())); })
        .def("stats", &rows_stats)
        .def("check", &PmaRows::check, "Verifies the layout; RuntimeError on a violation.");

    py::class_<HotCache>(m, "HotCache", "Hot-subgraph cache policy (hot_cache.h).")
        .def(py::init<int64_t, int32_t, int32_t, bool, bool>(), py::arg("budget"),
             py::arg("tau") = 3, py::arg("min_hotness") = 1, py::arg("stage") = true,
             py::arg("retain") = true)
        .def("resize", &HotCache::resize, py::arg("keys"))
        .def_property_readonly("keys", &HotCache::keys)
        .def(
            "record",
            [](HotCache &c, Arr<int64_t> keys, Arr<int64_t> sizes) {
                if (keys.ndim() != 1) throw std::invalid_argument("keys must be 1-D");
                for (int64_t i = 0; i < keys.shape(0); ++i) check_key(c, keys.data()[i]);
                const auto size = sizes_of(sizes, c);
                for (int64_t i = 0; i < keys.shape(0); ++i)
                    c.record(keys.data()[i], size(keys.data()[i]));
            },
            py::arg("keys"), py::arg("sizes"),
            "Records a read of each key in order (sizes: bytes of every key's row).")
        .def(
            "modified",
            [](HotCache &c, Arr<int64_t> keys) {
                if (keys.ndim() != 1) throw std::invalid_argument("keys must be 1-D");
                for (int64_t i = 0; i < keys.shape(0); ++i) check_key(c, keys.data()[i]);
                for (int64_t i = 0; i < keys.shape(0); ++i) c.modified(keys.data()[i]);
            },
            py::arg("keys"), "Rows changed; the device's copies are stale (reloaded later).")
        .def(
            "updated",
            [](HotCache &c, Arr<int64_t> keys, Arr<int64_t> sizes, int64_t write_bytes) {
                if (keys.ndim() != 1) throw std::invalid_argument("keys must be 1-D");
                if (write_bytes < 0) throw std::invalid_argument("write_bytes must be >= 0");
                for (int64_t i = 0; i < keys.shape(0); ++i) check_key(c, keys.data()[i]);
                const auto size = sizes_of(sizes, c);
                for (int64_t i = 0; i < keys.shape(0); ++i)
                    c.updated(keys.data()[i], size(keys.data()[i]), write_bytes);
            },
            py::arg("keys"), py::arg("sizes"), py::arg("write_bytes") = 4,
            "Rows changed and the change was written through to the device's copies (sizes: "
            "bytes of every key's row after the change).")
        .def(
            "finish_changes",
            [](HotCache &c, Arr<int64_t> sizes) { c.finish_changes(sizes_of(sizes, c)); },
            py::arg("sizes"))
        .def(
            "end_batch",
            [](HotCache &c, Arr<int64_t> sizes) { return stats_dict(c.end_batch(sizes_of(sizes, c))); },
            py::arg("sizes"), "Refreshes the hot set and slides the window; the batch's figures.")
        .def("hot_keys", [](const HotCache &c) { return to_numpy(c.hot_keys()); })
        .def("hotness",
             [](const HotCache &c, int64_t key) {
                 check_key(c, key);
                 return c.hotness(key);
             })
        .def_property_readonly("hot_bytes", &HotCache::hot_bytes)
        .def_property_readonly("staged_bytes", &HotCache::staged_bytes)
        .def_property_readonly("budget", &HotCache::budget)
        .def_property_readonly("tau", &HotCache::tau);
}

void igp::bind_dynamic_store(py::class_<DynamicHypergraph> &cls) {
    cls.def(
           "attach_store",
           [](DynamicHypergraph &h, int64_t cache_budget, int32_t tau, int32_t min_hotness,
              int64_t leaf, bool stage, int64_t page_model, bool write_through, bool retain) {
               HostStoreOptions o;
               o.pma.leaf = leaf;
               o.cache_budget = cache_budget;
               o.tau = tau;
               o.min_hotness = min_hotness;
               o.stage = stage;
               o.write_through = write_through;
               o.retain = retain;
               if (page_model < 0) throw std::invalid_argument("page size must be non-negative");
               o.page_model = page_model;
               HotCache check(cache_budget, tau, min_hotness);  // validates the policy options
               PmaRows check_rows(o.pma);                       // ... and the layout options
               h.attach_store(o);
           },
           py::arg("cache_budget"), py::arg("tau") = 3, py::arg("min_hotness") = 1,
           py::arg("leaf") = 64, py::arg("stage") = true, py::arg("page_model") = 0,
           py::arg("write_through") = true, py::arg("retain") = true,
           "Keeps the adjacency also in a host store (packed-memory-array CSRs) and reads it "
           "from there, recording reads with the hot-subgraph cache policy.")
        .def_property_readonly("has_store",
                               [](const DynamicHypergraph &h) { return h.store() != nullptr; })
        .def(
            "end_batch",
            [](DynamicHypergraph &h) {
                if (!h.store()) throw std::invalid_argument("no host store attached");
                return stats_dict(h.store()->end_batch());
            },
            "Closes a batch of the host store's cache policy; the batch's transfer figures.")
        .def("store_stats",
             [](const DynamicHypergraph &h) {
                 const HostStore *s = h.store();
                 if (!s) throw std::invalid_argument("no host store attached");
                 py::dict d;
                 d["vertex_rows"] = rows_stats(s->vertex_rows());
                 d["net_rows"] = rows_stats(s->net_rows());
                 d["host_bytes"] = s->host_bytes();
                 d["cache_budget"] = s->cache().budget();
                 d["hot_bytes"] = s->cache().hot_bytes();
                 d["hot_rows"] = static_cast<int64_t>(s->cache().hot_keys().size());
                 d["tau"] = s->cache().tau();
                 d["stage"] = s->cache().stage();
                 return d;
             })
        .def(
            "store_row",
            [](const DynamicHypergraph &h, bool net, int64_t id) {
                const HostStore *s = h.store();
                if (!s) throw std::invalid_argument("no host store attached");
                const PmaRows &p = net ? s->net_rows() : s->vertex_rows();
                check_row(p, id);
                return to_numpy(p.row(static_cast<int32_t>(id)));
            },
            py::arg("net"), py::arg("id"), "A row of the host store (the nets of a vertex, or "
            "with net=True the pins of a net), read without recording it.");
}
