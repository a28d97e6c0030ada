"""Refinement of one level: rebalancing, then the algorithm :class:`Config` and the backend
choose (sequence-based refinement, Jet, boundary FM; for graphs independent-set refinement,
label propagation, FM), each a closure ``refine(level, parts, locked=None)`` built once per run
and called on every level."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..kernels.backend import Backend, GraphArrays, HypergraphArrays
from .config import Config
from .context import ResolvedConfig, Timer, effort_value


def hypergraph_refiner(be: Backend, k: int, bounds, objective: str, cfg: ResolvedConfig,
                        seed: int, timer: Timer, finest_n: int = -1, initial: bool = False
                        ) -> Callable[[HypergraphArrays, Any], Any]:
    """The refinement of one level (rebalance first). ``initial``: the refiner of the initial
    partitioning candidates on the coarsest level, which always uses sequence refinement + FM
    (Jet on every one of up to 64 candidates cost more than the rest of the run; see Config).
    ``refine(level, parts, locked=None)``: ``locked`` (uint8 per vertex) as in the backends."""
    mode = "fm" if initial else cfg.refinement
    fm_pass = fm_polisher(be, k, bounds, objective, cfg, seed, timer)

    jet_min_pins = effort_value(cfg, "jet_min_pins")
    jet_fm_max_pins = effort_value(cfg, "jet_fm_max_pins")

    def refine(ha: HypergraphArrays, parts, locked=None):
        t0 = time.perf_counter()
        lk = {} if locked is None else {"locked": locked}
        parts = be.rebalance_hypergraph(ha, parts, k, bounds, objective, **lk)
        t0 = timer.add("rebalance", t0)
        fm = cfg.fm and cfg.fm_rounds > 0
        if mode == "fm" or ha.num_pins <= jet_min_pins:
            if cfg.refine_rounds:
                parts, _ = be.refine_hypergraph(
                    ha, parts, k, bounds, objective, max_rounds=cfg.refine_rounds, **lk
                )
                t0 = timer.add("refine", t0)
        else:
            if cfg.jet_iterations:
                factor = (cfg.jet_negative_gain_fine if ha.n == finest_n
                          else cfg.jet_negative_gain_coarse)
                parts, _ = be.jet_refine_hypergraph(
                    ha, parts, k, bounds, objective, max_iterations=cfg.jet_iterations,
                    patience=cfg.jet_patience, negative_gain_factor=factor,
                    afterburner_max_net_size=cfg.jet_afterburner_max_net_size, seed=seed, **lk,
                )
                t0 = timer.add("jet", t0)
            fm = fm and mode == "jet+fm" and ha.num_pins <= jet_fm_max_pins
        if fm:
            parts = fm_pass(ha, parts, locked)
        return parts

    return refine


def fm_polisher(be: Backend, k: int, bounds, objective: str, cfg: Config, seed: int,
                 timer: Timer) -> Callable[[HypergraphArrays, Any], Any]:
    """The boundary FM pass of one level (the last step of the refiner; alone, what the best
    ``Config.initial_fm_top`` initial candidates get after rebalancing and sequence
    refinement). ``polish(level, parts, locked=None)``."""

    # the FM mode reaches backends that offer the parallel FM (the others run their own)
    mode = {"deterministic": cfg.deterministic} if getattr(be, "parallel_fm", False) else {}

    def polish(ha: HypergraphArrays, parts, locked=None):
        t0 = time.perf_counter()
        lk = {} if locked is None else {"locked": locked}
        parts, _ = be.fm_refine_hypergraph(
            ha, parts, k, bounds, objective, max_rounds=cfg.fm_rounds,
            max_fruitless_moves=cfg.fm_max_fruitless_moves,
            min_improvement=cfg.fm_min_improvement, seed=seed, max_work=cfg.fm_max_work, **lk,
            **mode,
        )
        timer.add("fm", t0)
        return parts

    return polish


def graph_refiner(be: Backend, k: int, bounds, cfg: ResolvedConfig, seed: int, timer: Timer,
                  finest_n: int = -1) -> Callable[[GraphArrays, Any], Any]:
    """The refinement of one graph level (rebalance first): ``cfg.graph_refinement``
    (``"gkway"``, ``"lp"``, ``"lp+fm"`` or ``"lp+jet"``) with the context's rounds;
    ``finest_n``: the input's vertices (Jet's negative-gain factor differs there).
    ``refine(level, parts, locked=None)``."""
    refinement = cfg.graph_refinement
    gain_seeds = cfg.graph_fm_seeds == "gain"  # resolved: "auto" is gone
    # the FM mode reaches backends that offer the parallel graph FM (the others run their own)
    mode = {"deterministic": cfg.deterministic} if getattr(be, "parallel_graph_fm", False) else {}
    # ... and the asynchronous label propagation those that offer it
    lp_mode = {"deterministic": cfg.deterministic} if getattr(be, "async_graph_lp", False) else {}

    def refine(ga: GraphArrays, parts, locked=None):  # graphs have no fixed vertices here
        t0 = time.perf_counter()
        parts = be.rebalance_graph(ga, parts, k, bounds)
        t0 = timer.add("rebalance", t0)
        if refinement == "gkway":
            if cfg.graph_refine_rounds:
                parts, _ = be.refine_graph(ga, parts, k, bounds,
                                           max_rounds=cfg.graph_refine_rounds)  # fmt: skip
                timer.add("refine", t0)
            return parts
        if cfg.graph_lp_refine_iterations:
            parts, _ = be.lp_refine_graph(ga, parts, k, bounds,
                                          iterations=cfg.graph_lp_refine_iterations,
                                          seed=seed, sub_rounds=cfg.graph_lp_sub_rounds,
                                          **lp_mode)
            t0 = timer.add("refine", t0)
        fm, jet = refinement == "lp+fm", False
        if refinement == "lp+jet":  # FM instead of Jet below graph_jet_min_vertices
            small = ga.n < cfg.graph_jet_min_vertices
            jet = not small and cfg.jet_iterations > 0
            fm = small or (jet and ga.n <= cfg.graph_jet_fm_max_vertices)
        if jet:
            factor = (cfg.jet_negative_gain_fine if ga.n == finest_n
                      else cfg.graph_jet_negative_gain_coarse)
            parts, _ = be.jet_refine_graph(
                ga, parts, k, bounds, max_iterations=cfg.jet_iterations,
                patience=cfg.graph_jet_patience, negative_gain_factor=factor,
                min_improvement=cfg.graph_jet_min_improvement, seed=seed)
            t0 = timer.add("jet", t0)
        if fm and cfg.graph_fm_rounds:
            parts, _ = be.fm_refine_graph(
                ga, parts, k, bounds, rounds=cfg.graph_fm_rounds,
                max_fruitless_moves=cfg.graph_fm_max_fruitless_moves,
                min_improvement=cfg.graph_fm_min_improvement, seed=seed,
                max_work=cfg.graph_fm_max_work, gain_seeds=gain_seeds, **mode)
            timer.add("fm", t0)
        return parts

    return refine
