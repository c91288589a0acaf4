"""Claims of Fed-Norm-SGDA on min-max quadratic games: P1–P4 and P9–P11 test the paper's
statements (each ``source`` names them), P20 the implied constant of Theorem 1's O(·) bound; exact fixed points and moments (P1, P2, P4,
P9), Monte Carlo (P3, P10, P11, P20).

Seeds: every game is built from the instance seed (``params["instance_seed"]``); the runs'
stochastic gradients and replicas come from the noise seed."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from fedbounds import engine, registry
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.fednorm import FEDNORM_SGDA, LOCAL_SGDA, implicit_weights, taus
from fedbounds.verify.claim import (
    AtMost,
    Check,
    FigureSpec,
    Interval,
    Measurement,
    Params,
    Predictions,
    RunConfig,
    UpperBound,
    claim,
)
from fedbounds.verify.conditions import RunConditions
from fedbounds.verify.exact import bound_along
from fedbounds.verify.exact import fednorm as exact
from fedbounds.verify.exact import max_step as exact_max_step
from fedbounds.verify.fitting import (
    Axis,
    implied_constant,
    loglog_slope,
    loglog_slope_of_estimates,
    mean_ci,
    replica_slope,
)
from fedbounds.verify.minmax import stationary_floor
from fedbounds.verify.perturbation import Plant
from fedbounds.verify.publication import EPS, Published

GAME = "minmax-quadratic"
P1_SET = {"M": 3, "p_skew": 0.6, "sigma_G": 2.0}
P1_TAU = {"tau": 1, "tau_max": 20}  # τ_i = 1, 10, 20 over the 3 clients
ETAS, P4_ETAS = (0.02, 0.01, 0.005, 0.0025), (0.01, 0.005, 0.0025, 0.00125)

# why the fixed-point claims have no theorem run to check (fednorm.p1, p2a, p2b, p4)
FIXED_POINT_LIMIT = (
    "the statistic is the exact fixed point of the algorithm's deterministic round as η^c → 0; "
    "the weights w of eq. (2) [L133] (w = p for Fed-Norm, Algorithm 1 [L143]) are an algebraic "
    "identity of that round at every step size, so no theorem's step-size conditions are the "
    "premise (Theorem 1's bound is not used)")


def fednorm_conditions(theorem: str, g: Any, cfg: Mapping[str, Any], where: str
                       ) -> RunConditions:
    """The inputs of ``theorem`` (Theorem 1 or Corollary 1.2, printed or corrected) at one run of
    Fed-Norm-SGDA on ``g`` with the algorithm's parameters ``cfg``: the instance's exact
    summaries (:func:`exact.thm1_inputs`: SGDA local steps τ_i from ``tau``/``tau_max``, w = p,
    β_G = 1 for identical client Hessians), Corollary 1.2's τ (equal τ_i and uniform p only), P
    (0: all n) and the four steps, the server steps being the client steps where ``cfg`` sets
    none (as the algorithm does); only the inputs the conditions involve."""
    if not np.allclose(g.H, g.H[0]):
        raise ValueError("β_G = 1 only for identical client Hessians")
    tau = taus(g, cfg)
    values: dict[str, Any] = dict(exact.thm1_inputs(g, tau, int(cfg.get("P") or 0)))
    if theorem.startswith("fednorm.cor1.2"):
        if np.any(tau != tau[0]) or not np.allclose(g.p, 1 / g.M):
            raise ValueError("Corollary 1.2 has equal τ_i and uniform p")
        values["tau"] = int(tau[0])
    server = {"gamma_sx": cfg["eta_cx"], "gamma_sy": cfg["eta_cy"]}
    values.update({k: cfg[k] if cfg.get(k) is not None else server.get(k)
                   for k in ("eta_cx", "eta_cy", "gamma_sx", "gamma_sy")})
    names = engine.compiled(registry.get(theorem)).condition_inputs
    return RunConditions(theorem, {k: v for k, v in values.items() if k in names}, where)


PREDICTIONS = Predictions(
    "fednorm", 19, "the numbered checkable predictions of the paper's theorems, corollaries, "
    "lemmas and experiments: claims p1–p19 test them; higher numbers are additions")


@claim("fednorm.p1", title="Local SGDA converges to the mismatched saddle z*(w), w ∝ p_iτ_i",
       tolerance_why=("±0.1 on a slope is a modelling slack we chose: the prediction is a "
                      "first-order expansion (distance cη + O(η²)) and the fit is OLS on exact "
                      "fixed points over η = 0.02…0.0025, so its interval measures the "
                      "higher-order curvature, not noise. At the quick profile (seeds 0/0) the "
                      "slope is 0.989 with interval [0.980, 0.999], which misses 1 itself: only "
                      "the tolerance confirms."),
       prediction="As η^c → 0 the Local SGDA fixed point approaches z*(w), w_i = p_iτ_i/Σ_j "
       "p_jτ_j, at distance Θ(η) (log-log slope +1), and stays ‖z*(w) − z*(p)‖ away from z*(p)",
       source="Section 4.1, eq. (2) [L133–L139]; Corollary 1.1 [L173]; the Θ(η) rate is derived "
       "here",
       provenance="derived",
       derivation=("Section 4.1 and eq. (2) [L133–L139] state that naive averaging optimises the "
                   "objective weighted by w_i ∝ p_iτ_i; the round map of Local SGDA is affine with "
                   "a fixed point analytic in η, equal to z*(w) at η = 0, so ‖z(η) − z*(w)‖ = cη + "
                   "O(η²): slope +1 when c ≠ 0 (first-order expansion; the slope is ours, the limit"
                   " is the paper's)"),
       theorems=("fednorm.thm1", "fednorm.cor1.1"), rule=Interval("predicted", 0.1),
       no_conditions=FIXED_POINT_LIMIT,
       params={"algorithm": "local-sgda", "target": "w", "rhos": (0.0,), "etas": ETAS,
               "predicted": 1.0}, profiles={"full": {"etas": (*ETAS, 0.00125)}},
       perturb={"target": "p"},
       plants=(Plant({"algorithm": "fednorm-sgda"},
                     why="runs the normalized algorithm (Fed-Norm) in place of naive averaging: "
                         "its fixed point tends to z*(p), a distance ‖z*(w) − z*(p)‖ from z*(w), "
                         "so the distance to z*(w) must stop falling with η"),),
       figure=FigureSpec("Local SGDA fixed point vs η (τ = 1, 10, 20)",
                                                  "η^c", "distance", logx=True))
def p1(params: Params, seed: int) -> Measurement:
    """P1, P2, P4: slope in η of ‖z(η) − z*(target)‖, z(η) the exact fixed point (eq. (2))."""
    g = make_game(P1_SET, params["instance_seed"])
    etas, tau, name = np.array(params["etas"]), taus(g, P1_TAU), params["algorithm"]
    w_tau, predicted = implicit_weights(g, tau), params["predicted"]
    gap = float(np.linalg.norm(g.z_star(w_tau) - g.z_star()))
    series, worst, ev = {}, None, {"p": g.p.tolist(), "tau": tau.tolist(), "gap_z_w_z_p": gap}
    for rho in params["rhos"]:
        w = implicit_weights(g, tau, rho)
        Z = exact.fixed_point_path(g, LOCAL_SGDA if name == "local-sgda" else FEDNORM_SGDA, etas,
                                   {**P1_TAU, "rho": rho})
        dist = {k: np.linalg.norm(Z - g.z_star(v), axis=1)
                for k, v in (("w", w), ("w_tau", w_tau), ("p", None))}
        fit = loglog_slope(etas, dist[params["target"]])
        series.update({f"ρ={rho}: ‖z − z*({k})‖": (etas.tolist(), d.tolist())
                       for k, d in dist.items()})
        ev[f"rho={rho}"] = {"w": w.tolist(), "fit": fit.as_dict(),
                            **{f"dist_to_z_{k}": d.tolist() for k, d in dist.items()}}
        if worst is None or abs(fit.slope - predicted) > abs(worst.slope - predicted):
            worst = fit
    eta = float(etas[-1])
    cfg = {"eta_cx": eta, "eta_cy": eta, "rho": params["rhos"][-1], **P1_TAU}
    return Measurement(worst.slope, (worst.lo, worst.hi), series=series, evidence=ev,
                       hlines={"‖z*(w_tau) − z*(p)‖": gap},
                       run=RunConfig(name, GAME, {**P1_SET, **cfg}, 4000, 1, seed))


p2a = p1.variant("fednorm.p2a", title="Fed-Norm-SGDA's fixed point tends to z*(p)",
                 tolerance_why=("±0.1 on a slope is a modelling slack we chose: the prediction is"
                                " a first-order expansion (distance cη^c + O((η^c)²)) and the fit"
                                " is OLS on exact fixed points over η^c = 0.02…0.0025, so its "
                                "interval measures the higher-order curvature, not noise. At the "
                                "quick profile (seeds 0/0) the slope is 0.983 with interval "
                                "[0.968, 0.998], which misses 1 itself: only the tolerance "
                                "confirms."),
                 prediction="‖z_FN(η) − z*(p)‖ = Θ(η^c) (slope +1)",
                 source="Section 4.2 and Algorithm 1 [L143]; the Θ(η) rate is derived here",
                 provenance="derived",
                 derivation=("Algorithm 1 [L143] normalises each client's update by ‖a_i‖_1, so its"
                             " fixed-point equation Σ_i p_i ĝ_i(z; η^c) = 0 tends to Σ_i p_i "
                             "∇f_i(z) = 0 as η^c → 0 (the saddle z*(p)); the fixed point is "
                             "analytic in η^c, so the distance is cη^c + O((η^c)²): slope +1 "
                             "(first-order expansion)"),
                 theorems=("fednorm.thm1",),
                 params={"algorithm": "fednorm-sgda", "target": "p"}, perturb={"target": "w"},
                 plants=(Plant({"algorithm": "local-sgda"},
                               why="drops Algorithm 1's normalization by ‖a_i‖_1 (naive "
                                   "averaging): the fixed point then tends to z*(w), w ∝ p_iτ_i, "
                                   "so its distance to z*(p) must stop falling with η^c"),),
                 figure=FigureSpec("Fed-Norm-SGDA fixed point vs η^c (τ = 1, 10, 20)", "η^c",
                                   "distance", logx=True))


@claim("fednorm.p2b", title="Fed-Norm's fixed point does not depend on the server step",
       tolerance_why=("tol 1e-9 on a relative spread that is zero in exact arithmetic: round-off,"
                      " bounded by the published floor 2¹⁰ ε ≈ 2.3e-13 (three solves of I − A "
                      "with σ_min ≳ 2⁻⁴); 1e-9 leaves a wide margin over it (quick, seeds 0/0: "
                      "7e-16)."),
       prediction="at fixed η^c the fixed point is the same for γ^s ∈ {0.01, 0.02, 0.05}",
       source="derived here from Section 4.2 and Algorithm 1 [L143] (w = p for every γ^s)",
       provenance="derived",
       derivation=("Algorithm 1 [L143] normalises each client's update by its ‖a_i‖_1 and "
                   "aggregates with weights p_i, so at a fixed point the server step multiplies a "
                   "direction that must vanish: the fixed-point equation Σ_i p_i ĝ_i(z; η^c) = 0 "
                   "involves η^c but not γ^s. The fixed point is therefore the same for every γ^s "
                   "(exact), but this is a property of the algorithm we derive, not a result the "
                   "paper states"),
       theorems=("fednorm.thm1",),
       no_conditions=("the statistic compares exact fixed points of the algorithm's "
                      "deterministic round at one η^c and three server steps; that they agree "
                      "is an algebraic property of the round (its fixed-point equation does not "
                      "involve γ^s) at every step size: no theorem's conditions are its premise"),
       rule=Interval("predicted", 1e-9), params={"predicted": 0.0, "client_step": "fixed"},
       perturb={"predicted": 1.0},
       plants=(Plant({"client_step": "tied"},
                     why="ties the client step to the server step (η^c = γ^s, App. A.1's "
                         "default) instead of holding η^c fixed: the fixed point then moves with "
                         "γ^s through η^c, so the spread over γ^s must leave zero"),),
       figure=FigureSpec("Fed-Norm fixed point vs server step", "γ^s", "‖z_FN − z*(p)‖",
                         logx=True, kind="scatter"),
       published=(Published(
           ("relative_spread", "statistic"), floor=2**10 * EPS,
           why="zero in exact arithmetic (the three fixed points solve one equation); each is "
               "solve(I − A, c) with A read off the round to ≲ 2⁶ ε and σ_min(I − A) ≳ 2⁻⁴ "
               "(γ^s ≥ 0.01), so fixed points of norm ≲ 2 agree to ≲ 2¹⁰ ε relative"),))
def p2b(params: Params, seed: int) -> Measurement:
    """P2: the relative spread of the exact Fed-Norm fixed points over γ^s (η^c = 0.01)."""
    g, gammas = make_game(P1_SET, params["instance_seed"]), [0.01, 0.02, 0.05]
    tied = params["client_step"] == "tied"  # a plant: η^c = γ^s rather than η^c = 0.01
    Z = np.array([exact.fixed_point_path(g, FEDNORM_SGDA, [gm if tied else 0.01], {
        **P1_TAU, "gamma_sx": gm, "gamma_sy": gm})[0] for gm in gammas])
    spread = float(np.max(np.linalg.norm(Z - Z[0], axis=1)) / np.linalg.norm(Z[0]))
    cfg = {"eta_cx": 0.01, "eta_cy": 0.01, "gamma_sx": 0.05, "gamma_sy": 0.05, **P1_TAU}
    d = np.linalg.norm(Z - g.z_star(), axis=1)
    return Measurement(spread, series={"η^c = 0.01": (gammas, d.tolist())}, evidence={
        "gammas": gammas, "fixed_points": Z.tolist(), "relative_spread": spread},
        run=RunConfig("fednorm-sgda", GAME, {**P1_SET, **cfg}, 2000, 1, seed))


@claim("fednorm.p3", title="Fed-Norm-SGDA = Local SGDA for equal τ_i and γ^s = η^c",
       tolerance_why=("tol 1e-12 on an iterate difference that is zero in exact arithmetic: "
                      "round-off, bounded by the published floor 2¹⁰ ε ≈ 2.3e-13 (per-round "
                      "rounding ≲ 2³ ε under a contracting round map, so independent of T); 1e-12"
                      " is about 4× that floor (quick, seeds 0/0: 3.3e-16)."),
       prediction="identical server iterates (machine precision) under shared seeds, noise and "
       "sampling", source="Appendix A.1 [L535–L547]",
       provenance="paper",
       no_conditions=("Appendix A.1's equivalence is an identity of the two recursions (equal τ_i, "
                      "γ^s = η^c) at every step size and noise draw: no theorem's conditions "
                      "enter"),
       rule=Interval("predicted", 1e-12), params={"predicted": 0.0, "tau_max": 0, "T": 200, "R": 8},
       profiles={"full": {"T": 2000, "R": 32}}, perturb={"tau_max": 8},
       plants=(Plant({"tau_max": 8},
                     why="unequal local steps τ_i = 4..8, outside App. A.1's equal-τ premise: "
                         "Fed-Norm reweights the clients by p_i, Local SGDA by p_iτ_i, so the "
                         "iterates must differ far beyond rounding"),),
       figure=FigureSpec("Fed-Norm vs Local SGDA (equal τ): |Δ‖∇Φ‖²| per round", "round",
                         "|difference|"),
       published=(
           Published(("max_abs_final_iterate_diff", "statistic"), floor=2**10 * EPS,
                     why="zero in exact arithmetic (App. A.1: the same recursion, Fed-Norm "
                         "dividing by ‖a_i‖_1 = τ and multiplying by γ^s τ_eff); per round the "
                         "two round differently by ≲ 2³ ε on iterates of norm ≲ 2, and the round "
                         "maps contract (ρ ≈ 0.9), so the iterates differ by ≲ 2¹⁰ ε"),
           Published(("figure",), floor=2**15 * EPS,
                     why="zero in exact arithmetic: ‖∇Φ‖² ≲ 2⁵ along the runs and ∇Φ is "
                         "2-Lipschitz, so iterates that differ by ≲ 2¹⁰ ε move it by ≲ "
                         "2·2^2.5·2·2¹⁰ ε < 2¹⁵ ε")))
def p3(params: Params, seed: int) -> Measurement:
    """P3: max |z_LS − z_FN| over replicas after T rounds, shared streams (App. A.1)."""
    pset = {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 3.0, "p_skew": 0.5, "beta_L": 0.2}
    g, T, R = make_game(pset, params["instance_seed"]), params["T"], params["R"]
    cfg = {"eta_cx": 0.03, "eta_cy": 0.05, "tau": 4, "P": 3, "tau_max": params["tau_max"]}
    a, b = (simulate(alg.method(g, cfg), T, replicas=R, seed=seed)
            for alg in (LOCAL_SGDA, FEDNORM_SGDA))
    stat = float(np.max(np.abs(a.state.z - b.state.z), axis=1).max())
    diff = np.abs(a.metrics["grad_phi_sq"] - b.metrics["grad_phi_sq"]).max(axis=1)
    return Measurement(stat, series={"max over replicas": (a.iterations.tolist(),
                                                           np.maximum(diff, 1e-18).tolist())},
                       evidence={"max_abs_final_iterate_diff": stat, "rounds": T, "replicas": R},
                       run=RunConfig("fednorm-sgda", GAME, {**pset, **cfg}, T, R, seed))


p4 = p1.variant("fednorm.p4", title="Local momentum: mismatch weights w ∝ p_i‖a_i‖_1",
                tolerance_why=("±0.1 on a slope is a modelling slack we chose: the prediction is "
                               "a first-order expansion (distance cη + O(η²)) and the fit is OLS "
                               "on exact fixed points over η = 0.01…0.00125, so its interval "
                               "measures the higher-order curvature, not noise. At the quick "
                               "profile (seeds 0/0) the slope is 1.021 (worst of ρ = 0.5, 0.9) "
                               "with interval [1.001, 1.040], which misses 1 itself: only the "
                               "tolerance confirms."),
                prediction="naive averaging with heavy-ball ρ converges to z*(w), w_i ∝ p_i(τ_i − "
                "ρ(1−ρ^τ_i)/(1−ρ))/(1−ρ), at distance Θ(η)",
                source="Appendix A.1 [L547–L555]; eq. (2) [L133]", theorems=("fednorm.thm1",),
                provenance="derived",
                derivation=("eq. (2) [L133] with the heavy-ball solver of Appendix A.1 [L547–L555]:"
                            " the local update is Σ_k a_i^(k) × gradient with ‖a_i‖_1 = (τ_i − ρ(1 "
                            "− ρ^τ_i)/(1 − ρ))/(1 − ρ), so naive averaging weighs client i by "
                            "p_i‖a_i‖_1; the fixed point is z*(w) + O(η) as in fednorm.p1 (slope "
                            "+1: first-order expansion)"),
                params={"rhos": (0.5, 0.9), "etas": P4_ETAS}, profiles={"full": {"etas": P4_ETAS}},
                perturb={"target": "w_tau"},
                plants=(Plant({"target": "w_tau"},
                              why="plants the theory that momentum does not change the mismatch "
                                  "weights (w ∝ p_iτ_i, not p_i‖a_i‖_1): the heavy-ball fixed "
                                  "point stays a fixed distance from that z*(w), so the slope "
                                  "must fall away from +1"),),
                figure=FigureSpec(
                    "Local SGDA with momentum: fixed point vs η", "η^c", "distance", logx=True))


_P9_FLOOR = Published(
    ("floors", "floor_at_P_eq_n", "figure"), floor=2**12 * EPS,
    why="the floor at P = n is zero in exact arithmetic (no sampling noise, σ_L = 0, fixed point "
        "z*); it is tr X − 2z*ᵀμ + ‖z*‖² with ‖z*‖² ≲ 2², X solving (I − A⊗A)X = R with "
        "σ_min(I − A⊗A) ≳ γ ≥ 2⁻⁸ and A's entries read off the round to a few ε: ≲ 2¹² ε")


# why the runs of fednorm.p9a/p9b are outside Theorem 1's conditions (margins at instance seed 0)
P9_RUNS = ("The runs are outside Theorem 1's conditions: exact.pp_floor runs Fed-Norm with one "
           "step γ for the clients and the server, in x and in y (γ^s_x = γ^s_y = η^c = γ: the "
           "recursion whose small-step expansion this is), so Lemma B.5's two-timescale condition "
           "γ^s_x ≤ γ^s_y/(81κ²) (κ = 1.5) fails at every run by γ(1 − 1/(81κ²))")
P9_OUTSIDE = (P9_RUNS + " (margin −0.050 at γ = 0.05 to −0.0062 at γ = 0.00625); at γ = 0.05 "
              "and 0.025 Lemma B.3's 8τ_eff γ^s_x L_Φ max w (n/P)(n−P)/(n−1) max{8β_G², 1} ≤ 1 "
              "(margins −2.15, −0.575) and Lemma B.5's server cap (−0.027, −0.0055) fail too")
P9B_OUTSIDE = (P9_RUNS + " (margin −0.0062 at γ = 0.00625, P = 1..4); at P = 1 Lemma B.3's "
               "8τ_eff γ^s_x L_Φ max w (n/P)(n−P)/(n−1) max{8β_G², 1} ≤ 1 fails too (−0.05)")
# why the runs of fednorm.p10a/p10b are outside Corollary 1.2's conditions (instance seed 0)
P10_STEPS = ("the runs hold γ^s τ_eff fixed (γ^s_x = 0.02/τ, γ^s_y = 5γ^s_x, η^c = 0.002/τ) so "
             "that the floor's τ-dependence shows within T rounds, which is outside Corollary "
             "1.2's conditions at every τ: Lemma B.5's two-timescale condition γ^s_x ≤ "
             "γ^s_y/(81κ²) (κ = 1.5: a ratio 5 against 81κ² = 182; margins −0.019, −0.0049, "
             "−0.0012 at τ = 1, 4, 16)")


@claim("fednorm.p9a", seconds=1.8, title="Partial-participation floor is linear in the server step",
       tolerance_why=("±0.1 on a slope is a modelling slack we chose: the prediction is a "
                      "first-order expansion (floor ∝ γ + O(γ²)) and the fit is OLS on exact "
                      "stationary floors over γ = 0.05…0.00625, so its interval measures the "
                      "higher-order curvature, not noise. At the quick profile (seeds 0/0) the "
                      "slope is 1.021 with interval [1.002, 1.041], which misses 1 itself: only "
                      "the tolerance confirms."),
       prediction="stationary E‖z − z*‖² ∝ γ (slope +1) with σ_L = 0, τ = 1, P < n",
       source="Theorem 1, partial-participation term of eq. (4) [L165]; the slope in γ is derived "
       "here from App. B.2 [L656]", theorems=("fednorm.thm1",),
       provenance="extrapolation",
       derivation=("with σ_L = 0 and τ = 1 the only noise is client sampling; Theorem 1's partial-"
                   "participation term [L165] (App. B.2 [L656]) is linear in the server step, and "
                   "the stationary variance of a linear recursion z ↦ (I − γH)z + γξ is γ·(Lyapunov"
                   " solution) + O(γ²): slope +1 in γ (small-step expansion). " + P9_OUTSIDE),
       rule=Interval("predicted", 0.1), params={"part": "a", "predicted": 1.0},
       perturb={"predicted": 2.0}, figure=FigureSpec(
           "Fed-Norm PP floor (exact, τ = 1, σ_L = 0)", "P", "stationary E‖z − z*‖²"),
       published=(_P9_FLOOR,))
def p9a(params: Params, seed: int) -> Measurement:
    """P9: exact PP floors; (a) slope in γ at P = 2, (b) profile in P vs Theorem 1 (App. B.2
    [L656])."""
    pset = {"M": 5, "sigma_G": 2.0}
    g = make_game(pset, params["instance_seed"])
    gammas, Ps = 0.05 / np.array([1, 2, 4, 8]), list(range(1, g.M + 1))
    F = np.array([[exact.pp_floor(g, gm, P) for P in Ps] for gm in gammas])  # (γ, P)
    theory = exact.pp_profile(g.M, Ps)
    if params.get("sampling_law") == "with replacement":  # fednorm.p9b's plant: 1/P
        theory = 1.0 / np.array(Ps, float)
    series = {f"γ = {gm:g}": (Ps, np.maximum(F[k], 1e-300).tolist()) for k, gm in enumerate(gammas)}
    series["(n−P)/(P(n−1)) · floor(P=1), smallest γ"] = (
        Ps, np.maximum(theory * F[-1, 0], 1e-300).tolist())
    ev = {"gammas": gammas.tolist(), "P": Ps, "floors": F.tolist(),
          "theory_profile": theory.tolist(), "floor_at_P_eq_n": F[:, -1].tolist()}
    run = RunConfig("fednorm-sgda", GAME, {**pset, "eta_cx": 0.05, "eta_cy": 0.05, "P": 2}, 5000,
                    64, seed)
    # the runs the statistic uses: (a) P = 2 at every γ, (b) P < n at the smallest γ (exact.pp_floor
    # runs Fed-Norm with γ^s = η^c = γ for x and y, τ = 1)
    used = ([(gm, 2) for gm in gammas] if params["part"] == "a"
            else [(gammas[-1], P) for P in Ps[:-1]])
    runs = [fednorm_conditions("fednorm.thm1", g, {"eta_cx": gm, "eta_cy": gm, "tau": 1, "P": P},
                               f"γ = {gm:g}, P = {P}") for gm, P in used]
    if params["part"] == "a":
        fit = loglog_slope(gammas, F[:, 1])
        return Measurement(fit.slope, (fit.lo, fit.hi), series=series,
                           evidence={**ev, "fit": fit.as_dict()}, run=run, conditions=runs)
    prof = F[-1, :-1] / F[-1, 0]
    zero_ok = bool(np.max(F[:, -1]) <= 1e-12 * np.max(F))
    ev.update(profile_measured=prof.tolist(), zero_at_P_eq_n=zero_ok)
    return Measurement(float(np.max(np.abs(prof - theory[:-1]))), series=series, evidence=ev,
                       run=run, checks=(Check("the floor vanishes at P = n", zero_ok),),
                       conditions=runs)


p9b = p9a.variant(
    "fednorm.p9b", seconds=1.7, title="Partial-participation floor scales as (n − P)/(P(n − 1)), zero at P = n",
    tolerance_why=("±0.05 is a modelling slack we chose for the small-step reading of the "
                   "profile; it is far looser than needed here: with identical client Hessians "
                   "and uniform p the profile is exact and the statistic is round-off (published "
                   "floor 2¹⁹ ε ≈ 1.2e-10; 2.9e-13 at the quick profile)."),
    prediction="floor(P)/floor(1) = (n − P)/(P(n − 1)); floor(n) = 0",
    source="Theorem 1, App. B.2 [L656]; proof of Lemma B.2, eqs. (18)–(19) [L773–L827]",
    provenance="extrapolation",
    derivation=("sampling P of n clients without replacement, the aggregate's noise variance is "
                "(n/P)(n − P)/(n − 1) Σ_i w_i²‖h_i‖² exactly (Lemma B.2, eqs. (18)–(19) "
                "[L773–L827]); to first order in γ the stationary floor is proportional to it, so "
                "floor(P)/floor(1) = (n − P)/(P(n − 1)) and floor(n) = 0 (small-step expansion), "
                "the shape of Theorem 1's partial-participation term [L656]. " + P9B_OUTSIDE),
    rule=Interval("predicted", 0.05),
    params={"part": "b", "predicted": 0.0, "sampling_law": "without replacement"},
    perturb={"predicted": 0.5},
    plants=(Plant({"sampling_law": "with replacement"},
                  why="plants the with-replacement profile 1/P, which drops the finite-"
                      "population factor (n − P)/(n − 1) of Lemma B.2: the exact floors follow "
                      "(n − P)/(P(n − 1)), so the deviation must exceed the tolerance"),),
    published=(_P9_FLOOR, Published(
        ("statistic",), floor=2**19 * EPS,
        why="zero in exact arithmetic (identical client Hessians and uniform p: the round's "
            "matrix does not depend on the client set, so floor(P)/floor(1) is the profile "
            "exactly); floors carrying errors ≲ 2¹² ε (above), divided by floor(1) ≳ 2⁻⁶ at "
            "the smallest γ: ≲ 2·2¹⁸ ε")))


@claim("fednorm.p10a", seconds=1.7, title="No local-step benefit under partial participation with "
       "heterogeneity (server steps beyond Corollary 1.2's conditions)",
       tolerance_why=("±0.2 on a slope in τ is a modelling slack we chose for reading a term of a"
                      " bound as the floor's scaling over τ = 1, 4, 16 at finite T; the interval "
                      "combines the three floors' 95% t-intervals over replicas (R = 32 quick, 64"
                      " full) by the delta method, plus the largest misfit residual. At the quick"
                      " profile (seeds 0/0) −0.048 [−0.123, 0.027] contains 0."),
       prediction="at fixed γ^s τ_eff with γ^s_y = 5γ^s_x (outside the corollary's step-size "
       "conditions), P < n and σ_G > 0, the error floor does not fall with τ (slope 0 in τ)",
       source="Corollary 1.2 [L203]; Table 2 and Section 5.1 [L183–L193]",
       provenance="extrapolation",
       derivation=("Corollary 1.2 [L203] and Table 2 [L183–L193]: under partial participation "
                   "with σ_G > 0 local steps bring no benefit, the partial-participation term "
                   "κ²(n−P)/(n−1) γ^s_y L_f E_w τ_eff σ_G²/P [L656] not falling with τ at fixed "
                   "γ^s τ_eff; " + P10_STEPS + ", Lemma B.3's 8τγ^s_x L_Φ max w (n/P)(n−P)/(n−1) "
                   "max{8β_G², 1} ≤ 1 (margin −0.49) and Lemma B.5's server cap τγ^s_y κL_f "
                   "β_G² (n/P) max{…} ≤ 1/64 (margin −0.084)"),
       theorems=("fednorm.cor1.2",), rule=Interval("predicted", 0.2),
       params={"P": 2, "sigma_G": 3.0, "predicted": 0.0, "T": 1500, "R": 32},
       profiles={"full": {"T": 6000, "R": 64}}, perturb={"P": 10, "sigma_G": 0.0},
       plants=(Plant({"P": 10, "sigma_G": 0.0},
                     why="full participation and no heterogeneity, outside the corollary's "
                         "P < n, σ_G > 0 regime: the floor is then local noise averaged over τ "
                         "steps and must fall with τ"),),
       figure=FigureSpec("Fed-Norm floor vs τ (P = 2 < n, σ_G = 3)", "τ", "stationary E‖∇Φ‖²",
                         logx=True))
def p10a(params: Params, seed: int) -> Measurement:
    """P10: slope in τ of the E‖∇Φ‖² floor from z* at fixed γ^s τ_eff (Cor 1.2, Table 2)."""
    T, R = params["T"], params["R"]
    pset = {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": params["sigma_G"]}
    g = make_game(pset, params["instance_seed"])
    tau_grid, ests, runs = [1, 4, 16], [], []
    for tau in tau_grid:
        cfg = {"eta_cx": 0.002 / tau, "eta_cy": 0.002 / tau, "gamma_sx": 0.02 / tau,
               "gamma_sy": 5 * (0.02 / tau), "tau": tau, "P": params["P"]}
        ests.append(stationary_floor(FEDNORM_SGDA.method(g, cfg), g, T, R, seed, record_every=10))
        runs.append(fednorm_conditions("fednorm.cor1.2", g, cfg, f"τ = {tau}"))
    fit, vals = loglog_slope_of_estimates(tau_grid, ests)  # delta-method CI over the τ points
    return Measurement(fit.slope, (fit.lo, fit.hi),
                       series={"measured": (tau_grid, vals.tolist())},
                       bands={"measured": (tau_grid, [e.lo for e in ests],
                                           [e.hi for e in ests])},
                       evidence={"taus": tau_grid, "floors": [e.as_dict() for e in ests],
                                 "rounds": T, "replicas": R},
                       run=RunConfig("fednorm-sgda", GAME, {**pset, **cfg}, T, R, seed),
                       conditions=runs)


p10b = p10a.variant(
    "fednorm.p10b", seconds=3.3, title="Local steps help under full participation (control for p10a)",
    tolerance_why=("±0.2 on a slope in τ is a modelling slack we chose for reading a term of a "
                   "bound as the floor's scaling over τ = 1, 4, 16 at finite T; the interval "
                   "combines the three floors' 95% t-intervals over replicas (R = 32 quick, 64 "
                   "full) by the delta method, plus the largest misfit residual. At the quick "
                   "profile (seeds 0/0) −1.012 [−1.068, −0.956] contains −1."),
    prediction="with P = n, σ_G = 0 and p10a's steps (outside the two-timescale condition) the "
    "local-noise floor falls ∝ 1/τ (slope −1)",
    source="Corollary 1.2 [L201]; the 1/τ slope is derived here from Theorem 1, App. B.2 [L656]",
    provenance="extrapolation",
    derivation=("with P = n and σ_G = 0 Theorem 1's noise term (App. B.2 [L656]) carries A_wσ_L², "
                "the local noise averaged over τ normalised local steps (∝ 1/τ by eq. (18)); "
                "reading that term as the floor gives slope −1 in τ (a bound read as the floor's "
                "scaling). As the control of p10a, " + P10_STEPS + " is the only condition that "
                "fails (those with (n−P)/(n−1) or β_L vanish at P = n, β_L = 0)"),
    params={"P": 10, "sigma_G": 0.0, "predicted": -1.0},
    perturb={"P": 2, "sigma_G": 3.0},
    plants=(Plant({"P": 2, "sigma_G": 3.0},
                  why="partial participation (P = 2 of 10) with heterogeneity σ_G = 3, outside "
                      "the control's P = n, σ_G = 0: the sampling floor does not fall with τ, "
                      "so the slope must leave −1"),),
    figure=FigureSpec("Fed-Norm floor vs τ (P = n, σ_G = 0)", "τ", "stationary E‖∇Φ‖²", logx=True))


# the Θ constant of Corollary 1.2's client steps η^c = Θ(1/(L_f τ√T)): 1/2 keeps the shortest
# horizon (T = 1000) inside Lemma B.5's cap η^c_x L_f β_G ≤ 1/(64κ√D) (1 fails it there)
P11_ETA = 0.5


@claim("fednorm.p11", seconds=3.5, title="NC-SC rate T^{-1/2} under the Cor 1.2 schedule",
       tolerance_why=("+0.1 on the slope is a modelling slack we chose for reading an O(T^{-1/2})"
                      " bound as the rate at finite T (1000–16000 quick); the interval is a 95% "
                      "t-interval of per-replica slopes (R = 8 quick). At the quick profile "
                      "(seeds 0/0) the slope is −0.474 with interval [−0.477, −0.471], entirely "
                      "above −1/2: the bound's slope is missed and only the tolerance (edge −0.4)"
                      " confirms."),
       prediction="(1/T) Σ E‖∇Φ(x_t)‖² = O(T^{-1/2}(nτ)^{-1/2}) under the corollary's schedule "
       "(Θ constants γ^s_y = 8√(P/(τT)), η^c = 1/(2L_fτ√T), inside its conditions at every T): "
       "log-log slope in T at most −1/2",
       source="Theorem 1 [L163]; Corollary 1.2 [L199–L203] and its proof, App. B.2 [L719]",
       provenance="paper",
       theorems=("fednorm.thm1", "fednorm.cor1.2"), rule=AtMost("predicted", 0.1),
       params={"predicted": -0.5, "Ts": (1000, 4000, 16000), "R": 8, "schedule": "cor1.2",
               "start": "z0"},
       profiles={"full": {"Ts": (1000, 4000, 16000, 64000), "R": 32}}, perturb={"predicted": -1.0},
       plants=(Plant({"schedule": "constant", "start": "saddle"},
                     why="drops Corollary 1.2's T-dependent schedule (every T runs the steps of "
                         "the shortest horizon), started at the saddle so no initial gap decays: "
                         "the average stays at the constant step's noise floor, so the slope in "
                         "T must rise above −1/2"),),
       figure=FigureSpec("Fed-Norm-SGDA, Cor 1.2 schedule: average ‖∇Φ‖² vs T", "T",
                         "(1/T) Σ E‖∇Φ(x_t)‖²", logx=True))
def p11(params: Params, seed: int) -> Measurement:
    """P11: slope in T under Cor 1.2's encoded schedule, γ^s_y = 8√(P/(τT)) and η^c = 1/(2L_f τ√T)
    (our Θ constants: every run inside the corollary's conditions)."""
    pset = {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "bxy": 0.5, "a_ratio": 1.0}  # σ_G = a = 1
    g = make_game(pset, params["instance_seed"])
    if params["start"] == "saddle":  # the plant: no initial gap to decay
        g = dataclasses.replace(g, z0=g.z_star())
    tau, P, Ts, R = 4, g.M, list(params["Ts"]), params["R"]
    avgs, per_rep, runs = [], [], []
    for T in Ts:
        T_s = Ts[0] if params["schedule"] == "constant" else T  # a plant: no T-dependence
        cfg = {**exact.cor12_steps(g, tau, T_s, 8.0 * math.sqrt(P / (tau * T_s))), "tau": tau}
        cfg.update(eta_cx=cfg["eta_cx"] * P11_ETA, eta_cy=cfg["eta_cy"] * P11_ETA)
        runs.append(fednorm_conditions("fednorm.cor1.2", g, cfg, f"T = {T}"))
        tr = simulate(FEDNORM_SGDA.method(g, cfg), T, replicas=R, seed=seed,
                      record_every=max(1, T // 500))
        per_rep.append(tr.metrics["grad_phi_sq"][:-1].mean(axis=0))
        avgs.append(float(tr.metrics["grad_phi_sq"][:-1].mean()))
    fit = replica_slope(np.array(Ts, float), np.array(per_rep).T)
    point_cis = [mean_ci(r) for r in per_rep]  # figure only: each T's replica interval
    return Measurement(
        fit.slope, (fit.lo, fit.hi), series={"measured": (Ts, avgs), "T^{-1/2} (anchored)": (
            Ts, [avgs[0] * math.sqrt(Ts[0] / t) for t in Ts])},
        bands={"measured": (Ts, [e.lo for e in point_cis], [e.hi for e in point_cis])},
        evidence={"T": Ts, "avg_grad_phi_sq": avgs, "fit": fit.as_dict(),
                  "kappa": g.constants["kappa"], "tau": tau, "n": P},
        run=RunConfig("fednorm-sgda", GAME, {**pset, **cfg}, Ts[-1], R, seed), conditions=runs,
        diverged=None if np.all(np.isfinite(avgs)) else "average ‖∇Φ‖² is not finite")


P20_SET = {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "p_skew": 0.3}  # base point
P20_ALG = {"tau": 1, "tau_max": 3, "P": 3}
P20_TS = tuple(int(t) for t in np.geomspace(100, 1e11, 20))  # horizons: past every transient
P20_RUN = (2000, 16)  # rounds and replicas of the Monte Carlo run the verdict reports
READING = ("Theorem 1 is an O(·) statement: its absolute constants are hidden. Encoded with "
           "constants 1 the bound is exceeded (observed/bound ≈ 40–70, ≤ 81 = γ^s_y/(γ^s_x κ²): "
           "Δ is charged at γ^s_y while x moves at γ^s_x ≤ γ^s_y/(81κ²)); that refutes only "
           "the constants 1. The O(·) fails only if observed/bound grows without limit along a "
           "direction, which is what the slopes test")


_P20_STEPS: dict = {}  # (theorem, condition inputs) → max-step steps: exact, so computed once


def p20_steps(thm: Any, inputs: dict[str, Fraction], cache: dict = _P20_STEPS
              ) -> tuple[dict[str, float], dict[str, str | None]]:
    """Theorem 1's max-step step sizes in the order of :func:`exact.thm1_steps` (γ^s_y, then
    γ^s_x, η^c_y, η^c_x, each the largest with every condition holding), computed once per
    theorem and set of condition inputs (σ_G and T do not enter the conditions; the
    condition inputs are read once, not per key as in :func:`exact.thm1_steps`). Each max-step
    is decided on the conditions with its symbol (:func:`exact_max_step`): the same values, without
    re-deciding exactly at every probe the tight condition an earlier step size binds."""
    names = set(engine.compiled(thm).condition_inputs)
    key = (thm.id, *sorted((k, v) for k, v in inputs.items() if k in names))
    if key not in cache:
        tiny = Fraction(1, 10**12)
        cur: dict[str, Fraction] = {"gamma_sx": tiny, "eta_cx": tiny, "eta_cy": tiny}
        binding: dict[str, str | None] = {}
        for name in ("gamma_sy", "gamma_sx", "eta_cy", "eta_cx"):
            cur.pop(name, None)
            ms = exact_max_step(thm, name, {k: v for k, v in {**inputs, **cur}.items()
                                            if k in names})
            if ms.value is None:
                raise ValueError(f"{thm.id}: no feasible {name} ({ms.binding})")
            cur[name], binding[name] = Fraction(ms.value), ms.binding
        cache[key] = ({k: float(v) for k, v in cur.items()}, binding)
    return cache[key]


def grad_phi_average(g: Any, config: dict[str, Any], P: int) -> Callable[[int], float]:
    """T ↦ exact (1/T) Σ_{t<T} E‖∇Φ(x_t)‖² of Fed-Norm-SGDA, in closed form.

    A round is affine in the model and the Gaussian draws for each set of P sampled clients
    (:func:`exact.noisy_affine_round`, additive noise), so the mean m_t and second moment X_t
    of z_t follow one affine recursion s_{t+1} = 𝒜 s_t + b of s = (m, vec X), averaged over
    the C(n, P) equally likely sets; ∇Φ(x) = Gx + h is affine, so E‖∇Φ(x_t)‖² = ℓ·s_t + ‖h‖².
    With s* the fixed point, Σ_{t<T} s_t = T s* + (I − 𝒜)⁻¹(I − 𝒜^T)(s_0 − s*)."""
    method = FEDNORM_SGDA.method(g, config)
    d, dx = g.d, g.dx
    maps = exact.noisy_affine_rounds(method, g, P)  # every client set, in combinations order
    size = d + d * d
    big = np.zeros((size, size))
    As = np.array([A for A, _, _ in maps])
    cs = np.array([c for _, c, _ in maps])
    big[:d, :d] = np.mean(As, axis=0)
    # the Kronecker products of every map at once (each entry one product, as np.kron):
    # vec(Amcᵀ + cmᵀAᵀ) = (A ⊗ c + c ⊗ A) m, linear in m, and A ⊗ A
    big[d:, :d] = np.mean((As[:, :, None, :] * cs[:, None, :, None]).reshape(-1, d * d, d)
                          + (cs[:, :, None, None] * As[:, None, :, :]).reshape(-1, d * d, d),
                          axis=0)
    big[d:, d:] = np.mean((As[:, :, None, :, None] * As[:, None, :, None, :]).reshape(
        -1, d * d, d * d), axis=0)
    b = np.concatenate([np.mean([c for _, c, _ in maps], axis=0),
                        np.mean([np.outer(c, c) + N @ N.T for _, c, N in maps],
                                axis=0).reshape(-1)])
    h = g.grad_phi(np.zeros((1, dx)))[0]
    G = np.stack([g.grad_phi(np.eye(dx)[i][None])[0] - h for i in range(dx)], axis=1)
    weight = np.zeros((d, d))
    weight[:dx, :dx] = G.T @ G
    ell = np.concatenate([np.pad(2 * G.T @ h, (0, d - dx)), weight.reshape(-1)])
    s0 = np.concatenate([g.z0, np.outer(g.z0, g.z0).reshape(-1)])
    eye = np.eye(size)
    s_star = np.linalg.solve(eye - big, b)

    def average(T: int) -> float:
        transient = np.linalg.solve(eye - big, (eye - np.linalg.matrix_power(big, int(T)))
                                    @ (s0 - s_star))
        return float(ell @ (s_star + transient / T) + h @ h)

    return average


def _p20_point(thm: Any, game: dict[str, Any], tau_max: int, params: Params
               ) -> tuple[dict[str, Any], dict[str, Fraction]]:
    """One grid point: the game, Theorem 1's max-step steps, observed/bound (the bound × κ^p,
    p = ``kappa_power``) at every horizon of ``Ts``, and its supremum over T (the grid's best
    horizon refined by golden-section search in log T between its neighbours); and the
    theorem's condition inputs there."""
    g = make_game({**P20_SET, **game}, params["instance_seed"])
    P = g.M // 2
    alg = {**P20_ALG, "tau_max": tau_max, "P": P}
    inputs = exact.thm1_inputs(g, taus(g, alg), P)
    steps, binding = p20_steps(thm, inputs)
    average = grad_phi_average(g, {**alg, **steps}, P)
    exact_steps = {k: Fraction(v) for k, v in steps.items()}
    planted = g.constants["kappa"] ** params["kappa_power"]
    point = {**inputs, **exact_steps}
    # T enters no condition: decided once here, not at every horizon
    at_conditions = {k: v for k, v in point.items()
                     if k in engine.compiled(thm).condition_inputs}
    conditions_hold, _ = engine.check(thm, at_conditions)
    bound_at = bound_along(thm, point, "T")

    def at(T: int) -> tuple[float, float]:
        return average(T), bound_at(Fraction(T)) * planted

    Ts = [int(T) for T in params["Ts"]]
    observed, bound = (np.array(v) for v in zip(*(at(T) for T in Ts), strict=True))
    top = int(np.argmax(observed / bound))
    lo, hi = math.log(Ts[max(top - 1, 0)]), math.log(Ts[min(top + 1, len(Ts) - 1)])
    best = (Ts[top], float(observed[top]), float(bound[top]))
    for _ in range(10):  # golden section on log T: the ratio is smooth and single-peaked here
        a, b = hi - 0.618 * (hi - lo), lo + 0.618 * (hi - lo)
        (oa, ba), (ob, bb) = at(round(math.exp(a))), at(round(math.exp(b)))
        lo, hi = (lo, b) if oa / ba >= ob / bb else (a, hi)
        for T, o, bd in ((round(math.exp(a)), oa, ba), (round(math.exp(b)), ob, bb)):
            if o / bd > best[1] / best[2]:
                best = (T, o, bd)
    return {"kappa": g.constants["kappa"], "n": g.M, "P": P, "tau_eff": float(inputs["tau_eff"]),
            "sigma_G": g.constants["sigma_G"], "tau_max": tau_max, "steps": steps,
            "binding": binding, "T": Ts, "observed": observed.tolist(), "bound": bound.tolist(),
            "conditions_hold": conditions_hold, "sup_T": best[0], "sup_observed": best[1],
            "sup_bound": best[2]}, at_conditions


@claim("fednorm.p20", seconds=2.5, title="Theorem 1's O(·) bound: the implied constant stays bounded over κ, "
       "n, τ, T and σ_G",
       tolerance_why=("rtol 1e-9 is the rule's default round-off guard: it moves slope_floor by "
                      "5e-11 and decides nothing; the slack that matters is slope_floor = 0.05 "
                      "itself, a slope we chose to read as 'not growing', compared with the lower"
                      " end of a 95% t-interval over each axis' last 3 points (exact "
                      "observations: misfit only)."),
       prediction="at Theorem 1's max-step step sizes (fednorm.thm1.corrected), the implied "
       "constant c = (1/T) Σ E‖∇Φ(x_t)‖² (exact) / the bound with its O(·) constants 1 does not "
       "grow without limit along κ (μ), n (P = n/2), τ (τ_i = 1..τ_max), T or σ_G: on the far "
       "end of each axis the log-log slope's interval does not lie above slope_floor (c is the "
       "supremum over T along the other axes); the largest c and where are reported",
       source="Theorem 1 [L163–L167] and its App. B.2 bound [L656], an O(·) statement with "
       "absolute constants; its conditions with Lemma B.1's L_Φ corrected (erratum "
       "lemmaB1-L_Phi)",
       provenance="erratum", errata=("lemmaB1-L_Phi",),
       theorems=("fednorm.thm1", "fednorm.thm1.corrected"),
       rule=UpperBound("slope_floor", end="lower"),
       params={"mus": (1.0, 1 / 4, 1 / 16, 1 / 64), "Ms": (4, 6, 8, 10),
               "tau_maxes": (1, 3, 9, 27), "sigma_Gs": (0.25, 1.0, 4.0, 16.0), "Ts": P20_TS,
               "tail": 3, "slope_floor": 0.05, "max_width": 2.0, "kappa_power": 0.0},
       profiles={"full": {"mus": tuple(2.0**-k for k in range(9)),
                          "sigma_Gs": (0.25, 1.0, 4.0, 16.0, 64.0),
                          "Ts": tuple(int(t) for t in np.geomspace(100, 1e14, 26))}},
       perturb={"kappa_power": -1.0, "Ms": (6, 8), "tau_maxes": (3, 9), "sigma_Gs": (1.0, 4.0)},
       plants=(Plant({"kappa_power": -1.0, "Ms": (6, 8), "tau_maxes": (3, 9),
                      "sigma_Gs": (1.0, 4.0)},
                     why="plants a bound missing a factor κ (the encoded bound × κ^−1): the "
                         "implied constant must then grow along κ, which the slope test sees"),),
       figure=FigureSpec("Fed-Norm-SGDA: implied constant of Theorem 1's O(·) bound per "
                         "direction (max-step steps)", "value / base value",
                         "observed / bound (O(·) constants 1)", logx=True))
def p20(params: Params, seed: int) -> Measurement:
    """P20: observed/bound along κ, n, τ, σ_G (sup over T) and T (at the base point), from exact
    averages; :func:`implied_constant` decides. ``kappa_power`` plants a factor κ^p in the bound
    (p = −1: a bound missing a factor κ, which the contract test must see refuted)."""
    thm = registry.get("fednorm.thm1.corrected")  # L_Φ = (1 + κ)L_f (erratum to Lemma B.1 [L628])
    base = {"mu": 1.0, "M": P20_SET["M"], "tau_max": P20_ALG["tau_max"],
            "sigma_G": P20_SET["sigma_G"]}
    knobs = {"kappa": ("mu", params["mus"]), "n": ("M", params["Ms"]),
             "tau_eff": ("tau_max", params["tau_maxes"]),
             "sigma_G": ("sigma_G", params["sigma_Gs"])}
    rows: dict[str, list[dict[str, Any]]] = {}
    runs: dict[tuple, RunConditions] = {}  # each distinct grid point (the base is on every axis)

    def point(q: dict[str, Any], where: str) -> dict[str, Any]:
        row, at_conditions = _p20_point(
            thm, {"mu": q["mu"], "M": q["M"], "sigma_G": q["sigma_G"]}, q["tau_max"], params)
        runs.setdefault(tuple(sorted(q.items())), RunConditions(thm.id, at_conditions, where))
        return row

    for direction, (knob, values) in knobs.items():
        for value in values:
            q = {**base, knob: value}
            rows.setdefault(direction, []).append(point(q, f"{direction}: {knob} = {value:g}"))
    base_row = point(base, "base point")
    axes = {d: Axis(tuple(r[d] for r in rs), tuple(r["sup_observed"] for r in rs),
                    tuple(r["sup_bound"] for r in rs)) for d, rs in rows.items()}
    axes["T"] = Axis(tuple(float(T) for T in base_row["T"]), tuple(base_row["observed"]),
                     tuple(base_row["bound"]))
    ic = implied_constant(axes, tail=params["tail"], slope_floor=params["slope_floor"],
                          max_width=params["max_width"])
    series = {f"along {d}": ((np.array(a.x) / a.x[0]).tolist(), a.constants.tolist())
              for d, a in axes.items() if d != "T"}
    series["along T (base point)"] = ((np.array(axes["T"].x) / axes["T"].x[0]).tolist(),
                                      axes["T"].constants.tolist())
    cfg = {**P20_ALG, **base_row["steps"]}
    return ic.measurement(
        series=series, hlines={"largest implied constant": ic.largest},
        evidence={"grid": rows, "base": base_row, "theorem": thm.id, "reading": READING,
                  "kappa_power": params["kappa_power"]},
        checks=(Check("the conditions hold at every grid point",
                      all(r["conditions_hold"] for rs in rows.values() for r in rs),
                      "inconclusive"),),
        run=RunConfig("fednorm-sgda", GAME, {**P20_SET, **cfg}, *P20_RUN, seed),
        conditions=list(runs.values()))
