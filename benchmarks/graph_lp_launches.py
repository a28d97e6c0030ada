"""Array operations and host reads of the device label propagation, counted with numpy.

``igpart.kernels.gpu._graph_lp`` runs on the device as a chain of CuPy operations, each a
kernel launch (a sort several), and every size that decides an array's length (``nonzero``,
boolean-mask indexing, ``unique``, ``int()`` / ``bool()`` of an array) is a device->host read
that waits for the device. Here the same code runs on numpy arrays wrapped so that each such
operation is counted: per call of the clustering (one coarsening level) and of the
refinement (one uncoarsening level; those of the initial candidates, on the host on the GPU
path, apart), the vertices, the array operations (one per elementwise
operation, reduction, gather, scatter, creation), the sorts (one per ``argsort``: CuPy's radix
sort is a few launches) and the host reads. ``ArrayOps`` are counted as the device's
(``_CupyOps``: one launch per scatter-add and per tie hash, a segmented argmax of five
launches and one read, the expansion of rows to their entries six and one read, the choice of
the rows up to its degree limit nine and one read, the afterburner's gains two, the cut
change of a slice's moves three).
Needs no GPU; the counts are those of the device's code path, not timings.

    python benchmarks/graph_lp_launches.py --graph-scale 16 --cases grid2d --k 16
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import suite  # noqa: E402

import igpart  # noqa: E402
from igpart.kernels.backend import GraphArrays  # noqa: E402
from igpart.kernels.cpu import CpuBackend  # noqa: E402
from igpart.kernels.gpu import _graph_lp  # noqa: E402


class Counter:
    def __init__(self) -> None:
        self.ops = self.sorts = self.reads = 0
        self.initial = False  # inside the initial partitioning (on the host on the GPU path)

    def snapshot(self) -> tuple[int, int, int]:
        return self.ops, self.sorts, self.reads


C = Counter()
#: numpy functions whose output length depends on the values (a host read on the device)
SIZED = {"flatnonzero", "nonzero", "unique", "argwhere", "compress", "extract"}
#: sorts (a few launches each on the device)
SORTS = {"argsort", "sort", "lexsort"}
#: no launch (views, metadata, or host-side)
FREE = {"empty", "empty_like", "reshape", "ravel", "asarray", "result_type", "dtype", "iinfo"}


def _unwrap(x):
    if isinstance(x, Counted):
        return x.view(np.ndarray)
    if isinstance(x, tuple):
        return tuple(_unwrap(v) for v in x)
    if isinstance(x, list):
        return [_unwrap(v) for v in x]
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _wrap(x):
    if isinstance(x, Counted):
        return x
    if isinstance(x, np.ndarray):
        return x.view(Counted)
    if isinstance(x, (np.generic, bool, int, float)) and not isinstance(x, np.dtype):
        return np.asarray(x).view(Counted)
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


def _count(name: str) -> None:
    if name in FREE:
        return
    if name in SORTS:
        C.sorts += 1
    else:
        C.ops += 1
    if name in SIZED:
        C.reads += 1


def _fancy(idx) -> bool:
    items = idx if isinstance(idx, tuple) else (idx,)
    return any(isinstance(i, (np.ndarray, list)) for i in items)


def _boolean(idx) -> bool:
    items = idx if isinstance(idx, tuple) else (idx,)
    return any(isinstance(i, np.ndarray) and i.dtype == np.bool_ for i in items)


class Counted(np.ndarray):
    """An ndarray whose operations are counted as the device's launches and host reads."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        C.ops += 1
        res = getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs))
        return _wrap(res)

    def __array_function__(self, func, types, args, kwargs):
        _count(func.__name__)
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    def __getitem__(self, idx):
        base = self.view(np.ndarray)
        idx = _unwrap(idx)
        if _fancy(idx):
            C.ops += 1
            if _boolean(idx):
                C.reads += 1
        return _wrap(base[idx])

    def __setitem__(self, idx, val):
        C.ops += 1
        idx = _unwrap(idx)
        if _boolean(idx):
            C.reads += 1
        self.view(np.ndarray)[idx] = _unwrap(val)

    def _read(self):
        C.reads += 1
        return self.view(np.ndarray)

    def __int__(self):
        return int(self._read())

    def __index__(self):
        return int(self._read())

    def __float__(self):
        return float(self._read())

    def __bool__(self):
        return bool(self._read())

    def item(self, *args):
        return self._read().item(*args)

    def astype(self, dtype, copy=True, **kw):
        if copy or np.dtype(dtype) != self.dtype:
            C.ops += 1
        return _wrap(self.view(np.ndarray).astype(dtype, copy=copy, **kw))

    def copy(self, order="C"):
        C.ops += 1
        return _wrap(self.view(np.ndarray).copy(order))


class _Xp:
    """The numpy namespace with every call counted and its arrays wrapped."""

    def __getattr__(self, name):
        attr = getattr(np, name)
        if not callable(attr) or isinstance(attr, type):
            return attr

        def call(*args, **kwargs):
            _count(name)
            return _wrap(attr(*_unwrap(args), **_unwrap(kwargs)))

        return call


XP = _Xp()


class CountingOps(_graph_lp.ArrayOps):
    """``_CupyOps`` as the device runs them: a scatter-add one launch, lexsort one stable
    sort per key, the segmented argmax five launches and one read."""

    def __init__(self) -> None:
        super().__init__(XP)

    def add_at(self, out, idx, val) -> None:
        if idx.shape[0]:
            C.ops += 1
            np.add.at(out.view(np.ndarray), _unwrap(idx), _unwrap(val))

    def block_weights(self, vwgt, parts, k: int):
        C.ops += 2
        out = np.zeros(k, dtype=np.int64)
        np.add.at(out, _unwrap(parts), _unwrap(vwgt))
        return _wrap(out)

    def lexsort(self, keys):
        return _graph_lp.lexsort_by_stable_sorts(XP, keys, lambda a: XP.argsort(a, kind="stable"))

    def tie_hash(self, seed: int, a, b):  # one kernel
        C.ops += 1
        return _wrap(_graph_lp.tie_hash(np, seed, _unwrap(a), _unwrap(b)))

    def choose(self, g, rows, label, weight, bound, seed: int, balance: bool):
        """As ``_CupyOps.choose``: three outputs, one kernel, the degrees compared (5 and a
        read); the rows above its degree limit by the sorted path, counted."""
        from igpart.kernels.gpu._graph_lp import _choose

        C.ops += 9
        C.reads += 1
        plain = _graph_lp.ArrayOps(np)
        u = _unwrap(rows)
        out = [np.array(a) for a in _choose(plain, _uncounted(g), u, _unwrap(label),
                                            _unwrap(weight), _unwrap(bound), seed, balance)]
        wide = np.flatnonzero(np.diff(_unwrap(g.xadj))[u] > LP_CHOOSE_MAX_DEGREE)
        if wide.shape[0]:
            _choose(self, g, _wrap(u[wide]), label, weight, bound, seed, balance)  # counted
        return tuple(_wrap(a) for a in out)

    def afterburner_gains(self, g, parts, dest, prio, u, to):  # the output, one kernel
        C.ops += 2
        return _wrap(_graph_lp._afterburner_gains(
            _graph_lp.ArrayOps(np), _uncounted(g), *(_unwrap(a) for a in (parts, dest, prio, u,
                                                                          to))))

    def cut_change(self, g, parts, new, moving, u, to):  # the output, one kernel, its sum
        C.ops += 3
        return _wrap(_graph_lp._cut_change(
            _graph_lp.ArrayOps(np), _uncounted(g), *(_unwrap(a) for a in (parts, new, moving, u,
                                                                          to))))

    def expand(self, xadj, rows):  # degrees (4), their prefix sums, the total read, one kernel
        C.ops += 6
        C.reads += 1
        return _wrap(_graph_lp._expand(np, _unwrap(xadj), _unwrap(rows)))

    def best_per_row(self, row, primary, secondary, tie):
        C.ops += 5
        C.reads += 1
        return _wrap(_graph_lp._best_per_row(
            np, _unwrap(row), _unwrap(primary), None if secondary is None else _unwrap(secondary),
            _unwrap(tie)))


OPS = CountingOps()
#: ``GpuBackend.LP_CHOOSE_MAX_DEGREE`` (not importable without CuPy)
LP_CHOOSE_MAX_DEGREE = 96


def _uncounted(g: GraphArrays) -> GraphArrays:
    return GraphArrays(n=g.n, xadj=_unwrap(g.xadj), adjncy=_unwrap(g.adjncy),
                       adjwgt=_unwrap(g.adjwgt), vwgt=_unwrap(g.vwgt),
                       total_weight=g.total_weight)


def counted_graph(g: GraphArrays) -> GraphArrays:
    return GraphArrays(n=g.n, xadj=_wrap(np.asarray(g.xadj)), adjncy=_wrap(np.asarray(g.adjncy)),
                       adjwgt=_wrap(np.asarray(g.adjwgt)), vwgt=_wrap(np.asarray(g.vwgt)),
                       total_weight=g.total_weight)


class CountingBackend(CpuBackend):
    """The C++ backend with the device label propagation run on counted numpy arrays."""

    default_graph_lp_sub_rounds = _graph_lp.SUB_ROUNDS  # the device's
    async_graph_lp = False  # the device's sliced passes only

    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict] = []

    def _record(self, stage: str, n: int, before, extra: dict) -> None:
        ops, sorts, reads = (a - b for a, b in zip(C.snapshot(), before))
        if C.initial:
            stage = "initial " + stage
        self.records.append({"stage": stage, "n": n, "ops": ops, "sorts": sorts,
                             "reads": reads, **extra})

    def cluster_graph_lp(self, g, max_cluster_weight, *, iterations=5, min_clusters=0, seed=0,
                         sub_rounds=8):
        before = C.snapshot()
        cmap, nc = _graph_lp.cluster(counted_graph(g), int(max_cluster_weight), int(iterations),
                                     int(min_clusters), int(seed), int(sub_rounds), OPS)
        self._record("cluster", g.n, before, {"nc": int(nc)})
        return np.asarray(_unwrap(cmap), dtype=np.int32), int(nc)

    def lp_refine_graph(self, g, parts, k, max_block_weights, *, iterations=5, seed=0,
                        sub_rounds=8):
        before = C.snapshot()
        out, gain = _graph_lp.refine(counted_graph(g), _wrap(np.asarray(parts, dtype=np.int32)),
                                     int(k), _wrap(np.asarray(max_block_weights, dtype=np.int64)),
                                     int(iterations), int(seed), int(sub_rounds), OPS)
        self._record("refine", g.n, before, {})
        return np.asarray(_unwrap(out), dtype=np.int32), int(gain)


def _flag_initial() -> None:
    """Marks the stages of the initial partitioning (the GPU backend refines the coarsest
    level's candidates with the C++ backend, so they are no device work)."""
    from igpart.partitioner.initial import coarsest

    inner = coarsest.initial_partition

    def initial_partition(*args, **kwargs):
        C.initial = True
        try:
            return inner(*args, **kwargs)
        finally:
            C.initial = False

    coarsest.initial_partition = initial_partition


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graph-scale", type=int, default=16)
    ap.add_argument("--cases", default="grid2d", help="inputs whose name contains one of these")
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--refinement", default="lp+jet")
    ap.add_argument("--variants", default='{"default": {}}',
                    help="JSON {name: Config overrides}")
    ap.add_argument("--work", default="/tmp/igpart_suite")
    ap.add_argument("--data")
    ap.add_argument("--json", help="write the records here")
    a = ap.parse_args(argv)
    _flag_initial()
    wanted = a.cases.split(",")
    cases = suite.graph_cases(Path(a.work), lambda n: any(w in n for w in wanted),
                              [a.graph_scale])
    data = suite.data_dir(a.data)
    out = {}
    for case in cases:
        suite.materialize(case, data, 0)
        g = igpart.read_graph(case.path)
        for name, over in json.loads(a.variants).items():
            be = CountingBackend()
            cfg = {"graph_coarsening": "lp", "graph_refinement": a.refinement, **over}
            p = igpart.partition(g, a.k, 0.03, backend=be, seed=0, config=cfg)
            recs = be.records
            out[f"{case.name} {name}"] = {"cut": int(p.cut), "records": recs}
            print(f"\n{case.name} k={a.k} {name} {over}: cut {p.cut:,}")
            print("| stage | level n | ops | sorts | host reads |")
            print("|---|---:|---:|---:|---:|")
            for r in recs:
                if r["stage"].startswith("initial"):
                    continue
                print(f"| {r['stage']} | {r['n']:,} | {r['ops']:,} | {r['sorts']:,} | "
                      f"{r['reads']:,} |")
            for stage in ("cluster", "refine", "initial refine"):
                rs = [r for r in recs if r["stage"] == stage]
                print(f"{stage}: {len(rs)} levels, ops {sum(r['ops'] for r in rs):,}, sorts "
                      f"{sum(r['sorts'] for r in rs):,}, host reads "
                      f"{sum(r['reads'] for r in rs):,}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
