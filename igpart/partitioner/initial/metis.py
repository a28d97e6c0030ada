"""METIS on the coarsest level, and as a partitioner of its own.

:func:`part_graphs` is the one place where igpart calls METIS, here and in the worker processes
of :mod:`igpart.parallel.metis_pool` (``Config.initial_metis_processes``), so that both give the
same blocks for the same seed. METIS is the 5.1.0 sources that pymetis ships, compiled into the
C++ module (``third_party/metis``, ``_cpu.metis_part_graphs``) with a per-thread random number
generator: a call gives the blocks ``pymetis.part_graph`` gives with the same options and seed
(``tests/test_metis_native.py``), runs without the GIL, and the seeds of one call run side by side
on the calling thread's OpenMP threads; :func:`metis_partition` and :func:`metis_partitions`
hand it :func:`metis_seed` of igpart's seeds. :func:`metis_partition` (METIS on a graph or a
hypergraph's clique expansion) is also the ``metis`` algorithm of ``igpart partition`` and the
METIS peer of the regression flow: it reports what METIS gives, without any igpart refinement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...hypergraph import Graph, Hypergraph
from ...parallel import metis_pool
from ...parallel.threads import c_stdout_to_stderr
from ..context import check_k

#: pymetis's choice of METIS method, kept: recursive bisection up to this many blocks, k-way above.
RECURSIVE_MAX_PARTS = 8


def part_graphs(
    nparts: int,
    xadj: np.ndarray,
    adjncy: np.ndarray,
    vweights: np.ndarray,
    eweights: np.ndarray | None,
    tpwgts: list[float] | None,
    seeds: list[int],
    ufactor: int,
) -> list[np.ndarray]:
    """Block ids (int32) of METIS for each of ``seeds`` on the CSR graph (int64 arrays): what
    ``pymetis.part_graph(nparts, ..., tpwgts=tpwgts, options=Options(seed=s, ufactor=ufactor))``
    gives (recursive bisection up to :data:`RECURSIVE_MAX_PARTS` blocks, k-way above; target
    fractions normalised as pymetis does). The seeds run side by side on the calling thread's
    OpenMP threads, without the GIL; the caller sends METIS's stdout elsewhere."""
    from ...kernels import _cpu

    tp = None
    if tpwgts is not None and len(tpwgts):
        fractions = np.asarray(tpwgts, dtype=np.float64)
        if abs(float(fractions.sum()) - 1.0) > 1e-12:
            fractions = fractions / fractions.sum()
        tp = fractions.astype(np.float32)
    def ints(a):
        return np.ascontiguousarray(a, dtype=np.int64)

    rows = _cpu.metis_part_graphs(
        int(nparts), ints(xadj), ints(adjncy), ints(vweights),
        None if eweights is None else ints(eweights), tp,
        ints([int(s) for s in seeds]), int(ufactor), int(nparts) <= RECURSIVE_MAX_PARTS,
    )
    return list(rows)


def metis_seed(seed: int) -> int:
    """The METIS seed of igpart's seed ``seed`` (>= 0): ``seed + 1``. METIS draws from glibc's
    ``rand()`` (here its per-thread copy, ``third_party/metis/igpart_rand.c``), whose ``srand``
    takes seed 0 as 1, so METIS gives the same blocks for its seeds 0 and 1; passed as they are,
    the seeds ``seed, seed + 1, ...`` would give a run with seed 0 (the default) one METIS
    candidate fewer than the others. Shifted, the seeds igpart derives from one run's seed are
    distinct METIS seeds."""
    return int(seed) + 1


#: Nets with more pins than this are left out of the clique expansion handed to METIS (a net of
#: s pins adds s(s-1)/2 edges; large nets carry little locality information).
CLIQUE_MAX_NET_SIZE = 100


def target_fractions(bounds) -> list[float]:
    """METIS's target weight fractions (``tpwgts``) in the proportions of the per-block
    ``bounds`` (METIS rejects zero targets: a bound of 0 counts as 1)."""
    positive = np.maximum(np.asarray(bounds, dtype=np.int64), 1)
    return list(positive / positive.sum())


def metis_partition(
    h: Hypergraph | Graph,
    k: int,
    epsilon: float = 0.03,
    seed: int = 0,
    max_net_size: int = CLIQUE_MAX_NET_SIZE,
    tpwgts: list[float] | None = None,
    processes: int = 0,
) -> np.ndarray:
    """Block ids (int32) from METIS k-way on ``h`` (a hypergraph goes through its clique
    expansion), METIS seed :func:`metis_seed` of ``seed``. METIS's own balance tolerance is set
    from ``epsilon``; METIS does not guarantee it, so callers check balance. ``tpwgts``: target
    fractions of the total weight per block (default: equal). ``processes > 0``: the call runs
    in one of that many worker processes (:mod:`igpart.parallel.metis_pool`,
    ``Config.initial_metis_processes``), so that concurrent calls from several threads run at
    once; same blocks as in-process, which is where it runs when no worker can serve it."""
    check_k(h.n, k)
    if k == 1:
        return np.zeros(h.n, dtype=np.int32)
    request = _metis_request(h, k, epsilon, max_net_size, tpwgts)
    if processes > 0:
        return _metis_chunk(metis_pool.get_pool(processes), request, [metis_seed(seed)])[0]
    return _metis_here(request, [metis_seed(seed)])[0]


def metis_partitions(
    h: Hypergraph | Graph,
    k: int,
    epsilon: float,
    seeds: list[int],
    max_net_size: int = CLIQUE_MAX_NET_SIZE,
    tpwgts: list[float] | None = None,
    processes: int = 0,
) -> list[Callable[[], np.ndarray]]:
    """One function per seed that returns :func:`metis_partition`'s blocks for that seed.
    In-process (``processes == 0``) METIS runs now for every seed, in one call whose seeds run
    side by side on the calling thread's OpenMP threads. With worker processes every
    seed is sent now, in ``min(processes, len(seeds))`` requests of consecutive seeds (one
    graph per request: fewer round trips), and the functions wait for their blocks, so that
    METIS runs in the workers while the caller goes on (refining earlier candidates)."""
    check_k(h.n, k)
    seeds = [metis_seed(s) for s in seeds]
    if k == 1:
        return [lambda: np.zeros(h.n, dtype=np.int32) for _ in seeds]
    request = _metis_request(h, k, epsilon, max_net_size, tpwgts)
    if processes <= 0 or not seeds:
        return [lambda row=row: row for row in _metis_here(request, seeds)]
    pool = metis_pool.get_pool(processes)
    chunks = np.array_split(np.asarray(seeds), min(int(processes), len(seeds)))
    getters = []
    for chunk in chunks:
        future = pool.submit(_metis_chunk, pool, request, [int(s) for s in chunk])
        getters += [lambda f=future, j=j: f.result()[j] for j in range(chunk.size)]
    return getters


def _metis_request(h, k, epsilon, max_net_size, tpwgts) -> dict[str, Any]:
    """The keyword arguments of :func:`part_graphs` but the seeds."""
    g = h if isinstance(h, Graph) else h.to_graph("clique", max_net_size=max_net_size)
    vw = g.vwgt.astype(np.int64)
    # METIS rejects all-zero vertex weights; with a zero total any assignment is balanced
    if not vw.any():
        vw = np.ones_like(vw)
    return dict(
        nparts=int(k),
        xadj=g.xadj.astype(np.int64),
        adjncy=g.adjncy.astype(np.int64),
        vweights=vw,
        eweights=g.adjwgt.astype(np.int64) if g.adjncy.size else None,
        tpwgts=tpwgts,
        ufactor=max(1, int(round(epsilon * 1000))),
    )


def _metis_here(request: dict[str, Any], seeds: list[int]) -> list[np.ndarray]:
    with c_stdout_to_stderr():
        return part_graphs(seeds=seeds, **request)


def _metis_chunk(pool, request: dict[str, Any], seeds: list[int]) -> list[np.ndarray]:
    """METIS for ``seeds`` in a worker of ``pool``, in-process when none can serve them or
    none has finished its start-up yet (no waiting for the workers' imports)."""
    if pool.usable:
        try:
            return pool.part_graphs(request, seeds, wait_for_start=False)
        except metis_pool.WorkerGone:
            pass  # logged by the pool; run them here
    return _metis_here(request, seeds)
