"""The effect of fixed vertices on the cut, against the free partition and against Mt-KaHyPar
with the same vertices fixed (when installed).

For every input and k, ``--fraction`` of the vertices (seeded, ``--fix-seeds``) are fixed:
``random`` pads (random vertices to random blocks, like I/O pads assigned without regard to
the netlist) or ``placed`` ones (random vertices fixed to the block the free igpart partition
gave them: fixed vertices that agree with a good partition, which should cost nothing). Each
row: the objective and seconds of the free igpart run, of igpart with the fixed vertices, of
Mt-KaHyPar DEFAULT with and without them (same seed, same threads), and the ratio fixed / free
for both; every fixed partition is checked (fixed vertices in place, balanced) by code
independent of the partitioner.

    python benchmarks/fixed_bench.py --inputs ibm01 --ks 8 --fraction 0.05 --fix-seeds 1,2,3
    python benchmarks/fixed_bench.py --inputs ibm01,ibm05 --ks 2,8,32 --backend gpu --json
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import time

import numpy as np
from _data import load

import igpart
from igpart.partitioner.initial.mtkahypar import mtkahypar_available, mtkahypar_partition


def fixed_array(n: int, k: int, fraction: float, seed: int, mode: str, free_parts) -> np.ndarray:
    rng = np.random.default_rng(seed)
    fixed = np.full(n, -1, dtype=np.int32)
    sel = rng.random(n) < fraction
    fixed[sel] = rng.integers(0, k, int(sel.sum())) if mode == "random" else free_parts[sel]
    return fixed


def check(h, parts, k, eps, fixed) -> None:
    """Independent checks: fixed vertices in their blocks, every block within the bound."""
    sel = fixed >= 0
    assert np.array_equal(parts[sel], fixed[sel]), "a fixed vertex left its block"
    bw = np.bincount(parts, weights=h.vwgt, minlength=k)
    bound = math.floor((1 + eps) * math.ceil(h.total_weight / k))
    assert bw.max() <= bound, f"unbalanced: {int(bw.max())} > {bound}"


def value(h, parts, k, objective) -> int:
    return int(igpart.cut(h, parts, k) if objective == "cut" else igpart.km1(h, parts, k))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm01", help="NAME or NAME:SCALE, comma separated")
    ap.add_argument("--ks", default="8")
    ap.add_argument("--fraction", type=float, default=0.05)
    ap.add_argument("--modes", default="random,placed")
    ap.add_argument("--fix-seeds", default="1,2,3")
    ap.add_argument("--seed", type=int, default=1, help="the partitioners' seed")
    ap.add_argument("--epsilon", type=float, default=0.03)
    ap.add_argument("--objective", default="cut", choices=("cut", "km1"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-mtkahypar", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    peers = mtkahypar_available() and not a.no_mtkahypar
    cfg = {"threads": a.threads}
    rows = []
    for spec in a.inputs.split(","):
        name, _, scale = spec.partition(":")
        h = load(name, int(scale or 1))
        for k in map(int, a.ks.split(",")):
            t0 = time.perf_counter()
            free = igpart.partition(h, k, a.epsilon, a.objective, a.backend, a.seed, cfg)
            free_s = time.perf_counter() - t0
            mf = (mtkahypar_partition(h, k, a.epsilon, a.objective, a.seed, a.threads, timed=True)
                  if peers else None)
            for mode in a.modes.split(","):
                for fs in map(int, a.fix_seeds.split(",")):
                    fixed = fixed_array(h.n, k, a.fraction, fs, mode, free.parts)
                    t0 = time.perf_counter()
                    p = igpart.partition(h, k, a.epsilon, a.objective, a.backend, a.seed, cfg,
                                         fixed=fixed)
                    secs = time.perf_counter() - t0
                    check(h, p.parts, k, a.epsilon, fixed)
                    row = {"input": spec, "k": k, "mode": mode, "fix_seed": fs,
                           "fixed": int((fixed >= 0).sum()),
                           "free": value(h, free.parts, k, a.objective),
                           "with_fixed": value(h, p.parts, k, a.objective),
                           "free_s": round(free_s, 3), "with_fixed_s": round(secs, 3)}
                    row["ratio"] = round(row["with_fixed"] / max(1, row["free"]), 3)
                    if peers:
                        mp, msecs = mtkahypar_partition(h, k, a.epsilon, a.objective, a.seed,
                                                        a.threads, timed=True, fixed=fixed)
                        check(h, mp, k, a.epsilon, fixed)
                        row.update(mtk_free=value(h, mf[0], k, a.objective),
                                   mtk_fixed=value(h, mp, k, a.objective),
                                   mtk_fixed_s=round(msecs, 3))
                        row["mtk_ratio"] = round(row["mtk_fixed"] / max(1, row["mtk_free"]), 3)
                        row["vs_mtk"] = round(row["with_fixed"] / max(1, row["mtk_fixed"]), 3)
                    rows.append(row)
                    if not a.json:
                        print(row, flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    meta = {"machine": platform.node(), "commit": commit, "backend": a.backend,
            "threads": a.threads, "objective": a.objective, "fraction": a.fraction}
    if a.json:
        print(json.dumps({"meta": meta, "rows": rows}, indent=1))
    else:
        print(meta)


if __name__ == "__main__":
    main()
