"""Exceptions raised by igpart. Every error a user can cause is an :class:`IgpartError`."""

from __future__ import annotations


class IgpartError(Exception):
    """Base class of every error igpart raises on purpose."""


class InputError(IgpartError, ValueError):
    """Malformed input: a file (with its line), an array, or a change record.

    ``file`` and ``line`` are set when the input came from a file; the message then starts with
    ``file:line:`` so that editors and users can jump to it.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        self.file = file
        self.line = line
        self.reason = message
        if file is not None and line is not None:
            message = f"{file}:{line}: {message}"
        elif file is not None:
            message = f"{file}: {message}"
        super().__init__(message)


class BackendUnavailable(IgpartError, RuntimeError):
    """The requested backend cannot run here (no CuPy, no CUDA device, extension not built)."""


class PartitionError(IgpartError):
    """A partition could not be produced or is invalid (e.g. k > number of vertices)."""
