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
from typing import Any, Literal, Protocol

from fedbounds.errors import BadInput

from .conditions import RunConditions, record
from .perturbation import Plant
from .provenance import PROVENANCES, Provenance, check_provenance, meaning, refutes_paper
from .publication import Published

__all__ = ["PROVENANCES", "Provenance"]  # re-exported: the store checks rows against them

VerdictKind = Literal["confirmed", "refuted", "inconclusive", "diverged"]
PROFILES = ("quick", "full")
Params = Mapping[str, Any]
SEED_MAX = 2**63 - 1  # seeds are integers in [0, SEED_MAX] (roots of numpy SeedSequences)
INSTANCE_SEED = "instance_seed"  # the reserved parameter through which a measure gets it


def check_seed(seed: Any, argument: str = "--seed") -> int:
    """A seed: an integer in [0, 2**63 - 1]; otherwise :class:`BadInput` naming ``argument``
    (``--seed`` for the noise seed, ``--instance-seed`` for the instance seed)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise BadInput(argument, f"must be an integer in [0, 2**63 - 1], got {seed!r}")
    return seed


# ---- what a measure function returns -----------------------------------------------------------


@dataclass(frozen=True)
class RunConfig:
    """The ``fedbounds run`` call that reproduces a claim's experiment (or one configuration of a
    sweep: ``sweeps`` names the swept values). ``fedbounds run`` accepts it verbatim."""

    algorithm: str
    problem: str
    set: Mapping[str, float | int] = field(default_factory=dict)
    rounds: int = 100
    seeds: int = 1
    seed: int = 0  # the noise seed (--seed)
    sweeps: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    instance_seed: int = 0  # the instance seed (--instance-seed)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"algorithm": self.algorithm, "problem": self.problem,
                               "set": dict(self.set), "rounds": self.rounds,
                               "seeds": self.seeds, "seed": self.seed,
                               "instance_seed": self.instance_seed}
        if self.sweeps:
            out["sweeps"] = {k: list(v) for k, v in self.sweeps.items()}
        return out

    def command(self) -> str:
        line = f"fedbounds run {self.algorithm} --problem {self.problem}"
        if self.set:
            line += " --set " + " ".join(f"{k}={_num(v)}" for k, v in self.set.items())
        line += (f" --rounds {self.rounds} --seeds {self.seeds} --seed {self.seed}"
                 f" --instance-seed {self.instance_seed}")
        if self.sweeps:
            line += "  # swept: " + "; ".join(f"{k} in {list(v)}" for k, v in self.sweeps.items())
        return line


def _num(x: Any) -> str:
    return repr(x) if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Check:
    """A side condition of a claim's decision: when it fails the verdict becomes ``on_fail``
    (``refuted`` overrides any verdict but ``diverged``; ``inconclusive`` overrides
    ``confirmed``)."""

    name: str
    passed: bool
    on_fail: Literal["refuted", "inconclusive"] = "refuted"


@dataclass
class Measurement:
    """What a measure function computed: the statistic (with its confidence interval where it
    has one), a reference value the rule may compare against when the run computes it (e.g. a
    theorem's bound at the instance's constants), the figure's series and reference lines, the
    evidence, the run that reproduces it, side checks, and ``diverged`` / ``inconclusive``
    reasons when the experiment blew up or gave too little signal. ``bands`` (label → (x,
    lower, upper)) are confidence bands drawn around series (figure only: no rule reads them)."""

    statistic: float | None
    interval: tuple[float, float] | None = None
    reference: float | None = None
    series: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    hlines: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    run: RunConfig | None = None
    checks: Sequence[Check] = ()
    diverged: str | None = None
    inconclusive: str | None = None
    predicted: float | str | None = None  # shown instead of the rule's value when given
    tolerance: float | str | None = None
    bands: dict[str, tuple[list[float], list[float], list[float]]] = field(default_factory=dict)
    conditions: Sequence[RunConditions] = ()  # each run: the theorem tested, its inputs there


# ---- decision rules ----------------------------------------------------------------------------

Value = float | str  # a number, the name of a claim parameter, or "reference" (the measurement's)


def resolve(value: Value, params: Params, m: Measurement) -> float:
    """A rule's number: literal, a claim parameter by name, or the measurement's reference."""
    if isinstance(value, str):
        if value == "reference":
            if m.reference is None:
                raise ValueError("the rule compares against the measurement's reference, "
                                 "but the measure function returned none")
            return float(m.reference)
        return float(params[value])
    return float(value)


def _ends(m: Measurement) -> tuple[float, float]:
    s = math.nan if m.statistic is None else float(m.statistic)
    return (float(m.interval[0]), float(m.interval[1])) if m.interval is not None else (s, s)


def _finite(*xs: float) -> bool:
    return all(math.isfinite(x) for x in xs)


class Rule(Protocol):
    """A decision rule: ``decide`` gives the verdict, ``expected`` the prediction and tolerance
    a reader sees, ``words`` the rule in words."""

    def decide(self, m: Measurement, params: Params) -> VerdictKind: ...
    def expected(self, m: Measurement, params: Params) -> tuple[float | str, float | str]: ...
    def words(self, m: Measurement, params: Params) -> str: ...


@dataclass(frozen=True)
class UpperBound:
    """Confirmed if the statistic is at most ``bound``·(1 + ``rtol``). ``end`` picks what is
    compared: the statistic, or the lower end of its interval (refuted only when even the
    lower end exceeds the bound)."""

    bound: Value = 1.0
    rtol: Value = 1e-9
    end: Literal["statistic", "lower"] = "statistic"

    def decide(self, m: Measurement, params: Params) -> VerdictKind:
        x = _ends(m)[0] if self.end == "lower" else (
            math.nan if m.statistic is None else float(m.statistic))
        if not _finite(x):
            return "diverged"
        bound = resolve(self.bound, params, m)
        return "confirmed" if x <= bound * (1 + resolve(self.rtol, params, m)) else "refuted"

    def expected(self, m: Measurement, params: Params) -> tuple[float | str, float | str]:
        return (f"<= {resolve(self.bound, params, m):g}",
                f"{resolve(self.rtol, params, m):g} (relative)")

    def words(self, m: Measurement, params: Params) -> str:
        what = "the lower end of the statistic's interval" if self.end == "lower" else \
            "the statistic"
        return (f"confirmed if {what} is at most {resolve(self.bound, params, m):g} × "
                f"(1 + {resolve(self.rtol, params, m):g}), refuted otherwise")


@dataclass(frozen=True)
class LowerBound:
    """Confirmed if the statistic is at least ``bound``·(1 − ``rtol``)."""

    bound: Value
    rtol: Value = 0.0

    def decide(self, m: Measurement, params: Params) -> VerdictKind:
        x = math.nan if m.statistic is None else float(m.statistic)
        if not _finite(x):
            return "diverged"
        bound = resolve(self.bound, params, m)
        return "confirmed" if x >= bound * (1 - resolve(self.rtol, params, m)) else "refuted"

    def expected(self, m: Measurement, params: Params) -> tuple[float | str, float | str]:
        return (f">= {resolve(self.bound, params, m):g}",
                f"{resolve(self.rtol, params, m):g} (relative)")

    def words(self, m: Measurement, params: Params) -> str:
        return (f"confirmed if the statistic is at least {resolve(self.bound, params, m):g} × "
                f"(1 − {resolve(self.rtol, params, m):g}), refuted otherwise")


@dataclass(frozen=True)
class Interval:
    """Confidence interval [lo, hi] (the statistic itself when it has none) against
    ``predicted`` ± ``tol``: confirmed if they overlap, refuted if the interval lies outside,
    inconclusive if it is wider than ``max_width``·``tol``."""

    predicted: Value
    tol: Value
    max_width: float = 4.0

    def decide(self, m: Measurement, params: Params) -> VerdictKind:
        lo, hi = _ends(m)
        pred, tol = resolve(self.predicted, params, m), resolve(self.tol, params, m)
        if not _finite(lo, hi):
            return "diverged"
        if hi - lo > self.max_width * tol:
            return "inconclusive"
        if hi < pred - tol or lo > pred + tol:
            return "refuted"
        return "confirmed"

    def expected(self, m: Measurement, params: Params) -> tuple[float | str, float | str]:
        return resolve(self.predicted, params, m), resolve(self.tol, params, m)

    def words(self, m: Measurement, params: Params) -> str:
        pred, tol = resolve(self.predicted, params, m), resolve(self.tol, params, m)
        lo, hi = _ends(m)
        misses = (_finite(lo, hi) and tol > 0 and not lo <= pred <= hi
                  and not (hi < pred - tol or lo > pred + tol))
        return (f"confirmed if the statistic's interval overlaps {pred:g} ± {tol:g}, refuted if "
                f"it lies outside, inconclusive if it is wider than {self.max_width:g} × {tol:g}"
                + (f"; the measured interval misses {pred:g} itself: only the tolerance "
                   f"{tol:g} confirms" if misses else ""))


@dataclass(frozen=True)
class AtMost:
    """One-sided: the interval of a statistic predicted to be at most ``bound`` (± ``tol``).
    Refuted if the whole interval lies above bound + tol, confirmed if it lies below,
    inconclusive otherwise."""

    bound: Value
    tol: Value = 0.0

    def decide(self, m: Measurement, params: Params) -> VerdictKind:
        edge = resolve(self.bound, params, m) + resolve(self.tol, params, m)
        lo, hi = _ends(m)
        if not _finite(lo, hi):
            return "diverged"
        return "refuted" if lo > edge else "confirmed" if hi <= edge else "inconclusive"

    def expected(self, m: Measurement, params: Params) -> tuple[float | str, float | str]:
        return f"<= {resolve(self.bound, params, m):g}", resolve(self.tol, params, m)

    def words(self, m: Measurement, params: Params) -> str:
        edge = resolve(self.bound, params, m) + resolve(self.tol, params, m)
        return (f"refuted if the statistic's whole interval lies above {edge:g}, confirmed if it "
                f"lies at or below, inconclusive otherwise")


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


def tolerance_needs_why(rule: Rule, params: Params) -> bool:
    """Whether a rule's tolerance (``rtol`` or ``tol``) can be other than 0 at ``params``: a
    parameter name, or a nonzero number."""
    for name in ("rtol", "tol"):
        value = getattr(rule, name, 0)
        if isinstance(value, str) or (isinstance(value, (int, float)) and value != 0):
            if not isinstance(value, str) or params.get(value, 1) != 0:
                return True
    return False


def decide(rule: Rule, m: Measurement, params: Params) -> VerdictKind:
    """The verdict of a measurement: ``diverged`` and ``inconclusive`` reasons first, then the
    rule, then the side checks (a failed ``refuted`` check overrides the rule's verdict, a failed
    ``inconclusive`` check overrides ``confirmed``)."""
    if m.diverged is not None:
        return "diverged"
    if m.inconclusive is not None:
        return "inconclusive"
    verdict = rule.decide(m, params)
    if verdict == "diverged":
        return verdict
    failed = {c.on_fail for c in m.checks if not c.passed}
    if "refuted" in failed:
        return "refuted"
    if "inconclusive" in failed and verdict == "confirmed":
        return "inconclusive"
    return verdict


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
