"""The packed-memory-array CSR (kernels/cpu/pma.h) against a plain-Python model of its rows, and the
hot-subgraph cache policy (kernels/cpu/hot_cache.h) against a Python oracle of its window,
ranking, budget and byte accounting."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from igpart.kernels import _cpu


# --------------------------------------------------------------------------------- PMA-CSR
class RowsModel:
    """Rows as Python lists with None for holes: insert fills the first hole, else appends;
    erase leaves a hole, and holes at the end of a row are cut off."""

    def __init__(self, rows):
        self.rows = [list(r) for r in rows]

    def insert(self, r, x):
        row = self.rows[r]
        if None in row:
            row[row.index(None)] = x
        else:
            row.append(x)

    def erase(self, r, x):
        row = self.rows[r]
        if x not in row:
            return False
        row[row.index(x)] = None
        while row and row[-1] is None:
            row.pop()
        return True

    def clear(self, r):
        self.rows[r] = []

    def entries(self, r):
        return [x for x in self.rows[r] if x is not None]


def build(rows, **options) -> _cpu.PmaRows:
    ptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    ind = np.array([x for r in rows for x in r], dtype=np.int32)
    p = _cpu.PmaRows(**options)
    p.build(ptr, ind)
    return p


def assert_same(p: _cpu.PmaRows, model: RowsModel):
    p.check()
    assert p.rows == len(model.rows)
    for r in range(p.rows):
        assert p.row(r).tolist() == model.entries(r), f"row {r}"
    assert p.lengths().tolist() == [len(r) for r in model.rows]


def run_stream(rng, p, model, steps, insert_bias):
    """Random inserts (skewed to a few hot rows, so that windows overflow), erases, clears and
    new rows, compared with the model after every step."""
    for _ in range(steps):
        roll = rng.random()
        if roll < 0.01 or model.rows == []:
            count = int(rng.integers(1, 4))
            p.add_rows(count)
            model.rows += [[] for _ in range(count)]
        elif roll < 0.02:
            r = int(rng.integers(len(model.rows)))
            p.clear(r)
            model.clear(r)
        elif roll < insert_bias:
            hot = rng.random() < 0.5
            r = int(rng.integers(min(3, len(model.rows)) if hot else len(model.rows)))
            x = int(rng.integers(0, 1000))
            p.insert(r, x)
            model.insert(r, x)
        else:
            full = [i for i, row in enumerate(model.rows) if row]
            r = int(rng.choice(full)) if full else 0
            entries = model.entries(r)
            x = int(rng.choice(entries)) if entries and rng.random() < 0.95 else 5000
            assert p.erase(r, x) == model.erase(r, x)
        if rng.random() < 0.1:
            assert_same(p, model)
    assert_same(p, model)


@pytest.mark.parametrize("seed", range(4))
def test_random_stream_matches_model(seed):
    rng = np.random.default_rng(seed)
    rows = [list(rng.integers(0, 1000, size=int(rng.integers(0, 6)))) for _ in range(40)]
    p = build(rows, leaf=8)
    model = RowsModel(rows)
    assert_same(p, model)
    run_stream(rng, p, model, 1500, insert_bias=0.75)  # grows
    run_stream(rng, p, model, 2000, insert_bias=0.2)  # shrinks
    s = p.stats()
    # the stream exercised windows above the leaves, growth and shrinking
    assert sum(s["rebalances"][1:]) > 0 and s["rebalances"][0] > 0
    assert s["growths"] > 0 and s["shrinks"] > 0


def test_insert_order_equals_bucket_chain_order():
    """First hole, else the end: the order a 32-slot bucket chain keeps."""
    p = build([[1, 2, 3, 4]], leaf=4)
    assert p.erase(0, 2) and p.erase(0, 4)
    p.insert(0, 9)  # the hole of 2
    p.insert(0, 8)  # the end (the trailing hole of 4 was cut off)
    assert p.row(0).tolist() == [1, 9, 3, 8]
    assert p.lengths().tolist() == [4]


def test_growth_keeps_build_density_and_thresholds():
    p = build([[] for _ in range(5)], leaf=4)
    for i in range(200):
        p.insert(i % 5, i)
        s = p.stats()
        assert s["capacity"] == 4 << s["height"]
        assert s["used"] <= s["capacity"]
    p.check()
    s = p.stats()
    assert s["growths"] > 0
    # thresholds fall linearly from the leaves (1.0) to the root (0.75)
    assert p.upper(0) == 1.0 and p.upper(p.height) == 0.75
    assert all(p.upper(i) >= p.upper(i + 1) for i in range(p.height))


def test_rows_added_after_the_last_one():
    p = build([[1], [2]], leaf=4)
    p.add_rows(3)
    for r in (4, 2, 3, 4):
        p.insert(r, 10 + r)
    p.check()
    assert [p.row(r).tolist() for r in range(5)] == [[1], [2], [12], [13], [14, 14]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 20), st.booleans()), max_size=120))
def test_hypothesis_streams(ops):
    p = build([[] for _ in range(6)], leaf=2, upper_root=0.5, lower_root=0.1,
              build_density=0.25)  # fmt: skip
    model = RowsModel([[] for _ in range(6)])
    for r, x, ins in ops:
        if ins:
            p.insert(r, x)
            model.insert(r, x)
        else:
            assert p.erase(r, x) == model.erase(r, x)
    assert_same(p, model)


def test_pma_bad_input():
    with pytest.raises(ValueError, match="power of two"):
        _cpu.PmaRows(leaf=3)
    with pytest.raises(ValueError, match="upper_root"):
        _cpu.PmaRows(upper_root=1.5)
    p = build([[1]], leaf=4)
    with pytest.raises(ValueError, match="row 3 out of range"):
        p.insert(3, 1)
    with pytest.raises(ValueError, match="non-negative"):
        p.insert(0, -1)
    with pytest.raises(ValueError):
        p.build(np.array([0, 2], np.int64), np.array([1], np.int32))
    assert p.row(0).tolist() == [1]  # unchanged


# ------------------------------------------------------------------------ hot-subgraph cache
class CacheOracle:
    """Window sums over tau + 1 batches, candidates by (-hotness, key), the longest prefix that
    fits, reloads of changed hot rows in key order while they fit."""

    def __init__(self, keys, budget, tau, min_hotness=1, stage=True):
        self.budget, self.tau, self.min, self.stage = budget, tau, min_hotness, stage
        self.staged: dict[int, int] = {}  # key -> bytes, for the current batch
        self.window = [deque([0] * (tau + 1), maxlen=tau + 1) for _ in range(keys)]
        self.hot: dict[int, int] = {}  # key -> bytes held
        self.changed: set[int] = set()
        self.stats = self._zero()

    @staticmethod
    def _zero():
        return dict(hits=0, hit_bytes=0, cold_reads=0, cold_bytes=0, loaded=0, load_bytes=0,
                    reloaded=0, reload_bytes=0, evicted=0, staged=0, staged_hits=0)  # fmt: skip

    def held(self):
        return sum(self.hot.values()) + sum(self.staged.values())

    def record(self, key, size):
        self.window[key][-1] = min(255, self.window[key][-1] + 1)
        kind = "hit" if key in self.hot or key in self.staged else "cold_read"
        self.stats[kind + "s"] += 1
        self.stats[kind.split("_")[0] + "_bytes"] += size
        self.stats["staged_hits"] += key in self.staged
        if kind == "cold_read" and self.stage and self.held() + size <= self.budget:
            self.staged[key] = size
            self.stats["staged"] += 1

    def modified(self, key):
        self.staged.pop(key, None)
        if key in self.hot:
            self.changed.add(key)

    def finish_changes(self, sizes):
        for key in sorted(self.changed):
            if key not in self.hot:
                continue
            if self.held() - self.hot[key] + sizes[key] <= self.budget:
                self.stats["reloaded"] += 1
                self.stats["reload_bytes"] += int(sizes[key])
                self.hot[key] = int(sizes[key])
            else:
                del self.hot[key]
                self.stats["evicted"] += 1
        self.changed.clear()

    def end_batch(self, sizes):
        self.finish_changes(sizes)
        cand = sorted((-sum(w), k) for k, w in enumerate(self.window) if sum(w) >= self.min)
        chosen, total = {}, 0
        for _, k in cand:
            if total + sizes[k] > self.budget:
                break
            total += int(sizes[k])
            chosen[k] = int(sizes[k])
        self.stats["evicted"] += len(set(self.hot) - set(chosen))
        for k in chosen:
            if k not in self.hot and k not in self.staged:
                self.stats["loaded"] += 1
                self.stats["load_bytes"] += chosen[k]
        self.hot, self.staged = chosen, {}
        for w in self.window:
            w.append(0)
        out, self.stats = self.stats, self._zero()
        out.update(hot_rows=len(chosen), hot_bytes=total)
        return out


@pytest.mark.parametrize("tau, stage", [(0, True), (1, False), (3, True), (3, False), (7, True)])
def test_cache_matches_oracle(tau, stage):
    rng = np.random.default_rng(tau)
    keys, budget = 60, 700
    sizes = rng.integers(0, 120, size=keys).astype(np.int64)
    c = _cpu.HotCache(budget, tau=tau, stage=stage, retain=False)
    c.resize(keys)
    o = CacheOracle(keys, budget, tau, stage=stage)
    popular = rng.permutation(keys)[:12]
    for batch in range(40):
        # reads skewed to a popular set that drifts, with bursts
        reads = np.concatenate([rng.choice(popular, size=30), rng.integers(0, keys, size=10)])
        if batch % 10 == 0:
            popular = rng.permutation(keys)[:12]
        for key in reads:
            c.record(np.array([key], np.int64), sizes)
            o.record(int(key), int(sizes[key]))
        changed = rng.integers(0, keys, size=5)
        sizes[changed] += rng.integers(0, 150, size=5)  # rows grow: reloads may not fit
        c.modified(changed.astype(np.int64))
        for key in changed:
            o.modified(int(key))
        if batch % 3 == 0:
            c.finish_changes(sizes)
            o.finish_changes(sizes)
            assert c.hot_bytes + c.staged_bytes == o.held() <= budget
        got = c.end_batch(sizes)
        want = o.end_batch(sizes)
        assert {k: got[k] for k in want} == want, f"batch {batch}"
        assert got["moved_bytes"] == got["cold_bytes"] + got["load_bytes"] + got["reload_bytes"]
        assert got["zero_copy_bytes"] == got["hit_bytes"] + got["cold_bytes"]
        assert c.hot_keys().tolist() == sorted(o.hot)
        assert c.hot_bytes == sum(o.hot.values()) <= budget


def test_cache_window_keeps_a_row_for_tau_batches():
    sizes = np.full(4, 10, np.int64)
    c = _cpu.HotCache(100, tau=2, stage=False, retain=False)
    c.resize(4)
    c.record(np.array([1, 1], np.int64), sizes)
    hot = []
    for _ in range(5):
        hot.append(c.hot_keys().tolist())
        c.end_batch(sizes)
    # hot after its batch and the two after it; evicted when it leaves the window
    hot.append(c.hot_keys().tolist())
    assert hot == [[], [1], [1], [1], [], []]


def test_cache_second_batch_hits_and_deterministic_ties():
    sizes = np.array([40, 40, 40, 40], np.int64)
    c = _cpu.HotCache(80, tau=1, stage=False, retain=False)
    c.resize(4)
    c.record(np.array([3, 2, 1, 0], np.int64), sizes)  # equal hotness: lowest keys win
    first = c.end_batch(sizes)
    assert first["cold_reads"] == 4 and first["hits"] == 0
    assert first["loaded"] == 2 and first["load_bytes"] == 80
    assert c.hot_keys().tolist() == [0, 1]
    c.record(np.array([0, 1, 2], np.int64), sizes)
    second = c.end_batch(sizes)
    assert second["hits"] == 2 and second["hit_bytes"] == 80 and second["cold_bytes"] == 40
    assert second["moved_bytes"] < second["zero_copy_bytes"] + second["load_bytes"]


def test_cache_staging_serves_repeated_reads_of_a_batch():
    sizes = np.array([30, 30, 30, 50], np.int64)
    c = _cpu.HotCache(70, tau=0, retain=False)
    c.resize(4)
    c.record(np.array([0, 0, 3, 1, 1, 1, 3], np.int64), sizes)  # 3 does not fit after 0 and 1
    s = c.end_batch(sizes)
    assert (s["staged"], s["staged_hits"], s["cold_reads"]) == (2, 3, 4)
    assert s["cold_bytes"] == 30 + 50 + 30 + 50 and s["hit_bytes"] == 90
    # the refresh keeps the staged rows 1 (3 reads) and 0 (2 reads) without moving them again
    assert c.hot_keys().tolist() == [0, 1] and s["load_bytes"] == 0 and c.staged_bytes == 0
    c.modified(np.array([1], np.int64))
    sizes[1] = 45  # grows past the budget: evicted instead of reloaded
    c.finish_changes(sizes)
    assert c.hot_keys().tolist() == [0] and c.hot_bytes == 30


def test_cache_bad_input():
    with pytest.raises(ValueError, match="tau"):
        _cpu.HotCache(10, tau=8)
    with pytest.raises(ValueError, match="non-negative"):
        _cpu.HotCache(-1)
    with pytest.raises(ValueError, match="min_hotness"):
        _cpu.HotCache(10, min_hotness=0)
    c = _cpu.HotCache(10)
    c.resize(2)
    with pytest.raises(ValueError, match="key 2 out of range"):
        c.record(np.array([0, 2], np.int64), np.zeros(2, np.int64))
    assert c.hotness(0) == 0  # the valid key before the bad one was not recorded
    with pytest.raises(ValueError, match="one entry per key"):
        c.end_batch(np.zeros(1, np.int64))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cache_retention_and_write_through_stay_in_budget(seed):
    # random reads, write-through updates that grow rows, refreshes: the held bytes never exceed
    # the budget, retained rows move nothing, and a row read again past the window still hits
    rng = np.random.default_rng(seed)
    keys, budget = 80, 900
    sizes = rng.integers(4, 100, size=keys).astype(np.int64)
    c = _cpu.HotCache(budget, tau=1)
    c.resize(keys)
    for _ in range(30):
        for key in rng.integers(0, keys, size=25):
            c.record(np.array([key], np.int64), sizes)
            assert c.hot_bytes + c.staged_bytes <= budget
        changed = rng.integers(0, keys, size=4)
        sizes[changed] += 4
        c.updated(changed.astype(np.int64), sizes)
        assert c.hot_bytes + c.staged_bytes <= budget
        s = c.end_batch(sizes)
        assert c.hot_bytes == s["hot_bytes"] <= budget and c.staged_bytes == 0
        assert s["moved_bytes"] == (s["cold_bytes"] + s["load_bytes"] + s["reload_bytes"]
                                    + s["write_bytes"])  # fmt: skip
        assert s["hot_bytes"] == int(sizes[c.hot_keys()].sum())


def test_cache_retention_keeps_rows_past_the_window_until_room_is_needed():
    sizes = np.full(6, 10, np.int64)
    for retain, want in ((False, 0), (True, 2)):
        c = _cpu.HotCache(40, tau=0, retain=retain)
        c.resize(6)
        c.record(np.array([0, 0, 1], np.int64), sizes)
        c.end_batch(sizes)
        c.end_batch(sizes)  # a batch without reads: the window forgets 0 and 1
        c.record(np.array([0, 1], np.int64), sizes)
        s = c.end_batch(sizes)
        assert s["hits"] == want and s["moved_bytes"] == 20 - 10 * want
    # retained rows give way to staging, oldest first (by key within a refresh): 0 before 1
    c.end_batch(sizes)  # 0 and 1 are now held past the window
    c.record(np.array([2, 3, 4], np.int64), sizes)
    assert c.hot_keys().tolist() == [1] and c.staged_bytes == 30


def test_cache_write_through_keeps_a_changed_row():
    sizes = np.array([20, 20], np.int64)
    c = _cpu.HotCache(45, tau=0)
    c.resize(2)
    c.record(np.array([0, 1], np.int64), sizes)  # both staged
    sizes[0] = 24
    c.updated(np.array([0], np.int64), sizes, write_bytes=4)
    sizes[1] = 40  # no longer fits: dropped, read again cold
    c.updated(np.array([1], np.int64), sizes)
    c.record(np.array([0, 1], np.int64), sizes)
    s = c.end_batch(sizes)
    assert (s["hits"], s["cold_reads"], s["written"], s["write_bytes"]) == (1, 3, 1, 4)
    assert s["moved_bytes"] == 20 + 20 + 40 + 4
