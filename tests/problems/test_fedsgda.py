"""Instances of the FedSGDA claims (problems.fedsgda): F and the NC-PL gaps against their closed
forms (derived here), the curvature of Φ, the single-client reduction and the Φ-preserving κ
family of claim fedsgda.p8."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.problems.fedsgda import objective, one_client, phi_hessian_min, pl_gaps, scaled
from fedbounds.problems.minmax import make_game

GAME = {"M": 4, "a": 1.0, "a_ratio": 0.5, "bxy": 0.5, "mu": 0.5, "sigma_G": 0.0}


def test_objective_and_gaps_match_the_closed_forms():
    """Φ(x) = F(x, y*(x)) and Φ − F = ½(y − y*)ᵀC̄(y − y*) (derived here), so Δ_y at z_0 is that
    quadratic; Δ = Φ(x_0) − Φ(x*) ≥ 0 for the convex-in-x game."""
    g = make_game({**GAME, "sigma_G": 2.0}, 3)
    x0, y0 = g.z0[: g.dx], g.z0[g.dx:]
    ys = g.y_star(x0)
    assert objective(g, np.concatenate([x0, ys])) == pytest.approx(float(g.phi(x0)), rel=1e-12)
    C = g.mean_blocks()[2]
    Delta, Delta_y = pl_gaps(g)
    assert Delta_y == pytest.approx(0.5 * (y0 - ys) @ C @ (y0 - ys), rel=1e-12)
    assert Delta == pytest.approx(float(g.phi(x0) - g.phi(g.z_star()[: g.dx])), rel=1e-12)
    assert Delta > 0


def test_phi_hessian_min_from_the_affine_gradient():
    g = make_game(GAME, 1)
    cols = [g.grad_phi(e) - g.grad_phi(np.zeros(g.dx)) for e in np.eye(g.dx)]
    hess = np.array(cols).T
    assert phi_hessian_min(g) == pytest.approx(np.linalg.eigvalsh(0.5 * (hess + hess.T))[0],
                                               rel=1e-10)


def test_scaled_family_preserves_phi_and_scales_mu():
    """Claim fedsgda.p8 (our construction): C̄ → sC̄, B̄ → √sB̄, c̄ → √sc̄ leaves Φ unchanged and
    multiplies μ by s."""
    g = make_game(GAME, 0)
    h = scaled(g, 0.25)
    xs = np.random.default_rng(0).standard_normal((5, g.dx))
    np.testing.assert_allclose(h.phi(xs), g.phi(xs), rtol=1e-12)
    assert h.constants["mu"] == pytest.approx(0.25 * g.constants["mu"], rel=1e-12)
    assert h.constants["kappa"] > g.constants["kappa"]


def test_one_client_of_identical_clients():
    g = make_game(GAME, 0)
    g1 = one_client(g)
    assert g1.M == 1 and g1.p.tolist() == [1.0]
    z = np.random.default_rng(1).standard_normal(g.d)
    assert objective(g1, z) == pytest.approx(objective(g, z), rel=1e-12)
