"""Builds the C++ backend, the pybind11 module ``igpart.kernels._cpu``.

Everything else (metadata, dependencies, entry points) lives in setup.cfg. OpenMP is used when the
compiler accepts ``-fopenmp`` (results stay deterministic: parallel loops only read shared state).
"""
import glob
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


# compile sources in parallel; unchanged objects are reused by in-place rebuilds
ParallelCompile("IGPART_BUILD_JOBS", default=2, needs_recompile=naive_recompile).install()

OMP = openmp_flags()
ext = Pybind11Extension(
    "igpart.kernels._cpu",
    SOURCES,
    include_dirs=["igpart/kernels/common", "igpart/kernels/cpu"],
    cxx_std=17,
    extra_compile_args=["-O3", *OMP],
    extra_link_args=OMP,
    depends=sorted(
        glob.glob(os.path.join(HERE, "igpart/kernels/cpu/*.h"))
        + glob.glob(os.path.join(HERE, "igpart/kernels/common/*.h"))
    ),
)

setup(ext_modules=[ext], cmdclass={"build_ext": build_ext})
