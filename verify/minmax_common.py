"""Shared machinery of the federated min-max algorithms (SAGDA, Fed-Norm-SGDA, FedSGDA+/M) on
:class:`problems.minmax.MinMaxGame`.

DESIGN "executor": state arrays shaped (replicas, clients, dim), one vectorized step per round for
all clients and replicas, randomness from named streams of :func:`verify.executor.execute`.

* ``clients`` — uniform draws (R, M); the m sampled clients of each replica are the m smallest
  (argsort), i.e. uniform sampling without replacement (sagda.md L123; fed_norm_sgda.md (3)). The
  draw is made for every M and m so runs with different m share the other streams.
* ``noise`` — standard normals (R, K, m, d), one per local step and *sampled slot* (the j-th sampled
  client in index order; at m = M slot j is client j), shared by algorithms with the same stream
  names and m; scaled by the game's noise model in :func:`noisy_grad`. :func:`local_steps` also
  accepts per-client draws (R, K, M, d) and gathers them.

Signed local steps: a descent–ascent step is z ← z − s ⊙ g with s = (η_x, …, −η_y, …), g the joint
gradient (∇_x f, ∇_y f).

Exact machinery for affine rounds: :func:`affine_round` recovers z ↦ Az + c of a deterministic
round map by evaluating it at d + 1 points (as replicas), :func:`fixed_point` solves (I − A)z = c,
and :func:`sampled_moments` computes the exact stationary mean and second moment of a round map
with random client sets (all C(M, m) subsets enumerated).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from fedbounds.problems.minmax import MinMaxGame

from .executor import Trace, execute

State = tuple[np.ndarray, ...]


# ---- streams ----------------------------------------------------------------------------------
def client_draw(M: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    """Uniform draws (R, M); :func:`sampled` turns them into index sets."""
    return lambda rng, R: rng.random((R, M))


def sampled(u: np.ndarray, m: int) -> np.ndarray:
    """Indices (R, m), sorted, of the m smallest draws per replica: uniform without replacement."""
    if m == u.shape[1]:
        return np.broadcast_to(np.arange(m), u.shape).copy()
    return np.sort(np.argpartition(u, m - 1, axis=1)[:, :m], axis=1)


def noise_draw(K: int, M: int, d: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    return lambda rng, R: rng.standard_normal((R, K, M, d))


def gather(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """a (R, M, ...) at client indices idx (R, m) -> (R, m, ...)."""
    return np.take_along_axis(a, idx.reshape(idx.shape + (1,) * (a.ndim - 2)), axis=1)


# ---- gradients --------------------------------------------------------------------------------
def client_grad(g: MinMaxGame, z: np.ndarray, idx: np.ndarray | None = None,
                H: np.ndarray | None = None, h: np.ndarray | None = None) -> np.ndarray:
    """Joint gradients ∇f_i(z_i) for z (R, k, d) at clients idx (R, k) (None: all M in order).
    ``H``/``h`` may be passed pre-gathered ((R, k, d, d), (R, k, d))."""
    if H is None:
        if idx is None:
            out = np.matmul(z.swapaxes(0, 1), g.H.transpose(0, 2, 1)).swapaxes(0, 1) + g.h
        else:
            out = np.matmul(g.H[idx], z[..., None])[..., 0] + g.h[idx]
    else:
        out = np.matmul(H, z[..., None])[..., 0] + h
    if g.lam:
        out[..., : g.dx] -= g.lam * np.sin(z[..., : g.dx])
    return out


def noisy_grad(g: MinMaxGame, grad: np.ndarray, xi: np.ndarray | None, batch: float = 1.0,
               var: np.ndarray | None = None) -> np.ndarray:
    """grad + ξ ⊙ sqrt((σ_x²/dx, σ_y²/dy) + β_L²‖grad‖²/d) / √batch: E‖ξ_x‖² = σ_x²/b,
    E‖ξ‖² = (σ_L² + β_L²‖∇f_i‖²)/b (fed_norm_sgda.md A3; fedsgda_m.md (N-add))."""
    if xi is None or not g.noisy:
        return grad
    v = g.coord_var() if var is None else var
    if g.beta_L:
        v = v + g.beta_L**2 * np.einsum("...i,...i->...", grad, grad)[..., None] / g.d
    return grad + xi * np.sqrt(v / batch)


def project_y(g: MinMaxGame, z: np.ndarray) -> np.ndarray:
    """NC-C variant: y onto the ball ‖y‖ ≤ r (in place)."""
    if g.radius is not None:
        y = z[..., g.dx:]
        n = np.linalg.norm(y, axis=-1, keepdims=True)
        z[..., g.dx:] = y * np.minimum(1.0, g.radius / np.maximum(n, 1e-300))
    return z


def signed(g: MinMaxGame, ex: float, ey: float) -> np.ndarray:
    """s = (η_x, …, −η_y, …): z − s ⊙ g descends in x and ascends in y."""
    return np.concatenate([np.full(g.dx, float(ex)), np.full(g.dy, -float(ey))])


def pair(g: MinMaxGame, ax: float, ay: float) -> np.ndarray:
    """(a_x, …, a_y, …) (unsigned per-block factors, e.g. server steps)."""
    return np.concatenate([np.full(g.dx, float(ax)), np.full(g.dy, float(ay))])


def local_steps(g: MinMaxGame, z0: np.ndarray, idx: np.ndarray | None, tau: np.ndarray,
                s: np.ndarray, xi: np.ndarray | None, *, corr: np.ndarray | None = None,
                x_snap: np.ndarray | None = None, rho: float = 0.0, batch: float = 1.0
                ) -> np.ndarray:
    """Local descent–ascent of the selected clients from z0 (R, k, d); client j takes
    τ_{idx_j} steps (tau: (M,) ints). Direction per step: ∇f_i(z; ξ) + corr (SAGDA control
    variates), with ∇_y taken at (x_snap, y) for the "+" variants (fed_norm_sgda.md §4.1),
    heavy-ball d ← ρd + direction (buffer reset per round, §2 examples), z ← z − s ⊙ d."""
    R, k, d = z0.shape
    dx = g.dx
    if idx is None:
        H, h = np.broadcast_to(g.H, (R,) + g.H.shape), np.broadcast_to(g.h, (R,) + g.h.shape)
        tau_sel = np.broadcast_to(tau, (R, k))
    else:
        H, h, tau_sel = g.H[idx], g.h[idx], tau[idx]
    K = int(tau.max())
    hetero = bool(np.any(tau != K))
    z = z0.copy()
    buf = np.zeros_like(z) if rho else None
    if xi is not None and idx is not None and xi.shape[2] != k:  # draws per client: gather once
        xi = np.take_along_axis(xi[:, :K], idx[:, None, :, None], axis=2)
    for step in range(K):
        grad = client_grad(g, z, H=H, h=h)
        if x_snap is not None:
            zs = np.concatenate([x_snap, z[..., dx:]], axis=-1)
            grad[..., dx:] = client_grad(g, zs, H=H, h=h)[..., dx:]
        if xi is not None:
            grad = noisy_grad(g, grad, xi[:, step], batch)
        if corr is not None:
            grad = grad + corr
        if rho:
            buf = rho * buf + grad
            grad = buf
        upd = s * grad
        if hetero:
            upd = upd * (step < tau_sel)[..., None]
        z = project_y(g, z - upd)
    return z


# ---- metrics and runs ---------------------------------------------------------------------------
def server_metrics(g: MinMaxGame, z_of: Callable[[State], np.ndarray],
                   w: np.ndarray | None = None) -> dict[str, Callable[[State], np.ndarray]]:
    """grad_phi_sq = ‖∇Φ(x)‖² (Moreau gradient for NC-C) and dist_sq = ‖z − z*‖² (affine games)."""
    out: dict[str, Callable[[State], np.ndarray]] = {
        "grad_phi_sq": lambda st: g.grad_phi_sq(z_of(st)[:, : g.dx], w)}
    if g.lam == 0 and g.radius is None:
        zs = g.z_star(w)
        out["dist_sq"] = lambda st: np.sum((z_of(st) - zs) ** 2, axis=1)
    return out


@dataclass
class Compiled:
    """One algorithm bound to a game and configuration, ready for :func:`verify.executor.execute`."""

    state: State
    step: Callable[[State, dict[str, Any], int], tuple[State, np.ndarray]]
    streams: dict[str, Callable[[np.random.Generator, int], Any]]
    z_of: Callable[[State], np.ndarray]  # server model (R, d)
    samples_per_round: float  # stochastic gradients per participating client per round
    config: dict[str, Any] = field(default_factory=dict)
    w: np.ndarray | None = None  # weights of the objective measured (None: the game's p)


def simulate(c: Compiled, g: MinMaxGame, rounds: int, seed: int, replicas: int,
             record_every: int = 1, metrics: dict | None = None) -> Trace:
    """Execute with the standard server metrics (or ``metrics``)."""
    return execute(c.state, c.step, rounds, replicas=replicas, seed=seed, streams=c.streams,
                   metrics=metrics or server_metrics(g, c.z_of, c.w), record_every=record_every)


def run_doc(c: Compiled, g: MinMaxGame, rounds: int, seeds: int, seed: int,
            record_every: int = 1) -> dict[str, Any]:
    """DESIGN "Runs" fields: constants, config, metrics (replica means per record), summary."""
    tr = simulate(c, g, rounds, seed, seeds, record_every)
    metrics = {k: v.mean(axis=1).tolist() for k, v in tr.metrics.items()}
    gp = tr.metrics["grad_phi_sq"].mean(axis=1)
    summary: dict[str, Any] = {
        "avg_grad_phi_sq": float(gp[:-1].mean()) if gp.size > 1 else float(gp[0]),
        "final_grad_phi_sq": float(gp[-1]),
        "communications": float(tr.communications[-1].mean()),
        "samples_per_client": float(c.samples_per_round * tr.iterations[-1]),
        "diverged": tr.diverged, "seconds": tr.seconds}
    if "dist_sq" in tr.metrics:
        summary["final_dist_sq"] = float(tr.metrics["dist_sq"][-1].mean())
    if tr.diverged:
        summary.update(diverged_at=tr.diverged_at, reason=tr.reason)
    metrics["round"] = tr.iterations.tolist()
    return {"constants": dict(g.constants), "config": c.config, "metrics": metrics,
            "summary": summary}


def replicate(state: State, R: int) -> State:
    return tuple(np.repeat(s[None], R, 0) if s.ndim < 3 and s.shape[0] != R else s for s in state)


# ---- exact machinery ----------------------------------------------------------------------------
def affine_round(round_map: Callable[[np.ndarray], np.ndarray], d: int) -> tuple[np.ndarray, np.ndarray]:
    """z ↦ Az + c of a deterministic affine map, evaluated once on d + 1 points (as replicas)."""
    Z = np.vstack([np.zeros(d), np.eye(d)])
    out = round_map(Z)
    c = out[0]
    return (out[1:] - c).T, c


def fixed_point(round_map: Callable[[np.ndarray], np.ndarray], d: int) -> tuple[np.ndarray, float]:
    """Exact fixed point z = Az + c and the spectral radius ρ(A) (contraction iff ρ < 1)."""
    A, c = affine_round(round_map, d)
    return np.linalg.solve(np.eye(d) - A, c), float(max(abs(np.linalg.eigvals(A))))


def sampled_moments(round_map_S: Callable[[np.ndarray, np.ndarray], np.ndarray], d: int, M: int,
                    m: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Exact stationary mean μ and second moment P = E[zzᵀ] of z' = A_S z + c_S with S uniform
    among the C(M, m) subsets (no other randomness); returns (μ, P, ρ(E[A_S ⊗ A_S]))."""
    subsets = list(combinations(range(M), m))
    As, cs = [], []
    for S in subsets:
        A, c = affine_round(lambda Z, S=S: round_map_S(Z, np.array(S)), d)
        As.append(A)
        cs.append(c)
    As, cs = np.array(As), np.array(cs)
    EA, Ec = As.mean(0), cs.mean(0)
    mu = np.linalg.solve(np.eye(d) - EA, Ec)
    EAA = np.mean([np.kron(A, A) for A in As], axis=0)
    Am = np.einsum("sij,j->si", As, mu)
    rhs = np.mean([np.outer(a, c) + np.outer(c, a) + np.outer(c, c) for a, c in zip(Am, cs,
                                                                                    strict=True)], 0)
    P = np.linalg.solve(np.eye(d * d) - EAA, rhs.reshape(-1)).reshape(d, d)
    return mu, 0.5 * (P + P.T), float(max(abs(np.linalg.eigvals(EAA))))


def quad_expect(G: np.ndarray, g0: np.ndarray, mu: np.ndarray, P: np.ndarray) -> float:
    """E‖Gz + g0‖² from the mean μ and second moment P of z."""
    return float(np.trace(G @ P @ G.T) + 2 * g0 @ G @ mu + g0 @ g0)


def grad_phi_affine(g: MinMaxGame, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """∇Φ(x) = G z + g0 as an affine function of z = (x, y) (y ignored), λ = 0."""
    A, B, C, b, c = g.mean_blocks(w)
    Ci = np.linalg.inv(C)
    G = np.zeros((g.dx, g.d))
    G[:, : g.dx] = A + B @ Ci @ B.T
    return G, b - B @ Ci @ c


def as_taus(tau: Any, M: int) -> np.ndarray:
    """τ_i per client from a scalar or a sequence (positive integers)."""
    t = np.broadcast_to(np.asarray(tau, dtype=float), (M,)).copy()
    if np.any(t < 1) or np.any(t != np.round(t)):
        raise ValueError(f"local steps must be positive integers, got {tau}")
    return t.astype(int)


# ---- exact round maps of compiled algorithms -------------------------------------------------------
def round_map(build: Callable[[int], Compiled], M: int, S: np.ndarray | None = None
              ) -> Callable[[np.ndarray], np.ndarray]:
    """The deterministic round map z_t ↦ z_{t+1} of ``build(replicas)`` at t = 0 (client set S,
    default all), evaluated on the rows of Z (replicas)."""
    def f(Z: np.ndarray) -> np.ndarray:
        c = build(Z.shape[0])
        u = np.ones((Z.shape[0], M))
        u[:, np.arange(M) if S is None else S] = 0.0
        st = (Z.copy(),) + tuple(c.state[1:])
        new, _ = c.step(st, {"clients": u}, 0)
        return c.z_of(new)
    return f


def with_start(c: Compiled, z: np.ndarray) -> Compiled:
    """Start every replica at z (e.g. the saddle, to measure stationary floors without transient)."""
    st = list(c.state)
    st[0] = np.broadcast_to(z, st[0].shape).copy()
    return Compiled(tuple(st), c.step, c.streams, c.z_of, c.samples_per_round, c.config, c.w)


def rerun(algorithm: str, problem: str, pset: dict[str, Any], aset: dict[str, Any], rounds: int,
          seeds: int, seed: int) -> dict[str, Any]:
    """Config dict for ``fedbounds run`` (issue #5 acceptance 4)."""
    return {"algorithm": algorithm, "problem": problem, "set": {**pset, **aset}, "rounds": rounds,
            "seeds": seeds, "seed": seed}
