"""Stochastic oracles (claims P4, P5, P11–P13): the SGDA neighbourhood in γ and in p,
p = 1 as proximal SGDA, L-SVRGDA's exact convergence, and Lemmas 3.4 / 3.8 pointwise.

Seeds: the operators, their heterogeneity and the finite-sum samples are drawn from the instance
seed (``params["instance_seed"]``); the oracles' noise, coins, sampled indices, P11's random
h_0 per replica and P13's random test points from the noise seed."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fedbounds.model import Theorem
from fedbounds.problems import proxskip as families
from fedbounds.problems.proxskip import AffineVIP
from fedbounds.theorems import proxskip as theory
from fedbounds.verify import claim as rules
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms import proxskip as algorithms
from fedbounds.verify.algorithms.proxskip import ProxSkipState
from fedbounds.verify.claim import Check, FigureSpec, Measurement, Params, RunConfig, claim
from fedbounds.verify.conditions import RunConditions
from fedbounds.verify.exact import proxskip as exact
from fedbounds.verify.exact.proxskip import bound_terms, derived_values, tau_from, theorem_curve
from fedbounds.verify.fitting import Estimate, loglog_slope, plateau, replica_slope
from fedbounds.verify.perturbation import Plant
from fedbounds.verify.publication import EPS, Published

from .common import at_most, safe, thin, thm31_sgda_run

NOISY_RUN = {"n": 3, "d": 4, "s": 3.0, "noise_std": 1.0}


def monte_carlo_floor(prob: AffineVIP, gamma: float, p: float, replicas: int, seed: int
                      ) -> tuple[float, Estimate | None, np.ndarray, object]:
    """Exact stationary E[V] and the Monte Carlo plateau of ProxSkip-SGDA-FL from (x*, h*)
    after the exact burn-in to 0.2 %: (floor, plateau or None if diverged, curve, trace)."""
    maps = exact.proxskip_maps(prob, gamma, p)
    Q = exact.noise_cov(prob)
    floor = exact.stationary_V(maps, Q)
    burn, EV = exact.burn_in(maps, Q, floor, int(50 / (gamma * prob.constants["mu"])))
    x_star = np.broadcast_to(prob.z_star, (prob.n, prob.d))
    start = ProxSkipState(algorithms.stack(prob, replicas, x_star),
                          algorithms.stack(prob, replicas, prob.f(x_star)))
    tr = simulate(algorithms.proxskip_method(prob, gamma, p, "sgda"), 4 * burn,
                  replicas=replicas, seed=seed, state=start)
    return floor, None if tr.diverged else plateau(tr.metrics["V"], burn), EV, tr


@claim("proxskip.p4", seconds=2.6, title="SGDA neighbourhood ≤ 2γσ_*²/μ and ∝ γ (slope 1)",
       prediction="limsup E[V_t] ≤ 2γσ_*²/μ with p = √(γμ); log-log slope of the plateau in "
       "γ ≈ 1", source="Corollary 3.5 [L174]; Theorem 4.2 [L238]",
       provenance="derived",
       derivation=("Corollary 3.5 [L174] bounds the neighbourhood of SGDA (p = √(γμ)) by 2γσ_*²/μ "
                   "(the explicit form of its O(γ) term, derived from Theorem 3.1 with Lemma 3.4); "
                   "reading the bound as the neighbourhood's scaling gives log-log slope 1 in γ. "
                   "The plateau ≤ bound part is exact, the slope (the decided statistic) is a "
                   "reading. Each γ's run is checked against Theorem 3.1's conditions with "
                   "Lemma 3.4's constants: the neighbourhood needs no accuracy ε (Corollary 3.5's "
                   "cap με/(8σ_*²) concerns reaching a given ε)"),
       theorems=("proxskip.cor3.5", "proxskip.thm4.2", "proxskip.thm3.1"),
       rule=rules.Interval("predicted_slope", "slope_tol"),
       tolerance_why=("±0.15 on a slope, a modelling slack chosen by us: Cor. 3.5's bound "
                      "2γσ_*²/μ is read as the floor's scaling. The slope fits the exact floors "
                      "at 4 step sizes (no sampling); the floor/bound ratio falls from 0.38 to "
                      "0.29 as γ halves, so the fit is 1.119 with 95 % OLS interval [1.018, "
                      "1.220] at the quick profile, which excludes 1: only the tolerance confirms"),
       params={"predicted_slope": 1.0, "slope_tol": 0.15, "bound_scale": 1.0, "mc_rtol": 0.3,
               "replicas": 200, "halvings": 4, "noise_exponent": 0.0},
       profiles={"full": {"replicas": 1000, "halvings": 7}}, perturb={"predicted_slope": 2.0},
       plants=(Plant({"noise_exponent": 0.5}, why="runs each γ with noise std (γ/γ_top)^(-1/2),"
                     " so σ_*² ∝ 1/γ, outside Corollary 3.5's fixed σ_*²: the neighbourhood "
                     "2γσ_*²/μ is then flat in γ, and the fitted slope must leave 1 ± 0.15"),),
       figure=FigureSpec("P4: SGDA neighbourhood vs γ (p = √(γμ))", "γ", "stationary E[V]",
                         logx=True))
def p4(params: Params, seed: int) -> Measurement:
    """P4: log-log slope in γ of the exact SGDA floor at p = √(γμ) (Cor. 3.5 [L174], Thm 4.2
    [L238])."""
    R = params["replicas"]
    base = families.g_norm(n=3, d=4, s=3.0, seed=params["instance_seed"])
    prob = families.with_noise(base, 1.0)
    c = prob.constants
    # Cor. 3.5's γ = 1/(2L_g), one float lower where its rounding went above 1/(2L_g)
    top = at_most(algorithms.sgda_step(prob), 1 / (2 * Fraction(float(c["L_g"]))))
    gammas = 2.0 ** -np.arange(params["halvings"]) * top
    rows, trajectories, runs = [], {}, []
    for k, gamma in enumerate(gammas):
        if params["noise_exponent"]:  # a plant: σ_*² varying with γ, not the theorem's fixed σ_*²
            prob = families.with_noise(base, float((gamma / top) ** -params["noise_exponent"]))
            c = prob.constants
        p = algorithms.given_step_p(prob, gamma)
        runs.append(thm31_sgda_run(prob, gamma, p, f"γ = {gamma:.6g}"))
        fl = exact.stationary_V(exact.proxskip_maps(prob, gamma, p), exact.noise_cov(prob))
        _, terms, ok, viol = theorem_curve("proxskip.thm4.2", {
            "gamma": gamma, "mu": c["mu"], "L_g": c["L_g"], "sigma_star": c["sigma_star"],
            "epsilon": 1.0, "T": 1, "V_0": 1.0}, np.array([1.0]))
        bound = params["bound_scale"] * float(terms["neighborhood"][0])
        row = {"gamma": gamma, "p": p, "floor_exact": fl, "bound": bound,
               "floor_over_bound": fl / bound, "conditions_hold": ok, "violated": viol}
        if k in (0, len(gammas) - 1):
            _, est, EV, tr = monte_carlo_floor(prob, gamma, p, R, seed)
            if est is None:
                return Measurement(None, diverged=f"γ = {gamma:g}: {tr.reason} at round "
                                   f"{tr.diverged_at}")
            row["plateau_mc"] = est.as_dict()
            trajectories[f"MC mean V_t, γ={gamma:.3g}"] = thin(tr.iterations, tr.mean("V"))
            trajectories[f"exact E[V_t], γ={gamma:.3g}"] = thin(np.arange(EV.size), EV)
        rows.append(row)
    floors, bounds = [r["floor_exact"] for r in rows], [r["bound"] for r in rows]
    fit = loglog_slope(gammas, np.array(floors))
    mc = [r for r in rows if "plateau_mc" in r]
    # V_t is heavy-tailed at small γ: the MC mean can be far off while its CI still covers the
    # exact floor; only a CI that excludes it (and a ratio off by mc_rtol) disagrees
    mc_ok = not any(abs(r["plateau_mc"]["value"] / r["floor_exact"] - 1) > params["mc_rtol"]
                    and not r["plateau_mc"]["lo"] <= r["floor_exact"] <= r["plateau_mc"]["hi"]
                    for r in mc)
    g = [float(x) for x in gammas]
    return Measurement(fit.slope, interval=(fit.lo, fit.hi), series={
        "exact floor": (g, floors), "bound 2γσ*²/μ": (g, bounds),
        "Monte Carlo plateau": ([r["gamma"] for r in mc], [r["plateau_mc"]["value"] for r in mc])},
        evidence={"fit": fit.as_dict(), "sigma_star_sq": c["sigma_star_sq"], "gammas": rows,
                  "trajectories": trajectories},
        checks=(Check("exact floor ≤ 2γσ_*²/μ at every γ", all(
            f <= b * (1 + 1e-9) for f, b in zip(floors, bounds, strict=True))),
            Check("Monte Carlo plateau CI covers the exact floor", mc_ok, "inconclusive")),
        conditions=runs,
        run=RunConfig("proxskip-sgda-fl", "proxskip-g-norm", NOISY_RUN, rounds=1000, seeds=R,
                      seed=seed, sweeps={"gamma": g}))


@claim("proxskip.p5", title="SGDA neighbourhood vs p at fixed γ ≤ γ²·2σ_*²/min{γμ, p²}",
       prediction="exact stationary E[V] ≤ γ²·2σ_*²/min{γμ, p²} for p ∈ {0.1, 0.3, 1, 3}·√(γμ)",
       source="Theorem 3.1 [L142] with Lemma 3.4 [L168]", theorems=("proxskip.thm3.1",),
       provenance="paper",
       rule=rules.UpperBound(1.0, rtol=1e-9),
       tolerance_why=("rtol 1e-9, round-off: the exact floor comes from one float64 linear solve "
                      "with I − (pT₁⊗T₁ + (1 − p)T₀⊗T₀) and the bound from a closed form, both "
                      "with relative error far below 1e-9; the statistic (0.38 at the quick "
                      "profile) does not come near it"),
       params={"bound_scale": 1.0, "mc_rtol": 0.3, "replicas": 200,
               "factors": (0.1, 0.3, 1.0, 3.0)},
       profiles={"full": {"replicas": 1000,
                          "factors": (0.03, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0)}},
       perturb={"bound_scale": 0.1},
       plants=(Plant({"bound_scale": 0.25}, why="plants the constant 2σ_*²/4 for Lemma 3.4's "
                     "D_1 = 2σ_*² in Theorem 3.1's neighbourhood γ²D_1/min{γμ, p²}: the exact "
                     "stationary E[V] reaches ≈ 0.38 of the true bound, so it must exceed a "
                     "quarter of it"),),
       figure=FigureSpec("P5: SGDA neighbourhood vs p at fixed γ = 1/(2L_g)", "p",
                         "stationary E[V]", logx=True))
def p5(params: Params, seed: int) -> Measurement:
    """P5: max_p exact SGDA floor / Thm 3.1's γ²D_1/min{γμ, p²}, Lemma 3.4 (Thm 3.1 [L142],
    Lemma 3.4 [L168])."""
    prob = families.with_noise(families.g_norm(n=3, d=4, s=3.0, seed=params["instance_seed"]), 1.0)
    c = prob.constants
    gamma = safe(algorithms.sgda_step(prob))
    lemma = derived_values(theory.lemma34, {"L_g": c["L_g"], "sigma_star": c["sigma_star"],
                                            "inner": 0.0})  # A = L_g, D_1 = 2σ_*², ρ = 1, …
    factors = params["factors"]
    p_mc = algorithms.given_step_p(prob, gamma)
    rows, runs = [], []
    for f in factors:
        p = min(1.0, f * p_mc)
        runs.append(thm31_sgda_run(prob, gamma, p, f"p = {f:g}·√(γμ)"))
        fl = exact.stationary_V(exact.proxskip_maps(prob, gamma, p), exact.noise_cov(prob))
        _, terms, ok, viol = theorem_curve("proxskip.thm3.1", {
            **lemma, "gamma": gamma, "p": p, "mu": c["mu"], "M": 1.0, "V_0": 1.0, "T": 1},
            np.array([1.0]))
        bound = params["bound_scale"] * float(terms["neighborhood"][0])
        rows.append({"p_factor": f, "p": p, "floor_exact": fl, "bound": bound,
                     "floor_over_bound": fl / bound, "conditions_hold": ok, "violated": viol})
    ps, floors, bounds = ([r[k] for r in rows] for k in ("p", "floor_exact", "bound"))
    small = [k for k, f in enumerate(factors) if f < 1]
    fit = loglog_slope(np.array(ps)[small], np.array(floors)[small]) if len(small) >= 2 else None
    fl_mc, est, _, tr = monte_carlo_floor(prob, gamma, p_mc, params["replicas"], seed)
    if est is None:
        return Measurement(None, diverged=f"p = {p_mc:g}: {tr.reason} at round {tr.diverged_at}")
    return Measurement(float(max(fl / b for fl, b in zip(floors, bounds, strict=True))), series={
        "exact floor": (ps, floors), "bound γ²·2σ*²/min{γμ, p²}": (ps, bounds),
        "Monte Carlo plateau": ([p_mc], [est.value])}, evidence={
        "rows": rows, "gamma": gamma, "sigma_star_sq": c["sigma_star_sq"], "mu": c["mu"],
        "floor_slope_in_p_below_sqrt_gamma_mu": None if fit is None else
        [fit.slope, fit.lo, fit.hi], "bound_slope_below_sqrt_gamma_mu": -2.0,
        "monte_carlo": {"p": p_mc, "plateau": est.as_dict(), "exact": fl_mc,
                        "replicas": params["replicas"]}},
        checks=(Check("Monte Carlo plateau within mc_rtol of the exact floor",
                      abs(est.value / fl_mc - 1) <= params["mc_rtol"], "inconclusive"),),
        conditions=runs,
        run=RunConfig("proxskip-sgda-fl", "proxskip-g-norm", {**NOISY_RUN, "gamma": gamma},
                      rounds=1000, seed=seed, sweeps={"p": ps}))


@claim("proxskip.p11", title="p = 1 is proximal (S)GDA for any h_0", prediction="x-trajectories "
       "equal to 1e-12 under shared randomness. An erratum reading: the paper says p = 1 with "
       "h_t ≡ 0 recovers proximal SGDA; the runs draw a random h_0, the statement of erratum "
       "p1-any-h", source="Section 3, after Algorithm 1 [L119]",
       provenance="erratum",
       no_conditions=("an identity of the algorithm (with p = 1 the prox argument is x_t − γg_t, "
                      "whatever h): it holds at every γ, and no theorem's conditions bear on it"),
       theorems=("proxskip.thm3.1",), errata=("p1-any-h",),
       rule=rules.UpperBound("tolerance", rtol=0.0),
       params={"tolerance": 1e-12, "p": 1.0, "replicas": 16, "iterations": 400},
       profiles={"full": {"replicas": 128, "iterations": 3000}}, perturb={"p": 0.9},
       plants=(Plant({"p": 0.95}, why="runs ProxSkip with p = 0.95 beside proximal (S)GDA: it "
                     "then skips one communication in twenty and is no longer the same "
                     "recursion, so the lockstep trajectories must part"),),
       figure=FigureSpec("P11: p = 1 ProxSkip vs proximal GDA", "iteration t",
                         "max abs difference"),
       published=(Published(
           ("max_abs_diff", "statistic", "figure"), floor=2**8 * EPS,
           why="zero in exact arithmetic (with p = 1 ProxSkip and proximal (S)GDA are one "
               "recursion written twice, on shared randomness); each step rounds iterates of "
               "magnitude ≈ 2 differently by ≲ 2³ ε, and on G-norm a step contracts by "
               "√(1 − 1.5γμ) ≈ 1 − 0.75γμ (γμ = 0.05), so the trajectories differ by "
               "≲ 2³ε/(0.75γμ) < 2⁸ ε at any t"),))
def p11(params: Params, seed: int) -> Measurement:
    """P11: max |x − x'|, p = 1 ProxSkip-(S)GDA-FL vs proximal (S)GDA in lockstep (Section 3
    [L119])."""
    R, T = params["replicas"], params["iterations"]
    base = families.g_norm(n=5, d=4, s=3.0, seed=params["instance_seed"])
    rows, worst, series = [], 0.0, {}
    for est, prob in (("gda", base), ("sgda", families.with_noise(base, 0.5))):
        gamma = algorithms.sgda_step(prob)  # Cor. 3.5: 1/(2L_g), L_g = ℓ without noise
        h0 = np.random.default_rng(np.random.SeedSequence([seed, 11])).standard_normal(
            (R, prob.n, prob.d))
        pair, start = algorithms.skipless_pair(prob, gamma, params["p"], est, h0)
        tr = simulate(pair, T, replicas=R, seed=seed, state=start)
        diff = tr.metrics["diff"].max(axis=1)
        worst = max(worst, float(diff.max()))
        rows.append({"estimator": est, "gamma": gamma, "max_abs_diff": float(diff.max()),
                     "final_dist_sq_proxskip": float(tr.mean("proxskip")[-1]),
                     "final_dist_sq_projected": float(tr.mean("projected")[-1])})
        series[f"{est}: max |x_proxskip − x_projected|"] = thin(tr.iterations,
                                                                np.maximum(diff, 1e-300))
    return Measurement(worst, series=series, evidence={"rows": rows}, run=RunConfig(
        "proxskip-sgda-fl", "proxskip-g-norm", {"n": 5, "d": 4, "s": 3.0, "noise_std": 0.5,
                                                "p": 1}, rounds=T, seeds=R, seed=seed))


@claim("proxskip.p12", seconds=1.4,
       title="L-SVRGDA-FL: exact linear convergence E[V_t] ≤ (1 − γμ)^t V_0",
       prediction="γ = 1/(6ℓ̂), q = 2γμ, p = √(γμ), V with (2γ/μ)σ_t² at w; error → machine "
       "precision. An erratum reading: the bound is the corrected Theorem 4.4's (σ_t at the "
       "reference point w, erratum lemma3.8-sigma; γ = 1/(6ℓ̂), erratum cor3.9-branch)",
       source="Corollary 3.9 [L204]; Theorem 4.4 [L256]",
       provenance="erratum",
       theorems=("proxskip.thm4.4", "proxskip.thm4.4.corrected"),
       errata=("lemma3.8-sigma", "cor3.9-branch"), rule=rules.UpperBound(1.0, rtol=0.0),
       params={"tau_scale": 1.0, "z": 3.0, "replicas": 200},
       profiles={"full": {"replicas": 2000}}, perturb={"tau_scale": 10.0},
       plants=(Plant({"tau_scale": 2.0}, why="plants the rate 1 − 2γμ in the encoded bound, twice"
                     " the corrected Theorem 4.4's γμ: the Monte Carlo mean decays at about the "
                     "theorem's rate, so its lower limit must cross the faster bound"),),
       figure=FigureSpec("P12: ProxSkip-L-SVRGDA-FL, E[V_t] (Monte Carlo) vs (1 − γμ)^t V_0",
                         "iteration t", "E[V_t]"),
       published=(
           Published(
               ("figure",), floor=(2 * 2**3 * 1e4 * EPS) ** 2 * 30,
               why="V_t sums squared distances d² to the fixed point of iterates of magnitude "
                   "s ≲ √V_0 (they start at 0; V_0 ≈ 30), whose rounding errors, accumulated "
                   "through the contraction 1 − γμ (γμ ≈ 0.026), have norm ≲ εs/√(2γμ) < 2³ εs; "
                   "d² then has relative error ≲ 2·2³εs/d, which reaches 10⁻⁴ (a tenth of the "
                   "plotted digits) at d² = (1.6·10⁵ ε)²·V_0 ≈ 4e-20: the mean and the bound "
                   "are drawn at that floor below it (the claim compares them only where the "
                   "bound is ≥ 10⁻²⁰ V_0)"),
           Published(
               ("final_dist_over_initial",), floor=2**8 * EPS**2,
               why="the iterates have converged to x* to rounding: their errors have norm "
                   "≲ εs/√(2γμ) < 2³ εs (as above, s = ‖x_0 − x*‖ since x_0 = 0), so the "
                   "final squared distance is ≲ (2⁴ ε)² of the initial one (a factor 2 to "
                   "spare)"),
           Published(
               ("log_rate_ci",), digits=3,
               why="slopes fitted to log V_t down to mean V_t = 10⁻²⁴ V_0, where a replica's "
                   "V_t carries relative rounding error up to 2·2³ε√(V_0/V_t) ~ 10⁻³; errors "
                   "persisting along a replica's tail move the mean of the replica slopes "
                   "(fitted over ≈ 900 rounds) by up to ~2·10⁻⁵ of its value")))
def p12(params: Params, seed: int) -> Measurement:
    """P12: max_t (mean V_t − z·se)/(1 − γμ)^t V_0 for L-SVRGDA-FL (Cor. 3.9 [L204], Thm 4.4
    [L256])."""
    R = params["replicas"]
    instance_seed = params["instance_seed"]
    prob = families.finite_sum(families.g_norm(n=3, d=4, s=2.0, seed=instance_seed), m=10,
                               spread=1.0, seed=instance_seed, jac_spread=1.0)
    c = prob.constants
    vals = {"mu": c["mu"], "ell_hat": c["ell_hat"]}
    thm = "proxskip.thm4.4.corrected"
    tau = params["tau_scale"] * tau_from(thm, vals)
    _, _, ok, viol = theorem_curve(thm, {**vals, "V_0": 1.0}, np.array([1.0]))
    gamma, p, q = algorithms.svrg_steps(prob)
    T = int(math.ceil(math.log(1e-16) / math.log1p(-tau_from(thm, vals)))) * 2
    tr = simulate(algorithms.svrg_method(prob, gamma, p, q), T, replicas=R, seed=seed)
    if tr.diverged:
        return Measurement(None, diverged=f"{tr.reason} at round {tr.diverged_at}")
    V, t = tr.metrics["V"], tr.iterations
    V0 = float(V[0].mean())
    bound, _, _, _ = theorem_curve(thm, {**vals, "V_0": V0}, t)
    if params["tau_scale"] != 1.0:  # the perturbed prediction: rate scaled by tau_scale
        bound = V0 * (1 - tau) ** t
    mean, se = V.mean(axis=1), V.std(axis=1, ddof=1) / math.sqrt(R)
    keep = (bound >= 1e-20 * V0) & (t >= 1)  # t = 0 is trivially 1
    ratio = float(np.max((mean[keep] - params["z"] * se[keep]) / bound[keep]))
    final_rel = float(tr.mean("dist_sq")[-1] / tr.mean("dist_sq")[0])
    lo, hi = T // 10, int(np.argmax(mean < 1e-24 * V0)) or T
    fit = replica_slope(t[lo:hi], V[lo:hi].T, logx=False)
    return Measurement(ratio, series={"mean V_t": thin(t, mean), "bound": thin(t, bound)},
                       evidence={"log_rate_ci": [fit.slope, fit.lo, fit.hi],
                                 "log_rate_bound": math.log1p(-tau), "final_dist_over_initial":
                                 final_rel, "gamma": gamma, "p": p, "q": q, "iterations": T,
                                 "conditions_hold": ok, "violated": viol},
        checks=(Check("no floor: error below 1e-20 of the initial", final_rel <= 1e-20),),
        # the theorem derives γ = 1/(6ℓ̂), q = 2γμ, p = √(γμ), M = 4/q from ℓ̂ and μ, as the run
        conditions=[RunConditions(thm, vals, "g_norm finite sum n=3 d=4 m=10 jac_spread=1")],
        run=RunConfig("proxskip-l-svrgda-fl", "proxskip-g-norm", {
            "n": 3, "d": 4, "s": 2.0, "m": 10, "spread": 1.0, "jac_spread": 1.0},
            rounds=T, seeds=R, seed=seed))


def lemma_rhs(lemma: Theorem, values: dict[str, object], sigma_sq: object) -> np.ndarray:
    """The right-hand side of an encoded estimator lemma with σ_t² = ``sigma_sq``."""
    return sum(bound_terms(lemma, {**values, "sigma_t": np.sqrt(sigma_sq)}).values())


@claim("proxskip.p13", title="Lemma 3.4 and Lemma 3.8 (both parts) hold pointwise",
       prediction="lhs ≤ rhs at 10⁴ random (x, w), exact expectations over the finite index; "
       "σ_t at the reference point. An erratum reading: Lemma 3.4 as printed, Lemma 3.8 with σ_t "
       "at the SVRG reference point w (erratum lemma3.8-sigma), not at x_t as printed (which "
       "fails: evidence); the statistic, the largest ratio, rests on both",
       source="Lemma 3.4 [L168]; Lemma 3.8 [L198]; proofs in Appendix E [L511–L539]",
       provenance="erratum",
       no_conditions=("Lemmas 3.4 and 3.8 are inequalities at every point, with no conditions "
                      "on γ or p; both sides are evaluated exactly (expectations over the finite "
                      "index) at random points, without running an algorithm"),
       theorems=("proxskip.cor3.5", "proxskip.thm4.4.corrected"), errata=("lemma3.8-sigma",),
       rule=rules.UpperBound(1.0, rtol=1e-9),
       tolerance_why=("rtol 1e-9, round-off: both sides are exact expectations (float64 sums over "
                      "the finite index) and the lemmas are tight at some points; their relative "
                      "rounding is of order 1e-14 (1 − 1.6e-15 at the quick profile), far below "
                      "1e-9"),
       params={"constant_scale": 1.0, "points": 10_000, "sigma_at": "w"},
       profiles={"full": {"points": 50_000}}, perturb={"constant_scale": 0.5},
       plants=(Plant({"sigma_at": "x"}, why="plants Lemma 3.8 as printed, σ_t at x_t instead of "
                     "the reference point w (erratum lemma3.8-sigma): it cannot bound the "
                     "variance, which grows with ‖x − w‖, so some random point must violate "
                     "it"),),
       figure=FigureSpec("P13: Lemma 3.4, left vs right side at random points",
                         "2L_g⟨·⟩ + 2σ_*²", "E‖g(x) − F(x*)‖²", logx=True, kind="scatter"))
def p13(params: Params, seed: int) -> Measurement:
    """P13: max lhs/rhs of Lemmas 3.4 and 3.8 at random (x, w) (Lemma 3.4 [L168],
    Lemma 3.8 [L198], proofs in Appendix E [L511–L539])."""
    K, instance_seed = params["points"], params["instance_seed"]
    instances = [("quadratic_game n=3 m=10 d=4",
                  families.quadratic_game(n=3, m=10, d=4, seed=instance_seed)),
                 ("g_norm finite sum n=3 d=4 m=10 jac_spread=1",
                  families.finite_sum(families.g_norm(n=3, d=4, s=2.0, seed=instance_seed),
                                      m=10, spread=1.0, seed=instance_seed, jac_spread=1.0))]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 13]))
    rows, worst, scat_x, scat_y = [], 0.0, [], []
    for name, prob in instances:
        c, scale = prob.constants, params["constant_scale"]
        q = algorithms.svrg_steps(prob)[2]  # Cor. 3.9's q = 2γμ (any q ∈ (0, 1] works)
        # scales spread over 6 decades; directions isotropic
        X = prob.z_star + 10.0 ** rng.uniform(-3, 3, size=(K, 1, 1)) * rng.standard_normal(
            (K, prob.n, prob.d))
        W = prob.z_star + 10.0 ** rng.uniform(-3, 3, size=(K, 1, 1)) * rng.standard_normal(
            (K, prob.n, prob.d))
        v = exact.estimator_moments(prob, X, W)
        at = {"L_g": scale * c["L_g"], "sigma_star": c["sigma_star"], "inner": v["inner"],
              "ell_hat": scale * c["ell_hat"], "q": q}
        lemma34 = lemma_rhs(theory.lemma34, at, 0.0)
        r34 = v["sgda"] / lemma34
        sigma = v["sigma_w"] if params["sigma_at"] == "w" else v["sigma_x"]  # x: a plant
        r38a = v["svrg"] / lemma_rhs(theory.lemma38, at, sigma)
        r38b = (q * v["sigma_x"] + (1 - q) * v["sigma_w"]) / lemma_rhs(
            theory.lemma38_refresh, at, v["sigma_w"])
        r38c = v["sigma_x"] / lemma_rhs(theory.lemma38_refresh, {**at, "q": 1.0}, v["sigma_w"])
        bad_x = v["svrg"] > lemma_rhs(theory.lemma38, at, v["sigma_x"]) * (1 + 1e-9)
        worst = max(worst, float(max(r34.max(), r38a.max(), r38b.max(), r38c.max())))
        rows.append({"instance": name, "L_g": c["L_g"], "ell_hat": c["ell_hat"], "q": q,
                     "sigma_star_sq": c["sigma_star_sq"], "lemma3.4_max_ratio": float(r34.max()),
                     "lemma3.8_first_max_ratio": float(r38a.max()), "lemma3.8_refresh_max_ratio":
                     float(r38b.max()), "sigma_x_over_ell_hat_inner_max": float(r38c.max()),
                     "printed_sigma_at_x_violations": int(bad_x.sum())})
        scat_x += [float(a) for a in lemma34[:300]]
        scat_y += [float(a) for a in v["sgda"][:300]]
    lim = [min(scat_x), max(scat_x)]
    return Measurement(worst, series={"points": (scat_x, scat_y), "equality": (lim, lim)},
                       evidence={"rows": rows, "erratum_lemma3.8_sigma_at_x_fails": all(
                           r["printed_sigma_at_x_violations"] > 0 for r in rows),
                           "note": "σ_t² at x_t (Lemma 3.8 [L198]) cannot bound "
                                   "Σ_i (1/m)Σ_j‖(J_ij − J_i)(x_i − w_i)‖², growing with "
                                   "‖x − w‖; at w_t (its proof [L533]) it does"},
                       run=RunConfig("proxskip-l-svrgda-fl", "proxskip-quadratic-game",
                                     {"n": 3, "m": 10, "d": 4}, seed=seed))
