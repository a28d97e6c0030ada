"""A graph partition's final figures (edge cut, block weights) taken from the device that ran
it against the host's pass over every arc (``igpart.metrics.evaluate`` without the device's
figures), in one process, the two alternating.

    python benchmarks/graph_metrics_bench.py /tmp/igpart_suite/inputs/graphs/delaunay_n20_s0.graph \
        -k 2,16,64 --repeat 4

Per input and k: the whole ``igpart.partition`` call with each (medians over the repeats, after
one untimed call; the order alternates from repeat to repeat), their ratio, and what the host's
``evaluate`` costs on its own (median of three). Every partition's figures are checked against a
recomputation on the host; a mismatch stops the run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import igpart
from igpart.metrics import evaluate

# ``igpart.partition`` is the function; the module holds the Partition class
_module = sys.modules["igpart.partition"]
_from_parts = _module.Partition.from_parts.__func__
_DEVICE = classmethod(_from_parts)
_HOST = classmethod(lambda cls, *a, known=None, **kw: _from_parts(cls, *a, **kw))


def _timed(g, k: int, seed: int, how) -> float:
    _module.Partition.from_parts = how
    try:
        t0 = time.perf_counter()
        p = igpart.partition(g, k, backend="gpu", seed=seed)
        seconds = time.perf_counter() - t0
    finally:
        _module.Partition.from_parts = _DEVICE
    m = evaluate(g, p.parts, k)
    if m["cut"] != p.cut or m["balanced"] != p.balanced:
        raise SystemExit(f"figures differ from the host's recomputation: cut {p.cut} against "
                         f"{m['cut']}, balanced {p.balanced} against {m['balanced']}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("graphs", nargs="+", help="METIS .graph files")
    ap.add_argument("-k", default="2,16,64", help="comma-separated block counts")
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    ks = [int(x) for x in args.k.split(",")]
    print("| graph | k | call s, device's figures | call s, host's pass | ratio "
          "| host evaluate ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for path in args.graphs:
        g = igpart.read_graph(path)
        for k in ks:
            igpart.partition(g, k, backend="gpu", seed=args.seed)  # untimed: kernels, pools
            got = {"device": [], "host": []}
            for r in range(args.repeat):
                order = (("device", _DEVICE), ("host", _HOST))
                for name, how in order if r % 2 == 0 else order[::-1]:
                    got[name].append(_timed(g, k, args.seed, how))
            p = igpart.partition(g, k, backend="gpu", seed=args.seed)
            ev = []
            for _ in range(3):
                t0 = time.perf_counter()
                evaluate(g, p.parts, k)
                ev.append(time.perf_counter() - t0)
            d, h = statistics.median(got["device"]), statistics.median(got["host"])
            print(f"| {Path(path).stem} | {k} | {d:.4f} | {h:.4f} | {d / h:.3f} | "
                  f"{statistics.median(ev) * 1e3:.1f} |", flush=True)


if __name__ == "__main__":
    main()
