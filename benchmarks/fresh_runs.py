"""Variants of the C++ backend's defaults, each run in a fresh process, as a user's first call.

``cpu_profile.py`` runs every variant in one process, so that whatever a run starts once (the
METIS worker processes, the OpenMP team, the heap) is paid by its first call only. Here every
(input, k, variant, repetition) is a new interpreter that reads the input, imports igpart and
then times one ``igpart.partition`` call: the worker processes a run starts, and their start-up
beside the run's threads, are inside the timed call. Variants alternate per repetition. Prints
a row per run and, per input and k, each variant's median seconds and cut and its ratios to the
first variant. Variant keys ``env.NAME`` set that environment variable for the variant's
processes (``""``: unset), e.g. libgomp's spin count, which a process reads when it loads;
keys ``CpuBackend.NAME`` set that class attribute in the variant's processes.

    python benchmarks/fresh_runs.py --inputs cholesky_mc,cholesky_mc:3 --ks 8,64 --threads 16 \\
        --variants '{"auto": {}, "w0": {"initial_metis_processes": 0}}' --reps 3
    python benchmarks/fresh_runs.py --inputs ibm08,neuron --ks 2,64 --threads 16 \\
        --variants '{"default": {}, "spin": {"env.GOMP_SPINCOUNT": "3000"}}' --reps 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one(spec: str, k: int, variant: dict, threads: int, seed: int, data: str) -> None:
    """The child: one timed partition, printed as a JSON line."""
    import time

    sys.path.insert(0, str(HERE))
    from cpu_profile import load

    import igpart
    import igpart.partitioner  # noqa: F401  (imports outside the timed call)
    from igpart.kernels.cpu import CpuBackend

    config = {}
    for key, value in variant.items():
        if key.startswith("CpuBackend."):
            name = key.split(".", 1)[1]
            if not hasattr(CpuBackend, name):
                raise SystemExit(f"fresh_runs: CpuBackend has no attribute '{name}'")
            setattr(CpuBackend, name, value)
        else:
            config[key] = value
    label, h = load(spec, Path(data))
    t0 = time.perf_counter()
    p = igpart.partition(h, k, 0.03, backend="cpu", seed=seed,
                         config=dict(config, threads=threads))
    seconds = time.perf_counter() - t0
    print(json.dumps({"input": label, "k": k, "seconds": seconds, "cut": int(p.cut),
                      "balanced": bool(p.balanced), "timings": p.timings}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", help="comma-separated NAME[:SCALE] or .hgr paths")
    ap.add_argument("--ks", default="8,64")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--variants", default='{"default": {}}',
                    help="JSON object: name -> Config overrides (env.NAME keys: environment; "
                    "CpuBackend.NAME keys: class attributes)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=os.environ.get(
        "IGPART_BENCHMARKS", str(HERE.parent.parent / "shared" / "benchmarks")))
    ap.add_argument("--json", help="also write every run to this JSON file")
    ap.add_argument("--one", nargs=2, metavar=("SPEC", "K"), help=argparse.SUPPRESS)
    ap.add_argument("--variant", default="{}", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args.one[0], int(args.one[1]), json.loads(args.variant), args.threads, args.seed,
            args.data)
        return
    if not args.inputs:
        ap.error("--inputs is required")
    variants = json.loads(args.variants)
    ks = [int(x) for x in args.ks.split(",")]
    rows = []
    for spec in args.inputs.split(","):
        for k in ks:
            for rep in range(args.reps):
                for name, variant in variants.items():
                    config = {key: v for key, v in variant.items() if not key.startswith("env.")}
                    env = dict(os.environ)
                    for key, v in variant.items():
                        if key.startswith("env."):
                            env.pop(key[4:], None)
                            if v != "":
                                env[key[4:]] = str(v)
                    cmd = [sys.executable, __file__, "--one", spec, str(k), "--variant",
                           json.dumps(config), "--threads", str(args.threads), "--seed",
                           str(args.seed), "--data", args.data]
                    r = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                       env=env)
                    if r.returncode != 0:
                        raise SystemExit(f"fresh_runs: {spec} k={k} {name}: {r.stderr[-2000:]}")
                    row = json.loads(r.stdout.strip().splitlines()[-1])
                    row.update(variant=name, rep=rep)
                    rows.append(row)
                    phases = " ".join(f"{p} {s:.3f}" for p, s in row["timings"].items()
                                      if s >= 0.005)
                    print(f"{row['input']} k={k} {name} rep {rep}: {row['seconds']:.3f} s "
                          f"cut {row['cut']}{'' if row['balanced'] else ' UNBALANCED'} "
                          f"[{phases}]", flush=True)
    print("\n| input | k | variant | median s | median cut | time ratio | cut ratio |")
    print("|---|---:|---|---:|---:|---:|---:|")
    first = next(iter(variants))
    cases = sorted({(r["input"], r["k"]) for r in rows}, key=lambda c: (c[0], c[1]))
    for label, k in cases:
        med = {}
        for name in variants:
            got = [r for r in rows if r["input"] == label and r["k"] == k and r["variant"] == name]
            med[name] = (statistics.median(r["seconds"] for r in got),
                         statistics.median(r["cut"] for r in got))
        for name, (s, c) in med.items():
            print(f"| {label} | {k} | {name} | {s:.3f} | {c:.0f} | {s / med[first][0]:.3f} "
                  f"| {c / max(1.0, med[first][1]):.3f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
