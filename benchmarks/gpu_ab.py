"""A/B of igpart's module switches inside one process: the variants' runs alternate (variant 1,
variant 2, ..., then again) on the same inputs, so that the lent GPU machines' call-to-call
differences (Mt-KaHyPar alone varied 1.85-2.70 s on one case over one day's calls) do not
enter the comparison; prints, per input, k and variant, the median of ``--reps`` runs of
``Partition.seconds``, every run's seconds and cut, and the medians of the coarsening (+
communities) and Jet timers. The A/B figures behind the GPU defaults came from this
script (then a scratch copy). ``--vary-seeds``: run r uses seed ``--seed + r``, for
comparisons of the cut over seeds (the "seeds 1-8" A/Bs of the k = 2 defaults ran
the same way, from a scratch script).

A variant is a JSON object of switches (missing ones take the defaults below):
``reuse`` (``kernels.gpu._hypergraph.REUSE_CHOICES``, default true), ``sort``
(``kernels.gpu._common.BLOCK_SORT_BYTES``, default 16384), ``workers``
(``recursive.BISECT_IN_WORKERS``, default true), ``top_here`` (``recursive.TOP_BISECTION_HERE``,
default false), ``heavy`` (``kernels.gpu._jet.HEAVY_NETS``, the nets from which a vertex takes
Jet's steps 1 and 2 by a block; default the module's 1024), ``mp``
(``Config.initial_metis_processes``;
when given, the METIS/bisection worker pool is shut down and restarted with that many workers
before every run of the variant, and left 4 s to start, so that no variant inherits another's
pool; default: the automatic value and the pool as it is), ``config`` (an object of
``igpart.Config`` fields, e.g. ``{"vcycles": 1}``), ``backend`` (an object of ``GpuBackend``
arguments, e.g. ``{"jet_host_max_pins": 250000}``, or of ``CpuBackend`` arguments with
``--backend cpu``, e.g. ``{"retain_heap": false}``; the variant gets its own backend),
``switchinterval`` (``sys.setswitchinterval``, default 0.005 s, Python's), ``set`` (an object
of module constants by dotted name, e.g.
``{"igpart.kernels.gpu._hypergraph.CLUSTER_ROUNDS": 8}``; every other variant runs with the
module's own values).

    python benchmarks/gpu_ab.py --reps 3 --cases ibm01:200:64,ibm09:100:64 \\
        --variants '{"mp8": {"mp": 8}, "mp15": {"mp": 15}}'
    python benchmarks/gpu_ab.py --backend cpu --cases ibm01:2:8 --reps 1 \\
        --variants '{"workers": {"workers": true}, "threads": {"workers": false}}'

A case is ``circuit:scale:k`` (an ISPD98 or Titan23 circuit enlarged by the suite's
generator) or ``FILE:k`` for a ``.graph`` (METIS) or ``.hgr`` (hMETIS) file, e.g. the `graphs`
suite's inputs (``suite.py --suite graphs --inputs-only`` writes them)::

    python benchmarks/gpu_ab.py --reps 4 --vary-seeds \\
        --variants '{"d": {}, "warp": {"heavy": 1e18}}' \\
        --cases /tmp/igpart_suite/inputs/graphs/neuron_star.graph:64

``--backend cpu`` runs on the C++ backend (of the module switches only ``workers`` and ``mp``
apply there).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import sys
import time
from pathlib import Path

from _data import ISPD98, load  # this folder is sys.path[0] when run as a script

import igpart
import igpart.partitioner.initial.recursive as rec
from igpart.generators import inflate
from igpart.parallel import metis_pool

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", type=json.loads, required=True,
                    help='JSON: {"name": {"reuse": bool, "sort": bytes, "workers": bool, "mp": N}}')
    ap.add_argument("--cases", default="ibm01:200:2,ibm01:200:64,ibm09:100:2,ibm09:100:64",
                    help="comma-separated circuit:scale:k")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vary-seeds", action="store_true",
                    help="run r of every variant uses seed --seed + r (the cut geomean then "
                         "compares the variants over seeds; without it every run uses --seed)")
    args = ap.parse_args()

    if args.backend == "gpu":
        from igpart.kernels.gpu import GpuBackend, _common, _hypergraph, _jet

        be, make = GpuBackend(), GpuBackend
        heavy_default = _jet.HEAVY_NETS
    else:
        from igpart.kernels.cpu import CpuBackend

        be, make, _common, _hypergraph = CpuBackend(), CpuBackend, None, None
    backends = {n: make(**v["backend"]) if "backend" in v else be
                for n, v in args.variants.items()}

    consts = {name: importlib.import_module(name.rsplit(".", 1)[0])
              for v in args.variants.values() for name in v.get("set", {})}
    own = {name: getattr(mod, name.rsplit(".", 1)[1]) for name, mod in consts.items()}

    def switch(v: dict) -> dict:
        """Sets the variant's switches; returns its Config overrides."""
        cfg = dict(v.get("config", {}))
        sys.setswitchinterval(float(v.get("switchinterval", 0.005)))
        if _hypergraph is not None:
            _hypergraph.REUSE_CHOICES = bool(v.get("reuse", True))
            _common.BLOCK_SORT_BYTES = int(v.get("sort", 16384))
            _jet.HEAVY_NETS = int(v.get("heavy", heavy_default))
        rec.BISECT_IN_WORKERS = bool(v.get("workers", True))
        rec.TOP_BISECTION_HERE = bool(v.get("top_here", False))
        for name, mod in consts.items():
            setattr(mod, name.rsplit(".", 1)[1], v.get("set", {}).get(name, own[name]))
        if "mp" not in v:
            return cfg
        metis_pool.shutdown()
        metis_pool.get_pool(int(v["mp"]))
        time.sleep(4)  # the workers import before they serve
        return {**cfg, "initial_metis_processes": int(v["mp"])}

    def run(h, k: int, cfg: dict, name: str, seed: int = args.seed):
        p = igpart.partition(h, k, epsilon=0.03, objective="cut", backend=backends[name],
                             seed=seed, config=cfg)
        if not p.balanced:
            raise SystemExit(f"unbalanced partition (k = {k})")
        t = p.timings
        coarse = t.get("coarsen", 0.0) + t.get("communities", 0.0)
        return (p.seconds, p.cut, coarse, t.get("jet", 0.0), t.get("vcycles", 0.0),
                t.get("initial", 0.0))

    warm = inflate(igpart.read_hgr(ISPD98 / "ibm01.hgr"), 10, seed=args.seed)
    for n, v in args.variants.items():  # module compilation / cache loads outside the timings
        cfg = switch(v)
        for k in (2, 64):
            run(warm, k, cfg, n)
    built: dict = {}
    for spec in args.cases.split(","):
        if spec.rsplit(":", 1)[0].endswith((".graph", ".hgr")):
            path, k = spec.rsplit(":", 1)
            name, scale = Path(path).stem, "1"
            read = igpart.read_graph if path.endswith(".graph") else igpart.read_hgr
        else:
            name, scale, k = spec.split(":")
            path, read = "", None
        if (name, scale) not in built:
            built.clear()
            built[(name, scale)] = read(path) if read else load(name, int(scale), seed=args.seed)
        h = built[(name, scale)]
        res: dict[str, list] = {n: [] for n in args.variants}
        for r in range(args.reps):
            for n, v in args.variants.items():
                seed = args.seed + r if args.vary_seeds else args.seed
                res[n].append(run(h, int(k), switch(v), n, seed))
        for n, rs in res.items():
            med = [statistics.median(x[i] for x in rs) for i in (0, 2, 3, 4, 5)]
            geo = math.exp(statistics.mean(math.log(max(x[1], 1)) for x in rs))
            print(f"{name}x{scale} k={k:<3} {n:8s} median {med[0]:.3f} s  cut geomean {geo:.1f}  "
                  f"runs {[round(x[0], 3) for x in rs]} cuts {[x[1] for x in rs]} "
                  f"coarsen+comm {med[1]:.3f} jet {med[2]:.3f} vcycles {med[3]:.3f} "
                  f"initial {med[4]:.3f}", flush=True)


if __name__ == "__main__":
    main()
