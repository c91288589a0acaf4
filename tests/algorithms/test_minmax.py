"""Exact identities across the federated min-max algorithms and exact constants of the games
(SAGDA §8 P2: Option II with K = 1 is FSGDA; Fed-Norm-SGDA §8 P3: equal τ makes Fed-Norm equal
to Local SGDA; FedSGDA §8.3 P1: x̄_t does not depend on Q or ζ with common Hessians; every
method with one local step, full participation and no noise is GDA)."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.problems.minmax import make_game
from fedbounds.verify import catalog
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.minmax import sampled, signed

NOISY = {"M": 6, "sigma_x": 1.0, "sigma_y": 0.7, "sigma_G": 3.0, "beta_L": 0.3}


def _z(name: str, game, config: dict, rounds: int = 30, seed: int = 3, replicas: int = 5):
    method = catalog.algorithms()[name].method(game, config)
    return simulate(method, rounds, replicas=replicas, seed=seed).state.z


def test_sagda_option2_k1_equals_fsgda():
    g = make_game(NOISY)
    cfg = {"eta_xl": 0.05, "eta_yl": 0.2, "eta_xg": 1.5, "eta_yg": 0.8, "K": 1, "m": 3}
    assert np.max(np.abs(_z("fsgda", g, cfg) - _z("sagda2", g, cfg))) < 1e-12
    cfg2 = {**cfg, "K": 2}  # and they differ at K = 2 (the identity is not vacuous)
    assert np.max(np.abs(_z("fsgda", g, cfg2) - _z("sagda2", g, cfg2))) > 1e-6


def test_fednorm_equal_tau_equals_local_sgda():
    g = make_game({**NOISY, "p_skew": 0.5})
    for P in (6, 3):
        cfg = {"eta_cx": 0.03, "eta_cy": 0.05, "tau": 4, "P": P}
        assert np.max(np.abs(_z("local-sgda", g, cfg) - _z("fednorm-sgda", g, cfg))) < 1e-12
    # heterogeneous τ_i = 1..6 breaks it (naive averaging optimizes the mismatched objective)
    cfg = {"eta_cx": 0.03, "eta_cy": 0.05, "tau": 1, "tau_max": 6}
    assert np.max(np.abs(_z("local-sgda", g, cfg) - _z("fednorm-sgda", g, cfg))) > 1e-6


def _gda(g, ex, ey, rounds, replicas=5):
    """Independent GDA on the weighted game: z ← z − s ⊙ (H̄z + h̄)."""
    s = signed(g, ex, ey)
    Hb = np.einsum("m,mij->ij", g.p, g.H)
    hb = g.p @ g.h
    z = np.broadcast_to(g.z0, (replicas, g.d)).copy()
    for _ in range(rounds):
        z = z - s * (z @ Hb.T + hb)
    return z


ONE_STEP = {  # configurations with one local step whose round is GDA with (η_x, η_y) = (0.06, 0.3)
    "fsgda": {"eta_xl": 0.03, "eta_yl": 0.1, "eta_xg": 2.0, "eta_yg": 3.0, "K": 1},
    "sagda1": {"eta_xl": 0.03, "eta_yl": 0.1, "eta_xg": 2.0, "eta_yg": 3.0, "K": 1},
    "sagda2": {"eta_xl": 0.03, "eta_yl": 0.1, "eta_xg": 2.0, "eta_yg": 3.0, "K": 1},
    "local-sgda": {"eta_cx": 0.06, "eta_cy": 0.3, "tau": 1, "S": 1},
    "local-sgda-plus": {"eta_cx": 0.06, "eta_cy": 0.3, "tau": 1, "S": 1},
    "fednorm-sgda": {"eta_cx": 0.5, "eta_cy": 0.01, "gamma_sx": 0.06, "gamma_sy": 0.3, "tau": 1,
                     "S": 1},
    "fednorm-sgda-plus": {"eta_cx": 0.5, "eta_cy": 0.01, "gamma_sx": 0.06, "gamma_sy": 0.3,
                          "tau": 1, "S": 1},
    "fedsgda-plus": {"c_hat": 0.03, "c": 0.1, "eta_x": 2.0, "eta_y": 3.0, "Q": 1, "S": 1},
    "fedsgda-m": {"c_hat": 0.6, "c": 3.0, "eta": 0.1, "alpha": 1.0, "beta": 1.0, "Q": 1},
}


@pytest.mark.parametrize("name", sorted(ONE_STEP))
def test_one_local_step_full_participation_noiseless_is_gda(name):
    weighted = catalog.algorithms()[name].paper == "fednorm"
    g = make_game({"M": 5, "sigma_G": 2.0, "p_skew": 0.7 if weighted else 0.0})
    assert np.max(np.abs(_z(name, g, ONE_STEP[name], 25, 0) - _gda(g, 0.06, 0.3, 25))) < 1e-12


def test_fedsgda_m_average_invariant_in_q_and_zeta():
    ref = None
    for Q in (1, 5, 20):
        for sigma_G in (0.0, 3.0):
            g = make_game({"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": sigma_G})
            method = catalog.algorithms()["fedsgda-m"].method(
                g, {"c_hat": 0.5, "c": 2.0, "eta": 0.05, "alpha": 0.3, "beta": 0.2, "Q": Q})
            gp = simulate(method, 60, replicas=4, seed=1).metrics["grad_phi_sq"]
            ref = gp if ref is None else ref
            assert np.max(np.abs(gp - ref)) < 1e-10


def test_sampling_without_replacement_uniform():
    rng = np.random.default_rng(0)
    idx = sampled(rng.random((20000, 7)), 3)
    assert all(len(set(r)) == 3 for r in idx[:200])
    freq = np.bincount(idx.ravel(), minlength=7) / idx.size
    assert np.max(np.abs(freq - 1 / 7)) < 0.01


def test_game_constants_exact():
    g = make_game({"M": 8, "sigma_G": 2.5, "p_skew": 0.3})
    het = g.heterogeneity()
    assert het["sigma_xG_sq"] == pytest.approx(6.25, rel=1e-12)
    assert het["sigma_yG_sq"] == pytest.approx(6.25, rel=1e-12)
    g2 = make_game({"M": 8, "sigma_G": 100.0, "p_skew": 0.3})
    assert g.constants["L_f"] == g2.constants["L_f"] and g.constants["mu"] == g2.constants["mu"]
    # ∇Φ against a central difference of Φ, and ∇Φ(x*) = 0 at the saddle
    x = np.array([0.3, -0.7])
    e = 1e-6
    fd = np.array([(g.phi(x + e * u) - g.phi(x - e * u)) / (2 * e) for u in np.eye(2)])
    assert np.allclose(fd, g.grad_phi(x), atol=1e-7)
    assert np.linalg.norm(g.grad_phi(g.z_star()[:2])) < 1e-12


def test_cos_variant_stationary_points_and_lf():
    g = make_game({"M": 3, "lam": 2.0, "a": 0.5})
    pts = g.stationary_points(starts=16)
    assert len(pts) >= 1
    assert np.max(np.linalg.norm(g.grad_phi(pts), axis=1)) < 1e-10
    assert g.constants["L_f"] > make_game({"M": 3, "a": 0.5}).constants["L_f"]


def test_ncc_variant_projection_and_moreau():
    g = make_game({"M": 3, "radius": 2.0, "mu": 0.0})
    method = catalog.algorithms()["fsgda"].method(g, {"eta_xl": 0.05, "eta_yl": 0.5, "K": 3})
    tr = simulate(method, 20, replicas=2, seed=0)
    assert np.all(np.linalg.norm(tr.state.z[:, 2:], axis=1) <= np.sqrt(2.0) + 1e-12)
    assert np.all(np.isfinite(tr.metrics["grad_phi_sq"]))
