"""igpart: GPU-accelerated, incremental k-way hypergraph and graph partitioning for EDA flows.

The public API is re-exported here; see the README for examples.
"""

__version__ = "0.1.0"

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
from .mapping import map_processes as map  # noqa: A001 (igpart.map, as the CLI's `igpart map`)
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
