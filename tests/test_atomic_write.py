"""Outputs are atomic: a failing or killed writer leaves the old file (and no temporary file)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from igpart import Hypergraph, io
from igpart.cli import main
from igpart.errors import IgpartError, OutputError

from .util import random_hypergraph

OLD = b"old contents\n"


def _listing(folder) -> list[str]:
    return sorted(os.listdir(folder))


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_atomic_write_replaces_the_file(tmp_path):
    out = tmp_path / "out.txt"
    out.write_bytes(OLD)
    io.atomic_write(out, b"new\n")
    assert out.read_bytes() == b"new\n"
    io.atomic_write(out, "text é\n")
    assert out.read_text(encoding="utf-8") == "text é\n"
    io.atomic_write(out, (bytes([65 + i]) for i in range(3)))
    assert out.read_bytes() == b"ABC"
    assert _listing(tmp_path) == ["out.txt"]


def test_writer_failing_mid_write_keeps_the_old_file(tmp_path):
    out = tmp_path / "out.part"
    out.write_bytes(OLD)

    def chunks():
        yield b"0\n1\n" * 1000
        raise RuntimeError("generator failed")

    with pytest.raises(RuntimeError, match="generator failed"):
        io.atomic_write(out, chunks())
    assert out.read_bytes() == OLD
    assert _listing(tmp_path) == ["out.part"]


def test_array_that_fails_to_format_keeps_the_old_file(tmp_path):
    out = tmp_path / "out.part"
    out.write_bytes(OLD)

    class Exploding:
        def __array__(self, dtype=None, copy=None):
            raise MemoryError("cannot build the array")

    with pytest.raises(MemoryError):
        io.write_partition(Exploding(), out)
    assert out.read_bytes() == OLD
    assert _listing(tmp_path) == ["out.part"]


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_full_disk_is_an_output_error_naming_the_file(tmp_path, monkeypatch, where):
    out = tmp_path / "out.part"
    out.write_bytes(OLD)
    if where == "write":
        real_fdopen = os.fdopen

        class Full:
            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

            def write(self, data):
                self.f.write(data[: len(data) // 2])
                _no_space()

            def __getattr__(self, name):
                return getattr(self.f, name)

        monkeypatch.setattr(os, "fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))
    else:
        monkeypatch.setattr(os, where, _no_space)
    with pytest.raises(OutputError) as e:
        io.write_partition(np.arange(1000) % 2, out)
    assert str(e.value) == f"{out}: No space left on device"
    assert isinstance(e.value, IgpartError) and isinstance(e.value, OSError)
    monkeypatch.undo()
    assert out.read_bytes() == OLD
    assert _listing(tmp_path) == ["out.part"]


def test_every_writer_is_atomic(tmp_path, monkeypatch):
    h = random_hypergraph(np.random.default_rng(3), 40, 60)
    g = h.to_graph()
    writers = {
        "a.hgr": lambda p: io.write_hgr(h, p),
        "a.graph": lambda p: io.write_graph(g, p),
        "a.part": lambda p: io.write_partition(np.zeros(h.n, dtype=np.int32), p),
    }
    for name in writers:
        (tmp_path / name).write_bytes(OLD)
    monkeypatch.setattr(os, "fsync", _no_space)
    for name, write in writers.items():
        with pytest.raises(OutputError, match="No space left on device"):
            write(tmp_path / name)
    monkeypatch.undo()
    assert all((tmp_path / name).read_bytes() == OLD for name in writers)
    assert _listing(tmp_path) == sorted(writers)
    for name, write in writers.items():  # and they do write once the disk has room
        write(tmp_path / name)
    assert io.read_hgr(tmp_path / "a.hgr").num_pins == h.num_pins
    assert io.read_graph(tmp_path / "a.graph").num_edges == g.num_edges


def test_permissions_symlinks_and_special_files(tmp_path):
    out = tmp_path / "out.part"
    out.write_bytes(OLD)
    os.chmod(out, 0o640)
    io.atomic_write(out, b"1\n")
    assert os.stat(out).st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.part"
    mask = os.umask(0o022)
    try:
        io.atomic_write(fresh, b"1\n")
    finally:
        os.umask(mask)
    assert os.stat(fresh).st_mode & 0o777 == 0o644
    link = tmp_path / "link.part"
    link.symlink_to(out)
    io.atomic_write(link, b"2\n")
    assert link.is_symlink() and out.read_bytes() == b"2\n"
    io.atomic_write(os.devnull, b"discarded\n")  # not a regular file: written in place
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)
    with pytest.raises(OutputError) as e:
        io.atomic_write(tmp_path / "missing" / "x.part", b"1\n")
    assert str(e.value) == f"{tmp_path / 'missing' / 'x.part'}: No such file or directory"


def test_kill_during_write_leaves_the_old_file(tmp_path):
    out = tmp_path / "out.part"
    out.write_bytes(OLD)
    script = textwrap.dedent(
        f"""
        import sys, time
        from igpart.io import atomic_write

        def chunks():
            yield b"0\\n" * 100000
            print("writing", flush=True)
            time.sleep(60)
            yield b"1\\n"

        atomic_write({str(out)!r}, chunks())
        """
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert p.stdout.readline() == b"writing\n"
        p.send_signal(signal.SIGKILL)
    finally:
        p.wait()
    assert out.read_bytes() == OLD  # the partly written temporary file never replaced it


def test_cli_outputs_are_atomic(tmp_path, monkeypatch, capsys):
    h = Hypergraph.from_nets([[0, 1], [1, 2], [2, 3], [3, 0]], 4)
    src = tmp_path / "a.hgr"
    io.write_hgr(h, src)
    part = tmp_path / "a.part"
    big = tmp_path / "big.hgr"
    verilog = tmp_path / "top.v"
    verilog.write_text(
        "module top(a, y);\ninput a; output y;\nwire n;\n"
        "INV u1(.A(a), .ZN(n));\nINV u2(.A(n), .ZN(y));\nendmodule\n"
    )
    vpart = tmp_path / "top.part"
    for f in (part, big, vpart):
        f.write_bytes(OLD)
    monkeypatch.setattr(os, "fsync", _no_space)
    commands = [
        (["partition", str(src), "-k", "2", "-o", str(part), "--backend", "cpu"], part),
        (["generate", "--from", str(src), "--scale", "2", "-o", str(big)], big),
        (["partition", str(verilog), "-k", "2", "-o", str(vpart), "--backend", "cpu"], vpart),
    ]
    for argv, target in commands:
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err == f"igpart: error: {target}: No space left on device\n"
        assert target.read_bytes() == OLD
    assert sorted(os.listdir(tmp_path)) == ["a.hgr", "a.part", "big.hgr", "top.part", "top.v"]


def test_warmup_json_output_is_atomic(tmp_path, monkeypatch, capsys):
    from igpart import warmup

    out = tmp_path / "warm.json"
    out.write_bytes(OLD)
    monkeypatch.setattr(warmup, "warmup", lambda *a, **kw: {"kernels": 3})
    monkeypatch.setattr(os, "fsync", _no_space)
    assert main(["warmup", "--json", str(out)]) == 1
    assert capsys.readouterr().err == f"igpart: error: {out}: No space left on device\n"
    assert out.read_bytes() == OLD and _listing(tmp_path) == ["warm.json"]
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    assert main(["warmup", "--json", str(out)]) == 0
    assert out.read_text() == '{\n "kernels": 3\n}\n'
