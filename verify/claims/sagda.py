"""Claims of SAGDA / FSGDA (sagda.md §8, P2, P6–P10) on min-max quadratic games.

Exact fixed points (P9a) and exact sampled second moments (P9b, P9c) where the round map is affine;
Monte Carlo with replica confidence intervals for the noise floors (P6, P10) and the Theorem 1-II
bound check (P8)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithms.sagda import compile_fsgda
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
    grad_phi_affine,
    quad_expect,
    rerun,
    round_map,
    sampled,
    sampled_moments,
    simulate,
    with_start,
)

from fedbounds import engine, registry

PAPER = "sagda"
ALG = {0: "fsgda", 1: "sagda1", 2: "sagda2"}


def _steps(gx: float, gy: float, eta_g: float, K: int) -> dict[str, float]:
    """Local steps for per-round steps γ = η_l η_g K (sagda.md §2 "Effective step")."""
    return {"eta_xl": gx / (eta_g * K), "eta_yl": gy / (eta_g * K), "eta_xg": eta_g, "eta_yg": eta_g,
            "K": K}


def _floor(g, cfg, option, T, R, seed):
    c = with_start(compile_fsgda(g, cfg, R, seed, option), g.z_star())
    tr = simulate(c, g, T, seed, R, record_every=5)
    return plateau(tr.metrics["grad_phi_sq"], tr.metrics["grad_phi_sq"].shape[0] // 3)


def _slope_ci(xs, ests):
    """Log-log slope and a CI combining the per-point replica intervals (delta method)."""
    vals = np.array([e.value for e in ests])
    fit = loglog_slope(np.asarray(xs, float), vals)
    se = np.array([(e.hi - e.lo) / 2 / e.value for e in ests])
    resid = np.log(vals) - (fit.intercept + fit.slope * np.log(np.asarray(xs, float)))
    half = float(math.sqrt(np.sum(se**2)) / math.log(xs[-1] / xs[0]) + np.max(np.abs(resid)))
    return fit.slope, fit.slope - half, fit.slope + half, vals


def p2(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """SAGDA Option II at K = 1 equals FSGDA under shared random streams (m < M, noisy)."""
    pset = {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 5.0}
    g = make_game(pset, seed)
    cfg = {"eta_xl": 0.01, "eta_yl": 0.05, "eta_xg": 2.0, "eta_yg": 2.0, "K": 1, "m": 3}
    T, R = (300, 8) if profile == "quick" else (3000, 32)
    a = simulate(compile_fsgda(g, cfg, R, seed, 0), g, T, seed, R)
    b = simulate(compile_fsgda(g, cfg, R, seed, 2), g, T, seed, R)
    stat = float(np.max(np.abs(a.state[0] - b.state[0])))
    d = np.abs(a.metrics["grad_phi_sq"] - b.metrics["grad_phi_sq"]).max(axis=1)
    tol = 1e-12
    fig = Figure("SAGDA-II vs FSGDA at K = 1: |Δ‖∇Φ‖²| per round", "round", "|difference|",
                 {"max over replicas": (a.iterations.tolist(), np.maximum(d, 1e-18).tolist())})
    return Verdict("sagda.p2", decide_interval(stat, stat, predicted, tol), stat, predicted, tol,
                   {"max_abs_iterate_diff": stat, "rounds": T, "replicas": R}, fig,
                   rerun("sagda2", "minmax-quadratic", pset, cfg, T, R, seed))


def p6(profile: str = "quick", seed: int = 0, part: str = "a", predicted: float = -1.0,
       **_: Any) -> Verdict:
    """Linear speedup: at fixed per-round steps γ and small η_l the noise floor ∝ 1/(mK):
    (a) slope −1 in K (m = M); (b) slope −1 in m (K = 1, σ_G = 0)."""
    T, R = (1200, 32) if profile == "quick" else (5000, 64)
    pset = {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 0.0}
    g = make_game(pset, seed)
    xs = [1, 4, 16] if part == "a" else [2, 5, 10]
    ests = []
    for v in xs:
        K, m = (v, 10) if part == "a" else (1, v)
        ests.append(_floor(g, {**_steps(0.01, 0.5, 20.0, K), "m": m}, 0, T, R, seed))
    slope, lo, hi, vals = _slope_ci(xs, ests)
    tol = 0.15
    lab = "K" if part == "a" else "m"
    fig = Figure(f"FSGDA noise floor vs {lab} (γ_x = 0.01, γ_y = 0.5, η_g = 20)", lab,
                 "stationary E‖∇Φ‖²", {"measured": (xs, vals.tolist()),
                                       "∝ 1/" + lab: (xs, [vals[0] * xs[0] / x for x in xs])},
                 logx=True)
    ev = {lab: xs, "floors": [e.as_dict() for e in ests], "ci": [lo, hi], "rounds": T, "replicas": R}
    cfg = rerun("fsgda", "minmax-quadratic", pset,
                {**_steps(0.01, 0.5, 20.0, xs[-1] if part == "a" else 1),
                 "m": 10 if part == "a" else 2}, T, R, seed)
    return Verdict(f"sagda.p6{part}", decide_interval(lo, hi, predicted, tol), slope, predicted, tol,
                   ev, fig, cfg)


def p7(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """Option I is heterogeneity-free: its trajectory-averaged error does not change with σ_G."""
    T, R = (400, 8) if profile == "quick" else (4000, 16)
    sGs = [0.0, 10.0, 100.0, 1000.0]
    cfg = {**_steps(0.01, 0.5, 2.0, 4), "m": 2}
    o1, fs = [], []
    for sG in sGs:
        g = make_game({"M": 10, "sigma_G": sG}, seed)
        o1.append(float(simulate(compile_fsgda(g, cfg, R, seed, 1), g, T, seed, R)
                        .metrics["grad_phi_sq"][:-1].mean()))
        fs.append(float(simulate(compile_fsgda(g, cfg, R, seed, 0), g, T, seed, R)
                        .metrics["grad_phi_sq"][:-1].mean()))
    stat = float(max(abs(v - o1[0]) for v in o1) / o1[0])
    tol = 1e-6
    fig = Figure("Average ‖∇Φ‖² vs heterogeneity (M = 10, m = 2, σ = 0)", "σ_G", "(1/T) Σ ‖∇Φ(x_t)‖²",
                 {"SAGDA Option I": ([max(s, 1.0) for s in sGs], o1),
                  "FSGDA": ([max(s, 1.0) for s in sGs], fs)}, logx=True)
    ev = {"sigma_G": sGs, "sagda1_avg": o1, "fsgda_avg": fs, "relative_spread_sagda1": stat}
    return Verdict("sagda.p7", decide_interval(stat, stat, predicted, tol), stat, predicted, tol, ev, fig,
                   rerun("sagda1", "minmax-quadratic", {"M": 10, "sigma_G": 1000.0}, cfg, T, R, seed))


def p8(profile: str = "quick", seed: int = 0, part: str = "a", predicted: float | None = None,
       **_: Any) -> Verdict:
    """Theorem 1 Option II with σ = 0: (1/T) Σ E‖∇Φ(x_t)‖² ≤ 2(L_0 − L_*)/(η_x K T), independent of
    σ_G. (a) m = 2 < M = 10, σ_G = 100 (sagda.md §9 #1 says it fails); (b) m = M (holds)."""
    T = 20000
    R = 8 if profile == "quick" else 16
    pset = {"M": 10, "dx": 1, "dy": 1, "a_ratio": 1.0, "sigma_G": 100.0, "x0": 1.0, "y0": 0.0}
    g = make_game(pset, seed)
    m = 2 if part == "a" else 10
    cfg = {"eta_xl": 2e-4, "eta_yl": 1e-2, "eta_xg": 1.0, "eta_yg": 1.0, "K": 1, "m": m}
    tr = simulate(compile_fsgda(g, cfg, R, seed, 2), g, T, seed, R, record_every=1,
                  metrics={"grad_phi_sq": lambda st: g.grad_phi_sq(st[0][:, :1])})
    per_rep = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
    est = mean_ci(per_rep)
    A, B, C, b, c = g.mean_blocks()
    x0, y0 = g.z0[:1], g.z0[1:]
    f0 = float(0.5 * x0 @ A @ x0 + x0 @ B @ y0 - 0.5 * y0 @ C @ y0 + b @ x0 - c @ y0)
    phi_star = float(g.phi(g.z_star()[:1]))
    D0 = float(g.phi(x0)) - f0 / 10 - 0.9 * phi_star  # L_0 − L_*, L_* = (9/10) inf Φ (§2)
    bound = 2 * D0 / (cfg["eta_xl"] * cfg["eta_xg"] * cfg["K"] * T)
    pred = bound if predicted is None else predicted
    v = "diverged" if tr.diverged else ("refuted" if est.lo > pred else
                                         ("confirmed" if est.hi <= pred else "inconclusive"))
    curve = tr.metrics["grad_phi_sq"].mean(axis=1)
    run_avg = np.cumsum(curve[:-1]) / np.arange(1, curve.size)
    k = np.unique(np.geomspace(1, run_avg.size, 200).astype(int)) - 1
    fig = Figure(f"SAGDA Option II, m = {m}, M = 10, σ_G = 100, σ = 0", "round t",
                 "running average of ‖∇Φ(x_t)‖²", {"measured": ((k + 1).tolist(), run_avg[k].tolist())},
                 logx=True, hlines={"Theorem 1-II bound at T": bound})
    ev = {"estimate": est.as_dict(), "bound": bound, "D0": D0, "eta_x": 2e-4, "eta_y": 1e-2, "T": T,
          "m": m, "M": 10, "sigma_xG_sq": g.constants["sigma_xG_sq"], "L_f": g.constants["L_f"],
          "rule": "refuted if the replica CI lies above the bound"}
    return Verdict(f"sagda.p8{part}", v, est.value, pred, "95% CI over replicas", ev, fig,
                   rerun("sagda2", "minmax-quadratic", pset, cfg, T, R, seed))


def p9(profile: str = "quick", seed: int = 0, part: str = "a", predicted: float | None = None,
       **_: Any) -> Verdict:
    """FSGDA heterogeneity (Thm 2): (a) m = M, fixed γ: the σ_G bias ∝ η_l² (slope 2 in η_l, exact
    fixed points); (b) m < M: the sampling floor is linear in σ_G² (exact second moments);
    (c) m < M: at fixed γ the sampling floor does not depend on K (Cor 3: no speedup in K)."""
    if part == "a":
        pset = {"M": 10, "sigma_G": 3.0, "hess_spread": 0.3}  # identical Hessians: no drift bias
        g = make_game(pset, seed)
        K, gx, gy = 4, 0.05, 0.5
        els = np.array([0.01, 0.005, 0.0025, 0.00125])
        G, g0 = grad_phi_affine(g)
        bias = []
        for el in els:
            cfg = _steps(gx, gy, gx / (el * K), K)
            z, rho = fixed_point(round_map(lambda R, cfg=cfg: compile_fsgda(g, cfg, R), g.M), g.d)
            bias.append(float(np.sum((G @ z + g0) ** 2)))
        fit = loglog_slope(els, np.array(bias))
        pred = 2.0 if predicted is None else predicted
        fig = Figure("FSGDA (m = M) fixed-point bias vs η_l at fixed γ", "η_{x,l}", "‖∇Φ(x_fp)‖²",
                     {"exact": (els.tolist(), bias)}, logx=True)
        return Verdict("sagda.p9a", decide_interval(fit.lo, fit.hi, pred, 0.15), fit.slope, pred, 0.15,
                       {"eta_l": els.tolist(), "bias": bias, "fit": fit.as_dict(), "K": K}, fig,
                       rerun("fsgda", "minmax-quadratic", pset, _steps(gx, gy, gx / (els[-1] * K), K),
                             20000, 1, seed))
    M, m, gx, gy = 5, 2, 0.02, 0.2

    def floor(sG: float, K: int) -> float:
        g = make_game({"M": M, "sigma_G": sG}, seed)
        cfg = {**_steps(gx, gy, 50.0, K), "m": m}

        def fS(Z, S, g=g, cfg=cfg):
            return round_map(lambda R: compile_fsgda(g, cfg, R), M, S)(Z)

        mu, P, rho = sampled_moments(fS, g.d, M, m)
        G, g0 = grad_phi_affine(g)
        return quad_expect(G, g0, mu, P)

    if part == "b":
        sGs = np.array([1.0, 2.0, 4.0, 8.0])
        fl = np.array([floor(s, 1) for s in sGs])
        fit = loglog_slope(sGs**2, fl)
        pred = 1.0 if predicted is None else predicted
        fig = Figure("FSGDA (m = 2 < M = 5) exact sampling floor vs σ_G²", "σ_G²", "stationary E‖∇Φ‖²",
                     {"exact": ((sGs**2).tolist(), fl.tolist())}, logx=True)
        return Verdict("sagda.p9b", decide_interval(fit.lo, fit.hi, pred, 0.1), fit.slope, pred, 0.1,
                       {"sigma_G": sGs.tolist(), "floors": fl.tolist(), "fit": fit.as_dict()}, fig,
                       rerun("fsgda", "minmax-quadratic", {"M": M, "sigma_G": 8.0},
                             {**_steps(gx, gy, 50.0, 1), "m": m}, 20000, 64, seed))
    Ks = [1, 2, 4]
    fl = np.array([floor(4.0, K) for K in Ks])
    stat = float(np.max(np.abs(np.log(fl / fl[0]))))
    pred = 0.0 if predicted is None else predicted
    tol = 0.1
    fig = Figure("FSGDA (m = 2 < M = 5) exact sampling floor vs K at fixed γ", "K", "stationary E‖∇Φ‖²",
                 {"exact": (Ks, fl.tolist())}, logx=True)
    return Verdict("sagda.p9c", decide_interval(stat, stat, pred, tol), stat, pred, tol,
                   {"K": Ks, "floors": fl.tolist(), "statistic": "max |log floor(K)/floor(1)|"}, fig,
                   rerun("fsgda", "minmax-quadratic", {"M": M, "sigma_G": 4.0},
                         {**_steps(gx, gy, 50.0, 4), "m": m}, 20000, 64, seed))


def p10(profile: str = "quick", seed: int = 0, predicted: float = -1.0, **_: Any) -> Verdict:
    """Theorem 1-I's statistical term ∝ γ_x/(mK) predicts a 1/K floor at fixed γ (m = 2 < M = 10);
    sagda.md §8 P10 measured it flat (stale noisy control variates)."""
    T, R = (1200, 32) if profile == "quick" else (5000, 64)
    pset = {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 0.0}
    g = make_game(pset, seed)
    Ks = [1, 4, 16]
    ests = [_floor(g, {**_steps(0.01, 0.5, 20.0, K), "m": 2}, 1, T, R, seed) for K in Ks]
    fs = [_floor(g, {**_steps(0.01, 0.5, 20.0, K), "m": 2}, 0, T, R, seed).value for K in Ks]
    slope, lo, hi, vals = _slope_ci(Ks, ests)
    tol = 0.15
    fig = Figure("Noise floor vs K at fixed γ, m = 2 < M = 10", "K", "stationary E‖∇Φ‖²",
                 {"SAGDA Option I": (Ks, vals.tolist()), "FSGDA": (Ks, fs),
                  "∝ 1/K (Thm 1-I)": (Ks, [vals[0] / K for K in Ks])}, logx=True)
    ev = {"K": Ks, "floors_sagda1": [e.as_dict() for e in ests], "floors_fsgda": fs, "ci": [lo, hi]}
    return Verdict("sagda.p10", decide_interval(lo, hi, predicted, tol), slope, predicted, tol, ev, fig,
                   rerun("sagda1", "minmax-quadratic", pset, {**_steps(0.01, 0.5, 20.0, 16), "m": 2},
                         T, R, seed))


def p5(profile: str = "quick", seed: int = 0, predicted: float = -0.5, **_: Any) -> Verdict:
    """Cor 1/2 schedule, m = M, SAGDA Option II: η_x = c_x√(m/(KT)), η_y = c_y√(m/(KT)) with
    c_y/c_x = 25κ² > 20κ², η_l = (mT)^{-1/4}K^{-5/4}; (1/T) Σ E‖∇Φ(x_t)‖² decays at least like
    T^{-1/2}: refuted if the slope CI lies above −1/2 + 0.1 (sagda.md §8 P5: flatter than −0.4)."""
    pset = {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "bxy": 0.5, "a_ratio": 1.0}
    g = make_game(pset, seed)
    k = g.constants["kappa"]
    m, K, cx = g.M, 4, 0.05
    Ts = [1000, 4000, 16000] if profile == "quick" else [1000, 4000, 16000, 64000]
    R = 8 if profile == "quick" else 32

    def sched(T: int) -> dict[str, float]:
        ex, ey = cx * math.sqrt(m / (K * T)), 25 * k**2 * cx * math.sqrt(m / (K * T))
        el = (m * T) ** -0.25 * K**-1.25
        return {"eta_xl": el, "eta_yl": el, "eta_xg": ex / el, "eta_yg": ey / el, "K": K, "m": m}

    per_rep, avgs = [], []
    for T in Ts:
        tr = simulate(compile_fsgda(g, sched(T), R, seed, 2), g, T, seed, R,
                      record_every=max(1, T // 500))
        gp = tr.metrics["grad_phi_sq"][:-1]
        per_rep.append(gp.mean(axis=0))
        avgs.append(float(gp.mean()))
    from fedbounds.verify.fitting import replica_slope
    fit = replica_slope(np.array(Ts, float), np.array(per_rep).T)
    tol = 0.1
    v = "diverged" if not np.all(np.isfinite(avgs)) else decide_at_most(fit.lo, fit.hi,
                                                                        predicted, tol)
    fig = Figure("SAGDA Option II (m = M), Cor 1/2 schedule: average ‖∇Φ‖² vs T", "T",
                 "(1/T) Σ E‖∇Φ(x_t)‖²", {"measured": (Ts, avgs),
                                          "T^{-1/2} (anchored)": (Ts, [avgs[0] * math.sqrt(Ts[0] / t)
                                                                       for t in Ts])}, logx=True)
    ev = {"T": Ts, "avg_grad_phi_sq": avgs, "fit": fit.as_dict(), "kappa": k, "c_y/c_x": 25 * k**2,
          "rule": "upper bound: refuted if the slope CI lies above −1/2 + tol"}
    return Verdict("sagda.p5", v, fit.slope, predicted, tol, ev, fig,
                   rerun("sagda2", "minmax-quadratic", pset, sched(Ts[-1]), Ts[-1], R, seed))


def _c(cid, title, prediction, source, run, theorems, errata=()):
    return Claim(cid, PAPER, title, prediction, source, run, theorems, errata=list(errata))


CLAIMS = [
    _c("sagda.p5", "Rate O(1/√(mKT)) vs T under the Cor 1/2 schedule (m = M)",
       "(1/T) Σ E‖∇Φ(x_t)‖² decays like T^{-1/2}: log-log slope at most −1/2 (flatter than −0.4 refutes)",
       "sagda.md §8 P5; Cor 1 L178, Cor 2 L234", p5, ["sagda.cor1", "sagda.cor2"]),
    _c("sagda.p2", "SAGDA Option II at K = 1 equals FSGDA",
       "identical iterates under shared random streams (the control variates cancel)",
       "sagda.md §8 P2, §4.2 [ours]", p2, []),
    _c("sagda.p6a", "Linear speedup in K (full participation)",
       "at fixed γ_x = η_xK, γ_y and small η_l the noise floor ∝ 1/(mK): slope −1 in K",
       "sagda.md §8 P6; Cor 1/2 L178, L234", lambda **k: p6(part="a", **k),
       ["sagda.cor1", "sagda.cor2"]),
    _c("sagda.p6b", "Linear speedup in m (σ_G = 0)", "floor ∝ 1/m at K = 1: slope −1 in m",
       "sagda.md §8 P6; Cor 1", lambda **k: p6(part="b", **k), ["sagda.cor1"]),
    _c("sagda.p7", "SAGDA Option I is heterogeneity-free",
       "the trajectory-averaged ‖∇Φ‖² of Option I does not change with σ_G (m < M, σ = 0)",
       "sagda.md §8 P7; Table 1 'BGD not needed'", p7, ["sagda.thm1.opt1"]),
    _c("sagda.p8a", "Theorem 1 Option II bound under partial participation (m < M)",
       "with σ = 0, (1/T) Σ E‖∇Φ(x_t)‖² ≤ 2(L_0 − L_*)/(η_xKT) whatever σ_G (printed Thm 1-II)",
       "sagda.md §8 P8, §9 #1; Thm 1 L168", lambda **k: p8(part="a", **k), ["sagda.thm1.opt2"],
       errata=["thm1-opt2-sampling"]),
    _c("sagda.p8b", "Theorem 1 Option II bound under full participation (m = M)",
       "the same bound with m = M", "sagda.md §8 P8 (control)", lambda **k: p8(part="b", **k),
       ["sagda.thm1.opt2"]),
    _c("sagda.p9a", "FSGDA heterogeneity bias ∝ K²η_l² at fixed γ (m = M)",
       "halving η_l (doubling η_g) cuts the σ_G part of the floor 4×: slope 2 in η_l",
       "sagda.md §8 P9(a); Thm 2 ψ_3 L221", lambda **k: p9(part="a", **k), ["sagda.thm2"]),
    _c("sagda.p9b", "FSGDA sampling floor linear in σ_G² (m < M)",
       "the extra floor ∝ γ_x(1 − m/M)σ_{x,G}²/m: slope 1 in σ_G²",
       "sagda.md §8 P9(b); Thm 2 ψ_4 L226", lambda **k: p9(part="b", **k), ["sagda.thm2"],
       errata=["thm2-psi4-factor2"]),
    _c("sagda.p9c", "FSGDA sampling floor independent of K at fixed γ (m < M)",
       "no speedup in K under partial participation (Cor 3)", "sagda.md §8 P9(b); Cor 3 L242",
       lambda **k: p9(part="c", **k), ["sagda.thm2", "sagda.cor3"]),
    _c("sagda.p10", "SAGDA Option I floor ∝ 1/K under partial participation",
       "Thm 1-I statistical term ∝ γ_x/(mK): slope −1 in K at fixed γ, m = 2 < M = 10",
       "sagda.md §8 P10, §9 #3; Thm 1 L154", p10, ["sagda.thm1.opt1"],
       errata=["thm1-opt1-a2-replaced", "lemma7-noise"]),
]


# -- bound validity (Theorem 2, Theorem 1 Option I) and the remaining §8 predictions -------------
# Added for issue #5: sagda.p9d (digest §8 P9 "check the measured floor against bound_F and
# bound_F_derived"), sagda.p16 (ours: Theorem 1 Option I), sagda.p1, p3, p4, p11, p12, p15.
# Every theorem formula comes from fedbounds.theorems.sagda via fedbounds.registry / engine.


def _fz(g, z: np.ndarray) -> float:
    """f(x, y) = (1/M) Σ f_i(x, y) of the game (σ-free, λ = 0) at one point z = (x, y)."""
    A, B, C, b, c = g.mean_blocks()
    x, y = z[: g.dx], z[g.dx:]
    return float(0.5 * x @ A @ x + x @ B @ y - 0.5 * y @ C @ y + b @ x - c @ y)


def _lyap_gap(g) -> float:
    """D_0 = 𝓛_0 − 𝓛_* exactly: 𝓛(z) = Φ(x) − f(z)/10 = (9/10)Φ(x) + (Φ(x) − f(z))/10 ≥ (9/10)Φ(x*),
    with equality at the saddle z*, so 𝓛_* = inf 𝓛 = (9/10)Φ(x*) ≤ E𝓛_T (sagda.md §2)."""
    x0 = g.z0[: g.dx]
    return float(g.phi(x0)) - _fz(g, g.z0) / 10 - 0.9 * float(g.phi(g.z_star()[: g.dx]))


def _thm_inputs(g, K: int, m: int) -> dict[str, Fraction]:
    """Problem inputs of Theorems 1–2, exact from the game (see `_INPUTS_NOTE`)."""
    k = g.constants
    return {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "K": Fraction(K),
            "M": Fraction(g.M), "m": Fraction(m), "sigma_x": Fraction(g.sigma_x),
            "sigma_y": Fraction(g.sigma_y), "sigma_xG": Fraction(math.sqrt(k["sigma_xG_sq"])),
            "sigma_yG": Fraction(math.sqrt(k["sigma_yG_sq"])), "D_0": Fraction(_lyap_gap(g))}


_INPUTS_NOTE = ("L_f = max_i ‖H_i‖₂ (joint Hessian of f_i, Assumption 1), μ = λ_min(C) (strong "
                "concavity ⇒ PL, Assumption 2); σ_x, σ_y exact (additive Gaussian noise with "
                "E‖ξ_x‖² = σ_x², E‖ξ_y‖² = σ_y², Assumption 3); σ_{x,G}² = (1/M)Σ‖b_i − b̄‖², "
                "σ_{y,G}² = (1/M)Σ‖c_i − c̄‖² — the exact (1/M)Σ_i‖∇_x f_i − ∇_x f‖² since the "
                "Hessians are identical (Assumption 4 read as the client average, digest §3); "
                "D_0 = 𝓛_0 − 𝓛_* with 𝓛 = Φ − f/10 at z_0 and 𝓛_* = inf 𝓛 = (9/10)Φ(x*) "
                "(closed-form Φ), the smallest valid 𝓛_* (digest §2, §9 item 10)")
_STEP_RULE = ("η_{x,l} = η_{y,l} = η_l fixed (small, so the local-drift terms are minor); "
              "η_{y,g} = ½·engine.max_step(thm, 'eta_yg') at a small start η_{x,g} (first of "
              "1, 10⁻², 10⁻⁴, 10⁻⁶ that is feasible) — ½ of the cap maximises the admissible η_x "
              "in the y-descent condition (γ_y/20 − cγ_y² ≥ κ²γ_x peaks at half the root); then "
              "η_{x,g} = engine.max_step(thm, 'eta_xg') at that η_{y,g} (binding condition listed)")


def _max_steps(thm, base: dict[str, Fraction], eta_l: float
               ) -> tuple[dict[str, float], dict[str, Any]]:
    """Step sizes from engine.max_step (rule `_STEP_RULE`); ``base`` holds L_f, μ, K, M, m."""
    base = {n: v for n, v in base.items() if n in thm.condition_inputs()}
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


def _bound(thm, inputs: dict[str, Fraction], steps: dict[str, float], T: int):
    vals = {**inputs, **{n: Fraction(v) for n, v in steps.items()}, "T": Fraction(T)}
    return engine.bound(thm, {n: v for n, v in vals.items() if n in thm.inputs()})


def _observe(g, cfg: dict[str, Any], option: int, T: int, R: int, seed: int):
    """(1/T) Σ_{t<T} ‖∇Φ(x_t)‖² per replica (every round recorded), its mean, SE and the trace."""
    tr = simulate(compile_fsgda(g, cfg, R, seed, option), g, T, seed, R, record_every=1)
    per = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
    return float(per.mean()), float(per.std(ddof=1) / math.sqrt(per.size)), tr


def _bound_claim(cid: str, runs: list[dict[str, Any]], option: int, theorems: tuple[str, str],
                 profile: str, seed: int, bound_scale: float, title: str, extra: dict) -> Verdict:
    """Run each configuration at its max-step steps; evaluate printed and corrected bounds."""
    T, R = (3000, 8) if profile == "quick" else (20000, 32)
    rows: list[dict[str, Any]] = []
    worst, worst_lo = 0.0, -math.inf
    series: dict[str, tuple[list[float], list[float]]] = {}
    hl: dict[str, float] = {}
    last = None
    for run in runs:
        g = make_game(run["set"], seed)
        thm_steps = registry.get(run["steps_from"])
        inputs = _thm_inputs(g, run["K"], run["m"])
        steps, binding = _max_steps(thm_steps, inputs, run["eta_l"] / (run["K"] * g.constants["L_f"]))
        cfg = {**steps, "K": run["K"], "m": run["m"]}
        obs, se, tr = _observe(g, cfg, option, T, R, seed)
        bds = {tid: _bound(registry.get(tid), inputs, steps, T) for tid in theorems}
        row: dict[str, Any] = {"name": run["name"], "steps_from": run["steps_from"],
                               "set": run["set"], "K": run["K"], "m": run["m"], "M": g.M,
                               "steps": steps, "gamma_x": steps["eta_xl"] * steps["eta_xg"] * run["K"],
                               "gamma_y": steps["eta_yl"] * steps["eta_yg"] * run["K"],
                               "binding": binding, "observed": obs, "observed_se": se,
                               "inputs": {n: float(v) for n, v in inputs.items()},
                               "diverged": tr.diverged}
        for tid, bd in bds.items():
            ratio, lo = obs / bd.value, (obs - 3 * se) / bd.value
            row[tid] = {"bound": bd.value, "terms": bd.terms, "ratio": ratio, "lower_ratio": lo,
                        "conditions_hold": bd.feasible, "violated": bd.violated}
            if bd.feasible:  # a statement is tested only where its conditions hold
                worst, worst_lo = max(worst, ratio), max(worst_lo, lo)
        p, c = (bds[t] for t in theorems)
        row["printed_vs_corrected"] = {
            "terms_that_differ": {n: {"printed": p.terms[n], "corrected": c.terms[n]}
                                  for n in p.terms if not math.isclose(p.terms[n], c.terms[n],
                                                                       rel_tol=1e-12)},
            "corrected_minus_printed": c.value - p.value, "corrected/printed": c.value / p.value,
            "observed_fraction_of_printed": obs / p.value}
        rows.append(row)
        gp = tr.metrics["grad_phi_sq"].mean(axis=1)
        run_avg = np.cumsum(gp[:-1]) / np.arange(1, gp.size)
        k = np.unique(np.geomspace(1, run_avg.size, 150).astype(int)) - 1
        series[f"{run['name']}: running average"] = ((k + 1).tolist(), run_avg[k].tolist())
        for tid, bd in bds.items():
            hl[f"{run['name']}: {tid} at T"] = bd.value
        last = (run, cfg)
    ev = {"runs": rows, "rounds": T, "replicas": R, "inputs_note": _INPUTS_NOTE,
          "step_rule": _STEP_RULE, "max_ratio": worst, "max_lower_ratio": worst_lo,
          "bound_scale": bound_scale,
          "rule": "violated only if (mean − 3 SE)/bound > bound_scale for some run and theorem "
                  "(as fedsgda.p3); statistic = max observed/bound", **extra}
    fig = Figure(title, "round t", "running average of E‖∇Φ(x_t)‖²", series, logx=True, hlines=hl)
    if any(r["diverged"] for r in rows):
        v = "diverged"
    elif not all(r[t]["conditions_hold"] for r in rows for t in theorems
                 if r["steps_from"] == t):
        v = "inconclusive"
        ev["reason"] = "a theorem's conditions fail at its own max-step step sizes"
    else:
        v = decide_upper(worst_lo, bound_scale)
    run, cfg = last
    return Verdict(cid, v, worst, f"observed/bound ≤ {bound_scale:g}", "mean − 3 SE", ev, fig,
                   rerun(ALG[option], "minmax-quadratic", run["set"], cfg, T, R, seed))


P9D_RUNS = [
    {"name": "deterministic, m = M", "set": {"M": 10, "sigma_G": 0.0}, "K": 2, "m": 10,
     "eta_l": 1e-4, "steps_from": "sagda.thm2"},
    {"name": "σ = 1, σ_G = 3, m = 2 < M", "set": {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0,
                                                  "sigma_G": 3.0},
     "K": 2, "m": 2, "eta_l": 1e-4, "steps_from": "sagda.thm2"},
]


def p9d(profile: str = "quick", seed: int = 0, bound_scale: float = 1.0, **_: Any) -> Verdict:
    """Theorem 2 (FSGDA) bound validity, printed (L_f/100, ψ4) and corrected (L_f/10, 2ψ4), at the
    step sizes engine.max_step allows; the errata do not change the conditions, so one run per
    configuration serves both statements (sagda.md §8 P9 last sentence)."""
    return _bound_claim("sagda.p9d", P9D_RUNS, 0, ("sagda.thm2", "sagda.thm2.corrected"), profile,
                        seed, bound_scale, "FSGDA at max-step steps vs Theorem 2 (printed, corrected)",
                        {"errata_shown": {
                            "thm2-lf100": "term 'statistical (x)': 2η_x/m (L + L_f/100)σ_x² printed "
                                          "vs (L + L_f/10) corrected",
                            "thm2-psi4-factor2": "term 'sampling variance psi_4': corrected = 2 × "
                                                 "printed (zero at m = M)"}})


P16_RUNS = [
    {"name": "printed steps, M/m = 2", "set": {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0,
                                               "sigma_G": 1.0},
     "K": 2, "m": 2, "eta_l": 1e-4, "steps_from": "sagda.thm1.opt1"},
    {"name": "corrected steps, M/m = 2", "set": {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0,
                                                 "sigma_G": 1.0},
     "K": 2, "m": 2, "eta_l": 1e-4, "steps_from": "sagda.thm1.opt1.corrected"},
]


def p16(profile: str = "quick", seed: int = 0, bound_scale: float = 1.0, **_: Any) -> Verdict:
    """Ours: Theorem 1 Option I bound validity, printed (a_2 replaced by ½(L + L_f/10) + 2) and
    corrected (a_2 kept, Lemma 5 fixed), each at its own max-step steps (the corrected conditions
    are stricter for M/m > (1 + √3)/2, so the printed steps may violate them), M/m = 2."""
    return _bound_claim("sagda.p16", P16_RUNS, 1, ("sagda.thm1.opt1", "sagda.thm1.opt1.corrected"),
                        profile, seed, bound_scale,
                        "SAGDA Option I at max-step steps vs Theorem 1-I (printed, corrected)",
                        {"errata_shown": {
                            "thm1-opt1-a2-replaced": "term 'statistical': [(L + L_f/10) + 4]·9/(mη_x)(·) "
                                                     "printed vs 2a_2·9/(mη_x)(·) corrected; ψ1 "
                                                     "with ½(L + L_f/10) + 2 vs a_2",
                            "lemma5-coefficient": "corrected a_2 = ½(L + L_f/10) + (M/m)(2M/m − 2 + "
                                                  "m/M) also in conditions (11)–(13): smaller "
                                                  "admissible steps (compare the two runs' γ)"},
                         "note": "the printed steps are outside the corrected conditions when "
                                 "'conditions_hold' of sagda.thm1.opt1.corrected is False in "
                                 "the first run; the verdict requires each theorem's conditions "
                                 "only at its own steps"})


def p1(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """One round of FSGDA / SAGDA-I / SAGDA-II (m < M, σ = 0, K = 3) from a random z_t: the server
    move equals −η_{x,l}η_{x,g}K·(average local direction) in x (and + for y), the direction
    computed independently from ∇f_i(z) = H_i z + h_i (sagda.md §2 "Effective step", L512–L513)."""
    pset = {"M": 6, "sigma_G": 2.0}
    g = make_game(pset, seed)
    cfg = {"eta_xl": 0.03, "eta_yl": 0.05, "eta_xg": 1.7, "eta_yg": 2.3, "K": 3, "m": 4}
    rng = np.random.default_rng([seed, 1])
    Z = rng.standard_normal((5, g.d))
    S = np.array([0, 2, 3, 5])
    dx, K = g.dx, cfg["K"]
    sl = np.concatenate([np.full(dx, cfg["eta_xl"]), np.full(g.dy, -cfg["eta_yl"])])
    rows, worst = [], 0.0
    for option in (0, 1, 2):
        err_opt = 0.0
        out = round_map(lambda R, o=option: compile_fsgda(g, cfg, R, seed, o), g.M, S)(Z.copy())
        for r, z in enumerate(Z):
            grad = [g.H[i] @ z + g.h[i] for i in range(g.M)]
            if option == 1:  # control variates of all M clients at z_0 = z_t (Γ_0 = 0)
                vbar, v = np.mean(grad, 0), grad
            elif option == 2:
                vbar, v = np.mean([grad[i] for i in S], 0), grad
            dirs = []
            for i in S:
                zi = z.copy()
                for _k in range(K):
                    d = g.H[i] @ zi + g.h[i] + ((vbar - v[i]) if option else 0.0)
                    dirs.append(d)
                    zi = zi - sl * d
            D = np.mean(dirs, 0)
            pred_x = -cfg["eta_xl"] * cfg["eta_xg"] * K * D[:dx]
            pred_y = cfg["eta_yl"] * cfg["eta_yg"] * K * D[dx:]
            move = out[r] - z
            err = float(np.max(np.abs(move - np.concatenate([pred_x, pred_y])))
                        / max(1.0, float(np.max(np.abs(move)))))
            err_opt = max(err_opt, err)
        worst = max(worst, err_opt)
        rows.append({"algorithm": ALG[option], "max_rel_error": err_opt})
    tol = 1e-10
    fig = Figure("Effective-step identity: max relative error per algorithm", "option (0 = FSGDA)",
                 "max |Δz − (∓η_lη_gK·avg direction)|", {
                     "error": ([0, 1, 2], [max(r["max_rel_error"], 1e-18) for r in rows])},
                 kind="scatter")
    ev = {"per_algorithm": rows, "config": cfg, "S_t": S.tolist(), "points": int(Z.shape[0]),
          "identity": "x_{t+1} − x_t = −η_{x,l}η_{x,g}K·(1/(mK))Σ_{i∈S}Σ_k d_i^k (no extra K in η_x)"}
    return Verdict("sagda.p1", decide_interval(worst, worst, predicted, tol), worst, predicted, tol,
                   ev, fig, rerun("sagda1", "minmax-quadratic", pset, cfg, 1, 1, seed))


P3_GAMES = [("default", {}), ("scalar a=b=μ=1", {"dx": 1, "dy": 1, "a_ratio": 1.0}),
            ("strong coupling", {"bxy": 3.0, "c_ratio": 4.0}),
            ("indefinite A", {"a_ratio": -1.0, "bxy": 2.0}), ("weak coupling", {"bxy": 0.2, "mu": 2.0}),
            ("dx=4, dy=3", {"dx": 4, "dy": 3, "bxy": 1.5})]


def p3(profile: str = "quick", seed: int = 0, scale: float = 1.0, **_: Any) -> Verdict:
    """Constants of Φ on quadratic games: ‖∇²Φ‖ ≤ L = L_f + L_f²/μ (L85/L88) and the PL error bound
    ‖∇Φ(x) − ∇_x f(x, y)‖² ≤ (L_f²/μ²)‖∇_y f(x, y)‖² (Lemma 2, L556–L560) at random (x, y).
    Statistic: the largest lhs/rhs over games and points; predicted ≤ scale (= 1)."""
    n = 2000 if profile == "quick" else 20000
    rows, worst = [], 0.0
    for name, q in P3_GAMES:
        g = make_game(q, seed)
        k = g.constants
        A, B, C, b, c = g.mean_blocks()
        hess = float(np.linalg.norm(A + B @ np.linalg.solve(C, B.T), 2))
        r_h = hess / k["L"]
        rng = np.random.default_rng([seed, 3])
        X = 3 * rng.standard_normal((n, g.dx))
        Y = 3 * rng.standard_normal((n, g.dy))
        gx = X @ A + Y @ B.T + b
        gy = X @ B - Y @ C - c
        lhs = np.sum((g.grad_phi(X) - gx) ** 2, axis=1)
        rhs = k["kappa"] ** 2 * np.sum(gy**2, axis=1)
        r_e = float(np.max(lhs / rhs))
        worst = max(worst, r_h, r_e)
        rows.append({"game": name, "set": q, "L_f": k["L_f"], "mu": k["mu"], "L": k["L"],
                     "hess_phi_norm": hess, "hess_ratio": r_h, "error_bound_max_ratio": r_e})
    v = decide_upper(worst, scale)
    fig = Figure("Constants of Φ: measured / theoretical", "game", "ratio (≤ 1 predicted)", {
        "‖∇²Φ‖ / L": (list(range(len(rows))), [r["hess_ratio"] for r in rows]),
        "max error-bound ratio": (list(range(len(rows))), [r["error_bound_max_ratio"] for r in rows])},
        logy=False, hlines={"prediction": scale}, kind="scatter")
    ev = {"games": rows, "points_per_game": n,
          "rule": "confirmed if every ratio ≤ scale (exact linear algebra; sampled points for the "
                  "error bound)"}
    return Verdict("sagda.p3", v, worst, f"≤ {scale:g}", "exact", ev, fig,
                   rerun("fsgda", "minmax-quadratic", P3_GAMES[2][1], {}, 10, 1, seed))


def _abstract(Lf: float, mu_: float, K: int, M: int, m: int) -> dict[str, Fraction]:
    return {"L_f": Fraction(Lf), "mu": Fraction(mu_), "K": Fraction(K), "M": Fraction(M),
            "m": Fraction(m)}


P12_CASES = [(1.5, 1.0, 1, 10, 5), (1.5, 1.0, 4, 10, 5), (2.0, 0.5, 2, 10, 10), (10.0, 1.0, 2, 4, 2)]
P12_THMS = ["sagda.thm2", "sagda.thm1.opt1", "sagda.thm1.opt1.corrected", "sagda.thm1.opt2"]


def p12(profile: str = "quick", seed: int = 0, predicted: float = 1.0, **_: Any) -> Verdict:
    """Two-time-scale requirement: for every theorem the conditions force η_y/η_x > 20L_f²/μ².
    With η_y fixed small (γ_y = 10⁻⁴, η_l = 10⁻⁶) engine.max_step gives the largest η_x; the
    statistic is min over theorems and cases of (η_y/η_x at that max)/(20κ²): predicted ≥ 1
    (and → 1 as the steps shrink). Empirical side (sufficiency only): FSGDA with η_y = η_x
    converges on the quadratic game (evidence, not part of the verdict)."""
    rows, worst = [], math.inf
    for Lf, mu_, K, M, m in P12_CASES:
        for tid in P12_THMS:
            thm = registry.get(tid)
            el = 1e-6
            base = {**_abstract(Lf, mu_, K, M, m), "eta_xl": Fraction(el), "eta_yl": Fraction(el)}
            base = {n: v for n, v in base.items() if n in thm.condition_inputs()}
            eyg = 1e-4 / (K * el)
            ms = engine.max_step(thm, "eta_xg", {**base, "eta_yg": Fraction(eyg)})
            if ms.value is None:
                rows.append({"theorem": tid, "case": [Lf, mu_, K, M, m], "feasible": False})
                continue
            ratio = (eyg / ms.value) / (20 * (Lf / mu_) ** 2)
            worst = min(worst, ratio)
            rows.append({"theorem": tid, "case": {"L_f": Lf, "mu": mu_, "K": K, "M": M, "m": m},
                         "max_eta_xg": ms.value, "binding": ms.binding,
                         "eta_y/eta_x_over_20kappa2": ratio})
    g = make_game({"M": 10}, seed)
    cfg = {"eta_xl": 0.05, "eta_yl": 0.05, "eta_xg": 1.0, "eta_yg": 1.0, "K": 2, "m": 10}
    T = 2000
    tr = simulate(compile_fsgda(g, cfg, 1, seed, 0), g, T, seed, 1, record_every=10)
    gp = tr.metrics["grad_phi_sq"][:, 0]
    v = "refuted" if worst < predicted * (1 - 1e-9) else "confirmed"
    fig = Figure("Two-time-scale: (η_y/η_x at the largest admissible η_x)/(20κ²)", "case",
                 "ratio (≥ 1 predicted)", {tid: (list(range(len(P12_CASES))),
                                                 [r["eta_y/eta_x_over_20kappa2"] for r in rows
                                                  if r["theorem"] == tid and "max_eta_xg" in r])
                                           for tid in P12_THMS},
                 logy=False, hlines={"20κ²": 1.0}, kind="scatter")
    ev = {"cases": rows, "empirical_equal_steps": {
        "config": cfg, "rounds": T, "grad_phi_sq_start": float(gp[0]), "grad_phi_sq_end": float(gp[-1]),
        "note": "η_y/η_x = 1 ≪ 20κ² = 45 still converges here: the conditions are sufficient, not "
                "necessary — not a refutation (digest §8 P12)"},
          "rule": "refuted if some theorem admits η_y/η_x < predicted·20κ²"}
    return Verdict("sagda.p12", v, worst, f"≥ {predicted:g}", "exact (max-step bisection)", ev, fig,
                   rerun("fsgda", "minmax-quadratic", {"M": 10}, cfg, T, 1, seed))


P15_THMS = ["sagda.thm1.opt1", "sagda.thm1.opt1.corrected", "sagda.thm1.opt2", "sagda.thm2",
            "sagda.thm2.corrected"]


def p15(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """Feasibility sanity: for (L_f, μ) = (√2, 1) (the P8 scalar game), K = 2, M = 10 and
    m ∈ {10, 2}, every theorem's conditions admit step sizes (max-step rule of p9d); report the
    resulting γ_x = η_xK, γ_y = η_yK and the bound at T = 10⁴ with D_0 = σ = σ_G = 1. Statistic:
    number of (theorem, m) with an empty region; predicted 0 (digest §8 P15: e.g. Option I at
    M/m = 5 has η_yK ≲ 10⁻⁴)."""
    rows, empty = [], 0
    unit = {n: Fraction(1) for n in ("D_0", "sigma_x", "sigma_y", "sigma_xG", "sigma_yG")}
    for m in (10, 2):
        base = _abstract(math.sqrt(2), 1.0, 2, 10, m)
        for tid in P15_THMS:
            thm = registry.get(tid)
            try:
                steps, binding = _max_steps(thm, base, 1e-4 / (2 * math.sqrt(2)))
            except ValueError as e:
                empty += 1
                rows.append({"theorem": tid, "m": m, "feasible": False, "why": str(e)})
                continue
            bd = _bound(thm, {**base, **unit}, steps, 10**4)
            rows.append({"theorem": tid, "m": m, "M/m": 10 / m, "feasible": bd.feasible,
                         "gamma_x": steps["eta_xl"] * steps["eta_xg"] * 2,
                         "gamma_y": steps["eta_yl"] * steps["eta_yg"] * 2,
                         "gamma_y_cap": steps["eta_yl"] * binding["eta_yg_cap"] * 2,
                         "binding": binding, "bound_T1e4": bd.value, "terms": bd.terms})
            empty += 0 if bd.feasible else 1
    stat = float(empty)
    fig = Figure("Largest admissible γ_y = η_yK (cap) by theorem and M/m", "M/m", "γ_y cap",
                 {tid: ([r["M/m"] for r in rows if r["theorem"] == tid and "M/m" in r],
                        [r["gamma_y_cap"] for r in rows if r["theorem"] == tid and "M/m" in r])
                  for tid in P15_THMS}, logx=True, kind="scatter")
    op1 = next(r for r in rows if r["theorem"] == "sagda.thm1.opt1" and r["m"] == 2)
    ev = {"cases": rows, "option1_Mm5_gamma_y_cap": op1.get("gamma_y_cap"),
          "rule": "confirmed if no (theorem, m) has an empty feasible region"}
    return Verdict("sagda.p15", decide_interval(stat, stat, predicted, 0.5), stat, predicted, 0.5,
                   ev, fig, {})


def p11(profile: str = "quick", seed: int = 0, predicted: float = -2.0, **_: Any) -> Verdict:
    """Theorem 1 Option I's dependence on M/m: a_2 ∼ (M/m)² in conditions (11)–(13), so the largest
    admissible γ_y = η_yK (engine.max_step on sagda.thm1.opt1, η_x → 0) falls like (M/m)^{-2}:
    log-log slope −2 over M/m ∈ {10, 20, 50, 100}. Evidence: printed vs corrected statistical term at
    common steps for M/m ∈ {1, 1.5, 2, 5, 10} (printed has no M/m)."""
    thm, thc = registry.get("sagda.thm1.opt1"), registry.get("sagda.thm1.opt1.corrected")
    el, K, m = 1e-6, 2, 2
    caps = []
    Ms = [20, 40, 100, 200]
    for M in Ms:  # η_x = 10⁻¹² ≪ γ_y/(20κ²K): the cap of η_y in the limit η_x → 0
        loc = {"eta_xl": Fraction(el), "eta_yl": Fraction(el), "eta_xg": Fraction(1, 10**6)}
        ms = engine.max_step(thm, "eta_yg", {**_abstract(1.5, 1.0, K, M, m), **loc})
        caps.append(ms.value * el * K)
    r = np.array(Ms, float) / m
    fit = loglog_slope(r, np.array(caps))
    unit = {n: Fraction(1) for n in ("D_0", "sigma_x", "sigma_y")}
    comp = []
    # common steps: the corrected max-step steps at M/m = 10 satisfy both statements for every
    # M/m ≤ 10 (a_2 grows with M/m and the conditions tighten monotonically in a_2)
    steps, _b = _max_steps(thc, _abstract(1.5, 1.0, K, 20, m), el)
    for M in (2, 3, 4, 10, 20):
        base = _abstract(1.5, 1.0, K, M, m)
        bp, bc = _bound(thm, {**base, **unit}, steps, 10**4), _bound(thc, {**base, **unit}, steps, 10**4)
        comp.append({"M/m": M / m, "gamma_x": steps["eta_xl"] * steps["eta_xg"] * K,
                     "statistical_printed": bp.terms["statistical"],
                     "statistical_corrected": bc.terms["statistical"],
                     "corrected/printed": bc.terms["statistical"] / bp.terms["statistical"],
                     "printed_conditions_hold": bp.feasible, "corrected_conditions_hold": bc.feasible})
    tol = 0.1
    fig = Figure("Theorem 1-I: largest admissible γ_y vs M/m", "M/m", "γ_y cap",
                 {"max-step (printed conditions)": (r.tolist(), caps),
                  "∝ (M/m)^-2": (r.tolist(), [caps[0] * (r[0] / x) ** 2 for x in r])}, logx=True)
    ev = {"M/m": r.tolist(), "gamma_y_cap": caps, "fit": fit.as_dict(), "printed_vs_corrected": comp,
          "note": "the corrected statistical factor 2a_2 = (L + L_f/10) + 2(M/m)(2M/m − 2 + m/M) "
                  "exceeds the printed (L + L_f/10) + 4 once M/m > (1 + √3)/2 ≈ 1.37 (Lemma 5 fixed); "
                  "with the printed Lemma 5 the crossing is at (1 + √5)/2 ≈ 1.62 (digest §9 item 2)"}
    return Verdict("sagda.p11", decide_interval(fit.lo, fit.hi, predicted, tol), fit.slope, predicted,
                   tol, ev, fig, {})


def p4(profile: str = "quick", seed: int = 0, scale: float = 1.0, **_: Any) -> Verdict:
    """Lemma-level Monte Carlo at a fixed z_t (FSGDA, M = 6, m = 3, K = 4, σ = 1, σ_G = 2, local
    steps at 0.9× the limit of condition (7)): Lemma 4 per-client drift for every j ≤ K + 1
    (L603), the client-sampling second moment E‖u_x‖² ≤ 2‖∇_x f‖² + 2(1 − m/M)σ_{x,G}²/m (L640,
    exact over all C(M, m) subsets) and Lemma 1 E‖u_x − e_x‖² ≤ 4E‖ē_x‖² + 4E‖u_x‖² + 2σ_x²/(mK)
    (L526–L536), x and y. Statistic: largest lhs/rhs; violated only if (mean − 3 SE)/rhs > scale."""
    from itertools import combinations

    from fedbounds.verify.minmax_common import noisy_grad

    R = 4000 if profile == "quick" else 40000
    pset = {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 2.0}
    g = make_game(pset, seed)
    k = g.constants
    M, m, K, dx = g.M, 3, 4, g.dx
    eta = 0.9 / math.sqrt(8 * K * (K - 1) * (2 * K - 1) * k["L_f"] ** 2)
    s = np.concatenate([np.full(dx, eta), np.full(g.dy, -eta)])
    rng = np.random.default_rng([seed, 4])
    zt = rng.standard_normal(g.d)
    grad_t = np.einsum("mij,j->mi", g.H, zt) + g.h  # ∇f_i(z_t), (M, d)
    z = np.broadcast_to(zt, (R, M, g.d)).copy()
    zbar = np.broadcast_to(zt, (M, g.d)).copy()  # noise-free local trajectories
    traj, sg, gbar = [z.copy()], [], []
    for _j in range(K):
        gr = noisy_grad(g, np.einsum("mij,rmj->rmi", g.H, z) + g.h, rng.standard_normal(z.shape))
        gb = np.einsum("mij,mj->mi", g.H, zbar) + g.h
        sg.append(gr)
        gbar.append(gb)
        z = z - s * gr
        zbar = zbar - s * gb
        traj.append(z.copy())
    checks = []
    sx2, sy2 = g.sigma_x**2, g.sigma_y**2
    for i in range(M):
        rhs = (20 * K**2 * eta**2 * (grad_t[i, :dx] @ grad_t[i, :dx] + grad_t[i, dx:] @ grad_t[i, dx:])
               + 5 * K * eta**2 * (sx2 + sy2))
        for j, zj in enumerate(traj):
            d2 = np.sum((zj[:, i] - zt) ** 2, axis=1)
            checks.append({"check": "Lemma 4 drift", "client": i, "j": j + 1, "lhs": float(d2.mean()),
                           "se": float(d2.std(ddof=1) / math.sqrt(R)), "rhs": float(rhs)})
    gf = grad_t.mean(0)
    subsets = [np.array(S) for S in combinations(range(M), m)]
    for blk, sl, sG2 in (("x", slice(0, dx), k["sigma_xG_sq"]), ("y", slice(dx, g.d), k["sigma_yG_sq"])):
        u2 = float(np.mean([np.sum(grad_t[S, sl].mean(0) ** 2) for S in subsets]))
        rhs = 2 * float(gf[sl] @ gf[sl]) + 2 * (1 - m / M) * sG2 / m
        checks.append({"check": f"sampling E‖u_{blk}‖²", "lhs": u2, "se": 0.0, "rhs": rhs,
                       "exact": "all C(M, m) subsets"})
        idx = sampled(rng.random((R, M)), m)
        sgs = np.stack(sg, 1)  # (R, K, M, d)
        pick = np.take_along_axis(sgs, idx[:, None, :, None], axis=2)
        dirn = pick[..., sl].mean(axis=(1, 2))
        lhs = np.sum(dirn**2, axis=1)
        ebar = (grad_t[None, None] - np.stack(gbar)[None])  # (1, K, M, d)
        eb = np.take_along_axis(np.broadcast_to(ebar, (R, K, M, g.d)), idx[:, None, :, None],
                                axis=2)[..., sl].mean(axis=(1, 2))
        u = grad_t[idx][..., sl].mean(1)
        sig2 = sx2 if blk == "x" else sy2
        rhs1 = 4 * np.sum(eb**2, 1).mean() + 4 * np.sum(u**2, 1).mean() + 2 * sig2 / (m * K)
        checks.append({"check": f"Lemma 1 E‖u_{blk} − e_{blk}‖²", "lhs": float(lhs.mean()),
                       "se": float(lhs.std(ddof=1) / math.sqrt(R)), "rhs": float(rhs1)})
    for c in checks:
        c["ratio"] = c["lhs"] / c["rhs"]
        c["lower_ratio"] = (c["lhs"] - 3 * c["se"]) / c["rhs"]
    stat = max(c["ratio"] for c in checks)
    lo = max(c["lower_ratio"] for c in checks)
    names = sorted({c["check"] for c in checks})
    fig = Figure("Lemma-level checks at a fixed z_t: lhs / rhs", "check", "lhs/rhs (≤ 1 predicted)",
                 {n: (list(range(sum(c["check"] == n for c in checks))),
                      [c["ratio"] for c in checks if c["check"] == n]) for n in names},
                 hlines={"prediction": scale}, kind="scatter")
    ev = {"checks": checks, "eta_l": eta, "K": K, "m": m, "M": M, "replicas": R, "z_t": zt.tolist(),
          "max_lower_ratio": lo, "rule": "violated only if (mean − 3 SE)/rhs > scale",
          "note": "Lemma 6/7/9/11 (Option I/II) not checked here; P8 and P10 measure their "
                  "consequences"}
    return Verdict("sagda.p4", decide_upper(lo, scale), stat, f"≤ {scale:g}", "mean − 3 SE", ev, fig,
                   rerun("fsgda", "minmax-quadratic", pset, {"eta_xl": eta, "eta_yl": eta, "K": K,
                                                             "m": m}, 1, R, seed))


_NEW = [
    _c("sagda.p9d", "Theorem 2 bound holds for FSGDA at max-step steps (printed and corrected)",
       "with η from engine.max_step on sagda.thm2 and exact L_f, μ, σ, σ_G, 𝓛_0 − 𝓛_*, the measured "
       "(1/T) Σ E‖∇Φ(x_t)‖² is at most the Theorem 2 bound, printed (L_f/100, ψ4) and corrected "
       "(L_f/10, 2ψ4): observed/bound ≤ 1",
       "sagda.md §8 P9 (check against bound_F and bound_F_derived); Thm 2 L211–L226", p9d,
       ["sagda.thm2", "sagda.thm2.corrected"], errata=["thm2-lf100", "thm2-psi4-factor2"]),
    Claim("sagda.p16", PAPER, "Theorem 1 Option I bound holds at max-step steps (printed and corrected)",
       "ours: with η from engine.max_step on sagda.thm1.opt1 (resp. .corrected), M/m = 2 and exact "
       "constants, the measured (1/T) Σ E‖∇Φ(x_t)‖² of SAGDA Option I is at most the Theorem 1-I "
       "bound: observed/bound ≤ 1",
       "ours; Thm 1 L141–L158, sagda.md §9 items 2, 4", p16,
       ["sagda.thm1.opt1", "sagda.thm1.opt1.corrected"], own=True,
       errata=["thm1-opt1-a2-replaced", "lemma5-coefficient"]),
    _c("sagda.p1", "Effective-rate identity η_x = η_{x,l}η_{x,g} (no K)",
       "one round moves x by −η_{x,l}η_{x,g}K × (average local direction), y by +η_{y,l}η_{y,g}K × "
       "(average), for FSGDA and both SAGDA options (machine precision)",
       "sagda.md §8 P1, §2; L174, L512–L513", p1, []),
    _c("sagda.p4", "Lemma-level Monte Carlo: Lemma 1, Lemma 4 drift, client-sampling bound",
       "at a fixed z_t, E‖z^j_{t,i} − z_t‖² ≤ drift_i_F (every j ≤ K + 1), E‖u_x‖² ≤ 2‖∇_x f‖² + "
       "2(1 − m/M)σ_{x,G}²/m and E‖u_x − e_x‖² ≤ 4E‖ē_x‖² + 4E‖u_x‖² + 2σ_x²/(mK) (x and y): every "
       "lhs/rhs ≤ 1", "sagda.md §8 P4, §6; L526–L536, L603, L640", p4, ["sagda.thm2"]),
    _c("sagda.p3", "Constants of Φ: ‖∇²Φ‖ ≤ L_f + L_f²/μ and the PL error bound",
       "on quadratic games ‖∇²Φ‖ ≤ L and ‖∇Φ(x) − ∇_x f(x, y)‖² ≤ (L_f²/μ²)‖∇_y f(x, y)‖²: every "
       "measured/theoretical ratio ≤ 1", "sagda.md §8 P3; L85–L88, Lemma 2 L556–L560", p3, []),
    _c("sagda.p11", "Theorem 1 Option I admissible steps shrink as (M/m)^-2",
       "a_2 ∼ (M/m)² in conditions (11)–(13): the max-step γ_y = η_yK has log-log slope −2 in M/m",
       "sagda.md §8 P11, §9 item 2; Thm 1 L147–L152", p11,
       ["sagda.thm1.opt1", "sagda.thm1.opt1.corrected"],
       errata=["thm1-opt1-a2-replaced", "lemma5-coefficient"]),
    _c("sagda.p12", "Two-time-scale requirement η_y/η_x > 20L_f²/μ²",
       "the conditions of Theorems 1-I, 1-II and 2 admit no η_x with η_y/η_x ≤ 20κ² (max-step ratio "
       "/(20κ²) ≥ 1, → 1 for small steps)", "sagda.md §8 P12; L150, L164, L217", p12,
       ["sagda.thm2", "sagda.thm1.opt1", "sagda.thm1.opt1.corrected", "sagda.thm1.opt2"]),
    _c("sagda.p15", "Feasibility sanity: every theorem admits step sizes",
       "for (L_f, μ) = (√2, 1), K = 2, M = 10, m ∈ {10, 2} the conditions of Theorems 1-I, 1-II, 2 "
       "(printed and corrected) have a non-empty region; γ and bound values reported",
       "sagda.md §8 P15", p15, P15_THMS),
]
CLAIMS += _NEW
