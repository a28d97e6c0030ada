// Fast reader of flat gate-level Verilog netlists (the netlist front-end's `fast` parser).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace igp {

// Columnar result; names are joined with '\n' (identifiers never contain one). When the input
// uses a construct this reader does not handle, `unsupported` says which (at `line`) and the
// caller falls back to pyverilog; a malformed input throws ParseError(line, message), whose
// message is always valid UTF-8.
struct FlatNetlist {
    std::string top;
    std::string unsupported;
    int64_t line = 0;
    std::string port_names, net_names, inst_names, cell_names, pin_names;
    std::vector<int8_t> port_dir;  // 0 input, 1 output, 2 inout
    std::vector<int32_t> port_net;
    std::vector<int32_t> inst_cell;
    std::vector<int32_t> pin_inst, pin_name, pin_net;  // pin_net -1: unconnected
};

// max_bits bounds the net bits that declarations create (a bus [2147483647:0] must fail fast).
FlatNetlist read_flat_verilog(const char *buf, int64_t len, int64_t max_bits);

}  // namespace igp
