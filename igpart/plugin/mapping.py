"""A process mapping kept by a :class:`~igpart.plugin.Session` (DESIGN §9): the session's k
blocks are the PEs of a machine hierarchy, and after every batch the vertices around the change
are refined with the mapping gain (:func:`igpart.mapping_im.refine_mapping`), so a simulator
that pushes design changes gets a refined mapping back.

After each batch the engine first refines the partition on its own objective (cut or km1);
then the region of the batch (the vertices it touched, created or moved, the pins of the nets it
touched, and their neighbours over nets of at most ``NEIGHBOUR_MAX_NET_SIZE`` pins) is refined
with the mapping gain on a compact copy of the live hypergraph. When the quality guard
re-partitioned, the new blocks are first placed on the PEs greedily (the two-phase placement)
when that costs less than keeping their ids, and every vertex may move. Cost and per-level
costs are recomputed from scratch on that copy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from ..mapping import (
    MAP_ALGORITHMS,
    block_communication,
    check_hierarchy,
    greedy_placement,
    level_costs,
    map_processes,
    parse_levels,
)
from ..mapping_im import refine_mapping

#: nets with more pins do not pull their pins into the refined region of a batch
NEIGHBOUR_MAX_NET_SIZE = 64


@dataclass
class KeptMapping:
    """The hierarchy and distances a session maps onto, and the last cost figures."""

    hierarchy: tuple[int, ...]
    distance: np.ndarray
    algorithm: str
    cost: int | float = 0
    level_costs: list = field(default_factory=list)
    moved: int = 0  # vertices the last mapping step moved
    seconds: float = 0.0

    def report(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "hierarchy": list(self.hierarchy),
            "distance": list(self.distance.tolist()),
            "algorithm": self.algorithm,
            "cost": self.cost,
            "level_costs": list(self.level_costs),
            "moved": self.moved,
            "seconds": round(self.seconds, 6),
        }


def levels_argument(value, name: str, kind=int) -> tuple:
    """A hierarchy or distance given as ``"4:8:2"`` (CLI, Tcl), ``"4 8 2"`` (a Tcl list) or a
    sequence (JSON, Python)."""
    if isinstance(value, str):
        return parse_levels(value if ":" in value else ":".join(value.split()), name, kind)
    return tuple(value) if hasattr(value, "__len__") else value


def start(dynamic, hierarchy, distance, algorithm: str, *, epsilon: float, seed: int = 0,
          backend: str = "auto", keep: bool = False) -> KeptMapping:  # fmt: skip
    """Maps the live hypergraph of ``dynamic`` (a DynamicHypergraph of k = prod(hierarchy)
    blocks) with ``algorithm`` and moves its vertices there; ``keep``: the current blocks are
    the PE ids already, only refined. Raises InputError (nothing moved) for a bad hierarchy,
    an unknown algorithm or a k that differs from the session's."""
    t0 = time.perf_counter()
    a, d = check_hierarchy(levels_argument(hierarchy, "hierarchy"),
                           levels_argument(distance, "distance", float))  # fmt: skip
    k = int(np.prod(a))
    if k != dynamic.k:
        raise InputError(f"the hierarchy {':'.join(map(str, a))} has k = {k} PEs but the "
                         f"session has k = {dynamic.k} blocks")  # fmt: skip
    if algorithm not in MAP_ALGORITHMS:
        raise InputError(
            f"unknown mapping algorithm '{algorithm}' (choose from {', '.join(MAP_ALGORITHMS)})"
        )
    kept = KeptMapping(a, d, algorithm)
    snap = dynamic.to_hypergraph()
    h = snap.hypergraph
    if not keep:
        parts = map_processes(h, a, d, epsilon, algorithm, backend, seed).parts
    else:
        parts = _refine(h, snap.parts, kept, dynamic.max_block_weight, None)
    _commit(dynamic, snap, parts, kept, t0)
    return kept


def after_batch(dynamic, kept: KeptMapping, seeds=(), seed_nets=(), full: bool = False
                ) -> dict[int, int]:  # fmt: skip
    """Refines the mapping after a batch: around ``seeds`` (vertex ids the batch touched,
    created or moved) and the pins of ``seed_nets`` (net ids it touched), or everywhere after a
    full re-partition (``full``: blocks placed on the PEs first). Returns {vertex id: new PE}
    of the vertices it moved."""
    t0 = time.perf_counter()
    snap = dynamic.to_hypergraph()
    h, parts = snap.hypergraph, snap.parts.astype(np.int64)
    k = int(np.prod(kept.hierarchy))
    active = None
    if full:  # the re-partition's blocks on the PEs: greedily placed, unless that costs more
        place = greedy_placement(block_communication(h, parts, k), kept.hierarchy, kept.distance)
        placed = place[parts]
        if (level_costs(h, placed, kept.hierarchy, kept.distance).sum()
                < level_costs(h, parts, kept.hierarchy, kept.distance).sum()):
            parts = placed
    else:
        active = _region(h, snap, seeds, seed_nets)
    new = _refine(h, parts, kept, dynamic.max_block_weight, active)
    return _commit(dynamic, snap, new, kept, t0)


def _refine(h, parts, kept: KeptMapping, bound: int, active) -> np.ndarray:
    k = int(np.prod(kept.hierarchy))
    out, _, _ = refine_mapping(h, parts, kept.hierarchy, kept.distance,
                               np.full(k, bound, dtype=np.int64), active=active)  # fmt: skip
    return out


def _region(h, snap, seeds, seed_nets) -> np.ndarray:
    """Bool per dense vertex: the live seed vertices, the pins of the live seed nets, and their
    neighbours over nets of at most NEIGHBOUR_MAX_NET_SIZE pins."""
    mask = np.zeros(h.n, dtype=bool)
    mask[_alive(snap.vertex_ids, np.unique(np.asarray(seeds, dtype=np.int64)))] = True
    nets = np.zeros(h.m, dtype=bool)
    nets[_alive(snap.net_ids, np.unique(np.asarray(seed_nets, dtype=np.int64)))] = True
    sizes = np.diff(h.eptr)
    mask[h.eind[np.repeat(nets, sizes)]] = True  # the pins of the seed nets
    # the nets of at most NEIGHBOUR_MAX_NET_SIZE pins with a pin in the region, then their pins
    nets = np.zeros(h.m, dtype=bool)
    nets[h.pin_nets[mask[h.eind]]] = True
    nets &= sizes <= NEIGHBOUR_MAX_NET_SIZE
    mask[h.eind[np.repeat(nets, sizes)]] = True
    return mask


def _alive(vertex_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Dense positions of the ``ids`` found in ``vertex_ids`` (ascending)."""
    pos = np.searchsorted(vertex_ids, ids)
    ok = pos < vertex_ids.size
    pos, ids = pos[ok], ids[ok]
    return pos[vertex_ids[pos] == ids]


def _commit(dynamic, snap, parts: np.ndarray, kept: KeptMapping, t0: float) -> dict[int, int]:
    """Moves the vertices whose PE changed in the engine and records the cost."""
    parts = np.asarray(parts, dtype=np.int64)
    idx = np.flatnonzero(parts != snap.parts)
    ids = snap.vertex_ids[idx]
    if idx.size:
        dynamic.move(ids, parts[idx])
    lc = level_costs(snap.hypergraph, parts, kept.hierarchy, kept.distance)
    kept.cost, kept.level_costs = lc.sum().item(), lc.tolist()
    kept.moved = int(idx.size)
    kept.seconds = time.perf_counter() - t0
    return dict(zip(ids.tolist(), parts[idx].tolist()))
