"""Liberty reader: the same library as liberty-parser gives, every bad input an InputError with
file and line, bounded work on hostile input."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from igpart.errors import InputError
from igpart.netlist import liberty, parse_liberty, read_liberty


def _oracle(text: str) -> dict:
    """Cells -> (pins in order with directions, clock pins, area) straight from liberty-parser's
    groups (plain pins only: what cells_early.lib holds)."""
    from liberty.parser import parse_liberty as lp_parse

    root = lp_parse(text)
    out = {}
    for cell in root.get_groups("cell"):
        pins, clocks = {}, set()
        for g in cell.get_groups("pin"):
            d = str(g["direction"])
            for a in g.args:
                pins[str(a)] = d
                if str(g.get("clock", "false")) == "true":
                    clocks.add(str(a))
        area = cell.get("area")
        out[str(cell.args[0])] = (list(pins.items()), clocks, None if area is None else float(area))
    return out


def _summary(lib) -> dict:
    return {c.name: (list(c.pins.items()), c.clock_pins, c.area) for c in lib.cells.values()}


def _via_liberty_parser(text: str, file: str = "t.lib"):
    src = liberty._Source(file, None, len(text))
    return liberty._library(liberty._parse_with_liberty_parser(text, src), src)


def test_cells_early_equals_liberty_parser(tau2015):
    path = tau2015 / "cells_early.lib"
    text = path.read_text()
    lib = read_liberty(path)
    assert lib.name == "tau2015_tv80_Early" and len(lib.cells) == 105
    assert _summary(lib) == _oracle(text)
    assert _summary(lib) == _summary(_via_liberty_parser(text))
    assert sum(len(c.clock_pins) for c in lib.cells.values()) == 16


RICH = r"""/* a library with what the reader looks at, and what it skips */
library ("rich") {
  time_unit : "1ns" ; // a comment
  # a hash comment
  capacitive_load_unit (1, ff);
  type (bus4) { base_type : array ; bit_from : 3 ; bit_to : 0 ; bit_width : 4 ; }
  lu_table_template (t) { variable_1 : total_output_net_capacitance; index_1 ("1, 2"); }
  cell (NAND2) {
    area : 1.5e0 ;
    pin (A, B) { direction : "input"; capacitance : 1; }
    pg_pin (VDD) { pg_type : primary_power; }
    pin (ZN) {
      direction : output ;
      function : "!(A & B)";
      timing () { related_pin : "A"; cell_rise (t) { values ("1, \
        2"); } }
    }
  }
  cell ("DFF") {
    area : 4;
    pin (CK) { direction : input; clock : true; }
    pin (D) { direction : input }
    pin (Q) { direction : output; }
    pin (IQ) { direction : internal; }
    ff (IQ, IQN) { next_state : "D"; clocked_on : "CK"; }
    test_cell () { pin (SI) { direction : input; } }
  }
  cell (MUX4) {
    area : 2 * 3 ;
    type (b2) { base_type : array; bit_from : 0; bit_to : 1; }
    bus (D) { bus_type : bus4; direction : input; }
    bus (S) { bus_type : b2; direction : input; }
    bus (Y) { direction : output; pin (Y[0:1]) { } pin (Y[2]) { direction : inout; } }
    pin (Z) { direction : output; }
  }
  cell (REG2) {
    bundle (Q) { members (Q0, Q1); direction : output; }
    bundle (D) { members (D0, D1); pin (D0) { direction : input; } pin (D1) { direction : input; } }
    pin (CK) { direction : input ; clock : "true" ; }
  }
}
"""


def test_rich_library_both_parsers_agree():
    with pytest.raises(InputError, match=r"t.lib:29: cell 'MUX4': area '2 \* 3' is not a number"):
        parse_liberty(RICH, "t.lib")
    text = RICH.replace("area : 2 * 3 ;", "area : 6 ;")
    lib = parse_liberty(text, "t.lib")
    assert lib.name == "rich"
    cells = lib.cells
    assert cells["NAND2"].pins == {"A": "input", "B": "input", "ZN": "output"}
    assert cells["NAND2"].area == 1.5
    assert cells["DFF"].pin_order == ["CK", "D", "Q"] and cells["DFF"].clock_pins == {"CK"}
    assert cells["MUX4"].pins == {
        "D[3]": "input", "D[2]": "input", "D[1]": "input", "D[0]": "input",
        "S[0]": "input", "S[1]": "input",
        "Y[0]": "output", "Y[1]": "output", "Y[2]": "inout", "Z": "output",
    }  # fmt: skip
    assert cells["REG2"].pins == {"Q0": "output", "Q1": "output", "D0": "input", "D1": "input",
                                  "CK": "input"}  # fmt: skip
    assert cells["REG2"].clock_pins == {"CK"} and cells["REG2"].area is None
    assert _summary(lib) == _summary(_via_liberty_parser(text))


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as e:
        parse_liberty(text, "bad.lib")
    assert e.value.file == "bad.lib"
    return e.value


BUS = """library (x) {
  type (b) { bit_from : 0; bit_to : %s; }
  cell (c) { bus (D) { bus_type : b; direction : input; } }
}
"""


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (BUS % "50000000", 2, "50000001 bits"),
        (BUS.replace("bit_from : 0", "bit_from : x") % "3", 2, "bit_from must be an integer"),
        (BUS.replace("bit_from : 0", 'bit_from : "0"') % "3", 2, "bit_from must be an integer"),
        (BUS % ("9" * 5000), 2, "bit_to must be an integer"),
        ("library (x) {\n cell (c) {\n  area : 1;\n  area : 2; } }", 4, "'area' is given 2 times"),
        ("library (x) {\n cell (c) {\n pin (A) { direction : in; } } }", 3, "direction 'in'"),
        ("library (x) {\n cell (c) {\n pin (A) { direction : input; direction : output; } } }",
         3, "'direction' is given 2 times"),
        ("library (x) {\n cell (c) { area : ten; } }", 2, "area 'ten' is not a number"),
        ("library (x) {\n cell (c) {\n pin (A) { } }\n", 1, "library group is not closed"),
        ("}\nlibrary (x) { }", 1, "'}' without a group"),
        ("library (x) { }\n}", 2, "text after the end"),
        ("library (x) { }\nlibrary (y) { }", 2, "text after the end"),
        ("", 1, "holds no Liberty group"),
        ("cell (x) { }", 1, "expected a 'library' group"),
        ("library (x) {\n cell (c) { pin (A) { direction : input } \n pin (B) { : } } }", 3,
         "expected a group or attribute name"),
    ],
)
def test_bad_libraries(text, line, words):
    e = _error(text)
    assert e.line == line, str(e)
    assert words in str(e)


def test_many_wide_buses_in_a_small_file_are_refused():
    buses = " ".join(f"bus (D{i}) {{ bus_type : b; direction : input; }}" for i in range(30))
    text = BUS.replace("bus (D) { bus_type : b; direction : input; }", buses) % "8000"
    assert len(text) < 2000
    assert "more pins than" in str(_error(text))
    assert "more pins than" in str(_error(BUS.replace("bus (D)", "bus (" + ", ".join(
        f"D{i}" for i in range(40)) + ")") % "8000"))  # fmt: skip


def test_what_only_liberty_parser_reads_falls_back_to_it():
    # a trailing comma in an argument list: the fast reader refuses it, liberty-parser takes it
    lib = parse_liberty("library (x) {\n cell (A) { pin (Z, ) { direction : input; } } }")
    assert lib.cells["A"].pins == {"Z": "input"}
    # an error liberty-parser also refuses reports the fast reader's message and line
    e = _error("library (x) {\n cell (A) {\n pin (Z Y) { direction : input; } } }")
    assert e.line == 3 and "separated by commas" in str(e)


def test_reading_does_not_import_liberty_parser(tau2015):
    code = (
        "import sys; from igpart.netlist import read_liberty; "
        f"read_liberty({str(tau2015 / 'cells_early.lib')!r}); "
        "print('liberty.parser' in sys.modules, 'sympy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


_PIECES = ["library", "cell", "pin", "bus", "bundle", "type", "(", ")", "{", "}", ";", ":", ",",
           "[", "]", '"', "'", "\\\n", "/*", "*/", "//", "#", "\n", " ", "A", "0", "-1",
           "99999999999", "direction", "input", "area", "bit_from", "bit_to", "bus_type",
           "members", "clock", "true", "D[0:3]", "\x00", "\xff"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60), st.integers(0, len(RICH)))
def test_mutated_libraries_are_read_or_refused_with_input_error(pieces, at):
    text = RICH[:at] + " ".join(pieces) + RICH[at:]
    try:
        lib = parse_liberty(text, "m.lib")
    except InputError as e:
        assert e.file == "m.lib"
        return
    assert all(d in liberty.DIRECTIONS for c in lib.cells.values() for d in c.pins.values())


@pytest.mark.parametrize("text", [
    "library (t) {\n  cell (AND1) { area : (",
    "library (t) {\n  cell (AND1) { area : ( 1 + 2",
    "library (t) {\n  cell (A) { pin (Z) { function : \"A\" ; } }\n  cell (B) { x : (",
    "library (t) { cell (A) ) }",
])
def test_unbalanced_text_is_an_error_not_a_hang(text, monkeypatch):
    """Text that ends inside a group or an argument list (a truncated file) is an error of the
    fast reader; it is not handed to liberty-parser, which can loop for minutes on it."""

    def never(*args):
        raise AssertionError("handed to liberty-parser")

    monkeypatch.setattr(liberty, "_parse_with_liberty_parser", never)
    with pytest.raises(InputError, match=r"t\.lib:\d+: Liberty syntax error"):
        parse_liberty(text, "t.lib")
