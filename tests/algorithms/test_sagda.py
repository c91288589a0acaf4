"""FSGDA and SAGDA Options I/II as Algorithm units (Algorithms 1–2 [L100–L115, L184–L197]): the
recorded run numbers, the declared parameters, the initial state and one-round identities."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithm import run_document, simulate
from fedbounds.verify.algorithms.sagda import FSGDA, SAGDA_I, SAGDA_II, SAGDA1State, steps_for
from fedbounds.verify.minmax import client_grad

# `fedbounds run ALG --problem minmax-quadratic --set M=6 sigma_x=1 sigma_y=1 sigma_G=2 K=3 m=2
# eta_xl=0.02 eta_yl=0.05 eta_xg=1.5 eta_yg=2 --rounds 30 --seeds 3 --seed 4`, recorded before
# the algorithms became units (commit 1efff97): (avg_grad_phi_sq, final_dist_sq)
RECORDED = {"fsgda": (0.5079111571511883, 0.3867522411340962),
            "sagda1": (0.3929626754454105, 0.1247234681693445),
            "sagda2": (0.5079111571511884, 0.38675224113409623)}
GAME = {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 2.0}
CONFIG = {"K": 3, "m": 2, "eta_xl": 0.02, "eta_yl": 0.05, "eta_xg": 1.5, "eta_yg": 2.0}


@pytest.mark.parametrize("alg", [FSGDA, SAGDA_I, SAGDA_II], ids=lambda a: a.name)
def test_run_document_reproduces_the_recorded_numbers(alg):
    doc = run_document(alg, "minmax-quadratic", make_game(GAME, 4), CONFIG, rounds=30, seeds=3,
                       seed=4)
    avg, dist = RECORDED[alg.name]
    assert doc["summary"]["avg_grad_phi_sq"] == pytest.approx(avg, rel=1e-12)
    assert doc["summary"]["final_dist_sq"] == pytest.approx(dist, rel=1e-12)
    # K stochastic gradients per local phase, plus one control-variate sample for SAGDA
    assert doc["summary"]["samples_per_client"] == 30 * (3 if alg is FSGDA else 4)
    assert doc["config"] == {**CONFIG, "m": 2}


def test_parameters_are_validated():
    g = make_game({"M": 4}, 0)
    assert FSGDA.method(g, {}).config["m"] == 4  # m = 0: all M clients
    with pytest.raises(BadInput, match="m = 5"):
        FSGDA.method(g, {"m": 5})
    with pytest.raises(BadInput, match="integer"):
        SAGDA_I.method(g, {"K": 1.5})
    with pytest.raises(BadInput, match="unknown parameter"):
        SAGDA_II.method(g, {"eta": 0.1})


def test_option1_control_variates_start_at_z0_for_all_clients():
    """Γ_0 = 0 (proof of Theorem 1, Appendix B.2 [L792]): v_i = ∇f_i(z_0) for all M clients
    (σ = 0)."""
    g = make_game({"M": 5, "sigma_G": 3.0}, 1)
    state = SAGDA_I.method(g, {"m": 2}).init(2, 0)
    assert isinstance(state, SAGDA1State) and state.V.shape == (2, 5, g.d)
    expected = client_grad(g, np.broadcast_to(g.z0, (1, 5, g.d)).copy())[0]
    np.testing.assert_allclose(state.V[1], expected, rtol=1e-14, atol=1e-14)


def test_option2_at_one_local_step_equals_fsgda():
    """K = 1: the corrections −v_i + v̄ average to zero over S_t (claim sagda.p2, derived here),
    noisy, m < M, heterogeneous Hessians."""
    g = make_game({"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 4.0, "hess_spread": 0.3}, 2)
    cfg = {"K": 1, "m": 3, "eta_xl": 0.02, "eta_yl": 0.05, "eta_xg": 2.0, "eta_yg": 2.0}
    a, b = (simulate(alg.method(g, cfg), 50, replicas=3, seed=5) for alg in (FSGDA, SAGDA_II))
    np.testing.assert_allclose(a.state.z, b.state.z, rtol=0, atol=1e-12)
    c = simulate(FSGDA.method(g, {**cfg, "K": 2}), 50, replicas=3, seed=5)
    d = simulate(SAGDA_II.method(g, {**cfg, "K": 2}), 50, replicas=3, seed=5)
    assert np.max(np.abs(c.state.z - d.state.z)) > 1e-6  # K = 2: the drift correction acts


def test_steps_for_gives_the_per_round_steps():
    """γ = η_l η_g K (η_x = η_{x,l}η_{x,g}, remark after Theorem 1 [L174])."""
    s = steps_for(0.01, 0.5, 20.0, 4)
    assert s["eta_xl"] * s["eta_xg"] * s["K"] == pytest.approx(0.01)
    assert s["eta_yl"] * s["eta_yg"] * s["K"] == pytest.approx(0.5)
