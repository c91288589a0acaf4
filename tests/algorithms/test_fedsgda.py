"""FedSGDA+ and FedSGDA-M as Algorithm units (Algorithms 1–2 of the paper): the
recorded run numbers, the declared parameters, the initial state, the communication schedule,
the one-step identities with GDA, P1's invariance, and the realized Cor. 3.7 / 3.13 schedules."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithm import run_document, simulate
from fedbounds.verify.algorithms.fedsgda import (
    FEDSGDA_M,
    FEDSGDA_PLUS,
    FedSGDAMState,
    cor37_config,
    cor313_config,
)
from fedbounds.verify.minmax import client_grad

# recorded with the pre-redesign entries (commit 7bd75f5, `fedbounds run ALG --problem
# minmax-quadratic --set M=5 sigma_x=1 sigma_y=0.5 sigma_G=2 hess_spread=0.3 ... --rounds 40
# --seeds 3 --seed 4`): (avg_grad_phi_sq, final_dist_sq, communications, samples_per_client)
GAME = {"M": 5, "sigma_x": 1.0, "sigma_y": 0.5, "sigma_G": 2.0, "hess_spread": 0.3}
RECORDED = {
    "fedsgda-plus": ({"c_hat": 0.02, "c": 0.05, "eta_x": 0.5, "eta_y": 2.0, "Q": 3, "S": 2,
                      "b": 2.0}, (3.377875237080157, 0.11762090355938803, 40.0, 480.0)),
    "fedsgda-m": ({"c_hat": 0.2, "c": 0.5, "eta": 0.1, "alpha": 0.3, "beta": 0.6, "Q": 3,
                   "b": 2.0, "B": 4.0}, (5.791517796839234, 1.2399641036677507, 13.0, 160.0)),
}


@pytest.mark.parametrize("alg", [FEDSGDA_PLUS, FEDSGDA_M], ids=lambda a: a.name)
def test_run_document_reproduces_the_recorded_numbers(alg):
    config, (avg, dist, comms, samples) = RECORDED[alg.name]
    doc = run_document(alg, "minmax-quadratic", make_game(GAME, 4), config, rounds=40, seeds=3,
                       seed=4)
    s = doc["summary"]
    assert s["avg_grad_phi_sq"] == pytest.approx(avg, rel=1e-12)
    assert s["final_dist_sq"] == pytest.approx(dist, rel=1e-12)
    # FedSGDA+: one round per step, 2bQ gradients; FedSGDA-M: a round every Q = 3 of 40 steps, 2b
    assert (s["communications"], s["samples_per_client"]) == (comms, samples)
    assert doc["config"] == config


def test_parameters_are_validated():
    g = make_game({"M": 3}, 0)
    with pytest.raises(BadInput, match="integer"):
        FEDSGDA_M.method(g, {"Q": 1.5})
    with pytest.raises(BadInput, match="integer"):
        FEDSGDA_PLUS.method(g, {"S": 2.5})
    with pytest.raises(BadInput, match="alpha"):
        FEDSGDA_M.method(g, {"alpha": 0.0})  # α, β ∈ (0, 1] (Section 3.2 [L224])
    with pytest.raises(BadInput, match="<= 1"):
        FEDSGDA_M.method(g, {"beta": 1.5})
    with pytest.raises(BadInput, match="unknown parameter"):
        FEDSGDA_PLUS.method(g, {"alpha": 0.5})


def test_m_initial_state_and_communication_schedule():
    """Alg. 2 line 2: u^i_1 = ∇f_i(z_0) (σ = 0); the server model is the client average; a
    communication every Q iterations."""
    g = make_game({"M": 4, "sigma_G": 3.0}, 1)
    method = FEDSGDA_M.method(g, {"Q": 4})
    state = method.init(2, 0)
    assert isinstance(state, FedSGDAMState) and state.z_local.shape == (2, 4, g.d)
    np.testing.assert_array_equal(state.z, np.broadcast_to(g.z0, (2, g.d)))
    np.testing.assert_allclose(state.u, client_grad(g, state.z_local), rtol=0, atol=0)
    tr = simulate(method, 12, replicas=2)
    assert tr.communications[:, 0].tolist() == [0] * 4 + [1] * 4 + [2] * 4 + [3]
    np.testing.assert_allclose(tr.state.z, tr.state.z_local.mean(1), rtol=0, atol=0)


def _gda(g, ex: float, ey: float, rounds: int) -> np.ndarray:
    """Deterministic GDA on F = Σ p_i f_i with steps (η_x, η_y)."""
    Hb, hb = np.einsum("m,mij->ij", g.p, g.H), g.p @ g.h
    s = np.concatenate([np.full(g.dx, ex), np.full(g.dy, -ey)])
    z = g.z0.copy()
    for _ in range(rounds):
        z = z - s * (Hb @ z + hb)
    return z


@pytest.mark.parametrize("alg, config", [
    (FEDSGDA_PLUS, {"c_hat": 0.03, "c": 0.1, "eta_x": 2.0, "eta_y": 3.0, "Q": 1, "S": 1}),
    (FEDSGDA_M, {"c_hat": 0.6, "c": 3.0, "eta": 0.1, "alpha": 1.0, "beta": 1.0, "Q": 1})],
    ids=["fedsgda-plus", "fedsgda-m"])
def test_one_local_step_noiseless_is_gda(alg, config):
    """FedSGDA+ at Q = S = 1 and FedSGDA-M at α = β = 1, Q = 1 are GDA with x step 0.06 and
    y step 0.3 (ĉη_x, cη_y resp. ĉη, cη; server step of Algorithm 1 [L123], local steps of
    Algorithm 2 [L206–L211])."""
    g = make_game({"M": 5, "sigma_G": 2.0}, 0)
    tr = simulate(alg.method(g, config), 25, replicas=2)
    np.testing.assert_allclose(tr.state.z[1], _gda(g, 0.06, 0.3, 25), rtol=0, atol=1e-12)


def test_m_average_invariant_in_q_and_zeta():
    """Claim fedsgda.p1 (our prediction): on common Hessians with additive noise and common
    random numbers,
    x̄_t does not depend on Q or ζ."""
    ref = None
    for Q in (1, 5, 20):
        for sigma_G in (0.0, 3.0):
            g = make_game({"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": sigma_G})
            method = FEDSGDA_M.method(g, {"c_hat": 0.5, "c": 2.0, "eta": 0.05, "alpha": 0.3,
                                          "beta": 0.2, "Q": Q})
            gp = simulate(method, 60, replicas=4, seed=1).metrics["grad_phi_sq"]
            ref = gp if ref is None else ref
            assert np.max(np.abs(gp - ref)) < 1e-10


def test_cor37_configuration():
    """Corollary 3.7 [L179] at L_f = 2, N = 2, T = 512: Q = T^{1/3}/N = 4, S = 8,
    c = ĉ = 1/(10L_fQT^{1/3}) = 1/640, η_x = T^{−1/3}, η_y = T^{1/3}."""
    assert cor37_config(2.0, 2, 512) == {"c": 1 / 640, "c_hat": 1 / 640, "eta_x": 0.125,
                                         "eta_y": 8.0, "Q": 4, "S": 8}


def test_cor313_configuration_both_readings():
    """Corollary 3.13 [L249] with Theorem 3.12's parameters [L245] at L_f = 2, μ = 1 (κ = 2), N = 4,
    N·T_0 = 4096, ν = 0: Q = 1024^{1/3}/4^{2/3} = 4, b = 1, B = 8, T = κ³T_0 = 8192; R1 (L = L_f):
    η = 1/160, c = 1/12, ĉ = 1/432, α = c_1η² = 15/160², β = 7.5/160²; R2 (L = L_f(1 + κ) = 6):
    η = 1/480 and the same α, β (L cancels)."""
    cfg, T = cor313_config({"L_f": 2.0, "mu": 1.0}, 4, 4096, 0)
    assert T == 8192
    assert cfg == pytest.approx({"eta": 1 / 160, "c": 1 / 12, "c_hat": 1 / 432,
                                 "alpha": 15 / 160**2, "beta": 7.5 / 160**2, "Q": 4, "b": 1.0,
                                 "B": 8.0}, rel=1e-15)
    r2, T2 = cor313_config({"L_f": 2.0, "mu": 1.0}, 4, 4096, 0, "R2")
    assert T2 == T and r2["eta"] == pytest.approx(1 / 480, rel=1e-15)
    assert (r2["alpha"], r2["beta"]) == pytest.approx((cfg["alpha"], cfg["beta"]), rel=1e-15)
