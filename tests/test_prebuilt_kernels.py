"""Prebuilt GPU cubins: the build step's manifest, the loader's choice of a cubin, and (on a GPU)
that a module loaded from a cubin partitions as the run-time-compiled one does."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GPU_DIR = ROOT / "igpart" / "kernels" / "gpu"
COMMON_DIR = ROOT / "igpart" / "kernels" / "common"

spec = importlib.util.spec_from_file_location("_prebuild_under_test", GPU_DIR / "_prebuild.py")
pb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pb)


def _copy_sources(tmp: Path) -> tuple[Path, Path]:
    gpu, common = tmp / "gpu", tmp / "common"
    gpu.mkdir()
    for p in [*GPU_DIR.glob("*.cu"), *GPU_DIR.glob("*.cuh")]:
        shutil.copy(p, gpu / p.name)
    shutil.copytree(COMMON_DIR, common)
    return gpu, common


def _fake_manifest(current: dict, archs=(80, 90)) -> dict:
    return {"format": pb.FORMAT, "compiler": "nvcc 12.4.0", "cuda_version": 12040,
            "headers": dict(current["headers"]),
            "modules": {n: {"sha256": h, "cubins": {str(a): f"{n}.sm_{a}.cubin" for a in archs}}
                        for n, h in current["sources"].items()}}


def test_select_matches_capability_within_major_version():
    cur = pb.digests(GPU_DIR, COMMON_DIR)
    m = _fake_manifest(cur, archs=(80, 86, 90, 100))
    assert pb.select(m, "coarsen", 90, cur) == "coarsen.sm_90.cubin"
    assert pb.select(m, "coarsen", 89, cur) == "coarsen.sm_86.cubin"  # newest <= device
    assert pb.select(m, "coarsen", 80, cur) == "coarsen.sm_80.cubin"
    assert pb.select(m, "coarsen", 103, cur) == "coarsen.sm_100.cubin"
    assert pb.select(m, "coarsen", 75, cur) is None  # no sm_7x cubin
    assert pb.select(m, "coarsen", 120, cur) is None  # another major version
    assert pb.select(m, "nosuch", 90, cur) is None
    # a driver older than the compiler's CUDA major version cannot load the cubins
    assert pb.select(m, "coarsen", 90, cur, driver_version=11080) is None
    assert pb.select(m, "coarsen", 90, cur, driver_version=12020) == "coarsen.sm_90.cubin"


def test_select_rejects_stale_or_foreign_manifests(tmp_path):
    gpu, common = _copy_sources(tmp_path)
    cur = pb.digests(gpu, common)
    m = _fake_manifest(cur)
    assert pb.select(m, "refine", 90, cur) == "refine.sm_90.cubin"
    # an edited source: that module only is rejected
    with open(gpu / "refine.cu", "a") as f:
        f.write("\n// edited\n")
    edited = pb.digests(gpu, common)
    assert pb.select(m, "refine", 90, edited) is None
    assert pb.select(m, "coarsen", 90, edited) == "coarsen.sm_90.cubin"
    # an edited header: every module is rejected
    with open(common / "partition_common.h", "a") as f:
        f.write("\n// edited\n")
    edited = pb.digests(gpu, common)
    assert all(pb.select(m, n, 90, edited) is None for n in pb.SOURCES)
    # another manifest format, or none
    assert pb.select(dict(m, format=pb.FORMAT + 1), "coarsen", 90, cur) is None
    assert pb.select(None, "coarsen", 90, cur) is None


def test_prebuilt_files_honours_the_environment(tmp_path, monkeypatch):
    gpu, common = _copy_sources(tmp_path)
    cur = pb.digests(gpu, common)
    out = gpu / pb.PREBUILT
    out.mkdir()
    m = _fake_manifest(cur, archs=(90,))
    (out / pb.MANIFEST).write_text(json.dumps(m))
    for n in cur["sources"]:
        (out / f"{n}.sm_90.cubin").write_bytes(b"\x7fELF")
    monkeypatch.delenv("IGPART_GPU_PREBUILT", raising=False)
    found = pb.prebuilt_files(90, 12040, gpu, common)
    assert set(found) == set(pb.SOURCES)
    assert found["jet"] == out / "jet.sm_90.cubin"
    monkeypatch.setenv("IGPART_GPU_PREBUILT", "0")
    assert pb.prebuilt_files(90, 12040, gpu, common) == {}
    other = tmp_path / "elsewhere"
    shutil.copytree(out, other)
    (other / "util.sm_90.cubin").unlink()  # listed but missing: not used
    monkeypatch.setenv("IGPART_GPU_PREBUILT", str(other))
    found = pb.prebuilt_files(90, 12040, gpu, common)
    assert "util" not in found and found["scan"] == other / "scan.sm_90.cubin"
    monkeypatch.setenv("IGPART_GPU_PREBUILT", "1")
    (out / pb.MANIFEST).write_text("{not json")
    assert pb.prebuilt_files(90, 12040, gpu, common) == {}


def test_requested_archs(monkeypatch):
    monkeypatch.delenv("IGPART_CUDA_ARCHS", raising=False)
    assert pb.requested_archs() == list(pb.DEFAULT_ARCHS)
    monkeypatch.setenv("IGPART_CUDA_ARCHS", "sm_90, 80 90")
    assert pb.requested_archs() == [80, 90]
    monkeypatch.setenv("IGPART_CUDA_ARCHS", "80 hopper")
    with pytest.raises(ValueError, match="hopper"):
        pb.requested_archs()


def test_build_without_compiler_builds_nothing(tmp_path):
    assert pb.build(tmp_path / "out", compiler="none") is None
    assert not (tmp_path / "out" / pb.MANIFEST).exists()


def _elf_arch(path: Path) -> int:
    """The SM architecture in a cubin's ELF header (e_flags; its layout by ABI version)."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and int.from_bytes(data[18:20], "little") == 190  # EM_CUDA
    flags = int.from_bytes(data[48:52], "little")
    return (flags >> 8) & 0xFF if data[8] >= 8 else flags & 0xFF


@pytest.mark.skipif(pb._nvcc() is None, reason="nvcc not found")
def test_nvcc_build_writes_matching_manifest_and_reuses_it(tmp_path):
    gpu, common = _copy_sources(tmp_path)
    out = tmp_path / "out"
    problems = []
    m = pb.build(out, archs=[90], compiler="nvcc", jobs=2, gpu_dir=gpu, common_dir=common,
                 report=problems.append)
    assert m is not None, problems
    assert json.loads((out / pb.MANIFEST).read_text()) == m
    cur = pb.digests(gpu, common)
    assert m["headers"] == cur["headers"] and m["compiler"].startswith("nvcc")
    assert set(m["modules"]) == set(pb.SOURCES)
    for n, entry in m["modules"].items():
        assert entry["sha256"] == cur["sources"][n]
        assert _elf_arch(out / entry["cubins"]["90"]) == 90
        assert pb.select(m, n, 90, cur) == f"{n}.sm_90.cubin"
    # a second build recompiles only the edited module
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("*.cubin")}
    with open(gpu / "metrics.cu", "a") as f:
        f.write("\n// edited\n")
    m2 = pb.build(out, archs=[90], compiler="nvcc", jobs=2, gpu_dir=gpu, common_dir=common,
                  report=problems.append)
    after = {p.name: p.stat().st_mtime_ns for p in out.glob("*.cubin")}
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {"metrics.sm_90.cubin"}
    assert m2["modules"]["metrics"]["sha256"] == pb.digests(gpu, common)["sources"]["metrics"]


@pytest.mark.gpu
def test_prebuilt_modules_partition_as_compiled_ones(tmp_path):
    import cupy

    cc = int(cupy.cuda.Device().compute_capability)
    out = tmp_path / "cubins"
    problems = []
    assert pb.build(out, archs=[cc], report=problems.append) is not None, problems
    code = (
        "import json, numpy as np, igpart\n"
        "from igpart.generators import random_circuit\n"
        "from igpart.kernels.gpu import _loader\n"
        "p = igpart.partition(random_circuit(3000, seed=3), 4, backend='gpu', seed=1)\n"
        "print(json.dumps({'balanced': bool(p.balanced), 'n': len(p.parts),"
        " 'ids': sorted(set(np.asarray(p.parts).tolist())),"
        " 'cubins': _loader.prebuilt_modules()}))\n")
    rows = {}
    for setting in (str(out), "0"):
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
        env = dict(os.environ, IGPART_GPU_PREBUILT=setting, PYTHONPATH=path)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        rows[setting] = json.loads(r.stdout.strip().splitlines()[-1])
    from igpart.kernels.gpu._loader import PARTITION_SOURCES

    assert set(PARTITION_SOURCES) <= set(rows[str(out)]["cubins"])
    assert rows["0"]["cubins"] == []
    # the GPU's clustering joins by atomics, so two processes need not give the same parts:
    # both must be complete, balanced partitions into the 4 blocks
    for row in rows.values():
        assert row["balanced"] and row["n"] == 3000 and row["ids"] == [0, 1, 2, 3]
