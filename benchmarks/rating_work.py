"""The work of the GPU rating kernels on a circuit, modelled with numpy (no GPU): the net-size
histogram, the pins a warp walks per vertex (its nets of 2..``max_net_size`` pins) and how often
it walks them (the shared table of 256 slots overflows for vertices with more neighbours: 4,
16, ... more passes; a heavy table of ``--heavy-slots`` takes them in one), and the clustering
rounds of one level (``_hypergraph.cluster``: which lone vertices each round rates again, with
the default reuse rule or ``keep_ties``; joins in a random order, so only the counts are
comparable, not the clusters). Every figure is per pin of the circuit.

    python benchmarks/rating_work.py cholesky_mc neuron stereo_vision ibm10 ibm11

Output per circuit: nets by size, the share of the rating work per size class, per-vertex
walk percentiles, then one line per variant: work of the first round and of all rounds, the
rounds taken and the vertices rated per round.
"""

from __future__ import annotations

import argparse

import numpy as np
from _data import load  # this folder is sys.path[0] when run as a script

#: slots of a warp's shared table (IGP_RATE_SLOTS in coarsen.cu)
SHARED_SLOTS = 256
#: net-size classes of the histogram
BINS = (2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1001, 2**62)


def rating_pairs(h, max_net_size: int, window: int):
    """(u, v, summed rating, walk per vertex, distinct neighbours per vertex) of every pair
    joined by a net of 2..max_net_size pins (through windows of ``window`` pins when > 0)."""
    size = np.diff(h.eptr).astype(np.int64)
    rated = (size >= 2) & (size <= max_net_size)
    walked = np.where(rated, np.minimum(size, window) if window else size, 0)
    pin_net = np.repeat(np.arange(h.m), size)
    u_pin = h.eind.astype(np.int64)
    cnt = walked[pin_net]
    pu, pe = np.repeat(u_pin, cnt), np.repeat(pin_net, cnt)
    t = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    # some start per (vertex, net): the model needs no more than the kernels' hash gives
    start = (pu * 2654435761 + pe * 40503) % size[pe] if window else 0
    pv = h.eind[h.eptr[pe] + (start + t) % size[pe]].astype(np.int64)
    term = h.ewgt[pe].astype(np.float64) / (size[pe] - 1)
    keep = pv != pu
    key, inv = np.unique(pu[keep] * h.n + pv[keep], return_inverse=True)
    score = np.bincount(inv, weights=term[keep])
    a, b = key // h.n, key % h.n
    walk = np.bincount(u_pin, weights=cnt, minlength=h.n)
    return a, b, score, walk, np.bincount(a, minlength=h.n)


def walks(distinct, heavy_slots: int):
    """Passes over its pins per vertex: 1 while its neighbours fit the table, else 1 (the pass
    that overflowed) + 4 + 16 + ... until a class of neighbours fits (best_neighbour)."""
    slots = np.where(distinct > SHARED_SLOTS, max(heavy_slots, SHARED_SLOTS), SHARED_SLOTS)
    out = np.ones(distinct.size)
    rest = distinct > slots
    p = 4
    while rest.any():
        out[rest] += p
        rest &= distinct / p > 0.95 * slots
        p *= 4
    return out


def rounds(h, a, b, score, cost, keep_ties: bool, shrink: float = 2.5, smax: int = 64,
           max_rounds: int = 12, seed: int = 0):
    """Rounds of the level's clustering (unit-weight model: the member limit binds): per round
    the vertices rated and their work (``cost`` per vertex)."""
    n = h.n
    rng = np.random.default_rng(seed)
    tie = (a * 0x9E3779B1 + b * 0x85EBCA77 + seed) % (1 << 32)
    rep, csize = np.arange(n), np.ones(n, dtype=np.int64)
    best, uniq = np.full(n, -1), np.zeros(n, dtype=bool)
    nc, target, out = n, int(n / shrink), []
    for r in range(max_rounds):
        if nc <= target:
            break
        alone = (rep == np.arange(n)) & (csize == 1)
        if r == 0:
            need = alone.copy()
        else:
            room = (best >= 0) & (csize[rep[np.maximum(best, 0)]] < smax)
            need = alone & ~((best < 0) | ((uniq | keep_ties) & room))
        sel = need[a] & (csize[rep[b]] < smax)
        sa, sb, ss = a[sel], b[sel], score[sel]
        order = np.lexsort((sb, tie[sel], csize[rep[sb]], -ss, sa))
        sa, sb, ss = sa[order], sb[order], ss[order]
        first = np.ones(sa.size, dtype=bool)
        first[1:] = sa[1:] != sa[:-1]
        choice = np.full(n, -1)
        choice[sa[first]] = sb[first]
        top = np.zeros(n)
        top[sa[first]] = ss[first]
        ties = np.bincount(sa[ss == top[sa]], minlength=n)
        best = np.where(need, choice, np.where(alone, best, -1))
        uniq = np.where(need, ties == 1, uniq)
        budget, joined = nc - target, 0
        us = np.flatnonzero(alone & (best >= 0))
        vs = best[us]
        mutual = alone[vs] & (best[vs] == us) & (us < vs)
        for u, v in zip(us[mutual], vs[mutual]):
            if joined >= budget:
                break
            rep[v], csize[u], joined = u, 2, joined + 1
        late = us[~alone[vs]]
        rng.shuffle(late)
        for u in late:
            r_ = rep[best[u]]
            if joined >= budget:
                break
            if csize[r_] < smax:
                rep[u], joined = r_, joined + 1
                csize[r_] += 1
        nc -= joined
        out.append((int(need.sum()), float(cost[need].sum())))
        if joined == 0:
            break
    return out, nc, target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("circuits", nargs="+")
    ap.add_argument("--max-net-size", type=int, default=1000)
    ap.add_argument("--heavy-slots", type=int, default=4096)
    ap.add_argument("--window", type=int, default=128)
    args = ap.parse_args()
    for name in args.circuits:
        h = load(name)
        pins = int(h.eind.shape[0])
        size = np.diff(h.eptr)
        hist = np.histogram(size, bins=BINS)[0]
        work = np.histogram(size, bins=BINS, weights=size.astype(float) ** 2)[0][:-1]
        labels = [f"{lo}-{hi - 1}" for lo, hi in zip(BINS[:-2], BINS[1:-1])] + [f">{BINS[-2] - 1}"]
        print(f"{name}: {h.n} vertices, {h.m} nets, {pins} pins")
        print("  nets by size  " + " ".join(f"{lab}:{c}" for lab, c in zip(labels, hist)))
        print("  work share    " + " ".join(f"{lab}:{w / work.sum():.2f}"
                                           for lab, w in zip(labels, work)))
        variants = [("default", 0, 0, False), ("heavy", args.heavy_slots, 0, False),
                    ("keep_ties", 0, 0, True), ("heavy+keep_ties", args.heavy_slots, 0, True),
                    (f"heavy+window{args.window}", args.heavy_slots, args.window, False),
                    (f"capped {200}", 0, 0, False)]
        cache = {}
        for label, slots, window, keep in variants:
            cap = 200 if label.startswith("capped") else args.max_net_size
            if (cap, window) not in cache:
                cache[(cap, window)] = rating_pairs(h, cap, window)
            a, b, score, walk, distinct = cache[(cap, window)]
            if label == "default":
                q = np.percentile(walk, [50, 90, 99, 99.9, 100])
                print("  walk per vertex p50/p90/p99/p99.9/max " + "/".join(f"{x:.0f}" for x in q)
                      + f", {int((walk > SHARED_SLOTS).sum())} vertices over {SHARED_SLOTS}")
            cost = walk * walks(distinct, slots)
            per, nc, target = rounds(h, a, b, score, cost, keep)
            print(f"  {label:22s} first round {per[0][1] / pins:6.1f}  all rounds "
                  f"{sum(w for _, w in per) / pins:6.1f}  rounds {len(per):2d} (clusters {nc}, "
                  f"target {target})  rated {[c for c, _ in per]}")


if __name__ == "__main__":
    main()
