"""Formats: round trips, known facts of the ISPD98 files, malformed inputs with file and line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from igpart import Graph, Hypergraph, InputError, io

from .util import random_hypergraph


@pytest.fixture(params=["read", "mapped"])
def reading(request, monkeypatch):
    """Both ways a file reaches the tokenizer: a copy of its contents (small files) and a
    read-only memory map (files of at least ``io.MAP_MIN_BYTES``, lowered here to one byte)."""
    if request.param == "mapped":
        monkeypatch.setattr(io, "MAP_MIN_BYTES", 1)
    return request.param


# ----------------------------------------------------------------------------- ISPD98 facts
def test_ibm01_facts(ispd98):
    h = io.read_hgr(ispd98 / "ibm01.hgr")
    assert (h.n, h.m, h.num_pins) == (12752, 14111, 50566)
    assert h.total_weight == h.n and np.all(h.ewgt == 1)
    w = io.read_hgr(ispd98 / "ibm01.weight.hgr")
    assert (w.n, w.m, w.num_pins) == (12752, 14111, 50566)
    assert w.total_weight == 4230016
    assert np.array_equal(w.eptr, h.eptr) and np.array_equal(w.eind, h.eind)


def test_ibm09_facts(ispd98):
    h = io.read_hgr(ispd98 / "ibm09.hgr")
    assert (h.n, h.m, h.num_pins) == (53395, 60902, 222088)


def test_ibm01_first_net_matches_text(ispd98):
    text = (ispd98 / "ibm01.hgr").read_text().splitlines()
    h = io.read_hgr(ispd98 / "ibm01.hgr")
    for e in (0, 1, 777, h.m - 1):
        assert list(h.net(e) + 1) == [int(t) for t in text[1 + e].split()]


@pytest.mark.parametrize("name", [f"ibm{i:02d}{w}" for i in range(1, 10) for w in ("", ".weight")])
def test_ispd98_round_trip(ispd98, tmp_path, name):
    h = io.read_hgr(ispd98 / f"{name}.hgr")
    out = tmp_path / "x.hgr"
    io.write_hgr(h, out)
    assert io.read_hgr(out).equals(h)


# ----------------------------------------------------------------------------- random round trips
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    m=st.integers(0, 60),
    weighted=st.booleans(),
    fmt=st.sampled_from([None, 0, 1, 10, 11]),
)
def test_hgr_round_trip_random(tmp_path_factory, seed, n, m, weighted, fmt):
    h = random_hypergraph(np.random.default_rng(seed), n, m, weighted=weighted)
    if fmt is not None and not weighted:
        pass
    elif fmt is not None and weighted and fmt != 11:
        fmt = 11  # weights must survive: only fmt 11 holds both
    path = tmp_path_factory.mktemp("hgr") / "r.hgr"
    io.write_hgr(h, path, fmt)
    back = io.read_hgr(path)
    assert back.equals(h)


def _random_graph(rng, n, p, weighted):
    iu = np.triu_indices(n, 1)
    keep = rng.random(iu[0].size) < p
    u, v = iu[0][keep], iu[1][keep]
    w = rng.integers(1, 9, size=u.size) if weighted else None
    vw = rng.integers(0, 9, size=n) if weighted else None
    return Graph.from_edges(u, v, w, n=n, vwgt=vw)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 30),
    p=st.floats(0, 0.6),
    weighted=st.booleans(),
)
def test_graph_round_trip_random(tmp_path_factory, seed, n, p, weighted):
    g = _random_graph(np.random.default_rng(seed), n, p, weighted)
    path = tmp_path_factory.mktemp("graph") / "r.graph"
    for fmt in (None, 11) if weighted else (None, 0, 1, 10, 11):
        io.write_graph(g, path, fmt)
        assert io.read_graph(path).equals(g)


def test_partition_round_trip(tmp_path):
    parts = np.random.default_rng(1).integers(0, 7, size=1000).astype(np.int32)
    io.write_partition(parts, tmp_path / "p")
    assert np.array_equal(io.read_partition(tmp_path / "p", n=1000, k=7), parts)


# ----------------------------------------------------------------------------- accepted variants
def test_hgr_comments_blank_lines_and_weights(tmp_path):
    f = tmp_path / "a.hgr"
    f.write_text("% a comment\n3 4 11\n\n2 1 2\n% between nets\n5 2 3 4\n1 4 1 4\n7\n8\n9\n10\n")
    h = io.read_hgr(f)
    assert h.n == 4 and h.m == 3
    assert list(h.ewgt) == [2, 5, 1] and list(h.vwgt) == [7, 8, 9, 10]
    assert list(h.net(2)) == [3, 0]  # repeated pin merged, first occurrence kept
    assert h.num_pins == 7


def test_graph_metis_formats(tmp_path):
    f = tmp_path / "g.graph"
    # 3 vertices path 1-2-3 with vertex sizes (ignored), weights and edge weights
    f.write_text("% c\n3 2 111\n1 5 2 7\n1 6 1 7 3 4\n1 8 2 4\n")
    g = io.read_graph(f)
    assert list(g.vwgt) == [5, 6, 8] and g.num_edges == 2
    assert list(g.adjwgt) == [7, 7, 4, 4]
    f.write_text("4 1\n2\n1\n\n\n")  # isolated vertices as blank lines
    g = io.read_graph(f)
    assert g.n == 4 and g.num_edges == 1 and list(g.degrees) == [1, 1, 0, 0]


# ----------------------------------------------------------------------------- malformed inputs
HGR_BAD = [
    ("", 1, "empty file"),
    ("2 3\n1 2\n", 2, "ends after 1 of 2 nets"),
    ("1 3\n1 4\n", 2, "out of range"),
    ("1 3\n1 0\n", 2, "out of range"),
    ("1 3\n1 x\n", 2, "non-integer token 'x'"),
    ("1 3\n1 2.5\n", 2, "non-integer"),
    ("1 3 7\n1 2\n", 1, "fmt 7"),
    ("1 3 1\n4\n", 2, "no pins"),
    ("2 3\n1 2\n2 3\n3 1\n", 4, "unexpected data"),
    ("1 3 10\n1 2\n1\n1\n", 4, "ends after 2 of 3 vertex weights"),
    ("1 3 10\n1 2\n1\n1 2\n1\n", 4, "exactly one integer"),
    ("1 3 10\n1 2\n1\n-1\n1\n", 4, "negative weight"),
    ("1 2 3 4\n1 2\n", 1, "header"),
    ("1 3 1\n-2 1 2\n", 2, "negative net weight"),
    ("99999999999999999999 3\n", 1, "out of range"),
]


@pytest.mark.parametrize("text,line,msg", HGR_BAD)
def test_hgr_malformed(tmp_path, text, line, msg, reading):
    f = tmp_path / "bad.hgr"
    f.write_text(text)
    with pytest.raises(InputError) as ei:
        io.read_hgr(f)
    assert ei.value.line == line
    assert ei.value.file == str(f)
    assert msg in str(ei.value)
    assert str(ei.value).startswith(f"{f}:{line}:")


def test_hgr_large_first_defect_and_weights(tmp_path):
    """Files of many nets (the reader's parallel pass): weights kept exactly, and the first
    defect in file order reported with its line and value when several nets are bad."""
    rng = np.random.default_rng(3)
    n, m = 5_000, 150_000
    sizes = rng.integers(1, 7, size=m)
    pins = rng.integers(1, n + 1, size=int(sizes.sum()))
    weights = rng.integers(0, 10**12, size=m)
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    lines = [f"{m} {n} 1"] + [
        " ".join(map(str, [weights[i], *pins[ptr[i]:ptr[i + 1]]])) for i in range(m)]
    f = tmp_path / "big.hgr"
    f.write_text("\n".join(lines) + "\n")
    h = io.read_hgr(f)
    assert h.m == m and list(h.ewgt[:5]) == list(weights[:5])
    assert int(h.ewgt.sum()) == int(weights.sum())
    assert np.array_equal(np.diff(h.eptr), [len(set(pins[ptr[i]:ptr[i + 1]])) for i in range(m)])
    bad = list(lines)
    bad[90_001] = f"{weights[90_000]} {n + 7} 1"
    bad[120_001] = f"{weights[120_000]} 0"
    bad[130_001] = "-5 1 2"
    f.write_text("\n".join(bad) + "\n")
    with pytest.raises(InputError, match=f"vertex id {n + 7} out of range") as ei:
        io.read_hgr(f)
    assert ei.value.line == 90_002
    bad[90_001] = lines[90_001]
    bad[120_001] = lines[120_001]
    f.write_text("\n".join(bad) + "\n")
    with pytest.raises(InputError, match="negative net weight -5") as ei:
        io.read_hgr(f)
    assert ei.value.line == 130_002
    bad[130_001] = lines[130_001]
    bad[140_001] = "7"
    f.write_text("\n".join(bad) + "\n")
    with pytest.raises(InputError, match="net 140001 has no pins") as ei:
        io.read_hgr(f)
    assert ei.value.line == 140_002


GRAPH_BAD = [
    ("3 2\n2\n1 3\n", 3, "ends after 2 of 3"),
    ("2 1\n2\n3\n", 3, "out of range"),
    ("2 1\n2\n2\n", 3, "self loop"),
    ("3 1\n2\n\n\n", 2, "does not list"),
    ("2 1 1\n2 3\n1 4\n", 2, "weight 3 but edge (2, 1) has weight 4"),
    ("2 1 1\n2\n1 1\n", 2, "without an edge weight"),
    ("2 2\n2\n1\n", 1, "announces 2 edges"),
    ("2 1 0 2\n2\n1\n", 1, "multi-constraint"),
    ("2 1 12\n2\n1\n", 1, "unsupported METIS fmt"),
    ("2 1\n2 2\n1 1\n", 2, "more than once"),
    ("2 1\n2\n1\n5\n", 4, "unexpected data"),
]


@pytest.mark.parametrize("text,line,msg", GRAPH_BAD)
def test_graph_malformed(tmp_path, text, line, msg, reading):
    f = tmp_path / "bad.graph"
    f.write_text(text)
    with pytest.raises(InputError) as ei:
        io.read_graph(f)
    assert ei.value.line == line, str(ei.value)
    assert msg in str(ei.value)


def test_partition_file_errors(tmp_path, reading):
    f = tmp_path / "p"
    f.write_text("0\n1\n2\n")
    with pytest.raises(InputError, match="expected 4"):
        io.read_partition(f, n=4)
    with pytest.raises(InputError, match="not below k = 2") as ei:
        io.read_partition(f, n=3, k=2)
    assert ei.value.line == 3
    f.write_text("0\n1 1\n")
    with pytest.raises(InputError, match="exactly one") as ei:
        io.read_partition(f)
    assert ei.value.line == 2


def test_missing_file_is_input_error(tmp_path, reading):
    with pytest.raises(InputError, match="cannot read file"):
        io.read_hgr(tmp_path / "nope.hgr")


def test_writer_refuses_empty_nets(tmp_path):
    from igpart import IgpartError

    h = Hypergraph.from_csr([0, 2, 2], [0, 1], n=2)
    with pytest.raises(IgpartError, match="without pins"):
        io.write_hgr(h, tmp_path / "e.hgr")
    io.write_hgr(h.drop_small_nets(1), tmp_path / "e.hgr")
    assert io.read_hgr(tmp_path / "e.hgr").m == 1


# ----------------------------------------------------------------------------- hostile inputs
def _input_error(path, reader=None, **kw) -> InputError:
    with pytest.raises(InputError) as ei:
        (reader or io.read)(path, **kw)
    assert ei.value.file == str(path)
    return ei.value


@pytest.mark.parametrize(
    "name,data,line",
    [
        ("b.hgr", b"1 3\n1 2 \xff\n", 2),
        ("b.graph", b"2 1\n2\n\xc3\n", 3),
        ("b.hgr", b"1 3\n1 2\n% caf\xe9 \xff\n3 \x00\n", 4),
    ],
)
def test_undecodable_bytes_are_input_errors(tmp_path, name, data, line):
    f = tmp_path / name
    f.write_bytes(data)
    e = _input_error(f)
    assert e.line == line and "non-integer token" in str(e)
    assert "\\x" in str(e)  # the byte is shown escaped
    p = tmp_path / "b.part"
    p.write_bytes(b"0\n1\xff\n")
    assert _input_error(p, io.read_partition).line == 2


def test_error_excerpt_never_cuts_a_character(tmp_path):
    f = tmp_path / "u.hgr"
    f.write_bytes(("1 3\n1 " + "é" * 50 + "\n").encode("utf-8"))
    e = _input_error(f)
    reason = e.reason
    token = reason[reason.index("'") + 1 : reason.rindex("'")]
    assert token == "é" * 20 + "..."  # 40 bytes of whole characters, then the mark of a cut
    str(e).encode("utf-8")  # printable as it is


def test_gzip_inputs_are_read_transparently(tmp_path, reading):
    h = random_hypergraph(np.random.default_rng(1), 50, 80, weighted=True)
    g = h.to_graph()
    parts = np.arange(h.n, dtype=np.int32) % 3
    plain = {"a.hgr": io.hgr_bytes(h), "a.graph": io.graph_bytes(g)}
    for name, data in plain.items():
        (tmp_path / (name + ".gz")).write_bytes(gzip.compress(data))
        # a gzip file is recognised by its contents, whatever its name
        (tmp_path / ("z" + name)).write_bytes(gzip.compress(data))
    io.write_partition(parts, tmp_path / "a.part")
    (tmp_path / "a.part.gz").write_bytes(gzip.compress((tmp_path / "a.part").read_bytes()))
    assert io.detect_format(tmp_path / "a.hgr.gz") == "hgr"
    for name in ("a.hgr.gz", "za.hgr"):
        r = io.read(tmp_path / name)
        assert np.array_equal(r.eind, h.eind) and np.array_equal(r.ewgt, h.ewgt)
    for name in ("a.graph.gz", "za.graph"):
        r = io.read(tmp_path / name)
        assert np.array_equal(r.adjncy, g.adjncy) and np.array_equal(r.adjwgt, g.adjwgt)
    assert np.array_equal(io.read_partition(tmp_path / "a.part.gz", n=h.n, k=3), parts)
    # two gzip members (as `cat a.gz b.gz` makes) are one file
    two = gzip.compress(b"2 3\n1 2\n") + gzip.compress(b"2 3\n")
    (tmp_path / "two.hgr.gz").write_bytes(two)
    assert io.read(tmp_path / "two.hgr.gz").m == 2


def test_corrupt_gzip_is_an_input_error(tmp_path, reading):
    data = gzip.compress(b"1 2\n1 2\n" * 1000)
    f = tmp_path / "c.hgr.gz"
    f.write_bytes(data[: len(data) // 2])
    assert "truncated gzip data" in str(_input_error(f))
    bad = bytearray(data)
    bad[len(bad) // 2] ^= 0xFF
    f.write_bytes(bytes(bad))
    e = _input_error(f)
    assert "gzip" in str(e) and e.line >= 1
    f.write_bytes(data + b"trailing garbage")
    assert "after the gzip stream" in str(_input_error(f))


def test_weight_totals_that_overflow_are_rejected(tmp_path, capsys):
    from igpart.cli import main

    f = tmp_path / "w.hgr"
    f.write_text("2 4 1\n4611686018427387904 1 2\n4611686018427387904 3 4\n")
    (tmp_path / "w.part").write_text("0\n1\n0\n1\n")
    e = _input_error(f)
    assert e.line == 2 and "overflow" in str(e)
    assert main(["evaluate", str(f), str(tmp_path / "w.part"), "-k", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"igpart: error: {f}:2: ") and err.count("\n") == 1
    # net weight times net size: 2**61 on a 4-pin net already passes 2**63 - 1 (km1 would wrap)
    f.write_text("1 4 1\n2305843009213693952 1 2 3 4\n")
    assert _input_error(f).line == 2
    f.write_text("1 4 1\n2305843009213693951 1 2 3 4\n")  # 2**63 - 4: fits
    assert io.read(f).ewgt[0] == 2**61 - 1
    # vertex weights: 2**62 + (2**62 - 1) = 2**63 - 1 fits, one more does not
    f.write_text("1 2 10\n1 2\n4611686018427387904\n4611686018427387903\n")
    assert io.read(f).total_weight == 2**63 - 1
    f.write_text("1 2 10\n1 2\n4611686018427387904\n4611686018427387904\n")
    e = _input_error(f)
    assert e.line == 4 and "vertex weights" in str(e)
    g = tmp_path / "w.graph"
    g.write_text("2 1 11\n4611686018427387904 2 1\n4611686018427387904 1 1\n")
    assert "vertex weights" in str(_input_error(g))
    # each edge counts from both ends: 2 * 2**62 does not fit
    g.write_text("2 1 1\n2 4611686018427387904\n1 4611686018427387904\n")
    assert "edge weights" in str(_input_error(g))
    g.write_text("2 1 1\n2 4611686018427387903\n1 4611686018427387903\n")
    assert io.read(g).adjwgt[0] == 2**62 - 1


def test_block_ids_must_fit_32_bits(tmp_path):
    f = tmp_path / "p"
    for big in (2**32, 2**63 - 1, 2**31):
        f.write_text(f"0\n{big}\n")
        e = _input_error(f, io.read_partition)
        assert e.line == 2 and str(big) in str(e)
    f.write_text(f"0\n{2**31 - 1}\n")
    assert io.read_partition(f).tolist() == [0, 2**31 - 1]


@pytest.mark.parametrize("n", [1_000_000_000, 2_147_483_647, 100_000_000, 2**40])
def test_lying_header_fails_before_allocating(tmp_path, n):
    f = tmp_path / "lie.hgr"
    f.write_text(f"1 {n}\n1\n")
    e = _input_error(f)
    assert e.line == 1 and str(n) in str(e)


def test_isolated_vertices_within_the_header_limit(tmp_path):
    f = tmp_path / "iso.hgr"
    f.write_text("1 100000\n1 2\n")
    assert io.read(f).n == 100000
    n = io.max_vertices(25)  # files of 25 bytes: the header padded to 20 characters
    assert n == io.HEADER_BASE_VERTICES + 8 * 25
    f.write_text(f"1 {n}".ljust(20) + "\n1 2\n")
    assert io.read(f).n == n
    f.write_text(f"1 {n + 1}".ljust(20) + "\n1 2\n")
    assert _input_error(f).line == 1
    g = tmp_path / "lie.graph"
    g.write_text("3000000000 0\n")
    assert _input_error(g).line == 1


def test_cli_reports_bad_inputs_in_one_line(tmp_path, capsys):
    from igpart.cli import main

    cases = {
        "b.hgr": (b"1 3\n1 2 \xff\n", ":2: non-integer token"),
        "lie.hgr": (b"1 1000000000\n1\n", ":1: header announces 1000000000 vertices"),
        "t.hgr.gz": (gzip.compress(b"1 2\n1 2\n" * 100)[:30], ":201: truncated gzip data"),
        "b.v": (b"module top(a);\ninput a;\nwire [2147483647:0] w;\nendmodule\n", ":3: 'w'"),
        "n.v": (b"module top(a);\ninput a;\nINV \\u\xff (.A(a));\nendmodule\n", ":3: escaped"),
    }
    for name, (data, expect) in cases.items():
        f = tmp_path / name
        f.write_bytes(data)
        assert main(["info", str(f)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"igpart: error: {f}{expect}") and err.count("\n") == 1, err


def _big_text(rng, lines: int) -> bytes:
    """Lines of integers with comments, blank lines, CRLF endings and odd spacing."""
    out = []
    for _ in range(lines):
        r = rng.random()
        if r < 0.02:
            out.append(b"% a comment 1 2 x")
        elif r < 0.04:
            out.append(b"   ")
        else:
            vals = rng.integers(-10**12, 10**12, rng.integers(1, 12))
            sep = b"\t " if r < 0.5 else b" "
            out.append(sep.join(str(v).encode() for v in vals) + (b"\r" if r > 0.9 else b""))
    return b"\n".join(out)  # no newline at the end


@pytest.mark.parametrize("threads", [2, 3])
def test_tokenizer_in_chunks_equals_one_pass(threads):
    """Buffers of several MB are tokenized in chunks of whole lines on the threads: the same
    values, line ends and line numbers as one pass on one thread, and the same first error."""
    from igpart.kernels import _cpu, omp_threads

    rng = np.random.default_rng(threads)
    data = _big_text(rng, 300_000)
    assert len(data) > 1 << 22  # above the size read in chunks
    with omp_threads(1):
        one = _cpu.tokenize(data)
    with omp_threads(threads):
        many = _cpu.tokenize(data)
    for a, b in zip(one, many):
        assert np.array_equal(a, b)
    # a bad token late in the file, and another after it: the first one is reported
    lines = data.split(b"\n")
    lines[250_000] += b" 12x"
    lines[280_000] += b" y"
    bad = b"\n".join(lines)
    for t in (1, threads):
        with omp_threads(t), pytest.raises(_cpu.ParseError) as exc:
            _cpu.tokenize(bad)
        assert exc.value.args[0] == 250_001 and "12x" in exc.value.args[1]


def test_repeated_pins_found_in_long_rows_of_many():
    """The repeat check over many rows (in parallel) finds a repeat in one long row only, and
    reports none where every row is distinct."""
    from igpart.kernels import _cpu

    rng = np.random.default_rng(5)
    n, m, size = 100_000, 80_000, 40
    ind = np.concatenate([rng.permutation(n)[:size] for _ in range(50)] * (m // 50))
    ind = ind.astype(np.int32)
    ptr = np.arange(m + 1, dtype=np.int64) * size
    assert _cpu.dedup_rows(ptr, ind, n) is None
    ind[71_234 * size + 30] = ind[71_234 * size + 3]
    out = _cpu.dedup_rows(ptr, ind, n)
    assert out is not None
    eptr, eind = out
    sizes = np.diff(eptr)
    assert sizes[71_234] == size - 1 and (np.delete(sizes, 71_234) == size).all()


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("rows", [0, 1, 7, 200_003])
def test_row_sizes_and_first_decrease_equal_numpy(threads, rows):
    """The readers' row passes on the threads (``row_sizes``: numpy's diff and the non-empty
    rows; ``first_decrease``: the first row whose pointer goes back) equal numpy's, from tiny
    pointers to ones above the size split over the threads; and ``filled`` equals np.full."""
    from igpart.kernels import _cpu, omp_threads

    rng = np.random.default_rng(rows + threads)
    sizes = rng.integers(0, 3, rows) * rng.integers(0, 2, rows)  # many empty rows
    ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    with omp_threads(threads):
        got, nonempty = _cpu.row_sizes(ptr)
        assert np.array_equal(got, np.diff(ptr)) and got.dtype == np.int64
        assert np.array_equal(nonempty, np.flatnonzero(np.diff(ptr) > 0))
        assert _cpu.first_decrease(ptr) == -1
        if rows >= 2:
            for r in sorted({rows // 2, rows - 1, int(rng.integers(0, rows))}):
                bad = ptr.copy()
                bad[r + 1] = bad[r] - 1
                bad[r + 1:] = np.minimum(bad[r + 1:], bad[r + 1])  # later rows follow it down
                bad[-1] -= 1  # and a second decrease at the end: the first one is reported
                assert _cpu.first_decrease(bad) == int(np.flatnonzero(np.diff(bad) < 0)[0])
        assert np.array_equal(_cpu.filled(rows, -7), np.full(rows, -7, dtype=np.int64))
    assert _cpu.first_decrease(np.zeros(1, dtype=np.int64)) == -1
    with pytest.raises(ValueError, match="negative length"):
        _cpu.filled(-1, 0)
    with pytest.raises(ValueError, match="non-empty"):
        _cpu.row_sizes(np.zeros(0, dtype=np.int64))


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("step", [1, 2])
def test_one_based_ids_equal_numpy(threads, step):
    """The METIS reader's neighbour pass: every ``step``-th value from ``offset`` less one, as
    int32, and the first one outside [1, n] (a zero, a negative, n + 1), on one thread and on
    several, on a range long enough to be split over them."""
    from igpart.kernels import _cpu, omp_threads

    rng = np.random.default_rng(step)
    n, offset, count = 5_000, 7, 150_001
    values = rng.integers(1, n + 1, offset + count * step + 3).astype(np.int64)
    expect = values[offset : offset + count * step : step] - 1
    with omp_threads(threads):
        ids, bad = _cpu.one_based_ids(values, offset, count, step, n)
        assert bad == -1 and ids.dtype == np.int32 and np.array_equal(ids, expect)
        low = np.iinfo(np.int64).min
        for first, later, value in ((90_000, 120_000, 0), (0, 5, n + 1),
                                    (count - 1, count - 1, low), (3, 4, -1)):
            wrong = values.copy()
            wrong[offset + later * step] = -3
            wrong[offset + first * step] = value
            assert _cpu.one_based_ids(wrong, offset, count, step, n)[1] == first
        assert _cpu.one_based_ids(values, offset, 0, step, n)[1] == -1
        assert _cpu.one_based_ids(values, offset, count, step, 0)[1] == 0  # no vertex at all
    with pytest.raises(ValueError, match="outside values"):
        _cpu.one_based_ids(values, offset, count + 4, step, n)


def test_readers_give_the_same_arrays_as_the_constructors(tmp_path, reading):
    """hMETIS and METIS files read into the arrays the in-memory constructors build from the
    same data (unit weights where the file gives none, blank lines skipped)."""
    from igpart.generators import random_circuit

    h = random_circuit(3000, seed=3)
    f = tmp_path / "c.hgr"
    io.write_hgr(h, f)
    text = f.read_bytes().replace(b"\n", b"\n\n", 5)  # blank lines among the nets
    f.write_bytes(text)
    r = io.read_hgr(f)
    assert (r.n, r.m) == (h.n, h.m)
    for a in ("eptr", "eind", "vwgt", "ewgt"):
        assert np.array_equal(getattr(r, a), getattr(h, a)), a
    g = h.to_graph()
    fg = tmp_path / "c.graph"
    io.write_graph(g, fg)
    rg = io.read_graph(fg)
    for a in ("xadj", "adjncy", "adjwgt", "vwgt"):
        assert np.array_equal(getattr(rg, a), getattr(g, a)), a


def test_format_lines_in_chunks_equals_one_pass():
    """The line formatter on enough lines for its parallel chunks: the text of a plain join,
    empty lines and negative values included."""
    from igpart.kernels import _cpu

    rng = np.random.default_rng(9)
    ptr = np.concatenate([[0], np.cumsum(rng.integers(0, 5, 300_000))]).astype(np.int64)
    values = rng.integers(-10**12, 10**12, int(ptr[-1])).astype(np.int64)
    expect = "".join(" ".join(map(str, values[ptr[i]:ptr[i + 1]])) + "\n"
                     for i in range(ptr.size - 1))
    assert _cpu.format_lines(ptr, values).decode() == expect


def test_large_files_are_tokenized_from_a_memory_map_that_is_closed_after(tmp_path, monkeypatch):
    """A file of at least ``io.MAP_MIN_BYTES`` is mapped (not copied) and the map is closed once
    the file is read, also when it is malformed; a gzip file and an empty one are read."""
    import mmap

    from igpart.generators import random_circuit

    maps = []

    class Spy(mmap.mmap):
        def __new__(cls, *args, **kwargs):
            m = super().__new__(cls, *args, **kwargs)
            maps.append(m)
            return m

    monkeypatch.setattr(io.mmap, "mmap", Spy)
    monkeypatch.setattr(io, "MAP_MIN_BYTES", 64)
    h = random_circuit(500, seed=1)
    f = tmp_path / "c.hgr"
    io.write_hgr(h, f)
    r = io.read_hgr(f)
    assert np.array_equal(r.eind, h.eind) and np.array_equal(r.eptr, h.eptr)
    assert len(maps) == 1 and maps[0].closed
    f.write_bytes(f.read_bytes() + b"1 x\n")
    e = _input_error(f)
    assert e.line == h.m + 2 and len(maps) == 2 and maps[1].closed
    (tmp_path / "c.hgr.gz").write_bytes(gzip.compress(io.hgr_bytes(h)))
    assert io.read(tmp_path / "c.hgr.gz").m == h.m
    assert len(maps) == 3 and maps[2].closed  # mapped, seen to be gzip data, read instead
    small = tmp_path / "s.hgr"
    small.write_text("1 2\n1 2\n")
    assert io.read_hgr(small).m == 1 and len(maps) == 3  # below the size: read
    empty = tmp_path / "e.hgr"
    empty.write_bytes(b"")
    monkeypatch.setattr(io, "MAP_MIN_BYTES", 0)
    _input_error(empty)  # no map of an empty file; the reader's own error
