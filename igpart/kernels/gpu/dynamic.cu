// Dynamic hypergraph on the GPU (iG-kway §V.A-B generalised to hypergraphs) with a maintained
// k-way partition, and incremental refinement over the affected set (iG-kway §V.C: Alg. 3
// pseudo-partition, Alg. 4 rounds of non-adjacent moves with the longest balanced prefix, then a
// local refinement of the affected region with exact gains).
//
// State (device arrays, addressed through a pointer table P, see the P_* indices; the Python
// side igpart/kernels/gpu/_dynamic.py owns the arrays and mirrors these indices):
//   per vertex id: status (int8), weight (int64), block (int32, -1 free, -2 pseudo), list header
//   (head, tail: int64 bucket ids; nb, size: int32); per net id: the same plus lambda; dense Phi
//   (net * k + block, int32); block weights (k, int64); counters (C_*, int64); free id stacks;
//   two bucket pools (32 int32 slots per bucket, int64 `next` links chaining a list's buckets and
//   the pool's free stack). Empty slot: -1.
//
// A batch is: dyn_resolve (warp per record: created ids), dyn_validate (warp per record: every
// check of the C++ validator, against the state plus the earlier records of the batch, scanned
// cooperatively by the warp), dyn_apply (one block: claims, pin deletions warp per record with
// ballot/ffs slot search, entity records in order by one thread, pool allocation, pin insertions
// warp per record with ballot/ffs + atomicCAS, objective deltas, touched sets). dyn_apply does
// nothing when a record is invalid, so the state stays byte-identical.
#include "bucket.h"
#include "changes.h"
#include "connectivity.h"
#include "incremental.h"

#define FULL 0xffffffffu
#define I32_MAX 2147483647

// ----------------------------------------------------------------------- pointer table
#define P_VSTATUS 0
#define P_ESTATUS 1
#define P_VWGT 2
#define P_EWGT 3
#define P_PART 4
#define P_LAMBDA 5
#define P_VFREE 6
#define P_EFREE 7
#define P_VHEAD 8
#define P_VTAIL 9
#define P_VNB 10
#define P_VSIZE 11
#define P_VSLOT 12
#define P_VNEXT 13
#define P_EHEAD 14
#define P_ETAIL 15
#define P_ENB 16
#define P_ESIZE 17
#define P_ESLOT 18
#define P_ENEXT 19
#define P_PHI 20
#define P_BW 21
#define P_CTR 22
#define P_VMARK 23
#define P_EMARK 24
#define P_VPEND 25
#define P_EPEND 26
#define P_MINP 27
#define P_VLAST 28
#define P_VFLAG 29

// ----------------------------------------------------------------------- counters
#define C_NIDS 0
#define C_MIDS 1
#define C_VFREE 2
#define C_EFREE 3
#define C_TOTAL 4
#define C_CUT 5
#define C_KM1 6
#define C_LIVEV 7
#define C_LIVEE 8
#define C_PINS 9
#define C_BATCHES 10
#define C_RECORDS 11
#define C_VUSED 12
#define C_VFTOP 13
#define C_VFCOUNT 14
#define C_EUSED 15
#define C_EFTOP 16
#define C_EFCOUNT 17
#define NCTR 18

// Layout of the info block every kernel writes for the host (one small copy back).
#define INFO_BAD 0      // first invalid record (-1: none)
#define INFO_CODE 1     // its error code
#define INFO_D1 2
#define INFO_D2 3
#define INFO_NTV 4      // live touched vertices
#define INFO_NTE 5      // live touched nets
#define INFO_SORTED 6   // touched lists sorted (1) or left for the host to sort (0)
#define INFO_NNEW 7     // vertices the batch created (still live), appended to the pending list
#define INFO_CTR 8      // counters copy: INFO_CTR .. INFO_CTR + NCTR
#define INFO_SIZE 32    // the per-record created ids follow (dyn_resolve)

// Error codes (formatted on the host like the C++ validator's messages).
#define E_OPCODE 1
#define E_WEIGHT 2
#define E_BLOCK 3
#define E_ZERO 4
#define E_VEXH 5
#define E_EEXH 6
#define E_REF_AFTER 7
#define E_REF_OP_V 8
#define E_REF_OP_E 9
#define E_UNKNOWN_V 10
#define E_UNKNOWN_E 11
#define E_DELETED_V 12
#define E_DELETED_E 13
#define E_STILL_V 14
#define E_STILL_E 15
#define E_DUP 16
#define E_NOTPIN 17
#define M_UNKNOWN 20
#define M_DELETED 21
#define M_BLOCK 22

#define SORT_LIMIT 4096

typedef unsigned long long u64;

struct Lists {
    long long *head, *tail;
    int *nb, *size, *slot;
    long long *next;
};

struct Dyn {
    signed char *vstatus, *estatus;
    long long *vwgt, *ewgt;
    int *part, *lambda, *vfree, *efree;
    Lists V, E;
    int *phi;
    long long *bw, *ctr;
    int *vmark, *emark, *vpend, *epend, *minp, *vlast, *vflag;
};

__device__ __forceinline__ Dyn load(const u64 *P) {
    Dyn d;
    d.vstatus = (signed char *)P[P_VSTATUS];
    d.estatus = (signed char *)P[P_ESTATUS];
    d.vwgt = (long long *)P[P_VWGT];
    d.ewgt = (long long *)P[P_EWGT];
    d.part = (int *)P[P_PART];
    d.lambda = (int *)P[P_LAMBDA];
    d.vfree = (int *)P[P_VFREE];
    d.efree = (int *)P[P_EFREE];
    d.V.head = (long long *)P[P_VHEAD];
    d.V.tail = (long long *)P[P_VTAIL];
    d.V.nb = (int *)P[P_VNB];
    d.V.size = (int *)P[P_VSIZE];
    d.V.slot = (int *)P[P_VSLOT];
    d.V.next = (long long *)P[P_VNEXT];
    d.E.head = (long long *)P[P_EHEAD];
    d.E.tail = (long long *)P[P_ETAIL];
    d.E.nb = (int *)P[P_ENB];
    d.E.size = (int *)P[P_ESIZE];
    d.E.slot = (int *)P[P_ESLOT];
    d.E.next = (long long *)P[P_ENEXT];
    d.phi = (int *)P[P_PHI];
    d.bw = (long long *)P[P_BW];
    d.ctr = (long long *)P[P_CTR];
    d.vmark = (int *)P[P_VMARK];
    d.emark = (int *)P[P_EMARK];
    d.vpend = (int *)P[P_VPEND];
    d.epend = (int *)P[P_EPEND];
    d.minp = (int *)P[P_MINP];
    d.vlast = (int *)P[P_VLAST];
    d.vflag = (int *)P[P_VFLAG];
    return d;
}

__device__ __forceinline__ void atomic_add_i64(long long *p, long long v) {
    atomicAdd((u64 *)p, (u64)v);
}

__device__ __forceinline__ long long warp_sum(long long x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
    return x;
}

// ------------------------------------------------------------------ warp bucket-list helpers

// Whether `value` is in list `id` (warp-cooperative: one bucket per step, ballot over slots).
__device__ bool warp_list_has(const Lists &L, int id, int value, int lane) {
    for (long long b = L.head[id]; b != -1; b = L.next[b])
        if (igp::warp_bucket_find(L.slot + b * IGP_BUCKET_SLOTS, IGP_BUCKET_SLOTS, value, lane) >= 0)
            return true;
    return false;
}

// Empties the slot of `value` in list `id` (it must be there): iG-kway's edge deletion.
__device__ void warp_list_erase(const Lists &L, int id, int value, int lane) {
    for (long long b = L.head[id]; b != -1; b = L.next[b]) {
        const int s = igp::warp_bucket_find(L.slot + b * IGP_BUCKET_SLOTS, IGP_BUCKET_SLOTS, value,
                                            lane);
        if (s >= 0) {
            if (lane == 0) L.slot[b * IGP_BUCKET_SLOTS + s] = IGP_EMPTY_SLOT;
            break;
        }
    }
    if (lane == 0) atomicSub(L.size + id, 1);
}

// Stores `value` in the first empty slot of list `id` (Alg. 1: ballot + ffs), claiming it with
// atomicCAS since other warps may insert into the same list. The list has room (reserved).
__device__ void warp_list_insert(const Lists &L, int id, int value, int lane) {
    for (long long b = L.head[id]; b != -1; b = L.next[b]) {
        int *bucket = L.slot + b * IGP_BUCKET_SLOTS;
        unsigned empty = __ballot_sync(FULL, bucket[lane] == IGP_EMPTY_SLOT);
        while (empty) {
            const int s = __ffs(empty) - 1;
            int won = 0;
            if (lane == 0) won = atomicCAS(bucket + s, IGP_EMPTY_SLOT, value) == IGP_EMPTY_SLOT;
            won = __shfl_sync(FULL, won, 0);
            if (won) {
                if (lane == 0) atomicAdd(L.size + id, 1);
                return;
            }
            empty &= empty - 1;
        }
    }
}

// ------------------------------------------------------------------ sequential pool helpers
// (one thread: the entity records of a batch)

__device__ long long pool_alloc(const Lists &L, long long *ctr, int c_used, int c_top, int c_cnt) {
    long long b = ctr[c_top];
    if (b != -1) {
        ctr[c_top] = L.next[b];
        L.next[b] = -1;
        ctr[c_cnt] -= 1;
        return b;
    }
    b = ctr[c_used];
    ctr[c_used] = b + 1;
    return b;
}

__device__ void list_add_bucket(const Lists &L, int id, long long *ctr, int c_used, int c_top,
                                int c_cnt) {
    const long long b = pool_alloc(L, ctr, c_used, c_top, c_cnt);
    if (L.tail[id] == -1)
        L.head[id] = b;
    else
        L.next[L.tail[id]] = b;
    L.tail[id] = b;
    L.nb[id] += 1;
}

// Keeps the first `keep` buckets of an empty list, returning the others to the pool's free stack
// in chain order (as the C++ backend does).
__device__ void list_trim(const Lists &L, int id, int keep, long long *ctr, int c_top, int c_cnt) {
    if (L.nb[id] <= keep) return;
    long long b = L.head[id], last = -1;
    for (int i = 0; i < keep; ++i) {
        last = b;
        b = L.next[b];
    }
    while (b != -1) {
        const long long nb = L.next[b];
        L.next[b] = ctr[c_top];
        ctr[c_top] = b;
        ctr[c_cnt] += 1;
        b = nb;
    }
    if (last == -1) {
        L.head[id] = L.tail[id] = -1;
    } else {
        L.next[last] = -1;
        L.tail[id] = last;
    }
    L.nb[id] = keep;
}

// ------------------------------------------------------------------ Phi with lambda transitions

__device__ __forceinline__ void phi_inc(const Dyn &d, int k, int e, int b) {
    if (atomicAdd(d.phi + (long long)e * k + b, 1) == 0) atomicAdd(d.lambda + e, 1);
}

__device__ __forceinline__ void phi_dec(const Dyn &d, int k, int e, int b) {
    if (atomicSub(d.phi + (long long)e * k + b, 1) == 1) atomicSub(d.lambda + e, 1);
}

// Claims net e for this launch (first caller only) and records its lambda and weight before any
// change, so that the launch can update cut and km1 by the difference at its end.
__device__ __forceinline__ void claim_net(const Dyn &d, int e, int *te, int *tel, long long *tew,
                                          int *count) {
    if (atomicCAS(d.emark + e, 0, 1) == 0) {
        const int t = atomicAdd(count, 1);
        te[t] = e;
        tel[t] = d.lambda[e];
        tew[t] = d.ewgt[e];
    }
}

// Adds the objective deltas of the claimed nets to the counters and releases the claims. All
// threads of the (single) block call it; `acc` is shared scratch of two u64 zeroed beforehand.
__device__ void settle_claims(const Dyn &d, const int *te, const int *tel, const long long *tew,
                              int count, u64 *acc) {
    long long dc = 0, dk = 0;
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
        const int e = te[t];
        const long long w = d.ewgt[e];
        const int l = d.lambda[e];
        dc += igp::cut_term(l, w) - igp::cut_term(tel[t], tew[t]);
        dk += igp::km1_term(l, w) - igp::km1_term(tel[t], tew[t]);
        d.emark[e] = 0;
    }
    atomicAdd(acc, (u64)dc);
    atomicAdd(acc + 1, (u64)dk);
    __syncthreads();
    if (threadIdx.x == 0) {
        d.ctr[C_CUT] += (long long)acc[0];
        d.ctr[C_KM1] += (long long)acc[1];
    }
}

// ======================================================================= batch: resolve

// Warp per record: the id an insert record creates (the free stack top first, the id freed last,
// then fresh ids), and the id bounds the record sees (ids in use before it).
extern "C" __global__ void dyn_resolve(const u64 *P, const long long *rec, int N, int *cid,
                                       long long *vbound, long long *ebound, long long *out,
                                       int *first_bad) {
    const Dyn d = load(P);
    const int lane = threadIdx.x & 31;
    const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w == 0 && lane == 0) *first_bad = I32_MAX;
    if (w >= N) return;
    const int i = (int)w;
    int cv = 0, ce = 0;
    for (int base = 0; base < i; base += 32) {
        const int j = base + lane;
        const long long op = j < i ? rec[j] : -1;
        cv += __popc(__ballot_sync(FULL, op == igp::OP_INSERT_VERTEX));
        ce += __popc(__ballot_sync(FULL, op == igp::OP_INSERT_NET));
    }
    if (lane != 0) return;
    const long long nids = d.ctr[C_NIDS], mids = d.ctr[C_MIDS];
    const long long nvf = d.ctr[C_VFREE], nef = d.ctr[C_EFREE];
    vbound[i] = nids + (cv > nvf ? cv - nvf : 0);
    ebound[i] = mids + (ce > nef ? ce - nef : 0);
    const long long op = rec[i];
    long long id = -1;
    if (op == igp::OP_INSERT_VERTEX) id = cv < nvf ? d.vfree[nvf - 1 - cv] : nids + (cv - nvf);
    if (op == igp::OP_INSERT_NET) id = ce < nef ? d.efree[nef - 1 - ce] : mids + (ce - nef);
    cid[i] = id >= I32_MAX ? -2 : (int)id;
    out[INFO_SIZE + i] = id;
}

// ======================================================================= batch: validate

// The id argument `col` of record j, resolved (a reference takes the id its record created);
// -1 when it cannot be resolved (only possible for records after the first invalid one).
__device__ __forceinline__ int res_id(const long long *rec, int N, const int *cid, int j, int col) {
    const long long raw = rec[(long long)(1 + col) * N + j];
    if (raw >= 0) return raw >= I32_MAX ? -1 : (int)raw;
    const long long r = -raw - 1;
    return r < j ? cid[r] : -1;
}

struct Seen {
    bool created, deleted;
};

// Whether records before i create / delete entity `id` (vertex or net). Warp-cooperative.
__device__ Seen warp_seen(const long long *rec, int N, const int *cid, int i, bool vertex, int id,
                          int lane) {
    const int ins = vertex ? igp::OP_INSERT_VERTEX : igp::OP_INSERT_NET;
    const int del = vertex ? igp::OP_DELETE_VERTEX : igp::OP_DELETE_NET;
    bool c = false, x = false;
    for (int base = 0; base < i; base += 32) {
        const int j = base + lane;
        bool hc = false, hd = false;
        if (j < i) {
            const long long op = rec[j];
            hc = op == ins && cid[j] == id;
            hd = op == del && res_id(rec, N, cid, j, 0) == id;
        }
        c |= __any_sync(FULL, hc);
        x |= __any_sync(FULL, hd);
    }
    return Seen{c, x};
}

__device__ __forceinline__ bool alive_before(const Dyn &d, bool vertex, long long id) {
    if (vertex) return id >= 0 && id < d.ctr[C_NIDS] && d.vstatus[id];
    return id >= 0 && id < d.ctr[C_MIDS] && d.estatus[id];
}

// Warp per record: every check of the C++ validator (same order, same outcomes), against the
// state before the batch plus the records before this one. Writes the resolved record and, for
// pin records, whether the record is the first of its (vertex, net) pair and the pair's records
// change the incidence (an odd count): only those are applied.
extern "C" __global__ void dyn_validate(const u64 *P, const long long *rec, int N, int k,
                                        const int *cid, const long long *vbound,
                                        const long long *ebound, int *rx, int *ry, long long *rw,
                                        int *eff, int *err, long long *ed1, long long *ed2,
                                        int *first_bad) {
    const Dyn d = load(P);
    const int lane = threadIdx.x & 31;
    const long long wid = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (wid >= N) return;
    const int i = (int)wid;
    const long long op = rec[i];
    const long long arg[3] = {rec[(long long)N + i], rec[2LL * N + i], rec[3LL * N + i]};
    int code = 0;
    long long d1 = 0, d2 = 0;
    int x = -1, y = -1, e_ = 0;
    long long wgt = 0;

#define FAIL(c, a1, a2) \
    do {                \
        code = (c);     \
        d1 = (a1);      \
        d2 = (a2);      \
        goto done;      \
    } while (0)

    // Resolves id argument `col` (vertex or net) into `out_id`, or fails like the C++ resolve().
#define RESOLVE(col, vertex, out_id)                                                          \
    do {                                                                                      \
        const long long raw = arg[col];                                                       \
        long long id = raw;                                                                   \
        if (raw < 0) {                                                                        \
            const long long r = -raw - 1;                                                     \
            if (r >= i) FAIL(E_REF_AFTER, raw, r);                                            \
            const long long want = (vertex) ? igp::OP_INSERT_VERTEX : igp::OP_INSERT_NET;     \
            if (rec[r] != want) FAIL((vertex) ? E_REF_OP_V : E_REF_OP_E, raw, r);             \
            id = cid[r];                                                                      \
        } else {                                                                              \
            const long long bound = (vertex) ? vbound[i] : ebound[i];                         \
            if (raw >= bound) FAIL((vertex) ? E_UNKNOWN_V : E_UNKNOWN_E, raw, bound);         \
        }                                                                                     \
        const Seen s = warp_seen(rec, N, cid, i, (vertex), (int)id, lane);                    \
        if (!((alive_before(d, (vertex), id) || s.created) && !s.deleted))                    \
            FAIL((vertex) ? E_DELETED_V : E_DELETED_E, id, 0);                                \
        out_id = (int)id;                                                                     \
    } while (0)

    if (op < 0 || op >= igp::OP_COUNT) FAIL(E_OPCODE, op, 0);
    switch ((int)op) {
        case igp::OP_INSERT_VERTEX:
            if (arg[0] < 0) FAIL(E_WEIGHT, arg[0], 0);
            if (arg[1] < -1 || arg[1] >= k) FAIL(E_BLOCK, arg[1], 0);
            if (arg[2] != 0) FAIL(E_ZERO, 2, arg[2]);
            if (cid[i] < 0) FAIL(E_VEXH, 0, 0);
            x = cid[i];
            y = (int)arg[1];
            wgt = arg[0];
            break;
        case igp::OP_INSERT_NET:
            if (arg[0] < 0) FAIL(E_WEIGHT, arg[0], 0);
            if (arg[1] != 0) FAIL(E_ZERO, 1, arg[1]);
            if (arg[2] != 0) FAIL(E_ZERO, 2, arg[2]);
            if (cid[i] < 0) FAIL(E_EEXH, 0, 0);
            x = cid[i];
            wgt = arg[0];
            break;
        case igp::OP_DELETE_VERTEX:
        case igp::OP_DELETE_NET: {
            const bool vertex = op == igp::OP_DELETE_VERTEX;
            if (arg[1] != 0) FAIL(E_ZERO, 1, arg[1]);
            if (arg[2] != 0) FAIL(E_ZERO, 2, arg[2]);
            RESOLVE(0, vertex, x);
            // list size now: before the batch, plus the earlier pin records on it
            long long s = 0;
            for (int base = 0; base < i; base += 32) {
                const int j = base + lane;
                if (j < i) {
                    const long long o = rec[j];
                    if ((o == igp::OP_INSERT_PIN || o == igp::OP_DELETE_PIN) &&
                        res_id(rec, N, cid, j, vertex ? 0 : 1) == x)
                        s += o == igp::OP_INSERT_PIN ? 1 : -1;
                }
            }
            s = warp_sum(s);
            if (alive_before(d, vertex, x)) s += vertex ? d.V.size[x] : d.E.size[x];
            if (s != 0) FAIL(vertex ? E_STILL_V : E_STILL_E, x, s);
            break;
        }
        case igp::OP_INSERT_PIN:
        case igp::OP_DELETE_PIN: {
            if (arg[2] != 0) FAIL(E_ZERO, 2, arg[2]);
            RESOLVE(0, true, x);
            RESOLVE(1, false, y);
            // the last earlier record on the pair decides; else the state before the batch
            int last = -1;
            for (int top = i; top > 0 && last < 0; top -= 32) {
                const int j = top - 32 + lane;
                bool h = false;
                if (j >= 0) {
                    const long long o = rec[j];
                    h = (o == igp::OP_INSERT_PIN || o == igp::OP_DELETE_PIN) &&
                        res_id(rec, N, cid, j, 0) == x && res_id(rec, N, cid, j, 1) == y;
                }
                const unsigned m = __ballot_sync(FULL, h);
                if (m) last = top - 32 + (31 - __clz(m));
            }
            bool present;
            if (last >= 0) {
                present = rec[last] == igp::OP_INSERT_PIN;
            } else if (alive_before(d, true, x) && alive_before(d, false, y)) {
                present = d.V.size[x] <= d.E.size[y] ? warp_list_has(d.V, x, y, lane)
                                                      : warp_list_has(d.E, y, x, lane);
            } else {
                present = false;
            }
            const bool insert = op == igp::OP_INSERT_PIN;
            if (insert && present) FAIL(E_DUP, x, y);
            if (!insert && !present) FAIL(E_NOTPIN, x, y);
            if (last < 0) {  // first record of its pair: count the later ones
                int later = 0;
                for (int base = i + 1; base < N; base += 32) {
                    const int j = base + lane;
                    bool h = false;
                    if (j < N) {
                        const long long o = rec[j];
                        h = (o == igp::OP_INSERT_PIN || o == igp::OP_DELETE_PIN) &&
                            res_id(rec, N, cid, j, 0) == x && res_id(rec, N, cid, j, 1) == y;
                    }
                    later += __popc(__ballot_sync(FULL, h));
                }
                e_ = (later & 1) == 0;
            }
            break;
        }
        case igp::OP_SET_VERTEX_WEIGHT:
        case igp::OP_SET_NET_WEIGHT: {
            const bool vertex = op == igp::OP_SET_VERTEX_WEIGHT;
            if (arg[2] != 0) FAIL(E_ZERO, 2, arg[2]);
            RESOLVE(0, vertex, x);
            if (arg[1] < 0) FAIL(E_WEIGHT, arg[1], 0);
            wgt = arg[1];
            break;
        }
    }
done:
#undef FAIL
#undef RESOLVE
    if (lane != 0) return;
    rx[i] = x;
    ry[i] = y;
    rw[i] = wgt;
    eff[i] = e_;
    err[i] = code;
    ed1[i] = d1;
    ed2[i] = d2;
    if (code) atomicMin(first_bad, i);
}

// ======================================================================= batch: apply

__device__ void write_info(const Dyn &d, long long *out) {
    for (int c = 0; c < NCTR; ++c) out[INFO_CTR + c] = d.ctr[c];
}

// Rank sort of `count` distinct ids from `src` into `dst` (ascending), all threads of the block.
__device__ void rank_sort_ids(const int *src, int *dst, int count) {
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
        const int v = src[t];
        int r = 0;
        for (int j = 0; j < count; ++j) r += src[j] < v;
        dst[r] = v;
    }
}

// One block. Does nothing (but report) when a record is invalid or `validate_only` is set.
extern "C" __global__ void __launch_bounds__(1024) dyn_apply(const u64 *P, const long long *rec, int N, int k, int gamma,
                                     int validate_only, long long n_vins, long long n_eins,
                                     const int *rx, const int *ry, const long long *rw,
                                     const int *eff, const int *err, const long long *ed1,
                                     const long long *ed2, const int *first_bad, int *tv,
                                     int *tvl, int *te, int *tel, long long *tew, int *tel2,
                                     int *out_v, int *out_e, long long *out, int *pend_new,
                                     long long pend_new_off, int *pend_seed,
                                     long long pend_seed_off) {
    const Dyn d = load(P);
    __shared__ int s_abort, s_ntv, s_nte, s_lv, s_le, s_nnew;
    __shared__ u64 s_acc[2];
    __shared__ long long s_pins;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    if (threadIdx.x == 0) {
        const int fb = *first_bad;
        s_abort = validate_only || fb < N;
        out[INFO_BAD] = fb < N ? fb : -1;
        out[INFO_CODE] = fb < N ? err[fb] : 0;
        out[INFO_D1] = fb < N ? ed1[fb] : 0;
        out[INFO_D2] = fb < N ? ed2[fb] : 0;
        s_ntv = s_nte = s_lv = s_le = s_nnew = 0;
        s_acc[0] = s_acc[1] = 0;
        s_pins = 0;
        if (s_abort) {
            write_info(d, out);
            out[INFO_NTV] = out[INFO_NTE] = out[INFO_NNEW] = 0;
        }
    }
    __syncthreads();
    if (s_abort) return;

    // 1. claims (touched vertices and nets, the nets' lambda and weight before the batch) and the
    //    pending insertions of each list
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        const int op = (int)rec[i];
        const int x = rx[i], y = ry[i];
        int v = -1, e = -1;
        if (op == igp::OP_INSERT_PIN || op == igp::OP_DELETE_PIN) {
            v = x;
            e = y;
            if (eff[i] && op == igp::OP_INSERT_PIN) {
                atomicAdd(d.vpend + v, 1);
                atomicAdd(d.epend + e, 1);
            }
        } else if (op == igp::OP_INSERT_VERTEX || op == igp::OP_DELETE_VERTEX ||
                   op == igp::OP_SET_VERTEX_WEIGHT) {
            v = x;
        } else {
            e = x;
        }
        if (v >= 0 && atomicCAS(d.vmark + v, 0, 1) == 0) tv[atomicAdd(&s_ntv, 1)] = v;
        if (e >= 0) claim_net(d, e, te, tel, tew, &s_nte);
    }
    __syncthreads();

    // 2. pin deletions, warp per record (the first record of a pair with an odd record count)
    for (int i = warp; i < N; i += nwarps) {
        if (!(eff[i] && rec[i] == igp::OP_DELETE_PIN)) continue;
        const int v = rx[i], e = ry[i];
        warp_list_erase(d.V, v, e, lane);
        warp_list_erase(d.E, e, v, lane);
        if (lane == 0) {
            phi_dec(d, k, e, d.part[v]);
            atomicAdd((u64 *)&s_pins, (u64)-1LL);
        }
    }
    __syncthreads();

    // 3. entity records in order (one thread): ids, status, weights, blocks, buckets
    if (threadIdx.x == 0) {
        long long *c = d.ctr;
        const long long nvf = c[C_VFREE], nef = c[C_EFREE];
        long long vtop = nvf - (n_vins < nvf ? n_vins : nvf);
        long long etop = nef - (n_eins < nef ? n_eins : nef);
        for (int i = 0; i < N; ++i) {
            const int op = (int)rec[i];
            const int x = rx[i];
            switch (op) {
                case igp::OP_INSERT_VERTEX: {
                    d.vstatus[x] = 1;
                    d.vwgt[x] = rw[i];
                    const int blk = ry[i] >= 0 ? ry[i] : igp::lightest_block((const igp_i64 *)d.bw, k);
                    d.part[x] = blk;
                    d.bw[blk] += rw[i];
                    c[C_TOTAL] += rw[i];
                    c[C_LIVEV] += 1;
                    while (d.V.nb[x] < gamma) list_add_bucket(d.V, x, c, C_VUSED, C_VFTOP, C_VFCOUNT);
                    break;
                }
                case igp::OP_DELETE_VERTEX:
                    d.bw[d.part[x]] -= d.vwgt[x];
                    c[C_TOTAL] -= d.vwgt[x];
                    c[C_LIVEV] -= 1;
                    d.vstatus[x] = 0;
                    d.vwgt[x] = 0;
                    d.part[x] = -1;
                    list_trim(d.V, x, gamma, c, C_VFTOP, C_VFCOUNT);
                    d.vfree[vtop++] = x;
                    break;
                case igp::OP_INSERT_NET:
                    d.estatus[x] = 1;
                    d.ewgt[x] = rw[i];
                    d.lambda[x] = 0;
                    c[C_LIVEE] += 1;
                    while (d.E.nb[x] < gamma) list_add_bucket(d.E, x, c, C_EUSED, C_EFTOP, C_EFCOUNT);
                    break;
                case igp::OP_DELETE_NET:
                    c[C_LIVEE] -= 1;
                    d.estatus[x] = 0;
                    d.ewgt[x] = 0;
                    list_trim(d.E, x, gamma, c, C_EFTOP, C_EFCOUNT);
                    d.efree[etop++] = x;
                    break;
                case igp::OP_SET_VERTEX_WEIGHT:
                    d.bw[d.part[x]] += rw[i] - d.vwgt[x];
                    c[C_TOTAL] += rw[i] - d.vwgt[x];
                    d.vwgt[x] = rw[i];
                    break;
                case igp::OP_SET_NET_WEIGHT:
                    d.ewgt[x] = rw[i];
                    break;
                default:
                    break;
            }
        }
        c[C_NIDS] += n_vins > nvf ? n_vins - nvf : 0;
        c[C_MIDS] += n_eins > nef ? n_eins - nef : 0;
        c[C_VFREE] = vtop;
        c[C_EFREE] = etop;
        // buckets for the pending insertions: a list of size s with p pending needs
        // ceil((s + p) / 32) buckets
        for (int i = 0; i < N; ++i) {
            if (!(eff[i] && rec[i] == igp::OP_INSERT_PIN)) continue;
            const int v = rx[i], e = ry[i];
            if (d.vpend[v] > 0) {
                const int need = (d.V.size[v] + d.vpend[v] + IGP_BUCKET_SLOTS - 1) / IGP_BUCKET_SLOTS;
                while (d.V.nb[v] < need) list_add_bucket(d.V, v, c, C_VUSED, C_VFTOP, C_VFCOUNT);
                d.vpend[v] = 0;
            }
            if (d.epend[e] > 0) {
                const int need = (d.E.size[e] + d.epend[e] + IGP_BUCKET_SLOTS - 1) / IGP_BUCKET_SLOTS;
                while (d.E.nb[e] < need) list_add_bucket(d.E, e, c, C_EUSED, C_EFTOP, C_EFCOUNT);
                d.epend[e] = 0;
            }
        }
    }
    __syncthreads();

    // 4. pin insertions, warp per record
    for (int i = warp; i < N; i += nwarps) {
        if (!(eff[i] && rec[i] == igp::OP_INSERT_PIN)) continue;
        const int v = rx[i], e = ry[i];
        warp_list_insert(d.V, v, e, lane);
        warp_list_insert(d.E, e, v, lane);
        if (lane == 0) {
            phi_inc(d, k, e, d.part[v]);
            atomicAdd((u64 *)&s_pins, 1ULL);
        }
    }
    __syncthreads();

    // 5. objective deltas of the claimed nets; live touched sets
    settle_claims(d, te, tel, tew, s_nte, s_acc);
    for (int t = threadIdx.x; t < s_ntv; t += blockDim.x) {
        const int v = tv[t];
        d.vmark[v] = 0;
        if (d.vstatus[v]) {
            const int t2 = atomicAdd(&s_lv, 1);
            tvl[t2] = v;
            pend_seed[pend_seed_off + t2] = v;
        }
    }
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        if (rec[i] == igp::OP_INSERT_VERTEX && d.vstatus[rx[i]])
            pend_new[pend_new_off + atomicAdd(&s_nnew, 1)] = rx[i];
    for (int t = threadIdx.x; t < s_nte; t += blockDim.x) {
        const int e = te[t];
        if (d.estatus[e]) tel2[atomicAdd(&s_le, 1)] = e;
    }
    __syncthreads();
    const int sorted = s_lv <= SORT_LIMIT && s_le <= SORT_LIMIT;
    if (sorted) {
        rank_sort_ids(tvl, out_v, s_lv);
        rank_sort_ids(tel2, out_e, s_le);
    } else {
        for (int t = threadIdx.x; t < s_lv; t += blockDim.x) out_v[t] = tvl[t];
        for (int t = threadIdx.x; t < s_le; t += blockDim.x) out_e[t] = tel2[t];
    }
    if (threadIdx.x == 0) {
        d.ctr[C_PINS] += s_pins;
        d.ctr[C_BATCHES] += 1;
        d.ctr[C_RECORDS] += N;
        write_info(d, out);
        out[INFO_NTV] = s_lv;
        out[INFO_NTE] = s_le;
        out[INFO_SORTED] = sorted;
        out[INFO_NNEW] = s_nnew;
    }
}

// ======================================================================= moves

// One block: validates every move (first invalid reported, nothing changed), then moves each
// vertex to the block of its last entry. out[INFO_D1], out[INFO_D2]: change of cut and km1.
extern "C" __global__ void __launch_bounds__(1024) dyn_move(const u64 *P, const int *vs, const int *bs, int count, int k,
                                    int *te, int *tel, long long *tew, long long *out) {
    const Dyn d = load(P);
    __shared__ int s_bad, s_nte;
    __shared__ u64 s_acc[2];
    if (threadIdx.x == 0) {
        s_bad = I32_MAX;
        s_nte = 0;
        s_acc[0] = s_acc[1] = 0;
    }
    __syncthreads();
    const long long nids = d.ctr[C_NIDS];
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        const int v = vs[i], b = bs[i];
        if (v < 0 || v >= nids || !d.vstatus[v] || b < 0 || b >= k) atomicMin(&s_bad, i);
    }
    __syncthreads();
    if (s_bad < count) {
        if (threadIdx.x == 0) {
            const int i = s_bad, v = vs[i];
            out[INFO_BAD] = i;
            out[INFO_CODE] = (v < 0 || v >= nids) ? M_UNKNOWN : (!d.vstatus[v] ? M_DELETED : M_BLOCK);
            out[INFO_D1] = out[INFO_CODE] == M_BLOCK ? bs[i] : v;
            out[INFO_D2] = 0;
            write_info(d, out);
        }
        return;
    }
    for (int i = threadIdx.x; i < count; i += blockDim.x) atomicMax(d.vlast + vs[i], i);
    __syncthreads();
    // claim the nets of every moving vertex before any Phi changes
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        const int v = vs[i];
        if (d.vlast[v] != i || d.part[v] == bs[i]) continue;
        for (long long b = d.V.head[v]; b != -1; b = d.V.next[b])
            for (int s = 0; s < IGP_BUCKET_SLOTS; ++s) {
                const int e = d.V.slot[b * IGP_BUCKET_SLOTS + s];
                if (e != IGP_EMPTY_SLOT) claim_net(d, e, te, tel, tew, &s_nte);
            }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        const int v = vs[i], to = bs[i], from = d.part[v];
        if (d.vlast[v] != i || from == to) continue;
        for (long long b = d.V.head[v]; b != -1; b = d.V.next[b])
            for (int s = 0; s < IGP_BUCKET_SLOTS; ++s) {
                const int e = d.V.slot[b * IGP_BUCKET_SLOTS + s];
                if (e == IGP_EMPTY_SLOT) continue;
                phi_inc(d, k, e, to);
                phi_dec(d, k, e, from);
            }
        atomic_add_i64(d.bw + from, -d.vwgt[v]);
        atomic_add_i64(d.bw + to, d.vwgt[v]);
        d.part[v] = to;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += blockDim.x) d.vlast[vs[i]] = -1;
    const long long cut0 = d.ctr[C_CUT], km10 = d.ctr[C_KM1];
    __syncthreads();
    settle_claims(d, te, tel, tew, s_nte, s_acc);
    if (threadIdx.x == 0) {
        out[INFO_BAD] = -1;
        out[INFO_CODE] = 0;
        out[INFO_D1] = d.ctr[C_CUT] - cut0;
        out[INFO_D2] = d.ctr[C_KM1] - km10;
        write_info(d, out);
    }
}

// ======================================================================= snapshot

// Warp per listed id: copies the occupied slots of its list, in chain order, to
// dst[offset[t] ...], mapped through `dense` when given (or as is).
extern "C" __global__ void dyn_gather(const u64 *P, int nets, const int *ids, int count,
                                      const long long *offset, const int *dense, int *dst) {
    const Dyn d = load(P);
    const int lane = threadIdx.x & 31;
    const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= count) return;
    const Lists &L = nets ? d.E : d.V;
    const int id = ids[w];
    long long pos = offset[w];
    for (long long b = L.head[id]; b != -1; b = L.next[b]) {
        const int val = L.slot[b * IGP_BUCKET_SLOTS + lane];
        const unsigned occ = __ballot_sync(FULL, val != IGP_EMPTY_SLOT);
        if (val != IGP_EMPTY_SLOT)
            dst[pos + __popc(occ & ((1u << lane) - 1u))] = dense ? dense[val] : val;
        pos += __popc(occ);
    }
}

// ======================================================================= build

// Thread per net: Phi row, lambda. (The incidence itself is laid out by the host side with
// array operations; see _dynamic.py.)
extern "C" __global__ void dyn_build_phi(const u64 *P, const long long *eptr, const int *eind,
                                         long long m, int k) {
    const Dyn d = load(P);
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int l = 0;
    for (long long j = eptr[e]; j < eptr[e + 1]; ++j) {
        const int b = d.part[eind[j]];
        if (d.phi[e * k + b]++ == 0) ++l;
    }
    d.lambda[e] = l;
}

// ======================================================================= refinement

// Scratch of one refinement launch (device arrays sized by the id capacities).
struct RefScratch {
    int *reg;         // region: affected vertices
    int *orig;        // their block before the launch
    int *dec;         // per region entry: 1 goes to the pseudo-partition
    int *ps, *ps2;    // pseudo lists (ping-pong)
    int *mv_v, *mv_t, *mv_ord;
    long long *mv_s;
    int *te, *tel;
    long long *tew;
    long long *bwt;   // k: running block weights of the prefix scan
    int *changed;     // vertices whose block changed
    int *changed_from;  // and their block before the launch
};

__device__ __forceinline__ RefScratch load_ref(const u64 *R) {
    RefScratch r;
    r.reg = (int *)R[0];
    r.orig = (int *)R[1];
    r.dec = (int *)R[2];
    r.ps = (int *)R[3];
    r.ps2 = (int *)R[4];
    r.mv_v = (int *)R[5];
    r.mv_t = (int *)R[6];
    r.mv_ord = (int *)R[7];
    r.mv_s = (long long *)R[8];
    r.te = (int *)R[9];
    r.tel = (int *)R[10];
    r.tew = (long long *)R[11];
    r.bwt = (long long *)R[12];
    r.changed = (int *)R[13];
    r.changed_from = (int *)R[14];
    return r;
}

// Refinement info (out[...]).
#define RI_ROUNDS 0
#define RI_PSEUDO 1
#define RI_REGION 2
#define RI_CHANGED 3
#define RI_PASSES 4
#define RI_LOCAL_MOVES 5
#define RI_FORCED 6
#define RI_BALANCED 7
#define RI_CTR 8

// Adds v to the region once (vflag 0 -> 1).
__device__ __forceinline__ void region_add(const Dyn &d, const RefScratch &r, int v, int forced,
                                           int *count) {
    if (atomicCAS(d.vflag + v, 0, 1) == 0) {
        const int t = atomicAdd(count, 1);
        r.reg[t] = v;
        r.orig[t] = d.part[v];
        r.dec[t] = forced;
    }
}

// The maximum weight of each block: the caller's per-block bounds (k entries) when given, else
// the epsilon bound of every block.
struct Bounds {
    const long long *per;
    long long all;
    __device__ __forceinline__ long long operator()(int b) const { return per ? per[b] : all; }
};

// Warp: best block for vertex v (weight wv), scores of all nets of v on lanes = blocks.
// mode 0: Alg. 4 placement score out of the pseudo-partition; mode 1: exact move gain from block
// `from` (v counted there). Only blocks that stay within their bound are eligible; in mode 0, when none
// is, the lightest block. Returns (block, score) on every lane; block -1 when nothing qualifies
// (mode 1: no positive gain).
__device__ void warp_best_block(const Dyn &d, int k, int objective, int v, long long wv, int from,
                                Bounds bound, int mode, int lane, int *best_t, long long *best_s) {
    int bt = -1;
    long long bs = 0, bwb = 0;
    for (int t0 = 0; t0 < k; t0 += 32) {
        const int t = t0 + lane;
        long long score = 0;
        for (long long b = d.V.head[v]; b != -1; b = d.V.next[b]) {
            const int mine = d.V.slot[b * IGP_BUCKET_SLOTS + lane];
            for (int j = 0; j < 32; ++j) {
                const int e = __shfl_sync(FULL, mine, j);
                if (e == IGP_EMPTY_SLOT || t >= k) continue;
                const long long w = d.ewgt[e], size = d.E.size[e];
                const long long pt = d.phi[(long long)e * k + t];
                if (mode == 0)
                    score += igp::pseudo_place_score(objective, w, size, pt);
                else if (t != from)
                    score += igp::move_gain(objective, w, size, d.phi[(long long)e * k + from], pt);
            }
        }
        const long long wt = t < k ? d.bw[t] : 0;
        bool ok = t < k && wt + wv <= bound(t) && (mode == 0 || (t != from && score > 0));
        int ct = ok ? t : -1;
        long long cs = score, cw = wt;
        for (int o = 16; o > 0; o >>= 1) {  // warp argmax by place_better
            const int ot = __shfl_xor_sync(FULL, ct, o);
            const long long os = __shfl_xor_sync(FULL, cs, o), ow = __shfl_xor_sync(FULL, cw, o);
            if (ot >= 0 && (ct < 0 || igp::place_better(os, ow, ot, cs, cw, ct))) {
                ct = ot;
                cs = os;
                cw = ow;
            }
        }
        if (ct >= 0 && (bt < 0 || igp::place_better(cs, cw, ct, bs, bwb, bt))) {
            bt = ct;
            bs = cs;
            bwb = cw;
        }
    }
    if (bt < 0 && mode == 0) {  // nothing fits: the roomiest block (the prefix scan decides)
        if (bound.per == nullptr) {
            bt = igp::lightest_block((const igp_i64 *)d.bw, k);
        } else {
            bt = 0;
            for (int b = 1; b < k; ++b)
                if (bound(b) - d.bw[b] > bound(bt) - d.bw[bt]) bt = b;
        }
        bs = -1;
    }
    *best_t = bt;
    *best_s = bs;
}

// Whether v is the smallest marked pin of each of its nets (of at most big_net pins, or all when
// big_net <= 0): then no other vertex moving in this round shares a net with it.
__device__ bool warp_is_net_minimum(const Dyn &d, int v, int big_net, int lane) {
    for (long long b = d.V.head[v]; b != -1; b = d.V.next[b]) {
        const int e = d.V.slot[b * IGP_BUCKET_SLOTS + lane];
        const bool other = e != IGP_EMPTY_SLOT && (big_net <= 0 || d.E.size[e] <= big_net) &&
                           d.minp[e] != v;
        if (__any_sync(FULL, other)) return false;
    }
    return true;
}

__device__ void warp_mark_nets(const Dyn &d, int v, int big_net, int lane, bool reset) {
    for (long long b = d.V.head[v]; b != -1; b = d.V.next[b]) {
        const int e = d.V.slot[b * IGP_BUCKET_SLOTS + lane];
        if (e != IGP_EMPTY_SLOT && (big_net <= 0 || d.E.size[e] <= big_net)) {
            if (reset)
                d.minp[e] = I32_MAX;
            else
                atomicMin(d.minp + e, v);
        }
    }
}

// Warp: moves v into block `to` (from block `from`, or from the pseudo-partition when from < 0).
__device__ void warp_move(const Dyn &d, int k, int v, int from, int to, int lane) {
    for (long long b = d.V.head[v]; b != -1; b = d.V.next[b]) {
        const int e = d.V.slot[b * IGP_BUCKET_SLOTS + lane];
        if (e == IGP_EMPTY_SLOT) continue;
        if (to >= 0) phi_inc(d, k, e, to);
        if (from >= 0) phi_dec(d, k, e, from);
    }
    if (lane == 0) {
        const long long w = d.vwgt[v];
        if (from >= 0) atomic_add_i64(d.bw + from, -w);
        if (to >= 0) atomic_add_i64(d.bw + to, w);
        d.part[v] = to >= 0 ? to : IGP_PSEUDO_BLOCK;
    }
}

// Whether vertex v is fixed (never moved by the refinement): ``locked`` holds a byte per vertex
// id below ``nlocked`` (non-zero: fixed); ids beyond it and a null ``locked`` are free.
__device__ __forceinline__ bool vertex_locked(const unsigned char *locked, int nlocked, int v) {
    return locked != nullptr && v < nlocked && locked[v] != 0;
}

// Rank sort of moves [0, n) by (score desc, vertex asc) into ord.
__device__ void rank_sort_moves(const RefScratch &r, int n) {
    for (int m = threadIdx.x; m < n; m += blockDim.x) {
        int rank = 0;
        for (int j = 0; j < n; ++j)
            rank += igp::move_before(r.mv_s[j], r.mv_v[j], r.mv_s[m], r.mv_v[m]);
        r.mv_ord[rank] = m;
    }
}

// One block: incremental refinement of the affected set.
//   newv: vertices created by the batches since the last refinement (they go to the
//   pseudo-partition unconditionally); seeds: the vertices those batches touched (with
//   expand == 0: vertices that all go to the pseudo-partition). Dead or repeated ids are skipped.
// Alg. 3: seeds (and, with expand, the pins of their nets of at most big_net pins) whose external
// connection outweighs the internal one, or whose block is overloaded, go to the pseudo-partition.
// Alg. 4: rounds: pseudo vertices that are the smallest pseudo pin of each small net choose their
// best block; moves sorted by score; the longest prefix keeping every block within its bound is
// applied (at least one move, so the rounds end). Then up to `passes` rounds of local refinement
// of the region: positive-gain moves of vertices sharing no net, sorted by gain, longest balanced
// prefix. Cut and km1 are settled from the claimed nets at the end. ``bounds`` (k entries, or
// null: the epsilon bound for every block): the blocks' maximum weights. Fixed vertices (``locked``,
// see vertex_locked) stay in the region, so that their nets are claimed and their neighbours
// reached, but never go to the pseudo-partition and never move.
extern "C" __global__ void __launch_bounds__(1024)
dyn_refine(const u64 *P, const u64 *R, const int *newv, int nnew, const int *seeds, int nseeds, int expand, int k, double eps, int objective,
           int big_net, int passes, long long *out, const unsigned char *locked, int nlocked,
           const long long *bounds) {
    const Dyn d = load(P);
    const RefScratch r = load_ref(R);
    __shared__ int s_nreg, s_nps, s_nps2, s_nm, s_L, s_nte, s_nch, s_rounds, s_forced, s_local,
        s_pass;
    __shared__ long long s_maxw;
    __shared__ u64 s_acc[2];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    if (threadIdx.x == 0) {
        s_nreg = s_nps = s_nm = s_L = s_nte = s_nch = s_rounds = s_forced = s_local = s_pass = 0;
        s_acc[0] = s_acc[1] = 0;
        s_maxw = igp::max_block_weight(d.ctr[C_TOTAL], k, eps);
    }
    __syncthreads();
    const Bounds bound{bounds, s_maxw};

    // Alg. 3, affected set: the vertices the last batch created (straight to the
    // pseudo-partition), the seeds, then the pins of their small nets
    for (int t = threadIdx.x; t < nnew; t += blockDim.x)
        if (d.vstatus[newv[t]]) region_add(d, r, newv[t], 1, &s_nreg);
    __syncthreads();
    for (int t = threadIdx.x; t < nseeds; t += blockDim.x) {
        const int v = seeds[t];
        if (d.vstatus[v]) region_add(d, r, v, !expand, &s_nreg);
    }
    __syncthreads();
    if (expand) {
        const int nseed_reg = s_nreg;
        for (int t = warp; t < nseed_reg; t += nwarps) {
            const int v = r.reg[t];
            for (long long b = d.V.head[v]; b != -1; b = d.V.next[b]) {
                const int mine = d.V.slot[b * IGP_BUCKET_SLOTS + lane];
                for (int j = 0; j < 32; ++j) {
                    const int e = __shfl_sync(FULL, mine, j);
                    if (e == IGP_EMPTY_SLOT || d.E.size[e] > big_net) continue;
                    for (long long c = d.E.head[e]; c != -1; c = d.E.next[c]) {
                        const int u = d.E.slot[c * IGP_BUCKET_SLOTS + lane];
                        if (u != IGP_EMPTY_SLOT) region_add(d, r, u, 0, &s_nreg);
                    }
                }
            }
        }
    }
    __syncthreads();
    const int nreg = s_nreg;

    // Alg. 3 filter (decisions first, moves after: no warp sees another's half-done move)
    for (int t = warp; t < nreg; t += nwarps) {
        if (vertex_locked(locked, nlocked, r.reg[t])) {
            if (lane == 0) r.dec[t] = 0;  // a fixed vertex stays (forced seeds included)
            continue;
        }
        if (r.dec[t]) continue;
        const int v = r.reg[t], p = d.part[v];
        long long ext = 0, in = 0;
        for (long long b = d.V.head[v]; b != -1; b = d.V.next[b]) {
            const int e = d.V.slot[b * IGP_BUCKET_SLOTS + lane];
            if (e == IGP_EMPTY_SLOT) continue;
            const long long w = d.ewgt[e], php = d.phi[(long long)e * k + p];
            ext += igp::affected_external_term(w, d.E.size[e], php);
            in += igp::affected_internal_term(w, php);
        }
        ext = warp_sum(ext);
        in = warp_sum(in);
        if (lane == 0) r.dec[t] = igp::goes_to_pseudo(ext, in) || d.bw[p] > bound(p);
    }
    __syncthreads();
    // claim every net of the region (lambda, weight before the launch), list the pseudo vertices
    for (int t = warp; t < nreg; t += nwarps) {
        const int v = r.reg[t];
        for (long long b = d.V.head[v]; b != -1; b = d.V.next[b]) {
            const int e = d.V.slot[b * IGP_BUCKET_SLOTS + lane];
            if (e != IGP_EMPTY_SLOT) claim_net(d, e, r.te, r.tel, r.tew, &s_nte);
        }
        if (lane == 0 && r.dec[t]) r.ps[atomicAdd(&s_nps, 1)] = v;
    }
    __syncthreads();
    const int npseudo = s_nps;
    for (int t = warp; t < npseudo; t += nwarps) {
        const int v = r.ps[t];
        warp_move(d, k, v, d.part[v], -1, lane);
    }
    __syncthreads();

    // Alg. 4 rounds
    int *ps = r.ps, *ps2 = r.ps2;
    while (s_nps > 0) {
        const int np = s_nps;
        for (int t = warp; t < np; t += nwarps) warp_mark_nets(d, ps[t], big_net, lane, false);
        __syncthreads();
        for (int t = warp; t < np; t += nwarps) {
            const int v = ps[t];
            if (!warp_is_net_minimum(d, v, big_net, lane)) continue;
            int bt;
            long long bs;
            warp_best_block(d, k, objective, v, d.vwgt[v], -1, bound, 0, lane, &bt, &bs);
            if (lane == 0) {
                const int m = atomicAdd(&s_nm, 1);
                r.mv_v[m] = v;
                r.mv_t[m] = bt;
                r.mv_s[m] = bs;
            }
        }
        __syncthreads();
        for (int t = warp; t < np; t += nwarps) warp_mark_nets(d, ps[t], big_net, lane, true);
        rank_sort_moves(r, s_nm);
        __syncthreads();
        if (threadIdx.x == 0) {  // longest balanced prefix (Fig. 5, as a running scan)
            for (int b = 0; b < k; ++b) r.bwt[b] = d.bw[b];
            int L = 0;
            for (int j = 0; j < s_nm; ++j) {
                const int m = r.mv_ord[j];
                const long long w = d.vwgt[r.mv_v[m]];
                if (r.bwt[r.mv_t[m]] + w > bound(r.mv_t[m])) break;
                r.bwt[r.mv_t[m]] += w;
                ++L;
            }
            if (L == 0 && s_nm > 0) {
                L = 1;
                ++s_forced;
            }
            s_L = L;
        }
        __syncthreads();
        for (int j = warp; j < s_L; j += nwarps) {
            const int m = r.mv_ord[j];
            warp_move(d, k, r.mv_v[m], -1, r.mv_t[m], lane);
        }
        __syncthreads();
        if (threadIdx.x == 0) s_nps2 = 0;
        __syncthreads();
        for (int t = threadIdx.x; t < np; t += blockDim.x)
            if (d.part[ps[t]] == IGP_PSEUDO_BLOCK) ps2[atomicAdd(&s_nps2, 1)] = ps[t];
        __syncthreads();
        if (threadIdx.x == 0) {
            s_nps = s_nps2;
            s_nm = 0;
            ++s_rounds;
        }
        int *tmp = ps;
        ps = ps2;
        ps2 = tmp;
        __syncthreads();
    }

    // local refinement of the region with exact gains
    for (int pass = 0; pass < passes; ++pass) {
        for (int t = warp; t < nreg; t += nwarps) {
            const int v = r.reg[t];
            if (vertex_locked(locked, nlocked, v)) {
                if (lane == 0) r.dec[t] = -1;
                continue;
            }
            int bt;
            long long bs;
            warp_best_block(d, k, objective, v, d.vwgt[v], d.part[v], bound, 1, lane, &bt, &bs);
            if (bt >= 0) {
                warp_mark_nets(d, v, 0, lane, false);
                if (lane == 0) r.dec[t] = bt;
            } else if (lane == 0) {
                r.dec[t] = -1;
            }
        }
        __syncthreads();
        for (int t = warp; t < nreg; t += nwarps) {
            if (r.dec[t] < 0) continue;
            const int v = r.reg[t];
            if (warp_is_net_minimum(d, v, 0, lane) && lane == 0) {
                const int m = atomicAdd(&s_nm, 1);
                r.mv_v[m] = v;
                r.mv_t[m] = r.dec[t];
                r.mv_s[m] = 0;
            }
        }
        __syncthreads();
        for (int t = warp; t < nreg; t += nwarps)
            if (r.dec[t] >= 0) warp_mark_nets(d, r.reg[t], 0, lane, true);
        // the gain of each selected move (exact: selected vertices share no net)
        for (int m = warp; m < s_nm; m += nwarps) {
            int bt;
            long long bs;
            const int v = r.mv_v[m];
            warp_best_block(d, k, objective, v, d.vwgt[v], d.part[v], bound, 1, lane, &bt, &bs);
            if (lane == 0) r.mv_s[m] = bt == r.mv_t[m] ? bs : 0;
        }
        __syncthreads();
        rank_sort_moves(r, s_nm);
        __syncthreads();
        if (threadIdx.x == 0) {  // longest prefix after which no block is over its bound
            for (int b = 0; b < k; ++b) r.bwt[b] = d.bw[b];
            int L = 0, over = 0;
            for (int j = 0; j < s_nm; ++j) {
                const int m = r.mv_ord[j];
                const int v = r.mv_v[m], to = r.mv_t[m], from = d.part[v];
                const long long w = d.vwgt[v];
                if (r.mv_s[m] <= 0) break;
                const bool f0 = !igp::block_ok(r.bwt[from], bound(from), d.bw[from]);
                const bool t0 = !igp::block_ok(r.bwt[to], bound(to), d.bw[to]);
                r.bwt[from] -= w;
                r.bwt[to] += w;
                over += (int)!igp::block_ok(r.bwt[from], bound(from), d.bw[from]) - (int)f0;
                over += (int)!igp::block_ok(r.bwt[to], bound(to), d.bw[to]) - (int)t0;
                if (over == 0) L = j + 1;
            }
            s_L = L;
            s_local += L;
            s_pass = pass + 1;
        }
        __syncthreads();
        for (int j = warp; j < s_L; j += nwarps) {
            const int m = r.mv_ord[j];
            const int v = r.mv_v[m];
            warp_move(d, k, v, d.part[v], r.mv_t[m], lane);
        }
        __syncthreads();
        const int L = s_L;
        __syncthreads();
        if (threadIdx.x == 0) s_nm = 0;
        __syncthreads();
        if (L == 0) break;
    }

    // settle the objective, list the vertices whose block changed, release the region
    settle_claims(d, r.te, r.tel, r.tew, s_nte, s_acc);
    for (int t = threadIdx.x; t < nreg; t += blockDim.x) {
        const int v = r.reg[t];
        d.vflag[v] = 0;
        if (d.part[v] != r.orig[t]) {
            const int c = atomicAdd(&s_nch, 1);
            r.changed[c] = v;
            r.changed_from[c] = r.orig[t];
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int balanced = 1;
        for (int b = 0; b < k; ++b) balanced &= d.bw[b] <= bound(b);
        out[RI_ROUNDS] = s_rounds;
        out[RI_PSEUDO] = npseudo;
        out[RI_REGION] = nreg;
        out[RI_CHANGED] = s_nch;
        out[RI_PASSES] = s_pass;
        out[RI_LOCAL_MOVES] = s_local;
        out[RI_FORCED] = s_forced;
        out[RI_BALANCED] = balanced;
        for (int c = 0; c < NCTR; ++c) out[RI_CTR + c] = d.ctr[c];
    }
}

// Grid: the vertices of overloaded blocks that have a cut net (or, with any_vertex, all of them),
// appended to `seeds` (the rebalancing fallback of dyn_refine with expand == 0); fixed vertices
// (``locked``) are left out. ``bounds``: as for dyn_refine.
extern "C" __global__ void dyn_overloaded_vertices(const u64 *P, int k, double eps, int any_vertex,
                                                   int *seeds, int *count,
                                                   const unsigned char *locked, int nlocked,
                                                   const long long *bounds) {
    const Dyn d = load(P);
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= d.ctr[C_NIDS] || !d.vstatus[v] || vertex_locked(locked, nlocked, (int)v)) return;
    const Bounds bound{bounds, igp::max_block_weight(d.ctr[C_TOTAL], k, eps)};
    if (d.bw[d.part[v]] <= bound(d.part[v])) return;
    bool boundary = any_vertex != 0;
    for (long long b = d.V.head[v]; b != -1 && !boundary; b = d.V.next[b])
        for (int s = 0; s < IGP_BUCKET_SLOTS; ++s) {
            const int e = d.V.slot[b * IGP_BUCKET_SLOTS + s];
            if (e != IGP_EMPTY_SLOT && d.lambda[e] > 1) boundary = true;
        }
    if (boundary) seeds[atomicAdd(count, 1)] = (int)v;
}
