"""Shared problem interface: a federated affine variational inequality with exact constants.

Client i owns the operator f_i(z) = J_i z + b_i (z ∈ R^d); the global operator is
F(z) = (1/n) Σ_i f_i(z) with the unique solution z* (F(z*) = 0). Finite sums (L-SVRGDA) give
per-sample J_ij, b_ij with f_i = (1/m) Σ_j F_ij. Constants are exact (eigen-/generalized
eigenvalue computations), never estimated. Paper-specific families live in their own modules
(``problems/proxskip.py`` …) and return :class:`AffineVIP`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class NoiseModel:
    """Additive zero-mean Gaussian noise g_i(z) = f_i(z) + ξ_i, ξ_i ~ N(0, s_i² I / d).

    The same ξ_i at z and z* (coupled), so L_g = ℓ and σ_*² = Σ_i E‖ξ_i‖² = Σ_i s_i² exactly
    (proxskip_vip.md §8 "exact-constant noise")."""

    std: np.ndarray  # (n,) per-client s_i, with E‖ξ_i‖² = s_i²

    @property
    def sigma_star_sq(self) -> float:
        return float(np.sum(self.std**2))


@dataclass(frozen=True)
class AffineVIP:
    """f_i(z) = J[i] @ z + b[i]; optional finite-sum samples Jij (n, m, d, d), bij (n, m, d)."""

    name: str
    J: np.ndarray  # (n, d, d)
    b: np.ndarray  # (n, d)
    z_star: np.ndarray  # (d,)
    # exact: scalars mu, L, ell, kappa, zeta_sq, sigma_star_sq …; per-client tuples mu_i, ell_i …
    constants: dict[str, float | tuple[float, ...]]
    Jij: np.ndarray | None = None  # (n, m, d, d) finite-sum samples, mean over j equals J
    bij: np.ndarray | None = None  # (n, m, d)
    noise: NoiseModel | None = None
    params: dict[str, float] = field(default_factory=dict)  # generator parameters, for reports
    data: dict[str, np.ndarray] = field(default_factory=dict)  # generator data (e.g. RLS A, y0)

    @property
    def n(self) -> int:
        return int(self.J.shape[0])

    @property
    def d(self) -> int:
        return int(self.J.shape[1])

    def f(self, z: np.ndarray) -> np.ndarray:
        """Per-client operators at per-client points: z (..., n, d) → (..., n, d)."""
        return np.einsum("nij,...nj->...ni", self.J, z) + self.b

    def F(self, z: np.ndarray) -> np.ndarray:
        """Global operator (1/n) Σ_i f_i at a common point z (..., d)."""
        return np.einsum("ij,...j->...i", self.J.mean(axis=0), z) + self.b.mean(axis=0)


@dataclass(frozen=True)
class ProblemEntry:
    """A named problem family for ``fedbounds run --problem NAME --set k=v``.

    ``make(params, seed)`` returns the problem object; ``params`` maps each accepted parameter
    to (default, description)."""

    name: str
    paper: str
    description: str
    make: object  # Callable[[dict[str, float], int], object]
    params: dict[str, tuple[float, str]] = field(default_factory=dict)
