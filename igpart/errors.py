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


class BatchError(InputError):
    """An invalid record in a batch of changes (or in a list of moves); nothing was applied.

    ``record`` is the index of the offending record, ``op`` its operation name, ``record_args``
    its arguments as given, and ``reason`` what is wrong with it. The message reads
    ``batch record 3 (delete_pin vertex=5 net=7): vertex 5 is not a pin of net 7``.
    """

    def __init__(self, record: int, op: str, record_args: tuple, reason: str, text: str = ""):
        self.record = record
        self.op = op
        self.record_args = record_args
        text = text or " ".join([op, *(str(a) for a in record_args)])
        super().__init__(f"batch record {record} ({text}): {reason}")
        self.reason = reason


class OutputError(IgpartError, OSError):
    """An output file could not be written; the message names it (``out.part: No space left on
    device``) and the previous contents of the file, if any, are left as they were."""

    def __init__(self, message: str, file: str | None = None):
        self.file = file
        self.reason = message
        super().__init__(f"{file}: {message}" if file is not None else message)
