"""The Python snippets of the README and then of docs/guide.md run as written (file names
pointed at ../shared/benchmarks)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
GUIDE = README.parent / "docs" / "guide.md"


def _blocks() -> list[str]:
    return [b for doc in (README, GUIDE)
            for b in re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)]


def test_readme_python_snippets_run(ispd98, tau2015, tmp_path, monkeypatch):
    files = {
        '"ibm01.hgr"': ispd98 / "ibm01.hgr",
        '"tv80.v"': tau2015 / "tv80" / "tv80.v",
        '"tv80.ops"': tau2015 / "tv80" / "tv80.ops",
        '"cells_early.lib"': tau2015 / "cells_early.lib",
    }
    blocks = _blocks()
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)  # snippets write partition files into the working directory
    ns: dict = {}
    ran = 0
    for code in blocks:
        if "d.refine(" in code:  # the GPU engine's call ("On the GPU"): needs a device
            continue
        for name, path in files.items():
            code = code.replace(name, repr(str(path)))
        exec(compile(code, str(README), "exec"), ns)  # noqa: S102 (the README's own code)
        ran += 1
    assert ran >= 4
    assert (tmp_path / "ibm01.part.4").is_file()
    assert ns["d"].is_balanced and ns["s"].metrics()["balanced"]
