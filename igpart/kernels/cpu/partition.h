// Stage operations of the multilevel partitioners (C++ backend): coarsening, contraction,
// refinement and rebalancing for hypergraphs and graphs. The per-element formulas come from
// kernels/common/partition_common.h, shared with the GPU backend.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>
#ifdef _OPENMP
#include <omp.h>

#include <parallel/algorithm>
#endif

#include "partition_common.h"

namespace igp {

// Loops over fewer items than this run on the calling thread: an OpenMP team per call costs more
// than the loop on small levels (the bisections of recursive bisection run hundreds of levels of
// a few hundred vertices, often from several Python threads at once: 10x the time on a loaded
// 2-core machine). Every parallel loop writes per-item results or sorts them by a total order
// afterwards, so the result does not depend on whether it ran in parallel.
constexpr int64_t kParallelMinItems = 4096;
// The same for loops of a few operations per item (keys, copies, relabelling): on a loaded
// machine a parallel region costs more than such a loop over fewer items.
constexpr int64_t kParallelMinLightItems = 16 * kParallelMinItems;

// The OpenMP threads of a stage call by its work: at most one thread per `stage_pins_per_thread()`
// pins of the level it works on (0: every thread). The thresholds above decide whether a loop
// runs in parallel at all; this caps how many threads it wakes, so that the small levels of a
// run on many threads do not pay a whole team's start and barriers for a few microseconds of
// work each. Process-wide (set by the Python side, CpuBackend.stage_pins_per_thread); every
// stage's result is independent of its threads, so the cap changes times only.
inline std::atomic<int64_t> &stage_pins_per_thread() {
    static std::atomic<int64_t> pins{0};
    return pins;
}

// Caps the calling thread's OpenMP threads (omp_set_num_threads) at ceil(work / pins per thread)
// for its lifetime, then restores them; nothing inside a parallel region or when the cap is off.
class StageThreads {
  public:
    explicit StageThreads(int64_t work) {
#ifdef _OPENMP
        const int64_t per = stage_pins_per_thread().load(std::memory_order_relaxed);
        if (per <= 0 || omp_in_parallel()) return;
        const int before = omp_get_max_threads();
        const int64_t want = std::max<int64_t>(1, (std::max<int64_t>(work, 0) + per - 1) / per);
        if (want < before) {
            before_ = before;
            omp_set_num_threads(static_cast<int>(want));
        }
#else
        (void)work;
#endif
    }
    ~StageThreads() {
#ifdef _OPENMP
        if (before_ > 0) omp_set_num_threads(before_);
#endif
    }
    StageThreads(const StageThreads &) = delete;
    StageThreads &operator=(const StageThreads &) = delete;

  private:
    int before_ = 0;
};

// Sorts [first, last) on the OpenMP threads (libstdc++'s parallel mode) when there are enough
// items: meant for total orders only, where the result is the sequential sort's.
template <class It>
void parallel_sort(It first, It last) {
#ifdef _OPENMP
    if (last - first >= kParallelMinLightItems) {
        __gnu_parallel::sort(first, last);
        return;
    }
#endif
    std::sort(first, last);
}

template <class It, class Less>
void parallel_sort(It first, It last, Less less) {
#ifdef _OPENMP
    if (last - first >= kParallelMinLightItems) {
        __gnu_parallel::sort(first, last, less);
        return;
    }
#endif
    std::sort(first, last, less);
}

// A process-wide run length of a visiting order (below), read and written with relaxed atomics;
// 0: no runs. Negative values are stored as 0.
class OrderRun {
  public:
    int64_t get() const { return value_.load(std::memory_order_relaxed); }
    void set(int64_t run) { value_.store(std::max<int64_t>(run, 0), std::memory_order_relaxed); }

  private:
    std::atomic<int64_t> value_{0};
};

// A seeded visiting order of 0..n-1: the ids sorted by (run_hash(u / run), hash(u), u) with
// run > 0, so that runs of `run` consecutive ids come in a seeded order and the ids of a run in
// a seeded order (the rows read one after another lie close together in memory), else by
// (hash(u), u). A total order: the same on any threads.
template <class Hash, class RunHash>
std::vector<int32_t> seeded_run_order(int64_t n, int64_t run, Hash hash, RunHash run_hash) {
    std::vector<std::pair<uint64_t, int32_t>> key(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t u = 0; u < n; ++u) {
        const uint64_t high = run > 0 ? uint64_t(run_hash(u / run)) << 32 : 0;
        key[u] = {high | hash(u), static_cast<int32_t>(u)};
    }
    parallel_sort(key.begin(), key.end());
    std::vector<int32_t> order(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t i = 0; i < n; ++i) order[i] = key[i].second;
    return order;
}

// Threads (and contiguous chunks of [0, n)) for a loop over n items: every OpenMP thread from
// min_items items on (kParallelMinItems for loops of real work per item, the default
// kParallelMinLightItems for loops of a few operations per item), else one.
inline int loop_threads(int64_t n, int64_t min_items = kParallelMinLightItems) {
#ifdef _OPENMP
    if (n >= min_items) return std::max(1, omp_get_max_threads());
#endif
    (void)n;
    (void)min_items;
    return 1;
}

// An allocator whose value-less construct leaves the element uninitialised: a vector of it sized
// for results that a parallel loop fills costs no sequential zeroing pass first.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U> &) noexcept {}
    template <class U>
    void construct(U *p) noexcept {
        ::new (static_cast<void *>(p)) U;
    }
    template <class U, class... Args>
    void construct(U *p, Args &&...args) {
        ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
    }
};

// A vector whose size-only constructor and resize leave the elements uninitialised.
template <class T>
using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

// n copies of `value` written by the OpenMP threads on large arrays (a per-vertex array of a
// stage call filled without a sequential pass).
template <class T>
UninitVector<T> filled(int64_t n, T value) {
    UninitVector<T> v(static_cast<size_t>(n));
    T *p = v.data();
#pragma omp parallel for schedule(static) if (n >= kParallelMinLightItems)
    for (int64_t i = 0; i < n; ++i) p[i] = value;
    return v;
}

// The OpenMP threads a parallel region started here would get, and the calling thread's number
// inside a region (1 and 0 without OpenMP).
inline int max_threads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
inline int current_thread() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

// One object per thread in a std::vector<Padded<T>> indexed by the thread, each on cache lines of
// its own: a thread writing its object (a vector's end pointer at every push_back) does not take
// the line from the threads beside it, as it would with the objects side by side.
template <class T>
struct alignas(64) Padded {
    T value;
    Padded() = default;
    explicit Padded(const T &v) : value(v) {}
};

// Whether the caller runs inside an OpenMP parallel region (a nested region would get one thread).
inline bool in_parallel() {
#ifdef _OPENMP
    return omp_in_parallel() != 0;
#else
    return false;
#endif
}

// The i in [0, n) with keep(i), ascending (chunks counted, then filled, in parallel: the
// sequential loop's result).
template <class Keep>
std::vector<int32_t> parallel_select(int64_t n, Keep keep) {
    const int64_t chunks = loop_threads(n);
    std::vector<int64_t> off(static_cast<size_t>(chunks + 1), 0);
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(chunks)) if (chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
        int64_t count = 0;
        for (int64_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i) count += keep(i) ? 1 : 0;
        off[c + 1] = count;
    }
    for (int64_t c = 0; c < chunks; ++c) off[c + 1] += off[c];
    std::vector<int32_t> out(static_cast<size_t>(off[chunks]));
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(chunks)) if (chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
        int64_t at = off[c];
        for (int64_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i)
            if (keep(i)) out[at++] = static_cast<int32_t>(i);
    }
    return out;
}

// a[i] += a[i - 1] for i = 1 .. size - 1 (an inclusive prefix sum of integers, in parallel
// chunks: the sequential loop's result).
inline void parallel_prefix_sum(std::vector<int64_t> &a) {
    const int64_t n = static_cast<int64_t>(a.size());
    const int64_t chunks = loop_threads(n);
    if (chunks == 1) {
        for (int64_t i = 1; i < n; ++i) a[i] += a[i - 1];
        return;
    }
    std::vector<int64_t> total(static_cast<size_t>(chunks + 1), 0);
#pragma omp parallel num_threads(static_cast<int>(chunks))
    {
#pragma omp for schedule(static, 1)
        for (int64_t c = 0; c < chunks; ++c) {
            const int64_t lo = n * c / chunks, hi = n * (c + 1) / chunks;
            for (int64_t i = lo + 1; i < hi; ++i) a[i] += a[i - 1];
            total[c + 1] = hi > lo ? a[hi - 1] : 0;
        }
#pragma omp single
        for (int64_t c = 0; c < chunks; ++c) total[c + 1] += total[c];
#pragma omp for schedule(static, 1)
        for (int64_t c = 0; c < chunks; ++c)
            for (int64_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i) a[i] += total[c];
    }
}

// Read-only views of a level (pointers into numpy arrays owned by the caller).
struct HgView {
    int64_t n = 0, m = 0;
    const int64_t *eptr = nullptr;  // m+1
    const int32_t *eind = nullptr;  // pins
    const int64_t *ewgt = nullptr;  // m
    const int64_t *vptr = nullptr;  // n+1
    const int32_t *vind = nullptr;  // pins
    const int64_t *vwgt = nullptr;  // n
    int64_t size(int64_t e) const { return eptr[e + 1] - eptr[e]; }
};

struct GraphView {
    int64_t n = 0;
    const int64_t *xadj = nullptr;    // n+1
    const int32_t *adjncy = nullptr;  // 2|E|
    const int64_t *adjwgt = nullptr;  // 2|E|
    const int64_t *vwgt = nullptr;    // n
};

// Calls f(v, r) for every pin v != u of every net of u with 2..max_net_size pins, where
// r = rating_term(w_e, |e|) is that net's contribution to the rating of the pair (u, v).
template <class F>
inline void for_each_rated_neighbour(const HgView &h, int32_t u, int64_t max_net_size, F &&f) {
    const int64_t end = h.vptr[u + 1];
    for (int64_t j = h.vptr[u]; j < end; ++j) {
        // the nets' bounds two nets ahead, the pins of the next one (nets sit anywhere)
        if (j + 2 < end) __builtin_prefetch(&h.eptr[h.vind[j + 2]]);
        if (j + 1 < end) __builtin_prefetch(h.eind + h.eptr[h.vind[j + 1]]);
        const int32_t e = h.vind[j];
        const int64_t size = h.size(e);
        if (size < 2 || size > max_net_size) continue;
        const double r = rating_term(h.ewgt[e], size);
        for (int64_t q = h.eptr[e]; q < h.eptr[e + 1]; ++q)
            if (h.eind[q] != u) f(h.eind[q], r);
    }
}

struct HgLevel {  // an owned hypergraph level (contraction output)
    std::vector<int64_t> eptr, vptr;
    UninitVector<int64_t> ewgt, vwgt;  // sized, then filled by parallel loops
    UninitVector<int32_t> eind;
    std::vector<int32_t> vind;
};

struct GraphLevel {  // an owned graph level
    std::vector<int64_t> xadj, adjwgt, vwgt;
    std::vector<int32_t> adjncy;
};

// ------------------------------------------------------------------------------ coarsening
// Best-rated neighbour of every vertex (-1: none), HyperG §3.1 rating.
std::vector<int32_t> hypergraph_best_neighbours(const HgView &h, int64_t max_cluster_weight,
                                                int64_t max_net_size, const int32_t *communities,
                                                int64_t seed);
// Best-scored neighbour of every vertex (-1: none), G-kway §3.1 score.
std::vector<int32_t> graph_best_neighbours(const GraphView &g, int64_t max_cluster_weight,
                                           int64_t seed);
// Groups the components of the (u, best[u]) graph (leader: largest id when leader_max, else
// smallest), sorts by (leader, BFS distance from leader, id) and cuts subgroups of at most
// group_size vertices and max_cluster_weight weight. Fills cmap (dense ids); returns their count.
int64_t group_vertices(int64_t n, const int32_t *best, bool leader_max, const int64_t *vwgt,
                       int64_t max_cluster_weight, int64_t group_size, std::vector<int32_t> &cmap);

// Cluster-aware heavy-edge clustering (the default hypergraph coarsening): vertices in a seeded
// order; an unclustered vertex u joins the cluster C (represented by its first vertex) of highest
// rating sum over pins v in C of w_e / (|e| - 1) over shared nets of 2..max_net_size pins
// (divided by the weight of C when weight_penalty), among clusters of its community (when
// communities != nullptr) with weight(C) + w(u) <= max_cluster_weight; ties prefer unclustered
// targets, then the lighter cluster, then tie_hash. A vertex chosen as target no longer moves.
// Stops once n / max_shrink clusters remain. Fills cmap (dense ids by ascending representative).
// sub_rounds > 0 (levels of at least kParallelMinItems vertices): the visiting order is cut into
// that many slices; the vertices of a slice rate in parallel against the clusters before it, then
// join in order (see coarsen.cpp); the result depends on sub_rounds, never on the threads.
// async_joins (with two threads or more, levels of at least kParallelMinItems vertices): every
// thread takes chunks of the order, each vertex joins at once against the clusters as they are
// (claims by compare-and-swap, the weight cap reserved on the cluster); the result depends on
// the threads' interleaving. The asynchronous joins visit the order in runs of
// cluster_order_run() consecutive ids, the sub-rounds in runs of cluster_sub_round_order_run()
// (seeded_run_order); the sequential clustering keeps one seeded order.
int64_t cluster_hypergraph(const HgView &h, int64_t max_cluster_weight, int64_t max_net_size,
                           const int32_t *communities, double max_shrink, bool weight_penalty,
                           int64_t seed, std::vector<int32_t> &cmap, int64_t sub_rounds = 0,
                           bool async_joins = false);

// The run lengths of cluster_hypergraph's visiting order in its asynchronous joins and in its
// sub-rounds (0: one seeded order over all vertices; process-wide).
OrderRun &cluster_order_run();
OrderRun &cluster_sub_round_order_run();

HgLevel contract_hypergraph(const HgView &h, const int32_t *cmap, int64_t nc);
GraphLevel contract_graph(const GraphView &g, const int32_t *cmap, int64_t nc);

// ------------------------------------------------------------------------------ metrics
std::vector<int64_t> block_weights(int64_t n, const int64_t *vwgt, const int32_t *parts, int32_t k);
int64_t hypergraph_objective(const HgView &h, const int32_t *parts, int32_t k, int objective);
int64_t graph_edge_cut(const GraphView &g, const int32_t *parts);

// ------------------------------------------------------------------------------ refinement
// All modify `parts` in place and return the objective improvement (>= 0). `locked` (optional,
// n entries): vertices with a non-zero entry never move (fixed vertices).
// Sequence refinement; rounds of at least parallel_min_moves moves evaluate the sequence in
// parallel (per net), with the same moves and result as the sequential evaluation.
int64_t refine_sequence(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                        int objective, int64_t max_rounds,
                        int64_t parallel_min_moves = kParallelMinLightItems,
                        const uint8_t *locked = nullptr);
// refine_fm: max_work > 0 stops a round of the k-way FM (k > 2, or weights the bisection's gain
// tracking does not take) once its gain evaluations have read max_work * (pins + n) pins.
// fixed (n entries, or nullptr): vertices with a nonzero entry never move. Sequential moves from
// one priority queue (the gains kept by a gain cache): the result does not depend on the threads.
int64_t refine_fm(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds, int objective,
                  int64_t max_rounds, int64_t max_fruitless, double min_improvement, int64_t seed,
                  double max_work = 0.0, const uint8_t *fixed = nullptr);
// Parallel localized FM (fm_parallel.cpp): the same stopping rules per round, local searches
// from boundary seeds on the OpenMP threads, the exact gains of their global move sequence and
// a rollback to its best balanced prefix; depends on the threads' interleaving. Levels of fewer
// than min_vertices vertices, runs on one thread, and levels whose gain cache would not fit
// (n * k > 2^28) get refine_fm instead (without a work bound).
constexpr int64_t kParallelFmMinVertices = 16384;
int64_t refine_fm_parallel(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                           int objective, int64_t max_rounds, int64_t max_fruitless,
                           double min_improvement, int64_t seed, const uint8_t *fixed = nullptr,
                           int64_t min_vertices = kParallelFmMinVertices);
void rebalance_hypergraph(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds,
                          int objective, const uint8_t *locked = nullptr);

// Jet refinement (jet.cpp, kernels/common/jet.h): see Backend.jet_refine_hypergraph.
struct JetOptions {
    int64_t max_iterations = 64;
    int64_t patience = 12;
    double negative_gain_factor = 0.25;
    double min_improvement = 0.001;
    int64_t afterburner_max_net_size = 256;
    int64_t balance_rounds = 3;
    int64_t seed = 0;
};
// Returns the objective improvement (>= 0); `parts` holds the best partition seen.
int64_t refine_jet(const HgView &h, int32_t *parts, int32_t k, const int64_t *bounds, int objective,
                   const JetOptions &opt, const uint8_t *locked = nullptr);

// ------------------------------------------------------------------------------ initial
// Greedy hypergraph growing (KaHyPar / Mt-KaHyPar's GHG initial bisector), `count` runs with
// seeds seed .. seed+count-1, row r (n entries, block ids 0/1) of the result for seed + r. Run
// with seed s grows block g = s mod 2 from a seeded start vertex: it repeatedly takes the vertex
// adjacent to g with the highest share (or, every other seed pair, weight) of its clique-
// expansion weight towards g (ties: the cut gain, which for two blocks is the km1 gain, then a
// seeded hash, then the id; initial.cpp says why not the cut gain first) until g reaches its
// share bounds[g] / (bounds[0] + bounds[1]) of the total weight (at least total - bounds[1-g]),
// skipping vertices that would push it over bounds[g]; a new start vertex (seeded order) when
// none is adjacent. Runs are independent (OpenMP over runs on large inputs); the result does
// not depend on the number of threads.
std::vector<int32_t> greedy_bisections(const HgView &h, const int64_t *bounds, int64_t seed,
                                       int64_t count);

int64_t refine_graph_independent(const GraphView &g, int32_t *parts, int32_t k,
                                 const int64_t *bounds, int64_t max_rounds);
void rebalance_graph(const GraphView &g, int32_t *parts, int32_t k, const int64_t *bounds);

}  // namespace igp
