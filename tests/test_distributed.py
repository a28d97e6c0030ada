"""igpart.distributed: cluster choice, batch jobs and one partition over the workers of a dask
cluster, a worker killed mid-job."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import igpart
from igpart.distributed import cluster as cl
from igpart.errors import InputError
from igpart.metrics import evaluate

from .conftest import REPO

SUITE = REPO / "benchmarks" / "suite.py"
sys.path.insert(0, str(REPO / "benchmarks"))
import verify_partition as vp  # noqa: E402  (benchmarks/ is no package)


# ------------------------------------------------------------------------- without a cluster
@pytest.mark.parametrize("workers, gpus, dask_cuda, cpus, expected", [
    (None, 4, True, 64, cl.LocalPlan("cuda", 4, 16, 4)),     # a worker per GPU, by dask-cuda
    (None, 4, False, 64, cl.LocalPlan("gpu", 4, 16, 4)),     # the same by CUDA_VISIBLE_DEVICES
    (2, 4, True, 64, cl.LocalPlan("cuda", 2, 32, 4)),
    (8, 4, True, 64, cl.LocalPlan("gpu", 8, 8, 4)),          # more workers than GPUs: shared
    (None, 1, True, 16, cl.LocalPlan("cpu", 4, 4)),          # one GPU: CPU workers
    (None, 0, False, 2, cl.LocalPlan("cpu", 1, 2)),
    (3, 0, False, 2, cl.LocalPlan("cpu", 3, 1)),             # more workers than cores
])
def test_local_plan(workers, gpus, dask_cuda, cpus, expected):
    assert cl.local_plan(workers, gpus, dask_cuda, cpus) == expected


def test_worker_envs_pin_cores_and_gpus():
    envs = cl.LocalPlan("gpu", 4, 3, 2).worker_envs(list(range(12)), ["5", "7"])
    assert [e["CUDA_VISIBLE_DEVICES"] for e in envs] == ["5", "7", "5", "7"]
    cores = [set(map(int, e[cl.CPUS_ENV].split(","))) for e in envs]
    assert all(len(c) == 3 for c in cores) and len(set().union(*cores)) == 12  # disjoint
    assert all(e["OMP_NUM_THREADS"] == "3" for e in envs)
    cpu = cl.LocalPlan("cpu", 2, 1).worker_envs([4, 9])
    assert [e[cl.CPUS_ENV] for e in cpu] == ["4", "9"]
    assert not any("CUDA_VISIBLE_DEVICES" in e for e in cpu)


@pytest.mark.parametrize("spec, parsed", [("local", ("local", None)), ("local:3", ("local", 3)),
                                          ("tcp://10.0.0.1:8786", ("address", None))])
def test_parse_spec(spec, parsed):
    assert cl.parse_spec(spec) == parsed


@pytest.mark.parametrize("spec", ["local:0", "local:x", "local:", "", "a b"])
def test_parse_spec_rejects(spec):
    with pytest.raises(InputError, match="--cluster"):
        cl.parse_spec(spec)


def test_without_dask_the_error_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    from igpart import generators

    h = generators.random_circuit(60, seed=1)
    with pytest.raises(cl.DistributedUnavailable, match=r"pip install igpart\[distributed\]"):
        igpart.partition(h, 2, cluster="local")
    path = tmp_path / "h.hgr"
    igpart.write_hgr(h, path)
    from igpart.cli import main

    assert main(["partition", str(path), "-k", "2", "--cluster", "local:2"]) == 1
    err = capsys.readouterr().err
    assert "igpart[distributed]" in err and "Traceback" not in err
    assert not (tmp_path / "h.hgr.part.2").exists()


def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(cl, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(cl.DistributedUnavailable, match="cannot reach the cluster at "
                       "'tcp://127.0.0.1:9'"):
        with cl.connect("tcp://127.0.0.1:9"):
            pass


# --------------------------------------------------------------------- on a local cluster
@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    with cl.connect("local:2") as c:
        yield c


def test_local_workers_pinned_to_their_cores(client):
    cores = client.run(lambda: sorted(os.sched_getaffinity(0)))
    omp = client.run(lambda: os.environ.get("OMP_NUM_THREADS"))
    assert len(cores) == 2
    mine = set(os.sched_getaffinity(0))
    if len(mine) >= 2:  # one core each, not the same one
        sets = [set(c) for c in cores.values()]
        assert all(len(s) == len(mine) // 2 for s in sets) and not sets[0] & sets[1]
    assert set(omp.values()) == {str(max(1, len(mine) // 2))}


def test_partition_on_cluster_valid_balanced_and_reproducible(client):
    from igpart import generators

    h = generators.random_circuit(3000, seed=2)
    k = 5  # groups of 3 and 2 blocks
    p = igpart.partition(h, k, 0.03, "km1", "cpu", seed=3, cluster=client)
    again = igpart.partition(h, k, 0.03, "km1", "cpu", seed=3, cluster=client)
    assert p.balanced and p.parts.min() == 0 and p.parts.max() == k - 1
    ref = evaluate(h, p.parts, k, 0.03)
    assert (p.cut, p.km1, p.balanced) == (ref["cut"], ref["km1"], ref["balanced"])
    assert np.array_equal(p.parts, again.parts)  # same seed, same cluster size
    # the same tasks run here one after the other: the same partition
    from igpart.distributed.partition import critical_path

    here = critical_path(h, k, 0.03, "km1", "cpu", 3, igpart.Config(), groups=2)
    assert np.array_equal(here.parts, p.parts)
    assert p.algorithm == "distributed-multisection:2"
    assert {"distributed_split", "distributed_refine"} <= set(p.timings)


def test_cli_partition_on_cluster(client, tmp_path, capsys):
    from igpart import generators
    from igpart.cli import main

    h = generators.random_circuit(2000, seed=4)
    path = tmp_path / "c.hgr"
    igpart.write_hgr(h, path)
    assert main(["partition", str(path), "-k", "4", "--cluster", client.scheduler.address,
                 "--json", "--backend", "cpu"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    parts = igpart.read_partition(tmp_path / "c.hgr.part.4", h.n)
    ref = evaluate(h, parts, 4, 0.03)
    assert ref["balanced"] and out["cut"] == ref["cut"]


def test_partition_on_cluster_of_a_graph(client):
    from igpart import generators

    g = generators.grid_graph(30, 30)
    p = igpart.partition(g, 6, 0.03, cluster=client)
    assert p.balanced and len(np.unique(p.parts)) == 6
    assert p.cut == evaluate(g, p.parts, 6, 0.03)["cut"]


def test_map_on_cluster_equals_serial(client):
    from igpart import generators

    h = generators.random_circuit(1500, seed=5)
    here = igpart.map(h, (2, 3), (1, 10), algorithm="hm", backend="cpu", seed=1)
    there = igpart.map(h, (2, 3), (1, 10), algorithm="hm", backend="cpu", seed=1,
                       cluster=client)
    assert np.array_equal(here.parts, there.parts) and there.balanced
    assert there.splits == here.splits == 1 + 3  # into 3 groups, then each into 2


def test_bench_on_cluster_equals_serial(client, ispd98):
    from igpart.bench import run_benchmark

    files = [ispd98 / "ibm01.hgr"]
    kw = dict(threads=1, variants={"igpart": {}}, peers=[], progress=False)
    serial = run_benchmark(files, [2, 3], **kw)
    dist = run_benchmark(files, [2, 3], cluster=client, **kw)
    keys = ("instance", "k", "tool", "cut", "km1", "balanced", "error")
    assert [[r[x] for x in keys] for r in dist["runs"]] == \
        [[r[x] for x in keys] for r in serial["runs"]]


# ------------------------------------------------------------------ the suite on the cluster
SUITE_ARGS = ["--suite", "small", "--limit", "2", "--ks", "2", "--tools", "igpart", "--threads",
              "1", "--no-progress"]


def _suite(ispd98, tmp_path, name, *extra):
    out = tmp_path / f"{name}.json"
    cmd = [sys.executable, str(SUITE), *SUITE_ARGS, "--data", str(ispd98.parent), "--work",
           str(tmp_path / "work"), "--json", str(out), *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO))), out


def _figures(path):
    runs = json.loads(path.read_text())["runs"]
    return [(r["case"], r["k"], r["seed"], r["label"], r["cut"], r["km1"], r["valid"], r["error"])
            for r in runs]


@pytest.fixture(scope="module")
def serial_suite(ispd98, tmp_path_factory):
    proc, out = _suite(ispd98, tmp_path_factory.mktemp("serial"), "serial")
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    runs = _figures(out)
    assert [r[0] for r in runs] == ["ibm01", "ibm02"] and all(r[6] for r in runs)
    return runs


@pytest.mark.parametrize("isolate", ["worker", "run"])
def test_suite_on_cluster_equals_serial(client, ispd98, tmp_path, serial_suite, isolate):
    """The suite's runs on 2 workers, in a persistent run process per worker or each in a fresh
    one: the partitions' figures of the serial run; the wall time and the workers' start-ups in
    the report."""
    proc, out = _suite(ispd98, tmp_path, "cluster", "--cluster", client.scheduler.address,
                       "--isolate", isolate)
    md, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert _figures(out) == serial_suite
    doc = json.loads(out.read_text())
    assert doc["meta"]["cluster"] == client.scheduler.address
    assert doc["meta"]["isolate"] == isolate and doc["meta"]["wall_seconds"] > 0
    assert {r["isolate"] for r in doc["runs"]} == {isolate}
    workers = doc["summary"]["workers"]
    assert sum(w["runs"] for w in workers) == len(serial_suite)
    assert {w["worker"] for w in workers} <= set(client.run(lambda dask_worker: dask_worker.name
                                                            ).values())
    starts = sum(w["starts"] for w in workers)
    assert starts == (len(serial_suite) if isolate == "run" else len(workers))
    assert "whole wall time" in md and "| start-ups |" in md
    # the inputs' sizes as the checker counts them (pins counted where the runs read them)
    for case in doc["cases"]:
        h = vp.read_input(case["path"])
        assert (case["n"], case["m"], case["pins"]) == (h.n, h.m, int(h.eptr[-1]))
        assert case["bytes"] == os.path.getsize(case["path"])
    phases = doc["meta"]["phases"]
    assert {"cluster_start", "inputs", "runs", "sizes", "close", "shutdown"} <= set(phases)
    assert sum(phases.values()) <= doc["meta"]["wall_seconds"]
    assert all(w["checker_read_seconds"] >= 0 for w in workers)


def test_isolate_worker_needs_a_cluster(ispd98, tmp_path):
    proc, _ = _suite(ispd98, tmp_path, "serial", "--isolate", "worker")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "--isolate worker needs --cluster" in err


def test_suite_survives_a_worker_killed_mid_job(client, ispd98, tmp_path, serial_suite):
    """A worker is killed while it runs one of the suite's tasks; the scheduler reruns the task
    on a (restarted) worker and the results equal the serial run's; the killed worker's run
    process ends with it."""
    killed: list[tuple[str, str]] = []
    orphans: list[int] = []
    stop = threading.Event()

    def killer() -> None:
        while not stop.is_set() and not killed:
            busy = {w: keys for w, keys in client.processing().items()
                    if any("run_case" in str(key) for key in keys)}
            if busy:  # killed once its persistent run process has started
                worker, keys = sorted(busy.items())[0]
                pid = client.run(os.getpid, workers=[worker])[worker]
                runs = [c for c in _children(pid) if b"run_server" in _cmdline(c)]
                if runs:
                    orphans.extend(runs)
                    os.kill(pid, signal.SIGKILL)
                    killed.append((worker, str(keys[0])))
            time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    proc, out = _suite(ispd98, tmp_path, "fault", "--cluster", client.scheduler.address)
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        stop.set()
        thread.join()
    assert killed, "no task was seen running"
    assert proc.returncode == 0, err
    assert _figures(out) == serial_suite
    client.wait_for_workers(2, timeout=60)  # the nanny restarted the killed worker
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in orphans) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in orphans)


def _children(pid: int) -> list[int]:
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            out += [int(c) for c in f.read().split()]
    return out


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# ------------------------------------------------------------------------------- on GPUs
@pytest.mark.gpu
def test_partition_on_cluster_on_the_gpu():
    pytest.importorskip("distributed")
    from igpart import generators

    h = generators.random_circuit(30000, seed=6)
    with cl.connect("local:2") as c:
        p = igpart.partition(h, 8, 0.03, backend="gpu", cluster=c)
    assert p.balanced and p.backend == "gpu"
    assert p.cut == evaluate(h, p.parts, 8, 0.03)["cut"]


def _first_device_address() -> tuple:
    """Where the worker's device 0 sits: PCI domain, bus and device (cards of one model share
    a name, and on virtual machines the bus number alone repeats across domains)."""
    props = __import__("cupy").cuda.runtime.getDeviceProperties(0)
    return tuple(props.get(key) for key in ("pciDomainID", "pciBusID", "pciDeviceID"))


@pytest.mark.gpu
def test_local_cluster_gives_each_worker_its_gpu():
    pytest.importorskip("distributed")
    gpus = cl.visible_gpus()
    if gpus < 2:
        pytest.skip(f"needs two GPUs, {gpus} visible")
    with cl.connect("local") as c:
        devices = c.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES", ""))
        names = c.run(_first_device_address)
    assert len(devices) == gpus
    assert len({d.split(",")[0] for d in devices.values()}) == gpus  # a different first GPU
    assert len(set(names.values())) == gpus  # device 0 of each worker: another card
