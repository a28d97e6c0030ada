"""The package's module import graph, built statically: no import circles, and layers that only
look down.

Every ``import`` and ``from ... import`` in every ``igpart/**/*.py`` counts, at module level and
inside functions alike. An import of ``igpart.a.b`` also loads the packages on the way
(``igpart.a``'s ``__init__``) that the importing module is not already inside of, and
``from igpart.a import b`` names the submodule ``igpart.a.b`` when there is one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "igpart"
PACKAGE = "igpart"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _extensions() -> set[str]:
    """Compiled modules (``igpart.kernels._cpu``): import targets that import nothing."""
    out = set()
    for p in ROOT.rglob("*"):
        if p.suffix in (".so", ".pyd"):
            parts = list(p.relative_to(ROOT.parent).parts)
            parts[-1] = parts[-1].split(".")[0]
            out.add(".".join(parts))
    return out


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of ``from <level dots><name> import ...`` inside ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _targets(module: str, is_package: bool, tree: ast.AST, known: set[str]) -> set[str]:
    """The igpart modules that importing ``module`` executes imports of."""
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            subs = {f"{base}.{a.name}" for a in node.names} & known
            named |= subs
            if len(subs) < len(node.names):
                named.add(base)  # a name defined in base (its __init__ when a package)
    own = set()
    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        own.add(".".join(parts[:i]))
    out: set[str] = set()
    for name in named:
        if name != PACKAGE and not name.startswith(PACKAGE + "."):
            continue
        if name in known and name != module:
            out.add(name)  # named: counts even when it is a package the module sits in
        pieces = name.split(".")
        for i in range(1, len(pieces)):
            prefix = ".".join(pieces[:i])
            # the packages on the way, except those the module sits in (loaded before it)
            if prefix in known and prefix not in own:
                out.add(prefix)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module name -> the igpart modules it imports (anywhere in the file)."""
    modules = _modules()
    known = set(modules)
    graph = {name: set() for name in _extensions()}
    known |= set(graph)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        graph[name] = _targets(name, path.name == "__init__.py", tree, known)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules (first == last), or None."""
    white, grey, black = 0, 1, 2
    color = dict.fromkeys(graph, white)
    for start in sorted(graph):
        if color[start] != white:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        color[start] = grey
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = black
                stack.pop()
                path.pop()
            elif color.get(nxt, black) == grey:
                return path[path.index(nxt):] + [nxt]
            elif color.get(nxt) == white:
                color[nxt] = grey
                stack.append((nxt, iter(sorted(graph[nxt]))))
                path.append(nxt)
    return None


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_graph_sees_function_level_and_relative_imports():
    known = {"igpart", "igpart.kernels", "igpart.kernels.gpu", "igpart.kernels.budget",
             "igpart.metrics", "igpart.netlist", "igpart.netlist.views"}
    src = "import os\ndef f():\n    from ..kernels import gpu\n    from .. import metrics\n"
    assert _targets("igpart.netlist.views", False, ast.parse(src), known) == {
        "igpart.kernels", "igpart.kernels.gpu", "igpart.metrics"}
    # a submodule named in `from . import` is the target; a name from __init__ is the package
    assert _targets("igpart.kernels.gpu", True, ast.parse("from .. import budget"), known) == {
        "igpart.kernels.budget"}
    assert _targets("igpart.kernels.gpu", True, ast.parse("from .. import get_backend"),
                    known) == {"igpart.kernels"}
    assert _targets("igpart.netlist.views", False, ast.parse("import igpart.kernels.gpu"),
                    known) == {"igpart.kernels", "igpart.kernels.gpu"}
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle)


PIPELINE = ("igpart.partitioner", "igpart.parallel", "igpart.mapping", "igpart.mapping_im",
            "igpart.incremental", "igpart.dynamic", "igpart.cli", "igpart.plugin",
            "igpart.distributed", "igpart.bench")


def _under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _violations(graph, sources, forbidden):
    out = []
    for mod in sorted(graph):
        if _under(mod, sources):
            bad = sorted(t for t in _reach(graph, mod) if _under(t, forbidden))
            if bad:
                out.append(f"{mod} -> {', '.join(bad)}")
    return out


def test_kernels_never_import_the_pipeline(graph):
    assert _violations(graph, ("igpart.kernels",), PIPELINE) == []


def test_netlist_never_imports_the_plugin_or_cli(graph):
    assert _violations(graph, ("igpart.netlist",), ("igpart.plugin", "igpart.cli")) == []


def test_partitioner_never_imports_its_users(graph):
    users = ("igpart.mapping", "igpart.mapping_im", "igpart.incremental", "igpart.cli",
             "igpart.plugin", "igpart.bench", "igpart.netlist")
    assert _violations(graph, ("igpart.partitioner",), users) == []
    # the worker pool sits below the partitioner; only the worker's entry point runs it
    pool = [m for m in graph if _under(m, ("igpart.parallel",)) and m != "igpart.parallel.worker"]
    assert [f"{m} -> {t}" for m in pool for t in sorted(_reach(graph, m))
            if _under(t, ("igpart.partitioner",))] == []
    assert not any("igpart.parallel.worker" in targets for targets in graph.values())


def test_data_model_imports_nothing_above_it(graph):
    model = ("igpart.hypergraph", "igpart.graph", "igpart.io")
    allowed = ("igpart.errors", "igpart.kernels", "igpart.hypergraph", "igpart.graph",
               "igpart.io", "igpart._atomic")
    bad = []
    for mod in model:
        if mod in graph:
            bad += [f"{mod} -> {t}" for t in sorted(_reach(graph, mod))
                    if not _under(t, allowed)]
    assert bad == []


def test_driver_only_sequences_stages():
    """The driver holds no loop over vertices, nets, pins or levels: its one loop is over the
    repetitions of a run (the stages and the backends do the rest)."""
    tree = ast.parse((ROOT / "partitioner" / "driver.py").read_text())
    loops = [n for n in ast.walk(tree)
             if isinstance(n, (ast.For, ast.While, ast.comprehension, ast.AsyncFor))]
    assert loops, "expected the loop over the repetitions"
    for loop in loops:
        source = ast.unparse(loop.iter if not isinstance(loop, ast.While) else loop.test)
        assert "repetitions" in source, f"driver.py loops over {source}"
