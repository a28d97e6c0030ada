"""File formats: hMETIS ``.hgr``, METIS ``.graph`` and partition files.

Parsing is vectorised: the C++ tokenizer turns the whole file into integer arrays in one pass and
numpy checks the format over those arrays; no Python loop runs per token or per line. Every error
is an :class:`InputError` naming the file and the 1-based line.

hMETIS (``.hgr``): header ``m n [fmt]``, then one line per net (1-based vertex ids; with fmt 1 or
11 the net weight first), then with fmt 10 or 11 one vertex-weight line per vertex. Lines starting
with ``%`` are comments; blank lines are ignored. A net must have at least one pin.

METIS (``.graph``): header ``n m [fmt [ncon]]`` with ``fmt`` three digits (vertex sizes, vertex
weights, edge weights), then one line per vertex: ``[size] [weight] neighbour [edge weight] ...``
(1-based). A blank line is a vertex without neighbours. Only ncon = 1 is supported; vertex sizes
are read and ignored.

Every reader takes gzip-compressed files transparently (recognised by their first bytes, whatever
the name). Limits that keep a corrupt file from exhausting memory or overflowing: at most
``2**31 - 1`` vertices, and no more than :func:`max_vertices` of the file's size (a header that
announces a billion vertices in a 15-byte file is an error, not an allocation); vertex weights,
and net weights times net sizes (edge weights for graphs), must sum to at most ``2**63 - 1``, so
that block weights and every cut metric stay exact; block ids must fit 32 bits.

Every writer goes through :func:`atomic_write`: the file is written next to its target, synced
and renamed over it, so that a crash or a full disk leaves the old file or the new one, never a
part of one; a failure raises :class:`~igpart.errors.OutputError` naming the file.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import stat
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .errors import IgpartError, InputError, OutputError
from .hypergraph import Graph, Hypergraph, describe_asymmetry, find_asymmetry
from .hypergraph import sum_exceeds_int64 as _sum_exceeds_int64
from .kernels import _cpu

HGR_FORMATS = (0, 1, 10, 11)
INT32_MAX = 2**31 - 1
#: Vertices a file may announce beyond what it holds: a base allowance plus a number per byte.
HEADER_BASE_VERTICES = 1 << 20
HEADER_VERTICES_PER_BYTE = 8
GZIP_MAGIC = b"\x1f\x8b"
_GZIP_CHUNK = 1 << 16


def max_vertices(size: int) -> int:
    """The most vertices a file of ``size`` bytes (uncompressed) may announce in its header.

    An hMETIS file may list vertices in no net, so its header alone sets the vertex count; this
    bound (``2**20 + 8`` per byte, at most ``2**31 - 1``) lets a corrupt header fail at once
    instead of allocating gigabytes."""
    return min(INT32_MAX, HEADER_BASE_VERTICES + HEADER_VERTICES_PER_BYTE * int(size))


# --------------------------------------------------------------------------- reading helpers
def _gunzip(data: bytes, file: str) -> bytes:
    """The decompressed contents of gzip ``data`` (several members allowed)."""
    out: list[bytes] = []
    lines = 0
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            for start in range(0, len(data), _GZIP_CHUNK):
                piece = d.decompress(data[start : start + _GZIP_CHUNK])
                out.append(piece)
                lines += piece.count(b"\n")
                if d.eof:
                    break
            piece = d.flush()
        except zlib.error as exc:
            raise InputError(f"corrupt gzip data ({exc})", file=file, line=lines + 1) from None
        out.append(piece)
        if not d.eof:
            raise InputError("truncated gzip data", file=file, line=lines + 1)
        data = d.unused_data
        if data and not data.startswith(GZIP_MAGIC):
            # trailing zero padding (as tar and some tools write) ends the stream
            if data.strip(b"\0"):
                raise InputError("data after the gzip stream", file=file, line=lines + 1)
            break
    return b"".join(out)


def read_input(path) -> bytes:
    """The contents of the file at ``path``, decompressed when it is gzip data.

    An unreadable file or corrupt compressed data raises :class:`InputError` naming the file."""
    file = os.fspath(path)
    try:
        mode = os.stat(file).st_mode
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=file) from None
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):  # /dev/zero would be read without end
        kind = "character" if stat.S_ISCHR(mode) else "block"
        raise InputError(f"not a regular file (a {kind} device)", file=file)
    try:
        with open(file, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=file) from None
    except MemoryError:
        raise InputError("file too large to read into memory", file=file) from None
    if data.startswith(GZIP_MAGIC):
        data = _gunzip(data, file)
    return data


#: Plain files of at least this many bytes are tokenized from a read-only memory map of the file
#: (:func:`_mapped_input`) instead of a copy of its contents
MAP_MIN_BYTES = 1 << 20


@contextlib.contextmanager
def _mapped_input(path):
    """The contents of the file at ``path`` as a buffer, for the span of the ``with``: a
    read-only memory map of a plain file of at least :data:`MAP_MIN_BYTES` (the tokenizer reads
    the page cache directly, without the copy that reading makes, which took 20-60 ms of the
    read of a 64-84 MB hMETIS file on the H200 machine), else :func:`read_input`'s bytes (small
    files, gzip data, a file the system does not map)."""
    file = os.fspath(path)
    mapped = None
    try:
        st = os.stat(file)
        if stat.S_ISREG(st.st_mode) and st.st_size >= MAP_MIN_BYTES:
            with open(file, "rb") as f:
                mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        mapped = None  # read_input then reports what is wrong with the file
    if mapped is None or mapped[:2] == GZIP_MAGIC:
        if mapped is not None:
            mapped.close()
        yield read_input(file)
        return
    try:
        yield mapped
    finally:
        mapped.close()


class _Lines:
    """Tokenized file: ``values`` with per-line pointers and 1-based file line numbers."""

    def __init__(self, path, data: bytes | None = None):
        self.file = os.fspath(path)
        if data is None:
            with _mapped_input(path) as buf:
                self._tokenize(buf)
        else:
            if data.startswith(GZIP_MAGIC):
                data = _gunzip(data, self.file)
            self._tokenize(data)
        # tokens per line and the non-blank lines, on the threads
        self.counts, self.nonblank = _cpu.row_sizes(self.ptr)
        self.last_line = int(self.line_no[-1]) if self.line_no.size else 1

    def _tokenize(self, data) -> None:
        self.size = len(data)
        try:
            self.values, self.ptr, self.line_no = _cpu.tokenize(data)
        except _cpu.ParseError as exc:
            line, msg = exc.args
            raise InputError(msg, file=self.file, line=int(line)) from None

    def error(self, msg: str, line_index: int | None = None) -> InputError:
        line = self.last_line if line_index is None else int(self.line_no[line_index])
        return InputError(msg, file=self.file, line=line)

    def line_of_value(self, value_index: int) -> int:
        """Index (into the line arrays) of the line holding values[value_index]."""
        return int(np.searchsorted(self.ptr, value_index, side="right") - 1)


def _check_vertex_count(L: _Lines, n: int, h: int) -> None:
    """Rejects a header that announces more vertices than the file can describe (before any
    array of that size is allocated)."""
    if n > INT32_MAX:
        raise L.error(f"{n} vertices: at most {INT32_MAX} are supported", h)
    if n > max_vertices(L.size):
        raise L.error(
            f"header announces {n} vertices, implausibly many for a file of {L.size} bytes "
            f"(at most {max_vertices(L.size)}: is the header corrupt?)",
            h,
        )


def _check_weight_total(L: _Lines, w, what: str, line_of, mult=None) -> None:
    """Rejects weights whose total (weighted by ``mult``) does not fit int64, at the line where
    the running total passes it (``line_of(i)``: the line index of ``w[i]``)."""
    if w is None or w.size == 0:
        return
    at = _sum_exceeds_int64(w, mult)
    if at is not None:
        raise L.error(f"{what} sum to more than 2**63 - 1 (totals would overflow)", line_of(at))


def _header(lines: _Lines, nonblank: np.ndarray, what: str, min_tokens: int, max_tokens: int):
    if nonblank.size == 0:
        raise InputError(f"empty file: no {what} header", file=lines.file, line=1)
    h = int(nonblank[0])
    c = int(lines.counts[h])
    if not (min_tokens <= c <= max_tokens):
        raise lines.error(
            f"{what} header must have {min_tokens} to {max_tokens} integers, got {c}", h
        )
    return h, [int(x) for x in lines.values[lines.ptr[h] : lines.ptr[h + 1]]]


# --------------------------------------------------------------------------- writing helpers
def _umask() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _output_error(file: str, exc: OSError) -> OutputError:
    return OutputError(exc.strerror or str(exc), file=file)


@contextlib.contextmanager
def atomic_writer(path, mode: str = "wb", **open_args) -> Iterator:
    """A file object whose contents replace the file at ``path`` only once all is written.

    It writes a temporary file in the target's directory; on leaving the block without an error
    the file is flushed, synced to disk and renamed over the target (``os.replace``, atomic), so
    that a reader or a crash sees the old file or the new one, never a part. On any error the
    temporary file is removed and the target is left as it was; an ``OSError`` becomes an
    :class:`OutputError` naming ``path`` (``out.part: No space left on device``). The new file
    keeps the permissions of the one it replaces (else the umask's). A symbolic link is written
    through; a target that exists but is not a regular file (``/dev/stdout``, a pipe) is written
    directly. ``mode`` is ``"wb"`` or ``"w"``; ``open_args`` go to :func:`open`.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer mode must be 'w' or 'wb', not {mode!r}")
    file = os.fspath(path)
    real = os.path.realpath(file)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _output_error(file, exc) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            f = open(file, mode, **open_args)  # noqa: SIM115 - closed below
        except OSError as exc:
            raise _output_error(file, exc) from None
        try:
            with f:
                yield f
        except OSError as exc:
            raise _output_error(file, exc) from None
        return
    folder = os.path.dirname(real) or "."
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(real)}.", suffix=".tmp", dir=folder
        )
    except OSError as exc:
        raise _output_error(file, exc) from None
    try:
        with os.fdopen(fd, mode, **open_args) as f:
            yield f
            f.flush()
            os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())
            os.fsync(fd)
        os.replace(tmp, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise _output_error(file, exc) from None
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write(path, data: bytes | str | Iterable[bytes]) -> None:
    """Writes ``data`` (bytes, text as UTF-8, or an iterable of byte chunks) to ``path`` with
    :func:`atomic_writer`: the old file stays until the new one is complete."""
    with atomic_writer(path) as f:
        if isinstance(data, str):
            f.write(data.encode("utf-8"))
        elif isinstance(data, (bytes, bytearray, memoryview)):
            f.write(data)
        else:
            for chunk in data:
                f.write(chunk)


# --------------------------------------------------------------------------- hMETIS
def read_hgr(path, data: bytes | None = None) -> Hypergraph:
    """Reads an hMETIS hypergraph file (fmt 0, 1, 10, 11)."""
    L = _Lines(path, data)
    nonblank = L.nonblank
    h, head = _header(L, nonblank, "hMETIS", 2, 3)
    m, n = head[0], head[1]
    fmt = head[2] if len(head) > 2 else 0
    if m < 0 or n < 0:
        raise L.error(f"negative size in header ({m} nets, {n} vertices)", h)
    if fmt not in HGR_FORMATS:
        raise L.error(f"unsupported hMETIS fmt {fmt} (expected one of 0, 1, 10, 11)", h)
    _check_vertex_count(L, n, h)
    net_w, vtx_w = fmt in (1, 11), fmt in (10, 11)
    body = nonblank[1:]
    if body.size < m:
        raise L.error(f"file ends after {body.size} of {m} nets announced in the header")
    net_lines = body[:m]
    # the nets' arrays in one parallel C++ pass, with the first defect of each kind
    eptr, eind, ewgt, bad_net, bad_pin, bad_weight = _cpu.hgr_nets(L.values, L.ptr, net_lines, n,
                                                                   net_w)
    if bad_net >= 0:
        raise L.error(f"net {bad_net + 1} has no pins", int(net_lines[bad_net]))
    if bad_pin >= 0:
        net = int(np.searchsorted(eptr, bad_pin, side="right") - 1)
        value = int(L.values[L.ptr[net_lines[net]] + int(net_w) + bad_pin - int(eptr[net])])
        raise L.error(f"vertex id {value} out of range [1, {n}]", int(net_lines[net]))
    if bad_weight >= 0:
        raise L.error(f"negative net weight {int(ewgt[bad_weight])}", int(net_lines[bad_weight]))
    if ewgt is not None:
        _check_weight_total(L, ewgt, "net weights times net sizes", net_lines.__getitem__,
                            np.diff(eptr))
    rest = body[m:]
    vwgt = None
    if vtx_w:
        if rest.size < n:
            raise L.error(f"file ends after {rest.size} of {n} vertex weights (fmt {fmt})")
        wl = rest[:n]
        wrong = np.flatnonzero(L.counts[wl] != 1)
        if wrong.size:
            raise L.error("a vertex-weight line must hold exactly one integer", int(wl[wrong[0]]))
        vwgt = L.values[L.ptr[wl]]
        if vwgt.size and vwgt.min() < 0:
            i = int(np.flatnonzero(vwgt < 0)[0])
            raise L.error(f"negative weight {int(vwgt[i])} of vertex {i + 1}", int(wl[i]))
        _check_weight_total(L, vwgt, "vertex weights", wl.__getitem__)
        rest = rest[n:]
    if rest.size:
        raise L.error(
            "unexpected data after the last "
            + ("vertex weight" if vtx_w else "net")
            + f" (header announces {m} nets, fmt {fmt})",
            int(rest[0]),
        )
    return Hypergraph(eptr, eind, n, vwgt, ewgt)


def hgr_bytes(h: Hypergraph, fmt: int | None = None) -> bytes:
    """The hMETIS text of ``h``. ``fmt`` defaults to the smallest one that keeps the weights."""
    if fmt is None:
        fmt = (1 if np.any(h.ewgt != 1) else 0) + (10 if np.any(h.vwgt != 1) else 0)
    if fmt not in HGR_FORMATS:
        raise IgpartError(f"unsupported hMETIS fmt {fmt} (expected one of 0, 1, 10, 11)")
    if h.m and h.net_sizes.min() < 1:
        raise IgpartError(
            "the hMETIS format cannot hold nets without pins; use drop_small_nets(1) first"
        )
    head = f"{h.m} {h.n}" + (f" {fmt}" if fmt else "") + "\n"
    pins = h.eind.astype(np.int64) + 1
    if fmt in (1, 11):
        ptr = h.eptr + np.arange(h.m + 1, dtype=np.int64)
        values = np.empty(pins.size + h.m, dtype=np.int64)
        is_weight = np.zeros(values.size, dtype=bool)
        is_weight[ptr[:-1]] = True
        values[is_weight] = h.ewgt
        values[~is_weight] = pins
    else:
        ptr, values = h.eptr, pins
    parts = [head.encode(), _cpu.format_lines(ptr, values)]
    if fmt in (10, 11):
        parts.append(_cpu.format_lines(np.arange(h.n + 1, dtype=np.int64), h.vwgt))
    return b"".join(parts)


def write_hgr(h: Hypergraph, path, fmt: int | None = None) -> None:
    """Writes ``h`` in hMETIS format (see :func:`hgr_bytes`)."""
    atomic_write(path, hgr_bytes(h, fmt))


# --------------------------------------------------------------------------- METIS
def read_graph(path, data: bytes | None = None) -> Graph:
    """Reads a METIS graph file (fmt 0, 1, 10, 11, 100, 101, 110, 111; ncon = 1)."""
    L = _Lines(path, data)
    nonblank = L.nonblank
    h, head = _header(L, nonblank, "METIS", 2, 4)
    n, m = head[0], head[1]
    fmt = head[2] if len(head) > 2 else 0
    ncon = head[3] if len(head) > 3 else 1
    if n < 0 or m < 0:
        raise L.error(f"negative size in header ({n} vertices, {m} edges)", h)
    digits = (fmt // 100, (fmt // 10) % 10, fmt % 10)
    if fmt < 0 or fmt >= 1000 or any(d > 1 for d in digits):
        raise L.error(f"unsupported METIS fmt {fmt} (three digits of 0/1)", h)
    has_size, has_vw, has_ew = (bool(d) for d in digits)
    if ncon != 1:
        raise L.error(f"multi-constraint graphs (ncon = {ncon}) are not supported", h)
    if n > INT32_MAX:
        raise L.error(f"{n} vertices: at most {INT32_MAX} are supported", h)
    vlines = np.arange(h + 1, min(h + 1 + n, L.counts.size))
    if vlines.size < n:
        raise L.error(f"file ends after {vlines.size} of {n} vertex lines")
    trailing = np.flatnonzero(L.counts[h + 1 + n :] > 0)
    if trailing.size:
        raise L.error(f"unexpected data after the {n} vertex lines", int(h + 1 + n + trailing[0]))
    counts = L.counts[vlines]
    lead = int(has_size) + int(has_vw)
    short = np.flatnonzero(counts < lead)
    if short.size:
        raise L.error("vertex line misses its size/weight", int(vlines[short[0]]))
    step = 2 if has_ew else 1
    odd = np.flatnonzero((counts - lead) % step)
    if odd.size:
        raise L.error(
            "neighbour without an edge weight (fmt says edge weights)", int(vlines[odd[0]])
        )
    starts = L.ptr[vlines] if n else np.zeros(0, dtype=np.int64)
    vwgt = L.values[starts + int(has_size)] if has_vw else None
    if vwgt is not None and vwgt.size and vwgt.min() < 0:
        i = int(np.flatnonzero(vwgt < 0)[0])
        raise L.error(f"negative weight {int(vwgt[i])} of vertex {i + 1}", int(vlines[i]))
    _check_weight_total(L, vwgt, "vertex weights", vlines.__getitem__)
    degrees = (counts - lead) // step
    xadj = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=xadj[1:])
    if n:
        # the vertex lines' values: base[offset : offset + length]
        base, offset = L.values, int(L.ptr[vlines[0]])
        length = int(L.ptr[vlines[-1] + 1]) - offset
        if lead:  # each line's size / weight dropped (lead <= 2 values at its start)
            keep = np.ones(length, dtype=bool)
            for i in range(lead):
                keep[starts - starts[0] + i] = False
            base, offset = base[offset : offset + length][keep], 0
            length = base.size
        # every line now holds neighbours (and weights: an even count), back to back: the
        # neighbours as 0-based int32 ids and the first one out of range, in one parallel pass
        adj0, bad = _cpu.one_based_ids(base, offset, -(-length // step), step, n)
        adjwgt = (np.ascontiguousarray(base[offset + 1 : offset + length : 2]) if has_ew
                  else None)
    else:
        adj0, bad = np.zeros(0, dtype=np.int32), -1
        adjwgt = np.zeros(0, dtype=np.int64) if has_ew else None

    def arc_line(b: int) -> int:  # the file line (index) of arc b
        return int(vlines[np.searchsorted(xadj, b, side="right") - 1])

    if bad >= 0:
        value = int(base[offset + bad * step])
        raise L.error(f"neighbour id {value} out of range [1, {n}]", arc_line(bad))
    if adjwgt is not None and adjwgt.size and adjwgt.min() < 0:
        b = int(np.flatnonzero(adjwgt < 0)[0])
        raise L.error(f"negative edge weight {int(adjwgt[b])}", arc_line(b))
    # both directions of every edge: the edge cut is summed that way before halving
    _check_weight_total(L, adjwgt, "edge weights (each edge counted from both ends)", arc_line)
    wts = adjwgt if adjwgt is not None else _cpu.filled(adj0.size, 1)  # pages on the threads
    defect = find_asymmetry(xadj, adj0, wts, n)
    if defect is not None:
        raise L.error(describe_asymmetry(defect, base=1), int(vlines[defect[1]]))
    if adj0.size != 2 * m:
        raise L.error(
            f"header announces {m} edges but the adjacency lists hold {adj0.size} entries "
            f"(expected {2 * m})",
            h,
        )
    vw = vwgt if vwgt is not None else _cpu.filled(n, 1)
    g = Graph(xadj, adj0, n, wts, vw, check=False)
    # weights the file left out are ones (Graph.unit_edge_weights without a read)
    if adjwgt is None:
        g.unit_edge_weights = True
    if vwgt is None:
        g.unit_vertex_weights = True
    return g


def graph_bytes(g: Graph, fmt: int | None = None) -> bytes:
    """The METIS text of ``g`` (fmt 0, 1, 10 or 11; default keeps the weights)."""
    if fmt is None:
        fmt = (1 if np.any(g.adjwgt != 1) else 0) + (10 if np.any(g.vwgt != 1) else 0)
    if fmt not in (0, 1, 10, 11):
        raise IgpartError(f"unsupported METIS fmt for writing {fmt} (0, 1, 10 or 11)")
    has_vw, has_ew = fmt >= 10, fmt % 10 == 1
    head = f"{g.n} {g.num_edges}" + (f" {fmt:03d}" if fmt else "") + "\n"
    per = 2 if has_ew else 1
    lens = g.degrees * per + int(has_vw)
    ptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    values = np.empty(int(ptr[-1]), dtype=np.int64)
    pos = np.arange(values.size, dtype=np.int64) - np.repeat(ptr[:-1], lens)
    if has_vw:
        values[ptr[:-1][lens > 0]] = g.vwgt[lens > 0]
    body = pos >= int(has_vw)
    kind = (pos - int(has_vw)) % per
    values[body & (kind == 0)] = g.adjncy.astype(np.int64) + 1
    if has_ew:
        values[body & (kind == 1)] = g.adjwgt
    return head.encode() + _cpu.format_lines(ptr, values)


def write_graph(g: Graph, path, fmt: int | None = None) -> None:
    """Writes ``g`` in METIS format (see :func:`graph_bytes`)."""
    atomic_write(path, graph_bytes(g, fmt))


# --------------------------------------------------------------------------- partitions
def _one_value_per_line(path, k, one: str, count: str, n: int | None):
    """(lines, indices of the non-blank lines, their values) of a file of one integer per
    line; ``one``: the error for a line with another number of values, ``count``: what the file
    must hold ``n`` of (when given)."""
    if k is not None and (isinstance(k, bool) or int(k) != k or k < 1):
        raise InputError(f"k must be a positive integer, got {k!r}")
    L = _Lines(path)
    nonblank = L.nonblank
    wrong = np.flatnonzero(L.counts[nonblank] != 1)
    if wrong.size:
        raise L.error(one, int(nonblank[wrong[0]]))
    values = L.values[L.ptr[nonblank]]
    if n is not None and values.size != n:
        raise InputError(f"holds {values.size} {count}, expected {n} (one per vertex)",
                         file=L.file)
    return L, nonblank, values


def read_partition(path, n: int | None = None, k: int | None = None) -> np.ndarray:
    """Reads a partition file: one block id per line (hMETIS / METIS ``.part.K`` files)."""
    L, nonblank, parts = _one_value_per_line(
        path, k, "a partition line must hold exactly one block id", "block ids", n)
    neg = np.flatnonzero(parts < 0)
    if neg.size:
        raise L.error(f"negative block id {int(parts[neg[0]])}", int(nonblank[neg[0]]))
    big = np.flatnonzero(parts > INT32_MAX)
    if big.size:
        raise L.error(
            f"block id {int(parts[big[0]])} does not fit 32 bits (at most {INT32_MAX})",
            int(nonblank[big[0]]),
        )
    if k is not None:
        big = np.flatnonzero(parts >= k)
        if big.size:
            raise L.error(
                f"block id {int(parts[big[0]])} is not below k = {k}", int(nonblank[big[0]])
            )
    return parts.astype(np.int32)


def read_fixed(path, n: int | None = None, k: int | None = None) -> np.ndarray:
    """Reads a fixed-vertex file (KaHyPar's fix file): one line per vertex holding its block
    id, or ``-1`` when the vertex is free. Returns int32 per vertex. Errors name the file and
    the line: a line without exactly one integer, an id below -1, an id not below ``k`` (when
    given), fewer or more lines than ``n`` vertices (when given)."""
    L, nonblank, fixed = _one_value_per_line(
        path, k, "a fixed-vertex line must hold exactly one block id (-1: free)",
        "fixed-vertex lines (a block id, or -1 when free)", n)
    low = np.flatnonzero(fixed < -1)
    if low.size:
        raise L.error(f"block id {int(fixed[low[0]])} is below -1 (-1: a free vertex)",
                      int(nonblank[low[0]]))
    big = np.flatnonzero(fixed > (INT32_MAX if k is None else int(k) - 1))
    if big.size:
        limit = f"is not below k = {k}" if k is not None else "does not fit 32 bits"
        raise L.error(f"block id {int(fixed[big[0]])} {limit}", int(nonblank[big[0]]))
    return fixed.astype(np.int32)


def read_block_weights(path, k: int | None = None) -> np.ndarray:
    """Reads per-block maximum weights (``max_block_weights``): one non-negative integer per
    line, block 0 first; with ``k``, exactly ``k`` of them. Errors name the file and line."""
    L = _Lines(path)
    nonblank = L.nonblank
    wrong = np.flatnonzero(L.counts[nonblank] != 1)
    if wrong.size:
        raise L.error("a block weight line must hold exactly one weight", int(nonblank[wrong[0]]))
    weights = L.values[L.ptr[nonblank]].astype(np.int64)
    neg = np.flatnonzero(weights < 0)
    if neg.size:
        raise L.error(f"negative block weight {int(weights[neg[0]])}", int(nonblank[neg[0]]))
    if k is not None and weights.size != k:
        raise InputError(f"holds {weights.size} block weights, expected k = {k}", file=L.file)
    return weights


def parse_block_weights(text: str, k: int, what: str = "block weights") -> np.ndarray:
    """Per-block maximum weights given as text: a file of one weight per line
    (:func:`read_block_weights`) or ``w1,w2,...``; ``k`` non-negative integers (InputError
    naming the file and line, or ``what`` and the entry, otherwise)."""
    if os.path.exists(text) or "," not in text and not text.strip().lstrip("+").isdigit():
        return read_block_weights(text, k)
    fields = [f.strip() for f in text.split(",")]
    bad = next((f for f in fields if not re.fullmatch(r"\+?\d{1,18}", f)), None)
    if bad is not None:
        raise InputError(f"{what}: '{bad[:40]}' is not a non-negative integer")
    if len(fields) != k:
        raise InputError(f"{what}: {len(fields)} weights, expected k = {k}")
    return np.array([int(f) for f in fields], dtype=np.int64)


def write_partition(parts, path) -> None:
    """Writes one block id per line."""
    p = np.asarray(parts, dtype=np.int64)
    atomic_write(path, _cpu.format_lines(np.arange(p.size + 1, dtype=np.int64), p))


# --------------------------------------------------------------------------- dispatch
GRAPH_SUFFIXES = (".graph", ".metis")
HGR_SUFFIXES = (".hgr", ".hmetis")


def detect_format(path, fmt: str | None = None) -> str:
    """``hgr``, ``graph`` or ``verilog`` from an explicit name or the file suffix (a ``.gz``
    suffix is looked through: ``ibm01.hgr.gz`` is ``hgr``)."""
    if fmt:
        if fmt not in ("hgr", "graph", "verilog"):
            raise InputError(f"unknown input format '{fmt}' (hgr, graph or verilog)")
        return fmt
    name = Path(path)
    if name.suffix.lower() == ".gz":
        name = name.with_suffix("")
    suffix = name.suffix.lower()
    if suffix in HGR_SUFFIXES:
        return "hgr"
    if suffix in GRAPH_SUFFIXES:
        return "graph"
    if suffix in (".v", ".vg", ".verilog"):
        return "verilog"
    raise InputError(
        f"cannot tell the format from suffix '{suffix}'; name it with --format hgr|graph|verilog",
        file=os.fspath(path),
    )


def read(path, fmt: str | None = None) -> Hypergraph | Graph:
    """Reads a hypergraph (``.hgr``) or a graph (``.graph``), by suffix unless ``fmt`` is given."""
    kind = detect_format(path, fmt)
    if kind == "hgr":
        return read_hgr(path)
    if kind == "graph":
        return read_graph(path)
    raise InputError("Verilog netlists are read with igpart.netlist", file=os.fspath(path))
