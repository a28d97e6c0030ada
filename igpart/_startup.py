"""What the ``igpart`` command sets up before numpy is first imported (``igpart/__init__``).

numpy's OpenBLAS starts a thread per core when it is imported, and those threads spin for a
while before they sleep, taking cores from the imports, the read and the first stages of a run.
igpart does no dense linear algebra, so the command's own process asks for a single BLAS thread
(as its METIS worker processes do, :mod:`igpart.parallel.metis_pool`). Only where the process
is the console script ``igpart`` and numpy is not imported yet; a variable the environment sets
is kept, and a program that imports igpart as a library is left as it is.
"""

from __future__ import annotations

import os
import sys

#: Set (when unset) in the ``igpart`` command's process before numpy's import.
BLAS_ENV = {"OPENBLAS_NUM_THREADS": "1"}


def is_command_line(argv: list[str] | None = None) -> bool:
    """Whether this process runs the ``igpart`` console script (``argv[0]`` its path)."""
    argv = sys.argv if argv is None else argv
    if not argv:
        return False
    name = os.path.basename(argv[0]).lower()
    return name in ("igpart", "igpart.exe", "igpart-script.py")


def single_blas_thread_for_the_command() -> bool:
    """Sets :data:`BLAS_ENV` (where unset) when :func:`is_command_line` and numpy is not
    imported yet; returns whether it did."""
    if "numpy" in sys.modules or not is_command_line():
        return False
    for name, value in BLAS_ENV.items():
        os.environ.setdefault(name, value)
    return True
