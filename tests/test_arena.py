"""The sub-allocator of the budget's device allocation (kernels/arena.py), over plain offsets:
alignment, best fit, coalescing, a full arena, and random sequences against a byte map; and
the placement policy over it (a refusal of the arena goes to the host)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from igpart.kernels.arena import ALIGNMENT, Arena, aligned
from igpart.kernels.placement import BudgetAllocator

A = ALIGNMENT


def test_aligned():
    assert aligned(0) == A and aligned(1) == A and aligned(A) == A and aligned(A + 1) == 2 * A
    assert Arena(10 * A + 7).capacity == 10 * A


def test_alloc_free_and_coalescing():
    arena = Arena(8 * A)
    a, b, c = arena.alloc(A), arena.alloc(2 * A - 5), arena.alloc(A)
    assert (a, b, c) == (0, A, 3 * A)
    assert arena.used == 4 * A and arena.high_water == 4 * A
    assert all(o % A == 0 for o in (a, b, c))
    arena.free(b)
    assert arena.free_ranges() == [(A, 2 * A), (4 * A, 4 * A)]
    arena.free(a)  # merges with the range after it
    assert arena.free_ranges() == [(0, 3 * A), (4 * A, 4 * A)]
    arena.free(c)  # merges with both neighbours: one range again
    assert arena.free_ranges() == [(0, 8 * A)] and arena.used == 0 and arena.live_blocks == 0
    assert arena.high_water == 4 * A  # the peak stays


def test_best_fit_prefers_the_smallest_hole_then_the_lowest():
    arena = Arena(16 * A)
    blocks = [arena.alloc(s * A) for s in (3, 1, 2, 1, 1, 1)]  # 0, 3, 4, 6, 7, 8
    arena.free(blocks[0])  # hole of 3 at 0
    arena.free(blocks[2])  # hole of 2 at 4
    arena.free(blocks[4])  # hole of 1 at 7
    assert arena.alloc(2 * A) == 4 * A  # the 2-hole, not the 3-hole nor the tail
    assert arena.alloc(A) == 7 * A
    assert arena.alloc(A) == 0  # the 3-hole at 0 is smaller than the tail (7 at 9)
    assert arena.high_water == 9 * A


def test_full_arena_returns_none_and_changes_nothing():
    arena = Arena(4 * A)
    assert arena.alloc(5 * A) is None
    a = arena.alloc(2 * A)
    b = arena.alloc(A)
    arena.free(a)
    before = (arena.free_ranges(), arena.used, arena.high_water)
    assert arena.alloc(3 * A) is None  # 3 free bytes-units, but not in one range
    assert (arena.free_ranges(), arena.used, arena.high_water) == before
    assert arena.largest_free() == 2 * A
    assert arena.alloc(2 * A) == 0 and arena.alloc(A) == 3 * A and arena.alloc(1) is None
    assert arena.largest_free() == 0
    arena.free(b)
    assert Arena(0).alloc(1) is None


def test_bad_free_and_capacity():
    arena = Arena(4 * A)
    a = arena.alloc(A)
    arena.free(a)
    with pytest.raises(ValueError, match="no live block at offset 0"):
        arena.free(a)
    with pytest.raises(ValueError, match="capacity"):
        Arena(-1)


@pytest.mark.parametrize("seed", range(4))
def test_random_sequences_against_a_byte_map(seed):
    """Random allocations and frees, checked after each step against a brute-force model: live
    blocks never overlap and stay inside, the free list is exactly the complement (merged), and
    a request is refused only when no free run of bytes holds it; best fit agrees with a scan."""
    rng = np.random.default_rng(seed)
    units = 64
    arena = Arena(units * A)
    owner = np.full(units, -1)  # unit -> offset of the block covering it, -1 when free
    live: list[int] = []
    for _ in range(400):
        if live and rng.random() < 0.45:
            off = live.pop(int(rng.integers(len(live))))
            arena.free(off)
            owner[owner == off] = -1
        else:
            size = int(rng.integers(1, 12 * A))
            need = aligned(size) // A
            free = owner == -1
            # free runs of the byte map: (start, length)
            edges = np.flatnonzero(np.diff(np.concatenate(([0], free.astype(int), [0]))))
            runs = list(zip(edges[::2], edges[1::2] - edges[::2]))
            fits = [(n, s) for s, n in runs if n >= need]
            off = arena.alloc(size)
            if not fits:
                assert off is None
                continue
            assert off == min(fits)[1] * A  # best fit, lowest start among equals
            assert (owner[off // A:off // A + need] == -1).all()
            owner[off // A:off // A + need] = off
            live.append(off)
        free = owner == -1
        edges = np.flatnonzero(np.diff(np.concatenate(([0], free.astype(int), [0]))))
        runs = [(int(s) * A, int(e - s) * A) for s, e in zip(edges[::2], edges[1::2])]
        assert arena.free_ranges() == runs
        assert arena.used == int((~free).sum()) * A
        assert arena.live_blocks == len(live)
        assert arena.high_water >= max((o + arena.size_of(o) for o in live), default=0)


class Block:
    def __init__(self, where, size, free, key=None):
        self.where, self.size, self._free, self._key = where, size, free, key

    def __del__(self):
        self._free(self.size if self._key is None else self._key)


def test_budget_allocator_over_an_arena():
    """The placement policy with the arena as its device memory: a request the arena cannot
    place goes to the host (an overflow), freed blocks are reused at once, and the device peak
    is the arena's high-water mark, within the budget."""
    budget = 64 << 20
    arena = Arena(budget)

    def device_malloc(size):
        off = arena.alloc(size)
        return None if off is None else Block("device", size, arena.free, off)

    alloc = BudgetAllocator(budget, device_malloc, lambda: arena.used, lambda: arena.high_water,
                            lambda size, release: Block("host", size, release))
    a = alloc(40 << 20)
    assert a.where == "device"
    small = [alloc(100_000) for _ in range(10)]
    assert all(s.where == "device" for s in small)
    del a
    gc.collect()
    b = alloc(30 << 20)  # reuses the freed range
    assert b.where == "device" and alloc.overflows == 0
    # fragmentation: free every other small block; a request larger than any hole and than
    # the tail goes to the host although the budget's bytes would hold it
    room = budget - arena.high_water
    del small[::2]
    with alloc.in_phase("coarsening"):
        big = alloc(room + 8 * 100_352)
    assert big.where == "host" and alloc.overflows == 1 and alloc.host_bytes == big.size
    with alloc.host_scope(1 << 20):  # sent there on purpose: not an overflow
        assert alloc(2 << 20).where == "host"
    assert alloc.stats()["overflow_requests"] == [
        {"phase": "coarsening", "bytes": big.size, "count": 1, "site": ""}]
    assert alloc.device_peak == arena.high_water <= budget
    assert alloc.device_used_peak <= alloc.device_peak


def test_free_reentered_from_a_finaliser_is_deferred():
    """A garbage collection inside alloc may run an owner's finaliser that frees a block: the
    free waits until the free list is consistent, and the result is the same as in order."""
    arena = Arena(8 * A)
    a, b = arena.alloc(A), arena.alloc(A)
    real_add = arena._add_free

    def add_free_with_gc(start, size):
        arena._add_free = real_add
        arena.free(a)  # as a finaliser would, in the middle of alloc
        assert arena.live_blocks == 2  # deferred (b and a still live)
        real_add(start, size)

    arena._add_free = add_free_with_gc
    c = arena.alloc(A)
    assert c == 2 * A and arena.live_blocks == 2
    arena.free(b)
    arena.free(c)
    assert arena.free_ranges() == [(0, 8 * A)] and arena.used == 0
