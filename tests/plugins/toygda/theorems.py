"""Textbook GDA on a μ-strongly-monotone, L-Lipschitz operator F (e.g. Facchinei & Pang 2003,
Thm 12.1.2; Nesterov 2018, Thm 2.1.15 for the gradient case): with γ ≤ μ/L²,
‖z_T − z*‖² ≤ (1 − γμ)^T ‖z_0 − z*‖², since ‖z − γF(z) − z*‖² ≤ (1 − 2γμ + γ²L²)‖z − z*‖² and
γ²L² ≤ γμ."""

from __future__ import annotations

import sympy as sp

from fedbounds.model import (
         NONNEGATIVE,
         POSITIVE,
         POSITIVE_INTEGER,
         Condition,
         Notation,
         Term,
         Theorem,
)

PAPER = {"key": "toygda", "title": "Gradient descent-ascent on a strongly monotone operator",
         "authors": "textbook", "venue": "test paper (tests/plugins)"}

N = Notation("toygda")
gamma = N.add("gamma", POSITIVE, "step size γ", r"\gamma")
mu = N.add("mu", POSITIVE, "strong monotonicity μ", r"\mu")
L = N.add("L", POSITIVE, "Lipschitz constant L", "L")
T = N.add("T", POSITIVE_INTEGER, "iterations T", "T")
D_0 = N.add("D_0", NONNEGATIVE, "initial distance ‖z_0 − z*‖²", "D_0")
epsilon = N.add("epsilon", POSITIVE, "accuracy ε", r"\varepsilon")
kappa = N.add("kappa", POSITIVE, "condition number κ = L/μ", r"\kappa")

THEOREMS = [Theorem(
    id="toygda.thm1", paper="toygda", title="Linear rate of GDA", source="Theorem 1",
    statement="If γ ≤ μ/L², then ‖z_T − z*‖² ≤ (1 − γμ)^T ‖z_0 − z*‖².",
    notation=N, assumptions=["F μ-strongly monotone", "F L-Lipschitz"],
    derived={kappa: L / mu},
    conditions=[Condition("gamma <= mu/L^2", sp.Le(gamma, mu / L**2), "Theorem 1")],
    bound_lhs="‖z_T − z*‖²",
    bound=[Term("contraction", (1 - gamma * mu) ** T * D_0, "Theorem 1")],
    schedule={gamma: mu / L**2}, schedule_source="Theorem 1 (largest γ)",
    costs={"iterations": T}, claimed={"iterations": kappa**2 * sp.log(D_0 / epsilon)},
    claimed_source="Theorem 1", horizon=T, accuracy=epsilon, regime=[sp.Ge(L, mu)],
    fixed_in_orders={D_0: sp.Integer(1)}, algorithms=["toy-gda"])]
