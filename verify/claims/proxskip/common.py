"""What the ProxSkip-VIP claims share: the step-size grid of P1/P2 (from the encoded schedules),
the runs' theorem inputs (:class:`RunConditions` of Corollary 3.6, Theorem 4.2 and Theorem 3.1
with Lemma 3.4), simultaneous normal quantiles, series thinning, and the broken variants of
Alg. 2 that the claims' plants run (:func:`broken_method`)."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np

from fedbounds.complexity import schedule_values
from fedbounds.problems.proxskip import AffineVIP
from fedbounds.theorems import proxskip as theory
from fedbounds.verify.algorithm import Method
from fedbounds.verify.algorithms import proxskip as algorithms
from fedbounds.verify.conditions import RunConditions
from fedbounds.verify.exact.proxskip import THEOREMS, derived_values


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


def gda_schedule(problem: AffineVIP) -> tuple[float, float]:
    """(γ, p) of Corollary 3.6 [L182], γ = 1/(2ℓ) and p = √(γμ) (``algorithms.gda_steps``),
    with γ one float lower where its rounding went above 1/(2ℓ) or 1/(2L_g) (:func:`at_most`):
    the run then meets Corollary 3.6's and Theorem 4.2's γ conditions exactly."""
    gamma, p = algorithms.gda_steps(problem)
    c = problem.constants
    cap = min(1 / (2 * Fraction(float(c["ell"]))), 1 / (2 * Fraction(float(c["L_g"]))))
    return at_most(gamma, cap), p


def cor36_run(theorem: str, problem: AffineVIP, gamma: float, p: float,
              where: str) -> RunConditions:
    """Corollary 3.6's inputs (``proxskip.cor3.6`` or ``.corrected``) at a run of ProxSkip-GDA
    (-FL) on ``problem``: its γ and p, the instance's μ and ℓ."""
    c = problem.constants
    return RunConditions(theorem, {"gamma": float(gamma), "p": float(p), "mu": float(c["mu"]),
                                   "ell": float(c["ell"])}, where)


def thm42_run(problem: AffineVIP, gamma: float, where: str, epsilon: float = 1.0,
              theorem: str = "proxskip.thm4.2") -> RunConditions:
    """Theorem 4.2's inputs at a run of ProxSkip-(S)GDA-FL on ``problem``: its γ, the instance's
    μ, L_g and σ_*, and the accuracy ε the run targets (with σ_* = 0, g_i = f_i, the cap
    με/(8σ_*²) is +∞ and ε plays no part: 1 stands for any)."""
    c = problem.constants
    return RunConditions(theorem, {"gamma": float(gamma), "mu": float(c["mu"]),
                                   "L_g": float(c["L_g"]),
                                   "sigma_star": float(c["sigma_star"]),
                                   "epsilon": float(epsilon)}, where)


def thm31_sgda_run(problem: AffineVIP, gamma: float, p: float, where: str) -> RunConditions:
    """Theorem 3.1's inputs at a run of ProxSkip-SGDA(-FL): Lemma 3.4's estimator constants
    (A = L_g, B = C = D_2 = 0, D_1 = 2σ_*², ρ = 1) at the instance's L_g and σ_*, M = 1 (the
    theorem asks for some M > B/ρ = 0), the run's γ and p and the instance's μ."""
    c = problem.constants
    lemma = derived_values(theory.lemma34, {"L_g": float(c["L_g"]),
                                            "sigma_star": float(c["sigma_star"]), "inner": 0.0})
    return RunConditions("proxskip.thm3.1", {**lemma, "gamma": float(gamma), "p": float(p),
                                             "mu": float(c["mu"]), "M": 1.0}, where)


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


BROKEN = ("plain-average", "no-control-variates")


def broken_method(problem: AffineVIP, gamma: float, p: float,
                  variant: str) -> Method[algorithms.ProxSkipState]:
    """ProxSkip-GDA-FL (Alg. 2) broken for a plant: ``plain-average``, the server averages x̂_i
    without subtracting (γ/p)h_i (then Σ_i h_i keeps its initial value); ``no-control-variates``,
    h ≡ 0 (Local GDA with a random number of local steps). Pure steps, the same coins."""
    if variant not in BROKEN:
        raise ValueError(f"broken_method: {variant!r} is not one of {BROKEN}")
    method = algorithms.proxskip_method(problem, gamma, p)
    g_of = algorithms.oracle(problem, "gda")
    keep_h = variant == "plain-average"

    def step(state: algorithms.ProxSkipState, draws: dict, t: int
             ) -> tuple[algorithms.ProxSkipState, np.ndarray]:
        h = state.h if keep_h else np.zeros_like(state.h)
        xhat = state.x - gamma * (g_of(state.x, draws) - h)
        theta = np.asarray(draws["coin"])
        idx = np.flatnonzero(theta)
        h_new = h.copy()
        if idx.size:
            xavg = xhat[idx].mean(axis=1, keepdims=True)  # Alg. 2 averages x̂_i − (γ/p)h_i
            if keep_h:
                h_new[idx] = h[idx] + (p / gamma) * (xavg - xhat[idx])
            xhat[idx] = xavg
        return algorithms.ProxSkipState(xhat, h_new), theta

    return replace(method, step=step, advance=None, advance_steps=None)
