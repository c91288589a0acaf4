"""SAGDA's theorem inputs on the quadratic games (problems/sagda.py; Assumptions 1–4, Theorem 1)."""

from __future__ import annotations

import math

import pytest

from fedbounds.problems.minmax import make_game
from fedbounds.problems.sagda import lyapunov_gap, objective, theorem_inputs


def test_lyapunov_gap_on_the_scalar_game_by_hand():
    """f = ½x² + xy − ½y² + b̄x − c̄y: y*(x) = x − c̄, Φ(x) = x² + (b̄ − c̄)x + c̄²/2, so
    𝓛_* = (9/10)Φ(x*) = (9/10)(c̄²/2 − (b̄ − c̄)²/4) and, at z_0 = (1, 0), 𝓛_0 = Φ(1) − (½ + b̄)/10
    (𝓛 = Φ − f/10, Theorem 1 [L143, L154])."""
    g = make_game({"dx": 1, "dy": 1, "a_ratio": 1.0, "sigma_G": 2.0, "M": 4}, 0)
    _, _, _, b, c = g.mean_blocks()
    b, c = float(b[0]), float(c[0])
    phi_1 = 1 + (b - c) + c**2 / 2
    assert objective(g, g.z0) == pytest.approx(0.5 + b, rel=1e-14)
    expected = phi_1 - (0.5 + b) / 10 - 0.9 * (c**2 / 2 - (b - c) ** 2 / 4)
    assert lyapunov_gap(g) == pytest.approx(expected, rel=1e-12)


def test_theorem_inputs_are_the_game_constants():
    """σ_{x,G} = σ_{y,G} = σ_G by construction (Σ p_i ‖e_i‖² = 1); L_f, μ from the game."""
    g = make_game({"M": 5, "sigma_x": 0.5, "sigma_y": 2.0, "sigma_G": 3.0}, 1)
    inputs = theorem_inputs(g, 4, 2)
    assert (inputs["K"], inputs["M"], inputs["m"]) == (4, 5, 2)
    assert float(inputs["L_f"]) == g.constants["L_f"] and float(inputs["mu"]) == g.constants["mu"]
    assert (float(inputs["sigma_x"]), float(inputs["sigma_y"])) == (0.5, 2.0)
    assert float(inputs["sigma_xG"]) == pytest.approx(3.0, rel=1e-12)
    assert float(inputs["sigma_yG"]) == pytest.approx(3.0, rel=1e-12)
    assert float(inputs["D_0"]) == lyapunov_gap(g) and lyapunov_gap(g) >= 0
    assert math.isfinite(float(inputs["D_0"]))
