"""Layers point one way (DESIGN "Layout"): theory ← problems ← verify ← app.

The imports of every module are read from the source (function-level imports included) and
checked: a module imports only its own layer or lower ones, never a private name of another
module, and the module graph has no cycle. A synthetic module shows the check fails on a wrong
direction.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"fedbounds": ROOT / "fedbounds", "fedbounds.problems": ROOT / "problems",
           "fedbounds.verify": ROOT / "verify"}

# rank of a module: it may import modules of equal or lower rank only
RANKS = [  # (prefix, rank); the longest matching prefix wins
    ("fedbounds", 0),  # theory: model, engine, complexity, theorems, registry, plugins …
    ("fedbounds.problems", 1),
    ("fedbounds.verify", 2),  # generic numeric core: executor, fitting, claim, algorithm
    ("fedbounds.verify.exact", 3),
    ("fedbounds.verify.algorithms", 3),
    ("fedbounds.verify.sweeps", 3),  # bound-validity sweeps: exact affine models of the methods
    ("fedbounds.verify.claims", 4),
    ("fedbounds.verify.catalog", 5),
    ("fedbounds.app", 6),
    ("fedbounds.__main__", 6),
]


def rank(module: str) -> int:
    best = max((p for p, _ in RANKS if module == p or module.startswith(p + ".")), key=len)
    return dict(RANKS)[best]


def modules() -> dict[str, Path]:
    """Every module of the installed package, by its dotted name."""
    out = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([package, *parts])
            if package == "fedbounds" and parts and parts[0] in ("problems", "verify"):
                continue
            out[name] = path
    return out


@cache
def _nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of the parsed source (``ast.walk``), parsed and walked once however many
    checks read it (nothing changes a tree)."""
    return tuple(ast.walk(ast.parse(source)))


def _base(name: str, is_package: bool) -> list[str]:
    """The package a relative import of ``name`` starts from, as its dotted parts."""
    return name.split(".") if is_package else name.split(".")[:-1]


def _from_target(node: ast.ImportFrom, base: list[str]) -> str:
    """The module a ``from … import`` names, a relative one resolved against ``base``."""
    if node.level:
        return ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module
                                                               else []))
    return node.module or ""


def imports(name: str, source: str, is_package: bool) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) for every import statement, relative ones
    resolved against ``name``."""
    base = _base(name, is_package)
    out = []
    for node in _nodes(source):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((_from_target(node, base), [a.name for a in node.names], node.lineno))
    return out


def private_uses(name: str, source: str, known: set[str], is_package: bool) -> list[str]:
    """``alias._name`` where ``alias`` is another fedbounds module bound by an import."""
    aliases = {}
    base = _base(name, is_package)
    for node in _nodes(source):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("fedbounds") and a.asname:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            target = _from_target(node, base)
            for a in node.names:
                if f"{target}.{a.name}" in known:
                    aliases[a.asname or a.name] = f"{target}.{a.name}"
    out = []
    for node in _nodes(source):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            out.append(f"{name}:{node.lineno} uses the private name "
                       f"{aliases[node.value.id]}.{node.attr}")
    return out


def _packages(table: dict[str, str]) -> set[str]:
    """The modules of ``table`` that have submodules in it (packages)."""
    return {m.rsplit(".", 1)[0] for m in table if "." in m}


def violations(table: dict[str, str], known: set[str]) -> list[str]:
    """Wrong-direction imports and private names used across modules."""
    out = []
    packages = _packages(table)
    for name, source in table.items():
        is_package = name in packages or source.startswith("#package")
        for target, names, line in imports(name, source, is_package):
            if not target.startswith("fedbounds"):
                continue
            for item in names or [""]:
                full = f"{target}.{item}" if f"{target}.{item}" in known else target
                if rank(full) > rank(name):
                    out.append(f"{name}:{line} imports {full} (a higher layer)")
                if item.startswith("_") and item != "__version__":
                    out.append(f"{name}:{line} imports the private name {target}.{item}")
        out += private_uses(name, source, known, is_package)
    return out


def graph(table: dict[str, str], known: set[str]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {n: set() for n in table}
    packages = _packages(table)
    for name, source in table.items():
        is_package = name in packages
        for target, names, _ in imports(name, source, is_package):
            for item in names or [""]:
                full = f"{target}.{item}" if f"{target}.{item}" in known else target
                if full in known and full != name:
                    edges[name].add(full)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def _edges_without_packages(table: dict[str, str], known: set[str]) -> dict[str, set[str]]:
    """Import edges between modules; a package's ``__init__`` importing its own submodules is
    how packages work and is not a cycle."""
    edges = graph(table, known)
    return {n: {t for t in ts if not (n + ".").startswith(t + ".")} for n, ts in edges.items()}


@pytest.fixture(scope="module")
def repository() -> dict[str, str]:
    return {name: path.read_text() for name, path in modules().items()}


def test_every_layer_imports_downwards_only(repository):
    assert violations(repository, set(repository)) == []


def test_no_import_cycles(repository):
    assert cycles(_edges_without_packages(repository, set(repository))) == []


def test_theory_never_imports_the_numeric_side(repository):
    theory = [n for n in repository if rank(n) == 0]
    assert "fedbounds.engine" in theory and "fedbounds.theorems.proxskip" in theory
    for name in theory:
        for target, _, line in imports(name, repository[name], False):
            assert not target.startswith(("fedbounds.verify", "fedbounds.problems",
                                          "fedbounds.app")), (name, line)


def test_a_planted_wrong_import_is_caught(repository):
    planted = dict(repository)
    planted["fedbounds.engine_planted"] = "from fedbounds.verify import executor\n"
    planted["fedbounds.problems.planted"] = "def f():\n    from fedbounds.app import cli\n"
    planted["fedbounds.verify.planted"] = "from fedbounds.verify.claim import _checked\n"
    planted["fedbounds.verify.planted2"] = "from fedbounds.verify import claim as C\nC._checked\n"
    found = violations(planted, set(planted))
    assert any(v.startswith("fedbounds.engine_planted:1 imports fedbounds.verify") for v in found)
    assert any(v.startswith("fedbounds.problems.planted:2 imports fedbounds.app") for v in found)
    assert any("imports the private name fedbounds.verify.claim._checked" in v for v in found)
    assert any(v == "fedbounds.verify.planted2:2 uses the private name "
               "fedbounds.verify.claim._checked" for v in found)


def test_a_planted_cycle_is_caught():
    table = {"fedbounds.a": "from fedbounds import b\n", "fedbounds.b": "import fedbounds.a\n"}
    assert cycles(graph(table, set(table))) == [["fedbounds.a", "fedbounds.b"]]
