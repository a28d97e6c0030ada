"""Dynamic hypergraph of the incremental engine (DESIGN §4), with a maintained k-way partition.

``DynamicHypergraph`` holds a hypergraph that changes in batches, in iG-kway's bucket-list form
generalised to hypergraphs (the nets of each vertex and the pins of each net in chains of 32-slot
buckets, spare buckets per list, pools that grow geometrically), together with a k-way partition
whose per-net block pin counts Phi(e, b), block weights, cut and km1 are updated in time
proportional to each change. The structure lives in a backend: ``backend="cpu"`` (C++, the
default) or ``backend="gpu"`` (CUDA through CuPy: records applied by GPU kernels, warp per record
with ballot/ffs slot search; see igpart/kernels/gpu/_dynamic.py); this module only moves arrays in
and out of it. On the GPU, ``BatchResult.touched_vertices`` / ``touched_nets`` are CuPy arrays
(they stay on the device, where refinement uses them) and Phi is always dense.

Changes come in a :class:`Batch`: columnar records ``op`` (int8) and three int64 argument
columns ``a, b, c``:

========================  =========  ========  ==========================================
op                        a          b         notes
========================  =========  ========  ==========================================
``insert_vertex`` (0)     weight     block     block -1: the lightest block
``delete_vertex`` (1)     vertex     0         the vertex must have no pins left
``insert_net`` (2)        weight     0         the net starts empty
``delete_net`` (3)        net        0         the net must have no pins left
``insert_pin`` (4)        vertex     net       the vertex joins the net (not yet a pin)
``delete_pin`` (5)        vertex     net       the vertex leaves the net (must be a pin)
``set_vertex_weight`` (6) vertex     weight
``set_net_weight`` (7)    net        weight
========================  =========  ========  ==========================================

Column ``c`` is reserved and must be 0. Records apply in order; an id argument may be a
*reference* ``-(r + 1)`` to the vertex or net created by an earlier record ``r`` of the same batch
(``Batch.insert_vertex`` and ``Batch.insert_net`` return it). Deletion follows TAU 2015: a gate
is removed after its pins were disconnected, a net after it lost its pins; the batch says so with
``delete_pin`` records first.

A batch is validated completely before anything changes: an invalid record raises
:class:`~igpart.errors.BatchError` naming the record, and the structure stays byte-identical.
Besides each record's own checks, vertex weights whose total (and so some block weight) would
pass 2**63 - 1 are refused (:func:`vertex_weight_overflow`), and so are net weights whose total,
or whose total times net sizes (the bound on cut and km1 a Hypergraph is built under), would
(:func:`net_weight_overflow`); both on the host, for both backends, at any record of the batch.

Ids. A deleted id stays dead for the rest of its batch; after the batch the freed ids are pushed
on a free stack in record order, and new vertices (nets) take the id on top of that stack (the one
freed last), else the next id after the highest ever used. ``BatchResult.created`` reports the id
each record created.

New vertices go to the block given in the record, or to the lightest block (lowest id among
equals) at the time the record applies: if any block can take the vertex without breaking the
balance bound, the lightest one can. Incremental refinement moves them later.

Memory: every list has ceil(D / 32) + gamma buckets of 128 bytes at build (about 560 MiB for
the 1M-cell ``random_circuit`` with gamma = 1). Block pin counts Phi are dense (4k bytes per net;
the default up to k = DENSE_PHI_MAX_K, 128 bytes per net there) or sparse (per net a chain of
8-entry buckets of (block, count) pairs: about 100 bytes per net while lambda_e <= 8, whatever k).

Memory budget (DESIGN §10): with ``memory_budget`` the C++ structure also keeps its adjacency in
a host store, two packed-memory-array CSRs (vertex -> nets, net -> pins; rows with gaps, windows
rebalanced on overflow: igpart/kernels/cpu/pma.h), and reads it from there, in the same order as
the bucket lists, so results are the same. Every read is recorded by the hot-subgraph cache
policy (igpart/kernels/cpu/hot_cache.h): per row its reads over a sliding window of ``cache_tau``
+ 1 batches, the hottest rows kept in a device cache of ``memory_budget`` minus the device's
fixed per-vertex and per-net state (``igpart.kernels.budget.dynamic_minimum``; a smaller budget
raises InputError naming that minimum); cold rows read during a batch are staged in the cache's
free room for the rest of the batch, so that the refinement's repeated reads of a region cost
one transfer. :meth:`DynamicHypergraph.end_batch` closes a batch and
reports the bytes that would move host -> device: hits in the cache cost nothing, reads of cold
rows are zero-copy reads of their bytes, rows entering the cache or changed while in it are
loaded. The GPU structure under a budget below its estimated footprint (:func:`device_footprint`)
keeps its bucket pools, the adjacency, in page-locked host memory that its kernels read over the
bus (zero-copy, no cache; the same kernels and results); when even the rest does not fit, every
per-vertex and per-net array goes there too (the device keeps the batch buffers and block
weights; a budget below those is refused naming the minimum).

Graphs: :meth:`DynamicHypergraph.from_graph` stores each edge as a 2-pin net (net ``i`` is edge
``i`` of :meth:`Graph.edge_list`), so that cut and km1 both equal the edge cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from .errors import BackendUnavailable, BatchError, InputError
from .hypergraph import Graph, Hypergraph
from .kernels import budget as _budget
from .kernels import get_backend
from .kernels.backend import Backend
from .metrics import check_parts

#: With ``phi="auto"``, block pin counts are a dense m x k matrix up to this k, else sparse lists.
DENSE_PHI_MAX_K = 32


class Op(IntEnum):
    """Operation codes of change records (the same codes in C++: kernels/common/changes.h)."""

    INSERT_VERTEX = 0
    DELETE_VERTEX = 1
    INSERT_NET = 2
    DELETE_NET = 3
    INSERT_PIN = 4
    DELETE_PIN = 5
    SET_VERTEX_WEIGHT = 6
    SET_NET_WEIGHT = 7


#: Names of the a and b arguments of each op, for messages.
_ARG_NAMES = {
    Op.INSERT_VERTEX: ("weight", "block"),
    Op.DELETE_VERTEX: ("vertex",),
    Op.INSERT_NET: ("weight",),
    Op.DELETE_NET: ("net",),
    Op.INSERT_PIN: ("vertex", "net"),
    Op.DELETE_PIN: ("vertex", "net"),
    Op.SET_VERTEX_WEIGHT: ("vertex", "weight"),
    Op.SET_NET_WEIGHT: ("net", "weight"),
}


def ref(record: int) -> int:
    """The reference an id argument uses for the entity created by ``record`` of its batch."""
    return -(int(record) + 1)


class Batch:
    """A batch of change records in columnar form (``ops`` int8, ``args`` int64 of shape (3, N)).

    Build it record by record with the methods below (each returns the record's index, or for
    inserts the reference to the new entity), or from arrays with :meth:`from_arrays`.

    >>> b = Batch()
    >>> v = b.insert_vertex(weight=2)
    >>> e = b.insert_net()
    >>> _ = b.insert_pin(v, e)
    >>> len(b), v, e
    (3, -1, -2)
    """

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, int, int]] = []
        self._ops = np.zeros(0, dtype=np.int8)
        self._args = np.zeros((3, 0), dtype=np.int64)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, ops, a, b=None, c=None) -> Batch:
        """A batch from columns: op codes and the a (and optionally b, c) arguments."""
        ops = np.asarray(ops)
        n = ops.shape[0] if ops.ndim == 1 else -1
        cols = []
        for name, col in (("a", a), ("b", b), ("c", c)):
            col = np.zeros(max(n, 0), dtype=np.int64) if col is None else np.asarray(col)
            if ops.ndim != 1 or col.ndim != 1 or col.shape[0] != n:
                raise InputError(f"op codes and argument column {name} must be 1-D of one length")
            if col.size and col.dtype.kind not in "iu":
                raise InputError(f"argument column {name} must hold integers, not {col.dtype}")
            cols.append(col.astype(np.int64, copy=False))
        if ops.size and ops.dtype.kind not in "iu":
            raise InputError(f"op codes must be integers, not {ops.dtype}")
        bad = np.flatnonzero((ops < 0) | (ops >= len(Op)))
        if bad.size:
            i = int(bad[0])
            raise BatchError(
                i,
                f"op {int(ops[i])}",
                tuple(int(x[i]) for x in cols),
                f"unknown op code {int(ops[i])} (valid codes are 0..{len(Op) - 1})",
            )
        batch = cls()
        batch._ops = ops.astype(np.int8)
        batch._args = np.ascontiguousarray(np.stack(cols))
        return batch

    def _add(self, op: Op, a: int, b: int = 0) -> int:
        self._rows.append((int(op), int(a), int(b), 0))
        return len(self) - 1

    def insert_vertex(self, weight: int = 1, block: int = -1) -> int:
        """A new vertex (block -1: the lightest block); returns its reference."""
        return ref(self._add(Op.INSERT_VERTEX, weight, block))

    def delete_vertex(self, v: int) -> int:
        return self._add(Op.DELETE_VERTEX, v)

    def insert_net(self, weight: int = 1) -> int:
        """A new, empty net; returns its reference."""
        return ref(self._add(Op.INSERT_NET, weight))

    def delete_net(self, e: int) -> int:
        return self._add(Op.DELETE_NET, e)

    def insert_pin(self, v: int, e: int) -> int:
        return self._add(Op.INSERT_PIN, v, e)

    def delete_pin(self, v: int, e: int) -> int:
        return self._add(Op.DELETE_PIN, v, e)

    def set_vertex_weight(self, v: int, weight: int) -> int:
        return self._add(Op.SET_VERTEX_WEIGHT, v, weight)

    def set_net_weight(self, e: int, weight: int) -> int:
        return self._add(Op.SET_NET_WEIGHT, e, weight)

    def extend(self, other: Batch) -> Batch:
        """Appends the records of ``other``, shifting its references so they stay valid."""
        ops, args = other.ops, other.args.copy()
        holds_id = (
            np.isin(ops, [Op.DELETE_VERTEX, Op.DELETE_NET, Op.INSERT_PIN, Op.DELETE_PIN,
                          Op.SET_VERTEX_WEIGHT, Op.SET_NET_WEIGHT]),
            np.isin(ops, [Op.INSERT_PIN, Op.DELETE_PIN]),
        )  # fmt: skip
        for col, mask in enumerate(holds_id):
            args[col, mask & (args[col] < 0)] -= len(self)
        self._ops = np.concatenate([self.ops, ops])
        self._args = np.ascontiguousarray(np.concatenate([self.args, args], axis=1))
        return self

    # ------------------------------------------------------------------ access
    def _flush(self) -> None:
        if self._rows:
            rows = np.array(self._rows, dtype=np.int64).reshape(-1, 4)
            self._ops = np.concatenate([self._ops, rows[:, 0].astype(np.int8)])
            self._args = np.ascontiguousarray(np.concatenate([self._args, rows[:, 1:].T], axis=1))
            self._rows = []

    @property
    def ops(self) -> np.ndarray:
        """Op codes (int8, N)."""
        self._flush()
        return self._ops

    @property
    def args(self) -> np.ndarray:
        """Arguments (int64, shape (3, N)): rows a, b, c."""
        self._flush()
        return self._args

    def __len__(self) -> int:
        return self._ops.shape[0] + len(self._rows)

    def record(self, i: int) -> tuple[Op, int, int, int]:
        """Record ``i`` as (op, a, b, c)."""
        ops, args = self.ops, self.args
        return Op(int(ops[i])), int(args[0, i]), int(args[1, i]), int(args[2, i])

    def describe(self, i: int) -> str:
        """Record ``i`` in words, e.g. ``delete_pin vertex=5 net=7``."""
        op, *vals = self.record(i)
        names = _ARG_NAMES[op]
        parts = [f"{name}={val}" for name, val in zip(names, vals)]
        parts += [f"{name}={val}" for name, val in zip("bc", vals[len(names) :]) if val != 0]
        return " ".join([op.name.lower(), *parts])

    def __repr__(self) -> str:
        return f"Batch({len(self)} records)"


@dataclass(frozen=True)
class BatchResult:
    """What a batch did. ``created[r]`` is the id record ``r`` created (-1 for other records);
    ``touched_vertices`` / ``touched_nets`` are the live vertices / nets that are new or whose pins
    or weight changed (ascending) — the seeds of incremental refinement."""

    created: np.ndarray
    touched_vertices: np.ndarray
    touched_nets: np.ndarray
    ops: np.ndarray

    @property
    def new_vertices(self) -> np.ndarray:
        """Ids of the inserted vertices, in record order."""
        return self.created[self.ops == Op.INSERT_VERTEX]

    @property
    def new_nets(self) -> np.ndarray:
        """Ids of the inserted nets, in record order."""
        return self.created[self.ops == Op.INSERT_NET]

    def id_of(self, reference: int) -> int:
        """The id behind a reference returned by ``Batch.insert_vertex`` / ``insert_net``."""
        return int(self.created[-int(reference) - 1])


@dataclass(frozen=True)
class Snapshot:
    """A compact, immutable copy of the live hypergraph: dense vertex ``i`` is dynamic vertex
    ``vertex_ids[i]``, dense net ``j`` is dynamic net ``net_ids[j]`` (both ascending)."""

    hypergraph: Hypergraph
    parts: np.ndarray
    vertex_ids: np.ndarray
    net_ids: np.ndarray


INT64_MAX = 2**63 - 1


#: the (insert, set weight, delete) op codes of vertices and of nets (plain ints: numpy compares
#: an array with an IntEnum member several times slower)
_VERTEX_CODES = (int(Op.INSERT_VERTEX), int(Op.SET_VERTEX_WEIGHT), int(Op.DELETE_VERTEX))
_NET_CODES = (int(Op.INSERT_NET), int(Op.SET_NET_WEIGHT), int(Op.DELETE_NET))


def _running_deltas(ops, args, codes, weights, sizes=None):
    """Per record of a batch, the change it makes to the total weight of the live entities of
    one kind (vertices or nets) and, with ``sizes``, to their total of weight x size (the net
    size changing with ``insert_pin`` / ``delete_pin``): two object arrays (Python integers).

    ``codes``: the (insert, set weight, delete) op codes of the kind; ``weights`` / ``sizes``:
    the stored weight and size of every id now. Records are taken in order: an insert adds its
    weight (argument a), a set replaces the weight (argument b) the entity had (the last one
    this batch gave it, else the stored one), a delete sets it to 0; the entity a record acts on
    is its id argument or the reference -(r + 1) of insert record r. Records the validator will
    reject count as the arithmetic says."""
    ins, setw, dele = (ops == c for c in codes)
    pin_in = (ops == int(Op.INSERT_PIN)) if sizes is not None else np.zeros(ops.shape, bool)
    pin_out = (ops == int(Op.DELETE_PIN)) if sizes is not None else np.zeros(ops.shape, bool)
    new = np.where(ins, args[0], np.where(setw, args[1], 0))
    new = np.where(ins | setw, np.maximum(new, 0), 0)
    rec = np.flatnonzero(ins | setw | dele | pin_in | pin_out)
    zero = np.zeros(ops.shape[0], dtype=object)
    if not rec.size:
        return zero, zero
    key = np.where(
        ins[rec],
        -(rec.astype(np.int64) + 1),
        np.where(pin_in[rec] | pin_out[rec], args[1][rec], args[0][rec]),
    )
    order = np.lexsort((rec, key))
    ks, rs = key[order], rec[order]
    pos = np.arange(rs.size)
    start = np.maximum.accumulate(np.where(np.r_[True, ks[1:] != ks[:-1]], pos, 0))
    known = (ks >= 0) & (ks < weights.size)
    at = np.where(known, ks, 0)
    setter = ins[rs] | setw[rs] | dele[rs]
    last = np.r_[-1, np.maximum.accumulate(np.where(setter, pos, -1))[:-1]]
    stored_w = np.where(known, weights[at] if weights.size else 0, 0)
    cur = np.where(last >= start, new[rs][np.maximum(last, 0)], stored_w)  # weight before
    cur = np.where(ins[rs], 0, cur)  # an insert adds its weight
    change = (new[rs] - cur).astype(object)
    d_total = zero.copy()
    d_total[rs] = np.where(setter, change, 0)
    if sizes is None:
        return d_total, None
    step = np.where(pin_in[rs], 1, np.where(pin_out[rs], -1, 0))
    before = np.cumsum(step) - step  # pins added before each record, over the sorted records
    size = np.where(known, sizes[at] if sizes.size else 0, 0) + before - before[start]
    d_pins = zero.copy()
    d_pins[rs] = np.where(setter, change * size.astype(object),
                          np.where(pin_in[rs], cur, -cur).astype(object))  # fmt: skip
    return d_total, d_pins


def _first_past_int64(base: int, deltas: np.ndarray) -> int:
    """The first index at which ``base`` plus the running sum of ``deltas`` exceeds INT64_MAX,
    or -1."""
    over = np.flatnonzero(np.cumsum(deltas) + int(base) > INT64_MAX)
    return int(over[0]) if over.size else -1


def _exact_dot(w: np.ndarray, mult: np.ndarray | None = None) -> int:
    """The sum of ``w * mult`` (non-negative int64 arrays) as a Python integer: in int64 when
    a float estimate leaves a wide margin, else with Python integers."""
    if mult is None:
        mult = np.ones(1, dtype=np.int64)
    if float(np.dot(w.astype(np.float64), np.broadcast_to(mult, w.shape))) < 2.0**62:
        return int(np.dot(w, np.broadcast_to(mult, w.shape)))
    return int(np.dot(w.astype(object), np.broadcast_to(mult, w.shape).astype(object)))


def _largest_argument(args) -> int:
    """The largest a or b argument of a batch: a bound of every weight its records give (a
    cheap one: ids and blocks count too), so that the quick bounds cost one reduction."""
    return max(int(args[:2].max(initial=0)), 0)


def vertex_weight_overflow(ops: np.ndarray, args: np.ndarray, total: int, stored) -> int:
    """The first record of a batch after which the total vertex weight would exceed
    INT64_MAX (the block weights are at most the total), or -1; checked on the host before
    either structure applies anything, by both engines.

    ``total``: the total weight now; ``stored()``: the weight of every vertex id now (called
    only when a quick bound cannot rule an overflow out, i.e. when the batch's weights are
    near 2**63). Records are taken in order: ``insert_vertex`` adds its weight,
    ``set_vertex_weight`` replaces the vertex's weight (the last one this batch gave it, else
    the stored one), ``delete_vertex`` removes it. Records the validator will reject (unknown
    ids, bad references, negative weights) count as the arithmetic says and do not raise here;
    the validator names them (this check runs first, so a batch that has both an invalid
    record and an overflowing total is reported by its overflow)."""
    ops = np.asarray(ops)
    if not ops.shape[0]:
        return -1
    # quick bound: nothing a batch removes can raise the total, and no record adds more than
    # the largest argument (floats, generous margin)
    if float(total) + float(ops.shape[0]) * _largest_argument(args) < 2.0**62:
        return -1
    d_total, _ = _running_deltas(ops, args, _VERTEX_CODES, np.asarray(stored()))
    return _first_past_int64(total, d_total)


def net_weight_overflow(
    ops: np.ndarray, args: np.ndarray, weight_bound: int, nets: int, pins: int, stored
) -> int:
    """The first record of a batch after which the net weights of the live nets would sum to
    more than INT64_MAX, or their weights times net sizes would (the bound on km1 a
    :class:`Hypergraph` is built under; the cut is at most the plain sum), or -1; checked on
    the host before either structure applies anything, by both engines.

    ``weight_bound``: an upper bound of the live nets' weights now; ``nets``, ``pins``: the
    live nets and pins now; ``stored()``: (weight, size) of every net id now, 0 for dead ids
    (called only when a quick bound, every net as heavy as the heaviest, cannot rule an
    overflow out: weights near 2**62 / pins). Records are taken in order as in
    :func:`vertex_weight_overflow` (``insert_net``, ``set_net_weight``, ``delete_net``), and
    ``insert_pin`` / ``delete_pin`` add / remove their net's weight as it is at that record."""
    ops = np.asarray(ops)
    if not ops.shape[0]:
        return -1
    # quick bound: every net as heavy as the heaviest (now or given by the batch: at most its
    # largest argument), each record a new pin and a new net
    heaviest = float(max(int(weight_bound), _largest_argument(args)))
    grown = ops.shape[0] + max(int(pins), int(nets))
    if heaviest * grown < 2.0**62:
        return -1
    weights, sizes = (np.asarray(x, dtype=np.int64) for x in stored())
    d_total, d_pins = _running_deltas(ops, args, _NET_CODES, weights, sizes)
    hits = [_first_past_int64(_exact_dot(weights), d_total),
            _first_past_int64(_exact_dot(weights, sizes), d_pins)]  # fmt: skip
    return min((i for i in hits if i >= 0), default=-1)


class DynamicHypergraph:
    """A hypergraph that changes in batches, with a maintained k-way partition.

    Build it with :meth:`from_hypergraph` or :meth:`from_graph`.

    >>> h = Hypergraph.from_nets([[0, 1, 2], [2, 3]])
    >>> d = DynamicHypergraph.from_hypergraph(h, [0, 0, 1, 1], k=2)
    >>> d.cut, d.km1
    (1, 1)
    >>> b = Batch()
    >>> _ = b.delete_pin(2, 0)
    >>> _ = d.apply(b)
    >>> d.cut
    0
    """

    def __init__(self, impl, backend: Backend):
        self._impl = impl
        self.backend = backend
        #: an upper bound of the live nets' weights (raised by every batch, never lowered but by
        #: an exact look; None: not known yet), for the quick bound of net_weight_overflow
        self._net_weight_max: int | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_hypergraph(
        cls,
        h: Hypergraph,
        parts,
        k: int,
        epsilon: float = 0.03,
        *,
        gamma: int = 1,
        headroom: float = 0.1,
        growth: float = 2.0,
        phi: str = "auto",
        backend: str = "cpu",
        memory_budget: int | str | None = None,
        cache_tau: int = 3,
        cache_staging: bool = True,
    ) -> DynamicHypergraph:
        """Builds the structure from ``h`` and a k-way partition ``parts`` in one pass.

        ``gamma``: spare buckets per list (and the buckets a new vertex or net gets).
        ``headroom``: extra fraction of ids and buckets preallocated. ``growth``: capacity factor
        when a pool or an id range is exhausted. ``phi``: ``dense`` (an m x k matrix of int32),
        ``sparse`` (per net only its blocks: memory ~ sum of connectivities) or ``auto`` (dense
        up to k = DENSE_PHI_MAX_K). ``backend``: ``cpu`` or ``gpu`` (BackendUnavailable without
        a CUDA device). ``memory_budget``: device bytes (an int or e.g. ``"2GiB"``; None: no
        budget): the adjacency goes to a host store with a hot-row cache (see the module
        docstring); ``cache_tau``: the cache's sliding window, in batches before the current one
        (0 to 7); ``cache_staging``: cold rows read in a batch stay in the cache's free room for
        the rest of the batch (False: only the hot set chosen between batches, as Grapin).
        """
        if not isinstance(h, Hypergraph):
            raise InputError(f"expected a Hypergraph, got {type(h).__name__}")
        k = int(k)
        if k < 1:
            raise InputError(f"k must be at least 1, got {k}")
        if not epsilon >= 0:
            raise InputError(f"epsilon must be non-negative, got {epsilon}")
        if int(gamma) != gamma or gamma < 0:
            raise InputError(f"gamma must be a non-negative integer, got {gamma}")
        if not headroom >= 0:
            raise InputError(f"headroom must be non-negative, got {headroom}")
        if not growth > 1:
            raise InputError(f"growth must be greater than 1, got {growth}")
        if phi not in ("auto", "dense", "sparse"):
            raise InputError(f"phi must be 'auto', 'dense' or 'sparse', got '{phi}'")
        sparse = phi == "sparse" or (phi == "auto" and k > DENSE_PHI_MAX_K)
        extra = {}  # backend-specific options
        budget = None if memory_budget is None else _budget.parse_bytes(memory_budget)
        if int(cache_tau) != cache_tau or not 0 <= cache_tau <= 7:
            raise InputError(f"cache_tau must be an integer in [0, 7], got {cache_tau}")
        p = check_parts(parts, h.n, k)
        be = get_backend(backend)
        if be.name == "gpu":
            if phi == "sparse":
                raise InputError("the GPU backend keeps Phi dense: use phi='dense' or 'auto'")
            sparse = False
            budget = budget if budget is not None else getattr(be, "memory_budget", None)
            if budget is not None:
                extra = gpu_placement(h, k, budget, int(gamma), float(headroom))
        minimum = _budget.dynamic_minimum(h.n, h.m, k)
        if budget is not None and be.name == "cpu":
            _budget.require_dynamic_state(budget, h.n, h.m, k)
        impl = be.dynamic_hypergraph(
            h.eptr, h.eind, h.n, h.vwgt, h.ewgt, p, k, float(epsilon),
            gamma=int(gamma), headroom=float(headroom), growth=float(growth), sparse_phi=sparse,
            **extra,
        )  # fmt: skip
        if budget is not None and be.name == "cpu":
            impl.attach_store(budget - minimum, int(cache_tau), stage=bool(cache_staging))
        d = cls(impl, be)
        d._net_weight_max = int(h.ewgt.max(initial=0))
        return d

    @classmethod
    def from_graph(cls, g: Graph, parts, k: int, epsilon: float = 0.03, **options):
        """Builds the structure from a graph: edge ``i`` of ``g.edge_list()`` becomes 2-pin net
        ``i`` of the edge's weight. Options as in :meth:`from_hypergraph`."""
        if not isinstance(g, Graph):
            raise InputError(f"expected a Graph, got {type(g).__name__}")
        return cls.from_hypergraph(g.to_hypergraph(), parts, k, epsilon, **options)

    # ------------------------------------------------------------------ changes
    def apply(self, batch: Batch) -> BatchResult:
        """Validates ``batch`` completely, then applies its records in order.

        Raises :class:`~igpart.errors.BatchError` naming the first invalid record; the structure
        is then unchanged.
        """
        if not isinstance(batch, Batch):
            raise InputError(f"expected a Batch, got {type(batch).__name__}")
        ops, args = batch.ops, batch.args
        self._refuse_overflow(batch)
        try:
            created, touched_v, touched_e = self._impl.apply(ops, args)
        except self.backend.record_error as exc:
            index, reason = exc.args
            op, *vals = batch.record(index)
            text = batch.describe(index)
            raise BatchError(index, op.name.lower(), tuple(vals), reason, text) from None
        return BatchResult(created, touched_v, touched_e, ops)

    def _refuse_overflow(self, batch: Batch) -> None:
        """Raises BatchError at the first record after which a 64-bit total would overflow:
        the total vertex weight, the total net weight, or the km1 bound (net weights times net
        sizes); afterwards the bound of the net weights covers the batch's."""
        ops, args = batch.ops, batch.args
        if self._net_weight_max is None:
            self._net_weight_max = int(self._impl.net_weights().max(initial=0))
        looked = []

        def stored_nets():
            eptr, _, _, ewgt, _, _, net_ids = self._impl.compact()
            weights = np.zeros(self.net_bound, dtype=np.int64)
            sizes = np.zeros(self.net_bound, dtype=np.int64)
            weights[net_ids], sizes[net_ids] = ewgt, np.diff(eptr)
            looked.append(int(ewgt.max(initial=0)))
            return weights, sizes

        at_v = vertex_weight_overflow(ops, args, self.total_weight, self._impl.vertex_weights)
        at_n = net_weight_overflow(ops, args, self._net_weight_max, self.num_nets, self.num_pins,
                                   stored_nets)  # fmt: skip
        batch_max = _largest_argument(args)  # bounds the weights the batch gives
        self._net_weight_max = max(looked[0] if looked else self._net_weight_max, batch_max)
        if at_v < 0 and at_n < 0:
            return
        at = min(i for i in (at_v, at_n) if i >= 0)
        what = ("the total vertex weight would exceed 2**63 - 1 (block weights and totals are "
                "64-bit)" if at == at_v else
                "the net weights, or the net weights times net sizes (the bound of km1), would "
                "sum to more than 2**63 - 1 (cut and km1 are 64-bit)")  # fmt: skip
        op, *vals = batch.record(at)
        raise BatchError(at, op.name.lower(), tuple(vals), what, batch.describe(at))

    # ------------------------------------------------------------------ transactions
    def begin_batch(self) -> None:
        """Opens a transaction, so that :meth:`rollback_batch` restores the state as it is
        now, byte for byte: the C++ structure journals every change from now on (batches,
        moves; cost proportional to what changes; with a host store, the store is copied), the
        GPU structure copies its whole state (device to device) now."""
        self._impl.begin_batch()

    def commit_batch(self) -> None:
        """Closes the open transaction and keeps its changes."""
        self._impl.commit_batch()

    def rollback_batch(self) -> None:
        """Restores the state at :meth:`begin_batch` (structure, partition, metrics, counters,
        capacities) and closes the transaction."""
        self._impl.rollback_batch()

    @property
    def in_batch(self) -> bool:
        """Whether a transaction is open."""
        return bool(self._impl.in_batch)

    # ------------------------------------------------------------------ host store
    @property
    def has_store(self) -> bool:
        """Whether the adjacency lives in a host store with a cache policy (a memory budget)."""
        return bool(getattr(self._impl, "has_store", False))

    def end_batch(self) -> dict | None:
        """Closes a batch of the host store's cache policy (None without a store): refreshes the
        hot rows and returns the batch's figures: ``hits`` / ``hit_bytes`` (reads of cached
        rows), ``cold_reads`` / ``cold_bytes`` (zero-copy reads), ``loaded`` / ``load_bytes``
        (rows entering the cache), ``reloaded`` / ``reload_bytes`` (cached rows the batch
        changed), ``written`` / ``write_bytes`` (changes written through to cached rows),
        ``retained`` (rows kept in free room past the window), ``evicted``, ``hot_rows`` /
        ``hot_bytes`` (the cache after the refresh), ``moved_bytes`` (host -> device: cold +
        load + reload + write) and ``zero_copy_bytes`` (what reading every row zero-copy would
        have moved)."""
        return self._impl.end_batch() if self.has_store else None

    @property
    def store_stats(self) -> dict | None:
        """Layout figures of the host store (rows, capacity, rebalances per level, growths,
        host bytes) and of its cache (budget, hot rows and bytes), or None without a store."""
        return self._impl.store_stats() if self.has_store else None

    def store_row(self, kind: str, i: int) -> np.ndarray:
        """Row ``i`` of the host store: the nets of vertex i (``kind="vertex"``) or the pins of
        net i (``kind="net"``), in stored order."""
        if kind not in ("vertex", "net"):
            raise InputError(f"kind must be 'vertex' or 'net', got {kind!r}")
        if not self.has_store:
            raise InputError("this dynamic hypergraph has no host store (no memory budget)")
        return self._call(lambda x: self._impl.store_row(kind == "net", x), i)

    def refine(self, objective: str = "cut", **options) -> dict:
        """Incremental refinement of the vertices the batches since the last call touched or
        created (iG-kway Alg. 3 + 4, then local refinement); GPU backend (see
        ``GpuDynamicHypergraph.refine`` for the options and the figures returned)."""
        if not hasattr(self._impl, "refine"):
            name = self.backend.name
            raise BackendUnavailable(f"refine() of the dynamic structure needs the GPU, not {name}")
        return self._impl.refine(objective, **options)

    def move(self, vertices, blocks) -> tuple[int, int]:
        """Moves ``vertices[i]`` to ``blocks[i]`` (in order; all validated first); updates Phi,
        block weights, cut and km1, and returns the change of (cut, km1)."""
        vs = np.atleast_1d(np.asarray(vertices))
        bs = np.atleast_1d(np.asarray(blocks))
        if vs.ndim != 1 or vs.shape != bs.shape:
            raise InputError("vertices and blocks must be 1-D arrays of one length")
        for name, arr in (("vertex", vs), ("block", bs)):
            if arr.dtype == np.int32:
                continue
            if arr.size and arr.dtype.kind not in "iu":
                raise InputError(f"{name} ids must be integers, not {arr.dtype}")
            out = np.flatnonzero((arr < -(2**31)) | (arr >= 2**31))
            if out.size:
                i = int(out[0])
                raise BatchError(i, "move", (int(vs[i]), int(bs[i])), f"{name} id out of range")
        try:
            return self._impl.move(vs.astype(np.int32), bs.astype(np.int32))
        except self.backend.record_error as exc:
            i, reason = exc.args
            v, b = int(vs[i]), int(bs[i])
            text = f"move vertex={v} block={b}"
            raise BatchError(i, "move", (v, b), reason, text) from None

    # ------------------------------------------------------------------ partition state
    @property
    def k(self) -> int:
        return self._impl.k

    @property
    def epsilon(self) -> float:
        return self._impl.epsilon

    @property
    def cut(self) -> int:
        """Total weight of nets spanning more than one block."""
        return self._impl.cut

    @property
    def km1(self) -> int:
        """Sum of w_e * (lambda_e - 1) over nets."""
        return self._impl.km1

    @property
    def block_weights(self) -> np.ndarray:
        return self._impl.block_weights()

    @property
    def parts(self) -> np.ndarray:
        """Block of each vertex id below ``vertex_bound`` (-1 for deleted ids)."""
        return self._impl.parts()

    def blocks_of(self, vertices) -> np.ndarray:
        """Block of each given vertex id (-1 where the id is not a live vertex); costs time
        proportional to the number of ids, unlike :attr:`parts`."""
        ids = np.atleast_1d(np.asarray(vertices))
        if ids.size and ids.dtype.kind not in "iu":
            raise InputError(f"vertex ids must be integers, not {ids.dtype}")
        ids = np.where((ids >= 0) & (ids < 2**31), ids, -1).astype(np.int32)
        return self._impl.blocks_of(ids)

    @property
    def total_weight(self) -> int:
        return self._impl.total_weight

    @property
    def max_block_weight(self) -> int:
        """floor((1 + epsilon) * ceil(total weight / k)) for the current total weight."""
        return self._impl.max_block_weight

    @property
    def is_balanced(self) -> bool:
        return bool(self.block_weights.max(initial=0) <= self.max_block_weight)

    def metrics(self) -> dict:
        """The maintained metrics, keyed as in :func:`igpart.metrics.evaluate` (without soed)."""
        bw = self.block_weights
        perfect = -(-self.total_weight // self.k)
        bound = self.max_block_weight
        return {
            "cut": self.cut,
            "km1": self.km1,
            "block_weights": bw,
            "max_block_weight": bound,
            "imbalance": (float(bw.max()) / perfect - 1.0) if perfect else 0.0,
            "balanced": bool(bw.max(initial=0) <= bound),
        }

    def phi(self, e: int) -> np.ndarray:
        """Phi(e, b), the number of pins of net ``e`` in block b, for every block."""
        return self._impl.phi(int(e))

    @property
    def connectivity(self) -> np.ndarray:
        """lambda_e of each net id below ``net_bound`` (0 for deleted ids)."""
        return self._impl.connectivity()

    # ------------------------------------------------------------------ structure
    @property
    def num_vertices(self) -> int:
        """Live vertices."""
        return self._impl.num_vertices

    @property
    def num_nets(self) -> int:
        return self._impl.num_nets

    @property
    def num_pins(self) -> int:
        return self._impl.num_pins

    @property
    def vertex_bound(self) -> int:
        """Vertex ids in use are below this bound (deleted ids included)."""
        return self._impl.vertex_bound

    @property
    def net_bound(self) -> int:
        return self._impl.net_bound

    @property
    def vertex_alive(self) -> np.ndarray:
        """Whether each vertex id below ``vertex_bound`` is live (bool)."""
        return self._impl.vertex_status().astype(bool)

    @property
    def net_alive(self) -> np.ndarray:
        return self._impl.net_status().astype(bool)

    @property
    def vertex_weights(self) -> np.ndarray:
        """Weight of each vertex id below ``vertex_bound`` (0 for deleted ids)."""
        return self._impl.vertex_weights()

    @property
    def net_weights(self) -> np.ndarray:
        return self._impl.net_weights()

    def nets_of(self, v: int) -> np.ndarray:
        """Nets of live vertex ``v``, in bucket-slot order."""
        return self._call(self._impl.nets_of, v)

    def pins_of(self, e: int) -> np.ndarray:
        """Pins of live net ``e``, in bucket-slot order."""
        return self._call(self._impl.pins_of, e)

    @staticmethod
    def _call(fn, x):
        try:
            return fn(int(x))
        except ValueError as exc:
            raise InputError(str(exc)) from None

    def to_hypergraph(self) -> Snapshot:
        """A compact copy of the live part: vertices and nets renumbered densely in increasing
        id order, pins in bucket-slot order, with the id maps and the partition."""
        eptr, eind, vwgt, ewgt, parts, vertex_ids, net_ids = self._impl.compact()
        h = Hypergraph(eptr, eind, vertex_ids.size, vwgt, ewgt, check=False)
        return Snapshot(h, parts, vertex_ids, net_ids)

    @property
    def stats(self) -> dict:
        """Pool usage (capacity, used, free, growths per pool), id capacities and growths,
        free ids, batches and records applied."""
        s = self._impl.stats()
        s.update(gamma=self._impl.gamma, phi="sparse" if self._impl.sparse_phi else "dense")
        return s

    def dump_state(self) -> dict[str, np.ndarray]:
        """Copies of every array and counter of the structure, for exact comparisons."""
        return self._impl.dump()

    def check(self) -> None:
        """Recomputes all derived state from the incidence and raises on any inconsistency."""
        self._impl.check()

    def __repr__(self) -> str:
        return (
            f"DynamicHypergraph(n={self.num_vertices}, m={self.num_nets}, pins={self.num_pins}, "
            f"k={self.k}, cut={self.cut}, km1={self.km1})"
        )


def _footprint_parts(h: Hypergraph, k: int, gamma: int, headroom: float) -> tuple[int, int]:
    """(bucket pools, the rest): estimated device bytes of the GPU dynamic structure."""
    vdeg = np.diff(h.vptr)
    edeg = np.diff(h.eptr)
    buckets = int((-(-vdeg // 32)).sum() + (-(-edeg // 32)).sum()) + gamma * (h.n + h.m)
    ids = _budget.VERTEX_BYTES * h.n + (_budget.NET_BYTES + 4 * int(k)) * h.m
    return int(buckets * (128 + 8) * (1.0 + headroom)), int(ids * (1.0 + headroom))


def device_footprint(h: Hypergraph, k: int, gamma: int = 1, headroom: float = 0.1) -> int:
    """Estimated device bytes of the GPU dynamic structure built from ``h``: 128-byte buckets,
    ceil(D / 32) + gamma per list in both directions, per-id arrays and dense Phi, all with the
    ``headroom`` fraction preallocated."""
    return sum(_footprint_parts(h, k, gamma, headroom))


def gpu_placement(h: Hypergraph, k: int, budget: int, gamma: int = 1,
                  headroom: float = 0.1) -> dict:
    """Where the GPU structure keeps its arrays within ``budget`` (options of
    ``GpuDynamicHypergraph``): all on the device ({}) when its footprint fits; its bucket pools
    (the adjacency) in page-locked host memory, read over the bus, when the rest fits
    (``host_pools``); else every per-vertex and per-net array there too (``host_state``), the
    device keeping the batch buffers and block weights
    (:func:`igpart.kernels.budget.dynamic_host_state_minimum`). InputError naming the minimum
    when no placement fits."""
    pools, rest = _footprint_parts(h, k, gamma, headroom)
    if pools + rest <= budget:
        return {}
    if rest <= budget:
        return {"host_pools": True}
    what = (f"the GPU dynamic hypergraph of {h.n:,} vertices and {h.m:,} nets at k = {k} "
            "(with its state in host memory: the batch buffers and block weights)")  # fmt: skip
    _budget.require(budget, min(rest, _budget.dynamic_host_state_minimum(k)), what)
    return {"host_state": True}


__all__ = [
    "DENSE_PHI_MAX_K",
    "Batch",
    "BatchResult",
    "DynamicHypergraph",
    "Op",
    "device_footprint",
    "gpu_placement",
    "Snapshot",
    "net_weight_overflow",
    "ref",
    "vertex_weight_overflow",
]
