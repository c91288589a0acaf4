"""Operator classes for PEPit as the ProxSkip-VIP paper assumes them (arXiv 2306.05100,
Assumption 2.1.1 and Assumption 4.1): conditions between a point and the solution only.

:class:`StarOperator` is μ-quasi-strongly monotone and ℓ-star-cocoercive around one reference
point z* (the solution):

    ⟨F(x) − F(z*), x − z*⟩ ≥ μ‖x − z*‖²   and   ⟨F(x) − F(z*), x − z*⟩ ≥ ‖F(x) − F(z*)‖²/ℓ.

The class is interpolable by these star conditions alone (for μ ≤ ℓ): values at finitely many
points that satisfy them extend to the whole space, e.g. by F(x) = F(z*) + c(x − z*) with
μ ≤ c ≤ ℓ away from those points [derived]. So a PEP over this class is exact, not a
relaxation. This module imports PEPit; import it only where PEPit is required.
"""

from __future__ import annotations

from PEPit import Function, Point
from PEPit.expression import Expression


class StarOperator(Function):
    """μ-quasi-strongly monotone, ℓ-star-cocoercive operator around a declared solution.

    Declare it with ``pep.declare_function(StarOperator, mu=μ, ell=ℓ)``, then name the solution
    with :meth:`set_solution` before evaluating the operator anywhere else."""

    def __init__(self, mu: float, ell: float, is_leaf: bool = True,
                 decomposition_dict: dict | None = None, reuse_gradient: bool = True,
                 name: str | None = None) -> None:
        super().__init__(is_leaf=is_leaf, decomposition_dict=decomposition_dict,
                         reuse_gradient=True, name=name)
        self.mu = float(mu)
        self.ell = float(ell)
        self.solution: Point | None = None

    def set_solution(self, point: Point, value: Point | None = None) -> Point:
        """Make ``point`` the reference z*; ``value`` is F(z*) (a new free point when None,
        e.g. a client's f_i(z*) ≠ 0 under heterogeneity). Returns F(z*)."""
        if self.solution is not None:
            raise ValueError("the solution of a StarOperator is already set")
        self.solution = point
        if value is None:
            return self.gradient(point)
        self.add_point((point, value, Expression()))
        return value

    def _quasi_strong_monotonicity(self, xi, gi, fi, xj, gj, fj):
        return (gi - gj) * (xi - xj) - self.mu * (xi - xj) ** 2 >= 0

    def _star_cocoercivity(self, xi, gi, fi, xj, gj, fj):
        return (gi - gj) * (xi - xj) - (gi - gj) ** 2 / self.ell >= 0

    def add_class_constraints(self) -> None:
        """The two star conditions between every evaluated point and the solution."""
        if self.solution is None:
            raise ValueError("StarOperator: call set_solution(z*) before solving")
        reference = [t for t in self.list_of_points if t[0] is self.solution]
        others = [t for t in self.list_of_points if t[0] is not self.solution]
        self.add_constraints_from_two_lists_of_points(
            others, reference[:1], "quasi_strong_monotonicity", self._quasi_strong_monotonicity)
        self.add_constraints_from_two_lists_of_points(
            others, reference[:1], "star_cocoercivity", self._star_cocoercivity)
