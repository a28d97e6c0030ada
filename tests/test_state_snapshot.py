"""The copy-and-restore transaction of the GPU dynamic structure (igpart/kernels/
state_snapshot.py), checked with numpy arrays standing in for device arrays: every attribute
is covered without a list of names, arrays replaced after the snapshot (grown) come back with
their old size and contents, attributes created after it go away, references stay references,
and a value of an unknown kind is refused by name. Also: the GPU structure's by-reference
names are attributes it really has, so the list cannot drift from the class."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from igpart.kernels.state_snapshot import restore, snapshot

ROOT = Path(__file__).resolve().parents[1]


class DeviceArray:
    """Stands in for a device array type: holds a numpy array, copied by .copy()."""

    copies = 0

    def __init__(self, a):
        self.a = np.asarray(a)

    def copy(self):
        DeviceArray.copies += 1
        return DeviceArray(self.a.copy())


class Structure:
    def __init__(self):
        self.cap = 4
        self.eps = 0.5
        self.flag = False
        self.name = "s"
        self.none = None
        self.counter = np.int64(3)
        self.arrays = {"slot": DeviceArray(np.arange(8)), "next": DeviceArray([-1, -1])}
        self.pending = DeviceArray(np.zeros(4, np.int32))
        self.mirror = np.array([1, 2, 3])
        self.figures = {"moved": np.array([5, 6]), "rounds": 2}
        self.pair = (1, DeviceArray([7]))
        self.scratch = [DeviceArray(np.zeros(2))]
        self.stream = object()  # not copyable: declared by reference


def state(s: Structure) -> dict:
    """A plain-value picture of everything in ``s`` (arrays as lists)."""

    def plain(v):
        if isinstance(v, DeviceArray):
            return ("dev", v.a.tolist())
        if isinstance(v, np.ndarray):
            return ("np", v.dtype.str, v.tolist())
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return (type(v).__name__, [plain(x) for x in v])
        return v if isinstance(v, (int, float, str, bool, type(None), np.generic)) else id(v)

    return {k: plain(v) for k, v in vars(s).items()}


def test_snapshot_restores_every_attribute_grown_arrays_included():
    s = Structure()
    before = state(s)
    DeviceArray.copies = 0
    saved = snapshot(s, (DeviceArray,), by_reference=("stream", "scratch"))
    assert DeviceArray.copies == 4  # slot, next, pending, the tuple's array: scratch is not copied
    old_stream, old_scratch = s.stream, s.scratch
    # a failing call: writes in place, grows (replaces) arrays, changes scalars and mirrors,
    # allocates new attributes and scratch
    s.arrays["slot"].a[:] = -7
    s.arrays["next"] = DeviceArray(np.full(16, 9))  # grown
    s.arrays["extra"] = DeviceArray([1])
    s.pending.a[0] = 5
    s.mirror[1] = 99
    s.figures["moved"][0] = 0
    s.figures["rounds"] = 3
    s.cap, s.eps, s.flag, s.counter = 8, 0.25, True, np.int64(4)
    s.scratch = [DeviceArray(np.zeros(9))]
    s.lazily_created = DeviceArray([3])
    assert state(s) != before
    restore(s, saved)
    assert state(s) == before
    assert not hasattr(s, "lazily_created")
    assert s.stream is old_stream and s.scratch is old_scratch  # references put back as such


def test_snapshot_is_a_copy_not_a_view():
    s = Structure()
    saved = snapshot(s, (DeviceArray,), by_reference=("stream",))
    s.arrays["slot"].a[0] = 100
    s.mirror[0] = 100
    assert saved["arrays"]["slot"].a[0] == 0 and saved["mirror"][0] == 1
    assert saved["arrays"]["slot"] is not s.arrays["slot"]


def test_snapshot_refuses_what_it_cannot_copy_by_name():
    s = Structure()
    with pytest.raises(TypeError, match="stream"):
        snapshot(s, (DeviceArray,))
    s.stream = None
    s.arrays["odd"] = object()
    with pytest.raises(TypeError, match=r"arrays\['odd'\]"):
        snapshot(s, (DeviceArray,))


def _assigned_attributes(path: Path, cls: str) -> set[str]:
    tree = ast.parse(path.read_text())
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    names = set()
    for sub in ast.walk(node):
        targets = []
        if isinstance(sub, ast.Assign):
            targets = sub.targets
        elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)):
            targets = [sub.target]
        for t in targets:
            for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if (isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name)
                        and el.value.id == "self"):  # fmt: skip
                    names.add(el.attr)
    return names


def test_gpu_structure_by_reference_names_are_its_attributes():
    """Every name the GPU structure keeps by reference is an attribute it assigns (a renamed
    attribute would otherwise be copied silently, or a stale name kept); device arrays,
    counters and capacities are copied."""
    path = ROOT / "igpart" / "kernels" / "gpu" / "_dynamic.py"
    tree = ast.parse(path.read_text())
    by_ref = next(
        n.value for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_BY_REFERENCE"
    )  # fmt: skip
    names = set(ast.literal_eval(by_ref.args[0]))
    attrs = _assigned_attributes(path, "GpuDynamicHypergraph")
    assert names <= attrs, sorted(names - attrs)
    copied = attrs - names
    for state_name in ("_a", "_ctr", "vcap", "ecap", "_pend_n_arr", "_pend_s_arr", "_pend_new",
                       "_pend_seed", "vid_growths", "vpool_growths", "last_refine"):  # fmt: skip
        assert state_name in copied, state_name
