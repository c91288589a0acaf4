"""ProxSkip-VIP problem families with exact constants (the experiments of Section 5 and
Appendices G–H, and test families of ours).

Every family returns :class:`AffineVIP` (client i: f_i(z) = J_i z + b_i, global
F = (1/n) Σ_i f_i, solution z* by a solve of the mean operator) with ``constants`` computed by
:func:`problems.linalg.affine_vip_constants` in the FL consensus convention F(x) = Σ_i F_i(x_i)
(eq. (3) [L70]): mu = min_i μ_i, L = max_i L_i, ell = max_i ℓ_i (exact generalized
eigenvalue), ell_spec (the paper's spectral formula, Appendix G [L774]), kappa = L/mu,
zeta_sq = Σ‖f_i(z*)‖², sigma_star_sq, sigma_star, L_g, per-client tuples mu_i, L_i, ell_i,
ell_spec_i, …, the mean-operator constants mu_mean, L_mean, ell_mean, and for finite sums
ell_hat, ell_hat_i, ell_ij_max, ell_spec_ij_max. Randomness: ``numpy.random.Generator`` from a
``SeedSequence`` built from the seed and the family name, so an instance is reproducible bit for
bit.

Families: :func:`g_norm`, :func:`g_sym` (test generators of ours), :func:`quadratic_game`
(eq. (5), Section 5 [L280–L282]), :func:`rls` (eq. (6) [L294], Appendix G.1 [L788–L818]); knobs
:func:`with_heterogeneity`, :func:`with_noise`, :func:`finite_sum`; the claims' instances
:func:`p1_instances`, :func:`kappa_family`, :func:`with_shared_jacobian`, :func:`shared_nonnormal`,
:func:`random_monotone`.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedbounds.errors import BadInput
from fedbounds.params import Param

from .base import ProblemEntry
from .linalg import (
    affine_vip_constants,
    cocoercivity_many,
    spectral_cocoercivity_many,
    strong_monotonicity,
)

PAPER = "proxskip"


# ---------------------------------------------------------------- the problem object

@dataclass(frozen=True)
class NoiseModel:
    """Additive zero-mean Gaussian noise g_i(z) = f_i(z) + ξ_i, ξ_i ~ N(0, s_i² I / d).

    The same ξ_i at z and z* (coupled), so L_g = ℓ and σ_*² = Σ_i E‖ξ_i‖² = Σ_i s_i² exactly
    (our exact-constant noise model)."""

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
        """Number of clients."""
        return len(self.J)

    @property
    def d(self) -> int:
        """Dimension of z."""
        return int(self.z_star.size)

    def f(self, z: np.ndarray) -> np.ndarray:
        """Per-client operators at per-client points: z (..., n, d) → (..., n, d)."""
        return np.einsum("nij,...nj->...ni", self.J, z) + self.b

    def F(self, z: np.ndarray) -> np.ndarray:
        """Global operator (1/n) Σ_i f_i at a common point z (..., d)."""
        return np.einsum("ij,...j->...i", self.J.mean(axis=0), z) + self.b.mean(axis=0)



# ---------------------------------------------------------------- validation and randomness

def _int(family: str, name: str, value: float, minimum: int) -> int:
    v = float(value)
    if not math.isfinite(v) or v != int(v) or int(v) < minimum:
        raise BadInput(name, f"must be an integer >= {minimum}, got {value!r} ({family})")
    return int(v)


def _float(family: str, name: str, value: float, *, positive: bool = False) -> float:
    v = float(value)
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        what = "a positive" if positive else "a nonnegative"
        raise BadInput(name, f"must be {what} finite number, got {value!r} ({family})")
    return v


def _per_client(family: str, name: str, value: float | np.ndarray, n: int) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    if a.ndim > 1 or (a.ndim == 1 and a.shape[0] != n):
        raise BadInput(name, f"must be a number or an array of length n={n}, got shape "
                       f"{a.shape} ({family})")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise BadInput(name, f"must be nonnegative and finite ({family})")
    return np.array(np.broadcast_to(a, (n,)))


def _rng(family: str, seed: int) -> np.random.Generator:
    """Generator from SeedSequence([seed, crc32(family)]): distinct streams per family/knob."""
    s = _int(family, "seed", seed, 0)
    return np.random.default_rng(np.random.SeedSequence([s, zlib.crc32(family.encode())]))


def _haar(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n Haar-distributed orthogonal k×k matrices (QR with sign fix)."""
    Q, R = np.linalg.qr(rng.standard_normal((n, k, k)))
    return Q * np.sign(np.diagonal(R, axis1=-2, axis2=-1))[:, None, :]


def _offsets(rng: np.random.Generator, n: int, d: int, zeta_sq: float) -> np.ndarray:
    """c (n, d) with Σ_i c_i = 0 and Σ_i ‖c_i‖² = zeta_sq (our heterogeneity knob)."""
    if zeta_sq == 0:
        return np.zeros((n, d))
    c = rng.standard_normal((n, d))
    c -= c.mean(axis=0)
    c *= math.sqrt(zeta_sq / float(np.sum(c**2)))
    return c - c.mean(axis=0)


# ---------------------------------------------------------------- assembly

def build(name: str, J: np.ndarray, b: np.ndarray, *, params: dict[str, float],
          Jij: np.ndarray | None = None, bij: np.ndarray | None = None,
          noise: NoiseModel | None = None,
          data: dict[str, np.ndarray] | None = None) -> AffineVIP:
    """Solve the mean operator for z* and attach the exact constants (:mod:`problems.linalg`).

    Raises ValueError naming ``name`` if a client operator is not monotone or the mean operator
    is not strongly monotone (no unique z*, Assumption 4.1)."""
    J = np.asarray(J, dtype=float)
    b = np.asarray(b, dtype=float)
    Jbar = J.mean(axis=0)
    if strong_monotonicity(Jbar, name=f"{name} (mean operator)") <= 0:
        raise ValueError(f"{name}: the mean operator is not strongly monotone (mu = 0), "
                         "so z* is not unique (Assumption 4.1)")
    z_star = np.linalg.solve(Jbar, -b.mean(axis=0))
    consts = affine_vip_constants(J, b, z_star, Jij=Jij, bij=bij,
                                  noise_std=None if noise is None else noise.std, name=name)
    return AffineVIP(name=name, J=J, b=b, z_star=z_star, constants=consts, Jij=Jij, bij=bij,
                     noise=noise, params=dict(params), data=dict(data or {}))


def _rebuild(problem: AffineVIP, **changes: object) -> AffineVIP:
    kw = {"J": problem.J, "b": problem.b, "Jij": problem.Jij, "bij": problem.bij,
          "noise": problem.noise, "params": problem.params, "data": problem.data}
    kw.update(changes)
    return build(problem.name, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------- families

def g_norm(n: int = 5, d: int = 4, mu: float = 1.0, s: float | np.ndarray = 3.0,
           zeta_sq: float = 1.0, seed: int = 0) -> AffineVIP:
    """G-norm (our generator): J_i = μI + s_i K_i, K_i = [[0, U_i], [−U_iᵀ, 0]], U_i Haar.

    J_i is normal with eigenvalues μ ± i s_i, so μ_i = μ, L_i = √(μ² + s_i²) and
    ℓ_i = ℓ_spec,i = (μ² + s_i²)/μ = L_i²/μ: ℓ/μ = κ² exactly (the worst case of ℓ ≤ κL,
    Section 2.2 [L101] and the remark after Corollary 3.6 [L184]).
    b_i = −J_i z₀ + c_i with Σc_i = 0, Σ‖c_i‖² = zeta_sq (so z* = z₀)."""
    fam = "g_norm"
    n = _int(fam, "n", n, 1)
    d = _int(fam, "d", d, 2)
    if d % 2:
        raise BadInput("d", f"must be even (two blocks of d/2), got {d} ({fam})")
    mu = _float(fam, "mu", mu, positive=True)
    s_arr = _per_client(fam, "s", s, n)
    zeta_sq = _float(fam, "zeta_sq", zeta_sq)
    if zeta_sq > 0 and n < 2:
        raise BadInput("zeta_sq", f"must be 0 when n = 1 (Σ c_i = 0 forces c = 0) ({fam})")
    rng = _rng(fam, seed)
    k = d // 2
    U = _haar(rng, n, k)
    K = np.zeros((n, d, d))
    K[:, :k, k:] = U
    K[:, k:, :k] = -np.swapaxes(U, 1, 2)
    J = mu * np.eye(d) + s_arr[:, None, None] * K
    z0 = rng.standard_normal(d)
    b = -np.einsum("nij,j->ni", J, z0) + _offsets(rng, n, d, zeta_sq)
    params = {"n": n, "d": d, "mu": mu, "zeta_sq": zeta_sq, "seed": seed}
    if np.ndim(s) == 0:
        params["s"] = float(s)
    return build("proxskip-g-norm", J, b, params=params, data={"s": s_arr})


def g_sym(n: int = 5, d: int = 4, mu: float = 1.0, L: float = 10.0, zeta_sq: float = 1.0,
          seed: int = 0) -> AffineVIP:
    """G-sym (our generator): J_i = Q_i diag(λ_i) Q_iᵀ symmetric, spectrum ⊂ [μ, L] containing both
    endpoints (the rest uniform), so μ_i = μ, L_i = ℓ_i = L (minimisation, the remark after
    Corollary 3.6 [L184]: ℓ = L)."""
    fam = "g_sym"
    n = _int(fam, "n", n, 1)
    d = _int(fam, "d", d, 1)
    mu = _float(fam, "mu", mu, positive=True)
    L = _float(fam, "L", L, positive=True)
    if L < mu:
        raise BadInput("L", f"must be >= mu = {mu}, got {L} ({fam})")
    if d < 2 and L != mu:
        raise BadInput("d", f"must be >= 2 to hold both endpoints mu < L ({fam})")
    zeta_sq = _float(fam, "zeta_sq", zeta_sq)
    if zeta_sq > 0 and n < 2:
        raise BadInput("zeta_sq", f"must be 0 when n = 1 ({fam})")
    rng = _rng(fam, seed)
    lam = np.empty((n, d))
    lam[:, 0] = mu
    if d >= 2:
        lam[:, 1] = L
        lam[:, 2:] = rng.uniform(mu, L, size=(n, d - 2))
    Q = _haar(rng, n, d)
    J = np.einsum("nik,nk,njk->nij", Q, lam, Q)
    J = 0.5 * (J + np.swapaxes(J, 1, 2))
    z0 = rng.standard_normal(d)
    b = -np.einsum("nij,j->ni", J, z0) + _offsets(rng, n, d, zeta_sq)
    return build("proxskip-g-sym", J, b,
                 params={"n": n, "d": d, "mu": mu, "L": L, "zeta_sq": zeta_sq, "seed": seed})


def _psd(rng: np.random.Generator, shape: tuple[int, ...], k: int, lo: float,
         hi: float) -> np.ndarray:
    """PSD k×k matrices Q diag(U[lo, hi]) Qᵀ, Q = eigenvectors of GᵀG (as in
    the authors' code (github.com/isayantan/ProxSkipVIP, Reproducibility Statement [L302]))."""
    G = rng.standard_normal((*shape, k, k))
    _, Q = np.linalg.eigh(np.swapaxes(G, -1, -2) @ G)
    lam = rng.uniform(lo, hi, size=(*shape, k))
    M = np.einsum("...ik,...k,...jk->...ij", Q, lam, Q)
    return 0.5 * (M + np.swapaxes(M, -1, -2))


def quadratic_game(n: int = 20, m: int = 100, d: int = 20, seed: int = 0) -> AffineVIP:
    """Strongly-monotone quadratic game, eq. (5) [L280–L282], with the printed −½x₁ᵀC_ij x₁ read
    as −½x₂ᵀC_ij x₂ (otherwise x₂ has no concavity; the authors' code uses x₂).

    f_ij = ½x₁ᵀA_ij x₁ + x₁ᵀB_ij x₂ − ½x₂ᵀC_ij x₂ + a_ijᵀx₁ − c_ijᵀx₂ with d the total dimension
    (two players of d/2, as in the authors' code; the text's d = 20 [L282] does not say which),
    eigenvalues of A_ij, C_ij ~ U[0.01, 1] and of B_ij ~ U[0, 1] (eigenbasis of GᵀG),
    a_ij, c_ij ~ N(0, I). Operator J_ij = [[A, B], [−Bᵀ, C]],
    b_ij = (a_ij, c_ij); J_i, b_i are the means over j. Per-sample Jij, bij are returned."""
    fam = "quadratic_game"
    n = _int(fam, "n", n, 1)
    m = _int(fam, "m", m, 1)
    d = _int(fam, "d", d, 2)
    if d % 2:
        raise BadInput("d", f"must be even (total dimension of two players), got {d} ({fam})")
    rng = _rng(fam, seed)
    k = d // 2
    A = _psd(rng, (n, m), k, 0.01, 1.0)
    B = _psd(rng, (n, m), k, 0.0, 1.0)
    C = _psd(rng, (n, m), k, 0.01, 1.0)
    Jij = np.empty((n, m, d, d))
    Jij[..., :k, :k] = A
    Jij[..., :k, k:] = B
    Jij[..., k:, :k] = -np.swapaxes(B, -1, -2)
    Jij[..., k:, k:] = C
    bij = rng.standard_normal((n, m, d))
    return build("proxskip-quadratic-game", Jij.mean(axis=1), bij.mean(axis=1), Jij=Jij, bij=bij,
                 params={"n": n, "m": m, "d": d, "seed": seed})


def rls(r: int = 200, s: int = 8, n: int = 20, lam: float = 50.0, seed: int = 0,
        beta_std: float = 1.0, y_std: float = 0.01) -> AffineVIP:
    """Robust least squares, eq. (6) [L294], Appendix G.1 [L788–L818]:
    G(β, y) = ‖Aβ − y‖² − λ‖y − y₀‖².

    z = (β, y) ∈ R^{s+r}; row k gives F_k = (∇_β, −∇_y) of (A_kᵀβ − y_k)² − λ(y_k − y₀k)²:
    J_k = [[2a_k a_kᵀ, −2a_k e_kᵀ], [2e_k a_kᵀ, 2(λ−1)e_k e_kᵀ]], b_k = (0, −2λ y₀k e_k). Rows are
    split contiguously, m = r/n per client (sample j of client i is row i·m + j); the global
    F = (1/r) Σ_k F_k is G's operator divided by r (Appendix G.1 [L810] writes G as r times
    problem (5)), so mu_mean = min{2λ_min(AᵀA), 2(λ−1)}/r. Data follow the authors' code:
    A ~ N(0, 1), y₀ = Aβ₀ + N(0, y_std²), β₀ ~ N(0, beta_std²). z* = (β_OLS, (λy₀ − Aβ*)/(λ−1)).

    Per-client μ_i = 0 (client i has no curvature in other clients' y-coordinates [derived],
    Appendix G.1 [L814–L818]): ``constants['mu'] = 0`` and ``kappa = inf``; Assumption 4.1
    fails (outside the theory).
    """
    fam = "rls"
    r = _int(fam, "r", r, 1)
    s = _int(fam, "s", s, 1)
    n = _int(fam, "n", n, 1)
    lam = float(lam)
    if not math.isfinite(lam) or lam <= 1:
        raise BadInput("lam", f"must be > 1 (strong concavity in y needs λ > 1), got {lam} ({fam})")
    if r % n:
        raise BadInput("n", f"must divide r = {r} (m = r/n rows per client, Appendix G.1 "
                       f"[L810]), got {n} ({fam})")
    if s > r:
        raise BadInput("s", f"must be <= r = {r} (A needs full column rank), got {s} ({fam})")
    beta_std = _float(fam, "beta_std", beta_std)
    y_std = _float(fam, "y_std", y_std)
    rng = _rng(fam, seed)
    A = rng.standard_normal((r, s))
    beta0 = beta_std * rng.standard_normal(s)
    y0 = A @ beta0 + y_std * rng.standard_normal(r)
    m = r // n
    d = s + r
    Jk = np.zeros((r, d, d))
    rows = np.arange(r)
    Jk[:, :s, :s] = 2 * np.einsum("ki,kj->kij", A, A)
    Jk[rows, :s, s + rows] = -2 * A
    Jk[rows, s + rows, :s] = 2 * A
    Jk[rows, s + rows, s + rows] = 2 * (lam - 1)
    bk = np.zeros((r, d))
    bk[rows, s + rows] = -2 * lam * y0
    Jij = Jk.reshape(n, m, d, d)
    bij = bk.reshape(n, m, d)
    return build("proxskip-rls", Jij.mean(axis=1), bij.mean(axis=1), Jij=Jij, bij=bij,
                 params={"r": r, "s": s, "n": n, "m": m, "lam": lam, "seed": seed,
                         "beta_std": beta_std, "y_std": y_std},
                 data={"A": A, "y0": y0, "beta0": beta0})


# ---------------------------------------------------------------- knobs

def with_heterogeneity(problem: AffineVIP, zeta_sq: float, seed: int = 0) -> AffineVIP:
    """Heterogeneity knob (ours): b_i = −J_i z* + c_i, Σc_i = 0, Σ‖c_i‖² = zeta_sq.

    z* is unchanged and f_i(z*) = c_i, so ζ² = zeta_sq exactly. Finite-sum b_ij are shifted by
    the same amount, keeping b_ij − b_i (and hence σ_*²) unchanged. ``data`` (e.g. RLS y₀) keeps
    describing the generator before the knob."""
    fam = "with_heterogeneity"
    zeta_sq = _float(fam, "zeta_sq", zeta_sq)
    if zeta_sq > 0 and problem.n < 2:
        raise BadInput("zeta_sq", f"must be 0 when n = 1 ({fam})")
    c = _offsets(_rng(fam, seed), problem.n, problem.d, zeta_sq)
    b = -np.einsum("nij,j->ni", problem.J, problem.z_star) + c
    bij = None if problem.bij is None else problem.bij + (b - problem.b)[:, None, :]
    return _rebuild(problem, b=b, bij=bij,
                    params={**problem.params, "zeta_sq": zeta_sq, "zeta_seed": seed})


def with_noise(problem: AffineVIP, std: float | np.ndarray) -> AffineVIP:
    """Exact-constant additive Gaussian noise (ours): g_i = f_i + ξ_i, E‖ξ_i‖² = s_i².

    ξ_i is coupled (same sample at x and z*), so L_g is unchanged and σ_*² gains Σ_i s_i²."""
    s = _per_client("with_noise", "std", std, problem.n)
    params = dict(problem.params)
    if np.ndim(std) == 0:
        params["noise_std"] = float(std)
    return _rebuild(problem, noise=NoiseModel(std=s), params=params)


def finite_sum(problem: AffineVIP, m: int = 10, spread: float = 1.0, seed: int = 0,
               jac_spread: float = 0.0) -> AffineVIP:
    """Finite-sum version f_i = (1/m) Σ_j F_ij (Assumption 4.3 [L246–L250]).

    b_ij = b_i + ξ_ij with Σ_j ξ_ij = 0 and (1/m) Σ_j ‖ξ_ij‖² = spread² for every client. With
    jac_spread = 0, J_ij = J_i, so ℓ̂ = ℓ and σ_*² = n·spread² exactly; jac_spread > 0 adds
    J_ij = J_i + jac_spread·E_ij (Gaussian/√d, Σ_j E_ij = 0) and ℓ̂ is the generalized
    eigenvalue λ_max((1/m)Σ_j J_ijᵀJ_ij, sym J_i)."""
    fam = "finite_sum"
    if problem.Jij is not None:
        raise BadInput("problem", f"{problem.name} already has finite-sum samples ({fam})")
    m = _int(fam, "m", m, 1)
    spread = _float(fam, "spread", spread)
    jac_spread = _float(fam, "jac_spread", jac_spread)
    if m == 1 and (spread > 0 or jac_spread > 0):
        raise BadInput("m", f"must be >= 2 when spread or jac_spread > 0 (Σ_j ξ_ij = 0) ({fam})")
    rng = _rng(fam, seed)
    n, d = problem.n, problem.d
    xi = np.zeros((n, m, d))
    if spread > 0:
        xi = rng.standard_normal((n, m, d))
        xi -= xi.mean(axis=1, keepdims=True)
        xi *= spread / np.sqrt(np.mean(np.sum(xi**2, axis=2), axis=1))[:, None, None]
        xi -= xi.mean(axis=1, keepdims=True)
    E = np.zeros((n, m, d, d))
    if jac_spread > 0:
        E = rng.standard_normal((n, m, d, d)) / math.sqrt(d)
        E -= E.mean(axis=1, keepdims=True)
    Jij = problem.J[:, None] + jac_spread * E
    bij = problem.b[:, None] + xi
    params = {**problem.params, "m": m, "spread": spread, "jac_spread": jac_spread,
              "sample_seed": seed}
    return _rebuild(problem, Jij=Jij, bij=bij, params=params)


# ---------------------------------------------------------------- the claims' instances

def with_shared_jacobian(problem: AffineVIP, zeta_sq: float, seed: int = 0) -> AffineVIP:
    """Every client gets client 1's Jacobian J_1 (heterogeneity only in b_i, ζ² = zeta_sq), so
    the mean operator keeps the client conditioning (μ_mean = μ; claims proxskip.p7, p8)."""
    J = np.repeat(problem.J[:1], problem.n, axis=0)
    shared = build(f"{problem.name}-shared", J, problem.b,
                   params={**problem.params, "shared_jacobian": 1.0})
    return with_heterogeneity(shared, zeta_sq, seed)


def kappa_family(family: str, kappa: float, seed: int = 0) -> AffineVIP:
    """n = 3, d = 4, μ = 1 instances at condition number κ = L/μ (claims proxskip.p6–p8), ζ² = 1:
    ``g-norm`` (s = √(κ² − 1), so ℓ/μ = κ²), ``g-sym`` (L = κ, ℓ = L), and ``…-shared``, the
    same with client 1's Jacobian for every client (:func:`with_shared_jacobian`)."""
    shared = family.endswith("-shared")
    zeta_sq = 0.0 if shared else 1.0
    if family.startswith("g-norm"):
        prob = g_norm(n=3, d=4, mu=1.0, s=math.sqrt(kappa**2 - 1), zeta_sq=zeta_sq, seed=seed)
    else:
        prob = g_sym(n=3, d=4, mu=1.0, L=kappa, zeta_sq=zeta_sq, seed=seed)
    return with_shared_jacobian(prob, 1.0, seed) if shared else prob


def shared_nonnormal(seed: int = 0) -> tuple[AffineVIP, dict[str, float]]:
    """Three clients sharing the most non-normal per-sample matrix J_ij (smallest ℓ_spec/ℓ) of
    the quadratic-game generator (n = 5, m = 20, d = 4), heterogeneity ζ² = 1 (claim
    proxskip.p15)."""
    Jij = quadratic_game(n=5, m=20, d=4, seed=seed).Jij.reshape(-1, 4, 4)
    ratio = spectral_cocoercivity_many(Jij) / cocoercivity_many(Jij)
    k = int(np.argmin(ratio))
    J = np.repeat(Jij[k][None], 3, axis=0)
    b = np.random.default_rng(np.random.SeedSequence([seed, 15])).standard_normal((3, 4))
    prob = with_heterogeneity(build("shared_nonnormal", J, b, params={"sample": k}), 1.0, seed)
    return prob, {"sample_index": k, "ell_spec_over_ell": float(ratio[k])}


# instances of claims proxskip.p1/p2: (label, family, arguments); "full-small" keeps 2nd ≤ 20
_P1_INSTANCES = {
    "quick": [("g_norm n=2 d=4 s=3", "g_norm", {"n": 2, "d": 4, "s": 3.0}),
              ("g_sym n=2 d=4 L=10", "g_sym", {"n": 2, "d": 4, "L": 10.0}),
              ("quadratic_game n=3 m=10 d=2", "quadratic_game", {"n": 3, "m": 10, "d": 2})],
    "full": [("g_norm n=2 d=4 s=8", "g_norm", {"n": 2, "d": 4, "s": 8.0}),
             ("g_norm n=5 d=4 s=3", "g_norm", {"n": 5, "d": 4, "s": 3.0}),
             ("g_norm n=10 d=2 s=3", "g_norm", {"n": 10, "d": 2, "s": 3.0}),
             ("g_sym n=5 d=4 L=10", "g_sym", {"n": 5, "d": 4, "L": 10.0}),
             ("g_sym n=10 d=2 L=30", "g_sym", {"n": 10, "d": 2, "L": 30.0}),
             ("quadratic_game n=5 m=20 d=4", "quadratic_game", {"n": 5, "m": 20, "d": 4}),
             ("quadratic_game n=10 m=10 d=2", "quadratic_game", {"n": 10, "m": 10, "d": 2})],
    "full-small": [("g_norm n=2 d=4 s=8", "g_norm", {"n": 2, "d": 4, "s": 8.0}),
                   ("g_norm n=5 d=2 s=3", "g_norm", {"n": 5, "d": 2, "s": 3.0}),
                   ("g_sym n=5 d=2 L=30", "g_sym", {"n": 5, "d": 2, "L": 30.0}),
                   ("quadratic_game n=5 m=20 d=2", "quadratic_game", {"n": 5, "m": 20, "d": 2})],
}


def p1_instances(table: str, seed: int = 0) -> list[tuple[str, AffineVIP]]:
    """The labelled instances of claim proxskip.p1 (G-norm, G-sym, quadratic game; ``table`` is
    quick, full or full-small, the last with state dimension 2nd ≤ 20 for proxskip.p2)."""
    family = {"g_norm": g_norm, "g_sym": g_sym, "quadratic_game": quadratic_game}
    return [(label, family[name](**kwargs, seed=seed))
            for label, name, kwargs in _P1_INSTANCES[table]]


def random_monotone(rng: np.random.Generator, k: int, d: int, normal: bool) -> np.ndarray:
    """k random strongly monotone d×d matrices: normal ones Q·blkdiag(a_j I + b_j R)·Qᵀ
    (a_j > 0, R the 90° rotation), generic non-normal ones S + K (S ≻ 0 random, K skew)
    (claim proxskip.p14)."""
    if normal:
        Q, R = np.linalg.qr(rng.standard_normal((k, d, d)))
        Q = Q * np.sign(np.diagonal(R, axis1=1, axis2=2))[:, None, :]
        D = np.zeros((k, d, d))
        for j in range(0, d - 1, 2):
            a = rng.uniform(0.1, 2.0, k)
            b = rng.uniform(-5.0, 5.0, k)
            D[:, j, j] = D[:, j + 1, j + 1] = a
            D[:, j, j + 1], D[:, j + 1, j] = b, -b
        if d % 2:
            D[:, -1, -1] = rng.uniform(0.1, 2.0, k)
        return Q @ D @ np.swapaxes(Q, 1, 2)
    G = rng.standard_normal((k, d, d))
    H = rng.standard_normal((k, d, d)) * rng.uniform(0.1, 5.0, (k, 1, 1))
    return np.swapaxes(G, 1, 2) @ G / d + 0.1 * np.eye(d) + (H - np.swapaxes(H, 1, 2)) / 2


# ---------------------------------------------------------------- CLI registry

def _real(default: float | None, doc: str, low: float = 0.0, high: float = 1e6,
          **kw: Any) -> Param:
    """A real parameter of the families: magnitudes up to 1e6 keep the constants finite."""
    return Param(default, doc, low=low, high=high, **kw)


def _size(default: int, doc: str, low: int = 1, high: int = 10_000) -> Param:
    return Param(default, doc, int, low=low, high=high)


def _footprint(clients: Callable[[Mapping[str, Any]], tuple[int, int, int]]
               ) -> Callable[[Mapping[str, Any]], tuple[float, float]]:
    """(numbers held, work to build) from (n, samples per client m, d): n·m per-sample d × d
    matrices, and exact constants: several eigenvalue problems for each client and the mean
    operator (≈ 30d³ each), two for each sample (≈ 3d³ each, batched)."""
    def footprint(values: Mapping[str, Any]) -> tuple[float, float]:
        n, m, d = clients(values)
        matrices = n * (m + 1.0)
        work = (n + 1.0) * (30.0 * d**3 + 5e5) + n * m * (3.0 * d**3 + 5e5)
        return 4.0 * matrices * d * d, work
    return footprint


def _entry(name: str, description: str, family: Callable[..., AffineVIP],
           fam_params: dict[str, Param], generated: bool,
           clients: Callable[[Mapping[str, Any]], tuple[int, int, int]]) -> ProblemEntry:
    """``generated``: the family has its own heterogeneity and finite sum (quadratic game, RLS),
    so ``zeta_sq`` defaults to "as generated" and there is no finite-sum knob; ``clients`` gives
    (n, samples per client, d) of the parameters, for the footprint."""
    knobs: dict[str, Param] = {
        "noise_std": _real(0.0, "std of coupled additive Gaussian noise per client "
                                "(σ_*² += n·std²)"),
    }
    if generated:
        knobs["zeta_sq"] = _real(None, "heterogeneity Σ‖f_i(z*)‖² via the knob (default: as "
                                       "generated)", high=1e12)
    else:
        knobs["m"] = _size(0, "finite-sum samples per client (0: none)", low=0)
        knobs["spread"] = _real(1.0, "finite-sum offset spread, (1/m)Σ_j‖ξ_ij‖² = spread²")
        knobs["jac_spread"] = _real(0.0, "finite-sum Jacobian spread (0: J_ij = J_i, ℓ̂ = ℓ)")
    allowed = {**fam_params, **knobs}

    def make(params: Mapping[str, Any], seed: int) -> AffineVIP:
        unknown = sorted(set(params) - set(allowed))
        if unknown:
            raise BadInput(unknown[0], f"unknown parameter for {name}; allowed: "
                           f"{', '.join(sorted(allowed))}")
        p = {k: params.get(k, v.default) for k, v in allowed.items()}
        prob = family(**{k: p[k] for k in fam_params}, seed=seed)
        if generated and p["zeta_sq"] is not None:
            prob = with_heterogeneity(prob, p["zeta_sq"], seed)
        if not generated and p["m"] != 0:
            prob = finite_sum(prob, m=p["m"], spread=p["spread"], seed=seed,
                              jac_spread=p["jac_spread"])
        if p["noise_std"] != 0:
            prob = with_noise(prob, p["noise_std"])
        return prob

    def sized(values: Mapping[str, Any]) -> tuple[int, int, int]:
        n, m, d = clients(values)
        return n, (m if generated else values["m"]), d

    return ProblemEntry(name=name, paper=PAPER, description=description, make=make,
                        params=allowed, footprint=_footprint(sized))


PROBLEMS: list[ProblemEntry] = [
    _entry("proxskip-g-norm", "G-norm: J_i = μI + s K_i normal, ℓ = (μ²+s²)/μ, ℓ/μ = κ² "
           "(our generator)", g_norm,
           {"n": _size(5, "clients"), "d": _size(4, "dimension (even)", low=2, high=1000),
            "mu": _real(1.0, "strong monotonicity μ of every J_i", low_open=True),
            "s": _real(3.0, "skew strength s (κ² = 1 + s²/μ²)"),
            "zeta_sq": _real(1.0, "heterogeneity ζ² = Σ‖f_i(z*)‖²", high=1e12)}, False,
           lambda v: (v["n"], 0, v["d"])),
    _entry("proxskip-g-sym", "G-sym: symmetric J_i with spectrum in [μ, L], ℓ = L (ours)",
           g_sym,
           {"n": _size(5, "clients"), "d": _size(4, "dimension", high=1000),
            "mu": _real(1.0, "smallest eigenvalue μ of every J_i", low_open=True),
            "L": _real(10.0, "largest eigenvalue L of every J_i (>= μ)", low_open=True),
            "zeta_sq": _real(1.0, "heterogeneity ζ² = Σ‖f_i(z*)‖²", high=1e12)}, False,
           lambda v: (v["n"], 0, v["d"])),
    _entry("proxskip-quadratic-game", "quadratic game, eq. (5) [L282], finite sum of m samples "
           "per client", quadratic_game,
           {"n": _size(20, "clients"), "m": _size(100, "samples per client"),
            "d": _size(20, "total dimension (two players of d/2, even)", low=2, high=1000)},
           True, lambda v: (v["n"], v["m"], v["d"])),
    _entry("proxskip-rls", "robust least squares, eq. (6), Appendix G.1, contiguous row split "
           "(per-client μ_i = 0)", rls,
           {"r": _size(200, "rows", high=100_000), "s": _size(8, "features (<= r)", high=1000),
            "n": _size(20, "clients (divides r)", high=100_000),
            "lam": _real(50.0, "penalty λ > 1", low=1, low_open=True),
            "beta_std": _real(1.0, "β₀ std"), "y_std": _real(0.01, "std of the noise in y₀")},
           True, lambda v: (v["n"], v["r"] // v["n"], v["s"] + v["r"])),
]
