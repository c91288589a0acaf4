"""Claims of SAGDA / FSGDA for section 8's P13 and P14 (issue 15): the O(ε⁻²) communication
complexity of Corollary 2 with K = T/M, exactly (full participation, affine rounds: the mean and
covariance of z_t follow in closed form), and the step-size monotonicity of the experiments
(Figures 5–6) by Monte Carlo on the nonconvex cosine game.

Seeds: every game is built from the instance seed (``params["instance_seed"]``); stochastic
gradients, client sampling and replicas come from the noise seed (P14; P13 draws nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from fedbounds import registry
from fedbounds.complexity import schedule_values
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.sagda import FSGDA, SAGDA_I
from fedbounds.verify.claim import (
    AtMost,
    FigureSpec,
    Measurement,
    RunConfig,
    UpperBound,
    claim,
)
from fedbounds.verify.claims.sagda import run_at
from fedbounds.verify.exact.sagda import full_participation_average
from fedbounds.verify.fitting import loglog_slope, mean_ci
from fedbounds.verify.perturbation import Plant

QUADRATIC = "minmax-quadratic"
COSINE = "minmax-cos"
# P13: heterogeneous Hessians and linear terms, noise on both blocks (κ = L_f = 1.85)
P13_SET = {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "hess_spread": 0.3}
P13_CY = 0.5  # the Θ-constant of η_y in Corollary 2; c_x = c_y/(25κ²) (c_y/c_x > 20κ²)
# P14: nonconvex Φ (λ Σ cos x), strongly concave in y, like the paper's DRO model (nonconvex
# regularizer, strongly concave in y, eq. (4) [L440–L444]); the start x_0 = 4 is far from
# stationarity (near a stationary point the larger steps' noise floors would decide instead)
P14_SET = {"M": 10, "lam": 1.0, "a": 0.5, "bxy": 0.5, "sigma_x": 0.5, "sigma_y": 0.5,
           "sigma_G": 1.0, "hess_spread": 0.3, "x0": 4.0}
P14_GRIDS = {"local step η_l (η_g = 2)": [(1e-4, 2.0), (1e-3, 2.0), (1e-2, 2.0)],
             "global step η_g (η_l = 10⁻²)": [(1e-2, 2.0), (1e-2, 5.0), (1e-2, 10.0)]}


def _cor2_config(kappa: float, m: int, K: int, T: int) -> dict[str, Any]:
    """Corollary 2's schedule from ``sagda.cor2`` at c_y = :data:`P13_CY`, c_x = c_y/(25κ²)."""
    cx = P13_CY / (25 * kappa**2)
    steps = schedule_values(registry.get("sagda.cor2"), {"c_x": cx, "c_y": P13_CY, "m": m,
                                                          "K": K, "T": T})
    return {**steps, "K": K, "m": m}


@claim("sagda.p13", title="Communication complexity O(ε⁻²) with K = T/M (Corollary 2)",
       prediction="under Corollary 2's schedule with full participation and K = T/M local steps, "
                  "the rounds T_ε needed for (1/T) Σ E‖∇Φ(x_t)‖² ≤ ε² grow like ε⁻²: the "
                  "log-log slope of T_ε in 1/ε is at most 2 (+0.25); a fixed K gives ≈ 4. The "
                  "schedule as written fails Corollary 2's conditions (7)–(9) (an extrapolation)",
       source="Corollary 2 and the remark after it [L234–L238]: K = O(T/M), communication "
              "complexity O(1/ε²); Table 1 [L49]",
       provenance="extrapolation", theorems=("sagda.cor2",),
       derivation=("the runs follow Corollary 2's schedule as written: K = T/M, local steps at "
                   "their cap 1/((mT)^{1/4}K^{5/4}), c_y = 0.5, c_x = c_y/(25κ²), m = M = 4, "
                   "L_f = κ = 1.85. Its conditions fail at every T: the drift condition (7) by "
                   "−12.3 to −12.6 (at the cap and K = T/m its left side 8K(K−1)(2K−1)L_f²η_l² "
                   "tends to 16L_f²/m ≈ 13.7 whatever T), (8) by −11.6, −5.81, −2.92 and (9) by −0.495, −0.427, −0.393 at T = 256, "
                   "512, 1024 ((8) −1.47, −0.750 and (9) −0.377, −0.368 at T = 2048, 4096, full "
                   "profile), and at some T the caps themselves by rounding (≈ −10⁻²⁰). Inside "
                   "(7) the local steps would sit ≈ 3.7× below the cap, which is not the "
                   "schedule the corollary writes; the ε⁻² communication is its prediction "
                   "taken at that schedule"),
       rule=AtMost("exponent", 0.25),
       params={"local_steps": "T/M", "exponent": 2.0, "Ts": (256, 512, 1024)},
       profiles={"full": {"Ts": (256, 512, 1024, 2048, 4096)}},
       perturb={"local_steps": "fixed"},
       plants=(Plant({"local_steps": "fixed"}, why="runs the schedule with K fixed instead of "
                     "K = T/M, so each round averages a fixed number of gradients and the "
                     "average falls only like T^(-1/2): T_ε must grow like ε⁻⁴"),),
       tolerance_why=("+0.25 on the exponent: a modelling slack chosen by us for reading the "
                      "O(ε⁻²) order off exact averages at three horizons (T = 256–1024; 256–4096, "
                      "full), where lower-order terms shift a finite fit. The statistic is exact "
                      "(no interval); the quick value 1.983 is below 2 itself, while fixed K "
                      "gives ≈ 3.97."),
       figure=FigureSpec("FSGDA, Corollary 2 schedule (m = M = 4): rounds to reach ε²",
                         "1/ε", "rounds T_ε", logx=True))
def p13(params: Mapping[str, Any], seed: int) -> Measurement:
    """T_ε exactly: for each T the exact (1/T) Σ_{t<T} E‖∇Φ(x_t)‖² at the schedule tuned for
    that T; it falls with T, so T is the smallest horizon reaching ε² = that average and
    (1/ε, T) are points of the curve T_ε. Both K = T/M and K fixed at Ts[0]/M are computed; the
    statistic is the slope for ``local_steps``."""
    g = make_game(P13_SET, params["instance_seed"])
    m, kappa, Ts = g.M, g.constants["kappa"], list(params["Ts"])
    curves: dict[str, list[float]] = {}
    configs: dict[str, list[dict[str, Any]]] = {}
    conditions: dict[str, list[Any]] = {}
    for mode in ("T/M", "fixed"):
        curves[mode], configs[mode], conditions[mode] = [], [], []
        for T in Ts:
            K = max(1, T // m) if mode == "T/M" else max(1, Ts[0] // m)
            cfg = _cor2_config(kappa, m, K, T)
            curves[mode].append(full_participation_average(FSGDA.method(g, cfg), g, T))
            conditions[mode].append(run_at("sagda.cor2", g, K, m, cfg, f"T = {T}, K = {K}",
                                           T=T))
            configs[mode].append({"T": T, **cfg, "gamma_x": cfg["eta_xl"] * cfg["eta_xg"] * K,
                                  "gamma_y": cfg["eta_yl"] * cfg["eta_yg"] * K})
    fits = {mode: loglog_slope(np.array(curves[mode]) ** -0.5, np.array(Ts, float))
            for mode in curves}
    mode = params["local_steps"]
    if mode not in fits:
        raise ValueError(f"local_steps must be 'T/M' or 'fixed', got {mode!r}")
    inv_eps = {md: (np.array(v) ** -0.5).tolist() for md, v in curves.items()}
    last = configs[mode][-1]
    return Measurement(fits[mode].slope, series={
        "K = T/M (Cor 2)": (inv_eps["T/M"], Ts), f"K fixed = {max(1, Ts[0] // m)}":
            (inv_eps["fixed"], Ts),
        "∝ ε⁻² (anchored)": (inv_eps["T/M"], [Ts[0] * (e / inv_eps["T/M"][0]) ** 2
                                             for e in inv_eps["T/M"]])},
        evidence={"T": Ts, "avg_grad_phi_sq": curves, "one_over_eps": inv_eps,
                  "fits": {md: f.as_dict() for md, f in fits.items()},
                  "schedules": configs, "kappa": kappa, "c_y": P13_CY,
                  "c_x": P13_CY / (25 * kappa**2),
                  "method": "exact: z' = Az + c + noise (A, c read off the fsgda step, the "
                            "noise's covariance propagated through the K local steps), mean and "
                            "covariance iterated T rounds",
                  "note": "with K = T/M the per-round steps η_xK = c_x, η_yK = c_y are constant "
                          "and the round averages mK = T gradients, so the average falls like "
                          "1/T; with K fixed it falls like T^(-1/2)"},
        run=RunConfig("fsgda", QUADRATIC, {**P13_SET, **{k: last[k] for k in (
            "eta_xl", "eta_yl", "eta_xg", "eta_yg", "K", "m")}}, last["T"], 1, seed),
        conditions=conditions[mode])


@claim("sagda.p14", title="Larger local and global step sizes converge faster (Figures 5–6)",
       prediction="FSGDA and SAGDA (Option I), K = 10: raising η_l over {10⁻⁴, 10⁻³, 10⁻²} "
                  "(η_g = 2) or η_g over {2, 5, 10} (η_l = 10⁻²) lowers the averaged ‖∇Φ‖² over "
                  "the rounds: every ratio (larger step)/(smaller step) ≤ 1",
       source="Appendix, 'Impact of the Local Step-size' and 'Impact of the Global Step-size', "
              "Figures 5–6 [L480–L497]",
       provenance="paper", theorems=("sagda.thm1.opt1", "sagda.thm2"),
       no_conditions="an empirical observation of the paper's experiments (Figures 5–6), not a "
                     "theorem's prediction: the paper states it for its runs, which take "
                     "η_{x,l} = η_{y,l} and η_{x,g} = η_{y,g} (η_y/η_x = 1, which conditions (9) "
                     "and (13) exclude), so no theorem's conditions are claimed for them",
       rule=UpperBound("ratio_bound", end="lower"),
       params={"ratio_bound": 1.0, "T": 50, "R": 4, "m": 10},
       profiles={"full": {"T": 200, "R": 16}}, perturb={"ratio_bound": 0.05},
       plants=(Plant({"m": 2}, why="samples 2 of the 10 clients, outside the paper's full "
                     "participation; the sampling noise grows with the server step η_g, so the "
                     "larger η_g must no longer be faster"),),
       tolerance_why=("rtol 1e-9 (the rule's default): round-off only, on ratios of float64 "
                      "averages. The Monte Carlo confidence is in the end compared: the largest "
                      "lower end of the 95% t-intervals of the replica-paired ratios (4 replicas "
                      "quick, 16 full)."),
       figure=FigureSpec("Cosine game (nonconvex Φ), M = m = 10, K = 10: averaged ‖∇Φ‖² by "
                         "step size", "effective per-round step γ = η_lη_gK",
                         "(1/T) Σ ‖∇Φ(x_t)‖²", logx=True))
def p14(params: Mapping[str, Any], seed: int) -> Measurement:
    """Per algorithm and grid, the replica-paired ratio of (1/T) Σ_t ‖∇Φ(x_t)‖² between
    neighbouring step sizes (common random numbers); the statistic is the largest mean ratio,
    refuted only if the lower end of its 95% interval exceeds ``ratio_bound``. The paper ran the
    DRO model on a9a with 100 workers, all taking part (no client sampling is described); here
    the cosine game stands in for it (nonconvex in x, strongly concave in y) with all M clients
    (``m`` = M). With m = 5 of 10 (our runs, not part of the prediction) FSGDA's η_g = 10 is
    slower than η_g = 5: the client-sampling noise grows with the server step."""
    g = make_game(P14_SET, params["instance_seed"], COSINE)
    T, R, m, K = params["T"], params["R"], params["m"], 10
    per: dict[tuple[float, float, str], np.ndarray] = {}
    rows, series = [], {}
    for alg in (FSGDA, SAGDA_I):
        for grid_name, grid in P14_GRIDS.items():
            avgs = []
            for el, eg in grid:
                key = (el, eg, alg.name)
                if key not in per:
                    cfg = {"eta_xl": el, "eta_yl": el, "eta_xg": eg, "eta_yg": eg, "K": K,
                           "m": m}
                    tr = simulate(alg.method(g, cfg), T, replicas=R, seed=seed)
                    per[key] = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
                avgs.append(per[key])
            for j in range(len(grid) - 1):
                est = mean_ci(avgs[j + 1] / avgs[j])
                rows.append({"algorithm": alg.name, "grid": grid_name, "smaller": grid[j],
                             "larger": grid[j + 1], **est.as_dict()})
            series[f"{alg.name}: {grid_name}"] = (
                [el * eg * K for el, eg in grid], [float(a.mean()) for a in avgs])
    worst = max(rows, key=lambda r: r["value"])
    lo = max(r["lo"] for r in rows)
    finite = all(np.all(np.isfinite(a)) for a in per.values())
    return Measurement(worst["value"], interval=(lo, worst["value"]), series=series,
                       evidence={"pairs": rows, "worst_pair": worst, "max_lower_end": lo,
                                 "rounds": T, "replicas": R, "K": K, "m": m, "M": g.M,
                                 "L_f": g.constants["L_f"], "mu": g.constants["mu"],
                                 "stand_in": "cosine game for the paper's DRO model (a9a)"},
                       diverged=None if finite else "a run diverged",
                       run=RunConfig("sagda1", COSINE, {**P14_SET, "eta_xl": 1e-2,
                                                        "eta_yl": 1e-2, "eta_xg": 10.0,
                                                        "eta_yg": 10.0, "K": K, "m": m},
                                     T, R, seed))

