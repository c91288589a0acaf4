"""Decision rules: how a claim's measurement becomes a verdict (``confirmed``, ``refuted``,
``inconclusive``, ``diverged``), the prediction and tolerance a reader sees, and the rule in
words."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Protocol

from .measurement import Measurement, Params

VerdictKind = Literal["confirmed", "refuted", "inconclusive", "diverged"]


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
