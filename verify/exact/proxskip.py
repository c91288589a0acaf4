"""Exact second moments of ProxSkip-VIP-FL (Algorithm 2) on affine problems ([derived]).

With client operators f_i(z) = J_i z + b_i, the consensus operator F(x) = Σ_i F_i(x_i)
(eq. (3) [L70]) is affine with Jacobian J = blkdiag(J_i), the prox Π = (1/n) 1 1ᵀ ⊗ I is
linear, and the errors e = (x − x*, h − F(x*)) evolve by e ↦ T_θ e + G_θ ξ with
θ ~ Bernoulli(p) and ξ the additive oracle noise (zero for GDA):

    T_0 = [[I − γJ, γI], [0, I]],
    T_1 = [[Π(I − γJ), γ(1 − 1/p)Π], [(p/γ)(Π − I)(I − γJ), (1 − p)(I − Π)]],
    G_0 = [[−γI], [0]],   G_1 = [[−γΠ], [p(I − Π)]].

So Σ_t = E[e_t e_tᵀ] obeys Σ ↦ p(T_1ΣT_1ᵀ + G_1QG_1ᵀ) + (1 − p)(T_0ΣT_0ᵀ + G_0QG_0ᵀ) exactly,
E[V_t] = tr(W Σ_t) with W = diag(I, (γ/p)² I) (Thm 3.1's Lyapunov function [L140]), the
asymptotic rate is the spectral radius of pT_1⊗T_1 + (1 − p)T_0⊗T_0, and the stationary
second moment (the exact SGDA neighbourhood, Cor. 3.5) solves a linear equation.

Also here: radii of the second-moment map too large for a dense eigenvalue problem (Arnoldi,
Collatz–Wielandt bracket), the exact fixed point of deterministic Local GDA, and exact
expectations over the finite index of the estimators of Lemmas 3.4 and 3.8.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla

from fedbounds import engine
from fedbounds.model import Theorem
from fedbounds.problems.proxskip import AffineVIP
from fedbounds.theorems import proxskip as theory
from fedbounds.verify.fitting import first_below


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
        """Diagonal weight of V_t = ‖e_x‖² + (γ/p)²‖e_h‖² (Thm 3.1 [L140], σ_t ≡ 0)."""
        nd = self.n * self.d
        return np.concatenate([np.ones(nd), np.full(nd, (self.gamma / self.p) ** 2)])

    def V(self, e: np.ndarray) -> float:
        """V = ‖e_x‖² + (γ/p)²‖e_h‖² of an error vector e (Thm 3.1 [L140])."""
        return float(np.dot(self.W, e**2))

    def mean_map(self) -> np.ndarray:
        """E[e_{t+1}] = (p T_1 + (1 − p) T_0) E[e_t]."""
        return self.p * self.T1 + (1 - self.p) * self.T0


def consensus(problem: AffineVIP) -> tuple[np.ndarray, np.ndarray]:
    """J = blkdiag(J_1, …, J_n) and Π = (1/n) 1 1ᵀ ⊗ I_d (the consensus operator of eq. (3)
    [L70] and the prox of its regularizer, the average)."""
    n, d = problem.n, problem.d
    J = sla.block_diag(*problem.J)
    Pi = np.kron(np.full((n, n), 1.0 / n), np.eye(d))
    return J, Pi


def proxskip_maps(problem: AffineVIP, gamma: float, p: float) -> LinearMaps:
    """The linear maps T_0, T_1, G_0, G_1 (module docstring, [derived] from Algorithm 2
    [L212–L226]) for ProxSkip-VIP-FL with step γ and probability p."""
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


def initial_error(problem: AffineVIP, x0: np.ndarray | None = None,
                  h0: np.ndarray | None = None) -> np.ndarray:
    """e_0 = (x_0 − x*, h_0 − F(x*)) stacked, x* = (z*, …, z*), F(x*)_i = f_i(z*) (eq. (3)
    [L70]); x_0 = 0 (the authors' code) and h_0 = 0 (the input of Alg. 4
    [L473]) unless given."""
    fz = problem.f(np.broadcast_to(problem.z_star, (problem.n, problem.d)))
    ex = (0.0 if x0 is None else np.asarray(x0, float)) - problem.z_star
    eh = (0.0 if h0 is None else np.asarray(h0, float)) - fz
    ex = np.broadcast_to(ex, (problem.n, problem.d))
    return np.concatenate([ex.ravel(), eh.ravel()])


def noise_cov(problem: AffineVIP) -> np.ndarray:
    """Q = Cov(ξ) = blkdiag(s_i²/d I_d) for the coupled Gaussian noise model (problems.base)."""
    if problem.noise is None:
        return np.zeros((problem.n * problem.d,) * 2)
    return np.diag(np.repeat(problem.noise.std**2 / problem.d, problem.d))


_CURVES: dict[bytes, np.ndarray] = {}  # expected_V by the digest of its inputs (a few recent)
_CURVES_KEPT = 16


def expected_V(maps: LinearMaps, e0: np.ndarray | None = None, steps: int = 0, *,
               Sigma0: np.ndarray | None = None, Q: np.ndarray | None = None,
               stop_below: float | None = None) -> np.ndarray:
    """E[V_t] for t = 0..steps by the exact second-moment recursion (module docstring).

    Starts from Σ_0 = e_0 e_0ᵀ (or ``Sigma0``); ``Q`` adds the noise term. With
    ``stop_below`` the recursion stops at the first t with E[V_t] ≤ stop_below (the returned
    curve then ends there). A call with the same inputs as one of the last few (e.g. a
    sweep that visits a point twice) returns a copy of that curve instead of recomputing it."""
    digest = hashlib.sha1(repr((maps.gamma, maps.p, steps, stop_below)).encode())
    for part in (maps.T0, maps.T1, maps.G0, maps.G1, maps.W, e0, Sigma0, Q):
        digest.update(b"-" if part is None else np.ascontiguousarray(part, float).tobytes())
        digest.update(repr(None if part is None else np.shape(part)).encode())
    key = digest.digest()
    if key not in _CURVES:
        if len(_CURVES) >= _CURVES_KEPT:
            del _CURVES[next(iter(_CURVES))]
        _CURVES[key] = _expected_V(maps, e0, steps, Sigma0, Q, stop_below)
    return _CURVES[key].copy()


def _expected_V(maps: LinearMaps, e0: np.ndarray | None, steps: int,
                Sigma0: np.ndarray | None, Q: np.ndarray | None, stop_below: float | None
                ) -> np.ndarray:
    """:func:`expected_V`, computed: Σ ← p(T_1ΣT_1ᵀ) + (1 − p)(T_0ΣT_0ᵀ) (+ N) with the products
    written into preallocated buffers (the same products, so the same numbers as the
    expression). At p = 1 the second term is (1 − p)(·) = ±0, which leaves every finite entry
    unchanged: it is skipped, and a step whose result is not finite is redone with it."""
    S = np.outer(e0, e0) if Sigma0 is None else np.array(Sigma0, dtype=float)
    S = np.ascontiguousarray(S)
    w = maps.W
    T0, T1, p = maps.T0, maps.T1, maps.p
    N = None
    if Q is not None and np.any(Q):
        N = p * maps.G1 @ Q @ maps.G1.T + (1 - p) * maps.G0 @ Q @ maps.G0.T
    out = np.empty(steps + 1)
    out[0] = float(np.dot(w, np.diag(S)))
    T0t, T1t = T0.T.copy(), T1.T.copy()
    left, one, zero = np.empty_like(S), np.empty_like(S), np.empty_like(S)
    stride = S.shape[0] + 1  # diag(S) as a view of a buffer: diagonals[id(buffer)]
    diagonals = {id(a): a.reshape(-1)[::stride] for a in (S, one)}
    keep = 1 - p
    for t in range(1, steps + 1):
        np.matmul(np.matmul(T1, S, out=left), T1t, out=one)
        np.multiply(p, one, out=one)
        if keep == 0 and math.isfinite(one.sum()):  # every entry finite
            S, one = one, S  # p(T_1ΣT_1ᵀ) + (±0): the same numbers
        else:  # (at p = 1, not finite: the expression as written, 0·inf is NaN)
            np.matmul(np.matmul(T0, S, out=left), T0t, out=zero)
            np.multiply(keep, zero, out=zero)
            np.add(one, zero, out=S)
        if N is not None:
            S += N
        out[t] = float(np.dot(w, diagonals[id(S)]))
        if stop_below is not None and out[t] <= stop_below:
            return out[: t + 1]
        if not math.isfinite(out[t]):
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
    """Spectral radius of pT_1⊗T_1 + (1 − p)T_0⊗T_0 (claim proxskip.p2).

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


def hitting_time(maps: LinearMaps, e0: np.ndarray, eps: float, cap: int
                 ) -> tuple[int | None, np.ndarray]:
    """First t ≤ cap with E[V_t] ≤ ε·V_0 (None if not reached) and the curve E[V_t] up to it."""
    V0 = maps.V(e0)
    EV = expected_V(maps, e0, cap, stop_below=eps * V0)
    return first_below(EV, eps * V0), EV


def burn_in(maps: LinearMaps, Q: np.ndarray, floor: float, steps: int,
            rtol: float = 2e-3) -> tuple[int, np.ndarray]:
    """Iterations for E[V_t] from V_0 = 0 (start at x*, h*) to reach (1 − rtol)·floor, and the
    curve (the whole curve's length when it does not)."""
    EV = expected_V(maps, np.zeros(maps.T0.shape[0]), steps, Q=Q)
    return int(np.argmax(EV >= (1 - rtol) * floor)) or EV.size, EV


def skipless_radius(problem: AffineVIP, gamma: float) -> float:
    """Spectral radius of the p = 1 second-moment map T_1⊗T_1, i.e. ρ(T_1)² ([derived]: the
    stability threshold of plain GDA at p = 1)."""
    T1 = proxskip_maps(problem, gamma, 1.0).T1
    return float(np.max(np.abs(np.linalg.eigvals(T1)))) ** 2


def stability_threshold(problem: AffineVIP, lo: float, hi: float,
                        iterations: int = 60) -> float | None:
    """The step γ_c ∈ (lo, hi) where the p = 1 map loses stability (:func:`skipless_radius`
    crosses 1), by bisection; None if [lo, hi] does not bracket it."""
    if not skipless_radius(problem, lo) < 1 < skipless_radius(problem, hi):
        return None
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if skipless_radius(problem, mid) < 1 else (lo, mid)
    return 0.5 * (lo + hi)


def radius_arnoldi(maps: LinearMaps) -> float:
    """Spectral radius of Φ(Σ) = pT_1ΣT_1ᵀ + (1 − p)T_0ΣT_0ᵀ by implicitly restarted Arnoldi on
    vec(Σ) (matrix-free: two k×k products per application), for states too large for the
    dense eigenvalue problem of :func:`spectral_radius`."""
    k = maps.T0.shape[0]
    T0, T1, p = maps.T0, maps.T1, maps.p

    def mv(v: np.ndarray) -> np.ndarray:
        S = v.reshape(k, k)
        return (p * (T1 @ S @ T1.T) + (1 - p) * (T0 @ S @ T0.T)).ravel()

    op = spla.LinearOperator((k * k, k * k), matvec=mv, dtype=float)
    w = spla.eigs(op, k=1, which="LM", return_eigenvectors=False, tol=1e-13, maxiter=20000,
                  ncv=min(40, k * k - 2), v0=np.eye(k).ravel())
    return float(np.max(np.abs(w)))


def radius_bracket(maps: LinearMaps, iterations: int) -> tuple[float, float]:
    """Collatz–Wielandt bracket for the spectral radius r of the positive map
    Φ(Σ) = pT_1ΣT_1ᵀ + (1 − p)T_0ΣT_0ᵀ: for X ≻ 0, λ_min(X^{-½}Φ(X)X^{-½}) ≤ r ≤
    λ_max(X^{-½}Φ(X)X^{-½}); X is the power iterate Φ^t(I) (trace-normalised). Returns (lower,
    upper) at the last iterate: the upper value certifies r < 1 without an eigenvalue problem
    of size (2nd)²."""
    k = maps.T0.shape[0]
    T0, T1, p = maps.T0, maps.T1, maps.p
    X = np.eye(k)
    lo, hi = 0.0, math.inf
    for t in range(1, iterations + 1):
        Y = p * (T1 @ X @ T1.T) + (1 - p) * (T0 @ X @ T0.T)
        if t == iterations:
            w, V = np.linalg.eigh(0.5 * (X + X.T))
            Wi = V / np.sqrt(w)
            ev = np.linalg.eigvalsh(Wi.T @ (0.5 * (Y + Y.T)) @ Wi)
            lo, hi = float(ev[0]), float(ev[-1])
        X = Y / np.trace(Y) + 1e-13 * np.eye(k)  # stays ≻ 0 (the bracket holds for any X ≻ 0)
    return lo, hi


def local_gda_floor(problem: AffineVIP, gamma: float, H: int) -> float:
    """Exact limit of Σ_i‖x̄_k − z*‖² for deterministic Local GDA (H steps of z ← z − γf_i(z)
    per client from the common z̄_k, then averaging): the fixed point of the affine round map."""
    d = problem.d
    Ai = np.eye(d)[None] - gamma * problem.J
    Pk = np.broadcast_to(np.eye(d), Ai.shape).copy()
    S = np.zeros_like(Ai)
    for _ in range(H):
        S += Pk
        Pk = Ai @ Pk
    Abar = Pk.mean(axis=0)
    cbar = (-gamma * np.einsum("nij,nj->ni", S, problem.b)).mean(axis=0)
    z = np.linalg.solve(np.eye(d) - Abar, cbar)
    return float(problem.n * np.sum((z - problem.z_star) ** 2))


def estimator_moments(problem: AffineVIP, X: np.ndarray, W: np.ndarray) -> dict[str, np.ndarray]:
    """Exact expectations over the finite index j ~ Unif[m] (independent per client) at stacked
    points X, W of shape (K, n, d), consensus convention (eq. (3) [L70]; Appendices F.3–F.4
    [L657–L742]):

    * ``inner`` = ⟨F(x) − F(x*), x − x*⟩ = Σ_i ⟨f_i(x_i) − f_i(z*), x_i − z*⟩;
    * ``sgda`` = E‖g(x) − F(x*)‖² for g_i = F_{ij}(x_i) (Lemma 3.4's left side);
    * ``svrg`` = E‖g(x) − F(x*)‖² for g_i = F_{ij}(x_i) − F_{ij}(w_i) + f_i(w_i) (Lemma 3.8);
    * ``sigma_w``, ``sigma_x`` = Σ_i (1/m) Σ_j ‖F_{ij}(·) − F_{ij}(z*)‖² at w and at x."""
    Jij, bij, z = problem.Jij, problem.bij, problem.z_star
    m = Jij.shape[1]
    Ex, Ew = X - z, W - z  # (K, n, d)
    fz = problem.f(np.broadcast_to(z, (problem.n, problem.d)))  # f_i(z*)
    Fij_z = np.einsum("nmij,j->nmi", Jij, z) + bij  # F_ij(z*)
    dx = np.einsum("nmij,kni->kmnj", Jij.transpose(0, 1, 3, 2), Ex)  # J_ij (x_i − z*)  (K,m,n,d)
    dw = np.einsum("nmij,kni->kmnj", Jij.transpose(0, 1, 3, 2), Ew)
    fx = np.einsum("nij,knj->kni", problem.J, Ex)  # f_i(x_i) − f_i(z*)
    fw = np.einsum("nij,knj->kni", problem.J, Ew)
    inner = np.einsum("kni,kni->k", fx, Ex)
    dev = (Fij_z - fz[:, None, :]).transpose(1, 0, 2)[None]  # F_ij(z*) − f_i(z*)  (1,m,n,d)
    sgda = np.einsum("kmnd,kmnd->k", dx + dev, dx + dev) / m
    g = dx - dw + fw[:, None] + 0.0  # F_ij(x) − F_ij(w) + f_i(w) − f_i(z*)
    svrg = np.einsum("kmnd,kmnd->k", g, g) / m
    sigma_w = np.einsum("kmnd,kmnd->k", dw, dw) / m
    sigma_x = np.einsum("kmnd,kmnd->k", dx, dx) / m
    return {"inner": inner, "sgda": sgda, "svrg": svrg, "sigma_w": sigma_w, "sigma_x": sigma_x}


# ---- the encoded bounds at numbers, and the exact E[V_t] against them -------------------------
# (generic: a vectorized float evaluation of a Theorem's terms, derived quantities and
# conditions; engine.bound does it for one point in exact rationals)

THEOREMS = {t.id: t for t in theory.THEOREMS}  # this paper's registered theorems


def bound_terms(theorem: Theorem | str, values: Mapping[str, object]) -> dict[str, np.ndarray]:
    """The encoded bound's terms at ``values`` (numbers or arrays, vectorized)."""
    thm = THEOREMS[theorem] if isinstance(theorem, str) else theorem
    c = engine.compiled(thm)
    args = [values[n] if isinstance(values[n], np.ndarray) else float(values[n])
            for n in c.names]
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return {t.name: np.broadcast_to(np.asarray(f(*args), dtype=float), shape)
            for t, f in c.terms}


def derived_values(theorem: Theorem, values: Mapping[str, float]) -> dict[str, float]:
    """The theorem's derived quantities at ``values`` (e.g. Lemma 3.4's A, D_1, ρ)."""
    c = engine.compiled(theorem)
    args = [float(values[n]) for n in c.names]
    return {name: float(f(*args)) for name, f in c.derived}


def theorem_curve(theorem_id: str, values: Mapping[str, float], T: np.ndarray
                  ) -> tuple[np.ndarray, dict[str, np.ndarray], bool, list[str]]:
    """The encoded bound of ``theorem_id`` at horizons ``T``: (total, terms, conditions hold,
    violated conditions)."""
    thm = THEOREMS[theorem_id]
    terms = bound_terms(thm, {**values, "T": np.asarray(T, dtype=float)})
    ok, results = engine.check(thm, {k: Fraction(float(values[k]))
                                     for k in thm.condition_inputs()})
    return np.asarray(sum(terms.values())), terms, ok, [r.name for r in results if not r.holds]


def tau_from(theorem_id: str, values: Mapping[str, float]) -> float:
    """Per-step contraction τ read off the encoded bound: 1 − bound(T = 1)/V_0."""
    b, _, _, _ = theorem_curve(theorem_id, {**values, "V_0": 1.0}, np.array([1.0]))
    return float(1.0 - b[0])


def bound_ratio(prob: AffineVIP, gamma: float, p: float, theorem_id: str,
                rel_floor: float = 1e-12, tau_scale: float = 1.0
                ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray, dict]:
    """The exact E[V_t] from x_0 = h_0 = 0 against the encoded bound of ``theorem_id``:
    (max_{t ≥ 1} E[V_t]/bound where the bound is ≥ rel_floor·V_0, t, E[V_t]/V_0, bound/V_0,
    details). ``tau_scale`` ≠ 1 scales the bound's rate (a perturbed prediction)."""
    c = prob.constants
    e0 = initial_error(prob)
    maps = proxskip_maps(prob, gamma, p)
    V0 = maps.V(e0)
    vals = {"gamma": gamma, "p": p, "mu": c["mu"], "ell": c["ell"]}
    tau = tau_scale * tau_from(theorem_id, vals)
    steps = int(math.ceil(math.log(rel_floor) / math.log1p(-min(tau, 0.999999))))
    EV = expected_V(maps, e0, steps, stop_below=rel_floor * V0 * 1e-2)
    t = np.arange(EV.size)
    bound, _, ok, violated = theorem_curve(theorem_id, {**vals, "V_0": V0}, t)
    if tau_scale != 1.0:
        bound = V0 * (1 - tau) ** t
    keep = (bound >= rel_floor * V0) & (t >= 1)  # t = 0 is trivially 1; round-off below
    ratio = float(np.max(EV[keep] / bound[keep])) if np.all(np.isfinite(EV)) else math.inf
    return ratio, t, EV / V0, bound / V0, {"tau": tau, "steps": int(EV.size - 1),
                                           "conditions_hold": ok, "violated": violated}
