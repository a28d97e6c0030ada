"""Verilog readers under hostile input: limits, line endings, escaped names, bytes that are not
UTF-8; the fast reader and pyverilog must agree (same circuit, or an InputError at the same line).
"""

from __future__ import annotations

import gzip

import pytest

from igpart.errors import InputError
from igpart.netlist import parse_verilog, read_verilog
from igpart.netlist.raw import max_netlist_elements

READERS = ("fast", "pyverilog")


def both(data: bytes | str):
    fast = parse_verilog(data, parser="fast", file="t.v")
    slow = parse_verilog(data, parser="pyverilog", file="t.v")
    assert fast.difference(slow) is None
    return fast


def errors(data: bytes | str, readers=READERS) -> list[InputError]:
    out = []
    for parser in readers:
        with pytest.raises(InputError) as e:
            parse_verilog(data, parser=parser, file="t.v")
        assert e.value.file == "t.v"
        out.append(e.value)
    assert len({e.line for e in out}) == 1, [str(e) for e in out]
    return out


@pytest.mark.parametrize("msb", [2147483647, 99999999, 1 << 20])
def test_huge_bus_fails_at_once_with_its_line(msb):
    text = f"module top(a);\ninput a;\nwire [{msb}:0] w;\nendmodule\n"
    for e in errors(text):
        assert e.line == 3 and "over the limit" in str(e) and f"[{msb}:0]" in str(e)


def test_bus_within_the_limit_is_read():
    text = "module top(a);\ninput a;\nwire [65534:0] w;\nINV u(.A(w[7]), .ZN(a));\nendmodule\n"
    assert max_netlist_elements(len(text)) > 65536
    c = both(text)
    assert c.num_nets == 65536 and "w[7]" in c.net_names


@pytest.mark.parametrize(
    "body",
    [
        "INV u(.A({100000000{a}}), .ZN(y));",  # replication
        "INV u(.A(99999999'b0), .ZN(y));",  # a wide constant
    ],
)
def test_pyverilog_expansions_are_bounded(body):
    text = f"module top(a, y);\ninput a; output y;\n{body}\nendmodule\n"
    (e,) = errors(text, readers=("pyverilog",))
    assert e.line == 3 and "over the limit" in str(e)


def test_hierarchy_blowup_is_bounded():
    # ten levels of ten instances: 10**10 leaf instances from a few hundred bytes
    mods = ["module m0(a); input a; INV u(.A(a), .ZN()); endmodule"]
    for i in range(1, 11):
        insts = " ".join(f"m{i - 1} x{j}(.a(a));" for j in range(10))
        mods.append(f"module m{i}(a); input a; {insts} endmodule")
    (e,) = errors("\n".join(mods) + "\n", readers=("pyverilog",))
    assert "flattening creates more than" in str(e)


def test_many_ports_and_connections_read_linearly():
    n = 20000
    ports = ", ".join(f"p{i}" for i in range(n))
    text = f"module top({ports});\n" + "".join(f"input p{i};\n" for i in range(n)) + "endmodule\n"
    c = parse_verilog(text, parser="fast")
    assert c.num_ports == n
    dup = f"module top({ports}, p{n - 1});\n" + text.split("\n", 1)[1]
    (e,) = errors(dup, readers=("fast",))
    assert "lists a port twice" in str(e)
    conns = ", ".join(f".A{i}(p0)" for i in range(n))
    c = parse_verilog(f"module top(p0);\ninput p0;\nBIG u1({conns});\nendmodule\n", parser="fast")
    assert c.num_pins == n + 1  # and the port's own pin
    (e,) = errors(f"module top(p0);\ninput p0;\nBIG u1({conns}, .A0(p0));\nendmodule\n", ("fast",))
    assert e.line == 3 and "pin 'A0' of 'u1' is connected twice" in str(e)


TWO_MODULES = (
    "module leaf(a, y);\n  input a; output y;\n  INV g(.A(a), .ZN(y));\nendmodule\n"
    "module top(a, y);\n  input a; output y;\n  wire n;\n"
    "  leaf l1(.a(a), .y(n));\n  leaf l2(.a(n), .y(y));\nendmodule\n"
)
FLAT = (
    "// flat\nmodule top(a, y);\n  input a; output y;\n  wire n;\n"
    "  INV g1(.A(a), .ZN(n));\n  INV g2(.A(n), .ZN(y));\nendmodule\n"
)


def test_crlf_line_endings():
    crlf = FLAT.replace("\n", "\r\n")
    assert both(crlf).difference(both(FLAT)) is None
    two = TWO_MODULES.replace("\n", "\r\n")
    auto = parse_verilog(two)  # the fast reader hands a second module to pyverilog
    assert auto.difference(parse_verilog(TWO_MODULES)) is None
    assert auto.instance_names == ["l1/g", "l2/g"]
    # line numbers count LF only, so errors point at the same line either way
    bad = "module top(a);\r\n  input a;\r\n  INV g1(.A(a) .ZN());\r\nendmodule\r\n"
    assert errors(bad)[0].line == 3


def test_escaped_identifiers_name_without_the_backslash():
    text = (
        "module \\top (\\a , y);\n  input \\a ; output y;\n"
        "  \\INV_X1  \\g1 (.\\A (\\a ), .ZN(y));\nendmodule\n"
    )
    c = both(text)
    plain = both(
        "module top(a, y);\n  input a; output y;\n  INV_X1 g1(.A(a), .ZN(y));\nendmodule\n"
    )
    assert c.difference(plain) is None
    assert c.name == "top" and c.instance_cells == ["INV_X1"]
    hier = TWO_MODULES.replace("module leaf", "module \\leaf ").replace("leaf l", "\\leaf  l")
    assert parse_verilog(hier, parser="pyverilog").difference(parse_verilog(TWO_MODULES)) is None


@pytest.mark.parametrize(
    "name,byte",
    [(b"\\u\xff1 ", "0xff"), (b"\\A\x00 ", "0x00"), (b"\\caf\xc3\xa9 ", "0xc3"),
     (b"\\a\x01b ", "0x01")],
)
def test_escaped_identifiers_hold_printable_ascii_only(name, byte):
    for text in (
        b"module top(a);\ninput a;\nwire n;\nINV " + name + b"(.A(a), .ZN(n));\nendmodule\n",
        b"module top(a);\ninput a;\nwire n;\nINV u1(." + name + b"(a), .ZN(n));\nendmodule\n",
    ):
        for e in errors(text):
            assert e.line == 4 and f"escaped identifier holds byte {byte}" in str(e)


def test_nul_no_longer_merges_pins():
    # `.\A<NUL>` and `.A` were read as the same pin
    text = b"module top(a);\ninput a;\nwire n;\nINV u1(.\\A\x00 (a), .A(n));\nendmodule\n"
    assert all(e.line == 4 for e in errors(text))


def test_bytes_that_are_not_utf8():
    in_comment = FLAT.replace("// flat", "// caf\xe9").encode("latin-1")
    assert both(in_comment).num_instances == 2
    block = FLAT.replace("// flat", "/* \xff\xfe */").encode("latin-1")
    assert both(block).num_instances == 2
    stray = FLAT.replace("wire n;", "wire n\xff;").encode("latin-1")
    for e in errors(stray):
        assert e.line == 4 and "not UTF-8 text (byte 0xff)" in str(e)
        str(e).encode("utf-8")


def test_gzip_netlist(tmp_path):
    f = tmp_path / "top.v.gz"
    f.write_bytes(gzip.compress(FLAT.encode()))
    assert read_verilog(f).difference(both(FLAT)) is None


def test_macro_expansion_is_bounded():
    lines = ["`define A0 x"] + [f"`define A{i} `A{i - 1}`A{i - 1}" for i in range(1, 31)]
    text = "\n".join(lines) + "\nmodule top(a); input a; wire `A30 ; endmodule\n"
    (e,) = errors(text, readers=("pyverilog",))
    assert e.line == 32 and "macro expansion" in str(e)
    small = "\n".join(lines[:6]) + "\nmodule top(a); input a; wire `A5 ; endmodule\n"
    assert "x" * 32 in parse_verilog(small, parser="pyverilog").net_names


def test_many_equal_instance_names_are_found_linearly():
    text = "module top(a);\ninput a;\n" + "INV u(.A(a));\n" * 50000 + "endmodule\n"
    assert all("duplicate instance name 'u'" in str(e) for e in errors(text, ("fast",)))
    names = "".join(f"INV u{i}(.A(a));\n" for i in range(10))
    text = "module top(a);\ninput a;\nINV v(.A(a));\n" + names + "INV u3(.A(a));\nINV v(.A(a));\n"
    for e in errors(text + "endmodule\n"):
        assert e.line == 14 and "'u3'" in str(e)  # the first duplicate in the file


def test_deep_nesting_is_an_input_error():
    def netlist(depth: int) -> str:
        nested = "{" * depth + "a" + "}" * depth
        return f"module top(a); input a;\nINV u(.A({nested}), .ZN()); endmodule\n"

    assert parse_verilog(netlist(98), parser="pyverilog").num_pins == 2  # 100 levels with u( .A(
    for depth in (99, 5000):  # 5000 levels overflowed Python's recursion limit
        (e,) = errors(netlist(depth), readers=("pyverilog",))
        assert e.line == 2 and "nested more than 100 deep" in str(e)


def test_net_declaration_assignment_is_an_alias():
    # found by the fuzz suite: `wire n = a;` raised AttributeError in the elaborator
    decl = "module top(a, y);\ninput a; output y;\nwire n = a;\nINV g(.A(n), .ZN(y));\nendmodule\n"
    alias = decl.replace("wire n = a;", "wire n; assign n = a;")
    c = parse_verilog(decl)  # auto: the fast reader hands it to pyverilog
    assert c.difference(parse_verilog(alias, parser="fast")) is None
    assert c.net_names == ["a", "y"]


def test_readers_agree_on_comment_marks_macros_and_names():
    # found by comparing the readers on mutated netlists: an escaped identifier may hold // or
    # /* and a backtick (no comment starts, no macro expands inside it); an instance needs a name
    base = FLAT.replace("wire n;", "wire n, \\NAME ;").replace("g2(.A(n)", "g2(.A(\\NAME )")
    for name in ("\\n//x", "\\n/*x", "\\n`X", "\\a*/"):
        c = both(base.replace("\\NAME", name))
        assert name[1:] in c.net_names
    for e in errors(FLAT.replace("INV g2", "INV")):
        assert e.line == 6
    for text in ("module top(a);\ninput a;\nINV u", "module top(a);\ninput a;\n\n", "\n\n"):
        assert len({e.line for e in errors(text)}) == 1  # the end of the file, at one line


def test_signed_range_bounds():
    assert both("module top(a);\ninput a;\nwire [+5:-1] w;\nendmodule\n").num_nets == 8


def test_escaped_keywords_and_hierarchical_references():
    # \wire is a name, not the keyword; pyverilog kept only the last part of a.b.c
    for e in errors("module top(a);\ninput a;\n\\wire net_0;\nendmodule\n"):
        assert e.line == 3
    c = both("module top(a);\ninput a;\n\\wire u(.A(a));\nendmodule\n")
    assert c.instance_cells == ["wire"]
    (e,) = errors("module top(a); input a;\nINV u(.A(x.y.z[1])); endmodule\n", ("pyverilog",))
    assert e.line == 2 and "hierarchical reference 'x.y.z'" in str(e)


def test_unescaped_keywords_are_not_names():
    # the fast reader took `.QN(endmodule)` for an implicit net named endmodule
    text = "module top(a);\ninput a;\nINV u(.A(a), .ZN(endmodule\n));\nendmodule\n"
    for e in errors(text):
        assert e.line == 3
    assert both(text.replace("(endmodule", "(\\endmodule ")).net_names == ["a", "endmodule"]
