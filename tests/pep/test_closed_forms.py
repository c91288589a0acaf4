"""Self-checks of the PEP machinery against closed forms, at 1e-4 relative (Acceptance 1).

* GDA on μ-strongly monotone, L-Lipschitz operators, one step: the worst case of
  ‖z_1 − z*‖²/‖z_0 − z*‖² is 1 − 2γμ + γ²L². The upper bound is the textbook one-step bound
  (Facchinei & Pang 2003, Thm 12.1.2, as in docs/gda_theorem.py); it is attained by the linear
  operator F(z) = (μI + √(L² − μ²)K)(z − z*), K a rotation by π/2, so it is the exact worst
  case (tight, e.g. in the operator-splitting PEP framework of Ryu, Taylor, Bergeling,
  Giselsson, "Operator splitting performance estimation", SIAM J. Optim. 30(3), 2020). The
  instance is checked here with numpy, independently of the SDP.
* The same step over the paper's class (μ-QSM, ℓ-star-cocoercive; ProxSkip-VIP, arXiv
  2306.05100, Assumption 2.1.1): 1 − γμ(2 − γℓ) for γ ≤ 2/ℓ [derived: ⟨g, e⟩ = a ≥ μ,
  ‖g‖² ≤ ℓa, so ‖e − γg‖² ≤ 1 − 2γa + γ²ℓa ≤ 1 − γμ(2 − γℓ); attained by μI + sK with
  s² = ℓμ − μ², whose star-cocoercivity is (μ² + s²)/μ = ℓ — checked with numpy below].
* ProxSkip with p = 1 is GDA with the consensus projection (Section 3 after Algorithm 1
  [L119]; erratum p1-any-h): its worst case equals that of x ← Π(x − γF(x)) and the GDA value.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedbounds.verify.pep import methods, sdp

REL = 1e-4


def _rotation_instance(mu: float, s: float, gamma: float) -> tuple[float, float, float]:
    """(‖(I − γJ)e‖²/‖e‖² maximised over unit e, Lipschitz constant, star-cocoercivity) of
    J = μI + sK computed with numpy."""
    J = np.array([[mu, s], [-s, mu]])
    step = np.eye(2) - gamma * J
    contraction = float(np.linalg.norm(step, 2) ** 2)
    lipschitz = float(np.linalg.norm(J, 2))
    sym_inverse = (np.linalg.inv(J) + np.linalg.inv(J).T) / 2
    star = 1 / float(np.linalg.eigvalsh(sym_inverse).min())
    return contraction, lipschitz, star


@pytest.mark.parametrize(("gamma", "mu", "lipschitz"), [(0.1, 1.0, 3.0), (0.05, 0.5, 2.0),
                                                        (2 / 9, 1.0, 3.0)])
def test_gda_on_strongly_monotone_lipschitz_one_step(gamma, mu, lipschitz):
    assert gamma <= 2 * mu / lipschitz**2
    closed = 1 - 2 * gamma * mu + gamma**2 * lipschitz**2
    instance, lip, _ = _rotation_instance(mu, math.sqrt(lipschitz**2 - mu**2), gamma)
    assert lip == pytest.approx(lipschitz, rel=1e-12)
    assert instance == pytest.approx(closed, rel=1e-12)  # attained: the bound is tight
    out = sdp.solve(methods.gda(gamma, mu, lipschitz, 1, "lipschitz"))
    assert out.solved and out.status == "optimal", out.reason
    assert out.worst == pytest.approx(closed, rel=REL)
    assert out.dual == pytest.approx(closed, rel=REL)


@pytest.mark.parametrize(("gamma", "mu", "ell"), [(0.05, 1.0, 10.0), (0.1, 1.0, 10.0),
                                                  (0.15, 1.0, 10.0), (0.3, 2.0, 4.0)])
def test_gda_on_the_star_class_one_step(gamma, mu, ell):
    closed = 1 - gamma * mu * (2 - gamma * ell)
    instance, _, star = _rotation_instance(mu, math.sqrt(ell * mu - mu**2), gamma)
    assert star == pytest.approx(ell, rel=1e-12)
    assert instance == pytest.approx(closed, rel=1e-12)
    out = sdp.solve(methods.gda(gamma, mu, ell, 1, "star"))
    assert out.solved, out.reason
    assert out.worst == pytest.approx(closed, rel=REL)


@pytest.mark.parametrize("clients", [2, 3])
def test_proxskip_with_p_one_is_projected_gda(clients):
    gamma, mu, ell = 0.05, 1.0, 10.0
    closed = 1 - gamma * mu * (2 - gamma * ell)
    proxskip = sdp.solve(methods.proxskip(gamma, 1.0, mu, ell, 1, clients, "distance"))
    projected = sdp.solve(methods.gda(gamma, mu, ell, 1, "star", clients, projected=True))
    assert proxskip.solved and projected.solved
    assert proxskip.worst == pytest.approx(projected.worst, rel=REL)
    assert projected.worst == pytest.approx(closed, rel=REL)


def test_one_node_proxskip_with_p_one_is_proximal_gda():
    """With one node and a convex R, p = 1 is x⁺ = prox_{γR}(x − γF(x)); R = 0 is allowed, so
    the worst case is GDA's (the prox is nonexpansive, so it cannot be larger)."""
    gamma, mu, ell = 0.1, 1.0, 10.0
    out = sdp.solve(methods.proxskip(gamma, 1.0, mu, ell, 1, 1, "distance"))
    assert out.solved
    assert out.worst == pytest.approx(1 - gamma * mu * (2 - gamma * ell), rel=REL)


def test_two_gda_steps_on_the_star_class_are_the_square():
    """Two steps: the one-step worst case squared (the rotation instance repeats it), a check
    of the multi-step construction."""
    gamma, mu, ell = 0.05, 1.0, 10.0
    out = sdp.solve(methods.gda(gamma, mu, ell, 2, "star"))
    assert out.solved
    assert out.worst == pytest.approx((1 - gamma * mu * (2 - gamma * ell)) ** 2, rel=REL)


def _skipping_instance(gamma: float, p: float, mu: float) -> float:
    """E[V_1]/V_0 of one ProxSkip step (Algorithm 1, R = 0, F(z) = μ(z − z*)) from x_0 = z*
    with a wrong control variate h_0 = d, both coin branches averaged, computed with numpy."""
    d = np.array([1.0, -2.0])
    x_star = np.zeros(2)

    def lyapunov(x: np.ndarray, h: np.ndarray) -> float:
        return float(np.sum((x - x_star) ** 2) + (gamma / p) ** 2 * np.sum(h**2))

    x_hat = x_star - gamma * (mu * (x_star - x_star) - d)
    x_comm = x_hat - gamma / p * d  # prox of R = 0 is the identity
    h_comm = d + p / gamma * (x_comm - x_hat)
    expected = p * lyapunov(x_comm, h_comm) + (1 - p) * lyapunov(x_hat, d)
    return expected / lyapunov(x_star, d)


@pytest.mark.parametrize(("gamma", "p"), [(0.1, 0.3), (0.05, 0.1)])
def test_proxskip_lyapunov_ratio_equals_the_theorem_where_p_squared_binds(gamma, p):
    """Where p² ≤ γμ Theorem 3.1's factor is 1 − p² (ProxSkip-VIP, arXiv 2306.05100,
    Theorem 3.1), and it is attained: from x_0 = z* with h_0 − F(z*) = d, the expectation
    over the coin is (1 − p)(γ² + γ²/p²)‖d‖² + pγ²(1 − 1/p)²‖d‖² = (1 − p²)V_0 [derived;
    computed with numpy here]. So the exact worst case is 1 − p²."""
    mu, ell = 1.0, 10.0
    assert p**2 <= gamma * mu
    assert _skipping_instance(gamma, p, mu) == pytest.approx(1 - p**2, rel=1e-12)
    out = sdp.solve(methods.proxskip(gamma, p, mu, ell, 1, 1))
    assert out.solved
    assert out.worst == pytest.approx(1 - p**2, rel=REL)
