// Dynamic hypergraph with an incrementally maintained partition (see dynamic.h).
#include "dynamic.h"

#include <algorithm>
#include <cmath>

namespace igp {

namespace {

int64_t grown_capacity(int64_t cap, int64_t needed, double growth) {
    const double g = std::ceil(static_cast<double>(cap) * growth);
    return std::max<int64_t>(needed, static_cast<int64_t>(g));
}

int64_t with_headroom(int64_t count, double headroom) {
    return count + static_cast<int64_t>(std::ceil(static_cast<double>(count) * headroom));
}

int32_t buckets_for(int64_t entries, int width, int32_t spare) {
    return static_cast<int32_t>((entries + width - 1) / width) + spare;
}

const char *const OP_NAMES[OP_COUNT] = {"insert_vertex", "delete_vertex",    "insert_net",
                                        "delete_net",    "insert_pin",       "delete_pin",
                                        "set_vertex_weight", "set_net_weight"};

}  // namespace

// ------------------------------------------------------------------------------- BucketPool

void BucketPool::init(int width_, bool aux_, int64_t capacity, double growth_) {
    width = width_;
    with_aux = aux_;
    growth = growth_;
    slot.assign(static_cast<size_t>(capacity * width), IGP_EMPTY_SLOT);
    aux.assign(with_aux ? static_cast<size_t>(capacity * width) : 0, 0);
    next.assign(static_cast<size_t>(capacity), -1);
    used = 0;
    free_top = -1;
    free_count = 0;
    growths = 0;
}

void BucketPool::reserve(int64_t extra) {
    if (available() >= extra) return;
    const int64_t cap = grown_capacity(capacity(), capacity() + (extra - available()), growth);
    slot.resize(static_cast<size_t>(cap * width), IGP_EMPTY_SLOT);
    if (with_aux) aux.resize(static_cast<size_t>(cap * width), 0);
    next.resize(static_cast<size_t>(cap), -1);
    ++growths;
}

int64_t BucketPool::alloc() {
    if (free_top != -1) {
        const int64_t b = free_top;
        free_top = next[b];
        set_next(b, -1);
        --free_count;
        return b;
    }
    if (used >= capacity()) throw std::logic_error("bucket pool exhausted: reserve() was skipped");
    return used++;
}

void BucketPool::release(int64_t b) {
    set_next(b, free_top);
    free_top = b;
    ++free_count;
}

// ------------------------------------------------------------------------------ BucketLists

void BucketLists::resize_ids(int64_t count) {
    hdr.resize(static_cast<size_t>(count));
}

void BucketLists::add_bucket(int32_t id) {
    const int64_t b = pool.alloc();
    ListHeader &h = header(id);
    if (h.tail == -1)
        h.head = b;
    else
        pool.set_next(h.tail, b);
    h.tail = b;
    ++h.nbuckets;
}

int64_t BucketLists::find(int32_t id, int32_t value) const {
    const int w = pool.width;
    int32_t left = hdr[id].size;
    for (int64_t b = hdr[id].head; b != -1 && left > 0; b = pool.next[b]) {
        const int32_t *s = pool.slot.data() + b * w;
        for (int i = 0; i < w; ++i) {
            if (s[i] == value) return b * w + i;
            left -= s[i] != IGP_EMPTY_SLOT;
        }
    }
    return -1;
}

int64_t BucketLists::insert(int32_t id, int32_t value) {
    const int w = pool.width;
    int64_t pos = -1;
    if (static_cast<int64_t>(hdr[id].size) == static_cast<int64_t>(hdr[id].nbuckets) * w) {
        add_bucket(id);
        pos = hdr[id].tail * w;
    } else {
        for (int64_t b = hdr[id].head; b != -1; b = pool.next[b]) {
            const int i = bucket_find(pool.slot.data() + b * w, w, IGP_EMPTY_SLOT);
            if (i >= 0) {
                pos = b * w + i;
                break;
            }
        }
    }
    if (pool.undo) pool.undo->save(pool.slot, pos);
    pool.slot[pos] = value;
    ++header(id).size;
    return pos;
}

void BucketLists::erase_at(int32_t id, int64_t pos) {
    if (pool.undo) pool.undo->save(pool.slot, pos);
    pool.slot[pos] = IGP_EMPTY_SLOT;
    if (pool.with_aux) {
        if (pool.undo) pool.undo->save(pool.aux, pos);
        pool.aux[pos] = 0;
    }
    --header(id).size;
}

void BucketLists::trim(int32_t id, int32_t keep) {
    if (hdr[id].nbuckets <= keep) return;
    int64_t b = hdr[id].head, last = -1;
    for (int32_t i = 0; i < keep; ++i) {
        last = b;
        b = pool.next[b];
    }
    while (b != -1) {
        const int64_t nb = pool.next[b];
        pool.release(b);
        b = nb;
    }
    ListHeader &h = header(id);
    if (last == -1) {
        h.head = h.tail = -1;
    } else {
        pool.set_next(last, -1);
        h.tail = last;
    }
    h.nbuckets = keep;
}

// ------------------------------------------------------------------------- DynamicHypergraph

DynamicHypergraph::DynamicHypergraph(const int64_t *eptr, const int32_t *eind, int64_t m,
                                     int64_t n, const int64_t *vwgt, const int64_t *ewgt,
                                     const int32_t *parts, int32_t k, double eps,
                                     const DynOptions &opt)
    : k_(k), eps_(eps), opt_(opt) {
    const int W = IGP_BUCKET_SLOTS;
    const int32_t gamma = opt.gamma;
    n_ids_ = n;
    m_ids_ = m;
    const int64_t vcap = std::max<int64_t>(1, with_headroom(n, opt.headroom));
    const int64_t ecap = std::max<int64_t>(1, with_headroom(m, opt.headroom));

    // Sizing pass: vertex degrees, and for sparse Phi the connectivity of each net.
    std::vector<int64_t> degree(static_cast<size_t>(n), 0);
    for (int64_t j = 0; j < eptr[m]; ++j) ++degree[eind[j]];
    int64_t vbuckets = 0, ebuckets = 0, pbuckets = 0;
    for (int64_t v = 0; v < n; ++v) vbuckets += buckets_for(degree[v], W, gamma);
    for (int64_t e = 0; e < m; ++e) ebuckets += buckets_for(eptr[e + 1] - eptr[e], W, gamma);
    if (opt.sparse_phi) {
        std::vector<int64_t> seen(static_cast<size_t>(k), -1);
        for (int64_t e = 0; e < m; ++e) {
            int32_t l = 0;
            for (int64_t j = eptr[e]; j < eptr[e + 1]; ++j) {
                const int32_t b = parts[eind[j]];
                if (seen[b] != e) seen[b] = e, ++l;
            }
            pbuckets += buckets_for(l, IGP_PHI_SLOTS, 0);
        }
    }

    // Allocation: each list's buckets contiguous, in id order.
    vnets_.pool.init(W, false, with_headroom(vbuckets, opt.headroom), opt.growth);
    epins_.pool.init(W, false, with_headroom(ebuckets, opt.headroom), opt.growth);
    phis_.pool.init(IGP_PHI_SLOTS, true, with_headroom(pbuckets, opt.headroom), opt.growth);
    vnets_.resize_ids(vcap);
    epins_.resize_ids(ecap);
    if (opt.sparse_phi)
        phis_.resize_ids(ecap);
    else
        phi_dense_.assign(static_cast<size_t>(ecap * k), 0);
    for (int64_t v = 0; v < n; ++v)
        for (int32_t i = buckets_for(degree[v], W, gamma); i > 0; --i)
            vnets_.add_bucket(static_cast<int32_t>(v));
    for (int64_t e = 0; e < m; ++e)
        for (int32_t i = buckets_for(eptr[e + 1] - eptr[e], W, gamma); i > 0; --i)
            epins_.add_bucket(static_cast<int32_t>(e));

    vstatus_.assign(static_cast<size_t>(vcap), 0);
    estatus_.assign(static_cast<size_t>(ecap), 0);
    std::fill(vstatus_.begin(), vstatus_.begin() + n, 1);
    std::fill(estatus_.begin(), estatus_.begin() + m, 1);
    vwgt_.assign(static_cast<size_t>(vcap), 0);
    ewgt_.assign(static_cast<size_t>(ecap), 0);
    std::copy(vwgt, vwgt + n, vwgt_.begin());
    std::copy(ewgt, ewgt + m, ewgt_.begin());
    part_.assign(static_cast<size_t>(vcap), -1);
    std::copy(parts, parts + n, part_.begin());
    bw_.assign(static_cast<size_t>(k), 0);
    for (int64_t v = 0; v < n; ++v) {
        bw_[parts[v]] += vwgt[v];
        total_w_ += vwgt[v];
    }
    lambda_.assign(static_cast<size_t>(ecap), 0);
    live_v_ = n;
    live_e_ = m;
    pins_ = eptr[m];

    // One pass over the nets: pins into both incidence directions (chains are contiguous, so
    // entry j of a list is slot head * W + j), then Phi, lambda, cut and km1 of the net.
    std::vector<int32_t> count(static_cast<size_t>(k), 0);
    std::vector<int32_t> blocks;
    for (int64_t e = 0; e < m; ++e) {
        int32_t *pins = epins_.pool.slot.data() + epins_.hdr[e].head * W;
        blocks.clear();
        for (int64_t j = eptr[e]; j < eptr[e + 1]; ++j) {
            const int32_t v = eind[j];
            pins[j - eptr[e]] = v;
            ListHeader &vh = vnets_.hdr[v];
            vnets_.pool.slot[vh.head * W + vh.size++] = static_cast<int32_t>(e);
            if (count[parts[v]]++ == 0) blocks.push_back(parts[v]);
        }
        epins_.hdr[e].size = static_cast<int32_t>(eptr[e + 1] - eptr[e]);
        if (opt.sparse_phi) {
            for (int32_t i = buckets_for(static_cast<int64_t>(blocks.size()), IGP_PHI_SLOTS, 0);
                 i > 0; --i)
                phis_.add_bucket(static_cast<int32_t>(e));
            const int64_t base = phis_.hdr[e].head * IGP_PHI_SLOTS;
            for (size_t i = 0; i < blocks.size(); ++i) {
                phis_.pool.slot[base + i] = blocks[i];
                phis_.pool.aux[base + i] = count[blocks[i]];
            }
            phis_.hdr[e].size = static_cast<int32_t>(blocks.size());
        } else {
            for (int32_t b : blocks) phi_dense_[e * k + b] = count[b];
        }
        const int32_t l = static_cast<int32_t>(blocks.size());
        lambda_[e] = l;
        cut_ += cut_term(l, ewgt[e]);
        km1_ += km1_term(l, ewgt[e]);
        for (int32_t b : blocks) count[b] = 0;
    }
}

// ------------------------------------------------------------------------------ id handling

void DynamicHypergraph::reserve_vertex_ids(int64_t bound) {
    const int64_t cap = static_cast<int64_t>(vstatus_.size());
    if (bound <= cap) return;
    const int64_t nc = grown_capacity(cap, bound, opt_.growth);
    vstatus_.resize(static_cast<size_t>(nc), 0);
    vwgt_.resize(static_cast<size_t>(nc), 0);
    part_.resize(static_cast<size_t>(nc), -1);
    vnets_.resize_ids(nc);
    ++vid_growths_;
}

void DynamicHypergraph::reserve_net_ids(int64_t bound) {
    const int64_t cap = static_cast<int64_t>(estatus_.size());
    if (bound <= cap) return;
    const int64_t nc = grown_capacity(cap, bound, opt_.growth);
    estatus_.resize(static_cast<size_t>(nc), 0);
    ewgt_.resize(static_cast<size_t>(nc), 0);
    lambda_.resize(static_cast<size_t>(nc), 0);
    epins_.resize_ids(nc);
    if (opt_.sparse_phi)
        phis_.resize_ids(nc);
    else
        phi_dense_.resize(static_cast<size_t>(nc * k_), 0);
    ++eid_growths_;
}

int32_t DynamicHypergraph::take_vertex_id() {
    if (!vfree_.empty()) {
        const int32_t v = vfree_.back();
        vfree_.pop_back();
        undo_.stack_op(vfree_, v);
        return v;
    }
    return static_cast<int32_t>(n_ids_++);
}

int32_t DynamicHypergraph::take_net_id() {
    if (!efree_.empty()) {
        const int32_t e = efree_.back();
        efree_.pop_back();
        undo_.stack_op(efree_, e);
        return e;
    }
    return static_cast<int32_t>(m_ids_++);
}

// ------------------------------------------------------------------------ Phi and metrics

void DynamicHypergraph::set_lambda(int32_t e, int32_t lambda) {
    const int64_t w = ewgt_[e];
    const int32_t old = lambda_[e];
    cut_ += cut_term(lambda, w) - cut_term(old, w);
    km1_ += km1_term(lambda, w) - km1_term(old, w);
    undo_.save(lambda_, e);
    lambda_[e] = lambda;
}

void DynamicHypergraph::add_pin_count(int32_t e, int32_t block, int32_t delta) {
    int32_t before;
    if (!opt_.sparse_phi) {
        const int64_t at = static_cast<int64_t>(e) * k_ + block;
        undo_.save(phi_dense_, at);
        int32_t &c = phi_dense_[at];
        before = c;
        c += delta;
    } else {
        const int64_t pos = phis_.find(e, block);
        if (pos >= 0) {
            before = phis_.pool.aux[pos];
            undo_.save(phis_.pool.aux, pos);
            phis_.pool.aux[pos] += delta;
            if (phis_.pool.aux[pos] == 0) phis_.erase_at(e, pos);
        } else {  // delta == +1: a new (block, 1) entry
            before = 0;
            const int64_t at = phis_.insert(e, block);
            undo_.save(phis_.pool.aux, at);
            phis_.pool.aux[at] = 1;
        }
    }
    const int32_t after = before + delta;
    if (before == 0 && after > 0)
        set_lambda(e, lambda_[e] + 1);
    else if (before > 0 && after == 0)
        set_lambda(e, lambda_[e] - 1);
}

void DynamicHypergraph::reserve_phi(int64_t increments) {
    if (opt_.sparse_phi) phis_.pool.reserve(increments);
}

int32_t DynamicHypergraph::phi(int32_t e, int32_t b) const {
    if (!opt_.sparse_phi) return phi_dense_[static_cast<int64_t>(e) * k_ + b];
    const int64_t pos = phis_.find(e, b);
    return pos >= 0 ? phis_.pool.aux[pos] : 0;
}

// ------------------------------------------------------------------------------ validation

namespace {

uint64_t entity_key(bool vertex, int32_t id) {
    return (uint64_t(vertex ? 1 : 2) << 32) | static_cast<uint32_t>(id);
}

uint64_t pin_key(int32_t v, int32_t e) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(v)) << 32) | static_cast<uint32_t>(e);
}

std::string describe_entity(bool vertex, int64_t id) {
    return std::string(vertex ? "vertex " : "net ") + std::to_string(id);
}

}  // namespace

std::vector<ResolvedChange> DynamicHypergraph::validate(const int8_t *op, const int64_t *a,
                                                        const int64_t *b, const int64_t *c,
                                                        int64_t count) const {
    std::vector<ResolvedChange> out(static_cast<size_t>(count));
    // What the batch has changed so far, on top of the (untouched) state.
    ov_entities_.clear();
    ov_pins_.clear();
    // Ids new records will get, simulated without touching the free stacks.
    int64_t vfree_left = static_cast<int64_t>(vfree_.size());
    int64_t efree_left = static_cast<int64_t>(efree_.size());
    int64_t vnext = n_ids_, enext = m_ids_;

    auto live = [&](bool vertex, int32_t id) -> bool {
        const EntityDelta *d = ov_entities_.find(entity_key(vertex, id));
        if (d && d->status >= 0) return d->status != 0;
        return vertex ? vertex_alive(id) : net_alive(id);
    };
    auto list_size = [&](bool vertex, int32_t id) -> int64_t {
        const EntityDelta *d = ov_entities_.find(entity_key(vertex, id));
        const BucketLists &l = vertex ? vnets_ : epins_;
        return (id < l.ids() ? l.hdr[id].size : 0) + (d ? d->size : 0);
    };
    auto has_pin = [&](int32_t v, int32_t e) -> bool {
        if (const int8_t *p = ov_pins_.find(pin_key(v, e))) return *p != 0;
        if (!vertex_alive(v) || !net_alive(e)) return false;  // not live before the batch
        if (vnets_.hdr[v].size <= epins_.hdr[e].size) return vnets_.find(v, e) >= 0;
        return epins_.find(e, v) >= 0;
    };

    for (int64_t i = 0; i < count; ++i) {
        const int o = op[i];
        auto fail = [&](const std::string &why) { throw RecordError(i, why); };
        if (o < 0 || o >= OP_COUNT)
            fail("unknown op code " + std::to_string(o) + " (valid codes are 0.." +
                 std::to_string(OP_COUNT - 1) + ")");
        const int64_t args[3] = {a[i], b[i], c[i]};
        // Resolves an id argument: a reference to an earlier insert, or a live id.
        auto resolve = [&](int col) -> int32_t {
            const bool vertex = change_arg_kind(o, col) == 1;
            const int64_t raw = args[col];
            int64_t id = raw;
            if (raw < 0) {
                const int64_t r = change_ref_record(raw);
                const int want = vertex ? OP_INSERT_VERTEX : OP_INSERT_NET;
                if (r >= i)
                    fail("reference " + std::to_string(raw) + " names record " +
                         std::to_string(r) + ", which does not come before this one");
                if (op[r] != want)
                    fail("reference " + std::to_string(raw) + " names record " +
                         std::to_string(r) + ", which is not an " + OP_NAMES[want]);
                id = out[r].x;
            } else {
                const int64_t bound = vertex ? vnext : enext;
                if (raw >= bound)
                    fail("unknown " + describe_entity(vertex, raw) + " (" +
                         (vertex ? "vertex" : "net") + " ids in use are < " +
                         std::to_string(bound) + ")");
            }
            if (!live(vertex, static_cast<int32_t>(id)))
                fail(describe_entity(vertex, id) + " is deleted");
            return static_cast<int32_t>(id);
        };
        auto need_zero = [&](int col) {
            if (args[col] != 0)
                fail(std::string("argument ") + "abc"[col] + " of " + OP_NAMES[o] +
                     " must be 0, got " + std::to_string(args[col]));
        };
        auto need_weight = [&](int col) -> int64_t {
            if (args[col] < 0) fail("weight must be non-negative, got " + std::to_string(args[col]));
            return args[col];
        };
        ResolvedChange &r = out[static_cast<size_t>(i)];
        r.op = o;
        r.x = r.y = -1;
        r.w = 0;
        switch (o) {
            case OP_INSERT_VERTEX: {
                r.w = need_weight(0);
                if (args[1] < -1 || args[1] >= k_)
                    fail("block " + std::to_string(args[1]) + " is out of range [0, " +
                         std::to_string(k_) + ") (-1 picks the lightest block)");
                need_zero(2);
                r.y = static_cast<int32_t>(args[1]);
                r.x = vfree_left > 0 ? vfree_[static_cast<size_t>(--vfree_left)]
                                     : static_cast<int32_t>(vnext++);
                if (r.x < 0 || vnext > INT32_MAX) fail("vertex ids are exhausted");
                ov_entities_[entity_key(true, r.x)].status = 1;
                break;
            }
            case OP_INSERT_NET: {
                r.w = need_weight(0);
                need_zero(1);
                need_zero(2);
                r.x = efree_left > 0 ? efree_[static_cast<size_t>(--efree_left)]
                                     : static_cast<int32_t>(enext++);
                if (r.x < 0 || enext > INT32_MAX) fail("net ids are exhausted");
                ov_entities_[entity_key(false, r.x)].status = 1;
                break;
            }
            case OP_DELETE_VERTEX:
            case OP_DELETE_NET: {
                const bool vertex = o == OP_DELETE_VERTEX;
                need_zero(1);
                need_zero(2);
                r.x = resolve(0);
                const int64_t s = list_size(vertex, r.x);
                if (s != 0)
                    fail(describe_entity(vertex, r.x) + " still has " + std::to_string(s) +
                         (vertex ? " net(s); remove its pins before deleting it"
                                 : " pin(s); remove them before deleting it"));
                ov_entities_[entity_key(vertex, r.x)].status = 0;
                break;
            }
            case OP_INSERT_PIN:
            case OP_DELETE_PIN: {
                need_zero(2);
                r.x = resolve(0);
                r.y = resolve(1);
                const bool present = has_pin(r.x, r.y);
                const bool insert = o == OP_INSERT_PIN;
                if (insert && present)
                    fail("vertex " + std::to_string(r.x) + " is already a pin of net " +
                         std::to_string(r.y) + " (duplicate pin)");
                if (!insert && !present)
                    fail("vertex " + std::to_string(r.x) + " is not a pin of net " +
                         std::to_string(r.y));
                ov_pins_[pin_key(r.x, r.y)] = insert ? 1 : 0;
                ov_entities_[entity_key(true, r.x)].size += insert ? 1 : -1;
                ov_entities_[entity_key(false, r.y)].size += insert ? 1 : -1;
                break;
            }
            case OP_SET_VERTEX_WEIGHT:
            case OP_SET_NET_WEIGHT: {
                need_zero(2);
                r.x = resolve(0);
                r.w = need_weight(1);
                break;
            }
        }
    }
    return out;
}

// ------------------------------------------------------------------------------- modifiers

BatchResult DynamicHypergraph::apply(const int8_t *op, const int64_t *a, const int64_t *b,
                                     const int64_t *c, int64_t count) {
    const std::vector<ResolvedChange> recs = validate(op, a, b, c, count);

    // Reserve the batch's worst case, so that applying cannot run out of room half way.
    int64_t new_v = 0, new_e = 0, pin_inserts = 0;
    for (const ResolvedChange &r : recs) {
        new_v += r.op == OP_INSERT_VERTEX;
        new_e += r.op == OP_INSERT_NET;
        pin_inserts += r.op == OP_INSERT_PIN;
    }
    const int64_t fresh_v = std::max<int64_t>(0, new_v - static_cast<int64_t>(vfree_.size()));
    const int64_t fresh_e = std::max<int64_t>(0, new_e - static_cast<int64_t>(efree_.size()));
    reserve_vertex_ids(n_ids_ + fresh_v);
    reserve_net_ids(m_ids_ + fresh_e);
    vnets_.pool.reserve(pin_inserts + new_v * opt_.gamma);
    epins_.pool.reserve(pin_inserts + new_e * opt_.gamma);
    reserve_phi(pin_inserts);

    if (store_) store_->ensure(n_ids_ + fresh_v, m_ids_ + fresh_e);

    BatchResult res;
    res.created.assign(static_cast<size_t>(count), -1);
    std::vector<int32_t> freed_v, freed_e;
    for (size_t i = 0; i < recs.size(); ++i) {
        const ResolvedChange &r = recs[i];
        switch (r.op) {
            case OP_INSERT_VERTEX: {
                const int32_t v = take_vertex_id();
                if (v != r.x) throw std::logic_error("vertex id assignment diverged");
                const int32_t blk = r.y >= 0 ? r.y : lightest_block(bw_.data(), k_);
                save_vertex(v);
                undo_.save(bw_, blk);
                vstatus_[v] = 1;
                vwgt_[v] = r.w;
                part_[v] = blk;
                bw_[blk] += r.w;
                total_w_ += r.w;
                ++live_v_;
                while (vnets_.hdr[v].nbuckets < opt_.gamma) vnets_.add_bucket(v);
                res.created[i] = v;
                res.touched_v.push_back(v);
                break;
            }
            case OP_DELETE_VERTEX: {
                const int32_t v = r.x;
                save_vertex(v);
                undo_.save(bw_, part_[v]);
                bw_[part_[v]] -= vwgt_[v];
                total_w_ -= vwgt_[v];
                --live_v_;
                vstatus_[v] = 0;
                vwgt_[v] = 0;
                part_[v] = -1;
                vnets_.trim(v, opt_.gamma);
                freed_v.push_back(v);
                break;
            }
            case OP_INSERT_NET: {
                const int32_t e = take_net_id();
                if (e != r.x) throw std::logic_error("net id assignment diverged");
                save_net(e);
                estatus_[e] = 1;
                ewgt_[e] = r.w;
                lambda_[e] = 0;
                ++live_e_;
                while (epins_.hdr[e].nbuckets < opt_.gamma) epins_.add_bucket(e);
                res.created[i] = e;
                res.touched_e.push_back(e);
                break;
            }
            case OP_DELETE_NET: {
                const int32_t e = r.x;
                save_net(e);
                --live_e_;
                estatus_[e] = 0;
                ewgt_[e] = 0;
                epins_.trim(e, opt_.gamma);
                if (opt_.sparse_phi) phis_.trim(e, 0);
                freed_e.push_back(e);
                break;
            }
            case OP_INSERT_PIN: {
                vnets_.insert(r.x, r.y);
                epins_.insert(r.y, r.x);
                if (store_) store_->insert_pin(r.x, r.y);
                add_pin_count(r.y, part_[r.x], +1);
                ++pins_;
                res.touched_v.push_back(r.x);
                res.touched_e.push_back(r.y);
                break;
            }
            case OP_DELETE_PIN: {
                vnets_.erase_at(r.x, vnets_.find(r.x, r.y));
                epins_.erase_at(r.y, epins_.find(r.y, r.x));
                if (store_) store_->delete_pin(r.x, r.y);
                add_pin_count(r.y, part_[r.x], -1);
                --pins_;
                res.touched_v.push_back(r.x);
                res.touched_e.push_back(r.y);
                break;
            }
            case OP_SET_VERTEX_WEIGHT: {
                const int32_t v = r.x;
                undo_.save(bw_, part_[v]);
                undo_.save(vwgt_, v);
                bw_[part_[v]] += r.w - vwgt_[v];
                total_w_ += r.w - vwgt_[v];
                vwgt_[v] = r.w;
                res.touched_v.push_back(v);
                break;
            }
            case OP_SET_NET_WEIGHT: {
                const int32_t e = r.x;
                const int32_t l = lambda_[e];
                cut_ += cut_term(l, r.w) - cut_term(l, ewgt_[e]);
                km1_ += km1_term(l, r.w) - km1_term(l, ewgt_[e]);
                undo_.save(ewgt_, e);
                ewgt_[e] = r.w;
                res.touched_e.push_back(e);
                break;
            }
        }
    }
    for (int32_t v : freed_v) {
        vfree_.push_back(v);
        undo_.stack_op(vfree_, -1);
    }
    for (int32_t e : freed_e) {
        efree_.push_back(e);
        undo_.stack_op(efree_, -1);
    }
    if (store_) store_->finish_changes();
    ++batches_;
    records_ += count;

    auto finish = [](std::vector<int32_t> &ids, const std::vector<int8_t> &status) {
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        ids.erase(std::remove_if(ids.begin(), ids.end(), [&](int32_t x) { return !status[x]; }),
                  ids.end());
    };
    finish(res.touched_v, vstatus_);
    finish(res.touched_e, estatus_);
    return res;
}

std::pair<int64_t, int64_t> DynamicHypergraph::move(const int32_t *vertices, const int32_t *blocks,
                                                    int64_t count) {
    int64_t increments = 0;
    for (int64_t i = 0; i < count; ++i) {
        if (!vertex_alive(vertices[i]))
            throw RecordError(i, vertices[i] >= 0 && vertices[i] < n_ids_
                                     ? "vertex " + std::to_string(vertices[i]) + " is deleted"
                                     : "unknown vertex " + std::to_string(vertices[i]));
        if (blocks[i] < 0 || blocks[i] >= k_)
            throw RecordError(i, "block " + std::to_string(blocks[i]) + " is out of range [0, " +
                                     std::to_string(k_) + ")");
        increments += vnets_.hdr[vertices[i]].size;
    }
    reserve_phi(increments);
    const int64_t cut0 = cut_, km10 = km1_;
    for (int64_t i = 0; i < count; ++i) move_vertex(vertices[i], blocks[i]);
    return {cut_ - cut0, km1_ - km10};
}

void DynamicHypergraph::move_vertex(int32_t v, int32_t to) {
    const int32_t from = part_[v];
    if (from == to) return;
    reserve_phi(vnets_.hdr[v].size);
    for_each_net(v, [&](int32_t e) {
        add_pin_count(e, to, +1);
        add_pin_count(e, from, -1);
    });
    undo_.save(bw_, from);
    undo_.save(bw_, to);
    undo_.save(part_, v);
    bw_[from] -= vwgt_[v];
    bw_[to] += vwgt_[v];
    part_[v] = to;
}

// --------------------------------------------------------------------------- transactions

void UndoLog::undo() {
    on_ = false;
    for (auto it = cells_.rbegin(); it != cells_.rend(); ++it) {
        const size_t i = static_cast<size_t>(it->index);
        if (it->width == 1)
            (*static_cast<std::vector<int8_t> *>(it->array))[i] = static_cast<int8_t>(it->old);
        else if (it->width == 4)
            (*static_cast<std::vector<int32_t> *>(it->array))[i] = static_cast<int32_t>(it->old);
        else
            (*static_cast<std::vector<int64_t> *>(it->array))[i] = it->old;
    }
    for (auto it = headers_.rbegin(); it != headers_.rend(); ++it)
        (*it->array)[static_cast<size_t>(it->index)] = it->old;
    for (auto it = stacks_.rbegin(); it != stacks_.rend(); ++it) {
        if (it->popped >= 0)
            it->stack->push_back(static_cast<int32_t>(it->popped));
        else
            it->stack->pop_back();
    }
    clear();
}

void DynamicHypergraph::journal(UndoLog *log) {
    for (BucketLists *l : {&vnets_, &epins_, &phis_}) l->pool.undo = log;
}

void DynamicHypergraph::begin_batch() {
    if (undo_.on()) throw std::logic_error("a transaction is already open");
    Checkpoint &c = saved_;
    const int64_t scalars[12] = {n_ids_, m_ids_, total_w_, cut_, km1_, live_v_, live_e_,
                                 pins_, vid_growths_, eid_growths_, batches_, records_};
    std::copy(scalars, scalars + 12, c.scalars);
    const BucketLists *lists[3] = {&vnets_, &epins_, &phis_};
    for (int i = 0; i < 3; ++i) {
        const BucketPool &p = lists[i]->pool;
        c.pool[i][0] = p.used;
        c.pool[i][1] = p.free_top;
        c.pool[i][2] = p.free_count;
        c.pool[i][3] = p.growths;
        c.pool_size[i][0] = p.slot.size();
        c.pool_size[i][1] = p.aux.size();
        c.pool_size[i][2] = p.next.size();
        c.hdr_size[i] = lists[i]->hdr.size();
    }
    const size_t sizes[7] = {vstatus_.size(), estatus_.size(), vwgt_.size(), ewgt_.size(),
                             part_.size(),    lambda_.size(),  phi_dense_.size()};
    std::copy(sizes, sizes + 7, c.sizes);
    if (store_) store_->begin();
    undo_.open();
    journal(&undo_);
}

void DynamicHypergraph::commit_batch() {
    undo_.clear();
    journal(nullptr);
    if (store_) store_->commit();
}

void DynamicHypergraph::rollback_batch() {
    if (!undo_.on()) throw std::logic_error("no transaction is open");
    journal(nullptr);
    undo_.undo();  // elements first: some lie in the grown parts cut off below
    const Checkpoint &c = saved_;
    int64_t *scalars[12] = {&n_ids_,  &m_ids_,  &total_w_,     &cut_,         &km1_,     &live_v_,
                            &live_e_, &pins_,   &vid_growths_, &eid_growths_, &batches_, &records_};
    for (int i = 0; i < 12; ++i) *scalars[i] = c.scalars[i];
    BucketLists *lists[3] = {&vnets_, &epins_, &phis_};
    for (int i = 0; i < 3; ++i) {
        BucketPool &p = lists[i]->pool;
        p.used = c.pool[i][0];
        p.free_top = c.pool[i][1];
        p.free_count = c.pool[i][2];
        p.growths = c.pool[i][3];
        p.slot.resize(c.pool_size[i][0]);
        p.aux.resize(c.pool_size[i][1]);
        p.next.resize(c.pool_size[i][2]);
        lists[i]->hdr.resize(c.hdr_size[i]);
    }
    vstatus_.resize(c.sizes[0]);
    estatus_.resize(c.sizes[1]);
    vwgt_.resize(c.sizes[2]);
    ewgt_.resize(c.sizes[3]);
    part_.resize(c.sizes[4]);
    lambda_.resize(c.sizes[5]);
    phi_dense_.resize(c.sizes[6]);
    if (store_) store_->rollback();
}

// -------------------------------------------------------------------------------- queries

std::vector<int32_t> DynamicHypergraph::nets_of(int32_t v) const {
    std::vector<int32_t> out;
    out.reserve(static_cast<size_t>(vnets_.hdr[v].size));
    vnets_.for_each(v, [&](int32_t e, int64_t) { out.push_back(e); });
    return out;
}

std::vector<int32_t> DynamicHypergraph::pins_of(int32_t e) const {
    std::vector<int32_t> out;
    out.reserve(static_cast<size_t>(epins_.hdr[e].size));
    epins_.for_each(e, [&](int32_t v, int64_t) { out.push_back(v); });
    return out;
}

DynamicHypergraph::Compact DynamicHypergraph::compact() const {
    Compact c;
    std::vector<int32_t> dense(static_cast<size_t>(n_ids_), -1);
    for (int64_t v = 0; v < n_ids_; ++v)
        if (vstatus_[v]) {
            dense[v] = static_cast<int32_t>(c.vertex_ids.size());
            c.vertex_ids.push_back(static_cast<int32_t>(v));
            c.vwgt.push_back(vwgt_[v]);
            c.parts.push_back(part_[v]);
        }
    c.eptr.reserve(static_cast<size_t>(live_e_ + 1));
    c.eptr.push_back(0);
    c.eind.reserve(static_cast<size_t>(pins_));
    for (int64_t e = 0; e < m_ids_; ++e)
        if (estatus_[e]) {
            c.net_ids.push_back(static_cast<int32_t>(e));
            c.ewgt.push_back(ewgt_[e]);
            epins_.for_each(static_cast<int32_t>(e),
                            [&](int32_t v, int64_t) { c.eind.push_back(dense[v]); });
            c.eptr.push_back(static_cast<int64_t>(c.eind.size()));
        }
    return c;
}

void DynamicHypergraph::attach_store(const HostStoreOptions &opt) {
    auto csr = [](const BucketLists &l, int64_t ids, std::vector<int64_t> &ptr,
                  std::vector<int32_t> &ind) {
        ptr.assign(1, 0);
        for (int64_t id = 0; id < ids; ++id) {
            l.for_each(static_cast<int32_t>(id), [&](int32_t x, int64_t) { ind.push_back(x); });
            ptr.push_back(static_cast<int64_t>(ind.size()));
        }
    };
    std::vector<int64_t> vptr, eptr;
    std::vector<int32_t> vind, eind;
    csr(vnets_, n_ids_, vptr, vind);
    csr(epins_, m_ids_, eptr, eind);
    auto store = std::make_unique<HostStore>(opt);
    store->build(vptr.data(), vind.data(), n_ids_, eptr.data(), eind.data(), m_ids_);
    store_ = std::move(store);
}

// --------------------------------------------------------------------------- consistency

namespace {

void require(bool ok, const std::string &what) {
    if (!ok) throw std::logic_error("dynamic hypergraph inconsistent: " + what);
}

// Every bucket of the pool is in exactly one chain or in the free stack, and list sizes match.
void check_lists(const BucketLists &l, int64_t ids, const std::string &name) {
    const BucketPool &p = l.pool;
    std::vector<int8_t> owner(static_cast<size_t>(p.capacity()), 0);
    for (int64_t id = 0; id < ids; ++id) {
        int32_t nb = 0, occupied = 0;
        int64_t last = -1;
        for (int64_t b = l.hdr[id].head; b != -1; b = p.next[b]) {
            require(b < p.used && !owner[b], name + ": bucket " + std::to_string(b) + " reused");
            owner[b] = 1;
            ++nb;
            last = b;
            occupied += bucket_count(p.slot.data() + b * p.width, p.width);
        }
        require(nb == l.hdr[id].nbuckets && last == l.hdr[id].tail,
                name + ": chain of " + std::to_string(id) + " disagrees with its header");
        require(occupied == l.hdr[id].size, name + ": size of " + std::to_string(id) + " is wrong");
    }
    int64_t nfree = 0;
    for (int64_t b = p.free_top; b != -1; b = p.next[b]) {
        require(b < p.used && !owner[b], name + ": free bucket " + std::to_string(b) + " reused");
        require(bucket_count(p.slot.data() + b * p.width, p.width) == 0,
                name + ": free bucket " + std::to_string(b) + " is not empty");
        owner[b] = 1;
        ++nfree;
    }
    require(nfree == p.free_count, name + ": free count is wrong");
    for (int64_t b = 0; b < p.used; ++b)
        require(owner[b], name + ": bucket " + std::to_string(b) + " is lost");
}

}  // namespace

void DynamicHypergraph::check() const {
    check_lists(vnets_, n_ids_, "vertex lists");
    check_lists(epins_, m_ids_, "net lists");
    if (opt_.sparse_phi) check_lists(phis_, m_ids_, "phi lists");
    std::vector<int64_t> bw(static_cast<size_t>(k_), 0);
    int64_t total = 0, nv = 0, ne = 0, pins = 0, cut = 0, km1 = 0;
    for (int64_t v = 0; v < n_ids_; ++v) {
        const int32_t vv = static_cast<int32_t>(v);
        if (!vstatus_[v]) {
            require(vnets_.hdr[v].size == 0 && part_[v] == -1 && vwgt_[v] == 0,
                    "deleted vertex " + std::to_string(v) + " has pins, a block or a weight");
            continue;
        }
        ++nv;
        require(part_[v] >= 0 && part_[v] < k_, "vertex " + std::to_string(v) + " has no block");
        bw[part_[v]] += vwgt_[v];
        total += vwgt_[v];
        vnets_.for_each(vv, [&](int32_t e, int64_t) {
            require(net_alive(e) && epins_.find(e, vv) >= 0,
                    "vertex " + std::to_string(v) + " lists net " + std::to_string(e) +
                        " which does not list it");
        });
    }
    std::vector<int32_t> count(static_cast<size_t>(k_), 0);
    for (int64_t e = 0; e < m_ids_; ++e) {
        const int32_t ee = static_cast<int32_t>(e);
        if (!estatus_[e]) {
            require(epins_.hdr[e].size == 0 && lambda_[e] == 0 && ewgt_[e] == 0,
                    "deleted net " + std::to_string(e) + " has pins or a weight");
            continue;
        }
        ++ne;
        pins += epins_.hdr[e].size;
        std::fill(count.begin(), count.end(), 0);
        epins_.for_each(ee, [&](int32_t v, int64_t) {
            require(vertex_alive(v) && vnets_.find(v, ee) >= 0,
                    "net " + std::to_string(e) + " lists pin " + std::to_string(v) +
                        " which does not list it");
            ++count[part_[v]];
        });
        int32_t l = 0, entries = 0;
        for (int32_t b = 0; b < k_; ++b) {
            l += count[b] > 0;
            entries += count[b] > 0;
            require(phi(ee, b) == count[b], "Phi(" + std::to_string(e) + ", " +
                                                std::to_string(b) + ") is wrong");
        }
        if (opt_.sparse_phi)
            require(phis_.hdr[e].size == entries, "phi list of net " + std::to_string(e));
        require(lambda_[e] == l, "lambda of net " + std::to_string(e) + " is wrong");
        cut += cut_term(l, ewgt_[e]);
        km1 += km1_term(l, ewgt_[e]);
    }
    require(bw == bw_ && total == total_w_, "block weights are wrong");
    require(nv == live_v_ && ne == live_e_ && pins == pins_, "live counts are wrong");
    require(cut == cut_ && km1 == km1_, "cut or km1 is wrong");
    for (const auto *ids : {&vfree_, &efree_}) {
        const bool vertex = ids == &vfree_;
        std::vector<int32_t> s(*ids);
        std::sort(s.begin(), s.end());
        require(std::adjacent_find(s.begin(), s.end()) == s.end(), "free id listed twice");
        for (int32_t x : s)
            require(vertex ? (x < n_ids_ && !vstatus_[x]) : (x < m_ids_ && !estatus_[x]),
                    "free id " + std::to_string(x) + " is in use");
    }
    if (store_) {
        // the store holds the lists' entries in the lists' order
        const std::pair<const BucketLists *, const PmaRows *> pairs[] = {
            {&vnets_, &store_->vertex_rows()}, {&epins_, &store_->net_rows()}};
        for (const auto &[lists, rows] : pairs) {
            const std::string what = lists == &vnets_ ? "vertex " : "net ";
            rows->check();
            require(rows->rows() >= (lists == &vnets_ ? n_ids_ : m_ids_), "host store lacks rows");
            for (int64_t id = 0; id < (lists == &vnets_ ? n_ids_ : m_ids_); ++id) {
                std::vector<int32_t> a;
                lists->for_each(static_cast<int32_t>(id), [&](int32_t x, int64_t) {
                    a.push_back(x);
                });
                require(a == rows->row(static_cast<int32_t>(id)),
                        "host store row of " + what + std::to_string(id) + " differs");
            }
        }
        require(store_->cache().hot_bytes() <= store_->cache().budget(),
                "hot rows exceed the cache budget");
    }
    int64_t dead_v = n_ids_ - live_v_, dead_e = m_ids_ - live_e_;
    require(dead_v == static_cast<int64_t>(vfree_.size()) &&
                dead_e == static_cast<int64_t>(efree_.size()),
            "a deleted id is missing from the free stacks");
}

}  // namespace igp
