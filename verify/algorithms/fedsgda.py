"""FedSGDA+ and FedSGDA-M (Algorithms 1 and 2 of the paper [L104–L134, L191–L222]).

* FedSGDA+ (one executor step = one communication round): all N clients run Q local steps
  x ← x − ĉ∇_x f_i(x, y; B), y ← y + c∇_y f_i(x̃_k, y; B) (minibatch b, y-gradient at the snapshot
  x̃_k = x̄_{kS}), then the server moves x̄ ← x̄ + η_x(mean_i x_i − x̄), ȳ ← ȳ + η_y(mean_i y_i − ȳ).
* FedSGDA-M (one executor step = one local iteration): STORM estimators
  u ← ∇f_i(z_t; B) + (1 − α)(u − ∇f_i(z_{t−1}; B)) (same minibatch at both points; β for y),
  x ← x − ĉηu, y ← y + cηv, with u, v and x, y averaged every Q iterations; u_1 from a batch B.
  The server model z is the virtual average z̄_t = (1/N) Σ_i z^i_t (Appendix C [L589]), observed
  every t.

The batch sizes b, B are real: the noise variance of a minibatch gradient is divided by them
(the claims use b = κ^ν, Corollary 3.13 [L249]). :func:`cor37_config` and :func:`cor313_config`
realize the encoded Corollary 3.7 / Theorem 3.12 + Corollary 3.13 schedules (integers rounded)
for a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import sympy as sp

from fedbounds import registry
from fedbounds.errors import BadInput
from fedbounds.model import Theorem
from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Algorithm, Method, Param
from ..executor import client_mean
from ..minmax import (
    MINMAX_PROBLEMS,
    all_client_grads,
    as_taus,
    client_grad,
    common_hessian,
    fast_local_steps,
    full_like_clients,
    local_steps,
    noise_draw,
    noise_scale,
    noisy_grad,
    pair,
    project_y,
    run_cost,
    server_observe,
    signed,
    start,
)
from .minmax_kernels import (
    storm_local_move,
    storm_sync_means,
    storm_sync_update,
    storm_update,
)


class FedSGDAPlusState(NamedTuple):
    """FedSGDA+: server model z̄_t (replicas, d) and the snapshot x̃_k (replicas, dx)."""

    z: np.ndarray
    x_tilde: np.ndarray


class FedSGDAMState(NamedTuple):
    """FedSGDA-M: the virtual average z̄_t (replicas, d), the local iterates z^i_t = (x^i_t, y^i_t)
    and the STORM estimators (u^i_t, v^i_t) (replicas, N, d)."""

    z: np.ndarray
    z_local: np.ndarray
    u: np.ndarray


def build_plus(g: MinMaxGame, config: Mapping[str, Any],
               watch: Callable[[np.ndarray, np.ndarray], None] | None = None
               ) -> Method[FedSGDAPlusState]:
    """FedSGDA+ (Algorithm 1); η_x = η_y = 1 is Local SGDA+ (Section 3.1 [L155]). ``watch`` sees
    every local iterate with its noise-free gradient (:func:`~..minmax.local_steps`)."""
    N, d, dx = g.M, g.d, g.dx
    Q, S, b = config["Q"], config["S"], config["b"]
    tau = as_taus(Q, N)
    s_l = signed(g, config["c_hat"], config["c"])
    eta_g = pair(g, config["eta_x"], config["eta_y"])

    def init(replicas: int, seed: int) -> FedSGDAPlusState:
        z0 = start(g.z0, replicas)
        return FedSGDAPlusState(z0, z0[:, :dx].copy())

    def step(state: FedSGDAPlusState, draws: Mapping[str, Any], t: int
             ) -> tuple[FedSGDAPlusState, np.ndarray]:
        z, x_tilde = state
        zQ = local_steps(g, np.repeat(z[:, None], N, 1), None, tau, s_l, draws.get("noise"),
                         x_snap=np.repeat(x_tilde[:, None], N, 1), batch=b, watch=watch)
        z_new = project_y(g, z + eta_g * (zQ.mean(1) - z))
        if (t + 1) % S == 0:  # k ← k + 1, x̃_k = x̄_{t+1}
            x_tilde = z_new[:, :dx].copy()
        return FedSGDAPlusState(z_new, x_tilde), np.ones(z.shape[0])

    run_local = fast_local_steps(g, tau, s_l, batch=b)

    def advance(state: FedSGDAPlusState, draws: Mapping[str, Any], t: int, scratch: dict
                ) -> tuple[FedSGDAPlusState, np.ndarray]:
        """``step`` with less work, the same numbers: the local steps of
        :func:`fast_local_steps` and the client mean of :func:`client_mean`."""
        z, x_tilde = state
        zQ = run_local(np.repeat(z[:, None], N, 1), None, draws.get("noise"), scratch,
                       x_snap=x_tilde[:, None], shared_start=True)
        z_new = project_y(g, z + eta_g * (client_mean(zQ) - z))
        if (t + 1) % S == 0:
            x_tilde = z_new[:, :dx].copy()
        ones = scratch.get("ones")
        if ones is None or ones.shape[0] != z.shape[0]:  # the flags, made once per run
            ones = scratch["ones"] = np.ones(z.shape[0])
        return FedSGDAPlusState(z_new, x_tilde), ones

    return Method(init, step, observe=server_observe(g),
                  streams={"noise": noise_draw(Q, N, d)} if g.noisy else {},
                  config=dict(config), samples_per_step=2 * b * Q,
                  **run_cost(g, 2 * N, Q, Q if g.noisy else 0, "Q"),
                  advance=None if watch is not None else advance)


def build_m(g: MinMaxGame, config: Mapping[str, Any]) -> Method[FedSGDAMState]:
    """FedSGDA-M (Algorithm 2); α = β = 1 is Local SGDA with steps ĉη, cη."""
    N, d = g.M, g.d
    Q, b, B = config["Q"], config["b"], config["B"]
    if not (config["alpha"] > 0 and config["beta"] > 0):
        raise BadInput("--set alpha",
                       "alpha and beta must be in (0, 1] (Section 3.2 [L224])")
    s = signed(g, config["c_hat"] * config["eta"], config["c"] * config["eta"])
    keep = 1.0 - pair(g, config["alpha"], config["beta"])

    def init(replicas: int, seed: int) -> FedSGDAMState:
        z_local = np.broadcast_to(g.z0, (replicas, N, d)).copy()
        # u^i_1, v^i_1 from a batch of size B (Algorithm 2, line 2 [L196])
        u = client_grad(g, z_local)
        if g.noisy:
            u = noisy_grad(g, u, np.random.default_rng([seed, 98]).standard_normal(u.shape), B)
        return FedSGDAMState(z_local.mean(1), z_local, u)

    def step(state: FedSGDAMState, draws: Mapping[str, Any], it: int
             ) -> tuple[FedSGDAMState, np.ndarray]:
        _, z, u = state
        sync = (it + 1) % Q == 0
        if sync:  # communication: z^i_t = z̄_{t−1} − s ū_t, u^i_t = ū_t
            z_new = np.repeat((z - s * u).mean(1, keepdims=True), N, 1)
            u = np.repeat(u.mean(1, keepdims=True), N, 1)
        else:
            z_new = z - s * u
        z_new = project_y(g, z_new)
        xi = draws.get("noise")
        g_new = noisy_grad(g, client_grad(g, z_new), xi, b)
        g_old = noisy_grad(g, client_grad(g, z), xi, b)  # same minibatch at z^i_{t−1}
        u = g_new + keep * (u - g_old)
        return FedSGDAMState(z_new.mean(1), z_new, u), np.full(z.shape[0], float(sync))

    grads = all_client_grads(g)
    scale = noise_scale(g, b)
    HT = common_hessian(g)
    HT_clients = None if HT is None else np.tile(HT, N)  # w ↦ (Hw + 0)_i for all N clients
    h_clients = np.ascontiguousarray(g.h, dtype=float)

    def constants(shape: tuple[int, ...], scratch: dict) -> dict[str, np.ndarray]:
        """The per-run constants at the state's full shape (R, N, d), made once per run."""
        if scratch.get("shape") != shape:
            scratch.clear()
            scratch.update(shape=shape, t=np.empty(shape), s=full_like_clients(s, shape),
                           keep=full_like_clients(keep, shape),
                           h=full_like_clients(g.h, shape).reshape(shape[0], -1))
            if scale is not None:
                scratch["scale"] = full_like_clients(scale, shape)
        return scratch

    def advance(state: FedSGDAMState, draws: Mapping[str, Any], it: int, scratch: dict
                ) -> tuple[FedSGDAMState, np.ndarray]:
        """``step`` with less work, the same numbers: ∇f_i(z^i_{t−1}) is the previous step's
        ∇f_i(z^i_t) (kept in ``scratch``), the noise ξ⊙sd is formed once for both points,
        constants are held at the state's shape, u is updated in place, and after a
        communication (all z^i equal) one (R, d) × (d, N·d) product gives every client's
        gradient (the same dgemm numbers as one product per client). Under additive noise the
        elementwise work around the gradient products is three fused kernels
        (:mod:`.minmax_kernels`, the same operations in the same order)."""
        _, z, u = state
        xi = draws.get("noise")
        if scale is not None and xi is not None:
            return advance_fused(z, u, xi, it, scratch)
        R = z.shape[0]
        c = constants(z.shape, scratch)
        sync = (it + 1) % Q == 0
        grad_old = c.get("grad") if c.get("at") is z else None
        if grad_old is None:
            grad_old = grads(z)
        if sync:
            w = project_y(g, client_mean(np.subtract(z, np.multiply(c["s"], u, out=c["t"]),
                                                     out=c["t"])))
            u = np.repeat(client_mean(u)[:, None], N, 1)
            z_new = np.repeat(w[:, None], N, 1)
            if HT is None:
                grad_new = grads(z_new)
            else:
                grad_new = np.matmul(w, HT_clients)
                grad_new = np.add(grad_new, c["h"], out=grad_new).reshape(z.shape)
        else:
            z_new = project_y(g, z - np.multiply(c["s"], u, out=c["t"]))
            grad_new = grads(z_new)
        c["at"], c["grad"] = z_new, grad_new
        g_new, g_old = noisy_grad(g, grad_new, xi, b), noisy_grad(g, grad_old, xi, b)
        u = g_new + c["keep"] * (u - g_old)
        return FedSGDAMState(client_mean(z_new), z_new, u), np.full(R, float(sync))

    def advance_fused(z: np.ndarray, u: np.ndarray, xi: np.ndarray, it: int, scratch: dict
                      ) -> tuple[FedSGDAMState, np.ndarray]:
        """:func:`advance` under additive noise: z and u (ours) are overwritten with z_t, u_t."""
        R = z.shape[0]
        c = scratch
        if c.get("fused") != z.shape:  # per run: the buffers of the means, the flags
            c.clear()
            c.update(fused=z.shape, w=np.empty((R, d)), u_mean=np.empty((R, d)),
                     flags=(np.zeros(R), np.ones(R)))
        sync = (it + 1) % Q == 0
        grad_old = c.get("grad") if c.get("at") is z else None
        if grad_old is None:
            grad_old = grads(z)
        z_mean = np.empty((R, d))
        communicated = c["flags"][int(sync)]
        if sync:
            w, u_mean = c["w"], c["u_mean"]
            storm_sync_means(z, u, s, w, u_mean)
            w = project_y(g, w)
            if HT is not None:  # every client at w: one w Hᵀ per replica, + h_i in the kernel
                storm_sync_update(w, u_mean, w @ HT, h_clients, xi, scale, keep, grad_old, z, u,
                                  z_mean)
                c["at"], c["grad"] = z, grad_old
                return FedSGDAMState(z_mean, z, u), communicated
            np.copyto(z, w[:, None])
            grad_new = grads(z)
            u_old = np.broadcast_to(u_mean[:, None], z.shape)
        else:
            storm_local_move(z, u, s)
            project_y(g, z)
            grad_new = grads(z)
            u_old = u
        c["at"], c["grad"] = z, grad_new
        storm_update(u_old, grad_old, grad_new, xi, scale, keep, z, u, z_mean)
        return FedSGDAMState(z_mean, z, u), communicated

    return Method(init, step, observe=server_observe(g),
                  streams={"noise": lambda rng, R: rng.standard_normal((R, N, d))}
                  if g.noisy else {},
                  config=dict(config), samples_per_step=2 * b,
                  **run_cost(g, 2 * N, 1, 3), advance=advance)


# ---- the encoded schedules, realized for a game ------------------------------------------------
_EXPANDED: dict[tuple[str, str], sp.Expr] = {}


def exact_schedule(thm: Theorem, names: Iterable[str], values: Mapping[str, Any]
                   ) -> dict[str, Fraction]:
    """The theorem's own schedule entries ``names`` at ``values`` (derived symbols expanded; the
    other schedule symbols are inputs, e.g. the realized integer Q), exact rationals when the
    inputs and the expression are rational (so ĉ = c/(9κ²) holds exactly), else the nearest
    float."""
    out = {}
    for name in names:
        key = (thm.id, name)
        if key not in _EXPANDED:
            _EXPANDED[key] = thm.expand(next(v for s, v in thm.schedule.items() if s.name == name))
        expr = _EXPANDED[key]
        val = expr.xreplace({s: sp.Rational(str(Fraction(values[s.name])))
                             for s in expr.free_symbols})
        out[name] = Fraction(int(val.p), int(val.q)) if val.is_Rational else Fraction(float(val))
    return out


def cor37_config(L_f: float, N: int, T: int) -> dict[str, Any]:
    """Corollary 3.7 [L179] from ``fedsgda.cor3.7``: Q = T^{1/3}/N and S = T^{1/3} rounded, then
    c = ĉ = 1/(10L_fQT^{1/3}), η_x = N/(10L_fTĉ), η_y = N/(10L_fT^{1/3}c) at the realized Q
    (exact, rounded once)."""
    cor = registry.get("fedsgda.cor3.7")
    v: dict[str, Any] = {"L_f": L_f, "N": N, "T": T}
    v.update({k: max(1, round(x)) for k, x in exact_schedule(cor, ("Q", "S"), v).items()})
    v.update(exact_schedule(cor, ("c", "c_hat"), v))
    v.update(exact_schedule(cor, ("eta_x", "eta_y"), v))
    return {**{k: float(v[k]) for k in ("c", "c_hat", "eta_x", "eta_y")}, "Q": v["Q"], "S": v["S"]}


def cor313_config(constants: Mapping[str, float], N: int, NT0: int, nu: float = 1.0,
                  reading: str = "R1") -> tuple[dict[str, Any], int]:
    """Corollary 3.13 [L249] from ``fedsgda.cor3.13.corrected``: b = κ^ν, Q = T_0^{1/3}/N^{2/3}
    (rounded, ≥ 1), B = T_0^{1/3}bκ^{1−ν}/N^{2/3} (≥ 1), T = κ^{3−ν}T_0 (rounded), T_0 = NT0/N;
    η, c, ĉ, α = c_1η², β = c_2η² from Theorem 3.12's schedule [L245] at the realized Q, reading R1
    (L = L_f, ``.corrected``) or R2 (printed, L = L_f(1 + κ)); exact, rounded once. Returns the
    configuration and T."""
    base = {"L_f": constants["L_f"], "mu": constants["mu"], "N": N, "nu": nu,
            "T_0": Fraction(NT0, N)}
    cor = registry.get("fedsgda.cor3.13.corrected")
    b = exact_schedule(cor, ("b",), base)["b"]
    sched = exact_schedule(cor, ("Q", "T", "B"), {**base, "b": b})
    Q = max(1, round(sched["Q"]))
    thm = registry.get("fedsgda.thm3.12" + (".corrected" if reading == "R1" else ""))
    st = exact_schedule(thm, ("eta", "c", "c_hat", "c_1", "c_2"), {**base, "Q": Q, "b": b})
    return ({"eta": float(st["eta"]), "c": float(st["c"]), "c_hat": float(st["c_hat"]),
             "alpha": float(st["c_1"] * st["eta"] ** 2), "beta": float(st["c_2"] * st["eta"] ** 2),
             "Q": Q, "b": float(b), "B": max(1.0, float(sched["B"]))}, round(sched["T"]))



FEDSGDA_PLUS = Algorithm(
    "fedsgda-plus", "fedsgda", "FedSGDA+: local SGDA+ with server steps (Alg. 1); --rounds = "
    "communication rounds", build_plus,
    {"c_hat": Param(0.01, "local x step ĉ", low=0), "c": Param(0.01, "local y step c", low=0),
     "eta_x": Param(1.0, "server step η_x", low=0), "eta_y": Param(1.0, "server step η_y", low=0),
     "Q": Param(1, "local steps per round", kind=int, low=1, high=10**6),
     "S": Param(1, "snapshot period (rounds)", kind=int, low=1, high=10**15),
     "b": Param(1.0, "minibatch size (divides the noise variance)", low=1, high=1e15)},
    MINMAX_PROBLEMS)
FEDSGDA_M = Algorithm(
    "fedsgda-m", "fedsgda", "FedSGDA-M: local STORM momentum (Alg. 2); --rounds = local "
    "iterations T", build_m,
    {"c_hat": Param(0.1, "x scale ĉ", low=0), "c": Param(0.1, "y scale c", low=0),
     "eta": Param(0.1, "step η", low=0),
     "alpha": Param(1.0, "momentum α in (0, 1] (1: none)", low=0, low_open=True, high=1),
     "beta": Param(1.0, "momentum β in (0, 1] (1: none)", low=0, low_open=True, high=1),
     "Q": Param(1, "communication period", kind=int, low=1, high=10**15),
     "b": Param(1.0, "minibatch (divides the noise variance)", low=1, high=1e15),
     "B": Param(1.0, "initial minibatch", low=1, high=1e15)},
    MINMAX_PROBLEMS)
