"""No text is evaluated as Python: the code never passes a string it read (from a file, the
store, JSON, the environment or the command line) to ``eval``, ``exec``, ``sympify`` or
``parse_expr``.

Two checks over every module of ``fedbounds``, ``problems`` and ``verify``: the issue's own
``grep`` finds only lines that say in a comment why they are not such a call, and the syntax
tree has no call of those names (nor of sympy's ``S(...)``, the same converter) except on a
literal written in the source. A synthetic module shows the tree check fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [ROOT / "fedbounds", ROOT / "problems", ROOT / "verify"]
GREP = re.compile(r"sympify|eval\(|exec\(|parse_expr")  # the grep
EXPLAINED = ("not Python's eval", "on a literal")  # what a listed line's comment says
EVALUATING = {"eval", "exec", "sympify", "_sympify", "parse_expr", "S", "compile"}


def sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in folder.rglob("*.py"))


def evaluating_calls(source: str) -> list[int]:
    """Lines that call an evaluating function on anything but a literal."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else (
            func.attr if isinstance(func, ast.Attribute) else "")
        if name == "compile" and not isinstance(func, ast.Name):
            continue  # re.compile: a pattern, not code
        if name in EVALUATING and not all(isinstance(a, ast.Constant) for a in node.args):
            lines.append(node.lineno)
    return lines


def test_the_grep_lists_only_explained_lines() -> None:
    listed = [(path, n, line) for path in sources()
              for n, line in enumerate(path.read_text().splitlines(), 1) if GREP.search(line)]
    unexplained = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p, n, line in listed
                   if "#" not in line or not any(e in line.split("#", 1)[1] for e in EXPLAINED)]
    assert not unexplained, "\n".join(unexplained)


def test_no_evaluating_call_on_anything_but_a_literal() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sources()
             for n in evaluating_calls(p.read_text())]
    assert not found, found


def test_the_check_finds_an_evaluating_call() -> None:
    source = "import sympy as sp\ndef f(text):\n    return sp.sympify(text), eval(text)\n"
    assert evaluating_calls(source) == [3, 3]
    assert evaluating_calls("import sympy as sp\nx = sp.S(1)\n") == []
