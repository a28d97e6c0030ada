"""Hand-written Verilog: each supported construct, each malformed case (error with its line)."""

from __future__ import annotations

import logging

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from igpart.errors import InputError
from igpart.netlist import parse_liberty, parse_verilog, read_verilog

LIB = parse_liberty(
    """
library (t) {
  cell (AND2) { area : 2; pin (A) { direction : input; } pin (B) { direction : input; }
                pin (Z) { direction : output; } }
  cell (INV) { area : 1; pin (A) { direction : input; } pin (ZN) { direction : output; } }
  cell (DFF) { area : 4; pin (D) { direction : input; } pin (CK) { direction : input;
               clock : true; } pin (Q) { direction : output; } }
  cell (MUX4) { area : 5; bus (D) { bus_type : b4; direction : input; }
                pin (S) { direction : input; } pin (Z) { direction : output; } }
  type (b4) { base_type : array; bit_from : 3; bit_to : 0; bit_width : 4; }
}
"""
)


def both(text: str, **kw):
    """The circuit from each reader; they must agree."""
    fast = parse_verilog(text, parser="fast", lib=LIB, **kw)
    slow = parse_verilog(text, parser="pyverilog", lib=LIB, **kw)
    assert fast.difference(slow) is None
    return fast


def pins(c, inst: str) -> dict:
    return {
        p: (c.net_names[n] if n >= 0 else None)
        for p, n, _ in c.pins_of_instance(c.instance_id(inst))
    }


def error(text: str, parser: str = "auto", **kw) -> InputError:
    with pytest.raises(InputError) as e:
        parse_verilog(text, parser=parser, lib=LIB, file="t.v", **kw)
    assert e.value.file == "t.v"
    return e.value


# --------------------------------------------------------------------------- constructs
def test_non_ansi_ports_buses_bit_selects_constants():
    c = both(
        """// header comment
module top (a, b, y, clk);
  input [1:0] a;   /* a bus,
                      over two lines */
  input b, clk;
  output [0:1] y;
  wire n1;
  wire [3:0] bus;
  AND2 g1 (.A(a[1]), .B(a[0]), .Z(n1));
  INV g2 (.A(n1), .ZN(bus[2]));
  DFF f1 (.D(bus[2]), .CK(clk), .Q(y[0]));
  AND2 g3 (.A(1'b1), .B(1'b0), .Z(y[1]));
  INV g4 (.A(b), .ZN());
endmodule
"""
    )
    assert c.port_names == ["a[1]", "a[0]", "b", "y[0]", "y[1]", "clk"]
    assert c.port_directions == ["input", "input", "input", "output", "output", "input"]
    assert c.net_names[:6] == ["a[1]", "a[0]", "b", "clk", "y[0]", "y[1]"]
    assert "bus[3]" in c.net_names and "1'b1" in c.net_names and "1'b0" in c.net_names
    assert pins(c, "g1") == {"A": "a[1]", "B": "a[0]", "Z": "n1"}
    assert pins(c, "g3") == {"A": "1'b1", "B": "1'b0", "Z": "y[1]"}
    assert pins(c, "g4") == {"A": "b", "ZN": None}
    assert c.summary()["unconnected_pins"] == 1
    assert c.port_net(c.port_id("y[0]")) == c.net_id("y[0]")
    # directions from the library, clock net detected through the library's clock pin
    d = {p: dr for p, _, dr in c.pins_of_instance(c.instance_id("f1"))}
    assert d == {"D": "input", "CK": "input", "Q": "output"}
    hv = c.to_hypergraph()
    assert hv.net_of[c.net_id("clk")] == -1 and hv.net_of[c.net_id("1'b0")] == -1
    assert hv.net_of[c.net_id("n1")] >= 0
    full = c.to_hypergraph(skip_clock=False, skip_constants=False)
    assert full.hypergraph.m == c.num_nets


def test_ansi_ports_and_implicit_nets():
    c = both(
        """
module top (input wire [1:0] a, b, output y, inout z);
  AND2 g1 (.A(a[0]), .B(b[1]), .Z(w));
  INV g2 (.A(w), .ZN(y));
  INV g3 (.A(z), .ZN(z));
endmodule
"""
    )
    assert c.port_names == ["a[1]", "a[0]", "b[1]", "b[0]", "y", "z"]
    assert c.port_directions == ["input"] * 4 + ["output", "inout"]
    assert pins(c, "g1")["Z"] == "w" and pins(c, "g2")["A"] == "w"  # implicit net


def test_escaped_identifiers_and_directives():
    c = both(
        """`timescale 1ns/1ps
`celldefine
module top (a, y);
  input a; output y;
  wire \\n[3] ;
  INV \\g/1 (.A(a), .ZN(\\n[3] ));
  INV g2 (.A(\\n[3] ), .ZN(y));
endmodule
`endcelldefine
"""
    )
    assert "n[3]" in c.net_names and c.instance_names == ["g/1", "g2"]


def test_positional_connections_use_library_pin_order():
    text = """
module top (a, b, y);
  input a, b; output y;
  AND2 g1 (a, b, n1);
  INV g2 (n1, y);
endmodule
"""
    c = parse_verilog(text, lib=LIB)  # auto falls back to pyverilog
    assert pins(c, "g1") == {"A": "a", "B": "b", "Z": "n1"}
    e = error(text, parser="fast")
    assert "positional" in str(e) and e.line == 4
    with pytest.raises(InputError, match="pin order of cell 'AND2'"):
        parse_verilog(text, parser="pyverilog")


def test_bus_pins_concatenations_and_part_selects():
    c = parse_verilog(
        """
module top (d, s, y, q);
  input [3:0] d; input s; output y; output [1:0] q;
  MUX4 m1 (.D({d[0], d[1], d[3:2]}), .S(s), .Z(y));
  MUX4 m2 (.D({2{s, 1'bz}}), .S(s), .Z(q[1]));
  INV i1 (.A(d[3]), .ZN(q[0]));
endmodule
""",
        lib=LIB,
    )
    assert pins(c, "m1") == {"D[3]": "d[0]", "D[2]": "d[1]", "D[1]": "d[3]", "D[0]": "d[2]",
                             "S": "s", "Z": "y"}  # fmt: skip
    assert pins(c, "m2") == {"D[3]": "s", "D[2]": None, "D[1]": "s", "D[0]": None, "S": "s",
                             "Z": "q[1]"}  # fmt: skip
    assert {d for _, _, d in c.pins_of_instance(c.instance_id("m1"))} == {"input", "output"}


def test_assign_aliases_merge_nets():
    c = both(
        """
module top (a, y, y2, k);
  input a; output y, y2, k;
  wire n1, n2;
  INV g1 (.A(a), .ZN(n1));
  assign n2 = n1;
  INV g2 (.A(n2), .ZN(y));
  assign y2 = y;
  assign k = 1'b0;
endmodule
"""
    )
    assert pins(c, "g1")["ZN"] == "n1" and pins(c, "g2")["A"] == "n1"
    # a net joined to a top-level port takes the port's name; y2 and y stay one net
    assert pins(c, "g2")["ZN"] == "y"
    assert c.port_net(c.port_id("y2")) == c.net_id("y")
    assert c.port_net(c.port_id("k")) == c.net_id("k")  # tied to 1'b0, named by the port
    assert "n2" not in c.net_names and "y2" not in c.net_names
    assert c.drivers_per_net().max() == 1


HIER = """
module half (x, y, s, c);
  input x, y; output s, c;
  AND2 ga (.A(x), .B(y), .Z(c));
  INV gi (.A(x), .ZN(t));
  AND2 gb (.A(t), .B(y), .Z(s));
endmodule
module top (a, b, cin, sum);
  input a, b, cin; output [1:0] sum;
  wire s1, c1;
  half h1 (.x(a), .y(b), .s(s1), .c(c1));
  half h2 (s1, cin, sum[0], sum[1]);
endmodule
"""


def test_hierarchy_flattened_with_inferred_top():
    c = parse_verilog(HIER, lib=LIB)
    assert c.name == "top"
    assert c.instance_names == ["h1/ga", "h1/gi", "h1/gb", "h2/ga", "h2/gi", "h2/gb"]
    assert pins(c, "h1/ga") == {"A": "a", "B": "b", "Z": "c1"}
    assert pins(c, "h1/gi")["ZN"] == "h1/t"  # internal implicit net, hierarchical name
    assert pins(c, "h2/gb") == {"A": "h2/t", "B": "cin", "Z": "sum[0]"}
    assert pins(c, "h2/ga")["Z"] == "sum[1]"
    assert c.drivers_per_net().max() == 1


def test_chosen_top():
    c = parse_verilog(HIER, lib=LIB, top="half")
    assert c.name == "half" and c.num_instances == 3 and c.port_names == ["x", "y", "s", "c"]
    two_tops = HIER + "module other (q); input q; endmodule\n"
    with pytest.raises(InputError, match="cannot infer the top module.*top, other"):
        parse_verilog(two_tops)
    assert parse_verilog(two_tops, top="top").num_instances == 6
    with pytest.raises(InputError, match="top module 'nope' not found"):
        parse_verilog(HIER, top="nope")


def test_define_ifdef_and_macros():
    c = parse_verilog(
        """`define CELL INV
`define FAST
module top (a, y);
  input a; output y;
`ifdef FAST
  `CELL g1 (.A(a), .ZN(y));
`else
  AND2 g1 (.A(a), .B(a), .Z(y));
`endif
endmodule
""",
        lib=LIB,
    )
    assert c.instance_cells == ["INV"]


def test_directions_inferred_without_library(caplog):
    text = """
module top (a, b, y);
  input a, b; output y;
  NAND2 g1 (.A1(a), .A2(b), .ZN(n1));
  WEIRD g2 (.P(n1), .QQ(y));
  HA h (.A(a), .B(b), .S(s), .CO(co));
  MUX m (.A(a), .B(b), .S(s), .Z(n3));
endmodule
"""
    with caplog.at_level(logging.WARNING, logger="igpart"):
        c = parse_verilog(text)
    assert "inferred" in caplog.text
    d = {
        (c.instance_names[i], p): dr
        for i in range(c.num_instances)
        for p, _, dr in c.pins_of_instance(i)
    }
    assert d[("g1", "ZN")] == "output" and d[("g1", "A1")] == "input"
    # unknown names: P sits on a net driven by g1 -> input; QQ drives a primary output -> output
    assert d[("g2", "P")] == "input" and d[("g2", "QQ")] == "output"
    # S is an adder's sum output next to CO, but a select input of a mux
    assert d[("h", "S")] == "output" and d[("m", "S")] == "input"


def test_read_from_file_and_auto_equals_fast(tmp_path):
    p = tmp_path / "x.v"
    p.write_text("module m (a, y); input a; output y; INV g (.A(a), .ZN(y)); endmodule\n")
    assert read_verilog(p, lib=LIB).equals(read_verilog(p, parser="pyverilog", lib=LIB))
    with pytest.raises(InputError, match="cannot read file"):
        read_verilog(tmp_path / "missing.v")
    with pytest.raises(InputError, match="unknown Verilog parser"):
        read_verilog(p, parser="yosys")


# --------------------------------------------------------------------------- malformed input
BAD = [
    # (text, line, message part, readers that must report it)
    (
        "module m (a);\n input a;\n INV g1 (.A(a), .ZN(y))\nendmodule\n",
        4,
        "",
        ("fast", "pyverilog"),
    ),
    (
        "module m (a);\n input a;\n INV g1 (.A(a[2]));\nendmodule\n",
        3,
        "scalar",
        ("fast", "pyverilog"),
    ),
    (
        "module m (a);\n input [1:0] a;\n INV g1 (.A(a[2]));\nendmodule\n",
        3,
        "outside",
        ("fast", "pyverilog"),
    ),
    (
        "module m (a);\n input a;\n INV g1 (.A(q[0]));\nendmodule\n",
        3,
        "undeclared",
        ("fast", "pyverilog"),
    ),
    (
        "module m (a);\n input a;\n INV g1 (.A(a));\n INV g1 (.A(a));\nendmodule\n",
        4,
        "duplicate",
        ("fast", "pyverilog"),
    ),
    ("module m (a, b);\n input a;\nendmodule\n", 1, "port 'b'", ("fast", "pyverilog")),
    (
        "module m (a);\n input a;\n output a;\nendmodule\n",
        3,
        "two directions",
        ("fast", "pyverilog"),
    ),
    (
        "module m (a);\n input a;\n INV g (.A(a), .A(a));\nendmodule\n",
        3,
        "connected twice",
        ("fast", "pyverilog"),
    ),
    (
        "module m (a);\n input a;\n wire [1:0] a;\nendmodule\n",
        3,
        "another range",
        ("fast", "pyverilog"),
    ),
    (
        "module m (a);\n input a;\n always @(a) begin end\nendmodule\n",
        3,
        "not structural",
        ("pyverilog",),
    ),
    ("module m (a);\n input a;\n INV #(2) g (.A(a));\nendmodule\n", 3, "parameter", ("pyverilog",)),
    ('module m (a);\n input a;\n\n`include "x.v"\nendmodule\n', 4, "`include", ("pyverilog",)),
    ("module m (a);\n input a;\n`foo\nendmodule\n", 3, "directive", ("pyverilog",)),
    ("module m (a);\n input a;\n INV g (.A(a & a));\nendmodule\n", 3, "", ("pyverilog",)),
    (
        "module m (a);\n input a;\n INV g (.A(`UNDEF));\nendmodule\n",
        3,
        "undefined macro",
        ("pyverilog",),
    ),
    ("module m (a);\n input a;\n/* never closed\nendmodule\n", 3, "", ("fast",)),
    ("\n\n", None, "no module", ("fast", "pyverilog")),
    (
        "module m (a);\n input a;\n sub u (.p(a));\nendmodule\nmodule sub (q);\n input q;\n"
        " m back (.a(q));\nendmodule\n",
        None,
        "",
        ("pyverilog",),
    ),
]


@pytest.mark.parametrize("text, line, what, readers", BAD)
def test_malformed(text, line, what, readers):
    for parser in readers:
        e = error(text, parser=parser)
        if line is not None:
            assert e.line == line, (parser, str(e))
        assert what in str(e), (parser, str(e))
    e = error(text, parser="auto")  # auto reports the error too
    if line is not None:
        assert e.line == line


# --------------------------------------------------------------------------- differential fuzz
@st.composite
def flat_netlists(draw):
    """Random flat netlists inside the fast reader's subset (both readers must agree)."""
    nsig = draw(st.integers(1, 8))
    sigs = []
    for k in range(nsig):
        if draw(st.booleans()):
            hi, lo = draw(st.integers(-2, 5)), draw(st.integers(-2, 5))
            sigs.append((f"s{k}", (hi, lo)))
        else:
            sigs.append((f"s{k}", None))
    nports = draw(st.integers(0, nsig))
    ports = sigs[:nports]
    dirs = [draw(st.sampled_from(["input", "output", "inout"])) for _ in ports]
    ansi = draw(st.booleans())

    def rng(r):
        return "" if r is None else f"[{r[0]}:{r[1]}] "

    if ansi:
        head = ", ".join(f"{d} wire {rng(r)}{n}" for (n, r), d in zip(ports, dirs))
        decls = []
    else:
        head = ", ".join(n for n, _ in ports)
        decls = [f"  {d} {rng(r)}{n};" for (n, r), d in zip(ports, dirs)]
    decls += [f"  wire {rng(r)}{n};" for n, r in sigs[nports:]]
    if draw(st.booleans()):
        decls.append("  // a comment; wire fake;")
    body = []
    for i in range(draw(st.integers(0, 8))):
        conns = []
        for p in draw(st.lists(st.sampled_from(["A", "B", "Z", "D", "Q"]), unique=True)):
            kind = draw(st.sampled_from(["sig", "bit", "const", "open", "implicit"]))
            n, r = draw(st.sampled_from(sigs))
            if kind == "bit" and r is not None:
                lo, hi = min(r), max(r)
                arg = f"{n}[{draw(st.integers(lo, hi))}]"
            elif kind == "const":
                arg = draw(st.sampled_from(["1'b0", "1'b1"]))
            elif kind == "open":
                arg = ""
            elif kind == "implicit":
                arg = f"imp{draw(st.integers(0, 3))}"
            elif r is None or r[0] == r[1]:
                arg = n
            else:
                arg = f"{n}[{r[0]}]"
            conns.append(f".{p}({arg})")
        cell = draw(st.sampled_from(["AND2", "INV", "DFF", "X_1"]))
        body.append(f"  {cell} \\u{i}/x  ( {', '.join(conns)} );" if i == 3 else
                    f"  {cell} u{i} ({', '.join(conns)});")  # fmt: skip
    for _ in range(draw(st.integers(0, 4))):  # net aliases, whole buses or single bits

        def operand(allow_const: bool) -> str:
            kinds = ["sig", "bit", "implicit"] + (["const"] if allow_const else [])
            kind = draw(st.sampled_from(kinds))
            n, r = draw(st.sampled_from(sigs))
            if kind == "const":
                return draw(st.sampled_from(["1'b0", "1'b1"]))
            if kind == "implicit":
                return f"imp{draw(st.integers(0, 3))}"
            if kind == "bit" and r is not None:
                return f"{n}[{draw(st.integers(min(r), max(r)))}]"
            return n

        body.append(f"  assign {operand(False)} = {operand(True)};")
    order = draw(st.permutations(decls + body)) if draw(st.booleans()) else decls + body
    return f"module top ({head});\n" + "\n".join(order) + "\nendmodule\n"


@settings(max_examples=80, deadline=None)
@given(flat_netlists())
def test_fast_reader_matches_pyverilog_on_random_flat_netlists(text):
    outcomes = {}
    for parser in ("fast", "pyverilog", "auto"):
        try:
            outcomes[parser] = parse_verilog(text, parser=parser, lib=LIB)
        except InputError as exc:
            outcomes[parser] = exc
    slow, auto = outcomes["pyverilog"], outcomes["auto"]
    fast = outcomes["fast"]
    if isinstance(fast, InputError) and "does not handle" in str(fast):
        event("outside the fast reader's subset")
        fast = auto
    event("rejected" if isinstance(slow, InputError) else "read")
    for got in (fast, auto):
        if isinstance(slow, InputError) or isinstance(got, InputError):
            # the same input is rejected by both, at the same line
            assert isinstance(got, InputError) and isinstance(slow, InputError), (got, slow)
            assert got.line == slow.line, (str(got), str(slow))
        else:
            assert got.difference(slow) is None
