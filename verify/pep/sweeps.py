"""Sweeps over PEP models: contraction factors along a parameter, and the worst-case number of
communications to reach ε as a function of κ (ProxSkip-VIP, arXiv 2306.05100, Corollary 3.6
and the remark after it [L184]).

Communications from a one-step contraction factor ρ (E[V_{t+1}] ≤ ρ E[V_t] over the whole
class, tight): E[V_N] ≤ ρ^N V_0 ≤ ε V_0 once N ≥ ln(1/ε)/ln(1/ρ), and each iteration
communicates with probability p, so p·ln(1/ε)/ln(1/ρ) communications are expected.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from fedbounds import registry
from fedbounds.complexity import schedule_values
from fedbounds.errors import BadInput

from . import PepModel, PepResult, model, solve

#: How ℓ follows κ = L/μ (μ = 1): the paper's min-max substitution ℓ = κL = κ²μ (remark after
#: Corollary 3.6 [L184]; exact for J = μI + sK, erratum ell-kappa-L), or ℓ = L = κμ
#: (minimisation, the same remark).
Regime = Literal["minmax", "minimisation"]
REGIMES: dict[str, str] = {"minmax": "ℓ = κL = κ²μ (min-max, L-Lipschitz μ-strongly monotone)",
                           "minimisation": "ℓ = L = κμ (minimisation)"}


def communications(p: float, rate: float, epsilon: float) -> float:
    """Expected communications p·ln(1/ε)/ln(1/ρ) to E[V_N] ≤ ε V_0 at contraction ρ < 1."""
    if not 0 < rate < 1:
        return math.inf
    return p * math.log(1 / epsilon) / -math.log(rate)


@dataclass
class KappaRow:
    kappa: float
    ell: float
    gamma: float
    p: float
    worst_rate: float | None
    theorem_rate: float
    pep_communications: float | None
    theorem_communications: float
    result: PepResult

    def as_json(self) -> dict[str, Any]:
        return {"kappa": self.kappa, "ell": self.ell, "gamma": self.gamma, "p": self.p,
                "worst_rate": self.worst_rate, "theorem_rate": self.theorem_rate,
                "pep_communications": self.pep_communications,
                "theorem_communications": self.theorem_communications,
                "verdict": self.result.verdict, "status": self.result.status,
                "residual": self.result.residual}


@dataclass
class KappaSweep:
    theorem: str
    regime: str
    epsilon: float
    rows: list[KappaRow] = field(default_factory=list)

    def slope(self, which: Literal["pep", "theorem"] = "pep") -> float | None:
        """Least-squares slope of log(communications) against log κ."""
        pairs = [(r.kappa, r.pep_communications if which == "pep" else
                  r.theorem_communications) for r in self.rows]
        pairs = [(k, c) for k, c in pairs if c is not None and math.isfinite(c) and c > 0]
        if len(pairs) < 2:
            return None
        x, y = np.log([k for k, _ in pairs]), np.log([c for _, c in pairs])
        return float(np.polyfit(x, y, 1)[0])

    def as_json(self) -> dict[str, Any]:
        return {"theorem": self.theorem, "regime": self.regime,
                "ell_rule": REGIMES[self.regime], "epsilon": self.epsilon,
                "rows": [r.as_json() for r in self.rows], "pep_slope": self.slope("pep"),
                "theorem_slope": self.slope("theorem")}


def kappa_sweep(theorem_id: str | PepModel, kappas: Sequence[float], epsilon: float = 1e-6,
                regime: Regime = "minmax", rate_scale: float = 1.0) -> KappaSweep:
    """Worst-case communications to ε against κ with the theorem's schedule (Corollary 3.6:
    γ = 1/(2ℓ), p = √(γμ)) at μ = 1 and ℓ by ``regime``, from one-step PEP contraction
    factors beside the theorem's 1 − min{γμ, p²}."""
    pep_model = model(theorem_id) if isinstance(theorem_id, str) else theorem_id
    if regime not in REGIMES:
        raise BadInput("--regime", f"{regime!r}; allowed: {', '.join(REGIMES)}")
    if not 0 < epsilon < 1:
        raise BadInput("--set epsilon", f"ε must be in (0, 1), got {epsilon!r}")
    if not kappas or any(not (isinstance(k, (int, float)) and k >= 1) for k in kappas):
        raise BadInput("--kappas", f"κ values must be numbers ≥ 1, got {list(kappas)!r}")
    thm = registry.get(pep_model.theorem)
    if not thm.schedule:
        raise BadInput("ID", f"{thm.id} has no schedule (γ, p) to sweep κ with")
    out = KappaSweep(pep_model.theorem, regime, float(epsilon))
    for kappa in kappas:
        ell = kappa**2 if regime == "minmax" else kappa
        sched = schedule_values(thm, {"mu": 1.0, "ell": ell})
        gamma, p = sched["gamma"], sched["p"]
        # γ as the exact fraction it stands for (1/(2ℓ)), so the exact condition check holds
        values = {"gamma": Fraction(gamma).limit_denominator(10**12), "p": Fraction(p),
                  "mu": 1, "ell": Fraction(ell)}
        result = solve(pep_model, values, steps=1, rate_scale=rate_scale)
        worst = result.worst if result.verdict != "not solved" else None
        out.rows.append(KappaRow(
            float(kappa), float(ell), gamma, p, worst, result.theorem_value,
            None if worst is None else communications(p, worst, epsilon),
            communications(p, result.theorem_value, epsilon), result))
    return out
