"""The configuration of the multilevel partitioner: :class:`Config`, every tunable of every stage
with its default, its validation, and the preset values applied to the fields a call does not
give (:mod:`igpart.presets`). The values that depend on the input, ``k`` or the backend
(``-1`` / ``"auto"`` fields) are resolved in :mod:`igpart.partitioner.context`."""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..presets import PRESETS, preset_values

ALGORITHMS = ("multilevel", "metis")

#: Values of ``Config.refinement`` (hypergraphs).
REFINEMENTS = ("auto", "fm", "jet", "jet+fm")

#: Values of ``Config.coarsening`` (hypergraphs).
COARSENINGS = ("auto", "heavy_edge", "hyperg")

#: Values of ``Config.graph_coarsening``: size-constrained label propagation clustering, or
#: G-kway's union-find coarsening with constrained grouping.
GRAPH_COARSENINGS = ("auto", "lp", "gkway")

#: Values of ``Config.graph_refinement``: G-kway's independent-set refinement, label
#: propagation, label propagation then localized FM, label propagation then Jet.
GRAPH_REFINEMENTS = ("auto", "gkway", "lp", "lp+fm", "lp+jet")

#: Values of ``Config.graph_fm_seeds``: where the graph FM's searches start.
GRAPH_FM_SEEDS = ("auto", "gain", "boundary")

#: Values of ``Config.initial``.
INITIAL_METHODS = ("auto", "metis", "mtkahypar", "all", "rb", "rb+metis")

#: Values of ``Config.initial_bisector``: the seeded candidates of a k = 2 coarsest level
#: (METIS, greedy hypergraph growing, or both pools).
INITIAL_BISECTORS = ("metis", "ghg", "both")

#: Values of ``Config.initial_rb_communities``: Louvain in every bisection of recursive
#: bisection, or once on its input with every sub-hypergraph inheriting its vertices' ids.
INITIAL_RB_COMMUNITIES = ("each", "once")


@dataclass
class Config:
    """Every tunable of the multilevel partitioners, with the defaults igpart ships.

    ``preset`` (``"speed"``, ``"default"``, ``"quality"``; tiers of effort as Mt-KaHyPar's
      deterministic / default / quality, whether a run repeats itself being ``deterministic``
      below): the fields a call does not give take the preset's values
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
      ``coarsening``: ``"auto"`` (default: the backend's ``default_coarsening(k, n)``, heavy-edge
      clustering on the C++ backend; on the GPU HyperG's groups for 2 < k < 64 on inputs of at
      least 100,000 vertices, heavy-edge clustering otherwise, ``GpuBackend.default_coarsening``),
      ``"heavy_edge"`` (cluster-aware heavy-edge clustering,
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
      applies to both coarsening methods. ``community_max_net_size`` (default -1: the backend's
      ``default_community_max_net_size(n, net_sizes)``, 50 where it has none): on the C++
      backend 50 below 250,000 vertices (``CpuBackend.LARGE_MIN_N``), from there the largest cap
      from 10 to 50 whose clique expansion has at most 2 arcs per pin (ibm10 x8: 10, where 50
      gave 6.2 arcs per pin and Louvain took about twice the time; stereo_vision x4: 21,
      neuron x4: 29, cholesky_mc x4: 31; BENCHMARKS.md, "Louvain's net-size cap and one
      V-cycle on large inputs"), raised until the nets it leaves out (up to 50 pins) hold at
      most 2% of their pins (ISPD98 15-25, Titan23 30-40: a cap of 10 left out 14-42% of the
      ISPD98 circuits' pins and cost ibm01 x157 4x its cut at k = 2).
      ``community_max_weight``: a community weighs at most ``community_max_weight * total / k``
      (one block's weight; 0: no cap). Modularity has a resolution limit: its communities grow
      like the square root of the total edge weight, so on large inputs they outgrow the blocks
      (ibm01 inflated 20x: 46 communities of ~5k vertices, vs 27 of ~400 on ibm01 itself, and
      blocks of 4k vertices at k = 64) and no longer guide the clustering where the cut goes.
      The cap keeps them within a block whatever the size (inflated inputs, k = 64: 1.2–5.8%
      lower cut; unchanged at k <= 16, where the communities are smaller than a block anyway).
      ``community_sub_rounds`` (default -1: the backend's ``default_community_sub_rounds(n)``,
      on the C++ backend 64 on inputs of at least 100,000 vertices
      (``CpuBackend.sub_round_min_vertices``; 16,384 under ``deterministic=None`` or False from 2
      threads on, ``CpuBackend.sub_round_floor``, which also sets where the clustering runs in
      sub-rounds), else 0, as on the GPU; 0: sequential local moving): Louvain's local moving
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
      a loaded 2-core machine the sub-rounds' barriers cost more than they save; measured again
      with today's code, inputs of 16,384+ vertices gain from 2 threads on, hence
      ``CpuBackend.sub_round_floor`` under ``deterministic=None`` or False).
      ``community_pass_gain`` (default -1: the backend's ``default_community_pass_gain(n)``:
      on the C++ backend 0.1 on inputs of any size; 0 on the GPU; 0: off): a Louvain level
      also ends after a local-moving pass whose moves gained less modularity than this
      fraction of what the level's passes gained so far (besides the rule of a pass moving at
      most 1% of the level's vertices, and ``community_passes``). On the
      enlarged inputs the first level's later passes gained about 0.01 each for most of
      Louvain's time; with 0.1 the same cut (geomean 0.993x, 24 runs) for 0.81x Louvain's
      time on one thread; on the ``small`` suite 0.997x the cut in 0.92x the time on 2 threads,
      0.993x in 0.90x on 16 (``CpuBackend.community_pass_gain``).
      ``community_graph``: the graph Louvain runs on: ``"clique"`` (the weighted clique
      expansion of nets of at most ``community_max_net_size`` pins), ``"bipartite"``
      (Mt-KaHyPar's: a node per vertex and per net of at most ``max(50000, n / 100)`` pins, an
      arc per pin, weighted by ``community_edge_weight``; O(pins) arcs instead of
      O(sum |e|^2), the vertices' communities are the result) or ``"auto"`` (default: the
      backend's ``default_community_graph(n)``, else ``"clique"``).
      ``community_edge_weight`` (bipartite graph only): ``"uniform"`` (w_e), ``"non_uniform"``
      (w_e / |e|), ``"degree"`` (w_e * d(v) / |e|) or ``"hybrid"`` (default, Mt-KaHyPar's:
      degree when m / n < 0.75, non_uniform when m / n < 2 and a net has more than 1,000 pins,
      else uniform).
      ``community_level_vertices`` (default -1: the backend's ``community_level_max(k)``: 0 on
      the C++ backend, ``CpuBackend.community_level_vertices``; 30,000 below k = 64 and
      100,000 from there on the GPU): Louvain runs on a level of at most this many vertices,
      coarsened from the input by heavy-edge clustering without communities (at most 4x fewer
      vertices per level), and its communities are projected back; 0: on the input itself.
      ``community_levels_kept`` (default False): where Louvain runs on such a coarser level,
      the levels coarsened to it (nets rated up to ``rating_max_net_size`` pins, clusters
      within the partition's cluster weight cap, the last level landing near
      ``community_level_vertices``) become the partition's first
      levels, the level itself carrying Louvain's communities, instead of the partition
      coarsening the input again under the communities; not with fixed vertices, under a
      device memory budget, or below the coarsest level the partition asks.
      ``community_resolution``: Louvain's resolution (> 1: smaller communities everywhere);
      1 by default; 0 chooses it from the size, ``max(1, pins / community_resolution_pins)``
      (``community_resolution_pins``, default 250,000; measured on inflated inputs: better
      at k = 64, worse as often as better at k <= 16, so not the default).
      ``contraction_limit``: stop once a level has fewer than ``contraction_limit * k`` vertices.
      igpart ships 40 rather than HyperG's / Mt-KaHyPar's 160: the initial partitioner (METIS on
      the clique expansion) is weaker than the multilevel refinement on hypergraph levels, so
      coarsening further is both better (ISPD98 geomean cut ratio vs Mt-KaHyPar 1.020 -> 1.015,
      k = 64: 1.058 -> 1.036) and faster; ``Config(contraction_limit=160)`` restores the paper's.
      ``bisection_contraction_limit`` (default 160, Mt-KaHyPar's; 0: ``contraction_limit``):
      the contraction limit of a k = 2 run: its coarsening stops below
      ``2 * bisection_contraction_limit`` vertices (:func:`.context.coarsest_vertices`) and a
      cluster weighs at most ``factor * ceil(total / (2 * bisection_contraction_limit))``, on
      every backend (the GPU's clustering gets the same cap and shrink limit). With 40 a
      bisection's coarsest level had ~80-130 vertices of up to 1/80 of the total weight each,
      on which it could settle on a cut line that neither the initial partitioning nor FM and
      V-cycles leave (ibm08, seed 0: 1,738 against 1,165-1,217 on other seeds and Mt-KaHyPar's
      ~1,170). Small suite, k = 2, seeds 0-3 against Mt-KaHyPar (BENCHMARKS.md, "``small`` at
      k = 2 over seeds"): the light cap is what fixes ibm08, the 64 initial seeds that come
      with it (``initial_runs``) what keeps neuron. At k = 4 the same rule (320 vertices) gave
      cuts -5% .. +9% (6 ISPD98 / Titan23 inputs, one seed), so it stays at k = 2. Recursive
      bisection's bisections (the initial partitioner at k >= 3) keep ``contraction_limit``:
      160 there cost 1.5-3x the time at k = 16-64. The ``speed`` preset sets 0 (160 there:
      cut 0.962x for 1.6x the time at k = 2 on the small suite, seeds 0-3).
      ``min_shrink``: stop when a level removes less than this fraction of its vertices.
      ``rating_max_net_size``: nets with more pins are ignored by the rating.
      ``cluster_weight_factor``: a coarse vertex weighs at most
      ``factor * ceil(total / (contraction_limit * k))`` (and never more than the block bound),
      so that no cluster is too heavy for a balanced initial partition.
      ``coarse_retry_cut_share`` (0.5; 0: off): at k >= 3, when the initial partition cuts
      more than this share of the weight of its coarsest level's nets (of two pins or more),
      the coarse levels have merged what a good partition keeps apart: the hierarchy is
      rebuilt from its last level whose vertices all weigh at most half the cluster cap, with
      half the cap, and the initial partitioning runs again there (its bisections' cap halved
      too). On the ``small`` suite the share is 0.07-0.38 at k = 8 except on ibm05 (0.65),
      whose partitions from the default hierarchy end 14% above Mt-KaHyPar's on every seed
      whatever the initial partitioner (5,041 against 4,413; retried 4,475 / 4,478 / 5,018 on
      seeds 0-2); at k = 16-64 it retries ibm05 (0.71-0.74) and ibm02 at k = 32 and 64
      (0.58-0.60) too, cuts -3.6% .. +0.5% (seed 0; ibm02 at k = 16 is at 0.498). A
      retried run takes 1.6-1.9x its time (coarsening steps again and a second initial
      partitioning on a level about twice as large); runs below the share are unchanged. On
      the C++ backend (the GPU backend's runs are not retried, small ones included).
      BENCHMARKS.md, "A lighter hierarchy where the coarsest level is cut through".
    Coarsening of graphs: ``graph_contraction_limit`` (35: stop below 35·k vertices),
      ``graph_min_shrink`` (0.10), ``graph_cluster_weight_factor`` (a cluster weighs at most
      ``factor * ceil(total / (graph_contraction_limit * k))``).
      ``graph_coarsening``: ``"lp"`` (size-constrained label propagation clustering, as the
      label-propagation graph partitioners coarsen: ``graph_lp_iterations`` passes, each cut
      into ``graph_lp_sub_rounds`` slices whose vertices choose in parallel, then move (on the
      C++ backend slices of at least 16,384 vertices together, in parallel, by rules that read
      only the slice's choices, see ``kernels/cpu/graph_lp.h``; smaller ones in order), so the
      result does not depend on the threads (on the GPU a slice's moves are admitted
      together by a vectorised rule, ``igpart.kernels.gpu._graph_lp``, each slice costing a
      fixed number of launches and host reads; -1: the backend's
      ``default_graph_lp_sub_rounds``, 8 on the C++ backend, 1 on the GPU); lone vertices
      that favour the same cluster are grouped when a level would not halve), ``"gkway"``
      (G-kway §3.1 union-find coarsening with iG-kway §IV groups of at most
      ``graph_group_size`` (6) vertices), or ``"auto"`` (the backend's
      ``default_graph_coarsening``: ``"lp"`` on both backends, see
      ``GpuBackend.default_graph_coarsening``). On the ``graphs``
      suite at 2^16 (2 threads, dev VM) label propagation clustering alone took rgg_n_2_16
      from 1.7x KaMinPar's cut to parity (BENCHMARKS.md, "Graph pipeline").
    ``max_levels``: hard cap on the number of levels.
    ``graph_communities`` (False): graphs are coarsened inside Louvain communities (Louvain as
      for hypergraphs, ``community_*``; with the clique expansion, on the graph's own
      adjacency, which is its edges' expansion as 2-pin nets; the edges between communities
      are left out of every level's clustering), as Mt-KaHyPar does. The C++ backend finds
      them on the finest level; the GPU on the level its label propagation clustering
      coarsens the graph to (at most ``GpuBackend.community_level_max(k)`` vertices), on the
      host. On the ``graphs`` set at 2^20 (H200) the GPU cuts 0.966x as much (the circuits'
      clique models 0.944x) at 0.64x the speed; the C++ backend on 16 threads cuts the
      circuits' models 0.945x at 0.54x the speed (BENCHMARKS.md, "Louvain communities in the
      graph coarsening").
    Deep multilevel partitioning of graphs (:mod:`igpart.partitioner.deep`, k > 2 without
      per-block bounds): ``graph_deep_block_vertices`` (300; 0: off, all k blocks on the
      coarsest level): the coarsest level gets as many blocks as it has 300 vertices per
      block, and blocks are bisected on the way up wherever a level has 300 vertices per block
      after the split (on the level above the input at the latest). On the ``graphs`` set at
      2^20 (H200 machine, 16 threads, k = 16 and 64) it cut 0.971x the direct scheme's edge
      cut in 1/1.17 of its time; 1,000 per block cut 0.968x in the same time
      (BENCHMARKS.md, "Deep multilevel partitioning of graphs").
    Initial partitioning (:mod:`igpart.partitioner.initial`):
      ``initial``: ``"metis"`` (METIS on the clique expansion, ``initial_runs`` seeds at
      k = 64, ``max(1, initial_runs * 64 // k)`` beyond: METIS's time grows with k and so does
      the coarsest level, which keeps k close to n affordable; graphs ``initial_runs`` up to
      k = 16, ``max(1, initial_runs * 16 // k)`` beyond, 2 at k = 64, see
      ``context.GRAPH_SEEDS_FULL_K``). Hypergraphs of at least
      ``initial_runs_min_n`` vertices also get more seeds below k = 64, up to
      ``initial_runs_max``: the coarsest level (40·k vertices) is then smaller, so more seeds
      cost the same, and on large inputs its vertices stand for thousands of cells, where the
      best of many METIS runs matters (ibm01x20 k = 2: 8 seeds 353, 64 seeds 299; ibm09x10
      k = 16: 10670 -> 10070); on ISPD98 (< 100k vertices) 64 seeds gave the same cuts in 18 of
      20 cases for 1.5x the time, hence the threshold; at k = 2 with
      ``bisection_contraction_limit`` every input gets them: on that larger coarsest level the
      best of many seeds matters (small suite, k = 2, seeds 0-3: neuron's cuts 406 469 279 407
      with 8 seeds, 343 327 254 398 with 64; Mt-KaHyPar-2 370-396)),
      ``"mtkahypar"`` (Mt-KaHyPar when installed, else METIS) or ``"all"`` (both);
      ``"rb"``: recursive bisection (:mod:`.initial.recursive`, as KaHyPar / Mt-KaHyPar): each
      bisection is igpart's own k = 2 multilevel pipeline (communities, clustering, METIS
      candidates aiming at weights k0 : k1, rebalancing, refinement and FM on every level; no
      V-cycles) on the sub-hypergraph, with KaHyPar's adapted imbalance per bisection;
      ``initial_rb_runs`` recursive bisections (seeds) with ``initial_rb_seeds`` METIS seeds per
      bisection on inputs of at least ``initial_runs_min_n`` vertices, both scaled by 32 / k
      beyond k = 32 (4 x 16 up to k = 32), half of each on smaller inputs below
      k = 64 (2 x 8; on the ISPD98 subset 4 x 16 gave the same cuts for a time ratio vs
      Mt-KaHyPar of 1.29 instead of 0.96), and from k = 64 on one candidate with all the
      seeds (1 x 16 at k = 64: the same cuts as 2 x 8 in 0.67x the time, see ``rb_effort``);
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
      ``initial_rb_runs`` (default -1: the backend's ``default_initial_rb_runs(k, n)``, else 4),
      ``initial_rb_seeds`` (default 16): the effort of ``"rb"`` (above); both at least 1.
      ``initial_rb_min_seeds`` (default -1: automatic): the first bisection of ``"rb"`` gets
      all the METIS seeds, a bisection into ``k_sub`` of the ``k`` blocks ``ceil(seeds * k_sub
      / k)`` (half as many per level), never fewer than this
      (:func:`.initial.recursive.bisection_seeds`); 0: every bisection gets all of them. -1
      gives 8 when recursive bisection runs as one candidate (k >= 64 by default, where
      ``rb_effort`` puts the candidates' seeds on one: 16 for the first bisection, 8 below, as
      a candidate of 2 x 8 had) on inputs below ``initial_runs_min_n`` vertices, and 0 beside
      other candidates or on larger inputs (:func:`.context.rb_min_seeds`).
      METIS holds the GIL and was 34-57% of a recursive bisection's time on one thread (70% in
      its last bisections; coarsest level of ibm01, k = 64: 1,008 calls, 512 of them in the 32
      last bisections of ~100 vertices each), serial on any number of threads without worker
      processes. ``small`` suite, C++ backend, 2 threads, k = 64, seeds 0-3, the 13 inputs below
      100,000 vertices: cut 1.000 (0.991-1.007 per input) for 0.74x the initial partitioning's
      time, 0.92x the run's; with 4 candidates of 16 seeds (cholesky_mc, k = 8 / 16) 8 gave 2-5%
      higher cuts; on inflated inputs at k = 64 mixed results (ibm09x10 +1.7% over 4 seeds,
      ibm01x20 -1.0% over 2, ibm10x4 +0.2% over 2, ibm05x4 +0.5% over 2). On the coarsest levels
      alone (14 circuits, k = 8 / 16 / 64, seeds 0-2, one thread) 4 gave 0.72x the time at +0.9%
      cut before the k-way refinement.
      ``initial_rb_communities`` (default ``"each"``): ``"each"`` bisection of ``"rb"`` runs
      Louvain on its sub-hypergraph (its k = 2 pipeline's preprocessing); ``"once"``: Louvain
      runs once, on the input of ``"rb"`` (what its first bisection finds itself, same seed),
      and every sub-hypergraph inherits its vertices' communities, renumbered. Coarsest levels
      as above: 0.88x the time at +0.06% cut; end to end (``small`` suite, C++ backend, 2
      threads, seeds 0-1) cut +0.6% / -0.1% / +0.1% at k = 8 / 16 / 64 for 0.95x / 0.92x /
      0.96x the initial partitioning's time, so not the default.
      ``initial_rb_flat_vertices`` (default 256; 0: none): a bisection of ``"rb"`` of a
      sub-hypergraph of fewer vertices is flat (its k = 2 pipeline on one level: no
      communities, no coarsening; METIS seeds on the clique expansion, each distinct candidate
      rebalanced and refined, FM on the best), and the whole subtree below such a bisection
      runs in one C++ call, its bisections as OpenMP tasks without the GIL (the same blocks as
      the Python pipeline's bisections on one thread). ``small`` suite at k = 8 / 16 / 64,
      C++ backend, 2 threads of the 2-core VM, seeds 0-2, against 0: 128 / 256 / 512 / 1024
      cut 1.001x / 0.996x / 1.001x / 1.006x (k = 8: 1.006x / 0.996x / 1.004x / 1.018x); on 16
      threads (H200 machine, commit 965d647, one seed, best of two runs in one process) 256
      took 0.72x the initial partitioning's time and 0.89x the run's at cut 1.003x, 512 0.70x
      and 0.88x at 1.012x (k = 8 1.033x).
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
      coarsest level gets METIS seeds (``"metis"`` / ``"rb+metis"``): ``"metis"`` (METIS on
      the clique expansion, bisection weights in the bounds' proportions), ``"ghg"`` (greedy
      hypergraph growing with the same seeds, as in KaHyPar / Mt-KaHyPar's initial pool:
      from a seeded start vertex one block takes the adjacent vertex most connected to it
      until it reaches its share; all seeds in one C++ call without the GIL, so the bisections of
      ``"rb"`` run concurrently on ``threads``; :func:`.initial.pool.ghg_bisections`) or
      ``"both"`` (both pools). Every candidate is rebalanced and refined the same way.
      Measurements: BENCHMARKS.md at 10cd44d, "GIL-free initial bisector".
      ``initial_metis_processes`` (default -1: automatic): METIS calls of the initial
      partitioning (the seeds on the coarsest level and inside every bisection of ``"rb"``) run
      in this many persistent worker processes (:mod:`igpart.parallel.metis_pool`, started when
      ``partition`` starts, so that they import while the levels are coarsened, and reused for
      the process lifetime); 0 runs them in-process. In-process a call's seeds run side by side
      on the calling thread's OpenMP threads without the GIL (``initial.metis.part_graphs``),
      but the Python of the bisections of ``"rb"`` holds it, so bisections on threads of one
      process take turns; in workers up to this many run at once. Same
      blocks either way (each call is seeded); a worker that dies is replaced and its call runs
      in-process (a logged warning). With threads, the bisections of ``"rb"`` but the first
      run whole in these workers (``recursive.BISECT_IN_WORKERS``). -1 chooses per run
      (:func:`metis_processes`): on the C++ backend none (``CpuBackend.metis_workers``: with
      METIS in-process without the GIL its runs took 0.45-0.96x the time without the workers,
      113k to 2.5M vertices, 16 threads); on the GPU backend ``min(15, cpus - 1)`` workers (8
      before the bisections moved into the workers; 15 instead of 8 on the H100 machine,
      ibm01x200 / ibm09x100 at k = 64: 0.96 -> 0.85 s and 1.67 -> 1.55 s) on machines of at
      least 8 usable CPUs when the run has more than one thread, k > 2 (a k = 2 run's one
      batch of METIS seeds runs side by side in-process and does not pay for starting the
      workers beside the run's threads) and the input is a hypergraph of at least
      ``initial_runs_min_n`` vertices (on the GPU backend of any size from k = 3: its
      coarsening leaves the cores to the workers' start, and the `small` suite at k = 64 took
      0.73x the time with them), else in-process
      (graphs: their workers' imports slowed the clustering threads more than the workers
      saved; so on the 2-core dev VM and CI it stays in-process); the result's ``config``
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
      ``jet_negative_gain_fine`` / ``jet_negative_gain_coarse`` (defaults 0.25 / 0.0):
      Jet's negative-gain threshold c on the finest level / the others, finite and >= 0 (a
      vertex whose move loses less than c times its internal connection is a candidate; 0:
      non-negative gains only). The Jet paper's 0.75 on the coarse levels left the hypergraph
      levels too large for FM (over ``jet_fm_max_pins``) exactly as they came: every
      iteration's partition cut more than the projected one (cholesky_mc x18, k = 64, ``-vv``:
      levels 3, 2, 1 at 45,010 each on the C++ backend with the GPU's settings, against
      43,325 / 37,569 / 33,632 with 0). A/B on an H200 (``benchmarks/gpu_ab.py --reps 2
      --vary-seeds``, the ``large`` circuits cholesky_mc x18 at k = 2 and 64, ibm10 x29 at
      k = 2, 16, 64, neuron x22 at 64, stereo_vision x22 at 2, ibm11 x29 at 16): cut geomean
      0.980x with 0 (0.939-1.020x per case), 0.988x with 0.25, at 0.84-0.99x the time.
      ``graph_jet_negative_gain_coarse`` (default 0.75, the paper's) is the graph levels'
      coarse threshold: on graphs Jet runs after label propagation, and 0.25 there cut within
      the seeds' spread (neuron's clique model at k = 16 and 64, cholesky_mc's star model at
      k = 64, GPU, two seeds: 1.018x / 0.956x / 1.021x).
      ``jet_afterburner_max_net_size`` (default 256): nets with more pins count with the pin
      counts before the iteration in the afterburner (exact counting costs their size per
      candidate pin).
      ``jet_fm_max_pins`` (default -1: the backend's ``default_jet_fm_max_pins(k, n)``, else
      3,000,000): with ``"jet+fm"``, FM also runs on levels of at
      most this many pins (on the GPU, on a host copy of the level). 500,000 left the Titan23
      circuits enlarged to 2M vertices at k = 2 with up to 1.5x the cut (BENCHMARKS.md, "GPU
      refinement").
      ``jet_min_pins`` (default -1: the backend's ``default_jet_min_pins(k, n)``, else 0:
      none): in the Jet modes, levels of at most this many pins are refined the ``"fm"`` way
      instead.
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
      ``graph_fm_rounds`` rounds of searches from the boundary vertices (``graph_fm_seeds``:
      ``"gain"``, those whose best move has a gain >= 0; ``"boundary"``, every one; ``"auto"``,
      the default: ``"boundary"`` at k = 2, ``"gain"`` beyond. After label propagation most
      searches from a losing move are rolled back: on the ``graphs`` set ``"gain"`` took the
      FM's time at k = 16 and 64 down by 45% (one thread, 2^18) for 0.5% more cut at 2^18 and
      2.8% at 2^20 (geomean at k = 16; delaunay_n20 8.5%), but at k = 2, where the FM costs
      little, it cut 3-12% more on three of the four 2^18 graphs, BENCHMARKS.md, "Graph
      pipeline"), each stopping after
      ``graph_fm_max_fruitless_moves`` (32) moves without a new best and rolled back to its
      best prefix; a round starts no search once its gain evaluations read
      ``graph_fm_max_work`` times the level's adjacency, which bounds it on dense levels such as
      the clique graphs of circuits; no round follows one that gained less than
      ``graph_fm_min_improvement`` (0.01) of the cut. With 64 fruitless moves and rounds down to
      0.001 of the cut (the hypergraph FM's ``fm_min_improvement``) the ``graphs`` set at 2^20
      on 16 threads cut 0.986x as much in 1.16x the time, 0.963x KaMinPar-16's cut at 0.89x
      its speed against 0.976x at 1.04x, BENCHMARKS.md, "The graph FM's stopping rules"),
      ``"lp"``, ``"lp+jet"`` (label propagation, then Jet on the graph's edges as
      2-pin nets, ``Backend.jet_refine_graph``, with the ``jet_*`` settings: on the GPU every
      stage stays on the device), ``"gkway"`` (G-kway §3.2 independent-set refinement, at most
      ``graph_refine_rounds`` rounds per level), or ``"auto"`` (the backend's
      ``default_graph_refinement``: ``"lp+fm"`` on the C++ backend, ``"lp+jet"`` on the GPU).
      Every mode rebalances first. The FM runs on the C++ backend (on the GPU, on host copies
      of the level); the GPU runs label propagation on the device.
      ``graph_jet_patience`` (default 3): ``jet_patience`` for the graph levels' Jet
      (``"lp+jet"``). After label propagation Jet's later iterations on a graph level gain
      little: on the ``graphs`` set at 2^20 (the GPU, H100 machine, k = 2, 16, 64, one seed,
      commit 13ab6d5, BENCHMARKS.md "Label propagation on the device in fused rounds") 3
      instead of 6 ran 1.40x faster in geomean (0.88-4.2x per case; the circuits' star models
      gain most) at 0.995x the edge cut (0.78-1.11x; worst stereo_vision's clique model at
      k = 16). ``graph_jet_min_improvement`` (0.001): an iteration that lowers the cut by less
      than this fraction counts toward the patience; 0.01 ran 1.05x faster at 1.011x the cut
      on the same set (H200, BENCHMARKS.md, "The graph Jet's stopping threshold").
      ``graph_jet_fm_max_vertices`` (default 0: none): with ``"lp+jet"``, a level of at most
      this many vertices also gets the graph FM (the ``graph_fm_*`` settings; on the GPU on a
      host copy) after Jet. ``graph_jet_min_vertices`` (default 0: none): with ``"lp+jet"``, a
      level of fewer vertices gets the FM instead of Jet (on the GPU Jet's fixed cost per
      iteration, launches and host reads, is the whole of its time on small levels).
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
      follows the C++ backend's None rule. Graphs (``graph_refinement="lp+fm"``) have a parallel
      FM of their own (``CpuBackend.fm_refine_graph``: the same searches, claims, deltas,
      global move sequence and rollback, with gains from the adjacency, or from connectivity
      rows kept for the vertices of degree at least max(``CpuBackend.graph_fm_cache_min_degree``,
      k)), which None runs from
      ``CpuBackend.parallel_graph_fm_min_threads`` (2) threads on, on levels of at least
      ``parallel_fm_min_vertices`` vertices; True keeps the sequential graph FM (the same
      partition on any threads). Measured on the 2-core dev VM (2026-11-27, the ``graphs`` set
      at 2^18, grid2d / grid3d / delaunay / rgg at k = 2, 16, 64, seeds 0-1, both modes in one
      run): on 2 threads the parallel FM's cut is 1.001x the sequential FM's (geomean; 0.997 to
      1.004) and the FM phase took 1.27 s against 1.49 s (summed over the 12 cases, load average
      1.2-1.9 on the 2 cores; the levels below ``parallel_fm_min_vertices`` keep the sequential
      FM); on 1 thread both are the sequential FM. The graphs' label propagation clustering
      follows the same rule (``CpuBackend.cluster_graph_lp``): None runs its asynchronous passes
      (no slices: chunks of vertices on all threads at once, each move made at once when its
      cluster still has room) from ``CpuBackend.async_graph_lp_min_threads`` (2) threads on,
      on levels of at least ``async_graph_lp_min_vertices`` (16,384) vertices; True keeps the
      sliced passes (BENCHMARKS.md, "Asynchronous label propagation clustering"); so does its
      label propagation refinement (``CpuBackend.lp_refine_graph``, from
      ``async_graph_lp_refine_min_threads`` (2) threads on: each move made at once when its
      block has room, the room reserved on the block's weight). Louvain's local moving
      (hypergraphs, C++ backend, ``CpuBackend.communities``): False runs it in asynchronous
      passes from 2 threads on, on levels of 4,096+ nodes (chunks of the seeded order on all
      threads, each vertex moved at once against the communities as the others leave them,
      the community weight cap reserved by a compare-and-swap); None from
      ``CpuBackend.async_louvain_min_threads`` (2) threads on, so a hypergraph partition on 2+
      threads depends on the threads' timing by default, as Mt-KaHyPar's does (the ``small``
      suite on 16 threads: 0.86x the time at 0.998x the cut; ``large``: 0.95x at 0.998x);
      True never (BENCHMARKS.md, "Louvain's local moving in asynchronous passes"). False
      also clusters the hypergraph levels of 4,096+ vertices with asynchronous joins from 2
      threads on (``CpuBackend.cluster_hypergraph(asynchronous=True)``: each vertex joins at
      once against the clusters as they are, claims and the weight cap by compare-and-swap);
      None from ``CpuBackend.async_cluster_min_threads`` (16) threads on (on 16 threads
      ``large`` took 0.91x the time at 0.999x the cut, ``small`` 0.97x at 0.998x; on 2
      threads ``small`` 0.97x at 1.010x, hence not there; BENCHMARKS.md, "Asynchronous
      clustering of hypergraphs"). On the GPU backend None runs
      the graphs' label propagation in fused rounds on every level (moves admitted by atomic
      reservations: 2.8x faster than the array rounds at 1.006x their edge cut, BENCHMARKS.md
      "Label propagation on the device in fused rounds") unless ``GpuBackend(deterministic=
      True)``; True keeps the array rounds (moves admitted in order of gain).
      ``vcycles``: at most this many V-cycles after the first pass (re-coarsening inside the
      blocks with a new clustering seed each time, refining on the way up; a cycle is kept only
      when it improves, and the first one that does not ends them). -1 (default): the
      backend's ``default_vcycles(k, n)``: on the C++ backend none below k = 64 and one from
      it on, at any size (on 16 threads a V-cycle cost about a third of a run for 0.5-1.9% of
      cut on large inputs, two a third of the run for 0.6-1.3% on ISPD98 / Titan23,
      ``CpuBackend.default_vcycles``); on the GPU two, but one at k = 2 on inputs
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
      V-cycle blocks are carried across) of hypergraphs. An input
      of fewer vertices runs on the C++ backend entirely. Meant to cut the fixed per-level
      costs (kernel launches, host syncs) of the small levels of a deep GPU hierarchy.
    ``graph_host_levels_below`` (default 30,000; 0: off): the same for graphs, except that
      the host levels and the initial partitioning's candidates are refined with the host's
      own graph refinement (``"lp+fm"`` on the C++ backend where the device runs
      ``"lp+jet"``), and a graph of fewer vertices runs on the C++ backend entirely. On the
      H200, against 0 (one seed; BENCHMARKS.md, "The GPU's small graph levels on the host"):
      the ``graphs`` set at 2^20 (commit 6ce6380, as ``host_levels_below`` with
      ``graph_jet_min_vertices`` of 30,000, two commands) 1.12x and 1.06x the speed at
      0.995x and 0.999x the edge cut; the Delaunay and random geometric graphs of 2^21 and
      2^22 vertices (commit 1c9080c) 1.19x the speed at 0.976x the edge cut (k = 2: 1.33x at
      0.932x; the worst case 0.95x the speed, 1.013x the cut).
    """

    coarsening: str = "auto"
    communities: bool = True
    community_max_net_size: int = -1
    community_levels: int = 8
    community_passes: int = 8
    community_max_weight: float = 1.0
    community_resolution: float = 1.0
    community_resolution_pins: int = 250_000
    community_sub_rounds: int = -1
    community_pass_gain: float = -1.0
    community_graph: str = "auto"
    community_edge_weight: str = "hybrid"
    community_level_vertices: int = -1
    community_levels_kept: bool = False
    max_shrink: float = -1.0
    weight_penalty: bool = False
    contraction_limit: int = 40
    bisection_contraction_limit: int = 160
    min_shrink: float = 0.05
    group_size: int = 4
    rating_max_net_size: int = 1000
    cluster_weight_factor: float = 1.0
    coarse_retry_cut_share: float = 0.5
    graph_contraction_limit: int = 35
    graph_min_shrink: float = 0.10
    graph_group_size: int = 6
    graph_cluster_weight_factor: float = 1.0
    graph_deep_block_vertices: int = 300
    graph_communities: bool = False
    graph_coarsening: str = "auto"
    graph_lp_iterations: int = 5
    graph_lp_sub_rounds: int = -1
    max_levels: int = 64
    initial: str = "auto"
    initial_runs: int = 8
    initial_runs_max: int = 64
    initial_runs_min_n: int = 100_000
    initial_max_net_size: int = 100
    initial_rb_runs: int = -1
    initial_rb_seeds: int = 16
    initial_rb_min_seeds: int = -1
    initial_rb_communities: str = "each"
    initial_rb_flat_vertices: int = 256
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
    jet_negative_gain_coarse: float = 0.0
    jet_afterburner_max_net_size: int = 256
    jet_fm_max_pins: int = -1
    jet_min_pins: int = -1
    fm_rounds: int = 4
    fm_max_fruitless_moves: int = 250
    fm_min_improvement: float = 0.001
    fm_max_work: float = 32.0
    deterministic: bool | None = None
    graph_refine_rounds: int = 32
    graph_refinement: str = "auto"
    graph_lp_refine_iterations: int = 5
    graph_jet_patience: int = 3
    graph_jet_negative_gain_coarse: float = 0.75
    graph_jet_min_improvement: float = 0.001
    graph_jet_fm_max_vertices: int = 0
    graph_jet_min_vertices: int = 0
    graph_fm_rounds: int = 3
    graph_fm_max_fruitless_moves: int = 32
    graph_fm_min_improvement: float = 0.01
    graph_fm_max_work: float = 8.0
    graph_fm_seeds: str = "auto"
    vcycles: int = -1
    vcycle_min_vertices: int = -1
    host_levels_below: int = 0
    graph_host_levels_below: int = 30000
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
            "community_levels",
            "community_passes",
            "community_resolution_pins",
            "group_size",
            "rating_max_net_size",
            "graph_contraction_limit",
            "graph_group_size",
            "graph_fm_max_fruitless_moves",
            "max_levels",
            "initial_runs",
            "initial_runs_max",
            "initial_runs_min_n",
            "initial_max_net_size",
            "initial_rb_seeds",
            "jet_patience",
            "graph_jet_patience",
            "jet_afterburner_max_net_size",
            "repetitions",
        )
        for name in positive_ints:
            integer(name, 1)
        for name in (
            "refine_rounds",
            "bisection_contraction_limit",
            "initial_fm_top",
            "initial_rb_flat_vertices",
            "fm_rounds",
            "fm_max_fruitless_moves",
            "graph_refine_rounds",
            "graph_lp_iterations",
            "graph_lp_refine_iterations",
            "graph_fm_rounds",
            "graph_deep_block_vertices",
            "threads",
            "jet_iterations",
            "host_levels_below",
            "graph_host_levels_below",
            "graph_jet_fm_max_vertices",
            "graph_jet_min_vertices",
        ):
            integer(name, 0)
        for name, what in (
            ("vcycles", "-1 (the backend's default) or a non-negative integer"),
            ("vcycle_min_vertices", "-1 (the backend's default) or a non-negative integer"),
            ("community_sub_rounds", "-1 (the backend's default) or a non-negative integer"),
            ("community_level_vertices",
             "-1 (the backend's default) or a non-negative integer"),
            ("jet_fm_max_pins", "-1 (the backend's default) or a non-negative integer"),
            ("jet_min_pins", "-1 (the backend's default) or a non-negative integer"),
            ("initial_metis_processes", "-1 (automatic), 0 (in-process) or a positive integer"),
            ("initial_rb_min_seeds", "-1 (automatic) or a non-negative integer"),
        ):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < -1:
                raise InputError(f"config.{name} must be {what}, got {v!r}")
        for name in ("graph_lp_sub_rounds", "community_max_net_size", "initial_rb_runs"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) \
                    or v == 0 or v < -1:
                raise InputError(f"config.{name} must be -1 (the backend's default) or a "
                                 f"positive integer, got {v!r}")
        if self.deterministic is not None and not isinstance(self.deterministic, (bool, np.bool_)):
            raise InputError(f"config.deterministic must be true, false or null (the backend's "
                             f"choice), got {self.deterministic!r}")
        for name, choices in (("community_graph", ("auto", "clique", "bipartite")),
                              ("community_edge_weight",
                               ("hybrid", "uniform", "non_uniform", "degree"))):
            if getattr(self, name) not in choices:
                raise InputError(f"config.{name} must be one of {', '.join(choices)}, "
                                 f"got {getattr(self, name)!r}")
        for name in ("communities", "graph_communities", "weight_penalty", "fm",
                     "community_levels_kept"):
            v = getattr(self, name)
            if not isinstance(v, (bool, np.bool_)):
                raise InputError(f"config.{name} must be true or false, got {v!r}")
        if not 0.0 <= number("coarse_retry_cut_share", "a number in [0, 1]") <= 1.0:
            raise InputError("config.coarse_retry_cut_share must lie in [0, 1] (0: off), got "
                             f"{self.coarse_retry_cut_share!r}")
        for name in ("min_shrink", "graph_min_shrink", "fm_min_improvement",
                     "graph_fm_min_improvement", "graph_jet_min_improvement"):
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
        what = "-1 (the backend's default) or a non-negative number (0: off)"
        gain = number("community_pass_gain", what)
        if not (gain >= 0.0 or gain == -1.0):
            raise InputError(
                f"config.community_pass_gain must be {what}, got {self.community_pass_gain!r}"
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
        for name in ("jet_negative_gain_fine", "jet_negative_gain_coarse",
                     "graph_jet_negative_gain_coarse"):
            if number(name, "a non-negative number") < 0:
                raise InputError(
                    f"config.{name} must be a non-negative number, got {getattr(self, name)!r}"
                )
        for name, allowed in (
            ("refinement", REFINEMENTS),
            ("coarsening", COARSENINGS),
            ("graph_coarsening", GRAPH_COARSENINGS),
            ("graph_refinement", GRAPH_REFINEMENTS),
            ("graph_fm_seeds", GRAPH_FM_SEEDS),
            ("initial", INITIAL_METHODS),
            ("initial_bisector", INITIAL_BISECTORS),
            ("initial_rb_communities", INITIAL_RB_COMMUNITIES),
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
    values = preset_values(self.preset)
    if not values:  # the default preset: nothing to fill in (a Config per bisection: no cost)
        return
    given = {f.name for f in dataclasses.fields(Config)[: len(args)]} | set(kwargs)
    for name, value in values.items():
        if name not in given:
            setattr(self, name, value)


Config.__init__ = _init_config  # type: ignore[method-assign]


def copy_config(config: Config, **changes: Any) -> Config:
    """``dataclasses.replace(config, **changes)`` for a Config or a subclass of it, without
    calling ``__init__``: a shallow copy with ``changes`` set. The same object ``replace`` makes
    (every field is an ``__init__`` field, there is no ``__post_init__``, and ``_init_config``
    fills nothing in when every field is given), at a fraction of the cost: the bisections of
    recursive bisection copy their config several times each, hundreds of times a run. An
    unknown field name raises TypeError as ``replace`` does."""
    fields = type(config).__dataclass_fields__
    for name in changes:
        if name not in fields:
            raise TypeError(f"{type(config).__name__} has no field {name!r}")
    out = object.__new__(type(config))
    out.__dict__.update(config.__dict__)
    out.__dict__.update(changes)
    return out
