"""Default bodies of stage operations for a backend without its own: the C++ backend's
implementation on host copies of the level, the result moved back to the backend's arrays.

A device backend composes :class:`HostFallback` before :class:`~igpart.kernels.backend.Backend`
and overrides what it runs natively; the contract (arguments, postconditions) stays in
``backend.py``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .backend import Backend, GraphArrays, HypergraphArrays
from .cpu import CpuBackend


def _host_level(be: Backend, hg: HypergraphArrays):
    """Host (numpy) copies of a backend level, in HypergraphArrays form."""
    return HypergraphArrays(
        n=hg.n, m=hg.m, total_weight=hg.total_weight,
        **{name: np.asarray(be.to_host(getattr(hg, name)))
           for name in ("eptr", "eind", "vptr", "vind", "vwgt", "ewgt")},
    )


def _host_graph(be: Backend, g: GraphArrays) -> GraphArrays:
    """Host (numpy) copies of a backend graph level."""
    return GraphArrays(
        n=g.n, total_weight=g.total_weight,
        **{name: np.asarray(be.to_host(getattr(g, name)))
           for name in ("xadj", "adjncy", "adjwgt", "vwgt")},
    )


class HostFallback:
    """Stage operations run by the C++ backend on host copies (see the module docstring); the
    options are those of the same-named ``Backend`` methods."""

    def communities(self, hg: HypergraphArrays, **options):
        cpu = CpuBackend()
        comm = cpu.communities(cpu.hypergraph_arrays(_host_level(self, hg)), **options)
        return self.asarray(comm, "int32")

    def cluster_hypergraph(self, hg: HypergraphArrays, max_cluster_weight: int, *,
                           communities=None, **options) -> tuple[Any, int]:
        cpu = CpuBackend()
        comm = None if communities is None else self.to_host(communities)
        cmap, nc = cpu.cluster_hypergraph(cpu.hypergraph_arrays(_host_level(self, hg)),
                                          max_cluster_weight, communities=comm, **options)
        return self.asarray(cmap, "int32"), int(nc)

    def cluster_graph_lp(self, g: GraphArrays, max_cluster_weight: int,
                         **options) -> tuple[Any, int]:
        cmap, nc = CpuBackend().cluster_graph_lp(_host_graph(self, g), max_cluster_weight,
                                                 **options)
        return self.asarray(cmap, "int32"), nc

    def lp_refine_graph(self, g: GraphArrays, parts, k: int, max_block_weights,
                        **options) -> tuple[Any, int]:
        out, gain = CpuBackend().lp_refine_graph(
            _host_graph(self, g), self.to_host(parts), k, self.to_host(max_block_weights),
            **options)
        return self.asarray(out, "int32"), gain

    #: ``fm_refine_graph`` takes ``deterministic`` (the C++ backend's parallel graph FM).
    parallel_graph_fm = True

    def fm_refine_graph(self, g: GraphArrays, parts, k: int, max_block_weights,
                        **options) -> tuple[Any, int]:
        out, gain = CpuBackend().fm_refine_graph(
            _host_graph(self, g), self.to_host(parts), k, self.to_host(max_block_weights),
            **options)
        return self.asarray(out, "int32"), gain
