"""Where the device allocations of a full partition go under a memory budget (DESIGN §10).

A full partition under ``GpuBackend(memory_budget=...)`` runs the same kernels as in memory;
only where their arrays live changes. Every allocation of the run passes through one
:class:`BudgetAllocator`:

* it goes to device memory while the device's bytes in use stay within the budget (large
  requests keep a reserve of ``budget // RESERVE_DIVISOR`` free for the small ones: per-level
  scalars, block weights, CUB's scratch);
* otherwise, and for every large request inside a :meth:`BudgetAllocator.host_scope`, it goes
  to page-locked host memory that kernels read and write over the bus at the same address (zero
  copy under unified virtual addressing), so the kernels, and hence the results, are the same.

The backend places each hypergraph level as it is built (uploaded or contracted): a level
that does not fit (:func:`level_on_host`) keeps pin arrays in host memory
(:func:`pins_to_host`: the net -> pin list is written there directly, the vertex -> net list,
built by a scatter, is copied there), so the device keeps its per-vertex and per-net arrays,
which kernels read at random; once coarsening reaches a level that fits, whatever of it is in
host memory is copied to the device (:meth:`BudgetAllocator.note_moved`) and the run continues
as in memory. Levels the phase under way does not work on leave the device
(:class:`LevelResidency`): a level is spilled to host memory (one sequential copy) when the
levels would otherwise take more than their share of the budget, the fine level of a
contraction first (the contraction reads it in streams), and copied back before a phase works
on it again (its refinement), so that the device's room goes to the level under way and its
temporaries.

The allocator keeps the accounting a run reports (``Partition.memory``): the device's peak bytes
(the high-water mark of the budget's device allocation), the host-resident bytes and their peak, and
per phase an estimate of the bytes that cross the bus: host allocations (each written at least
once), the host-resident bytes of the level a call works on (read at least once) and the levels
copied to the device. Zero-copy reads repeated within a call are not counted: the estimate is a
lower bound.

This module has no device code: the GPU backend supplies the device allocator (blocks of one
device allocation of the budget, ``kernels/arena.py``) and the host allocator
(``kernels/gpu/_outofcore.py``), the tests supply simulated ones.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from . import budget as _budget

#: Requests below this many bytes (or below budget // SMALL_DIVISOR, if less) go to the device
#: while the budget holds them, and arrays below it stay there.
SMALL_BYTES = 1 << 20
#: ... so that small budgets still see their levels' pin arrays as large.
SMALL_DIVISOR = 64
#: Large requests leave ``budget // RESERVE_DIVISOR`` bytes of the budget to the small ones.
RESERVE_DIVISOR = 16
#: A level whose device bytes (:func:`igpart.kernels.budget.level_bytes`) exceed this share of
#: the budget keeps its pin arrays in host memory.
LEVEL_SHARE = 0.5

#: Rows of the largest requests sent to the host in :meth:`BudgetAllocator.stats`.
OVERFLOW_ROWS = 32

#: Frames of igpart's code that name a request's site (:func:`call_site`), innermost first.
SITE_FRAMES = 2

#: The per-phase counters of :meth:`BudgetAllocator.stats`.
PHASE_KEYS = ("host_written", "host_read", "moved_to_device")


#: The pin arrays of a hypergraph level in the order they move to host memory: the net -> pin
#: lists first (refinement reads them only around boundary nets), then the vertex -> net lists
#: (which gains and pin counts read for every moved or boundary vertex).
PIN_ARRAYS = ("eind", "vind")


def level_on_host(budget: int, n: int, m: int, pins: int, k: int) -> bool:
    """Whether a level of ``n`` vertices, ``m`` nets and ``pins`` pins at ``k`` blocks keeps pin
    arrays in host memory under ``budget``: its device bytes exceed ``LEVEL_SHARE`` of it."""
    return _budget.level_bytes(n, m, pins, k) > LEVEL_SHARE * int(budget)


def pins_to_host(budget: int, n: int, m: int, pins: int, k: int) -> tuple[str, ...]:
    """The pin arrays (of :data:`PIN_ARRAYS`, 4 bytes per pin each) a level moves to host memory
    under ``budget``: as few as bring its device bytes within ``LEVEL_SHARE`` of the budget (both
    when even that is not enough), none when it fits."""
    excess = _budget.level_bytes(n, m, pins, k) - LEVEL_SHARE * int(budget)
    out: list[str] = []
    for name in PIN_ARRAYS:
        if excess <= 0:
            break
        out.append(name)
        excess -= 4 * int(pins)
    return tuple(out)


def level_need(budget: int, n: int, m: int, pins: int, k: int) -> int:
    """Device bytes a level of ``n`` vertices, ``m`` nets and ``pins`` pins at ``k`` blocks
    takes while a phase works on it under ``budget``: its ``budget.level_bytes`` less the pin
    arrays it keeps in host memory (:func:`pins_to_host`)."""
    return (_budget.level_bytes(n, m, pins, k)
            - 4 * int(pins) * len(pins_to_host(budget, n, m, pins, k)))


#: The package's directory and the files of the placement machinery (skipped by
#: :func:`call_site`).
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_MACHINERY = frozenset(os.path.join(_PACKAGE, "kernels", name)
                       for name in ("placement.py", "arena.py", os.path.join("gpu",
                                                                             "_outofcore.py")))
_SKIPPED = (os.sep + "cupy" + os.sep, os.sep + "cupy_backends" + os.sep,
            os.sep + "contextlib.py")


def call_site(frames: int = SITE_FRAMES) -> str:
    """Where the allocation under way was asked for: the innermost ``frames`` frames of
    igpart's code outside the placement machinery (this module, the arena, the GPU side's
    allocator), as ``path:line function`` (path within the package) joined by `` < ``, the
    innermost first; without such a frame, the innermost frame outside the machinery, CuPy and
    ``contextlib``. Called for requests the budget sends to the host only."""
    f = sys._getframe(1)
    out: list[str] = []
    other = None
    while f is not None and len(out) < frames:
        path = f.f_code.co_filename
        if path not in _MACHINERY:
            if path.startswith(_PACKAGE + os.sep):
                out.append(f"{os.path.relpath(path, _PACKAGE)}:{f.f_lineno} {f.f_code.co_name}")
            elif other is None and not any(part in path for part in _SKIPPED):
                other = f"{os.path.basename(path)}:{f.f_lineno} {f.f_code.co_name}"
        f = f.f_back
    return " < ".join(out) if out else (other or "?")


class LevelResidency:
    """Which levels of a partition under a budget keep their arrays on the device.

    The multilevel driver works on one level at a time (clustering, contraction, refinement)
    and holds the others for later (a level is refined long after it was coarsened). Each level
    is a key with its movable device bytes (arrays of at least the allocator's ``small_bytes``
    on the device), kept in the order of use. :meth:`use` says which idle levels to spill to
    host memory before a phase: the least recently used first, as many as bring the idle
    levels' device bytes plus what the level under way needs within ``LEVEL_SHARE`` of the
    budget (the rest of the budget is the phase's temporaries). Under a budget the levels fit,
    nothing moves. The caller moves the arrays and reports each level's bytes with
    :meth:`update`; spilled levels come back when a phase works on them again."""

    def __init__(self, budget: int) -> None:
        #: device bytes the levels may take together
        self.room = LEVEL_SHARE * int(budget)
        self._held: dict[Hashable, int] = {}

    def __contains__(self, key: Hashable) -> bool:
        return key in self._held

    def held(self, key: Hashable) -> int:
        """``key``'s movable device bytes as last reported."""
        return self._held[key]

    def update(self, key: Hashable, device_bytes: int) -> None:
        """``key``'s movable device bytes now (placed, spilled or restored; a new key is the
        most recently used)."""
        self._held[key] = int(device_bytes)

    def forget(self, key: Hashable) -> None:
        """``key`` is gone (the level was dropped)."""
        self._held.pop(key, None)

    def use(self, key: Hashable | None, need: int) -> list[Hashable]:
        """A phase is about to work on level ``key`` (None: on a level about to be built, the
        contraction's output), which needs ``need`` device bytes: ``key`` becomes the most
        recently used, and the idle levels to spill are returned, least recently used
        first."""
        if key in self._held:
            self._held[key] = self._held.pop(key)
        idle = sum(b for other, b in self._held.items() if other != key)
        out: list[Hashable] = []
        for other, b in self._held.items():
            if need + idle <= self.room:
                break
            if other != key and b > 0:
                out.append(other)
                idle -= b
        return out


class BudgetAllocator:
    """Device-or-host placement of allocations under ``budget`` device bytes, with accounting.

    ``device_malloc(size)``: a device allocation, None (or MemoryError) when the device memory
    of the budget cannot hold it; ``device_used()`` / ``device_held()``: bytes handed out on the
    device / the device bytes the run has touched (the GPU backend's arena: its high-water mark;
    a caching pool: its cached free blocks included); ``host_malloc(size, release)``: a host
    allocation whose owner calls ``release(size)`` when freed; ``device_trim()`` (optional, for
    a caching pool that counts its cached blocks against its limit) returns the cached free
    blocks to the device, tried once before a refused request goes to the host; ``site()``
    (optional, e.g. :func:`call_site`) names where a request the budget sends to the host was
    made, for :meth:`stats`. Calling the allocator with a size returns what the chosen malloc
    returned."""

    def __init__(self, budget: int, device_malloc: Callable[[int], Any],
                 device_used: Callable[[], int], device_held: Callable[[], int],
                 host_malloc: Callable[[int, Callable[[int], None]], Any],
                 small_bytes: int | None = None,
                 device_trim: Callable[[], None] | None = None,
                 site: Callable[[], str] | None = None) -> None:
        if int(budget) <= 0:
            raise ValueError("BudgetAllocator: budget must be positive")
        self.budget = int(budget)
        self.reserve = self.budget // RESERVE_DIVISOR
        #: the size below which a request is small (default: ``SMALL_BYTES``, at most
        #: ``budget // SMALL_DIVISOR``)
        self.small_bytes = (min(SMALL_BYTES, self.budget // SMALL_DIVISOR) if small_bytes is None
                            else int(small_bytes))
        self._device_malloc = device_malloc
        self._device_used = device_used
        self._device_held = device_held
        self._host_malloc = host_malloc
        self._device_trim = device_trim
        self._site = site
        #: inside a host scope: requests of at least this many bytes go to host memory
        self.spill_min: int | None = None
        self.phase = "other"
        self.device_peak = 0
        self.device_used_peak = 0
        self.device_allocations = 0
        self.host_bytes = 0
        self.host_peak = 0
        self.host_allocations = 0
        #: requests the budget sent to the host outside a host scope, and how many of them
        #: per (phase, bytes, site; the site "" without ``site``)
        self.overflows = 0
        self.overflow_sizes: dict[tuple[str, int, str], int] = {}
        self.phases: dict[str, dict[str, int]] = {}
        #: levels spilled to host memory / copied back (:class:`LevelResidency`), and their
        #: bytes
        self.level_moves = {"spilled": 0, "spilled_bytes": 0, "restored": 0,
                            "restored_bytes": 0}

    # ------------------------------------------------------------------ placement
    def __call__(self, size: int):
        size = int(size)
        if size >= self.small_bytes:
            if self.spill_min is not None and size >= self.spill_min:
                return self._host(size)
            if self._device_used() + size > self.budget - self.reserve:
                return self._overflow(size)
        out = self._try_device(size)
        if out is None:
            return self._overflow(size)
        self.device_allocations += 1
        self.device_peak = max(self.device_peak, int(self._device_held()))
        self.device_used_peak = max(self.device_used_peak, int(self._device_used()))
        return out

    def room(self) -> int:
        """Bytes a large request can still get on the device (the budget less the reserve of
        the small ones and the bytes in use; a fragmented arena may hold less)."""
        return self.budget - self.reserve - int(self._device_used())

    def _try_device(self, size: int):
        """The device allocation, after one trim of the pool's cache (if any) when refused;
        None if refused still."""
        out = self._device_attempt(size)
        if out is None and self._device_trim is not None:
            self._device_trim()
            out = self._device_attempt(size)
        return out

    def _device_attempt(self, size: int):
        try:
            return self._device_malloc(size)
        except MemoryError:
            return None

    def _overflow(self, size: int):
        self.overflows += 1
        key = (self.phase, size, self._site() if self._site is not None else "")
        self.overflow_sizes[key] = self.overflow_sizes.get(key, 0) + 1
        return self._host(size)

    def _host(self, size: int):
        out = self._host_malloc(size, self._released)
        self.host_bytes += size
        self.host_peak = max(self.host_peak, self.host_bytes)
        self.host_allocations += 1
        self._count("host_written", size)
        return out

    def _released(self, size: int) -> None:
        self.host_bytes -= int(size)

    # ------------------------------------------------------------------ scopes
    @contextlib.contextmanager
    def host_scope(self, spill_min: int) -> Iterator[None]:
        """Requests of at least ``spill_min`` bytes (and never below ``small_bytes``) go to host
        memory inside the block."""
        saved, self.spill_min = self.spill_min, max(int(spill_min), self.small_bytes)
        try:
            yield
        finally:
            self.spill_min = saved

    @contextlib.contextmanager
    def in_phase(self, name: str, host_read: int = 0) -> Iterator[None]:
        """Counts the block's host allocations under phase ``name``, and ``host_read`` bytes of
        host-resident input it reads (at least once)."""
        saved, self.phase = self.phase, name
        self._count("host_read", host_read)
        try:
            yield
        finally:
            self.phase = saved

    def note_moved(self, nbytes: int) -> None:
        """``nbytes`` copied from host memory to the device (a level that fits moved up)."""
        self._count("moved_to_device", nbytes)

    def note_level(self, spilled: bool, nbytes: int) -> None:
        """A level's ``nbytes`` spilled to host memory (``spilled``) or copied back (the copies
        themselves are counted by the host allocation and :meth:`note_moved`)."""
        what = "spilled" if spilled else "restored"
        self.level_moves[what] += 1
        self.level_moves[what + "_bytes"] += int(nbytes)

    def _count(self, key: str, nbytes: int) -> None:
        if nbytes:
            row = self.phases.setdefault(self.phase, dict.fromkeys(PHASE_KEYS, 0))
            row[key] += int(nbytes)

    # ------------------------------------------------------------------ report
    def stats(self) -> dict[str, Any]:
        """The run's accounting: budget, device peak (``device_peak``: device bytes the run
        touched, the high-water mark of the budget's allocation, at most the budget;
        ``device_used_peak``: bytes of live arrays), host bytes, and per phase the bus estimate
        (``bus_bytes``: the sum of the phase's counters, a lower bound), and the largest
        requests the budget sent to the host (``overflow_requests``: up to
        ``OVERFLOW_ROWS`` rows of phase, bytes, count and site, by their bytes in all), and the
        levels spilled to host memory and copied back (``level_moves``)."""
        phases = {name: {**row, "bus_bytes": sum(row.values())}
                  for name, row in self.phases.items()}
        return {
            "budget": self.budget,
            "device_peak": self.device_peak,
            "device_used_peak": self.device_used_peak,
            "device_allocations": self.device_allocations,
            "host_peak": self.host_peak,
            "host_resident": self.host_bytes,
            "host_allocations": self.host_allocations,
            "overflows": self.overflows,
            "overflow_requests": [
                {"phase": ph, "bytes": size, "count": count, "site": site}
                for (ph, size, site), count in sorted(
                    self.overflow_sizes.items(), key=lambda kv: -kv[0][1] * kv[1])[:OVERFLOW_ROWS]
            ],
            "level_moves": dict(self.level_moves),
            "bus_bytes": sum(p["bus_bytes"] for p in phases.values()),
            "phases": phases,
        }


__all__ = [
    "LEVEL_SHARE",
    "SITE_FRAMES",
    "LevelResidency",
    "call_site",
    "level_need",
    "PIN_ARRAYS",
    "PHASE_KEYS",
    "RESERVE_DIVISOR",
    "SMALL_BYTES",
    "SMALL_DIVISOR",
    "BudgetAllocator",
    "level_on_host",
    "pins_to_host",
]
