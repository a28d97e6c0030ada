"""Ahead-of-time compilation of the GPU modules (the .cu sources beside this file) into cubins.

``python setup.py build_ext`` (and so ``pip install``) calls :func:`build`, which writes
``_prebuilt/<module>.sm_<XY>.cubin`` for every module and architecture, plus
``_prebuilt/manifest.json``: the SHA-256 of each source and of every header, the compiler, its
options and the architectures each module was built for. At run time the loader
(``_loader.py``) asks :func:`select` for the cubin of a module: used only when the manifest's
hashes equal those of the sources beside it and an architecture fits the device (the same
major version, the newest minor version not above the device's, as CUDA's binary compatibility
allows); anything else falls back to compilation at run time.

Compilers, first found first (``IGPART_CUDA_COMPILER=nvcc|nvrtc|none`` forces one):
``nvcc`` on ``PATH`` or in ``$CUDA_HOME/bin``, unless CuPy is importable and its NVRTC comes from
an older major CUDA version than the nvcc (a cubin needs a driver of at least its CUDA major
version, and CuPy's CUDA version is the one the driver is known to run); then NVRTC through
CuPy (``cupy_backends.cuda.libs.nvrtc``: no GPU needed to emit a cubin for a named
architecture). Architectures: ``IGPART_CUDA_ARCHS`` (e.g. ``"80 90"``), else
:data:`DEFAULT_ARCHS`, kept to those the compiler supports. ``IGPART_BUILD_JOBS`` compilations
run at once. A compilation that fails is reported and left out: the install never fails for it.

After the cubins, the build step calls :func:`warm_cupy_cache`: on a machine whose CuPy sees a
CUDA device it fills CuPy's kernel cache with CuPy's own kernels that the partitioner uses
(``igpart/warmup.py``; ``IGPART_SKIP_WARMUP=1`` skips it; without a device nothing happens).

This file imports the standard library only: ``setup.py`` loads it without the package, and
runs it as a script (``python igpart/kernels/gpu/_prebuild.py [--out DIR]``) to rebuild the
cubins alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMON = HERE.parent / "common"
#: every module of the GPU backend (``dynamic`` serves the incremental engine only)
SOURCES = ("coarsen", "contract", "refine", "metrics", "util", "dynamic", "jet", "jet_balance",
           "scan", "graph_lp")
PREBUILT = "_prebuilt"
MANIFEST = "manifest.json"
#: bumped when the manifest's layout changes; a manifest of another format is not used
FORMAT = 1
#: Ampere to Hopper, then Blackwell where the compiler knows it (``coarsen.cu`` uses the warp
#: reductions of sm_80, so older devices cannot run the partitioner)
DEFAULT_ARCHS = (80, 86, 89, 90, 100, 120)
#: the options of every compilation, besides the architecture and the include directories
#: (those of the loader's run-time compilation)
OPTIONS = ("--std=c++17",)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def digests(gpu_dir: Path = HERE, common_dir: Path = COMMON) -> dict:
    """SHA-256 of each module source (``{"coarsen": ...}``) and of each header
    (``{"common/jet.h": ..., "gpu/igpart_gpu.cuh": ...}``) under these directories."""
    gpu_dir, common_dir = Path(gpu_dir), Path(common_dir)
    headers = {f"common/{p.name}": _sha256(p) for p in sorted(common_dir.glob("*.h"))}
    headers.update({f"gpu/{p.name}": _sha256(p) for p in sorted(gpu_dir.glob("*.cuh"))})
    sources = {n: _sha256(gpu_dir / f"{n}.cu") for n in SOURCES if (gpu_dir / f"{n}.cu").exists()}
    return {"sources": sources, "headers": headers}


def select(manifest: dict | None, name: str, capability: int, current: dict,
           driver_version: int | None = None) -> str | None:
    """The file name of the cubin of module ``name`` for a device of compute capability
    ``capability`` (e.g. 90 for 9.0, 121 for 12.1), or None when there is none to use:
    no manifest, another format, a source or header whose hash differs from ``current``
    (:func:`digests`), no architecture of the device's major version at or below its minor
    version, or a driver (``driver_version`` as CUDA numbers it, 12040 for 12.4) older than
    the compiler's CUDA major version."""
    if not manifest or manifest.get("format") != FORMAT:
        return None
    if manifest.get("headers") != current["headers"]:
        return None
    entry = manifest.get("modules", {}).get(name)
    if entry is None or entry.get("sha256") != current["sources"].get(name):
        return None
    cuda = manifest.get("cuda_version")
    if driver_version is not None and cuda and int(cuda) // 1000 > driver_version // 1000:
        return None
    major, minor = divmod(int(capability), 10)
    fits = [int(a) for a in entry.get("cubins", {})
            if int(a) // 10 == major and int(a) % 10 <= minor]
    return entry["cubins"][str(max(fits))] if fits else None


def load_manifest(directory: Path) -> dict | None:
    """The manifest in ``directory``, or None when there is none or it does not parse."""
    try:
        return json.loads((Path(directory) / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def prebuilt_files(capability: int, driver_version: int | None = None,
                   gpu_dir: Path = HERE, common_dir: Path = COMMON) -> dict[str, Path]:
    """The cubin to load for each module that has one usable on a device of compute capability
    ``capability`` (see :func:`select`), from the directory that ``IGPART_GPU_PREBUILT`` names:
    unset, empty or ``1`` is ``<gpu_dir>/_prebuilt``, ``0`` none (every module compiled at run
    time), anything else a directory."""
    setting = os.environ.get("IGPART_GPU_PREBUILT", "").strip()
    if setting.lower() in ("0", "false", "no", "off"):
        return {}
    directory = Path(gpu_dir) / PREBUILT if setting.lower() in ("", "1", "true", "yes", "on") \
        else Path(setting)
    manifest = load_manifest(directory)
    if manifest is None:
        return {}
    current = digests(gpu_dir, common_dir)
    found = {}
    for name in SOURCES:
        file = select(manifest, name, capability, current, driver_version)
        if file is not None and (directory / file).is_file():
            found[name] = directory / file
    return found


# --- the compilers ---------------------------------------------------------------------------

def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home and (Path(home) / "bin" / "nvcc").is_file():
        return str(Path(home) / "bin" / "nvcc")
    return None


def _run(cmd: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _nvcc_info(nvcc: str) -> tuple[int, str, list[int]] | None:
    """(CUDA version as 13000, version text, supported architectures) of ``nvcc``."""
    try:
        r = _run([nvcc, "--version"], timeout=60)
        m = re.search(r"release (\d+)\.(\d+), V([\d.]+)", r.stdout)
        if r.returncode != 0 or m is None:
            return None
        r2 = _run([nvcc, "--list-gpu-arch"], timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    archs = sorted({int(a) for a in re.findall(r"compute_(\d+)", r2.stdout)}) \
        if r2.returncode == 0 else []
    return int(m.group(1)) * 1000 + int(m.group(2)) * 10, f"nvcc {m.group(3)}", archs


_NVRTC_INFO = """
import json
from cupy_backends.cuda.libs import nvrtc
major, minor = nvrtc.getVersion()
try:
    archs = sorted(set(nvrtc.getSupportedArchs()))
except Exception:
    archs = []
print(json.dumps([major * 1000 + minor * 10, f"nvrtc {major}.{minor}", archs]))
"""

_NVRTC_COMPILE = """
import sys
from cupy_backends.cuda.libs import nvrtc
src, out, *options = sys.argv[1:]
prog = nvrtc.createProgram(open(src).read(), src, (), ())
try:
    try:
        nvrtc.compileProgram(prog, options)
    except nvrtc.NVRTCError as exc:
        sys.exit(f"{exc}\\n{nvrtc.getProgramLog(prog)}")
    with open(out, "wb") as f:
        f.write(nvrtc.getCUBIN(prog))
finally:
    nvrtc.destroyProgram(prog)
"""


def _nvrtc_info() -> tuple[int, str, list[int]] | None:
    """Like :func:`_nvcc_info` for CuPy's NVRTC (asked in a child: importing CuPy into the
    build's process is not needed), or None when CuPy does not import."""
    try:
        r = _run([sys.executable, "-c", _NVRTC_INFO], timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    version, text, archs = json.loads(r.stdout.strip().splitlines()[-1])
    return version, text, archs


def _choose(kind: str) -> tuple[str, str | None, tuple[int, str, list[int]]] | None:
    """(compiler kind, nvcc path, info) for ``kind`` (``auto``, ``nvcc``, ``nvrtc``), or None."""
    nvcc = _nvcc() if kind in ("auto", "nvcc") else None
    nv = _nvcc_info(nvcc) if nvcc else None
    rtc = _nvrtc_info() if kind in ("auto", "nvrtc") else None
    if kind == "nvcc":
        return ("nvcc", nvcc, nv) if nv else None
    if kind == "nvrtc":
        return ("nvrtc", None, rtc) if rtc else None
    if nv and (rtc is None or nv[0] // 1000 <= rtc[0] // 1000):
        return "nvcc", nvcc, nv
    return ("nvrtc", None, rtc) if rtc else None


def _command(compiler: str, nvcc: str | None, src: Path, out: Path, arch: int,
             gpu_dir: Path, common_dir: Path) -> list[str]:
    includes = [f"-I{common_dir}", f"-I{gpu_dir}"]
    if compiler == "nvcc":
        return [nvcc, "-cubin", f"-arch=sm_{arch}", *OPTIONS, *includes, "-o", str(out), str(src)]
    return [sys.executable, "-c", _NVRTC_COMPILE, str(src), str(out), f"-arch=sm_{arch}",
            *OPTIONS, *includes]


def requested_archs() -> list[int]:
    """``IGPART_CUDA_ARCHS`` (numbers separated by spaces or commas, ``sm_`` optional), else
    :data:`DEFAULT_ARCHS`."""
    text = os.environ.get("IGPART_CUDA_ARCHS", "").strip()
    if not text:
        return list(DEFAULT_ARCHS)
    archs = []
    for tok in re.split(r"[\s,;]+", text):
        m = re.fullmatch(r"(?:sm_|compute_)?(\d+)", tok)
        if m is None:
            raise ValueError(
                f"IGPART_CUDA_ARCHS: {tok!r} is not an architecture (e.g. 80 or sm_80)")
        archs.append(int(m.group(1)))
    return sorted(set(archs))


def build(out_dir: Path, archs: list[int] | None = None, compiler: str | None = None,
          jobs: int | None = None, gpu_dir: Path = HERE, common_dir: Path = COMMON,
          report=print) -> dict | None:
    """Compiles every module for every architecture into ``out_dir`` and writes its manifest
    (see the module docstring for the defaults of ``archs``, ``compiler`` and ``jobs``). Returns
    the manifest, or None when nothing was built (no compiler, or every compilation failed);
    ``report`` receives one line per problem. Never raises for a compiler's failure."""
    out_dir, gpu_dir, common_dir = Path(out_dir), Path(gpu_dir), Path(common_dir)
    kind = (compiler or os.environ.get("IGPART_CUDA_COMPILER") or "auto").strip().lower()
    if kind in ("none", "0", "off"):
        return None
    if kind not in ("auto", "nvcc", "nvrtc"):
        report(f"IGPART_CUDA_COMPILER={kind!r}: expected nvcc, nvrtc or none; using auto")
        kind = "auto"
    chosen = _choose(kind)
    if chosen is None:
        report(f"GPU kernels not prebuilt: no {'nvcc or CuPy' if kind == 'auto' else kind} "
               "found (they compile at first use)")
        return None
    name, nvcc, (cuda_version, version_text, supported) = chosen
    try:
        wanted = archs if archs is not None else requested_archs()
    except ValueError as exc:
        report(f"GPU kernels not prebuilt: {exc}")
        return None
    use = [a for a in wanted if not supported or a in supported]
    if len(use) < len(wanted):
        report(f"{version_text} does not support sm_"
               + ", sm_".join(str(a) for a in wanted if a not in use) + ": left out")
    if jobs is None:
        jobs = int(os.environ.get("IGPART_BUILD_JOBS", "0") or 0) or os.cpu_count() or 1
    cur = digests(gpu_dir, common_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    reuse = _reusable(load_manifest(out_dir), out_dir, version_text, cur, use)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".build-") as tmp:
        tasks = [(n, a) for n in cur["sources"] for a in use if (n, a) not in reuse]

        def compile_one(task):
            n, a = task
            out = Path(tmp) / f"{n}.sm_{a}.cubin"
            cmd = _command(name, nvcc, gpu_dir / f"{n}.cu", out, a, gpu_dir, common_dir)
            try:
                r = _run(cmd)
            except (OSError, subprocess.SubprocessError) as exc:
                return task, str(exc)
            if r.returncode != 0 or not out.is_file() or out.stat().st_size == 0:
                return task, (r.stderr or r.stdout or f"exit status {r.returncode}").strip()
            return task, None

        with ThreadPoolExecutor(max(1, jobs)) as pool:
            results = list(pool.map(compile_one, tasks))
        built = {task for task, err in results if err is None}
        for (n, a), err in results:
            if err is not None:
                report(f"{n}.cu for sm_{a} not prebuilt ({version_text}): {err[-800:]}")
        modules: dict[str, dict] = {}
        for n, a in sorted(built | set(reuse)):
            entry = modules.setdefault(n, {"sha256": cur["sources"][n], "cubins": {}})
            entry["cubins"][str(a)] = f"{n}.sm_{a}.cubin"
        # replace the previous build: its manifest out first, the new one last
        (out_dir / MANIFEST).unlink(missing_ok=True)
        keep = {f for e in modules.values() for f in e["cubins"].values()}
        for old in out_dir.glob("*.cubin"):
            if old.name not in keep:
                old.unlink()
        if not modules:
            return None
        for n, a in built:
            os.replace(Path(tmp) / f"{n}.sm_{a}.cubin", out_dir / f"{n}.sm_{a}.cubin")
    manifest = {
        "format": FORMAT,
        "compiler": version_text,
        "cuda_version": cuda_version,
        "options": ["-arch=sm_<arch>", *OPTIONS, "-I<kernels/common>", "-I<kernels/gpu>"],
        "headers": cur["headers"],
        "modules": modules,
    }
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def _reusable(old: dict | None, out_dir: Path, compiler: str, current: dict,
              archs: list[int]) -> set[tuple[str, int]]:
    """The (module, architecture) pairs of a previous build in ``out_dir`` that stay valid: same
    manifest format, compiler and headers, same source hash, the file still there."""
    if not old or old.get("format") != FORMAT or old.get("compiler") != compiler \
            or old.get("headers") != current["headers"]:
        return set()
    found = set()
    for n, entry in old.get("modules", {}).items():
        if entry.get("sha256") != current["sources"].get(n):
            continue
        for a, file in entry.get("cubins", {}).items():
            if int(a) in archs and (out_dir / file).is_file():
                found.add((n, int(a)))
    return found


_WARMUP_CHILD = """
import sys
try:
    import cupy
    count = cupy.cuda.runtime.getDeviceCount()
except Exception as exc:
    print(f"no usable CUDA device ({type(exc).__name__}: {exc})")
    sys.exit(3)
if count < 1:
    print("no CUDA device")
    sys.exit(3)
sys.path.insert(0, sys.argv[1])
from igpart.warmup import main
sys.exit(main(sys.argv[2:]))
"""

#: set to 1 (or true/yes/on) to skip :func:`warm_cupy_cache` at install
SKIP_WARMUP = "IGPART_SKIP_WARMUP"


def warm_cupy_cache(package_root: Path, report=print, args=(),
                    timeout: float = 1800) -> bool | None:
    """The install's warm-up: when CuPy sees a CUDA device, fills CuPy's kernel cache (the
    directory CuPy itself uses: ``CUPY_CACHE_DIR``, else ``~/.cupy/kernel_cache``) with the
    kernels of the igpart package under ``package_root`` (``igpart.warmup``, in a child process,
    with ``args``). Returns True when it ran, False when it failed (reported), None when there
    is nothing to do: no CuPy or no device (the cache is left as it was), or ``IGPART_SKIP_WARMUP``
    set. Never raises for a failure: the install goes on."""
    if os.environ.get(SKIP_WARMUP, "").strip().lower() in ("1", "true", "yes", "on"):
        report(f"CuPy kernel warm-up skipped ({SKIP_WARMUP} is set)")
        return None
    try:
        r = subprocess.run([sys.executable, "-c", _WARMUP_CHILD, str(package_root), *args],
                           capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        report(f"CuPy kernel warm-up not run ({exc!r}): run `igpart warmup` after install")
        return False
    if r.returncode == 3:
        return None
    for line in r.stdout.splitlines():
        report(line)
    if r.returncode != 0:
        report(f"CuPy kernel warm-up failed (exit status {r.returncode}): "
               f"{(r.stderr or '').strip()[-800:]}; run `igpart warmup` after install")
        return False
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Compile igpart's GPU modules into cubins.")
    ap.add_argument("--out", default=str(HERE / PREBUILT), help="output directory")
    ap.add_argument("--archs",
                    help="e.g. '80 90' (default: IGPART_CUDA_ARCHS or the built-in list)")
    ap.add_argument("--compiler", choices=("auto", "nvcc", "nvrtc"))
    ap.add_argument("--jobs", type=int)
    args = ap.parse_args(argv)
    if args.archs:
        os.environ["IGPART_CUDA_ARCHS"] = args.archs
    try:
        archs = requested_archs()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    manifest = build(Path(args.out), archs, args.compiler, args.jobs,
                     report=lambda line: print(line, file=sys.stderr))
    if manifest is None:
        return 1
    count = sum(len(e["cubins"]) for e in manifest["modules"].values())
    print(f"{count} cubins ({manifest['compiler']}) in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
