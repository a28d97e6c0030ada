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

size_t utf8_char_len(const unsigned char *s, size_t n) {
    if (n == 0) return 0;
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;  // no overlong forms
        if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; ++i)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return len;
}

std::string hex_byte(unsigned char b) {
    static const char hex[] = "0123456789abcdef";
    return std::string("0x") + hex[b >> 4] + hex[b & 15];
}

std::string printable(const char *s, size_t n, size_t max_bytes) {
    const auto *u = reinterpret_cast<const unsigned char *>(s);
    std::string out;
    size_t i = 0;
    while (i < n) {
        size_t len = utf8_char_len(u + i, n - i);
        bool plain = len > 1 || (len == 1 && u[i] >= 0x20 && u[i] != 0x7f);
        size_t cost = plain ? len : 4;
        if (out.size() + cost > max_bytes) break;
        if (plain) {
            out.append(s + i, len);
            i += len;
        } else {
            out += "\\x";
            out += hex_byte(u[i]).substr(2);
            i += 1;
        }
    }
    if (i < n) out += "...";
    return out;
}

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
                std::string token = printable(tok, static_cast<size_t>(q - tok));
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
