"""Structural Verilog through pyverilog: several modules, flattened from a chosen or inferred top.

Supported: module headers in both styles (``module m(a, b); input a; ...`` and
``module m(input a, output [3:0] b)``), ``input``/``output``/``inout``/``wire``/``tri``/``reg``
declarations with constant ranges, instances of cells and of modules of the same file, named and
positional connections, bit-selects, part-selects, concatenations and replications in
connections, sized/unsized constants (bits 0/1; ``z`` bits leave a pin unconnected), unconnected
pins (``.A()``), ``assign lhs = rhs;`` where both sides are nets (aliases, joined into one net),
and implicit 1-bit nets. Behavioural code, parameters and instance arrays raise InputError with
the line.

Escaped identifiers lose their backslash (``\\INV_X1 `` names cell ``INV_X1``, as IEEE 1364-2005
section 3.7.1 says), everywhere: modules, cells, instances, pins and nets. Flattening may create
at most ``limit`` net bits, and instantiating a sub-module is refused once net bits, instances and
pins together pass ``limit`` too.

Naming: bit ``i`` of a bus ``d`` is ``d[i]``; a pin of a leaf cell connected to a w-bit
expression becomes pins ``P[w-1]`` .. ``P[0]``. Flattened names join the instance path with ``/``
(``u1/u2/g5``, ``u1/n3``). Nets joined by ports of sub-modules or by ``assign`` take the name of
the top-level port among them, else the constant (``1'b0``/``1'b1``), else the shallowest, first
declared name. Nets are numbered in order of first declaration or use.
"""

from __future__ import annotations

import logging
import re

import numpy as np

from ..errors import InputError
from .liberty import Library
from .raw import RawNetlist

log = logging.getLogger("igpart")

_DIRS = {"Input": 0, "Output": 1, "Inout": 2}
_CONST_RE = re.compile(r"^(\d*)'([sS]?)([bBoOdDhH])([0-9a-fA-FxXzZ_?]+)$")


class _Signal:
    __slots__ = ("name", "bits", "indices", "direction", "line")

    def __init__(self, name, bits, indices, direction, line):
        self.name = name
        self.bits = bits  # net-bit ids, msb first (declaration order)
        self.indices = indices  # declared index of each bit, or None for a scalar
        self.direction = direction
        self.line = line


class Elaborator:
    """Walks pyverilog's AST of one file and builds a :class:`RawNetlist`."""

    def __init__(self, modules: dict, lib: Library | None, file: str, limit: int = 1 << 62):
        self.modules = modules
        self.limit = limit
        self.lib = lib
        self.file = file
        self.bit_names: list[str] = []
        self.bit_depth: list[int] = []
        self.bit_port: list[bool] = []
        self.parent: list[int] = []
        self.const_bit: dict[str, int] = {}
        self.inst_names: list[str] = []
        self.inst_cells: list[str] = []
        self.inst_seen: set[str] = set()
        self.pin_inst: list[int] = []
        self.pin_names: list[str] = []
        self.pin_net: list[int] = []
        self.port_names: list[str] = []
        self.port_dir: list[int] = []
        self.port_bits: list[int] = []
        self.stack: list[str] = []

    def check_bits(self, more: int, node, what: str) -> None:
        """Raises before ``more`` net bits would bring the netlist past its limit."""
        total = len(self.bit_names) + more
        if total > self.limit:
            raise self.error(
                f"{what} brings the netlist to {total} net bits, over the limit of "
                f"{self.limit} for this input",
                node,
            )

    def check_flattening(self, node) -> None:
        """Raises when the flat netlist has grown past its limit (before a sub-module adds to it:
        each module's own contents are bounded by the text)."""
        total = len(self.bit_names) + len(self.inst_names) + len(self.pin_inst)
        if total > self.limit:
            raise self.error(
                f"flattening creates more than {self.limit} net bits, instances and pins, "
                "over the limit for this input",
                node,
            )

    def error(self, msg: str, node=None) -> InputError:
        line = getattr(node, "lineno", None) if node is not None else None
        return InputError(msg, self.file, line if line else None)

    # ------------------------------------------------------------------ nets
    def new_bit(self, name: str, depth: int) -> int:
        b = len(self.bit_names)
        self.bit_names.append(name)
        self.bit_depth.append(depth)
        self.bit_port.append(False)
        self.parent.append(b)
        return b

    def find(self, b: int) -> int:
        p = self.parent
        root = b
        while p[root] != root:
            root = p[root]
        while p[b] != root:
            p[b], b = root, p[b]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if ra < rb:
                self.parent[rb] = ra
            else:
                self.parent[ra] = rb

    def constant(self, value: str) -> int:
        b = self.const_bit.get(value)
        if b is None:
            b = self.new_bit(f"1'b{value}", 0)
            self.const_bit[value] = b
        return b

    # ------------------------------------------------------------------ expressions
    def int_value(self, node) -> int:
        name = type(node).__name__
        if name == "IntConst":
            bits = self.const_bits(node)
            if bits is not None and all(b in "01" for b in bits):
                return int("".join(bits), 2) if bits else 0
        elif name == "Uminus":
            return -self.int_value(node.right)
        raise self.error(
            f"expected a constant integer, found '{_text(node)}' (parameters and constant "
            "expressions are not supported)",
            node,
        )

    def const_bits(self, node) -> list[str] | None:
        """Bits of a constant, msb first ('0', '1', 'x', 'z'); None if not a constant."""
        v = node.value.replace("_", "")
        m = _CONST_RE.match(v)
        if m is None:
            if v.isdigit():
                if len(v) > 4000:
                    raise self.error(f"unsupported constant '{v[:40]}...'", node)
                return list(bin(int(v))[2:])
            return None
        width = int(m.group(1)) if m.group(1) else None
        base = m.group(3).lower()
        digits = m.group(4).lower().replace("?", "z")
        if width is not None:
            self.check_bits(width, node, f"constant '{node.value[:40]}'")
        if base == "d":
            if not digits.isdigit() or len(digits) > 4000:
                raise self.error(f"unsupported constant '{node.value[:40]}'", node)
            bits = list(bin(int(digits))[2:])
        else:
            per = {"b": 1, "o": 3, "h": 4}[base]
            bits = []
            for ch in digits:
                if ch in "xz":
                    bits.extend(ch * per)
                else:
                    bits.extend(format(int(ch, 16), f"0{per}b"))
        if width is not None:
            if len(bits) < width:
                fill = bits[0] if bits and bits[0] in "xz" else "0"
                bits = [fill] * (width - len(bits)) + bits
            bits = bits[len(bits) - width :]
        return bits

    def bits_of(self, node, scope: dict, depth: int, prefix: str) -> list[int | None]:
        """Net-bit ids of an expression, msb first (None: a 'z' bit, i.e. not connected)."""
        kind = type(node).__name__
        if kind == "Identifier":
            sig = self.lookup(node, scope, depth, prefix)
            return list(sig.bits)
        if kind == "Pointer":
            sig = self.signal_of(node.var, scope, depth, prefix)
            return [sig.bits[self.bit_position(sig, self.int_value(node.ptr), node)]]
        if kind == "Partselect":
            sig = self.signal_of(node.var, scope, depth, prefix)
            msb, lsb = self.int_value(node.msb), self.int_value(node.lsb)
            step = -1 if msb >= lsb else 1
            return [sig.bits[self.bit_position(sig, i, node)] for i in range(msb, lsb + step, step)]
        if kind in ("Concat", "LConcat"):
            out: list[int | None] = []
            for item in node.list:
                out.extend(self.bits_of(item, scope, depth, prefix))
            return out
        if kind == "Repeat":
            times = self.int_value(node.times)
            bits = self.bits_of(node.value, scope, depth, prefix)
            self.check_bits(max(times, 0) * len(bits), node, "a replication")
            return bits * times
        if kind == "IntConst":
            bits = self.const_bits(node)
            if bits is None:
                raise self.error(f"unsupported constant '{node.value}'", node)
            if "x" in bits:
                raise self.error(f"constant '{node.value}' has x bits (not a net)", node)
            return [None if b == "z" else self.constant(b) for b in bits]
        raise self.error(
            f"'{_text(node)}' is not a net expression (only nets, bit/part-selects, "
            "concatenations and constants are structural)",
            node,
        )

    def signal_of(self, node, scope, depth, prefix) -> _Signal:
        if type(node).__name__ != "Identifier":
            raise self.error(f"cannot select bits of '{_text(node)}'", node)
        return self.lookup(node, scope, depth, prefix, implicit=False)

    def lookup(self, node, scope, depth, prefix, implicit: bool = True) -> _Signal:
        if getattr(node, "scope", None) is not None:  # a.b.c: pyverilog keeps only "c"
            path = ".".join(ident(s.name) for s in node.scope.labellist)
            raise self.error(
                f"hierarchical reference '{path}.{ident(node.name)}' is not supported", node
            )
        name = ident(node.name)
        sig = scope.get(name)
        if sig is None:
            if not implicit:
                raise self.error(f"undeclared net '{name}'", node)
            # an implicit 1-bit net
            sig = _Signal(name, [self.new_bit(prefix + name, depth)], [None], None, node.lineno)
            scope[name] = sig
        return sig

    def bit_position(self, sig: _Signal, index: int, node) -> int:
        if sig.indices[0] is None:
            raise self.error(f"'{sig.name}' is a scalar net: it has no bit {index}", node)
        hi, lo = sig.indices[0], sig.indices[-1]
        if not (min(hi, lo) <= index <= max(hi, lo)):
            raise self.error(f"bit {index} of '{sig.name}' is outside [{hi}:{lo}]", node)
        return abs(index - hi)

    # ------------------------------------------------------------------ declarations
    def declare(self, decl, scope, depth, prefix, direction: int | None) -> None:
        kind = type(decl).__name__
        if kind in ("Supply", "Integer", "Real", "Genvar", "Parameter", "Localparam"):
            raise self.error(f"'{kind.lower()}' declarations are not supported", decl)
        if getattr(decl, "dimensions", None) is not None:
            raise self.error(f"arrays of nets are not supported ('{decl.name}')", decl)
        name = ident(decl.name)
        width = getattr(decl, "width", None)
        hi = lo = 0
        if width is not None:
            hi, lo = self.int_value(width.msb), self.int_value(width.lsb)
        if name not in scope:
            self.check_bits(abs(hi - lo) + 1, decl, f"'{name}' [{hi}:{lo}]")
        if width is not None:
            step = -1 if hi >= lo else 1
            indices = list(range(hi, lo + step, step))
        else:
            indices = [None]
        sig = scope.get(name)
        if sig is None:
            names = [prefix + name if i is None else f"{prefix}{name}[{i}]" for i in indices]
            sig = _Signal(
                name, [self.new_bit(n, depth) for n in names], indices, direction, decl.lineno
            )
            scope[name] = sig
            return
        if width is not None and sig.indices != indices:
            raise self.error(
                f"'{name}' is declared again with another range (first declared or used at "
                f"line {sig.line})",
                decl,
            )
        if direction is not None:
            if sig.direction is not None and sig.direction != direction:
                raise self.error(f"'{name}' is declared with two directions", decl)
            sig.direction = direction

    # ------------------------------------------------------------------ modules
    def header_ports(self, mod) -> list[str]:
        if mod.portlist is None:
            return []
        names = []
        for p in mod.portlist.ports:
            kind = type(p).__name__
            if kind == "Ioport":
                names.append(ident(p.first.name))
            elif kind == "Port":
                names.append(ident(p.name))
            else:
                raise self.error(f"unsupported port list entry '{kind}'", p)
        return names

    def elaborate(self, mod, prefix: str, depth: int) -> tuple[dict, list[str]]:
        """Declares the nets and instances of ``mod`` under ``prefix``; returns its scope and
        header port names (to bind a parent's connections, or to make top-level ports)."""
        mod_name = ident(mod.name)
        if mod_name in self.stack:
            raise self.error(f"module '{mod_name}' instantiates itself", mod)
        self.stack.append(mod_name)
        if mod.paramlist is not None and mod.paramlist.params:
            raise self.error(f"module '{mod_name}' has parameters (not supported)", mod)
        scope: dict[str, _Signal] = {}
        ports = self.header_ports(mod)
        if mod.portlist is not None:
            for p in mod.portlist.ports:
                if type(p).__name__ == "Ioport":
                    d = _DIRS.get(type(p.first).__name__)
                    self.declare(p.first, scope, depth, prefix, d)
        if len(set(ports)) != len(ports):
            raise self.error(f"module '{mod_name}' lists a port twice", mod)
        for item in mod.items:
            kind = type(item).__name__
            if kind == "Decl":
                for d in item.list:
                    dk = type(d).__name__
                    if dk in _DIRS:
                        self.declare(d, scope, depth, prefix, _DIRS[dk])
                    elif dk == "Assign":  # a net declaration assignment: wire n = a;
                        self.assign(d, scope, depth, prefix)
                    else:
                        self.declare(d, scope, depth, prefix, None)
            elif kind == "InstanceList":
                self.instances(item, scope, depth, prefix)
            elif kind == "Assign":
                self.assign(item, scope, depth, prefix)
            elif kind == "Pragma":
                continue
            else:
                raise self.error(
                    f"'{kind}' is not structural Verilog (only declarations, instances and "
                    "net-alias assigns are supported)",
                    item,
                )
        for name in ports:
            sig = scope.get(name)
            if sig is None or sig.direction is None:
                raise self.error(
                    f"port '{name}' of module '{mod_name}' has no input/output/inout declaration",
                    mod,
                )
        self.stack.pop()
        return scope, ports

    def assign(self, item, scope, depth, prefix) -> None:
        """``assign lhs = rhs;`` between nets: their bits are joined."""
        lhs = self.bits_of(item.left.var, scope, depth, prefix)
        rhs = self.bits_of(item.right.var, scope, depth, prefix)
        self.join(lhs, rhs, item, "assign")

    def join(self, a: list, b: list, node, what: str) -> None:
        if len(a) != len(b):
            log.warning(
                "%s:%s: %s joins %d bits to %d bits; extra high bits stay unconnected",
                self.file,
                node.lineno,
                what,
                len(a),
                len(b),
            )
            w = min(len(a), len(b))
            a, b = a[len(a) - w :], b[len(b) - w :]
        for x, y in zip(a, b):
            if x is not None and y is not None:
                self.union(x, y)

    def instances(self, item, scope, depth, prefix) -> None:
        if item.parameterlist:
            raise self.error(
                f"parameter overrides on '{ident(item.module)}' are not supported", item
            )
        for inst in item.instances:
            if inst.array is not None:
                raise self.error(f"instance arrays are not supported ('{inst.name}')", inst)
            if not inst.name:  # pyverilog takes "CELL (...)" for a gate primitive's form
                raise self.error(f"an instance of '{ident(inst.module)}' has no name", inst)
            name = prefix + ident(inst.name)
            if name in self.inst_seen:
                raise self.error(f"duplicate instance name '{name}'", inst)
            self.inst_seen.add(name)
            child = self.modules.get(ident(inst.module))
            args = list(inst.portlist or ())
            named = [a.portname is not None for a in args]
            if any(named) and not all(named):
                raise self.error(f"'{name}' mixes named and positional connections", inst)
            if child is not None:
                self.submodule(inst, child, name, args, all(named), scope, depth, prefix)
            else:
                self.leaf(inst, name, args, all(named), scope, depth, prefix)

    def leaf(self, inst, name, args, named, scope, depth, prefix) -> None:
        cell = ident(inst.module)
        i = len(self.inst_names)
        self.inst_names.append(name)
        self.inst_cells.append(cell)
        if named:
            pins = [ident(a.portname) for a in args]
        else:
            if len(args) == 1 and args[0].argname is None:
                args = []  # "CELL u ();"
            lc = self.lib.cells.get(cell) if self.lib is not None else None
            if lc is None:
                raise self.error(
                    f"positional connections on '{name}' need the pin order of cell '{cell}' "
                    "from a .lib",
                    inst,
                )
            order = lc.pin_order
            if len(args) > len(order):
                raise self.error(
                    f"'{name}' connects {len(args)} pins but cell '{cell}' has {len(order)}",
                    inst,
                )
            pins = order[: len(args)]
        seen = set()
        for pin, a in zip(pins, args):
            if pin in seen:
                raise self.error(f"pin '{pin}' of '{name}' is connected twice", inst)
            seen.add(pin)
            if a.argname is None:
                self._pin(i, pin, None)
                continue
            bits = self.bits_of(a.argname, scope, depth, prefix)
            if len(bits) == 1:
                self._pin(i, pin, bits[0])
            else:
                w = len(bits)
                for j, b in enumerate(bits):
                    self._pin(i, f"{pin}[{w - 1 - j}]", b)

    def _pin(self, inst: int, pin: str, bit: int | None) -> None:
        self.pin_inst.append(inst)
        self.pin_names.append(pin)
        self.pin_net.append(-1 if bit is None else bit)

    def submodule(self, inst, child, name, args, named, scope, depth, prefix) -> None:
        # the parent's connection bits first (implicit nets are the parent's), then the child
        actuals = [
            None if a.argname is None else self.bits_of(a.argname, scope, depth, prefix)
            for a in args
        ]
        self.check_flattening(inst)
        cscope, cports = self.elaborate(child, name + "/", depth + 1)
        if named:
            formals = [ident(a.portname) for a in args]
            for f in formals:
                if f not in cports:
                    raise self.error(f"module '{ident(child.name)}' has no port '{f}'", inst)
            if len(set(formals)) != len(formals):
                raise self.error(f"'{name}' connects a port twice", inst)
        else:
            if len(args) == 1 and args[0].argname is None:
                actuals, args = [], []
            if len(args) > len(cports):
                raise self.error(
                    f"'{name}' connects {len(args)} ports but module '{ident(child.name)}' has "
                    f"{len(cports)}",
                    inst,
                )
            formals = cports[: len(args)]
        for f, bits in zip(formals, actuals):
            if bits is not None:
                self.join(cscope[f].bits, bits, inst, f"port '{f}' of '{name}'")

    # ------------------------------------------------------------------ result
    def run(self, top) -> RawNetlist:
        scope, ports = self.elaborate(top, "", 0)
        for name in ports:
            sig = scope[name]
            for b in sig.bits:
                self.bit_port[b] = True
                self.port_names.append(self.bit_names[b])
                self.port_dir.append(sig.direction)
                self.port_bits.append(b)
        nb = len(self.bit_names)
        root = np.array([self.find(b) for b in range(nb)], dtype=np.int64)
        # each class: numbered by its first member, named by priority
        first = np.full(nb, nb, dtype=np.int64)
        np.minimum.at(first, root, np.arange(nb))
        const_of = {self.find(b): v for v, b in self.const_bit.items()}
        if len(const_of) < len(self.const_bit):
            raise InputError("a net is tied to both 1'b0 and 1'b1", self.file)
        const_bits = set(self.const_bit.values())
        best: dict[int, tuple] = {}
        for b in range(nb):
            r = int(root[b])
            rank = (
                0 if self.bit_port[b] else (1 if b in const_bits else 2),
                self.bit_depth[b],
                b,
            )
            if r not in best or rank < best[r]:
                best[r] = rank
        roots = sorted(best, key=lambda r: first[r])
        net_of_root = {r: k for k, r in enumerate(roots)}
        net_names = [self.bit_names[best[r][2]] for r in roots]
        net_of_bit = np.array([net_of_root[int(r)] for r in root], dtype=np.int32)
        pin_net = np.array(self.pin_net, dtype=np.int64)
        pin_net = np.where(pin_net >= 0, net_of_bit[np.maximum(pin_net, 0)] if nb else -1, -1)
        cells, inst_cell = _intern(self.inst_cells)
        pins, pin_name = _intern(self.pin_names)
        return RawNetlist(
            top=ident(top.name),
            port_names=self.port_names,
            port_dir=np.array(self.port_dir, dtype=np.int8),
            port_net=net_of_bit[np.array(self.port_bits, dtype=np.int64)]
            if self.port_bits
            else np.zeros(0, dtype=np.int32),
            net_names=net_names,
            inst_names=self.inst_names,
            inst_cell=inst_cell,
            cell_names=cells,
            pin_inst=np.array(self.pin_inst, dtype=np.int32),
            pin_name=pin_name,
            pin_names=pins,
            pin_net=pin_net.astype(np.int32),
        )


def _intern(values: list[str]) -> tuple[list[str], np.ndarray]:
    index: dict[str, int] = {}
    ids = np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int32)
    return list(index), ids


def ident(name: str) -> str:
    """The name an identifier stands for: an escaped identifier (``\\a[3] ``) without its
    backslash (pyverilog keeps it; the terminating white space is already gone)."""
    return name[1:] if name.startswith("\\") else name


def _text(node) -> str:
    try:
        from pyverilog.ast_code_generator.codegen import ASTCodeGenerator

        return ASTCodeGenerator().visit(node).strip()
    except Exception:  # codegen needs jinja2 templates; fall back to the node type
        return type(node).__name__
