"""Claims of Fed-Norm-SGDA (fed_norm_sgda.md §8, P1–P4, P9–P11) on min-max quadratic games.

Exact machinery where the round map is affine: fixed points of deterministic rounds (P1, P2, P4)
and the exact stationary second moment under client sampling (P9); Monte Carlo with replica
confidence intervals elsewhere (P10, P11)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithms.fednorm import a_l1, compile_fednorm, implicit_weights, taus
from fedbounds.verify.claim import (
    Claim,
    Figure,
    Verdict,
    decide_at_most,
    decide_interval,
    decide_upper,
)
from fedbounds.verify.fitting import loglog_slope, mean_ci, plateau
from fedbounds.verify.minmax_common import (
    fixed_point,
    quad_expect,
    rerun,
    round_map,
    sampled_moments,
    simulate,
    with_start,
)

from fedbounds import engine, registry

PAPER = "fednorm"
P1_SET = {"M": 3, "p_skew": 0.6, "sigma_G": 2.0}
P1_TAU = np.array([1, 10, 20])  # = linspace(tau=1, tau_max=20) over 3 clients


def _fp_path(g, tau, etas, normalized, rho=0.0, gamma=None):
    out = []
    for eta in etas:
        cfg = {"eta_cx": eta, "eta_cy": eta, "tau": tau, "rho": rho}
        if gamma is not None:
            cfg.update(gamma_sx=gamma, gamma_sy=gamma)
        f = round_map(lambda R, cfg=cfg: compile_fednorm(g, cfg, R, normalized=normalized), g.M)
        z, rho_A = fixed_point(f, g.d)
        if rho_A >= 1:
            raise ValueError(f"round map not contracting at eta={eta} (spectral radius {rho_A:.3g})")
        out.append(z)
    return np.array(out)


def _slope_verdict(cid, x, y, predicted, tol, fig, ev, cfg) -> Verdict:
    fit = loglog_slope(np.asarray(x), np.asarray(y))
    ev = {**ev, "fit": fit.as_dict()}
    return Verdict(cid, decide_interval(fit.lo, fit.hi, predicted, tol), fit.slope, predicted, tol,
                   ev, fig, cfg)


def p1(profile: str = "quick", seed: int = 0, predicted: float = 1.0, **_: Any) -> Verdict:
    """Local SGDA's fixed point → z*(w), w_i ∝ p_iτ_i, at distance Θ(η) (slope +1 in η)."""
    g = make_game(P1_SET, seed)
    etas = np.array([0.02, 0.01, 0.005, 0.0025] + ([0.00125] if profile == "full" else []))
    w = implicit_weights(g, P1_TAU)
    Z = _fp_path(g, P1_TAU, etas, normalized=False)
    dw = np.linalg.norm(Z - g.z_star(w), axis=1)
    dp = np.linalg.norm(Z - g.z_star(), axis=1)
    gap = float(np.linalg.norm(g.z_star(w) - g.z_star()))
    fig = Figure("Local SGDA fixed point vs η (τ = 1, 10, 20)", "η^c", "distance",
                 {"‖z_LS − z*(w)‖": (etas.tolist(), dw.tolist()),
                  "‖z_LS − z*(p)‖": (etas.tolist(), dp.tolist())}, logx=True,
                 hlines={"‖z*(w) − z*(p)‖": gap})
    ev = {"w": w.tolist(), "p": g.p.tolist(), "tau": P1_TAU.tolist(), "dist_to_z_w": dw.tolist(),
          "dist_to_z_p": dp.tolist(), "gap_z_w_z_p": gap}
    cfg = rerun("local-sgda", "minmax-quadratic", P1_SET, {"eta_cx": 0.0025, "eta_cy": 0.0025,
                                                           "tau": 1, "tau_max": 20}, 4000, 1, seed)
    return _slope_verdict("fednorm.p1", etas, dw, predicted, 0.1, fig, ev, cfg)


def p2a(profile: str = "quick", seed: int = 0, predicted: float = 1.0, **_: Any) -> Verdict:
    """Fed-Norm-SGDA's fixed point → z*(p) at distance Θ(η^c)."""
    g = make_game(P1_SET, seed)
    etas = np.array([0.02, 0.01, 0.005, 0.0025] + ([0.00125] if profile == "full" else []))
    Z = _fp_path(g, P1_TAU, etas, normalized=True)
    dp = np.linalg.norm(Z - g.z_star(), axis=1)
    dw = np.linalg.norm(Z - g.z_star(implicit_weights(g, P1_TAU)), axis=1)
    fig = Figure("Fed-Norm-SGDA fixed point vs η^c (τ = 1, 10, 20)", "η^c", "distance",
                 {"‖z_FN − z*(p)‖": (etas.tolist(), dp.tolist()),
                  "‖z_FN − z*(w)‖": (etas.tolist(), dw.tolist())}, logx=True)
    ev = {"dist_to_z_p": dp.tolist(), "dist_to_z_w": dw.tolist()}
    cfg = rerun("fednorm-sgda", "minmax-quadratic", P1_SET, {"eta_cx": 0.0025, "eta_cy": 0.0025,
                                                             "tau": 1, "tau_max": 20}, 4000, 1, seed)
    return _slope_verdict("fednorm.p2a", etas, dp, predicted, 0.1, fig, ev, cfg)


def p2b(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """Fed-Norm's fixed point does not depend on the server step γ^s (at fixed η^c)."""
    g = make_game(P1_SET, seed)
    eta = 0.01
    gammas = [0.01, 0.02, 0.05]
    Z = np.array([_fp_path(g, P1_TAU, [eta], True, gamma=gm)[0] for gm in gammas])
    spread = float(np.max(np.linalg.norm(Z - Z[0], axis=1)) / np.linalg.norm(Z[0]))
    tol = 1e-9
    d = np.linalg.norm(Z - g.z_star(), axis=1)
    fig = Figure("Fed-Norm fixed point vs server step", "γ^s", "‖z_FN − z*(p)‖",
                 {"η^c = 0.01": (gammas, d.tolist())}, logx=True, kind="scatter")
    ev = {"gammas": gammas, "fixed_points": Z.tolist(), "relative_spread": spread}
    v = decide_interval(spread, spread, predicted, tol)
    cfg = rerun("fednorm-sgda", "minmax-quadratic", P1_SET, {"eta_cx": eta, "eta_cy": eta,
                                                             "gamma_sx": 0.05, "gamma_sy": 0.05,
                                                             "tau": 1, "tau_max": 20}, 2000, 1, seed)
    return Verdict("fednorm.p2b", v, spread, predicted, tol, ev, fig, cfg)


def p3(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """Fed-Norm-SGDA with equal τ, w = p and γ^s = η^c equals Local SGDA (App. A.1), noisy, P < n."""
    pset = {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 3.0, "p_skew": 0.5, "beta_L": 0.2}
    g = make_game(pset, seed)
    cfg = {"eta_cx": 0.03, "eta_cy": 0.05, "tau": 4, "P": 3}
    T, R = (200, 8) if profile == "quick" else (2000, 32)
    a = simulate(compile_fednorm(g, cfg, R, seed, normalized=False), g, T, seed, R)
    b = simulate(compile_fednorm(g, cfg, R, seed, normalized=True), g, T, seed, R)
    diff = np.max(np.abs(a.state[0] - b.state[0]), axis=1)
    traj = np.abs(a.metrics["grad_phi_sq"] - b.metrics["grad_phi_sq"]).max(axis=1)
    tol = 1e-12
    stat = float(diff.max())
    fig = Figure("Fed-Norm vs Local SGDA (equal τ): |Δ‖∇Φ‖²| per round", "round", "|difference|",
                 {"max over replicas": (a.iterations.tolist(), np.maximum(traj, 1e-18).tolist())})
    ev = {"max_abs_final_iterate_diff": stat, "rounds": T, "replicas": R}
    return Verdict("fednorm.p3", decide_interval(stat, stat, predicted, tol), stat, predicted, tol, ev,
                   fig, rerun("fednorm-sgda", "minmax-quadratic", pset, cfg, T, R, seed))


def p4(profile: str = "quick", seed: int = 0, predicted: float = 1.0, **_: Any) -> Verdict:
    """Naive averaging with local momentum ρ converges to z*(w), w_i ∝ p_i‖a_i‖_1 (O(η) away)."""
    g = make_game(P1_SET, seed)
    etas = np.array([0.01, 0.005, 0.0025, 0.00125])
    series, ev, worst = {}, {}, None
    for rho in (0.5, 0.9):
        w = implicit_weights(g, P1_TAU, rho)
        Z = _fp_path(g, P1_TAU, etas, normalized=False, rho=rho)
        d = np.linalg.norm(Z - g.z_star(w), axis=1)
        d_tau = np.linalg.norm(Z - g.z_star(implicit_weights(g, P1_TAU)), axis=1)
        fit = loglog_slope(etas, d)
        series[f"ρ={rho}: ‖z − z*(w_mom)‖"] = (etas.tolist(), d.tolist())
        series[f"ρ={rho}: ‖z − z*(w ∝ pτ)‖"] = (etas.tolist(), d_tau.tolist())
        ev[f"rho={rho}"] = {"w": w.tolist(), "a_l1": a_l1(P1_TAU, rho).tolist(),
                            "dist_to_z_w": d.tolist(), "dist_to_z_w_tau": d_tau.tolist(),
                            "fit": fit.as_dict()}
        if worst is None or abs(fit.slope - predicted) > abs(worst.slope - predicted):
            worst = fit
    tol = 0.1
    fig = Figure("Local SGDA with momentum: fixed point vs η", "η^c", "distance", series, logx=True)
    cfg = rerun("local-sgda", "minmax-quadratic", P1_SET, {"eta_cx": 0.00125, "eta_cy": 0.00125,
                                                           "tau": 1, "tau_max": 20, "rho": 0.9},
                4000, 1, seed)
    return Verdict("fednorm.p4", decide_interval(worst.lo, worst.hi, predicted, tol), worst.slope,
                   predicted, tol, {**ev, "statistic": "slope farther from 1 over ρ ∈ {0.5, 0.9}"},
                   fig, cfg)


# ---- P9: partial-participation floor, exact ---------------------------------------------------
P9_SET = {"M": 5, "sigma_G": 2.0}


def _pp_floor(g, gamma: float, P: int) -> float:
    """Exact stationary E‖z − z*‖² of Fed-Norm-SGDA (τ = 1, σ_L = 0) under WOR sampling."""
    cfg = {"eta_cx": gamma, "eta_cy": gamma, "tau": 1, "P": P}
    import fedbounds.verify.minmax_common as mc

    def fS(Z, S):
        return mc.round_map(lambda R: compile_fednorm(g, cfg, R), g.M, S)(Z)

    mu, Pm, rho = sampled_moments(fS, g.d, g.M, P)
    if rho >= 1:
        raise ValueError(f"second-moment recursion not contracting (ρ = {rho:.3g})")
    zs = g.z_star()
    return quad_expect(np.eye(g.d), -zs, mu, Pm)


def p9(profile: str = "quick", seed: int = 0, part: str = "a", predicted: float | None = None,
       **_: Any) -> Verdict:
    """(a) floor ∝ γ (slope 1); (b) floor ratios across P follow (n − P)/(P(n − 1)); zero at P = n."""
    g = make_game(P9_SET, seed)
    n = g.M
    g0 = 0.05
    gammas = np.array([g0, g0 / 2, g0 / 4, g0 / 8])
    Ps = list(range(1, n + 1))
    F = np.array([[_pp_floor(g, gm, P) for P in Ps] for gm in gammas])  # (γ, P)
    theory = np.array([(n - P) / (P * (n - 1)) for P in Ps])
    series = {f"γ = {gm:g}": (Ps, np.maximum(F[k], 1e-300).tolist()) for k, gm in enumerate(gammas)}
    series["(n−P)/(P(n−1)) · floor(P=1), smallest γ"] = (Ps, np.maximum(theory * F[-1, 0], 1e-300).tolist())
    fig = Figure("Fed-Norm PP floor (exact, τ = 1, σ_L = 0)", "P", "stationary E‖z − z*‖²", series)
    ev = {"gammas": gammas.tolist(), "P": Ps, "floors": F.tolist(), "theory_profile": theory.tolist(),
          "floor_at_P_eq_n": F[:, -1].tolist()}
    cfg = rerun("fednorm-sgda", "minmax-quadratic", P9_SET, {"eta_cx": g0, "eta_cy": g0, "P": 2},
                5000, 64, seed)
    if part == "a":
        pred = 1.0 if predicted is None else predicted
        return _slope_verdict("fednorm.p9a", gammas, F[:, 1], pred, 0.1, fig, ev, cfg)
    prof = F[-1, :-1] / F[-1, 0]
    dev = float(np.max(np.abs(prof - theory[:-1])))
    zero_ok = bool(np.max(F[:, -1]) <= 1e-12 * np.max(F))
    pred = 0.0 if predicted is None else predicted
    tol = 0.05
    v = decide_interval(dev, dev, pred, tol) if zero_ok else "refuted"
    return Verdict("fednorm.p9b", v, dev, pred, tol,
                   {**ev, "profile_measured": prof.tolist(), "zero_at_P_eq_n": zero_ok,
                    "statistic": "max |floor(P)/floor(1) − (n−P)/(P(n−1))| at the smallest γ"},
                   fig, cfg)


# ---- P10, P11: Monte Carlo ----------------------------------------------------------------------
def _mc_floor(g, cfg, T, R, seed, start=True):
    c = compile_fednorm(g, cfg, R, seed)
    if start:
        c = with_start(c, g.z_star())
    tr = simulate(c, g, T, seed, R, record_every=10)
    return plateau(tr.metrics["grad_phi_sq"], tr.metrics["grad_phi_sq"].shape[0] // 3)


def p10(profile: str = "quick", seed: int = 0, part: str = "a", predicted: float | None = None,
        **_: Any) -> Verdict:
    """(a) P < n, σ_G > 0: the floor of E‖∇Φ‖² does not fall with τ (slope 0 in τ);
    (b) control P = n: the local-noise floor falls ∝ 1/τ (slope −1). Fixed per-round server steps
    γ^s τ_eff and small client steps."""
    T, R = (1500, 32) if profile == "quick" else (6000, 64)
    P = 2 if part == "a" else 10
    pset = {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 3.0 if part == "a" else 0.0}
    g = make_game(pset, seed)
    taus = [1, 4, 16]
    ests = []
    for tau in taus:
        gam = 0.02 / tau  # τ_eff γ^s fixed
        cfg = {"eta_cx": 0.002 / tau, "eta_cy": 0.002 / tau, "gamma_sx": gam, "gamma_sy": 5 * gam,
               "tau": tau, "P": P}
        ests.append(_mc_floor(g, cfg, T, R, seed))
    vals = np.array([e.value for e in ests])
    # slope CI from the per-τ intervals (delta method on log)
    fit = loglog_slope(np.array(taus, float), vals)
    se = np.array([(e.hi - e.lo) / 2 / e.value for e in ests])
    resid = np.log(vals) - (fit.intercept + fit.slope * np.log(np.array(taus, float)))
    half = float(math.sqrt(np.sum(se**2)) / math.log(taus[-1] / taus[0]) + np.max(np.abs(resid)))
    lo, hi = fit.slope - half, fit.slope + half
    pred = (0.0 if part == "a" else -1.0) if predicted is None else predicted
    tol = 0.2
    fig = Figure(f"Fed-Norm floor vs τ ({'P = 2 < n, σ_G = 3' if part == 'a' else 'P = n, σ_G = 0'})",
                 "τ", "stationary E‖∇Φ‖²", {"measured": (taus, vals.tolist())}, logx=True)
    ev = {"taus": taus, "floors": [e.as_dict() for e in ests], "slope": fit.slope, "ci": [lo, hi],
          "rounds": T, "replicas": R}
    cfg = rerun("fednorm-sgda", "minmax-quadratic", pset,
                {"eta_cx": 0.002 / 16, "eta_cy": 0.002 / 16, "gamma_sx": 0.02 / 16,
                 "gamma_sy": 0.1 / 16, "tau": 16, "P": P}, T, R, seed)
    return Verdict(f"fednorm.p10{part}", decide_interval(lo, hi, pred, tol), fit.slope, pred, tol,
                   ev, fig, cfg)


def p11(profile: str = "quick", seed: int = 0, predicted: float = -0.5, **_: Any) -> Verdict:
    """Cor 1.2 schedule (γ^s_y = c√(P/(τ_eff T)), γ^s_x = γ^s_y/(81κ²), η^c = 1/(L_f τ √T)), full
    participation: (1/T) Σ E‖∇Φ(x_t)‖² decays at least like T^{-1/2} (slope ≤ −1/2 + tol)."""
    pset = {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "bxy": 0.5, "a": 1.0,
            "a_ratio": 1.0}
    g = make_game(pset, seed)
    k, Lf = g.constants["kappa"], g.constants["L_f"]
    tau, P = 4, g.M
    Ts = [1000, 4000, 16000] if profile == "quick" else [1000, 4000, 16000, 64000]
    R = 8 if profile == "quick" else 32
    avgs, per_rep = [], []
    for T in Ts:
        gy = 8.0 * math.sqrt(P / (tau * T))
        cfg = {"eta_cx": 1 / (Lf * tau * math.sqrt(T)), "eta_cy": 1 / (Lf * tau * math.sqrt(T)),
               "gamma_sx": gy / (81 * k**2), "gamma_sy": gy, "tau": tau}
        tr = simulate(compile_fednorm(g, cfg, R, seed), g, T, seed, R, record_every=max(1, T // 500))
        gp = tr.metrics["grad_phi_sq"][:-1]
        per_rep.append(gp.mean(axis=0))
        avgs.append(float(gp.mean()))
    Y = np.array(per_rep).T  # (R, len(Ts))
    from fedbounds.verify.fitting import replica_slope
    fit = replica_slope(np.array(Ts, float), Y)
    tol = 0.1
    v = "diverged" if not np.all(np.isfinite(avgs)) else decide_at_most(fit.lo, fit.hi,
                                                                        predicted, tol)
    fig = Figure("Fed-Norm-SGDA, Cor 1.2 schedule: average ‖∇Φ‖² vs T", "T",
                 "(1/T) Σ E‖∇Φ(x_t)‖²", {"measured": (Ts, avgs),
                                          "T^{-1/2} (anchored)": (Ts, [avgs[0] * math.sqrt(Ts[0] / t)
                                                                       for t in Ts])}, logx=True)
    ev = {"T": Ts, "avg_grad_phi_sq": avgs, "fit": fit.as_dict(), "kappa": k, "tau": tau, "n": P,
          "rule": "upper bound: refuted if the slope CI lies above −1/2 + tol"}
    T = Ts[-1]
    gy = 8.0 * math.sqrt(P / (tau * T))
    cfg = rerun("fednorm-sgda", "minmax-quadratic", pset,
                {"eta_cx": 1 / (Lf * tau * math.sqrt(T)), "eta_cy": 1 / (Lf * tau * math.sqrt(T)),
                 "gamma_sx": gy / (81 * k**2), "gamma_sy": gy, "tau": tau}, T, R, seed)
    return Verdict("fednorm.p11", v, fit.slope, predicted, tol, ev, fig, cfg)


# ---- P20 (ours): Theorem 1 bound validity at max-step step sizes -------------------------------
P20_SET = {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "p_skew": 0.3}
P20_ALG = {"tau": 1, "tau_max": 3, "P": 3}
P20_THM = "fednorm.thm1.corrected"  # L_Φ = (1 + κ)L_f (digest §9 item 1); bound terms as printed


def thm1_inputs(g, cfg: dict[str, Any]) -> dict[str, Fraction]:
    """Theorem 1's scalar summaries, exact from the game and the configuration: SGDA local steps
    (a_i ≡ 1, ‖a_i‖₁ = ‖a_i‖₂² = τ_i), Fed-Norm weights w = p, σ_G, β_G = 1, σ_L, β_L exact by
    construction, Δ_Φ = Φ(x_0) − Φ(x*) from the closed form (w = p, so Φ̃ = Φ)."""
    t = taus(g, {**cfg, "tau_max": cfg.get("tau_max", 0)}).astype(float)
    w, n = g.p, g.M
    P = int(cfg.get("P") or n)
    teff = float(w @ t)
    k = g.constants
    x0 = g.z0[: g.dx]
    vals = {"tau_eff": teff, "A_w": n * teff * float(np.sum(w**2 / t)),
            "B_w": n * teff * float(np.max(w / t)), "C_w": float(w @ (t - 1)),
            "D": float(np.max(g.beta_L**2 * (t - 1) + (t - 1) ** 2)), "E_w": n * float(w.max()),
            "a_l1_max": float(t.max()), "w_a_max": float(np.max(w / t)),
            "Delta_Phi": float(g.phi(x0) - g.phi(g.z_star()[: g.dx])), "L_f": k["L_f"],
            "mu": k["mu"], "sigma_G": k["sigma_G"], "beta_G": 1.0, "sigma_L": k["sigma_L"],
            "beta_L": g.beta_L}
    out = {name: Fraction(v) for name, v in vals.items()}
    out.update(n=Fraction(n), P=Fraction(P))
    return out


def thm1_steps(thm, vals: dict[str, Fraction]) -> tuple[dict[str, float], dict[str, str | None]]:
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


def p20(profile: str = "quick", seed: int = 0, bound_scale: float = 1.0, **_: Any) -> Verdict:
    """Ours: Fed-Norm-SGDA at the largest step sizes Theorem 1 allows (engine.max_step on
    fednorm.thm1.corrected) stays below the encoded bound (O(·) constants taken as 1)."""
    T, R = (2000, 16) if profile == "quick" else (10000, 32)
    g = make_game(P20_SET, seed)
    thm = registry.get(P20_THM)
    vals = thm1_inputs(g, P20_ALG)
    steps, binding = thm1_steps(thm, vals)
    cfg = {**P20_ALG, **steps}
    tr = simulate(compile_fednorm(g, cfg, R, seed), g, T, seed, R, record_every=max(1, T // 400))
    per = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
    est = mean_ci(per)
    se = float(per.std(ddof=1) / math.sqrt(per.size))
    bd = engine.bound(thm, {**vals, **{kk: Fraction(v) for kk, v in steps.items()},
                            "T": Fraction(T)})
    ratio = est.value / bd.value
    lo = (est.value - 3 * se) / bd.value
    ev = {"observed": est.as_dict(), "observed_se": se, "bound": bd.value, "terms": bd.terms,
          "ratio": ratio, "lower_ratio": lo, "conditions_hold": bd.feasible,
          "violated": bd.violated, "steps": steps, "binding": binding, "rounds": T, "replicas": R,
          "theorem": P20_THM, "inputs": {kk: float(v) for kk, v in vals.items()},
          "inputs_note": "summaries A_w…w_a_max from τ_i (a ≡ 1) and w = p; Δ_Φ = Φ(x_0) − "
                         "Φ(x*) computed exactly from the game; σ_G, β_G = 1, σ_L exact",
          "caveat": "Theorem 1 is an O(·) bound; absolute constants are encoded as 1, so this "
                    "checks the bound as encoded, not a printed constant",
          "rule": "violated only if (mean − 3 SE)/bound > bound_scale",
          "implied_hidden_constant_at_least": lo,
          "reading": "a refutation here says the O(·) of Theorem 1 hides an absolute constant of "
                     "at least `implied_hidden_constant_at_least` (the Δ-term is charged at γ^s_y "
                     "while x moves at γ^s_x ≤ γ^s_y/(81κ²)); it is not a counterexample to the "
                     "O(·) statement"}
    gp = tr.metrics["grad_phi_sq"].mean(axis=1)
    run_avg = np.cumsum(gp[:-1]) / np.arange(1, gp.size)
    fig = Figure("Fed-Norm-SGDA at max-step steps vs Theorem 1 bound", "round",
                 "running average of E‖∇Φ(x_t)‖²",
                 {"measured running average": (tr.iterations[1:].tolist(), run_avg.tolist())},
                 hlines={"Thm 1 bound at T (constants 1)": bd.value})
    if tr.diverged:
        v = "diverged"
    elif not bd.feasible:
        v = "inconclusive"
        ev["reason"] = "conditions of the theorem fail at the max-step step sizes"
    else:
        v = decide_upper(lo, bound_scale)
    return Verdict("fednorm.p20", v, ratio, f"observed/bound ≤ {bound_scale:g}", "mean − 3 SE", ev,
                   fig, rerun("fednorm-sgda", "minmax-quadratic", P20_SET, cfg, T, R, seed))


def _c(cid, title, prediction, source, run, theorems):
    return Claim(cid, PAPER, title, prediction, source, run, theorems)


CLAIMS = [
    _c("fednorm.p1", "Local SGDA converges to the mismatched saddle z*(w), w ∝ p_iτ_i",
       "As η^c → 0 the Local SGDA fixed point approaches z*(w), w_i = p_iτ_i/Σ_j p_jτ_j, at distance "
       "Θ(η) (log-log slope +1), and stays ‖z*(w) − z*(p)‖ away from z*(p)",
       "fed_norm_sgda.md §8 P1; eq. (2) L133, Cor 1.1 L173", p1, ["fednorm.thm1", "fednorm.cor1.1"]),
    _c("fednorm.p2a", "Fed-Norm-SGDA's fixed point tends to z*(p)",
       "‖z_FN(η) − z*(p)‖ = Θ(η^c) (slope +1)", "fed_norm_sgda.md §8 P2; Alg. 1 L143", p2a,
       ["fednorm.thm1"]),
    _c("fednorm.p2b", "Fed-Norm's fixed point does not depend on the server step",
       "at fixed η^c the fixed point is the same for γ^s ∈ {0.01, 0.02, 0.05}",
       "fed_norm_sgda.md §8 P2", p2b, ["fednorm.thm1"]),
    _c("fednorm.p3", "Fed-Norm-SGDA = Local SGDA for equal τ_i and γ^s = η^c",
       "identical server iterates (machine precision) under shared seeds, noise and sampling",
       "fed_norm_sgda.md §8 P3; App. A.1 L535–547", p3, []),
    _c("fednorm.p4", "Local momentum: mismatch weights w ∝ p_i‖a_i‖_1",
       "naive averaging with heavy-ball ρ converges to z*(w), w_i ∝ p_i(τ_i − ρ(1−ρ^τ_i)/(1−ρ))/(1−ρ), "
       "at distance Θ(η)", "fed_norm_sgda.md §8 P4; App. A.1 L535–555", p4, ["fednorm.thm1"]),
    _c("fednorm.p9a", "Partial-participation floor is linear in the server step",
       "stationary E‖z − z*‖² ∝ γ (slope +1) with σ_L = 0, τ = 1, P < n",
       "fed_norm_sgda.md §8 P9; Thm 1 PP term L165", lambda **k: p9(part="a", **k), ["fednorm.thm1"]),
    _c("fednorm.p9b", "Partial-participation floor scales as (n − P)/(P(n − 1)), zero at P = n",
       "floor(P)/floor(1) = (n − P)/(P(n − 1)); floor(n) = 0",
       "fed_norm_sgda.md §8 P9; Lemma B.2 (18)–(19)", lambda **k: p9(part="b", **k), ["fednorm.thm1"]),
    _c("fednorm.p10a", "No local-step benefit under partial participation with heterogeneity",
       "with P < n and σ_G > 0 the error floor does not fall with τ (slope 0 in τ)",
       "fed_norm_sgda.md §8 P10; Cor 1.2 L199, Table 2", lambda **k: p10(part="a", **k),
       ["fednorm.cor1.2"]),
    _c("fednorm.p10b", "Local steps help under full participation (control for p10a)",
       "with P = n, σ_G = 0 the local-noise floor falls ∝ 1/τ (slope −1)",
       "fed_norm_sgda.md §8 P10; Cor 1.2", lambda **k: p10(part="b", **k), ["fednorm.cor1.2"]),
    _c("fednorm.p11", "NC-SC rate T^{-1/2} under the Cor 1.2 schedule",
       "(1/T) Σ E‖∇Φ(x_t)‖² = O(T^{-1/2}(nτ)^{-1/2}): log-log slope in T at most −1/2",
       "fed_norm_sgda.md §8 P11; Thm 1, Cor 1.2 L199–203", p11, ["fednorm.thm1", "fednorm.cor1.2"]),
    Claim("fednorm.p20", PAPER, "Theorem 1 bound with O(·) constants 1 holds at max-step step "
          "sizes (ours: not in the digest's §8, continues its numbering after P19)",
          "Fed-Norm-SGDA (τ_i = 1..3, P = 3 of n = 6, noisy) run with γ^s_y, γ^s_x, η^c_y, η^c_x from "
          "max-step on fednorm.thm1.corrected satisfies (1/T) Σ E‖∇Φ(x_t)‖² ≤ the encoded Theorem 1 "
          "bound (O(·) constants 1): observed/bound ≤ 1",
          "ours; fed_norm_sgda.md §5.1 (Thm 1, L163–L167, L656), issue #5 bound validity", p20,
          ["fednorm.thm1", "fednorm.thm1.corrected"], own=True),
]
