"""Label propagation clustering and refinement of graphs as array operations (the device
implementation of ``Backend.cluster_graph_lp`` / ``lp_refine_graph``).

Synchronous label propagation, as the GPU graph partitioners run it: in a round every vertex of
a seeded slice chooses at once against the labels before the round, and the choices are then
admitted together by a vectorised rule, so a round is a fixed number of array operations:

* choice: gather ``(row, label[v], w)`` for every adjacency entry of the round's vertices, sort
  by the 64-bit key ``row << 32 | label``, sum each run (the weight from the vertex to each
  adjacent cluster or block), and take per row the run of highest sum, ties to the smaller
  seeded hash (:func:`tie_hash`), by a lexicographic sort;
* admission: movers sorted by (target, gain descending, hash); a segmented prefix sum of their
  weights admits them in that order while the target has room under its bound, so no bound is
  exceeded whatever the order of application.

Everything is written against an array module (``numpy`` or ``cupy``) passed in as ``xp``
through an :class:`ArrayOps`, so that the same code runs on the device and, with numpy, on the
host, where it is tested. No loop runs over vertices or edges: the Python loops are over rounds
and slices. The steps whose chain of array operations is long are :class:`ArrayOps` methods
(the choice, the afterburner's gains, the cut change, the tie hash, the rows' expansion): the
device runs each as one kernel (``util.cu``) with the same results. Sizes stay on the device
where the next step does not need them (masks instead of compactions, decisions applied by
``where``), so that a round reads few values back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_MASK32 = 0xFFFFFFFF
_NONE = -(1 << 62)  # a connection below every real one
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0x94D049BB133111EB)


class ArrayOps:
    """The array module and the operations whose fastest form differs between modules:
    ``add_at(out, idx, val)`` (``out[idx] += val`` with repeated indices accumulating, int64),
    ``block_weights(vwgt, parts, k)`` and ``best_per_row`` (a segmented argmax)."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp

    def add_at(self, out, idx, val) -> None:
        np.add.at(out, idx, val)

    def block_weights(self, vwgt, parts, k: int):
        out = self.xp.zeros(k, dtype=self.xp.int64)
        self.add_at(out, parts, vwgt)
        return out

    def best_per_row(self, row, primary, secondary, tie):
        """:func:`_best_per_row` (a lexicographic sort)."""
        return _best_per_row(self.xp, row, primary, secondary, tie)

    def lexsort(self, keys):
        """``xp.lexsort`` of the 1-D int64 arrays ``keys`` (the last is the primary key)."""
        return self.xp.lexsort(self.xp.stack(keys))

    def tie_hash(self, seed: int, a, b):
        """:func:`tie_hash` of the int64 arrays ``a`` and ``b``."""
        return tie_hash(self.xp, seed, a, b)

    def choose(self, g, rows, label, weight, bound, seed: int, balance: bool):
        """:func:`_choose`: per vertex of ``rows`` its best adjacent label other than its own
        with room, its connection to it and to its own label."""
        return _choose(self, g, rows, label, weight, bound, seed, balance)

    def afterburner_gains(self, g, parts, dest, prio, u, to):
        """:func:`_afterburner_gains`."""
        return _afterburner_gains(self, g, parts, dest, prio, u, to)

    def cut_change(self, g, parts, new, moving, u, to):
        """:func:`_cut_change`."""
        return _cut_change(self, g, parts, new, moving, u, to)

    def expand(self, xadj, rows):
        """:func:`_expand`: (index into ``rows`` of every CSR entry of the rows ``rows``, the
        entry's position), one host read of the entries' number."""
        return _expand(self.xp, xadj, rows)


def lexsort_by_stable_sorts(xp, keys, stable_argsort):
    """``lexsort(keys)`` as one stable sort per key, from the last-priority key on: radix sorts
    of plain arrays where the module's lexsort compares all keys per comparison."""
    order = stable_argsort(keys[0])
    for key in keys[1:]:
        order = order[stable_argsort(key[order])]
    return order


NUMPY_OPS = ArrayOps(np)


def check_arguments(what: str, iterations: int, sub_rounds: int) -> None:
    """Raises ValueError naming the bad argument of the stage ``what``."""
    if int(iterations) < 0:
        raise ValueError(f"{what}: iterations must be >= 0, got {iterations}")
    if int(sub_rounds) < 1:
        raise ValueError(f"{what}: sub_rounds must be >= 1, got {sub_rounds}")


def tie_hash(xp, seed: int, a, b):
    """A seeded 31-bit hash of the pairs ``(a[i], b[i])`` (int64 arrays; the same values on
    every array module): the tie-break of equal choices."""
    s = np.uint64(int(seed) % (1 << 64))
    x = (a.astype(xp.uint64) * _K1) ^ ((b.astype(xp.uint64) + s) * _K2)
    x ^= x >> np.uint64(31)
    x *= _K3
    x ^= x >> np.uint64(29)
    return (x >> np.uint64(33)).astype(xp.int64)


def _take(xp, mask, *arrays):
    """``a[mask]`` of each array, through one index array (one host read of its length)."""
    idx = xp.flatnonzero(mask)
    return tuple(a[idx] for a in arrays)


def _expand(xp, xadj, rows):
    """For the CSR rows ``rows``: (index into ``rows`` of every entry, the entry's position)."""
    start = xadj[rows]
    deg = xadj[rows + 1] - start
    ends = xp.cumsum(deg)
    total = int(ends[-1]) if rows.shape[0] else 0
    idx = xp.arange(total, dtype=xp.int64)
    r = xp.searchsorted(ends, idx, side="right")
    return r, start[r] + idx - (ends[r] - deg[r])


def _run_sums(xp, key, w):
    """For a sorted key array: (first key of each run, the sum of ``w`` over each run)."""
    n = key.shape[0]
    if n == 0:
        return key, w
    flag = xp.ones(n, dtype=xp.bool_)
    if n > 1:
        xp.not_equal(key[1:], key[:-1], out=flag[1:])
    starts = xp.flatnonzero(flag)
    cs = xp.cumsum(w)
    ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=starts.dtype)]) - 1
    before = cs[starts] - w[starts]
    return key[starts], cs[ends] - before


def _connections(ops: ArrayOps, g, rows, label):
    """The weight from each vertex of ``rows`` to each label among its neighbours: arrays
    (row index, label, weight), one entry per (row, label), sorted by row."""
    xp = ops.xp
    r, pos = ops.expand(g.xadj, rows)
    lab = label[g.adjncy[pos]]
    key = (r.astype(xp.int64) << 32) | lab.astype(xp.int64)
    order = xp.argsort(key)
    ukey, sums = _run_sums(xp, key[order], g.adjwgt[pos][order])
    return (ukey >> 32), (ukey & _MASK32).astype(xp.int32), sums


def _best_per_row(xp, row, primary, secondary, tie):
    """Index (into the arrays) of the best entry of each row present, in order of row: highest
    ``primary``, then smallest ``secondary`` (None: no such key), then smallest ``tie``, then
    the smaller index. ``row`` sorted ascending, int64 keys."""
    keys = [tie] + ([] if secondary is None else [secondary]) + [-primary, row]
    order = xp.lexsort(xp.stack(keys))
    srow = row[order]
    first = xp.ones(srow.shape[0], dtype=xp.bool_)
    if srow.shape[0] > 1:
        xp.not_equal(srow[1:], srow[:-1], out=first[1:])
    return order[first]


def _segment_prefix(xp, seg, w):
    """Inclusive prefix sums of ``w`` restarting where the sorted ``seg`` changes."""
    first = xp.searchsorted(seg, seg, side="left")  # each entry's segment start, no host read
    cs = xp.cumsum(w)
    return cs - (cs[first] - w[first])


def _admit(ops: ArrayOps, target, gain, tie, w, room):
    """``(order, ok)``: the moves in order of (target, gain descending, tie) and, in that
    order, whether each is admitted: per target while the summed weight of those admitted
    stays within ``room[target]``."""
    xp = ops.xp
    order = ops.lexsort([tie, -gain, target.astype(xp.int64)])
    t = target[order]
    return order, _segment_prefix(xp, t, w[order]) <= room[t]


#: Slices of a round on the device by default (``GpuBackend.default_graph_lp_sub_rounds``).
SUB_ROUNDS = 1

#: Rounds of the outflow credit in :func:`_admit_swaps` before it falls back to none.
CREDIT_ROUNDS = 3


def _admit_swaps(ops: ArrayOps, frm, target, gain, tie, w, bw, bounds, k: int):
    """Indices of the block moves admitted as :func:`_admit` admits, where a block's room also
    counts the weight that admitted moves take out of it (so full blocks can swap vertices).
    The outflow is that of the moves admitted in the round before; the set only shrinks, and
    at a fixed point every block ends within its bound. Without one after ``CREDIT_ROUNDS``
    rounds the credit is dropped (the plain rule on the set left, always safe)."""
    xp = ops.xp
    if target.shape[0] == 0:
        return target.astype(xp.int64)
    order = ops.lexsort([tie, -gain, target.astype(xp.int64)])
    t, f, ws = target[order], frm[order], w[order]
    keep = xp.ones(t.shape[0], dtype=xp.bool_)
    # the rounds run on the device without a host read: once at a fixed point, a round keeps
    # the set as it is, so ``fixed`` (any round unchanged) decides the fallback at the end
    fixed = xp.zeros((), dtype=xp.bool_)
    for _ in range(CREDIT_ROUNDS):
        out = xp.zeros(k, dtype=xp.int64)
        ops.add_at(out, f, xp.where(keep, ws, 0))
        prefix = _segment_prefix(xp, t, xp.where(keep, ws, 0))
        new = keep & (bw[t] - out[t] + prefix <= bounds[t])
        fixed = fixed | xp.all(new == keep)
        keep = new
    plain = bw[t] + _segment_prefix(xp, t, xp.where(keep, ws, 0)) <= bounds[t]
    return order[keep & (fixed | plain)]


def _slices(xp, n: int, seed: int, sub_rounds: int):
    """The slice of every vertex: its position in a seeded order, cut into ``sub_rounds``
    slices of equal length."""
    v = xp.arange(n, dtype=xp.int64)
    rank = xp.empty(n, dtype=xp.int64)
    rank[xp.argsort(tie_hash(xp, seed, v, xp.full(n, -2, dtype=xp.int64)) * n + v)] = v
    length = max(1, -(-n // max(1, sub_rounds)))
    return rank // length, -(-n // length)


def _near(xp, g, mask):
    """Per vertex: whether a neighbour has ``mask`` set (the CSR is symmetric: a segmented
    count over every row's entries, no host read)."""
    cs = xp.zeros(g.adjncy.shape[0] + 1, dtype=xp.int64)
    cs[1:] = xp.cumsum(mask[g.adjncy], dtype=xp.int64)
    return cs[g.xadj[1:]] > cs[g.xadj[:-1]]


# ------------------------------------------------------------------------------ clustering
def cluster(g, max_cluster_weight: int, iterations: int, min_clusters: int, seed: int,
            sub_rounds: int, ops: ArrayOps = NUMPY_OPS):
    """Size-constrained label propagation clustering of ``g`` (a ``GraphArrays`` of ``ops.xp``
    arrays): ``Backend.cluster_graph_lp``'s contract, in synchronous rounds.

    A pass over the vertices next to a move of the pass before (all in the first) is cut into
    ``sub_rounds`` seeded slices. In a slice each vertex chooses the adjacent cluster of highest
    summed edge weight that has room for it and beats its own cluster's; moves are admitted per
    target cluster in order of gain while the cluster stays within ``max_cluster_weight``
    (weight leaving it in the same slice is not counted, so the bound holds). A lone vertex
    that is itself chosen by an admitted mover stays, to be joined (of two lone vertices
    choosing each other the one of larger id moves). Once the clusters emptied by a slice would
    drop their number below ``min_clusters``, only a prefix of its moves in order of gain is
    applied. Then the two-hop grouping of lone vertices, and compact ids in order of label.
    Returns ``(cmap int32, nc)``."""
    xp = ops.xp
    n = g.n
    mcw = int(max_cluster_weight)
    label = xp.arange(n, dtype=xp.int32)
    cw = g.vwgt.astype(xp.int64, copy=True)
    size = xp.ones(n, dtype=xp.int64)
    nc = n
    if n == 0:
        return label, 0
    slice_of, nslices = _slices(xp, n, seed, sub_rounds)
    active = None  # all vertices
    owner = xp.full(n, -1, dtype=xp.int64)  # scratch of _seed_drops, all -1 between slices
    mcw_all = xp.full(n, mcw, dtype=xp.int64)
    # ``nc`` is a lower bound of the clusters' number (a move empties at most one cluster),
    # read from the device only where the exact number decides something
    exact = True
    for it in range(iterations):
        moved = 0
        movers = xp.zeros(n, dtype=xp.bool_)
        for s in range(nslices):
            if nc <= min_clusters and not exact:
                nc, exact = int(xp.count_nonzero(size)), True
            if nc <= min_clusters:
                break
            pick = slice_of == s if nslices > 1 else None
            pick = active if pick is None else (pick if active is None else pick & active)
            rows = xp.arange(n, dtype=xp.int64) if pick is None else xp.flatnonzero(pick)
            if rows.shape[0] == 0:
                continue
            u, to, gain = _proposals(ops, g, rows, label, (cw, mcw_all), seed + it)
            if u.shape[0] == 0:
                continue
            w = g.vwgt[u]
            tie = ops.tie_hash(seed + it, u, to.astype(xp.int64))
            order, ok = _admit(ops, to, gain, tie, w, mcw - cw)
            adm = xp.empty(u.shape[0], dtype=xp.bool_)
            adm[order] = ok
            drop = _seed_drops(ops, u, to, adm, label, size, owner)
            sel = order[ok & ~drop[order]]  # one compaction, in the admission order
            u, to, gain, w, tie = u[sel], to[sel], gain[sel], w[sel], tie[sel]
            if u.shape[0] == 0:
                continue
            frm = label[u]
            if u.shape[0] > nc - min_clusters and not exact:
                nc, exact = int(xp.count_nonzero(size)), True
            if u.shape[0] > nc - min_clusters:  # each move empties at most one cluster
                u, to, frm, w = _limit_emptied(ops, u, to, frm, gain, tie, w, size, n,
                                               nc - min_clusters)
                if u.shape[0] == 0:
                    break
            label[u] = to
            ops.add_at(cw, frm, -w)
            ops.add_at(cw, to, w)
            ones = xp.ones(u.shape[0], dtype=xp.int64)
            ops.add_at(size, frm, -ones)
            ops.add_at(size, to, ones)
            nc, exact = nc - int(u.shape[0]), False
            moved += int(u.shape[0])
            movers[u] = True
        if moved == 0:
            break
        active = _near(xp, g, movers)
    if not exact:
        nc = int(xp.count_nonzero(size))
    if nc > min_clusters and 2 * nc > n:
        nc = _two_hop(ops, g, label, cw, size, mcw, seed, nc - min_clusters, nc)
    _, cmap = xp.unique(label, return_inverse=True)
    cmap = cmap.reshape(-1).astype(xp.int32)
    return cmap, int(cmap.max()) + 1


def _choose(ops: ArrayOps, g, rows, label, weight, bound, seed: int, balance: bool):
    """Per vertex ``u`` of ``rows``: (best label, its connection, the connection to ``u``'s own
    label). The best is the adjacent label other than ``u``'s with ``weight[label] + vwgt[u] <=
    bound[label]`` of highest connection (summed edge weight), then (with ``balance``) the
    smallest weight, then the smallest :func:`tie_hash` of ``(seed, u, label)``, then the
    smallest label; -1 (connection 0) where there is none."""
    xp = ops.xp
    m = rows.shape[0]
    best_label = xp.full(m, -1, dtype=xp.int32)
    best_sum = xp.zeros(m, dtype=xp.int64)
    own_conn = xp.zeros(m, dtype=xp.int64)
    r, lab, sums = _connections(ops, g, rows, label)
    if r.shape[0] == 0:
        return best_label, best_sum, own_conn
    u = rows[r]
    mine = lab == label[u]
    ops.add_at(own_conn, r, xp.where(mine, sums, 0))  # at most one own label per row
    cand = ~mine & (weight[lab] + g.vwgt[u] <= bound[lab])
    # no compaction to the candidates: the others rank last in their row
    best = ops.best_per_row(r, xp.where(cand, sums, _NONE), weight[lab] if balance else None,
                            ops.tie_hash(seed, u, lab.astype(xp.int64)))
    rb = r[best]
    best_label[rb] = xp.where(cand[best], lab[best], -1)
    best_sum[rb] = xp.where(cand[best], sums[best], 0)
    return best_label, best_sum, own_conn


def _proposals(ops: ArrayOps, g, rows, label, room, seed: int, balance: bool = False):
    """The best move of each vertex of ``rows`` away from its own label: (vertex, target label,
    gain over staying). Targets are the adjacent labels with ``weight[label] + vwgt[u] <=
    bound[label]`` (``room``: the pair (weight, bound) of per-label arrays); the best has the
    highest connection, then (with ``balance``) the smallest weight, then the smallest hash.
    Proposed: moves of positive gain and, with ``balance``, moves of gain 0 after which the
    target still weighs less than the vertex's own label did."""
    xp = ops.xp
    weight, bound = room
    to, conn, own_conn = ops.choose(g, rows, label, weight, bound, seed, balance)
    has = to >= 0
    gain = conn - own_conn
    go = has & (gain > 0)
    if balance:
        go |= has & (gain == 0) & (
            weight[xp.maximum(to, 0)] + g.vwgt[rows] < weight[label[rows]])
    return _take(xp, go, rows, to, gain)


def _seed_drops(ops: ArrayOps, u, to, adm, label, size, owner):
    """The mask of the admitted (``adm``) moves of lone vertices whose own cluster is the
    target of another admitted move (they stay, to be joined), except that of two lone
    vertices choosing each other the larger id moves."""
    xp = ops.xp
    frm = label[u]
    lone = adm & (size[frm] == 1)
    targeted = xp.zeros(size.shape[0], dtype=xp.int64)
    ops.add_at(targeted, to, adm.astype(xp.int64))
    # the admitted mover whose lone cluster is each target, where there is one (owner: all -1
    # between slices; a lone cluster is the ``frm`` of one move only, so the values written
    # to an index repeated among the moves are all -1)
    owner[frm] = xp.where(lone, xp.arange(u.shape[0], dtype=xp.int64), -1)
    other = owner[to]
    owner[frm] = -1
    o = xp.maximum(other, 0)
    mutual = (other >= 0) & (to[o] == frm)  # u's target's lone member moves into u's cluster
    return lone & (targeted[frm] > 0) & ~(mutual & (u > u[o]))


def _limit_emptied(ops: ArrayOps, u, to, frm, gain, tie, w, size, n: int, allowed: int):
    """The moves, cut to a prefix in order of (gain descending, tie) when the clusters they
    empty would exceed ``allowed`` (counted as if no cluster received a mover: never fewer)."""
    xp = ops.xp
    leaving = xp.bincount(frm, minlength=n)  # per cluster: movers out of it
    arrivals = xp.zeros(n, dtype=xp.bool_)
    arrivals[to] = True
    full = (leaving == size) & (size > 0)
    if int(xp.count_nonzero(full & ~arrivals)) <= allowed:
        return u, to, frm, w
    order = ops.lexsort([tie, -gain])
    pos = xp.empty(u.shape[0], dtype=xp.int64)
    pos[order] = xp.arange(u.shape[0], dtype=xp.int64)
    by_cluster = ops.lexsort([pos, frm.astype(xp.int64)])
    f = frm[by_cluster]
    last = xp.ones(f.shape[0], dtype=xp.bool_)
    if f.shape[0] > 1:
        xp.not_equal(f[1:], f[:-1], out=last[:-1])
    last &= full[f]
    empties = xp.zeros(u.shape[0], dtype=xp.int64)
    empties[pos[by_cluster[last]]] = 1
    length = int(xp.count_nonzero(xp.cumsum(empties) <= allowed))
    sel = order[:length]
    return u[sel], to[sel], frm[sel], w[sel]


def _two_hop(ops: ArrayOps, g, label, cw, size, mcw: int, seed: int, allowed: int,
             nc: int) -> int:
    """Lone vertices favouring the same cluster (highest connection, regardless of weight)
    are grouped: in order of (favoured cluster, vertex) they are cut into consecutive chunks
    of at most ``max_cluster_weight``, each joining the cluster of its first vertex; at most
    ``allowed`` joins, in that order. Returns the new cluster count."""
    xp = ops.xp
    lone = xp.flatnonzero((size[label] == 1) & (g.vwgt < mcw))
    if lone.shape[0] < 2:
        return nc
    r, lab, sums = _connections(ops, g, lone, label)
    other = lab != label[lone[r]]
    r, lab, sums = _take(xp, other, r, lab, sums)
    if r.shape[0] == 0:
        return nc
    best = ops.best_per_row(r, sums, None, ops.tie_hash(seed, lone[r], lab.astype(xp.int64)))
    u, fav = lone[r[best]], lab[best].astype(xp.int64)
    order = xp.argsort((fav << 32) | u)
    u, fav = u[order], fav[order]
    # per favoured cluster, consecutive chunks of at most mcw weight: a vertex belongs to the
    # chunk its start (exclusive prefix) falls in, unless it would cross the chunk's end
    w = g.vwgt[u]
    end = _segment_prefix(xp, fav, w)
    chunk = (end - w) // mcw
    fits = end <= (chunk + 1) * mcw
    key = (fav << 32) | chunk
    head = xp.ones(u.shape[0], dtype=xp.bool_)
    if u.shape[0] > 1:
        xp.not_equal(key[1:], key[:-1], out=head[1:])
    starts = xp.flatnonzero(head)
    lead = u[starts[xp.cumsum(head) - 1]]
    join = ~head & fits & (g.vwgt[lead] + w <= mcw)
    join &= xp.cumsum(join) <= allowed
    idx = xp.flatnonzero(join)
    label[u[idx]] = label[lead[idx]]
    return nc - int(idx.shape[0])


# ------------------------------------------------------------------------------ refinement
def refine(g, parts, k: int, bounds, iterations: int, seed: int, sub_rounds: int,
           ops: ArrayOps = NUMPY_OPS):
    """Label propagation refinement of ``parts`` (``Backend.lp_refine_graph``'s contract), in
    synchronous rounds over seeded slices of the vertices next to a move of the pass before.

    Each vertex of a slice chooses the adjacent block of highest connectivity with room for it
    (ties: the lighter block, then the hash) and proposes the move when it lowers the cut, or
    keeps it and leaves the target lighter than its own block was. The proposals are filtered
    as Jet's afterburner does: a move is kept only if its gain is still positive (0 for the
    moves of gain 0) once every proposal of higher (gain, hash) priority among its neighbours
    is applied; moves of gain 0 between two blocks are kept while their weight stays within
    half the blocks' difference. The rest are admitted per target block in order of gain
    within the block's bound, counting the weight the admitted moves take out of it
    (:func:`_admit_swaps`). The exact cut change of the applied moves is computed; the moves
    of a slice that would raise the cut are not applied.
    Returns ``(parts, gain)`` with ``gain`` the edge-cut reduction."""
    xp = ops.xp
    n = g.n
    parts = parts.astype(xp.int32, copy=True)
    if n == 0 or k < 2:
        return parts, 0
    bw = ops.block_weights(g.vwgt, parts, k)
    slice_of, nslices = _slices(xp, n, seed, sub_rounds)
    active = None  # all vertices
    total = xp.zeros((), dtype=xp.int64)
    for it in range(iterations):
        movers = xp.zeros(n, dtype=xp.bool_)
        tried = False
        for s in range(nslices):
            pick = slice_of == s if nslices > 1 else None
            pick = active if pick is None else (pick if active is None else pick & active)
            rows = xp.arange(n, dtype=xp.int64) if pick is None else xp.flatnonzero(pick)
            if rows.shape[0] == 0:
                continue
            u, to, gain = _proposals(ops, g, rows, parts, (bw, bounds), seed + it, True)
            if u.shape[0] == 0:
                continue
            tie = ops.tie_hash(seed + it, u, to.astype(xp.int64))
            valid, gain = _afterburner(ops, g, parts, u, to, gain, tie, n)
            valid = _limit_even_moves(ops, parts, bw, g.vwgt, u, to, gain, tie, k, valid)
            u, to, gain, tie = _take(xp, valid, u, to, gain, tie)
            if u.shape[0] == 0:
                continue
            w = g.vwgt[u]
            keep = _admit_swaps(ops, parts[u], to, gain, tie, w, bw, bounds, k)
            u, to, w = u[keep], to[keep], w[keep]
            if u.shape[0] == 0:
                continue
            frm = parts[u]
            # the moves are applied only if they do not raise the cut, decided on the device
            delta = _cut_reduction(ops, g, parts, u, to, n)
            ok = delta >= 0
            parts[u] = xp.where(ok, to, frm)
            w = xp.where(ok, w, 0)
            ops.add_at(bw, frm, -w)
            ops.add_at(bw, to, w)
            total = total + xp.where(ok, delta, 0)
            movers[u] = ok
            tried = True
        if not tried or not bool(xp.any(movers)):  # one host read per round
            break
        active = movers | _near(xp, g, movers)
    return parts, int(total)


def _afterburner(ops: ArrayOps, g, parts, u, to, gain, tie, n: int):
    """(mask, gain) of the proposals: the mask keeps those whose gain stays positive when the
    proposals of higher priority (gain descending, then tie) among the mover's neighbours are
    applied first, the gain is that one."""
    xp = ops.xp
    order = ops.lexsort([tie, -gain])
    prio = xp.full(n, -1, dtype=xp.int64)  # rank of each mover, -1 for the others
    prio[u[order]] = xp.arange(u.shape[0], dtype=xp.int64)
    dest = parts.copy()
    dest[u] = to
    g2 = ops.afterburner_gains(g, parts, dest, prio, u, to)
    return (g2 > 0) | ((g2 == 0) & (gain == 0)), g2


def _afterburner_gains(ops: ArrayOps, g, parts, dest, prio, u, to):
    """Per mover ``u[i]``: the gain of its move to ``to[i]`` with its neighbours of smaller
    non-negative ``prio`` (movers ranked before it) in their ``dest`` block, the others in
    their ``parts`` block."""
    xp = ops.xp
    r, pos = ops.expand(g.xadj, u)
    v = g.adjncy[pos]
    pv = prio[v]
    earlier = (pv >= 0) & (pv < prio[u[r]])
    blk = xp.where(earlier, dest[v], parts[v])
    w = g.adjwgt[pos]
    contrib = xp.where(blk == to[r], w, 0) - xp.where(blk == parts[u[r]], w, 0)
    g2 = xp.zeros(u.shape[0], dtype=xp.int64)
    ops.add_at(g2, r, contrib)
    return g2


def _limit_even_moves(ops: ArrayOps, parts, bw, vwgt, u, to, gain, tie, k: int, valid):
    """The mask ``valid`` of the moves, less those of gain 0 (made for balance) beyond the
    first per (source, target) pair in order of tie whose summed weight stays within half the
    difference of the two blocks' weights (so together they do not overshoot)."""
    xp = ops.xp
    even = valid & (gain == 0)
    frm = parts[u].astype(xp.int64)
    pair = xp.where(even, frm * k + to, -1)  # the other moves: one segment, weight 0
    order = ops.lexsort([tie, pair])
    prefix = _segment_prefix(xp, pair[order], xp.where(even, vwgt[u], 0)[order])
    f, t = frm[order], to[order]
    keep = xp.empty(u.shape[0], dtype=xp.bool_)
    keep[order] = ~(even[order] & (2 * prefix > bw[f] - bw[t]))
    return keep & valid


def _cut_reduction(ops: ArrayOps, g, parts, u, to, n: int):
    """The exact edge-cut reduction of moving the vertices ``u`` to blocks ``to`` together (a
    0-d int64 array: no host read)."""
    xp = ops.xp
    new = parts.copy()
    new[u] = to
    moving = xp.zeros(n, dtype=xp.bool_)
    moving[u] = True
    return ops.cut_change(g, parts, new, moving, u, to) // 2


def _cut_change(ops: ArrayOps, g, parts, new, moving, u, to):
    """Twice the edge-cut reduction of moving ``u`` to ``to`` (``new``: the blocks after,
    ``moving``: the movers' mask), a 0-d int64 array: over the movers' entries, an edge to a
    vertex that stays counted twice, one between two movers (seen from both ends) once."""
    xp = ops.xp
    r, pos = ops.expand(g.xadj, u)
    v = g.adjncy[pos]
    pu = parts[u[r]]
    before = (pu != parts[v]).astype(xp.int64)
    after = (to[r] != new[v]).astype(xp.int64)
    c = g.adjwgt[pos] * (before - after)
    return xp.where(moving[v], c, 2 * c).sum()


# ------------------------------------------------------------------------------ host reference
def reference_backend():
    """The C++ backend with ``cluster_graph_lp`` and ``lp_refine_graph`` run by this module on
    numpy arrays: the device algorithm on the host, to test it and to measure its partitions
    where no device is present."""
    from ..cpu import CpuBackend

    class NumpyLabelPropagation(CpuBackend):
        default_graph_lp_sub_rounds = SUB_ROUNDS  # the device's
        async_graph_lp = False  # the device's sliced passes only

        def cluster_graph_lp(self, g, max_cluster_weight, *, iterations=5, min_clusters=0,
                             seed=0, sub_rounds=8):
            check_arguments("cluster_graph_lp", iterations, sub_rounds)
            return cluster(g, int(max_cluster_weight), int(iterations), int(min_clusters),
                           int(seed), int(sub_rounds))

        def lp_refine_graph(self, g, parts, k, max_block_weights, *, iterations=5, seed=0,
                            sub_rounds=8):
            check_arguments("lp_refine_graph", iterations, sub_rounds)
            return refine(g, np.asarray(parts, dtype=np.int32), int(k),
                          np.asarray(max_block_weights, dtype=np.int64), int(iterations),
                          int(seed), int(sub_rounds))

    return NumpyLabelPropagation()
