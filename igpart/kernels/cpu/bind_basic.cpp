// Bindings of the foundation kernels: tokenizer, line formatter, CSR structure, metrics.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "csr.h"
#include "io.h"
#include "metrics.h"
#include "bindings.h"
#include "numpy_util.h"

namespace py = pybind11;
using namespace igp;

void igp::check_csr(const Arr<int64_t> &ptr, const Arr<int32_t> &ind, int64_t ncols,
                    const char *what) {
    if (ptr.ndim() != 1 || ind.ndim() != 1 || ptr.shape(0) < 1)
        throw std::invalid_argument(std::string(what) + ": ptr/ind must be 1-D, ptr non-empty");
    const int64_t *p = ptr.data();
    const int64_t rows = ptr.shape(0) - 1;
    if (p[0] != 0 || p[rows] != ind.shape(0))
        throw std::invalid_argument(std::string(what) + ": ptr must start at 0 and end at len(ind)");
    // every stage call checks its level: in parallel on large ones (only a flag comes out);
    // the flags are or-ed without short-circuits (no branch per entry)
    int bad = 0;
#pragma omp parallel for reduction(| : bad) schedule(static) if (rows >= kParallelMinLightItems)
    for (int64_t r = 0; r < rows; ++r) bad |= static_cast<int>(p[r + 1] < p[r]);
    if (bad) throw std::invalid_argument(std::string(what) + ": ptr not monotone");
    const int32_t *q = ind.data();
    const int64_t nnz = ind.shape(0);
    // one unsigned comparison: a negative index wraps above any column count
    const uint64_t cols = static_cast<uint64_t>(std::max<int64_t>(ncols, 0));
#pragma omp parallel for reduction(| : bad) schedule(static) if (nnz >= kParallelMinLightItems)
    for (int64_t j = 0; j < nnz; ++j)
        bad |= static_cast<int>(static_cast<uint64_t>(static_cast<int64_t>(q[j])) >= cols);
    if (bad) throw std::invalid_argument(std::string(what) + ": index out of range");
}

namespace {

py::tuple csr_tuple(Csr &&c) { return py::make_tuple(to_numpy(std::move(c.ptr)), to_numpy(std::move(c.ind))); }

}  // namespace

void igp::bind_basic(py::module_ &m) {
    m.def(
        "level_subhypergraphs",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> group, int64_t ngroups) {
            const int64_t n = group.shape(0);
            check_csr(eptr, eind, n, "level_subhypergraphs");
            if (group.ndim() != 1 || ngroups < 0)
                throw std::invalid_argument("level_subhypergraphs: group must be 1-D, ngroups >= 0");
            const int64_t *gp = group.data();
            SubLevelArrays a;
            {
                py::gil_scoped_release release;
                for (int64_t v = 0; v < n; ++v)
                    if (gp[v] < 0 || gp[v] >= ngroups)
                        throw std::invalid_argument(
                            "level_subhypergraphs: group ids must lie in [0, ngroups)");
                a = level_subhypergraphs(eptr.data(), eind.data(), eptr.shape(0) - 1, gp, n,
                                         ngroups);
            }
            return py::make_tuple(to_numpy(std::move(a.order)), to_numpy(std::move(a.vstart)),
                                  to_numpy(std::move(a.rstart)), to_numpy(std::move(a.ptr)),
                                  to_numpy(std::move(a.ind)), to_numpy(std::move(a.parent)));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("group"), py::arg("ngroups"),
        "Every group's sub-hypergraph under `group` (an id in [0, ngroups) per vertex), "
        "concatenated: (order, vstart, rstart, ptr, ind, parent), as "
        "igpart.subgraphs.level_subhypergraphs documents them.");
    m.def(
        "sub_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, int64_t n, Arr<int64_t> vertices, bool cut) {
            check_csr(eptr, eind, n, "sub_hypergraph");
            const int64_t m = eptr.shape(0) - 1, nv = vertices.shape(0);
            const int64_t *ep = eptr.data(), *vs = vertices.data();
            const int32_t *ei = eind.data();
            std::vector<int64_t> ptr, nets;
            std::vector<int32_t> ind;
            {
                py::gil_scoped_release release;
                std::vector<int32_t> id(static_cast<size_t>(n), -1);
                for (int64_t i = 0; i < nv; ++i) {
                    if (vs[i] < 0 || vs[i] >= n || id[vs[i]] >= 0)
                        throw std::invalid_argument(
                            "sub_hypergraph: vertices must be distinct ids below n");
                    id[vs[i]] = static_cast<int32_t>(i);
                }
                induced_nets(ep, ei, m, id.data(), cut, ptr, ind, nets);
            }
            return py::make_tuple(to_numpy(std::move(ptr)), to_numpy(std::move(ind)),
                                  to_numpy(std::move(nets)));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("n"), py::arg("vertices"), py::arg("cut"),
        "The nets induced by `vertices` (distinct ids below n), renumbered 0.. in that order: "
        "(eptr, eind, the kept nets' ids). cut: a net with a pin outside is dropped, else it "
        "keeps its pins inside; nets left with fewer than two pins are dropped.");
    m.def(
        "tokenize",
        [](py::buffer b) {
            py::buffer_info info = b.request();
            if (info.itemsize != 1) throw std::invalid_argument("tokenize expects a byte buffer");
            const char *data = static_cast<const char *>(info.ptr);
            int64_t len = info.size;
            Tokens t;
            {
                py::gil_scoped_release release;
                t = tokenize(data, len);
            }
            return py::make_tuple(to_numpy(std::move(t.values)), to_numpy(std::move(t.line_ptr)),
                                  to_numpy(std::move(t.line_no)));
        },
        py::arg("buffer"),
        "Integer tokens of every non-comment line: (values, line_ptr, line_no). Raises "
        "ParseError(line, message) on a non-integer token.");

    m.def(
        "hgr_nets",
        [](Arr<int64_t> values, Arr<int64_t> line_ptr, Arr<int64_t> net_lines, int64_t n,
           bool net_weights) {
            const int64_t lines = line_ptr.shape(0) - 1, m = net_lines.shape(0);
            if (values.ndim() != 1 || line_ptr.ndim() != 1 || net_lines.ndim() != 1 || lines < 0)
                throw std::invalid_argument("hgr_nets: arrays must be 1-D, line_ptr non-empty");
            const int64_t *lp = line_ptr.data(), *nl = net_lines.data();
            if (lp[0] < 0 || lp[lines] > values.shape(0))
                throw std::invalid_argument("hgr_nets: line_ptr outside values");
            for (int64_t l = 0; l < lines; ++l)
                if (lp[l + 1] < lp[l]) throw std::invalid_argument("hgr_nets: line_ptr decreases");
            for (int64_t i = 0; i < m; ++i)
                if (nl[i] < 0 || nl[i] >= lines)
                    throw std::invalid_argument("hgr_nets: net line out of range");
            HgrNets h;
            {
                py::gil_scoped_release release;
                h = hgr_nets(values.data(), lp, nl, m, n, net_weights);
            }
            py::object ewgt = net_weights && h.bad_net < 0 ? py::object(to_numpy(std::move(h.ewgt)))
                                                           : py::object(py::none());
            return py::make_tuple(to_numpy(std::move(h.eptr)), to_numpy(std::move(h.eind)), ewgt,
                                  h.bad_net, h.bad_pin, h.bad_weight);
        },
        py::arg("values"), py::arg("line_ptr"), py::arg("net_lines"), py::arg("n"),
        py::arg("net_weights"),
        "The nets of an hMETIS body (tokenize's arrays, the nets' line indices): (eptr, eind, "
        "ewgt or None, bad_net, bad_pin, bad_weight), the first defect of each kind or -1.");

    m.def(
        "format_lines",
        [](Arr<int64_t> ptr, Arr<int64_t> values) {
            if (ptr.ndim() != 1 || ptr.shape(0) < 1 || values.ndim() != 1)
                throw std::invalid_argument("format_lines: bad shapes");
            const int64_t n = ptr.shape(0) - 1;
            const int64_t *p = ptr.data();
            if (p[0] < 0 || p[n] > values.shape(0))
                throw std::invalid_argument("format_lines: ptr out of range");
            for (int64_t i = 0; i < n; ++i)
                if (p[i + 1] < p[i]) throw std::invalid_argument("format_lines: ptr not monotone");
            std::string s;
            {
                py::gil_scoped_release release;
                s = format_lines(p, n, values.data());
            }
            return py::bytes(s);
        },
        py::arg("ptr"), py::arg("values"),
        "Bytes with one line per row: values[ptr[i]:ptr[i+1]] separated by spaces.");

    m.def(
        "filled",
        [](int64_t length, int64_t value) {
            if (length < 0) throw std::invalid_argument("filled: negative length");
            UninitVector<int64_t> v(static_cast<size_t>(length));
            {
                py::gil_scoped_release release;
                int64_t *out = v.data();
#pragma omp parallel for schedule(static) if (length >= kParallelMinLightItems)
                for (int64_t i = 0; i < length; ++i) out[i] = value;
            }
            return to_numpy(std::move(v));
        },
        py::arg("length"), py::arg("value"),
        "An int64 array of `length` entries equal to `value`, written on the threads (the pages "
        "of a large new array are first touched side by side, not by one thread).");

    m.def(
        "row_sizes",
        [](Arr<int64_t> ptr) {
            if (ptr.ndim() != 1 || ptr.shape(0) < 1)
                throw std::invalid_argument("row_sizes: ptr must be 1-D and non-empty");
            const int64_t rows = ptr.shape(0) - 1;
            const int64_t *p = ptr.data();
            UninitVector<int64_t> sizes(static_cast<size_t>(rows));
            UninitVector<int64_t> nonempty;
            {
                py::gil_scoped_release release;
                int64_t *s = sizes.data();
                // sizes, and per chunk of rows how many are non-empty; then the non-empty rows'
                // ids written at their chunk's offset (the same order as one pass)
                const int threads = rows >= kParallelMinLightItems ? max_threads() : 1;
                const int64_t chunks = threads == 1 ? 1 : 4 * static_cast<int64_t>(threads);
                std::vector<int64_t> at(static_cast<size_t>(chunks + 1), 0);
#pragma omp parallel for schedule(static, 1) num_threads(threads)
                for (int64_t c = 0; c < chunks; ++c) {
                    int64_t kept = 0;
                    for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r) {
                        s[r] = p[r + 1] - p[r];
                        kept += s[r] != 0;
                    }
                    at[c + 1] = kept;
                }
                for (int64_t c = 0; c < chunks; ++c) at[c + 1] += at[c];
                nonempty.resize(static_cast<size_t>(at[chunks]));
                int64_t *ne = nonempty.data();
#pragma omp parallel for schedule(static, 1) num_threads(threads)
                for (int64_t c = 0; c < chunks; ++c) {
                    int64_t k = at[c];
                    for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r)
                        if (s[r] != 0) ne[k++] = r;
                }
            }
            return py::make_tuple(to_numpy(std::move(sizes)), to_numpy(std::move(nonempty)));
        },
        py::arg("ptr"),
        "(sizes, nonempty): ptr[i + 1] - ptr[i] per row, and the ids of the rows whose size is "
        "not 0, in order (numpy's diff and flatnonzero, on the threads).");

    m.def(
        "one_based_ids",
        [](Arr<int64_t> values, int64_t offset, int64_t count, int64_t step, int64_t n) {
            if (values.ndim() != 1 || offset < 0 || count < 0 || step < 1 ||
                (count > 0 && offset + (count - 1) * step >= values.shape(0)))
                throw std::invalid_argument("one_based_ids: range outside values");
            const int64_t *v = values.data() + offset;
            UninitVector<int32_t> ids(static_cast<size_t>(count));
            int64_t first = count;
            {
                py::gil_scoped_release release;
                int32_t *out = ids.data();
                const uint64_t limit = static_cast<uint64_t>(std::max<int64_t>(n, 0));
#pragma omp parallel for reduction(min : first) schedule(static) if (count >= kParallelMinLightItems)
                for (int64_t b = 0; b < count; ++b) {
                    // one unsigned comparison (no signed overflow at INT64_MIN): an id below 1
                    // wraps above any vertex count
                    const uint64_t id = static_cast<uint64_t>(v[b * step]) - 1u;
                    if (id >= limit) {
                        if (b < first) first = b;
                        out[b] = -1;
                    } else {
                        out[b] = static_cast<int32_t>(id);
                    }
                }
            }
            return py::make_tuple(to_numpy(std::move(ids)), first == count ? int64_t(-1) : first);
        },
        py::arg("values"), py::arg("offset"), py::arg("count"), py::arg("step"), py::arg("n"),
        "(ids, bad): values[offset + b * step] - 1 as int32 for b < count (1-based vertex ids "
        "of a file to 0-based), and the first b whose value is outside [1, n], or -1.");

    m.def(
        "first_decrease",
        [](Arr<int64_t> ptr) {
            if (ptr.ndim() != 1) throw std::invalid_argument("first_decrease: ptr must be 1-D");
            const int64_t rows = ptr.shape(0) - 1;
            const int64_t *p = ptr.data();
            int64_t first = rows < 0 ? -1 : rows;
            {
                py::gil_scoped_release release;
#pragma omp parallel for reduction(min : first) schedule(static) if (rows >= kParallelMinLightItems)
                for (int64_t r = 0; r < rows; ++r)
                    if (p[r + 1] < p[r] && r < first) first = r;
            }
            return first == rows ? int64_t(-1) : first;
        },
        py::arg("ptr"),
        "The first row r with ptr[r + 1] < ptr[r], or -1 (on the threads).");

    m.def(
        "csr_transpose",
        [](Arr<int64_t> ptr, Arr<int32_t> ind, int64_t ncols) {
            check_csr(ptr, ind, ncols, "csr_transpose");
            Csr c;
            {
                py::gil_scoped_release release;
                c = csr_transpose(ptr.data(), ptr.shape(0) - 1, ind.data(), ncols);
            }
            return csr_tuple(std::move(c));
        },
        py::arg("ptr"), py::arg("ind"), py::arg("ncols"));

    m.def(
        "dedup_rows",
        [](Arr<int64_t> ptr, Arr<int32_t> ind, int64_t ncols) {
            check_csr(ptr, ind, ncols, "dedup_rows");
            Csr c;
            bool dups;
            {
                py::gil_scoped_release release;
                dups = rows_have_duplicates(ptr.data(), ptr.shape(0) - 1, ind.data(), ncols);
                if (dups) c = dedup_rows(ptr.data(), ptr.shape(0) - 1, ind.data(), ncols);
            }
            if (!dups) return py::object(py::none());
            return py::object(csr_tuple(std::move(c)));
        },
        py::arg("ptr"), py::arg("ind"), py::arg("ncols"),
        "Rows without repeated ids (first occurrence kept), or None when no row repeats an id.");

    m.def(
        "graph_defect",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt) {
            const int64_t n = xadj.shape(0) - 1;
            check_csr(xadj, adjncy, n, "graph_defect");
            if (adjwgt.ndim() != 1 || adjwgt.shape(0) != adjncy.shape(0))
                throw std::invalid_argument("graph_defect: adjwgt must have one entry per arc");
            GraphDefect d;
            {
                py::gil_scoped_release release;
                d = graph_defect(xadj.data(), n, adjncy.data(), adjwgt.data());
            }
            static const char *kinds[] = {"", "loop", "repeat", "missing", "weight"};
            if (d.kind == GraphDefect::none) return py::object(py::none());
            const bool w = d.kind == GraphDefect::weight;
            return py::object(py::make_tuple(
                kinds[d.kind], d.u, d.v, w ? py::object(py::int_(d.w_uv)) : py::object(py::none()),
                w ? py::object(py::int_(d.w_vu)) : py::object(py::none())));
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"),
        "The first defect of a graph's adjacency, or None: (kind, u, v, w_uv, w_vu), kind one of "
        "loop, repeat, missing, weight (hypergraph.find_asymmetry).");

    m.def(
        "clique_expand",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, int64_t max_size, double scale) {
            const int64_t m_ = eptr.shape(0) - 1, n = vptr.shape(0) - 1;
            check_csr(eptr, eind, n, "clique_expand(nets)");
            check_csr(vptr, vind, m_, "clique_expand(vertices)");
            if (ewgt.ndim() != 1 || ewgt.shape(0) != m_)
                throw std::invalid_argument("clique_expand: ewgt must have one entry per net");
            WeightedCsr g;
            {
                py::gil_scoped_release release;
                g = clique_expand(eptr.data(), eind.data(), ewgt.data(), m_, vptr.data(), vind.data(),
                                  n, max_size, scale);
            }
            return py::make_tuple(to_numpy(std::move(g.ptr)), to_numpy(std::move(g.ind)),
                                  to_numpy(std::move(g.wgt)));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("max_size"), py::arg("scale"));

    m.def(
        "net_connectivity",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int32_t> parts, int32_t k) {
            const int64_t n = parts.shape(0);
            check_csr(eptr, eind, n, "net_connectivity");
            const int32_t *pp = parts.data();
            for (int64_t i = 0; i < n; ++i)
                if (pp[i] < 0 || pp[i] >= k)
                    throw std::invalid_argument("net_connectivity: block id out of range");
            std::vector<int32_t> lam;
            {
                py::gil_scoped_release release;
                lam = net_connectivity(eptr.data(), eind.data(), eptr.shape(0) - 1, pp, k);
            }
            return to_numpy(std::move(lam));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("parts"), py::arg("k"),
        "Number of distinct blocks per net (lambda).");
}
