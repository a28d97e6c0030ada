"""The GPU backend: CUDA kernels (``*.cu`` beside this file, compiled at run time by
``cupy.RawModule``) and thin CuPy launchers implementing :class:`igpart.kernels.backend.Backend`.

Every level of the hierarchy stays on the device. Coarsening, contraction, projection,
sequence-based refinement, the graph stages and the metrics run as kernels; per level only
scalars (sizes, gains, convergence flags) come back to the host. Two stages use the documented
CPU fallback, through the C++ backend on a host copy of the level (made once per level):

* ``rebalance_*``: projection keeps block weights, so only the coarsest level (after initial
  partitioning) can be overloaded; an already balanced partition is checked on the device and
  returned without any transfer.
* ``fm_refine_hypergraph``: boundary FM is inherently sequential; it runs on the host, on every
  level it is asked for. The driver's default on this backend (``default_refinement = "jet"``)
  refines with Jet (``jet_refine_hypergraph``, entirely on the device) instead and calls FM only
  for the initial partitioning candidates on the coarsest level. ``fm_host_max_pins`` can cap
  FM to levels of at most that many pins (larger levels then only get the sequence-based
  refinement): faster, but on large inputs much worse (positive-gain sequence refinement alone
  leaves most of the fine-level improvement: on an inflated ibm01 of 510k vertices at k = 16 a
  400k-pin cap gave a 2.1x larger cut; see BENCHMARKS.md at 10cd44d, "Why the GPU was ~3x
  worse at scale").

Label propagation clustering and refinement of graphs (``_graph_lp``) run on the device as
sorted segmented reductions, with Jet on the graph's edges for ``graph_refinement="lp+jet"``;
the FM of ``"lp+fm"`` runs on the host, as the hypergraph FM.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
import weakref

import cupy as cp
import numpy as np

from .. import placement
from ..backend import OBJECTIVES, Backend, GraphArrays, HypergraphArrays
from ..host_fallback import HostFallback
from . import _dynamic, _graph, _graph_lp, _graph_lp_async, _hypergraph, _jet, _outofcore
from ._common import NULL, STATS, block_weights, cumsum, i64, launch

__all__ = ["GpuBackend"]


#: Host arrays of at least this many bytes are uploaded through page-locked memory: the array's
#: own pages are registered with CUDA for the copy (``cudaHostRegister``), which moves them at
#: the bus's speed instead of through the driver's pageable staging. On the H200 machine
#: (2026-11-26) register + copy + unregister took 1.4 / 3.4 / 6.7 ms for 20 / 40 / 90 MB
#: against 2.7 / 6.7 / 15 ms for a pageable ``cupy.asarray``; with the unit weights made on
#: the device, the upload of ibm01x200 / ibm09x100 took 5.1 / 10.3 ms instead of 18.7 / 44 ms.
PINNED_COPY_MIN_BYTES = 4 << 20
#: ``rating_by_cluster`` and ``cluster_accept`` also act in the levels coarsened before Louvain
#: (``GpuBackend.communities``); False: those levels keep the clustering by neighbour with
#: mutual choices, and the two switches act in the partition's coarsening only.
COMMUNITY_LEVELS_OPTIONS = True
#: The levels coarsened before Louvain shrink at most 4x each, and the last one only as far as
#: Louvain's level asks (``min(4, n / level_max)``), so that Louvain runs on about
#: ``level_max`` vertices instead of up to 4x fewer (False: 4x on every level). With the
#: clustering that reaches the 4x asked (``rating_by_cluster`` and ``cluster_accept``), Louvain
#: otherwise ran on about 10,600 vertices of ibm01 x20 (about 24,700 with the rounds before
#: them, 33,200 with landing; emulated by ``benchmarks/cluster_emulation.py``), and its coarser
#: communities cost HyperG's balanced groups at k = 16 (on the H200: 2,928 against 2,373 /
#: 2,547 with landing; BENCHMARKS.md, "The GPU clustering's rating and accepted proposals").
COMMUNITY_LEVEL_LANDS = True
#: Louvain on the host (``GpuBackend.communities``) follows ``Config.deterministic`` as the C++
#: backend's does: asynchronous local moving under None (from
#: ``CpuBackend.async_louvain_min_threads`` threads on) and False, the synchronous passes under
#: True and with ``GpuBackend(deterministic=True)``. False (the default): the synchronous passes
#: always, one set of communities per level and seed on any thread count. On the 2-core VM the
#: asynchronous passes took a fraction of the synchronous ones on the levels the GPU hands to
#: Louvain (BENCHMARKS.md, "The GPU backend's host Louvain in asynchronous passes"); the
#: device's A/B is still to run.
HOST_LOUVAIN_ASYNC = False


def _registered_copy(host: np.ndarray, copy) -> bool:
    """Runs ``copy(pointer, size)`` with ``host``'s pages registered as page-locked and the
    stream synchronised; False (nothing copied) when CUDA refuses the registration (memory
    already registered or pinned, a read-only mapping...), so that the caller copies the usual
    way."""
    ptr, size = host.ctypes.data, host.nbytes
    try:
        cp.cuda.runtime.hostRegister(ptr, size, 0)
    except cp.cuda.runtime.CUDARuntimeError:
        return False
    try:
        copy(ptr, size)
        cp.cuda.get_current_stream().synchronize()
    finally:
        cp.cuda.runtime.hostUnregister(ptr)
    return True


def _upload(a, dtype=None) -> cp.ndarray:
    """``cupy.asarray(a, dtype)``, through registered pages for large arrays."""
    a = np.asarray(a)
    if dtype is not None and a.dtype != np.dtype(dtype):
        a = a.astype(dtype)
    budget = _outofcore.active()
    if a.dtype == object or (a.nbytes < PINNED_COPY_MIN_BYTES and not budget):
        return cp.asarray(a)
    a = np.ascontiguousarray(a).reshape(a.shape)
    out = cp.empty(a.shape, dtype=a.dtype)
    if budget and _outofcore.fill(out, a):  # placed in host memory: a plain copy
        return out
    if a.nbytes < PINNED_COPY_MIN_BYTES:
        out.set(a)
        return out
    if _registered_copy(a, lambda ptr, size: out.data.copy_from_host_async(ptr, size)):
        return out
    return cp.asarray(a)


def _level_arrays(level) -> dict:
    """The device arrays of a level (HypergraphArrays / GraphArrays) by field name."""
    return {f.name: v for f in dataclasses.fields(level)
            if isinstance(v := getattr(level, f.name), cp.ndarray)}


def _in_phase(name: str):
    """Under a memory budget, the decorated level operation works on its level with the level's
    arrays on the device (:meth:`GpuBackend._use_level`), and its transfers count as phase
    ``name`` (the host-resident bytes of its level read once, its host allocations)."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(self, level, *args, **kwargs):
            if self._alloc is None:
                return fn(self, level, *args, **kwargs)
            self._use_level(level)
            with self._alloc.in_phase(name,
                                      _outofcore.host_bytes(_level_arrays(level).values())):
                return fn(self, level, *args, **kwargs)

        return run

    return wrap


def _objective_code(objective: str) -> int:
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective '{objective}'")
    return OBJECTIVES.index(objective)


class _CupyOps(_graph_lp.ArrayOps):
    """``_graph_lp``'s array operations on the device: scatter-adds and block weights by the
    kernels of ``util.cu``."""

    def __init__(self) -> None:
        super().__init__(cp)

    def add_at(self, out, idx, val) -> None:
        if idx.shape[0]:
            STATS.add()
            launch("util", "scatter_add_i64", idx.shape[0],
                   (i64(idx.shape[0]), cp.ascontiguousarray(idx, dtype=cp.int32),
                    cp.ascontiguousarray(val, dtype=cp.int64), out))

    def block_weights(self, vwgt, parts, k: int):
        return block_weights(vwgt, parts, k)

    def lexsort(self, keys):
        """One stable radix sort per key (CuPy's argsort is stable) instead of ``cupy.lexsort``,
        which compares every key in a merge sort."""
        return _graph_lp.lexsort_by_stable_sorts(cp, keys, cp.argsort)

    def tie_hash(self, seed: int, a, b):
        """``util.tie_hash_i64``: one launch instead of the dozen array operations."""
        n = int(a.shape[0])
        out = cp.empty(n, dtype=cp.int64)
        launch("util", "tie_hash_i64", n, (
            i64(n), cp.ascontiguousarray(a, dtype=cp.int64),
            cp.ascontiguousarray(b, dtype=cp.int64), np.uint64(int(seed) % (1 << 64)), out))
        return out

    def choose(self, g, rows, label, weight, bound, seed: int, balance: bool):
        """``util.lp_choose``, a thread per vertex of degree at most ``LP_CHOOSE_MAX_DEGREE``
        scanning its row, instead of the sorted segmented reductions (one launch and one host
        read where there are about 20 launches and 3 reads); the longer rows, where there are
        any, by those (``_graph_lp._choose``)."""
        rows = cp.ascontiguousarray(rows, dtype=cp.int64)
        m = int(rows.shape[0])
        best_label = cp.full(m, -1, dtype=cp.int32)
        best_sum = cp.zeros(m, dtype=cp.int64)
        own = cp.zeros(m, dtype=cp.int64)
        if m == 0:
            return best_label, best_sum, own
        STATS.add(3)
        launch("util", "lp_choose", m, (
            i64(m), rows, g.xadj, g.adjncy, g.adjwgt, cp.ascontiguousarray(label, cp.int32),
            cp.ascontiguousarray(weight, cp.int64), cp.ascontiguousarray(bound, cp.int64),
            g.vwgt, np.uint64(int(seed) % (1 << 64)), np.int32(bool(balance)),
            i64(self.LP_CHOOSE_MAX_DEGREE), best_label, best_sum, own))
        wide = cp.flatnonzero(g.xadj[rows + 1] - g.xadj[rows] > self.LP_CHOOSE_MAX_DEGREE)
        STATS.add(4)
        if wide.shape[0]:
            lab, s, o = _graph_lp._choose(self, g, rows[wide], label, weight, bound, seed,
                                          balance)
            best_label[wide], best_sum[wide], own[wide] = lab, s, o
        return best_label, best_sum, own

    #: Rows of at most this many entries are scanned by one thread in ``choose``.
    LP_CHOOSE_MAX_DEGREE = 96

    def _per_mover(self, name: str, g, u, to, *arrays):
        """``util.<name>``, a thread per mover ``u[i]`` scanning its row, into an int64
        array (one launch where the entries' expansion took a host read and a dozen)."""
        u = cp.ascontiguousarray(u, dtype=cp.int64)
        m = int(u.shape[0])
        out = cp.zeros(m, dtype=cp.int64)
        STATS.add()
        launch("util", name, m, (i64(m), u, cp.ascontiguousarray(to, dtype=cp.int32), g.xadj,
                                 g.adjncy, g.adjwgt, *arrays, out))
        return out

    def afterburner_gains(self, g, parts, dest, prio, u, to):
        """``util.lp_afterburner_gains``."""
        return self._per_mover("lp_afterburner_gains", g, u, to,
                               cp.ascontiguousarray(parts, cp.int32),
                               cp.ascontiguousarray(dest, cp.int32),
                               cp.ascontiguousarray(prio, cp.int64))

    def cut_change(self, g, parts, new, moving, u, to):
        """``util.lp_cut_change``, summed on the device."""
        STATS.add()
        return self._per_mover("lp_cut_change", g, u, to, cp.ascontiguousarray(parts, cp.int32),
                               cp.ascontiguousarray(new, cp.int32),
                               cp.ascontiguousarray(moving, cp.bool_)).sum()

    def expand(self, xadj, rows):
        """The rows' entries written by ``util.expand_rows`` (a warp per row) from the prefix
        sums of their degrees instead of a binary search per entry."""
        rows = cp.ascontiguousarray(rows, dtype=cp.int64)
        nrows = int(rows.shape[0])
        if nrows == 0:
            empty = cp.zeros(0, dtype=cp.int64)
            return empty, empty
        ends = cumsum(xadj[rows + 1] - xadj[rows])
        total = int(ends[-1])
        r = cp.empty(total, dtype=cp.int64)
        pos = cp.empty(total, dtype=cp.int64)
        STATS.add(4)
        launch("util", "expand_rows", nrows, (i64(nrows), rows, xadj, ends, r, pos), warps=True)
        return r, pos

    def best_per_row(self, row, primary, secondary, tie):
        """One thread per row scans its entries (``util.segment_best_i64``) instead of a
        lexicographic sort of all of them."""
        n = row.shape[0]
        first = cp.ones(n, dtype=cp.bool_)
        if n > 1:
            cp.not_equal(row[1:], row[:-1], out=first[1:])
        starts = cp.flatnonzero(first)
        nseg = int(starts.shape[0])
        ptr = cp.empty(nseg + 1, dtype=cp.int64)
        ptr[:nseg] = starts
        ptr[nseg] = n
        out = cp.empty(nseg, dtype=cp.int64)
        STATS.add(4)
        launch("util", "segment_best_i64", nseg, (
            i64(nseg), ptr, cp.ascontiguousarray(primary, dtype=cp.int64),
            NULL if secondary is None else cp.ascontiguousarray(secondary, dtype=cp.int64),
            cp.ascontiguousarray(tie, dtype=cp.int64), out))
        return out


_OPS = _CupyOps()


class GpuBackend(HostFallback, Backend):
    """Stage operations on CuPy arrays of the current CUDA device."""

    name = "gpu"
    xp = cp
    record_error = _dynamic.GpuRecordError

    #: ``Config(refinement="auto")``: Jet on the device on every level, then FM on the host on
    #: levels of at most ``Config.jet_fm_max_pins`` pins, on every input. Jet alone lost up to
    #: 2x the cut on circuits with huge nets (Titan23) and on structure-preserving
    #: enlargements: H100, 2026-11-26, ten inputs at k = 2 and four at k = 16 / 64, seeds 1-4,
    #: cut geomean 0.975x of Jet alone at 1.03x the time (BENCHMARKS.md, "GPU refinement").
    default_refinement = "jet+fm"

    #: ``Config(vcycle_min_vertices=-1)``: a V-cycle's coarsening stops below this many vertices
    #: (every level costs launches and host round trips; H100, ibm01x200 / ibm09x100 at k = 2
    #: and 64: 0.86x the time for a geomean cut ratio of 0.998 against 0, BENCHMARKS.md
    #: at 10cd44d, "V-cycles stop coarsening at 25,000 vertices").
    default_vcycle_min_vertices = 25_000
    #: ... at k = 2 on inputs of at least ``LARGE_MIN_N`` vertices
    #: (``igpart.Config.vcycle_min_vertices``)
    default_vcycle_min_vertices_k2 = 100_000
    #: ``Config(max_shrink=-1)`` at k = 2 on inputs of at least ``LARGE_MIN_N`` vertices (2.5
    #: otherwise): fewer levels, each a fixed cost of launches and host reads
    #: (``igpart.Config``).
    default_max_shrink_k2 = 3.0

    #: Inputs of at least this many vertices are large: they get the cheaper k = 2 settings (one
    #: V-cycle, ``default_vcycles``; V-cycles stopping at ``default_vcycle_min_vertices_k2``
    #: vertices; levels shrinking up to ``default_max_shrink_k2`` times). Smaller
    #: inputs keep the general ones, where they cost little.
    LARGE_MIN_N = 100_000

    def default_coarsening(self, k: int, n: int = 0) -> str:
        """``Config(coarsening="auto")``: HyperG's balanced groups for 2 < k < ``LARGE_K`` on
        inputs of at least ``LARGE_MIN_N`` vertices, heavy-edge clustering otherwise. On the
        seven ``large`` inputs (H100, seeds 0-1, variants alternating in one process) the groups
        cut 0.998x at k = 16 in 0.90x the time (cholesky_mc x18: 0.96x the cut in 0.66x), but
        1.020x at k = 64 and, at k = 2, 0.985x in 0.81x the time with two ISPD98 enlargements
        13-14% worse; an earlier run at k = 32 (three inputs) cut 0.983x. Measured on inputs of
        about 2M vertices at k = 16 and 32 only: k = 3-8 and inputs of 100,000 to 2M vertices
        follow the rule unmeasured. Smaller inputs keep heavy-edge clustering."""
        if 2 < int(k) < self.LARGE_K and int(n) >= self.LARGE_MIN_N:
            return "hyperg"
        return "heavy_edge"

    def default_vcycles(self, k: int, n: int = 0) -> int:
        """``Config(vcycles=-1)``: one V-cycle at k = 2 and in the lean range
        (:meth:`lean_host_stages`) on inputs of at least ``LARGE_MIN_N`` vertices, two
        otherwise (H200, ibm01x200 / ibm09x100, seeds 1-8: at k = 2 the second cost ~50 ms for
        no measurable cut; at k = 16 and 64 it bought 1.4-3.9% there, with the refinement and
        initial partitioning of that time; ``igpart.Config``)."""
        if n >= self.LARGE_MIN_N and (k == 2 or self.lean_host_stages(k, n)):
            return 1
        return 2

    def lean_host_stages(self, k: int, n: int) -> bool:
        """Whether a run into ``k`` blocks of an input of ``n`` vertices takes the lean host
        stages: 2 < k < ``LARGE_K`` on inputs of at least ``LARGE_MIN_N`` vertices (where
        HyperG's groups coarsen, :meth:`default_coarsening`). There the run makes one V-cycle,
        2 recursive-bisection candidates instead of 4, refines levels of up to 1,000,000 pins
        with sequence refinement + FM instead of Jet + FM, and runs no host FM on larger levels.
        On the host stand-in of these levels (C++ backend, ibm10 x2 / x4, k = 16) Jet gained
        nothing on the levels where FM ran after it, the second V-cycle gained 0.2-0.45% and 2
        candidates 0.26% on the coarsest level's cut. A/B on the H100 (4d720c8, these switches
        as Config values, `benchmarks/gpu_ab.py --reps 2 --vary-seeds`, cholesky_mc x18,
        neuron x22, stereo_vision x22, ibm10 x29, ibm11 x29 at k = 16): 0.68x the time
        (0.54-0.79 s against 0.77-1.15 s), cut geomean 1.013x (0.922x-1.055x per input, two
        seeds each); the `large` suite at k = 16 (one seed): 5.23x faster than Mt-KaHyPar-16 at
        1.042x its cut, against 3.60x at 0.989x before (5.58x at 0.971x in a later run of the
        suite, 423c367, with leaner Jet buffers). Measured at k = 16 on inputs of about
        2M vertices; on four 500k-vertex enlargements at k = 16 (H200, two seeds) the full stages
        cut 0.964x in 1.70x the time (BENCHMARKS.md, "The GPU's k = 16 cut on inputs of
        200k-500k vertices"). k = 3-8 and 17-63 follow the rule unmeasured."""
        return 2 < int(k) < self.LARGE_K and int(n) >= self.LARGE_MIN_N

    def default_initial_rb_runs(self, k: int, n: int) -> int:
        """``Config(initial_rb_runs=-1)``: 2 in the lean range (:meth:`lean_host_stages`), 4
        otherwise."""
        return 2 if self.lean_host_stages(k, n) else 4

    def default_jet_min_pins(self, k: int, n: int) -> int:
        """``Config(jet_min_pins=-1)``: levels of up to 1,000,000 pins are refined without Jet
        in the lean range (:meth:`lean_host_stages`); none otherwise."""
        return 1_000_000 if self.lean_host_stages(k, n) else 0

    def default_jet_fm_max_pins(self, k: int, n: int) -> int:
        """``Config(jet_fm_max_pins=-1)``: host FM on levels of up to 1,000,000 pins in the lean
        range (:meth:`lean_host_stages`), 3,000,000 otherwise."""
        return 1_000_000 if self.lean_host_stages(k, n) else 3_000_000

    #: ``Config.graph_coarsening = "auto"`` / ``graph_refinement = "auto"`` on this backend:
    #: label propagation on the device (``"lp"`` / ``"lp+jet"``). It cuts less than G-kway's
    #: stages (H100, 2^20 grids / delaunay / rgg at k = 16 and 64, one seed: 1.03x
    #: Mt-KaHyPar-16's edge cut against G-kway's 1.34x; BENCHMARKS.md "Label propagation on the
    #: device"), and in its fused rounds (:attr:`async_graph_lp`) it takes 0.08-0.45 s per
    #: partition of the ``graphs`` set at 2^20 (BENCHMARKS.md "Label propagation on the device
    #: in fused rounds"); ``"gkway"`` keeps G-kway's union-find coarsening and independent-set
    #: refinement.
    default_graph_coarsening = "lp"
    default_graph_refinement = "lp+jet"
    #: ``Config(graph_lp_sub_rounds=-1)``: the slices of a label propagation round on the device.
    #: Each slice costs a fixed chain of launches and host reads, and the partitions of one
    #: slice cut like those of eight (``benchmarks/graph_lp_quality.py``, the device code run
    #: with numpy on the ``graphs`` set at 2^16, k = 2, 16, 64, seeds 0-1: cut geomean 0.995x
    #: the C++ default with one slice, 0.993x with two and with eight; BENCHMARKS.md "Label
    #: propagation on the device: fewer slices").
    default_graph_lp_sub_rounds = _graph_lp.SUB_ROUNDS

    #: Default size limit (pins) of the levels on which FM runs (on the host); None: every level.
    FM_HOST_MAX_PINS: int | None = None

    #: Default size limit (vertices) of the level on which Louvain runs (on the host), below
    #: k = ``LARGE_K``: at k = 2 on 2M-vertex inputs a limit of 8,000 let the unconstrained
    #: clustering before Louvain merge vertices of different copies of an enlarged circuit
    #: (H100, six inputs, seeds 0-3: cut geomean 0.93x with 30,000, BENCHMARKS.md "GPU
    #: refinement").
    COMMUNITY_HOST_MAX = 30_000

    #: ... and from k = ``LARGE_K`` on, a level of at most this many vertices (the seven
    #: ``large`` inputs at k = 64, seeds 0-1, two runs: cut 0.980x / 0.988x at 1.06x /
    #: 1.05x the time with 100,000; at k = 16 1.002x at 1.15x, so k = 16 keeps 30,000;
    #: BENCHMARKS.md "GPU coarsening and Louvain's level by k"). An explicit
    #: ``community_host_max`` applies at every k.
    COMMUNITY_HOST_MAX_LARGE_K = 100_000
    #: From this k on, a partition's blocks are small: Louvain's larger level above, and
    #: heavy-edge clustering rather than HyperG's groups (:meth:`default_coarsening`).
    LARGE_K = 64


    #: Default size (pins) up to which ``jet_refine_hypergraph`` runs the C++ Jet on a host copy
    #: of the level instead of the kernels: both return the same partition (tests/test_jet.py),
    #: and on small levels the kernels' fixed cost per iteration (launches, host reads) exceeds
    #: the whole C++ iteration. The coarse levels of large inputs are many and tiny (ibm09x100,
    #: k = 2: 17 of 25 levels below 10k vertices).
    JET_HOST_MAX_PINS = 100_000

    #: ... but only at k of at least this many blocks: below it the kernels are faster on those
    #: levels too. A/B on an H200 (ibm01x200 / ibm09x100, 5 runs each, Jet timer medians): at
    #: k = 2 the kernels everywhere took 0.118 / 0.122 s against 0.147 / 0.169 s with the host
    #: levels (the C++ Jet spent 6-23 ms per level below 100k pins in the first pass, the
    #: kernels ~3.5), at k = 16 0.162 / 0.253 against 0.187 / 0.272; at k = 64 the host levels
    #: were faster (0.187 / 0.398 against 0.216 / 0.416 s). k = 32 was not measured.
    JET_HOST_MIN_K = 32

    #: Default of ``rating_heavy_slots``: 0, the rating kernels' shared tables for every vertex.
    RATING_HEAVY_SLOTS = 0

    #: Default of ``rating_window``: nets of more pins are rated through a window of this many
    #: pins per vertex. With the rating by cluster, on the seven ``large`` inputs at k = 2, 16
    #: and 64 (H200, two seeds, 128 against 0 and 256 alternating in one process): on the
    #: three Titan23 inputs, the ones with nets above 128 pins, 0.88x the time (cholesky_mc x18
    #: at k = 2 0.69x, at k = 64 0.77x) at a cut of 1.001x (0.971-1.076x per case); 256 gave
    #: 0.94x at 0.984x. The ISPD98 inputs have no net above 42 pins: unchanged.
    #: BENCHMARKS.md "The GPU rating's windows through large nets".
    RATING_WINDOW = 128

    def __init__(self, fm_host_max_pins: int | None = None,
                 community_host_max: int | None = None,
                 jet_host_max_pins: int | None = None,
                 cluster_max_size: int | None = None, deterministic: bool = False,
                 jet_boundary: bool = True, jet_host_min_k: int | None = None,
                 memory_budget: int | str | None = None,
                 rating_heavy_slots: int | None = None, rating_keep_ties: bool = False,
                 rating_window: int | None = None, retain_heap: bool | None = None,
                 community_host_levels: bool = False, rating_by_cluster: bool = True,
                 cluster_accept: bool = True) -> None:
        from .. import budget
        from ..cpu import CpuBackend

        #: device bytes this backend may use (``igpart.kernels.budget``; None: no budget):
        #: ``memory_budget``, else the IGPART_GPU_MEMORY_BUDGET environment variable
        self.memory_budget = budget.resolve(memory_budget)
        #: the host stages' C++ backend; its heap policy (``CpuBackend.retain_heap``, or
        #: ``retain_heap`` when given) also holds around this backend's full partitions
        self.cpu = CpuBackend(retain_heap=retain_heap)
        cap = self.FM_HOST_MAX_PINS if fm_host_max_pins is None else int(fm_host_max_pins)
        #: FM runs on levels of at most this many pins (None: on every level)
        self.fm_host_max_pins = cap
        #: Louvain's level: at most this many vertices (None: automatic, see
        #: :meth:`community_level_max`)
        self.community_host_max = None if community_host_max is None else int(community_host_max)
        #: the levels coarsened before Louvain are made on the host too, by the C++ backend's
        #: clustering (``CpuBackend.communities``), instead of by the device's (off by default)
        self.community_host_levels = bool(community_host_levels)
        #: at most this many members per cluster of ``cluster_hypergraph`` (one level)
        self.cluster_max_size = (_hypergraph.CLUSTER_MAX_SIZE if cluster_max_size is None
                                 else int(cluster_max_size))
        if self.cluster_max_size < 2:
            raise ValueError("GpuBackend: cluster_max_size must be at least 2")
        #: clustering joins decided by seeded sorts instead of atomics (kernels.cluster_join):
        #: the same seed gives the same hierarchy and partition (off by default: 1.4-1.5x the
        #: time at k = 2 on the H100, BENCHMARKS.md at 10cd44d, "Deterministic clustering and
        #: one V-cycle")
        self.deterministic = bool(deterministic)
        #: Jet's step 1 visits only the boundary vertices, listed every iteration, instead of a
        #: warp per vertex of the level (the same partition, tests/test_jet.py; on by default:
        #: 1.02-1.32x faster end to end on the H100, BENCHMARKS.md at 10cd44d, "Jet's
        #: boundary-only first step")
        self.jet_boundary = bool(jet_boundary)
        #: Jet runs on the host (C++, same result) on levels of at most this many pins
        self.jet_host_max_pins = (self.JET_HOST_MAX_PINS if jet_host_max_pins is None
                                  else int(jet_host_max_pins))
        #: ... at k >= jet_host_min_k only
        self.jet_host_min_k = (self.JET_HOST_MIN_K if jet_host_min_k is None
                               else int(jet_host_min_k))
        heavy = (self.RATING_HEAVY_SLOTS if rating_heavy_slots is None
                 else int(rating_heavy_slots))
        if heavy and (heavy < 512 or heavy > 1 << 16 or heavy & (heavy - 1)):
            raise ValueError("GpuBackend: rating_heavy_slots must be 0 or a power of two from "
                             f"512 to 65536, got {heavy}")
        #: the rating of clusters and HyperG's groups takes the vertices with more pins on
        #: their rated nets than a warp's shared table holds (256) apart, and rates them with
        #: tables of up to this many slots in global memory: the same choices, in one pass
        #: where the shared table takes 4, 16, ... over all of the vertex's pins (0: off)
        self.rating_heavy_slots = heavy
        #: the clustering's later rounds leave a lone vertex its previous choice while that has
        #: room even when its score was tied (rating it again could pick a tied neighbour in a
        #: lighter cluster): fewer vertices rated per round, not always the same choices
        self.rating_keep_ties = bool(rating_keep_ties)
        if rating_window is None:
            rating_window = self.RATING_WINDOW
        if rating_window and int(rating_window) < 32:
            raise ValueError(f"GpuBackend: rating_window must be 0 or at least 32, got "
                             f"{rating_window}")
        #: the rating (clusters and HyperG's groups) walks a net of more pins than this only
        #: through a window of this many of its pins per vertex, with the net's full term (0:
        #: every pin; None: ``RATING_WINDOW``; see ``_hypergraph.cluster``'s ``sample``)
        self.rating_window = int(rating_window)
        #: the clustering's lone vertices rate their neighbours' clusters (each the summed
        #: terms of its members, as the C++ backend rates) instead of each neighbour alone, and
        #: from the second round on a lone vertex that lone vertices chose takes them as its
        #: cluster instead of waiting for mutual choices (``_hypergraph.cluster``'s
        #: ``by_cluster`` and ``accept``); in the partition's coarsening and in the levels
        #: coarsened before Louvain. On by default: on the `large` suite (H200, 7 inputs,
        #: seeds 1-2, against both off, with ``COMMUNITY_LEVEL_LANDS``) cut 0.959x / 0.991x /
        #: 0.950x at k = 2 / 16 / 64 in 1.20x / 1.11x / 1.21x the time (cholesky_mc x18 at
        #: k = 64 29,120 against 35,039; BENCHMARKS.md, "The GPU clustering's rating and
        #: accepted proposals"). ``rating_keep_ties`` acts only without ``rating_by_cluster``.
        self.rating_by_cluster = bool(rating_by_cluster)
        self.cluster_accept = bool(cluster_accept)
        self._host: dict[int, object] = {}
        #: launches issued between two contractions (one entry per level built)
        self.level_launches: list[int] = []
        self._mark = STATS.launches
        #: seconds spent copying between host and device (uploads, downloads, host fallbacks)
        self.transfer_seconds = 0.0
        #: the placement of the partition under way within the budget (``memory_scope``)
        self._alloc: placement.BudgetAllocator | None = None
        self._scope_k = 2
        #: ... which of its levels keep their arrays on the device, and the levels by id
        self._residency: placement.LevelResidency | None = None
        self._levels: dict[int, weakref.ref] = {}

    # ------------------------------------------------------------------ bookkeeping
    @property
    def launches(self) -> int:
        """Kernel launches issued by this process's GPU launchers so far."""
        return STATS.launches

    def reset_stats(self) -> None:
        self.level_launches = []
        self._mark = STATS.launches
        self.transfer_seconds = 0.0

    def _timed(self, fn, *args):
        t0 = time.perf_counter()
        out = fn(*args)
        cp.cuda.get_current_stream().synchronize()
        self.transfer_seconds += time.perf_counter() - t0
        return out

    def _level_done(self) -> None:
        self.level_launches.append(STATS.launches - self._mark)
        self._mark = STATS.launches

    # ------------------------------------------------------------------ memory budget
    @contextlib.contextmanager
    def memory_scope(self, k: int):
        """Under ``memory_budget``: the partition inside the block places its arrays within the
        budget (``kernels.placement``: levels that do not fit keep their pin arrays in
        page-locked host memory, read by the same kernels over the bus) and the allocator with
        the accounting is yielded. Without a budget, or nested, nothing changes (None). The host
        stages run under the C++ backend's heap policy (``CpuBackend.heap_scope``) either way."""
        with self.cpu.heap_scope():
            if self.memory_budget is None or self._alloc is not None:
                yield None
            else:
                with self._budget_scope(int(k)) as alloc:
                    yield alloc

    @contextlib.contextmanager
    def _budget_scope(self, k: int):
        with _outofcore.budget_scope(self.memory_budget) as alloc:
            self._alloc, self._scope_k = alloc, k
            self._residency = placement.LevelResidency(self.memory_budget)
            try:
                yield alloc
            finally:
                self._alloc, self._residency = None, None
                self._levels.clear()

    def _pins_to_host(self, n: int, m: int, pins: int) -> tuple[str, ...]:
        """The pin arrays a level of these sizes keeps in host memory under the budget."""
        return placement.pins_to_host(self.memory_budget, n, m, pins, self._scope_k)

    def _level_need(self, level: HypergraphArrays) -> int:
        """Device bytes ``level`` takes while a phase works on it (``placement.level_need``)."""
        return placement.level_need(self.memory_budget, level.n, level.m, level.num_pins,
                                    self._scope_k)

    def _place_level(self, level: HypergraphArrays) -> HypergraphArrays:
        """Under a budget, a level just built (uploaded or contracted; its arrays wherever the
        budget put them, its net -> pin list in host memory already when it does not fit):
        when it does not fit, pin arrays (``placement.pins_to_host``) move to page-locked host
        memory, where the kernels read them over the bus; when it fits, whatever of it is in
        host memory moves to the device. The level then joins the levels whose residency the
        run manages (``placement.LevelResidency``) as the one worked on next."""
        if self._alloc is None:
            return level
        arrays = _level_arrays(level)
        names = self._pins_to_host(level.n, level.m, level.num_pins)
        moved = {}
        if names:
            moved = {name: _outofcore.to_host(arrays[name], self._alloc) for name in names
                     if not _outofcore.is_host(arrays[name])}
        else:
            moved = self._to_device(arrays)
        if moved:
            level = dataclasses.replace(level, **moved)
        key = id(level)
        self._levels[key] = weakref.ref(level)
        weakref.finalize(level, self._forget_level, key)
        self._residency.update(key, self._movable_bytes(level))
        self._spill_idle(key, self._level_need(level))
        return level

    # ------------------------------------------------------------------ level residency
    def _forget_level(self, key: int) -> None:
        self._levels.pop(key, None)
        if self._residency is not None:
            self._residency.forget(key)

    def _movable_bytes(self, level) -> int:
        """Bytes of ``level``'s arrays on the device that spilling would move."""
        small = self._alloc.small_bytes
        return sum(int(a.nbytes) for a in _level_arrays(level).values()
                   if a.nbytes >= small and not _outofcore.is_host(a))

    @staticmethod
    def _rehome(level, arrays: dict) -> None:
        """Replaces ``level``'s arrays by ``arrays`` (copies of the same values elsewhere) in
        place: the driver holds the level object, and the values never change, so a frozen
        level's fields are set directly."""
        for name, a in arrays.items():
            object.__setattr__(level, name, a)

    def _spill_idle(self, key: int | None, need: int) -> None:
        """Spills the idle levels ``LevelResidency.use`` names before a phase on level ``key``
        (None: on the output of a contraction) that needs ``need`` device bytes: each
        movable array copied to page-locked host memory (one sequential copy), the device
        copy freed."""
        for other in self._residency.use(key, need):
            ref = self._levels.get(other)  # a finaliser may have dropped it meanwhile
            level = None if ref is None else ref()
            if level is None:
                continue
            small = self._alloc.small_bytes
            moved = {name: _outofcore.to_host(a, self._alloc)
                     for name, a in _level_arrays(level).items()
                     if a.nbytes >= small and not _outofcore.is_host(a)}
            if moved:
                self._rehome(level, moved)
                self._alloc.note_level(True, sum(int(a.nbytes) for a in moved.values()))
            self._residency.update(other, 0)

    def _use_level(self, level) -> None:
        """Before a phase works on ``level`` (a level this run placed): idle levels spilled as
        the residency asks, then whatever of ``level`` was spilled copied back to the device
        (its pin arrays stay in host memory when the level does not fit)."""
        key = id(level)
        if key not in self._residency:
            return
        self._spill_idle(key, self._level_need(level))
        keep = set(self._pins_to_host(level.n, level.m, level.num_pins))
        moved = self._to_device({name: a for name, a in _level_arrays(level).items()
                                 if name not in keep})
        if moved:
            self._rehome(level, moved)
            self._alloc.note_level(False, sum(int(a.nbytes) for a in moved.values()))
            self._residency.update(key, self._movable_bytes(level))

    def _to_device(self, arrays: dict) -> dict:
        """Device copies of the host-resident ``arrays`` (by name) that the budget has room
        for; the others stay where they are (read over the bus) rather than be copied from
        host memory to host memory."""
        out = {}
        for name, a in arrays.items():
            if _outofcore.is_host(a) and a.nbytes <= self._alloc.room():
                out[name] = _outofcore.to_device(a, self._alloc)
        return out

    def _contract(self, hg: HypergraphArrays, cmap, nc: int) -> HypergraphArrays:
        """``_hypergraph.contract``, under a budget with its fine level read in streams from
        host memory when the levels would otherwise crowd the budget (the residency spills it
        first, as an idle level beside the level being built), the coarse level's net -> pin
        list written to host memory when it will not fit, and the coarse level placed."""
        if self._alloc is None:
            return _hypergraph.contract(hg, cmap, nc)
        with self._alloc.in_phase("contraction"):
            self._spill_idle(None, self._level_need(hg))
        with self._alloc.in_phase("contraction",
                                  _outofcore.host_bytes(_level_arrays(hg).values())):
            out = _hypergraph.contract(
                hg, cmap, nc,
                pins_on_host=lambda n, m, pins: "eind" in self._pins_to_host(n, m, pins))
            return self._place_level(out)

    def _host_copy(self, level):
        """The host copy of a device level (made once, dropped with the level)."""
        key = id(level)
        hit = self._host.get(key)
        if hit is not None:
            return hit
        fields = {}
        for name in level.__dataclass_fields__:
            v = getattr(level, name)
            fields[name] = (self._timed(_outofcore.asnumpy, v) if isinstance(v, cp.ndarray)
                            else v)
        copy = type(level)(**fields)
        self._host[key] = copy
        weakref.finalize(level, self._host.pop, key, None)
        return copy

    # ------------------------------------------------------------------ checks
    def _parts(self, parts, n: int, k: int, what: str):
        if k < 1:
            raise ValueError(f"{what}: k must be at least 1")
        parts = cp.asarray(parts, dtype=cp.int32)
        if parts.ndim != 1 or parts.shape[0] != n:
            raise ValueError(f"{what}: parts must be 1-D of length {n}")
        # min / max rather than a boolean any(): CuPy's any() over a large array compiles a CUB
        # reduction on first use (about 5 s on an H100), min / max reductions ship compiled
        if n and (int(parts.min()) < 0 or int(parts.max()) >= k):
            at = int(cp.flatnonzero((parts < 0) | (parts >= k))[0])
            raise ValueError(f"{what}: block id out of range at vertex {at}")
        return parts

    @staticmethod
    def _bounds(bounds, k: int, what: str):
        bounds = cp.asarray(bounds, dtype=cp.int64)
        if bounds.ndim != 1 or bounds.shape[0] != k:
            raise ValueError(f"{what}: max_block_weights must be 1-D of length {k}")
        return bounds

    @staticmethod
    def _cmap(cmap, n: int, nc: int, what: str):
        cmap = cp.asarray(cmap, dtype=cp.int32)
        if cmap.ndim != 1 or cmap.shape[0] != n:
            raise ValueError(f"{what}: cmap must be 1-D of length {n}")
        if nc < 0 or nc > n:
            raise ValueError(f"{what}: nc out of range")
        if n and (int(cmap.min()) < 0 or int(cmap.max()) >= nc):  # see _parts
            raise ValueError(f"{what}: cmap entry out of range at vertex "
                             f"{int(cp.flatnonzero((cmap < 0) | (cmap >= nc))[0])}")
        return cmap

    # ------------------------------------------------------------------ transfers / helpers
    def asarray(self, a, dtype=None):
        if isinstance(a, cp.ndarray):
            return a if dtype is None or a.dtype == dtype else a.astype(dtype)
        return self._timed(_upload, a, dtype)

    def graph_arrays(self, g) -> GraphArrays:
        """Uploads a host graph; unit weights (``Graph.unit_edge_weights`` /
        ``unit_vertex_weights``: a graph read or generated without weights) are filled on the
        device instead of copied, the edge weights being two thirds of the CSR's bytes."""
        n, arcs = int(g.n), int(g.adjncy.shape[0])
        unit_edges = bool(getattr(g, "unit_edge_weights", False))
        unit_vertices = bool(getattr(g, "unit_vertex_weights", False))
        return GraphArrays(
            n=n,
            xadj=self.asarray(g.xadj, "int64"),
            adjncy=self.asarray(g.adjncy, "int32"),
            adjwgt=(cp.ones(arcs, dtype=cp.int64) if unit_edges
                    else self.asarray(g.adjwgt, "int64")),
            vwgt=cp.ones(n, dtype=cp.int64) if unit_vertices else self.asarray(g.vwgt, "int64"),
            total_weight=int(g.total_weight),
        )

    def hypergraph_arrays(self, h) -> HypergraphArrays:
        """Uploads the net -> pin CSR and the weights; the vertex -> net incidence is built on
        the device (``_hypergraph.transpose``: the same arrays as the host's ``h.vptr`` /
        ``h.vind``, nets ascending per vertex) instead of copied: a third fewer bytes over the
        bus, and no host transpose on a hypergraph's first upload. Under a memory budget the
        pin arrays of a level that does not fit stay in host memory."""
        if self._alloc is None:
            return self._hypergraph_arrays(h)
        with self._alloc.in_phase("upload"):
            # the net -> pin list of a level that does not fit goes to host memory as it is
            # uploaded (the transpose reads it in one stream)
            host = "eind" in self._pins_to_host(int(h.n), int(h.m), int(h.eind.shape[0]))
            return self._place_level(self._hypergraph_arrays(h, host))

    def _hypergraph_arrays(self, h, eind_on_host: bool = False) -> HypergraphArrays:
        n, m = int(h.n), int(h.m)
        eptr = self.asarray(np.asarray(h.eptr), "int64")
        with _outofcore.host_scope(eind_on_host):
            eind = self.asarray(np.asarray(h.eind), "int32")
        t0 = time.perf_counter()
        vptr, vind = _hypergraph.transpose(eptr, eind, n)
        # unit weights (no weights in the file, Hypergraph's defaults) are made on the device
        vwgt = (cp.ones(n, dtype=cp.int64) if getattr(h, "unit_vertex_weights", False)
                else None)
        ewgt = cp.ones(m, dtype=cp.int64) if getattr(h, "unit_net_weights", False) else None
        cp.cuda.get_current_stream().synchronize()
        self.transfer_seconds += time.perf_counter() - t0
        return HypergraphArrays(n=n, m=m, eptr=eptr, eind=eind, vptr=vptr, vind=vind,
                                vwgt=self.asarray(np.asarray(h.vwgt), "int64") if vwgt is None
                                else vwgt,
                                ewgt=self.asarray(np.asarray(h.ewgt), "int64") if ewgt is None
                                else ewgt,
                                total_weight=int(h.total_weight))

    def to_host(self, a):
        return (self._timed(_outofcore.asnumpy, a) if isinstance(a, cp.ndarray)
                else np.asarray(a))

    def net_connectivity(self, eptr, eind, parts, k: int):
        eptr = cp.asarray(eptr, dtype=cp.int64)
        eind = cp.asarray(eind, dtype=cp.int32)
        n = int(eind.max()) + 1 if eind.shape[0] else 0
        parts = cp.asarray(parts, dtype=cp.int32)
        self._parts(parts, parts.shape[0], k, "net_connectivity")
        if n > parts.shape[0]:
            raise ValueError("net_connectivity: pin id out of range")
        return _hypergraph.connectivity(eptr, eind, parts, k)

    def block_weights(self, vwgt, parts, k: int):
        vwgt = cp.asarray(vwgt, dtype=cp.int64)
        parts = self._parts(parts, vwgt.shape[0], k, "block_weights")
        return block_weights(vwgt, parts, k)

    def project(self, cmap, coarse_parts):
        return cp.asarray(coarse_parts, dtype=cp.int32)[cp.asarray(cmap, dtype=cp.int32)]

    def hypergraph_objective(self, hg: HypergraphArrays, parts, k: int, objective: str) -> int:
        code = _objective_code(objective)
        parts = self._parts(parts, hg.n, k, "hypergraph_objective")
        return _hypergraph.objective(hg, parts, k, code)

    def graph_edge_cut(self, g: GraphArrays, parts) -> int:
        parts = cp.asarray(parts, dtype=cp.int32)
        if parts.shape != (g.n,):
            raise ValueError(f"graph_edge_cut: parts must be 1-D of length {g.n}")
        return _graph.edge_cut(g, parts)

    def _balanced(self, vwgt, parts, k: int, bounds) -> bool:
        return not bool((block_weights(vwgt, parts, k) > bounds).any())

    # ------------------------------------------------------------------ hypergraphs
    @_in_phase("coarsening")
    def coarsen_hypergraph(self, hg: HypergraphArrays, max_cluster_weight: int, *,
                           group_size: int = 4, max_net_size: int = 1000, communities=None,
                           seed: int = 0):
        if group_size < 1:
            raise ValueError("coarsen_hypergraph: group_size must be positive")
        comm = None
        if communities is not None:
            comm = cp.asarray(communities, dtype=cp.int32)
            if comm.shape != (hg.n,):
                raise ValueError(f"coarsen_hypergraph: communities must be 1-D of length {hg.n}")
        return _hypergraph.coarsen(hg, int(max_cluster_weight), int(group_size),
                                   int(max_net_size), comm, int(seed), self.rating_heavy_slots,
                                   self.rating_window)

    @_in_phase("coarsening")
    def cluster_hypergraph(self, hg: HypergraphArrays, max_cluster_weight: int, *,
                           max_net_size: int = 1000, communities=None, max_shrink: float = 2.5,
                           weight_penalty: bool = False, seed: int = 0):
        """The parallel variant of cluster-aware heavy-edge clustering (see
        ``_hypergraph.cluster``): same postconditions as ``coarsen_hypergraph``."""
        comm = None
        if communities is not None:
            comm = cp.asarray(communities, dtype=cp.int32)
            if comm.shape != (hg.n,):
                raise ValueError(f"cluster_hypergraph: communities must be 1-D of length {hg.n}")
        if not max_shrink > 1.0:  # n / max_shrink clusters already remain: nothing to join
            return cp.arange(hg.n, dtype=cp.int32), hg.n
        return _hypergraph.cluster(hg, int(max_cluster_weight), int(max_net_size), comm,
                                   float(max_shrink), bool(weight_penalty), int(seed),
                                   self.cluster_max_size, self.deterministic,
                                   self.rating_heavy_slots, self.rating_keep_ties,
                                   self.rating_window, self.rating_by_cluster,
                                   self.cluster_accept)

    #: ``communities`` takes ``deterministic`` (see ``HOST_LOUVAIN_ASYNC``)
    async_louvain = True

    @_in_phase("coarsening")
    def communities(self, hg: HypergraphArrays, *, max_net_size: int = 50, max_levels: int = 8,
                    max_passes: int = 8, min_move_fraction: float = 0.01, seed: int = 0,
                    resolution: float = 1.0, max_weight: int = 0, sub_rounds: int = 0,
                    k: int = 0, graph: str = "clique", edge_weight: str = "hybrid",
                    level_max: int = -1, min_pass_gain: float = 0.0,
                    deterministic: bool | None = True):
        """Louvain communities (the C++ implementation, on ``graph``) computed on a level the GPU
        first coarsens to at most ``level_max`` vertices (-1: :meth:`community_level_max` of
        ``k``, the partition's k; 0: the input itself), projected back to ``hg``; with
        ``community_host_levels`` the C++ backend coarsens to that level (a host copy of
        ``hg``). ``deterministic``: as for ``CpuBackend.communities`` where
        ``HOST_LOUVAIN_ASYNC`` is set and this backend is not ``deterministic``; True
        otherwise."""
        if self.deterministic or not HOST_LOUVAIN_ASYNC:
            deterministic = True
        limit = self.community_level_max(k) if level_max < 0 else int(level_max)
        if self.community_host_levels and 0 < limit < hg.n:
            return self.asarray(self.cpu.communities(
                self._host_copy(hg), max_net_size=max_net_size, max_levels=max_levels,
                max_passes=max_passes, min_move_fraction=min_move_fraction, seed=seed,
                resolution=resolution, max_weight=max_weight, sub_rounds=sub_rounds, graph=graph,
                edge_weight=edge_weight, level_max=limit, min_pass_gain=min_pass_gain,
                deterministic=deterministic), "int32")
        maps = []
        cur = hg
        while 0 < limit < cur.n:
            shrink = max(min(4.0, cur.n / limit), 1.01) if COMMUNITY_LEVEL_LANDS else 4.0
            cmap, nc = _hypergraph.cluster(cur, cur.total_weight, max_net_size, None, shrink, False,
                                           seed, self.cluster_max_size, self.deterministic,
                                           self.rating_heavy_slots, self.rating_keep_ties,
                                           self.rating_window,
                                           self.rating_by_cluster and COMMUNITY_LEVELS_OPTIONS,
                                           self.cluster_accept and COMMUNITY_LEVELS_OPTIONS)
            if nc > 0.9 * cur.n:
                break
            maps.append(cmap)
            cur = self._contract(cur, cmap, nc)
        comm = self.asarray(self.cpu.communities(
            self._host_copy(cur), max_net_size=max_net_size, max_levels=max_levels,
            max_passes=max_passes, min_move_fraction=min_move_fraction, seed=seed,
            resolution=resolution, max_weight=max_weight, sub_rounds=sub_rounds, graph=graph,
            edge_weight=edge_weight, min_pass_gain=min_pass_gain, deterministic=deterministic),
            "int32")
        for cmap in reversed(maps):
            comm = comm[cmap]
        return comm

    def community_level_max(self, k: int) -> int:
        """The most vertices of the level Louvain runs on for a partition into ``k`` blocks:
        ``community_host_max`` when set, else ``COMMUNITY_HOST_MAX`` below k =
        ``LARGE_K`` and ``COMMUNITY_HOST_MAX_LARGE_K`` from it on."""
        if self.community_host_max is not None:
            return int(self.community_host_max)
        if int(k) >= self.LARGE_K:
            return int(self.COMMUNITY_HOST_MAX_LARGE_K)
        return int(self.COMMUNITY_HOST_MAX)

    def contract_hypergraph(self, hg: HypergraphArrays, cmap, nc: int) -> HypergraphArrays:
        cmap = self._cmap(cmap, hg.n, int(nc), "contract_hypergraph")
        # under a budget: pins to the host while the levels do not fit, then to the device
        out = self._contract(hg, cmap, int(nc))
        self._level_done()
        return out

    def _locked(self, locked, n: int, what: str):
        """The optional ``locked`` mask (uint8 per vertex) on the device, or None."""
        if locked is None:
            return None
        locked = cp.ascontiguousarray(cp.asarray(locked), dtype=cp.uint8)
        if locked.shape != (n,):
            raise ValueError(f"{what}: locked must have one entry per vertex ({n}), "
                             f"got shape {tuple(locked.shape)}")
        return locked

    def _host_locked(self, locked, n: int, what: str):
        """``locked`` as a host array for the C++ backend, or None."""
        locked = self._locked(locked, n, what)
        return None if locked is None else self.to_host(locked)

    @_in_phase("refinement")
    def refine_hypergraph(self, hg, parts, k, max_block_weights, objective, *,
                          max_rounds: int = 16, locked=None):
        code = _objective_code(objective)
        parts = self._parts(parts, hg.n, k, "refine_hypergraph")
        bounds = self._bounds(max_block_weights, k, "refine_hypergraph")
        locked = self._locked(locked, hg.n, "refine_hypergraph")
        return _hypergraph.refine(hg, parts, int(k), bounds, code, int(max_rounds), locked)

    @_in_phase("refinement")
    def fm_refine_hypergraph(self, hg, parts, k, max_block_weights, objective, *,
                             max_rounds: int = 4, max_fruitless_moves: int = 250,
                             min_improvement: float = 0.001, seed: int = 0,
                             max_work: float = 0.0, locked=None):
        _objective_code(objective)
        parts = self._parts(parts, hg.n, k, "fm_refine_hypergraph")
        bounds = self._bounds(max_block_weights, k, "fm_refine_hypergraph")
        cap = self.fm_host_max_pins
        if (cap is not None and hg.num_pins > cap) or max_rounds <= 0:
            return parts.copy(), 0
        out, gain = self.cpu.fm_refine_hypergraph(
            self._host_copy(hg), self.to_host(parts), k, self.to_host(bounds), objective,
            max_rounds=max_rounds, max_fruitless_moves=max_fruitless_moves,
            min_improvement=min_improvement, seed=seed, max_work=max_work,
            locked=self._host_locked(locked, hg.n, "fm_refine_hypergraph"),
        )
        return self.asarray(out), gain

    @_in_phase("refinement")
    def jet_refine_hypergraph(self, hg, parts, k, max_block_weights, objective, *,
                              max_iterations: int = 64, patience: int = 12,
                              negative_gain_factor: float = 0.25, min_improvement: float = 0.001,
                              afterburner_max_net_size: int = 256, balance_rounds: int = 3,
                              seed: int = 0, locked=None):
        code = _objective_code(objective)
        parts = self._parts(parts, hg.n, k, "jet_refine_hypergraph")
        bounds = self._bounds(max_block_weights, k, "jet_refine_hypergraph")
        if patience < 1:
            raise ValueError("jet_refine_hypergraph: patience must be positive")
        if max_iterations < 0:
            raise ValueError("jet_refine_hypergraph: max_iterations must be >= 0")
        if not 0 <= negative_gain_factor < float("inf"):
            raise ValueError("jet_refine_hypergraph: negative_gain_factor must be a finite "
                             "non-negative number")  # fmt: skip
        if afterburner_max_net_size < 0:
            raise ValueError("jet_refine_hypergraph: afterburner_max_net_size must be >= 0")
        if not 0 <= min_improvement < 1:
            raise ValueError("jet_refine_hypergraph: min_improvement must lie in [0, 1)")
        if balance_rounds < 0:
            raise ValueError("jet_refine_hypergraph: balance_rounds must be >= 0")
        if hg.num_pins <= self.jet_host_max_pins and k >= self.jet_host_min_k:
            out, gain = self.cpu.jet_refine_hypergraph(
                self._host_copy(hg), self.to_host(parts), int(k), self.to_host(bounds), objective,
                max_iterations=int(max_iterations), patience=int(patience),
                negative_gain_factor=float(negative_gain_factor),
                min_improvement=float(min_improvement),
                afterburner_max_net_size=int(afterburner_max_net_size),
                balance_rounds=int(balance_rounds), seed=int(seed),
                locked=self._host_locked(locked, hg.n, "jet_refine_hypergraph"),
            )
            return self.asarray(out, "int32"), gain
        return _jet.refine(
            hg, parts, int(k), bounds, code, max_iterations=int(max_iterations),
            patience=int(patience), negative_gain_factor=float(negative_gain_factor),
            min_improvement=float(min_improvement),
            afterburner_max_net_size=int(afterburner_max_net_size),
            balance_rounds=int(balance_rounds), seed=int(seed), boundary=self.jet_boundary,
            locked=self._locked(locked, hg.n, "jet_refine_hypergraph"),
        )

    @_in_phase("refinement")
    def rebalance_hypergraph(self, hg, parts, k, max_block_weights, objective, locked=None):
        _objective_code(objective)
        parts = self._parts(parts, hg.n, k, "rebalance_hypergraph")
        bounds = self._bounds(max_block_weights, k, "rebalance_hypergraph")
        if self._balanced(hg.vwgt, parts, k, bounds):
            return parts.copy()
        out = self.cpu.rebalance_hypergraph(
            self._host_copy(hg), self.to_host(parts), k, self.to_host(bounds), objective,
            locked=self._host_locked(locked, hg.n, "rebalance_hypergraph"))
        return self.asarray(out)

    # ------------------------------------------------------------------ graphs
    def coarsen_graph(self, g: GraphArrays, max_cluster_weight: int, *, group_size: int = 6,
                      seed: int = 0):
        if group_size < 1:
            raise ValueError("coarsen_graph: group_size must be positive")
        return _graph.coarsen(g, int(max_cluster_weight), int(group_size), int(seed))

    def contract_graph(self, g: GraphArrays, cmap, nc: int) -> GraphArrays:
        cmap = self._cmap(cmap, g.n, int(nc), "contract_graph")
        out = _graph.contract(g, cmap, int(nc))
        self._level_done()
        return out

    def refine_graph(self, g, parts, k, max_block_weights, *, max_rounds: int = 32):
        parts = self._parts(parts, g.n, k, "refine_graph")
        bounds = self._bounds(max_block_weights, k, "refine_graph")
        return _graph.refine(g, parts, int(k), bounds, int(max_rounds))

    #: ``cluster_graph_lp`` and ``lp_refine_graph`` take ``deterministic``: the fused rounds of
    #: ``_graph_lp_async`` (``graph_lp.cu``: a few launches and one host read per round, moves
    #: admitted by atomic reservations) unless deterministic, the array rounds of ``_graph_lp``
    #: (moves admitted in order of gain; the same result on every run) if so.
    async_graph_lp = True

    def graph_lp_is_deterministic(self, deterministic: bool | None = None, n: int = 0) -> bool:
        """Whether ``cluster_graph_lp`` / ``lp_refine_graph(deterministic=...)`` run the array
        rounds: True and False as given; None (``Config.deterministic``'s default) the
        backend's ``deterministic`` (off by default: the fused rounds on every level)."""
        return self.deterministic if deterministic is None else bool(deterministic)

    def cluster_graph_lp(self, g: GraphArrays, max_cluster_weight: int, *, iterations: int = 5,
                         min_clusters: int = 0, seed: int = 0, sub_rounds: int = 8,
                         deterministic: bool | None = True):
        """Label propagation clustering on the device: ``deterministic`` True (the default)
        runs the synchronous array rounds (``_graph_lp.cluster``), False the fused ones
        (``_graph_lp_async.cluster``), None chooses (:meth:`graph_lp_is_deterministic`)."""
        _graph_lp.check_arguments("cluster_graph_lp", iterations, sub_rounds)
        if not self.graph_lp_is_deterministic(deterministic, g.n):
            return _graph_lp_async.cluster(g, int(max_cluster_weight), int(iterations),
                                           int(min_clusters), int(seed), _OPS)
        return _graph_lp.cluster(g, int(max_cluster_weight), int(iterations), int(min_clusters),
                                 int(seed), int(sub_rounds), _OPS)

    def lp_refine_graph(self, g, parts, k, max_block_weights, *, iterations: int = 5,
                        seed: int = 0, sub_rounds: int = 8, deterministic: bool | None = True):
        """Label propagation refinement on the device: ``deterministic`` as in
        :meth:`cluster_graph_lp` (``_graph_lp.refine`` / ``_graph_lp_async.refine``)."""
        _graph_lp.check_arguments("lp_refine_graph", iterations, sub_rounds)
        parts = self._parts(parts, g.n, k, "lp_refine_graph")
        bounds = self._bounds(max_block_weights, k, "lp_refine_graph")
        if not self.graph_lp_is_deterministic(deterministic, g.n):
            return _graph_lp_async.refine(g, parts, int(k), bounds, int(iterations), int(seed),
                                          block_weights)
        return _graph_lp.refine(g, parts, int(k), bounds, int(iterations), int(seed),
                                int(sub_rounds), _OPS)

    # ------------------------------------------------------------------ incremental engine
    def dynamic_hypergraph(self, eptr, eind, n: int, vwgt, ewgt, parts, k: int, epsilon: float,
                           **options):  # fmt: skip
        """The dynamic hypergraph on the device (``_dynamic.GpuDynamicHypergraph``)."""
        return _dynamic.GpuDynamicHypergraph(eptr, eind, n, vwgt, ewgt, parts, k, epsilon,
                                             **options)  # fmt: skip

    def rebalance_graph(self, g, parts, k, max_block_weights):
        parts = self._parts(parts, g.n, k, "rebalance_graph")
        bounds = self._bounds(max_block_weights, k, "rebalance_graph")
        if self._balanced(g.vwgt, parts, k, bounds):
            return parts.copy()
        out = self.cpu.rebalance_graph(self._host_copy(g), self.to_host(parts), k,
                                       self.to_host(bounds))
        return self.asarray(out)
