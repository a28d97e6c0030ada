"""Launch helpers shared by the GPU launchers: grid sizes, a launch counter, scans, scatters,
segment ids and segmented sorts."""

from __future__ import annotations

import functools

import cupy as cp
import numpy as np

from ._loader import kernel

THREADS = 256  # IGP_BLOCK_THREADS in igpart_gpu.cuh: kernels size shared scratch with it
#: Grid-stride kernels never launch more blocks than this (16 blocks per H100 SM).
MAX_BLOCKS = 132 * 16
#: Segments (nets, vertex lists) of at most this many values are sorted by one thread each;
#: longer ones by a block each (contract.cu sort_listed_segments).
SMALL_SEGMENT = 64


class Stats:
    """Kernel launches issued by the launchers (RawKernel launches plus the CuPy array
    operations they call, counted one per call)."""

    def __init__(self) -> None:
        self.launches = 0

    def add(self, count: int = 1) -> None:
        self.launches += count


STATS = Stats()

#: Kernel profile: None (off), or a dict ``"source.kernel" -> [(start, end) CUDA events]``
#: filled by :func:`launch` (see :func:`profile_start` / :func:`profile_stop`).
PROFILE: dict | None = None


def profile_start() -> None:
    """Records a pair of CUDA events around every RawKernel launch from now on (no extra
    synchronisation; CuPy's own array operations are not recorded)."""
    global PROFILE
    PROFILE = {}


def profile_stop() -> dict[str, tuple[int, float]]:
    """Stops recording; returns ``"source.kernel" -> (launches, total milliseconds)``."""
    global PROFILE
    rec, PROFILE = PROFILE or {}, None
    cp.cuda.get_current_stream().synchronize()
    return {name: (len(ev), float(sum(cp.cuda.get_elapsed_time(a, b) for a, b in ev)))
            for name, ev in rec.items()}  # fmt: skip


#: A NULL pointer argument (8 zero bytes) for optional array parameters of the kernels.
NULL = np.uint64(0)


def blocks_for(work: int, per_block: int = THREADS) -> int:
    return int(max(1, min(MAX_BLOCKS, -(-int(work) // per_block))))


def launch(
    source: str,
    name: str,
    work: int,
    args: tuple,
    *,
    warps: bool = False,
    shared: int = 0,
    single_block: int = 0,
) -> None:
    """Launches ``name`` from ``<source>.cu`` on a grid-stride grid for ``work`` items (threads,
    or warps when ``warps``), or on one block of ``single_block`` threads when given."""
    if work <= 0:
        return
    per_block = THREADS // 32 if warps else THREADS
    fn = kernel(source, name)
    grid = (1,) if single_block else (blocks_for(work, per_block),)
    block = (single_block or THREADS,)
    if PROFILE is None:
        fn(grid, block, args, shared_mem=shared)
    else:
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn(grid, block, args, shared_mem=shared)
        end.record()
        PROFILE.setdefault(f"{source}.{name}", []).append((start, end))
    STATS.add()


def i64(x) -> np.int64:
    return np.int64(x)


def i32(x) -> np.int32:
    return np.int32(x)


#: Arrays of at most this many values are scanned by one block (``scan.cu``, one launch)
#: instead of CuPy's device-wide scan (a type conversion, two CUB launches and ~50 us of host
#: time per call, measured on the H100; ~900 calls in a k = 2 run of ibm01x200). One block
#: streams 2^17 values in a few tens of microseconds. Tests lower it to 0 and raise it.
SCAN_ONE_BLOCK_MAX = 1 << 17
SCAN_THREADS = 1024
_SCANS = {  # (input dtype char, output dtype char) -> kernel
    ("b", "i"): "scan_i8_i32", ("b", "l"): "scan_i8_i64",
    ("B", "i"): "scan_u8_i32", ("B", "l"): "scan_u8_i64",
    ("?", "i"): "scan_u8_i32", ("?", "l"): "scan_u8_i64",
    ("i", "i"): "scan_i32_i32", ("i", "l"): "scan_i32_i64", ("l", "l"): "scan_i64_i64",
}


def cumsum(a, dtype=None, out=None):
    """``cp.cumsum(a, dtype=dtype, out=out)`` of a 1-D array (the same values and result
    type); one launch of ``scan.cu`` for contiguous arrays of at most ``SCAN_ONE_BLOCK_MAX``
    values of the common integer types."""
    if dtype is None:
        dtype = out.dtype if out is not None else np.cumsum(np.zeros(0, a.dtype)).dtype
    dtype = cp.dtype(dtype)
    n = int(a.shape[0])
    name = _SCANS.get((a.dtype.char, dtype.char))
    if (name is None or n > SCAN_ONE_BLOCK_MAX or a.ndim != 1 or not a.flags.c_contiguous
            or (out is not None and (out.dtype != dtype or not out.flags.c_contiguous))):
        STATS.add()
        return cp.cumsum(a, dtype=dtype, out=out)
    if out is None:
        out = cp.empty(n, dtype=dtype)
    launch("scan", name, n, (i64(n), a, out), single_block=SCAN_THREADS)
    return out


def exclusive_cumsum(a, dtype=cp.int64):
    """[0, a0, a0+a1, ...] (length len(a)+1)."""
    out = cp.empty(a.shape[0] + 1, dtype=dtype)
    out[:1] = 0
    if a.shape[0]:
        cumsum(a, dtype=dtype, out=out[1:])
    STATS.add()
    return out


def scatter_add(idx, val, size: int):
    """int64 array of length ``size`` with ``val[i]`` (or 1 when None) added at ``idx[i]``."""
    out = cp.zeros(size, dtype=cp.int64)
    STATS.add()
    if idx.shape[0]:
        launch(
            "util",
            "scatter_add_i64",
            idx.shape[0],
            (i64(idx.shape[0]), idx, val if val is not None else NULL, out),
        )
    return out


def segment_ids(ptr, total: int):
    """int32 array of length ``total``: the segment of every slot of a CSR ``ptr``."""
    seg = cp.empty(total, dtype=cp.int32)
    STATS.add()
    nseg = ptr.shape[0] - 1
    launch("util", "fill_segment_ids", nseg, (i64(nseg), ptr, seg), warps=True)
    return seg


#: Key arrays whose power-of-two padding takes at most this many bytes are sorted by one block
#: in shared memory (``util.block_sort_*``, one launch, no host synchronisation) instead of by
#: CuPy's device-wide sort (H100: ~90 us of host time and a synchronisation for 5,000 keys, ~30
#: us for 100); capped by the device's opt-in shared memory per block. Up to 2,048 64-bit keys:
#: the bitonic sort's device time grows as n log^2 n (with up to 16k keys, ~60 us per sort on
#: average in Jet's iterations at k = 64 on the H100), and with 128 KB the Jet phase was no
#: faster end to end within the run-to-run noise (A/B on ibm01x200 / ibm09x100, k = 2 and 64).
#: Tests lower it to 0 and raise it.
BLOCK_SORT_BYTES = 16 * 1024
BLOCK_SORT_THREADS = 1024


@functools.cache
def _block_sort_limit(dev: int) -> int:
    """Shared bytes the block sorts may use on device ``dev`` (their opt-in set once)."""
    props = cp.cuda.runtime.getDeviceProperties(dev)
    limit = int(props.get("sharedMemPerBlockOptin", 0)) or 48 * 1024
    for name in ("block_sort_u64", "block_sort_u32"):
        kernel("util", name).max_dynamic_shared_size_bytes = limit
    return limit


def sort_keys(keys) -> None:
    """Sorts a contiguous 1-D uint64 or uint32 array ascending, in place."""
    n = int(keys.shape[0])
    if n <= 1:
        return
    nbytes = (1 << (n - 1).bit_length()) * keys.itemsize
    if nbytes <= min(BLOCK_SORT_BYTES, _block_sort_limit(cp.cuda.Device().id)):
        name = "block_sort_u64" if keys.itemsize == 8 else "block_sort_u32"
        launch("util", name, n, (i64(n), keys), shared=nbytes, single_block=BLOCK_SORT_THREADS)
        return
    keys.sort()
    STATS.add()


def block_weights(vwgt, parts, k: int):
    """int64 block weights (length k)."""
    out = cp.zeros(k, dtype=cp.int64)
    STATS.add()
    n = parts.shape[0]
    if n == 0:
        return out
    if k * 8 <= 32 * 1024:
        launch("util", "block_weights_shared", n, (i64(n), vwgt, parts, i32(k), out), shared=k * 8)
    else:
        launch("util", "scatter_add_i64", n, (i64(n), parts, vwgt, out))
    return out


def run_starts(keys):
    """For a sorted array: (first position of each element's run of equal keys, per element)."""
    n = keys.shape[0]
    flag = cp.ones(n, dtype=cp.bool_)
    if n > 1:
        cp.not_equal(keys[1:], keys[:-1], out=flag[1:])
    starts = cp.flatnonzero(flag)
    idx = cumsum(flag, dtype=cp.int64) - 1
    STATS.add(5)
    return starts[idx], flag
