"""Exact analysis of Local SGDA and Fed-Norm-SGDA on quadratic games, for the claims
``fednorm.p*`` (verify/claims/fednorm.py).

* :func:`fixed_point_path` — the exact fixed point of the deterministic round (all n clients, no
  noise) for a sequence of client steps η^c (P1, P2, P4);
* :func:`pp_floor` — the exact stationary E‖z − z*‖² of Fed-Norm-SGDA under uniform sampling of
  P clients without replacement, from the exact second moment over all C(n, P) client sets (P9);
* :func:`thm1_inputs` — Theorem 1's scalar summaries of an instance (Theorem 1 [L167]), and
  :func:`thm1_steps` the step sizes ``engine.max_step`` allows (P20);
* :func:`pp_profile` and :func:`cor12_steps` read Theorem 1's partial-participation term and
  Corollary 1.2's schedule from the encoded theorems (P9, P11);
* for the claims of verify/claims/fednorm_more.py and fednorm_lemmas.py (issue 15):
  :func:`client_directions` and :func:`subset_aggregates` (the algorithm's aggregate for every
  client set, P7), :func:`noisy_affine_round` (:func:`noisy_affine_rounds`: every client set
  at once), :func:`moment_path` and
  :func:`stationary_moments` (exact means and second moments with sampling and additive noise,
  P12, P15), :func:`local_drift` (exact client drift, P14) and :func:`objective` (F̃).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np
import sympy as sp

from fedbounds import engine, registry
from fedbounds.complexity import schedule_values
from fedbounds.model import Theorem
from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Algorithm
from ..algorithms.fednorm import FEDNORM_SGDA, taus
from .minmax import affine_round, fixed_point, quad_expect, round_map, sampled_moments


def fixed_point_path(g: MinMaxGame, algorithm: Algorithm, etas: Iterable[float],
                     values: Mapping[str, Any]) -> np.ndarray:
    """Fixed points z(η) (one row per η) of the deterministic round of ``algorithm`` with
    η^c_x = η^c_y = η and the other parameters ``values``; an error if a round map does not
    contract."""
    out = []
    for eta in etas:
        method = algorithm.method(g, {**values, "eta_cx": eta, "eta_cy": eta})
        z, radius = fixed_point(round_map(method, g.M), g.d)
        if radius >= 1:
            raise ValueError(f"round map not contracting at eta={eta} (spectral radius "
                             f"{radius:.3g})")
        out.append(z)
    return np.array(out)


def pp_floor(g: MinMaxGame, gamma: float, P: int) -> float:
    """Exact stationary E‖z − z*‖² of Fed-Norm-SGDA (τ = 1, σ_L = 0, γ^s = η^c = γ) under
    uniform sampling of P clients without replacement (Section 4.2, eq. (3) [L149–L151])."""
    method = FEDNORM_SGDA.method(g, {"eta_cx": gamma, "eta_cy": gamma, "tau": 1, "P": P})
    mu, second, radius = sampled_moments(lambda Z, S: round_map(method, g.M, S)(Z), g.d, g.M, P)
    if radius >= 1:
        raise ValueError(f"second-moment recursion not contracting (ρ = {radius:.3g})")
    return quad_expect(np.eye(g.d), -g.z_star(), mu, second)


def pp_profile(n: int, Ps: Iterable[int]) -> np.ndarray:
    """Theorem 1's partial-participation term (App. B.2 [L656]) as a function of P relative to
    P = 1: (n − P)/(P(n − 1)) (proof of Lemma B.2, eqs. (18)–(19) [L773–L827]), read from the
    encoded theorem."""
    thm = registry.get("fednorm.thm1")
    term = next(thm.expand(t.expr) for t in thm.bound if t.name == "partial participation")
    symbols = {s.name: s for s in term.free_symbols}
    P = symbols["P"]
    ratio = sp.simplify(term / term.xreplace({P: 1}))
    profile = sp.lambdify([P, symbols["n"]], ratio, modules="math")
    return np.array([profile(P_, n) for P_ in Ps], dtype=float)


def delta_phi(g: MinMaxGame) -> float:
    """Δ_Φ = Φ(x_0) − Φ(x*) from the game's closed form (w = p)."""
    return float(g.phi(g.z0[: g.dx]) - g.phi(g.z_star()[: g.dx]))


def cor12_steps(g: MinMaxGame, tau: int, T: int, gamma_sy: float) -> dict[str, float]:
    """Corollary 1.2's schedule (Theorem 1, App. B.2 [L658–L660] with p_i = 1/n, τ_i = τ, P = n)
    at the game's constants: η^c_x = η^c_y = 1/(L_f τ √T) and γ^s_x = γ^s_y/(81κ²), here at the
    given γ^s_y (the schedule's Θ(·) constant of γ^s_y is the caller's)."""
    k = g.constants
    sched = schedule_values(registry.get("fednorm.cor1.2"), {
        "L_f": k["L_f"], "mu": k["mu"], "n": g.M, "P": g.M, "T": T, "tau": tau,
        "Delta_Phi": delta_phi(g), "sigma_L": k["sigma_L"], "sigma_G": k["sigma_G"],
        "beta_L": g.beta_L})
    return {"eta_cx": sched["eta_cx"], "eta_cy": sched["eta_cy"],
            "gamma_sx": gamma_sy * (sched["gamma_sx"] / sched["gamma_sy"]), "gamma_sy": gamma_sy}


def thm1_inputs(g: MinMaxGame, tau: np.ndarray, P: int) -> dict[str, Fraction]:
    """Theorem 1's scalar summaries (Theorem 1 [L167]), exact from the game and τ_i: SGDA local
    steps (a_i ≡ 1, ‖a_i‖₁ = ‖a_i‖₂² = τ_i), Fed-Norm weights w = p, σ_G, β_G = 1, σ_L, β_L exact
    by construction, Δ_Φ = Φ(x_0) − Φ(x*) from the closed form (w = p, so Φ̃ = Φ)."""
    t = np.asarray(tau, dtype=float)
    w, n = g.p, g.M
    teff = float(w @ t)
    k = g.constants
    vals = {"tau_eff": teff, "A_w": n * teff * float(np.sum(w**2 / t)),
            "B_w": n * teff * float(np.max(w / t)), "C_w": float(w @ (t - 1)),
            "D": float(np.max(g.beta_L**2 * (t - 1) + (t - 1) ** 2)), "E_w": n * float(w.max()),
            "a_l1_max": float(t.max()), "w_a_max": float(np.max(w / t)),
            "Delta_Phi": delta_phi(g), "L_f": k["L_f"], "mu": k["mu"], "sigma_G": k["sigma_G"],
            "beta_G": 1.0, "sigma_L": k["sigma_L"], "beta_L": g.beta_L}
    out = {name: Fraction(v) for name, v in vals.items()}
    out.update(n=Fraction(n), P=Fraction(P or n))
    return out


def thm1_steps(thm: Theorem, vals: dict[str, Fraction]
               ) -> tuple[dict[str, float], dict[str, str | None]]:
    """Step sizes from engine.max_step, one at a time: γ^s_y (γ^s_x, η^c tiny), then γ^s_x at
    γ^s_y, then η^c_y, then η^c_x (each the largest value with every condition holding)."""
    tiny = Fraction(1, 10**12)
    cur = {"gamma_sx": tiny, "eta_cx": tiny, "eta_cy": tiny}
    binding: dict[str, str | None] = {}
    for name in ("gamma_sy", "gamma_sx", "eta_cy", "eta_cx"):
        cur.pop(name, None)
        given = {kk: v for kk, v in {**vals, **cur}.items()
                 if kk in engine.compiled(thm).condition_inputs}
        ms = engine.max_step(thm, name, given)
        if ms.value is None:
            raise ValueError(f"{thm.id}: no feasible {name} ({ms.binding})")
        cur[name] = Fraction(ms.value)
        binding[name] = ms.binding
    return {kk: float(v) for kk, v in cur.items()}, binding


# ---- issue 15: exact machinery of the claims in verify/claims/fednorm_more.py and
# fednorm_lemmas.py (sampled aggregates, noisy affine rounds, exact client drift) ---------------


def objective(g: MinMaxGame, x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None
              ) -> np.ndarray:
    """F̃(x, y) = Σ_i w_i f_i(x, y) (w = p by default; the cosine term included), rows of x
    (..., dx) and y (..., dy)."""
    A, B, C, b, c = g.mean_blocks(w)
    out = (0.5 * np.einsum("...i,ij,...j->...", x, A, x) + np.einsum("...i,ij,...j->...", x, B, y)
           - 0.5 * np.einsum("...i,ij,...j->...", y, C, y) + x @ b - y @ c)
    return out + g.lam * np.cos(x).sum(-1) if g.lam else out


def client_directions(g: MinMaxGame, algorithm: Algorithm, values: Mapping[str, Any],
                      z: np.ndarray) -> np.ndarray:
    """The normalized client directions g_i (M, d) of one deterministic Fed-Norm round from the
    server model z, read off the algorithm's own round with the single client set {i} (P = 1:
    the server step is τ_eff γ^s ⊙ w̃_i g_i with w̃_i = n p_i; Algorithm 1, lines 10–14)."""
    method = algorithm.method(g, {**values, "P": 1})
    srv = _server_scale(g, method)
    out = np.empty((g.M, g.d))
    for i in range(g.M):
        out[i] = (z - round_map(method, g.M, np.array([i]))(z[None])[0]) / srv / (g.M * g.p[i])
    return out


def _server_scale(g: MinMaxGame, method: Any) -> np.ndarray:
    """τ_eff (γ^s_x, …, −γ^s_y, …): z' = z − scale ⊙ Σ_{i∈C} w̃_i g_i (Algorithm 1, line 14)."""
    c = method.config
    return c["tau_eff"] * np.concatenate([np.full(g.dx, float(c["gamma_sx"])),
                                          np.full(g.dy, -float(c["gamma_sy"]))])


def subset_aggregates(g: MinMaxGame, algorithm: Algorithm, values: Mapping[str, Any],
                      z: np.ndarray, P: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every client set C of size P (uniform without replacement: each with probability
    1/C(n, P)) and the server aggregate Σ_{i∈C} w̃_i g_i (rows) of the algorithm's round from z
    with that set (eq. (3) [L149–L151])."""
    method = algorithm.method(g, {**values, "P": P})
    srv = _server_scale(g, method)
    subsets = list(combinations(range(g.M), P))
    rows = [(z - round_map(method, g.M, np.array(S))(z[None])[0]) / srv for S in subsets]
    return subsets, np.array(rows)


def noisy_affine_round(method: Any, g: MinMaxGame, S: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """z' = Az + c + Nξ of one round with client set S (default all) and standard normal draws ξ
    (every local step of every sampled slot), recovered from the round at d + 1 points and at
    unit draws; additive noise only (β_L = 0: the round is affine in (z, ξ))."""
    if g.beta_L:
        raise ValueError("noisy_affine_round needs additive noise (beta_L = 0)")
    M, d = g.M, g.d
    m = M if S is None else len(S)
    K = int(np.max(taus(g, method.config)))

    def run(Z: np.ndarray, xi: np.ndarray) -> np.ndarray:
        u = np.ones((Z.shape[0], M))
        u[:, np.arange(M) if S is None else S] = 0.0
        state = method.init(Z.shape[0], 0)._replace(z=Z.copy())
        return method.step(state, {"clients": u, "noise": xi}, 0)[0].z

    A, c = affine_round(lambda Z: run(Z, np.zeros((Z.shape[0], K, m, d))), d)
    units = np.eye(K * m * d).reshape(K * m * d, K, m, d)
    N = (run(np.zeros((K * m * d, d)), units) - c).T if g.noisy else np.zeros((d, 0))
    return A, c, N


def noisy_affine_rounds(method: Any, g: MinMaxGame, P: int
                        ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`noisy_affine_round` for every client set of size P (in the order of
    ``itertools.combinations``), the same numbers: the rounds of all sets run as the replicas
    of one ``step`` call (each replica's round is computed on its own rows: its set's d + 1
    points, then its unit draws), instead of two calls per set."""
    if g.beta_L:
        raise ValueError("noisy_affine_round needs additive noise (beta_L = 0)")
    M, d = g.M, g.d
    sets = np.array(list(combinations(range(M), P)), dtype=int).reshape(-1, P)
    count = sets.shape[0]
    K = int(np.max(taus(g, method.config)))
    units = K * P * d if g.noisy else 0

    def run(Z: np.ndarray, xi: np.ndarray, rows: int) -> np.ndarray:
        u = np.ones((count, rows, M))
        np.put_along_axis(u, np.broadcast_to(sets[:, None, :], (count, rows, P)), 0.0, axis=2)
        state = method.init(Z.shape[0], 0)._replace(z=Z.copy())
        return method.step(state, {"clients": u.reshape(-1, M), "noise": xi}, 0)[0].z

    points = np.tile(np.vstack([np.zeros(d), np.eye(d)]), (count, 1))
    out = run(points, np.zeros((count * (d + 1), K, P, d)), d + 1).reshape(count, d + 1, d)
    if units:
        draws = np.tile(np.eye(units).reshape(units, K, P, d), (count, 1, 1, 1))
        noisy = run(np.zeros((count * units, d)), draws, units).reshape(count, units, d)
    maps = []
    for k in range(count):
        c = out[k, 0]
        N = (noisy[k] - c).T if units else np.zeros((d, 0))
        maps.append(((out[k, 1:] - c).T, c, N))
    return maps


def moment_path(method: Any, g: MinMaxGame, P: int, z0: np.ndarray, rounds: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Exact means (rounds + 1, d) and second moments E[zzᵀ] (rounds + 1, d, d) of the server
    model from z0 under uniform sampling of P clients without replacement (all C(n, P) sets
    enumerated) and additive noise (:func:`noisy_affine_round`)."""
    maps = noisy_affine_rounds(method, g, P)
    m, X = z0.astype(float).copy(), np.outer(z0, z0)
    means, seconds = [m.copy()], [X.copy()]
    for _ in range(rounds):
        m_new, X_new = np.zeros_like(m), np.zeros_like(X)
        for A, c, N in maps:
            Am = A @ m
            m_new += Am + c
            X_new += A @ X @ A.T + np.outer(Am, c) + np.outer(c, Am) + np.outer(c, c) + N @ N.T
        m, X = m_new / len(maps), X_new / len(maps)
        means.append(m.copy())
        seconds.append(0.5 * (X + X.T))
    return np.array(means), np.array(seconds)


def stationary_moments(method: Any, g: MinMaxGame, P: int
                       ) -> tuple[np.ndarray, np.ndarray, float]:
    """Exact stationary mean and second moment E[zzᵀ] of the server model under uniform WOR
    sampling of P clients and additive noise, and the spectral radius of the second-moment
    recursion (an error unless it is below 1)."""
    d = g.d
    maps = noisy_affine_rounds(method, g, P)
    EA = np.mean([A for A, _, _ in maps], axis=0)
    Ec = np.mean([c for _, c, _ in maps], axis=0)
    mu = np.linalg.solve(np.eye(d) - EA, Ec)
    EAA = np.mean([np.kron(A, A) for A, _, _ in maps], axis=0)
    rhs = np.mean([np.outer(A @ mu, c) + np.outer(c, A @ mu) + np.outer(c, c) + N @ N.T
                   for A, c, N in maps], axis=0)
    radius = float(max(abs(np.linalg.eigvals(EAA))))
    if radius >= 1:
        raise ValueError(f"second-moment recursion not contracting (radius {radius:.3g})")
    X = np.linalg.solve(np.eye(d * d) - EAA, rhs.reshape(-1)).reshape(d, d)
    return mu, 0.5 * (X + X.T), radius


def local_drift(g: MinMaxGame, z: np.ndarray, tau: np.ndarray, eta_x: float, eta_y: float
                ) -> list[np.ndarray]:
    """Exact client drift Δ^{(t,k)}(i) = E‖z_i^{(t,k)} − z^{(t)}‖², k = 0..τ_i − 1, of τ_i local
    SGDA steps (a ≡ 1) of every client from z (one array per client), by propagating the mean
    and covariance of the local iterate: the step is affine in the iterate and the game's noise
    has covariance diag(σ_x²/dx, …, σ_y²/dy, …) + β_L²‖∇f_i‖²/d · I (exact for β_L ≥ 0)."""
    s = np.concatenate([np.full(g.dx, float(eta_x)), np.full(g.dy, -float(eta_y))])
    Sd = np.diag(s)
    cv = g.coord_var()
    out = []
    for i in range(g.M):
        H, h = g.H[i], g.h[i]
        step = np.eye(g.d) - Sd @ H
        m, cov = z.astype(float).copy(), np.zeros((g.d, g.d))
        drift = []
        for _ in range(int(tau[i])):
            drift.append(float(np.sum((m - z) ** 2) + np.trace(cov)))
            grad_sq = float(np.trace(H @ cov @ H.T) + np.sum((H @ m + h) ** 2))
            noise = np.diag(cv) + g.beta_L**2 * grad_sq / g.d * np.eye(g.d)
            m = step @ m - s * h
            cov = step @ cov @ step.T + Sd @ noise @ Sd
        out.append(np.array(drift))
    return out
