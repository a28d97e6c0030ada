// CSR structure kernels: transpose, in-row deduplication, clique expansion.
#include "csr.h"

#include <algorithm>
#include <cmath>

#include "igpart_common.h"
#include "partition.h"

namespace igp {

Csr csr_transpose(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols) {
    Csr t;
    const int64_t nnz = ptr[nrows] - ptr[0];
    t.ptr.assign(static_cast<size_t>(ncols + 1), 0);
    t.ind.resize(static_cast<size_t>(nnz));
    if (nnz < kParallelMinLightItems) {
        for (int64_t j = ptr[0]; j < ptr[nrows]; ++j) ++t.ptr[ind[j] + 1];
        for (int64_t c = 0; c < ncols; ++c) t.ptr[c + 1] += t.ptr[c];
        std::vector<int64_t> pos(t.ptr.begin(), t.ptr.end() - 1);
        for (int64_t r = 0; r < nrows; ++r)
            for (int64_t j = ptr[r]; j < ptr[r + 1]; ++j)
                t.ind[pos[ind[j]]++] = static_cast<int32_t>(r);
        return t;
    }
    // in parallel: counts and slots taken with atomics, then each column's rows sorted (the
    // stable transpose whatever the order the slots were taken in)
    int64_t *cnt = t.ptr.data() + 1;
#pragma omp parallel for schedule(static)
    for (int64_t j = ptr[0]; j < ptr[nrows]; ++j) {
#pragma omp atomic
        ++cnt[ind[j]];
    }
    for (int64_t c = 0; c < ncols; ++c) t.ptr[c + 1] += t.ptr[c];
    std::vector<int64_t> pos(t.ptr.begin(), t.ptr.end() - 1);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t r = 0; r < nrows; ++r)
        for (int64_t j = ptr[r]; j < ptr[r + 1]; ++j) {
            int64_t slot;
#pragma omp atomic capture
            slot = pos[ind[j]]++;
            t.ind[slot] = static_cast<int32_t>(r);
        }
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t c = 0; c < ncols; ++c)
        std::sort(t.ind.begin() + t.ptr[c], t.ind.begin() + t.ptr[c + 1]);
    return t;
}

bool rows_have_duplicates(const int64_t *ptr, int64_t nrows, const int32_t *ind, int64_t ncols) {
    std::vector<int64_t> last;  // allocated only when a long row needs it
    for (int64_t r = 0; r < nrows; ++r) {
        const int64_t b = ptr[r], e = ptr[r + 1];
        if (e - b <= 16) {  // short rows: pairwise, cache-friendly
            for (int64_t i = b + 1; i < e; ++i)
                for (int64_t j = b; j < i; ++j)
                    if (ind[i] == ind[j]) return true;
        } else {
            if (last.empty()) last.assign(static_cast<size_t>(ncols), -1);
            for (int64_t j = b; j < e; ++j) {
                if (last[ind[j]] == r) return true;
                last[ind[j]] = r;
            }
        }
    }
    return false;
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

}  // namespace igp
