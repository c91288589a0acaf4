"""ProxSkip-VIP-FL and its baselines as algorithm units (Algorithm 1 [L121–L132], Algorithm 2
[L212–L226], Algorithms 3 and 4 in Appendix C [L451–L490]).

State arrays are shaped (replicas R, clients n, dim d). Client i's operator is
f_i(z) = J_i z + b_i (``problems.proxskip.AffineVIP``); the consensus operator is
F(x) = Σ_i F_i(x_i) (eq. (3) [L70]), x* = (z*, …, z*), and V_t = Σ_i‖x_{i,t} − z*‖² + (γ/p)²
Σ_i‖h_{i,t} − f_i(z*)‖² (+ Mγ²σ_t² for L-SVRGDA) on the stacked local iterates (Theorem 3.1's
Lyapunov function [L140] in the consensus form of Theorem 4.2 [L238]).

Estimators: ``gda`` (g_i = f_i), ``sgda`` (coupled additive Gaussian noise if the problem has a
noise model, uniform single sample j ~ Unif[m] of the finite sum if it has one), loopless SVRG
(Alg. 4). Random streams: ``coin`` (θ_t, shared by the clients), ``noise``, ``sample`` (j),
``refresh`` (ζ_t, shared by the clients). Default step sizes and probabilities come from the
encoded schedules (``fedbounds.theorems.proxskip``): Cor. 3.6 (GDA), Cor. 3.5 (SGDA), Cor. 3.9
(L-SVRGDA), and p = √(γμ) (Cor. 3.5 [L174]) when only γ is given.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from fedbounds.complexity import schedule_values
from fedbounds.errors import BadInput
from fedbounds.problems.proxskip import AffineVIP
from fedbounds.theorems import proxskip as theory
from fedbounds.verify.algorithm import Algorithm, Method, Observe, Param
from fedbounds.verify.executor import Draw, average, block_rows, client_matvec

PROBLEMS = ("proxskip-g-norm", "proxskip-g-sym", "proxskip-quadratic-game", "proxskip-rls")


class ProxSkipState(NamedTuple):
    """Alg. 2: local iterates x_{i,t} and control variates h_{i,t}, each (R, n, d)."""

    x: np.ndarray
    h: np.ndarray


class SvrgState(NamedTuple):
    """Alg. 4: x_{i,t}, h_{i,t} and the SVRG reference points w_{i,t}."""

    x: np.ndarray
    h: np.ndarray
    w: np.ndarray


class ConsensusState(NamedTuple):
    """Baselines without control variates: the local iterates x_{i,t}."""

    x: np.ndarray


class PairState(NamedTuple):
    """Two methods' states stepped on the same draws (:func:`lockstep`)."""

    first: Any
    second: Any


# ---- oracles and pure updates: (R, n, d) -> (R, n, d) ---------------------------------------


def oracle_f(JT: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """g_i = f_i(x_i) = J_i x_i + b_i for all replicas and clients (JT = Jᵀ per client)."""
    return client_matvec(JT, x) + b


def sample_op(Jij: np.ndarray, bij: np.ndarray, j: np.ndarray, x: np.ndarray) -> np.ndarray:
    """F_{i,j}(x_i) = J_{ij} x_i + b_{ij} with j = j[r, i] (one sample per replica and client)."""
    rows = np.arange(Jij.shape[0])[None, :]
    return np.einsum("rnij,rnj->rni", Jij[rows, j], x) + bij[rows, j]


def sample_jac(Jij: np.ndarray, j: np.ndarray, v: np.ndarray) -> np.ndarray:
    """J_{ij} v_i with j = j[r, i]."""
    rows = np.arange(Jij.shape[0])[None, :]
    return np.einsum("rnij,rnj->rni", Jij[rows, j], v)


def proxskip_update(x: np.ndarray, h: np.ndarray, g: np.ndarray, theta: np.ndarray,
                    gamma: float, p: float) -> tuple[np.ndarray, np.ndarray]:
    """One iteration of Alg. 2 [L212–L226] given the oracle values g and the coins θ (R,):
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


def client_major(state: tuple, scratch: dict) -> tuple[np.ndarray, ...]:
    """The state's (replicas, clients, dim) arrays as client-major (clients, replicas, dim)
    C-contiguous arrays: copied once per run (the first step, marked in ``scratch``), after
    which the state holds (replicas, clients, dim) views of them. In this layout a client's
    rows are one matrix (the batched matmul reads it as it is), an elementwise pass and a sum
    over clients run over whole (replicas × dim) rows, and averages broadcast along the first
    axis."""
    if not scratch.get("client_major"):
        scratch["client_major"] = True
        return tuple(np.ascontiguousarray(a.swapaxes(0, 1)) for a in state)
    return tuple(a.swapaxes(0, 1) for a in state)


def projected_update(x: np.ndarray, g: np.ndarray, gamma: float) -> np.ndarray:
    """Proximal (S)GDA on the consensus problem: x ← Π(x − γg) (Section 3 [L119]; claim
    proxskip.p11)."""
    return average(x - gamma * g)


def coin(p: float) -> Draw:
    """θ ~ Bernoulli(p), one per replica (shared by its clients); ``.steps`` draws several
    steps' coins in one call (``rng.random`` fills its array in order: the same numbers)."""
    def draw(rng: np.random.Generator, replicas: int) -> np.ndarray:
        return rng.random(replicas) < p

    draw.steps = lambda rng, replicas, steps: rng.random((steps, replicas)) < p
    return draw


def estimator_streams(problem: AffineVIP, estimator: str) -> dict[str, Draw]:
    """Random streams of the estimator: ``sample`` (j ~ Unif[m] per replica and client) for a
    finite sum and ``noise`` (coupled Gaussian ξ_i) for a noise model; none for GDA (nor for
    SGDA on a problem with neither: its oracle is then exact, σ_* = 0)."""
    if estimator == "gda":
        return {}
    n, d = problem.n, problem.d
    out: dict[str, Draw] = {}
    if problem.Jij is not None:
        m = problem.Jij.shape[1]
        out["sample"] = lambda rng, R: rng.integers(0, m, size=(R, n))
    if problem.noise is not None:
        scale = (problem.noise.std / math.sqrt(d))[:, None]
        out["noise"] = lambda rng, R: rng.standard_normal((R, n, d)) * scale
    return out


def oracle(problem: AffineVIP, estimator: str) -> Callable[[np.ndarray, Mapping], np.ndarray]:
    """g_i(x_i): f_i (GDA) or F_{ij}(x_i) + ξ_i (SGDA: sample if a finite sum, noise if any;
    f_i if neither, the deterministic case σ_* = 0 of Cor. 3.5)."""
    JT = np.ascontiguousarray(problem.J.transpose(0, 2, 1))
    b = problem.b
    if estimator == "gda" or (problem.Jij is None and problem.noise is None):
        return lambda x, dr: oracle_f(JT, b, x)
    if problem.Jij is None:
        return lambda x, dr: oracle_f(JT, b, x) + dr["noise"]
    Jij, bij = problem.Jij, problem.bij
    if problem.noise is not None:
        return lambda x, dr: sample_op(Jij, bij, dr["sample"], x) + dr["noise"]
    return lambda x, dr: sample_op(Jij, bij, dr["sample"], x)


def fused_oracle(problem: AffineVIP, estimator: str) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """What the fused in-place steps (:mod:`.kernels`) need of the oracle: (Jᵀ per client, b,
    noisy) for g_i = J_i x_i + b_i (+ ξ_i); None for a finite sum (its gathered samples have no
    fused form: the pure ``step`` runs)."""
    exact = estimator == "gda" or (problem.Jij is None and problem.noise is None)
    if not exact and problem.Jij is not None:
        return None
    return (np.ascontiguousarray(problem.J.transpose(0, 2, 1)), np.ascontiguousarray(problem.b),
            not exact)


_NO_ROUND_NOISE = np.zeros((1, 1, 1, 1))


def _block_buffers(scratch: dict, x: np.ndarray,
                   b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a client-major x (n, R, d), allocated once per run: the block buffer G (c, d), c the
    replicas of a block (:func:`.executor.block_rows`); b_i repeated over a block's rows
    (n, c·d); the accumulator (R, d) and the block's mask (c·d)."""
    if "block" not in scratch:
        n, R, d = x.shape
        c = block_rows(R, n * d)
        tiled = np.tile(b, (1, c))  # a new writable array for every c (one compiled signature)
        scratch["block"] = (np.empty((c, d)), tiled, np.empty((R, d)),
                            np.empty(c * d, dtype=np.bool_))
    return scratch["block"]


def stack(problem: AffineVIP, replicas: int, value: Any = 0.0) -> np.ndarray:
    """``value`` (a number, (d,), (n, d) or (R, n, d)) as a fresh (R, n, d) array."""
    shape = (replicas, problem.n, problem.d)
    return np.broadcast_to(np.asarray(value, dtype=float), shape).copy()


def _center(problem: AffineVIP) -> np.ndarray:
    """z* as every client's (n, d) center, contiguous (for :func:`sq_distance`)."""
    return np.ascontiguousarray(np.broadcast_to(problem.z_star, (problem.n, problem.d)))


def lyapunov(problem: AffineVIP, gamma: float, p: float) -> dict[str, Observe]:
    """dist_sq = Σ_i‖x_i − z*‖² and V = dist_sq + (γ/p)²Σ_i‖h_i − f_i(z*)‖² (Thm 3.1 [L140],
    stacked)."""
    weight = _square(gamma / p)
    z = _center(problem)
    fz = np.ascontiguousarray(problem.f(z))
    return {"dist_sq": lambda s: sq_distance(s.x, z),
            "V": lambda s: sq_distance(s.x, z) + weight * sq_distance(s.h, fz)}


def distance(problem: AffineVIP) -> dict[str, Observe]:
    """dist_sq = Σ_i‖x_i − z*‖²."""
    z = _center(problem)
    return {"dist_sq": lambda s: sq_distance(s.x, z)}


def sq_distance(x: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Σ_i‖x_i − c_i‖² per replica (x (R, n, d), c (n, d)): one pass over x in any layout
    (:func:`.kernels.sq_distance`), no copy of a client-major state."""
    out = np.empty(x.shape[0])
    _kernels().sq_distance(x, center, out)
    return out


@functools.cache
def _kernels() -> Any:
    """The numba kernels module, imported by the first run (the CLI's theory commands never
    load numba)."""
    from . import kernels

    return kernels


def _square(x: float) -> float:
    """x² as a Python float, +inf beyond the doubles (a huge step diverges, it does not crash)."""
    try:
        return x**2
    except OverflowError:
        return math.inf


def run_cost(problem: AffineVIP, local: float = 1.0, calls: int = 1, record: float = 0.0,
             steps_param: str | None = None) -> dict[str, Any]:
    """The cost model of a ProxSkip method (:func:`fedbounds.verify.algorithm.check_run`): per
    replica and local step, n matrix–vector products (d × d; a finite sum also gathers one
    sampled J_ij per client); held at once, a few (n, d) arrays, ``calls`` oracle draws and the
    gathered samples; recorded, the distances (plus ``record`` numbers)."""
    n, d = problem.n, problem.d
    gather = problem.Jij is not None
    return {"local_steps": float(local), "step_numbers": float(n * d * d * (2 if gather else 1)),
            "held_numbers": float(n * d * (4 + calls) + (n * d * d if gather else 0)),
            "record_numbers": float(4 * n * d + record), "steps_param": steps_param}


# ---- defaults from the encoded schedules ------------------------------------------------------


def _positive(name: str, value: float, what: str) -> float:
    if not (value > 0 and math.isfinite(value)):
        raise BadInput(f"--set {name}", f"{name} = {value!r} ({what}) must be positive and "
                       "finite; set it explicitly")
    return float(value)


def schedule_mu(problem: AffineVIP) -> float:
    """μ of the schedules: the consensus μ = min_i μ_i (Assumption 4.1) or, where it is 0 (RLS:
    μ_i = 0 under the split of Appendix G.1 [L814–L818], outside the theory), the mean
    operator's μ, as Table G does (Appendix G [L786])."""
    c = problem.constants
    return float(c["mu"]) if c["mu"] > 0 else float(c["mu_mean"])


def given_step_p(problem: AffineVIP, gamma: float) -> float:
    """p = √(γμ) at a given γ (setting of Cor. 3.5 [L174]), at most 1."""
    values = {"gamma": gamma, "mu": schedule_mu(problem)}
    p = min(1.0, schedule_values(theory.cor35_given_step, values)["p"])
    return _positive("p", p, "p = √(γμ)")


def cor36_schedule(problem: AffineVIP, **constants: float) -> dict[str, float]:
    """Cor. 3.6's γ = 1/(2ℓ) and p = √(γμ) [L182] at the problem's exact ℓ and μ, or at the
    ``constants`` given instead (e.g. Table G's spectral ℓ, Appendix G [L786])."""
    values = {"ell": problem.constants["ell"], "mu": schedule_mu(problem), **constants}
    return schedule_values(theory.cor36, values)


def gda_steps(problem: AffineVIP, gamma: float | None = None,
              p: float | None = None) -> tuple[float, float]:
    """(γ, p): Cor. 3.6's γ = 1/(2ℓ), p = √(γμ) [L182] unless given; p = √(γμ) at a given γ."""
    if gamma is None:
        sched = cor36_schedule(problem)
        gamma = _positive("gamma", sched["gamma"], "Cor. 3.6: γ = 1/(2ℓ)")
        if p is None:
            p = _positive("p", min(1.0, sched["p"]), "Cor. 3.6: p = √(γμ)")
    gamma = _positive("gamma", gamma, "step size")
    return gamma, (given_step_p(problem, gamma) if p is None else _positive("p", p, "given"))


def sgda_step(problem: AffineVIP, epsilon: float | None = None, **constants: float) -> float:
    """Cor. 3.5's γ = min{1/(2L_g), 1/(2μ), με/(8σ_*²)} [L174] at the problem's constants or
    the ``constants`` given; without a target accuracy ε the last cap is +∞ (Table G, Appendix G
    [L786]: γ = 1/(2L_g))."""
    c = problem.constants
    sigma = math.sqrt(c["sigma_star_sq"])
    no_cap = epsilon is None or sigma == 0  # με/(8σ_*²) = +∞
    values = {"L_g": c["L_g"], "mu": schedule_mu(problem),
              "epsilon": math.inf if no_cap else epsilon,
              "sigma_star": 1.0 if no_cap else sigma, **constants}
    return _positive("gamma", schedule_values(theory.cor35, values)["gamma"], "Cor. 3.5")


def svrg_steps(problem: AffineVIP, gamma: float | None = None, p: float | None = None,
               q: float | None = None, **constants: float) -> tuple[float, float, float]:
    """(γ, p, q) of Cor. 3.9 [L204]: γ = 1/(6ℓ̂), then q = 2γμ and p = √(γμ) at that γ (at the
    problem's constants or the ``constants`` given; ℓ̂ = ℓ without samples, m = 1)."""
    c = {"ell_hat": problem.constants["ell"], **problem.constants, "mu": schedule_mu(problem),
         **constants}
    if gamma is None:
        gamma = schedule_values(theory.cor39_step, {"ell_hat": c["ell_hat"]})["gamma"]
    gamma = _positive("gamma", gamma, "Cor. 3.9: γ = 1/(6ℓ̂)")
    sched = schedule_values(theory.cor39_given_step, {"gamma": gamma, "mu": c["mu"]})
    p = _positive("p", min(1.0, sched["p"]) if p is None else p, "Cor. 3.9: p = √(γμ)")
    q = _positive("q", min(1.0, sched["q"]) if q is None else q, "Cor. 3.9: q = 2γμ")
    return gamma, p, q


# ---- methods ----------------------------------------------------------------------------------


def proxskip_method(problem: AffineVIP, gamma: float, p: float, estimator: str = "gda",
                    x0: Any = 0.0) -> Method[ProxSkipState]:
    """ProxSkip-VIP-FL (Alg. 2) with estimator ``gda`` or ``sgda``; θ_t shared by clients."""
    if not 0 < p <= 1:
        raise BadInput("--set p", f"p must be in (0, 1], got {p}")
    g_of = oracle(problem, estimator)

    def init(replicas: int, seed: int = 0) -> ProxSkipState:
        return ProxSkipState(stack(problem, replicas, x0), stack(problem, replicas))

    def step(state: ProxSkipState, draws: Mapping, t: int) -> tuple[ProxSkipState, np.ndarray]:
        x, h = proxskip_update(state.x, state.h, g_of(state.x, draws), draws["coin"], gamma, p)
        return ProxSkipState(x, h), draws["coin"]

    fused = fused_oracle(problem, estimator)

    def advance_steps(state: ProxSkipState, draws: Mapping, t: int, steps: int,
                      scratch: dict) -> tuple[ProxSkipState, np.ndarray]:
        """``steps`` of ``advance`` in one compiled call (:func:`.kernels.proxskip_steps`):
        each block of replicas takes all of them while its state is in cache."""
        x, h = client_major(state, scratch)
        G, tiled_b, acc, mask = _block_buffers(scratch, x, b)
        theta = np.asarray(draws["coin"])  # (steps, R): stacked by the stream or here
        noise = np.asarray(draws["noise"]) if noisy else _NO_ROUND_NOISE
        proxskip_steps(x, h, JT, tiled_b, noise, noisy, theta, gamma, p, G, acc, mask)
        return ProxSkipState(x.swapaxes(0, 1), h.swapaxes(0, 1)), theta.sum(axis=0)

    def advance(state: ProxSkipState, draws: Mapping, t: int,
                scratch: dict) -> tuple[ProxSkipState, np.ndarray]:
        """``step`` in place: :func:`advance_steps` of one step (its draws as views with a
        leading axis of one); x and h are updated in place."""
        return advance_steps(state, {k: v[None] for k, v in draws.items()}, t, 1, scratch)

    if fused is not None:
        from .kernels import proxskip_steps  # numba: imported by the first run, not the CLI

        JT, b, noisy = fused
    return Method(init, step, lyapunov(problem, gamma, p),
                  {"coin": coin(p), **estimator_streams(problem, estimator)},
                  {"gamma": gamma, "p": p, "x0": x0}, **run_cost(problem),
                  advance=None if fused is None else advance,
                  advance_steps=None if fused is None else advance_steps)


def svrg_method(problem: AffineVIP, gamma: float, p: float, q: float,
                x0: Any = 0.0) -> Method[SvrgState]:
    """ProxSkip-L-SVRGDA-FL (Alg. 4, Appendix C [L472–L490]):
    g_i = F_{ij}(x_i) − F_{ij}(w_i) + f_i(w_i), w_i ← x_i w.p. q (coin ζ_t shared), h_{i,0} = 0.
    V includes Mγ²σ_t² with M = 4/q (Cor. 3.9 [L204]) and
    σ_t² = Σ_i (1/m) Σ_j ‖F_ij(w_i) − F_ij(z*)‖² (erratum lemma3.8-sigma).
    Without finite-sum samples, m = 1 (J_i1 = J_i: g_i = f_i)."""
    JT = np.ascontiguousarray(problem.J.transpose(0, 2, 1))
    b = problem.b
    Jij = problem.J[:, None] if problem.Jij is None else problem.Jij
    m, n = Jij.shape[1], problem.n
    z = problem.z_star
    # σ² at w: Σ_i (w_i − z*)ᵀ G_i (w_i − z*), G_i = (1/m) Σ_j J_ijᵀ J_ij = (1/m) S_iᵀ S_i with
    # S_i the m samples stacked as rows (one BLAS product per client)
    stacked = Jij.reshape(n, m * Jij.shape[2], Jij.shape[3])
    G = np.matmul(stacked.transpose(0, 2, 1), stacked) / m

    def init(replicas: int, seed: int = 0) -> SvrgState:
        x = stack(problem, replicas, x0)
        return SvrgState(x, stack(problem, replicas), x.copy())

    def step(state: SvrgState, draws: Mapping, t: int) -> tuple[SvrgState, np.ndarray]:
        g = sample_jac(Jij, draws["sample"], state.x - state.w) + oracle_f(JT, b, state.w)
        w = np.where(draws["refresh"][:, None, None], state.x, state.w)
        x, h = proxskip_update(state.x, state.h, g, draws["coin"], gamma, p)
        return SvrgState(x, h, w), draws["coin"]

    def sigma_sq(s: SvrgState) -> np.ndarray:
        e = s.w - z
        return np.einsum("rni,nik,rnk->r", e, G, e)

    observe = lyapunov(problem, gamma, p)
    base_V, weight = observe["V"], 4.0 / q * _square(gamma)
    observe["V"] = lambda s: base_V(s) + weight * sigma_sq(s)
    streams = {"coin": coin(p), "refresh": coin(q),
               "sample": lambda rng, R: rng.integers(0, m, size=(R, n))}
    return Method(init, step, observe, streams, {"gamma": gamma, "p": p, "q": q, "x0": x0},
                  samples_per_step=2.0 + q * m,
                  **run_cost(problem, 2.0, 2, record=float(n * problem.d**2)))


def local_method(problem: AffineVIP, gamma: float, H: int, extragradient: bool = False,
                 estimator: str = "gda", x0: Any = 0.0) -> Method[ConsensusState]:
    """Local GDA/SGDA (h ≡ 0, H local steps then averaging; Deng & Mahdavi 2021) or Local
    EG/SEG (H extragradient steps y = x − γg(x), x ← x − γg(y), then averaging; Beznosikov et
    al. 2020). One step is one communication round (the paper names the baselines,
    Appendix G [L770], but gives no update rule; these are the standard ones)."""
    g_of = oracle(problem, estimator)
    calls = H * (2 if extragradient else 1)
    streams = {k: (lambda rng, R, f=f: [f(rng, R) for _ in range(calls)])
               for k, f in estimator_streams(problem, estimator).items()}

    def step(state: ConsensusState, draws: Mapping, t: int) -> tuple[ConsensusState, np.ndarray]:
        x, k = state.x, 0
        for _ in range(H):
            d1 = {s: v[k] for s, v in draws.items()}
            k += 1
            if extragradient:
                y = x - gamma * g_of(x, d1)
                d2 = {s: v[k] for s, v in draws.items()}
                k += 1
                x = x - gamma * g_of(y, d2)
            else:
                x = x - gamma * g_of(x, d1)
        return ConsensusState(average(x)), np.ones(x.shape[0])

    fused = None if extragradient else fused_oracle(problem, estimator)

    def advance(state: ConsensusState, draws: Mapping, t: int,
                scratch: dict) -> tuple[ConsensusState, np.ndarray]:
        """``step`` in place (Local GDA/SGDA) on client-major arrays, one compiled call per
        round (:func:`.kernels.gda_round`): each client's block of replicas takes its H local
        steps while in cache, then the mean."""
        (x,) = client_major(state, scratch)
        G, tiled_b, acc, _ = _block_buffers(scratch, x, b)
        noise = np.stack(draws["noise"]) if noisy else _NO_ROUND_NOISE
        if "all" not in scratch:
            scratch["all"] = np.ones(x.shape[1])  # every replica communicates each round
            scratch["dist_sq"] = np.empty(x.shape[1])
        dist = scratch["dist_sq"]
        gda_round(x, JT, tiled_b, noise, noisy, gamma, H, G, acc, center, dist)
        new = ConsensusState(x.swapaxes(0, 1))
        measured[0] = (new, dist)  # one assignment: a reader sees a state with its own numbers
        return new, scratch["all"]

    if fused is None:
        observe = distance(problem)
    else:
        from .kernels import gda_round  # numba: imported by the first run, not the CLI

        JT, b, noisy = fused
        center = _center(problem)
        # Σ_i‖x_i − z*‖² of the state the last round returned, summed by the round while it
        # wrote the mean (as sq_distance sums it); any other state is measured as before
        measured: list[tuple[ConsensusState | None, np.ndarray]] = [(None, np.empty(0))]

        def dist_sq(state: ConsensusState) -> np.ndarray:
            known, values = measured[0]
            return values.copy() if known is state else sq_distance(state.x, center)

        observe = {"dist_sq": dist_sq}
    return Method(lambda R, seed=0: ConsensusState(stack(problem, R, x0)), step,
                  observe, streams, {"gamma": gamma, "H": H, "x0": x0},
                  samples_per_step=float(calls),
                  **run_cost(problem, calls, calls if streams else 0, steps_param="H"),
                  advance=None if fused is None else advance)


def projected_method(problem: AffineVIP, gamma: float, estimator: str = "gda",
                     x0: Any = 0.0) -> Method[ConsensusState]:
    """Proximal (S)GDA x ← Π(x − γ g(x)), communicating every step (Section 3 [L119]).
    Shares the ``noise``/``sample`` streams with :func:`proxskip_method` for the same seed
    (claim proxskip.p11)."""
    g_of = oracle(problem, estimator)

    def step(state: ConsensusState, draws: Mapping, t: int) -> tuple[ConsensusState, np.ndarray]:
        x = projected_update(state.x, g_of(state.x, draws), gamma)
        return ConsensusState(x), np.ones(x.shape[0])

    return Method(lambda R, seed=0: ConsensusState(stack(problem, R, x0)), step,
                  distance(problem), estimator_streams(problem, estimator),
                  {"gamma": gamma, "x0": x0}, **run_cost(problem))


def lockstep(first: Method, second: Method,
             observe: Mapping[str, Callable[[PairState], np.ndarray]]) -> Method[PairState]:
    """Two methods stepped on the same draws (common random numbers, claim proxskip.p11); a stream
    both declare is drawn once (``first``'s draw function). Communications are ``first``'s."""
    def step(state: PairState, draws: Mapping, t: int) -> tuple[PairState, np.ndarray]:
        a, communicated = first.step(state.first, draws, t)
        b, _ = second.step(state.second, draws, t)
        return PairState(a, b), communicated

    return Method(lambda R, seed=0: PairState(first.init(R, seed), second.init(R, seed)), step,
                  observe,
                  {**second.streams, **first.streams})


def skipless_pair(problem: AffineVIP, gamma: float, p: float, estimator: str,
                  h0: np.ndarray) -> tuple[Method[PairState], PairState]:
    """ProxSkip-(S)GDA-FL from (x_0, h_0) = (0, h0) and proximal (S)GDA from x_0 = 0 in lockstep
    (claim proxskip.p11: equal for p = 1, any h_0), observing max_i |x − x'| per replica (``diff``)
    and both distances to x*; with the start state (replicas = h0.shape[0])."""
    dist = distance(problem)["dist_sq"]
    pair = lockstep(proxskip_method(problem, gamma, p, estimator),
                    projected_method(problem, gamma, estimator),
                    {"diff": lambda s: np.max(np.abs(s.first.x - s.second.x), axis=(1, 2)),
                     "proxskip": lambda s: dist(s.first), "projected": lambda s: dist(s.second)})
    x0 = np.zeros_like(h0)
    return pair, PairState(ProxSkipState(x0, h0), ConsensusState(x0.copy()))


# ---- algorithm units ----------------------------------------------------------------------------


def _estimator(config: Mapping[str, Any]) -> str:
    return str(config["estimator"])


def build_gda(problem: AffineVIP, config: Mapping[str, Any]) -> Method[ProxSkipState]:
    gamma, p = gda_steps(problem, config["gamma"], config["p"])
    return proxskip_method(problem, gamma, p, "gda", config["x0"])


def build_sgda(problem: AffineVIP, config: Mapping[str, Any]) -> Method[ProxSkipState]:
    gamma = config["gamma"] if config["gamma"] is not None else sgda_step(
        problem, config["epsilon"])
    _, p = gda_steps(problem, gamma, config["p"])
    return proxskip_method(problem, gamma, p, "sgda", config["x0"])


def build_svrg(problem: AffineVIP, config: Mapping[str, Any]) -> Method[SvrgState]:
    gamma, p, q = svrg_steps(problem, config["gamma"], config["p"], config["q"])
    return svrg_method(problem, gamma, p, q, config["x0"])


def build_local(extragradient: bool) -> Callable[[AffineVIP, Mapping[str, Any]], Method]:
    def build(problem: AffineVIP, config: Mapping[str, Any]) -> Method[ConsensusState]:
        gamma, p = gda_steps(problem, config["gamma"])
        H = config["H"] if config["H"] is not None else max(1, round(1 / p))
        return local_method(problem, gamma, H, extragradient, _estimator(config), config["x0"])
    return build


def build_projected(problem: AffineVIP, config: Mapping[str, Any]) -> Method[ConsensusState]:
    gamma = config["gamma"]
    if gamma is None:
        gamma = (cor36_schedule(problem)["gamma"] if _estimator(config) == "gda" else
                 sgda_step(problem))
    return projected_method(problem, _positive("gamma", gamma, "step size"), _estimator(config),
                            config["x0"])


GAMMA = Param(None, "step size γ (default: the theorem's schedule)", low=0.0, low_open=True)
P_PARAM = Param(None, "communication probability p (default √(γμ), Cor. 3.5 [L174])", low=0.0,
                high=1.0, low_open=True)
X0 = Param(0.0, "initial point: every coordinate of every x_{i,0}")
H_PARAM = Param(None, "local steps per round (default round(1/p), p = √(γμ))", kind=int, low=1,
                high=10**6)
ESTIMATOR = Param("gda", "oracle: gda (g_i = f_i) or sgda (noise / one sample)", kind=str,
                  choices=("gda", "sgda"))

PROXSKIP_GDA_FL = Algorithm(
    "proxskip-gda-fl", "proxskip", "ProxSkip-GDA-FL (Alg. 2 [L212], g_i = f_i); γ, p of "
    "Cor. 3.6", build_gda, {"gamma": GAMMA, "p": P_PARAM, "x0": X0}, PROBLEMS)
PROXSKIP_SGDA_FL = Algorithm(
    "proxskip-sgda-fl", "proxskip", "ProxSkip-SGDA-FL (Alg. 2, stochastic g_i: coupled Gaussian "
    "noise or one sample of the finite sum; Alg. 2 [L212]); γ of Cor. 3.5", build_sgda,
    {"gamma": GAMMA, "p": P_PARAM, "x0": X0,
     "epsilon": Param(None, "target accuracy ε of Cor. 3.5's cap γ ≤ με/(8σ_*²) (default: "
                            "none, γ = 1/(2L_g) as in Table G)", low=0.0, low_open=True)},
    PROBLEMS)
PROXSKIP_L_SVRGDA_FL = Algorithm(
    "proxskip-l-svrgda-fl", "proxskip", "ProxSkip-L-SVRGDA-FL (Alg. 4 [L472], loopless SVRG); "
    "γ, p, q of Cor. 3.9", build_svrg,
    {"gamma": GAMMA, "p": P_PARAM, "x0": X0,
     "q": Param(None, "reference refresh probability q (default 2γμ)", low=0.0, high=1.0,
                low_open=True)}, PROBLEMS)
LOCAL_GDA = Algorithm(
    "local-gda", "proxskip", "Local GDA/SGDA baseline: H local steps, then averaging (h ≡ 0; "
    "one round = H steps)", build_local(False),
    {"gamma": GAMMA, "H": H_PARAM, "x0": X0, "estimator": ESTIMATOR}, PROBLEMS)
LOCAL_EG = Algorithm(
    "local-eg", "proxskip", "Local EG/SEG baseline: H extragradient steps, then averaging (one "
    "round = H steps)", build_local(True),
    {"gamma": GAMMA, "H": H_PARAM, "x0": X0, "estimator": ESTIMATOR}, PROBLEMS)
PROJECTED_GDA = Algorithm(
    "projected-gda", "proxskip", "Proximal (S)GDA x ← Π(x − γg), communicating every step "
    "(p = 1 reference, Section 3 [L119])", build_projected,
    {"gamma": GAMMA, "x0": X0, "estimator": ESTIMATOR}, PROBLEMS)


# ---- Local GDA with the authors' decreasing step (claim proxskip.p19) ---------------------------


def authors_local_gda_schedule(problem: AffineVIP, H: int) -> tuple[Callable[[int], float],
                                                                      dict[str, float]]:
    """The decreasing Local GDA step of the authors' code (Reproducibility Statement [L302];
    the paper gives no baseline steps, Section 5 [L264]): γ_t = 8/(μ(a + t)) with
    a = 2048·H·(L_max/μ)², t the number of local steps taken so far, μ the schedules' μ
    (:func:`schedule_mu`) and L_max = max_i L_i. Returns the schedule and its constants."""
    mu, L = schedule_mu(problem), float(problem.constants["L"])
    a = 2048.0 * H * (L / mu) ** 2
    return (lambda t: 8.0 / (mu * (a + t))), {"mu": mu, "L_max": L, "a": a, "H": float(H),
                                                "gamma_0": 8.0 / (mu * a)}


def scheduled_local_method(problem: AffineVIP, steps: Callable[[int], float], H: int,
                           x0: Any = 0.0) -> Method[ConsensusState]:
    """Deterministic Local GDA with a step schedule: in communication round k, H local steps
    z ← z − γ_t f_i(z) with t = kH + j the global local-step count, then averaging (the
    constant-step :func:`local_method` with γ_t in place of γ)."""
    JT = np.ascontiguousarray(problem.J.transpose(0, 2, 1))
    b = problem.b

    def step(state: ConsensusState, draws: Mapping, k: int) -> tuple[ConsensusState, np.ndarray]:
        x = state.x
        for j in range(H):
            x = x - steps(k * H + j) * oracle_f(JT, b, x)
        return ConsensusState(average(x)), np.ones(x.shape[0])

    return Method(lambda R, seed=0: ConsensusState(stack(problem, R, x0)), step,
                  distance(problem), {}, {"H": H, "x0": x0, "gamma_0": steps(0)},
                  **run_cost(problem, H, steps_param="H"))


# ---- ProxSkip-GDA-FL on RLS in the coordinates of its invariant subspace (claim proxskip.p17) ----


class RLSReduced:
    """ProxSkip-GDA-FL (Alg. 2, g_i = f_i) on robust least squares with the row split of
    Appendix G.1 [L810], in the coordinates of an invariant subspace ([derived], exact).

    Client i's operator acts only on (β, its own m rows of y); on the rows of another client j
    its f_i is zero, so there the local step is x ← x + γh and F(x*) vanishes. Started from the
    same point (x_0 = h_0 = 0) the n − 1 "inert" copies of client j's rows follow identical
    updates — the coin is shared and the averaging treats them alike — so they stay equal for
    every coin sequence. The errors e = (x − x*, h − F(x*)) therefore live in coordinates

        per client i: (x, h) on (β, own rows) — 2(s + m) numbers,
        per row block j: (x, h) of the inert copies — 2m numbers,

    2n(s + 2m) in all (1120 at the paper's r = 200, s = 8, n = 20) instead of 2n(s + r)
    (8320); V counts each inert copy n − 1 times. One step is e ↦ T_0 e (no communication) or
    C T_0 e (communication, probability p), T_0 block-diagonal, C the averaging; the second
    moment Σ ↦ p C T_0ΣT_0ᵀCᵀ + (1 − p)T_0ΣT_0ᵀ is applied matrix-free (``verify.exact.
    proxskip``'s recursion in these coordinates: claim proxskip.p17's test checks both agree)."""

    def __init__(self, problem: AffineVIP, gamma: float, p: float) -> None:
        if not (0 < p <= 1) or gamma <= 0:
            raise ValueError(f"need gamma > 0 and p in (0, 1], got gamma={gamma}, p={p}")
        prm = problem.params
        self.s, self.r, self.n = int(prm["s"]), int(prm["r"]), problem.n
        self.m = self.r // self.n
        self.gamma, self.p = float(gamma), float(p)
        s, m, n = self.s, self.m, self.n
        self.a = s + m  # active coordinates of a client
        own = [np.r_[0:s, s + i * m: s + (i + 1) * m] for i in range(n)]
        A = np.stack([np.eye(self.a) - gamma * problem.J[i][np.ix_(k, k)]
                      for i, k in enumerate(own)])
        blocks = np.zeros((n, 2 * self.a, 2 * self.a))  # client blocks of T_0: [[A, γI], [0, I]]
        blocks[:, :self.a, :self.a] = A
        blocks[:, :self.a, self.a:] = gamma * np.eye(self.a)
        blocks[:, self.a:, self.a:] = np.eye(self.a)
        self.n_client = n * 2 * self.a
        import scipy.sparse as sps

        inert_block = sps.kron(sps.csr_matrix(np.array([[1.0, gamma], [0.0, 1.0]])),
                               sps.identity(m))
        self.T0 = sps.block_diag([*blocks, *([inert_block] * n)], format="csr")
        self.dim = self.n_client + n * 2 * m
        zs = problem.z_star
        fz = problem.f(np.broadcast_to(zs, (n, problem.d)))
        e = np.zeros(self.dim)
        cl = e[:self.n_client].reshape(n, 2, self.a)
        cl[:, 0] = -np.stack([zs[k] for k in own])
        cl[:, 1] = -np.stack([fz[i][k] for i, k in enumerate(own)])
        inert = e[self.n_client:].reshape(n, 2, m)
        inert[:, 0] = -zs[s:].reshape(n, m)  # F(x*) is zero on another client's rows
        self.e0 = e
        w = np.ones(self.dim)
        w[:self.n_client].reshape(n, 2, self.a)[:, 1] = (gamma / p) ** 2
        wi = w[self.n_client:].reshape(n, 2, m)
        wi[:, 0] = n - 1
        wi[:, 1] = (n - 1) * (gamma / p) ** 2
        self.weights = w

    # rows of E (dim, K) are coordinates
    def local(self, E: np.ndarray) -> np.ndarray:
        """T_0 applied to the rows of E (a column is an error vector): one sparse product with
        the block-diagonal T_0 (client blocks [[A_i, γI], [0, I]], inert [[I, γI], [0, I]])."""
        return np.asarray(self.T0 @ E)

    def communicate(self, E: np.ndarray) -> np.ndarray:
        """C: x ← Π(x̂ − (γ/p)h), h ← h + (p/γ)(x − x̂) on the rows of E (Alg. 2 [L212–L226]),
        Π the consensus average (β over the n clients; a row of y over its active copy and its
        n − 1 inert copies)."""
        n, a, m, s = self.n, self.a, self.m, self.s
        g, p = self.gamma, self.p
        cl = E[:self.n_client].reshape(n, 2, a, -1)
        inert = E[self.n_client:].reshape(n, 2, m, -1)
        u_cl = cl[:, 0] - (g / p) * cl[:, 1]
        u_in = inert[:, 0] - (g / p) * inert[:, 1]
        v_cl = np.empty_like(u_cl)
        v_cl[:, :s] = u_cl[:, :s].mean(axis=0, keepdims=True)
        rows = (u_cl[:, s:] + (n - 1) * u_in) / n
        v_cl[:, s:] = rows
        out = np.empty_like(E)
        oc = out[:self.n_client].reshape(n, 2, a, -1)
        oi = out[self.n_client:].reshape(n, 2, m, -1)
        oc[:, 0] = v_cl
        oc[:, 1] = cl[:, 1] + (p / g) * (v_cl - cl[:, 0])
        oi[:, 0] = rows
        oi[:, 1] = inert[:, 1] + (p / g) * (rows - inert[:, 0])
        return out

    def second_moment(self, S: np.ndarray) -> np.ndarray:
        """Σ ↦ p C T_0 Σ T_0ᵀ Cᵀ + (1 − p) T_0 Σ T_0ᵀ (Σ symmetric)."""
        S0 = self.local(self.local(S).T)
        S1 = self.communicate(self.communicate(S0).T)
        return self.p * S1 + (1 - self.p) * S0

    def expected_V(self, steps: int) -> np.ndarray:
        """E[V_t] for t = 0..steps from x_0 = h_0 = 0, exactly."""
        S = np.outer(self.e0, self.e0)
        out = np.empty(steps + 1)
        out[0] = float(self.weights @ np.diag(S))
        for t in range(1, steps + 1):
            S = self.second_moment(S)
            out[t] = float(self.weights @ np.diag(S))
        return out

    def radius(self, tol: float = 1e-8, ncv: int = 30) -> tuple[float, np.ndarray, int]:
        """Spectral radius of the second-moment map by implicitly restarted Arnoldi on
        symmetric matrices (matrix-free), its (PSD) eigenmatrix and the number of map
        applications."""
        import scipy.sparse.linalg as spla

        k, count = self.dim, [0]

        def mv(v: np.ndarray) -> np.ndarray:
            count[0] += 1
            S = v.reshape(k, k)
            return self.second_moment(0.5 * (S + S.T)).ravel()

        op = spla.LinearOperator((k * k, k * k), matvec=mv, dtype=float)
        vals, vecs = spla.eigs(op, k=1, which="LM", tol=tol, ncv=ncv, maxiter=100_000,
                               v0=np.eye(k).ravel())
        X = np.real(vecs[:, 0]).reshape(k, k)
        X = 0.5 * (X + X.T)
        return float(np.abs(vals[0])), X * np.sign(np.trace(X)), count[0]

    def difference_radius(self) -> float:
        """Spectral radius of the second-moment map on the complement of the invariant subspace
        (n ≥ 3): two inert copies of a row differ by (δx, δh) ↦ (δx + γδh, δh) without and
        (0, (1 − p)δh − (p/γ)δx) with communication — the same 2 × 2 map for every row, and
        decoupled (the averaging sees only the copies' sum). The full map's radius is the larger
        of this and the reduced one (the cross moments' radius is at most their geometric mean);
        0 when n ≤ 2 (no two inert copies)."""
        if self.n <= 2:
            return 0.0
        g, p = self.gamma, self.p
        M0 = np.array([[1.0, g], [0.0, 1.0]])
        M1 = np.array([[0.0, 0.0], [-p / g, 1 - p]])
        K = p * np.kron(M1, M1) + (1 - p) * np.kron(M0, M0)
        return float(np.max(np.abs(np.linalg.eigvals(K))))
