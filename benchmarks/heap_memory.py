"""Time and memory of one C++ partition with and without the heap kept within the run.

Reads ``NAME:SCALE:K`` (an ISPD98 or Titan23 circuit enlarged SCALE times, as the benchmarks'
``_data.load``), builds its vertex incidence, partitions it once on the C++ backend and prints the
call's seconds, the process's peak resident memory before and after (ru_maxrss) and its resident
memory before and after the call (/proc/self/statm). One fresh process per measurement, so run it
once as is and once with the policy off through the environment, e.g.

    python benchmarks/heap_memory.py neuron:22:16
    GLIBC_TUNABLES=glibc.malloc.mmap_max=65536 python benchmarks/heap_memory.py neuron:22:16

(where the environment sets glibc's malloc parameters the C++ module leaves them as they are).
"""

from __future__ import annotations

import resource
import sys

from _data import load  # this folder is sys.path[0] when run as a script

import igpart


def resident_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1].count(":") != 2:
        raise SystemExit("usage: heap_memory.py NAME:SCALE:K")
    name, scale, k = sys.argv[1].split(":")
    h = load(name, int(scale), seed=0)
    _ = h.vptr  # the vertex -> net incidence, built before the call
    peak0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    before = resident_mib()
    p = igpart.partition(h, int(k), epsilon=0.03, backend="cpu", seed=0)
    peak1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{sys.argv[1]}: {p.seconds:.3f} s cut {p.cut} peak before {peak0:.0f} MiB "
          f"peak after {peak1:.0f} MiB resident before {before:.0f} MiB after "
          f"{resident_mib():.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
