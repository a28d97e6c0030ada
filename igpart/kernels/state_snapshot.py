"""Copy-and-restore transactions over the whole state of an object (the GPU dynamic structure's
atomic batches).

:func:`snapshot` walks every attribute of an object (``vars(obj)``), so that state added to the
class later is covered without a list to keep in step: arrays of the given array types are
copied by ``copy_array`` (device to device for CuPy), numpy arrays copied, dicts, lists and
tuples copied element by element, plain scalars and functions / methods set on the instance
kept. Attributes named in ``by_reference``
(scratch buffers whose contents do not outlive a call, streams, pointer tables rebuilt from the
arrays) are kept as references: restoring puts the same objects back, with the capacities that
went with them. Any other kind of value raises TypeError naming the attribute, so that a new
attribute is either copied or declared a reference, never silently left out.

:func:`restore` puts the saved attributes back and removes attributes created since the
snapshot, so arrays a failed call replaced (grown pools, grown id ranges) and scratch it
allocated for the first time go back to what they were.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

#: values kept as they are (immutable)
SCALARS = (int, float, complex, bool, str, bytes, type(None), np.generic)
#: functions and methods set on an instance (wrappers, patches) are code, not state: kept
CODE = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)


def _deep(value: Any, arrays: tuple, copy_array: Callable[[Any], Any], where: str) -> Any:
    if isinstance(value, SCALARS) or isinstance(value, CODE):
        return value
    if arrays and isinstance(value, arrays):
        return copy_array(value)
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: _deep(v, arrays, copy_array, f"{where}[{k!r}]") for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_deep(v, arrays, copy_array, f"{where}[{i}]")
                           for i, v in enumerate(value))  # fmt: skip
    raise TypeError(f"{where}: cannot snapshot a {type(value).__name__} (copy it in the "
                    "snapshot or declare the attribute by reference)")  # fmt: skip


def snapshot(obj: Any, arrays: tuple = (), copy_array: Callable[[Any], Any] | None = None,
             by_reference: Iterable[str] = ()) -> dict[str, Any]:  # fmt: skip
    """A copy of every attribute of ``obj``: instances of ``arrays`` through ``copy_array``,
    the names in ``by_reference`` as references, the rest as described in the module
    docstring. Raises TypeError (and copies nothing further) on a value it cannot copy."""
    refs = set(by_reference)
    copy = copy_array if copy_array is not None else (lambda a: a.copy())
    return {name: value if name in refs else _deep(value, tuple(arrays), copy, name)
            for name, value in vars(obj).items()}  # fmt: skip


def restore(obj: Any, saved: dict[str, Any]) -> None:
    """Puts the attributes of ``saved`` back on ``obj`` and deletes those it did not have."""
    state = vars(obj)
    for name in [n for n in state if n not in saved]:
        del state[name]
    state.update(saved)


__all__ = ["restore", "snapshot"]
