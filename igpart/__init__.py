"""igpart: GPU-accelerated, incremental k-way hypergraph and graph partitioning for EDA flows.

The public API is re-exported here; see the README for examples.
"""

__version__ = "0.1.0"

import importlib
from typing import TYPE_CHECKING

#: Public name -> (submodule, attribute). The submodules are imported on first use (module
#: ``__getattr__``, PEP 562): ``import igpart`` alone costs almost nothing, so the CLI's
#: commands and the METIS worker processes import only what they use.
_EXPORTS = {
    "Batch": ("dynamic", "Batch"),
    "DynamicHypergraph": ("dynamic", "DynamicHypergraph"),
    "BackendUnavailable": ("errors", "BackendUnavailable"),
    "BatchError": ("errors", "BatchError"),
    "IgpartError": ("errors", "IgpartError"),
    "InputError": ("errors", "InputError"),
    "PartitionError": ("errors", "PartitionError"),
    "Graph": ("hypergraph", "Graph"),
    "Hypergraph": ("hypergraph", "Hypergraph"),
    "IncrementalConfig": ("incremental", "IncrementalConfig"),
    "IncrementalPartitioner": ("incremental", "IncrementalPartitioner"),
    "IncrementalResult": ("incremental", "IncrementalResult"),
    "read": ("io", "read"),
    "read_fixed": ("io", "read_fixed"),
    "read_graph": ("io", "read_graph"),
    "read_hgr": ("io", "read_hgr"),
    "read_partition": ("io", "read_partition"),
    "write_graph": ("io", "write_graph"),
    "write_hgr": ("io", "write_hgr"),
    "write_partition": ("io", "write_partition"),
    "Mapping": ("mapping", "Mapping"),
    "communication_cost": ("mapping", "communication_cost"),
    "map": ("mapping", "map_processes"),  # igpart.map, as the CLI's `igpart map`
    "block_weights": ("metrics", "block_weights"),
    "cut": ("metrics", "cut"),
    "edge_cut": ("metrics", "edge_cut"),
    "imbalance": ("metrics", "imbalance"),
    "is_balanced": ("metrics", "is_balanced"),
    "km1": ("metrics", "km1"),
    "max_block_weight": ("metrics", "max_block_weight"),
    "soed": ("metrics", "soed"),
    "Partition": ("partition", "Partition"),
    "improve": ("partitioner.api", "improve"),
    "partition": ("partitioner.api", "partition"),
    "Config": ("partitioner.config", "Config"),
    "PRESETS": ("presets", "PRESETS"),
}


# The submodule igpart.partition (the result type) shares its name with the function
# igpart.partition: imported here, so that its later import cannot rebind the name, which then
# resolves to the function on first use.
from . import partition  # noqa: E402

del partition


def __getattr__(name: str):
    """The public names of ``__all__`` and igpart's submodules, imported on first use."""
    target = _EXPORTS.get(name)
    if target is None:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{target[0]}"), target[1])
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # static analysers and IDEs see the names
    from .dynamic import Batch, DynamicHypergraph
    from .errors import BackendUnavailable, BatchError, IgpartError, InputError, PartitionError
    from .hypergraph import Graph, Hypergraph
    from .incremental import IncrementalConfig, IncrementalPartitioner, IncrementalResult
    from .io import (
        read,
        read_fixed,
        read_graph,
        read_hgr,
        read_partition,
        write_graph,
        write_hgr,
        write_partition,
    )
    from .mapping import Mapping, communication_cost
    from .mapping import map_processes as map  # noqa: A001
    from .metrics import (
        block_weights,
        cut,
        edge_cut,
        imbalance,
        is_balanced,
        km1,
        max_block_weight,
        soed,
    )
    from .partition import Partition
    from .partitioner.api import improve, partition
    from .partitioner.config import Config
    from .presets import PRESETS

__all__ = [
    "__version__",
    "BackendUnavailable",
    "Batch",
    "BatchError",
    "Config",
    "DynamicHypergraph",
    "Graph",
    "Hypergraph",
    "IncrementalConfig",
    "IncrementalPartitioner",
    "IncrementalResult",
    "IgpartError",
    "Mapping",
    "InputError",
    "Partition",
    "PartitionError",
    "PRESETS",
    "block_weights",
    "communication_cost",
    "cut",
    "edge_cut",
    "imbalance",
    "improve",
    "partition",
    "is_balanced",
    "km1",
    "map",
    "max_block_weight",
    "read",
    "read_fixed",
    "read_graph",
    "read_hgr",
    "read_partition",
    "soed",
    "write_graph",
    "write_hgr",
    "write_partition",
]
