"""Builds the C++ backend, the pybind11 module ``igpart.kernels._cpu``, and the GPU modules'
cubins (``igpart/kernels/gpu/_prebuilt``, see ``igpart/kernels/gpu/_prebuild.py``: with nvcc or
CuPy at hand; without either, or when a compilation fails, the GPU modules compile at first use),
then, where CuPy sees a CUDA device, fills CuPy's kernel cache with the CuPy kernels the GPU
backend uses (``igpart/warmup.py``; ``IGPART_SKIP_WARMUP=1`` skips it).

Everything else (metadata, dependencies, entry points) lives in setup.cfg. OpenMP is used when the
compiler accepts ``-fopenmp`` (results stay deterministic: parallel loops only read shared state).
"""
import glob
import importlib.util
import os
import subprocess
import sysconfig
import tempfile

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext, naive_recompile
from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = sorted(
    os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "igpart/kernels/cpu/*.cpp"))
)

# METIS 5.1.0 as pymetis ships it (third_party/metis/README.md): a static library linked into the
# C++ module, its symbols hidden, every rand() / srand() of GKlib redirected to a per-thread
# generator (third_party/metis/igpart_rand.c) so that calls on several threads stay seeded
METIS_DIR = "third_party/metis"
METIS_LIB = (
    "igpart_metis",
    {
        "sources": sorted(
            os.path.relpath(p, HERE)
            for pattern in ("libmetis/*.c", "GKlib/*.c", "igpart_rand.c")
            for p in glob.glob(os.path.join(HERE, METIS_DIR, pattern))
        ),
        "include_dirs": [f"{METIS_DIR}/include", f"{METIS_DIR}/GKlib", f"{METIS_DIR}/libmetis"],
        "macros": [("_GNU_SOURCE", None), ("NDEBUG", None), ("rand", "igp_metis_rand"),
                   ("srand", "igp_metis_srand")],
        "cflags": ["-O3", "-fPIC", "-fvisibility=hidden", "-w"],
    },
)


def openmp_flags() -> list[str]:
    """['-fopenmp'] when the C++ compiler builds and links an OpenMP program, else []."""
    if os.environ.get("IGPART_NO_OPENMP"):
        return []
    cxx = os.environ.get("CXX") or (sysconfig.get_config_var("CXX") or "c++").split()[0]
    src = "#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n"
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.cpp")
        with open(path, "w") as f:
            f.write(src)
        try:
            r = subprocess.run(
                [cxx, "-fopenmp", path, "-o", os.path.join(d, "t")],
                capture_output=True,
                timeout=60,
            )
        except (OSError, subprocess.SubprocessError):
            return []
    return ["-fopenmp"] if r.returncode == 0 else []


def _load_prebuild():
    """``igpart/kernels/gpu/_prebuild.py`` alone (the package's imports need not be installed)."""
    spec = importlib.util.spec_from_file_location(
        "_igpart_gpu_prebuild", os.path.join(HERE, "igpart/kernels/gpu/_prebuild.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class BuildExt(build_ext):
    """build_clib (METIS), build_ext, then the GPU cubins beside the built package (in place: in
    the source tree).
    A failure there is reported and never fails the build."""

    def run(self):
        # the METIS library first: build_ext links it but never builds it (pip's editable and
        # wheel builds run build_ext alone)
        self.run_command("build_clib")
        super().run()
        out = os.path.join(HERE if self.inplace else self.build_lib, "igpart/kernels/gpu")
        try:
            prebuild = _load_prebuild()
            manifest = prebuild.build(
                os.path.join(out, prebuild.PREBUILT),
                report=lambda line: print(f"warning: {line}", flush=True))
        except Exception as exc:  # noqa: BLE001 - the cubins are an optimisation only
            print(f"warning: GPU kernels not prebuilt ({exc!r}); they compile at first use")
            manifest = None
        if manifest is not None:
            count = sum(len(e["cubins"]) for e in manifest["modules"].values())
            print(f"prebuilt {count} GPU cubins ({manifest['compiler']})", flush=True)
        # with a CUDA device at hand: CuPy's own kernels into the user's CuPy kernel cache
        try:
            _load_prebuild().warm_cupy_cache(HERE if self.inplace else self.build_lib,
                                             report=lambda line: print(line, flush=True))
        except Exception as exc:  # noqa: BLE001 - an optimisation only
            print(f"warning: CuPy kernels not warmed up ({exc!r}); run `igpart warmup`")


# compile sources in parallel; unchanged objects are reused by in-place rebuilds
ParallelCompile("IGPART_BUILD_JOBS", default=2, needs_recompile=naive_recompile).install()

OMP = openmp_flags()
ext = Pybind11Extension(
    "igpart.kernels._cpu",
    SOURCES,
    include_dirs=["igpart/kernels/common", "igpart/kernels/cpu", f"{METIS_DIR}/include"],
    cxx_std=17,
    extra_compile_args=["-O3", *OMP],
    extra_link_args=OMP,
    depends=sorted(
        glob.glob(os.path.join(HERE, "igpart/kernels/cpu/*.h"))
        + glob.glob(os.path.join(HERE, "igpart/kernels/common/*.h"))
    ),
)

setup(ext_modules=[ext], libraries=[METIS_LIB], cmdclass={"build_ext": BuildExt})
