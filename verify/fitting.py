"""Slope fits with confidence intervals, and plateau estimates (DESIGN: "Slopes come with
uncertainty: fit on replicas, report a confidence interval, and decide the verdict from the
interval, not from a point estimate").

* :func:`ols` — least-squares line with the t-based confidence interval of the slope;
* :func:`loglog_slope` / :func:`semilog_slope` — the same on log y (and log x);
* :func:`replica_slope` — one fit per replica (paired over x), CI over replicas;
* :func:`bootstrap_slope` — slope of the replica mean, bootstrap CI over replicas;
* :func:`plateau` — mean of a stationary window with a CI over replicas;
* :func:`mean_ci` — mean and t-interval of a sample;
* :func:`implied_constant` — how observed/bound of an O(·) bound (hidden constants 1) scales
  over a grid of the theorem's free constants: bounded (confirmed) or growing without limit
  in a direction of claimed uniformity (refuted), with the largest constant and where.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Fit:
    """A fitted slope (and intercept) with a two-sided ``level`` confidence interval."""

    slope: float
    intercept: float
    lo: float
    hi: float
    level: float
    n: int  # number of points (or replicas) the interval is computed from
    method: str

    def as_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


@dataclass(frozen=True)
class Estimate:
    """A mean with a two-sided ``level`` confidence interval."""

    value: float
    lo: float
    hi: float
    level: float
    n: int

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _tq(level: float, dof: int) -> float:
    from scipy import stats  # on first use: scipy.stats takes about 0.5 s to import

    return float(stats.t.ppf(0.5 + level / 2, dof)) if dof > 0 else math.inf


def mean_ci(sample: np.ndarray, level: float = 0.95) -> Estimate:
    """Mean of a 1-D sample with a t-interval (standard error sd/√n)."""
    s = np.asarray(sample, dtype=float).ravel()
    m = float(s.mean())
    if s.size < 2:
        return Estimate(m, -math.inf, math.inf, level, int(s.size))
    h = _tq(level, s.size - 1) * float(s.std(ddof=1)) / math.sqrt(s.size)
    return Estimate(m, m - h, m + h, level, int(s.size))


def ols(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> Fit:
    """Least squares y ≈ a + b x; CI of b from the residual standard error (t, n − 2 dof).
    With exactly collinear points the interval has zero width."""
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.size != y.size or x.size < 2:
        raise ValueError("ols needs at least two (x, y) points of equal length")
    xm, ym = x.mean(), y.mean()
    sxx = float(((x - xm) ** 2).sum())
    if sxx == 0:
        raise ValueError("ols needs at least two distinct x values")
    b = float(((x - xm) * (y - ym)).sum() / sxx)
    a = float(ym - b * xm)
    if x.size > 2:
        resid = y - (a + b * x)
        se = math.sqrt(float((resid**2).sum()) / (x.size - 2) / sxx)
        h = _tq(level, x.size - 2) * se
    else:
        h = math.inf
    return Fit(b, a, b - h, b + h, level, int(x.size), "ols")


def loglog_slope(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> Fit:
    """Slope of log y against log x (natural logs; the slope does not depend on the base)."""
    return _named(ols(np.log(x), np.log(y), level), "loglog ols")


def semilog_slope(t: np.ndarray, y: np.ndarray, level: float = 0.95) -> Fit:
    """Slope of log y against t: the per-step log contraction (log of the linear rate)."""
    return _named(ols(t, np.log(y), level), "semilog ols")


def replica_slope(x: np.ndarray, Y: np.ndarray, *, logx: bool = True, logy: bool = True,
                  level: float = 0.95) -> Fit:
    """One least-squares slope per replica (rows of ``Y``, shape (replicas, len(x))), paired over
    x; the interval is the t-interval of the replica slopes' mean."""
    X = np.log(x) if logx else np.asarray(x, dtype=float)
    Z = np.log(Y) if logy else np.asarray(Y, dtype=float)
    Xc = X - X.mean()
    slopes = (Z - Z.mean(axis=1, keepdims=True)) @ Xc / float(Xc @ Xc)
    est = mean_ci(slopes, level)
    intercept = float((Z.mean(axis=1) - slopes * X.mean()).mean())
    return Fit(est.value, intercept, est.lo, est.hi, level, int(Z.shape[0]), "replica mean")


def bootstrap_slope(x: np.ndarray, Y: np.ndarray, *, logx: bool = True, logy: bool = True,
                    level: float = 0.95, B: int = 2000, seed: int = 0) -> Fit:
    """Slope of log(mean over replicas of Y) against (log) x — the slope of the expectation,
    not the mean of per-replica log slopes (which Jensen biases) — with a percentile bootstrap
    interval that resamples replicas (rows of ``Y``), keeping each replica paired over x."""
    Y = np.asarray(Y, dtype=float)
    X = np.log(x) if logx else np.asarray(x, dtype=float)
    Xc = X - X.mean()

    def slope(M: np.ndarray) -> np.ndarray:
        Z = np.log(M) if logy else M
        return (Z - Z.mean(axis=-1, keepdims=True)) @ Xc / float(Xc @ Xc)

    point = float(slope(Y.mean(axis=0)))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, Y.shape[0], size=(B, Y.shape[0]))
    boots = slope(Y[idx].mean(axis=1))
    lo, hi = np.quantile(boots, [0.5 - level / 2, 0.5 + level / 2])
    Z = np.log(Y.mean(axis=0)) if logy else Y.mean(axis=0)
    return Fit(point, float(Z.mean() - point * X.mean()), float(lo), float(hi), level,
               int(Y.shape[0]), f"bootstrap ({B}) over replicas")


def plateau(V: np.ndarray, start: int, level: float = 0.95) -> Estimate:
    """Stationary level of ``V`` (shape (records, replicas)): each replica's time average over
    records ``start:``, then the mean and t-interval over replicas."""
    per_replica = np.asarray(V, dtype=float)[start:].mean(axis=0)
    return mean_ci(per_replica, level)


def loglog_slope_of_estimates(x: np.ndarray, estimates: list[Estimate]) -> tuple[Fit, np.ndarray]:
    """Log-log slope of point estimates with intervals: the OLS slope of log value on log x,
    with an interval half-width combining the per-point intervals by the delta method on the
    log scale, plus the largest misfit residual (a conservative band). Returns the fit and
    the point values."""
    x = np.asarray(x, dtype=float)
    values = np.array([e.value for e in estimates])
    fit = loglog_slope(x, values)
    se = np.array([(e.hi - e.lo) / 2 / e.value for e in estimates])
    resid = np.log(values) - (fit.intercept + fit.slope * np.log(x))
    half = float(math.sqrt(np.sum(se**2)) / math.log(x[-1] / x[0]) + np.max(np.abs(resid)))
    return Fit(fit.slope, fit.intercept, fit.slope - half, fit.slope + half, fit.level,
               len(estimates), "delta method over per-point intervals + misfit"), values


def running_average(curve: np.ndarray, points: int) -> tuple[list[int], list[float]]:
    """(t, (1/t) Σ_{s<t} curve_s) at about ``points`` log-spaced t (for figures)."""
    avg = np.cumsum(curve[:-1]) / np.arange(1, curve.size)
    k = np.unique(np.geomspace(1, avg.size, points).astype(int)) - 1
    return (k + 1).tolist(), avg[k].tolist()


def first_below(curve: np.ndarray, threshold: float) -> int | None:
    """First index where ``curve <= threshold`` (None if never)."""
    hit = np.flatnonzero(np.asarray(curve) <= threshold)
    return int(hit[0]) if hit.size else None


def _named(f: Fit, method: str) -> Fit:
    return Fit(f.slope, f.intercept, f.lo, f.hi, f.level, f.n, method)


# ---- implied constants of O(·) bounds ----------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One direction of a star grid: the values ``x`` of one free constant of a theorem (the
    others held at the grid's base point), the observed quantity and the bound with its hidden
    constants set to 1 at each, and optionally the observations' standard errors (Monte Carlo);
    exact observations leave ``observed_se`` empty."""

    x: tuple[float, ...]
    observed: tuple[float, ...]
    bound: tuple[float, ...]
    observed_se: tuple[float, ...] = ()

    @property
    def constants(self) -> np.ndarray:
        """The implied constants c = observed/bound along the axis."""
        return np.asarray(self.observed, dtype=float) / np.asarray(self.bound, dtype=float)


@dataclass(frozen=True)
class ImpliedConstant:
    """How the implied constant c = observed/bound of an O(·) or Θ(·) bound (its hidden
    constants set to 1) scales along each direction of a grid of the theorem's free constants.

    ``slopes`` holds, per direction, the log-log slope of c over the far end of its axis (the
    last ``tail`` points) with its interval. The bound fails as an O(·) statement only if c
    grows without limit: some direction in which the theorem claims uniformity (``uniform``)
    has a slope interval lying above ``slope_floor`` (``growing``). ``wide`` names the
    directions whose interval is wider than ``max_width`` (too little signal to call c
    bounded there). ``largest`` is the largest c on the grid, at ``where``."""

    slopes: dict[str, Fit]
    uniform: tuple[str, ...]
    largest: float
    where: dict[str, float | str]
    slope_floor: float
    max_width: float
    tail: int

    @property
    def growing(self) -> list[str]:
        """Directions of claimed uniformity in which c grows (interval above the floor)."""
        return [d for d in self.uniform if self.slopes[d].lo > self.slope_floor]

    @property
    def wide(self) -> list[str]:
        """Directions of claimed uniformity too uncertain to call c bounded: the fitted slope
        is above the floor (c rising on the far end) but the interval, wider than
        ``max_width``, does not lie above it. A far end that falls or stays flat says bounded
        however wide its interval."""
        return [d for d in self.uniform if self.slopes[d].slope > self.slope_floor
                and self.slopes[d].hi - self.slopes[d].lo > self.max_width]

    @property
    def statistic(self) -> float:
        """The largest lower end of a slope interval over the directions of claimed
        uniformity: above ``slope_floor`` means c grows without limit in that direction."""
        return max(self.slopes[d].lo for d in self.uniform)

    @property
    def verdict(self) -> str:
        """``refuted`` (c grows in some direction), ``inconclusive`` (an interval too wide to
        call c bounded) or ``confirmed`` (bounded over the grid)."""
        return "refuted" if self.growing else "inconclusive" if self.wide else "confirmed"

    @property
    def worst(self) -> str:
        """The direction of claimed uniformity whose slope interval reaches highest."""
        return max(self.uniform, key=lambda d: self.slopes[d].lo)

    def as_dict(self) -> dict:
        return {"slopes": {d: f.as_dict() for d, f in self.slopes.items()},
                "uniform": list(self.uniform), "largest": self.largest, "where": self.where,
                "slope_floor": self.slope_floor, "max_width": self.max_width, "tail": self.tail,
                "growing": self.growing, "wide": self.wide, "verdict": self.verdict}

    def measurement(self, **fields: Any) -> Any:
        """A claim's :class:`~.claim.Measurement` of this fit, for the rule
        ``UpperBound("slope_floor", end="lower")``: the statistic is the slope of the worst
        direction with its interval (refuted when its lower end exceeds the floor), a direction
        too wide to decide makes a confirmed verdict inconclusive, and the evidence holds every
        slope and the largest constant. ``fields`` (series, run, …) are passed through; an
        ``evidence`` given there is merged in."""
        from .claim import Check, Measurement

        worst = self.slopes[self.worst]
        evidence = {"implied_constant": self.as_dict(), **fields.pop("evidence", {})}
        checks = [*fields.pop("checks", ()), Check(
            "every slope interval narrow enough to call the constant bounded", not self.wide,
            "inconclusive")]
        return Measurement(worst.slope, (worst.lo, worst.hi), evidence=evidence, checks=checks,
                           predicted=(f"implied constant bounded: slope ≤ {self.slope_floor:g} "
                                      "in every direction"),
                           tolerance=f"{worst.level:.0%} interval, last {self.tail} points",
                           **fields)


def implied_constant(axes: dict[str, Axis], *, uniform: tuple[str, ...] | None = None,
                     tail: int = 3, level: float = 0.95, slope_floor: float = 0.05,
                     max_width: float = 2.0) -> ImpliedConstant:
    """The implied constant c = observed/bound of an O(·) bound along each axis of a star grid
    (:class:`Axis`: one free constant varied, the others at the base point), and whether it
    stays bounded.

    Per direction, log c is fitted against log x by least squares over the axis' last ``tail``
    points (its far end, where growth without limit shows: a constant that saturates has its
    slope fall there, one that grows like a power keeps it). The slope's interval is t-based
    (``tail`` − 2 degrees of freedom) with per-point variance the fit's residual variance
    (misfit: a curving log c widens it) plus, for Monte Carlo observations, the point's own
    (se/observed)²; exact power laws give a zero-width interval. With fewer than three points
    the interval is infinite. ``uniform`` names the directions in which the theorem claims
    uniformity (default: every axis, as an absolute constant does)."""
    if tail < 2:
        raise ValueError("implied_constant needs a tail of at least two points")
    uniform = tuple(axes) if uniform is None else tuple(uniform)
    if not axes or not set(uniform) <= set(axes):
        raise ValueError(f"directions {sorted(set(uniform) - set(axes))} have no axis")
    slopes, largest, where = {}, -math.inf, {}
    for name, axis in axes.items():
        x, c = np.asarray(axis.x, dtype=float), axis.constants
        if x.size != c.size or x.size < 2 or np.any(x <= 0) or not np.all(c > 0):
            raise ValueError(f"axis {name!r}: needs two or more points with x > 0 and positive "
                             "observed and bound values")
        order = np.argsort(x)[-tail:]
        se = (np.asarray(axis.observed_se, dtype=float)[order] / np.asarray(
            axis.observed, dtype=float)[order]) if axis.observed_se else np.zeros(order.size)
        slopes[name] = _tail_slope(np.log(x[order]), np.log(c[order]), se**2, level)
        top = int(np.argmax(c))
        if c[top] > largest:
            largest, where = float(c[top]), {"direction": name, name: float(x[top])}
    return ImpliedConstant(slopes, uniform, largest, where, slope_floor, max_width, tail)


def _tail_slope(X: np.ndarray, Z: np.ndarray, point_var: np.ndarray, level: float) -> Fit:
    """Least-squares slope of Z on X with a t-interval whose per-point variance is the residual
    variance plus ``point_var`` (infinite with fewer than three points)."""
    Xc = X - X.mean()
    sxx = float(Xc @ Xc)
    if sxx == 0:
        raise ValueError("an axis needs at least two distinct values")
    slope = float(Xc @ (Z - Z.mean()) / sxx)
    intercept = float(Z.mean() - slope * X.mean())
    dof = X.size - 2
    if dof <= 0:
        half = math.inf
    else:
        resid = Z - (intercept + slope * X)
        var = float(resid @ resid) / dof + point_var
        half = _tq(level, dof) * math.sqrt(float(np.sum(Xc**2 * var)) / sxx**2)
    return Fit(slope, intercept, slope - half, slope + half, level, int(X.size),
               "log-log least squares over the axis' far end (misfit + point variance)")
