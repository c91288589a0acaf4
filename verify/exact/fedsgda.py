"""Exact machinery of the FedSGDA-M claims fedsgda.p3 and fedsgda.p8–p11.

On a game with common Hessians and additive noise (SC-CH, N-add) the averaged FedSGDA-M iterates are
those of one client with batch N·b (claim fedsgda.p1, exact: :func:`averaged_method`), and one
FedSGDA-M step is an affine map of w = (z, u) plus injected noise, w' = A w + c + E ξ (ξ ~ N(0, I)),
read off the algorithm's own step (:func:`storm_map`). The first and second moments of w then evolve
linearly, so the average over t < T of E‖∇Φ(x̄_t)‖² is a linear functional of a matrix power
(:func:`storm_exact_avg`, any T, no sampling) and the stationary floor solves a discrete Lyapunov
equation (:func:`storm_floor`). On heterogeneous games the noise-free floor is the fixed point of
the Q-step block map (:func:`periodic_floor`). :func:`thm312_realized` evaluates Theorem 3.12
exactly (rational arithmetic) at the parameters a run realizes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from fedbounds import engine, registry
from fedbounds.problems.fedsgda import one_client, pl_gaps
from fedbounds.problems.minmax import MinMaxGame

from ..algorithm import Method, simulate
from ..algorithms.fedsgda import FEDSGDA_M, FedSGDAMState, exact_schedule
from ..minmax import client_grad, server_observe
from .minmax import affine_round, grad_phi_affine


# ---- the averaged STORM step (common Hessians, additive noise) ---------------------------------
def averaged_method(g: MinMaxGame, config: Mapping[str, Any]) -> tuple[MinMaxGame, Method]:
    """FedSGDA-M on N identical clients ≡ one client with batches N·b and N·B (claim
    fedsgda.p1): the single-client game and its method (Q = 1)."""
    N = g.M
    return one_client(g), FEDSGDA_M.method(one_client(g), {
        **config, "b": config["b"] * N, "B": config["B"] * N, "Q": 1})


def storm_map(method: Method[FedSGDAMState], d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, c, E) with w' = A w + c + E ξ for one step of a single-client FedSGDA-M method,
    w = (z, u) ∈ R^{2d}, evaluated on basis states."""
    n = 2 * d

    def step(W: np.ndarray, xi: np.ndarray) -> np.ndarray:
        z = W[:, None, :d].copy()
        new, _ = method.step(FedSGDAMState(z.mean(1), z, W[:, None, d:].copy()),
                             {"noise": xi[:, None, :]}, 0)
        return np.concatenate([new.z_local[:, 0], new.u[:, 0]], axis=1)

    A, c = affine_round(lambda W: step(W, np.zeros((W.shape[0], d))), n)
    E = (step(np.zeros((d, n)), np.eye(d)) - c).T
    return A, c, E


def _phi_functional(g1: MinMaxGame, n: int) -> np.ndarray:
    """Ĝ with ∇Φ(x) = Ĝ (z, u, 1) (λ = 0)."""
    G, g0 = grad_phi_affine(g1)
    Gh = np.zeros((g1.dx, n + 1))
    Gh[:, : g1.d] = G
    Gh[:, n] = g0
    return Gh


def storm_exact_avg(g1: MinMaxGame, method: Method[FedSGDAMState], T: int,
                    final: dict[str, np.ndarray] | None = None) -> float:
    """Exact (1/T) Σ_{t<T} E‖∇Φ(x̄_t)‖² of a single-client FedSGDA-M method on g1 (initial batch
    ``method.config["B"]``): second moments of (w, 1) by a block matrix power. ``final``, when
    given, receives the second moments E[(w, 1)(w, 1)ᵀ] at t = T (``"T"``) and t = 0
    (``"start"``)."""
    d, n = g1.d, 2 * g1.d
    A, c0, E = storm_map(method, d)
    m = n + 1
    At = np.zeros((m, m))
    At[:n, :n], At[:n, n], At[n, n] = A, c0, 1.0
    Et = np.zeros((m, d))
    Et[:n] = E
    k = m * m
    Kp = np.zeros((k + 1, k + 1))
    Kp[:k, :k] = np.kron(At, At)
    Kp[:k, k] = (Et @ Et.T).reshape(-1)
    Kp[k, k] = 1.0
    big = np.zeros((2 * (k + 1), 2 * (k + 1)))
    big[: k + 1, : k + 1] = Kp
    big[k + 1:, : k + 1] = np.eye(k + 1)
    big[k + 1:, k + 1:] = np.eye(k + 1)
    z0 = g1.z0
    w0 = np.concatenate([z0, g1.H[0] @ z0 + g1.h[0], [1.0]])
    P0 = np.outer(w0, w0)
    if g1.noisy:
        P0[d:n, d:n] += np.diag(g1.coord_var() / float(method.config["B"]))
    q0 = np.concatenate([P0.reshape(-1), [1.0], np.zeros(k + 1)])
    moments = np.linalg.matrix_power(big, int(T)) @ q0
    s = moments[k + 1: k + 1 + k].reshape(m, m)
    Gh = _phi_functional(g1, n)
    if final is not None:  # the second moment of (w_T, 1) and of (w_0, 1), for the caller
        final.update(T=moments[:k].reshape(m, m), start=P0)
    return float(np.trace(Gh @ s @ Gh.T)) / T


def storm_floor(g1: MinMaxGame, method: Method[FedSGDAMState]) -> tuple[float, float]:
    """Exact stationary E‖∇Φ(x̄)‖² of a single-client FedSGDA-M method on g1 and the spectral
    radius of its map."""
    from scipy.linalg import solve_discrete_lyapunov

    n = 2 * g1.d
    A, c0, E = storm_map(method, g1.d)
    rho = float(max(abs(np.linalg.eigvals(A))))
    mean = np.linalg.solve(np.eye(n) - A, c0)
    Sig = solve_discrete_lyapunov(A, E @ E.T)
    Gh = _phi_functional(g1, n)
    gm = Gh @ np.concatenate([mean, [1.0]])
    return float(np.trace(Gh[:, :n] @ Sig @ Gh[:, :n].T) + gm @ gm), rho


# ---- heterogeneous clients: the noise-free periodic orbit --------------------------------------
def periodic_floor(g: MinMaxGame, method: Method[FedSGDAMState]) -> tuple[float, float, float]:
    """Noise-free FedSGDA-M on all N clients: fixed point of the Q-step (one communication block)
    affine map of w = (z^i, u^i)_i; returns the average of ‖∇Φ(x̄_t)‖² over the periodic orbit
    (the ζ-floor: with additive noise, E‖∇Φ‖² = this + an offset-free covariance part), the
    spectral radius, and ζ² = Σ p_i‖∇f_i(z̄) − ∇F(z̄)‖² at the orbit's start."""
    if method.streams:
        raise ValueError("periodic_floor needs a noise-free game")
    N, d, Q = g.M, g.d, method.config["Q"]
    n = 2 * N * d

    def state(W: np.ndarray) -> FedSGDAMState:
        z = W[:, : N * d].reshape(-1, N, d).copy()
        return FedSGDAMState(z.mean(1), z, W[:, N * d:].reshape(-1, N, d).copy())

    def block(W: np.ndarray) -> np.ndarray:
        end = simulate(method, Q, replicas=W.shape[0], state=state(W), observe={}).state
        return np.concatenate([end.z_local.reshape(len(W), -1), end.u.reshape(len(W), -1)], 1)

    A, c = affine_round(block, n)
    Ia = np.eye(n) - A
    w = np.linalg.solve(Ia, c)
    w = w + np.linalg.solve(Ia, c - Ia @ w)  # one step of iterative refinement
    orbit = state(w[None])
    tr = simulate(method, Q, state=orbit, observe=server_observe(g))
    floor = float(np.mean(tr.metrics["grad_phi_sq"][:-1, 0]))
    gi = client_grad(g, np.broadcast_to(orbit.z[0], (1, N, d)).copy())[0]
    zeta_sq = float(g.p @ np.sum((gi - g.p @ gi) ** 2, axis=1))
    return floor, float(max(abs(np.linalg.eigvals(A)))), zeta_sq


# ---- Theorem 3.12 at the realized parameters (exact) -------------------------------------------
def thm312_realized(g: MinMaxGame, reading: str, NT0: int, nu: int = 0) -> dict[str, Any]:
    """Realized parameters of one Theorem 3.12 run: b, T, Q, B from the Cor. 3.13 schedule
    (rounded to integers), c, ĉ, c_1, c_2 from the Thm 3.12 schedule (R1: ``.corrected``, L = L_f;
    R2: printed), η = engine.max_step(thm, "eta"), the exact problem inputs Δ, Δ_y, σ, ζ, L_f, μ,
    and the bound (engine.bound) at them."""
    thm_id = "fedsgda.thm3.12.corrected" if reading == "R1" else "fedsgda.thm3.12"
    thm, cor = registry.get(thm_id), registry.get("fedsgda.cor3.13.corrected")
    k, N = g.constants, g.M
    base: dict[str, Any] = {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "N": N, "nu": nu,
                            "T_0": Fraction(NT0, N)}
    b = round(exact_schedule(cor, ["b"], base)["b"])
    sched = exact_schedule(cor, ["Q", "T", "B"], {**base, "b": b})
    Q, T, Bm = max(1, round(sched["Q"])), round(sched["T"]), max(1, math.ceil(sched["B"]))
    steps = exact_schedule(thm, ("c", "c_hat", "c_1", "c_2"), {**base, "b": b, "Q": Q})
    vals = {"L_f": Fraction(k["L_f"]), "mu": Fraction(k["mu"]), "N": Fraction(N),
            "Q": Fraction(Q), "b": Fraction(b), **steps}
    ms = engine.max_step(thm, "eta", vals)
    if ms.value is None:
        raise ValueError(f"{thm_id}: no feasible eta ({ms.binding})")
    eta = ms.value
    Delta, Delta_y = pl_gaps(g)
    inputs = {**vals, "eta": Fraction(eta), "T": Fraction(T), "B": Fraction(Bm),
              "Delta": Fraction(Delta), "Delta_y": Fraction(Delta_y),
              "sigma": Fraction(k["sigma"]), "zeta": Fraction(k["zeta"])}
    st = {n: float(v) for n, v in steps.items()}
    cfg = {"c_hat": st["c_hat"], "c": st["c"], "eta": eta, "alpha": st["c_1"] * eta**2,
           "beta": st["c_2"] * eta**2, "Q": Q, "b": b, "B": Bm}
    return {"theorem": thm_id, "cfg": cfg, "T": T, "bound": engine.bound(thm, inputs),
            "eta_binding": ms.binding, "Delta": Delta, "Delta_y": Delta_y}


# ---- claims fedsgda.p2, p4, p12, p13 (module fedsgda_more) -------------------------------------
def walk(method: Method, steps: int, replicas: int, seed: int):
    """The states of ``steps`` steps of ``method`` with the executor's own random streams
    (:func:`fedbounds.verify.executor.generators`, the same draws as :func:`simulate` at this
    seed): yields (t, state before, state after) for t = 0 … steps − 1."""
    from ..executor import generators

    rngs, order = generators(seed, list(method.streams)), sorted(method.streams)
    state = method.init(replicas, seed)
    for t in range(steps):
        draws = {k: method.streams[k](rngs[k], replicas) for k in order}
        new, _ = method.step(state, draws, t)
        yield t, state, new
        state = new


def objective_parts(g: MinMaxGame, z: np.ndarray) -> dict[str, np.ndarray]:
    """F(x, y) = Σ_i p_i f_i(x, y) (with the game's λ Σ cos x_j term), ∇_x F, ∇_y F, Φ(x) and
    ∇Φ(x) at z (..., d), all closed form (Φ = max_y F with y*(x) = C̄⁻¹(B̄ᵀx − c̄))."""
    A, B, C, b, c = g.mean_blocks()
    x, y = z[..., : g.dx], z[..., g.dx:]
    F = (0.5 * np.einsum("...i,ij,...j->...", x, A, x) + np.einsum("...i,ij,...j->...", x, B, y)
         - 0.5 * np.einsum("...i,ij,...j->...", y, C, y) + x @ b - y @ c
         + g.lam * np.cos(x).sum(-1))
    gx = x @ A + y @ B.T + b - g.lam * np.sin(x)
    gy = x @ B - y @ C - c
    return {"F": F, "gx": gx, "gy": gy, "phi": np.asarray(g.phi(x)), "gphi": g.grad_phi(x)}


def _sq(a: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, a)


def pathwise_lemma_sides(g: MinMaxGame, method: Method[FedSGDAMState], steps: int,
                         replicas: int, seed: int, L_phi: float) -> dict[str, np.ndarray]:
    """Both sides of Lemma C.2 [L626–L628], Lemma C.3 [L646–L652] (its ‖x̂_{t+1} − x̄_t‖²η/(4ĉ)
    written as ηĉ‖ū_{t+1}‖²/4) and Lemma A.1(3) [L410–L412], ‖∇_y F(x̄_t, ȳ_t)‖² ≤
    2L_f[Φ(x̄_t) − F(x̄_t, ȳ_t)], at every step t of every replica of a FedSGDA-M run (no
    expectation is taken: the three hold pathwise). Arrays (steps, replicas) per lemma: ``lhs``,
    ``rhs`` and ``scale`` = 1 + |Φ(x̄_t)| + |F(x̄_t, ȳ_t)| (the rounding scale of the
    differences). ``L_phi`` is the smoothness of Φ used in Lemma C.2 (L_f(1 + κ), Lemma A.1)."""
    k, cfg = g.constants, method.config
    Lf, mu, dx = k["L_f"], k["mu"], g.dx
    h, hy = cfg["c_hat"] * cfg["eta"], cfg["c"] * cfg["eta"]
    out: dict[str, list[np.ndarray]] = {n: [] for n in (
        "C.2 lhs", "C.2 rhs", "C.3 lhs", "C.3 rhs", "A.1(3) lhs", "A.1(3) rhs", "scale")}
    for _t, _before, st in walk(method, steps + 1, replicas, seed):
        # st holds z^i_t and (u^i_{t+1}, v^i_{t+1}); the next z̄ is x̄_{t+1} = x̄_t − ĉηū_{t+1}
        zbar = st.z_local.mean(1)
        now = objective_parts(g, zbar)
        grads = client_grad(g, st.z_local)  # ∇f_i(z^i_t)
        gbar = grads.mean(1)
        ubar, vbar = st.u[..., :dx].mean(1), st.u[..., dx:].mean(1)
        xi = np.sum((st.z_local - zbar[:, None]) ** 2, axis=(1, 2)) / g.M  # Ξ_t
        gap = now["phi"] - now["F"]
        nxt = objective_parts(g, np.concatenate([zbar[:, :dx] - h * ubar,
                                                 zbar[:, dx:] + hy * vbar], axis=1))
        out["C.2 lhs"].append(nxt["phi"] - now["phi"])
        out["C.2 rhs"].append(-(h / 2 - h**2 * L_phi / 2) * _sq(ubar)
                              + 1.5 * h * _sq(ubar - gbar[:, :dx]) - h / 2 * _sq(now["gphi"])
                              + 1.5 * h * Lf**2 * xi + 3 * h * Lf**2 / mu * gap)
        out["C.3 lhs"].append((nxt["phi"] - nxt["F"]) - gap)
        out["C.3 rhs"].append(-hy * mu / 2 * gap + h / 4 * _sq(ubar) - hy / 4 * _sq(vbar)
                              + 3 * Lf**2 * hy * xi + 3 * hy * _sq(vbar - gbar[:, dx:]))
        out["A.1(3) lhs"].append(_sq(now["gy"]))
        out["A.1(3) rhs"].append(2 * Lf * gap)
        out["scale"].append(1 + np.abs(now["phi"]) + np.abs(now["F"]))
    return {n: np.array(v)[1:] for n, v in out.items()}  # t = 0 … steps − 1 after the init


def lemma_c4_sides(g: MinMaxGame, method: Method[FedSGDAMState], steps: int, replicas: int,
                   seed: int) -> dict[str, Any]:
    """Lemma C.4 [L722–L730] at every step t of a FedSGDA-M run, conditionally on the state
    (z^i_{t−1}, u^i_t, v^i_t) and exactly: with the same minibatch at both points the noise of
    ū_{t+1} is (1/N)Σ_i ξ_i ⊙ (s_i(z^i_t) − (1 − α)s_i(z^i_{t−1})), s_i the per-coordinate
    noise scale of the game's noise model (read off ``noisy_grad``), so
    E_t‖ū_{t+1} − ∇_x F̄_t‖² = (1 − α)²‖ū_t − ∇_x F̄_{t−1}‖² + that variance (same for v̄ with β).
    The right-hand side uses the lemma's constants at their a-posteriori values: L = the
    mean-squared smoothness of the stochastic gradients, L_f·√(1 + β_L²/b) (β_L the game's
    multiplicative noise), σ² = the largest per-sample variance σ_x² + σ_y² + β_L²‖∇f_i‖² over
    the visited local points, and u^i_t, v^i_t the estimators the step uses (averaged at a
    communication step, Algorithm 2 [L203–L206]). Returns per block (x, y) arrays (steps,
    replicas) ``lhs``, ``rhs`` and ``rhs_presync`` (the right-hand side with the clients'
    estimators before the averaging, another reading), ``sync`` (steps,) marking the
    communication steps, and the constants σ² and L used."""
    from ..minmax import noisy_grad

    k, cfg, N, dx = g.constants, method.config, g.M, g.dx
    b, Q = float(cfg["b"]), int(cfg["Q"])
    h, hy = cfg["c_hat"] * cfg["eta"], cfg["c"] * cfg["eta"]
    keep = {"x": 1 - cfg["alpha"], "y": 1 - cfg["beta"]}
    blocks = {"x": slice(0, dx), "y": slice(dx, g.d)}
    L2 = k["L_f"] ** 2 * (1 + g.beta_L**2 / b)
    rows: list[dict[str, Any]] = []
    sig2 = 0.0
    for t, before, st in walk(method, steps, replicas, seed):
        sync = (t + 1) % Q == 0
        used = np.repeat(before.u.mean(1, keepdims=True), N, 1) if sync else before.u
        g_old, g_new = client_grad(g, before.z_local), client_grad(g, st.z_local)
        one = np.ones_like(g_new)
        s_old = noisy_grad(g, g_old, one, b) - g_old
        s_new = noisy_grad(g, g_new, one, b) - g_new
        var = g.sigma_x**2 + g.sigma_y**2 + g.beta_L**2 * np.maximum(_sq(g_old), _sq(g_new))
        sig2 = max(sig2, float(var.max()))
        ubar, vbar = used[..., :dx].mean(1), used[..., dx:].mean(1)
        def spread_of(est: np.ndarray) -> np.ndarray:
            return (h**2 * np.sum((est[..., :dx] - est[..., :dx].mean(1, keepdims=True)) ** 2,
                                  axis=(1, 2))
                    + hy**2 * np.sum((est[..., dx:] - est[..., dx:].mean(1, keepdims=True)) ** 2,
                                     axis=(1, 2)))

        spread, spread_pre = spread_of(used), spread_of(before.u)
        mean_move = h**2 * _sq(ubar) + hy**2 * _sq(vbar)
        row: dict[str, Any] = {"sync": sync}
        for name, sl in blocks.items():
            a = keep[name]
            e_prev = _sq(used[..., sl].mean(1) - g_old[..., sl].mean(1))
            noise = np.sum((s_new[..., sl] - a * s_old[..., sl]) ** 2, axis=(1, 2)) / N**2
            rest = a**2 * e_prev + 4 * a**2 * L2 / (N * b) * mean_move
            drift = 8 * a**2 * L2 / (N**2 * b) * (Q - 1) / Q
            row[name] = (a**2 * e_prev + noise, rest + drift * spread, 1 - a,
                         rest + drift * spread_pre)
        rows.append(row)
    out: dict[str, Any] = {"sync": np.array([r["sync"] for r in rows]), "sigma_sq": sig2,
                           "L_mss": math.sqrt(L2)}
    for name in blocks:
        a2 = rows[0][name][2] ** 2  # α² (β²)
        out[name] = {"lhs": np.array([r[name][0] for r in rows]),
                     "rhs": np.array([r[name][1] for r in rows]) + 2 * a2 * sig2 / (N * b),
                     "rhs_presync": np.array([r[name][3] for r in rows])
                     + 2 * a2 * sig2 / (N * b)}
    return out


def storm_exact_energy(g1: MinMaxGame, method: Method[FedSGDAMState], T: int
                       ) -> dict[str, float]:
    """Exact (1/T) Σ_{t<T} E‖∇Φ(x̄_t)‖² and E[Φ(x̄_0) − Φ(x̄_T)] of a single-client FedSGDA-M
    method on a quadratic game g1 (λ = 0): Φ(x) = Φ(0) + g0ᵀx + ½xᵀHx with ∇Φ(x) = Hx + g0, so
    E Φ(x̄_t) is linear in the second moment of (w_t, 1) (:func:`storm_exact_avg`)."""
    moments: dict[str, np.ndarray] = {}
    avg = storm_exact_avg(g1, method, T, moments)
    G, g0 = grad_phi_affine(g1)
    H, dx, n = G[:, : g1.dx], g1.dx, 2 * g1.d

    def expected_phi(P: np.ndarray) -> float:
        return float(g1.phi(np.zeros(dx)) + g0 @ P[:dx, n] + 0.5 * np.trace(H @ P[:dx, :dx]))

    drop = expected_phi(moments["start"]) - expected_phi(moments["T"])
    return {"avg_grad_phi_sq": avg, "phi_drop": drop}


# ---- FedSGDA+ without noise: the round is affine in (z̄, x̃) (claim fedsgda.p12) ---------------
def plus_round_affine(g: MinMaxGame, config: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(A, c) with w' = A w + c for one noise-free FedSGDA+ round on w = (z̄_t, x̃_k) ∈
    R^{d + dx}, the snapshot held (its refresh every S rounds is the caller's), read off the
    algorithm's own step."""
    from ..algorithms.fedsgda import FEDSGDA_PLUS, FedSGDAPlusState

    if g.noisy:
        raise ValueError("plus_round_affine needs a noise-free game")
    method = FEDSGDA_PLUS.method(g, {**config, "S": 10**15})  # the step never refreshes x̃
    d = g.d

    def one_round(W: np.ndarray) -> np.ndarray:
        new, _ = method.step(FedSGDAPlusState(W[:, :d].copy(), W[:, d:].copy()), {}, 0)
        return np.concatenate([new.z, new.x_tilde], axis=1)

    return affine_round(one_round, d + g.dx)


def plus_floor(g: MinMaxGame, config: Mapping[str, Any]) -> tuple[float, float, np.ndarray]:
    """Noise-free FedSGDA+ at rest: the fixed point z̄ of a round with x̃ = x̄ (a fixed point for
    every snapshot period S, since x̄ does not move), ‖∇Φ(x̄)‖² there, the spectral radius of the
    round map z̄ ↦ z̄' at x̃ = x̄ (the floor is reached when it is below 1) and the point."""
    A, c = plus_round_affine(g, config)
    d, dx = g.d, g.dx
    lift = np.zeros((d + dx, d))
    lift[:d] = np.eye(d)
    lift[d:, :dx] = np.eye(dx)
    Az = A[:d] @ lift
    z = np.linalg.solve(np.eye(d) - Az, c[:d])
    gphi = g.grad_phi(z[:dx])
    return float(gphi @ gphi), float(max(abs(np.linalg.eigvals(Az)))), z


def plus_average(g: MinMaxGame, config: Mapping[str, Any], T: int) -> float:
    """Noise-free FedSGDA+ from the game's start: (1/T) Σ_{t<T} ‖∇Φ(x̄_t)‖², the snapshot x̃
    refreshed to x̄ every S rounds (Algorithm 1 [L127–L130]), by iterating the affine round."""
    A, c = plus_round_affine(g, config)
    d, dx, S = g.d, g.dx, int(config["S"])
    w = np.concatenate([g.z0, g.z0[:dx]])
    total = 0.0
    for t in range(T):
        gphi = g.grad_phi(w[:dx])
        total += float(gphi @ gphi)
        w = A @ w + c
        if (t + 1) % S == 0:
            w[d:] = w[:dx]
    return total / T
