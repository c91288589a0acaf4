"""Exact identities of the min-max algorithms (issue #5 acceptance 1; sagda.md §8 P2,
fed_norm_sgda.md §8 P3, fedsgda_m.md §8.3 P1) and exact constants of the games."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithms.fednorm import compile_fednorm
from fedbounds.verify.algorithms.fedsgda import compile_m, compile_plus
from fedbounds.verify.algorithms.sagda import compile_fsgda
from fedbounds.verify.minmax_common import sampled, signed, simulate

NOISY = {"M": 6, "sigma_x": 1.0, "sigma_y": 0.7, "sigma_G": 3.0, "beta_L": 0.3}


def _z(c, g, rounds=30, seed=3, R=5):
    tr = simulate(c, g, rounds, seed, R)
    return c.z_of(tr.state)


def test_sagda_option2_k1_equals_fsgda():
    g = make_game(NOISY)
    cfg = {"eta_xl": 0.05, "eta_yl": 0.2, "eta_xg": 1.5, "eta_yg": 0.8, "K": 1, "m": 3}
    a = _z(compile_fsgda(g, cfg, 5, 3, 0), g)
    b = _z(compile_fsgda(g, cfg, 5, 3, 2), g)
    assert np.max(np.abs(a - b)) < 1e-12
    # and they differ at K = 2 (the identity is not vacuous)
    cfg2 = {**cfg, "K": 2}
    assert np.max(np.abs(_z(compile_fsgda(g, cfg2, 5, 3, 0), g) - _z(compile_fsgda(g, cfg2, 5, 3, 2), g))) > 1e-6


def test_fednorm_equal_tau_equals_local_sgda():
    g = make_game({**NOISY, "p_skew": 0.5})
    for P in (6, 3):
        cfg = {"eta_cx": 0.03, "eta_cy": 0.05, "tau": 4, "P": P}
        a = _z(compile_fednorm(g, cfg, 5, 3, normalized=False), g)
        b = _z(compile_fednorm(g, cfg, 5, 3, normalized=True), g)
        assert np.max(np.abs(a - b)) < 1e-12
    # heterogeneous τ_i breaks it (naive averaging optimizes the mismatched objective)
    cfg = {"eta_cx": 0.03, "eta_cy": 0.05, "tau": [1, 2, 3, 4, 5, 6]}
    a = _z(compile_fednorm(g, cfg, 5, 3, normalized=False), g)
    b = _z(compile_fednorm(g, cfg, 5, 3, normalized=True), g)
    assert np.max(np.abs(a - b)) > 1e-6


def _gda(g, ex, ey, rounds, R=5):
    s = signed(g, ex, ey)
    Hb = np.einsum("m,mij->ij", g.p, g.H)
    hb = g.p @ g.h
    z = np.broadcast_to(g.z0, (R, g.d)).copy()
    for _ in range(rounds):
        z = z - s * (z @ Hb.T + hb)
    return z


@pytest.mark.parametrize("name", ["fsgda", "sagda1", "sagda2", "local-sgda", "fednorm-sgda",
                                  "local-sgda-plus", "fednorm-sgda-plus", "fedsgda-plus",
                                  "fedsgda-m"])
def test_k1_full_participation_noiseless_is_gda(name):
    g = make_game({"M": 5, "sigma_G": 2.0, "p_skew": 0.0 if name in ("fsgda", "sagda1", "sagda2",
                                                                      "fedsgda-plus", "fedsgda-m")
                   else 0.7})
    ex, ey = 0.06, 0.3
    if name in ("fsgda", "sagda1", "sagda2"):
        c = compile_fsgda(g, {"eta_xl": 0.03, "eta_yl": 0.1, "eta_xg": 2.0, "eta_yg": 3.0, "K": 1},
                          5, 0, {"fsgda": 0, "sagda1": 1, "sagda2": 2}[name])
    elif name.startswith(("local", "fednorm")):
        cfg = {"eta_cx": ex, "eta_cy": ey, "tau": 1, "S": 1}
        if name.startswith("fednorm"):
            cfg = {"eta_cx": 0.5, "eta_cy": 0.01, "gamma_sx": ex, "gamma_sy": ey, "tau": 1, "S": 1}
        c = compile_fednorm(g, cfg, 5, 0, normalized=name.startswith("fednorm"),
                            plus=name.endswith("plus"))
    elif name == "fedsgda-plus":
        c = compile_plus(g, {"c_hat": 0.03, "c": 0.1, "eta_x": 2.0, "eta_y": 3.0, "Q": 1, "S": 1}, 5)
    else:
        c = compile_m(g, {"c_hat": 0.6, "c": 3.0, "eta": 0.1, "alpha": 1.0, "beta": 1.0, "Q": 1}, 5)
    assert np.max(np.abs(_z(c, g, 25) - _gda(g, ex, ey, 25))) < 1e-12


def test_fedsgda_m_average_invariant_in_q_and_zeta():
    """fedsgda_m.md P1: on common Hessians with additive noise, x̄_t does not depend on Q, ζ."""
    ref = None
    for Q in (1, 5, 20):
        for sG in (0.0, 3.0):
            g = make_game({"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": sG})
            c = compile_m(g, {"c_hat": 0.5, "c": 2.0, "eta": 0.05, "alpha": 0.3, "beta": 0.2, "Q": Q}, 4)
            tr = simulate(c, g, 60, 1, 4)
            gp = tr.metrics["grad_phi_sq"]
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
    c = compile_fsgda(g, {"eta_xl": 0.05, "eta_yl": 0.5, "K": 3}, 2)
    tr = simulate(c, g, 20, 0, 2)
    assert np.all(np.linalg.norm(tr.state[0][:, 2:], axis=1) <= np.sqrt(2.0) + 1e-12)
    assert np.all(np.isfinite(tr.metrics["grad_phi_sq"]))
