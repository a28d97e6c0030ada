"""Seeded generators of circuit-like hypergraphs, so that anyone can rebuild test inputs."""

from __future__ import annotations

import numpy as np

from .hypergraph import Hypergraph


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
        raise ValueError("random_circuit needs at least 2 vertices")
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
