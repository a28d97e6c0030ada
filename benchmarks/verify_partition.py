"""An independent checker of k-way hypergraph and graph partitions.

Reads the hMETIS ``.hgr`` file or the METIS ``.graph`` file (by suffix) and the partition file
(one block id per line) with its own numpy parser, checks that there is one block id per vertex
and every id lies in ``[0, k)``, that every block weighs at most
``floor((1 + eps) * ceil(total / k))`` (the KaHyPar / Mt-KaHyPar rule, computed in exact decimal
arithmetic), and recomputes the cut (sum of the weights of nets that span more than one block)
and km1 (sum of ``w_e * (lambda_e - 1)``); for a graph both are the edge cut (the weight of the
edges whose ends lie in different blocks, each edge counted once). A graph file must be
symmetric (every edge listed at both ends with the same weight) and free of self loops.

It imports nothing from igpart on purpose: the benchmark suite (``benchmarks/suite.py``) checks
every partition any tool writes with it, so a bug in igpart's reader or metric code cannot hide
itself.

    python benchmarks/verify_partition.py ibm01.hgr ibm01.part.8 -k 8 [-e 0.03] [--cut N]
    python benchmarks/verify_partition.py grid.graph grid.part.2 -k 2
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

_COMMENT = re.compile(rb"(?m)^[ \t]*%[^\n]*")


class CheckError(ValueError):
    """A malformed input or partition file (the message names the file and line)."""


@dataclass
class Hgr:
    """A hypergraph as read from an ``.hgr`` file: ``pins`` 0-based, nets ``eptr[e]:eptr[e+1]``."""

    n: int
    m: int
    eptr: np.ndarray
    pins: np.ndarray
    vwgt: np.ndarray
    ewgt: np.ndarray


@dataclass
class MetisGraph:
    """A graph as read from a METIS ``.graph`` file: vertex ``u``'s neighbours (0-based) are
    ``adjncy[xadj[u]:xadj[u+1]]``, every edge listed at both ends; ``m`` edges."""

    n: int
    m: int
    xadj: np.ndarray
    adjncy: np.ndarray
    adjwgt: np.ndarray
    vwgt: np.ndarray


def _scan(path: str | Path) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """Integer values of a text file, the 0-based line of every value, the number of lines and
    the 0-based numbers of the ``%`` comment lines."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CheckError(f"{path}: {exc.strerror or exc}") from None
    buf = np.frombuffer(data, dtype=np.uint8)
    newline = np.flatnonzero(buf == 10)
    n_lines = newline.size + int(bool(data) and data[-1:] != b"\n")
    comments = np.zeros(0, dtype=np.int64)
    if b"%" in data:
        solid_pos = np.flatnonzero(buf > 32)
        solid_line = np.searchsorted(newline, solid_pos)
        lead = np.flatnonzero(np.diff(solid_line, prepend=-1))  # first solid byte of a line
        comments = solid_line[lead[buf[solid_pos[lead]] == 37]]  # ... is a '%'
        data = _COMMENT.sub(b"", data)  # keeps the newlines, so line numbers stay right
        buf = np.frombuffer(data, dtype=np.uint8)
        newline = np.flatnonzero(buf == 10)
    solid = buf > 32  # ASCII whitespace is <= 32
    ok = (buf >= 48) & (buf <= 57) | (buf == 45)  # digits and '-'
    bad = np.flatnonzero(solid & ~ok)
    if bad.size:
        line = int(np.searchsorted(newline, bad[0])) + 1
        raise CheckError(f"{path}:{line}: not an integer (byte {chr(buf[bad[0]])!r})")
    start = solid.copy()
    start[1:] &= ~solid[:-1]
    tok_pos = np.flatnonzero(start)
    tok_line = np.searchsorted(newline, tok_pos)  # 0-based line of every value
    values = np.fromstring(data.decode("ascii"), dtype=np.int64, sep=" ")
    if values.size != tok_pos.size:
        line = int(tok_line[min(values.size, tok_pos.size - 1)]) + 1
        raise CheckError(f"{path}:{line}: not an integer")
    return values, tok_line, n_lines, comments


def _tokens(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer values of a text file and, per non-blank line, its 1-based line number and its
    number of values (``%`` comment lines count as blank)."""
    values, tok_line, _, _ = _scan(path)
    first = np.flatnonzero(np.diff(tok_line, prepend=-1))  # tok_line does not decrease
    counts = np.diff(first, append=tok_line.size)
    return values, tok_line[first] + 1, counts


def read_hgr(path: str | Path) -> Hgr:
    """Parses an hMETIS hypergraph file (fmt 0, 1, 10 or 11; ``%`` comment lines allowed)."""
    values, lines, counts = _tokens(path)
    if lines.size == 0:
        raise CheckError(f"{path}: empty file")
    if not 2 <= counts[0] <= 3:
        raise CheckError(f"{path}:{lines[0]}: the header must hold 2 or 3 integers")
    m, n = int(values[0]), int(values[1])
    fmt = int(values[2]) if counts[0] == 3 else 0
    if fmt not in (0, 1, 10, 11) or m < 0 or n < 0:
        raise CheckError(f"{path}:{lines[0]}: bad header {m} {n} {fmt}")
    net_w, vtx_w = fmt in (1, 11), fmt in (10, 11)
    expect = 1 + m + (n if vtx_w else 0)
    if lines.size != expect:
        raise CheckError(f"{path}: {lines.size - 1} non-blank lines after the header, "
                         f"expected {expect - 1} ({m} nets" + (f", {n} weights)" if vtx_w else ")"))
    ptr = np.zeros(lines.size + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    net_counts = counts[1:1 + m]
    starts = ptr[1:1 + m]
    sizes = net_counts - (1 if net_w else 0)
    if m and sizes.min() < 1:
        e = int(np.flatnonzero(sizes < 1)[0])
        raise CheckError(f"{path}:{lines[1 + e]}: net {e + 1} has no pins")
    span = values[ptr[1]:ptr[1 + m]]
    if net_w:
        is_w = np.zeros(span.size, dtype=bool)
        is_w[starts - ptr[1]] = True
        ewgt, pins = span[is_w], span[~is_w]
    else:
        ewgt, pins = np.ones(m, dtype=np.int64), span
    eptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(sizes, out=eptr[1:])
    out = np.flatnonzero((pins < 1) | (pins > n))
    if out.size:
        e = int(np.searchsorted(eptr, out[0], side="right")) - 1
        raise CheckError(f"{path}:{lines[1 + e]}: vertex id {pins[out[0]]} not in [1, {n}]")
    if vtx_w:
        wl = counts[1 + m:]
        if wl.size and wl.max() != 1:
            i = int(np.flatnonzero(wl != 1)[0])
            raise CheckError(f"{path}:{lines[1 + m + i]}: a vertex weight line holds one integer")
        vwgt = values[ptr[1 + m]:]
    else:
        vwgt = np.ones(n, dtype=np.int64)
    if (ewgt.size and ewgt.min() < 0) or (vwgt.size and vwgt.min() < 0):
        raise CheckError(f"{path}: negative weight")
    return Hgr(n, m, eptr, pins - 1, vwgt, ewgt)


def read_graph(path: str | Path) -> MetisGraph:
    """Parses a METIS graph file (fmt 0, 1, 10 or 11, one constraint; ``%`` comment lines
    allowed; a vertex without neighbours has a blank line). Checks neighbour ids, the edge count
    of the header, and that the graph is symmetric without self loops or repeated neighbours."""
    values, tok_line, n_lines, comments = _scan(path)
    content = np.setdiff1d(np.arange(n_lines), comments)  # lines that are not comments
    counts = np.bincount(tok_line, minlength=n_lines)[content]
    filled = np.flatnonzero(counts)
    if filled.size == 0:
        raise CheckError(f"{path}: empty file")
    h = int(filled[0])  # the header: the first line with values
    head_line = int(content[h]) + 1
    if not 2 <= counts[h] <= 4:
        raise CheckError(f"{path}:{head_line}: the header must hold 2 to 4 integers")
    n, m = int(values[0]), int(values[1])
    fmt = int(values[2]) if counts[h] >= 3 else 0
    ncon = int(values[3]) if counts[h] == 4 else 1
    if fmt not in (0, 1, 10, 11) or ncon != 1 or n < 0 or m < 0:
        raise CheckError(f"{path}:{head_line}: unsupported header {n} {m} {fmt:03d} {ncon} "
                         "(fmt 0, 1, 10 or 11 and one constraint)")
    has_vw, has_ew = fmt >= 10, fmt % 10 == 1
    rows = counts[h + 1:h + 1 + n]
    lines = content[h + 1:h + 1 + n] + 1  # 1-based line of every vertex
    if rows.size < n:
        raise CheckError(f"{path}: {rows.size} vertex lines after the header, expected {n}")
    extra = np.flatnonzero(counts[h + 1 + n:])
    if extra.size:
        raise CheckError(f"{path}:{content[h + 1 + n + extra[0]] + 1}: more than {n} vertex "
                         "lines")
    short = np.flatnonzero(rows < 1) if has_vw else np.zeros(0, dtype=np.int64)
    if short.size:
        raise CheckError(f"{path}:{lines[short[0]]}: no vertex weight")
    per = 2 if has_ew else 1
    odd = np.flatnonzero((rows - int(has_vw)) % per)
    if odd.size:
        raise CheckError(f"{path}:{lines[odd[0]]}: a neighbour without its edge weight")
    body = values[counts[h]:]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(rows, out=ptr[1:])
    pos = np.arange(body.size, dtype=np.int64) - np.repeat(ptr[:-1], rows)
    vwgt = body[ptr[:-1]] if has_vw else np.ones(n, dtype=np.int64)
    is_nbr = (pos >= int(has_vw)) & ((pos - int(has_vw)) % per == 0)
    adjncy = body[is_nbr] - 1
    adjwgt = body[np.flatnonzero(is_nbr) + 1] if has_ew else np.ones(adjncy.size, np.int64)
    deg = (rows - int(has_vw)) // per
    xadj = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=xadj[1:])
    src = np.repeat(np.arange(n, dtype=np.int64), deg)

    def fail(entry: int, what: str):
        raise CheckError(f"{path}:{lines[src[entry]]}: {what}")

    out = np.flatnonzero((adjncy < 0) | (adjncy >= n))
    if out.size:
        fail(out[0], f"vertex id {adjncy[out[0]] + 1} not in [1, {n}]")
    loops = np.flatnonzero(adjncy == src)
    if loops.size:
        fail(loops[0], f"self loop on vertex {src[loops[0]] + 1}")
    if (adjwgt.size and adjwgt.min() < 0) or (vwgt.size and vwgt.min() < 0):
        raise CheckError(f"{path}: negative weight")
    if adjncy.size != 2 * m:
        raise CheckError(f"{path}: {adjncy.size} neighbour entries, expected 2 * {m} (the "
                         "header's edge count)")
    fwd, rev = src * n + adjncy, adjncy * n + src
    order = None if np.all(fwd[1:] >= fwd[:-1]) else np.argsort(fwd, kind="stable")
    sfwd = fwd if order is None else fwd[order]
    twice = np.flatnonzero(sfwd[1:] == sfwd[:-1])
    if twice.size:
        e = twice[0] if order is None else order[twice[0]]
        fail(e, f"vertex {src[e] + 1} lists neighbour {adjncy[e] + 1} twice")
    back = np.argsort(rev, kind="stable")
    wf = adjwgt if order is None else adjwgt[order]
    missing = np.flatnonzero((sfwd != rev[back]) | (wf != adjwgt[back]))
    if missing.size:
        e = int(back[missing[0]])
        fail(e, f"edge {src[e] + 1}-{adjncy[e] + 1} (weight {adjwgt[e]}) is not listed at "
             f"vertex {adjncy[e] + 1} with the same weight")
    return MetisGraph(n, m, xadj, adjncy, adjwgt, vwgt)


def read_input(path: str | Path) -> Hgr | MetisGraph:
    """:func:`read_graph` for a ``.graph`` / ``.metis`` file, else :func:`read_hgr`."""
    if Path(path).suffix.lower() in (".graph", ".metis"):
        return read_graph(path)
    return read_hgr(path)


def read_parts(path: str | Path) -> np.ndarray:
    """Parses a partition file: one integer per non-blank line."""
    values, lines, counts = _tokens(path)
    if counts.size and counts.max() > 1:
        raise CheckError(f"{path}:{lines[int(np.argmax(counts > 1))]}: one block id per line")
    return values


def max_block_weight(total: int, k: int, epsilon: float) -> int:
    """``floor((1 + eps) * ceil(total / k))`` with ``eps`` taken as the decimal it prints as."""
    perfect = -(-int(total) // int(k))
    return math.floor((1 + Fraction(repr(float(epsilon)))) * perfect)


def _blocks_per_net(h: Hgr, parts: np.ndarray, k: int) -> np.ndarray:
    """lambda_e, the number of blocks each net's pins lie in (ids already in ``[0, k)``)."""
    sizes = np.diff(h.eptr)
    if k <= 64 and h.pins.size:  # a bit per block, OR-ed over each net's pins, counted
        bits = np.left_shift(np.uint64(1), parts[h.pins].astype(np.uint64))
        nonempty = sizes > 0
        lam = np.zeros(h.m, dtype=np.int64)
        lam[nonempty] = np.bitwise_count(
            np.bitwise_or.reduceat(bits, h.eptr[:-1][nonempty]))
        return lam
    net_of_pin = np.repeat(np.arange(h.m, dtype=np.int64), sizes)
    pairs = np.sort(net_of_pin * k + parts[h.pins])  # sort + compare: np.unique's hash
    first = np.ones(pairs.size, dtype=bool)          # path took 12 s on 8M pins, this 0.3 s
    np.not_equal(pairs[1:], pairs[:-1], out=first[1:])
    return np.bincount(pairs[first] // k, minlength=h.m)


def evaluate(h: Hgr | MetisGraph, parts: np.ndarray, k: int, epsilon: float) -> dict:
    """Checks ``parts`` against ``h``; returns the figures and the problems found (for a graph
    ``cut`` and ``km1`` are both the edge cut).

    ``valid`` is False when ids are missing, surplus or out of ``[0, k)`` (then no metric is
    computed) or when a block is overweight (``balanced`` False; the metrics are still given).
    """
    parts = np.asarray(parts, dtype=np.int64)
    out: dict = {"k": int(k), "epsilon": float(epsilon), "problems": []}
    if parts.size != h.n:
        out["problems"].append(f"{parts.size} block ids for {h.n} vertices")
    else:
        bad = np.flatnonzero((parts < 0) | (parts >= k))
        if bad.size:
            out["problems"].append(f"{bad.size} block ids outside [0, {k}), e.g. vertex "
                                   f"{int(bad[0])} in block {int(parts[bad[0]])}")
    if out["problems"]:
        out["valid"] = False
        return out
    weights = np.bincount(parts, weights=h.vwgt, minlength=k).astype(np.int64)
    total = int(h.vwgt.sum())
    bound = max_block_weight(total, k, epsilon)
    perfect = -(-total // k)
    if isinstance(h, MetisGraph):
        src = np.repeat(parts, np.diff(h.xadj))
        cut = km1 = int(h.adjwgt[src != parts[h.adjncy]].sum()) // 2  # both ends listed
    else:
        lam = _blocks_per_net(h, parts, k)
        cut = int(h.ewgt[lam > 1].sum())
        km1 = int((h.ewgt * np.maximum(lam - 1, 0)).sum())
    out.update(
        cut=cut,
        km1=km1,
        block_weights=[int(w) for w in weights],
        max_block_weight=int(bound),
        imbalance=float(weights.max() / perfect - 1.0) if perfect else 0.0,
        balanced=bool(weights.max(initial=0) <= bound),
    )
    if not out["balanced"]:
        b = int(np.argmax(weights))
        out["problems"].append(f"block {b} weighs {int(weights[b])} > {bound}")
    out["valid"] = not out["problems"]
    return out


def check_files(hgr: str | Path | Hgr | MetisGraph, part_file: str | Path, k: int,
                epsilon: float) -> dict:
    """:func:`evaluate` on a partition file; a malformed partition file is a problem reported
    in the result (a malformed ``.hgr`` or ``.graph`` raises :class:`CheckError`)."""
    h = hgr if isinstance(hgr, (Hgr, MetisGraph)) else read_input(hgr)
    try:
        parts = read_parts(part_file)
    except CheckError as exc:
        return {"k": int(k), "epsilon": float(epsilon), "valid": False, "problems": [str(exc)]}
    return evaluate(h, parts, k, epsilon)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hgr", metavar="input", help="the .hgr or .graph file (by suffix)")
    ap.add_argument("partition")
    ap.add_argument("-k", type=int, required=True)
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    ap.add_argument("--cut", type=int, help="the cut the partitioner reported: must match")
    ap.add_argument("--km1", type=int, help="the km1 the partitioner reported: must match")
    args = ap.parse_args(argv)
    if args.k < 1 or args.epsilon < 0:
        ap.error("k must be >= 1 and epsilon >= 0")
    try:
        r = check_files(args.hgr, args.partition, args.k, args.epsilon)
    except CheckError as exc:
        print(f"verify_partition: {exc}", file=sys.stderr)
        return 2
    for name in ("cut", "km1"):
        claimed = getattr(args, name)
        if claimed is not None and r.get(name) is not None and r[name] != claimed:
            r["problems"].append(f"{name} is {r[name]}, the partitioner reported {claimed}")
            r["valid"] = False
    print(json.dumps({key: v for key, v in r.items() if key != "block_weights"}))
    return 0 if r["valid"] else 1


if __name__ == "__main__":
    sys.exit(main())
