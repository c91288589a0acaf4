"""Exact worst cases by performance estimation (PEPit on cvxpy): is a theorem's rate valid over
its whole operator class, and how tight is it?

A :class:`PepModel` binds a theorem id to the operator class as the paper assumes it, the
method's steps, the performance measure (the theorem's Lyapunov ratio after one step, or the
bound's left-hand side after N steps from a normalised start) and the map from the model's
constants to the theorem's inputs, so that the theorem's value comes from the encoded
statement (:func:`fedbounds.engine.bound`), not from a retyped formula. :func:`solve` computes
the worst case as a small SDP and compares:

* ``valid``: worst ≤ theorem·(1 + tol);
* ``violated``: worst above it (the bound is false at these constants, if its conditions hold);
* ``not solved``: no solver, a failed solve, or a certificate residual too large (``reason``).

Models are discovered per paper like claims: every :class:`PepModel` that a module of
``fedbounds.verify.pep.papers`` defines, and the ``pep`` module of each paper plugin
(:mod:`fedbounds.plugins`), e.g. ``toygda/pep.py``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, Literal

from fedbounds import engine, plugins, registry
from fedbounds.errors import BadInput

from . import sdp
from .sdp import SOLVERS, SdpOutcome

Verdict = Literal["valid", "violated", "not solved"]
Kind = Literal["exact", "upper bound", "lower bound"]
#: Relative tolerance of the verdict: above the solvers' accuracy (about 1e-7 here).
TOLERANCE = 1e-5


@dataclass(frozen=True)
class PepParam:
    """A model constant: meaning, default (None: required), and its allowed range."""

    description: str
    default: float | int | None = None
    integer: bool = False
    low: float = 0.0
    low_open: bool = True
    high: float | None = None

    def check(self, name: str, value: Fraction) -> Fraction:
        """The value if it is allowed, else :class:`BadInput` naming ``--set NAME``."""
        if self.integer and value.denominator != 1:
            raise BadInput(f"--set {name}", f"{name} must be an integer, got {value}")
        too_low = value <= self.low if self.low_open else value < self.low
        if too_low or (self.high is not None and value > self.high):
            high = "∞)" if self.high is None else f"{self.high:g}]"
            low = "(" if self.low_open else "["
            raise BadInput(f"--set {name}", f"{name}={value} is outside {low}{self.low:g}, "
                           f"{high} ({self.description})")
        return value


ToTheorem = Callable[[Mapping[str, Fraction], int], dict[str, Fraction]]
Build = Callable[[Mapping[str, float], int], Callable[[], Any]]


@dataclass(frozen=True)
class PepModel:
    """A theorem's PEP: its class, method, measure and constants.

    ``theorem_values(values, steps)`` gives the theorem's inputs at the model's constants (with
    ``T = steps`` and ``V_0 = 1``, the normalised start); ``build(values, steps)`` returns the
    ``build()`` of :mod:`.methods`, ``values`` holding the constants and the theorem's derived
    quantities (e.g. p = √(γμ) of Theorem 4.2) as floats. ``kind`` says what the SDP value is
    for the theorem's class: ``exact`` (the class is interpolable by the constraints used),
    ``upper bound`` (a relaxation) or ``lower bound`` (a smaller class)."""

    theorem: str
    title: str
    method: str
    operator_class: str
    measure: str
    parameters: Mapping[str, PepParam]
    theorem_values: ToTheorem
    build: Build
    kind: Kind = "exact"
    max_steps: int = 3
    source: str = ""
    notes: tuple[str, ...] = ()
    module: str = field(default="")

    def __post_init__(self) -> None:
        if not self.module:
            object.__setattr__(self, "module", self.build.__module__)

    @property
    def paper(self) -> str:
        return self.theorem.split(".", 1)[0]

    def as_json(self) -> dict[str, Any]:
        return {"theorem": self.theorem, "title": self.title, "method": self.method,
                "class": self.operator_class, "measure": self.measure, "kind": self.kind,
                "max_steps": self.max_steps, "source": self.source, "notes": list(self.notes),
                "parameters": {k: {"description": p.description, "default": p.default}
                               for k, p in self.parameters.items()}}


@dataclass
class PepResult:
    """The worst case beside the theorem's value, the verdict and the solver's certificate."""

    theorem: str
    values: dict[str, float | int]
    steps: int
    worst: float | None
    theorem_value: float
    verdict: Verdict
    ratio: float | None
    status: str
    solver: str
    gap: float | None
    residuals: dict[str, float]
    reason: str
    conditions_hold: bool
    violated_conditions: list[str]
    kind: Kind
    derived: dict[str, float] = field(default_factory=dict)
    rate_scale: float = 1.0
    tolerance: float = TOLERANCE
    attempts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def residual(self) -> float | None:
        return max(self.residuals.values()) if self.residuals else None

    def as_json(self) -> dict[str, Any]:
        return {"theorem": self.theorem, "values": self.values, "steps": self.steps,
                "worst": self.worst, "theorem_value": self.theorem_value,
                "verdict": self.verdict, "ratio": self.ratio, "status": self.status,
                "solver": self.solver, "gap": self.gap, "residuals": self.residuals,
                "residual": self.residual, "reason": self.reason,
                "conditions_hold": self.conditions_hold,
                "violated_conditions": self.violated_conditions, "kind": self.kind,
                "derived": self.derived, "rate_scale": self.rate_scale,
                "tolerance": self.tolerance, "attempts": self.attempts}


# ---- discovery -----------------------------------------------------------------------------


@cache
def models() -> dict[str, PepModel]:
    """Theorem id → its PEP model, over the built-in papers and the plugins' ``pep`` modules."""
    from . import papers

    out: dict[str, PepModel] = {}
    for module in plugins.modules(papers, "pep"):
        name = module.__name__
        for value in vars(module).values():
            if isinstance(value, PepModel) and (value.module == name or
                                                value.module.startswith(name + ".")):
                if value.theorem in out and out[value.theorem] is not value:
                    raise plugins.PluginError(name, f"duplicate PEP model {value.theorem!r}")
                out[value.theorem] = value
    return out


def clear_caches() -> None:
    """Forget discovered models (after changing plugins)."""
    models.cache_clear()


def model(theorem_id: str, argument: str = "ID") -> PepModel:
    """The PEP model of a theorem; :class:`BadInput` naming the covered ids otherwise."""
    table = models()
    if theorem_id in table:
        return table[theorem_id]
    close = difflib.get_close_matches(theorem_id, list(table), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    raise BadInput(argument, f"no PEP model for {theorem_id!r}{hint}; covered: "
                   f"{', '.join(sorted(table))}")


# ---- solving -------------------------------------------------------------------------------


def _fraction(name: str, value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise BadInput(f"--set {name}", f"{name} takes a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"--set {name}", f"{name} must be finite, got {value!r}")
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)  # as typed


def resolve_values(pep_model: PepModel, values: Mapping[str, Any]) -> dict[str, Fraction]:
    """The model's constants: validated ``values`` plus defaults (exact fractions)."""
    out: dict[str, Fraction] = {}
    thm = registry.get(pep_model.theorem)
    for name, value in values.items():
        if name not in pep_model.parameters:
            derived = {s.name: v for s, v in thm.derived.items()}
            if name in derived:
                raise BadInput(f"--set {name}", f"{name!r} is derived by {thm.id} ({name} = "
                               f"{derived[name]}), not an input")
            close = difflib.get_close_matches(name, list(pep_model.parameters), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise BadInput(f"--set {name}", f"unknown constant {name!r} for the PEP of "
                           f"{thm.id}{hint}; allowed: {', '.join(pep_model.parameters)}")
        out[name] = pep_model.parameters[name].check(name, _fraction(name, value))
    missing = []
    for name, param in pep_model.parameters.items():
        if name not in out:
            if param.default is None:
                missing.append(f"{name} ({param.description})")
            else:
                out[name] = Fraction(param.default)
    if missing:
        raise BadInput("--set", f"missing value for {', '.join(missing)}")
    return out


def theorem_bound(pep_model: PepModel, values: Mapping[str, Fraction],
                  steps: int) -> engine.BoundResult:
    """The encoded theorem's bound at the model's constants after ``steps`` steps (V_0 = 1)."""
    thm = registry.get(pep_model.theorem)
    return engine.bound(thm, pep_model.theorem_values(values, steps))


def solve(pep_model: PepModel | str, values: Mapping[str, Any], steps: int = 1,
          rate_scale: float = 1.0, tol: float = TOLERANCE,
          solvers: Sequence[str] = SOLVERS) -> PepResult:
    """The exact worst case of ``pep_model``'s measure at ``values`` beside the theorem's value
    (its rate multiplied by ``rate_scale`` per step: a perturbation for tests and claims).
    Bad input raises :class:`BadInput`; a solver problem gives verdict ``not solved``."""
    if isinstance(pep_model, str):
        pep_model = model(pep_model)
    if isinstance(steps, bool) or not isinstance(steps, int) or not \
            1 <= steps <= pep_model.max_steps:
        raise BadInput("--steps", f"must be an integer from 1 to {pep_model.max_steps} for "
                       f"{pep_model.theorem} (the SDP grows like 2^steps), got {steps!r}")
    if not (isinstance(rate_scale, (int, float)) and rate_scale > 0):
        raise BadInput("rate_scale", f"must be a positive number, got {rate_scale!r}")
    exact = resolve_values(pep_model, values)
    bound = theorem_bound(pep_model, exact, steps)
    theorem_value = float(bound.value) * float(rate_scale) ** steps
    numbers = {k: int(v) if pep_model.parameters[k].integer else float(v)
               for k, v in exact.items()}
    derived = {k: float(v) for k, v in bound.derived.items()}
    outcome: SdpOutcome = sdp.solve(pep_model.build({**numbers, **derived}, steps), solvers)
    verdict: Verdict = "not solved"
    ratio = None
    reason = outcome.reason
    if outcome.solved and outcome.worst is not None:
        ratio = outcome.worst / theorem_value if theorem_value > 0 else math.inf
        verdict = "valid" if outcome.worst <= theorem_value * (1 + tol) else "violated"
    if not bound.feasible:
        note = (f"the theorem's conditions fail here ({', '.join(bound.violated)}): it claims "
                "no bound at these constants")
        reason = f"{reason}; {note}" if reason else note
    return PepResult(pep_model.theorem, numbers, steps, outcome.worst, theorem_value, verdict,
                     ratio, outcome.status, outcome.solver, outcome.gap, outcome.residuals,
                     reason, bound.feasible, list(bound.violated), pep_model.kind, derived,
                     float(rate_scale), tol, outcome.attempts)
