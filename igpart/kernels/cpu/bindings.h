// Registration functions of the pybind11 module, one per family of kernels, plus shared checks.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "numpy_util.h"
#include "partition.h"

namespace py = pybind11;

namespace igp {

// Raises std::invalid_argument (ValueError): "what: msg" (bind_partition.cpp).
[[noreturn]] void fail(const std::string &what, const std::string &msg);

// Raises ValueError (fail) unless `a` is 1-D of length len; `name` is the array's name.
void check_len(const py::array &a, int64_t len, const char *name, const std::string &what);

// Raises std::invalid_argument (ValueError) unless ptr/ind form a CSR of ptr.size()-1 rows whose
// column ids lie in [0, ncols).
void check_csr(const Arr<int64_t> &ptr, const Arr<int32_t> &ind, int64_t ncols, const char *what);

// Checks both incidence directions and the weights of a hypergraph level (ValueError naming
// `what`); returns its view (bind_partition.cpp).
HgView hg_view(const Arr<int64_t> &eptr, const Arr<int32_t> &eind, const Arr<int64_t> &ewgt,
               const Arr<int64_t> &vptr, const Arr<int32_t> &vind, const Arr<int64_t> &vwgt,
               const std::string &what);

// Checks a graph level's CSR and the lengths of its weights (ValueError naming `what`); returns
// its view (bind_partition.cpp).
GraphView graph_view(const Arr<int64_t> &xadj, const Arr<int32_t> &adjncy,
                     const Arr<int64_t> &adjwgt, const Arr<int64_t> &vwgt,
                     const std::string &what);

void bind_basic(py::module_ &m);      // bind_basic.cpp: tokenizer, formatter, CSR, metrics
void bind_partition(py::module_ &m);  // bind_partition.cpp: multilevel stage operations
void bind_dynamic(py::module_ &m);    // bind_dynamic.cpp: dynamic hypergraph (incremental engine)
void bind_incremental(py::module_ &m);  // bind_incremental.cpp: incremental refinement
void bind_community(py::module_ &m);  // bind_community.cpp: community detection (Louvain)
void bind_netlist(py::module_ &m);    // bind_netlist.cpp: fast flat-Verilog reader
void bind_store(py::module_ &m);      // bind_store.cpp: PMA-CSR, hot-subgraph cache policy
class DynamicHypergraph;
// bind_store.cpp: the host-store methods of the DynamicHypergraph class
void bind_dynamic_store(py::class_<DynamicHypergraph> &cls);
void bind_mapping(py::module_ &m);    // mapping_gain.cpp: process mapping gains
void bind_metis(py::module_ &m);      // metis_native.cpp: METIS seeds side by side
void bind_rb_flat(py::module_ &m);    // rb_flat.cpp: flat recursive bisection of small subtrees
void bind_block_split(py::module_ &m);  // block_split.cpp: bisection of a level's blocks (deep multilevel)

// `name()` returning the process-wide run length `run` and `set_name(run)` setting it (a
// negative run refused with ValueError); `what` says which visiting order it cuts into runs.
inline void def_order_run(py::module_ &m, const std::string &name, OrderRun &run,
                          const std::string &what) {
    m.def(name.c_str(), [&run] { return run.get(); },
          ("The runs of consecutive ids in which " + what +
           " visit the vertices (0: one seeded order over all of them).")
              .c_str());
    const std::string setter = "set_" + name;
    m.def(
        setter.c_str(),
        [&run, setter](int64_t value) {
            if (value < 0) throw std::invalid_argument(setter + ": run must be >= 0");
            run.set(value);
        },
        py::arg("run"), ("Sets " + name + " (process-wide).").c_str());
}

}  // namespace igp
