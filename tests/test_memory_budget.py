"""Device memory budgets: parsing, the minimum and its error, the host store of the dynamic
hypergraph under random change streams (the same rows in the same order as the bucket lists),
identical incremental results with and without a budget, the transfer figures, and the Session,
environment and CLI plumbing. GPU variants carry the gpu marker."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from igpart import Hypergraph, io
from igpart.dynamic import Batch, DynamicHypergraph
from igpart.errors import InputError
from igpart.generators import random_circuit
from igpart.incremental import IncrementalPartitioner
from igpart.kernels import budget, get_backend
from igpart.plugin import Session

from .dynamic_model import Model, random_batch


def generous(h: Hypergraph, k: int) -> int:
    """A budget above the dynamic minimum whose cache holds about a tenth of the rows."""
    return budget.dynamic_minimum(h.n, h.m, k) + int(h.eind.shape[0]) // 5 * 4


# ----------------------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "text, value",
    [(4096, 4096), ("4096", 4096), ("2K", 2000), ("2KiB", 2048), ("1.5GiB", 3 << 29),
     (" 8 gb ", 8 * 10**9), ("3MiB", 3 << 20)],
)  # fmt: skip
def test_parse_bytes(text, value):
    assert budget.parse_bytes(text) == value


@pytest.mark.parametrize("bad", ["", "12 parsecs", "-5", "0", 0, -1, "1e9", True, None, 2.5])
def test_parse_bytes_rejects(bad):
    with pytest.raises(InputError, match="memory budget"):
        budget.parse_bytes(bad)


def test_env_budget(monkeypatch):
    monkeypatch.setenv(budget.ENV, "64MiB")
    assert budget.budget_from_env() == 64 << 20
    assert budget.resolve(None) == 64 << 20 and budget.resolve("1K") == 1000
    monkeypatch.setenv(budget.ENV, "lots")
    with pytest.raises(InputError, match=budget.ENV):
        budget.resolve(None)
    monkeypatch.setenv(budget.ENV, "")
    assert budget.resolve(None) is None


# ----------------------------------------------------------------------------- minimum
def test_minimum_formulas():
    assert budget.dynamic_minimum(10, 5, 4) == (
        10 * budget.VERTEX_BYTES + 5 * (budget.NET_BYTES + 16) + 32
    )
    # the coarse level scales the input down to 160 k vertices; small inputs stay whole
    assert budget.coarse_minimum(100, 50, 300, 2) == budget.level_bytes(100, 50, 300, 2)
    big = budget.coarse_minimum(3_200_000, 3_000_000, 12_000_000, 2)
    assert big == budget.level_bytes(320, 300, 1200, 2)


def test_check_partition():
    budget.check_partition(10**9, 1000, 1000, 4000, 4)  # fits
    with pytest.raises(InputError, match=r"minimum of [\d,]+ bytes") as exc:
        budget.check_partition(100, 1000, 1000, 4000, 4)
    assert f"{budget.coarse_minimum(1000, 1000, 4000, 4):,}" in str(exc.value)
    # above the coarse minimum a budget below the finest level is accepted: the levels that do
    # not fit keep their pin arrays in host memory (kernels.placement)
    need = budget.level_bytes(100_000, 100_000, 400_000, 4)
    budget.check_partition(need // 16, 100_000, 100_000, 400_000, 4)


def test_budget_below_minimum_names_it():
    h = random_circuit(500, seed=3)
    minimum = budget.dynamic_minimum(h.n, h.m, 4)
    with pytest.raises(InputError, match=f"minimum of {minimum:,} bytes"):
        DynamicHypergraph.from_hypergraph(h, np.arange(h.n) % 4, 4, memory_budget=minimum - 1)
    with pytest.raises(InputError, match=f"minimum of {minimum:,} bytes"):
        Session(h, k=4, memory_budget=minimum - 1)  # before partitioning
    d = DynamicHypergraph.from_hypergraph(h, np.arange(h.n) % 4, 4, memory_budget=minimum)
    assert d.has_store and d.store_stats["cache_budget"] == 0


def test_cpu_backend_ignores_budget_but_parses_it():
    assert get_backend("cpu", memory_budget="1G").name == "cpu"
    with pytest.raises(InputError, match="memory budget"):
        get_backend("cpu", memory_budget="much")


# ----------------------------------------------------------------------------- host store
@pytest.mark.parametrize("seed", [0, 1])
def test_store_rows_follow_random_batches(seed):
    """Inserts, deletions with id reuse and pin changes: after every batch the store holds the
    bucket lists' entries in their order (check() compares them), and is readable row by row."""
    rng = np.random.default_rng(seed)
    h = random_circuit(150, seed=seed)
    parts = rng.integers(0, 3, size=h.n)
    d = DynamicHypergraph.from_hypergraph(h, parts, 3, memory_budget=generous(h, 3), cache_tau=2)
    model = Model(h, parts, 3)
    for _ in range(60):
        d.apply(random_batch(model, rng, int(rng.integers(5, 40)), weighted=False))
        d.check()
        d.end_batch()
    alive = np.flatnonzero(d.vertex_alive)
    for v in alive[:: max(1, alive.size // 40)]:
        assert d.store_row("vertex", v).tolist() == d.nets_of(v).tolist()
    for e in np.flatnonzero(d.net_alive)[:40]:
        assert d.store_row("net", e).tolist() == d.pins_of(e).tolist()
    s = d.store_stats
    assert s["vertex_rows"]["entries"] == s["net_rows"]["entries"] == d.num_pins
    assert sum(s["vertex_rows"]["rebalances"]) + sum(s["net_rows"]["rebalances"]) > 0
    assert s["hot_bytes"] <= s["cache_budget"]


def test_invalid_batch_changes_nothing_in_the_store():
    h = random_circuit(200, seed=4)
    d = DynamicHypergraph.from_hypergraph(h, np.arange(h.n) % 2, 2, memory_budget=generous(h, 2))
    before = d.dump_state()
    assert "store.vertex_rows.slots" in before
    b = Batch()
    b.insert_pin(0, next(e for e in range(h.m) if e not in set(d.nets_of(0).tolist())))
    b.delete_pin(0, 10**6)
    with pytest.raises(InputError):
        d.apply(b)
    after = d.dump_state()
    assert before.keys() == after.keys()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_store_queries_bad_input():
    h = random_circuit(100, seed=5)
    d = DynamicHypergraph.from_hypergraph(h, np.arange(h.n) % 2, 2)
    assert not d.has_store and d.end_batch() is None and d.store_stats is None
    with pytest.raises(InputError, match="no host store"):
        d.store_row("vertex", 0)
    d = DynamicHypergraph.from_hypergraph(h, np.arange(h.n) % 2, 2, memory_budget=generous(h, 2))
    with pytest.raises(InputError, match="kind"):
        d.store_row("pin", 0)
    with pytest.raises(InputError, match="out of range"):
        d.store_row("net", h.m + 5)
    with pytest.raises(InputError, match="cache_tau"):
        DynamicHypergraph.from_hypergraph(h, np.zeros(h.n), 2, memory_budget="1G", cache_tau=9)


# ------------------------------------------------------------------ identical results
def _stream(h, seed, batches):
    rng = np.random.default_rng(seed)
    model = Model(h, np.zeros(h.n, np.int32), 4)  # ids only: the partition is not modelled
    return [random_batch(model, rng, int(rng.integers(5, 30)), weighted=True)
            for _ in range(batches)]  # fmt: skip


@pytest.mark.parametrize("objective", ["cut", "km1"])
def test_budget_gives_identical_moves(objective):
    """Same seed, same batches: the same moves, metrics and partition on every batch, with the
    adjacency read from the host store; the guard re-partitions on both sides alike."""
    h = random_circuit(1500, seed=7)
    opts = {"max_change_fraction": 0.05}  # a few full re-partitions on the way
    plain = IncrementalPartitioner(h, 4, objective=objective, seed=3, backend="cpu", options=opts)
    store = IncrementalPartitioner(h, 4, objective=objective, seed=3, backend="cpu", options=opts,
                                   memory_budget=generous(h, 4))  # fmt: skip
    assert np.array_equal(plain.parts, store.parts)
    fulls = 0
    moved = zero_copy = 0
    for i, b in enumerate(_stream(h, 11, 40)):
        r1, r2 = plain.apply(b), store.apply(b)
        assert np.array_equal(r1.moved, r2.moved) and np.array_equal(r1.moved_to, r2.moved_to)
        assert (r1.cut, r1.km1, r1.full_repartition) == (r2.cut, r2.km1, r2.full_repartition)
        assert np.array_equal(plain.parts, store.parts), f"batch {i}"
        t = r2.stats["transfer"]
        assert "transfer" not in r1.stats
        assert t["moved_bytes"] == (t["cold_bytes"] + t["load_bytes"] + t["reload_bytes"]
                                    + t["write_bytes"])  # fmt: skip
        assert t["hot_bytes"] <= store.dynamic.store_stats["cache_budget"]
        fulls += r1.full_repartition
        moved += t["moved_bytes"]
        zero_copy += t["zero_copy_bytes"]
    assert fulls > 0
    store.dynamic.check()
    assert moved < zero_copy + store.dynamic.store_stats["hot_bytes"]  # the cache paid off
    assert store.dynamic.store_stats["hot_rows"] > 0


def test_session_budget_and_env(monkeypatch):
    h = random_circuit(400, seed=8)
    s = Session(h, k=2, memory_budget=generous(h, 2), backend="cpu")
    assert s.dynamic.has_store
    v = s.insert_vertex()
    s.insert_pin(v, 0)
    r = s.refine()
    assert r.to_dict()["transfer"]["cold_reads"] > 0
    monkeypatch.setenv(budget.ENV, str(generous(h, 2)))
    assert Session(h, k=2, backend="cpu").dynamic.has_store
    monkeypatch.setenv(budget.ENV, "")
    assert not Session(h, k=2, backend="cpu").dynamic.has_store


# ----------------------------------------------------------------------------- CLI
def _run(*args):
    return subprocess.run([sys.executable, "-m", "igpart", *map(str, args)], capture_output=True,
                          text=True)  # fmt: skip


def test_cli_memory_budget(tmp_path):
    h = random_circuit(2000, seed=9)
    path = tmp_path / "c.hgr"
    io.write_hgr(h, path)
    r = _run("partition", path, "-k", 2, "--backend", "cpu", "--memory-budget", "1KiB")
    minimum = budget.coarse_minimum(h.n, h.m, h.eind.shape[0], 2)
    assert r.returncode != 0 and f"minimum of {minimum:,} bytes" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "c.hgr.part.2").exists()
    r = _run("partition", path, "-k", 2, "--backend", "cpu", "--memory-budget", "ten")
    assert r.returncode == 2 and "--memory-budget" in r.stderr and "Traceback" not in r.stderr
    r = _run("partition", path, "-k", 2, "--backend", "cpu", "--memory-budget", "1GiB")
    assert r.returncode == 0, r.stderr


# ----------------------------------------------------------------------------- GPU
def _gpu_run(h, k, objective="cut", memory_budget=None, seed=1):
    """A deterministic GPU partition of ``h`` (under ``memory_budget`` bytes when given)."""
    from igpart import partition
    from igpart.kernels.gpu import GpuBackend

    return partition(h, k, objective=objective,
                     backend=GpuBackend(deterministic=True, memory_budget=memory_budget),
                     seed=seed, config={"threads": 1})  # fmt: skip


@pytest.mark.gpu
@pytest.mark.parametrize("objective", ["cut", "km1"])
def test_gpu_partition_under_budget_matches_in_memory(objective):
    """Budgets of a quarter and a sixteenth of the run's device footprint: the finest levels'
    pin arrays (and whatever else does not fit) live in page-locked host memory, the kernels
    read them over the bus, and the partition equals the in-memory one; the device never holds
    more than the budget."""
    from igpart import partition
    from igpart.kernels.gpu import GpuBackend

    h = random_circuit(12_000, seed=2)
    k = 4
    plain = _gpu_run(h, k, objective)
    assert plain.memory == {}
    # an unbounded budget measures the in-memory run's footprint (its peak of live device bytes)
    free = _gpu_run(h, k, objective, memory_budget=1 << 40)
    assert np.array_equal(free.parts, plain.parts)
    footprint = free.memory["device_used_peak"]
    assert footprint > 0 and free.memory["host_peak"] == 0
    for div in (4, 16):
        b = footprint // div
        assert b >= budget.coarse_minimum(h.n, h.m, h.eind.shape[0], k)
        run = _gpu_run(h, k, objective, memory_budget=b)
        assert np.array_equal(run.parts, plain.parts), div
        assert (run.cut, run.km1) == (plain.cut, plain.km1)
        mem = run.memory
        assert 0 < mem["device_used_peak"] <= mem["device_peak"] <= b, (div, mem)
        # the live bytes cannot fit: something lived in host memory and crossed the bus
        assert mem["host_peak"] > 0 and mem["bus_bytes"] > 0, (div, mem)
        # the finest level does not fit: it was spilled while the coarser levels were built
        assert mem["level_moves"]["spilled"] > 0, (div, mem)
        # every request the budget sent to the host names the code that made it
        assert all(r["site"] and r["site"] != "?" for r in mem["overflow_requests"]), mem
        if div == 4:  # ... and copied back for its refinement, with room for its arrays
            assert mem["level_moves"]["restored"] > 0, mem
    # at a sixteenth its pins went to the host at the upload
    assert mem["phases"]["upload"]["host_written"] > 0, mem
    with pytest.raises(InputError, match="minimum"):
        partition(h, k, backend=GpuBackend(memory_budget=1000))


@pytest.mark.gpu
def test_gpu_improve_under_budget():
    """``improve`` (refinement and V-cycles of a given partition) under a sixteenth of the
    footprint equals the in-memory run's."""
    from igpart import improve
    from igpart.kernels.gpu import GpuBackend

    h = random_circuit(8_000, seed=5)
    start = np.arange(h.n, dtype=np.int32) % 2
    free = _gpu_run(h, 2, memory_budget=1 << 40)
    b = free.memory["device_used_peak"] // 16
    a = improve(h, start, 2, backend=GpuBackend(deterministic=True), seed=3)
    c = improve(h, start, 2, backend=GpuBackend(deterministic=True, memory_budget=b), seed=3)
    assert np.array_equal(a.parts, c.parts)
    assert 0 < c.memory["device_peak"] <= b


def test_gpu_placement_tiers(monkeypatch):
    # the GPU structure's placement by budget: all on the device, the adjacency in host memory,
    # all per-id state in host memory, or an error naming the least budget that would work
    from igpart.dynamic import _footprint_parts, gpu_placement

    h = random_circuit(3000, seed=6)
    pools, rest = _footprint_parts(h, 4, 1, 0.1)
    assert gpu_placement(h, 4, pools + rest) == {}
    assert gpu_placement(h, 4, pools + rest - 1) == {"host_pools": True}
    assert gpu_placement(h, 4, rest) == {"host_pools": True}
    monkeypatch.setattr(budget, "DYNAMIC_DEVICE_FLOOR", 4096)
    low = budget.dynamic_host_state_minimum(4)
    assert low < rest and gpu_placement(h, 4, low) == {"host_state": True}
    with pytest.raises(InputError, match=f"{low:,}"):
        gpu_placement(h, 4, low - 1)
    # a floor above the state itself: the least working budget is the state's (host_pools)
    monkeypatch.setattr(budget, "DYNAMIC_DEVICE_FLOOR", 2 * rest)
    with pytest.raises(InputError, match=f"{rest:,}"):
        gpu_placement(h, 4, rest - 1)
    with pytest.raises(InputError, match="host memory"):  # before any partitioning
        IncrementalPartitioner(h, 4, engine="gpu", memory_budget=rest - 1)


@pytest.mark.gpu
def test_gpu_engine_budget(monkeypatch):
    """Below its footprint the GPU structure keeps its bucket pools in host memory (zero-copy),
    below the rest of its state every per-vertex and per-net array too, and gives the in-memory
    structure's results batch for batch (transactions included); below the batch buffers, an
    error naming the minimum."""
    from igpart.dynamic import _footprint_parts, device_footprint

    h = random_circuit(3000, seed=6)
    parts = np.arange(h.n) % 4
    need = device_footprint(h, 4)
    pools, rest = _footprint_parts(h, 4, 1, 0.1)
    fits = DynamicHypergraph.from_hypergraph(h, parts, 4, backend="gpu", memory_budget=need)
    assert not fits.stats["host_pools"]
    # no headroom: the pools and id ranges grow within the first batches (growth of the host
    # arrays is part of what must give the same results)
    plain = DynamicHypergraph.from_hypergraph(h, parts, 4, backend="gpu", headroom=0.0)
    zero = DynamicHypergraph.from_hypergraph(h, parts, 4, backend="gpu", memory_budget=rest,
                                             headroom=0.0)
    # the device floor of the host-state placement is sized for real designs (1 MiB), more than
    # this design's whole state: a smaller floor lets the test reach that placement
    monkeypatch.setattr(budget, "DYNAMIC_DEVICE_FLOOR", 4096)
    low = budget.dynamic_host_state_minimum(4)
    assert low < rest
    state = DynamicHypergraph.from_hypergraph(h, parts, 4, backend="gpu", memory_budget=low,
                                              headroom=0.0)
    assert zero.stats["host_pools"] and not zero.stats["host_state"]
    assert state.stats["host_pools"] and state.stats["host_state"]
    rng = np.random.default_rng(1)
    model = Model(h, parts, 4)
    for i in range(30):  # growth of the host pools included
        b = random_batch(model, rng, 40, weighted=False)
        rolled = i % 7 == 3  # a transaction rolled back on every structure, then the batch again
        for d in (plain, zero, state):
            if rolled:
                d.begin_batch()
                d.apply(b)
                d.refine("cut")
                d.rollback_batch()
            d.apply(b)
        r1, r2, r3 = plain.refine("cut"), zero.refine("cut"), state.refine("cut")
        for d in (zero, state):
            assert (plain.cut, plain.km1) == (d.cut, d.km1), i
            assert np.array_equal(plain.parts, d.parts), i
            assert np.array_equal(plain.block_weights, d.block_weights), i
        assert r1["changed"] == r2["changed"] == r3["changed"]
    for d in (zero, state):
        d.check()
        assert d.stats["vertex_pool"]["growths"] + d.stats["net_pool"]["growths"] > 0
    assert state.stats["vertex_id_growths"] + state.stats["net_id_growths"] > 0
    snap_a, snap_b = plain.to_hypergraph(), state.to_hypergraph()
    assert np.array_equal(snap_a.parts, snap_b.parts)
    assert np.array_equal(snap_a.net_ids, snap_b.net_ids)

    def pin_keys(snap):  # (net, pin) pairs: the order of pins within a net follows the slots
        hg = snap.hypergraph
        return np.sort(np.repeat(np.arange(hg.m, dtype=np.int64), np.diff(hg.eptr)) * hg.n
                       + hg.eind)  # fmt: skip

    assert np.array_equal(pin_keys(snap_a), pin_keys(snap_b))
    with pytest.raises(InputError, match=f"{low:,}"):
        DynamicHypergraph.from_hypergraph(h, parts, 4, backend="gpu", memory_budget=low - 1)
    monkeypatch.setenv(budget.ENV, str(low - 1))
    with pytest.raises(InputError, match="host memory"):
        DynamicHypergraph.from_hypergraph(h, parts, 4, backend="gpu")


def test_managed_memory_page_model():
    """The managed-memory baseline: whole pages move on faults, resident pages stay until the
    host writes them or they fall out of the LRU."""
    h = random_circuit(300, seed=12)
    minimum = budget.dynamic_minimum(h.n, h.m, 2)
    parts = np.arange(h.n) % 2
    big = DynamicHypergraph.from_hypergraph(h, parts, 2, memory_budget=minimum + (1 << 24))
    big._impl.attach_store(1 << 24, 3, 1, 64, True, 4096)
    small = DynamicHypergraph.from_hypergraph(h, parts, 2, memory_budget=minimum + 4096)
    small._impl.attach_store(4096, 3, 1, 64, True, 4096)
    vs = np.arange(0, h.n, 7, dtype=np.int32)
    figures = []
    for d in (big, small):
        for _ in range(2):
            d.move(vs, (d.blocks_of(vs) + 1) % 2)  # reads the nets of each moved vertex
            figures.append(d.end_batch())
    for f in figures:
        assert f["managed_bytes"] == 4096 * f["managed_faults"]
    first_big, second_big, first_small, second_small = figures
    assert first_big["managed_faults"] > 0 and second_big["managed_faults"] == 0  # resident
    assert second_small["managed_faults"] > 0  # one page of room: the pages keep cycling
    b = Batch()
    b.insert_pin(0, next(e for e in range(h.m) if e not in set(big.nets_of(0).tolist())))
    big.apply(b)  # the host writes the rows of vertex 0 and of the net: their pages drop
    big.move(vs, (big.blocks_of(vs) + 1) % 2)
    assert 0 < big.end_batch()["managed_faults"] <= 4
    with pytest.raises(ValueError, match="page size"):
        big._impl.attach_store(100, 3, 1, 64, True, -1)


def test_full_partitions_keep_the_budget_when_the_finest_level_does_not_fit():
    """A device backend whose budget cannot hold the finest level: the session's full partitions
    still run on it with the budget (its finest levels stream from host memory); below the
    coarse minimum, an InputError naming it."""
    from igpart.kernels.cpu import CpuBackend

    class SmallDevice(CpuBackend):  # a device backend's budget checks over the C++ stages
        name = "gpu"

    rng = np.random.default_rng(13)
    h = Hypergraph.from_nets([rng.choice(600, size=10, replace=False) for _ in range(300)], n=600)
    need = budget.level_bytes(h.n, h.m, h.eind.shape[0], 2)
    engine_budget = budget.dynamic_minimum(h.n, h.m, 2)  # large nets: pins dominate the level
    assert max(engine_budget, budget.coarse_minimum(h.n, h.m, h.eind.shape[0], 2)) < need
    ip = IncrementalPartitioner(h, 2, backend=SmallDevice(), memory_budget=engine_budget)
    assert ip.backend.name == "gpu" and ip.backend.memory_budget == engine_budget
    big = IncrementalPartitioner(h, 2, backend=SmallDevice(), memory_budget=need)
    assert big.backend.name == "gpu" and big.backend.memory_budget == need
    assert np.array_equal(ip.parts, big.parts)  # the same C++ stages either way
