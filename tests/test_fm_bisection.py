"""Boundary FM of the C++ backend at k = 2, whose gains are kept per vertex and updated with the
Fiduccia-Mattheyses delta rules on every move, against slower references:

* a plain Python port of the FM (every gain recomputed from the pin counts, a lazy heap with
  version stamps), move for move;
* the generic k-way path of the same C++ function (every gain recomputed from the pin counts),
  reached with k = 3 and an empty third block that no vertex fits into: same moves, same result;
* the objective recomputed from scratch, and the balance rules of the backend contract.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

import igpart
from igpart.kernels import get_backend
from igpart.metrics import max_block_weight

MASK = (1 << 64) - 1
UPDATE_MAX_NET_SIZE = 1000  # refine.cpp: kUpdateMaxNetSize


def tie_hash(seed: int, a: int, b: int) -> int:
    """partition_common.h: tie_hash."""
    x = (seed * 0x9E3779B97F4A7C15) & MASK
    x ^= (a + 0x632BE59BD9B4E019 + (x << 6) + (x >> 2)) & MASK
    x ^= (b + 0x85EBCA77C2B2AE63 + (x << 6) + (x >> 2)) & MASK
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & MASK
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & MASK
    x ^= x >> 33
    return x & 0xFFFFFFFF


def move_gain(cut: bool, w: int, size: int, pf: int, pt: int) -> int:
    """partition_common.h: move_gain."""
    if size < 2:
        return 0
    if cut:
        return w * (int(pf < size) - int(pt + 1 < size))
    return w * (int(pf == 1) - int(pt == 0))


def move_changes_gains(cut: bool, size: int, pf: int, pt: int) -> bool:
    if cut:
        return pf >= size - 1 or pt >= size - 2
    return pf <= 2 or pt <= 1


def reference_fm(h, parts, bounds, objective, max_rounds, max_fruitless, min_improvement, seed):
    """The boundary FM of refine.cpp for k = 2 in plain Python, every gain from scratch."""
    cut = objective == "cut"
    max_fruitless = max(1, max_fruitless)
    nets = [[int(v) for v in h.net(e)] for e in range(h.m)]
    ewgt = [int(w) for w in h.ewgt]
    vwgt = [int(w) for w in h.vwgt]
    vnets = [[] for _ in range(h.n)]
    for e, pins in enumerate(nets):
        for v in pins:
            vnets[v].append(e)
    p = [int(b) for b in parts]
    cnt = [[0, 0] for _ in nets]
    for e, pins in enumerate(nets):
        for v in pins:
            cnt[e][p[v]] += 1
    bw = [0, 0]
    for v in range(h.n):
        bw[p[v]] += vwgt[v]

    def objective_value():
        return sum(w for e, w in enumerate(ewgt) if cnt[e][0] and cnt[e][1])

    def best_move(u):
        """(to, gain) of u's move to the other block, None where no net offers that block
        (cut: u alone in its block on a net; km1: u on a cut net) or it does not fit."""
        s, to = p[u], 1 - p[u]
        gain, offered = 0, False
        for e in vnets[u]:
            size = len(nets[e])
            if size < 2:
                continue
            pf, pt = cnt[e][s], cnt[e][to]
            gain += move_gain(cut, ewgt[e], size, pf, pt)
            offered |= (pf == 1) if cut else (pt > 0)
        if not offered or bw[to] + vwgt[u] > bounds[to]:
            return None
        return to, gain

    version = [0] * h.n

    def push(heap, rseed, u, mv):
        """Queues u's move (gain first, then the smaller tie hash and id); older entries of u
        become stale."""
        version[u] += 1
        if mv is not None:
            to, g = mv
            heapq.heappush(heap, (-g, tie_hash(rseed, u, to), u, to, version[u]))

    current = objective_value()
    total_gain = 0
    for rnd in range(max_rounds):
        rseed = seed * 1000003 + rnd
        heap = []
        for u in range(h.n):
            push(heap, rseed, u, best_move(u))
        locked = [False] * h.n
        moves = []
        cum = best = fruitless = best_len = 0
        while heap:
            neg_gain, _, u, to, ver = heapq.heappop(heap)
            if locked[u] or ver != version[u]:
                continue
            mv = best_move(u)
            if mv is None:
                continue
            if mv != (to, -neg_gain):
                push(heap, rseed, u, mv)
                continue
            s = p[u]
            touched = [e for e in vnets[u]
                       if 2 <= len(nets[e]) <= UPDATE_MAX_NET_SIZE
                       and move_changes_gains(cut, len(nets[e]), cnt[e][s], cnt[e][to])]
            for e in vnets[u]:
                cnt[e][s] -= 1
                cnt[e][to] += 1
            p[u] = to
            bw[s] -= vwgt[u]
            bw[to] += vwgt[u]
            locked[u] = True
            moves.append((u, s))
            cum += mv[1]
            if cum > best:
                best, best_len, fruitless = cum, len(moves), 0
            else:
                fruitless += 1
                if fruitless >= max_fruitless:
                    break
            seen = set()
            for e in touched:
                for v in nets[e]:
                    if not locked[v] and v not in seen:
                        seen.add(v)
                        push(heap, rseed, v, best_move(v))
        for u, back in reversed(moves[best_len:]):
            cur = p[u]
            for e in vnets[u]:
                cnt[e][cur] -= 1
                cnt[e][back] += 1
            p[u] = back
            bw[cur] -= vwgt[u]
            bw[back] += vwgt[u]
        total_gain += best
        prev, current = current, current - best
        if best <= 0 or best <= min_improvement * prev:
            break
    return np.array(p, dtype=np.int32), total_gain


def dense_hypergraph(rng, n: int, m: int, max_size: int, big: int = 0, weighted: bool = True):
    """Nets of 2..max_size distinct pins (plus `big` nets of 1001+ pins), weights 0..19 / 0..9."""
    sizes = [int(s) for s in rng.integers(2, max(2, min(n, max_size)) + 1, size=m)]
    sizes += [int(rng.integers(UPDATE_MAX_NET_SIZE + 1, n + 1)) for _ in range(big)]
    nets = [rng.choice(n, size=s, replace=False) for s in sizes]
    vw = rng.integers(0, 20, size=n) if weighted else None
    ew = rng.integers(0, 10, size=len(nets)) if weighted else None  # zero-weight nets too
    return igpart.Hypergraph.from_nets(nets, n=n, vwgt=vw, ewgt=ew)


def objective(h, parts, obj):
    return igpart.cut(h, parts, 2) if obj == "cut" else igpart.km1(h, parts, 2)


def start_partition(be, ha, h, bounds, rng):
    parts = rng.integers(0, 2, size=h.n).astype(np.int32)
    if rng.random() < 0.6:  # a refined start, as the initial partitioning polishes
        parts, _ = be.refine_hypergraph(ha, parts, 2, bounds, "cut")
    return np.asarray(parts, dtype=np.int32)


def check_against_scratch(h, parts, out, gain, bounds, obj):
    before, after = objective(h, parts, obj), objective(h, out, obj)
    assert gain >= 0 and before - after == gain
    bw0, bw = igpart.block_weights(h, parts, 2), igpart.block_weights(h, out, 2)
    assert np.all((bw <= bounds) | (bw <= bw0))


@pytest.mark.parametrize("case", range(24))
def test_bisection_fm_matches_a_python_reference(case):
    be = get_backend("cpu")
    rng = np.random.default_rng(case)
    n = int(rng.integers(3, 40))
    h = dense_hypergraph(rng, n, int(n * rng.integers(2, 8)), max_size=int(rng.integers(2, n + 1)),
                         weighted=case % 3 != 0)
    ha = be.hypergraph_arrays(h)
    bounds = np.full(2, max_block_weight(h.total_weight, 2, [0.0, 0.03, 0.2][case % 3]), np.int64)
    parts = start_partition(be, ha, h, bounds, rng)
    for obj in ("cut", "km1"):
        for rounds, fruitless, min_imp, seed in ((4, 250, 0.001, case), (2, 3, 0.0, 7)):
            out, gain = be.fm_refine_hypergraph(
                ha, parts, 2, bounds, obj, max_rounds=rounds, max_fruitless_moves=fruitless,
                min_improvement=min_imp, seed=seed)
            ref, ref_gain = reference_fm(h, parts, bounds, obj, rounds, fruitless, min_imp, seed)
            assert gain == ref_gain
            np.testing.assert_array_equal(out, ref)
            check_against_scratch(h, parts, out, gain, bounds, obj)


@pytest.mark.parametrize("case", range(30))
def test_bisection_fm_matches_the_generic_k_way_path(case):
    """Dense levels like the coarsest ones of the initial partitioning (~100-200 vertices, vertex
    degrees in the tens to hundreds)."""
    be = get_backend("cpu")
    rng = np.random.default_rng(1000 + case)
    n = int(rng.integers(2, 200))
    max_size = int(rng.choice([3, 5, 12, n]))
    h = dense_hypergraph(rng, n, int(n * rng.integers(5, 60)), max_size, weighted=case % 4 != 0)
    ha = be.hypergraph_arrays(h)
    eps = float(rng.choice([0.0, 0.03, 0.1, 1.0]))
    bounds = np.full(2, max_block_weight(h.total_weight, 2, eps), np.int64)
    parts = start_partition(be, ha, h, bounds, rng)
    # k = 3 runs the generic path; a third block of bound -1 is never a target (nor has a pin)
    bounds3 = np.append(bounds, -1).astype(np.int64)
    for obj in ("cut", "km1"):
        for seed in (case, case + 1):
            out, gain = be.fm_refine_hypergraph(ha, parts, 2, bounds, obj, seed=seed)
            out3, gain3 = be.fm_refine_hypergraph(ha, parts, 3, bounds3, obj, seed=seed)
            assert gain == gain3
            np.testing.assert_array_equal(out, out3)
            check_against_scratch(h, parts, out, gain, bounds, obj)


@pytest.mark.parametrize("case", range(3))
def test_bisection_fm_with_nets_above_the_update_limit(case):
    """Vertices on nets of more than 1000 pins get their gains recomputed, not updated: heavy big
    nets with all but a pin or two on one side of the start, so that moves uncut and cut them."""
    be = get_backend("cpu")
    rng = np.random.default_rng(2000 + case)
    n = int(rng.integers(2400, 2800))
    parts = (rng.permutation(n) % 2).astype(np.int32)
    nets = [rng.choice(n, size=int(s), replace=False) for s in rng.integers(2, 7, size=3 * n)]
    ew = list(rng.integers(1, 10, size=len(nets)))
    for j in range(4):
        side = np.flatnonzero(parts == j % 2)
        other = np.flatnonzero(parts != j % 2)
        big = rng.choice(side, UPDATE_MAX_NET_SIZE + 1 + 40 * j, replace=False)
        nets.append(np.concatenate([big, rng.choice(other, j % 3, replace=False)]))
        ew.append(int(rng.integers(40, 80)))
    h = igpart.Hypergraph.from_nets(nets, n=n, vwgt=rng.integers(1, 4, size=n), ewgt=ew)
    ha = be.hypergraph_arrays(h)
    bounds = np.full(2, max_block_weight(h.total_weight, 2, 0.03), np.int64)
    bounds3 = np.append(bounds, -1).astype(np.int64)
    for obj in ("cut", "km1"):
        out, gain = be.fm_refine_hypergraph(ha, parts, 2, bounds, obj, seed=case)
        out3, gain3 = be.fm_refine_hypergraph(ha, parts, 3, bounds3, obj, seed=case)
        assert gain == gain3 > 0
        np.testing.assert_array_equal(out, out3)
        check_against_scratch(h, parts, out, gain, bounds, obj)
