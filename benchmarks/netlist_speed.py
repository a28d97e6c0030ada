"""Verilog reading speed: igpart's C++ fast reader vs the pyverilog reader, side by side.

Builds a large flat netlist from renamed copies of the TAU 2015 tv80 netlist (one module, every
port, net and instance of copy k suffixed ``_k``) in a temporary file, then times:

- ``fast``: ``read_verilog(parser="fast")`` end to end (read the file, C++ parse, build the
  Circuit with pin directions from cells_early.lib), and the C++ parse alone;
- ``pyverilog``: ``read_verilog(parser="pyverilog")`` on a smaller file of the same kind (its
  throughput does not depend on size; on the big file it would take many minutes).

Both readers also run on the same small file so the MB/s compare like for like.

``--design-copies N`` (default 5: about 26,000 instances) also times what a user pays for a
design of that size with its library: ``read_verilog(path, lib=LIBERTY_PATH)`` in the process
(the Liberty file parsed in the call), and the whole ``igpart info FILE --lib LIB`` command in a
fresh process, with the fast reader and with ``--parser pyverilog``. Usage:

    python benchmarks/netlist_speed.py [--copies 230] [--small-copies 2] [--design-copies 5] \
        [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import igpart
from igpart.kernels import _cpu
from igpart.netlist import read_liberty, read_verilog
from igpart.netlist.raw import max_netlist_elements

HERE = Path(__file__).resolve().parent
TAU = Path(os.environ.get("IGPART_BENCHMARKS", HERE.parent.parent / "shared" / "benchmarks"))
TAU = TAU / "tau2015"

_DECL = re.compile(r"^(\s*(?:input|output|wire)\s+)(\w+)(\s*;)", re.M)
_CELL = re.compile(r"^(\s*\w+\s+)(\w+)(\s*\()", re.M)
_CONN = re.compile(r"(\.\w+\(\s*)(\w+)(\s*\))")


def renamed_copies(text: str, copies: int) -> str:
    """One flat module holding ``copies`` renamed copies of a flat module's body."""
    head, body = text.split(";", 1)
    name = re.search(r"module\s+(\w+)", head).group(1)
    ports = re.findall(r"\w+", head[head.index("(") + 1 :])
    body = body[: body.rindex("endmodule")]
    out_ports, parts = [], []
    for k in range(copies):
        sfx = f"_{k}"
        out_ports.extend(p + sfx for p in ports)
        b = _DECL.sub(lambda m, s=sfx: m.group(1) + m.group(2) + s + m.group(3), body)
        b = _CELL.sub(lambda m, s=sfx: m.group(1) + m.group(2) + s + m.group(3), b)
        b = _CONN.sub(lambda m, s=sfx: m.group(1) + m.group(2) + s + m.group(3), b)
        parts.append(b)
    return (
        f"module {name}_x{copies} (\n"
        + ",\n".join(out_ports)
        + ");\n"
        + "".join(parts)
        + ("endmodule\n")
    )


def best_of(fn, repeat: int) -> tuple[tuple[float, float], object]:
    """((best wall seconds, best CPU seconds of this process), last result)."""
    wall, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return (wall, cpu), result


def design_rows(src: str, tmp: Path, copies: int, repeat: int) -> dict:
    """What a user pays for a design of ``copies`` tv80 copies with its Liberty file: the read
    in the process (the library parsed in the call) and the whole ``igpart info`` command in a
    fresh process with either reader (fast: best of ``repeat``; pyverilog: one run)."""
    path = tmp / f"design_x{copies}.v"
    path.write_text(renamed_copies(src, copies))
    lib = TAU / "cells_early.lib"
    t, c = best_of(lambda: read_verilog(path, lib=str(lib)), repeat)
    cmd = [sys.executable, "-m", "igpart", "info", str(path), "--lib", str(lib)]

    def whole(extra: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(cmd + extra, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0

    fast = min(whole([]) for _ in range(repeat))
    pyv = whole(["--parser", "pyverilog"])
    return {"instances": c.num_instances, "MB": path.stat().st_size / 1e6,
            "lib_MB": lib.stat().st_size / 1e6, "read_seconds": t[0],
            "info_fast_seconds": fast, "info_pyverilog_seconds": pyv,
            "info_speedup": pyv / fast}  # fmt: skip


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=230)
    ap.add_argument("--small-copies", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--design-copies", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    src = (TAU / "tv80" / "tv80.v").read_text()
    lib = read_liberty(TAU / "cells_early.lib")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.v"
        big = Path(tmp) / "big.v"
        small.write_text(renamed_copies(src, args.small_copies))
        big.write_text(renamed_copies(src, args.copies))
        for path in (small, big):
            mb = path.stat().st_size / 1e6
            data = path.read_bytes()  # warm the page cache

            def row(reader: str, t: tuple, c, mb=mb, name=path.name) -> None:
                rows.append({"file": name, "MB": mb, "reader": reader, "seconds": t[0],
                             "cpu_seconds": t[1], "instances": c.num_instances,
                             "pins": c.num_pins})  # fmt: skip

            t, c = best_of(lambda p=path: read_verilog(p, parser="fast", lib=lib), args.repeat)
            row("fast", t, c)
            t, _ = best_of(lambda d=data: _cpu.read_flat_verilog(d, max_netlist_elements(len(d))),
                           args.repeat)
            row("fast (C++ parse only)", t, c)
            if path is small:
                t, c2 = best_of(lambda p=path: read_verilog(p, parser="pyverilog", lib=lib), 1)
                assert c2.equals(c), "the readers disagree"
                row("pyverilog", t, c2)
        design = design_rows(src, Path(tmp), args.design_copies, args.repeat)
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
        ).stdout.strip()
    except OSError:
        commit = "?"
    for r in rows:
        r["MB/s"] = r["MB"] / r["seconds"]
        r["MB/s (CPU time)"] = r["MB"] / r["cpu_seconds"]
    pyv = next(r for r in rows if r["reader"] == "pyverilog")
    for r in rows:
        r["speed / pyverilog"] = r["MB/s"] / pyv["MB/s"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    meta = {"machine": machine(), "commit": commit, "igpart": igpart.__version__,
            "load_average_1min": load,
            "command": " ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]])}  # fmt: skip
    if args.json:
        print(json.dumps({**meta, "rows": rows, "design": design}))
        return
    print(f"# {meta['machine']}; commit {commit}; load average at the end {load:.2f}")
    print(
        "| file | MB | reader | seconds | MB/s | CPU s | MB/s (CPU) | speed / pyverilog "
        "| instances | pins |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['file']} | {r['MB']:.1f} | {r['reader']} | {r['seconds']:.3f} | "
            f"{r['MB/s']:.1f} | {r['cpu_seconds']:.3f} | {r['MB/s (CPU time)']:.1f} | "
            f"{r['speed / pyverilog']:.0f}x | {r['instances']:,} | {r['pins']:,} |"
        )
    d = design
    print(f"\n{d['instances']:,} instances ({d['MB']:.1f} MB) with cells_early.lib "
          f"({d['lib_MB']:.1f} MB): read_verilog with the library parsed in the call "
          f"{d['read_seconds']:.3f} s; `igpart info FILE --lib LIB` whole process "
          f"{d['info_fast_seconds']:.2f} s, with --parser pyverilog "
          f"{d['info_pyverilog_seconds']:.2f} s ({d['info_speedup']:.0f}x)")


if __name__ == "__main__":
    main()
