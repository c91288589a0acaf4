"""Discovery of claims, algorithms and problems (adding a paper touches no shared code).

* ``verify/claims/<paper>.py`` exposes ``CLAIMS: list[Claim]``
* ``verify/algorithms/<paper>.py`` exposes ``ALGORITHMS: list[AlgorithmEntry]``
* ``problems/<paper>.py`` exposes ``PROBLEMS: list[ProblemEntry]``
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType

from fedbounds import problems as _problems
from fedbounds.errors import BadInput
from fedbounds.problems.base import ProblemEntry

from . import algorithms as _algorithms
from . import claims as _claims
from .claim import Claim


@dataclass(frozen=True)
class AlgorithmEntry:
    """A runnable algorithm: ``run(problem, config, rounds, seeds, seed) -> dict`` returning the
    DESIGN "Runs" JSON fields ``constants``, ``config``, ``metrics``, ``summary``."""

    name: str
    paper: str
    description: str
    run: Callable[..., dict]
    params: dict[str, tuple[float | None, str]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()  # problem names it accepts (empty: any of its paper)


def _modules(pkg: ModuleType) -> list[ModuleType]:
    return [importlib.import_module(f"{pkg.__name__}.{i.name}")
            for i in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name)]


@cache
def claims() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    for m in _modules(_claims):
        for c in getattr(m, "CLAIMS", []):
            out[c.id] = c
    return out


@cache
def algorithms() -> dict[str, AlgorithmEntry]:
    return {a.name: a for m in _modules(_algorithms) for a in getattr(m, "ALGORITHMS", [])}


@cache
def problems() -> dict[str, ProblemEntry]:
    return {p.name: p for m in _modules(_problems) for p in getattr(m, "PROBLEMS", [])}


def lookup(table: dict, name: str, argument: str, kind: str):
    if name in table:
        return table[name]
    close = difflib.get_close_matches(name, list(table), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    raise BadInput(argument, f"unknown {kind} {name!r}{hint}; allowed: {', '.join(sorted(table))}")


def select_claims(target: str) -> list[Claim]:
    """``all``, a paper key, or one claim id."""
    table = claims()
    if target == "all":
        return list(table.values())
    by_paper = [c for c in table.values() if c.paper == target]
    if by_paper:
        return by_paper
    return [lookup(table, target, "CLAIM", "claim or paper")]


def listing() -> dict[str, list[dict]]:
    return {
        "claims": [{"id": c.id, "paper": c.paper, "description": c.title, "source": c.source}
                   for c in claims().values()],
        "algorithms": [{"id": a.name, "paper": a.paper, "description": a.description}
                       for a in algorithms().values()],
        "problems": [{"id": p.name, "paper": p.paper, "description": p.description}
                     for p in problems().values()],
    }
