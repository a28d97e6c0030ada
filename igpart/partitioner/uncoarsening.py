"""Uncoarsening: projection level by level from the coarsest, refining on each, and V-cycles
(re-coarsening inside the current blocks with a new seed, refining on the way up, kept only
when they do not worsen the objective)."""

from __future__ import annotations

import logging
import time

from ..fixed import locked_mask
from ..kernels.backend import Backend
from .coarsening import HostLevels, coarsen, move_parts
from .context import Timer

log = logging.getLogger("igpart")


def uncoarsen(be: Backend, hierarchy: list, parts, refine, timer: Timer,
               host: HostLevels | None = None, report=None):
    """Projects ``parts`` (on the coarsest level's backend) from the coarsest level up, refining
    on every finer level (levels on ``host.be`` with ``host.refine``); the partition moves to a
    level's backend before the projection onto it. Levels with fixed vertices are refined
    with them locked. Consumes ``hierarchy``: a level's row is emptied once the partition is
    projected past it, so that the coarser levels' arrays go while the finer ones are
    refined. ``report(stage, level, parts, backend)`` (optional) is called with each level's
    refined partition."""
    coarse_be = hierarchy[-1][3]
    hierarchy[-1] = None
    for i in range(len(hierarchy) - 2, -1, -1):
        level, cmap, _, lbe, lfixed = hierarchy[i]
        hierarchy[i] = None
        on_host = host is not None and lbe is host.be
        t0 = time.perf_counter()
        if host is not None:
            parts = move_parts(parts, coarse_be, lbe)
        parts = (host.be if on_host else be).project(cmap, parts)
        cmap = None
        timer.add("project", t0)
        parts = (host.refine if on_host else refine)(level, parts,
                                                     locked=locked_mask(lbe.xp, lfixed))
        if report is not None:
            report(f"level {i}", level, parts, host.be if on_host else be)
        coarse_be = lbe
    return parts


def vcycle_hypergraph(be, top, parts, k, objective, coarsen_one, refine, cfg, timer,
                       host: HostLevels | None = None, host_coarsen_one=None, fixed=None):
    """One V-cycle: coarsen inside blocks (labels = current blocks, so the partition stays
    representable on every level), refine on the way up. Returns ``(parts, gain)``: the new
    partition when it is not worse (else the old one) and the objective improvement. ``host``,
    ``host_coarsen_one``: the small levels on the host (see :func:`coarsen`). ``fixed``: the
    fixed vertices (all in their blocks in ``parts``), locked on every level."""
    before = be.hypergraph_objective(top, parts, k, objective)
    limit = max(cfg.coarsest, cfg.vcycle_min_vertices)
    hierarchy = coarsen(top, lambda a: a.n, coarsen_one, be.contract_hypergraph,
                         limit, cfg.min_shrink, cfg.max_levels, timer,
                         labels=be.asarray(parts, "int32"), xp=be.xp, min_n=k, be=be,
                         host=host, host_coarsen_one=host_coarsen_one, fixed=fixed)
    coarsest, _, labels, cbe, cfixed = hierarchy[-1]
    new = (host.refine if host is not None and cbe is host.be else refine)(
        coarsest, labels, locked=locked_mask(cbe.xp, cfixed))
    new = uncoarsen(be, hierarchy, new, refine, timer, host)
    after = be.hypergraph_objective(top, new, k, objective)
    log.debug("V-cycle: %s %d -> %d (%s)", objective, int(before), int(after),
              "kept" if after <= before else "dropped")
    return (new, before - after) if after <= before else (parts, 0)


def run_vcycles(be, top, parts, k, objective, coarsener, refine, cfg, timer, count: int, seed: int,
             host: HostLevels | None = None, fixed=None):
    """Up to ``count`` V-cycles, the i-th clustering with seed ``seed + i`` (``coarsener(seed)``
    gives ``coarsen_one``) so that each cycle sees other clusters; stops after a cycle that does
    not improve the objective. ``host``: the small levels on the host (see :func:`coarsen`)."""
    for i in range(int(count)):
        t0 = time.perf_counter()
        parts, gain = vcycle_hypergraph(
            be, top, parts, k, objective, coarsener(seed + i), refine, cfg, timer, host,
            host.coarsener(seed + i) if host is not None else None, fixed=fixed,
        )
        timer.add("vcycles", t0)
        if gain <= 0:
            break
    return parts
