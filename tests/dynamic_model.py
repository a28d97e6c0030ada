"""A plain-Python reference model of igpart.dynamic (tests only): dicts and sets, the documented
id recycling and new-vertex placement rules, and a generator of random valid change batches."""

from __future__ import annotations

import copy

import numpy as np

from igpart import Hypergraph
from igpart.dynamic import Batch, Op


class Model:
    """Live vertices/nets with weights, pins as sets, the partition, and the id free stacks."""

    def __init__(self, h: Hypergraph, parts, k: int):
        self.k = k
        self.vw = {v: int(h.vwgt[v]) for v in range(h.n)}
        self.ew = {e: int(h.ewgt[e]) for e in range(h.m)}
        self.part = {v: int(parts[v]) for v in range(h.n)}
        self.pins = {e: {int(v) for v in h.net(e)} for e in range(h.m)}
        self.nets = {v: set() for v in range(h.n)}
        for e, pins in self.pins.items():
            for v in pins:
                self.nets[v].add(e)
        self.vfree: list[int] = []
        self.efree: list[int] = []
        self.vnext, self.enext = h.n, h.m
        self.target = (max(h.n, 8), max(h.m, 8), max(h.num_pins, 16))  # for random_batch
        self._freed_v: list[int] = []
        self._freed_e: list[int] = []

    def copy(self) -> Model:
        return copy.deepcopy(self)

    # ------------------------------------------------------------------ batch semantics
    def block_weights(self) -> list[int]:
        bw = [0] * self.k
        for v, b in self.part.items():
            bw[b] += self.vw[v]
        return bw

    def record(self, op: Op, a: int, b: int = 0, created: list[int] | None = None) -> int:
        """Applies one (valid) record with references resolved through ``created``; returns the
        id it created or -1."""

        def rid(x: int) -> int:
            return created[-x - 1] if x < 0 else x

        if op == Op.INSERT_VERTEX:
            v = self.vfree.pop() if self.vfree else self._fresh("v")
            bw = self.block_weights()
            self.part[v] = b if b >= 0 else min(range(self.k), key=lambda i: (bw[i], i))
            self.vw[v] = a
            self.nets[v] = set()
            return v
        if op == Op.INSERT_NET:
            e = self.efree.pop() if self.efree else self._fresh("e")
            self.ew[e] = a
            self.pins[e] = set()
            return e
        if op == Op.DELETE_VERTEX:
            v = rid(a)
            assert not self.nets[v]
            del self.vw[v], self.part[v], self.nets[v]
            self._freed_v.append(v)
        elif op == Op.DELETE_NET:
            e = rid(a)
            assert not self.pins[e]
            del self.ew[e], self.pins[e]
            self._freed_e.append(e)
        elif op == Op.INSERT_PIN:
            v, e = rid(a), rid(b)
            assert v not in self.pins[e]
            self.pins[e].add(v)
            self.nets[v].add(e)
        elif op == Op.DELETE_PIN:
            v, e = rid(a), rid(b)
            self.pins[e].remove(v)
            self.nets[v].remove(e)
        elif op == Op.SET_VERTEX_WEIGHT:
            self.vw[rid(a)] = b
        elif op == Op.SET_NET_WEIGHT:
            self.ew[rid(a)] = b
        return -1

    def _fresh(self, kind: str) -> int:
        if kind == "v":
            self.vnext += 1
            return self.vnext - 1
        self.enext += 1
        return self.enext - 1

    def end_batch(self) -> None:
        self.vfree.extend(self._freed_v)
        self.efree.extend(self._freed_e)
        self._freed_v, self._freed_e = [], []

    def apply(self, batch: Batch) -> list[int]:
        created: list[int] = []
        for i in range(len(batch)):
            op, a, b, _ = batch.record(i)
            created.append(self.record(op, a, b, created))
        self.end_batch()
        return created

    def move(self, v: int, b: int) -> None:
        self.part[v] = b

    # ------------------------------------------------------------------ from scratch
    def rebuild(self) -> tuple[Hypergraph, np.ndarray, np.ndarray, np.ndarray]:
        """The live hypergraph rebuilt from scratch, dense in increasing id order."""
        vids = np.array(sorted(self.vw), dtype=np.int64)
        eids = np.array(sorted(self.ew), dtype=np.int64)
        dense = {int(v): i for i, v in enumerate(vids)}
        nets = [sorted(dense[v] for v in self.pins[int(e)]) for e in eids]
        h = Hypergraph.from_nets(
            nets,
            n=len(vids),
            vwgt=[self.vw[int(v)] for v in vids],
            ewgt=[self.ew[int(e)] for e in eids],
        )
        parts = np.array([self.part[int(v)] for v in vids], dtype=np.int32)
        return h, parts, vids, eids


def random_batch(model: Model, rng: np.random.Generator, size: int, weighted: bool = True):
    """A random valid batch of about ``size`` records, applied to ``model`` as it is generated
    (so ``model`` ends in the state the batch produces). Mixes inserts, deletions (pins first,
    as in TAU 2015), pin changes and weight changes, and refers to the entities it creates by
    reference as often as by id."""
    batch = Batch()
    created: list[int] = []
    new_v: list[int] = []  # references to vertices created in this batch (and still live)
    new_e: list[int] = []

    def add(op: Op, a: int, b: int = 0) -> int:
        created.append(model.record(op, a, b, created))
        if op == Op.INSERT_VERTEX:
            return batch.insert_vertex(a, b)
        if op in (Op.INSERT_NET, Op.DELETE_VERTEX, Op.DELETE_NET):
            return getattr(batch, op.name.lower())(a)
        return getattr(batch, op.name.lower())(a, b)

    def resolve(x: int) -> int:
        return created[-x - 1] if x < 0 else x

    def pick(ids: dict, refs: list[int]):
        """A live id or, sometimes, a reference to an entity created in this batch."""
        if refs and rng.random() < 0.4:
            return refs[int(rng.integers(len(refs)))]
        return int(rng.choice(list(ids))) if ids else None

    def weight() -> int:
        return int(rng.integers(0, 9)) if weighted else 1

    n0, m0, p0 = model.target
    while len(batch) < size:
        n, m = len(model.vw), len(model.ew)
        kinds = ("insert_vertex", "delete_vertex", "insert_net", "delete_net", "pin", "weight")
        odds = np.array([n0 / (n + 1), n / n0, m0 / (m + 1), m / m0, 5.0, 1.0])
        kind = kinds[int(rng.choice(len(kinds), p=odds / odds.sum()))]
        if kind == "insert_vertex":
            block = int(rng.integers(0, model.k)) if rng.random() < 0.3 else -1
            new_v.append(add(Op.INSERT_VERTEX, weight(), block))
        elif kind == "insert_net":
            new_e.append(add(Op.INSERT_NET, weight()))
        elif kind == "pin":
            v, e = pick(model.vw, new_v), pick(model.ew, new_e)
            if v is None or e is None:
                continue
            pins = sum(len(x) for x in model.pins.values())
            if rng.random() < p0 / (p0 + pins):
                if resolve(v) not in model.pins[resolve(e)]:
                    add(Op.INSERT_PIN, v, e)
                continue
            nonempty = [x for x, pins in model.pins.items() if pins]
            if nonempty:
                e = int(rng.choice(nonempty))
                add(Op.DELETE_PIN, int(rng.choice(sorted(model.pins[e]))), e)
        elif kind in ("delete_vertex", "delete_net"):  # its pins first, then itself
            vertex = kind == "delete_vertex"
            live, refs = (model.vw, new_v) if vertex else (model.ew, new_e)
            x = pick(live, refs)
            if x is None:
                continue
            for y in sorted((model.nets if vertex else model.pins)[resolve(x)]):
                add(Op.DELETE_PIN, *((x, y) if vertex else (y, x)))
            add(Op.DELETE_VERTEX if vertex else Op.DELETE_NET, x)
            refs[:] = [r for r in refs if resolve(r) in live]
        elif rng.random() < 0.5:
            v = pick(model.vw, new_v)
            if v is not None:
                add(Op.SET_VERTEX_WEIGHT, v, weight())
        else:
            e = pick(model.ew, new_e)
            if e is not None:
                add(Op.SET_NET_WEIGHT, e, weight())
    model.end_batch()
    return batch
