"""Reading speed of igpart's hMETIS reader, side by side with Mt-KaHyPar's (when installed).

Builds a large circuit-like .hgr with the seeded generator (nothing from outside the repo), then
times each reader on the same file; prints MB/s and the ratio. With ``--graph S``, a METIS
graph instead: a random geometric graph of 2^S points (``igpart.generators.rgg_graph``, the
suite's ``rgg_n_2_S``), read by igpart, Mt-KaHyPar and KaMinPar where installed, each also in
``--repeat`` fresh processes for its time there and its peak resident memory (the median run's;
that of the process after its imports is reported beside it). The ``.hgr`` row "fresh process"
is igpart's first read in a new process (the median of ``--repeat``). A first read pays for
first touching its new memory, where a repeated read in one process reuses the pages of the
one before: a command's read is a first read.
Usage:

    python benchmarks/io_speed.py [--vertices 4000000] [--repeat 3] [--json]
    python benchmarks/io_speed.py --graph 20 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import igpart
from igpart import io
from igpart.generators import random_circuit


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


#: Each graph reader as a statement on ``path`` (its imports run before the clock starts).
GRAPH_READERS = {
    "igpart": ("import igpart", "igpart.read_graph(path)"),
    "mtkahypar (1 thread)": (
        "import mtkahypar; init = mtkahypar.initialize(1, False); "
        "ctx = init.context_from_preset(mtkahypar.PresetType.DEFAULT)",
        "init.graph_from_file(path, ctx, mtkahypar.FileFormat.METIS)"),
    "kaminpar": ("import kaminpar",
                 "kaminpar.load_graph(path, kaminpar.GraphFileFormat.METIS)"),
}


def fresh_run(setup: str, stmt: str | None, path: str) -> tuple[float, float]:
    """A fresh process that runs ``setup`` and then ``stmt`` once: the seconds of ``stmt``
    (what a command pays for its read: new memory is first touched there, where a repeated
    read in one process reuses the pages of the one before) and the peak resident MB."""
    # VmHWM: the peak of this process's own memory (ru_maxrss would carry the parent's over
    # fork and exec)
    code = (f"import time; path = {path!r}; {setup}; t0 = time.perf_counter(); "
            + (f"{stmt}; " if stmt else "") + "print(time.perf_counter() - t0); "
            + "print([int(x.split()[1]) / 1024 for x in open('/proc/self/status') "
            "if x.startswith('VmHWM')][0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    seconds, peak = out.stdout.strip().splitlines()[-2:]
    return float(seconds), float(peak)


def peak_rss(setup: str, stmt: str | None, path: str) -> float:
    """Peak resident MB of a fresh process that runs ``setup`` and then ``stmt`` once."""
    return fresh_run(setup, stmt, path)[1]


def graph_main(args) -> None:
    from igpart.generators import rgg_graph

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / f"rgg_n_2_{args.graph}.graph")
        g = rgg_graph(2**args.graph, seed=0)
        io.write_graph(g, path)
        n, edges = g.n, g.num_edges
        del g  # the fresh processes run beside this one: it holds no large arrays meanwhile
        size_mb = Path(path).stat().st_size / 1e6
        Path(path).read_bytes()  # warm the page cache for every reader alike
        fresh = {}
        for name, (setup, stmt) in GRAPH_READERS.items():
            try:
                runs = sorted(fresh_run(setup, stmt, path) for _ in range(args.repeat))
            except subprocess.CalledProcessError:  # the reader is not installed
                continue
            fresh[name] = runs[len(runs) // 2]  # the median run
        rows = {}
        for name, (setup, stmt) in GRAPH_READERS.items():
            scope: dict = {"path": path}
            try:
                exec(setup, scope)
            except ImportError:
                continue
            seconds = best_of(lambda: eval(stmt, scope), args.repeat)  # noqa: B023
            rows[name] = (seconds, *fresh[name], peak_rss(setup, None, path))
    print(f"file: {size_mb:.1f} MB, {n} vertices, {edges} edges; commit {commit()}")
    print("| reader | seconds | MB/s | time / igpart | fresh process s | peak RSS MB (after "
          "imports) |")
    print("|---|---:|---:|---:|---:|---:|")
    base = rows["igpart"][0]
    for k, (v, first, rss, rss0) in rows.items():
        print(f"| {k} | {v:.3f} | {size_mb / v:.1f} | {v / base:.2f} | {first:.3f} | "
              f"{rss:.0f} ({rss0:.0f}) |")


def commit() -> str:
    """IGPART_COMMIT first (a tree exported without its history can sit in a stale checkout)."""
    if os.environ.get("IGPART_COMMIT"):
        return os.environ["IGPART_COMMIT"]
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=Path(__file__).parent).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vertices", type=int, default=4_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--graph", type=int, metavar="S",
                    help="time METIS graph readers on a random geometric graph of 2^S points")
    args = ap.parse_args()
    if args.graph:
        graph_main(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.hgr"
        h = random_circuit(args.vertices, seed=1)
        io.write_hgr(h, path)
        sizes = (h.n, h.m, h.num_pins)
        del h  # the fresh processes run beside this one: it holds no large arrays meanwhile
        size_mb = path.stat().st_size / 1e6
        path.read_bytes()  # warm the page cache for every reader alike
        # the first read of a process, as a command makes it (the median of --repeat)
        firsts = sorted(fresh_run("import igpart", "igpart.read_hgr(path)", str(path))[0]
                        for _ in range(args.repeat))
        rows = {"igpart": best_of(lambda: io.read_hgr(path), args.repeat)}
        rows["igpart (incl. vertex->net CSR)"] = best_of(
            lambda: io.read_hgr(path).vind, args.repeat
        )
        rows["igpart, fresh process"] = firsts[len(firsts) // 2]
        try:
            import mtkahypar

            init = mtkahypar.initialize(1, False)
            ctx = init.context_from_preset(mtkahypar.PresetType.DEFAULT)
            rows["mtkahypar (1 thread)"] = best_of(
                lambda: init.hypergraph_from_file(str(path), ctx, mtkahypar.FileFormat.HMETIS),
                args.repeat,
            )
        except ImportError:
            pass
    result = {
        "file_mb": round(size_mb, 1), "vertices": sizes[0], "nets": sizes[1], "pins": sizes[2],
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "commit": commit(), "igpart": igpart.__version__,
        "readers": {k: {"seconds": round(v, 3), "MB/s": round(size_mb / v, 1)}
                    for k, v in rows.items()},
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"file: {size_mb:.1f} MB, {sizes[0]} vertices, {sizes[1]} nets, {sizes[2]} pins; "
          f"commit {commit()}")
    print("| reader | seconds | MB/s | time / igpart |")
    print("|---|---:|---:|---:|")
    base = rows["igpart"]
    for k, v in rows.items():
        print(f"| {k} | {v:.3f} | {size_mb / v:.1f} | {v / base:.2f} |")


if __name__ == "__main__":
    main()
