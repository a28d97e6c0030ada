"""Where a GPU graph partition's Jet time goes, level by level: every call of the device Jet
(its iterations), of the host Jet that small levels take, and of ``graph_edge_nets`` (the
level's edges as 2-pin nets), each timed between device synchronisations, for one warm run per
input and k.

    python benchmarks/graph_jet_levels.py /tmp/igpart_suite/inputs/graphs \\
        neuron_star,delaunay_n20_s0,grid2d_1024x1024 -k 2,16,64

Needs CuPy and a GPU. Inputs are METIS ``.graph`` files (``FOLDER/NAME.graph``, as the suite's
``graphs`` set writes them). The synchronisations add a little to the runs' total."""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="folder of the .graph files")
    ap.add_argument("names", help="comma list of input names (NAME.graph in the folder)")
    ap.add_argument("-k", "--ks", default="2,16,64", help="comma list of k")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import igpart

    try:
        import cupy as cp
    except ImportError as exc:  # pragma: no cover - needs a GPU
        sys.exit(f"graph_jet_levels: CuPy is needed ({exc})")
    from igpart.kernels import cpu as cpu_module
    from igpart.kernels.gpu import _backend, _jet

    calls: list[tuple[str, int, float, int]] = []
    iterations = collections.Counter()
    sync = cp.cuda.runtime.deviceSynchronize

    gpu_cls, cpu_cls = _backend.GpuBackend, cpu_module.CpuBackend
    edge_nets, refine, candidates = gpu_cls.graph_edge_nets, _jet.refine, _jet._Jet.candidates
    host_jet = cpu_cls.jet_refine_hypergraph

    def timed_edge_nets(self, g):
        sync()
        t = time.perf_counter()
        out = edge_nets(self, g)
        sync()
        calls.append(("edge_nets", int(g.n), time.perf_counter() - t, 0))
        return out

    def counted_candidates(self, *a, **kw):
        iterations["jet"] += 1  # one candidate search per iteration
        return candidates(self, *a, **kw)

    def timed_refine(hg, *a, **kw):
        sync()
        iterations.clear()
        t = time.perf_counter()
        out = refine(hg, *a, **kw)
        sync()
        calls.append(("jet_device", int(hg.n), time.perf_counter() - t, iterations["jet"]))
        return out

    def timed_host_jet(self, hg, *a, **kw):
        t = time.perf_counter()
        out = host_jet(self, hg, *a, **kw)
        calls.append(("jet_host", int(hg.n), time.perf_counter() - t, 0))
        return out

    gpu_cls.graph_edge_nets = timed_edge_nets
    _jet.refine = timed_refine
    _jet._Jet.candidates = counted_candidates
    cpu_cls.jet_refine_hypergraph = timed_host_jet

    for name in args.names.split(","):
        g = igpart.read_graph(Path(args.folder) / f"{name}.graph")
        for k in (int(x) for x in args.ks.split(",")):
            igpart.partition(g, k, backend="gpu", seed=args.seed)  # warm-up
            calls.clear()
            t = time.perf_counter()
            p = igpart.partition(g, k, backend="gpu", seed=args.seed)
            total = time.perf_counter() - t
            sums = collections.defaultdict(float)
            for kind, _, s, _ in calls:
                sums[kind] += s
            phases = " ".join(f"{a}={b * 1e3:.1f}" for a, b in p.timings.items())
            print(f"== {name} k={k}: {total * 1e3:.1f} ms, cut {p.cut}; phases (ms) {phases}; "
                  + " ".join(f"{a}={b * 1e3:.1f}" for a, b in sums.items()))
            print("   " + " ".join(f"{kind}:n={n}:{s * 1e3:.1f}ms" + (f"/{it}it" if it else "")
                                   for kind, n, s, it in calls), flush=True)


if __name__ == "__main__":
    main()
