"""Exact analysis of Local SGDA and Fed-Norm-SGDA on quadratic games, for the claims
``fednorm.p*`` (verify/claims/fednorm.py).

* :func:`fixed_point_path` — the exact fixed point of the deterministic round (all n clients, no
  noise) for a sequence of client steps η^c (P1, P2, P4);
* :func:`pp_floor` — the exact stationary E‖z − z*‖² of Fed-Norm-SGDA under uniform sampling of
  P clients without replacement, from the exact second moment over all C(n, P) client sets (P9);
* :func:`thm1_inputs` — Theorem 1's scalar summaries of an instance (Theorem 1 [L167]), and
  :func:`thm1_steps` the step sizes ``engine.max_step`` allows (P20);
* :func:`pp_profile` and :func:`cor12_steps` read Theorem 1's partial-participation term and
  Corollary 1.2's schedule from the encoded theorems (P9, P11).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from fedbounds import engine, registry
from fedbounds.complexity import schedule_values
from fedbounds.model import Theorem
from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Algorithm
from ..algorithms.fednorm import FEDNORM_SGDA
from .minmax import fixed_point, quad_expect, round_map, sampled_moments


def fixed_point_path(g: MinMaxGame, algorithm: Algorithm, etas: Iterable[float],
                     values: Mapping[str, Any]) -> np.ndarray:
    """Fixed points z(η) (one row per η) of the deterministic round of ``algorithm`` with
    η^c_x = η^c_y = η and the other parameters ``values``; an error if a round map does not
    contract."""
    out = []
    for eta in etas:
        method = algorithm.method(g, {**values, "eta_cx": eta, "eta_cy": eta})
        z, radius = fixed_point(round_map(method, g.M), g.d)
        if radius >= 1:
            raise ValueError(f"round map not contracting at eta={eta} (spectral radius "
                             f"{radius:.3g})")
        out.append(z)
    return np.array(out)


def pp_floor(g: MinMaxGame, gamma: float, P: int) -> float:
    """Exact stationary E‖z − z*‖² of Fed-Norm-SGDA (τ = 1, σ_L = 0, γ^s = η^c = γ) under
    uniform sampling of P clients without replacement (Section 4.2, eq. (3) [L149–L151])."""
    method = FEDNORM_SGDA.method(g, {"eta_cx": gamma, "eta_cy": gamma, "tau": 1, "P": P})
    mu, second, radius = sampled_moments(lambda Z, S: round_map(method, g.M, S)(Z), g.d, g.M, P)
    if radius >= 1:
        raise ValueError(f"second-moment recursion not contracting (ρ = {radius:.3g})")
    return quad_expect(np.eye(g.d), -g.z_star(), mu, second)


def pp_profile(n: int, Ps: Iterable[int]) -> np.ndarray:
    """Theorem 1's partial-participation term (App. B.2 [L656]) as a function of P relative to
    P = 1: (n − P)/(P(n − 1)) (proof of Lemma B.2, eqs. (18)–(19) [L773–L827]), read from the
    encoded theorem."""
    thm = registry.get("fednorm.thm1")
    term = next(thm.expand(t.expr) for t in thm.bound if t.name == "partial participation")
    symbols = {s.name: s for s in term.free_symbols}
    P = symbols["P"]
    ratio = sp.simplify(term / term.xreplace({P: 1}))
    profile = sp.lambdify([P, symbols["n"]], ratio, modules="math")
    return np.array([profile(P_, n) for P_ in Ps], dtype=float)


def delta_phi(g: MinMaxGame) -> float:
    """Δ_Φ = Φ(x_0) − Φ(x*) from the game's closed form (w = p)."""
    return float(g.phi(g.z0[: g.dx]) - g.phi(g.z_star()[: g.dx]))


def cor12_steps(g: MinMaxGame, tau: int, T: int, gamma_sy: float) -> dict[str, float]:
    """Corollary 1.2's schedule (Theorem 1, App. B.2 [L658–L660] with p_i = 1/n, τ_i = τ, P = n)
    at the game's constants: η^c_x = η^c_y = 1/(L_f τ √T) and γ^s_x = γ^s_y/(81κ²), here at the
    given γ^s_y (the schedule's Θ(·) constant of γ^s_y is the caller's)."""
    k = g.constants
    sched = schedule_values(registry.get("fednorm.cor1.2"), {
        "L_f": k["L_f"], "mu": k["mu"], "n": g.M, "P": g.M, "T": T, "tau": tau,
        "Delta_Phi": delta_phi(g), "sigma_L": k["sigma_L"], "sigma_G": k["sigma_G"],
        "beta_L": g.beta_L})
    return {"eta_cx": sched["eta_cx"], "eta_cy": sched["eta_cy"],
            "gamma_sx": gamma_sy * (sched["gamma_sx"] / sched["gamma_sy"]), "gamma_sy": gamma_sy}


def thm1_inputs(g: MinMaxGame, tau: np.ndarray, P: int) -> dict[str, Fraction]:
    """Theorem 1's scalar summaries (Theorem 1 [L167]), exact from the game and τ_i: SGDA local
    steps (a_i ≡ 1, ‖a_i‖₁ = ‖a_i‖₂² = τ_i), Fed-Norm weights w = p, σ_G, β_G = 1, σ_L, β_L exact
    by construction, Δ_Φ = Φ(x_0) − Φ(x*) from the closed form (w = p, so Φ̃ = Φ)."""
    t = np.asarray(tau, dtype=float)
    w, n = g.p, g.M
    teff = float(w @ t)
    k = g.constants
    vals = {"tau_eff": teff, "A_w": n * teff * float(np.sum(w**2 / t)),
            "B_w": n * teff * float(np.max(w / t)), "C_w": float(w @ (t - 1)),
            "D": float(np.max(g.beta_L**2 * (t - 1) + (t - 1) ** 2)), "E_w": n * float(w.max()),
            "a_l1_max": float(t.max()), "w_a_max": float(np.max(w / t)),
            "Delta_Phi": delta_phi(g), "L_f": k["L_f"], "mu": k["mu"], "sigma_G": k["sigma_G"],
            "beta_G": 1.0, "sigma_L": k["sigma_L"], "beta_L": g.beta_L}
    out = {name: Fraction(v) for name, v in vals.items()}
    out.update(n=Fraction(n), P=Fraction(P or n))
    return out


def thm1_steps(thm: Theorem, vals: dict[str, Fraction]
               ) -> tuple[dict[str, float], dict[str, str | None]]:
    """Step sizes from engine.max_step, one at a time: γ^s_y (γ^s_x, η^c tiny), then γ^s_x at
    γ^s_y, then η^c_y, then η^c_x (each the largest value with every condition holding)."""
    tiny = Fraction(1, 10**12)
    cur = {"gamma_sx": tiny, "eta_cx": tiny, "eta_cy": tiny}
    binding: dict[str, str | None] = {}
    for name in ("gamma_sy", "gamma_sx", "eta_cy", "eta_cx"):
        cur.pop(name, None)
        given = {kk: v for kk, v in {**vals, **cur}.items() if kk in thm.condition_inputs()}
        ms = engine.max_step(thm, name, given)
        if ms.value is None:
            raise ValueError(f"{thm.id}: no feasible {name} ({ms.binding})")
        cur[name] = Fraction(ms.value)
        binding[name] = ms.binding
    return {kk: float(v) for kk, v in cur.items()}, binding
