"""Reading input files with errors that name the file."""

from __future__ import annotations

import os

from ..errors import InputError


def read_bytes(path) -> tuple[str, bytes]:
    """``(file name, contents)``; an unreadable file raises InputError naming it."""
    file = os.fspath(path)
    try:
        with open(file, "rb") as f:
            return file, f.read()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=file) from None


def read_text(path) -> tuple[str, str]:
    """``(file name, text)`` decoded as UTF-8 (undecodable bytes replaced)."""
    file, data = read_bytes(path)
    return file, data.decode("utf-8", errors="replace")
