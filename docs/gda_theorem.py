"""Your own theorem in one file: textbook GDA on a μ-strongly-monotone, L-Lipschitz operator.

If γ ≤ μ/L², then ‖z_T − z*‖² ≤ (1 − γμ)^T ‖z_0 − z*‖² (e.g. Facchinei & Pang 2003,
Thm 12.1.2): one step gives ‖z − γF(z) − z*‖² ≤ (1 − 2γμ + γ²L²)‖z − z*‖² and γ²L² ≤ γμ.
Use it with ``fedbounds check docs/gda_theorem.py:gda.thm1 --set …`` (docs/tutorial.md).
"""

import sympy as sp

from fedbounds import NONNEGATIVE, POSITIVE, POSITIVE_INTEGER, Condition, Notation, Term, Theorem

PAPER = {"key": "gda", "title": "Gradient descent-ascent on a strongly monotone operator",
         "authors": "textbook", "venue": "fedbounds tutorial"}

N = Notation("gda")
gamma = N.add("gamma", POSITIVE, "step size γ", r"\gamma")
mu = N.add("mu", POSITIVE, "strong monotonicity μ of F", r"\mu")
L = N.add("L", POSITIVE, "Lipschitz constant L of F", "L")
T = N.add("T", POSITIVE_INTEGER, "number of iterations T", "T")
D_0 = N.add("D_0", NONNEGATIVE, "initial squared distance ‖z_0 − z*‖²", "D_0")
epsilon = N.add("epsilon", POSITIVE, "target accuracy ε", r"\varepsilon")
kappa = N.add("kappa", POSITIVE, "condition number κ = L/μ", r"\kappa")

THEOREMS = [Theorem(
    id="gda.thm1", paper="gda", title="Linear rate of GDA", source="Theorem 1",
    statement="If γ ≤ μ/L², then ‖z_T − z*‖² ≤ (1 − γμ)^T ‖z_0 − z*‖².",
    notation=N,
    assumptions=["F is μ-strongly monotone", "F is L-Lipschitz"],
    derived={kappa: L / mu},                                   # computed, never asked for
    conditions=[Condition("gamma <= mu/L^2", sp.Le(gamma, mu / L**2), "Theorem 1")],
    bound_lhs="‖z_T − z*‖²",
    bound=[Term("contraction", (1 - gamma * mu) ** T * D_0, "Theorem 1")],
    schedule={gamma: mu / L**2}, schedule_source="Theorem 1 (the largest γ)",
    costs={"iterations": T},                                   # what T_ε is turned into
    claimed={"iterations": kappa**2 * sp.log(1 / epsilon)},    # the order the text claims
    claimed_source="Theorem 1",
    horizon=T, accuracy=epsilon,
    regime=[sp.Ge(L, mu)],                                     # L ≥ μ always holds
    fixed_in_orders={D_0: sp.Integer(1)},                      # constants dropped by O(·)
)]
