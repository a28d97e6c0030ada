// METIS in this module: the METIS 5.1.0 sources that pymetis ships (third_party/metis, compiled by
// setup.py into a static library linked here), called without the GIL, several seeds at once.
//
// pymetis holds the GIL for a whole METIS call, and GKlib draws METIS's random numbers from the C
// library's rand() (one state per process), so igpart's METIS calls ran one after another however
// many threads a run had. Here every draw comes from a per-thread copy of glibc's generator
// (third_party/metis/igpart_rand.c, seeded by METIS on entry to each call), so the seeds of one
// request run on OpenMP threads side by side and each gives the blocks pymetis gives for it
// (tests/test_metis_native.py compares them).
//
// GKlib turns METIS's internal errors into a longjmp back to the API function through handlers
// for SIGABRT and SIGTERM that each call installs on entry and puts back on exit. Those handlers
// are process-wide: calls on several threads would put back each other's, and the last one out
// could leave GKlib's handler installed. So while any request runs, GKlib's handler is installed
// here (every call then swaps it for itself), and the process's own handlers come back when the
// last request ends. A SIGTERM that arrives from outside while METIS runs reaches GKlib's
// handler, as it does in pymetis.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bindings.h"
#include "metis_call.h"
#include "numpy_util.h"

extern "C" {
#include "metis.h"
void gk_sigthrow(int signum);  // GKlib (error.c): longjmp to the innermost METIS call's entry
}

namespace py = pybind11;

namespace igp {

namespace {

static_assert(sizeof(idx_t) == sizeof(int64_t), "METIS must be built with 64-bit indices");
static_assert(sizeof(real_t) == sizeof(float), "METIS must be built with 32-bit reals");
static_assert(kMetisOk == METIS_OK, "kMetisOk must be METIS_OK");

// GKlib's signal handlers installed while any request runs, the process's own put back when the
// last one ends (requests from several Python threads overlap: each saving and restoring on its
// own would put back a handler of another one).
class MetisSignals {
  public:
    MetisSignals() {
        std::lock_guard<std::mutex> hold(mutex_);
        if (active_++ > 0) return;
        struct sigaction act;
        std::memset(&act, 0, sizeof act);
        act.sa_handler = gk_sigthrow;
        sigemptyset(&act.sa_mask);
        sigaction(SIGABRT, &act, &abrt_);
        sigaction(SIGTERM, &act, &term_);
    }
    ~MetisSignals() {
        std::lock_guard<std::mutex> hold(mutex_);
        if (--active_ > 0) return;
        sigaction(SIGABRT, &abrt_, nullptr);
        sigaction(SIGTERM, &term_, nullptr);
    }
    MetisSignals(const MetisSignals &) = delete;
    MetisSignals &operator=(const MetisSignals &) = delete;

  private:
    static std::mutex mutex_;
    static int active_;
    static struct sigaction abrt_, term_;
};

std::mutex MetisSignals::mutex_;
int MetisSignals::active_ = 0;
struct sigaction MetisSignals::abrt_, MetisSignals::term_;

}  // namespace

struct MetisScope::Impl {
    MetisSignals signals;
};
MetisScope::MetisScope() : impl_(new Impl) {}
MetisScope::~MetisScope() { delete impl_; }

int metis_part(int64_t n, const int64_t *xadj, const int64_t *adjncy, const int64_t *vwgt,
               const int64_t *adjwgt, int64_t nparts, const float *tpwgts, int64_t seed,
               int64_t ufactor, bool recursive, int32_t *out) {
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed);
    options[METIS_OPTION_UFACTOR] = static_cast<idx_t>(ufactor);
    idx_t nv = static_cast<idx_t>(n), ncon = 1, np = static_cast<idx_t>(nparts);
    idx_t cut = 0;
    std::vector<idx_t> part(static_cast<size_t>(n));
    // METIS takes non-const pointers; it reads the graph and the targets only (numbering 0: no
    // renumbering in place)
    idx_t *x = const_cast<idx_t *>(reinterpret_cast<const idx_t *>(xadj));
    idx_t *a = const_cast<idx_t *>(reinterpret_cast<const idx_t *>(adjncy));
    idx_t *v = const_cast<idx_t *>(reinterpret_cast<const idx_t *>(vwgt));
    idx_t *w = const_cast<idx_t *>(reinterpret_cast<const idx_t *>(adjwgt));
    real_t *t = const_cast<real_t *>(tpwgts);
    const int status =
        recursive ? METIS_PartGraphRecursive(&nv, &ncon, x, a, v, nullptr, w, &np, t, nullptr,
                                             options, &cut, part.data())
                  : METIS_PartGraphKway(&nv, &ncon, x, a, v, nullptr, w, &np, t, nullptr,
                                        options, &cut, part.data());
    for (int64_t u = 0; u < n; ++u) out[u] = static_cast<int32_t>(part[u]);
    return status;
}

void bind_metis(py::module_ &m) {
    m.def(
        "metis_part_graphs",
        [](int64_t nparts, Arr<int64_t> xadj, Arr<int64_t> adjncy, Arr<int64_t> vwgt,
           py::object adjwgt_obj, py::object tpwgts_obj, Arr<int64_t> seeds, int64_t ufactor,
           bool recursive) {
            if (xadj.ndim() != 1 || xadj.shape(0) < 2)
                throw std::invalid_argument("metis_part_graphs: xadj needs at least 2 entries");
            const int64_t n = xadj.shape(0) - 1;
            const int64_t *xp = xadj.data();
            if (adjncy.ndim() != 1 || xp[0] != 0 || xp[n] != adjncy.shape(0))
                throw std::invalid_argument("metis_part_graphs: xadj does not match adjncy");
            for (int64_t u = 0; u < n; ++u)
                if (xp[u + 1] < xp[u])
                    throw std::invalid_argument("metis_part_graphs: xadj is not monotone");
            const int64_t *ap = adjncy.data();
            for (int64_t j = 0; j < xp[n]; ++j)
                if (ap[j] < 0 || ap[j] >= n)
                    throw std::invalid_argument("metis_part_graphs: adjncy holds a vertex id out of range");
            if (vwgt.ndim() != 1 || vwgt.shape(0) != n)
                throw std::invalid_argument("metis_part_graphs: vwgt needs one weight per vertex");
            if (nparts < 1) throw std::invalid_argument("metis_part_graphs: nparts must be >= 1");
            if (ufactor < 1) throw std::invalid_argument("metis_part_graphs: ufactor must be >= 1");
            Arr<int64_t> adjwgt;
            const bool has_adjwgt = !adjwgt_obj.is_none();
            if (has_adjwgt) {
                adjwgt = adjwgt_obj.cast<Arr<int64_t>>();
                if (adjwgt.ndim() != 1 || adjwgt.shape(0) != xp[n])
                    throw std::invalid_argument(
                        "metis_part_graphs: adjwgt needs one weight per adjncy entry");
            }
            Arr<float> tpwgts;
            const bool has_tpwgts = !tpwgts_obj.is_none();
            if (has_tpwgts) {
                tpwgts = tpwgts_obj.cast<Arr<float>>();
                if (tpwgts.ndim() != 1 || tpwgts.shape(0) != nparts)
                    throw std::invalid_argument(
                        "metis_part_graphs: tpwgts needs one fraction per block");
            }
            if (seeds.ndim() != 1) throw std::invalid_argument("metis_part_graphs: bad seeds");
            const int64_t count = seeds.shape(0);
            py::array_t<int32_t> out({static_cast<py::ssize_t>(count), static_cast<py::ssize_t>(n)});
            int32_t *op = out.mutable_data();
            if (nparts == 1) {  // as pymetis: METIS mishandles one part
                std::fill(op, op + count * n, 0);
                return out;
            }
            const int64_t *sp = seeds.data();
            const int64_t *vp = vwgt.data();
            const int64_t *wp = has_adjwgt ? adjwgt.data() : nullptr;
            const float *tp = has_tpwgts ? tpwgts.data() : nullptr;
            std::vector<int> status(static_cast<size_t>(count), METIS_OK);
            {
                py::gil_scoped_release release;
                MetisSignals signals;
                int threads = 1;
#ifdef _OPENMP
                threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), count));
#endif
                // METIS takes non-const pointers; it reads the graph and the targets only
                // (numbering 0: no renumbering in place), so the seeds share them
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
                for (int64_t s = 0; s < count; ++s)
                    status[s] = metis_part(n, xp, ap, vp, wp, nparts, tp, sp[s], ufactor,
                                           recursive, op + s * n);
            }
            for (int64_t s = 0; s < count; ++s)
                if (status[s] != METIS_OK)
                    throw std::runtime_error("METIS failed (status " + std::to_string(status[s]) +
                                             ") for seed " + std::to_string(sp[s]));
            return out;
        },
        py::arg("nparts"), py::arg("xadj"), py::arg("adjncy"), py::arg("vwgt"),
        py::arg("adjwgt"), py::arg("tpwgts"), py::arg("seeds"), py::arg("ufactor"),
        py::arg("recursive"),
        "Block ids (int32, one row per seed) of METIS on the CSR graph (int64 "
        "xadj / adjncy / vwgt, adjwgt int64 or None, tpwgts float32 fractions or None) for each "
        "seed, with METIS's ufactor and METIS_PartGraphRecursive (recursive) or "
        "METIS_PartGraphKway; the seeds run on the caller's OpenMP threads without the GIL. "
        "nparts = 1 gives all zeros without calling METIS.");
}

}  // namespace igp
