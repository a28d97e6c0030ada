"""``igpart.partition`` (multilevel): validity, balance, metrics, determinism, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import igpart
import igpart.generators
from igpart import Config, PartitionError
from igpart.errors import InputError
from igpart.metrics import evaluate, max_block_weight

from .test_stages import exact_feasible, lpt_feasible
from .util import oracle_metrics, random_graph, random_hypergraph

PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw, graph: bool = False):
    """Random hypergraphs / graphs: weighted or not, with heavy and isolated vertices and
    several components (vertices beyond the nets' range are isolated)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n = draw(st.integers(1, 120))
    m = draw(st.integers(0, 2 * n))
    weights = draw(st.sampled_from(["unit", "random", "heavy", "zero"]))
    if graph:
        x = random_graph(rng, n, m)
    else:
        x = random_hypergraph(rng, n, m, max_size=8)
    vw = np.ones(n, dtype=np.int64)
    if weights == "random":
        vw = rng.integers(1, 20, size=n)
    elif weights == "heavy":
        vw = rng.integers(1, 4, size=n)
        heavy = rng.choice(n, size=min(n, draw(st.integers(1, 3))), replace=False)
        vw[heavy] = rng.integers(5, 40, size=heavy.size)
    elif weights == "zero":
        vw = rng.integers(0, 2, size=n)
    if graph:
        return igpart.Graph(x.xadj, x.adjncy, n, x.adjwgt, vw)
    return x.with_weights(vwgt=vw)


def check_partition(h, p, k, eps):
    """Valid block ids; reported metrics equal a from-scratch recomputation; balanced whenever a
    balanced partition exists (exact check on small inputs, LPT bound on large ones)."""
    assert p.parts.shape == (h.n,) and p.parts.dtype == np.int32
    assert h.n == 0 or (p.parts.min() >= 0 and p.parts.max() < k)
    m = evaluate(h, p.parts, k, eps)
    assert (p.cut, p.km1, p.soed) == (m["cut"], m["km1"], m["soed"])
    assert np.array_equal(p.block_weights, m["block_weights"]) and p.balanced == m["balanced"]
    if isinstance(h, igpart.Hypergraph) and h.n <= 60:
        cut, km1, soed, bw = oracle_metrics(h, p.parts, k)
        assert (p.cut, p.km1, p.soed) == (cut, km1, soed) and list(p.block_weights) == bw
    bound = max_block_weight(h.total_weight, k, eps)
    feasible = lpt_feasible(h.vwgt, k, bound) or (h.n <= 16 and exact_feasible(h.vwgt, k, bound))
    if feasible:
        assert p.balanced, (list(p.block_weights), bound)


#: Configs of the property tests: small contraction limits (k = 2's too) make these tiny inputs
#: go through several levels of coarsening (with the defaults, 40·k vertices and 2·160 at k = 2,
#: most would not coarsen at all).
SMALL_LEVELS = [
    None,
    Config(contraction_limit=2, bisection_contraction_limit=2),
    Config(contraction_limit=2, bisection_contraction_limit=2, coarsening="hyperg"),
    Config(contraction_limit=2, bisection_contraction_limit=2, communities=False,
           weight_penalty=True, vcycles=1),
]


@PROPS
@given(instances(), st.integers(1, 12), st.sampled_from(["cut", "km1"]),
       st.sampled_from([0.0, 0.03, 0.1]), st.sampled_from(SMALL_LEVELS))
def test_hypergraph_partition_properties(h, k, obj, eps, cfg):
    k = min(k, max(h.n, 1))
    p = igpart.partition(h, k, epsilon=eps, objective=obj, backend="cpu", seed=1, config=cfg)
    check_partition(h, p, k, eps)
    assert p.objective == obj and p.algorithm == "multilevel" and p.backend == "cpu"


@PROPS
@given(instances(graph=True), st.integers(1, 12), st.sampled_from([0.0, 0.03]))
def test_graph_partition_properties(g, k, eps):
    k = min(k, max(g.n, 1))
    p = igpart.partition(g, k, epsilon=eps, backend="cpu")
    check_partition(g, p, k, eps)
    assert p.cut == igpart.edge_cut(g, p.parts)


@pytest.mark.parametrize("graph", [False, True])
def test_k_equal_n_and_k_one(graph):
    rng = np.random.default_rng(3)
    h = random_graph(rng, 30, 60) if graph else random_hypergraph(rng, 30, 40)
    p = igpart.partition(h, h.n, backend="cpu")
    assert sorted(p.parts.tolist()) == list(range(h.n))  # unit weights: one vertex per block
    p1 = igpart.partition(h, 1, backend="cpu")
    assert p1.cut == 0 and not p1.parts.any()


def test_k_above_n_is_a_clear_error():
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2]])
    with pytest.raises(PartitionError, match="exceeds the number of vertices"):
        igpart.partition(h, 4)
    with pytest.raises(PartitionError, match="positive integer"):
        igpart.partition(h, 0)
    with pytest.raises(PartitionError):
        igpart.partition(h, 2.5)


def test_bad_arguments():
    h = igpart.Hypergraph.from_nets([[0, 1], [1, 2]])
    with pytest.raises(InputError, match="objective"):
        igpart.partition(h, 2, objective="soed")
    with pytest.raises(InputError, match="epsilon"):
        igpart.partition(h, 2, epsilon=-0.1)
    with pytest.raises(InputError, match="unknown config option"):
        igpart.partition(h, 2, config={"nope": 1})
    with pytest.raises(InputError, match="group_size"):
        igpart.partition(h, 2, config=Config(group_size=0))
    with pytest.raises(InputError, match="coarsening"):
        igpart.partition(h, 2, config={"coarsening": "magic"})
    with pytest.raises(InputError, match="max_shrink"):
        igpart.partition(h, 2, config={"max_shrink": 1.0})
    with pytest.raises(InputError, match="Hypergraph or Graph"):
        igpart.partition([[0, 1]], 2)
    with pytest.raises(InputError, match="seed must be an integer"):
        igpart.partition(h, 2, seed="a")


def test_same_seed_same_result():
    h = random_hypergraph(np.random.default_rng(11), 3000, 3500, max_size=6)
    a = igpart.partition(h, 8, backend="cpu", seed=5)
    b = igpart.partition(h, 8, backend="cpu", seed=5)
    assert np.array_equal(a.parts, b.parts)
    # concurrent initial candidates: the result does not depend on the thread count
    c = igpart.partition(h, 8, backend="cpu", seed=5, config=Config(threads=1))
    d = igpart.partition(h, 8, backend="cpu", seed=5, config=Config(threads=3))
    assert np.array_equal(a.parts, c.parts) and np.array_equal(c.parts, d.parts)
    g = random_graph(np.random.default_rng(2), 3000, 9000)
    ga, gb = igpart.partition(g, 4, seed=1), igpart.partition(g, 4, seed=1)
    assert np.array_equal(ga.parts, gb.parts)


def test_config_variants_stay_valid():
    h = igpart.generators.random_circuit(4000, seed=3)
    for cfg in (Config(fm=False), Config(vcycles=1), Config(initial="all"),
                Config(coarsening="hyperg"), Config(communities=False, weight_penalty=True),
                Config(refine_rounds=0, fm=False), {"initial": "mtkahypar", "initial_runs": 1}):
        p = igpart.partition(h, 4, backend="cpu", config=cfg)
        check_partition(h, p, 4, 0.03)


def test_multilevel_beats_plain_metis_on_circuits():
    h = igpart.generators.random_circuit(8000, seed=1)
    ml = igpart.partition(h, 8, backend="cpu")
    metis = igpart.partition(h, 8, algorithm="metis")
    assert ml.balanced and ml.cut <= metis.cut
    assert set(ml.timings) >= {"coarsen", "initial", "refine"}


def test_ibm01_k4(ispd98):
    h = igpart.read_hgr(ispd98 / "ibm01.hgr")
    p = igpart.partition(h, 4, backend="cpu")
    check_partition(h, p, 4, 0.03)
    assert p.balanced and p.imbalance <= 0.03


def test_vcycles_never_worsen_the_first_pass():
    h = igpart.generators.random_circuit(3000, seed=8)
    for obj in ("cut", "km1"):
        base = igpart.partition(h, 6, objective=obj, seed=2, config=Config(vcycles=0))
        more = igpart.partition(h, 6, objective=obj, seed=2, config=Config(vcycles=3))
        assert more.balanced and more.objective_value <= base.objective_value


def test_vcycle_count_resolves_per_backend_and_k(monkeypatch):
    """``vcycles=-1`` is the backend's ``default_vcycles(k, n)`` (2 where it has none; on the
    C++ backend none below k = 64 and one from it on, at any size, on the GPU 1 at k = 2 on
    large inputs); the count
    resolved is the number of V-cycles run at most; bad values are refused."""
    import igpart.partitioner.context as ml
    import igpart.partitioner.driver as driver
    from igpart.kernels import get_backend

    cpu = get_backend("cpu")
    assert Config().vcycles == -1
    assert [ml.vcycles(cpu, Config(), k, 10**6) for k in (2, 8, 63, 64, 128)] == [0, 0, 0, 1, 1]
    assert [ml.vcycles(cpu, Config(), k, 1000) for k in (2, 16, 64)] == [0, 0, 1]
    assert ml.vcycles(cpu, Config(vcycles=0), 2, 10) == 0

    class Device:
        @staticmethod
        def default_vcycles(k, n):
            return 1 if k == 2 and n > 100 else 2

    assert [ml.vcycles(Device(), Config(), k, 1000) for k in (2, 3, 64)] == [1, 2, 2]
    assert ml.vcycles(Device(), Config(), 2, 100) == 2
    assert ml.vcycles(Device(), Config(vcycles=3), 2, 1000) == 3
    counts = []
    real = driver.run_vcycles
    monkeypatch.setattr(driver, "run_vcycles",
                        lambda *a, **kw: counts.append(a[9]) or real(*a, **kw))
    h = igpart.generators.random_circuit(2000, seed=3)
    for cfg in (Config(), Config(vcycles=2), Config(vcycles=1)):
        assert igpart.partition(h, 2, seed=1, backend="cpu", config=cfg).balanced
    assert counts == [0, 2, 1]
    for bad in (-2, True, 1.5, "2"):
        with pytest.raises(InputError, match="vcycles"):
            Config(vcycles=bad).validate()


def test_vcycle_coarsening_stops_at_vcycle_min_vertices(monkeypatch):
    """A V-cycle's coarsening stops below ``vcycle_min_vertices`` (resolved per backend: -1 is
    the backend's default, 0 on the C++ backend), and the result stays balanced and no worse
    than the first pass."""
    import igpart.partitioner.context as ml
    import igpart.partitioner.driver as driver
    import igpart.partitioner.uncoarsening as uncoarsening
    from igpart.kernels import get_backend

    cpu = get_backend("cpu")
    assert ml.vcycle_min_vertices(cpu, Config()) == 0
    assert ml.vcycle_min_vertices(cpu, Config(vcycle_min_vertices=700)) == 700

    class Device:
        default_vcycle_min_vertices = 25_000

    assert ml.vcycle_min_vertices(Device(), Config()) == 25_000
    assert ml.vcycle_min_vertices(Device(), Config(vcycle_min_vertices=0)) == 0
    assert ml.vcycle_min_vertices(Device(), Config(), 2) == 25_000  # no k = 2 default

    class DeviceK2(Device):
        default_vcycle_min_vertices_k2 = 100_000
        LARGE_MIN_N = 5000

    big = [ml.vcycle_min_vertices(DeviceK2(), Config(), k, 5000) for k in (2, 3)]
    assert big == [100_000, 25_000]
    assert ml.vcycle_min_vertices(DeviceK2(), Config(), 2, 4999) == 25_000  # small inputs
    assert ml.vcycle_min_vertices(DeviceK2(), Config(vcycle_min_vertices=7), 2, 10**6) == 7

    h = igpart.generators.random_circuit(3000, seed=8)
    levels = []
    real = uncoarsening.coarsen

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        levels.append((args[4], [lv[0].n for lv in out]))
        return out

    for module in (driver, uncoarsening):  # the first pass, then the V-cycles
        monkeypatch.setattr(module, "coarsen", spy)
    for limit in (0, 1000):
        levels.clear()
        cfg = Config(vcycles=1, vcycle_min_vertices=limit, communities=False)
        p = igpart.partition(h, 4, seed=2, backend="cpu", config=cfg)
        first, cycle = levels[0], levels[-1]
        assert cycle[0] == max(ml.coarsest_vertices(Config(), 4), limit)
        # every V-cycle level but the coarsest has at least the limit's vertices
        assert all(n >= cycle[0] for n in cycle[1][:-1])
        if limit:
            assert len(cycle[1]) < len(first[1]) and cycle[1][-1] < limit <= cycle[1][-2]
        assert p.balanced
    nocomm = igpart.partition(h, 4, seed=2, backend="cpu",
                              config=Config(vcycles=0, communities=False))
    assert p.objective_value <= nocomm.objective_value
    for bad in (-2, True, 1.5, "25000"):
        with pytest.raises(InputError, match="vcycle_min_vertices"):
            Config(vcycle_min_vertices=bad).validate()


def test_initial_seed_count_follows_k():
    """Large hypergraphs: more METIS seeds on the (smaller) coarsest level of a small k, capped
    at ``initial_runs_max``; ``initial_runs`` at k = 64, fewer beyond; small inputs keep
    ``initial_runs`` up to k = 64, graphs up to k = 16 (fewer beyond: 2 at k = 64)."""
    from igpart.partitioner.context import initial_runs_of

    cfg = Config()
    big = cfg.initial_runs_min_n
    ks = [2, 3, 4, 8, 16, 32, 63, 64, 65, 128, 1000, 10**6]
    runs = [initial_runs_of(cfg, k, hypergraph=True, n=big) for k in ks]
    assert all(a >= b for a, b in zip(runs, runs[1:]))  # non-increasing in k
    assert all(1 <= r <= max(cfg.initial_runs, cfg.initial_runs_max) for r in runs)
    assert initial_runs_of(cfg, 64, hypergraph=True, n=big) == cfg.initial_runs
    assert initial_runs_of(cfg, 2, hypergraph=True, n=big) == cfg.initial_runs_max
    small = Config(bisection_contraction_limit=0)
    assert initial_runs_of(small, 2, hypergraph=True, n=big - 1) == cfg.initial_runs  # small input
    # k = 2 runs (bisection_contraction_limit) of small inputs get the large inputs' seeds
    assert initial_runs_of(cfg, 2, hypergraph=True, n=big - 1) == cfg.initial_runs_max
    assert initial_runs_of(cfg, 4, hypergraph=True, n=big - 1) == cfg.initial_runs
    assert initial_runs_of(cfg, 8, n=big) == cfg.initial_runs  # graphs
    graph_runs = [initial_runs_of(cfg, k, n=big) for k in ks]
    assert all(a >= b for a, b in zip(graph_runs, graph_runs[1:]))
    assert initial_runs_of(cfg, 16, n=big) == cfg.initial_runs
    assert initial_runs_of(cfg, 64, n=big) == cfg.initial_runs // 4
    assert initial_runs_of(cfg, 10**6, n=big) == 1
    assert initial_runs_of(Config(initial_runs=4, initial_runs_max=2), 2, True, big) == 4
    for bad in ({"initial_runs_max": 0}, {"initial_runs_min_n": 0}):
        with pytest.raises(InputError):
            Config.from_dict(bad)
    h = igpart.generators.random_circuit(400, seed=3)  # still valid and deterministic
    cfg_many = {"initial_runs_max": 16, "initial_runs_min_n": 1}
    a = igpart.partition(h, 2, config=cfg_many)
    b = igpart.partition(h, 2, config=cfg_many)
    assert a.balanced and np.array_equal(a.parts, b.parts)


def test_refinement_mode_resolves_per_backend():
    """``refinement="auto"``: the backend's default_refinement whatever the input's size;
    explicit modes stand for themselves."""
    import igpart.partitioner.context as ml
    from igpart.kernels import get_backend

    cpu = get_backend("cpu")
    assert ml.refinement_mode(cpu, Config()) == cpu.default_refinement

    class Device:
        default_refinement = "jet+fm"

    assert ml.refinement_mode(Device(), Config()) == "jet+fm"
    assert ml.refinement_mode(Device(), Config(refinement="jet")) == "jet"


def test_max_shrink_resolves_per_backend_k_and_size():
    """``max_shrink=-1``: 2.5, or the backend's default_max_shrink_k2 at k = 2 on inputs of at
    least its LARGE_MIN_N vertices; explicit values stand; bad ones are refused."""
    import igpart.partitioner.context as ml
    from igpart.kernels import get_backend

    cpu = get_backend("cpu")
    assert Config().max_shrink == -1
    assert ml.max_shrink(cpu, Config(), 2, 10**7) == ml.MAX_SHRINK == 2.5

    class Device:
        default_max_shrink_k2 = 3.0
        LARGE_MIN_N = 1000

    got = [ml.max_shrink(Device(), Config(), k, n) for k, n in ((2, 1000), (2, 999), (4, 10**6))]
    assert got == [3.0, 2.5, 2.5]
    assert ml.max_shrink(Device(), Config(max_shrink=4.0), 2, 10**6) == 4.0
    for bad in (1.0, 0, -2, "3", True):
        with pytest.raises(InputError, match="max_shrink"):
            Config(max_shrink=bad).validate()


@pytest.mark.parametrize("objective", ["cut", "km1"])
def test_debug_log_reports_each_levels_objective(caplog, objective):
    """With debug logging a run reports the objective of its coarsest level's initial partition
    and of every level's refined partition; the finest level's (level 0, without V-cycles) is
    the returned partition's, and refinement never makes a level worse than the level below
    it left it (the projection keeps the objective, FM only improves it)."""
    import logging
    import re

    h = igpart.generators.random_circuit(4000, seed=7)
    with caplog.at_level(logging.DEBUG, logger="igpart"):
        p = igpart.partition(h, 8, backend="cpu", seed=3, objective=objective,
                             config={"vcycles": 0})
    pattern = re.compile(rf"^level (\d+)( \(coarsest\), initial partition)? \((\d+) vertices\): "
                         rf"{objective} (\d+)$")
    # the run's own reports follow its initial partitioning (whose bisections report first)
    rows = [m.groups() for r in caplog.records if (m := pattern.match(r.getMessage()))]
    run = rows[max(i for i, row in enumerate(rows) if row[1]):]
    levels = [int(lv) for lv, _, _, _ in run]
    assert levels == list(range(levels[0], -1, -1)) and levels[0] >= 1
    assert int(run[-1][2]) == h.n and int(run[-1][3]) == getattr(p, objective)
    values = [int(v) for _, _, _, v in run]
    assert all(b <= a for a, b in zip(values, values[1:]))
