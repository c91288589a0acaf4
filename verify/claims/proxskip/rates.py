"""ProxSkip-GDA-FL (claims P1–P3, P6–P10, P18): the Cor. 3.6 bound along the exact curve,
the asymptotic rate, Monte Carlo against the exact recursion, communications to accuracy ε
against κ (G-norm: κ, G-sym: √κ), the acceleration over p = 1, heterogeneity only through V_0,
the control variates, and the Binomial number of communications.

Seeds: every instance is drawn from the instance seed (``params["instance_seed"]``; P6–P8 sweep
the instance seeds instance_seed, instance_seed + 1, …); the coins of the runs from the noise
seed."""

from __future__ import annotations

import math

import numpy as np

from fedbounds.problems import proxskip as families
from fedbounds.problems.proxskip import AffineVIP
from fedbounds.verify import claim as rules
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms import proxskip as algorithms
from fedbounds.verify.claim import Check, FigureSpec, Measurement, Params, RunConfig, claim
from fedbounds.verify.conditions import RunConditions
from fedbounds.verify.exact import proxskip as exact
from fedbounds.verify.exact.proxskip import bound_ratio, tau_from, theorem_curve
from fedbounds.verify.executor import sq_norm
from fedbounds.verify.fitting import first_below, loglog_slope, ols, replica_slope
from fedbounds.verify.perturbation import Plant
from fedbounds.verify.publication import EPS, Published

from .common import (
    broken_method,
    cor36_run,
    gda_grid,
    gda_schedule,
    safe,
    thin,
    thm42_run,
    zcrit,
)

GNORM_RUN = {"n": 3, "d": 4, "s": 3.0}
COR36 = ("proxskip.cor3.6", "proxskip.cor3.6.corrected")


@claim("proxskip.p1", title="Deterministic bound E[V_t] ≤ (1 − min{γμ, p²})^t V_0 holds along "
       "the exact curve", prediction="Cor. 3.6 [L182] and, for γ ≤ 1/ℓ, Thm 3.1 with A = ℓ/2 "
       "(erratum cor3.6-step): for all t, γ ∈ {1/(2ℓ), 1/ℓ}, p ∈ {0.3, 1, 3}·√(γμ). An erratum "
       "reading: the statistic (the largest ratio) also rests on the γ = 1/ℓ runs, which test "
       "the corrected step bound",
       source="Corollary 3.6 [L182]; Theorem 3.1 [L142]", theorems=COR36, errata=("cor3.6-step",),
       provenance="erratum",
       rule=rules.UpperBound(1.0, rtol=1e-9),
       tolerance_why=("rtol 1e-9, round-off: where Cor. 3.6 is tight the ratio E[V_t]/bound is 1 "
                      "in exact arithmetic; the float64 second-moment recursion and (1 − τ)^t V_0 "
                      "carry relative errors of order 1e-13 (|ratio − 1| = 0 at the quick "
                      "profile), far below 1e-9"),
       params={"tau_scale": 1.0, "rel_floor": 1e-12, "instances": "quick"},
       profiles={"full": {"instances": "full"}}, perturb={"tau_scale": 5.0},
       plants=(Plant({"tau_scale": 1.2}, why="plants a rate 1.2·min{γμ, p²} in the encoded "
                     "bound: the exact curve meets Cor. 3.6's bound somewhere, so a rate 20 % "
                     "faster than the theorem's must be crossed by the exact E[V_t]"),),
       figure=FigureSpec("P1: exact E[V_t]/V_0 vs the Cor. 3.6 bound", "iteration t",
                         "E[V_t]/V_0"))
def p1(params: Params, seed: int) -> Measurement:
    """P1: max_{t ≥ 1} exact E[V_t] / Cor. 3.6's bound [L182] over instances and (γ, p)."""
    worst, rows, series, runs = 0.0, [], {}, []
    for name, prob in families.p1_instances(params["instances"], params["instance_seed"]):
        for label, gamma, p, thm in gda_grid(prob):
            ratio, t, EV, bound, info = bound_ratio(prob, gamma, p, thm, params["rel_floor"],
                                                    params["tau_scale"])
            runs.append(cor36_run(thm, prob, gamma, p, f"{name}: {label}"))
            worst = max(worst, ratio)
            rows.append({"instance": name, "config": label, "theorem": thm, "gamma": gamma,
                         "p": p, "max_ratio": ratio, **info})
            if len(series) < 4 and "1/(2ell)" in label:
                series[f"{name}: {label}"] = thin(t, EV)
                series[f"bound {name}: {label}"] = thin(t, bound)
    return Measurement(worst, series=series, evidence={"configs": rows}, conditions=runs,
                       run=RunConfig("proxskip-gda-fl", "proxskip-g-norm", GNORM_RUN, seed=seed))


@claim("proxskip.p2", title="Asymptotic rate r ≤ 1 − τ (spectral radius of the second-moment "
       "map), tightness (1 − r)/τ reported", prediction="r(pT₁⊗T₁ + (1−p)T₀⊗T₀) ≤ 1 − "
       "min{γμ, p²}, i.e. (1 − r)/τ ≥ 1", source="Theorem 3.1 [L142]", theorems=COR36,
       provenance="derived", exact_derivation=True, errata=("cor3.6-step",),
       derivation=("Theorem 3.1 [L142] gives E[V_t] ≤ (1 − τ)^t V_0, τ = min{γμ, p²}, for every "
                   "start. E[V_t] is a linear functional of the second moment, which evolves by the"
                   " linear map Σ ↦ pT₁ΣT₁ᵀ + (1 − p)T₀ΣT₀ᵀ; if its spectral radius r exceeded 1 − "
                   "τ, a start along the leading eigen-direction would violate the theorem. Hence r"
                   " ≤ 1 − τ (exact). The grid's γ = 1/(2ℓ) runs are Corollary 3.6's; its γ = 1/ℓ "
                   "runs rest on Theorem 3.1 with A = ℓ/2 (g = F satisfies Assumption 2.2 with "
                   "it), the corrected Corollary 3.6 of erratum cor3.6-step"),
       rule=rules.LowerBound(1.0, rtol=1e-9),
       tolerance_why=("rtol 1e-9, round-off: (1 − r)/τ is 1 where the theorem is tight; r from a "
                      "dense eigenvalue solve (absolute error ~1e2 ε) divided by τ leaves a "
                      "relative error of order 1e-13 (1 − 4e-14 at the quick profile), far below "
                      "1e-9"),
       params={"tau_scale": 1.0, "instances": "quick"},
       profiles={"full": {"instances": "full-small"}}, perturb={"tau_scale": 5.0},
       plants=(Plant({"tau_scale": 1.2}, why="plants the rate 1.2·min{γμ, p²} in the encoded "
                     "theorem: the exact spectral radius reaches 1 − τ on some (γ, p) of the "
                     "grid, so it must exceed a 20 % faster rate's 1 − 1.2τ"),),
       figure=FigureSpec("P2: asymptotic rate r vs the bound 1 − τ", "1 − τ (Thm 3.1)",
                         "spectral radius r", logy=False, kind="scatter"))
def p2(params: Params, seed: int) -> Measurement:
    """P2: min (1 − r)/τ, r the radius of pT_1⊗T_1 + (1 − p)T_0⊗T_0 (Thm 3.1 [L142])."""
    rows, runs = [], []
    for name, prob in families.p1_instances(params["instances"], params["instance_seed"]):
        c = prob.constants
        for label, gamma, p, thm in gda_grid(prob):
            runs.append(cor36_run(thm, prob, gamma, p, f"{name}: {label}"))
            tau = params["tau_scale"] * tau_from(thm, {"gamma": gamma, "p": p, "mu": c["mu"],
                                                       "ell": c["ell"]})
            r = exact.spectral_radius(exact.proxskip_maps(prob, gamma, p))
            rows.append({"instance": name, "config": label, "r": r, "one_minus_tau": 1 - tau,
                         "tightness": (1 - r) / tau})
    bs, ratios = [r["one_minus_tau"] for r in rows], [r["tightness"] for r in rows]
    line = [min(bs), max(bs)]
    return Measurement(float(min(ratios)), series={"configs": (bs, [r["r"] for r in rows]),
                                                  "r = 1 − τ": (line, line)},
        evidence={"configs": rows, "tightness_max": float(max(ratios))}, conditions=runs,
        run=RunConfig("proxskip-gda-fl", "proxskip-g-norm", GNORM_RUN, seed=seed))


@claim("proxskip.p3", seconds=1.4,
       title="Monte Carlo of Alg. 2 (≥ 1000 replicas) matches the exact "
       "second-moment recursion and stays below the Cor. 3.6 bound",
       prediction="replica mean of V_t within simultaneous 99.9 % intervals of E[V_t]; lower "
       "limit below the bound", source="Corollary 3.6 [L182]; Algorithm 2 [L212–L226]",
       provenance="paper",
       theorems=("proxskip.cor3.6",), rule=rules.UpperBound("reference", rtol=0.0),
       params={"predicted_scale": 1.0, "level": 0.999, "replicas": 2000, "third": False,
               "coin_scale": 1.0},
       profiles={"full": {"replicas": 10000, "third": True}}, perturb={"predicted_scale": 1.2},
       plants=(Plant({"coin_scale": 1.3}, why="simulates Alg. 2 with a coin of probability "
                     "1.3p while the exact recursion analyses p: the Monte Carlo means must "
                     "leave the simultaneous intervals of the analysed E[V_t]"),),
       figure=FigureSpec("P3: Monte Carlo mean of V_t (R replicas) vs the exact E[V_t]",
                         "iteration t", "V_t"))
def p3(params: Params, seed: int) -> Measurement:
    """P3: max |z| of the replica mean of V_t (Alg. 2) vs the exact E[V_t] (Cor. 3.6
    [L182])."""
    R = params["replicas"]
    rows, zs, excess, series, bands, runs = [], [], [], {}, {}, []
    instance_seed = params["instance_seed"]
    cases = [("g_norm n=3 d=4 s=3", families.g_norm(n=3, d=4, s=3.0, seed=instance_seed)),
             ("g_sym n=3 d=4 L=10", families.g_sym(n=3, d=4, L=10.0, seed=instance_seed))]
    if params["third"]:
        cases.append(("g_norm n=5 d=4 s=2", families.g_norm(n=5, d=4, s=2.0,
                                                          seed=instance_seed)))
    z = zcrit(params["level"], 8 * len(cases))
    for name, prob in cases:
        c = prob.constants
        gamma = safe(algorithms.gda_steps(prob)[0])
        p = algorithms.given_step_p(prob, gamma)
        runs.append(cor36_run("proxskip.cor3.6", prob, gamma, p, name))
        vals = {"gamma": gamma, "p": p, "mu": c["mu"], "ell": c["ell"]}
        T = int(math.ceil(3.0 / tau_from("proxskip.cor3.6", vals)))
        EV = exact.expected_V(exact.proxskip_maps(prob, gamma, p), exact.initial_error(prob), T)
        p_run = min(1.0, params["coin_scale"] * p)  # p itself unless a plant changes the coin
        tr = simulate(algorithms.proxskip_method(prob, gamma, p_run), T, replicas=R, seed=seed)
        if tr.diverged:
            return Measurement(None, diverged=f"{name}: {tr.reason} at round {tr.diverged_at}")
        V = tr.metrics["V"]
        bound, _, ok, viol = theorem_curve("proxskip.cor3.6", {**vals, "V_0": float(EV[0])},
                                           np.arange(T + 1))
        for t in np.unique(np.geomspace(1, T, 8).astype(int)):
            m, se = float(V[t].mean()), float(V[t].std(ddof=1) / math.sqrt(R))
            pred = params["predicted_scale"] * float(EV[t])
            zt = (m - pred) / se if se > 0 else (0.0 if m == pred else math.inf)
            zs.append(abs(zt))
            excess.append((m - z * se) / float(bound[t]))
            rows.append({"instance": name, "t": int(t), "mc_mean": m, "mc_se": se,
                         "exact": float(EV[t]), "z": zt, "bound": float(bound[t])})
        series[f"{name}: MC mean V_t"] = thin(tr.iterations, V.mean(axis=1))
        # figure only: the replica mean's simultaneous interval (z standard errors) at every t
        half = z * V.std(axis=1, ddof=1) / math.sqrt(R)
        ts, lower = thin(tr.iterations, V.mean(axis=1) - half)
        bands[f"{name}: MC mean V_t"] = (ts, lower, thin(tr.iterations, V.mean(axis=1) + half)[1])
        series[f"{name}: exact E[V_t]"] = thin(np.arange(T + 1), EV)
        series[f"{name}: Cor. 3.6 bound"] = thin(np.arange(T + 1), bound)
        rows.append({"instance": name, "gamma": gamma, "p": p, "iterations": T,
                     "conditions_hold": ok, "violated": viol})
    below = float(max(excess))
    return Measurement(float(max(zs)), reference=z, series=series, bands=bands, evidence={
        "checkpoints": rows, "z_critical": z, "max_lower_confidence_over_bound": below},
        checks=(Check("replica-mean lower limit below the Cor. 3.6 bound", below <= 1.0),),
        conditions=runs,
        run=RunConfig("proxskip-gda-fl", "proxskip-g-norm", GNORM_RUN, rounds=T, seeds=R,
                      seed=seed))


@claim("proxskip.p9", title="Heterogeneity changes ProxSkip only through V_0; Local GDA's "
       "plateau grows with ζ²", prediction="same tail rate for every ζ²; t_ε(ζ) ≤ "
       "ln(V_0(ζ)/ε)/τ + 1; Local GDA floor increasing in ζ²",
       source="Section 4, comparison with literature [L242]",
       provenance="paper",
       theorems=("proxskip.thm4.2",), rule=rules.Interval("predicted_rate_change", "rate_tol"),
       tolerance_why=("±0.02 on the relative change of the tail log-rate, a modelling slack "
                      "chosen by us: for ζ² > 0 the exact E[V_t] decays at r asymptotically, and "
                      "the statistic is an OLS fit over t ∈ [T/2, T] of the exact curve (no "
                      "sampling), biased by subdominant modes still in the window (−0.0036 at the "
                      "quick profile); 0.02 is not derived"),
       params={"rate_tol": 0.02, "predicted_rate_change": 0.0,
               "zetas": (0.0, 1.0, 1e2, 1e4, 1e6), "hetero_mu": 1.0},
       profiles={"full": {"zetas": (0.0, 1.0, 1e2, 1e4, 1e6, 1e8, 1e10)}},
       perturb={"predicted_rate_change": 0.5},
       plants=(Plant({"hetero_mu": 0.5}, why="draws the heterogeneous instances (ζ² > 0) with "
                     "μ = 0.5 instead of 1, so heterogeneity also changes the operator, not only"
                     " V_0: their E[V_t] must decay at another rate than the ζ² = 0 map's"),),
       figure=FigureSpec("P9: heterogeneity enters ProxSkip only through V_0", "communications",
                         "E[V_t] (ProxSkip) / Σ‖x − z*‖² (Local GDA)"),
       published=(Published(
           ("local_gda_floor",), floor=2**10 * EPS**2 * 23,
           why="zero in exact arithmetic at ζ² = 0 (without heterogeneity Local GDA's fixed "
               "point is z*); it is solve(I − Ā, c̄) with Ā a mean of H = 4 products of I − γJ_i "
               "and σ_min(I − Ā) ≈ 0.37, so ‖z − z*‖ ≲ 2⁵ ε‖z*‖ and n‖z − z*‖² ≲ 2¹⁰ ε² n‖z*‖², "
               "n‖z*‖² = V_0(0) ≈ 23"),))
def p9(params: Params, seed: int) -> Measurement:
    """P9: max_ζ (tail log-rate of E[V_t] − log r)/|log r|, r ζ-free (Thm 4.2, Section 4
    [L242])."""
    zetas = params["zetas"]
    base = families.g_norm(n=3, d=4, s=3.0, zeta_sq=0.0, seed=params["instance_seed"])
    gamma, p = gda_schedule(base)
    tau = tau_from("proxskip.cor3.6", {"gamma": gamma, "p": p, "mu": base.constants["mu"],
                                       "ell": base.constants["ell"]})
    H = max(1, round(1 / p))
    maps = exact.proxskip_maps(base, gamma, p)  # independent of b, hence of ζ [derived]
    log_r = math.log(exact.spectral_radius(maps))
    hetero = base if params["hetero_mu"] == 1.0 else families.g_norm(  # ≠ 1.0: a plant
        n=3, d=4, mu=params["hetero_mu"], s=3.0, zeta_sq=0.0, seed=params["instance_seed"])
    probs = [families.with_heterogeneity(hetero, z, params["instance_seed"]) if z > 0 else base
             for z in zetas]
    maps_of = [maps if pr is base or hetero is base else exact.proxskip_maps(pr, gamma, p)
               for pr in probs]
    e0s = [exact.initial_error(pr) for pr in probs]  # z* ≠ 0, so x_0 = 0 ≠ x*
    V0s = [m.V(e) for m, e in zip(maps_of, e0s, strict=True)]
    eps_abs = 1e-10 * V0s[0]
    runs = [thm42_run(prob, gamma, f"ζ² = {zeta:g}", eps_abs)  # Local GDA: a baseline, no theorem
            for zeta, prob in zip(zetas, probs, strict=True)]
    steps = max(int(math.ceil(math.log(max(V0s) / eps_abs) / tau)) + 1,
                int(math.ceil(math.log(1e40) / tau)))
    rows, curves = [], {}
    for zeta, prob, e0, V0, m in zip(zetas, probs, e0s, V0s, maps_of, strict=True):
        EV = exact.expected_V(m, e0, steps)
        rate = ols(np.arange(steps // 2, steps + 1), np.log(EV[steps // 2:])).slope
        rows.append({"zeta_sq": zeta, "V_0": V0, "t_eps": first_below(EV, eps_abs),
                     "tail_log_rate": rate, "slowdown": (rate - log_r) / abs(log_r),
                     "local_gda_floor": exact.local_gda_floor(prob, gamma, H)})
        cut = first_below(EV, 1e-30 * V0) or EV.size
        curves[f"ProxSkip ζ²={zeta:g}"] = thin(p * np.arange(cut), EV[:cut])
    t0 = rows[0]["t_eps"]
    bound_ok = all(r["t_eps"] is not None and r["t_eps"] <= math.log(r["V_0"] / eps_abs) / tau + 1
                   for r in rows)
    # our difference form t_ε(ζ) − t_ε(0) ≤ ln(V_0(ζ)/V_0(0))/τ is not implied: evidence only
    diff_form = all(r["t_eps"] is not None and t0 is not None and
                    r["t_eps"] - t0 <= math.log(r["V_0"] / V0s[0]) / tau + 1 for r in rows)
    floors = [r["local_gda_floor"] for r in rows]
    floor_fit = loglog_slope([z for z in zetas if z > 0], [f for z, f in zip(
        zetas, floors, strict=True) if z > 0])
    floor_grows = floor_fit.lo > 0.5 and floors[0] <= 1e-20 * max(1.0, floors[-1])
    for z, prob in ((zetas[1], probs[1]), (zetas[-1], probs[-1])):
        tr = simulate(algorithms.local_method(prob, gamma, H), int(math.ceil(p * steps / 3)))
        curves[f"Local GDA ζ²={z:g} (Σ‖x_i − z*‖²)"] = thin(tr.communications[:, 0],
                                                            tr.mean("dist_sq"))
    return Measurement(float(max(r["slowdown"] for r in rows)), series=curves, evidence={
        "log_spectral_radius": log_r, "difference_form_holds": diff_form,
        "local_gda_floor_slope_in_zeta_sq": [floor_fit.slope, floor_fit.lo, floor_fit.hi],
        "note": "with ζ² = 0 (and h_0 = h*) the slowest mode is not excited, so that curve "
                "decays faster than r; every ζ² > 0 decays at exactly r",
        "gamma": gamma, "p": p, "H": H, "tau": tau, "rows": rows},
        checks=(Check("t_ε(ζ) ≤ ln(V_0(ζ)/ε)/τ + 1 for every ζ²", bound_ok),
                Check("Local GDA floor grows with ζ²", floor_grows)), conditions=runs,
        run=RunConfig("proxskip-gda-fl", "proxskip-g-norm", {**GNORM_RUN, "zeta_sq": 0.0},
                      rounds=steps, seed=seed, sweeps={"zeta_sq": zetas}))


def comm_to_eps(prob: AffineVIP, eps: float, p: float | None = None, extra: int = 1
                ) -> tuple[int | None, np.ndarray, dict[str, float]]:
    """Iterations t_ε until the exact E[V_t] ≤ ε·V_0 from x_0 = h_0 = 0 with Cor. 3.6's γ and p
    (or the given p, then with twice the cap), capped at ln(1/ε)/τ + ``extra`` (τ of the bound):
    (t_ε or None, the curve E[V_t], schedule and cap)."""
    c = prob.constants
    gamma, p_ = gda_schedule(prob)
    tau = tau_from("proxskip.cor3.6", {"gamma": gamma, "p": p_, "mu": c["mu"], "ell": c["ell"]})
    cap = int(math.ceil(math.log(1 / eps) / tau)) + extra
    maps = exact.proxskip_maps(prob, gamma, p_ if p is None else p)
    t_eps, EV = exact.hitting_time(maps, exact.initial_error(prob), eps,
                                   cap if p is None else 2 * cap)
    return t_eps, EV, {"gamma": gamma, "p": p_, "cap": cap}


def comm_sweep(family: str, kappas: list[float], seeds: list[int], eps: float,
               runs: list[RunConditions] | None = None) -> list[dict]:
    """Expected communications p·t_ε per (instance seed, κ), with the Cor. 3.6 bound
    p·(ln(1/ε)/τ + 1); each run's Corollary 3.6 inputs appended to ``runs`` when given."""
    rows = []
    for s in seeds:
        for kappa in kappas:
            prob = families.kappa_family(family, kappa, s)
            t_eps, _, sched = comm_to_eps(prob, eps)
            if runs is not None:
                runs.append(cor36_run("proxskip.cor3.6", prob, sched["gamma"], sched["p"],
                                      f"instance seed {s}, κ = {kappa:g}"))
            n_comm = sched["p"] * t_eps if t_eps is not None else math.inf
            rows.append({"kappa": kappa, "instance_seed": s,
                         "ell_over_mu": prob.constants["ell"] /
                         prob.constants["mu"], "p": sched["p"], "t_eps": t_eps,
                         "N_comm": n_comm, "N_comm_bound": sched["p"] * sched["cap"]})
    return rows


def sweep_slope(rows: list[dict], key: str) -> object:
    """Log-log slope of ``key`` against κ over the rows."""
    return loglog_slope(np.array([r["kappa"] for r in rows]), np.array([r[key] for r in rows]))


def by_seed(rows: list[dict], seeds: list[int], key: str) -> dict[str, tuple[list, list]]:
    """Figure series ``key`` vs κ, one per instance seed."""
    return {f"instance seed {s}": ([float(r["kappa"]) for r in rows if r["instance_seed"] == s],
                                   [float(r[key]) for r in rows if r["instance_seed"] == s])
            for s in seeds}


@claim("proxskip.p6", seconds=1.3, title="Communications grow like κ (not √κ) on min-max G-norm",
       prediction="N_comm = p·t_ε ≤ √(2ℓ/μ) ln(1/ε) + p; ℓ/μ = κ² gives slope 1 in κ (erratum "
       "ell-kappa-L)",
       source="Corollary 3.6 and the remark after it [L182–L184]; Section 4 [L240]",
       provenance="derived",
       derivation=("Corollary 3.6 [L182]: with γ = 1/(2ℓ), p = √(γμ), E[V_t] ≤ (1 − p²)^t V_0, so "
                   "the expected communications p·t_ε ≤ √(2ℓ/μ) ln(1/ε) + p. On G-norm ℓ = L²/μ "
                   "(proxskip.p14), so √(ℓ/μ) = κ: the bound grows like κ, not √κ as the remark "
                   "after it says (erratum ell-kappa-L). Reading the bound as the rate (it is tight"
                   " there, proxskip.p21) gives slope 1"),
       theorems=("proxskip.cor3.6", "proxskip.thm4.2"),
       errata=("ell-kappa-L",), rule=rules.Interval("predicted_slope", "slope_tol"),
       tolerance_why=("±0.15 on a slope, a modelling slack chosen by us: Cor. 3.6 gives an upper "
                      "bound read as a rate. The slope fits exact p·t_ε (2 instance seeds, κ from "
                      "2); its 95 % OLS interval, [1.006, 1.040] at the quick profile, is lack of "
                      "fit of exact points (the curve bends at small κ; t_ε is an integer), not "
                      "sampling, and it excludes 1: only the tolerance confirms"),
       params={"predicted_slope": 1.0, "slope_tol": 0.15, "eps": 1e-4, "family": "g-norm",
               "kappas": (2.0, 4.0, 8.0, 16.0, 32.0), "seeds": 2},
       profiles={"full": {"kappas": (2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0), "seeds": 3}},
       perturb={"predicted_slope": 0.5},
       plants=(Plant({"family": "g-sym-shared"}, why="runs the sweep on G-sym (minimisation, "
                     "ℓ = L) instead of min-max G-norm (ℓ = κ²μ): communications then grow like "
                     "√κ, and the fitted slope must leave 1 ± 0.15"),),
       figure=FigureSpec("P6: communications vs κ on G-norm (ℓ/μ = κ²)", "κ = L/μ",
                         "expected communications p·t_ε", logx=True))
def p6(params: Params, seed: int) -> Measurement:
    """P6 (P8 on G-sym): log-log slope in κ of the exact p·t_ε (Cor. 3.6 [L182–L184])."""
    first = params["instance_seed"]
    seeds = [first + k for k in range(params["seeds"])]  # instance seeds
    family = params["family"]
    runs: list[RunConditions] = []
    rows = comm_sweep(family, list(params["kappas"]), seeds, params["eps"], runs)
    run = RunConfig("proxskip-gda-fl", "proxskip-" + family.removesuffix("-shared"), seed=seed,
                    sweeps={"kappa": params["kappas"]})
    if not all(math.isfinite(r["N_comm"]) for r in rows):
        return Measurement(None, evidence={"rows": rows}, run=run, inconclusive="E[V_t] did "
                           "not reach eps·V_0 within the theoretical horizon")
    fit = sweep_slope(rows, "N_comm")
    series = by_seed(rows, seeds, "N_comm")
    series["bound √(2ℓ/μ) ln(1/ε)"] = by_seed(rows, [first], "N_comm_bound")[
        f"instance seed {first}"]
    evidence = {"slope_in_ell_over_mu": fit.slope / 2 if family == "g-norm" else fit.slope,
                "rows": rows, "method": "exact second-moment recursion; N_comm = p·t_ε"}
    if family == "g-sym-shared":
        evidence["slope_random_eigenbases"] = sweep_slope(comm_sweep(
            "g-sym", list(params["kappas"]), [first], params["eps"]), "N_comm").slope
        evidence["note"] = ("J_i = J_1 for every client, so μ_mean = μ and the bound's worst "
                            "case can be attained; with random eigenbases (plain g_sym) the "
                            "mean operator is better conditioned and the slope is below 0.5")
    return Measurement(fit.slope, interval=(fit.lo, fit.hi), series=series, evidence=evidence,
                       checks=(Check("p·t_ε below the Cor. 3.6 bound for every κ", all(
                           r["N_comm"] <= r["N_comm_bound"] for r in rows)),), run=run,
                       conditions=runs)


p8 = p6.variant(
    "proxskip.p8", title="Minimisation (G-sym, ℓ = L): communications grow like √κ",
    prediction="p = 1/√(2κ); N_comm slope 0.5 in κ",
    source="remark after Corollary 3.6 [L184]",
    provenance="paper", derivation="",
    theorems=("proxskip.cor3.6",),
    params={"predicted_slope": 0.5, "slope_tol": 0.1, "family": "g-sym-shared",
            "kappas": (8.0, 16.0, 32.0, 64.0, 128.0)},
    profiles={"full": {"kappas": (8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0)}},
    perturb={"predicted_slope": 1.0},
    tolerance_why=("±0.1 on a slope, a modelling slack chosen by us (the remark's √κ read as a "
                   "rate). The slope fits exact p·t_ε over 2 instance seeds; at the quick profile "
                   "it is 0.539 with 95 % OLS interval [0.517, 0.562], which excludes 0.5: only "
                   "the tolerance confirms"),
    plants=(Plant({"family": "g-norm", "kappas": (4.0, 8.0, 16.0, 32.0)},
                  why="runs the sweep on min-max G-norm (ℓ = κ²μ) instead of G-sym with "
                      "ℓ = L: communications then grow like κ, and the fitted slope must leave "
                      "0.5 ± 0.1"),),
    figure=FigureSpec("P8: communications vs κ on G-sym with a shared Jacobian (ℓ = L, "
                      "μ_mean = μ)", "κ = L/μ", "expected communications p·t_ε", logx=True))


@claim("proxskip.p7", seconds=2.5,
       title="Acceleration over p = 1: N_comm(p=1)/N_comm(p=√(γμ)) ∝ κ on "
       "G-norm; p = 1 GDA factor exactly 1 − 1.5γμ", prediction="log-log slope 1 in κ; "
       "(I − γJ_i)ᵀ(I − γJ_i) = (1 − 1.5γμ)I at γ = 1/(2ℓ) [derived]",
       source="Corollary 3.6 and the remark after it [L182–L184]", theorems=("proxskip.cor3.6",),
       provenance="derived",
       derivation=("with p = 1 (GDA) the communications equal the iterations, ∝ ℓ/μ = κ² on G-norm,"
                   " while p = √(γμ) needs ∝ κ (proxskip.p6): the ratio grows like κ. On G-norm "
                   "each J_i is normal with (I − γJ_i)ᵀ(I − γJ_i) = (1 − 1.5γμ)I at γ = 1/(2ℓ) "
                   "(exact algebra); the slope 1 is a reading of the bounds as rates"),
       errata=("ell-kappa-L",),
       rule=rules.Interval("predicted_slope", "slope_tol"),
       tolerance_why=("±0.15 on a slope, a modelling slack chosen by us: the slope 1 reads two "
                      "bounds as rates. The fit is over exact communication ratios (2 instance "
                      "seeds); at the quick profile it is 1.0004 with 95 % OLS interval [0.9991, "
                      "1.0016], inside the tolerance without it"),
       params={"predicted_slope": 1.0, "slope_tol": 0.15, "eps": 1e-4, "factor_coef": 1.5,
               "factor_tol": 1e-10, "kappas": (2.0, 4.0, 8.0, 16.0, 32.0), "seeds": 2,
               "family": "g-norm-shared"},
       profiles={"full": {"kappas": (2.0, 4.0, 8.0, 16.0, 32.0, 64.0), "seeds": 3}},
       perturb={"predicted_slope": 0.0},
       plants=(Plant({"family": "g-sym-shared"}, why="runs the sweep on G-sym (minimisation, "
                     "ℓ = L), where p = 1 needs ∝ κ communications and p = √(γμ) ∝ √κ: the "
                     "ratio then grows like √κ, and its slope must leave 1 ± 0.15"),),
       figure=FigureSpec("P7: N_comm(p = 1) / N_comm(p = √(γμ)) vs κ (G-norm, shared "
                         "Jacobian)", "κ = L/μ", "communication ratio", logx=True))
def p7(params: Params, seed: int) -> Measurement:
    """P7: log-log slope in κ of N_comm(p = 1)/N_comm(p = √(γμ)), exact (Cor. 3.6 [L182–L184])."""
    seeds = [params["instance_seed"] + k for k in range(params["seeds"])]  # instance seeds
    run = RunConfig("proxskip-gda-fl", "proxskip-g-norm", seed=seed,
                    sweeps={"kappa": params["kappas"], "p": [1.0]})
    rows, factor_dev, runs = [], 0.0, []
    for s in seeds:
        for kappa in params["kappas"]:
            prob = families.kappa_family(params["family"], kappa, s)
            t_skip, _, sched = comm_to_eps(prob, params["eps"], extra=10)
            t_one, EV1, _ = comm_to_eps(prob, params["eps"], 1.0, extra=10)
            if t_skip is None or t_one is None:
                return Measurement(None, run=run, inconclusive=f"ε not reached at κ = {kappa}")
            gamma, p = sched["gamma"], sched["p"]
            runs += [cor36_run("proxskip.cor3.6", prob, gamma, p_, f"instance seed {s}, "
                               f"κ = {kappa:g}, {label}")
                     for p_, label in ((p, "p = √(γμ)"), (1.0, "p = 1"))]
            fac = 1 - params["factor_coef"] * gamma * prob.constants["mu"]
            step = np.eye(prob.d) - gamma * prob.J
            gram_dev = float(np.max(np.abs(np.einsum("nki,nkj->nij", step, step)
                                           - fac * np.eye(prob.d))))
            tail = EV1[1:][EV1[1:] > 1e-200]
            obs = float(np.exp(np.mean(np.diff(np.log(tail[len(tail) // 2:])))))
            factor_dev = max(factor_dev, gram_dev, abs(obs - fac) / fac)
            rows.append({"kappa": kappa, "instance_seed": s, "gamma": gamma, "p": p,
                         "N_comm_p1": t_one, "N_comm_skip": p * t_skip,
                         "ratio": t_one / (p * t_skip), "gram_minus_factor": gram_dev,
                         "p1_tail_factor": obs, "predicted_factor": fac})
    fit = sweep_slope(rows, "ratio")
    return Measurement(fit.slope, interval=(fit.lo, fit.hi), series=by_seed(rows, seeds, "ratio"),
                       evidence={"max_factor_deviation": factor_dev, "rows": rows},
                       checks=(Check("p = 1 factor 1 − factor_coef·γμ (Gram matrix and curve)",
                                     factor_dev <= params["factor_tol"]),), run=run,
                       conditions=runs)


@claim("proxskip.p10", title="Control variates learn f_i(z*); Σ_i h_i = 0 after the first "
       "communication; consensus right after each communication", prediction="invariants to "
       "machine precision; ‖h_t − F(x*)‖ → 0 linearly",
       source="Section 4 [L210]; Algorithm 2 [L212–L226]",
       provenance="paper",
       theorems=("proxskip.thm4.2",), rule=rules.UpperBound("tolerance", rtol=0.0),
       params={"tolerance": 1e-12, "replicas": 64, "h0_scale": 0.0, "server": "alg2"},
       profiles={"full": {"replicas": 512}}, perturb={"tolerance": 1e-16},
       plants=(Plant({"h0_scale": 1.0, "server": "plain-average"}, why="breaks the server step:"
                     " it averages x̂_i without subtracting (γ/p)h_i, from a random h_0 with "
                     "Σ_i h_0,i ≠ 0; Alg. 2's step zeroes Σ_i h_i at the first communication "
                     "from any h_0, the broken one keeps it, so the run must see Σ_i h_i ≠ 0"),),
       figure=FigureSpec("P10: control-variate error Σ‖h_i − f_i(z*)‖² (replica mean)",
                         "iteration t", "Σ‖h_i − f_i(z*)‖²"),
       published=(Published(
           ("max_sum_h_over_norm_hstar", "statistic", "figure"), floor=2**10 * EPS,
           why="zero in exact arithmetic after the first communication (each adds "
               "(p/γ)(x̄ − x̂_i), which sums to 0 over the clients; consensus is exact); summing "
               "n = 5 control variates of norm ≲ 5‖h*‖, with their rounding accumulated as a "
               "random walk over T ≈ 500 iterations, leaves ≲ √T·n·5 ε ≈ 2⁹ ε of ‖h*‖. The "
               "h-error curve stays above the floor (its own rounding level is ~ε²‖h*‖²)"),))
def p10(params: Params, seed: int) -> Measurement:
    """P10: largest violation of Σ_i h_i = 0 and of consensus after communications (Section 4
    [L210], Alg. 2 [L212–L226])."""
    R = params["replicas"]
    prob = families.g_norm(n=5, d=4, s=3.0, zeta_sq=10.0, seed=params["instance_seed"])
    gamma, p = gda_schedule(prob)
    T = int(math.ceil(25 / (gamma * prob.constants["mu"])))
    hstar = prob.f(np.broadcast_to(prob.z_star, (prob.n, prob.d)))
    scale = float(np.sqrt(np.sum(hstar**2)))
    start = None  # h_0 = 0 (Alg. 2), unless a plant draws h_0 with Σ_i h_0,i ≠ 0
    if params["h0_scale"]:
        h0 = params["h0_scale"] * scale * np.random.default_rng(np.random.SeedSequence(
            [seed, 10])).standard_normal((R, prob.n, prob.d))
        start = algorithms.ProxSkipState(algorithms.stack(prob, R), h0)
    method = (algorithms.proxskip_method(prob, gamma, p) if params["server"] == "alg2" else
              broken_method(prob, gamma, p, params["server"]))  # broken: a plant
    tr = simulate(method, T, replicas=R, seed=seed, state=start, observe={
        "sum_h": lambda s: np.sqrt(sq_norm(s.h.sum(axis=1, keepdims=True))),
        "spread": lambda s: np.abs(s.x - s.x.mean(axis=1, keepdims=True)).max(axis=(1, 2)),
        "h_err": lambda s: sq_norm(s.h - hstar)})
    comm = tr.communications
    just = np.zeros_like(comm >= 1)
    just[1:] = comm[1:] > comm[:-1]
    sum_viol = float(tr.metrics["sum_h"][comm >= 1].max() / scale) if (comm >= 1).any() else 0.0
    spread_viol = float(tr.metrics["spread"][just].max()) if just.any() else 0.0
    herr = tr.metrics["h_err"]
    lo = T // 5
    hi = max(int(np.argmax(herr.mean(axis=1) < 1e-20 * herr[0].mean())) or T, lo + 10)
    fit = replica_slope(np.arange(lo, hi), np.maximum(herr[lo:hi].T, 1e-300), logx=False)
    final_rel = float(herr[-1].mean() / herr[0].mean())
    return Measurement(max(sum_viol, spread_viol), series={
        "h error": thin(tr.iterations, herr.mean(axis=1)), "|Σ_i h_i| / ‖h*‖": thin(
            tr.iterations, np.maximum(tr.metrics["sum_h"].max(axis=1) / scale, 1e-300))},
        evidence={"max_sum_h_over_norm_hstar": sum_viol, "max_spread_after_communication":
                  spread_viol, "h_error_log_rate_ci": [fit.slope, fit.lo, fit.hi],
                  "h_error_final_over_initial": final_rel, "iterations": T, "gamma": gamma,
                  "p": p},
        checks=(Check("h error decays linearly (log-rate CI below 0)", fit.hi < 0),
                Check("h error below 1e-8 of the initial at the end", final_rel < 1e-8)),
        conditions=[thm42_run(prob, gamma, "g_norm n=5 d=4 s=3 ζ²=10")],
        run=RunConfig("proxskip-gda-fl", "proxskip-g-norm", {
            "n": 5, "d": 4, "s": 3.0, "zeta_sq": 10.0}, rounds=T, seeds=R, seed=seed))


@claim("proxskip.p18", title="Communications in T iterations are Binomial(T, p) (a check of "
       "the simulator)",
       prediction="mean pT within its interval; variance Tp(1 − p). Algorithm 1 line 3 [L125] "
       "communicates after an independent coin of probability p at each iteration, so the "
       "number of heads in T iterations is Binomial(T, p) (exact): a check of the simulator's "
       "coin, not a stated result", source="Algorithm 1, line 3 [L125]",
       theorems=("proxskip.cor3.6",), provenance="consistency",
       no_conditions=("a property of Algorithm 1's coin (line 3 [L125]) at every γ and p, "
                      "checked on the simulator: no theorem's conditions bear on it"),
       rule=rules.UpperBound("reference", rtol=0.0),
       params={"p_scale": 1.0, "level": 0.999, "replicas": 2000, "coin_scale": 1.0},
       profiles={"full": {"replicas": 20000}}, perturb={"p_scale": 1.02},
       plants=(Plant({"coin_scale": 1.05}, why="runs the simulator with a coin of probability "
                     "1.05p while predicting Binomial(T, p): 2000 replicas resolve the 5 % "
                     "shift of the mean number of communications"),),
       figure=FigureSpec("P18: communications in T iterations vs pT", "p", "communications",
                         logy=False))
def p18(params: Params, seed: int) -> Measurement:
    """P18: max |z| of the mean communications in T = 400 iterations vs pT (Alg. 1 line 3
    [L125])."""
    from scipy.stats import chi2  # on first use: scipy.stats takes about 0.5 s to import

    R, T = params["replicas"], 400
    prob = families.g_norm(n=3, d=4, s=3.0, seed=params["instance_seed"])
    gamma, p_cor36 = algorithms.gda_steps(prob)
    ps = [0.05, p_cor36, 0.5, 0.9]
    alpha = (1 - params["level"]) / len(ps)
    rows = []
    for p in ps:
        p_run = min(1.0, params["coin_scale"] * p)  # p itself unless a plant changes the coin
        k = simulate(algorithms.proxskip_method(prob, gamma, p_run), T, replicas=R, seed=seed,
                     record_every=T).communications[-1]
        mean, sd = float(k.mean()), float(k.std(ddof=1))
        z = (mean - params["p_scale"] * p * T) / (sd / math.sqrt(R))
        var_ci = [(R - 1) * sd**2 / float(chi2.ppf(q, R - 1))
                  for q in (1 - alpha / 2, alpha / 2)]
        rows.append({"p": p, "mean": mean, "predicted_mean": params["p_scale"] * p * T, "z": z,
                     "variance": sd**2, "predicted_variance": T * p * (1 - p),
                     "variance_interval": var_ci,
                     "variance_ok": var_ci[0] <= T * p * (1 - p) <= var_ci[1],
                     "all_integer": bool(np.all(k == np.round(k)))})
    z_critical = zcrit(params["level"], len(ps))
    half = [z_critical * math.sqrt(r["variance"] / R) for r in rows]  # figure only
    return Measurement(float(max(abs(r["z"]) for r in rows)), reference=z_critical, series={
        "replica mean": ([r["p"] for r in rows], [r["mean"] for r in rows]),
        "pT": ([r["p"] for r in rows], [r["p"] * T for r in rows])}, evidence={"rows": rows},
        bands={"replica mean": ([r["p"] for r in rows],
                                [r["mean"] - h for r, h in zip(rows, half, strict=True)],
                                [r["mean"] + h for r, h in zip(rows, half, strict=True)])},
        checks=(Check("variance Tp(1 − p) inside its chi-square interval for every p",
                      all(r["variance_ok"] for r in rows)),),
        run=RunConfig("proxskip-gda-fl", "proxskip-g-norm", {"n": 3, "d": 4, "s": 3.0},
                      rounds=T, seeds=R, seed=seed, sweeps={"p": ps}))
