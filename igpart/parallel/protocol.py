"""The pipe protocol between :mod:`igpart.parallel.metis_pool` and its worker processes
(:mod:`igpart.parallel.worker`): messages are an 8-byte little-endian length, then that many
bytes of pickle. On start a worker sends ``("ready", pid)``; then each request is a dict of
:func:`igpart.partitioner.initial.metis.part_graphs`'s keyword arguments (``seeds`` a list),
and each reply ``("ok", [parts per seed])`` or ``("error", exception)``; a
request with ``"op": "bisect"`` is one bisection of recursive bisection
(:func:`igpart.partitioner.initial.recursive.bisect_request`'s keyword arguments), replied to
with ``("ok", sides)``; one with ``"op": "subtree"`` every bisection of a subtree
(:func:`igpart.partitioner.initial.recursive.subtree_request`), replied to with ``("ok",
blocks)``; one with ``"op": "split"`` one split of a process mapping
(:func:`igpart.mapping.split_request`'s keyword arguments), replied to with ``("ok", (rank,
blocks, backend))``. End of input ends the worker."""

from __future__ import annotations

import pickle
import struct
from typing import Any, BinaryIO

_HEADER = struct.Struct("<Q")


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


def picklable_error(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
