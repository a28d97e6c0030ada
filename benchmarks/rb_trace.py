"""Wall time of every bisection of the recursive-bisection initial partitioner inside whole runs.

For every input (``NAME[:SCALE]`` or an ``.hgr`` path, as ``cpu_profile.py`` reads them), every
thread count T and every named variant (Config overrides; keys ``CpuBackend.NAME`` set that class
attribute, e.g. ``rb_python_threads``), runs ``igpart.partition`` on the C++ backend (the best of
``--repeat`` runs by time; one untimed run first) and records the start and end of each bisection
(``_Plan.split``: the bisection and the extraction of its two sub-hypergraphs). It prints the run's
seconds and cut, the span of the recursive bisection (first start to last end), the bisections'
summed wall time, and per recursion level (blocks per bisection): the bisections, their vertices,
the threads each one's C++ calls get, the mean and longest wall time, and when the level's last
bisection ended. With more Python threads than the bisections' C++ calls keep busy, the summed
wall time grows past the span times the threads: the bisections wait for the GIL.

    python benchmarks/rb_trace.py --inputs ibm05,ibm08 --k 64 --threads 2,16
    python benchmarks/rb_trace.py --inputs ibm08 --k 64 --threads 16 \\
        --variants '{"old": {"CpuBackend.rb_python_threads": 64,
                             "CpuBackend.rb_switch_interval": 0}, "new": {}}'
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from cpu_profile import DEFAULT_DATA, cpu_attributes, load  # this folder is sys.path[0]

import igpart
from igpart.partitioner.initial import recursive


def traced_run(h, k: int, threads: int, overrides: dict) -> tuple[float, int, list]:
    """(seconds, cut, [(start, end, vertices, blocks, inner threads)]) of one partition."""
    spans = []
    split = recursive._Plan.split

    def timed(self, task, bisect, be, inner, workers):
        t0 = time.perf_counter()
        out = split(self, task, bisect, be, inner, workers)
        spans.append((t0, time.perf_counter(), task[0].n, task[3], inner))
        return out

    recursive._Plan.split = timed
    try:
        t0 = time.perf_counter()
        p = igpart.partition(h, k, 0.03, backend="cpu", seed=0,
                             config={"threads": threads, **overrides})
        return time.perf_counter() - t0, int(p.cut), spans
    finally:
        recursive._Plan.split = split


def report(label: str, seconds: float, cut: int, spans: list) -> None:
    if not spans:
        print(f"{label}: {seconds:.3f} s, cut {cut:,}; no recursive bisection")
        return
    start = min(s[0] for s in spans)
    span = max(s[1] for s in spans) - start
    summed = sum(s[1] - s[0] for s in spans)
    print(f"{label}: {seconds:.3f} s, cut {cut:,}; recursive bisection span {span:.3f} s, "
          f"{len(spans)} bisections, {summed:.3f} s summed")
    for blocks in sorted({s[3] for s in spans}, reverse=True):
        level = [s for s in spans if s[3] == blocks]
        walls = [s[1] - s[0] for s in level]
        print(f"    {blocks:4d} blocks: {len(level):3d} bisections, "
              f"{min(s[2] for s in level):,}-{max(s[2] for s in level):,} vertices, "
              f"{level[0][4]} threads each, wall mean {1e3 * sum(walls) / len(walls):.1f} ms, "
              f"longest {1e3 * max(walls):.1f} ms, done at "
              f"{max(s[1] for s in level) - start:.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm08")
    ap.add_argument("--data", type=Path,
                    default=Path(os.environ.get("IGPART_BENCHMARKS", str(DEFAULT_DATA))))
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--threads", default="2,16")
    ap.add_argument("--variants", default='{"default": {}}',
                    help="JSON object: name -> Config overrides (CpuBackend.NAME keys set that "
                         "class attribute)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    variants = json.loads(args.variants)
    for spec in args.inputs.split(","):
        name, h = load(spec, args.data)
        for threads in (int(t) for t in args.threads.split(",")):
            for vname, variant in variants.items():
                config = {key: v for key, v in variant.items()
                          if not key.startswith("CpuBackend.")}
                attrs = {key[len("CpuBackend."):]: v for key, v in variant.items()
                         if key.startswith("CpuBackend.")}
                with cpu_attributes(attrs):
                    traced_run(h, args.k, threads, config)  # untimed: first-call costs
                    runs = [traced_run(h, args.k, threads, config)
                            for _ in range(max(1, args.repeat))]
                report(f"{name} k={args.k} T={threads} {vname}", *min(runs, key=lambda r: r[0]))


if __name__ == "__main__":
    main()
