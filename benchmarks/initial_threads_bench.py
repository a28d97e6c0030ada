"""Host initial partitioning on the coarsest level of a run, timed with other thread settings.

For every input (an ISPD98 circuit inflated with ``igpart.generators.inflate``, seed 1, as
``gpu_bench.py`` builds them) and k, runs ``igpart.partition`` on ``--backend`` (default gpu) down
to its coarsest level, writes that level to ``--out``/coarse_<input>_k<k>.hgr (so that it can be
studied on another machine), then times the driver's own ``initial_partition`` call on it for
every ``--settings`` entry ``threads:metis_processes:switch_interval`` (the GIL's switch
interval in seconds), ``--reps`` runs each, and prints the seconds and the cut; the cut is the
same in every setting (the initial partitioning does not depend on the threads). The run stops
there (no uncoarsening). BENCHMARKS.md at 10cd44d, "Host initial partitioning at k = 64".

    python benchmarks/initial_threads_bench.py --inputs ibm01:200,ibm09:100 --ks 64 \\
        --settings 1:0:0.005,4:0:0.005,16:0:0.005,16:8:0.005 --out $OUT
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import igpart
import igpart.partitioner.initial.coarsest as ml
from igpart.generators import inflate
from igpart.io import write_hgr
from igpart.metrics import evaluate

REPO = Path(__file__).resolve().parents[1]
ISPD98 = Path(os.environ.get("IGPART_BENCHMARKS", REPO.parent / "shared" / "benchmarks")) / "ispd98"


class _Stop(Exception):
    """Ends the driver's run once the initial partitioning has been timed."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", default="ibm01:200", help="name:scale,... (ISPD98 circuits)")
    ap.add_argument("--ks", default="64")
    ap.add_argument("--backend", default="gpu")
    ap.add_argument(
        "--settings",
        default="1:0:0.005,16:0:0.005",
        help="threads:metis_processes:switch_interval,...",
    )
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="/tmp", help="folder for the levels and results.json")
    args = ap.parse_args()
    real = ml.initial_partition
    rows = []
    for item in args.inputs.split(","):
        name, scale = item.split(":")
        h = inflate(igpart.read_hgr(ISPD98 / f"{name}.hgr"), int(scale), seed=1)
        for k in map(int, args.ks.split(",")):

            def timed(*a, _k=k, _name=f"{name}x{scale}", **kw):
                ml.initial_partition = real  # the bisections inside call the real one
                coarse = a[0]
                write_hgr(coarse, str(Path(args.out) / f"coarse_{_name}_k{_k}.hgr"))
                default_si = sys.getswitchinterval()
                for setting in args.settings.split(","):
                    threads, procs, si = setting.split(":")
                    sys.setswitchinterval(float(si))
                    kw2 = dict(kw, threads=int(threads), metis_processes=int(procs))
                    secs = []
                    for _ in range(args.reps):
                        t = time.perf_counter()
                        parts = real(*a, **kw2)
                        secs.append(round(time.perf_counter() - t, 3))
                    row = dict(input=_name, k=_k, n=coarse.n, pins=coarse.num_pins,
                               threads=int(threads), metis_processes=int(procs),
                               switch_interval=float(si), seconds=secs,
                               cut=int(evaluate(coarse, parts, _k)["cut"]))  # fmt: skip
                    print(row, flush=True)
                    rows.append(row)
                sys.setswitchinterval(default_si)
                raise _Stop

            ml.initial_partition = timed
            try:
                igpart.partition(h, k, epsilon=0.03, objective="cut", backend=args.backend, seed=1)
            except _Stop:
                pass
            finally:
                ml.initial_partition = real
    (Path(args.out) / "initial_threads.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
