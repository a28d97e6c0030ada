// Dynamic hypergraph of the incremental engine (DESIGN §4; iG-kway §V.A-B generalised to
// hypergraphs) with an incrementally maintained k-way partition.
//
// Structure. Vertex ids and net ids are int32. Each vertex has a chain of 32-slot buckets listing
// its nets, each net a chain of 32-slot buckets listing its pins; an empty slot holds -1. Built
// from a CSR hypergraph, a list of D entries gets ceil(D / 32) + gamma contiguous buckets; when a
// list is full an insertion appends one bucket to its chain. Buckets come from preallocated pools
// that grow geometrically (factor `growth`) when a batch's worst case would not fit, so no change
// is ever dropped. Status arrays mark live and deleted ids.
//
// Ids. Deleting a vertex (net) marks its id free and returns all but gamma of its (empty) buckets
// to the pool. A freed id stays unusable for the rest of its batch; after the batch, freed ids are
// pushed on a free stack in record order. New ids are popped from that stack (the id freed last is
// reused first), and when it is empty taken from the end of the id range.
//
// Partition. part[v] (-1 for free ids), block weights, and per-net block pin counts Phi(e, b)
// with lambda_e = #{b : Phi(e, b) > 0}; cut and km1 are updated from the lambda transitions, so a
// change costs time proportional to itself. Phi is dense (an m x k int32 matrix) or sparse (per
// net a chain of 8-entry buckets of (block, count) pairs, memory proportional to sum lambda_e).
//
// Host store. Under a device memory budget a HostStore (host_store.h: packed-memory-array CSRs
// and the hot-subgraph cache policy) is attached: batches update it along with the bucket lists,
// and for_each_net / for_each_pin read from it (recording each read), in the same order.
//
// Batches are validated completely before anything changes (an invalid record raises RecordError
// and leaves the state untouched, byte for byte), then capacity for the batch's worst case is
// reserved, then the records are applied in order; applying cannot fail.
//
// Transactions. begin_batch() opens an undo journal: from then on every write to the state
// (apply, move, move_vertex) records the old value of what it overwrites, and rollback_batch()
// restores the state at begin_batch() byte for byte (sizes of grown arrays, counters and free
// stacks included), in time proportional to the writes; commit_batch() drops the journal. The
// host store, when attached, journals its own changes (HostStore::begin).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bucket.h"
#include "changes.h"
#include "connectivity.h"
#include "host_store.h"
#include "scratch_map.h"

namespace igp {

// Header of one chain: one 24-byte record, so that a list costs one cache line to open.
struct ListHeader {
    int64_t head = -1;     // first bucket, -1 when the chain is empty
    int64_t tail = -1;     // last bucket
    int32_t nbuckets = 0;  // buckets in the chain
    int32_t size = 0;      // occupied slots in the chain
};

// Undo journal of a transaction (see DynamicHypergraph::begin_batch): the old values of the
// elements written while it is open, in write order, and the free-stack operations.
class UndoLog {
   public:
    bool on() const { return on_; }
    // Records v[i] before it is overwritten (T: int8_t, int32_t or int64_t).
    template <class T>
    void save(std::vector<T> &v, int64_t i) {
        static_assert(sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8, "element width");
        if (on_)
            cells_.push_back({&v, i, static_cast<int64_t>(v[static_cast<size_t>(i)]),
                              static_cast<uint8_t>(sizeof(T))});
    }
    void save(std::vector<ListHeader> &v, int64_t i) {
        if (on_) headers_.push_back({&v, i, v[static_cast<size_t>(i)]});
    }
    // A value popped from a free stack (popped >= 0), or a push (popped = -1).
    void stack_op(std::vector<int32_t> &stack, int64_t popped) {
        if (on_) stacks_.push_back({&stack, popped});
    }
    void open() {
        clear();
        on_ = true;
    }
    void clear() {
        on_ = false;
        cells_.clear();
        headers_.clear();
        stacks_.clear();
    }
    // Restores every recorded element, newest first, and closes the journal.
    void undo();
    int64_t entries() const {
        return static_cast<int64_t>(cells_.size() + headers_.size() + stacks_.size());
    }

   private:
    struct Cell {
        void *array;  // a std::vector of int8_t, int32_t or int64_t (by width)
        int64_t index;
        int64_t old;
        uint8_t width;
    };
    struct Header {
        std::vector<ListHeader> *array;
        int64_t index;
        ListHeader old;
    };
    struct StackOp {
        std::vector<int32_t> *stack;
        int64_t popped;
    };
    bool on_ = false;
    std::vector<Cell> cells_;
    std::vector<Header> headers_;
    std::vector<StackOp> stacks_;
};

// A pool of fixed-width buckets. Buckets [0, used) have been handed out at least once; released
// buckets (always empty) form a stack linked through `next`, reused before the pool grows.
struct BucketPool {
    int width = IGP_BUCKET_SLOTS;
    double growth = 2.0;
    bool with_aux = false;
    std::vector<int32_t> slot;  // capacity * width; IGP_EMPTY_SLOT when empty
    std::vector<int32_t> aux;   // capacity * width payload (sparse Phi counts), 0 when empty
    std::vector<int64_t> next;  // capacity: next bucket of the chain or of the free stack, or -1
    int64_t used = 0;
    int64_t free_top = -1;
    int64_t free_count = 0;
    int64_t growths = 0;
    UndoLog *undo = nullptr;  // the owner's journal while a transaction is open

    void init(int width_, bool aux_, int64_t capacity, double growth_);
    int64_t capacity() const { return static_cast<int64_t>(next.size()); }
    // Buckets that can be handed out without growing.
    int64_t available() const { return capacity() - used + free_count; }
    // Grows (geometrically, at least to fit) so that `extra` allocations need no growth.
    void reserve(int64_t extra);
    // An empty bucket with next = -1: from the free stack, else the next never-used one.
    int64_t alloc();
    // Returns an empty bucket to the free stack.
    void release(int64_t b);
    // next[b] = value, journaled.
    void set_next(int64_t b, int64_t value) {
        if (undo) undo->save(next, b);
        next[b] = value;
    }
};

// One chain of buckets per id, all in one pool.
struct BucketLists {
    BucketPool pool;
    std::vector<ListHeader> hdr;

    int64_t ids() const { return static_cast<int64_t>(hdr.size()); }
    // hdr[id], journaled before the caller changes it.
    ListHeader &header(int32_t id) {
        if (pool.undo) pool.undo->save(hdr, id);
        return hdr[id];
    }
    void resize_ids(int64_t count);  // new ids get an empty chain
    void add_bucket(int32_t id);     // pool must have room (reserve first)
    // Flat slot index (bucket * width + slot) of `value` in the list of `id`, or -1.
    int64_t find(int32_t id, int32_t value) const;
    // Stores value in the first empty slot, appending a bucket when the list is full.
    int64_t insert(int32_t id, int32_t value);
    void erase_at(int32_t id, int64_t pos);
    // Keeps the first `keep` buckets of an (empty) list and releases the others, in chain order.
    void trim(int32_t id, int32_t keep);
    // f(value, flat slot index) for every occupied slot, in chain order.
    template <class F>
    void for_each(int32_t id, F &&f) const {
        const int w = pool.width;
        int32_t left = hdr[id].size;
        for (int64_t b = hdr[id].head; b != -1 && left > 0; b = pool.next[b]) {
            const int32_t *s = pool.slot.data() + b * w;
            for (int i = 0; i < w; ++i)
                if (s[i] != IGP_EMPTY_SLOT) {
                    f(s[i], b * w + i);
                    --left;
                }
        }
    }
};

struct DynOptions {
    int32_t gamma = 1;       // spare buckets per list at build; buckets a new entity gets
    double headroom = 0.1;   // extra fraction of ids and buckets preallocated at build
    double growth = 2.0;     // capacity factor when a pool or an id range grows
    bool sparse_phi = false; // Phi as per-net (block, count) lists instead of an m x k matrix
};

// An invalid change record: its index in the batch (or in the move list) and why.
struct RecordError : std::exception {
    int64_t index;
    std::string reason;
    RecordError(int64_t i, std::string r) : index(i), reason(std::move(r)) {}
    const char *what() const noexcept override { return reason.c_str(); }
};

struct BatchResult {
    std::vector<int64_t> created;     // per record: the id it created, -1 for other records
    std::vector<int32_t> touched_v;   // live vertices that are new or whose pins/weight changed
    std::vector<int32_t> touched_e;   // live nets that are new or whose pins/weight changed
};

// A validated record with its ids resolved.
struct ResolvedChange {
    int op;
    int32_t x;   // vertex or net id (the created id for inserts)
    int32_t y;   // net id of a pin record; block (-1: lightest) of insert_vertex
    int64_t w;   // weight
};

class DynamicHypergraph {
   public:
    // From a CSR hypergraph (m nets, n vertices, unique pins per net) and a k-way partition.
    DynamicHypergraph(const int64_t *eptr, const int32_t *eind, int64_t m, int64_t n,
                      const int64_t *vwgt, const int64_t *ewgt, const int32_t *parts, int32_t k,
                      double eps, const DynOptions &opt);

    // Validates, then applies a batch of `count` records (columns op, a, b, c).
    BatchResult apply(const int8_t *op, const int64_t *a, const int64_t *b, const int64_t *c,
                      int64_t count);
    // Moves vertices[i] to blocks[i] in order; returns the change of (cut, km1).
    std::pair<int64_t, int64_t> move(const int32_t *vertices, const int32_t *blocks,
                                     int64_t count);
    // Moves live vertex v to block `to` (caller guarantees both are valid): what refinement
    // calls per move, without move()'s validation.
    void move_vertex(int32_t v, int32_t to);

    // ----- transactions (see the file comment)
    void begin_batch();
    void commit_batch();
    void rollback_batch();
    bool in_batch() const { return undo_.on(); }
    int64_t journal_entries() const { return undo_.entries(); }

    // ----- queries
    int32_t k() const { return k_; }
    double epsilon() const { return eps_; }
    const DynOptions &options() const { return opt_; }
    int64_t vertex_bound() const { return n_ids_; }  // vertex ids are < vertex_bound()
    int64_t net_bound() const { return m_ids_; }
    int64_t num_vertices() const { return live_v_; }
    int64_t num_nets() const { return live_e_; }
    int64_t num_pins() const { return pins_; }
    int64_t cut() const { return cut_; }
    int64_t km1() const { return km1_; }
    int64_t total_weight() const { return total_w_; }
    int64_t max_block_weight() const { return igp::max_block_weight(total_w_, k_, eps_); }
    bool vertex_alive(int64_t v) const { return v >= 0 && v < n_ids_ && vstatus_[v]; }
    bool net_alive(int64_t e) const { return e >= 0 && e < m_ids_ && estatus_[e]; }
    const std::vector<int8_t> &vertex_status() const { return vstatus_; }
    const std::vector<int8_t> &net_status() const { return estatus_; }
    const std::vector<int32_t> &part() const { return part_; }
    const std::vector<int64_t> &vertex_weight() const { return vwgt_; }
    const std::vector<int64_t> &net_weight() const { return ewgt_; }
    const std::vector<int32_t> &lambda() const { return lambda_; }
    const std::vector<int64_t> &block_weight() const { return bw_; }
    std::vector<int32_t> nets_of(int32_t v) const;
    std::vector<int32_t> pins_of(int32_t e) const;
    int32_t phi(int32_t e, int32_t b) const;  // Phi(e, b)
    int32_t net_size(int32_t e) const { return epins_.hdr[e].size; }
    int32_t degree(int32_t v) const { return vnets_.hdr[v].size; }
    // f(net) for every net of vertex v, in bucket-slot order (from the host store when one is
    // attached: the same order).
    template <class F>
    void for_each_net(int32_t v, F &&f) const {
        if (store_)
            store_->for_each_net(v, f);
        else
            vnets_.for_each(v, [&](int32_t e, int64_t) { f(e); });
    }
    // f(pin) for every pin of net e, in bucket-slot order (or from the host store).
    template <class F>
    void for_each_pin(int32_t e, F &&f) const {
        if (store_)
            store_->for_each_pin(e, f);
        else
            epins_.for_each(e, [&](int32_t v, int64_t) { f(v); });
    }
    // Attaches a host store built from the current lists (replacing any store attached before).
    void attach_store(const HostStoreOptions &opt);
    // The attached host store, or nullptr.
    HostStore *store() const { return store_.get(); }
    // f(block, Phi(e, block)) for every block holding pins of net e.
    template <class F>
    void for_each_block(int32_t e, F &&f) const {
        if (!opt_.sparse_phi) {
            const int32_t *row = phi_dense_.data() + static_cast<int64_t>(e) * k_;
            for (int32_t b = 0; b < k_; ++b)
                if (row[b] > 0) f(b, row[b]);
        } else {
            phis_.for_each(e, [&](int32_t b, int64_t pos) { f(b, phis_.pool.aux[pos]); });
        }
    }
    const BucketLists &vertex_lists() const { return vnets_; }
    const BucketLists &net_lists() const { return epins_; }
    const BucketLists &phi_lists() const { return phis_; }
    const std::vector<int32_t> &free_vertex_ids() const { return vfree_; }
    const std::vector<int32_t> &free_net_ids() const { return efree_; }
    int64_t vertex_id_growths() const { return vid_growths_; }
    int64_t net_id_growths() const { return eid_growths_; }
    int64_t batches() const { return batches_; }
    int64_t records() const { return records_; }

    // Live vertices / nets in increasing id order, as a compact CSR hypergraph.
    struct Compact {
        std::vector<int64_t> eptr;
        std::vector<int32_t> eind;
        std::vector<int64_t> vwgt, ewgt;
        std::vector<int32_t> parts, vertex_ids, net_ids;
    };
    Compact compact() const;

    // Every array and counter of the state, for byte-for-byte comparisons: f(name, vector).
    template <class F>
    void visit_state(F &&f) const;

    // Recomputes everything derived (mirrored incidence, sizes, Phi, lambda, metrics, weights,
    // free lists, pool accounting) and throws std::logic_error naming the first inconsistency.
    void check() const;

   private:
    int32_t k_;
    double eps_;
    DynOptions opt_;
    int64_t n_ids_ = 0, m_ids_ = 0;  // id ranges in use
    std::vector<int8_t> vstatus_, estatus_;
    std::vector<int64_t> vwgt_, ewgt_;
    std::vector<int32_t> part_;
    std::vector<int32_t> lambda_;
    std::vector<int32_t> vfree_, efree_;  // free id stacks; the back is reused first
    BucketLists vnets_;                   // vertex -> nets
    BucketLists epins_;                   // net -> pins
    BucketLists phis_;                    // sparse Phi: net -> (block, count)
    std::vector<int32_t> phi_dense_;      // dense Phi: net * k + block
    std::vector<int64_t> bw_;
    std::unique_ptr<HostStore> store_;    // host store under a memory budget, else null
    int64_t total_w_ = 0, cut_ = 0, km1_ = 0;
    int64_t live_v_ = 0, live_e_ = 0, pins_ = 0;
    int64_t vid_growths_ = 0, eid_growths_ = 0;
    int64_t batches_ = 0, records_ = 0;

    // The open transaction: its journal and what begin_batch() saw.
    UndoLog undo_;
    struct Checkpoint {
        int64_t scalars[12];
        int64_t pool[3][4];    // used, free_top, free_count, growths per pool
        size_t pool_size[3][3];  // slot, aux, next
        size_t hdr_size[3];
        size_t sizes[7];       // vstatus, estatus, vwgt, ewgt, part, lambda, phi_dense
    } saved_;
    void journal(UndoLog *log);  // sets (or clears) the pools' journal pointer
    void save_vertex(int32_t v) {  // status, weight and block of v, journaled
        undo_.save(vstatus_, v);
        undo_.save(vwgt_, v);
        undo_.save(part_, v);
    }
    void save_net(int32_t e) {  // status, weight and lambda of e, journaled
        undo_.save(estatus_, e);
        undo_.save(ewgt_, e);
        undo_.save(lambda_, e);
    }

    // Scratch of validate(): what the batch changed so far (not part of the state).
    struct EntityDelta {
        int8_t status = -1;  // -1: unchanged, 0: deleted, 1: created in this batch
        int64_t size = 0;    // change of its list size
    };
    mutable ScratchMap<EntityDelta> ov_entities_;  // key: entity_key(vertex?, id)
    mutable ScratchMap<int8_t> ov_pins_;           // key: pin_key(v, e); 1 added, 0 removed

    std::vector<ResolvedChange> validate(const int8_t *op, const int64_t *a, const int64_t *b,
                                         const int64_t *c, int64_t count) const;
    void reserve_vertex_ids(int64_t bound);
    void reserve_net_ids(int64_t bound);
    int32_t take_vertex_id();
    int32_t take_net_id();
    void add_pin_count(int32_t e, int32_t block, int32_t delta);
    void set_lambda(int32_t e, int32_t lambda);
    void reserve_phi(int64_t increments);
};

template <class F>
void DynamicHypergraph::visit_state(F &&f) const {
    f("vertex_status", vstatus_);
    f("net_status", estatus_);
    f("vertex_weight", vwgt_);
    f("net_weight", ewgt_);
    f("part", part_);
    f("lambda", lambda_);
    f("free_vertex_ids", vfree_);
    f("free_net_ids", efree_);
    f("phi_dense", phi_dense_);
    f("block_weight", bw_);
    const std::pair<const char *, const BucketLists *> lists[] = {
        {"vertex_lists", &vnets_}, {"net_lists", &epins_}, {"phi_lists", &phis_}};
    for (const auto &[name, l] : lists) {
        const std::string p(name);
        std::vector<int64_t> headers;
        headers.reserve(l->hdr.size() * 4);
        for (const ListHeader &h : l->hdr)
            headers.insert(headers.end(), {h.head, h.tail, h.nbuckets, h.size});
        f(p + ".headers", headers);
        f(p + ".slot", l->pool.slot);
        f(p + ".aux", l->pool.aux);
        f(p + ".next", l->pool.next);
        f(p + ".counters", std::vector<int64_t>{l->pool.used, l->pool.free_top,
                                                 l->pool.free_count, l->pool.growths});
    }
    if (store_) {
        for (const auto &[name, rows] : {std::pair<const char *, const PmaRows *>{
                                             "store.vertex_rows", &store_->vertex_rows()},
                                         {"store.net_rows", &store_->net_rows()}}) {
            const std::string p(name);
            f(p + ".slots", rows->slots());
            f(p + ".starts", rows->starts());
            f(p + ".lengths", rows->lengths());
        }
        f("store.hot", store_->cache().hot_keys());
    }
    f("counters", std::vector<int64_t>{n_ids_, m_ids_, total_w_, cut_, km1_, live_v_, live_e_,
                                       pins_, vid_growths_, eid_growths_, batches_, records_});
}

}  // namespace igp
