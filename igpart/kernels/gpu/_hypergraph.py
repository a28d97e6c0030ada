"""Launchers of the hypergraph stage operations: balanced group coarsening, contraction,
sequence-based refinement, pin counts and objectives. Arrays stay on the device; only sizes,
flags and gains come back to the host."""

from __future__ import annotations

import logging

import cupy as cp
import numpy as np

from ..backend import HypergraphArrays
from ..cluster_join import join_round
from . import _outofcore
from ._common import (
    NULL,
    SMALL_SEGMENT,
    STATS,
    THREADS,
    block_weights,
    blocks_for,
    cumsum,
    exclusive_cumsum,
    i32,
    i64,
    launch,
    run_starts,
    scatter_add,
    segment_ids,
)

log = logging.getLogger("igpart")

INT_MAX = 2**31 - 1
#: Group-step rounds launched between two reads of the convergence flag.
GROUP_BATCH = 4
#: Per-warp block tables of refinement live in shared memory up to this many bytes per block.
SHARED_LIMIT = 48 * 1024


# ------------------------------------------------------------------------------ coarsening
def group_vertices(best, n: int, vwgt, mcw: int, group_size: int, mirror: bool):
    """HyperG Alg. 1 (atomicMax group combinations, repeated until no vertex changes group) and
    Alg. 2 (sort by combination, subgroups of at most ``group_size`` vertices and ``mcw``
    weight). ``mirror`` makes the leader the smallest id (G-kway's atomicMin). Returns
    (cmap, nc)."""
    comb = cp.empty(n, dtype=cp.int64)
    launch("coarsen", "group_init", n, (i64(n), i32(int(mirror)), comb))
    # each step reads the combinations of the step before: one buffer copied into, not a new
    # array per step (under a memory budget every new one was a request that could go to host)
    prev = cp.empty_like(comb)
    changed = cp.zeros(1, dtype=cp.int32)
    it = 1
    while True:
        changed.fill(0)
        STATS.add()
        for _ in range(GROUP_BATCH):
            cp.copyto(prev, comb)
            STATS.add()
            launch("coarsen", "group_step", n, (i64(n), best, prev, comb, i32(it), changed))
            it += 1
        if not int(changed[0]):
            break
    del prev
    order = cp.argsort(comb)
    group = comb[order] >> 32
    first, _ = run_starts(group)
    pos = cp.arange(n, dtype=cp.int64) - first
    w = vwgt[order]
    start = cp.empty(n, dtype=cp.int32)
    STATS.add(6)
    launch("coarsen", "subgroup_starts", n, (i64(n), group, pos, w, i64(group_size), i64(mcw),
                                              start))
    ids = cp.cumsum(start, dtype=cp.int32) - 1
    cmap = cp.empty(n, dtype=cp.int32)
    cmap[order] = ids
    STATS.add(3)
    return cmap, int(ids[-1]) + 1


def rating_shift(hg: HypergraphArrays) -> int:
    """Fixed-point scale of the rating kernels (``rating_fixed`` in coarsen.cu): a net adds
    ``(w << shift) // (|e| - 1)`` to a pair's rating, with the largest shift <= 32 that keeps
    the level's total net weight << shift below 2^62 (no rating can overflow)."""
    total = int(hg.ewgt.sum()) if hg.m else 0
    STATS.add()
    return max(0, min(32, 62 - max(total, 1).bit_length()))


#: Slots of a warp's rating table in shared memory (IGP_RATE_SLOTS in coarsen.cu): a vertex
#: with more pins on its rated nets may have more neighbours than the table holds, and the
#: kernels then rate it in 4, 16, ... passes over all its pins (one per class of neighbours).
SHARED_RATE_SLOTS = 256
#: The heavy rating kernels run on at most this many warps (one global table each) ...
HEAVY_WARPS = 132 * 32
#: ... and their tables take at most this many bytes (fewer warps with larger tables).
HEAVY_TABLE_BYTES = 128 << 20


class HeavyRating:
    """The vertices of a level that the rating kernels leave to their ``*_heavy`` variants
    (more than ``SHARED_RATE_SLOTS`` pins on their nets of 2..``max_net_size`` pins), and the
    per-warp tables in global memory they are rated with: ``bits`` = log2 of the slots per
    warp, the smallest power of two with at least twice the heaviest vertex's pins, at most
    ``max_slots`` (so up to ``max_slots / 2`` pins take one pass)."""

    def __init__(self, flags, ids, bits: int, warps: int) -> None:
        self.flags = flags  # bool per vertex: rated by the heavy kernel
        self.ids = ids  # int32, the flagged vertices
        self.bits = bits
        self.warps = warps
        slots = warps << bits
        self.key = cp.full(slots, -1, dtype=cp.int32)  # kept cleared by the kernels
        self.val = cp.zeros(slots, dtype=cp.uint64)
        STATS.add(2)

    @classmethod
    def of(cls, hg: HypergraphArrays, max_net_size: int, max_slots: int,
           sample: int = 0) -> HeavyRating | None:
        """The heavy vertices of ``hg`` and their tables; None when none is heavy or
        ``max_slots`` is 0. ``sample``: the rating's windows (pins walked per net)."""
        if max_slots <= 0 or hg.n == 0 or int(hg.vind.shape[0]) <= SHARED_RATE_SLOTS:
            return None
        sizes = cp.diff(hg.eptr)[hg.vind]
        sizes[(sizes < 2) | (sizes > max_net_size)] = 0
        if sample > 0:
            cp.minimum(sizes, sample, out=sizes)
        walk = cp.diff(exclusive_cumsum(sizes)[hg.vptr])
        flags = walk > SHARED_RATE_SLOTS
        ids = cp.flatnonzero(flags).astype(cp.int32)
        STATS.add(8)
        if ids.size == 0:
            return None
        need = (2 * int(walk.max()) - 1).bit_length()
        bits = max(SHARED_RATE_SLOTS.bit_length() - 1, min(max_slots.bit_length() - 1, need))
        warps = max(1, min(int(ids.size), HEAVY_WARPS, HEAVY_TABLE_BYTES // ((1 << bits) * 12)))
        per_block = THREADS // 32
        return cls(flags, ids, bits, blocks_for(warps, per_block) * per_block)


def _check_window(sample: int) -> None:
    """Windows of fewer than 32 pins would reach the kernels' path for vertices of at most 32
    rated pins, which walks whole nets."""
    if 0 < sample < 32:
        raise ValueError(f"rating windows must have at least 32 pins, got {sample}")


def coarsen(hg: HypergraphArrays, mcw: int, group_size: int, max_net_size: int, communities,
            seed: int, heavy_slots: int = 0, sample: int = 0):
    """HyperG's balanced groups: ``hg_rate``, then :func:`group_vertices`. ``heavy_slots``,
    ``sample``: as in :func:`cluster`."""
    n = hg.n
    if n == 0:
        return cp.zeros(0, dtype=cp.int32), 0
    best = cp.empty(n, dtype=cp.int32)
    comm = NULL if communities is None else communities
    _check_window(sample)
    heavy = HeavyRating.of(hg, max_net_size, heavy_slots, sample)
    shift = rating_shift(hg)
    launch("coarsen", "hg_rate_windowed" if sample > 0 else "hg_rate", n, (
        i64(n), hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, i64(mcw), i64(max_net_size),
        i32(shift), comm, i64(seed), best, NULL if heavy is None else heavy.flags, i64(sample)),
           warps=True)
    if heavy is not None:
        launch("coarsen", "hg_rate_heavy", heavy.warps, (
            i64(heavy.ids.size), heavy.ids, hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt,
            i64(mcw), i64(max_net_size), i32(shift), comm, i64(seed), best, heavy.key, heavy.val,
            i32(heavy.bits), i64(sample)), warps=True)
    return group_vertices(best, n, hg.vwgt, mcw, group_size, mirror=False)


#: Cluster-aware clustering: at most this many members per cluster (default of
#: ``GpuBackend(cluster_max_size=...)``) and rounds per level. The first round can only pair
#: mutual choices (every cluster is a single vertex then), later ones let lone vertices join
#: clusters; rounds stop early once the level's target size is reached or a round joins nothing.
#: With 4 rounds a level shrank ~1.6x instead of the 2.5x asked (ibm01x200 at k = 2: 23 levels
#: per hierarchy where the C++ backend, which clusters sequentially, needs ~10). With 12 rounds
#: and at most 8 members, levels shrank 2.5x down to ~10k vertices, then 1.1-1.5x per level for
#: 10-17 more levels (ibm01x200 / ibm09x100, k = 2): on coarse levels the hubs' clusters fill up
#: at 8 and their other neighbours are left without a choice (4,181 of 10,446 vertices after
#: 11 rounds); with 64 members the ibm01x200 hierarchy shrinks 2.5x per level to the end
#: (k = 2: 11 coarsening steps instead of 17), k = 2 runs are 1.31x (ibm09x100) and 1.28x
#: (ibm01x200) faster and the cuts stay within the run-to-run noise (BENCHMARKS.md at 10cd44d,
#: "Where the time goes, and the depth of the GPU hierarchy"), hence 64.
CLUSTER_MAX_SIZE = 64
CLUSTER_ROUNDS = 12
#: The rounds also stop after a round that joins fewer than this fraction of the level's
#: vertices (0: only after a round that joins none): such a round's launches and host read
#: cost as much as the first one's and barely shrink the level.
CLUSTER_MIN_ROUND_JOINS = 0.001
#: With ``accept``, proposals are accepted from this round on (0: from the first). From the
#: first, every vertex joins a cluster in the first two rounds and the levels shrink 2.5x
#: instead of the 3x asked (ibm01 x157, k = 2: 10 levels instead of 9); from the second, the
#: first round's mutual pairs form first. With ``by_cluster`` and a minimum of 0.001 above, from
#: the second round against from the first: cut 0.990x at k = 2 and 0.951x at k = 64 on the
#: `large` suite (BENCHMARKS.md, "The GPU clustering's rating and accepted proposals").
CLUSTER_ACCEPT_FROM = 1
#: Rounds after the first rate again only the lone vertices whose choice was not the unique
#: best or has filled up (``cluster_rate``'s ``prev``): the same choices as rating every lone
#: vertex again, since a vertex's ratings do not change between rounds and the clusters it may
#: join only become fewer (not with ``weight_penalty``). Tests switch it off to compare.
REUSE_CHOICES = True


def _scatter_add(out, idx, values) -> None:
    """``out[idx[i]] += values[i]`` (int64 or int32 ``out``) by the util kernels."""
    length = int(idx.shape[0])
    name = "scatter_add_i64" if out.dtype == cp.int64 else "scatter_add_i32"
    launch("util", name, length, (i64(length), idx.astype(cp.int32), values.astype(out.dtype),
                                  out))


def cluster(hg: HypergraphArrays, mcw: int, max_net_size: int, communities, max_shrink: float,
            weight_penalty: bool, seed: int, max_size: int = CLUSTER_MAX_SIZE,
            deterministic: bool = False, heavy_slots: int = 0, keep_ties: bool = False,
            sample: int = 0, by_cluster: bool = False, accept: bool = False):
    """Parallel cluster-aware heavy-edge clustering: rounds in which every vertex still alone
    rates its neighbours' clusters (room for it: weight, ``max_size`` members; same
    community), mutual choices of lone vertices pair up and lone vertices join the existing
    cluster of their choice (atomics, at most as many joins as keep ``int(n / max_shrink)``
    clusters, like the C++ backend); stops once that many clusters remain or a round changes
    nothing. Clusters are numbered by ascending representative. Returns (cmap, nc).
    ``deterministic``: the joins are decided by :func:`igpart.kernels.cluster_join.join_round`
    (sorts and prefix sums in a seeded order) instead of the atomics of ``cluster_join``, whose
    outcome depends on the order the threads run in; the same seed then gives the same
    clusters. ``heavy_slots`` (0: off): vertices with more pins on their rated nets than a
    warp's table in shared memory holds are rated by ``cluster_rate_heavy`` with tables of up to
    that many slots in global memory (:class:`HeavyRating`): the same choices, in one pass where
    the shared table would take 4, 16, .... ``keep_ties`` (with ``REUSE_CHOICES``): a lone
    vertex keeps its previous choice while that has room even where other neighbours rated the
    same (``cluster_rate``), so later rounds rate only the vertices whose choice filled up; the
    choices can then differ from rating every lone vertex again (ties by cluster weight).
    ``sample`` (0: off; at least 32): a vertex rates the neighbours it has through a net of more
    pins only among ``sample`` consecutive pins of it (cyclically, from a position hashed from
    the vertex and the net), each with the net's full term: the work on such nets is bounded,
    and a vertex whose pins are in large nets only picks among fewer tied neighbours.
    ``by_cluster``: a lone vertex rates its neighbours' clusters (the summed terms of every
    member it shares a net with, as the C++ backend's clustering) instead of each neighbour
    alone; the choices are then rated afresh every round (no ``REUSE_CHOICES``).
    ``accept``: from round ``CLUSTER_ACCEPT_FROM`` on, a lone vertex chosen by another lone
    vertex that it did not choose back takes its proposers as a cluster of its own (its own
    choice dropped for the round) instead of all of them waiting for mutual choices
    (``cluster_hubs`` in coarsen.cu). The rounds also end after one that joins fewer than
    ``CLUSTER_MIN_ROUND_JOINS`` of the level's vertices."""
    n = hg.n
    if n == 0:
        return cp.zeros(0, dtype=cp.int32), 0
    _check_window(sample)
    heavy = HeavyRating.of(hg, max_net_size, heavy_slots, sample)
    rep = cp.arange(n, dtype=cp.int32)
    cw = hg.vwgt.copy()
    csize = cp.ones(n, dtype=cp.int32)
    best = cp.empty(n, dtype=cp.int32)
    single = cp.empty(n, dtype=cp.bool_)  # written by every round's cluster_rate
    joined = cp.empty(1, dtype=cp.int32)  # zeroed by cluster_rate
    comm = NULL if communities is None else communities
    STATS.add(3)
    reuse = REUSE_CHOICES and not weight_penalty and not by_cluster
    uniq = cp.empty(n, dtype=cp.int8) if reuse else NULL
    STATS.add(int(reuse))
    hub = cp.zeros(n, dtype=cp.int8) if accept else NULL  # zeroed again by cluster_hubs_apply
    STATS.add(int(accept))
    nc = n
    target = int(n / max_shrink)  # as the C++ backend: stop once nc <= target, never below
    shift = rating_shift(hg)
    for r in range(CLUSTER_ROUNDS):
        if nc <= target:
            break
        # from the second round on, a lone vertex keeps a unique best choice while it has room
        prev = best if r > 0 and reuse else NULL
        launch("coarsen", "cluster_rate_windowed" if sample > 0 else "cluster_rate", n, (
            i64(n), hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, hg.vwgt, rep, cw, csize, single,
            i64(mcw), i32(max_size), i64(max_net_size), i32(shift), comm, i64(seed + r),
            i32(int(weight_penalty)), prev, uniq, i32(int(keep_ties)), best, joined,
            NULL if heavy is None else heavy.flags, i64(sample), i32(int(by_cluster))),
            warps=True)
        if heavy is not None:
            launch("coarsen", "cluster_rate_heavy", heavy.warps, (
                i64(heavy.ids.size), heavy.ids, hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind,
                hg.vwgt, rep, cw, csize, single, i64(mcw), i32(max_size), i64(max_net_size),
                i32(shift), comm, i64(seed + r), i32(int(weight_penalty)), prev, uniq,
                i32(int(keep_ties)), best, heavy.key, heavy.val, i32(heavy.bits), i64(sample),
                i32(int(by_cluster))),
                warps=True)
        if accept and r >= CLUSTER_ACCEPT_FROM:
            launch("coarsen", "cluster_hubs", n, (i64(n), best, single, hub))
            launch("coarsen", "cluster_hubs_apply", n, (i64(n), single, hub))
        if deterministic:
            j = join_round(cp, best, single, hg.vwgt, rep, cw, csize, int(mcw), int(max_size),
                           nc - target, seed + r, _scatter_add)
            STATS.add(40)
        else:
            launch("coarsen", "cluster_join", n, (i64(n), best, single, hg.vwgt, i64(mcw),
                                                  i32(max_size), i64(nc - target), rep, cw,
                                                  csize, joined))
            j = int(joined[0])
        nc -= j
        if log.isEnabledFor(logging.DEBUG):  # diagnostics: one more reduction per round
            log.debug("cluster n=%d round %d: %d joins, %d clusters (target %d), %d lone "
                      "vertices with no choice, %d lone ones waiting on a lone choice", n, r, j,
                      nc, target, int(((best < 0) & single).sum()),
                      int(((best >= 0) & single & single[cp.maximum(best, 0)]).sum()))
        if j == 0 or j < n * CLUSTER_MIN_ROUND_JOINS:
            break
    if nc > target:
        nc -= _pair_choices(best, rep, cw, csize, mcw, nc - target, seed)
    if nc > target:
        nc -= _pair_unrated(hg, rep, cw, csize, mcw, max_net_size, communities, nc - target, seed)
    root = rep == cp.arange(n, dtype=cp.int32)
    dense = cumsum(root, dtype=cp.int32) - 1
    cmap = dense[rep]
    STATS.add(4)
    return cmap, int(dense[-1]) + 1


def _pair_choices(best, rep, cw, csize, mcw: int, limit: int, seed: int) -> int:
    """Pairs lone vertices with the lone vertex of their last choice when the rounds stop above
    their target: the rounds join two lone vertices only on mutual choices, and where many
    vertices rate alike (one net joining them all) choices are rarely mutual, so the rounds
    stall (the C++ backend joins in visiting order and does not). Each chosen vertex takes one
    proposer (the first in a seeded order); a vertex both chosen and proposing keeps the pair
    it was chosen in. Pairs share a rated net, stay in one community (the choice respected
    both) and within ``mcw``; at most ``limit`` pairs. Updates ``rep`` / ``cw`` / ``csize``;
    returns the number of pairs."""
    n = rep.shape[0]
    ids = cp.arange(n, dtype=cp.int32)
    alone = (rep == ids) & (csize == 1)
    target = cp.maximum(best, 0)
    prop = cp.flatnonzero(alone & (best >= 0) & alone[target] & (best != ids)).astype(cp.int64)
    if prop.size == 0:
        return 0
    to = best[prop].astype(cp.int64)
    order = cp.argsort((to << 32) | _seeded_key(prop, seed, 977))
    prop, to = prop[order], to[order]
    first = cp.ones(to.size, dtype=cp.bool_)
    first[1:] = to[1:] != to[:-1]
    u, v = prop[first], to[first]  # v takes proposer u
    chosen = cp.zeros(n, dtype=cp.bool_)
    chosen[v] = True
    keep = ~chosen[u]
    STATS.add(25)
    return _join_pairs(rep, cw, csize, u[keep], v[keep], mcw, limit)


def _pair_unrated(hg: HypergraphArrays, rep, cw, csize, mcw: int, max_net_size: int,
                  communities, limit: int, seed: int) -> int:
    """Pairs vertices the rating cannot cluster, as the C++ backend does: still alone, lighter
    than ``mcw``, and no net of 2 to ``max_net_size`` pins joins them to another vertex of
    their community (their nets are all larger, as one net over every vertex, or they have
    none). Without it such a level does not shrink and all of it goes to the initial
    partitioning. Candidates are sorted by community, then by a seeded hash; the 1st and 2nd of
    a community pair up, the 3rd and 4th, ... (each pair within ``mcw``), at most ``limit``
    pairs. Updates ``rep`` / ``cw`` / ``csize``; returns the number of pairs. Runs only when
    the rounds stop above their target."""
    n = hg.n
    sizes = cp.diff(hg.eptr)
    pin_net = segment_ids(hg.eptr, int(hg.eind.shape[0]))
    keep = ((sizes >= 2) & (sizes <= max_net_size))[pin_net]
    pins = hg.eind[keep]
    rated = cp.zeros(n, dtype=cp.bool_)
    if communities is None:
        rated[pins] = True
    elif pins.size:
        # a pin has a rated neighbour when its (net, community) key occurs twice
        key = (pin_net[keep].astype(cp.int64) << 32) | communities[pins].astype(cp.int64)
        order = cp.argsort(key)
        key = key[order]
        twin = cp.zeros(key.size, dtype=cp.bool_)
        twin[1:] = key[1:] == key[:-1]
        twin[:-1] |= twin[1:].copy()
        rated[pins[order][twin]] = True
    alone = (rep == cp.arange(n, dtype=cp.int32)) & (csize == 1) & (cw < mcw) & ~rated
    ids = cp.flatnonzero(alone).astype(cp.int64)
    if ids.size < 2:
        return 0
    comm = (communities[ids].astype(cp.int64) if communities is not None
            else cp.zeros(ids.size, dtype=cp.int64))
    order = cp.argsort((comm << 32) | _seeded_key(ids, seed, 12345))
    ids, comm = ids[order], comm[order]
    pos = cp.arange(ids.size, dtype=cp.int64)
    first = cp.ones(ids.size, dtype=cp.bool_)
    first[1:] = comm[1:] != comm[:-1]
    starts = cp.flatnonzero(first)
    run = cumsum(first, dtype=cp.int64) - 1
    rank = pos - starts[run]
    head = cp.flatnonzero((rank % 2 == 0) & (pos + 1 < ids.size))
    head = head[comm[head + 1] == comm[head]]
    STATS.add(30)
    return _join_pairs(rep, cw, csize, ids[head + 1], ids[head], mcw, limit)


def _seeded_key(ids, seed: int, salt: int):
    """A seeded 32-bit pseudo-random key per id (int64 ``ids``): the visiting order of the
    pairing steps."""
    return (ids * 2654435761 + (int(seed) % 65521) * 40503 + salt) & 0xFFFFFFFF


def _join_pairs(rep, cw, csize, members, reps, mcw: int, limit: int) -> int:
    """Joins lone vertex ``members[i]`` into lone vertex ``reps[i]`` (disjoint pairs) where the
    two weigh at most ``mcw`` together, the first ``limit`` such pairs in order; updates
    ``rep`` / ``cw`` / ``csize`` and returns the number joined."""
    fit = cw[members] + cw[reps] <= mcw
    members, reps = members[fit][:limit], reps[fit][:limit]
    if members.size == 0:
        return 0
    rep[members] = reps.astype(cp.int32)
    cw[reps] += cw[members]
    csize[reps] += 1
    return int(members.size)


# ------------------------------------------------------------------------------ contraction
#: Segments longer than SMALL_SEGMENT are sorted by one block each (``sort_listed_segments``),
#: in shared memory up to this many values (a power of two; 4 bytes each), by windows beyond.
LIST_SORT_WINDOW = 8192


def _sort_listed(bound: int, count, segs, ptr, src, vmap, vals, lens=NULL, hashes=NULL) -> None:
    """Sorts the segments ``segs[:count[0]]`` of ``vals`` (CSR ``ptr``; values ``vmap[src]``
    when ``vmap`` is given), one block each; ``count`` stays on the device and ``bound`` (an
    upper bound of it) sizes the grid. With ``lens`` / ``hashes`` the segments are nets,
    deduplicated and hashed too."""
    if bound > 0:
        launch("contract", "sort_listed_segments", bound * THREADS,
               (count, segs, ptr, src, vmap, vals, i32(LIST_SORT_WINDOW), lens, hashes),
               shared=LIST_SORT_WINDOW * 4)


def _transpose(ind, seg, ncols: int, buf):
    """Transpose of the pins ``ind`` of rows ``seg`` given ``buf`` = [0, column degrees
    (ncols), 0] (int64; consumed)."""
    p = int(ind.shape[0])
    deg, count = buf[1 : ncols + 1], buf[ncols + 1 :]
    tptr = exclusive_cumsum(deg)
    tind = cp.empty(p, dtype=cp.int32)
    large = cp.empty(ncols, dtype=cp.int32)
    launch("contract", "transpose_scatter", p, (i64(p), ind, seg, tptr, deg, tind))
    launch("contract", "sort_small_lists", ncols, (i64(ncols), tptr, tind, i64(SMALL_SEGMENT),
                                                  large, count))
    _sort_listed(min(ncols, p // (SMALL_SEGMENT + 1)), count, large, tptr, NULL, NULL, tind)
    return tptr, tind


def transpose(ptr, ind, ncols: int):
    """CSR transpose (rows -> columns) with ascending row ids in every column list."""
    p = int(ind.shape[0])
    buf = cp.zeros(ncols + 2, dtype=cp.int64)
    STATS.add()
    launch("contract", "count_pins", p, (i64(p), ind, buf[1:]))
    with _outofcore.beside(ind):  # the rows of the pins, read with them in one stream
        seg = segment_ids(ptr, p)
    return _transpose(ind, seg, ncols, buf)


def _empty_contraction(nc: int, vwgt, total_weight: int) -> HypergraphArrays:
    empty = cp.zeros(0, dtype=cp.int32)
    STATS.add(4)
    return HypergraphArrays(n=nc, m=0, eptr=cp.zeros(1, dtype=cp.int64), eind=empty,
                            vptr=cp.zeros(nc + 1, dtype=cp.int64), vind=empty, vwgt=vwgt,
                            ewgt=cp.zeros(0, dtype=cp.int64), total_weight=total_weight)


def contract(hg: HypergraphArrays, cmap, nc: int, pins_on_host=None) -> HypergraphArrays:
    """Coarse hypergraph of ``cmap``: pins mapped, sorted and deduplicated per net, nets of fewer
    than 2 pins dropped, a net merged into the smallest net id of its hash when their pins are
    equal (weights added), kept nets in ascending id. One host synchronisation (the sizes).
    ``pins_on_host(nc, nets, pins)`` (optional, under a memory budget) says whether the coarse
    level's net -> pin list (and its net ids per pin, read once in a stream by the transpose)
    go to host memory as they are written; the mapped pins (sorted in place per net) and the
    vertex -> net list (written by a scatter) are built on the device."""
    m, n, p = hg.m, hg.n, hg.num_pins
    if m == 0:
        return _empty_contraction(nc, scatter_add(cmap, hg.vwgt, nc), hg.total_weight)
    nb = blocks_for(m)  # net_reps / copy_kept_nets: one block per chunk of nets
    chunk = -(-m // nb)
    tsize = 1 << (2 * m - 1).bit_length()  # hash table: a power of two >= 2 m
    # one zeroed workspace: [large-net count, 0, vertex degrees (nc), large-vertex count,
    # merged weights (m), chunk sums (2 nb + 2), hash table (tsize int32)]
    ws = cp.zeros(nc + m + 2 * nb + 5 + tsize // 2, dtype=cp.int64)
    nlarge, tbuf = ws[:1], ws[1 : nc + 3]
    wsum = ws[nc + 3 : nc + 3 + m]
    bsum = ws[nc + 3 + m : nc + 5 + m + 2 * nb]
    table = ws[nc + 5 + m + 2 * nb :].view(cp.int32)
    pins = cp.empty(p, dtype=cp.int32)  # sorted in place per net: on the device
    length = cp.empty(m, dtype=cp.int32)
    hsh = cp.empty(m, dtype=cp.int64)
    large = cp.empty(m, dtype=cp.int32)
    vwgt = cp.empty(nc, dtype=cp.int64)  # zeroed by map_sort_nets
    STATS.add()  # the workspace's memset (plain allocations launch nothing)
    launch("contract", "map_sort_nets", max(m, nc), (
        i64(m), hg.eptr, hg.eind, cmap, i64(SMALL_SEGMENT), pins, length, hsh, large, nlarge,
        i64(nc), vwgt))
    _sort_listed(min(m, p // (SMALL_SEGMENT + 1)), nlarge, large, hg.eptr, hg.eind, cmap, pins,
                 length, hsh)
    mask = np.uint64(tsize - 1)
    launch("contract", "net_table_insert", max(m, n), (
        i64(m), length, hsh, mask, table, i64(n), cmap, hg.vwgt, vwgt))
    launch("contract", "net_reps", m, (i64(m), i64(chunk), hg.eptr, pins, length, hsh, mask,
                                       table, hg.ewgt, wsum, bsum))
    launch("contract", "scan_block_sums", 1, (i64(nb), bsum), single_block=THREADS)
    cm, npins = (int(x) for x in bsum[2 * nb :].get())  # the one host synchronisation
    STATS.add()
    if cm == 0:
        return _empty_contraction(nc, vwgt, hg.total_weight)
    neptr = cp.empty(cm + 1, dtype=cp.int64)
    with _outofcore.host_scope(pins_on_host is not None and pins_on_host(nc, cm, npins)):
        eind = cp.empty(npins, dtype=cp.int32)
        seg = cp.empty(npins, dtype=cp.int32)
    ewgt = cp.empty(cm, dtype=cp.int64)
    launch("contract", "copy_kept_nets", m, (
        i64(m), i64(chunk), hg.eptr, pins, length, wsum, bsum, i64(cm), i64(npins), neptr, eind,
        seg, ewgt, tbuf[1 : nc + 1]))
    vptr, vind = _transpose(eind, seg, nc, tbuf)
    return HypergraphArrays(n=nc, m=cm, eptr=neptr, eind=eind, vptr=vptr, vind=vind, vwgt=vwgt,
                            ewgt=ewgt, total_weight=hg.total_weight)


# ------------------------------------------------------------------------------ pin counts
#: Nets of more than this many pins get a block each in the pin-count kernels (refine.cu
#: build_phi_long, jet.cu jet_boundary_mark_long) instead of a thread: a thread walked a net of
#: 79,213 pins (a Titan23 circuit) serially on every Jet iteration, 2-4 s of a 5 s k = 2 run.
LONG_NET_PINS = 1024
#: ... for k up to this (build_phi_long keeps 2k ints in shared memory); above it every net
#: gets a thread.
LONG_NET_MAX_K = 4096


#: ``long_min`` of the thread-per-net kernels when no net is left to a block
NO_LONG_NETS = 2**63 - 1


def _long_net_ids(eptr):
    ids = cp.flatnonzero(cp.diff(eptr) > LONG_NET_PINS).astype(cp.int32)
    STATS.add(3)
    return ids, int(ids.shape[0])


def long_pin_counts(hg: HypergraphArrays, parts, k: int, lam, blk, cnt, stats=NULL,
                    code: int = 0) -> int:
    """Pin counts of the nets of more than ``LONG_NET_PINS`` pins into (lam, blk, cnt), a block
    per net (their ids found once per level, one host read, and kept on the level object); with
    ``stats`` (a device int64 slot) their objective under ``code`` is added into it. Returns
    the ``long_min`` argument of the thread-per-net kernel that does the other nets."""
    if k > LONG_NET_MAX_K:
        return NO_LONG_NETS
    found = hg.__dict__.get("_long_nets")
    if found is None:
        found = _long_net_ids(hg.eptr)
        object.__setattr__(hg, "_long_nets", found)  # a cache on the frozen level
    ids, count = found
    if not count:
        return NO_LONG_NETS
    launch("refine", "build_phi_long", count * THREADS,
           (i64(count), ids, hg.eptr, hg.eind, parts, i32(k), lam, blk, cnt, hg.ewgt, i32(code),
            stats), shared=8 * k)
    return LONG_NET_PINS


def long_net_list(hg: HypergraphArrays):
    """(ids, count) of ``hg``'s long nets as ``long_pin_counts`` found them (None, 0 before)."""
    return hg.__dict__.get("_long_nets", (None, 0))


class PinCounts:
    """Sparse Phi(e, b) of a level, rebuilt from ``parts`` by :meth:`build`."""

    def __init__(self, hg: HypergraphArrays):
        self.hg = hg
        self.lam = cp.empty(hg.m, dtype=cp.int32)
        self.blk = cp.empty(hg.num_pins, dtype=cp.int32)
        self.cnt = cp.empty(hg.num_pins, dtype=cp.int32)
        STATS.add(3)

    def build(self, parts, k: int) -> PinCounts:
        hg = self.hg
        long_min = long_pin_counts(hg, parts, k, self.lam, self.blk, self.cnt)
        launch("refine", "build_phi", hg.m, (i64(hg.m), hg.eptr, hg.eind, parts, self.lam,
                                             self.blk, self.cnt, i64(long_min)))
        return self


def objective(hg: HypergraphArrays, parts, k: int, objective_code: int) -> int:
    lam = PinCounts(hg).build(parts, k).lam
    out = cp.zeros(1, dtype=cp.int64)
    STATS.add()
    launch("metrics", "hg_objective", hg.m, (i64(hg.m), hg.ewgt, lam, i32(objective_code), out))
    return int(out[0])


def connectivity(eptr, eind, parts, k: int):
    m = eptr.shape[0] - 1
    lam = cp.empty(m, dtype=cp.int32)
    blk = cp.empty(eind.shape[0], dtype=cp.int32)
    cnt = cp.empty(eind.shape[0], dtype=cp.int32)
    STATS.add(3)
    long_min = NO_LONG_NETS
    if k <= LONG_NET_MAX_K:
        ids, count = _long_net_ids(eptr)
        if count:
            long_min = LONG_NET_PINS
            launch("refine", "build_phi_long", count * THREADS,
                   (i64(count), ids, eptr, eind, parts, i32(k), lam, blk, cnt, NULL, i32(0),
                    NULL), shared=8 * k)
    launch("refine", "build_phi", m, (i64(m), eptr, eind, parts, lam, blk, cnt, i64(long_min)))
    return lam


# ------------------------------------------------------------------------------ refinement
def block_table(work_warps: int, k: int):
    """(use_global, scratch, shared bytes) of the per-warp block tables of k entries."""
    shared = (THREADS // 32) * k * 8
    if shared <= SHARED_LIMIT:
        return 0, NULL, shared
    nwarps = blocks_for(work_warps, THREADS // 32) * (THREADS // 32)
    STATS.add()
    return 1, cp.zeros(nwarps * k, dtype=cp.int64), 0


def balanced_prefix(mv_from, mv_to, w, gains, bw, bounds, *, longest: bool):
    """Prefix of a move sequence to apply: every block within max(bound, weight before) after
    it; ``longest``: the longest such prefix (graphs, all gains positive), else the shortest of
    maximum total gain. Returns (length, total gain), (0, 0) when none gains."""
    L = int(mv_from.shape[0])
    cum = cp.cumsum(gains)
    two = 2 * L
    pos = cp.arange(L, dtype=cp.int64)
    key = cp.concatenate([mv_from.astype(cp.int64) * two + 2 * pos,
                          mv_to.astype(cp.int64) * two + 2 * pos + 1])
    key = cp.sort(key)
    eblock = key // two
    rem = key % two
    p = rem // 2
    delta = cp.where(rem % 2 == 1, w[p], -w[p])
    cs = cp.cumsum(delta)
    first, _ = run_starts(eblock)
    wafter = bw[eblock] + cs - (cs - delta)[first]
    dviol = cp.empty(two, dtype=cp.int32)
    STATS.add(20)
    launch("refine", "block_violations", two, (i64(two), eblock, wafter, bounds, bw, dviol))
    vpos = cp.zeros(L, dtype=cp.int32)
    p32 = p.astype(cp.int32)
    launch("util", "scatter_add_i32", two, (i64(two), p32, dviol, vpos))
    valid = cp.cumsum(vpos) == 0
    STATS.add(4)
    if longest:
        idx = L - 1 - cp.argmax(valid[::-1].astype(cp.int8))
        res = cp.stack([idx, valid[idx].astype(cp.int64), cum[idx]]).get()
        STATS.add(4)
        if not res[1]:
            return 0, 0
        return int(res[0]) + 1, int(res[2])
    masked = cp.where(valid, cum, cp.int64(-(2**62)))
    idx = cp.argmax(masked)
    res = cp.stack([idx, masked[idx]]).get()
    STATS.add(4)
    if res[1] <= 0:
        return 0, 0
    return int(res[0]) + 1, int(res[1])


def apply_prefix(parts, bw, mv_u, mv_from, mv_to, w, length: int) -> None:
    """Applies the first ``length`` moves to ``parts`` and the block weights ``bw``."""
    u = mv_u[:length]
    parts[u] = mv_to[:length]
    for blocks, sign in ((mv_from[:length], -1), (mv_to[:length], 1)):
        launch("util", "scatter_add_i64", length, (i64(length), blocks, sign * w[:length], bw))
    STATS.add(4)


def refine(hg: HypergraphArrays, parts, k: int, bounds, objective_code: int, max_rounds: int,
           locked=None):
    """Sequence refinement (``Backend.refine_hypergraph``); ``locked``: uint8 per vertex on
    the device (non-zero: never moved) or None."""
    n = hg.n
    parts = parts.copy()
    total = 0
    if n == 0 or hg.m == 0 or max_rounds <= 0:
        return parts, 0
    bw = block_weights(hg.vwgt, parts, k)
    phi = PinCounts(hg)
    target = cp.empty(n, dtype=cp.int32)
    gain = cp.empty(n, dtype=cp.int64)
    order = cp.full(n, INT_MAX, dtype=cp.int32)
    tgt = cp.empty(n, dtype=cp.int32)
    use_global, scratch, shared = block_table(n, k)
    STATS.add(4)
    for _ in range(max_rounds):
        phi.build(parts, k)
        launch("refine", "hg_best_moves", n, (
            i64(n), hg.eptr, hg.ewgt, hg.vptr, hg.vind, parts, phi.lam, phi.blk, phi.cnt, i32(k),
            i32(objective_code), i32(use_global), scratch, target, gain,
            NULL if locked is None else locked), warps=True, shared=shared)
        mv_u = cp.flatnonzero(target >= 0).astype(cp.int32)
        STATS.add(3)
        L = int(mv_u.shape[0])
        if L == 0:
            break
        o = cp.argsort(-gain[mv_u])  # stable: gain descending, then vertex id
        mv_u = mv_u[o]
        mv_to = target[mv_u]
        order[mv_u] = cp.arange(L, dtype=cp.int32)
        tgt[mv_u] = mv_to
        rgain = cp.empty(L, dtype=cp.int64)
        STATS.add(8)
        launch("refine", "hg_sequence_gains", L, (
            i64(L), mv_u, mv_to, order, tgt, hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind, parts,
            i32(objective_code), rgain), warps=True)
        order[mv_u] = INT_MAX
        mv_from = parts[mv_u]
        w = hg.vwgt[mv_u]
        STATS.add(3)
        length, best = balanced_prefix(mv_from, mv_to, w, rgain, bw, bounds, longest=False)
        if length == 0:
            break
        apply_prefix(parts, bw, mv_u, mv_from, mv_to, w, length)
        total += best
    return parts, total
