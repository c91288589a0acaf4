"""Claims of FedSGDA+ / FedSGDA-M for section 8's P2, P4, P12, P13 and P15 (issue 15).

* P2 — Lemmas C.2, C.3 and A.1(3) pathwise, at every step of runs on common-Hessian,
  heterogeneous-Hessian and nonconvex (cosine) games under Theorem 3.12's parameters;
* P4 — the energy identity (1/T)Σ‖∇Φ‖² ≈ [Φ(x̄_0) − Φ(x̄_T)]/(ĉηT), exactly on a quadratic game
  (affine STORM moments) and by Monte Carlo on the nonconvex cosine game;
* P12 — FedSGDA+'s server steps against Local SGDA+ at equal per-round steps: the noise-free
  heterogeneity floors, exactly (the round is affine in (z̄, x̃));
* P13 — Lemma C.4 at communication steps, exact conditional moments along Monte Carlo paths with
  state-dependent noise;
* P15 — Theorem 3.6 on the NC-C game, the Moreau-envelope gradient by a certified inner solve
  (:func:`fedbounds.problems.minmax.ncc_moreau`, error ≤ 10⁻⁶), a-posteriori G_x, D and Δ.

Step sizes come from the encoded schedules (Corollary 3.7, Theorem 3.12 / Corollary 3.13), bounds
from :func:`fedbounds.engine.bound`. Seeds: every game is built from the instance seed
(``params["instance_seed"]``); stochastic gradients and replicas come from the noise seed."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from fedbounds import engine, registry
from fedbounds.problems.minmax import (
    MinMaxGame,
    make_game,
    ncc_moreau,
    ncc_y_star,
    with_coupling_spread,
)
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.fedsgda import (
    FEDSGDA_M,
    build_plus,
    cor37_config,
    cor313_config,
    exact_schedule,
)
from fedbounds.verify.claim import (
    AtMost,
    Check,
    FigureSpec,
    Measurement,
    Params,
    RunConfig,
    UpperBound,
    claim,
)
from fedbounds.verify.claims.fedsgda import cor37_run, cor313_run
from fedbounds.verify.conditions import RunConditions
from fedbounds.verify.exact.fedsgda import (
    averaged_method,
    lemma_c4_sides,
    pathwise_lemma_sides,
    plus_floor,
    storm_exact_energy,
)
from fedbounds.verify.fitting import loglog_slope, mean_ci
from fedbounds.verify.perturbation import Plant
from fedbounds.verify.publication import EPS, Published

QUADRATIC = "minmax-quadratic"
COSINE = "minmax-cos"
NCC = "minmax-ncc"
AVERAGE = "(1/T) Σ E‖∇Φ(x̄_t)‖²"
# P2: (SC-CH), (SC-HH: client-specific curvature A_i and couplings B_i), nonconvex cosine game
P2_FAMILIES = {
    "SC-CH": (QUADRATIC, {"M": 4, "sigma_x": 0.5, "sigma_y": 0.5, "sigma_G": 1.0}, 0.0),
    "SC-HH": (QUADRATIC, {"M": 4, "sigma_x": 0.5, "sigma_y": 0.5, "sigma_G": 1.0,
                          "hess_spread": 0.5}, 0.5),
    "cosine": (COSINE, {"M": 4, "lam": 1.0, "sigma_x": 0.5, "sigma_y": 0.5, "sigma_G": 1.0,
                        "x0": 2.0}, 0.0)}
# parameters that break Lemma C.3's condition ĉ ≤ c/(8κ²) (ĉ = 8c): the lemma's power check
P2_VIOLATING = {"eta": 0.2, "c": 0.25, "c_hat": 2.0, "alpha": 0.5, "beta": 0.5, "Q": 5,
                "b": 1.0, "B": 1.0}
P4_SET = {"M": 4, "sigma_x": math.sqrt(0.5), "sigma_y": math.sqrt(0.5), "sigma_G": 1.0}  # κ = 1.5
P4_COS = {"M": 4, "lam": 1.0, "sigma_x": 0.1, "sigma_y": 0.1, "sigma_G": 1.0, "x0": 2.0}
P12_SET = {"M": 2, "sigma_G": 3.0}  # noise-free; heterogeneity in the couplings B_i (SC-HH)
P12_A_ONLY = {"M": 2, "sigma_G": 3.0, "hess_spread": 0.5}  # heterogeneity in A_i only
# P13: (SC-HH) with state-dependent (multiplicative) noise and a long communication period
P13_SET = {"M": 4, "sigma_x": 0.0, "sigma_y": 0.0, "sigma_G": 3.0, "hess_spread": 0.5,
           "beta_L": 1.0}
P13_CONFIG = {"eta": 0.05, "c": 1.0, "c_hat": 0.2, "alpha": 0.05, "beta": 0.05, "Q": 50,
              "b": 1.0, "B": 1.0}
P15_SET = {"M": 2, "radius": 1.0, "sigma_x": 0.5, "sigma_y": 0.5, "sigma_G": 1.0}


def _game(problem: str, pset: dict[str, Any], instance_seed: int) -> MinMaxGame:
    return make_game(pset, instance_seed, problem)


# ---- P2: pathwise lemmas ------------------------------------------------------------------------
@claim("fedsgda.p2", title="Lemmas C.2, C.3 and A.1(3) hold pathwise along FedSGDA-M runs",
       prediction="under Theorem 3.12's parameters (Cor 3.13 schedule, reading R1, ν = 0), at "
       "every step of every run on (SC-CH), (SC-HH) and the nonconvex cosine game: Φ-descent "
       "(C.2, with L_Φ = L_f(1 + κ)), the y-gap recursion (C.3) and ‖∇_y F‖² ≤ 2L_f(Φ − F) "
       "(A.1(3)) hold: max (lhs − rhs)/(1 + |Φ| + |F|) ≤ 10⁻¹²",
       source="Lemma C.2 [L626–L628], Lemma C.3 [L646–L652] (condition ĉ ≤ c/(8κ²), erratum "
       "lemmaC3-condition), Lemma A.1(3) [L410–L412]; Theorem 3.12's parameters [L245] (R1: "
       "erratum which-L)",
       provenance="erratum", theorems=("fedsgda.thm3.12", "fedsgda.thm3.12.corrected"),
       errata=("lemmaC3-condition", "which-L"),
       rule=UpperBound("tolerance"),
       tolerance_why=("rtol 1e-9 is the rule's default and moves the bound 1e-12 by only 1e-21; "
                      "the tolerance that matters is that bound, a float64 round-off allowance "
                      "chosen by us (≈ 4.5e3 ε) for the normalized excess of inequalities that "
                      "hold exactly (−3.8e-5 measured, so unused)."),
       params={"regime": "theory", "readings": ("R1",), "steps": 200, "replicas": 3,
               "tolerance": 1e-12},
       profiles={"full": {"readings": ("R1", "R2"), "steps": 2000, "replicas": 8}},
       perturb={"regime": "violating"},
       plants=(Plant({"regime": "violating"}, why="runs ĉ = 8c, outside Lemma C.3's condition "
                     "ĉ ≤ c/(8κ²): the y-gap recursion C.3 must fail along the path"),),
       figure=FigureSpec("FedSGDA-M: largest (lhs − rhs)/(1 + |Φ| + |F|) per step", "step t",
                         "normalized excess (≤ 0 predicted)", logy=False))
def p2(params: Params, seed: int) -> Measurement:
    """Both sides of the three lemmas at every step (:func:`pathwise_lemma_sides`); the
    statistic is the largest normalized excess. ``regime = "violating"`` runs ĉ = 8c, outside
    Lemma C.3's condition, where C.3 must fail and C.2, A.1(3) (no step condition) still hold."""
    if params["regime"] not in ("theory", "violating"):
        raise ValueError(f"regime must be 'theory' or 'violating', got {params['regime']!r}")
    rows, conditions = [], []
    worst_t: dict[str, np.ndarray] = {}
    for family, (problem, pset, coupling) in P2_FAMILIES.items():
        g = _game(problem, pset, params["instance_seed"])
        if coupling:
            g = with_coupling_spread(g, coupling, params["instance_seed"])
        k = g.constants
        readings = params["readings"] if params["regime"] == "theory" else ("violating",)
        for reading in readings:
            thm = "fedsgda.thm3.12" + ("" if reading == "R2" else ".corrected")
            if reading == "violating":  # the perturbation: outside Lemma C.3's condition
                cfg = dict(P2_VIOLATING)
                conditions.append(RunConditions(thm, {
                    "L_f": k["L_f"], "mu": k["mu"], "N": g.M, "c_1": Fraction(cfg["alpha"])
                    / Fraction(cfg["eta"]) ** 2, "c_2": Fraction(cfg["beta"])
                    / Fraction(cfg["eta"]) ** 2, **{n: cfg[n] for n in (
                        "eta", "c", "c_hat", "Q", "b")}}, f"{family}, violating"))
            else:
                cfg, _T = cor313_config(k, g.M, 4096, 0, reading)
                conditions.append(cor313_run(thm, k, g.M, 4096, 0, reading,
                                             f"{family}, {reading}, N·T_0 = 4096", cfg))
            sides = pathwise_lemma_sides(g, FEDSGDA_M.method(g, cfg), params["steps"],
                                         params["replicas"], seed, k["L_f"] * (1 + k["kappa"]))
            for lemma in ("C.2", "C.3", "A.1(3)"):
                excess = (sides[f"{lemma} lhs"] - sides[f"{lemma} rhs"]) / sides["scale"]
                rows.append({"family": family, "reading": reading, "lemma": lemma,
                             "max_normalized_excess": float(excess.max()),
                             "max_excess": float((sides[f"{lemma} lhs"]
                                                  - sides[f"{lemma} rhs"]).max()),
                             "steps_checked": int(excess.size), "kappa": k["kappa"],
                             "L_f": k["L_f"], "config": cfg})
                per_t = excess.max(axis=1)
                worst_t[lemma] = per_t if lemma not in worst_t else np.maximum(worst_t[lemma],
                                                                                per_t)
    ts = list(range(params["steps"]))
    series = {f"Lemma {lemma}": (ts, v.tolist()) for lemma, v in worst_t.items()}
    stat = max(r["max_normalized_excess"] for r in rows)
    first = rows[0]
    return Measurement(stat, series=series, hlines={"0": 0.0},
                       evidence={"runs": rows, "regime": params["regime"],
                                 "worst": max(rows, key=lambda r: r["max_normalized_excess"]),
                                 "note": "a PL but not strongly concave game (rank-deficient "
                                         "y-curvature) is not among the games; the cosine game "
                                         "makes Φ nonconvex"},
                       conditions=conditions,
                       run=RunConfig("fedsgda-m", QUADRATIC, {
                           **P2_FAMILIES["SC-CH"][1], **first["config"]}, params["steps"],
                           params["replicas"], seed))


# ---- P4: the energy identity ---------------------------------------------------------------------
@claim("fedsgda.p4", title="Energy identity: average ‖∇Φ‖² ≈ [Φ(x̄_0) − Φ(x̄_T)]/(ĉηT)",
       prediction="under the Cor 3.13 schedule (R1, ν = 0) the averaged ‖∇Φ(x̄_t)‖² is the "
       "discrete gradient-flow energy E[Φ(x̄_0) − Φ(x̄_T)]/(ĉηT) within a factor 1.25 either "
       "way (|log ratio| ≤ log 1.25), on a quadratic game (exact) and the nonconvex cosine game",
       source="derived here from Lemma C.2 [L626–L628] and Theorem 3.12 [L245–L247] (the bound's "
       "first term is twice this energy)",
       provenance="derived",
       derivation=("x̄_{t+1} = x̄_t − ĉηū_{t+1} (Algorithm 2 averaged, Appendix C [L656]) with "
                   "ū_{t+1} ≈ ∇Φ(x̄_t) once the estimator and y have caught up, so Σ_t ‖∇Φ(x̄_t)‖²"
                   "·ĉη ≈ Φ(x̄_0) − Φ(x̄_T) (a discrete gradient flow; Lemma C.2 is its one-step "
                   "inequality); the bound's leading term 2Δ/(ĉηT) of Theorem 3.12 is twice this "
                   "energy. A small-step approximation: y-lag, estimator and noise corrections "
                   "are neglected"),
       theorems=("fedsgda.thm3.12.corrected", "fedsgda.cor3.13.corrected"),
       rule=UpperBound("tolerance"),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off slack on comparing max |log "
                      "ratio| with the bound. The bound itself, log 1.25, is a modelling slack "
                      "chosen by us for a small-step identity (y-lag, estimator and noise "
                      "corrections neglected); the cosine rows are 4-replica Monte Carlo means "
                      "without an interval."),
       params={"NT0s_exact": (32768,), "NT0s_cos": (512,), "replicas": 4,
               "tolerance": math.log(1.25), "energy_scale": 1.0},
       profiles={"full": {"NT0s_exact": (32768, 262144, 2097152), "NT0s_cos": (512, 4096),
                          "replicas": 8}},
       perturb={"tolerance": 0.01},
       plants=(Plant({"energy_scale": 2.0}, why="the bound's leading term 2Δ/(ĉηT) read as the "
                     "rate (twice the energy, a wrong constant in the law): the measured average "
                     "must sit a factor ≈ 2 from it, beyond 1.25"),),
       figure=FigureSpec("FedSGDA-M (Cor 3.13): averaged ‖∇Φ‖² over the energy "
                         "[Φ(x̄_0) − Φ(x̄_T)]/(ĉηT)", "x-clock ĉηT", "ratio (≈ 1 predicted)",
                         logx=True, logy=False))
def p4(params: Params, seed: int) -> Measurement:
    """The ratio (averaged ‖∇Φ‖²)/(energy) exactly (affine STORM moments of the averaged
    iterates, start ȳ_0 = 0, x-clocks ≥ 0.6) and by Monte Carlo on the
    cosine game (start ȳ_0 = y*(x̄_0), so that the y-lag of the first steps does not dominate at
    the small clocks affordable there); statistic max |log ratio|."""
    rows, series, thm = [], {}, "fedsgda.cor3.13.corrected"
    g = make_game(P4_SET, params["instance_seed"])
    conditions = []
    for NT0 in params["NT0s_exact"]:
        cfg, T = cor313_config(g.constants, g.M, NT0, 0)
        conditions.append(cor313_run(thm, g.constants, g.M, NT0, 0, where=(
            f"quadratic (exact), N·T_0 = {NT0}"), cfg=cfg))
        e = storm_exact_energy(*averaged_method(g, cfg), T)
        clock = cfg["c_hat"] * cfg["eta"] * T
        ratio = e["avg_grad_phi_sq"] / (e["phi_drop"] / clock * params["energy_scale"])
        rows.append({"game": "quadratic (SC-CH), exact", "NT0": NT0, "T": T, "x_clock": clock,
                     **e, "ratio": ratio, "Q": cfg["Q"]})
    gc = _game(COSINE, P4_COS, params["instance_seed"])
    x0 = gc.z0[: gc.dx]
    gc = replace(gc, z0=np.concatenate([x0, gc.y_star(x0)]))
    for NT0 in params["NT0s_cos"]:
        cfg, T = cor313_config(gc.constants, gc.M, NT0, 0)
        conditions.append(cor313_run(thm, gc.constants, gc.M, NT0, 0, where=(
            f"cosine (Monte Carlo), N·T_0 = {NT0}"), cfg=cfg))
        tr = simulate(FEDSGDA_M.method(gc, cfg), T, replicas=params["replicas"], seed=seed)
        avg = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
        clock = cfg["c_hat"] * cfg["eta"] * T
        energy = (float(gc.phi(x0)) - np.asarray(gc.phi(tr.state.z[:, : gc.dx]))) / clock
        rows.append({"game": "cosine (nonconvex Φ), Monte Carlo", "NT0": NT0, "T": T,
                     "x_clock": clock, "avg_grad_phi_sq": float(avg.mean()),
                     "phi_drop": float(energy.mean() * clock),
                     "ratio": float(avg.mean() / (energy.mean() * params["energy_scale"])),
                     "per_replica_ratio": mean_ci(avg / energy).as_dict(), "Q": cfg["Q"],
                     "diverged": tr.diverged})
    for r in rows:
        r["abs_log_ratio"] = abs(math.log(r["ratio"]))
    for name in sorted({r["game"] for r in rows}):
        sel = [r for r in rows if r["game"] == name]
        series[name] = ([r["x_clock"] for r in sel], [r["ratio"] for r in sel])
    stat = max(r["abs_log_ratio"] for r in rows)
    cfg, T = cor313_config(gc.constants, gc.M, params["NT0s_cos"][-1], 0)
    return Measurement(stat, series=series, hlines={"1": 1.0, "1.25": 1.25, "0.8": 0.8},
                       evidence={"runs": rows, "replicas": params["replicas"],
                                 "statistic": "max |log(average / energy)|"},
                       diverged="a run diverged" if any(r.get("diverged") for r in rows)
                       else None, conditions=conditions,
                       run=RunConfig("fedsgda-m", COSINE, {**P4_COS, **cfg}, T,
                                     params["replicas"], seed))


# ---- P12: server steps remove the heterogeneity floor ------------------------------------------
def _local_sgda_plus(cfg: dict[str, Any]) -> dict[str, Any]:
    """Local SGDA+ (η_x = η_y = 1, Section 3.1 [L155]) with FedSGDA+'s per-round steps: local
    steps ĉη_x and cη_y."""
    return {**cfg, "eta_x": 1.0, "eta_y": 1.0, "c_hat": cfg["c_hat"] * cfg["eta_x"],
            "c": cfg["c"] * cfg["eta_y"]}


def _floors(g: MinMaxGame, Ts: list[int]) -> dict[str, Any]:
    fed, loc, cfgs = [], [], []
    for T in Ts:
        cfg = cor37_config(g.constants["L_f"], g.M, T)
        fed.append(plus_floor(g, cfg)[:2])
        loc.append(plus_floor(g, _local_sgda_plus(cfg))[:2])
        cfgs.append({"T": T, **cfg})
    x = np.array(Ts, float)
    return {"fedsgda_plus": [f for f, _ in fed], "local_sgda_plus": [f for f, _ in loc],
            "rho_fedsgda_plus": [r for _, r in fed], "rho_local": [r for _, r in loc],
            "slope_fedsgda_plus": loglog_slope(x, np.array([f for f, _ in fed])).slope,
            "slope_local": loglog_slope(x, np.array([f for f, _ in loc])).slope,
            "schedules": cfgs, "L_f": g.constants["L_f"]}


@claim("fedsgda.p12", title="FedSGDA+ server steps remove Local SGDA+'s heterogeneity floor",
       prediction="noise-free, on (SC-HH) with client-specific couplings B_i, under Cor 3.7: "
       "FedSGDA+'s heterogeneity floor decays at least like T^{-1/3} (log-log slope ≤ −1/3 + "
       "0.05), while Local SGDA+ at the same per-round steps plateaus (slope ≥ −0.1) at a level "
       "that grows with the heterogeneity",
       source="derived here from Corollary 3.7 [L179–L181] (per-round y-step Qcη_y = 1/(10L_f), "
       "local drift Qc = 1/(10L_fT^{1/3})) and Theorem 3.6's drift terms [L177]",
       provenance="derived",
       derivation=("under Corollary 3.7 [L179] each round moves y by Qcη_y = 1/(10L_f) while the "
                   "clients drift by Qc = 1/(10L_fT^{1/3}) → 0, so Theorem 3.6's drift terms "
                   "(∝ Q²c²ζ² [L177]) vanish with T; Local SGDA+ (η_x = η_y = 1 [L155]) with the "
                   "same per-round steps drifts by 1/(10L_f) per round whatever T, which predicts "
                   "a T-independent ζ-floor. Reading the bound's drift terms as the floor's "
                   "scaling (not a stated result)"),
       theorems=("fedsgda.thm3.6", "fedsgda.cor3.7"),
       rule=AtMost("predicted_slope", 0.05),
       tolerance_why=("+0.05 on a slope: a modelling slack chosen by us for reading Theorem 3.6's "
                      "drift terms as the floor's scaling. The floors are exact fixed points (no "
                      "interval), and the largest slope, −0.559 at the quick profile, lies below "
                      "−1/3 without it."),
       params={"Ts": (512, 4096, 32768), "spreads": (0.5, 1.0), "predicted_slope": -1 / 3,
               "server_steps": True},
       plants=(Plant({"server_steps": False}, why="the algorithm without its server steps "
                     "(Local SGDA+, η_x = η_y = 1, at the same per-round steps): its clients drift "
                     "by 1/(10L_f) per round whatever T, so the floor must plateau"),),
       profiles={"full": {"Ts": (512, 4096, 32768, 262144), "spreads": (0.25, 0.5, 1.0)}},
       perturb={"predicted_slope": -1.0},
       figure=FigureSpec("Noise-free heterogeneity floor ‖∇Φ(x̄_fp)‖² under Cor 3.7 (N = 2)",
                         "T (rounds)", "‖∇Φ‖² at the fixed point (exact)", logx=True))
def p12(params: Params, seed: int) -> Measurement:
    """Exact fixed points of the noise-free round (affine in (z̄, x̃); x̃ = x̄ at rest, so the
    floor does not depend on S) of FedSGDA+ and of Local SGDA+ at FedSGDA+'s per-round steps,
    for T in ``Ts`` and coupling spreads in ``spreads``; statistic: the largest FedSGDA+ slope.
    Evidence: heterogeneity in the curvature A_i only, where the clients' y-drifts cancel in the
    average (common B, C) and Local SGDA+ has the smaller floor."""
    Ts = list(params["Ts"])
    base = make_game(P12_SET, params["instance_seed"])
    cases, series, conditions = {}, {}, []
    for s in params["spreads"]:
        g = with_coupling_spread(base, s, params["instance_seed"])
        cases[s] = _floors(g, Ts)
        conditions += [cor37_run("fedsgda.cor3.7", g.constants["L_f"], g.M, c["T"],
                                 f"coupling spread {s:g}, T = {c['T']}", cfg=c)
                       for c in cases[s]["schedules"]]
        series[f"FedSGDA+, coupling spread {s:g}"] = (Ts, cases[s]["fedsgda_plus"])
        series[f"Local SGDA+, coupling spread {s:g}"] = (Ts, cases[s]["local_sgda_plus"])
    a_only = _floors(make_game(P12_A_ONLY, params["instance_seed"]), Ts)
    stat = max(c["slope_fedsgda_plus" if params["server_steps"] else "slope_local"]
               for c in cases.values())
    plateau = min(c["slope_local"] for c in cases.values())
    spreads = sorted(cases)
    grows = all(cases[a]["local_sgda_plus"][j] < cases[b]["local_sgda_plus"][j]
                for a, b in zip(spreads, spreads[1:], strict=False) for j in range(len(Ts)))
    cfg = cor37_config(base.constants["L_f"], base.M, Ts[-1])
    return Measurement(stat, series=series,
                       evidence={"cases": {str(s): c for s, c in cases.items()},
                                 "curvature_heterogeneity_only": a_only,
                                 "max_slope_fedsgda_plus": stat, "min_slope_local": plateau,
                                 "local_floor_grows_with_spread": grows,
                                 "method": "fixed point of the noise-free round map of "
                                           "fedsgda-plus (exact; the averaged metric over T "
                                           "rounds is dominated by the transient at these "
                                           "x-clocks and is not used)"},
                       checks=(Check("Local SGDA+ plateaus (slope ≥ −0.1)", plateau >= -0.1),
                               Check("Local SGDA+ floor grows with the spread", grows)),
                       conditions=conditions,
                       run=RunConfig("fedsgda-plus", QUADRATIC, {**P12_SET, **cfg}, Ts[-1], 1,
                                     seed))


# ---- P13: Lemma C.4 at communication steps -----------------------------------------------------
@claim("fedsgda.p13", title="Lemma C.4 (STORM error recursion) at every step, sync steps too",
       prediction="E‖ū_{t+1} − ∇_xF̄_t‖² (and the v̄ analogue) is at most Lemma C.4's right-hand "
       "side at every step t, conditional on the state and averaged over runs, including the "
       "communication steps t ≡ 0 (mod Q): max E[lhs]/E[rhs] ≤ 1",
       source="Lemma C.4 [L722–L730] (no step-size condition: 'for every t'); Algorithm 2's "
       "communication step [L203–L206]; the sync-step gap is erratum lemmaC4-sync",
       provenance="paper", theorems=("fedsgda.thm3.12", "fedsgda.thm3.12.corrected"),
       errata=("lemmaC4-sync", "assumption3.11-first-moment"),
       no_conditions=("Lemma C.4 [L722] holds 'for every t' with no condition on the steps (it is "
                      "not an encoded theorem); Theorem 3.12's step conditions are not the "
                      "lemma's, and the run deliberately leaves them (Q = 50, ĉ = 0.2) to make "
                      "the communication steps' drift visible"),
       rule=UpperBound("scale", end="lower"),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off slack on comparing E[lhs]/E[rhs] "
                      "with scale. The statistical allowance is the interval's lower end, (mean "
                      "lhs − 3 SE of lhs − rhs over the replicas)/mean rhs, not the rtol."),
       params={"steps": 300, "replicas": 8, "scale": 1.0, "rhs_scale": 1.0},
       plants=(Plant({"rhs_scale": 0.1}, why="Lemma C.4's right-hand side (computed in the measure "
                     "from the exact conditional moments) with a wrong constant, a tenth of it: "
                     "the error must exceed it"),),
       profiles={"full": {"steps": 1000, "replicas": 32}}, perturb={"scale": 0.5},
       figure=FigureSpec("FedSGDA-M, Q = 50, state-dependent noise: E[lhs]/E[rhs] of Lemma C.4",
                         "step t", "ratio (≤ 1 predicted)", logy=True))
def p13(params: Params, seed: int) -> Measurement:
    """Exact conditional moments (:func:`lemma_c4_sides`) along ``replicas`` paths; per step the
    ratio of the replica means and its lower end (mean lhs − 3 SE of lhs − rhs)/mean rhs;
    violated where that lower end exceeds ``scale``. (SC-HH) with multiplicative noise β_L = 1
    (with additive noise the lemma holds trivially), Q = 50."""
    g = make_game(P13_SET, params["instance_seed"])
    R = params["replicas"]
    sides = lemma_c4_sides(g, FEDSGDA_M.method(g, P13_CONFIG), params["steps"], R, seed)
    sync = sides["sync"]
    ts = np.arange(params["steps"])
    rows, series, worst, worst_lo = {}, {}, -math.inf, -math.inf
    for block in ("x", "y"):
        lhs, rhs = sides[block]["lhs"], sides[block]["rhs"]
        if params["rhs_scale"] != 1.0:  # a plant: a wrong constant in the lemma
            rhs = rhs * params["rhs_scale"]
        ratio = lhs.mean(1) / rhs.mean(1)
        diff = lhs - rhs
        lo = (lhs.mean(1) - 3 * diff.std(1, ddof=1) / math.sqrt(R)) / rhs.mean(1)
        pre = lhs.mean(1) / sides[block]["rhs_presync"].mean(1)
        rows[block] = {"max_ratio_sync": float(ratio[sync].max()),
                       "max_ratio_non_sync": float(ratio[~sync].max()),
                       "max_lower_end_sync": float(lo[sync].max()),
                       "max_lower_end_non_sync": float(lo[~sync].max()),
                       "violated_sync_steps": int(np.sum(lo[sync] > params["scale"])),
                       "sync_steps": int(sync.sum()),
                       "max_ratio_sync_presync_reading": float(pre[sync].max())}
        worst, worst_lo = max(worst, float(ratio.max())), max(worst_lo, float(lo.max()))
        series[f"{block}: communication steps"] = (ts[sync].tolist(), ratio[sync].tolist())
        series[f"{block}: other steps"] = (
            ts[~sync].tolist(), ratio[~sync].tolist())
    return Measurement(worst, interval=(worst_lo, worst), series=series, hlines={"1": 1.0},
                       evidence={"blocks": rows, "sigma_sq": sides["sigma_sq"],
                                 "L_mss": sides["L_mss"], "config": P13_CONFIG,
                                 "replicas": R, "steps": params["steps"],
                                 "constants": "L = L_f√(1 + β_L²) (mean-squared smoothness of the "
                                              "multiplicative noise), σ² = largest per-sample "
                                              "variance at the visited points",
                                 "reading": "u^i_t at a communication step is ū_t (Algorithm 2 "
                                            "averages the estimators before the step), so the "
                                            "drift term of the right-hand side vanishes there; "
                                            "max_ratio_sync_presync_reading uses the clients' "
                                            "estimators before the averaging instead"},
                       run=RunConfig("fedsgda-m", QUADRATIC, {**P13_SET, **P13_CONFIG},
                                     params["steps"], R, seed))


# ---- P15: Theorem 3.6 on the NC-C game ---------------------------------------------------------
def _p15_steps(L_f: Fraction, N: int, T: int, rule: str) -> dict[str, Fraction]:
    """Exact step sizes: Corollary 3.7's schedule (T a cube: every entry rational), or the
    largest the conditions allow, c = ĉ = 1/(10QL_f) with η_x = η_y = 1 (Local SGDA+ at the caps
    of Theorem 3.6 and Lemma B.2), Q and S from Corollary 3.7."""
    cor = registry.get("fedsgda.cor3.7")
    v: dict[str, Any] = {"L_f": L_f, "N": N, "T": T}
    v.update({k: Fraction(max(1, round(x))) for k, x in exact_schedule(cor, ("Q", "S"),
                                                                      v).items()})
    if rule == "Cor 3.7":
        v.update(exact_schedule(cor, ("c", "c_hat"), v))
        v.update(exact_schedule(cor, ("eta_x", "eta_y"), v))
    elif rule == "largest":
        cap = 1 / (10 * v["Q"] * L_f)
        v.update(c=cap, c_hat=cap, eta_x=Fraction(1), eta_y=Fraction(1))
    else:
        raise ValueError(f"step rule must be 'Cor 3.7' or 'largest', got {rule!r}")
    return v


@claim("fedsgda.p15", title="Theorem 3.6 bound holds for FedSGDA+ on an NC-C game",
       prediction="on the NC-C game (C = 0, y in the ball ‖y‖ ≤ r) with additive noise, the "
       "measured (1/T) Σ E‖∇Φ_{1/2L_f}(x̄_t)‖² is at most Theorem 3.6's bound (printed and "
       "with ĉ ≤ 1/(10QL_f)) at a-posteriori G_x, D, Δ: observed/bound ≤ 1, under Cor 3.7's "
       "steps and under the largest steps the conditions allow",
       source="Theorem 3.6 [L175–L177], Corollary 3.7 [L179], Lemma B.2 [L451]; G_x, D read as "
       "errata G_x-per-client, D-diameter say",
       provenance="erratum",
       theorems=("fedsgda.thm3.6", "fedsgda.thm3.6.corrected", "fedsgda.cor3.7"),
       errata=("thm3.6-c_hat", "G_x-per-client", "D-diameter"),
       rule=UpperBound("bound_scale", end="lower"),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off slack on comparing observed/bound "
                      "with bound_scale. The statistical allowance is the interval's lower end, "
                      "(mean − 3 SE over the replicas)/bound, not the rtol."),
       params={"Ts": (64, 216), "rules": ("Cor 3.7", "largest"), "replicas": 8,
               "bound_scale": 1.0, "theory_scale": 1.0},
       profiles={"full": {"Ts": (64, 512, 4096), "replicas": 16}},
       perturb={"bound_scale": 1e-3},
       plants=(Plant({"theory_scale": 1e-3}, why="multiplies Theorem 3.6's bound (engine.bound at "
                     "the run's a-posteriori G_x, D, Δ) by 10⁻³, a wrong constant in the theory: "
                     "the measured Moreau metric must exceed it"),),
       figure=FigureSpec("FedSGDA+ on the NC-C game: measured Moreau metric vs Theorem 3.6",
                         "T (rounds)", "(1/T) Σ E‖∇Φ_{1/2L_f}(x̄_t)‖²", logx=True),
       published=(Published(
           ("moreau_max_error",), floor=2 * math.sqrt(2**11 * EPS),
           why="the inner solve's certificate 2L_f√(2δ/(λ_min(Ā) + 2L_f)) once its trust-region "
               "multiplier has converged (|Δν| ≤ 10⁻¹⁵(1 + ν)): the gap δ is then its rounding "
               "allowance 8ε(|h| + |d|) plus the rounding of h − d, ≲ 2⁵ε·2⁵ for envelope terms "
               "≲ 2⁵, and 2L_f/√(λ_min(Ā) + 2L_f) ≤ 2 (L_f = 1.62): ≤ 2√(2¹¹ε)"),))
def p15(params: Params, seed: int) -> Measurement:
    """Per step rule and T (a cube): the run's Moreau metric (certified inner solve, error
    reported), G_x = the largest ‖∇_x f_i‖ at every local iterate (per client, erratum
    G_x-per-client), D = max_k ‖ȳ_kS − y*(x̃_k)‖² (erratum D-diameter), Δ = Φ_{1/2L_f}(x_0) −
    E Φ_{1/2L_f}(x̄_T) (its upper estimate), σ² = σ_x² + σ_y², ζ² exact; the bound by
    engine.bound. Statistic: max observed/bound where the conditions hold. The algorithm keeps y
    in the ball by projection (the game's constraint; the setting of Local SGDA+ [50] behind
    ‖ȳ_t‖² ≤ D), which Theorem 3.6's unconstrained statement does not cover."""
    g = _game(NCC, P15_SET, params["instance_seed"])
    k, R, N = g.constants, params["replicas"], g.M
    thms = ("fedsgda.thm3.6", "fedsgda.thm3.6.corrected")
    env0 = float(ncc_moreau(g, g.z0[: g.dx]).upper)
    rows, series, hlines, conditions = [], {}, {}, []
    checked = set(engine.compiled(registry.get(thms[1])).names)
    for rule in params["rules"]:
        obs_s: list[float] = []
        for T in params["Ts"]:
            v = _p15_steps(Fraction(k["L_f"]), N, T, rule)
            conditions.append(RunConditions(thms[1], {n: x for n, x in v.items() if n in checked},
                                            f"{rule} steps, T = {T}"))
            cfg = {"c": float(v["c"]), "c_hat": float(v["c_hat"]), "eta_x": float(v["eta_x"]),
                   "eta_y": float(v["eta_y"]), "Q": int(v["Q"]), "S": int(v["S"]), "b": 1.0}
            gx = [0.0]

            def watch(z: np.ndarray, grad: np.ndarray, gx: list[float] = gx) -> None:
                gx[0] = max(gx[0], float(np.sqrt(np.max(np.sum(grad[..., : g.dx] ** 2, -1)))))

            observe = {f"x{j}": (lambda st, j=j: st.z[:, j]) for j in range(g.dx)}
            observe["D"] = lambda st: np.sum((st.z[:, g.dx:] - ncc_y_star(g, st.x_tilde)) ** 2,
                                             axis=-1)
            tr = simulate(build_plus(g, cfg, watch), T, replicas=R, seed=seed, observe=observe)
            X = np.stack([tr.metrics[f"x{j}"] for j in range(g.dx)], axis=-1)
            mp = ncc_moreau(g, X)
            per = mp.grad_sq[:-1].mean(axis=0)
            obs, se = float(per.mean()), float(per.std(ddof=1) / math.sqrt(R))
            D = float(tr.metrics["D"][tr.iterations % cfg["S"] == 0].max())
            inputs = {**{n: Fraction(x) for n, x in v.items() if n != "T"}, "T": Fraction(T),
                      "G_x": Fraction(gx[0]), "D": Fraction(D),
                      "Delta_lam": Fraction(max(0.0, env0 - float(mp.lower[-1].mean()))),
                      "sigma": Fraction(float(np.hypot(g.sigma_x, g.sigma_y))),
                      "zeta": Fraction(math.sqrt(k["zeta_sq"]))}
            row: dict[str, Any] = {"rule": rule, "T": T, **cfg, "observed": obs,
                                   "observed_se": se, "G_x": gx[0], "D": D,
                                   "Delta_lam": float(inputs["Delta_lam"]),
                                   "moreau_max_error": float(mp.error.max()),
                                   "diverged": tr.diverged}
            for tid in thms:
                thm = registry.get(tid)
                bd = engine.bound(thm, {n: inputs[n] for n in thm.inputs()})
                if params["theory_scale"] != 1.0:  # a plant: a wrong constant in the bound
                    bd = replace(bd, value=bd.value * params["theory_scale"])
                row[tid] = {"bound": bd.value, "ratio": obs / bd.value,
                            "lower_ratio": (obs - 3 * se) / bd.value,
                            "conditions_hold": bd.feasible, "violated": bd.violated,
                            "terms": bd.terms}
            rows.append(row)
            obs_s.append(obs)
            hlines[f"{rule}: Thm 3.6 bound at T = {T}"] = row[thms[0]]["bound"]
        series[f"{rule}: measured"] = (list(params["Ts"]), obs_s)
    tested = [(r, t) for r in rows for t in thms if r[t]["conditions_hold"]]
    worst_row, worst_thm = max(tested, key=lambda rt: rt[0][rt[1]]["ratio"]) if tested else \
        (rows[0], thms[0])
    stat = worst_row[worst_thm]["ratio"]
    lo = max((r[t]["lower_ratio"] for r, t in tested), default=-math.inf)
    cond_ok = all(r[t]["conditions_hold"] for r in rows for t in thms)
    last = rows[-1]
    return Measurement(stat, interval=(lo, stat), series=series, hlines=hlines,
                       evidence={"runs": rows, "worst": {"rule": worst_row["rule"],
                                                         "T": worst_row["T"],
                                                         "theorem": worst_thm, "ratio": stat},
                                 "max_lower_ratio": lo, "replicas": R, "L_f": k["L_f"],
                                 "radius": g.radius, "zeta_sq": k["zeta_sq"],
                                 "moreau_accuracy": "‖∇Φ_{1/2L_f}‖ to within the reported "
                                                    "certified error (duality gap of the inner "
                                                    "solve)"},
                       diverged="a run diverged" if any(r["diverged"] for r in rows) else None,
                       inconclusive=None if cond_ok else
                       "a theorem's conditions fail at the realized steps", conditions=conditions,
                       run=RunConfig("fedsgda-plus", NCC, {**P15_SET, **{
                           n: last[n] for n in ("c", "c_hat", "eta_x", "eta_y", "Q", "S",
                                                "b")}}, last["T"], R, seed))
