"""ProxSkip-VIP-FL and baselines as small pure step functions (digest §4; paper L121–L132,
L212–L226, L451–L480).

State arrays are shaped (replicas R, clients n, dim d). Client i's operator is
f_i(z) = J_i z + b_i (``problems.base.AffineVIP``); the consensus operator is F(x) = Σ_i F_i(x_i)
(L70), x* = (z*, …, z*), and V_t = Σ_i‖x_{i,t} − z*‖² + (γ/p)² Σ_i‖h_{i,t} − f_i(z*)‖²
(+ Mγ²σ_t² for L-SVRGDA) on the stacked local iterates (digest §5.6 "FL dictionary").

Estimators: ``gda`` (g_i = f_i), ``sgda`` (coupled additive Gaussian noise if the problem has a
noise model, else uniform single-sample j ~ Unif[m] of the finite sum), ``svrg`` (loopless
SVRG, Alg. 4). Randomness streams: ``coin`` (θ_t, shared by the clients), ``noise``,
``sample`` (j), ``refresh`` (ζ_t, shared by the clients).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from fedbounds.problems.proxskip import AffineVIP
from fedbounds.verify.catalog import AlgorithmEntry
from fedbounds.verify.executor import Trace, average, client_matvec, execute, sq_norm

# ---- constants of the consensus problem (digest §6.4) -----------------------------------------


def _gen_eig_max(A: np.ndarray, S: np.ndarray) -> float:
    import scipy.linalg as sla

    return float(sla.eigh(A, S, eigvals_only=True)[-1])


def fl_constants(problem: AffineVIP) -> dict[str, float]:
    """Constants of the consensus operator (digest §5.6, §6.4): μ = min_i μ_i, ℓ = max_i ℓ_i,
    L_g (= ℓ for GDA and additive noise; the problem's L_g for finite-sum sampling), ℓ̂,
    σ_*² = Σ_i σ_{i*}², ζ² = Σ_i‖f_i(z*)‖². Taken from ``problem.constants`` where present,
    otherwise computed exactly from the matrices."""
    c = problem.constants
    S = 0.5 * (problem.J + problem.J.transpose(0, 2, 1))
    if "mu_i" in c:
        mu = float(np.min(c["mu_i"]))
    else:
        mu = float(min(np.linalg.eigvalsh(Si)[0] for Si in S))
    if "ell_i" in c:
        ell = float(np.max(c["ell_i"]))
    else:
        ell = max(_gen_eig_max(Ji.T @ Ji, Si) for Ji, Si in zip(problem.J, S, strict=True))
    fz = problem.f(np.broadcast_to(problem.z_star, (problem.n, problem.d)))
    out = {"mu": mu, "ell": ell, "zeta_sq": float(np.sum(fz**2)), "n": problem.n, "d": problem.d}
    sig = 0.0
    L_g = ell
    if problem.Jij is not None:
        if "ell_hat" in c:
            out["ell_hat"] = float(c["ell_hat"])
        else:
            out["ell_hat"] = max(
                _gen_eig_max(np.einsum("mji,mjk->ik", Jm, Jm) / Jm.shape[0], Si)
                for Jm, Si in zip(problem.Jij, S, strict=True))
        L_g = out["ell_hat"]
        resid = np.einsum("nmij,j->nmi", problem.Jij, problem.z_star) + problem.bij - fz[:, None]
        sig += float(np.sum(resid**2) / problem.Jij.shape[1])
    if problem.noise is not None:
        sig += problem.noise.sigma_star_sq
    out["L_g"] = float(c.get("L_g", L_g))
    out["sigma_star_sq"] = float(c.get("sigma_star_sq", sig))
    return out


# ---- oracles: (R, n, d) -> (R, n, d) ---------------------------------------------------------


def oracle_f(JT: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """g_i = f_i(x_i) = J_i x_i + b_i for all replicas and clients."""
    return client_matvec(JT, x) + b


def sample_op(Jij: np.ndarray, bij: np.ndarray, j: np.ndarray, x: np.ndarray) -> np.ndarray:
    """F_{i,j}(x_i) = J_{ij} x_i + b_{ij} with j = j[r, i] (one sample per replica and client)."""
    n = Jij.shape[0]
    rows = np.arange(n)[None, :]
    return np.einsum("rnij,rnj->rni", Jij[rows, j], x) + bij[rows, j]


def sample_jac(Jij: np.ndarray, j: np.ndarray, v: np.ndarray) -> np.ndarray:
    """J_{ij} v_i with j = j[r, i]."""
    rows = np.arange(Jij.shape[0])[None, :]
    return np.einsum("rnij,rnj->rni", Jij[rows, j], v)


# ---- pure steps ------------------------------------------------------------------------------


def proxskip_update(x: np.ndarray, h: np.ndarray, g: np.ndarray, theta: np.ndarray,
                    gamma: float, p: float) -> tuple[np.ndarray, np.ndarray]:
    """One iteration of Alg. 2 (L212–L226) given the oracle values g and the coins θ (R,):
    x̂ = x − γ(g − h); if θ: x ← mean_i(x̂_i − (γ/p)h_i) else x ← x̂; h ← h + (p/γ)(x − x̂)
    (so h is unchanged when θ = 0). Pure: inputs are not modified; the averaging is computed
    only for the replicas that communicate."""
    xhat = g - h
    xhat *= -gamma
    xhat += x
    idx = np.flatnonzero(theta)
    if idx.size == 0:
        return xhat, h
    xh = xhat[idx]
    hi = h[idx]
    xavg = (xh - (gamma / p) * hi).mean(axis=1, keepdims=True)
    hnew = h.copy()
    hnew[idx] = hi + (p / gamma) * (xavg - xh)
    xhat[idx] = xavg
    return xhat, hnew


def projected_update(x: np.ndarray, g: np.ndarray, gamma: float) -> np.ndarray:
    """Proximal (S)GDA on the consensus problem: x ← Π(x − γg) (L119, digest P11)."""
    return average(x - gamma * g)


# ---- runners ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """Resolved configuration of one run (names as in the paper)."""

    gamma: float
    p: float
    q: float | None = None
    H: int | None = None

    def as_dict(self) -> dict[str, float]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def _init(problem: AffineVIP, replicas: int, x0: Any, h0: Any) -> tuple[np.ndarray, np.ndarray]:
    shape = (replicas, problem.n, problem.d)
    x = np.broadcast_to(np.asarray(0.0 if x0 is None else x0, dtype=float), shape).copy()
    h = np.broadcast_to(np.asarray(0.0 if h0 is None else h0, dtype=float), shape).copy()
    return x, h


def _coin(p: float) -> Callable[[np.random.Generator, int], np.ndarray]:
    return lambda rng, R: rng.random(R) < p


def _estimator_streams(problem: AffineVIP, estimator: str) -> dict[str, Callable]:
    """Random streams of the estimator: ``sample`` (j ~ Unif[m] per replica and client) for a
    finite sum and ``noise`` (coupled Gaussian ξ_i) for a noise model; none for GDA."""
    if estimator == "gda":
        return {}
    if problem.noise is None and problem.Jij is None:
        raise ValueError(f"estimator {estimator!r} needs a noise model or finite-sum samples "
                         f"(problem {problem.name!r} has neither)")
    n, d = problem.n, problem.d
    out: dict[str, Callable] = {}
    if problem.Jij is not None:
        m = problem.Jij.shape[1]
        out["sample"] = lambda rng, R: rng.integers(0, m, size=(R, n))
    if problem.noise is not None:
        scale = (problem.noise.std / math.sqrt(d))[:, None]
        out["noise"] = lambda rng, R: rng.standard_normal((R, n, d)) * scale
    return out


def _oracle(problem: AffineVIP, estimator: str) -> Callable[[np.ndarray, dict], np.ndarray]:
    """g_i(x_i): f_i (GDA) or F_{ij}(x_i) + ξ_i (SGDA: sample if a finite sum, noise if any)."""
    JT = np.ascontiguousarray(problem.J.transpose(0, 2, 1))
    b = problem.b
    if estimator == "gda":
        return lambda x, dr: oracle_f(JT, b, x)
    noisy = problem.noise is not None
    if problem.Jij is None:
        return lambda x, dr: oracle_f(JT, b, x) + dr["noise"]
    Jij, bij = problem.Jij, problem.bij
    if noisy:
        return lambda x, dr: sample_op(Jij, bij, dr["sample"], x) + dr["noise"]
    return lambda x, dr: sample_op(Jij, bij, dr["sample"], x)


def _metrics(problem: AffineVIP, gamma: float, p: float) -> dict[str, Callable]:
    """dist_sq = Σ_i‖x_i − z*‖² and V = dist_sq + (γ/p)²Σ_i‖h_i − f_i(z*)‖² (L140, stacked)."""
    z = problem.z_star
    fz = problem.f(np.broadcast_to(z, (problem.n, problem.d)))
    w = (gamma / p) ** 2
    last: dict[str, Any] = {"x": None, "v": None}

    def dist(s: tuple) -> np.ndarray:
        if last["x"] is not s[0]:
            last["x"], last["v"] = s[0], sq_norm(s[0] - z)
        return last["v"]

    return {"dist_sq": dist, "V": lambda s: dist(s) + w * sq_norm(s[1] - fz)}


def run_proxskip(problem: AffineVIP, gamma: float, p: float, iterations: int, *,
                 replicas: int = 1, seed: int = 0, estimator: str = "gda", x0: Any = None,
                 h0: Any = None, record_every: int = 1) -> Trace:
    """ProxSkip-VIP-FL (Alg. 2) with estimator ``gda`` or ``sgda``; θ_t shared by clients."""
    if not (0 < p <= 1) or gamma <= 0:
        raise ValueError(f"need gamma > 0 and p in (0, 1], got gamma={gamma}, p={p}")
    x, h = _init(problem, replicas, x0, h0)
    oracle = _oracle(problem, estimator)

    def step(state, dr, t):
        x, h = state
        x, h = proxskip_update(x, h, oracle(x, dr), dr["coin"], gamma, p)
        return (x, h), dr["coin"]

    streams = {"coin": _coin(p), **_estimator_streams(problem, estimator)}
    return execute((x, h), step, iterations, replicas=replicas, seed=seed, streams=streams,
                   metrics=_metrics(problem, gamma, p), record_every=record_every)


def run_projected(problem: AffineVIP, gamma: float, iterations: int, *, replicas: int = 1,
                  seed: int = 0, estimator: str = "gda", x0: Any = None,
                  record_every: int = 1) -> Trace:
    """Proximal (S)GDA x ← Π(x − γ g(x)), communicating every step (L119). Shares the
    ``noise``/``sample`` streams with :func:`run_proxskip` for the same seed (digest P11)."""
    x, _ = _init(problem, replicas, x0, None)
    oracle = _oracle(problem, estimator)
    ones = np.ones(replicas)

    def step(state, dr, t):
        (x,) = state
        return (projected_update(x, oracle(x, dr), gamma),), ones

    # the coin stream is drawn (and ignored) so that noise streams align with ProxSkip's
    streams = {"coin": _coin(1.0), **_estimator_streams(problem, estimator)}
    z = problem.z_star
    return execute((x,), step, iterations, replicas=replicas, seed=seed, streams=streams,
                   metrics={"dist_sq": lambda s: sq_norm(s[0] - z)}, record_every=record_every)


def run_svrg(problem: AffineVIP, gamma: float, p: float, q: float, iterations: int, *,
             replicas: int = 1, seed: int = 0, x0: Any = None, record_every: int = 1) -> Trace:
    """ProxSkip-L-SVRGDA-FL (Alg. 4, L472–L480): g_i = F_{ij}(x_i) − F_{ij}(w_i) + f_i(w_i),
    w_i ← x_i w.p. q (coin ζ_t shared), h_{i,0} = 0. V includes Mγ²σ_t² with M = 4/q and
    σ_t² = Σ_i (1/m) Σ_j ‖F_ij(w_i) − F_ij(z*)‖² (digest §5.7, erratum: at w, L533)."""
    if problem.Jij is None:
        raise ValueError(f"L-SVRGDA needs a finite-sum problem (Jij); {problem.name!r} has none")
    x, h = _init(problem, replicas, x0, None)
    JT = np.ascontiguousarray(problem.J.transpose(0, 2, 1))
    b, Jij = problem.b, problem.Jij
    m, n = Jij.shape[1], problem.n
    z = problem.z_star
    fz = problem.f(np.broadcast_to(z, (problem.n, problem.d)))
    # σ² at w: Σ_i (w_i − z*)ᵀ [(1/m) Σ_j J_ijᵀ J_ij] (w_i − z*)
    G = np.einsum("nmji,nmjk->nik", Jij, Jij) / m

    def sigma_sq(w: np.ndarray) -> np.ndarray:
        e = w - z
        return np.einsum("rni,nik,rnk->r", e, G, e)

    def step(state, dr, t):
        x, h, w = state
        g = sample_jac(Jij, dr["sample"], x - w) + oracle_f(JT, b, w)
        w = np.where(dr["refresh"][:, None, None], x, w)
        x, h = proxskip_update(x, h, g, dr["coin"], gamma, p)
        return (x, h, w), dr["coin"]

    streams = {"coin": _coin(p), "refresh": _coin(q),
               "sample": lambda rng, R: rng.integers(0, m, size=(R, n))}
    Mg2 = 4.0 / q * gamma**2
    wV = (gamma / p) ** 2
    metrics = {"dist_sq": lambda s: sq_norm(s[0] - z),
               "V": lambda s: sq_norm(s[0] - z) + wV * sq_norm(s[1] - fz) + Mg2 * sigma_sq(s[2])}
    return execute((x, h, x.copy()), step, iterations, replicas=replicas, seed=seed,
                   streams=streams, metrics=metrics, record_every=record_every)


def run_local(problem: AffineVIP, gamma: float, H: int, rounds: int, *, method: str = "gda",
              replicas: int = 1, seed: int = 0, estimator: str = "gda", x0: Any = None) -> Trace:
    """Local GDA/SGDA (h ≡ 0, H fixed local steps then averaging; Deng & Mahdavi 2021) or
    Local EG/SEG (H extragradient steps y = x − γg(x), x ← x − γg(y), then averaging;
    Beznosikov et al. 2020). One executor step is one communication round (digest §4
    "Baselines": the paper gives no update rule, these are the standard ones)."""
    x, _ = _init(problem, replicas, x0, None)
    oracle = _oracle(problem, estimator)
    ones = np.ones(replicas)
    extra = _estimator_streams(problem, estimator)
    calls = H * (2 if method == "eg" else 1)
    streams = {k: (lambda rng, R, f=f: [f(rng, R) for _ in range(calls)]) for k, f in extra.items()}

    def step(state, dr, t):
        (x,) = state
        k = 0
        for _ in range(H):
            d1 = {s: v[k] for s, v in dr.items()}
            k += 1
            if method == "eg":
                y = x - gamma * oracle(x, d1)
                d2 = {s: v[k] for s, v in dr.items()}
                k += 1
                x = x - gamma * oracle(y, d2)
            else:
                x = x - gamma * oracle(x, d1)
        return (average(x),), ones

    z = problem.z_star
    return execute((x,), step, rounds, replicas=replicas, seed=seed, streams=streams,
                   metrics={"dist_sq": lambda s: sq_norm(s[0] - z)})


# ---- "Runs" entries (DESIGN) ---------------------------------------------------------------------


def theory_setup(problem: AffineVIP, estimator: str, config: dict[str, Any]) -> Setup:
    """Paper parameters unless given (Table G, L784–L786; Cor. 3.6, 3.5, 3.9): γ = 1/(2ℓ)
    (GDA), 1/(2L_g) (SGDA), 1/(6ℓ̂) (L-SVRGDA); p = √(γμ); q = 2γμ; Local: γ = 1/(2ℓ), H = 1/p."""
    c = fl_constants(problem)
    gamma = config.get("gamma")
    if gamma is None:
        gamma = {"gda": 1 / (2 * c["ell"]), "sgda": 1 / (2 * c["L_g"]),
                 "svrg": 1 / (6 * c.get("ell_hat", c["ell"]))}[estimator]
    gamma = float(gamma)
    p = float(config.get("p") or min(1.0, math.sqrt(gamma * c["mu"])))
    q = config.get("q")
    if estimator == "svrg" and q is None:
        q = 2 * gamma * c["mu"]
    H = config.get("H")
    return Setup(gamma, p, None if q is None else float(q), None if H is None else int(H))


def _runs(problem: AffineVIP, trace: Trace, setup: Setup, extra: dict[str, Any]) -> dict:
    metrics = {k: trace.mean(k).tolist() for k in trace.metrics}
    metrics["communications"] = trace.communications.mean(axis=1).tolist()
    summary = {"final_dist_sq": metrics["dist_sq"][-1],
               "communications": float(trace.communications[-1].mean()),
               "iterations": int(trace.iterations[-1]), "replicas": trace.communications.shape[1],
               "diverged": trace.diverged, "diverged_at": trace.diverged_at,
               "reason": trace.reason, "seconds": trace.seconds}
    if "V" in metrics:
        summary["final_V"] = metrics["V"][-1]
    consts = {k: v for k, v in problem.constants.items() if np.ndim(v) == 0}
    consts.update({f"fl_{k}": v for k, v in fl_constants(problem).items()})
    return {"constants": consts, "config": {**setup.as_dict(), **extra}, "metrics": metrics,
            "summary": summary}


def _x0(problem: AffineVIP, config: dict[str, Any]) -> np.ndarray:
    return np.full(problem.d, float(config.get("x0", 0.0)))


def _entry_proxskip(estimator: str) -> Callable[..., dict]:
    def run(problem: AffineVIP, config: dict[str, Any], rounds: int, seeds: int,
            seed: int = 0) -> dict:
        s = theory_setup(problem, estimator, config)
        if estimator == "svrg":
            tr = run_svrg(problem, s.gamma, s.p, s.q, rounds, replicas=seeds, seed=seed,
                          x0=_x0(problem, config))
        else:
            tr = run_proxskip(problem, s.gamma, s.p, rounds, replicas=seeds, seed=seed,
                              estimator=estimator, x0=_x0(problem, config))
        return _runs(problem, tr, s, {"estimator": estimator, "x0": float(config.get("x0", 0))})
    return run


def _entry_local(method: str) -> Callable[..., dict]:
    def run(problem: AffineVIP, config: dict[str, Any], rounds: int, seeds: int,
            seed: int = 0) -> dict:
        est = str(config.get("estimator", "gda"))
        s = theory_setup(problem, "gda", config)
        H = s.H if s.H is not None else max(1, round(1 / s.p))
        tr = run_local(problem, s.gamma, H, rounds, method=method, replicas=seeds, seed=seed,
                       estimator=est, x0=_x0(problem, config))
        return _runs(problem, tr, Setup(s.gamma, 1.0, None, H), {"estimator": est})
    return run


def _entry_projected(problem: AffineVIP, config: dict[str, Any], rounds: int, seeds: int,
                     seed: int = 0) -> dict:
    est = str(config.get("estimator", "gda"))
    s = theory_setup(problem, est, config)
    tr = run_projected(problem, s.gamma, rounds, replicas=seeds, seed=seed, estimator=est,
                       x0=_x0(problem, config))
    return _runs(problem, tr, Setup(s.gamma, 1.0), {"estimator": est})


_P = {"gamma": (None, "step size γ (default: the paper's theoretical value)"),
      "p": (None, "communication probability p (default √(γμ))"),
      "x0": (0.0, "initial point: every coordinate of every x_{i,0}")}
ALGORITHMS = [
    AlgorithmEntry("proxskip-gda-fl", "proxskip", "ProxSkip-GDA-FL (Alg. 2, g_i = f_i; L212)",
                   _entry_proxskip("gda"), dict(_P)),
    AlgorithmEntry("proxskip-sgda-fl", "proxskip",
                   "ProxSkip-SGDA-FL (Alg. 2, stochastic g_i: coupled Gaussian noise or one "
                   "sample of the finite sum; L212)", _entry_proxskip("sgda"), dict(_P)),
    AlgorithmEntry("proxskip-l-svrgda-fl", "proxskip",
                   "ProxSkip-L-SVRGDA-FL (Alg. 4, loopless SVRG; L472)", _entry_proxskip("svrg"),
                   {**_P, "q": (None, "reference refresh probability q (default 2γμ)")}),
    AlgorithmEntry("local-gda", "proxskip", "Local GDA/SGDA baseline: H local steps, then "
                   "averaging (h ≡ 0; one round = H steps)", _entry_local("gda"),
                   {"gamma": _P["gamma"], "H": (None, "local steps per round (default 1/p)"),
                    "x0": _P["x0"]}),
    AlgorithmEntry("local-eg", "proxskip", "Local EG/SEG baseline: H extragradient steps, then "
                   "averaging (one round = H steps)", _entry_local("eg"),
                   {"gamma": _P["gamma"], "H": (None, "local steps per round (default 1/p)"),
                    "x0": _P["x0"]}),
    AlgorithmEntry("projected-gda", "proxskip", "Proximal (S)GDA x ← Π(x − γg), communicating "
                   "every step (p = 1 reference, L119)", _entry_projected,
                   {"gamma": _P["gamma"], "x0": _P["x0"]}),
]
