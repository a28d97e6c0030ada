// Text I/O kernels: a line tokenizer for the hMETIS / METIS / partition formats and a line
// formatter for writing them. Format semantics (headers, weights, ranges) are checked in Python
// over the token arrays, vectorised; this file only turns bytes into integers and back, fast.
#include "io.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>

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

namespace {

// What one run of whole lines holds: lines (comment lines too), kept lines, tokens.
struct LineCounts {
    int64_t lines = 0, kept = 0, values = 0;
};

// Counts [p, end) (whole lines) as tokenize would read it.
LineCounts count_lines(const char *p, const char *end) {
    LineCounts c;
    while (p < end) {
        ++c.lines;
        const char *eol = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
        if (!eol) eol = end;
        const char *q = p;
        while (q < eol && is_space(*q)) ++q;
        p = eol + 1;
        if (q < eol && *q == '%') continue;  // comment line
        ++c.kept;
        bool in_token = false;
        for (; q < eol; ++q) {
            const bool space = is_space(*q);
            c.values += !space && !in_token;
            in_token = !space;
        }
    }
    return c;
}

// Parses [p, end) (whole lines, the first one numbered line + 1): out.value(x) for every token,
// out.line(number) at the end of every kept line.
template <class Out>
void parse_lines(const char *p, const char *end, int64_t line, Out &out) {
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
            int64_t x = 0;
            auto res = std::from_chars(s, q, x);
            if (res.ec != std::errc() || res.ptr != q || s == q) {
                std::string token = printable(tok, static_cast<size_t>(q - tok));
                if (res.ec == std::errc::result_out_of_range)
                    throw ParseError(line, "integer out of range '" + token + "'");
                throw ParseError(line, "non-integer token '" + token + "'");
            }
            out.value(x);
            while (q < eol && is_space(*q)) ++q;
        }
        out.line(line);
        p = eol + 1;
    }
}

// parse_lines into the Tokens' arrays, grown as it goes (one pass, one thread).
struct Append {
    Tokens &t;
    void value(int64_t x) { t.values.push_back(x); }
    void line(int64_t number) {
        t.line_ptr.push_back(static_cast<int64_t>(t.values.size()));
        t.line_no.push_back(number);
    }
};

// parse_lines into arrays sized beforehand, from value v and kept line k on.
struct Place {
    int64_t *values, *line_ptr, *line_no;
    int64_t v, k;
    void value(int64_t x) { values[v++] = x; }
    void line(int64_t number) {
        line_ptr[k + 1] = v;
        line_no[k++] = number;
    }
};

// Buffers below this many bytes are read in one pass on the calling thread.
constexpr int64_t kParallelTokenizeBytes = int64_t(1) << 22;

}  // namespace

Tokens tokenize(const char *buf, int64_t len) {
    const char *end = buf + len;
    const int threads = len >= kParallelTokenizeBytes ? max_threads() : 1;
    if (threads == 1) {
        Tokens t;
        t.values.reserve(static_cast<size_t>(len / 3 + 16));
        t.line_ptr.push_back(0);
        Append out{t};
        parse_lines(buf, end, 0, out);
        return t;
    }
    // chunks of whole lines: a chunk starts after the first newline at or past its share
    const int64_t chunks = 4 * static_cast<int64_t>(threads);
    std::vector<const char *> at(static_cast<size_t>(chunks + 1));
    at[0] = buf;
    at[chunks] = end;
    for (int64_t c = 1; c < chunks; ++c) {
        const char *p = std::max(at[c - 1], buf + len * c / chunks);
        if (p == at[c - 1] || p[-1] == '\n') {  // a line starts here
            at[c] = p;
            continue;
        }
        const void *nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
        at[c] = nl ? static_cast<const char *>(nl) + 1 : end;
    }
    std::vector<LineCounts> count(static_cast<size_t>(chunks + 1));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t c = 0; c < chunks; ++c) count[c + 1] = count_lines(at[c], at[c + 1]);
    for (int64_t c = 0; c < chunks; ++c) {  // offsets: the chunks before
        count[c + 1].lines += count[c].lines;
        count[c + 1].kept += count[c].kept;
        count[c + 1].values += count[c].values;
    }
    Tokens t;
    t.values.resize(static_cast<size_t>(count[chunks].values));
    t.line_ptr.resize(static_cast<size_t>(count[chunks].kept + 1));
    t.line_no.resize(static_cast<size_t>(count[chunks].kept));
    t.line_ptr[0] = 0;
    // the first error of each chunk; the earliest chunk's is the file's first
    std::vector<std::unique_ptr<ParseError>> error(static_cast<size_t>(chunks));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t c = 0; c < chunks; ++c) {
        try {
            Place out{t.values.data(), t.line_ptr.data(), t.line_no.data(), count[c].values,
                      count[c].kept};
            parse_lines(at[c], at[c + 1], count[c].lines, out);
        } catch (const ParseError &e) {
            error[c] = std::make_unique<ParseError>(e);
        }
    }
    for (const auto &e : error)
        if (e) throw *e;
    return t;
}

namespace {

// Lines [first, last) of format_lines, appended to out.
void format_range(const int64_t *ptr, int64_t first, int64_t last, const int64_t *values,
                  std::string &out) {
    out.reserve(out.size() + static_cast<size_t>((ptr[last] - ptr[first]) * 4 + (last - first)));
    char tmp[24];
    for (int64_t i = first; i < last; ++i) {
        for (int64_t j = ptr[i]; j < ptr[i + 1]; ++j) {
            auto res = std::to_chars(tmp, tmp + sizeof(tmp), values[j]);
            if (j > ptr[i]) out.push_back(' ');
            out.append(tmp, res.ptr);
        }
        out.push_back('\n');
    }
}

// Lines plus values below which format_lines runs on the calling thread alone.
constexpr int64_t kParallelFormatItems = int64_t(1) << 18;

}  // namespace

std::string format_lines(const int64_t *ptr, int64_t nlines, const int64_t *values) {
    std::string out;
    const int64_t items = ptr[nlines] - ptr[0] + nlines;
    const int threads = items >= kParallelFormatItems ? max_threads() : 1;
    if (threads == 1) {
        format_range(ptr, 0, nlines, values, out);
        return out;
    }
    // chunks of lines formatted side by side, then copied into place in order
    const int64_t chunks = 4 * static_cast<int64_t>(threads);
    std::vector<std::string> part(static_cast<size_t>(chunks));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t c = 0; c < chunks; ++c) {
        std::string mine;  // a local string: the parts' headers share cache lines
        format_range(ptr, nlines * c / chunks, nlines * (c + 1) / chunks, values, mine);
        part[c] = std::move(mine);
    }
    std::vector<size_t> at(static_cast<size_t>(chunks + 1), 0);
    for (int64_t c = 0; c < chunks; ++c) at[c + 1] = at[c] + part[c].size();
    out.resize(at[chunks]);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < chunks; ++c)
        if (!part[c].empty()) std::memcpy(&out[at[c]], part[c].data(), part[c].size());
    return out;
}

HgrNets hgr_nets(const int64_t *values, const int64_t *line_ptr, const int64_t *net_lines,
                 int64_t m, int64_t n, bool net_weights) {
    HgrNets out;
    const int64_t skip = net_weights ? 1 : 0;
    auto pins_of = [&](int64_t i) {
        const int64_t l = net_lines[i];
        return line_ptr[l + 1] - line_ptr[l] - skip;
    };
    const int threads = loop_threads(m);
    int64_t empty = m;
#pragma omp parallel for schedule(static) reduction(min : empty) num_threads(threads)
    for (int64_t i = 0; i < m; ++i)
        if (pins_of(i) < 1 && i < empty) empty = i;
    if (empty < m) {
        out.bad_net = empty;
        return out;
    }
    out.eptr.resize(static_cast<size_t>(m + 1));
    out.eptr[0] = 0;
    for (int64_t i = 0; i < m; ++i) out.eptr[i + 1] = out.eptr[i] + pins_of(i);
    out.eind.resize(static_cast<size_t>(out.eptr[m]));
    if (net_weights) out.ewgt.resize(static_cast<size_t>(m));
    const int64_t *eptr = out.eptr.data();
    int32_t *eind = out.eind.data();
    int64_t *ewgt = out.ewgt.data();
    int64_t bad_pin = out.eptr[m], bad_weight = m;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : bad_pin, bad_weight) \
    num_threads(threads)
    for (int64_t i = 0; i < m; ++i) {
        const int64_t *src = values + line_ptr[net_lines[i]];
        if (net_weights) {
            ewgt[i] = src[0];
            if (src[0] < 0 && i < bad_weight) bad_weight = i;
        }
        src += skip;
        for (int64_t j = eptr[i]; j < eptr[i + 1]; ++j) {
            const int64_t x = src[j - eptr[i]];
            if (x < 1 || x > n) {
                if (j < bad_pin) bad_pin = j;
                eind[j] = 0;
            } else {
                eind[j] = static_cast<int32_t>(x - 1);
            }
        }
    }
    if (bad_pin < out.eptr[m]) out.bad_pin = bad_pin;
    if (bad_weight < m) out.bad_weight = bad_weight;
    return out;
}

}  // namespace igp
