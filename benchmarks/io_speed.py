"""Reading speed of igpart's hMETIS reader, side by side with Mt-KaHyPar's (when installed).

Builds a large circuit-like .hgr with the seeded generator (nothing from outside the repo), then
times each reader on the same file; prints MB/s and the ratio. Usage:

    python benchmarks/io_speed.py [--vertices 4000000] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vertices", type=int, default=4_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.hgr"
        h = random_circuit(args.vertices, seed=1)
        io.write_hgr(h, path)
        size_mb = path.stat().st_size / 1e6
        path.read_bytes()  # warm the page cache for every reader alike
        rows = {"igpart": best_of(lambda: io.read_hgr(path), args.repeat)}
        rows["igpart (incl. vertex->net CSR)"] = best_of(
            lambda: io.read_hgr(path).vind, args.repeat
        )
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
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=Path(__file__).parent).stdout.strip()
    result = {
        "file_mb": round(size_mb, 1), "vertices": h.n, "nets": h.m, "pins": h.num_pins,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "commit": commit, "igpart": igpart.__version__,
        "readers": {k: {"seconds": round(v, 3), "MB/s": round(size_mb / v, 1)}
                    for k, v in rows.items()},
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"file: {size_mb:.1f} MB, {h.n} vertices, {h.m} nets, {h.num_pins} pins; "
          f"commit {commit}")
    print("| reader | seconds | MB/s | time / igpart |")
    print("|---|---:|---:|---:|")
    base = rows["igpart"]
    for k, v in rows.items():
        print(f"| {k} | {v:.3f} | {size_mb / v:.1f} | {v / base:.2f} |")


if __name__ == "__main__":
    main()
