"""METIS in worker processes (``Config.initial_metis_processes``,
:mod:`igpart.parallel.metis_pool`): the same blocks as in-process METIS (single calls, the
initial partitioning of an ISPD98 coarsest level and of random hypergraphs, end-to-end partitions
at k = 2 and 16), config errors, errors raised in a worker, METIS's stdout warnings kept off the
caller's stdout (and the CLI's ``--json`` output), a worker killed mid-run (fallback, no hang,
the same result, reaped), and shutdown reaping every worker; the automatic default (-1,
``igpart.partitioner.context.metis_processes``) for CPU counts, input sizes, threads and k (CPU
count monkeypatched), no pool on small inputs, the resolved value reaching the METIS calls, and
the configured -1 in the result; calls that run in-process instead of waiting for the workers'
start-up; whole subtrees of recursive bisection in one worker."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import igpart
from igpart import Config, Graph
from igpart.errors import InputError
from igpart.metrics import block_weights, max_block_weight
from igpart.parallel import metis_pool as mp
from igpart.partitioner.driver import bisect
from igpart.partitioner.initial.metis import metis_partition
from igpart.partitioner.initial.pool import initial_partition

from .test_multilevel import check_partition
from .util import random_hypergraph

ISPD98 = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "ispd98"


@pytest.fixture
def fresh_pool(monkeypatch):
    """A process-wide pool started for the test and shut down after it. Calls that would run
    in-process while no worker has finished its imports (``wait_for_start=False``) wait for one
    here, so that they reach the workers whatever the machine's speed."""
    mp.shutdown()
    real = mp.MetisPool.any_started

    def waiting(self):
        deadline = time.monotonic() + 60
        while not real(self) and time.monotonic() < deadline:
            time.sleep(0.01)
        return True

    monkeypatch.setattr(mp.MetisPool, "any_started", waiting)
    yield
    mp.shutdown()


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # not our child any more: waited for already
    return False


def _chain(n: int, heavy: int) -> Graph:
    """A path of ``n`` vertices whose first vertex weighs ``heavy`` (METIS prints warnings)."""
    u = np.arange(n - 1)
    vw = np.ones(n, dtype=np.int64)
    vw[0] = heavy
    return Graph.from_edges(u, u + 1, None, n=n, vwgt=vw)


def test_single_calls_equal_in_process(fresh_pool):
    rng = np.random.default_rng(5)
    for trial in range(4):
        h = random_hypergraph(rng, 300, 500, weighted=bool(trial % 2))
        for k, seed in ((2, trial), (5, 7 * trial)):
            tp = None if trial < 2 else list(np.arange(1, k + 1) / (k * (k + 1) / 2))
            a = metis_partition(h, k, 0.03, seed, tpwgts=tp)
            b = metis_partition(h, k, 0.03, seed, tpwgts=tp, processes=2)
            assert b.dtype == np.int32 and np.array_equal(a, b)
    assert len(mp.get_pool(2).pids()) == 2


@pytest.mark.parametrize("method,k", [("metis", 8), ("rb+metis", 16), ("rb", 4)])
def test_initial_partition_equal_in_process(fresh_pool, method, k):
    rng = np.random.default_rng(k)
    h = random_hypergraph(rng, 400, 700, weighted=True)
    kw = dict(seed=3, method=method, runs=3, rb_runs=2, rb_seeds=3, threads=2, bisect=bisect)
    a = initial_partition(h, k, 0.05, "cut", **kw)
    b = initial_partition(h, k, 0.05, "cut", metis_processes=2, **kw)
    assert np.array_equal(a, b)


@pytest.mark.skipif(not (ISPD98 / "ibm01.hgr").exists(), reason="ISPD98 benchmarks not present")
def test_ispd98_coarsest_level_equal_in_process(fresh_pool, monkeypatch):
    """The driver's own initial_partition call on ibm01's coarsest level at k = 16 (rb with
    METIS seeds in every bisection, refinement callbacks): the same blocks, balanced."""
    import igpart.partitioner.initial.coarsest as ml

    h = igpart.read_hgr(ISPD98 / "ibm01.hgr")
    seen = {}
    real = ml.initial_partition

    def spy(*args, **kwargs):
        seen.setdefault("args", args)  # the first call: the k-way one (bisections come later)
        seen.setdefault("kwargs", kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(ml, "initial_partition", spy)
    cfg = {"initial": "rb+metis", "initial_rb_runs": 2, "initial_rb_seeds": 4, "threads": 2}
    igpart.partition(h, 16, backend="cpu", seed=1, config=cfg)
    args, kwargs = seen["args"], seen["kwargs"]
    a = real(*args, **{**kwargs, "metis_processes": 0})
    b = real(*args, **{**kwargs, "metis_processes": 2})
    assert np.array_equal(a, b)
    coarse = args[0]
    bound = max_block_weight(coarse.total_weight, 16, 0.03)
    assert b.min() >= 0 and b.max() < 16
    assert block_weights(coarse, b, 16).max() <= bound


@pytest.mark.parametrize("k", [2, 16])
def test_partition_equal_in_process(fresh_pool, k):
    rng = np.random.default_rng(11)
    h = random_hypergraph(rng, 3000, 5000, weighted=True)
    cfg = {"initial": "rb+metis", "initial_rb_runs": 2, "initial_rb_seeds": 3, "threads": 2}
    a = igpart.partition(h, k, backend="cpu", seed=2, config=cfg)
    b = igpart.partition(h, k, backend="cpu", seed=2, config={**cfg, "initial_metis_processes": 2})
    assert np.array_equal(a.parts, b.parts)
    check_partition(h, b, k, 0.03)
    assert b.config["initial_metis_processes"] == 2


@pytest.mark.parametrize("value", [-2, -10, 1.5, "2", None, True])
def test_bad_config_names_the_field(value):
    with pytest.raises(InputError, match="initial_metis_processes"):
        Config(initial_metis_processes=value).validate()
    with pytest.raises(InputError, match="initial_metis_processes"):
        igpart.partition(
            random_hypergraph(np.random.default_rng(0), 20, 30), 2,
            config={"initial_metis_processes": value},
        )  # fmt: skip


def test_worker_error_is_raised_like_in_process(fresh_pool):
    """An argument METIS rejects raises the same exception type from a worker, and the
    worker stays usable."""
    g = _chain(30, 1)
    bad = [0.5, 0.5, 0.5]  # three target weights for two blocks
    with pytest.raises(Exception) as here:
        metis_partition(g, 2, tpwgts=bad)
    with pytest.raises(type(here.value)):
        metis_partition(g, 2, tpwgts=bad, processes=1)
    pids = mp.get_pool(1).pids()
    assert np.array_equal(metis_partition(g, 2, processes=1), metis_partition(g, 2))
    assert mp.get_pool(1).pids() == pids


def test_metis_warnings_stay_off_stdout(tmp_path):
    """METIS prints "Cannot bisect a graph with 0 vertices" on fd 1; with workers it must reach
    stderr, not the caller's stdout (``--json`` output)."""
    script = tmp_path / "run.py"
    script.write_text(
        "import json, sys\n"
        "import numpy as np\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from tests.test_metis_pool import _chain\n"
        "from igpart.partitioner.initial.metis import metis_partition\n"
        "p = metis_partition(_chain(20, 1000), 8, processes=int(sys.argv[2]))\n"
        "print(json.dumps({'blocks': int(p.max()) + 1}))\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    for processes in (0, 1):
        out = subprocess.run(
            [sys.executable, str(script), root, str(processes)],
            capture_output=True, text=True, timeout=120, cwd=root,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == {"blocks": 1}  # stdout: the JSON line only
        assert "Cannot bisect" in out.stderr


def test_worker_interrupted_ends_without_a_traceback():
    """A Ctrl-C in a terminal reaches every process of the group: a worker ends at once with
    status 130 and prints nothing (the command reports the interrupt once)."""
    import signal

    from igpart.parallel import protocol

    root = str(Path(__file__).resolve().parents[1])
    proc = subprocess.Popen([sys.executable, "-m", "igpart.parallel.worker"], cwd=root,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        tag, pid = protocol.receive(proc.stdout)  # started: its imports are done
        assert (tag, pid) == ("ready", proc.pid)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
        err = proc.stderr.read().decode()
    finally:
        proc.kill()
        proc.wait()
    assert code == 130, err
    assert err == ""


def test_worker_killed_mid_run_falls_back(fresh_pool, monkeypatch, caplog):
    """Workers killed while a partition runs (before the 2nd and the 5th METIS call): the
    calls run in-process with a warning, replacements serve later calls, the result equals the
    in-process one, and the killed workers are reaped."""
    rng = np.random.default_rng(3)
    h = random_hypergraph(rng, 2000, 3500, weighted=True)
    cfg = {"initial": "rb+metis", "initial_rb_runs": 2, "initial_rb_seeds": 3, "threads": 2}
    a = igpart.partition(h, 16, backend="cpu", seed=4, config=cfg)

    real = mp._Worker.call
    calls = {"n": 0}
    killed = []

    def call(self, request):
        calls["n"] += 1
        if calls["n"] in (2, 5):
            self.proc.kill()
            self.proc.wait()
            killed.append(self.proc.pid)
        return real(self, request)

    monkeypatch.setattr(mp._Worker, "call", call)
    with caplog.at_level(logging.WARNING, logger="igpart"):
        b = igpart.partition(
            h, 16, backend="cpu", seed=4, config={**cfg, "initial_metis_processes": 2}
        )
    assert np.array_equal(a.parts, b.parts)
    check_partition(h, b, 16, 0.03)
    assert len(killed) == 2 and calls["n"] > 5
    assert sum("running this call in-process" in r.message for r in caplog.records) == 2
    assert all(_reaped(pid) for pid in killed)
    live = mp.get_pool(2).pids()
    assert len(live) <= 2 and not set(live) & set(killed)


def test_shutdown_reaps_workers(fresh_pool):
    g = _chain(40, 1)
    metis_partition(g, 2, processes=3)
    pool = mp.get_pool(3)
    pids = pool.pids()
    assert len(pids) == 3
    mp.shutdown()
    assert pool.pids() == [] and all(_reaped(pid) for pid in pids)
    # a shut-down pool runs calls in-process; a new pool starts on the next request
    assert np.array_equal(pool_result := metis_partition(g, 2, processes=2), metis_partition(g, 2))
    assert pool_result.dtype == np.int32 and len(mp.get_pool(2).pids()) == 2


def test_wait_started_waits_for_every_worker(fresh_pool):
    pool = mp.get_pool(2)
    assert pool.wait_started(timeout=60)
    workers = list(pool._workers)
    assert len(workers) == 2 and all(w.started() for w in workers)
    # a started worker serves a call without the caller waiting for its imports
    g = _chain(40, 1)
    assert np.array_equal(metis_partition(g, 2, processes=2), metis_partition(g, 2))


@pytest.mark.parametrize("k", [8, 64])
def test_workers_on_a_many_core_machine_equal_one_thread(fresh_pool, monkeypatch, k):
    """As on a 16-core machine: the driver sees 16 usable CPUs (its workers import at low
    priority), the caller's OpenMP threads default to 16 and the run asks for 2 or 16 threads;
    with 2 workers (bisections and whole subtrees in them) or none, the blocks are those of one
    thread in-process (the runs with workers sent them calls)."""
    from igpart.kernels import _cpu
    from igpart.partitioner import driver

    h = random_hypergraph(np.random.default_rng(11), 3000, 5000, weighted=True)
    one = igpart.partition(h, k, backend="cpu", seed=2,
                           config={"threads": 1, "initial_metis_processes": 0})
    monkeypatch.setattr(driver, "usable_cpus", lambda: 16)
    served = []
    real = mp.MetisPool.call

    def spy(self, request, *args, **kwargs):
        served.append(request.get("op", "metis"))
        return real(self, request, *args, **kwargs)

    monkeypatch.setattr(mp.MetisPool, "call", spy)
    before = _cpu.get_num_threads()
    _cpu.set_num_threads(16)
    try:
        for threads, processes in ((16, 0), (2, 2), (16, 2)):
            served.clear()
            p = igpart.partition(h, k, backend="cpu", seed=2,
                                 config={"threads": threads, "initial_metis_processes": processes})
            assert np.array_equal(p.parts, one.parts), (threads, processes)
            assert bool(served) == (processes > 0)
    finally:
        _cpu.set_num_threads(before)
    check_partition(h, one, k, 0.03)


def test_low_priority_workers_equal_in_process(fresh_pool):
    """Workers that import at the lowest priority (the driver's start ahead of a run) serve
    the same blocks; requests run at the worker's own priority."""
    h = random_hypergraph(np.random.default_rng(12), 300, 500, weighted=True)
    pool = mp.get_pool(2, low_priority=True)
    assert pool.size == 2
    here = metis_partition(h, 4, 0.03, 5)
    assert np.array_equal(metis_partition(h, 4, 0.03, 5, processes=2), here)
    pids = pool.pids()
    assert len(pids) == 2
    for pid in pids:  # the worker's main thread kept the process's priority
        assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0)


def test_shutdown_while_workers_start(fresh_pool, monkeypatch):
    """A pool shut down right after it was asked for (its background start under way): every
    worker it started is reaped, and a call on it raises WorkerGone (the caller's cue to run
    in-process) instead of waiting for a slot."""
    started = []
    real_init = mp._Worker.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        started.append(self.proc.pid)

    monkeypatch.setattr(mp._Worker, "__init__", init)
    pool = mp.get_pool(3, low_priority=True)
    mp.shutdown()
    assert pool.pids() == [] and all(_reaped(pid) for pid in started)
    with pytest.raises(mp.WorkerGone):
        pool.call({})


def test_seed_chunks_and_pool_growth(fresh_pool):
    """More seeds than workers (requests of several seeds), then a larger pool: the blocks of
    each seed are those of in-process METIS, in seed order."""
    from igpart.partitioner.initial.metis import metis_partitions

    h = random_hypergraph(np.random.default_rng(9), 250, 400, weighted=True)
    seeds = [3, 4, 5, 6, 7]
    here = [get() for get in metis_partitions(h, 4, 0.03, seeds)]
    for processes in (1, 2, 3):
        got = [get() for get in metis_partitions(h, 4, 0.03, seeds, processes=processes)]
        assert all(np.array_equal(a, b) for a, b in zip(here, got))
        assert len(mp.get_pool(processes).pids()) == processes
    assert len({a.tobytes() for a in here}) > 1  # the seeds matter


def test_cli_json_with_workers(ispd98, tmp_path):
    """``igpart partition --json`` with METIS workers: stdout is the JSON object only, and the
    partition file is the one of in-process METIS (on the C++ backend, as ``auto`` picks the GPU
    where one is usable, whose atomics make runs differ; ``deterministic`` so that no stage
    depends on the threads' timing whatever the backend's defaults)."""
    results = {}
    for processes in (0, 2):
        cfg = tmp_path / f"cfg{processes}.json"
        cfg.write_text(json.dumps({"initial_metis_processes": processes, "threads": 2,
                                   "deterministic": True}))
        out = tmp_path / f"ibm01.part.{processes}"
        r = subprocess.run(
            [sys.executable, "-m", "igpart", "partition", str(ispd98 / "ibm01.hgr"), "-k", "8",
             "--backend", "cpu", "--json", "--config", str(cfg), "-o", str(out)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        results[processes] = (json.loads(r.stdout)["cut"], out.read_bytes())
    assert results[0] == results[2]


@pytest.mark.parametrize("value", [-1, 0, 1, 8])
def test_config_values_accepted(value):
    assert Config(initial_metis_processes=value).validate().initial_metis_processes == value
    assert Config.from_dict({"initial_metis_processes": value}).initial_metis_processes == value


def test_default_is_automatic():
    assert Config().initial_metis_processes == -1


@pytest.mark.parametrize(
    "cpus,n,k,threads,expected",
    [
        (2, 10**6, 16, 2, 0),  # the CI / dev VM: too few CPUs
        (7, 10**6, 16, 4, 0),
        (8, 10**6, 16, 2, 7),  # min(15, cpus - 1)
        (16, 10**6, 16, 16, 15),
        (64, 10**6, 3, 16, 15),
        (64, 10**6, 2, 16, 0),  # k = 2: its METIS seeds run side by side in-process
        (16, 100_000, 64, 2, 15),  # n == initial_runs_min_n counts as large
        (16, 99_999, 64, 16, 0),  # small input
        (16, 10**6, 16, 1, 0),  # one thread
        (16, 10**6, 1, 16, 0),  # k = 1
    ],
)
def test_metis_processes_automatic(monkeypatch, cpus, n, k, threads, expected):
    import igpart.partitioner.context as ml

    monkeypatch.setattr(ml, "usable_cpus", lambda: cpus)
    cfg = Config(threads=threads)
    assert ml.metis_processes(cfg, n, k) == expected
    # an explicit thread count overrides the config's
    assert ml.metis_processes(Config(threads=1), n, k, threads=threads) == expected


def test_k2_starts_no_metis_workers(monkeypatch):
    """At k = 2 both backends run their one batch of METIS seeds in-process, side by side on
    the run's threads (the workers would start beside them); k >= 3 keeps the workers where
    the backend starts them (not the C++ backend: ``metis_workers``), an explicit value is
    kept."""
    import igpart.partitioner.context as ml
    from igpart.generators import random_circuit
    from igpart.kernels.cpu import CpuBackend

    monkeypatch.setattr(ml, "usable_cpus", lambda: 16)
    cfg = Config(threads=16)
    assert ml.metis_processes(cfg, 10**6, 2, backend="cpu") == 0
    assert ml.metis_processes(cfg, 10**6, 2, backend="gpu") == 0
    assert ml.metis_processes(cfg, 10**6, 2) == 0
    assert ml.metis_processes(cfg, 10**6, 3, backend="gpu") == 15
    assert ml.metis_processes(cfg, 10**6, 3, backend="cpu") == 15
    assert ml.metis_processes(cfg, 10**6, 3, workers=False) == 0  # the C++ backend's
    assert ml.metis_processes(Config(threads=16, initial_metis_processes=4), 10**6, 2,
                              backend="cpu") == 4
    h = random_circuit(300, seed=1)
    big = Config(threads=16, initial_runs_min_n=100)
    assert ml.resolve(big, CpuBackend(), h, 2).initial_metis_processes == 0
    assert ml.resolve(big, CpuBackend(), h, 4).initial_metis_processes == 0  # metis_workers
    assert ml.resolve(Config(threads=16, initial_metis_processes=3), CpuBackend(), h,
                      4).initial_metis_processes == 3


def test_gpu_small_inputs_get_metis_workers_from_k3(monkeypatch):
    """On the GPU backend small inputs get the workers from k = 3 on (their recursive
    bisection would otherwise run under the GIL); not at k = 2, not on the C++ backend, not on
    a machine of too few CPUs or one thread, and an explicit value is kept."""
    import igpart.partitioner.context as ml

    monkeypatch.setattr(ml, "usable_cpus", lambda: 16)
    cfg = Config(threads=16)
    assert ml.metis_processes(cfg, 12_000, 3, backend="gpu") == 15
    assert ml.metis_processes(cfg, 12_000, 64, backend="gpu") == 15
    assert ml.metis_processes(cfg, 12_000, 2, backend="gpu") == 0
    assert ml.metis_processes(cfg, 12_000, 64, backend="cpu") == 0
    assert ml.metis_processes(cfg, 12_000, 64) == 0
    assert ml.metis_processes(Config(threads=1), 12_000, 64, backend="gpu") == 0
    assert ml.metis_processes(Config(threads=16, initial_metis_processes=0), 12_000, 64,
                              backend="gpu") == 0
    assert ml.metis_processes(cfg, 12_000, 64, hypergraph=False, backend="gpu") == 0
    monkeypatch.setattr(ml, "usable_cpus", lambda: 4)
    assert ml.metis_processes(cfg, 12_000, 64, backend="gpu") == 0


def test_graphs_start_no_metis_workers(monkeypatch):
    """A graph's few METIS seeds run in-process: no pool to start beside its clustering (an
    explicit value is kept; a graph run as a hypergraph, with fixed vertices, gets workers
    where hypergraphs do: on the GPU backend, not on the C++ one)."""
    import igpart.partitioner.context as ml
    from igpart.generators import grid_graph
    from igpart.kernels.cpu import CpuBackend

    monkeypatch.setattr(ml, "usable_cpus", lambda: 16)
    g = grid_graph(400, 400)
    assert ml.metis_processes(Config(threads=16), g.n, 16, hypergraph=False) == 0
    assert ml.resolve(Config(threads=16), CpuBackend(), g, 16).initial_metis_processes == 0
    assert ml.resolve(Config(threads=16), CpuBackend(), g.to_hypergraph(),
                      16).initial_metis_processes == 0  # the C++ backend starts none
    monkeypatch.setattr(CpuBackend, "metis_workers", True)
    assert ml.resolve(Config(threads=16), CpuBackend(), g.to_hypergraph(),
                      16).initial_metis_processes == 15
    assert ml.resolve(Config(threads=16, initial_metis_processes=3), CpuBackend(), g,
                      16).initial_metis_processes == 3


def test_metis_processes_automatic_uses_the_run_threads(monkeypatch):
    """``threads = 0`` (the default): the C++ backend's OpenMP threads decide."""
    import igpart.partitioner.context as ml
    from igpart.kernels import omp_threads

    monkeypatch.setattr(ml, "usable_cpus", lambda: 16)
    with omp_threads(1):
        assert ml.metis_processes(Config(), 10**6, 8) == 0
    with omp_threads(2):
        assert ml.metis_processes(Config(), 10**6, 8) == 15


@pytest.mark.parametrize("value", [0, 3, 12])
def test_metis_processes_explicit_kept(monkeypatch, value):
    import igpart.partitioner.context as ml

    for cpus in (1, 2, 64):
        monkeypatch.setattr(ml, "usable_cpus", lambda cpus=cpus: cpus)
        for n, k, threads in ((10, 2, 1), (10**6, 64, 16), (10**6, 1, 16)):
            cfg = Config(initial_metis_processes=value, threads=threads)
            assert ml.metis_processes(cfg, n, k) == value


def test_usable_cpus(monkeypatch):
    import igpart.parallel.threads as ml

    assert ml.usable_cpus() >= 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert ml.usable_cpus() == 3
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 12)
    assert ml.usable_cpus() == 12
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert ml.usable_cpus() == 1


def test_default_config_small_input_starts_no_pool(fresh_pool, monkeypatch):
    """The default (-1) on a small input, even on a machine of many CPUs with threads: no
    worker pool is started, METIS runs in-process, and the result reports the configured -1."""
    import igpart.partitioner.context as ml

    monkeypatch.setattr(ml, "usable_cpus", lambda: 64)
    requested = []
    real = mp.get_pool
    monkeypatch.setattr(mp, "get_pool", lambda size, low_priority=False: requested.append(size)
                        or real(size, low_priority))
    h = random_hypergraph(np.random.default_rng(2), 2000, 3500, weighted=True)
    p = igpart.partition(h, 8, backend="cpu", seed=1, config={"threads": 2})
    check_partition(h, p, 8, 0.03)
    assert requested == [] and (mp._POOL is None or mp._POOL.pids() == [])
    assert p.config["initial_metis_processes"] == -1


def test_default_config_large_input_resolves_to_workers(fresh_pool, monkeypatch):
    """The default (-1) where the input counts as large (``initial_runs_min_n`` lowered) on a
    machine of 8 CPUs and a backend that starts workers (``metis_workers``, off on the C++
    backend by default: none are started then): the pool is started with 7 workers, the
    drivers and the METIS calls get 7, the blocks equal those of in-process METIS, and the
    result reports -1."""
    import igpart.partitioner.context as ml
    import igpart.partitioner.initial.pool as ini
    from igpart.kernels.cpu import CpuBackend

    monkeypatch.setattr(ml, "usable_cpus", lambda: 8)
    h0 = random_hypergraph(np.random.default_rng(4), 2000, 3500, weighted=True)
    assert ml.resolve(Config(threads=2, initial_runs_min_n=1000), CpuBackend(), h0,
                      8).initial_metis_processes == 0
    monkeypatch.setattr(CpuBackend, "metis_workers", True)
    requested = []
    real_pool = mp.get_pool
    monkeypatch.setattr(mp, "get_pool", lambda size, low_priority=False: requested.append(size)
                        or real_pool(size, low_priority))
    seen = []
    real_partitions = ini.metis_partitions

    def spy(*args, processes=0, **kwargs):
        seen.append(processes)
        return real_partitions(*args, processes=processes, **kwargs)

    monkeypatch.setattr(ini, "metis_partitions", spy)
    h = random_hypergraph(np.random.default_rng(4), 2000, 3500, weighted=True)
    cfg = {"initial": "rb+metis", "initial_rb_runs": 2, "initial_rb_seeds": 3, "threads": 2,
           "initial_runs_min_n": 1000}  # fmt: skip
    a = igpart.partition(h, 8, backend="cpu", seed=3, config={**cfg, "initial_metis_processes": 0})
    assert requested == [] and set(seen) == {0}
    seen.clear()
    b = igpart.partition(h, 8, backend="cpu", seed=3, config=cfg)
    assert requested and set(requested) == {7} and seen and set(seen) == {7}
    assert np.array_equal(a.parts, b.parts)
    check_partition(h, b, 8, 0.03)
    assert b.config["initial_metis_processes"] == -1


@pytest.mark.parametrize("objective,k", [("cut", 8), ("km1", 5)])
def test_bisections_in_workers_equal_in_process(fresh_pool, monkeypatch, objective, k):
    """``BISECT_IN_WORKERS`` of :mod:`igpart.partitioner.initial.recursive`: with worker processes
    and threads, every bisection of recursive bisection but the first runs in a worker (counted),
    and the blocks equal one thread's in-process bisections; a worker that cannot serve one leaves
    it to the caller, same blocks."""
    from igpart.partitioner.initial import recursive

    monkeypatch.setattr(recursive, "SUBTREES_IN_WORKERS", False)  # one request per bisection
    rng = np.random.default_rng(k)
    h = random_hypergraph(rng, 1500, 2500, weighted=True)
    cfg = Config(initial_metis_processes=2)
    here = recursive.recursive_bisection(h, k, 0.03, objective, seed=4, runs=3,
                                         config=Config(initial_metis_processes=0), bisect=bisect)
    served = []
    real = mp.MetisPool.bisect

    def spy(self, request, **kwargs):
        served.append(request["n"])
        return real(self, request, **kwargs)

    monkeypatch.setattr(mp.MetisPool, "bisect", spy)
    there = recursive.recursive_bisection(h, k, 0.03, objective, seed=4, runs=3, config=cfg,
                                          threads=3, bisect=bisect)
    assert len(served) == k - 2 and h.n not in served
    assert np.array_equal(here, there)
    served.clear()  # beside other candidates: every bisection in a worker, even on one thread
    beside = recursive.recursive_bisection(h, k, 0.03, objective, seed=4, runs=3, config=cfg,
                                           threads=1, concurrent=True, bisect=bisect)
    assert len(served) == k - 1 and served[0] == h.n
    assert np.array_equal(here, beside)
    served.clear()  # TOP_BISECTION_HERE: the first bisection back here, the same blocks
    monkeypatch.setattr(recursive, "TOP_BISECTION_HERE", True)
    top_here = recursive.recursive_bisection(h, k, 0.03, objective, seed=4, runs=3, config=cfg,
                                             threads=2, concurrent=True, bisect=bisect)
    assert len(served) == k - 2 and h.n not in served
    assert np.array_equal(here, top_here)
    monkeypatch.setattr(recursive, "TOP_BISECTION_HERE", False)

    def gone(self, request, *args, **kwargs):
        raise mp.WorkerGone("test")

    monkeypatch.setattr(mp.MetisPool, "bisect", gone)
    fallback = recursive.recursive_bisection(h, k, 0.03, objective, seed=4, runs=3, config=cfg,
                                             threads=3, bisect=bisect)
    assert np.array_equal(here, fallback)


@pytest.mark.parametrize("objective,k,communities", [("cut", 8, "once"), ("km1", 11, "each")])
def test_subtrees_in_workers_equal_in_process(fresh_pool, monkeypatch, objective, k,
                                              communities):
    """``SUBTREES_IN_WORKERS``: with worker processes, a task of at most k / workers blocks runs
    whole in one worker (one request for its bisections), with fixed vertices and inherited
    communities too; the blocks equal one thread's in-process bisections, and a worker that
    cannot serve a subtree leaves its bisections to the caller, same blocks."""
    from igpart.partitioner.initial import recursive

    rng = np.random.default_rng(k)
    h = random_hypergraph(rng, 1500, 2500, weighted=True)
    fixed = np.full(h.n, -1, dtype=np.int32)
    chosen = rng.choice(h.n, size=40, replace=False)
    fixed[chosen] = rng.integers(0, k, size=chosen.size)
    base = dict(initial_rb_communities=communities, initial_rb_min_seeds=2)
    kw = dict(seed=4, runs=3, fixed=fixed, bisect=bisect)
    here = recursive.recursive_bisection(
        h, k, 0.03, objective, config=Config(initial_metis_processes=0, **base), **kw)
    assert (here[chosen] == fixed[chosen]).all()
    cfg = Config(initial_metis_processes=2, **base)
    subtrees, bisections = [], []
    real_call, real_bisect = mp.MetisPool.call, mp.MetisPool.bisect

    def call(self, request, *args, **kwargs):
        if request.get("op") == "subtree":
            subtrees.append(request["ks"])
        return real_call(self, request, *args, **kwargs)

    def one(self, request, **kwargs):
        bisections.append(request["n"])
        return real_bisect(self, request, **kwargs)

    monkeypatch.setattr(mp.MetisPool, "call", call)
    monkeypatch.setattr(mp.MetisPool, "bisect", one)
    there = recursive.recursive_bisection(h, k, 0.03, objective, config=cfg, threads=3, **kw)
    assert np.array_equal(here, there)
    # every task of 2 to k // 2 blocks (2 workers) went whole to a worker; the larger ones but
    # the first (here) one request each
    whole, split = [], []

    def expect(ks):
        if 1 < ks <= k // 2:
            whole.append(ks)
        elif ks > 1:
            split.append(ks)
            expect((ks + 1) // 2)
            expect(ks // 2)

    expect(k)
    assert sorted(subtrees) == sorted(whole) and len(bisections) == len(split) - 1
    assert h.n not in bisections

    def gone(self, request, *args, **kwargs):
        if request.get("op") == "subtree":
            raise mp.WorkerGone("test")
        return real_call(self, request, *args, **kwargs)

    monkeypatch.setattr(mp.MetisPool, "call", gone)
    fallback = recursive.recursive_bisection(h, k, 0.03, objective, config=cfg, threads=3, **kw)
    assert np.array_equal(here, fallback)


def test_calls_run_here_until_a_worker_has_started(monkeypatch):
    """``wait_for_start=False`` (the bisections of recursive bisection and the METIS seeds of
    the initial partitioning): while no worker has finished its start-up, nothing is sent and
    the call runs in-process, same blocks; once one has, calls reach the workers."""
    from igpart.partitioner.initial import recursive

    mp.shutdown()
    h = random_hypergraph(np.random.default_rng(2), 1200, 2000, weighted=True)
    here = recursive.recursive_bisection(h, 8, 0.03, seed=1, runs=2, bisect=bisect,
                                         config=Config(initial_metis_processes=0))
    sent = []
    real_call = mp._Worker.call

    def call(self, request):
        sent.append(request.get("op", "metis"))
        return real_call(self, request)

    monkeypatch.setattr(mp._Worker, "call", call)
    monkeypatch.setattr(mp._Worker, "started", lambda self: False)
    try:
        cfg = Config(initial_metis_processes=2)
        with pytest.raises(mp.NotStarted):
            mp.get_pool(2).call({"op": "bisect"}, wait_for_start=False)
        slow = recursive.recursive_bisection(h, 8, 0.03, seed=1, runs=2, config=cfg, threads=3,
                                             bisect=bisect)
        assert sent == [] and np.array_equal(slow, here)
        monkeypatch.undo()
        monkeypatch.setattr(mp._Worker, "call", call)
        deadline = time.monotonic() + 60
        while not mp.get_pool(2).any_started() and time.monotonic() < deadline:
            time.sleep(0.01)
        fast = recursive.recursive_bisection(h, 8, 0.03, seed=1, runs=2, config=cfg, threads=3,
                                             bisect=bisect)
        assert sent and np.array_equal(fast, here)
    finally:
        mp.shutdown()
