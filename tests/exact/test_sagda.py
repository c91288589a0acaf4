"""Exact analysis for SAGDA / FSGDA (verify/exact/sagda.py): the effective-step identity, the
round-map floors, the lemma right-hand sides, the drift cap and the engine-derived steps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedbounds import registry
from fedbounds.problems.minmax import make_game
from fedbounds.problems.sagda import abstract_inputs
from fedbounds.verify.algorithms.sagda import FSGDA, SAGDA_I, SAGDA_II, steps_for
from fedbounds.verify.exact.sagda import (
    drift_cap,
    effective_step_error,
    fixed_point_grad_phi_sq,
    lemma_rhs,
    max_steps,
    phi_constant_ratios,
    sampling_floor,
    theorem_bound,
    two_time_scale_ratio,
)


def test_effective_step_identity_holds_for_all_three_algorithms():
    """Δx = −η_{x,l}η_{x,g}K·(average direction) (Appendix B.1 update rule [L512–L513]), m < M,
    K = 3; heterogeneous Hessians for FSGDA and Option II (Option I's control variates sit at z_0,
    which the identity's v_i = ∇f_i(z_t) matches only for identical Hessians)."""
    cfg = {"eta_xl": 0.04, "eta_yl": 0.06, "eta_xg": 1.3, "eta_yg": 0.7, "K": 3, "m": 3}
    S = np.array([0, 1, 4])
    for option, alg in enumerate((FSGDA, SAGDA_I, SAGDA_II)):
        g = make_game({"M": 5, "sigma_G": 2.0, "hess_spread": 0.0 if option == 1 else 0.3}, 3)
        Z = np.random.default_rng(0).standard_normal((4, g.d))
        assert effective_step_error(alg.method(g, cfg), g, Z, S, cfg, option) < 1e-12, alg.name
        # the same identity with an extra factor K (η_x = η_lη_gK) is far off
        wrong = {**cfg, "eta_xg": cfg["eta_xg"] * 3, "eta_yg": cfg["eta_yg"] * 3}
        assert effective_step_error(alg.method(g, cfg), g, Z, S, wrong, option) > 1e-3


def test_sampling_floor_at_full_participation_is_the_fixed_point():
    """m = M: one client set, no sampling randomness; the stationary E‖∇Φ‖² is ‖∇Φ(x_fp)‖²."""
    g = make_game({"M": 4, "sigma_G": 2.0, "hess_spread": 0.3}, 0)
    method = FSGDA.method(g, steps_for(0.02, 0.2, 5.0, 2))
    assert sampling_floor(method, g, 4) == pytest.approx(fixed_point_grad_phi_sq(method, g),
                                                         rel=1e-9)
    assert fixed_point_grad_phi_sq(method, g) > 0  # heterogeneous drift: a bias


def test_lemma_right_hand_sides_by_hand():
    """Lemma 4 [L603], the sampling bound of the proof of Theorem 2 [L640] and Lemma 1
    [L526–L536] (Appendix B.1)."""
    base = {"K": 4, "M": 6, "m": 3, "eta_xl": 0.1, "eta_yl": 0.2, "sigma_x": 1.0, "sigma_y": 2.0}
    drift = lemma_rhs("Lemma 4 drift", {**base, "g_xi2": 3.0, "g_yi2": 5.0})
    assert drift == pytest.approx(20 * 16 * (0.01 * 3 + 0.04 * 5) + 5 * 4 * (0.01 + 0.04 * 4))
    assert lemma_rhs("sampling", {**base, "g_x2": 2.0, "sigma_xG": 3.0}) == pytest.approx(
        2 * 2 + 2 * 0.5 * 9 / 3)
    assert lemma_rhs("Lemma 1", {**base, "e_bar2": 0.5, "u_x2": 0.25}) == pytest.approx(
        4 * 0.5 + 4 * 0.25 + 2 / 12)


def test_drift_cap_is_condition_7():
    """8K(K − 1)(2K − 1)L_f² η_l² ≤ 1 (Theorem 2, eq. (7) [L215])."""
    for K, L_f in ((2, 1.0), (4, 1.5), (7, 0.3)):
        assert drift_cap(K, L_f) == pytest.approx(
            1 / math.sqrt(8 * K * (K - 1) * (2 * K - 1) * L_f**2), rel=1e-14)


def test_two_time_scale_ratio_is_twenty_kappa_squared():
    """η_y/η_x > 20L_f²/μ² (Theorem 1 eqs. (13), (16), Theorem 2 eq. (9) [L150, L164, L217])."""
    for tid in ("sagda.thm2", "sagda.thm1.opt1", "sagda.thm1.opt2"):
        assert two_time_scale_ratio(tid, 1.5, 1.0) == pytest.approx(45.0, rel=1e-15)
        assert two_time_scale_ratio(tid, 2.0, 0.5) == pytest.approx(320.0, rel=1e-15)


def test_max_steps_are_admissible_and_maximal():
    """The steps of the max-step rule satisfy Theorem 2's conditions; 1% more η_{x,g} does not."""
    thm = registry.get("sagda.thm2")
    base = abstract_inputs(1.5, 1.0, 2, 10, 2)
    steps, binding = max_steps(thm, base, 1e-4)
    assert theorem_bound(thm, base | {"D_0": 1, "sigma_x": 1, "sigma_y": 1, "sigma_xG": 1,
                                      "sigma_yG": 1}, steps, 100).feasible
    bigger = {**steps, "eta_xg": steps["eta_xg"] * 1.01}
    assert not theorem_bound(thm, base | {"D_0": 1, "sigma_x": 1, "sigma_y": 1, "sigma_xG": 1,
                                          "sigma_yG": 1}, bigger, 100).feasible
    assert binding["eta_yg_cap"] == pytest.approx(2 * steps["eta_yg"])


def test_constants_of_phi_on_the_scalar_game():
    """f = ½x² + xy − ½y²: Φ(x) = x² + …, ‖∇²Φ‖ = 2 ≤ L = √2 + 2 (Section 3 [L88]); the error
    bound of Lemma 2 [L556–L560] holds at every sampled point."""
    g = make_game({"dx": 1, "dy": 1, "a_ratio": 1.0}, 0)
    r = phi_constant_ratios(g, 500, 0)
    assert r["hess_phi_norm"] == pytest.approx(2.0, rel=1e-12)
    assert r["hess_ratio"] == pytest.approx(2 / (math.sqrt(2) + 2), rel=1e-12)
    assert 0 < r["error_bound_max_ratio"] <= 1 + 1e-12
