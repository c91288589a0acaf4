"""Local GDA's worst cases by performance estimation: how much client heterogeneity biases it.

Local GDA is the baseline of ProxSkip-VIP (arXiv 2306.05100, Appendix G [L770]; the algorithm
unit ``local-gda`` of ``verify/algorithms/proxskip.py``, whose ``H`` is ``K`` here): n clients
start each round from the average z̄, take K local steps z ← z − γF_i(z), and the server
averages. The clients share the solution z* (Σ_i F_i(z*) = 0) and differ there by at most ζ:
‖F_i(z*)‖² ≤ ζ². The paper states no theorem for it, so these models are ours and are keyed by
the algorithm's name, without a theorem; three worst cases are reported, each beside a closed
form where one is known:

* ``contraction``: ‖z̄_R − z*‖² / ‖z̄_0 − z*‖² with ζ = 0 (homogeneous clients). Exact:
  ρ^{KR}, ρ the one-step worst case of the class (below).
* ``bias``: the largest ‖z̄_R − z*‖² reachable from z̄_0 = z* after R rounds. No bias at K = 1
  (Σ_i F_i(z*) = 0, so z* is fixed); γ⁴ℓ²ζ²/4 at K = 2, R = 1 over the star class when ℓ ≥ 2μ,
  and γ⁴(L² − μ²)ζ² over the strongly monotone Lipschitz class with n = 2 [derived, below].
* ``fixed point``: the largest ‖z̄ − z*‖² of a fixed point of the round map (z̄_1 = z̄_0,
  written exactly as Σ_i Σ_k F_i(z_{i,k}) = 0 by making the last evaluation the negated sum of
  the others), the bias Local GDA converges to. Zero at K = 1.

The classes ("star", the paper's): each F_i μ-quasi-strongly monotone and ℓ-star-cocoercive
around the shared z* (Assumption 4.1; :class:`~fedbounds.verify.pep.classes.StarOperator`),
interpolable by these conditions, so every SDP value is the exact worst case. ("lipschitz",
labelled so): each F_i μ-strongly monotone and L-Lipschitz with PEPit's pairwise conditions,
which are necessary but not sufficient for interpolation (Ryu, Taylor, Bergeling, Giselsson,
SIAM J. Optim. 2020): an upper bound on the worst case, exact where each operator is evaluated
at two points only (z* and one more: the contraction at K = R = 1, the bias at K ≤ 2 and R = 1,
the fixed point at K = 1). It is a smaller class than the paper's.

Closed forms [derived]. One step from e = z − z* with u = F(z) − F(z*), a = ⟨u, e⟩/‖e‖² ∈ [μ, ℓ]
and ‖u‖² ≤ ℓa‖e‖² (star class): ‖e − γu‖² ≤ (1 − γa(2 − γℓ))‖e‖², so ρ = max{1 − γμ(2 − γℓ),
(1 − γℓ)²}, attained by F = μI + sK (s² = ℓμ − μ², K a rotation by π/2) or F = ℓI on every
client; over the Lipschitz class ρ = 1 − 2γμ + γ²L² (F = μI + √(L² − μ²)K). Bias at K = 2,
R = 1: z̄_1 − z* = −(γ/n)Σ_i u_i with u_i = F_i(z* − γg_i) − g_i, g_i = F_i(z*). Star class:
u_i lies in the ball of centre −γℓg_i/2 and radius γℓ‖g_i‖/2, the centres sum to zero, so
‖Σ_i u_i‖/n ≤ γℓζ/2, attained by u_i = −γℓg_i/2 + (γℓζ/2)w with one unit w ⊥ every g_i (a
quasi-strong monotonicity of γ²ℓζ²/2 ≥ γ²μζ² needs ℓ ≥ 2μ): γ⁴ℓ²ζ²/4 for every n. Lipschitz
class, n = 2 (g_2 = −g_1): ‖u_1 + u_2‖/2 ≤ γζ√(L² − μ²), attained with both u_i = μe_i +
γζ√(L² − μ²)w.

Observed over the star class (fitted on small grids: tests/pep/test_localgda.py and claim
proxskip.p26): one round from z* gives ≈ γ⁴ℓ²ζ²K²(K − 1)²/16 for small γℓ, approached from
below (each step may turn by up to ℓ‖z − z*‖/2 while Σ_i F_i(z*) = 0 cancels the first order
[heuristic]); the fixed point lies at a squared distance ∝ γ²(K − 1)²ζ². Neither changed
with n (n = 2, 3, 4 gave equal values at K = 2, 3).

The SDP is built for the operators γF_i with step 1 and, for the bias and the fixed point, in
units of γζ (the length of one local step from z*), with F_i(x) − F_i(z*) = γ·const·v for a free
v, so that its entries are of order one whatever γℓ is [derived: the iterates are the same].
PEPit is imported inside ``build`` only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from fedbounds.errors import BadInput

from . import Kind, PepParam, check_values, sdp
from .sdp import SOLVERS, SdpOutcome

QuantityName = Literal["contraction", "bias", "fixed point"]
OperatorClass = Literal["star", "lipschitz"]
QUANTITIES: tuple[QuantityName, ...] = ("contraction", "bias", "fixed point")
#: Relative agreement required with a closed form (the issue's 1e-4, above the solvers' accuracy).
CLOSED_FORM_TOL = 1e-4

Comparison = Literal["matches", "differs", "no closed form", "not solved"]


def _zero() -> Any:
    from PEPit import Point
    return Point(is_leaf=False, decomposition_dict={})


def local_gda(gamma: float, mu: float, constant: float, local_steps: int, rounds: int = 1,
              clients: int = 2, measure: QuantityName = "bias",
              operator_class: OperatorClass = "star") -> Callable[[], Any]:
    """``build()`` of the PEP of Local GDA (see the module docstring for the measures).

    ``constant`` is ℓ (star class) or L (Lipschitz class). The value of the SDP is the ratio
    for ``contraction`` and the squared distance in units of (γζ)² for ``bias`` and ``fixed
    point`` (multiply by (γζ)²)."""
    step_mu, step_constant = float(gamma) * float(mu), float(gamma) * float(constant)
    if measure not in QUANTITIES:
        raise ValueError(f"unknown measure {measure!r}")

    def build() -> Any:
        from PEPit import PEP, Expression, Point
        from PEPit.operators import LipschitzStronglyMonotoneOperatorCheap

        from .classes import StarOperator

        pep = PEP()
        z_star = Point()
        if operator_class == "star":
            ops = [pep.declare_function(StarOperator, mu=step_mu, ell=step_constant)
                   for _ in range(clients)]
        else:
            ops = [pep.declare_function(LipschitzStronglyMonotoneOperatorCheap, mu=step_mu,
                                        L=step_constant) for _ in range(clients)]
        if measure == "contraction":  # ζ = 0: every F_i(z*) = 0
            at_solution = [_zero() for _ in range(clients)]
        else:  # γF_i(z*) = d_i, ‖d_i‖ ≤ 1 (units of γζ), Σ_i d_i = 0
            at_solution = [Point() for _ in range(clients - 1)]
            at_solution.append(-sum(at_solution[1:], at_solution[0]))
            for value in at_solution:
                pep.add_constraint(value**2 <= 1)
        for op, value in zip(ops, at_solution, strict=True):
            if operator_class == "star":
                op.set_solution(z_star, value)
            else:
                op.add_point((z_star, value, Expression()))

        start = z_star if measure == "bias" else Point()
        if measure == "contraction":
            pep.set_initial_condition((start - z_star) ** 2 <= 1)
        average, used = start, []
        for _ in range(rounds if measure != "fixed point" else 1):
            ends = []
            for client, (op, value) in enumerate(zip(ops, at_solution, strict=True)):
                x = average
                for k in range(local_steps):
                    if x is z_star:
                        g = value
                    elif (measure == "fixed point" and client == clients - 1 and
                          k == local_steps - 1):  # z̄_1 = z̄_0: Σ of all evaluations is 0
                        g = -sum(used[1:], used[0]) if used else _zero()
                        op.add_point((x, g, Expression()))
                    else:
                        g = value + step_constant * Point()
                        op.add_point((x, g, Expression()))
                    used.append(g)
                    x = x - g
                ends.append(x)
            average = sum(ends[1:], ends[0]) / clients
        target = start if measure == "fixed point" else average
        pep.set_performance_metric((target - z_star) ** 2)
        return pep

    return build


def evaluation_points(measure: QuantityName, local_steps: int, rounds: int) -> int:
    """Distinct points at which each client's operator is evaluated (z* included)."""
    if measure == "contraction":
        return 1 + local_steps * rounds
    if measure == "bias":
        return local_steps * rounds  # z* itself starts the first round
    return 1 + local_steps


@dataclass
class Quantity:
    """One worst case of Local GDA beside its closed form (when one is known)."""

    name: QuantityName
    description: str
    worst: float | None
    closed_form: float | None
    closed_form_text: str
    comparison: Comparison
    deviation: float | None
    kind: Kind
    status: str
    solver: str
    gap: float | None
    residuals: dict[str, float]
    reason: str
    unit: float = 1.0

    @property
    def residual(self) -> float | None:
        return max(self.residuals.values()) if self.residuals else None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "worst": self.worst,
                "closed_form": self.closed_form, "closed_form_text": self.closed_form_text,
                "comparison": self.comparison, "deviation": self.deviation, "kind": self.kind,
                "status": self.status, "solver": self.solver, "gap": self.gap,
                "residuals": self.residuals, "residual": self.residual, "reason": self.reason,
                "unit": self.unit}


@dataclass
class LocalGdaResult:
    """The three worst cases of one model at one set of constants."""

    model: str
    values: dict[str, float | int]
    steps: int
    quantities: list[Quantity] = field(default_factory=list)

    def quantity(self, name: QuantityName) -> Quantity:
        return next(q for q in self.quantities if q.name == name)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.model, "values": self.values, "steps": self.steps,
                "rounds": self.steps,
                "quantities": {q.name: q.as_json() for q in self.quantities}}


def _compare(worst: float | None, closed: float | None, unit: float,
             tol: float) -> tuple[Comparison, float | None]:
    """Agreement with a closed form: relative to it, or to ``unit`` when it is zero."""
    if worst is None:
        return "not solved", None
    if closed is None:
        return "no closed form", None
    deviation = abs(worst - closed) / (closed if closed > 0 else unit)
    return ("matches" if deviation <= tol else "differs"), deviation


@dataclass(frozen=True)
class LocalGdaModel:
    """Local GDA's PEP over one operator class, keyed by the algorithm's name (no theorem).

    ``constant`` names the class's second constant (``ell`` or ``L``); ``steps`` (the CLI's
    ``--steps``) is the number of rounds R."""

    id: str
    title: str
    operator_class: OperatorClass
    class_text: str
    constant: str
    kind: Kind
    parameters: Mapping[str, PepParam]
    max_steps: int = 3
    source: str = ""
    notes: tuple[str, ...] = ()
    method: str = ("Local GDA: each round, n clients take K steps z ← z − γF_i(z) from z̄, then "
                   "z̄ ← the average (one communication)")
    measure: str = ("contraction ‖z̄_R − z*‖²/‖z̄_0 − z*‖² at ζ = 0; bias ‖z̄_R − z*‖² from "
                    "z̄_0 = z*; fixed point: largest ‖z̄ − z*‖² with z̄ fixed by a round")

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "method": self.method,
                "class": self.class_text, "measure": self.measure, "kind": self.kind,
                "max_steps": self.max_steps, "source": self.source, "notes": list(self.notes),
                "parameters": {k: {"description": p.description, "default": p.default}
                               for k, p in self.parameters.items()}}

    def resolve(self, values: Mapping[str, Any]) -> dict[str, Fraction]:
        """Validated constants (exact); the class must be non-empty."""
        out = check_values(self.parameters, values, self.id)
        if out[self.constant] < out["mu"]:
            raise BadInput(f"--set {self.constant}", f"{self.constant} = {out[self.constant]} "
                           f"< μ = {out['mu']}: the class is empty ({self.constant} ≥ μ always)")
        return out

    def step_factor(self, gamma: float, mu: float, constant: float) -> float:
        """ρ: the one-step worst case of ‖z − z*‖² over the class (ζ = 0) [derived]."""
        if self.operator_class == "star":
            return max(1 - gamma * mu * (2 - gamma * constant), (1 - gamma * constant) ** 2)
        return 1 - 2 * gamma * mu + gamma**2 * constant**2

    def closed_form(self, name: QuantityName, values: Mapping[str, float],
                    rounds: int) -> tuple[float | None, str]:
        """The exact worst case where one is known [derived, module docstring], with its
        formula; (None, why not) elsewhere."""
        gamma, mu, k = values["gamma"], values["mu"], int(values["K"])
        constant, zeta, clients = values[self.constant], values["zeta"], int(values["n"])
        if name == "contraction":
            rho = self.step_factor(gamma, mu, constant)
            text = ("max{1 − γμ(2 − γℓ), (1 − γℓ)²}^(KR)" if self.operator_class == "star"
                    else "(1 − 2γμ + γ²L²)^(KR)")
            return rho ** (k * rounds), text
        if k == 1:
            return 0.0, "0 (K = 1 is GDA: z* is fixed)"
        if name == "fixed point":
            return None, "none known for K ≥ 2"
        if k == 2 and rounds == 1:
            if self.operator_class == "star" and constant >= 2 * mu:
                return gamma**4 * constant**2 * zeta**2 / 4, "γ⁴ℓ²ζ²/4 (K = 2, R = 1, ℓ ≥ 2μ)"
            if self.operator_class == "lipschitz" and clients == 2:
                return (gamma**4 * (constant**2 - mu**2) * zeta**2,
                        "γ⁴(L² − μ²)ζ² (K = 2, R = 1, n = 2)")
        known = "ℓ ≥ 2μ" if self.operator_class == "star" else "n = 2"
        return None, f"none known here (known: K = 1; K = 2, R = 1, {known})"

    def quantity_kind(self, name: QuantityName, local_steps: int, rounds: int) -> Kind:
        """``exact`` over the star class; over the Lipschitz class ``exact`` only when each
        operator is evaluated at two points, else ``upper bound``."""
        if self.operator_class == "star":
            return "exact"
        return "exact" if evaluation_points(name, local_steps, rounds) <= 2 else "upper bound"

    def solve(self, values: Mapping[str, Any], steps: int = 1, closed_scale: float = 1.0,
              tol: float = CLOSED_FORM_TOL, solvers: Sequence[str] = SOLVERS,
              quantities: Sequence[QuantityName] = QUANTITIES) -> LocalGdaResult:
        """The worst cases at ``values`` after ``steps`` = R rounds, each beside its closed form
        (multiplied by ``closed_scale``: a perturbation for tests and claims). Bad input raises
        :class:`BadInput`; a solver problem gives ``not solved`` with the reason."""
        if isinstance(steps, bool) or not isinstance(steps, int) or not \
                1 <= steps <= self.max_steps:
            raise BadInput("--steps", f"the rounds R of {self.id}: an integer from 1 to "
                           f"{self.max_steps}, got {steps!r}")
        if not (isinstance(closed_scale, (int, float)) and closed_scale > 0):
            raise BadInput("closed_scale", f"must be a positive number, got {closed_scale!r}")
        unknown = [q for q in quantities if q not in QUANTITIES]
        if unknown:
            raise BadInput("quantities", f"{unknown!r}; allowed: {', '.join(QUANTITIES)}")
        exact = self.resolve(values)
        numbers = {k: int(v) if self.parameters[k].integer else float(v)
                   for k, v in exact.items()}
        gamma, zeta = numbers["gamma"], numbers["zeta"]
        k, clients = int(numbers["K"]), int(numbers["n"])
        out = LocalGdaResult(self.id, numbers, steps)
        for name in quantities:
            unit = 1.0 if name == "contraction" else (gamma * zeta) ** 2
            build = local_gda(gamma, numbers["mu"], numbers[self.constant], k, steps, clients,
                              name, self.operator_class)
            outcome: SdpOutcome = sdp.solve(build, solvers)
            worst = None
            if outcome.solved and outcome.worst is not None:
                worst = max(outcome.worst, 0.0) * unit
            closed, text = self.closed_form(name, numbers, steps)
            if closed is not None:
                closed *= closed_scale
            comparison, deviation = _compare(worst, closed, unit, tol)
            description = {"contraction": f"‖z̄_R − z*‖²/‖z̄_0 − z*‖² at ζ = 0, R = {steps}",
                           "bias": f"max ‖z̄_R − z*‖² from z̄_0 = z*, R = {steps}",
                           "fixed point": "max ‖z̄ − z*‖² over fixed points of a round"}[name]
            out.quantities.append(Quantity(
                name, description, worst, closed, text, comparison, deviation,
                self.quantity_kind(name, k, steps), outcome.status, outcome.solver,
                outcome.gap, outcome.residuals, outcome.reason, unit))
        return out


def fit_exponents(rows: Sequence[Mapping[str, float]], target: str,
                  variables: Sequence[str]) -> dict[str, float]:
    """Least-squares exponents of ``target`` ≈ c·Π variable^exponent over ``rows`` (positive
    values only), by a linear fit in logarithms; ``constant`` is log c."""
    import numpy as np

    usable = [r for r in rows if r.get(target) is not None and r[target] > 0 and
              all(r[v] > 0 for v in variables)]
    if len(usable) <= len(variables):
        raise ValueError(f"too few positive rows ({len(usable)}) to fit {len(variables)} "
                         "exponents")
    design = np.array([[math.log(r[v]) for v in variables] + [1.0] for r in usable])
    response = np.array([math.log(r[target]) for r in usable])
    solution, *_ = np.linalg.lstsq(design, response, rcond=None)
    return {**{v: float(e) for v, e in zip(variables, solution, strict=False)},
            "constant": float(solution[-1])}


_GAMMA = PepParam("step size γ")
_MU = PepParam("strong monotonicity μ of each F_i (quasi-strong for the star class)")
_K = PepParam("local steps K per round (H of the algorithm unit local-gda)", integer=True, low=1,
               low_open=False, high=4)
_ZETA = PepParam("heterogeneity ζ: ‖F_i(z*)‖ ≤ ζ", default=1)
_N = PepParam("clients n sharing z* (Σ_i F_i(z*) = 0)", default=2, integer=True, low=2,
              low_open=False, high=4)
_SOURCE = ("ours: Local GDA is a baseline of ProxSkip-VIP (arXiv 2306.05100, Appendix G "
           "[L770]), which gives it no theorem")

LOCAL_GDA = LocalGdaModel(
    id="local-gda", title="Local GDA over the paper's class: contraction and heterogeneity bias",
    operator_class="star",
    class_text="each F_i μ-quasi-strongly monotone, ℓ-star-cocoercive around the shared z* "
               "(Assumption 4.1), ‖F_i(z*)‖ ≤ ζ, Σ_i F_i(z*) = 0",
    constant="ell", kind="exact",
    parameters={"gamma": _GAMMA, "mu": _MU, "ell": PepParam("star-cocoercivity ℓ (≥ μ)"),
                "K": _K, "zeta": _ZETA, "n": _N},
    source=_SOURCE,
    notes=("exact: the class is interpolable by its star conditions",))
LOCAL_GDA_LIPSCHITZ = LocalGdaModel(
    id="local-gda.lipschitz",
    title="Local GDA over strongly monotone Lipschitz operators (a smaller class than the "
          "paper's)",
    operator_class="lipschitz",
    class_text="each F_i μ-strongly monotone and L-Lipschitz (not the paper's class), "
               "‖F_i(z*)‖ ≤ ζ, Σ_i F_i(z*) = 0",
    constant="L", kind="upper bound",
    parameters={"gamma": _GAMMA, "mu": _MU, "L": PepParam("Lipschitz constant L (≥ μ)"),
                "K": _K, "zeta": _ZETA, "n": _N},
    source=_SOURCE,
    notes=("PEPit's pairwise conditions: an upper bound on this class's worst case, exact "
           "where each operator is evaluated at two points",))
MODELS: tuple[LocalGdaModel, ...] = (LOCAL_GDA, LOCAL_GDA_LIPSCHITZ)
