"""The warm-up of CuPy's kernel cache: the loader's warm-up lists are well-formed array code that
covers CuPy's size classes, the install hook changes nothing without a device and honours its
skip variable, the command fails clearly without a GPU, and (on a GPU) after the warm-up a
partition compiles no CuPy kernel."""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from igpart import warmup
from igpart.kernels import gpu_status

ROOT = Path(__file__).resolve().parents[1]
GPU_DIR = ROOT / "igpart" / "kernels" / "gpu"

spec = importlib.util.spec_from_file_location("_prebuild_for_warmup", GPU_DIR / "_prebuild.py")
pb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pb)


def _numpy_loader():
    """``_loader.py`` with numpy standing in for CuPy (the warm-up calls are plain array code;
    numpy runs the same calls), so that its lists can be checked without a GPU."""
    fake = types.ModuleType("cupy")
    fake.__getattr__ = lambda name: getattr(np, name)
    fake.__version__ = "numpy-stand-in"
    fake.cuda = types.SimpleNamespace(
        Device=lambda *a: contextlib.nullcontext(types.SimpleNamespace(id=0)),
        get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None))
    fake.RawModule = object
    saved = sys.modules.get("cupy")
    sys.modules["cupy"] = fake
    try:
        s = importlib.util.spec_from_file_location("_loader_on_numpy", GPU_DIR / "_loader.py")
        mod = importlib.util.module_from_spec(s)
        s.loader.exec_module(mod)
    finally:
        if saved is None:
            del sys.modules["cupy"]
        else:
            sys.modules["cupy"] = saved
    return mod


def test_warmup_calls_are_valid_array_code_at_every_size():
    loader = _numpy_loader()
    assert len(loader._CUPY_WARMUPS) > 60 and len(loader._CUPY_SIZED) > 20
    for table, sizes in ((loader._CUPY_WARMUPS, (4,)), (loader._CUPY_SIZED, loader.SIZES_FULL)):
        for i, op in enumerate(table):
            for n in sizes:
                a = np.arange(n, dtype=np.int32)
                b = np.arange(n, dtype=np.int64)
                m = b % 2 == 0
                try:
                    op(a, b, m)
                except Exception as exc:  # pragma: no cover - the message names the call
                    pytest.fail(f"warm-up call {i} at size {n} raised {exc!r}")


def test_warmup_tasks_are_well_formed_and_cover_cupys_size_classes():
    loader = _numpy_loader()
    for sizes in ((4, 300_000), loader.SIZES_FULL):
        tasks = loader.warmup_tasks(sizes)
        assert len(tasks) == len(set(tasks)) == (len(loader._CUPY_WARMUPS)
                                                 + len(loader._CUPY_SIZED) * len(sizes))
        for t in tasks:
            kind, i, n = t.split(":")
            assert kind in loader._WARMUP_TABLES and 0 <= int(i) < len(loader._WARMUP_TABLES[kind])
            assert int(n) in sizes or (kind == "w" and n == "4")

    def cub_block(n):  # CuPy's CUB block reduction: 4 values a thread, 32..512 threads
        b = 1 << max(0, (-(-n // 4) - 1).bit_length())
        return min(max(b, 32), 512)

    full = loader.SIZES_FULL
    # every block size of the CUB reductions, CuPy 14.2's simple kernel (< 128 values), and
    # the three scan paths of stream compaction (one block, blocked, two levels)
    assert {cub_block(n) for n in full} == {32, 64, 128, 256, 512}
    assert min(full) < 128 and 128 in full
    assert min(full) <= 512 and any(512 < n <= 512 * 512 for n in full)
    assert max(full) > 512 * 512


def test_run_tasks_runs_every_task(monkeypatch):
    loader = _numpy_loader()
    seen = []
    monkeypatch.setattr(loader, "_warm", lambda op, dev, n=4: seen.append((op, n)))
    monkeypatch.setattr(loader, "_compile_now", lambda mod, name: seen.append(name))
    monkeypatch.setattr(loader, "_new_module", lambda name: None)
    loader.run_tasks(["m:coarsen", "w:0:4", "s:1:128"], 0)
    assert seen == ["coarsen", (loader._CUPY_WARMUPS[0], 4), (loader._CUPY_SIZED[1], 128)]


def test_install_hook_honours_the_skip_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("IGPART_SKIP_WARMUP", "1")

    def no_child(*a, **k):
        raise AssertionError("the skipped warm-up started a process")

    monkeypatch.setattr(pb.subprocess, "run", no_child)
    lines = []
    assert pb.warm_cupy_cache(ROOT, report=lines.append) is None
    assert lines and "IGPART_SKIP_WARMUP" in lines[0]


@pytest.mark.skipif(gpu_status()[0], reason="checks the install on a machine without a GPU")
def test_install_hook_is_a_no_op_without_a_device(monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    monkeypatch.setenv("CUPY_CACHE_DIR", str(cache))
    monkeypatch.delenv("IGPART_SKIP_WARMUP", raising=False)
    lines = []
    assert pb.warm_cupy_cache(ROOT, report=lines.append) is None
    assert lines == [] and not cache.exists()


@pytest.mark.skipif(gpu_status()[0], reason="checks the command on a machine without a GPU")
def test_warmup_command_without_a_gpu_fails_clearly(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), CUPY_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "igpart", "warmup"], capture_output=True,
                       text=True, env=env, cwd=tmp_path)
    assert r.returncode == 2
    assert "no GPU" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "cache").exists()


def test_warmup_command_rejects_bad_arguments(capsys):
    from igpart.cli import main

    assert main(["warmup", "--processes", "-1"]) == 2
    assert "--processes" in capsys.readouterr().err


def test_kernel_names_reads_cupy_kernel_names(tmp_path):
    (tmp_path / "a.cubin").write_bytes(b"\x7fELF..cupy_less__int32_int_bool\x00..")
    (tmp_path / "b.cubin").write_bytes(b"\x7fELF..no name here..")
    (tmp_path / "c.cu").write_text("not a kernel")
    files = warmup.kernel_files(tmp_path)
    assert {p.name for p in files} == {"a.cubin", "b.cubin"}
    assert warmup.kernel_names(files) == ["b.cubin", "cupy_less__int32_int_bool"]


_PARTITION_CHILD = """
import json, sys
import igpart
from igpart.generators import grid_graph, random_circuit
from igpart.warmup import kernel_files, kernel_names
from igpart.kernels.gpu import _loader
cache = _loader.cache_dir()
before = kernel_files(cache)
h = random_circuit(3000, seed=7)
for k, obj in ((4, "cut"), (8, "km1")):
    igpart.partition(h, k, objective=obj, backend="gpu", seed=1)
igpart.partition(grid_graph(60, 60), 4, backend="gpu", seed=1,
                 config={"graph_host_levels_below": 0})
print(json.dumps(kernel_names(kernel_files(cache) - before)))
"""


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_status()[0], reason="needs a CUDA device")
def test_after_the_warmup_a_partition_compiles_no_cupy_kernel(tmp_path):
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = tmp_path / "warmup.json"
    r = subprocess.run([sys.executable, "-m", "igpart", "warmup", "--sample-vertices", "20000",
                        "--json", str(out)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["cache_dir"] == str(tmp_path / "cache") and report["compiled"] > 0
    assert not report["samples"]["errors"]
    count = len(warmup.kernel_files(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", _PARTITION_CHILD], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    compiled = json.loads(r.stdout.strip().splitlines()[-1])
    assert compiled == [], f"the partitions compiled CuPy kernels the warm-up missed: {compiled}"
    assert len(warmup.kernel_files(tmp_path / "cache")) == count


class _SpecialFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a stand-in ``cupyx.scipy.special``, recording the import."""

    def __init__(self, calls):
        self.calls = calls

    def find_spec(self, name, path=None, target=None):
        if name == "cupyx.scipy.special":
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        self.calls.append(("special",))


def _fake_gpu(monkeypatch, calls, stop_after=None, stop_at_context=False):
    """A CuPy, cupyx and a kernel loader that record what the background preparation asks of
    them (the driver's context through ctypes finds no driver here, or a stand-in one)."""
    import igpart.kernels as kernels
    from igpart.kernels.gpu import prepare

    def context(ptr):
        calls.append(("context", ptr))
        if stop_at_context:
            prep.stop()

    cupy = types.ModuleType("cupy")
    cupy.uint8 = np.uint8
    cupy.empty = lambda n, dtype=None: calls.append(("alloc", n))
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(free=context),
                                      Device=lambda *a: types.SimpleNamespace(id=0))
    for name in ("cupyx", "cupyx.scipy"):
        package = types.ModuleType(name)
        package.__path__ = []
        monkeypatch.setitem(sys.modules, name, package)
    # absent while the test runs, as it was before it afterwards
    monkeypatch.setitem(sys.modules, "cupyx.scipy.special", types.ModuleType("placeholder"))
    monkeypatch.delitem(sys.modules, "cupyx.scipy.special")
    monkeypatch.setattr(sys, "meta_path", [_SpecialFinder(calls), *sys.meta_path])
    loader = types.ModuleType("igpart.kernels.gpu._loader")
    loader.PARTITION_SOURCES = ("coarsen", "refine")
    loader.first_use_tasks = lambda: ["w:0:4", "w:1:4", "w:2:4"]
    loader.primer_tasks = lambda: ["s:17:300000", "s:35:300000"]
    loader.compile_modules = lambda names: calls.append(("modules", tuple(names)))
    loader.find_prebuilt = lambda device: calls.append(("cubins", device))

    def run_tasks(tasks, device):
        calls.append(("tasks", tuple(tasks), device))
        if stop_after is not None and len(calls) >= stop_after:
            prep.stop()

    loader.run_tasks = run_tasks
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "igpart.kernels.gpu._loader", loader)
    monkeypatch.setattr(kernels, "gpu_status", lambda: (True, "1 CUDA device(s)"))
    prep = prepare.Preparation()
    return prep


def _in_order(calls):
    """The preparation's calls in its own thread's order, once it has ended: the import of
    cupyx.scipy.special runs in a thread of its own (any time after CuPy's import), exactly
    once, and has ended too."""
    assert calls.count(("special",)) == 1
    return [c for c in calls if c != ("special",)]


def test_background_preparation_readies_context_modules_and_kernels(monkeypatch):
    calls = []
    prep = _fake_gpu(monkeypatch, calls)
    assert prep.start().join(10)
    assert prep.error is None and prep.seconds is not None
    # the primers first (the partition's first upload meets them), then the modules
    assert _in_order(calls) == [("context", 0), ("alloc", 1 << 20), ("cubins", 0),
                                ("tasks", ("s:17:300000", "s:35:300000"), 0),
                                ("modules", ("coarsen", "refine")), ("tasks", ("w:0:4",), 0),
                                ("tasks", ("w:1:4",), 0), ("tasks", ("w:2:4",), 0)]


def test_background_preparation_stops_between_kernels(monkeypatch):
    calls = []
    prep = _fake_gpu(monkeypatch, calls, stop_after=6)
    assert prep.start().join(10)
    assert [c[0] for c in _in_order(calls)] == ["context", "alloc", "cubins", "tasks", "modules",
                                                  "tasks"]


def test_background_preparation_stopped_before_it_starts(monkeypatch):
    """The command line reads small inputs before CuPy has imported: stopped at once, the
    preparation still makes the context and the critical path's calls, not the modules or the
    first-use kernels."""
    calls = []
    prep = _fake_gpu(monkeypatch, calls)
    prep.stop()
    assert prep.start().join(10)
    assert _in_order(calls) == [("context", 0), ("alloc", 1 << 20), ("cubins", 0),
                                ("tasks", ("s:17:300000", "s:35:300000"), 0)]


def test_background_preparation_stopped_early_still_primes_the_critical_path(monkeypatch):
    """Stopped once the context is made: no modules or first-use kernels (the partition loads
    them), but cupyx.scipy.special and the primer calls, which the partition would otherwise
    make on its critical path."""
    calls = []
    prep = _fake_gpu(monkeypatch, calls, stop_at_context=True)
    assert prep.start().join(10)
    assert _in_order(calls) == [("context", 0), ("alloc", 1 << 20), ("cubins", 0),
                                ("tasks", ("s:17:300000", "s:35:300000"), 0)]


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_status()[0], reason="needs a CUDA device")
def test_primer_tasks_only_on_a_warmed_cache_and_each_primer_runs(monkeypatch, tmp_path):
    import cupy

    from igpart.kernels.gpu import _loader

    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path))
    assert _loader.primer_tasks() == []  # cold: the partition compiles them, once
    (tmp_path / "igpart-warmup-0123456789abcdef01234567.ok").write_text("")
    tasks = _loader.primer_tasks()
    # one per primer, each a sized call the installed warm-up compiles
    assert len(tasks) == len(_loader._CUPY_PRIMERS)
    assert set(tasks) <= set(_loader.warmup_tasks())
    n = 1000
    a, b = cupy.arange(n, dtype=cupy.int32)[::-1].copy(), cupy.arange(n, dtype=cupy.int64)
    m = b % 2 == 0
    outs = {op.__name__: op(a, b, m) for op in _loader._CUPY_PRIMERS}  # none raises here
    assert int(outs["_primer_scan"][-1]) == n * (n - 1) // 2
    assert int(outs["_primer_bincount"].sum()) == n
    assert (outs["_primer_argsort"] == cupy.arange(n)).all()


class _FakeDriver:
    """libcuda's three entry points the preparation calls, recording them."""

    def __init__(self, fail=None):
        self.calls, self.fail = [], fail

    def __getattr__(self, name):
        def call(*args):
            self.calls.append(name)
            return 100 if name == self.fail else 0
        return call


@pytest.mark.parametrize("fail", [None, "cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain"])
def test_driver_context_through_ctypes(monkeypatch, fail):
    from igpart.kernels.gpu import prepare

    order = ["cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain"]
    lib = _FakeDriver(fail)
    monkeypatch.setattr(prepare.ctypes, "CDLL", lambda name: lib)
    assert prepare.driver_context() is (fail is None)
    # it stops at the first failing call
    assert lib.calls == order[:order.index(fail) + 1 if fail else 3]


def test_driver_context_without_a_driver_library(monkeypatch):
    from igpart.kernels.gpu import prepare

    def missing(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(prepare.ctypes, "CDLL", missing)
    assert prepare.driver_context() is False


def test_background_preparation_without_a_gpu_ends_at_once(monkeypatch):
    import igpart.kernels as kernels
    from igpart.kernels.gpu import prepare

    monkeypatch.setattr(kernels, "gpu_status", lambda: (False, "no device"))
    prep = prepare.start()
    assert prep.join(10) and prep.error is None


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_status()[0], reason="needs a CUDA device")
@pytest.mark.parametrize("prepare", ["1", "0"])
def test_partition_command_with_and_without_the_background_preparation(tmp_path, prepare):
    from igpart.generators import random_circuit
    from igpart.io import read_partition, write_hgr
    from igpart.metrics import evaluate

    h = random_circuit(3000, seed=2)
    f, out = tmp_path / "c.hgr", tmp_path / "c.part"
    write_hgr(h, f)
    env = dict(os.environ, IGPART_GPU_PREPARE=prepare,
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "igpart", "partition", str(f), "-k", "4",
                        "--backend", "gpu", "-o", str(out)], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    parts = read_partition(out, n=h.n, k=4)
    assert evaluate(h, parts, 4, 0.03)["balanced"]


def test_warmup_reports_what_each_phase_compiled(monkeypatch, tmp_path):
    """The command's flow on a stand-in device: the list's kernels, then the samples' (a failing
    sample is reported and the others still run), all counted from the cache directory."""
    import igpart.kernels as kernels

    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "old.cubin").write_bytes(b"cupy_old_kernel")
    cupy = types.ModuleType("cupy")
    cupy.__version__ = "14.0.1"
    cupy.cuda = types.SimpleNamespace(
        Device=lambda *a: types.SimpleNamespace(id=0, compute_capability="90"))
    loader = types.ModuleType("igpart.kernels.gpu._loader")
    loader.SIZES_FULL = (4, 300_000)
    loader.cache_dir = lambda: cache
    loader._usable_cpus = lambda: 3
    loader.prebuilt_modules = lambda: ["coarsen", "refine"]
    seen = {}

    def fill_cache(processes, sizes):
        seen["fill"] = (processes, sizes)
        (cache / "l1.cubin").write_bytes(b"..cupy_less__int32_int_bool..")
        (cache / "l2.cubin").write_bytes(b"..cupy_cub_any_pass1..")
        return []

    loader.fill_cache = fill_cache

    def sample_ok():
        (cache / "s1.cubin").write_bytes(b"..cupy_maximum__int32_int_int32..")

    def sample_bad():
        raise RuntimeError("out of memory")

    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "igpart.kernels.gpu._loader", loader)
    monkeypatch.setattr(kernels, "gpu_status", lambda: (True, "1 CUDA device(s)"))
    monkeypatch.setattr(warmup, "_samples", lambda n: [("a", sample_ok), ("b", sample_bad),
                                                        ("c", lambda: None)])
    monkeypatch.delenv("IGPART_GPU_COMPILE_PROCESSES", raising=False)
    lines = []
    r = warmup.warmup(samples=True, n=5000, report=lines.append)
    assert seen["fill"] == (2, (4, 300_000))  # usable CPUs less one
    assert r["cache_dir"] == str(cache) and r["compiled"] == 3
    assert r["list"]["compiled"] == ["cupy_cub_any_pass1", "cupy_less__int32_int_bool"]
    assert r["samples"]["compiled"] == ["cupy_maximum__int32_int_int32"]
    assert r["samples"]["errors"] == ["b: RuntimeError: out of memory"]
    text = "\n".join(lines)
    assert str(cache) in text and "cupy_maximum__int32_int_int32" in text
    assert "sample b failed" in text and "sample c" in text
    assert lines[-1].startswith("3 kernels compiled into")
    assert not list(cache.glob("igpart-warmup-*.ok"))  # a sample failed: not marked complete
    monkeypatch.setattr(warmup, "_samples", lambda n: [("a", sample_ok)])
    assert not warmup.warmup(n=5000, report=lines.append)["skipped"]
    assert len(list(cache.glob("igpart-warmup-*.ok"))) == 1
    seen.clear()
    assert warmup.warmup(n=5000, report=lines.append)["skipped"] and not seen
    assert "nothing to do" in lines[-1]
    assert not warmup.warmup(n=5000, report=lines.append, force=True)["skipped"] and seen
    assert not warmup.warmup(n=6000, report=lines.append)["skipped"]  # other samples


def test_first_use_tasks_are_the_leading_part_of_the_full_list():
    loader = _numpy_loader()
    first = loader.first_use_tasks()
    full = loader.warmup_tasks(loader.SIZES_FULL)
    assert first and set(first) < set(full)
    assert loader._CUPY_WARMUPS[:len(loader._CUPY_FIRST_USE)] == loader._CUPY_FIRST_USE
    assert all(t.startswith("w:") and int(t.split(":")[1]) < len(loader._CUPY_FIRST_USE)
               for t in first)
