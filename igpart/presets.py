"""Presets: named sets of :class:`igpart.Config` values, tiers of effort as Mt-KaHyPar's
deterministic / default / quality (whether a run repeats itself is ``Config.deterministic``,
apart from the presets: ``speed`` is not deterministic by itself).

A preset is data: a dict of Config fields that differ from the defaults. ``Config(preset=name)``
(or ``igpart.partition(..., preset=name)``, ``--preset`` on the command line) starts from these
values; fields given explicitly win over the preset's. The values were chosen by measurement on
the ``small`` benchmark suite (ISPD98 + Titan23) against Mt-KaHyPar, see BENCHMARKS.md,
"Presets".
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from .errors import InputError

#: The presets, each a read-only mapping of Config fields to their values under it.
PRESETS: MappingProxyType[str, MappingProxyType[str, Any]] = MappingProxyType({
    # less than half the time of the default: no V-cycles, coarsening on to 20·k vertices (a
    # smaller coarsest level for the initial partitioning; at k = 2 too, instead of the
    # default's 2 x 160 with 64 METIS seeds) in fewer, larger steps, one recursive bisection
    # with fewer METIS seeds, shorter Louvain, refinement and FM
    "speed": MappingProxyType({
        "vcycles": 0,
        "contraction_limit": 20,
        "bisection_contraction_limit": 0,
        "max_shrink": 3.0,
        "community_levels": 2,
        "community_passes": 4,
        "initial_rb_runs": 1,
        "initial_rb_seeds": 8,
        "initial_runs": 4,
        "refine_rounds": 8,
        "fm_rounds": 2,
    }),
    "default": MappingProxyType({}),
    # more time for a lower cut: the best of two runs, each with more V-cycles, more initial
    # candidates with FM on several of them, Jet before FM on every level, longer FM passes
    "quality": MappingProxyType({
        "repetitions": 2,
        "vcycles": 4,
        "refinement": "jet+fm",
        "initial_rb_runs": 8,
        "initial_rb_seeds": 32,
        "initial_rb_min_seeds": 0,  # all the seeds in every bisection, as measured
        "initial_runs": 16,
        "initial_fm_top": 4,
        "fm_rounds": 8,
        "fm_max_fruitless_moves": 500,
        "refine_rounds": 32,
        # graphs: the graph FM's longer searches and rounds down to 0.1% of the cut
        "graph_fm_max_fruitless_moves": 64,
        "graph_fm_min_improvement": 0.001,
    }),
})


def preset_values(name: Any) -> MappingProxyType[str, Any]:
    """The Config values of preset ``name``; InputError naming it when there is no such preset."""
    if not isinstance(name, str) or name not in PRESETS:
        raise InputError(f"unknown preset {name!r} (choose from {', '.join(PRESETS)})")
    return PRESETS[name]
