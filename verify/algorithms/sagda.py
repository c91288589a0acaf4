"""SAGDA (Options I and II) and FSGDA (sagda.md §4.1–4.2, Algorithms 1–2, L100–116, L184–197).

All three share one round: the server broadcasts z_t to m clients sampled uniformly without
replacement, each runs K local descent–ascent steps with local steps η_{x,l}, η_{y,l} on the
direction ∇f_i(z^k; ξ^k) − v_i + v̄ (SAGDA Eqs. (2)–(3); FSGDA: v = v̄ = 0), and the server moves
z_{t+1} = z_t + η_g ⊙ ((1/m) Σ_{S_t} z_i^{K+1} − z_t) with two-sided steps η_{x,g}, η_{y,g}.

* Option I: client control variates v_i = ∇f_i(w_{t,i}; ξ) refreshed at z_t when sampled (stale
  otherwise), v̄ = (1/M) Σ_{i∈[M]} v_i; initialised at z_0 for all M clients (Γ_0 = 0, L792; §9 #9).
* Option II: fresh v_i = ∇f_i(z_t; ξ_{t,i}) for i ∈ S_t and v̄ = (1/m) Σ_{S_t} v_i.
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
    client_grad,
    gather,
    local_steps,
    noise_draw,
    noisy_grad,
    pair,
    project_y,
    run_doc,
    sampled,
    signed,
)

DEFAULTS: dict[str, float] = {"eta_xl": 0.01, "eta_yl": 0.01, "eta_xg": 1.0, "eta_yg": 1.0,
                              "K": 1, "m": 0}


def _cfg(g: MinMaxGame, config: dict[str, Any]) -> dict[str, Any]:
    c = {**DEFAULTS, **config}
    c["K"] = int(c["K"])
    c["m"] = int(c["m"]) or g.M
    if not 1 <= c["m"] <= g.M:
        raise ValueError(f"m = {c['m']} must be in 1..M = {g.M}")
    if c["K"] < 1:
        raise ValueError(f"K = {c['K']} must be a positive integer")
    return c


def compile_fsgda(g: MinMaxGame, config: dict[str, Any], replicas: int, seed: int = 0,
                  option: int = 0) -> Compiled:
    """FSGDA (option 0), SAGDA Option I (1) or Option II (2) bound to a game."""
    c = _cfg(g, config)
    K, m, M, d = c["K"], c["m"], g.M, g.d
    tau = as_taus(K, M)
    s_l = signed(g, c["eta_xl"], c["eta_yl"])
    eta_g = pair(g, c["eta_xg"], c["eta_yg"])
    z0 = np.broadcast_to(g.z0, (replicas, d)).copy()
    streams: dict[str, Any] = {"clients": client_draw(M)}
    if g.noisy:
        streams["noise"] = noise_draw(K, m, d)  # per sampled slot (minmax_common docstring)
        # declared for FSGDA too: the executor spawns generators by the sorted set of names, so
        # equal name sets keep "noise" identical across the three algorithms (common numbers)
        streams["cv_noise"] = lambda rng, R: rng.standard_normal((R, m, d))
    state: tuple[np.ndarray, ...] = (z0,)
    if option == 1:  # control variates of all M clients at z_0 (Γ_0 = 0)
        V = client_grad(g, np.repeat(z0[:, None], M, 1))
        if g.noisy:
            V = noisy_grad(g, V, np.random.default_rng([seed, 99]).standard_normal(V.shape))
        state = (z0, V)

    def step(st: tuple[np.ndarray, ...], dr: dict[str, Any], t: int):
        z = st[0]
        R = z.shape[0]
        idx = sampled(dr["clients"], m)
        zt = np.repeat(z[:, None], m, 1)
        xi = dr.get("noise")
        corr = None
        V = None
        if option:
            v_new = client_grad(g, zt, idx)
            if xi is not None:
                v_new = noisy_grad(g, v_new, dr["cv_noise"])
            if option == 2:
                corr = v_new.mean(1, keepdims=True) - v_new
            else:
                V = st[1]
                corr = V.mean(1, keepdims=True) - gather(V, idx)
        zK = local_steps(g, zt, idx, tau, s_l, xi, corr=corr)
        z_new = project_y(g, z + eta_g * (zK.mean(1) - z))
        if option == 1:
            V = V.copy()
            np.put_along_axis(V, idx[..., None], v_new, axis=1)
            return (z_new, V), np.ones(R)
        return (z_new,), np.ones(R)

    name = {0: "fsgda", 1: "sagda1", 2: "sagda2"}[option]
    return Compiled(state, step, streams, lambda st: st[0], K + (1 if option else 0),
                    {"algorithm": name, **c})


def _entry(option: int):
    def run(problem: MinMaxGame, config: dict[str, Any], rounds: int, seeds: int, seed: int) -> dict:
        return run_doc(compile_fsgda(problem, config, seeds, seed, option), problem, rounds, seeds, seed)
    return run


PARAMS: dict[str, tuple[float | None, str]] = {
    "eta_xl": (0.01, "local step η_{x,l}"), "eta_yl": (0.01, "local step η_{y,l}"),
    "eta_xg": (1.0, "server step η_{x,g}"), "eta_yg": (1.0, "server step η_{y,g}"),
    "K": (1, "local steps"), "m": (0, "clients sampled per round (0: all M)")}

ALGORITHMS = [
    AlgorithmEntry("fsgda", "sagda", "FSGDA: federated SGDA with two-sided steps (Alg. 2)",
                   _entry(0), PARAMS),
    AlgorithmEntry("sagda1", "sagda", "SAGDA Option I: stale client control variates (Alg. 1)",
                   _entry(1), PARAMS),
    AlgorithmEntry("sagda2", "sagda", "SAGDA Option II: fresh sampled control variates (Alg. 1)",
                   _entry(2), PARAMS),
]
