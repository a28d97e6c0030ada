// Bindings of the multilevel stage operations (coarsen, contract, refine, rebalance) for
// hypergraphs and graphs. Shapes, index ranges and block ids are checked here (ValueError).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "bindings.h"
#include "gain_cache.h"
#include "numpy_util.h"
#include "graph_fm.h"
#include "graph_lp.h"
#include "metrics.h"
#include "partition.h"

namespace py = pybind11;
using namespace igp;

void igp::fail(const std::string &what, const std::string &msg) {
    throw std::invalid_argument(what + ": " + msg);
}

void igp::check_len(const py::array &a, int64_t len, const char *name, const std::string &what) {
    if (a.ndim() != 1 || a.shape(0) != len)
        fail(what, std::string(name) + " must be 1-D of length " + std::to_string(len));
}

namespace {

// The heap policy of a run (see heap_retain_begin): scopes open, and whether this process may
// change glibc's malloc parameters (not where the environment sets any of them).
std::mutex heap_mutex;
int heap_depth = 0;
// The most OpenMP threads set (set_num_threads, or the calling thread's setting at the begin or
// end) while the outermost scope was open: the threads whose arenas its end trims.
std::atomic<int> heap_team{1};

void note_team(int threads) {
    int seen = heap_team.load(std::memory_order_relaxed);
    while (threads > seen && !heap_team.compare_exchange_weak(seen, threads)) {
    }
}

#if defined(__GLIBC__)
// glibc's malloc_trim returns the free chunks of every arena but shrinks only the main arena's
// top chunk; a thread arena's top is cut back (heap_trim) only when a free of at least 64 KiB
// (FASTBIN_CONSOLIDATION_THRESHOLD, after merging) happens in that arena. So each OpenMP thread
// of the calling thread's pool frees one such block in its own arena, once the trim threshold
// is back at its default: a block below the default mmap threshold (128 KiB) comes from the
// arena, and its free trims the arena's top down to M_TOP_PAD.
void trim_thread_arenas(int team) {
#ifdef _OPENMP
#pragma omp parallel num_threads(team)
#endif
    {
        void *volatile block = std::malloc(96 * 1024);  // volatile: the pair is not elided
        std::free(block);
    }
}
#endif

bool heap_policy_allowed() {
#if defined(__GLIBC__)
    const char *tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr) return false;
    for (const char *name : {"MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_",
                             "MALLOC_TOP_PAD_"})
        if (std::getenv(name) != nullptr) return false;
    return true;
#else
    return false;
#endif
}

// A writable copy of parts after checking 0 <= parts < k: checked and copied in one pass, in
// parallel on large levels (every refinement stage call makes one); the error names the first
// offending vertex either way.
UninitVector<int32_t> parts_copy(const Arr<int32_t> &parts, int64_t n, int32_t k,
                                 const std::string &what) {
    if (k < 1) fail(what, "k must be at least 1");
    check_len(parts, n, "parts", what);
    const int32_t *p = parts.data();
    UninitVector<int32_t> out(static_cast<size_t>(n));
    int32_t *o = out.data();
    int64_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (n >= kParallelMinLightItems)
    for (int64_t i = 0; i < n; ++i) {
        o[i] = p[i];
        if ((p[i] < 0 || p[i] >= k) && i < bad) bad = i;
    }
    if (bad < n) fail(what, "block id out of range at vertex " + std::to_string(bad));
    return out;
}

void check_bounds(const Arr<int64_t> &bounds, int32_t k, const std::string &what) {
    check_len(bounds, k, "max_block_weights", what);
}

void check_cmap(const Arr<int32_t> &cmap, int64_t n, int64_t nc, const std::string &what) {
    check_len(cmap, n, "cmap", what);
    if (nc < 0 || nc > n) fail(what, "nc out of range");
    const int32_t *c = cmap.data();
    int64_t bad = n;  // the first offending vertex (in parallel on large levels)
#pragma omp parallel for schedule(static) reduction(min : bad) if (n >= kParallelMinLightItems)
    for (int64_t i = 0; i < n; ++i)
        if ((c[i] < 0 || c[i] >= nc) && i < bad) bad = i;
    if (bad < n) fail(what, "cmap entry out of range at vertex " + std::to_string(bad));
}

// The optional per-vertex `locked` mask (uint8, non-zero: the vertex never moves) as a pointer.
const uint8_t *locked_mask(const std::optional<Arr<uint8_t>> &locked, int64_t n,
                           const std::string &what) {
    if (!locked) return nullptr;
    check_len(*locked, n, "locked", what);
    return locked->data();
}

void check_objective(int objective, const std::string &what) {
    if (objective != 0 && objective != 1) fail(what, "objective must be 0 (cut) or 1 (km1)");
}

py::tuple hg_level_tuple(HgLevel &&c) {
    return py::make_tuple(to_numpy(std::move(c.eptr)), to_numpy(std::move(c.eind)),
                          to_numpy(std::move(c.ewgt)), to_numpy(std::move(c.vptr)),
                          to_numpy(std::move(c.vind)), to_numpy(std::move(c.vwgt)));
}

}  // namespace

// Checks a graph level's CSR and its weights' lengths; returns its view.
GraphView igp::graph_view(const Arr<int64_t> &xadj, const Arr<int32_t> &adjncy,
                          const Arr<int64_t> &adjwgt, const Arr<int64_t> &vwgt,
                          const std::string &what) {
    GraphView g;
    g.n = xadj.shape(0) - 1;
    check_csr(xadj, adjncy, g.n, what.c_str());
    check_len(adjwgt, adjncy.shape(0), "adjwgt", what);
    check_len(vwgt, g.n, "vwgt", what);
    g.xadj = xadj.data();
    g.adjncy = adjncy.data();
    g.adjwgt = adjwgt.data();
    g.vwgt = vwgt.data();
    return g;
}

// Checks both incidence directions and the weights of a hypergraph level; returns its view.
HgView igp::hg_view(const Arr<int64_t> &eptr, const Arr<int32_t> &eind, const Arr<int64_t> &ewgt,
               const Arr<int64_t> &vptr, const Arr<int32_t> &vind, const Arr<int64_t> &vwgt,
               const std::string &what) {
    HgView h;
    h.m = eptr.shape(0) - 1;
    h.n = vptr.shape(0) - 1;
    check_csr(eptr, eind, h.n, (what + "(nets)").c_str());
    check_csr(vptr, vind, h.m, (what + "(vertices)").c_str());
    if (eind.shape(0) != vind.shape(0)) fail(what, "eind and vind differ in length");
    check_len(ewgt, h.m, "ewgt", what);
    check_len(vwgt, h.n, "vwgt", what);
    h.eptr = eptr.data();
    h.eind = eind.data();
    h.ewgt = ewgt.data();
    h.vptr = vptr.data();
    h.vind = vind.data();
    h.vwgt = vwgt.data();
    return h;
}

void igp::bind_partition(py::module_ &m) {
    m.def(
        "set_num_threads",
        [](int threads) {
            if (threads < 1) throw std::invalid_argument("set_num_threads: threads must be >= 1");
#ifdef _OPENMP
            omp_set_num_threads(threads);
#endif
            note_team(threads);
        },
        py::arg("threads"), "Threads of the OpenMP loops of the stage operations.");
    m.def(
        "set_stage_pins_per_thread",
        [](int64_t pins) {
            if (pins < 0)
                throw std::invalid_argument("set_stage_pins_per_thread: pins must be >= 0");
            stage_pins_per_thread().store(pins, std::memory_order_relaxed);
        },
        py::arg("pins"),
        "Caps the OpenMP threads of each hypergraph stage call at one per this many pins of its "
        "level (0: every thread); process-wide.");
    // glibc serves every block above its mmap threshold (at most 32 MiB) with its own mapping and
    // unmaps it on free, so each level's large arrays are new pages that the kernel faults in
    // and zeroes, 4 KiB at a time (BENCHMARKS.md, "The heap kept within a run"). Inside a run
    // large blocks come from the heap instead and freed ones stay there for the next level's
    // arrays; the outermost scope's end restores glibc's defaults and gives the free memory
    // back to the system: the OpenMP threads' arenas' tops (trim_thread_arenas), then the free
    // chunks of every arena and the main arena's top (malloc_trim).
    m.def(
        "heap_retain_begin",
        []() {
            std::lock_guard<std::mutex> lock(heap_mutex);
            if (!heap_policy_allowed()) return false;
#if defined(__GLIBC__)
            if (heap_depth++ == 0) {
#ifdef _OPENMP
                heap_team.store(omp_get_max_threads());
#endif
                mallopt(M_MMAP_MAX, 0);
                mallopt(M_TRIM_THRESHOLD, INT_MAX);
            }
            return true;
#else
            return false;
#endif
        },
        "Opens a scope in which large blocks come from the heap and freed memory is kept for "
        "reuse (glibc only; not where the environment sets malloc parameters). False: nothing "
        "was changed, and heap_retain_end must not be called.");
    m.def(
        "heap_retain_end",
        []() {
            std::lock_guard<std::mutex> lock(heap_mutex);
            if (heap_depth <= 0) throw std::logic_error("heap_retain_end: no scope is open");
#if defined(__GLIBC__)
            if (--heap_depth == 0) {
                mallopt(M_MMAP_MAX, 65536);             // glibc's DEFAULT_MMAP_MAX
                mallopt(M_TRIM_THRESHOLD, 128 * 1024);  // glibc's DEFAULT_TRIM_THRESHOLD
#ifdef _OPENMP
                note_team(omp_get_max_threads());
#endif
                trim_thread_arenas(heap_team.load());
                malloc_trim(0);
            }
#endif
        },
        "Closes a heap_retain_begin scope; the outermost one restores glibc's defaults and "
        "returns free heap memory to the system.");
    m.def("get_stage_pins_per_thread",
          []() { return stage_pins_per_thread().load(std::memory_order_relaxed); });
    m.def("get_num_threads", []() {
#ifdef _OPENMP
        return omp_get_max_threads();
#else
        return 1;
#endif
    });
    m.def(
        "block_weights",
        [](Arr<int64_t> vwgt, Arr<int32_t> parts, int32_t k) {
            const int64_t n = vwgt.shape(0);
            UninitVector<int32_t> p = parts_copy(parts, n, k, "block_weights");
            return to_numpy(block_weights(n, vwgt.data(), p.data(), k));
        },
        py::arg("vwgt"), py::arg("parts"), py::arg("k"));

    m.def(
        "project",
        [](Arr<int32_t> cmap, Arr<int32_t> coarse_parts) {
            if (cmap.ndim() != 1 || coarse_parts.ndim() != 1)
                fail("project", "cmap and coarse_parts must be 1-D");
            const int64_t n = cmap.shape(0), nc = coarse_parts.shape(0);
            py::array_t<int32_t> out(n);
            int32_t *o = out.mutable_data();
            const int32_t *c = cmap.data(), *cp = coarse_parts.data();
            int64_t bad = n;  // the first vertex whose cmap entry is out of range
            {
                py::gil_scoped_release release;
#pragma omp parallel for schedule(static) reduction(min : bad) if (n >= kParallelMinLightItems)
                for (int64_t i = 0; i < n; ++i) {
                    const int32_t x = c[i];
                    const bool ok = x >= 0 && x < nc;
                    o[i] = ok ? cp[x] : 0;
                    if (!ok && i < bad) bad = i;
                }
            }
            if (bad < n)
                fail("project", "cmap entry out of range at vertex " + std::to_string(bad));
            return out;
        },
        py::arg("cmap"), py::arg("coarse_parts"),
        "The fine partition of a coarse one: parts[v] = coarse_parts[cmap[v]] (in parallel).");

    m.def(
        "hypergraph_objectives",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int32_t> parts,
           int32_t k) {
            const int64_t n = parts.shape(0), m = eptr.shape(0) - 1;
            check_csr(eptr, eind, n, "hypergraph_objectives");
            check_len(ewgt, m, "ewgt", "hypergraph_objectives");
            UninitVector<int32_t> p = parts_copy(parts, n, k, "hypergraph_objectives");
            Objectives o;
            {
                py::gil_scoped_release release;
                o = hypergraph_objectives(eptr.data(), eind.data(), ewgt.data(), m, p.data(), k);
            }
            return py::make_tuple(o.cut, o.km1, o.soed);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("parts"), py::arg("k"),
        "(cut, km1, soed) of a partition, in one parallel pass over the nets.");
    m.def(
        "hypergraph_objective",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int32_t> parts, int32_t k,
           int objective) {
            const int64_t n = parts.shape(0);
            check_csr(eptr, eind, n, "hypergraph_objective");
            check_len(ewgt, eptr.shape(0) - 1, "ewgt", "hypergraph_objective");
            check_objective(objective, "hypergraph_objective");
            UninitVector<int32_t> p = parts_copy(parts, n, k, "hypergraph_objective");
            HgView h;
            h.n = n;
            h.m = eptr.shape(0) - 1;
            h.eptr = eptr.data();
            h.eind = eind.data();
            h.ewgt = ewgt.data();
            py::gil_scoped_release release;
            const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
            return hypergraph_objective(h, p.data(), k, objective);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("parts"), py::arg("k"),
        py::arg("objective"));

    m.def(
        "graph_edge_cut",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int32_t> parts) {
            const int64_t n = xadj.shape(0) - 1;
            check_csr(xadj, adjncy, n, "graph_edge_cut");
            check_len(adjwgt, adjncy.shape(0), "adjwgt", "graph_edge_cut");
            check_len(parts, n, "parts", "graph_edge_cut");
            GraphView g;
            g.n = n;
            g.xadj = xadj.data();
            g.adjncy = adjncy.data();
            g.adjwgt = adjwgt.data();
            py::gil_scoped_release release;
            return graph_edge_cut(g, parts.data());
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("parts"));

    m.def(
        "coarsen_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, int64_t max_cluster_weight, int64_t group_size,
           int64_t max_net_size, std::optional<Arr<int32_t>> communities, int64_t seed) {
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "coarsen_hypergraph");
            if (group_size < 1) fail("coarsen_hypergraph", "group_size must be >= 1");
            const int32_t *comm = nullptr;
            if (communities) {
                check_len(*communities, h.n, "communities", "coarsen_hypergraph");
                comm = communities->data();
            }
            std::vector<int32_t> cmap;
            int64_t nc;
            {
                py::gil_scoped_release release;
                const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
                std::vector<int32_t> best =
                    hypergraph_best_neighbours(h, max_cluster_weight, max_net_size, comm, seed);
                nc = group_vertices(h.n, best.data(), true, h.vwgt, max_cluster_weight, group_size,
                                    cmap);
            }
            return py::make_tuple(to_numpy(std::move(cmap)), nc);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("max_cluster_weight"), py::arg("group_size"),
        py::arg("max_net_size"), py::arg("communities"), py::arg("seed"),
        "HyperG balanced group coarsening: (cmap, nc).");

    def_order_run(m, "cluster_order_run", cluster_order_run(),
                  "cluster_hypergraph's asynchronous joins");
    def_order_run(m, "cluster_sub_round_order_run", cluster_sub_round_order_run(),
                  "cluster_hypergraph's synchronous sub-rounds");
    m.def(
        "cluster_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, int64_t max_cluster_weight, int64_t max_net_size,
           std::optional<Arr<int32_t>> communities, double max_shrink, bool weight_penalty,
           int64_t seed, int64_t sub_rounds, bool async_joins) {
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "cluster_hypergraph");
            if (sub_rounds < 0)
                throw std::invalid_argument("cluster_hypergraph: sub_rounds must be >= 0");
            const int32_t *comm = nullptr;
            if (communities) {
                check_len(*communities, h.n, "communities", "cluster_hypergraph");
                comm = communities->data();
            }
            std::vector<int32_t> cmap;
            int64_t nc;
            {
                py::gil_scoped_release release;
                const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
                nc = cluster_hypergraph(h, max_cluster_weight, max_net_size, comm, max_shrink,
                                        weight_penalty, seed, cmap, sub_rounds, async_joins);
            }
            return py::make_tuple(to_numpy(std::move(cmap)), nc);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("max_cluster_weight"), py::arg("max_net_size"),
        py::arg("communities"), py::arg("max_shrink"), py::arg("weight_penalty"), py::arg("seed"),
        py::arg("sub_rounds") = 0, py::arg("async_joins") = false,
        "Cluster-aware heavy-edge clustering: (cmap, nc); sub_rounds > 0: in parallel "
        "synchronous sub-rounds (same result on any number of threads); async_joins: "
        "asynchronous joins on two threads or more (the result depends on the interleaving).");

    m.def(
        "contract_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vwgt,
           Arr<int32_t> cmap, int64_t nc) {
            HgView h;
            h.m = eptr.shape(0) - 1;
            h.n = vwgt.shape(0);
            check_csr(eptr, eind, h.n, "contract_hypergraph");
            check_len(ewgt, h.m, "ewgt", "contract_hypergraph");
            check_cmap(cmap, h.n, nc, "contract_hypergraph");
            h.eptr = eptr.data();
            h.eind = eind.data();
            h.ewgt = ewgt.data();
            h.vwgt = vwgt.data();
            HgLevel c;
            {
                py::gil_scoped_release release;
                const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
                c = contract_hypergraph(h, cmap.data(), nc);
            }
            return hg_level_tuple(std::move(c));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vwgt"), py::arg("cmap"),
        py::arg("nc"), "(eptr, eind, ewgt, vptr, vind, vwgt) of the coarse hypergraph.");

    m.def(
        "greedy_bisect_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int64_t> bounds, int64_t seed,
           int64_t count) {
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "greedy_bisect_hypergraph");
            check_bounds(bounds, 2, "greedy_bisect_hypergraph");
            if (count < 0) fail("greedy_bisect_hypergraph", "count must be >= 0");
            std::vector<int32_t> out;
            {
                py::gil_scoped_release release;
                out = greedy_bisections(h, bounds.data(), seed, count);
            }
            return to_numpy(std::move(out));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("max_block_weights"), py::arg("seed"), py::arg("count"),
        "Greedy hypergraph growing bisections, seeds seed .. seed+count-1: int32 of count * n "
        "(row r: block ids 0/1 of seed + r).");

    m.def(
        "refine_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int32_t> parts, int32_t k,
           Arr<int64_t> bounds, int objective, int64_t max_rounds, int64_t parallel_min_moves,
           std::optional<Arr<uint8_t>> locked) {
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "refine_hypergraph");
            const uint8_t *lk = locked_mask(locked, h.n, "refine_hypergraph");
            if (parallel_min_moves < 1)
                throw std::invalid_argument("refine_hypergraph: parallel_min_moves must be >= 1");
            UninitVector<int32_t> p = parts_copy(parts, h.n, k, "refine_hypergraph");
            check_bounds(bounds, k, "refine_hypergraph");
            check_objective(objective, "refine_hypergraph");
            int64_t gain;
            {
                py::gil_scoped_release release;
                const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
                gain = refine_sequence(h, p.data(), k, bounds.data(), objective, max_rounds,
                                       parallel_min_moves, lk);
            }
            return py::make_tuple(to_numpy(std::move(p)), gain);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("parts"), py::arg("k"), py::arg("max_block_weights"),
        py::arg("objective"), py::arg("max_rounds"),
        py::arg("parallel_min_moves") = kParallelMinLightItems, py::arg("locked") = py::none(),
        "Sequence-based refinement (HyperG §3.2): (parts, gain); rounds of at least "
        "parallel_min_moves moves evaluate the sequence in parallel (same result). locked "
        "(uint8 per vertex, optional): vertices that never move.");

    m.def(
        "fm_refine_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int32_t> parts, int32_t k,
           Arr<int64_t> bounds, int objective, int64_t max_rounds, int64_t max_fruitless,
           double min_improvement, int64_t seed, double max_work,
           std::optional<Arr<uint8_t>> locked, bool deterministic, int64_t parallel_min_vertices) {
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "fm_refine_hypergraph");
            const uint8_t *lk = locked_mask(locked, h.n, "fm_refine_hypergraph");
            UninitVector<int32_t> p = parts_copy(parts, h.n, k, "fm_refine_hypergraph");
            check_bounds(bounds, k, "fm_refine_hypergraph");
            check_objective(objective, "fm_refine_hypergraph");
            const int64_t fruitless = std::max<int64_t>(1, max_fruitless);
            int64_t gain;
            {
                py::gil_scoped_release release;
                const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
                gain = deterministic
                           ? refine_fm(h, p.data(), k, bounds.data(), objective, max_rounds,
                                       fruitless, min_improvement, seed, max_work, lk)
                           : refine_fm_parallel(h, p.data(), k, bounds.data(), objective,
                                                max_rounds, fruitless, min_improvement, seed,
                                                lk, parallel_min_vertices);
            }
            return py::make_tuple(to_numpy(std::move(p)), gain);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("parts"), py::arg("k"), py::arg("max_block_weights"),
        py::arg("objective"), py::arg("max_rounds"), py::arg("max_fruitless_moves"),
        py::arg("min_improvement"), py::arg("seed"), py::arg("max_work") = 0.0,
        py::arg("locked") = py::none(), py::arg("deterministic") = true,
        py::arg("parallel_min_vertices") = kParallelFmMinVertices,
        "Boundary k-way FM: (parts, gain); max_work > 0 bounds the work of a k-way round "
        "(deterministic only); locked (uint8, n): vertices with a nonzero entry never move; "
        "deterministic=False: the parallel localized FM on levels of at least "
        "parallel_min_vertices vertices when there are two threads or more.");

    m.def(
        "fm_gain_cache_after_moves",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int32_t> parts, int32_t k, int objective,
           Arr<int32_t> move_vertices, Arr<int32_t> move_targets) {
            const std::string what = "fm_gain_cache_after_moves";
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, what);
            UninitVector<int32_t> p = parts_copy(parts, h.n, k, what);
            check_objective(objective, what);
            const int64_t moves = move_vertices.shape(0);
            check_len(move_targets, moves, "move_targets", what);
            for (int64_t i = 0; i < moves; ++i)
                if (move_vertices.data()[i] < 0 || move_vertices.data()[i] >= h.n ||
                    move_targets.data()[i] < 0 || move_targets.data()[i] >= k)
                    fail(what, "move " + std::to_string(i) + " out of range");
            std::vector<int64_t> gains;
            std::vector<uint8_t> offered;
            gain_cache_after_moves(h, p.data(), k, objective, move_vertices.data(),
                                   move_targets.data(), moves, gains, offered);
            py::array_t<int64_t> g = to_numpy(std::move(gains));
            py::array_t<uint8_t> o = to_numpy(std::move(offered));
            return py::make_tuple(to_numpy(std::move(p)), g.reshape({h.n, int64_t(k)}),
                                  o.reshape({h.n, int64_t(k)}));
        },
        "Test hook of the FM's gain cache: (parts after the moves, cached gain of every (vertex, "
        "block), whether the block is offered).");

    m.def(
        "jet_refine_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int32_t> parts, int32_t k,
           Arr<int64_t> bounds, int objective, int64_t max_iterations, int64_t patience,
           double negative_gain_factor, double min_improvement, int64_t afterburner_max_net_size,
           int64_t balance_rounds, int64_t seed, std::optional<Arr<uint8_t>> locked) {
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "jet_refine_hypergraph");
            const uint8_t *lk = locked_mask(locked, h.n, "jet_refine_hypergraph");
            UninitVector<int32_t> p = parts_copy(parts, h.n, k, "jet_refine_hypergraph");
            check_bounds(bounds, k, "jet_refine_hypergraph");
            check_objective(objective, "jet_refine_hypergraph");
            if (max_iterations < 0) fail("jet_refine_hypergraph", "max_iterations must be >= 0");
            if (patience < 1) fail("jet_refine_hypergraph", "patience must be positive");
            // finite: jet_is_candidate truncates c * internal to an integer
            if (!(negative_gain_factor >= 0.0 && std::isfinite(negative_gain_factor)))
                fail("jet_refine_hypergraph",
                     "negative_gain_factor must be a finite non-negative number");
            if (afterburner_max_net_size < 0)
                fail("jet_refine_hypergraph", "afterburner_max_net_size must be >= 0");
            if (!(min_improvement >= 0.0 && min_improvement < 1.0))
                fail("jet_refine_hypergraph", "min_improvement must lie in [0, 1)");
            if (balance_rounds < 0) fail("jet_refine_hypergraph", "balance_rounds must be >= 0");
            JetOptions opt;
            opt.max_iterations = max_iterations;
            opt.patience = patience;
            opt.negative_gain_factor = negative_gain_factor;
            opt.min_improvement = min_improvement;
            opt.afterburner_max_net_size = afterburner_max_net_size;
            opt.balance_rounds = balance_rounds;
            opt.seed = seed;
            int64_t gain;
            {
                py::gil_scoped_release release;
                const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
                gain = refine_jet(h, p.data(), k, bounds.data(), objective, opt, lk);
            }
            return py::make_tuple(to_numpy(std::move(p)), gain);
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("parts"), py::arg("k"), py::arg("max_block_weights"),
        py::arg("objective"), py::arg("max_iterations"), py::arg("patience"),
        py::arg("negative_gain_factor"), py::arg("min_improvement"),
        py::arg("afterburner_max_net_size"), py::arg("balance_rounds"), py::arg("seed"),
        py::arg("locked") = py::none(),
        "Jet refinement (kernels/common/jet.h): (parts, gain); locked (uint8 per vertex, "
        "optional): vertices that never move.");

    m.def(
        "rebalance_hypergraph",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int32_t> parts, int32_t k,
           Arr<int64_t> bounds, int objective, std::optional<Arr<uint8_t>> locked) {
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, "rebalance_hypergraph");
            const uint8_t *lk = locked_mask(locked, h.n, "rebalance_hypergraph");
            UninitVector<int32_t> p = parts_copy(parts, h.n, k, "rebalance_hypergraph");
            check_bounds(bounds, k, "rebalance_hypergraph");
            check_objective(objective, "rebalance_hypergraph");
            {
                py::gil_scoped_release release;
                const StageThreads cap(h.eptr[h.m]);  // threads by the level's pins
                rebalance_hypergraph(h, p.data(), k, bounds.data(), objective, lk);
            }
            return to_numpy(std::move(p));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("parts"), py::arg("k"), py::arg("max_block_weights"),
        py::arg("objective"), py::arg("locked") = py::none(),
        "Rebalancing (overloaded blocks give their least-loss vertices away); locked (uint8 "
        "per vertex, optional): vertices that never move.");

    m.def(
        "refine_candidates",
        [](Arr<int64_t> eptr, Arr<int32_t> eind, Arr<int64_t> ewgt, Arr<int64_t> vptr,
           Arr<int32_t> vind, Arr<int64_t> vwgt, Arr<int32_t> parts, int32_t k,
           Arr<int64_t> bounds, int objective, int64_t max_rounds,
           std::optional<Arr<uint8_t>> locked) {
            const std::string what = "refine_candidates";
            const HgView h = hg_view(eptr, eind, ewgt, vptr, vind, vwgt, what);
            const uint8_t *lk = locked_mask(locked, h.n, what);
            if (k < 1) fail(what, "k must be at least 1");
            check_bounds(bounds, k, what);
            check_objective(objective, what);
            if (parts.ndim() != 2 || parts.shape(1) != h.n)
                fail(what, "parts must be a 2-D array of one row of " + std::to_string(h.n) +
                               " block ids per candidate");
            const int64_t c = parts.shape(0), n = h.n;
            const int32_t *in = parts.data();
            for (int64_t i = 0; i < c * n; ++i)
                if (in[i] < 0 || in[i] >= k)
                    fail(what, "block id out of range at candidate " + std::to_string(i / n) +
                                   ", vertex " + std::to_string(i % n));
            py::array_t<int32_t> out({static_cast<py::ssize_t>(c), static_cast<py::ssize_t>(n)});
            int32_t *p = out.mutable_data();
            std::copy(in, in + c * n, p);
            std::vector<int64_t> values(static_cast<size_t>(c));
            {
                py::gil_scoped_release release;
                // candidates in parallel (each one's stages run on one thread: the levels this
                // is for are small), the same result whatever the threads
#pragma omp parallel for schedule(dynamic, 1)
                for (int64_t i = 0; i < c; ++i) {
                    int32_t *q = p + i * n;
                    rebalance_hypergraph(h, q, k, bounds.data(), objective, lk);
                    if (max_rounds > 0)
                        refine_sequence(h, q, k, bounds.data(), objective, max_rounds,
                                        kParallelMinLightItems, lk);
                    values[static_cast<size_t>(i)] = hypergraph_objective(h, q, k, objective);
                }
            }
            return py::make_tuple(out, to_numpy(std::move(values)));
        },
        py::arg("eptr"), py::arg("eind"), py::arg("ewgt"), py::arg("vptr"), py::arg("vind"),
        py::arg("vwgt"), py::arg("parts"), py::arg("k"), py::arg("max_block_weights"),
        py::arg("objective"), py::arg("max_rounds"), py::arg("locked") = py::none(),
        "Every row of parts (one candidate partition each) rebalanced, then refined by the "
        "sequence refinement (max_rounds rounds; 0: none), candidates in parallel: (refined "
        "rows, their objective values); locked (uint8 per vertex, optional): vertices that "
        "never move.");

    m.def(
        "coarsen_graph",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           int64_t max_cluster_weight, int64_t group_size, int64_t seed) {
            const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "coarsen_graph");
            if (group_size < 1) fail("coarsen_graph", "group_size must be >= 1");
            std::vector<int32_t> cmap;
            int64_t nc;
            {
                py::gil_scoped_release release;
                const StageThreads cap(g.xadj[g.n]);  // threads by the level's arcs
                std::vector<int32_t> best = graph_best_neighbours(g, max_cluster_weight, seed);
                nc = group_vertices(g.n, best.data(), false, g.vwgt, max_cluster_weight,
                                    group_size, cmap);
            }
            return py::make_tuple(to_numpy(std::move(cmap)), nc);
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"),
        py::arg("max_cluster_weight"), py::arg("group_size"), py::arg("seed"),
        "G-kway union-find coarsening with constrained grouping: (cmap, nc).");

    m.def(
        "contract_graph",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           Arr<int32_t> cmap, int64_t nc) {
            const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "contract_graph");
            check_cmap(cmap, g.n, nc, "contract_graph");
            GraphLevel c;
            {
                py::gil_scoped_release release;
                const StageThreads cap(g.xadj[g.n]);  // threads by the level's arcs
                c = contract_graph(g, cmap.data(), nc);
            }
            return py::make_tuple(to_numpy(std::move(c.xadj)), to_numpy(std::move(c.adjncy)),
                                  to_numpy(std::move(c.adjwgt)), to_numpy(std::move(c.vwgt)));
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"), py::arg("cmap"),
        py::arg("nc"));

    m.def(
        "refine_graph",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           Arr<int32_t> parts, int32_t k, Arr<int64_t> bounds, int64_t max_rounds) {
            const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "refine_graph");
            UninitVector<int32_t> p = parts_copy(parts, g.n, k, "refine_graph");
            check_bounds(bounds, k, "refine_graph");
            int64_t gain;
            {
                py::gil_scoped_release release;
                const StageThreads cap(g.xadj[g.n]);  // threads by the level's arcs
                gain = refine_graph_independent(g, p.data(), k, bounds.data(), max_rounds);
            }
            return py::make_tuple(to_numpy(std::move(p)), gain);
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"), py::arg("parts"),
        py::arg("k"), py::arg("max_block_weights"), py::arg("max_rounds"),
        "Independent-set refinement (G-kway §3.2): (parts, gain).");

    m.def(
        "cluster_graph_lp",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           int64_t max_cluster_weight, int64_t iterations, int64_t min_clusters, int64_t seed,
           int64_t sub_rounds, bool deterministic, int64_t dense_labels) {
            const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "cluster_graph_lp");
            if (iterations < 0) fail("cluster_graph_lp", "iterations must be >= 0");
            if (sub_rounds < 1) fail("cluster_graph_lp", "sub_rounds must be >= 1");
            if (dense_labels < 0) fail("cluster_graph_lp", "dense_labels must be >= 0");
            UninitVector<int32_t> cmap;
            int64_t nc;
            {
                py::gil_scoped_release release;
                const StageThreads cap(g.xadj[g.n]);  // threads by the level's arcs
                nc = deterministic
                         ? cluster_graph_lp(g, max_cluster_weight, iterations, min_clusters, seed,
                                            sub_rounds, cmap, dense_labels)
                         : cluster_graph_lp_async(g, max_cluster_weight, iterations,
                                                  min_clusters, seed, cmap, dense_labels);
            }
            return py::make_tuple(to_numpy(std::move(cmap)), nc);
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"),
        py::arg("max_cluster_weight"), py::arg("iterations"), py::arg("min_clusters"),
        py::arg("seed"), py::arg("sub_rounds"), py::arg("deterministic") = true,
        py::arg("dense_labels") = kDenseLabelsMax,
        "Size-constrained label propagation clustering: (cmap, nc); deterministic=False runs "
        "the asynchronous passes (cluster_graph_lp_async: no slices, clusters depend on the "
        "threads' timing); high-degree vertices sum into a dense array when the level has at "
        "most dense_labels vertices (the same clusters).");

    m.def(
        "lp_refine_graph",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           Arr<int32_t> parts, int32_t k, Arr<int64_t> bounds, int64_t iterations, int64_t seed,
           int64_t sub_rounds, bool deterministic) {
            const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "lp_refine_graph");
            UninitVector<int32_t> p = parts_copy(parts, g.n, k, "lp_refine_graph");
            check_bounds(bounds, k, "lp_refine_graph");
            if (iterations < 0) fail("lp_refine_graph", "iterations must be >= 0");
            if (sub_rounds < 1) fail("lp_refine_graph", "sub_rounds must be >= 1");
            int64_t gain;
            {
                py::gil_scoped_release release;
                const StageThreads cap(g.xadj[g.n]);  // threads by the level's arcs
                gain = deterministic ? refine_graph_lp(g, p.data(), k, bounds.data(),
                                                       iterations, seed, sub_rounds)
                                     : refine_graph_lp_async(g, p.data(), k, bounds.data(),
                                                             iterations, seed);
            }
            return py::make_tuple(to_numpy(std::move(p)), gain);
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"), py::arg("parts"),
        py::arg("k"), py::arg("max_block_weights"), py::arg("iterations"), py::arg("seed"),
        py::arg("sub_rounds"), py::arg("deterministic") = true,
        "Label propagation refinement: (parts, gain); deterministic=False runs the asynchronous "
        "passes (refine_graph_lp_async: no slices, the partition depends on the threads' "
        "timing).");

    m.def(
        "fm_refine_graph",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           Arr<int32_t> parts, int32_t k, Arr<int64_t> bounds, int64_t rounds,
           int64_t max_fruitless_moves, double min_improvement, int64_t seed, double max_work,
           bool gain_seeds, bool deterministic, int64_t parallel_min_vertices,
           int64_t cache_min_degree) {
            const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "fm_refine_graph");
            UninitVector<int32_t> p = parts_copy(parts, g.n, k, "fm_refine_graph");
            check_bounds(bounds, k, "fm_refine_graph");
            if (rounds < 0) fail("fm_refine_graph", "rounds must be >= 0");
            if (max_fruitless_moves < 1) fail("fm_refine_graph", "max_fruitless_moves must be >= 1");
            if (!(min_improvement >= 0.0 && min_improvement < 1.0))
                fail("fm_refine_graph", "min_improvement must lie in [0, 1)");
            if (!(max_work >= 0.0)) fail("fm_refine_graph", "max_work must be >= 0");
            if (cache_min_degree < 0) fail("fm_refine_graph", "cache_min_degree must be >= 0");
            int64_t gain;
            {
                py::gil_scoped_release release;
                const StageThreads cap(g.xadj[g.n]);  // threads by the level's arcs
                gain = deterministic
                           ? fm_refine_graph(g, p.data(), k, bounds.data(), rounds,
                                             max_fruitless_moves, min_improvement, seed, max_work,
                                             gain_seeds, cache_min_degree)
                           : fm_refine_graph_parallel(g, p.data(), k, bounds.data(), rounds,
                                                      max_fruitless_moves, min_improvement, seed,
                                                      max_work, gain_seeds, parallel_min_vertices,
                                                      cache_min_degree);
            }
            return py::make_tuple(to_numpy(std::move(p)), gain);
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"), py::arg("parts"),
        py::arg("k"), py::arg("max_block_weights"), py::arg("rounds"),
        py::arg("max_fruitless_moves"), py::arg("min_improvement"), py::arg("seed"),
        py::arg("max_work"), py::arg("gain_seeds"), py::arg("deterministic") = true,
        py::arg("parallel_min_vertices") = kParallelFmMinVertices,
        py::arg("cache_min_degree") = 0,
        "Localized k-way FM on the edge cut: (parts, gain); deterministic=False: the parallel "
        "localized FM on levels of at least parallel_min_vertices vertices when there are two "
        "threads or more; cache_min_degree > 0: the connectivity rows of the vertices of degree "
        ">= max(cache_min_degree, k) kept for the call (the same moves as without).");

    m.def(
        "rebalance_graph",
        [](Arr<int64_t> xadj, Arr<int32_t> adjncy, Arr<int64_t> adjwgt, Arr<int64_t> vwgt,
           Arr<int32_t> parts, int32_t k, Arr<int64_t> bounds) {
            const GraphView g = graph_view(xadj, adjncy, adjwgt, vwgt, "rebalance_graph");
            UninitVector<int32_t> p = parts_copy(parts, g.n, k, "rebalance_graph");
            check_bounds(bounds, k, "rebalance_graph");
            {
                py::gil_scoped_release release;
                const StageThreads cap(g.xadj[g.n]);  // threads by the level's arcs
                rebalance_graph(g, p.data(), k, bounds.data());
            }
            return to_numpy(std::move(p));
        },
        py::arg("xadj"), py::arg("adjncy"), py::arg("adjwgt"), py::arg("vwgt"), py::arg("parts"),
        py::arg("k"), py::arg("max_block_weights"));
}
