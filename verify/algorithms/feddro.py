"""FedDRO algorithms (Khanduri et al.): vanilla FedAvg for CO (Algorithm 1, Cases I and II), the
modified FedAvg of Theorem 4.2 and FedDRO (Algorithm 2, estimator (8)); plus the exact round map
of the Theorem 4.1 counterexample (:func:`counterexample`).

State arrays are shaped (replicas, clients, dim); every replica and client advances in one
vectorized step; randomness comes from generators spawned from one ``SeedSequence``
(:func:`verify.executor.generators`). Choices the paper leaves open (digest ``feddro.md`` §4.3
A1–A6) are parameters with the digest's defaults: (8) is skipped at t = 0 (A1), ȳ⁰ = g(x̄⁰) (A2),
the same batch feeds (7) and (8) unless ``batch_independent = 1`` (A3), x_k^{t−1} in (8) is the
client's own pre-averaging iterate (A4), β constant (A5), and G_T = (1/T)Σ_{t<T}‖∇Φ(x̄^t)‖² with
the virtual average x̄^t (A6).
"""

# ruff: noqa: E741  (I is the paper's number of local steps, L166)

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from fedbounds.problems.feddro import CompositionalProblem
from scipy import optimize

from fedbounds.errors import BadInput

from ..catalog import AlgorithmEntry
from ..executor import generators

# ---------------------------------------------------------------------------------------------
# Theorem 4.1: exact round map of Algorithm 1 on the counterexample (digest §5.1)
# ---------------------------------------------------------------------------------------------
_A = (4.0, -2.0)  # g_1 = 4x − 4, g_2 = −2x + 4 (L432–L438)
_C = (-4.0, 4.0)
C_ETA = {"I": 1 / 8, "II": 1 / 22}  # L481, L531
LOWER_BOUND = 1 / 17  # ‖∇Φ(x̄)‖² at x̄ = 1/2, a lower bound while x̄ ≥ 1/2


def _fp(u: Any) -> Any:
    """f'(y) = y/√(y² + 4) for f(y) = √(y² + 4); works on floats and arrays."""
    return u / (u * u + 4) ** 0.5


def _ce_round(xb: Any, etas: list[float], case: str, variant: str, y: tuple[Any, Any] | None
              ) -> tuple[Any, tuple[Any, Any]]:
    """One communication round (I = len(etas) local steps) from x̄; returns (x̄ next, y carry).

    Case II: the first step uses ȳ = g(x̄) = x̄ (L515–L524); Case I proof variant: y_k = g_k(x̄)
    (L465–L468); Case I literal (Algorithm 1, L168–L171): y_k carried from the pre-averaging
    iterate (ȳ⁰ at t = 0). All other steps use y_k = g_k(x_k)."""
    x1, x2 = xb, xb
    for j, e in enumerate(etas):
        if j == 0 and case == "II":
            y1 = y2 = xb
        elif j == 0 and variant == "literal":
            y1, y2 = y  # type: ignore[misc]
        else:
            y1, y2 = _A[0] * x1 + _C[0], _A[1] * x2 + _C[1]
        x1 = x1 - e * _A[0] * _fp(y1)
        x2 = x2 - e * _A[1] * _fp(y2)
    return (x1 + x2) / 2, (_A[0] * x1 + _C[0], _A[1] * x2 + _C[1])


def _grad_Phi_ce(x: float) -> float:
    return x / math.sqrt(x * x + 4)


def _grad_F_ce(x: float) -> float:
    """∇ of F(x) = (1/2)Σ_k f(g_k(x)) (the local objectives' average)."""
    return (_A[0] * _fp(_A[0] * x + _C[0]) + _A[1] * _fp(_A[1] * x + _C[1])) / 2


def fixed_point_eta0(case: str, I: int) -> float:
    """η → 0 limit of x̄ per round: Case I solves ∇F = 0 (any I), Case II ∇Φ + (I−1)∇F = 0
    (digest §5.1; I = 1 in Case II gives x* = 0)."""
    if case == "II" and I == 1:
        return 0.0
    fn = _grad_F_ce if case == "I" else (lambda x: _grad_Phi_ce(x) + (I - 1) * _grad_F_ce(x))
    return float(optimize.brentq(fn, 0.5, 2.0, xtol=1e-15, rtol=1e-15, maxiter=500))


def _fixed_point_map(case: str, I: int, eta: float, near: float) -> tuple[float | None, str]:
    """Attracting fixed point of the constant-η round map nearest to ``near``."""
    grid = np.linspace(-3.0, 10.0, 5201)
    R = lambda x: _ce_round(x, [eta] * I, case, "proof", None)[0]  # noqa: E731
    diff = R(grid) - grid
    roots = []
    for i in np.nonzero(np.sign(diff[:-1]) * np.sign(diff[1:]) <= 0)[0]:
        a, b = float(grid[i]), float(grid[i + 1])
        if diff[i] == 0:
            r = a
        elif diff[i + 1] == 0:
            continue
        else:
            r = float(optimize.brentq(lambda x: R(x) - x, a, b, xtol=1e-15, rtol=1e-15))
        h = 1e-6
        slope = (R(r + h) - R(r - h)) / (2 * h)
        if abs(slope) < 1:
            roots.append(r)
    if not roots:
        return None, "no attracting fixed point of the round map in [-3, 10]"
    return min(roots, key=lambda r: abs(r - near)), "root of R(x) = x (brentq), |R'| < 1"


def _validate_ce(case: str, I: int, eta: float, rounds: int, decay: str | None,
                 variant: str) -> None:
    if case not in ("I", "II"):
        raise BadInput("--case", f"{case!r}: must be I or II")
    if isinstance(I, bool) or int(I) != I or I < 1:
        raise BadInput("--set I", f"I={I!r} must be an integer >= 1")
    if not (isinstance(eta, (int, float)) and math.isfinite(eta) and eta > 0):
        raise BadInput("--set eta", f"eta={eta!r} must be a finite number > 0")
    if isinstance(rounds, bool) or int(rounds) != rounds or rounds < 1:
        raise BadInput("--rounds", f"rounds={rounds!r} must be an integer >= 1")
    if decay not in (None, "none", "sqrt"):
        raise BadInput("--decay", f"{decay!r}: allowed 'sqrt' (η^t = η/√(t+1)) or none")
    if variant not in ("proof", "literal"):
        raise BadInput("--variant", f"{variant!r}: allowed proof or literal")


def counterexample(case: str, I: int, eta: float, rounds: int = 50, decay: str | None = None,
                   variant: str = "proof", x0: float = 0.5) -> dict[str, Any]:
    """Algorithm 1 on the Theorem 4.1 instance (L432–L438): x̄ at each communication round.

    Returns the DESIGN ``counterexample`` shape {case, trajectory, final, fixed_point,
    grad_sq_final, lower_bound} plus fixed_point_eta0 (η → 0 limit), min_over_rounds, the
    step bound C_η of the case and whether η < C_η. ``decay='sqrt'`` uses η^t = η/√(t+1) per
    iteration t; then ``fixed_point`` is the η → 0 limit."""
    _validate_ce(case, I, eta, rounds, decay, variant)
    I, rounds = int(I), int(rounds)
    decay = None if decay == "none" else decay
    xb = float(x0)
    y: tuple[float, float] = (xb, xb)  # y_k⁰ = ȳ⁰ = g(x̄⁰) = x̄⁰ (literal variant, L168)
    traj = [xb]
    for r in range(rounds):
        its = range(r * I, (r + 1) * I)
        etas = [eta / math.sqrt(t + 1) if decay == "sqrt" else eta for t in its]
        xb, y = _ce_round(xb, etas, case, variant, y)
        traj.append(float(xb))
    fp0 = fixed_point_eta0(case, I)
    if decay == "sqrt":
        fp, how = fp0, "eta -> 0 limit (decaying steps)"
    elif variant == "literal" and case == "I":
        fp, how = _iterate_literal(xb, y, I, eta)
    else:
        fp, how = _fixed_point_map(case, I, eta, traj[-1])
    final = traj[-1]
    return {
        "case": case, "trajectory": traj, "final": final, "fixed_point": fp,
        "grad_sq_final": final**2 / (final**2 + 4), "lower_bound": LOWER_BOUND,
        "lower_bound_exact": "1/17", "fixed_point_eta0": fp0, "fixed_point_method": how,
        "min_over_rounds": min(traj), "x_star": 0.0, "I": I, "eta": eta, "decay": decay,
        "variant": variant, "rounds": rounds, "x0": float(x0), "C_eta": C_ETA[case],
        "eta_below_C_eta": bool(eta < C_ETA[case]),
        "grad_sq_fixed_point": None if fp is None else fp**2 / (fp**2 + 4),
        "distance_to_fixed_point": None if fp is None else abs(final - fp),
    }


def _iterate_literal(xb: float, y: tuple[float, float], I: int, eta: float,
                     max_rounds: int = 200_000) -> tuple[float | None, str]:
    for n in range(max_rounds):
        nxt, y = _ce_round(xb, [eta] * I, "I", "literal", y)
        if abs(nxt - xb) < 1e-15:
            return float(nxt), f"iterated the literal map to |Δ| < 1e-15 ({n} more rounds)"
        xb = nxt
    return float(xb), f"not converged after {max_rounds} more rounds (last iterate)"


# ---------------------------------------------------------------------------------------------
# General simulator over (replicas, clients, dim)
# ---------------------------------------------------------------------------------------------
@dataclass
class SimResult:
    """Per-replica summaries and replica-mean curves of one configuration."""

    algorithm: str
    config: dict[str, float | str]
    G: np.ndarray  # (R,) (1/T)Σ_{t<T} ‖∇Φ(x̄^t)‖²
    grad_curve: np.ndarray  # (T+1,) replica mean of ‖∇Φ(x̄^t)‖², t = 0..T
    dist_curve: np.ndarray  # (T+1,)
    track_curve: np.ndarray  # (T+1,) ‖ȳ^t − (1/K)Σ g_k(x_k^t)‖² (FedDRO), nan otherwise
    xbar_curve: np.ndarray  # (T+1, d) replica mean of x̄^t
    final_grad: np.ndarray  # (R,)
    final_dist: np.ndarray  # (R,)
    max_track: float
    communications: int
    communications_all: int
    samples_per_client: int
    diverged_at: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    track_tail: np.ndarray | None = None  # (R,) per-replica mean track over recorded t ≥ T/2


def _theorem_defaults(problem: CompositionalProblem, T: int, b: int) -> tuple[float, float]:
    """η = √(|b|K/T), β = min(1, 4B_g⁴L_f²η) (Theorem 5.1, L234; capped at 1, digest §9.19)."""
    c = problem.constants
    eta = math.sqrt(b * problem.K / T)
    return eta, min(1.0, 4 * c["B_g"] ** 4 * c["L_f"] ** 2 * eta)


def simulate(problem: CompositionalProblem, algorithm: str, T: int, replicas: int = 1,
             seed: int = 0, *, eta: float | None = None, beta: float | None = None, I: int = 1,
             b: int = 1, batch_independent: bool = False, ybar0_offset: float = 0.0,
             decay: str | None = None, case: str = "II", variant: str = "proof",
             record_every: int = 1, record_potential: bool = False) -> SimResult:
    """Run ``algorithm`` ∈ {feddro, modified-fedavg, fedavg-co} for T iterations.

    * feddro: Algorithm 2 (L202–L226) with estimator (8);
    * modified-fedavg: Theorem 4.2 (L192–L194), ȳ^t = (1/K)Σ ĝ_k(x_k^t) every iteration —
      FedDRO with β = 1;
    * fedavg-co: Algorithm 1 (L166–L176), ``case`` I or II, ``variant`` proof or literal.

    ``record_potential`` (FedDRO only) stores per-replica arrays of shape (T+1, R) in
    ``extra``: ``Phi`` = Φ(x̄^t), ``track`` = ‖ȳ^t − (1/K)Σg_k(x_k^t)‖², ``grad_sq`` =
    ‖∇Φ(x̄^t)‖² and ``drift`` = (1/K)Σ_k‖x_k^t − x̄^t‖² — the quantities of the potential
    V^t (21), L884, and of Lemma F.5."""
    if algorithm not in ("feddro", "modified-fedavg", "fedavg-co"):
        raise ValueError(f"unknown algorithm {algorithm!r}")
    if T < 1 or replicas < 1 or I < 1 or b < 1:
        raise ValueError("T, replicas, I and b must be >= 1")
    eta_d, beta_d = _theorem_defaults(problem, T, b)
    eta = eta_d if eta is None else float(eta)
    beta = 1.0 if algorithm == "modified-fedavg" else (beta_d if beta is None else float(beta))
    if not (eta > 0 and 0 < beta <= 1):
        raise ValueError(f"need eta > 0 and 0 < beta <= 1 (got eta={eta}, beta={beta})")
    R, K, d = replicas, problem.K, problem.d
    rng = generators(seed, ["g", "g_grad", "h"])
    x = np.broadcast_to(problem.x0, (R, K, d)).astype(float).copy()
    x_prev = x.copy()
    ybar = np.broadcast_to(problem.g(problem.x0) + ybar0_offset, (R, problem.dg)).astype(float).copy()
    y_loc = np.broadcast_to(ybar[:, None, :], (R, K, problem.dg)).copy()  # Algorithm 1's y_k
    G = np.zeros(R)
    grad_curve = np.empty(T + 1)
    dist_curve = np.full(T + 1, np.nan)  # dist, track, x̄ every ``record_every`` iterations
    track_curve = np.full(T + 1, np.nan)
    xbar_curve = np.full((T + 1, d), np.nan)
    dro = algorithm != "fedavg-co"
    tail: list[Any] = [np.zeros(R), 0]
    pot = {k: np.full((T + 1, R), np.nan) for k in ("Phi", "track", "grad_sq", "drift")} \
        if record_potential and algorithm != "fedavg-co" else None
    diverged_at = None
    x_star = problem.x_star

    def record(t: int) -> np.ndarray:
        xb = x.mean(axis=1)
        gs = np.sum(problem.grad_Phi(xb) ** 2, axis=-1)
        grad_curve[t] = gs.mean()
        if pot is not None:
            pot["Phi"][t] = problem.Phi(xb)
            pot["track"][t] = np.sum((ybar - problem.local_g(x)) ** 2, axis=-1)
            pot["grad_sq"][t] = gs
            pot["drift"][t] = np.sum((x - xb[:, None, :]) ** 2, axis=(1, 2)) / K
        if t % record_every == 0 or t == T:
            dist_curve[t] = np.sum((xb - x_star) ** 2, axis=-1).mean()
            xbar_curve[t] = xb.mean(axis=0)
            if dro:
                tr = np.sum((ybar - problem.local_g(x)) ** 2, axis=-1)
                track_curve[t] = tr.mean()
                if 2 * t >= T:
                    tail[0] += tr
                    tail[1] += 1
        return gs

    for t in range(T):
        e = eta / math.sqrt(t + 1) if decay == "sqrt" else eta
        zeta = problem.sample_g(rng["g"], R, b)
        if dro:
            if t > 0:  # estimator (8), averaged by the server (Algorithm 2 steps 2–3)
                yk = (1 - beta) * (ybar[:, None, :] - problem.g_val(x_prev, zeta)) \
                    + problem.g_val(x, zeta)
                ybar = yk.mean(axis=1)
            y_use = np.broadcast_to(ybar[:, None, :], (R, K, problem.dg))
        else:
            j = t % I
            if j == 0 and case == "II":
                y_use = np.broadcast_to(problem.g_val(x, zeta).mean(axis=1, keepdims=True),
                                        (R, K, problem.dg))
            elif j == 0 and variant == "literal":
                y_use = y_loc
            else:
                y_use = problem.g_val(x, zeta)
        gs = record(t)
        G += gs
        if not np.all(np.isfinite(gs)) or np.any(gs > 1e100):
            diverged_at = t
            break
        zg = problem.sample_g(rng["g_grad"], R, b) if batch_independent else zeta
        grad = problem.grad_h(x, problem.sample_h(rng["h"], R, b)) + np.einsum(
            "rkde,rke->rkd", problem.g_jac(x, zg), problem.grad_f(y_use))
        x_prev = x
        x = x - e * grad
        if not dro and variant == "literal":
            y_loc = problem.g_val(x, None if zeta is None else zeta)  # before averaging (L171)
        if (t + 1) % I == 0:
            x = np.broadcast_to(x.mean(axis=1, keepdims=True), x.shape).copy()
    if dro and diverged_at is None:  # ȳ^T by (8), so the last record compares like with like
        zeta = problem.sample_g(rng["g"], R, b)
        ybar = ((1 - beta) * (ybar[:, None, :] - problem.g_val(x_prev, zeta))
                + problem.g_val(x, zeta)).mean(axis=1)
    record(T)
    G = G / T
    xb = x.mean(axis=1)
    comm = T // I
    cfg: dict[str, float | str] = {"eta": eta, "I": I, "b": b, "T": T, "replicas": R, "seed": seed}
    if dro:
        cfg |= {"beta": beta, "batch": "independent" if batch_independent else "shared",
                "ybar0": "g(x0)" + (f" + {ybar0_offset}" if ybar0_offset else "")}
    else:
        cfg |= {"case": case, "variant": variant}
    if decay:
        cfg["decay"] = decay
    return SimResult(
        algorithm, cfg, G, grad_curve, dist_curve, track_curve, xbar_curve,
        np.sum(problem.grad_Phi(xb) ** 2, axis=-1), np.sum((xb - x_star) ** 2, axis=-1),
        float(np.nanmax(track_curve)) if dro else math.nan, comm, T if dro else comm,
        (4 if dro else 3) * b * T, diverged_at,
        track_tail=tail[0] / tail[1] if dro and tail[1] else None,
        extra={"potential": pot} if pot is not None else {})


def runs_json(problem: CompositionalProblem, res: SimResult, max_points: int = 2001) -> dict:
    """DESIGN "Runs" fields: constants, config, metrics (per recorded iteration), summary."""
    rec = np.nonzero(np.isfinite(res.dist_curve))[0]
    idx = rec[np.unique(np.linspace(0, rec.size - 1, min(max_points, rec.size)).round().astype(int))]
    metrics = {"iteration": idx.tolist(), "grad_phi_sq": res.grad_curve[idx].tolist(),
               "dist_sq": res.dist_curve[idx].tolist()}
    if np.isfinite(res.track_curve).any():
        metrics["track"] = res.track_curve[idx].tolist()
    summary: dict[str, Any] = {
        "avg_grad_phi_sq": float(res.G.mean()), "final_grad_phi_sq": float(res.final_grad.mean()),
        "final_dist_sq": float(res.final_dist.mean()), "communications": res.communications,
        "communications_all_rounds": res.communications_all,
        "samples_per_client": res.samples_per_client}
    if np.isfinite(res.max_track):
        summary["max_track"] = res.max_track
    if res.diverged_at is not None:
        summary["diverged_at"] = res.diverged_at
    consts = {k: float(v) for k, v in problem.constants.items()}
    return {"constants": consts, "config": res.config, "metrics": metrics, "summary": summary}


def _int(config: dict[str, float], key: str, default: int) -> int:
    v = config.get(key, default)
    if float(v) != int(v) or int(v) < 1:
        raise ValueError(f"{key}={v} must be an integer >= 1")
    return int(v)


def _runner(algorithm: str, case: str = "II", variant: str = "proof"):
    def run(problem: CompositionalProblem, config: dict[str, float], rounds: int, seeds: int,
            seed: int) -> dict:
        if not isinstance(problem, CompositionalProblem):
            raise ValueError(f"{algorithm} needs a feddro compositional problem")
        cfg = dict(config)
        var = variant
        if "literal" in cfg:
            var = "literal" if cfg.pop("literal") else "proof"
        res = simulate(problem, algorithm, int(rounds), int(seeds), int(seed),
                       eta=cfg.get("eta"), beta=cfg.get("beta"), I=_int(cfg, "I", 1),
                       b=_int(cfg, "b", 1), batch_independent=bool(cfg.get("batch_independent", 0)),
                       ybar0_offset=float(cfg.get("ybar0_offset", 0.0)),
                       decay="sqrt" if cfg.get("decay_sqrt", 0) else None, case=case, variant=var,
                       record_every=max(1, int(rounds) // 2000))
        return runs_json(problem, res)
    return run


_COMMON = {"eta": (None, "step size η (default √(|b|K/T), Theorem 5.1)"),
           "I": (1.0, "local steps between model averagings"),
           "b": (1.0, "batch size |b|"),
           "decay_sqrt": (0.0, "1: η^t = η/√(t+1)")}
_DRO = {**_COMMON, "beta": (None, "momentum β (default min(1, 4B_g⁴L_f²η))"),
        "batch_independent": (0.0, "1: independent batches for (7) and (8) (digest A3)"),
        "ybar0_offset": (0.0, "ȳ⁰ = g(x̄⁰) + offset (digest A2)")}
_PROBLEMS = ("feddro-counterexample", "feddro-p1", "feddro-p2", "feddro-kl-dro", "feddro-chi2-dro")

ALGORITHMS = [
    AlgorithmEntry("feddro-fedavg-co-case1", "feddro",
                   "Algorithm 1 Case I: FedAvg for CO, only x shared (L166-L176); "
                   "literal=1 for the pseudocode variant, 0 for the proof's (L465)",
                   _runner("fedavg-co", "I", "proof"),
                   {**_COMMON, "literal": (0.0, "1: y computed before averaging (L171)")},
                   _PROBLEMS),
    AlgorithmEntry("feddro-fedavg-co-case2", "feddro",
                   "Algorithm 1 Case II: FedAvg for CO, x and y = g(x̄) shared every I steps",
                   _runner("fedavg-co", "II"), _COMMON, _PROBLEMS),
    AlgorithmEntry("feddro-modified-fedavg", "feddro",
                   "Theorem 4.2: Algorithm 1 with ȳ shared every iteration (FedDRO, β = 1)",
                   _runner("modified-fedavg"), {k: v for k, v in _DRO.items() if k != "beta"},
                   _PROBLEMS),
    AlgorithmEntry("feddro", "feddro",
                   "FedDRO (Algorithm 2): STORM estimator (8) of g, ȳ every iteration, x every I",
                   _runner("feddro"), _DRO, _PROBLEMS),
]
