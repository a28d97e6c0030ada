"""A sub-allocator over one fixed region of bytes: offsets in, offsets out.

A full partition under a device memory budget makes one device allocation of the budget and
places every array of the run inside it (``kernels/gpu/_outofcore.py``), so that no allocation
of the run reaches the driver (a driver allocation, and above all a driver free, synchronises
the device). This module is the bookkeeping of that region, over plain integers: it knows
nothing of devices and is tested on the CPU.

Blocks are aligned to :data:`ALIGNMENT` bytes (sizes rounded up). :meth:`Arena.alloc` takes
the smallest free range that holds the request (best fit; the lowest offset among equals), so
small requests fill holes and the high-water mark stays low; :meth:`Arena.free` merges the range
with free neighbours, so the free list never holds two adjacent ranges. Requests come by the
thousand per partition, not by the million: the free list is a pair of dicts plus a sorted list
searched by bisection.
"""

from __future__ import annotations

import bisect

#: Offsets and sizes are multiples of this many bytes (as CuPy's pool rounds its blocks).
ALIGNMENT = 512


def aligned(size: int) -> int:
    """``size`` rounded up to a multiple of :data:`ALIGNMENT` (at least one unit)."""
    return max(ALIGNMENT, -(-int(size) // ALIGNMENT) * ALIGNMENT)


class Arena:
    """Best-fit allocation of ``capacity`` bytes (rounded down to :data:`ALIGNMENT`) with
    coalescing of freed neighbours. ``used``: bytes of live blocks (aligned sizes);
    ``high_water``: the largest end offset a block ever had (the region's bytes ever touched)."""

    def __init__(self, capacity: int) -> None:
        if int(capacity) < 0:
            raise ValueError(f"Arena: capacity must not be negative, got {capacity}")
        self.capacity = int(capacity) // ALIGNMENT * ALIGNMENT
        #: free ranges: start -> size, end -> start, and (size, start) sorted
        self._free_at: dict[int, int] = {}
        self._free_end: dict[int, int] = {}
        self._by_size: list[tuple[int, int]] = []
        #: live blocks: start -> aligned size
        self._live: dict[int, int] = {}
        self.used = 0
        self.high_water = 0
        #: frees that arrived while the free list was being changed (a garbage collection
        #: inside alloc or free runs owners' finalisers): applied when that change is done
        self._busy = False
        self._pending: list[int] = []
        if self.capacity:
            self._add_free(0, self.capacity)

    # ------------------------------------------------------------------ free list
    def _add_free(self, start: int, size: int) -> None:
        self._free_at[start] = size
        self._free_end[start + size] = start
        bisect.insort(self._by_size, (size, start))

    def _remove_free(self, start: int) -> int:
        size = self._free_at.pop(start)
        del self._free_end[start + size]
        i = bisect.bisect_left(self._by_size, (size, start))
        del self._by_size[i]
        return size

    # ------------------------------------------------------------------ interface
    def alloc(self, size: int) -> int | None:
        """The offset of a new block of at least ``size`` bytes, or None when no free range
        holds it (the arena is full or too fragmented)."""
        need = aligned(size)
        self._busy = True
        try:
            i = bisect.bisect_left(self._by_size, (need, -1))
            if i == len(self._by_size):
                return None
            have, start = self._by_size[i]
            self._remove_free(start)
            if have > need:
                self._add_free(start + need, have - need)
            self._live[start] = need
            self.used += need
            if start + need > self.high_water:
                self.high_water = start + need
            return start
        finally:
            self._settle()

    def free(self, offset: int) -> None:
        """Returns the block at ``offset`` to the free list, merged with free neighbours."""
        if self._busy:  # reentered from a finaliser: after the change under way
            self._pending.append(offset)
            return
        self._busy = True
        try:
            self._free(offset)
        finally:
            self._settle()

    def _settle(self) -> None:
        try:
            while self._pending:
                self._free(self._pending.pop())
        finally:
            self._busy = False

    def _free(self, offset: int) -> None:
        size = self._live.pop(offset, None)
        if size is None:
            raise ValueError(f"Arena.free: no live block at offset {offset}")
        self.used -= size
        start, end = offset, offset + size
        before = self._free_end.get(start)
        if before is not None:
            self._remove_free(before)
            start = before
        if end in self._free_at:
            end += self._remove_free(end)
        self._add_free(start, end - start)

    def size_of(self, offset: int) -> int:
        """The aligned size of the live block at ``offset``."""
        return self._live[offset]

    @property
    def live_blocks(self) -> int:
        return len(self._live)

    def largest_free(self) -> int:
        """The size of the largest free range (0 when full)."""
        return self._by_size[-1][0] if self._by_size else 0

    def free_ranges(self) -> list[tuple[int, int]]:
        """The free ranges as (start, size), by start."""
        return sorted(self._free_at.items())


__all__ = ["ALIGNMENT", "Arena", "aligned"]
