"""Federated min-max quadratic games with exact constants (sagda.md §8, fed_norm_sgda.md §8,
fedsgda_m.md §8.1).

Client i owns f_i(x, y) = ½xᵀA_ix + xᵀB_iy − ½yᵀC_iy + b_iᵀx − c_iᵀy (+ λ Σ_j cos x_j, the
nonconvex-in-x variant), with weights p_i (F = Σ_i p_i f_i). With z = (x, y) ∈ R^{dx+dy} the joint
gradient is affine, ∇f_i(z) = H_i z + h_i with H_i = [[A_i, B_i], [B_iᵀ, −C_i]], h_i = (b_i, −c_i).

* L_f = max_i ‖H_i‖₂ (the cosine term adds λ to the x-block curvature range, handled exactly by the
  vertex rule of fedsgda_m.md §8.1), μ = min_i λ_min(C_i), κ = L_f/μ, L = L_f + L_f²/μ;
* saddle of any weighted objective z*(w): H̄_w z = −h̄_w; envelope y*(x) = C̄⁻¹(B̄ᵀx − c̄),
  ∇Φ(x) = Āx + b̄ + B̄y*(x) − λ sin x (closed form; stationary points by root finding if λ ≠ 0);
* heterogeneity by construction: identical Hessians (``hess_spread = 0``) and linear terms
  b_i = b₀ + σ_G e_i, c_i = c₀ + σ_G e'_i with Σ p_i e_i = 0, Σ p_i ‖e_i‖² = 1, so
  σ_{x,G}² = σ_{y,G}² = σ_G², β_G = 1, ζ² = 2σ_G² exactly, and L_f, μ do not depend on σ_G;
* noise: additive Gaussian with E‖ξ_x‖² = σ_x², E‖ξ_y‖² = σ_y² plus a multiplicative part with
  E‖ξ‖² = σ_x² + σ_y² + β_L²‖∇f_i‖² (fed_norm_sgda.md A3); σ_L² = σ_x² + σ_y²;
* NC-C variant: C_i = 0 and y restricted to the ball ‖y‖ ≤ r (algorithms project), with
  Φ(x) = ½xᵀĀx + b̄ᵀx + r‖B̄ᵀx − c̄‖ and the Moreau-envelope gradient by a strongly convex solve.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from itertools import product
from typing import Any

import numpy as np

from fedbounds.errors import BadInput
from fedbounds.params import Param

from .base import ProblemEntry


def _frozen(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only (in place) and returned."""
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class MinMaxGame:
    """A federated quadratic min-max game; arrays are client-stacked (first axis M)."""

    name: str
    A: np.ndarray  # (M, dx, dx) symmetric
    B: np.ndarray  # (M, dx, dy)
    C: np.ndarray  # (M, dy, dy) symmetric, ⪰ μI (zero for NC-C)
    b: np.ndarray  # (M, dx)
    c: np.ndarray  # (M, dy)
    p: np.ndarray  # (M,) weights, sum 1
    sigma_x: float = 0.0
    sigma_y: float = 0.0
    beta_L: float = 0.0
    lam: float = 0.0  # λ of the λ Σ cos x_j term
    radius: float | None = None  # NC-C: ‖y‖ ≤ radius
    z0: np.ndarray | None = None  # default start
    constants: dict[str, float] = field(default_factory=dict)
    params: dict[str, float] = field(default_factory=dict)

    # ---- shapes ---------------------------------------------------------------------------------
    @property
    def M(self) -> int:
        return int(self.A.shape[0])

    @property
    def dx(self) -> int:
        return int(self.A.shape[1])

    @property
    def dy(self) -> int:
        return int(self.C.shape[1])

    @property
    def d(self) -> int:
        return self.dx + self.dy

    def __post_init__(self) -> None:
        """Own read-only copies of the arrays: the game cannot change after construction, so
        the matrices derived from it (:attr:`H`, :attr:`h`, :meth:`coord_var`, …) are computed
        once per instance (:meth:`_derived`; :func:`dataclasses.replace` makes a new instance
        with an empty cache)."""
        for name in ("A", "B", "C", "b", "c", "p", "z0"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _frozen(np.array(value)))

    def _derived(self, key: str, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """``compute()`` once per instance, as a read-only array (kept under ``_cache``, which
        ``{k: v for k, v in game.__dict__.items() if not k.startswith("_")}`` leaves out)."""
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            cache[key] = _frozen(compute())
        return cache[key]

    @property
    def H(self) -> np.ndarray:
        """Joint Jacobians H_i = [[A_i, B_i], [B_iᵀ, −C_i]], shape (M, d, d) (read-only)."""
        def joint() -> np.ndarray:
            top = np.concatenate([self.A, self.B], axis=2)
            bot = np.concatenate([self.B.transpose(0, 2, 1), -self.C], axis=2)
            return np.concatenate([top, bot], axis=1)
        return self._derived("H", joint)

    @property
    def h(self) -> np.ndarray:
        """Joint offsets h_i = (b_i, −c_i), shape (M, d) (read-only)."""
        return self._derived("h", lambda: np.concatenate([self.b, -self.c], axis=1))

    @property
    def noisy(self) -> bool:
        return self.sigma_x > 0 or self.sigma_y > 0 or self.beta_L > 0

    @property
    def affine(self) -> bool:
        """True when every client gradient is affine in z (no cosine term, no projection)."""
        return self.lam == 0 and self.radius is None

    def coord_var(self) -> np.ndarray:
        """Per-coordinate additive noise variance: σ_x²/dx on x, σ_y²/dy on y (read-only)."""
        return self._derived("coord_var", lambda: np.concatenate(
            [np.full(self.dx, self.sigma_x**2 / self.dx),
             np.full(self.dy, self.sigma_y**2 / self.dy)]))

    # ---- weighted objectives --------------------------------------------------------------------
    def weights(self, w: np.ndarray | None) -> np.ndarray:
        return self.p if w is None else np.asarray(w, dtype=float)

    def mean_blocks(self, w: np.ndarray | None = None):
        w = self.weights(w)
        return (np.einsum("m,mij->ij", w, self.A), np.einsum("m,mij->ij", w, self.B),
                np.einsum("m,mij->ij", w, self.C), w @ self.b, w @ self.c)

    def z_star(self, w: np.ndarray | None = None) -> np.ndarray:
        """Saddle of Σ w_i f_i (λ = 0): solves H̄_w z = −h̄_w (fed_norm_sgda.md §8)."""
        w = self.weights(w)
        return np.linalg.solve(np.einsum("m,mij->ij", w, self.H), -(w @ self.h))

    def y_star(self, x: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """ỹ*(x) = C̄⁻¹(B̄ᵀx − c̄) for x (..., dx)."""
        _, B, C, _, c = self.mean_blocks(w)
        return (x @ B - c) @ np.linalg.inv(C)  # C̄ symmetric

    def _phi_affine(self, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(Gᵀ, g0) with Āx + b̄ + B̄y*(x) = x Gᵀ + g0, cached for the game's own weights."""
        cache = self.__dict__.setdefault("_cache", {})
        if w is None and "phi" in cache:
            return cache["phi"]
        A, B, C, b, c = self.mean_blocks(w)
        Ci = np.linalg.inv(C)
        out = ((A + B @ Ci @ B.T).T, b - B @ Ci @ c)
        if w is None:
            cache["phi"] = out
        return out

    def grad_phi(self, x: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """∇Φ(x) = Āx + b̄ + B̄y*(x) − λ sin x (Danskin), x (..., dx)."""
        GT, g0 = self._phi_affine(w)
        out = x @ GT + g0
        return out - self.lam * np.sin(x) if self.lam else out

    def phi(self, x: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """Φ(x) = max_y F(x, y) in closed form, x (..., dx)."""
        A, B, C, b, c = self.mean_blocks(w)
        if self.radius is not None:
            return (0.5 * np.einsum("...i,ij,...j->...", x, A, x) + x @ b
                    + self.radius * np.linalg.norm(x @ B - c, axis=-1) + self.lam * np.cos(x).sum(-1))
        y = self.y_star(x, w)
        return (0.5 * np.einsum("...i,ij,...j->...", x, A, x) + np.einsum("...i,ij,...j->...", x, B, y)
                - 0.5 * np.einsum("...i,ij,...j->...", y, C, y) + x @ b - y @ c
                + self.lam * np.cos(x).sum(-1))

    def grad_phi_sq_map(self, w: np.ndarray | None = None) -> Callable[[np.ndarray], np.ndarray]:
        """x ↦ :meth:`grad_phi_sq` (x, w) with the affine part of ∇Φ taken once (the same
        numbers; for a metric recorded every step). The affine part is made at the first call,
        as :meth:`grad_phi_sq` would (a singular C̄ fails there, not here)."""
        if self.radius is not None:
            return lambda x: self.moreau_grad_sq(x, w)
        lam = self.lam
        affine: list[tuple[np.ndarray, np.ndarray]] = []

        def grad_phi_sq(x: np.ndarray) -> np.ndarray:
            if not affine:
                affine.append(self._phi_affine(w))
            GT, g0 = affine[0]
            g = x @ GT + g0
            if lam:
                g = g - lam * np.sin(x)
            return np.einsum("...i,...i->...", g, g)
        return grad_phi_sq

    def grad_phi_sq(self, x: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        if self.radius is not None:
            return self.moreau_grad_sq(x, w)
        g = self.grad_phi(x, w)
        return np.einsum("...i,...i->...", g, g)

    def stationary_points(self, w: np.ndarray | None = None, starts: int = 32,
                          seed: int = 0) -> np.ndarray:
        """Stationary points of Φ (∇Φ = 0) by root finding from random starts (λ ≠ 0) or the
        linear solve (λ = 0); unique rows, shape (k, dx)."""
        from scipy.optimize import root

        A, B, C, _, _ = self.mean_blocks(w)
        if self.lam == 0:
            return self.z_star(w)[None, : self.dx]
        Hphi = A + B @ np.linalg.solve(C, B.T)
        rng = np.random.default_rng(seed)
        pts: list[np.ndarray] = []
        for _ in range(starts):
            x0 = rng.uniform(-2 * np.pi, 2 * np.pi, self.dx)
            r = root(lambda x: self.grad_phi(x, w), x0,
                     jac=lambda x: Hphi - self.lam * np.diag(np.cos(x)), tol=1e-14)
            if r.success and np.linalg.norm(self.grad_phi(r.x, w)) < 1e-10 and \
                    not any(np.linalg.norm(r.x - q) < 1e-7 for q in pts):
                pts.append(r.x)
        return np.array(pts)

    def moreau_grad_sq(self, x: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """NC-C stationarity ‖∇Φ_{1/2L_f}(x)‖² = ‖2L_f(x − x̂)‖², x̂ = argmin Φ(u) + L_f‖u − x‖²
        (fed_norm_sgda.md Def. 4); strongly convex solve per point."""
        from scipy.optimize import minimize

        Lf = self.constants["L_f"]
        X = np.atleast_2d(x)
        out = np.empty(X.shape[0])
        for k, xk in enumerate(X):
            r = minimize(lambda u, xk=xk: float(self.phi(u, w)) + Lf * float((u - xk) @ (u - xk)),
                         xk, method="BFGS", options={"gtol": 1e-10})
            out[k] = float(np.sum((2 * Lf * (xk - r.x)) ** 2))
        return out.reshape(np.shape(x)[:-1])

    # ---- heterogeneity constants (exact for hess_spread = 0) ------------------------------------
    def heterogeneity(self, w: np.ndarray | None = None) -> dict[str, float]:
        """σ_{x,G}², σ_{y,G}² (weighted BGD), σ_G² = max of the two (Fed-Norm A4, β_G = 1),
        ζ² = joint dissimilarity: exact when the Hessians are identical (bias–variance identity)."""
        w = self.weights(w)
        if not np.allclose(self.H, self.H[0]):
            return {"sigma_xG_sq": float("nan"), "sigma_yG_sq": float("nan"),
                    "sigma_G_sq": float("nan"), "zeta_sq": float("nan"), "beta_G": float("nan")}
        sx = float(w @ np.sum((self.b - w @ self.b) ** 2, axis=1))
        sy = float(w @ np.sum((self.c - w @ self.c) ** 2, axis=1))
        return {"sigma_xG_sq": sx, "sigma_yG_sq": sy, "sigma_G_sq": max(sx, sy),
                "zeta_sq": sx + sy, "beta_G": 1.0}


# ---- construction --------------------------------------------------------------------------------
def _zero_mean_unit(rng: np.random.Generator, p: np.ndarray, d: int) -> np.ndarray:
    """Rows e_i with Σ p_i e_i = 0 and Σ p_i ‖e_i‖² = 1 (exact up to rounding)."""
    e = rng.standard_normal((len(p), d))
    e -= p @ e
    s = float(p @ np.sum(e**2, axis=1))
    return e / np.sqrt(s) if s > 0 else e


UNIT_ROUNDOFF = 2.0**-53  # float64's: a rounded product or sum errs by at most this, relative


def roundoff_perturbed(g: MinMaxGame, seed: int, size: float = 2 * UNIT_ROUNDOFF) -> MinMaxGame:
    """``g`` with every entry of A, B, C, b and c multiplied by 1 ± ``size`` (signs seeded; A and
    C kept symmetric): the perturbation one rounding of each input makes. How far a result moves
    under it measures how many of the result's digits the computation determines, on any
    processor (tests derive their tolerances from it)."""
    rng = np.random.default_rng(seed)

    def moved(a: np.ndarray) -> np.ndarray:
        return a * (1 + size * rng.choice((-1.0, 1.0), a.shape))

    A, C = moved(g.A), moved(g.C)
    return replace(g, A=(A + A.transpose(0, 2, 1)) / 2, B=moved(g.B),
                   C=(C + C.transpose(0, 2, 1)) / 2, b=moved(g.b), c=moved(g.c))


def make_game(params: Mapping[str, Any] | None = None, seed: int = 0,
              name: str = "minmax-quadratic") -> MinMaxGame:
    """Build a game from ``params`` (see :data:`PARAMS`; missing keys take defaults)."""
    q: dict[str, Any] = {k: p.default for k, p in PARAMS.items()}
    q.update(params or {})
    M, dx, dy = int(q["M"]), int(q["dx"]), int(q["dy"])
    for key, size in (("M", M), ("dx", dx), ("dy", dy)):
        if size < 1:
            raise BadInput(key, f"must be a positive integer, got {q[key]!r}")
    if q["mu"] <= 0 and q["radius"] <= 0:
        raise BadInput("mu", "must be > 0 (or set radius > 0 for the NC-C variant with "
                       "mu = 0)")
    rng = np.random.default_rng([seed, 11])
    # weights: uniform (p_skew = 0) or geometric p_i ∝ (1 + p_skew)^{-i}
    p = (1.0 + q["p_skew"]) ** -np.arange(M, dtype=float)
    p /= p.sum()
    Ux = np.linalg.qr(rng.standard_normal((dx, dx)))[0]
    a_eigs = np.linspace(q["a"], q["a"] * q["a_ratio"], dx)
    A = Ux @ np.diag(a_eigs) @ Ux.T
    A = 0.5 * (A + A.T)
    k = min(dx, dy)
    Ub = np.linalg.qr(rng.standard_normal((dx, dx)))[0][:, :k]
    Vb = np.linalg.qr(rng.standard_normal((dy, dy)))[0][:, :k]
    B = q["bxy"] * Ub @ Vb.T
    nc_c = q["radius"] > 0
    C = np.zeros((dy, dy)) if nc_c else np.diag(np.linspace(q["mu"], q["mu"] * q["c_ratio"], dy))
    As = np.repeat(A[None], M, 0)
    if q["hess_spread"] > 0:
        S = rng.standard_normal((M, dx, dx))
        S = 0.5 * (S + S.transpose(0, 2, 1))
        S -= np.einsum("m,mij->ij", p, S)
        As = As + q["hess_spread"] * S
    Bs, Cs = np.repeat(B[None], M, 0), np.repeat(C[None], M, 0)
    b0 = rng.standard_normal(dx)
    c0 = rng.standard_normal(dy)
    b = b0 + q["sigma_G"] * _zero_mean_unit(rng, p, dx)
    c = c0 + q["sigma_G"] * _zero_mean_unit(rng, p, dy)
    radius = float(np.sqrt(q["radius"])) if nc_c else None
    game = MinMaxGame(name=name, A=As, B=Bs, C=Cs, b=b, c=c, p=p, sigma_x=q["sigma_x"],
                      sigma_y=q["sigma_y"], beta_L=q["beta_L"], lam=q["lam"], radius=radius,
                      params=dict(q))
    if game.affine:  # the saddle z* solves H̄ z = −h̄: it must exist and be unique
        try:
            game.z_star()
        except np.linalg.LinAlgError:
            raise BadInput("a", "the game has no unique saddle point (the mean joint Hessian "
                           "[[A, B], [Bᵀ, −C]] is singular); change a, a_ratio or bxy") from None
    consts = constants(game)
    z0 = np.concatenate([np.full(dx, q["x0"]), np.full(dy, q["y0"])])
    fields = {k: v for k, v in game.__dict__.items() if not k.startswith("_")}
    return MinMaxGame(**{**fields, "constants": consts, "z0": z0})


def constants(g: MinMaxGame) -> dict[str, float]:
    """Exact L_f, μ, κ, L = L_f + L_f²/μ, noise and heterogeneity constants."""
    H = g.H
    if g.lam == 0:
        Lf = float(max(np.linalg.norm(Hi, 2) for Hi in H))
    else:  # the cosine adds diag(−λ cos x) ∈ [−λ, λ] per coordinate: maximise at the vertices
        Lf = 0.0
        for Hi in H:
            for s in product((-g.lam, g.lam), repeat=g.dx):
                D = np.zeros_like(Hi)
                D[: g.dx, : g.dx] = np.diag(s)
                Lf = max(Lf, float(np.linalg.norm(Hi + D, 2)))
    mu = float(min(np.linalg.eigvalsh(Ci)[0] for Ci in g.C))
    out = {"L_f": Lf, "mu": mu, "M": float(g.M), "dx": float(g.dx), "dy": float(g.dy),
           "sigma_x": g.sigma_x, "sigma_y": g.sigma_y, "sigma_L": float(np.hypot(g.sigma_x, g.sigma_y)),
           "sigma": float(np.hypot(g.sigma_x, g.sigma_y)), "beta_L": g.beta_L}
    if mu > 0:
        out.update(kappa=Lf / mu, L=Lf + Lf**2 / mu)
    out.update(g.heterogeneity())
    out["sigma_G"] = float(np.sqrt(out["sigma_G_sq"])) if np.isfinite(out["sigma_G_sq"]) else float("nan")
    out["zeta"] = float(np.sqrt(out["zeta_sq"])) if np.isfinite(out["zeta_sq"]) else float("nan")
    return out


def _real(default: float, doc: str, low: float = -1e6, high: float = 1e6, **kw: Any) -> Param:
    """A real parameter of the games: magnitudes up to 1e6 keep every exact constant finite."""
    return Param(default, doc, low=low, high=high, **kw)


PARAMS: dict[str, Param] = {
    "M": Param(10, "number of clients (M = n = N in the papers)", int, low=1, high=100_000),
    "dx": Param(2, "dimension of x", int, low=1, high=1000),
    "dy": Param(2, "dimension of y", int, low=1, high=1000),
    "a": _real(1.0, "largest eigenvalue of A (x-curvature)"),
    "a_ratio": _real(0.5, "smallest/largest eigenvalue of A"),
    "bxy": _real(1.0, "singular value of the coupling B", low=0),
    "mu": _real(1.0, "strong concavity μ = λ_min(C) (0 only with radius > 0)", low=0),
    "c_ratio": _real(1.0, "λ_max(C)/λ_min(C)", low=1),
    "sigma_G": _real(1.0, "heterogeneity of the linear terms (σ_{x,G} = σ_{y,G} = σ_G exactly)",
                     low=0),
    "hess_spread": _real(0.0, "spread of client Hessians A_i around A (0: identical Hessians)",
                         low=0),
    "sigma_x": _real(0.0, "additive noise, E‖ξ_x‖² = σ_x²", low=0),
    "sigma_y": _real(0.0, "additive noise, E‖ξ_y‖² = σ_y²", low=0),
    "beta_L": _real(0.0, "multiplicative noise β_L (E‖ξ‖² += β_L²‖∇f_i‖²)", low=0),
    "lam": _real(0.0, "λ of the nonconvex term λ Σ cos x_j"),
    "radius": _real(0.0, "NC-C variant: R with ‖y‖² ≤ R and C = 0 (0: off)", low=0),
    "p_skew": _real(0.0, "client weights p_i ∝ (1 + p_skew)^{-i} (0: uniform)", low=0, high=100),
    "x0": _real(1.0, "initial x (all coordinates)"),
    "y0": _real(0.0, "initial y (all coordinates)"),
}


def _family(drop: tuple[str, ...] = (), **defaults: Any) -> dict[str, Param]:
    """:data:`PARAMS` without ``drop`` and with the family's own defaults."""
    return {k: replace(p, default=defaults.get(k, p.default)) for k, p in PARAMS.items()
            if k not in drop}


SCALAR_PARAMS = _family(("dx", "dy", "a_ratio"))  # dx = dy = 1: A = a, one eigenvalue
COS_PARAMS = _family(lam=0.5)
NCC_PARAMS = {**_family(("mu", "c_ratio"), radius=1.0),  # C = 0: μ and λ_max(C)/μ do not exist
              "radius": _real(1.0, "R with ‖y‖² ≤ R (C = 0)", low=0, low_open=True)}


def footprint(values: Mapping[str, Any], dx: int | None = None, dy: int | None = None
              ) -> tuple[float, float]:
    """(numbers held, work to build) of a game: M stacked (d × d) blocks and a 2-norm per
    client; with λ ≠ 0 the exact L_f maximises over the 2^dx vertices of the cosine term."""
    M = values["M"]
    dx = values["dx"] if dx is None else dx
    dy = values["dy"] if dy is None else dy
    d = dx + dy
    work = M * (10.0 * d**3 + 1e5)
    if values.get("lam", 0):
        work += M * 2.0**dx * (10.0 * d**3 + 1e5)
    return 6.0 * M * d * d, work


def _scalar(params: Mapping[str, Any], seed: int) -> MinMaxGame:
    """SAGDA P8 instance: f_i = ½x² + xy − ½y² + b_i x − c_i y (a = b = μ = 1, L_f = √2)."""
    q = {**params, "dx": 1, "dy": 1, "a_ratio": 1.0}
    return make_game(q, seed, "minmax-scalar")


def _ncc(params: Mapping[str, Any], seed: int) -> MinMaxGame:
    q = {"radius": 1.0, **params, "mu": 0.0}
    return make_game(q, seed, "minmax-ncc")


def _cos(params: Mapping[str, Any], seed: int) -> MinMaxGame:
    q = {"lam": 0.5, **params}
    return make_game(q, seed, "minmax-cos")


PROBLEMS = [
    ProblemEntry("minmax-quadratic", "sagda",
                 "min-max quadratic game f_i = ½xᵀAx + xᵀBy − ½yᵀCy + b_iᵀx − c_iᵀy, exact L_f, μ, σ_G",
                 lambda params, seed: make_game(params, seed), PARAMS, footprint),
    ProblemEntry("minmax-scalar", "sagda", "scalar game ½x² + xy − ½y² + b_i x − c_i y (SAGDA P8)",
                 _scalar, SCALAR_PARAMS, lambda v: footprint(v, 1, 1)),
    ProblemEntry("minmax-cos", "fednorm", "nonconvex-in-x game: quadratic + λ Σ cos x_j",
                 _cos, COS_PARAMS, footprint),
    ProblemEntry("minmax-ncc", "fednorm", "NC-C game: C = 0, y in the ball ‖y‖² ≤ R", _ncc,
                 NCC_PARAMS, footprint),
]


# ---- additions for the SAGDA / FedSGDA claims (issue 15) -----------------------------------------
def with_coupling_spread(g: MinMaxGame, spread: float, seed: int) -> MinMaxGame:
    """The game with client-specific couplings B_i = B̄ + spread·E_i, Σ p_i E_i = 0 (E_i standard
    normal, from ``seed``): client Hessians that differ in the x–y block, F and Φ unchanged,
    constants recomputed exactly (L_f = max_i ‖H_i‖₂ grows with the spread)."""
    rng = np.random.default_rng([seed, 12])
    E = rng.standard_normal(g.B.shape)
    E -= np.einsum("m,mij->ij", g.p, E)
    h = replace(g, B=g.B + spread * E, constants={})
    return replace(h, constants=constants(h))


@dataclass(frozen=True)
class MoreauPoint:
    """The NC-C game's Moreau envelope Φ_{1/2L_f} at points x (..., dx): the prox point x̂, the
    gradient ∇Φ_{1/2L_f}(x) = 2L_f(x − x̂) and its squared norm, the envelope's value bracketed
    by [lower, upper] (dual and primal values of the inner problem), and ``error`` ≥
    ‖∇Φ_{1/2L_f}(x) − computed gradient‖, certified by the duality gap."""

    prox: np.ndarray
    grad: np.ndarray
    grad_sq: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    error: np.ndarray


def ncc_moreau(g: MinMaxGame, x: np.ndarray) -> MoreauPoint:
    """Moreau envelope of Φ(u) = ½uᵀĀu + b̄ᵀu + r‖B̄ᵀu − c̄‖ (the NC-C game, C = 0, λ = 0) with
    parameter 1/(2L_f) at x (..., dx), by an inner solve with a certified accuracy.

    The inner problem min_u Φ(u) + L_f‖u − x‖² is min_u max_{‖y‖≤r} ψ(u, y) with ψ quadratic,
    ψ = ½uᵀĀu + b̄ᵀu + yᵀ(B̄ᵀu − c̄) + L_f‖u − x‖²; for fixed y its minimiser is
    u(y) = P⁻¹(2L_f x − b̄ − B̄y), P = Ā + 2L_f I ⪰ L_f I (‖Ā‖ ≤ L_f), and the dual
    max_{‖y‖≤r} −½yᵀWy + qᵀy (W = B̄ᵀP⁻¹B̄, q = B̄ᵀP⁻¹(2L_f x − b̄) − c̄) is a trust-region problem
    solved in W's eigenbasis by bisection on its multiplier. The duality gap
    δ = h(u(y)) − d(y) ≥ 0 bounds the error: h is (λ_min(Ā) + 2L_f)-strongly convex, so
    ‖u(y) − x̂‖² ≤ 2δ/(λ_min(Ā) + 2L_f) and the gradient's error is at most 2L_f times its
    square root (δ includes a rounding allowance of 8ε_mach(|h| + |d|))."""
    if g.radius is None or g.lam != 0:
        raise ValueError("ncc_moreau needs the NC-C game (radius set, λ = 0)")
    Lf, r = g.constants["L_f"], float(g.radius)
    A, B, _, b, c = g.mean_blocks()
    P = A + 2 * Lf * np.eye(g.dx)
    Pinv = np.linalg.inv(P)
    W = B.T @ Pinv @ B
    lam, V = np.linalg.eigh(0.5 * (W + W.T))
    lam = np.maximum(lam, 0.0)
    X = np.asarray(x, dtype=float).reshape(-1, g.dx)
    a0 = 2 * Lf * X - b
    q = a0 @ Pinv @ B - c  # (n, dy)
    qt = q @ V

    def norm_sq(nu: np.ndarray, power: int = 2) -> np.ndarray:
        den = lam[None, :] + nu[:, None]
        ok = den > 0
        return np.sum(np.where(ok, qt**2 / np.where(ok, den, 1.0) ** power,
                               np.where(qt**2 > 0, np.inf, 0.0)), axis=1)

    inside = norm_sq(np.zeros(X.shape[0])) <= r * r
    # ‖y(ν)‖ = r for ν > 0: safeguarded Newton on 1/‖y(ν)‖ − 1/r (increasing and concave in ν,
    # Moré–Sorensen), bracketed in [lo, hi] with ‖y(lo)‖ ≥ r ≥ ‖y(hi)‖
    lo = np.zeros(X.shape[0])
    hi = np.linalg.norm(q, axis=1) / r + 1e-300
    nu = 0.5 * hi
    for _ in range(60):
        n2 = norm_sq(nu)
        big = n2 > r * r
        lo, hi = np.where(big, nu, lo), np.where(big, hi, nu)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = (1 / np.sqrt(n2) - 1 / r) * n2 ** 1.5 / norm_sq(nu, 3)
        new = nu - step
        new = np.where((new > lo) & (new < hi) & np.isfinite(new), new, 0.5 * (lo + hi))
        done = bool(np.all(np.abs(new - nu) <= 1e-15 * (1 + nu)))
        nu = new
        if done:
            break
    nu = np.where(inside, 0.0, nu)
    den = lam[None, :] + nu[:, None]
    yt = np.where(den > 0, qt / np.where(den > 0, den, 1.0), 0.0)
    Y = yt @ V.T
    n = np.linalg.norm(Y, axis=1, keepdims=True)
    Y = Y * np.minimum(1.0, r / np.maximum(n, 1e-300))  # feasible to rounding
    U = (a0 - Y @ B.T) @ Pinv
    upper = np.asarray(g.phi(U)) + Lf * np.sum((U - X) ** 2, axis=1)
    lower = (-0.5 * np.einsum("ni,ij,nj->n", a0 - Y @ B.T, Pinv, a0 - Y @ B.T) - Y @ c
             + Lf * np.sum(X**2, axis=1))
    eps = np.finfo(float).eps
    gap = np.maximum(upper - lower, 0.0) + 8 * eps * (np.abs(upper) + np.abs(lower))
    strong = float(np.linalg.eigvalsh(0.5 * (A + A.T))[0]) + 2 * Lf
    grad = 2 * Lf * (X - U)
    shape = np.shape(x)[:-1]
    return MoreauPoint(U.reshape(np.shape(x)), grad.reshape(np.shape(x)),
                       np.sum(grad**2, axis=1).reshape(shape), lower.reshape(shape),
                       upper.reshape(shape),
                       (2 * Lf * np.sqrt(2 * gap / strong)).reshape(shape))


def ncc_y_star(g: MinMaxGame, x: np.ndarray) -> np.ndarray:
    """A maximiser y*(x) = r(B̄ᵀx − c̄)/‖B̄ᵀx − c̄‖ of F(x, ·) over the ball of the NC-C game (any
    point of the ball where B̄ᵀx = c̄), x (..., dx)."""
    _, B, _, _, c = g.mean_blocks()
    w = x @ B - c
    n = np.linalg.norm(w, axis=-1, keepdims=True)
    return float(g.radius) * w / np.maximum(n, 1e-300)


# ---- issue 15: a vectorized Moreau-envelope solve for the NC-C family ----------------------------
def moreau_prox_ncc(g: MinMaxGame, x: np.ndarray, w: np.ndarray | None = None,
                    tol: float = 1e-10, max_iter: int = 10_000) -> tuple[np.ndarray, np.ndarray]:
    """x̂ = argmin_u Φ(u) + L_f‖u − x‖² for every row of x (..., dx) of an NC-C game (C = 0,
    ‖y‖ ≤ r, square invertible B̄), with a certified accuracy: returns (x̂, bound) where
    ‖x̂ − x̂_exact‖ ≤ bound per row, so ∇Φ_{1/2L_f}(x) = 2L_f(x − x̂) is accurate to 2L_f·bound.

    Φ(u) = ½uᵀĀu + b̄ᵀu + λΣcos u + r‖B̄ᵀu − c̄‖; in v = B̄ᵀu − c̄ the objective is a smooth part
    with Hessian B̄⁻¹(Ā − λ diag cos u + 2L_f I)B̄⁻ᵀ between m_v = m/σ_max² and M_v = M/σ_min²
    (m = λ_min(Ā) − |λ| + 2L_f ≥ L_f, M = λ_max(Ā) + |λ| + 2L_f) plus r‖v‖, whose prox is a
    shrinkage. Forward–backward steps of length 1/M_v contract with q = 1 − m_v/M_v, so
    ‖v_k − v*‖ ≤ q/(1 − q)‖v_k − v_{k−1}‖ and ‖u − u*‖ ≤ ‖v − v*‖/σ_min; iterations stop when
    that bound is below ``tol`` for every row."""
    if g.radius is None or g.dx != g.dy:
        raise ValueError("moreau_prox_ncc needs an NC-C game with dx = dy")
    A, B, _, b, c = g.mean_blocks(w)
    Lf, lam, r = g.constants["L_f"], abs(g.lam), g.radius
    sv = np.linalg.svd(B, compute_uv=False)
    if sv[-1] <= 1e-12 * sv[0]:
        raise ValueError("moreau_prox_ncc needs an invertible coupling B̄")
    eig = np.linalg.eigvalsh(A)
    m_u, M_u = eig[0] - lam + 2 * Lf, eig[-1] + lam + 2 * Lf
    m_v, M_v = m_u / sv[0] ** 2, M_u / sv[-1] ** 2
    q = 1 - m_v / M_v
    BinvT = np.linalg.inv(B.T)  # u = B̄⁻ᵀ(v + c̄)
    X = np.atleast_2d(x).reshape(-1, g.dx)
    V = X @ B - c  # start at u = x
    bound = np.full(X.shape[0], np.inf)
    for _ in range(max_iter):
        U = (V + c) @ BinvT.T
        grad_u = U @ A.T + b - g.lam * np.sin(U) + 2 * Lf * (U - X)
        step = V - (grad_u @ BinvT) / M_v  # ∇_v = B̄⁻¹ ∇_u
        norm = np.linalg.norm(step, axis=1, keepdims=True)
        V_new = step * np.maximum(0.0, 1 - (r / M_v) / np.maximum(norm, 1e-300))
        bound = q / (1 - q) * np.linalg.norm(V_new - V, axis=1) / sv[-1]
        V = V_new
        if np.all(bound <= tol):
            break
    U = (V + c) @ BinvT.T
    shape = np.shape(x)
    return U.reshape(shape), bound.reshape(shape[:-1])
