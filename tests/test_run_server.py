"""The benchmark suite's persistent run process (benchmarks/run_server.py) and the placement of
runs on cluster workers (benchmarks/suite_cluster.py): the same partitions as fresh processes,
failures confined to their run."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path

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


def test_read_ahead_during_a_run(inputs, tmp_path):
    """A run told to read the next input ahead: the next run on that input counts it as read
    (not cached) with the read-ahead's seconds, and computes the partition of a freshly read
    input; an input read ahead but used later still counts as read once; the run's files are
    those it names (the partition first), removed by the check."""
    args = suite.parse_args(["--threads", "1"])
    runner = suite.Runner(args, tmp_path / "ahead", isolate="worker", max_threads=1)
    tool = suite.Tool("igpart", 1, "cpu")
    c0, c1 = (suite.Case(p.stem, "small", str(p)) for p in inputs)
    try:
        first, files = runner.run_unchecked(tool, c0, 2, 0, "inproc", prefetch=str(inputs[1]))
        assert files[0].endswith(".part") and all(Path(f).exists() for f in files[:2])
        runner.check(first, files, checker.read_input(str(inputs[0])))
        assert first.valid and not any(Path(f).exists() for f in files)
        again, files = runner.run_unchecked(tool, c0, 3, 0, "inproc")
        runner.check(again, files, checker.read_input(str(inputs[0])))
        second, files = runner.run_unchecked(tool, c1, 3, 0, "inproc")
        runner.check(second, files, checker.read_input(str(inputs[1])))
    finally:
        runner.close(wait=False)
    assert first.readahead_seconds is None and again.readahead_seconds is None
    assert again.cached_input and not second.cached_input and second.readahead_seconds > 0
    p = igpart.partition(igpart.read(inputs[1]), 3, args.epsilon, args.objective,
                         backend="cpu", seed=0)
    assert second.valid and second.cut == p.cut and second.km1 == p.km1
    rows = suite.worker_summary([suite.asdict(r) for r in (first, again, second)])
    assert rows[0]["reads"] == 2 and rows[0]["readahead_seconds"] > 0


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


def test_next_run_longest_first_unless_a_held_input_saves_its_read():
    import suite_cluster as sc

    costs, inputs = [10.0, 9.0, 6.0, 5.0], ["a", "b", "b", "c"]
    left = [0, 1, 2, 3]
    # nothing held: the longest
    assert sc.next_run(left, costs, [2.0] * 4, inputs, set()) == 0
    # b held, its longest run (9) at least the head (10) less the read it saves (2): b's
    assert sc.next_run(left, costs, [2.0] * 4, inputs, {"b"}) == 1
    # c held, but its run (5) is much shorter than the head less its read (8): the head
    assert sc.next_run(left, costs, [2.0] * 4, inputs, {"c"}) == 0
    # no set-up (fresh processes): strictly the longest
    assert sc.next_run(left, costs, [0.0] * 4, inputs, {"b"}) == 0
    # nothing held, a held by another worker: b's longest, within the read of the head
    assert sc.next_run(left, costs, [2.0] * 4, inputs, set(), {"a"}) == 1
    assert sc.next_run(left, costs, [0.5] * 4, inputs, set(), {"a"}) == 0  # too much shorter


def test_read_ahead_names_the_input_of_the_workers_next_pick_if_not_held():
    import suite_cluster as sc

    costs, inputs, setups = [10.0, 9.0, 8.0, 7.0], ["a", "b", "c", "d"], [1.0] * 4
    one = {"w": {"a"}}
    assert sc.read_ahead([1, 2, 3], costs, setups, inputs, one, {"w": 0.0}, "w") == "b"
    assert sc.read_ahead([1, 2, 3], costs, setups, inputs, {"w": {"b"}}, {"w": 0.0}, "w") \
        is None  # held: nothing to read
    # two workers, v frees first and takes b: w's next pick is c
    two, free = {"w": {"a"}, "v": set()}, {"w": 5.0, "v": 1.0}
    assert sc.read_ahead([1, 2, 3], costs, setups, inputs, two, free, "w") == "c"
    assert sc.read_ahead([1, 2], costs, [0.0] * 4, inputs, one, {"w": 0.0}, "w") is None
    assert sc.read_ahead([], costs, setups, inputs, one, {"w": 0.0}, "w") is None


def test_dispatcher_hands_out_every_run_once_longest_first():
    """Simulated workers: each run handed out exactly once; without set-ups the runs start in
    decreasing cost (list scheduling); the makespan is within LPT's bound (4/3 of the optimum,
    here at most the total / workers + the longest run)."""
    import random

    import suite_cluster as sc

    rng = random.Random(5)
    for trial in range(20):
        n, nw = rng.randint(1, 30), rng.randint(1, 5)
        costs = [rng.uniform(1, 100) for _ in range(n)]
        inputs = [f"in{rng.randint(0, 4)}" for _ in range(n)]
        setups = [0.0 if trial % 2 else rng.uniform(0, 5) for _ in range(n)]
        workers = [f"w{i}" for i in range(nw)]
        d = sc.Dispatcher(costs, setups, inputs, workers)
        free = {w: 0.0 for w in workers}
        handed, starts = [], []
        while True:
            w = min(workers, key=lambda x: (free[x], x))  # the worker that finishes first
            nxt = d.take(w)
            if nxt is None:
                break
            i, ahead = nxt
            assert ahead is None or ahead in inputs
            handed.append(i)
            starts.append(costs[i])
            free[w] += costs[i]
        assert sorted(handed) == list(range(n))
        if not any(setups):
            assert starts == sorted(starts, reverse=True)
            assert max(free.values()) <= sum(costs) / nw + max(costs) + 1e-9


def test_dispatcher_keeps_a_worker_on_the_inputs_it_holds():
    """Two inputs of equal runs, a read as costly as a run: each worker stays on one input
    (two reads in all, not four)."""
    import suite_cluster as sc

    costs, inputs = [4.0] * 6, ["a", "a", "a", "b", "b", "b"]
    d = sc.Dispatcher(costs, [4.0] * 6, inputs, ["w0", "w1"])
    got: dict[str, list[str]] = {"w0": [], "w1": []}
    for w in ["w0", "w1", "w0", "w1", "w0", "w1"]:
        i, _ = d.take(w)
        got[w].append(inputs[i])
    assert len(set(got["w0"])) == 1 and len(set(got["w1"])) == 1
    assert set(got["w0"]) != set(got["w1"])
    assert d.take("w0") is None


def test_first_round_reads_ahead_knowing_the_other_workers_inputs():
    """Two inputs at k = 32, 8, 2 (cost pins x (1 + log2 k), a read one cost per pin), two
    workers: each takes one input's longest run; neither reads the other's input ahead, and
    handed out as they finish, every input is read by one worker only."""
    import suite_cluster as sc

    costs = [6.0, 4.0, 2.0, 5.5, 3.6, 1.8]
    inputs = ["a"] * 3 + ["b"] * 3
    d = sc.Dispatcher(costs, [1.0] * 6, inputs, ["w0", "w1"])
    first = d.first_round()
    assert [(w, inputs[i], ahead) for w, i, ahead in first] == [("w0", "a", None),
                                                                ("w1", "b", None)]
    free = {"w0": costs[first[0][1]], "w1": costs[first[1][1]]}
    got = {"w0": {"a"}, "w1": {"b"}}
    while (w := min(free, key=free.get)) and (nxt := d.take(w)) is not None:
        got[w].add(inputs[nxt[0]])
        if nxt[1]:
            got[w].add(nxt[1])
        free[w] += costs[nxt[0]]
    assert got == {"w0": {"a"}, "w1": {"b"}}


def test_client_checks_match_the_serial_check(tmp_path):
    """The client's checker: each input read once, every run's verdict that of the serial
    check, its files removed; a run with an error is left unchecked."""
    import suite_cluster as sc

    h = tmp_path / "tiny.hgr"
    h.write_text("3 4\n1 2\n2 3\n3 4\n")
    args = suite.parse_args([])
    runs, files = [], []
    for k, blocks in ((2, "0\n0\n1\n1\n"), (2, "0\n1\n0\n1\n"), (2, "0\n0\n0\n0\n")):
        part = tmp_path / f"p{len(runs)}.part"
        part.write_text(blocks)
        r = suite.Run("tiny", k, 0, "igpart@1", "igpart", 1, "cpu", "inproc", tool_cut=1,
                      tool_km1=1)
        runs.append(asdict(r))
        files.append([str(part)])
    failed = suite.Run("tiny", 2, 1, "igpart@1", "igpart", 1, "cpu", "inproc", error="boom")
    checks = sc.ClientChecks(args, [str(h)], {str(h): 4}, 2)
    try:
        out = [checks.submit(r, f, str(h)) for r, f in zip(runs, files)]
        out.append(checks.submit(asdict(failed), [str(tmp_path / "none.part")], str(h)))
        checks.wait()
    finally:
        checks.close()
    res = [f.result() for f in out]
    assert [(r["cut"], r["valid"]) for r in res[:3]] == [(1, True), (3, False), (0, False)]
    assert res[3]["cut"] is None and res[3]["error"] == "boom"
    assert checks.reads == 1 and checks.pins[str(h)] == 6
    assert not any(Path(f[0]).exists() for f in files)


def test_worker_share_divides_the_host():
    import suite_cluster as sc

    resources = {f"tcp://h:{i}": {"host": "h", "cpus": list(range(64)), "memory": 2**37}
                 for i in range(4)}
    shares = sc.host_shares(resources)
    assert shares == {"h": {"workers": 4, "cores": 64, "memory": 2**37}}
    assert sc.worker_share(shares, "h", 64) == (16, int(2**37 * sc.CACHE_SHARE / 4))
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
