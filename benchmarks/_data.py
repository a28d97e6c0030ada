"""The benchmark circuits for the scripts of this folder: ``NAME`` is an ISPD98 (``ibmNN``) or
Titan23 circuit of the data directory (``IGPART_BENCHMARKS``, else ``../shared/benchmarks``
beside the repository), ``NAME:SCALE`` the same enlarged ``SCALE`` times with the seeded,
structure-preserving generator (``igpart.generators.inflate``)."""

from __future__ import annotations

import os
from pathlib import Path

import igpart
from igpart.generators import inflate

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks"))
ISPD98 = DATA / "ispd98"


def source(name: str) -> Path:
    """The .hgr file of an ISPD98 or Titan23 circuit."""
    for sub in ("ispd98", "titan23"):
        if (DATA / sub / f"{name}.hgr").exists():
            return DATA / sub / f"{name}.hgr"
    raise SystemExit(f"no {name}.hgr under {DATA}/ispd98 or {DATA}/titan23")


def load(name: str, scale: int = 1, seed: int = 0) -> igpart.Hypergraph:
    """Circuit ``name`` enlarged ``scale`` times (``scale`` 1: the circuit itself)."""
    h = igpart.read_hgr(source(name))
    return inflate(h, int(scale), seed=seed) if int(scale) > 1 else h
