#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "numpy_util.h"

namespace igp {

// Integer tokens of every non-comment line. line_ptr[i]..line_ptr[i+1] index values of the i-th
// kept line; line_no[i] is its 1-based line number in the file. Blank lines are kept (0 tokens).
struct Tokens {
    std::vector<int64_t> values;
    std::vector<int64_t> line_ptr;
    std::vector<int64_t> line_no;
};

Tokens tokenize(const char *buf, int64_t len);
std::string format_lines(const int64_t *ptr, int64_t nlines, const int64_t *values);

}  // namespace igp
