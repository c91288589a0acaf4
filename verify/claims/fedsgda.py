"""Claims of FedSGDA+ / FedSGDA-M on min-max quadratic games (common Hessians (SC-CH) unless
said, additive noise (N-add)); metric ‖∇Φ(x̄_t)‖² (closed form).

Step sizes come from the encoded schedules (Cor. 3.7, Thm 3.12 / Cor. 3.13, realized by
:mod:`fedbounds.verify.algorithms.fedsgda`), bounds from :func:`fedbounds.engine.bound`; the
exact moments, floors and the exact Theorem 3.12 evaluation are in
:mod:`fedbounds.verify.exact.fedsgda`. No formula of the paper is retyped here.

Seeds: every game is built from the instance seed (``params["instance_seed"]``); the runs'
stochastic gradients and replicas come from the noise seed."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from fedbounds import engine, registry
from fedbounds.problems.fedsgda import one_client, phi_hessian_min, pl_gaps, scaled
from fedbounds.problems.minmax import MinMaxGame, make_game
from fedbounds.verify.algorithm import Algorithm, Method, simulate
from fedbounds.verify.algorithms.fedsgda import (
    FEDSGDA_M,
    FEDSGDA_PLUS,
    cor37_config,
    cor313_config,
    exact_schedule,
)
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
from fedbounds.verify.exact.fedsgda import (
    averaged_method,
    periodic_floor,
    storm_exact_avg,
    storm_floor,
    thm312_realized,
)
from fedbounds.verify.fitting import loglog_slope, mean_ci, replica_slope
from fedbounds.verify.perturbation import Plant
from fedbounds.verify.publication import Published

QUADRATIC = "minmax-quadratic"
P6_SET = {"M": 1, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "a": 0.5, "bxy": 0.5}
P5A_SET = {"a": 1.0, "a_ratio": 1.0, "bxy": 0.3, "mu": 1.0, "sigma_x": 0.1, "sigma_y": 0.1,
           "sigma_G": 1.0}  # κ = L_f = 1.044, λ_Φ = 1.09: the cheapest x-clock threshold
P5B_SET = {**P5A_SET, "bxy": 3.0}  # L_f = κ = 3.16, λ_Φ = 10: clock·λ ≥ 3 from T = 1000 on
P3_SET = {"M": 4, "sigma_x": math.sqrt(0.5), "sigma_y": math.sqrt(0.5), "sigma_G": 1.0}  # κ = 1.5
P8_SET = {"M": 4, "a": 1.0, "a_ratio": 0.5, "bxy": 0.5, "mu": 0.5, "sigma_x": 0.5,
          "sigma_y": 0.5, "sigma_G": 0.0}  # s = 1 member; L_f ∈ [1.03, 1.15] across the family
P10_SET = {"M": 4, "dx": 1, "dy": 1, "a_ratio": 1.0, "sigma_x": 1.0, "sigma_y": 1.0,
           "sigma_G": 0.0}  # λ_Φ = 2, L_f = κ = √2; scalar Φ so that "curvature λ" is exact
P10_GRID = [(0.02, 0.002), (0.02, 0.02), (0.02, 0.2), (0.002, 0.05)]  # (h, α), our grid
P11_SET = {"M": 4, "hess_spread": 0.5, "sigma_G": 3.0}  # κ = L_f = 2.16, client Hessians differ
AVERAGE = "(1/T) Σ E‖∇Φ(x̄_t)‖²"

PREDICTIONS = Predictions(
    "fedsgda", 15, "the numbered checkable predictions of the paper's theorems, corollaries, "
    "lemmas and experiments: claims p1–p15 test them; higher numbers are additions")


def cor313_run(theorem: str, constants: Mapping[str, float], N: int, NT0: int,
               nu: float = 1.0, reading: str = "R1", where: str = "",
               cfg: Mapping[str, Any] | None = None) -> RunConditions:
    """The inputs of ``theorem``'s conditions (Theorem 3.12 / Corollary 3.13; R1 is the
    ``.corrected`` reading, R2 the printed one) at the :func:`cor313_config` run ``(constants, N,
    NT0, nu, reading)``: L_f, μ, N, the realized Q and b, and η, c, ĉ, c_1, c_2 as the exact
    schedule values the run's float64 parameters are rounded from (the schedule meets ĉ ≤
    c/(9κ²) and η ≤ 1/(20QL) with equality, so only the exact values decide them; ``cfg``, when
    given, must be the run's configuration). A batch b = κ^ν that is not an integer (the run
    divides the additive noise's variance by b) is checked as the integer batch ⌊b⌋ at noise
    σ√(⌊b⌋/b): the same run, with b in its domain (the conditions do not involve σ)."""
    base: dict[str, Any] = {"L_f": Fraction(constants["L_f"]), "mu": Fraction(constants["mu"]),
                            "N": N, "nu": nu, "T_0": Fraction(NT0, N)}
    cor = registry.get("fedsgda.cor3.13.corrected")
    b = exact_schedule(cor, ("b",), base)["b"]
    Q = max(1, round(exact_schedule(cor, ("Q",), {**base, "b": b})["Q"]))
    thm = registry.get("fedsgda.thm3.12" + (".corrected" if reading == "R1" else ""))
    st = exact_schedule(thm, ("eta", "c", "c_hat", "c_1", "c_2"), {**base, "Q": Q, "b": b})
    if cfg is not None and (cfg["Q"] != Q or any(float(st[k]) != cfg[k] for k in
                                                 ("eta", "c", "c_hat"))):
        raise ValueError(f"cor313_run: {dict(cfg)} is not the schedule's run at N = {N}, "
                         f"N·T_0 = {NT0}, ν = {nu}, {reading}")
    whole = Fraction(math.floor(b))
    note = "" if whole == b else f"; b = κ^ν = {float(b):.4g} checked as ⌊b⌋ = {whole}"
    return RunConditions(theorem, {"L_f": base["L_f"], "mu": base["mu"], "N": N, "Q": Q,
                                   "b": whole, **st}, where + note)


def cor37_run(theorem: str, L_f: float, N: int, T: int, where: str = "", S: int | None = None,
              cfg: Mapping[str, Any] | None = None) -> RunConditions:
    """The inputs of ``theorem``'s conditions (Theorem 3.6 / Corollary 3.7) at the
    :func:`cor37_config` run ``(L_f, N, T)`` (with snapshot period ``S``, named in ``where``,
    when it is not the schedule's; the conditions do not involve S): L_f, N, T, the realized Q,
    and c, ĉ, η_x, η_y as the exact schedule values the run's float64 parameters are rounded
    from (c·η_y = 1/(10QL_f) with equality when Q = T^{1/3}/N; ``cfg``, when given, must be the
    run's configuration), those of them that are the theorem's inputs."""
    cor = registry.get("fedsgda.cor3.7")
    v: dict[str, Any] = {"L_f": Fraction(L_f), "N": N, "T": T}
    v.update({k: max(1, round(x)) for k, x in exact_schedule(cor, ("Q", "S"), v).items()})
    v.update(exact_schedule(cor, ("c", "c_hat"), v))
    v.update(exact_schedule(cor, ("eta_x", "eta_y"), v))
    if cfg is not None and (cfg["Q"] != v["Q"] or any(float(v[k]) != cfg[k] for k in
                                                      ("c", "c_hat", "eta_x", "eta_y"))):
        raise ValueError(f"cor37_run: {dict(cfg)} is not the schedule's run at N = {N}, "
                         f"T = {T}")
    names = set(engine.compiled(registry.get(theorem)).names)  # the theorem's own inputs
    return RunConditions(theorem, {k: x for k, x in v.items() if k in names},
                         where if S is None else f"{where}, S = {S}".lstrip(", "))


def _averages(alg: Algorithm, g: MinMaxGame, cfg: dict[str, Any], T: int, R: int, seed: int,
              every: int = 1) -> tuple[np.ndarray, bool]:
    """(1/T) Σ_{t<T} ‖∇Φ(x̄_t)‖² per replica (records every ``every`` steps) and divergence."""
    tr = simulate(alg.method(g, cfg), T, replicas=R, seed=seed, record_every=every)
    return tr.metrics["grad_phi_sq"][:-1].mean(axis=0), tr.diverged


def _spread(ests: list, Ns: list[int], evidence: dict[str, Any], run: RunConfig,
            conditions: list[RunConditions]) -> Measurement:
    """Relative spread (max − min)/mean of the N-averaged metrics (P6, P7)."""
    vals = np.array([e.value for e in ests])
    spread = float((vals.max() - vals.min()) / vals.mean())
    return Measurement(spread, series={"measured": (Ns, vals.tolist())},
                       evidence={"N": Ns, "estimates": [e.as_dict() for e in ests],
                                 "relative_spread": spread, **evidence}, run=run,
                       conditions=conditions)


@claim("fedsgda.p1", title="FedSGDA-M's averaged iterates are invariant in Q and ζ (SC-CH)",
       prediction="with common Hessians and additive noise, x̄_t is identical for every Q and ζ "
       "(averaging commutes with the affine updates); equals centralized STORM-GDA",
       source="derived here (our prediction) from the affine updates of Algorithm 2 "
       "[L191–L222]", theorems=("fedsgda.thm3.12",),
       provenance="derived",
       derivation=("with common Hessians every client's gradient is an affine map with the same "
                   "linear part, and the noise is additive, so averaging the clients' updates of "
                   "Algorithm 2 [L191–L222] commutes with them: x̄_t obeys centralised STORM-GDA "
                   "whatever Q and ζ (exact; a property of the algorithm, not a stated result)"),
       no_conditions=("an identity of Algorithm 2's updates (averaging commutes with them under "
                      "common Hessians and additive noise) that holds at any step sizes; no "
                      "theorem's prediction is tested, so no theorem's conditions apply (the "
                      "steps are generic, not Theorem 3.12's)"),
       rule=Interval("predicted", 1e-10),
       tolerance_why=("tol 1e-10 on a max relative difference that is 0 in exact arithmetic: the "
                      "runs for each Q and ζ use common random numbers and differ only by float64 "
                      "rounding accumulated over T steps (5e-16 measured at the quick profile); "
                      "1e-10 is a round-off allowance chosen by us with a wide margin."),
       params={"T": 300, "replicas": 4, "predicted": 0.0, "hess_spread": 0.0},
       profiles={"full": {"T": 3000, "replicas": 16}}, perturb={"predicted": 1.0},
       plants=(Plant({"hess_spread": 0.5}, why="client Hessians that differ (outside the common-"
                     "Hessian assumption the invariance needs): averaging no longer commutes with "
                     "the updates, so x̄_t must depend on Q and ζ"),),
       figure=FigureSpec("FedSGDA-M: ‖∇Φ(x̄_t)‖² for every Q and ζ", "iteration t",
                         "‖∇Φ(x̄_t)‖²"))
def p1(params: Params, seed: int) -> Measurement:
    """P1: the max relative difference of ‖∇Φ(x̄_t)‖² over Q ∈ {1, 5, 20}, σ_G ∈ {0, 3} (common
    random numbers) is zero up to rounding (our prediction)."""
    T, R = params["T"], params["replicas"]
    cfg = {"c_hat": 0.5, "c": 2.0, "eta": 0.05, "alpha": 0.3, "beta": 0.2}
    curves, ref, stat = {}, None, 0.0
    for Q in (1, 5, 20):
        for sG in (0.0, 3.0):
            spread = {"hess_spread": params["hess_spread"]} if params["hess_spread"] else {}
            g = make_game({"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": sG, **spread},
                          params["instance_seed"])
            tr = simulate(FEDSGDA_M.method(g, {**cfg, "Q": Q}), T, replicas=R, seed=seed)
            gp = tr.metrics["grad_phi_sq"]
            ref = gp if ref is None else ref
            stat = max(stat, float(np.max(np.abs(gp - ref)) / np.max(np.abs(ref))))
            curves[f"Q={Q}, σ_G={sG:g}"] = (tr.iterations.tolist(), gp.mean(axis=1).tolist())
    pset = {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 3.0}
    return Measurement(stat, series=curves, evidence={"max_relative_diff": stat, "iterations": T,
                                                      "replicas": R},
                       run=RunConfig("fedsgda-m", QUADRATIC, {**pset, **cfg, "Q": 20}, T, R, seed))


def _thm312_run(st: dict[str, Any], g: MinMaxGame, reading: str, NT0: int) -> RunConditions:
    """The inputs of Theorem 3.12's conditions at a :func:`thm312_realized` run: its η (the
    float engine.max_step gives, at most the exact cap), the exact schedule values c, ĉ, c_1,
    c_2 at its Q and b, L_f, μ, N."""
    thm, k = registry.get(st["theorem"]), g.constants
    cfg, base = st["cfg"], {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "N": g.M}
    steps = exact_schedule(thm, ("c", "c_hat", "c_1", "c_2"), {**base, "nu": 0, "b": cfg["b"],
                                                                "Q": cfg["Q"]})
    return RunConditions(st["theorem"], {**base, "Q": cfg["Q"], "b": cfg["b"],
                                         "eta": Fraction(cfg["eta"]), **steps},
                         f"{reading}, N·T_0 = {NT0}")


@claim("fedsgda.p3", title="Theorem 3.12 bound holds (FedSGDA-M, R1 and R2)",
       prediction="with the Cor 3.13 schedule (ν = 0), η from max-step and the realized b, B, Q, "
       "T, the measured (1/T) Σ E‖∇Φ(x̄_t)‖² is at most the Thm 3.12 bound (observed/bound ≤ 1)",
       source="Theorem 3.12 [L245–L247] at the parameters of Corollary 3.13 [L249]; R1 under "
       "erratum which-L, both readings with Δ, Δ_y (erratum thm3.12-ybar)",
       provenance="erratum", errata=("which-L", "thm3.12-ybar"),
       theorems=("fedsgda.thm3.12", "fedsgda.thm3.12.corrected"),
       rule=UpperBound("bound_scale", end="lower"),
       tolerance_why=("rtol 1e-9 (the rule's default): float64 round-off slack in comparing "
                      "observed/bound with bound_scale. The statistical allowance is the "
                      "interval's lower end, (mean − 3 SE over the replicas)/bound, not the rtol."),
       params={"replicas": 16, "NT0s": (256, 2048), "bound_scale": 1.0, "theory_scale": 1.0},
       profiles={"full": {"replicas": 32, "NT0s": (256, 2048, 16384)}},
       perturb={"bound_scale": 1e-3},
       plants=(Plant({"theory_scale": 1e-3}, why="multiplies the Theorem 3.12 bound the measure "
                     "evaluates at the realized schedule by 10⁻³ (a wrong constant in the "
                     "theory): the measured averages must exceed it"),),
       figure=FigureSpec("FedSGDA-M: measured average vs Theorem 3.12 bound", "N·T_0", AVERAGE,
                         logx=True))
def p3(params: Params, seed: int) -> Measurement:
    """P3: max over runs of observed/bound, readings R1 (corrected, L = L_f) and R2 (printed,
    L = L_f(1 + κ)); violated only if (mean − 3 SE)/bound > bound_scale (our decision rule)."""
    R, NT0s = params["replicas"], list(params["NT0s"])
    g = make_game(P3_SET, params["instance_seed"])
    rows, worst, worst_lo, conditions = [], 0.0, -math.inf, []
    series: dict[str, tuple[list[float], list[float]]] = {}
    for reading in ("R1", "R2"):
        obs_s, bd_s = [], []
        for NT0 in NT0s:
            st = thm312_realized(g, reading, NT0)
            conditions.append(_thm312_run(st, g, reading, NT0))
            per, diverged = _averages(FEDSGDA_M, g, st["cfg"], st["T"], R, seed,
                                      max(1, st["T"] // 400))
            est = mean_ci(per)
            se = float(per.std(ddof=1) / math.sqrt(per.size))
            bd = st["bound"]
            if params["theory_scale"] != 1.0:  # a plant: a wrong constant in the bound
                bd = replace(bd, value=bd.value * params["theory_scale"])
            ratio, lo = est.value / bd.value, (est.value - 3 * se) / bd.value
            worst, worst_lo = max(worst, ratio), max(worst_lo, lo)
            rows.append({"reading": reading, "theorem": st["theorem"], "NT0": NT0, "T": st["T"],
                         **st["cfg"], "eta_binding": st["eta_binding"], "observed": est.value,
                         "observed_se": se, "bound": bd.value, "ratio": ratio,
                         "conditions_hold": bd.feasible, "violated": bd.violated,
                         "terms": bd.terms, "diverged": diverged})
            obs_s.append(est.value)
            bd_s.append(bd.value)
        series[f"{reading}: measured"] = (NT0s, obs_s)
        series[f"{reading}: Thm 3.12 bound"] = (NT0s, bd_s)
    k = g.constants
    ev = {"runs": rows, "Delta": st["Delta"], "Delta_y": st["Delta_y"], "kappa": k["kappa"],
          "sigma": k["sigma"], "zeta": k["zeta"], "replicas": R, "max_lower_ratio": worst_lo,
          "inputs": "Δ = Φ(x̄_0) − Φ(x*) and Δ_y = Φ(x̄_0) − F(x̄_0, ȳ_0) computed exactly from "
                    "the game; σ, ζ, L_f, μ exact by construction; η = engine.max_step(thm, "
                    "'eta'); c, ĉ, c_1, c_2 from the theorem's schedule; Q, T, B from Cor 3.13 "
                    "rounded"}
    return Measurement(worst, interval=(worst_lo, worst), series=series, evidence=ev,
                       conditions=conditions,
                       run=RunConfig("fedsgda-m", QUADRATIC, {**P3_SET, **st["cfg"]}, st["T"],
                                     R, seed),
                       diverged="a run diverged" if any(r["diverged"] for r in rows) else None,
                       inconclusive=None if all(r["conditions_hold"] for r in rows) else
                       "the theorem's conditions fail at the realized parameters")


@claim("fedsgda.p5a", seconds=8.5, title="FedSGDA-M rate: slope −2/3 vs N·T_0 (Cor 3.13)",
       prediction="in the transient-dominated regime the averaged ‖∇Φ‖² has log-log slope "
       "−2/3 ± 0.1 in N·T_0 (x-clock ĉηT = (NT_0)^{2/3}/(1080L))",
       source="Corollary 3.13 [L249–L251], Remark 3.14 [L255]; slope and x-clock derived here",
       provenance="derived",
       derivation=("Corollary 3.13 [L249–L251] bounds (1/T)Σ E‖∇Φ(x̄_t)‖² by O((N·T_0)^{-2/3}) with"
                   " the x-step clock ĉηT = (NT_0)^{2/3}/(1080L); in the transient-dominated regime"
                   " the error is ∝ 1/(ĉηT), so reading the bound as the rate gives slope −2/3 in "
                   "N·T_0 (a bound read as a rate); the runs use reading R1, L = L_f (erratum "
                   "which-L), whose conditions they meet"),
       theorems=("fedsgda.cor3.13", "fedsgda.cor3.13.corrected"), errata=("which-L",),
       rule=Interval("predicted_slope", 0.1),
       tolerance_why=("±0.1 on a slope: a modelling slack chosen by us, since Corollary 3.13's "
                      "bound is read as a rate and finite-N·T_0 transients bend the fit. The quick "
                      "profile's replica slope −0.650 has 95% CI [−0.651, −0.650] (8 replicas), "
                      "which misses −2/3 by ≈ 0.016: only the tolerance confirms."),
       params={"part": "a", "points": (48, 96, 144), "replicas": 8, "predicted_slope": -2 / 3,
               "clock_slowdown": 0.0},
       profiles={"full": {"points": (48, 96, 192), "replicas": 16}},
       perturb={"predicted_slope": 0.0},
       plants=(Plant({"clock_slowdown": 2 / 3}, why="a broken schedule: the x-step ĉ shrinks like "
                     "(N·T_0)^{-2/3} so the x-clock ĉηT stops growing with N·T_0; the error is "
                     "∝ 1/clock, so the slope must leave −2/3 ± 0.1 (toward 0)"),),
       figure=FigureSpec("FedSGDA-M, Cor 3.13 (ν = 1, b = κ): averaged ‖∇Φ‖² vs N·T_0", "N·T_0",
                         AVERAGE, logx=True))
def p5a(params: Params, seed: int) -> Measurement:
    """P5: replica-slope of the averaged metric in the transient-dominated regime (x-clock·λ_Φ ≥
    2, σ² = 0.02): (a) FedSGDA-M under Cor 3.13 (ν = 1, b = κ) vs N·T_0 at the ``points`` N with
    N·T_0 = N³; (b) FedSGDA+ under Cor 3.7 vs T at the ``points`` T with N = T^{1/3}. Q = 1 at
    every point, which P1/P6/P7 show leaves the averaged dynamics unchanged."""
    R, part = params["replicas"], params["part"]
    pset = P5A_SET if part == "a" else P5B_SET
    g0 = make_game({**pset, "M": 2}, params["instance_seed"])
    lam = phi_hessian_min(g0)
    xs, per_rep, cfgs, clocks, conditions = [], [], [], [], []
    first = params["points"][0] ** (3 if part == "a" else 1)
    for x in params["points"]:
        if part == "a":
            N, xs_i, alg = x, x**3, FEDSGDA_M
            g = make_game({**pset, "M": N}, params["instance_seed"])
            cfg, T = cor313_config(g.constants, N, N**3)
            clock = cfg["c_hat"] * cfg["eta"] * T
            conditions.append(cor313_run("fedsgda.cor3.13.corrected", g.constants, N, N**3,
                                         where=f"N = {N}, N·T_0 = {N**3}", cfg=cfg))
        else:
            T, xs_i, alg = x, x, FEDSGDA_PLUS
            N = round(T ** (1 / 3))
            g = make_game({**pset, "M": N}, params["instance_seed"])
            cfg = cor37_config(g.constants["L_f"], N, T)
            clock = cfg["c_hat"] * cfg["eta_x"] * cfg["Q"] * T
            conditions.append(cor37_run("fedsgda.cor3.7", g.constants["L_f"], N, T,
                                        f"T = {T}, N = {N}", cfg=cfg))
        run_cfg = cfg if not params["clock_slowdown"] else {  # a plant: a slowed x-clock
            **cfg, "c_hat": cfg["c_hat"] * (xs_i / first) ** -params["clock_slowdown"]}
        per_rep.append(_averages(alg, g, run_cfg, T, R, seed, max(1, T // 400))[0])
        xs.append(xs_i)
        cfgs.append((cfg, T, N))
        clocks.append(clock)
    Y = np.array(per_rep).T
    pred = params["predicted_slope"]
    fit = replica_slope(np.asarray(xs, float), Y)
    means = Y.mean(axis=0)
    ref = [float(means[0] * (x / xs[0]) ** pred) for x in xs]
    ev = {"x": xs, "avg_grad_phi_sq": means.tolist(), "replicas": R, "lambda_phi_min": lam,
          "L_f": g0.constants["L_f"], "x_clock": clocks,
          "x_clock_times_lambda": [c * lam for c in clocks], "fit": fit.as_dict(),
          "schedules": [{"T": T, "N": N, **c} for c, T, N in cfgs],
          "regime": "transient-dominated: x-clock·λ_Φ ≥ 2 at the smallest point, σ² = 0.02"}
    cfg, T, N = cfgs[-1]
    return Measurement(fit.slope, interval=(fit.lo, fit.hi), evidence=ev,
                       series={"measured": (xs, means.tolist()),
                               f"slope {pred:.3g} (anchored)": (xs, ref)},
                       conditions=conditions,
                       run=RunConfig(alg.name, QUADRATIC, {**pset, "M": N, **cfg}, T, R, seed),
                       diverged=None if np.all(np.isfinite(Y)) else "a run diverged")


p5b = p5a.variant(
    "fedsgda.p5b", seconds=4.9, title="FedSGDA+ rate: slope −1/3 vs T (Cor 3.7)",
    tolerance_why=("±0.1 on a slope: a modelling slack chosen by us, since Corollary 3.7's bound "
                   "is read as a rate and finite-T transients bend the fit. The quick profile's "
                   "replica slope −0.347 has 95% CI [−0.3471, −0.3470] (8 replicas), which misses "
                   "−1/3 by ≈ 0.014: only the tolerance confirms."),
    prediction="in the transient-dominated regime the averaged metric has log-log slope "
    "−1/3 ± 0.1 in T (x-clock T^{1/3}/(10L_f))",
    source="Corollary 3.7 [L179–L181], Remark 3.8 [L183]; slope derived here",
    provenance="derived",
    derivation=("Corollary 3.7 [L179–L181] bounds the averaged metric by O(T^{-1/3}) with x-clock "
                "T^{1/3}/(10L_f); in the transient-dominated regime the error is ∝ 1/clock, so "
                "reading the bound as the rate gives slope −1/3 in T (a bound read as a rate)"),
    theorems=("fedsgda.cor3.7",), errata=(), perturb={"predicted_slope": -1.0},
    plants=(Plant({"clock_slowdown": 1 / 3}, why="a broken schedule: the x-step ĉ shrinks like "
                  "T^{-1/3} so the x-clock stops growing with T; the error is ∝ 1/clock, so the "
                  "slope must leave −1/3 ± 0.1 (toward 0)"),),
    params={"part": "b", "points": (1000, 8000, 27000), "predicted_slope": -1 / 3},
    profiles={"full": {"points": (1000, 8000, 64000)}},
    figure=FigureSpec("FedSGDA+, Cor 3.7: averaged ‖∇Φ‖² vs T", "T (rounds)", AVERAGE, logx=True))


@claim("fedsgda.p6", seconds=5.0, title="FedSGDA-M linear speedup: results depend on N·T_0 only",
       prediction="under the Cor 3.13 schedule (ν = 1, b = κ, reading R1) the averaged ‖∇Φ‖² at "
       "fixed N·T_0 is the same for N ∈ {1, 2, 4, 8} (relative spread ≤ 5%)",
       source="Corollary 3.13 [L249–L251] (the bound depends on N·T_0 only), Remark 3.14 "
       "[L255]; exact invariance derived here",
       theorems=("fedsgda.cor3.13", "fedsgda.cor3.13.corrected"), errata=("which-L",),
       provenance="derived",
       derivation=("Corollary 3.13 [L249–L251] sets every step from N·T_0 (and κ, b), so its bound "
                   "depends on N and T_0 only through N·T_0 (Remark 3.14 [L255]: linear speedup). "
                   "On the test problem the averaged dynamics under this schedule depend on N·T_0 "
                   "only, so the measured averages should agree for every N at fixed N·T_0; the "
                   "exact invariance is ours (the paper states only the bound). The runs use "
                   "reading R1, L = L_f (erratum which-L), whose conditions they meet"),
       rule=Interval("predicted", 0.05),
       tolerance_why=("±0.05 on the relative spread (max − min)/mean over N: a slack chosen by us "
                      "for the Monte Carlo error of 8-replica (full: 32) means, for which the "
                      "statistic carries no interval, while the predicted invariance is exact. The "
                      "quick profile's spread 0.0067 is not 0 and is confirmed through the "
                      "tolerance (Monte Carlo error not separated from a model error)."),
       params={"replicas": 8, "predicted": 0.0, "schedule_N": 0},
       profiles={"full": {"replicas": 32}}, perturb={"predicted": 0.5},
       plants=(Plant({"schedule_N": 1}, why="every N runs the N = 1 schedule (steps, Q, b not "
                     "rescaled with N: the schedule behind the linear speedup dropped) for its own "
                     "number of rounds, so the averages must differ across N"),),
       figure=FigureSpec("FedSGDA-M, Cor 3.13 schedule, N·T_0 = 32768", "N", AVERAGE, logx=True,
                         logy=False, kind="scatter"))
def p6(params: Params, seed: int) -> Measurement:
    """P6: relative spread over N of the averaged metric under Cor 3.13 at N·T_0 = 32768."""
    NT0, R, Ns = 32768, params["replicas"], [1, 2, 4, 8]
    ests, cfgs, conditions = [], [], []
    for N in Ns:
        g = make_game({**P6_SET, "M": N}, params["instance_seed"])
        cfg, T = cor313_config(g.constants, N, NT0)
        run_cfg = cor313_config(g.constants, params["schedule_N"], NT0)[0] if params[
            "schedule_N"] else cfg  # a plant: another N's schedule
        ests.append(mean_ci(_averages(FEDSGDA_M, g, run_cfg, T, R, seed, 8)[0]))
        cfgs.append((cfg, T))
        conditions.append(cor313_run("fedsgda.cor3.13.corrected", g.constants, N, NT0,
                                     where=f"N = {N}, N·T_0 = {NT0}", cfg=cfg))
    cfg, T = cfgs[-1]
    return _spread(ests, Ns, {"schedules": [{"T": T, **c} for c, T in cfgs],
                                  "reading": "R1 (L = L_f)", "nu": 1},
                   RunConfig("fedsgda-m", QUADRATIC, {**P6_SET, "M": Ns[-1], **cfg}, T, R, seed),
                   conditions)


@claim("fedsgda.p7", title="FedSGDA+: no accuracy gain from N at fixed T",
       prediction="under the Cor 3.7 schedule the per-round dynamics are N-free: the averaged "
       "metric at fixed T is the same for N ∈ {1, 2, 4, 8} (relative spread ≤ 5%), per-client "
       "work ∝ 1/N",
       source="derived here from Corollary 3.7 [L179–L183] (erratum linear-speedup)",
       provenance="derived",
       derivation=("under Corollary 3.7's schedule [L179–L183] the steps do not depend on N, and "
                   "with the clients' samples split N ways the averaged per-round update has the "
                   "same law for every N, so the metric at fixed T does not fall with N (erratum "
                   "linear-speedup); per-client work ∝ 1/N"),
       theorems=("fedsgda.cor3.7",),
       rule=Interval("predicted", 0.05),
       tolerance_why=("±0.05 on the relative spread (max − min)/mean over N: a slack chosen by us "
                      "for the Monte Carlo error of 16-replica (full: 32) means, for which the "
                      "statistic carries no interval, while the predicted N-invariance is exact. "
                      "The quick profile's spread 0.0008 is not 0 and is confirmed through the "
                      "tolerance (Monte Carlo error not separated from a model error)."),
       params={"T": 512, "replicas": 16, "predicted": 0.0, "Q_of_N": 0},
       profiles={"full": {"T": 4096, "replicas": 32}}, perturb={"predicted": 0.5},
       plants=(Plant({"Q_of_N": 1}, why="every N keeps its step η_x ∝ N but takes the N = 1 "
                     "schedule's Q = T^{1/3} local steps (not T^{1/3}/N): the per-round progress "
                     "Qη_x grows with N, so the averages must differ across N"),),
       figure=FigureSpec("FedSGDA+, Cor 3.7 schedule, fixed T", "N", AVERAGE, logx=True,
                         logy=False, kind="scatter"))
def p7(params: Params, seed: int) -> Measurement:
    """P7: relative spread over N of the averaged metric under Cor 3.7 at fixed T (Q = T^{1/3}/N)."""
    T, R, Ns = params["T"], params["replicas"], [1, 2, 4, 8]
    ests, cfgs, conditions = [], [], []
    for N in Ns:
        g = make_game({**P6_SET, "M": N}, params["instance_seed"])
        cfg = cor37_config(g.constants["L_f"], N, T)
        run_cfg = {**cfg, "Q": cor37_config(g.constants["L_f"], params["Q_of_N"], T)["Q"]} if (
            params["Q_of_N"]) else cfg  # a plant: another N's number of local steps
        ests.append(mean_ci(_averages(FEDSGDA_PLUS, g, run_cfg, T, R, seed)[0]))
        cfgs.append(cfg)
        conditions.append(cor37_run("fedsgda.cor3.7", g.constants["L_f"], N, T,
                                    f"N = {N}, T = {T}", cfg=cfg))
    return _spread(ests, Ns, {"per_client_gradients": [2 * c["Q"] * T for c in cfgs]},
                   RunConfig("fedsgda-plus", QUADRATIC, {**P6_SET, "M": Ns[-1], **cfgs[-1]}, T,
                             R, seed), conditions)


# ---- exact claims (P8–P11, P9): averaged iterates = one client with batch N·b (P1) ------------
@claim("fedsgda.p8", title="FedSGDA-M κ-dependence: flat under R1 (L = L_f), rising under R2",
       prediction="along a Φ-preserving family (C̄ → sC̄, B̄ → √sB̄, c̄ → √sc̄; κ ≈ 2.3…16.5) the "
       "Cor 3.13 run's averaged ‖∇Φ‖² at fixed N·T_0 is κ-invariant under R1 (max |log ratio| ≤ "
       "0.2) and stays below the corrected Cor 3.13; R2 (L = L_f(1 + κ)) rises toward ‖∇Φ(x_0)‖²",
       source="Corollary 3.13 [L249–L251] under both readings of L (erratum which-L); "
       "κ-invariance under R1 derived here",
       provenance="derived",
       derivation=("along the family C̄ → sC̄, B̄ → √sB̄, c̄ → √sc̄ the function Φ is unchanged "
                   "while κ grows; under reading R1 (L = L_f) Corollary 3.13's steps and bound do "
                   "not depend on κ beyond L, so the averaged ‖∇Φ‖² at fixed N·T_0 should not "
                   "change; under R2 (L = L_f(1 + κ)) the steps shrink like 1/κ and the average "
                   "rises toward ‖∇Φ(x_0)‖². A reading of the schedule, not a stated result"),
       theorems=("fedsgda.cor3.13", "fedsgda.cor3.13.corrected"),
       errata=("which-L", "cor3.13-arithmetic"), rule=Interval("predicted", 0.2),
       tolerance_why=("±0.2 on max |log ratio| over κ: a modelling slack chosen by us for a "
                      "reading of the schedule (not a stated result). The statistic is exact "
                      "(STORM moments, no sampling) and is 0.136 at the quick profile, not 0: the "
                      "R1 average changes with κ by up to ≈ 15%, and only the tolerance confirms "
                      "the invariance."),
       params={"NT0s": (2**18,), "s": (1.0, 0.5, 0.25, 0.125), "predicted": 0.0,
               "reading": "R1"},
       plants=(Plant({"reading": "R2"}, why="the printed reading R2 (L = L_f(1 + κ)) as the "
                     "theory: its steps shrink like 1/κ, so the averages must rise with κ and the "
                     "κ-invariance fail"),),
       profiles={"full": {"NT0s": (2**15, 2**18, 2**21), "s": (1.0, 0.5, 0.25, 0.125, 0.0625)}},
       perturb={"predicted": 1.0},
       figure=FigureSpec("FedSGDA-M, Cor 3.13 (ν = 0) along a Φ-preserving family: R1 vs R2", "κ",
                         f"{AVERAGE} (exact)", logx=True, logy=False))
def p8(params: Params, seed: int) -> Measurement:
    """P8: max_κ |log(metric_κ/metric_κmin)| under R1 (exact STORM moments; Φ, Δ, Δ_y unchanged
    along the family); R2 (the printed theorem's η) is reported alongside."""
    N, nu, NT0s = 4, 0, list(params["NT0s"])
    g0 = make_game(P8_SET, params["instance_seed"])
    cor = registry.get("fedsgda.cor3.13.corrected")
    thm = registry.get("fedsgda.thm3.12.corrected")
    rows, series, stats, conditions = [], {}, {"R1": 0.0, "R2": 0.0}, []
    gp0 = float(g0.grad_phi_sq(g0.z0[: g0.dx]))
    for NT0 in NT0s:
        for reading in ("R1", "R2"):
            ks, vals = [], []
            for s in params["s"]:
                g = scaled(g0, s)
                k = g.constants
                cfg, T = cor313_config(k, N, NT0, nu, reading)
                val = storm_exact_avg(*averaged_method(g, cfg), T)
                row = {"reading": reading, "NT0": NT0, "s": s, "kappa": k["kappa"],
                       "L_f": k["L_f"], "mu": k["mu"], "T": T, **cfg, "avg_grad_phi_sq": val}
                if reading == "R1":  # the corrected Cor 3.13 bound at the exact schedule
                    conditions.append(cor313_run(cor.id, k, N, NT0, nu, reading, where=(
                        f"R1, N·T_0 = {NT0}, s = {s:g} (κ = {k['kappa']:.4g})"), cfg=cfg))
                    Delta, Delta_y = pl_gaps(g)
                    exact = {n: Fraction(float(v)) for n, v in {
                        "Delta": Delta, "Delta_y": Delta_y, "L_f": k["L_f"], "N": N,
                        "Q": cfg["Q"], "T_0": NT0 / N, "b": 1, "mu": k["mu"], "nu": nu,
                        "sigma": k["sigma"], "zeta": 0.0}.items()}
                    exact.update(exact_schedule(thm, ("eta", "c", "c_hat", "c_1", "c_2"), exact))
                    bd = engine.bound(cor, exact)
                    row.update(cor313_corrected_bound=bd.value, bound_conditions_hold=bd.feasible,
                               bound_violated_conditions=bd.violated, below_bound=val <= bd.value)
                rows.append(row)
                ks.append(k["kappa"])
                vals.append(val)
            stats[reading] = max(stats[reading],
                                 float(np.max(np.abs(np.log(np.array(vals) / vals[0])))))
            series[f"{reading}, N·T_0 = {NT0}"] = (ks, vals)
    cfg, T = cor313_config(g0.constants, N, NT0s[0], nu)
    return Measurement(
        stats[params["reading"]], series=series, hlines={"‖∇Φ(x_0)‖²": gp0},
        evidence={"runs": rows, "max_abs_log_ratio_R1": stats["R1"],
                  "max_abs_log_ratio_R2": stats["R2"], "grad_phi_sq_x0": gp0, "N": N, "nu": nu,
                  "all_below_corrected_cor313": all(r.get("below_bound", True) for r in rows),
                  "method": "exact: averaged iterates = one client with batch N·b (P1); moments "
                            "of the affine STORM step read off the fedsgda-m step"},
        conditions=conditions,
        run=RunConfig("fedsgda-m", QUADRATIC, {**P8_SET, **cfg}, T, 8, seed))


@claim("fedsgda.p10", title="FedSGDA-M momentum benefit is α/(α + hλ) (grid beyond Thm 3.12)",
       prediction="the stationary floor with STORM momentum α = β over the α = β = 1 floor (same "
       "steps) equals α/(α + hλ) within 0.1, on a (h, α) grid outside Theorem 3.12's conditions "
       "and under the Thm 3.12 schedule (hλ/α = bNQλ/(81κ²L_f): small benefit until N·T_0 is "
       "large)",
       source="derived here (our prediction) for Algorithm 2 under the schedule of Theorem 3.12 "
       "[L245]", theorems=("fedsgda.thm3.12.corrected",),
       provenance="extrapolation",
       derivation=("on a quadratic with curvature λ, one x-step h = ĉη of Algorithm 2 with STORM "
                   "weight α filters the gradient noise through a first-order recursion; its "
                   "stationary variance relative to α = β = 1 is α/(α + hλ) to first order in h "
                   "(derived here; small-step approximation). The law is one of the recursion at "
                   "any small step, so the (h, α) grid (one client, ĉ = 1, c = c_η/h, Q = 1) "
                   "explores it beyond the corrected Theorem 3.12: at every grid point cη ≤ "
                   "1/(20L_f) fails (by 0.065 at c_η = 0.1, 0.46 at c_η = 0.5) and so do the "
                   "v-coefficient and drift-factor conditions; the u-coefficient fails at h = "
                   "0.02, ĉ ≤ c/(9κ²) at h = 0.02, c_η = 0.1, and c_1, c_2 ≤ 30L_f²/(bN) where "
                   "α/h² > 60 (by 440 and 12440). The Cor 3.13 schedule rows meet every "
                   "condition"),
       rule=Interval("predicted", 0.1),
       tolerance_why=("±0.1 on max |floor ratio − α/(α + hλ)|: a modelling slack chosen by us for "
                      "a law derived to first order in the step h, whose higher-order corrections "
                      "are not bounded. The ratios are exact (discrete Lyapunov equation) and "
                      "deviate by 0.061 at the quick profile: the law holds only approximately, "
                      "and only the tolerance confirms."),
       params={"c_eta": (0.1, 0.5), "NT0s": (2**12, 2**15, 2**18), "predicted": 0.0,
               "lam_scale": 1.0},
       plants=(Plant({"lam_scale": 10.0}, why="a wrong curvature in the law α/(α + hλ) (λ ten "
                     "times Φ''): the exact floor ratios must leave the planted law by more than "
                     "0.1"),),
       profiles={"full": {"c_eta": (0.05, 0.1, 0.5),
                          "NT0s": (2**12, 2**15, 2**18, 2**21, 2**24)}},
       perturb={"predicted": 0.5},
       figure=FigureSpec("FedSGDA-M: floor ratio (α vs α = β = 1) against α/(α + hλ)",
                         "α/(α + hλ)", "floor(α)/floor(1) (exact)", logy=False, kind="scatter"))
def p10(params: Params, seed: int) -> Measurement:
    """P10: max |floor ratio − α/(α + hλ)| (h = ĉη, λ = Φ'') over the grid and the schedule points
    (exact stationary moments, discrete Lyapunov equation)."""
    g = make_game(P10_SET, params["instance_seed"])
    g1, lam, N = one_client(g), phi_hessian_min(g), g.M

    def ratio_row(method_of: Callable[[dict[str, Any]], Method], cfg: dict[str, Any]
                  ) -> dict[str, float]:
        f, rho = storm_floor(g1, method_of(cfg))
        f1, _ = storm_floor(g1, method_of({**cfg, "alpha": 1.0, "beta": 1.0}))
        h, a = cfg["c_hat"] * cfg["eta"], cfg["alpha"]
        return {"h": h, "alpha": a, "floor": f, "floor_alpha1": f1, "ratio": f / f1,
                "predicted_ratio": a / (a + h * lam * params["lam_scale"]), "rho": rho}

    rows = [{"set": "grid", "c_eta": cy, **ratio_row(lambda c: FEDSGDA_M.method(g1, c), {
        "c_hat": 1.0, "eta": h, "c": cy / h, "alpha": a, "beta": a, "b": 1, "B": 1})}
        for h, a in P10_GRID for cy in params["c_eta"]]
    thm, k1 = "fedsgda.thm3.12.corrected", g1.constants
    conditions = [RunConditions(thm, {  # one client, b = 1, Q = 1: the grid's method
        "L_f": k1["L_f"], "mu": k1["mu"], "N": g1.M, "Q": 1, "b": 1, "eta": h, "c_hat": 1,
        "c": cy / h, "c_1": Fraction(a) / Fraction(h) ** 2, "c_2": Fraction(a) / Fraction(h) ** 2},
        f"grid: h = ĉη = {h:g}, α = β = {a:g}, cη = {cy:g}")
        for h, a in P10_GRID for cy in params["c_eta"]]
    for NT0 in params["NT0s"]:
        cfg, T = cor313_config(g.constants, N, NT0, 0)
        r = ratio_row(lambda c: averaged_method(g, c)[1], cfg)
        rows.append({"set": "Cor 3.13 (R1, ν = 0)", "NT0": NT0, **r,
                     "h_lambda_over_alpha": r["h"] * lam / r["alpha"]})
        conditions.append(cor313_run(thm, g.constants, N, NT0, 0, where=(
            f"Cor 3.13 schedule (R1, ν = 0), N·T_0 = {NT0}"), cfg=cfg))
    stat = float(max(abs(r["ratio"] - r["predicted_ratio"]) for r in rows))
    k = g.constants
    sch, grid = [r for r in rows if "NT0" in r], [r for r in rows if r["set"] == "grid"]
    cfg, T = cor313_config(k, N, params["NT0s"][-1], 0)
    return Measurement(
        stat, series={"grid (h, α)": ([r["predicted_ratio"] for r in grid],
                                      [r["ratio"] for r in grid]),
                      "Cor 3.13 schedule": ([r["predicted_ratio"] for r in sch],
                                            [r["ratio"] for r in sch]),
                      "y = x": ([0.0, 1.0], [0.0, 1.0])},
        evidence={"runs": rows, "lambda_phi": lam, "kappa": k["kappa"], "L_f": k["L_f"], "N": N,
                  "max_abs_deviation": stat,
                  "schedule_benefit": {r["NT0"]: 1 - r["ratio"] for r in sch},
                  "schedule_threshold_NT0_for_10pct":
                      (0.1 / 0.9 * 81 * k["kappa"] ** 2 * k["L_f"] / lam) ** 3,
                  "method": "exact stationary mean and covariance of the affine STORM step, "
                            "averaged iterates = one client with batch N·b (P1)"},
        conditions=conditions,
        run=RunConfig("fedsgda-m", QUADRATIC, {**P10_SET, **cfg}, T, 8, seed))


@claim("fedsgda.p11", title="FedSGDA-M suppresses heterogeneity: ζ-floor O((NT_0)^{-2/3})",
       prediction="on (SC-HH) the noise-free heterogeneity floor of FedSGDA-M under Cor 3.13 "
       "decays with N·T_0 at slope ≤ −2/3 (+0.1), while Local SGDA at the same steps plateaus",
       source="Theorem 3.12 [L247] (ζ enters only through the Lemma C.5 term, eq. (36) "
       "[L734–L738]), Corollary 3.13 [L251]; the decay in N·T_0 is derived here",
       provenance="derived",
       derivation=("in Theorem 3.12 [L247] ζ enters only through the Lemma C.5 term, eq. (36) "
                   "[L734–L738], which under Corollary 3.13 [L251] decays like (N·T_0)^{-2/3}; "
                   "reading that term as the noise-free heterogeneity floor gives slope ≤ −2/3 in "
                   "N·T_0, while Local SGDA at the same steps keeps an O(η²ζ²) bias (a bound read "
                   "as a rate)"),
       theorems=("fedsgda.thm3.12.corrected", "fedsgda.cor3.13.corrected"),
       errata=("which-L", "lemmaC4-sync"), rule=AtMost("predicted_slope", 0.1),
       tolerance_why=("+0.1 on a slope: a modelling slack chosen by us, since the slope reads a "
                      "term of Theorem 3.12's bound as the floor's rate. The floors are exact "
                      "fixed points (no interval); the largest slope −0.637 lies above −2/3 by "
                      "0.030, ≈ 10× its round-off (≈ 3e-3, see published): the floor decays more "
                      "slowly than −2/3 and only the tolerance confirms."),
       params={"NT0s": (2**12, 2**15, 2**18), "predicted_slope": -2 / 3, "momentum": True},
       plants=(Plant({"momentum": False}, why="FedSGDA-M without its STORM momentum (α = β = 1: "
                     "Local SGDA at the same steps), which keeps an O(η²ζ²) drift: the floor must "
                     "plateau instead of decaying at slope −2/3"),),
       profiles={"full": {"NT0s": (2**12, 2**15, 2**18, 2**21)}},
       perturb={"predicted_slope": -3.0},
       figure=FigureSpec("(SC-HH) heterogeneity floor vs N·T_0 (exact fixed points)", "N·T_0",
                         "orbit-average ‖∇Φ(x̄)‖², noise-free", logx=True),
       published=(
           Published(("floor_fedsgda_m", "ratio", "figure"), digits=1,
                     why="the floor is ‖∇Φ(x̄)‖² at the block map's fixed point w = (I − A)⁻¹c, "
                         "where ∇Φ(x̄) ≈ 10⁻⁹–10⁻⁸ is what is left of terms of order 1: the "
                         "rounding of A, c (≈ ε‖A‖‖w‖ ≈ 2²ε) moves ∇Φ(x̄) by ‖G·P_x̄(I − A)⁻¹‖ "
                         "≈ 1.5·10⁴ (ρ = 0.99993) times that, typically 1/√n of it (n = 32): "
                         "≈ 3·10⁻¹², a relative error up to ≈ 7·10⁻³ of the floor"),
           Published(("fedsgda_m, σ_G = 1", "fedsgda_m, σ_G = 3", "max_slope_fedsgda_m",
                      "statistic"), digits=1,
                     why="a least-squares slope of log floor over N·T_0 a factor 8 apart carries "
                         "≈ 0.4–0.5× the floors' relative error (≲ 7·10⁻³, see the floors): "
                         "≈ 3·10⁻³, one significant digit")))
def p11(params: Params, seed: int) -> Measurement:
    """P11: the largest log-log slope in N·T_0 of FedSGDA-M's floor (Cor 3.13, R1, ν = 0) over
    σ_G ∈ {1, 3}; Local SGDA (α = β = 1, drift ĉηQζ T_0-independent) must plateau (slope ≥ −0.1).
    Exact fixed points of the one-block (Q steps) affine map on all N clients."""
    NT0s = list(params["NT0s"])
    rows, series, slopes, conditions = [], {}, {}, []
    for sG in (1.0, 3.0):
        g = make_game({**P11_SET, "sigma_G": sG}, params["instance_seed"])
        fm, fl = [], []
        for NT0 in NT0s:
            cfg, T = cor313_config(g.constants, g.M, NT0, 0)
            conditions.append(cor313_run("fedsgda.cor3.13.corrected", g.constants, g.M, NT0, 0,
                                         where=f"σ_G = {sG:g}, N·T_0 = {NT0}", cfg=cfg))
            mcfg = cfg if params["momentum"] else {**cfg, "alpha": 1.0, "beta": 1.0}
            f, rho, z2 = periodic_floor(g, FEDSGDA_M.method(g, mcfg))
            f1, rho1, _ = periodic_floor(g, FEDSGDA_M.method(g, {**cfg, "alpha": 1.0,
                                                                 "beta": 1.0}))
            rows.append({"sigma_G": sG, "NT0": NT0, "Q": cfg["Q"], "alpha": cfg["alpha"],
                         "floor_fedsgda_m": f, "floor_local_sgda": f1, "ratio": f / f1,
                         "rho": rho, "rho_local": rho1, "zeta_sq_at_fixed_point": z2})
            fm.append(f)
            fl.append(f1)
        for name, floors in (("fedsgda_m", fm), ("local_sgda", fl)):
            slopes[f"{name}, σ_G = {sG:g}"] = loglog_slope(np.array(NT0s, float),
                                                           np.array(floors)).slope
        series[f"FedSGDA-M, σ_G = {sG:g}"] = (NT0s, fm)
        series[f"Local SGDA (α = β = 1), σ_G = {sG:g}"] = (NT0s, fl)
    stat = max(v for k, v in slopes.items() if k.startswith("fedsgda_m"))
    plateau = min(v for k, v in slopes.items() if k.startswith("local_sgda"))
    g = make_game(P11_SET, params["instance_seed"])
    cfg, T = cor313_config(g.constants, g.M, NT0s[-1], 0)
    return Measurement(
        stat, series=series,
        evidence={"runs": rows, "slopes": slopes, "max_slope_fedsgda_m": stat,
                  "min_slope_local_sgda": plateau, "kappa": g.constants["kappa"],
                  "method": "fixed point of the one-block (Q steps) affine map of fedsgda-m on "
                            "all N clients (noise-free: the ζ-dependent part of E‖∇Φ‖² is the "
                            "mean part)"},
        checks=(Check("Local SGDA floor plateaus (slope ≥ −0.1)", plateau >= -0.1),),
        conditions=conditions,
        run=RunConfig("fedsgda-m", QUADRATIC, {**P11_SET, **cfg}, T, 8, seed))


@claim("fedsgda.p14", title="FedSGDA+ snapshot period: smaller S is no worse (smooth case)",
       prediction="our conjecture (not a paper claim): on (SC) under Cor 3.7 the averaged "
       "metric is non-increasing as S decreases over S ∈ {1, T^{1/6}, T^{1/3}, T^{1/2}}",
       source="Corollary 3.7 [L179] (S = T^{1/3}); the monotonicity in S is our conjecture",
       provenance="conjecture",
       theorems=("fedsgda.cor3.7",), rule=UpperBound("tolerated_increase", 0.0, end="lower"),
       params={"T": 512, "replicas": 16, "tolerated_increase": 0.01},
       profiles={"full": {"T": 4096, "replicas": 32}}, perturb={"tolerated_increase": 0.0},
       figure=FigureSpec("FedSGDA+, Cor 3.7 schedule: averaged metric vs snapshot period S",
                         "S (rounds)", AVERAGE, logx=True, logy=False, kind="scatter"))
def p14(params: Params, seed: int) -> Measurement:
    """P14: the largest paired relative increase (metric(S_small) − metric(S_large))/metric(S_large)
    over neighbouring S (common random numbers); refuted when the lower end of its 95% CI exceeds
    the tolerated increase (smooth (SC) instance only, not an NC-C instance)."""
    T, R = params["T"], params["replicas"]
    N = round(T ** (1 / 3))  # Q = 1
    g = make_game({**P5B_SET, "M": N}, params["instance_seed"])
    base = cor37_config(g.constants["L_f"], N, T)
    Ss = sorted({1, round(T ** (1 / 6)), base["S"], round(T**0.5)})
    per = np.array([_averages(FEDSGDA_PLUS, g, {**base, "S": S}, T, R, seed)[0] for S in Ss])
    conditions = [cor37_run("fedsgda.cor3.7", g.constants["L_f"], N, T, S=S, cfg=base)
                  for S in Ss]
    diffs = [{"S_small": Ss[j], "S_large": Ss[j + 1],
              **mean_ci((per[j] - per[j + 1]) / per[j + 1].mean()).as_dict()}
             for j in range(len(Ss) - 1)]
    stat = float(max(d["value"] for d in diffs))
    worst_lo = float(max(d["lo"] for d in diffs))
    means = per.mean(axis=1)
    return Measurement(stat, interval=(worst_lo, stat), series={"measured": (Ss, means.tolist())},
                       evidence={"S": Ss, "avg_grad_phi_sq": means.tolist(),
                                 "paired_relative_increase": diffs, "replicas": R, "T": T, "N": N,
                                 "max_lower_bound": worst_lo},
                       conditions=conditions,
                       run=RunConfig("fedsgda-plus", QUADRATIC, {**P5B_SET, "M": N, **base,
                                                                 "S": Ss[-1]}, T, R, seed))


@claim("fedsgda.p9", title="FedSGDA-M batch/communication trade-off via ν",
       prediction="at fixed (κ, T_0, N), ν = 0 (b = 1) and ν = 1 (b = κ) give averaged metrics "
       "within 10% at equal samples bT, with κ× fewer communication rounds for ν = 1",
       source="Remark 3.14 [L255]; equal averages at equal samples derived here",
       provenance="derived",
       derivation=("Remark 3.14 [L255]: ν = 1 (b = κ) lets the rounds fall by κ; at equal samples "
                   "bT the Corollary 3.13 bound is the same for ν = 0 and ν = 1, and we read that "
                   "the averaged metrics then agree within 10% (a reading of equal bounds as equal "
                   "errors). The runs use reading R1, L = L_f (erratum which-L), whose conditions "
                   "they meet"),
       theorems=("fedsgda.cor3.13", "fedsgda.cor3.13.corrected"),
       errata=("batch-kappa-nu", "which-L"), rule=Interval("predicted", 0.1),
       tolerance_why=("±0.1 on max |metric(ν = 1)/metric(ν = 0) − 1|: the prediction's 10%, a "
                      "slack chosen by us for reading equal Corollary 3.13 bounds as equal errors. "
                      "The metrics are exact (affine STORM moments); the quick profile's 2.6e-5 is "
                      "not 0 but far inside it."),
       params={"NT0s": (2**12, 2**18), "predicted": 0.0, "nu1_rounds": "schedule"},
       plants=(Plant({"nu1_rounds": "nu0"}, why="ν = 1 (b = κ) run for ν = 0's number of rounds "
                     "(κ times the samples bT and the x-clock, not equal ones): its average must "
                     "differ from ν = 0's by more than 10%"),),
       profiles={"full": {"NT0s": (2**12, 2**15, 2**18, 2**21)}}, perturb={"predicted": 0.5},
       figure=FigureSpec("FedSGDA-M, Cor 3.13 (R1): ν = 0 (b = 1) vs ν = 1 (b = κ)", "N·T_0",
                         f"{AVERAGE} (exact)", logx=True))
def p9(params: Params, seed: int) -> Measurement:
    """P9: max |metric(ν = 1)/metric(ν = 0) − 1| at equal samples bT and x-clock ĉηT (Remark
    3.14), exact affine STORM moments, κ varied along the Φ-preserving family of P8."""
    N, NT0s = 4, list(params["NT0s"])
    g0 = make_game(P8_SET, params["instance_seed"])
    rows, devs, series, conditions = [], [], {}, []
    for s in (1.0, 0.25):
        g = scaled(g0, s)
        k = g.constants
        vals: dict[int, list[float]] = {0: [], 1: []}
        for NT0 in NT0s:
            r: dict[str, Any] = {"kappa": k["kappa"], "NT0": NT0}
            for nu in (0, 1):
                cfg, T = cor313_config(k, N, NT0, nu)
                conditions.append(cor313_run("fedsgda.cor3.13.corrected", k, N, NT0, nu, where=(
                    f"s = {s:g} (κ = {k['kappa']:.4g}), N·T_0 = {NT0}, ν = {nu}"), cfg=cfg))
                if nu == 1 and params["nu1_rounds"] == "nu0":  # a plant: unequal samples
                    T = cor313_config(k, N, NT0, 0)[1]
                v = storm_exact_avg(*averaged_method(g, cfg), T)
                vals[nu].append(v)
                r[f"nu{nu}"] = {"T": T, "b": cfg["b"], "samples_bT": cfg["b"] * T,
                                "communications": T / cfg["Q"],
                                "x_clock": cfg["c_hat"] * cfg["eta"] * T, "avg_grad_phi_sq": v}
            r["relative_difference"] = abs(r["nu1"]["avg_grad_phi_sq"]
                                           / r["nu0"]["avg_grad_phi_sq"] - 1)
            devs.append(r["relative_difference"])
            rows.append(r)
        for nu in (0, 1):
            series[f"κ = {k['kappa']:.3g}, ν = {nu}"] = (NT0s, vals[nu])
    stat = float(max(devs))
    cfg, T = cor313_config(g0.constants, N, NT0s[0], 1)
    return Measurement(stat, series=series,
                       evidence={"runs": rows, "N": N, "max_relative_difference": stat},
                       conditions=conditions,
                       run=RunConfig("fedsgda-m", QUADRATIC, {**P8_SET, **cfg}, T, 8, seed))
