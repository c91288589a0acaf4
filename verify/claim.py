"""Claims and verdicts (DESIGN "Verdicts"): a claim is a falsifiable prediction with a function
that runs an experiment and *computes* a verdict from it, every time.

Paper modules ``verify/claims/<paper>.py`` expose ``CLAIMS: list[Claim]``; discovery is in
:mod:`verify.catalog`. A verdict carries the statistic, the prediction, the tolerance, the
evidence (numbers a reader can check) and the data for one figure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

VerdictKind = Literal["confirmed", "refuted", "inconclusive", "diverged"]
PROFILES = ("quick", "full")


@dataclass
class Figure:
    """Data for one figure: named series of (x, y) plus axis labels and reference lines."""

    title: str
    xlabel: str
    ylabel: str
    series: dict[str, tuple[list[float], list[float]]]
    logx: bool = False
    logy: bool = True
    hlines: dict[str, float] = field(default_factory=dict)  # label -> y (e.g. a bound or floor)
    kind: Literal["line", "scatter"] = "line"


@dataclass
class Verdict:
    id: str
    verdict: VerdictKind
    statistic: float | None
    predicted: float | str | None
    tolerance: float | str | None
    evidence: dict[str, Any]
    figure: Figure | None = None
    config: dict[str, Any] = field(default_factory=dict)  # to rerun with `fedbounds run`
    seconds: float | None = None

    def as_json(self) -> dict[str, Any]:
        def clean(x: Any) -> Any:
            if isinstance(x, float) and not math.isfinite(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, (list, tuple)):
                return [clean(v) for v in x]
            if hasattr(x, "item") and callable(x.item):  # numpy scalar
                return clean(x.item())
            return x

        return clean({"id": self.id, "verdict": self.verdict, "statistic": self.statistic,
                      "predicted": self.predicted, "tolerance": self.tolerance,
                      "evidence": self.evidence, "config": self.config,
                      "seconds": self.seconds})


def decide_upper(statistic: float, bound: float, rtol: float = 1e-9) -> VerdictKind:
    """Confirmed if statistic ≤ bound·(1 + rtol); diverged on NaN/inf."""
    if not math.isfinite(statistic):
        return "diverged"
    return "confirmed" if statistic <= bound * (1 + rtol) else "refuted"


def decide_interval(lo: float, hi: float, predicted: float, tol: float) -> VerdictKind:
    """Confidence interval [lo, hi] vs predicted ± tol: confirmed if they overlap, refuted if
    the interval lies outside, inconclusive if the interval is wider than 4·tol."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "diverged"
    if hi - lo > 4 * tol:
        return "inconclusive"
    if hi < predicted - tol or lo > predicted + tol:
        return "refuted"
    return "confirmed"


def decide_at_most(lo: float, hi: float, bound: float, tol: float) -> VerdictKind:
    """One-sided: confidence interval [lo, hi] of a statistic predicted to be ≤ bound (± tol).
    Refuted if the whole interval lies above bound + tol, confirmed if it lies below, else
    inconclusive; diverged on NaN/inf."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "diverged"
    if lo > bound + tol:
        return "refuted"
    return "confirmed" if hi <= bound + tol else "inconclusive"


@dataclass
class Claim:
    """A falsifiable prediction of a paper (digest section 8 numbering: ``<paper>.p<N>``)."""

    id: str
    paper: str
    title: str
    prediction: str  # what the theory says, in words, with the digest/paper line
    source: str
    run: Callable[..., Verdict]  # run(profile: str = "quick", seed: int = 0, **overrides)
    theorems: list[str] = field(default_factory=list)
    own: bool = False  # a claim of ours (not in the digest's section 8): say so
    errata: list[str] = field(default_factory=list)  # erratum ids (fedbounds.model) it checks

    @property
    def description(self) -> str:
        return self.title
