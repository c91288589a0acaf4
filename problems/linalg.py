"""Exact constants of affine operators F(z) = J z + b (the ProxSkip-VIP constants, [derived]).

All quantities are eigenvalue / generalized-eigenvalue computations, never estimates:

* μ = λ_min(sym J) (strong = quasi-strong monotonicity for affine F, Assumption 2.1 [L94]);
* L = σ_max(J);
* ℓ = max_{e: eᵀSe>0} ‖Je‖² / eᵀSe with S = sym J, the largest generalized eigenvalue of
  (JᵀJ, S), equal to 1/λ_min(sym(J⁻¹)) (exact star-cocoercivity, Assumption 2.1 [L96];
  [derived]);
* ℓ_spec = 1 / min_{λ ∈ Sp(J)} Re(1/λ), the paper's formula (Appendix G [L774]), exact only
  for normal J;
* ℓ̂ = λ_max((1/m) Σ_j J_jᵀJ_j, sym J̄) for finite sums (Assumption 4.3 [L250]; [derived]);
* consensus constants (FL convention F(x) = Σ_i F_i(x_i), no 1/n, eq. (3) [L70]):
  μ_F = min_i μ_i, L_F = max_i L_i, ℓ_F = max_i ℓ_i, L_g = max_i L_{g,i}, σ_*² = Σ_i σ_i*²,
  ζ² = Σ_i ‖f_i(z*)‖².

Singular sym J (μ = 0, e.g. the RLS clients of Appendix G.1): the quotient is taken on the range
of S; if J maps a null direction of S to a nonzero vector, ℓ = ∞.
"""

from __future__ import annotations

import math

import numpy as np

RTOL = 1e-10  # relative threshold for "zero" eigenvalues of sym J (structural zeros are ~1e-16)


class NotMonotone(ValueError):
    """The operator is not monotone (λ_min(sym J) < 0): outside Assumption 2.1 / 4.1."""


def sym(J: np.ndarray) -> np.ndarray:
    """Symmetric part (J + Jᵀ)/2 over the last two axes."""
    return 0.5 * (J + np.swapaxes(J, -1, -2))


def strong_monotonicity(J: np.ndarray, *, name: str = "operator", strict: bool = True) -> float:
    """μ = λ_min(sym J); |μ| below RTOL·‖sym J‖ is reported as exactly 0.

    With ``strict`` a negative value raises :class:`NotMonotone` naming ``name``."""
    J = np.asarray(J, dtype=float)
    idx = support(J)  # inert coordinates contribute exact zero eigenvalues
    w = np.linalg.eigvalsh(sym(J[np.ix_(idx, idx)])) if idx.size else np.zeros(1)
    if idx.size < J.shape[-1]:
        w = np.concatenate([[0.0], w])
    mu = float(np.min(w))
    if abs(mu) <= RTOL * max(float(np.max(np.abs(w))), 1e-300):
        return 0.0
    if mu < 0 and strict:
        raise NotMonotone(
            f"{name}: operator is not monotone, lambda_min(sym J) = {mu:.6g} < 0 "
            "(Assumption 2.1/4.1 need mu > 0; the spectral formula 1/min Re(1/lambda) of Appendix "
            "G [L774] "
            "does not detect this)")
    return mu


def lipschitz(J: np.ndarray) -> float:
    """L = σ_max(J) (computed on the support: inert coordinates add only zero singular values)."""
    J = np.asarray(J, dtype=float)
    idx = support(J)
    return float(np.linalg.norm(J[np.ix_(idx, idx)], 2)) if idx.size else 0.0


def support(*mats: np.ndarray) -> np.ndarray:
    """Coordinates where some matrix has a nonzero row or column (the others are inert: they add
    only zero eigenvalues and zero quotients, so ℓ, ℓ̂ and ℓ_spec may be computed on the rest)."""
    nz = np.zeros(mats[0].shape[-1], dtype=bool)
    for A in mats:
        a = np.abs(A).reshape(-1, *A.shape[-2:]).max(axis=0)
        nz |= (a.max(axis=0) > 0) | (a.max(axis=1) > 0)
    return np.flatnonzero(nz)


def generalized_max(M: np.ndarray, S: np.ndarray) -> tuple[float, np.ndarray]:
    """max_{eᵀSe>0} eᵀMe / eᵀSe for PSD M and PSD S, with a maximizing direction e.

    Computed as λ_max(W M W), W = S^{-1/2} on range(S). Returns (inf, e) with e a null direction
    of S where eᵀMe > 0 when such a direction exists."""
    w, Q = np.linalg.eigh(S)
    tol = RTOL * max(float(np.max(np.abs(w))), 1e-300)
    rng_mask = w > tol
    null = Q[:, ~rng_mask]
    if null.shape[1]:
        Mn = null.T @ M @ null
        mn, vn = np.linalg.eigh(Mn)
        if mn[-1] > RTOL * max(float(np.linalg.norm(M)), 1e-300):
            return math.inf, null @ vn[:, -1]
    if not rng_mask.any():
        return 0.0, Q[:, -1]
    W = Q[:, rng_mask] / np.sqrt(w[rng_mask])
    lam, V = np.linalg.eigh(W.T @ M @ W)
    return float(lam[-1]), W @ V[:, -1]


def _generalized_max_batch(M: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Batched :func:`generalized_max` values for stacks M, S (k, d, d) (same masking rules)."""
    w, Q = np.linalg.eigh(S)
    tol = RTOL * np.maximum(np.max(np.abs(w), axis=-1, keepdims=True), 1e-300)
    rng_mask = w > tol
    Wn = Q * (~rng_mask)[:, None, :]
    mn = np.linalg.eigvalsh(np.swapaxes(Wn, 1, 2) @ M @ Wn)[:, -1]
    W = Q * np.where(rng_mask, 1.0 / np.sqrt(np.where(rng_mask, w, 1.0)), 0.0)[:, None, :]
    lam = np.linalg.eigvalsh(np.swapaxes(W, 1, 2) @ M @ W)[:, -1]
    inf = mn > RTOL * np.maximum(np.linalg.norm(M, axis=(1, 2)), 1e-300)
    return np.where(inf, math.inf, lam)


def cocoercivity_many(Js: np.ndarray) -> np.ndarray:
    """Exact ℓ of each matrix of a stack (k, d, d), inf for non-monotone ones (per-sample ℓ_ij,
    which Assumption 4.3 does not require to be finite). Batched over equal support sizes."""
    Js = np.asarray(Js, dtype=float)
    out = np.empty(Js.shape[0])
    idxs = [support(J) for J in Js]
    for size in {i.size for i in idxs}:
        sel = [k for k, i in enumerate(idxs) if i.size == size]
        if size == 0:
            out[sel] = 0.0
            continue
        ix = np.stack([idxs[k] for k in sel])
        Jr = Js[np.array(sel)[:, None, None], ix[:, :, None], ix[:, None, :]]
        S = sym(Jr)
        w = np.linalg.eigvalsh(S)
        scale = np.maximum(np.max(np.abs(w), axis=-1), 1e-300)
        vals = _generalized_max_batch(np.swapaxes(Jr, 1, 2) @ Jr, S)
        out[sel] = np.where(w[:, 0] < -RTOL * scale, math.inf, vals)
    return out


def spectral_cocoercivity_many(Js: np.ndarray) -> np.ndarray:
    """:func:`spectral_cocoercivity` of each matrix of a stack (k, d, d)."""
    Js = np.asarray(Js, dtype=float)
    lam = np.linalg.eigvals(Js)
    scale = np.maximum(np.max(np.abs(lam), axis=-1, keepdims=True), 1e-300)
    keep = np.abs(lam) > RTOL * scale
    inv = np.where(keep, 1.0 / np.where(keep, lam, 1.0), np.inf).real
    r = np.min(inv, axis=-1)
    return np.where(~keep.any(axis=-1), 0.0, np.where(r <= 0, math.inf, 1.0 / r))


def constant_table(Js: np.ndarray) -> dict[str, np.ndarray]:
    """μ, L, exact ℓ, the paper's ℓ_spec and the non-normality ‖JJᵀ − JᵀJ‖/L² of each matrix of
    a stack (k, d, d) ([derived])."""
    Js = np.asarray(Js, dtype=float)
    JT = np.swapaxes(Js, 1, 2)
    L = np.linalg.svd(Js, compute_uv=False)[:, 0]
    return {"mu": np.linalg.eigvalsh(0.5 * (Js + JT))[:, 0], "L": L,
            "ell": cocoercivity_many(Js), "ell_spec": spectral_cocoercivity_many(Js),
            "nonnormality": np.linalg.norm(Js @ JT - JT @ Js, axis=(1, 2)) / L**2}


def cocoercivity(J: np.ndarray, *, name: str = "operator", strict: bool = True) -> float:
    """Exact (star-)cocoercivity ℓ of z ↦ Jz + b: λ_max(JᵀJ, sym J) ([derived]).

    Raises :class:`NotMonotone` (``strict``) or returns inf when J is not monotone."""
    return cocoercivity_direction(J, name=name, strict=strict)[0]


def cocoercivity_direction(J: np.ndarray, *, name: str = "operator",
                           strict: bool = True) -> tuple[float, np.ndarray]:
    """ℓ and a direction e attaining ‖Je‖² = ℓ⟨Je, e⟩ (the generalized eigenvector)."""
    J = np.asarray(J, dtype=float)
    idx = support(J)
    e = np.zeros(J.shape[-1])
    if idx.size == 0:
        return 0.0, e
    Jr = J[np.ix_(idx, idx)]  # inert coordinates only add zero eigenvalues to sym J
    try:
        strong_monotonicity(Jr, name=name, strict=True)
    except NotMonotone:
        if strict:
            raise
        return math.inf, e
    ell, er = generalized_max(Jr.T @ Jr, sym(Jr))
    e[idx] = er
    return ell, e


def averaged_cocoercivity(Jj: np.ndarray, *, name: str = "operator",
                          strict: bool = True) -> tuple[float, np.ndarray]:
    """ℓ̂ = λ_max((1/m) Σ_j J_jᵀJ_j, sym J̄) for samples Jj (m, d, d) (Assumption 4.3 [L250]).

    Returns (ℓ̂, maximizing direction)."""
    Jj = np.asarray(Jj, dtype=float)
    idx = support(Jj)
    e = np.zeros(Jj.shape[-1])
    if idx.size == 0:
        return 0.0, e
    Jr = Jj[:, idx][:, :, idx]
    try:
        strong_monotonicity(Jr.mean(axis=0), name=name, strict=True)
    except NotMonotone:
        if strict:
            raise
        return math.inf, e
    M = np.einsum("jki,jkl->il", Jr, Jr) / Jr.shape[0]
    ell, er = generalized_max(M, sym(Jr.mean(axis=0)))
    e[idx] = er
    return ell, e


def spectral_cocoercivity(J: np.ndarray) -> float:
    """The paper's ℓ_spec = 1 / min_{λ ∈ Sp(J), λ ≠ 0} Re(1/λ) (Appendix G [L774];
    exact only for normal J).

    Zero eigenvalues are skipped (the range convention of :func:`generalized_max`); inf when some
    Re(1/λ) ≤ 0."""
    J = np.asarray(J, dtype=float)
    idx = support(J)
    if idx.size == 0:
        return 0.0
    lam = np.linalg.eigvals(J[np.ix_(idx, idx)])
    scale = max(float(np.max(np.abs(lam))), 1e-300)
    lam = lam[np.abs(lam) > RTOL * scale]
    if lam.size == 0:
        return 0.0
    r = float(np.min((1.0 / lam).real))
    return math.inf if r <= 0 else 1.0 / r


def affine_vip_constants(J: np.ndarray, b: np.ndarray, z_star: np.ndarray, *,
                         Jij: np.ndarray | None = None, bij: np.ndarray | None = None,
                         noise_std: np.ndarray | None = None,
                         name: str = "problem") -> dict[str, float | tuple[float, ...]]:
    """All exact constants of a federated affine VIP (consensus convention, [derived]).

    Per-client tuples: mu_i, L_i, ell_i, ell_spec_i, zeta_i_sq, sigma_i_sq, L_g_i (and ell_hat_i
    for finite sums). Scalars: mu, L, ell, ell_spec, kappa = L/mu, zeta_sq, sigma_star_sq,
    sigma_star, L_g; mean-operator (problem (1), F = (1/n) Σ f_i) constants mu_mean, L_mean,
    ell_mean, ell_spec_mean; for finite sums ell_hat = max_i ℓ̂_i, ell_ij_max (exact) and
    ell_spec_ij_max (the paper's rule, Table G, Appendix G [L784–L786]), m. σ_*² is for the
    coupled single-sample estimator g_i = F_{i,j} + ξ_i, j ~ Unif[m] (Assumption 4.1), so
    L_g = ℓ̂ (finite sum) or ℓ.

    Raises :class:`NotMonotone` naming ``name`` when some client operator is not monotone."""
    J = np.asarray(J, dtype=float)
    b = np.asarray(b, dtype=float)
    z_star = np.asarray(z_star, dtype=float)
    n = J.shape[0]
    mu_i = [strong_monotonicity(J[i], name=f"{name} (client {i})") for i in range(n)]
    L_i = [lipschitz(J[i]) for i in range(n)]
    ell_i = [cocoercivity(J[i], name=f"{name} (client {i})") for i in range(n)]
    ell_spec_i = [spectral_cocoercivity(J[i]) for i in range(n)]
    fz = np.einsum("nij,j->ni", J, z_star) + b
    zeta_i_sq = [float(v) for v in np.sum(fz**2, axis=1)]
    Jbar = J.mean(axis=0)
    out: dict[str, float | tuple[float, ...]] = {
        "mu": min(mu_i), "L": max(L_i), "ell": max(ell_i), "ell_spec": max(ell_spec_i),
    }
    out["kappa"] = out["L"] / out["mu"] if out["mu"] > 0 else math.inf
    out.update({
        "mu_mean": strong_monotonicity(Jbar, name=f"{name} (mean operator)"),
        "L_mean": lipschitz(Jbar),
        "ell_mean": cocoercivity(Jbar, name=f"{name} (mean operator)"),
        "ell_spec_mean": spectral_cocoercivity(Jbar),
        "zeta_sq": float(sum(zeta_i_sq)),
    })
    sigma_i_sq = [0.0] * n
    L_g_i = list(ell_i)
    if Jij is not None:
        Jij = np.asarray(Jij, dtype=float)
        bij = np.asarray(bij, dtype=float)
        m = Jij.shape[1]
        ell_hat_i = [averaged_cocoercivity(Jij[i], name=f"{name} (client {i})")[0]
                     for i in range(n)]
        dev = np.einsum("nmij,j->nmi", Jij, z_star) + bij - fz[:, None, :]
        sigma_i_sq = [float(v) for v in np.mean(np.sum(dev**2, axis=2), axis=1)]
        L_g_i = ell_hat_i
        flat = Jij.reshape(-1, *Jij.shape[2:])
        out.update({"ell_hat": max(ell_hat_i), "ell_hat_i": tuple(ell_hat_i),
                    "ell_ij_max": float(cocoercivity_many(flat).max()),
                    "ell_spec_ij_max": float(spectral_cocoercivity_many(flat).max()),
                    "m": float(m)})
    if noise_std is not None:
        s = np.broadcast_to(np.asarray(noise_std, dtype=float), (n,))
        sigma_i_sq = [a + float(v) ** 2 for a, v in zip(sigma_i_sq, s, strict=True)]
    out["sigma_star_sq"] = float(sum(sigma_i_sq))
    out["sigma_star"] = math.sqrt(out["sigma_star_sq"])
    out["L_g"] = max(L_g_i)
    out.update({"mu_i": tuple(mu_i), "L_i": tuple(L_i), "ell_i": tuple(ell_i),
                "ell_spec_i": tuple(ell_spec_i), "zeta_i_sq": tuple(zeta_i_sq),
                "sigma_i_sq": tuple(sigma_i_sq), "L_g_i": tuple(L_g_i)})
    return out
