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
(:mod:`fedbounds.plugins`), e.g. ``toygda/pep.py``; a user's file with its own theorem and
model is loaded with :func:`load_file` (``fedbounds pep --theorems FILE.py``, e.g.
``docs/gda_pep.py``). Methods without a theorem (Local GDA and its heterogeneity bias,
:mod:`.localgda`) are keyed by the algorithm's name: :func:`method_models`.
"""

from __future__ import annotations

import difflib
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from pathlib import Path
from types import ModuleType
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
def _discovered() -> dict[str, PepModel]:
    """Theorem id → PEP model over the built-in papers and the plugins' ``pep`` modules."""
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


#: PEP models of the user files loaded with :func:`load_file`, by resolved path.
_FILE_MODELS: dict[str, list[PepModel]] = {}
#: Loaded user files that define no PEP model (named when a lookup fails).
_FILES_WITHOUT_MODELS: dict[str, str] = {}


def models() -> dict[str, PepModel]:
    """Theorem id → its PEP model, over the built-in papers, the plugins' ``pep`` modules and
    the user files loaded with :func:`load_file` (while their theorems are loaded)."""
    out = dict(_discovered())
    known = registry.theorems()
    for file_models in _FILE_MODELS.values():
        out.update((m.theorem, m) for m in file_models if m.theorem in known)
    return out


def clear_caches() -> None:
    """Forget discovered models and the models of loaded user files (after changing plugins,
    in tests)."""
    _discovered.cache_clear()
    _FILE_MODELS.clear()
    _FILES_WITHOUT_MODELS.clear()


def _module_of(file: Path, theorems: Sequence[Any]) -> ModuleType:
    """The module :func:`fedbounds.registry.load_file` made of ``file``: the one whose
    ``THEOREMS`` are the registered objects."""
    for module in list(sys.modules.values()):
        listed = getattr(module, "__dict__", {}).get("THEOREMS")  # no module __getattr__
        if not isinstance(listed, (list, tuple)) or len(listed) != len(theorems) or \
                any(a is not b for a, b in zip(listed, theorems, strict=True)):
            continue
        origin = getattr(module, "__file__", None)
        if origin and Path(origin).resolve() == file:
            return module
    raise RuntimeError(f"{file} was loaded, but its module is not in sys.modules")


def load_file(path: str | Path, argument: str = "--theorems") -> list[PepModel]:
    """Load a user's Python file that defines theorems (``THEOREMS``, as for
    :func:`fedbounds.registry.load_file`) and their PEP models, for the rest of this process:
    the module-level list ``PEP_MODELS`` if the file has one, else every :class:`PepModel` it
    binds at module level. Returns the file's models (maybe none).

    Errors are :class:`BadInput` naming ``argument`` and the file: those of the theorem file
    itself, ``PEP_MODELS`` holding something else than models, a model of an unknown theorem,
    two models of one theorem, or a model for a theorem that already has another one."""
    theorems = registry.load_file(path, argument)
    file = Path(path).expanduser().resolve()
    module = _module_of(file, theorems)
    declared = getattr(module, "PEP_MODELS", None)
    if declared is not None:
        if not isinstance(declared, (list, tuple)):
            raise BadInput(argument, f"{path}: PEP_MODELS must be a list of PepModel, got "
                                     f"{type(declared).__name__}")
        found = list(declared)
        for item in found:
            if not isinstance(item, PepModel):
                raise BadInput(argument, f"{path}: PEP_MODELS holds {item!r}, not a PepModel")
    else:
        found = list({id(v): v for v in vars(module).values()
                      if isinstance(v, PepModel)}.values())
    builtin = _discovered()
    others = {m.theorem: (key, m) for key, ms in _FILE_MODELS.items() if key != str(file)
              for m in ms}
    known = registry.theorems()
    chosen: dict[str, PepModel] = {}
    for item in found:
        if item.theorem not in known:
            raise BadInput(argument, f"{path}: PEP model for unknown theorem {item.theorem!r}"
                                     " (define it in THEOREMS or load its file first)")
        if item.theorem in chosen and chosen[item.theorem] is not item:
            raise BadInput(argument, f"{path}: two PEP models for {item.theorem!r}")
        existing = builtin.get(item.theorem) or others.get(item.theorem, (None, None))[1]
        if existing is not None and existing is not item:
            where = others[item.theorem][0] if item.theorem in others else existing.module
            raise BadInput(argument, f"{path}: {item.theorem!r} already has a PEP model "
                                     f"({where})")
        if existing is None:
            chosen[item.theorem] = item
    _FILE_MODELS[str(file)] = list(chosen.values())
    if chosen:
        _FILES_WITHOUT_MODELS.pop(str(file), None)
    elif not found:
        _FILES_WITHOUT_MODELS[str(file)] = str(path)
    return list(chosen.values())


def load_files(paths: Sequence[str | Path] | None, argument: str = "--theorems") -> None:
    """:func:`load_file` for each path (the CLI's repeatable ``--theorems``)."""
    for path in paths or []:
        load_file(path, argument)


def method_models() -> dict[str, Any]:
    """Algorithm name → its theorem-less PEP model (:mod:`.localgda`: ``local-gda`` over the
    paper's class, ``local-gda.lipschitz`` over a smaller one)."""
    from . import localgda

    return {m.id: m for m in localgda.MODELS}


def model(theorem_id: str, argument: str = "ID") -> PepModel:
    """The PEP model of a theorem (``FILE.py:ID`` loads FILE.py first, :func:`load_file`);
    :class:`BadInput` naming the covered ids otherwise."""
    if ".py:" in theorem_id:
        path, theorem_id = theorem_id.rsplit(":", 1)
        load_file(path, argument)
    table = models()
    if theorem_id in table:
        return table[theorem_id]
    methods_ = method_models()
    if theorem_id in methods_:
        raise BadInput(argument, f"{theorem_id!r} is a method without a theorem: ask "
                                 f"`fedbounds pep {theorem_id}` (no verdict, its worst cases "
                                 "beside closed forms)")
    close = difflib.get_close_matches(theorem_id, [*table, *methods_], n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    bare = "".join(f"; {p} defines no PepModel (PEP_MODELS)"
                   for p in _FILES_WITHOUT_MODELS.values())
    raise BadInput(argument, f"no PEP model for {theorem_id!r}{hint}; covered: "
                   f"{', '.join(sorted(table))}; methods without a theorem: "
                   f"{', '.join(sorted(methods_))}{bare}")


# ---- solving -------------------------------------------------------------------------------


def _fraction(name: str, value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise BadInput(f"--set {name}", f"{name} takes a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"--set {name}", f"{name} must be finite, got {value!r}")
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)  # as typed


def check_values(parameters: Mapping[str, PepParam], values: Mapping[str, Any], owner: str,
                 derived: Mapping[str, Any] | None = None) -> dict[str, Fraction]:
    """Validated ``values`` plus defaults (exact fractions) for the constants ``parameters``
    of a model of ``owner``; a name in ``derived`` (computed by the theorem) is refused as an
    input. :class:`BadInput` names ``--set NAME`` (or ``--set`` for missing values)."""
    out: dict[str, Fraction] = {}
    for name, value in values.items():
        if name not in parameters:
            if derived and name in derived:
                raise BadInput(f"--set {name}", f"{name!r} is derived by {owner} ({name} = "
                               f"{derived[name]}), not an input")
            close = difflib.get_close_matches(name, list(parameters), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise BadInput(f"--set {name}", f"unknown constant {name!r} for the PEP of "
                           f"{owner}{hint}; allowed: {', '.join(parameters)}")
        out[name] = parameters[name].check(name, _fraction(name, value))
    missing = []
    for name, param in parameters.items():
        if name not in out:
            if param.default is None:
                missing.append(f"{name} ({param.description})")
            else:
                out[name] = Fraction(param.default)
    if missing:
        raise BadInput("--set", f"missing value for {', '.join(missing)}")
    return out


def resolve_values(pep_model: PepModel, values: Mapping[str, Any]) -> dict[str, Fraction]:
    """The model's constants: validated ``values`` plus defaults (exact fractions)."""
    thm = registry.get(pep_model.theorem)
    derived = {s.name: v for s, v in thm.derived.items()}
    return check_values(pep_model.parameters, values, thm.id, derived)


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
