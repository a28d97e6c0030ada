"""``import igpart`` imports its submodules on first use (module ``__getattr__``): every public
name still resolves to the object of its submodule, the function ``igpart.partition`` keeps its
name after the submodule of the same name is imported, unknown names raise AttributeError, and
a fresh interpreter that imports igpart (or the METIS worker's modules) loads neither the
dynamic and incremental engines nor the mapping or I/O modules."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import igpart

ROOT = Path(__file__).resolve().parents[1]


def test_every_public_name_resolves():
    for name in igpart.__all__:
        value = getattr(igpart, name)
        if name == "__version__":
            continue
        module, attr = igpart._EXPORTS[name]
        assert value is getattr(importlib.import_module(f"igpart.{module}"), attr), name
    assert set(igpart.__all__) <= set(dir(igpart))


def test_partition_is_the_function():
    import igpart.partition  # noqa: F401  (the submodule of the result type)
    from igpart.partitioner.api import partition

    assert igpart.partition is partition
    from igpart import Partition
    from igpart import partition as fn

    assert fn is partition and Partition.__module__ == "igpart.partition"


def test_submodules_and_unknown_names():
    assert igpart.io.read_hgr is igpart.read_hgr
    with pytest.raises(AttributeError, match="no_such_name"):
        igpart.no_such_name  # noqa: B018


@pytest.mark.parametrize("statement", ["import igpart", "import igpart.parallel.worker"])
def test_import_loads_only_what_it_uses(statement):
    code = (f"import sys, json\n{statement}\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('igpart'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stdout))
    assert not loaded & {"igpart.dynamic", "igpart.incremental", "igpart.mapping", "igpart.io",
                         "igpart.distributed", "igpart.plugin", "igpart.netlist"}
