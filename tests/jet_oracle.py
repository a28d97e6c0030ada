"""A plain-Python oracle of Jet refinement (``Backend.jet_refine_hypergraph``), written from the
docstring with dense pin counts and no shared code, for tiny hypergraphs (tests only)."""

from __future__ import annotations

import numpy as np

M64 = (1 << 64) - 1


def tie_hash(seed: int, a: int, b: int) -> int:
    """``igp::tie_hash`` (partition_common.h) in Python integers."""
    x = (seed * 0x9E3779B97F4A7C15) & M64
    x ^= (a + 0x632BE59BD9B4E019 + (x << 6) + (x >> 2)) & M64
    x ^= (b + 0x85EBCA77C2B2AE63 + (x << 6) + (x >> 2)) & M64
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & M64
    x ^= x >> 33
    return x & 0xFFFFFFFF


def _move_gain(obj: str, w: int, size: int, pf: int, pt: int) -> int:
    if size < 2:
        return 0
    if obj == "cut":
        return w * (int(pf < size) - int(pt + 1 < size))
    return w * (int(pf == 1) - int(pt == 0))


def _objective(h, parts, obj: str) -> int:
    total = 0
    for e in range(h.m):
        lam = len({int(parts[v]) for v in h.net(e)})
        w = int(h.ewgt[e])
        total += w * (lam > 1) if obj == "cut" else w * max(lam - 1, 0)
    return total


def _pass(credit_out, cand, target, active, cur, vw, bw, bounds, k) -> bool:
    """One balance pass: ``active`` &= the acceptance rule; whether it changed."""
    out = [0] * k
    if credit_out:
        for i, u in enumerate(cand):
            if active[i]:
                out[cur[u]] += vw[u]
    run = [0] * k
    changed = False
    for i, u in enumerate(cand):  # priority order inside each destination
        b = target[u]
        if not active[i]:
            continue
        run[b] += vw[u]
        if bw[b] - out[b] + run[b] > max(int(bounds[b]), bw[b]):
            active[i] = False
            changed = True
    return changed


def jet_oracle(
    h,
    parts,
    k,
    bounds,
    obj,
    *,
    max_iterations=64,
    patience=12,
    negative_gain_factor=0.25,
    min_improvement=0.001,
    afterburner_max_net_size=256,
    balance_rounds=3,
    seed=0,
):
    """(parts, gain) as the backends return them."""
    n = h.n
    cur = [int(x) for x in parts]
    nets = [[int(v) for v in h.net(e)] for e in range(h.m)]
    vnets = [[] for _ in range(n)]
    for e, pins in enumerate(nets):
        for v in pins:
            vnets[v].append(e)
    ew = [int(x) for x in h.ewgt]
    vw = [int(x) for x in h.vwgt]
    best_parts = list(cur)
    if n == 0 or h.m == 0 or max_iterations <= 0:
        return np.asarray(best_parts, dtype=np.int32), 0
    initial = _objective(h, cur, obj)
    best = ref = initial
    since = prev_moved = 0
    locked = [False] * n
    bw = [0] * k
    for v in range(n):
        bw[cur[v]] += vw[v]
    for it in range(max_iterations):
        phi = [[0] * k for _ in range(h.m)]
        for e, pins in enumerate(nets):
            for v in pins:
                phi[e][cur[v]] += 1
        target, gain = [-1] * n, [0] * n
        for u in range(n):
            if locked[u]:
                continue
            s = cur[u]
            base = internal = 0
            tp, conn = {}, {}
            for e in vnets[u]:
                size = len(nets[e])
                if size < 2:
                    continue
                pf = phi[e][s]
                base += _move_gain(obj, ew[e], size, pf, 0)
                internal += ew[e] if pf >= 2 else 0
                for b in range(k):
                    if b != s and phi[e][b] > 0:
                        extra = _move_gain(obj, ew[e], size, pf, phi[e][b]) - _move_gain(
                            obj, ew[e], size, pf, 0
                        )
                        tp[b] = tp.get(b, 0) + extra
                        conn[b] = conn.get(b, 0) + ew[e]
            if not tp:
                continue
            d = min(tp, key=lambda b: (-(base + tp[b]), -conn[b], b))
            g = base + tp[d]
            if g >= 0 or -g < int(negative_gain_factor * internal):
                target[u], gain[u] = d, g
        cand = [u for u in range(n) if target[u] >= 0]
        cand.sort(key=lambda u: (-gain[u], tie_hash(seed, it, u), u))
        rank = {u: i for i, u in enumerate(cand)}
        keep = []
        for i, u in enumerate(cand):
            frm, to = cur[u], target[u]
            g = 0
            for e in vnets[u]:
                size = len(nets[e])
                if size < 2:
                    continue
                if size > afterburner_max_net_size:
                    pf, pt = phi[e][frm], phi[e][to]
                else:
                    blocks = [target[v] if rank.get(v, n + 1) < i else cur[v] for v in nets[e]]
                    pf, pt = blocks.count(frm), blocks.count(to)
                g += _move_gain(obj, ew[e], size, pf, pt)
            keep.append(g >= 0)
        active = list(keep)

        for _ in range(balance_rounds):
            _pass(True, cand, target, active, cur, vw, bw, bounds, k)
        ok = list(active)
        if _pass(True, cand, target, active, cur, vw, bw, bounds, k):
            active[:] = ok
            _pass(False, cand, target, active, cur, vw, bw, bounds, k)
        moved = 0
        locked = [False] * n
        for i, u in enumerate(cand):
            if active[i]:
                bw[cur[u]] -= vw[u]
                bw[target[u]] += vw[u]
                cur[u] = target[u]
                locked[u] = True
                moved += 1
        if moved == 0 and prev_moved == 0:
            break
        prev_moved = moved
        o = _objective(h, cur, obj)
        if o < best:
            if float(ref - o) > min_improvement * float(ref):
                since, ref = 0, o
            else:
                since += 1
            best, best_parts = o, list(cur)
        else:
            since += 1
        if since >= patience:
            break
    return np.asarray(best_parts, dtype=np.int32), initial - best
