"""Full partitioning driver: ``igpart.partition`` (DESIGN §4).

The multilevel algorithm is backend-agnostic: this module only sequences the stage operations of
a :class:`igpart.kernels.Backend` (coarsen, contract, project, refine, rebalance) on arrays of the
backend's array module. Per level only scalars come back to the host; the coarsest level goes to
the host for initial partitioning (:mod:`igpart.initial`), the final partition comes back once.

Hypergraphs: by default each level is coarsened by cluster-aware heavy-edge clustering restricted
to communities found once on the finest level (Louvain on the clique expansion, see
:mod:`igpart.community`); HyperG's balanced group coarsening is the selectable alternative
(``Config(coarsening="hyperg")``). Refinement follows HyperG (sequence-based refinement) with a
boundary FM pass after it, plus optional V-cycles. Graphs follow G-kway (union-find coarsening
with scoring, iG-kway's constrained grouping, independent-set refinement).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError, PartitionError
from .fixed import align_to_fixed, check_fixed, coarse_fixed, fixed_labels, locked_mask
from .hypergraph import Graph, Hypergraph
from .initial import (
    INITIAL_BISECTORS,
    INITIAL_METHODS,
    check_k,
    initial_partition,
    metis_partition,
    target_fractions,
)
from .kernels import get_backend
from .kernels.backend import Backend, GraphArrays, HypergraphArrays
from .metrics import OBJECTIVES, check_block_weights, max_block_weight
from .partition import Partition
from .presets import PRESETS, preset_values

log = logging.getLogger("igpart")

ALGORITHMS = ("multilevel", "metis")

#: Values of ``Config.refinement`` (hypergraphs).
REFINEMENTS = ("auto", "fm", "jet", "jet+fm")

#: Values of ``Config.coarsening`` (hypergraphs).
COARSENINGS = ("heavy_edge", "hyperg")

#: Values of ``Config.graph_coarsening``: size-constrained label propagation clustering, or
#: G-kway's union-find coarsening with constrained grouping.
GRAPH_COARSENINGS = ("auto", "lp", "gkway")

#: Values of ``Config.graph_refinement``: G-kway's independent-set refinement, label
#: propagation, label propagation then localized FM.
GRAPH_REFINEMENTS = ("auto", "gkway", "lp", "lp+fm")


@dataclass
class Config:
    """Every tunable of the multilevel partitioners, with the defaults igpart ships.

    ``preset`` (``"speed"``, ``"default"``, ``"quality"``; as Mt-KaHyPar's deterministic /
      default / quality): the fields a call does not give take the preset's values
      (:data:`igpart.presets.PRESETS`, one dict per preset); fields given explicitly win, also
      in ``Config.from_dict`` and ``partition(..., preset=, config={...})``. ``speed``: no
      V-cycles, coarsening on to ``20 * k`` vertices, one recursive bisection with fewer METIS
      seeds, shorter Louvain, refinement and FM (2.2x faster than ``default`` on the ``small``
      suite); ``quality``: the best of two runs (``repetitions``), each with four V-cycles,
      Jet before FM on every level (``"jet+fm"``), more initial candidates with FM on four of
      them and longer FM passes (about 5x the time of ``default``). Values and
      measurements: BENCHMARKS.md, "Presets".
    ``repetitions`` (default 1): independent runs of the whole pipeline with seeds ``seed``,
      ``seed + REPETITION_SEED_STRIDE``, ...; the best balanced one is kept (the first run is
      the one ``repetitions = 1`` gives, so more never give a worse result).
    Coarsening of hypergraphs:
      ``coarsening``: ``"heavy_edge"`` (default: cluster-aware heavy-edge clustering,
      ``Backend.cluster_hypergraph``, at most ``max_shrink`` times fewer vertices per level
      (default -1: the backend's, 2.5, as Mt-KaHyPar; 3.0 on the GPU at k = 2 on inputs of at
      least 100,000 vertices, ``GpuBackend.default_max_shrink_k2``: H100, ibm01x200 / ibm09x100,
      seeds 1-8, three calls: 0.89-0.96x the time at k = 2 for cut geomeans -0.4% to +1.0%; not
      at k = 64, where ibm01x200's cut was 4.3% higher with it),
      ``weight_penalty`` divides a cluster's rating by its weight) or ``"hyperg"`` (HyperG §3.1
      balanced group coarsening, ``Backend.coarsen_hypergraph``, subgroups of at most
      ``group_size`` vertices, HyperG's s).
      ``communities``: restrict clustering to communities found once on the finest level
      (``Backend.communities``: Louvain on the clique expansion of nets of at most
      ``community_max_net_size`` pins, ``community_levels`` levels, ``community_passes`` passes);
      applies to both coarsening methods.
      ``community_max_weight``: a community weighs at most ``community_max_weight * total / k``
      (one block's weight; 0: no cap). Modularity has a resolution limit: its communities grow
      like the square root of the total edge weight, so on large inputs they outgrow the blocks
      (ibm01 inflated 20x: 46 communities of ~5k vertices, vs 27 of ~400 on ibm01 itself, and
      blocks of 4k vertices at k = 64) and no longer guide the clustering where the cut goes.
      The cap keeps them within a block whatever the size (inflated inputs, k = 64: 1.2–5.8%
      lower cut; unchanged at k <= 16, where the communities are smaller than a block anyway).
      ``community_sub_rounds`` (default -1: the backend's ``default_community_sub_rounds(n)``,
      on the C++ backend 64 on inputs of at least 100,000 vertices
      (``CpuBackend.sub_round_min_vertices``), else 0, as on the GPU; 0: sequential local
      moving): Louvain's local moving
      in this many synchronous sub-rounds per pass on graphs of at least 4096 vertices: the
      vertices of a sub-round (a slice of the seeded order) choose their community in parallel
      (OpenMP) against the state before it, then move in order (a move that would overfill its
      community is dropped); the result does not depend on the threads. Measured 2026-11-23 on
      the dev VM (2 cores, 16 sub-rounds; BENCHMARKS.md at 10cd44d): Louvain alone 1.76x /
      1.71x faster on ibm09x10 / ibm01x20 (1.07–1.2x slower on 1 thread), modularity within
      0.001; end to end on the C++ backend (ibm01 / ibm05 k = 8, ibm03 k = 64, ibm01x20 k = 16,
      ibm09x10 k = 64, seeds 1, 2) 0.81x the time (``communities`` 12.6 -> 7.2 s of 28 s) for a
      cut geomean 0.997x; but on ibm01–09 at k = 2 the cut geomean is 1.027x, ibm08 seed 2 1.48x
      (the small inputs' communities decide the k = 2 cut), hence off by default then. With 64
      sub-rounds (slices closer to the sequential order) the same ibm01–09 k = 2 runs (seeds 1,
      2, 2026-11-26) gave a cut geomean of 0.998x against sequential (0.915–1.126x), hence the
      C++ backend's default on large inputs: its Louvain scales with the threads and gives the
      same communities on any number of them (smaller inputs gain little from threads, and on
      a loaded 2-core machine the sub-rounds' barriers cost more than they save).
      ``community_resolution``: Louvain's resolution (> 1: smaller communities everywhere);
      1 by default; 0 chooses it from the size, ``max(1, pins / community_resolution_pins)``
      (measured on inflated inputs: better at k = 64, worse as often as better at k <= 16, so
      not the default).
      ``contraction_limit``: stop once a level has fewer than ``contraction_limit * k`` vertices.
      igpart ships 40 rather than HyperG's / Mt-KaHyPar's 160: the initial partitioner (METIS on
      the clique expansion) is weaker than the multilevel refinement on hypergraph levels, so
      coarsening further is both better (ISPD98 geomean cut ratio vs Mt-KaHyPar 1.020 -> 1.015,
      k = 64: 1.058 -> 1.036) and faster; ``Config(contraction_limit=160)`` restores the paper's.
      ``min_shrink``: stop when a level removes less than this fraction of its vertices.
      ``rating_max_net_size``: nets with more pins are ignored by the rating.
      ``cluster_weight_factor``: a coarse vertex weighs at most
      ``factor * ceil(total / (contraction_limit * k))`` (and never more than the block bound),
      so that no cluster is too heavy for a balanced initial partition.
    Coarsening of graphs: ``graph_contraction_limit`` (35: stop below 35·k vertices),
      ``graph_min_shrink`` (0.10), ``graph_cluster_weight_factor`` (a cluster weighs at most
      ``factor * ceil(total / (graph_contraction_limit * k))``).
      ``graph_coarsening``: ``"lp"`` (size-constrained label propagation clustering, as the
      label-propagation graph partitioners coarsen: ``graph_lp_iterations`` passes, each cut
      into ``graph_lp_sub_rounds`` slices whose vertices choose in parallel and move in order,
      so the result does not depend on the threads; lone vertices that favour the same cluster
      are grouped when a level would not halve), ``"gkway"`` (G-kway §3.1 union-find coarsening
      with iG-kway §IV groups of at most ``graph_group_size`` (6) vertices), or ``"auto"`` (the
      backend's ``default_graph_coarsening``: ``"lp"`` on the C++ backend, ``"gkway"`` on the
      GPU). On the ``graphs`` suite at 2^16 (2 threads, dev VM) label propagation clustering
      alone took rgg_n_2_16 from 1.7x KaMinPar's cut to parity (BENCHMARKS.md, "Graph
      pipeline").
    ``max_levels``: hard cap on the number of levels.
    Initial partitioning (:mod:`igpart.initial`):
      ``initial``: ``"metis"`` (pymetis on the clique expansion, ``initial_runs`` seeds at
      k = 64, ``max(1, initial_runs * 64 // k)`` beyond: METIS's time grows with k and so does
      the coarsest level, which keeps k close to n affordable. Hypergraphs of at least
      ``initial_runs_min_n`` vertices also get more seeds below k = 64, up to
      ``initial_runs_max``: the coarsest level (40·k vertices) is then smaller, so more seeds
      cost the same, and on large inputs its vertices stand for thousands of cells, where the
      best of many METIS runs matters (ibm01x20 k = 2: 8 seeds 353, 64 seeds 299; ibm09x10
      k = 16: 10670 -> 10070); on ISPD98 (< 100k vertices) 64 seeds gave the same cuts in 18 of
      20 cases for 1.5x the time, hence the threshold),
      ``"mtkahypar"`` (Mt-KaHyPar when installed, else METIS) or ``"all"`` (both);
      ``"rb"``: recursive bisection (:mod:`igpart.recursive`, as KaHyPar / Mt-KaHyPar): each
      bisection is igpart's own k = 2 multilevel pipeline (communities, clustering, METIS
      candidates aiming at weights k0 : k1, rebalancing, refinement and FM on every level; no
      V-cycles) on the sub-hypergraph, with KaHyPar's adapted imbalance per bisection;
      ``initial_rb_runs`` recursive bisections (seeds) with ``initial_rb_seeds`` METIS seeds per
      bisection on inputs of at least ``initial_runs_min_n`` vertices, both scaled by 32 / k
      beyond k = 32 (4 x 16 up to k = 32), half of each on smaller inputs below
      k = 64 (2 x 8; on the ISPD98 subset 4 x 16 gave the same cuts for a time ratio vs
      Mt-KaHyPar of 1.29 instead of 0.96), and from k = 64 on one candidate with all the
      seeds (1 x 16 at k = 64: the same cuts as 2 x 8 in 0.67x the time, see ``_rb_effort``);
      graphs fall back to METIS. ``"rb+metis"``: both pools
      of candidates. ``"auto"`` (default): ``"rb"`` on hypergraphs at k >= 3, ``"metis"``
      otherwise (graphs, hypergraphs at k = 2). Why: the coarsest level of a large input has few
      vertices standing for thousands of cells, where METIS on the clique expansion is weak
      (coarsest level of ibm01x80, k = 16, 787 vertices: best of 8 METIS seeds 3223, Mt-KaHyPar
      2456, recursive bisection 2456–2664 per seed; k = 2 on the same level: METIS 1491,
      Mt-KaHyPar 1051, one igpart bisection 1020–1049, whose communities are what makes the
      difference). End to end (BENCHMARKS.md at 10cd44d, "Recursive-bisection initial"):
      ibm01x80 k = 16 cut 2596 -> 1997 (Mt-KaHyPar 2003); ibm01x20 / ibm09x10 / ibm06x20 at k = 2
      / 16 / 64 geomean cut -3.2% against ``"metis"`` (k = 16: -2.7% to -6.2%, k = 64: -2.7% to
      -5.7%, none worse); ISPD98 subset (ibm01/03/05/07/09, k = 2 / 8 / 32 / 64) -1.3% with the
      time ratio vs Mt-KaHyPar 1.00 -> 0.96. At k = 2 recursive bisection alone is not better than
      64 METIS seeds on large inputs (ibm01x20: 334 vs 299), and adding it to them
      (``"rb+metis"``, the k = 2 default on inputs of at least ``initial_runs_min_n`` vertices
      until 2026-11-26) gave the same cuts end to end: GPU backend on an H200, ibm01x200 /
      ibm09x100, seeds 1-8, twice (two V-cycles, and none): cut geomeans 2150 / 4773 against 2154
      / 4774 with METIS alone, and 2216 / 4778 against 2224 / 4776, for 25-35 ms more (``initial``
      0.063 against 0.033-0.041 s: the bisections and their FM are a critical path of their own).
      Every candidate is rebalanced and refined, the best balanced one is kept.
      ``initial_max_net_size``: nets above this size are left out of the clique expansion.
      ``initial_rb_runs`` (default 4), ``initial_rb_seeds`` (default 16): the effort of
      ``"rb"`` (above); both at least 1.
      ``initial_fm_top`` (default 1; 0: every candidate): every initial candidate (on the
      coarsest level and inside every bisection of ``"rb"``) is rebalanced and refined with the
      sequence refinement, and only the ``initial_fm_top`` best distinct ones then get the FM
      pass (the rest keep their score). FM on the tiny, dense coarsest levels (~100 vertices of
      degree ~70 at k = 2) was 85% of the initial partitioning's time at k = 2 and 45% at
      k = 64. Measured 2026-11-23 (C++ backend, 1 thread, ibm01x20 / ibm09x10 at k = 2 / 16 /
      64, ibm01/03/05 at k = 2 / 8 / 64, seeds 1 and 2, against 0): the same cuts at k = 2,
      geomean cut ratio 0.999 at k >= 8 (0.962–1.059), ``initial`` time 0.32x at k = 2 and
      0.79x beyond (BENCHMARKS.md at 10cd44d, "FM on the best initial candidate only").
      ``initial_bisector`` (default ``"metis"``): the seeded candidates of a k = 2 coarsest
      level of a hypergraph, i.e. inside every bisection of ``"rb"`` and in k = 2 runs whose
      coarsest level gets METIS seeds (``"metis"`` / ``"rb+metis"``): ``"metis"`` (pymetis on
      the clique expansion, bisection weights in the bounds' proportions), ``"ghg"`` (greedy
      hypergraph growing with the same seeds, as in KaHyPar / Mt-KaHyPar's initial pool:
      from a seeded start vertex one block takes the adjacent vertex most connected to it
      until it reaches its share; all seeds in one C++ call without the GIL, so the bisections of
      ``"rb"`` run concurrently on ``threads``; :func:`igpart.initial.ghg_bisections`) or
      ``"both"`` (both pools). Every candidate is rebalanced and refined the same way.
      Measurements: BENCHMARKS.md at 10cd44d, "GIL-free initial bisector".
      ``initial_metis_processes`` (default -1: automatic): METIS calls of the initial
      partitioning (the seeds on the coarsest level and inside every bisection of ``"rb"``) run
      in this many persistent worker processes (:mod:`igpart.metis_pool`, started when
      ``partition`` starts, so that they import while the levels are coarsened, and reused for
      the process lifetime); 0 runs them in-process. pymetis holds the GIL, so in-process the
      calls run one at a time whatever ``threads``; in workers up to this many run at once. Same
      blocks either way (each call is seeded); a worker that dies is replaced and its call runs
      in-process (a logged warning). With threads, the bisections of ``"rb"`` but the first
      run whole in these workers (``igpart.recursive.BISECT_IN_WORKERS``). -1 chooses per run
      (:func:`metis_processes`): ``min(15, cpus - 1)`` workers (8 before the bisections moved
      into the workers; 15 instead of 8 on the H100 machine, ibm01x200 / ibm09x100 at k = 64:
      0.96 -> 0.85 s and 1.67 -> 1.55 s) on machines of at least 8 usable CPUs when the run has more
      than one thread, k > 1 and the input has at least ``initial_runs_min_n`` vertices, else
      in-process (so on the 2-core dev VM and CI it stays in-process); the result's ``config``
      reports -1, the resolved value is logged (debug). Measured 2026-11-23 on the H100
      machine (16 CPU cores, commit 07f492c, GPU backend, ``benchmarks/gpu_bench.py --inputs
      ibm01:200,ibm09:100 --ks 2,16,64 --repeat 2``), 8 workers vs in-process: end to end
      1.12–1.27x faster (ibm01x200 k = 2 / 16 / 64: 1.10 -> 0.99, 1.76 -> 1.43, 2.06 -> 1.62 s;
      ibm09x100: 2.06 -> 1.76, 3.46 -> 2.95, 3.53 -> 3.05 s), ``initial`` 0.17 -> 0.09, 0.89 ->
      0.49, 1.11 -> 0.67 s and 0.20 -> 0.11, 1.33 -> 0.84, 1.62 -> 1.02 s. More: BENCHMARKS.md
      at 10cd44d, "METIS in worker processes".
      ``threads``: candidates run concurrently on this many threads (0: as many as the C++
      backend's OpenMP threads), and the threads they leave over run independent bisections
      of each ``"rb"`` candidate concurrently; the result does not depend on it.
    Refinement:
      ``refine_rounds``: maximum rounds of sequence-based refinement per level (HyperG §3.2).
      ``fm``: run the boundary FM pass after the sequence refinement (hypergraphs and graphs).
      ``refinement`` (hypergraphs; default ``"auto"``): ``"fm"`` (sequence refinement + FM on
      every level), ``"jet"`` (Jet refinement, ``Backend.jet_refine_hypergraph``, on every level,
      no FM), ``"jet+fm"`` (Jet, then FM on levels of at most ``jet_fm_max_pins`` pins) or
      ``"auto"`` (the backend's ``default_refinement``: on the C++ backend ``"fm"``, or
      ``"jet+fm"`` from ``CpuBackend.jet_min_threads`` threads on (0, the default: never);
      ``"jet+fm"`` on the GPU, ``GpuBackend.default_refinement``). The initial partitioning
      candidates on the coarsest level and the bisections of ``"rb"`` are always refined the
      ``"fm"`` way (with Jet on each of up to 64 candidates, initial partitioning took 3.6 s
      instead of 0.34 s on the GPU, ibm01x200 k = 2).
      On the C++ backend (1 thread, ibm01/03/05, k = 2, 16, 64) ``"jet+fm"`` gave lower
      cuts than ``"fm"`` in all 9 cases (geomean 0.968) but took 1.7x the time (geomean) and
      ``"jet"`` alone was better in 6 of 9, so the CPU default stays ``"fm"``.
      ``jet_iterations`` (default 64): Jet's iteration cap per level (0: no Jet; the Jet levels
      are only rebalanced, and refined by FM with ``"jet+fm"``). ``jet_patience`` (default 6;
      12 in the Jet paper and ``Backend.jet_refine_hypergraph``): stop after that many
      iterations without a 0.1% improvement of the best. Measured on an H200 (2026-11-26,
      ``gpu_ab.py``, ibm01x200 / ibm09x100 at k = 2, 16, 64, 4 runs each, 8 against 12): the Jet
      timer 0.69–0.78x, end to end 0.87–0.99x (medians), cut geomean ratio 1.000 over the six
      cases (0.983–1.026 per case, within the runs' spread); a second call at k = 2 (5 runs):
      0.85x / 1.01x the time, cuts as spread as with 12. 6 against 8 on an H100 (same day, same
      inputs, seeds 1-8 at k = 2, 1-4 at k = 16 and 64, medians): 0.93x / 0.96x the time at
      k = 2, 0.89x / 0.94x at k = 16, 0.94x / 0.97x at k = 64; cut geomean 1.000 / 1.000,
      0.979 / 1.001, 0.980 / 0.992.
      ``jet_negative_gain_fine`` / ``jet_negative_gain_coarse`` (defaults 0.25 / 0.75, the
      paper's): Jet's negative-gain threshold c on the finest level / the others, finite and
      >= 0 (a vertex whose move loses less than c times its internal connection is a
      candidate; 0: non-negative gains only).
      ``jet_afterburner_max_net_size`` (default 256): nets with more pins count with the pin
      counts before the iteration in the afterburner (exact counting costs their size per
      candidate pin).
      ``jet_fm_max_pins`` (default 3,000,000): with ``"jet+fm"``, FM also runs on levels of at
      most this many pins (on the GPU, on a host copy of the level). 500,000 left the Titan23
      circuits enlarged to 2M vertices at k = 2 with up to 1.5x the cut (BENCHMARKS.md, "GPU
      refinement").
      ``jet_min_pins`` (default 0: none): in the Jet modes, levels of at most this many pins
      are refined the ``"fm"`` way instead.
      ``fm_rounds``, ``fm_max_fruitless_moves``, ``fm_min_improvement``: FM stopping rules.
      ``fm_max_work`` (default 32; 0: no bound): a round of the k-way FM (k > 2) also stops once
      the gain evaluations of its moves have read this many times the level's pins + vertices
      (``Backend.fm_refine_hypergraph(max_work)``). A move re-evaluates every vertex on its
      nets at the cost of that vertex's degree, so on dense levels (coarse levels of inputs
      without locality: 10 random two-pin nets per vertex give levels of a few hundred
      vertices joined by most pairs) a round cost moves x degree^2, up to 150x the level's
      pins; normal circuits stay below 20x (ISPD98 at k = 8 / 64: 0.5-5.6x on average, at
      most 18.8x on the 384-vertex coarsest level of ibm05).
      ``graph_refinement``: ``"lp+fm"`` (label propagation, ``graph_lp_refine_iterations``
      passes over the vertices next to the last pass's moves, then the localized k-way FM:
      ``graph_fm_rounds`` rounds of searches from every boundary vertex, each stopping after
      ``graph_fm_max_fruitless_moves`` moves without a new best and rolled back to its best
      prefix; a round starts no search once its gain evaluations read ``graph_fm_max_work``
      times the level's adjacency, which bounds it on dense levels such as the clique graphs of
      circuits), ``"lp"``, ``"gkway"`` (G-kway §3.2 independent-set refinement, at most
      ``graph_refine_rounds`` rounds per level), or ``"auto"`` (the backend's
      ``default_graph_refinement``: ``"lp+fm"`` on the C++ backend, ``"gkway"`` on the GPU).
      Every mode rebalances first. The label propagation stages and the FM run on the C++
      backend; another backend runs them on host copies of the level.
      ``deterministic`` (default None: the backend's choice): True runs the sequential FM (one
      priority queue over the boundary, gains kept by a gain cache; the result depends on the
      seed, never on the threads); False the parallel localized FM (local searches from
      boundary seeds on the OpenMP threads, each moving its vertices in a search-local delta of
      the partition and applying them to the shared one whenever they reach a new best of its
      own; then the exact gains of the global move sequence and a rollback to its best balanced
      prefix; the result depends on the threads' interleaving) on levels of at least
      ``CpuBackend.parallel_fm_min_vertices`` (16,384) vertices when the run has two threads or
      more; None: the C++ backend runs the parallel FM from
      ``CpuBackend.parallel_fm_min_threads`` threads on (0, the default: never, so the default
      stays deterministic). Measured on the 2-core dev VM (2026-11-26, 2 threads,
      ``benchmarks/fm_bench.py``, ibm01-11 and the Titan23 circuits at k = 2, 16, 64, seed 1):
      the parallel FM's cut is 1.006x the sequential FM's (geomean; at most 1.17x, cholesky_mc
      at k = 2, whose eight seeds give 1.027x on average). It stays off by default (the
      sequential FM: deterministic, and two cores do not pay for the searches' extra work)
      until the 16-core run (BENCHMARKS.md, "FM modes") shows it faster at these cuts.
      Backends without the parallel FM (``parallel_fm``) ignore it; the GPU backend's host FM
      follows the C++ backend's None rule.
      ``vcycles``: at most this many V-cycles after the first pass (re-coarsening inside the
      blocks with a new clustering seed each time, refining on the way up; a cycle is kept only
      when it improves, and the first one that does not ends them). -1 (default): the
      backend's ``default_vcycles(k, n)``: two on the C++ backend (ISPD98, against no V-cycle:
      about 1.5% lower cut for about 1.6x the time); on the GPU two, but one at k = 2 on inputs
      of at least 100,000 vertices (``GpuBackend.LARGE_MIN_N``). Measured
      on an H200 (2026-11-26, ibm01x200 / ibm09x100, seeds 1-8, with METIS-only initial
      partitioning): at k = 2 one V-cycle took 0.83x / 0.89x the time of two (medians 0.228 /
      0.411 s) for cut geomeans 2133 / 4780 against 2154 / 4774, and none saved another ~50 ms
      but lost 3% of cut on ibm01x200 (2216 against 2147); at k = 16 and 64 each V-cycle buys
      2-10% of cut (ibm01x200 / ibm09x100, 3 runs each: one instead of two gave 1.4-3.9% more
      cut, none 2.2-9.6% more).
      ``vcycle_min_vertices`` (default -1: the backend's ``default_vcycle_min_vertices``,
      25,000 on the GPU (100,000 at k = 2 on inputs of at least 100,000 vertices,
      ``default_vcycle_min_vertices_k2``: H100, ibm01x200
      / ibm09x100, seeds 1-8: 0.93x / 0.96x the time, cut geomean 0.992 / 1.000; at k = 16 it
      was slower, 1.09x / 1.03x), 0 on the C++ backend): a V-cycle's coarsening also stops at the
      first level of fewer than this many vertices (it needs no initial partition, so it may
      stop well above the first pass's ``contraction_limit * k``). On the GPU every level
      costs a fixed time of launches and host round trips; on the H100, 25,000 instead of 0
      took 0.86x the time (geomean of ibm01x200 / ibm09x100 at k = 2 and 64, 4 runs each)
      for a geomean cut ratio of 0.998 (BENCHMARKS.md at 10cd44d, "V-cycles stop coarsening").
    ``host_levels_below`` (default 0: off; experimental; measured on the H100 with 50,000 at
      commit 354e603, ibm01x200 / ibm09x100 at k = 2 and 64: from 6% faster to 31% slower
      than the default and 0.8–4.6% more cut; with Jet on the host levels, commit 85efa87,
      20,000 and 50,000: 1.0–2.0x the default's time; the small levels' fixed costs are now
      cut by ``GpuBackend(cluster_max_size, jet_host_max_pins)`` instead): on a backend
      other than the C++ one, a level of fewer than this many vertices is copied to
      the host once, and the rest of that hierarchy (coarsening, initial partitioning, the
      refinement of those levels, in the ``refinement`` mode resolved for the device: Jet by
      default, whose C++ version returns the kernels' partition) runs on the C++ backend; on
      the way up the partition of the first host level is uploaded and projected with the
      device's cluster map. Applies to every hierarchy (V-cycles included; communities and
      V-cycle blocks are carried across) of hypergraphs and graphs. An input
      of fewer vertices runs on the C++ backend entirely. Meant to cut the fixed per-level
      costs (kernel launches, host syncs) of the small levels of a deep GPU hierarchy.
    """

    coarsening: str = "heavy_edge"
    communities: bool = True
    community_max_net_size: int = 50
    community_levels: int = 8
    community_passes: int = 8
    community_max_weight: float = 1.0
    community_resolution: float = 1.0
    community_resolution_pins: int = 250_000
    community_sub_rounds: int = -1
    max_shrink: float = -1.0
    weight_penalty: bool = False
    contraction_limit: int = 40
    min_shrink: float = 0.05
    group_size: int = 4
    rating_max_net_size: int = 1000
    cluster_weight_factor: float = 1.0
    graph_contraction_limit: int = 35
    graph_min_shrink: float = 0.10
    graph_group_size: int = 6
    graph_cluster_weight_factor: float = 1.0
    graph_coarsening: str = "auto"
    graph_lp_iterations: int = 5
    graph_lp_sub_rounds: int = 8
    max_levels: int = 64
    initial: str = "auto"
    initial_runs: int = 8
    initial_runs_max: int = 64
    initial_runs_min_n: int = 100_000
    initial_max_net_size: int = 100
    initial_rb_runs: int = 4
    initial_rb_seeds: int = 16
    initial_fm_top: int = 1
    initial_bisector: str = "metis"
    initial_metis_processes: int = -1
    threads: int = 0
    refine_rounds: int = 16
    fm: bool = True
    refinement: str = "auto"
    jet_iterations: int = 64
    jet_patience: int = 6
    jet_negative_gain_fine: float = 0.25
    jet_negative_gain_coarse: float = 0.75
    jet_afterburner_max_net_size: int = 256
    jet_fm_max_pins: int = 3_000_000
    jet_min_pins: int = 0
    fm_rounds: int = 4
    fm_max_fruitless_moves: int = 250
    fm_min_improvement: float = 0.001
    fm_max_work: float = 32.0
    deterministic: bool | None = None
    graph_refine_rounds: int = 32
    graph_refinement: str = "auto"
    graph_lp_refine_iterations: int = 5
    graph_fm_rounds: int = 3
    graph_fm_max_fruitless_moves: int = 64
    graph_fm_max_work: float = 8.0
    vcycles: int = -1
    vcycle_min_vertices: int = -1
    host_levels_below: int = 0
    repetitions: int = 1
    preset: str = "default"

    def validate(self) -> Config:
        """Raises InputError, naming the field and the value, on values the algorithms cannot
        use (wrong type included: a string, None or a bool where a number is expected);
        returns self."""

        def integer(name: str, low: int) -> None:
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < low:
                kind = "a positive" if low == 1 else "a non-negative"
                raise InputError(f"config.{name} must be {kind} integer, got {v!r}")

        def number(name: str, what: str = "a number") -> float:
            v = getattr(self, name)
            if (
                isinstance(v, (bool, np.bool_))
                or not isinstance(v, (int, float, np.number))
                or not math.isfinite(float(v))
            ):
                raise InputError(f"config.{name} must be {what}, got {v!r}")
            return float(v)

        positive_ints = (
            "contraction_limit",
            "community_max_net_size",
            "community_levels",
            "community_passes",
            "community_resolution_pins",
            "group_size",
            "rating_max_net_size",
            "graph_contraction_limit",
            "graph_group_size",
            "graph_lp_sub_rounds",
            "graph_fm_max_fruitless_moves",
            "max_levels",
            "initial_runs",
            "initial_runs_max",
            "initial_runs_min_n",
            "initial_max_net_size",
            "initial_rb_runs",
            "initial_rb_seeds",
            "jet_patience",
            "jet_afterburner_max_net_size",
            "repetitions",
        )
        for name in positive_ints:
            integer(name, 1)
        for name in (
            "refine_rounds",
            "initial_fm_top",
            "fm_rounds",
            "fm_max_fruitless_moves",
            "graph_refine_rounds",
            "graph_lp_iterations",
            "graph_lp_refine_iterations",
            "graph_fm_rounds",
            "threads",
            "jet_iterations",
            "jet_fm_max_pins",
            "jet_min_pins",
            "host_levels_below",
        ):
            integer(name, 0)
        for name, what in (
            ("vcycles", "-1 (the backend's default) or a non-negative integer"),
            ("vcycle_min_vertices", "-1 (the backend's default) or a non-negative integer"),
            ("community_sub_rounds", "-1 (the backend's default) or a non-negative integer"),
            ("initial_metis_processes", "-1 (automatic), 0 (in-process) or a positive integer"),
        ):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < -1:
                raise InputError(f"config.{name} must be {what}, got {v!r}")
        if self.deterministic is not None and not isinstance(self.deterministic, (bool, np.bool_)):
            raise InputError(f"config.deterministic must be true, false or null (the backend's "
                             f"choice), got {self.deterministic!r}")
        for name in ("communities", "weight_penalty", "fm"):
            v = getattr(self, name)
            if not isinstance(v, (bool, np.bool_)):
                raise InputError(f"config.{name} must be true or false, got {v!r}")
        for name in ("min_shrink", "graph_min_shrink", "fm_min_improvement"):
            if not 0.0 <= number(name, "a number in [0, 1)") < 1.0:
                raise InputError(f"config.{name} must lie in [0, 1), got {getattr(self, name)!r}")
        for name in ("fm_max_work", "graph_fm_max_work"):
            if number(name, "a non-negative number (0: no bound)") < 0:
                raise InputError(f"config.{name} must be a non-negative number (0: no bound), "
                                 f"got {getattr(self, name)!r}")
        for name in ("cluster_weight_factor", "graph_cluster_weight_factor"):
            if number(name, "a positive number") <= 0:
                raise InputError(
                    f"config.{name} must be a positive number, got {getattr(self, name)!r}"
                )
        what = "a non-negative number (0: automatic)"
        if number("community_resolution", what) < 0:
            raise InputError(
                f"config.community_resolution must be {what}, got {self.community_resolution!r}"
            )
        what = "a non-negative number (0: no cap)"
        if number("community_max_weight", what) < 0:
            raise InputError(
                f"config.community_max_weight must be {what}, got {self.community_max_weight!r}"
            )
        what = "-1 (the backend's default) or a number greater than 1"
        shrink = number("max_shrink", what)
        if not (shrink > 1.0 or shrink == -1.0):
            raise InputError(f"config.max_shrink must be {what}, got {self.max_shrink!r}")
        for name in ("jet_negative_gain_fine", "jet_negative_gain_coarse"):
            if number(name, "a non-negative number") < 0:
                raise InputError(
                    f"config.{name} must be a non-negative number, got {getattr(self, name)!r}"
                )
        for name, allowed in (
            ("refinement", REFINEMENTS),
            ("coarsening", COARSENINGS),
            ("graph_coarsening", GRAPH_COARSENINGS),
            ("graph_refinement", GRAPH_REFINEMENTS),
            ("initial", INITIAL_METHODS),
            ("initial_bisector", INITIAL_BISECTORS),
            ("preset", tuple(PRESETS)),
        ):
            v = getattr(self, name)
            if not isinstance(v, str) or v not in allowed:
                raise InputError(f"config.{name} must be one of {', '.join(allowed)}, got {v!r}")
        return self

    @classmethod
    def of(cls, config: Config | dict[str, Any] | None, preset: str | None = None) -> Config:
        """A validated copy of ``config``: a Config, a dict of overrides (unknown keys raise
        InputError) or None (the defaults). ``preset`` (None: the config's own): the preset
        the fields that ``config`` does not set come from; a Config made under another preset
        keeps the fields in which it differs from that preset's values."""
        if preset is not None:
            preset_values(preset)
        if config is None:
            return cls(preset=preset or "default").validate()
        if isinstance(config, Config):
            if preset is None or preset == config.preset:
                return dataclasses.replace(config).validate()
            return config.with_preset(preset).validate()
        if isinstance(config, dict):
            if preset is not None and config.get("preset", preset) != preset:
                raise InputError(f"preset '{preset}' and config preset "
                                 f"{config['preset']!r} differ")
            return cls.from_dict(config if preset is None else {"preset": preset, **config})
        raise InputError(f"config must be a Config or a dict, got {type(config).__name__}")

    def with_preset(self, preset: str) -> Config:
        """This config under ``preset``: the fields in which it differs from its own preset's
        values are kept, the others take ``preset``'s."""
        base = Config(preset=self.preset)
        changed = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                   if f.name != "preset" and getattr(self, f.name) != getattr(base, f.name)}
        return Config(preset=preset, **changed)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Config:
        """A config from keyword overrides; unknown keys raise InputError."""
        d = dict(d or {})
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise InputError(f"unknown config option(s): {', '.join(unknown)}")
        return cls(**d).validate()


_config_init = Config.__init__


@functools.wraps(_config_init)
def _init_config(self: Config, *args, **kwargs) -> None:
    """The dataclass ``__init__``, then the preset's values for the fields the call did not
    give (``dataclasses.replace`` gives all of them, so copies keep their values)."""
    _config_init(self, *args, **kwargs)
    given = {f.name for f in dataclasses.fields(Config)[: len(args)]} | set(kwargs)
    for name, value in preset_values(self.preset).items():
        if name not in given:
            setattr(self, name, value)


Config.__init__ = _init_config  # type: ignore[method-assign]


@dataclass
class _Timer:
    timings: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, t0: float) -> float:
        t = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + (t - t0)
        return t


def _validate(h, k, epsilon, objective, seed=0) -> None:
    if not isinstance(h, (Hypergraph, Graph)):
        raise InputError(f"expected a Hypergraph or Graph, got {type(h).__name__}")
    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective '{objective}' (choose from {', '.join(OBJECTIVES)})")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise InputError(f"epsilon must be a number, got {epsilon!r}") from None
    if not math.isfinite(eps) or eps < 0:
        raise InputError(f"epsilon must be a non-negative number, got {epsilon}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise PartitionError(f"k must be a positive integer, got {k!r}")
    check_k(h.n, int(k))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"seed must be an integer, got {seed!r}")
    if abs(int(seed)) >= 1 << 62:  # the partitioner derives further seeds from it (seed + r)
        raise InputError(f"seed must lie within +-2**62, got {seed}")


def _check_fixed(h, fixed, k: int, epsilon: float) -> np.ndarray | None:
    """``fixed`` validated against ``h`` at ``k`` blocks (see :func:`igpart.fixed.check_fixed`:
    the vertices fixed to a block must fit its maximum weight)."""
    bound = max_block_weight(h.total_weight, k, epsilon)
    return check_fixed(fixed, h.n, k, h.vwgt, np.full(k, bound, dtype=np.int64))


def partition(
    h: Hypergraph | Graph,
    k: int,
    epsilon: float = 0.03,
    objective: str = "cut",
    backend: str | Backend = "auto",
    seed: int = 0,
    config: Config | dict | None = None,
    algorithm: str = "multilevel",
    fixed=None,
    cluster: Any = None,
    preset: str | None = None,
    max_block_weights=None,
) -> Partition:
    """Partitions ``h`` into ``k`` blocks of weight at most ``(1+epsilon)*ceil(total/k)``.

    ``objective``: ``"cut"`` or ``"km1"`` (graphs: edge cut either way). ``backend``: ``"auto"``,
    ``"cpu"``, ``"gpu"`` or a Backend object. ``config``: a :class:`Config` or a dict of overrides.
    ``preset``: ``"speed"``, ``"default"`` or ``"quality"`` (:mod:`igpart.presets`), the values
    of the Config fields that ``config`` does not set. ``max_block_weights``: one maximum
    weight per block (k non-negative integers summing to at least the total vertex weight)
    instead of the epsilon bound; the result's balance is measured against them.
    ``algorithm``: ``"multilevel"`` (igpart) or ``"metis"`` (pymetis on the clique expansion,
    the peer). ``fixed`` (optional, one int per vertex: its block, or -1 when free; KaHyPar's
    fix file, :func:`igpart.io.read_fixed`): fixed vertices end in their block (see
    :mod:`igpart.fixed` for how each stage keeps them there; a Graph is then partitioned as the
    hypergraph of its edges, whose cut is the edge cut; ``algorithm="metis"`` takes none).
    ``cluster``: run over the workers of a dask cluster (a ``distributed.Client``, a scheduler
    address, ``"local"`` or ``"local:N"``; see :mod:`igpart.distributed`) instead of here; needs
    ``pip install igpart[distributed]``. Raises PartitionError for k < 1 or k > number of
    vertices, InputError for bad arguments (a fixed block out of range, the wrong length, fixed
    weight above a block's maximum weight). The result's metrics are computed from scratch on
    ``h``.
    """
    _validate(h, k, epsilon, objective, seed)
    k = int(k)
    epsilon = float(epsilon)
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm '{algorithm}' (choose from {', '.join(ALGORITHMS)})")
    fixed = _check_fixed(h, fixed, k, epsilon)
    if fixed is not None and algorithm == "metis":
        raise InputError("algorithm 'metis' cannot fix vertices; use 'multilevel'")
    cfg = Config.of(config, preset)
    targets = None if max_block_weights is None else check_block_weights(
        max_block_weights, k, h.total_weight)
    if fixed is not None and targets is not None:
        raise InputError("fixed vertices and per-block maximum weights cannot be combined (the "
                         "fixed blocks are checked against the epsilon bound)")
    if cluster is not None:
        if algorithm != "multilevel":
            raise InputError(f"algorithm '{algorithm}' does not run on a cluster (multilevel does)")
        if fixed is not None or targets is not None:
            raise InputError("a partition on a cluster takes no fixed vertices and no per-block "
                             "weights (run it here)")
        from .distributed.partition import partition_on_cluster

        return partition_on_cluster(h, k, epsilon, objective, backend, seed, cfg, cluster)
    t_start = time.perf_counter()
    if algorithm == "metis":
        parts = metis_partition(h, k, epsilon, seed,
                                tpwgts=None if targets is None else target_fractions(targets))
        seconds = time.perf_counter() - t_start
        return Partition.from_parts(
            h, parts, k, epsilon, objective, seconds=seconds, timings={"metis": seconds},
            backend="cpu", algorithm="metis", seed=seed, config={}, max_block_weights=targets,
        )
    be = get_backend(backend)
    _check_memory(be, h, k)
    timer = _Timer()
    parts = run_multilevel(h, k, epsilon, objective, be, seed, cfg, timer, block_bounds=targets,
                           fixed=fixed)
    seconds = time.perf_counter() - t_start
    return Partition.from_parts(
        h, parts, k, epsilon, objective, seconds=seconds, timings=timer.timings,
        backend=be.name, algorithm="multilevel", seed=seed, config=dataclasses.asdict(cfg),
        max_block_weights=targets,
    )


def run_multilevel(h: Hypergraph | Graph, k: int, epsilon: float, objective: str, be: Backend,
                   seed: int, cfg: Config, timer: _Timer,
                   block_bounds: np.ndarray | None = None,
                   fixed: np.ndarray | None = None) -> np.ndarray:
    """Block ids (int32, host) of the multilevel pipeline on ``h``, with ``cfg``'s automatic
    values resolved for this input (METIS worker processes, threads), the best of
    ``cfg.repetitions`` runs. ``block_bounds``: per-block weight bounds instead of the balance
    rule; ``fixed``: checked fixed blocks (-1: free; a Graph then runs as the hypergraph of its
    edges)."""
    processes = metis_processes(cfg, h.n, k)
    if processes:
        from .metis_pool import get_pool

        get_pool(processes)  # the workers import while the levels coarsen
    if cfg.initial_metis_processes < 0:
        log.debug("initial_metis_processes=-1 (automatic): %d worker processes", processes)
    # the drivers (and the recursive bisections inside the initial partitioning) get the
    # resolved value; the result reports the configured one
    run_cfg = dataclasses.replace(cfg, initial_metis_processes=processes)
    with _stage_threads(cfg):
        if k == 1 or h.n == 0:
            return np.zeros(h.n, dtype=np.int32)

        def run(s: int) -> np.ndarray:
            if isinstance(h, Hypergraph) or fixed is not None:
                hyper = h if isinstance(h, Hypergraph) else h.to_hypergraph()
                return _multilevel_hypergraph(hyper, k, epsilon,
                                              objective if hyper is h else "cut", be, s, run_cfg,
                                              timer, block_bounds=block_bounds, fixed=fixed)
            return _multilevel_graph(h, k, epsilon, be, s, run_cfg, timer,
                                     block_bounds=block_bounds)

        return _best_run(h, k, epsilon, objective, block_bounds, run, seed, cfg.repetitions)


#: ``Config.repetitions``: the i-th run's seed is ``seed + i * REPETITION_SEED_STRIDE`` (the
#: V-cycles and bisections of a run derive seeds of their own from it).
REPETITION_SEED_STRIDE = 1_000_003


def _best_run(h, k: int, epsilon: float, objective: str, targets, run: Callable[[int], Any],
              seed: int, repetitions: int) -> np.ndarray:
    """The best of ``repetitions`` runs ``run(seed_i)`` (``Config.repetitions``): the least
    overloaded, then the lowest objective, then the first."""
    from .metrics import evaluate

    best, best_score = None, None
    for i in range(int(repetitions)):
        parts = run(seed + i * REPETITION_SEED_STRIDE)
        if repetitions == 1:
            return parts
        m = evaluate(h, parts, k, epsilon, targets)
        bounds = (np.full(k, m["max_block_weight"], dtype=np.int64) if targets is None
                  else targets)
        score = (int(np.maximum(m["block_weights"] - bounds, 0).sum()), m[objective])
        if best_score is None or score < best_score:
            best, best_score = parts, score
    return best


# ---------------------------------------------------------------------------------- helpers
def _check_memory(be: Backend, h: Hypergraph | Graph, k: int) -> None:
    """The backend's memory budget check for ``h`` (graphs: one 2-pin net per edge)."""
    if isinstance(h, Hypergraph):
        be.check_memory(h.n, h.m, int(h.eind.shape[0]), k)
    else:
        be.check_memory(h.n, int(h.adjncy.shape[0]) // 2, int(h.adjncy.shape[0]), k)


def _bounds(be: Backend, total: int, k: int, epsilon: float):
    return be.asarray(np.full(k, max_block_weight(total, k, epsilon), dtype=np.int64), "int64")


def _initial_runs(cfg: Config, k: int, hypergraph: bool = False, n: int = 0) -> int:
    """METIS seeds on the coarsest level of an input of ``n`` vertices (``Config.initial``)."""
    if k > 64:
        return max(1, cfg.initial_runs * 64 // k)
    if hypergraph and n >= cfg.initial_runs_min_n:
        return max(cfg.initial_runs, min(cfg.initial_runs_max, cfg.initial_runs * 64 // k))
    return cfg.initial_runs


def _rb_effort(cfg: Config, k: int, large: bool = True) -> tuple[int, int]:
    """Recursive-bisection candidates and METIS seeds per bisection (``Config.initial``).
    Inputs of at least ``initial_runs_min_n`` vertices (``large``): ``initial_rb_runs`` x
    ``initial_rb_seeds`` up to k = 32, both scaled by 32 / k beyond; smaller inputs: half of
    each up to k = 64, scaled by 64 / k beyond; at least 1 candidate and 4 seeds, as the
    coarsest level and the number of bisections grow with k. From k = 64 on, the candidates'
    seeds go to one candidate (``runs * seeds`` seeds per bisection): with FM on the best
    candidate only (``initial_fm_top``) a METIS seed costs far less than a recursive bisection
    (defaults: 4 x 16 up to k = 32 for large inputs, 2 x 8 below k = 64 for small ones,
    1 x 16 at k = 64, 1 x 4 at k = 128)."""
    runs, seeds, kmax = cfg.initial_rb_runs, cfg.initial_rb_seeds, 32
    if not large:
        runs, seeds, kmax = max(1, runs // 2), max(1, seeds // 2), 64
    if k > kmax:
        runs, seeds = max(1, runs * kmax // k), max(min(4, seeds), seeds * kmax // k)
    if k >= _RB_ONE_CANDIDATE_FROM_K:
        runs, seeds = 1, runs * seeds
    return runs, seeds


#: From this k on, recursive bisection runs as one candidate (see :func:`_rb_effort`): on
#: ibm01x20 / ibm09x10 / ibm01/03/05 at k = 64 (seeds 1, 2), 1 x 16 instead of 2 x 8 gave cut
#: ratio 0.999 (0.991–1.012) for 0.67x the initial partitioning time; 1 x 8: 1.006, 0.50x;
#: 2 x 32 at k = 16 / 1 x 16 at k = 8 instead of 4 x 16 / 2 x 8: 1.3% / 1.7% worse.
_RB_ONE_CANDIDATE_FROM_K = 64


def _threads(cfg: Config) -> int:
    if cfg.threads:
        return int(cfg.threads)
    from .kernels import _cpu

    return int(_cpu.get_num_threads())


def _stage_threads(cfg: Config):
    """``Config.threads`` (when set) as the OpenMP threads of every C++ stage of the run (the
    calling thread's setting, restored afterwards); 0 keeps the current setting."""
    if not cfg.threads:
        return contextlib.nullcontext()
    from .kernels import omp_threads

    return omp_threads(int(cfg.threads))


#: ``Config.initial_metis_processes = -1`` (automatic): worker processes only on machines of at
#: least this many usable CPUs, and at most this many of them (one CPU left to the caller).
AUTO_METIS_MIN_CPUS = 8
AUTO_METIS_MAX_PROCESSES = 15


def usable_cpus() -> int:
    """CPUs this process may run on: ``len(os.sched_getaffinity(0))`` where the platform has
    it, else ``os.cpu_count()`` (1 if unknown)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def metis_processes(cfg: Config, n: int, k: int, threads: int | None = None) -> int:
    """The METIS worker processes of a run on an input of ``n`` vertices into ``k`` blocks
    (``Config.initial_metis_processes``). An explicit value (0: in-process, N > 0: N workers)
    is kept. -1 (automatic, the default) gives ``min(15, cpus - 1)`` workers (``cpus``:
    :func:`usable_cpus`) when the machine has at least 8 usable CPUs, the run has more than
    one thread (``threads``, default the run's, ``Config.threads``), ``k > 1`` and the input
    is large (``n >= cfg.initial_runs_min_n``), and 0 otherwise: only then are there enough
    concurrent METIS calls, and cores left beside the run's threads, to pay for the workers.
    """
    configured = int(cfg.initial_metis_processes)
    if configured >= 0:
        return configured
    if k <= 1 or n < cfg.initial_runs_min_n:
        return 0
    cpus = usable_cpus()
    if cpus < AUTO_METIS_MIN_CPUS:
        return 0
    if (_threads(cfg) if threads is None else int(threads)) <= 1:
        return 0
    return min(AUTO_METIS_MAX_PROCESSES, cpus - 1)


def community_resolution(cfg: Config, pins: int) -> float:
    """Louvain's resolution for an input of ``pins`` pins: ``cfg.community_resolution`` when
    set, else ``max(1, pins / cfg.community_resolution_pins)`` (see :class:`Config`)."""
    if cfg.community_resolution > 0:
        return float(cfg.community_resolution)
    return max(1.0, pins / cfg.community_resolution_pins)


def community_sub_rounds(be: Backend, cfg: Config, n: int) -> int:
    """``cfg.community_sub_rounds`` resolved on ``be`` for an input of ``n`` vertices (-1: the
    backend's ``default_community_sub_rounds(n)``, 0 where it has none)."""
    if cfg.community_sub_rounds >= 0:
        return int(cfg.community_sub_rounds)
    default = getattr(be, "default_community_sub_rounds", None)
    return 0 if default is None else int(default(n))


def community_max_weight(cfg: Config, total: int, k: int) -> int:
    """The cap on a community's vertex weight, ``ceil(cfg.community_max_weight * total / k)``
    (0: no cap)."""
    return int(math.ceil(float(cfg.community_max_weight) * total / k))


def _max_cluster_weight(total: int, k: int, limit: int, factor: float, bound: int) -> int:
    return max(1, min(int(math.ceil(factor * total / (limit * k))), bound))


def hypergraph_from_arrays(be: Backend, ha: HypergraphArrays) -> Hypergraph:
    """A host Hypergraph from a backend level (for initial partitioning)."""
    return Hypergraph(
        be.to_host(ha.eptr), be.to_host(ha.eind), ha.n, be.to_host(ha.vwgt), be.to_host(ha.ewgt),
        check=False,
    )


def graph_from_arrays(be: Backend, ga: GraphArrays) -> Graph:
    """A host Graph from a backend level."""
    return Graph(
        be.to_host(ga.xadj), be.to_host(ga.adjncy), ga.n, be.to_host(ga.adjwgt),
        be.to_host(ga.vwgt), check=False,
    )


@dataclass
class _HostLevels:
    """``Config.host_levels_below``: levels of fewer than ``below`` vertices live on ``be`` (the
    C++ backend), which coarsens (``coarsener(seed)`` gives its ``coarsen_one``, ``contract_one``)
    and refines (``refine``) them; ``level_to_host(from_be, level)`` copies a level there."""

    below: int
    be: Backend
    coarsener: Callable[[int], Callable]
    contract_one: Callable
    refine: Callable
    level_to_host: Callable


def _move(parts, src: Backend, dst: Backend):
    """``parts`` (int32 per vertex) of backend ``src`` as an array of ``dst``."""
    return parts if src is dst else dst.asarray(src.to_host(parts), "int32")


def _coarsen(levels_fine, n_of, coarsen_one, contract_one, limit: int, min_shrink: float,
             max_levels: int, timer: _Timer, labels=None, xp=np, min_n: int = 1,
             be: Backend | None = None, host: _HostLevels | None = None,
             host_coarsen_one=None, fixed=None) -> list:
    """Generic coarsening loop: returns [[level, cmap-to-next or None, labels, backend,
    fixed], ...] fine to coarse. ``fixed`` (int32 per vertex, -1: free; None: no fixed vertex)
    is carried to every level (:func:`igpart.fixed.coarse_fixed`); the labels must keep
    vertices fixed to different blocks apart. ``labels`` (communities or blocks, int32 per
    vertex) restrict the clustering
    when given and are carried to every level (all members of a cluster share their label). A
    level with fewer than ``min_n`` (k) vertices is never used. ``host`` (with ``be``, the
    backend of ``levels_fine``): the first level of fewer than ``host.below`` vertices (not the
    finest) is replaced by its copy on ``host.be`` (labels copied too), and the coarser levels
    are made there with ``host_coarsen_one`` and ``host.contract_one``."""
    hierarchy = [[levels_fine, None, labels, be, fixed]]
    cur = levels_fine
    while n_of(cur) >= limit and len(hierarchy) < max_levels:
        if (host is not None and hierarchy[-1][3] is not host.be and len(hierarchy) > 1
                and n_of(cur) < host.below):
            t0 = time.perf_counter()
            src = hierarchy[-1][3]
            cur = host.level_to_host(src, cur)
            if labels is not None:
                labels = _move(labels, src, host.be)
            if fixed is not None:
                fixed = _move(fixed, src, host.be)
            hierarchy[-1] = [cur, None, labels, host.be, fixed]
            coarsen_one, contract_one, xp = host_coarsen_one, host.contract_one, host.be.xp
            timer.add("to_host", t0)
            log.debug("level %d (%d vertices) and coarser on the host", len(hierarchy) - 1,
                      n_of(cur))
        t0 = time.perf_counter()
        cmap, nc = (coarsen_one(cur) if labels is None
                    else coarsen_one(cur, communities=labels))
        t0 = timer.add("coarsen", t0)
        if nc > (1.0 - min_shrink) * n_of(cur) or nc == n_of(cur) or nc < min_n:
            break
        nxt = contract_one(cur, cmap, nc)
        if labels is not None:
            coarse = xp.zeros(nc, dtype=xp.int32)
            coarse[cmap] = labels
            labels = coarse
        if fixed is not None:
            fixed = coarse_fixed(xp, fixed, cmap, nc)
        timer.add("contract", t0)
        hierarchy[-1][1] = cmap
        hierarchy.append([nxt, None, labels, hierarchy[-1][3], fixed])
        log.debug("level %d: %d -> %d vertices", len(hierarchy) - 1, n_of(cur), nc)
        cur = nxt
    return hierarchy


# ---------------------------------------------------------------------------------- hypergraphs
def refinement_mode(be: Backend, cfg: Config) -> str:
    """The refinement ``cfg.refinement`` resolves to on ``be`` (``"auto"``: the backend's
    ``default_refinement``, whatever the input's size)."""
    if cfg.refinement != "auto":
        return cfg.refinement
    return getattr(be, "default_refinement", "fm")


def vcycles(be: Backend, cfg: Config, k: int, n: int) -> int:
    """``cfg.vcycles`` resolved on ``be`` at ``k`` blocks for an input of ``n`` vertices (-1:
    the backend's ``default_vcycles(k, n)``, 2 where it has none)."""
    if cfg.vcycles >= 0:
        return int(cfg.vcycles)
    default = getattr(be, "default_vcycles", None)
    return 2 if default is None else int(default(k, n))


_resolve_vcycles = vcycles  # for functions whose parameter is named ``vcycles``


def _backend_default(be: Backend, name: str, k: int, n: int, fallback):
    """The backend's ``default_<name>`` (``fallback`` where it has none), or its
    ``default_<name>_k2`` at k = 2 on inputs of at least its ``LARGE_MIN_N`` vertices where it
    has one: the value a ``-1`` of ``Config.<name>`` stands for."""
    k2 = getattr(be, f"default_{name}_k2", None)
    if k == 2 and k2 is not None and n >= int(getattr(be, "LARGE_MIN_N", 0)):
        return k2
    return getattr(be, f"default_{name}", fallback)


def vcycle_min_vertices(be: Backend, cfg: Config, k: int = 0, n: int = 0) -> int:
    """``cfg.vcycle_min_vertices`` resolved on ``be`` at ``k`` blocks for an input of ``n``
    vertices (-1: :func:`_backend_default`, 0 where the backend has none)."""
    if cfg.vcycle_min_vertices >= 0:
        return int(cfg.vcycle_min_vertices)
    return int(_backend_default(be, "vcycle_min_vertices", k, n, 0))


def _refiner_hypergraph(be: Backend, k: int, bounds, objective: str, cfg: Config, seed: int,
                        timer: _Timer, finest_n: int = -1, initial: bool = False
                        ) -> Callable[[HypergraphArrays, Any], Any]:
    """The refinement of one level (rebalance first). ``initial``: the refiner of the initial
    partitioning candidates on the coarsest level, which always uses sequence refinement + FM
    (Jet on every one of up to 64 candidates cost more than the rest of the run; see Config).
    ``refine(level, parts, locked=None)``: ``locked`` (uint8 per vertex) as in the backends."""
    mode = "fm" if initial else refinement_mode(be, cfg)
    fm_pass = _fm_polisher(be, k, bounds, objective, cfg, seed, timer)

    def refine(ha: HypergraphArrays, parts, locked=None):
        t0 = time.perf_counter()
        lk = {} if locked is None else {"locked": locked}
        parts = be.rebalance_hypergraph(ha, parts, k, bounds, objective, **lk)
        t0 = timer.add("rebalance", t0)
        fm = cfg.fm and cfg.fm_rounds > 0
        if mode == "fm" or ha.num_pins <= cfg.jet_min_pins:
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
            fm = fm and mode == "jet+fm" and ha.num_pins <= cfg.jet_fm_max_pins
        if fm:
            parts = fm_pass(ha, parts, locked)
        return parts

    return refine


def _fm_polisher(be: Backend, k: int, bounds, objective: str, cfg: Config, seed: int,
                 timer: _Timer) -> Callable[[HypergraphArrays, Any], Any]:
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


#: ``Config.max_shrink`` of backends without a default of their own.
MAX_SHRINK = 2.5


def max_shrink(be: Backend, cfg: Config, k: int, n: int) -> float:
    """``cfg.max_shrink`` resolved on ``be`` at ``k`` blocks for an input of ``n`` vertices (-1:
    :func:`_backend_default`, ``MAX_SHRINK`` where the backend has none)."""
    if cfg.max_shrink != -1:
        return float(cfg.max_shrink)
    return float(_backend_default(be, "max_shrink", k, n, MAX_SHRINK))


def _hypergraph_coarsener(be: Backend, k: int, mcw: int, cfg: Config, seed: int, n: int = 0):
    """One level's clustering, ``coarsen_one(level, communities=None) -> (cmap, nc)``, as the
    config asks (HyperG grouping or the default clustering); ``n``: the input's vertices."""
    limit = max_shrink(be, cfg, k, n)

    def coarsen_one(ha, communities=None):
        if cfg.coarsening == "hyperg":
            return be.coarsen_hypergraph(
                ha, mcw, group_size=cfg.group_size, max_net_size=cfg.rating_max_net_size,
                communities=communities, seed=seed,
            )
        # never (much) below the contraction limit in one step; at least 1.01 (1%) per level
        shrink = max(min(limit, ha.n / (cfg.contraction_limit * k)), 1.01)
        return be.cluster_hypergraph(
            ha, mcw, max_net_size=cfg.rating_max_net_size, communities=communities,
            max_shrink=shrink, weight_penalty=cfg.weight_penalty, seed=seed,
        )

    return coarsen_one


def share_unconnected_community(xp, top: HypergraphArrays, communities, max_net_size: int):
    """``communities`` with every vertex that no net of 2 to ``max_net_size`` pins connects
    (Louvain's clique expansion leaves it alone in a community of its own: one net over every
    vertex, nets all larger than that, no nets) moved into one community they share, ids dense
    again. Clustering stays within communities, so left alone such vertices would never be
    clustered and the levels would stop shrinking (a single net over 100,000 vertices sent all
    of them to the initial partitioning); together they are paired (``cluster_hypergraph``)."""
    sizes = xp.diff(top.eptr)
    kept = ((sizes >= 2) & (sizes <= max_net_size)).astype(xp.int64)
    counts = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(kept[top.vind])])
    kept_nets = counts[top.vptr[1:]] - counts[top.vptr[:-1]]
    # min() rather than any() of a mask: on the GPU CuPy compiles its any() over a large array
    # (a CUB reduction) on first use, about 5 s; min / max ship compiled
    if top.n == 0 or int(kept_nets.min()) > 0:
        return communities
    alone = kept_nets == 0
    labels = xp.where(alone, -1, communities.astype(xp.int64))
    return xp.unique(labels, return_inverse=True)[1].reshape(-1).astype(xp.int32)


def _multilevel_hypergraph(h: Hypergraph, k: int, epsilon: float, objective: str, be: Backend,
                           seed: int, cfg: Config, timer: _Timer,
                           block_bounds: np.ndarray | None = None,
                           fixed: np.ndarray | None = None) -> np.ndarray:
    """igpart's multilevel pipeline on a hypergraph. ``block_bounds`` (int64 per block, default
    ``max_block_weight`` for every block) lets blocks have different bounds (the bisections of
    :mod:`igpart.recursive`); METIS then aims at weights in the same proportions. ``fixed``
    (host int32 per vertex, -1: free; validated by the caller): vertices that end in their
    block (:mod:`igpart.fixed`)."""
    if fixed is not None and not bool((fixed >= 0).any()):
        fixed = None
    if be.name != "cpu" and h.n < cfg.host_levels_below:
        be = get_backend("cpu")  # every level would be a host level (Config.host_levels_below)
    t0 = time.perf_counter()
    top = be.hypergraph_arrays(h)
    top_fixed = None if fixed is None else be.asarray(fixed, "int32")
    timer.add("upload", t0)
    if block_bounds is None:
        bound = max_block_weight(h.total_weight, k, epsilon)
        bounds = _bounds(be, h.total_weight, k, epsilon)
    else:
        block_bounds = np.asarray(block_bounds, dtype=np.int64)
        bound = int(block_bounds[block_bounds > 0].min(initial=h.total_weight))
        bounds = be.asarray(block_bounds, "int64")

    def bounds_on(b: Backend):
        return (_bounds(b, h.total_weight, k, epsilon) if block_bounds is None
                else b.asarray(block_bounds, "int64"))

    mcw = _max_cluster_weight(h.total_weight, k, cfg.contraction_limit, cfg.cluster_weight_factor,
                              bound)
    refine = _refiner_hypergraph(be, k, bounds, objective, cfg, seed, timer, finest_n=top.n)
    coarsen_one = _hypergraph_coarsener(be, k, mcw, cfg, seed, h.n)
    host = None
    if be.name != "cpu" and cfg.host_levels_below:
        hbe = get_backend("cpu")
        host = _HostLevels(
            cfg.host_levels_below, hbe,
            lambda s: _hypergraph_coarsener(hbe, k, mcw, cfg, s, h.n),
            hbe.contract_hypergraph,
            # the device's refinement on the host levels too (Jet: the C++ one returns the
            # same partition as the kernels)
            _refiner_hypergraph(hbe, k, bounds_on(hbe), objective,
                                dataclasses.replace(
                                    cfg, refinement=refinement_mode(be, cfg)),
                                seed, timer, finest_n=top.n),  # fmt: skip
            lambda src, level: hbe.hypergraph_arrays(hypergraph_from_arrays(src, level)),
        )
    communities = None
    if cfg.communities and top.n >= cfg.contraction_limit * k:
        t0 = time.perf_counter()
        communities = be.communities(
            top, max_net_size=cfg.community_max_net_size, max_levels=cfg.community_levels,
            max_passes=cfg.community_passes, seed=seed,
            resolution=community_resolution(cfg, h.num_pins),
            max_weight=community_max_weight(cfg, h.total_weight, k),
            sub_rounds=community_sub_rounds(be, cfg, h.n), k=k,
        )
        communities = share_unconnected_community(be.xp, top, communities,
                                                  cfg.community_max_net_size)
        timer.add("communities", t0)
    if top_fixed is not None:
        communities = fixed_labels(be.xp, top_fixed, communities)
    hierarchy = _coarsen(top, lambda a: a.n, coarsen_one, be.contract_hypergraph,
                         cfg.contraction_limit * k, cfg.min_shrink, cfg.max_levels, timer,
                         labels=communities, xp=be.xp, min_n=k, be=be, host=host,
                         host_coarsen_one=host.coarsener(seed) if host else None,
                         fixed=top_fixed)
    coarsest, cbe, cfixed = hierarchy[-1][0], hierarchy[-1][3], hierarchy[-1][4]
    t0 = time.perf_counter()
    coarse_host = hypergraph_from_arrays(cbe, coarsest)
    large = h.n >= cfg.initial_runs_min_n
    rb_runs, rb_seeds = _rb_effort(cfg, k, large)
    # The coarsest level is small and on the host already: the initial candidates are refined
    # by the C++ backend (the same algorithms), concurrently and without a device round trip per
    # stage and candidate.
    ibe = cbe if cbe.name == "cpu" else get_backend("cpu")
    ilevel = coarsest if ibe is cbe else ibe.hypergraph_arrays(coarse_host)
    ibounds = bounds if ibe is be else bounds_on(ibe)
    top_fm = cfg.initial_fm_top
    irefine = _refiner_hypergraph(ibe, k, ibounds, objective,
                                  dataclasses.replace(cfg, fm=cfg.fm and not top_fm), seed, timer,
                                  initial=True)  # fmt: skip
    ipolish = None
    if top_fm and cfg.fm and cfg.fm_rounds > 0:
        ipolish = _fm_polisher(ibe, k, ibounds, objective, cfg, seed, timer)
    # fixed vertices on the coarsest level: every candidate is renamed to agree with them, they
    # are put into their blocks, and rebalancing and refinement keep them there
    ifixed = None if cfixed is None else cbe.to_host(cfixed)
    ilock = {} if ifixed is None else {"locked": locked_mask(np, ifixed)}
    align = (lambda p: p) if ifixed is None else (
        lambda p: align_to_fixed(p, ifixed, coarse_host.vwgt, k, ibe.to_host(ibounds)))
    refine_batch = None
    if hasattr(ibe, "refine_candidates") and not (cfg.fm and not top_fm):
        # irefine without FM: rebalance + sequence refinement, which the C++ backend does for
        # all candidates in one call (a few ms instead of ~12 on 16 Python threads, H100)
        def refine_batch(cands):
            t0 = time.perf_counter()
            out, values = ibe.refine_candidates(
                ilevel, np.stack([align(c) for c in cands]), k, ibe.to_host(ibounds), objective,
                max_rounds=cfg.refine_rounds, **ilock)
            timer.add("refine", t0)
            return list(out), [int(v) for v in values]

    parts_host = initial_partition(
        coarse_host, k, epsilon, objective, seed=seed, method=cfg.initial,
        runs=_initial_runs(cfg, k, hypergraph=True, n=h.n),
        max_net_size=cfg.initial_max_net_size,
        refine=lambda p: ibe.to_host(irefine(ilevel, ibe.asarray(align(p), "int32"), **ilock)),
        evaluate=lambda p: ibe.hypergraph_objective(ilevel, ibe.asarray(p, "int32"), k, objective),
        threads=_threads(cfg), rb_runs=rb_runs, rb_seeds=rb_seeds, config=cfg,
        block_bounds=block_bounds, large=large,
        polish=None if ipolish is None else (
            lambda p: ibe.to_host(ipolish(ilevel, ibe.asarray(p, "int32"), **ilock))),
        polish_top=top_fm, bisector=cfg.initial_bisector,
        metis_processes=cfg.initial_metis_processes, refine_batch=refine_batch,
        **({} if ifixed is None else {"fixed": ifixed}),
    )
    timer.add("initial", t0)
    parts = cbe.asarray(parts_host, "int32")
    parts = _uncoarsen(be, hierarchy, parts, refine, timer, host)
    parts = _vcycles(be, top, parts, k, objective, lambda s: _hypergraph_coarsener(
        be, k, mcw, cfg, s, h.n), refine, cfg, timer, vcycles(be, cfg, k, h.n), seed, host,
        fixed=top_fixed)
    return be.to_host(parts).astype(np.int32, copy=False)


def _uncoarsen(be: Backend, hierarchy: list, parts, refine, timer: _Timer,
               host: _HostLevels | None = None):
    """Projects ``parts`` (on the coarsest level's backend) from the coarsest level up, refining
    on every finer level (levels on ``host.be`` with ``host.refine``); the partition moves to a
    level's backend before the projection onto it. Levels with fixed vertices are refined
    with them locked."""
    for i in range(len(hierarchy) - 2, -1, -1):
        level, cmap, _, lbe, lfixed = hierarchy[i]
        on_host = host is not None and lbe is host.be
        t0 = time.perf_counter()
        if host is not None:
            parts = _move(parts, hierarchy[i + 1][3], lbe)
        parts = (host.be if on_host else be).project(cmap, parts)
        timer.add("project", t0)
        parts = (host.refine if on_host else refine)(level, parts,
                                                     locked=locked_mask(lbe.xp, lfixed))
    return parts


def _vcycle_hypergraph(be, top, parts, k, objective, coarsen_one, refine, cfg, timer,
                       host: _HostLevels | None = None, host_coarsen_one=None, fixed=None):
    """One V-cycle: coarsen inside blocks (labels = current blocks, so the partition stays
    representable on every level), refine on the way up. Returns ``(parts, gain)``: the new
    partition when it is not worse (else the old one) and the objective improvement. ``host``,
    ``host_coarsen_one``: the small levels on the host (see :func:`_coarsen`). ``fixed``: the
    fixed vertices (all in their blocks in ``parts``), locked on every level."""
    before = be.hypergraph_objective(top, parts, k, objective)
    limit = max(cfg.contraction_limit * k, vcycle_min_vertices(be, cfg, k, top.n))
    hierarchy = _coarsen(top, lambda a: a.n, coarsen_one, be.contract_hypergraph,
                         limit, cfg.min_shrink, cfg.max_levels, timer,
                         labels=be.asarray(parts, "int32"), xp=be.xp, min_n=k, be=be,
                         host=host, host_coarsen_one=host_coarsen_one, fixed=fixed)
    coarsest, _, labels, cbe, cfixed = hierarchy[-1]
    new = (host.refine if host is not None and cbe is host.be else refine)(
        coarsest, labels, locked=locked_mask(cbe.xp, cfixed))
    new = _uncoarsen(be, hierarchy, new, refine, timer, host)
    after = be.hypergraph_objective(top, new, k, objective)
    return (new, before - after) if after <= before else (parts, 0)


def _vcycles(be, top, parts, k, objective, coarsener, refine, cfg, timer, count: int, seed: int,
             host: _HostLevels | None = None, fixed=None):
    """Up to ``count`` V-cycles, the i-th clustering with seed ``seed + i`` (``coarsener(seed)``
    gives ``coarsen_one``) so that each cycle sees other clusters; stops after a cycle that does
    not improve the objective. ``host``: the small levels on the host (see :func:`_coarsen`)."""
    for i in range(int(count)):
        t0 = time.perf_counter()
        parts, gain = _vcycle_hypergraph(
            be, top, parts, k, objective, coarsener(seed + i), refine, cfg, timer, host,
            host.coarsener(seed + i) if host is not None else None, fixed=fixed,
        )
        timer.add("vcycles", t0)
        if gain <= 0:
            break
    return parts


# ---------------------------------------------------------------------------------- graphs
def graph_coarsening(be: Backend, cfg: Config) -> str:
    """``cfg.graph_coarsening`` resolved on ``be`` (``"auto"``: the backend's
    ``default_graph_coarsening``, ``"gkway"`` where it has none)."""
    if cfg.graph_coarsening != "auto":
        return cfg.graph_coarsening
    return getattr(be, "default_graph_coarsening", "gkway")


def graph_refinement(be: Backend, cfg: Config) -> str:
    """``cfg.graph_refinement`` resolved on ``be`` (``"auto"``: the backend's
    ``default_graph_refinement``, ``"gkway"`` where it has none)."""
    if cfg.graph_refinement != "auto":
        return cfg.graph_refinement
    return getattr(be, "default_graph_refinement", "gkway")


def _multilevel_graph(g: Graph, k: int, epsilon: float, be: Backend, seed: int, cfg: Config,
                      timer: _Timer, block_bounds: np.ndarray | None = None) -> np.ndarray:
    """igpart's multilevel pipeline on a graph; ``block_bounds``: as for hypergraphs."""
    if be.name != "cpu" and g.n < cfg.host_levels_below:
        be = get_backend("cpu")  # every level would be a host level (Config.host_levels_below)
    t0 = time.perf_counter()
    top = be.graph_arrays(g)
    timer.add("upload", t0)
    bound = max_block_weight(g.total_weight, k, epsilon)
    if block_bounds is not None:
        bound = int(block_bounds[block_bounds > 0].min(initial=g.total_weight))

    def bounds_on(b: Backend):
        return (_bounds(b, g.total_weight, k, epsilon) if block_bounds is None
                else b.asarray(block_bounds, "int64"))

    bounds = bounds_on(be)
    mcw = _max_cluster_weight(g.total_weight, k, cfg.graph_contraction_limit,
                              cfg.graph_cluster_weight_factor, bound)

    # resolved once on the input's backend: host levels and the initial candidates run the same
    coarsening, refinement = graph_coarsening(be, cfg), graph_refinement(be, cfg)
    limit = cfg.graph_contraction_limit * k

    def refiner(be: Backend, bounds):
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
                                              seed=seed, sub_rounds=cfg.graph_lp_sub_rounds)
                t0 = timer.add("refine", t0)
            if refinement == "lp+fm" and cfg.graph_fm_rounds:
                parts, _ = be.fm_refine_graph(
                    ga, parts, k, bounds, rounds=cfg.graph_fm_rounds,
                    max_fruitless_moves=cfg.graph_fm_max_fruitless_moves,
                    min_improvement=cfg.fm_min_improvement, seed=seed,
                    max_work=cfg.graph_fm_max_work)
                timer.add("fm", t0)
            return parts

        return refine

    refine = refiner(be, bounds)

    def coarsener(b: Backend, s: int):
        if coarsening == "lp":
            return lambda ga: b.cluster_graph_lp(
                ga, mcw, iterations=cfg.graph_lp_iterations, min_clusters=limit, seed=s,
                sub_rounds=cfg.graph_lp_sub_rounds)
        return lambda ga: b.coarsen_graph(ga, mcw, group_size=cfg.graph_group_size, seed=s)

    host = None
    if be.name != "cpu" and cfg.host_levels_below:
        hbe = get_backend("cpu")
        host = _HostLevels(
            cfg.host_levels_below, hbe, lambda s: coarsener(hbe, s), hbe.contract_graph,
            refiner(hbe, bounds_on(hbe)),
            lambda src, level: hbe.graph_arrays(graph_from_arrays(src, level)),
        )
    hierarchy = _coarsen(top, lambda a: a.n, coarsener(be, seed), be.contract_graph,
                         limit, cfg.graph_min_shrink, cfg.max_levels,
                         timer, min_n=k, be=be, host=host,
                         host_coarsen_one=host.coarsener(seed) if host else None)
    coarsest, cbe = hierarchy[-1][0], hierarchy[-1][3]
    t0 = time.perf_counter()
    coarse_host = graph_from_arrays(cbe, coarsest)
    # as for hypergraphs: the C++ backend refines the initial candidates
    ibe = cbe if cbe.name == "cpu" else get_backend("cpu")
    ilevel = coarsest if ibe is cbe else ibe.graph_arrays(coarse_host)
    irefine = refine if ibe is be else refiner(ibe, bounds_on(ibe))
    parts_host = initial_partition(
        coarse_host, k, epsilon, "cut", seed=seed, method=cfg.initial,
        runs=_initial_runs(cfg, k), max_net_size=cfg.initial_max_net_size,
        block_bounds=block_bounds,
        refine=lambda p: ibe.to_host(irefine(ilevel, ibe.asarray(p, "int32"))),
        evaluate=lambda p: ibe.graph_edge_cut(ilevel, ibe.asarray(p, "int32")),
        threads=_threads(cfg), metis_processes=cfg.initial_metis_processes,
    )
    timer.add("initial", t0)
    parts = _uncoarsen(be, hierarchy, cbe.asarray(parts_host, "int32"), refine, timer, host)
    return be.to_host(parts).astype(np.int32, copy=False)


# ---------------------------------------------------------------------------------- warm start
def improve(
    h: Hypergraph | Graph,
    parts,
    k: int,
    epsilon: float = 0.03,
    objective: str = "cut",
    backend: str | Backend = "auto",
    seed: int = 0,
    config: Config | dict | None = None,
    vcycles: int | None = None,
    fixed=None,
    preset: str | None = None,
    max_block_weights=None,
) -> Partition:
    """Full multilevel re-partitioning warm-started from ``parts`` (what the incremental engine's
    quality guard runs): rebalance and refine on the input level, then ``vcycles`` V-cycles
    (None: the config's ``Config.vcycles``, resolved on the backend) that
    coarsen inside the current blocks (so the partition carries to every level), refine on the
    way up and are kept only when they do not worsen the objective. The result is never worse
    than a balanced input: when the refinement does not find a better partition, ``parts``
    comes back. A graph is handled as the hypergraph of its edges (2-pin nets), whose cut is
    the edge cut. ``fixed`` (as in :func:`partition`): fixed vertices are first put into their
    blocks (where ``parts`` has them elsewhere), then locked through rebalancing, refinement
    and V-cycles. ``preset``, ``max_block_weights``: as for :func:`partition` (not together
    with ``fixed``)."""
    from .metrics import check_parts

    _validate(h, k, epsilon, objective, seed)
    k, epsilon = int(k), float(epsilon)
    cfg = Config.of(config, preset)
    if vcycles is not None and (isinstance(vcycles, bool) or vcycles < 0
                                or not isinstance(vcycles, (int, np.integer))):
        raise InputError(f"vcycles must be a non-negative integer, got {vcycles!r}")
    targets = None if max_block_weights is None else check_block_weights(
        max_block_weights, k, h.total_weight)
    hyper = h.to_hypergraph() if isinstance(h, Graph) else h
    p = check_parts(parts, hyper.n, k)
    fixed = _check_fixed(h, fixed, k, epsilon)
    if fixed is not None and targets is not None:
        raise InputError("fixed vertices and per-block maximum weights cannot be combined (the "
                         "fixed blocks are checked against the epsilon bound)")
    if fixed is not None:
        p = np.where(fixed >= 0, fixed, p).astype(np.int32)
    t_start = time.perf_counter()
    be = get_backend(backend)
    _check_memory(be, hyper, k)
    if vcycles is None:
        vcycles = _resolve_vcycles(be, cfg, k, hyper.n)
    timer = _Timer()
    with _stage_threads(cfg):
        p = _improve(hyper, p, k, epsilon, objective, be, seed, cfg, timer, vcycles, targets,
                     fixed)
    seconds = time.perf_counter() - t_start
    return Partition.from_parts(
        h, p, k, epsilon, objective, seconds=seconds, timings=timer.timings, backend=be.name,
        algorithm="multilevel-warm", seed=seed, config=dataclasses.asdict(cfg),
        max_block_weights=targets,
    )


def _improve(hyper, p, k, epsilon, objective, be, seed, cfg, timer, vcycles, targets=None,
             fixed=None):
    """The refinement and V-cycles of :func:`improve` (block ids on the host); ``targets``:
    per-block bounds (None: the epsilon bound); ``fixed``: host int32 or None, the fixed
    vertices already in their blocks in ``p``. A balanced input comes back unless the result
    is balanced and at least as good."""
    if k > 1 and hyper.n:
        top = be.hypergraph_arrays(hyper)
        top_fixed = None if fixed is None else be.asarray(fixed, "int32")
        lock = {} if fixed is None else {"locked": locked_mask(be.xp, top_fixed)}
        if targets is None:
            bound = max_block_weight(hyper.total_weight, k, epsilon)
            bounds = _bounds(be, hyper.total_weight, k, epsilon)
            host_bounds = np.full(k, bound, dtype=np.int64)
        else:
            bound = int(targets[targets > 0].min(initial=hyper.total_weight))
            bounds, host_bounds = be.asarray(targets, "int64"), targets
        mcw = _max_cluster_weight(hyper.total_weight, k, cfg.contraction_limit,
                                  cfg.cluster_weight_factor, bound)
        refine = _refiner_hypergraph(be, k, bounds, objective, cfg, seed, timer,
                                     finest_n=top.n)
        start = be.asarray(p, "int32")
        cur = refine(top, start, **lock)
        cur = _vcycles(be, top, cur, k, objective, lambda s: _hypergraph_coarsener(
            be, k, mcw, cfg, s), refine, cfg, timer, vcycles, seed, fixed=top_fixed)
        if _fits(hyper, p, k, host_bounds):
            new = be.to_host(cur).astype(np.int32, copy=False)
            worse = (not _fits(hyper, new, k, host_bounds)
                     or be.hypergraph_objective(top, cur, k, objective)
                     > be.hypergraph_objective(top, start, k, objective))
            return p if worse else new
        p = be.to_host(cur).astype(np.int32, copy=False)
    return p


def _fits(h: Hypergraph, parts: np.ndarray, k: int, bounds: np.ndarray) -> bool:
    """Whether every block of ``parts`` weighs at most its bound."""
    return bool((np.bincount(parts, weights=h.vwgt, minlength=k) <= bounds).all())
