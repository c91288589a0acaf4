"""What of a measured number the report publishes: the same bytes on every correct float64
machine.

A run's numbers carry rounding error, and its last digits move with the processor (another
OpenBLAS kernel sums in another order, another SIMD path of numpy rounds ``exp`` another way).
The result store keeps every number at full precision beside the environment that computed it
(BLAS library and kernel); the report (``verdicts.json``, the pages, the figures, the README's
results) publishes each measured number with the digits its computation determines:

* :data:`DIGITS` significant digits by default. A quantity computed by at most ~10⁵ float64
  operations of a problem with condition number ≲ 10³ carries a relative error ≲ 10⁸·ε ≈ 2e-8
  in the worst case and ~√n·κ·ε ≈ 1e-10 typically; six digits leave a margin of 10⁴ over the
  typical error, so a value rounds the same way on any machine except with probability
  ~10⁻⁴ (a value within 10⁻¹⁰ of a rounding tie).
* a claim declares fewer digits, or a *rounding floor*, for the quantities its computation
  determines less well, each with the reason (:class:`Published`): a magnitude at or below
  the floor is published as the floor, a bound on it (a difference of two computations of the
  same number, an error that is zero in exact arithmetic, a residual at the solver's
  tolerance), shown as ``≤ floor`` on the pages and plotted at the floor.

Inputs are never rounded: the evidence's ``params`` and the run's configuration are what was
typed, integers stay integers. The verdict is decided from the full-precision numbers before
any of this (:func:`verify.claim.evaluate`); publication only changes what is shown.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

V = TypeVar("V")  # a verdict (verify.claim.Verdict: a dataclass; imported by it, not here)

EPS = sys.float_info.epsilon  # 2**-52, the spacing of float64 numbers at 1
DIGITS = 6  # significant digits of a published number unless its claim declares fewer
FIGURE_DIGITS = 3  # digits of a plotted value: a relative change of 1e-3 moves a point < 0.1 pt
CONFIG_DIGITS = 10  # digits of a run's computed inputs (step sizes from the instance's constants)
TIE_DIGITS = 12  # digits a value is first rounded to, so that decimal ties round one way
UNROUNDED = ("params",)  # evidence keys holding inputs: published as typed


@dataclass(frozen=True)
class Published:
    """How a claim publishes the numbers under ``keys``: the evidence's keys (the innermost
    key naming a number or holding it, at any depth), ``"statistic"``, ``"interval"``,
    ``"predicted"``, ``"tolerance"``, or ``"figure"`` (its series, bands and lines).

    ``digits`` significant digits (at most :data:`DIGITS`); a magnitude at or below ``floor``
    (the rounding floor of its computation) is published as the floor, a bound on it, and
    plotted at the floor. ``why`` derives them from the
    computation (never from which digits moved on which machine)."""

    keys: tuple[str, ...]
    why: str
    digits: int = DIGITS
    floor: float = 0.0

    def __post_init__(self) -> None:
        if isinstance(self.keys, str) or not self.keys:
            raise ValueError(f"Published: keys must be a non-empty tuple of names, got "
                             f"{self.keys!r}")
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not (
                1 <= self.digits <= DIGITS):
            raise ValueError(f"Published{self.keys}: digits must be an integer in "
                             f"[1, {DIGITS}], got {self.digits!r}")
        if not (math.isfinite(self.floor) and self.floor >= 0):
            raise ValueError(f"Published{self.keys}: floor must be a finite number >= 0, got "
                             f"{self.floor!r}")
        if self.digits == DIGITS and self.floor == 0:
            raise ValueError(f"Published{self.keys}: declares nothing beyond the default")
        if not self.why.strip():
            raise ValueError(f"Published{self.keys}: say why (how the computation determines "
                             "these digits or this floor)")

    def number(self, x: float) -> float:
        """``x`` as published: the floor (:func:`published_floor`) when ``|x|`` is at or below
        it, else ``x`` rounded to ``digits`` significant digits (non-finite as it is)."""
        return _number(x, self.digits, self.floor)

    @property
    def words(self) -> str:
        """The declaration in words, for the report."""
        parts = []
        if self.digits < DIGITS:
            parts.append(f"{self.digits} significant digit{'s' if self.digits > 1 else ''}")
        if self.floor > 0:
            parts.append(f"|x| ≤ {_floor_text(self.floor)} (the rounding floor) published as "
                         f"{published_floor(self.floor):g}")
        return f"{', '.join(self.keys)}: {'; '.join(parts)} — {self.why}"


def _floor_text(floor: float) -> str:
    return f"{floor:.2g}"


def _number(x: float, digits: int, floor: float) -> float:
    if not math.isfinite(x):
        return x
    if floor > 0 and abs(x) <= floor:
        return published_floor(floor)
    return round_number(x, digits)


def published_floor(floor: float) -> float:
    """The number a value at the rounding floor is published as: the floor itself (a bound on
    its magnitude), to two digits. JSON values stay numbers; the claim's declarations (in
    ``verdicts.json`` and on its page) say which keys carry such a bound."""
    return round_number(floor, 2)


def round_number(x: float, digits: int = DIGITS) -> float:
    """``x`` rounded to ``digits`` significant digits (a float; non-finite as it is).

    First to :data:`TIE_DIGITS` digits, then to ``digits``: a value that lies on a decimal
    tie in exact arithmetic (0.01666665 = 1/60 · 0.999999, 147.4375) and is computed a few
    ulps above it on one machine and below on another rounds the same way on both."""
    if not math.isfinite(x) or x == 0:
        return x
    return float(f"{float(f'{x:.{TIE_DIGITS}g}'):.{digits}g}")


def _rounded(xs: Sequence[float]) -> list[float]:
    return [round_number(float(x), FIGURE_DIGITS) for x in xs]


class Publisher:
    """The publication rules of one claim (its :class:`Published` declarations), applied to
    its numbers: :meth:`value` to any JSON-like value, :meth:`figure_values` to a plotted
    list."""

    def __init__(self, rules: Sequence[Published] = ()) -> None:
        self.by_key: dict[str, Published] = {}
        for rule in rules:
            for key in rule.keys:
                if key in self.by_key:
                    raise ValueError(f"Published: {key!r} is declared twice")
                self.by_key[key] = rule

    def value(self, x: Any, rule: Published | None = None) -> Any:
        """``x`` with every float published under ``rule`` (the innermost declared key wins;
        none: :data:`DIGITS` digits); the keys of :data:`UNROUNDED` are kept as they are."""
        if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
            return x
        if isinstance(x, float):
            return rule.number(x) if rule is not None else round_number(x)
        if isinstance(x, Mapping):
            return {k: v if k in UNROUNDED else self.value(v, self.by_key.get(str(k), rule))
                    for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [self.value(v, rule) for v in x]
        if hasattr(x, "item") and callable(x.item):  # a numpy scalar
            return self.value(x.item(), rule)
        return x

    def key(self, name: str, x: Any) -> Any:
        """A top-level value (``"statistic"``, ``"interval"`` …) published under its rule."""
        return self.value(x, self.by_key.get(name))

    def figure_values(self, ys: Sequence[float], logy: bool) -> list[float]:
        """A plotted list: :data:`FIGURE_DIGITS` digits (fewer where the figure's rule says),
        and a magnitude at or below the figure's floor drawn at the floor (log axis) or at 0
        (linear axis)."""
        rule = self.by_key.get("figure")
        out = []
        for y in ys:
            y = float(y)
            if rule is not None and rule.floor > 0 and math.isfinite(y) and abs(y) <= rule.floor:
                out.append(rule.floor if logy else 0.0)
            else:
                out.append(round_number(y, min(FIGURE_DIGITS, rule.digits if rule else DIGITS)))
        return out


def publish(verdict: V, rules: Sequence[Published] = ()) -> V:
    """``verdict`` as the report publishes it (a copy): its statistic, prediction, tolerance,
    evidence, figure and conditions' margins under ``rules`` (its claim's
    :attr:`ClaimSpec.published`); the verdict and the seeds as they are, the run's
    configuration with :data:`CONFIG_DIGITS` digits."""
    p = Publisher(rules)
    fig = verdict.figure
    if fig is not None:
        fig = replace(
            fig, series={k: (_rounded(xs), p.figure_values(ys, fig.logy))
                         for k, (xs, ys) in fig.series.items()},
            hlines={k: p.figure_values([y], fig.logy)[0] for k, y in fig.hlines.items()},
            bands={k: (_rounded(xs), p.figure_values(lo, fig.logy),
                       p.figure_values(hi, fig.logy)) for k, (xs, lo, hi) in fig.bands.items()})
    return replace(verdict, statistic=p.key("statistic", verdict.statistic),
                   config=_config(verdict.config),
                   predicted=p.key("predicted", verdict.predicted),
                   tolerance=p.key("tolerance", verdict.tolerance),
                   evidence=p.value(verdict.evidence), figure=fig,
                   conditions=p.key("conditions", getattr(verdict, "conditions", {})))


def _config(x: Any) -> Any:
    """A run's configuration: its floats with :data:`CONFIG_DIGITS` digits. The step sizes a
    claim computes from its instance's constants (eigenvalues, norms) carry their rounding,
    ≲ κ·ε ≈ 1e-14 relative for κ ≤ 10²: ten digits keep a margin of 10⁴ (the store keeps
    the exact configuration, and ``fedbounds verify`` reruns it exactly)."""
    if isinstance(x, float):
        return round_number(x, CONFIG_DIGITS)
    if isinstance(x, Mapping):
        return {k: _config(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_config(v) for v in x]
    return x


def declarations(rules: Sequence[Published]) -> list[dict[str, Any]]:
    """A claim's declarations as ``verdicts.json`` lists them (beside its verdict)."""
    return [{"keys": list(r.keys), "digits": r.digits, "floor": r.floor, "why": r.why}
            for r in rules]


def at_floor(x: Any, rules: Sequence[Published], key: str) -> float | None:
    """The floor when the full-precision ``x`` under ``key`` is at it, else None (the pages
    show such a statistic as ``≤ floor``)."""
    rule = Publisher(rules).by_key.get(key)
    if rule is None or rule.floor == 0 or not isinstance(x, float) or not math.isfinite(x):
        return None
    return published_floor(rule.floor) if abs(x) <= rule.floor else None
