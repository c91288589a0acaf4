"""Claims of FedSGDA+ / FedSGDA-M (fedsgda_m.md §8.3, P1, P3, P5, P6, P7) on min-max quadratic
games (common Hessians (SC-CH), additive noise (N-add)); metric ‖∇Φ(x̄_t)‖² (closed form).

P3 (bound validity) takes its step sizes from the theorem objects (``Theorem.schedule`` and
:func:`fedbounds.engine.max_step`) and its bound from :func:`fedbounds.engine.bound`; no formula
of the paper is retyped here."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from fedbounds import engine, registry
from problems.minmax import make_game
from verify.algorithms.fedsgda import compile_m, compile_plus
from verify.claim import Claim, Figure, Verdict, decide_interval, decide_upper
from verify.fitting import mean_ci, replica_slope
from verify.minmax_common import rerun, simulate

PAPER = "fedsgda"


def p1(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """FedSGDA-M's averaged trajectory is the same for every Q and every ζ (SC-CH, N-add, common
    random numbers): an implementation identity (P1)."""
    T, R = (300, 4) if profile == "quick" else (3000, 16)
    cfg = {"c_hat": 0.5, "c": 2.0, "eta": 0.05, "alpha": 0.3, "beta": 0.2}
    curves, ref, stat = {}, None, 0.0
    for Q in (1, 5, 20):
        for sG in (0.0, 3.0):
            g = make_game({"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": sG}, seed)
            tr = simulate(compile_m(g, {**cfg, "Q": Q}, R, seed), g, T, seed, R)
            gp = tr.metrics["grad_phi_sq"]
            ref = gp if ref is None else ref
            stat = max(stat, float(np.max(np.abs(gp - ref)) / np.max(np.abs(ref))))
            curves[f"Q={Q}, σ_G={sG:g}"] = (tr.iterations.tolist(), gp.mean(axis=1).tolist())
    tol = 1e-10
    fig = Figure("FedSGDA-M: ‖∇Φ(x̄_t)‖² for every Q and ζ", "iteration t", "‖∇Φ(x̄_t)‖²", curves)
    return Verdict("fedsgda.p1", decide_interval(stat, stat, predicted, tol), stat, predicted, tol,
                   {"max_relative_diff": stat, "iterations": T, "replicas": R}, fig,
                   rerun("fedsgda_m", "minmax_quadratic", {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0,
                                                           "sigma_G": 3.0}, {**cfg, "Q": 20}, T, R,
                         seed))


P6_SET = {"M": 1, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "a": 0.5, "bxy": 0.5}


def cor313(g, N: int, NT0: int, nu: float = 1.0) -> tuple[dict[str, float], int]:
    """Corollary 3.13 schedule (reading R1, L = L_f; fedsgda_m.md §5.3, §5.5): returns the
    configuration and T = κ^{3−ν} T_0."""
    k, L = g.constants["kappa"], g.constants["L_f"]
    T0 = NT0 / N
    Q = max(1, round(T0 ** (1 / 3) / N ** (2 / 3)))
    b = k**nu
    cfg = {"eta": 1 / (20 * Q * L), "c": 1 / (6 * k ** (1 - nu)), "c_hat": 1 / (54 * k ** (3 - nu)),
           "alpha": 3 / (40 * b * N * k ** (1 - nu) * Q**2), "beta": 3 / (40 * b * N * k ** (2 - 2 * nu) * Q**2),
           "Q": Q, "b": b, "B": max(1.0, T0 ** (1 / 3) * b * k ** (1 - nu) / N ** (2 / 3))}
    return cfg, int(round(k ** (3 - nu) * T0))


def p6(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """Linear speedup: under Cor 3.13 the averaged metric depends on (N, T_0) only through N·T_0."""
    NT0 = 32768
    R = 8 if profile == "quick" else 32
    Ns = [1, 2, 4, 8]
    ests, cfgs = [], []
    for N in Ns:
        g = make_game({**P6_SET, "M": N}, seed)
        cfg, T = cor313(g, N, NT0)
        tr = simulate(compile_m(g, cfg, R, seed), g, T, seed, R, record_every=8)
        ests.append(mean_ci(tr.metrics["grad_phi_sq"][:-1].mean(axis=0)))
        cfgs.append((cfg, T))
    vals = np.array([e.value for e in ests])
    spread = float((vals.max() - vals.min()) / vals.mean())
    tol = 0.05
    fig = Figure(f"FedSGDA-M, Cor 3.13 schedule, N·T_0 = {NT0}", "N", "(1/T) Σ E‖∇Φ(x̄_t)‖²",
                 {"measured": (Ns, vals.tolist())}, logx=True, logy=False, kind="scatter")
    ev = {"N": Ns, "estimates": [e.as_dict() for e in ests], "relative_spread": spread,
          "schedules": [{"T": T, **c} for c, T in cfgs], "reading": "R1 (L = L_f)", "nu": 1}
    cfg, T = cfgs[-1]
    return Verdict("fedsgda.p6", decide_interval(spread, spread, predicted, tol), spread, predicted, tol,
                   ev, fig, rerun("fedsgda_m", "minmax_quadratic", {**P6_SET, "M": Ns[-1]}, cfg, T,
                                  R, seed))


def p7(profile: str = "quick", seed: int = 0, predicted: float = 0.0, **_: Any) -> Verdict:
    """FedSGDA+ under Cor 3.7: the per-round dynamics are N-free, so at fixed T the averaged metric
    does not improve with N (per-client work ∝ 1/N)."""
    T = 512 if profile == "quick" else 4096
    R = 16 if profile == "quick" else 32
    T3 = round(T ** (1 / 3))
    Ns = [1, 2, 4, 8]
    ests, cfgs = [], []
    for N in Ns:
        g = make_game({**P6_SET, "M": N}, seed)
        Lf = g.constants["L_f"]
        Q = T3 // N
        cfg = {"c": 1 / (10 * Lf * Q * T3), "c_hat": 1 / (10 * Lf * Q * T3), "eta_x": T3 ** -1.0,
               "eta_y": float(T3), "Q": Q, "S": T3}
        tr = simulate(compile_plus(g, cfg, R, seed), g, T, seed, R)
        ests.append(mean_ci(tr.metrics["grad_phi_sq"][:-1].mean(axis=0)))
        cfgs.append(cfg)
    vals = np.array([e.value for e in ests])
    spread = float((vals.max() - vals.min()) / vals.mean())
    tol = 0.05
    fig = Figure(f"FedSGDA+, Cor 3.7 schedule, T = {T}", "N", "(1/T) Σ E‖∇Φ(x̄_t)‖²",
                 {"measured": (Ns, vals.tolist())}, logx=True, logy=False, kind="scatter")
    ev = {"N": Ns, "estimates": [e.as_dict() for e in ests], "relative_spread": spread,
          "per_client_gradients": [2 * c["Q"] * T for c in cfgs]}
    return Verdict("fedsgda.p7", decide_interval(spread, spread, predicted, tol), spread, predicted, tol,
                   ev, fig, rerun("fedsgda_plus", "minmax_quadratic", {**P6_SET, "M": Ns[-1]},
                                  cfgs[-1], T, R, seed))

# ---- P5: slopes vs T (transient-dominated regime) -----------------------------------------------
P5A_SET = {"a": 1.0, "a_ratio": 1.0, "bxy": 0.3, "mu": 1.0, "sigma_x": 0.1, "sigma_y": 0.1,
           "sigma_G": 1.0}  # κ = L_f = 1.044, λ_Φ = 1.09: the cheapest x-clock threshold
P5B_SET = {"a": 1.0, "a_ratio": 1.0, "bxy": 3.0, "mu": 1.0, "sigma_x": 0.1, "sigma_y": 0.1,
           "sigma_G": 1.0}  # L_f = κ = 3.16, λ_Φ = 10: clock·λ ≥ 3 from T = 1000 on


def _phi_hess_min(g) -> float:
    A, B, C, _, _ = g.mean_blocks()
    return float(np.linalg.eigvalsh(A + B @ np.linalg.solve(C, B.T))[0])


def _slope_claim(cid, xs, Y, pred, tol, fig, ev, cfg) -> Verdict:
    fit = replica_slope(np.asarray(xs, float), Y)
    ev = {**ev, "fit": fit.as_dict(),
          "rule": "confirmed if the replica-slope 95% CI overlaps predicted ± tol"}
    if not np.all(np.isfinite(Y)):
        return Verdict(cid, "diverged", None, pred, tol, ev, fig, cfg)
    return Verdict(cid, decide_interval(fit.lo, fit.hi, pred, tol), fit.slope, pred, tol, ev, fig,
                   cfg)


def p5(profile: str = "quick", seed: int = 0, part: str = "a", predicted_slope: float | None = None,
       **_: Any) -> Verdict:
    """(a) FedSGDA-M under Cor 3.13 (ν = 1, b = κ): slope −2/3 of the averaged ‖∇Φ‖² vs N·T_0;
    (b) FedSGDA+ under Cor 3.7: slope −1/3 vs T. Both in the transient-dominated regime
    (x-clock·λ_Φ ≥ 2, noise floor negligible). Q = 1 at every point (N = (N·T_0)^{1/3}, resp.
    N = T^{1/3}), which P1/P6/P7 show leaves the averaged dynamics unchanged and keeps runs short."""
    R = 8 if profile == "quick" else 16
    if part == "a":
        Ns = [48, 96, 144] if profile == "quick" else [48, 96, 192]
        g0 = make_game({**P5A_SET, "M": 2}, seed)
        lam, Lf = _phi_hess_min(g0), g0.constants["L_f"]
        xs, per_rep, cfgs, clocks = [], [], [], []
        for N in Ns:
            g = make_game({**P5A_SET, "M": N}, seed)
            cfg, T = cor313(g, N, N**3)
            tr = simulate(compile_m(g, cfg, R, seed), g, T, seed, R, record_every=max(1, T // 400))
            per_rep.append(tr.metrics["grad_phi_sq"][:-1].mean(axis=0))
            xs.append(N**3)
            cfgs.append((cfg, T, N))
            clocks.append(cfg["c_hat"] * cfg["eta"] * T)
        Y = np.array(per_rep).T
        pred = -2 / 3 if predicted_slope is None else predicted_slope
        xlabel, algo, pset = "N·T_0", "fedsgda_m", P5A_SET
        title = "FedSGDA-M, Cor 3.13 (ν = 1, b = κ): averaged ‖∇Φ‖² vs N·T_0"
    else:
        Ts = [1000, 8000, 27000] if profile == "quick" else [1000, 8000, 64000]
        g0 = make_game({**P5B_SET, "M": 2}, seed)
        lam, Lf = _phi_hess_min(g0), g0.constants["L_f"]
        xs, per_rep, cfgs, clocks = [], [], [], []
        for T in Ts:
            T3 = round(T ** (1 / 3))
            N = T3  # Q = T^{1/3}/N = 1
            g = make_game({**P5B_SET, "M": N}, seed)
            cfg = {"c": 1 / (10 * Lf * T3), "c_hat": 1 / (10 * Lf * T3), "eta_x": 1 / T3,
                   "eta_y": float(T3), "Q": 1, "S": T3}
            tr = simulate(compile_plus(g, cfg, R, seed), g, T, seed, R, record_every=max(1, T // 400))
            per_rep.append(tr.metrics["grad_phi_sq"][:-1].mean(axis=0))
            xs.append(T)
            cfgs.append((cfg, T, N))
            clocks.append(cfg["c_hat"] * cfg["eta_x"] * cfg["Q"] * T)
        Y = np.array(per_rep).T
        pred = -1 / 3 if predicted_slope is None else predicted_slope
        xlabel, algo, pset = "T (rounds)", "fedsgda_plus", P5B_SET
        title = "FedSGDA+, Cor 3.7: averaged ‖∇Φ‖² vs T"
    means = Y.mean(axis=0)
    ref = [float(means[0] * (x / xs[0]) ** pred) for x in xs]
    fig = Figure(title, xlabel, "(1/T) Σ E‖∇Φ(x̄_t)‖²",
                 {"measured": (xs, means.tolist()), f"slope {pred:.3g} (anchored)": (xs, ref)},
                 logx=True)
    ev = {"x": xs, "avg_grad_phi_sq": means.tolist(), "replicas": R, "lambda_phi_min": lam,
          "L_f": Lf, "x_clock": clocks, "x_clock_times_lambda": [c * lam for c in clocks],
          "schedules": [{"T": T, "N": N, **c} for c, T, N in cfgs],
          "regime": "transient-dominated: x-clock·λ_Φ ≥ 2 at the smallest point, σ² = 0.02"}
    cfg, T, N = cfgs[-1]
    return _slope_claim(f"fedsgda.p5{part}", xs, Y, pred, 0.1, fig, ev,
                        rerun(algo, "minmax_quadratic", {**pset, "M": N}, cfg, T, R, seed))


# ---- P3: Theorem 3.12 bound holds (step sizes and bound from the theorem objects) ---------------
P3_SET = {"M": 4, "sigma_x": math.sqrt(0.5), "sigma_y": math.sqrt(0.5), "sigma_G": 1.0}  # κ = 1.5, σ = 1


def _F(g, z: np.ndarray) -> float:
    """F(x, y) = Σ p_i f_i(x, y) of the quadratic game (λ = 0)."""
    A, B, C, b, c = g.mean_blocks()
    x, y = z[: g.dx], z[g.dx:]
    return float(0.5 * x @ A @ x + x @ B @ y - 0.5 * y @ C @ y + b @ x - c @ y)


def _sched(thm, name: str, vals: dict[str, Any]) -> Fraction:
    """Value of the theorem's own schedule entry ``name`` (derived symbols expanded), exact when
    the inputs are rationals and the expression rational (so ĉ = c/(9κ²) holds exactly)."""
    expr = thm.expand(next(v for s, v in thm.schedule.items() if s.name == name))
    out = expr.subs({s: sp.Rational(str(Fraction(vals[s.name]))) for s in expr.free_symbols})
    return Fraction(int(out.p), int(out.q)) if out.is_Rational else Fraction(float(out))


def _fr(v: float) -> Fraction:
    return Fraction(float(v))


def thm312_setup(g, reading: str, NT0: int, nu: int = 0) -> dict[str, Any]:
    """Realized parameters of one P3 run: b, T, Q, B from the Cor 3.13 schedule (rounded to
    integers), c, ĉ, c_1, c_2 from the Thm 3.12 schedule, η = engine.max_step(thm, "eta") and the
    exact problem inputs Δ = Φ(x̄_0) − Φ*, Δ_y = Φ(x̄_0) − F(x̄_0, ȳ_0), σ, ζ, L_f, μ."""
    thm_id = "fedsgda.thm3.12.corrected" if reading == "R1" else "fedsgda.thm3.12"
    thm, cor = registry.get(thm_id), registry.get("fedsgda.cor3.13.corrected")
    k = g.constants
    N = g.M
    base: dict[str, Any] = {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "N": N, "nu": nu,
                            "T_0": Fraction(NT0, N)}
    b = round(_sched(cor, "b", base))
    base["b"] = b
    Q = max(1, round(_sched(cor, "Q", base)))
    T = round(_sched(cor, "T", base))
    Bm = max(1, math.ceil(_sched(cor, "B", base)))
    base["Q"] = Q
    steps = {n: _sched(thm, n, base) for n in ("c", "c_hat", "c_1", "c_2")}
    vals = {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "N": Fraction(N), "Q": Fraction(Q),
            "b": Fraction(b), **steps}
    ms = engine.max_step(thm, "eta", vals)
    if ms.value is None:
        raise ValueError(f"{thm_id}: no feasible eta ({ms.binding})")
    eta = ms.value
    x0, z0 = g.z0[: g.dx], g.z0
    xs = g.z_star()[: g.dx]
    Delta = float(g.phi(x0) - g.phi(xs))
    Delta_y = float(g.phi(x0)) - _F(g, z0)
    inputs = {**vals, "eta": _fr(eta), "T": Fraction(T), "B": Fraction(Bm), "Delta": _fr(Delta),
              "Delta_y": _fr(Delta_y), "sigma": _fr(k["sigma"]), "zeta": _fr(k["zeta"])}
    bd = engine.bound(thm, inputs)
    st = {n: float(v) for n, v in steps.items()}
    cfg = {"c_hat": st["c_hat"], "c": st["c"], "eta": eta,
           "alpha": st["c_1"] * eta**2, "beta": st["c_2"] * eta**2, "Q": Q, "b": b, "B": Bm}
    return {"theorem": thm_id, "cfg": cfg, "T": T, "bound": bd, "eta_binding": ms.binding,
            "Delta": Delta, "Delta_y": Delta_y, "NT0": NT0, "nu": nu}


def p3(profile: str = "quick", seed: int = 0, bound_scale: float = 1.0, **_: Any) -> Verdict:
    """Theorem 3.12 bound holds: (1/T) Σ E‖∇Φ(x̄_t)‖² ≤ bound, under the Cor 3.13 schedule
    (ν = 0, b = 1), readings R1 (corrected, L = L_f) and R2 (printed, L = L_f(1 + κ)).
    Statistic: max over runs of observed/bound; violated only if mean − 3 SE > bound·scale."""
    R = 16 if profile == "quick" else 32
    NT0s = [256, 2048] if profile == "quick" else [256, 2048, 16384]
    g = make_game(P3_SET, seed)
    rows, worst, worst_lo = [], 0.0, -math.inf
    series: dict[str, tuple[list[float], list[float]]] = {}
    last = None
    for reading in ("R1", "R2"):
        obs_s, bd_s = [], []
        for NT0 in NT0s:
            st = thm312_setup(g, reading, NT0)
            tr = simulate(compile_m(g, st["cfg"], R, seed), g, st["T"], seed, R,
                          record_every=max(1, st["T"] // 400))
            per = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
            est = mean_ci(per)
            se = float(per.std(ddof=1) / math.sqrt(per.size))
            bd = st["bound"]
            ratio = est.value / bd.value
            lo = (est.value - 3 * se) / bd.value
            worst, worst_lo = max(worst, ratio), max(worst_lo, lo)
            rows.append({"reading": reading, "theorem": st["theorem"], "NT0": NT0, "T": st["T"],
                         **{k: v for k, v in st["cfg"].items()}, "eta_binding": st["eta_binding"],
                         "observed": est.value, "observed_se": se, "bound": bd.value,
                         "ratio": ratio, "conditions_hold": bd.feasible, "violated": bd.violated,
                         "terms": bd.terms, "diverged": tr.diverged})
            obs_s.append(est.value)
            bd_s.append(bd.value)
            last = st
        series[f"{reading}: measured"] = (NT0s, obs_s)
        series[f"{reading}: Thm 3.12 bound"] = (NT0s, bd_s)
    ev = {"runs": rows, "Delta": last["Delta"], "Delta_y": last["Delta_y"], "kappa": g.constants["kappa"],
          "sigma": g.constants["sigma"], "zeta": g.constants["zeta"], "replicas": R,
          "inputs": "Δ = Φ(x̄_0) − Φ(x*) and Δ_y = Φ(x̄_0) − F(x̄_0, ȳ_0) computed exactly from the "
                    "game; σ, ζ, L_f, μ exact by construction; η = engine.max_step(thm, 'eta'); "
                    "c, ĉ, c_1, c_2 from the theorem's schedule; Q, T, B from Cor 3.13 rounded",
          "rule": "violated only if (mean − 3 SE)/bound > bound_scale (digest §8 preamble)",
          "max_lower_ratio": worst_lo, "bound_scale": bound_scale}
    fig = Figure("FedSGDA-M: measured average vs Theorem 3.12 bound", "N·T_0",
                 "(1/T) Σ E‖∇Φ(x̄_t)‖²", series, logx=True)
    if any(r["diverged"] for r in rows):
        v = "diverged"
    elif not all(r["conditions_hold"] for r in rows):
        v = "inconclusive"
        ev["reason"] = "the theorem's conditions fail at the realized parameters"
    else:
        v = decide_upper(worst_lo, bound_scale)
    cfg = rerun("fedsgda_m", "minmax_quadratic", P3_SET, last["cfg"], last["T"], R, seed)
    return Verdict("fedsgda.p3", v, worst, f"observed/bound ≤ {bound_scale:g}", "mean − 3 SE", ev,
                   fig, cfg)


CLAIMS = [
    Claim("fedsgda.p1", PAPER, "FedSGDA-M's averaged iterates are invariant in Q and ζ (SC-CH)",
          "with common Hessians and additive noise, x̄_t is identical for every Q and ζ (averaging "
          "commutes with the affine updates); equals centralized STORM-GDA",
          "fedsgda_m.md §8.3 P1 [derived]", p1, ["fedsgda.thm3.12"]),
    Claim("fedsgda.p3", PAPER, "Theorem 3.12 bound holds (FedSGDA-M, R1 and R2)",
          "with the Cor 3.13 schedule (ν = 0), η from max-step and the realized b, B, Q, T, the "
          "measured (1/T) Σ E‖∇Φ(x̄_t)‖² is at most the Thm 3.12 bound (observed/bound ≤ 1)",
          "fedsgda_m.md §8.3 P3; Thm 3.12 L245–L247", p3,
          ["fedsgda.thm3.12", "fedsgda.thm3.12.corrected"]),
    Claim("fedsgda.p5a", PAPER, "FedSGDA-M rate: slope −2/3 vs N·T_0 (Cor 3.13)",
          "in the transient-dominated regime the averaged ‖∇Φ‖² has log-log slope −2/3 ± 0.1 in "
          "N·T_0 (x-clock ĉηT = (NT_0)^{2/3}/(1080L))", "fedsgda_m.md §8.3 P5, P4; Cor 3.13 L249–255",
          lambda **k: p5(part="a", **k), ["fedsgda.cor3.13"]),
    Claim("fedsgda.p5b", PAPER, "FedSGDA+ rate: slope −1/3 vs T (Cor 3.7)",
          "in the transient-dominated regime the averaged metric has log-log slope −1/3 ± 0.1 in T "
          "(x-clock T^{1/3}/(10L_f))", "fedsgda_m.md §8.3 P5; Cor 3.7 L179–183",
          lambda **k: p5(part="b", **k), ["fedsgda.cor3.7"]),
    Claim("fedsgda.p6", PAPER, "FedSGDA-M linear speedup: results depend on N·T_0 only",
          "under the Cor 3.13 schedule (ν = 1, b = κ, reading R1) the averaged ‖∇Φ‖² at fixed N·T_0 "
          "is the same for N ∈ {1, 2, 4, 8} (relative spread ≤ 5%)",
          "fedsgda_m.md §8.3 P6; Cor 3.13 L249–255", p6, ["fedsgda.cor3.13"]),
    Claim("fedsgda.p7", PAPER, "FedSGDA+: no accuracy gain from N at fixed T",
          "under the Cor 3.7 schedule the per-round dynamics are N-free: the averaged metric at fixed "
          "T is the same for N ∈ {1, 2, 4, 8} (relative spread ≤ 5%), per-client work ∝ 1/N",
          "fedsgda_m.md §8.3 P7; Cor 3.7 L179–183", p7, ["fedsgda.cor3.7"]),
]
