"""The initial partitioning's METIS through pymetis, for A/B runs against the compiled METIS.

igpart calls METIS through ``_cpu.metis_part_graphs`` (the METIS 5.1.0 sources pymetis ships,
compiled into the C++ module): the seeds of a request run side by side without the GIL.
``metis_impl("pymetis")`` puts back, inside its block, how the initial partitioning called
METIS before: each seed's ``pymetis.part_graph`` run when its candidate asks for it (one after
another under the GIL, beside the refinement of earlier candidates on other threads), with the
same options, so the blocks, and with them the partitions, are the same; only the time differs.
Worker processes (``Config.initial_metis_processes`` > 0) are left as they are. Used by
``cpu_profile.py`` (a variant key ``"metis": "pymetis"``) and ``graph_threads.py`` (``--metis``).
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from igpart.parallel.threads import c_stdout_to_stderr
from igpart.partitioner.initial import metis, pool

_LOCK = threading.Lock()


def pymetis_part_graph(nparts, xadj, adjncy, vweights, eweights, tpwgts, seed, ufactor):
    """Block ids (int32) of ``pymetis.part_graph`` with igpart's options (one call at a time:
    pymetis's METIS draws from the process's rand())."""
    import pymetis

    with _LOCK:
        res = pymetis.part_graph(int(nparts), pymetis.CSRAdjacency(xadj, adjncy),
                                 vweights=vweights, eweights=eweights, tpwgts=tpwgts,
                                 options=pymetis.Options(seed=int(seed), ufactor=int(ufactor)))
    return np.asarray(res.vertex_part, dtype=np.int32)


def _lazy_pymetis_partitions(real):
    def metis_partitions(h, k, epsilon, seeds, max_net_size=metis.CLIQUE_MAX_NET_SIZE,
                         tpwgts=None, processes=0):
        if processes > 0 or k == 1 or not seeds:
            return real(h, k, epsilon, seeds, max_net_size=max_net_size, tpwgts=tpwgts,
                        processes=processes)
        request = metis._metis_request(h, k, epsilon, max_net_size, tpwgts)

        def one(s):
            with c_stdout_to_stderr():
                return pymetis_part_graph(seed=s, **request)

        return [lambda s=int(s): one(s) for s in seeds]

    return metis_partitions


@contextlib.contextmanager
def metis_impl(name: str):
    """Inside the block the initial partitioning calls METIS as ``name`` says: ``"native"``
    (igpart's own, unchanged) or ``"pymetis"`` (see the module's docstring)."""
    if name == "native":
        yield
        return
    if name != "pymetis":
        raise SystemExit(f"unknown METIS implementation '{name}' (native, pymetis)")
    real = pool.metis_partitions
    pool.metis_partitions = _lazy_pymetis_partitions(real)
    try:
        yield
    finally:
        pool.metis_partitions = real
