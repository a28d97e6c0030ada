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
wall time grows past the span times the threads: the bisections wait for the GIL. The subtrees
below ``Config.initial_rb_flat_vertices`` run in one C++ call each and are not traced bisection by
bisection (the variant ``{"initial_rb_flat_vertices": 0}`` traces them all).

With ``--python-profile N`` it instead runs each case's partition ``--repeat`` times under
cProfile (after one untimed run) and prints the Python time of the whole call: the self time of
every function written in Python, summed (the C++ calls, numpy's and the interpreter's built-ins
left out), and the N functions of most self time. On one thread that is the Python the
bisections run in turn around their C++ calls.

    python benchmarks/rb_trace.py --inputs ibm05,ibm08 --k 64 --threads 2,16
    python benchmarks/rb_trace.py --inputs ibm08 --k 64 --threads 1 --repeat 3 --python-profile 10
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


def python_profile(h, k: int, threads: int, overrides: dict, repeat: int, top: int,
                   label: str) -> None:
    """Prints the Python self time of ``repeat`` partitions under cProfile (see the module
    docstring) and its ``top`` functions."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(repeat):
        p = igpart.partition(h, k, 0.03, backend="cpu", seed=0,
                             config={"threads": threads, **overrides})
    prof.disable()
    rows = []
    for (path, line, func), (_, calls, self_time, _, _) in pstats.Stats(prof).stats.items():
        if path != "~":  # "~": built-in functions (C++ bindings, numpy, the interpreter's)
            rows.append((self_time, calls, f"{Path(path).name}:{line} {func}"))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    print(f"{label}: cut {int(p.cut):,}; Python self time {total:.3f} s over {repeat} runs "
          f"({total / repeat:.3f} s a run)")
    for self_time, calls, where in rows[:top]:
        print(f"    {self_time:8.4f} s {calls:7d} calls  {where}")


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
    ap.add_argument("--python-profile", type=int, default=0, metavar="N",
                    help="profile the Python of --repeat runs instead (cProfile): the summed "
                         "self time of Python functions and the N largest")
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
                label = f"{name} k={args.k} T={threads} {vname}"
                if args.python_profile:
                    with cpu_attributes(attrs):
                        traced_run(h, args.k, threads, config)  # untimed: first-call costs
                        python_profile(h, args.k, threads, config, max(1, args.repeat),
                                       args.python_profile, label)
                    continue
                with cpu_attributes(attrs):
                    traced_run(h, args.k, threads, config)  # untimed: first-call costs
                    runs = [traced_run(h, args.k, threads, config)
                            for _ in range(max(1, args.repeat))]
                report(label, *min(runs, key=lambda r: r[0]))


if __name__ == "__main__":
    main()
