"""The multilevel partitioner, laid out by stage (as Mt-KaHyPar's and KaMinPar's are).

Dependencies point one way, top to bottom:

- :mod:`.api`: ``partition`` / ``improve``, arguments checked, dispatch (multilevel, METIS,
  a dask cluster);
- :mod:`.driver`: sequences the stages on one backend (hypergraphs, graphs, warm starts, the
  k = 2 pipeline of recursive bisection);
- the stages: :mod:`.preprocessing` (communities), :mod:`.coarsening`, :mod:`.initial` (the
  coarsest level on the host, the candidate pool, METIS, recursive bisection, Mt-KaHyPar),
  :mod:`.refinement`, :mod:`.uncoarsening` (projection, V-cycles);
- :mod:`.context` (every input-, k-, backend- and machine-dependent value resolved) over
  :mod:`.config` (:class:`Config`, presets applied).

Nothing is re-exported here: the public names are ``igpart.partition``, ``igpart.improve`` and
``igpart.Config``.
"""
