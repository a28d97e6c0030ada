"""Seeded generators of circuit-like hypergraphs, so that anyone can rebuild test inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .errors import InputError
from .hypergraph import Hypergraph

if TYPE_CHECKING:
    from .dynamic import Batch, DynamicHypergraph


def random_circuit(
    n: int = 20000,
    nets_per_vertex: float = 1.1,
    radius: int = 3,
    seed: int = 0,
    max_net_size: int = 30,
) -> Hypergraph:
    """A circuit-like hypergraph: ``n`` cells on a square grid; each net joins a driver with cells
    near it (within ``radius`` grid steps), with net sizes falling off geometrically like the
    fan-outs of a gate-level netlist (about half the nets have 2 pins). Every vertex has weight 1.
    """
    if n < 2:
        raise InputError("random_circuit needs at least 2 vertices")
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    m = max(1, int(round(n * nets_per_vertex)))
    sizes = np.minimum(1 + rng.geometric(0.5, size=m), max_net_size)
    drivers = rng.integers(0, n, size=m)
    total = int(sizes.sum())
    eptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(sizes, out=eptr[1:])
    owner = np.repeat(drivers, sizes)
    x, y = owner % side, owner // side
    dx = rng.integers(-radius, radius + 1, size=total)
    dy = rng.integers(-radius, radius + 1, size=total)
    pins = np.clip(y + dy, 0, side - 1) * side + np.clip(x + dx, 0, side - 1)
    pins = np.where(pins < n, pins, owner)
    first = eptr[:-1]
    pins[first] = drivers  # pin 0 of each net is its driver
    return Hypergraph(eptr, pins, n)


def inflate(
    h: Hypergraph,
    scale: int,
    seed: int = 0,
    cross_fraction: float = 0.002,
    extra_fraction: float = 0.001,
    max_extra_size: int = 4,
) -> Hypergraph:
    """A large circuit-like hypergraph from a small one, the HyperG §4 way: ``scale`` copies of
    ``h`` (copy c holds vertices ``c*n .. c*n+n-1``, weights copied), joined by
    ``round(cross_fraction * m * scale)`` random cross-copy nets (2 or 3 pins: a random vertex of
    a random copy c, one of copy c +- d with d >= 1 geometrically distributed, so that copies
    are mostly joined to nearby copies, and for 3-pin nets a second vertex of copy c), plus
    ``round(extra_fraction * m * scale)`` random extra nets of 2..``max_extra_size`` pins
    anywhere. Added nets weigh 1. Seeded: the same arguments give the same hypergraph.
    """
    if int(scale) != scale or scale < 1:
        raise InputError(f"scale must be a positive integer, got {scale!r}")
    if not (0 <= cross_fraction and 0 <= extra_fraction):
        raise InputError("cross_fraction and extra_fraction must be non-negative")
    if max_extra_size < 2:
        raise InputError("max_extra_size must be at least 2")
    scale = int(scale)
    n, m = h.n, h.m
    if n == 0:
        raise InputError("cannot inflate a hypergraph without vertices")
    rng = np.random.default_rng(seed)
    offsets = np.arange(scale, dtype=np.int64) * n
    sizes = [np.tile(np.diff(h.eptr), scale)]
    pins = [(h.eind.astype(np.int64)[None, :] + offsets[:, None]).ravel()]
    # cross-copy nets
    n_cross = int(round(cross_fraction * m * scale)) if scale > 1 else 0
    if n_cross:
        c = rng.integers(0, scale, size=n_cross)
        step = np.minimum(rng.geometric(0.5, size=n_cross), scale - 1)
        partner = (c + np.where(rng.random(n_cross) < 0.5, step, -step)) % scale
        csize = rng.integers(2, 4, size=n_cross)
        a = c * n + rng.integers(0, n, size=n_cross)
        b = partner * n + rng.integers(0, n, size=n_cross)
        third = c * n + rng.integers(0, n, size=n_cross)
        block = np.stack([a, b, third], axis=1)
        keep = np.arange(3)[None, :] < csize[:, None]
        sizes.append(csize)
        pins.append(block[keep])
    # random extra nets
    n_extra = int(round(extra_fraction * m * scale))
    if n_extra:
        esize = rng.integers(2, max_extra_size + 1, size=n_extra)
        sizes.append(esize)
        pins.append(rng.integers(0, n * scale, size=int(esize.sum())))
    sizes_all = np.concatenate(sizes)
    eptr = np.zeros(sizes_all.size + 1, dtype=np.int64)
    np.cumsum(sizes_all, out=eptr[1:])
    added = sizes_all.size - m * scale
    # unit weights stay the default (the GPU upload then makes them on the device)
    ewgt = (None if h.unit_net_weights
            else np.concatenate([np.tile(h.ewgt, scale), np.ones(added, dtype=np.int64)]))
    vwgt = None if h.unit_vertex_weights else np.tile(h.vwgt, scale)
    return Hypergraph(eptr, np.concatenate(pins), n * scale, vwgt, ewgt)


def timing_batch(d: DynamicHypergraph, rng: np.random.Generator, size: int = 100) -> Batch:
    """A seeded batch of about ``size`` records shaped like one timing-optimisation step on the
    current state of ``d``: buffer insertions (35%: a new cell and net take over some sinks of
    a net of at least 3 pins), gate sizings (30%: a cell's weight becomes 1..4), gate removals
    (15%: a cell's pins are disconnected, then the cell is deleted) and pin moves (20%: a cell
    leaves one of its nets and joins a net of a cell it shared that net with: local rewiring).
    Records of one batch touch disjoint cells and nets, so they are independent. The batch is
    valid for ``d`` as it is now.

    >>> from igpart.dynamic import DynamicHypergraph
    >>> h = random_circuit(500, seed=1)
    >>> d = DynamicHypergraph.from_hypergraph(h, [0] * 500, k=1)
    >>> b = timing_batch(d, np.random.default_rng(0), 50)
    >>> len(b) >= 50, d.apply(b).touched_vertices.size > 0
    (True, True)
    """
    from .dynamic import Batch

    b = Batch()
    bound_v, bound_e = d.vertex_bound, d.net_bound
    alive_v = d.vertex_alive  # one copy per batch; entries we touch are kept consistent below
    alive_e = d.net_alive
    used_v: set[int] = set()  # cells already changed in this batch (keeps records independent)
    used_e: set[int] = set()

    def live_vertex() -> int:
        while True:
            v = int(rng.integers(bound_v))
            if alive_v[v] and v not in used_v:
                used_v.add(v)
                return v

    def live_net(min_pins: int = 1) -> tuple[int, np.ndarray]:
        while True:
            e = int(rng.integers(bound_e))
            if alive_e[e] and e not in used_e:
                pins = d.pins_of(e)
                if pins.size >= min_pins and not used_v.intersection(pins.tolist()):
                    used_e.add(e)
                    return e, pins

    while len(b) < size:
        kind = rng.random()
        if kind < 0.35:  # buffer insertion: driver keeps net e, the buffer drives some sinks
            e, pins = live_net(min_pins=3)
            used_v.update(pins.tolist())
            sinks = rng.choice(pins[1:], size=int(rng.integers(1, pins.size - 1)), replace=False)
            buf = b.insert_vertex(1)
            e2 = b.insert_net(1)
            for s in sinks:
                b.delete_pin(int(s), e)
                b.insert_pin(int(s), e2)
            b.insert_pin(buf, e)
            b.insert_pin(buf, e2)
        elif kind < 0.65:  # gate sizing
            b.set_vertex_weight(live_vertex(), int(rng.integers(1, 5)))
        elif kind < 0.8:  # gate removal: disconnect, then remove
            v = live_vertex()
            for e in d.nets_of(v):
                if int(e) in used_e:
                    break
            else:
                for e in d.nets_of(v):
                    b.delete_pin(v, int(e))
                b.delete_vertex(v)
                alive_v[v] = False
        else:  # pin move (local rewiring): v leaves a net and joins a net of a neighbour
            v = live_vertex()
            nets = d.nets_of(v)
            if nets.size == 0 or int(nets[0]) in used_e:
                continue
            u = int(rng.choice(d.pins_of(int(nets[0]))))
            near = [int(e) for e in d.nets_of(u) if int(e) not in used_e and e not in nets]
            if u == v or not near:
                continue
            e2 = near[int(rng.integers(len(near)))]
            pins2 = d.pins_of(e2)
            if used_v.intersection(pins2.tolist()):
                continue
            used_e.update((int(nets[0]), e2))
            used_v.update(pins2.tolist())
            b.delete_pin(v, int(nets[0]))
            b.insert_pin(v, e2)
    return b
