"""One METIS call, and a worker process that serves METIS calls over its pipes.

``part_graph`` is the single place where igpart calls pymetis: in-process
(:func:`igpart.initial.metis_partition`) and in the worker processes of
:mod:`igpart.metis_pool` (``Config.initial_metis_processes``), so that both give the same
blocks for the same seed (METIS seeds its process-global RNG from the options on every call).

Worker: ``python -m igpart._metis_worker``. Protocol on stdin / stdout: messages are an 8-byte
little-endian length, then that many bytes of pickle. On start the worker sends ``("ready",
pid)``; then each request is a dict of :func:`part_graph`'s keyword arguments with ``seeds``
(a list) in place of ``seed``, and each reply ``("ok", [parts per seed])`` or ``("error",
exception)``; a request with ``"op": "bisect"`` is one bisection of recursive bisection
(:func:`igpart.recursive.bisect_request`'s keyword arguments, on one OpenMP thread), replied to
with ``("ok", sides)``. End of input ends the worker. What METIS prints on file descriptor 1 goes
to stderr (the protocol keeps its own copy of the pipe). The worker imports numpy, pymetis and
the C++ backend before it reports ready.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from typing import Any, BinaryIO

import numpy as np

_HEADER = struct.Struct("<Q")


def part_graph(
    nparts: int,
    xadj: np.ndarray,
    adjncy: np.ndarray,
    vweights: np.ndarray,
    eweights: np.ndarray | None,
    tpwgts: list[float] | None,
    seed: int,
    ufactor: int,
) -> np.ndarray:
    """Block ids (int32) of METIS k-way (pymetis' default method for ``nparts``) on the CSR
    graph; the caller sends METIS's stdout elsewhere."""
    import pymetis

    res = pymetis.part_graph(
        int(nparts),
        pymetis.CSRAdjacency(xadj, adjncy),
        vweights=vweights,
        eweights=eweights,
        tpwgts=tpwgts,
        options=pymetis.Options(seed=int(seed), ufactor=int(ufactor)),
    )
    return np.asarray(res.vertex_part, dtype=np.int32)


def send(stream: BinaryIO, obj: Any) -> None:
    """Writes one message (length prefix + pickle) and flushes."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _read_exact(stream: BinaryIO, size: int) -> bytes:
    chunks = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            raise EOFError("pipe closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(stream: BinaryIO) -> Any:
    """Reads one message; raises EOFError when the other side has gone."""
    (size,) = _HEADER.unpack(_read_exact(stream, _HEADER.size))
    return pickle.loads(_read_exact(stream, size))


def _error(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def main() -> None:
    """Serves requests until stdin closes."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # METIS's printf and Python's print go to stderr, never into the protocol
    sys.stdout = sys.stderr
    import pymetis  # noqa: F401  (imported before "ready": the start-up cost is paid here)

    from . import recursive
    from .kernels import _cpu

    _cpu.set_num_threads(1)  # the pool's workers run side by side

    send(replies, ("ready", os.getpid()))
    while True:
        try:
            request = receive(requests)
        except EOFError:
            return
        try:
            if request.pop("op", "metis") == "bisect":
                reply = ("ok", recursive.bisect_request(**request))
            else:
                seeds = request.pop("seeds")
                reply = ("ok", [part_graph(seed=s, **request) for s in seeds])
        except Exception as exc:
            reply = ("error", _error(exc))
        sys.stderr.flush()
        send(replies, reply)


if __name__ == "__main__":
    main()
