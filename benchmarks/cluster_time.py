"""The heavy-edge clustering of the C++ backend alone: seconds per input and a digest of its maps.

For every input (``NAME[:SCALE]`` or an ``.hgr`` path, as ``cpu_profile.py`` reads them), runs
Louvain once (the community weight cap of a bisection) and then ``CpuBackend.cluster_hypergraph``
restricted to those communities with the cluster weight bound of a ``--k``-way partition
(total / (8 k), the coarsening's bound on the first level), ``--repeat`` times on ``--threads``
threads (``--sub-rounds 0``: the sequential visit), and prints the least seconds per input, their
sum and a digest of the cluster maps: two builds of the same code path give the same digest, so
their times compare the same work.

    python benchmarks/cluster_time.py --inputs ibm02,ibm05,ibm08,ibm10,cholesky_mc,neuron \
        --threads 1 --repeat 6
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from pathlib import Path

import numpy as np
from cpu_profile import DEFAULT_DATA, load  # this folder is sys.path[0]

from igpart.kernels import get_backend, omp_threads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default="ibm02,ibm05,ibm08,ibm10,cholesky_mc,neuron",
                    help="comma-separated NAME[:SCALE] or PATH.hgr")
    ap.add_argument("--data", default=os.environ.get("IGPART_BENCHMARKS", str(DEFAULT_DATA)))
    ap.add_argument("--k", type=int, default=20, help="k whose first-level bound is used")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sub-rounds", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=6)
    args = ap.parse_args()
    be = get_backend("cpu")
    digest = hashlib.sha1()
    times = []
    with omp_threads(args.threads):
        for spec in args.inputs.split(","):
            name, h = load(spec, Path(args.data))
            ha = be.hypergraph_arrays(h)
            comm = be.communities(ha, seed=0, max_weight=int(h.total_weight) // 2)
            bound = max(1, int(h.total_weight) // (8 * args.k))
            best = float("inf")
            for _ in range(args.repeat):
                t = time.perf_counter()
                cmap, nc = be.cluster_hypergraph(ha, bound, communities=comm,
                                                 sub_rounds=args.sub_rounds, seed=1)
                best = min(best, time.perf_counter() - t)
            digest.update(np.ascontiguousarray(cmap).tobytes())
            times.append(best)
            print(f"{name:16s} n={h.n:>10,d}  clusters={nc:>10,d}  {best:.4f} s")
    print(f"sum {sum(times):.4f} s  digest {digest.hexdigest()[:12]}")


if __name__ == "__main__":
    main()
