"""Discovery of claims, algorithms and problems (adding a paper touches no shared code).

Each layer's modules come from :func:`fedbounds.plugins.modules` (the built-in folder plus the
plugins' modules of that layer). A claims module's :class:`~.claim.ClaimSpec` objects, an
algorithms module's :class:`~.algorithm.Algorithm` and :class:`~.algorithm.Counterexample`
objects and a problems module's ``PROBLEMS`` list are collected; nothing is registered by hand.
PEP models (``verify/pep/papers/<paper>.py``, a plugin's ``pep`` module) are discovered by
:func:`fedbounds.verify.pep.models`; :func:`clear_caches` forgets them too.
"""

from __future__ import annotations

import difflib
from functools import cache
from types import ModuleType
from typing import Any

from fedbounds import plugins
from fedbounds import problems as _problems
from fedbounds.errors import BadInput
from fedbounds.problems.base import ProblemEntry

from . import algorithms as _algorithms
from . import claims as _claims
from . import pep
from .algorithm import Algorithm, Counterexample
from .claim import ClaimSpec, Predictions


def _defined(module: ModuleType, kind: type) -> list[Any]:
    """Objects of ``kind`` that ``module`` (or, for a package, its submodules) defines — not
    those it imports — in definition order."""
    out = []
    name = module.__name__
    for value in vars(module).values():
        home = getattr(value, "module", name) or name
        if isinstance(value, kind) and (home == name or home.startswith(name + ".")):
            out.append(value)
    return out


def _collect(package: ModuleType, layer: str, kind: type, key: str, what: str) -> dict[str, Any]:
    """Every ``kind`` object of a layer's modules, by its ``key``; a repeated key is an error
    naming the module (exit 2)."""
    out: dict[str, Any] = {}
    for m in plugins.modules(package, layer):
        for item in _defined(m, kind):
            name = getattr(item, key)
            if name in out and out[name] is not item:
                raise plugins.PluginError(m.__name__, f"duplicate {what} {name!r}")
            out[name] = item
    return out


@cache
def claims() -> dict[str, ClaimSpec]:
    """Claim id → spec, over every paper."""
    return _collect(_claims, "claims", ClaimSpec, "id", "claim id")


@cache
def predictions() -> dict[str, Predictions]:
    """Paper key → its catalogue of checkable predictions (a claims module's
    ``PREDICTIONS``); a paper without one is absent."""
    return _collect(_claims, "claims", Predictions, "paper", "prediction catalogue for paper")


@cache
def algorithms() -> dict[str, Algorithm]:
    """Algorithm name → unit, over every paper."""
    return _collect(_algorithms, "algorithms", Algorithm, "name", "algorithm")


@cache
def counterexamples() -> dict[str, Counterexample]:
    """Theorem id → its :class:`~.algorithm.Counterexample`, from the algorithms modules."""
    return _collect(_algorithms, "algorithms", Counterexample, "theorem", "counterexample")


@cache
def problems() -> dict[str, ProblemEntry]:
    """Problem name → entry (each problems module lists its ``PROBLEMS``)."""
    out: dict[str, ProblemEntry] = {}
    for m in plugins.modules(_problems, "problems"):
        for p in getattr(m, "PROBLEMS", []):
            if p.name in out:
                raise plugins.PluginError(m.__name__, f"duplicate problem {p.name!r}")
            out[p.name] = p
    return out


def clear_caches() -> None:
    """Forget discovered claims, algorithms, problems and PEP models (after changing
    plugins)."""
    for f in (claims, predictions, algorithms, counterexamples, problems):
        f.cache_clear()
    pep.clear_caches()


def pep_models() -> dict[str, pep.PepModel]:
    """Theorem id → PEP model, over every paper (:func:`fedbounds.verify.pep.models`)."""
    return pep.models()


def lookup(table: dict, name: str, argument: str, kind: str):
    if name in table:
        return table[name]
    close = difflib.get_close_matches(name, list(table), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    raise BadInput(argument, f"unknown {kind} {name!r}{hint}; allowed: {', '.join(sorted(table))}")


def select_claims(target: str) -> list:
    """``all``, a paper key, or one claim id."""
    table = claims()
    if target == "all":
        return list(table.values())
    by_paper = [c for c in table.values() if c.paper == target]
    if by_paper:
        return by_paper
    return [lookup(table, target, "CLAIM", "claim or paper")]


def provenance_of(claim_id: str) -> str | None:
    """A discovered claim's provenance (``paper``, ``derived``, ``conjecture``); None for an id
    no module declares (a verdict built elsewhere)."""
    spec = claims().get(claim_id)
    return spec.provenance if spec is not None else None


def with_provenance(verdicts: list) -> list:
    """The verdicts, each with its claim's provenance filled in where it lacks one (a verdict
    read back from the result store carries only what was stored). Returns the same list."""
    for verdict in verdicts:
        if getattr(verdict, "provenance", None) is None:
            verdict.provenance = provenance_of(verdict.id)
    return verdicts


def listing() -> dict[str, list[dict]]:
    """Claims (with whose prediction each is: ``provenance``, and a derived claim's
    ``derivation``), algorithms and problems; an algorithm's and a problem's declared parameters
    with their default, kind, domain and meaning (``fedbounds list --json``)."""
    def params(declared: Any) -> dict[str, dict]:
        return {k: p.describe() for k, p in declared.items()}

    return {
        "claims": [{"id": c.id, "paper": c.paper, "provenance": c.provenance,
                    "description": c.title, "source": c.source,
                    **({"derivation": c.derivation, "exact_derivation": c.exact_derivation}
                       if c.derivation else {}),
                    **({"errata": list(c.errata)} if c.provenance == "erratum" else {}),
                    **({"no_conditions": c.no_conditions} if c.no_conditions else {})}
                   for c in claims().values()],
        "algorithms": [{"id": a.name, "paper": a.paper, "description": a.description,
                        "problems": list(a.problems), "params": params(a.params)}
                       for a in algorithms().values()],
        "problems": [{"id": p.name, "paper": p.paper, "description": p.description,
                      "params": params(p.params)} for p in problems().values()],
    }
