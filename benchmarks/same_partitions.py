"""Whether two versions of igpart give the same partitions: ``save`` writes the block ids of a
fixed sample of runs (ISPD98 ibm01-03 at k = 2, 8, 64; km1 with the speed preset; a graph;
fixed vertices; per-block targets; ``improve``; the hm and im mappings) to an ``.npz``,
``compare`` reports, run by run, whether two such files are bit-identical. For restructurings
that must not change behaviour: save with each checkout (``PYTHONPATH=<checkout>``), then
compare. ``--backend gpu`` uses ``GpuBackend(deterministic=True)`` (the default GPU clustering
joins by atomics and varies from run to run); ``--threads`` sets ``Config.threads``.

    PYTHONPATH=/path/to/main python benchmarks/same_partitions.py save /tmp/a.npz
    PYTHONPATH=. python benchmarks/same_partitions.py save /tmp/b.npz
    python benchmarks/same_partitions.py compare /tmp/a.npz /tmp/b.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from _data import ISPD98  # the data directory: IGPART_BENCHMARKS, else ../shared/benchmarks


def sample(backend, threads: int, data: Path) -> dict[str, np.ndarray]:
    import igpart

    config = {"threads": threads} if threads else None
    out = {}
    hs = {name: igpart.read(data / f"{name}.hgr") for name in ("ibm01", "ibm02", "ibm03")}
    for name, h in hs.items():
        for k in (2, 8, 64):
            p = igpart.partition(h, k, backend=backend, seed=1, config=config)
            out[f"{name}_k{k}"] = p.parts
            print(f"{name} k={k} cut={p.cut}", flush=True)
    h = hs["ibm01"]
    out["ibm01_km1_speed"] = igpart.partition(h, 4, objective="km1", backend=backend, seed=3,
                                              preset="speed", config=config).parts
    out["graph_k8"] = igpart.partition(h.to_graph(), 8, backend=backend, seed=2,
                                       config=config).parts
    fixed = np.full(h.n, -1, dtype=np.int64)
    fixed[: h.n // 10] = np.arange(h.n // 10) % 4
    out["fixed_k4"] = igpart.partition(h, 4, backend=backend, seed=5, fixed=fixed,
                                       config=config).parts
    targets = [h.total_weight // 2, h.total_weight // 3, h.total_weight // 4]
    out["targets"] = igpart.partition(h, 3, backend=backend, seed=0, max_block_weights=targets,
                                      config=config).parts
    base = igpart.partition(hs["ibm02"], 8, backend=backend, seed=0,
                            config={**(config or {}), "vcycles": 0})
    out["improve"] = igpart.improve(hs["ibm02"], base.parts, 8, backend=backend, seed=4,
                                    config=config).parts
    for algorithm in ("hm", "im"):
        m = igpart.map(h, hierarchy=(2, 4), distance=(1, 10), backend=backend, seed=0,
                       algorithm=algorithm, threads=threads)
        out[f"map_{algorithm}"] = np.asarray(m.parts)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save", help="partition the sample and write the block ids")
    s.add_argument("out", type=Path)
    s.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    s.add_argument("--threads", type=int, default=0)
    s.add_argument("--data", type=Path, default=ISPD98, help="folder of ibm01-03.hgr")
    c = sub.add_parser("compare", help="compare two saved files run by run")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "save":
        backend = args.backend
        if backend == "gpu":
            from igpart.kernels.gpu import GpuBackend

            backend = GpuBackend(deterministic=True)
        np.savez(args.out, **sample(backend, args.threads, args.data))
        return 0
    a, b = np.load(args.a), np.load(args.b)
    same = True
    for key in sorted(set(a) | set(b)):
        equal = key in a and key in b and np.array_equal(a[key], b[key])
        same &= equal
        print(f"{key:18s} {'same' if equal else 'DIFFERENT'}")
    print("all the same" if same else "some differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
