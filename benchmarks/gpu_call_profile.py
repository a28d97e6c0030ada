"""Where a GPU partition's time goes, per backend call: for each ``CIRCUIT:SCALE:K`` (an ISPD98
or Titan23 circuit enlarged SCALE times by the suite's generator), two untimed partitions, then
one with the device synchronised around the backend's calls (clustering, contraction, Louvain
on the host, Jet, FM, the host copies), each call's count and seconds by the call it ran in
(``comm``: inside ``communities``); ``--clusters`` also lists every clustering call (level
size, net-size cap, rounds, each round's rating kernel in ms); ``--louvain-threads`` times the
Louvain call of that partition again alone at each thread count (the least of ``--repeat``).

    python benchmarks/gpu_call_profile.py cholesky_mc:18:2 ibm10:29:64
    python benchmarks/gpu_call_profile.py cholesky_mc:18:64 --clusters --louvain-threads 1,2,4,8,16

The synchronisation adds a little to the profiled run; its phase timers are printed beside the
plain run's.
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
import time

from _data import load  # this folder is sys.path[0] when run as a script

import igpart


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="CIRCUIT:SCALE:K")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clusters", action="store_true", help="list every clustering call")
    ap.add_argument("--louvain-threads", default="", help="comma list of thread counts")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import cupy as cp

    from igpart.kernels import omp_threads
    from igpart.kernels.cpu import CpuBackend
    from igpart.kernels.gpu import GpuBackend, _hypergraph
    from igpart.partitioner import preprocessing

    sync = cp.cuda.Device().synchronize
    stats: dict = collections.defaultdict(lambda: [0, 0.0])
    where = ["main"]
    on = [False]
    clusters: list[dict] = []
    louvain: list = []

    def wrap(owner, name, label, context=None):
        f = getattr(owner, name)

        @functools.wraps(f)
        def timed(*a, **kw):
            if not on[0]:
                return f(*a, **kw)
            sync()
            t = time.perf_counter()
            if context:
                where.append(context)
            try:
                return f(*a, **kw)
            finally:
                if context:
                    where.pop()
                sync()
                s = stats[(where[-1], label)]
                s[0] += 1
                s[1] += time.perf_counter() - t

        setattr(owner, name, timed)

    wrap(GpuBackend, "communities", "communities", "comm")
    wrap(GpuBackend, "_contract", "contraction")
    wrap(GpuBackend, "_host_copy", "host copy")
    wrap(preprocessing, "share_unconnected_community", "share_unconnected_community")
    for name in ("coarsen_hypergraph", "cluster_hypergraph", "jet_refine_hypergraph",
                 "fm_refine_hypergraph", "refine_hypergraph"):
        wrap(GpuBackend, name, name, name)

    plain_cluster, plain_launch = _hypergraph.cluster, _hypergraph.launch

    def cluster(hg, mcw, max_net_size, communities, max_shrink, *a, **kw):
        if not on[0]:
            return plain_cluster(hg, mcw, max_net_size, communities, max_shrink, *a, **kw)
        sync()
        t = time.perf_counter()
        clusters.append({"n": hg.n, "pins": int(hg.eind.shape[0]), "cap": max_net_size,
                         "comm": communities is not None, "shrink": max_shrink, "rate": []})
        out = plain_cluster(hg, mcw, max_net_size, communities, max_shrink, *a, **kw)
        sync()
        clusters[-1].update(s=time.perf_counter() - t, nc=out[1])
        s = stats[(where[-1], "clustering")]
        s[0] += 1
        s[1] += clusters[-1]["s"]
        return out

    def launch(source, name, work, kargs, **kw):
        if not (on[0] and clusters and name.startswith("cluster_rate")):
            return plain_launch(source, name, work, kargs, **kw)
        sync()
        t = time.perf_counter()
        plain_launch(source, name, work, kargs, **kw)
        sync()
        clusters[-1]["rate"].append(round((time.perf_counter() - t) * 1e3, 2))

    _hypergraph.cluster, _hypergraph.launch = cluster, launch
    plain_communities = CpuBackend.communities

    def communities(self, hg, **kw):
        louvain.append((self, hg, kw))
        if not on[0]:
            return plain_communities(self, hg, **kw)
        t = time.perf_counter()
        try:
            return plain_communities(self, hg, **kw)
        finally:
            s = stats[(where[-1], "Louvain (host)")]
            s[0] += 1
            s[1] += time.perf_counter() - t

    CpuBackend.communities = communities

    be = GpuBackend()
    for spec in args.inputs:
        name, scale, k = spec.split(":")
        h = load(name, int(scale), seed=args.seed)
        for _ in range(2):
            p = igpart.partition(h, int(k), epsilon=0.03, backend=be, seed=args.seed)
        print(f"== {spec}: plain {p.seconds:.3f} s, cut {p.cut}, timers "
              f"{ {a: round(b, 3) for a, b in p.timings.items()} }")
        stats.clear()
        clusters.clear()
        louvain.clear()
        on[0] = True
        p = igpart.partition(h, int(k), epsilon=0.03, backend=be, seed=args.seed)
        on[0] = False
        print(f"   synchronised {p.seconds:.3f} s, cut {p.cut}; per call (in / call / count / s):")
        for (ctx, label), (count, sec) in sorted(stats.items(), key=lambda x: -x[1][1]):
            print(f"   {ctx:22s} {label:30s} {count:4d} {sec:8.3f}")
        if args.clusters:
            for c in clusters:
                print(f"   clustering n={c['n']} pins={c['pins']} cap={c['cap']} "
                      f"communities={c['comm']} shrink={c['shrink']:.2f} -> {c['nc']}: "
                      f"{c['s'] * 1e3:.1f} ms, {len(c['rate'])} rounds, rating ms {c['rate']}")
        threads = [int(t) for t in args.louvain_threads.split(",") if t]
        for self, hg, kw in louvain[:1] if threads else []:
            print(f"   Louvain's level: {hg.n} vertices, {int(hg.eind.shape[0])} pins")
            for t in threads:
                runs = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    with omp_threads(t):
                        plain_communities(self, hg, **kw)
                    runs.append(time.perf_counter() - t0)
                print(f"     {t:2d} threads: {min(runs) * 1e3:.1f} ms "
                      f"(runs {[round(x * 1e3, 1) for x in runs]})")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
