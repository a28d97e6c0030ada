"""The GPU backend's clustering rounds emulated with numpy inside the C++ backend's pipeline, to
compare their variants on a machine without a GPU: per variant, the partition's cut over seeds.

The emulation follows ``igpart.kernels.gpu._hypergraph.cluster``: rounds in which every lone
vertex rates its neighbours (``Σ w_e / (|e| - 1)`` over shared nets of at most
``max_net_size`` pins; with ``by_cluster`` summed per neighbouring cluster), keeps the best one
whose cluster has room (weight, 64 members, same community; ties: the lighter cluster, then a
seeded hash), then mutual choices of lone vertices pair up and lone vertices join the cluster
of their choice (in a random order standing for the device's atomics; at most the joins that
keep the level's target size), with ``accept`` a lone vertex chosen without a mutual choice
taking its proposers (from the second round on); after the rounds, lone vertices are paired
with the lone vertex of their last choice. Not emulated: the pairing of vertices that no
rating reaches, and a capacity failure that lets a later join into the same cluster succeed
(here a join fails once the joins before it in the order fill the cluster). The rating expands
every net into its pin pairs: inputs up to a few hundred thousand vertices.

A variant is ``P/L``: ``P`` the clustering of the partition's levels, ``L`` that of the levels
coarsened before Louvain (Louvain then runs on the C++ backend, as the GPU backend's does), each
``cpp`` (the C++ backend's own clustering), ``old`` (``rating_by_cluster`` and
``cluster_accept`` off, rounds until one joins nothing), ``new`` (the GPU's default rounds: both
on, the rounds ending after one that joins fewer than ``MIN_ROUND_JOINS`` of the level) or
``new2`` (as ``new``, but a lone vertex takes its proposers only when at least two chose it);
``L`` may end in ``+lands`` (the last level before Louvain shrinks only to Louvain's level,
``_backend.COMMUNITY_LEVEL_LANDS``, the GPU's default). With ``--coarsening hyperg`` the
partition's levels are the C++ backend's balanced groups and ``P`` does not act. For example,
the GPU's k = 16 setting on an enlarged ISPD98 circuit, against the rounds with both switches
off::

    python benchmarks/cluster_emulation.py --case ibm01:20 -k 16 --coarsening hyperg \\
        --variants old/old,old/new,old/new+lands --seeds 1,2,3
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

import numpy as np
from _data import load  # this folder is sys.path[0] when run as a script

import igpart
from igpart.kernels.cpu import CpuBackend

MAX_MEMBERS = 64  # _hypergraph.CLUSTER_MAX_SIZE
ROUNDS = 12  # _hypergraph.CLUSTER_ROUNDS
ACCEPT_FROM = 1  # _hypergraph.CLUSTER_ACCEPT_FROM
MIN_ROUND_JOINS = 0.001  # _hypergraph.CLUSTER_MIN_ROUND_JOINS (the kinds new and new2)
KINDS = ("cpp", "old", "new", "new2")
ACCEPTS = {"old": 0, "new": 1, "new2": 2}  # the proposers a lone vertex needs to accept them
MIN_JOINS = {"old": 0.0, "new": MIN_ROUND_JOINS, "new2": MIN_ROUND_JOINS}


def pin_pairs(hg, max_net_size: int):
    """Every ordered pair of distinct pins of the nets of 2 to ``max_net_size`` pins: (u, v, the
    net's term ``w_e / (|e| - 1)``)."""
    eptr, eind = np.asarray(hg.eptr), np.asarray(hg.eind)
    ewgt = np.asarray(hg.ewgt)
    size = np.diff(eptr)
    nets = np.flatnonzero((size >= 2) & (size <= max_net_size))
    s = size[nets]
    sq = s * s
    net = np.repeat(nets, sq)
    pos = np.arange(int(sq.sum())) - np.repeat(np.cumsum(sq) - sq, sq)
    per = np.repeat(s, sq)
    a, b = pos // per, pos % per
    keep = a != b
    net, a, b = net[keep], a[keep], b[keep]
    u = eind[eptr[net] + a].astype(np.int64)
    v = eind[eptr[net] + b].astype(np.int64)
    return u, v, ewgt[net] / (size[net] - 1.0)


def tie_hash(seed: int, u, v):
    x = (u * 0x9E3779B1 + v * 0x85EBCA77 + seed * 0xC2B2AE3D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    return x ^ (x >> 12)


def cluster(hg, mcw: int, max_net_size: int, max_shrink: float, seed: int, *,
            by_cluster: bool = False, accept: int = 0, communities=None,
            min_joins: float = 0.0):
    """One level's clustering (see the module's docstring); returns (cmap int32, clusters).
    ``accept``: 0 off, else the proposers a lone vertex needs to take them as its cluster;
    ``min_joins``: the rounds end after one that joins fewer than this fraction of the level's
    vertices (0: only after one that joins none)."""
    n = hg.n
    vwgt = np.asarray(hg.vwgt).astype(np.int64)
    rng = np.random.default_rng(seed)
    pu, pv, term = pin_pairs(hg, max_net_size)
    ids = np.arange(n)
    rep, cw, csize = ids.copy(), vwgt.copy(), np.ones(n, dtype=np.int64)
    best = np.full(n, -1, dtype=np.int64)
    nc, target = n, int(n / max_shrink)
    for r in range(ROUNDS):
        if nc <= target:
            break
        single = (rep == ids) & (csize == 1)
        sel = (single & (vwgt <= mcw))[pu]
        u, v = pu[sel], pv[sel]
        key = u * n + (rep[v] if by_cluster else v)
        keys, inv = np.unique(key, return_inverse=True)
        score = np.bincount(inv, weights=term[sel])
        cu, cv = keys // n, keys % n
        rv = rep[cv]
        room = (cw[rv] + vwgt[cu] <= mcw) & (csize[rv] < MAX_MEMBERS)
        if communities is not None:
            room &= communities[cu] == communities[cv]
        cu, cv, score, rv = cu[room], cv[room], score[room], rv[room]
        order = np.lexsort((tie_hash(seed + r, cu, cv), cw[rv], -score, cu))
        cu, cv = cu[order], cv[order]
        first = np.ones(cu.size, dtype=bool)
        first[1:] = cu[1:] != cu[:-1]
        best[:] = -1
        best[cu[first]] = cv[first]
        if accept and r >= ACCEPT_FROM:  # cluster_hubs, cluster_hubs_apply
            us = np.flatnonzero((best >= 0) & single)
            vs = best[us]
            vs = vs[single[vs] & (best[vs] != us)]
            single = single.copy()
            single[np.bincount(vs, minlength=n) >= int(accept)] = False
        us = np.flatnonzero((best >= 0) & single)
        vs = best[us]
        pair = single[vs] & (best[vs] == us) & (us < vs)
        join = ~single[vs]
        ju = np.concatenate([us[pair], us[join]])
        jv = np.concatenate([vs[pair], vs[join]])
        into = np.concatenate([np.zeros(pair.sum(), bool), np.ones(join.sum(), bool)])
        perm = rng.permutation(ju.size)
        ju, jv, into = ju[perm], jv[perm], into[perm]
        ok = np.ones(ju.size, dtype=bool)
        at = np.flatnonzero(into)
        if at.size:  # joins into a cluster: room in the random order
            r_of = rep[jv[at]]
            o = np.argsort(r_of, kind="stable")
            ro, wo = r_of[o], vwgt[ju[at][o]]
            start = np.r_[0, np.flatnonzero(ro[1:] != ro[:-1]) + 1]
            group = np.repeat(np.arange(start.size), np.diff(np.r_[start, ro.size]))
            count = np.arange(ro.size) - start[group] + 1
            cum = np.cumsum(wo)
            wsum = cum - (cum - wo)[start][group]
            fits = np.empty(at.size, dtype=bool)
            fits[o] = (csize[ro] + count <= MAX_MEMBERS) & (cw[ro] + wsum <= mcw)
            ok[at] = fits
        take = np.flatnonzero(ok)[:max(nc - target, 0)]
        if take.size == 0:
            break
        a, b, joins = ju[take], jv[take], into[take]
        rep[b[~joins]] = a[~joins]
        csize[a[~joins]] = 2
        cw[a[~joins]] = vwgt[a[~joins]] + vwgt[b[~joins]]
        a, b = a[joins], rep[b[joins]]
        rep[a] = b
        np.add.at(csize, b, 1)
        np.add.at(cw, b, vwgt[a])
        nc -= take.size
        if take.size < n * min_joins:
            break
    if nc > target:  # _pair_choices
        alone = (rep == ids) & (csize == 1)
        to_ = np.maximum(best, 0)
        prop = np.flatnonzero(alone & (best >= 0) & alone[to_] & (best != ids))
        if prop.size:
            to_ = best[prop]
            o = np.lexsort((tie_hash(seed, prop, 977), to_))
            prop, to_ = prop[o], to_[o]
            first = np.ones(to_.size, dtype=bool)
            first[1:] = to_[1:] != to_[:-1]
            u, v = prop[first], to_[first]
            chosen = np.zeros(n, dtype=bool)
            chosen[v] = True
            keep = ~chosen[u] & (vwgt[u] + vwgt[v] <= mcw)
            u, v = u[keep][:nc - target], v[keep][:nc - target]
            rep[u] = v
            csize[v] += 1
            cw[v] += vwgt[u]
    root = rep == ids
    dense = np.cumsum(root) - 1
    return dense[rep].astype(np.int32), int(dense[-1]) + 1


class EmulatedBackend(CpuBackend):
    """The C++ backend with the emulated GPU clustering in the partition's levels (``part``)
    and in the levels before Louvain (``louvain``; ``lands``: the last one lands on Louvain's
    level)."""

    def __init__(self, part: str, louvain: str, lands: bool):
        super().__init__()
        self.part, self.louvain, self.lands = part, louvain, lands
        self.louvain_levels: list[int] = []  # the vertices of each level Louvain ran on

    def communities(self, hg, *, max_net_size=50, level_max=-1, seed=0, k=0, **kw):
        limit = self.community_level_max(k) if level_max < 0 else int(level_max)
        maps, cur = [], hg
        while 0 < limit < cur.n:
            shrink = max(min(4.0, cur.n / limit), 1.01) if self.lands else 4.0
            if self.louvain == "cpp":
                cmap, nc = super().cluster_hypergraph(cur, cur.total_weight,
                                                      max_net_size=max_net_size,
                                                      max_shrink=shrink, seed=seed)
            else:
                cmap, nc = cluster(cur, cur.total_weight, max_net_size, shrink, seed,
                                   by_cluster=self.louvain != "old",
                                   accept=ACCEPTS[self.louvain],
                                   min_joins=MIN_JOINS[self.louvain])
            if nc > 0.9 * cur.n:
                break
            maps.append(cmap)
            cur = self.contract_hypergraph(cur, cmap, nc)
        self.louvain_levels.append(cur.n)
        comm = super().communities(cur, max_net_size=max_net_size, level_max=0, seed=seed, k=k,
                                   **kw)
        for cmap in reversed(maps):
            comm = comm[cmap]
        return comm

    def cluster_hypergraph(self, hg, max_cluster_weight, *, max_net_size=50, communities=None,
                           max_shrink=2.5, weight_penalty=False, seed=0, **kw):
        if self.part == "cpp":
            return super().cluster_hypergraph(hg, max_cluster_weight, max_net_size=max_net_size,
                                              communities=communities, max_shrink=max_shrink,
                                              weight_penalty=weight_penalty, seed=seed, **kw)
        comm = None if communities is None else np.asarray(communities)
        return cluster(hg, int(max_cluster_weight), int(max_net_size), float(max_shrink),
                       int(seed), by_cluster=self.part != "old", accept=ACCEPTS[self.part],
                       communities=comm, min_joins=MIN_JOINS[self.part])


def parse_variant(text: str) -> tuple[str, str, bool]:
    part, _, louvain = text.partition("/")
    lands = louvain.endswith("+lands")
    louvain = louvain.removesuffix("+lands")
    if part not in KINDS or louvain not in KINDS:
        raise SystemExit(f"cluster_emulation.py: bad variant {text!r} (P/L with P and L of "
                         f"{', '.join(KINDS)}, L optionally ending in +lands)")
    return part, louvain, lands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", required=True, help="circuit:scale (enlarged by the suite's "
                    "generator), e.g. ibm01:20")
    ap.add_argument("-k", type=int, required=True)
    ap.add_argument("--variants", default="old/old,new/new")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--coarsening", choices=("heavy_edge", "hyperg"), default="heavy_edge")
    ap.add_argument("--level", type=int, default=30000,
                    help="Louvain's level (the GPU's: 30,000 below k = 64, 100,000 from it)")
    ap.add_argument("--max-shrink", type=float, default=3.0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--config", type=json.loads, default={}, help="more Config fields (JSON)")
    args = ap.parse_args()
    variants = {v: parse_variant(v) for v in args.variants.split(",")}
    seeds = [int(s) for s in args.seeds.split(",")]
    name, _, scale = args.case.partition(":")
    h = load(name, int(scale or 1), seed=1)
    cfg = {"coarsening": args.coarsening, "community_level_vertices": args.level,
           "max_shrink": args.max_shrink, **args.config}
    if args.threads:
        cfg["threads"] = args.threads
    print(f"{args.case}: {h.n} vertices, k = {args.k}, {cfg}", flush=True)
    cuts: dict[str, list[int]] = {v: [] for v in variants}
    for seed in seeds:
        for v, (part, louvain, lands) in variants.items():
            t = time.perf_counter()
            be = EmulatedBackend(part, louvain, lands)
            p = igpart.partition(h, args.k, backend=be, seed=seed, config=cfg)
            if not p.balanced:
                raise SystemExit(f"unbalanced partition: {v}, seed {seed}")
            cuts[v].append(p.cut)
            print(f"seed {seed} {v:16s} cut {p.cut:>9,} {time.perf_counter() - t:6.1f} s  "
                  f"Louvain on {be.louvain_levels} vertices", flush=True)
    geo = {v: math.exp(statistics.mean(math.log(max(c, 1)) for c in cs))
           for v, cs in cuts.items()}
    ref = next(iter(variants))
    for v in variants:
        print(f"{v:16s} cuts {cuts[v]} geomean {geo[v]:,.1f} ({geo[v] / geo[ref]:.3f}x {ref})")


if __name__ == "__main__":
    main()
