"""Launcher of Jet refinement on the device (kernels in ``jet.cu`` and ``jet_balance.cu``; the
algorithm is documented at ``Backend.jet_refine_hypergraph`` and mirrors the C++ reference
``cpu/jet.cpp`` step by step, so both return the same partition). The whole loop runs on the
device. Per iteration one device-to-host copy of the ``stats`` scalars (slots below) comes back:
the next iteration's candidate search is launched before it, so the copy brings this iteration's
moved count and objective together with the next one's candidate count and key layout. Buffers
are allocated once per call; an iteration issues 13 + 2 * balance_rounds launches, 9 when it has
at most SMALL_BALANCE candidates (step 3 and the application in one block), plus 3 when step 1
visits the boundary vertices only; its two key sorts are one launch each while the keys fit one
block's shared memory (``_common.sort_keys``), else CuPy sorts, which synchronise."""

from __future__ import annotations

import cupy as cp
import numpy as np

from ..backend import HypergraphArrays
from . import _outofcore
from ._common import (
    NULL,
    STATS,
    THREADS,
    block_weights,
    blocks_for,
    cumsum,
    i32,
    i64,
    launch,
    sort_keys,
)
from ._hypergraph import (
    INT_MAX,
    LONG_NET_PINS,
    NO_LONG_NETS,
    SHARED_LIMIT,
    PinCounts,
    long_net_list,
    long_pin_counts,
)

INT64_MAX = 2**63 - 1
#: Slots of ``stats`` (jet_common.cuh JS_*): candidate count, candidates' gain range, moves applied,
#: objective, whether the balance check fell back, priority-key tier, bits of a position.
L_, GMIN, GMAX, MOVED, OBJ, CHANGED, TIER, LBITS = range(8)
#: Priority keys (jet_balance.cu jet_compact): tier 1 packs (gain, hash, position) when their bits
#: fit PACK_BITS (a plain sort), tier 2 (gain, hash) when the gain range fits GAIN_BITS (<= 32; a
#: stable argsort), else tier 3 (two stable argsorts). Tests lower them to cover every tier.
PACK_BITS = 64
GAIN_BITS = 32
#: Candidate counts up to this run step 3 and the application in one block
#: (``jet_balance_small``) instead of 2 * balance_rounds + 5 launches. Tests set it to 0 to cover
#: the grid path.
SMALL_BALANCE = 16384
SMALL_THREADS = 1024
#: Vertices on at least this many nets get a block each in step 1 (``jet_candidates_heavy``)
#: and in the afterburner (``jet_afterburner_heavy``) instead of a warp: a star centre of a
#: graph's edge nets (tens of thousands) was one warp's chain of loads, 4 ms a launch. The same
#: targets, gains and verdicts. Tests lower it to cover the path.
HEAVY_NETS = 1024
#: Static shared bytes of ``jet_candidates_heavy`` (its reduction arrays), beside its table.
_HEAVY_STATIC_SHARED = THREADS * (8 + 8 + 4) + 2 * (THREADS // 32) * 8 + 4


def _table_words(k: int) -> int:
    """int64 words of one table of step 1 (``jet_table_words``: target parts and connections
    per block, and a bit mask of the blocks touched)."""
    return 2 * k + (k + 63) // 64


def _tables(n: int, k: int):
    """(use_global, scratch, shared bytes) of the per-warp tables of ``jet_candidates``."""
    words = _table_words(k)
    shared = (THREADS // 32) * words * 8
    if shared <= SHARED_LIMIT:
        return 0, NULL, shared
    nwarps = blocks_for(n, THREADS // 32) * (THREADS // 32)
    STATS.add()
    return 1, cp.zeros(nwarps * words, dtype=cp.int64), 0


class _Jet:
    """State and buffers of one ``refine`` call (arrays of n entries, used up to L)."""

    def __init__(
        self,
        hg: HypergraphArrays,
        cur,
        k: int,
        bounds,
        code: int,
        balance_rounds: int,
        negative_gain_factor: float,
        afterburner_max_net_size: int,
        seed: int,
        boundary: bool = False,
        fixed=None,
    ):
        n = hg.n
        self.hg, self.cur, self.k, self.bounds, self.code = hg, cur, k, bounds, code
        #: uint8 per vertex (non-zero: a fixed vertex, never a candidate) or None
        self.fixed = fixed
        self.rounds, self.c = balance_rounds, np.float64(negative_gain_factor)
        self.max_net, self.seed = afterburner_max_net_size, seed
        self.bw = block_weights(hg.vwgt, cur, k)
        self.phi = PinCounts(hg)
        # Under a memory budget the arrays allocated first keep the device: the pin counts
        # (above; updated in place per pin), then what every iteration reads and writes for
        # all vertices (flags and their prefix sums, the boundary marks), then what it touches
        # for the boundary vertices only (locks, targets, gains, ranks) and the candidates'
        # keys (sorted in place); the compacted candidates and the boundary list, written and
        # read in order, live beside a large level's pins.
        self.flag = cp.empty(n, dtype=cp.int32)
        self.pos = cp.empty(n, dtype=cp.int32)
        #: step 1 visits only the boundary vertices (listed every iteration) instead of all
        self.boundary = bool(boundary)
        if self.boundary:
            self.mark = cp.zeros(n, dtype=cp.int8)  # jet_boundary_list clears it again
            self.bpos = cp.empty(n, dtype=cp.int32)
            STATS.add(2)
        self.locked = cp.zeros(n, dtype=cp.int8)
        self.target = cp.empty(n, dtype=cp.int32)
        self.gain = cp.empty(n, dtype=cp.int64)
        # a candidate's position in priority order (int32: below n), INT_MAX for the others
        self.rank = cp.full(n, INT_MAX, dtype=cp.int32)
        self.key = cp.empty(n, dtype=cp.uint64)
        with _outofcore.beside(hg.eind):
            self.cand = cp.empty(n, dtype=cp.int32)
            if self.boundary:
                self.blist = cp.empty(n, dtype=cp.int32)
                STATS.add()
        #: the buffers of steps 2 and 3, used up to L (:meth:`_moves`)
        self._cap = 0
        self.first = cp.empty(k, dtype=cp.int64)
        self.outs = cp.empty((balance_rounds + 1) * k, dtype=cp.int64)
        self.stats = cp.asarray(
            np.array([0, INT64_MAX, -INT64_MAX - 1, 0, 0, 0, 0, 0], dtype=np.int64)
        )
        STATS.add(24)
        self.use_global, self.scratch, self.shared = _tables(n, k)
        # the vertices of the block-per-vertex kernels of steps 1 and 2 (one host read of their
        # number)
        self.heavy = cp.flatnonzero(cp.diff(hg.vptr) >= HEAVY_NETS).astype(cp.int32)
        self.nheavy = int(self.heavy.shape[0])
        self.heavy_min = HEAVY_NETS if self.nheavy else INT64_MAX
        words = _table_words(k)
        if self.nheavy and words * 8 + _HEAVY_STATIC_SHARED > SHARED_LIMIT:
            self.heavy_global = 1
            self.heavy_scratch = cp.zeros(blocks_for(self.nheavy * THREADS) * words,
                                          dtype=cp.int64)
            self.heavy_shared = 0
        else:
            self.heavy_global, self.heavy_scratch, self.heavy_shared = 0, NULL, words * 8
        self.hist_shared = k * 8 + 512 <= SHARED_LIMIT  # + the kernels' static bytes
        self.kbits = (k - 1).bit_length()

    def _hist_args(self):
        """(use_shared flag, dynamic shared bytes) of the kernels with a block histogram."""
        return i32(self.hist_shared), self.k * 8 if self.hist_shared else 0

    def rebuild(self) -> None:
        """Pin counts of ``cur``; their objective added into stats OBJ (zeroed by jet_apply)."""
        hg, phi = self.hg, self.phi
        long_min = long_pin_counts(hg, self.cur, self.k, phi.lam, phi.blk, phi.cnt,
                                   self.stats[OBJ:], self.code)
        launch(
            "jet_balance",
            "jet_rebuild",
            hg.m,
            (
                i64(hg.m),
                hg.eptr,
                hg.eind,
                hg.ewgt,
                self.cur,
                i32(self.code),
                phi.lam,
                phi.blk,
                phi.cnt,
                self.stats,
                i64(long_min),
            ),
        )

    def candidates(self, it: int) -> None:
        """Step 1 and the candidates' compaction and priority keys (stats L, TIER, LBITS)."""
        hg, phi, n = self.hg, self.phi, self.hg.n
        blist = count = NULL
        if self.boundary:  # the vertices on nets of two or more blocks, ascending
            ids, count = long_net_list(hg)
            long_min = LONG_NET_PINS if count else NO_LONG_NETS
            launch("jet", "jet_boundary_mark", hg.m, (i64(hg.m), hg.eptr, hg.eind, phi.lam,
                                                      self.mark, i64(long_min)))
            if count:
                launch("jet", "jet_boundary_mark_long", count * THREADS,
                       (i64(count), ids, hg.eptr, hg.eind, phi.lam, self.mark))
            cumsum(self.mark, out=self.bpos)
            # also clears the marks and the flags of the vertices not listed (no candidates)
            launch("jet", "jet_boundary_list", n, (i64(n), self.mark, self.bpos, self.blist,
                                                   self.flag))
            blist, count = self.blist, self.bpos[n - 1 :]
        launch(
            "jet",
            "jet_candidates",
            n,
            (
                i64(n),
                hg.eptr,
                hg.ewgt,
                hg.vptr,
                hg.vind,
                self.cur,
                phi.lam,
                phi.blk,
                phi.cnt,
                self.locked,
                i32(self.k),
                i32(self.code),
                self.c,
                i32(self.use_global),
                self.scratch,
                self.target,
                self.gain,
                self.flag,
                self.stats,
                blist,
                count,
                NULL if self.fixed is None else self.fixed,
                i64(self.heavy_min),
            ),
            warps=True,
            shared=self.shared,
        )
        if self.nheavy:
            launch("jet", "jet_candidates_heavy", self.nheavy * THREADS, (
                i64(self.nheavy), self.heavy, hg.eptr, hg.ewgt, hg.vptr, hg.vind, self.cur,
                phi.lam, phi.blk, phi.cnt, self.locked, i32(self.k), i32(self.code), self.c,
                i32(self.heavy_global), self.heavy_scratch, self.target, self.gain, self.flag,
                self.stats, NULL if self.fixed is None else self.fixed), shared=self.heavy_shared)
        cumsum(self.flag, out=self.pos)
        launch(
            "jet_balance",
            "jet_compact",
            n,
            (
                i64(n),
                self.flag,
                self.pos,
                self.gain,
                i64(self.seed),
                i64(it),
                i32(PACK_BITS),
                i32(GAIN_BITS),
                self.stats,
                self.cand,
                self.key,
                # a lock lasts one iteration, listed vertex or not
                self.locked if self.boundary else NULL,
            ),
        )

    def _moves(self, L: int) -> None:
        """The buffers of steps 2 and 3 (the candidates in priority order, their destination
        keys, the afterburner's verdicts and the sorted moves), of at least ``L`` entries: the
        kernels touch only the first L, every one written before it is read within the
        iteration, so they are sized by the candidates (grown by an eighth more when L
        outgrows them) instead of by the level's vertices."""
        if L <= self._cap:
            return
        cap = min(self.hg.n, L + L // 8)
        self.cand_s = self.dkey = self.keep = None  # the old buffers' room first
        self.u_s = self.to_s = self.from_s = self.w_s = None
        self.act = self.safe = self.x = self.cs = None
        self.cand_s = cp.empty(cap, dtype=cp.int32)
        self.dkey = cp.empty(cap, dtype=cp.uint64)
        self.keep = cp.empty(cap, dtype=cp.int8)
        self.u_s = cp.empty(cap, dtype=cp.int32)
        self.to_s = cp.empty(cap, dtype=cp.int32)
        self.from_s = cp.empty(cap, dtype=cp.int32)
        self.w_s = cp.empty(cap, dtype=cp.int64)
        self.act = cp.empty(cap, dtype=cp.int8)
        self.safe = cp.empty(cap, dtype=cp.int8)
        self.x = cp.empty(cap, dtype=cp.int64)
        self.cs = cp.empty(cap, dtype=cp.int64)
        self._cap = cap

    def iteration(self, L: int, tier: int, lbits: int) -> None:
        """Steps 2 and 3 of an iteration with L candidates, the moves applied, pin counts and
        objective rebuilt (stats MOVED, OBJ)."""
        self._moves(L)
        hg, phi, k = self.hg, self.phi, self.k
        key = self.key[:L]
        order = NULL
        if tier == 1:
            sort_keys(key)  # unique keys
        elif tier == 2:
            order = cp.argsort(key)  # stable: ties (gain and hash) by position = vertex id
            STATS.add()
        else:
            o1 = cp.argsort(key)  # the hashes, stable: ties by vertex id
            order = o1[cp.argsort(-self.gain[self.cand[:L][o1]])]  # stable: gain descending
            STATS.add(5)
        dkey32 = self.kbits + lbits <= 32
        nouts = self.outs.shape[0]
        launch(
            "jet_balance",
            "jet_rank",
            max(L, nouts),
            (
                i64(L),
                self.cand,
                key,
                order,
                i32(lbits),
                self.target,
                i32(dkey32),
                self.dkey,
                self.rank,
                self.cand_s,
                i64(nouts),
                self.outs,
                self.stats,
            ),
        )
        launch(
            "jet",
            "jet_afterburner",
            L,
            (
                i64(L),
                self.cand_s,
                self.rank,
                self.target,
                self.cur,
                hg.eptr,
                hg.eind,
                hg.ewgt,
                hg.vptr,
                hg.vind,
                phi.lam,
                phi.blk,
                phi.cnt,
                i32(self.code),
                i64(self.max_net),
                self.keep,
                i64(self.heavy_min),
            ),
            warps=True,
        )
        if self.nheavy:
            launch("jet", "jet_afterburner_heavy", self.nheavy * THREADS, (
                i64(L), i64(self.nheavy), self.heavy, self.rank, self.target, self.cur, hg.eptr,
                hg.eind, hg.ewgt, hg.vptr, hg.vind, phi.lam, phi.blk, phi.cnt, i32(self.code),
                i64(self.max_net), self.keep))
        # step 3: the moves sorted by (destination, priority) through their unique keys
        sort_keys((self.dkey.view(cp.uint32) if dkey32 else self.dkey)[:L])
        use_shared, shared = self._hist_args()
        if L <= SMALL_BALANCE:
            launch(
                "jet_balance",
                "jet_balance_small",
                L,
                (
                    i64(L),
                    self.dkey,
                    i32(dkey32),
                    i32(lbits),
                    self.cand_s,
                    self.keep,
                    hg.vwgt,
                    self.bounds,
                    i32(k),
                    i32(self.rounds),
                    use_shared,
                    self.cur,
                    self.locked,
                    self.rank,
                    self.bw,
                    self.u_s,
                    self.to_s,
                    self.from_s,
                    self.w_s,
                    self.act,
                    self.safe,
                    self.cs,
                    self.first,
                    self.outs,
                    self.stats,
                ),
                shared=shared,
                single_block=SMALL_THREADS,
            )
            self.rebuild()
            return
        outs = [self.outs[r * k : (r + 1) * k] for r in range(self.rounds + 1)]
        launch(
            "jet_balance",
            "jet_balance_setup",
            L,
            (
                i64(L),
                self.dkey,
                i32(dkey32),
                i32(lbits),
                self.cand_s,
                self.keep,
                self.cur,
                hg.vwgt,
                i32(k),
                use_shared,
                self.u_s,
                self.to_s,
                self.from_s,
                self.w_s,
                self.act,
                self.x,
                self.first,
                outs[0],
            ),
            shared=shared,
        )
        x, cs = self.x[:L], self.cs[:L]
        for r in range(self.rounds):
            cumsum(x, out=cs)
            launch(
                "jet_balance",
                "jet_accept_pass",
                L,
                (
                    i64(L),
                    self.to_s,
                    self.from_s,
                    self.w_s,
                    self.cs,
                    self.first,
                    self.bw,
                    outs[r],
                    self.bounds,
                    i32(k),
                    use_shared,
                    self.act,
                    self.x,
                    outs[r + 1],
                ),
                shared=shared,
            )
        cumsum(x, out=cs)
        launch(
            "jet_balance",
            "jet_check_pass",
            L,
            (
                i64(L),
                self.to_s,
                self.cs,
                self.first,
                self.bw,
                outs[self.rounds],
                self.bounds,
                self.act,
                self.safe,
                self.stats,
            ),
        )
        launch(
            "jet_balance",
            "jet_apply",
            L,
            (
                i64(L),
                self.u_s,
                self.to_s,
                self.from_s,
                self.w_s,
                self.act,
                self.safe,
                i32(k),
                use_shared,
                self.cur,
                self.locked,
                self.rank,
                self.bw,
                self.stats,
            ),
            shared=shared,
        )
        self.rebuild()


def refine(
    hg: HypergraphArrays,
    parts,
    k: int,
    bounds,
    code: int,
    *,
    max_iterations: int,
    patience: int,
    negative_gain_factor: float,
    min_improvement: float,
    afterburner_max_net_size: int,
    balance_rounds: int,
    seed: int,
    boundary: bool = False,
    locked=None,
):
    """Jet refinement (``Backend.jet_refine_hypergraph``); ``locked``: uint8 per vertex on
    the device (non-zero: never moved) or None."""
    n = hg.n
    cur = parts.copy()
    if n == 0 or hg.m == 0 or max_iterations <= 0:
        return cur, 0
    best_parts = cur.copy()
    STATS.add(2)
    jet = _Jet(
        hg,
        cur,
        k,
        bounds,
        code,
        balance_rounds,
        negative_gain_factor,
        afterburner_max_net_size,
        seed,
        boundary,
        locked,
    )
    jet.rebuild()
    jet.candidates(0)
    s = jet.stats.get()
    initial = best = ref = last = int(s[OBJ])
    since = prev_moved = 0
    for it in range(max_iterations):
        L = int(s[L_])
        if L:
            jet.iteration(L, int(s[TIER]), int(s[LBITS]))
        if it + 1 < max_iterations:
            jet.candidates(it + 1)  # before the read: one copy brings both iterations' scalars
        s = jet.stats.get()
        moved = int(s[MOVED]) if L else 0  # no candidates: nothing moved, locks cleared
        if moved == 0 and prev_moved == 0:
            break
        prev_moved = moved
        o = int(s[OBJ]) if L else last  # pin counts unchanged without candidates
        last = o
        if o < best:
            if float(ref - o) > min_improvement * float(ref):
                since, ref = 0, o
            else:
                since += 1
            best = o
            cp.copyto(best_parts, cur)
            STATS.add()
        else:
            since += 1
        if since >= patience:
            break
    return best_parts, initial - best
