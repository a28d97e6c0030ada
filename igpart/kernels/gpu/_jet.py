"""Launcher of Jet refinement on the device (kernels in ``jet.cu``; the algorithm is documented
at ``Backend.jet_refine_hypergraph`` and mirrors the C++ reference ``cpu/jet.cpp`` step by step,
so both return the same partition). The whole loop runs on the device; per iteration three
scalars come back (candidate count, moves applied, objective)."""

from __future__ import annotations

import cupy as cp
import numpy as np

from ..backend import HypergraphArrays
from ._common import NULL, STATS, THREADS, block_weights, blocks_for, i32, i64, launch, run_starts
from ._hypergraph import SHARED_LIMIT, PinCounts

INT64_MAX = 2**63 - 1


def _tables(n: int, k: int):
    """(use_global, scratch, shared bytes) of the per-warp tables of ``jet_candidates``."""
    words = 2 * k + (k + 63) // 64
    shared = (THREADS // 32) * words * 8
    if shared <= SHARED_LIMIT:
        return 0, NULL, shared
    nwarps = blocks_for(n, THREADS // 32) * (THREADS // 32)
    STATS.add()
    return 1, cp.zeros(nwarps * words, dtype=cp.int64), 0


def _objective(hg: HypergraphArrays, lam, code: int) -> int:
    out = cp.zeros(1, dtype=cp.int64)
    STATS.add()
    launch("metrics", "hg_objective", hg.m, (i64(hg.m), hg.ewgt, lam, i32(code), out))
    return int(out[0])


def _accept(to_s, w_s, first, active_s, bw, out, bounds):
    """One balance pass on moves sorted by (destination, priority): the active moves that pass
    ``jet_accept`` (int8 mask in the sorted order)."""
    L = to_s.shape[0]
    x = w_s * active_s
    cs = cp.cumsum(x)
    inflow = cs - (cs - x)[first]
    acc = cp.empty(L, dtype=cp.int8)
    STATS.add(5)
    launch("jet", "jet_accept_pass", L, (i64(L), to_s, inflow, bw, NULL if out is None else out,
                                         bounds, active_s, acc))
    return acc


def _outflow(from_s, w_s, active_s, k: int):
    out = cp.zeros(k, dtype=cp.int64)
    STATS.add(2)
    launch("util", "scatter_add_i64", from_s.shape[0], (i64(from_s.shape[0]), from_s,
                                                          w_s * active_s, out))
    return out


def balance(cand_to, cand_from, w, keep, bw, bounds, k: int, rounds: int):
    """Step 3: the kept moves (priority order) that the acceptance rule lets through (int8)."""
    order = cp.argsort(cand_to)  # stable: priority order inside each destination
    to_s, from_s, w_s = cand_to[order], cand_from[order], w[order]
    first, _ = run_starts(to_s)
    active = keep[order]
    STATS.add(5)
    for _ in range(rounds):
        active = _accept(to_s, w_s, first, active, bw, _outflow(from_s, w_s, active, k), bounds)
    checked = _accept(to_s, w_s, first, active, bw, _outflow(from_s, w_s, active, k), bounds)
    changed = cp.any(checked != active)
    safe = _accept(to_s, w_s, first, active, bw, None, bounds)
    active = cp.where(changed, safe, active)
    out = cp.empty_like(active)
    out[order] = active
    STATS.add(4)
    return out


def refine(hg: HypergraphArrays, parts, k: int, bounds, code: int, *, max_iterations: int,
           patience: int, negative_gain_factor: float, min_improvement: float,
           afterburner_max_net_size: int, balance_rounds: int, seed: int):
    n = hg.n
    cur = parts.copy()
    if n == 0 or hg.m == 0 or max_iterations <= 0:
        return cur, 0
    best_parts = cur.copy()
    bw = block_weights(hg.vwgt, cur, k)
    locked = cp.zeros(n, dtype=cp.int8)
    target = cp.empty(n, dtype=cp.int32)
    gain = cp.empty(n, dtype=cp.int64)
    rank = cp.full(n, INT64_MAX, dtype=cp.int64)
    STATS.add(6)
    phi = PinCounts(hg).build(cur)
    initial = _objective(hg, phi.lam, code)
    best = ref = initial
    since = prev_moved = 0
    use_global, scratch, shared = _tables(n, k)
    for it in range(max_iterations):
        launch("jet", "jet_candidates", n, (
            i64(n), hg.eptr, hg.ewgt, hg.vptr, hg.vind, cur, phi.lam, phi.blk, phi.cnt, locked,
            i32(k), i32(code), np.float64(negative_gain_factor), i32(use_global), scratch, target,
            gain), warps=True, shared=shared)
        cand = cp.flatnonzero(target >= 0).astype(cp.int32)
        STATS.add(3)
        L = int(cand.shape[0])
        moved = 0
        if L:
            hsh = cp.empty(L, dtype=cp.uint32)
            launch("jet", "jet_hashes", L, (i64(L), cand, i64(seed), i64(it), hsh))
            cand = cand[cp.argsort(hsh)]  # stable: ties by vertex id
            cand = cand[cp.argsort(-gain[cand])]  # stable: gain desc, then hash, then id
            rank[cand] = cp.arange(L, dtype=cp.int64)
            keep = cp.empty(L, dtype=cp.int8)
            STATS.add(10)
            launch("jet", "jet_afterburner", L, (
                i64(L), cand, rank, target, cur, hg.eptr, hg.eind, hg.ewgt, hg.vptr, hg.vind,
                phi.lam, phi.blk, phi.cnt, i32(code), i64(afterburner_max_net_size), keep),
                warps=True)
            rank[cand] = INT64_MAX
            to, frm, w = target[cand], cur[cand], hg.vwgt[cand]
            active = balance(to, frm, w, keep, bw, bounds, k, balance_rounds)
            act = active.astype(cp.bool_)
            cur[cand] = cp.where(act, to, frm)
            wa = w * active
            for blocks, sign in ((frm, -1), (to, 1)):
                launch("util", "scatter_add_i64", L, (i64(L), blocks, sign * wa, bw))
            locked.fill(0)
            locked[cand] = active
            moved = int(cp.count_nonzero(act))
            STATS.add(14)
        else:
            locked.fill(0)
            STATS.add()
        if moved == 0 and prev_moved == 0:
            break
        prev_moved = moved
        if moved:
            phi.build(cur)
        o = _objective(hg, phi.lam, code)
        if o < best:
            if float(ref - o) > min_improvement * float(ref):
                since, ref = 0, o
            else:
                since += 1
            best = o
            best_parts = cur.copy()
            STATS.add()
        else:
            since += 1
        if since >= patience:
            break
    return best_parts, initial - best
