"""Helpers shared by the tests (random instances, oracles)."""

from __future__ import annotations

import numpy as np


def random_hypergraph(
    rng: np.random.Generator, n: int, m: int, max_size: int = 6, weighted: bool = False
):
    """A random hypergraph with nets of 1..max_size pins (pins may repeat before dedup)."""
    from igpart import Hypergraph

    sizes = rng.integers(1, max_size + 1, size=m)
    nets = [rng.integers(0, n, size=s) for s in sizes]
    vw = rng.integers(0, 20, size=n) if weighted else None
    ew = rng.integers(1, 10, size=m) if weighted else None
    return Hypergraph.from_nets(nets, n=n, vwgt=vw, ewgt=ew)


def oracle_metrics(h, parts, k):
    """Brute-force cut / km1 / soed / block weights with plain Python loops (tests only)."""
    cut = km1 = soed = 0
    for e in range(h.m):
        blocks = {int(parts[v]) for v in h.net(e)}
        lam = len(blocks)
        w = int(h.ewgt[e])
        if lam > 1:
            cut += w
            soed += w * lam
        km1 += w * max(lam - 1, 0)
    bw = [0] * k
    for v in range(h.n):
        bw[int(parts[v])] += int(h.vwgt[v])
    return cut, km1, soed, bw


def random_graph(rng: np.random.Generator, n: int, m: int, weighted: bool = False):
    """A random simple graph with about m edges (self loops dropped, repeats merged)."""
    from igpart import Graph

    u = rng.integers(0, n, size=m)
    v = rng.integers(0, n, size=m)
    keep = u != v
    u, v = u[keep], v[keep]
    w = rng.integers(1, 10, size=u.size) if weighted else None
    vw = rng.integers(0, 20, size=n) if weighted else None
    return Graph.from_edges(u, v, w, n=n, vwgt=vw)
