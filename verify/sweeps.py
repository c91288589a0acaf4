"""Bound validity as a sweep, not a point: the machinery the per-paper sweep claims share
(verify/claims/sweeps.py).

A sweep runs a theorem's algorithm at step sizes from ``max-step`` (:func:`max_step`, the
engine's :func:`fedbounds.engine.max_step`, cached) at every point of a small grid of the
theorem's constants, measures the theorem's left-hand side, evaluates the encoded bound at the
same exact constants and steps, and keeps the ratio observed/bound with its interval:

* :class:`SweepPoint` — one (theorem, grid point) run: the constants, steps, binding condition,
  observed value (interval), bound, whether the conditions hold;
* :func:`sweep_table` — per theorem the worst ratio and the constants where it occurs (the
  evidence key ``sweep_table`` the report shows);
* :func:`sweep_measurement` — the claim's :class:`~.claim.Measurement`: statistic the worst
  ratio over the theorems the claim decides on (interval: worst lower and upper ends), figure
  (ratio per grid point, one series per theorem), evidence;
* :class:`AffineModel` / :func:`affine_model` / :func:`exact_average` — exact first and second
  moments of a min-max method whose step is affine in (state, Gaussian draws) for each client
  set (quadratic games, additive noise): every C(M, m) client set enumerated, no sampling;
* :func:`moreau_grad_sq` — ‖∇Φ_{1/2L_f}(x)‖² of a scalar NC-C game in closed form (the inner
  prox problem is a one-dimensional strongly convex problem solved exactly), for Monte Carlo
  runs of the NC-C theorems.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from fedbounds import engine, registry
from fedbounds.problems.minmax import MinMaxGame

from . import exact
from .algorithm import Method
from .claim import Check, Measurement, RunConfig
from .exact.minmax import grad_phi_affine

SAFETY = 1e-6  # steps are taken this far (relative) inside the max-step boundary: see max_step


# ---- max-step and bounds through the engine -----------------------------------------------------
@lru_cache(maxsize=256)
def _names(theorem_id: str) -> tuple[frozenset[str], frozenset[str]]:
    """(condition inputs, all inputs) of a theorem, read from its compiled form (expanding them
    is slow: the engine does it once per theorem)."""
    compiled = engine.compiled(registry.get(theorem_id))
    return frozenset(compiled.condition_inputs), frozenset(compiled.names)


@lru_cache(maxsize=4096)
def _max_step(theorem_id: str, vary: str, values: tuple[tuple[str, Fraction], ...]
              ) -> tuple[float | None, str | None]:
    # the engine's max-step, decided on the conditions with ``vary`` (the same value)
    ms = exact.max_step(registry.get(theorem_id), vary, dict(values))
    return (math.inf if ms.unbounded else ms.value), ms.binding


def max_step(theorem_id: str, vary: str, values: Mapping[str, Any], *, inside: bool = True
             ) -> tuple[float, str | None]:
    """The largest ``vary`` with every condition of ``theorem_id`` holding, the other condition
    inputs at ``values`` (:func:`fedbounds.engine.max_step`; cached per process, so a claim and
    its perturbation share the calls), and the binding condition. ``values`` may hold more names
    than the conditions use. With ``inside`` the value is taken :data:`SAFETY` (10⁻⁶, relative)
    inside the boundary, so that every condition at the step is decided in float64 (the engine
    re-decides margins within 10⁻⁹ of the boundary in exact arithmetic, which is slow); the
    bound moves by O(10⁻⁶). A ``ValueError`` when no value, or no finite value, is feasible."""
    used = tuple(sorted((n, Fraction(v)) for n, v in values.items()
                        if n in _names(theorem_id)[0] and n != vary))
    value, binding = _max_step(theorem_id, vary, used)
    if value is None or not math.isfinite(value):
        raise ValueError(f"{theorem_id}: no {'finite ' if value is None else ''}feasible "
                         f"{vary}: {binding or 'the conditions do not bound it'}")
    return (value * (1 - SAFETY) if inside else value), binding


def is_unbounded(theorem_id: str, vary: str, values: Mapping[str, Any]) -> bool:
    """Whether the conditions of ``theorem_id`` leave ``vary`` unbounded above (proven by the
    engine's max-step), the others at ``values``."""
    used = tuple(sorted((n, Fraction(v)) for n, v in values.items()
                        if n in _names(theorem_id)[0] and n != vary))
    return _max_step(theorem_id, vary, used)[0] == math.inf


def sequential_max_steps(theorem_id: str, order: Sequence[str], values: Mapping[str, Any],
                         start: Mapping[str, float], unbounded: Mapping[str, float] | None = None
                         ) -> tuple[dict[str, float], dict[str, Any]]:
    """Step sizes one at a time: each name of ``order`` is set to its max-step with the names
    already set at their values and the others at ``start`` (e.g. tiny); returns the steps and
    each binding condition. A name the conditions leave unbounded above takes its value in
    ``unbounded`` (binding: "unbounded"), if given; otherwise a ``ValueError``."""
    steps = dict(start)
    binding: dict[str, Any] = {}
    for name in order:
        steps.pop(name, None)
        given = {**values, **steps}
        if unbounded and name in unbounded and is_unbounded(theorem_id, name, given):
            steps[name], binding[name] = unbounded[name], "unbounded: the conditions leave it free"
            continue
        steps[name], binding[name] = max_step(theorem_id, name, given)
    return {k: float(v) for k, v in steps.items()}, binding


def bound_at(theorem_id: str, values: Mapping[str, Any]) -> engine.BoundResult:
    """The encoded bound of ``theorem_id`` at exact ``values`` (extra names are ignored)."""
    names = _names(theorem_id)[1]
    return engine.bound(registry.get(theorem_id),
                        {n: Fraction(v) for n, v in values.items() if n in names})


def bound_along(theorem_id: str, values: Mapping[str, Any], symbol: str
                ) -> tuple[bool, list[str], Callable[[Any], float]] | None:
    """For a symbol no condition of ``theorem_id`` contains (e.g. T): whether the conditions
    hold at ``values``, the violated ones, and x ↦ the bound's value with ``symbol`` = x (the
    value :func:`bound_at` gives; :func:`fedbounds.verify.exact.bound_along`). None when a
    condition contains ``symbol`` (then :func:`bound_at` per value)."""
    conditions, names = _names(theorem_id)
    if symbol in conditions:
        return None
    thm = registry.get(theorem_id)
    ok, results = engine.check(thm, {n: Fraction(v) for n, v in values.items()
                                     if n in conditions})
    along = exact.bound_along(thm, {n: Fraction(v) for n, v in values.items()
                                    if n in names and n != symbol}, symbol)
    return ok, [r.name for r in results if not r.holds], lambda x: along(Fraction(x))


# ---- one grid point and the table -----------------------------------------------------------------
@dataclass
class SweepPoint:
    """One run of one theorem at one grid point: observed/bound with the observed value's
    interval (equal ends for an exact value). ``decides``: whether the claim's verdict counts
    this theorem (the paper's statements; corrected forms are shown, not decided on)."""

    theorem: str
    constants: dict[str, Any]
    steps: dict[str, float]
    observed: float
    bound: float
    conditions_hold: bool
    observed_lo: float | None = None
    observed_hi: float | None = None
    binding: Any = None
    violated: list[str] = field(default_factory=list)
    method: str = "exact"
    decides: bool = True
    terms: dict[str, float] = field(default_factory=dict)
    note: str = ""
    along_T: dict[str, list[float]] = field(default_factory=dict)  # T, observed, bound

    @property
    def ratio(self) -> float:
        return _ratio(self.observed, self.bound)

    @property
    def ratio_lo(self) -> float:
        return _ratio(self.observed if self.observed_lo is None else self.observed_lo, self.bound)

    @property
    def ratio_hi(self) -> float:
        return _ratio(self.observed if self.observed_hi is None else self.observed_hi, self.bound)

    def as_json(self) -> dict[str, Any]:
        return {"theorem": self.theorem, "constants": dict(self.constants),
                "steps": dict(self.steps), "observed": self.observed,
                "observed_interval": [self.observed if self.observed_lo is None
                                      else self.observed_lo,
                                      self.observed if self.observed_hi is None
                                      else self.observed_hi],
                "bound": self.bound, "ratio": self.ratio,
                "ratio_interval": [self.ratio_lo, self.ratio_hi],
                "conditions_hold": self.conditions_hold, "violated": list(self.violated),
                "binding": self.binding, "method": self.method, "decides": self.decides,
                "terms": dict(self.terms), **({"note": self.note} if self.note else {}),
                **({"along_T": dict(self.along_T)} if self.along_T else {})}


def _ratio(observed: float, bound: float) -> float:
    if bound > 0 and math.isfinite(bound):
        return float(observed) / float(bound)
    return 0.0 if bound == math.inf and math.isfinite(observed) else math.inf


def sweep_table(points: Iterable[SweepPoint]) -> list[dict[str, Any]]:
    """Per theorem (in order of appearance): the worst ratio observed/bound over the grid points
    where its conditions hold, its interval, the constants and steps where it occurs, how many
    points were run and how many had the conditions holding."""
    by: dict[str, list[SweepPoint]] = {}
    for p in points:
        by.setdefault(p.theorem, []).append(p)
    rows = []
    for tid, pts in by.items():
        held = [p for p in pts if p.conditions_hold]
        row: dict[str, Any] = {"theorem": tid, "decides": pts[0].decides, "points": len(pts),
                               "conditions_hold_at": len(held), "method": pts[0].method}
        if held:
            worst = max(held, key=lambda p: (p.ratio, p.ratio_hi))
            row.update(worst_ratio=worst.ratio,
                       worst_ratio_interval=[worst.ratio_lo, worst.ratio_hi],
                       constants=dict(worst.constants), steps=dict(worst.steps))
        else:
            row.update(worst_ratio=None, worst_ratio_interval=None, constants=None, steps=None,
                       why="the conditions fail at every grid point")
        rows.append(row)
    return rows


def sweep_measurement(points: list[SweepPoint], *, run: RunConfig | None, bound_scale: float,
                      evidence: Mapping[str, Any] | None = None,
                      checks: Sequence[Check] = (), diverged: str | None = None) -> Measurement:
    """The claim's measurement: statistic the worst ratio over the deciding theorems' points
    whose conditions hold (``bound_scale`` × 1 is the prediction), interval (worst lower end,
    worst upper end); the figure has one series per theorem (ratio per grid point) and the line
    ratio = 1; ``inconclusive`` when no deciding point has its conditions holding."""
    decided = [p for p in points if p.decides and p.conditions_hold]
    series: dict[str, tuple[list[float], list[float]]] = {}
    for k, p in enumerate(points):
        xs, ys = series.setdefault(p.theorem, ([], []))
        xs.append(float(k + 1))
        ys.append(max(p.ratio, 1e-300) if math.isfinite(p.ratio) else 1e300)
    table = sweep_table(points)
    ev = {"sweep_table": table, "points": [p.as_json() for p in points],
          "decided_on": sorted({p.theorem for p in points if p.decides}),
          "bound_scale": bound_scale, **dict(evidence or {})}
    if not decided:
        return Measurement(None, series=series, evidence=ev, run=run, checks=checks,
                           diverged=diverged,
                           inconclusive="no grid point of a deciding theorem has its conditions "
                                        "holding")
    worst = max(p.ratio for p in decided)
    lo, hi = max(p.ratio_lo for p in decided), max(p.ratio_hi for p in decided)
    ev.update(worst_ratio=worst, worst_ratio_interval=[lo, hi])
    return Measurement(worst, interval=(lo, hi), series=series, hlines={"ratio 1": 1.0},
                       evidence=ev, run=run, checks=checks, diverged=diverged,
                       predicted=f"observed/bound ≤ {bound_scale:g} at every grid point",
                       tolerance="exact" if all(p.method == "exact" for p in decided)
                       else "lower end of the interval")


# ---- exact moments of an affine min-max method --------------------------------------------------
@dataclass(frozen=True)
class AffineModel:
    """w' = A_S w + c_S + E_S ξ for every client set S (uniform over the sets), w the flattened
    per-replica state, ξ the standard normal draws of the method's Gaussian streams."""

    A: np.ndarray  # (sets, n, n)
    c: np.ndarray  # (sets, n)
    E: np.ndarray  # (sets, n, k)
    fields: tuple[tuple[str, tuple[int, ...]], ...]
    affine_error: float  # largest mismatch of the model at a random test point

    @property
    def n(self) -> int:
        return int(self.A.shape[1])

    def offset(self, name: str) -> slice:
        """The coordinates of state field ``name`` in w."""
        start = 0
        for f, shape in self.fields:
            size = int(np.prod(shape)) if shape else 1
            if f == name:
                return slice(start, start + size)
            start += size
        raise KeyError(name)


def _layout(state: Any) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return tuple((f, tuple(np.shape(a)[1:])) for f, a in zip(state._fields, state, strict=True))


def flatten(state: Any) -> np.ndarray:
    """A NamedTuple state of (R, ...) arrays as (R, n)."""
    return np.concatenate([np.asarray(a, dtype=float).reshape(np.shape(a)[0], -1)
                           for a in state], axis=1)


def unflatten(W: np.ndarray, template: Any) -> Any:
    """(R, n) back into the NamedTuple type of ``template``."""
    out, start = [], 0
    for _f, shape in _layout(template):
        size = int(np.prod(shape)) if shape else 1
        out.append(W[:, start:start + size].reshape((W.shape[0], *shape)).copy())
        start += size
    return type(template)(*out)


def affine_model(method: Method, M: int, m: int, t: int = 0, seed: int = 0) -> AffineModel:
    """The affine model of one step of ``method`` at iteration ``t`` (every C(M, m) client set
    when the method samples clients through its ``clients`` stream; every other stream must be
    standard normal). All sets, basis states and basis draws go through one vectorized call of
    the method's own step, then the model is checked at a random point per set."""
    template = method.init(1, seed)
    layout = _layout(template)
    n = int(sum(int(np.prod(s)) if s else 1 for _f, s in layout))
    rng = np.random.default_rng(seed)
    gauss = sorted(k for k in method.streams if k != "clients")
    shapes = {k: tuple(np.shape(method.streams[k](rng, 1))[1:]) for k in gauss}
    sizes = {k: int(np.prod(s)) for k, s in shapes.items()}
    k = sum(sizes.values())
    sets = list(combinations(range(M), m)) if "clients" in method.streams else [()]
    base = 2 + n + k  # zero, n basis states, k basis draws, one random test point
    W = np.zeros((base, n))
    W[1:1 + n] = np.eye(n)
    X = np.zeros((base, k))
    X[1 + n:1 + n + k] = np.eye(k)
    W[-1] = rng.standard_normal(n)
    X[-1] = rng.standard_normal(k)
    R = base * len(sets)
    Wall, Xall = np.tile(W, (len(sets), 1)), np.tile(X, (len(sets), 1))
    draws: dict[str, Any] = {}
    if "clients" in method.streams:
        u = np.ones((R, M))
        for s, S in enumerate(sets):
            u[s * base:(s + 1) * base, list(S)] = 0.0
        draws["clients"] = u
    start = 0
    for name in gauss:
        draws[name] = Xall[:, start:start + sizes[name]].reshape((R, *shapes[name]))
        start += sizes[name]
    new, _ = method.step(unflatten(Wall, template), draws, t)
    out = flatten(new).reshape(len(sets), base, n)
    c = out[:, 0]
    A = (out[:, 1:1 + n] - c[:, None]).transpose(0, 2, 1)
    E = (out[:, 1 + n:1 + n + k] - c[:, None]).transpose(0, 2, 1)
    predicted = np.einsum("sij,j->si", A, W[-1]) + c + np.einsum("sij,j->si", E, X[-1])
    scale = max(1.0, float(np.max(np.abs(out[:, -1]))))
    err = float(np.max(np.abs(predicted - out[:, -1]))) / scale
    return AffineModel(A, c, E, layout, err)


def moment_operator(model: AffineModel) -> np.ndarray:
    """The linear map of q = (vec P, μ, 1), P = E[wwᵀ], μ = E[w] (row-major vec), one step
    averaged over the client sets and the Gaussian draws."""
    A, c, E = model.A, model.c, model.E
    n, sets = model.n, A.shape[0]
    KA = np.einsum("sij,skl->ikjl", A, A).reshape(n * n, n * n) / sets
    cross = (np.einsum("sij,sk->ikj", A, c) + np.einsum("si,skj->ikj", c, A)).reshape(
        n * n, n) / sets
    N = (np.einsum("si,sj->ij", c, c) + np.einsum("sik,sjk->ij", E, E)) / sets
    dim = n * n + n + 1
    out = np.zeros((dim, dim))
    out[:n * n, :n * n] = KA
    out[:n * n, n * n:n * n + n] = cross
    out[:n * n, -1] = N.reshape(-1)
    out[n * n:n * n + n, n * n:n * n + n] = A.mean(axis=0)
    out[n * n:n * n + n, -1] = c.mean(axis=0)
    out[-1, -1] = 1.0
    return out


def quadratic_functional(model: AffineModel, G: np.ndarray, g0: np.ndarray, field_name: str = "z"
                         ) -> np.ndarray:
    """ℓ with ℓᵀq = E‖G z + g0‖², z the state field ``field_name``."""
    n = model.n
    Gw = np.zeros((G.shape[0], n))
    Gw[:, model.offset(field_name)] = G
    ell = np.zeros(n * n + n + 1)
    ell[:n * n] = (Gw.T @ Gw).reshape(-1)
    ell[n * n:n * n + n] = 2 * g0 @ Gw
    ell[-1] = float(g0 @ g0)
    return ell


def _moments(mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """q = (vec E[wwᵀ], E[w], 1) of a state with this mean and covariance
    (:func:`moment_operator`'s coordinates)."""
    return np.concatenate([(cov + np.outer(mean, mean)).reshape(-1), mean, [1.0]])


def exact_curve(model: AffineModel, ell: np.ndarray, mean0: np.ndarray, cov0: np.ndarray,
                T: int) -> np.ndarray:
    """ℓᵀq_t for t = 0..T − 1 exactly: the moments from w_0 with mean ``mean0`` and covariance
    ``cov0`` (inf from the first non-finite moment on)."""
    Mop = moment_operator(model)
    q = _moments(mean0, cov0)
    out = np.full(T, math.inf)
    for t in range(T):
        out[t] = float(ell @ q)
        q = Mop @ q
        if not np.all(np.isfinite(q)):
            break
    return out


def exact_average(model: AffineModel, ell: np.ndarray, mean0: np.ndarray, cov0: np.ndarray,
                  T: int, curve_points: int = 60) -> tuple[float, list[int], list[float]]:
    """(1/T) Σ_{t<T} ℓᵀq_t exactly (:func:`exact_curve`), and the running average at about
    ``curve_points`` log-spaced t (for a figure)."""
    curve = exact_curve(model, ell, mean0, cov0, T)
    running = np.cumsum(curve) / np.arange(1, T + 1)
    marks = np.unique(np.geomspace(1, T, curve_points).astype(int))
    return float(running[-1]), marks.tolist(), running[marks - 1].tolist()


def exact_long_run(model: AffineModel, ell: np.ndarray, mean0: np.ndarray, cov0: np.ndarray,
                   max_doublings: int) -> tuple[list[int], list[float], list[float]]:
    """(T, (1/T) Σ_{t<T} ℓᵀq_t, ℓᵀq_T) exactly at T = 1, 2, 4, …, 2^max_doublings, by doubling
    the moment operator (S_{2T} = S_T + M^T S_T, M^{2T} = (M^T)²): horizons far beyond what a
    step-by-step run reaches, for the large-T behaviour of an average."""
    step = moment_operator(model)
    q0 = _moments(mean0, cov0)
    power, total = step.copy(), q0.copy()  # M^T and S_T q0 at T = 1
    horizons, averages, values = [], [], []
    for k in range(max_doublings + 1):
        T = 2**k
        horizons.append(T)
        averages.append(float(ell @ total) / T)
        values.append(float(ell @ (power @ q0)))
        if not (np.all(np.isfinite(power)) and np.all(np.isfinite(total))):
            averages[-1] = values[-1] = math.inf
            break
        total = total + power @ total
        power = power @ power
    return horizons, averages, values


def game_functional(model: AffineModel, g: MinMaxGame) -> np.ndarray:
    """ℓ of E‖∇Φ(x)‖² of the server model z (closed-form ∇Φ of a quadratic game)."""
    G, g0 = grad_phi_affine(g)
    return quadratic_functional(model, G, g0, "z")


# ---- scalar NC-C games: the Moreau-envelope gradient in closed form -------------------------
def moreau_grad_sq(g: MinMaxGame, x: np.ndarray) -> np.ndarray:
    """‖∇Φ_{1/2L_f}(x)‖² = ‖2L_f(x − û)‖², û = argmin_u Φ(u) + L_f(u − x)², for a scalar NC-C
    game (dx = dy = 1, y in [−r, r]): Φ(u) = ½āu² + b̄u + r|B̄u − c̄|, so the prox problem is
    one-dimensional and strongly convex (ā + 2L_f > 0) with the exact solution: a smooth branch
    u_s = (2L_f x − b̄ − s r B̄)/(ā + 2L_f) where sign(B̄u_s − c̄) = s, else the kink c̄/B̄."""
    if g.dx != 1 or g.dy != 1 or g.radius is None:
        raise ValueError("moreau_grad_sq needs a scalar NC-C game (dx = dy = 1, radius set)")
    A, B, _C, b, c = g.mean_blocks()
    a, Bs, bs, cs, r = float(A[0, 0]), float(B[0, 0]), float(b[0]), float(c[0]), g.radius
    L = g.constants["L_f"]
    k = a + 2 * L
    if not k > 0 or Bs == 0:
        raise ValueError("the prox problem is not strongly convex or Φ has no kink")
    x = np.asarray(x, dtype=float)
    u = np.full(x.shape, cs / Bs)
    for s in (1.0, -1.0):
        us = (2 * L * x - bs - s * r * Bs) / k
        ok = np.sign(Bs * us - cs) == s
        u = np.where(ok, us, u)
    return (2 * L * (x - u)) ** 2


def moreau_envelope(g: MinMaxGame, x: float) -> float:
    """Φ_{1/2L_f}(x) = min_u Φ(u) + L_f(u − x)² of a scalar NC-C game (same exact prox)."""
    L = g.constants["L_f"]
    grad = math.sqrt(float(moreau_grad_sq(g, np.array([x]))[0]))
    u_candidates = [x - grad / (2 * L), x + grad / (2 * L)]
    return min(float(g.phi(np.array([u]))) + L * (u - x) ** 2 for u in u_candidates)


def scalar_ncc_phi_min(g: MinMaxGame) -> float:
    """min_u Φ(u) of a scalar NC-C game with ā = 0 and r|B̄| ≥ |b̄| (Φ convex, piecewise linear,
    bounded below): attained at the kink u = c̄/B̄. min Φ_{1/2L_f} = min Φ."""
    A, B, _C, b, c = g.mean_blocks()
    if float(A[0, 0]) != 0 or g.radius * abs(float(B[0, 0])) < abs(float(b[0])):
        raise ValueError("Φ is not bounded below at its kink (needs ā = 0, r|B̄| ≥ |b̄|)")
    return float(g.phi(np.array([float(c[0]) / float(B[0, 0])])))


def run_config_of(algorithm: str, problem: str, game_set: Mapping[str, Any],
                  config: Mapping[str, Any], rounds: int, seeds: int, seed: int,
                  sweeps: Mapping[str, Sequence[Any]] | None = None) -> RunConfig:
    """The ``fedbounds run`` call of one grid point (numbers only)."""
    values = {**game_set, **config}
    return RunConfig(algorithm, problem, {k: v for k, v in values.items()
                                          if isinstance(v, (int, float))}, rounds, seeds, seed,
                     sweeps=dict(sweeps or {}))
