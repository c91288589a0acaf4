"""Exact analysis of Local SGDA / Fed-Norm-SGDA (verify/exact/fednorm.py): fixed points, the
partial-participation floor, and the theorem quantities read from fedbounds/theorems/fednorm.py
(sources cite the paper's numbering; [Lnnn] is a line of the text named in PAPER["text"])."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from fedbounds import engine, registry
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithms.fednorm import FEDNORM_SGDA, LOCAL_SGDA
from fedbounds.verify.exact import fednorm as exact


def test_pp_profile_is_theorem_1s_partial_participation_factor():
    """(n − P)/(P(n − 1)) (Theorem 1, App. B.2 [L656]; proof of Lemma B.2, eqs. (18)–(19)),
    relative to P = 1: n = 5."""
    assert exact.pp_profile(5, range(1, 6)).tolist() == [1.0, 3 / 8, 1 / 6, 1 / 16, 0.0]


def test_pp_floor_vanishes_at_full_participation_and_is_linear_in_the_step():
    g = make_game({"M": 5, "sigma_G": 2.0}, 0)
    small, half = exact.pp_floor(g, 0.01, 2), exact.pp_floor(g, 0.005, 2)
    assert small > 0 and small / half == pytest.approx(2.0, rel=0.05)
    assert abs(exact.pp_floor(g, 0.01, 5)) < 1e-12 * small  # zero up to rounding


@pytest.mark.parametrize("algorithm", [LOCAL_SGDA, FEDNORM_SGDA], ids=lambda a: a.name)
def test_one_local_step_has_the_p_weighted_saddle_as_fixed_point(algorithm):
    """τ = 1, P = n: one GDA step on Σ p_i f_i per round, whose fixed point is z*(p) exactly."""
    g = make_game({"M": 3, "p_skew": 0.6, "sigma_G": 2.0}, 0)
    Z = exact.fixed_point_path(g, algorithm, [0.02, 0.01], {"tau": 1})
    np.testing.assert_allclose(Z, np.broadcast_to(g.z_star(), Z.shape), rtol=1e-10, atol=1e-12)


def test_cor12_steps_follow_the_encoded_schedule():
    """Theorem 1's step sizes (App. B.2 [L658–L660]) with τ_i = τ: η^c = 1/(L_f τ √T),
    γ^s_x = γ^s_y/(81κ²)."""
    g = make_game({"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "bxy": 0.5, "a_ratio": 1.0}, 0)
    steps = exact.cor12_steps(g, 4, 1000, 0.3)
    L_f, kappa = g.constants["L_f"], g.constants["kappa"]
    assert steps["eta_cx"] == steps["eta_cy"] == pytest.approx(1 / (L_f * 4 * math.sqrt(1000)),
                                                               rel=1e-14)
    assert steps["gamma_sx"] == pytest.approx(0.3 / (81 * kappa**2), rel=1e-14)
    assert steps["gamma_sy"] == 0.3


def test_thm1_inputs_at_uniform_weights_and_equal_steps():
    """p_i = 1/n, τ_i = τ, a ≡ 1 (Theorem 1 [L167], the corollaries' specialization):
    A_w = B_w = E_w = 1, C_w = τ − 1, D = β_L²(τ − 1) + (τ − 1)², max‖a‖₁ = τ, max w a/‖a‖₁ = 1/(nτ)."""
    g = make_game({"M": 4, "beta_L": 0.5}, 0)
    vals = exact.thm1_inputs(g, np.full(4, 3), 2)
    expected = {"tau_eff": 3, "A_w": 1, "B_w": 1, "C_w": 2, "D": 0.25 * 2 + 4, "E_w": 1,
                "a_l1_max": 3, "w_a_max": 1 / 12, "n": 4, "P": 2, "beta_L": 0.5}
    for name, value in expected.items():
        assert float(vals[name]) == pytest.approx(value, rel=1e-14), name
    assert vals["Delta_Phi"] > 0


def test_thm1_steps_are_feasible_and_maximal():
    g = make_game({"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "p_skew": 0.3}, 0)
    thm = registry.get("fednorm.thm1.corrected")
    vals = exact.thm1_inputs(g, np.array([1, 1, 2, 2, 3, 3]), 3)
    steps, binding = exact.thm1_steps(thm, vals)
    given = {**vals, **{k: Fraction(v) for k, v in steps.items()}}
    ok, _ = engine.check(thm, {k: v for k, v in given.items() if k in thm.condition_inputs()})
    assert ok and all(binding.values())
    bigger = {**given, "gamma_sy": Fraction(steps["gamma_sy"]) * Fraction(101, 100)}
    assert not engine.check(thm, {k: v for k, v in bigger.items()
                                  if k in thm.condition_inputs()})[0]
