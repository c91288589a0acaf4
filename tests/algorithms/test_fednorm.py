"""Local SGDA(+) and Fed-Norm-SGDA(+) as Algorithm units (Sections 4.1–4.2, Algorithm 1):
the recorded run numbers, the declared parameters, the paper's helper formulas (‖a_i‖_1, the
mismatch weights) and one-round identities."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.problems.minmax import UNIT_ROUNDOFF, make_game, roundoff_perturbed
from fedbounds.verify.algorithm import run_document
from fedbounds.verify.algorithms.fednorm import (
    FEDNORM_SGDA,
    FEDNORM_SGDA_PLUS,
    LOCAL_SGDA,
    LOCAL_SGDA_PLUS,
    FedNormPlusState,
    a_l1,
    implicit_weights,
    taus,
)
from fedbounds.verify.minmax import client_grad, signed

# `fedbounds run ALG --problem PROBLEM --set ... --rounds R --seeds S --seed s`, recorded with the
# pre-redesign compile_fednorm (commit 1efff97): (avg_grad_phi_sq, final_dist_sq, samples/client)
RECORDED = [
    (LOCAL_SGDA, "minmax-quadratic", {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0},
     {"tau": 2, "tau_max": 5, "P": 2, "rho": 0.5}, (50, 3, 2),
     (1.7611221930436498, 0.3553531296524242, 175.0)),
    (LOCAL_SGDA_PLUS, "minmax-quadratic", {"M": 4, "sigma_x": 1.0, "sigma_G": 1.0},
     {"tau": 3, "P": 3, "S": 4}, (50, 2, 1), (1.9498320907401057, 0.21549536986260404, 150.0)),
    (FEDNORM_SGDA, "minmax-quadratic",
     {"M": 6, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0, "p_skew": 0.3},
     {"tau": 1, "tau_max": 3, "P": 3, "gamma_sx": 0.001, "gamma_sy": 0.05}, (60, 4, 0),
     (22.466606097724373, 12.103392275705069, 120.0)),
    (FEDNORM_SGDA_PLUS, "minmax-ncc", {"radius": 1.0, "mu": 0.0}, {"tau": 2, "S": 3}, (40, 2, 0),
     (4.372251738026575, None, 80.0)),
]


@pytest.mark.parametrize("alg, problem, pset, values, run, expected", RECORDED,
                         ids=[r[0].name for r in RECORDED])
def test_run_document_reproduces_the_recorded_numbers(alg, problem, pset, values, run, expected):
    """The recorded numbers, to the digits the run determines on any processor.

    The tolerance is derived from the run itself: every input rounded once more (a relative
    perturbation of 2u, :func:`roundoff_perturbed`) moves the result by Δ; the run's own
    roundings are that size in each of its ``rounds`` rounds and each product sums ``d`` terms,
    so a BLAS kernel that sums in another order moves it by at most about rounds·d·Δ (plus
    rounds·d·u·|x| where Δ happens to be 0). The monotone games give ~1e-13 relative; the
    nonconvex–concave one amplifies roundoff to ~1e-9 (its 1-ulp Δ), which is all a recorded
    number of that run can claim."""
    rounds, seeds, seed = run
    g = make_game(pset, seed, problem)

    def summary(game):
        doc = run_document(alg, problem, game, values, rounds=rounds, seeds=seeds, seed=seed)
        return doc["summary"]

    got = summary(g)
    moved = [summary(roundoff_perturbed(g, k)) for k in range(2)]
    roundings = rounds * (g.dx + g.dy)
    avg, dist, samples = expected
    for key, recorded in (("avg_grad_phi_sq", avg), ("final_dist_sq", dist)):
        if recorded is None:
            assert got.get(key) is None
            continue
        delta = max(abs(m[key] - got[key]) for m in moved)
        tol = roundings * (delta + UNIT_ROUNDOFF * abs(got[key]))
        assert got[key] == pytest.approx(recorded, rel=0, abs=tol), (key, tol)
    assert got["samples_per_client"] == samples  # rounds × mean τ_i


def test_parameters_are_validated_and_resolved():
    g = make_game({"M": 4}, 0)
    config = FEDNORM_SGDA.method(g, {"eta_cx": 0.02}).config
    assert config["P"] == 4 and config["gamma_sx"] == 0.02 and config["gamma_sy"] == 0.01
    with pytest.raises(BadInput, match="integer"):
        LOCAL_SGDA.method(g, {"tau": 1.5})
    with pytest.raises(BadInput, match="P = 5"):
        FEDNORM_SGDA.method(g, {"P": 5})
    with pytest.raises(BadInput, match="rho"):
        LOCAL_SGDA.method(g, {"rho": 1.0})
    with pytest.raises(BadInput, match="unknown parameter"):
        FEDNORM_SGDA.method(g, {"eta": 0.1})


@pytest.mark.parametrize("tau, rho", [(1, 0.3), (3, 0.5), (7, 0.9), (5, 0.0)])
def test_a_l1_is_the_sum_of_the_heavy_ball_coefficients(tau, rho):
    """Appendix A.1 [L547–L555]: with a buffer reset per round, gradient k enters the τ-step update
    with weight a^(k) = Σ_{j=0}^{τ−1−k} ρ^j, so ‖a‖_1 = Σ_k (1 − ρ^{τ−k})/(1 − ρ)."""
    direct = sum(sum(rho**j for j in range(tau - k)) for k in range(tau))
    assert a_l1(np.array([tau]), rho)[0] == pytest.approx(direct, rel=1e-14)


def test_mismatch_weights_and_linearly_spaced_local_steps():
    g = make_game({"M": 3, "p_skew": 0.6}, 0)
    tau = taus(g, {"tau": 1, "tau_max": 20})
    assert tau.tolist() == [1, 10, 20]  # round(linspace(1, 20, 3)) = 1, 10, 20
    assert taus(g, {"tau": 4, "tau_max": 0}).tolist() == [4, 4, 4]
    w = implicit_weights(g, tau)  # w_i ∝ p_iτ_i (the w_i of eq. (2) with a ≡ 1)
    np.testing.assert_allclose(w, g.p * tau / np.sum(g.p * tau), rtol=1e-15)
    w_mom = implicit_weights(g, tau, 0.5)
    np.testing.assert_allclose(w_mom, g.p * a_l1(tau, 0.5) / np.sum(g.p * a_l1(tau, 0.5)),
                               rtol=1e-15)


def test_one_local_step_at_full_participation_is_gda_on_the_p_weighted_objective():
    """τ = 1, P = n: Local SGDA's z ← Σ p_i z_i¹ = z − s ⊙ Σ p_i∇f_i(z) (Section 4.1); Fed-Norm with
    γ^s = c·η^c steps c times as far (τ_eff = 1, g_i = ∇f_i(z), Algorithm 1, lines 10–20)."""
    g = make_game({"M": 4, "sigma_G": 2.0, "p_skew": 0.5, "hess_spread": 0.2}, 3)
    z = np.random.default_rng(0).standard_normal((2, g.d))
    full = {"clients": np.zeros((2, g.M))}
    grad = np.einsum("m,rmd->rd", g.p, client_grad(g, np.repeat(z[:, None], g.M, 1)))
    s = signed(g, 0.03, 0.07)
    cfg = {"eta_cx": 0.03, "eta_cy": 0.07}
    for alg, scale in ((LOCAL_SGDA, 1.0), (FEDNORM_SGDA, 1.0), (FEDNORM_SGDA, 2.0)):
        method = alg.method(g, {**cfg, "gamma_sx": 0.03 * scale, "gamma_sy": 0.07 * scale})
        new, communicated = method.step(method.init(2, 0)._replace(z=z), full, 0)
        np.testing.assert_allclose(new.z, z - scale * s * grad, rtol=1e-13, atol=1e-14)
        assert communicated.tolist() == [1.0, 1.0]


def test_plus_variants_refresh_the_snapshot_every_S_rounds():
    """SGDA+ (Algorithm 1, lines 4–6): ∇_y at x̂ = x^{(sS)}, refreshed at rounds t with
    t mod S = 0."""
    g = make_game({"M": 3}, 1)
    method = LOCAL_SGDA_PLUS.method(g, {"S": 3, "tau": 2})
    state = method.init(1, 0)
    assert isinstance(state, FedNormPlusState)
    draws = {"clients": np.zeros((1, g.M))}
    xs = []
    for t in range(5):
        xs.append(state.z[:, : g.dx].copy())
        state, _ = method.step(state, draws, t)
        np.testing.assert_array_equal(state.x_hat, xs[3 * (t // 3)])
