"""Reading input files with errors that name the file (gzip-compressed files transparently)."""

from __future__ import annotations

import os

from ..io import read_input


def read_bytes(path) -> tuple[str, bytes]:
    """``(file name, contents)``; an unreadable file raises InputError naming it."""
    return os.fspath(path), read_input(path)


def read_text(path) -> tuple[str, str]:
    """``(file name, text)`` decoded as UTF-8 (undecodable bytes replaced)."""
    file, data = read_bytes(path)
    return file, data.decode("utf-8", errors="replace")
