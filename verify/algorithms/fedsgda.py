"""FedSGDA+ and FedSGDA-M (fedsgda_m.md §4.1–4.2, Algorithms 1–2, L104–134, L191–222).

* FedSGDA+ (one executor step = one communication round): all N clients run Q local steps
  x ← x − ĉ∇_x f_i(x, y; B), y ← y + c∇_y f_i(x̃_k, y; B) (minibatch b, y-gradient at the snapshot
  x̃_k = x̄_{kS}), then the server moves x̄ ← x̄ + η_x(mean_i x_i − x̄), ȳ ← ȳ + η_y(mean_i y_i − ȳ).
* FedSGDA-M (one executor step = one local iteration): STORM estimators
  u ← ∇f_i(z_t; B) + (1 − α)(u − ∇f_i(z_{t−1}; B)) (same minibatch at both points; β for y),
  x ← x − ĉηu, y ← y + cηv, with u, v and x, y averaged every Q iterations; u_1 from a batch B.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from fedbounds.problems.minmax import MinMaxGame

from ..catalog import AlgorithmEntry
from ..minmax_common import (
    Compiled,
    as_taus,
    client_grad,
    local_steps,
    noise_draw,
    noisy_grad,
    pair,
    project_y,
    run_doc,
    signed,
)

PLUS_DEFAULTS: dict[str, float] = {"c_hat": 0.01, "c": 0.01, "eta_x": 1.0, "eta_y": 1.0, "Q": 1,
                                   "S": 1, "b": 1}
M_DEFAULTS: dict[str, float] = {"c_hat": 0.1, "c": 0.1, "eta": 0.1, "alpha": 1.0, "beta": 1.0,
                                "Q": 1, "b": 1, "B": 1}


def compile_plus(g: MinMaxGame, config: dict[str, Any], replicas: int, seed: int = 0) -> Compiled:
    """FedSGDA+ (Algorithm 1); η_x = η_y = 1 is Local SGDA+ (L155)."""
    c = {**PLUS_DEFAULTS, **config}
    N, d, dx = g.M, g.d, g.dx
    Q, S, b = int(c["Q"]), int(c["S"]), float(c["b"])
    if Q < 1 or S < 1 or b < 1:
        raise ValueError("Q, S and b must be positive integers")
    tau = as_taus(Q, N)
    s_l = signed(g, c["c_hat"], c["c"])
    eta_g = pair(g, c["eta_x"], c["eta_y"])
    z0 = np.broadcast_to(g.z0, (replicas, d)).copy()
    streams: dict[str, Any] = {"noise": noise_draw(Q, N, d)} if g.noisy else {}

    def step(st: tuple[np.ndarray, ...], dr: dict[str, Any], t: int):
        z, x_til = st
        R = z.shape[0]
        zt = np.repeat(z[:, None], N, 1)
        zQ = local_steps(g, zt, None, tau, s_l, dr.get("noise"),
                         x_snap=np.repeat(x_til[:, None], N, 1), batch=b)
        z_new = project_y(g, z + eta_g * (zQ.mean(1) - z))
        if (t + 1) % S == 0:
            x_til = z_new[:, :dx].copy()
        return (z_new, x_til), np.ones(R)

    return Compiled((z0, z0[:, :dx].copy()), step, streams, lambda st: st[0], 2 * b * Q,
                    {"algorithm": "fedsgda-plus", **c})


def compile_m(g: MinMaxGame, config: dict[str, Any], replicas: int, seed: int = 0) -> Compiled:
    """FedSGDA-M (Algorithm 2); α = β = 1 is Local SGDA with steps ĉη, cη."""
    c = {**M_DEFAULTS, **config}
    N, d = g.M, g.d
    Q, b, B = int(c["Q"]), float(c["b"]), float(c["B"])
    if Q < 1 or b < 1 or B < 1:
        raise ValueError("Q, b and B must be positive")
    if not (0 < c["alpha"] <= 1 and 0 < c["beta"] <= 1):
        raise ValueError("alpha and beta must be in (0, 1]")
    s = signed(g, c["c_hat"] * c["eta"], c["c"] * c["eta"])
    keep = 1.0 - pair(g, c["alpha"], c["beta"])
    z0 = np.broadcast_to(g.z0, (replicas, N, d)).copy()
    u0 = client_grad(g, z0)
    if g.noisy:
        u0 = noisy_grad(g, u0, np.random.default_rng([seed, 98]).standard_normal(u0.shape), B)
    streams: dict[str, Any] = {"noise": lambda rng, R: rng.standard_normal((R, N, d))} \
        if g.noisy else {}

    def step(st: tuple[np.ndarray, ...], dr: dict[str, Any], it: int):
        z, u = st
        R = z.shape[0]
        t = it + 1
        sync = t % Q == 0
        if sync:
            z_new = np.repeat((z - s * u).mean(1, keepdims=True), N, 1)
            u = np.repeat(u.mean(1, keepdims=True), N, 1)
        else:
            z_new = z - s * u
        z_new = project_y(g, z_new)
        xi = dr.get("noise")
        g_new = noisy_grad(g, client_grad(g, z_new), xi, b)
        g_old = noisy_grad(g, client_grad(g, z), xi, b)
        u = g_new + keep * (u - g_old)
        return (z_new, u), np.full(R, float(sync))

    return Compiled((z0, u0), step, streams, lambda st: st[0].mean(1), 2 * b,
                    {"algorithm": "fedsgda-m", **c})


def _entry(builder):
    def run(problem: MinMaxGame, config: dict[str, Any], rounds: int, seeds: int, seed: int) -> dict:
        return run_doc(builder(problem, config, seeds, seed), problem, rounds, seeds, seed)
    return run


ALGORITHMS = [
    AlgorithmEntry("fedsgda-plus", "fedsgda", "FedSGDA+: local SGDA+ with server steps (Alg. 1); "
                   "--rounds = communication rounds", _entry(compile_plus),
                   {"c_hat": (0.01, "local x step ĉ"), "c": (0.01, "local y step c"),
                    "eta_x": (1.0, "server step η_x"), "eta_y": (1.0, "server step η_y"),
                    "Q": (1, "local steps per round"), "S": (1, "snapshot period (rounds)"),
                    "b": (1, "minibatch size")}),
    AlgorithmEntry("fedsgda-m", "fedsgda", "FedSGDA-M: local STORM momentum (Alg. 2); "
                   "--rounds = local iterations T", _entry(compile_m),
                   {"c_hat": (0.1, "x scale ĉ"), "c": (0.1, "y scale c"), "eta": (0.1, "step η"),
                    "alpha": (1.0, "momentum α (1: none)"), "beta": (1.0, "momentum β (1: none)"),
                    "Q": (1, "communication period"), "b": (1, "minibatch"),
                    "B": (1, "initial minibatch")}),
]
