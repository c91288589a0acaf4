"""PEPs of the methods, as functions of their constants: each returns ``build()``, which makes a
fresh PEPit problem (initial condition, method steps, performance measure) for
:func:`fedbounds.verify.pep.sdp.solve`. PEPit is imported inside ``build`` only, so declaring
models does not need it.

* :func:`proxskip`: ProxSkip-GDA (Algorithm 1 with g = F) on one node with a proper convex R,
  or ProxSkip-GDA-FL (Algorithm 2 with g_i = f_i) on ``clients`` ≥ 2 nodes that share the
  solution z* (Σ_i f_i(z*) = 0, prox = averaging, one communication). The expectation over the
  coin θ_t ~ Bernoulli(p) is taken exactly as the weighted average over both branches (as
  PEPit's SGD example averages over samples): ``steps`` = N gives a tree of 2^N leaves.
* :func:`gda`: plain GDA z ← z − γF(z), or its consensus-projected FL form x ← Π(x − γF(x)).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

Measure = Literal["lyapunov", "distance"]
OperatorClass = Literal["star", "lipschitz"]


def _zero() -> Any:
    from PEPit import Point
    return Point(is_leaf=False, decomposition_dict={})


def _operators(pep: Any, count: int, mu: float, ell: float, anchored: bool) -> tuple:
    """``count`` star operators sharing z*; with ``anchored`` the last one's f(z*) makes
    Σ_i f_i(z*) = 0 (consensus optimality), without it F(z*) is free (one node with R)."""
    from PEPit import Point

    from .classes import StarOperator

    ops = [pep.declare_function(StarOperator, mu=mu, ell=ell) for _ in range(count)]
    z_star = Point()
    values = [op.set_solution(z_star) for op in ops[:-1]] if count > 1 else []
    if count > 1 or anchored:
        last = -sum(values[1:], values[0]) if values else _zero()
        values.append(ops[-1].set_solution(z_star, last))
    else:
        values.append(ops[-1].set_solution(z_star))
    return ops, z_star, values


def proxskip(gamma: float, p: float, mu: float, ell: float, steps: int = 1, clients: int = 1,
             measure: Measure = "lyapunov") -> Callable[[], Any]:
    """ProxSkip-GDA(-FL) over the μ-QSM, ℓ-star-cocoercive class (exact PEP).

    ``measure="lyapunov"``: maximise E[V_N] subject to V_0 ≤ 1, with
    V = Σ_i ‖x_i − z*‖² + (γ/p)² Σ_i ‖h_i − f_i(z*)‖² (ProxSkip-VIP, Theorem 3.1).
    ``measure="distance"``: maximise E Σ_i ‖x_{i,N} − z*‖² subject to Σ_i ‖x_{i,0} − z*‖² ≤ 1,
    the control variates starting at their fixed point h_{i,0} = f_i(z*).

    The SDP is built for F/ℓ with step γℓ (the same iterates and the same V, with h/ℓ in place
    of h) and with (γ/p)h as the free initial points, so that its entries are of order one
    whatever ℓ/μ is [derived]."""
    p = float(p)
    gamma, mu, ell = float(gamma) * float(ell), float(mu) / float(ell), 1.0

    def build() -> Any:
        from PEPit import PEP, Point
        from PEPit.expression import Expression
        from PEPit.functions import ConvexFunction

        pep = PEP()
        ops, z_star, h_star = _operators(pep, clients, mu, ell, anchored=False)
        regulariser = None
        if clients == 1:  # Algorithm 1 with a proper convex R: −F(z*) ∈ ∂R(z*)
            regulariser = pep.declare_function(ConvexFunction)
            regulariser.add_point((z_star, -h_star[0], Expression()))
        scale = gamma / p

        def lyapunov(xs: list, hs: list) -> Any:
            total = sum((x - z_star) ** 2 for x in xs)
            if measure == "lyapunov":
                total = total + scale**2 * sum((h - hs_) ** 2 for h, hs_ in zip(hs, h_star,
                                                                                  strict=True))
            return total

        xs = [Point() for _ in range(clients)]
        hs = ([Point() / scale for _ in range(clients)] if measure == "lyapunov" else
              list(h_star))
        pep.set_initial_condition(lyapunov(xs, hs) <= 1)

        def expected(xs: list, hs: list, left: int) -> Any:
            if left == 0:
                return lyapunov(xs, hs)
            hat = [x - gamma * (op.gradient(x) - h) for op, x, h in zip(ops, xs, hs, strict=True)]
            shifted = [x - scale * h for x, h in zip(hat, hs, strict=True)]
            if regulariser is not None:  # prox of (γ/p)R: y − x⁺ ∈ (γ/p)∂R(x⁺)
                subgradient = Point()
                new = [shifted[0] - scale * subgradient]
                regulariser.add_point((new[0], subgradient, Expression()))
            else:  # consensus prox: averaging (one communication)
                mean = sum(shifted[1:], shifted[0]) / clients
                new = [mean] * clients
            new_h = [h + (p / gamma) * (x - y) for h, x, y in zip(hs, new, hat, strict=True)]
            value = p * expected(new, new_h, left - 1)
            if p < 1:
                value = value + (1 - p) * expected(hat, hs, left - 1)
            return value

        pep.set_performance_metric(expected(xs, hs, steps))
        return pep

    return build


def gda(gamma: float, mu: float, constant: float, steps: int = 1,
        operator_class: OperatorClass = "lipschitz", clients: int = 1,
        projected: bool = False) -> Callable[[], Any]:
    """GDA: maximise ‖z_N − z*‖² subject to ‖z_0 − z*‖² ≤ 1.

    ``operator_class="lipschitz"``: μ-strongly monotone, ``constant``-Lipschitz (PEPit's
    pairwise constraints, necessary but not sufficient for interpolation (Ryu, Taylor,
    Bergeling, Giselsson, SIAM J. Optim. 2020): exact for one step (two points), an upper
    bound on the worst case for more). ``"star"``: μ-QSM and
    ``constant``-star-cocoercive (exact). With ``clients`` ≥ 2 and ``projected`` the step is
    x ← Π(x − γF(x)) for the consensus operator (Σ‖x_i − z*‖² measured). Built for
    F/``constant`` with step γ·``constant`` (the same iterates) [derived]."""
    gamma, mu, constant = float(gamma) * float(constant), float(mu) / float(constant), 1.0

    def build() -> Any:
        from PEPit import PEP, Expression, Point
        from PEPit.operators import LipschitzStronglyMonotoneOperatorCheap

        pep = PEP()
        if operator_class == "star":
            ops, z_star, _ = _operators(pep, clients, mu, constant, anchored=True)
        else:
            ops = [pep.declare_function(LipschitzStronglyMonotoneOperatorCheap, mu=mu,
                                         L=constant)
                   for _ in range(clients)]
            z_star = Point()
            values = [op.gradient(z_star) for op in ops[:-1]]
            last = -sum(values[1:], values[0]) if values else _zero()
            ops[-1].add_point((z_star, last, Expression()))
        xs = [Point() for _ in range(clients)]
        pep.set_initial_condition(sum((x - z_star) ** 2 for x in xs) <= 1)
        for _ in range(steps):
            xs = [x - gamma * op.gradient(x) for op, x in zip(ops, xs, strict=True)]
            if projected and clients > 1:
                xs = [sum(xs[1:], xs[0]) / clients] * clients
        pep.set_performance_metric(sum((x - z_star) ** 2 for x in xs))
        return pep

    return build
