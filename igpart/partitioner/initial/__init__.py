"""Initial partitioning of the coarsest level: the candidate pool (:mod:`.pool`), METIS
(:mod:`.metis`), recursive bisection (:mod:`.recursive`) and Mt-KaHyPar (:mod:`.mtkahypar`)."""
