"""Mutation score of the theorem encodings: does the default test suite catch a changed number?

    python tools/mutation.py [--sample 120] [--seed 0] [--paper sagda ...] [--json out.json]

Each mutant changes ONE numeric literal of ``fedbounds/theorems/<paper>.py`` (an integer n
becomes n + 1, a float x becomes 1.5·x) in a scratch copy of the repository, then runs the
tests that cover that paper's theorems — the golden-file test ``tests/theory/test_snapshot.py``
for the paper, then ``tests/theory/test_<paper>.py`` if the mutant survived it — which are part
of the default suite, so a mutant they catch fails ``make test``. Equivalent mutants are left
out of the sample: constant factors of a claimed O(·) order (``claimed=`` and specialization
claims) and the values ``fixed_in_orders`` gives the constants O(·) drops do not change the
order a paper claims. Prints each surviving mutant and the score.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    paper: str
    line: int
    col: int
    end_col: int
    old: str
    new: str
    context: str


def _fixed_constant(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """A value of ``fixed_in_orders`` (a constant that O(·) drops)."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.keyword) and node.arg == "fixed_in_orders":
            return True
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and "FIXED" in t.id for t in node.targets):
            return True
    return False


def _claimed_constant(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """A multiplicative constant inside a claimed order (an equivalent mutant under O(·))."""
    if _fixed_constant(node, parents):
        return True
    parent = parents.get(node)
    factor = isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div)) and (
        parent.left is node or (isinstance(parent.op, ast.Mult) and parent.right is node))
    if not factor:
        return False
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.keyword) and node.arg == "claimed":
            return True
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and "claim" in t.id.lower() for t in node.targets):
            return True
    return False


def mutants(paper: str) -> list[Mutant]:
    path = ROOT / "fedbounds" / "theorems" / f"{paper}.py"
    source = path.read_text()
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines = source.splitlines()
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and type(node.value) in (int, float)):
            continue
        if node.lineno != node.end_lineno or _claimed_constant(node, parents):
            continue
        raw = lines[node.lineno - 1].encode()  # ast offsets count UTF-8 bytes
        text = raw[node.col_offset:node.end_col_offset].decode()
        new = str(node.value + 1) if isinstance(node.value, int) else repr(node.value * 1.5)
        out.append(Mutant(paper, node.lineno, node.col_offset, node.end_col_offset, text, new,
                          lines[node.lineno - 1].strip()[:100]))
    return out


def _copy(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout.split()
    for f in files:
        target = dest / f
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / f).is_file():
            shutil.copy2(ROOT / f, target)


def _pytest(copy: Path, args: list[str]) -> bool:
    """True if the tests pass (the mutant survives)."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                        "-m", "not slow", *args], cwd=copy, env=env, capture_output=True)
    return r.returncode == 0


def _key(module: str) -> str:
    """The paper a theorem module belongs to: ``feddro_appendix`` and ``sagda_corollaries``
    are parts of ``feddro`` and ``sagda`` (they share its PAPER)."""
    return module.split("_")[0]


def run(mutant: Mutant, copy: Path) -> bool:
    """Apply, test, restore; True if the mutant was caught."""
    path = copy / "fedbounds" / "theorems" / f"{mutant.paper}.py"
    original = path.read_text()
    lines = original.splitlines(keepends=True)
    line = lines[mutant.line - 1].encode()  # byte offsets, as ast gives them
    lines[mutant.line - 1] = (line[:mutant.col] + mutant.new.encode()
                              + line[mutant.end_col:]).decode()
    path.write_text("".join(lines))
    try:
        try:
            compile("".join(lines), str(path), "exec")
        except SyntaxError:
            return True
        if not _pytest(copy, [f"tests/theory/test_snapshot.py::"
                              f"test_theorem_values_match_the_golden_file[{_key(mutant.paper)}]"]):
            return True
        paper_tests = [str(p.relative_to(copy))
                       for p in sorted((copy / "tests" / "theory").glob(f"test_{_key(mutant.paper)}*.py"))]
        return bool(paper_tests) and not _pytest(copy, paper_tests)
    finally:
        path.write_text(original)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--paper", action="append")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    modules = sorted(p.stem for p in (ROOT / "fedbounds" / "theorems").glob("*.py")
                     if p.stem != "__init__")
    papers = [m for m in modules if not a.paper or _key(m) in a.paper]
    pool = [m for p in papers for m in mutants(p)]
    sample = random.Random(a.seed).sample(pool, min(a.sample, len(pool)))
    survivors = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        _copy(copy)
        for i, m in enumerate(sample, 1):
            caught = run(m, copy)
            print(f"[{i}/{len(sample)}] {'caught ' if caught else 'SURVIVED'} {m.paper}:{m.line} "
                  f"{m.old} -> {m.new}   {m.context}", flush=True)
            if not caught:
                survivors.append(m)
    score = 1 - len(survivors) / len(sample)
    print(f"\nmutation score: {len(sample) - len(survivors)}/{len(sample)} = {score:.1%} "
          f"(pool {len(pool)} literals, seed {a.seed})")
    if a.json:
        a.json.write_text(json.dumps({"sample": len(sample), "pool": len(pool), "score": score,
                                      "survivors": [asdict(m) for m in survivors]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
