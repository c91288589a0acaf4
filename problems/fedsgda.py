"""Instances of the FedSGDA+ / FedSGDA-M claims (``fedsgda.p*``) built on
:class:`~fedbounds.problems.minmax.MinMaxGame`, with the exact quantities the claims need:
F(x, y), the NC-PL gaps Δ, Δ_y of Theorem 3.12 [L247], the curvature of Φ, the single-client
reduction of a common-Hessian game (claim fedsgda.p1) and the Φ-preserving κ family (claim
fedsgda.p8)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .minmax import MinMaxGame, constants


def objective(g: MinMaxGame, z: np.ndarray) -> float:
    """F(x, y) = Σ_i p_i f_i(x, y) of the quadratic game (λ = 0) at z = (x, y)."""
    A, B, C, b, c = g.mean_blocks()
    x, y = z[: g.dx], z[g.dx:]
    return float(0.5 * x @ A @ x + x @ B @ y - 0.5 * y @ C @ y + b @ x - c @ y)


def pl_gaps(g: MinMaxGame) -> tuple[float, float]:
    """Δ = Φ(x̄_0) − Φ* and Δ_y = Φ(x̄_0) − F(x̄_0, ȳ_0) at the game's start (Theorem 3.12 as
    corrected by erratum thm3.12-ybar, eq. (52) [L913]; Φ* = Φ(x*) for the quadratic game)."""
    x0 = g.z0[: g.dx]
    phi0 = g.phi(x0)
    return float(phi0 - g.phi(g.z_star()[: g.dx])), float(phi0) - objective(g, g.z0)


def phi_hessian_min(g: MinMaxGame) -> float:
    """λ_min(∇²Φ) = λ_min(Ā + B̄C̄⁻¹B̄ᵀ) (λ = 0): the curvature that sets the x-clock."""
    A, B, C, _, _ = g.mean_blocks()
    return float(np.linalg.eigvalsh(A + B @ np.linalg.solve(C, B.T))[0])


def one_client(g: MinMaxGame) -> MinMaxGame:
    """Client 0 with weight 1 of a game whose clients are identical (σ_G = 0, no Hessian
    spread): FedSGDA-M on N such clients averages to one client with batch N·b (claim
    fedsgda.p1)."""
    return replace(g, A=g.A[:1], B=g.B[:1], C=g.C[:1], b=g.b[:1], c=g.c[:1], p=np.ones(1))


def scaled(g: MinMaxGame, s: float) -> MinMaxGame:
    """Φ-preserving family (claim fedsgda.p8; our construction): C̄ → sC̄, B̄ → √s B̄, c̄ → √s c̄
    (μ → sμ, Φ unchanged), constants recomputed exactly."""
    r = math.sqrt(s)
    h = replace(g, C=s * g.C, B=r * g.B, c=r * g.c, constants={})
    return replace(h, constants=constants(h))
