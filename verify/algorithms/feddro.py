"""FedDRO algorithms (Khanduri et al.): vanilla FedAvg for CO (Algorithm 1, Cases I and II), the
modified FedAvg of Theorem 4.2 and FedDRO (Algorithm 2, estimator (8)); and the Theorem 4.1
counterexample that ``fedbounds counterexample feddro.thm4.1`` runs (exact round map in
:mod:`fedbounds.verify.exact.feddro`).

States are arrays shaped (replicas, clients, dim); every replica and client advances in one
vectorized step of :func:`fedbounds.verify.algorithm.simulate`. Random streams: ``g`` (the batch
of g_k and, shared, of ∇g_k), ``h`` (∇h_k) and ``g_grad`` (an independent ∇g_k batch). Choices
the paper leaves open are parameters with these defaults (labels A1–A6 are ours):

* A1 — (8) is skipped at t = 0: it needs y_k^{−1}, which Algorithm 2, line 2 [L204] never
  initialises;
* A2 — ȳ⁰ = g(x̄⁰) (ȳ⁰ is not specified);
* A3 — the same batch feeds (7) and (8), as Algorithm 2, line 5 [L207] samples once, unless
  ``batch_independent = 1`` (what eq. (16) [L674–L675] assumes);
* A4 — x_k^{t−1} in (8) is the client's own (pre-averaging) iterate;
* A5 — β constant (Theorem 5.1's β^t = c_βη^t [L234] and Lemma F.5's β^{t+1} = c_βη^t [L890]
  coincide);
* A6 — G_T = (1/T)Σ_{t<T}‖∇Φ(x̄^t)‖² with the virtual average x̄^t (the proof of Theorem 5.1
  averages t = 0..T−1 [L982], Algorithm 2, line 12 [L214] draws a(T) from {1..T}).

Line numbers [Lnnn] are lines of the arXiv v1 text of arXiv:2311.12652.

ȳ^t needs iteration t's batch (8), so a FedDRO state after iteration t holds x^{t+1} and the
ȳ^t that iteration used: its ``track`` metric recorded at t + 1 is the tracking error of ȳ^t
(:data:`LAGGED`); :func:`history` runs one more iteration and aligns every metric on t.
"""

# ruff: noqa: E741  (I is the paper's number of local steps, Algorithm 1 [L167])

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np

from fedbounds.errors import BadInput
from fedbounds.problems.feddro import (
    PROBLEMS,
    CompositionalProblem,
    ScalarFamily,
    ScalarRows,
    make,
)

from ..algorithm import Algorithm, Counterexample, Method, Param, owned, simulate
from ..exact.feddro import CASES, VARIANTS, counterexample, literal_rounds, theorem_at
from ..executor import Trace, average, client_mean
from ..fitting import mean_ci

FEDDRO_PROBLEMS = tuple(p.name for p in PROBLEMS)
LAGGED = frozenset({"track"})  # metrics of ȳ^t, recorded after iteration t (at t + 1)


class FedAvgCOState(NamedTuple):
    """Algorithm 1: client iterates x_k and the y_k a round start uses in the literal Case I."""

    x: np.ndarray  # (R, K, d)
    y_local: np.ndarray  # (R, K, dg): g_k(x_k) before averaging (Alg. 1, lines 5, 2 [L171, L168])


class FedDROState(NamedTuple):
    """Algorithm 2 after iteration t: x^{t+1}, x^t (estimator (8)'s second point, A4) and ȳ^t."""

    x: np.ndarray  # (R, K, d)
    x_prev: np.ndarray  # (R, K, d)
    ybar: np.ndarray  # (R, dg)


def theorem_steps(problem: CompositionalProblem, T: int, b: int = 1, I: int = 1,
                  y_err0: float = 0.0) -> dict[str, float]:
    """η = √(|b|K/T), β = c_βη with c_β = 4B_g⁴L_f² (Theorem 5.1 [L234]), from the encoded
    theorem's derived quantities at the problem's constants (engine over feddro.thm5.1)."""
    values = {**problem.constants, "T": T, "b": b, "I": I, "y_err0": y_err0}
    return theorem_at("feddro.thm5.1", values).derived


def observers(problem: CompositionalProblem, *names: str) -> dict[str, Callable[[Any], np.ndarray]]:
    """Per-replica metrics of a state: ``grad_phi_sq`` ‖∇Φ(x̄)‖², ``dist_sq`` ‖x̄ − x*‖²,
    ``xbar`` (x̄'s first coordinate), ``Phi`` Φ(x̄), ``drift`` (1/K)Σ_k‖x_k − x̄‖² and, for
    Algorithm 2, ``track`` ‖ȳ^t − (1/K)Σ_k g_k(x_k^t)‖² (lagged, see :data:`LAGGED`)."""
    last: list[Any] = [None, None, None]  # (state, its x̄, ‖∇Φ(x̄)‖² on scalar families)
    if isinstance(problem, ScalarFamily):  # one compiled call, the same numbers
        scalar = tuple(np.atleast_1d(np.asarray(v, float)) for v in (problem._abar,
                                                                      problem._cbar)) + tuple(
            np.ascontiguousarray(np.atleast_2d(np.asarray(v, float))) for v in (problem.w,
                                                                                 problem.m))

    def xbar(st: Any) -> np.ndarray:
        if last[0] is not st:  # a new state (a step returns a new tuple, in place or not)
            if isinstance(problem, ScalarFamily):
                R = st.x.shape[0]
                mean, phi_sq = np.empty((R, 1)), np.empty(R)
                _scalar_grad_phi_sq(np.ascontiguousarray(st.x).reshape(R, problem.K), *scalar,
                                    problem._has_h, mean.reshape(R), phi_sq)
                last[:] = st, mean, phi_sq
            else:
                last[:] = st, client_mean(st.x), None
        return last[1]

    def grad_phi_sq(st: Any) -> np.ndarray:
        mean = xbar(st)
        if last[2] is not None:
            return last[2]
        return np.add.reduce(problem.grad_Phi(mean) ** 2, axis=-1)

    table: dict[str, Callable[[Any], np.ndarray]] = {
        "grad_phi_sq": grad_phi_sq,
        "dist_sq": lambda st: np.sum((xbar(st) - problem.x_star) ** 2, axis=-1),
        "xbar": lambda st: xbar(st)[:, 0],
        "Phi": lambda st: problem.Phi(xbar(st)),
        "drift": lambda st: np.sum((st.x - xbar(st)[:, None, :]) ** 2, axis=(1, 2)) / problem.K,
        "track": lambda st: np.add.reduce(
            (st.ybar - client_mean(problem.g_val(st.x_prev, None))) ** 2, axis=-1),
    }
    return {n: table[n] for n in names}


def momentum(problem: CompositionalProblem, eta: float, b: int = 1, corrected: bool = False
             ) -> dict[str, float]:
    """β = c_βη with c_β = 4B_g⁴L_f² (Lemma F.5 [L890]; ``corrected``: 4max(B_g², B_g⁴)L_f²),
    from the encoded lemma's derived quantities (engine over feddro.lemF.5)."""
    values = {**problem.constants, "eta": eta, "b": b, "grad_sq": 0.0, "drift": 0.0}
    return theorem_at("feddro.lemF.5" + (".corrected" if corrected else ""), values).derived


def _steps(problem: CompositionalProblem, config: Mapping[str, Any], tracking: bool
           ) -> tuple[float, float, dict[str, float]]:
    """η and β: given, or Theorem 5.1's η = √(|b|K/T) and β = c_βη ([L234]; β capped at 1, as
    β^t ∈ (0, 1) after eq. (8) [L226] requires: erratum beta-le-1)."""
    eta, beta, used = config["eta"], config.get("beta"), {}
    if eta is None:  # T: the horizon the schedule is for (a Param: build does not see --rounds)
        derived = theorem_steps(problem, config["T"], config["b"], config["I"])
        eta = derived["eta"]
    elif tracking and beta is None:
        derived = momentum(problem, eta, config["b"])
    if tracking and beta is None:
        beta, used = min(1.0, derived["beta"]), {"c_beta": derived["c_beta"]}
    if not eta > 0:
        raise BadInput("--set eta", f"eta must be > 0; got {eta!r}")
    if tracking and not 0 < beta <= 1:
        raise BadInput("--set beta", f"beta must be in (0, 1]; got {beta!r}")
    return float(eta), (float(beta) if tracking else 1.0), used


def _step_size(eta: float, decay: bool) -> Callable[[int], float]:
    return (lambda t: eta / math.sqrt(t + 1)) if decay else (lambda t: eta)


def _streams(problem: CompositionalProblem, b: int, independent: bool = False) -> dict:
    out = {"g": lambda rng, R: problem.sample_g(rng, R, b),
           "h": lambda rng, R: problem.sample_h(rng, R, b)}
    if independent:
        out["g_grad"] = lambda rng, R: problem.sample_g(rng, R, b)
    return out


def _cost(problem: CompositionalProblem, b: int) -> dict[str, float]:
    """The cost model of a FedDRO method (:func:`~fedbounds.verify.algorithm.check_run`): per
    replica, K clients each drawing b samples of dimension d, and the exact oracles over a
    client's data (``problem.data_size`` numbers) for the metrics."""
    K, d, data = problem.K, problem.d, getattr(problem, "data_size", 1)
    batch = K * b * d * 4.0
    return {"step_numbers": batch + K * data, "held_numbers": batch + K * data,
            "record_numbers": 2.0 * K * data}


def _local_step(problem: CompositionalProblem, x: np.ndarray, y_use: np.ndarray, zg: Any,
                xi: Any, e: float) -> np.ndarray:
    """x_k − η(∇h_k(x_k; ξ) + ∇g_k(x_k; ζ)∇f(y_k)) (Algorithm 1, line 5, eq. (6) [L171, L180];
    Algorithm 2, line 6, eq. (7) [L208, L220])."""
    return x - e * (problem.grad_h(x, xi) + np.einsum("rkde,rke->rkd", problem.g_jac(x, zg),
                                                      problem.grad_f(y_use)))


def build_fedavg_co(case: str) -> Callable[[CompositionalProblem, Mapping[str, Any]], Method]:
    """Algorithm 1 [L166–L176], Case I (only x shared) or II (x and y = g(x̄) shared every I)."""
    def build(problem: CompositionalProblem, config: Mapping[str, Any]) -> Method[FedAvgCOState]:
        eta, _, used = _steps(problem, config, tracking=False)
        I, b = config["I"], config["b"]
        literal = bool(config.get("literal", 0))
        lr = _step_size(eta, bool(config["decay_sqrt"]))
        K, dg = problem.K, problem.dg

        def init(replicas: int, seed: int = 0) -> FedAvgCOState:
            x = np.broadcast_to(problem.x0, (replicas, K, problem.d)).astype(float).copy()
            ybar = np.broadcast_to(problem.g(problem.x0), (replicas, dg)).astype(float)
            return FedAvgCOState(x, np.broadcast_to(ybar[:, None, :], (replicas, K, dg)).copy())

        def step(state: FedAvgCOState, draws: Mapping[str, Any], t: int
                 ) -> tuple[FedAvgCOState, np.ndarray]:
            x, y_local = state
            zeta = draws["g"]
            R = x.shape[0]
            if t % I == 0 and case == "II":  # round start: y = g(x̄) shared (App. D [L515–L524])
                y_use = np.broadcast_to(problem.g_val(x, zeta).mean(axis=1, keepdims=True),
                                        (R, K, dg))
            elif t % I == 0 and literal:  # round start: the carried y_k (Alg. 1 [L168, L171])
                y_use = y_local
            else:
                y_use = problem.g_val(x, zeta)
            x = _local_step(problem, x, y_use, zeta, draws["h"], lr(t))
            if literal:
                y_local = problem.g_val(x, zeta)  # before averaging (Alg. 1, line 5 [L171])
            averaged = (t + 1) % I == 0
            return (FedAvgCOState(average(x) if averaged else x, y_local),
                    np.full(R, float(averaged)))

        return Method(init, step, observers(problem, "grad_phi_sq", "dist_sq"),
                      streams=_streams(problem, b), constants=used, samples_per_step=3.0 * b,
                      config={"eta": eta, "T": config["T"], "I": I, "b": b,
                              "decay_sqrt": config["decay_sqrt"], "case": case,
                              "variant": "literal" if literal else "proof"},
                      **_cost(problem, b))
    return build


def build_feddro(problem: CompositionalProblem, config: Mapping[str, Any]) -> Method[FedDROState]:
    """Algorithm 2 [L202–L226]: estimator (8) of g averaged by the server every iteration,
    x averaged every I; β = 1 (``beta`` fixed by the caller) is Theorem 4.2's modified FedAvg."""
    eta, beta, used = _steps(problem, config, tracking=True)
    I, b = config["I"], config["b"]
    independent = bool(config["batch_independent"])
    lr = _step_size(eta, bool(config["decay_sqrt"]))
    K, dg = problem.K, problem.dg

    def init(replicas: int, seed: int = 0) -> FedDROState:
        x = np.broadcast_to(problem.x0, (replicas, K, problem.d)).astype(float).copy()
        ybar = np.broadcast_to(problem.g(problem.x0) + config["ybar0_offset"],
                               (replicas, dg)).astype(float).copy()  # A2
        return FedDROState(x, x.copy(), ybar)

    def step(state: FedDROState, draws: Mapping[str, Any], t: int
             ) -> tuple[FedDROState, np.ndarray]:
        x, x_prev, ybar = state
        zeta = draws["g"]
        R = x.shape[0]
        if t > 0:  # estimator (8), averaged by the server (Algorithm 2, line 6); A1
            yk = (1 - beta) * (ybar[:, None, :] - problem.g_val(x_prev, zeta)) \
                + problem.g_val(x, zeta)
            ybar = yk.mean(axis=1)
        y_use = np.broadcast_to(ybar[:, None, :], (R, K, dg))
        zg = draws["g_grad"] if independent else zeta
        nxt = _local_step(problem, x, y_use, zg, draws["h"], lr(t))
        averaged = (t + 1) % I == 0
        return FedDROState(average(nxt) if averaged else nxt, x, ybar), np.full(R, float(averaged))

    advance = _scalar_feddro_advance(problem, lr, 1 - beta, lambda t: (t + 1) % I == 0,
                                     independent) if isinstance(problem, ScalarFamily) else None
    return Method(init, step, observers(problem, "grad_phi_sq", "dist_sq", "track"),
                  streams=_streams(problem, b, independent), constants=used, advance=advance,
                  samples_per_step=4.0 * b,
                  config={"eta": eta, "beta": beta, "T": config["T"], "I": I, "b": b,
                          "decay_sqrt": config["decay_sqrt"],
                          "batch_independent": config["batch_independent"],
                          "ybar0_offset": config["ybar0_offset"]},
                  **_cost(problem, b))


def _scalar_feddro_advance(problem: ScalarFamily, lr: Callable[[int], Any], keep: Any,
                           averaged: Callable[[int], Any], independent: Any
                           ) -> Callable[..., tuple[FedDROState, Any]]:
    """The in-place form of :func:`build_feddro`'s ``step`` on a scalar family (d = d_g = 1): one
    compiled call (:func:`_feddro_rows`) doing the same operations in the same order (the same
    iterates, bit for bit). The new x is written into the buffer of x^{t−1}, which the step no
    longer needs. ``lr(t)``: η^t (a float, or per row (R, 1) for :class:`ScalarRows`);
    ``keep``: 1 − β (a float or (R, 1, 1)); ``averaged(t)``: whether iteration t ends with a
    model averaging (a bool, or a mask over rows); ``independent``: whether ∇g_k uses the
    independent batch ``g_grad`` (a bool, or a mask over rows). A stream's draw may have fewer
    rows than the state (runs stacked by :func:`run_feddro_many` share their draws): row r uses
    the draw's row r mod (its rows)."""
    K = problem.K

    def per_row(value: Any, R: int, width: int) -> np.ndarray:
        """``value`` (a scalar, a row of K, or one per row) as a C-contiguous (R, width)."""
        array = np.asarray(value, float)
        array = array.reshape(-1, width) if array.size % width == 0 and array.size >= width \
            else array.reshape(-1, 1)
        return np.ascontiguousarray(np.broadcast_to(array, (R, width)))

    def constants(R: int) -> dict[str, Any]:
        het_rows = problem._het_rows
        scaled = np.full(R, problem._scaled_het) if het_rows is None else het_rows.reshape(-1)
        alt = np.broadcast_to(np.asarray(independent, bool), (R,))
        return {"clients": np.stack([per_row(v, R, K) for v in (problem.a, problem.c, problem.w,
                                                                problem.m)]),
                "rows": np.stack([per_row(v, R, 1)[:, 0] for v in (
                    problem.s, keep, problem.het, problem.s_h, scaled, alt)]),
                "empty": np.zeros((1, 1)), "flags": (np.zeros(R), np.ones(R)),
                "every": np.ones(R, bool), "with_h": bool(problem._has_h)}

    def advance(state: FedDROState, draws: Mapping[str, Any], t: int, scratch: dict
                ) -> tuple[FedDROState, np.ndarray]:
        x, x_prev, ybar = state
        R = x.shape[0]
        if not scratch:
            scratch.update(constants(R))
        empty = scratch["empty"]
        zeta, xi, zeta_alt = draws["g"], draws.get("h"), draws.get("g_grad")
        rows = averaged(t)
        switches = (t > 0) | (zeta is not None) << 1 | (zeta_alt is not None) << 2 | (
            scratch["with_h"] or xi is not None) << 3 | (xi is not None) << 4 | (
            rows is not False) << 5
        if not x_prev.flags.c_contiguous:
            x_prev = np.empty_like(x)
        _feddro_rows(np.ascontiguousarray(x).reshape(R, K), x_prev.reshape(R, K),
                     ybar.reshape(R), switches,
                     zeta.data["z1"] if zeta is not None else empty,
                     zeta.data["z2"] if zeta is not None else empty,
                     zeta_alt.data["z1"] if zeta_alt is not None else empty,
                     xi.data["xi"] if xi is not None else empty,
                     scratch["clients"], scratch["rows"], np.asarray(lr(t), float).reshape(-1),
                     scratch["every"] if rows is True or rows is False else rows)
        if rows is True or rows is False:
            return FedDROState(x_prev, x, ybar), scratch["flags"][int(rows)]
        return FedDROState(x_prev, x, ybar), rows.astype(float)

    return advance


_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def _block_sum(v: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise summation of v[lo:lo + n] for n ≤ 128 (one block): sequential below 8
    numbers, else 8 accumulators combined as a tree, then the rest in order."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += v[i]
        return res
    r0, r1, r2, r3 = v[lo], v[lo + 1], v[lo + 2], v[lo + 3]
    r4, r5, r6, r7 = v[lo + 4], v[lo + 5], v[lo + 6], v[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += v[lo + i]
        r1 += v[lo + i + 1]
        r2 += v[lo + i + 2]
        r3 += v[lo + i + 3]
        r4 += v[lo + i + 4]
        r5 += v[lo + i + 5]
        r6 += v[lo + i + 6]
        r7 += v[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += v[lo + i]
        i += 1
    return res


@_jit
def _pairwise_sum(v: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise summation of v[lo:lo + n] (what ``np.add.reduce`` does along a
    contiguous axis: blocks of at most 128 numbers, :func:`_block_sum`, summed as the tree of
    halves rounded down to a multiple of 8), so a client sum here has numpy's rounding. The
    tree is walked with an explicit stack (numba's cache does not keep recursive functions)."""
    if n <= 128:
        return _block_sum(v, lo, n)
    los, ns = np.empty(64, np.int64), np.empty(64, np.int64)
    stage, left = np.zeros(64, np.int64), np.empty(64)
    top, value, have = 0, 0.0, False
    los[0], ns[0] = lo, n
    while True:
        if have:  # deliver ``value`` to the frame on top
            if top < 0:
                return value
            if stage[top] == 1:  # the left half is done: push the right half
                left[top] = value
                stage[top] = 2
                half = ns[top] // 2
                half -= half % 8
                top += 1
                los[top], ns[top], stage[top] = los[top - 1] + half, ns[top - 1] - half, 0
                have = False
            else:
                value = left[top] + value
                top -= 1
            continue
        if ns[top] <= 128:
            value = _block_sum(v, los[top], ns[top])
            top -= 1
            have = True
            continue
        half = ns[top] // 2
        half -= half % 8
        stage[top] = 1
        top += 1
        los[top], ns[top], stage[top] = los[top - 1], half, 0


@_jit
def _client_sum(v: np.ndarray, n: int) -> float:
    """numpy's sum of v[:n] (:func:`_pairwise_sum`; one block for n ≤ 128)."""
    return _block_sum(v, 0, n) if n <= 128 else _pairwise_sum(v, 0, n)


@_jit
def _feddro_rows(xs: np.ndarray, nxt: np.ndarray, ybar: np.ndarray, switches: int,
                 z1: np.ndarray, z2: np.ndarray, z_alt: np.ndarray, xi: np.ndarray,
                 clients: np.ndarray, rows: np.ndarray, lr: np.ndarray, mask: np.ndarray
                 ) -> None:
    """One FedDRO iteration on scalar rows (R, K), in the order of the numpy step: if t > 0,
    estimator (8), ȳ ← (1/K)Σ_k[(1 − β)(ȳ − g_k(x^{t−1}; ζ)) + g_k(x^t; ζ)] (into ``ybar``);
    x^{t+1} = x − η(∇h_k(x; ξ) + ∇g_k(ζ')∇f(ȳ)) into ``nxt`` (which holds x^{t−1} on entry),
    averaged over the clients on the rows of ``mask`` when the step averages.

    ``switches`` bits: 1 t > 0, 2 ζ drawn, 4 the independent ∇g batch drawn, 8 ∇h computed,
    16 ξ drawn, 32 the step averages. ``clients`` (4, R, K): a_k, c_k, w_k, m_k per row;
    ``rows`` (6, R): s, 1 − β, het, s_h, het applied (0/1), independent ∇g batch (0/1); ``lr``:
    η^t (one, or per row). Draws (z1, z2: ζ; z_alt: the independent ∇g batch; xi: ξ) have
    R' ≤ R rows, row r reading row r mod R'."""
    R, K = xs.shape
    track, noisy_g, has_alt = switches & 1 != 0, switches & 2 != 0, switches & 4 != 0
    with_h, noisy_h, average = switches & 8 != 0, switches & 16 != 0, switches & 32 != 0
    a, c, w, m = clients[0], clients[1], clients[2], clients[3]
    s, keep, het, s_h, scaled, alt = rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
    gp = np.empty(K)
    values = np.empty(K)
    for r in range(R):
        rz = r % z1.shape[0]
        if track:
            for k in range(K):
                x_old = nxt[r, k]
                g_old = a[r, k] * x_old
                g_old += c[r, k]
                if noisy_g:
                    tmp = z1[rz, k] * x_old
                    tmp += z2[rz, k]
                    tmp *= s[r]
                    g_old += tmp
                g_old = ybar[r] - g_old
                g_old *= keep[r]
                g_new = a[r, k] * xs[r, k]
                g_new += c[r, k]
                if noisy_g:
                    tmp = z1[rz, k] * xs[r, k]
                    tmp += z2[rz, k]
                    tmp *= s[r]
                    g_new += tmp
                gp[k] = g_old + g_new
            ybar[r] = _client_sum(gp, K) / K
        gf = ybar[r] * ybar[r]
        gf += 4
        gf = ybar[r] / np.sqrt(gf)
        use_alt = has_alt and alt[r] != 0
        ra = r % z_alt.shape[0]
        step_size = lr[r % lr.shape[0]]
        for k in range(K):
            if use_alt:
                jac = s[r] * z_alt[ra, k]
                jac += a[r, k]
            elif noisy_g:
                jac = s[r] * z1[rz, k]
                jac += a[r, k]
            else:
                jac = a[r, k]
            step = jac * gf
            if with_h:
                u = xs[r, k] - m[r, k]
                gh = w[r, k] * u
                gh /= np.sqrt(u * u + 1)
                if scaled[r] != 0:
                    for j in range(K):
                        uj = xs[r, k] - m[r, j]
                        vj = w[r, j] * uj
                        vj /= np.sqrt(uj * uj + 1)
                        values[j] = vj
                    mean = _client_sum(values, K) / K
                    gh = (gh - mean) * het[r] + mean
                if noisy_h:
                    gh += s_h[r] * xi[r % xi.shape[0], k]
                step += gh
            step *= step_size
            nxt[r, k] = xs[r, k] - step
        if average and mask[r]:
            for k in range(K):
                values[k] = nxt[r, k]
            mean = _client_sum(values, K) / K
            for k in range(K):
                nxt[r, k] = mean


@_jit
def _scalar_grad_phi_sq(xs: np.ndarray, abar: np.ndarray, cbar: np.ndarray, w: np.ndarray,
                        m: np.ndarray, with_h: bool, xbar: np.ndarray, out: np.ndarray) -> None:
    """x̄ = (1/K)Σ_k x_k (numpy's client mean) into ``xbar`` (R,) and ‖∇Φ(x̄)‖² into ``out``
    (R,), in the operations of :meth:`ScalarFamily.grad_Phi`: ā f'(āx̄ + c̄) (+ (1/K)Σ_j
    ∇h_j(x̄)), f'(u) = u/√(u² + 4); ``abar``, ``cbar`` one or per row, w, m (R or 1, K)."""
    R, K = xs.shape
    values = np.empty(K)
    for r in range(R):
        for k in range(K):
            values[k] = xs[r, k]
        xb = _client_sum(values, K) / K
        xbar[r] = xb
        ab, cb = abar[r % abar.shape[0]], cbar[r % cbar.shape[0]]
        u = ab * xb + cb
        g = ab * (u / np.sqrt(u * u + 4))
        if with_h:
            rw = r % w.shape[0]
            for j in range(K):
                uj = xb - m[rw, j]
                vj = w[rw, j] * uj
                vj /= np.sqrt(uj * uj + 1)
                values[j] = vj
            g = g + _client_sum(values, K) / K
        out[r] = g * g


def _modified_fedavg(problem: CompositionalProblem, config: Mapping[str, Any]) -> Method:
    return build_feddro(problem, {**config, "beta": 1.0})


_COMMON = {
    "eta": Param(None, "step size η > 0 (default √(|b|K/T), Theorem 5.1 [L234])", low=0,
                 low_open=True),
    "T": Param(100, "horizon T of the default η and β (default: the run's --rounds)", kind=int,
               low=1, high=10**15),
    "I": Param(1, "local steps between model averagings", kind=int, low=1, high=10**15),
    "b": Param(1, "batch size |b|", kind=int, low=1, high=10**6),
    "decay_sqrt": Param(0, "1: η^t = η/√(t+1)", kind=int, low=0, high=1)}
_TRACKING = {
    **_COMMON,
    "batch_independent": Param(0, "1: independent batches for (7) and (8) (A3: eq. (16))",
                               kind=int, low=0, high=1),
    "ybar0_offset": Param(0.0, "ȳ⁰ = g(x̄⁰) + offset (A2: ȳ⁰ is not specified)", low=-1e6,
                          high=1e6)}

FEDAVG_CO_CASE1 = Algorithm(
    "feddro-fedavg-co-case1", "feddro", "Algorithm 1 Case I: FedAvg for CO, only x shared "
    "(Algorithm 1); literal=1 for the pseudocode variant, 0 for the proof's (Appendix D)",
    build_fedavg_co("I"),
    {**_COMMON, "literal": Param(0, "1: y computed before averaging (Algorithm 1, line 5)",
                                 kind=int, low=0,
                                 high=1)}, FEDDRO_PROBLEMS, horizon="T")
FEDAVG_CO_CASE2 = Algorithm(
    "feddro-fedavg-co-case2", "feddro", "Algorithm 1 Case II: FedAvg for CO, x and y = g(x̄) "
    "shared every I steps", build_fedavg_co("II"), _COMMON, FEDDRO_PROBLEMS, horizon="T")
MODIFIED_FEDAVG = Algorithm(
    "feddro-modified-fedavg", "feddro", "Theorem 4.2: Algorithm 1 with ȳ shared every iteration "
    "(FedDRO, β = 1)", _modified_fedavg, _TRACKING, FEDDRO_PROBLEMS, horizon="T")
FEDDRO = Algorithm(
    "feddro", "feddro", "FedDRO (Algorithm 2): STORM estimator (8) of g, ȳ every iteration, x "
    "every I; metric track at round t is the error of the ȳ iteration t−1 used",
    build_feddro, {**_TRACKING, "beta": Param(
        None, "momentum β (default min(1, 4B_g⁴L_f²η), Theorem 5.1 [L234])", low=0, high=1,
        low_open=True)},
    FEDDRO_PROBLEMS, horizon="T")


# ---------------------------------------------------------------------------------------------
# runs aligned on the iteration index
# ---------------------------------------------------------------------------------------------
@dataclass
class History:
    """Per-replica metrics at t = 0..T, shape (T + 1, R), every one at iteration t."""

    metrics: dict[str, np.ndarray]
    diverged: str | None
    trace: Trace

    def G(self, T: int) -> np.ndarray:
        """G_T = (1/T)Σ_{t<T} ‖∇Φ(x̄^t)‖² per replica (A6)."""
        return self.metrics["grad_phi_sq"][:T].mean(axis=0)

    def mean(self, name: str) -> np.ndarray:
        return self.metrics[name].mean(axis=1)

    def orbit_mean(self, I: int, rounds: int) -> tuple[float, float]:
        """lim_T G_T of a deterministic run: the mean of ‖∇Φ(x̄^t)‖² (replica mean, t < T) over
        the last ``rounds`` rounds (whole periods of the round map) and its relative change
        against the ``rounds`` rounds before (0 once the periodic orbit is reached)."""
        g, n = self.mean("grad_phi_sq")[:-1], rounds * I
        last, prev = float(g[-n:].mean()), float(g[-2 * n:-n].mean())
        return last, abs(last - prev) / max(abs(last), 1e-300)


def run_feddro(problem: CompositionalProblem, iterations: int, replicas: int, seed: int,
               metrics: tuple[str, ...], **values: Any) -> History:
    """FedDRO (Algorithm 2) with ``values`` on ``problem``: :func:`history` of ``metrics``."""
    return history(FEDDRO.method(problem, values), iterations, replicas=replicas, seed=seed,
                   observe=observers(problem, *metrics))


def run_feddro_many(runs: Sequence[tuple[CompositionalProblem, int, Mapping[str, Any]]],
                    replicas: int, seed: int, metrics: tuple[str, ...]) -> list[History]:
    """:func:`run_feddro` of every (problem, iterations, values) of ``runs``, the same numbers:
    runs on scalar instances with the same K, batch size and noise structure (and the same
    stream draws, as every run starts from ``seed``) go as one vectorized run, one block of
    replica rows per run (each its own instance, η, β, I, ...; a shorter run is a prefix of
    the shared one). A shared run that diverged is done again one run at a time."""
    methods = [FEDDRO.method(problem, values) for problem, _, values in runs]
    groups: dict[Any, list[int]] = {}
    for i, (problem, _, _) in enumerate(runs):
        key = (problem.K, methods[i].config["b"], problem.s > 0, problem.s_h > 0,
               problem._has_h) if isinstance(problem, ScalarFamily) else ("alone", i)
        groups.setdefault(key, []).append(i)
    out: list[History | None] = [None] * len(runs)
    for members in groups.values():
        shared = _shared_histories([runs[i] for i in members], [methods[i] for i in members],
                                   replicas, seed, metrics) if len(members) > 1 else None
        for n, i in enumerate(members):
            problem, iterations, _ = runs[i]
            out[i] = shared[n] if shared is not None else history(
                methods[i], iterations, replicas=replicas, seed=seed,
                observe=observers(problem, *metrics))
    return out  # type: ignore[return-value]


def _shared_histories(runs: Sequence[tuple[Any, int, Mapping[str, Any]]],
                      methods: Sequence[Method], replicas: int, seed: int,
                      metrics: tuple[str, ...]) -> list[History] | None:
    """The histories of ``runs`` from one run of their instances stacked by rows
    (:class:`ScalarRows`), or None when that run diverged."""
    count = len(runs)
    rows = ScalarRows([problem for problem, _, _ in runs], replicas)

    def per_row(values: list[Any]) -> np.ndarray:
        return np.repeat(np.asarray(values, float), replicas)[:, None]

    configs = [m.config for m in methods]
    eta = per_row([c["eta"] for c in configs])
    decay = per_row([c["decay_sqrt"] for c in configs]).astype(bool)
    keep = 1 - per_row([c["beta"] for c in configs])[:, :, None]
    period = np.repeat([c["I"] for c in configs], replicas)
    independent = per_row([c["batch_independent"] for c in configs])[:, 0].astype(bool)

    def lr(t: int) -> np.ndarray:
        return np.where(decay, eta / math.sqrt(t + 1), eta) if decay.any() else eta

    common = int(period[0]) if np.all(period == period[0]) else None  # one I for every run

    def averaged(t: int) -> Any:
        return (t + 1) % common == 0 if common is not None else (t + 1) % period == 0

    streams: dict[str, Callable] = {}  # one draw of ``replicas`` rows, shared by every run
    for m in methods:
        for name, draw in m.streams.items():
            streams.setdefault(name, lambda rng, R, draw=draw: draw(rng, replicas))

    def init(total: int, seed: int = 0) -> FedDROState:
        parts = [m.init(replicas, seed) for m in methods]
        return FedDROState(*(np.concatenate(arrays) for arrays in zip(*parts, strict=True)))

    def step(state: FedDROState, draws: Mapping[str, Any], t: int) -> tuple[FedDROState, Any]:
        return advance(owned(state), draws, t, {})

    advance = _scalar_feddro_advance(rows, lr, keep, averaged, independent)
    method = Method(init, step, observers(rows, *metrics), streams=streams, advance=advance)
    longest = max(iterations for _, iterations, _ in runs)
    whole = history(method, longest, replicas=count * replicas, seed=seed)
    if whole.diverged:
        return None
    lag = any(k in LAGGED for k in metrics)
    out = []
    for n, (_, iterations, _) in enumerate(runs):
        cols = slice(n * replicas, (n + 1) * replicas)
        records = iterations + 1 + lag
        trace = Trace({k: v[:records, cols] for k, v in whole.trace.metrics.items()},
                      whole.trace.communications[:records, cols], whole.trace.iterations[:records],
                      FedDROState(*(a[cols] for a in whole.trace.state))
                      if iterations == longest else None, seconds=whole.trace.seconds)
        out.append(History({k: v[:iterations + 1, cols] for k, v in whole.metrics.items()},
                           None, trace))
    return out


def drift_threshold(problem: CompositionalProblem, T: int, b: int = 1) -> float:
    """I_th = 1 + T^{1/4}/(|b|K)^{3/4}: Corollary 1's local-step condition [L245], from the
    engine over feddro.cor1."""
    at = theorem_at("feddro.cor1", {**problem.constants, "T": T, "b": b, "I": 1, "y_err0": 0.0})
    return 1 + at.conditions["I - 1 <= T^(1/4)/(bK)^(3/4)"][0]


def history(method: Method, T: int, *, replicas: int = 1, seed: int = 0,
            observe: Mapping[str, Callable[[Any], np.ndarray]] | None = None) -> History:
    """Run ``method`` for T iterations (one more when a :data:`LAGGED` metric is observed: ȳ^T
    needs the next batch, as in Algorithm 2) and align every metric on the iteration index."""
    names = method.observe if observe is None else observe
    lag = any(k in LAGGED for k in names)
    trace = simulate(method, T + lag, replicas=replicas, seed=seed, observe=observe)
    metrics = {k: v[1:T + 2] if k in LAGGED else v[:T + 1] for k, v in trace.metrics.items()}
    return History(metrics, f"{trace.reason} at iteration {trace.diverged_at}"
                   if trace.diverged else None, trace)


def potential_descent(cfg: Mapping[str, Any], seed: int, grad_coef: float = 0.5
                      ) -> dict[str, Any]:
    """Lemma F.5 on a run of ``cfg`` (problem ``p1``/``p2`` and its parameters; ``T``, ``I``,
    replicas ``R``; ``c_beta`` printed or repaired: feddro.lemF.5 or .corrected; ȳ⁰ =
    ``ybar0`` or g(x̄⁰) + ``offset``): FedDRO with independent batches (the proof's premise,
    A3), η = ``eta_frac`` × the largest step Lemmas F.3/F.5 allow, β = c_βη; D_t = V^{t+1} −
    V^t − RHS_t per replica with V^t = Φ(x̄^t) + ‖ȳ^t − (1/K)Σg_k(x_k^t)‖² (21) [L884], and
    RHS_t the lemma's bound, its descent term scaled from the paper's 1/2 to ``grad_coef``.
    ``max_excess``: max_t D_t (one replica) or the largest Bonferroni-simultaneous 95% lower
    bound of E D_t."""
    problem = make(f"feddro-{cfg['problem']}", {k: v for k, v in cfg.items()
                                                if k in ("K", "A", "C", "s", "s_h", "gscale", "x0")})
    lemma = "feddro.lemF.5" + (".corrected" if cfg["c_beta"] == "repaired" else "")
    T, I, replicas, s = cfg["T"], cfg["I"], cfg["R"], cfg.get("s", 0.0)
    offset = cfg["ybar0"] - float(problem.g(problem.x0)[0]) if "ybar0" in cfg else \
        cfg.get("offset", 0.0)
    c = {**problem.constants, "b": 1, "I": I, "T": T, "grad_sq": 0.0, "drift": 0.0}

    def at(theorem_id: str, eta: float, **arrays: np.ndarray) -> Any:
        return theorem_at(theorem_id, {**c, "eta": eta, **arrays})

    steps = [rhs for theorem_id in (lemma, "feddro.lemF.3")
             for name, (rhs, _) in at(theorem_id, 1.0).conditions.items() if name != "beta <= 1"]
    eta = cfg["eta_frac"] * min(steps)
    lem = at(lemma, eta)
    conds = all(ok for thm in (lem, at("feddro.lemF.3", eta)) for _, ok in thm.conditions.values())
    beta = lem.derived["beta"]
    h = history(build_feddro(problem, {"eta": eta, "beta": min(beta, 1.0), "T": None, "I": I,
                                       "b": 1, "decay_sqrt": 0, "batch_independent": 1,
                                       "ybar0_offset": offset}),
                T, replicas=replicas, seed=seed,
                observe=observers(problem, "Phi", "track", "grad_phi_sq", "drift", "xbar"))
    if s > 0:  # σ_g bounds the value variance s²(1 + x²) on the visited set
        box = float(np.max(np.abs(h.mean("xbar")))) + math.sqrt(
            float(np.max(h.metrics["drift"])) * problem.K)
        c["sigma_g"] = s * math.sqrt(1 + (2 * box) ** 2)
    terms = at(lemma, eta, grad_sq=h.metrics["grad_phi_sq"][:-1],
               drift=h.metrics["drift"][:-1]).terms
    rhs = grad_coef / 0.5 * terms.pop("descent") + sum(terms.values())
    D = np.diff(h.metrics["Phi"] + h.metrics["track"], axis=0) - rhs  # (T, R)
    stat = float(np.max([mean_ci(D[t], 1 - 0.05 / T).lo for t in range(T)])) if replicas > 1 \
        else float(D.max())
    return {"config": dict(cfg), "B_g": c["B_g"], "c_beta": lem.derived["c_beta"], "eta": eta,
            "beta": beta,
            "L_Phi": lem.derived["L_Phi"], "step_bounds": steps, "conditions_met": conds,
            "sigma_g_used": c["sigma_g"], "max_excess": stat,
            "argmax_t": int(np.argmax(D.mean(axis=1))),
            "normalized_D": (D.mean(axis=1) / (float(np.max(np.abs(rhs.mean(axis=1)))) or 1.0)
                             ).tolist()}


# ---------------------------------------------------------------------------------------------
# Theorem 4.1's counterexample (`fedbounds counterexample feddro.thm4.1`)
# ---------------------------------------------------------------------------------------------
_CE_OPTIONS = {
    "decay": Param("none", "step decay: none (constant η) or sqrt (η^t = η/√(t+1))", kind=str,
                   choices=("none", "sqrt")),
    "variant": Param("proof", "Case I: proof (y_k = g_k(x̄), Appendix D [L465]) or literal "
                     "(Algorithm 1, line 5 [L171])", kind=str, choices=VARIANTS)}


def _run_counterexample(case: str, values: Mapping[str, Any], rounds: int,
                        **options: Any) -> dict[str, Any]:
    """Algorithm 1 on the Theorem 4.1 instance (exact round map; Appendix D [L432–L438])."""
    opts = {}
    for name, p in _CE_OPTIONS.items():
        given = options.get(name)
        try:
            opts[name] = p.check(name, p.default if given is None else given)
        except BadInput as e:
            raise BadInput(f"--{name}", e.message) from None
    return counterexample(case, int(values["I"]), float(values["eta"]), rounds, **opts)


def _counterexample_work(values: Mapping[str, Any], rounds: int) -> float:
    """Work of a call (≈ 1000 per scalar local step, numbers touched): the rounds, the
    fixed-point search on a grid (≈ 1e5 per local step) and, for the literal Case I, the
    iteration to its fixed point (:func:`~fedbounds.verify.exact.feddro.literal_rounds`)."""
    I = values["I"]
    return 1e3 * I * rounds + 1e5 * I + 1e3 * I * literal_rounds(I)


THM41_COUNTEREXAMPLE = Counterexample(
    "feddro.thm4.1", "FedAvg on the Theorem 4.1 instance", CASES,
    {"I": Param(None, "local steps per round", kind=int, low=1, high=10**6),
     "eta": Param(None, "step size η", low=0, low_open=True)},
    _run_counterexample, _CE_OPTIONS, work=_counterexample_work, steps_param="I")
