// Fast reader of flat gate-level Verilog: one module of input/output/inout/wire declarations,
// cell instances with named connections to nets, bits of buses and the constants 1'b0/1'b1, and
// `assign a = b;` aliases between nets of equal width.
// It mirrors the pyverilog elaborator of igpart/netlist/elaborate.py on that subset exactly (net
// numbering in order of first declaration or use, implicit 1-bit nets, "d[i]" bit names, the
// same error cases), so both readers build identical circuits; anything else is reported as
// unsupported and read by pyverilog instead.
#include "verilog.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "io.h"
#include "numpy_util.h"

namespace igp {

namespace {

using sv = std::string_view;

inline uint64_t hash_sv(sv s) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h ^= w;
    // murmur3 finaliser: every output bit depends on every input bit
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

// A fixed-size array of trivially copyable T; arrays of 2 MB or more are aligned to 2 MB and
// backed by transparent huge pages where the kernel offers them (fewer TLB misses on the random
// accesses of a large hash table).
template <class T>
class HugeArray {
   public:
    HugeArray() = default;
    HugeArray(size_t n, const T &fill) : n_(n) {
        size_t bytes = n * sizeof(T);
        if (bytes >= kHuge) {
            bytes = (bytes + kHuge - 1) / kHuge * kHuge;
            p_ = static_cast<T *>(std::aligned_alloc(kHuge, bytes));
#ifdef __linux__
            if (p_) madvise(p_, bytes, MADV_HUGEPAGE);
#endif
        } else {
            p_ = static_cast<T *>(std::malloc(bytes ? bytes : 1));
        }
        if (!p_) throw std::bad_alloc();
        std::fill(p_, p_ + n, fill);
    }
    HugeArray(const HugeArray &) = delete;
    HugeArray &operator=(const HugeArray &) = delete;
    HugeArray(HugeArray &&o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
    HugeArray &operator=(HugeArray &&o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        return *this;
    }
    ~HugeArray() { std::free(p_); }
    size_t size() const { return n_; }
    T &operator[](size_t i) { return p_[i]; }
    const T &operator[](size_t i) const { return p_[i]; }
    const T *begin() const { return p_; }
    const T *end() const { return p_ + n_; }

   private:
    static constexpr size_t kHuge = size_t(2) << 20;
    T *p_ = nullptr;
    size_t n_ = 0;
};

// Open-addressing map from identifiers of the input buffer to int32. A slot is 32 bytes: 32 bits
// of the key's hash, its offset and length in the buffer, the value and the key's first 16
// bytes, so that a probe of a short key never touches the (cold) buffer where it was declared.
class NameMap {
   public:
    NameMap(const char *base, size_t expect) : base_(base) {
        size_t cap = 16;
        while (cap < expect * 2) cap <<= 1;
        slots_ = HugeArray<Slot>(cap, Slot{});
    }
    // value of key, or -1
    int32_t get(sv key) const {
        uint64_t h = hash_sv(key);
        uint32_t h32 = static_cast<uint32_t>(h >> 32);
        size_t mask = slots_.size() - 1, i = h & mask;
        for (;; i = (i + 1) & mask) {
            const Slot &s = slots_[i];
            if (s.val < 0) return -1;
            if (s.hash == h32 && same(s, key)) return s.val;
        }
    }
    // inserts key -> val unless present; returns the value stored
    int32_t insert(sv key, int32_t val) {
        if ((size_ + 1) * 2 > slots_.size()) grow();
        uint64_t h = hash_sv(key);
        uint32_t h32 = static_cast<uint32_t>(h >> 32);
        size_t mask = slots_.size() - 1, i = h & mask;
        for (;; i = (i + 1) & mask) {
            Slot &s = slots_[i];
            if (s.val < 0) {
                s = Slot{h32, static_cast<uint32_t>(key.data() - base_),
                         static_cast<uint32_t>(key.size()), val, {}};
                std::memcpy(s.head, key.data(), std::min<size_t>(key.size(), sizeof(s.head)));
                ++size_;
                return val;
            }
            if (s.hash == h32 && same(s, key)) return s.val;
        }
    }
    size_t size() const { return size_; }

   private:
    struct Slot {
        uint32_t hash = 0, off = 0, len = 0;
        int32_t val = -1;
        char head[16] = {};
    };
    bool same(const Slot &s, sv key) const {
        if (s.len != key.size()) return false;
        if (s.len <= sizeof(s.head)) return std::memcmp(s.head, key.data(), s.len) == 0;
        return std::memcmp(s.head, key.data(), sizeof(s.head)) == 0 &&
               std::memcmp(base_ + s.off + sizeof(s.head), key.data() + sizeof(s.head),
                           s.len - sizeof(s.head)) == 0;
    }
    void grow() {
        HugeArray<Slot> old = std::move(slots_);
        slots_ = HugeArray<Slot>(old.size() * 2, Slot{});
        size_t mask = slots_.size() - 1;
        for (const Slot &s : old) {
            if (s.val < 0) continue;
            sv key(base_ + s.off, s.len);
            size_t i = hash_sv(key) & mask;
            while (slots_[i].val >= 0) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }
    const char *base_;
    HugeArray<Slot> slots_;
    size_t size_ = 0;
};

// Verilog keywords that cannot start a structural module item here.
bool is_keyword(sv w) {
    for (char c : w)
        if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '1')) return false;
    static const char *kws[] = {
        "always",  "initial",   "parameter", "localparam",  "genvar",   "generate", "endgenerate",
        "function", "task",     "specify",   "defparam",    "supply0",  "supply1",  "integer",
        "real",    "time",      "event",     "wand",        "wor",      "tri0",     "tri1",
        "triand",  "trior",     "trireg",    "module",      "primitive", "macromodule", "and",
        "or",      "nand",      "nor",       "xor",         "xnor",     "not",      "buf",
        "bufif0",  "bufif1",    "notif0",    "notif1",      "pullup",   "pulldown", "begin",
        "end",     "case",      "if",        "for",         "while",    "endfunction", "endtask",
        "logic",   "bit",       "interface", "package",     "import",   "specparam", "config"};
    for (const char *k : kws)
        if (w == k) return true;
    return false;
}

// Keywords, including those this reader parses, which cannot name anything unescaped.
bool is_reserved(sv w) {
    static const char *kws[] = {"endmodule", "input", "output", "inout", "wire",
                                "reg",       "tri",   "assign", "signed"};
    for (const char *k : kws)
        if (w == k) return true;
    return is_keyword(w);
}

struct Signal {
    int32_t first_bit;
    int32_t msb, lsb;  // declared range (when ranged)
    bool ranged;
    int8_t dir;  // -1 none
    int64_t line;
};

enum Tok : int { T_EOF, T_ID, T_NUM, T_CONST, T_PUNCT };

struct Unsupported {
    int64_t line;
    std::string what;
};

class Reader {
   public:
    Reader(const char *buf, int64_t len, int64_t max_bits)
        : max_bits_(max_bits),
          buf_(buf),
          p_(buf),
          end_(buf + len),
          // rough sizing from the file size (~1 instance and 1 net per 100 bytes); maps grow
          signals_map_(buf, static_cast<size_t>(len / 128 + 16)),
          cell_map_(buf, 256),
          pin_map_(buf, 256) {
        size_t est = static_cast<size_t>(len / 100 + 16);
        insts_.reserve(est);
        inst_line_.reserve(est);
        r_.pin_inst.reserve(est * 3);
        r_.pin_name.reserve(est * 3);
        r_.pin_net.reserve(est * 3);
        r_.inst_cell.reserve(est);
        r_.inst_names.reserve(static_cast<size_t>(len / 8));
        r_.net_names.reserve(static_cast<size_t>(len / 10));
        signals_.reserve(est);
    }

    FlatNetlist run() {
        try {
            parse_module();
        } catch (const Unsupported &u) {
            FlatNetlist out;
            out.unsupported = u.what;
            out.line = u.line;
            return out;
        }
        return std::move(r_);
    }

   private:
    int64_t max_bits_;  // most net bits the declarations may create
    const char *buf_;   // the whole input
    // ------------------------------------------------------------------ lexer
    const char *p_, *end_;
    int64_t line_ = 1;
    Tok tok_ = T_EOF;
    sv text_;           // token text (identifier without a leading backslash)
    bool escaped_ = false;  // the identifier was escaped
    int64_t tok_line_ = 1;

    [[noreturn]] void fail(const std::string &msg) { throw ParseError(tok_line_, printable(msg, 400)); }
    [[noreturn]] void unsupported(const std::string &what) { throw Unsupported{tok_line_, what}; }

    static bool id_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
    static bool id_char(char c) { return id_start(c) || (c >= '0' && c <= '9') || c == '$'; }
    static bool is_white(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

    void skip_space() {
        for (;;) {
            while (p_ < end_) {
                char c = *p_;
                if (c == '\n') {
                    ++line_;
                    ++p_;
                } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                    ++p_;
                } else {
                    break;
                }
            }
            if (p_ + 1 < end_ && p_[0] == '/' && p_[1] == '/') {
                const char *e = static_cast<const char *>(std::memchr(p_, '\n', end_ - p_));
                p_ = e ? e : end_;
                continue;
            }
            if (p_ + 1 < end_ && p_[0] == '/' && p_[1] == '*') {
                const char *q = p_ + 2;
                int64_t start = line_;
                while (q + 1 < end_ && !(q[0] == '*' && q[1] == '/')) {
                    if (*q == '\n') ++line_;
                    ++q;
                }
                if (q + 1 >= end_) {
                    tok_line_ = start;
                    fail("unterminated /* comment");
                }
                p_ = q + 2;
                continue;
            }
            if (p_ < end_ && *p_ == '`') {
                tok_line_ = line_;
                const char *q = p_ + 1;
                while (q < end_ && id_char(*q)) ++q;
                sv word(p_ + 1, q - p_ - 1);
                static const char *ignored[] = {"timescale",     "celldefine", "endcelldefine",
                                                "default_nettype", "resetall"};
                bool ok = false;
                for (const char *w : ignored) ok = ok || word == w;
                if (!ok) unsupported("compiler directive `" + std::string(word));
                const char *e = static_cast<const char *>(std::memchr(p_, '\n', end_ - p_));
                p_ = e ? e : end_;
                continue;
            }
            return;
        }
    }

    void next() {
        skip_space();
        tok_line_ = line_;
        escaped_ = false;
        if (p_ >= end_) {
            tok_ = T_EOF;
            text_ = sv();
            return;
        }
        const char *s = p_;
        char c = *p_;
        if (id_start(c)) {
            while (p_ < end_ && id_char(*p_)) ++p_;
            tok_ = T_ID;
            text_ = sv(s, p_ - s);
            return;
        }
        if (c == '\\') {
            // escaped identifier (IEEE 1364-2005 3.7.1): printable ASCII up to white space;
            // neither the backslash nor the white space is part of the name
            ++p_;
            while (p_ < end_ && !is_white(*p_)) {
                auto b = static_cast<unsigned char>(*p_);
                if (b < 0x21 || b > 0x7e)
                    fail("escaped identifier holds byte " + hex_byte(b) + " (only printable ASCII is allowed)");
                ++p_;
            }
            if (p_ == s + 1) fail("empty escaped identifier");
            escaped_ = true;
            tok_ = T_ID;
            text_ = sv(s + 1, p_ - s - 1);
            return;
        }
        if (c >= '0' && c <= '9') {
            while (p_ < end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '_')) ++p_;
            if (p_ < end_ && *p_ == '\'') {  // sized constant
                ++p_;
                while (p_ < end_ && (id_char(*p_) || *p_ == '?')) ++p_;
                tok_ = T_CONST;
            } else {
                tok_ = T_NUM;
            }
            text_ = sv(s, p_ - s);
            return;
        }
        if (c == '\'') unsupported("unsized constant");
        auto u = reinterpret_cast<const unsigned char *>(p_);
        if (*u >= 0x80 && utf8_char_len(u, static_cast<size_t>(end_ - p_)) == 0)
            fail("not UTF-8 text (byte " + hex_byte(*u) + ")");
        ++p_;
        tok_ = T_PUNCT;
        text_ = sv(s, 1);
    }

    bool is(char c) const { return tok_ == T_PUNCT && text_[0] == c; }
    bool is_kw(const char *kw) const { return tok_ == T_ID && !escaped_ && text_ == kw; }
    std::string shown() const {
        if (tok_ == T_EOF) return "end of file";
        return "'" + printable(text_.data(), text_.size(), 60) + "'";
    }
    void expect(char c) {
        if (!is(c)) fail(std::string("expected '") + c + "', found " + shown());
        next();
    }
    sv expect_id(const char *what) {
        if (tok_ != T_ID) fail(std::string("expected ") + what + ", found " + shown());
        check_not_reserved();
        sv s = text_;
        next();
        return s;
    }
    // an unescaped keyword where a name belongs (pyverilog then reports it)
    void check_not_reserved() {
        if (!escaped_ && is_reserved(text_)) unsupported("keyword '" + std::string(text_) + "' used as a name");
    }
    int32_t expect_int() {
        bool neg = false;
        if (is('-') || is('+')) {
            neg = is('-');
            next();
        }
        if (tok_ != T_NUM) {
            if (tok_ == T_ID) unsupported("parameter or expression in a range or index");
            fail("expected an integer, found " + shown());
        }
        int64_t v = 0;
        for (char c : text_) {
            if (c == '_') continue;
            v = v * 10 + (c - '0');
            if (v > 2147483647) fail("integer out of range");
        }
        next();
        return static_cast<int32_t>(neg ? -v : v);
    }

    // ------------------------------------------------------------------ netlist state
    FlatNetlist r_;
    std::vector<Signal> signals_;
    NameMap signals_map_;
    std::vector<sv> insts_;
    std::vector<int32_t> inst_line_;
    NameMap cell_map_;
    NameMap pin_map_;
    int32_t nbits_ = 0;
    int32_t const_bit_[2] = {-1, -1};
    std::vector<sv> header_ports_;
    int64_t module_line_ = 1;
    std::vector<size_t> bit_off_;                // start of each bit's name in r_.net_names
    std::vector<int32_t> alias_a_, alias_b_;     // bits joined by assign
    std::vector<int32_t> pin_last_inst_;         // per pin name: the last instance connecting it
    std::string tmp_;

    int32_t new_bit_named(sv name) {
        bit_off_.push_back(r_.net_names.size());
        r_.net_names.append(name.data(), name.size());
        r_.net_names.push_back('\n');
        return nbits_++;
    }

    int32_t declare_signal(sv name, bool ranged, int32_t msb, int32_t lsb, int8_t dir) {
        int32_t fresh = static_cast<int32_t>(signals_.size());
        int32_t s = signals_map_.insert(name, fresh);
        if (s == fresh) {
            Signal sig{nbits_, msb, lsb, ranged, dir, tok_line_};
            int64_t width = ranged ? std::abs(int64_t(msb) - int64_t(lsb)) + 1 : 1;
            if (nbits_ + width > max_bits_)
                fail("'" + std::string(name) + "' [" + std::to_string(msb) + ":" + std::to_string(lsb) +
                     "] brings the netlist to " + std::to_string(nbits_ + width) +
                     " net bits, over the limit of " + std::to_string(max_bits_) + " for this input");
            if (!ranged) {
                new_bit_named(name);
            } else {
                int32_t step = msb >= lsb ? -1 : 1;
                for (int32_t i = msb;; i += step) {
                    tmp_.assign(name.data(), name.size());
                    tmp_ += '[';
                    tmp_ += std::to_string(i);
                    tmp_ += ']';
                    new_bit_named(tmp_);
                    if (i == lsb) break;
                }
            }
            signals_.push_back(sig);
            return s;
        }
        Signal &sig = signals_[s];
        if (ranged && !(sig.ranged && sig.msb == msb && sig.lsb == lsb))
            fail("'" + std::string(name) + "' is declared again with another range (first declared or used at line " +
                 std::to_string(sig.line) + ")");
        if (dir >= 0) {
            if (sig.dir >= 0 && sig.dir != dir)
                fail("'" + std::string(name) + "' is declared with two directions");
            sig.dir = dir;
        }
        return s;
    }

    static int8_t direction_of(sv w) {
        if (w == "input") return 0;
        if (w == "output") return 1;
        if (w == "inout") return 2;
        return -1;
    }

    // [wire|reg|tri] [signed] [range]; returns whether a range was read
    bool decl_prefix(int32_t &msb, int32_t &lsb) {
        if (is_kw("wire") || is_kw("reg") || is_kw("tri")) next();
        if (is_kw("signed")) next();
        if (is('[')) {
            next();
            msb = expect_int();
            expect(':');
            lsb = expect_int();
            expect(']');
            return true;
        }
        return false;
    }

    void declaration(int8_t dir) {
        int32_t msb = 0, lsb = 0;
        bool ranged = decl_prefix(msb, lsb);
        for (;;) {
            sv name = expect_id("a net name");
            if (is('[')) unsupported("arrays of nets");
            if (is('=')) unsupported("net declaration assignment");
            declare_signal(name, ranged, msb, lsb, dir);
            if (is(',')) {
                next();
                continue;
            }
            expect(';');
            return;
        }
    }

    int32_t constant_bit(sv text) {
        // only 1'b0 / 1'b1 (any case of b) are read here
        if (text.size() == 4 && text[0] == '1' && text[1] == '\'' && (text[2] == 'b' || text[2] == 'B') &&
            (text[3] == '0' || text[3] == '1')) {
            int v = text[3] - '0';
            if (const_bit_[v] < 0) const_bit_[v] = new_bit_named(v ? sv("1'b1") : sv("1'b0"));
            return const_bit_[v];
        }
        unsupported("constant " + std::string(text));
    }

    // Bits of a net operand (msb first: first, first+1, ...): a net, a bit of a bus, or a
    // constant 1'b0/1'b1; an undeclared name becomes an implicit 1-bit net.
    std::pair<int32_t, int32_t> operand() {
        if (tok_ == T_CONST) {
            int32_t b = constant_bit(text_);
            next();
            return {b, 1};
        }
        if (tok_ == T_NUM) unsupported("unsized constant");
        if (tok_ != T_ID) {
            if (is('{')) unsupported("concatenation");
            fail("expected a net, found " + shown());
        }
        check_not_reserved();
        sv name = text_;
        int64_t line = tok_line_;
        next();
        int32_t s = signals_map_.get(name);
        if (is('[')) {
            next();
            int32_t idx = expect_int();
            if (is(':')) unsupported("part-select");
            expect(']');
            if (s < 0) {
                tok_line_ = line;
                fail("undeclared net '" + std::string(name) + "'");
            }
            const Signal &sig = signals_[s];
            if (!sig.ranged) {
                tok_line_ = line;
                fail("'" + std::string(name) + "' is a scalar net: it has no bit " + std::to_string(idx));
            }
            int32_t lo = std::min(sig.msb, sig.lsb), hi = std::max(sig.msb, sig.lsb);
            if (idx < lo || idx > hi) {
                tok_line_ = line;
                fail("bit " + std::to_string(idx) + " of '" + std::string(name) + "' is outside [" +
                     std::to_string(sig.msb) + ":" + std::to_string(sig.lsb) + "]");
            }
            return {sig.first_bit + std::abs(idx - sig.msb), 1};
        }
        if (s < 0) s = declare_signal(name, false, 0, 0, -1);  // implicit 1-bit net
        const Signal &sig = signals_[s];
        return {sig.first_bit, sig.ranged ? std::abs(sig.msb - sig.lsb) + 1 : 1};
    }

    // net bit of a connection expression (a single bit), or -1 for "()"
    int32_t connection() {
        if (is(')')) return -1;
        auto [bit, width] = operand();
        if (width != 1) unsupported("a whole bus connected to a pin");
        return bit;
    }

    // assign lhs = rhs;  between nets of equal width (net aliases)
    void assign() {
        for (;;) {
            auto [l, lw] = operand();
            expect('=');
            auto [r, rw] = operand();
            if (lw != rw) unsupported("assign between different widths");
            for (int32_t k = 0; k < lw; ++k) {
                alias_a_.push_back(l + k);
                alias_b_.push_back(r + k);
            }
            if (is(',')) unsupported("several assignments in one assign");
            expect(';');
            return;
        }
    }

    // Joins the nets of assign aliases exactly as igpart/netlist/elaborate.py does: a class of
    // joined bits is numbered by its first bit and named after its top-level port bit, else
    // its constant, else its first bit.
    void join_aliases(const std::vector<char> &is_port) {
        std::vector<int32_t> parent(nbits_);
        for (int32_t b = 0; b < nbits_; ++b) parent[b] = b;
        auto find = [&](int32_t b) {
            int32_t r = b;
            while (parent[r] != r) r = parent[r];
            while (parent[b] != r) {
                int32_t n = parent[b];
                parent[b] = r;
                b = n;
            }
            return r;
        };
        for (size_t k = 0; k < alias_a_.size(); ++k) {
            int32_t ra = find(alias_a_[k]), rb = find(alias_b_[k]);
            if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);  // root = first bit
        }
        for (int c = 0; c < 2; ++c)
            if (const_bit_[c] >= 0 && const_bit_[1 - c] >= 0 && find(const_bit_[c]) == find(const_bit_[1 - c]))
                unsupported("a net tied to both 1'b0 and 1'b1");
        std::vector<int32_t> net_of(nbits_, -1), rep;  // rep: representative bit of each net
        std::vector<int> rank;
        for (int32_t b = 0; b < nbits_; ++b) {
            int32_t r = find(b);
            int rk = is_port[b] ? 0 : (b == const_bit_[0] || b == const_bit_[1]) ? 1 : 2;
            if (r == b) {
                net_of[b] = static_cast<int32_t>(rep.size());
                rep.push_back(b);
                rank.push_back(rk);
            } else {
                int32_t n = net_of[r];
                net_of[b] = n;
                if (rk < rank[n]) {  // equal ranks keep the earlier bit
                    rank[n] = rk;
                    rep[n] = b;
                }
            }
        }
        std::string names;
        names.reserve(r_.net_names.size());
        for (int32_t b : rep) {
            // names are '\n'-terminated here (the last one too)
            size_t end = static_cast<size_t>(b) + 1 < bit_off_.size() ? bit_off_[b + 1] - 1
                                                                      : r_.net_names.size() - 1;
            names.append(r_.net_names, bit_off_[b], end - bit_off_[b]);
            names.push_back('\n');
        }
        if (!names.empty()) names.pop_back();
        r_.net_names.swap(names);
        for (int32_t &n : r_.pin_net)
            if (n >= 0) n = net_of[n];
        for (int32_t &n : r_.port_net) n = net_of[n];
    }

    int32_t intern_pin(sv pin) {
        int32_t before = static_cast<int32_t>(pin_map_.size());
        int32_t id = pin_map_.insert(pin, before);
        if (id == before) {
            r_.pin_names.append(pin.data(), pin.size());
            r_.pin_names.push_back('\n');
        }
        return id;
    }

    void instance(sv cell) {
        int32_t cid = cell_map_.get(cell);
        bool new_cell = cid < 0;
        if (is('#')) unsupported("parameter overrides");
        for (;;) {
            sv name = expect_id("an instance name");
            if (is('[')) unsupported("instance arrays");
            insts_.push_back(name);
            inst_line_.push_back(static_cast<int32_t>(std::min<int64_t>(tok_line_, INT32_MAX)));
            int32_t inst = static_cast<int32_t>(insts_.size() - 1);
            if (new_cell) {
                cid = cell_map_.insert(cell, static_cast<int32_t>(cell_map_.size()));
                r_.cell_names.append(cell.data(), cell.size());
                r_.cell_names.push_back('\n');
                new_cell = false;
            }
            r_.inst_names.append(name.data(), name.size());
            r_.inst_names.push_back('\n');
            r_.inst_cell.push_back(cid);
            expect('(');
            if (!is(')')) {
                for (;;) {
                    if (!is('.')) unsupported("positional connections");
                    next();
                    sv pin = expect_id("a pin name");
                    expect('(');
                    int32_t bit = connection();
                    expect(')');
                    int32_t pid = intern_pin(pin);
                    if (static_cast<size_t>(pid) >= pin_last_inst_.size()) pin_last_inst_.resize(pid + 1, -1);
                    if (pin_last_inst_[pid] == inst)
                        fail("pin '" + std::string(pin) + "' of '" + std::string(name) +
                             "' is connected twice");
                    pin_last_inst_[pid] = inst;
                    r_.pin_inst.push_back(inst);
                    r_.pin_name.push_back(pid);
                    r_.pin_net.push_back(bit);
                    if (is(',')) {
                        next();
                        continue;
                    }
                    break;
                }
            }
            expect(')');
            if (is(',')) {
                next();
                continue;
            }
            expect(';');
            return;
        }
    }
    void parse_module() {
        next();
        if (!is_kw("module")) {
            if (tok_ == T_EOF) fail("no module found");
            if (tok_ == T_ID && !escaped_ && is_keyword(text_)) unsupported("'" + std::string(text_) + "' outside a module");
            fail("expected 'module', found " + shown());
        }
        module_line_ = tok_line_;
        next();
        sv name = expect_id("a module name");
        r_.top.assign(name.data(), name.size());
        if (is('#')) unsupported("module parameters");
        if (is('(')) {
            next();
            if (!is(')')) {
                if (tok_ == T_ID && !escaped_ && direction_of(text_) >= 0) {
                    ansi_ports();
                } else {
                    for (;;) {
                        if (is('.')) unsupported("named port expressions");
                        sv p = expect_id("a port name");
                        if (is('[')) unsupported("port expressions");
                        header_ports_.push_back(p);
                        if (is(',')) {
                            next();
                            continue;
                        }
                        break;
                    }
                }
            }
            expect(')');
        }
        expect(';');
        {
            NameMap seen(buf_, header_ports_.size());
            for (size_t i = 0; i < header_ports_.size(); ++i)
                if (seen.insert(header_ports_[i], static_cast<int32_t>(i)) != static_cast<int32_t>(i))
                    fail("module '" + r_.top + "' lists a port twice");
        }
        for (;;) {
            if (tok_ == T_EOF) fail("missing 'endmodule'");
            if (is('(')) unsupported("attributes");
            if (tok_ != T_ID) fail("expected a declaration or an instance, found " + shown());
            sv w = text_;
            bool kw = !escaped_;  // an escaped identifier is never a keyword (\wire is a name)
            if (kw && w == "endmodule") {
                next();
                break;
            }
            int8_t dir = kw ? direction_of(w) : -1;
            if (dir >= 0 || (kw && (w == "wire" || w == "tri" || w == "reg"))) {
                next();
                declaration(dir);
                continue;
            }
            if (kw && w == "assign") {
                next();
                assign();
                continue;
            }
            if (kw && is_keyword(w)) unsupported("'" + std::string(w) + "'");
            next();
            instance(w);
        }
        if (tok_ != T_EOF) {
            if (is_kw("module")) unsupported("several modules");
            fail("unexpected " + shown() + " after 'endmodule'");
        }
        check_unique_instances();
        // ports in header order, bits msb first
        for (sv pn : header_ports_) {
            int32_t s = signals_map_.get(pn);
            if (s < 0 || signals_[s].dir < 0) {
                tok_line_ = module_line_;
                fail("port '" + std::string(pn) + "' of module '" + r_.top +
                     "' has no input/output/inout declaration");
            }
            const Signal &sig = signals_[s];
            int32_t width = sig.ranged ? std::abs(sig.msb - sig.lsb) + 1 : 1;
            int32_t step = sig.msb >= sig.lsb ? -1 : 1;
            for (int32_t k = 0; k < width; ++k) {
                if (sig.ranged) {
                    tmp_.assign(pn.data(), pn.size());
                    tmp_ += '[';
                    tmp_ += std::to_string(sig.msb + step * k);
                    tmp_ += ']';
                    r_.port_names += tmp_;
                } else {
                    r_.port_names.append(pn.data(), pn.size());
                }
                r_.port_names.push_back('\n');
                r_.port_dir.push_back(sig.dir);
                r_.port_net.push_back(sig.first_bit + k);
            }
        }
        auto drop_last_newline = [](std::string &s) {
            if (!s.empty()) s.pop_back();
        };
        drop_last_newline(r_.port_names);
        if (!alias_a_.empty()) {
            std::vector<char> is_port(nbits_, 0);
            for (int32_t b : r_.port_net) is_port[b] = 1;
            join_aliases(is_port);  // rewrites net_names without the trailing newline
        } else {
            drop_last_newline(r_.net_names);
        }
        drop_last_newline(r_.inst_names);
        drop_last_newline(r_.cell_names);
        drop_last_newline(r_.pin_names);
    }

    // Duplicate instance names, found by sorting name hashes (sequential memory traffic instead
    // of a hash-table probe per instance); reports the duplicate that comes first in the file.
    void check_unique_instances() {
        std::vector<std::pair<uint64_t, int32_t>> h(insts_.size());
        for (size_t i = 0; i < insts_.size(); ++i) h[i] = {hash_sv(insts_[i]), static_cast<int32_t>(i)};
        std::sort(h.begin(), h.end());
        int32_t first_dup = -1;
        for (size_t a = 0; a < h.size();) {
            size_t b = a + 1;
            while (b < h.size() && h[b].first == h[a].first) ++b;
            if (b - a > 1) {  // equal hashes: sort by name, then id; equal neighbours are dups
                std::sort(h.begin() + a, h.begin() + b, [&](const auto &x, const auto &y) {
                    int c = insts_[x.second].compare(insts_[y.second]);
                    return c < 0 || (c == 0 && x.second < y.second);
                });
                for (size_t x = a + 1; x < b; ++x)
                    if (insts_[h[x].second] == insts_[h[x - 1].second] &&
                        (first_dup < 0 || h[x].second < first_dup))
                        first_dup = h[x].second;
            }
            a = b;
        }
        if (first_dup >= 0) {
            tok_line_ = inst_line_[first_dup];
            fail("duplicate instance name '" + std::string(insts_[first_dup]) + "'");
        }
    }

    void ansi_ports() {
        int8_t dir = -1;
        bool ranged = false;
        int32_t msb = 0, lsb = 0;
        for (;;) {
            if (tok_ == T_ID && !escaped_ && direction_of(text_) >= 0) {
                dir = direction_of(text_);
                next();
                ranged = decl_prefix(msb, lsb);
            }
            sv p = expect_id("a port name");
            if (is('[')) unsupported("arrays of nets");
            declare_signal(p, ranged, msb, lsb, dir);
            header_ports_.push_back(p);
            if (is(',')) {
                next();
                continue;
            }
            return;
        }
    }
};

}  // namespace

FlatNetlist read_flat_verilog(const char *buf, int64_t len, int64_t max_bits) {
    if (len >= (int64_t(1) << 32)) {
        FlatNetlist out;
        out.unsupported = "files of 4 GB or more";
        out.line = 1;
        return out;
    }
    return Reader(buf, len, max_bits).run();
}

}  // namespace igp
