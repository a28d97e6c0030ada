"""The resolved context: ``resolve`` leaves no ``"auto"`` / ``-1`` for any backend, keeps
explicit values, resolves per sub-problem, and is reported (``Partition.resolved``, ``-v``);
``igpart.Config`` documents every field."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

import igpart
from igpart import Config, Hypergraph
from igpart.errors import InputError
from igpart.generators import random_circuit
from igpart.kernels.backend import Backend
from igpart.kernels.cpu import CpuBackend
from igpart.partitioner import context
from igpart.partitioner.context import ResolvedConfig, resolve, resolved
from igpart.presets import PRESETS

#: Values a Config field may hold that stand for "decide later".
UNRESOLVED = ("auto", -1)


def backend_classes() -> list[type[Backend]]:
    """Every Backend class importable without a GPU that builds without arguments."""
    seen, todo = [], [Backend]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    out = []
    for cls in seen:
        module = cls.__module__
        if not module.startswith("igpart.") or module.startswith("igpart.kernels.gpu"):
            continue  # the GPU backend: test_resolved_on_the_gpu_backend; tests' own classes
        try:
            cls()
        except TypeError:
            continue
        out.append(cls)
    return out


def wide(n: int) -> Hypergraph:
    """A hypergraph of ``n`` vertices joined in pairs (cheap at any size)."""
    eind = np.arange(n - n % 2, dtype=np.int32)
    return Hypergraph(np.arange(0, eind.size + 1, 2, dtype=np.int64), eind, n)


def unresolved_fields(ctx: ResolvedConfig) -> list[str]:
    return [f.name for f in dataclasses.fields(Config)
            if any(type(getattr(ctx, f.name)) is type(u) and getattr(ctx, f.name) == u
                   for u in UNRESOLVED)]


def check_resolved(be: Backend) -> None:
    inputs = [random_circuit(300, seed=1), wide(300_000)]
    inputs += [h.to_graph() for h in inputs[:1]]
    for preset in PRESETS:
        for h in inputs:
            for k in (2, 3, 64):
                cfg = Config(preset=preset)
                ctx = resolve(cfg, be, h, k)
                assert unresolved_fields(ctx) == [], (type(be).__name__, preset, h.n, k)
                assert ctx.validate() is ctx  # every resolved value is a valid one
                assert ctx.is_for(be, k, h.n, isinstance(h, Hypergraph))
                assert ctx.base.initial_metis_processes == ctx.initial_metis_processes >= 0
                # per-value rules, and resolution again from the context gives the same
                assert ctx.vcycles == context.vcycles(be, cfg, k, h.n)
                assert ctx.max_shrink == context.max_shrink(be, cfg, k, h.n)
                assert ctx.vcycle_min_vertices == context.vcycle_min_vertices(be, cfg, k, h.n)
                assert ctx.refinement == context.refinement_mode(be, cfg)
                assert resolve(ctx, be, h, k) == ctx and resolved(ctx, be, h, k) is ctx
                assert ctx.coarsest >= k and ctx.initial_seeds >= 1
                assert ctx.initial in ("rb", "metis") and ctx.rb_runs >= 1
                assert ctx.community_resolution >= 1.0
                # made without __init__: the object ResolvedConfig(**fields) makes
                fields = {f.name: getattr(ctx, f.name) for f in dataclasses.fields(ctx)}
                assert vars(ctx) == vars(ResolvedConfig(**fields))


@pytest.mark.parametrize("cls", backend_classes(), ids=lambda c: c.__name__)
def test_no_auto_left_on_any_backend(cls):
    check_resolved(cls())


def test_the_cpu_backend_is_among_them():
    assert CpuBackend in backend_classes() and Backend in backend_classes()


@pytest.mark.gpu
def test_resolved_on_the_gpu_backend():
    from igpart.kernels import get_backend

    be = get_backend("gpu")
    check_resolved(be)
    big = resolve(Config(), be, wide(300_000), 2)
    assert (big.max_shrink, big.vcycles) == (be.default_max_shrink_k2, 1)
    # Louvain's level grows at large k, and -v / Partition.resolved show it
    for k in (16, 64):
        ctx = resolve(Config(), be, wide(300_000), k)
        assert ctx.community_level == be.community_level_max(k)
        assert ctx.summary()["community_level"] == ctx.community_level
    assert resolve(Config(), be, wide(300_000), 64).community_level == \
        be.COMMUNITY_HOST_MAX_LARGE_K > be.COMMUNITY_HOST_MAX
    # HyperG's groups between k = 2 and LARGE_K on large inputs; the bisections inherit them
    expect = {2: "heavy_edge", 16: "hyperg", be.LARGE_K - 1: "hyperg", be.LARGE_K: "heavy_edge"}
    for k, method in expect.items():
        ctx = resolve(Config(), be, wide(300_000), k)
        assert ctx.coarsening == ctx.base.coarsening == method, k
        assert ctx.summary()["coarsening"] == method
    assert resolve(Config(), be, wide(1000), 16).coarsening == "heavy_edge"
    assert resolve(Config(coarsening="heavy_edge"), be, wide(300_000), 16).coarsening == \
        "heavy_edge"


def test_coarsening_auto_is_heavy_edge_on_the_cpu_backend():
    """The C++ backend keeps heavy-edge clustering at every k (its partitions do not change
    with the "auto" default); an explicit choice is kept."""
    be = CpuBackend()
    for k in (2, 16, 64):
        assert resolve(Config(), be, wide(300_000), k).coarsening == "heavy_edge"
    assert resolve(Config(coarsening="hyperg"), be, wide(300_000), 16).coarsening == "hyperg"


def test_explicit_values_are_kept_and_sub_problems_resolve_again():
    be, h = CpuBackend(), random_circuit(400, seed=2)
    cfg = Config(vcycles=3, max_shrink=4.0, refinement="jet", community_sub_rounds=5,
                 community_resolution=2.0, initial="metis", initial_metis_processes=0,
                 graph_lp_sub_rounds=2, graph_coarsening="gkway", vcycle_min_vertices=7,
                 community_max_net_size=30)
    ctx = resolve(cfg, be, h, 8)
    for name in ("vcycles", "max_shrink", "refinement", "community_sub_rounds",
                 "community_resolution", "initial", "initial_metis_processes",
                 "graph_lp_sub_rounds", "graph_coarsening", "vcycle_min_vertices",
                 "community_max_net_size"):
        assert getattr(ctx, name) == getattr(cfg, name), name
    # the caller's Config is untouched; another input resolves from the same base
    assert Config.of(cfg) == cfg and cfg.initial == "metis"
    auto = resolve(Config(community_resolution=0, community_resolution_pins=10), be, h, 8)
    assert auto.community_resolution == h.num_pins / 10 and auto.base.community_resolution == 0
    sub = resolve(ctx, be, wide(300_000), 2)
    assert sub.base == ctx.base and sub.n == 300_000 and sub.vcycles == 3
    assert resolve(Config(), be, wide(300_000), 2).vcycles == be.default_vcycles(2, 300_000)


def test_community_net_size_cap_resolves_by_input_size(monkeypatch):
    """``community_max_net_size=-1``: on the C++ backend 50 below ``LARGE_MIN_N`` vertices;
    from there the largest cap from 10 to 50 whose clique expansion has at most 2 arcs per pin,
    raised until the nets it leaves out hold at most 2% of the pins (checked against counting
    the arcs and pins for every cap); 50 on a backend without a default; an
    explicit value is kept (also for a large input), the bipartite graph takes its own rule,
    and Louvain gets the resolved cap; 0, -2 and non-integers are refused."""
    from igpart.partitioner.context import community_net_size

    be = CpuBackend()
    n_large = be.LARGE_MIN_N
    rng = np.random.default_rng(3)
    for trial in range(6):
        sizes = rng.integers(1, 70, 2000) if trial else np.full(2000, 12)
        sizes[: 1500 - 200 * trial] = 2
        pins = int(sizes.sum())
        fits = [c for c in range(10, 51)
                if sum(int(x) * (int(x) - 1) for x in sizes if x <= c) <= 2 * pins]
        want = max(fits) if fits else 10
        kept = sum(int(x) for x in sizes if 2 <= x <= 50)
        # raised until the nets left out (above the cap, up to 50 pins) hold <= 2% of the pins
        want = next(c for c in range(want, 51)
                    if sum(int(x) for x in sizes if c < x <= 50) <= 0.02 * kept)
        assert be.default_community_max_net_size(n_large, sizes) == want, trial
        assert be.default_community_max_net_size(n_large - 1, sizes) == 50
    assert Config().community_max_net_size == -1
    # nets of 12 pins: 11 arcs per pin at any cap from 12 on, none below, so the arcs alone
    # give 11, which would leave every net out: 12
    eind = np.arange(n_large - n_large % 12, dtype=np.int32)
    twelve = Hypergraph(np.arange(0, eind.size + 1, 12, dtype=np.int64), eind, n_large)
    assert resolve(Config(), be, twelve, 16).community_max_net_size == 12
    assert resolve(Config(), be, wide(n_large), 16).community_max_net_size == 50  # 1 per pin
    assert resolve(Config(), be, random_circuit(500, seed=1), 16).community_max_net_size == 50
    assert resolve(Config(community_max_net_size=40), be, twelve,
                   16).community_max_net_size == 40
    big = resolve(Config(community_graph="bipartite"), be, wide(300_000), 16)
    assert community_net_size(big.community_graph, big, 300_000) == 50_000

    class NoDefault(CpuBackend):
        default_community_max_net_size = None

    assert resolve(Config(), NoDefault(), twelve, 16).community_max_net_size == 50
    seen = []
    real = CpuBackend.communities

    def spy(self, hg, **kw):
        seen.append(kw["max_net_size"])
        return real(self, hg, **kw)

    monkeypatch.setattr(CpuBackend, "communities", spy)
    h = random_circuit(3000, seed=4)
    igpart.partition(h, 4, backend="cpu", seed=1)
    assert seen and set(seen) == {50}  # the input and the bisections of its coarsest level
    seen.clear()
    igpart.partition(h, 4, backend="cpu", seed=1, config={"community_max_net_size": 7})
    assert seen and set(seen) == {7}
    for bad in (0, -2, 1.5, True, "10"):
        with pytest.raises(InputError, match="community_max_net_size"):
            Config(community_max_net_size=bad).validate()


def test_every_config_field_is_documented():
    doc = Config.__doc__
    missing = [f.name for f in dataclasses.fields(Config) if f"``{f.name}``" not in doc]
    assert missing == []


def test_the_result_and_verbose_output_show_the_resolved_values(tmp_path):
    h = random_circuit(500, seed=3)
    p = igpart.partition(h, 4, backend="cpu", seed=1)
    want = resolve(Config(), CpuBackend(), h, 4).summary()
    assert p.resolved == want and p.to_dict()["resolved"] == want
    assert p.resolved["initial"] == "rb" and p.resolved["vcycles"] == 0
    assert p.config["vcycles"] == -1  # the request as given
    f = tmp_path / "c.hgr"
    igpart.io.write_hgr(h, f)
    r = subprocess.run([sys.executable, "-m", "igpart", "partition", str(f), "-k", "4",
                        "--json", "-v"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("igpart: resolved:")]
    assert len(lines) == 1 and "vcycles=0" in lines[0] and "initial=rb" in lines[0]
    assert json.loads(r.stdout)["resolved"]["k"] == 4


def test_effort_defaults_resolve_per_backend():
    """``initial_rb_runs``, ``jet_min_pins`` and ``jet_fm_max_pins`` at -1 take the backend's
    ``default_NAME(k, n)`` (the general values where it has none); explicit values stay."""
    from igpart.partitioner import context

    class Lean:
        def default_initial_rb_runs(self, k, n):
            return 2 if k == 16 else 3

        def default_jet_min_pins(self, k, n):
            return n

        def default_jet_fm_max_pins(self, k, n):
            return 7

    cfg = Config()
    assert cfg.initial_rb_runs == cfg.jet_min_pins == cfg.jet_fm_max_pins == -1
    assert [context.backend_effort(object(), cfg, name, 16, 10)
            for name in context.BACKEND_EFFORT_DEFAULTS] == [4, 3_000_000, 0]
    assert [context.backend_effort(Lean(), cfg, name, 16, 10)
            for name in context.BACKEND_EFFORT_DEFAULTS] == [2, 7, 10]
    assert context.backend_effort(Lean(), cfg, "initial_rb_runs", 8, 10) == 3
    mine = Config(initial_rb_runs=5, jet_min_pins=0, jet_fm_max_pins=9)
    assert [context.backend_effort(Lean(), mine, name, 16, 10)
            for name in context.BACKEND_EFFORT_DEFAULTS] == [5, 9, 0]
    r = context.resolve(Config(), CpuBackend(), random_circuit(300, seed=1), 4)
    assert (r.initial_rb_runs, r.jet_min_pins, r.jet_fm_max_pins) == (4, 0, 3_000_000)


def test_gpu_lean_host_stages_rule():
    """The GPU backend's lean host stages: 2 < k < 64 on inputs of 100,000+ vertices only."""
    GpuBackend = pytest.importorskip("igpart.kernels.gpu._backend").GpuBackend
    be = GpuBackend.__new__(GpuBackend)  # the rules read class constants only
    n = GpuBackend.LARGE_MIN_N
    assert be.lean_host_stages(16, n) and be.lean_host_stages(3, n)
    assert not be.lean_host_stages(2, n) and not be.lean_host_stages(64, n)
    assert not be.lean_host_stages(16, n - 1)
    assert (be.default_initial_rb_runs(16, n), be.default_jet_min_pins(16, n),
            be.default_jet_fm_max_pins(16, n), be.default_vcycles(16, n)) == (2, 1_000_000,
                                                                             1_000_000, 1)
    assert (be.default_initial_rb_runs(64, n), be.default_jet_min_pins(64, n),
            be.default_jet_fm_max_pins(64, n), be.default_vcycles(64, n)) == (4, 0, 3_000_000, 2)
    assert be.default_vcycles(2, n) == 1 and be.default_vcycles(16, n - 1) == 2


def test_copy_config_is_dataclasses_replace():
    """``copy_config`` (the copies of recursive bisection's bisections) makes the object
    ``dataclasses.replace`` makes, for a Config under every preset and a ResolvedConfig, leaves
    the original as it was, and rejects an unknown field as ``replace`` does."""
    from igpart.partitioner.config import copy_config

    h = random_circuit(300, seed=2)
    for preset in PRESETS:
        cfg = Config(preset=preset)
        for obj in (cfg, resolve(cfg, CpuBackend(), h, 4)):
            before = dict(vars(obj))
            for changes in ({}, {"threads": 3, "initial_runs": 5}, {"fm": False}):
                got = copy_config(obj, **changes)
                want = dataclasses.replace(obj, **changes)
                assert type(got) is type(want) and vars(got) == vars(want), (preset, changes)
                assert got is not obj
            assert vars(obj) == before
            with pytest.raises(TypeError, match="no_such_field"):
                copy_config(obj, no_such_field=1)
