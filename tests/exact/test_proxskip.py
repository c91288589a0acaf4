"""Exact analysis of ProxSkip-VIP-FL (Algorithm 2) on affine problems ([derived]): the
second-moment recursion against Monte Carlo and against one simulated step, the spectral radius
(vech, Arnoldi, Collatz–Wielandt), the stationary floor, hitting times, the p = 1 stability
threshold, Local GDA's fixed point, the estimator moments of Lemmas 3.4/3.8, and the encoded
bounds evaluated at numbers."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.problems import proxskip as families
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms import proxskip as algorithms
from fedbounds.verify.algorithms.proxskip import ProxSkipState
from fedbounds.verify.exact import proxskip as exact
from fedbounds.verify.fitting import mean_ci


@pytest.fixture(scope="module")
def gnorm():
    return families.g_norm(n=3, d=4, s=3.0, zeta_sq=1.0, seed=0)


def test_exact_recursion_matches_monte_carlo(gnorm):
    """E[V_t] (exact) inside the MC interval of R = 2000 replicas of Alg. 2, first moment too."""
    g, p = algorithms.gda_steps(gnorm)
    maps = exact.proxskip_maps(gnorm, g, p)
    e0 = exact.initial_error(gnorm)
    T, R = 60, 2000
    EV = exact.expected_V(maps, e0, T)
    mean_e = exact.expected_V_mean_path(maps, e0, T)
    tr = simulate(algorithms.proxskip_method(gnorm, g, p), T, replicas=R, seed=7)
    V = tr.metrics["V"]
    for t in (1, 2, 5, 10, 20, 40, 60):
        est = mean_ci(V[t], level=0.9999)
        assert est.lo <= EV[t] <= est.hi, (t, EV[t], est)
    assert EV[0] == pytest.approx(V[0, 0], rel=1e-12) and EV[0] == pytest.approx(maps.V(e0))
    ex = (tr.state.x - gnorm.z_star).reshape(R, -1)
    for k in range(ex.shape[1]):
        est = mean_ci(ex[:, k], level=0.9999)
        assert est.lo <= mean_e[T, k] <= est.hi


def test_exact_maps_match_one_simulated_step(gnorm):
    g, p = algorithms.gda_steps(gnorm)
    maps = exact.proxskip_maps(gnorm, g, p)
    rng = np.random.default_rng(0)
    x, h = rng.standard_normal((1, 3, 4)), rng.standard_normal((1, 3, 4))
    e = exact.initial_error(gnorm, x[0], h[0])
    step = algorithms.proxskip_method(gnorm, g, p).step
    for theta, T in ((False, maps.T0), (True, maps.T1)):
        new, _ = step(ProxSkipState(x, h), {"coin": np.array([theta])}, 0)
        np.testing.assert_allclose(exact.initial_error(gnorm, new.x[0], new.h[0]), T @ e,
                                   atol=1e-12)


def test_spectral_radius_three_ways():
    """vech eigenvalues = full Kronecker = Arnoldi, inside the Collatz–Wielandt bracket."""
    prob = families.g_norm(n=2, d=2, s=2.0, seed=1)
    g, p = algorithms.gda_steps(prob)
    maps = exact.proxskip_maps(prob, g, 0.7 * p)
    full = np.max(np.abs(np.linalg.eigvals(exact.second_moment_operator(maps))))
    assert exact.spectral_radius(maps) == pytest.approx(full, rel=1e-10)
    assert exact.radius_arnoldi(maps) == pytest.approx(full, rel=1e-9)
    lo, hi = exact.radius_bracket(maps, 2000)
    assert lo <= full * (1 + 1e-12) and full <= hi * (1 + 1e-12) and hi - full < 1e-9


def test_stationary_floor_is_the_limit_of_the_recursion():
    prob = families.with_noise(families.g_norm(n=2, d=2, s=2.0, seed=1), 0.5)
    g, p = algorithms.gda_steps(prob)
    maps = exact.proxskip_maps(prob, g, p)
    Q = exact.noise_cov(prob)
    EV = exact.expected_V(maps, np.zeros(8), 4000, Q=Q)
    floor = exact.stationary_V(maps, Q)
    assert EV[-1] == pytest.approx(floor, rel=1e-8)
    burn, curve = exact.burn_in(maps, Q, floor, 4000)
    assert curve[burn] >= (1 - 2e-3) * floor > curve[burn - 1]


def test_hitting_time(gnorm):
    g, p = algorithms.gda_steps(gnorm)
    maps = exact.proxskip_maps(gnorm, g, p)
    e0 = exact.initial_error(gnorm)
    t, EV = exact.hitting_time(maps, e0, 1e-4, 5000)
    assert EV[t] <= 1e-4 * maps.V(e0) < EV[t - 1] and EV.size == t + 1
    assert exact.hitting_time(maps, e0, 1e-4, t - 1)[0] is None


def test_p1_stability_threshold_is_two_over_ell_spec():
    """p = 1 GDA is stable iff γ < 2/ℓ_spec = 2 min Re(1/λ) [derived; the formula of Appendix G
    [L774]], exactly the
    radius ρ(T_1)² crossing 1 (here on P15's non-normal instance, ℓ_spec < ℓ)."""
    prob, _ = families.shared_nonnormal(seed=0)
    spec = prob.constants["ell_spec"]
    gamma_c = exact.stability_threshold(prob, 1 / spec, 4 / spec)
    assert gamma_c == pytest.approx(2 / spec, rel=1e-9)
    assert exact.skipless_radius(prob, 0.99 * gamma_c) < 1 < exact.skipless_radius(prob, 1.01
                                                                                   * gamma_c)
    assert exact.stability_threshold(prob, 3 / spec, 4 / spec) is None


def test_local_gda_floor_is_the_limit_of_local_gda():
    prob = families.g_norm(n=3, d=4, s=3.0, zeta_sq=10.0, seed=2)
    tr = simulate(algorithms.local_method(prob, 0.02, 5), 3000)
    assert tr.mean("dist_sq")[-1] == pytest.approx(exact.local_gda_floor(prob, 0.02, 5),
                                                   rel=1e-8)
    assert exact.local_gda_floor(prob, 0.02, 5) > 1e-6  # heterogeneity: a floor (P9)


def test_estimator_moments_by_enumeration():
    """E over j ~ Unif[m] per client, enumerated for n = 2, m = 3 (3² index pairs)."""
    prob = families.finite_sum(families.g_norm(n=2, d=2, s=1.0, seed=0), m=3, spread=0.7,
                               seed=0, jac_spread=0.5)
    rng = np.random.default_rng(3)
    X, W = rng.standard_normal((2, 1, 2, 2))
    v = exact.estimator_moments(prob, X, W)
    z, fz = prob.z_star, prob.f(np.broadcast_to(prob.z_star, (2, 2)))
    F = lambda i, j, x: prob.Jij[i, j] @ x + prob.bij[i, j]  # noqa: E731
    sgda = svrg = 0.0
    for j0 in range(3):
        for j1 in range(3):
            js = (j0, j1)
            sgda += sum(np.sum((F(i, js[i], X[0, i]) - fz[i]) ** 2) for i in range(2)) / 9
            svrg += sum(np.sum((F(i, js[i], X[0, i]) - F(i, js[i], W[0, i])
                                + prob.f(W[0])[i] - fz[i]) ** 2) for i in range(2)) / 9
    assert v["sgda"][0] == pytest.approx(sgda, rel=1e-12)
    assert v["svrg"][0] == pytest.approx(svrg, rel=1e-12)
    assert v["inner"][0] == pytest.approx(np.sum((prob.f(X[0]) - fz) * (X[0] - z)), rel=1e-12)


def test_encoded_bounds_at_numbers(gnorm):
    """Cor. 3.6 [L182]: E[V_T] ≤ (1 − min{γμ, p²})^T V_0; at γμ = 1/16, p = 0.2 the rate is
    0.96 and γ = 1/(2ℓ) holds at ℓ = 8; Lemma 3.4's constants [L168]."""
    values = {"gamma": 0.0625, "p": 0.2, "mu": 1.0, "ell": 8.0, "V_0": 2.0}
    total, terms, ok, violated = exact.theorem_curve("proxskip.cor3.6", values, np.arange(3))
    np.testing.assert_allclose(total, [2.0, 1.92, 2 * 0.96**2], rtol=1e-14)
    assert ok and not violated
    assert exact.tau_from("proxskip.cor3.6", values) == pytest.approx(0.04, rel=1e-12)
    from fedbounds.theorems import proxskip as theory

    assert exact.derived_values(theory.lemma34, {"L_g": 3.0, "sigma_star": 0.5, "inner": 0.0}
                                )["D_1"] == pytest.approx(0.5)
    ratio, t, EV, bound, info = exact.bound_ratio(gnorm, *algorithms.gda_steps(gnorm),
                                                  "proxskip.cor3.6")
    assert 0.9 < ratio <= 1 + 1e-9 and EV[0] == pytest.approx(1.0) == bound[0]
    assert t.size == EV.size == bound.size and info["steps"] == t.size - 1
