"""PEP models of ProxSkip-VIP (Zhang, Choudhury, Stich, Loizou; arXiv 2306.05100): Theorem 3.1
and Corollary 3.6 (ProxSkip-GDA, Algorithm 1 with g = F; one node with a proper convex R, or
the FL form) and Theorem 4.2 in its deterministic case (ProxSkip-GDA-FL, Algorithm 2 with
g_i = f_i, n clients sharing z*), with the corrected variants.

The class is the paper's: μ-quasi-strongly monotone and ℓ-star-cocoercive around the solution
(Assumption 2.1.1; per client around the global z*, Assumption 4.1), exact for PEP (see
:mod:`fedbounds.verify.pep.classes`). The measure is the theorem's own: E[V_N] with
V = ‖x − x*‖² + (γ/p)²‖h − F(x*)‖² (Theorem 3.1 [L140]; σ_t ≡ 0 for g = F) from V_0 ≤ 1, so
N = 1 gives the Lyapunov ratio of one step. The theorem's value comes from the encoded
statement at T = N and V_0 = 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from fedbounds.errors import BadInput
from fedbounds.verify.pep import PepModel, PepParam, methods

ONE, ZERO = Fraction(1), Fraction(0)
CLASS = "μ-quasi-strongly monotone, ℓ-star-cocoercive around z* (Assumption 2.1.1 / 4.1)"
MEASURE = ("E[V_N] / V_0 with V = Σ‖x_i − z*‖² + (γ/p)²Σ‖h_i − f_i(z*)‖² (Theorem 3.1 [L140]), "
           "the coin's expectation exact (both branches)")

GAMMA = PepParam("step size γ")
P = PepParam("communication probability p", high=1.0)
MU = PepParam("quasi-strong monotonicity μ")
ELL = PepParam("star-cocoercivity ℓ (≥ μ)")
NODES = PepParam("clients n (1: one node with a proper convex R; ≥ 2: FL, prox = averaging)",
                 default=1, integer=True, high=4)
CLIENTS = PepParam("clients n sharing z* (consensus prox = averaging)", default=2,
                   integer=True, low=2, low_open=False, high=4)


def _class_nonempty(values: Mapping[str, Fraction]) -> None:
    if values["ell"] < values["mu"]:
        raise BadInput("--set ell", f"ℓ = {values['ell']} < μ = {values['mu']}: no operator is "
                       "μ-quasi-strongly monotone and ℓ-star-cocoercive (ℓ ≥ μ always)")


def _thm31_values(values: Mapping[str, Fraction], steps: int) -> dict[str, Fraction]:
    """Theorem 3.1 with g = F: Assumption 2.2 holds with A = ℓ/2 (‖F(x) − F(x*)‖² ≤ ℓ⟨·⟩,
    erratum cor3.6-step), B = C = D_1 = D_2 = 0, ρ = 1, σ_t ≡ 0, any M > 0 (M = 1)."""
    _class_nonempty(values)
    return {"gamma": values["gamma"], "p": values["p"], "mu": values["mu"],
            "A": values["ell"] / 2, "B": ZERO, "C": ZERO, "D_1": ZERO, "D_2": ZERO, "rho": ONE,
            "M": ONE, "T": Fraction(steps), "V_0": ONE}


def _cor36_values(values: Mapping[str, Fraction], steps: int) -> dict[str, Fraction]:
    _class_nonempty(values)
    return {k: values[k] for k in ("gamma", "p", "mu", "ell")} | {"T": Fraction(steps),
                                                                  "V_0": ONE}


def _thm42_values(values: Mapping[str, Fraction], steps: int) -> dict[str, Fraction]:
    """Theorem 4.2, deterministic case: σ_* = 0 and L_g = ℓ (Section 3.2 (ii) [L178]); ε does
    not enter the bound and its cap με/(8σ_*²) is void at σ_* = 0 (ε = 1)."""
    _class_nonempty(values)
    return {"gamma": values["gamma"], "mu": values["mu"], "L_g": values["ell"],
            "sigma_star": ZERO, "epsilon": ONE, "T": Fraction(steps), "V_0": ONE}


def _proxskip_build(values: Mapping[str, float], steps: int) -> Any:
    return methods.proxskip(values["gamma"], values["p"], values["mu"], values["ell"], steps,
                            clients=int(values.get("n", 1)))


_ONE_NODE = {"gamma": GAMMA, "p": P, "mu": MU, "ell": ELL, "n": NODES}
_METHOD = ("ProxSkip-GDA (Algorithm 1, g = F): x̂ = x − γ(F(x) − h); with probability p "
           "x⁺ = prox_{(γ/p)R}(x̂ − (γ/p)h), else x⁺ = x̂; h⁺ = h + (p/γ)(x⁺ − x̂)")
_FL_METHOD = ("ProxSkip-GDA-FL (Algorithm 2, g_i = f_i), p = √(γμ) from the theorem: the "
              "prox is the average over the clients (one communication)")

thm31 = PepModel(
    theorem="proxskip.thm3.1", title="ProxSkip-GDA, deterministic case of Theorem 3.1",
    method=_METHOD, operator_class=CLASS + "; R proper, lsc, convex (n = 1)", measure=MEASURE,
    parameters=_ONE_NODE, theorem_values=_thm31_values, build=_proxskip_build,
    source="ProxSkip-VIP (arXiv 2306.05100), Theorem 3.1 [L138–L142] with g = F",
    notes=("Theorem 3.1's inputs: A = ℓ/2 (g = F), B = C = D_1 = D_2 = 0, ρ = 1, M = 1; its "
           "conditions then read γ ≤ min{1/μ, 1/ℓ}.",))
cor36 = PepModel(
    theorem="proxskip.cor3.6", title="ProxSkip-GDA, Corollary 3.6 (γ ≤ 1/(2ℓ))",
    method=_METHOD, operator_class=thm31.operator_class, measure=MEASURE,
    parameters=_ONE_NODE, theorem_values=_cor36_values, build=_proxskip_build,
    source="ProxSkip-VIP (arXiv 2306.05100), Corollary 3.6 [L180–L182]")
cor36_corrected = PepModel(
    theorem="proxskip.cor3.6.corrected", title="ProxSkip-GDA, Corollary 3.6 corrected "
    "(γ ≤ 1/ℓ)", method=_METHOD, operator_class=thm31.operator_class, measure=MEASURE,
    parameters=_ONE_NODE, theorem_values=_cor36_values, build=_proxskip_build,
    source="ProxSkip-VIP (arXiv 2306.05100), Corollary 3.6 [L182], erratum cor3.6-step")
thm42 = PepModel(
    theorem="proxskip.thm4.2", title="ProxSkip-GDA-FL, deterministic case of Theorem 4.2",
    method=_FL_METHOD, operator_class=CLASS + ", each client around the shared z*",
    measure=MEASURE, parameters={"gamma": GAMMA, "mu": MU, "ell": ELL, "n": CLIENTS},
    theorem_values=_thm42_values, build=_proxskip_build,
    source="ProxSkip-VIP (arXiv 2306.05100), Theorem 4.2 [L236–L238], deterministic case "
           "[L240]; p = √(γμ) (Corollary 3.5 [L174], Appendix G [L786])")
thm42_corrected = PepModel(
    theorem="proxskip.thm4.2.corrected", title="ProxSkip-GDA-FL, Theorem 4.2 corrected, "
    "deterministic case", method=_FL_METHOD, operator_class=thm42.operator_class,
    measure=MEASURE, parameters=thm42.parameters, theorem_values=_thm42_values,
    build=_proxskip_build, source=thm42.source + "; erratum cor3.5-eps-factor (void at σ_* = 0)")
