"""Where does the GPU pipeline lose quality at scale? (diagnostic)

Runs igpart's multilevel driver on inflated ISPD98 inputs with instrumented backends and prints,
per run, the coarsening (vertices, pins, heaviest vertex per level), the cut after initial
partitioning and, per level, the cut after projection and after refinement. Variants (pick with
``--variants``):

* ``cpu``: the C++ backend (the reference).
* ``cpu_fm400k``: the C++ backend with FM skipped on levels of more than 400k pins (what the GPU
  backend did by default before this diagnostic).
* ``cpu_gpucomm``: the C++ backend with the communities computed the way the GPU backend does
  (coarsened to <= 30k vertices by unconstrained clustering first, Louvain there, projected back).
* ``gpu``: the GPU backend (host FM on every level, the default since this diagnostic).
* ``gpu_fm400k``: the GPU backend with host FM capped to levels of at most 400k pins (the
  default before).
* ``gpuh_cpur``: GPU hierarchy (communities, clustering, contraction), C++ refinement on host
  copies of every level.
* ``cpuh_gpur``: C++ communities and clustering (on host copies), GPU contraction and refinement.

    python benchmarks/gpu_quality_diag.py --inputs ibm01:40,ibm09:20 --ks 2,16 \\
        --variants cpu,gpu,gpu_fm400k,gpuh_cpur,cpuh_gpur
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from _data import ISPD98, load  # this folder is sys.path[0] when run as a script

import igpart
from igpart.kernels.cpu import CpuBackend

FM_MAX_PINS = 400_000


def instrumented(base: type) -> type:
    """A subclass of backend class ``base`` that logs levels and cuts into ``self.log``."""

    class Diag(base):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.log: list[tuple] = []

        def contract_hypergraph(self, hg, cmap, nc):
            out = super().contract_hypergraph(hg, cmap, nc)
            self.log.append(("level", hg.n, hg.num_pins, int(out.vwgt.max()), out.n,
                             out.num_pins))
            return out

        def rebalance_hypergraph(self, hg, parts, k, bounds, objective):
            before = self.hypergraph_objective(hg, parts, k, objective)
            out = super().rebalance_hypergraph(hg, parts, k, bounds, objective)
            self.log.append(("proj", hg.n, before, self.hypergraph_objective(hg, out, k,
                                                                             objective)))
            return out

        def refine_hypergraph(self, hg, parts, k, bounds, objective, **kw):
            out, g = super().refine_hypergraph(hg, parts, k, bounds, objective, **kw)
            self.log.append(("seq", hg.n, self.hypergraph_objective(hg, out, k, objective)))
            return out, g

        def fm_refine_hypergraph(self, hg, parts, k, bounds, objective, **kw):
            out, g = super().fm_refine_hypergraph(hg, parts, k, bounds, objective, **kw)
            self.log.append(("fm", hg.n, self.hypergraph_objective(hg, out, k, objective)))
            return out, g

        def jet_refine_hypergraph(self, hg, parts, k, bounds, objective, **kw):
            out, g = super().jet_refine_hypergraph(hg, parts, k, bounds, objective, **kw)
            self.log.append(("jet", hg.n, self.hypergraph_objective(hg, out, k, objective)))
            return out, g

    Diag.__name__ = f"Diag{base.__name__}"
    return Diag


class CpuFm400k(CpuBackend):
    """C++ backend, FM skipped on levels above FM_MAX_PINS pins (as the GPU backend does)."""

    def fm_refine_hypergraph(self, hg, parts, k, bounds, objective, **kw):
        if hg.num_pins > FM_MAX_PINS:
            return np.asarray(parts, dtype=np.int32).copy(), 0
        return super().fm_refine_hypergraph(hg, parts, k, bounds, objective, **kw)


class CpuGpuComm(CpuBackend):
    """C++ backend, communities computed the GPU backend's way: unconstrained clustering down
    to COMMUNITY_HOST_MAX vertices, Louvain there, projected back."""

    host_max = int(os.environ.get("DIAG_HOST_MAX", 30_000))
    #: weight cap of the pre-coarsening clusters as a fraction of the total (1: none)
    cap = float(os.environ.get("DIAG_CAP", 1.0))

    def communities(self, hg, *, max_net_size=50, max_levels=8, max_passes=8,
                    min_move_fraction=0.01, seed=0, resolution=1.0, max_weight=0, **kw):
        maps, cur = [], hg
        while cur.n > self.host_max:
            mcw = max(1, int(self.cap * cur.total_weight))
            cmap, nc = self.cluster_hypergraph(cur, mcw, max_net_size=max_net_size,
                                               max_shrink=4.0, seed=seed)
            if nc > 0.9 * cur.n:
                break
            maps.append(cmap)
            cur = CpuBackend.contract_hypergraph(self, cur, cmap, nc)
        comm = super().communities(cur, max_net_size=max_net_size, max_levels=max_levels,
                                   max_passes=max_passes, min_move_fraction=min_move_fraction,
                                   seed=seed, resolution=resolution, max_weight=max_weight, **kw)
        for cmap in reversed(maps):
            comm = comm[cmap]
        return comm


class CpuGpuCommFm400k(CpuGpuComm, CpuFm400k):
    """Both of the above."""


def gpu_variants() -> dict:
    from igpart.kernels.gpu import GpuBackend

    class GpuHierCpuRefine(GpuBackend):
        """GPU hierarchy, C++ refinement (FM on every level) on host copies."""

        def refine_hypergraph(self, hg, parts, k, bounds, objective, **kw):
            out, g = self.cpu.refine_hypergraph(self._host_copy(hg), self.to_host(parts), k,
                                                self.to_host(bounds), objective, **kw)
            return self.asarray(out), g

        def fm_refine_hypergraph(self, hg, parts, k, bounds, objective, **kw):
            out, g = self.cpu.fm_refine_hypergraph(self._host_copy(hg), self.to_host(parts), k,
                                                   self.to_host(bounds), objective, **kw)
            return self.asarray(out), g

    class CpuHierGpuRefine(GpuBackend):
        """C++ communities and clustering on host copies, GPU contraction and refinement."""

        def communities(self, hg, **kw):
            return self.asarray(self.cpu.communities(self._host_copy(hg), **kw), "int32")

        def cluster_hypergraph(self, hg, mcw, *, communities=None, **kw):
            comm = None if communities is None else self.to_host(communities)
            cmap, nc = self.cpu.cluster_hypergraph(self._host_copy(hg), mcw, communities=comm,
                                                   **kw)
            return self.asarray(cmap, "int32"), nc

    return {
        "gpu": lambda: instrumented(GpuBackend)(),
        "gpu_fm400k": lambda: instrumented(GpuBackend)(fm_host_max_pins=FM_MAX_PINS),
        "gpuh_cpur": lambda: instrumented(GpuHierCpuRefine)(),
        "cpuh_gpur": lambda: instrumented(CpuHierGpuRefine)(),
    }


CPU_VARIANTS = {
    "cpu": lambda: instrumented(CpuBackend)(),
    "cpu_fm400k": lambda: instrumented(CpuFm400k)(),
    "cpu_gpucomm": lambda: instrumented(CpuGpuComm)(),
    "cpu_gpucomm_fm400k": lambda: instrumented(CpuGpuCommFm400k)(),
}


def summarize(log: list[tuple]) -> str:
    """The coarsening, the initial cut (best candidate) and per-level cuts as text lines."""
    lines = []
    levels = [e for e in log if e[0] == "level"]
    if levels:
        lines.append("    coarsening: " + " -> ".join(
            f"{e[1]}v/{e[2]}p" for e in levels) + f" -> {levels[-1][4]}v/{levels[-1][5]}p")
        lines.append("    heaviest coarse vertex per level: "
                     + ", ".join(str(e[3]) for e in levels))
    # the coarsest level's entries are the initial candidates; keep the last (the chosen one is
    # re-evaluated by the driver, so print the best final cut over candidates)
    coarsest = levels[-1][4] if levels else None
    ini = [e[2] for e in log if e[0] in ("seq", "fm") and e[1] == coarsest]
    if ini:
        lines.append(f"    initial (after refinement, best of {len(ini)} stage results): "
                     f"{min(ini)}")
    rows: dict[int, dict] = {}
    order: list[int] = []
    for e in log:
        if e[0] == "level" or e[1] == coarsest:
            continue
        if e[1] not in rows:
            rows[e[1]] = {}
            order.append(e[1])
        if e[0] == "proj":
            rows[e[1]]["proj"] = e[2]
            rows[e[1]]["rebal"] = e[3]
        else:
            rows[e[1]][e[0]] = e[2]
    for n in order:
        r = rows[n]
        lines.append(f"    n={n:>8}: projected {r.get('proj')} rebalanced {r.get('rebal')} "
                     f"seq {r.get('seq')} jet {r.get('jet')} fm {r.get('fm')}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default="ibm01:40,ibm09:20")
    ap.add_argument("--ks", default="2,16")
    ap.add_argument("--variants", default="cpu,cpu_fm400k,cpu_gpucomm")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--config", default='{"vcycles": 0}',
                    help="Config overrides as JSON (default: no V-cycle, so that every level is "
                    "printed once)")
    args = ap.parse_args()
    import json

    cfg = json.loads(args.config) if args.config else None
    wanted = args.variants.split(",")
    makers = dict(CPU_VARIANTS)
    if any(v not in CPU_VARIANTS for v in wanted):
        makers.update(gpu_variants())
        from igpart.kernels.gpu import GpuBackend

        igpart.partition(igpart.read_hgr(ISPD98 / "ibm01.hgr"), 4, backend=GpuBackend())  # warm
    summary = []
    for spec in args.inputs.split(","):
        name, scale = spec.split(":")
        h = load(name, int(scale), seed=args.seed)
        print(f"{name}x{scale}: {h.n} vertices, {h.num_pins} pins", flush=True)
        for k in (int(x) for x in args.ks.split(",")):
            for v in wanted:
                be = makers[v]()
                t0 = time.perf_counter()
                p = igpart.partition(h, k, 0.03, "cut", backend=be, seed=args.seed, config=cfg)
                dt = time.perf_counter() - t0
                print(f"  k={k} {v}: cut {p.cut} balanced {p.balanced} {dt:.2f} s", flush=True)
                print(summarize(be.log), flush=True)
                summary.append((f"{name}x{scale}", k, v, p.cut, dt))
    print("\n| input | k | variant | cut | s |\n|---|---:|---|---:|---:|")
    for r in summary:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.2f} |")


if __name__ == "__main__":
    main()
