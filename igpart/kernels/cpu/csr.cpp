// CSR structure kernels: transpose, in-row deduplication, clique expansion.
#include "csr.h"

#include <algorithm>
#include <climits>
#include <cmath>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "igpart_common.h"
#include "partition.h"
#include "scratch_map.h"

namespace igp {

void induced_nets(const int64_t *eptr, const int32_t *eind, int64_t m, const int32_t *id, bool cut,
                  std::vector<int64_t> &ptr, std::vector<int32_t> &ind,
                  std::vector<int64_t> &nets) {
    ptr.assign(1, 0);
    ind.clear();
    nets.clear();
    for (int64_t e = 0; e < m; ++e) {
        int64_t inside = 0;
        for (int64_t j = eptr[e]; j < eptr[e + 1]; ++j) inside += id[eind[j]] >= 0;
        if (inside < 2 || (cut && inside != eptr[e + 1] - eptr[e])) continue;
        for (int64_t j = eptr[e]; j < eptr[e + 1]; ++j)
            if (id[eind[j]] >= 0) ind.push_back(id[eind[j]]);
        ptr.push_back(static_cast<int64_t>(ind.size()));
        nets.push_back(e);
    }
}

Csr csr_transpose(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols) {
    Csr t;
    const int64_t nnz = ptr[nrows] - ptr[0];
    t.ptr.assign(static_cast<size_t>(ncols + 1), 0);
    t.ind.resize(static_cast<size_t>(nnz));
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    if (nnz < kParallelMinLightItems || threads < 2) {
        for (int64_t j = ptr[0]; j < ptr[nrows]; ++j) ++t.ptr[ind[j] + 1];
        for (int64_t c = 0; c < ncols; ++c) t.ptr[c + 1] += t.ptr[c];
        std::vector<int64_t> pos(t.ptr.begin(), t.ptr.end() - 1);
        for (int64_t r = 0; r < nrows; ++r)
            for (int64_t j = ptr[r]; j < ptr[r + 1]; ++j)
                t.ind[pos[ind[j]]++] = static_cast<int32_t>(r);
        return t;
    }
    // in parallel: C contiguous chunks of rows; chunk t writes its rows of column c from
    // ptr[c] + (the column's entries in chunks before t), so every column lists its rows
    // ascending, as above. C is capped so that the C x ncols offsets take at most 2 x nnz slots.
    const int64_t chunks =
        std::max<int64_t>(2, std::min<int64_t>(threads, 2 * nnz / std::max<int64_t>(ncols, 1)));
    // each chunk's counters zeroed by the thread that counts into them (C x ncols slots, up to
    // 2 x nnz: no sequential zeroing pass over them before the parallel counting)
    UninitVector<int64_t> off(static_cast<size_t>(chunks * ncols));
    auto first_row = [&](int64_t x) {  // chunks of about equal entries
        const int64_t target = ptr[0] + nnz * x / chunks;
        return static_cast<int64_t>(std::lower_bound(ptr, ptr + nrows, target) - ptr);
    };
#pragma omp parallel for schedule(static, 1)
    for (int64_t x = 0; x < chunks; ++x) {
        int64_t *cnt = off.data() + x * ncols;
        std::fill(cnt, cnt + ncols, int64_t{0});
        for (int64_t j = ptr[first_row(x)], end = ptr[first_row(x + 1)]; j < end; ++j)
            ++cnt[ind[j]];
    }
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < ncols; ++c) {
        int64_t total = 0;
        for (int64_t x = 0; x < chunks; ++x) total += off[x * ncols + c];
        t.ptr[c + 1] = total;
    }
    for (int64_t c = 0; c < ncols; ++c) t.ptr[c + 1] += t.ptr[c];
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < ncols; ++c) {
        int64_t at = t.ptr[c];
        for (int64_t x = 0; x < chunks; ++x) {
            const int64_t n = off[x * ncols + c];
            off[x * ncols + c] = at;
            at += n;
        }
    }
#pragma omp parallel for schedule(static, 1)
    for (int64_t x = 0; x < chunks; ++x) {
        int64_t *pos = off.data() + x * ncols;
        for (int64_t r = first_row(x), end = first_row(x + 1); r < end; ++r)
            for (int64_t j = ptr[r]; j < ptr[r + 1]; ++j)
                t.ind[pos[ind[j]]++] = static_cast<int32_t>(r);
    }
    return t;
}

bool rows_have_duplicates(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols) {
    (void)ncols;
    int found = 0;  // set by the first thread to meet a repeat; the others stop soon after
#pragma omp parallel if (nrows >= kParallelMinLightItems)
    {
        std::vector<int32_t> row;  // a long row's ids, sorted
#pragma omp for schedule(dynamic, 4096)
        for (int64_t r = 0; r < nrows; ++r) {
            if (__atomic_load_n(&found, __ATOMIC_RELAXED)) continue;
            const int64_t b = ptr[r], e = ptr[r + 1];
            bool dup = false;
            if (e - b <= 16) {  // short rows: pairwise, cache-friendly
                for (int64_t i = b + 1; i < e && !dup; ++i)
                    for (int64_t j = b; j < i; ++j)
                        if (ind[i] == ind[j]) {
                            dup = true;
                            break;
                        }
            } else {
                row.assign(ind + b, ind + e);
                std::sort(row.begin(), row.end());
                dup = std::adjacent_find(row.begin(), row.end()) != row.end();
            }
            if (dup) __atomic_store_n(&found, 1, __ATOMIC_RELAXED);
        }
    }
    return found != 0;
}

namespace {

// A hash of the arc u -> v of weight w (u, v < 2^31): summed over the arcs, the sums of (u, v, w)
// and of (v, u, w) are equal when the two multisets are (every edge listed both ways with one
// weight); an asymmetric adjacency gives equal sums with a chance of about 2^-64.
inline uint64_t arc_hash(uint64_t u, uint64_t v, int64_t w) {
    return mix64(mix64((u << 32 | v) ^ 0x6a09e667f3bcc908ULL) ^ static_cast<uint64_t>(w));
}

// graph_defect past the self loops, with `at(j)`: the arc at sorted position j of its row, and
// `alike`: whether the arc hashes of both directions summed alike. Repeats first; without one,
// `alike` means no defect; else every arc is looked up in its neighbour's sorted row, a missing
// reverse ranked by the smaller of its two keys, a weight mismatch by its own key.
template <class At>
GraphDefect rank_defect(const int64_t *xadj, int64_t n, const int32_t *adjncy,
                        const int64_t *adjwgt, At at, bool alike) {
    GraphDefect d;
    auto key = [n](int64_t u, int64_t v) { return u * n + v; };
    int64_t repeat = INT64_MAX;  // the smallest (u, v) that row u lists twice
#pragma omp parallel for schedule(static) reduction(min : repeat) if (n >= kParallelMinItems)
    for (int64_t u = 0; u < n; ++u)
        for (int64_t j = xadj[u] + 1; j < xadj[u + 1]; ++j)
            if (adjncy[at(j)] == adjncy[at(j - 1)]) {
                repeat = std::min(repeat, key(u, adjncy[at(j)]));
                break;
            }
    if (repeat != INT64_MAX) {
        d.kind = GraphDefect::repeat;
        d.u = repeat / n;
        d.v = repeat % n;
        return d;
    }
    if (alike) return d;
    // an arc u -> v looked up in v's sorted row: its reverse arc, or -1
    auto reverse = [&](int64_t u, int32_t v) -> int64_t {
        int64_t lo = xadj[v], hi = xadj[v + 1];
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (adjncy[at(mid)] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < xadj[v + 1] && adjncy[at(lo)] == u ? at(lo) : -1;
    };
    int64_t missing = INT64_MAX, weight = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 1024) reduction(min : missing, weight) \
    if (n >= kParallelMinItems)
    for (int64_t u = 0; u < n; ++u) {
        for (int64_t j = xadj[u]; j < xadj[u + 1]; ++j) {
            const int32_t v = adjncy[j];
            const int64_t r = reverse(u, v);
            if (r < 0) {
                // the pair by its smaller key, doubled, plus 1 when the listed arc is the
                // larger key's (u > v)
                missing = std::min(missing, std::min(key(u, v), key(v, u)) * 2 + (u < v ? 0 : 1));
            } else if (adjwgt[r] != adjwgt[j]) {
                weight = std::min(weight, key(u, v));
            }
        }
    }
    if (missing != INT64_MAX) {
        const int64_t k = missing / 2;
        d.kind = GraphDefect::missing;
        // the arc that is listed: (smaller, larger) when the flag is 0, else (larger, smaller)
        d.u = missing % 2 ? k % n : k / n;
        d.v = missing % 2 ? k / n : k % n;
        return d;
    }
    if (weight != INT64_MAX) {
        d.kind = GraphDefect::weight;
        d.u = weight / n;
        d.v = weight % n;
        for (int64_t j = xadj[d.u]; j < xadj[d.u + 1]; ++j)
            if (adjncy[j] == d.v) d.w_uv = adjwgt[j];
        for (int64_t j = xadj[d.v]; j < xadj[d.v + 1]; ++j)
            if (adjncy[j] == d.u) d.w_vu = adjwgt[j];
    }
    return d;
}

}  // namespace

GraphDefect graph_defect(const int64_t *xadj, int64_t n, const int32_t *adjncy,
                         const int64_t *adjwgt) {
    const int64_t nnz = xadj[n];
    // one pass over the arcs in order: self loops (the first in CSR order), whether every row is
    // in order (as most files and generators write them), a neighbour repeated next to itself,
    // and the arc hashes of both directions
    int64_t loop_at = nnz;
    bool sorted = true, adjacent_repeat = false;
    uint64_t fwd = 0, rev = 0;
#pragma omp parallel for schedule(static) reduction(min : loop_at) reduction(&& : sorted) \
    reduction(|| : adjacent_repeat) reduction(+ : fwd, rev) if (n >= kParallelMinItems)
    for (int64_t u = 0; u < n; ++u)
        for (int64_t j = xadj[u]; j < xadj[u + 1]; ++j) {
            const int32_t v = adjncy[j];
            if (v == u) {
                loop_at = std::min(loop_at, j);
                break;
            }
            if (j > xadj[u]) {
                sorted = sorted && adjncy[j - 1] <= v;
                adjacent_repeat = adjacent_repeat || adjncy[j - 1] == v;
            }
            fwd += arc_hash(static_cast<uint64_t>(u), static_cast<uint64_t>(v), adjwgt[j]);
            rev += arc_hash(static_cast<uint64_t>(v), static_cast<uint64_t>(u), adjwgt[j]);
        }
    if (loop_at < nnz) {
        GraphDefect d;
        d.kind = GraphDefect::loop;
        d.u = d.v = adjncy[loop_at];
        return d;
    }
    const bool alike = fwd == rev;
    if (sorted) {
        if (!adjacent_repeat && alike) return GraphDefect();  // the common case: no defect
        return rank_defect(xadj, n, adjncy, adjwgt, [](int64_t j) { return j; }, alike);
    }
    // rows by neighbour id: at[j] is the arc at sorted position j of its row
    std::vector<int64_t> at(static_cast<size_t>(nnz));
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelMinItems)
    for (int64_t u = 0; u < n; ++u) {
        const int64_t b = xadj[u], e = xadj[u + 1];
        for (int64_t j = b; j < e; ++j) at[j] = j;
        std::stable_sort(at.begin() + b, at.begin() + e,
                         [&](int64_t x, int64_t y) { return adjncy[x] < adjncy[y]; });
    }
    const int64_t *a = at.data();
    return rank_defect(xadj, n, adjncy, adjwgt, [a](int64_t j) { return a[j]; }, alike);
}

Csr dedup_rows(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols) {
    Csr d;
    d.ptr.resize(static_cast<size_t>(nrows + 1));
    d.ind.reserve(static_cast<size_t>(ptr[nrows] - ptr[0]));
    std::vector<int64_t> last(static_cast<size_t>(ncols), -1);
    d.ptr[0] = 0;
    for (int64_t r = 0; r < nrows; ++r) {
        for (int64_t j = ptr[r]; j < ptr[r + 1]; ++j) {
            int32_t c = ind[j];
            if (last[c] != r) {
                last[c] = r;
                d.ind.push_back(c);
            }
        }
        d.ptr[r + 1] = static_cast<int64_t>(d.ind.size());
    }
    return d;
}

WeightedCsr clique_expand(const int64_t *eptr, const int32_t *eind, const int64_t *ewgt, int64_t m,
                          const int64_t *vptr, const int32_t *vind, int64_t n, int64_t max_size,
                          double scale) {
    (void)m;
    WeightedCsr g;
    g.ptr.resize(static_cast<size_t>(n + 1));
    g.ptr[0] = 0;
    std::vector<double> acc(static_cast<size_t>(n), 0.0);
    std::vector<int64_t> mark(static_cast<size_t>(n), -1);
    std::vector<int32_t> touched;
    for (int64_t u = 0; u < n; ++u) {
        touched.clear();
        // Nets of u are visited in ascending id order (vind is a stable transpose), so the pair
        // (u, v) sums the same terms in the same order from both sides: the result is symmetric.
        for (int64_t j = vptr[u]; j < vptr[u + 1]; ++j) {
            const int32_t e = vind[j];
            const int64_t size = eptr[e + 1] - eptr[e];
            if (size < 2 || size > max_size) continue;
            const double w = clique_pair_weight(ewgt[e], size);
            for (int64_t k = eptr[e]; k < eptr[e + 1]; ++k) {
                const int32_t v = eind[k];
                if (v == u) continue;
                if (mark[v] != u) {
                    mark[v] = u;
                    touched.push_back(v);
                }
                acc[v] += w;
            }
        }
        std::sort(touched.begin(), touched.end());
        for (int32_t v : touched) {
            const double w = acc[v];
            acc[v] = 0.0;
            if (w <= 0.0) continue;  // zero-weight nets contribute no edge
            g.ind.push_back(v);
            g.wgt.push_back(std::max<int64_t>(1, static_cast<int64_t>(std::llround(w * scale))));
        }
        g.ptr[u + 1] = static_cast<int64_t>(g.ind.size());
    }
    return g;
}

SubLevelArrays level_subhypergraphs(const int64_t *eptr, const int32_t *eind, int64_t m,
                                    const int64_t *group, int64_t n, int64_t ngroups) {
    SubLevelArrays out;
    const int64_t G = ngroups;
    const int threads = max_threads();
    // vertices by group, ascending ids inside a group: counts per chunk of ids and group, then
    // each chunk's first position per group
    const int64_t vchunks = std::max<int64_t>(1, std::min<int64_t>(4 * threads, n / 4096));
    std::vector<int64_t> vcount(static_cast<size_t>(vchunks * G), 0);
#pragma omp parallel for schedule(static) if (vchunks > 1)
    for (int64_t c = 0; c < vchunks; ++c) {
        int64_t *cnt = vcount.data() + c * G;
        for (int64_t v = n * c / vchunks; v < n * (c + 1) / vchunks; ++v) ++cnt[group[v]];
    }
    out.vstart.assign(static_cast<size_t>(G + 1), 0);
    for (int64_t g = 0, at = 0; g < G; ++g) {  // (chunk, group) offsets, group-major
        out.vstart[g] = at;
        for (int64_t c = 0; c < vchunks; ++c) {
            const int64_t k = vcount[c * G + g];
            vcount[c * G + g] = at;
            at += k;
        }
    }
    out.vstart[G] = n;
    out.order.resize(static_cast<size_t>(n));
    std::vector<int32_t> local(static_cast<size_t>(n));
#pragma omp parallel for schedule(static) if (vchunks > 1)
    for (int64_t c = 0; c < vchunks; ++c) {
        int64_t *next = vcount.data() + c * G;
        for (int64_t v = n * c / vchunks; v < n * (c + 1) / vchunks; ++v) {
            const int64_t g = group[v], at = next[g]++;
            out.order[at] = v;
            local[v] = static_cast<int32_t>(at - out.vstart[g]);
        }
    }
    // sub-nets: per chunk of nets and group, how many and their pins; then each chunk's first
    // sub-net and first pin per group (group-major, chunks in net order), and the chunks write
    const int64_t echunks = std::max<int64_t>(1, std::min<int64_t>(8 * threads, m / 1024));
    std::vector<int64_t> rcount(static_cast<size_t>(echunks * G), 0),
        pcount(static_cast<size_t>(echunks * G), 0);
    // the groups of net e's pins and their pin counts, in a thread's zeroed array of G counts
    auto groups_of = [&](int64_t e, std::vector<int64_t> &cnt, std::vector<int64_t> &touched) {
        touched.clear();
        for (int64_t j = eptr[e]; j < eptr[e + 1]; ++j) {
            const int64_t g = group[eind[j]];
            if (cnt[g]++ == 0) touched.push_back(g);
        }
    };
#pragma omp parallel if (echunks > 1)
    {
        std::vector<int64_t> cnt(static_cast<size_t>(G), 0), touched;
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < echunks; ++c) {
            int64_t *rc = rcount.data() + c * G, *pc = pcount.data() + c * G;
            for (int64_t e = m * c / echunks; e < m * (c + 1) / echunks; ++e) {
                groups_of(e, cnt, touched);
                for (const int64_t g : touched) {
                    if (cnt[g] >= 2) {
                        ++rc[g];
                        pc[g] += cnt[g];
                    }
                    cnt[g] = 0;
                }
            }
        }
    }
    out.rstart.assign(static_cast<size_t>(G + 1), 0);
    int64_t rows = 0, pins = 0;
    for (int64_t g = 0; g < G; ++g) {
        out.rstart[g] = rows;
        for (int64_t c = 0; c < echunks; ++c) {
            const int64_t r = rcount[c * G + g], p = pcount[c * G + g];
            rcount[c * G + g] = rows;
            pcount[c * G + g] = pins;
            rows += r;
            pins += p;
        }
    }
    out.rstart[G] = rows;
    out.ptr.resize(static_cast<size_t>(rows + 1));
    out.ptr[rows] = pins;
    out.parent.resize(static_cast<size_t>(rows));
    out.ind.resize(static_cast<size_t>(pins));
#pragma omp parallel if (echunks > 1)
    {
        std::vector<int64_t> cnt(static_cast<size_t>(G), 0), touched, cursor(static_cast<size_t>(G));
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < echunks; ++c) {
            int64_t *nr = rcount.data() + c * G, *np = pcount.data() + c * G;
            for (int64_t e = m * c / echunks; e < m * (c + 1) / echunks; ++e) {
                groups_of(e, cnt, touched);
                bool any = false;
                for (const int64_t g : touched) {
                    if (cnt[g] < 2) continue;
                    const int64_t r = nr[g]++;
                    out.ptr[r] = np[g];
                    out.parent[r] = e;
                    cursor[g] = np[g];
                    np[g] += cnt[g];
                    any = true;
                }
                if (any)
                    for (int64_t j = eptr[e]; j < eptr[e + 1]; ++j) {
                        const int32_t v = eind[j];
                        const int64_t g = group[v];
                        if (cnt[g] >= 2) out.ind[cursor[g]++] = local[v];
                    }
                for (const int64_t g : touched) cnt[g] = 0;
            }
        }
    }
    return out;
}

}  // namespace igp
