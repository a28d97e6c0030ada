"""Full partitions under a device memory budget: the CuPy side of ``kernels/placement.py``.

:func:`budget_scope` installs a :class:`igpart.kernels.placement.BudgetAllocator` as this
thread's CuPy allocator (``cupy.cuda.using_allocator``) for the duration of a partition: device
allocations are blocks of one device allocation of the budget made when the scope opens
(:class:`igpart.kernels.arena.Arena` keeps its free list; a freed block is reused by the next
request at once, which is safe since the run's work is on one stream), host ones come from
a ``cupy.cuda.PinnedMemoryPool``, wrapped as device memory (``cupy.cuda.UnownedMemory`` at the
host address: under unified virtual addressing page-locked host memory is mapped into the
device's address space at the same address, so the unchanged kernels, CuPy's elementwise
kernels and CUB's sorts and scans read and write it over the bus). Outside the scope nothing
changes: without a budget the backend never enters it.

Kernel code that allocates arrays written and read in order, in the same streams as a
host-resident one (the transpose's pin-to-net ids beside a level's pins, Jet's compacted
candidates), allocates them inside :func:`beside`, which puts them in host memory too while
that one is there. Arrays updated in place at random (sorted per segment, counters searched and
incremented) stay on the device: each such update over the bus would be a round trip.

Copies that involve such an array go through :func:`asnumpy` / :func:`fill` (plain host copies
after a stream synchronisation) or ``cudaMemcpyDefault`` (device-to-device copies), never
through a copy whose direction names the device.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Iterator

import cupy as cp
import numpy as np

from ..arena import Arena
from ..placement import BudgetAllocator, call_site

#: Budget scopes open in this process (:func:`active`).
_ACTIVE = 0
#: The allocator of this thread's open budget scope (``_CURRENT.alloc``; None outside one).
_CURRENT = threading.local()


def active() -> bool:
    """Whether a budget scope is open: uploads then check where their destination landed."""
    return _ACTIVE > 0


class _HostBlock:
    """Owner of one page-locked host allocation: keeps the pinned pool's pointer alive and
    tells the allocator when the last array over it is gone."""

    __slots__ = ("pointer", "release", "size")

    def __init__(self, pointer, size: int, release) -> None:
        self.pointer = pointer
        self.size = size
        self.release = release

    def __del__(self) -> None:
        self.release(self.size)


def _host_malloc(pool: cp.cuda.PinnedMemoryPool, device_id: int):
    def malloc(size: int, release) -> cp.cuda.MemoryPointer:
        pointer = pool.malloc(size)
        owner = _HostBlock(pointer, size, release)
        return cp.cuda.MemoryPointer(
            cp.cuda.UnownedMemory(int(pointer.ptr), size, owner, device_id), 0)

    return malloc


class _DeviceBlock:
    """Owner of one block of the budget's device allocation (``region``, kept alive while the
    block is): returns it to the arena when the last array over it is gone."""

    __slots__ = ("arena", "offset", "region")

    def __init__(self, arena: Arena, offset: int, region) -> None:
        self.arena = arena
        self.offset = offset
        self.region = region

    def __del__(self) -> None:
        self.arena.free(self.offset)


def _device_malloc(arena: Arena, holder: list, device_id: int):
    """Allocations of the arena over the device allocation ``holder[0]``: None when it has no
    room. (Emptying ``holder`` leaves the region to the blocks still alive.)"""
    unowned, pointer, block = cp.cuda.UnownedMemory, cp.cuda.MemoryPointer, _DeviceBlock
    base = int(holder[0].ptr)

    def malloc(size: int):
        offset = arena.alloc(size)
        if offset is None:
            return None
        owner = block(arena, offset, holder[0])
        return pointer(unowned(base + offset, size, owner, device_id), 0)

    return malloc


def _region(budget: int):
    """One device allocation of ``budget`` bytes; None when the device has less free (the
    default pool's cached blocks released first): the budget does not bind then."""
    free = int(cp.cuda.runtime.memGetInfo()[0])
    if budget > free:
        cp.get_default_memory_pool().free_all_blocks()
        free = int(cp.cuda.runtime.memGetInfo()[0])
    if budget > free - free // 64:  # leave the driver some room
        return None
    return cp.cuda.Memory(budget)


def _allocator(budget: int, host_malloc):
    """The :class:`BudgetAllocator` of ``budget`` device bytes and what closes it (the device
    allocation then belongs to the blocks still alive). Under a budget the device can hold:
    blocks of one device allocation of the budget (an :class:`Arena`); over what it has free
    (an unbounded budget): a private, unlimited ``cupy.cuda.MemoryPool``, as in memory."""
    region = _region(budget)
    if region is None:
        pool = cp.cuda.MemoryPool()
        alloc = BudgetAllocator(budget, pool.malloc, pool.used_bytes, pool.total_bytes,
                                host_malloc, site=call_site)
        return alloc, pool.free_all_blocks
    holder = [region]
    arena = Arena(region.size)
    alloc = BudgetAllocator(budget, _device_malloc(arena, holder, cp.cuda.Device().id),
                            lambda: arena.used, lambda: arena.high_water, host_malloc,
                            site=call_site)
    return alloc, holder.clear


@contextlib.contextmanager
def budget_scope(budget: int) -> Iterator[BudgetAllocator]:
    """This thread's CuPy allocations inside the block placed by a fresh
    :class:`BudgetAllocator` of ``budget`` device bytes (yielded, for its placement scopes and
    its accounting). The device allocation of the budget is made once here; it is released
    with the last array over it, the pinned pool's cached blocks at the end. Its
    ``device_peak`` is the allocation's high-water mark."""
    pinned_pool = cp.cuda.PinnedMemoryPool()
    alloc, close = _allocator(int(budget), _host_malloc(pinned_pool, cp.cuda.Device().id))
    global _ACTIVE
    _ACTIVE += 1
    saved, _CURRENT.alloc = getattr(_CURRENT, "alloc", None), alloc
    try:
        with cp.cuda.using_allocator(alloc):
            yield alloc
    finally:
        _ACTIVE -= 1
        _CURRENT.alloc = saved
        cp.cuda.get_current_stream().synchronize()
        pinned_pool.free_all_blocks()
        close()


def is_host(a) -> bool:
    """Whether the CuPy array ``a`` lives in page-locked host memory of a budget scope."""
    mem = getattr(getattr(a, "data", None), "mem", None)
    return isinstance(mem, cp.cuda.UnownedMemory) and isinstance(mem._owner, _HostBlock)


def _host_view(a: cp.ndarray) -> np.ndarray:
    """A numpy view of the C-contiguous host-resident array ``a`` (no copy)."""
    raw = (ctypes.c_char * a.nbytes).from_address(int(a.data.ptr))
    return np.frombuffer(raw, dtype=a.dtype).reshape(a.shape)


def asnumpy(a) -> np.ndarray:
    """``cupy.asnumpy(a)``, reading a host-resident array in place after the stream's work."""
    if not is_host(a):
        return cp.asnumpy(a)
    if not a.flags.c_contiguous:
        a = cp.ascontiguousarray(a)
    cp.cuda.get_current_stream().synchronize()
    return _host_view(a).copy() if a.nbytes else np.empty(a.shape, dtype=a.dtype)


def fill(out: cp.ndarray, host: np.ndarray) -> bool:
    """Copies ``host`` into the freshly allocated ``out`` when ``out`` is host-resident
    (a plain memory copy); False (nothing done) when ``out`` is on the device."""
    if not is_host(out):
        return False
    cp.cuda.get_current_stream().synchronize()
    if out.nbytes:
        np.copyto(_host_view(out), host.reshape(out.shape), casting="no")
    return True


def host_scope(on: bool = True):
    """A host scope of this thread's budget allocator (its large requests inside the block go
    to host memory) when ``on`` and a budget scope is open; else a null context."""
    alloc = getattr(_CURRENT, "alloc", None)
    if not on or alloc is None:
        return contextlib.nullcontext()
    return alloc.host_scope(alloc.small_bytes)


def beside(a):
    """:func:`host_scope` while the array ``a`` is in host memory: arrays allocated in the
    block that kernels read and write in the same streams as ``a`` (per net where ``a`` is a
    level's net -> pin list) live where it does."""
    return host_scope(a is not None and is_host(a))


def host_bytes(arrays) -> int:
    """Bytes of the host-resident arrays among ``arrays``."""
    return sum(int(a.nbytes) for a in arrays if is_host(a))


def to_host(a: cp.ndarray, alloc: BudgetAllocator) -> cp.ndarray:
    """A page-locked host copy of the device array ``a`` (``a`` itself when it is in host memory
    already, or smaller than the allocator's ``small_bytes``, which stay on the device)."""
    if is_host(a) or a.nbytes < alloc.small_bytes:
        return a
    a = cp.ascontiguousarray(a)
    with alloc.host_scope(alloc.small_bytes):
        out = cp.empty(a.shape, dtype=a.dtype)
    out.data.copy_from_device_async(a.data, a.nbytes)  # cudaMemcpyDefault
    return out


def to_device(a: cp.ndarray, alloc: BudgetAllocator) -> cp.ndarray:
    """A device copy of the host-resident ``a`` (``a`` itself otherwise), counted as moved. The
    copy's allocation goes through the allocator: over the budget it stays in host memory."""
    if not is_host(a):
        return a
    a = cp.ascontiguousarray(a)
    out = cp.empty(a.shape, dtype=a.dtype)
    out.data.copy_from_device_async(a.data, a.nbytes)  # cudaMemcpyDefault
    alloc.note_moved(a.nbytes)
    return out


__all__ = ["active", "asnumpy", "beside", "budget_scope", "fill", "host_bytes", "host_scope",
           "is_host", "to_device", "to_host"]
