"""Exact machinery of the FedSGDA-M claims fedsgda.p3 and fedsgda.p8–p11.

On a game with common Hessians and additive noise (SC-CH, N-add) the averaged FedSGDA-M iterates are
those of one client with batch N·b (claim fedsgda.p1, exact: :func:`averaged_method`), and one
FedSGDA-M step is an affine map of w = (z, u) plus injected noise, w' = A w + c + E ξ (ξ ~ N(0, I)),
read off the algorithm's own step (:func:`storm_map`). The first and second moments of w then evolve
linearly, so the average over t < T of E‖∇Φ(x̄_t)‖² is a linear functional of a matrix power
(:func:`storm_exact_avg`, any T, no sampling) and the stationary floor solves a discrete Lyapunov
equation (:func:`storm_floor`). On heterogeneous games the noise-free floor is the fixed point of
the Q-step block map (:func:`periodic_floor`). :func:`thm312_realized` evaluates Theorem 3.12
exactly (rational arithmetic) at the parameters a run realizes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from fedbounds import engine, registry
from fedbounds.problems.fedsgda import one_client, pl_gaps
from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Method, simulate
from ..algorithms.fedsgda import FEDSGDA_M, FedSGDAMState, exact_schedule
from ..minmax import client_grad, server_observe
from .minmax import affine_round, grad_phi_affine


# ---- the averaged STORM step (common Hessians, additive noise) ---------------------------------
def averaged_method(g: MinMaxGame, config: Mapping[str, Any]) -> tuple[MinMaxGame, Method]:
    """FedSGDA-M on N identical clients ≡ one client with batches N·b and N·B (claim
    fedsgda.p1): the single-client game and its method (Q = 1)."""
    N = g.M
    return one_client(g), FEDSGDA_M.method(one_client(g), {
        **config, "b": config["b"] * N, "B": config["B"] * N, "Q": 1})


def storm_map(method: Method[FedSGDAMState], d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, c, E) with w' = A w + c + E ξ for one step of a single-client FedSGDA-M method,
    w = (z, u) ∈ R^{2d}, evaluated on basis states."""
    n = 2 * d

    def step(W: np.ndarray, xi: np.ndarray) -> np.ndarray:
        z = W[:, None, :d].copy()
        new, _ = method.step(FedSGDAMState(z.mean(1), z, W[:, None, d:].copy()),
                             {"noise": xi[:, None, :]}, 0)
        return np.concatenate([new.z_local[:, 0], new.u[:, 0]], axis=1)

    A, c = affine_round(lambda W: step(W, np.zeros((W.shape[0], d))), n)
    E = (step(np.zeros((d, n)), np.eye(d)) - c).T
    return A, c, E


def _phi_functional(g1: MinMaxGame, n: int) -> np.ndarray:
    """Ĝ with ∇Φ(x) = Ĝ (z, u, 1) (λ = 0)."""
    G, g0 = grad_phi_affine(g1)
    Gh = np.zeros((g1.dx, n + 1))
    Gh[:, : g1.d] = G
    Gh[:, n] = g0
    return Gh


def storm_exact_avg(g1: MinMaxGame, method: Method[FedSGDAMState], T: int) -> float:
    """Exact (1/T) Σ_{t<T} E‖∇Φ(x̄_t)‖² of a single-client FedSGDA-M method on g1 (initial batch
    ``method.config["B"]``): second moments of (w, 1) by a block matrix power."""
    d, n = g1.d, 2 * g1.d
    A, c0, E = storm_map(method, d)
    m = n + 1
    At = np.zeros((m, m))
    At[:n, :n], At[:n, n], At[n, n] = A, c0, 1.0
    Et = np.zeros((m, d))
    Et[:n] = E
    k = m * m
    Kp = np.zeros((k + 1, k + 1))
    Kp[:k, :k] = np.kron(At, At)
    Kp[:k, k] = (Et @ Et.T).reshape(-1)
    Kp[k, k] = 1.0
    big = np.zeros((2 * (k + 1), 2 * (k + 1)))
    big[: k + 1, : k + 1] = Kp
    big[k + 1:, : k + 1] = np.eye(k + 1)
    big[k + 1:, k + 1:] = np.eye(k + 1)
    z0 = g1.z0
    w0 = np.concatenate([z0, g1.H[0] @ z0 + g1.h[0], [1.0]])
    P0 = np.outer(w0, w0)
    if g1.noisy:
        P0[d:n, d:n] += np.diag(g1.coord_var() / float(method.config["B"]))
    q0 = np.concatenate([P0.reshape(-1), [1.0], np.zeros(k + 1)])
    s = (np.linalg.matrix_power(big, int(T)) @ q0)[k + 1: k + 1 + k].reshape(m, m)
    Gh = _phi_functional(g1, n)
    return float(np.trace(Gh @ s @ Gh.T)) / T


def storm_floor(g1: MinMaxGame, method: Method[FedSGDAMState]) -> tuple[float, float]:
    """Exact stationary E‖∇Φ(x̄)‖² of a single-client FedSGDA-M method on g1 and the spectral
    radius of its map."""
    from scipy.linalg import solve_discrete_lyapunov

    n = 2 * g1.d
    A, c0, E = storm_map(method, g1.d)
    rho = float(max(abs(np.linalg.eigvals(A))))
    mean = np.linalg.solve(np.eye(n) - A, c0)
    Sig = solve_discrete_lyapunov(A, E @ E.T)
    Gh = _phi_functional(g1, n)
    gm = Gh @ np.concatenate([mean, [1.0]])
    return float(np.trace(Gh[:, :n] @ Sig @ Gh[:, :n].T) + gm @ gm), rho


# ---- heterogeneous clients: the noise-free periodic orbit --------------------------------------
def periodic_floor(g: MinMaxGame, method: Method[FedSGDAMState]) -> tuple[float, float, float]:
    """Noise-free FedSGDA-M on all N clients: fixed point of the Q-step (one communication block)
    affine map of w = (z^i, u^i)_i; returns the average of ‖∇Φ(x̄_t)‖² over the periodic orbit
    (the ζ-floor: with additive noise, E‖∇Φ‖² = this + an offset-free covariance part), the
    spectral radius, and ζ² = Σ p_i‖∇f_i(z̄) − ∇F(z̄)‖² at the orbit's start."""
    if method.streams:
        raise ValueError("periodic_floor needs a noise-free game")
    N, d, Q = g.M, g.d, method.config["Q"]
    n = 2 * N * d

    def state(W: np.ndarray) -> FedSGDAMState:
        z = W[:, : N * d].reshape(-1, N, d).copy()
        return FedSGDAMState(z.mean(1), z, W[:, N * d:].reshape(-1, N, d).copy())

    def block(W: np.ndarray) -> np.ndarray:
        end = simulate(method, Q, replicas=W.shape[0], state=state(W), observe={}).state
        return np.concatenate([end.z_local.reshape(len(W), -1), end.u.reshape(len(W), -1)], 1)

    A, c = affine_round(block, n)
    Ia = np.eye(n) - A
    w = np.linalg.solve(Ia, c)
    w = w + np.linalg.solve(Ia, c - Ia @ w)  # one step of iterative refinement
    orbit = state(w[None])
    tr = simulate(method, Q, state=orbit, observe=server_observe(g))
    floor = float(np.mean(tr.metrics["grad_phi_sq"][:-1, 0]))
    gi = client_grad(g, np.broadcast_to(orbit.z[0], (1, N, d)).copy())[0]
    zeta_sq = float(g.p @ np.sum((gi - g.p @ gi) ** 2, axis=1))
    return floor, float(max(abs(np.linalg.eigvals(A)))), zeta_sq


# ---- Theorem 3.12 at the realized parameters (exact) -------------------------------------------
def thm312_realized(g: MinMaxGame, reading: str, NT0: int, nu: int = 0) -> dict[str, Any]:
    """Realized parameters of one Theorem 3.12 run: b, T, Q, B from the Cor. 3.13 schedule
    (rounded to integers), c, ĉ, c_1, c_2 from the Thm 3.12 schedule (R1: ``.corrected``, L = L_f;
    R2: printed), η = engine.max_step(thm, "eta"), the exact problem inputs Δ, Δ_y, σ, ζ, L_f, μ,
    and the bound (engine.bound) at them."""
    thm_id = "fedsgda.thm3.12.corrected" if reading == "R1" else "fedsgda.thm3.12"
    thm, cor = registry.get(thm_id), registry.get("fedsgda.cor3.13.corrected")
    k, N = g.constants, g.M
    base: dict[str, Any] = {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "N": N, "nu": nu,
                            "T_0": Fraction(NT0, N)}
    b = round(exact_schedule(cor, ["b"], base)["b"])
    sched = exact_schedule(cor, ["Q", "T", "B"], {**base, "b": b})
    Q, T, Bm = max(1, round(sched["Q"])), round(sched["T"]), max(1, math.ceil(sched["B"]))
    steps = exact_schedule(thm, ("c", "c_hat", "c_1", "c_2"), {**base, "b": b, "Q": Q})
    vals = {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "N": Fraction(N),
            "Q": Fraction(Q), "b": Fraction(b), **steps}
    ms = engine.max_step(thm, "eta", vals)
    if ms.value is None:
        raise ValueError(f"{thm_id}: no feasible eta ({ms.binding})")
    eta = ms.value
    Delta, Delta_y = pl_gaps(g)
    inputs = {**vals, "eta": Fraction(eta), "T": Fraction(T), "B": Fraction(Bm),
              "Delta": Fraction(Delta), "Delta_y": Fraction(Delta_y),
              "sigma": Fraction(k["sigma"]), "zeta": Fraction(k["zeta"])}
    st = {n: float(v) for n, v in steps.items()}
    cfg = {"c_hat": st["c_hat"], "c": st["c"], "eta": eta, "alpha": st["c_1"] * eta**2,
           "beta": st["c_2"] * eta**2, "Q": Q, "b": b, "B": Bm}
    return {"theorem": thm_id, "cfg": cfg, "T": T, "bound": engine.bound(thm, inputs),
            "eta_binding": ms.binding, "Delta": Delta, "Delta_y": Delta_y}
