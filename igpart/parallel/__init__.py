"""Parallel resources of the partitioner: threads and CPUs (:mod:`.threads`), the persistent
METIS worker processes (:mod:`.metis_pool`, :mod:`.protocol`; the worker's entry point is
:mod:`.worker`, which nothing imports)."""
