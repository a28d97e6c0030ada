"""The placement policy of full partitions under a device memory budget (kernels/placement.py),
on a simulated device pool and host allocator: which requests go where, that the device never
holds more than the budget, the accounting (host bytes, peaks, per-phase bus estimate, the
sites of requests sent to the host) and which idle levels leave the device."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from igpart import partition
from igpart.generators import random_circuit
from igpart.kernels import budget, get_backend
from igpart.kernels.placement import (
    LEVEL_SHARE,
    SMALL_BYTES,
    SMALL_DIVISOR,
    BudgetAllocator,
    LevelResidency,
    call_site,
    level_need,
    level_on_host,
    pins_to_host,
)


class Block:
    """A simulated allocation: ``where`` it lives; frees itself when dropped."""

    def __init__(self, where: str, size: int, free) -> None:
        self.where, self.size, self._free = where, size, free

    def __del__(self) -> None:
        self._free(self.size)


class Pool:
    """A device pool limited to ``limit`` bytes, as cupy's MemoryPool with set_limit (no
    caching: held == used)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.used = limit, 0

    @property
    def held(self) -> int:
        return self.used

    def malloc(self, size: int) -> Block:
        if self.held + size > self.limit:
            raise MemoryError(f"out of memory allocating {size}")
        self.used += size
        return Block("device", size, self._free)

    def _free(self, size: int) -> None:
        self.used -= size


class CachingPool(Pool):
    """As cupy's pool: freed blocks stay cached (held) until trimmed, and count against the
    limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.cached: list[int] = []
        self.trims = 0

    @property
    def held(self) -> int:
        return self.used + sum(self.cached)

    def malloc(self, size: int) -> Block:
        fit = [c for c in self.cached if c >= size]
        if not fit:
            return super().malloc(size)
        self.cached.remove(min(fit))
        self.used += min(fit)
        return Block("device", min(fit), self._free)

    def _free(self, size: int) -> None:
        self.used -= size
        self.cached.append(size)

    def trim(self) -> None:
        self.trims += 1
        self.cached.clear()


def make(budget_bytes: int, small: int | None = SMALL_BYTES, caching: bool = False,
         site=None):
    pool = CachingPool(budget_bytes) if caching else Pool(budget_bytes)
    alloc = BudgetAllocator(budget_bytes, pool.malloc, lambda: pool.used, lambda: pool.held,
                            lambda size, release: Block("host", size, release), small,
                            device_trim=pool.trim if caching else None, site=site)
    return alloc, pool


def test_cached_blocks_are_trimmed_before_going_to_the_host():
    alloc, pool = make(32 << 20, caching=True)
    a = alloc(20 << 20)
    del a
    gc.collect()
    assert pool.held == 20 << 20 and pool.used == 0
    # 24 MiB do not fit beside the cached 20: the pool is trimmed and the request stays
    b = alloc(24 << 20)
    assert b.where == "device" and pool.trims == 1 and alloc.overflows == 0
    assert alloc.device_peak == 24 << 20 <= alloc.budget
    c = alloc(4 << 20)  # fits beside it within the budget less the reserve
    d = alloc(4 << 20)  # does not: to the host
    assert c.where == "device" and d.where == "host" and alloc.overflows == 1
    assert pool.held <= alloc.budget


def test_device_first_then_host():
    alloc, pool = make(64 << 20)
    a = alloc(8 << 20)
    assert a.where == "device" and pool.used == 8 << 20
    # a large request that would eat into the reserve of the small ones goes to the host
    room = (64 << 20) - (8 << 20) - alloc.reserve
    big = alloc(room + 1)
    assert big.where == "host" and alloc.overflows == 1 and alloc.host_bytes == big.size
    fits = alloc(room)
    assert fits.where == "device"
    # small requests use the reserve, then overflow to the host when the pool is full
    smalls = [alloc(SMALL_BYTES - 1) for _ in range(8)]
    assert all(s.where == "device" for s in smalls[:4])
    assert smalls[-1].where == "host" and pool.used <= alloc.budget
    assert alloc.device_peak == pool.used <= alloc.budget


def test_host_scope_sends_large_requests_to_the_host():
    alloc, pool = make(1 << 30)
    with alloc.host_scope(4 << 20):
        assert alloc(4 << 20).where == "host"
        assert alloc((4 << 20) - 1).where == "device"  # below the threshold: stays
        assert alloc(SMALL_BYTES - 1).where == "device"
        with alloc.host_scope(64 << 20):
            assert alloc(4 << 20).where == "device"
        assert alloc.spill_min == 4 << 20  # restored
        # never below SMALL_BYTES
        with alloc.host_scope(1):
            assert alloc(SMALL_BYTES - 1).where == "device"
    assert alloc.spill_min is None and alloc(4 << 20).where == "device"
    assert alloc.overflows == 0


def test_host_accounting_follows_frees():
    alloc, _ = make(4 << 20)
    with alloc.host_scope(SMALL_BYTES):
        a = alloc(3 << 20)
        b = alloc(5 << 20)
    assert alloc.host_bytes == 8 << 20 and alloc.host_allocations == 2
    del a
    gc.collect()
    assert alloc.host_bytes == 5 << 20 and alloc.host_peak == 8 << 20
    del b
    gc.collect()
    assert alloc.host_bytes == 0 and alloc.stats()["host_peak"] == 8 << 20


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_traffic_stays_within_budget(seed):
    """Under random allocations and frees (some in host scopes), the device pool never holds
    more than the budget, every request is served, and the live host bytes equal the sum of
    the live host blocks."""
    rng = np.random.default_rng(seed)
    budget_bytes = int(rng.integers(8 << 20, 64 << 20))
    alloc, pool = make(budget_bytes, caching=bool(seed % 2))
    live: list[Block] = []
    written = 0
    for step in range(2000):
        if live and rng.random() < 0.45:
            live.pop(int(rng.integers(len(live))))
        else:
            size = int(rng.choice([rng.integers(1, SMALL_BYTES),
                                   rng.integers(SMALL_BYTES, budget_bytes)]))  # fmt: skip
            if step % 7 == 0:
                with alloc.host_scope(int(rng.integers(SMALL_BYTES, budget_bytes))):
                    live.append(alloc(size))
            else:
                live.append(alloc(size))
            written += size if live[-1].where == "host" else 0
        assert pool.used <= budget_bytes and alloc.device_peak <= budget_bytes
        assert alloc.host_bytes == sum(b.size for b in live if b.where == "host")
    s = alloc.stats()
    assert s["device_used_peak"] <= s["device_peak"] <= budget_bytes
    assert s["host_peak"] >= alloc.host_bytes
    assert s["phases"]["other"]["host_written"] == written > 0


def test_phases_and_bus_estimate():
    alloc, _ = make(4 << 20)
    keep = []
    with alloc.in_phase("upload"):
        with alloc.host_scope(SMALL_BYTES):
            keep.append(alloc(2 << 20))
    with alloc.in_phase("refinement", host_read=2 << 20):
        keep.append(alloc(1000))  # device: nothing crosses
        with alloc.in_phase("contraction", host_read=123):
            keep.append(alloc(6 << 20))  # over the budget: host
        alloc.note_moved(4096)
    s = alloc.stats()
    p = s["phases"]
    assert p["upload"] == {"host_written": 2 << 20, "host_read": 0, "moved_to_device": 0,
                           "bus_bytes": 2 << 20}  # fmt: skip
    assert p["refinement"]["host_read"] == 2 << 20 and p["refinement"]["moved_to_device"] == 4096
    assert p["contraction"]["host_written"] == 6 << 20 and p["contraction"]["host_read"] == 123
    assert s["bus_bytes"] == sum(row["bus_bytes"] for row in p.values())
    assert s["bus_bytes"] == (2 << 20) + (2 << 20) + 4096 + (6 << 20) + 123
    assert alloc.phase == "other"


def test_small_requests_scale_with_small_budgets():
    alloc, _ = make(1 << 30, small=None)
    assert alloc.small_bytes == SMALL_BYTES
    alloc, _ = make(1 << 20, small=None)
    assert alloc.small_bytes == (1 << 20) // SMALL_DIVISOR
    with alloc.host_scope(0):
        assert alloc(alloc.small_bytes).where == "host"
        assert alloc(alloc.small_bytes - 1).where == "device"


def test_bad_budget():
    with pytest.raises(ValueError, match="budget"):
        make(0)


def test_level_rules():
    k = 4
    n, m, pins = 100_000, 110_000, 350_000
    need = budget.level_bytes(n, m, pins, k)
    assert level_on_host(int(need / LEVEL_SHARE) - 1, n, m, pins, k)
    assert not level_on_host(int(need / LEVEL_SHARE) + 1, n, m, pins, k)
    # a larger level, or more blocks (Phi), needs more
    b = int(need / LEVEL_SHARE) + 1
    assert level_on_host(b, n, m, pins + 1000, k) and level_on_host(b, n, m, pins, k + 1)
    # as few pin arrays move as bring the level within the share: none, eind, then both
    assert pins_to_host(b, n, m, pins, k) == ()
    one = int((need - 4 * pins) / LEVEL_SHARE)  # eind alone brings it down to the share
    assert pins_to_host(one, n, m, pins, k) == ("eind",)
    assert pins_to_host(one - 8, n, m, pins, k) == ("eind", "vind")
    assert pins_to_host(1, n, m, pins, k) == ("eind", "vind")
    for bb in (b // 2, one, one - 8, 1000):
        assert bool(pins_to_host(bb, n, m, pins, k)) == level_on_host(bb, n, m, pins, k)


def test_partition_reports_the_scope_accounting():
    """The driver runs the partition inside the backend's memory scope and reports its
    accounting as ``Partition.memory`` (also in ``to_dict``)."""
    import contextlib

    from igpart.kernels.cpu import CpuBackend

    class Scoped(CpuBackend):
        def __init__(self):
            super().__init__()
            self.alloc, _ = make(64 << 20)

        @contextlib.contextmanager
        def memory_scope(self, k):
            with self.alloc.in_phase("upload"), self.alloc.host_scope(SMALL_BYTES):
                self.kept = self.alloc(3 << 20)
            yield self.alloc

    h = random_circuit(1500, seed=4)
    p = partition(h, 2, backend=Scoped(), seed=0)
    plain = partition(h, 2, backend="cpu", seed=0)
    assert np.array_equal(p.parts, plain.parts)
    assert p.memory["host_peak"] == 3 << 20 and p.memory["budget"] == 64 << 20
    assert p.to_dict()["memory"]["phases"]["upload"]["host_written"] == 3 << 20


def test_cpu_backend_has_no_memory_scope():
    h = random_circuit(1500, seed=4)
    be = get_backend("cpu", memory_budget="1GiB")
    with be.memory_scope(2) as mem:
        assert mem is None
    p = partition(h, 2, backend="cpu", seed=0)
    assert p.memory == {} and "memory" not in p.to_dict()


def _overflow_from_a_helper(alloc, size):
    return alloc(size)


def test_overflow_requests_name_their_site():
    """Requests the budget sends to the host are listed by phase, size and the code that made
    them (the allocator's own frames skipped); host scopes are not overflows."""
    alloc, _ = make(8 << 20, site=call_site)
    keep = [alloc(6 << 20)]  # device
    with alloc.in_phase("coarsening"):
        keep += [_overflow_from_a_helper(alloc, 4 << 20) for _ in range(3)]
        keep.append(alloc(5 << 20))
        with alloc.host_scope(SMALL_BYTES):
            keep.append(alloc(2 << 20))  # asked for: not an overflow
    assert [b.where for b in keep] == ["device"] + ["host"] * 5
    rows = alloc.stats()["overflow_requests"]
    assert [(r["phase"], r["bytes"], r["count"]) for r in rows] == [
        ("coarsening", 4 << 20, 3), ("coarsening", 5 << 20, 1)]
    assert rows[0]["site"].startswith("test_placement.py:")
    assert rows[0]["site"].endswith(" _overflow_from_a_helper")
    assert rows[1]["site"].endswith(" test_overflow_requests_name_their_site")
    assert alloc.overflows == 4
    # without a site function the rows still count, with an empty site
    plain, _ = make(1 << 20)
    held = [plain(4 << 20), plain(4 << 20)]
    assert plain.stats()["overflow_requests"] == [
        {"phase": "other", "bytes": 4 << 20, "count": 2, "site": ""}]
    del held


def test_call_site_names_igpart_frames(monkeypatch):
    """Inside igpart's code the site is the innermost igpart frames outside the placement
    machinery, with the path within the package (here an allocation made by a function that
    budget.coarse_minimum calls)."""
    alloc, _ = make(1 << 20, site=call_site)
    held = []
    monkeypatch.setattr(budget, "level_bytes", lambda *a: held.append(alloc(4 << 20)) or 0)
    budget.coarse_minimum(1000, 1000, 4000, 2)
    assert held[0].where == "host"
    (row,) = alloc.stats()["overflow_requests"]
    first = row["site"].split(" < ")[0]
    assert first.startswith("kernels/budget.py:") and first.endswith(" coarse_minimum"), row
    assert call_site().startswith("test_placement.py:")


def test_level_need():
    k = 4
    n, m, pins = 100_000, 110_000, 350_000
    need = budget.level_bytes(n, m, pins, k)
    assert level_need(1 << 40, n, m, pins, k) == need
    one = int((need - 4 * pins) / LEVEL_SHARE)
    assert level_need(one, n, m, pins, k) == need - 4 * pins
    assert level_need(1000, n, m, pins, k) == need - 8 * pins


def test_level_residency_spills_idle_levels_least_recent_first():
    r = LevelResidency(1000)  # the levels' room: 500 bytes
    assert r.room == LEVEL_SHARE * 1000
    for key, b in (("L0", 200), ("L1", 120), ("L2", 60)):
        r.update(key, b)
    # a level that fits beside the others moves nothing
    assert r.use("L2", 100) == []
    # the contraction of L2 (output unknown, bounded by L2's need 300): 380 idle + 300 > 500,
    # the least recently used go first until the rest fits
    assert r.use(None, 300) == ["L0"]
    r.update("L0", 0)
    assert r.use(None, 400) == ["L1"]
    r.update("L1", 0)
    r.update("L3", 30)  # the contraction's output, placed
    assert r.use("L3", 60) == []
    # refinement goes back up: L1 comes back (its bytes reported again), the coarser idle
    # levels are spilled before it when they crowd it
    assert r.use("L1", 450) == ["L2"]
    r.update("L2", 0)
    r.update("L1", 120)
    assert r.use("L0", 450) == ["L3", "L1"]
    # the level worked on is never spilled, even alone over the room
    r.update("L3", 0), r.update("L1", 0)
    r.update("L0", 200)
    assert r.use("L0", 10_000) == []
    r.forget("L0")
    assert "L0" not in r and r.use(None, 10_000) == []


@pytest.mark.parametrize("seed", [0, 1])
def test_level_residency_keeps_the_levels_within_their_room(seed):
    """Under random use, after the returned levels are spilled the idle levels' bytes plus the
    need fit the room whenever the level under way alone does; spilled levels are idle ones."""
    rng = np.random.default_rng(seed)
    r = LevelResidency(10_000)
    held = {}
    for step in range(500):
        key = int(rng.integers(8))
        if key not in held or rng.random() < 0.3:
            held[key] = int(rng.integers(0, 2000))
            r.update(key, held[key])
        target = key if rng.random() < 0.8 else None
        need = int(rng.integers(0, 6000))
        out = r.use(target, need)
        assert target not in out and len(set(out)) == len(out)
        assert all(held[o] > 0 for o in out)
        last = held[out[-1]] if out else 0
        for o in out:
            held[o] = 0
            r.update(o, 0)
        idle = sum(b for k, b in held.items() if k != target)
        # within the room, unless nothing idle is left to spill
        assert need + idle <= r.room or idle == 0, step
        # and no more than needed: without the last one spilled it did not fit
        assert not out or need + idle + last > r.room, step


def test_level_moves_are_reported():
    alloc, _ = make(64 << 20)
    alloc.note_level(True, 5 << 20)
    alloc.note_level(True, 3 << 20)
    alloc.note_level(False, 5 << 20)
    assert alloc.stats()["level_moves"] == {"spilled": 2, "spilled_bytes": 8 << 20,
                                            "restored": 1, "restored_bytes": 5 << 20}


def test_room_follows_the_device_bytes():
    alloc, pool = make(64 << 20)
    assert alloc.room() == (64 << 20) - alloc.reserve
    a = alloc(8 << 20)
    assert alloc.room() == (64 << 20) - alloc.reserve - pool.used
    # a request of exactly the room stays on the device; one byte more would not have
    b = alloc(alloc.room())
    assert b.where == "device" and alloc.room() == 0 and alloc.overflows == 0
    del a, b
    gc.collect()
    assert alloc.room() == (64 << 20) - alloc.reserve
