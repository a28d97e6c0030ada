"""Fills CuPy's kernel cache with the kernels the GPU partitioner uses, so that the first
partition of a machine compiles nothing.

The partitioner's own modules come as cubins built at install (``_prebuild.py``); CuPy's own
elementwise, reduction, scan and indexing kernels cannot: CuPy compiles each on first use (one
per operation, dtypes, and for reductions and stream compaction, array size class) and keeps
it in its disk cache (``CUPY_CACHE_DIR``, else ``~/.cupy/kernel_cache``), keyed by the GPU's
architecture, CuPy and NVRTC. This module compiles them ahead of use:

1. the loader's warm-up calls (``_loader._CUPY_WARMUPS``, and ``_loader._CUPY_SIZED`` at every
   size of ``_loader.SIZES_FULL``), and any partitioner module without a usable cubin, split
   over worker processes;
2. sample runs of the partitioner's paths on generated inputs (hypergraphs at k = 2, 16 and 64,
   cut and km1; a graph; the incremental GPU engine), which compile whatever the list missed.

Run it after installing, or in a container build on a machine with the target GPU::

    igpart warmup                      # or: python -m igpart.warmup

The build step runs it when it sees a CUDA device (``setup.py``; ``IGPART_SKIP_WARMUP=1``
skips it). It prints what it compiled and where it cached it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

#: vertices of the sample inputs (:func:`_samples`)
SAMPLE_N = 100_000


def kernel_files(directory: Path) -> set[Path]:
    """The compiled kernels in CuPy's cache ``directory`` (one ``<sha1>.cubin`` each)."""
    directory = Path(directory)
    return set(directory.glob("*.cubin")) if directory.is_dir() else set()


def kernel_names(paths) -> list[str]:
    """What the cached kernels ``paths`` are: the CuPy kernel names they hold (such as
    ``cupy_less__int32_int_bool``, ``cupy_cub_any_pass1``), else the file's name."""
    out = []
    for p in paths:
        try:
            data = Path(p).read_bytes()
        except OSError:
            continue
        names = sorted({m.decode() for m in re.findall(rb"cupy_[A-Za-z0-9_]+", data)})
        out.append(" ".join(names) if names else Path(p).name)
    return sorted(out)


def _samples(n: int):
    """(label, callable) of the sample runs on generated inputs of about ``n`` vertices: large
    enough for the device paths of big inputs (Louvain and Jet run on the device above 30,000
    vertices / 100,000 pins; reductions reach CuPy's largest block size)."""
    import numpy as np

    from .dynamic import DynamicHypergraph
    from .generators import grid_graph, random_circuit, timing_batch
    from .partitioner.api import partition

    h = random_circuit(n, seed=1)
    side = int(np.ceil(np.sqrt(n)))
    g = grid_graph(side, side)
    hyper = [(2, "cut", {}), (16, "cut", {}), (64, "cut", {}), (16, "km1", {}),
             (16, "cut", {"coarsening": "hyperg"})]
    runs = [(f"hypergraph k={k} {obj} {cfg or ''}".rstrip(),
             lambda k=k, obj=obj, cfg=cfg: partition(h, k, objective=obj, backend="gpu", seed=0,
                                                     config=cfg)) for k, obj, cfg in hyper]
    graph = [{}, {"graph_host_levels_below": 0},
             {"graph_coarsening": "lp", "graph_refinement": "lp+jet"},
             {"graph_coarsening": "gkway", "graph_refinement": "gkway"}]
    runs += [(f"graph k=16 {cfg or ''}".rstrip(),
              lambda cfg=cfg: partition(g, 16, backend="gpu", seed=0, config=cfg))
             for cfg in graph]

    def incremental():
        parts = partition(h, 16, backend="gpu", seed=0).parts
        d = DynamicHypergraph.from_hypergraph(h, parts, 16, 0.03, backend="gpu")
        mirror = DynamicHypergraph.from_hypergraph(h, parts, 16, 0.03)
        rng = np.random.default_rng(5)
        for i in range(4):
            b = timing_batch(mirror, rng, 100)
            mirror.apply(b)
            d.apply(b)
            d.refine("km1" if i % 2 else "cut")

    runs.append(("incremental engine k=16", incremental))
    return runs


def done_marker(cache: Path, version: str, capability: str, samples: bool, n: int) -> Path:
    """The file in the cache directory that records a complete warm-up for this igpart (its
    Python files, whose CuPy calls the kernels are, and its GPU sources), this CuPy and this
    GPU architecture, with or without the samples of ``n`` vertices."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    gpu, common = root / "kernels" / "gpu", root / "kernels" / "common"
    files = [*root.rglob("*.py"), *gpu.glob("*.cu"), *gpu.glob("*.cuh"), *common.glob("*.h")]
    for p in sorted(files):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    h.update(f"{version} {capability} {bool(samples)} {int(n)}".encode())
    return Path(cache) / f"igpart-warmup-{h.hexdigest()[:24]}.ok"


def warmup(processes: int = 0, samples: bool = True, n: int = SAMPLE_N, report=print,
           force: bool = False) -> dict:
    """Compiles the GPU partitioner's kernels into CuPy's cache (see the module docstring).
    ``processes``: compile workers (0: automatic, as ``IGPART_GPU_COMPILE_PROCESSES``; 1: none);
    ``samples``: also run the sample partitions (of about ``n`` vertices). A cache already
    warmed for this igpart, CuPy and GPU (:func:`done_marker`) is left as it is unless
    ``force``. Returns the cache directory, the kernels each phase compiled and its seconds
    (``skipped``: True when there was nothing to do). Raises BackendUnavailable without a
    usable GPU."""
    from .kernels import BackendUnavailable, gpu_status

    ok, reason = gpu_status()
    if not ok:
        raise BackendUnavailable(f"no GPU to compile kernels for: {reason}")
    import cupy

    from .kernels.gpu import _loader

    cache = _loader.cache_dir()
    if processes <= 0:
        processes = int(os.environ.get("IGPART_GPU_COMPILE_PROCESSES", "0") or 0)
    if processes <= 0:
        processes = max(1, min(16, _loader._usable_cpus() - 1))
    dev = cupy.cuda.Device()
    report(f"GPU {dev.id} (compute capability {dev.compute_capability}), CuPy {cupy.__version__}; "
           f"kernel cache {cache}")
    result = {"cache_dir": str(cache), "device": int(dev.id),
              "compute_capability": str(dev.compute_capability), "cupy": cupy.__version__,
              "skipped": False}
    done = done_marker(cache, cupy.__version__, str(dev.compute_capability), samples, n)
    if done.exists() and not force:
        report(f"already warmed for this igpart, CuPy and GPU ({done.name}): nothing to do "
               "(--force compiles again)")
        result["skipped"] = True
        return result
    before = kernel_files(cache)
    t0 = time.perf_counter()
    errors = _loader.fill_cache(processes, _loader.SIZES_FULL)
    for e in errors:
        report(f"warning: a compile worker failed ({e})")
    listed = kernel_files(cache)
    result["list"] = {"seconds": time.perf_counter() - t0, "processes": processes,
                      "prebuilt_modules": _loader.prebuilt_modules(),
                      "compiled": kernel_names(listed - before), "errors": errors}
    report(f"warm-up list: {len(listed - before)} kernels compiled "
           f"({len(listed)} cached) in {result['list']['seconds']:.1f} s with {processes} "
           f"processes; modules from cubins: {', '.join(_loader.prebuilt_modules()) or 'none'}")
    if samples:
        t1 = time.perf_counter()
        failed = []
        for label, run in _samples(n):
            t = time.perf_counter()
            have = kernel_files(cache)
            try:
                run()
            except Exception as exc:  # noqa: BLE001 - reported; the other samples still run
                failed.append(f"{label}: {type(exc).__name__}: {exc}")
                report(f"warning: sample {label} failed: {type(exc).__name__}: {exc}")
                continue
            new = kernel_files(cache) - have
            report(f"sample {label}: {time.perf_counter() - t:.1f} s, {len(new)} kernels "
                   "compiled" + (f": {', '.join(kernel_names(new))}" if new else ""))
        after = kernel_files(cache)
        result["samples"] = {"seconds": time.perf_counter() - t1, "n": n,
                             "compiled": kernel_names(after - listed), "errors": failed}
    total = kernel_files(cache) - before
    result["compiled"] = len(total)
    if not errors and not result.get("samples", {}).get("errors"):
        try:
            done.write_text("warmed by igpart warmup\n")
        except OSError:
            pass
    report(f"{len(total)} kernels compiled into {cache} "
           f"({len(kernel_files(cache))} cached in all)")
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="igpart warmup",
        description="Compile the GPU partitioner's CuPy kernels into CuPy's kernel cache "
                    "(CUPY_CACHE_DIR, else ~/.cupy/kernel_cache), so that the first partition "
                    "compiles nothing.")
    add_arguments(ap)
    return run(ap.parse_args(argv))


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--processes", type=int, default=0,
                    help="compile workers (default 0: automatic; 1: none)")
    ap.add_argument("--no-samples", action="store_true",
                    help="only the warm-up list, no sample partitions")
    ap.add_argument("--sample-vertices", type=int, default=SAMPLE_N,
                    help=f"vertices of the sample inputs (default {SAMPLE_N})")
    ap.add_argument("--force", action="store_true",
                    help="compile again even where this igpart, CuPy and GPU were warmed up")
    ap.add_argument("--json", help="also write what was compiled to this file")


def run(args) -> int:
    """The command: 0 on success, 2 (with a message on stderr) without a usable GPU."""
    from .kernels import BackendUnavailable

    if args.processes < 0:
        print(f"error: --processes must be >= 0, got {args.processes}", file=sys.stderr)
        return 2
    if args.sample_vertices < 1000:
        print(f"error: --sample-vertices must be >= 1000, got {args.sample_vertices}",
              file=sys.stderr)
        return 2
    try:
        result = warmup(args.processes, not args.no_samples, args.sample_vertices,
                        force=args.force)
    except BackendUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        from .io import atomic_write

        atomic_write(args.json, json.dumps(result, indent=1) + "\n")  # OutputError names it
    return 0


if __name__ == "__main__":
    sys.exit(main())
