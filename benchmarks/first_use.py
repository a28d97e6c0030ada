"""What the first GPU run of a machine costs: ``igpart partition FILE -k K --backend gpu`` as a
whole process with an empty CuPy kernel cache (every kernel compiled by NVRTC) against the same
command with the cache filled by that run, for each ``--compile-processes`` setting (the
loader's compile workers, ``IGPART_GPU_COMPILE_PROCESSES``; 1: none, each kernel compiled when
first used; 0: automatic), for each ``--prebuilt`` setting (``IGPART_GPU_PREBUILT``: 1, the
cubins the build step wrote beside the sources; 0, none: every module compiled at run time), and
for each ``--prepare`` setting (``IGPART_GPU_PREPARE``: 1, the command readies the GPU in a
background thread while it reads the input; 0, not).

One more child per setting splits the cold cost: the loader's modules alone
(``_loader.compile_modules``), then a partition of a 2,000-vertex hypergraph (CuPy's own
elementwise and reduction kernels, compiled on first use), then the input itself.

With ``--installed`` (default on) each setting also runs what an install on a machine with a
GPU does: a fresh cache directory, the install-time warm-up into it (``igpart warmup``, timed
apart: the install's cost), then the first command, then warm runs; the row lists the CuPy
kernels that first command still compiled (the cache directory's files before and after), i.e.
what the warm-up misses.

    python benchmarks/first_use.py --input ibm10:29 -k 16 --compile-processes 0 --prebuilt 1,0
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SPLIT = r"""
import json, os, re, sys, time
from pathlib import Path
cache = Path(os.environ["CUPY_CACHE_DIR"])
def files():
    return set(cache.rglob("*.cubin"))
def names(paths):
    out = set()
    for p in paths:
        src = Path(str(p) + ".cu")  # CUPY_CACHE_SAVE_CUDA_SOURCE: the kernel's signature
        sig = [ln.strip() for ln in src.read_text().splitlines() if "__global__" in ln][:1] \
            if src.exists() else []
        out.update(sig or [m.decode() for m in re.findall(rb"cupy_[a-z_0-9]+", p.read_bytes())])
    return sorted(out)
t0 = time.perf_counter()
import igpart
from igpart.generators import random_circuit
from igpart.kernels.gpu import _loader
t1 = time.perf_counter()
_loader.compile_modules(_loader.PARTITION_SOURCES)
t2 = time.perf_counter()
prebuilt = _loader.prebuilt_modules()
f2 = files()
igpart.partition(random_circuit(2000, seed=1), 4, backend="gpu", seed=0)
t3 = time.perf_counter()
f3 = files()
h = igpart.read_hgr(sys.argv[1])
t4 = time.perf_counter()
igpart.partition(h, int(sys.argv[2]), backend="gpu", seed=0)
t5 = time.perf_counter()
f5 = files()
print(json.dumps({"import": t1 - t0, "modules": t2 - t1, "cupy_kernels_small_run": t3 - t2,
                  "read": t4 - t3, "partition": t5 - t4,
                  "prebuilt_modules": len(prebuilt),
                  "compiled_by_modules": len(f2), "compiled_after": names((f5 - f2))}))
"""


def kernel_files(cache: str) -> set[Path]:
    return set(Path(cache).glob("*.cubin"))


def kernel_names(paths) -> list[str]:
    """The CuPy kernel names in cached cubins (``igpart.warmup.kernel_names``,
    imported here so that this script runs without a GPU until it starts children)."""
    from igpart.warmup import kernel_names as names

    return names(paths)


def installed_row(cmd: list[str], base: dict, repeat: int) -> dict:
    """Fresh cache, the install-time warm-up (timed: install cost), the first command, the CuPy
    kernels it compiled, then ``repeat`` warm runs."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(base, CUPY_CACHE_DIR=cache)
        report = Path(cache) / "warmup.json.out"
        install, _ = run([sys.executable, "-m", "igpart", "warmup", "--json", str(report)], env)
        warm = json.loads(report.read_text())
        report.unlink()
        have = kernel_files(cache)
        first, _ = run(cmd, env)
        missed = kernel_names(kernel_files(cache) - have)
        warm_runs = [run(cmd, env)[0] for _ in range(repeat)]
    return {"install_warmup": install, "warmup_compiled": warm.get("compiled"),
            "warmup_list_s": warm.get("list", {}).get("seconds"),
            "warmup_samples_s": warm.get("samples", {}).get("seconds"),
            "samples_compiled": warm.get("samples", {}).get("compiled", []),
            "first": first, "warm": warm_runs, "first_minus_warm": first - min(warm_runs),
            "compiled_by_first": missed}


def run(cmd: list[str], env: dict) -> tuple[float, str]:
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return wall, r.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", default="ibm10:29", help="NAME:SCALE (benchmarks/_data.py)")
    ap.add_argument("-k", type=int, default=16)
    ap.add_argument("--compile-processes", default="1,0", help="comma list")
    ap.add_argument("--prebuilt", default="1,0", help="comma list of IGPART_GPU_PREBUILT values")
    ap.add_argument("--repeat", type=int, default=3, help="warm runs per setting")
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--prepare", default="1",
                    help="comma list of IGPART_GPU_PREPARE values (1: the command readies the "
                         "GPU while it reads the input; 0: not)")
    ap.add_argument("--installed", type=int, default=1,
                    help="1: also the install-time warm-up scenario per setting; 0: not")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args(argv)

    from _data import load

    import igpart

    name, _, scale = args.input.partition(":")
    path = Path(args.work) / f"{name}x{scale or 1}.hgr"
    if not path.exists():
        igpart.write_hgr(load(name, int(scale or 1)), path)
    out = Path(args.work) / "first_use.part"
    cmd = [sys.executable, "-m", "igpart", "partition", str(path), "-k", str(args.k),
           "--backend", "gpu", "-o", str(out)]
    results = {"input": args.input, "k": args.k, "settings": {}}
    settings = [(int(p), b, q) for p in args.compile_processes.split(",")
                for b in args.prebuilt.split(",") for q in args.prepare.split(",")]
    for procs, prebuilt, prepare in settings:
        row = {}
        base = dict(os.environ, IGPART_GPU_COMPILE_PROCESSES=str(procs),
                    IGPART_GPU_PREBUILT=prebuilt, IGPART_GPU_PREPARE=prepare)
        with tempfile.TemporaryDirectory() as cache:
            env = dict(base, CUPY_CACHE_DIR=cache)
            row["cold"], _ = run(cmd, env)
            row["warm"] = [run(cmd, env)[0] for _ in range(args.repeat)]
        with tempfile.TemporaryDirectory() as cache:
            env = dict(base, CUPY_CACHE_DIR=cache, CUPY_CACHE_SAVE_CUDA_SOURCE="1")
            _, text = run([sys.executable, "-c", SPLIT, str(path), str(args.k)], env)
            row["cold_split"] = json.loads(text.strip().splitlines()[-1])
        row["cold_minus_warm"] = row["cold"] - min(row["warm"])
        results["settings"][f"processes={procs} prebuilt={prebuilt} prepare={prepare}"] = row
        split = ", ".join(f"{a} {b:.2f}" if isinstance(b, float) else f"{a} {b}"
                          for a, b in row["cold_split"].items())
        print(f"compile processes {procs}, prebuilt {prebuilt}, prepare {prepare}: cold "
              f"{row['cold']:.2f} s, warm {' / '.join(f'{w:.2f}' for w in row['warm'])} s, "
              f"first use costs {row['cold_minus_warm']:.2f} s more; cold run split: {split}",
              flush=True)
        if args.installed:
            inst = row["installed"] = installed_row(cmd, base, args.repeat)
            print(f"  install-time warm-up {inst['install_warmup']:.2f} s (list "
                  f"{inst['warmup_list_s'] or 0:.2f} s, samples {inst['warmup_samples_s'] or 0:.2f}"
                  f" s, {inst['warmup_compiled']} kernels; the samples compiled "
                  f"{len(inst['samples_compiled'])} the list missed), then first use "
                  f"{inst['first']:.2f} s, warm {' / '.join(f'{w:.2f}' for w in inst['warm'])} s:"
                  f" first use costs {inst['first_minus_warm']:.2f} s more; the first command "
                  f"compiled {len(inst['compiled_by_first'])} CuPy kernels"
                  + (f": {', '.join(inst['compiled_by_first'])}" if inst["compiled_by_first"]
                     else ""), flush=True)
            for name in inst["samples_compiled"]:
                print(f"    missed by the list, compiled by a sample: {name}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
