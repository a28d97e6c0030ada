// Text I/O kernels: a line tokenizer for the hMETIS / METIS / partition formats and a line
// formatter for writing them. Format semantics (headers, weights, ranges) are checked in Python
// over the token arrays, vectorised; this file only turns bytes into integers and back, fast.
#include "io.h"

#include <charconv>
#include <cstring>

namespace igp {

namespace {
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
}  // namespace

Tokens tokenize(const char *buf, int64_t len) {
    Tokens t;
    t.values.reserve(static_cast<size_t>(len / 3 + 16));
    t.line_ptr.push_back(0);
    const char *p = buf;
    const char *end = buf + len;
    int64_t line = 0;
    while (p < end) {
        ++line;
        const char *eol = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
        if (!eol) eol = end;
        const char *q = p;
        while (q < eol && is_space(*q)) ++q;
        if (q < eol && *q == '%') {  // comment line
            p = eol + 1;
            continue;
        }
        while (q < eol) {
            const char *tok = q;
            while (q < eol && !is_space(*q)) ++q;
            const char *s = tok;
            if (*s == '+') ++s;  // from_chars accepts '-' but not '+'
            int64_t v = 0;
            auto res = std::from_chars(s, q, v);
            if (res.ec != std::errc() || res.ptr != q || s == q) {
                std::string token(tok, static_cast<size_t>(std::min<ptrdiff_t>(q - tok, 40)));
                if (res.ec == std::errc::result_out_of_range)
                    throw ParseError(line, "integer out of range '" + token + "'");
                throw ParseError(line, "non-integer token '" + token + "'");
            }
            t.values.push_back(v);
            while (q < eol && is_space(*q)) ++q;
        }
        t.line_ptr.push_back(static_cast<int64_t>(t.values.size()));
        t.line_no.push_back(line);
        p = eol + 1;
    }
    return t;
}

std::string format_lines(const int64_t *ptr, int64_t nlines, const int64_t *values) {
    std::string out;
    int64_t total = ptr[nlines] - ptr[0];
    out.reserve(static_cast<size_t>(total * 8 + nlines + 16));
    char tmp[24];
    for (int64_t i = 0; i < nlines; ++i) {
        for (int64_t j = ptr[i]; j < ptr[i + 1]; ++j) {
            auto res = std::to_chars(tmp, tmp + sizeof(tmp), values[j]);
            if (j > ptr[i]) out.push_back(' ');
            out.append(tmp, res.ptr);
        }
        out.push_back('\n');
    }
    return out;
}

}  // namespace igp
