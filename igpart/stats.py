"""Statistics of an input: the numbers ``igpart info`` prints and the plugin's ``read`` returns
(sizes, weights, degrees)."""

from __future__ import annotations

import numpy as np

from .hypergraph import Graph, Hypergraph


def _stats(a: np.ndarray) -> dict:
    if a.size == 0:
        return {"min": 0, "mean": 0.0, "max": 0}
    return {"min": int(a.min()), "mean": round(float(a.mean()), 4), "max": int(a.max())}


def describe(h: Hypergraph | Graph) -> dict:
    """The numbers ``igpart info`` prints."""
    if isinstance(h, Hypergraph):
        return {
            "kind": "hypergraph",
            "vertices": h.n,
            "nets": h.m,
            "pins": h.num_pins,
            "total_vertex_weight": h.total_weight,
            "total_net_weight": int(h.ewgt.sum()),
            "vertex_weight": _stats(h.vwgt),
            "net_weight": _stats(h.ewgt),
            "vertex_degree": _stats(h.vertex_degrees),
            "net_size": _stats(h.net_sizes),
            "nets_below_2_pins": int((h.net_sizes < 2).sum()),
            "isolated_vertices": int((h.vertex_degrees == 0).sum()),
        }
    return {
        "kind": "graph",
        "vertices": h.n,
        "edges": h.num_edges,
        "total_vertex_weight": h.total_weight,
        "total_edge_weight": int(h.adjwgt.sum() // 2),
        "vertex_weight": _stats(h.vwgt),
        "edge_weight": _stats(h.adjwgt),
        "degree": _stats(h.degrees),
        "isolated_vertices": int((h.degrees == 0).sum()),
    }
