"""FedDRO claims ``feddro.p<N>`` (arXiv:2311.12652; sources: its numbering, [Lnnn] a line of its v1
text); runs, round maps and theorems: ``verify.{algorithms,exact}.feddro``, ``theorems.feddro``.

Seeds: the scalar families (counterexample, P1, P2) have no random instance; the DRO datasets of
P12 are drawn from the instance seed (``params["instance_seed"]``), the points P12 samples them
at, the stochastic oracles of every run and P15's extra draws from the noise seed (P15's
reference data come from its ``data_seed`` parameter)."""

# ruff: noqa: E741  (I is the paper's number of local steps, Algorithm 1 [L167])

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fedbounds import engine
from fedbounds.complexity import schedule_values
from fedbounds.errors import BadInput
from fedbounds.problems.feddro import CompositionalProblem, chi2_values, kl_values, make

from ..algorithms.feddro import (
    FEDDRO,
    MODIFIED_FEDAVG,
    History,
    drift_threshold,
    momentum,
    potential_descent,
    run_feddro,
    run_feddro_many,
    theorem_steps,
)
from ..claim import (
    Check,
    FigureSpec,
    Interval,
    LowerBound,
    Measurement,
    Params,
    Predictions,
    RunConfig,
    UpperBound,
    claim,
)
from ..conditions import RunConditions
from ..exact.feddro import (
    ETA0_LIMITS,
    LOWER_BOUND,
    X0,
    costs_at,
    generalisation,
    horizon_F1,
    nonconvergence_runs,
    smoothness_rows,
    theorem,
    theorem_at,
    tracking_steady_state,
)
from ..fitting import loglog_slope, mean_ci, replica_slope
from ..perturbation import Plant
from ..publication import EPS, Published

PREDICTIONS = Predictions(
    "feddro", 15, "the numbered checkable predictions of the paper's theorems, corollaries, "
    "lemmas and experiments: claims p1–p15 test them; higher numbers are additions")


def _abc(params: Params) -> dict[str, float]:
    return {"A": params["A"], "C": params["C"], "s": params["s"]}


def _at(theorem_id: str, problem: CompositionalProblem | None, where: str,
        **values: Any) -> RunConditions:
    """The run's inputs to ``theorem_id``'s conditions: the instance's constants (of
    ``problem``) and ``values`` (T, I, |b|, η, β …), those that are the theorem's inputs."""
    names = set(engine.compiled(theorem(theorem_id)).names)
    given = {**(problem.constants if problem is not None else {}), **values}
    return RunConditions(theorem_id, {k: v for k, v in given.items() if k in names}, where)


@claim("feddro.p1", title="Case II FedAvg for CO does not converge",
       prediction="Algorithm 1 Case II on the Theorem 4.1 instance: x̄^t ≥ 0.5 at every "
                  "communication round, ‖∇Φ‖² ≥ 1/17 (Appendix D [L531]), a fixed point > 1 "
                  "(ours)", source="Theorem 4.1; Appendix D, Case II [L186–L188, L511–L600]",
       provenance="paper",
       theorems=("feddro.thm4.1",), rule=LowerBound(bound="threshold"), perturb={"threshold": 0.6},
       params={"etas": [0.01, 0.04, 0.999 / 22], "I_values": [2], "iters_per_eta": 200,
               "threshold": 0.5, "fixed_point_min": 1.0, "table_tol": 1e-10, "conv_tol": 1e-6,
               "plot_rounds": 400, "case": "II", "variants": ["proof"]},
       plants=(Plant({"case": "II", "I_values": [1]},
                     why="Case II with a single local step (I = 1, outside Theorem 4.1's I > 1) is "
                         "plain gradient descent on Φ and converges to x* = 0, so x̄^t must fall "
                         "below 1/2"),),
       profiles={"full": {"etas": [0.001, 0.01, 0.02, 0.04, 0.045, 0.999 / 22],
                          "iters_per_eta": 400}},
       figure=FigureSpec("Algorithm 1 on the Theorem 4.1 instance", "communication round",
                         "x̄ (round start)", logy=False))
def p1(params: Params, seed: int) -> Measurement:
    """P1/P2: x̄ ≥ 1/2 at every communication round and a fixed point > 1 (Theorem 4.1)."""
    case, variants = params["case"], params["variants"]
    runs, series, table_err = nonconvergence_runs(case, variants, *(params[k] for k in (
        "I_values", "etas", "iters_per_eta", "conv_tol", "plot_rounds")))
    fps, r0 = [r["fixed_point"] for r in runs], runs[0]
    thm = "feddro.thm4.1" if case == "II" else "feddro.thm4.1.corrected"  # p1 / p2
    conditions = [_at(thm, None, f"{r['variant']}, I = {r['I']}, η = {r['eta']:.4g}",
                      I=r["I"], eta=r["eta"], x0=X0) for r in runs if r["bound_checked"]]
    return Measurement(
        statistic=min(r["min_over_rounds"] for r in runs if r["bound_checked"]), series=series,
        hlines={"0.5 (paper)": 0.5, "x* = 0": 0.0,
                f"fixed point, {r0['variant']} I={r0['I']} η={r0['eta']:.4g}": r0["fixed_point"],
                f"η → 0 limit, {r0['variant']} I={r0['I']}": r0["fixed_point_eta0"]},
        evidence={"runs": runs, "table_max_abs_error": table_err, "min_fixed_point": min(fps),
                  "lower_bound_grad_sq": LOWER_BOUND,
                  "min_grad_sq_at_rounds": min(r["min_grad_sq"] for r in runs)},
        checks=(Check("every run reaches its fixed point", all(r["converged"] for r in runs)),
                Check("fixed points above fixed_point_min", min(fps) > params["fixed_point_min"]),
                Check("reference table reproduced", table_err <= params["table_tol"])),
        conditions=conditions,
        run=RunConfig(f"feddro-fedavg-co-case{1 if case == 'I' else 2}", "feddro-counterexample",
                      {"I": r0["I"], "eta": r0["eta"], **({"literal": 0} if case == "I" else {})},
                      r0["rounds"] * r0["I"], sweeps={"eta": params["etas"], "I": params[
                          "I_values"], **({"literal": [0, 1]} if len(variants) > 1 else {})}))


p2 = p1.variant(
    "feddro.p2", title="Case I FedAvg for CO does not converge (proof and literal variants, also "
    "with I = 1: beyond Theorem 4.1's conditions)", prediction="Algorithm 1 Case I: x̄^t ≥ 0.5, "
    "limits ≈ 1.1737 (proof) / 1.1827 (literal) at η = 0.01, also for I = 1 and for η up to "
    "Case I's 1/8, where the encoded Theorem 4.1's conditions fail (App. D [L481]; ours)",
    source="Appendix D [L456–L507]",
    provenance="extrapolation",
    derivation=("Theorem 4.1 [L188] is stated for I > 1 and one C_η; Appendix D's Case I claim "
                "[L481] proves x̄^t ≥ 1/2 at I = 2 for η < 1/8. The encoded theorem "
                "(feddro.thm4.1.corrected) keeps both cases' step bounds and I ≥ 2 among its "
                "conditions, so the Case I runs at η ≥ 1/22 (0.999/8; also 0.1 in the full "
                "profile) fail 'η < 1/22 (Case II)' (by 0.079 at 0.999/8) and those at I = 1 "
                "(proof variant) fail 'I ≥ 2' (by 1). The runs go there on purpose: the "
                "corrected scope (erratum thm4.1-scope, derived here) has Case I fail for every "
                "I ≥ 1 and η ≤ 1/8, i.e. the paper's non-convergence taken to I = 1 and to Case "
                "I's own step bound"),
    theorems=("feddro.thm4.1.corrected",), errata=("thm4.1-scope", "alg1-caseI-variant"),
    params={"etas": [0.01, 0.04, 0.999 / 8], "I_values": [1, 2], "case": "I",
            "variants": ["proof", "literal"]},
    perturb={"case": "II", "I_values": [1], "etas": [0.01, 0.04]},
    plants=(Plant({"case": "II", "I_values": [1], "etas": [0.01, 0.04]},
                  why="Case II with I = 1 (one local step: plain gradient descent on Φ) converges "
                      "to x* = 0, so the minimum of x̄^t over rounds must fall below 1/2 (the "
                      "threshold perturbation was vacuous: x̄⁰ = 0.5 pins it)"),),
    profiles={"full": {"etas": [0.001, 0.01, 0.04, 0.1, 0.999 / 8], "I_values": [1, 2, 4]}})


@claim("feddro.p3", seconds=1.3, title="Generalisation: I ∈ {1,2,3,4,8}, decaying steps, any start",
       prediction="η → 0 limits 1.05534, 1.10825, 1.12739, 1.15044 (Case II), 1.16867 (Case I, "
                  "any I); Case II with I = 1 converges to 0; η^t = 0.04/√(t+1) reaches the "
                  "η → 0 limits (ours)", source="Appendix D, generalised [L456–L600]",
       provenance="conjecture",
       no_conditions=("a conjecture of ours about Algorithm 1's round map (its η → 0 limits, "
                      "decaying steps, I from 1 to 8, starts x̄⁰ ∈ {−3, 0.2, 3, 10}): Theorem 4.1 "
                      "predicts only x̄^t ≥ 1/2 from x̄⁰ = 1/2, so no run tests a theorem's "
                      "prediction (Case II at I = 1 and the starts below 1/2 are outside its "
                      "conditions)"),
       theorems=("feddro.thm4.1.corrected",), errata=("thm4.1-scope",),
       rule=UpperBound(bound="tolerance", rtol=0.0), perturb={"tolerance": 1e-6},
       plants=(Plant({"decay_rounds": 100}, why="the decaying-step runs stopped after 100 "
                     "rounds, long before η^t = 0.04/√(t+1) is small: they cannot have reached "
                     "the η → 0 limits, and the error must show it"),),
       params={"I_values": [1, 2, 3, 4, 8], "decay_rounds": 20000, "eta": 0.01,
               "decay_eta": 0.04, "starts": [-3.0, 0.2, 3.0, 10.0], "tolerance": 2e-3},
       profiles={"full": {"I_values": [1, 2, 3, 4, 8, 16], "decay_rounds": 100000}},
       figure=FigureSpec("Decaying steps: x̄ per round → η→0 limits", "communication round", "x̄",
                         logx=True, logy=False))
def p3(params: Params, seed: int) -> Measurement:
    """P3: the round map's η → 0 limits, reached with decaying steps and any start."""
    errs, rows, starts, series = generalisation(*(params[k] for k in (
        "I_values", "eta", "decay_eta", "decay_rounds", "starts")))
    return Measurement(
        statistic=max(errs.values()), series=series,
        evidence={"errors": errs, "rows": rows, "starts": starts},
        hlines={"Case I limit": ETA0_LIMITS[("I", 2)], "Case II limit": ETA0_LIMITS[("II", 2)]},
        run=RunConfig("feddro-fedavg-co-case2", "feddro-counterexample",
                      {"I": 2, "eta": params["decay_eta"], "decay_sqrt": 1},
                      2 * params["decay_rounds"], sweeps={"I": params["I_values"]}))


@claim("feddro.p4", title="FedDRO / modified FedAvg fix the counterexample (at Algorithm 1's "
       "failing steps, beyond Theorem 4.2's)",
       prediction="x̄^t → 0 and ȳ^t ≡ (1/K)Σ g_k(x_k^t) exactly (deterministic, ȳ⁰ = g(x̄⁰)) at "
                  "the steps where Algorithm 1 fails (η = 0.04, 1/22, T = 2000), outside the "
                  "conditions of Theorem 4.2 [L194]",
       source="Theorem 4.2; Algorithm 2 [L192–L194, L202–L226]",
       provenance="extrapolation",
       derivation=("Theorem 4.2 [L194] asserts convergence for some choice of η; its proof "
                   "(Theorem 5.1 via Appendix E [L615]) takes η = √(|b|K/T) with T ≥ T_th, on "
                   "this instance T ≥ 4(L_Φ|b|K + 8B_g²)²/(|b|K) = 41472 (η ≤ 1/144). The runs "
                   "keep the steps at which Algorithm 1 fails (η = 0.04 and 1/22, feddro.p1) and "
                   "T = 2000, so that the comparison is at equal steps: T ≥ T_th fails by 39472, "
                   "η is 5.8 and 6.5 times the proof's (and FedDRO's β = 0.3 is not c_βη)"),
       theorems=("feddro.thm4.2", "feddro.thm5.1"), rule=UpperBound(bound="tolerance", rtol=0.0),
       params={"etas": [0.04, 1 / 22], "betas": [0.3], "T": 2000, "I": 2, "tolerance": 1e-10,
               "track_tolerance": 1e-24}, perturb={"T": 50},
       plants=(Plant({"I": 50}, why="50 local steps between model averagings, far beyond "
                     "Corollary 1's drift threshold: the clients' x drift apart on the "
                     "heterogeneous instance, so x̄^t must stop short of x* = 0"),),
       profiles={"full": {"etas": [0.01, 0.04, 1 / 22], "betas": [0.3, 1.0], "T": 20000}},
       figure=FigureSpec("FedDRO / modified FedAvg on the Theorem 4.1 instance", "iteration",
                         "|x̄^t − x*|"))
def p4(params: Params, seed: int) -> Measurement:
    """P4: FedDRO (any β) and the modified FedAvg (β = 1) reach x* = 0, tracking exactly."""
    prob, T, I, rows, series = make("feddro-counterexample", {}), params["T"], params["I"], [], {}
    # the modified FedAvg is FedDRO with β = 1 (MODIFIED_FEDAVG builds exactly that)
    grid = [(eta, alg, beta) for eta in params["etas"]
            for alg, betas in ((FEDDRO, params["betas"]), (MODIFIED_FEDAVG, [1.0]))
            for beta in betas]
    runs = run_feddro_many([(prob, T, {"eta": eta, "I": I, "beta": beta})
                            for eta, _, beta in grid], 1, seed, ("xbar", "track"))
    for (eta, alg, beta), h in zip(grid, runs, strict=True):
        x, name = h.mean("xbar"), "feddro" if alg is FEDDRO else "modified-fedavg"
        rows.append({"algorithm": name, "eta": eta, "beta": beta,
                     "final_abs_x": float(abs(x[-1])),
                     "max_track": float(np.nanmax(h.mean("track")))})
        k = np.arange(0, x.size, max(1, x.size // 300))
        series[f"{name} η={eta:.3g} β={beta:g}"] = (k.tolist(), np.abs(x[k]).tolist())
    track = max(r["max_track"] for r in rows)
    conditions = [_at("feddro.thm5.1" if alg is FEDDRO else "feddro.thm4.2", prob,
                      f"{alg.name}, η = {eta:.4g}, β = {beta:g}, T = {T}", T=T, I=I, b=1)
                  for eta, alg, beta in grid]
    return Measurement(
        statistic=max(r["final_abs_x"] for r in rows), series=series, conditions=conditions,
        evidence={"rows": rows, "max_tracking_error": track,
                  "track_tolerance": params["track_tolerance"]},
        checks=(Check("ȳ tracks (1/K)Σ g_k exactly", track <= params["track_tolerance"]),),
        run=RunConfig("feddro", "feddro-counterexample", {"eta": params["etas"][0], "I": I,
                                                          "beta": params["betas"][0]}, T,
                      sweeps={"eta": params["etas"], "beta": params["betas"]}))


@claim("feddro.p5", seconds=1.7, title="FedDRO rate T^(-1/2)",
       prediction="log–log slope of G_T vs T is −0.5 ± 0.1 with η = √(|b|K/T) (Cor. 1 [L247])",
       source="Theorem 5.1; Corollary 1 [L232–L247]", theorems=("feddro.thm5.1", "feddro.cor1"),
       provenance="paper",
       rule=Interval(predicted="predicted", tol="tolerance"), perturb={"predicted": -1.0},
       tolerance_why=("±0.1 on a slope: a modelling slack chosen by us, since Corollary 1's "
                      "O(T^(-1/2)) is an upper bound read as a rate and finite-T terms bend the "
                      "fit. The quick profile's mean replica slope −0.468 has 95% CI [−0.487, "
                      "−0.450] (48 replicas), which misses −1/2: only the tolerance confirms."),
       params={"Ts": [2000, 8000, 32000], "Ks": [2], "sweep": "T", "I_values": [1],
               "replicas": 48,
               "predicted": -0.5, "tolerance": 0.1, "A": 0.5, "C": 0.5, "s": 1.0, "eta": 0.0},
       profiles={"full": {"Ts": [2000, 8000, 32000], "I_values": [1, 4], "replicas": 200}},
       plants=(Plant({"eta": 0.1}, why="a constant step η = 0.1 instead of Corollary 1's "
                     "η = √(|b|K/T) (the schedule the rate needs): G_T settles at the noise "
                     "floor ηL σ²/(|b|K) and its slope in T must leave −1/2 ± 0.1"),),
       figure=FigureSpec("FedDRO on P1: G_T vs T", "T", "G_T = (1/T)Σ‖∇Φ(x̄^t)‖²", logx=True))
def p5(params: Params, seed: int) -> Measurement:
    """P5/P6: G_T ∝ T^{-1/2} (Cor. 1), ∝ K^{-1/2} (Cor. 2); replica slope CIs, mean over I."""
    Ts, Ks, R, sweep = params["Ts"], params["Ks"], params["replicas"], params["sweep"]
    fits, series, scaled, conditions = {}, {}, {}, []
    thm = "feddro.cor1" if sweep == "T" else "feddro.cor2"  # p5 / p6
    for I in params["I_values"]:
        eta = {"eta": params["eta"]} if params["eta"] else {}  # 0: Corollary 1's √(|b|K/T)
        grid = [(make("feddro-p1", {**_abc(params), "K": K}), T, {"T": T, "I": I, **eta})
                for K in Ks for T in Ts]
        conditions += [_at(thm, prob, f"I = {I}, K = {prob.K}, T = {T}", T=T, I=I, b=1)
                       for prob, T, _ in grid]
        G = np.stack([h.G(T) for (_, T, _), h in zip(
            grid, run_feddro_many(grid, R, seed, ("grad_phi_sq",)), strict=True)], 1)
        x = np.array(Ts if sweep == "T" else Ks, float)
        fits[f"I={I}"] = replica_slope(x, G).as_dict()
        series[f"I={I}" if sweep == "T" else "G_T"] = (x.tolist(), G.mean(axis=0).tolist())
        scaled[f"I={I}"] = (np.sqrt(np.multiply.outer(Ks, Ts).ravel()) * G.mean(axis=0)).tolist()
    lo, hi = min(f["lo"] for f in fits.values()), max(f["hi"] for f in fits.values())
    return Measurement(
        statistic=float(np.mean([f["slope"] for f in fits.values()])), interval=(lo, hi),
        series=series, evidence={"fits": fits, "ci": [lo, hi], "sqrt_KT_G_T": scaled},
        conditions=conditions,
        run=RunConfig("feddro", "feddro-p1", {**_abc(params), "K": Ks[0], "T": Ts[0],
                                               "I": params["I_values"][0]}, Ts[0], R,
                      sweeps={"T": Ts} if sweep == "T" else {"K": Ks}))


p6 = p5.variant("feddro.p6", seconds=1.6, title="Linear speedup in the number of clients K",
                tolerance_why=("±0.1 on a slope: a modelling slack chosen by us, since Corollary "
                               "2's O(K^(-1/2)) is an upper bound read as a rate and finite-T "
                               "terms bend the fit. The quick profile's mean replica slope −0.439 "
                               "has 95% CI [−0.471, −0.407] (48 replicas, T = 2000), which misses "
                               "−1/2: only the tolerance confirms."),
                prediction="G_T ∝ K^(−1/2) at fixed T (slope −0.5 ± 0.1) (Cor. 2 (i) [L257])",
                source="Corollary 2 [L251–L263]", theorems=("feddro.cor2",),
                provenance="paper",
                params={"Ts": [2000], "Ks": [2, 4, 8, 16], "sweep": "K"},
                plants=(Plant({"eta": 0.1}, why="a constant step η = 0.1 instead of Corollary "
                              "2's η = √(|b|K/T): G_T sits at the noise floor ∝ η/K and its "
                              "slope in K must leave −1/2 ± 0.1"),),
                profiles={"full": {"Ts": [8000], "I_values": [1]}},
                figure=FigureSpec("FedDRO on P1: G_T vs K", "K", "G_T", logx=True))


@claim("feddro.p7", seconds=1.1,
       title="Client drift: local steps I hurt beyond 1 + T^(1/4)/(|b|K)^(3/4) (outside Theorem "
       "5.1's T ≥ T_th)",
       prediction="G_T flat for I ≤ I_th and growing beyond (Thm 5.1 remark, Cor. 1 [L241, L245]), "
                  "on P2 at T = 4000, where Theorem 5.1's conditions fail",
       source="Cor. 1 [L241–L247]", theorems=("feddro.thm5.1", "feddro.cor1"),
       rule=LowerBound(bound="growth_min"),
       provenance="extrapolation",
       derivation=("the remark after Theorem 5.1 [L241] says heterogeneity degrades the "
                   "performance once |b|K(I−1)²/T dominates 1/√(|b|KT), i.e. beyond Corollary 1's "
                   "I_th [L245] (a reading of the bound's 𝒞 factor). On P2 (L_h = 3, K = 8) at T = "
                   "4000 every run fails Theorem 5.1's T ≥ 216(L_h² + B_f²L_g²)I²|b|K = 15552·I² "
                   "(by 11552 at I = 1, 6.4·10⁷ at I = 64), and the runs above I_th fail "
                   "Corollary 1's I − 1 ≤ T^{1/4}/(|b|K)^{3/4} too (by 13.3 at I = 16, 61.3 at I = "
                   "64), by design: no affordable T meets the drift condition at I = 64 (T ≥ "
                   "6.4·10⁷), so the remark's growth is looked for beyond the theorem"),
       params={"I_values": [1, 2, 16, 64], "T": 4000, "K": 8, "replicas": 12,
               "flat_tolerance": 0.15, "growth_min": 2.0, "het": 1.0},
       perturb={"growth_min": 100.0},
       plants=(Plant({"het": 0.0}, why="homogeneous clients (het = 0: every h_k = h), where the "
                     "remark's degradation by heterogeneity has nothing to act on: G_T must not "
                     "grow with I"),),
       profiles={"full": {"I_values": [1, 2, 4, 16, 64, 256], "T": 16000, "replicas": 48}},
       figure=FigureSpec("FedDRO on P2: G_T vs I", "I", "G_T", logx=True))
def p7(params: Params, seed: int) -> Measurement:
    """P7: G_T(I)/G_T(1) ≈ 1 below Corollary 1's I_th and growing above it."""
    Is, T, K, R = params["I_values"], params["T"], params["K"], params["replicas"]
    het = {"het": params["het"]} if params["het"] != 1.0 else {}  # 1: P2 as it is
    prob = make("feddro-p2", {"K": K, "A": 0.5, "C": 0.5, "s": 1.0, **het})
    thr = drift_threshold(prob, T)
    est = [mean_ci(h.G(T)) for h in run_feddro_many([(prob, T, {"T": T, "I": I}) for I in Is],
                                                     R, seed, ("grad_phi_sq",))]
    Gs = [e.value for e in est]
    conditions = [_at("feddro.thm5.1", prob, f"I = {I}, T = {T}", T=T, I=I, b=1) for I in Is]
    flat_dev = max((abs(G / Gs[0] - 1) for I, G in zip(Is, Gs, strict=True) if 1 < I <= thr),
                   default=0.0)
    above = [G for I, G in zip(Is, Gs, strict=True) if I > thr]
    monotone = all(b >= a * 0.95 for a, b in zip(above, above[1:], strict=False))
    return Measurement(
        statistic=Gs[-1] / Gs[0], series={"G_T": (list(map(float, Is)), Gs)},
        evidence={"I_threshold": thr, "G_T": dict(zip(map(str, Is), Gs, strict=True)),
                  "ci": dict(zip(map(str, Is), [[e.lo, e.hi] for e in est], strict=True)),
                  "flat_deviation": flat_dev, "monotone_above_threshold": monotone},
        checks=(Check("G_T flat below I_th", flat_dev <= params["flat_tolerance"]),
                Check("G_T monotone above I_th", monotone)),
        conditions=conditions,
        run=RunConfig("feddro", "feddro-p2", {"K": K, "A": 0.5, "C": 0.5, "s": 1.0, "T": T,
                                               "I": Is[0]}, T, R, sweeps={"I": Is}))


@claim("feddro.p8", title="Theorem F.1 bound holds with exact constants (bound / observed)",
       prediction="measured G_T ≤ Theorem F.1 bound (L̄ corrected) for T ≥ max(T_th, c_β²|b|K) "
                  "(Theorem F.1, errata applied)", source="Theorem F.1 [L625–L636]",
       provenance="erratum",
       theorems=("feddro.thm5.1.corrected", "feddro.thmF.1.corrected"),
       errata=("Lbar-coefficient", "beta-le-1"), rule=LowerBound(bound=1.0),
       params={"configs": [{"s": 0.0, "I": 1, "R": 1}, {"s": 0.0, "I": 2, "R": 1},
                           {"s": 0.5, "I": 2, "R": 8}], "K": 2, "A": 0.5, "C": 0.5, "scale": 1.0},
       profiles={"full": {"configs": [{"s": 0.0, "I": 1, "R": 1}, {"s": 0.0, "I": 2, "R": 1},
                                      {"s": 0.5, "I": 1, "R": 32}, {"s": 0.5, "I": 2, "R": 32}]}},
       perturb={"scale": 1e-4},
       plants=(Plant({"scale": 1e-4}, why="multiplies the Theorem F.1 bound the measure computes "
                     "from the exact constants by 10⁻⁴ (a wrong constant in the theory): the "
                     "observed G_T must exceed it"),),
       figure=FigureSpec(
           "Theorem F.1 bound vs observed G_T (P1)", "configuration", "value", kind="scatter"))
def p8(params: Params, seed: int) -> Measurement:
    """P8: G_T's 95% CI ≤ Theorem F.1's bound from T = max(T_th, c_β²|b|K); min bound/G_T."""
    rows, K, conditions = [], params["K"], []
    for cfg in params["configs"]:
        prob = make("feddro-p1", {"K": K, "A": params["A"], "C": params["C"], "s": cfg["s"]})
        c = {**prob.constants, "y_err0": 0.0, "b": 1, "I": cfg["I"]}
        T, T_th, T_beta = horizon_F1(c)
        conditions.append(_at("feddro.thmF.1.corrected", prob, f"s = {cfg['s']:g}, I = "
                              f"{cfg['I']}, T = {T}", T=T, I=cfg["I"], b=1))
        h = run_feddro(prob, T, cfg["R"], seed, ("grad_phi_sq", "xbar"), T=T, I=cfg["I"])
        box = float(np.max(np.abs(h.mean("xbar"))))  # σ_g² ≥ s²(1 + x²) on |x| ≤ 2·box
        c |= {"sigma_g": cfg["s"] * math.sqrt(1 + (2 * box) ** 2), "T": T}
        terms = {k: float(v) for k, v in theorem_at("feddro.thmF.1.corrected", c).terms.items()}
        bound, G = sum(terms.values()) * params["scale"], h.G(T)
        rows.append({"s": cfg["s"], "I": cfg["I"], "T": T, "T_th": T_th, "T_beta": T_beta,
                     "G_T": float(G.mean()), "bound_F1": bound, "terms": terms,
                     "G_T_ci_hi": mean_ci(G).hi if cfg["R"] > 1 else float(G.mean()),
                     "bound_thm5.1": float(theorem_at("feddro.thm5.1.corrected", c).value),
                     "ratio_bound_over_observed": bound / float(G.mean()),
                     "sigma_g_used": c["sigma_g"], "visited_max_abs_x": box})
    worst, xs = max(rows, key=lambda r: r["G_T_ci_hi"] / r["bound_F1"]), list(range(len(rows)))
    return Measurement(
        statistic=min(r["ratio_bound_over_observed"] for r in rows), evidence={"rows": rows},
        series={"bound": (xs, [r["bound_F1"] for r in rows]),
                "observed G_T": (xs, [r["G_T"] for r in rows])},
        checks=(Check("upper end of the 95% CI of G_T ≤ the bound (every configuration)",
                      worst["G_T_ci_hi"] <= worst["bound_F1"] * (1 + 1e-9)),),
        conditions=conditions,
        run=RunConfig("feddro", "feddro-p1", {"K": K, "A": params["A"], "C": params["C"],
                                               "s": rows[0]["s"],
                                               "T": rows[0]["T"], "I": rows[0]["I"]}, rows[0]["T"]))


@claim("feddro.p9", seconds=1.6, title="Heterogeneity scaling of the client-drift excess of G_T: α⁴"
       " (beyond Theorem 5.1's conditions)",
       prediction="on P2 with I above the Corollary 1 threshold, at a fixed step the drift excess "
                  "lim G_T(I) − lim G_T(1) grows like α⁴ in the heterogeneity scale α (log-log "
                  "slope 4 ± 0.5: the drift bias is O(α²), its square O(α⁴)); at I = 1 the "
                  "heterogeneity of a linear g does not matter; at T = 4000, I = 16, where "
                  "Theorem 5.1's conditions fail",
       source="derived here from the local updates of Algorithm 2 [L202–L226]; Theorem 5.1's "
              "heterogeneity terms 𝒞·C_Δ Δ² [L236–L241] (Theorem F.1 [L634–L636]) grow only "
              "like α², as an upper bound: feddro.p16 asks whether it holds",
       provenance="extrapolation",
       derivation=("with I local steps of size η the averaged update drifts from the centralised "
                   "one by η(I − 1)/2 × (Hessian of each client's Φ_k) × (deviation of its gradient"
                   " from the mean) + O(η²I²): the client deviations scale with α and so do the "
                   "Hessian deviations on P2, so the drift bias of ∇Φ at the limit orbit is O(α²) "
                   "and its square, the excess lim G_T(I) − lim G_T(1), is O(α⁴) (slope 4 in α). At"
                   " I = 1 a linear g's heterogeneity cancels in the average exactly. Theorem F.1's"
                   " Δ² terms [L636] grow like α² but are an upper bound, not the rate. Leading "
                   "order in α, so not exact. Every run the slope uses (I = 16, and I = 1 at the "
                   "ends of the α grid) fails Theorem 5.1's T ≥ 216(L_h² + B_f²L_g²)I²|b|K on P2 "
                   "(L_h = 2.06–2.25 along the grid; by 3351–4748 at I = 1, 1.9–2.2·10⁶ at I = "
                   "16): the drift law is one of the algorithm at any small step, and I = 16 is "
                   "above Corollary 1's I_th on purpose, so it is measured beyond the theorem"),
       theorems=("feddro.thm5.1", "feddro.cor1"),
       rule=Interval(predicted="predicted", tol="tolerance"), perturb={"predicted": 2.0},
       tolerance_why=("±0.5 on a slope: a modelling slack chosen by us for a law derived to "
                      "leading order in α (higher orders in α and η neglected). The runs are "
                      "deterministic (exact orbits); the OLS fit over the 3 α points has 95% "
                      "interval [3.91, 4.06], which contains 4."),
       plants=(Plant({"knob": "A"}, why="scales only A (the f-part), not the clients' "
                     "deviations of g and its Hessian that the α⁴ drift law needs: the excess no "
                     "longer grows like α⁴, so the slope must leave 4 ± 0.5"),),
       params={"alphas": [1 / 16, 1 / 8, 1 / 4], "K": 8, "T": 4000, "I": 16, "knob": "het",
               "A_alphas": [0.5, 1.0, 2.0], "tail_rounds": 10, "conv_tol": 1e-6,
               "predicted": 4.0, "tolerance": 0.5, "invariance_As": [0.0, 0.5, 2.0],
               "invariance_T": 1000, "invariance_replicas": 8, "invariance_tol": 1e-9,
               "stochastic_replicas": 0},
       profiles={"full": {"alphas": [1 / 16, 1 / 8, 1 / 4, 1 / 2], "T": 16000,
                          "A_alphas": [0.25, 0.5, 1.0, 2.0, 4.0], "stochastic_replicas": 24}},
       figure=FigureSpec("FedDRO on P2 (deterministic): drift bias vs heterogeneity α",
                         "α (client deviations × α)", "lim G_T(I) − lim G_T(1)", logx=True))
def p9(params: Params, seed: int) -> Measurement:
    """P9: lim G_T(I) − lim G_T(1) vs the heterogeneity scale α (deterministic, exact orbits);
    at I = 1 G_T does not depend on the heterogeneity of a linear g. [derived] The drift bias
    of the averaged gradient is η(I−1) × Hessian × gradient heterogeneity = O(α²), so its
    square is O(α⁴) (predicted slope 4); the Δ² of Theorem F.1 [L636] is an upper bound, not
    the rate (its perturbation, slope 2, is the Δ² reading, refuted)."""
    K, T, I, knob, tail = params["K"], params["T"], params["I"], params["knob"], params["tail_rounds"]
    if knob not in ("het", "A"):
        raise BadInput("knob", "'het' (all client deviations × α) or 'A' (A → 0.5α only)")
    base = make("feddro-p2", {"K": K, "A": 0.5, "C": 0.5, "s": 0.0, "s_h": 0.0})
    steps = theorem_steps(base, T)  # Theorem 5.1; deterministic: β does not matter (p4)
    eta, beta = steps["eta"], min(1.0, steps["beta"])

    def prob(alpha: float, knob: str, s: float = 0.0, A: float = 0.5) -> CompositionalProblem:
        scaled = {"het": alpha} if knob == "het" else {"A": A * alpha}
        return make("feddro-p2", {"K": K, "A": A, "C": 0.5, "s": s, "s_h": s, **scaled})

    def runs(grid: list[tuple[CompositionalProblem, int]], R: int = 1, T_: int = T
             ) -> list[History]:
        """``run`` of every (problem, I) of ``grid``, as one vectorized run where they can."""
        return run_feddro_many([(p_, T_, {"eta": eta, "beta": beta, "I": I_}) for p_, I_ in grid],
                               R, seed, ("grad_phi_sq",))

    alphas = params["alphas"]
    problems = [prob(alpha, knob) for alpha in alphas]
    ends = sorted({0, len(alphas) - 1})  # I = 1 at both ends of the grid
    knob_A_problems = [prob(a, "A") for a in params["A_alphas"]]  # A → αA: Δ_g only
    det = runs([(p_, I) for p_ in problems] + [(problems[i], 1) for i in ends]
               + [(p_, I) for p_ in knob_A_problems])
    at_I, at_1 = det[:len(alphas)], dict(zip(ends, det[len(alphas):len(alphas) + len(ends)],
                                             strict=True))
    rows, r1 = [], None
    used = [(i, I) for i in range(len(alphas))] + [(i, 1) for i in ends]  # the slope's runs
    conditions = [_at("feddro.thm5.1", problems[i], f"α = {alphas[i]:g}, I = {I_}, T = {T}",
                      T=T, I=I_, b=1) for i, I_ in used]
    for i, alpha in enumerate(alphas):
        p_, r = problems[i], at_I[i]
        r1 = at_1.get(i, r1)
        (lim, rel), G, G1 = r.orbit_mean(I, tail), float(r.G(T).mean()), float(r1.G(T).mean())
        rows.append({"alpha": alpha, "Delta_g": p_.constants["Delta_g"],
                     "Delta_h": p_.constants["Delta_h"], "G_inf": lim, "orbit_rel_change": rel,
                     "G_inf_I1": r1.orbit_mean(1, tail)[0], "G_T": G, "G_T_I1": G1, "G_T_excess": G - G1,
                     "x_star": float(p_.x_star[0])})
    al = np.array(alphas, float)
    ginf, exc = (np.array([r[a] - r[b] for r in rows])
                 for a, b in (("G_inf", "G_inf_I1"), ("G_T", "G_T_I1")))
    fit = loglog_slope(al, ginf)
    converged = max(r["orbit_rel_change"] for r in rows) <= params["conv_tol"]
    knob_A = [{"alpha": a, "A": 0.5 * a, "G_T": float(r.G(T).mean()), "G_inf": r.orbit_mean(I, tail)[0]}
              for a, r in zip(params["A_alphas"], det[len(alphas) + len(ends):], strict=True)]
    A_up = all(b["G_T"] > a["G_T"] for a, b in zip(knob_A, knob_A[1:], strict=False))
    T_inv = params["invariance_T"]  # I = 1, s = s_h = 1: A must not matter (same seed)
    inv = {str(a): float(r.G(T_inv).mean()) for a, r in zip(params["invariance_As"], runs(
        [(prob(1.0, "A", 1.0, a), 1) for a in params["invariance_As"]],
        params["invariance_replicas"], T_inv), strict=True)}
    g0, ends = inv[str(params["invariance_As"][0])], [r["G_T_I1"] for r in rows]
    inv_dev = max(max(abs(v - g0) / g0 for v in inv.values()), abs(ends[-1] - ends[0]) / ends[0])
    noisy = [prob(a, knob, 1.0) for a in (alphas if params["stochastic_replicas"] else [])]
    pairs = runs([(p_, I_) for p_ in noisy for I_ in (I, 1)], params["stochastic_replicas"]) \
        if noisy else []
    stoch = [{"alpha": a, "G_T_excess": e.value, "ci": [e.lo, e.hi]}
             for a, r, r_1 in zip(alphas[:len(noisy)], pairs[::2], pairs[1::2], strict=True)
             for e in [mean_ci(r.G(T) - r_1.G(T))]]
    return Measurement(
        statistic=fit.slope, interval=(fit.lo, fit.hi),
        series={"observed": (al.tolist(), ginf.tolist()),
                "∝ α² (Δ² reading)": (al.tolist(), (ginf[0] * (al / al[0]) ** 2).tolist()),
                "∝ α⁴": (al.tolist(), (ginf[0] * (al / al[0]) ** 4).tolist())},
        evidence={
            "rows": rows, "fit": fit.as_dict(), "I": I, "I_threshold": drift_threshold(base, T),
            "fit_finite_T_excess": loglog_slope(al, exc).as_dict() if np.all(exc > 0) else None,
            "eta": eta, "beta": beta, "knob": knob, "orbit_converged": converged,
            "knob_A_rows": knob_A, "knob_A_G_T_increasing": A_up, "I1_invariance_G_T": inv,
            "I1_invariance_max_rel_dev": inv_dev, "stochastic_s1": stoch},
        checks=(Check("I = 1: G_T independent of the heterogeneity",
                      inv_dev <= params["invariance_tol"]),
                Check("periodic orbit reached", converged, "inconclusive")),
        conditions=conditions,
        run=RunConfig("feddro", "feddro-p2", {"K": K, "A": 0.5, "C": 0.5, "s": 0.0, "s_h": 0.0,
                                               "het": alphas[0], "eta": eta, "beta": beta,
                                               "I": I}, T, sweeps={"het": alphas}))


@claim("feddro.p10", title="Tracking error of ȳ scales like β/(|b|K) (Lemma F.4)",
       prediction="steady-state E‖ȳ^t − (1/K)Σg_k(x_k^t)‖² ∝ βσ_g²/(|b|K) (log-slopes +1 in β, "
                  "−1 in K) and below Lemma F.4's steady state (ours, from Lemma F.4 [L875–L878])",
       source="Lemma F.4 [L817–L878]", theorems=("feddro.thm5.1", "feddro.lemF.4"),
       provenance="derived",
       derivation=("Lemma F.4 [L875–L878] bounds the tracking error's steady state by a multiple of"
                   " βσ_g²/(|b|K) (its recursion contracts by (1 − β) per step and injects "
                   "β²σ_g²/(|b|K) of sampling noise, so the fixed point is ∝ β/(|b|K)); reading "
                   "that bound as the scaling of the error itself (the bound is attained up to a "
                   "constant) gives log-slopes +1 in β and −1 in K. The slopes are a reading (not "
                   "implied by an upper bound); the 'below Lemma F.4' part is exact"),
       rule=Interval(predicted="predicted_beta", tol="tolerance"), perturb={"predicted_K": 0.0},
       tolerance_why=("±0.2 on a slope: a modelling slack chosen by us for reading Lemma F.4's "
                      "steady-state bound as the error's scaling. The quick profile's β-slope "
                      "1.138 has 95% CI [1.065, 1.223] (8 replicas), which misses +1: only the "
                      "tolerance confirms (the K-slopes' CIs contain −1)."),
       plants=(Plant({"betas": [1.0, 0.4]}, why="β up to 1 (no STORM averaging), where the "
                     "recursion's steady state β/(2 − β) is far from linear in β: the β-slope "
                     "must leave 1 ± 0.2"),),
       params={"betas": [0.4, 0.1], "Ks": [2, 8], "T": 2000, "eta": 0.01, "replicas": 8,
               "predicted_beta": 1.0, "predicted_K": -1.0, "tolerance": 0.2, "A": 3.0, "C": 4.0,
               "s": 2.0, "record_every": 5},
       profiles={"full": {"betas": [0.5, 0.2, 0.05], "Ks": [2, 4, 8], "T": 6000, "replicas": 32}},
       figure=FigureSpec("FedDRO tracking error ‖ȳ − (1/K)Σg_k(x_k)‖² (P1)", "β", "track",
                         logx=True))
def p10(params: Params, seed: int) -> Measurement:
    """P10: tail tracking error vs β, K (replica slopes), below Lemma F.4's steady state."""
    betas, Ks, T, eta = params["betas"], params["Ks"], params["T"], params["eta"]
    seen = [t for t in range(T + 1) if t % params["record_every"] == 0 or t == T]
    tails, ss_bound, conditions = {}, {}, []
    for K in Ks:
        prob = make("feddro-p1", {"K": K, **_abc(params)})
        runs = run_feddro_many([(prob, T, {"eta": eta, "beta": beta}) for beta in betas],
                               params["replicas"], seed, ("track", "xbar"))
        for beta, h in zip(betas, runs, strict=True):
            tails[(K, beta)] = h.metrics["track"][[t for t in seen if 2 * t >= T]].mean(axis=0)
            conditions.append(_at("feddro.lemF.4", prob, f"K = {K}, β = {beta:g}, η = {eta:g}",
                                  beta=beta, eta=eta, b=1))
            box = float(np.max(np.abs(h.mean("xbar")[seen])))  # value variance s²(1 + x²)
            ss_bound[f"K={K} beta={beta}"] = tracking_steady_state(
                {**prob.constants, **dict.fromkeys(("sigma_h", "Delta_h", "Delta_g", "drift",
                                                    "grad_mean_sq"), 0.0),
                 "b": 1, "eta": eta, "beta": beta, "sigma_g": params["s"] * math.sqrt(1 + box**2)})
    fb = [replica_slope(np.array(betas, float), np.stack([tails[(K, bt)] for bt in betas], 1))
          for K in Ks]
    fk = [replica_slope(np.array(Ks, float), np.stack([tails[(K, bt)] for K in Ks], 1))
          for bt in betas]
    lo_k, hi_k = min(f.lo for f in fk), max(f.hi for f in fk)
    tol, pk = params["tolerance"], params["predicted_K"]
    means = {f"K={K} beta={bt}": float(v.mean()) for (K, bt), v in tails.items()}
    below = all(means[k] <= ss_bound[k] for k in means)
    return Measurement(
        statistic=float(np.mean([f.slope for f in fb])),
        interval=(min(f.lo for f in fb), max(f.hi for f in fb)),
        series={f"K={K}": (list(map(float, betas)), [means[f"K={K} beta={bt}"] for bt in betas])
                for K in Ks},
        evidence={"slope_beta": [f.as_dict() for f in fb], "slope_K": [f.as_dict() for f in fk],
                  "predicted_K": pk, "track_tail_mean": means, "lemmaF4_steady_state": ss_bound,
                  "below_lemmaF4": below, "eta": eta, "I": 1},
        checks=(Check("slope in K overlaps predicted_K ± tolerance (when decidable)",
                      hi_k - lo_k > 4 * tol or not (hi_k < pk - tol or lo_k > pk + tol)),
                Check("slope-in-K interval narrower than 4 × tolerance", hi_k - lo_k <= 4 * tol,
                      "inconclusive"),
                Check("below Lemma F.4's steady state", below)),
        conditions=conditions,
        run=RunConfig("feddro", "feddro-p1", {"K": Ks[0], **_abc(params), "eta": eta,
                                               "beta": betas[0]}, T, params["replicas"],
                      sweeps={"beta": betas, "K": Ks}))


_MC = {"K": 2, "A": 0.5, "C": 0.5, "s": 1.0, "s_h": 1.0, "offset": 1.0, "c_beta": "printed",
       "eta_frac": 0.9, "T": 100, "R": 2000}
_DET = {**_MC, "s": 0.0, "s_h": 0.0, "R": 1, "T": 400}
_SMALL = {"problem": "p1", "K": 2, "A": 0.0, "C": 0.0, "s": 0.0, "gscale": 0.2, "x0": 2.0,
          "ybar0": 0.0, "eta_frac": 0.36, "T": 400, "R": 1, "I": 1}  # η = 1.0, B_g = 0.2


@claim("feddro.p11", seconds=1.3, title="Potential descent V^{t+1} − V^t ≤ RHS (Lemma F.5)",
       prediction="V^t = E Φ(x̄^t) + E‖ȳ^t − (1/K)Σg_k(x_k^t)‖² decreases as Lemma F.5 states "
                  "when the step-size conditions and β ≤ 1 hold; with B_g < 1 the printed c_β = "
                  "4B_g⁴L_f² breaks the proof's cancellation, repaired by c_β = 4max(B_g², "
                  "B_g⁴)L_f² (ours)", source="Lemma F.5; Lemma F.2 [L884–L898, L653, L716]",
       provenance="erratum",
       theorems=("feddro.thm5.1", "feddro.thm5.1.corrected", "feddro.lemF.5",
                 "feddro.lemF.5.corrected"), errata=("lemmaF2-track-coefficient",),
       rule=UpperBound(bound="atol", rtol=0.0), perturb={"grad_coef": 5.0},
       plants=(Plant({"grad_coef": 5.0}, why="a wrong coefficient (5 for 1/2) on the ‖∇Φ‖² "
                     "term of Lemma F.5's right-hand side, computed in the measure: the potential's "
                     "actual decrease must fail the planted inequality"),),
       params={"valid": [{**_MC, "problem": "p1", "I": 1}, {**_MC, "problem": "p2", "I": 2},
                         {**_DET, "problem": "p1", "I": 1}, {**_DET, "problem": "p1", "I": 2},
                         {**_SMALL, "c_beta": "repaired"}],
               "printed_small_Bg": {**_SMALL, "c_beta": "printed"}, "grad_coef": 0.5,
               "atol": 1e-12},
       profiles={"full": {"valid": [
           {**_MC, "problem": "p1", "I": 1, "R": 8000}, {**_MC, "problem": "p1", "I": 4, "R": 8000},
           {**_MC, "problem": "p2", "I": 2, "R": 8000}, {**_DET, "problem": "p1", "I": 1},
           {**_DET, "problem": "p1", "I": 2}, {**_DET, "problem": "p2", "I": 2},
           {**_SMALL, "c_beta": "repaired"}]}},
       figure=FigureSpec("Lemma F.5: (V^{t+1} − V^t − RHS_t) / max|RHS| (≤ 0: the lemma holds)",
                         "iteration t", "normalized excess", logy=False))
def p11(params: Params, seed: int) -> Measurement:
    """P11: max_t (V^{t+1} − V^t − RHS_t) ≤ 0 on runs meeting Lemma F.5's conditions (exact runs
    to atol, Monte Carlo by simultaneous lower bounds); the printed c_β fails at B_g = 0.2
    [derived: at t = 0 x does not move, D_0 = −(2β − β²)g(x̄⁰)² + (η/2)‖∇Φ(x̄⁰)‖² > 0 for
    β = γ⁴η, g = γx, γ < ≈1/4; never with c_β = 4max(B_g², B_g⁴)L_f²]."""
    runs = [potential_descent(cfg, seed, params["grad_coef"]) for cfg in params["valid"]]
    bad = potential_descent(params["printed_small_Bg"], seed, params["grad_coef"])
    conditions = [_at("feddro.lemF.5" + (".corrected" if r["config"]["c_beta"] == "repaired"
                                         else ""),
                      make(f"feddro-{r['config']['problem']}", {
                          k: v for k, v in r["config"].items()
                          if k in ("K", "A", "C", "s", "s_h", "gscale", "x0")}),
                      f"{r['config']['problem']}, I = {r['config']['I']}, s = "
                      f"{r['config']['s']:g}, c_β {r['config']['c_beta']}",
                      eta=r["eta"], b=1) for r in runs]  # the printed-c_β control: not checked
    conds = all(r["conditions_met"] for r in [*runs, bad])
    series = {f"{r['config']['problem']} I={r['config']['I']} s={r['config']['s']} "
              f"B_g={r['B_g']:.2g} c_β {r['config']['c_beta']}":
              (list(range(len(r["normalized_D"]))), r["normalized_D"]) for r in [*runs, bad]}
    evidence = [{k: v for k, v in r.items() if k != "normalized_D"} for r in [*runs, bad]]
    return Measurement(
        statistic=max(r["max_excess"] for r in runs), series=series, hlines={"0": 0.0},
        evidence={"runs": evidence[:-1], "printed_c_beta_small_Bg": evidence[-1],
                  "printed_c_beta_violated": bad["max_excess"] > params["atol"],
                  "step_conditions_met": conds, "grad_coef": params["grad_coef"],
                  "ambiguity": "A1 (8) skipped at t = 0; A3 independent batches (the premise "
                               "of eq. (16)); β = c_βη constant (A5); V^t per replica"},
        checks=(Check("printed c_β violates Lemma F.5 at B_g = 0.2",
                      bad["max_excess"] > params["atol"]),),
        inconclusive=None if conds else "the step-size conditions of Lemmas F.3/F.5 do not hold",
        conditions=conditions,
        run=RunConfig("feddro", "feddro-p1", {"K": 2, "A": 0.5, "C": 0.5, "s": 1.0,
                                               "eta": runs[0]["eta"], "beta": runs[0]["beta"],
                                               "batch_independent": 1, "ybar0_offset": 1.0},
                      runs[0]["config"]["T"], runs[0]["config"]["R"]))


@claim("feddro.p12", title="Lemma 3.1: Φ is (L_h + B_f L_g + B_g² L_f)-smooth",
       prediction="max|∇²Φ| ≤ L_h + B_f L_g + B_g² L_f; on P1 max|Φ''| = 1/2, counterexample "
                  "bound 8 (Lemma 3.1; values ours)", source="Lemma 3.1 [L146–L148]",
       provenance="paper",
       no_conditions=("no algorithm is run: the instances' Hessians of Φ (exact, or sampled on the "
                      "DRO instances) against Lemma 3.1's formula, which has no condition beyond "
                      "Assumption 1"),
       theorems=("feddro.thm5.1", "feddro.lem3.1"), rule=UpperBound(bound=1.0, rtol=1e-9),
       tolerance_why=("rtol 1e-9: round-off of the ratio max|∇²Φ|/bound, two float64 evaluations "
                      "of closed forms (DRO instances sampled); it matters because the bound is "
                      "attained on an instance (ratio 0.9999999999999998 at the quick profile)."),
       params={"scalar": [("feddro-counterexample", {}),
                          ("feddro-p1", {"A": 0.5, "C": 0.5, "s": 1.0}),
                          ("feddro-p1", {"A": 3.0, "C": 4.0, "s": 2.0}),
                          ("feddro-p1", {"A": 0.0, "C": 0.0, "s": 0.0, "gscale": 0.2}),
                          ("feddro-p2", {"A": 0.5, "C": 0.5, "s": 1.0}),
                          ("feddro-p2", {"A": 0.5, "C": 0.5, "s": 1.0, "het": 0.25})],
               "dro": [("feddro-kl-dro", {}), ("feddro-chi2-dro", {})], "dro_points": 200,
               "bound_scale": 1.0, "expected_p1": 0.5, "expected_ce_bound": 8.0},
       profiles={"full": {"dro_points": 2000, "dro": [
           ("feddro-kl-dro", {}), ("feddro-chi2-dro", {}),
           ("feddro-kl-dro", {"lam": 5.0, "hetero": 2.0}),
           ("feddro-chi2-dro", {"lam": 5.0, "hetero": 2.0})]}}, perturb={"bound_scale": 0.01},
       plants=(Plant({"bound_scale": 0.01}, why="multiplies Lemma 3.1's smoothness constant "
                     "L_h + B_f L_g + B_g² L_f (computed in the measure) by 0.01: the measured "
                     "curvature of Φ must exceed the planted constant"),),
       figure=FigureSpec("Lemma 3.1: true smoothness vs the bound", "instance", "value",
                         kind="scatter"))
def p12(params: Params, seed: int) -> Measurement:
    """P12: max|∇²Φ| (exact; DRO: sampled, a lower estimate) / Lemma 3.1's bound ≤ 1."""
    rows = smoothness_rows([*params["scalar"], *params["dro"]], params["dro_points"], seed,
                           params["bound_scale"], params["instance_seed"])
    ce = next((r for r in rows if r["problem"] == "feddro-counterexample"), None)
    p1_ = next((r for r in rows if r["problem"] == "feddro-p1" and r["params"].get("A") == 0.5),
               None)
    expected_ok = ((ce is None or abs(ce["bound"] - params["expected_ce_bound"]) <= 1e-12)
                   and (p1_ is None or abs(p1_["max_abs_Phi2"] - params["expected_p1"]) <= 1e-12))
    xs = list(range(len(rows)))
    return Measurement(
        statistic=max(r["ratio"] for r in rows),
        series={"bound L_h + B_f L_g + B_g² L_f": (xs, [r["bound"] for r in rows]),
                "max |∇²Φ|": (xs, [r["max_abs_Phi2"] for r in rows])},
        evidence={"rows": rows, "expected_values_match": expected_ok, "expected_values": {
            "counterexample_bound": ce and ce["bound"], "p1_max_abs_Phi2": p1_ and p1_[
                "max_abs_Phi2"]}},
        checks=(Check("expected values exact", expected_ok),
                Check("grid search never exceeds the closed form",
                      not any(r.get("grid_exceeds_exact", False) for r in rows))))


@claim("feddro.p13", title="Complexity counting: model rounds ε^(-3/2), all rounds ε^(-2)",
       prediction="with I = T^(1/4)/(|b|K)^(3/4): model rounds ∝ ε^(-3/2), ȳ rounds ∝ ε^(-2) "
                  "(Cor. 2; Def. 3.3)", source="Corollary 2; Definition 3.3 [L158, L251–L263]",
       provenance="consistency",
       no_conditions=("a check of the encoding's own algebra: Corollary 2's cost model and "
                      "schedule against ε from the Corollary 1 bound, both evaluated from the "
                      "encoded theorems (no algorithm is run)"),
       theorems=("feddro.cor2", "feddro.cor2.corrected"), errata=("communication-count",),
       rule=Interval(predicted="predicted_all", tol="tolerance"), perturb={"predicted_all": -1.5},
       tolerance_why=("±0.02 on a slope: chosen by us, not derived. Counts and ε are closed forms "
                      "of the encoded theorems, so the slope is −2 to round-off "
                      "(−1.999999999999999 measured; model rounds −1.5): the tolerance is unused "
                      "at these T."),
       params={"Ts": [12_500_000, 1_250_000_000, 125_000_000_000], "K": 8, "b": 1,
               "predicted_all": -2.0, "predicted_model": -1.5, "tolerance": 0.02},
       figure=FigureSpec("Corollary 2: rounds vs ε", "ε", "rounds", logx=True))
def p13(params: Params, seed: int) -> Measurement:
    """P13: Corollary 2's costs and schedule against ε = the Corollary 1 bound at T (Φ(x̄⁰) − Φ*
    = 1/2, σ = Δ = 0); Cor. 2's O(ε^{-3/2}) [L261] counts model rounds only (ȳ: every iteration)."""
    K, b, rows = params["K"], params["b"], []
    unit = dict.fromkeys(("L_g", "L_h", "sigma_h", "sigma_g", "Delta_h", "Delta_g", "y_err0"),
                         0.0) | {"L_f": 1.0, "B_f": 1.0, "B_g": 1.0, "Phi_gap0": 0.5}
    for T in params["Ts"]:
        at = {"T": T, "b": b, "K": K}
        cost = costs_at("feddro.cor2", at)
        rows.append({"epsilon": float(theorem_at("feddro.cor1", {**unit, **at, "I": 1}).value),
                     "T": T, "I": max(1.0, schedule_values(theorem("feddro.cor2"), at)["I"]),
                     "model_rounds": cost["communications (model sharing)"],
                     "all_rounds": cost["communications (all rounds)"], "samples": cost["samples"]})
    eps = [r["epsilon"] for r in rows]
    sm, sa = (float(np.polyfit(np.log(eps), np.log([r[k] for r in rows]), 1)[0])
              for k in ("model_rounds", "all_rounds"))
    return Measurement(
        statistic=sa, series={"model rounds": (eps, [r["model_rounds"] for r in rows]),
                              "all rounds": (eps, [r["all_rounds"] for r in rows])},
        evidence={"slope_model_rounds": sm, "predicted_model_rounds": params["predicted_model"],
                  "slope_all_rounds": sa, "rows": rows},
        checks=(Check("model rounds slope within tolerance of predicted_model",
                      abs(sm - params["predicted_model"]) <= params["tolerance"]),))


@claim("feddro.p14", seconds=1.5, title="Shared vs independent batch in (7)/(8): an O(η) effect",
       prediction="FedDRO with the literal shared batch b_{g_k}^t (eqs. (7), (8)) vs independent "
                  "batches (the premise of eq. (16)): G_T differs by little at small η (bias "
                  "O(η)), a gap grows with η (ours; A3)", theorems=("feddro.thm5.1",),
       source="eqs. (7), (8), (16) [L220–L226, L674–L675]", errata=("batch-correlation",),
       provenance="conjecture",
       no_conditions=("a conjecture of ours about Algorithm 2's estimator (the shared batch of "
                      "eqs. (7), (8) biases the gradient by O(η)), at steps η from 0.005 to 0.1 "
                      "chosen to vary η, not Theorem 5.1's η = √(|b|K/T) (and T = 1500 < T_th ≈ "
                      "1711 on P1): no run tests a theorem's prediction"),
       rule=Interval(predicted="predicted", tol="tolerance"), perturb={"predicted": 0.5},
       tolerance_why=("±0.05 on the paired relative gap at the smallest η: a slack chosen by us "
                      "for 'differs by little' (the conjecture gives O(η) without a constant). The "
                      "quick profile's gap −0.019 has 95% t-interval [−0.025, −0.014] (300 paired "
                      "replicas), which misses 0: the bias is visible and only the tolerance "
                      "confirms."),
       plants=(Plant({"s": 4.0}, why="noise s = 4 (16 times the variance): the shared batch's "
                     "bias, of order s²η, is no longer small at the smallest step, so the paired "
                     "gap must leave 0 ± 0.05 (the run sees the correlation the conjecture "
                     "bounds)"),),
       params={"etas": [0.005, 0.01, 0.02, 0.05, 0.1], "K": 2, "T": 1500, "replicas": 300,
               "A": 0.5, "C": 0.5, "s": 1.0, "I": 1, "predicted": 0.0, "tolerance": 0.05},
       profiles={"full": {"T": 4000, "replicas": 2000}},
       figure=FigureSpec("Shared vs independent batch (P1)", "η", "|G_shared − G_indep| / G_indep",
                         logx=True))
def p14(params: Params, seed: int) -> Measurement:
    """P14: paired relative gap (G_shared − G_indep)/G_indep at the smallest η within tolerance
    of 0, and |gap| growing with η (log–log slope CI above 0). [derived] The shared ζ enters
    ȳ^t and ∇g_k(x; ζ) = a_k + sζ₁: E[sζ₁f'(ȳ)] ≈ s²f''(ȳ)(βx^t + x^t − x^{t−1})/(K|b|) ≠ 0,
    an O(η) bias (restoring on P1) that eq. (16) [L674] assumes away."""
    prob = make("feddro-p1", {"K": params["K"], **_abc(params)})
    T, R, rows = params["T"], params["replicas"], []
    betas = [min(1.0, momentum(prob, eta)["beta"]) for eta in params["etas"]]  # β = c_βη
    runs = run_feddro_many([(prob, T, {"eta": eta, "beta": beta, "I": params["I"],  # [L234]
                                       "batch_independent": k})
                            for eta, beta in zip(params["etas"], betas, strict=True)
                            for k in (0, 1)], R, seed, ("grad_phi_sq",))
    for n, (eta, beta) in enumerate(zip(params["etas"], betas, strict=True)):
        sh, ind = (runs[2 * n + k].G(T) for k in (0, 1))
        rel = mean_ci((sh - ind) / ind.mean())  # paired replicas: the same ζ for (8) and ξ
        gi, gs = mean_ci(ind), mean_ci(sh)
        rows.append({"eta": eta, "beta": beta, "G_shared": gs.value, "G_independent": gi.value,
                     "G_independent_ci": [gi.lo, gi.hi], "rel_gap": rel.value,
                     "rel_gap_ci": [rel.lo, rel.hi], "gap_visible": bool(rel.lo > 0 or rel.hi < 0)})
    etas, absr = np.array(params["etas"], float), np.abs([r["rel_gap"] for r in rows])
    grow = loglog_slope(etas, absr) if np.all(absr > 0) and len(etas) > 2 else None
    return Measurement(
        statistic=rows[0]["rel_gap"], interval=tuple(rows[0]["rel_gap_ci"]),
        series={"|relative gap|": (etas.tolist(), absr.tolist())},
        hlines={f"tolerance {params['tolerance']}": params["tolerance"]},
        evidence={"rows": rows, "growth_fit_abs_rel_gap_vs_eta": grow.as_dict() if grow else None},
        checks=(Check("|gap| does not shrink with η", not (grow is not None and grow.hi < 0)),
                Check("|gap| grows with η (slope CI above 0)", grow is not None and grow.lo > 0,
                      "inconclusive")),
        run=RunConfig("feddro", "feddro-p1", {"K": params["K"], **_abc(params), "I": params["I"],
                                               "eta": params["etas"][0], "beta": rows[0]["beta"]},
                      T, R, sweeps={"eta": params["etas"], "batch_independent": [0, 1]}))


@claim("feddro.p15", title="χ² reformulation: corrected form equals the inner maximum",
       prediction="the corrected ℓ̄ + Var(ℓ)/(2λ) equals max_p; printed eq. (5) does not "
                  "(ours)", source="Section 2.1, eq. (5) [L73–L77]",
       provenance="derived",
       derivation=("max over p in the simplex of Σ p_iℓ_i − λ·χ²(p‖1/m)/2 is a concave quadratic "
                   "program; when its unconstrained maximiser p_i = 1/m + (ℓ_i − ℓ̄)/(λm) is non-"
                   "negative (λ large enough, e.g. λ ≥ 1 for ℓ ∈ [0, 1]) it is the maximiser and "
                   "the value is ℓ̄ + Var(ℓ)/(2λ). Exact algebra from the definition of problem "
                   "(4), not from a stated result: a refutation would mean our correction (or its "
                   "code) is wrong, and would leave printed eq. (5) standing"),
       no_conditions=("exact algebra of problem (4)'s inner maximum against the closed forms, on "
                      "random losses: no algorithm is run"),
       rule=UpperBound(bound="tolerance", rtol=0.0), perturb={"lam": 0.1},
       plants=(Plant({"lam": 0.1}, why="λ = 0.1 < 1 puts the reference draw outside the closed "
                     "form's validity (the unconstrained maximiser has negative weights), so the "
                     "corrected form must differ from the exact inner maximum (the tolerance "
                     "perturbation refuted only through the side check on eq. (5))"),),
       params={"m": 6, "lam": 5.0, "data_seed": 1, "tolerance": 1e-9, "extra_draws": 20},
       profiles={"full": {"extra_draws": 200}},
       figure=FigureSpec("χ² DRO: corrected form vs printed eq. (5)", "draw",
                         "|value − exact max|", kind="scatter"),
       published=(Published(
           ("figure", "statistic"), floor=2**5 * EPS,
           why="the corrected series is zero in exact arithmetic (λ ≥ 1, ℓ ∈ [0, 1]: the "
               "closed form is the maximum); both values are sums of m = 6 terms of magnitude "
               "≲ 1, so they differ by ≲ 2⁵ ε (printed eq. (5) misses ℓ̄ + Var(ℓ)/λ, far above)"),))
def p15(params: Params, seed: int) -> Measurement:
    """P15: corrected χ² form = exact inner max (λ ≥ 1: closed form valid); eq. (5) is not."""
    ell = np.random.default_rng(params["data_seed"]).uniform(0, 1, params["m"])
    ref = chi2_values(ell, params["lam"])
    errs, gaps = [abs(ref["corrected"] - ref["true"])], [abs(ref["paper_eq5"] - ref["true"])]
    rng = np.random.default_rng(seed)
    for _ in range(params["extra_draws"]):
        ls = rng.uniform(0, 1, params["m"])
        v = chi2_values(ls, float(rng.uniform(1.0, 10.0)))
        errs.append(abs(v["corrected"] - v["true"]))
        gaps.append(abs(v["paper_eq5"] - v["true"]))
    return Measurement(
        statistic=max(errs), series={"corrected": (list(range(len(errs))),
                                                   [max(e, 1e-17) for e in errs]),
                                     "paper eq. (5)": (list(range(len(gaps))), gaps)},
        evidence={"reference": ref, "min_gap_paper_eq5": min(gaps),
                  "kl": kl_values(ell, params["lam"]),
                  "reference_values": {"true": 0.5576789, "corrected": 0.5576789,
                                       "paper": -0.0093035}},
        checks=(Check("printed eq. (5) differs from the exact maximum",
                      min(gaps) > params["tolerance"]),))


def exact_G_T(problem: CompositionalProblem, T: int, I: int, eta: float, beta: float,
              settle: float, seed: int) -> dict[str, Any]:
    """G_T = (1/T)Σ_{t<T} ‖∇Φ(x̄^t)‖² of deterministic FedDRO (Algorithm 2) without running all
    T iterations: the run goes on until ``settle``/(ηΦ''(x*)) iterations (the contraction has
    reached its periodic orbit, period I), and the remaining iterations add the orbit's mean
    (exact up to one period's variation over T; the orbit's relative change is reported)."""
    n, curvature = settle_iterations(problem, T, I, eta, settle)
    run = run_feddro(problem, n, 1, seed, ("grad_phi_sq",), eta=eta, beta=beta, I=I)
    return settled_G_T(run, T, I, n, curvature)


def settle_iterations(problem: CompositionalProblem, T: int, I: int, eta: float, settle: float
                      ) -> tuple[int, float]:
    """:func:`exact_G_T`'s run length min(T, ⌈settle/(ηΦ''(x*))/I⌉I + 1) and Φ''(x*)."""
    xs = float(problem.x_star[0])
    h = 1e-5 * max(1.0, abs(xs))
    curvature = float((problem.grad_Phi(np.array([[xs + h]]))
                       - problem.grad_Phi(np.array([[xs - h]])))[0, 0] / (2 * h))
    return min(T, int(math.ceil(settle / (eta * curvature) / I)) * I + 1), curvature


def settled_G_T(run: History, T: int, I: int, n: int, curvature: float) -> dict[str, Any]:
    """:func:`exact_G_T` from its run of ``n`` iterations (:func:`settle_iterations`)."""
    g = run.mean("grad_phi_sq")[:-1]
    orbit, change = run.orbit_mean(I, 10)
    return {"G_T": float((g.sum() + (T - n) * orbit) / T), "iterations_run": n,
            "orbit_mean": orbit, "orbit_rel_change": change, "curvature_Phi": curvature,
            "diverged": run.diverged}


@claim("feddro.p16", seconds=1.4, title="Theorem 5.1's bound as heterogeneity grows (exact constants, P2)",
       prediction="on P2 with every client deviation × α (Δ_g, Δ_h ∝ α; L_h, B_g grow too), "
                  "FedDRO run as Theorem 5.1 prescribes at each α (η = √(|b|K/T), β = c_βη, T "
                  "the smallest horizon meeting its conditions T ≥ T_th and β ≤ 1) has G_T = "
                  "(1/T)Σ‖∇Φ(x̄^t)‖² at most the theorem's bound at the instance's exact "
                  "constants, for every α: max over α of observed/bound ≤ 1",
       source="Theorem 5.1 [L232–L241] (= Theorem F.1 [L625–L636], constants of Appendix F); "
              "its heterogeneity terms 𝒞(|b|,K,T,I)[C_Δh Δ_h² + C_Δg Δ_g²] [L236–L239]",
       provenance="paper",
       theorems=("feddro.thm5.1", "feddro.thm5.1.corrected"),
       errata=("Lbar-coefficient", "beta-le-1"), rule=UpperBound(1.0),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off slack on comparing observed/bound "
                      "with 1. G_T is exact (deterministic runs extrapolated on their periodic "
                      "orbit), and the ratio, 0.0057 at the quick profile, is far below 1."),
       params={"alphas": [0.25, 0.5, 1.0, 2.0], "K": 2, "I": 2, "settle": 40.0,
               "conv_tol": 1e-9, "bound_scale": 1.0},
       profiles={"full": {"alphas": [0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]}},
       perturb={"bound_scale": 1e-7},
       plants=(Plant({"bound_scale": 1e-7}, why="multiplies Theorem 5.1's bound (exact constants, "
                     "computed in the measure) by 10⁻⁷, a wrong constant in the theory: the "
                     "settled G_T must exceed it"),),
       figure=FigureSpec("FedDRO on P2 at Theorem 5.1's steps: observed G_T / bound vs "
                         "heterogeneity α", "α (client deviations × α)",
                         "G_T / Theorem 5.1 bound", logx=True))
def p16(params: Params, seed: int) -> Measurement:
    """P16: observed/bound against α, each α at its own smallest admissible horizon T (from the
    encoded conditions, checked by the engine) and Theorem 5.1's η, β; deterministic runs
    (σ_g = σ_h = 0), so G_T is exact (:func:`exact_G_T`). The bound is the printed theorem's
    (feddro.thm5.1); the corrected one (feddro.thm5.1.corrected) is reported beside it."""
    K, I, rows, setups = params["K"], params["I"], [], []
    for alpha in params["alphas"]:
        prob = make("feddro-p2", {"K": K, "A": 0.5, "C": 0.5, "s": 0.0, "s_h": 0.0,
                                  "het": alpha})
        c = {**prob.constants, "y_err0": 0.0, "b": 1, "I": I}  # ȳ⁰ = g(x̄⁰) (A2)
        T, T_th, T_beta = horizon_F1(c)
        printed, corrected = (theorem_at(t, {**c, "T": T})
                              for t in ("feddro.thm5.1", "feddro.thm5.1.corrected"))
        eta, beta = printed.derived["eta"], printed.derived["beta"]
        n, curvature = settle_iterations(prob, T, I, eta, params["settle"])
        setups.append((alpha, prob, T, T_th, T_beta, printed, corrected, eta, beta, n, curvature))
    runs = run_feddro_many([(prob, n, {"eta": eta, "beta": beta, "I": I})
                            for _, prob, _, _, _, _, _, eta, beta, n, _ in setups],
                           1, seed, ("grad_phi_sq",))  # exact_G_T's runs, side by side
    conditions = [_at("feddro.thm5.1", prob, f"α = {alpha:g}, T = {T}, I = {I}", T=T, I=I, b=1)
                  for alpha, prob, T, *_ in setups]
    for (alpha, prob, T, T_th, T_beta, printed, corrected, eta, beta, n, curvature), h in zip(
            setups, runs, strict=True):
        run = settled_G_T(h, T, I, n, curvature)
        bound = float(printed.value) * params["bound_scale"]
        rows.append({"alpha": alpha, "T": T, "T_th": T_th, "T_beta": T_beta, "eta": eta,
                     "beta": beta, **run, "bound": bound,
                     "bound_corrected": float(corrected.value) * params["bound_scale"],
                     "ratio": run["G_T"] / bound,
                     "terms": {k: float(v) for k, v in printed.terms.items()},
                     "conditions_hold": all(ok for _, ok in printed.conditions.values())
                     and all(ok for _, ok in corrected.conditions.values()),
                     "constants": {k: float(v) for k, v in prob.constants.items()}})
    alphas = [r["alpha"] for r in rows]
    worst = max(rows, key=lambda r: r["ratio"])
    excess = [r["orbit_mean"] for r in rows]
    return Measurement(
        statistic=worst["ratio"],
        series={"observed / bound (Theorem 5.1)": (alphas, [r["ratio"] for r in rows]),
                "observed / corrected bound": (alphas, [r["G_T"] / r["bound_corrected"]
                                                        for r in rows])},
        hlines={"bound": 1.0},
        evidence={"rows": rows, "worst_alpha": worst["alpha"], "I": I, "K": K,
                  "drift_excess_limits": excess,
                  "reading": "T grows with α (T_th ∝ L_h²I²|b|K, c_β ∝ B_g⁴), so η = √(|b|K/T) "
                             "falls and the O(η²α⁴) drift excess of feddro.p9 stays far below "
                             "the α² heterogeneity terms of the bound"},
        checks=(Check("Theorem 5.1's conditions hold at every α (printed and corrected)",
                      all(r["conditions_hold"] for r in rows), "inconclusive"),
                Check("every run reached its periodic orbit (G_T extrapolated exactly)",
                      all(r["orbit_rel_change"] <= params["conv_tol"] for r in rows),
                      "inconclusive")),
        diverged=next((r["diverged"] for r in rows if r["diverged"]), None),
        conditions=conditions,
        run=RunConfig("feddro", "feddro-p2", {"K": K, "A": 0.5, "C": 0.5, "s": 0.0, "s_h": 0.0,
                                               "het": alphas[0], "T": rows[0]["T"], "I": I},
                      rows[0]["T"], sweeps={"het": alphas}))
