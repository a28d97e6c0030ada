"""Immutable CSR hypergraphs and graphs over numpy arrays (DESIGN §2).

``Hypergraph``: ``n`` vertices, ``m`` nets; ``eptr`` (int64, m+1) / ``eind`` (int32) list the pins
of each net, ``vptr`` / ``vind`` the nets of each vertex (built on first use); ``vwgt`` and ``ewgt``
are int64. Pins inside a net are unique (duplicates are merged on construction). Nets with fewer
than two pins are kept; they never count in the cut.

``Graph``: symmetric CSR ``xadj`` (int64) / ``adjncy`` (int32) with ``adjwgt`` and ``vwgt``
(int64); no self loops, no repeated neighbours, ``w(u, v) == w(v, u)``.

All arrays are read-only views; the objects never change after construction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .errors import InputError
from .kernels import _cpu


class cached_property:  # noqa: N801 (named like the functools one it replaces)
    """``functools.cached_property`` without its lock: before Python 3.12 that lock is one per
    property for all instances, so threads asking for ``vptr`` of different hypergraphs (the
    bisections of recursive bisection) waited for each other (k = n on ibm01: 31% of the
    samples in that wait). Two threads may compute the same value at once; it is the same
    immutable value either way."""

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)  # found there next time
        return value

#: Default scale of clique-expansion edge weights: weights are round(scale * sum w_e/(|e|-1)),
#: exact for nets of up to 6 pins with unit weights (lcm(1..5) = 60).
CLIQUE_SCALE = 60


def _frozen(a: np.ndarray, dtype) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=dtype)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def _all_ones(a: np.ndarray) -> bool:
    """Whether every entry of ``a`` is 1: a short prefix first (weighted inputs differ early),
    then the rest in slices (no temporary the size of ``a``)."""
    step = 1 << 16
    for lo in range(0, a.size, step):
        if (a[lo : lo + step] != 1).any():
            return False
    return True


def _as_int_array(values, name: str, length: int | None, default: int | None) -> np.ndarray:
    """Validates a weight vector: integral, non-negative, of the right length."""
    if values is None:
        if length is None or default is None:
            raise InputError(f"{name} is required")
        return _cpu.filled(int(length), int(default))  # pages touched on the threads
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise InputError(f"{name} has {arr.shape[0]} entries, expected {length}")
    if arr.size and arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InputError(f"{name} must hold integers")
    elif arr.size and arr.dtype.kind not in "iub":
        raise InputError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.size and arr.dtype.kind in "fu" and arr.max() > _INT64_MAX:
        bad = int(np.argmax(arr))
        raise InputError(f"{name}[{bad}] = {arr[bad]} exceeds 2**63 - 1")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and arr.min() < 0:
        bad = int(np.flatnonzero(arr < 0)[0])
        raise InputError(f"{name}[{bad}] = {int(arr[bad])} is negative")
    # totals (block weights, cut sums) are int64: refuse weights whose sum would overflow them
    if arr.size and sum_exceeds_int64(arr) is not None:
        raise InputError(f"{name} sum to more than 2**63 - 1 (totals would overflow)")
    return arr


_INT64_MAX = 2**63 - 1


def _check_km1_total(ewgt: np.ndarray, eptr: np.ndarray) -> None:
    """Refuses net weights whose km1 total (weight times net size, summed) would overflow."""
    if ewgt.size and sum_exceeds_int64(ewgt, np.diff(eptr)) is not None:
        raise InputError("net weights times net sizes sum to more than 2**63 - 1 "
                         "(km1 would overflow)")


def sum_exceeds_int64(w: np.ndarray, mult: np.ndarray | None = None) -> int | None:
    """Index of the element at which the running sum of ``w * mult`` (non-negative integers)
    first exceeds ``2**63 - 1``, or None when the whole sum fits."""
    f = w.astype(np.float64)
    if mult is not None:
        f *= mult
    est = float(f.sum())
    if est < 0.999999 * 2.0**63:
        return None
    if est > 1.000001 * 2.0**63:
        return int(min(np.searchsorted(np.cumsum(f), 2.0**63), w.size - 1))
    # within rounding of the limit: exact, with Python integers (only for such inputs)
    ws = w.tolist()
    ms = mult.tolist() if mult is not None else [1] * len(ws)
    total = 0
    for i, (a, b) in enumerate(zip(ws, ms)):
        total += a * b
        if total > _INT64_MAX:
            return i
    return None



def _check_ptr(ptr: np.ndarray, nind: int, name: str) -> None:
    if ptr.ndim != 1 or ptr.size < 1:
        raise InputError(f"{name} must be a non-empty 1-D array")
    if ptr[0] != 0 or ptr[-1] != nind:
        raise InputError(f"{name} must start at 0 and end at {nind}, got {ptr[0]}..{ptr[-1]}")
    bad = _cpu.first_decrease(ptr)  # on the threads, without a difference array
    if bad >= 0:
        raise InputError(f"{name} decreases at row {bad}")


class Hypergraph:
    """An immutable hypergraph in CSR form. Build it with a ``from_*`` constructor or ``igpart.io``.

    >>> h = Hypergraph.from_nets([[0, 1, 2], [2, 3]])
    >>> h.n, h.m, h.num_pins
    (4, 2, 5)
    """

    def __init__(self, eptr, eind, n: int, vwgt=None, ewgt=None, *, check: bool = True):
        eptr = np.asarray(eptr)
        eind = np.asarray(eind)
        if check:
            if eind.ndim != 1:
                raise InputError("pin array must be one-dimensional")
            if eind.size and eind.dtype.kind not in "iu":
                raise InputError(f"pin ids must be integers, got dtype {eind.dtype}")
            n = int(n)
            if n < 0:
                raise InputError(f"number of vertices must be non-negative, got {n}")
            eptr = eptr.astype(np.int64, copy=False)
            _check_ptr(eptr, eind.size, "net pointer")
            if eind.size:
                lo, hi = int(eind.min()), int(eind.max())
                if lo < 0 or hi >= n:
                    bad = int(np.flatnonzero((eind < 0) | (eind >= n))[0])
                    net = int(np.searchsorted(eptr, bad, side="right") - 1)
                    raise InputError(f"net {net} has pin {int(eind[bad])} out of range [0, {n})")
            if n >= 2**31 - 1:
                raise InputError("more than 2^31-2 vertices are not supported")
            eind = eind.astype(np.int32, copy=False)
            m = eptr.size - 1
            deduped = _cpu.dedup_rows(eptr, eind, n)
            if deduped is not None:
                eptr, eind = deduped
            # default weights: the unit_*_weights properties known without a pass
            if vwgt is None:
                self.__dict__["unit_vertex_weights"] = True
            if ewgt is None:
                self.__dict__["unit_net_weights"] = True
            vwgt = _as_int_array(vwgt, "vertex weights", n, 1)
            ewgt = _as_int_array(ewgt, "net weights", m, 1)
            if not self.__dict__.get("unit_net_weights"):  # unit weights: km1 < the pins
                _check_km1_total(ewgt, eptr)
        self.n = int(n)
        self.eptr = _frozen(eptr, np.int64)
        self.eind = _frozen(eind, np.int32)
        self.vwgt = _frozen(vwgt, np.int64)
        self.ewgt = _frozen(ewgt, np.int64)

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_nets(
        cls, nets: Iterable[Sequence[int]], n: int | None = None, vwgt=None, ewgt=None
    ) -> Hypergraph:
        """From a list of pin lists (0-based vertex ids). ``n`` defaults to max id + 1."""
        nets = [np.asarray(e, dtype=np.int64).ravel() for e in nets]
        sizes = np.fromiter((e.size for e in nets), dtype=np.int64, count=len(nets))
        eptr = np.zeros(len(nets) + 1, dtype=np.int64)
        np.cumsum(sizes, out=eptr[1:])
        eind = np.concatenate(nets) if nets else np.zeros(0, dtype=np.int64)
        if n is None:
            n = int(eind.max()) + 1 if eind.size else (len(vwgt) if vwgt is not None else 0)
        return cls(eptr, eind, n, vwgt, ewgt)

    @classmethod
    def from_csr(cls, eptr, eind, n: int | None = None, vwgt=None, ewgt=None) -> Hypergraph:
        """From CSR arrays net -> pins."""
        eind = np.asarray(eind)
        if n is None:
            n = int(eind.max()) + 1 if eind.size else (len(vwgt) if vwgt is not None else 0)
        return cls(eptr, eind, n, vwgt, ewgt)

    @classmethod
    def from_incidence(cls, matrix, vwgt=None, ewgt=None) -> Hypergraph:
        """From a scipy.sparse incidence matrix (n vertices x m nets); non-zeros are pins."""
        import scipy.sparse as sp

        if not sp.issparse(matrix):
            raise InputError("incidence matrix must be a scipy.sparse matrix")
        csc = sp.csc_matrix(matrix, copy=True)
        csc.eliminate_zeros()
        csc.sort_indices()
        n, _ = csc.shape
        return cls(csc.indptr.astype(np.int64), csc.indices, n, vwgt, ewgt)

    # ----------------------------------------------------------------- shape and views
    @property
    def m(self) -> int:
        """Number of nets."""
        return self.eptr.size - 1

    @property
    def num_pins(self) -> int:
        return int(self.eind.size)

    @cached_property
    def _vertex_incidence(self) -> tuple[np.ndarray, np.ndarray]:
        vptr, vind = _cpu.csr_transpose(self.eptr, self.eind, self.n)
        return _frozen(vptr, np.int64), _frozen(vind, np.int32)

    @property
    def vptr(self) -> np.ndarray:
        """Vertex -> nets pointer (int64, n+1); nets of a vertex are listed in ascending order."""
        return self._vertex_incidence[0]

    @property
    def vind(self) -> np.ndarray:
        return self._vertex_incidence[1]

    @cached_property
    def net_sizes(self) -> np.ndarray:
        return _frozen(np.diff(self.eptr), np.int64)

    @cached_property
    def vertex_degrees(self) -> np.ndarray:
        return _frozen(np.bincount(self.eind, minlength=self.n), np.int64)

    @cached_property
    def pin_nets(self) -> np.ndarray:
        """Net id of each pin in ``eind`` order (int32)."""
        return _frozen(np.repeat(np.arange(self.m, dtype=np.int32), self.net_sizes), np.int32)

    @cached_property
    def total_weight(self) -> int:
        return int(self.vwgt.sum())

    @cached_property
    def unit_vertex_weights(self) -> bool:
        """Whether every vertex weighs 1 (known without a pass when the weights were left to
        their default)."""
        return _all_ones(self.vwgt)

    @cached_property
    def unit_net_weights(self) -> bool:
        """Whether every net weighs 1 (known without a pass when the weights were left to
        their default)."""
        return _all_ones(self.ewgt)

    def net(self, e: int) -> np.ndarray:
        return self.eind[self.eptr[e] : self.eptr[e + 1]]

    def nets_of(self, v: int) -> np.ndarray:
        return self.vind[self.vptr[v] : self.vptr[v + 1]]

    # ----------------------------------------------------------------- derived structures
    def drop_small_nets(self, min_size: int = 2) -> Hypergraph:
        """A copy without nets of fewer than ``min_size`` pins (vertices are kept)."""
        keep = self.net_sizes >= min_size
        if keep.all():
            return self
        sizes = self.net_sizes[keep]
        eptr = np.zeros(sizes.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=eptr[1:])
        eind = self.eind[np.repeat(keep, self.net_sizes)]
        return Hypergraph(eptr, eind, self.n, self.vwgt, self.ewgt[keep], check=False)

    def with_weights(self, vwgt=None, ewgt=None) -> Hypergraph:
        """A copy with other vertex and/or net weights."""
        vw = self.vwgt if vwgt is None else _as_int_array(vwgt, "vertex weights", self.n, None)
        ew = self.ewgt if ewgt is None else _as_int_array(ewgt, "net weights", self.m, None)
        if ewgt is not None:
            _check_km1_total(ew, self.eptr)
        return Hypergraph(self.eptr, self.eind, self.n, vw, ew, check=False)

    def to_incidence(self):
        """scipy.sparse CSC incidence matrix of shape (n, m) with ones at pins."""
        import scipy.sparse as sp

        data = np.ones(self.num_pins, dtype=np.int8)
        return sp.csc_matrix((data, self.eind.copy(), self.eptr.copy()), shape=(self.n, self.m))

    def to_graph(
        self, model: str = "clique", max_net_size: int | None = None, scale: int = CLIQUE_SCALE
    ) -> Graph:
        """Graph view of the hypergraph.

        ``clique``: every pair of pins of a net e gets weight w_e/(|e|-1), summed over nets, then
        multiplied by ``scale`` and rounded to an integer >= 1 (METIS-style graphs need integers).
        Nets above ``max_net_size`` pins are left out. Vertex weights are kept.

        ``star``: one extra vertex (weight 0) per net, joined to each pin with weight w_e; the
        net vertices are numbered n .. n+m-1.
        """
        if model == "clique":
            limit = np.iinfo(np.int64).max if max_net_size is None else int(max_net_size)
            xadj, adjncy, adjwgt = _cpu.clique_expand(
                self.eptr, self.eind, self.ewgt, self.vptr, self.vind, limit, float(scale)
            )
            return Graph(xadj, adjncy, self.n, adjwgt, self.vwgt, check=False)
        if model == "star":
            net_vertex = self.n + self.pin_nets.astype(np.int64)
            u = np.concatenate([self.eind.astype(np.int64), net_vertex])
            v = np.concatenate([net_vertex, self.eind.astype(np.int64)])
            w = np.concatenate([self.ewgt[self.pin_nets], self.ewgt[self.pin_nets]])
            vw = np.concatenate([self.vwgt, np.zeros(self.m, dtype=np.int64)])
            return Graph._from_symmetric_coo(u, v, w, self.n + self.m, vw)
        raise InputError(f"unknown graph model '{model}' (use 'clique' or 'star')")

    # ----------------------------------------------------------------- comparison and repr
    def equals(self, other: Hypergraph) -> bool:
        """Same vertices, nets (pins in the same order) and weights."""
        return (
            isinstance(other, Hypergraph)
            and self.n == other.n
            and np.array_equal(self.eptr, other.eptr)
            and np.array_equal(self.eind, other.eind)
            and np.array_equal(self.vwgt, other.vwgt)
            and np.array_equal(self.ewgt, other.ewgt)
        )

    def __repr__(self) -> str:
        return f"Hypergraph(n={self.n}, m={self.m}, pins={self.num_pins})"


class Graph:
    """An immutable undirected graph in symmetric CSR form (METIS conventions, 0-based).

    Edge and vertex weights left out (None) are ones; the graph then knows that they are
    (:attr:`unit_edge_weights`, :attr:`unit_vertex_weights`) without reading them, and a device
    backend fills them in its own memory instead of copying them."""

    def __init__(self, xadj, adjncy, n: int | None = None, adjwgt=None, vwgt=None, *, check=True):
        xadj = np.asarray(xadj)
        adjncy = np.asarray(adjncy)
        if n is None:
            n = xadj.size - 1
        if adjwgt is None:
            self.unit_edge_weights = True  # seeds the cached property
        if vwgt is None:
            self.unit_vertex_weights = True
        if check:
            n = int(n)
            if xadj.size != n + 1:
                raise InputError(f"xadj has {xadj.size} entries, expected n+1 = {n + 1}")
            if adjncy.ndim != 1 or (adjncy.size and adjncy.dtype.kind not in "iu"):
                raise InputError("adjncy must be a 1-D integer array")
            xadj = xadj.astype(np.int64, copy=False)
            _check_ptr(xadj, adjncy.size, "xadj")
            if n >= 2**31 - 1:
                raise InputError("more than 2^31-2 vertices are not supported")
            if adjncy.size and (adjncy.min() < 0 or adjncy.max() >= n):
                bad = int(np.flatnonzero((adjncy < 0) | (adjncy >= n))[0])
                u = int(np.searchsorted(xadj, bad, side="right") - 1)
                raise InputError(
                    f"vertex {u} has neighbour {int(adjncy[bad])} out of range [0, {n})"
                )
            adjncy = adjncy.astype(np.int32, copy=False)
            adjwgt = _as_int_array(adjwgt, "edge weights", adjncy.size, 1)
            vwgt = _as_int_array(vwgt, "vertex weights", n, 1)
            _check_symmetric(xadj, adjncy, adjwgt, n)
        else:
            if adjwgt is None:
                adjwgt = _cpu.filled(np.asarray(adjncy).size, 1)
            if vwgt is None:
                vwgt = _cpu.filled(int(n), 1)
        self.n = int(n)
        self.xadj = _frozen(xadj, np.int64)
        self.adjncy = _frozen(adjncy, np.int32)
        self.adjwgt = _frozen(adjwgt, np.int64)
        self.vwgt = _frozen(vwgt, np.int64)

    @classmethod
    def from_edges(cls, u, v, w=None, n: int | None = None, vwgt=None) -> Graph:
        """From an undirected edge list; each edge given once (either direction). Repeated edges
        are merged with summed weights; self loops raise InputError."""
        u = np.asarray(u, dtype=np.int64).ravel()
        v = np.asarray(v, dtype=np.int64).ravel()
        if u.size != v.size:
            raise InputError(f"edge lists differ in length ({u.size} vs {v.size})")
        w = _as_int_array(w, "edge weights", u.size, 1)
        if n is None:
            n = int(max(u.max(), v.max())) + 1 if u.size else (len(vwgt) if vwgt is not None else 0)
        if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
            bad = int(np.flatnonzero((u < 0) | (u >= n) | (v < 0) | (v >= n))[0])
            raise InputError(
                f"edge {bad} ({u[bad]}, {v[bad]}) has an endpoint out of range [0, {n})"
            )
        loops = np.flatnonzero(u == v)
        if loops.size:
            raise InputError(f"edge {int(loops[0])} is a self loop on vertex {int(u[loops[0]])}")
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        key = lo * n + hi
        uniq, inv = np.unique(key, return_inverse=True)
        wsum = np.bincount(inv, weights=w, minlength=uniq.size).astype(np.int64)
        a, b = uniq // n, uniq % n
        vw = _as_int_array(vwgt, "vertex weights", n, 1)
        return cls._from_symmetric_coo(
            np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([wsum, wsum]), n, vw
        )

    @classmethod
    def from_adjacency(cls, matrix, vwgt=None) -> Graph:
        """From a symmetric scipy.sparse adjacency matrix (integer weights, zero diagonal)."""
        import scipy.sparse as sp

        if not sp.issparse(matrix):
            raise InputError("adjacency matrix must be a scipy.sparse matrix")
        if matrix.shape[0] != matrix.shape[1]:
            raise InputError(f"adjacency matrix must be square, got shape {matrix.shape}")
        csr = sp.csr_matrix(matrix, copy=True)
        csr.eliminate_zeros()
        csr.sort_indices()
        diag = csr.diagonal()
        if np.any(diag != 0):
            raise InputError(f"self loop on vertex {int(np.flatnonzero(diag)[0])}")
        return cls(csr.indptr.astype(np.int64), csr.indices, csr.shape[0], csr.data, vwgt)

    @classmethod
    def _from_symmetric_coo(cls, u, v, w, n, vwgt) -> Graph:
        order = np.lexsort((v, u))
        u, v, w = u[order], v[order], w[order]
        xadj = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(u, minlength=n), out=xadj[1:])
        return cls(xadj, v.astype(np.int32), n, w.astype(np.int64), vwgt, check=False)

    @property
    def num_edges(self) -> int:
        """Number of undirected edges."""
        return int(self.adjncy.size // 2)

    @cached_property
    def degrees(self) -> np.ndarray:
        return _frozen(np.diff(self.xadj), np.int64)

    @cached_property
    def total_weight(self) -> int:
        return int(self.vwgt.sum())

    @cached_property
    def unit_edge_weights(self) -> bool:
        """Whether every edge weighs 1 (known without a read where the weights were left out)."""
        return _all_ones(self.adjwgt)

    @cached_property
    def unit_vertex_weights(self) -> bool:
        """Whether every vertex weighs 1 (as :attr:`unit_edge_weights`)."""
        return _all_ones(self.vwgt)

    def neighbors(self, u: int) -> np.ndarray:
        return self.adjncy[self.xadj[u] : self.xadj[u + 1]]

    def edge_list(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each undirected edge once, as (u, v, w) with u < v."""
        src = np.repeat(np.arange(self.n, dtype=np.int64), self.degrees)
        keep = src < self.adjncy
        return src[keep], self.adjncy[keep].astype(np.int64), self.adjwgt[keep]

    def to_hypergraph(self) -> Hypergraph:
        """Each edge becomes a 2-pin net of the edge's weight."""
        u, v, w = self.edge_list()
        eptr = np.arange(0, 2 * u.size + 1, 2, dtype=np.int64)
        eind = np.empty(2 * u.size, dtype=np.int32)
        eind[0::2], eind[1::2] = u, v
        return Hypergraph(eptr, eind, self.n, self.vwgt, w, check=False)

    def to_adjacency(self):
        import scipy.sparse as sp

        return sp.csr_matrix(
            (self.adjwgt.copy(), self.adjncy.copy(), self.xadj.copy()), shape=(self.n, self.n)
        )

    def equals(self, other: Graph) -> bool:
        return (
            isinstance(other, Graph)
            and self.n == other.n
            and np.array_equal(self.xadj, other.xadj)
            and np.array_equal(self.adjncy, other.adjncy)
            and np.array_equal(self.adjwgt, other.adjwgt)
            and np.array_equal(self.vwgt, other.vwgt)
        )

    def __repr__(self) -> str:
        return f"Graph(n={self.n}, edges={self.num_edges})"


def find_asymmetry(xadj: np.ndarray, adjncy: np.ndarray, adjwgt: np.ndarray, n: int):
    """The first defect of a CSR adjacency, or None: ``(kind, u, v, w_uv, w_vu)`` with kind one of
    ``loop`` (u lists itself; the first in CSR order), ``repeat`` (u lists v twice; the smallest
    (u, v)), ``missing`` (u lists v, v does not list u; the pair whose smaller of (u, v), (v, u)
    is smallest), ``weight`` (the two directions disagree on the weight; the smallest (u, v)),
    checked in that order. In C++ on the OpenMP threads: one pass over the arcs finds self loops,
    rows out of order and repeats next to each other, and sums a 64-bit hash of every arc (u, v,
    w) against that of (v, u, w); rows in order with equal sums have no defect (an asymmetric
    adjacency passes with a chance of about 2^-64), else passes that look every arc up in its
    neighbour's sorted row rank the first defect."""
    if adjncy.size == 0:
        return None
    return _cpu.graph_defect(np.ascontiguousarray(xadj, dtype=np.int64),
                             np.ascontiguousarray(adjncy, dtype=np.int32),
                             np.ascontiguousarray(adjwgt, dtype=np.int64))


def describe_asymmetry(defect, base: int = 0) -> str:
    kind, u, v, w1, w2 = defect
    u, v = u + base, v + base
    if kind == "loop":
        return f"vertex {u} has a self loop"
    if kind == "repeat":
        return f"vertex {u} lists neighbour {v} more than once"
    if kind == "missing":
        return f"vertex {u} lists neighbour {v}, but vertex {v} does not list {u}"
    return f"edge ({u}, {v}) has weight {w1} but edge ({v}, {u}) has weight {w2}"


def _check_symmetric(xadj: np.ndarray, adjncy: np.ndarray, adjwgt: np.ndarray, n: int) -> None:
    """Raises InputError on self loops, repeated neighbours or a missing / unequal reverse edge."""
    defect = find_asymmetry(xadj, adjncy, adjwgt, n)
    if defect is not None:
        raise InputError(describe_asymmetry(defect))
