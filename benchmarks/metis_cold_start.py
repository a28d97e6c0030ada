"""Cold start of the METIS worker pool: one ``igpart.partition`` in a fresh process (C++
backend), ``Config.initial_metis_processes`` 0 vs N, alternating, each a new interpreter, so the
workers' start-up (started when ``partition`` starts, importing while the levels coarsen) is
inside the run. Prints the total and ``initial`` seconds and an md5 of the partition.

    python benchmarks/metis_cold_start.py --input ibm01:20 --k 64 --threads 2 --processes 2
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import hashlib, json, os, sys, time
import igpart
from igpart.generators import inflate
name, scale, k, threads, procs = sys.argv[1:6]
root = os.environ.get("IGPART_BENCHMARKS", os.path.join(sys.argv[6], "..", "shared", "benchmarks"))
h = igpart.read_hgr(os.path.join(root, "ispd98", name + ".hgr"))
if int(scale) > 1:
    h = inflate(h, int(scale), seed=0)
t = time.perf_counter()
p = igpart.partition(h, int(k), backend="cpu", seed=0,
                     config={"threads": int(threads), "initial_metis_processes": int(procs)})
print(json.dumps({"total": time.perf_counter() - t, "initial": p.timings["initial"],
                  "cut": p.cut, "md5": hashlib.md5(p.parts.tobytes()).hexdigest()[:10]}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", default="ibm01:20")
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    from pathlib import Path

    repo = str(Path(__file__).resolve().parents[1])
    name, scale = args.input.split(":")
    print("| input | k | threads | METIS processes | run | total s | initial s | cut | md5 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for rep in range(args.reps):
        for procs in (0, args.processes):
            cmd = [sys.executable, "-c", CHILD, name, scale, str(args.k), str(args.threads),
                   str(procs), repo]  # fmt: skip
            out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            print(
                f"| {name}x{scale} | {args.k} | {args.threads} | {procs} | {rep + 1} "
                f"| {out['total']:.3f} | {out['initial']:.3f} | {out['cut']} | {out['md5']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
