"""Exact analysis for SAGDA / FSGDA on quadratic games (Appendix B update rules and lemmas).

* round maps: the exact fixed-point bias and stationary sampling floor of ‖∇Φ‖² (P9);
* one round's server move predicted by the effective-step identity (P1; Appendix B.1 [L512–L513]);
* the constants of Φ measured on a game (P3; Section 3 [L88], Lemma 2);
* lemma-level moments at a fixed z_t (P4): the client-sampling second moment exactly over all
  C(M, m) subsets, Lemma 4 and Lemma 1 by Monte Carlo over replicas, right-hand sides from
  :data:`fedbounds.theorems.sagda.LEMMA_RHS`;
* the theorems through the engine: step sizes from ``engine.max_step``, bounds from
  ``engine.bound``, the local-drift cap of condition (7) and the two-time-scale ratio forced by
  the conditions (:func:`fedbounds.findings.ratio_bound`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from itertools import combinations
from typing import Any

import numpy as np
import sympy as sp

from fedbounds import engine, findings, registry
from fedbounds.model import Theorem
from fedbounds.problems.minmax import MinMaxGame
from fedbounds.problems.sagda import abstract_inputs
from fedbounds.theorems.sagda import LEMMA_RHS

from ..algorithm import Method
from ..minmax import sampled
from .minmax import (
    affine_round,
    fixed_point,
    grad_phi_affine,
    quad_expect,
    round_map,
    sampled_moments,
)

STEP_RULE = ("η_{x,l} = η_{y,l} = η_l fixed (small, so the local-drift terms are minor); "
             "η_{y,g} = ½·engine.max_step(thm, 'eta_yg') at a small start η_{x,g} (first of "
             "1, 10⁻², 10⁻⁴, 10⁻⁶ that is feasible) — ½ of the cap maximises the admissible η_x "
             "in the y-descent condition (γ_y/20 − cγ_y² ≥ κ²γ_x peaks at half the root); then "
             "η_{x,g} = engine.max_step(thm, 'eta_xg') at that η_{y,g} (binding condition listed)")


# ---- round maps (P9) -----------------------------------------------------------------------------
def fixed_point_grad_phi_sq(method: Method, g: MinMaxGame) -> float:
    """‖∇Φ(x_fp)‖² at the exact fixed point of a full-participation round (σ = 0)."""
    z, _rho = fixed_point(round_map(method, g.M), g.d)
    G, g0 = grad_phi_affine(g)
    return float(np.sum((G @ z + g0) ** 2))


def sampling_floor(method: Method, g: MinMaxGame, m: int) -> float:
    """Exact stationary E‖∇Φ(x)‖² of a round with m of M clients sampled uniformly (σ = 0; all
    C(M, m) subsets enumerated)."""
    mu, P, _rho = sampled_moments(lambda Z, S: round_map(method, g.M, S)(Z), g.d, g.M, m)
    G, g0 = grad_phi_affine(g)
    return quad_expect(G, g0, mu, P)


# ---- the effective-step identity (P1) -----------------------------------------------------------
def predicted_move(g: MinMaxGame, z: np.ndarray, S: np.ndarray, config: Mapping[str, Any],
                   option: int) -> np.ndarray:
    """Server move of one round from z (σ = 0, client set S) by the identity
    Δx = −η_{x,l}η_{x,g}K·(1/(mK))Σ_{i∈S}Σ_k d_i^k, Δy = +η_{y,l}η_{y,g}K·(same in y), the local
    directions d_i^k = ∇f_i(z_i^k) − v_i + v̄ recomputed from ∇f_i(z) = H_i z + h_i (v = 0 for
    FSGDA; Option I: all M control variates at z (Γ_0 = 0), which equals Option I's first round
    from z_0 ≠ z only when the Hessians are identical; Option II: v̄ over S)."""
    dx, K = g.dx, config["K"]
    s = np.concatenate([np.full(dx, config["eta_xl"]), np.full(g.dy, -config["eta_yl"])])
    grad = [g.H[i] @ z + g.h[i] for i in range(g.M)]
    vbar = np.mean(grad, 0) if option == 1 else np.mean([grad[i] for i in S], 0)
    dirs = []
    for i in S:
        zi = z.copy()
        for _k in range(K):
            d = g.H[i] @ zi + g.h[i] + ((vbar - grad[i]) if option else 0.0)
            dirs.append(d)
            zi = zi - s * d
    D = np.mean(dirs, 0)
    return np.concatenate([-config["eta_xl"] * config["eta_xg"] * K * D[:dx],
                           config["eta_yl"] * config["eta_yg"] * K * D[dx:]])


def effective_step_error(method: Method, g: MinMaxGame, Z: np.ndarray, S: np.ndarray,
                         config: Mapping[str, Any], option: int) -> float:
    """Largest relative error max|Δz − predicted| / max(1, max|Δz|) of one round of ``method``
    from each row of Z (client set S) against :func:`predicted_move`."""
    out = round_map(method, g.M, S)(Z.copy())
    err = 0.0
    for r, z in enumerate(Z):
        move = out[r] - z
        err = max(err, float(np.max(np.abs(move - predicted_move(g, z, S, config, option)))
                             / max(1.0, float(np.max(np.abs(move))))))
    return err


# ---- constants of Φ (P3) -------------------------------------------------------------------------
def phi_constant_ratios(g: MinMaxGame, points: int, seed: int) -> dict[str, float]:
    """‖∇²Φ‖/L with L = L_f + L_f²/μ (Section 3 [L88]), and the largest ratio of the PL error bound
    ‖∇Φ(x) − ∇_x f(x, y)‖² ≤ (L_f²/μ²)‖∇_y f(x, y)‖² (proof of Lemma 2 [L556–L560]) over random
    (x, y)."""
    k = g.constants
    A, B, C, b, c = g.mean_blocks()
    hess = float(np.linalg.norm(A + B @ np.linalg.solve(C, B.T), 2))
    rng = np.random.default_rng([seed, 3])
    X = 3 * rng.standard_normal((points, g.dx))
    Y = 3 * rng.standard_normal((points, g.dy))
    gx = X @ A + Y @ B.T + b
    gy = X @ B - Y @ C - c
    lhs = np.sum((g.grad_phi(X) - gx) ** 2, axis=1)
    rhs = k["kappa"] ** 2 * np.sum(gy**2, axis=1)
    return {"hess_phi_norm": hess, "hess_ratio": hess / k["L"],
            "error_bound_max_ratio": float(np.max(lhs / rhs))}


# ---- lemma-level moments at a fixed z_t (P4) -----------------------------------------------------
@cache
def _lemma_function(name: str) -> tuple[list[str], Any]:
    expr = LEMMA_RHS[name].expr
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    return [s.name for s in symbols], sp.lambdify(symbols, expr, modules="math")


def lemma_rhs(name: str, values: Mapping[str, float]) -> float:
    """A lemma's right-hand side (:data:`~fedbounds.theorems.sagda.LEMMA_RHS`) at ``values``
    (symbols by name)."""
    names, function = _lemma_function(name)
    return float(function(*(float(values[n]) for n in names)))


def lemma_checks(g: MinMaxGame, zt: np.ndarray, m: int, K: int, eta: float,
                 iterates: list[np.ndarray], grads: list[np.ndarray],
                 grads_bar: list[np.ndarray], rng: np.random.Generator) -> list[dict[str, Any]]:
    """lhs, its standard error and rhs of Lemma 4 (per client i and j ≤ K + 1), the sampling
    bound (exact over all subsets) and Lemma 1 (x and y) at z_t, from the local phase of
    :func:`fedbounds.verify.algorithms.sagda.local_phase` (R replicas)."""
    k, M, dx = g.constants, g.M, g.dx
    R = iterates[0].shape[0]
    grad_t = np.einsum("mij,j->mi", g.H, zt) + g.h  # ∇f_i(z_t), (M, d)
    base = {"K": K, "M": M, "m": m, "eta_xl": eta, "eta_yl": eta, "sigma_x": g.sigma_x,
            "sigma_y": g.sigma_y}
    checks = []
    for i in range(M):
        rhs = lemma_rhs("Lemma 4 drift", {**base, "g_xi2": grad_t[i, :dx] @ grad_t[i, :dx],
                                          "g_yi2": grad_t[i, dx:] @ grad_t[i, dx:]})
        for j, zj in enumerate(iterates):
            d2 = np.sum((zj[:, i] - zt) ** 2, axis=1)
            checks.append({"check": "Lemma 4 drift", "client": i, "j": j + 1,
                           "lhs": float(d2.mean()), "se": float(d2.std(ddof=1) / math.sqrt(R)),
                           "rhs": rhs})
    gf = grad_t.mean(0)
    subsets = [np.array(S) for S in combinations(range(M), m)]
    for blk, sl, sig, sG2 in (("x", slice(0, dx), g.sigma_x, k["sigma_xG_sq"]),
                              ("y", slice(dx, g.d), g.sigma_y, k["sigma_yG_sq"])):
        block = {**base, "sigma_x": sig, "sigma_xG": math.sqrt(sG2)}
        u2 = float(np.mean([np.sum(grad_t[S, sl].mean(0) ** 2) for S in subsets]))
        checks.append({"check": f"sampling E‖u_{blk}‖²", "lhs": u2, "se": 0.0,
                       "rhs": lemma_rhs("sampling", {**block, "g_x2": float(gf[sl] @ gf[sl])}),
                       "exact": "all C(M, m) subsets"})
        idx = sampled(rng.random((R, M)), m)
        pick = np.take_along_axis(np.stack(grads, 1), idx[:, None, :, None], axis=2)
        lhs = np.sum(pick[..., sl].mean(axis=(1, 2)) ** 2, axis=1)
        ebar = grad_t[None, None] - np.stack(grads_bar)[None]  # (1, K, M, d)
        eb = np.take_along_axis(np.broadcast_to(ebar, (R, K, M, g.d)), idx[:, None, :, None],
                                axis=2)[..., sl].mean(axis=(1, 2))
        u = grad_t[idx][..., sl].mean(1)
        rhs1 = lemma_rhs("Lemma 1", {**block, "e_bar2": np.sum(eb**2, 1).mean(),
                                     "u_x2": np.sum(u**2, 1).mean()})
        checks.append({"check": f"Lemma 1 E‖u_{blk} − e_{blk}‖²", "lhs": float(lhs.mean()),
                       "se": float(lhs.std(ddof=1) / math.sqrt(R)), "rhs": rhs1})
    for c in checks:
        c["ratio"] = c["lhs"] / c["rhs"]
        c["lower_ratio"] = (c["lhs"] - 3 * c["se"]) / c["rhs"]
    return checks


# ---- the theorems through the engine ------------------------------------------------------------
def drift_cap(K: int, L_f: float) -> float:
    """The largest η_{x,l} = η_{y,l} allowed by the local-drift condition (7) of Theorem 2
    (8K(K − 1)(2K − 1)L_f² max(η_{x,l}², η_{y,l}²) ≤ 1 [L215])."""
    cond = next(c for c in registry.get("sagda.thm2").conditions if c.name.startswith("(7)"))
    at = {"K": K, "L_f": L_f}
    coef = cond.rel.lhs.subs({s: at.get(s.name, 1) for s in cond.rel.lhs.free_symbols})
    return 1 / math.sqrt(float(coef) / float(cond.rel.rhs))


@cache
def _ratio_expr(theorem_id: str) -> sp.Expr:
    thm = registry.get(theorem_id)
    found = findings.ratio_bound(thm, thm.notation.spec("eta_y").symbol,
                                 thm.notation.spec("eta_x").symbol)
    return thm.expand(found.value)


def two_time_scale_ratio(theorem_id: str, L_f: float, mu: float) -> float:
    """The lower bound on η_y/η_x that the theorem's conditions force (20L_f²/μ²; Theorem 1
    eqs. (13), (16), Theorem 2 eq. (9) [L150, L164, L217]), derived from the encoded conditions
    by :func:`fedbounds.findings.ratio_bound`."""
    expr = _ratio_expr(theorem_id)
    return float(expr.subs({s: {"L_f": L_f, "mu": mu}[s.name] for s in expr.free_symbols}))


def max_steps(thm: Theorem, base: Mapping[str, Fraction], eta_l: float
              ) -> tuple[dict[str, float], dict[str, Any]]:
    """Step sizes from engine.max_step (rule :data:`STEP_RULE`); ``base`` holds L_f, μ, K, M, m."""
    names = engine.compiled(thm).condition_inputs  # expanded once, not per name
    base = {n: v for n, v in base.items() if n in names}
    loc = {"eta_xl": Fraction(eta_l), "eta_yl": Fraction(eta_l)}
    for xg0 in (1.0, 1e-2, 1e-4, 1e-6):
        ms = engine.max_step(thm, "eta_yg", {**base, **loc, "eta_xg": Fraction(xg0)})
        if ms.value is not None:
            break
    else:
        raise ValueError(f"{thm.id}: no feasible eta_yg ({ms.binding})")
    eyg = ms.value / 2
    ms2 = engine.max_step(thm, "eta_xg", {**base, **loc, "eta_yg": Fraction(eyg)})
    if ms2.value is None:
        raise ValueError(f"{thm.id}: no feasible eta_xg ({ms2.binding})")
    steps = {"eta_xl": eta_l, "eta_yl": eta_l, "eta_xg": ms2.value, "eta_yg": eyg}
    return steps, {"eta_xg_start": xg0, "eta_yg_cap": ms.value, "eta_yg_binding": ms.binding,
                   "eta_xg_binding": ms2.binding}


def theorem_bound(thm: Theorem, inputs: Mapping[str, Fraction], steps: Mapping[str, float],
                  T: int) -> engine.BoundResult:
    """The theorem's bound at exact inputs, step sizes and horizon T."""
    vals = {**inputs, **{n: Fraction(v) for n, v in steps.items()}, "T": Fraction(T)}
    names = engine.compiled(thm).names  # thm.inputs(), expanded once
    return engine.bound(thm, {n: v for n, v in vals.items() if n in names})


def bound_entries(inputs: Mapping[str, Fraction], steps: Mapping[str, float], T: int,
                  theorems: tuple[str, str], observed: float, se: float) -> dict[str, Any]:
    """A measured average (with its standard error) against a printed and a corrected theorem
    at the same inputs and steps: bound, terms, ratios (mean and mean ∓ 3 SE), whether the
    conditions hold, and the terms in which the two statements differ."""
    bds = {tid: theorem_bound(registry.get(tid), inputs, steps, T) for tid in theorems}
    out: dict[str, Any] = {
        tid: {"bound": bd.value, "terms": bd.terms, "ratio": observed / bd.value,
              "lower_ratio": (observed - 3 * se) / bd.value,
              "upper_ratio": (observed + 3 * se) / bd.value,
              "conditions_hold": bd.feasible, "violated": bd.violated}
        for tid, bd in bds.items()}
    p, c = (bds[t] for t in theorems)
    out["printed_vs_corrected"] = {
        "terms_that_differ": {n: {"printed": p.terms[n], "corrected": c.terms[n]}
                              for n in p.terms if not math.isclose(p.terms[n], c.terms[n],
                                                                   rel_tol=1e-12)},
        "corrected_minus_printed": c.value - p.value, "corrected/printed": c.value / p.value,
        "observed_fraction_of_printed": observed / p.value}
    return out


def option1_gamma_y_caps(L_f: float, mu: float, K: int, m: int, Ms: list[int],
                         eta_l: float) -> list[float]:
    """Largest admissible γ_y = η_yK of Theorem 1 Option I (engine.max_step on η_{y,g}) in the
    limit η_x → 0 (η_{x,g} = 10⁻⁶, η_x = 10⁻⁶η_l ≪ γ_y/(20κ²K)), for each M."""
    thm = registry.get("sagda.thm1.opt1")
    loc = {"eta_xl": Fraction(eta_l), "eta_yl": Fraction(eta_l), "eta_xg": Fraction(1, 10**6)}
    return [engine.max_step(thm, "eta_yg", {**abstract_inputs(L_f, mu, K, M, m), **loc}).value
            * eta_l * K for M in Ms]


def option1_statistical_terms(L_f: float, mu: float, K: int, m: int, Ms: list[int],
                              steps: Mapping[str, float], T: int) -> list[dict[str, Any]]:
    """Printed vs corrected statistical term of Theorem 1 Option I at common steps, per M
    (D_0 = σ = 1)."""
    thm, thc = registry.get("sagda.thm1.opt1"), registry.get("sagda.thm1.opt1.corrected")
    unit = {n: Fraction(1) for n in ("D_0", "sigma_x", "sigma_y")}
    rows = []
    for M in Ms:
        base = {**abstract_inputs(L_f, mu, K, M, m), **unit}
        bp, bc = theorem_bound(thm, base, steps, T), theorem_bound(thc, base, steps, T)
        rows.append({"M/m": M / m, "gamma_x": steps["eta_xl"] * steps["eta_xg"] * K,
                     "statistical_printed": bp.terms["statistical"],
                     "statistical_corrected": bc.terms["statistical"],
                     "corrected/printed": bc.terms["statistical"] / bp.terms["statistical"],
                     "printed_conditions_hold": bp.feasible,
                     "corrected_conditions_hold": bc.feasible})
    return rows


def two_time_scale_rows(cases: list[tuple[float, float, int, int, int]],
                        theorems: tuple[str, ...], eta_l: float, gamma_y: float
                        ) -> list[dict[str, Any]]:
    """Per case (L_f, μ, K, M, m) and theorem: with γ_y = η_yK fixed, the largest admissible
    η_{x,g} (engine.max_step) and (η_y/η_x there)/(the ratio the conditions force)."""
    rows = []
    for Lf, mu, K, M, m in cases:
        for tid in theorems:
            thm = registry.get(tid)
            base = {**abstract_inputs(Lf, mu, K, M, m), "eta_xl": Fraction(eta_l),
                    "eta_yl": Fraction(eta_l)}
            names = engine.compiled(thm).condition_inputs
            base = {n: v for n, v in base.items() if n in names}
            eyg = gamma_y / (K * eta_l)
            ms = engine.max_step(thm, "eta_xg", {**base, "eta_yg": Fraction(eyg)})
            if ms.value is None:
                rows.append({"theorem": tid, "case": [Lf, mu, K, M, m], "feasible": False})
                continue
            rows.append({"theorem": tid, "case": {"L_f": Lf, "mu": mu, "K": K, "M": M, "m": m},
                         "max_eta_xg": ms.value, "binding": ms.binding,
                         "eta_y/eta_x_over_20kappa2":
                             (eyg / ms.value) / two_time_scale_ratio(tid, Lf, mu)})
    return rows


def feasibility_rows(L_f: float, mu: float, K: int, M: int, ms: tuple[int, ...],
                     theorems: tuple[str, ...], eta_l: float, T: int) -> list[dict[str, Any]]:
    """Per m and theorem: the :func:`max_steps` steps (or why there are none), γ_x, γ_y, the
    cap of γ_y and the bound at T with D_0 = σ = σ_G = 1."""
    rows = []
    unit = {n: Fraction(1) for n in ("D_0", "sigma_x", "sigma_y", "sigma_xG", "sigma_yG")}
    for m in ms:
        base = abstract_inputs(L_f, mu, K, M, m)
        for tid in theorems:
            thm = registry.get(tid)
            try:
                steps, binding = max_steps(thm, base, eta_l)
            except ValueError as e:
                rows.append({"theorem": tid, "m": m, "feasible": False, "why": str(e)})
                continue
            bd = theorem_bound(thm, {**base, **unit}, steps, T)
            rows.append({"theorem": tid, "m": m, "M/m": M / m, "feasible": bd.feasible,
                         "gamma_x": steps["eta_xl"] * steps["eta_xg"] * K,
                         "gamma_y": steps["eta_yl"] * steps["eta_yg"] * K,
                         "gamma_y_cap": steps["eta_yl"] * binding["eta_yg_cap"] * K,
                         "binding": binding, "bound_T": bd.value, "terms": bd.terms})
    return rows


# ---- FSGDA under full participation with additive noise: exact moments (claim sagda.p13) -------
def fsgda_noise_cov(g: MinMaxGame, config: Mapping[str, Any]) -> np.ndarray:
    """Covariance of the noise one FSGDA round with all M clients adds to z_{t+1} (additive
    Gaussian noise, β_L = 0): client i's K local steps z ← (I − SH_i)z − S(h_i + ξ) carry
    C_i = Σ_k (I − SH_i)^k S D S (I − SH_i)^{kᵀ} (S the signed local steps, D the per-coordinate
    variance), and the server step z + G((1/M)Σ_i z_i − z) scales it to G(Σ_i C_i/M²)G
    (Algorithm 2 [L184–L197])."""
    if g.beta_L or not g.affine:
        raise ValueError("fsgda_noise_cov needs additive noise on an affine game")
    s = np.concatenate([np.full(g.dx, config["eta_xl"]), np.full(g.dy, -config["eta_yl"])])
    sds = np.diag(s * g.coord_var() * s)
    eg = np.diag(np.concatenate([np.full(g.dx, config["eta_xg"]),
                                 np.full(g.dy, config["eta_yg"])]))
    total = np.zeros((g.d, g.d))
    for i in range(g.M):
        lin = np.eye(g.d) - s[:, None] * g.H[i]
        cov = np.zeros((g.d, g.d))
        for _ in range(int(config["K"])):
            cov = lin @ cov @ lin.T + sds
        total += cov
    return eg @ total @ eg / g.M**2


def full_participation_average(method: Method, g: MinMaxGame, T: int) -> float:
    """Exact (1/T) Σ_{t<T} E‖∇Φ(x_t)‖² of FSGDA with all M clients from the game's start: the
    round is z' = Az + c + noise (A, c read off the method's step, the noise's covariance from
    :func:`fsgda_noise_cov`), so the mean and covariance of z_t follow exactly."""
    A, c = affine_round(round_map(method, g.M), g.d)
    noise = fsgda_noise_cov(g, method.config)
    G, g0 = grad_phi_affine(g)
    mean, cov, total = g.z0.astype(float).copy(), np.zeros((g.d, g.d)), 0.0
    for _ in range(T):
        v = G @ mean + g0
        total += float(v @ v + np.trace(G @ cov @ G.T))
        mean, cov = A @ mean + c, A @ cov @ A.T + noise
    return total / T
