"""The backend contract shared by the C++ and GPU implementations."""

from __future__ import annotations

from typing import Any

from ..errors import BackendUnavailable  # noqa: F401  (errors.py is a leaf module)


class Backend:
    """Stage operations of the partitioning algorithms on one kind of device.

    Arrays passed to and returned from the operations belong to ``self.xp`` (numpy or cupy).
    ``asarray`` moves host arrays onto the backend, ``to_host`` brings them back.
    """

    name: str = "abstract"
    xp: Any = None
    #: Exception type the dynamic structure raises for an invalid record: args (index, reason).
    record_error: type[Exception] = ValueError

    def asarray(self, a, dtype=None):
        return self.xp.asarray(a, dtype=dtype)

    def to_host(self, a):
        raise NotImplementedError

    def net_connectivity(self, eptr, eind, parts, k: int):
        """lambda(e): number of distinct blocks among the pins of each net."""
        raise NotImplementedError

    def dynamic_hypergraph(
        self, eptr, eind, n: int, vwgt, ewgt, parts, k: int, epsilon: float, **options
    ):
        """The dynamic hypergraph of the incremental engine (igpart.dynamic), built from CSR
        nets and a k-way partition. Options: gamma, headroom, growth, sparse_phi."""
        raise BackendUnavailable(f"the {self.name} backend has no dynamic hypergraph yet")

    def __repr__(self) -> str:
        return f"<igpart backend {self.name}>"
