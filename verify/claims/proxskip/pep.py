"""ProxSkip-VIP claims P20–P26: exact worst cases by performance estimation (PEPit on cvxpy,
``fedbounds.verify.pep``) over the paper's own class, μ-quasi-strongly monotone and
ℓ-star-cocoercive around the solution (Assumption 2.1.1 / 4.1), instead of instances.

P20–P24 (one per covered theorem): the worst case of the theorem's measure, E[V_N]/V_0, over
the whole class never exceeds the encoded bound at the same constants (statistic: the largest
worst/theorem ratio on a grid of (γ, p), conditions holding); the figures draw the worst-case
contraction beside the theorem's 1 − min{γμ, p²} against p at fixed γ, or against γ at fixed p
(Theorem 4.2: p = √(γμ)). P25 answers the question of Corollary 3.6's remark [L184]: how the
worst-case communications to ε grow with κ. Perturbation: ``rate_scale`` multiplies the
theorem's rate (0.9: a false bound, refuted where the theorem is tight).

P26 is ours, not the paper's: Local GDA, the paper's baseline without a theorem, over the same
class with heterogeneity ‖F_i(z*)‖ ≤ ζ (``fedbounds.verify.pep.localgda``): its exact worst
cases against derived closed forms, and the fitted scaling of its bias in γ and K.
Perturbation: ``closed_scale`` multiplies the closed forms (0.9: false, refuted).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from fedbounds.verify import claim as rules
from fedbounds.verify import pep
from fedbounds.verify.claim import Check, FigureSpec, Measurement, Params, claim
from fedbounds.verify.conditions import RunConditions
from fedbounds.verify.pep import localgda, sweeps
from fedbounds.verify.pep.sdp import MAX_RESIDUAL
from fedbounds.verify.perturbation import Plant
from fedbounds.verify.publication import Published

TOL = 1e-5  # relative; above the solvers' accuracy (about 1e-7 on these SDPs)

# How these claims publish their SDP numbers. An SDP optimum is accurate to about 1e-7 relative
# to max(1, |value|): Clarabel (no options passed: tol_gap_rel = tol_feas = 1e-8) stops at 1e-8
# on its equilibrated problem; O(1) optima at 6 digits (unit >= 1e-6) keep the default.
_SDP_ACCURACY = 1e-7
_RESIDUALS = Published(
    ("residual", "max_residual"), floor=MAX_RESIDUAL, digits=2,
    why="largest certificate residual of an SDP (relative to max(1, |worst|)); a certificate is "
        "accepted only when every residual and the primal–dual gap are ≤ MAX_RESIDUAL = 1e-5 "
        "(verify/pep/sdp.py), so below it a residual is the solver's stopping error; a rejected "
        "one is shown to 2 digits, as the solve's reason prints it")


def _grid(theorem: str, points: Sequence[dict[str, Any]], params: Params,
          steps: Sequence[int] = (1,)
          ) -> tuple[list[dict[str, Any]], float, str | None, list[RunConditions]]:
    """Solve the PEP of ``theorem`` at every point and step count: rows, the largest
    worst/theorem ratio where the theorem's conditions hold, the first 'not solved'
    reason (None when every SDP was certified), and the theorem's inputs at each point that
    ratio ranges over (its runs: the model's constants as the theorem reads them, exact)."""
    rows, worst_ratio, failure, runs = [], 0.0, None, []
    model = pep.model(theorem)
    for n_steps in steps:
        for values in points:
            r = pep.solve(theorem, values, steps=n_steps, rate_scale=params["rate_scale"],
                          tol=params["tol"])
            rows.append({**r.values, **r.derived, "steps": n_steps, "worst": r.worst,
                         "theorem": r.theorem_value, "ratio": r.ratio, "verdict": r.verdict,
                         "conditions_hold": r.conditions_hold, "solver": r.solver,
                         "status": r.status, "residual": r.residual})
            if r.verdict == "not solved":
                failure = failure or f"{theorem} at {values}, {n_steps} step(s): {r.reason}"
            elif r.conditions_hold and r.ratio is not None:
                worst_ratio = max(worst_ratio, r.ratio)
                inputs = model.theorem_values(pep.resolve_values(model, values), n_steps)
                where = ", ".join(f"{k} = {float(v):.6g}" for k, v in r.values.items())
                runs.append(RunConditions(theorem, inputs, f"{where}, N = {n_steps}"))
    return rows, worst_ratio, failure, runs


def _fraction(x: float) -> Fraction:
    return Fraction(x).limit_denominator(10**9)


def _slice(rows: list[dict[str, Any]], x: str, **fixed: float) -> dict[str, tuple]:
    """Worst case and theorem along ``x`` for the one-step rows matching ``fixed``."""
    chosen = sorted((r for r in rows if r["steps"] == 1 and r["worst"] is not None and
                     all(abs(r[k] - v) <= 1e-12 * max(1.0, abs(v)) for k, v in fixed.items())),
                    key=lambda r: r[x])
    xs = [r[x] for r in chosen]
    return {"worst": (xs, [r["worst"] for r in chosen]),
            "theorem": (xs, [r["theorem"] for r in chosen])}


def _measurement(rows: list[dict[str, Any]], ratio: float, failure: str | None,
                 series: dict[str, tuple[list[float], list[float]]],
                 runs: Sequence[RunConditions] = (), **evidence: Any) -> Measurement:
    solved = [r for r in rows if r["verdict"] != "not solved"]
    tight = [r for r in solved if r["conditions_hold"] and r["ratio"] is not None and
             r["ratio"] >= 1 - 1e-4]
    return Measurement(ratio if solved else None, series=series, inconclusive=failure,
                       conditions=runs, evidence={"points": rows, "max_ratio": ratio,
                                 "tight_points": len(tight), "solved_points": len(solved),
                                 "max_residual": max((r["residual"] or 0.0 for r in solved),
                                                     default=None), **evidence})


_FIGURE_P = FigureSpec("worst-case contraction E[V_1]/V_0 against p at γ = 1/(2ℓ) (PEP) and "
                       "the theorem's 1 − min{γμ, p²}", "communication probability p",
                       "contraction factor", logy=False)
_FIGURE_GAMMA = FigureSpec("worst-case contraction E[V_1]/V_0 against γ at p = 0.3 (PEP) and "
                           "the theorem's 1 − min{γμ, p²}", "step size γ", "contraction factor",
                           logy=False)


@claim("proxskip.p20", seconds=2.0,
       title="PEP: Theorem 3.1's deterministic rate holds over the whole class "
       "(ProxSkip-GDA, one node, convex R)",
       prediction="max over (γ, p) of worst-case E[V_N]/V_0 ÷ (1 − min{γμ, p²})^N ≤ 1 for γ ≤ "
       "min{1/μ, 1/ℓ} (A = ℓ/2); [derived, PEP] tight where p² ≤ γμ or γ = 1/ℓ",
       source="Theorem 3.1 [L138–L142]", theorems=("proxskip.thm3.1",),
       provenance="paper",
       errata=("cor3.6-step",), rule=rules.UpperBound(1.0, rtol="tol"),
       tolerance_why=("rtol 1e-5 (TOL), solver accuracy: Clarabel stops at tol_gap_rel = tol_feas "
                      "= 1e-8 (about 1e-7 on the optimum) and a certificate is accepted only with "
                      "residuals and gap ≤ MAX_RESIDUAL = 1e-5; where the theorem is tight the "
                      "ratio is 1 + ~3e-9"),
       params={"mu": 1.0, "ell": 10.0, "tol": TOL, "rate_scale": 1.0,
               "gamma_ell": (0.25, 0.5, 1.0), "ps": (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0),
               "nodes": (1,), "steps": (1,)},
       profiles={"full": {"gamma_ell": (0.125, 0.25, 0.5, 0.75, 1.0), "nodes": (1, 2),
                          "steps": (1, 2)}},
       perturb={"rate_scale": 0.9}, figure=_FIGURE_P, published=(_RESIDUALS,),
       plants=(Plant({"rate_scale": 0.95}, why="plants the rate 0.95·(1 − min{γμ, p²}) in the "
                     "encoded theorem: the worst case over the class attains Theorem 3.1's "
                     "factor where it is tight, so it must exceed the smaller one"),))
def p20(params: Params, seed: int) -> Measurement:
    """P20: the largest worst/theorem ratio of Theorem 3.1 [L142] over a (γ, p, n) grid."""
    mu, ell = params["mu"], params["ell"]
    points = [{"gamma": _fraction(c / ell), "p": _fraction(p), "mu": mu, "ell": ell, "n": n}
              for c in params["gamma_ell"] for p in params["ps"] for n in params["nodes"]]
    rows, ratio, failure, runs = _grid("proxskip.thm3.1", points, params, params["steps"])
    cut = _slice(rows, "p", gamma=0.5 / ell, n=1)
    series = {"worst case (PEP), γ = 1/(2ℓ)": cut["worst"],
              "theorem 1 − min{γμ, p²}, γ = 1/(2ℓ)": cut["theorem"]}
    if 1.0 in params["gamma_ell"]:
        cut = _slice(rows, "p", gamma=1.0 / ell, n=1)
        series["worst case (PEP), γ = 1/ℓ"] = cut["worst"]
        series["theorem, γ = 1/ℓ"] = cut["theorem"]
    return _measurement(rows, ratio, failure, series, runs, mu=mu, ell=ell)


@claim("proxskip.p21", title="PEP: Corollary 3.6's rate (1 − min{γμ, p²})^N holds over the "
       "whole class for γ ≤ 1/(2ℓ)",
       prediction="worst-case E[V_N]/V_0 ≤ (1 − min{γμ, p²})^N for γ ≤ 1/(2ℓ), every p; "
       "[derived, PEP] loose by 1 − 3γμ/2 vs 1 − γμ where p² > γμ",
       source="Corollary 3.6 [L180–L182]", theorems=("proxskip.cor3.6",),
       provenance="paper",
       rule=rules.UpperBound(1.0, rtol="tol"),
       tolerance_why=("rtol 1e-5 (TOL), solver accuracy: Clarabel stops at tol_gap_rel = tol_feas "
                      "= 1e-8 (about 1e-7 on the optimum) and a certificate is accepted only with "
                      "residuals and gap ≤ MAX_RESIDUAL = 1e-5; where the theorem is tight the "
                      "ratio is 1 + ~3e-9"),
       params={"theorem": "proxskip.cor3.6", "mu": 1.0, "ell": 10.0, "tol": TOL,
               "rate_scale": 1.0, "gamma_max_ell": 0.5,
               "gamma_points": 8, "ps": (0.1, 0.3, 1.0), "steps": (1,)},
       profiles={"full": {"gamma_points": 16, "ps": (0.05, 0.1, 0.2, 0.3, 0.5, 1.0),
                          "steps": (1, 2)}},
       perturb={"rate_scale": 0.9}, figure=_FIGURE_GAMMA, published=(_RESIDUALS,),
       plants=(Plant({"rate_scale": 0.95}, why="plants the rate 0.95·(1 − min{γμ, p²}) in the "
                     "encoded corollary: the worst case over the class attains its factor where "
                     "p² ≤ γμ, so it must exceed the smaller one"),))
def p21(params: Params, seed: int) -> Measurement:
    """P21: the largest worst/theorem ratio of Corollary 3.6 [L182] over a (γ, p) grid."""
    mu, ell, k = params["mu"], params["ell"], params["gamma_points"]
    theorem = params["theorem"]
    gammas = [_fraction(params["gamma_max_ell"] * (i + 1) / (k * ell)) for i in range(k)]
    points = [{"gamma": g, "p": _fraction(p), "mu": mu, "ell": ell} for g in gammas
              for p in params["ps"]]
    rows, ratio, failure, runs = _grid(theorem, points, params, params["steps"])
    cut = _slice(rows, "gamma", p=0.3)
    return _measurement(rows, ratio, failure, {"worst case (PEP), p = 0.3": cut["worst"],
                                               "theorem 1 − min{γμ, p²}, p = 0.3":
                                               cut["theorem"]}, runs, theorem=theorem)


p22 = p21.variant(
    "proxskip.p22", title="PEP: corrected Corollary 3.6, the same rate for γ ≤ 1/ℓ",
    prediction="worst-case E[V_N]/V_0 ≤ (1 − min{γμ, p²})^N for every γ ≤ 1/ℓ (Theorem 3.1 "
    "with A = ℓ/2); [derived, PEP] tight at γ = 1/ℓ for every p",
    source="Corollary 3.6 [L182], erratum cor3.6-step", theorems=("proxskip.cor3.6.corrected",),
    provenance="erratum",
    errata=("cor3.6-step",), params={"theorem": "proxskip.cor3.6.corrected",
                                     "gamma_max_ell": 1.0})


@claim("proxskip.p23", seconds=1.8,
       title="PEP: Theorem 4.2's deterministic rate holds over the whole "
       "class (ProxSkip-GDA-FL, n clients sharing z*)",
       prediction="worst-case E[V_N]/V_0 ≤ (1 − γμ)^N with p = √(γμ), γ ≤ 1/(2ℓ), n ∈ {2, 3, "
       "4}; [derived, PEP] tight: equal to 1 − γμ for every n",
       source="Theorem 4.2 [L236–L240] (deterministic case)", theorems=("proxskip.thm4.2",),
       provenance="paper",
       rule=rules.UpperBound(1.0, rtol="tol"),
       tolerance_why=("rtol 1e-5 (TOL), solver accuracy: Clarabel stops at tol_gap_rel = tol_feas "
                      "= 1e-8 (about 1e-7 on the optimum) and a certificate is accepted only with "
                      "residuals and gap ≤ MAX_RESIDUAL = 1e-5; where the theorem is tight the "
                      "ratio is 1 + ~3e-9"),
       params={"theorem": "proxskip.thm4.2", "mu": 1.0, "ell": 10.0, "tol": TOL,
               "rate_scale": 1.0, "gamma_points": 6, "clients": (2, 3), "steps": (1,)},
       profiles={"full": {"gamma_points": 10, "clients": (2, 3, 4), "steps": (1, 2)}},
       perturb={"rate_scale": 0.9}, published=(_RESIDUALS,),
       plants=(Plant({"rate_scale": 0.95}, why="plants the rate 0.95·(1 − γμ) in the encoded "
                     "theorem: the worst case over the class equals 1 − γμ for every n, so it "
                     "must exceed the smaller factor"),),
       figure=FigureSpec("worst-case contraction E[V_1]/V_0 of ProxSkip-GDA-FL against γ "
                         "(p = √(γμ)) and the theorem's 1 − γμ", "step size γ",
                         "contraction factor", logy=False))
def p23(params: Params, seed: int) -> Measurement:
    """P23: the largest worst/theorem ratio of Theorem 4.2 [L238] over (γ, n)."""
    mu, ell, k = params["mu"], params["ell"], params["gamma_points"]
    theorem = params["theorem"]
    points = [{"gamma": _fraction(0.5 * (i + 1) / (k * ell)), "mu": mu, "ell": ell, "n": n}
              for i in range(k) for n in params["clients"]]
    rows, ratio, failure, runs = _grid(theorem, points, params, params["steps"])
    series = {}
    for n in params["clients"]:
        cut = _slice(rows, "gamma", n=n)
        series[f"worst case (PEP), n = {n}"] = cut["worst"]
    series["theorem 1 − γμ"] = cut["theorem"]
    return _measurement(rows, ratio, failure, series, runs, theorem=theorem)


p24 = p23.variant(
    "proxskip.p24", title="PEP: corrected Theorem 4.2, deterministic case (the same rate)",
    source="Theorem 4.2 [L236–L240], erratum cor3.5-eps-factor (void at σ_* = 0)",
    provenance="erratum",
    theorems=("proxskip.thm4.2.corrected",), errata=("cor3.5-eps-factor",),
    params={"theorem": "proxskip.thm4.2.corrected"})


@claim("proxskip.p25", title="PEP: worst-case communications of ProxSkip-GDA to ε grow like κ "
       "over the class, not √κ", prediction="with Corollary 3.6's γ = 1/(2ℓ), p = √(γμ) and "
       "ℓ = κL = κ²μ, p·ln(1/ε)/ln(1/ρ_PEP) has log-log slope 1 in κ (slope 1/2 only with "
       "ℓ = κμ, minimisation)", source="Corollary 3.6 [L182] and the remark after it [L184]",
       provenance="derived",
       derivation=("Corollary 3.6 [L182] with γ = 1/(2ℓ), p = √(γμ) and ℓ = κL = κ²μ (erratum ell-"
                   "kappa-L) bounds the communications to ε by p·ln(1/ε)/p² = ln(1/ε)/p ∝ κ; the "
                   "PEP gives the exact worst-case factor ρ_PEP over the class, and reading the "
                   "worst case as following the theorem's factor gives slope 1 in κ (ours: the "
                   "paper's remark says √κ)"),
       theorems=("proxskip.cor3.6",), errata=("ell-kappa-L",),
       rule=rules.Interval("predicted_slope", "slope_tol"),
       tolerance_why=("±0.1 on a slope, a modelling slack chosen by us: the bound's factor is "
                      "read as the worst case's. The slope's own error is ≲ 3e-5 (SDP accuracy); "
                      "it is 1.03 at the quick profile because ln(1/ρ) exceeds p² = 1/(2κ²) at "
                      "small κ (by 7 % at κ = 2), so the statistic misses 1 by far more than its "
                      "error: only the tolerance confirms"),
       params={"kappas": (2.0, 4.0, 8.0, 16.0), "epsilon": 1e-6, "predicted_slope": 1.0,
               "slope_tol": 0.1, "regime": "minmax"},
       profiles={"full": {"kappas": (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)}},
       perturb={"predicted_slope": 0.5},
       plants=(Plant({"regime": "minimisation"}, why="measures the class with ℓ = κμ "
                     "(minimisation) instead of the min-max ℓ = κL = κ²μ: the worst-case "
                     "communications then grow like √κ, and the slope must leave 1 ± 0.1"),),
       published=(
           _RESIDUALS,
           Published(("pep_communications",), digits=3,
                     why="p·ln(1/ε)/ln(1/ρ) carries the SDP's error on ρ (≲ 1e-7) amplified by "
                         "1/(1 − ρ) = 2ℓ/μ at the schedule: ≲ 5e-5 relative for ℓ = κ² ≤ 256, "
                         "8e-4 for κ = 64; about 10× below the third digit's unit or more"),
           Published(("statistic", "pep_slope", "minimisation_slope"), digits=3,
                     why="least-squares slope of log communications against log κ, whose "
                         "values carry relative errors ≲ 2ℓ/μ·1e-7 (the SDP's accuracy on ρ, "
                         "ℓ ≤ κ²): ≲ 3e-5 for κ ≤ 16, 2e-4 for κ ≤ 64; three digits")),
       figure=FigureSpec("worst-case communications to ε against κ (PEP contraction factors) "
                         "and the theorem's", "κ = L/μ", "expected communications", logx=True,
                         logy=True))
def p25(params: Params, seed: int) -> Measurement:
    """P25: the log-log slope in κ of the worst-case communications to ε (Cor. 3.6 [L184])."""
    runs = {regime: sweeps.kappa_sweep("proxskip.cor3.6", params["kappas"], params["epsilon"],
                                       regime) for regime in sweeps.REGIMES}
    series, failure = {}, None
    for regime, s in runs.items():
        series[f"worst case (PEP), {sweeps.REGIMES[regime]}"] = (
            [r.kappa for r in s.rows], [r.pep_communications for r in s.rows])
        series[f"theorem, {sweeps.REGIMES[regime]}"] = (
            [r.kappa for r in s.rows], [r.theorem_communications for r in s.rows])
        for r in s.rows:
            if r.result.verdict == "not solved":
                failure = failure or f"κ = {r.kappa:g} ({regime}): {r.result.reason}"
    minmax, minimisation = runs["minmax"], runs["minimisation"]
    valid = all(r.result.verdict == "valid" for s in runs.values() for r in s.rows)
    # the statistic's runs: Corollary 3.6's schedule at each κ of the min-max regime, with γ
    # as the exact fraction kappa_sweep solves at (1/(2ℓ)), μ = 1
    conditions = [RunConditions("proxskip.cor3.6", {
        "gamma": Fraction(r.gamma).limit_denominator(10**12), "p": r.p, "mu": 1,
        "ell": Fraction(r.ell)}, f"κ = {r.kappa:g}, ℓ = κ²μ = {r.ell:g}") for r in minmax.rows]
    return Measurement(runs[params["regime"]].slope("pep"), series=series, inconclusive=failure,
                       conditions=conditions,
                       checks=(Check("PEP contraction within the theorem's at every κ", valid),),
                       evidence={"minmax": minmax.as_json(), "minimisation": minimisation.as_json(),
                                 "minimisation_slope": minimisation.slope("pep"),
                                 "answer": "κ: with ℓ = κL (the class the min-max statement "
                                           "uses) the worst-case contraction is exactly "
                                           "1 − p² = 1 − μ/(2ℓ) at the schedule, so "
                                           "communications ≈ √(2ℓ/μ) ln(1/ε) = √2 κ ln(1/ε); "
                                           "√κ needs ℓ = κμ (minimisation)"})


def _local_gda_rows(params: Params) -> tuple[list[dict[str, Any]], str | None]:
    """Local GDA's worst cases (contraction at ζ = 0, bias from z*, fixed point) on the grid
    (γℓ, K, n), with R > 1 rounds at γℓ = ``figure_gamma_ell`` only; the first 'not solved'
    reason (None when every SDP was certified)."""
    model = localgda.LOCAL_GDA
    mu, ell, zeta = params["mu"], params["ell"], params["zeta"]
    rows, failure = [], None
    for c in params["gamma_ell"]:
        for k in params["ks"]:
            for n in params["clients"]:
                values = {"gamma": _fraction(c / ell), "mu": mu, "ell": ell, "K": k,
                          "zeta": zeta, "n": n}
                rounds = params["rounds"] if c == params["figure_gamma_ell"] else (1,)
                for r in rounds:
                    names = localgda.QUANTITIES if r == 1 else ("contraction", "bias")
                    result = model.solve(values, steps=r, closed_scale=params["closed_scale"],
                                         tol=params["tol"], quantities=names)
                    for q in result.quantities:
                        rows.append({"gamma": result.values["gamma"], "gamma_ell": c, "K": k,
                                     "pairs": k * (k - 1), "steps_minus_one": k - 1, "n": n,
                                     "R": r, "quantity": q.name, "worst": q.worst,
                                     "closed_form": q.closed_form,
                                     "closed_form_text": q.closed_form_text,
                                     "comparison": q.comparison, "deviation": q.deviation,
                                     "status": q.status, "residual": q.residual})
                        if q.comparison == "not solved":
                            failure = failure or (f"local-gda at {values}, R = {r}, {q.name}: "
                                                  f"{q.reason}")
    return rows, failure


def _fit(rows: list[dict[str, Any]], quantity: str, k_variable: str,
         n: int) -> dict[str, float] | None:
    chosen = [r for r in rows if r["quantity"] == quantity and r["R"] == 1 and r["K"] >= 2 and
              r["n"] == n]
    try:
        return localgda.fit_exponents(chosen, "worst", ("gamma", k_variable))
    except ValueError:
        return None


@claim("proxskip.p26", seconds=1.2,
       title="PEP (ours): Local GDA's worst-case heterogeneity bias over the "
       "paper's class — none at K = 1, γ⁴ℓ²ζ²/4 after one round at K = 2, growing like "
       "γ⁴K²(K − 1)²ζ² per round, and a fixed point at squared distance ∝ γ²(K − 1)²ζ²",
       prediction="[ours, not the paper's: ProxSkip-VIP runs Local GDA as a baseline without a "
       "theorem; derived, PEP] n clients, each F_i μ-quasi-strongly monotone and "
       "ℓ-star-cocoercive around the shared z*, ‖F_i(z*)‖ ≤ ζ: the exact worst cases equal the "
       "closed forms (contraction max{1 − γμ(2 − γℓ), (1 − γℓ)²}^(KR) at ζ = 0; bias 0 at "
       "K = 1; γ⁴ℓ²ζ²/4 after one round from z* at K = 2, ℓ ≥ 2μ) within tol; fitted on the "
       "grid, the one-round bias scales like γ⁴ and (K(K − 1))², the fixed point's like γ² and "
       "(K − 1)² (exponents within exponent_tol)",
       source="ours; Local GDA is the baseline of Appendix G [L770] (the unit local-gda)",
       provenance="derived",
       no_conditions=("Local GDA has no theorem in the paper: its exact SDP worst cases are "
                      "compared with closed forms we derive, so no theorem's conditions apply"),
       derivation=("ProxSkip-VIP runs Local GDA only as a baseline, without a theorem. Over its "
                   "class (each F_i μ-quasi-strongly monotone and ℓ-star-cocoercive around the "
                   "shared z*, ‖F_i(z*)‖ ≤ ζ) we derive: at ζ = 0 a step contracts by max{1 − γμ(2 "
                   "− γℓ), (1 − γℓ)²}; at K = 1 the averaged step has no bias (Σ F_i(z*) = 0); at K"
                   " = 2 one round from z* moves each client by γF_i(z*) and back by γF_i(z* − "
                   "γF_i(z*)), leaving a bias of at most γ⁴ℓ²ζ²/4 (attained for ℓ ≥ 2μ); the K-fold"
                   " composition gives the γ⁴K²(K − 1)² and γ²(K − 1)² scalings by expanding in γ "
                   "(fitted, not exact)"),
       rule=rules.UpperBound("tol", 0.0),
       params={"mu": 1.0, "ell": 10.0, "zeta": 1.0, "tol": 1e-4, "closed_scale": 1.0,
               "gamma_ell": (0.1, 0.2), "ks": (1, 2, 3), "clients": (2,),
               "rounds": (1, 2), "figure_gamma_ell": 0.1, "exponent_tol": 0.25},
       profiles={"full": {"gamma_ell": (0.025, 0.05, 0.1, 0.2), "ks": (1, 2, 3, 4),
                          "clients": (2, 3), "rounds": (1, 2, 3)}},
       perturb={"closed_scale": 0.9},
       plants=(Plant({"closed_scale": 0.95}, why="plants closed forms 5 % below the derived "
                     "ones (contraction, bias, fixed point): the exact SDP worst cases must "
                     "deviate from them by more than tol"),),
       published=(
           _RESIDUALS,
           Published(("deviation", "max_deviation", "statistic"),
                     floor=4 * _SDP_ACCURACY / 0.1**2, digits=2,
                     why="|worst − closed form|/closed form, zero in exact arithmetic (the "
                         "closed forms are exact): the SDP's error, ≲ 1e-7 in its units, over "
                         "the closed form in those units: ≥ (γℓ)²/4 ≥ 0.0025 (K = 2 bias, "
                         "γℓ ≥ 0.1), of order 1 for contractions, the unit where it is 0; "
                         "two digits above"),
           Published(("worst",), floor=_SDP_ACCURACY * (0.2 / 10.0) ** 2, digits=4,
                     why="an SDP optimum (≲ 1e-7 relative to max(1, |value|)), for bias and "
                         "fixed point times their unit (γζ)² ≤ (0.2/ℓ)² = 4e-4 (ζ = 1): zero "
                         "in exact arithmetic at K = 1, so ≤ 4e-11; the smallest other, the "
                         "K = 2 bias, (γℓ)²/4 ≥ 0.0025 units, is known to 4e-5 relative"),
           Published(("one_round_bias_exponents", "fixed_point_exponents"), digits=3,
                     why="least-squares fit of log worst cases known to ≲ 4e-5 relative (the "
                         "K = 2 bias at γℓ = 0.1); the fit amplifies that ≤ 3× in the "
                         "exponents, ≤ 13× in the log constant: three digits")),
       figure=FigureSpec("Local GDA (ours): worst-case squared distance to z* against the local "
                         "steps K, from z̄_0 = z* (PEP, paper's class, n = 2, γ = 1/(10ℓ), "
                         "ζ = 1); K = 1 has none", "local steps K per round",
                         "worst-case ‖z̄ − z*‖²"))
def p26(params: Params, seed: int) -> Measurement:
    """P26: the largest deviation of Local GDA's exact worst cases from the derived closed forms
    (``verify/pep/localgda.py``), with the fitted scaling of its bias in γ and K."""
    rows, failure = _local_gda_rows(params)
    compared = [r for r in rows if r["deviation"] is not None]
    deviation = max((r["deviation"] for r in compared), default=None)
    n = params["clients"][0]
    one_round = _fit(rows, "bias", "pairs", n)
    fixed = _fit(rows, "fixed point", "steps_minus_one", n)
    tolerance = params["exponent_tol"]

    def near(fit: dict[str, float] | None, name: str, value: float) -> bool:
        return fit is not None and abs(fit[name] - value) <= tolerance

    checks = (Check("one-round bias ∝ γ⁴ (fitted)", near(one_round, "gamma", 4.0)),
              Check("one-round bias ∝ (K(K − 1))² (fitted)", near(one_round, "pairs", 2.0)),
              Check("fixed-point bias ∝ γ² (fitted)", near(fixed, "gamma", 2.0)),
              Check("fixed-point bias ∝ (K − 1)² (fitted)", near(fixed, "steps_minus_one", 2.0)))
    gamma_ell = params["figure_gamma_ell"]
    series: dict[str, tuple[list[float], list[float]]] = {}

    def line(label: str, quantity: str, rounds: int) -> None:
        chosen = sorted((r for r in rows if r["quantity"] == quantity and r["R"] == rounds and
                         r["gamma_ell"] == gamma_ell and r["n"] == n and r["K"] >= 2 and
                         r["worst"] is not None), key=lambda r: r["K"])
        if chosen:
            series[label] = ([r["K"] for r in chosen], [r["worst"] for r in chosen])

    line("bias after one round (PEP)", "bias", 1)
    for rounds in params["rounds"][1:]:
        line(f"bias after {rounds} rounds (PEP)", "bias", rounds)
    line("fixed point (PEP)", "fixed point", 1)
    gamma, ell, zeta = gamma_ell / params["ell"], params["ell"], params["zeta"]
    ks = [k for k in params["ks"] if k >= 2]
    series["γ⁴ℓ²ζ²K²(K − 1)²/16 (exact at K = 2)"] = (
        ks, [gamma**4 * ell**2 * zeta**2 * k**2 * (k - 1) ** 2 / 16 for k in ks])
    solved = [r for r in rows if r["comparison"] != "not solved"]
    return Measurement(
        deviation, series=series, inconclusive=failure, checks=checks,
        predicted=f"<= {params['tol']:g} (relative deviation from the closed forms)",
        evidence={"points": rows, "max_deviation": deviation, "compared_points": len(compared),
                  "solved_points": len(solved),
                  "max_residual": max((r["residual"] or 0.0 for r in solved), default=None),
                  "one_round_bias_exponents": one_round, "fixed_point_exponents": fixed,
                  "answer": "one round from z*: exactly γ⁴ℓ²ζ²/4 at K = 2 (any n, ℓ ≥ 2μ), "
                            "≈ γ⁴ℓ²ζ²K²(K − 1)²/16 for small γℓ (below it at larger γℓ); "
                            "the fixed point Local GDA converges to lies at squared distance "
                            "∝ γ²(K − 1)²ζ² (fitted); K = 1 (GDA) has no bias"})
