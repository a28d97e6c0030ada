#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "numpy_util.h"
#include "partition.h"

namespace igp {

// Integer tokens of every non-comment line. line_ptr[i]..line_ptr[i+1] index values of the i-th
// kept line; line_no[i] is its 1-based line number in the file. Blank lines are kept (0 tokens).
// Buffers of several MB are read in chunks of whole lines on the OpenMP threads (counted, then
// parsed into place); the first bad token in the file is the one reported, as read in one pass.
struct Tokens {
    UninitVector<int64_t> values;
    UninitVector<int64_t> line_ptr;
    UninitVector<int64_t> line_no;
};

Tokens tokenize(const char *buf, int64_t len);

// Up to max_bytes of s[0, n) as printable UTF-8 for an error message: valid multi-byte UTF-8
// characters are kept whole (never cut in half), other bytes >= 0x80 and control characters are
// written as \xNN, and "..." marks a cut. The result always converts to a Python str.
std::string printable(const char *s, size_t n, size_t max_bytes = 40);
inline std::string printable(const std::string &s, size_t max_bytes = 40) {
    return printable(s.data(), s.size(), max_bytes);
}

// "0xNN"
std::string hex_byte(unsigned char b);

// Length of the valid UTF-8 character starting at s[0] (at most n bytes available), or 0 when
// the bytes there are not one.
size_t utf8_char_len(const unsigned char *s, size_t n);
std::string format_lines(const int64_t *ptr, int64_t nlines, const int64_t *values);

// The nets of an hMETIS body from tokenize's arrays: net i is kept line net_lines[i] (its values
// values[line_ptr[l]] .. values[line_ptr[l + 1]]: a weight first when net_weights, then pin ids
// 1..n). eptr / eind (0-based int32 ids) / ewgt (net_weights only) in parallel, or the first
// defect in file order: bad_net (a net without pins; nothing else filled), bad_pin (the pin
// index, in eind's order, of an id outside [1, n]), bad_weight (a net of negative weight).
struct HgrNets {
    UninitVector<int64_t> eptr;
    UninitVector<int32_t> eind;
    UninitVector<int64_t> ewgt;
    int64_t bad_net = -1, bad_pin = -1, bad_weight = -1;
};
HgrNets hgr_nets(const int64_t *values, const int64_t *line_ptr, const int64_t *net_lines,
                 int64_t m, int64_t n, bool net_weights);

}  // namespace igp
