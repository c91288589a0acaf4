"""Solving a PEPit problem through cvxpy with an open-source SDP solver, and reading the
certificate: worst case (primal), dual bound, gap, and the residuals of both.

Nothing here raises for a solver problem: a missing package, a missing solver, a failed solve,
or a certificate whose residuals or gap exceed :data:`MAX_RESIDUAL` give an
:class:`SdpOutcome` with ``solved=False`` and the reason. The certificate is checked here
(PEPit's proof reconstruction), so a solver's 'optimal_inaccurate' with small residuals is
accepted, with a note.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: Solvers tried in order (cvxpy names); both are open source and installed with fedbounds.
SOLVERS: tuple[str, ...] = ("CLARABEL", "SCS")
#: Largest accepted certificate residual and relative primal–dual gap (relative to max(1, |worst|)).
MAX_RESIDUAL = 1e-5
#: Options per solver: SCS's defaults stop at 1e-4, far above MAX_RESIDUAL.
SOLVER_OPTIONS: dict[str, dict[str, Any]] = {"SCS": {"eps_abs": 1e-10, "eps_rel": 1e-10,
                                                     "max_iters": 200_000}}


@dataclass
class SdpOutcome:
    """What one PEP solve gave: the worst case (the primal value of the SDP, attained by the
    Gram matrix found), the dual bound, status, solver, gap and residuals; ``reason`` says why
    it is not solved when ``solved`` is False."""

    worst: float | None
    dual: float | None
    status: str
    solver: str
    gap: float | None
    residuals: dict[str, float] = field(default_factory=dict)
    solved: bool = False
    reason: str = ""
    attempts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def residual(self) -> float | None:
        """The largest residual (None when nothing was solved)."""
        return max(self.residuals.values()) if self.residuals else None


def installed_solvers() -> list[str]:
    """cvxpy's installed solvers (empty when cvxpy itself is missing)."""
    try:
        import cvxpy
    except ImportError:
        return []
    return list(cvxpy.installed_solvers())


def _value(constraint: Any) -> float:
    """A PEPit constraint's value at the solution."""
    return float(constraint.eval())  # PEPit's Constraint.eval method, not Python's eval


def certificate(pep: Any, worst: float) -> tuple[float, dict[str, float]]:
    """The dual bound reconstructed from the dual values (PEPit's own proof check) and the
    residuals: Gram matrix and dual matrix below PSD, primal constraints violated, negative
    multipliers, and the terms left over when the dual certificate is recombined."""
    import numpy as np
    from PEPit.point import Point
    from PEPit.tools.dict_operations import prune_dict, symmetrize_dict

    constraints = pep._list_of_prepared_constraints
    inequalities = [c for c in constraints if c.equality_or_inequality == "inequality"]
    equalities = [c for c in constraints if c.equality_or_inequality == "equality"]
    primal = [_value(c) for c in inequalities] + [abs(_value(c)) for c in equalities]
    duals = [float(c.eval_dual()) for c in inequalities]
    combination = -np.dot(Point.list_of_leaf_points, np.dot(pep.residual, Point.list_of_leaf_points))
    for c in constraints:
        combination += c.eval_dual() * c.expression
    for psd in pep._list_of_psd_sent_to_wrapper:
        combination -= np.sum(psd.eval_dual() * psd.matrix_of_expressions)
    parts = prune_dict(symmetrize_dict((pep.objective - combination).decomposition_dict))
    dual = float(parts.get(1, 0.0))
    leftover = float(sum(abs(v) for k, v in parts.items() if k != 1))
    scale = max(1.0, abs(worst))
    residuals = {
        "primal_psd": max(0.0, -float(np.min(np.linalg.eigvalsh(pep.G_value)))) / scale,
        "primal_constraints": max([0.0, *primal]) / scale,
        "dual_psd": max(0.0, -float(np.min(np.linalg.eigvalsh(pep.residual)))) / scale,
        "dual_sign": max([0.0, *(-d for d in duals)]) / scale,
        "dual_certificate": leftover / scale,
    }
    return dual, residuals


def _solve_once(pep: Any, solver: str) -> SdpOutcome:
    """Solve a freshly built PEP with one solver and read its certificate."""
    options = SOLVER_OPTIONS.get(solver, {})
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        pep.solve(wrapper="cvxpy", solver=solver, verbose=0, **options)
    wrapper = pep.wrapper
    status = str(getattr(wrapper.prob, "status", "unknown"))
    name = str(getattr(wrapper, "solver_name", solver))
    value = getattr(wrapper.objective, "value", None)
    if value is None or pep.G_value is None or pep.residual is None:
        return SdpOutcome(None, None, status, name, None, solved=False,
                          reason=f"solver status {status!r}: no solution")
    worst = float(value)
    dual, residuals = certificate(pep, worst)
    gap = (dual - worst) / max(1.0, abs(worst))
    out = SdpOutcome(worst, dual, status, name, gap, residuals)
    too_large = {k: v for k, v in residuals.items() if not v <= MAX_RESIDUAL}
    if status not in ("optimal", "optimal_inaccurate"):
        out.reason = f"solver status {status!r} (not 'optimal')"
    elif too_large:
        out.reason = "certificate residual too large: " + ", ".join(
            f"{k} = {v:.2g}" for k, v in too_large.items()) + f" (> {MAX_RESIDUAL:g})"
    elif not (math.isfinite(gap) and abs(gap) <= MAX_RESIDUAL):
        out.reason = f"primal–dual gap {gap:.2g} (> {MAX_RESIDUAL:g})"
    else:  # the certificate is checked here, so an 'inaccurate' label alone is no failure
        out.solved = True
        if status != "optimal":
            out.reason = (f"solver status {status!r}, accepted: the certificate's residuals and "
                          f"gap are within {MAX_RESIDUAL:g}")
    return out


def solve(build: Any, solvers: Sequence[str] = SOLVERS) -> SdpOutcome:
    """Solve the PEP that ``build()`` returns with the first of ``solvers`` that is installed
    and gives a certified solution; never raises for a solver problem (an error in ``build``
    itself is a bug of the model and is raised). PEPit keeps global counters, so each attempt
    builds a fresh PEP."""
    try:
        import cvxpy  # noqa: F401
        import PEPit  # noqa: F401
    except ImportError as e:
        return SdpOutcome(None, None, "not run", "—", None,
                          reason=f"package missing: {e.name or e} (pip install pepit cvxpy "
                                 "clarabel)")
    available = installed_solvers()
    chosen = [s for s in solvers if s in available]
    if not chosen:
        return SdpOutcome(None, None, "not run", "—", None,
                          reason=f"no SDP solver available: asked for {', '.join(solvers)}; "
                                 f"cvxpy has {', '.join(available) or 'none'}")
    attempts: list[dict[str, Any]] = []
    last: SdpOutcome | None = None
    for solver in chosen:
        pep = build()
        try:
            out = _solve_once(pep, solver)
        except Exception as e:  # a solver failure is an answer ("not solved"), not a crash
            out = SdpOutcome(None, None, "error", solver, None,
                             reason=f"{solver} failed: {type(e).__name__}: {e}")
        attempts.append({"solver": solver, "status": out.status, "solved": out.solved,
                         "reason": out.reason})
        last = out
        if out.solved:
            break
    assert last is not None
    last.attempts = attempts
    if not last.solved and len(attempts) > 1:
        last.reason = "; ".join(f"{a['solver']}: {a['reason']}" for a in attempts)
    return last
