"""The PEP model of the tutorial's theorem, in a file of its own: docs/gda_theorem.py stays free
of numeric imports (a theorem never imports the numeric side); this file imports both.

GDA's exact one-step worst case over μ-strongly monotone, L-Lipschitz operators is
1 − 2γμ + γ²L² (PEPit's pairwise conditions are exact for two points), beside the theorem's
1 − γμ. Use it with ``fedbounds pep --theorems docs/gda_pep.py gda.thm1 --set …``
(docs/tutorial.md).
"""

from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from fedbounds import BadInput, load_file
from fedbounds.verify.pep import PepModel, PepParam, methods

# the theorem, loaded once: loading docs/gda_theorem.py too gives the same objects
THEOREMS = load_file(Path(__file__).with_name("gda_theorem.py"))


def theorem_values(values: Mapping[str, Fraction], steps: int) -> dict[str, Fraction]:
    """The model's constants → the theorem's inputs, from the normalised start D_0 = 1."""
    if values["L"] < values["mu"]:
        raise BadInput("--set L", "L ≥ μ for every μ-strongly monotone L-Lipschitz operator")
    return {"gamma": values["gamma"], "mu": values["mu"], "L": values["L"],
            "T": Fraction(steps), "D_0": Fraction(1)}


def build(values: Mapping[str, float], steps: int) -> Callable[[], Any]:
    """The PEP: GDA's steps over the class, measure ‖z_N − z*‖² from ‖z_0 − z*‖² ≤ 1."""
    return methods.gda(values["gamma"], values["mu"], values["L"], steps, "lipschitz")


PEP_MODELS = [PepModel(
    theorem="gda.thm1", title="GDA over μ-strongly monotone, L-Lipschitz operators",
    method="z ← z − γF(z)", operator_class="μ-strongly monotone, L-Lipschitz",
    measure="‖z_1 − z*‖² / ‖z_0 − z*‖²",
    parameters={"gamma": PepParam("step size γ"), "mu": PepParam("strong monotonicity μ"),
                "L": PepParam("Lipschitz constant L")},
    theorem_values=theorem_values, build=build, max_steps=1, source="Theorem 1")]
