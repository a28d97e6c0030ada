// Bindings of the netlist front-end kernels: the fast flat-Verilog reader.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "numpy_util.h"
#include "verilog.h"

namespace py = pybind11;
using namespace igp;

void igp::bind_netlist(py::module_ &m) {
    m.def(
        "read_flat_verilog",
        [](py::buffer b, int64_t max_bits) {
            py::buffer_info info = b.request();
            if (info.itemsize != 1) throw std::invalid_argument("read_flat_verilog expects bytes");
            const char *data = static_cast<const char *>(info.ptr);
            int64_t len = info.size;
            FlatNetlist r;
            {
                py::gil_scoped_release release;
                r = read_flat_verilog(data, len, max_bits);
            }
            py::dict d;
            d["unsupported"] = r.unsupported;
            d["line"] = r.line;
            d["top"] = r.top;
            d["port_names"] = py::bytes(r.port_names);
            d["net_names"] = py::bytes(r.net_names);
            d["inst_names"] = py::bytes(r.inst_names);
            d["cell_names"] = py::bytes(r.cell_names);
            d["pin_names"] = py::bytes(r.pin_names);
            d["port_dir"] = to_numpy(std::move(r.port_dir));
            d["port_net"] = to_numpy(std::move(r.port_net));
            d["inst_cell"] = to_numpy(std::move(r.inst_cell));
            d["pin_inst"] = to_numpy(std::move(r.pin_inst));
            d["pin_name"] = to_numpy(std::move(r.pin_name));
            d["pin_net"] = to_numpy(std::move(r.pin_net));
            return d;
        },
        py::arg("buffer"), py::arg("max_bits"),
        "Flat gate-level Verilog -> dict of '\\n'-joined names and columnar pin arrays; "
        "'unsupported' is non-empty (with 'line') when the file needs the pyverilog reader. "
        "Raises ParseError(line, message) on malformed input, and when declarations would create more "
        "than max_bits net bits.");
}
