"""Builds the C++ backend, the pybind11 module ``igpart.kernels._cpu``.

Everything else (metadata, dependencies, entry points) lives in setup.cfg.
"""
import glob
import os

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = sorted(
    os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "igpart/kernels/cpu/*.cpp"))
)

ext = Pybind11Extension(
    "igpart.kernels._cpu",
    SOURCES,
    include_dirs=["igpart/kernels/common", "igpart/kernels/cpu"],
    cxx_std=17,
    extra_compile_args=["-O3"],
)

setup(ext_modules=[ext], cmdclass={"build_ext": build_ext})
