"""The plugin paper's PEP model: Theorem 1's GDA over its own class, μ-strongly monotone and
L-Lipschitz operators, one step. For two points (z_0 and z*) PEPit's pairwise conditions
⟨g, e⟩ ≥ μ‖e‖², ‖g‖ ≤ L‖e‖ are interpolated exactly by the linear map with matrix
[[a, −b], [b, a]] in the basis (e, e⊥), so the one-step SDP value is the exact worst case
1 − 2γμ + γ²L²."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from fedbounds.errors import BadInput
from fedbounds.verify.pep import PepModel, PepParam, methods


def _theorem_values(values: Mapping[str, Fraction], steps: int) -> dict[str, Fraction]:
    if values["L"] < values["mu"]:
        raise BadInput("--set L", "L ≥ μ for every μ-strongly monotone L-Lipschitz operator")
    return {"gamma": values["gamma"], "mu": values["mu"], "L": values["L"],
            "T": Fraction(steps), "D_0": Fraction(1)}


def _build(values: Mapping[str, float], steps: int) -> Any:
    return methods.gda(values["gamma"], values["mu"], values["L"], steps, "lipschitz")


GDA_PEP = PepModel(
    theorem="gda.thm1", title="GDA over μ-strongly monotone, L-Lipschitz operators",
    method="z ← z − γF(z)", operator_class="μ-strongly monotone, L-Lipschitz",
    measure="‖z_1 − z*‖² / ‖z_0 − z*‖²",
    parameters={"gamma": PepParam("step size γ"), "mu": PepParam("strong monotonicity μ"),
                "L": PepParam("Lipschitz constant L")},
    theorem_values=_theorem_values, build=_build, max_steps=1, source="Theorem 1")
