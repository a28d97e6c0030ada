"""Incremental partitioning in a loop: partition a generated circuit once, then push batches of
timing-optimisation changes and read back which cells changed block after each refinement.

    python examples/incremental_session.py
"""

import numpy as np

from igpart.generators import random_circuit, timing_batch
from igpart.plugin import Session

session = Session(random_circuit(50_000, seed=1), k=4, epsilon=0.03)
print("initial:", session.metrics()["cut"], "cut")
session.on_refine(lambda r: print(f"batch {r.batch}: {r.changes} changes, {len(r.changed)} cells "
                                  f"changed block, cut {r.cut}, {r.timings['total'] * 1e3:.2f} ms"))
rng = np.random.default_rng(0)
for _ in range(5):
    session.add_batch(timing_batch(session.dynamic, rng, 100))  # or session.insert_vertex(), ...
    result = session.refine()

# id-level changes: a new cell joining two nets
v = session.insert_vertex(weight=1)
session.insert_pin(v, 0)
session.insert_pin(v, 1)
r = session.refine()
print("new cell", r.id_of(v), "went to block", session.block_of(r.id_of(v)))
