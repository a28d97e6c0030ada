"""The ``igpart`` command's process asks for one BLAS thread before numpy's import; a program
that imports igpart as a library, or an environment that sets the variable, is left as it is."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from igpart import _startup

PROBE = (
    "import sys; sys.argv[0] = {argv0!r}; import igpart, os, numpy; "
    "print(os.environ.get('OPENBLAS_NUM_THREADS', 'unset'))"
)


def _probe(argv0: str, env_value: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv0=argv0)], env=env,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.parametrize("argv0, want", [("/opt/venv/bin/igpart", "1"), ("igpart", "1"),
                                         ("-c", "unset"), ("/home/u/flow.py", "unset"),
                                         ("/opt/venv/bin/igpart-server", "unset")])
def test_only_the_command_gets_one_blas_thread(argv0, want):
    assert _probe(argv0) == want


def test_a_value_the_environment_sets_is_kept():
    assert _probe("/opt/venv/bin/igpart", "3") == "3"


def test_nothing_changes_once_numpy_is_imported(monkeypatch):
    """numpy is imported in this process: the pool already exists, the call leaves it."""
    import numpy  # noqa: F401

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setattr(sys, "argv", ["/opt/venv/bin/igpart", "partition"])
    assert _startup.is_command_line()
    assert not _startup.single_blas_thread_for_the_command()
    assert "OPENBLAS_NUM_THREADS" not in os.environ


def test_is_command_line():
    assert _startup.is_command_line(["/usr/local/bin/igpart", "-k", "2"])
    assert not _startup.is_command_line(["python"])
    assert not _startup.is_command_line([])
