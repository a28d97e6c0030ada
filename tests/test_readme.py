"""The Python snippets of the README and then of docs/guide.md run as written (file names
pointed at ../shared/benchmarks); so do the README's Tcl flow and JSON requests."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import igpart
from igpart.cli import main
from igpart.plugin.server import JsonLinesServer

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


def _fenced(info: str) -> list[str]:
    """The README's fenced blocks whose info string is ``info`` ("" for untagged ones)."""
    blocks, body, tag = [], None, ""
    for line in README.read_text().splitlines():
        if line.startswith("```") and body is None:
            tag, body = line[3:].strip(), []
        elif line.startswith("```"):
            if tag == info:
                blocks.append("\n".join(body) + "\n")
            body = None
        elif body is not None:
            body.append(line)
    return blocks


@pytest.mark.tcl
def test_readme_tcl_flow_runs(tau2015, tmp_path, monkeypatch, capfd):
    import tkinter  # (the tcl marker skips this test where Python has none)
    for path in (tau2015 / "tv80" / "tv80.v", tau2015 / "tv80" / "tv80.ops",
                 tau2015 / "cells_early.lib"):
        (tmp_path / path.name).symlink_to(path)
    monkeypatch.chdir(tmp_path)  # the flow names its files relative to the working directory
    (block,) = _fenced("tcl")
    (tmp_path / "flow.tcl").write_text(block)
    assert main(["tcl", "flow.tcl"]) == 0
    report = tkinter.Tcl().splitlist(capfd.readouterr().out.strip())  # puts: a Tcl dict
    metrics = dict(zip(report[::2], report[1::2]))
    assert metrics["balanced"] == "1" and int(metrics["batches"]) > 0
    lines = (tmp_path / "blocks_after.txt").read_text().split("\n")[:-1]
    assert len(lines) == int(metrics["vertices"])  # every cell and port of the changed design
    assert {line.rsplit(" ", 1)[1] for line in lines} == {"0", "1", "2", "3"}


def test_readme_json_requests_answer(ispd98):
    (block,) = _fenced("")  # the JSON requests, answers after "->"
    lines = [line.split("  ->")[0].strip() for line in block.splitlines()]
    srv = JsonLinesServer()
    answers = [srv.handle(line.replace('"ibm01.hgr"', json.dumps(str(ispd98 / "ibm01.hgr"))))
               for line in lines]
    assert all(a["ok"] for a in answers) and [a["id"] for a in answers] == [1, 2, 3, 4]
    parts = np.array(answers[2]["result"])
    h = igpart.read_hgr(ispd98 / "ibm01.hgr")
    assert igpart.cut(h, parts, 4) == answers[1]["result"]["cut"]
    assert igpart.is_balanced(h, parts, 4, 0.03) and srv.stopped
