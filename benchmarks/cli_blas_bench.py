"""The ``igpart partition`` command, start to exit, with one BLAS thread (what the command sets
for itself, ``igpart/_startup.py``) against numpy's OpenBLAS pool of a thread per core
(``OPENBLAS_NUM_THREADS`` set to the machine's cores), alternating, fresh processes.

    python benchmarks/cli_blas_bench.py /tmp/igpart_suite/inputs/graphs/neuron_clique.graph \
        -k 16 --repeat 12

Per input: the median and least wall seconds of each, and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="files igpart partition reads")
    ap.add_argument("-k", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=12)
    ap.add_argument("--backend", default="auto")
    args = ap.parse_args()
    exe = shutil.which("igpart")
    if exe is None:
        sys.exit("cli_blas_bench: the igpart command is not on PATH (pip install -e .)")
    pool = str(os.cpu_count() or 1)
    base = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    variants = {"one BLAS thread": base, f"OpenBLAS pool of {pool}": {**base,
                                                                     "OPENBLAS_NUM_THREADS": pool}}
    print("| input | k | one BLAS thread: median s (least) | OpenBLAS pool: median s (least) "
          "| ratio |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out.part")
        for path in args.inputs:
            cmd = [exe, "partition", path, "-k", str(args.k), "--backend", args.backend,
                   "-o", out]
            took = {name: [] for name in variants}
            for _ in range(args.repeat):
                for name, env in variants.items():
                    t0 = time.perf_counter()
                    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
                    took[name].append(time.perf_counter() - t0)
            one, many = (took[name] for name in variants)
            print(f"| {Path(path).name} | {args.k} | {statistics.median(one):.3f} "
                  f"({min(one):.3f}) | {statistics.median(many):.3f} ({min(many):.3f}) | "
                  f"{statistics.median(one) / statistics.median(many):.3f} |", flush=True)


if __name__ == "__main__":
    main()
