"""Shared fixtures: benchmark paths, GPU skipping, small random instances."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks"))
ISPD98 = BENCH / "ispd98"
TAU2015 = BENCH / "tau2015"


def _tcl_status() -> tuple[bool, str]:
    """Whether Python's Tcl interpreter (tkinter) works here, and why not."""
    try:
        import tkinter

        tkinter.Tcl()
    except Exception as exc:  # no tkinter module (python3-tk missing), or no Tcl library
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


def pytest_collection_modifyitems(config, items):
    from igpart.kernels import gpu_status

    for marker, (ok, reason), what in (("gpu", gpu_status(), "no GPU"),
                                       ("tcl", _tcl_status(), "no Tcl in this Python")):
        if ok:
            continue
        skip = pytest.mark.skip(reason=f"{what}: {reason}")
        for item in items:
            # the marker itself, not item.keywords: keywords also hold directory names (a
            # checkout in a folder called "gpu" would skip everything)
            if item.get_closest_marker(marker) is not None:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _synchronous_hypergraph_passes(monkeypatch):
    """The C++ backend's asynchronous Louvain passes and clustering joins (the default from 2
    and 16 threads) make a run depend on the threads' timing; the tests compare runs with each
    other and with oracles, so they run the synchronous passes (as ``deterministic=True``
    would), and the tests of the asynchronous modes turn them on themselves
    (``test_community.py``, ``test_threads.py``)."""
    from igpart.kernels.cpu import CpuBackend

    monkeypatch.setattr(CpuBackend, "async_louvain_min_threads", 0)
    monkeypatch.setattr(CpuBackend, "async_cluster_min_threads", 0)


@pytest.fixture(scope="session")
def ispd98() -> Path:
    if not (ISPD98 / "ibm01.hgr").exists():
        pytest.skip(f"ISPD98 benchmarks not found under {ISPD98} (set IGPART_BENCHMARKS)")
    return ISPD98


@pytest.fixture(scope="session")
def tau2015() -> Path:
    if not (TAU2015 / "cells_early.lib").exists():
        pytest.skip(f"TAU2015 benchmarks not found under {TAU2015} (set IGPART_BENCHMARKS)")
    return TAU2015
