"""Times an older Jet launcher against the current one on the GPU, in one process: ``_jet.refine``
on the top level of an inflated hMETIS input (k = 2, a GPU partition with 5% of the vertices
moved at random; the two outputs are compared) and ``timings["jet"]`` of the whole GPU pipeline
(``vcycles`` 0) with each launcher.

Usage: python benchmarks/jet_overhead_bench.py INPUT.hgr SCALE OLD_DIR, where OLD_DIR holds the
older version's ``_jet.py`` and ``jet.cu`` saved as ``_jet_old.py`` and ``jet_old.cu``, e.g.
``git show 354e603:igpart/kernels/gpu/_jet.py > old/_jet_old.py`` and
``git show 354e603:igpart/kernels/gpu/jet.cu > old/jet_old.cu`` (its jet.cu is compiled as the
extra source ``jet_old``; it must build against the current headers)."""

import atexit
import shutil
import sys
import time
import types
from pathlib import Path

import cupy as cp
import numpy as np

import igpart
from igpart import generators
from igpart.kernels import get_backend
from igpart.kernels.gpu import _jet, _loader

here = Path(sys.argv[3]).resolve()
copied = Path(_loader.__file__).parent / "jet_old.cu"
shutil.copy(here / "jet_old.cu", copied)
atexit.register(copied.unlink, missing_ok=True)  # the package directory keeps no extra source
_loader.SOURCES = (*_loader.SOURCES, "jet_old")
src = (here / "_jet_old.py").read_text().replace('launch("jet", ', 'launch("jet_old", ')
src = src.replace("from ..backend", "from igpart.kernels.backend").replace(
    "from ._", "from igpart.kernels.gpu._"
)
old = types.ModuleType("_jet_old")
exec(compile(src, "_jet_old.py", "exec"), old.__dict__)
new_refine = _jet.refine
counts = {}


def counting(mod, tag):
    orig = mod.launch

    def f(source, name, *a, **kw):
        if name == "jet_candidates":
            counts[tag] = counts.get(tag, 0) + 1
        return orig(source, name, *a, **kw)

    mod.launch = f


counting(old, "old")
counting(_jet, "new")
gpu = get_backend("gpu")
h = generators.inflate(igpart.read_hgr(sys.argv[1]), int(sys.argv[2]), seed=1)
print(f"n={h.n} m={h.m} pins={h.eind.shape[0]}", flush=True)
k = 2
ha = gpu.hypergraph_arrays(h)
p = igpart.partition(h, k, 0.03, "cut", backend="gpu", seed=1, config={"vcycles": 0})
rng = np.random.default_rng(0)
parts = p.parts.astype(np.int32).copy()
pick = rng.random(h.n) < 0.05
parts[pick] = rng.integers(0, k, int(pick.sum()))
bounds = cp.asarray(np.full(k, int(1.03 * -(-h.total_weight // k)), dtype=np.int64))
pd = cp.asarray(parts)
opts = dict(
    max_iterations=64,
    patience=12,
    negative_gain_factor=0.25,
    min_improvement=0.001,
    afterburner_max_net_size=256,
    balance_rounds=3,
    seed=0,
)
res = {}
for rep in range(3):
    for tag, fn in (("old", old.refine), ("new", new_refine)):
        counts.clear()
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        out, gain = fn(ha, pd, k, bounds, 0, **opts)
        cp.cuda.Device().synchronize()
        dt = time.perf_counter() - t0
        res.setdefault(tag, []).append(dt)
        print(
            f"refine {tag} rep{rep}: {dt * 1e3:.1f} ms gain={gain} "
            f"candidate-launches={counts.get(tag)}",
            flush=True,
        )
        res[tag + "_out"] = cp.asnumpy(out)
print("refine outputs equal:", np.array_equal(res["old_out"], res["new_out"]))
print(f"refine best old {min(res['old']) * 1e3:.1f} ms new {min(res['new']) * 1e3:.1f} ms")
for rep in range(2):
    for tag, fn in (("old", old.refine), ("new", new_refine)):
        _jet.refine = fn
        counts.clear()
        q = igpart.partition(h, k, 0.03, "cut", backend="gpu", seed=1, config={"vcycles": 0})
        print(
            f"pipeline {tag} rep{rep}: jet {q.timings['jet']:.3f} s total "
            f"{sum(v for v in q.timings.values()):.3f} s cut={q.cut} iterations~{counts.get(tag)}",
            flush=True,
        )
_jet.refine = new_refine
