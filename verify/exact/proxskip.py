"""Exact second moments of ProxSkip-VIP-FL on affine problems (digest §4 "linear-map form").

With client operators f_i(z) = J_i z + b_i, the consensus operator F(x) = Σ_i F_i(x_i) (L70) is
affine with Jacobian J = blkdiag(J_i), the prox Π = (1/n) 1 1ᵀ ⊗ I is linear, and the errors
e = (x − x*, h − F(x*)) evolve by e ↦ T_θ e + G_θ ξ with θ ~ Bernoulli(p) and ξ the additive
oracle noise (zero for GDA):

    T_0 = [[I − γJ, γI], [0, I]],
    T_1 = [[Π(I − γJ), γ(1 − 1/p)Π], [(p/γ)(Π − I)(I − γJ), (1 − p)(I − Π)]],
    G_0 = [[−γI], [0]],   G_1 = [[−γΠ], [p(I − Π)]].

So Σ_t = E[e_t e_tᵀ] obeys Σ ↦ p(T_1ΣT_1ᵀ + G_1QG_1ᵀ) + (1 − p)(T_0ΣT_0ᵀ + G_0QG_0ᵀ) exactly,
E[V_t] = tr(W Σ_t) with W = diag(I, (γ/p)² I) (Thm 3.1's Lyapunov function, L140), the
asymptotic rate is the spectral radius of pT_1⊗T_1 + (1 − p)T_0⊗T_0, and the stationary
second moment (the exact SGDA neighbourhood, Cor. 3.5) solves a linear equation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from fedbounds.problems.proxskip import AffineVIP


@dataclass(frozen=True)
class LinearMaps:
    """T_0, T_1, G_0, G_1 of ProxSkip-VIP-FL on an affine problem, for one (γ, p)."""

    T0: np.ndarray  # (2nd, 2nd)
    T1: np.ndarray
    G0: np.ndarray  # (2nd, nd)
    G1: np.ndarray
    gamma: float
    p: float
    n: int
    d: int

    @property
    def W(self) -> np.ndarray:
        """Diagonal weight of V_t = ‖e_x‖² + (γ/p)²‖e_h‖² (L140, σ_t ≡ 0)."""
        nd = self.n * self.d
        return np.concatenate([np.ones(nd), np.full(nd, (self.gamma / self.p) ** 2)])

    def mean_map(self) -> np.ndarray:
        """E[e_{t+1}] = (p T_1 + (1 − p) T_0) E[e_t]."""
        return self.p * self.T1 + (1 - self.p) * self.T0


def consensus(problem: AffineVIP) -> tuple[np.ndarray, np.ndarray]:
    """J = blkdiag(J_1, …, J_n) and Π = (1/n) 1 1ᵀ ⊗ I_d (digest §6.4 "Consensus (FL) operator")."""
    n, d = problem.n, problem.d
    J = sla.block_diag(*problem.J)
    Pi = np.kron(np.full((n, n), 1.0 / n), np.eye(d))
    return J, Pi


def proxskip_maps(problem: AffineVIP, gamma: float, p: float) -> LinearMaps:
    """The linear maps of digest §4 for ProxSkip-VIP-FL with step γ and probability p."""
    if not (0 < p <= 1) or gamma <= 0:
        raise ValueError(f"need gamma > 0 and p in (0, 1], got gamma={gamma}, p={p}")
    n, d = problem.n, problem.d
    J, Pi = consensus(problem)
    nd = n * d
    eye = np.eye(nd)
    A = eye - gamma * J
    Z = np.zeros((nd, nd))
    T0 = np.block([[A, gamma * eye], [Z, eye]])
    T1 = np.block([[Pi @ A, gamma * (1 - 1 / p) * Pi],
                   [(p / gamma) * (Pi - eye) @ A, (1 - p) * (eye - Pi)]])
    G0 = np.vstack([-gamma * eye, Z])
    G1 = np.vstack([-gamma * Pi, p * (eye - Pi)])
    return LinearMaps(T0, T1, G0, G1, float(gamma), float(p), n, d)


def initial_error(problem: AffineVIP, x0: np.ndarray, h0: np.ndarray) -> np.ndarray:
    """e_0 = (x_0 − x*, h_0 − F(x*)) stacked, x* = (z*, …, z*), F(x*)_i = f_i(z*) (L70)."""
    fz = problem.f(np.broadcast_to(problem.z_star, (problem.n, problem.d)))
    ex = np.asarray(x0, float) - problem.z_star
    eh = np.asarray(h0, float) - fz
    return np.concatenate([ex.ravel(), eh.ravel()])


def noise_cov(problem: AffineVIP) -> np.ndarray:
    """Q = Cov(ξ) = blkdiag(s_i²/d I_d) for the coupled Gaussian noise model (problems.base)."""
    if problem.noise is None:
        return np.zeros((problem.n * problem.d,) * 2)
    return np.diag(np.repeat(problem.noise.std**2 / problem.d, problem.d))


def expected_V(maps: LinearMaps, e0: np.ndarray | None = None, steps: int = 0, *,
               Sigma0: np.ndarray | None = None, Q: np.ndarray | None = None,
               stop_below: float | None = None) -> np.ndarray:
    """E[V_t] for t = 0..steps by the exact second-moment recursion (digest §4).

    Starts from Σ_0 = e_0 e_0ᵀ (or ``Sigma0``); ``Q`` adds the noise term. With
    ``stop_below`` the recursion stops at the first t with E[V_t] ≤ stop_below (the returned
    curve then ends there)."""
    S = np.outer(e0, e0) if Sigma0 is None else np.array(Sigma0, dtype=float)
    w = maps.W
    T0, T1, p = maps.T0, maps.T1, maps.p
    N = None
    if Q is not None and np.any(Q):
        N = p * maps.G1 @ Q @ maps.G1.T + (1 - p) * maps.G0 @ Q @ maps.G0.T
    out = np.empty(steps + 1)
    out[0] = float(np.dot(w, np.diag(S)))
    T0t, T1t = T0.T.copy(), T1.T.copy()
    for t in range(1, steps + 1):
        S = p * (T1 @ S @ T1t) + (1 - p) * (T0 @ S @ T0t)
        if N is not None:
            S += N
        out[t] = float(np.dot(w, np.diag(S)))
        if stop_below is not None and out[t] <= stop_below:
            return out[: t + 1]
        if not np.isfinite(out[t]):
            return out[: t + 1]
    return out


def expected_V_mean_path(maps: LinearMaps, e0: np.ndarray, steps: int) -> np.ndarray:
    """E[e_t] for t = 0..steps (rows), by the mean map p T_1 + (1 − p) T_0."""
    M = maps.mean_map()
    out = np.empty((steps + 1, e0.size))
    out[0] = e0
    for t in range(steps):
        out[t + 1] = M @ out[t]
    return out


def second_moment_operator(maps: LinearMaps) -> np.ndarray:
    """The matrix of Σ ↦ pT_1ΣT_1ᵀ + (1 − p)T_0ΣT_0ᵀ on vec(Σ): pT_1⊗T_1 + (1 − p)T_0⊗T_0."""
    return maps.p * np.kron(maps.T1, maps.T1) + (1 - maps.p) * np.kron(maps.T0, maps.T0)


def _duplication(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(D, E): vec(S) = D vech(S) for symmetric S, and vech(S) = E vec(S) (row-major vec)."""
    iu = np.triu_indices(k)
    m = iu[0].size
    D = np.zeros((k * k, m))
    D[iu[0] * k + iu[1], np.arange(m)] = 1.0
    D[iu[1] * k + iu[0], np.arange(m)] = 1.0
    E = np.zeros((m, k * k))
    E[np.arange(m), iu[0] * k + iu[1]] = 1.0
    return D, E


def spectral_radius(maps: LinearMaps) -> float:
    """Spectral radius of pT_1⊗T_1 + (1 − p)T_0⊗T_0 (digest §8 P2).

    The map is positive (it sends PSD matrices to PSD matrices), so its spectral radius has a
    PSD eigenmatrix (Krein–Rutman) and equals the radius of its restriction to symmetric
    matrices, which commute with the map; eigenvalues are taken on vech coordinates (dimension
    k(k+1)/2 instead of k²)."""
    k = maps.T0.shape[0]
    D, E = _duplication(k)
    K = second_moment_operator(maps)
    return float(np.max(np.abs(np.linalg.eigvals(E @ K @ D))))


def stationary_V(maps: LinearMaps, Q: np.ndarray) -> float:
    """Exact limit of E[V_t] under additive noise with covariance Q: the fixed point Σ_∞ of
    Σ ↦ p(T_1ΣT_1ᵀ + G_1QG_1ᵀ) + (1 − p)(T_0ΣT_0ᵀ + G_0QG_0ᵀ), from one linear solve; returns
    tr(W Σ_∞) (the exact SGDA neighbourhood of Cor. 3.5). Needs spectral radius < 1."""
    k = maps.T0.shape[0]
    p = maps.p
    N = p * maps.G1 @ Q @ maps.G1.T + (1 - p) * maps.G0 @ Q @ maps.G0.T
    # solve Σ − p T1 Σ T1ᵀ − (1−p) T0 Σ T0ᵀ = N with vec (row-major: vec(AΣBᵀ) = (A⊗B) vec Σ)
    Lop = np.eye(k * k) - second_moment_operator(maps)
    S = np.linalg.solve(Lop, N.ravel()).reshape(k, k)
    return float(np.dot(maps.W, np.diag(S)))
