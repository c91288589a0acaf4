"""Local SGDA(+) and Fed-Norm-SGDA(+) (fed_norm_sgda.md §4.1–4.2, Algorithm 1, L121–143).

A round: the server samples P of n clients uniformly without replacement (P = n: full
participation); client i runs τ_i local steps of (momentum) SGDA with client steps η^c_x, η^c_y
(SGDA+: ∇_y at the snapshot x̂ = x^{(sS)}, refreshed every S rounds). Then

* Local SGDA(+) (naive iterate averaging, §4.1): z ← z + Σ_{i∈C} w̃_i (z_i^{τ_i} − z), w̃_i = p_i n/P
  (= Σ_i p_i z_i^{τ_i} at P = n);
* Fed-Norm-SGDA(+) (Alg. 1): each client sends its normalized direction g_i = G_i a_i/‖a_i‖_1,
  the server steps z ← z − τ_eff (γ^s_x, −γ^s_y) ⊙ Σ_{i∈C} w̃_i g_i with w = p and
  τ_eff = Σ_j p_j ‖a_j‖_1 (lines 10–14).

Heavy-ball local momentum ρ (buffer reset per round) has ‖a_i‖_1 = (τ_i − ρ(1 − ρ^{τ_i})/(1 − ρ))/(1 − ρ)
(§2 examples).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from fedbounds.problems.minmax import MinMaxGame

from ..catalog import AlgorithmEntry
from ..minmax_common import (
    Compiled,
    as_taus,
    client_draw,
    gather,
    local_steps,
    noise_draw,
    project_y,
    run_doc,
    sampled,
    signed,
)

DEFAULTS: dict[str, Any] = {"eta_cx": 0.01, "eta_cy": 0.01, "gamma_sx": None, "gamma_sy": None,
                            "tau": 1, "tau_max": 0, "rho": 0.0, "P": 0, "S": 1}


def a_l1(tau: np.ndarray, rho: float) -> np.ndarray:
    """‖a_i‖_1 of τ_i local steps with heavy-ball factor ρ (fed_norm_sgda.md §2)."""
    tau = np.asarray(tau, dtype=float)
    if rho == 0:
        return tau
    return (tau - rho * (1 - rho**tau) / (1 - rho)) / (1 - rho)


def taus(g: MinMaxGame, c: dict[str, Any]) -> np.ndarray:
    """τ_i: ``tau`` (scalar or per-client sequence), or linearly spaced tau..tau_max."""
    if np.ndim(c["tau"]) == 0 and c.get("tau_max") and c["tau_max"] > c["tau"]:
        return as_taus(np.round(np.linspace(c["tau"], c["tau_max"], g.M)), g.M)
    return as_taus(c["tau"], g.M)


def compile_fednorm(g: MinMaxGame, config: dict[str, Any], replicas: int, seed: int = 0, *,
                    normalized: bool = True, plus: bool = False) -> Compiled:
    """Fed-Norm-SGDA(+) (``normalized``) or Local SGDA(+) bound to a game."""
    c = {**DEFAULTS, **config}
    M, d, dx = g.M, g.d, g.dx
    tau = taus(g, c)
    P = int(c["P"]) or M
    if not 1 <= P <= M:
        raise ValueError(f"P = {P} must be in 1..n = {M}")
    rho = float(c["rho"])
    if not 0 <= rho < 1:
        raise ValueError(f"rho = {rho} must be in [0, 1)")
    S = int(c["S"])
    s_l = signed(g, c["eta_cx"], c["eta_cy"])
    a1 = a_l1(tau, rho)
    tau_eff = float(g.p @ a1)
    gx = c["eta_cx"] if c["gamma_sx"] is None else c["gamma_sx"]
    gy = c["eta_cy"] if c["gamma_sy"] is None else c["gamma_sy"]
    srv = tau_eff * signed(g, gx, gy)
    wt = g.p * M / P  # w̃_i = w_i n/P with w = p
    K = int(tau.max())
    z0 = np.broadcast_to(g.z0, (replicas, d)).copy()
    streams: dict[str, Any] = {"clients": client_draw(M)}
    if g.noisy:
        streams["noise"] = noise_draw(K, P, d)  # per sampled slot
    state = (z0, z0[:, :dx].copy()) if plus else (z0,)

    def step(st: tuple[np.ndarray, ...], dr: dict[str, Any], t: int):
        z = st[0]
        R = z.shape[0]
        x_hat = None
        if plus:
            x_hat = z[:, :dx].copy() if t % S == 0 else st[1]
        idx = sampled(dr["clients"], P)
        zt = np.repeat(z[:, None], P, 1)
        snap = None if x_hat is None else np.repeat(x_hat[:, None], P, 1)
        zK = local_steps(g, zt, idx, tau, s_l, dr.get("noise"), x_snap=snap, rho=rho)
        w = wt[idx][..., None]
        if normalized:
            gi = (zt - zK) / (s_l * a1[idx][..., None])
            z_new = z - srv * np.sum(w * gi, axis=1)
        else:
            z_new = z + np.sum(w * (zK - zt), axis=1)
        z_new = project_y(g, z_new)
        return ((z_new, x_hat) if plus else (z_new,)), np.ones(R)

    name = ("fednorm-sgda" if normalized else "local-sgda") + ("-plus" if plus else "")
    cfg = {"algorithm": name, **{k: (v.tolist() if isinstance(v, np.ndarray) else v)
                                 for k, v in c.items()}, "tau_eff": tau_eff}
    return Compiled(state, step, streams, lambda st: st[0], float(tau.mean()), cfg)


def implicit_weights(g: MinMaxGame, tau: np.ndarray, rho: float = 0.0) -> np.ndarray:
    """Naive-aggregation weights w_i = p_i‖a_i‖_1 / Σ_j p_j‖a_j‖_1 (fed_norm_sgda.md §2, THE MISMATCH
    FORMULA); Local SGDA: w_i ∝ p_iτ_i."""
    a = g.p * a_l1(tau, rho)
    return a / a.sum()


def _entry(normalized: bool, plus: bool):
    def run(problem: MinMaxGame, config: dict[str, Any], rounds: int, seeds: int, seed: int) -> dict:
        return run_doc(compile_fednorm(problem, config, seeds, seed, normalized=normalized, plus=plus),
                       problem, rounds, seeds, seed)
    return run


PARAMS: dict[str, tuple[float | None, str]] = {
    "eta_cx": (0.01, "client step η^c_x"), "eta_cy": (0.01, "client step η^c_y"),
    "gamma_sx": (None, "server step γ^s_x (Fed-Norm; default η^c_x)"),
    "gamma_sy": (None, "server step γ^s_y (Fed-Norm; default η^c_y)"),
    "tau": (1, "local steps τ (all clients)"),
    "tau_max": (0, "heterogeneous τ_i linearly spaced tau..tau_max (0: equal)"),
    "rho": (0.0, "local heavy-ball momentum ρ"), "P": (0, "clients sampled per round (0: all n)"),
    "S": (1, "snapshot period of the + variants")}

ALGORITHMS = [
    AlgorithmEntry("local-sgda", "fednorm", "Local SGDA: iterate averaging with weights p (§4.1)",
                   _entry(False, False), PARAMS),
    AlgorithmEntry("local-sgda-plus", "fednorm", "Local SGDA+: y-gradients at a snapshot x̂ (§4.1)",
                   _entry(False, True), PARAMS),
    AlgorithmEntry("fednorm-sgda", "fednorm", "Fed-Norm-SGDA: normalized client updates (Alg. 1)",
                   _entry(True, False), PARAMS),
    AlgorithmEntry("fednorm-sgda-plus", "fednorm", "Fed-Norm-SGDA+: normalized, snapshot x̂ (Alg. 1)",
                   _entry(True, True), PARAMS),
]

__all__ = ["ALGORITHMS", "compile_fednorm", "implicit_weights", "a_l1", "gather"]
