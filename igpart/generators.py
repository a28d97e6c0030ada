"""Seeded generators of circuit-like hypergraphs and of the graph families of graph-partitioning
benchmarks (grids, Delaunay triangulations, random geometric graphs), so that anyone can rebuild
test inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .errors import InputError
from .hypergraph import Graph, Hypergraph

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


def copy_grid_pairs(scale: int) -> np.ndarray:
    """Neighbouring copies of an inflation: copy ``c`` sits at row ``c // w``, column ``c % w``
    of a grid ``w = ceil(sqrt(scale))`` wide; each copy neighbours the one to its right and the
    one below it. Returns the pairs ``(a, b)``, ``a < b``, as an int64 array of shape (p, 2)."""
    w = max(1, int(np.ceil(np.sqrt(scale))))
    c = np.arange(scale, dtype=np.int64)
    right = c[(c % w < w - 1) & (c + 1 < scale)]
    down = c[c + w < scale]
    pairs = np.concatenate([np.stack([right, right + 1], 1), np.stack([down, down + w], 1)])
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _local_nets(h: Hypergraph, rng: np.random.Generator, count: int, max_size: int):
    """``count`` nets of 2..``max_size`` pins, each a short random walk on ``h``'s incidence (a
    random pin, then a random net of the last vertex and a random pin of it, and so on), so every
    net joins vertices at most a few nets apart. Repeated vertices are merged; nets left with
    fewer than two pins are dropped. Returns (sizes, pins) in local vertex ids."""
    eptr, eind = h.eptr, h.eind.astype(np.int64)
    vptr, vind = h.vptr, h.vind.astype(np.int64)
    size = np.diff(eptr)
    nets = np.flatnonzero(size >= 2)
    if count == 0 or nets.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    want = rng.integers(2, max_size + 1, size=count)
    walk = np.empty((count, max_size), dtype=np.int64)
    e = nets[rng.integers(0, nets.size, size=count)]
    walk[:, 0] = eind[eptr[e] + (rng.random(count) * size[e]).astype(np.int64)]
    for j in range(1, max_size):  # a step per pin position (max_size is small), vectorised
        v = walk[:, j - 1]
        deg = vptr[v + 1] - vptr[v]
        e = vind[np.minimum(vptr[v] + (rng.random(count) * deg).astype(np.int64),
                            vind.size - 1)]
        nxt = eind[eptr[e] + (rng.random(count) * size[e]).astype(np.int64)]
        walk[:, j] = np.where(deg > 0, nxt, v)
    walk = np.sort(walk, axis=1)
    keep = np.arange(max_size)[None, :] < want[:, None]
    keep[:, 1:] &= walk[:, 1:] != walk[:, :-1]  # merge repeats (sorted rows)
    sizes = keep.sum(axis=1)
    ok = sizes >= 2
    return sizes[ok], walk[ok][keep[ok]]


def inflate(
    h: Hypergraph,
    scale: int,
    seed: int = 0,
    cross_fraction: float = 0.002,
    extra_fraction: float = 0.001,
    max_extra_size: int = 4,
    random_fraction: float = 0.0,
) -> Hypergraph:
    """A large circuit-like hypergraph from a small one that keeps its structure (HyperG §4
    enlarges ISPD98 circuits the same way): ``scale`` copies of ``h`` (copy c holds vertices
    ``c*n .. c*n+n-1``, weights copied) laid out on a grid (``copy_grid_pairs``), as tiles of a
    chip.

    - Rewired nets join neighbouring copies: for each pair of neighbouring copies,
      ``round(cross_fraction * m)`` distinct nets of one of them (chosen at random) have one pin
      other than the first (the driver) moved to the same vertex of the other copy (a net that
      two pairs pick in the same slot keeps the last move). Net sizes and
      the number of nets stay those of the copies.
    - ``round(extra_fraction * m * scale)`` extra nets of 2..``max_extra_size`` pins, each inside
      one copy and joining vertices a few nets apart (a short random walk, ``_local_nets``).
    - Only with ``random_fraction > 0``: ``round(random_fraction * m * scale)`` nets of
      2..``max_extra_size`` pins joining random vertices anywhere. Such nets put a floor under
      every cut (a bisection cuts about half of them) and hide a partitioner's losses: results
      with them are to be reported apart.

    Added nets weigh 1. Seeded: the same arguments give the same hypergraph. The first
    ``scale * m`` nets are the copies' nets in order (copy c's net e is net ``c*m + e``).
    """
    if int(scale) != scale or scale < 1:
        raise InputError(f"scale must be a positive integer, got {scale!r}")
    if not (0 <= cross_fraction and 0 <= extra_fraction and 0 <= random_fraction):
        raise InputError("cross_fraction, extra_fraction and random_fraction must be non-negative")
    if max_extra_size < 2:
        raise InputError("max_extra_size must be at least 2")
    scale = int(scale)
    n, m = h.n, h.m
    if n == 0:
        raise InputError("cannot inflate a hypergraph without vertices")
    rng = np.random.default_rng(seed)
    offsets = np.arange(scale, dtype=np.int64) * n
    net_size = np.diff(h.eptr)
    sizes = [np.tile(net_size, scale)]
    copies = (h.eind.astype(np.int64)[None, :] + offsets[:, None]).ravel()
    # rewiring between neighbouring copies: one non-driver pin of a net moves to the next copy
    per_pair = int(round(cross_fraction * m))
    movable = np.flatnonzero(net_size >= 2)
    pairs = copy_grid_pairs(scale)
    if per_pair and movable.size and pairs.size:
        src_is_a = rng.random(len(pairs)) < 0.5
        src = np.where(src_is_a, pairs[:, 0], pairs[:, 1])
        dst = np.where(src_is_a, pairs[:, 1], pairs[:, 0])
        take = min(per_pair, movable.size)
        # distinct nets per pair (a net of a copy may still be rewired once per neighbour)
        e = np.stack([rng.choice(movable, size=take, replace=False) for _ in range(len(pairs))])
        slot = h.eptr[e] + 1 + (rng.random(e.shape) * (net_size[e] - 1)).astype(np.int64)
        where = (src[:, None] * h.num_pins + slot).ravel()
        copies[where] += np.repeat((dst - src) * n, take)
    pins = [copies]
    # extra nets inside a copy, between vertices a few nets apart
    n_extra = int(round(extra_fraction * m * scale))
    if n_extra:
        esize, epins = _local_nets(h, rng, n_extra, max_extra_size)
        copy_of = rng.integers(0, scale, size=esize.size)
        sizes.append(esize)
        pins.append(epins + np.repeat(offsets[copy_of], esize))
    # optional nets between random vertices of the whole hypergraph
    n_random = int(round(random_fraction * m * scale))
    if n_random:
        rsize = rng.integers(2, max_extra_size + 1, size=n_random)
        sizes.append(rsize)
        pins.append(rng.integers(0, n * scale, size=int(rsize.sum())))
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


# ------------------------------------------------------------------------------------ graphs
def _graph_from_pairs(a: np.ndarray, b: np.ndarray, n: int) -> Graph:
    """The unit-weight graph on ``n`` vertices with an edge per pair ``(a[i], b[i])``, ``a != b``
    (repeated pairs in either direction merged); adjacency lists sorted."""
    import scipy.sparse as sp

    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    rows, cols = np.concatenate([a, b]), np.concatenate([b, a])
    # CSR by counting sort (O(pairs)), repeated pairs summed, then sorted within each row
    adj = sp.csr_matrix((np.ones(rows.size, dtype=np.int64), (rows, cols)), shape=(n, n))
    adj.sum_duplicates()
    xadj = adj.indptr.astype(np.int64)
    return Graph(xadj, adj.indices.astype(np.int32), n, check=False)  # weights: ones


def _positive_int(value, name: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise InputError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def grid_graph(nx: int, ny: int, nz: int = 1) -> Graph:
    """The ``nx`` x ``ny`` (x ``nz``) grid graph: vertex ``x + nx * (y + ny * z)`` is joined to
    its axis neighbours (4 inside a 2D grid, 6 inside a 3D one; corners of a 2D grid have 2, of
    a 3D grid 3). Unit weights."""
    nx, ny, nz = (_positive_int(v, name) for v, name in ((nx, "nx"), (ny, "ny"), (nz, "nz")))
    n = nx * ny * nz
    if n >= 2**31 - 1:
        raise InputError(f"a grid of {n} vertices is too large (at most 2^31-2)")
    v = np.arange(n, dtype=np.int64)
    x, y, z = v % nx, (v // nx) % ny, v // (nx * ny)
    src, dst = [], []
    for inside, step in ((x < nx - 1, 1), (y < ny - 1, nx), (z < nz - 1, nx * ny)):
        s = v[inside]  # one pass per axis, vectorised over the vertices
        src.append(s)
        dst.append(s + step)
    return _graph_from_pairs(np.concatenate(src), np.concatenate(dst), n)


def _random_points(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random((n, 2))


def _morton_order(points: np.ndarray) -> np.ndarray:
    """The permutation (int64) that sorts points of the unit square along a Z-order curve
    (16 bits per coordinate, the bits interleaved)."""
    def spread(x: np.ndarray) -> np.ndarray:  # bit i of x to bit 2i
        x = x.astype(np.uint64)
        for shift, mask in ((16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF),
                            (4, 0x0F0F0F0F0F0F0F0F), (2, 0x3333333333333333),
                            (1, 0x5555555555555555)):
            x = (x | (x << np.uint64(shift))) & np.uint64(mask)
        return x

    q = np.clip(points * 65536.0, 0, 65535).astype(np.uint32)
    return np.argsort(spread(q[:, 0]) | (spread(q[:, 1]) << np.uint64(1)), kind="stable")


def delaunay_graph(n: int, seed: int = 0) -> Graph:
    """The Delaunay triangulation of ``n`` random points of the unit square (uniform, seeded),
    as in the DIMACS-10 ``delaunay_n*`` graphs: vertices are the points, edges the sides of the
    triangles (``scipy.spatial.Delaunay``). Unit weights; needs ``n >= 3``."""
    from scipy.spatial import Delaunay

    n = _positive_int(n, "n", 3)
    points = _random_points(n, seed)
    # Qhull triangulates points in a Z (Morton) order faster (2^20 points: 0.75x the time);
    # the triangulation is the same, mapped back to the points' own ids
    order = _morton_order(points)
    s = order[Delaunay(points[order]).simplices]
    a = np.concatenate([s[:, 0], s[:, 1], s[:, 2]])
    b = np.concatenate([s[:, 1], s[:, 2], s[:, 0]])
    return _graph_from_pairs(a, b, n)


def rgg_radius(n: int) -> float:
    """The DIMACS-10 ``rgg_n_2_*`` radius ``0.55 * sqrt(ln n / n)`` (about 15 neighbours per
    vertex inside the square)."""
    return 0.55 * float(np.sqrt(np.log(n) / n))


def rgg_graph(n: int, seed: int = 0, radius: float | None = None) -> Graph:
    """The random geometric graph of ``n`` random points of the unit square (uniform, seeded):
    two points are joined when they lie less than ``radius`` apart (default :func:`rgg_radius`,
    as in the DIMACS-10 ``rgg_n_2_*`` graphs; ``scipy.spatial.cKDTree``). Unit weights; some
    vertices may have no neighbour."""
    from scipy.spatial import cKDTree

    n = _positive_int(n, "n", 2)
    r = rgg_radius(n) if radius is None else radius
    if isinstance(r, bool) or not isinstance(r, (int, float, np.floating)) or not 0 < r < 2:
        raise InputError(f"radius must be a number in (0, 2), got {radius!r}")
    pairs = cKDTree(_random_points(n, seed)).query_pairs(float(r), output_type="ndarray")
    return _graph_from_pairs(pairs[:, 0], pairs[:, 1], n)
