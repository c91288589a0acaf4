"""Federated compositional problems Φ(x) = f((1/K)Σ g_k(x)) + (1/K)Σ h_k(x) (FedDRO eq. (2) [L51]).

Every problem exposes vectorized oracles over state arrays shaped (replicas, clients, dim):
batch means of the stochastic g_k(x; ζ), ∇g_k(x; ζ) (the same ζ can be evaluated at two points,
as estimator (8) needs [L224]) and ∇h_k(x; ξ), plus exact Φ, ∇Φ, x* and the constants of
Assumptions 1–3 (B_f, L_f, B_g, L_g, L_h, σ_g, σ_h, Δ_g, Δ_h).

Families (line numbers [Lnnn] are lines of the arXiv v1 text of arXiv:2311.12652):

* ``feddro-counterexample`` — the Theorem 4.1 instance (Appendix D, eq. (10) [L432–L438]): K = 2,
  g_1 = 4x − 4, g_2 = −2x + 4, f(y) = √(y² + 4), Φ(x) = √(x² + 4), x* = 0; exact constants.
* ``feddro-p1`` — family P1 (ours; the paper has no synthetic family): g_k = a_k x + c_k,
  a_k = 1 + A s_k, c_k = −C s_k, s_k = ±1 alternating, Gaussian oracle noise of size s;
  Φ(x) = √(x² + 4) in closed form.
* ``feddro-p2`` — P2 (ours): P1 plus h_k = w_k √((x − m_k)² + 1), (w, m) = (1, 2) / (3, −1),
  N(0, s_h²) noise on ∇h_k.
* ``feddro-kl-dro`` — KL-regularized DRO (eq. (4), Section 2.1 [L68–L72]; federated form,
  Appendix A.1 [L380–L382]) of the logistic loss on synthetic heterogeneous classification data.
* ``feddro-chi2-dro`` — χ²-regularized DRO in the **corrected** CO form (derived here):
  h = (1/m)Σ(ℓ_i + ℓ_i²/(2λ)), g = (1/m)Σℓ_i, f(u) = −u²/(2λ) (the printed eq. (5) of
  Section 2.1 [L73–L77] has the wrong sign and misses the mean-loss term).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from fedbounds.errors import BadInput
from fedbounds.params import Param
from fedbounds.theorems.feddro import COUNTEREXAMPLE

from .base import ProblemEntry


@dataclass(frozen=True)
class Draw:
    """Batch-mean randomness of one oracle call: arrays indexed (replicas, clients, ...)."""

    data: dict[str, np.ndarray]


class CompositionalProblem:
    """Interface of a federated compositional problem (vectorized over replicas and clients)."""

    name: str
    K: int
    d: int
    dg: int
    constants: dict[str, float]
    params: dict[str, float]
    x_star: np.ndarray
    x0: np.ndarray
    stochastic: bool
    data_size: int = 1  # numbers of one client's data an exact oracle reads (DRO: m·d)

    # -- oracles: x (R, K, d) ------------------------------------------------------------------
    def sample_g(self, rng: np.random.Generator, R: int, b: int) -> Draw | None:
        raise NotImplementedError

    def sample_h(self, rng: np.random.Generator, R: int, b: int) -> Draw | None:
        raise NotImplementedError

    def g_val(self, x: np.ndarray, zeta: Draw | None) -> np.ndarray:
        """(R, K, dg): batch mean of g_k(x_k; ζ) (exact g_k(x_k) when ζ is None)."""
        raise NotImplementedError

    def g_jac(self, x: np.ndarray, zeta: Draw | None) -> np.ndarray:
        """(R, K, d, dg): batch mean of ∇g_k(x_k; ζ) (transposed Jacobian, as in eq. (7))."""
        raise NotImplementedError

    def grad_h(self, x: np.ndarray, xi: Draw | None) -> np.ndarray:
        """(R, K, d): batch mean of ∇h_k(x_k; ξ)."""
        raise NotImplementedError

    def grad_f(self, u: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # -- exact global quantities at common points x (..., d) ---------------------------------
    def Phi(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def grad_Phi(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def g(self, x: np.ndarray) -> np.ndarray:
        """(..., dg): g(x) = (1/K)Σ g_k(x) at a common point."""
        x = np.asarray(x, float)
        lead = x.shape[:-1]
        xx = np.broadcast_to(x.reshape(-1, 1, self.d), (int(np.prod(lead, dtype=int)), self.K, self.d))
        return self.g_val(xx, None).mean(axis=1).reshape(*lead, self.dg)

    def local_g(self, x: np.ndarray) -> np.ndarray:
        """(R, dg): (1/K)Σ_k g_k(x_k) at per-client points x (R, K, d) — what ȳ tracks."""
        return self.g_val(x, None).mean(axis=1)


# ---------------------------------------------------------------------------------------------
# P1 / P2 / the Theorem 4.1 instance: scalar x, linear g_k, f(y) = sqrt(y^2 + 4)
# ---------------------------------------------------------------------------------------------
@dataclass
class ScalarFamily(CompositionalProblem):
    """g_k(x; ζ) = (a_k + s ζ_1) x + c_k + s ζ_2, ∇g_k = a_k + s ζ_1, ζ ~ N(0, I_2) (P1, ours);
    h_k(x) = w_k √((x − m_k)² + 1) with ∇h_k(x; ξ) = ∇h_k(x) + s_h ξ (P2; w = 0 for P1)."""

    name: str
    a: np.ndarray  # (K,)
    c: np.ndarray  # (K,)
    s: float = 0.0
    w: np.ndarray | None = None  # (K,)
    m: np.ndarray | None = None  # (K,)
    s_h: float = 0.0
    x0_value: float = 0.5
    params: dict[str, float] = field(default_factory=dict)
    box: float = 3.0  # |x| ≤ box for the value-variance constant σ_g (it grows like s²(1 + x²))
    het: float = 1.0  # h_k → h + het·(h_k − h): scales Δ_h by het, leaves h (and Φ) unchanged

    def __post_init__(self) -> None:
        self.K = int(self.a.size)
        self.d = self.dg = 1
        if self.w is None:
            self.w = np.zeros(self.K)
            self.m = np.zeros(self.K)
        self.stochastic = self.s > 0 or self.s_h > 0
        self._abar, self._cbar = float(self.a.mean()), float(self.c.mean())
        self._has_h = bool(np.any(self.w))
        self._scaled_het = self.het != 1.0
        self._het_rows: np.ndarray | None = None  # (ScalarRows: the rows with het ≠ 1)
        self._w_cols, self._m_cols = self.w, self.m  # w_j, m_j against x_k[..., None] (_dh_into)
        self.x0 = np.array([self.x0_value])
        self.x_star = np.array([self._solve_x_star()])
        self.constants = self._constants()

    # oracles
    def sample_g(self, rng: np.random.Generator, R: int, b: int) -> Draw | None:
        if self.s == 0:
            return None
        z = rng.standard_normal((2, R, self.K)) / math.sqrt(b)  # batch means of N(0, 1)
        return Draw({"z1": z[0], "z2": z[1]})

    def sample_h(self, rng: np.random.Generator, R: int, b: int) -> Draw | None:
        if self.s_h == 0:
            return None
        return Draw({"xi": rng.standard_normal((R, self.K)) / math.sqrt(b)})

    def g_val(self, x: np.ndarray, zeta: Draw | None) -> np.ndarray:
        xs = x[..., 0]
        out = self.a * xs + self.c
        if zeta is not None:
            out = out + self.s * (zeta.data["z1"] * xs + zeta.data["z2"])
        return out[..., None]

    def g_jac(self, x: np.ndarray, zeta: Draw | None) -> np.ndarray:
        J = np.broadcast_to(self.a, x.shape[:-1]).astype(float)
        if zeta is not None:
            J = J + self.s * zeta.data["z1"]
        return J[..., None, None]

    def grad_h(self, x: np.ndarray, xi: Draw | None) -> np.ndarray:
        u = x[..., 0] - self.m
        gr = self.w * u / np.sqrt(u**2 + 1)
        if self.het != 1.0:  # ∇h(x_k) + het·(∇h_k(x_k) − ∇h(x_k)), ∇h = (1/K)Σ_j ∇h_j
            mean = self._dh(x[..., 0])
            gr = mean + self.het * (gr - mean)
        if xi is not None:
            gr = gr + self.s_h * xi.data["xi"]
        return gr[..., None]

    def grad_f(self, u: np.ndarray) -> np.ndarray:
        return u / np.sqrt(u**2 + 4)

    # in-place forms of the oracles on client values xs = x[..., 0] (R, K): the same operations
    # in the same order as g_val, g_jac and grad_h (the same numbers), into preallocated buffers
    def g_val_into(self, xs: np.ndarray, zeta: Draw | None, out: np.ndarray,
                   tmp: np.ndarray) -> np.ndarray:
        """``out`` (R, K) ← g_val(x, ζ)[..., 0]; ``tmp`` (R, K) is overwritten."""
        np.multiply(self.a, xs, out=out)
        out += self.c
        if zeta is not None:
            np.multiply(zeta.data["z1"], xs, out=tmp)
            tmp += zeta.data["z2"]
            tmp *= self.s
            out += tmp
        return out

    def g_jac_into(self, zeta: Draw | None, out: np.ndarray) -> np.ndarray:
        """``out`` (R, K) ← g_jac(x, ζ)[..., 0, 0] (it does not depend on x)."""
        if zeta is None:
            out[...] = self.a
        else:
            np.multiply(self.s, zeta.data["z1"], out=out)
            out += self.a
        return out

    def grad_h_into(self, xs: np.ndarray, xi: Draw | None, out: np.ndarray,
                    scratch: dict[str, np.ndarray]) -> np.ndarray | None:
        """``out`` (R, K) ← grad_h(x, ξ)[..., 0]; None (``out`` untouched) when ∇h_k ≡ 0 and
        there is no ∇h noise (P1: then adding grad_h changes no number)."""
        if not self._has_h and xi is None:
            return None
        u = scratch.setdefault("u", np.empty_like(out))
        np.subtract(xs, self.m, out=u)
        self._w_u_over_root(u, out, self.w)
        if self._scaled_het:
            mean = self._dh_into(xs, scratch)
            scaled = out if self._het_rows is None else scratch.setdefault(
                "scaled", np.empty_like(out))
            np.subtract(out, mean, out=scaled)
            scaled *= self.het
            scaled += mean
            if self._het_rows is not None:  # only the rows whose het ≠ 1 (ScalarRows)
                np.copyto(out, scaled, where=self._het_rows)
        if xi is not None:
            np.multiply(self.s_h, xi.data["xi"], out=u)
            out += u
        return out

    @staticmethod
    def _w_u_over_root(u: np.ndarray, out: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``out`` ← w·u/√(u² + 1) (``u`` is overwritten)."""
        np.multiply(w, u, out=out)
        np.square(u, out=u)
        u += 1
        np.sqrt(u, out=u)
        out /= u
        return out

    def _dh_into(self, xs: np.ndarray, scratch: dict[str, np.ndarray]) -> np.ndarray:
        """:meth:`_dh` of ``xs`` (R, K) into a scratch buffer (R, K)."""
        shape = (*xs.shape, self.K)
        u = scratch.get("dh_u")
        if u is None or u.shape != shape:
            u = scratch["dh_u"] = np.empty(shape)
            scratch["dh_v"] = np.empty(shape)
            scratch["dh_mean"] = np.empty(xs.shape)
        np.subtract(xs[..., None], self._m_cols, out=u)
        values = self._w_u_over_root(u, scratch["dh_v"], self._w_cols)
        mean = np.add.reduce(values, axis=-1, out=scratch["dh_mean"])
        mean /= self.K
        return mean

    # exact
    def _h(self, x: np.ndarray) -> np.ndarray:
        return (self.w * np.sqrt((x[..., None] - self.m) ** 2 + 1)).mean(axis=-1)

    def _dh(self, x: np.ndarray) -> np.ndarray:
        u = x[..., None] - self.m
        return np.add.reduce(self.w * u / np.sqrt(u**2 + 1), axis=-1) / self.K  # the mean

    def Phi(self, x: np.ndarray) -> np.ndarray:
        xs = np.asarray(x, float)[..., 0]
        gx = self._abar * xs + self._cbar  # ā = a.mean(), c̄ = c.mean()
        return np.sqrt(gx**2 + 4) + self._h(xs)

    def grad_Phi(self, x: np.ndarray) -> np.ndarray:
        xs = np.asarray(x, float)[..., 0]
        out = self._abar * self.grad_f(self._abar * xs + self._cbar)
        return (out + self._dh(xs) if self._has_h else out)[..., None]

    def _solve_x_star(self) -> float:
        fn = lambda v: float(self.grad_Phi(np.array([v]))[0])  # noqa: E731
        if not np.any(self.w):  # Φ = √(g² + 4) with g(x) = ā x + c̄
            return -float(self.c.mean() / self.a.mean())
        from scipy import optimize  # on first use: ~0.4 s of every CLI start
        return float(optimize.brentq(fn, -50.0, 50.0, xtol=1e-15, rtol=1e-15, maxiter=500))

    def _constants(self) -> dict[str, float]:
        abar = float(self.a.mean())
        key = (self._abar, self._cbar) + ((self.het, self.w.astype(float).tobytes(),
                                           self.m.astype(float).tobytes()) if self._has_h else ())
        if key not in _GRID_CONSTANTS:  # the grid values of an earlier instance with these
            if len(_GRID_CONSTANTS) >= 64:  # inputs are the same numbers
                del _GRID_CONSTANTS[next(iter(_GRID_CONSTANTS))]
            _GRID_CONSTANTS[key] = self._grid_constants()
        delta_h, l_phi_true = _GRID_CONSTANTS[key]
        phi_star = float(self.Phi(self.x_star))
        return {
            "B_f": 1.0, "L_f": 0.5,  # f' = y/√(y²+4) ∈ (−1, 1), f'' = 4/(y²+4)^{3/2} ≤ 1/2
            "B_g": math.sqrt(float(np.max(self.a**2)) + self.s**2),  # E(a_k + sζ_1)² (mean-sq.)
            "L_g": 0.0,
            # h_k'' = (1 − het) h'' + het h_k'' with |h_j''| ≤ w_j (het = 1: max_k w_k)
            "L_h": (abs(1 - self.het) * float(np.mean(self.w)) + abs(self.het) * float(np.max(self.w)))
            if np.any(self.w) else 0.0,
            "sigma_h": float(self.s_h),
            "sigma_g_grad": float(self.s),  # Var ∇g_k(x; ζ) = s²
            "sigma_g": float(self.s * math.sqrt(1 + self.box**2)),  # value Var s²(1+x²), |x| ≤ box
            "Delta_g": float(np.max(np.abs(self.a - abar))),
            "Delta_h": delta_h,  # sup over a grid of [−60, 60] (the sup is approached, not attained)
            "K": float(self.K),
            "x_star": float(self.x_star[0]),
            "Phi_star": phi_star,
            "Phi_gap0": float(self.Phi(self.x0)) - phi_star,
            "L_Phi_true": l_phi_true,
        }

    def _grid_constants(self) -> tuple[float, float]:
        """(Δ_h, L_Φ) from ∇h_k and ∇Φ on a grid of [−60, 60]: they depend only on ā, c̄ and,
        when there is an h, the (w_k, m_k) and het (:data:`_GRID_CONSTANTS` keeps them by these
        inputs)."""
        grid = np.linspace(-60, 60, GRID)
        grad_phi = self._abar * self.grad_f(self._abar * grid + self._cbar)  # grad_Phi on grid
        delta_h = 0.0
        if self._has_h:  # ∇h_k on the grid, each distinct (w_k, m_k) computed once
            pairs = sorted(set(zip(self.w.tolist(), self.m.tolist(), strict=True)))
            distinct = np.stack([w * (grid - m) / np.sqrt((grid - m) ** 2 + 1)
                                 for w, m in pairs], axis=1)  # (grid, pairs)
            column = [pairs.index(pair) for pair in zip(self.w.tolist(), self.m.tolist(),
                                                        strict=True)]
            mean = np.add.reduce(np.take(distinct, column, axis=1), axis=1) / self.K  # ∇h
            delta_h = abs(self.het) * float(np.max(np.abs(distinct - mean[:, None])))
            grad_phi = grad_phi + mean
        return delta_h, float(np.max(np.abs(np.gradient(grad_phi, grid))))


class ScalarRows(ScalarFamily):
    """Several scalar-family instances with the same K side by side, one per replica row: every
    parameter (a_k, c_k, w_k, m_k, s, s_h, het, x*) an array over rows, so one vectorized run
    advances them all (the same numbers, row by row, as each instance on its own). It has the
    oracles and exact quantities a FedDRO run and its metrics use, not the constants."""

    def __init__(self, problems: list[ScalarFamily], replicas: int) -> None:
        first = problems[0]
        if any(p.K != first.K or p._has_h != first._has_h for p in problems):
            raise ValueError("stacked scalar instances need the same K and h structure")

        def rows(values: list[Any]) -> np.ndarray:
            return np.repeat(np.asarray(values, float), replicas, axis=0)

        self.name, self.K, self.d, self.dg = first.name, first.K, 1, 1
        self.a, self.c = rows([p.a for p in problems]), rows([p.c for p in problems])
        self.w, self.m = rows([p.w for p in problems]), rows([p.m for p in problems])
        self.s, self.s_h, self.het = (rows([[getattr(p, k)] for p in problems])
                                      for k in ("s", "s_h", "het"))
        self._abar, self._cbar = (rows([getattr(p, k) for p in problems]) for k in ("_abar",
                                                                                  "_cbar"))
        self.x_star = rows([p.x_star for p in problems])  # (rows, 1)
        self.x0 = first.x0
        scaled = rows([[p._scaled_het] for p in problems]).astype(bool)  # (rows, 1)
        self._has_h, self._scaled_het = first._has_h, bool(scaled.any())
        self._het_rows = None if scaled.all() or not scaled.any() else scaled
        self._w_cols, self._m_cols = self.w[:, None, :], self.m[:, None, :]
        self.stochastic = any(p.stochastic for p in problems)
        self.params, self.constants = {}, {}


def _alternating(K: int) -> np.ndarray:
    if K < 2 or K % 2:
        raise BadInput("K", f"K={K} must be an even integer >= 2 (client types alternate ±1)")
    return np.where(np.arange(K) % 2 == 0, 1.0, -1.0)


def _values(params: Mapping[str, Any], declared: Mapping[str, Param]) -> dict[str, float]:
    """The declared parameters at ``params`` (defaults for the missing ones), as floats."""
    return {k: float(params.get(k, p.default)) for k, p in declared.items()}


def make_p1(params: Mapping[str, Any], seed: int = 0) -> ScalarFamily:
    """Family P1 (ours): g(x) = x, Φ(x) = √(x² + 4), x* = 0."""
    vals = _values(params, _P1_PARAMS)
    sk = _alternating(int(vals["K"]))
    if vals["s"] < 0:
        raise BadInput("s", "s must be >= 0")
    gs = vals["gscale"]  # g_k → gscale·g_k: B_g scales, Φ(x) = √(gscale² x² + 4)
    return ScalarFamily("feddro-p1", a=gs * (1 + vals["A"] * sk), c=-gs * vals["C"] * sk,
                        s=vals["s"], x0_value=vals["x0"], params=vals)


# the Theorem 4.1 instance's g_k = a_k x + c_k, read from the encoded counterexample
# (Appendix D [L432–L438])
CE_SLOPES = np.array([float(sp.diff(g, COUNTEREXAMPLE.x)) for g in COUNTEREXAMPLE.g])  # (4, −2)
CE_OFFSETS = np.array([float(g.subs(COUNTEREXAMPLE.x, 0)) for g in COUNTEREXAMPLE.g])  # (−4, 4)


def make_counterexample(params: Mapping[str, Any], seed: int = 0) -> ScalarFamily:
    """The Theorem 4.1 instance: P1 with A = 3, C = 4, K = 2, s = 0 (Appendix D [L432–L438])."""
    vals = _values(params, CE_PARAMS)
    return ScalarFamily("feddro-counterexample", a=CE_SLOPES.copy(), c=CE_OFFSETS.copy(),
                        s=0.0, x0_value=vals["x0"], params=vals)


def make_p2(params: Mapping[str, Any], seed: int = 0) -> ScalarFamily:
    """Family P2 (ours): P1 plus h_k = w_k √((x − m_k)² + 1); A = C = 0.5 gives
    x* = −0.4766932835517673. ``het`` scales every client deviation (g_k − g and h_k − h, so
    Δ_g and Δ_h) by het and leaves g, h and Φ unchanged."""
    vals = _values(params, _P2_PARAMS)
    sk = _alternating(int(vals["K"]))
    w = np.where(sk > 0, 1.0, 3.0)
    m = np.where(sk > 0, 2.0, -1.0)
    gs, het = vals["gscale"], vals["het"]
    return ScalarFamily("feddro-p2", a=gs * (1 + het * vals["A"] * sk), c=-gs * het * vals["C"] * sk,
                        s=vals["s"], w=w * vals["alpha_h"], m=m, s_h=vals["s_h"],
                        x0_value=vals["x0"], params=vals, het=het)


def _real(default: float, doc: str, low: float = -1e6, high: float = 1e6, **kw: Any) -> Param:
    """A real parameter of the families: magnitudes up to 1e6 keep the constants finite."""
    return Param(default, doc, low=low, high=high, **kw)


CE_PARAMS: dict[str, Param] = {"x0": _real(0.5, "initial point x̄⁰")}
_P1_PARAMS: dict[str, Param] = {
    "K": Param(2, "number of clients (even)", int, low=2, high=10_000),
    "A": _real(0.5, "slope heterogeneity A (Δ_g = A)"),
    "C": _real(0.5, "offset heterogeneity C"), "s": _real(1.0, "oracle noise size s", low=0),
    "x0": _real(0.5, "initial point x̄⁰"),
    "gscale": _real(1.0, "scale of every g_k (B_g ∝ gscale; 1 = P1 as defined above)", low=0,
                    low_open=True)}
_P2_PARAMS: dict[str, Param] = {
    **_P1_PARAMS, "s_h": _real(1.0, "noise on ∇h_k", low=0),
    "alpha_h": _real(1.0, "scale of the h_k weights w_k", low=0),
    "het": _real(1.0, "heterogeneity scale: g_k − g and h_k − h times het (Φ unchanged)", low=0)}
GRID = 240001  # points of [−60, 60] on which a scalar family's Δ_h and L_Φ are computed
_GRID_CONSTANTS: dict[tuple, tuple[float, float]] = {}  # (Δ_h, L_Φ) by their inputs


def scalar_footprint(values: Mapping[str, Any]) -> tuple[float, float]:
    """(numbers held, work to build) of a scalar family: K clients on the constants' grid."""
    K = values.get("K", 2)
    return 4.0 * GRID * K, 40.0 * GRID * K


# ---------------------------------------------------------------------------------------------
# DRO on synthetic heterogeneous classification data (logistic loss)
# ---------------------------------------------------------------------------------------------
def _logistic(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ℓ = log(1 + e^{−z}) and dℓ/dz, stable."""
    return np.logaddexp(0.0, -z), -0.5 * (1 - np.tanh(z / 2))


@dataclass
class DRO(CompositionalProblem):
    """Per-client finite sums of the logistic loss ℓ_i(x) = log(1 + exp(−y_i a_iᵀx)).

    ``kind='kl'``: g_k = (1/m_k)Σ exp(ℓ_i/λ), f = log, h = 0 (eq. (4); Appendix A.1 [L380–L382]).
    ``kind='chi2'``: corrected χ² form (derived here): g_k = mean ℓ_i, f(u) = −u²/(2λ),
    h_k = mean(ℓ_i + ℓ_i²/(2λ)). Constants are upper bounds valid on the ball ‖x‖ ≤ radius
    (f = log and f = −u²/2λ are Lipschitz only on bounded ranges of g, so Assumption 1.2
    [L122] needs bounded losses)."""

    name: str
    A: np.ndarray  # (K, m, d) features
    y: np.ndarray  # (K, m) labels ±1
    lam: float
    kind: str
    radius: float = 5.0
    params: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.K, self.m, self.d = self.A.shape
        self.dg = 1
        self.data_size = self.m * self.d
        self.stochastic = True
        self.Ay = self.A * self.y[..., None]  # margins z_i = (y_i a_i)ᵀ x
        self.x0 = np.zeros(self.d)
        self.x_star = self._solve()
        self.constants = self._constants()

    def _losses(self, x: np.ndarray, idx: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Losses and per-sample gradients at per-client x (R, K, d), batch idx (R, K, b)."""
        if idx is None:
            Ay = np.broadcast_to(self.Ay, (x.shape[0], *self.Ay.shape))
        else:
            Ay = self.Ay[np.arange(self.K)[None, :, None], idx]  # (R, K, b, d)
        z = np.einsum("rkbd,rkd->rkb", Ay, x)
        ell, dl = _logistic(z)
        return ell, dl[..., None] * Ay  # (R,K,b), (R,K,b,d)

    def sample_g(self, rng: np.random.Generator, R: int, b: int) -> Draw:
        return Draw({"idx": rng.integers(0, self.m, size=(R, self.K, b))})

    def sample_h(self, rng: np.random.Generator, R: int, b: int) -> Draw | None:
        if self.kind == "kl":
            return None
        return Draw({"idx": rng.integers(0, self.m, size=(R, self.K, b))})

    def _inner(self, ell: np.ndarray, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.kind == "kl":
            e = np.exp(ell / self.lam)
            return e, (e / self.lam)[..., None] * grad
        return ell, grad

    def g_val(self, x: np.ndarray, zeta: Draw | None) -> np.ndarray:
        ell, grad = self._losses(x, None if zeta is None else zeta.data["idx"])
        return self._inner(ell, grad)[0].mean(axis=-1)[..., None]

    def g_jac(self, x: np.ndarray, zeta: Draw | None) -> np.ndarray:
        ell, grad = self._losses(x, None if zeta is None else zeta.data["idx"])
        return self._inner(ell, grad)[1].mean(axis=-2)[..., None]

    def grad_h(self, x: np.ndarray, xi: Draw | None) -> np.ndarray:
        if self.kind == "kl":
            return np.zeros_like(x)
        ell, grad = self._losses(x, None if xi is None else xi.data["idx"])
        return ((1 + ell / self.lam)[..., None] * grad).mean(axis=-2)

    def grad_f(self, u: np.ndarray) -> np.ndarray:
        return 1.0 / u if self.kind == "kl" else -u / self.lam

    def _all(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Losses (..., K*m) and gradients (..., K*m, d) at common points x (..., d)."""
        Ay = self.Ay.reshape(-1, self.d)
        z = np.asarray(x, float) @ Ay.T
        ell, dl = _logistic(z)
        return ell, dl[..., None] * Ay

    def Phi(self, x: np.ndarray) -> np.ndarray:
        ell, _ = self._all(x)
        if self.kind == "kl":
            return np.log(np.exp(ell / self.lam).mean(axis=-1))
        mean = ell.mean(axis=-1)
        return (ell + ell**2 / (2 * self.lam)).mean(axis=-1) - mean**2 / (2 * self.lam)

    def grad_Phi(self, x: np.ndarray) -> np.ndarray:
        ell, gr = self._all(x)
        if self.kind == "kl":
            e = np.exp(ell / self.lam)
            return (e[..., None] * gr).sum(axis=-2) / (self.lam * e.sum(axis=-1)[..., None])
        mean = ell.mean(axis=-1)[..., None]
        return ((1 + ell / self.lam)[..., None] * gr).mean(axis=-2) - mean * gr.mean(axis=-2) / self.lam

    def _solve(self) -> np.ndarray:
        from scipy import optimize  # on first use: ~0.4 s of every CLI start
        res = optimize.minimize(lambda v: float(self.Phi(v)), np.zeros(self.d),
                                jac=lambda v: self.grad_Phi(v), method="L-BFGS-B",
                                options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 2000})
        return np.asarray(res.x, float)

    def _constants(self) -> dict[str, float]:
        amax = float(np.max(np.linalg.norm(self.A, axis=-1)))
        lmax = float(np.logaddexp(0.0, self.radius * amax))  # ℓ ∈ [0, ℓmax] on ‖x‖ ≤ radius
        lam = self.lam
        out: dict[str, float] = {"K": float(self.K), "lambda": lam, "radius": self.radius,
                                 "loss_max": lmax, "feature_norm_max": amax}
        if self.kind == "kl":
            try:
                E = math.exp(lmax / lam)
            except OverflowError:  # e^{ℓmax/λ} beyond a double: the bounds are infinite
                E = math.inf
            out |= {"B_f": 1.0, "L_f": 1.0,  # f = log on g ≥ 1
                    "B_g": E * amax / lam, "L_g": E * amax**2 * (1 / lam**2 + 1 / (4 * lam)),
                    "L_h": 0.0, "sigma_h": 0.0, "Delta_h": 0.0,
                    "sigma_g": max((E - 1) / 2, E * amax / lam), "Delta_g": 2 * E * amax / lam}
        else:
            out |= {"B_f": lmax / lam, "L_f": 1 / lam, "B_g": amax, "L_g": amax**2 / 4,
                    "L_h": amax**2 / 4 * (1 + lmax / lam) + amax**2 / lam,
                    "sigma_g": max(lmax / 2, amax), "sigma_h": amax * (1 + lmax / lam),
                    "Delta_g": 2 * amax, "Delta_h": 2 * amax * (1 + lmax / lam)}
            ell, _ = self._all(self.x_star)
            out["chi2_closed_form_valid_at_x_star"] = float(np.all(ell - ell.mean() >= -lam))
        phi_star = float(self.Phi(self.x_star))
        out |= {"Phi_star": phi_star, "Phi_gap0": float(self.Phi(self.x0)) - phi_star,
                "grad_norm_at_x_star": float(np.linalg.norm(self.grad_Phi(self.x_star))),
                "constants_kind": 0.0}  # 0: upper bounds on the ball ‖x‖ ≤ radius (not exact)
        return out


def synthetic_classification(K: int, m: int, d: int, hetero: float, seed: int) -> tuple[
        np.ndarray, np.ndarray]:
    """Heterogeneous clients: client k's features ~ N(hetero·μ_k, I_d), labels from a shared
    logistic model with a client-specific bias (imbalance grows with ``hetero``)."""
    rng = np.random.default_rng(seed)
    x_true = rng.standard_normal(d)
    mu = rng.standard_normal((K, d))
    A = rng.standard_normal((K, m, d)) / math.sqrt(d) + hetero * mu[:, None, :] / math.sqrt(d)
    bias = hetero * rng.standard_normal(K)
    p = 1 / (1 + np.exp(-(A @ x_true + bias[:, None])))
    y = np.where(rng.random((K, m)) < p, 1.0, -1.0)
    return A, y


def make_dro(kind: str, defaults: Mapping[str, Param]):
    """The maker of the ``kind`` ('kl' or 'chi2') DRO family with these parameter defaults."""
    def make(params: Mapping[str, Any], seed: int = 0) -> DRO:
        vals = _values(params, defaults)
        if vals["lam"] <= 0:
            raise BadInput("lam", "lam must be > 0")
        A, y = synthetic_classification(int(vals["K"]), int(vals["m"]), int(vals["d"]),
                                        vals["hetero"], seed)
        return DRO(f"feddro-{kind}-dro", A, y, vals["lam"], kind, vals["radius"], vals)
    return make


DRO_PARAMS: dict[str, Param] = {
    "K": Param(4, "clients", int, low=1, high=10_000),
    "m": Param(50, "samples per client (m_k = m/K, Appendix A.1 [L382])", int, low=1,
               high=1_000_000),
    "d": Param(5, "feature dimension", int, low=1, high=10_000),
    "hetero": _real(1.0, "client heterogeneity", low=0, high=1e3),
    "lam": _real(1.0, "regularization λ", low=1e-3),
    "radius": _real(5.0, "ball ‖x‖ ≤ radius of the constants", low=0, low_open=True,
                    high=1e3)}
CHI2_PARAMS: dict[str, Param] = {**DRO_PARAMS, "lam": _real(2.0, "regularization λ", low=1e-3)}


def dro_footprint(values: Mapping[str, Any]) -> tuple[float, float]:
    """(numbers held, work to build) of a DRO family: K·m samples of dimension d, and the
    L-BFGS solve for x* (up to 2000 iterations over all samples)."""
    data = float(values["K"]) * values["m"] * values["d"]
    return 6.0 * data, 2e4 * data + 1e7


# ---------------------------------------------------------------------------------------------
# closed forms of the regularized DRO inner maximisation of eq. (3) [L65] (derived here)
# ---------------------------------------------------------------------------------------------
def _project_simplex(v: np.ndarray) -> np.ndarray:
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1
    k = np.nonzero(u - css / np.arange(1, v.size + 1) > 0)[0][-1]
    return np.maximum(v - css[k] / (k + 1), 0)


def chi2_values(losses: np.ndarray, lam: float) -> dict[str, float]:
    """max_{p ∈ simplex} Σp_iℓ_i − λ(m/2)Σ(p_i − 1/m)² (exact, by projection) vs the corrected
    form ℓ̄ + Var(ℓ)/(2λ) and the printed eq. (5) −Σℓ_i²/(2λm) + ℓ̄²/(2λ) [L75–L77]."""
    ell = np.asarray(losses, float)
    m = ell.size
    p = _project_simplex(1 / m + ell / (lam * m))
    true = float(p @ ell - lam * m / 2 * np.sum((p - 1 / m) ** 2))
    mean = float(ell.mean())
    return {"true": true, "corrected": mean + float((ell**2).mean()) / (2 * lam) - mean**2 / (2 * lam),
            "paper_eq5": -float((ell**2).mean()) / (2 * lam) + mean**2 / (2 * lam),
            "closed_form_valid": float(np.all(ell - mean >= -lam))}


def kl_values(losses: np.ndarray, lam: float) -> dict[str, float]:
    """λ log (1/m)Σ e^{ℓ_i/λ} (exact inner max) vs the printed eq. (4) without λ [L70]."""
    ell = np.asarray(losses, float)
    lse = float(np.log(np.mean(np.exp(ell / lam))))
    return {"true": lam * lse, "paper_eq4": lse}


def _entry(name: str, description: str, make: Any, params: Mapping[str, Param],
           footprint: Any) -> ProblemEntry:
    return ProblemEntry(name, "feddro", description, make, params, footprint)


PROBLEMS = [
    _entry("feddro-counterexample", "Theorem 4.1 instance: K=2, g1=4x-4, g2=-2x+4, f=sqrt(y^2+4) "
           "(Appendix D)", make_counterexample, CE_PARAMS, scalar_footprint),
    _entry("feddro-p1", "P1: linear heterogeneous g_k, Phi=sqrt(x^2+4), Gaussian oracles "
           "(ours)", make_p1, _P1_PARAMS, scalar_footprint),
    _entry("feddro-p2", "P2: P1 plus nonlinear heterogeneous h_k (ours)", make_p2, _P2_PARAMS,
           scalar_footprint),
    _entry("feddro-kl-dro", "KL-regularized DRO, logistic loss, heterogeneous synthetic clients "
           "(eq. (4), Appendix A.1)", make_dro("kl", DRO_PARAMS), DRO_PARAMS, dro_footprint),
    _entry("feddro-chi2-dro", "chi^2-regularized DRO in the corrected CO form (eq. (5) corrected)",
           make_dro("chi2", CHI2_PARAMS), CHI2_PARAMS, dro_footprint),
]


def make(name: str, params: Mapping[str, Any], seed: int = 0) -> CompositionalProblem:
    """The instance of the FedDRO problem family ``name`` (an entry of :data:`PROBLEMS`)."""
    entries = {p.name: p for p in PROBLEMS}
    if name not in entries:
        raise BadInput("--problem", f"unknown FedDRO problem {name!r}; allowed: "
                       f"{', '.join(entries)}")
    return entries[name].make(params, seed)
