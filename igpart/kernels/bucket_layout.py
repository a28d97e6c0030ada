"""Initial bucket-list layout of the dynamic hypergraph (numpy only): each list gets
ceil(D / 32) + gamma contiguous buckets of 32 slots in one pool, as the C++ builder lays them out.
The GPU backend builds its device structure from it (igpart/kernels/gpu/_dynamic.py)."""

from __future__ import annotations

import math

import numpy as np

#: Slots per bucket (IGP_BUCKET_SLOTS of kernels/common/bucket.h): one per lane of a warp.
BUCKET = 32


def layout_lists(ptr: np.ndarray, vals: np.ndarray, owners: int, gamma: int, headroom: float):
    """Bucket-list layout of `owners` lists given as CSR (ptr, vals), with ceil(D / 32) + gamma
    contiguous buckets per list: (head, tail, nb, size, slot, next, used) as numpy arrays, pools
    sized with headroom. Pure array code (numpy), shared with the tests."""
    sizes = np.diff(ptr).astype(np.int64)
    nb = (-(-sizes // BUCKET) + gamma).astype(np.int64)
    used = int(nb.sum())
    cap = max(1, used + int(math.ceil(used * headroom)))
    head = np.full(owners, -1, dtype=np.int64)
    start = np.zeros(owners, dtype=np.int64)
    if owners:
        start[1:] = np.cumsum(nb)[:-1]
    has = nb > 0
    head[has] = start[has]
    tail = np.where(has, start + nb - 1, -1)
    nxt = np.full(cap, -1, dtype=np.int64)
    nxt[:used] = np.arange(1, used + 1)
    nxt[tail[has]] = -1
    slot = np.full(cap * BUCKET, -1, dtype=np.int32)
    owner_of = np.repeat(np.arange(owners, dtype=np.int64), sizes)
    rank = np.arange(vals.size, dtype=np.int64) - np.repeat(ptr[:-1].astype(np.int64), sizes)
    slot[start[owner_of] * BUCKET + rank] = vals
    return head, tail, nb.astype(np.int32), sizes.astype(np.int32), slot, nxt, used
