"""FedDRO exact computations (Khanduri et al., arXiv:2311.12652): the Theorem 4.1
counterexample's round map and fixed points (Appendix D; the fixed points are derived here), the
true smoothness of an instance (Lemma 3.1), the
steady state of Lemma F.4's recursion, and the encoded FedDRO theorems evaluated at numbers
(the engine over :mod:`fedbounds.theorems.feddro`). [Lnnn] is a line of the arXiv v1 text.
"""

# ruff: noqa: E741  (I is the paper's number of local steps, Algorithm 1 [L167])

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any, NamedTuple

import numba
import numpy as np
import sympy as sp

from fedbounds import engine
from fedbounds.complexity import apply_schedule
from fedbounds.errors import BadInput
from fedbounds.model import Theorem
from fedbounds.problems.feddro import CE_OFFSETS, CE_SLOPES, DRO, ScalarFamily, make
from fedbounds.theorems import feddro_appendix
from fedbounds.theorems.feddro import COUNTEREXAMPLE, THEOREMS

# ---------------------------------------------------------------------------------------------
# Theorem 4.1: exact round map of Algorithm 1 on the counterexample (Appendix D [L432–L438])
# ---------------------------------------------------------------------------------------------
SLOPES = tuple(float(a) for a in CE_SLOPES)  # g_1 = 4x − 4, g_2 = −2x + 4
OFFSETS = tuple(float(c) for c in CE_OFFSETS)
C_ETA = {case: float(v) for case, v in COUNTEREXAMPLE.C_eta.items()}  # App. D [L481], [L531]
LOWER_BOUND = float(COUNTEREXAMPLE.lower_bound_grad_sq)  # 1/17: ‖∇Φ(x̄)‖² at x̄ = 1/2
X0 = float(COUNTEREXAMPLE.x0)
CASES = ("I", "II")
VARIANTS = ("proof", "literal")


def f_prime(u: Any) -> Any:
    """f'(y) = y/√(y² + 4) for f(y) = √(y² + 4) (Appendix D [L436]); floats and arrays."""
    return u / (u * u + 4) ** 0.5


def round_map(xb: Any, etas: list[float], case: str, variant: str, y: tuple[Any, Any] | None
              ) -> tuple[Any, tuple[Any, Any]]:
    """One communication round (I = len(etas) local steps) from x̄; returns (x̄ next, y carry).

    Case II: the first step uses ȳ = g(x̄) = x̄ (Appendix D, Case II, Steps 1–2 [L515–L524]);
    Case I proof variant: y_k = g_k(x̄) (Appendix D, Case I, Step 1 [L465–L468]); Case I literal
    (Algorithm 1, lines 2–5 [L168–L171]): y_k carried from the pre-averaging iterate (ȳ⁰ at
    t = 0). All other steps use y_k = g_k(x_k)."""
    (a1, a2), (c1, c2) = SLOPES, OFFSETS
    x1, x2 = xb, xb
    for j, e in enumerate(etas):
        if j == 0 and case == "II":
            y1 = y2 = xb
        elif j == 0 and variant == "literal":
            y1, y2 = y  # type: ignore[misc]
        else:
            y1, y2 = a1 * x1 + c1, a2 * x2 + c2
        x1 = x1 - e * a1 * f_prime(y1)
        x2 = x2 - e * a2 * f_prime(y2)
    return (x1 + x2) / 2, (a1 * x1 + c1, a2 * x2 + c2)


def grad_Phi(x: float) -> float:
    """Φ'(x) for Φ(x) = √(x² + 4) (eq. (10) [L438])."""
    return x / math.sqrt(x * x + 4)


def grad_F(x: float) -> float:
    """∇ of F(x) = (1/2)Σ_k f(g_k(x)) (the local objectives' average)."""
    (a1, a2), (c1, c2) = SLOPES, OFFSETS
    return (a1 * f_prime(a1 * x + c1) + a2 * f_prime(a2 * x + c2)) / 2


def fixed_point_eta0(case: str, I: int) -> float:
    """η → 0 limit of x̄ per round: Case I solves ∇F = 0 (any I), Case II ∇Φ + (I−1)∇F = 0
    [derived: the η → 0 limit of the round map; I = 1 in Case II gives x* = 0]."""
    if case == "II" and I == 1:
        return 0.0
    fn = grad_F if case == "I" else (lambda x: grad_Phi(x) + (I - 1) * grad_F(x))
    from scipy import optimize  # on first use: ~0.4 s of every CLI start
    return float(optimize.brentq(fn, 0.5, 2.0, xtol=1e-15, rtol=1e-15, maxiter=500))


def fixed_point_map(case: str, I: int, eta: float, near: float) -> tuple[float | None, str]:
    """Attracting fixed point of the constant-η round map nearest to ``near``."""
    from scipy import optimize  # on first use: ~0.4 s of every CLI start

    grid = np.linspace(-3.0, 10.0, 5201)

    def R(x: Any) -> Any:
        return round_map(x, [eta] * I, case, "proof", None)[0]

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
        if abs((R(r + h) - R(r - h)) / (2 * h)) < 1:
            roots.append(r)
    if not roots:
        return None, "no attracting fixed point of the round map in [-3, 10]"
    return min(roots, key=lambda r: abs(r - near)), "root of R(x) = x (brentq), |R'| < 1"


def literal_rounds(I: int, max_rounds: int = 200_000) -> int:
    """Rounds :func:`iterate_literal` may take: ``max_rounds``, fewer for large I (at most
    max(1000, 4e6/I) rounds, so at most about 4e6 local steps)."""
    return min(max_rounds, max(1000, 4_000_000 // max(int(I), 1)))


def iterate_literal(xb: float, y: tuple[float, float], I: int, eta: float,
                    max_rounds: int = 200_000) -> tuple[float | None, str]:
    """Fixed point of the literal Case I map (its state carries y), by iteration."""
    rounds = literal_rounds(I, max_rounds)
    for n in range(rounds):
        nxt, y = round_map(xb, [eta] * I, "I", "literal", y)
        if not math.isfinite(nxt):
            return None, f"the literal map left the doubles after {n} more rounds"
        if abs(nxt - xb) < 1e-15:
            return float(nxt), f"iterated the literal map to |Δ| < 1e-15 ({n} more rounds)"
        xb = nxt
    return float(xb), f"not converged after {rounds} more rounds (last iterate)"


BLOWUP = 1e100  # |x̄| above this (or not finite) ends a trajectory as diverged


class Trajectory(NamedTuple):
    """x̄ per round up to the last finite one, the last y carry, and where and why the run
    diverged (None if it did not)."""

    xbar: list[float]
    y: tuple[float, float]
    diverged_at: int | None
    reason: str | None


def run_rounds(case: str, I: int, eta: float, rounds: int, *, decay: str | None = None,
               variant: str = "proof", x0: float = X0) -> Trajectory:
    """x̄ at each communication round of Algorithm 1 on the instance, stopping at the first
    round where x̄ is not finite or exceeds :data:`BLOWUP` (diverged). One compiled call
    (:func:`_rounds`: :func:`_round`'s operations in its order, the same numbers)."""
    xb = float(x0)
    traj = np.empty(int(rounds) + 1)
    (a1, a2), (c1, c2) = SLOPES, OFFSETS
    done, status, y1, y2 = _rounds(xb, xb, xb, int(I), float(eta), int(rounds),
                                   decay == "sqrt", case == "II", variant == "literal",
                                   a1, a2, c1, c2, BLOWUP, 0.5, traj)
    xbar = traj[:done + 1].tolist()
    if status == 0:
        return Trajectory(xbar, (y1, y2), None, None)
    reason = "x̄ is not finite" if status == 1 else f"|x̄| exceeds {BLOWUP:g}"
    return Trajectory(xbar, (y1, y2), done + 1, reason)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _rounds(xb: float, y1: float, y2: float, I: int, eta: float, rounds: int, decay: bool,
            case_two: bool, literal: bool, a1: float, a2: float, c1: float, c2: float,
            blowup: float, half: float, traj: np.ndarray) -> tuple[int, int, float, float]:
    """``rounds`` rounds of :func:`_round` from x̄ = ``xb`` with the y carry (y1, y2), η^t =
    η/√(t + 1) with ``decay``; x̄ of every round into ``traj`` (x̄⁰ first). Returns (rounds
    done, 0 or the reason of the stop: 1 x̄ not finite, 2 |x̄| > ``blowup``, the y carry).
    ``half`` = 0.5 is an argument so that (·)^half is libm's pow, as Python's ``** 0.5`` is (a
    constant exponent may become a square root, which can round differently)."""
    traj[0] = xb
    for r in range(rounds):
        x1 = xb
        x2 = xb
        for j in range(I):
            e = eta / math.sqrt(r * I + j + 1) if decay else eta
            if j == 0 and case_two:
                u1 = xb
                u2 = xb
            elif j == 0 and literal:
                u1 = y1
                u2 = y2
            else:
                u1 = a1 * x1 + c1
                u2 = a2 * x2 + c2
            x1 = x1 - e * a1 * (u1 / math.pow(u1 * u1 + 4, half))
            x2 = x2 - e * a2 * (u2 / math.pow(u2 * u2 + 4, half))
        nxt = (x1 + x2) / 2
        if not math.isfinite(nxt):
            return r, 1, y1, y2
        if abs(nxt) > blowup:
            return r, 2, y1, y2
        xb = nxt
        y1 = a1 * x1 + c1
        y2 = a2 * x2 + c2
        traj[r + 1] = xb
    return rounds, 0, y1, y2


def _round(xb: float, etas: list[float], case: str, variant: str, y: tuple[float, float]
           ) -> tuple[float, tuple[float, float]]:
    """:func:`round_map` on floats, written out: the same operations in the same order (the
    same numbers) without its function calls, for the long runs of :func:`run_rounds`."""
    (a1, a2), (c1, c2) = SLOPES, OFFSETS
    x1 = x2 = xb
    first = True
    for e in etas:
        if first and case == "II":
            y1 = y2 = xb
        elif first and variant == "literal":
            y1, y2 = y
        else:
            y1, y2 = a1 * x1 + c1, a2 * x2 + c2
        first = False
        x1 = x1 - e * a1 * (y1 / (y1 * y1 + 4) ** 0.5)
        x2 = x2 - e * a2 * (y2 / (y2 * y2 + 4) ** 0.5)
    return (x1 + x2) / 2, (a1 * x1 + c1, a2 * x2 + c2)


def trajectory(case: str, I: int, eta: float, rounds: int, *, decay: str | None = None,
               variant: str = "proof", x0: float = X0) -> tuple[list[float], tuple[float, float]]:
    """x̄ at each communication round of Algorithm 1 on the instance, and the last y carry.
    ``decay='sqrt'``: η^t = η/√(t+1) per iteration t. A diverging run ends at its last finite
    round (:func:`run_rounds` says where and why)."""
    run = run_rounds(case, I, eta, rounds, decay=decay, variant=variant, x0=x0)
    return run.xbar, run.y


def counterexample(case: str, I: int, eta: float, rounds: int = 50, decay: str | None = None,
                   variant: str = "proof", x0: float = X0) -> dict[str, Any]:
    """Algorithm 1 on the Theorem 4.1 instance (Appendix D [L432–L438]): x̄ at each round.

    Returns the DESIGN ``counterexample`` shape {case, trajectory, final, fixed_point,
    grad_sq_final, lower_bound} plus fixed_point_eta0 (η → 0 limit), min_over_rounds, the
    step bound C_η of the case and whether η < C_η, and ``diverged``/``diverged_at``/``reason``
    (a diverged run's trajectory ends at its last finite round, and no fixed point is
    computed). With ``decay='sqrt'`` ``fixed_point`` is the η → 0 limit."""
    if case not in CASES:
        raise BadInput("--case", f"{case!r}: allowed {' or '.join(CASES)}")
    if isinstance(rounds, bool) or int(rounds) != rounds or rounds < 1:
        raise BadInput("--rounds", f"rounds={rounds!r} must be an integer >= 1")
    if not (math.isfinite(eta) and eta > 0):
        raise BadInput("--set eta", f"eta={eta!r} must be a finite number > 0")
    decay = None if decay == "none" else decay
    run = run_rounds(case, I, eta, int(rounds), decay=decay, variant=variant, x0=x0)
    traj, y = run.xbar, run.y
    fp0 = fixed_point_eta0(case, I)
    if run.reason is not None:
        fp, how = None, "not computed: the run diverged"
    elif decay == "sqrt":
        fp, how = fp0, "eta -> 0 limit (decaying steps)"
    elif variant == "literal" and case == "I":
        fp, how = iterate_literal(traj[-1], y, I, eta)
    else:
        fp, how = fixed_point_map(case, I, eta, traj[-1])
    final = traj[-1]
    return {
        "case": case, "trajectory": traj, "final": final, "fixed_point": fp,
        "grad_sq_final": final**2 / (final**2 + 4), "lower_bound": LOWER_BOUND,  # |x̄| ≤ 1e100
        "lower_bound_exact": "1/17", "fixed_point_eta0": fp0, "fixed_point_method": how,
        "min_over_rounds": min(traj), "x_star": 0.0, "I": I, "eta": eta, "decay": decay,
        "variant": variant, "rounds": int(rounds), "x0": float(x0), "C_eta": C_ETA[case],
        "eta_below_C_eta": bool(eta < C_ETA[case]),
        "grad_sq_fixed_point": None if fp is None else fp**2 / (fp**2 + 4),
        "distance_to_fixed_point": None if fp is None else abs(final - fp),
        "diverged": run.reason is not None, "diverged_at": run.diverged_at, "reason": run.reason,
        "final_round": len(traj) - 1,
    }


# Reference table, computed independently of this module (I = 2, x̄⁰ = 0.5, exact round maps
# in mpmath with 30 digits; not numbers of the paper):
# (case, η) → ((x̄¹, x̄², x̄³), fixed point), and the η → 0 limits per (case, I)
CE_TABLE = {
    ("II", 0.01): ((0.520164197011407, 0.539921023081538, 0.559261718186647), 1.07045122681),
    ("II", 0.04): ((0.582087142912588, 0.657754775779623, 0.726494614852483), 1.11742089652),
    ("II", 0.999 / 22): ((0.593464282624493, 0.678681909882542, 0.754924658761360), 1.12614613783),
    ("I", 0.01): ((0.544479088643556, 0.587418451060444, 0.628683382707421), 1.17372814717),
    ("I", 0.04): ((0.671611751637411, 0.813543795440018, 0.922192023904356), 1.19133240330),
    ("I", 0.999 / 8): ((0.949615897850279, 1.14718702404166, 1.22559901457830), 1.27244556362),
}
ETA0_LIMITS = {("I", 1): 1.16866733425053, ("I", 2): 1.16866733425053,
               ("II", 2): 1.05534124344369, ("II", 3): 1.10825396496442,
               ("II", 4): 1.12739351540154, ("II", 8): 1.15043532697376,
               ("II", 16): 1.16004909569839}


def nonconvergence_runs(case: str, variants: list[str], I_values: list[int], etas: list[float],
                        iters_per_eta: int, conv_tol: float, plot_rounds: int
                        ) -> tuple[list[dict[str, Any]], dict[str, tuple[list, list]], float]:
    """Algorithm 1 on the instance for every (variant, I, η), ≥ ``iters_per_eta``/η iterations:
    per-run summaries, x̄ series, and the largest deviation from :data:`CE_TABLE`."""
    runs, series, table_err = [], {}, 0.0
    for variant in variants:
        for I in I_values:
            for eta in etas:
                rounds = max(50, int(math.ceil(iters_per_eta / eta / I)))
                d = counterexample(case, I, eta, rounds=rounds, variant=variant)
                ref = CE_TABLE.get((case, eta)) if (I == 2 and variant == "proof") else None
                if ref is not None:
                    table_err = max(table_err, max(abs(a - b) for a, b in
                                                   zip(d["trajectory"][1:4], ref[0], strict=True)),
                                    abs(d["fixed_point"] - ref[1]))
                runs.append({"variant": variant, "I": I, "eta": eta, "rounds": rounds,
                             "min_over_rounds": d["min_over_rounds"], "final": d["final"],
                             "fixed_point": d["fixed_point"],
                             "fixed_point_eta0": d["fixed_point_eta0"],
                             "min_grad_sq": min(x * x / (x * x + 4) for x in d["trajectory"]),
                             "converged": abs(d["final"] - d["fixed_point"]) < conv_tol,
                             # literal Case I with I = 1: the first step uses ȳ⁰ = g(x̄⁰), an
                             # exact gradient step, so x̄¹ = 0.5 − 0.2425η < 0.5; the theorem
                             # needs I > 1 (Theorem 4.1 [L188]), so the 0.5 bound is not
                             # checked there
                             "bound_checked": not (variant == "literal" and I == 1)})
                traj = d["trajectory"][:plot_rounds]
                series[f"{variant} I={I} η={eta:.4g}"] = (list(range(len(traj))), traj)
    return runs, series, table_err


def generalisation(I_values: list[int], eta: float, decay_eta: float, decay_rounds: int,
                   starts: list[float]) -> tuple[dict[str, float], list[dict[str, Any]],
                                                 dict[str, float], dict[str, tuple[list, list]]]:
    """Errors of the η → 0 limits against :data:`ETA0_LIMITS` (every I, both cases), of the
    decaying-step runs (η^t = decay_eta/√(t+1)) against the limits, and of runs from other
    starts against the fixed point (our generalisation of Appendix D)."""
    errs, rows, series = {}, [], {}
    for I in I_values:
        for case in CASES:
            lim = fixed_point_eta0(case, I)
            ref = ETA0_LIMITS.get((case, I), 0.0 if (case, I) == ("II", 1) else None)
            d = counterexample(case, I, eta, rounds=int(400 / eta / I))
            rows.append({"case": case, "I": I, "eta0_limit": lim, "reference": ref,
                         "fixed_point_eta": d["fixed_point"], "final": d["final"],
                         "min_over_rounds": d["min_over_rounds"]})
            if ref is not None:
                errs[f"eta0 limit {case} I={I}"] = abs(lim - ref)
    by = {(r["case"], r["I"]): r for r in rows}
    if ("II", 1) in by:
        errs["Case II I=1 final |x̄|"] = abs(by[("II", 1)]["final"])
    if ("I", 1) in by:  # Case I must NOT converge to 0 even with I = 1
        errs["Case I I=1 stays >= 0.5 (0 if so)"] = max(0.0, 0.5 - by[("I", 1)]["min_over_rounds"])
    for case in CASES:
        d = counterexample(case, 2, decay_eta, rounds=decay_rounds, decay="sqrt")
        errs[f"decay {case}: |final − η→0 limit|"] = abs(d["final"] - d["fixed_point_eta0"])
        tr = d["trajectory"]
        k = np.unique(np.geomspace(1, len(tr) - 1, 200).astype(int))
        series[f"Case {case}, η^t = {decay_eta}/√(t+1)"] = (k.tolist(), [tr[i] for i in k])
    finals, rounds = {}, int(400 / eta / 2)
    fixed = {case: by[(case, 2)]["fixed_point_eta"] if (case, 2) in by  # the same run
             else counterexample(case, 2, eta, rounds=rounds)["fixed_point"] for case in CASES}
    for x0 in starts:
        for case in CASES:
            finals[f"{case} from {x0}"] = trajectory(case, 2, eta, rounds, x0=x0)[0][-1]
            errs[f"start {x0} case {case}"] = abs(finals[f"{case} from {x0}"] - fixed[case])
    return errs, rows, finals, series


# ---------------------------------------------------------------------------------------------
# Lemma 3.1: the true smoothness max|∇²Φ| of an instance [L146–L148]
# ---------------------------------------------------------------------------------------------
def scalar_smoothness(prob: ScalarFamily) -> dict[str, Any]:
    """max_x |Φ''(x)| of a scalar family: sympy Φ'' (exact rationals for a, c, w, m), the
    maximum over a grid of [−60, 60] refined by a bounded scalar search, and — without h — the
    closed form ā²/2 at x = −c̄/ā (f'' = 4/(u² + 4)^{3/2} ≤ 1/2, attained at u = 0)."""
    x = sp.Symbol("x", real=True)

    def q(v: float) -> sp.Rational:
        return sp.nsimplify(float(v), rational=True)

    abar, cbar = q(prob.a.mean()), q(prob.c.mean())
    Phi = sp.sqrt((abar * x + cbar) ** 2 + 4) + sum(
        q(w) * sp.sqrt((x - q(m)) ** 2 + 1) for w, m in zip(prob.w, prob.m, strict=True)) / prob.K
    d2 = sp.diff(Phi, x, 2)
    fn = sp.lambdify(x, d2, "numpy")
    grid = np.linspace(-60, 60, 120001)
    vals = np.abs(fn(grid))
    i = int(np.argmax(vals))
    from scipy import optimize  # on first use: ~0.4 s of every CLI start
    res = optimize.minimize_scalar(lambda v: -abs(float(fn(v))),
                                   bounds=(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]),
                                   method="bounded", options={"xatol": 1e-12})
    val = max(float(vals[i]), -float(res.fun))
    out: dict[str, Any] = {"max_abs_Phi2": val, "argmax": float(res.x),
                           "method": "sympy Φ'' + grid"}
    if not np.any(prob.w):
        exact = sp.nsimplify(sp.simplify(d2.subs(x, -cbar / abar)))
        out |= {"exact": str(exact), "max_abs_Phi2": float(exact),
                "grid_exceeds_exact": bool(val > float(exact) * (1 + 1e-12))}
    return out


def dro_smoothness(prob: DRO, n: int, seed: int, h: float = 1e-5) -> dict[str, Any]:
    """Largest ‖∇²Φ(x)‖₂ over n random points of the ball ‖x‖ ≤ radius (plus x* and 0), by
    central differences of the exact ∇Φ — a sampled lower estimate of the local L_Φ."""
    rng = np.random.default_rng(seed)
    d = prob.d
    u = rng.standard_normal((n, d))
    u *= (prob.radius * rng.random(n) ** (1 / d) / np.linalg.norm(u, axis=1))[:, None]
    pts = np.vstack([u, prob.x_star[None, :], np.zeros((1, d))])
    E = np.eye(d) * h
    H = np.stack([(prob.grad_Phi(pts + E[j]) - prob.grad_Phi(pts - E[j])) / (2 * h)
                  for j in range(d)], axis=1)  # (n, d, d)
    norms = np.linalg.norm((H + H.transpose(0, 2, 1)) / 2, ord=2, axis=(1, 2))
    return {"max_abs_Phi2": float(norms.max()), "points": int(pts.shape[0]),
            "method": f"finite differences (h = {h:g}) at {pts.shape[0]} points of the ball"}


def smoothness(prob: ScalarFamily | DRO, n: int, seed: int) -> dict[str, Any]:
    """The true max|∇²Φ| of an instance: exact for scalar families, sampled for DRO."""
    return scalar_smoothness(prob) if isinstance(prob, ScalarFamily) else \
        dro_smoothness(prob, n, seed)


def smoothness_rows(instances: list[tuple[str, dict[str, float]]], n: int, seed: int,
                    bound_scale: float = 1.0, instance_seed: int | None = None
                    ) -> list[dict[str, Any]]:
    """Per instance (problem name, parameters; built from ``instance_seed``, default ``seed``):
    Lemma 3.1's bound L_h + B_f L_g + B_g² L_f (feddro.lem3.1 at its constants), the true
    max|∇²Φ| (DRO: sampled at ``n`` points drawn from ``seed``) and their ratio (bound ×
    ``bound_scale``)."""
    rows = []
    for name, values in instances:
        prob = make(name, values, seed if instance_seed is None else instance_seed)
        c = prob.constants
        bound = float(theorem_at("feddro.lem3.1", c).value)
        est = smoothness(prob, n, seed)
        rows.append({"problem": name, "params": values, "bound": bound,
                     "terms": {"L_h": c["L_h"], "B_f*L_g": c["B_f"] * c["L_g"],
                               "B_g^2*L_f": c["B_g"] ** 2 * c["L_f"]},
                     **est, "ratio": est["max_abs_Phi2"] / (bound * bound_scale)})
    return rows


# ---------------------------------------------------------------------------------------------
# The encoded theorems at numbers (engine over fedbounds.theorems.feddro)
# ---------------------------------------------------------------------------------------------
_BY_ID = {t.id: t for t in (*THEOREMS, *feddro_appendix.THEOREMS)}


def theorem(theorem_id: str) -> Theorem:
    """A FedDRO theorem by id (this paper's encodings only: no registry scan)."""
    if theorem_id not in _BY_ID:
        raise BadInput("ID", f"unknown FedDRO theorem {theorem_id!r}; allowed: {', '.join(_BY_ID)}")
    return _BY_ID[theorem_id]


class TheoremValues(NamedTuple):
    """An encoded theorem at given values: bound terms, derived quantities, and per condition
    (right-hand side, holds)."""

    terms: dict[str, Any]
    derived: dict[str, float]
    conditions: dict[str, tuple[float, bool]]

    @property
    def value(self) -> Any:
        return sum(self.terms.values())


def theorem_at(theorem_id: str, values: Mapping[str, Any]) -> TheoremValues:
    """Evaluate ``theorem_id`` with the engine: every input of the theorem must be in
    ``values`` (floats; a bound input may also be an array, evaluated elementwise). The
    conditions need finite inputs (exact rationals): with an infinite constant (e.g. a DRO
    instance whose e^{ℓ/λ} leaves the doubles) every condition is reported as failing."""
    thm = theorem(theorem_id)
    compiled = engine.compiled(thm)
    args = [np.asarray(values[n], dtype=float) if np.ndim(values[n]) else np.float64(values[n])
            for n in compiled.names]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        terms = {t.name: f(*args) for t, f in compiled.terms}
        derived = {n: float(f(*args)) for n, f in compiled.derived}
    inputs = {n: float(values[n]) for n in thm.condition_inputs()}
    if not all(math.isfinite(v) for v in inputs.values()):
        return TheoremValues(terms, derived, {c.name: (math.nan, False) for c in thm.conditions})
    _, results = engine.check(thm, {n: Fraction(v) for n, v in inputs.items()})
    return TheoremValues(terms, derived, {r.name: (r.rhs, r.holds) for r in results})


@cache
def _costs(theorem_id: str) -> tuple[list[str], Any]:
    thm = theorem(theorem_id)
    exprs = [apply_schedule(thm, e) for e in thm.costs.values()]
    names = sorted({s.name for e in exprs for s in e.free_symbols})
    return names, sp.lambdify([sp.Symbol(n) for n in names], [
        e.xreplace({s: sp.Symbol(s.name) for s in e.free_symbols}) for e in exprs], "math")


def costs_at(theorem_id: str, values: Mapping[str, float]) -> dict[str, float]:
    """The encoded costs of ``theorem_id`` (e.g. Corollary 2's samples and rounds, its schedule
    substituted) at ``values``."""
    names, fn = _costs(theorem_id)
    return dict(zip(theorem(theorem_id).costs, map(float, fn(*(float(values[n])
                                                                   for n in names))), strict=True))


def horizon_F1(values: Mapping[str, float]) -> tuple[int, float, float]:
    """The smallest T with T − 1 a multiple of I meeting Theorem F.1's T ≥ … conditions
    (feddro.thmF.1.corrected: T_th [L629–L630], and T_β = c_β²|b|K for β ≤ 1): (T, T_th, T_β)."""
    sides = theorem_at("feddro.thmF.1.corrected", {**values, "T": 1}).conditions
    T_beta = sides.pop("T >= c_beta^2 bK (beta <= 1)")[0]
    T_th = max(rhs for rhs, _ in sides.values())
    I = int(values["I"])
    return int(math.ceil(max(T_th, T_beta) / I)) * I + 1, T_th, T_beta


def tracking_steady_state(values: Mapping[str, float]) -> float:
    """Fixed point e = a·e + c of Lemma F.4's recursion (feddro.lemF.4 [L875–L878]) at
    ``values`` (drift, mean gradient and the terms they scale as given, usually 0)."""
    at0 = theorem_at("feddro.lemF.4", {**values, "track": 0.0})
    rate = theorem_at("feddro.lemF.4", {**values, "track": 1.0}).terms["contraction"]
    return float(at0.value / (1 - rate))
