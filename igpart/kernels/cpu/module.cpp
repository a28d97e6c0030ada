// pybind11 module of the C++ backend: igpart.kernels._cpu.
// Each family of kernels registers its functions from its own bind_*.cpp (declared in bindings.h).
// Every binding checks the shapes and index ranges it relies on (raising ValueError), releases
// the GIL for the work, and returns numpy arrays that own their memory.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "numpy_util.h"

namespace py = pybind11;
using namespace igp;

PYBIND11_MODULE(_cpu, m) {
    m.doc() = "igpart C++ backend kernels";

    static py::handle parse_error_type = PyErr_NewException("igpart.kernels._cpu.ParseError", PyExc_ValueError, nullptr);
    m.attr("ParseError") = parse_error_type;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ParseError &e) {
            py::tuple args = py::make_tuple(e.line, e.msg);
            PyErr_SetObject(parse_error_type.ptr(), args.ptr());
        }
    });

    bind_basic(m);
    bind_partition(m);
    bind_dynamic(m);
    bind_incremental(m);
    bind_community(m);
    bind_netlist(m);
    bind_store(m);
    bind_mapping(m);
    bind_metis(m);
    bind_rb_flat(m);
    bind_block_split(m);
}
