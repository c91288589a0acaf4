"""Slope fits with confidence intervals, and plateau estimates (DESIGN: "Slopes come with
uncertainty: fit on replicas, report a confidence interval, and decide the verdict from the
interval, not from a point estimate").

* :func:`ols` — least-squares line with the t-based confidence interval of the slope;
* :func:`loglog_slope` / :func:`semilog_slope` — the same on log y (and log x);
* :func:`replica_slope` — one fit per replica (paired over x), CI over replicas;
* :func:`bootstrap_slope` — slope of the replica mean, bootstrap CI over replicas;
* :func:`plateau` — mean of a stationary window with a CI over replicas;
* :func:`mean_ci` — mean and t-interval of a sample.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats


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
