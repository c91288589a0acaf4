"""Claims of SAGDA / FSGDA (P1–P12, P15, and our P16) on min-max quadratic games:
exact round maps where affine (P1, P9), Monte Carlo with replica intervals (P2, P4–P8, P9d, P10,
P16), the theorems' conditions through the engine (P11, P12, P15). Each run reports its inputs
to the conditions of the theorem it tests (:func:`run_at`); P5–P7, P9a–P9c and P10 run where
those conditions fail and are read as extrapolations beyond the theorem.

Seeds: every game is built from the instance seed (``params["instance_seed"]``); stochastic
gradients, client sampling, replicas and the random test points of P1 and P3 come from the noise
seed. P4's z_t is part of the instance: its generator and the noise's walk in lockstep (the
noise generator skips the z_t draw), so both seeds 0 draw what one seed drew before."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fedbounds import engine, registry
from fedbounds.complexity import schedule_values
from fedbounds.problems.minmax import make_game
from fedbounds.problems.sagda import (
    INPUTS_NOTE,
    PHI_TEST_GAMES,
    abstract_inputs,
    theorem_inputs,
)
from fedbounds.verify.algorithm import Algorithm, simulate
from fedbounds.verify.algorithms.sagda import FSGDA, SAGDA_I, SAGDA_II, local_phase, steps_for
from fedbounds.verify.claim import (
    AtMost,
    FigureSpec,
    Interval,
    LowerBound,
    Measurement,
    Predictions,
    RunConfig,
    UpperBound,
    claim,
)
from fedbounds.verify.conditions import RunConditions
from fedbounds.verify.exact import sagda as exact
from fedbounds.verify.fitting import (
    Estimate,
    loglog_slope,
    loglog_slope_of_estimates,
    mean_ci,
    replica_slope,
    running_average,
)
from fedbounds.verify.minmax import stationary_floor
from fedbounds.verify.perturbation import Plant
from fedbounds.verify.publication import EPS, Published

QUADRATIC = "minmax-quadratic"
NOISY_HOMOGENEOUS = {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 0.0}
ALGORITHMS = (FSGDA, SAGDA_I, SAGDA_II)  # option 0, 1, 2

PREDICTIONS = Predictions(
    "sagda", 15, "the numbered checkable predictions of the paper's theorems, corollaries, "
    "lemmas and experiments: claims p1–p15 test them; higher numbers are additions")


def _floor(alg: Algorithm, g: Any, config: dict[str, Any], T: int, R: int, seed: int
           ) -> Estimate:
    return stationary_floor(alg.method(g, config), g, T, R, seed)


STEPS = ("eta_xl", "eta_yl", "eta_xg", "eta_yg")


def run_at(theorem: str, g: Any, K: int, m: int, config: Mapping[str, Any], where: str,
           **more: Any) -> RunConditions:
    """A run's inputs to ``theorem``'s conditions (:mod:`fedbounds.verify.conditions`): the
    game's exact L_f, μ and M, the run's K, m and four step sizes, and ``more`` (T for a
    corollary); names the theorem does not have are left out."""
    k = g.constants
    values = {**abstract_inputs(k["L_f"], k["mu"], K, g.M, m),
              **{s: config[s] for s in STEPS}, **more}
    names = engine.compiled(registry.get(theorem)).names
    return RunConditions(theorem, {n: v for n, v in values.items() if n in names}, where)


@claim("sagda.p1", title="Effective-rate identity η_x = η_{x,l}η_{x,g} (no K)",
       prediction="one round moves x by −η_{x,l}η_{x,g}K × (average local direction), y by "
                  "+η_{y,l}η_{y,g}K × (average), for FSGDA and both SAGDA options (machine "
                  "precision)",
       source="remark after Theorem 1 [L174]; Appendix B.1 update rule [L512–L513]",
       provenance="consistency",
       no_conditions="an identity of the round map that holds at any step sizes: it checks our "
                     "FSGDA and SAGDA implementations against the paper's update rule (a "
                     "mismatch is an implementation bug), no theorem's prediction",
       rule=Interval("predicted", 1e-10), params={"predicted": 0.0, "rate_K": 0},
       perturb={"predicted": 1.0},
       plants=(Plant({"rate_K": 1}, why="predicts the move with one local step (η_x = "
                     "η_{x,l}η_{x,g}, no factor K and no drift): the K = 3 round must disagree"),),
       tolerance_why=("tol 1e-10: round-off only. The identity is exact for the affine round, and "
                      "one round (K = 3, 4 clients, d = 4, entries ≲ 10) agrees with its "
                      "predicted move to ≲ 2⁶ε ≈ 1.4·10⁻¹⁴ relative (see published); 1e-10 is our "
                      "generous margin above that, far below the 0.65 of the one-local-step "
                      "plant. The statistic (4.4·10⁻¹⁶ at the quick profile) is not 0 itself, so "
                      "the verdict rests on this round-off tolerance."),
       figure=FigureSpec("Effective-step identity: max relative error per algorithm",
                         "option (0 = FSGDA)", "max |Δz − (∓η_lη_gK·avg direction)|",
                         kind="scatter"),
       published=(Published(
           ("max_rel_error", "statistic", "figure"), floor=2**6 * EPS,
           why="zero in exact arithmetic (the identity is exact for an affine round): one round "
               "(K = 3 local steps, 4 clients, d = 4) on entries of magnitude ≲ 10 and its "
               "predicted move agree to ≲ 2⁶ε relative to max(1, |Δz|)"),))
def p1(params: Mapping[str, Any], seed: int) -> Measurement:
    """One round (m < M, σ = 0, K = 3) from 5 random z_t (:func:`exact.effective_step_error`)."""
    pset = {"M": 6, "sigma_G": 2.0}
    g = make_game(pset, params["instance_seed"])
    cfg = {"eta_xl": 0.03, "eta_yl": 0.05, "eta_xg": 1.7, "eta_yg": 2.3, "K": 3, "m": 4}
    Z = np.random.default_rng([seed, 1]).standard_normal((5, g.d))
    S = np.array([0, 2, 3, 5])
    model = {**cfg, "K": params["rate_K"]} if params["rate_K"] else cfg  # the identity's K
    rows = [{"algorithm": alg.name, "max_rel_error": exact.effective_step_error(
        alg.method(g, cfg), g, Z, S, model, option)} for option, alg in enumerate(ALGORITHMS)]
    worst = max(r["max_rel_error"] for r in rows)
    return Measurement(worst, series={"error": ([0, 1, 2], [max(r["max_rel_error"], 1e-18)
                                                             for r in rows])},
                       evidence={"per_algorithm": rows, "config": cfg, "S_t": S.tolist(),
                                 "points": int(Z.shape[0])},
                       run=RunConfig("sagda1", QUADRATIC, {**pset, **cfg}, rounds=1, seed=seed))


@claim("sagda.p2", title="SAGDA Option II at K = 1 equals FSGDA",
       prediction="identical iterates under shared random streams (the control variates cancel)",
       source="derived here: Algorithm 1 Option II and Algorithm 2 at K = 1 (update rules of "
              "Appendices B.1 and B.3 [L517–L518, L803–L804])", rule=Interval("predicted", 1e-12),
       provenance="consistency",
       no_conditions="at K = 1 Option II's control variates are computed at the same point as "
                     "the local gradient and cancel in the update rule of Appendix B.3 "
                     "[L803–L804], which then equals FSGDA's (Appendix B.1 [L517–L518]) step for "
                     "step at any step sizes: an exact property of the algorithms that checks "
                     "our implementations (a difference is a bug), no theorem's prediction",
       params={"predicted": 0.0, "T": 300, "R": 8, "option": 2},
       profiles={"full": {"T": 3000, "R": 32}}, perturb={"predicted": -1.0},
       plants=(Plant({"option": 1}, why="compares FSGDA with Option I, whose control variates "
                     "are stale (kept from earlier rounds) and do not cancel at K = 1: the "
                     "iterates must differ"),),
       tolerance_why=("tol 1e-12: round-off only. The two algorithms' iterates are equal in exact "
                      "arithmetic at K = 1 and the contracting recursion keeps their float64 "
                      "difference ≲ 2⁹ε ≈ 1.1·10⁻¹³ (see published); 1e-12 is our margin of about "
                      "10× above that, far below the ≈ 1 of the Option I plant. The statistic "
                      "(1.9·10⁻¹⁵ at the quick profile) is not 0 itself, so the verdict rests on "
                      "this round-off tolerance."),
       figure=FigureSpec("SAGDA-II vs FSGDA at K = 1: |Δ‖∇Φ‖²| per round", "round",
                         "|difference|"),
       published=(
           Published(("max_abs_iterate_diff", "statistic"), floor=2**9 * EPS,
                     why="zero in exact arithmetic (the control variates cancel at K = 1): each "
                         "round the two updates differ by the rounding of sums of terms ≲ 10 "
                         "(σ_G = 5, unit noise) times steps ≤ 0.1, and the contracting recursion "
                         "keeps iterates of magnitude ≲ 2 within ≲ 2⁹ε of each other"),
           Published(("figure",), floor=2**15 * EPS,
                     why="zero in exact arithmetic: |Δ‖∇Φ‖²| ≤ 2‖∇Φ‖‖G‖‖Δz‖ with ‖∇Φ‖ ≲ 7, "
                         "‖G‖ ≤ 2 and ‖Δz‖ ≤ 2·2⁹ε (the iterates' rounding floor): ≲ 2¹⁵ε")))
def p2(params: Mapping[str, Any], seed: int) -> Measurement:
    """Max |z_FSGDA − z_SAGDA-II| over rounds and replicas (m < M, noisy)."""
    pset = {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 5.0}
    g = make_game(pset, params["instance_seed"])
    cfg = {"eta_xl": 0.01, "eta_yl": 0.05, "eta_xg": 2.0, "eta_yg": 2.0, "K": 1, "m": 3}
    T, R = params["T"], params["R"]
    other = ALGORITHMS[params["option"]]
    a, b = (simulate(alg.method(g, cfg), T, replicas=R, seed=seed) for alg in (FSGDA, other))
    stat = float(np.max(np.abs(a.state.z - b.state.z)))
    d = np.abs(a.metrics["grad_phi_sq"] - b.metrics["grad_phi_sq"]).max(axis=1)
    return Measurement(stat, series={"max over replicas": (a.iterations.tolist(),
                                                           np.maximum(d, 1e-18).tolist())},
                       evidence={"max_abs_iterate_diff": stat, "rounds": T, "replicas": R},
                       run=RunConfig("sagda2", QUADRATIC, {**pset, **cfg}, T, R, seed))


@claim("sagda.p3", title="Constants of Φ: ‖∇²Φ‖ ≤ L_f + L_f²/μ and the PL error bound",
       prediction="on quadratic games ‖∇²Φ‖ ≤ L and ‖∇Φ(x) − ∇_x f(x, y)‖² ≤ (L_f²/μ²)‖∇_y f(x, "
                  "y)‖²: every measured/theoretical ratio ≤ 1",
       source="Section 3, smoothness of Φ [L88]; proof of Lemma 2, Appendix B.1 [L556–L560]",
       provenance="paper",
       no_conditions="an exact evaluation of Φ's Hessian and of the error bound at random points "
                     "of the games: the statements need Assumptions 1–2 only (no algorithm run, "
                     "no step sizes)",
       rule=UpperBound("scale"),
       params={"scale": 1.0, "points": 2000, "constant_scale": 1.0},
       profiles={"full": {"points": 20000}}, perturb={"scale": 0.1},
       plants=(Plant({"constant_scale": 0.5}, why="plants constants half the paper's (L and "
                     "L_f²/μ² × 1/2): the exact Hessian norm or error bound must exceed them"),),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off only, on ratios of float64 "
                      "evaluations (a 2-norm of the exact Hessian of Φ by SVD, and the error "
                      "bound at random points) to the closed-form constants, each within ~10²ε; "
                      "the quick worst ratio 0.607 is far below 1."),
       figure=FigureSpec("Constants of Φ: measured / theoretical", "game",
                         "ratio (≤ 1 predicted)", logy=False, kind="scatter"))
def p3(params: Mapping[str, Any], seed: int) -> Measurement:
    """Largest lhs/rhs over games and random points (:func:`exact.phi_constant_ratios`)."""
    rows = []
    for name, q in PHI_TEST_GAMES:
        g = make_game(q, params["instance_seed"])
        k = g.constants
        ratios = exact.phi_constant_ratios(g, params["points"], seed)
        if params["constant_scale"] != 1.0:  # a planted constant: c·L and c·L_f²/μ²
            ratios = {n: v / params["constant_scale"] if n.endswith("ratio") else v
                      for n, v in ratios.items()}
        rows.append({"game": name, "set": q, "L_f": k["L_f"], "mu": k["mu"], "L": k["L"],
                     **ratios})
    worst = max(max(r["hess_ratio"], r["error_bound_max_ratio"]) for r in rows)
    ids = list(range(len(rows)))
    return Measurement(worst, series={
        "‖∇²Φ‖ / L": (ids, [r["hess_ratio"] for r in rows]),
        "max error-bound ratio": (ids, [r["error_bound_max_ratio"] for r in rows])},
        hlines={"prediction": params["scale"]},
        evidence={"games": rows, "points_per_game": params["points"]},
        run=RunConfig("fsgda", QUADRATIC, PHI_TEST_GAMES[2][1], rounds=10, seed=seed))


@claim("sagda.p4", title="Lemma-level Monte Carlo: Lemma 1, Lemma 4 drift, client-sampling bound",
       prediction="at a fixed z_t, E‖z^j_{t,i} − z_t‖² ≤ drift_i_F (every j ≤ K + 1), E‖u_x‖² ≤ "
                  "2‖∇_x f‖² + 2(1 − m/M)σ_{x,G}²/m and E‖u_x − e_x‖² ≤ 4E‖ē_x‖² + 4E‖u_x‖² + "
                  "2σ_x²/(mK) (x and y): every lhs/rhs ≤ 1",
       source="Lemma 1 [L526–L536], proof of Lemma 4 [L603] and proof of Theorem 2 [L640] "
              "(Appendix B.1)", theorems=("sagda.thm2",),
       provenance="paper",
       no_conditions="one local phase at a fixed z_t, no server step: Lemma 1, Lemma 4 and the "
                     "sampling bound assume only the local-drift condition (7), which the run "
                     "meets by construction (η_l at 0.9× its cap); the registry has no entry for "
                     "these lemmas, and Theorem 2's (8)–(9) constrain server steps the run does "
                     "not take",
       rule=UpperBound("scale", end="lower"), params={"scale": 1.0, "R": 4000, "rhs_scale": 1.0},
       profiles={"full": {"R": 40000}}, perturb={"scale": 0.1},
       plants=(Plant({"rhs_scale": 0.25}, why="plants the lemmas' right sides at a quarter of "
                     "the paper's (a wrong constant): the measured moments must exceed them"),),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off only, on float64 ratios lhs/rhs. "
                      "The Monte Carlo confidence is not in the rtol but in the end compared: "
                      "mean − 3 standard errors over R replicas (4000 quick, 40 000 full), while "
                      "the sampling checks are exact over all C(M, m) subsets."),
       figure=FigureSpec("Lemma-level checks at a fixed z_t: lhs / rhs", "check",
                         "lhs/rhs (≤ 1 predicted)", kind="scatter"))
def p4(params: Mapping[str, Any], seed: int) -> Measurement:
    """FSGDA, M = 6, m = 3, K = 4, σ = 1, σ_G = 2, η_l at 0.9× the cap of (7): largest lhs/rhs;
    violated only if (mean − 3 SE)/rhs > scale (:func:`exact.lemma_checks`)."""
    R = params["R"]
    pset = {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 2.0}
    g = make_game(pset, params["instance_seed"])
    m, K = 3, 4
    eta = 0.9 * exact.drift_cap(K, g.constants["L_f"])
    zt = np.random.default_rng([params["instance_seed"], 4]).standard_normal(g.d)
    rng = np.random.default_rng([seed, 4])
    rng.standard_normal(g.d)  # the draw that is z_t's in the instance stream
    checks = exact.lemma_checks(g, zt, m, K, eta, *local_phase(g, zt, eta, K, R, rng), rng)
    if params["rhs_scale"] != 1.0:  # a planted constant in the lemmas' right sides
        checks = [{**c, "rhs": c["rhs"] * params["rhs_scale"],
                   "ratio": c["ratio"] / params["rhs_scale"],
                   "lower_ratio": c["lower_ratio"] / params["rhs_scale"]} for c in checks]
    stat = max(c["ratio"] for c in checks)
    lo = max(c["lower_ratio"] for c in checks)
    names = sorted({c["check"] for c in checks})
    return Measurement(stat, interval=(lo, stat), series={
        n: (list(range(sum(c["check"] == n for c in checks))),
            [c["ratio"] for c in checks if c["check"] == n]) for n in names},
        hlines={"prediction": params["scale"]},
        evidence={"checks": checks, "eta_l": eta, "K": K, "m": m, "M": g.M, "replicas": R,
                  "z_t": zt.tolist(), "max_lower_ratio": lo},
        run=RunConfig("fsgda", QUADRATIC, {**pset, "eta_xl": eta, "eta_yl": eta, "K": K, "m": m},
                      rounds=1, seeds=R, seed=seed))


@claim("sagda.p5", seconds=4.3, title="Rate O(1/√(mKT)) vs T under the Cor 1/2 schedule (m = M)",
       prediction="(1/T) Σ E‖∇Φ(x_t)‖² decays like T^{-1/2}: log-log slope at most −1/2 "
                  "(flatter than −0.4 refutes), at the schedule's steps, where Corollary 2's "
                  "conditions (8)–(9) fail (an extrapolation)",
       source="Corollary 1 [L178–L180], Corollary 2 [L234–L236]",
       provenance="extrapolation",
       derivation=("the runs take Corollary 2's schedule (c_x = 0.05, c_y = 25κ²c_x, local steps "
                   "at their cap 1/((mT)^{1/4}K^{5/4}), K = 4, m = M = 4), where Corollary 2's "
                   "conditions fail at every T: margins of (8) −1.75, −0.686, −0.258 and of (9) "
                   "−0.136, −0.0583, −0.0231 at T = 1000, 4000, 16000 (−0.0704 and −0.00625 at "
                   "T = 64000, full profile): local steps at the cap are too large for the "
                   "descent conditions, whose margins shrink as T grows. Corollary 1's (12)–(13) "
                   "and Option II's own (15)–(16) fail there too. The O(1/√(mKT)) rate is the "
                   "corollaries' prediction taken at these steps"),
       theorems=("sagda.cor1", "sagda.cor2"), rule=AtMost("slope", 0.1),
       params={"slope": -0.5, "Ts": (1000, 4000, 16000), "R": 8, "extra_decay": 0.0},
       profiles={"full": {"Ts": (1000, 4000, 16000, 64000), "R": 32}}, perturb={"slope": -1.0},
       plants=(Plant({"extra_decay": 0.5}, why="plants a wrong schedule: local steps shrink "
                     "like T^{-3/4} instead of T^{-1/4}, so the optimization term ∝ 1/(ηT) "
                     "falls only like T^{-1/4}: the measured slope must be flatter than −1/2"),),
       tolerance_why=("±0.1 (edge −0.4): a modelling slack chosen by us for reading the "
                      "corollaries' O(1/√(mKT)) upper bound as a rate fitted over T = 1000–16000, "
                      "at steps where their conditions fail. The measured slope −0.490, 95% "
                      "interval over 8 replicas [−0.4925, −0.4882], is flatter than −1/2 itself: "
                      "only the tolerance confirms."),
       figure=FigureSpec("SAGDA Option II (m = M), Cor 1/2 schedule: average ‖∇Φ‖² vs T", "T",
                         "(1/T) Σ E‖∇Φ(x_t)‖²", logx=True))
def p5(params: Mapping[str, Any], seed: int) -> Measurement:
    """SAGDA Option II, m = M = 4, K = 4, steps from the encoded Corollary 2 schedule (c_x = 0.05,
    c_y/c_x = 25κ² > 20κ²); slope of the replica averages vs T."""
    pset = {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "bxy": 0.5, "a_ratio": 1.0}
    g = make_game(pset, params["instance_seed"])
    k = g.constants["kappa"]
    m, K, cx = g.M, 4, 0.05
    Ts, R = list(params["Ts"]), params["R"]

    def schedule(T: int) -> dict[str, Any]:
        steps = schedule_values(registry.get("sagda.cor2"), {
            "c_x": cx, "c_y": 25 * k**2 * cx, "m": m, "K": K, "T": T})
        if params["extra_decay"]:  # a planted schedule: local steps × (T_0/T)^extra_decay
            f = (Ts[0] / T) ** params["extra_decay"]
            steps = {**steps, "eta_xl": steps["eta_xl"] * f, "eta_yl": steps["eta_yl"] * f}
        return {**steps, "K": K, "m": m}

    per_rep, avgs = [], []
    for T in Ts:
        tr = simulate(SAGDA_II.method(g, schedule(T)), T, replicas=R, seed=seed,
                      record_every=max(1, T // 500))
        gp = tr.metrics["grad_phi_sq"][:-1]
        per_rep.append(gp.mean(axis=0))
        avgs.append(float(gp.mean()))
    conditions = [run_at("sagda.cor2", g, K, m, schedule(T), f"T = {T}", T=T) for T in Ts]
    fit = replica_slope(np.array(Ts, float), np.array(per_rep).T)
    point_cis = [mean_ci(r) for r in per_rep]  # figure only: each T's replica interval
    return Measurement(fit.slope, interval=(fit.lo, fit.hi), series={
        "measured": (Ts, avgs), "T^{-1/2} (anchored)": (Ts, [avgs[0] * math.sqrt(Ts[0] / t)
                                                             for t in Ts])},
        bands={"measured": (Ts, [e.lo for e in point_cis], [e.hi for e in point_cis])},
        evidence={"T": Ts, "avg_grad_phi_sq": avgs, "fit": fit.as_dict(), "kappa": k,
                  "c_y/c_x": 25 * k**2},
        diverged=None if np.all(np.isfinite(avgs)) else "a trajectory average is not finite",
        run=RunConfig("sagda2", QUADRATIC, {**pset, **schedule(Ts[-1])}, Ts[-1], R, seed),
        conditions=conditions)


# why the floor claims (p6a, p6b) run outside the conditions (the steps of the noisy game)
FLOOR_STEPS = ("inside Theorem 2's (8)–(9) γ_x must fall below ≈ 4·10⁻⁴ (and γ_y below ≈ 0.04), "
               "where x relaxes over 1/(γ_xλ_min(∇²Φ)) ≈ 1700 rounds, more than the quick "
               "profile's 1200: the runs keep steps at which the floor is reached and resolved")


@claim("sagda.p6a", seconds=3.0, title="Linear speedup in K (full participation)",
       prediction="at fixed γ_x = η_xK, γ_y and small η_l the noise floor ∝ 1/(mK): slope −1 in "
                  "K, at steps where Corollary 2's conditions (8)–(9) fail (an extrapolation)",
       source="Corollaries 1 and 2 [L180–L182, L236–L238]", theorems=("sagda.cor1", "sagda.cor2"),
       provenance="extrapolation",
       derivation=("FSGDA at fixed γ_x = η_xK = 0.01, γ_y = 0.5, η_g = 20, m = M = 10, K ∈ {1, 4, "
                   "16}: Corollary 2's conditions (Theorem 2's, for FSGDA) fail at every K with "
                   "margins (8) −0.0563 and (9) −0.308 (at fixed γ they do not depend on K): "
                   "η_y/η_x = 50 barely exceeds 20κ² = 45 and γ_y = 0.5 is far above what (9) "
                   "allows; " + FLOOR_STEPS),
       rule=Interval("slope", 0.15),
       params={"vary": "K", "slope": -1.0, "T": 1200, "R": 32, "sigma_G": 0.0, "m": 10},
       profiles={"full": {"T": 5000, "R": 64}}, perturb={"slope": 0.0},
       plants=(Plant({"sigma_G": 10.0, "m": 2}, why="adds heterogeneity σ_G = 10 under client "
                     "sampling (m = 2 of 10), whose sampling floor does not fall with K at "
                     "fixed γ: the floor must stop scaling like 1/K"),),
       tolerance_why=("±0.15 on a slope: a modelling slack chosen by us for reading the bound's "
                      "1/(mK) statistical term as the floor's exact scaling in K, at finite steps "
                      "outside the conditions; the interval (delta method over each floor's 95% "
                      "interval over 32 replicas, 64 full, plus the largest misfit residual) "
                      "carries the noise. Quick: −0.989 [−1.057, −0.921], which contains −1."),
       figure=FigureSpec("FSGDA noise floor vs K (γ_x = 0.01, γ_y = 0.5, η_g = 20)", "K",
                         "stationary E‖∇Φ‖²", logx=True))
def p6a(params: Mapping[str, Any], seed: int) -> Measurement:
    """FSGDA noise floor at fixed per-round steps: vs K at m = M, or vs m at K = 1 (σ_G = 0)."""
    T, R, lab = params["T"], params["R"], params["vary"]
    pset = {**NOISY_HOMOGENEOUS, "sigma_G": params["sigma_G"]}
    g = make_game(pset, params["instance_seed"])
    xs = [1, 4, 16] if lab == "K" else [2, 5, 10]
    Km = [(v, params["m"]) if lab == "K" else (1, v) for v in xs]
    ests = [_floor(FSGDA, g, {**steps_for(0.01, 0.5, 20.0, K), "m": m}, T, R, seed) for K, m in Km]
    theorem = "sagda.cor2" if lab == "K" else "sagda.cor1"  # full participation; Corollary 1
    conditions = [run_at(theorem, g, K, m, steps_for(0.01, 0.5, 20.0, K), f"{lab} = {x}", T=T)
                  for x, (K, m) in zip(xs, Km, strict=True)]
    fit, vals = loglog_slope_of_estimates(xs, ests)
    slope, lo, hi = fit.slope, fit.lo, fit.hi
    return Measurement(slope, interval=(lo, hi), series={
        "measured": (xs, vals.tolist()), "∝ 1/" + lab: (xs, [vals[0] * xs[0] / x for x in xs])},
        bands={"measured": (xs, [e.lo for e in ests], [e.hi for e in ests])},
        evidence={lab: xs, "floors": [e.as_dict() for e in ests], "ci": [lo, hi], "rounds": T,
                  "replicas": R},
        run=RunConfig("fsgda", QUADRATIC, {**pset, **steps_for(
            0.01, 0.5, 20.0, Km[-1][0]), "m": Km[-1][1] if lab == "K" else 2}, T, R, seed),
        conditions=conditions)


p6b = p6a.variant("sagda.p6b", title="Linear speedup in m (σ_G = 0)",
                  prediction="floor ∝ 1/m at K = 1: slope −1 in m, at steps where Corollary 1's "
                             "conditions (11)–(13) fail (an extrapolation)",
                  source="Corollary 1 and the remark after it [L180–L182]",
                  provenance="extrapolation",
                  derivation=(
                      "FSGDA at K = 1, γ_x = 0.01, γ_y = 0.5, η_g = 20, m ∈ {2, 5, 10} of M = 10: "
                      "Corollary 1's conditions fail at every m, with margins (11) −62.8, −13.2, "
                      "−7.66, (12) −0.0087, −0.0011, −0.00025 and (13) −24.2, −5.23, −3.12 at "
                      "m = 2, 5, 10; Theorem 2's, FSGDA's own, fail too ((8) −0.0563, (9) "
                      "−0.308); " + FLOOR_STEPS),
                  theorems=("sagda.cor1",), params={"vary": "m"},
                  plants=(Plant({"sigma_G": 1.0}, why="adds heterogeneity σ_G = 1, whose "
                                "sampling floor ∝ (1 − m/M)/m vanishes at m = M: the floor "
                                "must fall faster than 1/m"),),
                  tolerance_why=("±0.15 on a slope: a modelling slack chosen by us for reading "
                                 "the bound's 1/(mK) statistical term as the floor's exact "
                                 "scaling in m, at finite steps outside the conditions; the "
                                 "interval (delta method over each floor's 95% interval over 32 "
                                 "replicas, 64 full, plus the largest misfit residual) carries "
                                 "the noise. Quick: −1.053 [−1.155, −0.951], which contains −1."),
                  figure=FigureSpec("FSGDA noise floor vs m (γ_x = 0.01, γ_y = 0.5, η_g = 20)",
                                    "m", "stationary E‖∇Φ‖²", logx=True))


@claim("sagda.p7", title="SAGDA Option I is heterogeneity-free",
       prediction="the trajectory-averaged ‖∇Φ‖² of Option I does not change with σ_G (m < M, "
                  "σ = 0), at steps where Theorem 1-I's conditions (10)–(13) fail (an "
                  "extrapolation)",
       source="Table 1, SAGDA row 'BGD not needed' [L46]; Theorem 1 Option I, no σ_G "
              "[L154]",
       provenance="extrapolation",
       derivation=("SAGDA Option I at γ_x = 0.01, γ_y = 0.5, η_g = 2, K = 4, m = 2 of M = 10: "
                   "Theorem 1 Option I's conditions fail at every σ_G (they do not contain it), "
                   "with margins (10) −4.91, (11) −1216, (12) −0.0599, (13) −152; at M/m = 5 "
                   "they admit only η_yK of order 10⁻⁴ (claim sagda.p15), where 400 rounds "
                   "barely move x. The bound's freedom from σ_G is the theorem's "
                   "prediction taken at steps where the trajectory moves (the control variates "
                   "cancel the clients' linear terms at any step size)"),
       theorems=("sagda.thm1.opt1",), rule=Interval(0.0, 1e-6),
       params={"algorithm": "sagda1", "T": 400, "R": 8}, profiles={"full": {"T": 4000, "R": 16}},
       perturb={"algorithm": "fsgda"},
       plants=(Plant({"algorithm": "fsgda"}, why="drops the control variates (FSGDA), whose "
                     "client drift and sampling error grow with σ_G: the average must change "
                     "with σ_G"),),
       tolerance_why=("tol 1e-6 on a relative spread: round-off, with a margin chosen by us. "
                      "Option I's averages are equal in exact arithmetic and within ≲ 2⁴ε·10³ "
                      "≈ 3.6·10⁻¹² (see published; 9.4·10⁻¹⁵ measured, not 0 itself, so only the "
                      "tolerance confirms); 1e-6 is not derived, just ~10⁵× above that and ~10⁹× "
                      "below FSGDA's spread (≈ 3·10³)."),
       figure=FigureSpec("Average ‖∇Φ‖² vs heterogeneity (M = 10, m = 2, σ = 0)", "σ_G",
                         "(1/T) Σ ‖∇Φ(x_t)‖²", logx=True),
       published=(Published(
           ("relative_spread", "statistic"), floor=2**4 * EPS * 1e3,
           why="zero in exact arithmetic for Option I (its control variates cancel the clients' "
               "linear terms, of magnitude ∝ σ_G ≤ 10³, at every local step); that cancellation "
               "leaves a rounding error ≲ εσ_G per step, so the trajectory averages agree to "
               "≲ 2⁴ε·10³ relative"),))
def p7(params: Mapping[str, Any], seed: int) -> Measurement:
    """Relative spread over σ_G ∈ {0, 10, 100, 1000} of ``algorithm``'s trajectory average."""
    T, R = params["T"], params["R"]
    sGs = [0.0, 10.0, 100.0, 1000.0]
    cfg = {**steps_for(0.01, 0.5, 2.0, 4), "m": 2}
    avg: dict[str, list[float]] = {"sagda1": [], "fsgda": []}
    theorem = {"sagda1": "sagda.thm1.opt1", "fsgda": "sagda.thm2"}[params["algorithm"]]
    conditions = []
    for sG in sGs:
        g = make_game({"M": 10, "sigma_G": sG}, params["instance_seed"])
        conditions.append(run_at(theorem, g, 4, 2, cfg, f"σ_G = {sG:g}"))
        for alg in (SAGDA_I, FSGDA):
            tr = simulate(alg.method(g, cfg), T, replicas=R, seed=seed)
            avg[alg.name].append(float(tr.metrics["grad_phi_sq"][:-1].mean()))
    got = avg[params["algorithm"]]
    stat = float(max(abs(v - got[0]) for v in got) / got[0])
    xs = [max(s, 1.0) for s in sGs]
    return Measurement(stat, series={"SAGDA Option I": (xs, avg["sagda1"]),
                                     "FSGDA": (xs, avg["fsgda"])},
                       evidence={"sigma_G": sGs, "sagda1_avg": avg["sagda1"],
                                 "fsgda_avg": avg["fsgda"], "relative_spread": stat},
                       run=RunConfig(params["algorithm"], QUADRATIC, {"M": 10, "sigma_G": 1000.0,
                                                                      **cfg}, T, R, seed),
                       conditions=conditions)


@claim("sagda.p8a", seconds=3.4, title="Theorem 1 Option II bound under partial participation (m < M)",
       prediction="with σ = 0, (1/T) Σ E‖∇Φ(x_t)‖² ≤ 2(L_0 − L_*)/(η_xKT) whatever σ_G (printed "
                  "Thm 1-II)", source="Theorem 1, Option II [L168]",
       provenance="paper",
       theorems=("sagda.thm1.opt2",), errata=("thm1-opt2-sampling",),
       rule=AtMost("reference"), params={"m": 2, "bound_scale": 1.0, "T": 20000, "R": 8},
       profiles={"full": {"R": 16}}, perturb={"bound_scale": 0.5},
       plants=(Plant({"bound_scale": 0.05}, why="plants the Theorem 1-II bound at 1/20 of its "
                     "value (a wrong constant in the encoded bound, which the measure scales): "
                     "the run must exceed it"),),
       figure=FigureSpec("SAGDA Option II, M = 10, σ_G = 100, σ = 0", "round t",
                         "running average of ‖∇Φ(x_t)‖²", logx=True))
def p8a(params: Mapping[str, Any], seed: int) -> Measurement:
    """SAGDA Option II, scalar game, M = 10, σ_G = 100, σ = 0: replica CI of the trajectory
    average vs Theorem 1-II's bound (exact 𝓛_0 − 𝓛_*) × bound_scale (erratum
    thm1-opt2-sampling: fails for m < M)."""
    T, R, m = params["T"], params["R"], params["m"]
    pset = {"M": 10, "dx": 1, "dy": 1, "a_ratio": 1.0, "sigma_G": 100.0, "x0": 1.0, "y0": 0.0}
    g = make_game(pset, params["instance_seed"])
    cfg = {"eta_xl": 2e-4, "eta_yl": 1e-2, "eta_xg": 1.0, "eta_yg": 1.0, "K": 1, "m": m}
    method = SAGDA_II.method(g, cfg)
    tr = simulate(method, T, replicas=R, seed=seed,
                  observe={"grad_phi_sq": method.observe["grad_phi_sq"]})
    est = mean_ci(tr.metrics["grad_phi_sq"][:-1].mean(axis=0))
    inputs = theorem_inputs(g, 1, m)
    bound = exact.theorem_bound(registry.get("sagda.thm1.opt2"), inputs, cfg, T).value
    conditions = [run_at("sagda.thm1.opt2", g, 1, m, cfg, f"m = {m}")]
    return Measurement(est.value, interval=(est.lo, est.hi),
                       reference=bound * params["bound_scale"],
                       series={"measured": running_average(tr.metrics["grad_phi_sq"].mean(axis=1),
                                                            200)},
                       hlines={"Theorem 1-II bound at T": bound},
                       evidence={"estimate": est.as_dict(), "bound": bound,
                                 "D0": float(inputs["D_0"]), "L_f": g.constants["L_f"]},
                       diverged="the run diverged" if tr.diverged else None,
                       run=RunConfig("sagda2", QUADRATIC, {**pset, **cfg}, T, R, seed),
                       conditions=conditions)


p8b = p8a.variant("sagda.p8b", seconds=3.1, title="Theorem 1 Option II bound under full participation (m = M)",
                  prediction="the same bound with m = M",
                  source="Theorem 1, Option II [L168] (control at m = M)",
                  provenance="paper",
                  errata=(), params={"m": 10}, perturb={"m": 2})


@claim("sagda.p9a", title="FSGDA heterogeneity bias ∝ K²η_l² at fixed γ (m = M)",
       prediction="halving η_l (doubling η_g) cuts the σ_G part of the floor 4×: slope 2 in η_l",
       source="Theorem 2, ψ3 [L221, L225]", theorems=("sagda.thm2",),
       provenance="extrapolation",
       derivation=("Theorem 2's ψ3 [L221, L225] charges heterogeneity ∝ K²η_l²σ_G² at fixed γ = "
                   "η_lη_gK; reading that term as the σ_G part of the floor, halving η_l (doubling "
                   "η_g) cuts it 4×: slope 2 in η_l (a bound read as the bias's scaling). The "
                   "fixed points are taken at γ_x = 0.05, γ_y = 0.5, K = 4, m = M = 10, where "
                   "Theorem 2's conditions fail at every η_l: (9) by −10.4, −3.11, −1.28, "
                   "−0.817 and (8) by −1.97, −1.24, −1.06, −1.01 at η_l = 0.01, 0.005, 0.0025, "
                   "0.00125 (η_y/η_x = 10 is below 20κ² = 68.7, so (9) fails at any η_l), and "
                   "(7) by −22.1, −4.77, −0.443 at the three larger η_l. The exact fixed point "
                   "exists at any stable steps; the scaling is the bound's term read there"),
       rule=Interval("slope", 0.15), params={"slope": 2.0}, perturb={"slope": 1.0},
       tolerance_why=("±0.15 on a slope: a modelling slack chosen by us for reading ψ3's K²η_l² "
                      "term, a bound, as the bias's exact scaling; the fixed points are exact, so "
                      "the OLS 95% interval over the four η_l is misfit (higher order in η_l), "
                      "not noise. Quick: slope 2.19, interval [1.98, 2.41], which contains 2 "
                      "though the slope itself misses it by more than 0.15."),
       figure=FigureSpec("FSGDA (m = M) fixed-point bias vs η_l at fixed γ", "η_{x,l}",
                         "‖∇Φ(x_fp)‖²", logx=True))
def p9a(params: Mapping[str, Any], seed: int) -> Measurement:
    """Exact fixed points of FSGDA (σ = 0, identical Hessians: no drift bias) at γ_x = 0.05,
    γ_y = 0.5, K = 4 and η_l halving; log-log slope of ‖∇Φ(x_fp)‖² in η_l."""
    pset = {"M": 10, "sigma_G": 3.0, "hess_spread": 0.3}
    g = make_game(pset, params["instance_seed"])
    K, gx, gy = 4, 0.05, 0.5
    els = np.array([0.01, 0.005, 0.0025, 0.00125])
    bias = [exact.fixed_point_grad_phi_sq(FSGDA.method(g, steps_for(gx, gy, gx / (el * K), K)), g)
            for el in els]
    conditions = [run_at("sagda.thm2", g, K, g.M, steps_for(gx, gy, gx / (el * K), K),
                      f"η_l = {el:g}") for el in els]
    fit = loglog_slope(els, np.array(bias))
    return Measurement(fit.slope, interval=(fit.lo, fit.hi),
                       series={"exact": (els.tolist(), bias)},
                       evidence={"eta_l": els.tolist(), "bias": bias, "fit": fit.as_dict(), "K": K},
                       run=RunConfig("fsgda", QUADRATIC, {**pset, **steps_for(
                           gx, gy, gx / (els[-1] * K), K)}, 20000, 1, seed),
                       conditions=conditions)


def _sampling_floor(sigma_G: float, K: int, seed: int, instance_seed: int, where: str,
                    gamma_scale: float = 1.0) -> tuple[float, RunConfig, RunConditions]:
    """Exact stationary E‖∇Φ‖² of FSGDA, m = 2 of M = 5, σ = 0, γ = (0.02, 0.2)·``gamma_scale``,
    η_g = 50, the run that reproduces it, and its inputs to Theorem 2's conditions."""
    pset = {"M": 5, "sigma_G": sigma_G}
    g = make_game(pset, instance_seed)
    cfg = {**steps_for(0.02 * gamma_scale, 0.2 * gamma_scale, 50.0, K), "m": 2}
    return (exact.sampling_floor(FSGDA.method(g, cfg), g, 2),
            RunConfig("fsgda", QUADRATIC, {**pset, **cfg}, 20000, 64, seed),
            run_at("sagda.thm2", g, K, 2, cfg, where))


# why the exact sampling floors (p9b, p9c) are an extrapolation
SAMPLING_STEPS = ("the exact floors of FSGDA at γ_x = 0.02, γ_y = 0.2, η_g = 50, m = 2 of M = 5 "
                  "lie where Theorem 2's conditions fail at every σ_G and K: (8) by −0.212 and "
                  "(9) by −0.295 (η_y/η_x = 10 is below 20κ² = 45, so (9) fails at any "
                  "η_l); the exact floor exists at any stable steps, and the ψ4 term is read "
                  "there")


@claim("sagda.p9b", title="FSGDA sampling floor linear in σ_G² (m < M)",
       prediction="the extra floor ∝ γ_x(1 − m/M)σ_{x,G}²/m: slope 1 in σ_G²",
       source="Theorem 2, ψ4 [L221, L226]", theorems=("sagda.thm2",),
       provenance="extrapolation",
       derivation=("Theorem 2's ψ4 [L221, L226] charges client sampling γ_x(1 − m/M)σ_{x,G}²/m; "
                   "reading it as the extra floor of FSGDA under partial participation gives slope "
                   "1 in σ_G² (a bound read as the floor's scaling); " + SAMPLING_STEPS),
       errata=("thm2-psi4-factor2",), rule=Interval("slope", 0.1), params={"slope": 1.0},
       perturb={"slope": 2.0},
       tolerance_why=("±0.1 on a slope: a modelling slack chosen by us for reading ψ4, a bound "
                      "term, as the floor's scaling in σ_G². The floors are exact, and at the "
                      "quick profile the slope is 1 to ~10⁻¹³ (OLS interval of four exact "
                      "points), so the tolerance is not used there."),
       figure=FigureSpec("FSGDA (m = 2 < M = 5) exact sampling floor vs σ_G²", "σ_G²",
                         "stationary E‖∇Φ‖²", logx=True))
def p9b(params: Mapping[str, Any], seed: int) -> Measurement:
    """Exact sampling floors (all C(5, 2) client sets) at K = 1 for σ_G ∈ {1, 2, 4, 8}."""
    sGs = np.array([1.0, 2.0, 4.0, 8.0])
    floors = [_sampling_floor(s, 1, seed, params["instance_seed"], f"σ_G = {s:g}") for s in sGs]
    fl = np.array([f for f, _, _ in floors])
    fit = loglog_slope(sGs**2, fl)
    return Measurement(fit.slope, interval=(fit.lo, fit.hi),
                       series={"exact": ((sGs**2).tolist(), fl.tolist())},
                       evidence={"sigma_G": sGs.tolist(), "floors": fl.tolist(),
                                 "fit": fit.as_dict()}, run=floors[-1][1],
                       conditions=[c for _, _, c in floors])


@claim("sagda.p9c", title="FSGDA sampling floor independent of K at fixed γ (m < M)",
       prediction="no speedup in K under partial participation (Cor 3), at steps where Theorem "
                  "2's conditions (8)–(9) fail (an extrapolation)",
       source="Corollary 3 and the remark after it [L244–L246]",
       provenance="extrapolation",
       derivation=("Corollary 3's rate O(1/√(mT)) has no K, so at fixed γ the sampling floor of "
                   "FSGDA should not fall with K; " + SAMPLING_STEPS),
       theorems=("sagda.thm2", "sagda.cor3"),
       rule=Interval("predicted", 0.1), params={"predicted": 0.0, "fixed": "gamma"},
       perturb={"predicted": 1.0},
       plants=(Plant({"fixed": "eta_l"}, why="holds η_l (not γ = η_lη_gK) fixed, so γ grows "
                     "with K and the sampling floor ∝ γ with it: the floor must change with "
                     "K"),),
       tolerance_why=("tol 0.1 on max |log floor(K)/floor(1)| (a 10% change): a modelling slack "
                      "chosen by us, since Corollary 3's rate has no K but does not say the floor "
                      "at finite steps is exactly K-free. The floors are exact and the quick "
                      "statistic 4.1·10⁻⁴ is not 0: only the tolerance confirms (the fixed-η_l "
                      "plant gives 1.49)."),
       figure=FigureSpec("FSGDA (m = 2 < M = 5) exact sampling floor vs K at fixed γ", "K",
                         "stationary E‖∇Φ‖²", logx=True))
def p9c(params: Mapping[str, Any], seed: int) -> Measurement:
    """max_K |log floor(K)/floor(1)| over K ∈ {1, 2, 4} at σ_G = 4 (exact floors)."""
    Ks = [1, 2, 4]
    floors = [_sampling_floor(4.0, K, seed, params["instance_seed"], f"K = {K}",
                              gamma_scale=K if params["fixed"] == "eta_l" else 1.0) for K in Ks]
    fl = np.array([f for f, _, _ in floors])
    stat = float(np.max(np.abs(np.log(fl / fl[0]))))
    return Measurement(stat, series={"exact": (Ks, fl.tolist())},
                       evidence={"K": Ks, "floors": fl.tolist(),
                                 "statistic": "max |log floor(K)/floor(1)|"}, run=floors[-1][1],
                       conditions=[c for _, _, c in floors])


# (name, problem set, m, theorem whose max-step steps are used); K = 2, η_l = 10⁻⁴/(K L_f)
P9D_RUNS = [("deterministic, m = M", {"M": 10, "sigma_G": 0.0}, 10, "sagda.thm2"),
            ("σ = 1, σ_G = 3, m = 2 < M", {"M": 10, "sigma_x": 1.0, "sigma_y": 1.0,
                                           "sigma_G": 3.0}, 2, "sagda.thm2")]
P16_SET = {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0}
P16_RUNS = [("printed steps, M/m = 2", P16_SET, 2, "sagda.thm1.opt1"),
            ("corrected steps, M/m = 2", P16_SET, 2, "sagda.thm1.opt1.corrected")]
BOUND_CLAIMS: dict[str, tuple[list[tuple[str, dict, int, str]], Algorithm, tuple[str, str]]] = {
    "thm2": (P9D_RUNS, FSGDA, ("sagda.thm2", "sagda.thm2.corrected")),
    "thm1.opt1": (P16_RUNS, SAGDA_I, ("sagda.thm1.opt1", "sagda.thm1.opt1.corrected"))}


@claim("sagda.p9d", seconds=1.5,
       title="Theorem 2 bound holds for FSGDA at max-step steps (printed and corrected)",
       prediction="with η from engine.max_step on sagda.thm2 and exact L_f, μ, σ, σ_G, 𝓛_0 − 𝓛_*, "
                  "the measured (1/T) Σ E‖∇Φ(x_t)‖² is at most the Theorem 2 bound, printed "
                  "(L_f/100, ψ4) and corrected (L_f/10, 2ψ4): observed/bound ≤ 1",
       source="Theorem 2 [L211–L226], printed and as derived in its proof (Appendix B.1 "
              "[L630–L649])",
       provenance="paper",
       theorems=("sagda.thm2", "sagda.thm2.corrected"), errata=("thm2-lf100", "thm2-psi4-factor2"),
       rule=UpperBound("bound_scale", end="lower"),
       params={"theorem": "thm2", "bound_scale": 1.0, "T": 3000, "R": 8, "bound_constant": 1.0},
       profiles={"full": {"T": 20000, "R": 32}}, perturb={"bound_scale": 0.01},
       plants=(Plant({"bound_constant": 0.01}, why="plants the encoded bounds (printed and "
                     "corrected) at 1/100 of their value, a wrong constant in the theorem the "
                     "measure compares against: the runs must exceed them"),),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off only, on observed/bound, a "
                      "float64 replica average over a bound the engine evaluates from exact "
                      "inputs. The Monte Carlo confidence is in the end compared, mean − 3 "
                      "standard errors over R replicas (8 quick, 32 full; exact in a "
                      "deterministic run)."),
       figure=FigureSpec("FSGDA at max-step steps vs Theorem 2 (printed, corrected)", "round t",
                         "running average of E‖∇Φ(x_t)‖²", logx=True),
       published=(
           Published(("sigma_xG", "sigma_yG"), floor=2**5 * EPS,
                     why="zero in exact arithmetic at σ_G = 0 (every client's linear term is "
                         "b₀): the weighted spread of M = 10 equal vectors of norm ≲ 3 about "
                         "their weighted mean is ≲ Mε‖b₀‖ ≤ 2⁵ε"),
           Published(("local update psi_3",), floor=2**-16 * (2**5 * EPS) ** 2,
                     why="zero in exact arithmetic in the deterministic run (σ = σ_G = 0): ψ3 = "
                         "80K²η_l²L_f²(a_3 + a_4η_y/η_x)(σ_{x,G}² + σ_{y,G}²) there, a "
                         "coefficient ≲ 2⁻¹⁷ at η_l = 10⁻⁴/(KL_f), times σ_G's at their "
                         "rounding floor 2⁵ε")))
def p9d(params: Mapping[str, Any], seed: int) -> Measurement:
    """Runs at max-step steps (:data:`exact.STEP_RULE`) against the printed and corrected
    bounds: max observed/bound where conditions hold; violated if (mean − 3 SE)/bound > scale."""
    runs, alg, theorems = BOUND_CLAIMS[params["theorem"]]
    T, R, K = params["T"], params["R"], 2
    rows, series, hlines, conditions = [], {}, {}, []
    for name, pset, m, steps_from in runs:
        g = make_game(pset, params["instance_seed"])
        inputs = theorem_inputs(g, K, m)
        steps, binding = exact.max_steps(registry.get(steps_from), inputs,
                                         1e-4 / (K * g.constants["L_f"]))
        cfg = {**steps, "K": K, "m": m}
        tr = simulate(alg.method(g, cfg), T, replicas=R, seed=seed)
        per = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
        obs, se = float(per.mean()), float(per.std(ddof=1) / math.sqrt(per.size))
        row = {"name": name, "steps_from": steps_from, "set": pset, "K": K, "m": m, "M": g.M,
               "steps": steps, "binding": binding, "observed": obs, "observed_se": se,
               "gamma_x": steps["eta_xl"] * steps["eta_xg"] * K,
               "gamma_y": steps["eta_yl"] * steps["eta_yg"] * K, "diverged": tr.diverged,
               "inputs": {n: float(v) for n, v in inputs.items()},
               **exact.bound_entries(inputs, steps, T, theorems, obs / params["bound_constant"],
                                     se / params["bound_constant"])}  # ratios to c·bound
        rows.append(row)
        if row[theorems[0]]["conditions_hold"]:  # the printed statement's runs: its reading
            conditions.append(run_at(theorems[0], g, K, m, steps, name))
        series[f"{name}: running average"] = running_average(
            tr.metrics["grad_phi_sq"].mean(axis=1), 150)
        hlines.update({f"{name}: {tid} at T": row[tid]["bound"] for tid in theorems})
    tested = [r[t] for r in rows for t in theorems if r[t]["conditions_hold"]]
    worst, lo, hi = (max((x[k] for x in tested), default=v) for k, v in (
        ("ratio", 0.0), ("lower_ratio", -math.inf), ("upper_ratio", -math.inf)))
    own_ok = all(r[t]["conditions_hold"] for r in rows for t in theorems if r["steps_from"] == t)
    return Measurement(worst, interval=(lo, hi), series=series, hlines=hlines, evidence={
        "runs": rows, "rounds": T, "replicas": R, "inputs_note": INPUTS_NOTE,
        "step_rule": exact.STEP_RULE, "max_ratio": worst, "max_lower_ratio": lo,
        "bound_scale": params["bound_scale"]},
        diverged="a run diverged" if any(r["diverged"] for r in rows) else None,
        inconclusive=None if own_ok else "a theorem's conditions fail at its own max-step steps",
        run=RunConfig(alg.name, QUADRATIC, {**runs[-1][1], **cfg}, T, R, seed),
        conditions=conditions)


p16 = p9d.variant(
    "sagda.p16", seconds=2.9, title="Theorem 1 Option I bound holds at max-step steps (printed and corrected)",
    prediction="with η from engine.max_step on sagda.thm1.opt1 (resp. .corrected), M/m = 2 "
               "and exact constants, the measured (1/T) Σ E‖∇Φ(x_t)‖² of SAGDA Option I is at "
               "most the Theorem 1-I bound (the step sizes and the test instance are ours): "
               "observed/bound ≤ 1",
    source="Theorem 1 Option I [L141–L158] (printed; corrected as in its proof, Appendix B.2 "
           "[L789], and Lemma 5 [L673–L680])",
    provenance="paper",
    theorems=("sagda.thm1.opt1", "sagda.thm1.opt1.corrected"),
    errata=("thm1-opt1-a2-replaced", "lemma5-coefficient"), params={"theorem": "thm1.opt1"},
    figure=FigureSpec("SAGDA Option I at max-step steps vs Theorem 1-I (printed, corrected)",
                      "round t", "running average of E‖∇Φ(x_t)‖²", logx=True),
    published=())  # p9d's floors are for its deterministic run (σ = σ_G = 0); none here


@claim("sagda.p10", seconds=3.0,
       title="SAGDA Option I floor ∝ 1/K under partial participation, beyond Theorem 1-I's "
             "conditions",
       prediction="Thm 1-I statistical term ∝ γ_x/(mK) read as the floor: slope −1 in K at "
                  "fixed γ, m = 2 < M = 10, at steps where Theorem 1-I's conditions (11)–(13) "
                  "fail (an extrapolation: the bound itself holds there)",
       source="Theorem 1 Option I, statistical error [L154]; Lemma 7 [L724–L737]",
       provenance="extrapolation",
       derivation=("the statistical term of Theorem 1 Option I [L154] is ∝ γ_x/(mK) at fixed "
                   "γ_x = η_xK, γ_y; read as the exact K-scaling of the stationary floor it "
                   "predicts slope −1 in K. The runs (γ_x = 0.01, γ_y = 0.5, η_g = 20, m = 2 of "
                   "M = 10, K ∈ {1, 4, 16}) fail the theorem's conditions at every K, with "
                   "margins (11) −62.8, (12) −0.0087, (13) −24.2 (at fixed γ they do not depend "
                   "on K); at M/m = 5 the conditions admit only η_yK of order 10⁻⁴ (claim "
                   "sagda.p15), where no floor is reached in the runs' rounds. There the bound, "
                   "≈ 900, 235, 68 at K = 1, 4, 16 (T = 1200), lies far above the measured "
                   "floors (≈ 0.017, 0.009, 0.008): a flat floor refutes the scaling read off "
                   "the term, not the theorem"),
       theorems=("sagda.thm1.opt1",),
       errata=("thm1-opt1-a2-replaced", "lemma7-noise"), rule=Interval("slope", 0.15),
       params={"slope": -1.0, "T": 1200, "R": 32, "sigma_G": 0.0, "algorithm": "sagda1"},
       profiles={"full": {"T": 5000, "R": 64}}, perturb={"slope": 0.5},
       plants=(Plant({"algorithm": "fsgda", "sigma_G": 10.0}, why="drops the control variates "
                     "(FSGDA) and adds heterogeneity σ_G = 10 under client sampling (m = 2 of "
                     "10), whose sampling floor does not fall with K at fixed γ: the floor "
                     "must stay far from ∝ 1/K"),),
       tolerance_why=("±0.15 on a slope: a modelling slack chosen by us (as in sagda.p6a) for "
                      "reading the 1/(mK) statistical term as the floor's exact K-scaling, "
                      "outside the conditions; the interval (delta method over each floor's 95% "
                      "interval over 32 replicas, 64 full, plus the largest misfit residual) "
                      "carries the noise. Quick: −0.273 [−0.487, −0.060], refuted."),
       figure=FigureSpec("Noise floor vs K at fixed γ, m = 2 < M = 10", "K", "stationary E‖∇Φ‖²",
                         logx=True))
def p10(params: Mapping[str, Any], seed: int) -> Measurement:
    """Stationary floors of SAGDA Option I (and FSGDA, shown) vs K ∈ {1, 4, 16}; our earlier
    runs measured them flat (stale noisy control variates, erratum lemma7-noise)."""
    T, R = params["T"], params["R"]
    pset = {**NOISY_HOMOGENEOUS, "sigma_G": params["sigma_G"]}
    g = make_game(pset, params["instance_seed"])
    Ks = [1, 4, 16]
    cfgs = [{**steps_for(0.01, 0.5, 20.0, K), "m": 2} for K in Ks]
    alg = {"sagda1": SAGDA_I, "fsgda": FSGDA}[params["algorithm"]]
    ests = [_floor(alg, g, cfg, T, R, seed) for cfg in cfgs]
    fs = [_floor(FSGDA, g, cfg, T, R, seed).value for cfg in cfgs]  # shown, not decided on
    conditions = [run_at("sagda.thm1.opt1", g, K, 2, cfg, f"K = {K}")
                  for K, cfg in zip(Ks, cfgs, strict=True)]
    fit, vals = loglog_slope_of_estimates(Ks, ests)
    slope, lo, hi = fit.slope, fit.lo, fit.hi
    return Measurement(slope, interval=(lo, hi), series={
        "SAGDA Option I": (Ks, vals.tolist()), "FSGDA": (Ks, fs),
        "∝ 1/K (Thm 1-I)": (Ks, [vals[0] / K for K in Ks])},
        bands={"SAGDA Option I": (Ks, [e.lo for e in ests], [e.hi for e in ests])},
        evidence={"K": Ks, "floors_sagda1": [e.as_dict() for e in ests], "floors_fsgda": fs,
                  "ci": [lo, hi]},
        run=RunConfig(alg.name, QUADRATIC, {**pset, **cfgs[-1]}, T, R, seed),
        conditions=conditions)


@claim("sagda.p11", title="Theorem 1 Option I admissible steps shrink as (M/m)^-2",
       prediction="a_2 ∼ (M/m)² in conditions (11)–(13): the max-step γ_y = η_yK has log-log "
                  "slope −2 in M/m",
       source="Theorem 1 Option I, eqs. (11)–(13) and a_2 [L148–L152]",
       provenance="derived",
       derivation=("in conditions (11)–(13) [L148–L152] the coefficient a_2 grows like (M/m)², and "
                   "the binding condition is linear in γ_y·a_2 for small steps, so the largest "
                   "admissible γ_y = η_yK falls like (M/m)^-2 (asymptotically in M/m; computed from"
                   " the encoded conditions)"),
       theorems=("sagda.thm1.opt1", "sagda.thm1.opt1.corrected"),
       errata=("thm1-opt1-a2-replaced", "lemma5-coefficient"), rule=Interval("slope", 0.1),
       params={"slope": -2.0}, perturb={"slope": -1.0},
       no_conditions="an analysis of the encoded conditions (11)–(13) (max-step caps over M/m "
                     "and the statistical terms at common steps): no algorithm is run",
       tolerance_why=("±0.1 on a slope: a modelling slack chosen by us, as (M/m)^-2 holds only "
                      "asymptotically in M/m and the fit runs at M/m = 10–100 on caps computed "
                      "without noise. The quick slope −2.027, OLS 95% interval [−2.045, −2.010] "
                      "(misfit of four exact points), misses −2 itself: only the tolerance "
                      "confirms."),
       figure=FigureSpec("Theorem 1-I: largest admissible γ_y vs M/m", "M/m", "γ_y cap",
                         logx=True))
def p11(params: Mapping[str, Any], seed: int) -> Measurement:
    """Max-step γ_y cap over M/m ∈ {10, 20, 50, 100}; evidence: printed vs corrected statistical
    term at common steps for M/m ∈ {1, 1.5, 2, 5, 10} (the printed one has no M/m)."""
    el, K, m, Ms = 1e-6, 2, 2, [20, 40, 100, 200]
    caps = exact.option1_gamma_y_caps(1.5, 1.0, K, m, Ms, el)
    r = np.array(Ms, float) / m
    fit = loglog_slope(r, np.array(caps))
    # common steps: the corrected max-step steps at M/m = 10 satisfy both statements for every
    # M/m ≤ 10 (a_2 grows with M/m and the conditions tighten monotonically in a_2)
    steps, _binding = exact.max_steps(registry.get("sagda.thm1.opt1.corrected"),
                                abstract_inputs(1.5, 1.0, K, 20, m), el)
    comp = exact.option1_statistical_terms(1.5, 1.0, K, m, [2, 3, 4, 10, 20], steps, 10**4)
    return Measurement(fit.slope, interval=(fit.lo, fit.hi), series={
        "max-step (printed conditions)": (r.tolist(), caps),
        "∝ (M/m)^-2": (r.tolist(), [caps[0] * (r[0] / x) ** 2 for x in r])},
        evidence={"M/m": r.tolist(), "gamma_y_cap": caps, "fit": fit.as_dict(),
                  "printed_vs_corrected": comp,
                  "note": "corrected 2a_2 exceeds the printed (L + L_f/10) + 4 once M/m > "
                          "(1 + √3)/2 (Lemma 5 fixed; (1 + √5)/2 unfixed, erratum "
                          "thm1-opt1-a2-replaced)"})


P12_CASES = [(1.5, 1.0, 1, 10, 5), (1.5, 1.0, 4, 10, 5), (2.0, 0.5, 2, 10, 10),
             (10.0, 1.0, 2, 4, 2)]  # (L_f, μ, K, M, m)
P12_THMS = ("sagda.thm2", "sagda.thm1.opt1", "sagda.thm1.opt1.corrected", "sagda.thm1.opt2")


@claim("sagda.p12", seconds=2.1, title="Two-time-scale requirement η_y/η_x > 20L_f²/μ²",
       prediction="the conditions of Theorems 1-I, 1-II and 2 admit no η_x with η_y/η_x ≤ 20κ² "
                  "(max-step ratio /(20κ²) ≥ 1, → 1 for small steps)",
       source="Theorem 1, eqs. (13) and (16), and Theorem 2, eq. (9) [L150, L164, L217]",
       provenance="consistency",
       no_conditions="in conditions (13), (16) and (9) [L150, L164, L217] the only positive term "
                     "against 20L_f²/μ²·η_x is η_y, so each is violated when η_y/η_x ≤ 20κ²: the "
                     "claim checks the encoded conditions' max-step against that (exact: a "
                     "refutation would mean a theorem's conditions are misread); the FSGDA run "
                     "in its evidence is shown, not decided on",
       theorems=P12_THMS,
       rule=LowerBound("predicted", 1e-9), params={"predicted": 1.0}, perturb={"predicted": 1.5},
       tolerance_why=("rtol 1e-9: round-off only. The ratio tends to 1 from above at small steps; "
                      "the max-step η_x is bisected to adjacent floats and the forced ratio 20κ² "
                      "is a float evaluation of the closed form, so the statistic carries a few ε; "
                      "the quick minimum 1.0006 clears 1 by 6·10⁻⁴."),
       figure=FigureSpec("Two-time-scale: (η_y/η_x at the largest admissible η_x)/(20κ²)",
                         "case", "ratio (≥ 1 predicted)", logy=False, kind="scatter"),
       published=(Published(
           ("grad_phi_sq_start_end",), floor=(2**6 * EPS) ** 2,
           why="the end value is zero in exact arithmetic (identical Hessians: FSGDA's fixed "
               "point is the saddle point, where ∇Φ = 0); converged iterates leave ∇Φ = Gx + g₀ "
               "at the rounding of terms ≲ 5 in 2 coordinates, ‖∇Φ‖ ≲ 2⁶ε"),))
def p12(params: Mapping[str, Any], seed: int) -> Measurement:
    """min over theorems and cases of (η_y/η_x at the max-step η_x, γ_y = 10⁻⁴)/20κ²; evidence
    (sufficiency only): FSGDA with η_y = η_x converges on the quadratic game."""
    rows = exact.two_time_scale_rows(P12_CASES, P12_THMS, eta_l=1e-6, gamma_y=1e-4)
    worst = min((r["eta_y/eta_x_over_20kappa2"] for r in rows if "max_eta_xg" in r),
                default=math.inf)
    g, T = make_game({"M": 10}, params["instance_seed"]), 2000
    cfg = {"eta_xl": 0.05, "eta_yl": 0.05, "eta_xg": 1.0, "eta_yg": 1.0, "K": 2, "m": 10}
    gp = simulate(FSGDA.method(g, cfg), T, seed=seed, record_every=10).metrics["grad_phi_sq"][:, 0]
    return Measurement(worst, series={tid: (list(range(len(P12_CASES))), [
        r["eta_y/eta_x_over_20kappa2"] for r in rows if r["theorem"] == tid and "max_eta_xg" in r])
        for tid in P12_THMS}, hlines={"20κ²": 1.0},
        evidence={"cases": rows, "empirical_equal_steps": {
            "config": cfg, "rounds": T, "grad_phi_sq_start_end": [float(gp[0]), float(gp[-1])],
            "note": "η_y/η_x = 1 ≪ 20κ² = 45 still converges: the conditions are sufficient, "
                    "not necessary (derived here)"}},
        run=RunConfig("fsgda", QUADRATIC, {"M": 10, **cfg}, T, 1, seed))


P15_THMS = ("sagda.thm1.opt1", "sagda.thm1.opt1.corrected", "sagda.thm1.opt2", "sagda.thm2",
            "sagda.thm2.corrected")


@claim("sagda.p15", seconds=1.1, title="Feasibility sanity: every theorem admits step sizes",
       prediction="for (L_f, μ) = (√2, 1), K = 2, M = 10, m ∈ {10, 2} the conditions of Theorems "
                  "1-I, 1-II, 2 (printed and corrected) have a non-empty region; γ and bound "
                  "values reported",
       source="our prediction: the step-size conditions of Theorem 1 [L145–L166] and "
              "Theorem 2 [L213–L219] are satisfiable", theorems=P15_THMS,
       provenance="derived",
       derivation=("Theorems 1 and 2 are applied in Corollaries 1–3 with step sizes satisfying "
                   "their conditions; that presumes the conditions [L145–L166, L213–L219] have a "
                   "non-empty region, here at (L_f, μ) = (√2, 1), K = 2, M = 10, m ∈ {10, 2} (an "
                   "empty region would make a theorem vacuous at these constants; the paper does "
                   "not state this for them)"),
       rule=Interval("predicted", 0.5), params={"predicted": 0.0}, perturb={"predicted": 1.0},
       no_conditions="an analysis of the encoded conditions (max-step at the given constants) and "
                     "of the bounds there: no algorithm is run",
       tolerance_why=("tol 0.5 on a count of theorems with an empty region: not a slack. The "
                      "statistic is an integer, so ±0.5 around 0 accepts 0 only and refutes any "
                      "empty region."),
       figure=FigureSpec("Largest admissible γ_y = η_yK (cap) by theorem and M/m", "M/m",
                         "γ_y cap", logx=True, kind="scatter"))
def p15(params: Mapping[str, Any], seed: int) -> Measurement:
    """Number of (theorem, m) with an empty region at the P8 scalar game's (L_f, μ); steps by
    the rule of p9d, bounds at T = 10⁴, D_0 = σ = σ_G = 1 (Option I at M/m = 5: η_yK ≲ 10⁻⁴)."""
    rows = exact.feasibility_rows(math.sqrt(2), 1.0, 2, 10, (10, 2), P15_THMS,
                            eta_l=1e-4 / (2 * math.sqrt(2)), T=10**4)
    empty = sum(not r["feasible"] for r in rows)
    shown = [r for r in rows if "M/m" in r]
    op1 = next(r for r in rows if r["theorem"] == "sagda.thm1.opt1" and r["m"] == 2)
    return Measurement(float(empty), series={tid: (
        [r["M/m"] for r in shown if r["theorem"] == tid],
        [r["gamma_y_cap"] for r in shown if r["theorem"] == tid]) for tid in P15_THMS},
        evidence={"cases": rows, "option1_Mm5_gamma_y_cap": op1.get("gamma_y_cap")})
