"""SAGDA (Options I and II) and FSGDA (Algorithms 1–2 [L100–L115, L184–L197]).

All three share one round: the server broadcasts z_t to m clients sampled uniformly without
replacement, each runs K local descent–ascent steps with local steps η_{x,l}, η_{y,l} on the
direction ∇f_i(z^k; ξ^k) − v_i + v̄ (SAGDA Eqs. (2)–(3); FSGDA: v = v̄ = 0), and the server moves
z_{t+1} = z_t + η_g ⊙ ((1/m) Σ_{S_t} z_i^{K+1} − z_t) with two-sided steps η_{x,g}, η_{y,g}.

* Option I: client control variates v_i = ∇f_i(w_{t,i}; ξ) refreshed at z_t when sampled (stale
  otherwise), v̄ = (1/M) Σ_{i∈[M]} v_i; initialised at z_0 for all M clients (Γ_0 = 0, Appendix B.2
  [L792]; Algorithm 1 leaves the initialisation out).
* Option II: fresh v_i = ∇f_i(z_t; ξ_{t,i}) for i ∈ S_t and v̄ = (1/m) Σ_{S_t} v_i.

The three are one :func:`build_sagda` with ``option`` 0 (FSGDA), 1 or 2 bound by
:func:`functools.partial`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from fedbounds.errors import BadInput
from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Algorithm, Method, Param
from ..executor import client_mean
from ..minmax import (
    MINMAX_PROBLEMS,
    as_taus,
    client_draw,
    client_grad,
    fast_local_steps,
    gather,
    local_steps,
    noise_draw,
    noisy_grad,
    pair,
    project_y,
    run_cost,
    same_hessian,
    sampled,
    sampled_in_run,
    server_observe,
    shared_grad,
    signed,
    start,
)


class ServerState(NamedTuple):
    """FSGDA and SAGDA Option II: the server model z_t (replicas, d)."""

    z: np.ndarray


class SAGDA1State(NamedTuple):
    """SAGDA Option I: the server model z_t (replicas, d) and the stored control variates v_i of
    all M clients (replicas, M, d)."""

    z: np.ndarray
    V: np.ndarray


def build_sagda(g: MinMaxGame, config: Mapping[str, Any], option: int = 0) -> Method:
    """FSGDA (option 0), SAGDA Option I (1) or Option II (2) bound to a game; m = 0 means all M."""
    K, M, d = config["K"], g.M, g.d
    m = M if config["m"] == 0 else config["m"]  # declared: m = 0 samples all M clients
    if not 1 <= m <= M:
        raise BadInput("--set m", f"m = {m} must be in 1..M = {M} (or 0: all M)")
    tau = as_taus(K, M)
    s_l = signed(g, config["eta_xl"], config["eta_yl"])
    eta_g = pair(g, config["eta_xg"], config["eta_yg"])
    streams: dict[str, Any] = {"clients": client_draw(M)}
    if g.noisy:
        streams["noise"] = noise_draw(K, m, d)  # per sampled slot (verify.minmax docstring)
        # declared for FSGDA too: equal stream names keep "noise" identical across the three
        # algorithms (common random numbers)
        streams["cv_noise"] = lambda rng, R: rng.standard_normal((R, m, d))

    def init(replicas: int, seed: int) -> ServerState | SAGDA1State:
        z0 = start(g.z0, replicas)
        if option != 1:
            return ServerState(z0)
        V = client_grad(g, np.repeat(z0[:, None], M, 1))  # all M clients at z_0 (Γ_0 = 0)
        if g.noisy:
            V = noisy_grad(g, V, np.random.default_rng([seed, 99]).standard_normal(V.shape))
        return SAGDA1State(z0, V)

    def step(state: Any, draws: Mapping[str, Any], t: int) -> tuple[Any, np.ndarray]:
        z = state.z
        idx = sampled(draws["clients"], m)
        zt = np.repeat(z[:, None], m, 1)
        xi = draws.get("noise")
        corr = v_new = None
        if option:
            v_new = shared_grad(g, zt, g.h[idx]) if common else client_grad(g, zt, idx)
            if xi is not None:
                v_new = noisy_grad(g, v_new, draws["cv_noise"])
            if option == 2:
                corr = v_new.mean(1, keepdims=True) - v_new
            else:
                corr = state.V.mean(1, keepdims=True) - gather(state.V, idx)
        zK = local_steps(g, zt, idx, tau, s_l, xi, corr=corr)
        z_new = project_y(g, z + eta_g * (zK.mean(1) - z))
        if option == 1:
            V = state.V.copy()
            np.put_along_axis(V, idx[..., None], v_new, axis=1)
            return SAGDA1State(z_new, V), np.ones(z.shape[0])
        return ServerState(z_new), np.ones(z.shape[0])

    run_local = fast_local_steps(g, tau, s_l)
    common = same_hessian(g)

    def advance(state: Any, draws: Mapping[str, Any], t: int, scratch: dict
                ) -> tuple[Any, np.ndarray]:
        """``step`` with less work, the same numbers: the local steps of
        :func:`fast_local_steps`, means over clients by :func:`client_mean`, Option I's table
        v_i updated in place and, at m = M, the index set of all clients made once."""
        z = state.z
        R = z.shape[0]
        idx = sampled_in_run(draws["clients"], m, scratch)
        zt = np.repeat(z[:, None], m, 1)
        xi = draws.get("noise")
        corr = v_new = grad_zt = None
        if option:
            kept = scratch.get("h_sel")
            if kept is None or kept[0] is not idx:  # g.h[idx], again only for a new index set
                kept = scratch["h_sel"] = (idx, g.h[idx])
            v_new = grad_zt = shared_grad(g, zt, kept[1]) if common else client_grad(g, zt, idx)
            if xi is not None:
                v_new = noisy_grad(g, v_new, draws["cv_noise"])
            if option == 2:
                corr = client_mean(v_new)[:, None] - v_new
            else:
                corr = client_mean(state.V)[:, None] - gather(state.V, idx)
        # the local steps start at z_t, where ∇f_i(z_t) was just taken (the same product)
        zK = run_local(zt, idx, xi, scratch, corr=corr, shared_start=True, first=grad_zt)
        z_new = project_y(g, z + eta_g * (client_mean(zK) - z))
        ones = scratch.get("ones")
        if ones is None or ones.shape[0] != R:
            ones = scratch["ones"] = np.ones(R)
        if option == 1:
            V = state.V
            np.put_along_axis(V, idx[..., None], v_new, axis=1)
            return SAGDA1State(z_new, V), ones
        return ServerState(z_new), ones

    return Method(init, step, observe=server_observe(g), streams=streams, advance=advance,
                  config={**{k: config[k] for k in ("eta_xl", "eta_yl", "eta_xg", "eta_yg")},
                          "K": K, "m": m},
                  samples_per_step=K + (1 if option else 0),
                  **run_cost(g, m, K + (1 if option else 0), K if g.noisy else 0, "K"))


def steps_for(gamma_x: float, gamma_y: float, eta_g: float, K: int) -> dict[str, float]:
    """Local steps for per-round steps γ = η_l η_g K and server step η_g on both blocks
    (η_x = η_{x,l}η_{x,g}, remark after Theorem 1 [L174])."""
    return {"eta_xl": gamma_x / (eta_g * K), "eta_yl": gamma_y / (eta_g * K), "eta_xg": eta_g,
            "eta_yg": eta_g, "K": K}


def local_phase(g: MinMaxGame, zt: np.ndarray, eta: float, K: int, replicas: int,
                rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray],
                                                   list[np.ndarray]]:
    """K noisy local steps of every client from z_t with η_{x,l} = η_{y,l} = η (FSGDA,
    Algorithm 2, lines 7–8 [L192–L194]), ``replicas`` independent noise draws: the iterates
    z^j_{t,i} (j = 0..K, each (R, M, d)), the stochastic gradients (K of them) and the
    noise-free gradients along the noise-free trajectory (K of them, (M, d))."""
    s = signed(g, eta, eta)
    z = np.broadcast_to(zt, (replicas, g.M, g.d)).copy()
    zbar = np.broadcast_to(zt, (g.M, g.d)).copy()
    iterates, grads, grads_bar = [z.copy()], [], []
    for _ in range(K):
        gr = noisy_grad(g, np.einsum("mij,rmj->rmi", g.H, z) + g.h, rng.standard_normal(z.shape))
        gb = np.einsum("mij,mj->mi", g.H, zbar) + g.h
        grads.append(gr)
        grads_bar.append(gb)
        z = z - s * gr
        zbar = zbar - s * gb
        iterates.append(z.copy())
    return iterates, grads, grads_bar


PARAMS = {"eta_xl": Param(0.01, "local step η_{x,l}", low=0),
          "eta_yl": Param(0.01, "local step η_{y,l}", low=0),
          "eta_xg": Param(1.0, "server step η_{x,g}", low=0),
          "eta_yg": Param(1.0, "server step η_{y,g}", low=0),
          "K": Param(1, "local steps K", kind=int, low=1, high=10**6),
          "m": Param(0, "clients sampled per round m (0: all M)", kind=int, low=0, high=100_000)}

FSGDA = Algorithm("fsgda", "sagda", "FSGDA: federated SGDA with two-sided steps (Alg. 2)",
                  partial(build_sagda, option=0), PARAMS, MINMAX_PROBLEMS)
SAGDA_I = Algorithm("sagda1", "sagda", "SAGDA Option I: stale client control variates (Alg. 1)",
                    partial(build_sagda, option=1), PARAMS, MINMAX_PROBLEMS)
SAGDA_II = Algorithm("sagda2", "sagda", "SAGDA Option II: fresh sampled control variates (Alg. 1)",
                     partial(build_sagda, option=2), PARAMS, MINMAX_PROBLEMS)

