"""Hypergraph and graph views of a :class:`~igpart.netlist.circuit.Circuit`.

Vertices are the live instances (in id order) followed by the top-level ports; hyperedges are
the live nets that are not skipped. A hyperedge holds each vertex once, however many of its pins
sit on the net, so the pin count of the view is the number of distinct (vertex, net) pairs.

Skipping: ``skip_nets`` (names), ``max_net_size`` (nets with more distinct vertices than this),
``skip_clock`` (nets named like a clock — ``clk``/``clock`` in the name, any case — or connected
to a pin the library marks ``clock: true``), ``skip_constants`` (the nets ``1'b0``/``1'b1``).

Weights: ``"unit"`` gives every vertex weight 1; ``"area"`` gives an instance
``max(1, round(area * area_scale))`` with the cell area from the library (``area_scale``
defaults to 100 / the smallest positive area among the used cells, i.e. the smallest cell weighs
100) and ports weight 0. A cell without an area in area mode is an InputError naming it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..hypergraph import Graph, Hypergraph

CLOCK_NAME = re.compile(r"clk|clock", re.I)
WEIGHTS = ("unit", "area")


@dataclass
class HypergraphView:
    """A hypergraph of a circuit with the maps back to names.

    ``vertex_of_instance`` / ``vertex_of_port`` (int32, -1: not a vertex), ``net_of`` (circuit
    net id -> hyperedge id or -1), ``instance_of_vertex`` (vertex -> instance id, or -1-port id).
    """

    hypergraph: Hypergraph
    vertex_names: list[str]
    net_names: list[str]
    vertex_of_instance: np.ndarray
    vertex_of_port: np.ndarray
    net_of: np.ndarray
    instance_of_vertex: np.ndarray
    num_instance_vertices: int

    def blocks_by_name(self, parts, include_ports: bool = False) -> dict[str, int]:
        """``{instance name: block}`` from block ids per vertex (ports too if asked)."""
        parts = np.asarray(parts)
        if parts.ndim != 1 or parts.size < len(self.vertex_names):
            raise InputError(
                f"expected a block id per vertex ({len(self.vertex_names)}), got {parts.size}"
            )
        n = len(self.vertex_names) if include_ports else self.num_instance_vertices
        return dict(zip(self.vertex_names[:n], parts[:n].tolist()))


@dataclass
class GraphView(HypergraphView):
    """A graph of a circuit (``graph``) with the same maps; for the star model the net vertices
    come after the circuit vertices and carry no name."""

    graph: Graph | None = None
    model: str = "clique"


def names_matching(names: list[str], pattern: re.Pattern) -> np.ndarray:
    """bool per name: does ``pattern`` match inside it (one regex scan over all names)."""
    flag = np.zeros(len(names), dtype=bool)
    if not names:
        return flag
    text = "\n".join(names)
    starts = np.zeros(len(names), dtype=np.int64)
    np.cumsum(np.fromiter(map(len, names), dtype=np.int64, count=len(names))[:-1] + 1,
              out=starts[1:])  # fmt: skip
    hits = np.fromiter((m.start() for m in pattern.finditer(text)), dtype=np.int64)
    flag[np.searchsorted(starts, hits, side="right") - 1] = True
    return flag


def _clock_nets(circuit, owner, pname, net) -> np.ndarray:
    """Nets named like a clock, or connected to a pin the library marks as a clock pin."""
    flag = names_matching(circuit.net_names, CLOCK_NAME)
    lib = circuit.library
    if lib is None:
        return flag
    table = circuit._pin_names
    clock_pin_names = {p for c in lib.cells.values() for p in c.clock_pins}
    ids = [i for i, s in enumerate(table) if s in clock_pin_names]
    cand = np.flatnonzero(np.isin(pname, ids) & (owner >= 0) & (net >= 0))
    if cand.size == 0:
        return flag
    cells, cell_of_inst = np.unique(
        np.array(circuit.instance_cells, dtype=object).astype(str), return_inverse=True
    )
    npn = len(table)
    key = cell_of_inst[owner[cand]].astype(np.int64) * npn + pname[cand]
    kinds, kind_of = np.unique(key, return_inverse=True)
    is_clock = np.array(
        [
            (lc := lib.cells.get(str(cells[k // npn]))) is not None
            and table[k % npn] in lc.clock_pins
            for k in kinds.tolist()
        ],
        dtype=bool,
    )
    flag[net[cand[is_clock[kind_of]]]] = True
    return flag


def _vertex_weights(circuit, inst_ids: np.ndarray, nports: int, weights: str, area_scale):
    if weights == "unit":
        return np.ones(inst_ids.size + nports, dtype=np.int64)
    if weights != "area":
        raise InputError(f"unknown weights '{weights}' (unit or area)")
    lib = circuit.library
    if lib is None:
        raise InputError("area weights need a library (.lib)")
    cells = np.array(circuit.instance_cells, dtype=object)[inst_ids]
    kinds, inv = np.unique(cells.astype(str), return_inverse=True)
    areas = np.empty(kinds.size, dtype=np.float64)
    for k, c in enumerate(kinds.tolist()):
        lc = lib.cells.get(c)
        if lc is None or lc.area is None:
            raise InputError(f"cell '{c}' has no area in library '{lib.name}' (use weights='unit')")
        areas[k] = lc.area
    if area_scale is None:
        pos = areas[areas > 0]
        area_scale = 100.0 / pos.min() if pos.size else 1.0
    w = np.maximum(1, np.rint(areas * float(area_scale))).astype(np.int64)[inv]
    return np.concatenate([w, np.zeros(nports, dtype=np.int64)])


def hypergraph_view(
    circuit,
    weights: str = "unit",
    skip_nets: Iterable[str] | None = None,
    max_net_size: int | None = None,
    skip_clock: bool = True,
    skip_constants: bool = True,
    area_scale: float | None = None,
) -> HypergraphView:
    """See the module docstring."""
    if max_net_size is not None and (
        isinstance(max_net_size, bool) or int(max_net_size) != max_net_size or max_net_size < 1
    ):
        raise InputError(f"max_net_size must be a positive integer, got {max_net_size!r}")
    n_inst_ids = len(circuit.instance_names)
    nports = circuit.num_ports
    alive = circuit._insts.alive.view
    inst_ids = np.flatnonzero(alive)
    ni = inst_ids.size
    vertex_of_instance = np.full(n_inst_ids, -1, dtype=np.int32)
    vertex_of_instance[inst_ids] = np.arange(ni, dtype=np.int32)
    vertex_of_port = np.arange(ni, ni + nports, dtype=np.int32)
    n = ni + nports
    owner = circuit._owner.view
    pname = circuit._pname.view
    net = circuit._pnet.view

    keep = circuit._nets.alive.view.copy()
    if skip_nets is not None:
        for s in skip_nets:
            keep[circuit.net_id(s)] = False
    if skip_constants:
        for s in ("1'b0", "1'b1"):
            k = circuit._nets.live(s)
            if k is not None:
                keep[k] = False
    if skip_clock:
        keep &= ~_clock_nets(circuit, owner, pname, net)

    on = net >= 0
    # one spare entry, so that the lookup stays valid in a netlist without instances
    lookup = np.append(vertex_of_instance, np.int32(-1))
    vert = np.where(owner >= 0, lookup[np.maximum(owner, 0)], ni + (-1 - owner))
    pairs = np.unique(net[on].astype(np.int64) * max(n, 1) + vert[on].astype(np.int64))
    pnet = pairs // max(n, 1)
    pv = (pairs % max(n, 1)).astype(np.int32)
    sizes = np.bincount(pnet, minlength=len(circuit.net_names))
    if max_net_size is not None:
        keep &= sizes <= int(max_net_size)
    net_ids = np.flatnonzero(keep)
    net_of = np.full(len(circuit.net_names), -1, dtype=np.int32)
    net_of[net_ids] = np.arange(net_ids.size, dtype=np.int32)
    sel = keep[pnet]
    eind = pv[sel]
    eptr = np.zeros(net_ids.size + 1, dtype=np.int64)
    np.cumsum(sizes[net_ids], out=eptr[1:])
    vwgt = _vertex_weights(circuit, inst_ids, nports, weights, area_scale)
    h = Hypergraph(eptr, eind, n, vwgt, np.ones(net_ids.size, dtype=np.int64), check=False)
    names = np.array(circuit.instance_names, dtype=object)[inst_ids].tolist() + list(
        circuit.port_names
    )
    inst_of_vertex = np.concatenate(
        [inst_ids.astype(np.int32), -1 - np.arange(nports, dtype=np.int32)]
    )
    return HypergraphView(
        hypergraph=h,
        vertex_names=names,
        net_names=np.array(circuit.net_names, dtype=object)[net_ids].tolist(),
        vertex_of_instance=vertex_of_instance,
        vertex_of_port=vertex_of_port,
        net_of=net_of,
        instance_of_vertex=inst_of_vertex,
        num_instance_vertices=ni,
    )


def graph_view(circuit, model: str = "clique", **kwargs) -> GraphView:
    """The hypergraph view expanded to a graph (``clique`` or ``star``, as
    :meth:`Hypergraph.to_graph`); keyword arguments go to :func:`hypergraph_view`."""
    if model not in ("clique", "star"):
        raise InputError(f"unknown graph model '{model}' (use 'clique' or 'star')")
    hv = hypergraph_view(circuit, **kwargs)
    g = hv.hypergraph.to_graph(model)
    return GraphView(**hv.__dict__, graph=g, model=model)
