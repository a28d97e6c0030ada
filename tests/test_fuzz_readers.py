"""Fuzzing every reader with a seeded byte mutator.

Property: a mutated input of at most 1 KB gives a valid object or an igpart ``InputError`` that
names the file; any other exception (``UnicodeDecodeError``, ``MemoryError``, ``ValueError``,
...) fails, as does a case that runs longer than a hang guard of 20 s. Mutations: random bytes,
inserted tokens chosen to hurt (huge and negative numbers, bytes that are not UTF-8, NUL, CR,
Verilog punctuation and keywords), deleted, duplicated and spliced spans, truncation. Two
properties catch silent wrong results: the hMETIS reader accepts exactly what a plain-Python
reference reader accepts and reads the same hypergraph, and whatever the fast Verilog reader
reads, pyverilog reads to the same circuit.

The Liberty reader and the JSON-lines server (request lines mutated, answered by one server
whose session stays open) are fuzzed the same way: every request gets one strict-JSON answer,
never an InternalError, and the session still answers afterwards.

Each reader gets ``IGPART_FUZZ_EXAMPLES`` cases (default 300: about 15 s in all on two cores);
``IGPART_FUZZ_EXAMPLES=20000 python -m pytest -q tests/test_fuzz_readers.py`` is the long run,
and ``IGPART_FUZZ_SEED`` picks another stream of cases. ``IGPART_FUZZ_LIMITS=1`` also holds
every case to the resource target, at most ``CASE_SECONDS`` (1 s, timed again once when over
it, so that a module's first import does not count) and at most ``CASE_BYTES``
(100 MB) more than the process held when its reader's run began (its peak resident size), for
a quiet machine. A failure prints the reader, the case number and the input bytes, so it can
be replayed.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import random
import re
import resource
import signal
import time
from collections.abc import Callable
from contextlib import contextmanager

import pytest

from igpart import io
from igpart.errors import InputError
from igpart.netlist import parse_liberty, parse_verilog, read_ops

EXAMPLES = int(os.environ.get("IGPART_FUZZ_EXAMPLES", "300"))
BASE_SEED = int(os.environ.get("IGPART_FUZZ_SEED", "0"))
MAX_BYTES = 1024
HANG_GUARD_S = 20
LIMITS = os.environ.get("IGPART_FUZZ_LIMITS", "") == "1"
CASE_SECONDS = 1.0
CASE_BYTES = 100 << 20

LIB = parse_liberty(
    """library (t) {
  cell (AND2) { pin (A) { direction : input; } pin (B) { direction : input; }
                pin (Z) { direction : output; } }
  cell (MUX4) { bus (D) { bus_type : b4; direction : input; }
                pin (S) { direction : input; } pin (Z) { direction : output; } }
  type (b4) { base_type : array; bit_from : 3; bit_to : 0; bit_width : 4; }
}"""
)
HGR_SEEDS = [
    b"4 7\n1 2\n1 7 5 6\n5 6 4\n2 3 4\n",
    b"% comment\n3 4 1\n2 1 2\n3 2 3 4\n1 1 4\n",
    b"2 3 10\n1 2\n2 3\n5\n1\n7\n",
    b"3 4 11\n2 1 2 3\n1 3 4\n4 1 4\n1\n2\n3\n4\n",
]
GRAPH_SEEDS = [
    b"4 4\n2 3\n1 3 4\n1 2\n2\n",
    b"3 2 1\n2 5\n1 5 3 2\n2 2\n",
    b"3 2 11\n4 2 1\n1 1 1 3 7\n2 2 7\n",
    b"3 1 100\n1 2\n1 1\n1\n",
    b"% c\n3 2 10\n3 2\n1 1 3\n2 2\n",
]
PART_SEEDS = [b"0\n1\n1\n0\n2\n", b"3\n3\n0\n", b"0\n"]
VERILOG_SEEDS = [
    b"""// flat netlist
module top (a, b, y, z);
  input a, b;
  output y;
  output [1:0] z;
  wire n1, \\n[2] ;
  wire [3:0] bus;
  NAND2_X1 g1 (.A1(a), .A2(b), .ZN(n1));
  INV_X1 \\g/2  (.A(n1), .ZN(\\n[2] ));
  DFF_X1 r1 (.D(\\n[2] ), .CK(1'b1), .Q(bus[3]), .QN());
  BUF_X2 g3 (.A(bus[3]), .Z(y));
  assign z[1] = bus[1];
endmodule
""",
    b"""`timescale 1ns/1ps
`define W 1
module leaf (a, y);
  input a; output y;
  INV_X1 g (.A(a), .ZN(y));
endmodule
module top (input [`W:0] a, output y);
  wire n;
  leaf l1 (.a(a[0]), .y(n));
  leaf l2 (n, y);
  /* block
     comment */
endmodule
""",
    b"""`define ONE 1'b1
`ifdef NOPE
module nope; endmodule
`else
module sub (input [3:0] d, output [1:0] q, inout io);
  AND2 a0 (.A(d[3]), .B(d[2]), .Z(q[1]));
  AND2 a1 (d[1], d[0], q[0]);
endmodule
`endif
module top (x, y, \\z[0] );
  input [7:0] x; output [3:0] y; output \\z[0] ;
  wire [1:0] t = x[1:0];
  wire [3:0] c;
  sub s1 (.d({x[7:6], 2'b01}), .q(y[3:2]), .io());
  sub s2 (.d({{2{x[1]}}, x[5:4]}), .q(c[1:0]), .io(\\z[0] ));
  MUX4 m (.D({4'hA}), .S(`ONE), .Z(c[3]));
  assign y[1:0] = c[1:0];
  assign c[2] = 1'd0;
endmodule
""",
    b"""module c17 (nx1, nx7, nx3, nx22);
input nx1;
input nx7;
input nx3;
output nx22;
wire net_0;
NAND2_X1 inst_0 ( .A1(nx1), .A2(nx3), .ZN(net_0) );
NAND2_X1 inst_1 ( .A1(net_0), .A2(nx7), .ZN(nx22) );
endmodule
""",
]
OPS_SEEDS = [
    b"""repower_gate inst_76 XNOR2_X2
insert_gate TAUGATE_1 BUF_X4
insert_net TAUNET_1
disconnect_pin inst_63:ZN
connect_pin inst_63:ZN TAUNET_1
report_slack -pin nx1
connect_pin TAUGATE_1:A TAUNET_1
# comment
remove_gate inst_5
remove_net net_9
read_spef c17.spef
""",
]

NUMBERS = [
    b"0", b"1", b"-1", b"+5", b"2147483647", b"2147483648", b"4294967296",
    b"4611686018427387904", b"9223372036854775807", b"9223372036854775808",
    b"99999999999999999999", b"1000000000", b"3", b"10", b"11", b"100", b"2305843009213693952",
]
# for the integer formats: mostly numbers and white space, a few bytes that break a token
NUMBER_TOKENS = NUMBERS * 3 + [
    b" ", b"\n", b"\n\n", b"\t", b"\r\n", b"% c\n", b"\xff", b"\x00", b"\xc3\xa9", b"-", b"x",
]
TOKENS = NUMBERS + [
    b"\xff", b"\xfe\xff", b"\x00", b"\r", b"\r\n",
    b"\n", b"\t", b" ", b"\x0b", b"\x0c", b"%", b"#", b"\\", b"[", b"]", b":", b"(", b")",
    b";", b",", b".", b"{", b"}", b"'", b"=", b"1'b0", b"1'b1", b"4'bxz01", b"8'hff",
    b"`define X 1\n", b"`X", b"`ifdef X\n", b"`endif\n", b"`include \"a.v\"\n", b"//", b"/*",
    b"*/", b"module m(a);", b"endmodule", b"input", b"output", b"inout", b"wire", b"assign",
    b"[2147483647:0]", b"[99999:0]", b"{1000{a}}", b"\xc3", b"\xc3\xa9", b"\xe2\x82",
    b"\\esc\xff ", b"\\A\x00 ", b"gz", b"\x1f\x8b",
]


def mutate(
    rng: random.Random, data: bytes, donors: list[bytes], tokens: list[bytes] = TOKENS
) -> bytes:
    """``data`` changed by one to four random edits (inserting ``tokens``, among others), cut
    to :data:`MAX_BYTES`."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        pos = rng.randint(0, len(buf))
        if op == 0 and buf:
            numeric = tokens is NUMBER_TOKENS and rng.random() < 0.9
            byte = rng.choice(b"0123456789 \n") if numeric else rng.randrange(256)
            buf[min(pos, len(buf) - 1)] = byte
        elif op in (1, 2):
            buf[pos:pos] = rng.choice(tokens)
        elif op == 3:
            del buf[pos : pos + rng.randint(1, 16)]
        elif op == 4 and buf:
            a = rng.randrange(len(buf))
            buf[pos:pos] = buf[a : a + rng.randint(1, 64)]
        elif op == 5:
            del buf[pos:]
        elif op == 6:  # a number replaced by a hostile one
            nums = [m.span() for m in re.finditer(rb"\d+", bytes(buf))]
            if nums:
                a, b = rng.choice(nums)
                buf[a:b] = rng.choice(NUMBERS)
        else:  # a line of another seed spliced in
            lines = rng.choice(donors).split(b"\n")
            buf[pos:pos] = rng.choice(lines) + b"\n"
    return bytes(buf[:MAX_BYTES])


@contextmanager
def hang_guard(describe: Callable[[], str]):
    def alarm(signum, frame):
        raise TimeoutError(f"no result after {HANG_GUARD_S} s: {describe()}")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_GUARD_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def fuzz(
    name: str,
    seeds: list[bytes],
    read: Callable[[bytes], object],
    some_valid: bool = True,
    tokens: list[bytes] = TOKENS,
) -> None:
    """Runs :data:`EXAMPLES` mutated cases of ``seeds`` through ``read``; ``some_valid``: some
    cases must be read without an error (else the mutator only tests the first check)."""
    rng = random.Random(f"{name}:{BASE_SEED}")
    for data in seeds:  # the seeds themselves are valid
        read(data)
    errors = 0
    rss0 = _resident_bytes()
    for case in range(EXAMPLES):
        data = mutate(rng, rng.choice(seeds), seeds, tokens)
        if rng.random() < 0.3:  # mutate again: some inputs drift far from any seed
            data = mutate(rng, data, seeds, tokens)

        def describe(case=case, data=data) -> str:
            return f"reader {name}, case {case} (IGPART_FUZZ_SEED={BASE_SEED}): {data!r}"

        t0 = time.perf_counter()
        try:
            with hang_guard(describe):
                read(data)
        except InputError as exc:
            errors += 1
            if exc.file is None:
                pytest.fail(f"InputError without a file name ({exc}) from {describe()}")
            str(exc).encode("utf-8")  # printable as it is
        except Exception as exc:
            pytest.fail(f"{type(exc).__name__}: {exc} from {describe()}")
        seconds = time.perf_counter() - t0
        if LIMITS and seconds > CASE_SECONDS:  # once more: a first import is not the input's
            t0 = time.perf_counter()
            with contextlib.suppress(InputError), hang_guard(describe):
                read(data)
            seconds = time.perf_counter() - t0
            if seconds > CASE_SECONDS:
                pytest.fail(f"{seconds:.2f} s (over {CASE_SECONDS} s) for {describe()}")
    grown = _peak_bytes() - rss0
    if LIMITS and grown > CASE_BYTES:
        pytest.fail(f"reader {name}: the peak resident size grew by {grown >> 20} MB (over "
                    f"{CASE_BYTES >> 20} MB)")
    if EXAMPLES >= 20:  # the mutator must reach both outcomes, or the property tests little
        assert errors > 0 and (errors < EXAMPLES or not some_valid)


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.fixture
def as_file(tmp_path):
    """Calls a path-based reader on bytes written to a file named ``name``."""

    def call(read: Callable, name: str, data: bytes):
        path = tmp_path / name
        path.write_bytes(data)
        return read(path)

    return call


def test_fuzz_hgr():
    fuzz("hgr", HGR_SEEDS, lambda d: io.read_hgr("fuzz.hgr", d), tokens=NUMBER_TOKENS)


_INT = re.compile(rb"\+?-?[0-9]+")


def reference_hgr(data: bytes):
    """An independent, plain-Python reading of the hMETIS format as documented in igpart.io:
    ``(n, nets as sets of 0-based pins, net weights, vertex weights)``, or None if invalid."""
    lines = []
    for raw in data.split(b"\n"):
        toks = raw.split()
        if toks and toks[0].startswith(b"%"):
            continue  # a comment line
        if not all(_INT.fullmatch(t) for t in toks):
            return None
        vals = [int(t.lstrip(b"+")) for t in toks]
        if any(not -(2**63) <= v < 2**63 for v in vals):
            return None
        if vals:
            lines.append(vals)
    if not lines or not 2 <= len(lines[0]) <= 3:
        return None
    m, n, fmt = (lines[0] + [0])[:3]
    if m < 0 or n < 0 or fmt not in (0, 1, 10, 11) or n > io.max_vertices(len(data)):
        return None
    net_w, vtx_w = fmt in (1, 11), fmt in (10, 11)
    if len(lines) != 1 + m + (n if vtx_w else 0):
        return None
    nets, ewgt = [], []
    for vals in lines[1 : 1 + m]:
        w, pins = (vals[0], vals[1:]) if net_w else (1, vals)
        if not pins or w < 0 or any(not 1 <= p <= n for p in pins):
            return None
        nets.append({p - 1 for p in pins})
        ewgt.append(w)
    vwgt = [vals[0] for vals in lines[1 + m :]] if vtx_w else [1] * n
    if vtx_w and any(len(vals) != 1 or vals[0] < 0 for vals in lines[1 + m :]):
        return None
    if sum(w * (len(v) - net_w) for w, v in zip(ewgt, lines[1 : 1 + m])) >= 2**63:
        return None
    if sum(vwgt) >= 2**63:
        return None
    return n, nets, ewgt, vwgt


def test_fuzz_hgr_equals_a_reference_reader():
    """No silent wrong result: the reader accepts exactly what the reference accepts, and
    reads the same hypergraph."""

    def read(d: bytes):
        ref = reference_hgr(d)
        try:
            h = io.read_hgr("fuzz.hgr", d)
        except InputError:
            assert ref is None, f"valid by the reference: {ref}"
            raise
        assert ref is not None, "accepted, but invalid by the reference"
        n, nets, ewgt, vwgt = ref
        assert h.n == n and h.ewgt.tolist() == ewgt and h.vwgt.tolist() == vwgt
        assert [set(h.net(e).tolist()) for e in range(h.m)] == nets

    fuzz("hgr-reference", HGR_SEEDS, read, tokens=NUMBER_TOKENS)


def test_fuzz_hgr_gzip():
    fuzz("hgr.gz", HGR_SEEDS, lambda d: io.read_hgr("fuzz.hgr.gz", gzip.compress(d, mtime=0)),
         tokens=NUMBER_TOKENS)  # fmt: skip
    # corrupt compressed data: (nearly) every case is an error, none may be another exception
    seeds = [gzip.compress(s, mtime=0) for s in HGR_SEEDS]
    fuzz("gz-bytes", seeds, lambda d: io.read_hgr("fuzz.hgr.gz", d), some_valid=False)


def test_fuzz_graph():
    fuzz("graph", GRAPH_SEEDS, lambda d: io.read_graph("fuzz.graph", d), tokens=NUMBER_TOKENS)


def reference_partition(data: bytes, k: int | None) -> list[int] | None:
    """Block ids as igpart.io documents partition files (plain Python), or None if invalid."""
    ids = []
    for raw in data.split(b"\n"):
        toks = raw.split()
        if not toks or toks[0].startswith(b"%"):
            continue
        if len(toks) != 1 or not _INT.fullmatch(toks[0]):
            return None
        v = int(toks[0].lstrip(b"+"))
        if not 0 <= v < min(2**31, k or 2**31):
            return None
        ids.append(v)
    return ids


def test_fuzz_partition(as_file):
    def read(d):
        for k in (None, 4):
            ref = reference_partition(d, k)
            try:
                parts = as_file(lambda p, k=k: io.read_partition(p, k=k), "fuzz.part", d)
            except InputError:
                assert ref is None, f"valid by the reference: {ref}"
                raise
            assert parts.tolist() == ref

    fuzz("partition", PART_SEEDS, read, tokens=NUMBER_TOKENS)


@pytest.mark.parametrize("parser", ["fast", "pyverilog", "auto"])
def test_fuzz_verilog(parser, caplog):
    caplog.set_level("ERROR")  # directions inferred without a library: a warning per case
    seeds = [VERILOG_SEEDS[0], VERILOG_SEEDS[3]] if parser == "fast" else VERILOG_SEEDS
    fuzz(f"verilog-{parser}", seeds,
         lambda d: parse_verilog(d, parser=parser, lib=LIB, file="fuzz.v"))  # fmt: skip


def test_fuzz_verilog_readers_agree(caplog):
    """On mutated flat netlists, whatever the fast reader reads pyverilog reads to the same
    circuit (pyverilog reads a superset, so the converse need not hold)."""
    caplog.set_level("ERROR")

    def read(d: bytes):
        fast = parse_verilog(d, parser="fast", lib=LIB, file="fuzz.v")  # InputError: case done
        try:
            slow = parse_verilog(d, parser="pyverilog", lib=LIB, file="fuzz.v")
        except InputError as exc:
            raise AssertionError(f"the fast reader read it, pyverilog did not: {exc}") from None
        assert fast.difference(slow) is None, fast.difference(slow)

    fuzz("verilog-agree", [VERILOG_SEEDS[0], VERILOG_SEEDS[3]], read)


def test_fuzz_ops(as_file):
    fuzz("ops", OPS_SEEDS, lambda d: as_file(read_ops, "fuzz.ops", d))


LIBERTY_SEEDS = [
    b"""library (t) {
  cell (AND2) { area : 1.5; pin (A) { direction : input; } pin (B) { direction : input; }
                pin (Z) { direction : output; function : "A&B"; } }
  cell (DFF) { area : 4; pin (CK) { direction : input; clock : true; }
               pin (D) { direction : input; } pin (Q) { direction : output; } }
}
""",
    b"""/* buses */ library (b) {
  type (b4) { base_type : array; data_type : bit; bit_width : 4; bit_from : 3; bit_to : 0; }
  cell (MUX4) { area : 2; bus (D) { bus_type : b4; direction : input; }
                pin (S) { direction : input; } pin (Z) { direction : output; } }
  cell (TIE) { pin (Z) { direction : output; } }
}
""",
]


def test_fuzz_liberty():
    fuzz("liberty", LIBERTY_SEEDS, lambda d: parse_liberty(d.decode("latin-1"), "fuzz.lib"))


SERVER_SEEDS = [
    b'{"id": 1, "method": "report"}',
    b'{"id": "a", "method": "block_of", "params": [3]}',
    b'{"id": 2, "method": "block_of", "params": {"name": 0}}',
    b'{"id": 3, "method": "insert_vertex", "params": {"weight": 2, "block": -1}}',
    b'{"id": 4, "method": "insert_pin", "params": [0, 1]}',
    b'{"id": 5, "method": "set_vertex_weight", "params": [2, 3]}',
    b'{"id": 6, "method": "delete_pin", "params": {"v": 1, "e": 0}}',
    b'{"id": 7, "method": "refine"}',
    b'{"id": 8, "method": "pending"}',
    b'{"id": 9, "method": "help", "params": ["fix"]}',
    b'{"id": 10, "method": "fix", "params": [4, 1]}',
]
SERVER_TOKENS = TOKENS + [b'"', b'": ', b"null", b"true", b"[]", b"{}", b"NaN", b"1e999",
                          b"-0", b"1.5", b'"params"', b'"method"', b'"id"', b"\\u0000"]


def test_fuzz_server_requests(tmp_path, monkeypatch):
    """Mutated request lines against one server with an open session: every answer is one
    line of strict JSON with ``ok`` (errors typed, never InternalError), and the session still
    answers and stays consistent afterwards."""
    from igpart.plugin import JsonLinesServer

    monkeypatch.chdir(tmp_path)  # a mutated request can only name files here
    (tmp_path / "d.hgr").write_bytes(HGR_SEEDS[3])
    server = JsonLinesServer()
    for req in ({"method": "read", "params": {"path": "d.hgr"}},
                {"method": "partition", "params": {"k": 2}}):  # fmt: skip
        assert server.handle(json.dumps(req))["ok"]

    def strict(text: str):
        raise ValueError(f"non-standard JSON constant {text}")

    def ask(data: bytes) -> None:
        out = server.respond(data)
        if out is None:
            return
        assert out.endswith(b"\n") and out.count(b"\n") == 1, out
        resp = json.loads(out, parse_constant=strict)
        if not resp["ok"]:
            kind = resp["error"]["type"]
            if kind == "InternalError":
                raise AssertionError(f"InternalError: {resp['error']['message']}")
            raise InputError(f"{kind}: {resp['error']['message']}", file="request")

    fuzz("server", SERVER_SEEDS, ask, tokens=SERVER_TOKENS)
    session = server.commands.session
    session.dynamic.check()
    assert server.handle('{"id": 0, "method": "report"}')["ok"]
