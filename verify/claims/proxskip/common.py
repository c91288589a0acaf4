"""What the ProxSkip-VIP claims share: the step-size grid of P1/P2 (from the encoded schedules),
simultaneous normal quantiles, and series thinning."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fedbounds.complexity import schedule_values
from fedbounds.problems.proxskip import AffineVIP
from fedbounds.verify.exact.proxskip import THEOREMS


def gda_grid(problem: AffineVIP) -> list[tuple[str, float, float, str]]:
    """(label, γ, p, theorem id): the schedules γ = 1/(2ℓ) (Cor. 3.6 [L182]) and γ = 1/ℓ
    (corrected, erratum cor3.6-step), each with p ∈ {0.3, 1, 3}·√(γμ) clipped to 1 (claim
    proxskip.p1)."""
    values = {"ell": problem.constants["ell"], "mu": problem.constants["mu"]}
    ell = Fraction(values["ell"])
    out = []
    for glabel, thm, cap in (("1/(2ell)", "proxskip.cor3.6", 1 / (2 * ell)),
                             ("1/ell", "proxskip.cor3.6.corrected", 1 / ell)):
        sched = schedule_values(THEOREMS[thm], values)
        gamma = at_most(sched["gamma"], cap)
        for f in (0.3, 1.0, 3.0):
            out.append((f"gamma={glabel}, p={f:g}sqrt(gamma mu)", gamma,
                        min(1.0, f * sched["p"]), thm))
    return out


def at_most(value: float, cap: Fraction) -> float:
    """``value`` (a float rounding of ``cap``), one float lower when the rounding went above
    ``cap``: a step size on its condition's boundary then satisfies the condition exactly on
    every machine, instead of by the luck of the last bit of a computed ℓ."""
    return value if Fraction(value) <= cap else math.nextafter(value, -math.inf)


def safe(gamma: float) -> float:
    """γ one part in 10¹² below its cap, so that the exact-rational condition check of the
    encoded theorem is not failed by the rounding of 1/(2ℓ) in floating point."""
    return gamma * (1 - 1e-12)


def zcrit(level: float, k: int) -> float:
    """Two-sided normal quantile for a family of ``k`` simultaneous intervals (Bonferroni)."""
    from scipy import stats  # on first use: scipy.stats takes about 0.5 s to import

    return float(stats.norm.ppf(1 - (1 - level) / (2 * max(k, 1))))


def thin(x: np.ndarray, y: np.ndarray, k: int = 300) -> tuple[list[float], list[float]]:
    """At most ``k`` evenly spaced points of a series, as lists."""
    idx = np.unique(np.linspace(0, len(x) - 1, min(k, len(x))).astype(int))
    return [float(v) for v in np.asarray(x)[idx]], [float(v) for v in np.asarray(y)[idx]]
