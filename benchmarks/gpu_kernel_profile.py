"""Where a GPU partition's time goes, per kernel: for each ``FILE:K`` (an hMETIS or METIS file,
read by ``igpart.read``), one untimed partition, ``--runs`` timed ones (seconds, cut, the last
run's phase timers), then one with a pair of CUDA events around every RawKernel launch
(``igpart.kernels.gpu._common.profile_start``): the kernels' summed device time against the
call's wall time, and the kernels that took longest. CuPy's own array operations are not in the
kernel figures (the gap to the wall time is theirs, the launches' and the host's).

    python benchmarks/gpu_kernel_profile.py /tmp/igpart_suite/inputs/graphs/neuron_star.graph:16
    python benchmarks/gpu_kernel_profile.py cholesky_mc:18:64   # a circuit enlarged 18 times
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _data import load  # this folder is sys.path[0] when run as a script

import igpart


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="FILE:K, or CIRCUIT:SCALE:K (an ISPD98 or Titan23 "
                    "circuit enlarged SCALE times by the suite's generator)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=8, help="kernels listed per input")
    ap.add_argument("-e", "--epsilon", type=float, default=0.03)
    args = ap.parse_args()

    from igpart.kernels.gpu import GpuBackend, _common

    be = GpuBackend()
    for spec in args.inputs:
        path, k = spec.rsplit(":", 1)
        k = int(k)
        if Path(path).exists():
            g = igpart.read(path)
        else:  # CIRCUIT:SCALE, enlarged as the benchmark scripts do
            name, _, scale = path.partition(":")
            g = load(name, int(scale or 1), seed=0)
        igpart.partition(g, k, epsilon=args.epsilon, backend=be, seed=args.seed)
        times = []
        for r in range(args.runs):
            t = time.perf_counter()
            p = igpart.partition(g, k, epsilon=args.epsilon, backend=be, seed=args.seed + r)
            times.append(time.perf_counter() - t)
        phases = " ".join(f"{a}={b:.3f}" for a, b in sorted(p.timings.items(), key=lambda x: -x[1])
                          if b >= 0.002)
        print(f"== {path} n={g.n} k={k}: runs {[round(x, 3) for x in times]} cut {p.cut} | "
              f"{phases}", flush=True)
        _common.profile_start()
        t = time.perf_counter()
        igpart.partition(g, k, epsilon=args.epsilon, backend=be, seed=args.seed)
        wall = time.perf_counter() - t
        prof = _common.profile_stop()
        launches = sum(c for c, _ in prof.values())
        kernel_s = sum(ms for _, ms in prof.values()) / 1000
        print(f"   kernels: {launches} launches, {kernel_s:.3f} s device time of {wall:.3f} s wall")
        for name, (count, ms) in sorted(prof.items(), key=lambda x: -x[1][1])[:args.top]:
            print(f"     {name:40s} {count:6d} {ms / 1000:.4f} s")


if __name__ == "__main__":
    main()
