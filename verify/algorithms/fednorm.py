"""Local SGDA(+) and Fed-Norm-SGDA(+) (Sections 4.1–4.2 and Algorithm 1 of the paper
[L121–L143]).

A round: the server samples P of n clients uniformly without replacement (P = n: full
participation); client i runs τ_i local steps of (momentum) SGDA with client steps η^c_x, η^c_y
(SGDA+: ∇_y at the snapshot x̂ = x^{(sS)}, refreshed every S rounds). Then

* Local SGDA(+) (naive iterate averaging, Section 4.1 [L129]): z ← z + Σ_{i∈C} w̃_i (z_i^{τ_i} − z),
  w̃_i = p_i n/P (= Σ_i p_i z_i^{τ_i} at P = n);
* Fed-Norm-SGDA(+) (Algorithm 1): each client sends its normalized direction g_i = G_i a_i/‖a_i‖_1,
  the server steps z ← z − τ_eff (γ^s_x, −γ^s_y) ⊙ Σ_{i∈C} w̃_i g_i with w = p and
  τ_eff = Σ_j p_j ‖a_j‖_1 (Algorithm 1, lines 14–20; eq. (3)).

Heavy-ball local momentum ρ (buffer reset per round) has
‖a_i‖_1 = (τ_i − ρ(1 − ρ^{τ_i})/(1 − ρ))/(1 − ρ) (Appendix A.1 [L547–L555]). The four variants are
one :func:`build_fednorm` with ``normalized`` and ``plus`` bound by :func:`functools.partial`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from fedbounds.errors import BadInput
from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Algorithm, Method, Param
from ..minmax import (
    MINMAX_PROBLEMS,
    as_taus,
    client_draw,
    fast_local_steps,
    local_steps,
    noise_draw,
    project_y,
    run_cost,
    sampled,
    sampled_in_run,
    server_observe,
    signed,
)
from .fednorm_kernels import fednorm_round, fednorm_rounds


class FedNormState(NamedTuple):
    """Local SGDA / Fed-Norm-SGDA: the server model z (replicas, d)."""

    z: np.ndarray


class FedNormPlusState(NamedTuple):
    """The + variants: server model z (replicas, d) and the snapshot x̂ (replicas, dx) at which
    the clients take ∇_y (refreshed every S rounds; Algorithm 1, lines 4–6)."""

    z: np.ndarray
    x_hat: np.ndarray


def a_l1(tau: np.ndarray, rho: float) -> np.ndarray:
    """‖a_i‖_1 of τ_i local steps with heavy-ball factor ρ (Appendix A.1 [L555])."""
    tau = np.asarray(tau, dtype=float)
    if rho == 0:
        return tau
    return (tau - rho * (1 - rho**tau) / (1 - rho)) / (1 - rho)


def taus(g: MinMaxGame, c: Mapping[str, Any]) -> np.ndarray:
    """τ_i: ``tau`` (scalar or per-client sequence), or linearly spaced tau..tau_max
    (``tau_max`` 0, the declared "equal" value, or missing: every τ_i = tau; a ``tau_max``
    below ``tau`` is refused, not ignored)."""
    tau_max = c.get("tau_max", 0)
    if np.ndim(c["tau"]) == 0 and tau_max:
        if tau_max < c["tau"]:
            raise BadInput("--set tau_max", f"tau_max = {tau_max} must be >= tau = {c['tau']} "
                           "(or 0: equal local steps)")
        return as_taus(np.round(np.linspace(c["tau"], tau_max, g.M)), g.M)
    return as_taus(c["tau"], g.M)


def implicit_weights(g: MinMaxGame, tau: np.ndarray, rho: float = 0.0) -> np.ndarray:
    """Naive-aggregation weights w_i = p_i‖a_i‖_1 / Σ_j p_j‖a_j‖_1 (the w_i of eq. (2) [L133]);
    Local SGDA: w_i ∝ p_iτ_i."""
    a = g.p * a_l1(tau, rho)
    return a / a.sum()


def build_fednorm(g: MinMaxGame, config: Mapping[str, Any], *, normalized: bool = True,
                  plus: bool = False) -> Method[FedNormState | FedNormPlusState]:
    """Fed-Norm-SGDA(+) (``normalized``) or Local SGDA(+) bound to a game (Algorithm 1;
    Section 4.1)."""
    c = dict(config)
    M, dx = g.M, g.dx
    tau = taus(g, c)
    P = M if c["P"] == 0 else int(c["P"])  # declared: P = 0 samples all n clients
    if not 1 <= P <= M:
        raise BadInput("--set P", f"P = {P} must be in 1..n = {M} (or 0: all n)")
    rho = float(c["rho"])
    if not 0 <= rho < 1:
        raise BadInput("--set rho", f"rho = {rho} must be in [0, 1)")
    S = int(c["S"])
    s_l = signed(g, c["eta_cx"], c["eta_cy"])
    a1 = a_l1(tau, rho)
    tau_eff = float(g.p @ a1)
    gx = c["eta_cx"] if c["gamma_sx"] is None else c["gamma_sx"]
    gy = c["eta_cy"] if c["gamma_sy"] is None else c["gamma_sy"]
    srv = tau_eff * signed(g, gx, gy)
    wt = g.p * M / P  # w̃_i = w_i n/P with w = p
    streams: dict[str, Any] = {"clients": client_draw(M)}
    if g.noisy:
        streams["noise"] = noise_draw(int(tau.max()), P, g.d)  # per sampled slot

    def init(replicas: int, seed: int) -> FedNormState | FedNormPlusState:
        z0 = np.broadcast_to(g.z0, (replicas, g.d)).copy()
        return FedNormPlusState(z0, z0[:, :dx].copy()) if plus else FedNormState(z0)

    def step(st: FedNormState | FedNormPlusState, dr: Mapping[str, Any], t: int
             ) -> tuple[FedNormState | FedNormPlusState, np.ndarray]:
        z = st.z
        x_hat = None
        if plus:
            x_hat = z[:, :dx].copy() if t % S == 0 else st.x_hat
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
        new = FedNormPlusState(z_new, x_hat) if plus else FedNormState(z_new)
        return new, np.ones(z.shape[0])

    run_local = fast_local_steps(g, tau, s_l, rho=rho)
    fused = fused_constants(g, tau, s_l, rho, a1, wt, srv, normalized, plus)
    no_noise, no_snapshot = np.zeros((0, 0, 0, 0)), np.zeros((0, 0))

    def advance_fused(st: FedNormState | FedNormPlusState, dr: Mapping[str, Any], t: int,
                      scratch: dict) -> tuple[FedNormState | FedNormPlusState, np.ndarray]:
        """``step`` as one compiled round (:func:`.fednorm_kernels.fednorm_round`), the
        server model updated in place."""
        z = st.z
        work = scratch.get("fused")
        if work is None or work.shape[2] != z.shape[0]:
            work = scratch["fused"] = np.empty((6, g.d, z.shape[0]))
            scratch["communicated"] = np.ones(z.shape[0])
        idx = sampled_in_run(dr["clients"], P, scratch)
        noise = dr["noise"] if g.noisy else no_noise
        if plus:
            x_hat = z[:, :dx].copy() if t % S == 0 else st.x_hat
            fednorm_round(z, idx, noise, x_hat, *fused, work)
            return FedNormPlusState(z, x_hat), scratch["communicated"]
        fednorm_round(z, idx, noise, no_snapshot, *fused, work)
        return FedNormState(z), scratch["communicated"]

    no_noise_block = np.zeros((1, 0, 0, 0, 0))

    def advance_fused_steps(st: FedNormState | FedNormPlusState, dr: Mapping[str, list],
                            t: int, steps: int, scratch: dict
                            ) -> tuple[FedNormState | FedNormPlusState, np.ndarray]:
        """``steps`` rounds t, t + 1, … in one compiled call
        (:func:`.fednorm_kernels.fednorm_rounds`): each round's index set and draws as
        ``advance_fused`` takes them (:func:`sampled` on each round's own draws; all clients in
        order at P = n), the server model and the snapshot updated in place."""
        z = st.z
        R = z.shape[0]
        work = scratch.get("fused")
        if work is None or work.shape[2] != R:
            work = scratch["fused"] = np.empty((6, g.d, R))
            scratch["communicated"] = np.ones(R)
        if P == M:
            idx = scratch.get(("every", steps))
            if idx is None or idx.shape[1] != R:
                idx = scratch[("every", steps)] = np.broadcast_to(
                    np.arange(M), (steps, R, M)).copy()
        else:
            idx = sampled(np.concatenate(dr["clients"]), P).reshape(steps, R, P)
        noise = np.stack(dr["noise"]) if g.noisy else no_noise_block
        x_hat = st.x_hat.copy() if plus else no_snapshot
        fednorm_rounds(z, idx, noise, x_hat, t, S, *fused, work)
        new = FedNormPlusState(z, x_hat) if plus else FedNormState(z)
        return new, np.full(R, float(steps))

    def advance(st: FedNormState | FedNormPlusState, dr: Mapping[str, Any], t: int,
                scratch: dict) -> tuple[FedNormState | FedNormPlusState, np.ndarray]:
        """``step`` with less work, the same numbers: the local steps of
        :func:`fast_local_steps`, sums over clients by einsum (the same sequential sum) and,
        at P = n, the index set of all clients made once."""
        z = st.z
        R = z.shape[0]
        x_hat = None
        if plus:
            x_hat = z[:, :dx].copy() if t % S == 0 else st.x_hat
        idx = sampled_in_run(dr["clients"], P, scratch)
        zt = np.repeat(z[:, None], P, 1)
        zK = run_local(zt, idx, dr.get("noise"), scratch,
                       x_snap=None if x_hat is None else x_hat[:, None], shared_start=True)
        w = wt[idx][..., None]
        if normalized:
            gi = (zt - zK) / (s_l * a1[idx][..., None])
            z_new = z - srv * np.einsum("rmi->ri", w * gi)
        else:
            z_new = z + np.einsum("rmi->ri", w * (zK - zt))
        z_new = project_y(g, z_new)
        new = FedNormPlusState(z_new, x_hat) if plus else FedNormState(z_new)
        return new, np.ones(R)

    resolved = {**c, "gamma_sx": gx, "gamma_sy": gy, "P": P, "tau_eff": tau_eff}
    return Method(init, step, observe=server_observe(g), streams=streams, config=resolved,
                  advance=advance if fused is None else advance_fused,
                  advance_steps=None if fused is None else advance_fused_steps,
                  samples_per_step=float(tau.mean()),
                  **run_cost(g, P, int(tau.max()), int(tau.max()) if g.noisy else 0,
                             "tau_max" if c.get("tau_max") else "tau"))


def fused_constants(g: MinMaxGame, tau: np.ndarray, s_l: np.ndarray, rho: float,
                    a1: np.ndarray, wt: np.ndarray, srv: np.ndarray, normalized: bool,
                    plus: bool) -> tuple[np.ndarray, ...] | None:
    """The constants of :func:`.fednorm_kernels.fednorm_round` for :func:`build_fednorm`'s
    round, packed once: (H, h, flags, reals, vectors, clients); None when the noise scale
    depends on the gradient (β_L > 0: the numpy round stays)."""
    if g.noisy and g.beta_L:
        return None
    # own writable copies: every game gives the kernel the same argument types (one compiled
    # signature; a game's cached H, h may be read-only)
    H, h = np.array(g.H, dtype=float, order="C"), np.array(g.h, dtype=float, order="C")
    scale = np.sqrt(g.coord_var()) if g.noisy else np.zeros(g.d)
    flags = np.array([int(tau.max()), bool(np.any(tau != tau.max())), g.noisy, g.dx, plus,
                      normalized], dtype=np.int64)
    reals = np.array([rho, g.lam, -1.0 if g.radius is None else g.radius], dtype=float)
    vectors = np.array([s_l, scale, srv], dtype=float)
    clients = np.array([a1, wt, tau], dtype=float)
    return H, h, flags, reals, vectors, clients


PARAMS = {
    "eta_cx": Param(0.01, "client step η^c_x", low=0),
    "eta_cy": Param(0.01, "client step η^c_y", low=0),
    "gamma_sx": Param(None, "server step γ^s_x (Fed-Norm; default η^c_x: App. A.1)", low=0),
    "gamma_sy": Param(None, "server step γ^s_y (Fed-Norm; default η^c_y: App. A.1)", low=0),
    "tau": Param(1, "local steps τ (all clients)", kind=int, low=1, high=10**6),
    "tau_max": Param(0, "heterogeneous τ_i linearly spaced tau..tau_max (0: equal)", kind=int,
                     low=0, high=10**6),
    "rho": Param(0.0, "local heavy-ball momentum ρ in [0, 1)", low=0, high=1, high_open=True),
    "P": Param(0, "clients sampled per round (0: all n)", kind=int, low=0, high=100_000),
    "S": Param(1, "snapshot period of the + variants", kind=int, low=1, high=10**15)}

LOCAL_SGDA = Algorithm("local-sgda", "fednorm",
                       "Local SGDA: iterate averaging with weights p (Section 4.1)",
                       partial(build_fednorm, normalized=False), PARAMS, MINMAX_PROBLEMS)
LOCAL_SGDA_PLUS = Algorithm("local-sgda-plus", "fednorm",
                            "Local SGDA+: y-gradients at a snapshot x̂ (Section 5.2)",
                            partial(build_fednorm, normalized=False, plus=True), PARAMS, MINMAX_PROBLEMS)
FEDNORM_SGDA = Algorithm("fednorm-sgda", "fednorm",
                         "Fed-Norm-SGDA: normalized client updates (Alg. 1)", build_fednorm,
                         PARAMS, MINMAX_PROBLEMS)
FEDNORM_SGDA_PLUS = Algorithm("fednorm-sgda-plus", "fednorm",
                              "Fed-Norm-SGDA+: normalized, snapshot x̂ (Alg. 1)",
                              partial(build_fednorm, plus=True), PARAMS, MINMAX_PROBLEMS)

