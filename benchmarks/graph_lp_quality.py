"""Edge cut of the device label propagation (``igpart.kernels.gpu._graph_lp``) run with numpy,
against the C++ label propagation and the G-kway stages, on the ``graphs`` set of the suite.

The device algorithm is synchronous (a slice's vertices choose together and are admitted by a
vectorised rule), the C++ one moves a slice's vertices in order; this measures what that costs
in cut before the device measures speed. Every configuration runs the whole multilevel pipeline
in process on the same inputs and seeds; the report gives each one's geomean cut ratio against
the first and its worst case. Needs no GPU. The device configurations run the device's
defaults (one slice a round, ``GpuBackend.default_graph_lp_sub_rounds``); ``--variants`` adds
device ``lp+jet`` runs with other Config values.

    python benchmarks/graph_lp_quality.py --graph-scale 16 --ks 2,16,64 --seeds 2
    python benchmarks/graph_lp_quality.py --configs "cpp lp+fm,device lp+jet" \
        --variants '{"s8": {"graph_lp_sub_rounds": 8}}'
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import suite  # noqa: E402

import igpart  # noqa: E402
from igpart.kernels.gpu._graph_lp import reference_backend  # noqa: E402

#: name -> (backend, Config overrides); the first is the reference of the ratios
CONFIGS = {
    "cpp lp+fm": ("cpu", {"graph_coarsening": "lp", "graph_refinement": "lp+fm"}),
    "cpp lp": ("cpu", {"graph_coarsening": "lp", "graph_refinement": "lp"}),
    "device lp": ("ref", {"graph_coarsening": "lp", "graph_refinement": "lp"}),
    "device lp+fm": ("ref", {"graph_coarsening": "lp", "graph_refinement": "lp+fm"}),
    "device lp+jet": ("ref", {"graph_coarsening": "lp", "graph_refinement": "lp+jet"}),
    "gkway": ("cpu", {"graph_coarsening": "gkway", "graph_refinement": "gkway"}),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graph-scale", default="16", help="scales S of the graphs set (comma list)")
    ap.add_argument("--ks", default="2,16,64")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--cases", help="keep inputs whose name contains one of these (comma list)")
    ap.add_argument("--configs", help="comma list of " + ", ".join(CONFIGS))
    ap.add_argument("--variants", help="JSON {name: Config overrides} of more device lp+jet "
                    "configurations, appended to --configs")
    ap.add_argument("--work", default="/tmp/igpart_suite")
    ap.add_argument("--data", help="benchmark data directory (as suite.py's)")
    a = ap.parse_args(argv)
    configs = dict(CONFIGS)
    names = a.configs.split(",") if a.configs else list(CONFIGS)
    for name, over in (json.loads(a.variants) if a.variants else {}).items():
        configs[name] = ("ref", {**CONFIGS["device lp+jet"][1], **over})
        names.append(name)
    unknown = [n for n in names if n not in configs]
    if unknown:
        ap.error(f"unknown configuration(s) {', '.join(unknown)}; known: {', '.join(configs)}")
    wanted = a.cases.split(",") if a.cases else None
    scales = [int(s) for s in a.graph_scale.split(",")]
    data = suite.data_dir(a.data)
    cases = suite.graph_cases(Path(a.work), lambda n: wanted is None or any(w in n for w in wanted),
                              scales)
    ref = reference_backend()
    ratios: dict[str, list[float]] = {n: [] for n in names}
    worst: dict[str, tuple[float, str]] = {n: (0.0, "") for n in names}
    print("| input | k | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for case in cases:
        suite.materialize(case, data, 0)
        g = igpart.read_graph(case.path)
        for k in (int(x) for x in a.ks.split(",")):
            cuts, secs = [], []
            for name in names:
                backend, cfg = configs[name]
                c, t = [], []
                for seed in range(a.seeds):
                    t0 = time.perf_counter()
                    p = igpart.partition(g, k, 0.03, backend=ref if backend == "ref" else backend,
                                         seed=seed, config=cfg)
                    t.append(time.perf_counter() - t0)
                    assert p.imbalance <= 0.03 + 1e-9, (case.name, k, name)
                    c.append(p.cut)
                cuts.append(float(np.mean(c)))
                secs.append(float(np.mean(t)))
            for name, cut in zip(names, cuts):
                r = max(cut, 1.0) / max(cuts[0], 1.0)
                ratios[name].append(r)
                if r > worst[name][0]:
                    worst[name] = (r, f"{case.name} k={k}")
            print(f"| {case.name} | {k} | " + " | ".join(
                f"{c:,.0f} ({s:.1f} s)" for c, s in zip(cuts, secs)) + " |", flush=True)
    print()
    for name in names:
        gm = math.exp(np.mean(np.log(ratios[name]))) if ratios[name] else float("nan")
        print(f"{name}: cut geomean {gm:.3f}x {names[0]}, worst {worst[name][0]:.3f}x "
              f"({worst[name][1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
