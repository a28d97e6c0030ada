"""Device memory budgets (DESIGN §10): parsing, and the device bytes a design needs at least.

A budget is a number of bytes of device memory igpart may use: ``GpuBackend(memory_budget=...)``,
the ``IGPART_GPU_MEMORY_BUDGET`` environment variable, the CLI's ``--memory-budget`` and
``Session(memory_budget=...)``. It accepts an integer or a string with a binary or decimal unit
(``"512MiB"``, ``"8G"``, ``"1.5GB"``, ``"4096"``).

Under a budget the dynamic hypergraph keeps its adjacency in a host store (packed-memory-array
CSRs) and the device keeps what every batch touches anyway: per vertex id its status, weight,
block, row index (start, length) and refinement marks; per net id its status, weight,
connectivity, row index, marks and dense block pin counts Phi (4k bytes); the block weights.
That is the minimum (:func:`dynamic_minimum`); the rest of the budget caches hot adjacency rows.
The full partitioner needs at least one level at the coarsening limit on the device
(:func:`coarse_minimum`); the finer levels that do not fit keep their pin arrays in host memory
(:mod:`igpart.kernels.placement`).
"""

from __future__ import annotations

import math
import os
import re

from ..errors import InputError

#: The environment variable of the default device memory budget.
ENV = "IGPART_GPU_MEMORY_BUDGET"

#: Device bytes per vertex id under a budget: status 1, weight 8, block 4, row start 8 and
#: length 4, refinement marks 16.
VERTEX_BYTES = 1 + 8 + 4 + 12 + 16
#: Device bytes per net id under a budget, besides Phi: status 1, weight 8, connectivity 4, row
#: start 8 and length 4, refinement marks 8.
NET_BYTES = 1 + 8 + 4 + 12 + 8
#: Device bytes the GPU dynamic hypergraph keeps whatever the budget when its state lives in
#: host memory: the buffers that follow a batch (records and per-record scratch, about 150
#: bytes a record: this covers batches of about 6,000 records; larger ones grow them), the
#: counters and the kernels' pointer tables; plus 16 bytes per block (block weights).
DYNAMIC_DEVICE_FLOOR = 1 << 20
#: Vertices per block at which the multilevel coarsening stops (DESIGN §4: c = 160).
COARSE_VERTICES_PER_BLOCK = 160

_UNITS = {
    "": 1, "b": 1,
    "k": 1000, "kb": 1000, "kib": 1 << 10,
    "m": 1000**2, "mb": 1000**2, "mib": 1 << 20,
    "g": 1000**3, "gb": 1000**3, "gib": 1 << 30,
    "t": 1000**4, "tb": 1000**4, "tib": 1 << 40,
}  # fmt: skip
_PATTERN = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z]*)\s*$")


def parse_bytes(value, what: str = "memory budget") -> int:
    """Bytes of ``value``: a non-negative integer, or a string such as ``"512MiB"`` / ``"8G"``.
    Raises InputError naming ``what`` and the value."""
    if isinstance(value, bool):
        raise InputError(f"{what} must be a number of bytes, got {value!r}")
    if isinstance(value, int):
        out = value
    elif isinstance(value, float) and value.is_integer():
        out = int(value)
    elif isinstance(value, str):
        m = _PATTERN.match(value)
        unit = m.group(2).lower() if m else None
        if m is None or unit not in _UNITS:
            raise InputError(
                f"{what} must be a number of bytes with an optional unit (B, K, KiB, M, MiB, G, "
                f"GiB, T, TiB), got {value!r}"
            )
        out = math.floor(float(m.group(1)) * _UNITS[unit])
    else:
        raise InputError(f"{what} must be a number of bytes, got {value!r}")
    if out <= 0:
        raise InputError(f"{what} must be positive, got {value!r}")
    return out


def budget_from_env() -> int | None:
    """The budget of ``IGPART_GPU_MEMORY_BUDGET``, or None when it is unset or empty."""
    text = os.environ.get(ENV, "").strip()
    return parse_bytes(text, f"{ENV}") if text else None


def resolve(value) -> int | None:
    """``value`` parsed, or the environment's budget when ``value`` is None."""
    return budget_from_env() if value is None else parse_bytes(value)


def dynamic_minimum(vertex_ids: int, net_ids: int, k: int) -> int:
    """Device bytes the dynamic hypergraph needs under a budget whatever the cache: its
    per-vertex and per-net state (with dense Phi) and the block weights."""
    return int(vertex_ids) * VERTEX_BYTES + int(net_ids) * (NET_BYTES + 4 * int(k)) + 8 * int(k)


def dynamic_host_state_minimum(k: int) -> int:
    """Device bytes the GPU dynamic hypergraph needs with all of its per-vertex and per-net
    state in page-locked host memory (:data:`DYNAMIC_DEVICE_FLOOR` and the block weights)."""
    return DYNAMIC_DEVICE_FLOOR + 16 * int(k)


def require_dynamic_state(budget: int, vertex_ids: int, net_ids: int, k: int) -> None:
    """InputError naming the minimum unless ``budget`` holds the dynamic hypergraph's device
    state (:func:`dynamic_minimum`), the least budget the C++ engine's model accepts."""
    require(budget, dynamic_minimum(vertex_ids, net_ids, k),
            f"the dynamic hypergraph of {vertex_ids:,} vertices and {net_ids:,} nets at k = {k} "
            "(its per-vertex and per-net device state)")  # fmt: skip


def level_bytes(n: int, m: int, pins: int, k: int) -> int:
    """Device bytes of one hypergraph level during partitioning: both incidence directions
    (offsets 8, pins 4 each way), vertex and net weights (8), blocks (4), Phi (4k per net) and
    the block weights."""
    n, m, pins, k = int(n), int(m), int(pins), int(k)
    return 8 * (m + 1) + 8 * (n + 1) + 8 * pins + 8 * (n + m) + 4 * n + 4 * m * k + 8 * k


def coarse_minimum(n: int, m: int, pins: int, k: int) -> int:
    """Device bytes of a level at the coarsening limit (COARSE_VERTICES_PER_BLOCK * k vertices;
    nets and pins shrink in proportion): below this not even the coarse levels fit."""
    n = int(n)
    if n == 0:
        return level_bytes(0, 0, 0, k)
    keep = min(1.0, COARSE_VERTICES_PER_BLOCK * int(k) / n)
    return level_bytes(math.ceil(n * keep), math.ceil(int(m) * keep), math.ceil(int(pins) * keep),
                       k)


def require(budget: int, minimum: int, what: str) -> None:
    """InputError unless ``budget`` covers ``minimum`` bytes, naming both and ``what``."""
    if budget < minimum:
        raise InputError(
            f"memory budget of {budget:,} bytes is below the minimum of {minimum:,} bytes for "
            f"{what}; raise it to at least {minimum:,} (or {_human(minimum)})"
        )


def check_partition(budget: int, n: int, m: int, pins: int, k: int) -> None:
    """Raises InputError naming the minimum (:func:`coarse_minimum`) unless a full partition of
    an input of ``n`` vertices, ``m`` nets and ``pins`` pins into ``k`` blocks can run within
    ``budget`` device bytes: not even the coarse levels would fit. Finer levels that do not fit
    keep their pin arrays in host memory (``igpart.kernels.placement``)."""
    require(budget, coarse_minimum(n, m, pins, k),
            f"partitioning {int(n):,} vertices, {int(m):,} nets and {int(pins):,} pins into "
            f"{int(k)} blocks (a level at the coarsening limit)")  # fmt: skip


def _human(b: int) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            return f"{math.ceil(b / size * 100) / 100:.2f} {unit}"
    return f"{b} B"


__all__ = [
    "ENV",
    "budget_from_env",
    "check_partition",
    "coarse_minimum",
    "dynamic_minimum",
    "level_bytes",
    "parse_bytes",
    "require",
    "require_dynamic_state",
    "resolve",
]
