"""Exact machinery for min-max methods whose round is affine in the server model (quadratic
games): :func:`affine_round` recovers z ↦ Az + c of a deterministic round map by evaluating it
at d + 1 points (as replicas), :func:`fixed_point` solves (I − A)z = c, and
:func:`sampled_moments` computes the exact stationary mean and second moment of a round map with
random client sets (all C(M, m) subsets enumerated). :func:`round_map` turns a
:class:`~fedbounds.verify.algorithm.Method` (state field ``z``) into such a map.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np

from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Method


def round_map(method: Method, M: int, S: np.ndarray | None = None
              ) -> Callable[[np.ndarray], np.ndarray]:
    """The deterministic round map z_t ↦ z_{t+1} of ``method`` at t = 0 with client set S
    (default all M), evaluated on the rows of Z (one replica per row)."""
    def f(Z: np.ndarray) -> np.ndarray:
        u = np.ones((Z.shape[0], M))
        u[:, np.arange(M) if S is None else S] = 0.0
        state = method.init(Z.shape[0], 0)._replace(z=Z.copy())
        new, _ = method.step(state, {"clients": u}, 0)
        return new.z
    return f


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
