"""The benchmark suite's persistent run process (benchmarks/run_server.py) and the placement of
runs on cluster workers (benchmarks/suite_cluster.py): the same partitions as fresh processes,
failures confined to their run."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import igpart
from igpart import generators

from .conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import run_server  # noqa: E402
import suite  # noqa: E402
import verify_partition as checker  # noqa: E402


@pytest.fixture()
def inputs(tmp_path):
    paths = []
    for i, n in enumerate((1500, 900)):
        path = tmp_path / f"in{i}.hgr"
        igpart.write_hgr(generators.random_circuit(n, seed=10 + i), path)
        paths.append(path)
    return paths


def _runs(runner, cases, timeout=None):
    out = []
    for path, k in cases:
        case = suite.Case(path.stem, "small", str(path))
        if timeout is not None:
            runner.args.timeout = timeout
        r = runner.run(suite.Tool("igpart", 1, "cpu"), case, k, 0, "inproc",
                       checker.read_input(str(path)))
        parts = runner.parts_dir / f"{path.stem}.k{k}.s0.igpart-cpu@1.inproc{runner.tag}.part"
        out.append((r, parts.read_text() if r.error is None else None))
    return out


def test_persistent_runs_equal_fresh_ones(inputs, tmp_path):
    """One persistent process runs several inputs and k's, inputs again (from its cache), with
    a warm-up call once per input: the partitions are those of the same call on a freshly
    read input (what a fresh process per run computes)."""
    args = suite.parse_args(["--warmup", "on", "--keep-parts", "--threads", "1"])
    cases = [(inputs[0], 2), (inputs[1], 3), (inputs[0], 3), (inputs[1], 3)]
    kept = suite.Runner(args, tmp_path / "kept", isolate="worker", max_threads=1)
    try:
        runs = _runs(kept, cases)
    finally:
        kept.close()
    for (path, k), (r, parts) in zip(cases, runs):
        p = igpart.partition(igpart.read(path), k, args.epsilon, args.objective, backend="cpu",
                             seed=0)
        assert np.array_equal(np.array(parts.split(), dtype=np.int32), p.parts)
        assert r.valid and r.isolate == "worker" and r.cut == p.cut
    assert [r.cached_input for r, _ in runs] == [False, False, True, True]
    assert [r.warmup_seconds is not None for r, _ in runs] == [True, True, False, False]
    assert runs[0][0].start_seconds > 0 and all(r.start_seconds == 0 for r, _ in runs[1:])
    assert kept.server.starts == 1
    rows = {w["worker"]: w for w in suite.worker_summary([suite.asdict(r) for r, _ in runs])}
    assert (rows["serial"]["starts"], rows["serial"]["reads"], rows["serial"]["warmups"]) \
        == (1, 2, 2)


def test_warmup_once_per_worker(inputs, tmp_path):
    """``--warmup-per worker``: one warm-up call for the process, on its first input; the other
    inputs' runs start from the read and compute the partitions of a freshly read input. The
    checker's reading may come as a function called once the run has ended."""
    args = suite.parse_args(["--warmup", "on", "--keep-parts", "--threads", "1"])
    args.warmup_per = "worker"
    cases = [(inputs[0], 2), (inputs[1], 3), (inputs[1], 2), (inputs[0], 3)]
    runner = suite.Runner(args, tmp_path / "once", isolate="worker", max_threads=1)
    calls = []
    try:
        runs = []
        for path, k in cases:
            def reading(path=path):
                calls.append(path)
                return checker.read_input(str(path))

            runs.append(runner.run(suite.Tool("igpart", 1, "cpu"),
                                   suite.Case(path.stem, "small", str(path)), k, 0, "inproc",
                                   reading))
    finally:
        runner.close()
    assert calls == [p for p, _ in cases]
    assert [r.warmup_seconds is not None for r in runs] == [True, False, False, False]
    for (path, k), r in zip(cases, runs):
        p = igpart.partition(igpart.read(path), k, args.epsilon, args.objective, backend="cpu",
                             seed=0)
        assert r.valid and r.cut == p.cut and r.km1 == p.km1
    with pytest.raises(suite.SuiteError, match="--warmup-per worker needs --isolate worker"):
        suite.parse_args(["--warmup-per", "worker"])


def test_a_failed_run_does_not_end_the_batch(inputs, tmp_path):
    """A run that raises, one that times out (its process killed) and a process killed
    between runs: each is that run's error or a restart, and the next runs succeed."""
    args = suite.parse_args(["--keep-parts", "--threads", "1"])
    runner = suite.Runner(args, tmp_path / "w", isolate="worker", max_threads=1)
    try:
        (ok, parts), = _runs(runner, [(inputs[0], 2)])
        (err, _), = _runs(runner, [(inputs[1], 2000)])  # k above the vertices: igpart raises
        assert ok.valid and err.error and "exit status 1" in err.error
        assert "k = 2000 exceeds the number of vertices" in err.error
        assert _runs(runner, [(inputs[0], 2)])[0][1] == parts and runner.server.starts == 1
        (late, _), = _runs(runner, [(inputs[1], 2)], timeout=0.001)
        assert late.error and "timed out" in late.error and runner.server.proc is None
        (again, again_parts), = _runs(runner, [(inputs[0], 2)], timeout=300)
        assert again_parts == parts and runner.server.starts == 2 and again.start_seconds > 0
        runner.server.proc.kill()
        runner.server.proc.wait()
        (third, third_parts), = _runs(runner, [(inputs[0], 2)])
        assert third_parts == parts and runner.server.starts == 3
    finally:
        runner.close()


def test_input_cache_keeps_the_newest_within_its_bytes(tmp_path):
    reads = []

    def read(path):
        reads.append(path)
        return np.zeros(int(open(path).read()), dtype=np.uint8)

    files = []
    for i, size in enumerate((40, 50, 200)):
        files.append(tmp_path / f"f{i}")
        files[-1].write_text(str(size))
    cache = run_server.InputCache(100, read, lambda a: a.nbytes)
    assert [cache.get(str(f))[1] for f in (files[0], files[1], files[0])] == [False, False, True]
    cache.get(str(files[2]))  # 200 bytes: the others go, the newest stays
    assert cache.get(str(files[2]))[1] and not cache.get(str(files[0]))[1]
    files[0].write_text("30")  # rewritten: read again
    assert cache.get(str(files[0]))[0].size == 30


def test_place_keeps_inputs_on_workers_and_balances():
    import suite_cluster as sc

    # input a: 3 runs of cost 4, input b: 3 runs of cost 4, set-up 4 each: two workers
    costs, inputs = [4.0] * 6, ["a", "a", "a", "b", "b", "b"]
    placed = sc.place(costs, inputs, [4.0] * 6, ["w0", "w1"])
    assert {placed[i] for i in range(3)} != {placed[i] for i in range(3, 6)}
    assert len(set(placed[:3])) == 1 and len(set(placed[3:])) == 1
    # no set-up cost: the runs of one input spread, the best balance (8 and 7)
    costs = [5.0, 4.0, 3.0, 3.0]
    placed = sc.place(costs, ["a"] * 4, [0.0] * 4, ["w0", "w1"])
    assert sorted(sum(c for c, w in zip(costs, placed) if w == x) for x in ("w0", "w1")) \
        == [7.0, 8.0]
    # a set-up twice a run: a's three runs stay together (20 and 12, not 16 and 24)
    placed = sc.place([4.0] * 4, ["a", "a", "a", "b"], [8.0] * 4, ["w0", "w1"])
    assert len(set(placed[:3])) == 1 and placed[3] != placed[0]


def test_worker_share_divides_the_host():
    import suite_cluster as sc

    resources = {f"tcp://h:{i}": {"host": "h", "cpus": list(range(64)), "memory": 2**37}
                 for i in range(4)}
    shares = sc.host_shares(resources)
    assert shares == {"h": {"workers": 4, "cores": 64, "memory": 2**37}}
    assert sc.worker_share(shares, "h", 64) == (16, int(2**37 * sc.CACHE_SHARE / 8))
    # pinned workers (4 cores each) on a 16-core host: 4 threads
    pinned = {f"w{i}": {"host": "p", "cpus": list(range(4 * i, 4 * i + 4)), "memory": 2**34}
              for i in range(4)}
    assert sc.worker_share(sc.host_shares(pinned), "p", 4)[0] == 4
    assert sc.worker_share(shares, "elsewhere", 8)[0] == 8


@pytest.mark.gpu
def test_persistent_runs_on_the_gpu(inputs, tmp_path):
    """The GPU backend in a persistent process: the device set up once, one warm-up call per
    input, valid balanced partitions and the device memory reported."""
    args = suite.parse_args(["--backend", "gpu", "--keep-parts", "--threads", "1"])
    kept = suite.Runner(args, tmp_path / "gpu", isolate="worker", max_threads=1)
    cases = [(inputs[0], 2), (inputs[0], 8), (inputs[1], 4), (inputs[0], 2)]
    try:
        runs = []
        for path, k in cases:
            r = kept.run(suite.Tool("igpart", 1, "gpu"), suite.Case(path.stem, "small",
                                                                    str(path)),
                         k, 0, "inproc", checker.read_input(str(path)))
            runs.append(r)
    finally:
        kept.close()
    assert all(r.error is None and r.valid and r.used_backend == "gpu" for r in runs), runs
    assert [r.warmup_seconds is not None for r in runs] == [True, False, True, False]
    assert all(r.gpu_used_bytes is not None for r in runs) and kept.server.starts == 1
