"""Claims: a declared spec plus one measure function (DESIGN "Verdicts").

A claim is a falsifiable prediction of a paper. It is written as a :class:`ClaimSpec` (id,
prediction and its source, theorems and errata it checks, parameters per profile, the decision
rule, the perturbation that must refute it, the figure's axes) around one *measure* function
that runs the experiment and returns a :class:`Measurement` (the statistic with its interval,
the series, the evidence, the run that reproduces it). :func:`evaluate` does the rest for every
claim alike: it validates overrides, applies the profile, times, decides, and builds the figure
and the :class:`Verdict`. A verdict is computed from the measurement every time, never stored.

    @claim("toy.p1", title="GDA contracts at rate 1 − γμ", prediction="...", source="Thm 1",
           provenance="paper", rule=UpperBound(1.0), params={"T": 50},
           perturb={"rate_scale": 0.5}, figure=FigureSpec("contraction", "t", "ratio"))
    def p1(params: Params, seed: int) -> Measurement:
        ...

A variant (``p6a``, ``p6b``) is a second spec over the same measure: ``p6a.variant("x.p6b",
params={...})``.

Two seeds, each with one meaning. The *instance seed* (``--instance-seed``) fixes the problem
instance: games, operators, datasets and the initial points that define it (e.g. D₀). The
*noise seed* (``--seed``) drives everything drawn while the experiment runs: stochastic
gradients, client sampling, coins, replicas, random test points. A measure function keeps the
signature ``measure(params, seed)`` with ``seed`` the noise seed; :func:`evaluate` adds the
instance seed to its parameters as ``params["instance_seed"]`` (a reserved name, never a
declared parameter, left out of the evidence's ``params``), so a measure builds its instances
with ``make_game(pset, params["instance_seed"])`` and runs them with ``simulate(..., seed=seed)``
(one line changes where it used one seed for both; nothing else in the 80-odd measures does).
Both default to 0, and at 0/0 every claim draws exactly what it drew when one seed did both.
Every :class:`Verdict` records both seeds, and :func:`evaluate` stamps the instance seed on the
measurement's :class:`RunConfig`, whose rerun command carries ``--seed S --instance-seed I``.

Whose prediction it is and read how (``provenance``, a required argument of :func:`claim`,
shown by ``fedbounds list``, ``verify`` and the report): :mod:`verify.provenance`. Which
theorem's conditions each run meets: :mod:`verify.conditions` (the measurement's
``conditions``; a verdict whose runs fail them is an extrapolation beyond the theorem).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from fedbounds.errors import BadInput

from .conditions import record
from .measurement import Check, Measurement, Params, RunConfig
from .perturbation import Plant
from .provenance import PROVENANCES, Provenance, check_provenance, meaning, refutes_paper
from .publication import Published
from .rules import (
    AtMost,
    Interval,
    LowerBound,
    Rule,
    UpperBound,
    Value,
    VerdictKind,
    decide,
    resolve,
    tolerance_needs_why,
)

# re-exported: claims modules and the app import a claim's vocabulary from here
__all__ = ["PROVENANCES", "AtMost", "Check", "Interval", "LowerBound", "Measurement", "Params",
           "Provenance", "Rule", "RunConfig", "UpperBound", "Value", "VerdictKind", "decide",
           "resolve", "tolerance_needs_why"]

PROFILES = ("quick", "full")
SEED_MAX = 2**63 - 1  # seeds are integers in [0, SEED_MAX] (roots of numpy SeedSequences)
INSTANCE_SEED = "instance_seed"  # the reserved parameter through which a measure gets it


def check_seed(seed: Any, argument: str = "--seed") -> int:
    """A seed: an integer in [0, 2**63 - 1]; otherwise :class:`BadInput` naming ``argument``
    (``--seed`` for the noise seed, ``--instance-seed`` for the instance seed)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise BadInput(argument, f"must be an integer in [0, 2**63 - 1], got {seed!r}")
    return seed


# ---- the spec ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureSpec:
    """The figure's axes; the series come from the measurement."""

    title: str
    xlabel: str
    ylabel: str
    logx: bool = False
    logy: bool = True
    kind: Literal["line", "scatter"] = "line"


@dataclass
class Figure:
    """Data for one figure: named series of (x, y), axis labels, reference lines and
    confidence bands (label → (x, lower, upper)), shaded where the data has replica intervals."""

    title: str
    xlabel: str
    ylabel: str
    series: dict[str, tuple[list[float], list[float]]]
    logx: bool = False
    logy: bool = True
    hlines: dict[str, float] = field(default_factory=dict)
    kind: Literal["line", "scatter"] = "line"
    bands: dict[str, tuple[list[float], list[float], list[float]]] = field(default_factory=dict)


Measure = Callable[[Params, int], Measurement]


@dataclass(frozen=True)
class ClaimSpec:
    """A claim: what is predicted, where the paper says it, how it is decided and perturbed.

    ``params`` are the quick profile's values and declare the allowed names (an override's
    type must match its default's); ``profiles`` overrides them per profile (``"full"``).
    ``perturb`` is a set of overrides under which the claim must be ``refuted`` (the contract
    test checks it). ``provenance``, ``derivation`` and ``exact_derivation``: whose prediction
    it is (module docstring); checked when the spec is built."""

    id: str
    title: str
    prediction: str
    source: str
    measure: Measure
    rule: Rule
    figure: FigureSpec
    provenance: Provenance
    params: Mapping[str, Any] = field(default_factory=dict)
    profiles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    perturb: Mapping[str, Any] = field(default_factory=dict)
    theorems: tuple[str, ...] = ()
    errata: tuple[str, ...] = ()
    derivation: str = ""
    exact_derivation: bool = False
    module: str = ""
    # estimated quick-profile seconds: orders a run's tasks before the result store has
    # measured the claim (a scheduling hint, never part of a result)
    seconds: float = 0.5
    # how the report publishes the numbers its computation determines less well than
    # publication.DIGITS digits (fewer digits, a rounding floor), each with its reason
    published: tuple[Published, ...] = ()
    # why the claim has no theorem run whose conditions could be checked (an exact analysis,
    # a check of the encoding); empty when its measure reports its runs' conditions
    no_conditions: str = ""
    # experiment-level perturbations (verify.perturbation): each must give ``refuted``
    plants: tuple[Plant, ...] = ()
    # where the rule's tolerance comes from (round-off, solver accuracy, confidence level, a
    # stated modelling slack); required when the rule has one (tolerance_needs_why)
    tolerance_why: str = ""

    def __post_init__(self) -> None:
        check_provenance(self.id, self.provenance, self.derivation, self.exact_derivation,
                         self.errata)

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def own(self) -> bool:
        """Ours rather than the paper's: a derived prediction or a conjecture."""
        return self.provenance != "paper"

    @property
    def refutes_paper(self) -> bool:
        """Whether a refutation of this claim refutes the paper: a paper statement, or a
        prediction derived from it exactly."""
        return refutes_paper(self.provenance, self.exact_derivation)

    @property
    def refutation_meaning(self) -> str:
        """What a ``refuted`` verdict of this claim means, in words."""
        return meaning(self.provenance, self.exact_derivation)

    @property
    def description(self) -> str:
        return self.title

    def variant(self, id: str, **changes: Any) -> ClaimSpec:
        """A second claim over the same measure (``params`` and ``profiles`` are merged)."""
        params = {**self.params, **changes.pop("params", {})}
        profiles = {k: {**self.profiles.get(k, {}), **v}
                    for k, v in {**self.profiles, **changes.pop("profiles", {})}.items()}
        return replace(self, id=id, params=params, profiles=profiles, **changes)

    def resolve_params(self, profile: str = "quick", overrides: Mapping[str, Any] | None = None
                       ) -> dict[str, Any]:
        """The parameters of a run: defaults, then the profile's, then validated overrides."""
        if profile not in PROFILES:
            raise BadInput("--profile", f"{profile!r} is not a profile; allowed: "
                           f"{', '.join(PROFILES)}")
        out = {**self.params, **self.profiles.get(profile, {})}
        for name, value in (overrides or {}).items():
            if name not in out:
                raise BadInput(name, f"{self.id}: unknown parameter {name!r}; allowed: "
                               f"{', '.join(sorted(out)) or '(none)'}")
            out[name] = _checked(self.id, name, value, out[name])
        return out

    def run(self, profile: str = "quick", seed: int = 0, instance_seed: int = 0,
            **overrides: Any) -> Verdict:
        """:func:`evaluate` this claim (``seed`` the noise seed, ``instance_seed`` the
        instance's)."""
        return evaluate(self, profile, seed, instance_seed, **overrides)


def _checked(claim_id: str, name: str, value: Any, default: Any) -> Any:
    """An override must be of its default's kind: a number for a number (an integer for an
    integer), a string for a string, a sequence for a sequence."""
    def bad(kind: str) -> BadInput:
        return BadInput(name, f"{claim_id}: parameter {name!r} takes {kind}, got {value!r}")

    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        value = float(value)
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise bad("a string")
    elif isinstance(default, (tuple, list)):
        if not isinstance(value, (tuple, list)):
            raise bad("a sequence")
        value = type(default)(value)
    return value


@dataclass(frozen=True)
class Predictions:
    """A paper's catalogue of checkable predictions, numbered 1 … ``count``: the claim
    ``<paper>.p<N>`` (or its variants ``p<N>a``, ``p<N>b`` …) with N ≤ ``count`` tests
    prediction N; a claim numbered above ``count`` is an addition of ours. A claims module
    declares one per paper (``PREDICTIONS = Predictions("toy", 3, "Section 5 of the paper")``);
    the report's index counts, per paper, the predictions that have a verdict."""

    paper: str
    count: int
    source: str = ""
    module: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 0:
            raise ValueError(f"Predictions({self.paper!r}): count must be an integer >= 0, "
                             f"got {self.count!r}")

    def number(self, claim_id: str) -> int | None:
        """The prediction a claim id tests (``sagda.p9c`` → 9), or None when the id is not
        ``<paper>.p<N>…`` of this paper or N is beyond the catalogue."""
        paper, _, rest = claim_id.partition(".")
        digits = rest[1:len(rest) - len(rest[1:].lstrip("0123456789"))] if rest[:1] == "p" else ""
        if paper != self.paper or not digits:
            return None
        n = int(digits)
        return n if 1 <= n <= self.count else None

    def covered(self, claim_ids: Sequence[str]) -> set[int]:
        """The prediction numbers that at least one of ``claim_ids`` tests."""
        return {n for n in map(self.number, claim_ids) if n is not None}


def claim(id: str, *, title: str, prediction: str, source: str, provenance: Provenance,
          rule: Rule, figure: FigureSpec, derivation: str = "", exact_derivation: bool = False,
          params: Mapping[str, Any] | None = None,
          profiles: Mapping[str, Mapping[str, Any]] | None = None,
          perturb: Mapping[str, Any] | None = None, theorems: Sequence[str] = (),
          errata: Sequence[str] = (), seconds: float = 0.5,
          published: Sequence[Published] = (), no_conditions: str = "",
          plants: Sequence[Plant] = (), tolerance_why: str = ""
          ) -> Callable[[Measure], ClaimSpec]:
    """Declare a claim around its measure function (the decorated name becomes the spec).
    ``provenance`` is required (``"paper"``, ``"derived"`` or ``"conjecture"``); a derived
    claim also gives ``derivation`` (and ``exact_derivation=True`` when it is exact)."""
    def wrap(measure: Measure) -> ClaimSpec:
        return ClaimSpec(id=id, title=title, prediction=prediction, source=source,
                         measure=measure, rule=rule, figure=figure, provenance=provenance,
                         derivation=derivation, exact_derivation=exact_derivation,
                         params=dict(params or {}),
                         profiles={k: dict(v) for k, v in (profiles or {}).items()},
                         perturb=dict(perturb or {}), theorems=tuple(theorems),
                         errata=tuple(errata), module=measure.__module__, seconds=seconds,
                         published=tuple(published), no_conditions=no_conditions,
                         plants=tuple(plants), tolerance_why=tolerance_why)
    return wrap


# ---- the verdict -------------------------------------------------------------------------------


@dataclass
class Verdict:
    id: str
    verdict: VerdictKind
    statistic: float | None
    predicted: float | str | None
    tolerance: float | str | None
    evidence: dict[str, Any]
    figure: Figure | None = None
    config: dict[str, Any] = field(default_factory=dict)  # a RunConfig: `fedbounds run` input
    seconds: float | None = None
    rule: str = ""
    seed: int = 0  # the noise seed of the run
    instance_seed: int = 0  # the instance seed of the run
    provenance: Provenance | None = None  # the claim's (None for a verdict built by hand)
    # its runs against their theorem's conditions (verify.conditions; {} for one built by hand)
    conditions: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return _clean({"id": self.id, "verdict": self.verdict, "provenance": self.provenance,
                       "statistic": self.statistic,
                       "predicted": self.predicted, "tolerance": self.tolerance,
                       "rule": self.rule, "evidence": self.evidence, "config": self.config,
                       "seconds": self.seconds, "seed": self.seed,
                       "instance_seed": self.instance_seed,
                       **({"conditions": self.conditions} if self.conditions else {})})


def _clean(x: Any) -> Any:
    """JSON-safe: non-finite floats become None, numpy scalars Python numbers."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if hasattr(x, "item") and callable(x.item):  # numpy scalar
        return _clean(x.item())
    return x


def evaluate(spec: ClaimSpec, profile: str = "quick", seed: int = 0, instance_seed: int = 0,
             **overrides: Any) -> Verdict:
    """Run a claim: validate, measure, decide, and build its figure and verdict. ``seed`` is
    the noise seed, ``instance_seed`` the instance's (the measure reads it as
    ``params["instance_seed"]``)."""
    check_seed(seed, "--seed")
    check_seed(instance_seed, "--instance-seed")
    params = spec.resolve_params(profile, overrides)
    start = time.perf_counter()
    m = spec.measure({**params, INSTANCE_SEED: instance_seed}, seed)
    verdict = decide(spec.rule, m, params)
    evidence = dict(m.evidence)
    if m.diverged is not None:
        evidence.setdefault("diverged", m.diverged)
    if m.inconclusive is not None:
        evidence.setdefault("inconclusive", m.inconclusive)
    if m.interval is not None:
        evidence.setdefault("interval", [float(m.interval[0]), float(m.interval[1])])
    if m.checks:
        evidence.setdefault("checks", {c.name: c.passed for c in m.checks})
    evidence.setdefault("params", {k: v for k, v in params.items()
                                   if isinstance(v, (int, float, str, bool))})
    figure = Figure(spec.figure.title, spec.figure.xlabel, spec.figure.ylabel, dict(m.series),
                    spec.figure.logx, spec.figure.logy, dict(m.hlines), spec.figure.kind,
                    dict(m.bands))
    try:
        predicted, tolerance = spec.rule.expected(m, params)
        words = spec.rule.words(m, params)
    except ValueError:  # a rule that compares against a reference the run could not compute
        predicted, tolerance, words = None, None, ""
    if m.predicted is not None:
        predicted = m.predicted
    if m.tolerance is not None:
        tolerance = m.tolerance
    run = replace(m.run, instance_seed=instance_seed) if m.run is not None else None
    conditions = record(m.conditions, spec.no_conditions)
    return Verdict(spec.id, verdict, None if m.statistic is None else float(m.statistic),
                   predicted, tolerance, evidence, figure if m.series else None,
                   run.as_json() if run is not None else {},
                   time.perf_counter() - start, words, seed, instance_seed,
                   read_as(spec.provenance, conditions), conditions)


def read_as(provenance: Provenance, conditions: Mapping[str, Any]) -> Provenance:
    """A verdict's reading: its claim's, but an extrapolation beyond the theorem when a run of
    a paper, erratum or derived reading failed the theorem's conditions."""
    if conditions.get("status") == "fail" and provenance in ("paper", "erratum", "derived"):
        return "extrapolation"
    return provenance
